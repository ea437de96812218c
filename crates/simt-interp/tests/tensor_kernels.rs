//! The tensor-core kernels of the library (`asm/hgemm.s`, `asm/hgemm_sparse.s`,
//! `asm/igemm.s`, and the section 9 kernels `asm/fp8gemm.s`, `asm/fp4gemm.s`,
//! `asm/dgemm.s`) under both SIMT models, against plain Rust matrix products.
//!
//! Results are compared bit for bit: contract section 8 fixes the evaluation of
//! every output element as one f32 FFMA chain from C over k = 0, 1, ... in
//! order (sparse: over the kept values only), and the kernels carry the
//! accumulator in registers across their K steps, so the reference below --
//! the same chain with `f32::mul_add` -- must agree exactly. Integer products
//! wrap in 32 bits; `dgemm`'s elements are DFMA chains (`f64::mul_add`).

// The references index like the kernels do.
#![allow(clippy::needless_range_loop)]

mod common;

use common::*;
use half::f16;
use simt_host::LaunchRequest;
use simt_interp::{RunOptions, SimtModel, run};
use simt_isa::{ArgInit, Literal};
use simt_tensor::sparsify::{decode_metadata, decompress, sparsify};

/// The problem size of a GEMM launch.
fn mnk(l: &Launched) -> (usize, usize, usize) {
    (l.u32("m") as usize, l.u32("n") as usize, l.u32("k") as usize)
}

/// A value in [-1, 1) exactly representable in f16.
fn f16_value(rng: &mut Rng) -> f32 {
    f16::from_f32((rng.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0).to_f32()
}

fn check_tensor_stats(l: &Launched, mma: u64, macs: u64, dense: u64) {
    let t = &l.stats.tensor;
    assert_eq!((t.mma_instructions, t.macs, t.dense_equivalent_macs), (mma, macs, dense), "tensor stats");
}

// ---------------------------------------------------------------- hgemm

/// D = A x B + C, each element one FFMA chain from C over k in order.
fn reference_f16(m: usize, n: usize, k: usize, a: &[f32], bt: &[f32], c: &[f32]) -> Vec<f32> {
    let mut d = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = c[i * n + j];
            for kk in 0..k {
                acc = a[i * k + kk].mul_add(bt[j * k + kk], acc);
            }
            d[i * n + j] = acc;
        }
    }
    d
}

fn check_hgemm(l: &Launched) {
    let (m, n, k) = mnk(l);
    let want = reference_f16(m, n, k, &f16s(l.input("A")), &f16s(l.input("Bt")), &f32s(l.input("C")));
    assert_f32_bits("D", &f32s(l.output("D")), &want);
    let macs = (m * n * k) as u64;
    check_tensor_stats(l, macs / 4096, macs, macs);
}

#[test]
fn hgemm() {
    let module = load("hgemm.s");
    // A different shape and a non-zero C: 128 x 64 x 48 on a 1 x 2 grid.
    let second = request(
        [1, 2, 1],
        [128, 1, 1],
        vec![
            int("m", 128),
            int("n", 64),
            int("k", 48),
            buf("A", ArgInit::Rand(128 * 48, 7)),
            buf("Bt", ArgInit::Rand(64 * 48, 8)),
            buf("C", ArgInit::Rand(128 * 64, 9)),
            buf("D", ArgInit::Fill(128 * 64, Literal::Float(-1.0))),
        ],
    );
    for simt in MODELS {
        let l = launch(&module, &LaunchRequest::default(), simt);
        assert_eq!(mnk(&l), (256, 256, 256));
        check_hgemm(&l);
        check_hgemm(&launch(&module, &second, simt));
    }
}

