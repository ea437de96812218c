//! `shfl.sync` with a predicate output (`d|p`, what nvcc emits for every `__shfl_*_sync`):
//! each lane's value and predicate against PTX's rule, for every mode, segment width and
//! kind of lane operand, under both SIMT models; and `elect.sync`, which also writes `d|p`.

mod common;

use common::run_one_warp;
use simt_host::Arg;
use simt_interp::SimtModel;
use simt_isa::ArgInit;

const MODES: [&str; 4] = ["up", "down", "bfly", "idx"];

/// PTX's rule: the lane read from, and whether it lay inside the segment (else a lane reads its own value).
fn ptx_rule(mode: &str, lane: i32, b: i32, c: i32) -> (i32, bool) {
    let (bval, cval, segmask) = (b & 31, c & 31, (c >> 8) & 31);
    let (min, max) = (lane & segmask, (lane & segmask) | (cval & !segmask));
    let (j, valid) = match mode {
        "up" => (lane - bval, lane - bval >= max),
        "down" => (lane + bval, lane + bval <= max),
        "bfly" => (lane ^ bval, (lane ^ bval) <= max),
        _ => (min | (bval & !segmask), (min | (bval & !segmask)) <= max),
    };
    (if valid { j } else { lane }, valid)
}

/// A kernel where lane `l` holds `10 l + 1`, shuffles it with `b` (a literal, or `lane % 7`
/// when `b` is None) and clamp `c`, and stores the value and the predicate.
fn kernel(mode: &str, b: Option<i32>, c: i32) -> String {
    let (setup, b) = match b {
        Some(v) => (String::new(), v.to_string()),
        None => ("\trem.u32 %r5, %r1, 7;\n".to_string(), "%r5".to_string()),
    };
    format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 k_param_0)\n{{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\
         \tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r1, %tid.x;\n\tmad.lo.s32 %r2, %r1, 10, 1;\n{setup}\
         \tmov.u32 %r6, {c};\n\tshfl.sync.{mode}.b32 %r3|%p1, %r2, {b}, %r6, -1;\n\tselp.u32 %r4, 1, 0, %p1;\n\
         \tmul.wide.u32 %rd3, %r1, 8;\n\tadd.s64 %rd3, %rd2, %rd3;\n\tst.global.u32 [%rd3], %r3;\n\tst.global.u32 [%rd3+4], %r4;\n\tret;\n}}\n"
    )
}

#[test]
fn predicate_output_says_whether_the_source_lane_was_in_the_segment() {
    for mode in MODES {
        for width in [32, 16, 8, 2] {
            let c = ((32 - width) << 8) | if mode == "up" { 0 } else { width - 1 };
            for b in [Some(1), Some(5), Some(16), Some(37), None] {
                let source = kernel(mode, b, c);
                for simt in [SimtModel::Its, SimtModel::Stack] {
                    let (bytes, _) = run_one_warp(&source, vec![Arg::new("k_param_0", ArgInit::Zeros(64))], "k_param_0", simt);
                    let words: Vec<i32> = bytes.chunks_exact(4).map(|w| i32::from_le_bytes(w.try_into().unwrap())).collect();
                    for lane in 0..32 {
                        let (from, valid) = ptx_rule(mode, lane, b.unwrap_or(lane % 7), c);
                        let got = (words[2 * lane as usize], words[2 * lane as usize + 1] == 1);
                        assert_eq!(got, (10 * from + 1, valid), "shfl.{mode} width {width} b {b:?} lane {lane} ({simt:?})");
                    }
                }
            }
        }
    }
}

#[test]
fn a_predicate_output_no_instruction_reads_costs_nothing() {
    use simt_isa::Opcode;
    let c = 0x1f;
    let read = kernel("bfly", Some(5), c);
    // The same kernel with `%p1` never read: the `selp` stores a constant instead.
    let unread = read.replace("selp.u32 %r4, 1, 0, %p1;", "mov.u32 %r4, 1;");
    assert_ne!(read, unread);
    let count = |source: &str| {
        let module = common::translated_module("k.ptx", source);
        module.kernels[0].code.len()
    };
    let opcodes = |source: &str| -> Vec<Opcode> {
        let module = simt_ptx::translate("k.ptx", source, None).unwrap();
        module.kernels[0].code.iter().map(|i| i.opcode()).collect()
    };
    assert!(opcodes(&read).contains(&Opcode::Isetp), "a read predicate is worked out");
    assert!(!opcodes(&unread).contains(&Opcode::Isetp), "an unread one is not");
    assert_eq!(count(&read) - count(&unread), 3, "S2R, XOR and ISETP: the source lane and its comparison");
    // The value is the same either way.
    let (bytes, _) = run_one_warp(&unread, vec![Arg::new("k_param_0", ArgInit::Zeros(64))], "k_param_0", SimtModel::Its);
    for lane in 0..32 {
        let (from, _) = ptx_rule("bfly", lane, 5, c);
        assert_eq!(i32::from_le_bytes(bytes[8 * lane as usize..][..4].try_into().unwrap()), 10 * from + 1, "lane {lane}");
    }
}

