//! Warp state and the two SIMT models (contract section 6).
//!
//! Both models answer the same question — which threads of the warp issue
//! next, and at which pc — and are told what the issued instruction did to
//! control flow. The executor in `exec/` never looks inside them. The views of
//! a warp that debuggers and timing models read ([`WarpView`], [`BlockReason`]) live here too.
//!
//! `stack` keeps the classic reconvergence stack of (pc, reconvergence pc,
//! mask) entries. `its` gives every thread its own pc and emulates NVIDIA's
//! convergence barriers: a divergent branch opens a barrier at its
//! reconvergence point for the threads that took part; a thread that reaches
//! that pc waits until every other live participant has arrived. Among the
//! threads that are not waiting, the group of the most recent split issues
//! (fall-through before taken, lowest pc among equals): the stack model's
//! order, so structured code issues the same masks under both. Forward progress
//! comes from yielding: a group that takes `Y` backward branches in a row
//! while others wait lets the longest waiter run until it blocks, waits or
//! exits; and when nothing in the block can run, the longest waiter is
//! released the same way (the barrier "clears when every other participant
//! is blocked or has yielded").

use crate::decode::{Decoded, PRED_ROWS, PRED_TRUE, Reg};
use simt_isa::NO_RECONV;

/// Why a warp cannot issue now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockReason {
    /// Its threads wait at `BAR.SYNC` for the rest of the block ([`crate::BlockSim::release_barrier`]).
    Barrier,
    /// Its threads wait at a warp-collective instruction for the rest of the warp.
    Collective,
    /// Its threads wait at a reconvergence point for their siblings (`its`; see [`crate::BlockSim::force_progress`]).
    Reconvergence,
}

/// A copy of one warp's control state, for debuggers ([`crate::BlockSim::warp_view`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpView {
    /// Lanes that exist (a partial last warp has fewer than 32).
    pub valid: u32,
    /// Lanes whose threads have exited.
    pub exited: u32,
    /// Threads waiting at `BAR.SYNC` for the rest of the block.
    pub at_barrier: u32,
    /// Where the threads are, in the terms of the SIMT model.
    pub control: ControlView,
}

/// The SIMT model's view of where a warp's threads are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControlView {
    /// `stack`: the reconvergence stack, bottom entry first; the top entry issues next.
    Stack(Vec<StackEntry>),
    /// `its`: the live threads grouped by pc and state, and the convergence barriers
    /// some of them still wait at.
    Its {
        /// Threads at the same pc in the same state, ordered by their lowest lane.
        groups: Vec<ThreadGroup>,
        /// Convergence barriers not yet complete, oldest first.
        barriers: Vec<ConvergenceBarrier>,
    },
}

/// One entry of the reconvergence stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackEntry {
    /// Where these threads go on.
    pub pc: u32,
    /// Where the entry is popped (`None`: at the kernel's end).
    pub reconv: Option<u32>,
    /// Its threads.
    pub mask: u32,
}

/// Threads of an `its` warp at the same pc, doing the same thing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadGroup {
    /// Their pc.
    pub pc: u32,
    /// Their lanes.
    pub lanes: u32,
    /// What they do there.
    pub state: ThreadState,
}

/// What a thread group of an `its` warp does at its pc.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadState {
    /// It may issue.
    Ready,
    /// It waits at a reconvergence point for the other members of a convergence barrier.
    Reconvergence,
    /// It waits at `BAR.SYNC`.
    Barrier,
    /// It waits at a warp-collective instruction for the rest of the warp.
    Collective,
}

/// A convergence barrier of the `its` model: opened by a divergent branch, complete when
/// every live member has reached the reconvergence pc.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvergenceBarrier {
    /// The reconvergence pc.
    pub reconv: u32,
    /// Its live members.
    pub members: u32,
    /// The members that have arrived and wait.
    pub arrived: u32,
}

/// Iterates over the set bits of a lane mask, lowest first.
#[inline]
pub fn lanes(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let l = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        Some(l)
    })
}

/// The lanes where `f` holds, as a mask (a plain loop over all 32, no branches).
#[inline(always)]
fn lanes_where(f: impl Fn(usize) -> bool) -> u32 {
    (0..32).fold(0u32, |m, l| m | (u32::from(f(l)) << l))
}

