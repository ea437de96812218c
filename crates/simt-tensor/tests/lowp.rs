//! The section 9 MMA forms: the conformance cases `mma_tf32`, `mma_e4m3`,
//! `mma_e5m2`, `mma_e2m1`, `mma_s4` and `mma_f64` run directly on `mma`, and
//! the chain's behaviour on NaN, infinity, overflow, subnormals, signed zeros
//! and order, each checked against a value worked out by hand.

mod common;

use common::{Form, LOWP_FORMS, case_file, expected_bin, npy, reference_f64, run_f64, words};
use simt_isa::{MmaAcc, MmaIn, Opcode};
use simt_tensor::layout::Operand;

const TF32: Form = LOWP_FORMS[0];
const E4M3: Form = LOWP_FORMS[1];
const E5M2: Form = LOWP_FORMS[2];
const E2M1: Form = LOWP_FORMS[3];
const S4: Form = LOWP_FORMS[4];
const U4: Form = LOWP_FORMS[5];

/// The fragment a kernel builds by loading `regs` consecutive words per lane:
/// lane `q` takes words `regs * q ..` (every `mma_*.s` loads a, b, c this way).
fn kernel_fragment(words: &[u32], regs: usize) -> Vec<[u32; 32]> {
    (0..regs).map(|g| std::array::from_fn(|q| words[regs * q + g])).collect()
}

/// The elements of a row-major file of `bits`-wide codes (4-bit: first in the low nibble).
fn elements(bytes: &[u8], bits: usize) -> Vec<u32> {
    match bits {
        4 => bytes.iter().flat_map(|&b| [u32::from(b & 15), u32::from(b >> 4)]).collect(),
        8 => bytes.iter().map(|&b| u32::from(b)).collect(),
        _ => words(bytes),
    }
}

/// Row-major K x N from the column-major `bt[n * k_dim + k] = B[k][n]`.
fn transpose<T: Copy>(bt: &[T], k_dim: usize, n_dim: usize) -> Vec<T> {
    (0..k_dim * n_dim).map(|i| bt[(i % n_dim) * k_dim + i / n_dim]).collect()
}

/// One `MMA.M16N16K16` case: D from the fragments the kernel loads, checked
/// against `d.bin` and against the reference on the row-major matrices.
fn check_m16n16k16_case(name: &str, kernel: &str, form: Form, bits: usize) {
    let (a_bytes, bt_bytes) = (case_file(name, "a.bin"), case_file(name, "bt.bin"));
    let (descr, c_bytes) = npy(name, "c.npy");
    assert!(matches!(descr.as_str(), "<u4" | "<i4"), "{name}/c.npy: {descr}");
    let c = words(&c_bytes);
    let (fa, fb, fc) =
        (kernel_fragment(&words(&a_bytes), form.regs(Operand::A)), kernel_fragment(&words(&bt_bytes), form.regs(Operand::B)), kernel_fragment(&c, 8));
    let mut fd = vec![[0; 32]; 8];
    simt_tensor::mma(form.opcode, form.acc, form.input, false, &fa, &fb, &fc, None, &mut fd).unwrap();
    let d: Vec<u32> = (0..256).map(|i| fd[i % 8][i / 8]).collect();
    let expected = expected_bin(name, kernel, "d.bin");
    for (i, (got, want)) in d.iter().zip(&expected).enumerate() {
        assert_eq!(got, want, "{name} {kernel}: D[{}][{}]", i / 16, i % 16);
    }
    let (a, b) = (elements(&a_bytes, bits), transpose(&elements(&bt_bytes, bits), 16, 16));
    assert_eq!(form.reference(&a, &b, &c, 16, 16, 16), expected, "{name} {kernel}: reference");
    assert_eq!(form.run(&a, &b, &c, None).unwrap(), expected, "{name} {kernel}: layout::pack");
}

#[test]
fn mma_tf32_case() {
    check_m16n16k16_case("mma_tf32", "mma_tf32.s", TF32, 32);
}

#[test]
fn mma_e4m3_case() {
    check_m16n16k16_case("mma_e4m3", "mma_e4m3.s", E4M3, 8);
}

#[test]
fn mma_e5m2_case() {
    check_m16n16k16_case("mma_e5m2", "mma_e5m2.s", E5M2, 8);
}

#[test]
fn mma_e2m1_case() {
    check_m16n16k16_case("mma_e2m1", "mma_e2m1.s", E2M1, 4);
}

#[test]
fn mma_s4_and_u4_cases() {
    check_m16n16k16_case("mma_s4", "mma_s4.s", S4, 4);
    check_m16n16k16_case("mma_s4", "mma_u4.s", U4, 4);
}

