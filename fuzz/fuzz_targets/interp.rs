//! Random *valid* programs (built from `simt_isa::TABLE` by `simt_fuzz::program`) run
//! under a small step limit: faults are expected, panics and hangs are bugs. Their
//! disassembly must also assemble back to the same code.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let case = simt_fuzz::case_from_bytes(data);
    simt_fuzz::program::check_round_trip(&case.kernel);
    simt_fuzz::program::run_case(&case);
});
