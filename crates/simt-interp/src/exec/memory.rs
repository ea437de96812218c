//! Loads, stores and atomics in every space: address checks (memcheck is
//! always on), the sanitizers' view of each access, and the lane-order rules
//! of the contract (a later lane's store wins; atomics apply in lane order).

use std::ops::{BitAnd, BitOr, BitXor, Not};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use simt_isa::*;

use super::{Executor, MemoryWatch};
use super::{describe_lanes, fetch, fetch64, for_lanes, lanes, mask_of, per_lane, write, write64};
use crate::decode::{Address, Addressing, Reg, Val, Val64};
use crate::fault::{Fault, FaultKind, Remedy};
use crate::lanes::{self, DOp, FFlags, FOp, IntOp};
use crate::memory::{AccessError, GlobalMemory};
use crate::warp::Warp;

/// A memory operation with its registers.
#[derive(Clone, Copy, Debug)]
pub(crate) enum MemOp {
    /// `size`: bytes per lane; `regs`: registers per lane.
    Ld {
        space: Space,
        ty: MemType,
        size: u32,
        regs: u8,
        d: Reg,
        addr: Address,
    },
    St {
        space: Space,
        size: u32,
        regs: u8,
        a: Reg,
        addr: Address,
    },
    Atom {
        space: Space,
        op: AtomOp,
        ty: AtomType,
        d: Reg,
        addr: Address,
        b: Val,
    },
    AtomCas {
        space: Space,
        d: Reg,
        addr: Address,
        b: Val,
        c: Val,
    },
    /// The 64-bit types, on register pairs.
    Atom64 {
        space: Space,
        op: AtomOp,
        ty: AtomType,
        d: Reg,
        addr: Address,
        b: Val64,
    },
    AtomCas64 {
        space: Space,
        d: Reg,
        addr: Address,
        b: Val64,
        c: Val64,
    },
    /// `LDGSTS`: `size` bytes from GLOBAL `addr` to SHARED `shared`, the first `n` of them
    /// copied and the rest zeroed.
    CopyAsync {
        size: u32,
        shared: Val,
        n: Val,
        addr: Address,
    },
    /// `LDSM`: SHARED rows of 16 bytes from the first `8 x count` lanes' addresses,
    /// exchanged into a register per matrix.
    Ldsm {
        count: MatrixCount,
        trans: bool,
        d: Reg,
        addr: Address,
    },
    /// `STSM`: a register per matrix, exchanged into SHARED rows of 16 bytes at the first
    /// `8 x count` lanes' addresses.
    Stsm {
        count: MatrixCount,
        trans: bool,
        a: Reg,
        addr: Address,
    },
}

/// A 64-bit access's lanes by space: each lane's offset in its space, and the lanes of
/// each space (indexed by `Space`).
pub(crate) struct Resolved {
    pub offsets: [u32; 32],
    pub spaces: [(Space, u32); 4],
}

impl MemOp {
    /// The space it names (GLOBAL for a generic access), bytes per lane, and whether it is an atomic.
    pub(crate) fn shape(&self) -> (Space, u32, bool) {
        match *self {
            MemOp::Ld { space, size, .. } | MemOp::St { space, size, .. } => (space, size, false),
            MemOp::CopyAsync { size, .. } => (Space::Global, size, false),
            MemOp::Atom { space, ty, .. } => (space, ty.bytes(), true),
            MemOp::AtomCas { space, .. } => (space, 4, true),
            MemOp::Atom64 { space, .. } | MemOp::AtomCas64 { space, .. } => (space, 8, true),
            MemOp::Ldsm { .. } | MemOp::Stsm { .. } => (Space::Shared, 16, false),
        }
    }

    /// How many matrices an `LDSM` or `STSM` moves; `None` for any other access.
    fn matrices(&self) -> Option<MatrixCount> {
        match *self {
            MemOp::Ldsm { count, .. } | MemOp::Stsm { count, .. } => Some(count),
            _ => None,
        }
    }

    /// The lanes whose addresses the memory sees when `exec` lanes of `warp` execute it:
    /// those, but for `LDSM` and `STSM` the lanes that name its rows (the others only
    /// exchange) and for `LDGSTS` those with a source size (the others read nothing).
    #[inline(always)]
    pub(crate) fn touched(&self, exec: u32, warp: &Warp) -> u32 {
        match *self {
            MemOp::Ldsm { count, .. } | MemOp::Stsm { count, .. } if exec != 0 => count.row_lanes(),
            MemOp::CopyAsync { n, .. } => {
                let n = fetch(warp, n);
                exec & mask_of(|l| n[l] != 0)
            }
            _ => exec,
        }
    }

    /// The address operand.
    pub(crate) fn address(&self) -> Address {
        match *self {
            MemOp::Ld { addr, .. }
            | MemOp::St { addr, .. }
            | MemOp::Atom { addr, .. }
            | MemOp::AtomCas { addr, .. }
            | MemOp::Atom64 { addr, .. }
            | MemOp::AtomCas64 { addr, .. }
            | MemOp::CopyAsync { addr, .. }
            | MemOp::Ldsm { addr, .. }
            | MemOp::Stsm { addr, .. } => addr,
        }
    }
}

/// Flushes a subnormal f32 to a zero of the same sign (`ATOM.ADD.F32` does so for inputs and results).
fn flush_subnormal(bits: u32) -> u32 {
    if f32::from_bits(bits).is_subnormal() { bits & 0x8000_0000 } else { bits }
}

