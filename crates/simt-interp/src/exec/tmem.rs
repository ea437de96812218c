//! Tensor memory (PTX `tcgen05`, datacenter Blackwell): each block's 128 lanes by 512 columns
//! of 32-bit cells, allocated by columns; the loads and stores a warp makes of its quarter of
//! the lanes; and `TCMMA`, one whole MMA issued by one thread, accumulating in tensor memory.
//! Everything completes as it executes, so PTX's `tcgen05.wait` and `tcgen05.fence` have
//! nothing left to wait for (docs/tensor.md, "Tensor memory").

use simt_isa::*;
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

/// `TMEM.LD` (`load`) into, or `TMEM.ST` from, the registers from `r`, at TMEM address `t`
/// (`16X32BX2`'s second half `split` on).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MoveOp {
    load: bool,
    shape: TmemShape,
    num: TmemNum,
    pack: bool,
    r: Reg,
    t: Address,
    split: u32,
}

/// A `TCMMA`: `d` is a TMEM address, `a` a descriptor pair or a TMEM address; a block-scaled
/// one has its scales' TMEM addresses in the pair `scales`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MmaOp {
    kind: TcKind,
    d: Val,
    a: Source,
    b: Reg,
    i: Val,
    q: PredIn,
    scales: Option<Reg>,
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
            TmemOp::Move(MoveOp { load: true, shape, num, pack: pack == TmemPack::Yes, r: t.dst(&o[0]), t: t.narrow_addr(&o[1]), split: split(2) })
        }
        Form::TmemSt(mods::TmemSt { shape, num, pack }) => {
            TmemOp::Move(MoveOp { load: false, shape, num, pack: pack == TmemPack::Yes, r: t.first(&o[1]), t: t.narrow_addr(&o[0]), split: split(2) })
        }
        Form::Tcmma(mods::Tcmma { kind }) | Form::TcmmaTs(mods::TcmmaTs { kind }) => {
            let a = if matches!(inst.form, Form::TcmmaTs(_)) { Source::Tmem(t.val(&o[1], false)) } else { Source::Shared(t.first(&o[1])) };
            TmemOp::Mma(MmaOp { kind, d: t.val(&o[0], false), a, b: t.first(&o[2]), i: t.val(&o[3], false), q: Decoder::pred_in(&o[4]), scales: None })
        }
        Form::TcmmaMx(_) => {
            let ab = t.first(&o[1]);
            TmemOp::Mma(MmaOp {
                kind: TcKind::F8f6f4,
                d: t.val(&o[0], false),
                a: Source::Shared(ab),
                b: ab + 2,
                i: t.val(&o[2], false),
                q: Decoder::pred_in(&o[4]),
                scales: Some(t.first(&o[3])),
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

/// Decodes the instruction descriptor `i` of a block-scaled `TCMMA` (PTX's "Instruction
/// descriptor" for `.kind::mxf8f6f4`): its shape, and which byte of each scale cell A's and B's
/// scales are (bits 29-30 and 4-5).
fn scaled_instruction_descriptor(i: u32) -> Result<(Shape, [u32; 2]), String> {
    let bits = |at: u32, width: u32| (i >> at) & ((1 << width) - 1);
    if bits(2, 1) != 0 {
        return Err("its bit 2 asks for a sparse MMA, which simt does not run".to_string());
    }
    if bits(23, 1) != 1 {
        return Err("its bit 23 (the scale type) is 0, UE4M3, which .kind::mxf8f6f4 does not take: its scales are UE8M0 (1)".to_string());
    }
    if bits(27, 2) != 1 {
        return Err(format!("its M (bits 27-28, M / 128) is {}: a one-block block-scaled MMA has M = 128", bits(27, 2)));
    }
    // The rest as an unscaled descriptor with F32 D and M = 128 says it.
    let plain = (i & 0x007F_FF80) | 1 << 4 | 8 << 24;
    let shape = instruction_descriptor(TcKind::F8f6f4, plain)?;
    Ok((shape, [bits(29, 2), bits(4, 2)]))
}

/// The TMEM cell holding the scale of row `index` (of A, or column of B) from a scale matrix at
/// `(lane, column)`: 32 lanes, each cell's four bytes four K blocks, rows 32 apart a column on.
fn scale_cell(lane: u32, column: u32, index: u32) -> (u32, u32) {
    (lane + index % 32, column + index / 32)
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
                self.tcmma(w, pc, l, op, sanitizer.as_deref_mut())?;
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
            let reg = r + j as Reg;
            let mut row = if load { [0u32; 32] } else { *self.warps[w].row(reg) };
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
            if load {
                write(&mut self.warps[w], reg, &row, u32::MAX);
            }
        }
        if let (Some(s), Some(cells)) = (sanitizer, cells) {
            s.tmem_accesses(self, w, pc, &cells, !load);
        }
        Ok(())
    }

    /// Lane `l`'s `TCMMA`: one whole MMA.
    fn tcmma(&mut self, w: usize, pc: u32, l: usize, op: MmaOp, sanitizer: Option<&mut Sanitizer>) -> Result<(), Fault> {
        self.warps[w].progress_at = self.warps[w].issued;
        let warp = &self.warps[w];
        let word = |r: Reg| warp.row(r)[l];
        let pair = |r: Reg| u64::from(word(r)) | u64::from(word(r + 1)) << 32;
        let i = fetch(warp, op.i)[l];
        let accumulate = pred(warp, op.q) >> l & 1 != 0;
        let d = fetch(warp, op.d)[l];
        let fault = |ex: &Self, message: String| ex.fault(FaultKind::Tensor, w, Some(l), Some(pc), message);
        let decoded = match op.scales {
            None => instruction_descriptor(op.kind, i).map(|shape| (shape, None)),
            Some(_) => scaled_instruction_descriptor(i).map(|(shape, ids)| (shape, Some(ids))),
        };
        let (shape, scale_ids) = decoded.map_err(|why| fault(self, format!("TCMMA's instruction descriptor {i:#010x}: {why}")))?;
        let form = shape.form;
        let bytes = form.input.bits() / 8;
        let multiplicand = |value: u64, k_major: bool, name: &'static str| -> Result<Multiplicand, Fault> {
            let descriptor = Descriptor::tcgen05(value).map_err(|why| fault(self, format!("TCMMA's {name} descriptor {value:#018x}: {why}")))?;
            Ok(Multiplicand { descriptor, bytes, k_major, name })
        };
        let b = multiplicand(pair(op.b), shape.b_k_major, "B")?;
        let a = match op.a {
            Source::Shared(r) => Some(multiplicand(pair(r), shape.a_k_major, "A")?),
            Source::Tmem(_) => None,
        };
        // D's base: lane 0 for M = 128, lane 0 or 16 for M = 64 (its rows' blocks of 16 take
        // lanes 32 apart); its columns allocated.
        let check_matrix = |ex: &Self, address: u32, columns: u32, name: &str| -> Result<(u32, u32), Fault> {
            let (lane, column) = (address >> 16, address & 0xFFFF);
            let lanes_ok = if shape.m == 128 { lane == 0 } else { lane == 0 || lane == 16 };
            if !lanes_ok {
                let allowed = if shape.m == 128 { "0" } else { "0 or 16" };
                return Err(fault(ex, format!("TCMMA's {name} is at TMEM lane {lane}: an M = {} matrix starts at lane {allowed}", shape.m)));
            }
            if !ex.tmem.allocated(column, columns) {
                return Err(ex.unallocated(w, pc, Some(l), column, columns));
            }
            Ok((lane, column))
        };
        let (d_lane, d_column) = check_matrix(self, d, shape.n, "D")?;
        // A block-scaled MMA's scale exponents (`None`: the NaN scale, 0xFF), A's by row and B's
        // by column.
        let mut exponents: [Vec<Option<i32>>; 2] = [Vec::new(), Vec::new()];
        // The scales' cells, for the sanitizers.
        let mut scale_cells: Vec<(u8, u32)> = Vec::new();
        if let (Some(s), Some(ids)) = (op.scales, scale_ids) {
            for (k, (count, id)) in [(shape.m, ids[0]), (shape.n, ids[1])].into_iter().enumerate() {
                let address = self.warps[w].row(s + k as Reg)[l];
                let (lane, column) = (address >> 16, address & 0xFFFF);
                let columns = count.div_ceil(32);
                if lane != 0 || !self.tmem.allocated(column, columns) {
                    let name = ["A", "B"][k];
                    return Err(fault(
                        self,
                        format!("TCMMA's scales of {name} at TMEM address {address:#x} are not lanes 0-31 of {columns} allocated columns"),
                    ));
                }
                exponents[k] = (0..count)
                    .map(|index| {
                        let (lane, column) = scale_cell(lane, column, index);
                        if sanitizer.is_some() {
                            scale_cells.push((l as u8, lane * COLUMNS + column));
                        }
                        let byte = (self.tmem.cells[(lane * COLUMNS + column) as usize] >> (8 * id)) & 0xFF;
                        (byte != 0xFF).then(|| byte as i32 - 127)
                    })
                    .collect();
            }
        }
        let slice = form.shape;
        let k = op.kind.k();
        let rows_read = shape.n + if a.is_some() { shape.m } else { 0 };
        self.tcmma_work.0 += u64::from(shape.m * shape.n * k);
        self.tcmma_work.1 += u64::from(rows_read * k * bytes);
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
                let columns = (k * form.input.bits()).div_ceil(32);
                let (a_lane, a_column) = check_matrix(self, address, columns, "A")?;
                a_tmem = Some((a_lane, a_column, columns));
                let per_reg = 32 / form.input.bits() as usize;
                let mask = u32::MAX >> (32 - form.input.bits());
                for (r, fragment) in a_fragments[..blocks].iter_mut().enumerate() {
                    for (g, register) in fragment[..a_regs].iter_mut().enumerate() {
                        for (lane, value) in register.iter_mut().enumerate() {
                            for slot in 0..per_reg {
                                let (row, k) = layout::coord(slice, Role::A, lane, g * per_reg + slot);
                                let bit = k as u32 * form.input.bits();
                                let cell =
                                    self.tmem.cells[((a_lane + lane_of_row(16 * r as u32 + row as u32, shape.m)) * COLUMNS + a_column + bit / 32) as usize];
                                *value |= ((cell >> (bit % 32)) & mask) << (slot as u32 * form.input.bits());
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
                // The cell of element e of `lane`'s C fragment, and for a scaled MMA its row's and
                // column's exponents summed: its products are 2^x times the unscaled ones, so the
                // chain from C / 2^x, times 2^x, rounds as the scaled chain does (exactly, but past
                // f32's range).
                let element = |lane: usize, e: usize| -> (usize, Option<Option<i32>>) {
                    let (row, column) = layout::coord(slice, Role::C, lane, e);
                    let (m, n) = (16 * r + row, 8 * j as usize + column);
                    let cell = ((d_lane + lane_of_row(m as u32, shape.m)) * COLUMNS + d_column + n as u32) as usize;
                    let exponent = (!exponents[0].is_empty()).then(|| exponents[0][m].zip(exponents[1][n]).map(|(a, b)| a + b));
                    (cell, exponent)
                };
                let scaled = |bits: u32, e: Option<i32>| match e {
                    Some(e) => ((f64::from(f32::from_bits(bits)) * 2f64.powi(e)) as f32).to_bits(),
                    None => f32::NAN.to_bits(),
                };
                let mut c = [[0u32; 32]; 4];
                if accumulate {
                    for (g, register) in c[..c_regs].iter_mut().enumerate() {
                        for (lane, value) in register.iter_mut().enumerate() {
                            for slot in 0..c_per_reg {
                                let (cell, exponent) = element(lane, g * c_per_reg + slot);
                                let mut bits = self.tmem.cells[cell] & c_mask;
                                if let Some(x) = exponent {
                                    bits = scaled(bits, x.map(|x| -x));
                                }
                                *value |= bits << (slot as u32 * form.acc.bits());
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
                            let (cell, exponent) = element(lane, g * c_per_reg + slot);
                            let mut bits = (value >> (slot as u32 * form.acc.bits())) & c_mask;
                            if let Some(x) = exponent {
                                bits = scaled(bits, x);
                            }
                            self.tmem.cells[cell] = bits;
                        }
                    }
                }
            }
        }
        if let (Some(s), Some(mut reads)) = (sanitizer, reads) {
            // One thread read and wrote them all.
            reads.iter_mut().for_each(|(lane, _)| *lane = l as u8);
            s.tensor_reads(self, w, pc, &reads, bytes);
            let matrix = |lane: u32, column: u32, columns: u32| {
                (0..shape.m).flat_map(move |m| (0..columns).map(move |c| (l as u8, (lane + lane_of_row(m, shape.m)) * COLUMNS + column + c)))
            };
            let mut read: Vec<(u8, u32)> = a_tmem.map(|(lane, column, columns)| matrix(lane, column, columns).collect()).unwrap_or_default();
            read.extend(scale_cells);
            if accumulate {
                read.extend(matrix(d_lane, d_column, shape.n));
            }
            s.tmem_accesses(self, w, pc, &read, false);
            s.tmem_accesses(self, w, pc, &matrix(d_lane, d_column, shape.n).collect::<Vec<_>>(), true);
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

    /// The four descriptors of Triton's `tl.dot_scaled` for sm_100a (128 x 128, K = 128 in four
    /// MMAs): e4m3 inputs, UE8M0 scales, B N-major, and the scales' byte k for the k-th.
    #[test]
    fn tritons_block_scaled_descriptors_pick_a_scale_byte_each() {
        for (k, i) in [144_769_024u32, 681_639_952, 1_218_510_880, 1_755_381_808].into_iter().enumerate() {
            let (shape, ids) = scaled_instruction_descriptor(i).unwrap();
            assert_eq!((shape.m, shape.n, shape.form.input, shape.form.acc, shape.b_k_major), (128, 128, MmaIn::E4M3, MmaAcc::F32, false));
            assert_eq!(ids, [k as u32; 2]);
        }
        assert!(scaled_instruction_descriptor(144_769_024 & !(1 << 23)).unwrap_err().contains("UE8M0"));
        // Scales of rows 32 apart lie a column apart in the same lane.
        assert_eq!([scale_cell(0, 128, 5), scale_cell(0, 128, 37), scale_cell(0, 128, 127)], [(5, 128), (5, 129), (31, 131)]);
    }

    #[test]
    fn instruction_descriptors_simt_does_not_run_say_why() {
        for (kind, i, why) in [
            (TcKind::F16, 0x0411_0014, "sparse"),
            (TcKind::F16, 0x0311_0010, "M = 64 or 128"),
            (TcKind::F16, 0x0401_0010, "N (bits 17-22, N / 8) is 0"),
            (TcKind::F16, 0x0411_0410, "B type"),
            (TcKind::F8f6f4, 0x0411_0290, "E2M1"),
            (TcKind::Tf32, 0x0411_0910, "TF32 operand"),
            (TcKind::I8, 0x0411_6020, "negate"),
        ] {
            let err = instruction_descriptor(kind, i).unwrap_err();
            assert!(err.contains(why), "{kind} {i:#x}: {err}");
        }
    }
}
