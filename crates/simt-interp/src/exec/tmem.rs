//! Tensor memory (PTX `tcgen05`, datacenter Blackwell): each block's 128 lanes by 512 columns
//! of 32-bit cells, allocated by columns; the loads and stores a warp makes of its quarter of
//! the lanes; and `TCMMA`, one whole MMA issued by one thread, accumulating in tensor memory.
//! Everything completes as it executes, so PTX's `tcgen05.wait` and `tcgen05.fence` have
//! nothing left to wait for (docs/tensor.md, "Tensor memory").

use simt_isa::*;
use simt_tensor::formats::MiniFloat;
use simt_tensor::layout::{self, Operand as Role};

use super::tensor::{Descriptor, Multiplicand};
use super::{Executor, fetch, lanes, pred, write};
use crate::decode::{Address, Decoder, PredIn, Reg, Val};
use crate::fault::{Fault, FaultKind};
use crate::sanitize::Sanitizer;

/// Rows of tensor memory (PTX's lanes).
pub const LANES: u32 = 128;
/// 32-bit columns of tensor memory.
pub const COLUMNS: u32 = 512;
/// Columns are allocated in units of 32.
const UNIT: u32 = 32;

/// A block's tensor memory and its allocations.
#[derive(Default)]
pub(crate) struct Tmem {
    /// `LANES * COLUMNS` cells, lane by lane, made when a block of the launch first allocates:
    /// a kernel that never does pays nothing.
    cells: Vec<u32>,
    /// The allocations in force: (first column, columns).
    allocations: Vec<(u32, u32)>,
    /// Whether the block gave up allocating (`TMEM.RELINQUISH`).
    relinquished: bool,
}

impl Tmem {
    /// The fresh state of a block: nothing allocated (an allocation clears its cells).
    pub(crate) fn reset(&mut self) {
        self.allocations.clear();
        self.relinquished = false;
    }

    /// The allocations and the cells, for a debugger.
    pub(crate) fn view(&self) -> (&[(u32, u32)], &[u32]) {
        (&self.allocations, &self.cells)
    }

    /// Whether nothing is allocated.
    pub(crate) fn is_free(&self) -> bool {
        self.allocations.is_empty()
    }

    /// Whether every column of `first .. first + count` is allocated.
    fn allocated(&self, first: u32, count: u32) -> bool {
        let end = first + count;
        count == 0
            || end <= COLUMNS && (first..end).step_by(UNIT as usize).chain([end - 1]).all(|c| self.allocations.iter().any(|&(s, n)| (s..s + n).contains(&c)))
    }

    fn cell(&mut self, lane: u32, column: u32) -> &mut u32 {
        &mut self.cells[(lane * COLUMNS + column) as usize]
    }

    /// The allocations, for messages: "columns 0-63, 128-159", or "none".
    fn describe(&self) -> String {
        if self.allocations.is_empty() {
            return "none".to_string();
        }
        let parts: Vec<String> = self.allocations.iter().map(|&(s, n)| format!("{s}-{}", s + n - 1)).collect();
        format!("columns {}", parts.join(", "))
    }
}

/// A tensor-memory instruction with its operands.
#[derive(Clone, Copy, Debug)]
pub(crate) enum TmemOp {
    Alloc { addr: Address, n: Val },
    Dealloc { a: Val, n: Val },
    Relinquish,
    Move(MoveOp),
    Mma(MmaOp),
}

/// `TMEM.LD` (`load`) into, or `TMEM.ST` from, the registers from `r` (`None`: a store of
/// `RZ`, zero to every cell), at TMEM address `t` (`16X32BX2`'s second half `split` on).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MoveOp {
    load: bool,
    shape: TmemShape,
    num: TmemNum,
    pack: bool,
    r: Option<Reg>,
    t: Address,
    split: u32,
}

/// A `TCMMA`: `d` is a TMEM address, `a` a descriptor pair or a TMEM address.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MmaOp {
    kind: MmaKind,
    d: Val,
    a: Source,
    b: Reg,
    i: Val,
    q: PredIn,
}

#[derive(Clone, Copy, Debug)]
enum MmaKind {
    Plain(TcKind),
    /// A block-scaled kind, its scales' TMEM addresses in the pair from the register.
    Scaled(TcScaledKind, Reg),
}

#[derive(Clone, Copy, Debug)]
enum Source {
    Shared(Reg),
    Tmem(Val),
}

/// The tensor-memory operation of `inst`, if it is one.
pub(crate) fn decode(t: &Decoder, inst: &Instruction) -> Option<TmemOp> {
    let o = &inst.operands;
    let split = |i: usize| match o.get(i) {
        Some(Operand::Imm(s)) => *s,
        _ => 0,
    };
    Some(match inst.form {
        Form::TmemAlloc(_) => TmemOp::Alloc { addr: t.narrow_addr(&o[0]), n: t.val(&o[1], false) },
        Form::TmemDealloc(_) => TmemOp::Dealloc { a: t.val(&o[0], false), n: t.val(&o[1], false) },
        Form::TmemRelinquish(_) => TmemOp::Relinquish,
        Form::TmemLd(mods::TmemLd { shape, num, pack }) => {
            TmemOp::Move(MoveOp { load: true, shape, num, pack: pack == TmemPack::Yes, r: Some(t.dst(&o[0])), t: t.narrow_addr(&o[1]), split: split(2) })
        }
        Form::TmemSt(mods::TmemSt { shape, num, pack }) => {
            // `RZ` (the zero row) as the source: zero to every cell.
            let r = if matches!(o[1], Operand::Src(Src::Reg { reg: RZ, .. })) { None } else { Some(t.first(&o[1])) };
            TmemOp::Move(MoveOp { load: false, shape, num, pack: pack == TmemPack::Yes, r, t: t.narrow_addr(&o[0]), split: split(2) })
        }
        Form::Tcmma(mods::Tcmma { kind }) | Form::TcmmaTs(mods::TcmmaTs { kind }) => {
            let a = if matches!(inst.form, Form::TcmmaTs(_)) { Source::Tmem(t.val(&o[1], false)) } else { Source::Shared(t.first(&o[1])) };
            let kind = MmaKind::Plain(kind);
            TmemOp::Mma(MmaOp { kind, d: t.val(&o[0], false), a, b: t.first(&o[2]), i: t.val(&o[3], false), q: Decoder::pred_in(&o[4]) })
        }
        Form::TcmmaMx(mods::TcmmaMx { kind }) => {
            let ab = t.first(&o[1]);
            TmemOp::Mma(MmaOp {
                kind: MmaKind::Scaled(kind, t.first(&o[3])),
                d: t.val(&o[0], false),
                a: Source::Shared(ab),
                b: ab + 2,
                i: t.val(&o[2], false),
                q: Decoder::pred_in(&o[4]),
            })
        }
        _ => return None,
    })
}

