//! Rounding as nvcc's math library uses it: `cvt.r{n,z,m,p}i` to an integral f32 (rintf,
//! truncf, floorf, ceilf) and to an integer (`__float2int_rn`, ...), and `cvt.sat.f32.f32`,
//! lane by lane against Rust's definitions.

mod common;

use common::run_one_warp;
use simt_host::Arg;
use simt_interp::SimtModel;
use simt_isa::{ArgInit, Literal};

const OPS: [&str; 9] = [
    "cvt.rni.f32.f32 %f2, %f1;\n\tmov.b32 %r3, %f2;",
    "cvt.rzi.f32.f32 %f2, %f1;\n\tmov.b32 %r3, %f2;",
    "cvt.rmi.f32.f32 %f2, %f1;\n\tmov.b32 %r3, %f2;",
    "cvt.rpi.f32.f32 %f2, %f1;\n\tmov.b32 %r3, %f2;",
    "cvt.rni.s32.f32 %r3, %f1;",
    "cvt.rmi.s32.f32 %r3, %f1;",
    "cvt.rpi.s32.f32 %r3, %f1;",
    "cvt.rni.u32.f32 %r3, %f1;",
    "cvt.sat.f32.f32 %f2, %f1;\n\tmov.b32 %r3, %f2;",
];

fn want(op: usize, x: f32) -> u32 {
    let int = |v: f32| if v.is_nan() { 0 } else { v.clamp(i32::MIN as f32, i32::MAX as f32) as i32 as u32 };
    let uint = |v: f32| if v.is_nan() { 0 } else { v.clamp(0.0, u32::MAX as f32) as u32 };
    let float = |v: f32| if v.is_nan() { 0x7FFF_FFFF } else { v.to_bits() };
    match op {
        0 => float(x.round_ties_even()),
        1 => float(x.trunc()),
        2 => float(x.floor()),
        3 => float(x.ceil()),
        4 => int(x.round_ties_even()),
        5 => int(x.floor()),
        6 => int(x.ceil()),
        7 => uint(x.round_ties_even()),
        _ => {
            if x.is_nan() || x <= 0.0 {
                0
            } else {
                x.min(1.0).to_bits()
            }
        }
    }
}

fn kernel(op: &str) -> String {
    format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)\n{{\n\
         \t.reg .b32 %r<8>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<10>;\n\
         \tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tld.param.u64 %rd3, [k_param_1];\n\tcvta.to.global.u64 %rd4, %rd3;\n\
         \tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd5, %r1, 4;\n\tadd.s64 %rd6, %rd2, %rd5;\n\tld.global.f32 %f1, [%rd6];\n\
         \t{op}\n\tadd.s64 %rd8, %rd4, %rd5;\n\tst.global.u32 [%rd8], %r3;\n\tret;\n}}\n"
    )
}

#[test]
fn conversions_round_as_ptx_says() {
    let inputs: [f32; 32] = [
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.49999997,
        -0.49999997,
        1e-40,
        -1e-40,
        3.75,
        -3.75,
        8388609.0,
        -8388609.5,
        3e9,
        -3e9,
        5e9,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        0.99999994,
        1.0000001,
        123.456,
        -123.456,
        1e20,
        -1e20,
        7.0,
        -7.0,
        0.25,
        2147483520.0,
    ];
    for (i, op) in OPS.iter().enumerate() {
        let list = inputs.iter().map(|&v| Literal::Float(f64::from(v))).collect();
        let args = vec![Arg::new("k_param_0", ArgInit::List(list)), Arg::new("k_param_1", ArgInit::Zeros(32))];
        let (bytes, _) = run_one_warp(&kernel(op), args, "k_param_1", SimtModel::Its);
        for (lane, (&x, got)) in inputs.iter().zip(bytes.chunks_exact(4)).enumerate() {
            let got = u32::from_le_bytes(got.try_into().unwrap());
            assert_eq!(got, want(i, x), "`{}` of {x:e} (lane {lane}): {got:#x}", op.lines().next().unwrap());
        }
    }
}

/// `sqrt.rn.f32` and `rcp.rn.f32` (`sqrtf`, `__frcp_rn`) are correctly rounded: `FSQRT` and
/// `FDIV` of 1, which the timing backend times as the sequences ptxas makes of them, where
/// `.approx` is one `MUFU`. Both give the correctly rounded result, checked against f64.
#[test]
fn correctly_rounded_sqrt_and_rcp_are_the_sequences() {
    let inputs: Vec<f32> = (0..32).map(|i| 0.37 + 1.73 * i as f32).collect();
    for (op, form, want) in [
        ("sqrt.rn.f32 %f2, %f1;", simt_isa::Opcode::Fsqrt, (|x: f64| x.sqrt()) as fn(f64) -> f64),
        ("rcp.rn.f32 %f2, %f1;", simt_isa::Opcode::Fdiv, |x: f64| 1.0 / x),
        ("sqrt.approx.f32 %f2, %f1;", simt_isa::Opcode::Mufu, |x: f64| x.sqrt()),
    ] {
        let source = kernel(&format!("{op}\n\tmov.b32 %r3, %f2;"));
        let module = common::translated_module("k.ptx", &source);
        assert!(module.kernels[0].code.iter().any(|i| i.opcode() == form), "`{op}` becomes {form:?}");
        let list = inputs.iter().map(|&v| Literal::Float(f64::from(v))).collect();
        let args = vec![Arg::new("k_param_0", ArgInit::List(list)), Arg::new("k_param_1", ArgInit::Zeros(32))];
        let (bytes, _) = run_one_warp(&source, args, "k_param_1", SimtModel::Its);
        for (&x, got) in inputs.iter().zip(bytes.chunks_exact(4)) {
            let got = f32::from_bits(u32::from_le_bytes(got.try_into().unwrap()));
            assert_eq!(got, want(f64::from(x)) as f32, "`{op}` of {x}");
        }
    }
}
