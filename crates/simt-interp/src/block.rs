//! One block resident on an SM: its warps, barrier, shared and local memory,
//! and the stepping API a timing model drives one warp instruction at a time.
//!
//! [`crate::run`] runs whole blocks with [`run_block`], compiled twice (AVX2+FMA
//! chosen at run time, and portable) with identical results since every
//! operation is exactly rounded either way. A timing model instead takes
//! blocks with [`Launch::block`] and, each cycle, asks a warp what it would
//! do ([`BlockSim::peek`]), issues it ([`BlockSim::step`]) and, when warps
//! wait for each other, releases them ([`BlockSim::release_barrier`],
//! [`BlockSim::force_progress`]). Whatever order it issues warps in, every
//! warp issues the same instructions with the same masks as in `run`.

use std::sync::atomic::{AtomicU64, Ordering};

use simt_isa::{Effects, Flags, Kernel, LatencyClass, MmaForm, Opcode, Space, SpecialReg, Unit};

use crate::decode::*;
use crate::exec::collective::{CollectiveOp, shfl_source};
use crate::exec::control::ControlOp;
use crate::exec::{describe_lanes, per_lane, pred};
use crate::fault::{Fault, FaultKind, Remedy};
use crate::launch::Launch;
use crate::memory::AccessError;
use crate::sanitize::Sanitizer;
use crate::stats::Counters;
use crate::warp::{BlockReason, Next, Warp, WarpView};

/// Instructions one warp may issue before the SM turns to its next warp.
const SLICE: u64 = 256;

/// Instructions an OS thread of [`crate::run`] issues between adding them to the
/// launch's shared count: with several threads, the launch can pass `--max-steps`
/// by up to this many per thread beyond the first before one of them sees it.
const RUN_STEP_BATCH: u64 = 1 << 14;

/// What a warp would do if stepped now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peek {
    /// It would issue this instruction.
    Issue(Preview),
    /// It cannot issue until something else happens.
    Blocked(BlockReason),
    /// All its threads have exited.
    Done,
}

/// The instruction a warp would issue next, with what a scheduler and a scoreboard need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preview {
    /// Program counter.
    pub pc: u32,
    /// Opcode.
    pub opcode: Opcode,
    /// Functional unit.
    pub unit: Unit,
    /// Latency class.
    pub latency: LatencyClass,
    /// Threads that would issue it.
    pub active: u32,
    /// Of those, threads whose guard holds now.
    pub executed: u32,
    /// Registers and predicates it reads and writes, and its memory access kind and size.
    pub effects: Effects,
}

/// What one warp did when asked to step.
// A step is returned by value once per issued instruction; boxing it would allocate each time.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepResult {
    /// It issued one instruction.
    Issued(Step),
    /// It cannot issue until another warp arrives somewhere or a release happens.
    Blocked(BlockReason),
    /// All its threads have exited.
    Done,
}

/// One issued warp instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The instruction as [`BlockSim::peek`] previewed it: pc, opcode, unit, latency
    /// class, the threads that issued it and those whose guard held, what it reads and writes.
    pub issued: Preview,
    /// For loads, stores and atomics: each executed lane's address.
    pub access: Option<Access>,
    /// For `BRA`: where the threads went.
    pub branch: Option<Branch>,
    /// For `BAR.SYNC`: the threads that arrived (and now wait).
    pub arrived: Option<u32>,
    /// For `SHFL` and `MMA`: the values exchanged between lanes.
    pub exchange: Option<Exchange>,
}

impl Step {
    /// The warp's lanes that had exited (or do not exist) when this issued, given the
    /// lanes live after it: an `EXIT`'s own lanes were still there.
    pub fn gone(&self, live_after: u32) -> u32 {
        !(self.issued.active | live_after)
    }
}

/// The memory side of a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// Memory space.
    pub space: Space,
    /// Load, store or atomic.
    pub kind: simt_isa::AccessKind,
    /// Bytes per lane.
    pub size: u32,
    /// Address per lane (meaningful for the `executed` lanes). For LOCAL, the
    /// physical address in the block's local memory, interleaved as GPUs lay it
    /// out: word `k` of thread `t` is at `4 * (k * threads_per_block + t)`, so
    /// the same offset in consecutive threads is consecutive words.
    pub addresses: [u32; 32],
}

