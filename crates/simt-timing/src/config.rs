//! Machine configurations: one TOML file per machine, every value required.
//!
//! The structs mirror the files key for key (`deny_unknown_fields`, no
//! defaults), so a misspelt key or a missing value is an error naming the
//! file, line and column, with the closest known key suggested. The built-in
//! machines are the files of `configs/`, embedded so they work from any
//! directory.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Deserializer};
use simt_isa::{LatencyClass, Target};

/// The built-in machines: name and file contents, in the order `simt configs` lists them.
pub const BUILTIN: &[(&str, &str)] = &[
    ("teaching", include_str!("../../../configs/teaching.toml")),
    ("v100", include_str!("../../../configs/v100.toml")),
    ("a100", include_str!("../../../configs/a100.toml")),
    ("h100", include_str!("../../../configs/h100.toml")),
    ("h100-pcie", include_str!("../../../configs/h100-pcie.toml")),
    ("b200", include_str!("../../../configs/b200.toml")),
];

/// Bytes of one cache line; each line is one memory request (contract §3).
pub const LINE_BYTES: u32 = 128;
/// Bytes of one sector, the unit a line is filled and counted in.
pub const SECTOR_BYTES: u32 = 32;

/// A machine: everything the timing model needs to know about one GPU.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Machine {
    /// Short name (`h100`).
    pub name: String,
    /// One line for `simt configs`.
    pub description: String,
    /// SM clock in GHz: converts cycles to time and bandwidths to bytes per cycle.
    pub clock_ghz: f64,
    /// The clock NVIDIA quotes tensor-core peaks at (H100: 1.83 GHz, below the 1.98 GHz boost
    /// its FP32 peak uses); the report's tensor TFLOPS are at this clock, so they compare with
    /// the datasheet's.
    pub tensor_clock_ghz: f64,
    /// The newest target (`sm_90`) whose instruction forms the machine runs; a kernel using a
    /// later form is refused.
    #[serde(deserialize_with = "target")]
    pub target: Target,
    /// SM count, partitions, scheduler and the occupancy limits.
    pub sm: SmConfig,
    /// Execution lanes per SM of each unit, split evenly over the partitions.
    pub lanes: Lanes,
    /// Cycles from issue until a dependent instruction may issue, per latency class.
    pub latency: Latencies,
    /// How the latency of a fixed-latency instruction splits into stages (for `--pipeview`).
    pub pipeline: Pipeline,
    /// Register-file banks.
    pub regfile: RegFile,
    /// Caches, shared memory, DRAM.
    pub memory: Memory,
    /// Tensor-core timing per MMA form (`m16n16k16.f32.f16`, ...); forms a generation lacks are absent.
    pub tensor: BTreeMap<String, TensorTiming>,
    /// Instructions the GPU runs as a sequence of operations, by lowercase mnemonic (`ddiv`):
    /// the compiler expands `div.rn.f64` into a subroutine of FP64 operations. An instruction
    /// absent here is one operation of its latency class.
    pub sequence: BTreeMap<String, SequenceTiming>,
}

/// Reads `target = "sm_90"`; a bad name is located at the value and lists the valid ones.
fn target<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Target, D::Error> {
    let name = String::deserialize(deserializer)?;
    name.parse().map_err(serde::de::Error::custom)
}

/// Warp schedulers.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// Loose round-robin: from the warp after the last grant.
    Lrr,
    /// Greedy-then-oldest: the last warp while it can issue, else the oldest that can.
    Gto,
}

/// One SM and the occupancy calculator's limits.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SmConfig {
    /// SMs on the chip.
    pub count: u32,
    /// Partitions (sub-cores) per SM, each with one scheduler.
    pub partitions: u32,
    /// Scheduling policy of every partition.
    pub scheduler: Policy,
    /// Resident warps per SM.
    pub max_warps: u32,
    /// Resident blocks per SM.
    pub max_blocks: u32,
    /// Resident threads per SM.
    pub max_threads: u32,
    /// 32-bit registers per SM.
    pub registers: u32,
    /// Registers one thread may have.
    pub max_registers_per_thread: u32,
    /// Registers are allocated per warp in multiples of this.
    pub register_allocation_unit: u32,
    /// Shared memory per SM, bytes (the largest carve-out).
    pub shared_bytes: u32,
    /// Shared memory one block may use, bytes.
    pub max_shared_per_block: u32,
    /// Shared memory per block is rounded up to a multiple of this.
    pub shared_allocation_unit: u32,
    /// Shared memory the system reserves per block, bytes.
    pub shared_reserved_per_block: u32,
    /// The shared-memory carve-outs the unified L1/shared array supports, KB, ascending.
    pub shared_carveouts_kb: Vec<u32>,
    /// Cycles from a block's end until a block dispatched into the room it freed may issue:
    /// retiring one block and launching the next (0: the next cycle). The first blocks of a
    /// launch start at cycle 0.
    pub block_launch_latency: u32,
}

