//! Tensor-core semantics for simt: the warp-wide `MMA` instructions on register
//! fragments, and 2:4 sparsification of matrices for `MMA.SP`.
//!
//! [`mma`] implements contract sections 8 and 9: every output element is an
//! f32 (f64 for `MMA.M8N8K4`) multiply-accumulate chain starting from C and
//! adding the products in increasing k, each step rounded once; integer forms
//! add exactly and wrap to i32 (or clamp to it, `MMA.M16N8K32.S32.S8.SAT`). [`formats`] holds the section 9 element formats (TF32, FP8,
//! FP4, 4-bit integers) and their conversions. `docs/tensor.md` describes the
//! fragment layouts (also available as code in [`layout`]), the sparse
//! metadata and how the results differ from hardware.

#![warn(missing_docs)]

mod chain;
pub mod formats;
pub mod layout;
pub mod sparsify;

use chain::{Mac, Work};
use half::f16;
use layout::{Operand, Shape, table_of};
use simt_isa::{FragRole, MmaAcc, MmaForm, MmaIn, MmaScaledKind, Opcode, ScaleSelectors};

/// Why an MMA could not execute.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("lane {lane}: {message}")]
pub struct MmaError {
    /// The lane whose operand is at fault; 0 when the fault is the instruction's
    /// (an unsupported type combination or a wrong number of registers).
    pub lane: u32,
    /// What is wrong, without the lane.
    pub message: String,
}

impl MmaError {
    fn instruction(message: String) -> MmaError {
        MmaError { lane: 0, message }
    }
}

/// Executes one warp-wide MMA.
///
/// Each fragment is a slice of registers, each register an array of the 32
/// lanes' values (`frag[reg][lane]`). `a`, `b`, `c` and `d` have the register
/// counts of `Instruction::reg_count` for the form; `e` is `Some` exactly for
/// `MMA.SP`. `sat` (only `MMA.M16N8K32` with an S32 accumulator has it) clamps
/// integer results to the i32 range. `d` is written only when the result is `Ok`.
///
/// # Errors
///
/// An opcode that is not an MMA, a type combination the opcode does not have,
/// a fragment with the wrong number of registers, a missing or unexpected `e`,
/// or sparse metadata whose two indices of a group are not strictly increasing.
#[allow(clippy::too_many_arguments)] // the operands of the instruction, one argument each
pub fn mma(
    opcode: Opcode,
    acc: MmaAcc,
    input: MmaIn,
    sat: bool,
    a: &[[u32; 32]],
    b: &[[u32; 32]],
    c: &[[u32; 32]],
    e: Option<&[u32; 32]>,
    d: &mut [[u32; 32]],
) -> Result<(), MmaError> {
    let Some(shape) = Shape::of(opcode) else {
        return Err(MmaError::instruction(format!("{opcode} is not a tensor-core instruction")));
    };
    let supported = matches!(
        (shape, acc, input),
        (Shape::M16N16K16 | Shape::M16N8K16 | Shape::SpM16N16K32, MmaAcc::F32, MmaIn::F16 | MmaIn::BF16)
            | (Shape::M16N16K16, MmaAcc::F32, MmaIn::TF32 | MmaIn::E4M3 | MmaIn::E5M2 | MmaIn::E2M1)
            | (Shape::M16N16K16 | Shape::M16N8K16, MmaAcc::F16, MmaIn::F16)
            | (Shape::M16N16K16, MmaAcc::S32, MmaIn::S8 | MmaIn::U8 | MmaIn::S4 | MmaIn::U4)
            | (Shape::M8N8K4, MmaAcc::F64, MmaIn::F64)
            | (Shape::M16N8K8, MmaAcc::F32, MmaIn::TF32)
            | (Shape::M16N8K32, MmaAcc::S32, MmaIn::S8 | MmaIn::U8)
            | (Shape::M16N8K32, MmaAcc::F32, MmaIn::E4M3 | MmaIn::E5M2)
    );
    if !supported {
        return Err(MmaError::instruction(format!("{opcode} has no .{acc}.{input} form")));
    }
    if sat && (shape, acc) != (Shape::M16N8K32, MmaAcc::S32) {
        return Err(MmaError::instruction(format!("{opcode}.{acc}.{input} has no .SAT form")));
    }
    let (in_bits, acc_bits) = (input.bits() as usize, acc.bits() as usize);
    let regs = |operand, bits: usize| (layout::elements_per_lane(shape, operand) * bits).div_ceil(32);
    for (name, len, want) in [
        ("a", a.len(), regs(Operand::A, in_bits)),
        ("b", b.len(), regs(Operand::B, in_bits)),
        ("c", c.len(), regs(Operand::C, acc_bits)),
        ("d", d.len(), regs(Operand::C, acc_bits)),
    ] {
        if len != want {
            return Err(MmaError::instruction(format!("operand {name} has {len} registers; {opcode}.{acc}.{input} takes {want}")));
        }
    }
    let k_of = match (shape, e) {
        (Shape::SpM16N16K32, Some(e)) => sparse_k_of(e)?,
        (Shape::SpM16N16K32, None) => return Err(MmaError::instruction(format!("{opcode} needs metadata operand e"))),
        (_, None) => DENSE_K_OF,
        (_, Some(_)) => return Err(MmaError::instruction(format!("{opcode} takes no metadata operand"))),
    };
    if shape == Shape::M8N8K4 {
        run_fused(F64Chain { a, b, c, d });
        return Ok(());
    }
    if shape == Shape::M16N8K32 {
        run_fused(M16n8k32 { input, sat, a, b, c, d });
        return Ok(());
    }
    let operands = Operands { shape, k_of, a, b, c, in_per_reg: 32 / in_bits, acc_per_reg: 32 / acc_bits };
    // One arm per form so that each gets its own inlined conversions. Element
    // values arrive masked to their width, so U8 and U4 need no further masking.
    let int = |x: u32| x as i32;
    let wrap = |v: i32| v as u32;
    match (acc, input) {
        (MmaAcc::S32, MmaIn::S8) => operands.run(|x| i32::from(x as u8 as i8), int, wrap, d),
        (MmaAcc::S32, MmaIn::S4) => operands.run(formats::s4_value, int, wrap, d),
        (MmaAcc::S32, _) => operands.run(int, int, wrap, d),
        (MmaAcc::F16, _) => operands.run(f16_bits_to_f32, f16_bits_to_f32, f32_to_f16_bits, d),
        (_, MmaIn::BF16) => operands.run(|x| f32::from_bits(x << 16), f32::from_bits, f32_to_bits, d),
        (_, MmaIn::TF32) => operands.run(formats::tf32_value, f32::from_bits, f32_to_bits, d),
        (_, MmaIn::E4M3) => operands.run(|x| formats::E4M3_VALUES[x as u8 as usize], f32::from_bits, f32_to_bits, d),
        (_, MmaIn::E5M2) => operands.run(|x| formats::E5M2_VALUES[x as u8 as usize], f32::from_bits, f32_to_bits, d),
        (_, MmaIn::E2M1) => operands.run(|x| formats::E2M1_VALUES[(x & 15) as usize], f32::from_bits, f32_to_bits, d),
        _ => operands.run(f16_bits_to_f32, f32::from_bits, f32_to_bits, d),
    }
    Ok(())
}

