//! Statistics of one launch.

use std::collections::BTreeMap;
use std::fmt::Write;

use simt_isa::{AccessKind, Flags, Kernel, NO_RECONV, Opcode, Operand, Space};

use crate::exec::efficiency::Efficiency;
use crate::sanitize::Findings;

/// The counts of one pc.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PcCounts {
    /// Warp issues.
    pub issued: u64,
    /// Active lanes summed over issues.
    pub active: u64,
    /// Lanes whose guard held, summed over issues.
    pub executed: u64,
    /// Issues of a branch whose lanes split.
    pub diverged: u64,
}

/// Per-pc counters of one or more blocks; [`crate::Launch::stats`] turns them into statistics.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    pub(crate) pcs: Vec<PcCounts>,
    /// The memory-efficiency report, when the run keeps one.
    pub(crate) efficiency: Efficiency,
    /// Warps run.
    pub(crate) warps: u64,
    /// Threads run.
    pub(crate) threads: u64,
    /// What the sanitizers found.
    pub(crate) findings: Findings,
    /// What `PRINTF`s printed, each block's records in the order its threads made them.
    pub(crate) printed: Vec<Printed>,
    /// Multiply-accumulates of the `TCMMA`s run, whose shapes are in registers.
    pub(crate) tcmma_macs: u64,
}

/// One record a `PRINTF` made: one thread's text, and where it was made.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Printed {
    /// The block's index in the grid as one number, x fastest.
    pub block: u64,
    /// Block barriers the block had opened when the thread printed.
    pub interval: u32,
    /// The warp in the block.
    pub warp: u32,
    /// The thread's index in the block.
    pub thread: [u32; 3],
    /// The source line of the instruction that printed it (0 when unknown).
    pub line: u32,
    /// The text; bytes that are not UTF-8 (from `%c` or `%s`) are U+FFFD.
    pub text: String,
}

/// Writes the texts of `printed`, in order, as CUDA writes a launch's `printf` output.
///
/// # Errors
/// What writing to `out` returns.
pub fn write_printed(out: &mut impl std::io::Write, printed: &[Printed]) -> std::io::Result<()> {
    for record in printed {
        out.write_all(record.text.as_bytes())?;
    }
    out.flush()
}

/// `records` in print order: by block, then barrier interval, then warp, each warp's
/// records in the order it made them (lanes in order within one `PRINTF`) — what a GPU
/// prints when, between block barriers, the block's warps run one after another. It
/// depends on no thread count or issue order: a block's records are made on one thread,
/// in its warps' own order, and the sort is stable.
pub(crate) fn in_print_order<'r>(records: impl Iterator<Item = &'r Printed>) -> Vec<Printed> {
    let mut sorted: Vec<Printed> = records.cloned().collect();
    sorted.sort_by_key(|p| (p.block, p.interval, p.warp));
    sorted
}

impl Counters {
    /// Zero counts for a kernel of `len` instructions.
    pub fn new(len: usize) -> Counters {
        Counters {
            pcs: vec![PcCounts::default(); len],
            efficiency: Efficiency::default(),
            warps: 0,
            threads: 0,
            findings: Findings::default(),
            printed: Vec::new(),
            tcmma_macs: 0,
        }
    }

    /// The records of the `PRINTF`s counted here, each block's in the order they were made.
    pub fn printed(&self) -> &[Printed] {
        &self.printed
    }

    /// Adds another block's (or SM's) counts.
    pub fn add(&mut self, other: &Counters) {
        for (d, s) in self.pcs.iter_mut().zip(&other.pcs) {
            d.issued += s.issued;
            d.active += s.active;
            d.executed += s.executed;
            d.diverged += s.diverged;
        }
        self.efficiency.add(&other.efficiency);
        self.warps += other.warps;
        self.threads += other.threads;
        self.findings.add(&other.findings);
        self.printed.extend_from_slice(&other.printed);
        self.tcmma_macs += other.tcmma_macs;
    }
}

/// Counts for one opcode.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct OpcodeStats {
    /// Warp instructions issued.
    pub warp: u64,
    /// Thread instructions (active lanes summed over issues).
    pub thread: u64,
}

/// Counts for one branch instruction.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct BranchStats {
    /// Program counter.
    pub pc: u32,
    /// Source line.
    pub line: u32,
    /// Times a warp issued it.
    pub issued: u64,
    /// Times the active lanes split between target and fall-through.
    pub diverged: u64,
    /// Active lanes / 32 over its issues.
    pub simd_efficiency: f64,
}

