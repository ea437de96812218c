//! The optional checks of `simt run --check`: racecheck, initcheck and synccheck.
//!
//! memcheck is not here: bounds, alignment and null checks are part of every
//! access and always on. The other checks keep shadow state per block, so a
//! launch without them pays one branch per memory instruction and nothing else.
//! Each finding is a fault with both source lines. Like NVIDIA's
//! compute-sanitizer the launch goes on after one, and each distinct finding
//! (kind, pc, the other access's pc) is reported once with how often it
//! happened; unlike it, the report is deterministic: blocks never share what
//! is checked, and findings are ordered as a one-thread run meets them.
//!
//! [`Sanitizer`] owns the shadow state and the findings of the blocks of one SM.
//! The executor hands it each instruction and access along with a view of itself
//! (`&Executor`) to read registers from and to locate a finding's thread and line.

use crate::{TMEM_COLUMNS, TMEM_LANES};
use std::collections::{BTreeMap, HashMap};

use simt_isa::{AccessKind, Space};

use crate::decode::Op;
use crate::exec::collective::{CollectiveOp, shfl_source};
use crate::exec::control::ControlOp;
use crate::exec::{Executor, Sync, describe_lanes, fetch, lanes, mask_of};
use crate::fault::{Fault, FaultKind};
use crate::launch::SimtModel;

/// Which optional checks run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Checks {
    /// Shared-memory hazards between threads with no barrier in between.
    pub racecheck: bool,
    /// Reads of registers, shared or local memory that nothing wrote.
    pub initcheck: bool,
    /// `BAR.SYNC` or a warp collective reached by a diverged warp.
    pub synccheck: bool,
}

impl Checks {
    /// The sanitizers as `--check` and Python's `sanitize=` name them; memcheck is always on.
    pub const NAMES: [&'static str; 4] = ["memcheck", "racecheck", "initcheck", "synccheck"];

    /// Turns on the sanitizer called `name` (one of [`Checks::NAMES`]).
    ///
    /// # Errors
    /// A name that is no sanitizer, in words that list them.
    pub fn enable(&mut self, name: &str) -> Result<(), simt_isa::UnknownName> {
        match name {
            "memcheck" => {}
            "racecheck" => self.racecheck = true,
            "initcheck" => self.initcheck = true,
            "synccheck" => self.synccheck = true,
            other => return Err(simt_isa::UnknownName { what: "a sanitizer", given: other.to_string(), choices: Checks::NAMES.to_vec() }),
        }
        Ok(())
    }

    /// Whether any check needs shadow state.
    pub fn any(self) -> bool {
        self.racecheck || self.initcheck || self.synccheck
    }
}

/// What makes two findings the same: their kind, pc and the other access's pc.
type FindingKey = (FaultKind, u32, Option<u32>);

/// The distinct sanitizer findings of one or more blocks.
#[derive(Clone, Debug, Default)]
pub(crate) struct Findings {
    found: BTreeMap<FindingKey, Found>,
    /// Findings noted so far here: orders those of one block.
    noted: u64,
}

#[derive(Clone, Debug)]
struct Found {
    /// The first occurrence: the one of the lowest block, the earliest in that block.
    fault: Fault,
    first: (u64, u64),
    count: u64,
}

/// One distinct sanitizer finding of a launch.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// Its first occurrence, in block order.
    #[serde(flatten)]
    pub fault: Fault,
    /// How often it happened (once per thread and issue); `None` when the launch
    /// stopped at a fault, as blocks after that one may or may not have run.
    pub count: Option<u64>,
}

impl Findings {
    /// Notes a finding of block `block`; `make` builds its report only when it is new
    /// or earlier than the one kept, so a finding repeated a million times costs a count.
    fn note(&mut self, key: FindingKey, block: u64, make: impl FnOnce() -> Fault) {
        self.noted += 1;
        let first = (block, self.noted);
        match self.found.get_mut(&key) {
            Some(found) => {
                found.count += 1;
                if first < found.first {
                    (found.fault, found.first) = (make(), first);
                }
            }
            None => {
                self.found.insert(key, Found { fault: make(), first, count: 1 });
            }
        }
    }