/// `MMA.M16N8K32` on whole matrices (K = 32 is twice the work matrices' width).
/// Integer inputs: each product is at most 2^16 in magnitude, so every partial sum of a
/// dot product's 32 is an integer below 2^22, exact in f32 (which vectorises best); C is
/// added in i64 and the sum wraps to i32, or with `sat` clamps to it. FP8 products are
/// exact in f32 (4-bit significands), so `acc + a * b` rounds once, as an FMA would, step
/// by step in increasing k.
struct M16n8k32<'f> {
    input: MmaIn,
    sat: bool,
    a: &'f [[u32; 32]],
    b: &'f [[u32; 32]],
    c: &'f [[u32; 32]],
    d: &'f mut [[u32; 32]],
}

impl Fused for M16n8k32<'_> {
    #[inline(always)]
    fn run(self) {
        let M16n8k32 { input, sat, a, b, c, d } = self;
        match input {
            MmaIn::S8 => k32_int(|x| f32::from(x as u8 as i8), sat, a, b, c, d),
            MmaIn::U8 => k32_int(|x| x as f32, sat, a, b, c, d),
            MmaIn::E4M3 => k32_float(|x| formats::E4M3_VALUES[x as usize], a, b, c, d),
            _ => k32_float(|x| formats::E5M2_VALUES[x as usize], a, b, c, d),
        }
    }
}

/// (row, column) of every element of every lane of an m16n8k32 operand, computed once.
const fn k32_places(operand: Operand) -> [[(u8, u8); 16]; 32] {
    let mut places = [[(0u8, 0u8); 16]; 32];
    let mut lane = 0;
    while lane < 32 {
        let mut e = 0;
        while e < layout::elements_per_lane(Shape::M16N8K32, operand) {
            let (row, col) = layout::coord(Shape::M16N8K32, operand, lane, e);
            places[lane][e] = (row as u8, col as u8);
            e += 1;
        }
        lane += 1;
    }
    places
}

