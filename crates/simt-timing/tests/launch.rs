//! Block launch latency (`sm.block_launch_latency`): the block taking an SM's room issues
//! `sm.block_launch_latency + 1` cycles after the block before it ended, whether the
//! dispatcher serves that room within the window (a latency shorter than the window less
//! one) or at the window's boundary (as long or longer), for any thread count.

mod common;

use common::*;
use simt_interp::RunOptions;
use simt_timing::{Machine, TimingOptions};

/// Four blocks of dependent FFMAs, one resident at a time: nothing but the launches between
/// them depends on when a block starts.
const CHAIN: &str = "
.kernel chain
.launch grid(4) block(64)
    FFMA    R3, RZ, RZ, RZ
    FFMA    R3, R3, R3, R3
    FFMA    R3, R3, R3, R3
    FFMA    R3, R3, R3, R3
    EXIT
";

fn cycles(latency: u32, threads: usize) -> u64 {
    let module = simt_asm::assemble("chain.s", CHAIN).unwrap_or_else(|d| panic!("{}", d.render(false)));
    let kernel = &module.kernels[0];
    let mut machine = Machine::builtin("h100");
    machine.sm.count = 1;
    machine.sm.max_blocks = 1;
    machine.sm.block_launch_latency = latency;
    let launch = simt_host::prepare(kernel, &request(None, None, vec![])).expect("valid request");
    let run = RunOptions { threads: Some(threads), ..RunOptions::default() };
    let report = simt_timing::run(kernel, &launch.config, &launch.memory, &run, &machine, &TimingOptions::default()).expect("runs");
    report.stats.cycles
}

#[test]
fn each_following_block_waits_out_the_launch_latency() {
    let window = Machine::builtin("h100").window() as u32;
    let none = cycles(0, 1);
    // Within the window, at its last cycle, from the boundary on, and several windows long.
    for latency in [1, 10, window - 2, window - 1, window, 3 * window + 7] {
        for threads in [1, 2] {
            assert_eq!(cycles(latency, threads), none + 3 * u64::from(latency), "latency {latency}, {threads} thread(s)");
        }
    }
}
