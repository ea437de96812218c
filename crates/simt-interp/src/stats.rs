//! Statistics of one launch.

use std::collections::BTreeMap;

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
    /// Traffic per memory space (`global`, `shared`, `local`, `param`).
    pub memory: BTreeMap<String, SpaceStats>,
    /// Tensor-core work.
    pub tensor: TensorStats,
}

impl Stats {
    /// A short human-readable report.
    pub fn render_text(&self) -> String {
        format!("{} warp instructions, {} thread instructions", self.warp_instructions, self.thread_instructions)
    }
}
