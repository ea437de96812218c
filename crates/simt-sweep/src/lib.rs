//! Sweeps of simt runs: many `simt run`s over kernels and options, each recorded once.
//!
//! - [`plan`]: a TOML plan (kernels, fixed options, a grid of options, checks) and its jobs.
//! - [`command`], [`flags`]: `simt run` command lines and what each flag does to a result.
//! - [`key`]: the content hash of everything that determines a run's result.
//! - [`record`]: one JSON record per run, named by its key, written whole or not at all.
//! - [`check`]: dumps compared with reference `.npy` files.
//! - [`table`]: records as one table (CSV, JSON lines), as `simt collect` writes it.
//!
//! API boundary: a sweep runs `simt run --record` as child processes (one process per
//! job, so a crash or a memory blow-up ends one job only) and reads what they record;
//! it never calls the interpreter itself.
#![warn(missing_docs)]

pub mod check;
pub mod command;
pub mod flags;
pub mod key;
pub mod plan;
pub mod record;
pub mod table;