/// A kernel where the lanes whose place in their 8-lane tile is `first` or more run
/// `elect.sync out, mask` (`mask` may name `%r3`, the lane's tile), and store `%r4` (99 where
/// not written) and the predicate (2 where not run).
fn elect_kernel(out: &str, mask: &str, first: u32) -> String {
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 k_param_0)\n{{\n\t.reg .pred %p<3>;\n\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<4>;\n\
         \tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r1, %tid.x;\n\
         \tand.b32 %r2, %r1, 24;\n\tmov.u32 %r3, 255;\n\tshl.b32 %r3, %r3, %r2;\n\tand.b32 %r8, %r1, 7;\n\tsetp.ge.u32 %p2, %r8, {first};\n\
         \tmov.u32 %r4, 99;\n\tmov.u32 %r5, 2;\n\t@%p2 elect.sync {out}, {mask};\n\t@%p2 selp.u32 %r5, 1, 0, %p1;\n\
         \tmul.wide.u32 %rd3, %r1, 8;\n\tadd.s64 %rd3, %rd2, %rd3;\n\tst.global.u32 [%rd3], %r4;\n\tst.global.u32 [%rd3+4], %r5;\n\tret;\n}}\n"
    )
}

#[test]
fn elect_chooses_the_lowest_lane_of_the_mask_that_runs_it() {
    for (mask, tiles) in [("-1", false), ("%r3", true), ("0xFFFFFFFF", false)] {
        for first in [0, 3] {
            for out in ["%r4|%p1", "_|%p1"] {
                let source = elect_kernel(out, mask, first);
                let module = common::translated_module("k.ptx", &source);
                let elects = module.kernels[0].code.iter().filter(|i| i.opcode() == simt_isa::Opcode::Elect).count();
                assert_eq!(elects, 1, "one ELECT and nothing more for `elect.sync {out}, {mask}`");
                for simt in [SimtModel::Its, SimtModel::Stack] {
                    let (bytes, _) = run_one_warp(&source, vec![Arg::new("k_param_0", ArgInit::Zeros(256))], "k_param_0", simt);
                    let words: Vec<u32> = bytes.chunks_exact(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect();
                    for lane in 0..32u32 {
                        let runs = lane % 8 >= first;
                        let leader = if tiles { (lane & 24) + first } else { first };
                        let expected = match (runs, out.starts_with('_')) {
                            (false, _) => (99, 2),
                            (true, true) => (99, u32::from(lane == leader)),
                            (true, false) => (leader, u32::from(lane == leader)),
                        };
                        let got = (words[2 * lane as usize], words[2 * lane as usize + 1]);
                        assert_eq!(got, expected, "elect.sync {out}, {mask} from tile place {first}: lane {lane} ({simt:?})");
                    }
                }
            }
        }
    }
}

/// `redux.sync.{min,max}{.abs}{.NaN}.f32` (sm_100a; Triton's `tl.max` of floats on Blackwell)
/// is one `REDUX.F32` that orders floats (signed zeros, NaNs passed over or, with `.NaN`,
/// propagated; `.abs` of the magnitudes), not their bits.
#[test]
fn float_reductions_order_values_not_bits() {
    let value = |lane: u32| match lane {
        5 => -0.0f32,
        9 => f32::NAN,
        l => l as f32 * if l % 2 == 0 { -1.5 } else { 1.0 },
    };
    for (form, expected) in [
        ("max.f32", 31.0f32.to_bits()),
        ("min.f32", (-45.0f32).to_bits()),
        ("max.abs.f32", 45.0f32.to_bits()),
        ("min.abs.f32", 0),
        ("max.NaN.f32", 0x7FFF_FFFF),
    ] {
        let source = format!(
            ".version 8.7\n.target sm_100a\n.address_size 64\n.visible .entry k(.param .u64 k_param_0)\n{{\n\t.reg .b32 %r<8>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<4>;\n\
             \tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd3, %rd2, %rd3;\n\
             \tld.global.f32 %f1, [%rd3];\n\tredux.sync.{form} %f2, %f1, -1;\n\tst.global.f32 [%rd3], %f2;\n\tret;\n}}\n"
        );
        let module = common::translated_module("k.ptx", &source);
        let reductions = module.kernels[0].code.iter().filter(|i| i.opcode() == simt_isa::Opcode::ReduxF32).count();
        assert_eq!(reductions, 1, "one REDUX.F32 for `redux.sync.{form}`");
        let input: Vec<simt_isa::Literal> = (0..32).map(|l| simt_isa::Literal::Float(f64::from(value(l)))).collect();
        for simt in [SimtModel::Its, SimtModel::Stack] {
            let (bytes, _) = run_one_warp(&source, vec![Arg::new("k_param_0", ArgInit::List(input.clone()))], "k_param_0", simt);
            for (lane, word) in bytes.chunks_exact(4).enumerate() {
                assert_eq!(u32::from_le_bytes(word.try_into().unwrap()), expected, "redux.sync.{form}: lane {lane} ({simt:?})");
            }
        }
    }
}