/// Lanes per SM of each unit.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Lanes {
    /// Integer lanes.
    pub int: u32,
    /// f32 lanes.
    pub fp32: u32,
    /// f64 lanes.
    pub fp64: u32,
    /// Special-function lanes.
    pub sfu: u32,
    /// Load/store lanes (address generation; the memory pipelines behind them are modelled separately).
    pub ldst: u32,
    /// Branch-unit lanes.
    pub control: u32,
}

/// Latency per fixed-latency class, cycles from issue to dependent issue.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Latencies {
    /// Integer add, logic, moves, compares.
    pub alu: u32,
    /// Integer multiplies.
    pub mul: u32,
    /// f32 arithmetic.
    pub fp32: u32,
    /// f64 arithmetic.
    pub fp64: u32,
    /// Conversions and packing.
    pub convert: u32,
    /// Special functions.
    pub sfu: u32,
    /// Shuffles and votes.
    pub shuffle: u32,
    /// Branches: cycles until the warp's next instruction may issue.
    pub control: u32,
}

impl Latencies {
    /// The latency of a class; `None` for `memory` and `tensor`, which the memory model and the MMA form decide.
    pub fn of(&self, class: LatencyClass) -> Option<u32> {
        Some(match class {
            LatencyClass::Alu => self.alu,
            LatencyClass::Mul => self.mul,
            LatencyClass::Fp32 => self.fp32,
            LatencyClass::Fp64 => self.fp64,
            LatencyClass::Convert => self.convert,
            LatencyClass::Sfu => self.sfu,
            LatencyClass::Shuffle => self.shuffle,
            LatencyClass::Control => self.control,
            LatencyClass::Memory | LatencyClass::Tensor => return None,
        })
    }
}

/// The stages between issue and execute, and after it.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Pipeline {
    /// Register read cycles after issue.
    pub read_cycles: u32,
    /// Dispatch (valid/ready handshake) cycles after the read.
    pub dispatch_cycles: u32,
    /// Writeback cycles at the end.
    pub writeback_cycles: u32,
}

impl Pipeline {
    /// Cycles a latency spends outside the execute stage (issue included).
    pub fn overhead(&self) -> u32 {
        1 + self.read_cycles + self.dispatch_cycles + self.writeback_cycles
    }
}

/// Register-file banks.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RegFile {
    /// Banks per partition, register `r` in bank `r mod banks`; 0 is one bank per lane (no conflicts).
    pub banks: u32,
    /// Whether a conflict costs cycles (an instruction reading k registers of one bank needs k read
    /// cycles); conflicts are counted either way.
    pub model_conflicts: bool,
}

/// The memory hierarchy.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Memory {
    /// Outstanding L1 misses (line requests) per SM.
    pub outstanding_misses: u32,
    /// L1 data cache.
    pub l1: L1,
    /// Shared memory.
    pub shared: Shared,
    /// Constant cache (PARAM loads).
    pub constant: Constant,
    /// The network between the SMs and the L2 slices.
    pub crossbar: Crossbar,
    /// L2.
    pub l2: L2,
    /// Address translation on the way from L1 to L2.
    pub tlb: Tlb,
    /// Device memory.
    pub dram: Dram,
}

/// L1 data cache, per SM, sharing its array with shared memory.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct L1 {
    /// Bytes of the unified L1/shared array; L1 gets what the shared carve-out leaves.
    pub unified_bytes: u32,
    /// Associativity.
    pub ways: u32,
    /// Load-to-use cycles of a hit.
    pub hit_latency: u32,
    /// Cycles from issue until a miss leaves the SM: tag check and MSHR allocation.
    pub miss_latency: u32,
}

/// Shared memory.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Shared {
    /// Load-to-use cycles without conflicts.
    pub latency: u32,
}

/// Constant cache, per SM.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Constant {
    /// Bytes.
    pub bytes: u32,
    /// Associativity.
    pub ways: u32,
    /// Line bytes.
    pub line_bytes: u32,
    /// Load-to-use cycles of a hit.
    pub hit_latency: u32,
    /// Load-to-use cycles of a miss.
    pub miss_latency: u32,
}

/// The SM-to-L2 network.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Crossbar {
    /// Cycles one way, SM to L2 slice (the answer takes as long back).
    pub latency: u32,
}