/// What an atomic works on: a 32-bit word in one register, or 64 bits in a pair.
trait AtomicWord: Copy + Default + Ord + BitAnd<Output = Self> + BitOr<Output = Self> + BitXor<Output = Self> + Not<Output = Self> {
    const BYTES: u32;
    const ONE: Self;
    fn wrapping_add(self, x: Self) -> Self;
    /// The sum as floats (`ADD.F32` flushing subnormals, `ADD.F64`).
    fn float_add(self, x: Self) -> Self;
    fn signed_min(self, x: Self) -> Self;
    fn signed_max(self, x: Self) -> Self;
    /// Replaces the value at `loc` with `f(old)`, atomically; returns the old value.
    fn update(block: &mut Executor<'_>, loc: Loc, f: impl Fn(Self) -> Self) -> Self;

    /// `op` on type `ty`: memory's value `m` combined with the lane's `x`.
    fn apply(op: AtomOp, ty: AtomType, m: Self, x: Self) -> Self {
        let float = matches!(ty, AtomType::F32 | AtomType::F64);
        let signed = matches!(ty, AtomType::S32 | AtomType::S64);
        match op {
            AtomOp::Add if float => m.float_add(x),
            AtomOp::Add => m.wrapping_add(x),
            AtomOp::Min if signed => m.signed_min(x),
            AtomOp::Min => m.min(x),
            AtomOp::Max if signed => m.signed_max(x),
            AtomOp::Max => m.max(x),
            AtomOp::Exch => x,
            AtomOp::And => m & x,
            AtomOp::Or => m | x,
            AtomOp::Xor => m ^ x,
            // CUDA's atomicInc and atomicDec: a counter that wraps at `x`.
            AtomOp::Inc if m >= x => Self::default(),
            AtomOp::Inc => m.wrapping_add(Self::ONE),
            AtomOp::Dec if m == Self::default() || m > x => x,
            // All ones: minus one.
            AtomOp::Dec => m.wrapping_add(!Self::default()),
        }
    }
}

impl AtomicWord for u32 {
    const BYTES: u32 = 4;
    const ONE: u32 = 1;
    fn wrapping_add(self, x: u32) -> u32 {
        u32::wrapping_add(self, x)
    }
    fn float_add(self, x: u32) -> u32 {
        flush_subnormal(lanes::f32_op(FOp::Add, flush_subnormal(self), flush_subnormal(x), FFlags::default()))
    }
    fn signed_min(self, x: u32) -> u32 {
        lanes::int_op(IntOp::Min(IntType::S32), self, x)
    }
    fn signed_max(self, x: u32) -> u32 {
        lanes::int_op(IntOp::Max(IntType::S32), self, x)
    }
    fn update(block: &mut Executor<'_>, loc: Loc, f: impl Fn(u32) -> u32) -> u32 {
        block.atomic(loc, f)
    }
}

impl AtomicWord for u64 {
    const BYTES: u32 = 8;
    const ONE: u64 = 1;
    fn wrapping_add(self, x: u64) -> u64 {
        u64::wrapping_add(self, x)
    }
    fn float_add(self, x: u64) -> u64 {
        lanes::f64_op(DOp::Add, self, x)
    }
    fn signed_min(self, x: u64) -> u64 {
        (self as i64).min(x as i64) as u64
    }
    fn signed_max(self, x: u64) -> u64 {
        (self as i64).max(x as i64) as u64
    }
    fn update(block: &mut Executor<'_>, loc: Loc, f: impl Fn(u64) -> u64) -> u64 {
        block.atomic64(loc, f)
    }
}

impl<'a> Executor<'a> {
    /// Runs a memory operation on the `exec` lanes of warp `w`, in `watch`'s sight.
    #[inline(always)]
    pub(crate) fn memory(&mut self, w: usize, pc: u32, op: &MemOp, mask: u32, exec: u32, watch: &mut MemoryWatch<'_>) -> Result<(), crate::Fault> {
        if let Some(count) = op.matrices()
            && exec != 0
            && count.row_lanes() & !exec != 0
        {
            let rows = count.row_lanes();
            let needs = format!("{} of the warp (they name its rows)", describe_lanes(rows));
            return Err(self.incomplete_warp(w, pc, mask, rows & !exec, &needs));
        }
        let addrs = self.low_words(w, op);
        if op.address().addressing != Addressing::Narrow && !self.low_words_suffice(w, op, exec, &addrs) {
            return self.memory_wide(w, pc, op, exec, watch);
        }
        self.memory_in(w, pc, op, op.shape().0, exec, &addrs, watch)
    }

    /// Each lane's base register plus the offset: the address of a 32-bit access, the low
    /// words of a 64-bit one.
    #[inline(always)]
    fn low_words(&self, w: usize, op: &MemOp) -> [u32; 32] {
        let addr = op.address();
        let base = self.warps[w].row(addr.base);
        per_lane(|l| base[l].wrapping_add(addr.offset))
    }

    /// Whether a 64-bit access's low words (`addrs`) are its offsets in the space it names:
    /// every executing lane's address below 2^32 (compiled code's global accesses) and no
    /// host memory lent at its own address. A plain loop over all lanes, so it vectorises.
    #[inline(always)]
    fn low_words_suffice(&self, w: usize, op: &MemOp, exec: u32, addrs: &[u32; 32]) -> bool {
        let addr = op.address();
        let warp = &self.warps[w];
        let (base, high) = (warp.row(addr.base), warp.row(addr.high));
        // The high word of base + sign-extended offset: the pair's high word, the offset's
        // sign extension, and the carry out of the low word.
        let extend = ((addr.offset as i32) >> 31) as u32;
        let mut any = 0;
        for l in 0..32 {
            let carry = u32::from(addrs[l] < base[l]);
            any |= high[l].wrapping_add(extend).wrapping_add(carry) & ((exec >> l) & 1).wrapping_neg();
        }
        any == 0 && !self.launch.memory.has_host_windows()
    }

