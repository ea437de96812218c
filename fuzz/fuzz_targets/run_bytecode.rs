//! Crafted bytecode that loads but no assembler wrote: valid modules (the kernels of
//! `asm/` and random valid programs) mutated field by field by `simt_fuzz::crafted`,
//! written, sometimes corrupted, loaded, and run under both SIMT models and through
//! the stepping API. Faults are expected; panics, hangs and unbounded memory are bugs.
#![no_main]

use std::sync::LazyLock;

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use simt_isa::Module;

static SEEDS: LazyLock<Vec<Module>> =
    LazyLock::new(|| simt_fuzz::crafted::seeds(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))));

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    simt_fuzz::crafted::check(&mut simt_fuzz::FromFuzzer(&mut u), &SEEDS);
});