/// L2, shared by all SMs.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct L2 {
    /// Bytes.
    pub bytes: u64,
    /// Associativity.
    pub ways: u32,
    /// Partitions: 1 is one uniform L2; 2 (A100, H100) gives each half of the SMs a near
    /// partition that keeps copies of what they read, in front of the whole L2.
    pub partitions: u32,
    /// Cycles a slice takes to look a request up and read the data.
    pub slice_latency: u32,
    /// Extra cycles, there and back, to reach the far partition.
    pub far_latency: u32,
    /// Extra cycles an atomic spends in the slice's atomic unit (read, apply, write the line),
    /// beyond the hit a load would be.
    pub atomic_latency: u32,
    /// Bandwidth, GB/s.
    pub bandwidth_gbs: f64,
}

/// Two levels of TLB between L1 and L2 (L1 is virtually addressed, L2 physically).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Tlb {
    /// Entries of each SM's fully associative L1 TLB.
    pub l1_entries: u32,
    /// Bytes one L1 TLB entry maps.
    pub l1_page_bytes: u64,
    /// Entries of the shared L2 TLB.
    pub l2_entries: u32,
    /// Associativity of the L2 TLB.
    pub l2_ways: u32,
    /// Bytes one L2 TLB entry maps.
    pub l2_page_bytes: u64,
    /// Extra cycles of an L1 TLB miss that hits the L2 TLB.
    pub l2_latency: u32,
    /// Extra cycles of a miss in both (the page walk).
    pub walk_latency: u32,
}

/// Device memory: channels of banks with row buffers.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Dram {
    /// Cycles an L2 miss spends outside the DRAM devices: memory controller, PHY, the way back.
    pub latency: u32,
    /// Bandwidth, GB/s, of all channels together.
    pub bandwidth_gbs: f64,
    /// Independent channels (HBM pseudo-channels), each with its own data bus.
    pub channels: u32,
    /// Banks per channel, each with one open row.
    pub banks: u32,
    /// Bytes of a row that consecutive lines fill before the next row (and channel).
    pub row_bytes: u32,
    /// Activate to read, ns.
    pub t_rcd_ns: f64,
    /// Precharge (closing the open row), ns.
    pub t_rp_ns: f64,
    /// Read to data, ns.
    pub t_cl_ns: f64,
    /// Time between refreshes of one bank, ns; 0 is no refresh.
    pub refresh_interval_ns: f64,
    /// Time a refresh keeps its bank busy, ns.
    pub refresh_ns: f64,
    /// Bus turnaround when a channel switches between reads and writes, ns.
    pub turnaround_ns: f64,
    /// Sectors of writes a channel's controller gathers before it turns the bus around for them.
    pub write_batch: u32,
}

/// One MMA form on one partition's tensor core.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct TensorTiming {
    /// Cycles from issue until a dependent instruction may issue.
    pub latency: u32,
    /// Cycles between two MMAs of this form on one partition (the initiation interval).
    pub interval: u32,
}

/// An instruction the GPU runs as a sequence of operations on the instruction's unit.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SequenceTiming {
    /// Cycles from issue until a dependent instruction may issue: the sequence's critical path.
    pub latency: u32,
    /// Operations the sequence runs on the unit, each holding it as one instruction does.
    pub ops: u32,
    /// Whether the warp issues nothing else until `latency` has passed. The compiled sequence
    /// branches to its slow path on a check of the operands, and where that check waits for
    /// the sequence's own results (f32 `div.rn`, `rcp.rn` and `sqrt.rn` on Hopper, whose
    /// independent chains take as long a step as one) the warp's later instructions wait too;
    /// not when no lane's guard holds, since the compiled code then branches around it.
    pub blocking: bool,
}

/// Encountered when a machine configuration cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read machine configuration {path}: {message}")]
    Read {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// Neither a built-in name nor a `.toml` file.
    #[error("no machine `{name}`: the built-in machines are {}{}; or give a .toml file", builtin_names().join(", "), suggest(name, builtin_names()))]
    Unknown {
        /// What was asked for.
        name: String,
    },
    /// A syntax error, an unknown key, a missing or ill-typed value, or a value out of range.
    #[error("{file}:{line}:{column}: {message}")]
    Invalid {
        /// The file (or built-in name).
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong and what to do.
        message: String,
    },
}

