//! Timing-model throughput: warp instructions simulated per second on `h100`, on one and
//! on two OS threads (the results are identical), for a compute-bound kernel (SGEMM,
//! asm/sgemm.s, 512 x 512 x 128, 64 blocks: one wave) and a memory-bound one (saxpy,
//! asm/saxpy.s, 1M floats, 4096 blocks: 31 waves, a global access in every few
//! instructions). Run with `cargo bench -p simt-timing`; criterion's "thrpt" line is in
//! warp instructions per second.

use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use simt_host::{Arg, LaunchRequest, prepare};
use simt_interp::RunOptions;
use simt_isa::{ArgInit, Literal};
use simt_timing::{Machine, TimingOptions};

fn sgemm_request(m: u32, n: u32, k: u32) -> LaunchRequest {
    let int = |name: &str, v: u32| Arg::new(name, ArgInit::Scalar(Literal::Int(v.into())));
    LaunchRequest {
        grid: Some([n / 64, m / 64, 1]),
        args: vec![
            int("m", m),
            int("n", n),
            int("k", k),
            Arg::new("A", ArgInit::Rand(u64::from(m * k), 1)),
            Arg::new("B", ArgInit::Rand(u64::from(k * n), 2)),
            Arg::new("C", ArgInit::Zeros(u64::from(m * n))),
        ],
        ..LaunchRequest::default()
    }
}

fn saxpy_request(n: u32) -> LaunchRequest {
    LaunchRequest {
        grid: Some([n / 256, 1, 1]),
        block: Some([256, 1, 1]),
        args: vec![
            Arg::new("n", ArgInit::Scalar(Literal::Int(n.into()))),
            Arg::new("x", ArgInit::Zeros(u64::from(n))),
            Arg::new("y", ArgInit::Zeros(u64::from(n))),
        ],
        ..LaunchRequest::default()
    }
}

fn timing(c: &mut Criterion) {
    let machine = Machine::builtin("h100");
    for (name, file, request) in [
        ("sgemm 512x512x128 on h100, cycle level", "sgemm.s", sgemm_request(512, 512, 128)),
        ("saxpy 1M on h100, cycle level", "saxpy.s", saxpy_request(1 << 20)),
    ] {
        let source = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../asm").join(file)).expect("kernel source");
        let module = simt_asm::assemble(file, &source).expect("assembles");
        let kernel = &module.kernels[0];
        let mut group = c.benchmark_group(name);
        for threads in [1, 2] {
            let options = RunOptions { threads: Some(threads), ..RunOptions::default() };
            let timing = TimingOptions::default();
            let probe = prepare(kernel, &request).expect("valid");
            let report = simt_timing::run(kernel, &probe.config, &probe.memory, &options, &machine, &timing).expect("runs");
            group.sample_size(10).measurement_time(Duration::from_secs(10)).throughput(Throughput::Elements(report.stats.warp_instructions));
            group.bench_function(format!("{threads} thread(s)"), |b| {
                b.iter_batched(
                    || prepare(kernel, &request).expect("valid"),
                    |p| simt_timing::run(kernel, &p.config, &p.memory, &options, &machine, &timing).expect("runs"),
                    criterion::BatchSize::LargeInput,
                )
            });
        }
        group.finish();
    }
}

criterion_group!(benches, timing);
criterion_main!(benches);
