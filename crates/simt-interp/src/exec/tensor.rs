//! Tensor-core operations: the warp's fragments go to `simt_tensor::mma`
//! straight from the register file, with the result gathered on the stack so
//! `d` may equal `c`.

use simt_isa::*;

use super::Executor;
use super::{describe_lanes, pred, write};
use crate::decode::{Decoder, PredIn, Reg};
use crate::fault::{Fault, FaultKind};
use crate::sanitize::Sanitizer;
use crate::warp::Warp;
use simt_tensor::layout::Operand as Role;

/// An MMA with the first register of each operand.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MmaOp {
    opcode: Opcode,
    form: MmaForm,
    d: Reg,
    a: Reg,
    b: Reg,
    c: Reg,
    /// The sparse metadata register (the zero row for dense forms).
    e: Reg,
}

/// The tensor operation of `inst`, if it is one.
pub(crate) fn decode(t: &Decoder, inst: &Instruction) -> Option<MmaOp> {
    let form = inst.form.mma()?;
    let o = &inst.operands;
    Some(MmaOp { opcode: inst.opcode(), form, d: t.first(&o[0]), a: t.first(&o[1]), b: t.first(&o[2]), c: t.first(&o[3]), e: t.first(&o[4]) })
}

/// An `MMA.SCALED` with the first register of each operand.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ScaledMmaOp {
    kind: MmaScaledKind,
    /// The fragments' layout ([`MmaScaledKind::container`]).
    form: MmaForm,
    types: (MmaIn, MmaIn),
    sel: u16,
    d: Reg,
    a: Reg,
    b: Reg,
    c: Reg,
    sa: Reg,
    sb: Reg,
}

/// The `MMA.SCALED` of `inst`, if it is one.
pub(crate) fn decode_scaled(t: &Decoder, inst: &Instruction) -> Option<ScaledMmaOp> {
    let ((kind, a_type, b_type), form) = (inst.form.scaled_mma()?, inst.form.mma()?);
    let o = &inst.operands;
    // `validate` kept `sel` to four hex digits.
    let sel = match o[6] {
        Operand::Imm(sel) => u16::try_from(sel).ok()?,
        _ => 0,
    };
    let r = |i: usize| t.first(&o[i]);
    Some(ScaledMmaOp { kind, form, types: (a_type, b_type), sel, d: r(0), a: r(1), b: r(2), c: r(3), sa: r(4), sb: r(5) })
}

/// The most registers one fragment holds.
const MAX_FRAGMENT: usize = 8;

