//! Every MMA form against a plain reference matmul, bit for bit.

mod common;

use common::{FORMS, Form, LOWP_FORMS, reference_f64, run_f64};
use proptest::prelude::*;
use simt_isa::{MmaAcc, MmaIn, Opcode};
use simt_tensor::layout::{Operand, dims};

/// f16 bits: mostly values near 1 (so sums round), sometimes anything (NaN, inf, subnormals).
fn f16_bits() -> BoxedStrategy<u32> {
    prop_oneof![4 => (any::<bool>(), 12u32..=17, 0u32..0x400).prop_map(|(s, e, m)| u32::from(s) << 15 | e << 10 | m), 1 => any::<u16>().prop_map(u32::from)]
        .boxed()
}

fn bf16_bits() -> BoxedStrategy<u32> {
    prop_oneof![4 => (any::<bool>(), 124u32..=129, 0u32..0x80).prop_map(|(s, e, m)| u32::from(s) << 15 | e << 7 | m), 1 => any::<u16>().prop_map(u32::from)]
        .boxed()
}

fn f32_bits() -> BoxedStrategy<u32> {
    prop_oneof![4 => (any::<bool>(), 124u32..=129, 0u32..0x80_0000).prop_map(|(s, e, m)| u32::from(s) << 31 | e << 23 | m), 1 => any::<u32>()].boxed()
}

fn f64_bits() -> BoxedStrategy<u64> {
    prop_oneof![4 => (any::<bool>(), 1020u64..=1026, 0u64..1 << 52).prop_map(|(s, e, m)| u64::from(s) << 63 | e << 52 | m), 1 => any::<u64>()].boxed()
}

fn input_bits(form: Form) -> BoxedStrategy<u32> {
    match form.input {
        MmaIn::F16 => f16_bits(),
        MmaIn::BF16 => bf16_bits(),
        MmaIn::TF32 => f32_bits(),
        MmaIn::S8 | MmaIn::U8 | MmaIn::E4M3 | MmaIn::E5M2 => any::<u8>().prop_map(u32::from).boxed(),
        MmaIn::E2M1 | MmaIn::S4 | MmaIn::U4 => (0u32..16).boxed(),
        MmaIn::F64 => unreachable!("f64 forms have their own strategy"),
        MmaIn::E2M3 | MmaIn::E3M2 => unreachable!("6-bit elements come only in MMA.SCALED's bytes (tests/scaled.rs)"),
    }
}

fn acc_bits(form: Form) -> BoxedStrategy<u32> {
    match form.acc {
        MmaAcc::F32 => f32_bits(),
        MmaAcc::F16 => f16_bits(),
        MmaAcc::S32 => any::<u32>().boxed(),
        MmaAcc::F64 => unreachable!("f64 forms have their own strategy"),
    }
}

/// Random A, B, C for a dense form.
fn dense_case(form: Form) -> impl Strategy<Value = (Vec<u32>, Vec<u32>, Vec<u32>)> {
    (
        prop::collection::vec(input_bits(form), form.len(Operand::A)),
        prop::collection::vec(input_bits(form), form.len(Operand::B)),
        prop::collection::vec(acc_bits(form), form.len(Operand::C)),
    )
}

/// PTX's `mma.sync.aligned.m16n8k8` with TF32: K = 8, so every chain has 8 steps.
const M16N8K8_TF32: Form = Form { opcode: Opcode::MmaM16n8k8, acc: MmaAcc::F32, input: MmaIn::TF32 };

/// PTX's `mma.sync.aligned.m16n8k32` with 8-bit inputs: K = 32.
const M16N8K32: [Form; 4] = [
    Form { opcode: Opcode::MmaM16n8k32, acc: MmaAcc::S32, input: MmaIn::S8 },
    Form { opcode: Opcode::MmaM16n8k32, acc: MmaAcc::S32, input: MmaIn::U8 },
    Form { opcode: Opcode::MmaM16n8k32, acc: MmaAcc::F32, input: MmaIn::E4M3 },
    Form { opcode: Opcode::MmaM16n8k32, acc: MmaAcc::F32, input: MmaIn::E5M2 },
];

fn check_dense(form: Form, (a, b, c): (Vec<u32>, Vec<u32>, Vec<u32>)) -> Result<(), TestCaseError> {
    let (m, k) = dims(form.shape(), Operand::A);
    let n = dims(form.shape(), Operand::C).1;
    let got = form.run(&a, &b, &c, None).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(got, form.reference(&a, &b, &c, m, k, n));
    Ok(())
}

