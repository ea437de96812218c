//! Launch configuration and the entry point [`run`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;
use simt_isa::{Kernel, MAX_BLOCK_THREADS};

use crate::block::{run_block, Counters, Launch};
use crate::sanitize::Checks;
use crate::{Fault, GlobalMemory, Stats};

/// Which SIMT execution model a launch uses (contract section 6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SimtModel {
    /// Independent thread scheduling (Volta and later).
    #[default]
    Its,
    /// Per-warp reconvergence stack (pre-Volta).
    Stack,
}

/// The default bound on warp instructions per launch.
pub const DEFAULT_MAX_STEPS: u64 = 2_000_000_000;
/// The default number of SMs.
pub const DEFAULT_SMS: u32 = 132;
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

pub use simt_isa::{MAX_LOCAL_BYTES, MAX_SHARED_BYTES};
/// The most blocks one launch may have.
pub const MAX_BLOCKS: u64 = 1 << 32;
/// The largest grid extent in x, y and z (CUDA's limits: 2^31 - 1 blocks in x, 65535 in y and z).
pub const MAX_GRID_DIMS: [u32; 3] = [i32::MAX as u32, 65535, 65535];
/// The most LOCAL memory one block may need (`.local` bytes times threads): it is allocated per block.
pub const MAX_LOCAL_BLOCK_BYTES: u64 = 64 << 20;

/// Checks that a launch is possible before anything runs.
///
/// # Errors
/// A sentence saying what is wrong and what the limit is.
pub fn check_launch(kernel: &Kernel, config: &LaunchConfig) -> Result<(), String> {
    check_shape(kernel, config.grid, config.block)?;
    if config.params.len() != kernel.param_size() as usize {
        return Err(format!(
            "kernel `{}` takes {} bytes of parameters, but the launch passes {}",
            kernel.name,
            kernel.param_size(),
            config.params.len()
        ));
    }
    kernel.validate().map_err(|e| e.to_string())
}

/// The resource limits of a launch that depend only on the kernel's declarations and the
/// launch shape: extents, blocks, threads, shared and local memory. Cheap; checked by
/// [`check_launch`] and by [`crate::host::prepare`] before any buffer is made.
///
/// # Errors
/// A sentence saying what is wrong and what the limit is.
pub fn check_shape(kernel: &Kernel, grid: [u32; 3], block: [u32; 3]) -> Result<(), String> {
    let config = LaunchConfig { grid, block, params: vec![] };
    let product = |d: [u32; 3]| d.iter().map(|&x| u64::from(x)).product::<u64>();
    if config.grid.contains(&0) || config.block.contains(&0) {
        return Err(format!("grid {:?} and block {:?} must not have a zero extent", config.grid, config.block));
    }
    let threads = product(config.block);
    if threads > MAX_BLOCK_THREADS {
        return Err(format!("a block of {:?} has {threads} threads; the most is {MAX_BLOCK_THREADS}", config.block));
    }
    if let Some(axis) = (0..3).find(|&i| config.grid[i] > MAX_GRID_DIMS[i]) {
        return Err(format!(
            "a grid of {:?} is {} blocks in {}; the most is {}",
            config.grid,
            config.grid[axis],
            ["x", "y", "z"][axis],
            MAX_GRID_DIMS[axis]
        ));
    }
    if product(config.grid) > MAX_BLOCKS {
        return Err(format!("a grid of {:?} has {} blocks; the most is {MAX_BLOCKS}", config.grid, product(config.grid)));
    }
    if kernel.shared_size > MAX_SHARED_BYTES {
        return Err(format!("kernel `{}` declares {} bytes of shared memory; a block may have at most {MAX_SHARED_BYTES}", kernel.name, kernel.shared_size));
    }
    if kernel.local_size > MAX_LOCAL_BYTES {
        return Err(format!("kernel `{}` declares {} bytes of local memory per thread; the most is {MAX_LOCAL_BYTES}", kernel.name, kernel.local_size));
    }
    if u64::from(kernel.local_size) * threads > MAX_LOCAL_BLOCK_BYTES {
        return Err(format!(
            "kernel `{}` needs {} bytes of local memory per thread, {} for a block of {threads} threads; a block may have at most {MAX_LOCAL_BLOCK_BYTES}",
            kernel.name,
            kernel.local_size,
            u64::from(kernel.local_size) * threads
        ));
    }
    Ok(())
}

/// Runs one launch of `kernel` over `memory`.
///
/// Blocks go to SMs round-robin (block `b` to SM `b % sms`); SMs run on
/// rayon's pool, each running its blocks in order. When several blocks
/// fault, the one with the lowest linear index is reported, so the result
/// does not depend on the thread count.
///
/// `progress`, if given, is called now and then with (blocks finished, blocks in all).
///
/// # Errors
/// A [`Fault`]; [`crate::FaultKind::InvalidLaunch`] when the launch was impossible and nothing ran.
pub fn run(
    kernel: &Kernel,
    config: &LaunchConfig,
    memory: &GlobalMemory,
    options: &RunOptions,
    progress: Option<&(dyn Fn(u64, u64) + Sync)>,
) -> Result<Stats, Fault> {
    let launch = Launch::new(kernel, config, memory, options)?;
    let blocks = launch.blocks();
    let sms = u64::from(options.sms.max(1)).min(blocks);
    let first_fault = AtomicU64::new(u64::MAX);
    let faults = Mutex::new(Vec::new());
    let finished = AtomicU64::new(0);
    let run_sm = |mut counters: Counters, sm: u64| {
        let mut b = sm;
        while b < blocks && b < first_fault.load(Ordering::Relaxed) {
            let (returned, result) = run_block(&launch, b, sm as u32, counters);
            counters = returned;
            if let Err(fault) = result {
                first_fault.fetch_min(b, Ordering::Relaxed);
                faults.lock().unwrap_or_else(|e| e.into_inner()).push((b, fault));
                break;
            }
            let done = finished.fetch_add(1, Ordering::Relaxed) + 1;
            if let Some(report) = progress
                && (done.is_multiple_of(64) || done == blocks)
            {
                report(done, blocks);
            }
            b += sms;
        }
        counters
    };
    let len = kernel.code.len();
    let work = || {
        (0..sms)
            .into_par_iter()
            .fold(|| Counters::new(len), run_sm)
            .reduce(
                || Counters::new(len),
                |mut a, b| {
                    a.add(&b);
                    a
                },
            )
    };
    let counters = match options.threads {
        // One thread needs no pool: run the SMs in order on this one.
        Some(0 | 1) => (0..sms).fold(Counters::new(len), run_sm),
        Some(n) => match rayon::ThreadPoolBuilder::new().num_threads(n).build() {
            Ok(pool) => pool.install(work),
            Err(_) => work(),
        },
        None => work(),
    };
    let mut faults = faults.into_inner().unwrap_or_else(|e| e.into_inner());
    faults.sort_by_key(|(b, _)| *b);
    if let Some((_, fault)) = faults.into_iter().next() {
        return Err(fault);
    }
    Ok(Stats::from_counters(kernel, &counters, blocks))
}
