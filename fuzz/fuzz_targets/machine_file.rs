//! Machine files: a built-in machine with values replaced by hostile ones, lines dropped or
//! repeated (`simt_fuzz::machine`). What loads must time a saxpy to a result or a fault within
//! its deadline; what does not load must name the place. Panics and hangs are bugs.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    simt_fuzz::machine::check(&mut simt_fuzz::FromFuzzer(&mut u));
});
