//! Hopper's asynchronous data movement: mbarriers (`MBAR`) and tensor copies through a tensor
//! map (`TMA`). Each guard-true lane acts on its own operands, in lane order; a copy is made
//! whole as it issues and completes its bytes on its mbarrier at once, which no program that
//! waits on the mbarrier before it reads the copy (as PTX requires) can tell from a copy that
//! takes time.

use simt_isa::tensormap::{self, MAX_RANK, TENSOR_MAP_BYTES, TensorMap};
use simt_isa::*;

use super::memory::Loc;
use super::{Executor, fetch, lanes, set_pred, write};
use crate::decode::{Address, Decoder, Reg, Val};
use crate::fault::{Fault, FaultKind};
use crate::sanitize::Sanitizer;
use crate::warp::FailedTest;

/// An `MBAR`: what it does at each executing lane's SHARED address `addr`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MbarOp {
    pub addr: Address,
    action: MbarAction,
}

#[derive(Clone, Copy, Debug)]
enum MbarAction {
    Init { count: Val },
    Arrive { drop: bool, d: Reg, count: Val, tx: Val },
    Tx { complete: bool, tx: Val },
    Test { p: u8, parity: Val },
}

/// A `TMA`: `map` and `coords` are first registers (a pair; `rank` registers); a load completes
/// its bytes on the mbarrier at `barrier`, a store has none.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CopyOp {
    rank: u8,
    map: Reg,
    coords: Reg,
    shared: Val,
    pub barrier: Option<Val>,
}

/// The mbarrier operation of `inst`, if it is one.
pub(crate) fn decode_mbarrier(t: &Decoder, inst: &Instruction) -> Option<MbarOp> {
    let o = &inst.operands;
    let (addr, action) = match inst.form {
        Form::MbarInit(_) => (&o[0], MbarAction::Init { count: t.val(&o[1], false) }),
        Form::MbarArrive(mods::MbarArrive { drop }) => {
            (&o[1], MbarAction::Arrive { drop: drop == MbarDrop::Yes, d: t.dst(&o[0]), count: t.val(&o[2], false), tx: t.val(&o[3], false) })
        }
        Form::MbarTx(mods::MbarTx { op }) => (&o[0], MbarAction::Tx { complete: op == MbarTxOp::Complete, tx: t.val(&o[1], false) }),
        Form::MbarTest(_) => (&o[1], MbarAction::Test { p: Decoder::pred_out(&o[0]), parity: t.val(&o[2], false) }),
        // A `TCMMA` completes as it executes: committing them is arriving at once, counting 1.
        Form::TcmmaCommit(_) => (&o[0], MbarAction::Arrive { drop: false, d: t.dst(&Operand::Reg(RZ)), count: Val::Imm(1), tx: Val::Imm(0) }),
        _ => return None,
    };
    Some(MbarOp { addr: t.addr(addr, inst.form.access()?), action })
}

/// The tensor copy of `inst`, if it is one.
pub(crate) fn decode_copy(t: &Decoder, inst: &Instruction) -> Option<CopyOp> {
    let o = &inst.operands;
    let rank = inst.form.tensor_rank()?;
    Some(match inst.form {
        Form::TmaLoad(_) => CopyOp { rank, shared: t.val(&o[0], false), map: t.first(&o[1]), coords: t.first(&o[2]), barrier: Some(t.val(&o[3], false)) },
        _ => CopyOp { rank, map: t.first(&o[0]), coords: t.first(&o[1]), shared: t.val(&o[2], false), barrier: None },
    })
}

/// The most arrivals a phase expects, and the largest pending transaction count either way.
const MAX_COUNT: u32 = (1 << 20) - 1;

/// An mbarrier's 64 bits (docs/language.md, "Barriers in memory"): bits 0..20 the arrivals
/// the current phase still waits for, 20..40 those each phase expects, 40..61 the pending
/// transaction bytes (signed: a copy may complete before its bytes are expected), 63 the
/// phase's parity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mbarrier {
    pending: u32,
    expected: u32,
    tx: i32,
    phase: u32,
}