/// The longest latency (cycles) any value of a machine file may give: a hundred times a
/// real GPU's DRAM latency. Time in the model advances in windows of the L2 latency, so an
/// `alu = 4294967295` would make each dependent instruction wait out billions of cycles.
pub const MAX_LATENCY: u32 = 10_000;
/// Most operations one instruction's sequence may run (its unit is busy `ops` times its interval).
pub const MAX_SEQUENCE_OPS: u32 = 1_000;
/// The clock range, GHz: from a slow embedded part to well beyond any GPU.
pub const CLOCK_GHZ: (f64, f64) = (0.1, 10.0);
/// The bandwidth range, GB/s, of L2 and DRAM. With the clock's range this keeps a 32-byte
/// sector between 0.0003 and 320 cycles, so service times neither vanish nor run away
/// (`1e-20` GB/s once made a sector take 10^22 cycles).
pub const BANDWIDTH_GBS: (f64, f64) = (1.0, 1e6);
/// The most SMs, registers per SM, pipeline stage cycles, outstanding misses and cache ways.
const MAX_SMS: u32 = 4096;
const MAX_SM_REGISTERS: u32 = 1 << 20;
const MAX_SM_THREADS: u32 = 8192;
const MAX_SM_SHARED: u32 = 16 << 20;
const MAX_STAGE_CYCLES: u32 = 100;
const MAX_OUTSTANDING_MISSES: u32 = 1 << 16;
const MAX_WAYS: u32 = 4096;
/// The most cache lines the SMs' L1 and constant caches may have together, and L2's bytes:
/// each line costs the model about 16 bytes of tags, made for every SM up front, so 4,096 SMs
/// of 64 MiB L1 once took 24 GB before anything ran. Eight times a B200's L1 lines.
pub const MAX_SM_CACHE_LINES: u64 = 1 << 23;
/// The largest L2, bytes: eight times a B200's.
pub const MAX_L2_BYTES: u64 = 1 << 30;
/// The most L2 TLB entries, DRAM channels and banks per channel: each is a few bytes of state
/// made up front, and these are far beyond any GPU's.
const MAX_TLB_ENTRIES: u32 = 1 << 16;
const MAX_DRAM_CHANNELS: u32 = 4096;
const MAX_DRAM_BANKS: u32 = 256;
/// The longest DRAM timing, ns: a hundred times a real tRFC.
pub const MAX_DRAM_NS: f64 = 50_000.0;

/// The names of the built-in machines.
pub fn builtin_names() -> Vec<&'static str> {
    BUILTIN.iter().map(|(n, _)| *n).collect()
}

/// `"; did you mean `x`?"` when a candidate is close to `word`.
fn suggest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map_or(String::new(), |(_, c)| format!("; did you mean `{c}`?"))
}

/// 1-based line and column of byte `offset` in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

impl Machine {
    /// A built-in machine by name, or a machine file.
    ///
    /// # Errors
    /// An unknown name, an unreadable file, or an invalid configuration.
    pub fn load(name_or_path: &str) -> Result<Machine, ConfigError> {
        if let Some((name, text)) = BUILTIN.iter().find(|(n, _)| n.eq_ignore_ascii_case(name_or_path)) {
            return Machine::parse(name, text);
        }
        let path = Path::new(name_or_path);
        if path.extension().is_some_and(|e| e == "toml") || path.exists() {
            let bytes = std::fs::read(path).map_err(|e| ConfigError::Read { path: name_or_path.to_string(), message: e.to_string() })?;
            let text = String::from_utf8(bytes).map_err(|_| ConfigError::Read { path: name_or_path.to_string(), message: "not UTF-8 text".into() })?;
            return Machine::parse(name_or_path, &text);
        }
        Err(ConfigError::Unknown { name: name_or_path.to_string() })
    }

    /// A built-in machine; panics only if the embedded file is broken, which a test rules out.
    pub fn builtin(name: &str) -> Machine {
        Machine::load(name).unwrap_or_else(|e| panic!("built-in machine {name}: {e}"))
    }

    /// Parses and checks a configuration; `file` names it in messages.
    ///
    /// # Errors
    /// The first problem, located by line and column.
    pub fn parse(file: &str, text: &str) -> Result<Machine, ConfigError> {
        let machine: Machine = toml::from_str(text).map_err(|e| {
            let (line, column) = line_col(text, e.span().map_or(0, |s| s.start));
            let original = e.message().trim().to_string();
            let mut message = original.clone();
            // serde names the unknown field and the ones it expected: suggest the closest.
            if let Some(rest) = original.strip_prefix("unknown field `")
                && let Some((field, expected)) = rest.split_once('`')
            {
                let known: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
                message = format!("unknown key `{field}`{}", suggest(field, known.iter().copied()));
                if !known.is_empty() {
                    message.push_str(&format!(" (the keys here are {})", known.join(", ")));
                }
            } else if let Some(rest) = original.strip_prefix("missing field `") {
                let field = rest.split('`').next().unwrap_or_default();
                message = format!("missing key `{field}`: every value must be given (there are no defaults)");
            }
            ConfigError::Invalid { file: file.to_string(), line, column, message }
        })?;
        machine.check().map_err(|(path, message)| {
            let (line, column) = locate(text, &path);
            ConfigError::Invalid { file: file.to_string(), line, column, message: format!("{path}: {message}") }
        })?;
        Ok(machine)
    }

