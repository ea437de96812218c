//! Executing one block: its warps interleaved on one SM, its barrier, its
//! shared and local memory, and every instruction's effect on the lanes.
//!
//! Architecture invariant: nothing here allocates per instruction. Lane
//! operations are written as whole-row loops over `[u32; 32]` so they
//! vectorise; [`run_block`] compiles the whole loop twice, once with AVX2+FMA
//! enabled (chosen at run time) and once portable, with identical results
//! since every operation is exactly rounded either way.

use std::sync::atomic::{AtomicU64, Ordering};

use simt_isa::{AtomOp, AtomType, Kernel, MemType, ShflMode, Space, SpecialReg};

use crate::arith;
use crate::fault::{Fault, FaultKind};
use crate::launch::{check_launch, LaunchConfig, RunOptions};
use crate::memory::{words_of, AccessError, GlobalMemory};
use crate::sanitize::{Hazard, Sanitizer};
use crate::translate::*;
use crate::warp::{lanes, Next, Warp};

/// Instructions one warp may issue before the SM turns to its next warp.
const SLICE: u64 = 256;
const SIGN: u32 = 0x8000_0000;

/// A launch ready to run: checked, translated, sharing its memory and step count between blocks.
///
/// [`crate::run`] runs every block; a timing model instead takes blocks with
/// [`Launch::block`] and steps their warps one instruction at a time.
pub struct Launch<'a> {
    kernel: &'a Kernel,
    program: Program,
    memory: &'a GlobalMemory,
    /// The PARAM space as little-endian words, and its length in bytes.
    params: Vec<u32>,
    params_len: usize,
    grid: [u32; 3],
    block: [u32; 3],
    options: &'a RunOptions,
    /// Warp instructions issued by the whole launch so far.
    steps: AtomicU64,
}

impl<'a> Launch<'a> {
    /// Checks and translates a launch.
    ///
    /// # Errors
    /// A [`FaultKind::InvalidLaunch`] fault naming what is impossible.
    pub fn new(kernel: &'a Kernel, config: &'a LaunchConfig, memory: &'a GlobalMemory, options: &'a RunOptions) -> Result<Launch<'a>, Fault> {
        check_launch(kernel, config).map_err(|message| Fault {
            kind: FaultKind::InvalidLaunch,
            message,
            kernel: kernel.name.clone(),
            block: [0; 3],
            thread: None,
            warp: None,
            lane: None,
            pc: None,
            line: None,
            notes: Vec::new(),
            related: Vec::new(),
        })?;
        Ok(Launch {
            kernel,
            program: translate(kernel),
            memory,
            params: words_of(&config.params).collect(),
            params_len: config.params.len(),
            grid: config.grid,
            block: config.block,
            options,
            steps: AtomicU64::new(0),
        })
    }

    /// Blocks in the grid.
    pub fn blocks(&self) -> u64 {
        self.grid.iter().map(|&x| u64::from(x)).product()
    }

    /// Makes block `linear` (x fastest) resident on SM `sm`, ready to step.
    pub fn block(&self, linear: u64, sm: u32) -> BlockSim<'_> {
        BlockSim::new(self, linear, sm, Counters::new(self.kernel.code.len()))
    }
}

/// What one warp did when asked to step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepResult {
    /// It issued one instruction.
    Issued(Step),
    /// It cannot issue until another warp arrives somewhere (see [`BlockSim::sync`]).
    Blocked,
    /// All its threads have exited.
    Done,
}

/// One issued warp instruction. The registers it reads and writes are those of
/// `kernel.code[pc]` (`Instruction::read_regs` / `written_regs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// Program counter.
    pub pc: u32,
    /// Opcode.
    pub opcode: simt_isa::Opcode,
    /// Functional unit.
    pub unit: simt_isa::Unit,
    /// Threads that issued it.
    pub active: u32,
    /// Threads whose guard held.
    pub executed: u32,
    /// For loads, stores and atomics: the space, bytes per lane and each executed lane's address.
    pub access: Option<Access>,
}

/// The memory side of a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// Memory space.
    pub space: Space,
    /// Bytes per lane.
    pub size: u32,
    /// Whether it writes.
    pub write: bool,
    /// Address per lane (meaningful for the `executed` lanes).
    pub addresses: [u32; 32],
}

/// Per-pc counters, summed over the blocks an SM runs.
#[derive(Clone, Debug, Default)]
pub(crate) struct Counters {
    /// Warp issues.
    pub issued: Vec<u64>,
    /// Active lanes summed over issues.
    pub active: Vec<u64>,
    /// Lanes whose guard held, summed over issues.
    pub executed: Vec<u64>,
    /// Issues of a branch whose lanes split.
    pub diverged: Vec<u64>,
    pub warps: u64,
    pub threads: u64,
}

impl Counters {
    pub(crate) fn new(len: usize) -> Counters {
        Counters { issued: vec![0; len], active: vec![0; len], executed: vec![0; len], diverged: vec![0; len], warps: 0, threads: 0 }
    }

    pub(crate) fn add(&mut self, other: &Counters) {
        for (dst, src) in [
            (&mut self.issued, &other.issued),
            (&mut self.active, &other.active),
            (&mut self.executed, &other.executed),
            (&mut self.diverged, &other.diverged),
        ] {
            dst.iter_mut().zip(src).for_each(|(d, s)| *d += s);
        }
        self.warps += other.warps;
        self.threads += other.threads;
    }
}

/// One resident block: its warps, barrier, shared and local memory.
pub struct BlockSim<'a> {
    ctx: &'a Launch<'a>,
    index: [u32; 3],
    sm: u32,
    warps: Vec<Warp>,
    /// SHARED memory as little-endian words.
    shared: Vec<u32>,
    /// Every thread's LOCAL region, `local_stride` bytes apart, as little-endian words.
    local: Vec<u32>,
    buffer_hint: usize,
    counters: Counters,
    /// Shadow state of `--check` racecheck/initcheck/synccheck, when any is on.
    sanitizer: Option<Box<Sanitizer>>,
}

/// What an access does to memory, for the sanitizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AccessKind {
    Read,
    Write,
    Atomic,
}