impl Executor<'_> {
    /// The fault for a warp-wide instruction that `needs` some lanes of which `missing` do
    /// not execute it (guard-false under `mask`, exited, diverged or absent), saying why.
    pub(crate) fn incomplete_warp(&self, w: usize, pc: u32, mask: u32, missing: u32, needs: &str) -> Fault {
        let warp = &self.warps[w];
        let one = missing.count_ones() == 1;
        let why = if !warp.valid & missing != 0 {
            if one { "does not exist (the block's last warp is partial)" } else { "do not exist (the block's last warp is partial)" }
        } else if warp.exited & missing != 0 {
            if one { "has exited" } else { "have exited" }
        } else if mask & missing != 0 {
            if one { "is guarded off" } else { "are guarded off" }
        } else if one {
            "is not active (the warp is diverged)"
        } else {
            "are not active (the warp is diverged)"
        };
        self.fault(
            FaultKind::Tensor,
            w,
            Some(missing.trailing_zeros() as usize),
            Some(pc),
            format!("{} needs {needs}, but {} {why}", self.mnemonic(pc), describe_lanes(missing)),
        )
    }

    /// Runs an MMA; every lane of the warp must take part.
    pub(crate) fn mma(&mut self, w: usize, pc: u32, op: MmaOp, mask: u32, exec: u32) -> Result<(), Fault> {
        let sparse = op.form.shape == MmaShape::SpM16N16K32;
        self.warp_mma(w, pc, mask, exec, op.form, [op.d, op.a, op.b, op.c], |warp, a, b, c, d| {
            simt_tensor::mma(op.opcode, op.form.acc, op.form.input, op.form.sat, a, b, c, sparse.then(|| warp.row(op.e)), d)
        })
    }

    /// Runs an `MMA.SCALED`; every lane of the warp must take part.
    pub(crate) fn scaled_mma(&mut self, w: usize, pc: u32, op: ScaledMmaOp, mask: u32, exec: u32) -> Result<(), Fault> {
        self.warp_mma(w, pc, mask, exec, op.form, [op.d, op.a, op.b, op.c], |warp, a, b, c, d| {
            simt_tensor::scaled_mma(op.kind, op.types, u32::from(op.sel), a, b, c, (warp.row(op.sa), warp.row(op.sb)), d)
        })
    }

    /// A warp-wide MMA of `form` on the fragments from registers `d`, `a`, `b` and `c`: every
    /// lane must take part; `compute` makes D from A, B and C (and what else of the warp it
    /// reads), on the stack, so that `d` may be `c`.
    #[allow(clippy::too_many_arguments)] // the instruction, its lanes, and what it computes
    fn warp_mma(
        &mut self,
        w: usize,
        pc: u32,
        mask: u32,
        exec: u32,
        form: MmaForm,
        [d, a, b, c]: [Reg; 4],
        compute: impl FnOnce(&Warp, &[[u32; 32]], &[[u32; 32]], &[[u32; 32]], &mut [[u32; 32]]) -> Result<(), simt_tensor::MmaError>,
    ) -> Result<(), Fault> {
        let missing = !exec;
        if missing != 0 {
            return Err(self.incomplete_warp(w, pc, mask, missing, "all 32 lanes of the warp"));
        }
        let warp = &self.warps[w];
        let frag = |first: Reg, role: FragRole| {
            let first = usize::from(first);
            &warp.regs[first..first + usize::from(form.regs(role))]
        };
        let mut result = [[0u32; 32]; MAX_FRAGMENT];
        let result = &mut result[..usize::from(form.regs(FragRole::C))];
        if let Err(err) = compute(warp, frag(a, FragRole::A), frag(b, FragRole::B), frag(c, FragRole::C), result) {
            return Err(self.fault(FaultKind::Tensor, w, Some(err.lane as usize), Some(pc), err.message));
        }
        let warp = &mut self.warps[w];
        for (k, row) in result.iter().enumerate() {
            write(warp, d + k as Reg, row, exec);
        }
        Ok(())
    }
}

/// A `WGMMA`: this warp's 16 rows of a warpgroup MMA.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WgmmaOp {
    /// The `MMA` it is made of, `n / 8` side by side, and that `MMA`'s opcode.
    slice: MmaForm,
    opcode: Opcode,
    /// Whether A comes from shared memory (`SS`) rather than registers (`RS`).
    a_shared: bool,
    /// Whether A and B are K-major (not transposed).
    a_k_major: bool,
    b_k_major: bool,
    d: Reg,
    a: Reg,
    b: Reg,
    n: u32,
    q: PredIn,
}

/// The `WGMMA` of `inst`, if it is one.
pub(crate) fn decode_wgmma(t: &Decoder, inst: &Instruction) -> Option<WgmmaOp> {
    let (slice, (src, trans)) = (inst.form.mma()?, inst.form.wgmma()?);
    let o = &inst.operands;
    let Operand::Imm(n) = o[3] else { return None };
    Some(WgmmaOp {
        slice,
        opcode: slice.shape.opcode(),
        a_shared: src == WgmmaSrc::Ss,
        a_k_major: matches!(trans, WgmmaTrans::Nn | WgmmaTrans::Nt),
        b_k_major: matches!(trans, WgmmaTrans::Nn | WgmmaTrans::Tn),
        d: t.first(&o[0]),
        a: t.first(&o[1]),
        b: t.first(&o[2]),
        n,
        q: Decoder::pred_in(&o[4]),
    })
}

/// A shared-memory matrix descriptor (PTX's "Matrix Descriptor Format"), its fields in bytes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Descriptor {
    start: u32,
    leading: u32,
    stride: u32,
    /// The matrix base offset (bits 49..52): see [`Descriptor::base_offset_agrees`].
    base: u32,
    /// Bytes of a swizzle atom's row: 16 unswizzled, else 32, 64 or 128.
    width: u32,
}

impl Descriptor {
    fn new(value: u64) -> Descriptor {
        let field = |at: u32| (((value >> at) & 0x3FFF) << 4) as u32;
        let width = match value >> 62 {
            0 => 16,
            1 => 128,
            2 => 64,
            _ => 32,
        };
        Descriptor { start: field(0), leading: field(16), stride: field(32), base: ((value >> 49) & 7) as u32, width }
    }