    /// Adds another SM's findings (in any order: the result is the same).
    pub(crate) fn add(&mut self, other: &Findings) {
        for (key, theirs) in &other.found {
            match self.found.get_mut(key) {
                Some(ours) => {
                    ours.count += theirs.count;
                    if theirs.first < ours.first {
                        (ours.fault, ours.first) = (theirs.fault.clone(), theirs.first);
                    }
                }
                None => {
                    self.found.insert(*key, theirs.clone());
                }
            }
        }
    }

    /// The findings in the order a one-thread run meets them.
    pub(crate) fn sorted(&self) -> Vec<Finding> {
        self.in_order(|_| true).map(|f| Finding { fault: f.fault.clone(), count: Some(f.count) }).collect()
    }

    /// The findings of a launch that faulted in block `block`: those first made up to
    /// that block, which ran whatever the thread count, without counts (blocks after
    /// it may or may not have run).
    pub(crate) fn up_to_fault(&self, block: u64) -> Vec<Finding> {
        self.in_order(|f| f.first.0 <= block).map(|f| Finding { fault: f.fault.clone(), count: None }).collect()
    }

    fn in_order(&self, keep: impl Fn(&Found) -> bool) -> impl Iterator<Item = &Found> {
        let mut found: Vec<&Found> = self.found.values().filter(|f| keep(f)).collect();
        found.sort_by_key(|f| f.first);
        found.into_iter()
    }
}

/// One access remembered for racecheck.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Access {
    pub thread: u32,
    pub warp: u32,
    pub pc: u32,
    /// The warp's own entry of its vector clock at the access: how many releases (barrier and
    /// mbarrier arrivals) it had made, plus 1.
    pub clock: u32,
    /// Warp synchronisations of the thread's warp before the access.
    pub warp_epoch: u32,
    /// The warp's issue count: lanes of one issue act at the same time.
    pub issue: u64,
    pub atomic: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct Shadow {
    write: Option<Access>,
    /// Up to two readers from different threads, enough to find any other reader.
    reads: [Option<Access>; 2],
}

/// A finding: the access that revealed it, the earlier one, and what happened.
#[derive(Debug)]
pub(crate) struct Hazard {
    pub earlier: Access,
    pub kind: &'static str,
    /// The shared byte where the two meet.
    pub byte: usize,
}

/// Shadow entries that cost nothing until touched, kept from block to block on one
/// SM, and reset in proportion to what the block touched (pages of entries), so a
/// block that only exits costs nothing however much memory it declares.
struct ShadowMem<T: Copy + Default> {
    data: Vec<T>,
    len: usize,
    /// Pages written since the last reset, and a flag per page.
    dirty: Vec<usize>,
    page_dirty: Vec<bool>,
}

/// Entries per page of shadow state.
const SHADOW_PAGE: usize = 4096;

impl<T: Copy + Default> ShadowMem<T> {
    fn new(len: usize) -> Self {
        ShadowMem { data: Vec::new(), len, dirty: Vec::new(), page_dirty: Vec::new() }
    }

    /// Entry `i`, or `None` while nothing was written (every entry is the default then).
    fn get(&self, i: usize) -> Option<&T> {
        self.data.get(i)
    }

    fn get_mut(&mut self, i: usize) -> &mut T {
        if self.data.is_empty() {
            self.data = vec![T::default(); self.len];
            self.page_dirty = vec![false; self.len.div_ceil(SHADOW_PAGE)];
        }
        let page = i / SHADOW_PAGE;
        if !self.page_dirty[page] {
            self.page_dirty[page] = true;
            self.dirty.push(page);
        }
        &mut self.data[i]
    }

    /// Entry `i` back to the default, where anything was written.
    fn clear(&mut self, i: usize) {
        if let Some(entry) = self.data.get_mut(i) {
            *entry = T::default();
        }
    }

    fn reset(&mut self) {
        for page in self.dirty.drain(..) {
            self.page_dirty[page] = false;
            let end = ((page + 1) * SHADOW_PAGE).min(self.len);
            self.data[page * SHADOW_PAGE..end].fill(T::default());
        }
    }
}