const K32_A: [[(u8, u8); 16]; 32] = k32_places(Operand::A);
const K32_B: [[(u8, u8); 16]; 32] = k32_places(Operand::B);
const K32_C: [[(u8, u8); 16]; 32] = k32_places(Operand::C);

/// A (16 x 32) and B (32 x 8), widened from 8-bit codes, in the m16n8k32 fragment layout.
#[inline(always)]
fn k32_operands(a: &[[u32; 32]], b: &[[u32; 32]], widen: impl Fn(u32) -> f32) -> ([[f32; 32]; 16], [[f32; 8]; 32]) {
    let (mut a_rows, mut b_rows) = ([[0f32; 32]; 16], [[0f32; 8]; 32]);
    for (g, reg) in a.iter().enumerate() {
        for (places, &word) in K32_A.iter().zip(reg) {
            for s in 0..4 {
                let (i, t) = places[(4 * g + s) & 15];
                a_rows[usize::from(i) & 15][usize::from(t) & 31] = widen((word >> (8 * s)) & 0xFF);
            }
        }
    }
    for (g, reg) in b.iter().enumerate() {
        for (places, &word) in K32_B.iter().zip(reg) {
            for s in 0..4 {
                let (t, j) = places[(4 * g + s) & 15];
                b_rows[usize::from(t) & 31][usize::from(j) & 7] = widen((word >> (8 * s)) & 0xFF);
            }
        }
    }
    (a_rows, b_rows)
}

/// Row `a` of A times B, added to `acc` one k at a time across the 8 columns.
#[inline(always)]
fn k32_row(acc: &mut [f32; 8], a: &[f32; 32], b: &[[f32; 8]; 32]) {
    for (&x, b_row) in a.iter().zip(b) {
        for (v, &y) in acc.iter_mut().zip(b_row) {
            *v += x * y;
        }
    }
}

/// C (16 x 8) as element bits, from its m16n8k32 (as m16n8k16) fragment.
#[inline(always)]
fn k32_accumulator(c: &[[u32; 32]]) -> [[u32; 8]; 16] {
    let mut bits = [[0u32; 8]; 16];
    for (e, reg) in c.iter().enumerate() {
        for (places, &word) in K32_C.iter().zip(reg) {
            let (i, j) = places[e & 15];
            bits[usize::from(i) & 15][usize::from(j) & 7] = word;
        }
    }
    bits
}

/// D's fragment from its element bits.
#[inline(always)]
fn k32_scatter(bits: &[[u32; 8]; 16], d: &mut [[u32; 32]]) {
    for (e, reg) in d.iter_mut().enumerate() {
        for (places, word) in K32_C.iter().zip(reg) {
            let (i, j) = places[e & 15];
            *word = bits[usize::from(i) & 15][usize::from(j) & 7];
        }
    }
}

#[inline(always)]
fn k32_int(widen: impl Fn(u32) -> f32, sat: bool, a: &[[u32; 32]], b: &[[u32; 32]], c: &[[u32; 32]], d: &mut [[u32; 32]]) {
    let (a_rows, b_rows) = k32_operands(a, b, widen);
    let mut bits = k32_accumulator(c);
    for (bits_row, a_row) in bits.iter_mut().zip(&a_rows) {
        let mut dots = [0f32; 8];
        k32_row(&mut dots, a_row, &b_rows);
        for (bits, dot) in bits_row.iter_mut().zip(dots) {
            let sum = i64::from(*bits as i32) + dot as i64;
            *bits = if sat { sum.clamp(i32::MIN.into(), i32::MAX.into()) as i32 as u32 } else { sum as i32 as u32 };
        }
    }
    k32_scatter(&bits, d);
}

#[inline(always)]
fn k32_float(widen: impl Fn(u32) -> f32, a: &[[u32; 32]], b: &[[u32; 32]], c: &[[u32; 32]], d: &mut [[u32; 32]]) {
    let (a_rows, b_rows) = k32_operands(a, b, widen);
    let mut bits = k32_accumulator(c);
    for (bits_row, a_row) in bits.iter_mut().zip(&a_rows) {
        let mut acc = bits_row.map(f32::from_bits);
        k32_row(&mut acc, a_row, &b_rows);
        *bits_row = acc.map(f32_to_bits);
    }
    k32_scatter(&bits, d);
}