    /// Semantic checks: (key path, message) of the first problem.
    fn check(&self) -> Result<(), (String, String)> {
        let fail = |path: &str, message: String| Err((path.to_string(), message));
        let sm = &self.sm;
        for (key, clock) in [("clock_ghz", self.clock_ghz), ("tensor_clock_ghz", self.tensor_clock_ghz)] {
            if !(clock >= CLOCK_GHZ.0 && clock <= CLOCK_GHZ.1) {
                return fail(key, format!("must be from {} to {} GHz", CLOCK_GHZ.0, CLOCK_GHZ.1));
            }
        }
        for (key, v) in [
            ("sm.count", sm.count),
            ("sm.partitions", sm.partitions),
            ("sm.max_warps", sm.max_warps),
            ("sm.max_blocks", sm.max_blocks),
            ("sm.max_threads", sm.max_threads),
            ("sm.registers", sm.registers),
            ("sm.register_allocation_unit", sm.register_allocation_unit),
            ("sm.shared_allocation_unit", sm.shared_allocation_unit),
        ] {
            if v == 0 {
                return fail(key, "must be at least 1".into());
            }
        }
        if sm.count > MAX_SMS {
            return fail("sm.count", format!("at most {MAX_SMS} SMs"));
        }
        for (key, v, most) in [
            ("sm.registers", sm.registers, MAX_SM_REGISTERS),
            ("sm.register_allocation_unit", sm.register_allocation_unit, sm.registers),
            ("sm.max_threads", sm.max_threads, MAX_SM_THREADS),
            ("sm.shared_bytes", sm.shared_bytes, MAX_SM_SHARED),
            ("sm.shared_allocation_unit", sm.shared_allocation_unit, sm.shared_bytes.max(1)),
            ("sm.shared_reserved_per_block", sm.shared_reserved_per_block, sm.shared_bytes),
            ("pipeline.read_cycles", self.pipeline.read_cycles, MAX_STAGE_CYCLES),
            ("pipeline.dispatch_cycles", self.pipeline.dispatch_cycles, MAX_STAGE_CYCLES),
            ("pipeline.writeback_cycles", self.pipeline.writeback_cycles, MAX_STAGE_CYCLES),
            ("memory.outstanding_misses", self.memory.outstanding_misses, MAX_OUTSTANDING_MISSES),
            ("memory.l1.ways", self.memory.l1.ways, MAX_WAYS),
            ("memory.constant.ways", self.memory.constant.ways, MAX_WAYS),
            ("memory.l2.ways", self.memory.l2.ways, MAX_WAYS),
            ("memory.l2.partitions", self.memory.l2.partitions, 8),
            ("memory.tlb.l1_entries", self.memory.tlb.l1_entries, MAX_WAYS),
            ("memory.tlb.l2_entries", self.memory.tlb.l2_entries, MAX_TLB_ENTRIES),
            ("memory.tlb.l2_ways", self.memory.tlb.l2_ways, self.memory.tlb.l2_entries),
            ("memory.dram.channels", self.memory.dram.channels, MAX_DRAM_CHANNELS),
            ("memory.dram.banks", self.memory.dram.banks, MAX_DRAM_BANKS),
            ("memory.dram.row_bytes", self.memory.dram.row_bytes, 1 << 16),
            ("memory.dram.write_batch", self.memory.dram.write_batch, 1 << 16),
        ] {
            if v > most {
                return fail(key, format!("at most {most}"));
            }
        }
        if sm.shared_carveouts_kb.len() > 64 {
            return fail("sm.shared_carveouts_kb", "at most 64 carve-outs".into());
        }
        // An SM keeps its warp slots, and each scheduler its warps' readiness, in one 64-bit
        // word (64 warps is every NVIDIA SM's limit): 256 warps once indexed past it (a panic)
        // or hung.
        if sm.max_warps > 64 || !sm.max_warps.is_multiple_of(sm.partitions) {
            return fail("sm.max_warps", format!("must be a multiple of sm.partitions ({}) and at most 64", sm.partitions));
        }
        if sm.max_blocks > 256 {
            return fail("sm.max_blocks", "at most 256".into());
        }
        if !(1..=255).contains(&sm.max_registers_per_thread) {
            return fail("sm.max_registers_per_thread", "must be 1 to 255".into());
        }
        if sm.max_shared_per_block > sm.shared_bytes {
            return fail("sm.max_shared_per_block", format!("more than sm.shared_bytes ({})", sm.shared_bytes));
        }
        if sm.shared_carveouts_kb.is_empty()
            || !sm.shared_carveouts_kb.is_sorted()
            || sm.shared_carveouts_kb.last().is_some_and(|&k| k * 1024 != sm.shared_bytes)
        {
            return fail("sm.shared_carveouts_kb", "must be ascending and end at sm.shared_bytes / 1024".into());
        }
        let lanes = [
            ("lanes.int", self.lanes.int),
            ("lanes.fp32", self.lanes.fp32),
            ("lanes.fp64", self.lanes.fp64),
            ("lanes.sfu", self.lanes.sfu),
            ("lanes.ldst", self.lanes.ldst),
            ("lanes.control", self.lanes.control),
        ];
        for (key, l) in lanes {
            let per = l / sm.partitions;
            if l == 0 || !l.is_multiple_of(sm.partitions) || per > 32 || !32u32.is_multiple_of(per) {
                return fail(key, format!("must split over {} partitions into 1, 2, 4, 8, 16 or 32 lanes each", sm.partitions));
            }
        }
        let least = self.pipeline.overhead() + 1;
        for class in LatencyClass::ALL {
            if let Some(l) = self.latency.of(class)
                && l > MAX_LATENCY
            {
                return fail(&format!("latency.{}", class.name()), format!("{l} cycles: at most {MAX_LATENCY}"));
            }
        }
        // Control's latency is when the warp's next instruction may issue, not a pipeline.
        for class in LatencyClass::ALL.into_iter().filter(|&c| c != LatencyClass::Control) {
            if let Some(l) = self.latency.of(class)
                && l < least
            {
                return fail(
                    &format!("latency.{}", class.name()),
                    format!("{l} cycles leave no execute stage: at least {least} (issue, pipeline stages, one execute cycle)"),
                );
            }
        }
        let mem = &self.memory;
        for (key, v) in [
            ("memory.l2.partitions", mem.l2.partitions),
            ("memory.tlb.l1_entries", mem.tlb.l1_entries),
            ("memory.tlb.l2_entries", mem.tlb.l2_entries),
            ("memory.tlb.l2_ways", mem.tlb.l2_ways),
            ("memory.dram.channels", mem.dram.channels),
            ("memory.dram.banks", mem.dram.banks),
            ("memory.dram.write_batch", mem.dram.write_batch),
        ] {
            if v == 0 {
                return fail(key, "must be at least 1".into());
            }
        }
        if !mem.tlb.l2_entries.is_multiple_of(mem.tlb.l2_ways) {
            return fail("memory.tlb.l2_ways", format!("must divide memory.tlb.l2_entries ({})", mem.tlb.l2_entries));
        }
        for (key, page) in [("memory.tlb.l1_page_bytes", mem.tlb.l1_page_bytes), ("memory.tlb.l2_page_bytes", mem.tlb.l2_page_bytes)] {
            if !page.is_power_of_two() || page < u64::from(LINE_BYTES) || page > 1 << 40 {
                return fail(key, format!("must be a power of two from {LINE_BYTES} bytes to 1 TiB"));
            }
        }
        if mem.dram.row_bytes < LINE_BYTES || !mem.dram.row_bytes.is_multiple_of(LINE_BYTES) {
            return fail("memory.dram.row_bytes", format!("must be a multiple of the {LINE_BYTES}-byte line"));
        }
        let d = &mem.dram;
        for (key, ns) in [
            ("memory.dram.t_rcd_ns", d.t_rcd_ns),
            ("memory.dram.t_rp_ns", d.t_rp_ns),
            ("memory.dram.t_cl_ns", d.t_cl_ns),
            ("memory.dram.refresh_interval_ns", d.refresh_interval_ns),
            ("memory.dram.refresh_ns", d.refresh_ns),
            ("memory.dram.turnaround_ns", d.turnaround_ns),
        ] {
            if !(0.0..=MAX_DRAM_NS).contains(&ns) {
                return fail(key, format!("must be from 0 to {MAX_DRAM_NS} ns"));
            }
        }
        if d.refresh_interval_ns > 0.0 && d.refresh_ns >= d.refresh_interval_ns {
            return fail("memory.dram.refresh_ns", "must be shorter than memory.dram.refresh_interval_ns".into());
        }
        for (key, l) in [
            ("sm.block_launch_latency", sm.block_launch_latency),
            ("memory.l1.miss_latency", mem.l1.miss_latency),
            ("memory.crossbar.latency", mem.crossbar.latency),
            ("memory.l2.slice_latency", mem.l2.slice_latency),
            ("memory.l2.far_latency", mem.l2.far_latency),
            ("memory.l2.atomic_latency", mem.l2.atomic_latency),
            ("memory.tlb.l2_latency", mem.tlb.l2_latency),
            ("memory.tlb.walk_latency", mem.tlb.walk_latency),
        ] {
            if l > MAX_LATENCY {
                return fail(key, format!("{l} cycles: at most {MAX_LATENCY}"));
            }
        }
        for (key, l) in [
            ("memory.l1.hit_latency", mem.l1.hit_latency),
            ("memory.shared.latency", mem.shared.latency),
            ("memory.constant.hit_latency", mem.constant.hit_latency),
            ("memory.constant.miss_latency", mem.constant.miss_latency),
            ("memory.dram.latency", mem.dram.latency),
        ] {
            if l < least {
                return fail(key, format!("at least {least} cycles (issue, pipeline stages, one execute cycle)"));
            }
            if l > MAX_LATENCY {
                return fail(key, format!("{l} cycles: at most {MAX_LATENCY}"));
            }
        }
        if self.l2_hit_latency() <= u64::from(mem.l1.hit_latency) {
            return fail(
                "memory.l2.slice_latency",
                "an L2 hit (l1.miss_latency + 2 x crossbar.latency + l2.slice_latency) must take longer than an L1 hit".into(),
            );
        }
        if mem.outstanding_misses == 0 {
            return fail("memory.outstanding_misses", "must be at least 1".into());
        }
        if mem.l1.ways == 0 || mem.l1.unified_bytes < sm.shared_bytes || mem.l1.unified_bytes > (64 << 20) {
            return fail("memory.l1.unified_bytes", "must hold the largest shared carve-out, with at least one way".into());
        }
        let c = &mem.constant;
        if c.ways == 0 || c.line_bytes < 4 || !c.line_bytes.is_power_of_two() || c.bytes < c.line_bytes * c.ways || c.bytes > (16 << 20) {
            return fail("memory.constant.bytes", "needs a power-of-two line of at least 4 bytes and room for one set".into());
        }
        if mem.l2.ways == 0 || mem.l2.bytes < u64::from(LINE_BYTES * mem.l2.ways) || mem.l2.bytes > MAX_L2_BYTES {
            return fail("memory.l2.bytes", format!("must hold at least one set and at most {MAX_L2_BYTES} bytes"));
        }
        let lines_per_sm = u64::from(mem.l1.unified_bytes / LINE_BYTES) + u64::from(c.bytes / c.line_bytes) + u64::from(mem.tlb.l1_entries);
        if u64::from(sm.count) * lines_per_sm > MAX_SM_CACHE_LINES {
            return fail(
                "sm.count",
                format!(
                    "{} SMs of {lines_per_sm} L1, constant-cache and TLB lines each make {} lines; the model holds at most {MAX_SM_CACHE_LINES}: fewer SMs or smaller caches",
                    sm.count,
                    u64::from(sm.count) * lines_per_sm
                ),
            );
        }
        for (key, bw) in [("memory.l2.bandwidth_gbs", mem.l2.bandwidth_gbs), ("memory.dram.bandwidth_gbs", mem.dram.bandwidth_gbs)] {
            if !(bw >= BANDWIDTH_GBS.0 && bw <= BANDWIDTH_GBS.1) {
                return fail(key, format!("must be from {} to {} GB/s", BANDWIDTH_GBS.0, BANDWIDTH_GBS.1));
            }
        }
        if self.regfile.banks > 255 {
            return fail("regfile.banks", "at most 255".into());
        }
        let known = crate::forms::known();
        for (form, t) in &self.tensor {
            let Some((_, mma)) = known.iter().find(|(k, _)| k == form) else {
                let keys: Vec<&str> = known.iter().map(|(k, _)| k.as_str()).collect();
                return fail(
                    &format!("tensor.\"{form}\""),
                    format!("no MMA form `{form}`{}; the forms are {}", suggest(form, keys.iter().copied()), keys.join(", ")),
                );
            };
            if mma.since() > self.target {
                let needs = mma.since();
                return fail(
                    &format!("tensor.\"{form}\""),
                    format!(
                        "the form needs target {needs} ({}) or later, but the machine's target is {} ({}): remove the line or raise `target`",
                        needs.generation(),
                        self.target,
                        self.target.generation()
                    ),
                );
            }
            if t.interval == 0 || t.latency < least.max(t.interval) || t.latency > MAX_LATENCY {
                return fail(
                    &format!("tensor.\"{form}\""),
                    format!("interval must be at least 1 and latency at least the interval and {least}, and at most {MAX_LATENCY}"),
                );
            }
        }
        for (name, t) in &self.sequence {
            let path = format!("sequence.{name}");
            let Some(row) = simt_isa::TABLE.iter().find(|r| r.mnemonic.to_ascii_lowercase() == *name) else {
                let names: Vec<String> = simt_isa::TABLE.iter().map(|r| r.mnemonic.to_ascii_lowercase()).collect();
                return fail(
                    &path,
                    format!("no instruction `{name}` (keys are lowercase mnemonics, as `ddiv`){}", suggest(name, names.iter().map(String::as_str))),
                );
            };
            if matches!(row.latency, LatencyClass::Memory | LatencyClass::Tensor) || matches!(row.unit, simt_isa::Unit::Control) {
                return fail(&path, format!("`{name}` is timed by the memory model, the tensor table or the branch unit, not as a sequence"));
            }
            if t.ops == 0 || t.ops > MAX_SEQUENCE_OPS || t.latency < least || t.latency > MAX_LATENCY {
                return fail(&path, format!("ops must be from 1 to {MAX_SEQUENCE_OPS}, and latency from {least} to {MAX_LATENCY}"));
            }
        }
        Ok(())
    }