#[test]
fn mma_f64_case() {
    let f64_words = |file: &str| {
        let (descr, bytes) = npy("mma_f64", file);
        assert_eq!(descr, "<f8", "{file}");
        words(&bytes)
    };
    let (a, bt, c) = (f64_words("a.npy"), f64_words("bt.npy"), f64_words("c.npy"));
    // mma_f64.s: lane l loads a[l] into R0:R1, bt[l] into R2:R3 and c[2l], c[2l + 1] into R4..R7.
    let (fa, fb, fc) = (kernel_fragment(&a, 2), kernel_fragment(&bt, 2), kernel_fragment(&c, 4));
    let mut fd = vec![[0; 32]; 4];
    simt_tensor::mma(Opcode::MmaM8n8k4, MmaAcc::F64, MmaIn::F64, false, &fa, &fb, &fc, None, &mut fd).unwrap();
    let d: Vec<u32> = (0..128).map(|i| fd[i % 4][i / 4]).collect();
    let expected = expected_bin("mma_f64", "mma_f64.s", "d.bin");
    assert_eq!(d, expected);
    let pairs = |w: &[u32]| -> Vec<u64> { w.chunks_exact(2).map(|p| u64::from(p[0]) | u64::from(p[1]) << 32).collect() };
    let (a, b, c) = (pairs(&a), transpose(&pairs(&bt), 4, 8), pairs(&c));
    assert_eq!(reference_f64(&a, &b, &c), pairs(&expected));
    assert_eq!(run_f64(&a, &b, &c).unwrap(), pairs(&expected));
}

/// D of a form whose A is `a(i, k)`, B is `b(k, j)` and C is `c(i, j)`, all raw bits.
fn run(form: Form, a: impl Fn(usize, usize) -> u32, b: impl Fn(usize, usize) -> u32, c: impl Fn(usize, usize) -> u32) -> Vec<u32> {
    let matrix = |f: &dyn Fn(usize, usize) -> u32| -> Vec<u32> { (0..256).map(|i| f(i / 16, i % 16)).collect() };
    let (a, b, c) = (matrix(&a), matrix(&b), matrix(&c));
    let d = form.run(&a, &b, &c, None).unwrap();
    assert_eq!(d, form.reference(&a, &b, &c, 16, 16, 16), "{form:?}: reference");
    d
}

const ONE: u32 = 0x3F80_0000;

#[test]
fn tf32_ignores_the_low_13_bits() {
    // 1 + 2^-11 in every element would give 16 * (1 + 2^-10 + 2^-22); read as 1 it gives 16.
    let d = run(TF32, |_, _| 0x3F80_1000, |_, _| 0x3F80_1FFF, |_, _| 0);
    assert!(d.iter().all(|&x| x == 16f32.to_bits()), "{d:x?}");
    // A NaN whose payload lies only in the ignored bits reads as infinity...
    let d = run(TF32, |i, k| if (i, k) == (0, 0) { 0x7F80_1234 } else { 0 }, |_, _| ONE, |_, _| 0);
    assert!(d[..16].iter().all(|&x| x == f32::INFINITY.to_bits()), "{:x?}", &d[..16]);
    assert!(d[16..].iter().all(|&x| x == 0));
    // ...and infinity times zero is the canonical NaN.
    let d = run(TF32, |i, k| if (i, k) == (0, 0) { 0x7F80_1234 } else { 0 }, |_, _| 0, |_, _| 0);
    assert!(d[..16].iter().all(|&x| x == 0x7FFF_FFFF), "{:x?}", &d[..16]);
}

#[test]
fn the_chain_adds_in_increasing_k() {
    // 2^24, then fifteen 1s that each round away (ties to even), then -2^24: 0.
    // Any other order keeps some of the 1s.
    let a = |_, k| match k {
        0 => 2f32.powi(24).to_bits(),
        15 => (-2f32.powi(24)).to_bits(),
        _ => ONE,
    };
    let d = run(TF32, a, |_, _| ONE, |_, _| 0);
    assert!(d.iter().all(|&x| x == 0), "{d:x?}");
}

