//! Shared pieces of the simt fuzz targets: the random valid-program generator
//! ([`program`], also used by the stable harness `tests/robustness.rs`), the one
//! launch every interpreter input goes through ([`program::run_case`]), and crafted
//! bytecode ([`crafted`]: valid modules mutated field by field, loaded and run), and
//! machine files ([`machine`]: the built-in machines with hostile values, timed).

pub mod crafted;
pub mod machine;
pub mod program;

use arbitrary::Unstructured;

/// Choices drawn from libFuzzer's bytes; 0 once they run out.
pub struct FromFuzzer<'a, 'b>(pub &'a mut Unstructured<'b>);

impl program::Choices for FromFuzzer<'_, '_> {
    fn below(&mut self, n: u32) -> u32 {
        if n <= 1 { 0 } else { self.0.int_in_range(0..=n - 1).unwrap_or(0) }
    }
}

/// The generated case for fuzzer bytes.
pub fn case_from_bytes(data: &[u8]) -> program::Case {
    let mut u = Unstructured::new(data);
    program::case(&mut FromFuzzer(&mut u), 48)
}
