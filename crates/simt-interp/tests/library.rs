//! The kernel library in `asm/`: every kernel, under both SIMT models, against
//! a reference computed in Rust from the same input bytes.
//!
//! Integer results are compared exactly. Float results are compared bit for
//! bit too: each reference performs the kernel's own operations in the
//! kernel's own order (the same FADD tree, the same FFMA chain via
//! `f32::mul_add`), so no tolerance is needed.

// The references index like the kernels do.
#![allow(clippy::needless_range_loop)]

mod common;

use common::*;
use simt_host::LaunchRequest;
use simt_isa::{ArgInit, Literal};

fn threads_per_block(l: &Launched) -> u32 {
    l.config.block.iter().product()
}
fn blocks(l: &Launched) -> u32 {
    l.config.grid.iter().product()
}

// ---------------------------------------------------------------- vector_add

fn check_vector_add(l: &Launched) {
    let n = l.u32("n") as usize;
    let (a, b) = (f32s(l.input("a")), f32s(l.input("b")));
    let mut want = f32s(l.input("c"));
    for i in 0..n {
        want[i] = a[i] + b[i];
    }
    assert_f32_bits("c", &f32s(l.output("c")), &want);
}

#[test]
fn vector_add() {
    let module = load("vector_add.s");
    let second = request(
        [3, 1, 1],
        [64, 1, 1],
        vec![int("n", 1000), buf("a", ArgInit::Rand(1003, 11)), buf("b", ArgInit::Iota(1003)), buf("c", ArgInit::Fill(1003, Literal::Float(-7.0)))],
    );
    for simt in MODELS {
        check_vector_add(&launch(&module, &LaunchRequest::default(), simt));
        check_vector_add(&launch(&module, &second, simt));
    }
}

// ---------------------------------------------------------------- saxpy

fn check_saxpy(l: &Launched) {
    let n = l.u32("n") as usize;
    let a = l.f32("a");
    let x = f32s(l.input("x"));
    let mut want = f32s(l.input("y"));
    for i in 0..n {
        want[i] = a.mul_add(x[i], want[i]); // one FFMA, one rounding
    }
    assert_f32_bits("y", &f32s(l.output("y")), &want);
}

#[test]
fn saxpy() {
    let module = load("saxpy.s");
    let second = request([7, 1, 1], [128, 1, 1], vec![int("n", 777), float("a", -1.5), buf("x", ArgInit::Rand(800, 7)), buf("y", ArgInit::Iota(800))]);
    for simt in MODELS {
        check_saxpy(&launch(&module, &LaunchRequest::default(), simt));
        check_saxpy(&launch(&module, &second, simt));
    }
}

// ---------------------------------------------------------------- hsaxpy

/// `a` rounded to f16, then `a * x + y` in f16, each rounded once: the f64 product of halves
/// is exact and so is its sum with a half (both within 40 bits), so one rounding to f16 is it.
fn check_hsaxpy(l: &Launched) {
    let n = l.u32("n") as usize;
    let a = f64::from(half::f16::from_f32(l.f32("a")));
    let x = f16s(l.input("x"));
    let mut want = f16s(l.input("y"));
    for i in 0..n {
        want[i] = half::f16::from_f64(a * f64::from(x[i]) + f64::from(want[i])).to_f32();
    }
    assert_f32_bits("y", &f16s(l.output("y")), &want);
}

#[test]
fn hsaxpy() {
    let module = load("hsaxpy.s");
    // More threads than pairs, and sums past f16's largest value, 65504, that overflow to infinity.
    let second = request(
        [3, 1, 1],
        [128, 1, 1],
        vec![int("n", 700), float("a", 1.5), buf("x", ArgInit::Iota(800)), buf("y", ArgInit::Fill(800, Literal::Float(65504.0)))],
    );
    for simt in MODELS {
        check_hsaxpy(&launch(&module, &LaunchRequest::default(), simt));
        check_hsaxpy(&launch(&module, &second, simt));
    }
}