    /// Lanes of `unit` in one partition.
    pub fn lanes_per_partition(&self, unit: simt_isa::Unit) -> u32 {
        let l = &self.lanes;
        let per_sm = match unit {
            simt_isa::Unit::Int => l.int,
            simt_isa::Unit::Fp32 => l.fp32,
            simt_isa::Unit::Fp64 => l.fp64,
            simt_isa::Unit::Sfu => l.sfu,
            simt_isa::Unit::LdSt => l.ldst,
            simt_isa::Unit::Control => l.control,
            simt_isa::Unit::Tensor => return 32,
        };
        per_sm / self.sm.partitions
    }

    /// Load-to-use cycles of the fastest L2 answer, a hit in the near partition with no TLB
    /// miss: the miss leaves the SM, crosses to the slice, is looked up, and crosses back.
    pub fn l2_hit_latency(&self) -> u64 {
        let m = &self.memory;
        u64::from(m.l1.miss_latency) + 2 * u64::from(m.crossbar.latency) + u64::from(m.l2.slice_latency)
    }

    /// Cycles between two cycles of simulated time that may be run without looking at other SMs:
    /// nothing an SM sends to L2 comes back sooner.
    pub fn window(&self) -> u64 {
        self.l2_hit_latency()
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Policy::Lrr => "lrr",
            Policy::Gto => "gto",
        })
    }
}