/// Tensor memory's cells.
const TMEM_CELLS: usize = (TMEM_LANES * TMEM_COLUMNS) as usize;

/// The most warps a block holds: the width of a vector clock.
const BLOCK_WARPS: usize = (simt_isa::MAX_BLOCK_THREADS / 32) as usize;

/// A warp's vector clock (racecheck): entry `v` is how far into warp `v`'s releases this
/// warp is ordered after (its own entry: its releases so far, plus 1). An access of warp `v`
/// at clock `c` happens before now for warp `w` when `c <= clocks[w][v]` (Lamport's
/// happens-before, as FastTrack keeps it).
type Clock = [u32; BLOCK_WARPS];

fn join(into: &mut Clock, from: &Clock) {
    into.iter_mut().zip(from).for_each(|(a, b)| *a = (*a).max(*b));
}

/// Whether `a` is ordered before `now` by the block's synchronisations, `seen` being the
/// clock of `now`'s warp: an access of another warp that `now`'s warp has acquired, or one of
/// `now`'s warp before its latest release.
#[inline(always)]
fn happens_before(seen: &Clock, a: &Access, now: &Access) -> bool {
    if a.warp == now.warp { a.clock < now.clock } else { seen.get(a.warp as usize).is_some_and(|&c| a.clock <= c) }
}

/// Whether nothing orders `a` and `now` (`seen`: the clock of `now`'s warp) under `model`.
#[inline(always)]
fn concurrent(model: SimtModel, seen: &Clock, a: &Access, now: &Access) -> bool {
    if a.thread == now.thread || (a.atomic && now.atomic) || happens_before(seen, a, now) {
        return false;
    }
    if a.warp != now.warp {
        return true;
    }
    match model {
        // Independent thread scheduling promises nothing between threads of a warp without a sync.
        SimtModel::Its => a.warp_epoch == now.warp_epoch,
        // Lock-step warps order their instructions; only one issue's lanes act together.
        SimtModel::Stack => a.issue == now.issue,
    }
}

/// The checks of the blocks running on one SM: their shadow state (reset, not rebuilt,
/// for the next block) and what they found.
pub(crate) struct Sanitizer {
    checks: Checks,
    model: SimtModel,
    /// Per byte of shared memory (racecheck).
    shared: ShadowMem<Shadow>,
    /// Per cell of tensor memory, lane by lane (racecheck), and written since it was
    /// allocated (initcheck); made only for a kernel that touches it.
    tmem: ShadowMem<Shadow>,
    tmem_init: ShadowMem<bool>,
    /// Per byte of shared / local memory: written yet (initcheck).
    shared_init: ShadowMem<bool>,
    local_init: ShadowMem<bool>,
    /// Per warp, per register row: lanes that wrote it (initcheck).
    regs_written: Vec<Vec<u32>>,
    /// Each warp's vector clock (racecheck).
    clocks: Vec<Clock>,
    /// What each counted barrier's phase in progress releases: its arrivals' clocks, joined.
    released: [Clock; simt_isa::BARRIERS as usize],
    /// The same for each mbarrier the block arrived on, by shared byte offset (every phase's:
    /// a wait acquires arrivals of later phases too, which may miss a race, never invent one).
    mbarriers: HashMap<usize, Clock>,
    warp_epochs: Vec<u32>,
    /// The findings of the blocks run since the last [`Sanitizer::take_findings`].
    findings: Findings,
}

/// A warp's clock as a block starts: nothing of any warp acquired, its own history at 1.
fn fresh_clock(w: usize) -> Clock {
    let mut clock = [0; BLOCK_WARPS];
    clock[w] = 1;
    clock
}

impl Sanitizer {
    pub(crate) fn new(checks: Checks, model: SimtModel, shared: usize, local: usize, warps: usize, rows: usize) -> Sanitizer {
        Sanitizer {
            checks,
            model,
            shared: ShadowMem::new(shared),
            shared_init: ShadowMem::new(shared),
            tmem: ShadowMem::new(TMEM_CELLS),
            tmem_init: ShadowMem::new(TMEM_CELLS),
            local_init: ShadowMem::new(local),
            regs_written: if checks.initcheck { vec![vec![0; rows]; warps] } else { Vec::new() },
            clocks: (0..warps).map(fresh_clock).collect(),
            released: [[0; BLOCK_WARPS]; simt_isa::BARRIERS as usize],
            mbarriers: HashMap::new(),
            warp_epochs: vec![0; warps],
            findings: Findings::default(),
        }
    }