/// Signed inputs, cancellation and a negative C: values in [-1, 1) from Rust.
#[test]
fn hgemm_signed_inputs() {
    let module = load("hgemm.s");
    let (m, n, k) = (64, 64, 64);
    let mut rng = Rng(0x5eed);
    let list = |len: usize, rng: &mut Rng| ArgInit::List((0..len).map(|_| Literal::Float(f64::from(f16_value(rng)))).collect());
    let req = request(
        [1, 1, 1],
        [128, 1, 1],
        vec![
            int("m", m),
            int("n", n),
            int("k", k),
            buf("A", list((m * k) as usize, &mut rng)),
            buf("Bt", list((n * k) as usize, &mut rng)),
            buf("C", list((m * n) as usize, &mut rng)),
            buf("D", ArgInit::Zeros((m * n) as u64)),
        ],
    );
    for simt in MODELS {
        check_hgemm(&launch(&module, &req, simt));
    }
}

// ---------------------------------------------------------------- hgemm_sparse

/// D = A x B + C for a compressed 2:4 A: each element one FFMA chain from C
/// over the kept values of its row in increasing logical k, read from the
/// metadata (pruned positions take no part). Also checks that the kept values
/// are where `decompress` puts them.
fn reference_sparse(m: usize, n: usize, k: usize, vals: &[f32], meta: &[u32], bt: &[f32], c: &[f32]) -> Vec<f32> {
    let dense = decompress(vals, meta, m, k).expect("valid metadata");
    let mut kept: Vec<Vec<(usize, f32)>> = vec![Vec::new(); m];
    for i in 0..m {
        for tj in 0..k / 32 {
            for h in 0..2 {
                let word = meta[(i / 16 * (k / 32) + tj) * 32 + 2 * (i % 16) + h];
                let idx = decode_metadata(word).expect("valid metadata");
                for q in 0..8 {
                    let kk = tj * 32 + 16 * h + 4 * (q / 2) + usize::from(idx[q]);
                    let v = vals[i * k / 2 + tj * 16 + 8 * h + q];
                    assert_eq!(dense[i * k + kk].to_bits(), v.to_bits(), "decompress disagrees at A[{i}][{kk}]");
                    kept[i].push((kk, v));
                }
            }
        }
        assert!(kept[i].windows(2).all(|w| w[0].0 < w[1].0));
    }
    let mut d = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = c[i * n + j];
            for &(kk, v) in &kept[i] {
                acc = v.mul_add(bt[j * k + kk], acc);
            }
            d[i * n + j] = acc;
        }
    }
    d
}

fn check_sparse(l: &Launched) {
    let (m, n, k) = mnk(l);
    let want = reference_sparse(m, n, k, &f16s(l.input("vals")), &u32s(l.input("meta")), &f16s(l.input("Bt")), &f32s(l.input("C")));
    assert_f32_bits("D", &f32s(l.output("D")), &want);
    // The work of a K = 32 product from the A storage (and MMA count) of a K = 16 one.
    let dense = (m * n * k) as u64;
    check_tensor_stats(l, dense / 8192, dense / 2, dense);
}

#[test]
fn hgemm_sparse() {
    let module = load("hgemm_sparse.s");
    let second = request(
        [2, 1, 1],
        [128, 1, 1],
        vec![
            int("m", 64),
            int("n", 128),
            int("k", 96),
            buf("vals", ArgInit::Rand(64 * 48, 3)),
            buf("meta", ArgInit::Fill(4 * 3 * 32, Literal::Int(0x4444))), // columns (0, 1) of every group
            buf("Bt", ArgInit::Rand(128 * 96, 4)),
            buf("C", ArgInit::Rand(64 * 128, 5)),
            buf("D", ArgInit::Zeros(64 * 128)),
        ],
    );
    for simt in MODELS {
        let l = launch(&module, &LaunchRequest::default(), simt);
        assert_eq!(mnk(&l), (256, 256, 256));
        assert!(u32s(l.input("meta")).iter().all(|&w| w == 0x9CD8));
        check_sparse(&l);
        check_sparse(&launch(&module, &second, simt));
    }
}

/// The sparse kernel issues half the MMAs of the dense one for the same
/// logical product, with the same dense-equivalent work.
#[test]
fn sparse_halves_the_mma_count() {
    let dense = launch(&load("hgemm.s"), &LaunchRequest::default(), SimtModel::Its).stats.tensor;
    let sparse = launch(&load("hgemm_sparse.s"), &LaunchRequest::default(), SimtModel::Its).stats.tensor;
    assert_eq!(sparse.mma_instructions * 2, dense.mma_instructions);
    assert_eq!(sparse.macs * 2, dense.macs);
    assert_eq!(sparse.dense_equivalent_macs, dense.dense_equivalent_macs);
}

