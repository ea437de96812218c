//! Double precision and 64-bit integers as nvcc's math library uses them: conversions from
//! 64-bit integers, rounding to an integral f64 (floor, rint), division, square root,
//! reciprocal (and their approximations, libdevice's `hypot`, `acos` and complex `sqrt`), and
//! `bfi.b64`, lane by lane against Rust.

mod common;

use common::run_one_warp;
use simt_host::Arg;
use simt_interp::SimtModel;
use simt_isa::{ArgInit, Literal};

const OPS: [&str; 11] = [
    "cvt.rn.f64.s64 %fd2, %rd7;",
    "cvt.rn.f64.u64 %fd2, %rd7;",
    "cvt.rmi.f64.f64 %fd2, %fd1;",
    "cvt.rni.f64.f64 %fd2, %fd1;",
    "div.rn.f64 %fd2, %fd1, 0d4008000000000000;",
    "sqrt.rn.f64 %fd2, %fd1;",
    "rcp.rn.f64 %fd2, %fd1;",
    "bfi.b64 %rd9, %rd7, 1229782938533634594, 8, 40;\n\tmov.b64 %fd2, %rd9;",
    "rsqrt.approx.f64 %fd2, %fd1;",
    "rsqrt.approx.ftz.f64 %fd2, %fd1;",
    "rcp.approx.ftz.f64 %fd2, %fd1;",
];

const NAN: u64 = 0x7FFF_FFFF_FFFF_FFFF;

/// `.ftz`: a subnormal becomes a zero of its sign.
fn flush(v: f64) -> f64 {
    if v.is_subnormal() { 0.0f64.copysign(v) } else { v }
}

fn want(op: usize, x: i64, y: f64) -> u64 {
    let f = |v: f64| if v.is_nan() { NAN } else { v.to_bits() };
    match op {
        0 => f(x as f64),
        1 => f(x as u64 as f64),
        2 => f(y.floor()),
        3 => f(y.round_ties_even()),
        4 => f(y / 3.0),
        5 => f(y.sqrt()),
        6 => f(1.0 / y),
        7 => {
            let field = ((1u64 << 40) - 1) << 8;
            (0x1111_1111_2222_2222 & !field) | ((x as u64) << 8 & field)
        }
        // Square root, then reciprocal: each rounded once, within the approximation's bound.
        8 => f(1.0 / y.sqrt()),
        9 => f(flush(1.0 / flush(y).sqrt())),
        _ => f(flush(1.0 / flush(y))),
    }
}

fn kernel(op: &str) -> String {
    format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1, .param .u64 k_param_2)\n{{\n\
         \t.reg .b32 %r<4>;\n\t.reg .f64 %fd<4>;\n\t.reg .b64 %rd<13>;\n\
         \tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tld.param.u64 %rd3, [k_param_1];\n\tcvta.to.global.u64 %rd4, %rd3;\n\
         \tld.param.u64 %rd10, [k_param_2];\n\tcvta.to.global.u64 %rd11, %rd10;\n\
         \tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd5, %r1, 8;\n\tadd.s64 %rd6, %rd2, %rd5;\n\tld.global.u64 %rd7, [%rd6];\n\
         \tadd.s64 %rd8, %rd4, %rd5;\n\tld.global.f64 %fd1, [%rd8];\n\
         \t{op}\n\tadd.s64 %rd12, %rd11, %rd5;\n\tst.global.f64 [%rd12], %fd2;\n\tret;\n}}\n"
    )
}

#[test]
fn doubles_and_64_bit_integers_follow_ptx() {
    let ints: [i64; 32] = [
        0,
        1,
        -1,
        2,
        i64::MAX,
        i64::MIN,
        1 << 53,
        (1 << 53) + 1,
        -(1 << 53) - 1,
        (1 << 62) + 3,
        0x7FFF_FFFF,
        0x8000_0000,
        -0x8000_0000,
        0xFFFF_FFFF,
        0x1_0000_0001,
        123_456_789_012_345,
        -987_654_321_098,
        3,
        5,
        7,
        11,
        13,
        17,
        19,
        23,
        29,
        31,
        37,
        41,
        43,
        47,
        0x0123_4567_89AB_CDEF,
    ];
    let doubles: [f64; 32] = [
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        1e300,
        -1e-300,
        4.0,
        2.0,
        1e-310,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        4503599627370497.0,
        -4503599627370496.5,
        3.0,
        10.0,
        0.1,
        -7.25,
        1e16,
        6.02e23,
        1e308,
        -1e-310,
        1.0,
        1e-5,
        2f64.sqrt(),
        123.5,
        -123.5,
        7.0,
    ];
    for (i, op) in OPS.iter().enumerate() {
        let args = vec![
            Arg::new("k_param_0", ArgInit::List(ints.iter().flat_map(|&v| [v as u32, (v >> 32) as u32]).map(|w| Literal::Int(i64::from(w))).collect())),
            Arg::new("k_param_1", ArgInit::List(doubles.iter().map(|&v| Literal::Float(v)).collect())),
            Arg::new("k_param_2", ArgInit::Zeros(32)),
        ];
        let (bytes, types) = run_one_warp(&kernel(op), args, "k_param_2", SimtModel::Its);
        // simt has no 64-bit integer element type: that buffer is words (any buffer binds: `raw`).
        assert_eq!(types, ["raw.u32", "raw.f64", "raw.f64"], "{op}");
        for (lane, got) in bytes.chunks_exact(8).enumerate() {
            let got = u64::from_le_bytes(got.try_into().unwrap());
            let (x, y) = (ints[lane], doubles[lane]);
            assert_eq!(got, want(i, x, y), "`{}` of x = {x}, y = {y:e} (lane {lane}): {got:#x}", op.lines().next().unwrap());
        }
    }
}