/// What a warp can do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// Issue the instruction at `pc` for the threads in `mask`.
    Issue { pc: u32, mask: u32 },
    /// Nothing can issue until another warp (or a release) changes something.
    Blocked(BlockReason),
    /// Every thread has exited.
    Done,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    pc: u32,
    rpc: u32,
    mask: u32,
}

/// The pre-Volta reconvergence stack.
#[derive(Debug)]
pub(crate) struct StackCtl {
    stack: Vec<Entry>,
    /// Threads that arrived at `BAR.SYNC` and wait for the block.
    at_barrier: u32,
}

/// A convergence barrier of the `its` model.
#[derive(Clone, Copy, Debug)]
struct ConvBarrier {
    rpc: u32,
    members: u32,
    /// The rank the members return to when they reconverge.
    rank: u32,
}

/// Independent thread scheduling.
#[derive(Debug)]
pub(crate) struct ItsCtl {
    pc: [u32; 32],
    /// Scheduling rank: the group of the most recent split runs first, fall-through
    /// before taken, which is the reconvergence stack's order.
    rank: [u32; 32],
    next_rank: u32,
    /// Threads whose pc is the reconvergence pc of a pending barrier they belong to.
    waiting: u32,
    wait_since: [u64; 32],
    /// Threads that arrived at `BAR.SYNC`.
    at_barrier: u32,
    /// Threads that arrived at a warp-collective instruction.
    at_collective: u32,
    barriers: Vec<ConvBarrier>,
    /// A released group that runs until it blocks, waits or exits.
    forced: u32,
    /// Iterations of each loop (by back-edge pc) the `streak_group` took in a row while others waited.
    iterations: Vec<(u32, u32)>,
    streak_group: u32,
    yield_after: u32,
    /// The group issuing now (0: choose again); its pc lives in `group_pc`, not in `pc`.
    group: u32,
    group_pc: u32,
    /// Whether threads outside `group` could issue too (then every step chooses again).
    others_runnable: bool,
    tick: u64,
}

/// Per-warp control state of either model.
#[derive(Debug)]
pub(crate) enum Control {
    Stack(StackCtl),
    Its(Box<ItsCtl>),
}

/// One warp: registers, predicates and control state.
pub(crate) struct Warp {
    /// `regs[r][lane]`; the program's zero row and scratch row come last.
    pub regs: Vec<[u32; 32]>,
    /// Predicate masks; row `PRED_TRUE` is all ones, row `PRED_SINK` absorbs writes to `PT`.
    pub preds: [u32; PRED_ROWS],
    /// Lanes that exist (a partial last warp has fewer).
    pub valid: u32,
    pub exited: u32,
    /// Instructions issued, for `SR_CLOCK`.
    pub issued: u64,
    /// `issued` when the warp last made progress (stored, exited, reached a barrier).
    pub progress_at: u64,
    pub ctl: Control,
    /// The last `MBAR.TEST` that found a lane's phase incomplete, for telling a wait no thread
    /// will end from a long loop ([`crate::BlockSim`]'s mbarrier deadlock).
    pub(crate) failed_test: FailedTest,
    /// The block barrier its threads at `BAR.SYNC` wait at (meaningful while any do).
    pub(crate) barrier: crate::exec::control::BarrierKey,
    /// The `BAR.RED`s its threads wait at (under `its`, groups of them may wait at
    /// different ones), whose results the barrier's opening writes.
    pub(crate) reductions: Vec<Reduction>,
}

/// An `MBAR.TEST` that found the phase it tests incomplete (for its first such lane).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FailedTest {
    /// The warp's issued-instruction count then.
    pub at: u64,
    pub pc: u32,
    /// The mbarrier's SHARED address, and the parity of the phase waited for.
    pub addr: u32,
    pub parity: u32,
}

/// A `BAR.RED` some threads of a warp wait at: what it computes, into which register, for
/// which lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reduction {
    pub op: simt_isa::BarRedOp,
    pub d: Reg,
    pub lanes: u32,
}

