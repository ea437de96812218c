//! Building and analysing simt kernels, for every front end.
//!
//! [`KernelBuilder`] turns parameters, shared variables, labels and
//! instructions into a validated [`simt_isa::Kernel`]: it lays out the PARAM
//! and SHARED spaces as the contract says, resolves labels, counts
//! registers, and gives every divergent branch its reconvergence point from
//! the control-flow graph ([`cfg`]). The `.s` assembler and the PTX front end
//! both build kernels through it, so the layouts and the reconvergence rule
//! exist once.
//!
//! Architecture invariant: nothing here parses text; errors are typed and
//! carry indices (of labels, of branch references) that the front end maps
//! back to source spans for its diagnostics.
#![warn(missing_docs)]

mod builder;
pub mod cfg;
pub mod lint;

pub use builder::{BranchRef, BuildError, KernelBuilder, Label};
