//! Occupancy by the rules of NVIDIA's occupancy calculator (contract §4).
//!
//! Registers are allocated per warp, `ceil(regs * 32 / unit) * unit`, and each partition
//! holds `(registers / partitions) / per_warp` warps; shared memory per block is rounded
//! up to the allocation unit plus the per-block reservation; then the warp, block and
//! thread limits per SM. The smallest limit wins.

use std::fmt::Write as _;

use crate::config::Machine;

/// What limits the blocks per SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Limiter {
    /// Registers per thread.
    Registers,
    /// Shared memory per block.
    SharedMemory,
    /// Resident warps per SM.
    Warps,
    /// Resident blocks per SM.
    Blocks,
    /// Resident threads per SM.
    Threads,
}

impl Limiter {
    /// Words for the report.
    pub fn describe(self) -> &'static str {
        match self {
            Limiter::Registers => "registers per thread",
            Limiter::SharedMemory => "shared memory per block",
            Limiter::Warps => "warps per SM",
            Limiter::Blocks => "blocks per SM",
            Limiter::Threads => "threads per SM",
        }
    }
}

/// The occupancy of one kernel shape on one machine.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Occupancy {
    /// Threads per block.
    pub threads_per_block: u32,
    /// Warps per block.
    pub warps_per_block: u32,
    /// Registers per thread (the kernel's `.regs`).
    pub registers_per_thread: u32,
    /// Registers allocated per warp.
    pub registers_per_warp: u32,
    /// Shared memory the kernel declares per block, bytes.
    pub shared_per_block: u32,
    /// Shared memory allocated per block (rounded, plus the reservation), bytes.
    pub shared_allocated_per_block: u32,
    /// Blocks per SM each resource allows.
    pub limits: Vec<(Limiter, u32)>,
    /// Resident blocks per SM (0: the kernel cannot run on this machine).
    pub blocks_per_sm: u32,
    /// Resident warps per SM.
    pub warps_per_sm: u32,
    /// `warps_per_sm / max_warps`, percent.
    pub occupancy_percent: f64,
    /// The resource that allows the fewest blocks.
    pub limiter: Limiter,
    /// Why no block fits, when none does.
    pub impossible: Option<Impossible>,
}

/// Why not one block of a launch fits on an SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Impossible {
    /// The kernel uses more registers per thread than a thread may have.
    #[error("{regs} registers per thread; the most is {max}")]
    Registers {
        /// The kernel's registers per thread.
        regs: u32,
        /// The machine's most per thread.
        max: u32,
    },
    /// The block declares more shared memory than a block may use.
    #[error("the block declares {bytes} bytes of shared memory; a block may use at most {max} ({} KB)", .max / 1024)]
    SharedMemory {
        /// The block's shared memory.
        bytes: u32,
        /// The most a block may use.
        max: u32,
    },
    /// The block has more threads than an SM holds.
    #[error("{threads} threads per block; an SM holds at most {max}")]
    Threads {
        /// Threads per block.
        threads: u32,
        /// The most an SM holds.
        max: u32,
    },
    /// Each resource alone would allow a block, but `limiter` allows none.
    #[error("not even one block fits: {} allow none", .limiter.describe())]
    NoBlock {
        /// The resource that allows none.
        limiter: Limiter,
    },
}