    /// A `TCMMA`'s descriptor (PTX's "Shared memory descriptor" for `tcgen05`): Hopper's
    /// fields, bits 46-48 the constant 0b001, and the swizzle in bits 61-63 (0 none, 2 128
    /// bytes, 4 64, 6 32); what simt cannot read, if it is that.
    pub(super) fn tcgen05(value: u64) -> Result<Descriptor, String> {
        if (value >> 46) & 7 != 1 {
            return Err(format!("its bits 46-48 are {:#05b}, not the constant 0b001 of a Blackwell descriptor", (value >> 46) & 7));
        }
        if (value >> 52) & 1 != 0 {
            return Err("its bit 52 asks for an absolute leading-dimension address (sm_103a), which simt does not model".to_string());
        }
        let width = match value >> 61 {
            0 => 16,
            2 => 128,
            4 => 64,
            6 => 32,
            1 => return Err("its swizzle (bits 61-63) is 1, 128 bytes with 32-byte atoms, which simt does not model".to_string()),
            other => return Err(format!("its swizzle (bits 61-63) is {other}, which PTX does not define")),
        };
        let descriptor = Descriptor { width, ..Descriptor::new(value & !(7 << 61)) };
        descriptor.base_offset_agrees()?;
        Ok(descriptor)
    }

    /// simt swizzles by the SHARED address's own bits, as TMA writes (a pattern repeating
    /// every 2, 4 or 8 atom rows from address 0, as the swizzle XORs 1, 2 or 3 bits); a matrix
    /// that starts inside a repeat says where, in the base offset PTX defines as
    /// `(start >> 7) & 7`, of which those bits count, and an unswizzled matrix has none to say
    /// (PTX: the field is not valid there; Triton's fp8 B tiles on sm_100a leave one). What
    /// simt cannot read, if it is that: a swizzled matrix's other base offset.
    fn base_offset_agrees(&self) -> Result<(), String> {
        let bits = (self.width >> 4) - 1;
        let expected = (self.start >> 7) & bits;
        if self.base & bits == expected {
            return Ok(());
        }
        Err(format!(
            "its matrix base offset (bits 49-51) is {}, where its start address {:#x} gives {expected} ({}-byte swizzle): simt models the offset PTX gives a swizzled matrix, (start >> 7) & 7",
            self.base, self.start, self.width,
        ))
    }

    /// The SHARED address of element (`mn`, `k`) of `bytes` bytes: `mn` a row of A (M) or a
    /// column of B (N), in PTX's canonical layouts ("Shared Memory Matrix Layout"). K-major:
    /// rows of 8 elements' `mn` one atom row (`width` bytes) apart, groups of 8 `stride` apart,
    /// K contiguous within a row (unswizzled: 16 bytes, then `leading`). MN-major: `mn`
    /// contiguous within an atom row, atoms `leading` apart (unswizzled: 16 bytes, then
    /// `stride`), K rows one atom row apart, groups of 8 `stride` (unswizzled: `leading`)
    /// apart. Then the swizzle: bits 4.. of the address XORed with bits 7.., as many as the
    /// atom row has 16-byte chunks past the first (`Swizzle<B, 4, 3>`).
    #[inline(always)]
    pub(super) fn address(&self, mn: u32, k: u32, bytes: u32, k_major: bool) -> u32 {
        let w = self.width;
        // The width is a power of two: shifts and masks, not divisions.
        let (shift, within) = (w.trailing_zeros(), w - 1);
        let offset = match (k_major, w) {
            (true, 16) => (mn % 8) * 16 + (mn / 8) * self.stride + (k * bytes) % 16 + (k * bytes / 16) * self.leading,
            (true, _) => ((mn % 8) << shift) + (mn / 8) * self.stride + k * bytes,
            (false, 16) => (mn * bytes) % 16 + (mn * bytes / 16) * self.stride + (k % 8) * 16 + (k / 8) * self.leading,
            (false, _) => ((mn * bytes) & within) + ((mn * bytes) >> shift) * self.leading + ((k % 8) << shift) + (k / 8) * self.stride,
        };
        simt_isa::tensormap::swizzle(self.start.wrapping_add(offset), w)
    }
}

