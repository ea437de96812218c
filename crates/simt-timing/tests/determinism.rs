//! Cycle counts, statistics and results are identical for any thread count and across
//! runs (contract §5 and §7.7).

mod common;

use common::*;
use simt_host::{LaunchRequest, prepare};
use simt_interp::RunOptions;
use simt_isa::{ArgInit, Literal};
use simt_timing::{Machine, TimingOptions};

/// Each dumped buffer: its parameter name and bytes.
type Buffers = Vec<(String, Option<Vec<u8>>)>;

fn run(file: &str, request: &LaunchRequest, threads: usize) -> (simt_timing::TimingStats, Buffers) {
    let module = load(file);
    let kernel = &module.kernels[0];
    let machine = Machine::builtin("h100");
    let launch = prepare(kernel, request).expect("valid");
    let options = RunOptions { threads: Some(threads), ..RunOptions::default() };
    let report = simt_timing::run(kernel, &launch.config, &launch.memory, &options, &machine, &TimingOptions::default()).expect("runs");
    let buffers = launch.buffers.iter().map(|(n, _)| (n.clone(), launch.buffer(n).map(|(_, b)| b))).collect();
    (report.stats, buffers)
}

#[test]
fn one_and_two_threads_agree_exactly() {
    let sgemm = request(
        Some([4, 4, 1]),
        None,
        vec![
            int("m", 256),
            int("n", 256),
            int("k", 64),
            buf("A", ArgInit::Rand(256 * 64, 1)),
            buf("B", ArgInit::Rand(64 * 256, 2)),
            buf("C", ArgInit::Zeros(256 * 256)),
        ],
    );
    let n = 1 << 16;
    let histogram = LaunchRequest::default();
    let spin = LaunchRequest::default();
    let saxpy = request(
        Some([256, 1, 1]),
        Some([256, 1, 1]),
        vec![int("n", n), buf("x", ArgInit::Iota(n as u64)), buf("y", ArgInit::Fill(n as u64, Literal::Float(1.0)))],
    );
    // Enough blocks for every SM to hold eight, so that windows send L2 thousands of requests,
    // which its shards then look up on both threads (`PARALLEL_LOOKUPS`).
    let wide = 1 << 19;
    let saxpy_wide = request(
        Some([wide as u32 / 256, 1, 1]),
        Some([256, 1, 1]),
        vec![int("n", wide), buf("x", ArgInit::Iota(wide as u64)), buf("y", ArgInit::Fill(wide as u64, Literal::Float(1.0)))],
    );
    for (file, req) in [("sgemm.s", &sgemm), ("histogram.s", &histogram), ("divergence/spinlock.s", &spin), ("saxpy.s", &saxpy), ("saxpy.s", &saxpy_wide)] {
        let one = run(file, req, 1);
        let two = run(file, req, 2);
        let again = run(file, req, 2);
        assert_eq!(one, two, "{file}: 1 vs 2 threads");
        assert_eq!(two, again, "{file}: repeated run");
    }
}

/// When `--pipeview` and `--timeline` reach their record limit, what they keep is the same for
/// any thread count: every record before the window of cycles where the records ran out.
#[test]
fn records_stop_at_the_same_cycle_for_any_thread_count() {
    let n: u32 = 1 << 20;
    let saxpy = request(
        Some([n / 256, 1, 1]),
        Some([256, 1, 1]),
        vec![int("n", n.into()), buf("x", ArgInit::Iota(n.into())), buf("y", ArgInit::Fill(n.into(), Literal::Float(1.0)))],
    );
    let module = load("saxpy.s");
    let kernel = &module.kernels[0];
    let machine = Machine::builtin("h100");
    let recorded = |threads: usize| {
        let launch = prepare(kernel, &saxpy).expect("valid");
        let timing = TimingOptions { pipeview: Some(simt_timing::PipeFilter::default()), timeline: true, progress: None };
        let options = RunOptions { threads: Some(threads), ..RunOptions::default() };
        let report = simt_timing::run(kernel, &launch.config, &launch.memory, &options, &machine, &timing).expect("runs");
        let mut timeline = Vec::new();
        report.write_timeline(&mut timeline).expect("written");
        (report.recording_stopped, report.pipeview, timeline)
    };
    let (one, four) = (recorded(1), recorded(4));
    assert!(one.0.is_some(), "the records did not run out");
    assert!(one.1.len() < simt_timing::MAX_RECORDS as usize);
    assert_eq!(one.0, four.0, "stopped at different cycles");
    assert!(one.1 == four.1 && one.2 == four.2, "1 and 4 threads recorded different things");
}