/// The line and column of key `path` (`memory.l1.ways`, `tensor."m16n16k16.f32.f16"`): the
/// key's line inside its table, else the table header, else the top.
fn locate(text: &str, path: &str) -> (usize, usize) {
    let (table, key) = match path.rsplit_once('.') {
        Some((t, k)) if !path.starts_with("tensor.") => (t.to_string(), k.to_string()),
        _ => match path.split_once('.') {
            Some((t, k)) => (t.to_string(), k.to_string()),
            None => (String::new(), path.to_string()),
        },
    };
    let mut in_table = table.is_empty();
    // `memory.dram.latency` may be written `dram = { latency = ... }` inside `[memory]`.
    let inline = table.rsplit_once('.');
    let mut in_parent = false;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if let Some(header) = trimmed.strip_prefix('[') {
            let name = header.split(']').next().unwrap_or_default().trim();
            in_table = name == table;
            in_parent = inline.is_some_and(|(parent, _)| name == parent);
            if in_table && table.starts_with("tensor") {
                return line_col(text, offset);
            }
            if name == format!("{table}.{key}") || (table == "tensor" && name == format!("tensor.{key}")) {
                return line_col(text, offset + line.len() - trimmed.len());
            }
        } else if in_table && trimmed.starts_with(key.as_str()) && trimmed[key.len()..].trim_start().starts_with('=') {
            return line_col(text, offset + line.len() - trimmed.len());
        } else if let Some((_, child)) = inline.filter(|_| in_parent)
            && let Some(rest) = trimmed.strip_prefix(child)
            && rest.trim_start().starts_with('=')
            && let Some(at) = line.find(&format!("{key} ")).or_else(|| line.find(&format!("{key}=")))
        {
            return line_col(text, offset + at);
        }
        offset += line.len();
    }
    (1, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_from_one() {
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        assert_eq!(line_col("x", 0), (1, 1));
    }

    #[test]
    fn keys_are_located_in_their_table() {
        let text = "name = 1\n[memory.l1]\nways = 2\n[sm]\nways = 3\n";
        assert_eq!(locate(text, "sm.ways"), (5, 1));
        assert_eq!(locate(text, "memory.l1.ways"), (3, 1));
        assert_eq!(locate(text, "name"), (1, 1));
        let text = "[memory]\nl2 = { ways = 2, latency = 3 }\ndram = { latency = 4 }\n";
        assert_eq!(locate(text, "memory.dram.latency"), (3, 10));
    }
}