/// `sparsify` output of a random matrix (irregular pruning pattern, some
/// zeros and ties) is accepted by the kernel as is and gives the product of
/// the pruned matrix. Column 5 of A is zero everywhere, so every row prunes
/// it, and row 5 of B is infinite: it must not reach D.
#[test]
fn hgemm_sparse_runs_sparsify_output() {
    let module = load("hgemm_sparse.s");
    let (m, n, k) = (64usize, 64usize, 64usize);
    let mut rng = Rng(0xfeed_beef);
    let mut a: Vec<f32> = (0..m * k).map(|_| f16_value(&mut rng)).collect();
    for i in 0..m {
        a[i * k + 5] = 0.0;
        if i % 3 == 0 {
            a[i * k + 17] = 0.0; // a group with two zeros: a tie among the small ones
            a[i * k + 18] = 0.0;
        }
        if i % 4 == 1 {
            let x = a[i * k + 40];
            a[i * k + 41] = -x; // equal magnitudes: the lower column wins the tie
        }
    }
    let s = sparsify(&a, m, k).unwrap();
    assert!(s.metadata.iter().any(|&w| w != s.metadata[0]), "the pattern should vary");
    let mut bt: Vec<f32> = (0..n * k).map(|_| f16_value(&mut rng)).collect();
    for j in 0..n {
        bt[j * k + 5] = f32::INFINITY;
    }
    let floats = |v: &[f32]| ArgInit::List(v.iter().map(|&x| Literal::Float(f64::from(x))).collect());
    let c: Vec<f32> = (0..m * n).map(|_| f16_value(&mut rng)).collect();
    let req = request(
        [1, 1, 1],
        [128, 1, 1],
        vec![
            int("m", m as i64),
            int("n", n as i64),
            int("k", k as i64),
            buf("vals", floats(&s.values)),
            buf("meta", ArgInit::List(s.metadata.iter().map(|&w| Literal::Int(i64::from(w))).collect())),
            buf("Bt", floats(&bt)),
            buf("C", floats(&c)),
            buf("D", ArgInit::Zeros((m * n) as u64)),
        ],
    );
    for simt in MODELS {
        let l = launch(&module, &req, simt);
        // The buffers hold exactly what sparsify produced.
        assert_eq!(f16s(l.input("vals")), s.values);
        assert_eq!(u32s(l.input("meta")), s.metadata);
        check_sparse(&l);
        let d = f32s(l.output("D"));
        assert!(d.iter().all(|x| x.is_finite()), "a pruned column let B's infinity through");
        // And it is the product of the pruned dense matrix, as `sparsify` reports it.
        assert_eq!(decompress(&s.values, &s.metadata, m, k).unwrap(), s.pruned);
    }
}

/// Metadata that no sparsification produces (a group naming columns 1, 0)
/// faults the launch instead of computing anything.
#[test]
fn hgemm_sparse_rejects_bad_metadata() {
    let module = load("hgemm_sparse.s");
    let mut words = vec![Literal::Int(0x4444); 32 * 2 * 2];
    words[37] = Literal::Int(0x4441); // tile 1, lane 5, group 0: indices 1, 0
    let req = request(
        [1, 1, 1],
        [128, 1, 1],
        vec![
            int("m", 64),
            int("n", 64),
            int("k", 64),
            buf("vals", ArgInit::Rand(64 * 32, 1)),
            buf("meta", ArgInit::List(words)),
            buf("Bt", ArgInit::Rand(64 * 64, 2)),
            buf("C", ArgInit::Zeros(64 * 64)),
            buf("D", ArgInit::Zeros(64 * 64)),
        ],
    );
    for simt in MODELS {
        let p = prepared(&module, &req);
        let options = RunOptions { simt, ..RunOptions::default() };
        let fault = run(&module.kernels[0], &p.config, &p.memory, &options, None).expect_err("invalid metadata must fault");
        let text = fault.render(&module, false);
        assert!(text.contains("strictly increasing"), "{text}");
    }
}