/// A resolved memory location.
#[derive(Clone, Copy)]
enum Loc {
    Global(usize, u32),
    Bytes(usize),
}

#[inline(always)]
fn modify(row: &mut [u32; 32], m: Modifier) {
    match m {
        Modifier::None => {}
        Modifier::INeg => row.iter_mut().for_each(|x| *x = x.wrapping_neg()),
        Modifier::FNeg => row.iter_mut().for_each(|x| *x ^= SIGN),
        Modifier::FAbs => row.iter_mut().for_each(|x| *x &= !SIGN),
        Modifier::FNegAbs => row.iter_mut().for_each(|x| *x |= SIGN),
    }
}

/// A source row: the register itself when unmodified, else `tmp` filled with the value.
#[inline(always)]
fn src<'w>(w: &'w Warp, v: Val, tmp: &'w mut [u32; 32]) -> &'w [u32; 32] {
    match v {
        Val::Reg(r, Modifier::None) => w.row(r),
        Val::Reg(r, m) => {
            *tmp = *w.row(r);
            modify(tmp, m);
            tmp
        }
        Val::Imm(x) => {
            *tmp = [x; 32];
            tmp
        }
    }
}

/// An owned copy of a source row.
#[inline(always)]
fn fetch(w: &Warp, v: Val) -> [u32; 32] {
    let mut tmp = [0; 32];
    *src(w, v, &mut tmp)
}

/// Builds a 32-lane array; a plain loop so it inlines into the AVX2 copy of the executor.
#[inline(always)]
fn per_lane<T: Copy + Default>(f: impl Fn(usize) -> T) -> [T; 32] {
    let mut out = [T::default(); 32];
    for (l, x) in out.iter_mut().enumerate() {
        *x = f(l);
    }
    out
}

#[inline(always)]
fn fetch64(w: &Warp, v: Val64) -> [u64; 32] {
    match v {
        Val64::Imm(x) => [x; 32],
        Val64::Pair(r, m) => {
            let (lo, mut hi) = (*w.row(r), *w.row(r + 1));
            modify(&mut hi, if m == Modifier::INeg { Modifier::None } else { m });
            per_lane(|l| u64::from(lo[l]) | (u64::from(hi[l]) << 32))
        }
    }
}

/// Writes `vals` into row `d` for the lanes in `mask`, branch-free so it vectorises.
#[inline(always)]
fn write(w: &mut Warp, d: Reg, vals: &[u32; 32], mask: u32) {
    let row = &mut w.regs[usize::from(d)];
    for l in 0..32 {
        let keep = ((mask >> l) & 1).wrapping_sub(1);
        row[l] = (vals[l] & !keep) | (row[l] & keep);
    }
}

#[inline(always)]
fn write64(w: &mut Warp, d: Reg, vals: &[u64; 32], mask: u32) {
    write(w, d, &per_lane(|l| vals[l] as u32), mask);
    write(w, d + 1, &per_lane(|l| (vals[l] >> 32) as u32), mask);
}

#[inline(always)]
fn map1(a: &[u32; 32], f: impl Fn(u32) -> u32) -> [u32; 32] {
    per_lane(|l| f(a[l]))
}

#[inline(always)]
fn map2(a: &[u32; 32], b: &[u32; 32], f: impl Fn(u32, u32) -> u32) -> [u32; 32] {
    per_lane(|l| f(a[l], b[l]))
}

#[inline(always)]
fn map3(a: &[u32; 32], b: &[u32; 32], c: &[u32; 32], f: impl Fn(u32, u32, u32) -> u32) -> [u32; 32] {
    per_lane(|l| f(a[l], b[l], c[l]))
}

#[inline(always)]
fn mask_of(f: impl Fn(usize) -> bool) -> u32 {
    (0..32).fold(0u32, |m, l| m | (u32::from(f(l)) << l))
}

#[inline(always)]
fn pred(w: &Warp, p: PredIn) -> u32 {
    w.preds[usize::from(p.index)] ^ if p.negated { u32::MAX } else { 0 }
}

#[inline(always)]
fn set_pred(w: &mut Warp, p: u8, value: u32, mask: u32) {
    let row = &mut w.preds[usize::from(p)];
    *row = (*row & !mask) | (value & mask);
}

/// Expands `$body` once per listed variant with `$k` bound to that constant,
/// so the per-lane closure is specialised instead of matching in every lane.
macro_rules! specialise {
    ($value:expr, $ty:ident { $($v:ident),+ }, |$k:ident| $body:expr) => {
        match $value { $($ty::$v => { let $k = $ty::$v; $body })+ }
    };
}

fn space_name(space: Space) -> &'static str {
    match space {
        Space::Global => "GLOBAL",
        Space::Shared => "SHARED",
        Space::Local => "LOCAL",
        Space::Param => "PARAM",
    }
}

