//! Block-scaled `mma.sync` (consumer Blackwell's `.kind::mxf8f6f4`, `::mxf4` and `::mxf4nvf4`
//! with `.block_scale`, Triton's `tl.dot_scaled` on sm_120a; and the unscaled `.kind::f8f6f4`)
//! from PTX, run on one warp under both SIMT models against a plain scaled product.
//!
//! Elements are values E2M1 holds (so every other type too; cases mix E5M2 with E4M3, E2M3
//! with E3M2, E2M1 in bytes with E4M3) and scales powers of two near 1 (E8M0)
//! or small E4M3 values, so every partial sum is exact and the reference does not depend on the
//! chain's order (`simt-tensor`'s tests check the rounding). Each case names selectors other than
//! 0, and its scale registers hold scales only in the lanes and bytes those selectors name, as
//! the PTX ISA's "Block Scaling for mma.sync" places them: every other byte is a NaN scale
//! (E8M0 0xFF, E4M3 0x7F), so a scale read from anywhere else makes D NaN.

mod common;

use common::run_one_warp;
use simt_host::Arg;
use simt_interp::SimtModel;
use simt_isa::ArgInit;
use simt_tensor::formats::MiniFloat;
use simt_tensor::layout::{Operand, Shape, pack};

struct Case {
    /// What follows `mma.sync.aligned.`.
    modifiers: &'static str,
    shape: Shape,
    /// A's element type, then B's.
    elements: [MiniFloat; 2],
    /// Elements along K that share a scale.
    block: usize,
    e4m3_scales: bool,
    /// PTX's `{byte-id, thread-id}` of A, then of B; `None` for the unscaled `.kind::f8f6f4`.
    selectors: Option<[(usize, usize); 2]>,
}

const CASES: [Case; 8] = [
    Case {
        modifiers: "m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0",
        shape: Shape::M16N8K32,
        elements: [MiniFloat::E4M3; 2],
        block: 32,
        e4m3_scales: false,
        selectors: Some([(3, 1), (1, 2)]),
    },
    Case {
        modifiers: "m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e5m2.e4m3.f32.ue8m0",
        shape: Shape::M16N8K32,
        elements: [MiniFloat::E5M2, MiniFloat::E4M3],
        block: 32,
        e4m3_scales: false,
        selectors: Some([(2, 0), (0, 3)]),
    },
    // FP6 and FP4 in `.kind::mxf8f6f4`'s bytes (bits 5-0; E2M1 in bits 5-2), the others set.
    Case {
        modifiers: "m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e3m2.f32.ue8m0",
        shape: Shape::M16N8K32,
        elements: [MiniFloat::E2M3, MiniFloat::E3M2],
        block: 32,
        e4m3_scales: false,
        selectors: Some([(3, 1), (2, 2)]),
    },
    Case {
        modifiers: "m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e2m1.e4m3.f32.ue8m0",
        shape: Shape::M16N8K32,
        elements: [MiniFloat::E2M1, MiniFloat::E4M3],
        block: 32,
        e4m3_scales: false,
        selectors: Some([(2, 0), (1, 3)]),
    },
    // No scales: every one 1.
    Case {
        modifiers: "m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e2m1.f32",
        shape: Shape::M16N8K32,
        elements: [MiniFloat::E3M2, MiniFloat::E2M1],
        block: 32,
        e4m3_scales: false,
        selectors: None,
    },
    // The PTX ISA's own example of `.kind::mxf4`: `{2, 1}` and `{2, 3}`.
    Case {
        modifiers: "m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0",
        shape: Shape::M16N8K64,
        elements: [MiniFloat::E2M1; 2],
        block: 32,
        e4m3_scales: false,
        selectors: Some([(2, 1), (2, 3)]),
    },
    Case {
        modifiers: "m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3",
        shape: Shape::M16N8K64,
        elements: [MiniFloat::E2M1; 2],
        block: 16,
        e4m3_scales: true,
        selectors: Some([(0, 1), (0, 1)]),
    },
    Case {
        modifiers: "m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0",
        shape: Shape::M16N8K64,
        elements: [MiniFloat::E2M1; 2],
        block: 16,
        e4m3_scales: false,
        selectors: Some([(0, 0), (0, 2)]),
    },
];

