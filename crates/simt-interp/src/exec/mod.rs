//! Executing one warp instruction: the [`Executor`], which owns what the
//! instructions work on (a block's warps, shared and local memory), the
//! dispatcher, and the lane helpers every family shares. Each family module
//! holds its operation enum, the translation of table forms into it, and its
//! execution; dispatch is one static `match`, so the hot loop inlines the
//! arithmetic. The statistics and the sanitizers are not the executor's: each
//! instruction is handed them ([`Executor::execute`]) and shows them what it did.
//!
//! Architecture invariant: nothing here allocates per instruction. Lane
//! operations are written as whole-row loops over `[u32; 32]` so they
//! vectorise.

pub(crate) mod arith;
pub(crate) mod collective;
pub(crate) mod control;
pub(crate) mod efficiency;
pub(crate) mod memory;
pub(crate) mod print;
pub(crate) mod tensor;
pub(crate) mod tma;
pub(crate) mod tmem;

use simt_isa::{BarRedOp, SpecialReg};

use crate::decode::{Modifier, Op, PredIn, Reg, Val, Val64};
use crate::fault::{Fault, FaultKind};
use crate::launch::Launch;
use crate::sanitize::Sanitizer;
use crate::stats::Counters;
use crate::warp::Warp;
pub(crate) use crate::warp::lanes;
use efficiency::Efficiency;

const SIGN: u32 = 0x8000_0000;

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
/// `tmp` starts as `None`, so an unmodified register costs no row of zeros.
#[inline(always)]
pub(crate) fn src<'w>(w: &'w Warp, v: Val, tmp: &'w mut Option<[u32; 32]>) -> &'w [u32; 32] {
    match v {
        Val::Reg(r, Modifier::None) => w.row(r),
        Val::Reg(r, m) => {
            let row = tmp.insert(*w.row(r));
            modify(row, m);
            row
        }
        Val::Imm(x) => tmp.insert([x; 32]),
    }
}

/// An owned copy of a source row.
#[inline(always)]
pub(crate) fn fetch(w: &Warp, v: Val) -> [u32; 32] {
    *src(w, v, &mut None)
}

/// Builds a 32-lane array; a plain loop so it inlines into the AVX2 copy of the executor.
#[inline(always)]
pub(crate) fn per_lane<T: Copy + Default>(f: impl Fn(usize) -> T) -> [T; 32] {
    let mut out = [T::default(); 32];
    for (l, x) in out.iter_mut().enumerate() {
        *x = f(l);
    }
    out
}

