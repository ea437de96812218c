//! The simt functional interpreter.
//!
//! [`run`] executes one kernel launch: blocks are spread over SMs that run on
//! rayon's pool, warps inside an SM interleave, and each warp follows the
//! SIMT model chosen in [`RunOptions`]. Faults come back as [`Fault`] values
//! carrying the kernel, block, thread, lane, pc and source line.
//!
//! Architecture invariant: the interpreter never sees assembly text. It
//! decodes each [`simt_isa::Kernel`] once into its own compact operation
//! list and executes that; registers are stored lane-contiguously
//! (`regs[r][lane]`) so 32-lane operations vectorise.
#![warn(missing_docs)]
// A fault carries its whole context (kernel, block, thread, pc, notes); it is
// the cold path, so it travels by value rather than boxed.
#![allow(clippy::result_large_err)]

pub mod banks;
mod block;
mod directed;
mod lanes;
pub use block::{Access, BlockSim, Branch, Exchange, Peek, Preview, Step, StepResult};
/// Tensor memory's lanes and 32-bit columns (a block's, PTX `tcgen05`).
pub use exec::tmem::{COLUMNS as TMEM_COLUMNS, LANES as TMEM_LANES};
mod exec;
pub mod fault;
pub mod launch;
pub mod memory;
mod sanitize;
pub use sanitize::{Checks, Finding};
mod decode;
pub mod stats;
pub mod trace;
pub mod trace_event;
mod warp;

pub use decode::Undecodable;
pub use fault::{Fault, FaultKind, Remedies, Remedy};
pub use launch::{Launch, LaunchConfig, LaunchError, Progress, RunOptions, SimtModel, check_launch, run};
pub use memory::{Contents, GlobalMemory, Lent, WordBytes};
pub use stats::{Counters, Printed, Stats, write_printed};
pub use warp::{BlockReason, ControlView, ConvergenceBarrier, StackEntry, ThreadGroup, ThreadState, WarpView, lanes};