/// (multiply-accumulates performed, multiply-accumulates of the equivalent
/// dense product) by one warp's execution of `inst`; (0, 0) for an instruction that is not an MMA.
pub fn macs(inst: &simt_isa::Instruction) -> (u64, u64) {
    let slices = inst.mma_slices();
    match inst.form.mma().map(|form| form.shape) {
        // 2:4 sparsity multiplies only the kept half of A.
        Some(shape @ Shape::SpM16N16K32) => (shape.macs() / 2, shape.macs()),
        Some(shape) => (shape.macs() * slices, shape.macs() * slices),
        None => (0, 0),
    }
}

/// The k of every A element of a dense shape: its column.
const DENSE_K_OF: [[u8; 16]; 16] = {
    let mut k_of = [[0u8; 16]; 16];
    let mut t = 0;
    while t < 16 {
        let mut i = 0;
        while i < 16 {
            k_of[i][t] = t as u8;
            i += 1;
        }
        t += 1;
    }
    k_of
};

/// The logical column (row of B) of every kept A value of `MMA.SP`, from the
/// metadata register: lane `2r + h` holds kept values `8h .. 8h + 7` of row `r`.
fn sparse_k_of(e: &[u32; 32]) -> Result<[[u8; 16]; 16], MmaError> {
    let mut k_of = [[0u8; 16]; 16];
    for (lane, &word) in e.iter().enumerate() {
        let (r, h) = (lane >> 1, lane & 1);
        let kept = sparsify::decode_metadata(word).map_err(|bad| MmaError { lane: lane as u32, message: bad.to_string() })?;
        for (i, col) in kept.iter().enumerate() {
            k_of[r][8 * h + i] = (16 * h + 4 * (i / 2)) as u8 + col;
        }
    }
    Ok(k_of)
}

/// The source fragments of one MMA with everything needed to read them.
struct Operands<'f> {
    shape: Shape,
    k_of: [[u8; 16]; 16],
    a: &'f [[u32; 32]],
    b: &'f [[u32; 32]],
    c: &'f [[u32; 32]],
    in_per_reg: usize,
    acc_per_reg: usize,
}

impl Operands<'_> {
    /// Runs the MMA, in the fastest copy the CPU allows ([`run_fused`]).
    fn run<T: Mac>(&self, widen_in: impl Fn(u32) -> T, widen_acc: impl Fn(u32) -> T, narrow: impl Fn(T) -> u32, d: &mut [[u32; 32]]) {
        run_fused(Chain { operands: self, widen_in, widen_acc, narrow, d });
    }

    /// Gathers the fragments into matrices of `T`, runs the chain and scatters D.
    #[inline(always)]
    fn run_inline<T: Mac>(&self, widen_in: impl Fn(u32) -> T, widen_acc: impl Fn(u32) -> T, narrow: impl Fn(T) -> u32, d: &mut [[u32; 32]]) {
        let mut work = Work::<T>::new();
        work.k_of = self.k_of;
        // A's columns are the chain's steps (for the sparse shape, its kept values).
        work.steps = layout::dims(self.shape, Operand::A).1;
        let (ta, tb, tc) = (table_of(self.shape, Operand::A), table_of(self.shape, Operand::B), table_of(self.shape, Operand::C));
        // Constant slot counts let the widening loops unroll and vectorise.
        match self.in_per_reg {
            1 => {
                gather::<T, 1, 16>(self.a, ta, &mut work.a, &widen_in);
                gather::<T, 1, 32>(self.b, tb, &mut work.b, &widen_in);
            }
            2 => {
                gather::<T, 2, 16>(self.a, ta, &mut work.a, &widen_in);
                gather::<T, 2, 32>(self.b, tb, &mut work.b, &widen_in);
            }
            4 => {
                gather::<T, 4, 16>(self.a, ta, &mut work.a, &widen_in);
                gather::<T, 4, 32>(self.b, tb, &mut work.b, &widen_in);
            }
            _ => {
                gather::<T, 8, 16>(self.a, ta, &mut work.a, &widen_in);
                gather::<T, 8, 32>(self.b, tb, &mut work.b, &widen_in);
            }
        }
        if self.acc_per_reg == 2 {
            gather::<T, 2, 16>(self.c, tc, &mut work.acc, &widen_acc);
            work.accumulate();
            scatter::<T, 2>(&work.acc, tc, d, &narrow);
        } else {
            gather::<T, 1, 16>(self.c, tc, &mut work.acc, &widen_acc);
            work.accumulate();
            scatter::<T, 1>(&work.acc, tc, d, &narrow);
        }
    }
}