/// Values every element type holds: E2M1's, both signs.
const VALUES: [f64; 15] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0];
/// Scales: E8M0 codes 2^-2 .. 2^2, or E4M3 values.
const E8M0_SCALES: [u32; 5] = [125, 126, 127, 128, 129];
const E4M3_SCALES: [f32; 4] = [0.5, 1.0, 1.5, 2.0];

/// The kernel: every lane loads its A (4 registers), B (2) and C (4) fragments and its two
/// scale words (register `j` of lane `l` from word `32 j + l` of its section), runs the `mma`
/// with the case's selectors and stores D.
fn kernel(case: &Case) -> String {
    let scales = match case.selectors {
        Some([(ba, ta), (bb, tb)]) => format!(", %sa, {{{ba}, {ta}}}, %sb, {{{bb}, {tb}}}"),
        None => String::new(),
    };
    let mut loads = String::new();
    for (j, r) in ["%a0", "%a1", "%a2", "%a3", "%b0", "%b1", "%c0", "%c1", "%c2", "%c3", "%sa", "%sb"].iter().enumerate() {
        loads.push_str(&format!("\tld.global.b32 {r}, [%i+{}];\n", 128 * j));
    }
    format!(
        ".version 8.7\n.target sm_120a\n.address_size 64\n.visible .entry k(.param .u64 out, .param .u64 in)\n{{\n\
         \t.reg .b32 %l, %a<4>, %b<2>, %sa, %sb;\n\t.reg .f32 %c<4>, %d<4>;\n\t.reg .b64 %i, %o, %x;\n\
         \tmov.u32 %l, %tid.x;\n\tld.param.u64 %i, [in];\n\tld.param.u64 %o, [out];\n\
         \tmul.wide.u32 %x, %l, 4;\n\tadd.s64 %i, %i, %x;\n\tadd.s64 %o, %o, %x;\n{loads}\
         \tmma.sync.aligned.{} {{%d0, %d1, %d2, %d3}}, {{%a0, %a1, %a2, %a3}}, {{%b0, %b1}}, {{%c0, %c1, %c2, %c3}}{scales};\n\
         \tst.global.f32 [%o], %d0;\n\tst.global.f32 [%o+128], %d1;\n\tst.global.f32 [%o+256], %d2;\n\tst.global.f32 [%o+384], %d3;\n\
         \tret;\n}}\n",
        case.modifiers
    )
}