impl Mbarrier {
    fn unpack(v: u64) -> Mbarrier {
        let field = |at: u32| (v >> at) as u32 & MAX_COUNT;
        let tx = (((v >> 40) as u32 & 0x1F_FFFF) << 11) as i32 >> 11;
        Mbarrier { pending: field(0), expected: field(20), tx, phase: (v >> 63) as u32 }
    }

    fn pack(self) -> u64 {
        u64::from(self.pending) | u64::from(self.expected) << 20 | u64::from(self.tx as u32 & 0x1F_FFFF) << 40 | u64::from(self.phase) << 63
    }

    /// Adds `bytes` (negative: completes them) to the pending transaction count.
    fn transact(&mut self, bytes: i64) -> Result<(), String> {
        let tx = i64::from(self.tx) + bytes;
        if tx.unsigned_abs() > u64::from(MAX_COUNT) {
            return Err(format!("its pending transaction count would be {tx}, outside PTX's ±(2^20 - 1)"));
        }
        self.tx = tx as i32;
        Ok(())
    }

    /// Completes the phase when nothing is left pending.
    fn settle(&mut self) {
        if self.pending == 0 && self.tx == 0 {
            self.phase ^= 1;
            self.pending = self.expected;
        }
    }
}

impl Executor<'_> {
    /// Runs a `TMA` for the lanes in `exec`, each in lane order: a load completes its bytes on
    /// its mbarrier once its box is in shared memory.
    pub(crate) fn tensor_copy(&mut self, w: usize, pc: u32, op: &CopyOp, exec: u32, mut sanitizer: Option<&mut Sanitizer>) -> Result<(), Fault> {
        if exec == 0 {
            return Ok(());
        }
        self.warps[w].progress_at = self.warps[w].issued;
        self.copied.clear();
        let warp = &self.warps[w];
        let shared = fetch(warp, op.shared);
        let barrier = op.barrier.map(|b| fetch(warp, b));
        for l in lanes(exec) {
            let (map, at) = self.tensor_copy_operands(w, pc, l, op.map, op.coords, op.rank)?;
            // Inside shared memory, so a box's bytes fit 32 bits from here on.
            let bytes = self.check_box(w, pc, l, &map, shared[l])?;
            self.copy_box(w, pc, l, &map, at, shared[l], barrier.is_none())?;
            if let Some(s) = sanitizer.as_deref_mut() {
                s.tensor_copy(self, w, l, pc, shared[l] as usize, bytes as usize, barrier.is_some());
            }
            let Some(barrier) = barrier else { continue };
            self.update_mbarrier(w, pc, l, barrier[l], |m| {
                m.transact(-i64::from(bytes))?;
                m.settle();
                Ok(())
            })?;
            self.note_mbarrier_arrival(w, pc, l, barrier[l])?;
        }
        Ok(())
    }

    /// Runs an `MBAR` for the lanes in `exec`, each in lane order on its own address.
    pub(crate) fn mbarrier(&mut self, w: usize, pc: u32, op: &MbarOp, exec: u32) -> Result<(), Fault> {
        if exec == 0 {
            return Ok(());
        }
        // Writing memory is progress; testing an mbarrier is not, so a wait that never ends is a
        // runaway warp rather than the step limit.
        if !matches!(op.action, MbarAction::Test { .. }) {
            self.warps[w].progress_at = self.warps[w].issued;
        }
        let base = self.warps[w].row(op.addr.base);
        let addrs: [u32; 32] = std::array::from_fn(|l| base[l].wrapping_add(op.addr.offset));
        match op.action {
            MbarAction::Init { count } => {
                let count = fetch(&self.warps[w], count);
                for l in lanes(exec) {
                    if !(1..=MAX_COUNT).contains(&count[l]) {
                        let message = format!("{} gives the mbarrier a count of {}, not 1 ..= 2^20 - 1", self.mnemonic(pc), count[l] as i32);
                        return Err(self.fault(FaultKind::Async, w, Some(l), Some(pc), message));
                    }
                    let at = self.mbarrier_at(w, pc, l, addrs[l], true)?;
                    let fresh = Mbarrier { pending: count[l], expected: count[l], tx: 0, phase: 0 };
                    self.store_shared64(at, fresh.pack());
                }
            }
            MbarAction::Arrive { drop, d, count, tx } => {
                let (count, tx) = (fetch(&self.warps[w], count), fetch(&self.warps[w], tx));
                let mut phases = [0u32; 32];
                for l in lanes(exec) {
                    let (count, tx) = (count[l], tx[l]);
                    phases[l] = self.update_mbarrier(w, pc, l, addrs[l], |m| {
                        let phase = m.phase;
                        m.transact(i64::from(tx as i32))?;
                        if count > m.pending || count == 0 {
                            let pending = if m.expected == 0 { "none (is it initialised? MBAR.INIT)".to_string() } else { m.pending.to_string() };
                            return Err(format!("it arrives {} times where its phase waits for {pending}", count as i32));
                        }
                        m.pending -= count;
                        if drop {
                            m.expected = m.expected.saturating_sub(count);
                        }
                        m.settle();
                        Ok(phase)
                    })?;
                    self.note_mbarrier_arrival(w, pc, l, addrs[l])?;
                }
                write(&mut self.warps[w], d, &phases, exec);
            }
            MbarAction::Tx { complete, tx } => {
                let tx = fetch(&self.warps[w], tx);
                for l in lanes(exec) {
                    let bytes = i64::from(tx[l] as i32);
                    self.update_mbarrier(w, pc, l, addrs[l], |m| {
                        m.transact(if complete { -bytes } else { bytes })?;
                        m.settle();
                        Ok(())
                    })?;
                }
            }
            MbarAction::Test { p, parity } => {
                let parity = fetch(&self.warps[w], parity);
                let mut done = 0u32;
                for l in lanes(exec) {
                    let at = self.mbarrier_at(w, pc, l, addrs[l], false)?;
                    let m = Mbarrier::unpack(self.load_shared64(at));
                    if m.phase != parity[l] & 1 {
                        done |= 1 << l;
                        self.note_sync(super::Sync::MbarComplete { warp: w as u8, at });
                    }
                }
                if let Some(l) = lanes(exec & !done).next() {
                    let warp = &mut self.warps[w];
                    warp.failed_test = FailedTest { at: warp.issued, pc, addr: addrs[l], parity: parity[l] & 1 };
                }
                set_pred(&mut self.warps[w], p, done, exec);
            }
        }
        Ok(())
    }

    /// Notes for racecheck that lane `l` of warp `w` arrived on the mbarrier at SHARED `addr`.
    fn note_mbarrier_arrival(&mut self, w: usize, pc: u32, l: usize, addr: u32) -> Result<(), Fault> {
        if self.launch.options.checks.racecheck {
            let at = self.mbarrier_at(w, pc, l, addr, false)?;
            self.note_sync(super::Sync::MbarArrive { warp: w as u8, at });
        }
        Ok(())
    }

    /// The byte offset of the mbarrier at SHARED `addr`, or the fault for an address that is
    /// not 8-byte aligned inside the block's shared memory.
    fn mbarrier_at(&mut self, w: usize, pc: u32, l: usize, addr: u32, write: bool) -> Result<usize, Fault> {
        match self.resolve(w, l, pc, Space::Shared, addr, 8, write)? {
            Loc::Bytes(at) => Ok(at),
            // `resolve` gives SHARED addresses as bytes; a buffer would be a bug there, not here.
            Loc::Global(..) => Err(self.fault(FaultKind::Unmapped, w, Some(l), Some(pc), format!("{} found no shared memory at {addr:#x}", self.mnemonic(pc)))),
        }
    }

    /// Applies `f` to the mbarrier at SHARED `addr` for lane `l`, or faults with its complaint.
    fn update_mbarrier<T>(&mut self, w: usize, pc: u32, l: usize, addr: u32, f: impl FnOnce(&mut Mbarrier) -> Result<T, String>) -> Result<T, Fault> {
        let at = self.mbarrier_at(w, pc, l, addr, true)?;
        let mut m = Mbarrier::unpack(self.load_shared64(at));
        match f(&mut m) {
            Ok(out) => {
                self.store_shared64(at, m.pack());
                Ok(out)
            }
            Err(why) => {
                let message = format!("{} at the mbarrier at shared address {addr:#x}: {why}", self.mnemonic(pc));
                Err(self.fault(FaultKind::Async, w, Some(l), Some(pc), message))
            }
        }
    }

    /// The mbarrier at SHARED `addr`, if the address can hold one.
    fn mbarrier_state(&self, addr: u32) -> Option<Mbarrier> {
        let at = addr as usize;
        (at.is_multiple_of(8) && at + 8 <= 4 * self.shared.len()).then(|| Mbarrier::unpack(self.load_shared64(at)))
    }

    /// Whether the phase `test` waited for is still incomplete (else its next test ends the wait).
    pub(crate) fn still_waits(&self, test: &FailedTest) -> bool {
        self.mbarrier_state(test.addr).is_some_and(|m| m.phase == test.parity)
    }

    /// What the mbarrier at SHARED `addr` still waits for, in words (for a deadlock's notes), if
    /// that address holds one.
    pub(crate) fn describe_mbarrier(&self, addr: u32) -> Option<String> {
        let m = self.mbarrier_state(addr)?;
        Some(format!(
            "the mbarrier at shared address {addr:#x} is in a phase of parity {}, waiting for {} of its {} arrivals and {} transaction bytes",
            m.phase, m.pending, m.expected, m.tx
        ))
    }

    fn load_shared64(&self, at: usize) -> u64 {
        u64::from(self.shared[at / 4]) | u64::from(self.shared[at / 4 + 1]) << 32
    }

    fn store_shared64(&mut self, at: usize, value: u64) {
        self.shared[at / 4] = value as u32;
        self.shared[at / 4 + 1] = (value >> 32) as u32;
    }

    /// Lane `l`'s tensor map (read from GLOBAL memory at the pair `map`) and box coordinates.
    fn tensor_copy_operands(&mut self, w: usize, pc: u32, l: usize, map: Reg, coords: Reg, rank: u8) -> Result<(TensorMap, [i64; MAX_RANK]), Fault> {
        let warp = &self.warps[w];
        let address = u64::from(warp.row(map)[l]) | u64::from(warp.row(map + 1)[l]) << 32;
        let mut at = [0i64; MAX_RANK];
        for (d, c) in at.iter_mut().enumerate().take(usize::from(rank)) {
            *c = i64::from(warp.row(coords + d as Reg)[l] as i32);
        }
        let mut bytes = [0u8; TENSOR_MAP_BYTES];
        self.read_global(w, pc, l, address, &mut bytes)?;
        let map = TensorMap::decode(&bytes).map_err(|why| {
            let message = format!("{} reads the tensor map at {address:#x}, but {why}", self.mnemonic(pc));
            self.fault(FaultKind::Async, w, Some(l), Some(pc), message)
        })?;
        if map.rank != rank {
            let message = format!("{} copies a box of rank {rank}, but the tensor map at {address:#x} has rank {}", self.mnemonic(pc), map.rank);
            return Err(self.fault(FaultKind::Async, w, Some(l), Some(pc), message));
        }
        Ok((map, at))
    }

    /// The box's bytes, once it is checked to be 128-byte aligned at SHARED `shared` (PTX's
    /// rule) and to lie inside the block's shared memory.
    fn check_box(&mut self, w: usize, pc: u32, l: usize, map: &TensorMap, shared: u32) -> Result<u32, Fault> {
        let len = self.region_len(Space::Shared) as u64;
        let end = u64::from(shared) + map.box_bytes();
        if shared.is_multiple_of(128) && end <= len {
            return Ok(map.box_bytes() as u32);
        }
        let why = if shared.is_multiple_of(128) {
            format!("runs to {end:#x}, past the block's {len} bytes of shared memory")
        } else {
            "is not 128-byte aligned".to_string()
        };
        let message = format!("{} copies a box of {} bytes at shared address {shared:#x}, which {why}", self.mnemonic(pc), map.box_bytes());
        let kind = if shared.is_multiple_of(128) { FaultKind::OutOfBounds } else { FaultKind::Misaligned };
        Err(self.fault(kind, w, Some(l), Some(pc), message))
    }

    /// Copies the box at coordinates `at` between the tensor and SHARED `shared`: into shared
    /// memory (elements outside the tensor as zeros), or out of it (`store`: elements outside
    /// the tensor are not written). Row by row: a row's elements inside the tensor are one span
    /// of GLOBAL memory, and its 16-byte chunks each go where the swizzle puts them.
    #[allow(clippy::too_many_arguments)]
    fn copy_box(&mut self, w: usize, pc: u32, l: usize, map: &TensorMap, at: [i64; MAX_RANK], shared: u32, store: bool) -> Result<(), Fault> {
        let elem = u64::from(map.elem.bytes());
        let counts: [u32; MAX_RANK] = std::array::from_fn(|d| map.box_elements(d));
        let row_bytes = counts[0] as usize * elem as usize;
        // Inside shared memory (`check_box`): fewer rows than 2^32.
        let rows: u32 = counts[1..].iter().product();
        let mut row = vec![0u8; row_bytes];
        for r in 0..rows {
            // The row's coordinates in dimensions 1.., and whether it lies inside the tensor.
            let (mut rest, mut offset, mut inside) = (r, 0u64, true);
            for d in 1..MAX_RANK {
                let i = rest % counts[d];
                rest /= counts[d];
                let c = at[d] + i64::from(i) * i64::from(map.element_strides[d]);
                inside &= (0..i64::from(map.dims[d])).contains(&c);
                offset = offset.wrapping_add((c as u64).wrapping_mul(map.strides[d]));
            }
            // The elements of the row inside the tensor: `first .. last`.
            let first = (-at[0]).clamp(0, i64::from(counts[0])) as u64;
            let last = (i64::from(map.dims[0]) - at[0]).clamp(0, i64::from(counts[0])) as u64;
            let span = if inside && first < last { Some((first * elem) as usize..(last * elem) as usize) } else { None };
            let start = map.address.wrapping_add(offset).wrapping_add((at[0] as u64).wrapping_add(first).wrapping_mul(elem));
            let row_at = shared + r * row_bytes as u32;
            if let Some(span) = span.as_ref().filter(|_| self.clock.is_some())
                && let Some(global) = self.launch.memory.global_address(start)
            {
                self.copied.push((global, span.len() as u32));
            }
            if store {
                self.gather_row(row_at, &mut row, map.swizzle.span());
                if let Some(span) = span {
                    self.write_global(w, pc, l, start, &row[span])?;
                }
            } else {
                row.fill(0);
                if let Some(span) = span {
                    self.read_global(w, pc, l, start, &mut row[span])?;
                }
                self.scatter_row(row_at, &row, map.swizzle.span());
            }
        }
        Ok(())
    }

    /// Writes `row` to SHARED `at`, each 16-byte chunk where the swizzle of `span` puts it.
    fn scatter_row(&mut self, at: u32, row: &[u8], span: u32) {
        for (k, chunk) in row.chunks_exact(16).enumerate() {
            let to = tensormap::swizzle(at + 16 * k as u32, span) as usize / 4;
            for (j, word) in chunk.chunks_exact(4).enumerate() {
                self.shared[to + j] = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
            }
        }
    }

    /// Reads the row at SHARED `at` into `row`, each 16-byte chunk from where the swizzle of
    /// `span` put it.
    fn gather_row(&self, at: u32, row: &mut [u8], span: u32) {
        for (k, chunk) in row.chunks_exact_mut(16).enumerate() {
            let from = tensormap::swizzle(at + 16 * k as u32, span) as usize / 4;
            for (j, word) in chunk.chunks_exact_mut(4).enumerate() {
                word.copy_from_slice(&self.shared[from + j].to_le_bytes());
            }
        }
    }

    /// Reads `out.len()` bytes of GLOBAL memory at generic address `address` for lane `l`.
    fn read_global(&mut self, w: usize, pc: u32, l: usize, address: u64, out: &mut [u8]) -> Result<(), Fault> {
        let (index, off) = self.global_span_at(w, pc, l, address, out.len(), false)?;
        let memory = self.launch.memory;
        // Bytes up to a word boundary, whole words, then the bytes left.
        let head = ((4 - off % 4) % 4).min(out.len() as u32) as usize;
        let (first, rest) = out.split_at_mut(head);
        for (k, byte) in first.iter_mut().enumerate() {
            *byte = memory.read(index, off + k as u32, 1) as u8;
        }
        let at = off + head as u32;
        let whole = rest.len() / 4 * 4;
        let (words, tail) = rest.split_at_mut(whole);
        for (k, word) in words.chunks_exact_mut(4).enumerate() {
            word.copy_from_slice(&memory.read(index, at + 4 * k as u32, 4).to_le_bytes());
        }
        let at = at + whole as u32;
        for (k, byte) in tail.iter_mut().enumerate() {
            *byte = memory.read(index, at + k as u32, 1) as u8;
        }
        Ok(())
    }

    /// Writes `bytes` to GLOBAL memory at generic address `address` for lane `l`.
    fn write_global(&mut self, w: usize, pc: u32, l: usize, address: u64, bytes: &[u8]) -> Result<(), Fault> {
        let (index, off) = self.global_span_at(w, pc, l, address, bytes.len(), true)?;
        let memory = self.launch.memory;
        let head = ((4 - off % 4) % 4).min(bytes.len() as u32) as usize;
        let (first, rest) = bytes.split_at(head);
        for (k, &byte) in first.iter().enumerate() {
            memory.write(index, off + k as u32, 1, u32::from(byte));
        }
        let at = off + head as u32;
        let words = rest.chunks_exact(4);
        let tail = words.remainder();
        for (k, word) in words.enumerate() {
            memory.write(index, at + 4 * k as u32, 4, u32::from_le_bytes([word[0], word[1], word[2], word[3]]));
        }
        let at = at + (rest.len() - tail.len()) as u32;
        for (k, &byte) in tail.iter().enumerate() {
            memory.write(index, at + k as u32, 1, u32::from(byte));
        }
        Ok(())
    }

    /// The buffer and offset of `len` bytes of GLOBAL memory at generic address `address`, all
    /// in one buffer; otherwise the fault of the first byte that is not.
    fn global_span_at(&mut self, w: usize, pc: u32, l: usize, address: u64, len: usize, write: bool) -> Result<(usize, u32), Fault> {
        let verb = if write { "writes" } else { "reads" };
        let Some(global) = self.launch.memory.global_address(address).filter(|g| u64::from(*g) + len as u64 <= 1 << 32) else {
            let message = format!("{} {verb} {len} bytes at {address:#018x}, which is not a GLOBAL address", self.mnemonic(pc));
            return Err(self.fault(FaultKind::Unmapped, w, Some(l), Some(pc), message));
        };
        let Loc::Global(index, off) = self.resolve(w, l, pc, Space::Global, global, 1, write)? else {
            return Err(self.fault(FaultKind::Unmapped, w, Some(l), Some(pc), format!("{} {verb} {global:#x}, which no buffer contains", self.mnemonic(pc))));
        };
        let buffer = self.launch.memory.buffer_at(index);
        if u64::from(off) + len as u64 > u64::from(buffer.len) {
            let message = format!(
                "{} {verb} {len} bytes at {global:#x}, past the end of buffer `{}` ({:#x} .. {:#x}, {} bytes)",
                self.mnemonic(pc),
                buffer.name,
                buffer.base,
                buffer.base + buffer.len,
                buffer.len
            );
            return Err(self.fault(FaultKind::OutOfBounds, w, Some(l), Some(pc), message));
        }
        Ok((index, off))
    }
}