#[inline(always)]
pub(crate) fn fetch64(w: &Warp, v: Val64) -> [u64; 32] {
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
pub(crate) fn write(w: &mut Warp, d: Reg, vals: &[u32; 32], mask: u32) {
    let row = &mut w.regs[usize::from(d)];
    if mask == u32::MAX {
        *row = *vals;
        return;
    }
    for l in 0..32 {
        let keep = ((mask >> l) & 1).wrapping_sub(1);
        row[l] = (vals[l] & !keep) | (row[l] & keep);
    }
}

#[inline(always)]
pub(crate) fn write64(w: &mut Warp, d: Reg, vals: &[u64; 32], mask: u32) {
    write(w, d, &per_lane(|l| vals[l] as u32), mask);
    write(w, d + 1, &per_lane(|l| (vals[l] >> 32) as u32), mask);
}

#[inline(always)]
pub(crate) fn map1(a: &[u32; 32], f: impl Fn(u32) -> u32) -> [u32; 32] {
    per_lane(|l| f(a[l]))
}

#[inline(always)]
pub(crate) fn map2(a: &[u32; 32], b: &[u32; 32], f: impl Fn(u32, u32) -> u32) -> [u32; 32] {
    per_lane(|l| f(a[l], b[l]))
}

#[inline(always)]
pub(crate) fn mask_of(f: impl Fn(usize) -> bool) -> u32 {
    let mut m = 0;
    for l in 0..32 {
        m |= u32::from(f(l)) << l;
    }
    m
}

#[inline(always)]
pub(crate) fn pred(w: &Warp, p: PredIn) -> u32 {
    w.preds[usize::from(p.index)] ^ if p.negated { u32::MAX } else { 0 }
}

#[inline(always)]
pub(crate) fn set_pred(w: &mut Warp, p: u8, value: u32, mask: u32) {
    let row = &mut w.preds[usize::from(p)];
    *row = (*row & !mask) | (value & mask);
}

/// Runs `f` for each lane of `mask`; a full warp takes a plain loop the compiler can unroll.
#[inline(always)]
pub(crate) fn for_lanes(mask: u32, mut f: impl FnMut(usize)) {
    if mask == u32::MAX {
        // A plain loop: `for_each` would go through an out-of-line fold.
        for l in 0..32 {
            f(l);
        }
    } else {
        lanes(mask).for_each(f);
    }
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

/// What watches a memory instruction: the memory-efficiency report (counted only when
/// the run keeps one) and the sanitizers, when any run.
pub(crate) struct MemoryWatch<'w> {
    pub efficiency: &'w mut Efficiency,
    pub sanitizer: Option<&'w mut Sanitizer>,
}

/// What one resident block's instructions work on: its warps, its shared and local
/// memory, and where in the grid and on which SM it runs. The sanitizers and the
/// statistics watch it; they are handed to [`Executor::execute`], not kept here.
pub(crate) struct Executor<'a> {
    pub(crate) launch: &'a Launch<'a>,
    /// The block's index in the grid.
    pub(crate) index: [u32; 3],
    /// `index` as one number, x fastest.
    pub(crate) linear: u64,
    sm: u32,
    pub(crate) warps: Vec<Warp>,
    /// SHARED memory as little-endian words.
    pub(crate) shared: Vec<u32>,
    /// Every thread's LOCAL region, `local_stride` bytes apart, as little-endian words.
    local: Vec<u32>,
    /// Whether a store reached LOCAL memory since the block started: only then does the
    /// next block need it cleared (clearing untouched pages would make them resident).
    local_dirty: bool,
    /// The GLOBAL buffer each pc touched last: the first guess for its next access.
    buffer_hints: Vec<usize>,
    /// The cycle a timing model says it is (`SR_CLOCK`); `None` in a functional run.
    pub(crate) clock: Option<u64>,
    /// The predicates the threads waiting at a `BAR.RED` brought to the barrier.
    pub(crate) votes: BarrierVotes,
    /// Block barriers every thread waited at opened since the block started: the interval a
    /// `PRINTF`'s record is in (counted barriers open while other warps run, at moments a
    /// timing model may move, so they do not count).
    pub(crate) barriers_opened: u32,
    /// Each block barrier's counted phase in progress (`BAR.SYNC a, b`, `BAR.ARRIVE a, b`).
    pub(crate) counted: [control::CountedBarrier; simt_isa::BARRIERS as usize],
    /// Counted barrier phases opened since the block started (wrapping): when it changes,
    /// other warps' threads moved.
    pub(crate) opened: u32,
    /// The GLOBAL spans (address, bytes) the last `TMA` moved, kept under a timing model (a
    /// `clock`), which sends their lines to L2.
    pub(crate) copied: Vec<(u32, u32)>,
    /// The synchronisations since racecheck last looked, noted only while it runs: what
    /// orders one warp's accesses before another's (`sanitize.rs`).
    pub(crate) syncs: Vec<Sync>,
    /// Tensor memory (`TMEM`), its cells made only for a kernel that allocates some.
    pub(crate) tmem: tmem::Tmem,
    /// The multiply-accumulates of the last `TCMMA`'s MMAs and the SHARED bytes they read, for a
    /// timing model.
    pub(crate) tcmma_work: (u64, u64),
}

/// A synchronisation between warps of a block, as racecheck orders accesses by it: a
/// release (an arrival) and the acquires it enables (the waits it ends).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sync {
    /// Warp `warp` arrived at counted barrier `barrier` (`BAR.SYNC a, b` or `BAR.ARRIVE a, b`).
    Arrive { warp: u8, barrier: u8 },
    /// Counted barrier `barrier` opened: the warps in `waiters` (a bit each) go on.
    Open { barrier: u8, waiters: u32 },
    /// Warp `warp` arrived on the mbarrier at shared byte `at`.
    MbarArrive { warp: u8, at: usize },
    /// Warp `warp` found a phase of the mbarrier at shared byte `at` complete.
    MbarComplete { warp: u8, at: usize },
}

/// How many threads arrived at the block barrier with a `BAR.RED` predicate true, and how
/// many with it false.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BarrierVotes {
    pub trues: u32,
    pub falses: u32,
}