/// `case`'s input (A, B, C, then the scale words) and the D it must store.
fn prepared(case: &Case) -> (Vec<u8>, Vec<u8>) {
    let k = if case.shape == Shape::M16N8K64 { 64 } else { 32 };
    let blocks = k / case.block;
    let a = |i: usize, t: usize| VALUES[(i * 5 + t * 3 + i * t) % VALUES.len()];
    let b = |t: usize, j: usize| VALUES[(t * 7 + j * 2 + 1) % VALUES.len()];
    let c = |i: usize, j: usize| (i * 8 + j) as f64 - 60.0;
    // Scale `index` of (row or column) `x`'s K block `q`: its code and its value.
    let scale = |x: usize, q: usize, salt: usize| -> (u32, f64) {
        let pick = x * 3 + q * 5 + salt;
        if case.selectors.is_none() {
            (127, 1.0)
        } else if case.e4m3_scales {
            let v = E4M3_SCALES[pick % E4M3_SCALES.len()];
            (u32::from(MiniFloat::E4M3.encode(v)), f64::from(v))
        } else {
            let code = E8M0_SCALES[pick % E8M0_SCALES.len()];
            (code, 2f64.powi(code as i32 - 127))
        }
    };
    let nan_byte = if case.e4m3_scales { 0x7F } else { 0xFF };
    // Scale words: NaN bytes everywhere but where the selectors place each row's (column's) scales.
    let [(ba, ta), (bb, tb)] = case.selectors.unwrap_or_default();
    let (mut sa, mut sb) = ([u32::from_le_bytes([nan_byte; 4]); 32], [u32::from_le_bytes([nan_byte; 4]); 32]);
    for m in 0..16 {
        // The quad of row m % 8; in it, the pair `ta` names, its first lane for rows 0-7.
        let lane = 4 * (m % 8) + 2 * ta + m / 8;
        for q in 0..blocks {
            let byte = 8 * (ba + q);
            sa[lane] = sa[lane] & !(0xFF << byte) | scale(m, q, 0).0 << byte;
        }
    }
    for n in 0..8 {
        let lane = 4 * n + tb;
        for q in 0..blocks {
            let byte = 8 * (bb + q);
            sb[lane] = sb[lane] & !(0xFF << byte) | scale(n, q, 1).0 << byte;
        }
    }
    // m16n8k32 holds each element in a byte: a 6-bit one in bits 5-0, E2M1 in bits 5-2, the
    // other bits set (they are not read); m16n8k64 packs E2M1 pairs.
    let bytes = case.shape == Shape::M16N8K32;
    let code = |format: MiniFloat, x: f64| {
        let code = u32::from(format.encode(x as f32));
        match format {
            MiniFloat::E2M1 if bytes => code << 2 | 0xC3,
            MiniFloat::E2M3 | MiniFloat::E3M2 => code | 0xC0,
            _ => code,
        }
    };
    let (mut a_codes, mut b_codes, mut c_bits, mut d_bits) = (vec![0; 16 * k], vec![0; k * 8], vec![0; 128], vec![0; 128]);
    for i in 0..16 {
        for t in 0..k {
            a_codes[i * k + t] = code(case.elements[0], a(i, t));
        }
    }
    for t in 0..k {
        for j in 0..8 {
            b_codes[t * 8 + j] = code(case.elements[1], b(t, j));
        }
    }
    for i in 0..16 {
        for j in 0..8 {
            let d: f64 = c(i, j) + (0..k).map(|t| a(i, t) * scale(i, t / case.block, 0).1 * b(t, j) * scale(j, t / case.block, 1).1).sum::<f64>();
            c_bits[i * 8 + j] = (c(i, j) as f32).to_bits();
            d_bits[i * 8 + j] = (d as f32).to_bits();
        }
    }
    let per_reg = if bytes { 4 } else { 8 };
    let words = [
        pack(case.shape, Operand::A, per_reg, &a_codes),
        pack(case.shape, Operand::B, per_reg, &b_codes),
        pack(case.shape, Operand::C, 1, &c_bits),
        vec![sa, sb],
    ]
    .concat();
    let bytes = |frag: &[[u32; 32]]| frag.iter().flatten().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    (bytes(&words), bytes(&pack(case.shape, Operand::C, 1, &d_bits)))
}

#[test]
fn block_scaled_mma_sync_finds_its_scales_where_the_selectors_say() {
    let dir = std::env::temp_dir().join(format!("simt-ptx-scaled-mma-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (n, case) in CASES.iter().enumerate() {
        let source = kernel(case);
        let (input, want) = prepared(case);
        let (in_file, out_file) = (dir.join(format!("{n}.in.bin")), dir.join(format!("{n}.out.bin")));
        std::fs::write(&in_file, &input).unwrap();
        for simt in [SimtModel::Its, SimtModel::Stack] {
            std::fs::write(&out_file, vec![0u8; want.len()]).unwrap();
            let args = vec![Arg::new("in", ArgInit::File(in_file.display().to_string())), Arg::new("out", ArgInit::File(out_file.display().to_string()))];
            let got = run_one_warp(&source, args, "out", simt).0;
            assert!(got == want, "{} under {simt:?}: D differs\n{source}", case.modifiers);
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}