/// Where a branch sent its threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Branch {
    /// Threads that jumped to `target` (the rest fell through).
    pub taken: u32,
    /// The label's pc.
    pub target: u32,
    /// The reconvergence pc of a branch that can diverge.
    pub reconv: Option<u32>,
    /// Whether the issuing threads split between target and fall-through.
    pub diverged: bool,
}

/// Values moved between lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exchange {
    /// `SHFL`: the lane each lane read from.
    Shuffle {
        /// Source lane per lane.
        sources: [u8; 32],
    },
    /// `MMA`: the whole warp's fragments go through the tensor core.
    Mma {
        /// Shape and types (fragment sizes: [`MmaForm::regs`]).
        form: MmaForm,
    },
}

/// One resident block: its warps, barrier, shared and local memory.
pub struct BlockSim<'a> {
    pub(crate) ctx: &'a Launch<'a>,
    index: [u32; 3],
    /// `index` as one number, x fastest.
    pub(crate) linear: u64,
    sm: u32,
    pub(crate) warps: Vec<Warp>,
    /// SHARED memory as little-endian words.
    pub(crate) shared: Vec<u32>,
    /// Every thread's LOCAL region, `local_stride` bytes apart, as little-endian words.
    pub(crate) local: Vec<u32>,
    /// Whether a store reached LOCAL memory since the block started: only then does the
    /// next block need it cleared (clearing untouched pages would make them resident).
    pub(crate) local_dirty: bool,
    /// The GLOBAL buffer each pc touched last: the first guess for its next access.
    pub(crate) buffer_hints: Vec<usize>,
    /// The cycle a timing model says it is (`SR_CLOCK`); `None` in a functional run.
    clock: Option<u64>,
    pub(crate) counters: Counters,
    /// Shadow state of `--check` racecheck/initcheck/synccheck, when any is on.
    pub(crate) sanitizer: Option<Box<Sanitizer>>,
    /// Issued instructions are added to the launch's shared count this many at a time.
    step_batch: u64,
    /// Issued instructions not yet added to it.
    unflushed: u64,
    /// Blocks this `BlockSim` finished that the watched [`Progress`] has not heard of.
    unflushed_blocks: u64,
}

/// A resolved memory location.
#[derive(Clone, Copy)]
pub(crate) enum Loc {
    Global(usize, u32),
    Bytes(usize),
}

