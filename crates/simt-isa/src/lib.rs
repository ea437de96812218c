//! The simt instruction set: one table ([`table::TABLE`]) from which the
//! encoder, decoder, disassembler, the assembler's operand checks and
//! `docs/isa.md` are derived, plus the bytecode format that stores kernels.
//!
//! Architecture invariant: this crate knows nothing about text parsing or
//! execution; it only describes instructions and moves them between their
//! decoded and encoded forms.
#![warn(missing_docs)]

pub mod disasm;
pub mod docs;
pub mod instr;
pub mod limits;
pub mod module;
pub mod printf;
pub mod semantics;
pub mod table;
pub mod target;
pub mod tensormap;
mod unknown;

pub use disasm::{Symbols, disassemble, disassemble_with_source, format_instruction, format_mnemonic, listing};
pub use instr::*;
pub use limits::*;
pub use module::*;
pub use semantics::*;
pub use table::*;
pub use target::Target;
pub use unknown::UnknownName;