// ---------------------------------------------------------------- block_reduce

fn check_block_reduce(l: &Launched) {
    let n = l.u32("n") as usize;
    let bsize = threads_per_block(l) as usize;
    let input = u32s(l.input("in"));
    let mut want = u32s(l.input("out"));
    for b in 0..blocks(l) as usize {
        let lo = (b * bsize).min(n);
        let hi = ((b + 1) * bsize).min(n);
        want[b] = input[lo..hi].iter().fold(0u32, |s, &x| s.wrapping_add(x));
    }
    assert_u32s("out", &u32s(l.output("out")), &want);
}

#[test]
fn block_reduce() {
    let module = load("block_reduce.s");
    // The example of the kernel's header: a partial last block.
    let second = request([4, 1, 1], [128, 1, 1], vec![int("n", 500), buf("in", ArgInit::Iota(500)), buf("out", ArgInit::Zeros(4))]);
    // One thread per block, and blocks past n.
    let third = request([5, 1, 1], [1, 1, 1], vec![int("n", 3), buf("in", ArgInit::Rand(3, 1)), buf("out", ArgInit::Fill(5, Literal::Int(9)))]);
    for simt in MODELS {
        check_block_reduce(&launch(&module, &LaunchRequest::default(), simt));
        let l = launch(&module, &second, simt);
        check_block_reduce(&l);
        assert_eq!(u32s(l.output("out")), [8128, 24512, 40896, 51214]);
        check_block_reduce(&launch(&module, &third, simt));
    }
}

// ---------------------------------------------------------------- count_if

fn check_count_if(l: &Launched) {
    let (n, t) = (l.u32("n") as usize, l.u32("t"));
    let bsize = threads_per_block(l) as usize;
    let input = u32s(l.input("in"));
    let (mut count, mut flags) = (u32s(l.input("count")), u32s(l.input("flags")));
    for b in 0..blocks(l) as usize {
        let elements = &input[(b * bsize).min(n)..((b + 1) * bsize).min(n)];
        let above = elements.iter().filter(|&&x| x > t).count() as u32;
        count[b] = above;
        flags[b] = u32::from(above as usize == elements.len()) | u32::from(above > 0) << 1;
    }
    assert_u32s("count", &u32s(l.output("count")), &count);
    assert_u32s("flags", &u32s(l.output("flags")), &flags);
}

#[test]
fn count_if() {
    let module = load("count_if.s");
    // The example of the kernel's header, a partial last warp, and blocks past n.
    let second = request(
        [2, 1, 1],
        [64, 1, 1],
        vec![int("n", 100), int("t", 49), buf("in", ArgInit::Iota(100)), buf("count", ArgInit::Zeros(2)), buf("flags", ArgInit::Zeros(2))],
    );
    let third = request(
        [4, 1, 1],
        [40, 1, 1],
        vec![int("n", 90), int("t", 1 << 31), buf("in", ArgInit::Rand(90, 2)), buf("count", ArgInit::Zeros(4)), buf("flags", ArgInit::Zeros(4))],
    );
    for simt in MODELS {
        check_count_if(&launch(&module, &LaunchRequest::default(), simt));
        let l = launch(&module, &second, simt);
        check_count_if(&l);
        assert_eq!((u32s(l.output("count")), u32s(l.output("flags"))), (vec![14, 36], vec![2, 3]));
        check_count_if(&launch(&module, &third, simt));
    }
}

// ---------------------------------------------------------------- warp_reduce

