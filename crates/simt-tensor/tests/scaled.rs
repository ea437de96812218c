//! `MMA.SCALED` (`simt_tensor::scaled_mma`) against other code: with unit scales, the 8-bit kind
//! of one type is `MMA.M16N8K32` bit for bit, and of mixed types the chain of their products
//! (any of its five types each, read from their bytes);
//! with any scales, each element of D is an f32 FMA chain over the unpacked, scaled matrices
//! (every scaled element exact in f32, each step rounded once).

use proptest::prelude::*;
use simt_isa::{MmaAcc, MmaIn, MmaScaledKind, Opcode};
use simt_tensor::formats::MiniFloat;
use simt_tensor::layout::{Operand, Shape, unpack};

/// The element types `MMA.SCALED.MXF8F6F4` takes, each in a byte.
const MXF8F6F4_TYPES: [MmaIn; 5] = [MmaIn::E4M3, MmaIn::E5M2, MmaIn::E3M2, MmaIn::E2M3, MmaIn::E2M1];

/// `n` registers of a fragment from `words`, 32 lanes each.
fn regs(words: &[u32], n: usize) -> Vec<[u32; 32]> {
    (0..n).map(|g| std::array::from_fn(|l| words[g * 32 + l])).collect()
}

/// The reference D: element (m, n) is `c`'s, then one f32 FMA a k of the scaled elements
/// `a(m, k)` and `b(k, n)`, in increasing k; a NaN canonical.
fn fma_chains(c: &[f32], k: usize, a: impl Fn(usize, usize) -> f32, b: impl Fn(usize, usize) -> f32) -> Vec<u32> {
    (0..128)
        .map(|at| {
            let (m, n) = (at / 8, at % 8);
            let acc = (0..k).fold(c[at], |acc, k| a(m, k).mul_add(b(k, n), acc));
            if acc.is_nan() { 0x7FFF_FFFF } else { acc.to_bits() }
        })
        .collect()
}

/// Scale codes that keep every scaled E2M1 element exact in f32: E8M0 2^-20 .. 2^20, or any
/// finite E4M3.
fn scale_code(e4m3: bool) -> BoxedStrategy<u32> {
    if e4m3 { (0u32..256).prop_filter("finite", |c| c & 0x7F != 0x7F).boxed() } else { (107u32..=147).boxed() }
}