impl<'a> BlockSim<'a> {
    pub(crate) fn new(ctx: &'a Launch<'a>, linear: u64, sm: u32, counters: Counters) -> BlockSim<'a> {
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
        let mut block = BlockSim {
            ctx,
            index: [0; 3],
            linear,
            sm,
            warps,
            shared: vec![0; (ctx.kernel.shared_size as usize).div_ceil(4)],
            local: vec![0; local_stride(ctx.kernel) * threads as usize / 4],
            local_dirty: false,
            buffer_hints: vec![0; ctx.program.code.len()],
            clock: None,
            counters,
            sanitizer: None,
            step_batch: 1,
            unflushed: 0,
            unflushed_blocks: 0,
        };
        block.start(linear);
        block
    }

    /// Makes this the fresh state of block `linear`, reusing the allocations of the
    /// block that ran here before (an SM runs its blocks one after another).
    fn start(&mut self, linear: u64) {
        let ctx = self.ctx;
        let [gx, gy, _] = ctx.grid.map(u64::from);
        self.index = [(linear % gx) as u32, ((linear / gx) % gy) as u32, (linear / (gx * gy)) as u32];
        self.linear = linear;
        self.warps.iter_mut().for_each(Warp::reset);
        self.shared.fill(0);
        if std::mem::take(&mut self.local_dirty) {
            self.local.fill(0);
        }
        self.clock = None;
        let threads = ctx.block.iter().map(|&d| u64::from(d)).product::<u64>();
        self.counters.warps += self.warps.len() as u64;
        self.counters.threads += threads;
        if let Some(s) = &mut self.sanitizer {
            s.reset();
            return;
        }
        self.sanitizer = ctx.options.checks.any().then(|| {
            Box::new(Sanitizer::new(
                ctx.options.checks,
                ctx.options.simt,
                ctx.kernel.shared_size as usize,
                local_stride(ctx.kernel) * threads as usize,
                self.warps.len(),
                ctx.program.rows,
            ))
        });
    }

    /// Each lane's thread index in x, y and z, counted up from the warp's first thread
    /// (three divisions per warp instead of three per lane).
    fn thread_indices(&self, warp: usize) -> [[u32; 32]; 3] {
        let [bx, by, _] = self.ctx.block;
        let [mut x, mut y, mut z] = self.thread_of(warp, 0);
        let mut out = [[0u32; 32]; 3];
        for lane in 0..32 {
            let [ox, oy, oz] = &mut out;
            (ox[lane], oy[lane], oz[lane]) = (x, y, z);
            x += 1;
            if x == bx {
                x = 0;
                y += 1;
                if y == by {
                    y = 0;
                    z += 1;
                }
            }
        }
        out
    }

    pub(crate) fn thread_of(&self, warp: usize, lane: usize) -> [u32; 3] {
        let linear = warp as u32 * 32 + lane as u32;
        let [bx, by, _] = self.ctx.block;
        [linear % bx, (linear / bx) % by, linear / (bx * by)]
    }

    pub(crate) fn fault(&self, kind: FaultKind, warp: usize, lane: Option<usize>, pc: Option<u32>, message: String) -> Fault {
        let mut fault = Fault::new(kind, &self.ctx.kernel.name, message);
        fault.block = self.index;
        fault.warp = Some(warp as u32);
        if let Some(l) = lane {
            fault.thread = Some(self.thread_of(warp, l));
            fault.lane = Some(l as u32);
        }
        if let Some(pc) = pc {
            fault.pc = Some(pc);
            fault.line = self.ctx.kernel.line(pc);
        }
        fault
    }

    pub(crate) fn mnemonic(&self, pc: u32) -> String {
        simt_isa::format_mnemonic(&self.ctx.kernel.code[pc as usize].form)
    }

    pub(crate) fn special(&self, w: usize, sr: SpecialReg) -> [u32; 32] {
        let uniform = |v: u32| [v; 32];
        let tid = |axis: usize| self.thread_indices(w)[axis];
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
            SpecialReg::Clock => uniform(self.clock.unwrap_or(self.warps[w].issued) as u32),
        }
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
            if !self.release_barrier() && !progressed {
                self.force_progress()?;
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

    /// The threads of warp `w` that have not exited (lanes past a partial warp's end never exist).
    pub fn live_lanes(&self, w: usize) -> u32 {
        self.warps[w].live()
    }

    /// Warp `w`'s architectural state, for debuggers: one row of 32 lanes per register
    /// (`R0` first) and the masks of `P0` .. `P6`.
    pub fn registers(&self, w: usize) -> (&[[u32; 32]], &[u32]) {
        let warp = &self.warps[w];
        (&warp.regs[..self.ctx.kernel.regs as usize], &warp.preds[..usize::from(crate::decode::PRED_TRUE)])
    }

    /// A copy of warp `w`'s control state (reconvergence stack or thread groups), for debuggers.
    pub fn warp_view(&self, w: usize) -> WarpView {
        self.warps[w].view()
    }

    /// The block's SHARED memory as little-endian words.
    pub fn shared_words(&self) -> &[u32] {
        &self.shared
    }

    /// The block's index in the grid.
    pub fn index(&self) -> [u32; 3] {
        self.index
    }

    /// Sets the cycle `SR_CLOCK` reads from now on (a timing model's cycle counter);
    /// until it is called, `SR_CLOCK` reads the warp's issued-instruction count.
    pub fn set_clock(&mut self, cycle: u64) {
        self.clock = Some(cycle);
    }

    /// The block's statistics counters, to sum over blocks and turn into [`crate::Stats`]
    /// with [`Launch::stats`]; the block counts as done in the watched [`Progress`].
    pub fn into_counters(mut self) -> Counters {
        self.unflushed_blocks += 1;
        self.flush_counts();
        self.counters
    }

    /// Adds stepped instructions to the launch's shared count `n` at a time (at least 1)
    /// instead of one by one: SMs stepped on several threads then do not contend on one
    /// counter per instruction. [`Launch::steps`] lags by up to `n - 1` per block until
    /// [`BlockSim::into_counters`]; the step limit still counts every instruction.
    pub fn batch_steps(&mut self, n: u64) {
        self.step_batch = n.max(1);
    }

    /// What warp `w` would do if stepped now. Asking changes nothing a later
    /// [`BlockSim::step`] will do (under `its` it may settle which thread group goes
    /// next, which stepping would settle the same way).
    pub fn peek(&mut self, w: usize) -> Peek {
        let code = &self.ctx.program.code;
        match self.warps[w].next(code) {
            Next::Done => Peek::Done,
            Next::Blocked(reason) => Peek::Blocked(reason),
            Next::Issue { pc, mask } => {
                let inst = &self.ctx.kernel.code[pc as usize];
                let info = inst.info();
                Peek::Issue(Preview {
                    pc,
                    opcode: inst.opcode(),
                    unit: info.unit,
                    latency: info.latency,
                    active: mask,
                    executed: mask & pred(&self.warps[w], code[pc as usize].guard),
                    effects: self.ctx.program.effects[pc as usize],
                })
            }
        }
    }

    /// Issues the next instruction of warp `w`, with the detail a timing model needs.
    ///
    /// # Errors
    /// The fault the instruction raised, or a step-limit fault once the launch has
    /// issued `max_steps` warp instructions.
    pub fn step(&mut self, w: usize) -> Result<StepResult, Fault> {
        let preview = match self.peek(w) {
            Peek::Done => return Ok(StepResult::Done),
            Peek::Blocked(reason) => return Ok(StepResult::Blocked(reason)),
            Peek::Issue(preview) => preview,
        };
        self.step_budget(w)?;
        let Preview { pc, opcode, active, executed, effects, .. } = preview;
        let decoded = self.ctx.program.code[pc as usize];
        let warp = &self.warps[w];
        let access = effects.access.map(|a| {
            let (space, mut addresses) = match decoded.op {
                Op::Memory(m) => self.lane_addresses(w, pc, &m, executed),
                _ => (a.space, [0; 32]),
            };
            if space == Space::Local {
                let threads = self.warps.len() * 32;
                for (l, x) in addresses.iter_mut().enumerate() {
                    let (word, byte) = (*x as usize / 4, *x as usize % 4);
                    *x = (4 * (word * threads + w * 32 + l) + byte) as u32;
                }
            }
            Access { space, kind: a.kind, size: a.size, addresses }
        });
        let branch = match decoded.op {
            Op::Control(ControlOp::Bra { target, reconv }) => Some(Branch {
                taken: executed,
                target,
                reconv: (reconv != simt_isa::NO_RECONV).then_some(reconv),
                diverged: executed != 0 && executed != active,
            }),
            _ => None,
        };
        let exchange = match decoded.op {
            Op::Collective(CollectiveOp::Shfl { mode, b, width, .. }) => {
                let b = crate::exec::fetch(warp, b);
                Some(Exchange::Shuffle { sources: per_lane(|l| shfl_source(mode, l, b[l], width) as u8) })
            }
            Op::Tensor(_) => self.ctx.kernel.code[pc as usize].form.mma().map(|form| Exchange::Mma { form }),
            _ => None,
        };
        let arrived = opcode.flags().contains(Flags::BARRIER).then_some(executed);
        self.execute_stepped(w, pc, active)?;
        self.count_issued(1);
        Ok(StepResult::Issued(Step { issued: preview, access, branch, arrived, exchange }))
    }

    /// [`BlockSim::execute`] for one stepped instruction, compiled for [`fast_lanes`] where the CPU
    /// has them (as `run_sm` is), so a stepping driver gets fused multiply-adds inline rather
    /// than a library call per lane. Both builds compute the same bits.
    fn execute_stepped(&mut self, w: usize, pc: u32, mask: u32) -> Result<(), Fault> {
        #[cfg(target_arch = "x86_64")]
        {
            if fast_lanes() {
                // SAFETY: the features were just detected on this CPU.
                return unsafe { self.execute_avx2(w, pc, mask) };
            }
        }
        self.execute(w, pc, mask)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma,popcnt,bmi1,bmi2,lzcnt")]
    fn execute_avx2(&mut self, w: usize, pc: u32, mask: u32) -> Result<(), Fault> {
        self.execute(w, pc, mask)
    }

    /// Whether every non-exited thread of the block waits at `BAR.SYNC`, so the barrier can open.
    pub fn barrier_complete(&self) -> bool {
        self.warps.iter().any(|w| w.at_barrier() != 0) && self.warps.iter().all(|w| w.at_barrier() == w.live())
    }

    /// Opens the block barrier if it is complete ([`BlockSim::barrier_complete`]): the
    /// waiting threads move past it. Returns whether it opened; otherwise nothing changes.
    pub fn release_barrier(&mut self) -> bool {
        if !self.barrier_complete() {
            return false;
        }
        self.warps.iter_mut().for_each(Warp::release_barrier);
        if let Some(s) = &mut self.sanitizer {
            s.barrier();
        }
        true
    }

    /// The forward-progress rule of `its`, for when nothing in the block can issue:
    /// the thread group that has waited longest at a reconvergence point runs.
    ///
    /// Precondition: no warp can issue ([`BlockSim::peek`] says `Blocked` or `Done` for
    /// every warp) and the barrier is not complete. When a warp could issue, or the
    /// barrier could open, this returns `Ok(false)` and changes nothing, so a model
    /// that holds a runnable warp back cannot change what issues by calling it early.
    ///
    /// # Errors
    /// A deadlock fault when nothing can ever run again.
    pub fn force_progress(&mut self) -> Result<bool, Fault> {
        if self.barrier_complete() || (0..self.warps.len()).any(|w| matches!(self.peek(w), Peek::Issue(_))) {
            return Ok(false);
        }
        if self.warps.iter_mut().any(Warp::release_longest_waiter) { Ok(true) } else { Err(self.deadlock()) }
    }

    /// How many more instructions warp `warp` may issue before the next check, or the
    /// fault that ends the launch: the step limit, the deadline, or a runaway warp.
    fn step_budget(&self, warp: usize) -> Result<u64, Fault> {
        let options = self.ctx.options;
        let used = self.ctx.steps() + self.unflushed;
        let max = options.max_steps;
        let message = if used >= max {
            Some((FaultKind::StepLimit, format!("the launch issued {max} warp instructions, the limit"), Some(Remedy::MoreSteps)))
        } else if let Some((why, remedy)) = self.out_of_time() {
            Some((FaultKind::TimeLimit, why.to_string(), remedy))
        } else {
            let w = &self.warps[warp];
            let idle = w.issued - w.progress_at;
            (options.runaway_steps != 0 && idle >= options.runaway_steps).then(|| {
                (
                    FaultKind::Runaway,
                    format!("warp {warp} issued {idle} instructions in a row without storing, exiting or reaching a barrier: an endless loop?"),
                    Some(Remedy::MoreRunawaySteps),
                )
            })
        };
        if let Some((kind, message, remedy)) = message {
            let mut fault = self.fault(kind, warp, None, None, message);
            fault.remedy = remedy;
            self.locate_everyone(&mut fault);
            return Err(fault);
        }
        Ok(SLICE.min(max - used))
    }

    /// Why the launch must stop now: its deadline passed or it was interrupted.
    fn out_of_time(&self) -> Option<(&'static str, Option<Remedy>)> {
        if self.ctx.options.deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            Some(("the launch ran out of time", Some(Remedy::MoreTime)))
        } else if self.ctx.cancelled() {
            Some(("the launch was interrupted", None))
        } else {
            None
        }
    }

    /// The time-limit fault, located as [`step`](Self::step) locates it, when the deadline
    /// has passed or the launch was interrupted. For a model that spends long stretches
    /// between issues (the timing engine waiting out latencies), where the checks that
    /// issuing makes do not run.
    pub fn time_limit(&self) -> Option<Fault> {
        let (why, remedy) = self.out_of_time()?;
        let mut fault = self.fault(FaultKind::TimeLimit, 0, None, None, why.to_string());
        fault.remedy = remedy;
        self.locate_everyone(&mut fault);
        Some(fault)
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
        self.count_issued(issued);
        Ok(issued)
    }

    /// Counts `n` issued instructions, adding them to the launch's shared count once
    /// [`BlockSim::batch_steps`] have gathered.
    #[inline(always)]
    fn count_issued(&mut self, n: u64) {
        self.unflushed += n;
        if self.unflushed >= self.step_batch {
            self.flush_counts();
        }
    }

    /// Adds the instructions and finished blocks gathered here to the launch's shared counts.
    fn flush_counts(&mut self) {
        self.ctx.issued(std::mem::take(&mut self.unflushed));
        self.ctx.blocks_finished(std::mem::take(&mut self.unflushed_blocks));
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
                    && let Some(dynamic) = self.ctx.kernel.shared.last().filter(|v| v.len == 0 && addr >= v.offset)
                {
                    fault.remedy = Some(Remedy::DynamicShared(dynamic.name.clone()));
                }
                Err(fault)
            }
        };
        match space {
            Space::Global => match self.ctx.memory.locate(addr, size, &mut self.buffer_hints[pc as usize]) {
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
    pub(crate) fn locate_global(&mut self, w: usize, l: usize, pc: u32, addr: u32, size: u32, write: bool) -> Result<(usize, u32), Fault> {
        // Access sizes are powers of two, so a mask checks alignment without a division.
        if addr & (size.min(16) - 1) == 0
            && let Ok(found) = self.ctx.memory.locate(addr, size, &mut self.buffer_hints[pc as usize])
        {
            return Ok(found);
        }
        Err(self.access_fault(w, l, pc, Space::Global, addr, size, write))
    }

    /// Bytes one thread may address in a byte-addressed space.
    #[inline(always)]
    pub(crate) fn region_len(&self, space: Space) -> usize {
        match space {
            Space::Shared => self.ctx.kernel.shared_size as usize,
            Space::Local => self.ctx.kernel.local_size as usize,
            _ => self.ctx.params_len,
        }
    }

    /// Bytes between consecutive threads' regions of a byte-addressed space (only LOCAL has one per thread).
    #[inline(always)]
    pub(crate) fn region_stride(&self, space: Space) -> usize {
        if space == Space::Local { local_stride(self.ctx.kernel) } else { 0 }
    }

    /// Where lane `l`'s region of a byte-addressed space starts in `words(space)`, in bytes.
    #[inline(always)]
    pub(crate) fn region_base(&self, space: Space, w: usize, l: usize) -> usize {
        (w * 32 + l) * self.region_stride(space)
    }

    #[cold]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn access_fault(&mut self, w: usize, l: usize, pc: u32, space: Space, addr: u32, size: u32, write: bool) -> Fault {
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
            _ => &self.ctx.params,
        }
    }
}