impl<'a> BlockSim<'a> {
    fn new(ctx: &'a Launch<'a>, linear: u64, sm: u32, mut counters: Counters) -> BlockSim<'a> {
        let [gx, gy, _] = ctx.grid.map(u64::from);
        let index = [(linear % gx) as u32, ((linear / gx) % gy) as u32, (linear / (gx * gy)) as u32];
        let threads = ctx.block.iter().map(|&d| u64::from(d)).product::<u64>() as u32;
        let its = match ctx.options.simt {
            crate::SimtModel::Its => Some(ctx.options.its_yield),
            crate::SimtModel::Stack => None,
        };
        let warps: Vec<Warp> = (0..threads.div_ceil(32))
            .map(|w| {
                let lanes_here = (threads - 32 * w).min(32);
                let valid = if lanes_here == 32 { u32::MAX } else { (1u32 << lanes_here) - 1 };
                Warp::new(ctx.program.rows, valid, its)
            })
            .collect();
        counters.warps += warps.len() as u64;
        counters.threads += u64::from(threads);
        BlockSim {
            ctx,
            index,
            sm,
            warps,
            shared: vec![0; (ctx.kernel.shared_size as usize).div_ceil(4)],
            local: vec![0; local_stride(ctx.kernel) * threads as usize / 4],
            buffer_hint: 0,
            counters,
            sanitizer: ctx.options.checks.any().then(|| {
                Box::new(Sanitizer::new(
                    ctx.options.checks,
                    ctx.options.simt,
                    ctx.kernel.shared_size as usize,
                    local_stride(ctx.kernel) * threads as usize,
                    threads.div_ceil(32) as usize,
                    ctx.program.rows,
                ))
            }),
        }
    }

    fn thread_of(&self, warp: usize, lane: usize) -> [u32; 3] {
        let linear = warp as u32 * 32 + lane as u32;
        let [bx, by, _] = self.ctx.block;
        [linear % bx, (linear / bx) % by, linear / (bx * by)]
    }

    fn fault(&self, kind: FaultKind, warp: usize, lane: Option<usize>, pc: Option<u32>, message: String) -> Fault {
        Fault {
            kind,
            message,
            kernel: self.ctx.kernel.name.clone(),
            block: self.index,
            thread: lane.map(|l| self.thread_of(warp, l)),
            warp: Some(warp as u32),
            lane: lane.map(|l| l as u32),
            pc,
            line: pc.and_then(|pc| self.ctx.kernel.line(pc)),
            notes: Vec::new(),
            related: Vec::new(),
        }
    }

    fn mnemonic(&self, pc: u32) -> String {
        let text = simt_isa::format_instruction(&self.ctx.kernel.code[pc as usize], &simt_isa::Symbols::default());
        let text = text.strip_prefix('@').map_or(text.as_str(), |t| t.split_once(' ').map_or(t, |(_, rest)| rest));
        text.split(' ').next().unwrap_or_default().to_string()
    }

    /// Runs the block to completion.
    #[inline(always)]
    fn run(&mut self) -> Result<(), Fault> {
        loop {
            let mut progressed = false;
            let mut all_done = true;
            for w in 0..self.warps.len() {
                let budget = self.step_budget(w)?;
                let issued = self.run_warp(w, budget)?;
                progressed |= issued > 0;
                all_done &= self.warps[w].live() == 0;
            }
            if all_done {
                return Ok(());
            }
            if self.barrier_complete() {
                self.release_barrier();
            } else if !progressed {
                self.sync()?;
            }
        }
    }

    /// Warps in the block.
    pub fn warp_count(&self) -> usize {
        self.warps.len()
    }

    /// Whether every thread has exited.
    pub fn is_done(&self) -> bool {
        self.warps.iter().all(|w| w.live() == 0)
    }

    /// Issues the next instruction of warp `w`, with the detail a timing model needs.
    ///
    /// # Errors
    /// The fault the instruction raised.
    pub fn step(&mut self, w: usize) -> Result<StepResult, Fault> {
        let code = &self.ctx.program.code;
        match self.warps[w].next(code) {
            Next::Done => Ok(StepResult::Done),
            Next::Blocked => Ok(StepResult::Blocked),
            Next::Issue { pc, mask } => {
                let warp = &self.warps[w];
                let executed = mask & pred(warp, code[pc as usize].guard);
                let access = match code[pc as usize].op {
                    Op::Ld { space, size, addr, .. } => Some((space, size, false, addr)),
                    Op::St { space, size, addr, .. } => Some((space, size, true, addr)),
                    Op::Atom { space, addr, .. } | Op::AtomCas { space, addr, .. } => Some((space, 4, true, addr)),
                    _ => None,
                }
                .map(|(space, size, write, addr)| Access {
                    space,
                    size,
                    write,
                    addresses: warp.row(addr.base).map(|b| b.wrapping_add(addr.offset)),
                });
                let inst = &self.ctx.kernel.code[pc as usize];
                let step = Step { pc, opcode: inst.opcode, unit: inst.info().unit, active: mask, executed, access };
                self.execute(w, pc, mask)?;
                self.ctx.steps.fetch_add(1, Ordering::Relaxed);
                Ok(StepResult::Issued(step))
            }
        }
    }

    /// Call when no warp can issue: completes the block barrier if every thread
    /// arrived, else (under `its`) lets the longest-waiting thread group run.
    ///
    /// # Errors
    /// A deadlock fault when nothing can ever run again.
    pub fn sync(&mut self) -> Result<(), Fault> {
        if self.barrier_complete() {
            self.release_barrier();
            Ok(())
        } else if self.warps.iter_mut().any(Warp::release_longest_waiter) {
            Ok(())
        } else {
            Err(self.deadlock())
        }
    }

    fn step_budget(&self, warp: usize) -> Result<u64, Fault> {
        let used = self.ctx.steps.load(Ordering::Relaxed);
        let max = self.ctx.options.max_steps;
        if used >= max {
            let mut fault = self.fault(
                FaultKind::StepLimit,
                warp,
                None,
                None,
                format!("the launch issued {max} warp instructions, the limit; raise it with --max-steps if the kernel is just long"),
            );
            self.locate_everyone(&mut fault);
            return Err(fault);
        }
        Ok(SLICE.min(max - used))
    }

    fn release_barrier(&mut self) {
        self.warps.iter_mut().for_each(Warp::release_barrier);
        if let Some(s) = &mut self.sanitizer {
            s.barrier();
        }
    }

    fn barrier_complete(&self) -> bool {
        self.warps.iter().any(|w| w.at_barrier() != 0) && self.warps.iter().all(|w| w.at_barrier() == w.live())
    }

    /// Notes where every unfinished thread is; sets the fault's pc to the first one.
    fn locate_everyone(&self, fault: &mut Fault) {
        for (wi, w) in self.warps.iter().enumerate() {
            for (pc, mask, what) in w.whereabouts() {
                let first = mask.trailing_zeros() as usize;
                if fault.pc.is_none() {
                    fault.pc = Some(pc);
                    fault.line = self.ctx.kernel.line(pc);
                    fault.warp = Some(wi as u32);
                    fault.lane = Some(first as u32);
                    fault.thread = Some(self.thread_of(wi, first));
                }
                let line = self.ctx.kernel.line(pc).map_or(String::new(), |l| format!(" (line {l})"));
                fault.notes.push(format!("warp {wi}, {}: {what} at pc {pc}{line}", describe_lanes(mask)));
            }
        }
    }

    fn deadlock(&self) -> Fault {
        let mut fault = self.fault(
            FaultKind::Deadlock,
            0,
            None,
            None,
            "deadlock: every unfinished thread of the block waits for threads that can never arrive".to_string(),
        );
        fault.warp = None;
        self.locate_everyone(&mut fault);
        fault
    }

    #[inline(always)]
    fn run_warp(&mut self, w: usize, budget: u64) -> Result<u64, Fault> {
        let mut issued = 0;
        while issued < budget {
            let Next::Issue { pc, mask } = self.warps[w].next(&self.ctx.program.code) else { break };
            self.execute(w, pc, mask)?;
            issued += 1;
        }
        self.ctx.steps.fetch_add(issued, Ordering::Relaxed);
        Ok(issued)
    }

    #[allow(clippy::too_many_arguments)]
    fn resolve(&mut self, warp: usize, lane: usize, pc: u32, space: Space, addr: u32, size: u32, write: bool) -> Result<Loc, Fault> {
        let verb = if write { "writes" } else { "reads" };
        if !addr.is_multiple_of(size.min(16)) {
            return Err(self.fault(
                FaultKind::Misaligned,
                warp,
                Some(lane),
                Some(pc),
                format!("{} {verb} {size} bytes at {space_lower} address {addr:#x}, which is not {size}-byte aligned", self.mnemonic(pc), space_lower = space_name(space).to_lowercase()),
            ));
        }
        let region = |len: usize, base: usize, what: &str| -> Result<Loc, Fault> {
            if u64::from(addr) + u64::from(size) <= len as u64 {
                Ok(Loc::Bytes(base + addr as usize))
            } else {
                Err(self.fault(
                    FaultKind::OutOfBounds,
                    warp,
                    Some(lane),
                    Some(pc),
                    format!("{} {verb} {size} bytes at {addr:#x}, outside {what} ({len} bytes)", self.mnemonic(pc)),
                ))
            }
        };
        match space {
            Space::Global => match self.ctx.memory.locate(addr, size, &mut self.buffer_hint) {
                Ok((index, off)) => Ok(Loc::Global(index, off)),
                Err(e) => {
                    let op = self.mnemonic(pc);
                    let (kind, message) = match e {
                        AccessError::Null => {
                            (FaultKind::NullAccess, format!("{op} {verb} address {addr:#x}: addresses below 0x100 are never mapped (a null pointer?)"))
                        }
                        AccessError::Unmapped => (FaultKind::Unmapped, format!("{op} {verb} address {addr:#x}, which no buffer contains")),
                        AccessError::OutOfBounds(i) => {
                            let b = self.ctx.memory.buffer_at(i);
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
                        for b in self.ctx.memory.buffers() {
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
            && let Ok(found) = self.ctx.memory.locate(addr, size, &mut self.buffer_hint)
        {
            return Ok(found);
        }
        Err(self.access_fault(w, l, pc, Space::Global, addr, size, write))
    }

    /// Checks every executing lane's SHARED, LOCAL or PARAM access at once.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn check_region(&mut self, w: usize, pc: u32, space: Space, exec: u32, addrs: &[u32; 32], size: u32, write: bool) -> Result<(), Fault> {
        let len = self.region_len(space) as u64;
        let align = size.min(16);
        let bad = exec & mask_of(|l| addrs[l] & (align - 1) != 0 || u64::from(addrs[l]) + u64::from(size) > len);
        if bad == 0 {
            return Ok(());
        }
        let l = bad.trailing_zeros() as usize;
        Err(self.access_fault(w, l, pc, space, addrs[l], size, write))
    }

    /// Bytes one thread may address in a byte-addressed space.
    #[inline(always)]
    fn region_len(&self, space: Space) -> usize {
        match space {
            Space::Shared => self.ctx.kernel.shared_size as usize,
            Space::Local => self.ctx.kernel.local_size as usize,
            _ => self.ctx.params_len,
        }
    }

    /// Bytes between consecutive threads' regions of a byte-addressed space (only LOCAL has one per thread).
    #[inline(always)]
    fn region_stride(&self, space: Space) -> usize {
        if space == Space::Local { local_stride(self.ctx.kernel) } else { 0 }
    }

    /// Where lane `l`'s region of a byte-addressed space starts in `words(space)`, in bytes.
    #[inline(always)]
    fn region_base(&self, space: Space, w: usize, l: usize) -> usize {
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
    fn words(&self, space: Space) -> &[u32] {
        match space {
            Space::Shared => &self.shared,
            Space::Local => &self.local,
            _ => &self.ctx.params,
        }
    }

    /// Atomics exist for GLOBAL and SHARED only; a block's shared memory belongs to one OS thread.
    fn atomic(&mut self, loc: Loc, f: impl Fn(u32) -> u32) -> u32 {
        match loc {
            Loc::Global(i, off) => self.ctx.memory.update(i, off, f),
            Loc::Bytes(at) => {
                let old = self.shared[at / 4];
                self.shared[at / 4] = f(old);
                old
            }
        }
    }

    fn special(&self, w: usize, sr: SpecialReg) -> [u32; 32] {
        let uniform = |v: u32| [v; 32];
        let tid = |axis: usize| per_lane(|l| self.thread_of(w, l)[axis]);
        match sr {
            SpecialReg::TidX => tid(0),
            SpecialReg::TidY => tid(1),
            SpecialReg::TidZ => tid(2),
            SpecialReg::NtidX => uniform(self.ctx.block[0]),
            SpecialReg::NtidY => uniform(self.ctx.block[1]),
            SpecialReg::NtidZ => uniform(self.ctx.block[2]),
            SpecialReg::CtaidX => uniform(self.index[0]),
            SpecialReg::CtaidY => uniform(self.index[1]),
            SpecialReg::CtaidZ => uniform(self.index[2]),
            SpecialReg::NctaidX => uniform(self.ctx.grid[0]),
            SpecialReg::NctaidY => uniform(self.ctx.grid[1]),
            SpecialReg::NctaidZ => uniform(self.ctx.grid[2]),
            SpecialReg::LaneId => per_lane(|l| l as u32),
            SpecialReg::WarpId => uniform(w as u32),
            SpecialReg::SmId => uniform(self.sm),
            SpecialReg::Clock => uniform(self.warps[w].issued as u32),
        }
    }

    /// Issues the instruction at `pc` for the threads in `mask` of warp `w`.
    #[inline(always)]
    fn execute(&mut self, w: usize, pc: u32, mask: u32) -> Result<(), Fault> {
        let inst = self.ctx.program.code[pc as usize];
        let exec = mask & pred(&self.warps[w], inst.guard);
        let at = pc as usize;
        self.counters.issued[at] += 1;
        self.counters.active[at] += u64::from(mask.count_ones());
        self.counters.executed[at] += u64::from(exec.count_ones());
        if self.sanitizer.is_some() {
            self.check_issue(w, pc, mask, exec)?;
        }
        let warp = &mut self.warps[w];
        warp.issued += 1;
        match inst.op {
            Op::Mov { d, a } => {
                let v = fetch(warp, a);
                write(warp, d, &v, exec);
            }
            Op::Mov64 { d, value } => write64(warp, d, &[value; 32], exec),
            Op::S2r { d, sr } => {
                let v = self.special(w, sr);
                write(&mut self.warps[w], d, &v, exec);
            }
            Op::Sel { d, a, b, p } => {
                let (a, b, p) = (fetch(warp, a), fetch(warp, b), pred(warp, p));
                let v = per_lane(|l| if (p >> l) & 1 != 0 { a[l] } else { b[l] });
                write(warp, d, &v, exec);
            }
            Op::Cvt { d, a, wide_src, to, from, neg, abs } => {
                let src = if wide_src {
                    fetch64(warp, a)
                } else {
                    match a {
                        Val64::Pair(r, _) => warp.row(r).map(u64::from),
                        Val64::Imm(x) => [x; 32],
                    }
                };
                let v: [u64; 32] = per_lane(|l| arith::cvt(src[l], from, to, neg, abs));
                if to == simt_isa::CvtType::F64 {
                    write64(warp, d, &v, exec);
                } else {
                    write(warp, d, &v.map(|x| x as u32), exec);
                }
            }
            Op::Pack { d, a, b, bf16 } => {
                let v = map2(&fetch(warp, a), &fetch(warp, b), |x, y| arith::pack(x, y, bf16));
                write(warp, d, &v, exec);
            }
            Op::Int { op, d, a, b } => {
                let (mut ta, mut tb) = ([0; 32], [0; 32]);
                let (a, b) = (src(warp, a, &mut ta), src(warp, b, &mut tb));
                let v = specialise!(op, IntOp { Add, Sub, Mul, MulHiS, MulHiU, MinS, MinU, MaxS, MaxU, And, Or, Xor, Shl, ShrU, ShrS },
                    |k| map2(a, b, |x, y| arith::int_op(k, x, y)));
                write(warp, d, &v, exec);
            }
            Op::Un { op, d, a } => {
                let a = fetch(warp, a);
                let v = specialise!(op, UnOp { Abs, Not, Popc, Clz, Brev }, |k| map1(&a, |x| arith::un_op(k, x)));
                write(warp, d, &v, exec);
            }
            Op::Imad { d, a, b, c } => {
                let (mut ta, mut tb, mut tc) = ([0; 32], [0; 32], [0; 32]);
                let (a, b, c) = (src(warp, a, &mut ta), src(warp, b, &mut tb), src(warp, c, &mut tc));
                let v = map3(a, b, c, |x, y, z| x.wrapping_mul(y).wrapping_add(z));
                write(warp, d, &v, exec);
            }
            Op::Lea { d, a, b, s } => {
                let (mut ta, mut tb, mut ts) = ([0; 32], [0; 32], [0; 32]);
                let (a, b, s) = (src(warp, a, &mut ta), src(warp, b, &mut tb), src(warp, s, &mut ts));
                let v = map3(a, b, s, |x, y, s| arith::shl(x, s).wrapping_add(y));
                write(warp, d, &v, exec);
            }
            Op::Isetp { p, a, b, cmp, signed, bop, q } => {
                let (mut ta, mut tb) = ([0; 32], [0; 32]);
                let (a, b) = (src(warp, a, &mut ta), src(warp, b, &mut tb));
                let c = mask_of(|l| arith::icmp(cmp, signed, a[l], b[l]));
                let v = arith::combine(bop, c, pred(warp, q));
                set_pred(warp, p, v, exec);
            }
            Op::Fsetp { p, a, b, cmp, bop, q } => {
                let (a, b) = (fetch(warp, a), fetch(warp, b));
                let c = mask_of(|l| arith::fcmp(cmp, f64::from(f32::from_bits(a[l])), f64::from(f32::from_bits(b[l]))));
                let v = arith::combine(bop, c, pred(warp, q));
                set_pred(warp, p, v, exec);
            }
            Op::Dsetp { p, a, b, cmp, bop, q } => {
                let (a, b) = (fetch64(warp, a), fetch64(warp, b));
                let c = mask_of(|l| arith::fcmp(cmp, f64::from_bits(a[l]), f64::from_bits(b[l])));
                let v = arith::combine(bop, c, pred(warp, q));
                set_pred(warp, p, v, exec);
            }
            Op::F2 { op, d, a, b, flags } => {
                let (mut ta, mut tb) = ([0; 32], [0; 32]);
                let (a, b) = (src(warp, a, &mut ta), src(warp, b, &mut tb));
                let v = if !flags.ftz && !flags.sat {
                    specialise!(op, FOp { Add, Mul, Min, Max }, |k| map2(a, b, |x, y| arith::f32_op(k, x, y, FFlags::default())))
                } else {
                    map2(a, b, |x, y| arith::f32_op(op, x, y, flags))
                };
                write(warp, d, &v, exec);
            }
            Op::Ffma { d, a, b, c, flags } => {
                let (mut ta, mut tb, mut tc) = ([0; 32], [0; 32], [0; 32]);
                let (a, b, c) = (src(warp, a, &mut ta), src(warp, b, &mut tb), src(warp, c, &mut tc));
                let v = if !flags.ftz && !flags.sat {
                    map3(a, b, c, |x, y, z| arith::ffma(x, y, z, FFlags::default()))
                } else {
                    map3(a, b, c, |x, y, z| arith::ffma(x, y, z, flags))
                };
                write(warp, d, &v, exec);
            }
            Op::FfmaRegs { d, a, b, c } => {
                let v = map3(warp.row(a), warp.row(b), warp.row(c), |x, y, z| arith::ffma(x, y, z, FFlags::default()));
                write(warp, d, &v, exec);
            }
            Op::Mufu { op, d, a } => {
                let v = map1(&fetch(warp, a), |x| arith::mufu(op, x));
                write(warp, d, &v, exec);
            }
            Op::D2 { op, d, a, b } => {
                let (a, b) = (fetch64(warp, a), fetch64(warp, b));
                let v = per_lane(|l| arith::f64_op(op, a[l], b[l]));
                write64(warp, d, &v, exec);
            }
            Op::Dfma { d, a, b, c } => {
                let (a, b, c) = (fetch64(warp, a), fetch64(warp, b), fetch64(warp, c));
                let v = per_lane(|l| arith::dfma(a[l], b[l], c[l]));
                write64(warp, d, &v, exec);
            }
            Op::Ld { space, ty, size, regs, d, addr } => {
                let base = warp.row(addr.base);
                let addrs = per_lane(|l| base[l].wrapping_add(addr.offset));
                let mut rows = [[0u32; 32]; 4];
                let words = usize::from(regs);
                if space == Space::Global {
                    let memory = self.ctx.memory;
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
                } else {
                    self.check_region(w, pc, space, exec, &addrs, size, false)?;
                    if self.sanitizer.is_some() {
                        self.check_accesses(w, pc, space, exec, &addrs, size, AccessKind::Read)?;
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
                }
                match ty {
                    MemType::S8 => rows[0] = rows[0].map(|x| x as u8 as i8 as i32 as u32),
                    MemType::S16 => rows[0] = rows[0].map(|x| x as u16 as i16 as i32 as u32),
                    _ => {}
                }
                let warp = &mut self.warps[w];
                for (k, row) in rows.iter().take(words).enumerate() {
                    write(warp, d + k as Reg, row, exec);
                }
            }
            Op::St { space, size, regs, a, addr } => {
                let base = warp.row(addr.base);
                let addrs = per_lane(|l| base[l].wrapping_add(addr.offset));
                let words = usize::from(regs);
                let mut rows = [[0u32; 32]; 4];
                for (k, row) in rows.iter_mut().take(words).enumerate() {
                    *row = *warp.row(a + k as Reg);
                }
                if space == Space::Global {
                    let memory = self.ctx.memory;
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
                    self.check_region(w, pc, space, exec, &addrs, size, true)?;
                    if self.sanitizer.is_some() {
                        self.check_accesses(w, pc, space, exec, &addrs, size, AccessKind::Write)?;
                    }
                    let stride = self.region_stride(space);
                    let mem = match space {
                        Space::Shared => &mut self.shared,
                        _ => &mut self.local,
                    };
                    // Lane order: a later lane's store to the same address wins.
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
                }
            }
            Op::Atom { space, op, ty, d, addr, b } => {
                let base = *warp.row(addr.base);
                let b = fetch(warp, b);
                let mut old = [0u32; 32];
                if self.sanitizer.is_some() {
                    self.check_accesses(w, pc, space, exec, &base.map(|x| x.wrapping_add(addr.offset)), 4, AccessKind::Atomic)?;
                }
                for l in lanes(exec) {
                    let loc = self.resolve(w, l, pc, space, base[l].wrapping_add(addr.offset), 4, true)?;
                    let x = b[l];
                    old[l] = match (op, ty) {
                        (AtomOp::Add, AtomType::F32) => self.atomic(loc, |m| arith::f32_op(FOp::Add, m, x, FFlags::default())),
                        (AtomOp::Add, _) => self.atomic(loc, |m| m.wrapping_add(x)),
                        (AtomOp::Min, AtomType::S32) => self.atomic(loc, |m| arith::int_op(IntOp::MinS, m, x)),
                        (AtomOp::Min, _) => self.atomic(loc, |m| m.min(x)),
                        (AtomOp::Max, AtomType::S32) => self.atomic(loc, |m| arith::int_op(IntOp::MaxS, m, x)),
                        (AtomOp::Max, _) => self.atomic(loc, |m| m.max(x)),
                        (AtomOp::Exch, _) => self.atomic(loc, |_| x),
                        (AtomOp::And, _) => self.atomic(loc, |m| m & x),
                        (AtomOp::Or, _) => self.atomic(loc, |m| m | x),
                        (AtomOp::Xor, _) => self.atomic(loc, |m| m ^ x),
                    };
                }
                write(&mut self.warps[w], d, &old, exec);
            }
            Op::AtomCas { space, d, addr, b, c } => {
                let base = *warp.row(addr.base);
                let (b, c) = (fetch(warp, b), fetch(warp, c));
                let mut old = [0u32; 32];
                if self.sanitizer.is_some() {
                    self.check_accesses(w, pc, space, exec, &base.map(|x| x.wrapping_add(addr.offset)), 4, AccessKind::Atomic)?;
                }
                for l in lanes(exec) {
                    let loc = self.resolve(w, l, pc, space, base[l].wrapping_add(addr.offset), 4, true)?;
                    let (expected, new) = (b[l], c[l]);
                    old[l] = self.atomic(loc, |m| if m == expected { new } else { m });
                }
                write(&mut self.warps[w], d, &old, exec);
            }
            Op::Membar { global } => {
                if global {
                    std::sync::atomic::fence(Ordering::SeqCst);
                }
            }
            Op::Shfl { mode, d, a, b, width } => {
                let (src, b) = (*warp.row(a), fetch(warp, b));
                let v = per_lane(|lane| src[shfl_source(mode, lane, b[lane], width)]);
                write(warp, d, &v, exec);
            }
            Op::Vote { all, p, q } => {
                let votes = pred(warp, q) & exec;
                let result = if all { votes == mask } else { votes != 0 };
                set_pred(warp, p, if result { u32::MAX } else { 0 }, exec);
            }
            Op::Ballot { d, q } => {
                let votes = pred(warp, q) & exec;
                write(warp, d, &[votes; 32], exec);
            }
            Op::Warpsync | Op::Nop => {}
            Op::Mma { opcode, acc, input, d, a, b, c, e } => {
                self.mma(w, pc, mask, exec, opcode, acc, input, [d, a, b, c, e])?;
            }
            Op::Bra { target, reconv } => {
                if self.warps[w].branch(pc, mask, exec, target, reconv) {
                    self.counters.diverged[at] += 1;
                }
                return Ok(());
            }
            Op::Exit => {
                self.warps[w].exit(mask, exec);
                return Ok(());
            }
            Op::BarSync => {
                if exec == 0 {
                    self.warps[w].advance(mask);
                } else {
                    self.warps[w].arrive_at_barrier(mask, exec);
                }
                return Ok(());
            }
        }
        if self.sanitizer.is_some() {
            self.after_issue(w, pc, exec);
        }
        self.warps[w].advance(mask);
        Ok(())
    }

    /// synccheck and initcheck of registers, before an instruction runs.
    fn check_issue(&mut self, w: usize, pc: u32, mask: u32, exec: u32) -> Result<(), Fault> {
        let Some(s) = &self.sanitizer else { return Ok(()) };
        let op = self.ctx.program.code[pc as usize].op;
        let live = self.warps[w].live();
        if s.checks.synccheck {
            let problem = match op {
                Op::BarSync if mask != live || exec != mask => Some(format!(
                    "synccheck: BAR.SYNC is reached by {} of warp {w} while {} of the warp are elsewhere (a barrier in divergent code)",
                    describe_lanes(exec),
                    describe_lanes(live & !exec)
                )),
                Op::Shfl { mode, b, width, .. } => {
                    // Reading a lane that takes no part (inactive under `stack`, exited) gives a stale value.
                    let mut tb = [0; 32];
                    let b = src(&self.warps[w], b, &mut tb);
                    let stale = exec & mask_of(|l| mask & (1 << shfl_source(mode, l, b[l], width)) == 0);
                    (stale != 0).then(|| {
                        let l = stale.trailing_zeros() as usize;
                        format!(
                            "synccheck: SHFL in {} reads lanes that take no part (lane {l} reads lane {}, which is {})",
                            describe_lanes(stale),
                            shfl_source(mode, l, b[l], width),
                            if live & (1 << shfl_source(mode, l, b[l], width)) == 0 { "exited or missing" } else { "inactive: the warp is diverged" }
                        )
                    })
                }
                _ => None,
            };
            if let Some(message) = problem {
                return Err(self.fault(FaultKind::Divergence, w, Some(exec.trailing_zeros().min(31) as usize), Some(pc), message));
            }
        }
        if s.checks.initcheck {
            let inst = &self.ctx.kernel.code[pc as usize];
            let rows = self.ctx.program.rows - 2;
            for (first, count) in inst.read_regs() {
                if usize::from(first) >= rows {
                    continue;
                }
                if let Some((row, missing)) = s.unwritten(w, usize::from(first), usize::from(count), exec) {
                    let message = format!(
                        "initcheck: R{row} is read by {} before anything wrote it (registers start at 0, but reading one unwritten is usually a bug)",
                        describe_lanes(missing)
                    );
                    return Err(self.fault(FaultKind::Uninitialized, w, Some(missing.trailing_zeros() as usize), Some(pc), message));
                }
            }
        }
        Ok(())
    }

    /// initcheck and racecheck bookkeeping after an instruction ran.
    fn after_issue(&mut self, w: usize, pc: u32, exec: u32) {
        let Some(s) = &mut self.sanitizer else { return };
        let inst = &self.ctx.kernel.code[pc as usize];
        if s.checks.initcheck {
            for (first, count) in inst.written_regs() {
                s.wrote(w, usize::from(first), usize::from(count), exec);
            }
        }
        if inst.opcode.is_warp_collective() {
            s.warp_sync(w);
        }
    }

    /// racecheck and initcheck of the executing lanes' SHARED or LOCAL accesses.
    #[allow(clippy::too_many_arguments)]
    fn check_accesses(&mut self, w: usize, pc: u32, space: Space, exec: u32, addrs: &[u32; 32], size: u32, kind: AccessKind) -> Result<(), Fault> {
        if !matches!(space, Space::Shared | Space::Local) {
            return Ok(());
        }
        let issue = self.warps[w].issued;
        let len = self.region_len(space);
        for l in lanes(exec) {
            if addrs[l] as usize + size as usize > len {
                continue; // memcheck reports it
            }
            let at = self.region_base(space, w, l) + addrs[l] as usize;
            let Some(s) = &mut self.sanitizer else { return Ok(()) };
            let thread = (w * 32 + l) as u32;
            if s.checks.racecheck && space == Space::Shared {
                let now = s.access(thread, w, pc, issue, kind == AccessKind::Atomic);
                if let Err(hazard) = s.shared_access(now, at, size as usize, kind != AccessKind::Read) {
                    return Err(self.race_fault(w, l, pc, addrs[l], kind, hazard));
                }
            }
            let Some(s) = &mut self.sanitizer else { return Ok(()) };
            if s.checks.initcheck {
                if kind != AccessKind::Write && !s.initialised(space, at, size as usize) {
                    let message = format!(
                        "initcheck: {} reads {size} bytes at {} address {:#x} that no thread wrote",
                        self.mnemonic(pc),
                        space_name(space).to_lowercase(),
                        addrs[l]
                    );
                    return Err(self.fault(FaultKind::Uninitialized, w, Some(l), Some(pc), message));
                }
                s.mark_written(space, at, size as usize);
            }
        }
        Ok(())
    }

    fn race_fault(&self, w: usize, l: usize, pc: u32, addr: u32, kind: AccessKind, hazard: Hazard) -> Fault {
        let verb = |k: AccessKind| match k {
            AccessKind::Read => "reads",
            AccessKind::Write => "writes",
            AccessKind::Atomic => "updates",
        };
        let before = hazard.earlier;
        let (bw, bl) = (before.thread as usize / 32, before.thread as usize % 32);
        let [x, y, z] = self.thread_of(bw, bl);
        let sync = match self.ctx.options.simt {
            crate::SimtModel::Its if bw == w => "no BAR.SYNC or WARPSYNC",
            _ => "no BAR.SYNC",
        };
        let earlier_verb = if before.atomic {
            "updated"
        } else if hazard.kind.ends_with("write") {
            "wrote"
        } else {
            "read"
        };
        let message = format!(
            "racecheck: {} hazard on shared address {addr:#x}: this thread {} it, and thread ({x},{y},{z}) {earlier_verb} it at pc {} with {sync} in between",
            hazard.kind,
            verb(kind),
            before.pc
        );
        let mut fault = self.fault(FaultKind::Race, w, Some(l), Some(pc), message);
        if let Some(line) = self.ctx.kernel.line(before.pc) {
            fault.related.push((line, format!("thread ({x},{y},{z}) {earlier_verb} it here")));
        }
        fault
    }

    #[allow(clippy::too_many_arguments)]
    fn mma(
        &mut self,
        w: usize,
        pc: u32,
        mask: u32,
        exec: u32,
        opcode: simt_isa::Opcode,
        acc: simt_isa::MmaAcc,
        input: simt_isa::MmaIn,
        regs: [Reg; 5],
    ) -> Result<(), Fault> {
        let warp = &self.warps[w];
        let missing = !exec;
        if missing != 0 {
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
            return Err(self.fault(
                FaultKind::Tensor,
                w,
                Some(missing.trailing_zeros() as usize),
                Some(pc),
                format!("{} needs all 32 lanes of the warp, but {} {why}", self.mnemonic(pc), describe_lanes(missing)),
            ));
        }
        let inst = &self.ctx.kernel.code[pc as usize];
        let count = |i: usize| usize::from(inst.reg_count(i));
        let rows = |r: Reg, n: usize| -> Vec<[u32; 32]> { warp.regs[usize::from(r)..usize::from(r) + n].to_vec() };
        let (a, b, c) = (rows(regs[1], count(1)), rows(regs[2], count(2)), rows(regs[3], count(3)));
        let e = (opcode == simt_isa::Opcode::MmaSp).then(|| *warp.row(regs[4]));
        let mut d = vec![[0u32; 32]; count(0)];
        if let Err(err) = simt_tensor::mma(opcode, acc, input, &a, &b, &c, e.as_ref(), &mut d) {
            return Err(self.fault(FaultKind::Tensor, w, Some(err.lane as usize), Some(pc), err.message));
        }
        let warp = &mut self.warps[w];
        for (k, row) in d.iter().enumerate() {
            write(warp, regs[0] + k as Reg, row, exec);
        }
        Ok(())
    }
}

/// The lane `lane` reads in a `SHFL`: PTX `shfl.sync`'s rule with segment width `width`.
#[inline(always)]
fn shfl_source(mode: ShflMode, lane: usize, b: u32, width: u32) -> usize {
    let segmask = !(width.wrapping_sub(1)) & 31;
    let c = if mode == ShflMode::Up { 0 } else { width.wrapping_sub(1) & 31 };
    let l = lane as i32;
    let bval = (b & 31) as i32;
    let max_lane = ((lane as u32 & segmask) | (c & !segmask)) as i32;
    let min_lane = (lane as u32 & segmask) as i32;
    let (j, ok) = match mode {
        ShflMode::Up => (l - bval, l - bval >= max_lane),
        ShflMode::Down => (l + bval, l + bval <= max_lane),
        ShflMode::Bfly => (l ^ bval, (l ^ bval) <= max_lane),
        ShflMode::Idx => {
            let j = min_lane | (bval & !(segmask as i32));
            (j, j <= max_lane)
        }
    };
    if ok { j as usize } else { lane }
}

/// Runs `f` for each lane of `mask`; a full warp takes a plain loop the compiler can unroll.
#[inline(always)]
fn for_lanes(mask: u32, mut f: impl FnMut(usize)) {
    if mask == u32::MAX {
        (0..32).for_each(&mut f);
    } else {
        lanes(mask).for_each(f);
    }
}

/// Bytes between two threads' LOCAL regions: the declared size rounded up so
/// every region starts on a 16-byte boundary, as the widest access needs.
fn local_stride(kernel: &Kernel) -> usize {
    (kernel.local_size as usize).next_multiple_of(16)
}

/// "lanes 0-15, 17" style text for a lane mask.
pub(crate) fn describe_lanes(mask: u32) -> String {
    let mut parts = Vec::new();
    let mut l = 0;
    while l < 32 {
        if mask & (1 << l) == 0 {
            l += 1;
            continue;
        }
        let start = l;
        while l < 32 && mask & (1 << l) != 0 {
            l += 1;
        }
        parts.push(if l - 1 == start { format!("{start}") } else { format!("{start}-{}", l - 1) });
    }
    let noun = if mask.count_ones() == 1 { "lane" } else { "lanes" };
    format!("{noun} {}", parts.join(", "))
}

/// Runs one block to completion, with AVX2+FMA code when the CPU has it,
/// adding its counts to `counters`.
pub(crate) fn run_block(ctx: &Launch<'_>, linear: u64, sm: u32, counters: Counters) -> (Counters, Result<(), Fault>) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            // SAFETY: the features were just detected on this CPU.
            return unsafe { run_block_avx2(ctx, linear, sm, counters) };
        }
    }
    let mut block = BlockSim::new(ctx, linear, sm, counters);
    let result = block.run();
    (block.counters, result)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn run_block_avx2(ctx: &Launch<'_>, linear: u64, sm: u32, counters: Counters) -> (Counters, Result<(), Fault>) {
    let mut block = BlockSim::new(ctx, linear, sm, counters);
    let result = block.run();
    (block.counters, result)
}