impl Executor<'_> {
    /// Runs this warp's share of a `WGMMA`; every lane of the warp must take part, and the
    /// descriptors and `q` must be the same in every lane (PTX requires them the same across
    /// the warpgroup).
    pub(crate) fn wgmma(&mut self, w: usize, pc: u32, op: WgmmaOp, mask: u32, exec: u32, sanitizer: Option<&mut Sanitizer>) -> Result<(), Fault> {
        if exec != u32::MAX {
            return Err(self.incomplete_warp(w, pc, mask, !exec, "all 32 lanes of the warp"));
        }
        let warp = &self.warps[w];
        // A descriptor pair, the same in every lane.
        let uniform = |first: Reg, name: &str| -> Result<u64, Fault> {
            let (low, high) = (warp.row(first), warp.row(first + 1));
            match (1..32).find(|&l| (low[l], high[l]) != (low[0], high[0])) {
                Some(lane) => Err(self.fault(
                    FaultKind::Tensor,
                    w,
                    Some(lane),
                    Some(pc),
                    format!("WGMMA's {name} descriptor differs between lanes 0 and {lane}: a warpgroup reads one matrix"),
                )),
                None => Ok(u64::from(low[0]) | u64::from(high[0]) << 32),
            }
        };
        let q = pred(warp, op.q);
        if q != 0 && q != u32::MAX {
            let lane = (q ^ (q & 1).wrapping_neg()).trailing_zeros() as usize;
            return Err(self.fault(
                FaultKind::Tensor,
                w,
                Some(lane),
                Some(pc),
                format!("WGMMA's `q` (whether to accumulate) differs between lanes 0 and {lane}"),
            ));
        }
        let slice = op.slice;
        let bits = slice.input.bits();
        let multiplicand = |first: Reg, k_major: bool, name: &'static str| -> Result<Multiplicand, Fault> {
            let descriptor = Descriptor::new(uniform(first, name)?);
            if let Err(why) = descriptor.base_offset_agrees() {
                return Err(self.fault(FaultKind::Tensor, w, None, Some(pc), format!("WGMMA's {name} descriptor: {why}")));
            }
            Ok(Multiplicand { descriptor, bits, padded: false, k_major, name })
        };
        let b = multiplicand(op.b, op.b_k_major, "B")?;
        let a = if op.a_shared { Some(multiplicand(op.a, op.a_k_major, "A")?) } else { None };
        // The elements each lane reads, for the sanitizers (none without them: nothing is kept).
        let mut reads = sanitizer.as_ref().map(|_| Vec::new());
        // The warp's place in its warpgroup: its 16 rows of A and D.
        let first_row = 16 * (w as u32 % 4);
        let mut a_fragment = [[0u32; 32]; 4];
        match a {
            Some(a) => self.gather(w, pc, &a, slice.shape, Role::A, &mut a_fragment, |row, k| (first_row + row, k), reads.as_mut())?,
            None => a_fragment.copy_from_slice(&self.warps[w].regs[usize::from(op.a)..usize::from(op.a) + 4]),
        }
        let c_regs = usize::from(slice.regs(FragRole::C));
        let zero = [[0u32; 32]; 4];
        for j in 0..op.n / 8 {
            let mut b_fragment = [[0u32; 32]; 2];
            self.gather(w, pc, &b, slice.shape, Role::B, &mut b_fragment, |k, column| (8 * j + column, k), reads.as_mut())?;
            let first = usize::from(op.d) + j as usize * c_regs;
            let warp = &self.warps[w];
            let c = if q != 0 { &warp.regs[first..first + c_regs] } else { &zero[..c_regs] };
            let mut d = [[0u32; 32]; 4];
            if let Err(err) = simt_tensor::mma(op.opcode, slice.acc, slice.input, false, &a_fragment, &b_fragment, c, None, &mut d[..c_regs]) {
                return Err(self.fault(FaultKind::Tensor, w, Some(err.lane as usize), Some(pc), err.message));
            }
            let warp = &mut self.warps[w];
            for (r, row) in d[..c_regs].iter().enumerate() {
                write(warp, (first + r) as Reg, row, exec);
            }
        }
        if let (Some(s), Some(reads)) = (sanitizer, reads) {
            s.tensor_reads(self, w, pc, &reads, bits / 8);
        }
        Ok(())
    }

    /// Fills `fragment` with the elements the `MMA` fragment layout of `role` puts in each lane
    /// and register, read from SHARED memory: (row, column) of the slice's A or B is (`mn`,
    /// `k`) = `place(row, column)` of `matrix`.
    /// Each element's lane and address go to `reads`, where there is one.
    #[allow(clippy::too_many_arguments)] // the fragment, where it comes from, and what to say if it is not there
    pub(super) fn gather(
        &self,
        w: usize,
        pc: u32,
        matrix: &Multiplicand,
        shape: MmaShape,
        role: Role,
        fragment: &mut [[u32; 32]],
        place: impl Fn(u32, u32) -> (u32, u32),
        mut reads: Option<&mut Vec<(u8, u32)>>,
    ) -> Result<(), Fault> {
        let per_reg = (32 / matrix.bits) as usize;
        for (g, register) in fragment.iter_mut().enumerate() {
            for (lane, word) in register.iter_mut().enumerate() {
                for slot in 0..per_reg {
                    let (row, column) = simt_tensor::layout::coord(shape, role, lane, g * per_reg + slot);
                    let (mn, k) = place(row as u32, column as u32);
                    let (code, address) = self.element(w, pc, matrix, mn, k)?;
                    *word |= code << (matrix.bits as usize * slot);
                    if let Some(reads) = reads.as_deref_mut() {
                        reads.push((lane as u8, address));
                    }
                }
            }
        }
        Ok(())
    }

    /// Element (`mn`, `k`) of `matrix` and the SHARED address of its byte(s). 4-bit elements lie
    /// two a byte along K (K-major only), the first in the low nibble; padded, 16 of them in the
    /// first 8 bytes of each 16 (PTX's `.b4x16_p64`), where 8-bit elements would lie.
    #[inline(always)]
    pub(super) fn element(&self, w: usize, pc: u32, matrix: &Multiplicand, mn: u32, k: u32) -> Result<(u32, u32), Fault> {
        let (k_bytes, bytes) = match (matrix.bits, matrix.padded) {
            (4, true) => (k / 16 * 16 + k % 16 / 2, 1),
            (4, false) => (k / 2, 1),
            (bits, _) => (k, bits / 8),
        };
        let address = matrix.descriptor.address(mn, k_bytes, bytes, matrix.k_major);
        let Some(&value) = self.shared.get(address as usize / 4) else {
            let message = format!(
                "{} reads {}'s element ({mn}, {k}) at SHARED address {address:#x}, past the block's {} bytes of shared memory",
                self.mnemonic(pc),
                matrix.name,
                self.shared.len() * 4
            );
            return Err(self.fault(FaultKind::Tensor, w, None, Some(pc), message));
        };
        let nibble = if matrix.bits == 4 { 4 * (k % 2) } else { 0 };
        Ok(((value >> (8 * (address % 4) + nibble)) & (u32::MAX >> (32 - matrix.bits)), address))
    }
}

