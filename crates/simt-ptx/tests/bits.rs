//! Bit manipulation nvcc emits for math library code (`frexpf`, `ilogbf`, `copysignf`):
//! `bfind` (plain, `.shiftamt`, signed), `copysign` and the shifts, lane by lane against PTX's definitions.

mod common;

use common::run_one_warp;
use simt_host::Arg;
use simt_interp::SimtModel;
use simt_isa::{ArgInit, Literal};

const KERNEL: &str = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)\n{\n\
    \t.reg .b32 %r<8>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<10>;\n\
    \tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tld.param.u64 %rd3, [k_param_1];\n\tcvta.to.global.u64 %rd4, %rd3;\n\
    \tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd5, %r1, 4;\n\tadd.s64 %rd6, %rd2, %rd5;\n\tld.global.u32 %r2, [%rd6];\n\
    \tbfind.u32 %r3, %r2;\n\tbfind.shiftamt.u32 %r4, %r2;\n\tbfind.s32 %r5, %r2;\n\
    \tmov.b32 %f1, %r2;\n\tmov.f32 %f2, 0f3FC00000;\n\tcopysign.f32 %f3, %f1, %f2;\n\tmov.b32 %r6, %f3;\n\
    \tmul.wide.u32 %rd7, %r1, 16;\n\tadd.s64 %rd8, %rd4, %rd7;\n\tst.global.v4.u32 [%rd8], {%r3, %r4, %r5, %r6};\n\tret;\n}\n";

/// PTX's `bfind.u32`/`.s32`: the position of the most significant non-sign bit, all ones when there is none.
fn bfind(x: u32, signed: bool, shiftamt: bool) -> u32 {
    let t = if signed && (x as i32) < 0 { !x } else { x };
    match (t, shiftamt) {
        (0, _) => u32::MAX,
        (t, true) => t.leading_zeros(),
        (t, false) => 31 - t.leading_zeros(),
    }
}

#[test]
fn bfind_and_copysign_follow_ptx() {
    let inputs: Vec<u32> = [0, 1, 2, 3, 0x8000_0000, 0xFFFF_FFFF, 0x7FFF_FFFF, 0xFFFF_FFFE, 0x0001_0000, 0xC000_0000, 0x4000_0000, 0xBF80_0000]
        .into_iter()
        .chain((0..20).map(|i: u32| i.wrapping_mul(0x9E37_79B9) >> (i % 32)))
        .collect();
    let list = inputs.iter().map(|&v| Literal::Int(i64::from(v))).collect();
    let args = vec![Arg::new("k_param_0", ArgInit::List(list)), Arg::new("k_param_1", ArgInit::Zeros(128))];
    let (bytes, _) = run_one_warp(KERNEL, args, "k_param_1", SimtModel::Its);
    let out: Vec<u32> = bytes.chunks_exact(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect();
    for (lane, &x) in inputs.iter().enumerate() {
        let want = [bfind(x, false, false), bfind(x, false, true), bfind(x, true, false), (1.5f32.to_bits() & 0x7FFF_FFFF) | (x & 0x8000_0000)];
        assert_eq!(out[4 * lane..4 * lane + 4], want, "x = {x:#010x}");
    }
}

const MASKS: &str = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 k_param_0)\n{\n\
    \t.reg .b32 %r<10>;\n\t.reg .b64 %rd<12>;\n\
    \tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r1, %tid.x;\n\
    \tmov.u32 %r2, %lanemask_eq;\n\tmov.u32 %r3, %lanemask_lt;\n\tmov.u32 %r4, %lanemask_le;\n\tmov.u32 %r5, %lanemask_gt;\n\tmov.u32 %r6, %lanemask_ge;\n\
    \tmov.u64 %rd3, %clock64;\n\tcvt.u64.u32 %rd4, %r1;\n\tadd.s64 %rd5, %rd4, -7;\n\
    \tdiv.s64 %rd6, %rd5, 3;\n\trem.s64 %rd7, %rd5, 3;\n\tdiv.u64 %rd8, %rd5, 3;\n\
    \tmul.wide.u32 %rd9, %r1, 64;\n\tadd.s64 %rd10, %rd2, %rd9;\n\
    \tst.global.v4.u32 [%rd10], {%r2, %r3, %r4, %r5};\n\tst.global.u32 [%rd10+16], %r6;\n\tst.global.u64 [%rd10+24], %rd6;\n\
    \tst.global.u64 [%rd10+32], %rd7;\n\tst.global.u64 [%rd10+40], %rd8;\n\tshr.u64 %rd11, %rd3, 32;\n\tst.global.u64 [%rd10+48], %rd11;\n\tret;\n}\n";