    /// A 64-bit access some lane of which is above 2^32 (a window, lent host memory, or
    /// no region): each lane's address resolved to its space and 32-bit offset, then
    /// the lanes of each space run as one access of that space. Lanes in different spaces
    /// cannot touch the same memory, so the order of the spaces changes no result.
    #[cold]
    #[inline(never)]
    fn memory_wide(&mut self, w: usize, pc: u32, op: &MemOp, exec: u32, watch: &mut MemoryWatch<'_>) -> Result<(), crate::Fault> {
        let resolved = self.resolve_wide(w, pc, op, exec)?;
        for (space, lanes) in resolved.spaces {
            if lanes != 0 {
                self.memory_in(w, pc, op, space, lanes, &resolved.offsets, watch)?;
            }
        }
        Ok(())
    }

    /// Where each executing lane's 64-bit address points: its space and the offset in it.
    /// An address no region has (a high word that is neither 0, a window, nor host memory
    /// lent at its address) is a fault naming the whole address, never its low word.
    fn resolve_wide(&self, w: usize, pc: u32, op: &MemOp, exec: u32) -> Result<Resolved, crate::Fault> {
        let addr = op.address();
        let warp = &self.warps[w];
        let (lo, hi) = (warp.row(addr.base), warp.row(addr.high));
        let offset = i64::from(addr.offset as i32) as u64;
        let full = per_lane(|l| (u64::from(lo[l]) | u64::from(hi[l]) << 32).wrapping_add(offset));
        let (named, _, atomic) = op.shape();
        let mut resolved = Resolved { offsets: [0; 32], spaces: [(Space::Global, 0), (Space::Shared, 0), (Space::Local, 0), (Space::Param, 0)] };
        let memory = self.launch.memory;
        for l in lanes(exec) {
            let a = full[l];
            let place = match addr.addressing {
                // Atomics work on global and shared memory only.
                Addressing::Generic => generic_place(memory, a).filter(|&(space, _)| !(atomic && space == Space::Local)),
                _ if named == Space::Global => memory.global_address(a).map(|g| (Space::Global, g)),
                _ if a >> 32 == 0 => Some((named, a as u32)),
                _ => None,
            };
            let Some((space, offset)) = place else {
                return Err(self.unmapped_wide(w, l, pc, op, a));
            };
            resolved.offsets[l] = offset;
            resolved.spaces[space as usize].1 |= 1 << l;
        }
        Ok(resolved)
    }

    #[cold]
    fn unmapped_wide(&self, w: usize, l: usize, pc: u32, op: &MemOp, addr: u64) -> crate::Fault {
        let verb = if matches!(op, MemOp::Ld { .. }) { "reads" } else { "writes" };
        let (named, _, atomic) = op.shape();
        let generic = op.address().addressing == Addressing::Generic;
        if generic && atomic && addr & !0xFFFF_FFFF == LOCAL_WINDOW {
            let message = format!("{} writes address {addr:#018x}, in the local window: atomics work on global and shared memory only", self.mnemonic(pc));
            return self.fault(crate::FaultKind::Unmapped, w, Some(l), Some(pc), message);
        }
        let regions = match named {
            _ if generic => {
                format!("a generic address is global (high word 0), shared ({SHARED_WINDOW:#018x} + offset) or local ({LOCAL_WINDOW:#018x} + offset)")
            }
            Space::Global => "a global address has high word 0 (every buffer lies below 2^32)".to_string(),
            _ => format!("a 64-bit {} address is its offset, with high word 0 (a generic one goes through GENERIC)", named.name().to_lowercase()),
        };
        let mut fault = self.fault(
            crate::FaultKind::Unmapped,
            w,
            Some(l),
            Some(pc),
            format!("{} {verb} address {addr:#018x}, which no region contains: {regions}", self.mnemonic(pc)),
        );
        for b in self.launch.memory.buffers() {
            fault.notes.push(format!("buffer `{}` is at {:#x} .. {:#x}", b.name, b.base, b.base + b.len));
        }
        fault
    }

    /// The space and lane addresses a stepping driver sees for `op`. A generic access whose
    /// lanes point into several spaces reports the space of its lowest executing lane (the
    /// others' offsets are in their own spaces); an address that faults reports nothing,
    /// and the fault comes when the step executes.
    pub(crate) fn lane_addresses(&self, w: usize, pc: u32, op: &MemOp, exec: u32) -> (Space, [u32; 32]) {
        let addrs = self.low_words(w, op);
        if op.address().addressing == Addressing::Narrow || self.low_words_suffice(w, op, exec, &addrs) {
            return (op.shape().0, addrs);
        }
        match self.resolve_wide(w, pc, op, exec) {
            Ok(r) => {
                let first = r.spaces.iter().find(|(_, lanes)| lanes & exec & exec.wrapping_neg() != 0);
                (first.map_or(op.shape().0, |&(space, _)| space), r.offsets)
            }
            Err(_) => (op.shape().0, [0; 32]),
        }
    }