    /// The state of a fresh block.
    pub(crate) fn reset(&mut self) {
        self.shared.reset();
        self.shared_init.reset();
        self.tmem.reset();
        self.tmem_init.reset();
        self.local_init.reset();
        self.regs_written.iter_mut().for_each(|w| w.fill(0));
        self.clocks.iter_mut().enumerate().for_each(|(w, c)| *c = fresh_clock(w));
        self.released = [[0; BLOCK_WARPS]; simt_isa::BARRIERS as usize];
        self.mbarriers.clear();
        self.warp_epochs.fill(0);
    }

    /// A block barrier every thread waits at completed: every earlier access is ordered
    /// before every later one.
    pub(crate) fn barrier(&mut self) {
        let mut all = [0; BLOCK_WARPS];
        self.clocks.iter().for_each(|c| join(&mut all, c));
        for (w, clock) in self.clocks.iter_mut().enumerate() {
            *clock = all;
            clock[w] += 1;
        }
    }

    /// Orders accesses by the counted-barrier and mbarrier synchronisations noted since the
    /// last call, taking them: an arrival releases what its warp did before it, and the wait
    /// it ends acquires it.
    pub(crate) fn synchronise(&mut self, syncs: &mut Vec<Sync>) {
        for sync in syncs.drain(..) {
            match sync {
                Sync::Arrive { warp, barrier } => self.release(usize::from(warp), |s| &mut s.released[usize::from(barrier)]),
                Sync::Open { barrier, waiters } => {
                    let released = std::mem::replace(&mut self.released[usize::from(barrier)], [0; BLOCK_WARPS]);
                    lanes(waiters).for_each(|w| join(&mut self.clocks[w], &released));
                }
                Sync::MbarArrive { warp, at } => self.release(usize::from(warp), |s| s.mbarriers.entry(at).or_insert([0; BLOCK_WARPS])),
                Sync::MbarComplete { warp, at } => {
                    if let Some(released) = self.mbarriers.get(&at) {
                        join(&mut self.clocks[usize::from(warp)], released);
                    }
                }
            }
        }
    }

    /// Warp `w` releases what it did so far into `into`'s clock, and starts a new stretch.
    fn release(&mut self, w: usize, into: impl FnOnce(&mut Sanitizer) -> &mut Clock) {
        let mine = self.clocks[w];
        join(into(self), &mine);
        self.clocks[w][w] += 1;
    }

    /// The threads of warp `w` synchronised (WARPSYNC, a collective or a barrier).
    fn warp_sync(&mut self, w: usize) {
        self.warp_epochs[w] += 1;
    }

    fn access(&self, thread: u32, warp: usize, pc: u32, issue: u64, atomic: bool) -> Access {
        Access { thread, warp: warp as u32, pc, clock: self.clocks[warp][warp], warp_epoch: self.warp_epochs[warp], issue, atomic }
    }

    fn init_bytes(&mut self, space: Space) -> &mut ShadowMem<bool> {
        if space == Space::Shared { &mut self.shared_init } else { &mut self.local_init }
    }

    /// initcheck on a read of bytes `at .. at + size`: whether all were written.
    fn initialised(&mut self, space: Space, at: usize, size: usize) -> bool {
        let bytes = self.init_bytes(space);
        (at..at + size).all(|i| bytes.get(i).is_some_and(|&written| written))
    }

    /// initcheck: bytes `at .. at + size` now hold written values.
    fn mark_written(&mut self, space: Space, at: usize, size: usize) {
        let bytes = self.init_bytes(space);
        (at..at + size).for_each(|i| *bytes.get_mut(i) = true);
    }

    /// initcheck: lanes of `exec` that read register `r` of warp `w` before writing it.
    fn unwritten(&self, w: usize, r: usize, exec: u32) -> Option<u32> {
        let missing = exec & !self.regs_written[w][r];
        (missing != 0).then_some(missing)
    }