#[test]
fn overflow_in_the_chain_is_infinity() {
    // The largest TF32 twice overflows; subtracting it again leaves infinity.
    let max = 0x7F7F_E000;
    let a = |_, k| match k {
        0 | 1 => max,
        2 => max | 0x8000_0000,
        _ => 0,
    };
    let d = run(TF32, a, |_, _| ONE, |_, _| 0);
    assert!(d.iter().all(|&x| x == f32::INFINITY.to_bits()), "{d:x?}");
    // A single product past f32's range overflows too (2^100 * 2^100).
    let big = 2f32.powi(100).to_bits();
    let d = run(TF32, |_, k| if k == 0 { big } else { 0 }, |_, _| big | 0x8000_0000, |_, _| ONE);
    assert!(d.iter().all(|&x| x == f32::NEG_INFINITY.to_bits()), "{d:x?}");
    // E5M2's largest products cannot overflow, but an infinite C stays infinite.
    let d = run(E5M2, |_, _| 0x7B, |_, _| 0x7B, |_, _| f32::INFINITY.to_bits());
    assert!(d.iter().all(|&x| x == f32::INFINITY.to_bits()));
    let d = run(E5M2, |_, _| 0x7B, |_, _| 0xFB, |_, _| 0);
    assert!(d.iter().all(|&x| x == (-16.0 * 57344f32 * 57344.0).to_bits()));
}

#[test]
fn nan_and_infinity_codes() {
    // E4M3 has no infinity: 0x7F and 0xFF are NaN.
    for nan in [0x7F, 0xFF] {
        let d = run(E4M3, |i, k| if (i, k) == (3, 5) { nan } else { 0x38 }, |_, _| 0x38, |_, _| 0);
        for (x, i) in d.iter().zip(0..) {
            assert_eq!(*x, if i / 16 == 3 { 0x7FFF_FFFF } else { 16f32.to_bits() }, "E4M3 {nan:#x}: D[{}][{}]", i / 16, i % 16);
        }
    }
    // E5M2: 0x7C is infinity, 0x7D .. 0x7F NaN; infinity times zero is NaN.
    let d = run(E5M2, |i, k| if (i, k) == (0, 0) { 0x7C } else { 0 }, |_, j| if j == 0 { 0 } else { 0x3C }, |_, _| 0);
    assert_eq!(d[0], 0x7FFF_FFFF);
    assert!(d[1..16].iter().all(|&x| x == f32::INFINITY.to_bits()));
    let d = run(E5M2, |_, _| 0x7E, |_, _| 0x3C, |_, _| 0);
    assert!(d.iter().all(|&x| x == 0x7FFF_FFFF));
    // +inf and -inf in one chain: NaN.
    let d = run(E5M2, |_, k| [0x7C, 0xFC][k % 2], |_, _| 0x3C, |_, _| 0);
    assert!(d.iter().all(|&x| x == 0x7FFF_FFFF));
    // A NaN in C whatever the products: the canonical NaN.
    let d = run(E2M1, |_, _| 0x7, |_, _| 0x7, |_, _| 0xFFC0_0001);
    assert!(d.iter().all(|&x| x == 0x7FFF_FFFF));
}

#[test]
fn subnormal_inputs_and_results_are_kept() {
    // E4M3's smallest subnormal squared, 16 times: 16 * 2^-18 = 2^-14.
    let d = run(E4M3, |_, _| 0x01, |_, _| 0x01, |_, _| 0);
    assert!(d.iter().all(|&x| x == 2f32.powi(-14).to_bits()));
    // E5M2's: -16 * 2^-32.
    let d = run(E5M2, |_, _| 0x01, |_, _| 0x81, |_, _| 0);
    assert!(d.iter().all(|&x| x == (-2f32.powi(-28)).to_bits()));
    // f32 subnormal TF32 inputs give subnormal results, exactly.
    let d = run(TF32, |_, k| if k == 0 { 0x0000_6000 } else { 0 }, |_, _| 0x4000_0000, |_, _| 0);
    assert!(d.iter().all(|&x| x == 0x0000_C000), "{d:x?}");
}

#[test]
fn signed_zeros() {
    // -0 * 1 added to -0 stays -0; a +0 product makes it +0.
    let d = run(E4M3, |_, _| 0x80, |_, _| 0x38, |_, _| 0x8000_0000);
    assert!(d.iter().all(|&x| x == 0x8000_0000));
    let d = run(E2M1, |_, k| if k == 7 { 0x0 } else { 0x8 }, |_, _| 0x2, |_, _| 0x8000_0000);
    assert!(d.iter().all(|&x| x == 0));
}

#[test]
fn e2m1_products_are_exact() {
    // 6 * 6 * 16 + 0.5 * 0.5 ... every E2M1 product is exact in f32; row i multiplies code i % 16.
    let d = run(E2M1, |i, _| (i % 16) as u32, |_, _| 0x7, |_, _| 0);
    let values: [f32; 16] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0];
    for (x, i) in d.iter().zip(0..) {
        assert_eq!(*x, (16.0 * 6.0 * values[i / 16] + 0.0).to_bits(), "D[{}][{}]", i / 16, i % 16);
    }
}