impl<'a> Executor<'a> {
    /// The warps and memory of a block of `launch` on SM `sm`, for [`Executor::start`] to fill.
    pub(crate) fn new(launch: &'a Launch<'a>, sm: u32) -> Executor<'a> {
        let threads = launch.threads_per_block();
        let its = match launch.options.simt {
            crate::SimtModel::Its => Some(launch.options.its_yield),
            crate::SimtModel::Stack => None,
        };
        let warps: Vec<Warp> = (0..threads.div_ceil(32))
            .map(|w| {
                let lanes_here = (threads - 32 * w).min(32);
                let valid = if lanes_here == 32 { u32::MAX } else { (1u32 << lanes_here) - 1 };
                Warp::new(launch.program.rows, valid, its)
            })
            .collect();
        Executor {
            launch,
            index: [0; 3],
            linear: 0,
            sm,
            warps,
            shared: vec![0; (launch.kernel.shared_size as usize).div_ceil(4)],
            local: vec![0; memory::local_stride(launch.kernel) * threads as usize / 4],
            local_dirty: false,
            buffer_hints: vec![0; launch.program.code.len()],
            clock: None,
            copied: Vec::new(),
            syncs: Vec::new(),
            tmem: tmem::Tmem::default(),
            tcmma_work: (0, 0),
            votes: BarrierVotes::default(),
            barriers_opened: 0,
            counted: Default::default(),
            opened: 0,
        }
    }

    /// Makes this the fresh state of block `linear`, reusing the allocations of the
    /// block that ran here before (an SM runs its blocks one after another).
    pub(crate) fn start(&mut self, linear: u64) {
        let [gx, gy, _] = self.launch.grid.map(u64::from);
        self.index = [(linear % gx) as u32, ((linear / gx) % gy) as u32, (linear / (gx * gy)) as u32];
        self.linear = linear;
        self.warps.iter_mut().for_each(Warp::reset);
        self.shared.fill(0);
        if std::mem::take(&mut self.local_dirty) {
            self.local.fill(0);
        }
        self.clock = None;
        self.votes = BarrierVotes::default();
        self.barriers_opened = 0;
        self.counted = Default::default();
        self.opened = 0;
        self.syncs.clear();
        self.tmem.reset();
    }

    /// Notes a synchronisation for racecheck, when it runs.
    pub(crate) fn note_sync(&mut self, sync: Sync) {
        if self.launch.options.checks.racecheck {
            self.syncs.push(sync);
        }
    }

    /// Whether counted barrier `id`'s phase has all its threads: the warps that arrived with
    /// `BAR.ARRIVE` and those whose every non-exited thread waits there, 32 threads a warp.
    pub(crate) fn counted_complete(&self, id: u8) -> bool {
        let phase = self.counted[usize::from(id)];
        phase.count != 0 && 32 * (phase.arrivals + self.warps.iter().filter(|w| w.waits_whole_at_counted(id)).count() as u32) >= phase.count
    }

    /// Opens counted barrier `id` if its phase is complete: the warps waiting there go on.
    pub(crate) fn open_counted(&mut self, id: u8) -> bool {
        if !self.counted_complete(id) {
            return false;
        }
        let mut waiters = 0u32;
        for (w, warp) in self.warps.iter_mut().enumerate().filter(|(_, w)| w.waits_whole_at_counted(id)) {
            warp.release_barrier();
            waiters |= 1 << w;
        }
        self.note_sync(Sync::Open { barrier: id, waiters });
        self.counted[usize::from(id)] = control::CountedBarrier::default();
        self.opened = self.opened.wrapping_add(1);
        true
    }

    /// As the block barrier opens: each `BAR.RED`'s result, written to the lanes that waited
    /// at it, from the votes every warp brought.
    pub(crate) fn write_barrier_reductions(&mut self) {
        let votes = std::mem::take(&mut self.votes);
        for warp in &mut self.warps {
            // Taken out to write the registers, and put back (empty) to keep its allocation.
            let mut reductions = std::mem::take(&mut warp.reductions);
            for r in reductions.drain(..) {
                let result = match r.op {
                    BarRedOp::Popc => votes.trues,
                    BarRedOp::And => u32::from(votes.falses == 0),
                    BarRedOp::Or => u32::from(votes.trues > 0),
                };
                write(warp, r.d, &[result; 32], r.lanes);
            }
            warp.reductions = reductions;
        }
    }

    /// Issues the instruction at `pc` for the threads in `mask` of warp `w`, counting it
    /// in `counters` and showing it to the sanitizers, if any run.
    #[inline(always)]
    pub(crate) fn execute(&mut self, w: usize, pc: u32, mask: u32, counters: &mut Counters, mut sanitizer: Option<&mut Sanitizer>) -> Result<(), Fault> {
        // Borrowed from the launch, not copied: the arithmetic and memory operations are
        // large enums, and a copy is taken apart field by field onto the stack.
        let launch = self.launch;
        let inst = &launch.program.code[pc as usize];
        let exec = mask & pred(&self.warps[w], inst.guard);
        let counts = &mut counters.pcs[pc as usize];
        counts.issued += 1;
        counts.active += u64::from(mask.count_ones());
        counts.executed += u64::from(exec.count_ones());
        if let Some(s) = sanitizer.as_deref_mut() {
            s.check_issue(self, w, pc, mask, exec);
        }
        self.warps[w].issued += 1;
        let mut moved = control::Moved::No;
        match &inst.op {
            Op::Arith(op) => self.arith(w, op, exec),
            Op::Memory(op) => {
                let mut watch = MemoryWatch { efficiency: &mut counters.efficiency, sanitizer: sanitizer.as_deref_mut() };
                self.memory(w, pc, op, mask, exec, &mut watch)?;
            }
            Op::Collective(op) => self.collective(w, *op, exec),
            Op::Tensor(op) => self.mma(w, pc, *op, mask, exec)?,
            Op::ScaledTensor(op) => self.scaled_mma(w, pc, *op, mask, exec)?,
            Op::Warpgroup(op) => self.wgmma(w, pc, *op, mask, exec, sanitizer.as_deref_mut())?,
            Op::Mbarrier(op) => self.mbarrier(w, pc, op, exec)?,
            Op::TensorCopy(op) => self.tensor_copy(w, pc, op, exec, sanitizer.as_deref_mut())?,
            Op::Tmem(op) => {
                self.tmem(w, pc, *op, mask, exec, sanitizer.as_deref_mut())?;
                if let tmem::TmemOp::Mma(_) = op {
                    counters.tcmma_macs += self.tcmma_work.0;
                }
            }
            Op::Control(op) => moved = self.control(w, pc, *op, mask, exec, counts)?,
            Op::Print(op) => self.print(w, pc, *op, exec, &mut counters.printed)?,
        }
        // Also after an instruction that moved its threads: a `BAR.RED` writes its
        // destination for them as the barrier opens.
        if let Some(s) = sanitizer {
            s.after_issue(self, w, pc, exec);
            s.synchronise(&mut self.syncs);
        }
        if moved == control::Moved::No {
            self.warps[w].advance(mask);
        }
        Ok(())
    }

    /// Each lane's thread index in x, y and z, counted up from the warp's first thread
    /// (three divisions per warp instead of three per lane).
    fn thread_indices(&self, warp: usize) -> [[u32; 32]; 3] {
        let [bx, by, _] = self.launch.block;
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
        let [bx, by, _] = self.launch.block;
        [linear % bx, (linear / bx) % by, linear / (bx * by)]
    }

    pub(crate) fn fault(&self, kind: FaultKind, warp: usize, lane: Option<usize>, pc: Option<u32>, message: String) -> Fault {
        let mut fault = Fault::new(kind, &self.launch.kernel.name, message);
        fault.block = self.index;
        fault.warp = Some(warp as u32);
        if let Some(l) = lane {
            fault.thread = Some(self.thread_of(warp, l));
            fault.lane = Some(l as u32);
        }
        if let Some(pc) = pc {
            fault.pc = Some(pc);
            fault.line = self.launch.kernel.line(pc);
        }
        fault
    }

    pub(crate) fn mnemonic(&self, pc: u32) -> String {
        simt_isa::format_mnemonic(&self.launch.kernel.code[pc as usize].form)
    }

    fn special(&self, w: usize, sr: SpecialReg) -> [u32; 32] {
        let uniform = |v: u32| [v; 32];
        let tid = |axis: usize| self.thread_indices(w)[axis];
        match sr {
            SpecialReg::TidX => tid(0),
            SpecialReg::TidY => tid(1),
            SpecialReg::TidZ => tid(2),
            SpecialReg::NtidX => uniform(self.launch.block[0]),
            SpecialReg::NtidY => uniform(self.launch.block[1]),
            SpecialReg::NtidZ => uniform(self.launch.block[2]),
            SpecialReg::CtaidX => uniform(self.index[0]),
            SpecialReg::CtaidY => uniform(self.index[1]),
            SpecialReg::CtaidZ => uniform(self.index[2]),
            SpecialReg::NctaidX => uniform(self.launch.grid[0]),
            SpecialReg::NctaidY => uniform(self.launch.grid[1]),
            SpecialReg::NctaidZ => uniform(self.launch.grid[2]),
            SpecialReg::LaneId => per_lane(|l| l as u32),
            SpecialReg::WarpId => uniform(w as u32),
            SpecialReg::SmId => uniform(self.sm),
            SpecialReg::Clock => uniform(self.clock.unwrap_or(self.warps[w].issued) as u32),
        }
    }
}
