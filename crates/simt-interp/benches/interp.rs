//! Interpreter throughput: thread instructions per second on one core for an
//! FFMA-bound kernel (the SGEMM of the kernel library) and for SAXPY over 16M
//! elements, and the speed-up from one to two OS threads on a launch of many
//! blocks. Run with `cargo bench -p simt-interp --bench interp`; criterion
//! reports the "thrpt" line in thread instructions (elements) per second.

use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use simt_host::{prepare, Arg, LaunchRequest};
use simt_interp::RunOptions;
use simt_isa::{ArgInit, Literal, Module};

fn library(name: &str) -> Module {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../asm").join(name);
    let source = std::fs::read_to_string(&path).expect("kernel library file");
    simt_asm::assemble(name, &source).expect("library kernels assemble")
}

/// Benchmarks one launch; the throughput is the launch's thread instructions.
fn bench_launch(c: &mut Criterion, id: &str, module: &Module, request: &LaunchRequest, threads: usize) {
    let kernel = &module.kernels[0];
    let options = RunOptions { threads: Some(threads), ..RunOptions::default() };
    let probe = prepare(kernel, request).expect("valid request");
    let stats = simt_interp::run(kernel, &probe.config, &probe.memory, &options, None).expect("runs");
    let mut group = c.benchmark_group(id);
    group.sample_size(10).measurement_time(Duration::from_secs(8)).throughput(Throughput::Elements(stats.thread_instructions));
    group.bench_function(format!("{threads} thread(s)"), |b| {
        b.iter_batched(
            || prepare(kernel, request).expect("valid request"),
            |p| simt_interp::run(kernel, &p.config, &p.memory, &options, None).expect("runs"),
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
}

fn arg(name: &str, init: ArgInit) -> Arg {
    Arg::new(name, init)
}

fn sgemm_request(size: u32) -> LaunchRequest {
    let n = u64::from(size) * u64::from(size);
    LaunchRequest {
        grid: Some([size / 64, size / 64, 1]),
        args: vec![
            arg("m", ArgInit::Scalar(Literal::Int(size.into()))),
            arg("n", ArgInit::Scalar(Literal::Int(size.into()))),
            arg("k", ArgInit::Scalar(Literal::Int(size.into()))),
            arg("A", ArgInit::Rand(n, 1)),
            arg("B", ArgInit::Rand(n, 2)),
            arg("C", ArgInit::Zeros(n)),
        ],
        ..LaunchRequest::default()
    }
}

fn interpreter(c: &mut Criterion) {
    let sgemm = library("sgemm.s");
    bench_launch(c, "sgemm 256x256x256 (FFMA-bound)", &sgemm, &sgemm_request(256), 1);

    let saxpy = library("saxpy.s");
    let n: u64 = 16 << 20;
    let request = LaunchRequest {
        grid: Some([(n / 256) as u32, 1, 1]),
        block: Some([256, 1, 1]),
        args: vec![
            arg("n", ArgInit::Scalar(Literal::Int(n as i64))),
            arg("a", ArgInit::Scalar(Literal::Float(2.5))),
            arg("x", ArgInit::Iota(n)),
            arg("y", ArgInit::Fill(n, Literal::Float(1.0))),
        ],
        ..LaunchRequest::default()
    };
    bench_launch(c, "saxpy 16M", &saxpy, &request, 1);

    for threads in [1, 2] {
        bench_launch(c, "sgemm 512x512x512, 64 blocks", &sgemm, &sgemm_request(512), threads);
    }
}

criterion_group!(benches, interpreter);
criterion_main!(benches);