/// Work whose `mul_add`s must be FMA instructions where the CPU has them:
/// without the `fma` target feature every `mul_add` is a libm call.
trait Fused {
    /// Does the work. Implementations are `#[inline(always)]`, so that each
    /// copy [`run_fused`] makes takes its caller's target features.
    fn run(self);
}

/// Runs `work` in a copy compiled with AVX2 and FMA when the CPU has them,
/// else in a portable copy; both round every step exactly once.
fn run_fused(work: impl Fused) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has the features the function is compiled for.
        unsafe { run_avx2_fma(work) };
        return;
    }
    work.run();
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn run_avx2_fma(work: impl Fused) {
    work.run();
}

/// A 16-column MMA with its element conversions.
struct Chain<'o, 'd, WidenIn, WidenAcc, Narrow> {
    operands: &'o Operands<'o>,
    widen_in: WidenIn,
    widen_acc: WidenAcc,
    narrow: Narrow,
    d: &'d mut [[u32; 32]],
}

impl<T: Mac, WidenIn: Fn(u32) -> T, WidenAcc: Fn(u32) -> T, Narrow: Fn(T) -> u32> Fused for Chain<'_, '_, WidenIn, WidenAcc, Narrow> {
    #[inline(always)]
    fn run(self) {
        self.operands.run_inline(self.widen_in, self.widen_acc, self.narrow, self.d);
    }
}

/// `MMA.M8N8K4.F64.F64`: one DFMA chain per output element, in increasing k.
struct F64Chain<'f> {
    a: &'f [[u32; 32]],
    b: &'f [[u32; 32]],
    c: &'f [[u32; 32]],
    d: &'f mut [[u32; 32]],
}

impl Fused for F64Chain<'_> {
    #[inline(always)]
    fn run(self) {
        // Element e of a lane is the register pair 2e (low word), 2e + 1.
        let pair = |frag: &[[u32; 32]], e: usize, lane: usize| f64::from_bits(u64::from(frag[2 * e][lane]) | u64::from(frag[2 * e + 1][lane]) << 32);
        let (ta, tb, tc) = (table_of(Shape::M8N8K4, Operand::A), table_of(Shape::M8N8K4, Operand::B), table_of(Shape::M8N8K4, Operand::C));
        let (mut a, mut b, mut acc) = ([[0f64; 4]; 8], [[0f64; 8]; 4], [[0f64; 8]; 8]);
        for (lane, ((a_slots, b_slots), c_slots)) in ta.iter().zip(tb).zip(tc).enumerate() {
            let at = usize::from(a_slots[0]);
            a[(at >> 4) & 7][at & 3] = pair(self.a, 0, lane);
            let at = usize::from(b_slots[0]);
            b[(at >> 4) & 3][at & 7] = pair(self.b, 0, lane);
            for (e, &at) in c_slots[..2].iter().enumerate() {
                let at = usize::from(at);
                acc[(at >> 4) & 7][at & 7] = pair(self.c, e, lane);
            }
        }
        for (row, a_row) in acc.iter_mut().zip(&a) {
            for (&av, b_row) in a_row.iter().zip(&b) {
                for (x, &bv) in row.iter_mut().zip(b_row) {
                    *x = av.mul_add(bv, *x);
                }
            }
        }
        for (lane, c_slots) in tc.iter().enumerate() {
            for (e, &at) in c_slots[..2].iter().enumerate() {
                let at = usize::from(at);
                let v = acc[(at >> 4) & 7][at & 7];
                let bits = if v.is_nan() { 0x7FFF_FFFF_FFFF_FFFF } else { v.to_bits() };
                self.d[2 * e][lane] = bits as u32;
                self.d[2 * e + 1][lane] = (bits >> 32) as u32;
            }
        }
    }
}

/// Widens every element of `frag` (`PER` values a register) into its place in
/// `matrix`. `ROWS` is a power of two, so the masked indices need no checks.
#[inline(always)]
fn gather<T: Mac, const PER: usize, const ROWS: usize>(frag: &[[u32; 32]], table: &layout::Table, matrix: &mut [[T; 16]; ROWS], widen: &impl Fn(u32) -> T) {
    let bits = 32 / PER;
    let mask = u32::MAX >> (32 - bits);
    for (g, reg) in frag.iter().enumerate() {
        // Widening in lane order vectorises; the placement that follows cannot.
        let mut widened = [[T::default(); PER]; 32];
        for (values, &word) in widened.iter_mut().zip(reg) {
            for (s, v) in values.iter_mut().enumerate() {
                *v = widen((word >> (bits * s)) & mask);
            }
        }
        for (values, slots) in widened.iter().zip(table) {
            for (s, &v) in values.iter().enumerate() {
                let at = usize::from(slots[(g * PER + s) & 15]);
                matrix[(at >> 4) & (ROWS - 1)][at & 15] = v;
            }
        }
    }
}

