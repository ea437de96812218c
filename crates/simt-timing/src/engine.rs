//! The launch: block dispatch, SMs advancing in parallel windows, and the shared
//! memory system (`memsys.rs`) answering at each window boundary.
//!
//! SMs interact only through L2, DRAM and global memory, and nothing an SM sends
//! there comes back sooner than the fastest L2 hit, the window length `W`. So each
//! window the SMs run independently (on rayon); at the boundary the requests of the
//! window are answered in (cycle, SM, sequence) order, and held global atomics are
//! executed in that order. Block dispatch needs the order in which SMs free room: the
//! dispatcher hands out blocks in (cycle, fewest resident blocks, lowest SM) order. A
//! block taking room freed in a window starts `sm.block_launch_latency` cycles later; when
//! that is past the window the SM notes the cycle and goes on, and the boundary serves the
//! window's freed room; otherwise the SM stops there and is served before it resumes.
//! Every decision depends only on simulated state, so cycles, statistics and results
//! are the same for any number of threads.

use rayon::prelude::*;
use simt_interp::{Fault, GlobalMemory, Launch, LaunchConfig, RunOptions};
use simt_isa::{Kernel, Target, format_mnemonic};

use crate::config::{LINE_BYTES, Machine};
use crate::memsys::MemorySystem;
use crate::occupancy::{Impossible, Occupancy, occupancy};
use crate::sim::{Ctx, Deferred, PipeFilter, Request, Sm};
use crate::stats::Report;

/// How to run a timed launch.
#[derive(Clone, Debug, Default)]
pub struct TimingOptions<'p> {
    /// Counts finished blocks and issued instructions, and stops the launch (a time-limit
    /// fault, "interrupted") when its `cancel` is set: Ctrl-C from Python, for one.
    pub progress: Option<&'p simt_interp::Progress>,
    /// Record `--pipeview` rows for matching warp instructions.
    pub pipeview: Option<PipeFilter>,
    /// Record the issue slots for a `--timeline` trace.
    pub timeline: bool,
}

/// Encountered when a timed launch cannot run or faults.
#[derive(Debug, thiserror::Error)]
pub enum TimingError {
    /// The kernel cannot run on this machine; nothing ran.
    #[error(transparent)]
    Unsupported(Unsupported),
    /// The launch faulted (or was impossible: [`simt_interp::FaultKind::InvalidLaunch`]).
    #[error("{}", .0.message)]
    Fault(Box<Fault>),
}

/// Why a machine cannot run a kernel, with the facts that say so.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unsupported {
    /// An instruction's form is newer than the machine's target.
    #[error(
        "kernel `{kernel}` cannot run on {machine}: `{mnemonic}` ({}) needs target {needs} ({}) or later, but {machine} is {target} ({}); time it on a machine of that generation or later (`simt configs` lists them)",
        place(*.line, *.pc), .needs.generation(), .target.generation()
    )]
    BeyondTarget {
        /// The kernel's name.
        kernel: String,
        /// The machine's name.
        machine: String,
        /// The instruction's mnemonic.
        mnemonic: String,
        /// Where the instruction is.
        pc: u32,
        /// Its source line, when the kernel has line information.
        line: Option<u32>,
        /// The first target with the form.
        needs: Target,
        /// The machine's target.
        target: Target,
    },
    /// An MMA form within the machine's target that its generation's tensor cores lack
    /// (the machine file times `forms`).
    #[error(
        "machine `{machine}` has no tensor-core timing for MMA form `{form}` (kernel `{kernel}`, {}): this generation's tensor cores lack it (its forms: {})",
        place(*.line, *.pc), if .forms.is_empty() { "none".to_string() } else { .forms.join(", ") }
    )]
    NoTensorTiming {
        /// The kernel's name.
        kernel: String,
        /// The machine's name.
        machine: String,
        /// The MMA form, as the machine file names it (`m16n8k16.f32.f16`).
        form: String,
        /// Where the instruction is.
        pc: u32,
        /// Its source line, when the kernel has line information.
        line: Option<u32>,
        /// The forms the machine file times.
        forms: Vec<String>,
    },
    /// Not one block of the launch fits on an SM.
    #[error("kernel `{kernel}` cannot run on {machine}: {why}")]
    NoBlockFits {
        /// The kernel's name.
        kernel: String,
        /// The machine's name.
        machine: String,
        /// The resource that rules a block out.
        why: Impossible,
    },
}

/// Hands out blocks in block order as SMs free room: in the order of the cycles the room
/// freed, then to the SM with the fewest resident blocks, lowest index first. A block may
/// issue `sm.block_launch_latency` cycles after the cycle after the room freed.
struct Dispatcher {
    next: u64,
    total: u64,
    per_sm: usize,
    latency: u64,
    /// Per SM, while the boundary serves a window's frees: blocks that finished on it later
    /// than the cycle being served, so still resident then.
    later: Vec<usize>,
}