/// Memory traffic of one space.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct SpaceStats {
    /// Lane loads.
    pub loads: u64,
    /// Lane stores.
    pub stores: u64,
    /// Lane atomics.
    pub atomics: u64,
    /// Bytes read (atomics included).
    pub bytes_read: u64,
    /// Bytes written (atomics included).
    pub bytes_written: u64,
}

/// Tensor-core work.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct TensorStats {
    /// MMA warp instructions issued.
    pub mma_instructions: u64,
    /// Multiply-accumulates actually performed.
    pub macs: u64,
    /// Multiply-accumulates of the equivalent dense product (twice `macs` for 2:4 sparse MMA).
    pub dense_equivalent_macs: u64,
}

/// How efficiently one memory instruction (one source line) used memory, per warp
/// request: what its lanes' addresses cost against the ideal for the bytes moved.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct MemoryLine {
    /// Source line.
    pub line: u32,
    /// Program counter.
    pub pc: u32,
    /// The instruction's mnemonic with its modifiers (`LD.GLOBAL.F32`).
    pub instruction: String,
    /// Warp requests (issues with at least one executing lane).
    pub requests: u64,
    /// GLOBAL and LOCAL: 32-byte sectors per request, and the ideal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sectors: Option<(f64, f64)>,
    /// GLOBAL and LOCAL: 128-byte lines per request, and the ideal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<(f64, f64)>,
    /// SHARED: passes per request through the 32 banks (1 is conflict-free), and the ideal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bank_passes: Option<(f64, f64)>,
    /// Atomics: lanes serialised on one address per request (1 is none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub atomic_serialisation: Option<f64>,
}

/// Statistics of one launch.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Stats {
    /// Blocks run.
    pub blocks: u64,
    /// Warps run.
    pub warps: u64,
    /// Threads run.
    pub threads: u64,
    /// Warp instructions issued.
    pub warp_instructions: u64,
    /// Thread instructions (active lanes summed over issues).
    pub thread_instructions: u64,
    /// `thread_instructions / (32 * warp_instructions)`.
    pub simd_efficiency: f64,
    /// Per opcode, by full mnemonic.
    pub per_opcode: BTreeMap<String, OpcodeStats>,
    /// Every branch that can diverge, in pc order.
    pub branches: Vec<BranchStats>,
    /// Branch issues whose lanes split.
    pub diverged_branches: u64,
    /// Traffic per memory space (`global`, `shared`, `local`, `param`; `generic` for `.GENERIC.E` accesses).
    pub memory: BTreeMap<String, SpaceStats>,
    /// Tensor-core work.
    pub tensor: TensorStats,
    /// Memory efficiency per memory instruction, in pc order (when the run kept the report).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub memory_lines: Vec<MemoryLine>,
    /// Distinct sanitizer findings, in the order a one-thread run meets them
    /// (the command line prints them apart from the statistics).
    #[serde(skip)]
    pub findings: Vec<crate::Finding>,
    /// What the launch's `PRINTF`s printed, in print order ([`in_print_order`]); the command
    /// line writes their texts to stdout.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub printed: Vec<Printed>,
}

