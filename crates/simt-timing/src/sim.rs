//! One SM, cycle by cycle: partitions with one scheduler each, a scoreboard per
//! warp, units with lanes and initiation intervals, the LD/ST path with L1,
//! shared memory and the constant cache. The SM advances on its own until the
//! end of a window; what it sends to L2 waits in its outbox until the window
//! boundary, where the shared L2/DRAM model answers (see `engine.rs`).
//!
//! Nothing here allocates per cycle: per-warp state lives in slots made once
//! per SM, and the vectors that carry requests and records keep their capacity.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use simt_interp::banks::{every_lane, ideal_passes, shared_passes};
use simt_interp::{BlockReason, BlockSim, Counters, Fault, Launch, Peek, Step, StepResult};
use simt_isa::{AccessKind, AtomOp, AtomType, Flags, Form, Kernel, RZ, Space, Unit};
use smallvec::SmallVec;

use crate::cache::SectorCache;
use crate::config::{LINE_BYTES, Machine, Policy, SECTOR_BYTES};
use crate::engine::Unsupported;
use crate::reason::Reason;
use crate::seed::Arbiter;
use crate::view::WarpState;

/// A cycle not known yet: the answer of a request still in an outbox.
pub(crate) const UNKNOWN: u64 = u64::MAX;
const NONE: u32 = u32::MAX;
/// Lines whose tags L1 looks up a cycle: four on Volta and later, by NVIDIA's description of
/// Volta's L1 (see docs/timing.md, Fidelity); with 32 data banks that serves 128 bytes a cycle.
const L1_TAGS_PER_CYCLE: u64 = 4;
/// The most records `--pipeview` and `--timeline` keep together (rows, issues, reason and
/// warp-state changes), as `--trace` keeps at most a million issues: beyond this a run would
/// hold gigabytes before printing.
pub const MAX_RECORDS: u64 = 1_000_000;
/// Records an SM takes from the budget at a time, so that SMs seldom touch the shared count.
const RECORD_CHUNK: u64 = 1024;
/// How often an SM looks at the clock for `--timeout`: every this many turns of its loop.
const TURNS_PER_CLOCK_CHECK: u32 = 1024;

/// A multiplicative hasher for line numbers (keys are already well mixed by the cache's own hash).
#[derive(Default)]
pub(crate) struct LineHasher(u64);

impl Hasher for LineHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01B3);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

pub(crate) type LineMap<V> = HashMap<u64, V, BuildHasherDefault<LineHasher>>;

/// The index of a unit in per-unit arrays ([`Unit::ALL`] order).
pub(crate) fn unit_index(unit: Unit) -> usize {
    Unit::ALL.iter().position(|&u| u == unit).unwrap_or(0)
}

/// How the timing model treats an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A fixed latency from the configuration (ALU classes, tensor ops).
    Fixed,
    /// A memory access, timed by the memory model.
    Memory(Space, AccessKind),
    /// A branch: the warp's next instruction waits `latency.control` cycles.
    Branch,
    /// Everything else on the control unit (exit, barrier, fence, nop, warpsync).
    Control,
    /// A `TMA` copy: its box's lines go to L2 (and a load's answers complete its mbarrier's
    /// bytes); the warp goes on.
    TensorCopy,
}

/// What the timing model knows about one pc, derived once per launch.
#[derive(Clone, Debug)]
pub(crate) struct PcInfo {
    pub unit: usize,
    pub kind: Kind,
    pub fence: bool,
    /// Registers read or written (the scoreboard checks both), as a range of `Ctx::regs`.
    pub check: (u32, u32),
    /// Registers written.
    pub writes: (u32, u32),
    /// Registers read from the banks (none for an MMA), as a range of `Ctx::regs`.
    pub reads: (u32, u32),
    /// Those of them the instruction before it in the code does not read: what it reads when
    /// its warp's previous instruction was that one, the usual case (see [`Sm::bank_reads`]).
    pub reads_after_previous: (u32, u32),
    pub pred_check: u8,
    pub pred_writes: u8,
    /// Issue to dependent issue for fixed-latency kinds.
    pub latency: u32,
    /// Cycles the partition's unit is busy with it.
    pub interval: u32,
    /// Extra register-read cycles from bank conflicts.
    pub bank_extra: u32,
    /// A global atomic whose old value or order matters: executed at the window boundary.
    pub defer: bool,
    /// A memory access that may miss and so needs a free MSHR to issue.
    pub throttled: bool,
    /// A blocking sequence: the warp's next instruction waits out `latency`.
    pub blocking: bool,
    /// Its part in the warp's groups of asynchronous copies.
    pub copies: Copies,
    /// For `MBAR.TEST`: its address operand (base register, offset), whose mbarrier's tensor
    /// copies it waits for.
    pub mbarrier_wait: Option<(u8, i32)>,
    /// For `TCMMA`: how the SM's tensor cores time its MMAs.
    pub tcmma: Option<Tcmma>,
    /// `TCMMA.COMMIT`: its arrival waits for the warp's `TCMMA`s.
    pub commit: bool,
}

/// A `TCMMA`'s timing: the SM's tensor cores take `interval` cycles per 64 x 8 block of D
/// (`block_macs` multiply-accumulates at the kind's K), or as long as shared memory takes to
/// deliver its operands, one MMA after another; its result is in tensor memory `latency`
/// cycles after that.
#[derive(Clone, Copy, Debug)]
pub struct Tcmma {
    latency: u32,
    interval: u32,
    block_macs: u64,
}

/// What an instruction does to its warp's groups of `LDGSTS` copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Copies {
    None,
    /// `LDGSTS`: a copy in the open group; the warp goes on.
    Copy,
    /// `LDGDEPBAR`: closes the open group.
    Close,
    /// `DEPBAR n`: waits until at most the `n` newest closed groups are incomplete.
    Wait(u32),
}

/// Which warp instructions `--pipeview` records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PipeFilter {
    /// Block (linear index, x fastest).
    pub block: Option<u64>,
    /// Warp within its block.
    pub warp: Option<u32>,
    /// Program counter.
    pub pc: Option<u32>,
    /// Source line.
    pub line: Option<u32>,
}

/// Read-only state of one launch shared by every SM.
pub(crate) struct Ctx<'a> {
    pub launch: &'a Launch<'a>,
    pub kernel: &'a Kernel,
    pub machine: &'a Machine,
    pub pcs: Vec<PcInfo>,
    pub regs: Vec<u8>,
    /// Entries of a warp's scoreboard: one past the highest register the kernel names, so
    /// an SM's scoreboards stay in the host's nearest cache (256 each made 128 KB per SM).
    pub reg_span: usize,
    pub warps_per_block: usize,
    pub l1_lines: u64,
    pub pipe: Option<PipeFilter>,
    pub timeline: bool,
    /// Records (pipeview rows and timeline records together) handed out to SMs so far, in
    /// chunks, against [`MAX_RECORDS`].
    pub recorded: AtomicU64,
    /// Set when an SM found the budget spent: nothing more is recorded, and the engine cuts
    /// what the current window recorded (see `engine::run`).
    pub stopped: AtomicBool,
}

impl<'a> Ctx<'a> {
    /// Derives the per-pc timing facts.
    ///
    /// # Errors
    /// An MMA form the machine has no timing for.
    pub fn new(launch: &'a Launch<'a>, machine: &'a Machine, l1_lines: u64, pipe: Option<PipeFilter>, timeline: bool) -> Result<Ctx<'a>, Unsupported> {
        let kernel = launch.kernel();
        let mut regs = Vec::new();
        let mut pcs = Vec::with_capacity(kernel.code.len());
        let mut previous_reads = simt_isa::RegSet::default();
        for (pc, inst) in kernel.code.iter().enumerate() {
            let info = inst.info();
            let effects = inst.effects();
            let range = |regs: &mut Vec<u8>, set: &simt_isa::RegSet| {
                let start = regs.len() as u32;
                regs.extend(set.iter());
                (start, regs.len() as u32)
            };
            let check = range(&mut regs, &effects.reads.union(&effects.writes));
            let writes = range(&mut regs, &effects.writes);
            // An MMA's fragments are not charged to the banks: each form's interval is its
            // measured (or datasheet) rate, however the hardware delivers them.
            let bank_reads = if info.unit == Unit::Tensor { simt_isa::RegSet::default() } else { effects.reads };
            let reads = range(&mut regs, &bank_reads);
            let start = regs.len() as u32;
            regs.extend(bank_reads.iter().filter(|&r| !previous_reads.contains(r)));
            let reads_after_previous = (start, regs.len() as u32);
            previous_reads = bank_reads;
            let unit = info.unit;
            let lanes = machine.lanes_per_partition(unit).max(1);
            let mut interval = 32 / lanes;
            let mut latency = machine.latency.of(info.latency).unwrap_or(machine.latency.alu);
            let mut kind = Kind::Fixed;
            if let Some(a) = effects.access {
                kind = Kind::Memory(a.space, a.kind);
            } else if inst.form.tensor_rank().is_some() {
                kind = Kind::TensorCopy;
            } else if info.flags.contains(Flags::BRANCH) {
                kind = Kind::Branch;
            } else if unit == Unit::Control {
                kind = Kind::Control;
            }
            let mut tcmma = None;
            if let Some(kind) = inst.form.tcmma() {
                let key = crate::forms::form_key(&inst.form).unwrap_or_default();
                let Some(t) = machine.tensor.get(&key) else {
                    return Err(Unsupported::NoTensorTiming {
                        kernel: kernel.name.clone(),
                        machine: machine.name.clone(),
                        form: key,
                        pc: pc as u32,
                        line: kernel.line(pc as u32),
                        forms: machine.tensor.keys().cloned().collect(),
                    });
                };
                tcmma = Some(Tcmma { latency: t.latency, interval: t.interval, block_macs: 64 * 8 * u64::from(kind.k()) });
                // The warp goes on as the MMA is queued; the SM's tensor cores time it.
                latency = 1;
            }
            if let Some(mma) = inst.form.mma()
                && mma.is_defined()
            {
                let key = crate::forms::form_key(&inst.form).unwrap_or_default();
                let Some(t) = machine.tensor.get(&key) else {
                    let pc = pc as u32;
                    return Err(Unsupported::NoTensorTiming {
                        kernel: kernel.name.clone(),
                        machine: machine.name.clone(),
                        form: key,
                        pc,
                        line: kernel.line(pc),
                        forms: machine.tensor.keys().cloned().collect(),
                    });
                };
                // A line times one of the form's MMAs; each further slice of a `WGMMA` (8 more
                // columns) holds the tensor core `interval` cycles more.
                let more = (inst.mma_slices() - 1) as u32 * t.interval;
                latency = t.latency + more;
                interval = t.interval + more;
            }
            let mut blocking = false;
            if let Some(sequence) = machine.sequence.iter().find_map(|(name, t)| name.eq_ignore_ascii_case(info.mnemonic).then_some(t)) {
                latency = sequence.latency;
                interval *= sequence.ops;
                blocking = sequence.blocking;
            }
            let banks = machine.regfile.banks;
            let bank_extra = if banks == 0 {
                0
            } else {
                let mut count = [0u32; 256];
                effects.reads.iter().map(|r| (u32::from(r) % banks) as usize).for_each(|b| count[b] += 1);
                count.iter().max().copied().unwrap_or(0).saturating_sub(1)
            };
            let defer = match inst.form {
                Form::Atom(m) => m.space == simt_isa::AtomSpace::Global && (inst.operands[0] != simt_isa::Operand::Reg(RZ) || !commutes(m.op, m.ty)),
                Form::AtomCas(m) => m.space == simt_isa::AtomSpace::Global,
                _ => false,
            };
            let throttled = matches!(kind, Kind::Memory(Space::Global | Space::Local, AccessKind::Load | AccessKind::Atomic));
            let copies = match (inst.form, inst.operands.first()) {
                (Form::Ldgsts(_), _) => Copies::Copy,
                (Form::Ldgdepbar(_), _) => Copies::Close,
                (Form::Depbar(_), Some(&simt_isa::Operand::Imm(n))) => Copies::Wait(n),
                _ => Copies::None,
            };
            let mbarrier_wait = match (inst.form, inst.operands[1]) {
                (Form::MbarTest(_), simt_isa::Operand::Addr { base, offset }) => Some((base, offset)),
                _ => None,
            };
            pcs.push(PcInfo {
                unit: unit_index(unit),
                kind,
                fence: info.flags.contains(Flags::FENCE),
                check,
                writes,
                reads,
                reads_after_previous,
                pred_check: effects.pred_reads | effects.pred_writes,
                pred_writes: effects.pred_writes,
                latency,
                interval: interval.max(1),
                bank_extra,
                defer,
                throttled,
                blocking,
                copies,
                mbarrier_wait,
                tcmma,
                commit: matches!(inst.form, Form::TcmmaCommit(_)),
            });
        }
        let reg_span = regs.iter().max().map_or(0, |&r| usize::from(r) + 1);
        Ok(Ctx {
            launch,
            kernel,
            machine,
            pcs,
            regs,
            reg_span,
            warps_per_block: launch.warps_per_block(),
            l1_lines,
            pipe,
            timeline,
            recorded: AtomicU64::new(0),
            stopped: AtomicBool::new(false),
        })
    }

    fn regs(&self, range: (u32, u32)) -> &[u8] {
        &self.regs[range.0 as usize..range.1 as usize]
    }
}

/// Whether an atomic's final value is the same in any order (so it may run where it issues).
fn commutes(op: AtomOp, ty: AtomType) -> bool {
    !matches!(ty, AtomType::F32 | AtomType::F64)
        && ty.halves().is_none()
        && matches!(op, AtomOp::Add | AtomOp::Min | AtomOp::Max | AtomOp::And | AtomOp::Or | AtomOp::Xor)
}

/// A warp slot's state, as the interpreter's peek last said, plus the timing model's hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WState {
    Empty,
    Issue,
    Barrier,
    Waiting,
    Held,
    Done,
    Finished,
}