proptest! {
    #[test]
    fn m16n16k16_f32_f16(case in dense_case(FORMS[0])) { check_dense(FORMS[0], case)?; }
    #[test]
    fn m16n16k16_f32_bf16(case in dense_case(FORMS[1])) { check_dense(FORMS[1], case)?; }
    #[test]
    fn m16n16k16_f16_f16(case in dense_case(FORMS[2])) { check_dense(FORMS[2], case)?; }
    #[test]
    fn m16n16k16_s32_s8(case in dense_case(FORMS[3])) { check_dense(FORMS[3], case)?; }
    #[test]
    fn m16n16k16_s32_u8(case in dense_case(FORMS[4])) { check_dense(FORMS[4], case)?; }
    #[test]
    fn m16n16k16_f32_tf32(case in dense_case(LOWP_FORMS[0])) { check_dense(LOWP_FORMS[0], case)?; }
    #[test]
    fn m16n16k16_f32_e4m3(case in dense_case(LOWP_FORMS[1])) { check_dense(LOWP_FORMS[1], case)?; }
    #[test]
    fn m16n16k16_f32_e5m2(case in dense_case(LOWP_FORMS[2])) { check_dense(LOWP_FORMS[2], case)?; }
    #[test]
    fn m16n16k16_f32_e2m1(case in dense_case(LOWP_FORMS[3])) { check_dense(LOWP_FORMS[3], case)?; }
    #[test]
    fn m16n16k16_s32_s4(case in dense_case(LOWP_FORMS[4])) { check_dense(LOWP_FORMS[4], case)?; }
    #[test]
    fn m16n16k16_s32_u4(case in dense_case(LOWP_FORMS[5])) { check_dense(LOWP_FORMS[5], case)?; }
    #[test]
    fn m8n8k4_f64(
        a in prop::collection::vec(f64_bits(), 32),
        b in prop::collection::vec(f64_bits(), 32),
        c in prop::collection::vec(f64_bits(), 64),
    ) {
        prop_assert_eq!(run_f64(&a, &b, &c).map_err(|e| TestCaseError::fail(e.to_string()))?, reference_f64(&a, &b, &c));
    }
    #[test]
    fn m16n8k16_f32_f16(case in dense_case(FORMS[5])) { check_dense(FORMS[5], case)?; }
    #[test]
    fn m16n8k16_f32_bf16(case in dense_case(FORMS[6])) { check_dense(FORMS[6], case)?; }
    #[test]
    fn m16n8k8_f32_tf32(case in dense_case(M16N8K8_TF32)) { check_dense(M16N8K8_TF32, case)?; }
    #[test]
    fn m16n8k32_s32_s8(case in dense_case(M16N8K32[0])) { check_dense(M16N8K32[0], case)?; }
    #[test]
    fn m16n8k32_s32_u8(case in dense_case(M16N8K32[1])) { check_dense(M16N8K32[1], case)?; }
    #[test]
    fn m16n8k32_f32_e4m3(case in dense_case(M16N8K32[2])) { check_dense(M16N8K32[2], case)?; }
    #[test]
    fn m16n8k32_f32_e5m2(case in dense_case(M16N8K32[3])) { check_dense(M16N8K32[3], case)?; }

    /// Sparse forms against the dense K = 32 product of the decompressed A.
    /// Inputs are finite and non-zero, where skipping a pruned zero and adding
    /// it are the same (see `pruned_positions_never_contribute` for the rest).
    #[test]
    fn sp_m16n16k32(
        bf in any::<bool>(),
        kept in prop::collection::vec(any::<u16>(), 256),
        pairs in prop::collection::vec(0usize..6, 128),
        b in prop::collection::vec(any::<u16>(), 512),
        c in prop::collection::vec(f32_bits(), 256),
    ) {
        let form = if bf { FORMS[8] } else { FORMS[7] };
        // Finite non-zero values of the input type from arbitrary bits.
        let finite = |x: u16| if bf { u32::from(x & 0x83FF | 0x3C00) } else { u32::from(x & 0x87FF | 0x3000) };
        let kept: Vec<u32> = kept.into_iter().map(finite).collect();
        let b: Vec<u32> = b.into_iter().map(finite).collect();
        let c: Vec<u32> = c.into_iter().map(|x| if f32::from_bits(x).is_finite() { x } else { 0x3F80_0000 }).collect();
        const PAIRS: [(u32, u32); 6] = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
        let mut e = [0u32; 32];
        let mut dense = vec![0u32; 16 * 32];
        for (group, &p) in pairs.iter().enumerate() {
            // Group `group` of the 128: row r, half h, group q of lane 2r + h.
            let (r, h, q) = (group / 8, group / 4 % 2, group % 4);
            let (first, second) = PAIRS[p];
            e[2 * r + h] |= (first | second << 2) << (4 * q);
            for (slot, col) in [first, second].into_iter().enumerate() {
                dense[r * 32 + 16 * h + 4 * q + col as usize] = kept[r * 16 + 8 * h + 2 * q + slot];
            }
        }
        let got = form.run(&kept, &b, &c, Some(&e)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(got, form.reference(&dense, &b, &c, 16, 32, 16));
    }

    /// Whatever the registers hold, `mma` returns a result or an error, never panics.
    #[test]
    fn any_register_contents_are_handled(
        form in 0usize..FORMS.len() + LOWP_FORMS.len(),
        words in prop::collection::vec(any::<u32>(), 8 * 32 * 3 + 32),
    ) {
        let form = if form < FORMS.len() { FORMS[form] } else { LOWP_FORMS[form - FORMS.len()] };
        let regs = |n: usize, from: usize| -> Vec<[u32; 32]> {
            (0..n).map(|g| std::array::from_fn(|l| words[from + g * 32 + l])).collect()
        };
        let (a, b, c) = (regs(form.regs(Operand::A), 0), regs(form.regs(Operand::B), 256), regs(form.regs(Operand::C), 512));
        let e: [u32; 32] = std::array::from_fn(|l| words[768 + l]);
        let mut d = vec![[0; 32]; c.len()];
        let result = simt_tensor::mma(form.opcode, form.acc, form.input, false, &a, &b, &c, (form.opcode == Opcode::MmaSp).then_some(&e), &mut d);
        prop_assert!(result.is_ok() || form.opcode == Opcode::MmaSp);
    }
}

#[test]
fn pruned_positions_never_contribute() {
    // B rows that pruned columns select hold infinity: a dense chain would add
    // 0 * inf = NaN, the sparse chain must not see them.
    let form = FORMS[7];
    let one = u32::from(half::f16::ONE.to_bits());
    let inf = u32::from(half::f16::INFINITY.to_bits());
    let kept = vec![one; 256];
    // Every group keeps columns 0 and 1.
    let e = [0x4444; 32];
    let b: Vec<u32> = (0..512).map(|i| if (i / 16) % 4 < 2 { one } else { inf }).collect();
    let c = vec![(-0.0f32).to_bits(); 256];
    let d = form.run(&kept, &b, &c, Some(&e)).unwrap();
    assert!(d.iter().all(|&x| f32::from_bits(x) == 16.0), "{d:?}");
}

#[test]
fn nan_results_are_canonical() {
    let nan_f16 = 0x7E01; // a NaN with a payload: the result still is the canonical one
    for form in [FORMS[0], FORMS[2], FORMS[5]] {
        let a = vec![nan_f16; form.len(Operand::A)];
        let b = vec![0x3C00; form.len(Operand::B)];
        let c = vec![0; form.len(Operand::C)];
        let d = form.run(&a, &b, &c, None).unwrap();
        let canonical = if form.acc == MmaAcc::F16 { 0x7FFF } else { 0x7FFF_FFFF };
        assert!(d.iter().all(|&x| x == canonical), "{form:?}: {d:x?}");
    }
}

#[test]
fn f16_accumulator_rounds_once_at_the_end() {
    // 1 + 16 * 2^-12 in f32 is exact; rounding each step to f16 (ulp 2^-10 at 1)
    // would have lost every 2^-12.
    let form = FORMS[2];
    let a = vec![u32::from(half::f16::from_f32(2f32.powi(-12)).to_bits()); 256];
    let b = vec![0x3C00; 256];
    let c = vec![0x3C00; 256];
    let d = form.run(&a, &b, &c, None).unwrap();
    assert!(d.iter().all(|&x| x == u32::from(half::f16::from_f32(1.0 + 16.0 * 2f32.powi(-12)).to_bits())));
}

#[test]
fn integer_accumulators_wrap() {
    let form = FORMS[4];
    let a = vec![255; 256];
    let b = vec![255; 256];
    let c = vec![i32::MAX as u32; 256];
    let d = form.run(&a, &b, &c, None).unwrap();
    assert!(d.iter().all(|&x| x == (i32::MAX.wrapping_add(16 * 255 * 255)) as u32));
}

#[test]
fn m16n8k32_satfinite_clamps_the_exact_sum() {
    // (input, every A element, every B element, every C element, D wrapping, D with .SAT):
    // each D element is C plus 32 equal products, summed exactly.
    let max = i32::MAX;
    let cases: [(MmaIn, u32, u32, i32, i32, i32); 5] = [
        (MmaIn::S8, 3, 0xFE, 5, 5 - 32 * 6, 5 - 32 * 6),
        (MmaIn::S8, 0x7F, 0x7F, max - 10, (max - 10).wrapping_add(32 * 127 * 127), max),
        (MmaIn::S8, 0x80, 0x7F, i32::MIN + 10, (i32::MIN + 10).wrapping_sub(32 * 128 * 127), i32::MIN),
        (MmaIn::U8, 0xFF, 0xFF, max - 10, (max - 10).wrapping_add(32 * 255 * 255), max),
        (MmaIn::S8, 0x80, 0x80, max - 32 * 16384, max, max),
    ];
    for (input, a, b, c, wrapped, clamped) in cases {
        let form = Form { opcode: Opcode::MmaM16n8k32, acc: MmaAcc::S32, input };
        let (fa, fb, fc) = (vec![[a * 0x0101_0101; 32]; 4], vec![[b * 0x0101_0101; 32]; 2], vec![[c as u32; 32]; 4]);
        for (sat, want) in [(false, wrapped), (true, clamped)] {
            let mut d = vec![[0; 32]; 4];
            simt_tensor::mma(form.opcode, form.acc, form.input, sat, &fa, &fb, &fc, None, &mut d).unwrap();
            assert!(d.iter().flatten().all(|&x| x as i32 == want), "{input} {a:#x} {b:#x} {c} sat {sat}: {} not {want}", d[0][0] as i32);
        }
    }
    // Only the integer m16n8k32 forms have .SAT.
    let r = |n| vec![[0u32; 32]; n];
    let err = simt_tensor::mma(Opcode::MmaM16n8k32, MmaAcc::F32, MmaIn::E4M3, true, &r(4), &r(2), &r(4), None, &mut r(4)).unwrap_err();
    assert_eq!(err.message, "MMA.M16N8K32.F32.E4M3 has no .SAT form");
}

#[test]
fn wrong_operands_are_errors() {
    let r = |n| vec![[0u32; 32]; n];
    let mut d = r(8);
    let err = simt_tensor::mma(Opcode::Mma, MmaAcc::F32, MmaIn::F16, false, &r(3), &r(4), &r(8), None, &mut d).unwrap_err();
    assert_eq!(err.to_string(), "lane 0: operand a has 3 registers; MMA.M16N16K16.F32.F16 takes 4");
    let err = simt_tensor::mma(Opcode::Mma, MmaAcc::F16, MmaIn::BF16, false, &r(4), &r(4), &r(4), None, &mut d).unwrap_err();
    assert_eq!(err.message, "MMA.M16N16K16 has no .F16.BF16 form");
    let err = simt_tensor::mma(Opcode::MmaSp, MmaAcc::F32, MmaIn::F16, false, &r(4), &r(8), &r(8), None, &mut d).unwrap_err();
    assert_eq!(err.message, "MMA.SP.M16N16K32 needs metadata operand e");
    assert!(simt_tensor::mma(Opcode::Fadd, MmaAcc::F32, MmaIn::F16, false, &r(4), &r(4), &r(8), None, &mut d).is_err());
}

#[test]
fn macs_count_useful_and_dense_work() {
    use simt_isa::{Instruction, WgmmaSrc, WgmmaTrans, mods};
    let macs = |opcode| simt_tensor::macs(&Instruction::new(opcode));
    assert_eq!(macs(Opcode::Mma), (4096, 4096));
    assert_eq!(macs(Opcode::MmaM16n8k16), (2048, 2048));
    assert_eq!(macs(Opcode::MmaSp), (4096, 8192));
    assert_eq!(macs(Opcode::Fadd), (0, 0));
    // A warp's share of an m64n64k8 TF32 warpgroup MMA: eight m16n8k8 slices.
    let mut wgmma = Instruction::new(Opcode::Wgmma);
    wgmma.form = simt_isa::Form::Wgmma(mods::Wgmma { src: WgmmaSrc::Ss, acc: MmaAcc::F32, input: MmaIn::TF32, trans: WgmmaTrans::Nn });
    wgmma.operands[3] = simt_isa::Operand::Imm(64);
    assert_eq!(simt_tensor::macs(&wgmma), (16 * 64 * 8, 16 * 64 * 8));
}