proptest! {
    #[test]
    fn unit_scales_make_the_8_bit_kind_mma_m16n8k32(e5m2 in any::<bool>(), words in prop::collection::vec(any::<u32>(), 10 * 32)) {
        let input = if e5m2 { MmaIn::E5M2 } else { MmaIn::E4M3 };
        let (a, b, c) = (regs(&words, 4), regs(&words[128..], 2), regs(&words[192..], 4));
        let ones = [0x7F7F_7F7F; 32];
        let (mut want, mut got) = (vec![[0; 32]; 4], vec![[0; 32]; 4]);
        simt_tensor::mma(Opcode::MmaM16n8k32, MmaAcc::F32, input, false, &a, &b, &c, None, &mut want).unwrap();
        simt_tensor::scaled_mma(MmaScaledKind::Mxf8f6f4, (input, input), 0, &a, &b, &c, (&ones, &ones), &mut got).unwrap();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn mixed_8_bit_types_read_each_operand_as_its_own(e5m2_a in any::<bool>(), words in prop::collection::vec(any::<u32>(), 6 * 32)) {
        let (a_type, b_type, a_format, b_format) =
            if e5m2_a { (MmaIn::E5M2, MmaIn::E4M3, MiniFloat::E5M2, MiniFloat::E4M3) } else { (MmaIn::E4M3, MmaIn::E5M2, MiniFloat::E4M3, MiniFloat::E5M2) };
        let (a, b) = (regs(&words, 4), regs(&words[128..], 2));
        let zero = simt_tensor::layout::pack(Shape::M16N8K32, Operand::C, 1, &[0; 128]);
        let ones = [0x7F7F_7F7F; 32];
        let mut got = vec![[0; 32]; 4];
        simt_tensor::scaled_mma(MmaScaledKind::Mxf8f6f4, (a_type, b_type), 0, &a, &b, &zero, (&ones, &ones), &mut got).unwrap();
        let (am, bm) = (unpack(Shape::M16N8K32, Operand::A, 4, &a), unpack(Shape::M16N8K32, Operand::B, 4, &b));
        let want = fma_chains(&[0.0; 128], 32, |m, k| a_format.decode(am[m * 32 + k]), |k, n| b_format.decode(bm[k * 8 + n]));
        prop_assert_eq!(unpack(Shape::M16N8K32, Operand::C, 1, &got), want);
    }

    #[test]
    fn any_8_6_or_4_bit_types_read_their_bytes(
        a_type in prop::sample::select(MXF8F6F4_TYPES.to_vec()),
        b_type in prop::sample::select(MXF8F6F4_TYPES.to_vec()),
        words in prop::collection::vec(any::<u32>(), 6 * 32),
        c in prop::collection::vec(-1.0e4f32..1.0e4, 128),
        scales in prop::collection::vec(scale_code(false), 2 * 32),
    ) {
        let sa: [u32; 32] = std::array::from_fn(|l| scales[l]);
        let sb: [u32; 32] = std::array::from_fn(|l| scales[32 + l]);
        let (a, b) = (regs(&words, 4), regs(&words[128..], 2));
        let c_bits: Vec<u32> = c.iter().map(|x| x.to_bits()).collect();
        let c_frag = simt_tensor::layout::pack(Shape::M16N8K32, Operand::C, 1, &c_bits);
        let mut got = vec![[0; 32]; 4];
        simt_tensor::scaled_mma(MmaScaledKind::Mxf8f6f4, (a_type, b_type), 0, &a, &b, &c_frag, (&sa, &sb), &mut got).unwrap();
        // The reference: each element its own byte, an E2M1 in bits 5-2, a 6-bit one in bits
        // 5-0, whatever the other bits hold; one K block, scale byte 0.
        let element = |ty: MmaIn, byte: u32| match ty {
            MmaIn::E4M3 => MiniFloat::E4M3.decode(byte),
            MmaIn::E5M2 => MiniFloat::E5M2.decode(byte),
            MmaIn::E2M3 => MiniFloat::E2M3.decode(byte & 0x3F),
            MmaIn::E3M2 => MiniFloat::E3M2.decode(byte & 0x3F),
            _ => MiniFloat::E2M1.decode((byte >> 2) & 0xF),
        };
        let scale = |word: u32| simt_tensor::scale_value(word & 0xFF, false) as f32;
        let (am, bm) = (unpack(Shape::M16N8K32, Operand::A, 4, &a), unpack(Shape::M16N8K32, Operand::B, 4, &b));
        let want = fma_chains(
            &c,
            32,
            |m, k| element(a_type, am[m * 32 + k]) * scale(sa[4 * (m % 8) + m / 8]),
            |k, n| element(b_type, bm[k * 8 + n]) * scale(sb[4 * n]),
        );
        prop_assert_eq!(unpack(Shape::M16N8K32, Operand::C, 1, &got), want);
    }

    #[test]
    fn fp4_is_a_chain_of_fmas_of_scaled_elements(
        kind in prop::sample::select(vec![MmaScaledKind::Mxf4, MmaScaledKind::Mxf4nvf4, MmaScaledKind::Nvf4]),
        words in prop::collection::vec(any::<u32>(), 6 * 32),
        c in prop::collection::vec(-1.0e4f32..1.0e4, 128),
        scales in prop::collection::vec(scale_code(false), 2 * 32 * 4),
        e4m3_scales in prop::collection::vec(scale_code(true), 2 * 32 * 4),
    ) {
        let e4m3 = kind == MmaScaledKind::Nvf4;
        let codes = if e4m3 { &e4m3_scales } else { &scales };
        let word = |i: usize| codes[4 * i..4 * i + 4].iter().enumerate().fold(0u32, |w, (b, &code)| w | code << (8 * b));
        let sa: [u32; 32] = std::array::from_fn(word);
        let sb: [u32; 32] = std::array::from_fn(|l| word(32 + l));
        let (a, b) = (regs(&words, 4), regs(&words[128..], 2));
        let c_bits: Vec<u32> = c.iter().map(|x| x.to_bits()).collect();
        let c_frag = simt_tensor::layout::pack(Shape::M16N8K64, Operand::C, 1, &c_bits);
        let mut got = vec![[0; 32]; 4];
        simt_tensor::scaled_mma(kind, (MmaIn::E2M1, MmaIn::E2M1), 0, &a, &b, &c_frag, (&sa, &sb), &mut got).unwrap();
        // The reference: row m's scales in lane 4 (m % 8) + m / 8 of sa, column n's in lane 4 n of
        // sb, K block q in byte q.
        let block = if kind == MmaScaledKind::Mxf4 { 32 } else { 16 };
        let value = |word: u32, q: usize| simt_tensor::scale_value((word >> (8 * q)) & 0xFF, e4m3) as f32;
        let (am, bm) = (unpack(Shape::M16N8K64, Operand::A, 8, &a), unpack(Shape::M16N8K64, Operand::B, 8, &b));
        let want = fma_chains(
            &c,
            64,
            |m, k| MiniFloat::E2M1.decode(am[m * 64 + k]) * value(sa[4 * (m % 8) + m / 8], k / block),
            |k, n| MiniFloat::E2M1.decode(bm[k * 8 + n]) * value(sb[4 * n], k / block),
        );
        prop_assert_eq!(unpack(Shape::M16N8K64, Operand::C, 1, &got), want);
    }
}

#[test]
fn selectors_and_types_a_kind_does_not_take_are_errors() {
    let (a, b, c, s) = (vec![[0; 32]; 4], vec![[0; 32]; 2], vec![[0; 32]; 4], [0u32; 32]);
    let run = |kind, types, sel| simt_tensor::scaled_mma(kind, types, sel, &a, &b, &c, (&s, &s), &mut vec![[0; 32]; 4]).map_err(|e| e.message);
    let e2m1 = (MmaIn::E2M1, MmaIn::E2M1);
    assert!(run(MmaScaledKind::Mxf4, e2m1, 0x2123).is_ok(), "PTX's own example");
    assert_eq!(
        run(MmaScaledKind::Mxf4, (MmaIn::E4M3, MmaIn::E2M1), 0).unwrap_err(),
        "MMA.SCALED.MXF4.E4M3.E2M1 is not an instruction: see MMA.SCALED in docs/isa.md"
    );
    assert_eq!(
        run(MmaScaledKind::Mxf8f6f4, (MmaIn::S8, MmaIn::E4M3), 0).unwrap_err(),
        "MMA.SCALED.MXF8F6F4.S8.E4M3 is not an instruction: see MMA.SCALED in docs/isa.md"
    );
    assert_eq!(run(MmaScaledKind::Nvf4, e2m1, 0x0030).unwrap_err(), "B's scales start at byte 3, but NVF4 takes 4 a row (column), from byte 0 of the word");
    assert_eq!(
        run(MmaScaledKind::Mxf8f6f4, (MmaIn::E4M3, MmaIn::E5M2), 0x0004).unwrap_err(),
        "B's thread selector is 4: one lane of each quad holds B's scales, 0 to 3"
    );
}
