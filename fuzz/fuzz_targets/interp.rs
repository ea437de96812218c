//! Random *valid* programs (built from `simt_isa::TABLE` by `simt_fuzz::program`) run
//! under a small step limit: faults are expected, panics and hangs are bugs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    simt_fuzz::program::run_case(&simt_fuzz::case_from_bytes(data));
});
