//! A timed run computes what a functional run computes: every kernel of the library,
//! buffers compared byte for byte (contract §5), and the same functional statistics.

mod common;

use common::*;
use simt_host::{LaunchRequest, prepare};
use simt_interp::RunOptions;
use simt_timing::{Machine, TimingOptions};

const KERNELS: &[&str] = &[
    "vector_add.s",
    "saxpy.s",
    "sgemm.s",
    "sgemm_naive.s",
    "transpose.s",
    "histogram.s",
    "block_reduce.s",
    "count_if.s",
    "warp_reduce.s",
    "prefix_scan.s",
    "hgemm.s",
    "hgemm_sparse.s",
    "igemm.s",
    "divergence/spinlock.s",
    "divergence/nested.s",
    "divergence/early_exit.s",
    "producer_consumer.s",
];

#[test]
fn timed_runs_compute_what_functional_runs_compute() {
    let machine = Machine::builtin("h100");
    for file in KERNELS {
        let module = load(file);
        let kernel = &module.kernels[0];
        let options = RunOptions { threads: Some(1), ..RunOptions::default() };
        let functional = prepare(kernel, &LaunchRequest::default()).expect("defaults");
        let stats = simt_interp::run(kernel, &functional.config, &functional.memory, &options, None).expect("runs");
        let (report, timed) = timed(&module, &machine, &LaunchRequest::default(), TimingOptions::default());
        for (name, _) in &functional.buffers {
            assert_eq!(timed.buffer(name), functional.buffer(name), "{file}: buffer {name}");
        }
        // A spin lock spins as long as the timing makes it: only its results must agree.
        if !file.contains("spinlock") {
            assert_eq!(report.functional, stats, "{file}: functional statistics");
            assert_eq!(report.stats.warp_instructions, stats.warp_instructions, "{file}");
        }
        let slots: u64 = report.stats.issue_slots.values().sum();
        assert_eq!(slots, report.stats.issue_slots_total, "{file}: every issue slot has exactly one reason");
        let busy: u64 = report.stats.busy_sm_issue_slots.values().sum();
        assert_eq!(busy, report.stats.busy_sm_issue_slots_total, "{file}: so does every slot of the SMs that ran blocks");
        assert_eq!(busy, report.stats.cycles * 4 * u64::from(report.stats.sms_used), "{file}: four partitions per h100 SM");
        assert_eq!(report.stats.busy_sm_issue_slots["issued"], report.stats.issue_slots["issued"], "{file}: idle SMs issue nothing");
    }
}

#[test]
fn kernels_on_every_builtin_machine() {
    for (name, _) in simt_timing::config::BUILTIN {
        let machine = Machine::builtin(name);
        let module = load("block_reduce.s");
        let (report, _) = timed(&module, &machine, &LaunchRequest::default(), TimingOptions::default());
        assert!(report.stats.cycles > 0, "{name}");
    }
}
