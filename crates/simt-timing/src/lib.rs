//! simt's cycle-level timing backend.
//!
//! The functional interpreter says *what* a kernel computes; this crate says
//! how long it takes on a configured machine and why. It is execution-driven:
//! each cycle each SM partition's scheduler picks a ready warp and issues its
//! next instruction through the interpreter's stepping API, which executes it
//! (values live in the functional memory); the model only decides *when*.
//!
//! - [`config`]: machines as TOML ([`Machine`]); built-ins from `configs/`.
//! - [`occupancy`]: the occupancy calculator's rules and tables.
//! - [`seed`]: the seed's four RTL teaching models as components.
//! - [`run`]: one timed launch; [`Report`] holds its statistics, `--pipeview`
//!   rows and `--timeline` trace (`simt_interp::trace_event` writes the Chrome format).
//!
//! See `docs/timing.md` for the model, its simplifications and every statistic.
#![warn(missing_docs)]

pub mod cache;
pub mod config;
mod engine;
pub mod forms;
mod memsys;
pub mod occupancy;
mod reason;
pub mod seed;
mod sim;
mod stats;
mod view;

/// The unit tests' pseudo-random numbers: a xorshift generator from `state`, each call the next state.
#[cfg(test)]
pub(crate) fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

pub use config::{ConfigError, Machine, Policy};
pub use engine::{TimingError, TimingOptions, Unsupported, run};
pub use occupancy::{Impossible, Limiter, Occupancy, occupancy};
pub use reason::Reason;
pub use sim::{MAX_RECORDS, PipeFilter, PipeRow};
pub use stats::{CacheStats, DramStats, OccupancyStats, Report, TimingStats, UnitStats, thousands};
pub use view::{Change, WarpState};