#[test]
fn lane_masks_clock64_and_64_bit_division_follow_ptx() {
    let (bytes, _) = run_one_warp(MASKS, vec![Arg::new("k_param_0", ArgInit::Zeros(512))], "k_param_0", SimtModel::Its);
    let word = |i: usize| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
    let pair = |i: usize| u64::from(word(i)) | u64::from(word(i + 1)) << 32;
    for lane in 0..32usize {
        let at = 16 * lane;
        let eq = 1u32 << lane;
        assert_eq!([word(at), word(at + 1), word(at + 2), word(at + 3), word(at + 4)], [eq, eq - 1, eq | (eq - 1), !(eq | (eq - 1)), !(eq - 1)], "lane {lane}");
        let v = lane as i64 - 7;
        assert_eq!([pair(at + 6), pair(at + 8), pair(at + 10), pair(at + 12)], [(v / 3) as u64, (v % 3) as u64, v as u64 / 3, 0], "lane {lane}");
    }
}

const SHIFTS: &str = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)\n{\n\
    \t.reg .b32 %r<8>;\n\t.reg .b64 %rd<10>;\n\
    \tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tld.param.u64 %rd3, [k_param_1];\n\tcvta.to.global.u64 %rd4, %rd3;\n\
    \tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd5, %r1, 8;\n\tadd.s64 %rd6, %rd2, %rd5;\n\tld.global.v2.u32 {%r2, %r3}, [%rd6];\n\
    \tshr.b32 %r4, %r2, %r3;\n\tshr.u32 %r5, %r2, %r3;\n\tshr.s32 %r6, %r2, %r3;\n\tshl.b32 %r7, %r2, %r3;\n\
    \tmul.wide.u32 %rd7, %r1, 16;\n\tadd.s64 %rd8, %rd4, %rd7;\n\tst.global.v4.u32 [%rd8], {%r4, %r5, %r6, %r7};\n\tret;\n}\n";

/// `shr.b32` and `shr.u32` are logical and `shr.s32` arithmetic, as the PTX ISA defines them;
/// counts above 31 give 0, or all sign bits for `.s32`.
#[test]
fn shifts_follow_ptx() {
    let cases: Vec<(u32, u32)> = [0x8000_0001u32, 0x4000_0000, 0xFFFF_FFFF, 0x1234_5678, 0xF000_00F0]
        .into_iter()
        .flat_map(|x| [0u32, 1, 4, 31, 32, 33, 0xFFFF_FFFF].into_iter().map(move |n| (x, n)))
        .take(32)
        .collect();
    let list = cases.iter().flat_map(|&(x, n)| [x, n]).map(|v| Literal::Int(i64::from(v))).collect();
    let args = vec![Arg::new("k_param_0", ArgInit::List(list)), Arg::new("k_param_1", ArgInit::Zeros(128))];
    let (bytes, _) = run_one_warp(SHIFTS, args, "k_param_1", SimtModel::Its);
    let out: Vec<u32> = bytes.chunks_exact(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect();
    for (lane, &(x, n)) in cases.iter().enumerate() {
        let logical = x.checked_shr(n).unwrap_or(0);
        let arithmetic = ((x as i32) >> n.min(31)) as u32;
        let left = x.checked_shl(n).unwrap_or(0);
        assert_eq!(out[4 * lane..4 * lane + 4], [logical, logical, arithmetic, left], "x = {x:#010x}, n = {n}");
    }
}
