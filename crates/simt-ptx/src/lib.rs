//! The PTX front end, first half: a lexer and a parser for the PTX that clang and nvcc emit,
//! producing a typed syntax tree with byte spans for every item.
//!
//! ```
//! let source = ".version 7.0\n.target sm_80\n.address_size 64\n\
//!     .visible .entry k(.param .u64 p) { .reg .b64 %rd<2>; ld.param.u64 %rd1, [p]; ret; }";
//! let parsed = simt_ptx::parse(source);
//! assert!(parsed.diagnostics.is_empty());
//! let kernel = parsed.module.entries().next().unwrap();
//! assert_eq!(kernel.name.value, "k");
//! ```
//!
//! [`parse`] never fails outright and never panics: it returns the module it could read and
//! every problem it found ([`Diagnostics`], rendered with codespan-reporting). Instructions are
//! [`ops::Op`] values, an opcode with typed modifiers, so a translation can match them
//! exhaustively. Names borrow from the source; nothing is interned.
#![warn(missing_docs)]

pub mod ast;
pub mod diagnostic;
mod inline;
pub mod lexer;
pub mod ops;
mod parser;
mod spaces;
mod translate;

pub use ast::{Module, Span};
pub use diagnostic::{Diagnostic, Diagnostics};
pub use parser::{MAX_NESTING, MAX_REGISTER_RANGE, MAX_VECTOR_ELEMENTS};
pub use translate::translate;

/// A parsed module and the problems found on the way.
#[derive(Clone, Debug)]
pub struct Parsed<'a> {
    /// Everything that parsed; statements with errors are left out.
    pub module: Module<'a>,
    /// Every problem, in source order.
    pub diagnostics: Diagnostics,
}

/// The largest source accepted: spans are 32-bit byte offsets.
pub const MAX_SOURCE_BYTES: usize = u32::MAX as usize - 1;

/// Parses one PTX module.
pub fn parse(source: &str) -> Parsed<'_> {
    if source.len() > MAX_SOURCE_BYTES {
        let mut diagnostics = Diagnostics::default();
        diagnostics.push(Diagnostic {
            span: Span::new(0, 0),
            message: format!("the file is {} bytes; the PTX front end reads at most {MAX_SOURCE_BYTES}", source.len()),
            notes: Vec::new(),
        });
        return Parsed { module: Module::default(), diagnostics };
    }
    let mut parser = parser::Parser::new(source);
    let module = parser.module();
    let mut diagnostics = parser.diagnostics;
    diagnostics.finish();
    Parsed { module, diagnostics }
}