/// (lane, column) of register `j` of thread `t` of one access of `shape`, from the access's
/// base, before `PACK16` doubles the columns (PTX's "Matrix fragments for tcgen05.ld/st";
/// docs/tensor.md gives the table). `16X32BX2`'s threads 16-31 count from the second base.
fn cell_of(shape: TmemShape, t: u32, j: u32) -> (u32, u32) {
    match shape {
        TmemShape::L32x32b => (t, j),
        TmemShape::L16x64b => ((t >> 2) + 8 * (t & 1), 2 * j + ((t >> 1) & 1)),
        TmemShape::L16x128b => ((t >> 2) + 8 * (j & 1), 4 * (j >> 1) + (t & 3)),
        TmemShape::L16x256b => ((t >> 2) + 8 * ((j >> 1) & 1), 8 * (j >> 2) + 2 * (t & 3) + (j & 1)),
        TmemShape::L16x32bx2 => (t & 15, j),
    }
}

/// The lanes one access of `shape` reaches from its base, and the columns `num` repetitions do
/// (unpacked).
fn extent(shape: TmemShape, num: TmemNum) -> (u32, u32) {
    let lanes = if shape == TmemShape::L32x32b { 32 } else { 16 };
    (lanes, shape.columns_per_repetition() * num.count())
}

/// The lane of row `m` of an M-row matrix in tensor memory, from its base lane: M = 128 a row
/// a lane; M = 64 four blocks of 16 rows, one in each warp's quarter of the lanes (PTX's
/// data-path layouts D and F).
fn lane_of_row(m: u32, rows: u32) -> u32 {
    if rows == 64 { 32 * (m / 16) + m % 16 } else { m }
}

/// What an instruction descriptor (`TCMMA`'s `i`) says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shape {
    m: u32,
    n: u32,
    form: MmaForm,
    negate_a: bool,
    negate_b: bool,
    a_k_major: bool,
    b_k_major: bool,
}

/// Decodes instruction descriptor `i` of a `TCMMA` of `kind` (PTX's "Instruction descriptor"
/// for `.kind::f16`, `::tf32`, `::f8f6f4` and `::i8`): what is wrong, if it is.
fn instruction_descriptor(kind: TcKind, i: u32) -> Result<Shape, String> {
    let bits = |at: u32, width: u32| (i >> at) & ((1 << width) - 1);
    if bits(2, 1) != 0 {
        return Err("its bit 2 asks for a sparse MMA, which simt does not run".to_string());
    }
    if bits(30, 2) != 0 {
        return Err(format!("its bits 30-31 (B's maximum shift) are {}: they are for `.ws` MMAs, which simt does not run", bits(30, 2)));
    }
    if let Some(bit) = [6, 23, 29].into_iter().find(|&b| bits(b, 1) != 0) {
        return Err(format!("its bit {bit} is set, which PTX reserves"));
    }
    let (a_type, b_type, d_type) = (bits(7, 3), bits(10, 3), bits(4, 2));
    let input = match (kind, a_type) {
        (TcKind::F16, 0) => MmaIn::F16,
        (TcKind::F16, 1) => MmaIn::BF16,
        (TcKind::Tf32, 2) => MmaIn::TF32,
        (TcKind::F8f6f4, 0) => MmaIn::E4M3,
        (TcKind::F8f6f4, 1) => MmaIn::E5M2,
        (TcKind::I8, 0) => MmaIn::U8,
        (TcKind::I8, 1) => MmaIn::S8,
        (TcKind::F8f6f4, 3..=5) => {
            return Err(format!(
                "its A type (bits 7-9) is {a_type}, a 6- or 4-bit format (E2M3, E3M2, E2M1), which simt does not run: E4M3 (0) and E5M2 (1) it does"
            ));
        }
        _ => return Err(format!("its A type (bits 7-9) is {a_type}, which .{kind} does not take")),
    };
    if b_type != a_type {
        return Err(format!("its B type (bits 10-12) is {b_type} and its A type {a_type}: simt runs MMAs of one input type"));
    }
    let acc = match (d_type, input) {
        (1, MmaIn::F16 | MmaIn::BF16 | MmaIn::TF32 | MmaIn::E4M3 | MmaIn::E5M2) => MmaAcc::F32,
        (0, MmaIn::F16) => MmaAcc::F16,
        (2, MmaIn::U8 | MmaIn::S8) => MmaAcc::S32,
        _ => return Err(format!("its D type (bits 4-5) is {d_type}, which .{kind} with .{input} inputs does not take (F16 0, F32 1, S32 2)")),
    };
    let integer = kind == TcKind::I8;
    if bits(3, 1) != 0 && !integer {
        return Err("its bit 3 asks to saturate, which only .I8 MMAs do".to_string());
    }
    let (negate_a, negate_b) = (bits(13, 1) != 0, bits(14, 1) != 0);
    if integer && (negate_a || negate_b) {
        return Err("its bits 13-14 negate an operand, which .I8 MMAs cannot".to_string());
    }
    let (a_k_major, b_k_major) = (bits(15, 1) == 0, bits(16, 1) == 0);
    if kind == TcKind::Tf32 && !(a_k_major && b_k_major) {
        return Err("it transposes a TF32 operand, which needs the 128-byte swizzle with 32-byte atoms that simt does not model".to_string());
    }
    let (m, n) = (bits(24, 5) << 4, bits(17, 6) << 3);
    if m != 64 && m != 128 {
        return Err(format!("its M (bits 24-28, M / 16) is {m}: a one-block MMA has M = 64 or 128"));
    }
    if n == 0 {
        return Err("its N (bits 17-22, N / 8) is 0".to_string());
    }
    let form = MmaForm { shape: kind.slice(), acc, input, sat: bits(3, 1) != 0 };
    Ok(Shape { m, n, form, negate_a, negate_b, a_k_major, b_k_major })
}