/// Narrows D from `acc` into the fragment `d`, `PER` values a register.
#[inline(always)]
fn scatter<T: Mac, const PER: usize>(acc: &[[T; 16]; 16], table: &layout::Table, d: &mut [[u32; 32]], narrow: &impl Fn(T) -> u32) {
    let bits = 32 / PER;
    for (g, reg) in d.iter_mut().enumerate() {
        let mut placed = [[T::default(); PER]; 32];
        for (values, slots) in placed.iter_mut().zip(table) {
            for (s, v) in values.iter_mut().enumerate() {
                let at = usize::from(slots[(g * PER + s) & 15]);
                *v = acc[(at >> 4) & 15][at & 15];
            }
        }
        for (word, values) in reg.iter_mut().zip(&placed) {
            *word = values.iter().enumerate().fold(0, |w, (s, &v)| w | narrow(v) << (bits * s));
        }
    }
}

/// The exact f32 value of an f16, as `half::f16::to_f32` gives it (NaNs keep
/// their payload unquieted, which no result can show). `half` decides per call
/// whether to use F16C, which made one MMA five times slower; this form is
/// branch-free and vectorises.
#[inline(always)]
fn f16_bits_to_f32(x: u32) -> f32 {
    let sign = (x & 0x8000) << 16;
    let magnitude = x & 0x7FFF;
    // Placing the f16 exponent and mantissa in an f32 and scaling by 2^(127 - 15)
    // rebiases normals and normalises subnormals, both exactly.
    let finite = (f32::from_bits(magnitude << 13) * f32::from_bits(0x7780_0000)).to_bits();
    let special = magnitude << 13 | 0x7F80_0000;
    f32::from_bits(sign | if magnitude >= 0x7C00 { special } else { finite })
}