/// Written as its words, as `simt occupancy --json` always showed it.
impl serde::Serialize for Impossible {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// The occupancy of blocks of `threads` threads using `regs` registers per thread and
/// `shared` bytes of shared memory on `machine`.
pub fn occupancy(machine: &Machine, threads: u32, regs: u32, shared: u32) -> Occupancy {
    let sm = &machine.sm;
    let warps_per_block = threads.div_ceil(32).max(1);
    let unit = sm.register_allocation_unit;
    let regs_per_warp = (regs.max(1) * 32).div_ceil(unit) * unit;
    let warps_per_partition = (sm.registers / sm.partitions) / regs_per_warp;
    let by_regs = warps_per_partition * sm.partitions / warps_per_block;
    let shared_alloc = shared.div_ceil(sm.shared_allocation_unit) * sm.shared_allocation_unit + sm.shared_reserved_per_block;
    let by_shared = sm.shared_bytes.checked_div(shared_alloc).unwrap_or(u32::MAX);
    let limits = vec![
        (Limiter::Registers, by_regs),
        (Limiter::SharedMemory, by_shared),
        (Limiter::Warps, sm.max_warps / warps_per_block),
        (Limiter::Blocks, sm.max_blocks),
        (Limiter::Threads, sm.max_threads / (warps_per_block * 32).min(sm.max_threads.max(1))),
    ];
    let mut impossible = None;
    if regs > sm.max_registers_per_thread {
        impossible = Some(Impossible::Registers { regs, max: sm.max_registers_per_thread });
    } else if shared > sm.max_shared_per_block {
        impossible = Some(Impossible::SharedMemory { bytes: shared, max: sm.max_shared_per_block });
    } else if threads > sm.max_threads {
        impossible = Some(Impossible::Threads { threads, max: sm.max_threads });
    }
    let (limiter, mut blocks) = limits.iter().copied().min_by_key(|&(_, b)| b).unwrap_or((Limiter::Blocks, 0));
    if impossible.is_some() {
        blocks = 0;
    } else if blocks == 0 {
        impossible = Some(Impossible::NoBlock { limiter });
    }
    let warps_per_sm = blocks * warps_per_block;
    Occupancy {
        threads_per_block: threads,
        warps_per_block,
        registers_per_thread: regs,
        registers_per_warp: regs_per_warp,
        shared_per_block: shared,
        shared_allocated_per_block: shared_alloc,
        limits,
        blocks_per_sm: blocks,
        warps_per_sm,
        occupancy_percent: 100.0 * f64::from(warps_per_sm) / f64::from(sm.max_warps),
        limiter,
        impossible,
    }
}

/// Registers per thread in the table of `simt occupancy`.
pub const REGISTER_STEPS: [u32; 12] = [16, 24, 32, 40, 48, 64, 80, 96, 128, 168, 200, 255];

/// The full report of `simt occupancy`: the kernel's figures, then occupancy against
/// registers per thread and against shared memory per block, the kernel's row marked.
pub fn render(machine: &Machine, kernel: &str, occ: &Occupancy) -> String {
    let mut s = String::new();
    let sm = &machine.sm;
    let _ = writeln!(s, "kernel {kernel} on {} ({})", machine.name, machine.description);
    let _ = writeln!(s, "  block                {} threads ({} warps)", occ.threads_per_block, occ.warps_per_block);
    let _ = writeln!(s, "  registers            {} per thread, {} per warp allocated", occ.registers_per_thread, occ.registers_per_warp);
    let _ = writeln!(s, "  shared memory        {} bytes per block, {} allocated", occ.shared_per_block, occ.shared_allocated_per_block);
    if let Some(why) = &occ.impossible {
        let _ = writeln!(s, "  blocks per SM        0: {why}");
    } else {
        let _ = writeln!(s, "  blocks per SM        {}", occ.blocks_per_sm);
    }
    let _ = writeln!(s, "  warps per SM         {} of {}", occ.warps_per_sm, sm.max_warps);
    let _ = writeln!(s, "  occupancy            {:.1}%", occ.occupancy_percent);
    let _ = writeln!(s, "  limited by           {}", occ.limiter.describe());
    let _ = writeln!(s, "\n  blocks per SM allowed by each resource:");
    for (limiter, blocks) in &occ.limits {
        let shown = if *blocks == u32::MAX { "-".to_string() } else { blocks.to_string() };
        let _ = writeln!(s, "    {:<24} {shown:>5}", limiter.describe());
    }
    let _ = writeln!(s, "\n  occupancy vs registers per thread (block of {} threads, {} bytes shared):", occ.threads_per_block, occ.shared_per_block);
    let _ = writeln!(s, "    {:>9}  {:>13}  {:>12}  {:>9}  limited by", "registers", "blocks per SM", "warps per SM", "occupancy");
    let mut regs: Vec<u32> = REGISTER_STEPS.iter().copied().filter(|&r| r <= sm.max_registers_per_thread).collect();
    if !regs.contains(&occ.registers_per_thread) && occ.registers_per_thread <= sm.max_registers_per_thread {
        regs.push(occ.registers_per_thread);
        regs.sort_unstable();
    }
    for r in regs {
        let o = occupancy(machine, occ.threads_per_block, r, occ.shared_per_block);
        let mark = if r == occ.registers_per_thread { "  <- this kernel" } else { "" };
        let _ = writeln!(s, "    {r:>9}  {:>13}  {:>12}  {:>8.1}%  {}{mark}", o.blocks_per_sm, o.warps_per_sm, o.occupancy_percent, o.limiter.describe());
    }
    let _ = writeln!(s, "\n  occupancy vs shared memory per block (block of {} threads, {} registers):", occ.threads_per_block, occ.registers_per_thread);
    let _ = writeln!(s, "    {:>9}  {:>13}  {:>12}  {:>9}  limited by", "shared KB", "blocks per SM", "warps per SM", "occupancy");
    let mut steps: Vec<u32> = sm.shared_carveouts_kb.iter().map(|k| k * 1024).collect();
    steps.retain(|&b| b <= sm.max_shared_per_block);
    steps.push(sm.max_shared_per_block);
    if occ.shared_per_block <= sm.max_shared_per_block {
        steps.push(occ.shared_per_block);
    }
    steps.sort_unstable();
    steps.dedup();
    for b in steps {
        let o = occupancy(machine, occ.threads_per_block, occ.registers_per_thread, b);
        let mark = if b == occ.shared_per_block { "  <- this kernel" } else { "" };
        let _ = writeln!(
            s,
            "    {:>9.1}  {:>13}  {:>12}  {:>8.1}%  {}{mark}",
            f64::from(b) / 1024.0,
            o.blocks_per_sm,
            o.warps_per_sm,
            o.occupancy_percent,
            o.limiter.describe()
        );
    }
    s
}