/// Most warps a partition holds: the SM's slots are bits of a `u64`.
const MAX_PART_WARPS: usize = 64;

/// A partition's warps in age order (`gto` takes the oldest ready one), each with its last
/// verdict: why it cannot issue, which holds until its `wake` (0: look again). The verdicts lie
/// apart from [`Slot`], a row of cycles in age order: most hold, and a scan finds the few that
/// expired by comparing the row with the clock, not by visiting each warp. Places past `len`
/// hold a verdict that never expires, so whole rows of 8 compare without a tail.
struct Warps {
    len: usize,
    slots: [u32; MAX_PART_WARPS],
    wakes: [u64; MAX_PART_WARPS],
    reasons: [Reason; MAX_PART_WARPS],
}

impl Warps {
    const EMPTY: Warps = Warps { len: 0, slots: [NONE; MAX_PART_WARPS], wakes: [UNKNOWN; MAX_PART_WARPS], reasons: [Reason::NoWarp; MAX_PART_WARPS] };

    fn slots(&self) -> &[u32] {
        &self.slots[..self.len]
    }

    /// A new warp at `at`, to be judged afresh.
    fn insert(&mut self, at: usize, s: u32) {
        let n = self.len;
        self.slots.copy_within(at..n, at + 1);
        self.wakes.copy_within(at..n, at + 1);
        self.reasons.copy_within(at..n, at + 1);
        (self.slots[at], self.wakes[at], self.reasons[at]) = (s, 0, Reason::NoWarp);
        self.len += 1;
    }

    fn remove(&mut self, at: usize) {
        let n = self.len;
        self.slots.copy_within(at + 1..n, at);
        self.wakes.copy_within(at + 1..n, at);
        self.reasons.copy_within(at + 1..n, at);
        (self.slots[n - 1], self.wakes[n - 1], self.reasons[n - 1]) = (NONE, UNKNOWN, Reason::NoWarp);
        self.len -= 1;
    }

    /// The warps from `from` on, as bits by place.
    fn places_from(&self, from: usize) -> u64 {
        let all = u64::MAX.checked_shr((MAX_PART_WARPS - self.len) as u32).unwrap_or(0);
        all & u64::MAX.checked_shl(from as u32).unwrap_or(0)
    }

    /// Those of [`places_from`](Self::places_from) whose verdicts have expired at `t`.
    #[inline(always)]
    fn expired(&self, from: usize, t: u64) -> u64 {
        let mut bits = 0;
        for (row, wakes) in self.wakes.chunks_exact(8).take(self.len.div_ceil(8)).enumerate() {
            let wakes: &[u64; 8] = wakes.try_into().expect("rows of 8");
            let expired = (0..8).fold(0, |bits, i| bits | u64::from(wakes[i] <= t) << i);
            bits |= expired << (8 * row);
        }
        // Places past `len` never expire, so only the lower bound needs a mask.
        bits & u64::MAX.checked_shl(from as u32).unwrap_or(0)
    }

    /// Why none of the warps can issue, and the earliest cycle one's verdict expires.
    fn held(&self) -> (Reason, u64) {
        let n = self.len;
        (self.reasons[..n].iter().copied().min().unwrap_or(Reason::NoWarp), self.wakes[..n].iter().copied().min().unwrap_or(UNKNOWN))
    }
}

#[derive(Clone, Debug)]
struct Slot {
    block: u32,
    warp: u32,
    state: WState,
    pc: u32,
    age: u64,
    next_issue: u64,
    next_issue_reason: Reason,
    /// The warp's place in its partition's [`Warps`].
    pos: u32,
    pred_ready: [u64; 8],
    mem_pending: u32,
    mem_done: u64,
    /// The last cycle a register write of this warp lands (a warp finishes only after it).
    writes_done: u64,
    /// The state last recorded for the timeline.
    shown: Option<WarpState>,
    /// The pc the warp issued last: the registers it read are in the operand reuse cache.
    last_pc: u32,
}

/// A warp's `LDGSTS` copies: those not yet closed into a group, and the closed groups not yet
/// waited for, oldest first; `closed_base` numbers the first of them (the open group is
/// `closed_base + closed.len()`). Kept beside the slots, which the scheduler reads every
/// cycle, since few kernels copy asynchronously.
#[derive(Clone, Debug, Default)]
struct WarpCopies {
    open: CopyGroup,
    closed: VecDeque<CopyGroup>,
    closed_base: u64,
}

/// Copies issued together: how many have no known completion yet, and the last known one.
#[derive(Clone, Copy, Debug, Default)]
struct CopyGroup {
    pending: u32,
    done: u64,
}

impl WarpCopies {
    /// The group numbered `seq`, open or closed (`None` once waited for: no copy of it is
    /// left to arrive then).
    fn group(&mut self, seq: u64) -> Option<&mut CopyGroup> {
        let i = usize::try_from(seq.checked_sub(self.closed_base)?).ok()?;
        if i == self.closed.len() { Some(&mut self.open) } else { self.closed.get_mut(i) }
    }

    /// The cycle from which `DEPBAR n` may issue: when every closed group but the `n` newest
    /// is complete ([`UNKNOWN`] while one waits for an answer).
    fn copies_done(&self, n: u32) -> u64 {
        let older = self.closed.len().saturating_sub(n as usize);
        self.closed.iter().take(older).fold(0, |t, g| if g.pending > 0 || t == UNKNOWN { UNKNOWN } else { t.max(g.done) })
    }
}

impl Slot {
    fn empty() -> Slot {
        Slot {
            block: NONE,
            warp: 0,
            state: WState::Empty,
            pc: 0,
            age: 0,
            next_issue: 0,
            next_issue_reason: Reason::BranchReconvergence,
            pos: NONE,
            last_pc: NONE,
            pred_ready: [0; 8],
            mem_pending: 0,
            mem_done: 0,
            writes_done: 0,
            shown: None,
        }
    }
}

struct Partition {
    warps: Warps,
    last: Option<u32>,
    arbiter: Arbiter,
    unit_free: [u64; 7],
    /// With `regfile.model_conflicts`, the cycle each register bank is free to read again
    /// (one read a cycle); empty without.
    bank_free: Vec<u64>,
    /// The latest of them: while it is at most a cycle ahead, no instruction waits for a bank.
    banks_latest: u64,
    shown: Option<Reason>,
    /// The partition's last verdict when none of its warps could issue, and the cycle until
    /// which it holds: each warp's own verdict holds until its `wake`, so the partition's
    /// holds until the earliest of them, unless a warp is woken (`Sm::wake`) or leaves.
    reason: Reason,
    wake: u64,
    /// Whether a warp was woken during the partition's scan, which then caches nothing.
    woken: bool,
}

struct Resident<'l> {
    sim: BlockSim<'l>,
    linear: u64,
    slots: Vec<u32>,
    live: u32,
    issuable: u32,
}

/// A request to L2, answered at the window boundary.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Request {
    pub cycle: u64,
    pub sm: u32,
    pub seq: u64,
    pub line: u64,
    pub sectors: u8,
    pub kind: ReqKind,
    pub tag: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReqKind {
    Load,
    Store,
    Atomic { ops: u32 },
}