/// What a block-scaled `TCMMA`'s instruction descriptor says; M is 128.
#[derive(Clone, Copy, Debug, PartialEq)]
struct ScaledShape {
    n: u32,
    /// A's and B's element formats.
    types: [MiniFloat; 2],
    /// Whether A's (B's) E2M1 elements are padded to 8-bit ones' places (`MXF8F6F4`).
    padded: [bool; 2],
    negate: [bool; 2],
    k_major: [bool; 2],
    /// The scales are (unsigned) E4M3, not E8M0.
    e4m3_scales: bool,
    /// The byte of each scale cell A's and B's first K block takes.
    ids: [u32; 2],
}

/// Decodes instruction descriptor `i` of a block-scaled `TCMMA` of `kind` (PTX's "Instruction
/// descriptor" for `.kind::mxf8f6f4`, `::mxf4` and `::mxf4nvf4`; CUTLASS's
/// `InstrDescriptorBlockScaled`): what is wrong, if it is.
fn scaled_instruction_descriptor(kind: TcScaledKind, i: u32) -> Result<ScaledShape, String> {
    let bits = |at: u32, width: u32| (i >> at) & ((1 << width) - 1);
    let fp4 = kind != TcScaledKind::Mxf8f6f4;
    if bits(2, 1) != 0 {
        return Err("its bit 2 asks for a sparse MMA, which simt does not run".to_string());
    }
    if fp4 && bits(31, 1) != 0 {
        return Err("its bit 31 asks for K = 96, which simt does not run".to_string());
    }
    if let Some(bit) = [3, 6, 24, 25, 26, 31].into_iter().find(|&b| bits(b, 1) != 0) {
        return Err(format!("its bit {bit} is set, which PTX reserves"));
    }
    if bits(27, 2) != 1 {
        return Err(format!("its M (bits 27-28, M / 128) is {}: a one-block block-scaled MMA has M = 128", bits(27, 2)));
    }
    let format = |field: u32, name: &str| match (fp4, bits(field, 3)) {
        (false, 0) => Ok(MiniFloat::E4M3),
        (false, 1) => Ok(MiniFloat::E5M2),
        (false, 5) => Ok(MiniFloat::E2M1),
        (false, code @ 3..=4) => Err(format!(
            "its {name} type (bits {field}-{}) is {code}, a 6-bit format (E2M3, E3M2), which simt does not run: E4M3 (0), E5M2 (1) and E2M1 (5) it does",
            field + 2
        )),
        (true, 1) => Ok(MiniFloat::E2M1),
        (_, code) => Err(format!("its {name} type (bits {field}-{}) is {code}, which .{kind} does not take", field + 2)),
    };
    let types = [format(7, "A")?, format(10, "B")?];
    let e4m3_scales = bits(23, 1) == 0;
    if e4m3_scales && kind != TcScaledKind::Mxf4nvf4 {
        return Err(format!("its bit 23 (the scale type) is 0, UE4M3, which .{kind} does not take: its scales are UE8M0 (1)"));
    }
    let k_major = [bits(15, 1) == 0, bits(16, 1) == 0];
    if (0..2).any(|x| types[x] == MiniFloat::E2M1 && !k_major[x]) {
        return Err(format!("its bits 15-16 transpose an E2M1 operand, which simt does not run: .{kind}'s E2M1 elements lie along K"));
    }
    let padded = types.map(|t| !fp4 && t == MiniFloat::E2M1);
    let n = bits(17, 6) << 3;
    if !(8..=256).contains(&n) {
        return Err(format!("its N (bits 17-22, N / 8) is {n}: an MMA has N = 8 to 256"));
    }
    let ids = [bits(29, 2), bits(4, 2)];
    let per_cell = kind.k() / kind.block();
    if let Some((name, id)) = ["A", "B"].into_iter().zip(ids).find(|&(_, id)| id % per_cell != 0) {
        let field = if name == "A" { "29-30" } else { "4-5" };
        let firsts: Vec<String> = (0..4).step_by(per_cell as usize).map(|b| b.to_string()).collect();
        return Err(format!(
            "its {name} scale-factor id (bits {field}) is {id}: a .{kind} MMA takes {per_cell} scale bytes of a cell, from byte {}",
            firsts.join(" or ")
        ));
    }
    Ok(ScaledShape { n, types, padded, negate: [bits(13, 1) != 0, bits(14, 1) != 0], k_major, e4m3_scales, ids })
}

/// The TMEM cell holding the scales of row `index` (of A, or column of B) from a scale matrix
/// at `(lane, column)`: 32 lanes, each cell's four bytes four K blocks, rows 32 apart a column on.
fn scale_cell(lane: u32, column: u32, index: u32) -> (u32, u32) {
    (lane + index % 32, column + index / 32)
}

/// The cells of a `rows` x `columns` matrix of lane `l`'s `TCMMA` at TMEM `(lane, column)`, for the
/// sanitizers.
fn matrix_cells(l: usize, (lane, column): (u32, u32), rows: u32, columns: u32) -> impl Iterator<Item = (u8, u32)> + Clone {
    (0..rows).flat_map(move |m| (0..columns).map(move |c| (l as u8, (lane + lane_of_row(m, rows)) * COLUMNS + column + c)))
}

/// The bits of one fragment register whose elements' signs a negation flips.
fn sign_bits(input: MmaIn) -> u32 {
    match input.bits() {
        32 => 0x8000_0000,
        16 => 0x8000_8000,
        _ => 0x8080_8080,
    }
}

