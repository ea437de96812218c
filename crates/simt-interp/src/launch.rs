//! Launch configuration and the entry point [`run`].

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rayon::prelude::*;
use simt_isa::*;

use crate::block::{BlockSim, run_sm};
use crate::decode::Undecodable;
use crate::decode::{Program, decode};
use crate::memory::words_of;
use crate::sanitize::Checks;
use crate::stats::Counters;
use crate::{Fault, GlobalMemory, Stats};

/// A launch ready to run: checked, translated, sharing its memory and step count between blocks.
///
/// [`crate::run`] runs every block; a timing model instead takes blocks with
/// [`Launch::block`] and steps their warps one instruction at a time.
pub struct Launch<'a> {
    pub(crate) kernel: &'a Kernel,
    pub(crate) program: Program,
    pub(crate) memory: &'a GlobalMemory,
    /// The PARAM space as little-endian words, and its length in bytes.
    pub(crate) params: Vec<u32>,
    pub(crate) params_len: usize,
    pub(crate) grid: [u32; 3],
    pub(crate) block: [u32; 3],
    pub(crate) options: &'a RunOptions,
    /// Warp instructions issued by the whole launch so far.
    steps: AtomicU64,
    /// Bytes the launch's `PRINTF`s have printed so far.
    printed: AtomicU64,
    /// Where a watcher reads the launch's progress, if one does.
    progress: Option<&'a Progress>,
}

/// Counters another thread may read while a launch runs (for a progress display).
#[derive(Debug, Default)]
pub struct Progress {
    /// Blocks finished.
    pub blocks_done: AtomicU64,
    /// Warp instructions issued (updated every few hundred instructions of a warp).
    pub steps: AtomicU64,
    /// Set by another thread to stop the launch (Ctrl-C in a front end): it faults with
    /// [`crate::FaultKind::TimeLimit`] at its next check, a few hundred instructions later.
    pub cancel: AtomicBool,
}

impl<'a> Launch<'a> {
    /// Checks and translates a launch.
    ///
    /// # Errors
    /// What makes the launch impossible; nothing has run.
    pub fn new(kernel: &'a Kernel, config: &'a LaunchConfig, memory: &'a GlobalMemory, options: &'a RunOptions) -> Result<Launch<'a>, LaunchError> {
        check_launch(kernel, config)?;
        Ok(Launch {
            kernel,
            program: decode(kernel).map_err(LaunchError::Undecodable)?,
            memory,
            params: words_of(&config.params).collect(),
            params_len: config.params.len(),
            grid: config.grid,
            block: config.block,
            options,
            steps: AtomicU64::new(0),
            printed: AtomicU64::new(0),
            progress: None,
        })
    }

    /// Reports the launch's progress into `progress` as it runs.
    pub fn watch(&mut self, progress: &'a Progress) {
        self.progress = Some(progress);
    }

    /// Counts issued instructions, for the step limit and a watcher.
    pub(crate) fn issued(&self, n: u64) {
        self.steps.fetch_add(n, Ordering::Relaxed);
        if let Some(p) = self.progress {
            p.steps.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Counts `bytes` more printed; whether the launch stays within its `printf_limit`.
    pub(crate) fn print(&self, bytes: u64) -> bool {
        self.printed.fetch_add(bytes, Ordering::Relaxed).saturating_add(bytes) <= self.options.printf_limit
    }

    /// Counts finished blocks in the watched [`Progress`].
    pub(crate) fn blocks_finished(&self, n: u64) {
        if let Some(p) = self.progress
            && n > 0
        {
            p.blocks_done.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Whether a watcher asked the launch to stop.
    pub(crate) fn cancelled(&self) -> bool {
        self.progress.is_some_and(|p| p.cancel.load(Ordering::Relaxed))
    }

    /// Blocks in the grid.
    pub fn blocks(&self) -> u64 {
        self.grid.iter().map(|&x| u64::from(x)).product()
    }

    /// Threads in each block.
    pub(crate) fn threads_per_block(&self) -> u32 {
        self.block.iter().product()
    }

    /// Warps in each block.
    pub fn warps_per_block(&self) -> usize {
        (self.block.iter().map(|&d| d as usize).product::<usize>()).div_ceil(32)
    }

    /// The kernel.
    pub fn kernel(&self) -> &Kernel {
        self.kernel
    }

    /// Makes block `linear` (x fastest) resident on SM `sm`, ready to step.
    pub fn block(&self, linear: u64, sm: u32) -> BlockSim<'_> {
        BlockSim::new(self, linear, sm, Counters::new(self.kernel.code.len()))
    }

    /// Warp instructions the whole launch has issued.
    pub fn steps(&self) -> u64 {
        self.steps.load(Ordering::Relaxed)
    }

    /// The launch's statistics from the counters of the blocks that ran (see [`BlockSim::into_counters`]).
    pub fn stats(&self, counters: &Counters) -> crate::Stats {
        crate::Stats::from_counters(self.kernel, counters, self.blocks())
    }
}

/// Which SIMT execution model a launch uses (contract section 6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SimtModel {
    /// Independent thread scheduling (Volta and later).
    #[default]
    Its,
    /// Per-warp reconvergence stack (pre-Volta).
    Stack,
}

impl SimtModel {
    /// Every model.
    pub const ALL: [SimtModel; 2] = [SimtModel::Its, SimtModel::Stack];

    /// The name users type (`--simt its`, `model="stack"`) and reports show.
    pub fn name(self) -> &'static str {
        match self {
            SimtModel::Its => "its",
            SimtModel::Stack => "stack",
        }
    }
}