/// Executes one warp-wide block-scaled MMA (`MMA.SCALED.<kind>.<a_type>.<b_type>`): `d = (a
/// sa) (b sb) + c`, each element of D one chain of exact scaled products ([`scaled_dot`]). The
/// fragments are as [`mma`] takes them, in the layout of `kind`'s shape (`MMA.M16N8K32`'s
/// E4M3, an element a byte whatever its type, or `M16N8K64` for E2M1 pairs: see
/// [`MmaScaledKind::container`]); `sa` and `sb` are the scale registers' 32 lanes, and `sel` the
/// selectors of [`ScaleSelectors`] that find each row's (column's) scale bytes in them.
///
/// # Errors
///
/// Types the kind does not take, selectors outside the scale words, or a fragment with the
/// wrong number of registers.
#[allow(clippy::too_many_arguments)] // the operands of the instruction, one argument each
pub fn scaled_mma(
    kind: MmaScaledKind,
    (a_type, b_type): (MmaIn, MmaIn),
    sel: u32,
    a: &[[u32; 32]],
    b: &[[u32; 32]],
    c: &[[u32; 32]],
    (sa, sb): (&[u32; 32], &[u32; 32]),
    d: &mut [[u32; 32]],
) -> Result<(), MmaError> {
    let form = MmaForm { shape: kind.shape(), acc: MmaAcc::F32, input: kind.container(), sat: false };
    // Named only for an error: this runs once per instruction executed.
    let name = || format!("MMA.SCALED.{kind}.{a_type}.{b_type}");
    if !kind.takes(a_type, b_type) {
        return Err(MmaError::instruction(format!("{} is not an instruction: see MMA.SCALED in docs/isa.md", name())));
    }
    let selectors = ScaleSelectors::check(sel, kind).map_err(MmaError::instruction)?;
    for (operand, len, role) in [("a", a.len(), FragRole::A), ("b", b.len(), FragRole::B), ("c", c.len(), FragRole::C), ("d", d.len(), FragRole::C)] {
        if len != usize::from(form.regs(role)) {
            return Err(MmaError::instruction(format!("operand {operand} has {len} registers; {} takes {}", name(), form.regs(role))));
        }
    }
    // Each element in a container of the kind's width: a byte (an E2M1 in its bits 5-2, a
    // 6-bit one in bits 5-0, which `decode` reads as the low bits), or a nibble.
    let bits = kind.container().bits();
    let element = |ty: MmaIn| match ty {
        MmaIn::E4M3 => (formats::MiniFloat::E4M3, 0),
        MmaIn::E5M2 => (formats::MiniFloat::E5M2, 0),
        MmaIn::E2M3 => (formats::MiniFloat::E2M3, 0),
        MmaIn::E3M2 => (formats::MiniFloat::E3M2, 0),
        _ => (formats::MiniFloat::E2M1, if bits == 8 { 2 } else { 0 }),
    };
    let (shape, k, block) = (form.shape, kind.k() as usize, kind.block() as usize);
    // A's rows and B's columns, K elements each, then times their scales.
    let (mut a_rows, mut b_columns) = ([[0f64; 64]; 16], [[0f64; 64]; 8]);
    let per_reg = (32 / bits) as usize;
    for (operand, fragment, (format, shift)) in [(Operand::A, a, element(a_type)), (Operand::B, b, element(b_type))] {
        for (r, reg) in fragment.iter().enumerate() {
            for (lane, &word) in reg.iter().enumerate() {
                for s in 0..per_reg {
                    let value = f64::from(format.decode(word >> (bits as usize * s + shift)));
                    match (operand, layout::coord(shape, operand, lane, r * per_reg + s)) {
                        (Operand::A, (row, kk)) => a_rows[row & 15][kk & 63] = value,
                        (_, (kk, column)) => b_columns[column & 7][kk & 63] = value,
                    }
                }
            }
        }
    }
    let apply = |values: &mut [f64; 64], word: u32, first_byte: u32| {
        let scales = block_scales(word >> (8 * first_byte), kind.e4m3_scales());
        for (kk, v) in values[..k].iter_mut().enumerate() {
            *v *= scales[kk / block];
        }
    };
    for (m, row) in a_rows.iter_mut().enumerate() {
        apply(row, sa[selectors.a_lane(m as u32)], selectors.a_byte);
    }
    for (n, column) in b_columns.iter_mut().enumerate() {
        apply(column, sb[selectors.b_lane(n as u32)], selectors.b_byte);
    }
    for (e, (out, acc)) in d.iter_mut().zip(c).enumerate() {
        for (lane, (word, &start)) in out.iter_mut().zip(acc).enumerate() {
            let (row, column) = layout::coord(shape, Operand::C, lane, e);
            *word = scaled_dot(f32::from_bits(start), &a_rows[row & 15][..k], &b_columns[column & 7][..k]);
        }
    }
    Ok(())
}

/// The scales of four K blocks, a byte of `word` each from the lowest ([`scale_value`]): a
/// row's (column's) scales decoded once, not once per element.
pub fn block_scales(word: u32, e4m3: bool) -> [f64; 4] {
    std::array::from_fn(|b| scale_value((word >> (8 * b)) & 0xFF, e4m3))
}

/// The value of a block scale's byte: E8M0 `2^(s - 127)` (0xFF is NaN), or with `e4m3` an E4M3
/// (PTX's UE4M3 has no sign; simt reads the byte as E4M3, sign included).
pub fn scale_value(byte: u32, e4m3: bool) -> f64 {
    match (e4m3, byte) {
        (true, _) => f64::from(formats::MiniFloat::E4M3.decode(byte)),
        (false, 0xFF) => f64::NAN,
        (false, _) => 2f64.powi(byte as i32 - 127),
    }
}

/// One element of a block-scaled MMA (`TCMMA.SCALED`, `MMA.SCALED`): `acc + a[k] b[k]`
/// for k = 0, 1, ... in order, each step rounded to f32 once, as an FMA rounds, and NaN the
/// canonical one. `a` and `b` are elements times their scales, so a product of two has at most
/// 16 significant bits and an exponent far inside f64's range: exact. Where the exact sum of
/// an f32 and such a product needs more than f64's 53 bits, the smaller term lies far below
/// half an f32 ulp of the larger, so f64's rounding cannot move the sum across an f32 rounding
/// boundary: `(acc + p) as f32` is the single rounding.
pub fn scaled_dot(acc: f32, a: &[f64], b: &[f64]) -> u32 {
    f32_to_bits(a.iter().zip(b).fold(acc, |acc, (&x, &y)| (f64::from(acc) + x * y) as f32))
}

/// f32 results follow the contract's canonical NaN.
fn f32_to_bits(v: f32) -> u32 {
    if v.is_nan() { 0x7FFF_FFFF } else { v.to_bits() }
}