/// Bytes between two threads' LOCAL regions: the declared size rounded up so
/// every region starts on a 16-byte boundary, as the widest access needs.
fn local_stride(kernel: &Kernel) -> usize {
    (kernel.local_size as usize).next_multiple_of(16)
}

/// Runs the blocks `sm, sm + stride, ...` on SM `sm`, one after another in one
/// reused [`BlockSim`], with AVX2+FMA code when the CPU has it. `report` hears
/// each block's outcome; blocks from `stop` on are not started (a lower block
/// has faulted), and the SM stops after its own first fault.
pub(crate) fn run_sm(
    ctx: &Launch<'_>,
    sm: u64,
    stride: u64,
    counters: Counters,
    stop: &AtomicU64,
    report: &(dyn Fn(u64, Result<(), Fault>) + Sync),
) -> Counters {
    #[cfg(target_arch = "x86_64")]
    {
        if fast_lanes() {
            // SAFETY: the features were just detected on this CPU.
            return unsafe { run_sm_avx2(ctx, sm, stride, counters, stop, report) };
        }
    }
    run_sm_portable(ctx, sm, stride, counters, stop, report)
}

/// Whether this CPU has what the executor's x86 copy is compiled for: AVX2 and FMA for
/// the lanes, and POPCNT, BMI and LZCNT for the lane masks (without POPCNT, counting
/// a mask's lanes for the statistics is a dozen instructions, twice per instruction).
#[cfg(target_arch = "x86_64")]
fn fast_lanes() -> bool {
    std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("fma")
        && std::is_x86_feature_detected!("popcnt")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("lzcnt")
}