impl Warp {
    pub(crate) fn new(rows: usize, valid: u32, its: Option<u32>) -> Warp {
        let ctl = match its {
            None => Control::Stack(StackCtl { stack: Vec::new(), at_barrier: 0 }),
            Some(yield_after) => Control::Its(Box::new(ItsCtl::new(yield_after.max(1)))),
        };
        let mut warp = Warp {
            regs: vec![[0; 32]; rows],
            preds: [0; PRED_ROWS],
            valid,
            exited: 0,
            issued: 0,
            progress_at: 0,
            ctl,
            barrier: Default::default(),
            failed_test: FailedTest::default(),
            reductions: Vec::new(),
        };
        warp.reset();
        warp
    }

    /// The state of a fresh warp, keeping the allocations (a new block on the same SM).
    pub(crate) fn reset(&mut self) {
        self.regs.iter_mut().for_each(|r| *r = [0; 32]);
        self.preds = [0; PRED_ROWS];
        self.preds[usize::from(PRED_TRUE)] = u32::MAX;
        self.exited = 0;
        self.issued = 0;
        self.progress_at = 0;
        self.barrier = Default::default();
        self.failed_test = FailedTest::default();
        self.reductions.clear();
        let valid = self.valid;
        match &mut self.ctl {
            Control::Stack(s) => {
                s.stack.clear();
                s.stack.push(Entry { pc: 0, rpc: NO_RECONV, mask: valid });
                s.at_barrier = 0;
            }
            Control::Its(s) => {
                let (mut barriers, mut iterations) = (std::mem::take(&mut s.barriers), std::mem::take(&mut s.iterations));
                barriers.clear();
                iterations.clear();
                **s = ItsCtl { barriers, iterations, ..ItsCtl::new(s.yield_after) };
            }
        }
    }

    /// Threads that have not exited.
    #[inline]
    pub(crate) fn live(&self) -> u32 {
        self.valid & !self.exited
    }

    /// Reads a register row.
    #[inline(always)]
    pub(crate) fn row(&self, r: Reg) -> &[u32; 32] {
        &self.regs[usize::from(r)]
    }

    /// The next group to issue.
    #[inline]
    pub(crate) fn next(&mut self, code: &[Decoded]) -> Next {
        let live = self.live();
        let (next, implicit_exit) = match &mut self.ctl {
            Control::Stack(s) => s.next(code.len() as u32),
            Control::Its(s) => s.next(code, live),
        };
        if implicit_exit != 0 {
            // Falling off the end of the kernel is an EXIT.
            self.exit_lanes(implicit_exit);
            return self.next(code);
        }
        next
    }

    fn exit_lanes(&mut self, lanes: u32) {
        self.exited |= lanes;
        match &mut self.ctl {
            Control::Stack(s) => s.exit(lanes),
            // Exited threads leave their barriers when the next choice refreshes them.
            Control::Its(s) => s.invalidate(),
        }
    }

    /// The issued group moves on to the next instruction.
    #[inline(always)]
    pub(crate) fn advance(&mut self, group: u32) {
        match &mut self.ctl {
            Control::Stack(s) => s.advance(),
            Control::Its(s) => s.advance(group),
        }
    }

    /// A `BRA` issued by `group`: `taken` lanes jump to `target`, the rest fall through.
    /// Returns whether the group split.
    pub(crate) fn branch(&mut self, pc: u32, group: u32, taken: u32, target: u32, reconv: u32) -> bool {
        let live = self.live();
        match &mut self.ctl {
            Control::Stack(s) => s.branch(pc, taken, target, reconv),
            Control::Its(s) => s.branch(pc, group, taken, target, reconv, live),
        }
    }

    /// An `EXIT` issued by `group`; `exec` lanes (guard true) end, the rest move on.
    pub(crate) fn exit(&mut self, group: u32, exec: u32) {
        if exec == 0 {
            // A bounds check's guarded EXIT usually lets everyone through: an ordinary step.
            self.advance(group);
            return;
        }
        if exec != group {
            self.advance_only(group & !exec);
        }
        self.exit_lanes(exec);
    }

    fn advance_only(&mut self, lanes: u32) {
        match &mut self.ctl {
            // The stack moves the whole entry; lanes leaving it are removed by `exit`.
            Control::Stack(s) => s.advance(),
            Control::Its(s) => s.advance_lanes(lanes),
        }
    }