/// The single rounding of an `.F16` accumulator, with the canonical f16 NaN.
fn f32_to_f16_bits(v: f32) -> u32 {
    if v.is_nan() { 0x7FFF } else { u32::from(f16::from_f32(v).to_bits()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unscaled, a block-scaled element rounds as the FMA chain of `MMA.M16N8K32` does: every
    /// pair of E4M3 codes, against a running sum that keeps changing scale.
    #[test]
    fn scaled_dot_of_unit_scales_is_the_fma_chain() {
        let values: Vec<f64> = (0..=255u32).filter(|&c| c & 0x7F != 0x7F).map(|c| f64::from(formats::MiniFloat::E4M3.decode(c))).collect();
        let b: Vec<f64> = values.iter().rev().copied().collect();
        for start in [0.0f32, 1.0e-3, -3.5, 1.0e6] {
            let chain = values.iter().zip(&b).fold(start, |acc, (&x, &y)| (x as f32).mul_add(y as f32, acc));
            assert_eq!(scaled_dot(start, &values, &b), chain.to_bits(), "from {start}");
        }
    }

    /// Scaled products past f32's range are exact: 6 x 2^127 times 2^-127 is 6, and a NaN scale
    /// gives the canonical NaN.
    #[test]
    fn scaled_products_may_leave_f32s_range_on_the_way() {
        let big = 6.0 * 2f64.powi(127);
        assert_eq!(f32::from_bits(scaled_dot(1.0, &[big], &[2f64.powi(-127)])), 7.0);
        assert_eq!(scaled_dot(0.0, &[big], &[big]), f32::INFINITY.to_bits());
        assert_eq!(scaled_dot(0.0, &[1.0, f64::NAN], &[1.0, 1.0]), 0x7FFF_FFFF);
    }

    #[test]
    fn f16_widening_is_exact_for_every_value() {
        for x in 0..=u16::MAX {
            let (ours, theirs) = (f16_bits_to_f32(u32::from(x)), f16::from_bits(x).to_f32());
            assert!(ours.to_bits() == theirs.to_bits() || (ours.is_nan() && theirs.is_nan()), "{x:#06x}: {ours} vs {theirs}");
        }
    }

    #[test]
    fn fma_and_portable_copies_agree_bit_for_bit() {
        let mut state = 1u32;
        let mut next = move || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            state
        };
        for _ in 0..20 {
            let frag =
                |regs: usize, next: &mut dyn FnMut() -> u32| -> Vec<[u32; 32]> { (0..regs).map(|_| std::array::from_fn(|_| next() & 0xBFFF_BFFF)).collect() };
            let (a, b, c) = (frag(4, &mut next), frag(8, &mut next), frag(8, &mut next));
            let e = [0x9C49; 32];
            let k_of = sparse_k_of(&e).unwrap();
            let operands = Operands { shape: Shape::SpM16N16K32, k_of, a: &a, b: &b, c: &c, in_per_reg: 2, acc_per_reg: 1 };
            let (mut fast, mut portable) = (vec![[0; 32]; 8], vec![[0; 32]; 8]);
            operands.run(f16_bits_to_f32, f32::from_bits, f32_to_bits, &mut fast);
            operands.run_inline(f16_bits_to_f32, f32::from_bits, f32_to_bits, &mut portable);
            assert_eq!(fast, portable);
            // The f64 chain: its products are not exact, so fusing matters in every step.
            let (a, b, c) = (frag(2, &mut next), frag(2, &mut next), frag(4, &mut next));
            let (mut fast, mut portable) = (vec![[0; 32]; 4], vec![[0; 32]; 4]);
            run_fused(F64Chain { a: &a, b: &b, c: &c, d: &mut fast });
            F64Chain { a: &a, b: &b, c: &c, d: &mut portable }.run();
            assert_eq!(fast, portable);
            let (a, b, c) = (frag(4, &mut next), frag(2, &mut next), frag(4, &mut next));
            for (input, sat) in [(MmaIn::S8, true), (MmaIn::U8, false), (MmaIn::E4M3, false), (MmaIn::E5M2, false)] {
                let (mut fast, mut portable) = (vec![[0; 32]; 4], vec![[0; 32]; 4]);
                run_fused(M16n8k32 { input, sat, a: &a, b: &b, c: &c, d: &mut fast });
                M16n8k32 { input, sat, a: &a, b: &b, c: &c, d: &mut portable }.run();
                assert_eq!(fast, portable, "{input}");
            }
        }
    }
}