#[inline(always)]
fn run_sm_portable(ctx: &Launch<'_>, sm: u64, stride: u64, counters: Counters, stop: &AtomicU64, report: &(dyn Fn(u64, Result<(), Fault>) + Sync)) -> Counters {
    let blocks = ctx.blocks();
    if sm >= blocks || sm >= stop.load(Ordering::Relaxed) {
        return counters;
    }
    let mut block = BlockSim::new(ctx, sm, sm as u32, counters);
    // Threads share their counts every RUN_STEP_BATCH instructions, not every warp's turn:
    // one contended counter per block would cost as much as a small block's work.
    block.batch_steps(RUN_STEP_BATCH);
    let mut b = sm;
    loop {
        let result = block.run();
        let faulted = result.is_err();
        block.unflushed_blocks += u64::from(!faulted);
        report(b, result);
        b += stride;
        if faulted || b >= blocks || b >= stop.load(Ordering::Relaxed) {
            block.flush_counts();
            return block.counters;
        }
        block.start(b);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,popcnt,bmi1,bmi2,lzcnt")]
fn run_sm_avx2(ctx: &Launch<'_>, sm: u64, stride: u64, counters: Counters, stop: &AtomicU64, report: &(dyn Fn(u64, Result<(), Fault>) + Sync)) -> Counters {
    run_sm_portable(ctx, sm, stride, counters, stop, report)
}