    /// A `BAR.SYNC` issued by `group`: `exec` lanes arrive and wait for the block.
    pub(crate) fn arrive_at_barrier(&mut self, group: u32, exec: u32) {
        match &mut self.ctl {
            Control::Stack(s) => s.at_barrier = exec,
            Control::Its(s) => {
                if group & !exec != 0 {
                    s.advance_lanes(group & !exec);
                }
                s.invalidate();
                s.at_barrier |= exec;
            }
        }
    }

    /// Threads of this warp waiting at `BAR.SYNC`.
    pub(crate) fn at_barrier(&self) -> u32 {
        match &self.ctl {
            Control::Stack(s) => s.at_barrier,
            Control::Its(s) => s.at_barrier,
        }
    }

    /// Whether every non-exited thread waits at counted barrier `id` (so the warp has arrived there).
    pub(crate) fn waits_whole_at_counted(&self, id: u8) -> bool {
        let waiting = self.at_barrier();
        waiting != 0 && waiting == self.live() && self.barrier.id == id && self.barrier.count != 0
    }

    /// The block barrier completed: waiting threads move past it.
    pub(crate) fn release_barrier(&mut self) {
        match &mut self.ctl {
            Control::Stack(s) => {
                if s.at_barrier != 0 {
                    s.at_barrier = 0;
                    s.advance();
                }
            }
            Control::Its(s) => {
                let lanes = s.at_barrier;
                s.at_barrier = 0;
                s.advance_lanes(lanes);
            }
        }
    }

    /// `its` only: lets the thread group that has waited longest at a convergence barrier run.
    /// Returns false when no thread waits at one.
    pub(crate) fn release_longest_waiter(&mut self) -> bool {
        let live = self.live();
        match &mut self.ctl {
            Control::Stack(_) => false,
            Control::Its(s) => s.release_longest_waiter(live),
        }
    }

    /// A copy of the control state, for debuggers.
    pub(crate) fn view(&self) -> WarpView {
        let live = self.live();
        let control = match &self.ctl {
            Control::Stack(s) => ControlView::Stack(
                s.stack.iter().map(|e| StackEntry { pc: e.pc, reconv: (e.rpc != NO_RECONV && e.rpc != u32::MAX).then_some(e.rpc), mask: e.mask }).collect(),
            ),
            Control::Its(s) => {
                let pc_of = |l: usize| if s.group & (1 << l) != 0 { s.group_pc } else { s.pc[l] };
                // A barrier whose live members have all arrived is complete: the next choice drops it.
                let barriers: Vec<ConvergenceBarrier> = s
                    .barriers
                    .iter()
                    .map(|b| {
                        let members = b.members & live;
                        let arrived = lanes(members).filter(|&l| pc_of(l) == b.rpc).fold(0, |m, l| m | 1 << l);
                        ConvergenceBarrier { reconv: b.rpc, members, arrived }
                    })
                    .filter(|b| b.members != 0 && b.arrived != b.members)
                    .collect();
                let waiting = barriers.iter().fold(0, |m, b| m | b.arrived);
                let mut groups: Vec<ThreadGroup> = Vec::new();
                for l in lanes(live) {
                    let bit = 1 << l;
                    let state = if s.at_barrier & bit != 0 {
                        ThreadState::Barrier
                    } else if s.at_collective & bit != 0 {
                        ThreadState::Collective
                    } else if waiting & bit != 0 {
                        ThreadState::Reconvergence
                    } else {
                        ThreadState::Ready
                    };
                    let pc = pc_of(l);
                    match groups.iter_mut().find(|g| g.pc == pc && g.state == state) {
                        Some(g) => g.lanes |= bit,
                        None => groups.push(ThreadGroup { pc, lanes: bit, state }),
                    }
                }
                ControlView::Its { groups, barriers }
            }
        };
        WarpView { valid: self.valid, exited: self.exited, at_barrier: self.at_barrier(), control }
    }