    /// Runs a memory operation on the `exec` lanes of warp `w`, every one of which
    /// addresses `space` at its offset in `addrs`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn memory_in(
        &mut self,
        w: usize,
        pc: u32,
        op: &MemOp,
        space: Space,
        exec: u32,
        addrs: &[u32; 32],
        watch: &mut MemoryWatch<'_>,
    ) -> Result<(), crate::Fault> {
        let addrs = *addrs;
        if self.launch.options.memory_report && space != Space::Param {
            let physical;
            let seen = if space == Space::Local {
                physical = self.physical_local(w, &addrs);
                &physical
            } else {
                &addrs
            };
            let touched = op.touched(exec, &self.warps[w]);
            watch.efficiency.record(self.launch.program.code.len(), pc, op, space, touched, seen);
        }
        let addr = op.address();
        let warp = &self.warps[w];
        match *op {
            MemOp::Ld { ty, size, regs, d, .. } => {
                let mut rows = [[0u32; 32]; 4];
                let words = usize::from(regs);
                if space == Space::Global {
                    self.load_global(w, pc, exec, &addrs, size, words, &mut rows)?;
                } else if space == Space::Param && size == 4 && exec != 0 && addr.uniform {
                    // A parameter read by the whole warp: one check, one read.
                    let a = addrs[0] as usize;
                    if !a.is_multiple_of(4) || a + 4 > self.launch.params_len {
                        self.check_region(w, pc, space, exec, &addrs, size, false)?;
                    }
                    rows[0] = [self.launch.params[a / 4]; 32];
                } else {
                    self.load_region(w, pc, space, exec, &addrs, size, watch, &mut rows)?;
                }
                match ty {
                    MemType::S8 => rows[0] = rows[0].map(|x| x as u8 as i8 as i32 as u32),
                    MemType::S16 => rows[0] = rows[0].map(|x| x as u16 as i16 as i32 as u32),
                    _ => {}
                }
                let warp = &mut self.warps[w];
                for (k, row) in rows[..words].iter().enumerate() {
                    write(warp, d + k as Reg, row, exec);
                }
            }
            MemOp::St { size, regs, a, .. } => {
                if exec != 0 {
                    self.warps[w].progress_at = self.warps[w].issued;
                }
                let warp = &self.warps[w];
                let words = usize::from(regs);
                let mut rows = [[0u32; 32]; 4];
                for (k, row) in rows.iter_mut().take(words).enumerate() {
                    *row = *warp.row(a + k as Reg);
                }
                if space == Space::Global {
                    let memory = self.launch.memory;
                    if let Some((mem, base)) = self.global_span(pc, exec, &addrs, size) {
                        // Lane order: a later lane's store to the same address wins.
                        for_lanes(exec, |l| {
                            let at = ((addrs[l] - base) / 4) as usize;
                            for (k, row) in rows.iter().take(words).enumerate() {
                                // SAFETY: `global_span` checked that every executing lane's access
                                // lies inside `mem`.
                                unsafe { mem.get_unchecked(at + k) }.store(row[l], Relaxed);
                            }
                        });
                        return Ok(());
                    }
                    for l in lanes(exec) {
                        let (i, off) = self.locate_global(w, l, pc, addrs[l], size, true)?;
                        if size < 4 {
                            memory.write(i, off, size, rows[0][l]);
                        } else {
                            for (k, row) in rows.iter().take(words).enumerate() {
                                memory.write(i, off + 4 * k as u32, 4, row[l]);
                            }
                        }
                    }
                } else {
                    self.store_region(w, pc, space, exec, &addrs, size, (&rows, words), watch)?;
                }
            }
            MemOp::CopyAsync { size, shared, n, .. } => self.copy_async(w, pc, exec, &addrs, size, shared, n, watch)?,
            MemOp::Atom { op, ty, d, b, .. } => {
                let b = fetch(&self.warps[w], b);
                let old = match ty.halves() {
                    None => self.atomics(w, pc, space, exec, &addrs, watch, |m, l| u32::apply(op, ty, m, b[l]), |_, _| true)?,
                    Some(format) if ty.bytes() == 4 => {
                        self.atomics(w, pc, space, exec, &addrs, watch, |m, l| lanes::half_add_pair(format, m, b[l]), |_, _| true)?
                    }
                    Some(format) => self.half_atomics(w, pc, space, exec, &addrs, watch, format, &b)?,
                };
                write(&mut self.warps[w], d, &old, exec);
            }
            MemOp::Atom64 { op, ty, d, b, .. } => {
                let b = fetch64(&self.warps[w], b);
                let old = self.atomics(w, pc, space, exec, &addrs, watch, |m, l| u64::apply(op, ty, m, b[l]), |_, _| true)?;
                write64(&mut self.warps[w], d, &old, exec);
            }
            MemOp::AtomCas { d, b, c, .. } => {
                let (b, c) = (fetch(warp, b), fetch(warp, c));
                let old = self.compare_and_swap(w, pc, space, exec, &addrs, watch, &b, &c)?;
                write(&mut self.warps[w], d, &old, exec);
            }
            MemOp::AtomCas64 { d, b, c, .. } => {
                let (b, c) = (fetch64(&self.warps[w], b), fetch64(&self.warps[w], c));
                let old = self.compare_and_swap(w, pc, space, exec, &addrs, watch, &b, &c)?;
                write64(&mut self.warps[w], d, &old, exec);
            }
            MemOp::Ldsm { count, trans, d, .. } => self.load_matrices(w, pc, exec, &addrs, count, trans, d, watch)?,
            MemOp::Stsm { count, trans, a, .. } => {
                if exec != 0 {
                    self.warps[w].progress_at = self.warps[w].issued;
                }
                let warp = &self.warps[w];
                let mut matrices = [[0u32; 32]; 4];
                for (k, matrix) in matrices.iter_mut().take(usize::from(count.matrices())).enumerate() {
                    *matrix = *warp.row(a + k as Reg);
                }
                let rows = lanes::rows_of_matrices(&matrices, count.matrices(), trans);
                self.store_region(w, pc, Space::Shared, count.row_lanes(), &addrs, 16, (&rows, 4), watch)?;
            }
        }
        Ok(())
    }