    /// initcheck: register `r` was written by `exec` lanes of warp `w`.
    fn wrote(&mut self, w: usize, r: usize, exec: u32) {
        self.regs_written[w][r] |= exec;
    }
}

impl Sanitizer {
    /// Notes a finding of the block `ex` runs; the launch goes on. `other` is what else it
    /// involves (the earlier access's pc, or the register read), so each distinct
    /// finding is reported once.
    fn finding(&mut self, ex: &Executor<'_>, kind: FaultKind, pc: u32, other: Option<u32>, make: impl FnOnce() -> Fault) {
        self.findings.note((kind, pc, other), ex.linear, make);
    }

    /// What the checks found since the last call, to hand back with the block's counters.
    pub(crate) fn take_findings(&mut self) -> Findings {
        std::mem::take(&mut self.findings)
    }

    /// synccheck and initcheck of registers, before an instruction of warp `w` runs.
    pub(crate) fn check_issue(&mut self, ex: &Executor<'_>, w: usize, pc: u32, mask: u32, exec: u32) {
        let program = &ex.launch.program;
        let op = program.code[pc as usize].op;
        let live = ex.warps[w].live();
        let first = exec.trailing_zeros().min(31) as usize;
        if self.checks.synccheck {
            match op {
                // A warp whose guard is false throughout passes the barrier whole: only a split arrival is one.
                Op::Control(ControlOp::BarSync { .. } | ControlOp::BarRed { .. } | ControlOp::BarArrive { .. })
                    if exec != 0 && (mask != live || exec != mask) =>
                {
                    self.finding(ex, FaultKind::Divergence, pc, None, || {
                        let message = format!(
                            "synccheck: {} is reached by {} of warp {w} while {} of the warp are elsewhere (a barrier in divergent code)",
                            ex.launch.kernel.code[pc as usize].form.opcode(),
                            describe_lanes(exec),
                            describe_lanes(live & !exec)
                        );
                        ex.fault(FaultKind::Divergence, w, Some(first), Some(pc), message)
                    });
                }
                Op::Collective(CollectiveOp::Shfl { mode, b, width, .. }) => {
                    // Reading a lane that takes no part (inactive under `stack`, exited) gives a stale value.
                    let b = fetch(&ex.warps[w], b);
                    let source = |l: usize| shfl_source(mode, l, b[l], width);
                    let stale = exec & mask_of(|l| mask & (1 << source(l)) == 0);
                    if stale != 0 {
                        self.finding(ex, FaultKind::Divergence, pc, None, || {
                            let l = stale.trailing_zeros() as usize;
                            let message = format!(
                                "synccheck: SHFL in {} reads lanes that take no part (lane {l} reads lane {}, which is {})",
                                describe_lanes(stale),
                                source(l),
                                if live & (1 << source(l)) == 0 { "exited or missing" } else { "inactive: the warp is diverged" }
                            );
                            ex.fault(FaultKind::Divergence, w, Some(l), Some(pc), message)
                        });
                    }
                }
                _ => {}
            }
        }
        if self.checks.initcheck {
            let rows = program.rows - 2;
            for r in program.effects[pc as usize].reads.iter().map(usize::from).take_while(|&r| r < rows) {
                let Some(missing) = self.unwritten(w, r, exec) else { continue };
                self.finding(ex, FaultKind::Uninitialized, pc, Some(r as u32), || {
                    let message = format!(
                        "initcheck: R{r} is read by {} before anything wrote it (registers start at 0, but reading one unwritten is usually a bug)",
                        describe_lanes(missing)
                    );
                    ex.fault(FaultKind::Uninitialized, w, Some(missing.trailing_zeros() as usize), Some(pc), message)
                });
            }
        }
    }

    /// initcheck and racecheck bookkeeping after an instruction of warp `w` ran.
    pub(crate) fn after_issue(&mut self, ex: &Executor<'_>, w: usize, pc: u32, exec: u32) {
        let program = &ex.launch.program;
        if self.checks.initcheck {
            for r in program.effects[pc as usize].writes.iter() {
                self.wrote(w, usize::from(r), exec);
            }
        }
        if program.code[pc as usize].collective {
            self.warp_sync(w);
        }
    }