struct Inflight {
    sectors: u8,
    response: u64,
    /// The operations waiting for it: nearly always one, so none allocates.
    waiters: SmallVec<[u32; 2]>,
    mshr: bool,
    in_map: bool,
}

struct Op {
    slot: u32,
    writes: (u32, u32),
    pred_writes: u8,
    known: u64,
    unknown: u32,
    pipe: u32,
    /// For an `LDGSTS`, the number of its warp's group of copies.
    group: Option<u64>,
    /// For a `TMA` load, the mbarrier its bytes complete on: (block, SHARED address).
    mbarrier: Option<(u64, u32)>,
}

/// The tensor copies issued to one mbarrier that have not all answered, and the last answer.
#[derive(Clone, Copy, Debug, Default)]
struct MbarrierCopies {
    pending: u32,
    done: u64,
}

/// One recorded warp instruction for `--pipeview`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PipeRow {
    /// SM.
    pub sm: u32,
    /// Partition.
    pub partition: u32,
    /// Block index (linear).
    pub block: u64,
    /// Launch-wide warp number.
    pub warp: u64,
    /// Program counter.
    pub pc: u32,
    /// Issue cycle.
    pub issue: u64,
    /// Register-read cycles (bank conflicts included).
    pub read: u32,
    /// Dispatch (handshake) cycles.
    pub dispatch: u32,
    /// Writeback cycles.
    pub writeback: u32,
    /// The cycle a dependent instruction may issue (its result is written back by then).
    pub complete: u64,
    /// Where the memory system served it, or what delayed it.
    pub note: String,
}

/// One issue, one change of stall reason on a partition, or one change of a warp's
/// reason for not issuing, for `--timeline` and reports.
#[derive(Clone, Copy, Debug)]
pub(crate) enum TraceRec {
    Issue { part: u32, cycle: u64, pc: u32, warp: u64 },
    Reason { part: u32, cycle: u64, reason: Reason },
    Warp { warp: u64, cycle: u64, state: WarpState },
}

impl TraceRec {
    pub(crate) fn cycle(&self) -> u64 {
        match *self {
            TraceRec::Issue { cycle, .. } | TraceRec::Reason { cycle, .. } | TraceRec::Warp { cycle, .. } => cycle,
        }
    }
}

/// Counters of one SM, summed into the launch's statistics.
#[derive(Clone, Debug, Default)]
pub(crate) struct Raw {
    pub slots: [u64; 8],
    pub unit_instr: [u64; 7],
    pub unit_busy: [u64; 7],
    pub instructions: u64,
    pub l1_sectors: u64,
    pub l1_hits: u64,
    pub const_accesses: u64,
    pub const_hits: u64,
    pub shared_accesses: u64,
    pub shared_conflicts: u64,
    pub reg_conflicts: u64,
    pub warp_cycles: u64,
    pub active_cycles: u64,
    pub mma_macs: u64,
}

/// A global atomic held for the window boundary.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Deferred {
    pub cycle: u64,
    pub sm: u32,
    pub seq: u64,
    pub slot: u32,
}

pub(crate) struct Sm<'l> {
    pub id: u32,
    /// The next cycle to simulate.
    pub cycle: u64,
    slots: Vec<Slot>,
    /// Each slot's asynchronous copies (`LDGSTS`), apart from the state the scheduler reads.
    copies: Vec<WarpCopies>,
    reg_ready: Vec<u64>,
    parts: Vec<Partition>,
    blocks: Vec<Option<Resident<'l>>>,
    /// The interpreter states of finished blocks, restarted for the blocks that follow (saves
    /// allocating a block's warps, registers and memory each time), and their counters.
    spare: Vec<BlockSim<'l>>,
    /// Blocks in `blocks`.
    resident_blocks: usize,
    /// Blocks the dispatcher gave this SM, (linear index, first cycle), made resident in that
    /// order when it next advances: making a block's state is then parallel.
    arriving: Vec<(u64, u64)>,
    free_slots: u64,
    resident_warps: u64,
    l1: SectorCache,
    constant: SectorCache,
    const_shift: u32,
    inflight: Vec<Inflight>,
    free_inflight: Vec<u32>,
    by_line: LineMap<u32>,
    /// Per mbarrier, (block, SHARED address), the `TMA` loads whose bytes complete on it.
    mbarriers: HashMap<(u64, u32), MbarrierCopies>,
    ops: Vec<Op>,
    free_ops: Vec<u32>,
    mshr_release: BinaryHeap<Reverse<u64>>,
    outstanding: u32,
    shared_free: u64,
    /// The cycle the SM's tensor cores finish the `TCMMA`s queued so far.
    tcmma_free: u64,
    /// Each warp's cycle its last `TCMMA`'s result is in tensor memory, for its `TCMMA.COMMIT`.
    tcmma_done: Vec<u64>,
    l1_free: u64,
    seq: u64,
    pub outbox: Vec<Request>,
    /// Answers to this SM's requests, `(tag, cycle)` in the order L2 gave them, for [`Sm::respond_all`].
    pub inbox: Vec<(u32, u64)>,
    pub deferred: Vec<Deferred>,
    /// The cycle a block finished while blocks wait, when the block taking its room would
    /// start within the window: the dispatcher's turn before this SM goes on.
    pub stop: Option<u64>,
    /// The cycles blocks finished while blocks wait, one entry a block, whose successors start
    /// past the window: the dispatcher serves them at the boundary (see `engine.rs`).
    pub freed: Vec<u64>,
    /// The cycle the last block here finished.
    pub last_finish: Option<u64>,
    pub fault: Option<(u64, Fault)>,
    /// Turns of [`advance`](Self::advance)'s loop so far, for checking the clock.
    turns: u32,
    /// Records this SM may still make from the chunk it took.
    allowance: u64,
    pub raw: Raw,
    pub pipe: Vec<PipeRow>,
    pub trace: Vec<TraceRec>,
    pub blocks_run: u64,
}

/// How a memory access completes.
enum Completion {
    Known(u64),
    Pending,
}