impl std::str::FromStr for SimtModel {
    type Err = simt_isa::UnknownName;

    fn from_str(text: &str) -> Result<SimtModel, simt_isa::UnknownName> {
        SimtModel::ALL.into_iter().find(|m| m.name() == text).ok_or_else(|| simt_isa::UnknownName {
            what: "a SIMT model",
            given: text.to_string(),
            choices: SimtModel::ALL.map(SimtModel::name).to_vec(),
        })
    }
}

/// The default bound on warp instructions per launch.
pub const DEFAULT_MAX_STEPS: u64 = 2_000_000_000;
/// The default number of SMs.
pub const DEFAULT_SMS: u32 = 132;
/// The default runaway bound: 2^27 warp instructions without progress, a few seconds of
/// an empty loop at the interpreter's speed, and far more than any loop that computes
/// something and stores it (see `docs/cli.md`).
pub const DEFAULT_RUNAWAY_STEPS: u64 = 1 << 27;
/// The default `Y` of the `its` forward-progress rule.
pub const DEFAULT_ITS_YIELD: u32 = 16;

/// How to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// SIMT model.
    pub simt: SimtModel,
    /// Most warp instructions the launch may issue.
    pub max_steps: u64,
    /// SMs the blocks are spread over.
    pub sms: u32,
    /// Backward branches a group may take in a row while another waits, under `its`.
    pub its_yield: u32,
    /// OS threads to run SMs on; `None` uses rayon's global pool.
    pub threads: Option<usize>,
    /// The optional checks (memcheck is always on).
    pub checks: Checks,
    /// Warp instructions one warp may issue in a row without making progress (a store,
    /// an atomic that writes, an exit or a block barrier) before the launch faults as a
    /// runaway; `0` turns the check off.
    pub runaway_steps: u64,
    /// A wall-clock bound: the launch faults if it is still running then.
    pub deadline: Option<std::time::Instant>,
    /// Keep the memory-efficiency report (sectors, lines, bank passes, atomic
    /// serialisation per memory instruction) in the statistics.
    pub memory_report: bool,
    /// The most bytes of records the launch's `PRINTF`s may make (each its text and
    /// [`simt_isa::PRINTF_RECORD_BYTES`]): past it, the launch faults.
    pub printf_limit: u64,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            simt: SimtModel::Its,
            max_steps: DEFAULT_MAX_STEPS,
            sms: DEFAULT_SMS,
            its_yield: DEFAULT_ITS_YIELD,
            threads: None,
            checks: Checks::default(),
            runaway_steps: DEFAULT_RUNAWAY_STEPS,
            deadline: None,
            memory_report: false,
            printf_limit: simt_isa::DEFAULT_PRINTF_LIMIT,
        }
    }
}

/// Grid, block and the bytes of the PARAM space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in x, y, z.
    pub grid: [u32; 3],
    /// Threads per block in x, y, z.
    pub block: [u32; 3],
    /// The PARAM space, laid out as `kernel.params` says (pointers are GLOBAL addresses).
    pub params: Vec<u8>,
}