    /// Lane `l` of warp `w` had a tensor copy write (`load`: into shared memory) or read (a
    /// store out of it) the `size` bytes of shared memory at `at` (a `TMEM.ALLOC` storing its
    /// address counts as a load's write): racecheck takes them as that
    /// thread's accesses (a load's bytes are released to its mbarrier's waiters with the
    /// thread's own, `Sync::MbarArrive`); initcheck counts a load's bytes written and checks
    /// that a store's were.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn tensor_copy(&mut self, ex: &Executor<'_>, w: usize, l: usize, pc: u32, at: usize, size: usize, load: bool) {
        if self.checks.racecheck {
            // A box is large: the report names the byte where the two meet.
            let kind = if load { AccessKind::Store } else { AccessKind::Load };
            self.race_check(ex, w, l, pc, at, size, kind, None, |_, _| false);
        }
        if self.checks.initcheck {
            if load {
                self.mark_written(Space::Shared, at, size);
            } else if let Some(byte) = (at..at + size).find(|&b| !self.initialised(Space::Shared, b, 1)) {
                self.finding(ex, FaultKind::Uninitialized, pc, None, || {
                    let message = format!("initcheck: {} reads the box's byte at shared address {byte:#x}, which no thread wrote", ex.mnemonic(pc));
                    ex.fault(FaultKind::Uninitialized, w, Some(l), Some(pc), message)
                });
            }
        }
    }

    /// racecheck and initcheck of the `size`-byte elements of shared memory a `WGMMA` of warp
    /// `w` read through its descriptors, each by the lane whose fragment holds it.
    pub(crate) fn tensor_reads(&mut self, ex: &Executor<'_>, w: usize, pc: u32, reads: &[(u8, u32)], size: u32) {
        for &(lane, addr) in reads {
            let (l, at) = (usize::from(lane), addr as usize);
            if self.checks.racecheck {
                self.race_check(ex, w, l, pc, at, size as usize, AccessKind::Load, Some(addr), |_, _| false);
            }
            if self.checks.initcheck {
                self.unwritten_read(ex, w, l, pc, Space::Shared, at, addr, size);
            }
        }
    }

    /// A `TMEM.ALLOC` gave `columns` columns from `first`: fresh cells, which no access has
    /// touched and nothing has written.
    pub(crate) fn tmem_allocated(&mut self, first: u32, columns: u32) {
        for lane in 0..TMEM_LANES {
            for cell in lane * TMEM_COLUMNS + first..lane * TMEM_COLUMNS + first + columns {
                self.tmem.clear(cell as usize);
                self.tmem_init.clear(cell as usize);
            }
        }
    }

    /// racecheck and initcheck of warp `w`'s accesses at `pc` to tensor memory: `(lane, cell)`
    /// each, the cell `lane << 9 | column` (`TMEM_COLUMNS` a lane); reads unless `write`.
    pub(crate) fn tmem_accesses(&mut self, ex: &Executor<'_>, w: usize, pc: u32, cells: &[(u8, u32)], write: bool) {
        let kind = if write { AccessKind::Store } else { AccessKind::Load };
        for &(lane, cell) in cells {
            let (l, at) = (usize::from(lane), cell as usize);
            let place = || format!("TMEM lane {} column {}", cell / TMEM_COLUMNS, cell % TMEM_COLUMNS);
            if self.checks.racecheck {
                let now = self.access((w * 32 + l) as u32, w, pc, ex.warps[w].issued, false);
                if let Some(hazard) = record(&mut self.tmem, self.model, &self.clocks[w], now, at, 1, write, |_, _| false) {
                    self.finding(ex, FaultKind::Race, pc, Some(hazard.earlier.pc), || race_fault(ex, w, l, pc, &place(), kind, hazard));
                }
            }
            if self.checks.initcheck {
                if write {
                    *self.tmem_init.get_mut(at) = true;
                } else if !self.tmem_init.get(at).is_some_and(|&written| written) {
                    self.finding(ex, FaultKind::Uninitialized, pc, None, || {
                        let message = format!(
                            "initcheck: {} reads {}, which no thread wrote since TMEM.ALLOC gave it (fresh tensor memory is undefined on hardware; simt's reads 0)",
                            ex.mnemonic(pc),
                            place()
                        );
                        ex.fault(FaultKind::Uninitialized, w, Some(l), Some(pc), message)
                    });
                }
            }
        }
    }

    /// racecheck of lane `l` of warp `w`'s access at `pc` to shared bytes `at .. at + size`:
    /// records it and notes the hazard it makes, reported at `addr` (else at the byte where
    /// the two accesses meet). `benign` as for [`record`].
    #[allow(clippy::too_many_arguments)]
    fn race_check(
        &mut self,
        ex: &Executor<'_>,
        w: usize,
        l: usize,
        pc: u32,
        at: usize,
        size: usize,
        kind: AccessKind,
        addr: Option<u32>,
        benign: impl Fn(&Access, &Access) -> bool,
    ) {
        let now = self.access((w * 32 + l) as u32, w, pc, ex.warps[w].issued, kind == AccessKind::Atomic);
        if let Some(hazard) = record(&mut self.shared, self.model, &self.clocks[w], now, at, size, kind != AccessKind::Load, benign) {
            let addr = addr.unwrap_or(hazard.byte as u32);
            self.finding(ex, FaultKind::Race, pc, Some(hazard.earlier.pc), || race_fault(ex, w, l, pc, &format!("shared address {addr:#x}"), kind, hazard));
        }
    }

    /// initcheck of lane `l` of warp `w`'s read at `pc` of `size` bytes of `space` at `at`
    /// (address `addr`): a finding unless every byte was written.
    #[allow(clippy::too_many_arguments)]
    fn unwritten_read(&mut self, ex: &Executor<'_>, w: usize, l: usize, pc: u32, space: Space, at: usize, addr: u32, size: u32) {
        if self.initialised(space, at, size as usize) {
            return;
        }
        self.finding(ex, FaultKind::Uninitialized, pc, None, || {
            let message =
                format!("initcheck: {} reads {size} bytes at {} address {addr:#x} that no thread wrote", ex.mnemonic(pc), space.name().to_lowercase());
            ex.fault(FaultKind::Uninitialized, w, Some(l), Some(pc), message)
        });
    }

    /// racecheck and initcheck of the executing lanes' SHARED or LOCAL accesses; a store's
    /// `stored` words are a register row each (the low bytes of the first for a sub-word size).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check_accesses(
        &mut self,
        ex: &Executor<'_>,
        w: usize,
        pc: u32,
        space: Space,
        exec: u32,
        addrs: &[u32; 32],
        size: u32,
        kind: AccessKind,
        stored: &[[u32; 32]],
    ) {
        if !matches!(space, Space::Shared | Space::Local) {
            return;
        }
        let len = ex.region_len(space);
        for l in lanes(exec) {
            if addrs[l] as usize + size as usize > len {
                continue; // memcheck reports it
            }
            let at = ex.region_base(space, w, l) + addrs[l] as usize;
            if self.checks.racecheck && space == Space::Shared {
                let same_value = |earlier: &Access, now: &Access| same_value_written(ex, earlier, now, at, addrs, size, stored);
                self.race_check(ex, w, l, pc, at, size as usize, kind, Some(addrs[l]), same_value);
            }
            if self.checks.initcheck {
                if kind != AccessKind::Store {
                    self.unwritten_read(ex, w, l, pc, space, at, addrs[l], size);
                }
                self.mark_written(space, at, size as usize);
            }
        }
    }
}