    /// Where each thread is, for fault messages: (pc, threads, what they do there).
    pub(crate) fn whereabouts(&self) -> Vec<(u32, u32, String)> {
        let at_barrier = format!("wait at {}", self.barrier);
        let mut out: Vec<(u32, u32, String)> = Vec::new();
        let mut add = |pc: u32, lane: usize, what: &str| match out.iter_mut().find(|(p, _, w)| *p == pc && w == what) {
            Some(e) => e.1 |= 1 << lane,
            None => out.push((pc, 1 << lane, what.to_string())),
        };
        match &self.ctl {
            Control::Stack(s) => {
                let mut seen = 0u32;
                for (depth, e) in s.stack.iter().enumerate().rev() {
                    let lanes_here = e.mask & !seen & self.live();
                    seen |= e.mask;
                    let what = if depth + 1 == s.stack.len() {
                        if s.at_barrier != 0 { at_barrier.as_str() } else { "run" }
                    } else {
                        "wait on the reconvergence stack"
                    };
                    for l in lanes(lanes_here) {
                        add(e.pc, l, what);
                    }
                }
            }
            Control::Its(s) => {
                for l in lanes(self.live()) {
                    let bit = 1 << l;
                    let pc = if s.group & bit != 0 { s.group_pc } else { s.pc[l] };
                    let what = if s.at_barrier & bit != 0 {
                        at_barrier.as_str()
                    } else if s.at_collective & bit != 0 {
                        "wait for the whole warp at a collective"
                    } else if s.waiting & bit != 0 {
                        "wait to reconverge"
                    } else {
                        "run"
                    };
                    add(pc, l, what);
                }
            }
        }
        out.sort_by_key(|&(pc, mask, _)| (mask.trailing_zeros(), pc));
        out
    }
}

impl StackCtl {
    /// Pops entries that reached their reconvergence point or lost all lanes.
    fn normalize(&mut self) {
        while let Some(top) = self.stack.last() {
            if top.mask == 0 || top.pc == top.rpc {
                self.stack.pop();
            } else {
                break;
            }
        }
    }

    #[inline]
    fn next(&mut self, len: u32) -> (Next, u32) {
        match self.stack.last() {
            None => (Next::Done, 0),
            Some(_) if self.at_barrier != 0 => (Next::Blocked(BlockReason::Barrier), 0),
            // Falling off the end exits the lanes; the caller asks again.
            Some(top) if top.pc >= len => (Next::Done, top.mask),
            Some(top) => (Next::Issue { pc: top.pc, mask: top.mask }, 0),
        }
    }

    #[inline(always)]
    fn advance(&mut self) {
        if let Some(top) = self.stack.last_mut() {
            top.pc += 1;
            if top.pc == top.rpc {
                self.normalize();
            }
        }
    }

    fn branch(&mut self, pc: u32, taken: u32, target: u32, reconv: u32) -> bool {
        let Some(top) = self.stack.last_mut() else { return false };
        let mask = top.mask;
        let fall = mask & !taken;
        let split = taken != 0 && fall != 0;
        if !split {
            top.pc = if taken != 0 { target } else { pc + 1 };
        } else {
            // The assembler gives every branch that can split a reconvergence pc.
            let rpc = if reconv == NO_RECONV { u32::MAX } else { reconv };
            top.pc = rpc;
            self.stack.push(Entry { pc: target, rpc, mask: taken });
            self.stack.push(Entry { pc: pc + 1, rpc, mask: fall });
        }
        self.normalize();
        split
    }

    fn exit(&mut self, lanes: u32) {
        for e in &mut self.stack {
            e.mask &= !lanes;
        }
        self.normalize();
    }
}

impl ItsCtl {
    fn new(yield_after: u32) -> ItsCtl {
        ItsCtl {
            pc: [0; 32],
            rank: [0; 32],
            next_rank: 0,
            waiting: 0,
            wait_since: [0; 32],
            at_barrier: 0,
            at_collective: 0,
            barriers: Vec::new(),
            forced: 0,
            iterations: Vec::new(),
            streak_group: 0,
            yield_after,
            group: 0,
            group_pc: 0,
            others_runnable: false,
            tick: 0,
        }
    }