impl Stats {
    pub(crate) fn from_counters(kernel: &Kernel, c: &Counters, blocks: u64) -> Stats {
        let mut stats =
            Stats { blocks, warps: c.warps, threads: c.threads, findings: c.findings.sorted(), printed: in_print_order(c.printed.iter()), ..Stats::default() };
        stats.tensor.macs = c.tcmma_macs;
        stats.tensor.dense_equivalent_macs = c.tcmma_macs;
        for (pc, inst) in kernel.code.iter().enumerate() {
            let counts = c.pcs[pc];
            let (issued, active, executed, diverged) = (counts.issued, counts.active, counts.executed, counts.diverged);
            stats.warp_instructions += issued;
            stats.thread_instructions += active;
            if issued == 0 {
                continue;
            }
            let entry = stats.per_opcode.entry(inst.opcode().to_string()).or_default();
            entry.warp += issued;
            entry.thread += active;
            match (inst.opcode(), inst.operands[0]) {
                (Opcode::Bra, Operand::Label { reconv, .. }) if reconv != NO_RECONV => {
                    stats.diverged_branches += diverged;
                    stats.branches.push(BranchStats {
                        pc: pc as u32,
                        line: kernel.line(pc as u32).unwrap_or(0),
                        issued,
                        diverged,
                        simd_efficiency: active as f64 / (32 * issued) as f64,
                    });
                }
                _ => {}
            }
            if let Some(access) = inst.form.access() {
                let bytes = executed * u64::from(access.size);
                let space = if access.generic { "generic".to_string() } else { access.space.name().to_lowercase() };
                let s = stats.memory.entry(space).or_default();
                match access.kind {
                    AccessKind::Load => {
                        s.loads += executed;
                        s.bytes_read += bytes;
                    }
                    AccessKind::Store => {
                        s.stores += executed;
                        s.bytes_written += bytes;
                    }
                    AccessKind::Atomic => {
                        s.atomics += executed;
                        s.bytes_read += bytes;
                        s.bytes_written += bytes;
                    }
                }
            }
            if inst.form.mma().is_some() {
                let (macs, dense) = simt_tensor::macs(inst);
                stats.tensor.mma_instructions += issued;
                stats.tensor.macs += macs * issued;
                stats.tensor.dense_equivalent_macs += dense * issued;
            } else if inst.form.tcmma().is_some() {
                stats.tensor.mma_instructions += issued;
            }
        }
        for (pc, m) in c.efficiency.per_pc().iter().enumerate().filter(|(_, m)| m.requests > 0) {
            let inst = &kernel.code[pc];
            let per = |x: u64| x as f64 / m.requests as f64;
            let space = inst.form.access().map(|a| a.space);
            let addressed = matches!(space, Some(Space::Global | Space::Local));
            stats.memory_lines.push(MemoryLine {
                line: kernel.line(pc as u32).unwrap_or(0),
                pc: pc as u32,
                instruction: simt_isa::format_mnemonic(&inst.form),
                requests: m.requests,
                sectors: addressed.then(|| (per(m.sectors), per(m.ideal_sectors))),
                lines: addressed.then(|| (per(m.lines), per(m.ideal_lines))),
                bank_passes: (space == Some(Space::Shared)).then(|| (per(m.passes), per(m.ideal_passes))),
                atomic_serialisation: inst.info().flags.contains(Flags::ATOMIC).then(|| per(m.atomic_steps)),
            });
        }
        if stats.warp_instructions > 0 {
            stats.simd_efficiency = stats.thread_instructions as f64 / (32 * stats.warp_instructions) as f64;
        }
        stats
    }

    /// A short human-readable report.
    pub fn render_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "blocks {}, warps {}, threads {}", self.blocks, self.warps, self.threads);
        let _ = writeln!(
            s,
            "issued {} warp instructions, {} thread instructions; SIMD efficiency {:.1}%",
            self.warp_instructions,
            self.thread_instructions,
            100.0 * self.simd_efficiency
        );
        let _ = writeln!(s, "per opcode (warp / thread instructions):");
        let mut ops: Vec<_> = self.per_opcode.iter().collect();
        ops.sort_by(|a, b| b.1.warp.cmp(&a.1.warp).then(a.0.cmp(b.0)));
        for (name, o) in ops {
            let _ = writeln!(s, "  {name:<18} {:>12} {:>14}", o.warp, o.thread);
        }
        if !self.branches.is_empty() {
            let _ = writeln!(s, "divergent-capable branches ({} issues diverged):", self.diverged_branches);
            for b in &self.branches {
                let _ = writeln!(
                    s,
                    "  pc {:<5} line {:<5} issued {:>10}  diverged {:>10}  SIMD efficiency {:.1}%",
                    b.pc,
                    b.line,
                    b.issued,
                    b.diverged,
                    100.0 * b.simd_efficiency
                );
            }
        }
        for (space, m) in &self.memory {
            let _ = writeln!(
                s,
                "{space}: {} loads, {} stores, {} atomics; {} bytes read, {} bytes written",
                m.loads, m.stores, m.atomics, m.bytes_read, m.bytes_written
            );
        }
        if !self.memory_lines.is_empty() {
            let _ = writeln!(s, "memory efficiency per request (ideal in parentheses):");
            let _ = writeln!(
                s,
                "  {:>5}  {:<22} {:>10}  {:>14}  {:>12}  {:>12}  {:>7}",
                "line", "instruction", "requests", "sectors", "lines", "bank passes", "atomics"
            );
            let pair = |p: Option<(f64, f64)>| p.map_or("-".to_string(), |(got, ideal)| format!("{got:.1} ({ideal:.1})"));
            for m in &self.memory_lines {
                let _ = writeln!(
                    s,
                    "  {:>5}  {:<22} {:>10}  {:>14}  {:>12}  {:>12}  {:>7}",
                    m.line,
                    m.instruction,
                    m.requests,
                    pair(m.sectors),
                    pair(m.lines),
                    pair(m.bank_passes),
                    m.atomic_serialisation.map_or("-".to_string(), |a| format!("{a:.1}"))
                );
            }
        }
        if self.tensor.mma_instructions > 0 {
            let _ = writeln!(
                s,
                "tensor: {} MMA instructions, {} multiply-accumulates ({} dense-equivalent)",
                self.tensor.mma_instructions, self.tensor.macs, self.tensor.dense_equivalent_macs
            );
        }
        s
    }
}