/// A `WGMMA` or `TCMMA` multiplicand in SHARED memory: its descriptor, element size and major-ness.
pub(super) struct Multiplicand {
    pub descriptor: Descriptor,
    /// Bits of an element: 4 (two a byte), 8, 16 or 32.
    pub bits: u32,
    /// 4-bit elements padded as 8-bit ones are laid out (`TCMMA.SCALED.MXF8F6F4`'s E2M1).
    pub padded: bool,
    pub k_major: bool,
    /// `A` or `B`, for messages.
    pub name: &'static str,
}

#[cfg(test)]
mod tests {
    use super::Descriptor;

    /// The byte-address swizzle of `Swizzle<b, 4, 3>`: bits 4.. XORed with bits 7.., written
    /// out here rather than taken from `tensormap::swizzle`, which the code under test uses.
    fn swizzle(address: u32, b: u32) -> u32 {
        address ^ (((address >> 7) & ((1 << b) - 1)) << 4)
    }

    /// The PTX ISA's worked examples of canonical layouts ("Canonical Layouts", CuTe notation
    /// in elements), each checked element by element against `Descriptor::address`.
    #[test]
    fn descriptors_lay_matrices_out_as_the_ptx_examples() {
        // (descriptor fields, element bytes, K-major, swizzle bits, offset in elements of (mn, k))
        type Layout = fn(u32, u32) -> u32;
        let examples: [(u32, u32, u32, u32, bool, u32, Layout); 5] = [
            // K-major, unswizzled, tf32: ((8,2),(4,4)):((4,32),(1,64)); LBO 64, SBO 32 elements.
            (16, 256, 128, 4, true, 0, |mn, k| 4 * (mn % 8) + 32 * (mn / 8) + k % 4 + 64 * (k / 4)),
            // K-major, 32-byte swizzle, tf32: ((8,2),(4,4)):((8,64),(1,4)); SBO 64 elements.
            (32, 16, 256, 4, true, 1, |mn, k| 8 * (mn % 8) + 64 * (mn / 8) + k),
            // MN-major, unswizzled, bf16: ((8,1,2),(8,2)):((1,8,64),(8,128)); LBO 128, SBO 64.
            (16, 256, 128, 2, false, 0, |mn, k| mn % 8 + 64 * (mn / 8) + 8 * (k % 8) + 128 * (k / 8)),
            // MN-major, 32-byte swizzle, bf16: ((8,2,2),(8,2)):((1,8,128),(16,256)); LBO 128, SBO 256.
            (32, 256, 512, 2, false, 1, |mn, k| mn % 16 + 128 * (mn / 16) + 16 * (k % 8) + 256 * (k / 8)),
            // MN-major, 64-byte swizzle, bf16: ((8,4,2),(8,2)):((1,8,256),(32,512)); LBO 256, SBO 512.
            (64, 512, 1024, 2, false, 2, |mn, k| mn % 32 + 256 * (mn / 32) + 32 * (k % 8) + 512 * (k / 8)),
        ];
        for (width, leading, stride, bytes, k_major, bits, layout) in examples {
            let d = Descriptor { start: 0, leading, stride, base: 0, width };
            for mn in 0..16 {
                for k in 0..16 {
                    let want = swizzle(layout(mn, k) * bytes, bits);
                    assert_eq!(d.address(mn, k, bytes, k_major), want, "width {width}, k-major {k_major}: ({mn}, {k})");
                }
            }
        }
    }