/// Encountered when a launch is impossible; nothing has run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LaunchError {
    /// A grid or block extent is zero.
    #[error("grid {grid:?} and block {block:?} must not have a zero extent")]
    ZeroExtent {
        /// Blocks in x, y, z.
        grid: [u32; 3],
        /// Threads per block in x, y, z.
        block: [u32; 3],
    },
    /// More threads in a block than [`MAX_BLOCK_THREADS`].
    #[error("a block of {block:?} has {threads} threads; the most is {MAX_BLOCK_THREADS}")]
    BlockTooLarge {
        /// Threads per block in x, y, z.
        block: [u32; 3],
        /// Their product.
        threads: u64,
    },
    /// A grid extent beyond [`MAX_GRID_DIMS`].
    #[error("a grid of {grid:?} is {} blocks in {}; the most is {}", grid[*axis], ["x", "y", "z"][*axis], MAX_GRID_DIMS[*axis])]
    GridExtent {
        /// Blocks in x, y, z.
        grid: [u32; 3],
        /// The axis over the limit (0 = x).
        axis: usize,
    },
    /// More blocks than [`MAX_BLOCKS`].
    #[error("a grid of {grid:?} has {blocks} blocks; the most is {MAX_BLOCKS}")]
    TooManyBlocks {
        /// Blocks in x, y, z.
        grid: [u32; 3],
        /// Their product.
        blocks: u64,
    },
    /// More shared memory than [`MAX_SHARED_BYTES`].
    #[error("kernel `{kernel}` declares {bytes} bytes of shared memory; a block may have at most {MAX_SHARED_BYTES}")]
    SharedTooLarge {
        /// Kernel name.
        kernel: String,
        /// Declared bytes.
        bytes: u32,
    },
    /// More local memory per thread than [`MAX_LOCAL_BYTES`].
    #[error("kernel `{kernel}` declares {bytes} bytes of local memory per thread; the most is {MAX_LOCAL_BYTES}")]
    LocalTooLarge {
        /// Kernel name.
        kernel: String,
        /// Declared bytes per thread.
        bytes: u32,
    },
    /// More local memory per block than [`MAX_LOCAL_BLOCK_BYTES`].
    #[error(
        "kernel `{kernel}` needs {per_thread} bytes of local memory per thread, {} for a block of {threads} threads; a block may have at most {MAX_LOCAL_BLOCK_BYTES}",
        u64::from(*per_thread) * threads
    )]
    LocalBlockTooLarge {
        /// Kernel name.
        kernel: String,
        /// Declared bytes per thread.
        per_thread: u32,
        /// Threads per block.
        threads: u64,
    },
    /// The PARAM bytes do not match the kernel's parameters.
    #[error("kernel `{kernel}` takes {want} bytes of parameters, but the launch passes {got}")]
    ParamBytes {
        /// Kernel name.
        kernel: String,
        /// Bytes the parameters occupy.
        want: u32,
        /// Bytes passed.
        got: usize,
    },
    /// The kernel breaks an invariant of the bytecode format.
    #[error(transparent)]
    Kernel(#[from] KernelError),
    /// The kernel holds an instruction whose operands do not fit its form.
    #[error(transparent)]
    Undecodable(#[from] Undecodable),
}

/// Checks that a launch is possible before anything runs.
///
/// # Errors
/// What is wrong and what the limit is.
pub fn check_launch(kernel: &Kernel, config: &LaunchConfig) -> Result<(), LaunchError> {
    check_shape(kernel, config.grid, config.block)?;
    if config.params.len() != kernel.param_size() as usize {
        return Err(LaunchError::ParamBytes { kernel: kernel.name.clone(), want: kernel.param_size(), got: config.params.len() });
    }
    Ok(kernel.validate()?)
}

/// The resource limits of a launch that depend only on the kernel's declarations and the
/// launch shape: extents, blocks, threads, shared and local memory. Cheap; checked by
/// [`check_launch`] and by the host side before any buffer is made.
///
/// # Errors
/// What is wrong and what the limit is.
pub fn check_shape(kernel: &Kernel, grid: [u32; 3], block: [u32; 3]) -> Result<(), LaunchError> {
    let product = |d: [u32; 3]| d.iter().map(|&x| u64::from(x)).product::<u64>();
    if grid.contains(&0) || block.contains(&0) {
        return Err(LaunchError::ZeroExtent { grid, block });
    }
    let threads = product(block);
    if threads > MAX_BLOCK_THREADS {
        return Err(LaunchError::BlockTooLarge { block, threads });
    }
    if let Some(axis) = (0..3).find(|&i| grid[i] > MAX_GRID_DIMS[i]) {
        return Err(LaunchError::GridExtent { grid, axis });
    }
    if product(grid) > MAX_BLOCKS {
        return Err(LaunchError::TooManyBlocks { grid, blocks: product(grid) });
    }
    if kernel.shared_size > MAX_SHARED_BYTES {
        return Err(LaunchError::SharedTooLarge { kernel: kernel.name.clone(), bytes: kernel.shared_size });
    }
    if kernel.local_size > MAX_LOCAL_BYTES {
        return Err(LaunchError::LocalTooLarge { kernel: kernel.name.clone(), bytes: kernel.local_size });
    }
    if u64::from(kernel.local_size) * threads > MAX_LOCAL_BLOCK_BYTES {
        return Err(LaunchError::LocalBlockTooLarge { kernel: kernel.name.clone(), per_thread: kernel.local_size, threads });
    }
    Ok(())
}

/// The SM that runs block `block` in a functional run: round-robin, `block mod sms`.
pub fn sm_of_block(block: u64, sms: u32) -> u32 {
    (block % u64::from(sms.max(1))) as u32
}

/// What one OS thread of a launch holds: 32 bytes of counters per instruction, and one
/// resident block's registers, shared and local memory (and its sanitizer shadow).
pub fn per_thread_bytes(kernel: &Kernel, block: [u32; 3], options: &RunOptions) -> u64 {
    let threads: u64 = block.iter().map(|&d| u64::from(d)).product();
    let warps = threads.div_ceil(32);
    let registers = warps * (u64::from(kernel.regs) + 2) * 128;
    let shared = u64::from(kernel.shared_size);
    let local = threads * u64::from(kernel.local_size).next_multiple_of(16);
    let shadow = if options.checks.any() { shared * 160 + local } else { 0 };
    32 * kernel.code.len() as u64 + registers + shared + local + shadow
}

/// Runs one launch of `kernel` over `memory`.
///
/// Blocks go to SMs round-robin (block `b` to SM `b % sms`); SMs run on
/// rayon's pool, each running its blocks in order. When several blocks
/// fault, the one with the lowest linear index is reported, so the result
/// does not depend on the thread count.
///
/// `progress`, if given, counts finished blocks and issued instructions as the launch runs.
///
/// # Errors
/// A [`Fault`]; [`crate::FaultKind::InvalidLaunch`] when the launch was impossible and nothing ran.
pub fn run(kernel: &Kernel, config: &LaunchConfig, memory: &GlobalMemory, options: &RunOptions, progress: Option<&Progress>) -> Result<Stats, Fault> {
    let mut launch = Launch::new(kernel, config, memory, options).map_err(|e| Fault::invalid_launch(&kernel.name, e))?;
    if let Some(p) = progress {
        launch.watch(p);
    }
    let blocks = launch.blocks();
    let sms = u64::from(options.sms.max(1)).min(blocks);
    let first_fault = AtomicU64::new(u64::MAX);
    let faults = Mutex::new(Vec::new());
    let report = |b: u64, result: Result<(), Fault>| {
        if let Err(fault) = result {
            first_fault.fetch_min(b, Ordering::Relaxed);
            faults.lock().unwrap_or_else(|e| e.into_inner()).push((b, fault));
        }
    };
    let run_sm = |counters: Counters, sm: u64| run_sm(&launch, sm, sms, counters, &first_fault, &report);
    let len = kernel.code.len();
    // Each OS thread keeps one set of counters and one resident block: what a thread
    // costs is known, and the number of threads is capped so that all of them together
    // stay within `THREAD_STATE_BUDGET` (a huge kernel or block runs on fewer threads).
    let wanted = match options.threads {
        Some(n) => n.max(1),
        None => rayon::current_num_threads(),
    };
    let threads = wanted.min(usize::try_from(THREAD_STATE_BUDGET / per_thread_bytes(kernel, config.block, options)).unwrap_or(usize::MAX).max(1));
    let counters = if threads == 1 || sms == 1 {
        // One thread needs no pool: run the SMs in order on this one.
        (0..sms).fold(Counters::new(len), run_sm)
    } else {
        let slots: Vec<Mutex<Option<Counters>>> = (0..threads).map(|_| Mutex::new(None)).collect();
        let work = || {
            (0..sms).into_par_iter().for_each(|sm| {
                let slot = &slots[rayon::current_thread_index().unwrap_or(0) % threads];
                let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
                let counters = slot.take().unwrap_or_else(|| Counters::new(len));
                *slot = Some(run_sm(counters, sm));
            })
        };
        match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
            Ok(pool) => pool.install(work),
            Err(_) => work(),
        }
        slots.into_iter().filter_map(|s| s.into_inner().unwrap_or_else(|e| e.into_inner())).fold(Counters::new(len), |mut a, b| {
            a.add(&b);
            a
        })
    };
    let mut faults = faults.into_inner().unwrap_or_else(|e| e.into_inner());
    faults.sort_by_key(|(b, _)| *b);
    if let Some((b, mut fault)) = faults.into_iter().next() {
        fault.findings = counters.findings.up_to_fault(b);
        // Blocks below the one that faulted ran whatever the thread count; later ones may not have.
        fault.printed = crate::stats::in_print_order(counters.printed.iter().filter(|p| p.block <= b));
        return Err(fault);
    }
    Ok(Stats::from_counters(kernel, &counters, blocks))
}
