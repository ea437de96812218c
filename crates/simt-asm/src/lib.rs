//! The simt assembler.