/// Whether the store `now` (its lanes' `stored` words) writes at shared byte `at` what the
/// `earlier` write stored: whichever lands last, memory holds the same value, so their order
/// cannot matter (Triton's kernels have every thread store a reduction's result, or the same
/// constants). The earlier write is another lane of this store (its bytes are this store's),
/// or an earlier instruction's (its bytes are what memory holds: it was the latest write).
#[allow(clippy::too_many_arguments)]
fn same_value_written(ex: &Executor<'_>, earlier: &Access, now: &Access, at: usize, addrs: &[u32; 32], size: u32, stored: &[[u32; 32]]) -> bool {
    if stored.is_empty() || earlier.atomic {
        return false;
    }
    let lane = (now.thread % 32) as usize;
    let bits = if size >= 4 { u32::MAX } else { u32::MAX >> (32 - 8 * size) };
    if (earlier.warp, earlier.issue, earlier.pc) == (now.warp, now.issue, now.pc) {
        let other = (earlier.thread % 32) as usize;
        return addrs[other] == addrs[lane] && stored.iter().all(|row| (row[other] ^ row[lane]) & bits == 0);
    }
    let shift = 8 * (at % 4) as u32;
    stored.iter().enumerate().all(|(k, row)| ex.shared.get(at / 4 + k).is_some_and(|&word| ((word >> shift) ^ row[lane]) & bits == 0))
}