    /// Writes the issuing group's pc back to its threads.
    #[inline]
    fn flush(&mut self) {
        for l in lanes(self.group) {
            self.pc[l] = self.group_pc;
        }
    }

    /// Whether `pc` is the reconvergence point of a barrier some of `group` belong to.
    #[inline(always)]
    fn stops_at(&self, pc: u32, group: u32) -> bool {
        self.barriers.iter().any(|b| b.rpc == pc && b.members & group != 0)
    }

    #[inline(always)]
    fn advance(&mut self, group: u32) {
        self.group_pc += 1;
        if self.others_runnable || self.stops_at(self.group_pc, group) {
            self.flush();
            self.group = 0;
        }
    }

    fn advance_lanes(&mut self, lanes_mask: u32) {
        self.flush();
        for l in lanes(lanes_mask) {
            self.pc[l] += 1;
        }
        self.group = 0;
    }

    /// Forgets the issuing group so the next step chooses again.
    fn invalidate(&mut self) {
        self.flush();
        self.group = 0;
    }

    fn branch(&mut self, pc: u32, group: u32, taken: u32, target: u32, reconv: u32, live: u32) -> bool {
        let fall = group & !taken;
        let split = taken != 0 && fall != 0;
        if split {
            let rank = self.rank[group.trailing_zeros() as usize];
            if reconv != NO_RECONV && !self.barriers.iter().any(|b| b.rpc == reconv && b.members & group == group) {
                self.barriers.push(ConvBarrier { rpc: reconv, members: group, rank });
            }
            for l in lanes(group) {
                self.rank[l] = self.next_rank + if taken & (1 << l) != 0 { 1 } else { 2 };
            }
            self.next_rank += 2;
        }
        let yield_now = taken != 0 && target <= pc && self.waiting & live != 0 && self.count_iteration(pc, target, taken);
        if self.waiting & live == 0 {
            self.iterations.clear();
        }
        if !split && !yield_now {
            self.group_pc = if taken != 0 { target } else { pc + 1 };
            if self.others_runnable || self.stops_at(self.group_pc, group) {
                self.flush();
                self.group = 0;
            }
            return false;
        }
        self.group = 0;
        for l in lanes(group) {
            self.pc[l] = if taken & (1 << l) != 0 { target } else { pc + 1 };
        }
        if yield_now {
            self.iterations.clear();
            self.release_longest_waiter(live);
        }
        split
    }