    #[test]
    fn descriptor_fields_are_16_byte_units() {
        // Triton's A descriptor of a 64-byte-swizzled K-major tile at 0x2000, 512 bytes a group of 8 rows.
        let d = Descriptor::new(0x8000_0020_0000_0200);
        assert_eq!((d.start, d.leading, d.stride, d.base, d.width), (0x2000, 0, 512, 0, 64));
        // Row 9, bytes 32..: group 1, row 1 of the atom, chunk 2 XOR 0 (bits 7.. of 0x2260 are 0b100: 4 & 3 = 0).
        assert_eq!(d.address(9, 16, 2, true), 0x2000 + 512 + 64 + 32);
    }

    /// A swizzled matrix may start inside the pattern's repeat if its base offset says where,
    /// `(start >> 7) & 7` of the bits its swizzle XORs; an unswizzled one's base offset means
    /// nothing (Triton's fp8 B tile on sm_100a: start 0x2200, offset 4, no swizzle).
    #[test]
    fn base_offsets_say_where_a_matrix_starts_in_its_swizzle() {
        let blackwell = |start: u64, base: u64, swizzle: u64| (start >> 4) | 1 << 46 | base << 49 | swizzle << 61;
        assert!(Descriptor::tcgen05(blackwell(0x2200, 4, 0)).is_ok());
        assert!(Descriptor::tcgen05(blackwell(0x2200, 4, 2)).is_ok());
        assert!(Descriptor::tcgen05(blackwell(0x2400, 0, 2)).is_ok());
        let why = Descriptor::tcgen05(blackwell(0x2200, 0, 2)).unwrap_err();
        assert!(why.contains("base offset (bits 49-51) is 0, where its start address 0x2200 gives 4 (128-byte swizzle)"), "{why}");
        assert!(Descriptor::tcgen05(blackwell(0x2200, 3, 4)).is_err());
        // A 32-byte swizzle repeats every 256 bytes: Triton's Hopper fp8 B tile at 0x900, offset 0.
        assert!(Descriptor::tcgen05(blackwell(0x900, 0, 6)).is_ok());
        assert!(Descriptor::tcgen05(blackwell(0x980, 0, 6)).is_err());
        assert!(Descriptor::new(0x4000 << 16 | 4 << 49 | 0x220).base_offset_agrees().is_ok(), "no swizzle");
    }
}