// ---------------------------------------------------------------- igemm

fn check_igemm(l: &Launched) {
    let (m, n, k) = mnk(l);
    let a: Vec<i32> = l.input("A").iter().map(|&b| i32::from(b as i8)).collect();
    let bt: Vec<i32> = l.input("Bt").iter().map(|&b| i32::from(b as i8)).collect();
    let mut want = i32s(l.input("C"));
    for i in 0..m {
        for j in 0..n {
            for kk in 0..k {
                want[i * n + j] = want[i * n + j].wrapping_add(a[i * k + kk] * bt[j * k + kk]);
            }
        }
    }
    assert_eq!(i32s(l.output("D")), want, "D");
    let macs = (m * n * k) as u64;
    check_tensor_stats(l, macs / 4096, macs, macs);
}

#[test]
fn igemm() {
    let module = load("igemm.s");
    // Extreme values and a C near the wrap-around point.
    let second = request(
        [1, 1, 1],
        [128, 1, 1],
        vec![
            int("m", 64),
            int("n", 64),
            int("k", 32),
            buf("A", ArgInit::Fill(64 * 32, Literal::Int(-128))),
            buf("Bt", ArgInit::Fill(64 * 32, Literal::Int(-128))),
            buf("C", ArgInit::Fill(64 * 64, Literal::Int(i64::from(i32::MAX)))),
            buf("D", ArgInit::Zeros(64 * 64)),
        ],
    );
    let third = request(
        [2, 1, 1],
        [128, 1, 1],
        vec![
            int("m", 64),
            int("n", 128),
            int("k", 64),
            buf("A", ArgInit::Rand(64 * 64, 5)),
            buf("Bt", ArgInit::Rand(128 * 64, 6)),
            buf("C", ArgInit::Rand(64 * 128, 7)),
            buf("D", ArgInit::Zeros(64 * 128)),
        ],
    );
    for simt in MODELS {
        let l = launch(&module, &LaunchRequest::default(), simt);
        assert_eq!(mnk(&l), (128, 128, 128));
        check_igemm(&l);
        let l = launch(&module, &second, simt);
        check_igemm(&l);
        assert_eq!(i32s(l.output("D"))[0], i32::MAX.wrapping_add(32 * 16384));
        check_igemm(&launch(&module, &third, simt));
    }
}

// ---------------------------------------------------------------- fp8gemm, fp4gemm (section 9)

/// The value of an E4M3 code, decoded here from the format's definition (sign, 4
/// exponent bits with bias 7, 3 mantissa bits, `S.1111.111` NaN), not by the library.
fn e4m3_value(code: u8) -> f32 {
    let sign = if code & 0x80 != 0 { -1.0 } else { 1.0 };
    let (e, m) = (i32::from(code >> 3 & 0xF), f32::from(code & 7));
    sign * match (e, m) {
        (15, 7.0) => f32::NAN,
        (0, _) => m / 8.0 * 2f32.powi(-6),
        _ => (1.0 + m / 8.0) * 2f32.powi(e - 7),
    }
}

/// The value of an E2M1 nibble: sign, 2 exponent bits with bias 1, 1 mantissa bit.
fn e2m1_value(code: u8) -> f32 {
    let sign = if code & 8 != 0 { -1.0 } else { 1.0 };
    let (e, m) = (i32::from(code >> 1 & 3), f32::from(code & 1));
    sign * if e == 0 { m * 0.5 } else { (1.0 + m / 2.0) * 2f32.powi(e - 1) }
}

/// Every E2M1 element of a buffer, two a byte, the first in the low nibble.
fn e2m1_values(bytes: &[u8]) -> Vec<f32> {
    bytes.iter().flat_map(|&b| [e2m1_value(b & 0xF), e2m1_value(b >> 4)]).collect()
}