    /// Counts one iteration of the loop closed by the backward branch at `pc` and
    /// says whether `group` has now gone round it `Y` times in a row. An inner
    /// loop starts counting afresh whenever an enclosing loop goes round, so
    /// nested loops that each end within `Y` iterations never yield (and keep
    /// the stack model's masks), while a spin loop does, whatever it contains.
    fn count_iteration(&mut self, pc: u32, target: u32, group: u32) -> bool {
        if self.streak_group != group {
            self.streak_group = group;
            self.iterations.clear();
        }
        self.iterations.retain(|&(edge, _)| !(target <= edge && edge < pc));
        let count = match self.iterations.iter_mut().find(|(edge, _)| *edge == pc) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                self.iterations.push((pc, 1));
                1
            }
        };
        count >= self.yield_after
    }

    /// Drops barriers whose live members all arrived (or exited) and recomputes `waiting`.
    fn refresh(&mut self, live: u32) {
        loop {
            let complete = self.barriers.iter().position(|b| {
                let members = b.members & live;
                members == 0 || lanes(members).all(|l| self.pc[l] == b.rpc)
            });
            let Some(i) = complete else { break };
            let b = self.barriers.remove(i);
            for l in lanes(b.members & live) {
                self.rank[l] = b.rank;
            }
        }
        let mut waiting = 0u32;
        for b in &self.barriers {
            for l in lanes(b.members & live) {
                if self.pc[l] == b.rpc {
                    waiting |= 1 << l;
                }
            }
        }
        for l in lanes(waiting & !self.waiting) {
            self.wait_since[l] = self.tick;
        }
        self.waiting = waiting;
    }

    /// Chooses the next group. Calling it again without an issue or a release in
    /// between returns the same answer and changes nothing further, so a timing
    /// model may ask (peek) as often as it likes.
    #[inline(always)]
    fn next(&mut self, code: &[Decoded], live: u32) -> (Next, u32) {
        if self.group != 0 {
            let pc = self.group_pc;
            match code.get(pc as usize) {
                Some(d) if !d.collective || self.group == live => return (Next::Issue { pc, mask: self.group }, 0),
                _ => {}
            }
            self.flush();
            self.group = 0;
        }
        self.choose_next(code, live)
    }

    /// The slow half of [`ItsCtl::next`]: no group is issuing, so pick one.
    fn choose_next(&mut self, code: &[Decoded], live: u32) -> (Next, u32) {
        if live == 0 {
            return (Next::Done, 0);
        }
        let len = code.len() as u32;
        let off_end = live & lanes_where(|l| self.pc[l] >= len);
        if off_end != 0 {
            // Falling off the end exits the lanes; the caller asks again.
            return (Next::Done, off_end);
        }
        if self.barriers.is_empty() && self.at_barrier | self.at_collective | self.forced == 0 {
            // Nothing waits anywhere: a converged warp (the usual case) issues as one group.
            let first = live.trailing_zeros() as usize;
            let (pc, rank) = (self.pc[first], self.rank[first]);
            if live & lanes_where(|l| self.pc[l] == pc && self.rank[l] == rank) == live && !code[pc as usize].collective {
                self.waiting = 0;
                return (self.choose(live, live), 0);
            }
        }
        self.refresh(live);
        loop {
            let runnable = live & !self.waiting & !self.at_barrier & !self.at_collective;
            if runnable == 0 {
                if live == 0 {
                    return (Next::Done, 0);
                }
                if self.at_collective == live && self.same_pc(live) {
                    self.at_collective = 0;
                    return (self.choose(live, live), 0);
                }
                let reason = if self.at_collective & live != 0 {
                    BlockReason::Collective
                } else if self.at_barrier & live != 0 {
                    BlockReason::Barrier
                } else {
                    BlockReason::Reconvergence
                };
                return (Next::Blocked(reason), 0);
            }
            let candidates = if self.forced & runnable != 0 {
                self.forced & runnable
            } else {
                self.forced = 0;
                runnable
            };
            let rank = (0..32).fold(0, |m, l| if candidates >> l & 1 != 0 { m.max(self.rank[l]) } else { m });
            let top = candidates & lanes_where(|l| self.rank[l] == rank);
            let pc = (0..32).fold(u32::MAX, |m, l| if top >> l & 1 != 0 { m.min(self.pc[l]) } else { m });
            let group = top & lanes_where(|l| self.pc[l] == pc);
            if code[pc as usize].collective && group != live {
                self.at_collective |= group;
                if self.at_collective == live && self.same_pc(live) {
                    self.at_collective = 0;
                    return (self.choose(live, live), 0);
                }
                continue;
            }
            return (self.choose(group, runnable), 0);
        }
    }

    fn same_pc(&self, mask: u32) -> bool {
        let first = self.pc[mask.trailing_zeros() as usize];
        lanes(mask).all(|l| self.pc[l] == first)
    }

    fn choose(&mut self, group: u32, runnable: u32) -> Next {
        // Time, for "waited longest", advances with decisions, not with questions.
        self.tick += 1;
        self.group = group;
        self.group_pc = self.pc[group.trailing_zeros() as usize];
        // Only threads of the same rank can take over from the group without an event.
        let rank = self.rank[group.trailing_zeros() as usize];
        self.others_runnable = lanes(runnable & !group).any(|l| self.rank[l] >= rank);
        Next::Issue { pc: self.group_pc, mask: group }
    }

    fn release_longest_waiter(&mut self, live: u32) -> bool {
        self.flush();
        self.group = 0;
        self.refresh(live);
        let Some(first) = lanes(self.waiting).min_by_key(|&l| (self.wait_since[l], l)) else { return false };
        let pc = self.pc[first];
        let released = lanes(self.waiting).filter(|&l| self.pc[l] == pc).fold(0u32, |m, l| m | 1 << l);
        for b in self.barriers.iter_mut().filter(|b| b.rpc == pc) {
            b.members &= !released;
        }
        self.forced = released;
        self.refresh(live);
        true
    }
}
