//! Launch configuration and the entry point [`run`].

use simt_isa::{Kernel, Module};

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
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            simt: SimtModel::Its,
            max_steps: DEFAULT_MAX_STEPS,
            sms: DEFAULT_SMS,
            its_yield: DEFAULT_ITS_YIELD,
            threads: None,
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

/// Runs one launch of `kernel` (from `module`, for source lines) over `memory`.
///
/// `progress`, if given, is called now and then with (blocks finished, blocks in all).
///
/// # Errors
/// The first fault, by block order, as a [`Fault`].
pub fn run(
    module: &Module,
    kernel: &Kernel,
    config: &LaunchConfig,
    memory: &GlobalMemory,
    options: &RunOptions,
    progress: Option<&(dyn Fn(u64, u64) + Sync)>,
) -> Result<Stats, Fault> {
    let _ = (module, kernel, config, memory, options, progress);
    unimplemented!("the interpreter is being written")
}
