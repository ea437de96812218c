//! Running one small PTX kernel on one warp, for the tests that check instructions lane by lane.

use simt_host::{Arg, LaunchRequest, prepare};
use simt_interp::{RunOptions, SimtModel, run};

/// Translates `source`, named `name` in diagnostics, panicking with them if it does not translate.
pub fn translated_module(name: &str, source: &str) -> simt_isa::Module {
    simt_ptx::translate(name, source, None).unwrap_or_else(|d| panic!("{}", d.render(name, source, false)))
}

/// Translates `source` (panicking with its diagnostics if it does not translate), runs its
/// kernel on one block of 32 threads with `args` under `simt`, and returns the bytes of
/// buffer `output` and the kernel's parameter types.
pub fn run_one_warp(source: &str, args: Vec<Arg>, output: &str, simt: SimtModel) -> (Vec<u8>, Vec<String>) {
    let module = translated_module("k.ptx", source);
    let kernel = &module.kernels[0];
    let request = LaunchRequest { grid: Some([1, 1, 1]), block: Some([32, 1, 1]), args, module_dir: None };
    let launch = prepare(kernel, &request).unwrap_or_else(|e| panic!("{e}\n{source}"));
    run(kernel, &launch.config, &launch.memory, &RunOptions { simt, ..RunOptions::default() }, None).expect("runs");
    let (_, bytes) = launch.buffer(output).expect("the output buffer");
    (bytes, kernel.params.iter().map(|p| p.ty.name()).collect())
}