impl Dispatcher {
    fn new(total: u64, per_sm: usize, machine: &Machine, sms: usize) -> Dispatcher {
        Dispatcher { next: 0, total, per_sm, latency: u64::from(machine.sm.block_launch_latency), later: vec![0; sms] }
    }

    fn remaining(&self) -> bool {
        self.next < self.total
    }

    /// Fills the room that `candidates` (ascending) freed at `cycle`.
    fn serve(&mut self, sms: &mut [Sm<'_>], cycle: u64, candidates: &[usize]) {
        while self.remaining() {
            let resident = |i: usize| sms[i].resident() + self.later[i];
            let Some(i) = candidates.iter().copied().filter(|&i| resident(i) < self.per_sm).min_by_key(|&i| (resident(i), i)) else { break };
            self.give(&mut sms[i], cycle + 1 + self.latency);
        }
    }

    /// Gives `sm` the next block, to issue from `start`.
    fn give(&mut self, sm: &mut Sm<'_>, start: u64) {
        sm.assign(self.next, start);
        self.next += 1;
    }

    /// At the boundary, the room freed during the window whose blocks start past it, in the
    /// order the cycle-by-cycle dispatcher would have served it: each SM counted with the
    /// blocks it still held at each cycle.
    fn serve_freed(&mut self, sms: &mut [Sm<'_>]) {
        let mut freed: Vec<(u64, usize)> = Vec::new();
        for (i, sm) in sms.iter_mut().enumerate() {
            freed.extend(sm.freed.drain(..).map(|c| (c, i)));
        }
        freed.sort_unstable();
        for &(_, i) in &freed {
            self.later[i] += 1;
        }
        let mut candidates = Vec::new();
        for group in freed.chunk_by(|a, b| a.0 == b.0) {
            candidates.clear();
            for &(_, i) in group {
                self.later[i] -= 1;
                if candidates.last() != Some(&i) {
                    candidates.push(i);
                }
            }
            self.serve(sms, group[0].0, &candidates);
        }
    }
}

/// Where an instruction is: its source line when the kernel has one, else its pc.
fn place(line: Option<u32>, pc: u32) -> String {
    line.map_or_else(|| format!("pc {pc}"), |line| format!("line {line}"))
}

/// The shared-memory carve-out a launch gets, and the L1 lines left beside it.
fn l1_lines(machine: &Machine, occ: &Occupancy) -> u64 {
    let need = occ.blocks_per_sm * occ.shared_allocated_per_block;
    let carve = machine.sm.shared_carveouts_kb.iter().map(|k| k * 1024).find(|&b| b >= need).unwrap_or(machine.sm.shared_bytes);
    u64::from(machine.memory.l1.unified_bytes.saturating_sub(carve) / LINE_BYTES)
}

/// Runs one launch on `machine`, cycle by cycle: the kernel's results land in `memory`
/// as in a functional run; the report says how long it took and why.
///
/// # Errors
/// A kernel the machine cannot run, or the first fault in (cycle, SM) order.
pub fn run(
    kernel: &Kernel,
    config: &LaunchConfig,
    memory: &GlobalMemory,
    options: &RunOptions,
    machine: &Machine,
    timing: &TimingOptions,
) -> Result<Report, TimingError> {
    if let Some(why) = beyond_machine(kernel, machine) {
        return Err(TimingError::Unsupported(why));
    }
    let mut launch = Launch::new(kernel, config, memory, options).map_err(|e| TimingError::Fault(Box::new(Fault::invalid_launch(&kernel.name, e))))?;
    if let Some(progress) = timing.progress {
        launch.watch(progress);
    }
    let threads: u32 = config.block.iter().product();
    let occ = occupancy(machine, threads, kernel.regs, kernel.shared_size);
    if let Some(why) = occ.impossible {
        return Err(TimingError::Unsupported(Unsupported::NoBlockFits { kernel: kernel.name.clone(), machine: machine.name.clone(), why }));
    }
    let ctx = Ctx::new(&launch, machine, l1_lines(machine, &occ), timing.pipeview, timing.timeline).map_err(TimingError::Unsupported)?;
    let mut sms: Vec<Sm> = (0..machine.sm.count).map(|i| Sm::new(i, &ctx)).collect();
    let mut l2 = MemorySystem::new(machine, options.threads.unwrap_or_else(rayon::current_num_threads));
    let mut dispatch = Dispatcher::new(launch.blocks(), occ.blocks_per_sm as usize, machine, sms.len());
    // Breadth first: each pass gives every SM with room one more block.
    'fill: for _ in 0..occ.blocks_per_sm {
        for sm in sms.iter_mut() {
            if !dispatch.remaining() {
                break 'fill;
            }
            dispatch.give(sm, 0);
        }
    }
    let pool = match options.threads {
        Some(n) if n > 1 => rayon::ThreadPoolBuilder::new().num_threads(n).build().ok(),
        _ => None,
    };
    let parallel = options.threads.is_none_or(|n| n > 1);
    // The cycle from which nothing is recorded, once the records reach their limit.
    let mut recording_stopped = None;
    // The windows run on a thread of the pool, so the boundary's serial work does not
    // compete for a core with pool threads waiting for the next window.
    let mut simulate = || -> Result<(), TimingError> {
        let window = machine.window();
        let mut start = 0u64;
        let (mut gathered, mut requests, mut counts) = (Vec::new(), Vec::new(), Vec::new());
        let mut deferred: Vec<Deferred> = Vec::new();
        loop {
            let end = start + window;
            let mut run: Vec<usize> = (0..sms.len()).collect();
            // With a block launch latency of at least a window this runs once: no SM stops.
            loop {
                advance(&mut sms, &run, &ctx, end, dispatch.remaining(), parallel);
                let stopped: Vec<(u64, usize)> = sms.iter().enumerate().filter_map(|(i, s)| s.stop.map(|c| (c, i))).collect();
                if stopped.is_empty() {
                    break;
                }
                let cycle = stopped.iter().map(|&(c, _)| c).min().unwrap_or(0);
                run = stopped.iter().filter(|&&(c, _)| c == cycle || !dispatch.remaining()).map(|&(_, i)| i).collect();
                dispatch.serve(&mut sms, cycle, &run);
                for &i in &run {
                    sms[i].stop = None;
                }
            }
            dispatch.serve_freed(&mut sms);
            if let Some(fault) = first_fault(&mut sms) {
                return Err(TimingError::Fault(Box::new(fault)));
            }
            // The boundary: held atomics execute, then L2 answers, both in (cycle, SM, sequence) order.
            deferred.clear();
            for sm in sms.iter_mut() {
                deferred.append(&mut sm.deferred);
            }
            deferred.sort_unstable_by_key(|d| (d.cycle, d.sm, d.seq));
            for &d in &deferred {
                sms[d.sm as usize].run_deferred(&ctx, d);
            }
            gathered.clear();
            for sm in sms.iter_mut() {
                gathered.append(&mut sm.outbox);
            }
            sort_requests(&gathered, &mut requests, &mut counts);
            // An answer changes only its own SM, so each SM takes all of its own (in L2's order)
            // when it next advances, in parallel with the others.
            l2.answer_all(&requests, parallel, |r, at| sms[r.sm as usize].inbox.push((r.tag, at)));
            l2.end_window(end);
            // The records ran out during this window, on whichever SMs took the last ones: keep
            // only what came before it, the same whatever the thread count.
            if recording_stopped.is_none() && ctx.stopped.load(std::sync::atomic::Ordering::Relaxed) {
                sms.iter_mut().for_each(|sm| sm.cut_records(start));
                recording_stopped = Some(start);
            }
            if let Some(fault) = first_fault(&mut sms) {
                return Err(TimingError::Fault(Box::new(fault)));
            }
            if !dispatch.remaining() && sms.iter().all(|s| !s.busy()) {
                break;
            }
            start = end;
        }
        Ok(())
    };
    match (&pool, parallel) {
        (Some(pool), _) => pool.install(simulate)?,
        (None, true) => rayon::scope(|_| simulate())?,
        (None, false) => simulate()?,
    }
    let cycles = sms.iter().filter_map(|s| s.last_finish).max().map_or(0, |c| c + 1);
    let mut report = crate::stats::report(&ctx, &launch, &occ, &mut sms, cycles, &l2.figures());
    report.recording_stopped = recording_stopped;
    Ok(report)
}

/// Why `machine` cannot run `kernel`'s instructions: the first whose form is newer than the
/// machine's target. The kernel's own `.target` does not matter here: a kernel written for
/// sm_100 that uses only Volta forms runs on a Volta machine.
fn beyond_machine(kernel: &Kernel, machine: &Machine) -> Option<Unsupported> {
    let (pc, form) = kernel.first_beyond(machine.target)?;
    Some(Unsupported::BeyondTarget {
        kernel: kernel.name.clone(),
        machine: machine.name.clone(),
        mnemonic: format_mnemonic(&form),
        pc,
        line: kernel.line(pc),
        needs: form.since(),
        target: machine.target,
    })
}

/// `gathered`, a window's requests SM by SM, into `sorted` in (cycle, SM, sequence) order. An
/// SM makes its requests in that order, but for a held atomic's, made at the boundary, and
/// they span a few hundred cycles: one counting pass by cycle keeps each cycle's in SM and
/// sequence order, and a general sort mends what an atomic (or a wider span) upsets.
fn sort_requests(gathered: &[Request], sorted: &mut Vec<Request>, counts: &mut Vec<u32>) {
    let key = |r: &Request| (r.cycle, r.sm, r.seq);
    sorted.clear();
    if gathered.is_empty() {
        return;
    }
    let (first, last) = gathered.iter().fold((u64::MAX, 0), |(first, last), r| (first.min(r.cycle), last.max(r.cycle)));
    if last - first >= 4 * gathered.len() as u64 {
        sorted.extend_from_slice(gathered);
        sorted.sort_unstable_by_key(key);
        return;
    }
    // `counts[c]`: where cycle `first + c`'s requests start.
    counts.clear();
    counts.resize((last - first) as usize + 2, 0);
    for r in gathered {
        counts[(r.cycle - first) as usize + 1] += 1;
    }
    for c in 1..counts.len() {
        counts[c] += counts[c - 1];
    }
    sorted.resize(gathered.len(), gathered[0]);
    for r in gathered {
        let at = &mut counts[(r.cycle - first) as usize];
        sorted[*at as usize] = *r;
        *at += 1;
    }
    if !sorted.is_sorted_by_key(key) {
        sorted.sort_unstable_by_key(key);
    }
}

/// The fault with the lowest (cycle, SM), so the report does not depend on the thread count.
fn first_fault(sms: &mut [Sm<'_>]) -> Option<Fault> {
    let (_, i) = sms.iter().enumerate().filter_map(|(i, s)| s.fault.as_ref().map(|(c, _)| (*c, i))).min()?;
    sms[i].fault.take().map(|(_, f)| f)
}

fn advance<'l>(sms: &mut [Sm<'l>], run: &[usize], ctx: &Ctx<'l>, end: u64, remaining: bool, parallel: bool) {
    // `run` is in ascending SM order.
    let selected = |sm: &&mut Sm<'l>| run.binary_search(&(sm.id as usize)).is_ok();
    if parallel {
        sms.par_iter_mut().filter(selected).for_each(|sm| sm.advance(ctx, end, remaining));
    } else {
        sms.iter_mut().filter(selected).for_each(|sm| sm.advance(ctx, end, remaining));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::ReqKind;

    #[test]
    fn requests_sort_by_cycle_sm_and_sequence() {
        let mut next = crate::xorshift(0x2545_F491_4F6C_DD1D);
        let (mut sorted, mut counts) = (Vec::new(), Vec::new());
        // Windows of 265 cycles; then one spanning far more cycles than it has requests.
        for (window, span) in [(0u64, 265u64), (1, 265), (2, 265), (3, 1_000_000)] {
            let mut gathered = Vec::new();
            for sm in 0..16u32 {
                let (mut cycle, mut seq) = (window * 265, 0u64);
                for _ in 0..next() % 40 {
                    // An SM's requests come in (cycle, sequence) order, a few to an instruction.
                    cycle += next() % (span / 20 + 1);
                    seq += 2 * (1 + next() % 3);
                    gathered.push(Request { cycle, sm, seq, line: next() % 1000, sectors: 1, kind: ReqKind::Load, tag: 0 });
                }
                // A held atomic runs at the boundary: its request comes last, though it issued in the
                // cycle of one of the SM's loads, just before it (an odd sequence: no two are alike).
                let made = gathered.iter().filter(|r| r.sm == sm).count() as u64;
                if made > 0 && next().is_multiple_of(2) {
                    let before = gathered[gathered.len() - 1 - (next() % made) as usize];
                    gathered.push(Request { seq: before.seq - 1, kind: ReqKind::Atomic { ops: 1 }, tag: 1, ..before });
                }
            }
            sort_requests(&gathered, &mut sorted, &mut counts);
            let mut expected = gathered.clone();
            expected.sort_by_key(|r| (r.cycle, r.sm, r.seq));
            let keys = |rs: &[Request]| rs.iter().map(|r| (r.cycle, r.sm, r.seq, r.line)).collect::<Vec<_>>();
            assert_eq!(keys(&sorted), keys(&expected), "window {window}");
        }
        // Cycles as far apart as they can be (a launch's cycles saturate rather than wrap).
        let at = |cycle| Request { cycle, sm: 0, seq: 0, line: 0, sectors: 1, kind: ReqKind::Load, tag: 0 };
        sort_requests(&[at(u64::MAX), at(0)], &mut sorted, &mut counts);
        assert_eq!(sorted.iter().map(|r| r.cycle).collect::<Vec<_>>(), [0, u64::MAX]);
    }
}
