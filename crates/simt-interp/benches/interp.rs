//! Interpreter throughput: thread instructions per second on one core for an
//! FFMA-bound kernel (the tiled SGEMM of the kernel library) and for SAXPY over
//! 16M elements, the speed-up from one to two OS threads on a launch of many
//! blocks, and the naive SGEMM 512 (one thread per output, 8 instructions per
//! multiply-add) against the same loop in native Rust, both in multiply-adds per
//! second, and what a one-warp launch costs. Run with `cargo bench -p simt-interp --bench interp`; criterion
//! reports the "thrpt" line in elements per second.

use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use simt_host::{Arg, LaunchRequest, prepare};
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

/// The naive SGEMM of size `n`, interpreted on one thread and in native Rust
/// (`f32::mul_add`, the FFMA's single rounding), in multiply-adds per second.
fn naive_sgemm(c: &mut Criterion, n: u32) {
    let module = library("sgemm_naive.s");
    let kernel = &module.kernels[0];
    let len = u64::from(n) * u64::from(n);
    let request = LaunchRequest {
        grid: Some([n / 16, n / 16, 1]),
        args: vec![
            arg("m", ArgInit::Scalar(Literal::Int(n.into()))),
            arg("n", ArgInit::Scalar(Literal::Int(n.into()))),
            arg("k", ArgInit::Scalar(Literal::Int(n.into()))),
            arg("A", ArgInit::Rand(len, 1)),
            arg("B", ArgInit::Rand(len, 2)),
            arg("C", ArgInit::Zeros(len)),
        ],
        ..LaunchRequest::default()
    };
    let options = RunOptions { threads: Some(1), ..RunOptions::default() };
    let mut group = c.benchmark_group(format!("naive sgemm {n} (multiply-adds)"));
    group.sample_size(10).measurement_time(Duration::from_secs(10)).throughput(Throughput::Elements(len * u64::from(n)));
    group.bench_function("simt, 1 thread", |b| {
        b.iter_batched(
            || prepare(kernel, &request).expect("valid request"),
            |p| simt_interp::run(kernel, &p.config, &p.memory, &options, None).expect("runs"),
            criterion::BatchSize::LargeInput,
        )
    });
    let n = n as usize;
    let a: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32 * 0.1).collect();
    let bm: Vec<f32> = (0..n * n).map(|i| (i % 5) as f32 * 0.1).collect();
    group.bench_function("native Rust", |b| {
        b.iter(|| {
            let mut c = vec![0f32; n * n];
            for r in 0..n {
                for col in 0..n {
                    let mut acc = 0f32;
                    for kk in 0..n {
                        acc = a[r * n + kk].mul_add(bm[kk * n + col], acc);
                    }
                    c[r * n + col] = acc;
                }
            }
            std::hint::black_box(c)
        })
    });
    group.finish();
}

/// What one launch costs beyond its instructions: a one-warp kernel that exits at once,
/// prepared and run, the Rust side of the Python package's launch overhead (issue 16).
fn one_warp_launch(c: &mut Criterion) {
    let module = simt_asm::assemble("one_warp.s", ".kernel k\n.launch grid(1) block(32)\nEXIT\n").expect("assembles");
    let kernel = &module.kernels[0];
    let options = RunOptions { threads: Some(1), ..RunOptions::default() };
    c.bench_function("one-warp launch (prepare and run)", |b| {
        b.iter(|| {
            let p = prepare(kernel, &LaunchRequest::default()).expect("valid request");
            simt_interp::run(kernel, &p.config, &p.memory, &options, None).expect("runs")
        })
    });
}

fn interpreter(c: &mut Criterion) {
    one_warp_launch(c);
    naive_sgemm(c, 512);
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