/// The kernel's exact order of f32 additions.
fn warp_reduce_reference(input: &[f32], n: usize, grid: usize, bsize: usize) -> Vec<f32> {
    let total_threads = grid * bsize;
    (0..grid)
        .map(|b| {
            // 1. grid-stride accumulation per thread
            let acc: Vec<f32> = (0..bsize)
                .map(|t| {
                    let mut acc = 0.0f32;
                    let mut i = b * bsize + t;
                    while i < n {
                        acc += input[i];
                        i += total_threads;
                    }
                    acc
                })
                .collect();
            // 2. SHFL.DOWN tree inside each warp; an out-of-range source lane reads its own value
            let warps = bsize / 32;
            let wsum: Vec<f32> = (0..warps)
                .map(|w| {
                    let mut v: Vec<f32> = acc[32 * w..32 * w + 32].to_vec();
                    for off in [16, 8, 4, 2, 1] {
                        v = (0..32).map(|l| v[l] + if l + off <= 31 { v[l + off] } else { v[l] }).collect();
                    }
                    v[0]
                })
                .collect();
            // 3. SHFL.BFLY tree in warp 0
            let mut v: Vec<f32> = (0..32).map(|l| if l < warps { wsum[l] } else { 0.0 }).collect();
            for off in [16, 8, 4, 2, 1] {
                v = (0..32).map(|l| v[l] + v[l ^ off]).collect();
            }
            v[0]
        })
        .collect()
}

fn check_warp_reduce(l: &Launched) {
    let n = l.u32("n") as usize;
    let input = f32s(l.input("in"));
    let grid = blocks(l) as usize;
    let want = warp_reduce_reference(&input, n, grid, threads_per_block(l) as usize);
    let got = f32s(l.output("out"));
    assert_f32_bits("out", &got[..grid], &want);
    // And the partial sums add up to the plain total, up to f32 rounding.
    let total: f64 = input[..n].iter().map(|&x| f64::from(x)).sum();
    let sum: f64 = got[..grid].iter().map(|&x| f64::from(x)).sum();
    assert!((sum - total).abs() <= 1e-5 * total.abs().max(1.0), "{sum} vs {total}");
}

#[test]
fn warp_reduce() {
    let module = load("warp_reduce.s");
    // Three warps per block (not a power of two), a grid-stride tail.
    let second = request([3, 1, 1], [96, 1, 1], vec![int("n", 1000), buf("in", ArgInit::Rand(1000, 8)), buf("out", ArgInit::Zeros(3))]);
    let header = request([2, 1, 1], [64, 1, 1], vec![int("n", 1000), buf("in", ArgInit::Fill(1000, Literal::Int(1))), buf("out", ArgInit::Zeros(2))]);
    for simt in MODELS {
        check_warp_reduce(&launch(&module, &LaunchRequest::default(), simt));
        check_warp_reduce(&launch(&module, &second, simt));
        let l = launch(&module, &header, simt);
        assert_eq!(f32s(l.output("out")), [512.0, 488.0]);
    }
}

// ---------------------------------------------------------------- prefix_scan

fn check_prefix_scan(l: &Launched) {
    let n = l.u32("n") as usize;
    let bsize = threads_per_block(l) as usize;
    let input = u32s(l.input("in"));
    let mut out = u32s(l.input("out"));
    let mut sums = u32s(l.input("sums"));
    for b in 0..blocks(l) as usize {
        let mut s = 0u32;
        for i in b * bsize..(b + 1) * bsize {
            if i < n {
                s = s.wrapping_add(input[i]);
                out[i] = s;
            }
        }
        sums[b] = s;
    }
    assert_u32s("out", &u32s(l.output("out")), &out);
    assert_u32s("sums", &u32s(l.output("sums")), &sums);
}

#[test]
fn prefix_scan() {
    let module = load("prefix_scan.s");
    // A block size that is not a power of two, and a partial last block.
    let second = request(
        [3, 1, 1],
        [100, 1, 1],
        vec![int("n", 250), buf("in", ArgInit::Iota(250)), buf("out", ArgInit::Fill(260, Literal::Int(5))), buf("sums", ArgInit::Zeros(3))],
    );
    let header = request(
        [2, 1, 1],
        [8, 1, 1],
        vec![int("n", 12), buf("in", ArgInit::Fill(12, Literal::Int(1))), buf("out", ArgInit::Zeros(12)), buf("sums", ArgInit::Zeros(2))],
    );
    for simt in MODELS {
        check_prefix_scan(&launch(&module, &LaunchRequest::default(), simt));
        check_prefix_scan(&launch(&module, &second, simt));
        let l = launch(&module, &header, simt);
        assert_eq!(u32s(l.output("out")), [1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4]);
        assert_eq!(u32s(l.output("sums")), [8, 4]);
    }
}