    /// `LDSM` for the `exec` lanes, its rows at the addresses of the lanes that name them.
    /// Kept out of line, as `copy_async` is.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn load_matrices(
        &mut self,
        w: usize,
        pc: u32,
        exec: u32,
        addrs: &[u32; 32],
        count: MatrixCount,
        trans: bool,
        d: Reg,
        watch: &mut MemoryWatch<'_>,
    ) -> Result<(), crate::Fault> {
        let mut rows = [[0u32; 32]; 4];
        self.load_region(w, pc, Space::Shared, count.row_lanes(), addrs, 16, watch, &mut rows)?;
        let matrices = lanes::matrices(&rows, count.matrices(), trans);
        let warp = &mut self.warps[w];
        for (k, row) in matrices[..usize::from(count.matrices())].iter().enumerate() {
            write(warp, d + k as Reg, row, exec);
        }
        Ok(())
    }

    /// `LDGSTS` on the `exec` lanes, reading GLOBAL at `addrs`. Lanes copying all their bytes
    /// load them at once; the others word by word, only the words holding some of their first
    /// `n` bytes (masked-off lanes of compiled code pass `n = 0` and any address). Kept out of
    /// line: the loads and stores around it are the hot path.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn copy_async(
        &mut self,
        w: usize,
        pc: u32,
        exec: u32,
        addrs: &[u32; 32],
        size: u32,
        shared: Val,
        n: Val,
        watch: &mut MemoryWatch<'_>,
    ) -> Result<(), crate::Fault> {
        if exec != 0 {
            self.warps[w].progress_at = self.warps[w].issued;
        }
        let warp = &self.warps[w];
        let (to, n) = (fetch(warp, shared), fetch(warp, n));
        let words = (size / 4) as usize;
        let whole = exec & mask_of(|l| n[l] >= size);
        let mut rows = [[0u32; 32]; 4];
        self.load_global(w, pc, whole, addrs, size, words, &mut rows)?;
        let part = exec & !whole;
        for (k, row) in rows.iter_mut().take(words).enumerate() {
            let first = 4 * k as u32;
            let reading = part & mask_of(|l| n[l] > first);
            if reading == 0 {
                break;
            }
            let at = per_lane(|l| addrs[l].wrapping_add(first));
            let mut word = [[0u32; 32]; 4];
            self.load_global(w, pc, reading, &at, 4, 1, &mut word)?;
            let word = word[0];
            for_lanes(reading, |l| row[l] = word[l] & (u32::MAX >> (32 - 8 * (n[l] - first).min(4))));
        }
        self.store_region(w, pc, Space::Shared, exec, &to, size, (&rows, words), watch)
    }

    /// Loads `size` bytes (`words` registers' worth) at each `exec` lane's GLOBAL address:
    /// a register row per word (the low bytes of the first for a sub-word size).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn load_global(&mut self, w: usize, pc: u32, exec: u32, addrs: &[u32; 32], size: u32, words: usize, rows: &mut [[u32; 32]; 4]) -> Result<(), crate::Fault> {
        let memory = self.launch.memory;
        if let Some((mem, base)) = self.global_span(pc, exec, addrs, size) {
            let at = |l: usize| ((addrs[l] - base) / 4) as usize;
            // SAFETY: `global_span` checked that every executing lane's access lies
            // inside `mem`; idle lanes are not read.
            let word = |i: usize| unsafe { mem.get_unchecked(i) }.load(Relaxed);
            if words == 1 {
                for_lanes(exec, |l| rows[0][l] = word(at(l)));
            } else {
                for_lanes(exec, |l| {
                    for (k, row) in rows.iter_mut().take(words).enumerate() {
                        row[l] = word(at(l) + k);
                    }
                });
            }
        } else {
            for l in lanes(exec) {
                let (i, off) = self.locate_global(w, l, pc, addrs[l], size, false)?;
                if size < 4 {
                    rows[0][l] = memory.read(i, off, size);
                } else {
                    for (k, row) in rows.iter_mut().take(words).enumerate() {
                        row[l] = memory.read(i, off + 4 * k as u32, 4);
                    }
                }
            }
        }
        Ok(())
    }

    /// Stores `words` of `rows` (a register row per word; the low bytes of the first for a
    /// sub-word `size`) at each `exec` lane's SHARED or LOCAL address, checked and shown to the
    /// sanitizers. Lane order: a later lane's store to the same address wins.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn store_region(
        &mut self,
        w: usize,
        pc: u32,
        space: Space,
        exec: u32,
        addrs: &[u32; 32],
        size: u32,
        (rows, words): (&[[u32; 32]; 4], usize),
        watch: &mut MemoryWatch<'_>,
    ) -> Result<(), crate::Fault> {
        self.check_region(w, pc, space, exec, addrs, size, true)?;
        if let Some(s) = watch.sanitizer.as_deref_mut() {
            s.check_accesses(self, w, pc, space, exec, addrs, size, AccessKind::Store, &rows[..words]);
        }
        let stride = self.region_stride(space);
        let mem = match space {
            Space::Shared => &mut self.shared,
            _ => {
                self.local_dirty = true;
                &mut self.local
            }
        };
        for l in lanes(exec) {
            let a = (w * 32 + l) * stride + addrs[l] as usize;
            if size >= 4 {
                for (k, row) in rows.iter().take(words).enumerate() {
                    mem[a / 4 + k] = row[l];
                }
            } else {
                let shift = 8 * (a % 4);
                let mask = (u32::MAX >> (32 - 8 * size)) << shift;
                mem[a / 4] = (mem[a / 4] & !mask) | ((rows[0][l] << shift) & mask);
            }
        }
        Ok(())
    }

    /// Loads `size` bytes at each `exec` lane's SHARED, LOCAL or PARAM address, checked and
    /// shown to the sanitizers: a register row per word (the low bytes of the first for a
    /// sub-word size, zero-extended).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn load_region(
        &mut self,
        w: usize,
        pc: u32,
        space: Space,
        exec: u32,
        addrs: &[u32; 32],
        size: u32,
        watch: &mut MemoryWatch<'_>,
        rows: &mut [[u32; 32]; 4],
    ) -> Result<(), crate::Fault> {
        self.check_region(w, pc, space, exec, addrs, size, false)?;
        if let Some(s) = watch.sanitizer.as_deref_mut() {
            s.check_accesses(self, w, pc, space, exec, addrs, size, AccessKind::Load, &[]);
        }
        let mem = self.words(space);
        let stride = self.region_stride(space);
        let at = |l: usize| (w * 32 + l) * stride + addrs[l] as usize;
        match size {
            16 => for_lanes(exec, |l| {
                let v: &[u32; 4] = mem[at(l) / 4..at(l) / 4 + 4].try_into().expect("4 words");
                (rows[0][l], rows[1][l], rows[2][l], rows[3][l]) = (v[0], v[1], v[2], v[3]);
            }),
            8 => for_lanes(exec, |l| (rows[0][l], rows[1][l]) = (mem[at(l) / 4], mem[at(l) / 4 + 1])),
            4 => for_lanes(exec, |l| rows[0][l] = mem[at(l) / 4]),
            _ => for_lanes(exec, |l| {
                let a = at(l);
                rows[0][l] = (mem[a / 4] >> (8 * (a % 4))) & (u32::MAX >> (32 - 8 * size));
            }),
        }
        Ok(())
    }

    /// Applies `apply(memory, lane)` atomically at each executing lane's address, in lane
    /// order; returns the old values. A lane whose `progressed(old, lane)` holds counts as
    /// the warp making progress (for the runaway check).
    #[allow(clippy::too_many_arguments)]
    fn atomics<W: AtomicWord>(
        &mut self,
        w: usize,
        pc: u32,
        space: Space,
        exec: u32,
        addrs: &[u32; 32],
        watch: &mut MemoryWatch<'_>,
        apply: impl Fn(W, usize) -> W,
        progressed: impl Fn(W, usize) -> bool,
    ) -> Result<[W; 32], crate::Fault> {
        self.atomic_lanes(w, pc, space, exec, addrs, watch, W::BYTES, |ex, loc, l| {
            let old = W::update(ex, loc, |m| apply(m, l));
            (old, progressed(old, l))
        })
    }

    /// `ATOM.ADD.F16` or `.BF16` (`format` says which) at each executing lane's 2-byte-aligned
    /// address, in lane order: the half is added into, rounded to nearest even with subnormals
    /// kept (PTX's `.noftz`), as its word's atomic update. Returns the old halves, zero-extended.
    #[allow(clippy::too_many_arguments)]
    fn half_atomics(
        &mut self,
        w: usize,
        pc: u32,
        space: Space,
        exec: u32,
        addrs: &[u32; 32],
        watch: &mut MemoryWatch<'_>,
        format: PackType,
        b: &[u32; 32],
    ) -> Result<[u32; 32], crate::Fault> {
        self.atomic_lanes(w, pc, space, exec, addrs, watch, 2, |ex, loc, l| {
            // Buffers and shared memory start word-aligned: the address says which half.
            let shift = (addrs[l] & 2) * 8;
            let word = ex.atomic(loc, |m| {
                let sum = lanes::half_add_pair(format, m >> shift, b[l]) & 0xFFFF;
                (m & !(0xFFFF << shift)) | sum << shift
            });
            ((word >> shift) & 0xFFFF, true)
        })
    }

    /// Resolves each executing lane's `bytes`-byte atomic access, in lane order, and runs
    /// `one(location, lane)` on it, which gives the old value and whether it was progress.
    #[allow(clippy::too_many_arguments)]
    fn atomic_lanes<T: Copy + Default>(
        &mut self,
        w: usize,
        pc: u32,
        space: Space,
        exec: u32,
        addrs: &[u32; 32],
        watch: &mut MemoryWatch<'_>,
        bytes: u32,
        mut one: impl FnMut(&mut Self, Loc, usize) -> (T, bool),
    ) -> Result<[T; 32], crate::Fault> {
        if let Some(s) = watch.sanitizer.as_deref_mut() {
            s.check_accesses(self, w, pc, space, exec, addrs, bytes, AccessKind::Atomic, &[]);
        }
        let mut old = [T::default(); 32];
        for l in lanes(exec) {
            let loc = self.resolve(w, l, pc, space, addrs[l], bytes, true)?;
            let progressed;
            (old[l], progressed) = one(self, loc, l);
            if progressed {
                self.warps[w].progress_at = self.warps[w].issued;
            }
        }
        Ok(old)
    }

    /// Compare-and-swap at each executing lane's address, in lane order; returns the old
    /// values. A swap changed memory; a failed one did not (a spin), so only a swap is progress.
    #[allow(clippy::too_many_arguments)]
    fn compare_and_swap<W: AtomicWord>(
        &mut self,
        w: usize,
        pc: u32,
        space: Space,
        exec: u32,
        addrs: &[u32; 32],
        watch: &mut MemoryWatch<'_>,
        expected: &[W; 32],
        new: &[W; 32],
    ) -> Result<[W; 32], crate::Fault> {
        self.atomics(w, pc, space, exec, addrs, watch, |m, l| if m == expected[l] { new[l] } else { m }, |old, l| old == expected[l])
    }

    /// For a whole-word access whose executing lanes all fall, aligned, inside one
    /// GLOBAL buffer: that buffer's words and base address, so the lanes need no
    /// search of their own. `None` sends the access down the per-lane path, which
    /// also finds and reports any fault.
    #[inline(always)]
    fn global_span(&mut self, pc: u32, exec: u32, addrs: &[u32; 32], size: u32) -> Option<(&'a [AtomicU32], u32)> {
        if size < 4 || exec == 0 {
            return None;
        }
        // Plain loops over all 32 lanes (idle lanes masked to neutral values) so they
        // vectorise in whichever copy of the executor they are inlined into.
        let (mut lo, mut hi, mut any) = (u32::MAX, 0u32, 0u32);
        for (l, &a) in addrs.iter().enumerate() {
            let on = ((exec >> l) & 1).wrapping_neg();
            lo = lo.min(a | !on);
            hi = hi.max(a & on);
            any |= a & on;
        }
        if any & (size.min(16) - 1) != 0 {
            return None;
        }
        let memory: &'a GlobalMemory = self.launch.memory;
        memory.span(lo, u64::from(hi) + u64::from(size), &mut self.buffer_hints[pc as usize])
    }

    /// Checks every executing lane's SHARED, LOCAL or PARAM access at once.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn check_region(&mut self, w: usize, pc: u32, space: Space, exec: u32, addrs: &[u32; 32], size: u32, write: bool) -> Result<(), crate::Fault> {
        let len = self.region_len(space) as u64;
        let align = size.min(16);
        let bad = exec & mask_of(|l| addrs[l] & (align - 1) != 0 || u64::from(addrs[l]) + u64::from(size) > len);
        if bad == 0 {
            return Ok(());
        }
        let l = bad.trailing_zeros() as usize;
        Err(self.access_fault(w, l, pc, space, addrs[l], size, write))
    }

    /// A 64-bit atomic on an 8-byte-aligned location, low word first.
    fn atomic64(&mut self, loc: Loc, f: impl Fn(u64) -> u64) -> u64 {
        match loc {
            Loc::Global(i, off) => self.launch.memory.update64(i, off, f),
            Loc::Bytes(at) => {
                let old = u64::from(self.shared[at / 4]) | u64::from(self.shared[at / 4 + 1]) << 32;
                let new = f(old);
                self.shared[at / 4] = new as u32;
                self.shared[at / 4 + 1] = (new >> 32) as u32;
                old
            }
        }
    }

    /// Atomics exist for GLOBAL and SHARED only; a block's shared memory belongs to one OS thread.
    fn atomic(&mut self, loc: Loc, f: impl Fn(u32) -> u32) -> u32 {
        match loc {
            Loc::Global(i, off) => self.launch.memory.update(i, off, f),
            Loc::Bytes(at) => {
                let old = self.shared[at / 4];
                self.shared[at / 4] = f(old);
                old
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn resolve(&mut self, warp: usize, lane: usize, pc: u32, space: Space, addr: u32, size: u32, write: bool) -> Result<Loc, Fault> {
        let verb = if write { "writes" } else { "reads" };
        if !addr.is_multiple_of(size.min(16)) {
            return Err(self.fault(
                FaultKind::Misaligned,
                warp,
                Some(lane),
                Some(pc),
                format!(
                    "{} {verb} {size} bytes at {space_lower} address {addr:#x}, which is not {size}-byte aligned",
                    self.mnemonic(pc),
                    space_lower = space.name().to_lowercase()
                ),
            ));
        }
        let region = |len: usize, base: usize, what: &str| -> Result<Loc, Fault> {
            if u64::from(addr) + u64::from(size) <= len as u64 {
                Ok(Loc::Bytes(base + addr as usize))
            } else {
                let mut fault = self.fault(
                    FaultKind::OutOfBounds,
                    warp,
                    Some(lane),
                    Some(pc),
                    format!("{} {verb} {size} bytes at {addr:#x}, outside {what} ({len} bytes)", self.mnemonic(pc)),
                );
                // A PTX `.extern .shared` array is a zero-length variable at the end: its size comes with the launch.
                if space == Space::Shared
                    && let Some(dynamic) = self.launch.kernel.shared.last().filter(|v| v.len == 0 && addr >= v.offset)
                {
                    fault.remedy = Some(Remedy::DynamicShared(dynamic.name.clone()));
                }
                Err(fault)
            }
        };
        match space {
            Space::Global => match self.launch.memory.locate(addr, size, &mut self.buffer_hints[pc as usize]) {
                Ok((index, off)) => Ok(Loc::Global(index, off)),
                Err(e) => {
                    let op = self.mnemonic(pc);
                    let (kind, message) = match e {
                        AccessError::Null => {
                            (FaultKind::NullAccess, format!("{op} {verb} address {addr:#x}: addresses below 0x100 are never mapped (a null pointer?)"))
                        }
                        AccessError::Unmapped => (FaultKind::Unmapped, format!("{op} {verb} address {addr:#x}, which no buffer contains")),
                        AccessError::OutOfBounds(i) => {
                            let b = self.launch.memory.buffer_at(i);
                            (
                                FaultKind::OutOfBounds,
                                format!(
                                    "{op} {verb} {size} bytes at {addr:#x}, past the end of buffer `{}` ({:#x} .. {:#x}, {} bytes)",
                                    b.name,
                                    b.base,
                                    b.base + b.len,
                                    b.len
                                ),
                            )
                        }
                    };
                    let mut fault = self.fault(kind, warp, Some(lane), Some(pc), message);
                    if kind != FaultKind::OutOfBounds {
                        for b in self.launch.memory.buffers() {
                            fault.notes.push(format!("buffer `{}` is at {:#x} .. {:#x}", b.name, b.base, b.base + b.len));
                        }
                    }
                    Err(fault)
                }
            },
            Space::Shared => region(self.region_len(space), 0, "the block's shared memory"),
            Space::Local => region(self.region_len(space), self.region_base(space, warp, lane), "the thread's local memory"),
            Space::Param => region(self.region_len(space), 0, "the parameters"),
        }
    }

    /// The GLOBAL buffer and offset of an access, or the fault that names what is wrong.
    #[inline(always)]
    fn locate_global(&mut self, w: usize, l: usize, pc: u32, addr: u32, size: u32, write: bool) -> Result<(usize, u32), Fault> {
        // Access sizes are powers of two, so a mask checks alignment without a division.
        if addr & (size.min(16) - 1) == 0
            && let Ok(found) = self.launch.memory.locate(addr, size, &mut self.buffer_hints[pc as usize])
        {
            return Ok(found);
        }
        Err(self.access_fault(w, l, pc, Space::Global, addr, size, write))
    }

    /// Bytes one thread may address in a byte-addressed space.
    #[inline(always)]
    pub(crate) fn region_len(&self, space: Space) -> usize {
        match space {
            Space::Shared => self.launch.kernel.shared_size as usize,
            Space::Local => self.launch.kernel.local_size as usize,
            _ => self.launch.params_len,
        }
    }

    /// Bytes between consecutive threads' regions of a byte-addressed space (only LOCAL has one per thread).
    #[inline(always)]
    fn region_stride(&self, space: Space) -> usize {
        if space == Space::Local { local_stride(self.launch.kernel) } else { 0 }
    }

    /// Where lane `l`'s region of a byte-addressed space starts in `words(space)`, in bytes.
    #[inline(always)]
    pub(crate) fn region_base(&self, space: Space, w: usize, l: usize) -> usize {
        (w * 32 + l) * self.region_stride(space)
    }

    #[cold]
    #[allow(clippy::too_many_arguments)]
    fn access_fault(&mut self, w: usize, l: usize, pc: u32, space: Space, addr: u32, size: u32, write: bool) -> Fault {
        match self.resolve(w, l, pc, space, addr, size, write) {
            Err(fault) => fault,
            Ok(_) => self.fault(FaultKind::Unmapped, w, Some(l), Some(pc), format!("{} could not access {addr:#x}", self.mnemonic(pc))),
        }
    }

    /// The words of a byte-addressed space (LOCAL holds every thread's region).
    pub(crate) fn words(&self, space: Space) -> &[u32] {
        match space {
            Space::Shared => &self.shared,
            Space::Local => &self.local,
            _ => &self.launch.params,
        }
    }

    /// Lane addresses of a LOCAL access as physical addresses in the block's local memory,
    /// interleaved as GPUs lay it out (see [`crate::Access::addresses`]).
    #[inline(always)]
    pub(crate) fn physical_local(&self, w: usize, addrs: &[u32; 32]) -> [u32; 32] {
        let threads = self.warps.len() * 32;
        per_lane(|l| {
            let (word, byte) = (addrs[l] as usize / 4, addrs[l] as usize % 4);
            (4 * (word * threads + w * 32 + l) + byte) as u32
        })
    }
}

/// The space and offset generic address `a` names: the shared or local window by its high
/// word, else GLOBAL memory (a buffer below 2^32, or host memory lent at its own address).
pub(crate) fn generic_place(memory: &GlobalMemory, a: u64) -> Option<(Space, u32)> {
    match a & !0xFFFF_FFFF {
        SHARED_WINDOW => Some((Space::Shared, a as u32)),
        LOCAL_WINDOW => Some((Space::Local, a as u32)),
        _ => memory.global_address(a).map(|g| (Space::Global, g)),
    }
}

/// A resolved memory location.
#[derive(Clone, Copy)]
pub(crate) enum Loc {
    Global(usize, u32),
    Bytes(usize),
}

/// Bytes between two threads' LOCAL regions: the declared size rounded up so
/// every region starts on a 16-byte boundary, as the widest access needs.
pub(crate) fn local_stride(kernel: &Kernel) -> usize {
    (kernel.local_size as usize).next_multiple_of(16)
}