impl<'l> Sm<'l> {
    pub fn new(id: u32, ctx: &Ctx<'l>) -> Sm<'l> {
        let m = ctx.machine;
        let max_warps = m.sm.max_warps as usize;
        let p = m.sm.partitions as usize;
        let c = &m.memory.constant;
        Sm {
            id,
            cycle: 0,
            slots: vec![Slot::empty(); max_warps],
            copies: vec![WarpCopies::default(); max_warps],
            reg_ready: vec![0; max_warps * ctx.reg_span],
            parts: (0..p)
                .map(|i| Partition {
                    warps: Warps::EMPTY,
                    last: None,
                    arbiter: Arbiter::new(((max_warps - i).div_ceil(p)).clamp(1, 64) as u32),
                    unit_free: [0; 7],
                    bank_free: vec![0; if m.regfile.model_conflicts { m.regfile.banks as usize } else { 0 }],
                    banks_latest: 0,
                    shown: None,
                    reason: Reason::NoWarp,
                    wake: 0,
                    woken: false,
                })
                .collect(),
            blocks: (0..m.sm.max_blocks).map(|_| None).collect(),
            spare: Vec::new(),
            resident_blocks: 0,
            arriving: Vec::new(),
            free_slots: if max_warps == 64 { u64::MAX } else { (1u64 << max_warps) - 1 },
            resident_warps: 0,
            l1: SectorCache::new(ctx.l1_lines, m.memory.l1.ways),
            constant: SectorCache::new(u64::from(c.bytes / c.line_bytes), c.ways),
            const_shift: c.line_bytes.trailing_zeros(),
            inflight: Vec::new(),
            free_inflight: Vec::new(),
            by_line: LineMap::default(),
            mbarriers: HashMap::default(),
            ops: Vec::new(),
            free_ops: Vec::new(),
            mshr_release: BinaryHeap::new(),
            outstanding: 0,
            shared_free: 0,
            tcmma_free: 0,
            tcmma_done: vec![0; max_warps],
            l1_free: 0,
            seq: 0,
            outbox: Vec::new(),
            inbox: Vec::new(),
            deferred: Vec::new(),
            stop: None,
            freed: Vec::new(),
            last_finish: None,
            fault: None,
            turns: 0,
            allowance: 0,
            raw: Raw::default(),
            pipe: Vec::new(),
            trace: Vec::new(),
            blocks_run: 0,
        }
    }

    /// Resident blocks.
    pub fn resident(&self) -> usize {
        self.resident_blocks + self.arriving.len()
    }

    /// Adds the counters of the blocks that finished here to `into`.
    pub fn add_counters(&self, into: &mut Counters) {
        for sim in &self.spare {
            into.add(sim.counters());
        }
    }

    /// Gives the SM block `linear`, whose warps may issue from cycle `start`.
    pub fn assign(&mut self, linear: u64, start: u64) {
        self.arriving.push((linear, start));
    }

    /// Whether the SM has anything left to do.
    pub fn busy(&self) -> bool {
        self.resident() > 0
    }

    /// Makes block `linear` resident; its warps may issue from cycle `start`, which may lie
    /// ahead while the block launches (its slots then count as `no_warp`).
    fn add_block(&mut self, ctx: &Ctx<'l>, linear: u64, start: u64) {
        let Some(bi) = self.blocks.iter().position(Option::is_none) else { return };
        let sim = match self.spare.pop() {
            Some(mut sim) => {
                sim.restart(linear);
                sim
            }
            None => {
                let mut sim = ctx.launch.block(linear, self.id);
                // Many SMs step at once on several threads: one shared counter per instruction would bounce between cores.
                sim.batch_steps(256);
                sim
            }
        };
        let n = sim.warp_count();
        let mut slots = Vec::with_capacity(n);
        for w in 0..n {
            let s = self.free_slots.trailing_zeros();
            self.free_slots &= !(1u64 << s);
            slots.push(s);
            self.clear_slot(s);
            let slot = &mut self.slots[s as usize];
            slot.block = bi as u32;
            slot.warp = w as u32;
            let age = linear * ctx.warps_per_block as u64 + w as u64;
            slot.age = age;
            slot.next_issue = start;
            slot.next_issue_reason = Reason::NoWarp;
            self.reg_ready[s as usize * ctx.reg_span..(s as usize + 1) * ctx.reg_span].fill(0);
            // Kept in age order (`gto` takes the oldest ready warp). The dispatcher hands blocks out
            // in block order, so a new warp is the youngest: a few comparisons find its place, where
            // sorting the list read every warp's slot.
            let p = s as usize % self.parts.len();
            let at = self.parts[p].warps.slots().partition_point(|&x| self.slots[x as usize].age < age);
            self.parts[p].warps.insert(at, s);
            self.renumber(p, at);
        }
        self.resident_warps += n as u64;
        self.blocks[bi] = Some(Resident { sim, linear, slots: slots.clone(), live: n as u32, issuable: 0 });
        self.resident_blocks += 1;
        for s in slots {
            self.refresh(s);
        }
        self.blocks_run += 1;
    }

    /// Accounts cycles before `until` in which the SM had no warps.
    fn account_idle(&mut self, until: u64) {
        if until > self.cycle {
            let n = until - self.cycle;
            self.raw.slots[Reason::NoWarp.index()] += n * self.parts.len() as u64;
            self.cycle = until;
        }
    }

    /// Re-reads warp `s`'s next step from the interpreter.
    fn refresh(&mut self, s: u32) {
        let slot = &self.slots[s as usize];
        let bi = slot.block as usize;
        let Some(block) = self.blocks[bi].as_mut() else { return };
        let before = slot.state;
        let (state, pc) = match block.sim.peek(slot.warp as usize) {
            Peek::Issue(p) => (WState::Issue, p.pc),
            Peek::Blocked(BlockReason::Barrier) => (WState::Barrier, slot.pc),
            Peek::Blocked(_) => (WState::Waiting, slot.pc),
            Peek::Done => (WState::Done, slot.pc),
        };
        let issuable = |st: WState| matches!(st, WState::Issue | WState::Held);
        if issuable(before) && !issuable(state) {
            block.issuable -= 1;
        } else if !issuable(before) && issuable(state) {
            block.issuable += 1;
        }
        let slot = &mut self.slots[s as usize];
        slot.state = state;
        slot.pc = pc;
        self.wake(s);
    }

    /// Slot `s` holds no warp.
    fn clear_slot(&mut self, s: u32) {
        self.slots[s as usize] = Slot::empty();
        self.copies[s as usize] = WarpCopies::default();
        self.tcmma_done[s as usize] = 0;
    }

    /// The warps of partition `p` from `from` on learn their new places.
    fn renumber(&mut self, p: usize, from: usize) {
        for (i, &s) in self.parts[p].warps.slots().iter().enumerate().skip(from) {
            self.slots[s as usize].pos = i as u32;
        }
    }

    /// Warp `s` is to be evaluated afresh, and so its partition.
    fn wake(&mut self, s: u32) {
        let p = s as usize % self.parts.len();
        let part = &mut self.parts[p];
        part.warps.wakes[self.slots[s as usize].pos as usize] = 0;
        part.wake = 0;
        part.woken = true;
    }

    /// Every warp of block `bi` again, and the `its` forward-progress rule when none can issue.
    fn refresh_block(&mut self, bi: usize, t: u64) {
        let Some(block) = self.blocks[bi].as_ref() else { return };
        let slots = block.slots.clone();
        for &s in &slots {
            if self.slots[s as usize].state != WState::Finished {
                self.refresh(s);
                let slot = &mut self.slots[s as usize];
                if slot.next_issue <= t {
                    slot.next_issue = t + 1;
                    slot.next_issue_reason = Reason::Barrier;
                }
            }
        }
    }

    /// After a barrier or an exit, or when no warp of block `bi` can issue: opens a complete
    /// barrier, or, when no warp can issue, applies the forward-progress rule; both take effect
    /// the next cycle.
    fn unstick(&mut self, bi: usize, t: u64) {
        let Some(block) = self.blocks[bi].as_mut() else { return };
        // Threads exiting may complete a counted barrier while other warps can still issue.
        if block.sim.release_barrier() {
            self.refresh_block(bi, t);
            return;
        }
        if block.issuable > 0 || block.sim.is_done() {
            return;
        }
        match block.sim.force_progress() {
            Ok(true) => self.refresh_block(bi, t),
            Ok(false) => {}
            Err(fault) => {
                if self.fault.is_none() {
                    self.fault = Some((t, fault));
                }
            }
        }
    }

    /// Runs cycles until `end`, or until a fault. While `stop_on_room`, each block that
    /// finishes frees room for the dispatcher: when its successor would start within the
    /// window the SM stops there, else it notes the cycle in `freed` and goes on.
    pub fn advance(&mut self, ctx: &Ctx<'l>, end: u64, stop_on_room: bool) {
        self.stop = None;
        for (linear, start) in std::mem::take(&mut self.arriving) {
            self.add_block(ctx, linear, start);
        }
        // Here rather than at the boundary, so that SMs take their answers in parallel.
        self.respond_all(ctx);
        // Misses answered at the boundary free MSHRs at known cycles now: throttled warps look again.
        for part in &mut self.parts {
            for (wake, &reason) in part.warps.wakes.iter_mut().zip(&part.warps.reasons).take(part.warps.len) {
                if reason == Reason::MemoryThrottle {
                    *wake = 0;
                    part.wake = 0;
                    part.woken = true;
                }
            }
        }
        if self.by_line.len() > 4 * ctx.machine.memory.outstanding_misses as usize {
            self.purge_lines(self.cycle);
        }
        while self.cycle < end && self.fault.is_none() {
            if self.resident() == 0 {
                self.account_idle(end);
                return;
            }
            let t = self.cycle;
            // Waiting out latencies takes turns without issuing, and only issuing checks the
            // deadline: look at the clock here too, every so many turns (a few microseconds).
            self.turns = self.turns.wrapping_add(1);
            if self.turns.is_multiple_of(TURNS_PER_CLOCK_CHECK)
                && let Some(fault) = self.blocks.iter().flatten().find_map(|b| b.sim.time_limit())
            {
                self.fault = Some((t, fault));
                return;
            }
            while let Some(&Reverse(r)) = self.mshr_release.peek() {
                if r > t {
                    break;
                }
                self.mshr_release.pop();
                self.outstanding -= 1;
            }
            let finished_before = self.blocks_run_finished();
            let mut issued = false;
            let mut wake = end;
            let mut reasons = [Reason::NoWarp; 8];
            for p in 0..self.parts.len() {
                match self.schedule(ctx, p, t) {
                    None => {
                        issued = true;
                        reasons[p.min(7)] = Reason::Issued;
                    }
                    Some((reason, w)) => {
                        reasons[p.min(7)] = reason;
                        wake = wake.min(w);
                    }
                }
                if self.fault.is_some() {
                    return;
                }
            }
            if let Some(&Reverse(r)) = self.mshr_release.peek() {
                wake = wake.min(r);
            }
            let next = if issued || self.blocks_run_finished() != finished_before { t + 1 } else { wake.max(t + 1).min(end) };
            let span = next - t;
            for (p, &r) in reasons.iter().enumerate().take(self.parts.len()) {
                self.raw.slots[r.index()] += if r == Reason::Issued { 1 } else { span };
                if r == Reason::Issued && span > 1 {
                    unreachable!("an issuing cycle advances by one");
                }
                if ctx.timeline && self.parts[p].shown != Some(r) && self.may_record(ctx) {
                    self.parts[p].shown = Some(r);
                    self.trace.push(TraceRec::Reason { part: self.id * self.parts.len() as u32 + p as u32, cycle: t, reason: r });
                }
            }
            let live = self.resident_warps;
            self.raw.warp_cycles += live * span;
            if live > 0 {
                self.raw.active_cycles += span;
            }
            self.cycle = next;
            let finished = self.blocks_run_finished() - finished_before;
            if stop_on_room && finished > 0 {
                if t + 1 + u64::from(ctx.machine.sm.block_launch_latency) < end {
                    self.stop = Some(t);
                    return;
                }
                self.freed.extend(std::iter::repeat_n(t, finished as usize));
            }
        }
    }

    /// Whether one more record fits [`MAX_RECORDS`]; when not, recording stops everywhere.
    fn may_record(&mut self, ctx: &Ctx<'l>) -> bool {
        if ctx.stopped.load(Ordering::Relaxed) {
            return false;
        }
        if self.allowance == 0 {
            let taken = ctx.recorded.fetch_add(RECORD_CHUNK, Ordering::Relaxed);
            if taken >= MAX_RECORDS {
                ctx.stopped.store(true, Ordering::Relaxed);
                return false;
            }
            self.allowance = RECORD_CHUNK.min(MAX_RECORDS - taken);
        }
        self.allowance -= 1;
        true
    }

    /// Drops what was recorded at or after cycle `from`: a suffix of the pipeview rows (they
    /// are made in issue order), so rows still named by instructions in flight are looked up
    /// with `get_mut` and found gone.
    pub fn cut_records(&mut self, from: u64) {
        self.pipe.retain(|r| r.issue < from);
        self.trace.retain(|r| r.cycle() < from);
    }

    fn blocks_run_finished(&self) -> u64 {
        self.blocks_run - self.resident_blocks as u64
    }

    /// The partition's turn at cycle `t`: `None` when it issued, else its reason and the
    /// earliest cycle anything of its warps can change.
    fn schedule(&mut self, ctx: &Ctx<'l>, p: usize, t: u64) -> Option<(Reason, u64)> {
        let part = &mut self.parts[p];
        if t < part.wake {
            return Some((part.reason, part.wake));
        }
        part.woken = false;
        let n = part.warps.len;
        if n == 0 {
            return Some((Reason::NoWarp, UNKNOWN));
        }
        let policy = ctx.machine.sm.scheduler;
        // Greedy: the last warp first, while it can issue. Its verdict counts even when it
        // finished its block, which takes the block's warps off the list scanned below.
        if policy == Policy::Gto
            && let Some(last) = self.parts[p].last
            && self.slots[last as usize].block != NONE
            && self.evaluate(ctx, last, t, p).is_none()
        {
            return self.issue_or(ctx, last, t, p);
        }
        let timeline = ctx.timeline;
        // The timeline shows every warp's verdict; otherwise only the expired are judged again.
        let visit = |warps: &Warps, from: usize| if timeline { warps.places_from(from) } else { warps.expired(from, t) };
        let mut pending = visit(&self.parts[p].warps, 0);
        let mut ready: u64 = 0;
        while pending != 0 {
            let i = pending.trailing_zeros() as usize;
            pending &= pending - 1;
            let warps = &self.parts[p].warps;
            let s = warps.slots[i];
            let verdict = if t < warps.wakes[i] {
                Some((warps.reasons[i], warps.wakes[i]))
            } else {
                let age = self.slots[s as usize].age;
                let (verdict, stayed) = self.rejudge(ctx, s, i, t, p);
                if !stayed {
                    // Go on after this warp's age.
                    let warps = &self.parts[p].warps;
                    pending = visit(warps, warps.slots().partition_point(|&x| self.slots[x as usize].age <= age));
                }
                verdict
            };
            match verdict {
                // Evaluating changes no fault (only issuing does), so none is looked for here.
                None if policy == Policy::Gto => return self.issue_or(ctx, s, t, p),
                None => ready |= 1 << (s as usize / self.parts.len()),
                Some((r, _)) if timeline => self.show_warp(ctx, s, t, WarpState::Stalled(r)),
                Some(_) => {}
            }
        }
        if ready != 0 {
            let grant = self.parts[p].arbiter.tick(ready);
            if ctx.timeline {
                let mut passed = ready & !grant;
                while passed != 0 {
                    let other = passed.trailing_zeros() as usize * self.parts.len() + p;
                    passed &= passed - 1;
                    self.show_warp(ctx, other as u32, t, WarpState::Eligible);
                }
            }
            let s = grant.trailing_zeros() as usize * self.parts.len() + p;
            return self.issue_or(ctx, s as u32, t, p);
        }
        // Every warp's verdict is now in the list; one that finished its block left it and
        // was done.
        let part = &mut self.parts[p];
        let (mut best, wake) = part.warps.held();
        if part.warps.len < n {
            best = best.min(Reason::Done);
        }
        if !part.woken {
            part.reason = best;
            part.wake = wake;
        }
        Some((best, wake))
    }

    /// Records warp `s`'s state at `t` for the timeline when it changed. Under `gto` a
    /// cycle that issues the greedy warp evaluates no other, so a change may show late.
    fn show_warp(&mut self, ctx: &Ctx<'l>, s: u32, t: u64, state: WarpState) {
        let slot = &self.slots[s as usize];
        let (block, in_block) = (slot.block, slot.warp);
        if !ctx.timeline || slot.shown == Some(state) || block == NONE || !self.may_record(ctx) {
            return;
        }
        let linear = self.blocks[block as usize].as_ref().map_or(0, |b| b.linear);
        let warp = linear * ctx.warps_per_block as u64 + u64::from(in_block);
        self.slots[s as usize].shown = Some(state);
        self.trace.push(TraceRec::Warp { warp, cycle: t, state });
    }

    fn issue_or(&mut self, ctx: &Ctx<'l>, s: u32, t: u64, p: usize) -> Option<(Reason, u64)> {
        if self.issue(ctx, s, t, p) { None } else { Some((Reason::BranchReconvergence, t + 1)) }
    }

    /// Whether warp `s` can issue at `t`: `None` if so, else why not and until when. Its
    /// last verdict holds until its `wake`.
    fn evaluate(&mut self, ctx: &Ctx<'l>, s: u32, t: u64, p: usize) -> Option<(Reason, u64)> {
        let warps = &self.parts[p].warps;
        let i = self.slots[s as usize].pos as usize;
        if t < warps.wakes[i] {
            return Some((warps.reasons[i], warps.wakes[i]));
        }
        self.rejudge(ctx, s, i, t, p).0
    }

    /// Judges warp `s`, at place `i` of partition `p`'s list, again and keeps the verdict there.
    /// The second value is whether the warp is still there: finishing its block takes the
    /// block's warps off the list.
    #[inline(always)]
    fn rejudge(&mut self, ctx: &Ctx<'l>, s: u32, i: usize, t: u64, p: usize) -> (Option<(Reason, u64)>, bool) {
        let len = self.parts[p].warps.len;
        let verdict = self.judge(ctx, s, t, p);
        let warps = &mut self.parts[p].warps;
        let stayed = warps.len == len;
        if stayed {
            match verdict {
                Some((reason, wake)) => (warps.reasons[i], warps.wakes[i]) = (reason, wake),
                None => warps.wakes[i] = t,
            }
        }
        (verdict, stayed)
    }

    /// Why warp `s` cannot issue at `t`, or `None` when it can. Inline: scans judge only the
    /// warps whose verdicts expired, and a call cost 3% of saxpy's host instructions.
    #[inline(always)]
    fn judge(&mut self, ctx: &Ctx<'l>, s: u32, t: u64, p: usize) -> Option<(Reason, u64)> {
        let slot = &self.slots[s as usize];
        match slot.state {
            WState::Empty | WState::Finished => Some((Reason::Done, UNKNOWN)),
            WState::Done => {
                let done = slot.mem_done.max(slot.writes_done);
                if slot.mem_pending == 0 && done <= t {
                    self.finish_warp(s, t);
                    Some((Reason::Done, UNKNOWN))
                } else {
                    Some((Reason::Done, if slot.mem_pending > 0 { UNKNOWN } else { done }))
                }
            }
            WState::Barrier => Some((Reason::Barrier, UNKNOWN)),
            WState::Waiting => Some((Reason::BranchReconvergence, UNKNOWN)),
            WState::Held => Some((Reason::Scoreboard, UNKNOWN)),
            WState::Issue => {
                let info = &ctx.pcs[slot.pc as usize];
                let base = s as usize * ctx.reg_span;
                let mut sb = 0u64;
                for &r in ctx.regs(info.check) {
                    sb = sb.max(self.reg_ready[base + r as usize]);
                }
                let mut preds = info.pred_check;
                while preds != 0 {
                    let i = preds.trailing_zeros() as usize;
                    preds &= preds - 1;
                    sb = sb.max(slot.pred_ready[i]);
                }
                if info.fence {
                    sb = sb.max(if slot.mem_pending > 0 { UNKNOWN } else { slot.mem_done });
                }
                if let Copies::Wait(n) = info.copies {
                    sb = sb.max(self.copies[s as usize].copies_done(n));
                }
                if let Some((base, offset)) = info.mbarrier_wait {
                    sb = sb.max(self.mbarrier_ready(s, base, offset));
                }
                if t < slot.next_issue {
                    Some((slot.next_issue_reason, slot.next_issue))
                } else if sb > t {
                    Some((Reason::Scoreboard, sb))
                } else if self.parts[p].unit_free[info.unit] > t {
                    Some((Reason::UnitBusy, self.parts[p].unit_free[info.unit]))
                } else if let Some(free) = self.banks_behind(ctx, slot.last_pc, slot.pc, info, t, p) {
                    Some((Reason::UnitBusy, free))
                } else if info.throttled && self.outstanding >= ctx.machine.memory.outstanding_misses {
                    Some((Reason::MemoryThrottle, self.mshr_release.peek().map_or(UNKNOWN, |r| r.0)))
                } else {
                    None
                }
            }
        }
    }

    /// The registers an instruction reads from the banks: those the warp's previous instruction
    /// did not read (ptxas marks an operand the next instruction reads again for the reuse cache).
    fn bank_reads<'c>(ctx: &'c Ctx<'l>, last_pc: u32, pc: u32, info: &PcInfo) -> impl Iterator<Item = u8> + 'c {
        let (reads, cached): (&[u8], &[u8]) = if last_pc.wrapping_add(1) == pc {
            (ctx.regs(info.reads_after_previous), &[])
        } else if last_pc == NONE {
            (ctx.regs(info.reads), &[])
        } else {
            (ctx.regs(info.reads), ctx.regs(ctx.pcs[last_pc as usize].reads))
        };
        reads.iter().copied().filter(move |r| !cached.contains(r))
    }

    /// When the banks an instruction reads are more than a cycle behind at `t` (the operand
    /// collector holds one instruction's reads ahead of issue), the cycle they catch up.
    #[inline]
    fn banks_behind(&self, ctx: &Ctx<'l>, last_pc: u32, pc: u32, info: &PcInfo, t: u64, p: usize) -> Option<u64> {
        let part = &self.parts[p];
        if part.banks_latest <= t + 1 {
            return None;
        }
        let free = &part.bank_free;
        let behind = Self::bank_reads(ctx, last_pc, pc, info).map(|r| free[usize::from(r) % free.len()]).max().unwrap_or(0);
        (behind > t + 1).then(|| behind - 1)
    }

    /// Books warp `s`'s reads for `pc` issued at `t` on its partition's banks, one read a cycle
    /// each; returns the cycles its operands arrive after the one the collector needs.
    fn read_banks(&mut self, ctx: &Ctx<'l>, s: u32, pc: u32, t: u64, p: usize) -> u32 {
        let last_pc = std::mem::replace(&mut self.slots[s as usize].last_pc, pc);
        let part = &mut self.parts[p];
        if part.bank_free.is_empty() {
            return 0;
        }
        let banks = part.bank_free.len();
        let mut done = t + 1;
        for r in Self::bank_reads(ctx, last_pc, pc, &ctx.pcs[pc as usize]) {
            let b = &mut part.bank_free[usize::from(r) % banks];
            *b = (*b).max(t) + 1;
            done = done.max(*b);
        }
        part.banks_latest = part.banks_latest.max(done);
        (done - (t + 1)) as u32
    }

    fn finish_warp(&mut self, s: u32, t: u64) {
        let slot = &mut self.slots[s as usize];
        slot.state = WState::Finished;
        let bi = slot.block as usize;
        self.resident_warps -= 1;
        let Some(block) = self.blocks[bi].as_mut() else { return };
        block.live -= 1;
        if block.live > 0 {
            return;
        }
        let Some(block) = self.blocks[bi].take() else { return };
        self.resident_blocks -= 1;
        if !self.mbarriers.is_empty() {
            self.mbarriers.retain(|&(linear, _), _| linear != block.linear);
        }
        for &s in &block.slots {
            self.wake(s);
            self.free_slots |= 1 << s;
            let p = s as usize % self.parts.len();
            let at = self.slots[s as usize].pos as usize;
            self.parts[p].warps.remove(at);
            self.renumber(p, at);
            self.clear_slot(s);
            if self.parts[p].last == Some(s) {
                self.parts[p].last = None;
            }
        }
        let mut sim = block.sim;
        sim.retire();
        self.spare.push(sim);
        self.last_finish = Some(t);
    }

    /// Issues warp `s` at cycle `t` on partition `p`. Returns whether an instruction issued.
    fn issue(&mut self, ctx: &Ctx<'l>, s: u32, t: u64, p: usize) -> bool {
        let slot = &self.slots[s as usize];
        let (bi, w, pc) = (slot.block as usize, slot.warp as usize, slot.pc);
        let info = &ctx.pcs[pc as usize];
        let m = ctx.machine;
        self.seq += 1;
        let seq = self.seq;
        let extra = self.read_banks(ctx, s, pc, t, p);
        let linear = self.blocks[bi].as_ref().map_or(0, |b| b.linear);
        let warp_id = linear * ctx.warps_per_block as u64 + w as u64;
        self.parts[p].unit_free[info.unit] = t + u64::from(info.interval);
        self.parts[p].last = Some(s);
        self.raw.unit_instr[info.unit] += 1;
        self.raw.unit_busy[info.unit] += u64::from(info.interval);
        self.raw.reg_conflicts += u64::from(info.bank_extra);
        self.raw.instructions += 1;
        if ctx.timeline && self.may_record(ctx) {
            self.trace.push(TraceRec::Issue { part: self.id * self.parts.len() as u32 + p as u32, cycle: t, pc, warp: warp_id });
            self.slots[s as usize].shown = Some(WarpState::Issued);
        }
        let pipe_row = self.pipe_row(ctx, p, linear, warp_id, pc, t, extra);
        if info.defer {
            self.slots[s as usize].state = WState::Held;
            self.wake(s);
            self.deferred.push(Deferred { cycle: t, sm: self.id, seq, slot: s });
            if let Some(row) = pipe_row
                && let Some(r) = self.pipe.get_mut(row as usize)
            {
                r.note = "global atomic, executed at the window boundary".into();
            }
            self.mark_writes(ctx, s, info.writes, info.pred_writes, UNKNOWN);
            return true;
        }
        let Some(block) = self.blocks[bi].as_mut() else { return false };
        block.sim.set_clock(t);
        // Borrowed where it lies: a step is a few hundred bytes, and every issue makes one.
        let result = block.sim.step(w);
        let step = match &result {
            Ok(StepResult::Issued(step)) => step,
            Ok(_) => {
                self.refresh(s);
                return false;
            }
            Err(_) => {
                self.fault = result.err().map(|fault| (t, fault));
                return false;
            }
        };
        let executed = step.issued.executed;
        let mut completion = self.complete(ctx, s, t, step, info, extra, pipe_row, seq);
        let copies = &mut self.copies[s as usize];
        match info.copies {
            Copies::None => {}
            // The warp goes on; the copy's group waits for it (its own answer, when pending).
            Copies::Copy => {
                if let Completion::Known(done) = completion {
                    copies.open.done = copies.open.done.max(done);
                }
                completion = Completion::Known(t + 1);
            }
            Copies::Close => copies.closed.push_back(std::mem::take(&mut copies.open)),
            Copies::Wait(n) => {
                let complete = copies.closed.len().saturating_sub(n as usize);
                copies.closed.drain(..complete);
                copies.closed_base += complete as u64;
            }
        }
        let slot = &mut self.slots[s as usize];
        slot.next_issue = t + 1;
        if info.kind == Kind::Branch {
            slot.next_issue = t + u64::from(m.latency.control);
            slot.next_issue_reason = Reason::BranchReconvergence;
        } else if info.blocking && executed != 0 {
            // The sequence's branch to its slow path: the warp waits where it reconverges. With
            // no lane's guard holding, the compiled code branches around the whole sequence.
            slot.next_issue = t + u64::from(info.latency);
            slot.next_issue_reason = Reason::BranchReconvergence;
        }
        let ready = match completion {
            Completion::Known(c) => c,
            Completion::Pending => UNKNOWN,
        };
        self.mark_writes(ctx, s, info.writes, info.pred_writes, ready);
        if let Some(row) = pipe_row
            && let Completion::Known(c) = completion
            && let Some(r) = self.pipe.get_mut(row as usize)
        {
            r.complete = c;
        }
        match step.exchange {
            Some(simt_interp::Exchange::Mma { macs, .. }) => self.raw.mma_macs += macs,
            Some(simt_interp::Exchange::Tcmma { macs, shared_bytes }) => self.queue_tcmma(s, t, info, macs, shared_bytes),
            _ => {}
        }
        if info.commit
            && let Some(access) = &step.access
            && access.lanes != 0
        {
            // Arrives once the warp's MMAs are done: a wait on the mbarrier waits for them.
            let address = access.addresses[access.lanes.trailing_zeros() as usize];
            let done = self.tcmma_done[s as usize];
            let m = self.mbarriers.entry((linear, address)).or_default();
            m.done = m.done.max(done);
        }
        self.refresh(s);
        if step.opened {
            // A counted barrier's last warp arrived: the warps that waited there go on.
            self.refresh_block(bi, t);
        } else if step.issued.opcode.flags().intersects(Flags::BARRIER.union(Flags::TERMINATOR)) || self.blocks[bi].as_ref().is_some_and(|b| b.issuable == 0) {
            self.unstick(bi, t);
        }
        true
    }

    /// Queues warp `s`'s `TCMMA` of `macs` multiply-accumulates on `shared_bytes` of SHARED
    /// operands, issued at `t`, on the SM's tensor cores. Shared memory delivers 128 bytes a
    /// cycle (its 32 banks), which bounds MMAs of narrow tiles: N < 128 with A in shared memory,
    /// as microbenchmarks of B200 find (SemiAnalysis, "Dissecting Nvidia Blackwell", 2026).
    fn queue_tcmma(&mut self, s: u32, t: u64, info: &PcInfo, macs: u64, shared_bytes: u64) {
        let Some(tc) = info.tcmma else { return };
        let busy = (macs.div_ceil(tc.block_macs) * u64::from(tc.interval)).max(shared_bytes.div_ceil(128));
        let start = t.max(self.tcmma_free);
        self.tcmma_free = start + busy;
        self.tcmma_done[s as usize] = self.tcmma_free + u64::from(tc.latency);
        self.raw.mma_macs += macs;
        self.raw.unit_busy[info.unit] += busy;
    }

    fn mark_writes(&mut self, ctx: &Ctx<'l>, s: u32, writes: (u32, u32), preds: u8, ready: u64) {
        let base = s as usize * ctx.reg_span;
        for &r in ctx.regs(writes) {
            self.reg_ready[base + r as usize] = ready;
        }
        let slot = &mut self.slots[s as usize];
        if ready != UNKNOWN && (preds != 0 || writes.1 > writes.0) {
            slot.writes_done = slot.writes_done.max(ready);
        }
        let mut p = preds;
        while p != 0 {
            let i = p.trailing_zeros() as usize;
            p &= p - 1;
            slot.pred_ready[i] = ready;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn pipe_row(&mut self, ctx: &Ctx<'l>, p: usize, block: u64, warp: u64, pc: u32, t: u64, extra: u32) -> Option<u32> {
        let filter = ctx.pipe?;
        let in_block = warp - block * ctx.warps_per_block as u64;
        if filter.block.is_some_and(|b| b != block)
            || filter.warp.is_some_and(|w| u64::from(w) != in_block)
            || filter.pc.is_some_and(|x| x != pc)
            || filter.line.is_some_and(|l| ctx.kernel.line(pc) != Some(l))
        {
            return None;
        }
        if !self.may_record(ctx) {
            return None;
        }
        let pl = ctx.machine.pipeline;
        self.pipe.push(PipeRow {
            sm: self.id,
            partition: p as u32,
            block,
            warp,
            pc,
            issue: t,
            read: pl.read_cycles + extra,
            dispatch: pl.dispatch_cycles,
            writeback: pl.writeback_cycles,
            complete: UNKNOWN,
            note: if extra > 0 { format!("{extra}-cycle register bank conflict") } else { String::new() },
        });
        Some(self.pipe.len() as u32 - 1)
    }

    /// When the instruction just stepped completes (its results may be read).
    #[allow(clippy::too_many_arguments)]
    fn complete(&mut self, ctx: &Ctx<'l>, s: u32, t: u64, step: &Step, info: &PcInfo, extra: u32, pipe: Option<u32>, seq: u64) -> Completion {
        let m = ctx.machine;
        match info.kind {
            Kind::Fixed => Completion::Known(t + u64::from(info.latency + extra)),
            Kind::Branch | Kind::Control => Completion::Known(t + 1),
            Kind::TensorCopy => match step.exchange {
                Some(simt_interp::Exchange::TensorCopy { store, barrier }) if step.issued.executed != 0 => {
                    self.tensor_copy(ctx, s, t, info, pipe, seq, store, barrier)
                }
                _ => Completion::Known(t + 1),
            },
            Kind::Memory(space, kind) => {
                let Some(access) = step.access.as_ref().filter(|_| step.issued.executed != 0) else {
                    return Completion::Known(t + u64::from(m.latency.alu + extra));
                };
                let lanes = access.lanes;
                match space {
                    Space::Shared => {
                        let passes = shared_passes(&access.addresses, lanes, access.size, kind == AccessKind::Atomic);
                        let ideal = ideal_passes(lanes, access.size);
                        self.raw.shared_accesses += 1;
                        self.raw.shared_conflicts += u64::from(passes.saturating_sub(ideal));
                        let start = (t + u64::from(extra)).max(self.shared_free);
                        self.shared_free = start + u64::from(passes);
                        if let Some(row) = pipe
                            && passes > ideal
                            && let Some(r) = self.pipe.get_mut(row as usize)
                        {
                            r.note = format!("{passes}-way shared bank conflict");
                        }
                        Completion::Known(start + u64::from(m.memory.shared.latency) + u64::from(passes) - 1)
                    }
                    Space::Param => {
                        let mut lines = [0u64; 32];
                        let first = access.addresses[lanes.trailing_zeros() as usize];
                        let n = if every_lane(&access.addresses, |_, a| a == first) {
                            // The usual parameter read: one address for the whole warp.
                            lines[0] = u64::from(first >> self.const_shift);
                            1
                        } else {
                            let mut n = 0;
                            for l in simt_interp::lanes(lanes) {
                                let line = u64::from(access.addresses[l] >> self.const_shift);
                                if !lines[..n].contains(&line) {
                                    lines[n] = line;
                                    n += 1;
                                }
                            }
                            n
                        };
                        let mut all_hit = true;
                        for &line in &lines[..n] {
                            self.raw.const_accesses += 1;
                            let hit = self.constant.access(line, 1, true, false).hit != 0;
                            self.raw.const_hits += u64::from(hit);
                            all_hit &= hit;
                        }
                        let c = &m.memory.constant;
                        let base = if all_hit { c.hit_latency } else { c.miss_latency };
                        if let Some(row) = pipe
                            && let Some(r) = self.pipe.get_mut(row as usize)
                        {
                            r.note = if all_hit { "constant cache hit".into() } else { "constant cache miss".into() };
                        }
                        Completion::Known(t + u64::from(base + extra) + n as u64 - 1)
                    }
                    Space::Global | Space::Local => self.global(ctx, s, t + u64::from(extra), access, lanes, kind, info, pipe, seq),
                }
            }
        }
    }

    /// Coalesces a global or local access into lines and sends what L1 cannot serve to L2.
    #[allow(clippy::too_many_arguments)]
    fn global(
        &mut self,
        ctx: &Ctx<'l>,
        s: u32,
        t: u64,
        access: &simt_interp::Access,
        lanes: u32,
        kind: AccessKind,
        info: &PcInfo,
        pipe: Option<u32>,
        seq: u64,
    ) -> Completion {
        let m = ctx.machine;
        let local_tag = if access.space == Space::Local {
            // LOCAL addresses are per block: give each resident block its own line space.
            (1u64 << 62) | (u64::from(self.id) << 40) | (u64::from(self.slots[s as usize].block) << 33)
        } else {
            0
        };
        let mut lines = [(0u64, 0u8, 0u32); 32];
        let n = coalesce(access, lanes, local_tag, &mut lines);
        // The L1 is the shared-memory SRAM: a warp's access takes as many passes as its busiest
        // data bank needs, and the tags of L1_TAGS_PER_CYCLE lines are looked up a cycle
        // (gpu-strides: 128 contiguous bytes across two lines load in one cycle; lanes 24
        // floats apart, every lane in one of four banks, in eight).
        let passes = shared_passes(&access.addresses, lanes, access.size, false);
        let busy = u64::from(passes).max((n as u64).div_ceil(L1_TAGS_PER_CYCLE));
        let start = t.max(self.l1_free);
        self.l1_free = start + busy;
        let mut known = 0u64;
        let mut op = NONE;
        // What the pipeview row says, built only when there is a row: most accesses have none.
        let mut note = "";
        let l1_hit = u64::from(m.memory.l1.hit_latency);
        for (i, &(line, sectors, count)) in lines[..n].iter().enumerate() {
            // The lines' lookups spread evenly over the access's busy cycles.
            let lt = start + i as u64 * busy / n as u64;
            self.raw.l1_sectors += u64::from(sectors.count_ones());
            match kind {
                AccessKind::Load => {
                    let mut rest = sectors;
                    if let Some(&tag) = self.by_line.get(&line) {
                        let r = &self.inflight[tag as usize];
                        if r.response != UNKNOWN && r.response <= lt {
                            self.by_line.remove(&line);
                            self.release_inflight(tag);
                        } else if r.sectors & sectors != 0 {
                            rest &= !r.sectors;
                            op = self.wait_on(ctx, tag, op, s, info, pipe);
                            note = "L1 miss (merged with one in flight)";
                        }
                    }
                    if rest != 0 {
                        let hit = self.l1.access(line, rest, true, false).hit;
                        self.raw.l1_hits += u64::from(hit.count_ones());
                        let miss = rest & !hit;
                        if hit != 0 {
                            known = known.max(lt + l1_hit);
                        }
                        if miss != 0 {
                            let tag = self.send(lt, line, miss, ReqKind::Load, seq * 64 + i as u64, true);
                            op = self.wait_on(ctx, tag, op, s, info, pipe);
                            note = "L1 miss";
                        } else if note.is_empty() {
                            note = "L1 hit";
                        }
                    }
                }
                AccessKind::Store => {
                    // Write-through, no allocation: a present line keeps its sectors (values are functional).
                    self.l1.access(line, sectors, false, false);
                    let tag = self.send(lt, line, sectors, ReqKind::Store, seq * 64 + i as u64, false);
                    op = self.wait_on(ctx, tag, op, s, info, pipe);
                    note = "store to L2";
                }
                AccessKind::Atomic => {
                    let tag = self.send(lt, line, sectors, ReqKind::Atomic { ops: count }, seq * 64 + i as u64, true);
                    op = self.wait_on(ctx, tag, op, s, info, pipe);
                    note = "atomic at L2";
                }
            }
        }
        if let Some(row) = pipe
            && let Some(r) = self.pipe.get_mut(row as usize)
        {
            r.note = note.into();
        }
        if op == NONE {
            let done = known.max(t + 1);
            let slot = &mut self.slots[s as usize];
            slot.mem_done = slot.mem_done.max(done);
            return Completion::Known(done);
        }
        self.ops[op as usize].known = self.ops[op as usize].known.max(known);
        if self.ops[op as usize].unknown == 0 {
            // Everything it waits for has a known answer already (merged with answered misses).
            let done = self.ops[op as usize].known.max(t + 1);
            self.ops[op as usize].known = done;
            self.finish_op(ctx, op);
            return Completion::Known(done);
        }
        Completion::Pending
    }

    /// Queues a request for L2; returns its in-flight record.
    fn send(&mut self, cycle: u64, line: u64, sectors: u8, kind: ReqKind, seq: u64, mshr: bool) -> u32 {
        // An L1 miss (a load that takes a miss slot) is what later misses to its line merge with;
        // a tensor copy's load fills shared memory, not L1.
        let merge = kind == ReqKind::Load && mshr;
        let rec = Inflight { sectors, response: UNKNOWN, waiters: SmallVec::new(), mshr, in_map: merge };
        let tag = match self.free_inflight.pop() {
            Some(tag) => {
                self.inflight[tag as usize] = rec;
                tag
            }
            None => {
                self.inflight.push(rec);
                self.inflight.len() as u32 - 1
            }
        };
        if mshr {
            self.outstanding += 1;
        }
        if merge && let Some(old) = self.by_line.insert(line, tag) {
            // The older miss to this line leaves the map: released once answered.
            if self.inflight[old as usize].response == UNKNOWN {
                self.inflight[old as usize].in_map = false;
            } else {
                self.release_inflight(old);
            }
        }
        self.outbox.push(Request { cycle, sm: self.id, seq, line, sectors, kind, tag });
        tag
    }

    /// When warp `s`'s `MBAR.TEST` (address `[base + offset]`, its first live lane's) may issue:
    /// once every tensor copy issued to that mbarrier has answered ([`UNKNOWN`] while one has
    /// not). Functionally each copy completed as it issued, so waiting here is what makes the
    /// test's answer come when the data would.
    fn mbarrier_ready(&self, s: u32, base: u8, offset: i32) -> u64 {
        if self.mbarriers.is_empty() {
            return 0;
        }
        let slot = &self.slots[s as usize];
        let Some(block) = self.blocks[slot.block as usize].as_ref() else { return 0 };
        let w = slot.warp as usize;
        let lane = block.sim.live_lanes(w).trailing_zeros() as usize % 32;
        let address = block.sim.registers(w).0.get(usize::from(base)).map_or(0, |row| row[lane]).wrapping_add(offset as u32);
        match self.mbarriers.get(&(block.linear, address)) {
            Some(m) if m.pending > 0 => UNKNOWN,
            Some(m) => m.done,
            None => 0,
        }
    }

    /// Sends a `TMA` copy's lines to L2 at one a cycle, as the tensor memory accelerator walks
    /// the box: a load's answers complete its mbarrier's bytes, a store's the warp's memory
    /// operations. Neither goes through L1 (or takes an L1 miss slot); the warp goes on.
    #[allow(clippy::too_many_arguments)]
    fn tensor_copy(&mut self, ctx: &Ctx<'l>, s: u32, t: u64, info: &PcInfo, pipe: Option<u32>, seq: u64, store: bool, barrier: u32) -> Completion {
        let bi = self.slots[s as usize].block as usize;
        let Some(block) = self.blocks[bi].as_ref() else { return Completion::Known(t + 1) };
        let linear = block.linear;
        let lines: Vec<(u64, u8)> = block
            .sim
            .copied()
            .iter()
            .flat_map(|&(address, bytes)| span_lines(u64::from(address), u64::from(address) + u64::from(bytes)))
            .map(|(line, sectors, _)| (line, sectors))
            .collect();
        let kind = if store { ReqKind::Store } else { ReqKind::Load };
        let mut op = NONE;
        for (i, &(line, sectors)) in lines.iter().enumerate() {
            let tag = self.send(t + i as u64, line, sectors, kind, seq * 64 + i as u64, false);
            op = self.wait_on(ctx, tag, op, s, info, pipe);
        }
        if op != NONE && !store {
            self.ops[op as usize].mbarrier = Some((linear, barrier));
            self.mbarriers.entry((linear, barrier)).or_default().pending += 1;
        }
        Completion::Known(t + 1)
    }

    /// Makes the instruction's operation (created on first use) wait for record `tag`.
    fn wait_on(&mut self, _ctx: &Ctx<'l>, tag: u32, op: u32, s: u32, info: &PcInfo, pipe: Option<u32>) -> u32 {
        let op = if op == NONE {
            self.slots[s as usize].mem_pending += 1;
            let group = (info.copies == Copies::Copy).then(|| {
                let copies = &mut self.copies[s as usize];
                copies.open.pending += 1;
                copies.closed_base + copies.closed.len() as u64
            });
            let new =
                Op { slot: s, writes: info.writes, pred_writes: info.pred_writes, known: 0, unknown: 0, pipe: pipe.unwrap_or(NONE), group, mbarrier: None };
            match self.free_ops.pop() {
                Some(i) => {
                    self.ops[i as usize] = new;
                    i
                }
                None => {
                    self.ops.push(new);
                    self.ops.len() as u32 - 1
                }
            }
        } else {
            op
        };
        let r = &mut self.inflight[tag as usize];
        if r.response == UNKNOWN {
            r.waiters.push(op);
            self.ops[op as usize].unknown += 1;
        } else {
            self.ops[op as usize].known = self.ops[op as usize].known.max(r.response);
        }
        op
    }

    fn release_inflight(&mut self, tag: u32) {
        self.free_inflight.push(tag);
    }

    fn purge_lines(&mut self, now: u64) {
        let mut stale = Vec::new();
        for (&line, &tag) in &self.by_line {
            let r = self.inflight[tag as usize].response;
            if r != UNKNOWN && r <= now {
                stale.push((line, tag));
            }
        }
        for (line, tag) in stale {
            self.by_line.remove(&line);
            self.release_inflight(tag);
        }
    }

    /// Takes the answers in the inbox, in order.
    fn respond_all(&mut self, ctx: &Ctx<'l>) {
        let mut inbox = std::mem::take(&mut self.inbox);
        for &(tag, cycle) in &inbox {
            self.respond(ctx, tag, cycle);
        }
        inbox.clear();
        self.inbox = inbox;
    }

    /// The answer to request `tag` arrives: its data is usable from `cycle` on.
    fn respond(&mut self, ctx: &Ctx<'l>, tag: u32, cycle: u64) {
        let r = &mut self.inflight[tag as usize];
        r.response = cycle;
        if r.mshr {
            self.mshr_release.push(Reverse(cycle));
        }
        let waiters = std::mem::take(&mut r.waiters);
        let in_map = r.in_map;
        for &op in &waiters {
            let o = &mut self.ops[op as usize];
            o.known = o.known.max(cycle);
            o.unknown -= 1;
            if o.unknown == 0 {
                self.finish_op(ctx, op);
            }
        }
        if !in_map {
            self.release_inflight(tag);
        }
    }

    fn finish_op(&mut self, ctx: &Ctx<'l>, op: u32) {
        let (s, writes, preds, known, pipe, group, mbarrier) = {
            let o = &self.ops[op as usize];
            (o.slot, o.writes, o.pred_writes, o.known, o.pipe, o.group, o.mbarrier)
        };
        if let Some(key) = mbarrier
            && let Some(m) = self.mbarriers.get_mut(&key)
        {
            m.pending -= 1;
            m.done = m.done.max(known);
            // Any warp of the block may be waiting on it.
            let slots = self.blocks[self.slots[s as usize].block as usize].as_ref().map(|b| b.slots.clone()).unwrap_or_default();
            slots.into_iter().for_each(|w| self.wake(w));
        }
        self.mark_writes(ctx, s, writes, preds, known);
        let slot = &mut self.slots[s as usize];
        slot.mem_pending -= 1;
        slot.mem_done = slot.mem_done.max(known);
        if let Some(group) = group.and_then(|seq| self.copies[s as usize].group(seq)) {
            group.pending -= 1;
            group.done = group.done.max(known);
        }
        self.wake(s);
        if pipe != NONE
            && let Some(r) = self.pipe.get_mut(pipe as usize)
        {
            r.complete = known;
        }
        self.free_ops.push(op);
    }

    /// Executes a held global atomic now, at the window boundary, as if at its issue cycle.
    pub fn run_deferred(&mut self, ctx: &Ctx<'l>, d: Deferred) {
        let s = d.slot;
        let (bi, w, pc) = {
            let slot = &self.slots[s as usize];
            (slot.block as usize, slot.warp as usize, slot.pc)
        };
        let info = &ctx.pcs[pc as usize];
        let Some(block) = self.blocks[bi].as_mut() else { return };
        block.sim.set_clock(d.cycle);
        let step = match block.sim.step(w) {
            Ok(StepResult::Issued(step)) => step,
            Ok(_) => return,
            Err(fault) => {
                if self.fault.is_none() {
                    self.fault = Some((d.cycle, fault));
                }
                return;
            }
        };
        let pipe = self.pipe.iter().rposition(|r| r.issue == d.cycle && r.pc == pc && r.sm == self.id).map(|i| i as u32);
        let completion = match step.access.filter(|_| step.issued.executed != 0) {
            Some(access) => self.global(ctx, s, d.cycle, &access, access.lanes, AccessKind::Atomic, info, pipe, d.seq),
            None => Completion::Known(d.cycle + u64::from(ctx.machine.latency.alu)),
        };
        if let Completion::Known(c) = completion {
            self.mark_writes(ctx, s, info.writes, info.pred_writes, c);
        }
        let slot = &mut self.slots[s as usize];
        slot.state = WState::Issue;
        slot.next_issue = d.cycle + 1;
        self.refresh(s);
        if self.blocks[bi].as_ref().is_some_and(|b| b.issuable == 0) {
            self.unstick(bi, self.cycle);
        }
    }
}

/// The lines a warp's global or local access touches, in lane order, into `lines`: each line
/// (with `tag` or'ed in), the sectors its lanes read, and how many lanes it serves (atomics on
/// one line serialise). Returns how many lines.
fn coalesce(access: &simt_interp::Access, lanes: u32, tag: u64, lines: &mut [(u64, u8, u32); 32]) -> usize {
    let size = access.size.max(1);
    if unit_stride(&access.addresses, lanes, size) {
        // The usual access: every byte from the first lane's to the last lane's end, each lane
        // inside one line (it is aligned to its size), so a line's lanes cover one run of bytes.
        let size = u64::from(size);
        let at = u64::from(access.addresses[0]);
        let mut n = 0;
        for (line, sectors, bytes) in span_lines(at, at + 32 * size) {
            lines[n] = (tag | line, sectors, (bytes / size) as u32);
            n += 1;
        }
        return n;
    }
    coalesce_lanes(access, lanes, tag, lines)
}

/// The lines the bytes `at .. end` lie in, in order: each line, the sectors of it they touch,
/// and how many of them it holds.
fn span_lines(mut at: u64, end: u64) -> impl Iterator<Item = (u64, u8, u64)> {
    let line_bytes = u64::from(LINE_BYTES);
    std::iter::from_fn(move || {
        (at < end).then(|| {
            let line = at / line_bytes;
            let stop = end.min((line + 1) * line_bytes);
            let (first, last) = ((at % line_bytes) as u32 / SECTOR_BYTES, ((stop - 1) % line_bytes) as u32 / SECTOR_BYTES);
            let bytes = stop - at;
            at = stop;
            (line, sector_mask(first, last), bytes)
        })
    })
}

/// [`coalesce`] lane by lane.
fn coalesce_lanes(access: &simt_interp::Access, lanes: u32, tag: u64, lines: &mut [(u64, u8, u32); 32]) -> usize {
    let size = access.size.max(1);
    let mut n = 0usize;
    for l in simt_interp::lanes(lanes) {
        let addr = access.addresses[l];
        let line = tag | u64::from(addr / LINE_BYTES);
        let first = (addr % LINE_BYTES) / SECTOR_BYTES;
        let last = ((addr % LINE_BYTES) + size - 1).min(LINE_BYTES - 1) / SECTOR_BYTES;
        let mask = sector_mask(first, last);
        // Neighbouring lanes mostly share a line: the last one first.
        let seen = match n.checked_sub(1) {
            Some(prev) if lines[prev].0 == line => Some(&mut lines[prev]),
            _ => lines[..n].iter_mut().find(|e| e.0 == line),
        };
        match seen {
            Some(e) => {
                e.1 |= mask;
                e.2 += 1;
            }
            None => {
                lines[n] = (line, mask, 1);
                n += 1;
            }
        }
    }
    n
}

/// Sectors `first` to `last` of a line, as a mask.
fn sector_mask(first: u32, last: u32) -> u8 {
    (((1u32 << (last + 1)) - 1) & !((1u32 << first) - 1)) as u8
}

/// Whether all 32 lanes access `size` bytes each, lane `l` at `l * size` bytes past lane 0,
/// from an address aligned to `size` and without wrapping around the address space.
fn unit_stride(addresses: &[u32; 32], lanes: u32, size: u32) -> bool {
    let first = addresses[0];
    // A shift, not a multiply, so that the lanes compare as vectors (as in `shared_passes`);
    // sizes are powers of two but for some atomics, which go lane by lane.
    let shift = size.trailing_zeros();
    lanes == u32::MAX
        && size.is_power_of_two()
        && every_lane(addresses, |l, a| a == first.wrapping_add(l << shift))
        && first.is_multiple_of(size)
        && first.checked_add(31 * size).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// One change to a partition's list: a warp joins at a place, leaves one, or a verdict is kept.
    #[derive(Clone, Debug)]
    enum Change {
        Insert(usize),
        Remove(usize),
        Keep(usize, Reason, u64),
    }

    fn change() -> impl Strategy<Value = Change> {
        let reason = prop::sample::select(vec![Reason::UnitBusy, Reason::Scoreboard, Reason::Barrier, Reason::Done, Reason::NoWarp]);
        prop_oneof![
            any::<usize>().prop_map(Change::Insert),
            any::<usize>().prop_map(Change::Remove),
            (any::<usize>(), reason, prop_oneof![0..40u64, Just(UNKNOWN)]).prop_map(|(i, r, w)| Change::Keep(i, r, w)),
        ]
    }

    proptest! {
        /// The row of verdicts answers what asking each warp in turn would.
        #[test]
        fn warps_answer_as_each_warp_would(changes in prop::collection::vec(change(), 1..200), t in 0..40u64, from in 0..70usize) {
            let mut warps = Warps::EMPTY;
            let mut model: Vec<(u32, Reason, u64)> = Vec::new();
            for (n, change) in changes.into_iter().enumerate() {
                match change {
                    Change::Insert(at) if model.len() < MAX_PART_WARPS => {
                        let at = at % (model.len() + 1);
                        warps.insert(at, n as u32);
                        model.insert(at, (n as u32, Reason::NoWarp, 0));
                    }
                    Change::Remove(at) if !model.is_empty() => {
                        let at = at % model.len();
                        warps.remove(at);
                        model.remove(at);
                    }
                    Change::Keep(i, reason, wake) if !model.is_empty() => {
                        let i = i % model.len();
                        (warps.reasons[i], warps.wakes[i]) = (reason, wake);
                        (model[i].1, model[i].2) = (reason, wake);
                    }
                    _ => {}
                }
            }
            let slots: Vec<u32> = model.iter().map(|m| m.0).collect();
            prop_assert_eq!(warps.slots(), slots.as_slice());
            let bits = |keep: &dyn Fn(usize) -> bool| (0..model.len()).filter(|&i| i >= from && keep(i)).fold(0u64, |b, i| b | 1 << i);
            prop_assert_eq!(warps.places_from(from), bits(&|_| true));
            prop_assert_eq!(warps.expired(from, t), bits(&|i| model[i].2 <= t));
            let held = (model.iter().map(|m| m.1).min().unwrap_or(Reason::NoWarp), model.iter().map(|m| m.2).min().unwrap_or(UNKNOWN));
            prop_assert_eq!(warps.held(), held);
        }
    }

    #[test]
    fn unit_stride_accesses_coalesce_as_lane_by_lane() {
        let mut checked = 0;
        for size in [1u32, 2, 4, 8, 16] {
            for base in (0..260).chain([4096 - 64, u32::MAX - 32 * 16 + 1, u32::MAX - 31]) {
                let base = base - base % size;
                let access = simt_interp::Access {
                    space: Space::Global,
                    kind: simt_isa::AccessKind::Load,
                    size,
                    lanes: u32::MAX,
                    addresses: std::array::from_fn(|l| base.wrapping_add(l as u32 * size)),
                };
                let (mut fast, mut slow) = ([(0u64, 0u8, 0u32); 32], [(0u64, 0u8, 0u32); 32]);
                let n = coalesce(&access, u32::MAX, 1 << 62, &mut fast);
                assert_eq!(n, coalesce_lanes(&access, u32::MAX, 1 << 62, &mut slow), "size {size}, base {base:#x}");
                assert_eq!(fast[..n], slow[..n], "size {size}, base {base:#x}");
                checked += usize::from(unit_stride(&access.addresses, u32::MAX, size));
            }
        }
        assert!(checked >= 1000, "most cases take the unit-stride path ({checked})");
    }
}