// ---------------------------------------------------------------- histogram

fn check_histogram(l: &Launched) {
    let n = l.u32("n") as usize;
    let mut want = u32s(l.input("hist"));
    for &v in &l.input("data")[..n] {
        want[v as usize] += 1;
    }
    assert_u32s("hist", &u32s(l.output("hist")), &want);
    assert_eq!(u32s(l.output("hist")).iter().sum::<u32>(), u32s(l.input("hist")).iter().sum::<u32>() + n as u32);
}

#[test]
fn histogram() {
    let module = load("histogram.s");
    // Blocks smaller than the 256 bins (the clear and merge loops go round), a
    // histogram that already holds counts.
    let second = request([3, 1, 1], [100, 1, 1], vec![int("n", 1001), buf("data", ArgInit::Rand(1010, 9)), buf("hist", ArgInit::Fill(256, Literal::Int(3)))]);
    for simt in MODELS {
        check_histogram(&launch(&module, &LaunchRequest::default(), simt));
        check_histogram(&launch(&module, &second, simt));
    }
}

// ---------------------------------------------------------------- transpose

fn check_transpose(l: &Launched) {
    let (rows, cols) = (l.u32("rows") as usize, l.u32("cols") as usize);
    let input = f32s(l.input("in"));
    let mut want = f32s(l.input("out"));
    for r in 0..rows {
        for c in 0..cols {
            want[c * rows + r] = input[r * cols + c];
        }
    }
    assert_f32_bits("out", &f32s(l.output("out")), &want);
}

#[test]
fn transpose() {
    let module = load("transpose.s");
    // Square-ish tiles of 32x32 threads, 33 x 70: partial tiles in both dimensions.
    let second = request(
        [3, 2, 1],
        [32, 32, 1],
        vec![int("rows", 33), int("cols", 70), buf("in", ArgInit::Rand(2310, 3)), buf("out", ArgInit::Fill(2320, Literal::Float(-1.0)))],
    );
    // 32x4 threads per tile, a single row.
    let third = request([2, 1, 1], [32, 4, 1], vec![int("rows", 1), int("cols", 40), buf("in", ArgInit::Iota(40)), buf("out", ArgInit::Zeros(40))]);
    for simt in MODELS {
        let l = launch(&module, &LaunchRequest::default(), simt);
        assert_ne!(l.u32("rows"), l.u32("cols"));
        check_transpose(&l);
        check_transpose(&launch(&module, &second, simt));
        check_transpose(&launch(&module, &third, simt));
    }
}

// ---------------------------------------------------------------- sgemm