#[test]
fn four_bit_integers_wrap() {
    let d = run(S4, |_, _| 0x8, |_, _| 0x8, |_, _| i32::MAX as u32);
    assert!(d.iter().all(|&x| x == i32::MAX.wrapping_add(16 * 64) as u32));
    let d = run(S4, |_, _| 0x8, |_, _| 0x7, |_, _| 0);
    assert!(d.iter().all(|&x| x == (-16 * 56) as u32));
    let d = run(U4, |_, _| 0xF, |_, _| 0xF, |_, _| i32::MAX as u32);
    assert!(d.iter().all(|&x| x == i32::MAX.wrapping_add(16 * 225) as u32));
}

#[test]
fn f64_chain_is_fused_and_canonical() {
    let bits = f64::to_bits;
    let c_of = |v: f64| vec![bits(v); 64];
    // (1 + 2^-27)^2 - (1 + 2^-26) = 2^-54 only when the product is not rounded first.
    let x = 1.0 + 2f64.powi(-27);
    let a: Vec<u64> = (0..32).map(|i| if i % 4 == 0 { bits(x) } else { 0 }).collect();
    let b: Vec<u64> = (0..32).map(|i| if i / 8 == 0 { bits(x) } else { 0 }).collect();
    let d = run_f64(&a, &b, &c_of(-(1.0 + 2f64.powi(-26)))).unwrap();
    assert!(d.iter().all(|&v| v == bits(2f64.powi(-54))), "{d:x?}");
    // Overflow to infinity, NaN canonical, subnormals kept.
    let d = run_f64(&vec![bits(f64::MAX); 32], &vec![bits(1.0); 32], &c_of(0.0)).unwrap();
    assert!(d.iter().all(|&v| v == bits(f64::INFINITY)));
    let d = run_f64(&vec![bits(f64::INFINITY); 32], &vec![0; 32], &c_of(0.0)).unwrap();
    assert!(d.iter().all(|&v| v == 0x7FFF_FFFF_FFFF_FFFF));
    // From the smallest subnormal, adding half of it ties to even each time: 1.5 -> 2, 2.5 -> 2.
    let tiny = f64::from_bits(1);
    let d = run_f64(&vec![bits(tiny); 32], &vec![bits(0.5); 32], &c_of(tiny)).unwrap();
    assert!(d.iter().all(|&v| v == bits(2.0 * tiny)), "{d:x?}");
}

#[test]
fn wrong_operands_of_new_forms_are_errors() {
    let r = |n| vec![[0u32; 32]; n];
    let mut d = r(8);
    let err = simt_tensor::mma(Opcode::Mma, MmaAcc::F32, MmaIn::TF32, false, &r(4), &r(8), &r(8), None, &mut d).unwrap_err();
    assert_eq!(err.message, "operand a has 4 registers; MMA.M16N16K16.F32.TF32 takes 8");
    let err = simt_tensor::mma(Opcode::Mma, MmaAcc::S32, MmaIn::S4, false, &r(1), &r(2), &r(8), None, &mut d).unwrap_err();
    assert_eq!(err.message, "operand b has 2 registers; MMA.M16N16K16.S32.S4 takes 1");
    let mut d4 = r(4);
    let err = simt_tensor::mma(Opcode::MmaM8n8k4, MmaAcc::F64, MmaIn::F64, false, &r(2), &r(2), &r(2), None, &mut d4).unwrap_err();
    assert_eq!(err.message, "operand c has 2 registers; MMA.M8N8K4.F64.F64 takes 4");
    for (opcode, acc, input) in [
        (Opcode::MmaM8n8k4, MmaAcc::F32, MmaIn::F16),
        (Opcode::Mma, MmaAcc::F64, MmaIn::F64),
        (Opcode::Mma, MmaAcc::F32, MmaIn::S4),
        (Opcode::Mma, MmaAcc::S32, MmaIn::E4M3),
        (Opcode::MmaM16n8k16, MmaAcc::F32, MmaIn::TF32),
        (Opcode::MmaSp, MmaAcc::F32, MmaIn::E4M3),
    ] {
        let err = simt_tensor::mma(opcode, acc, input, false, &r(8), &r(8), &r(8), None, &mut d).unwrap_err();
        assert_eq!(err.message, format!("{opcode} has no .{acc}.{input} form"));
    }
}

#[test]
fn macs_of_m8n8k4() {
    assert_eq!(simt_tensor::macs(&simt_isa::Instruction::new(Opcode::MmaM8n8k4)), (256, 256));
}
