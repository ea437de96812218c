//! The simt assembler: turns `.s` source into a [`simt_isa::Module`].
//!
//! Pipeline: the logos lexer (`lexer.rs`) splits the file into statement lines,
//! the lalrpop grammar (`crates/simt-asm/grammar/simt.lalrpop`, inside the crate so `cargo package` includes it) parses each line on its own,
//! so one bad line never hides the next, and the checker resolves every
//! statement against the instruction table ([`simt_isa::TABLE`]), building
//! each kernel with [`simt_kernel::KernelBuilder`], which lays out parameters
//! and shared memory, resolves labels and gives every divergent branch its
//! reconvergence point. All problems of a file come back together as
//! [`Diagnostics`].
//!
//! [`lint`] runs the divergence lints on an assembled module and renders them as warnings.
//!
//! API boundary: [`assemble`], [`assemble_for`], [`lint`], [`parse_arg_init`] and [`check_arg`] are what
//! other crates use; the syntax tree and lexer are implementation details.
#![warn(missing_docs)]

mod args;
mod assembler;
mod ast;
mod diagnostics;
mod lexer;
mod lints;
mod literal;

#[allow(missing_docs, unused_imports, clippy::all, clippy::pedantic)]
mod grammar {
    include!(concat!(env!("OUT_DIR"), "/simt.rs"));
}

pub use args::{ArgMismatch, check_arg, parse_arg_init};
pub use diagnostics::Diagnostics;
pub use lints::{Level, LintKind, LintLevels, LintReport, lint};

/// Assembles the `.s` text `source`, read from `file_name`.
///
/// The module keeps `file_name` and the source text so that later faults can
/// quote the offending line.
///
/// # Errors
/// Every problem found in the file, each with its place, at once.
pub fn assemble(file_name: &str, source: &str) -> Result<simt_isa::Module, Diagnostics> {
    assembler::assemble(file_name, source, None)
}

/// Assembles like [`assemble`] for the target `arch` (`--arch`), which overrides
/// every `.target` of the file: an instruction form `arch` lacks is an error
/// naming the target that introduced it.
///
/// # Errors
/// Every problem found in the file, each with its place, at once.
pub fn assemble_for(file_name: &str, source: &str, arch: simt_isa::Target) -> Result<simt_isa::Module, Diagnostics> {
    assembler::assemble(file_name, source, Some(arch))
}