/// C[r][c] as the kernel computes it: an FFMA chain over k in increasing order
/// from 0.0, including the zero products of the last, padded 16-wide k tile.
fn sgemm_reference(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f32> {
    let kpad = k.div_ceil(16) * 16;
    let mut c = vec![0.0f32; m * n];
    for r in 0..m {
        for col in 0..n {
            let mut acc = 0.0f32;
            for kk in 0..kpad {
                let (x, y) = if kk < k { (a[r * k + kk], b[kk * n + col]) } else { (0.0, 0.0) };
                acc = x.mul_add(y, acc);
            }
            c[r * n + col] = acc;
        }
    }
    c
}

fn check_sgemm(l: &Launched) {
    let (m, n, k) = (l.u32("m") as usize, l.u32("n") as usize, l.u32("k") as usize);
    let want = sgemm_reference(&f32s(l.input("A")), &f32s(l.input("B")), m, n, k);
    assert_f32_bits("C", &f32s(l.output("C"))[..m * n], &want);
}

#[test]
fn sgemm() {
    let module = load("sgemm.s");
    // m, n, k none a multiple of the tiles; negative inputs; C's old contents ignored.
    let (m, n, k) = (70u64, 100u64, 37u64);
    let second = request(
        [2, 2, 1],
        [16, 16, 1],
        vec![
            int("m", m as i64),
            int("n", n as i64),
            int("k", k as i64),
            buf("A", ArgInit::Rand(m * k, 21)),
            buf("B", ArgInit::List((0..k * n).map(|i| Literal::Float(((i * 37 % 101) as f64 - 50.0) / 8.0)).collect())),
            buf("C", ArgInit::Fill(m * n, Literal::Float(123.0))),
        ],
    );
    let header = request(
        [2, 1, 1],
        [16, 16, 1],
        vec![
            int("m", 3),
            int("n", 65),
            int("k", 2),
            buf("A", ArgInit::List((1..=6).map(Literal::Int).collect())),
            buf("B", ArgInit::Fill(130, Literal::Int(1))),
            buf("C", ArgInit::Zeros(195)),
        ],
    );
    for simt in MODELS {
        let l = launch(&module, &LaunchRequest::default(), simt);
        assert_eq!((l.u32("m"), l.u32("n"), l.u32("k")), (128, 128, 128));
        check_sgemm(&l);
        check_sgemm(&launch(&module, &second, simt));
        let l = launch(&module, &header, simt);
        check_sgemm(&l);
        let c = f32s(l.output("C"));
        assert_eq!((c[0], c[64], c[65], c[194]), (3.0, 3.0, 7.0, 11.0));
    }
}

// ---------------------------------------------------------------- producer_consumer

/// Column sums added in row order: what the consumers' FADD chain computes, whatever order the
/// producer and the consumers' warps ran in.
fn check_producer_consumer(l: &Launched) {
    let rows = l.u32("rows") as usize;
    let x = f32s(l.input("x"));
    let want: Vec<f32> = (0..64).map(|c| (0..rows).fold(0.0f32, |sum, r| sum + x[r * 64 + c])).collect();
    assert_f32_bits("sums", &f32s(l.output("sums")), &want);
}

#[test]
fn producer_consumer() {
    let module = load("producer_consumer.s");
    // One row (a stage never refilled) and an odd count (the last row in stage 0).
    let short = |rows: i64| request([1, 1, 1], [96, 1, 1], vec![int("rows", rows), buf("x", ArgInit::Rand(64 * 9, 5)), buf("sums", ArgInit::Zeros(64))]);
    for simt in MODELS {
        check_producer_consumer(&launch(&module, &LaunchRequest::default(), simt));
        check_producer_consumer(&launch(&module, &short(1), simt));
        check_producer_consumer(&launch(&module, &short(9), simt));
    }
}

// ---------------------------------------------------------------- every file assembles

#[test]
fn every_asm_file_assembles() {
    let files = library_files();
    for name in ["vector_add", "saxpy", "block_reduce", "warp_reduce", "prefix_scan", "histogram", "transpose", "sgemm"] {
        assert!(files.iter().any(|p| p.ends_with(format!("{name}.s"))), "asm/{name}.s is missing");
    }
    let mut failures = Vec::new();
    for path in &files {
        let source = std::fs::read_to_string(path).unwrap();
        let shown = path.strip_prefix(asm_dir()).unwrap_or(path).display().to_string();
        match simt_asm::assemble(&shown, &source) {
            Ok(module) if module.kernels.is_empty() => failures.push(format!("{shown}: no kernel")),
            Ok(_) => {}
            Err(d) => failures.push(d.render(false)),
        }
    }
    assert!(failures.is_empty(), "{} of {} files fail:\n{}", failures.len(), files.len(), failures.join("\n"));
}
