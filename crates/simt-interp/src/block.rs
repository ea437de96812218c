//! One block resident on an SM, and the stepping API a timing model drives one
//! warp instruction at a time.
//!
//! [`BlockSim`] composes three owners and lends each to the others explicitly:
//! the executor (`exec/`: warps, shared and local memory, where the block runs),
//! the statistics [`Counters`] (per-pc counts and the memory-efficiency report of
//! `exec/efficiency.rs`) and the sanitizers (`sanitize.rs`: shadow state and
//! findings). Here live what needs all of them: running a block, the step budget
//! and its faults, barriers, and handing the counters back.
//!
//! [`crate::run`] runs whole blocks with [`run_sm`], compiled twice (AVX2+FMA
//! chosen at run time, and portable) with identical results since every
//! operation is exactly rounded either way. A timing model instead takes
//! blocks with [`Launch::block`] and, each cycle, asks a warp what it would
//! do ([`BlockSim::peek`]), issues it ([`BlockSim::step`]) and, when warps
//! wait for each other, releases them ([`BlockSim::release_barrier`],
//! [`BlockSim::force_progress`]). Whatever order it issues warps in, every
//! warp issues the same instructions with the same masks as in `run`.

use std::sync::atomic::{AtomicU64, Ordering};

use simt_isa::{LatencyClass, MmaForm, Opcode, Space, Unit};

use crate::decode::*;
use crate::exec::Executor;
use crate::exec::collective::{CollectiveOp, shfl_source};
use crate::exec::control::ControlOp;
use crate::exec::memory::local_stride;
use crate::exec::{describe_lanes, per_lane, pred};
use crate::fault::{Fault, FaultKind, Remedy};
use crate::launch::Launch;
use crate::sanitize::Sanitizer;
use crate::stats::Counters;
use crate::warp::{BlockReason, FailedTest, Next, Warp, WarpView};

/// Instructions one warp may issue before the SM turns to its next warp.
const SLICE: u64 = 256;

/// Why a launch stops before a warp's next instruction.
enum Stop {
    Steps,
    Time(&'static str, Option<Remedy>),
    /// The warp issued this many instructions without progress.
    Runaway(u64),
    /// Every warp of the block tests mbarriers in a loop, and none makes progress.
    MbarrierWait,
}

/// Instructions every warp of a block may issue without progress while it tests an mbarrier in
/// a loop before the block counts as deadlocked: nothing but progress (a store, an arrival, an
/// exit) changes an mbarrier, so such a wait never ends. Far below the runaway bound, so a wait
/// for an arrival that never comes is reported in a fraction of a second, not minutes.
const MBARRIER_WAIT_STEPS: u64 = 1 << 20;

/// How recently a warp must have failed an `MBAR.TEST` to count as looping on it: a wait loop's
/// body (libcu++'s back-off included) is a few instructions.
const MBARRIER_WAIT_LOOP: u64 = 256;

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
    /// For `BAR.SYNC` and `BAR.RED`: the threads that arrived (and now wait).
    pub arrived: Option<u32>,
    /// Whether it completed a counted barrier (`BAR.SYNC a, b`, `BAR.ARRIVE a, b`), so other
    /// warps' threads that waited there can issue again.
    pub opened: bool,
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
    /// The lanes whose addresses the memory sees: the executed ones, or for `LDSM` the
    /// lanes that name its rows (16 bytes each; every lane receives a word per matrix).
    pub lanes: u32,
    /// Address per lane (meaningful for `lanes`). For LOCAL, the
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
    /// `TMA`: a box moved between GLOBAL and SHARED memory; [`BlockSim::copied`] has the
    /// GLOBAL spans.
    TensorCopy {
        /// Whether it wrote GLOBAL memory rather than read it.
        store: bool,
        /// The SHARED address of the mbarrier a load completes its bytes on (the first
        /// executing lane's).
        barrier: u32,
    },
    /// `TCMMA`: the executing lanes' MMAs into tensor memory, which the SM's tensor cores
    /// run one after another while the warp goes on.
    Tcmma {
        /// Multiply-accumulates of all of them (M x N x K each, from their instruction descriptors).
        macs: u64,
        /// The SHARED bytes they read: B's, and A's where it is there.
        shared_bytes: u64,
    },
    /// `MMA` or `WGMMA`: the whole warp's fragments go through the tensor core.
    Mma {
        /// Shape and types (fragment sizes: [`MmaForm::regs`]); a `WGMMA`'s are its slices'.
        form: MmaForm,
        /// Multiply-accumulates of the equivalent dense product (`simt_tensor::macs`).
        macs: u64,
    },
}

