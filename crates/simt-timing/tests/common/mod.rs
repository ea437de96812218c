//! Helpers shared by the timing tests: assemble a kernel of `asm/`, run it timed.
#![allow(dead_code)]

use std::path::Path;

use simt_host::{Arg, LaunchRequest, PreparedLaunch, prepare};
use simt_interp::RunOptions;
use simt_isa::{ArgInit, Literal, Module};
use simt_timing::{Machine, Report, TimingOptions};

/// Assembles `asm/NAME`.
pub fn load(name: &str) -> Module {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../asm").join(name);
    let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    simt_asm::assemble(name, &source).unwrap_or_else(|d| panic!("{name}: {}", d.render(false)))
}

/// An integer argument.
pub fn int(name: &str, v: i64) -> Arg {
    Arg::new(name, ArgInit::Scalar(Literal::Int(v)))
}

/// A buffer argument.
pub fn buf(name: &str, init: ArgInit) -> Arg {
    Arg::new(name, init)
}

/// A launch request.
pub fn request(grid: Option<[u32; 3]>, block: Option<[u32; 3]>, args: Vec<Arg>) -> LaunchRequest {
    LaunchRequest { grid, block, args, ..LaunchRequest::default() }
}

/// Runs the module's first kernel timed on `machine`; returns the report and the launch (its buffers hold the results).
pub fn timed(module: &Module, machine: &Machine, request: &LaunchRequest, options: TimingOptions) -> (Report, PreparedLaunch) {
    let kernel = &module.kernels[0];
    let launch = prepare(kernel, request).expect("valid request");
    let run = RunOptions { threads: Some(1), ..RunOptions::default() };
    let report = simt_timing::run(kernel, &launch.config, &launch.memory, &run, machine, &options).unwrap_or_else(|e| panic!("{}: {e}", kernel.name));
    (report, launch)
}

/// The u32 words of a buffer.
pub fn words(launch: &PreparedLaunch, name: &str) -> Vec<u32> {
    let (_, bytes) = launch.buffer(name).expect("buffer");
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// Cycles an operation of `asm/bench/f32_sequence_ilp.s` on `machine`: one warp running `ilp`
/// chains of FDIV 1 / x (FSQRT with `sqrt`) for `steps` turns.
pub fn f32_sequence_per_op(machine: &Machine, ilp: u32, sqrt: bool, steps: u32) -> f64 {
    let args = vec![int("steps", i64::from(steps)), int("ilp", i64::from(ilp)), int("sqrt", i64::from(sqrt)), buf("cycles", ArgInit::Zeros(1))];
    let (_, launch) = timed(&load("bench/f32_sequence_ilp.s"), machine, &request(None, None, args), TimingOptions::default());
    f64::from(words(&launch, "cycles")[0]) / f64::from(steps * ilp)
}

/// Load-to-use cycles a hop of `asm/bench/chase_random.s` on `machine`: one thread chasing
/// `bytes` at `stride` in a random order, `warm` hops untimed, then 4096 timed.
pub fn random_chase(machine: &Machine, bytes: u64, stride: u64, warm: u64) -> f64 {
    let hops = 4096;
    let args = vec![
        int("slots", (bytes / stride) as i64),
        int("stride", stride as i64),
        int("warm", warm as i64),
        int("hops", hops),
        buf("buf", ArgInit::Zeros(bytes / 4)),
        buf("cycles", ArgInit::Zeros(1)),
    ];
    let (_, launch) = timed(&load("bench/chase_random.s"), machine, &request(None, None, args), TimingOptions::default());
    // Each hop is a load and the IADD that adds its zero to the next address.
    f64::from(words(&launch, "cycles")[0]) / hops as f64 - f64::from(machine.latency.alu)
}