/// racecheck on entries `at .. at + size` of `shadow`: records the access `now` (its warp's
/// clock `seen`) and returns the first hazard it makes with an earlier one; a write that
/// `benign(earlier, now)` says stores what the earlier write did is no hazard with it.
#[allow(clippy::too_many_arguments)] // the shadow, the ordering, and the access
fn record(
    shadow: &mut ShadowMem<Shadow>,
    model: SimtModel,
    seen: &Clock,
    now: Access,
    at: usize,
    size: usize,
    write: bool,
    benign: impl Fn(&Access, &Access) -> bool,
) -> Option<Hazard> {
    let hazard = (at..at + size).find_map(|byte| {
        // Borrowed, not copied: an entry is three accesses.
        let s = shadow.get(byte)?;
        if let Some(w) = s.write
            && concurrent(model, seen, &w, &now)
            && !(write && benign(&w, &now))
        {
            return Some(Hazard { earlier: w, kind: if write { "write after write" } else { "read after write" }, byte });
        }
        s.reads.iter().flatten().find(|r| write && concurrent(model, seen, r, &now)).map(|r| Hazard { earlier: *r, kind: "write after read", byte })
    });
    for byte in at..at + size {
        let s = shadow.get_mut(byte);
        if write || now.atomic {
            // An atomic is both: later plain reads and writes must be ordered after it.
            *s = Shadow { write: Some(now), reads: [None, None] };
        } else {
            // The latest reader and one reader of another thread not ordered before it: any
            // later writer differs from one of them.
            let other = |r: Option<Access>| r.filter(|r| r.thread != now.thread && !happens_before(seen, r, &now));
            s.reads = [Some(now), other(s.reads[0]).or(other(s.reads[1]))];
        }
    }
    hazard
}

/// The report of a racecheck hazard: lane `l` of warp `w` accessed `place` at `pc`.
fn race_fault(ex: &Executor<'_>, w: usize, l: usize, pc: u32, place: &str, kind: AccessKind, hazard: Hazard) -> Fault {
    let verb = |k: AccessKind| match k {
        AccessKind::Load => "reads",
        AccessKind::Store => "writes",
        AccessKind::Atomic => "updates",
    };
    let before = hazard.earlier;
    let (bw, bl) = (before.thread as usize / 32, before.thread as usize % 32);
    let [x, y, z] = ex.thread_of(bw, bl);
    let sync = match ex.launch.options.simt {
        crate::SimtModel::Its if bw == w => "no BAR.SYNC or WARPSYNC in between",
        _ if bw == w => "no BAR.SYNC in between",
        _ => "no barrier or mbarrier wait ordering them",
    };
    let earlier_verb = if before.atomic {
        "updated"
    } else if hazard.kind.ends_with("write") {
        "wrote"
    } else {
        "read"
    };
    let message = format!(
        "racecheck: {} hazard on {place}: this thread {} it, and thread ({x},{y},{z}) {earlier_verb} it at pc {} with {sync}",
        hazard.kind,
        verb(kind),
        before.pc
    );
    let mut fault = ex.fault(FaultKind::Race, w, Some(l), Some(pc), message);
    if let Some(line) = ex.launch.kernel.line(before.pc) {
        fault.related.push((line, format!("thread ({x},{y},{z}) {earlier_verb} it here")));
    }
    fault
}