/// One resident block: the executor's state (warps, barrier, shared and local memory),
/// the counters and sanitizers that watch it, and the stepping API over them.
pub struct BlockSim<'a> {
    exec: Executor<'a>,
    counters: Counters,
    /// Shadow state and findings of `--check` racecheck/initcheck/synccheck, when any is on.
    sanitizer: Option<Box<Sanitizer>>,
    /// Issued instructions are added to the launch's shared count this many at a time.
    step_batch: u64,
    /// Issued instructions not yet added to it.
    unflushed: u64,
    /// Blocks this `BlockSim` finished that the watched [`crate::Progress`] has not heard of.
    unflushed_blocks: u64,
    /// Per warp, what [`peek`](Self::peek) last found it would issue, until the warp changes:
    /// a stepping driver peeks each warp after it issues and again when it steps it.
    previews: Vec<Option<Preview>>,
    /// The executor's count of opened counted barriers when this last looked.
    opened_seen: u32,
}

impl<'a> BlockSim<'a> {
    pub(crate) fn new(launch: &'a Launch<'a>, linear: u64, sm: u32, counters: Counters) -> BlockSim<'a> {
        let mut block = BlockSim {
            exec: Executor::new(launch, sm),
            counters,
            sanitizer: None,
            step_batch: 1,
            unflushed: 0,
            unflushed_blocks: 0,
            previews: Vec::new(),
            opened_seen: 0,
        };
        block.restart(linear);
        block
    }

    /// Makes this the fresh state of block `linear`, reusing the allocations of the
    /// block that ran here before (an SM runs its blocks one after another; a stepping
    /// driver [`retire`](Self::retire)s each first).
    pub fn restart(&mut self, linear: u64) {
        self.exec.start(linear);
        self.opened_seen = 0;
        self.forget_previews();
        let launch = self.exec.launch;
        let threads = launch.threads_per_block();
        self.counters.warps += self.exec.warps.len() as u64;
        self.counters.threads += u64::from(threads);
        if let Some(s) = &mut self.sanitizer {
            s.reset();
            return;
        }
        self.sanitizer = launch.options.checks.any().then(|| {
            Box::new(Sanitizer::new(
                launch.options.checks,
                launch.options.simt,
                launch.kernel.shared_size as usize,
                local_stride(launch.kernel) * threads as usize,
                self.exec.warps.len(),
                launch.program.rows,
            ))
        });
    }

    /// Issues the instruction at `pc` for the threads in `mask` of warp `w`, in sight of
    /// the counters and the sanitizers.
    #[inline(always)]
    fn execute(&mut self, w: usize, pc: u32, mask: u32) -> Result<(), Fault> {
        self.exec.execute(w, pc, mask, &mut self.counters, self.sanitizer.as_deref_mut())
    }

    /// Runs the block to completion.
    #[inline(always)]
    fn run(&mut self) -> Result<(), Fault> {
        loop {
            let mut progressed = false;
            let mut all_done = true;
            for w in 0..self.exec.warps.len() {
                let budget = self.step_budget(w)?;
                let issued = self.run_warp(w, budget)?;
                progressed |= issued > 0;
                all_done &= self.exec.warps[w].live() == 0;
            }
            if all_done {
                return Ok(());
            }
            if !self.release_barrier() && !progressed {
                self.force_progress()?;
            }
        }
    }

    /// The GLOBAL spans, (address, bytes), the last `TMA` step moved (under [`Self::set_clock`]).
    pub fn copied(&self) -> &[(u32, u32)] {
        &self.exec.copied
    }

    /// Warps in the block.
    pub fn warp_count(&self) -> usize {
        self.exec.warps.len()
    }

    /// Whether every thread has exited.
    pub fn is_done(&self) -> bool {
        self.exec.warps.iter().all(|w| w.live() == 0)
    }

    /// The threads of warp `w` that have not exited (lanes past a partial warp's end never exist).
    pub fn live_lanes(&self, w: usize) -> u32 {
        self.exec.warps[w].live()
    }

    /// Warp `w`'s architectural state, for debuggers: one row of 32 lanes per register
    /// (`R0` first) and the masks of `P0` .. `P6`.
    pub fn registers(&self, w: usize) -> (&[[u32; 32]], &[u32]) {
        let warp = &self.exec.warps[w];
        (&warp.regs[..self.exec.launch.kernel.regs as usize], &warp.preds[..usize::from(crate::decode::PRED_TRUE)])
    }

    /// A copy of warp `w`'s control state (reconvergence stack or thread groups), for debuggers.
    pub fn warp_view(&self, w: usize) -> WarpView {
        self.exec.warps[w].view()
    }

    /// The block's SHARED memory as little-endian words.
    pub fn shared_words(&self) -> &[u32] {
        &self.exec.shared
    }

    /// The block's tensor memory (`TMEM`): its allocations, (first column, columns) each, and
    /// its cells, 512 a lane (none before the launch's first allocation).
    pub fn tensor_memory(&self) -> (&[(u32, u32)], &[u32]) {
        self.exec.tmem.view()
    }

    /// The block's index in the grid.
    pub fn index(&self) -> [u32; 3] {
        self.exec.index
    }

    /// Sets the cycle `SR_CLOCK` reads from now on (a timing model's cycle counter);
    /// until it is called, `SR_CLOCK` reads the warp's issued-instruction count.
    pub fn set_clock(&mut self, cycle: u64) {
        self.exec.clock = Some(cycle);
    }

    /// The block's statistics counters, to sum over blocks and turn into [`crate::Stats`]
    /// with [`Launch::stats`]; the block counts as done in the watched [`crate::Progress`].
    pub fn into_counters(mut self) -> Counters {
        self.retire();
        self.counters
    }

    /// The block has finished: the watched [`crate::Progress`] hears of it, and its
    /// sanitizers' findings join the counters. The `BlockSim` may then [`restart`](Self::restart)
    /// as another block, its counters adding up over both.
    pub fn retire(&mut self) {
        self.unflushed_blocks += 1;
        self.settle();
    }

    /// The counters of the blocks run here; complete once each was [`retire`](Self::retire)d.
    pub fn counters(&self) -> &Counters {
        &self.counters
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
        if let Some(preview) = self.previews[w] {
            return Peek::Issue(preview);
        }
        let code = &self.exec.launch.program.code;
        match self.exec.warps[w].next(code) {
            Next::Done => Peek::Done,
            Next::Blocked(reason) => Peek::Blocked(reason),
            Next::Issue { pc, mask } => {
                let inst = &self.exec.launch.kernel.code[pc as usize];
                let info = inst.info();
                let preview = Preview {
                    pc,
                    opcode: inst.opcode(),
                    unit: info.unit,
                    latency: info.latency,
                    active: mask,
                    executed: mask & pred(&self.exec.warps[w], code[pc as usize].guard),
                };
                self.previews[w] = Some(preview);
                Peek::Issue(preview)
            }
        }
    }

    /// Every warp may have changed (a barrier opened, a waiting group was released, a new block).
    fn forget_previews(&mut self) {
        self.previews.clear();
        self.previews.resize(self.exec.warps.len(), None);
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
        let Preview { pc, opcode, active, executed, .. } = preview;
        let program = &self.exec.launch.program;
        let decoded = &program.code[pc as usize];
        let warp = &self.exec.warps[w];
        let access = program.effects[pc as usize].access.map(|a| {
            let (space, mut addresses, lanes, size) = match &decoded.op {
                Op::Memory(m) => {
                    let (space, addresses) = self.exec.lane_addresses(w, pc, m, executed);
                    (space, addresses, m.touched(executed, warp), m.shape().1)
                }
                Op::Mbarrier(op) => {
                    let base = warp.row(op.addr.base);
                    (a.space, per_lane(|l| base[l].wrapping_add(op.addr.offset)), executed, a.size)
                }
                _ => (a.space, [0; 32], executed, a.size),
            };
            if space == Space::Local {
                addresses = self.exec.physical_local(w, &addresses);
            }
            Access { space, kind: a.kind, size, lanes, addresses }
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
        let mut exchange = match decoded.op {
            Op::Collective(CollectiveOp::Shfl { mode, b, width, .. }) => {
                let b = crate::exec::fetch(warp, b);
                Some(Exchange::Shuffle { sources: per_lane(|l| shfl_source(mode, l, b[l], width) as u8) })
            }
            Op::TensorCopy(op) => Some(match op.barrier {
                Some(barrier) => {
                    let first = executed.trailing_zeros() as usize;
                    Exchange::TensorCopy { store: false, barrier: crate::exec::fetch(warp, barrier).get(first).copied().unwrap_or(0) }
                }
                None => Exchange::TensorCopy { store: true, barrier: 0 },
            }),
            Op::Tensor(_) | Op::ScaledTensor(_) | Op::Warpgroup(_) => {
                let inst = &self.exec.launch.kernel.code[pc as usize];
                inst.form.mma().map(|form| Exchange::Mma { form, macs: simt_tensor::macs(inst).1 })
            }
            _ => None,
        };
        let arrived = (opcode == Opcode::BarSync || opcode == Opcode::BarRed).then_some(executed);
        self.previews[w] = None;
        self.execute_stepped(w, pc, active)?;
        if matches!(opcode, Opcode::Tcmma | Opcode::TcmmaTs | Opcode::TcmmaMx) {
            let (macs, shared_bytes) = self.exec.tcmma_work;
            exchange = Some(Exchange::Tcmma { macs, shared_bytes });
        }
        let opened = self.counted_opened();
        self.count_issued(1);
        Ok(StepResult::Issued(Step { issued: preview, access, branch, arrived, opened, exchange }))
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

    /// Whether a block barrier can open: every non-exited thread of the block waits at one
    /// barrier that waits for them all, or a counted barrier has its threads (a counted barrier
    /// opens as its last warp arrives; this finds one completed by threads exiting).
    pub fn barrier_complete(&self) -> bool {
        self.all_wait_at_one() || (0..simt_isa::BARRIERS as u8).any(|id| self.exec.counted_complete(id))
    }

    fn all_wait_at_one(&self) -> bool {
        let warps = &self.exec.warps;
        let Some(first) = warps.iter().find(|w| w.at_barrier() != 0) else { return false };
        first.barrier.count == 0 && warps.iter().all(|w| w.at_barrier() == w.live() && (w.at_barrier() == 0 || w.barrier == first.barrier))
    }

    /// Opens a block barrier if one is complete ([`BlockSim::barrier_complete`]): the
    /// waiting threads move past it. Returns whether one opened; otherwise nothing changes.
    pub fn release_barrier(&mut self) -> bool {
        if (0..simt_isa::BARRIERS as u8).any(|id| self.exec.open_counted(id)) {
            if let Some(s) = &mut self.sanitizer {
                s.synchronise(&mut self.exec.syncs);
            }
            self.counted_opened();
            return true;
        }
        if !self.all_wait_at_one() {
            return false;
        }
        self.exec.write_barrier_reductions();
        self.exec.barriers_opened += 1;
        self.exec.warps.iter_mut().for_each(Warp::release_barrier);
        self.forget_previews();
        if let Some(s) = &mut self.sanitizer {
            s.barrier();
        }
        true
    }

    /// Whether a counted barrier opened since the last call: the warps that waited there
    /// moved, so what [`peek`](Self::peek) found for them is stale.
    fn counted_opened(&mut self) -> bool {
        if self.exec.opened == self.opened_seen {
            return false;
        }
        self.opened_seen = self.exec.opened;
        self.forget_previews();
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
        if self.barrier_complete() || (0..self.exec.warps.len()).any(|w| matches!(self.peek(w), Peek::Issue(_))) {
            return Ok(false);
        }
        if self.exec.warps.iter_mut().any(Warp::release_longest_waiter) {
            self.forget_previews();
            Ok(true)
        } else {
            Err(self.deadlock())
        }
    }

    /// How many more instructions warp `warp` may issue before the next check, or the
    /// fault that ends the launch: the step limit, the deadline, or a runaway warp.
    #[inline]
    fn step_budget(&self, warp: usize) -> Result<u64, Fault> {
        // Read once: other threads add to the launch's count.
        let used = self.exec.launch.steps() + self.unflushed;
        match self.stop(warp, used) {
            None => Ok(SLICE.min(self.exec.launch.options.max_steps - used)),
            Some(stop) => Err(self.stop_fault(warp, stop)),
        }
    }

    /// Why warp `warp` may not issue now, `used` instructions into the launch, if it may not:
    /// cheap to ask, since every stepped instruction asks it.
    #[inline]
    fn stop(&self, warp: usize, used: u64) -> Option<Stop> {
        let options = &self.exec.launch.options;
        let w = &self.exec.warps[warp];
        let idle = w.issued - w.progress_at;
        if used >= options.max_steps {
            Some(Stop::Steps)
        } else if let Some((why, remedy)) = self.out_of_time() {
            Some(Stop::Time(why, remedy))
        } else if options.runaway_steps != 0 && idle >= options.runaway_steps {
            Some(Stop::Runaway(idle))
        } else if options.runaway_steps != 0
            && idle >= MBARRIER_WAIT_STEPS
            && w.issued - w.failed_test.at <= MBARRIER_WAIT_LOOP
            && self.every_warp_waits_on_mbarriers()
        {
            Some(Stop::MbarrierWait)
        } else {
            None
        }
    }

    /// Whether every unfinished warp of the block either waits at a block barrier or tests an
    /// mbarrier in a loop, none having made progress in [`MBARRIER_WAIT_STEPS`] instructions.
    #[cold]
    #[inline(never)]
    fn every_warp_waits_on_mbarriers(&self) -> bool {
        let mut testing = false;
        for w in self.exec.warps.iter().filter(|w| w.live() != 0) {
            if w.at_barrier() != 0 {
                continue;
            }
            let idle = w.issued - w.progress_at;
            // A phase another warp completed since (and then exited) ends the wait at the next test.
            let looping = w.issued - w.failed_test.at <= MBARRIER_WAIT_LOOP && self.exec.still_waits(&w.failed_test);
            if idle < MBARRIER_WAIT_STEPS || !looping {
                return false;
            }
            testing = true;
        }
        testing
    }

    #[cold]
    #[inline(never)]
    fn stop_fault(&self, warp: usize, stop: Stop) -> Fault {
        let max = self.exec.launch.options.max_steps;
        let at_mbarriers = matches!(stop, Stop::MbarrierWait);
        let (kind, message, remedy) = match stop {
            Stop::Steps => (FaultKind::StepLimit, format!("the launch issued {max} warp instructions, the limit"), Some(Remedy::MoreSteps)),
            Stop::Time(why, remedy) => (FaultKind::TimeLimit, why.to_string(), remedy),
            Stop::Runaway(idle) => (
                FaultKind::Runaway,
                format!("warp {warp} issued {idle} instructions in a row without storing, exiting or reaching a barrier: an endless loop?"),
                Some(Remedy::MoreRunawaySteps),
            ),
            Stop::MbarrierWait => (
                FaultKind::Deadlock,
                format!(
                    "deadlock: every unfinished warp of the block waits for an mbarrier phase that cannot complete: none has stored, arrived or exited in its last {MBARRIER_WAIT_STEPS} instructions"
                ),
                None,
            ),
        };
        let mut fault = self.exec.fault(kind, warp, None, None, message);
        fault.remedy = remedy;
        self.locate_everyone(&mut fault);
        if at_mbarriers {
            self.describe_mbarrier_waits(&mut fault);
        }
        fault
    }

    /// Why the launch must stop now: its deadline passed or it was interrupted.
    fn out_of_time(&self) -> Option<(&'static str, Option<Remedy>)> {
        if self.exec.launch.options.deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            Some(("the launch ran out of time", Some(Remedy::MoreTime)))
        } else if self.exec.launch.cancelled() {
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
        let mut fault = self.exec.fault(FaultKind::TimeLimit, 0, None, None, why.to_string());
        fault.remedy = remedy;
        self.locate_everyone(&mut fault);
        Some(fault)
    }

    /// Notes where every unfinished thread is; sets the fault's pc to the first one.
    fn locate_everyone(&self, fault: &mut Fault) {
        for (wi, w) in self.exec.warps.iter().enumerate() {
            for (pc, mask, what) in w.whereabouts() {
                let first = mask.trailing_zeros() as usize;
                if fault.pc.is_none() {
                    fault.pc = Some(pc);
                    fault.line = self.exec.launch.kernel.line(pc);
                    fault.warp = Some(wi as u32);
                    fault.lane = Some(first as u32);
                    fault.thread = Some(self.exec.thread_of(wi, first));
                }
                let line = self.exec.launch.kernel.line(pc).map_or(String::new(), |l| format!(" (line {l})"));
                fault.notes.push(format!("warp {wi}, {}: {what} at pc {pc}{line}", describe_lanes(mask)));
            }
        }
    }

    /// Notes for a deadlock at mbarriers: which warps test which mbarrier, and what it waits for.
    fn describe_mbarrier_waits(&self, fault: &mut Fault) {
        let mut tests: Vec<(FailedTest, Vec<usize>)> = Vec::new();
        for (wi, w) in self.exec.warps.iter().enumerate().filter(|(_, w)| w.live() != 0 && w.at_barrier() == 0) {
            let t = w.failed_test;
            match tests.iter_mut().find(|(u, _)| (u.pc, u.addr, u.parity) == (t.pc, t.addr, t.parity)) {
                Some((_, warps)) => warps.push(wi),
                None => tests.push((t, vec![wi])),
            }
        }
        for (t, warps) in &tests {
            let line = self.exec.launch.kernel.line(t.pc).map_or(String::new(), |l| format!(" (line {l})"));
            let who = match warps.as_slice() {
                [one] => format!("warp {one} tests"),
                many => format!("warps {} test", many.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")),
            };
            fault.notes.push(format!("{who} the mbarrier at shared address {:#x} for its phase of parity {} at pc {}{line}", t.addr, t.parity, t.pc));
        }
        let mut seen: Vec<u32> = Vec::new();
        for (t, _) in &tests {
            if !seen.contains(&t.addr) {
                seen.push(t.addr);
                fault.notes.extend(self.exec.describe_mbarrier(t.addr));
            }
        }
    }

    fn deadlock(&self) -> Fault {
        let mut fault = self.exec.fault(
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
        // Once a slice, not every instruction: whatever runs below makes the warp's preview stale.
        self.previews[w] = None;
        while issued < budget {
            let Next::Issue { pc, mask } = self.exec.warps[w].next(&self.exec.launch.program.code) else { break };
            self.execute(w, pc, mask)?;
            issued += 1;
        }
        self.counted_opened();
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

    /// The counters of the blocks run here, with what the sanitizers found, once the
    /// launch's shared counts have heard of everything.
    fn finish(mut self) -> Counters {
        self.settle();
        self.counters
    }

    /// Tells the launch's shared counts everything, and moves the sanitizers' findings into the counters.
    fn settle(&mut self) {
        self.flush_counts();
        if let Some(s) = &mut self.sanitizer {
            self.counters.findings.add(&s.take_findings());
        }
    }

    /// Adds the instructions and finished blocks gathered here to the launch's shared counts.
    fn flush_counts(&mut self) {
        self.exec.launch.issued(std::mem::take(&mut self.unflushed));
        self.exec.launch.blocks_finished(std::mem::take(&mut self.unflushed_blocks));
    }
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
/// Asked once: a stepping driver asks for every instruction, and six detections cost a
/// few dozen instructions each time.
#[cfg(target_arch = "x86_64")]
fn fast_lanes() -> bool {
    static FAST: std::sync::LazyLock<bool> = std::sync::LazyLock::new(|| {
        std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("fma")
            && std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("lzcnt")
    });
    *FAST
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
            return block.finish();
        }
        block.restart(b);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,popcnt,bmi1,bmi2,lzcnt")]
fn run_sm_avx2(ctx: &Launch<'_>, sm: u64, stride: u64, counters: Counters, stop: &AtomicU64, report: &(dyn Fn(u64, Result<(), Fault>) + Sync)) -> Counters {
    run_sm_portable(ctx, sm, stride, counters, stop, report)
}