/// Signed f32 data in [-2, 2) for a low-precision buffer; the host rounds it with the CVT rules.
fn signed_list(len: usize, rng: &mut Rng) -> ArgInit {
    ArgInit::List((0..len).map(|_| Literal::Float(f64::from((rng.next() >> 40) as f32 / (1u64 << 22) as f32 - 2.0))).collect())
}

/// fp8gemm and fp4gemm share hgemm's structure and reference: D is one f32 FFMA
/// chain from C over the decoded elements.
fn check_lowp_gemm(l: &Launched, values: fn(&[u8]) -> Vec<f32>) {
    let (m, n, k) = mnk(l);
    let (a, bt) = (values(l.input("A")), values(l.input("Bt")));
    assert_eq!((a.len(), bt.len()), (m * k, n * k));
    let want = reference_f16(m, n, k, &a, &bt, &f32s(l.input("C")));
    assert_f32_bits("D", &f32s(l.output("D")), &want);
    let macs = (m * n * k) as u64;
    check_tensor_stats(l, macs / 4096, macs, macs);
}

fn lowp_gemm_requests(rng: &mut Rng) -> LaunchRequest {
    // 128 x 64 x 48 on a 1 x 2 grid, signed inputs and a non-zero C.
    let (m, n, k) = (128usize, 64usize, 48usize);
    request(
        [1, 2, 1],
        [128, 1, 1],
        vec![
            int("m", m as i64),
            int("n", n as i64),
            int("k", k as i64),
            buf("A", signed_list(m * k, rng)),
            buf("Bt", signed_list(n * k, rng)),
            buf("C", ArgInit::Rand((m * n) as u64, 9)),
            buf("D", ArgInit::Fill((m * n) as u64, Literal::Float(-1.0))),
        ],
    )
}

#[test]
fn fp8gemm() {
    let module = load("fp8gemm.s");
    let e4m3s = |bytes: &[u8]| bytes.iter().map(|&b| e4m3_value(b)).collect();
    let second = lowp_gemm_requests(&mut Rng(0xf8));
    for simt in MODELS {
        let l = launch(&module, &LaunchRequest::default(), simt);
        assert_eq!(mnk(&l), (256, 256, 256));
        check_lowp_gemm(&l, e4m3s);
        let l = launch(&module, &second, simt);
        assert!(l.input("A").iter().any(|&b| b & 0x80 != 0), "some inputs are negative");
        check_lowp_gemm(&l, e4m3s);
    }
}

#[test]
fn fp4gemm() {
    let module = load("fp4gemm.s");
    let second = lowp_gemm_requests(&mut Rng(0xf4));
    for simt in MODELS {
        let l = launch(&module, &LaunchRequest::default(), simt);
        assert_eq!(mnk(&l), (256, 256, 256));
        check_lowp_gemm(&l, e2m1_values);
        let l = launch(&module, &second, simt);
        assert!(e2m1_values(l.input("A")).iter().any(|&x| x < -1.0), "some inputs are negative");
        check_lowp_gemm(&l, e2m1_values);
    }
}

// ---------------------------------------------------------------- dgemm (section 9)

fn f64s(bytes: &[u8]) -> Vec<f64> {
    bytes.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect()
}

/// D = A x B + C, each element one DFMA chain from C over k in order.
fn check_dgemm(l: &Launched) {
    let (m, n, k) = mnk(l);
    let (a, bt, c) = (f64s(l.input("A")), f64s(l.input("Bt")), f64s(l.input("C")));
    let mut want = vec![0.0f64; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = c[i * n + j];
            for kk in 0..k {
                acc = a[i * k + kk].mul_add(bt[j * k + kk], acc);
            }
            want[i * n + j] = acc;
        }
    }
    let got = f64s(l.output("D"));
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.to_bits(), w.to_bits(), "D[{i}]: got {g}, want {w}");
    }
    let macs = (m * n * k) as u64;
    check_tensor_stats(l, macs / 256, macs, macs);
}