impl Executor<'_> {
    /// Runs a tensor-memory instruction for the lanes in `exec`.
    pub(crate) fn tmem(&mut self, w: usize, pc: u32, op: TmemOp, mask: u32, exec: u32, mut sanitizer: Option<&mut Sanitizer>) -> Result<(), Fault> {
        if let TmemOp::Mma(op) = op {
            self.tcmma_work = (0, 0);
            for l in lanes(exec) {
                match op.kind {
                    MmaKind::Plain(kind) => self.tcmma(w, pc, l, op, kind, sanitizer.as_deref_mut())?,
                    MmaKind::Scaled(kind, scales) => self.tcmma_scaled(w, pc, l, op, kind, scales, sanitizer.as_deref_mut())?,
                }
            }
            return Ok(());
        }
        // The rest are warp-collective: every lane, the same operands (or a warp whose guard
        // is false throughout, which takes no part).
        if exec == 0 {
            return Ok(());
        }
        if exec != u32::MAX {
            return Err(self.incomplete_warp(w, pc, mask, !exec, "all 32 lanes of the warp"));
        }
        self.warps[w].progress_at = self.warps[w].issued;
        match op {
            TmemOp::Alloc { addr, n } => {
                let at = self.uniform(w, pc, self.address_row(w, addr), "address")?;
                let n = self.uniform(w, pc, fetch(&self.warps[w], n), "column count")?;
                self.allocate(w, pc, at, n, sanitizer)
            }
            TmemOp::Dealloc { a, n } => {
                let a = self.uniform(w, pc, fetch(&self.warps[w], a), "TMEM address")?;
                let n = self.uniform(w, pc, fetch(&self.warps[w], n), "column count")?;
                let Some(k) = self.tmem.allocations.iter().position(|&x| a >> 16 == 0 && x == (a & 0xFFFF, n)) else {
                    let message = format!(
                        "TMEM.DEALLOC frees {n} columns at TMEM address {a:#x}, which no TMEM.ALLOC gave: the block has {} allocated",
                        self.tmem.describe()
                    );
                    return Err(self.fault(FaultKind::Tensor, w, None, Some(pc), message));
                };
                self.tmem.allocations.swap_remove(k);
                Ok(())
            }
            TmemOp::Relinquish => {
                self.tmem.relinquished = true;
                Ok(())
            }
            TmemOp::Move(op) => self.tmem_move(w, pc, op, sanitizer),
            TmemOp::Mma(_) => unreachable!("handled above"),
        }
    }

    /// The fault of the block's last thread exiting with tensor memory allocated, which PTX
    /// forbids: a kernel frees all it allocates.
    pub(crate) fn tmem_leak(&self, w: usize, pc: u32) -> Fault {
        let message = format!(
            "the block's last thread exits with {} of tensor memory still allocated: free them with TMEM.DEALLOC (PTX `tcgen05.dealloc`) before the block ends",
            self.tmem.describe()
        );
        self.fault(FaultKind::Tensor, w, None, Some(pc), message)
    }

    /// Each lane's `[base + offset]`.
    fn address_row(&self, w: usize, addr: Address) -> [u32; 32] {
        let base = self.warps[w].row(addr.base);
        std::array::from_fn(|l| base[l].wrapping_add(addr.offset))
    }

    /// The value every lane of a collective gives, or a fault naming the first that differs.
    fn uniform(&self, w: usize, pc: u32, values: [u32; 32], what: &str) -> Result<u32, Fault> {
        match (1..32).find(|&l| values[l] != values[0]) {
            None => Ok(values[0]),
            Some(l) => Err(self.fault(
                FaultKind::Tensor,
                w,
                Some(l),
                Some(pc),
                format!("{}'s {what} differs between lanes 0 and {l} ({:#x} and {:#x}): the warp gives one", self.mnemonic(pc), values[0], values[l]),
            )),
        }
    }

    /// `TMEM.ALLOC` of `n` columns, their address stored at SHARED `at`.
    fn allocate(&mut self, w: usize, pc: u32, at: u32, n: u32, sanitizer: Option<&mut Sanitizer>) -> Result<(), Fault> {
        let fault = |ex: &Self, message: String| ex.fault(FaultKind::Tensor, w, None, Some(pc), message);
        if !(UNIT..=COLUMNS).contains(&n) || !n.is_power_of_two() {
            return Err(fault(self, format!("TMEM.ALLOC of {n} columns: a block allocates 32, 64, 128, 256 or 512")));
        }
        if self.tmem.relinquished {
            return Err(fault(self, "TMEM.ALLOC after TMEM.RELINQUISH: the block gave up allocating".to_string()));
        }
        if !at.is_multiple_of(4) || at as usize + 4 > 4 * self.shared.len() {
            let message = format!(
                "TMEM.ALLOC stores its address at SHARED address {at:#x}, which is not a word of the block's {} bytes of shared memory",
                4 * self.shared.len()
            );
            return Err(fault(self, message));
        }
        let free = |tmem: &Tmem, first: u32| tmem.allocations.iter().all(|&(s, m)| first + n <= s || s + m <= first);
        let Some(first) = (0..COLUMNS).step_by(n as usize).find(|&c| free(&self.tmem, c)) else {
            let message = format!(
                "TMEM.ALLOC finds no {n} free columns at a multiple of {n} ({} of the block's 512 are allocated): on hardware it waits for a TMEM.DEALLOC, which no thread of this block makes first",
                self.tmem.describe()
            );
            return Err(fault(self, message));
        };
        if self.tmem.cells.is_empty() {
            self.tmem.cells = vec![0; (LANES * COLUMNS) as usize];
        }
        // PTX leaves a fresh allocation's cells unspecified; simt's read 0 whatever was there.
        for lane in self.tmem.cells.chunks_exact_mut(COLUMNS as usize) {
            lane[first as usize..(first + n) as usize].fill(0);
        }
        self.tmem.allocations.push((first, n));
        self.shared[at as usize / 4] = first;
        if let Some(s) = sanitizer {
            s.tensor_copy(self, w, 0, pc, at as usize, 4, true);
            s.tmem_allocated(first, n);
        }
        Ok(())
    }

    /// The TMEM address of a collective access and where its second half starts (`16X32BX2`),
    /// checked: the warp reaches only its quarter of the lanes, and only allocated columns.
    fn tmem_bases(&self, w: usize, pc: u32, op: MoveOp) -> Result<[(u32, u32); 2], Fault> {
        let address = self.uniform(w, pc, self.address_row(w, op.t), "TMEM address")?;
        let second = if op.shape == TmemShape::L16x32bx2 { address.wrapping_add(op.split) } else { address };
        let (lanes_reached, columns) = extent(op.shape, op.num);
        let columns = columns << u32::from(op.pack);
        let quarter = 32 * (w as u32 % 4);
        for a in [address, second] {
            let (lane, column) = (a >> 16, a & 0xFFFF);
            if lane < quarter || lane + lanes_reached > quarter + 32 {
                let message = format!(
                    "{} reaches TMEM lanes {lane}-{} from address {a:#x}, but warp {w} (warp {} of its warpgroup) reaches only lanes {quarter}-{}",
                    self.mnemonic(pc),
                    lane + lanes_reached - 1,
                    w % 4,
                    quarter + 31
                );
                return Err(self.fault(FaultKind::Tensor, w, None, Some(pc), message));
            }
            if !self.tmem.allocated(column, columns) {
                return Err(self.unallocated(w, pc, None, column, columns));
            }
        }
        Ok([(address >> 16, address & 0xFFFF), (second >> 16, second & 0xFFFF)])
    }

    fn unallocated(&self, w: usize, pc: u32, lane: Option<usize>, column: u32, columns: u32) -> Fault {
        let message = format!(
            "{} reaches TMEM columns {column}-{}, which are not all allocated (the block has {})",
            self.mnemonic(pc),
            column + columns - 1,
            self.tmem.describe()
        );
        self.fault(FaultKind::Tensor, w, lane, Some(pc), message)
    }

    /// `TMEM.LD` or `TMEM.ST` of the registers from `r`.
    fn tmem_move(&mut self, w: usize, pc: u32, op: MoveOp, sanitizer: Option<&mut Sanitizer>) -> Result<(), Fault> {
        let bases = self.tmem_bases(w, pc, op)?;
        let MoveOp { load, shape, num, pack, r, .. } = op;
        let registers = shape.registers(num);
        let spread = 1 + u32::from(pack);
        // Each lane's cells, for the sanitizers (none without them: nothing is kept).
        let mut cells = sanitizer.as_ref().map(|_| Vec::new());
        for j in 0..registers {
            let reg = r.map(|r| r + j as Reg);
            let mut row = match reg {
                Some(reg) if !load => *self.warps[w].row(reg),
                _ => [0u32; 32],
            };
            for (t, word) in row.iter_mut().enumerate() {
                let (base_lane, base_column) = bases[usize::from(shape == TmemShape::L16x32bx2 && t >= 16)];
                let (lane, column) = cell_of(shape, t as u32, j);
                let (lane, column) = (base_lane + lane, base_column + spread * column);
                if let Some(cells) = cells.as_mut() {
                    cells.extend((column..column + spread).map(|c| (t as u8, lane * COLUMNS + c)));
                }
                match (load, pack) {
                    (true, false) => *word = *self.tmem.cell(lane, column),
                    (true, true) => *word = (*self.tmem.cell(lane, column) & 0xFFFF) | *self.tmem.cell(lane, column + 1) << 16,
                    (false, false) => *self.tmem.cell(lane, column) = *word,
                    (false, true) => {
                        *self.tmem.cell(lane, column) = *word & 0xFFFF;
                        *self.tmem.cell(lane, column + 1) = *word >> 16;
                    }
                }
            }
            if let Some(reg) = reg.filter(|_| load) {
                write(&mut self.warps[w], reg, &row, u32::MAX);
            }
        }
        if let (Some(s), Some(cells)) = (sanitizer, cells) {
            s.tmem_accesses(self, w, pc, &cells, !load);
        }
        Ok(())
    }

    /// What lane `l`'s `TCMMA` reads besides its descriptors: its instruction descriptor, whether
    /// it accumulates, and D's TMEM address; the warp counts as making progress.
    fn tcmma_lane(&mut self, w: usize, l: usize, op: MmaOp) -> (u32, bool, u32) {
        self.warps[w].progress_at = self.warps[w].issued;
        let warp = &self.warps[w];
        (fetch(warp, op.i)[l], pred(warp, op.q) >> l & 1 != 0, fetch(warp, op.d)[l])
    }

    /// Lane `l`'s 64-bit value in the pair of registers from `r` (a descriptor, or two addresses).
    fn lane_pair(&self, w: usize, l: usize, r: Reg) -> u64 {
        let warp = &self.warps[w];
        u64::from(warp.row(r)[l]) | u64::from(warp.row(r + 1)[l]) << 32
    }

    /// The TMEM (lane, column) of an M-row matrix of `columns` columns at `address`, checked:
    /// it starts at lane 0 (M = 64: or 16, its rows' blocks of 16 taking lanes 32 apart) and
    /// its columns are allocated.
    #[allow(clippy::too_many_arguments)] // where the matrix is, and whose instruction names it
    fn tmem_matrix(&self, w: usize, pc: u32, l: usize, address: u32, rows: u32, columns: u32, name: &str) -> Result<(u32, u32), Fault> {
        let (lane, column) = (address >> 16, address & 0xFFFF);
        if !(lane == 0 || rows == 64 && lane == 16) {
            let allowed = if rows == 128 { "0" } else { "0 or 16" };
            let message = format!("TCMMA's {name} is at TMEM lane {lane}: an M = {rows} matrix starts at lane {allowed}");
            return Err(self.fault(FaultKind::Tensor, w, Some(l), Some(pc), message));
        }
        if !self.tmem.allocated(column, columns) {
            return Err(self.unallocated(w, pc, Some(l), column, columns));
        }
        Ok((lane, column))
    }

    /// Lane `l`'s `TCMMA` of `kind`: one whole MMA.
    fn tcmma(&mut self, w: usize, pc: u32, l: usize, op: MmaOp, kind: TcKind, sanitizer: Option<&mut Sanitizer>) -> Result<(), Fault> {
        let (i, accumulate, d) = self.tcmma_lane(w, l, op);
        let pair = |r: Reg| self.lane_pair(w, l, r);
        let fault = |ex: &Self, message: String| ex.fault(FaultKind::Tensor, w, Some(l), Some(pc), message);
        let shape = instruction_descriptor(kind, i).map_err(|why| fault(self, format!("TCMMA's instruction descriptor {i:#010x}: {why}")))?;
        let form = shape.form;
        let bits = form.input.bits();
        let multiplicand = |value: u64, k_major: bool, name: &'static str| -> Result<Multiplicand, Fault> {
            let descriptor = Descriptor::tcgen05(value).map_err(|why| fault(self, format!("TCMMA's {name} descriptor {value:#018x}: {why}")))?;
            Ok(Multiplicand { descriptor, bits, padded: false, k_major, name })
        };
        let b = multiplicand(pair(op.b), shape.b_k_major, "B")?;
        let a = match op.a {
            Source::Shared(r) => Some(multiplicand(pair(r), shape.a_k_major, "A")?),
            Source::Tmem(_) => None,
        };
        let (d_lane, d_column) = self.tmem_matrix(w, pc, l, d, shape.m, shape.n, "D")?;
        let slice = form.shape;
        let k = kind.k();
        let rows_read = shape.n + if a.is_some() { shape.m } else { 0 };
        self.tcmma_work.0 += u64::from(shape.m * shape.n * k);
        self.tcmma_work.1 += u64::from(rows_read * k * bits / 8);
        let (a_regs, b_regs, c_regs) = (usize::from(form.regs(FragRole::A)), usize::from(form.regs(FragRole::B)), usize::from(form.regs(FragRole::C)));
        let mut reads = sanitizer.as_ref().map(|_| Vec::new());
        // Every 16-row block of A, gathered before D is written (A may be in tensor memory too).
        let blocks = (shape.m / 16) as usize;
        let mut a_fragments = [[[0u32; 32]; 4]; 8];
        // A's first lane and column and its columns, where it is in tensor memory.
        let mut a_tmem = None;
        match (a, op.a) {
            (Some(a), _) => {
                for (r, fragment) in a_fragments[..blocks].iter_mut().enumerate() {
                    let first_row = 16 * r as u32;
                    self.gather(w, pc, &a, slice, Role::A, &mut fragment[..a_regs], |row, k| (first_row + row, k), reads.as_mut())?;
                }
            }
            (None, Source::Tmem(address)) => {
                let address = fetch(&self.warps[w], address)[l];
                let columns = (k * bits).div_ceil(32);
                let (a_lane, a_column) = self.tmem_matrix(w, pc, l, address, shape.m, columns, "A")?;
                a_tmem = Some((a_lane, a_column, columns));
                let per_reg = (32 / bits) as usize;
                let mask = u32::MAX >> (32 - bits);
                for (r, fragment) in a_fragments[..blocks].iter_mut().enumerate() {
                    for (g, register) in fragment[..a_regs].iter_mut().enumerate() {
                        for (lane, value) in register.iter_mut().enumerate() {
                            for slot in 0..per_reg {
                                let (row, k) = layout::coord(slice, Role::A, lane, g * per_reg + slot);
                                let bit = k as u32 * bits;
                                let cell =
                                    self.tmem.cells[((a_lane + lane_of_row(16 * r as u32 + row as u32, shape.m)) * COLUMNS + a_column + bit / 32) as usize];
                                *value |= ((cell >> (bit % 32)) & mask) << (slot as u32 * bits);
                            }
                        }
                    }
                }
            }
            (None, Source::Shared(_)) => unreachable!("a shared A has its descriptor"),
        }
        if shape.negate_a {
            a_fragments.iter_mut().flatten().flatten().for_each(|x| *x ^= sign_bits(form.input));
        }
        let c_per_reg = 32 / form.acc.bits() as usize;
        let c_mask = u32::MAX >> (32 - form.acc.bits());
        let opcode = slice.opcode();
        for j in 0..shape.n / 8 {
            let mut b_fragment = [[0u32; 32]; 2];
            self.gather(w, pc, &b, slice, Role::B, &mut b_fragment[..b_regs], |k, column| (8 * j + column, k), reads.as_mut())?;
            if shape.negate_b {
                b_fragment.iter_mut().flatten().for_each(|x| *x ^= sign_bits(form.input));
            }
            for (r, a_fragment) in a_fragments[..blocks].iter().enumerate() {
                // The cell of element e of `lane`'s C fragment.
                let cell = |lane: usize, e: usize| -> usize {
                    let (row, column) = layout::coord(slice, Role::C, lane, e);
                    let (m, n) = ((16 * r + row) as u32, 8 * j + column as u32);
                    ((d_lane + lane_of_row(m, shape.m)) * COLUMNS + d_column + n) as usize
                };
                let mut c = [[0u32; 32]; 4];
                if accumulate {
                    for (g, register) in c[..c_regs].iter_mut().enumerate() {
                        for (lane, value) in register.iter_mut().enumerate() {
                            for slot in 0..c_per_reg {
                                *value |= (self.tmem.cells[cell(lane, g * c_per_reg + slot)] & c_mask) << (slot as u32 * form.acc.bits());
                            }
                        }
                    }
                }
                let mut result = [[0u32; 32]; 4];
                if let Err(err) = simt_tensor::mma(
                    opcode,
                    form.acc,
                    form.input,
                    form.sat,
                    &a_fragment[..a_regs],
                    &b_fragment[..b_regs],
                    &c[..c_regs],
                    None,
                    &mut result[..c_regs],
                ) {
                    return Err(fault(self, format!("TCMMA: {}", err.message)));
                }
                for (g, register) in result[..c_regs].iter().enumerate() {
                    for (lane, value) in register.iter().enumerate() {
                        for slot in 0..c_per_reg {
                            self.tmem.cells[cell(lane, g * c_per_reg + slot)] = (value >> (slot as u32 * form.acc.bits())) & c_mask;
                        }
                    }
                }
            }
        }
        if let (Some(s), Some(mut reads)) = (sanitizer, reads) {
            // One thread read and wrote them all.
            reads.iter_mut().for_each(|(lane, _)| *lane = l as u8);
            s.tensor_reads(self, w, pc, &reads, bits / 8);
            let mut read: Vec<(u8, u32)> =
                a_tmem.map(|(lane, column, columns)| matrix_cells(l, (lane, column), shape.m, columns).collect()).unwrap_or_default();
            let d_cells = matrix_cells(l, (d_lane, d_column), shape.m, shape.n);
            if accumulate {
                read.extend(d_cells.clone());
            }
            s.tmem_accesses(self, w, pc, &read, false);
            s.tmem_accesses(self, w, pc, &d_cells.collect::<Vec<_>>(), true);
        }
        Ok(())
    }

    /// Lane `l`'s block-scaled `TCMMA` of `kind`, its scales' TMEM addresses in the pair from
    /// `scales`: each element of D one chain of A's and B's scaled elements' exact products
    /// (`simt_tensor::scaled_dot`).
    #[allow(clippy::too_many_arguments)] // the instruction, its lane, and what it is
    fn tcmma_scaled(
        &mut self,
        w: usize,
        pc: u32,
        l: usize,
        op: MmaOp,
        kind: TcScaledKind,
        scales: Reg,
        sanitizer: Option<&mut Sanitizer>,
    ) -> Result<(), Fault> {
        let (i, accumulate, d) = self.tcmma_lane(w, l, op);
        let Source::Shared(a) = op.a else { unreachable!("a block-scaled TCMMA's A is in SHARED memory") };
        let descriptors = [self.lane_pair(w, l, a), self.lane_pair(w, l, op.b)];
        let scale_addresses = self.lane_pair(w, l, scales);
        let scale_addresses = [scale_addresses as u32, (scale_addresses >> 32) as u32];
        let fault = |ex: &Self, message: String| ex.fault(FaultKind::Tensor, w, Some(l), Some(pc), message);
        let shape = scaled_instruction_descriptor(kind, i).map_err(|why| fault(self, format!("TCMMA's instruction descriptor {i:#010x}: {why}")))?;
        let (m, n, k, block) = (128, shape.n, kind.k(), kind.block());
        let (d_lane, d_column) = self.tmem_matrix(w, pc, l, d, m, n, "D")?;
        let mut reads = sanitizer.as_ref().map(|_| Vec::new());
        let mut scale_cells = sanitizer.as_ref().map(|_| Vec::new());
        // A's rows and B's columns, K elements each, times their scales.
        let mut values: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        for (x, (name, count)) in [("A", m), ("B", n)].into_iter().enumerate() {
            let descriptor =
                Descriptor::tcgen05(descriptors[x]).map_err(|why| fault(self, format!("TCMMA's {name} descriptor {:#018x}: {why}", descriptors[x])))?;
            let matrix = Multiplicand { descriptor, bits: shape.types[x].bits(), padded: shape.padded[x], k_major: shape.k_major[x], name };
            let address = scale_addresses[x];
            let (lane, column) = (address >> 16, address & 0xFFFF);
            let columns = count.div_ceil(32);
            if lane != 0 || !self.tmem.allocated(column, columns) {
                return Err(fault(self, format!("TCMMA's scales of {name} at TMEM address {address:#x} are not lanes 0-31 of {columns} allocated columns")));
            }
            let mut scaled = Vec::with_capacity((count * k) as usize);
            for index in 0..count {
                let (scale_lane, scale_column) = scale_cell(lane, column, index);
                let cell = scale_lane * COLUMNS + scale_column;
                if let Some(cells) = scale_cells.as_mut() {
                    cells.push((l as u8, cell));
                }
                // This row's (column's) scale of each K block: bytes from its scale-factor id on.
                let block_scales = simt_tensor::block_scales(self.tmem.cells[cell as usize] >> (8 * shape.ids[x]), shape.e4m3_scales);
                for kk in 0..k {
                    let scale = block_scales[(kk / block) as usize];
                    let (code, address) = self.element(w, pc, &matrix, index, kk)?;
                    if let Some(reads) = reads.as_mut()
                        && (matrix.bits == 8 || kk % 2 == 0)
                    {
                        reads.push((l as u8, address));
                    }
                    let value = f64::from(shape.types[x].decode(code));
                    scaled.push(if shape.negate[x] { -value } else { value } * scale);
                }
            }
            values[x] = scaled;
        }
        self.tcmma_work.0 += u64::from(m * n * k);
        // A padded E2M1 element takes a byte's place.
        let stored_bits = |x: usize| if shape.padded[x] { 8 } else { shape.types[x].bits() };
        self.tcmma_work.1 += u64::from((m * stored_bits(0) + n * stored_bits(1)) * k / 8);
        let [a_values, b_values] = &values;
        for (row, a_row) in a_values.chunks_exact(k as usize).enumerate() {
            let lane = d_lane + lane_of_row(row as u32, m);
            for (column, b_column) in b_values.chunks_exact(k as usize).enumerate() {
                let cell = &mut self.tmem.cells[(lane * COLUMNS + d_column + column as u32) as usize];
                let acc = if accumulate { f32::from_bits(*cell) } else { 0.0 };
                *cell = simt_tensor::scaled_dot(acc, a_row, b_column);
            }
        }
        if let (Some(s), Some(reads), Some(mut scale_cells)) = (sanitizer, reads, scale_cells) {
            s.tensor_reads(self, w, pc, &reads, 1);
            let d_cells = matrix_cells(l, (d_lane, d_column), m, n);
            if accumulate {
                scale_cells.extend(d_cells.clone());
            }
            s.tmem_accesses(self, w, pc, &scale_cells, false);
            s.tmem_accesses(self, w, pc, &d_cells.collect::<Vec<_>>(), true);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every register of every shape lands on a cell of its own, inside the access's extent:
    /// the maps are one-to-one, as a warp's registers and its cells are.
    #[test]
    fn each_shape_maps_registers_one_to_one_onto_its_cells() {
        for &shape in TmemShape::ALL {
            for &num in TmemNum::ALL.iter().filter(|&&n| shape.registers(n) <= TmemShape::MAX_REGISTERS) {
                let (lanes_reached, columns) = extent(shape, num);
                let mut seen = std::collections::HashSet::new();
                for t in 0..32 {
                    for j in 0..shape.registers(num) {
                        let (lane, column) = cell_of(shape, t, j);
                        let half = u32::from(shape == TmemShape::L16x32bx2 && t >= 16);
                        assert!(lane < lanes_reached && column < columns, "{shape}.{num}: thread {t} register {j} at ({lane}, {column})");
                        assert!(seen.insert((half, lane, column)), "{shape}.{num}: thread {t} register {j} shares ({lane}, {column})");
                    }
                }
                let halves = if shape == TmemShape::L16x32bx2 { 2 } else { 1 };
                assert_eq!(seen.len() as u32, halves * lanes_reached * columns, "{shape}.{num} covers its extent");
            }
        }
    }

    #[test]
    fn triton_instruction_descriptor_is_m64_n64_f16_into_f32() {
        let shape = instruction_descriptor(TcKind::F16, 0x0411_0010).unwrap();
        assert_eq!((shape.m, shape.n, shape.form.acc, shape.form.input), (64, 64, MmaAcc::F32, MmaIn::F16));
        assert!(shape.a_k_major && !shape.b_k_major && !shape.negate_a && !shape.negate_b);
        let fp8 = instruction_descriptor(TcKind::F8f6f4, 0x0411_0010).unwrap();
        assert_eq!((fp8.form.shape, fp8.form.input), (MmaShape::M16N8K32, MmaIn::E4M3));
    }

    /// The descriptors of Triton's `tl.dot_scaled` for sm_100a (128 x 128, K = 128): e4m3 in
    /// four MMAs, B N-major, the scales' byte k for the k-th; E2M1 pairs (mxfp4) in two, bytes
    /// 0-1 and 2-3; nvfp4 in two of one descriptor, UE4M3 scales a whole cell each.
    #[test]
    fn tritons_block_scaled_descriptors_pick_their_scale_bytes() {
        for (k, i) in [144_769_024u32, 681_639_952, 1_218_510_880, 1_755_381_808].into_iter().enumerate() {
            let shape = scaled_instruction_descriptor(TcScaledKind::Mxf8f6f4, i).unwrap();
            assert_eq!((shape.n, shape.types, shape.k_major, shape.e4m3_scales), (128, [MiniFloat::E4M3; 2], [true, false], false));
            assert_eq!(shape.ids, [k as u32; 2]);
        }
        for (k, i) in [0x08A0_0480u32, 0x48A0_04A0].into_iter().enumerate() {
            let shape = scaled_instruction_descriptor(TcScaledKind::Mxf4, i).unwrap();
            assert_eq!((shape.n, shape.types, shape.k_major, shape.e4m3_scales), (128, [MiniFloat::E2M1; 2], [true, true], false));
            assert_eq!(shape.ids, [2 * k as u32; 2]);
        }
        let nvfp4 = scaled_instruction_descriptor(TcScaledKind::Mxf4nvf4, 0x0820_0480).unwrap();
        assert_eq!((nvfp4.n, nvfp4.types, nvfp4.e4m3_scales, nvfp4.ids), (128, [MiniFloat::E2M1; 2], true, [0, 0]));
        assert!(scaled_instruction_descriptor(TcScaledKind::Mxf8f6f4, 144_769_024 & !(1 << 23)).unwrap_err().contains("UE8M0"));
        assert!(scaled_instruction_descriptor(TcScaledKind::Mxf4, 0x0820_0480).unwrap_err().contains("UE8M0"));
        // `.kind::mxf8f6f4` of E2M1 (type 5) by E4M3: the E2M1 padded to bytes' places.
        let fp4_by_fp8 = scaled_instruction_descriptor(TcScaledKind::Mxf8f6f4, 0x08A0_0280).unwrap();
        assert_eq!((fp4_by_fp8.types, fp4_by_fp8.padded), ([MiniFloat::E2M1, MiniFloat::E4M3], [true, false]));
        // Scales of rows 32 apart lie a column apart in the same lane.
        assert_eq!([scale_cell(0, 128, 5), scale_cell(0, 128, 37), scale_cell(0, 128, 127)], [(5, 128), (5, 129), (31, 131)]);
    }

    #[test]
    fn instruction_descriptors_simt_does_not_run_say_why() {
        use TcmmaKind::{Plain, Scaled};
        for (kind, i, why) in [
            (Plain(TcKind::F16), 0x0411_0014, "sparse"),
            (Plain(TcKind::F16), 0x0311_0010, "M = 64 or 128"),
            (Plain(TcKind::F16), 0x0401_0010, "N (bits 17-22, N / 8) is 0"),
            (Plain(TcKind::F16), 0x0411_0410, "B type"),
            (Plain(TcKind::F8f6f4), 0x0411_0290, "E2M1"),
            (Plain(TcKind::Tf32), 0x0411_0910, "TF32 operand"),
            (Plain(TcKind::I8), 0x0411_6020, "negate"),
            (Scaled(TcScaledKind::Mxf4), 0x88A0_0480, "K = 96"),
            (Scaled(TcScaledKind::Mxf4), 0x08A0_0484, "sparse"),
            (Scaled(TcScaledKind::Mxf4), 0x08A1_0480, "transpose"),
            (Scaled(TcScaledKind::Mxf4), 0x08A0_0080, "B type (bits 10-12) is 0"),
            (Scaled(TcScaledKind::Mxf8f6f4), 0x08A0_0180, "A type (bits 7-9) is 3, a 6-bit format"),
            (Scaled(TcScaledKind::Mxf8f6f4), 0x08A0_8280, "transpose an E2M1 operand"),
            (Scaled(TcScaledKind::Mxf4), 0x28A0_0480, "A scale-factor id (bits 29-30) is 1: a .MXF4 MMA takes 2 scale bytes of a cell, from byte 0 or 2"),
            (Scaled(TcScaledKind::Mxf4nvf4), 0x0820_04A0, "B scale-factor id (bits 4-5) is 2"),
            (Scaled(TcScaledKind::Mxf4), 0x10A0_0480, "M = 128"),
            (Scaled(TcScaledKind::Mxf4), 0x0880_0480, "N (bits 17-22, N / 8) is 0"),
        ] {
            let err = match kind {
                Plain(kind) => instruction_descriptor(kind, i).map(|_| ()),
                Scaled(kind) => scaled_instruction_descriptor(kind, i).map(|_| ()),
            };
            let err = err.unwrap_err();
            assert!(err.contains(why), "{kind} {i:#x}: {err}");
        }
    }
}