#[test]
fn dgemm() {
    let module = load("dgemm.s");
    // 96 x 32 x 20 on a 1 x 3 grid with signed values whose products need every bit of a fused step.
    let mut rng = Rng(0xd6);
    let mut list =
        |len: usize| ArgInit::List((0..len).map(|_| Literal::F64Bits((rng.next() >> 2 | 0x3FF0_0000_0000_0000) ^ (rng.next() & (1 << 63)))).collect());
    let second = request(
        [1, 3, 1],
        [128, 1, 1],
        vec![
            int("m", 96),
            int("n", 32),
            int("k", 20),
            buf("A", list(96 * 20)),
            buf("Bt", list(32 * 20)),
            buf("C", list(96 * 32)),
            buf("D", ArgInit::Zeros(96 * 32)),
        ],
    );
    for simt in MODELS {
        let l = launch(&module, &LaunchRequest::default(), simt);
        assert_eq!(mnk(&l), (64, 64, 64));
        check_dgemm(&l);
        check_dgemm(&launch(&module, &second, simt));
    }
}

// ---------------------------------------------------------------- precision (the lab's error table)

/// The value of `codes` nearest to `x`, ties to the code with an even last bit: the
/// CVT rounding by brute force over every finite code (so beyond the largest it saturates).
fn nearest(x: f32, codes: impl Iterator<Item = f32>) -> f32 {
    let mut best: Option<(f64, bool, f32)> = None;
    for (i, v) in codes.enumerate() {
        if v.is_nan() {
            continue;
        }
        let distance = (f64::from(v) - f64::from(x)).abs();
        let even = i % 2 == 0;
        if best.is_none_or(|(d, e, _)| distance < d || (distance == d && even && !e)) {
            best = Some((distance, even, v));
        }
    }
    best.expect("finite codes").2
}

/// `asm/precision.s`: each row of its error table against the same computation in
/// Rust, with the inputs rounded by independent means (bit masks, `half`, brute force).
#[test]
fn precision_table() {
    let module = load("precision.s");
    for scale in [1.0f32, 4.0] {
        let req = request([1, 1, 1], [192, 1, 1], vec![float("scale", f64::from(scale))]);
        let l = launch(&module, &req, SimtModel::Its);
        let k = l.u32("k") as usize;
        let signed = |bytes: &[u8]| -> Vec<f32> { f32s(bytes).iter().map(|x| (2.0 * x - 1.0) * scale).collect() };
        let (a, bt) = (signed(l.input("A")), signed(l.input("Bt")));
        let tf32 = |x: f32| f32::from_bits((x.to_bits() + 0x1000) & !0x1FFF);
        let rounders: [&dyn Fn(f32) -> f32; 6] =
            [&|x| x, &tf32, &|x| half::bf16::from_f32(x).to_f32(), &|x| f16::from_f32(x).to_f32(), &|x| nearest(x, (0..=255u8).map(e4m3_value)), &|x| {
                nearest(x, (0..16u8).map(e2m1_value))
            }];
        let got = f32s(l.output("err"));
        for (w, round) in rounders.iter().enumerate() {
            let (ra, rb): (Vec<f32>, Vec<f32>) = (a.iter().map(|&x| round(x)).collect(), bt.iter().map(|&x| round(x)).collect());
            let (mut err, mut norm) = (0.0f64, 0.0f64);
            for i in 0..16 {
                for j in 0..16 {
                    let (mut d, mut r) = (0.0f32, 0.0f64);
                    for kk in 0..k {
                        d = ra[i * k + kk].mul_add(rb[j * k + kk], d);
                        r = f64::from(a[i * k + kk]).mul_add(f64::from(bt[j * k + kk]), r);
                    }
                    err += (f64::from(d) - r).powi(2);
                    norm += r * r;
                }
            }
            let want = (err / norm).sqrt();
            assert!((f64::from(got[w]) - want).abs() <= 1e-5 * want, "scale {scale}, row {w}: got {}, want {want}", got[w]);
        }
        // Each format's error sits below its unit roundoff, and the table is ordered by precision.
        assert!(got[0] < 2f32.powi(-20) && got[1] < 2f32.powi(-10) && got[2] < 2f32.powi(-7), "{got:?}");
        assert!(got[0] < got[1] && got[1] < got[2] && got[3] < got[2] && got[2] < got[4] && got[4] < got[5], "{got:?}");
    }
}
