//! The integer and conversion forms compilers emit beyond 32 bits and round-to-nearest:
//! 64- and 16-bit `mul`/`mad` in every mode, `prmt` and `shf`, saturating integer `cvt`,
//! 64-bit integers to and from floats, directed rounding of `mul`, `min`/`max` on f64,
//! `tanh.approx`, and `trap`. Each runs lane by lane against PTX's definitions in Rust.

mod common;

use common::run_one_warp;
use simt_host::{Arg, LaunchRequest, prepare};
use simt_interp::{FaultKind, RunOptions, SimtModel};
use simt_isa::{ArgInit, Literal};

/// A kernel where each lane reads two 64-bit values `%x` and `%y` (also as words: `%a`, `%e`
/// the low and high words of `%x`, `%b`, `%c` those of `%y`; as 16 bits: `%s`, `%t` the low
/// halves of `%a`, `%b`; as floats: `%f`, `%g` from `%a`, `%b` and `%d`, `%q` from `%x`, `%y`),
/// runs `body`, and stores `%o0` to `%o7`. The target is sm_80, or sm_100a for a body that
/// converts FP4 (`.e2m1x2`), which needs Blackwell; `%u<4>` are bytes.
fn kernel(body: &str) -> String {
    let target = if body.contains(".e2m1x2") { "sm_100a" } else { "sm_80" };
    format!(
        ".version 7.0\n.target {target}\n.address_size 64\n.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b8 %u<4>;\n\t.reg .b16 %s, %t, %h<4>;\n\t.reg .b32 %a, %b, %c, %e, %r<8>, %w<16>;\n\t.reg .f32 %f, %g, %k<4>;\n\
         \t.reg .f64 %d, %q, %z<4>;\n\t.reg .b64 %x, %y, %o<8>, %rd<8>;\n\
         \tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tld.param.u64 %rd3, [k_param_1];\n\tcvta.to.global.u64 %rd4, %rd3;\n\
         \tmov.u32 %r0, %tid.x;\n\tmul.wide.u32 %rd5, %r0, 16;\n\tadd.s64 %rd6, %rd2, %rd5;\n\
         \tld.global.v4.u32 {{%a, %e, %b, %c}}, [%rd6];\n\tmov.b64 %x, {{%a, %e}};\n\tmov.b64 %y, {{%b, %c}};\n\
         \tcvt.u16.u32 %s, %a;\n\tcvt.u16.u32 %t, %b;\n\tmov.b32 %f, %a;\n\tmov.b32 %g, %b;\n\tmov.b64 %d, %x;\n\tmov.b64 %q, %y;\n\
         \tmov.b64 %o0, 0;\n\tmov.b64 %o1, 0;\n\tmov.b64 %o2, 0;\n\tmov.b64 %o3, 0;\n\tmov.b64 %o4, 0;\n\tmov.b64 %o5, 0;\n\tmov.b64 %o6, 0;\n\tmov.b64 %o7, 0;\n\
         {body}\
         \tmul.wide.u32 %rd5, %r0, 64;\n\tadd.s64 %rd7, %rd4, %rd5;\n\
         \tmov.b64 {{%w0, %w1}}, %o0;\n\tmov.b64 {{%w2, %w3}}, %o1;\n\tmov.b64 {{%w4, %w5}}, %o2;\n\tmov.b64 {{%w6, %w7}}, %o3;\n\
         \tmov.b64 {{%w8, %w9}}, %o4;\n\tmov.b64 {{%w10, %w11}}, %o5;\n\tmov.b64 {{%w12, %w13}}, %o6;\n\tmov.b64 {{%w14, %w15}}, %o7;\n\
         \tst.global.v4.u32 [%rd7], {{%w0, %w1, %w2, %w3}};\n\tst.global.v4.u32 [%rd7+16], {{%w4, %w5, %w6, %w7}};\n\
         \tst.global.v4.u32 [%rd7+32], {{%w8, %w9, %w10, %w11}};\n\tst.global.v4.u32 [%rd7+48], {{%w12, %w13, %w14, %w15}};\n\tret;\n}}\n"
    )
}

/// Runs `body` on 32 lanes of `(x, y)` under `simt`: each lane's eight outputs.
fn outputs(body: &str, inputs: &[(u64, u64)], simt: SimtModel) -> Vec<[u64; 8]> {
    assert_eq!(inputs.len(), 32);
    let words = inputs.iter().flat_map(|&(x, y)| [x as u32, (x >> 32) as u32, y as u32, (y >> 32) as u32]);
    let list: Vec<Literal> = words.map(|w| Literal::Int(i64::from(w))).collect();
    let args = vec![Arg::new("k_param_0", ArgInit::List(list)), Arg::new("k_param_1", ArgInit::Zeros(512))];
    let (bytes, _) = run_one_warp(&kernel(body), args, "k_param_1", simt);
    let got = |i: usize| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap());
    (0..32).map(|lane| std::array::from_fn(|k| got(8 * lane + k))).collect()
}

/// Runs `body` on 32 lanes of `(x, y)` under both SIMT models and compares every output
/// with `want(x, y)`.
fn check(body: &str, inputs: &[(u64, u64)], want: impl Fn(u64, u64) -> [u64; 8]) {
    for simt in [SimtModel::Its, SimtModel::Stack] {
        for (lane, (out, &(x, y))) in outputs(body, inputs, simt).iter().zip(inputs).enumerate() {
            let want = want(x, y);
            for k in 0..8 {
                assert_eq!(out[k], want[k], "{simt:?}: output {k} of lane {lane} for x = {x:#018x}, y = {y:#018x}\n{body}");
            }
        }
    }
}

/// What `body`'s translation made of each line: given text of a line, the simt instructions
/// (disassembled) that line became.
fn translated(body: &str) -> impl Fn(&str) -> Vec<String> {
    let source = kernel(body);
    let module = common::translated_module("k.ptx", &source);
    move |text: &str| {
        let kernel = &module.kernels[0];
        let symbols = simt_isa::Symbols::of(kernel);
        let line = source.lines().position(|l| l.contains(text)).expect("the line") as u32 + 1;
        kernel.lines.iter().zip(&kernel.code).filter(|&(&l, _)| l == line).map(|(_, i)| simt_isa::format_instruction(i, &symbols)).collect()
    }
}

/// A xorshift64 generator from `seed`: reproducible inputs without a crate.
fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// 32 pairs of 64-bit integers with the edges multiplication and saturation care about.
fn integer_pairs() -> Vec<(u64, u64)> {
    let edges = [0, 1, 2, u64::MAX, i64::MAX as u64, i64::MIN as u64, 0xFFFF_FFFF, 0x1_0000_0000, 0x8000_0000, 0x7FFF, 0x8000, 0xFFFF, 0xFF80, 0x7F];
    let mut pairs: Vec<(u64, u64)> = edges.iter().zip(edges.iter().rev()).map(|(&x, &y)| (x, y)).collect();
    let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
    while pairs.len() < 32 {
        let (x, y) = (next(), next());
        // Some small and some sign-heavy values, not only uniform bits.
        pairs.push(match pairs.len() % 3 {
            0 => (x >> (x % 60), y),
            1 => (x | 0xFFFF_0000_0000_0000, y >> 33),
            _ => (x, y),
        });
    }
    pairs
}

#[test]
fn multiplies_of_every_width_and_mode() {
    let body = "\tmul.hi.u64 %o0, %x, %y;\n\tmul.hi.s64 %o1, %x, %y;\n\tmad.lo.s64 %o2, %x, %y, %x;\n\tmad.hi.u64 %o3, %x, %y, %y;\n\
                \tmad.hi.s32 %r1, %a, %b, %a;\n\tcvt.u64.u32 %o4, %r1;\n\tmul.hi.s16 %h0, %s, %t;\n\tcvt.u64.u16 %o5, %h0;\n\
                \tmul.wide.s16 %r2, %s, %t;\n\tcvt.u64.u32 %o6, %r2;\n\tmad.wide.u16 %r3, %s, %t, %b;\n\tmul.hi.u16 %h1, %s, %t;\n\
                \tmad.lo.u16 %h2, %s, %t, %s;\n\tcvt.u64.u32 %o7, %r3;\n\tcvt.u32.u16 %r4, %h1;\n\tcvt.u32.u16 %r5, %h2;\n\
                \tshl.b32 %r5, %r5, 16;\n\tor.b32 %r4, %r4, %r5;\n\tmov.b64 %rd1, {%r4, %r4};\n\txor.b64 %o7, %o7, %rd1;\n";
    check(body, &integer_pairs(), |x, y| {
        let (a, b) = (x as u32, y as u32);
        let (s, t) = (a as u16, b as u16);
        let hi_u = ((u128::from(x) * u128::from(y)) >> 64) as u64;
        let hi_s = ((i128::from(x as i64) * i128::from(y as i64)) >> 64) as u64;
        let mad_hi_32 = ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32;
        let wide_s16 = i32::from(s as i16) * i32::from(t as i16);
        let wide_u16 = u32::from(s) * u32::from(t);
        let packed = u32::from((wide_u16 >> 16) as u16) | u32::from(s.wrapping_mul(t).wrapping_add(s)) << 16;
        [
            hi_u,
            hi_s,
            x.wrapping_mul(y).wrapping_add(x),
            hi_u.wrapping_add(y),
            u64::from(mad_hi_32.wrapping_add(a)),
            u64::from((wide_s16 >> 16) as u16),
            u64::from(wide_s16 as u32),
            u64::from(wide_u16.wrapping_add(b)) ^ (u64::from(packed) | u64::from(packed) << 32),
        ]
    });
}

/// A literal factor of a 16-bit `mul.wide` or `mul.hi` is its 16 bits, read by the type's
/// signedness: LLVM writes `x * 32768` of a u16 as `mul.wide.u16 %r, %rs, -32768`; and a
/// literal of 16-bit logic is its 16 bits (`or.b16 %rs, %rs, -32768` sets one bit).
#[test]
fn sixteen_bit_products_of_literals() {
    let body = "\tmul.wide.u16 %r1, %s, -32768;\n\tcvt.u64.u32 %o0, %r1;\n\tmul.hi.u16 %h0, %s, 0xFFFF8001;\n\tcvt.u64.u16 %o1, %h0;\n\
                \tmul.wide.s16 %r2, %s, 0x18000;\n\tcvt.u64.u32 %o2, %r2;\n\tmad.wide.u16 %r3, %s, 65535, %b;\n\tcvt.u64.u32 %o3, %r3;\n\
                \tor.b16 %h1, %s, -32768;\n\tcvt.u64.u16 %o4, %h1;\n\txor.b16 %h2, %s, -1;\n\tcvt.u64.u16 %o5, %h2;\n";
    check(body, &integer_pairs(), |x, y| {
        let s = x as u16;
        [
            u64::from(u32::from(s) * 0x8000),
            u64::from((u32::from(s) * 0x8001) >> 16),
            u64::from((i32::from(s as i16) * -0x8000) as u32),
            u64::from((u32::from(s) * 0xFFFF).wrapping_add(y as u32)),
            u64::from(s | 0x8000),
            u64::from(!s),
            0,
            0,
        ]
    });
}

#[test]
fn negation_bit_counts_and_sixteen_bit_arithmetic() {
    let body = "\tneg.s64 %o0, %x;\n\tabs.s64 %o1, %x;\n\tpopc.b64 %r1, %x;\n\tclz.b64 %r2, %x;\n\tmov.b64 %o2, {%r1, %r2};\n\tbrev.b64 %o3, %x;\n\
                \tneg.s16 %h0, %s;\n\tabs.s16 %h1, %s;\n\tcvt.u32.u16 %r1, %h0;\n\tcvt.u32.u16 %r2, %h1;\n\tmov.b64 %o4, {%r1, %r2};\n\
                \tmin.s16 %h0, %s, %t;\n\tmax.u16 %h1, %s, %t;\n\tcvt.u32.u16 %r1, %h0;\n\tcvt.u32.u16 %r2, %h1;\n\tmov.b64 %o5, {%r1, %r2};\n\
                \tdiv.s16 %h2, %s, %t;\n\trem.u16 %h3, %s, %t;\n\tcvt.u32.u16 %r1, %h2;\n\tcvt.u32.u16 %r2, %h3;\n\tmov.b64 %o6, {%r1, %r2};\n\
                \tabs.ftz.f32 %k0, %f;\n\tneg.ftz.f32 %k1, %g;\n\tmov.b32 %r1, %k0;\n\tmov.b32 %r2, %k1;\n\tmov.b64 %o7, {%r1, %r2};\n";
    let mut inputs = integer_pairs();
    // Subnormal, zero and negative f32 patterns in the low words.
    for (i, (x, y)) in inputs.iter_mut().enumerate().take(6) {
        *x = (*x & !0xFFFF_FFFF) | [1, 0x8000_0001, 0x8000_0000, 0x007F_FFFF, 0xBF80_0000, 0x3F80_0000][i];
        *y = (*y & !0xFFFF_FFFF) | [0x8000_0003, 0x0000_0001, 0x4000_0000, 0x8040_0000, 0x0000_0000, 0xFFFF][i];
    }
    check(body, &inputs, |x, y| {
        let (s, t) = (x as u16, y as u16);
        let (ss, ts) = (s as i16, t as i16);
        // `.ftz` flushes a subnormal to a zero of its sign; a NaN comes out as the canonical NaN
        // (PTX: "an unspecified NaN"), whose sign `neg` then flips.
        let flush = |v: u32| {
            if v & 0x7F80_0000 == 0 {
                v & 0x8000_0000
            } else if f32::from_bits(v).is_nan() {
                0x7FFF_FFFF
            } else {
                v
            }
        };
        let pair = |lo: u32, hi: u32| u64::from(lo) | u64::from(hi) << 32;
        // simt's IDIV and IREM: a zero divisor gives all ones and the dividend (PTX leaves it undefined).
        let div = if ts == 0 { 0xFFFF } else { ss.wrapping_div(ts) as u16 };
        let rem = if t == 0 { s } else { s % t };
        [
            x.wrapping_neg(),
            (x as i64).wrapping_abs() as u64,
            pair(x.count_ones(), x.leading_zeros()),
            x.reverse_bits(),
            pair(u32::from(ss.wrapping_neg() as u16), u32::from(ss.wrapping_abs() as u16)),
            pair(u32::from(ss.min(ts) as u16), u32::from(s.max(t))),
            pair(u32::from(div), u32::from(rem)),
            pair(flush(x as u32) & 0x7FFF_FFFF, flush(y as u32) ^ 0x8000_0000),
        ]
    });
}

/// A 64-bit literal stored as it is (NVRTC passes `pow(x, 2.7)`'s exponent to a device
/// function with `st.param.f64 [param1+0], 0d400599999999999A`), a double and an integer.
#[test]
fn literal_64_bit_stores() {
    let body = "\tst.global.f64 [%rd6], 0d400599999999999A;\n\tld.global.u64 %o0, [%rd6];\n\
                \tst.global.u64 [%rd6], -5;\n\tld.global.u64 %o1, [%rd6];\n\tst.global.b64 [%rd6], 0x123456789;\n\tld.global.u64 %o2, [%rd6];\n";
    check(body, &integer_pairs(), |_, _| [2.7f64.to_bits(), -5i64 as u64, 0x1_2345_6789, 0, 0, 0, 0, 0]);
}

/// Vectors of two 64-bit elements are one 16-byte access, four words (clang's `double2`,
/// libdevice's `sin` coefficients in `ld.global.nc.v2.f64`), loaded and stored in place or
/// through scratch, with literal and ignored (`_`) elements.
#[test]
fn vectors_of_64_bit_elements() {
    let body = "\tld.global.v2.u64 {%o0, %o1}, [%rd6];\n\tld.global.nc.v2.f64 {%z0, %z1}, [%rd6];\n\tmov.b64 %o2, %z1;\n\
                \tst.global.v2.b64 [%rd6], {%y, %x};\n\tld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd6];\n\tmov.b64 %o3, {%r1, %r2};\n\tmov.b64 %o4, {%r3, %r4};\n\
                \tst.global.v2.u64 [%rd6], {-2, %z0};\n\tld.global.v2.u64 {%o5, %o6}, [%rd6];\n\tld.global.v2.s64 {_, %o7}, [%rd6];\n";
    check(body, &integer_pairs(), |x, y| [x, y, y, y, x, -2i64 as u64, x, x]);
}

#[test]
fn vectors_of_bytes_and_halves() {
    let join = |regs: [&str; 4], out: usize| {
        format!(
            "\tcvt.u32.u16 %r1, {};\n\tcvt.u32.u16 %r2, {};\n\tcvt.u32.u16 %r3, {};\n\tcvt.u32.u16 %r4, {};\n\
             \tshl.b32 %r2, %r2, 16;\n\tor.b32 %r1, %r1, %r2;\n\tshl.b32 %r4, %r4, 16;\n\tor.b32 %r3, %r3, %r4;\n\tmov.b64 %o{out}, {{%r1, %r3}};\n",
            regs[0], regs[1], regs[2], regs[3]
        )
    };
    let h = ["%h0", "%h1", "%h2", "%h3"];
    let body = [
        "\tld.global.v4.u8 {%h0, %h1, %h2, %h3}, [%rd6];\n".to_string(),
        join(h, 0),
        "\tld.global.v4.s8 {%h0, %h1, %h2, %h3}, [%rd6];\n".to_string(),
        join(h, 1),
        "\tmov.b16 %h2, 0;\n\tmov.b16 %h3, 0;\n\tld.global.v2.s16 {%h0, %h1}, [%rd6+4];\n".to_string(),
        join(h, 2),
        "\tld.global.v4.u16 {%h0, %h1, %h2, %h3}, [%rd6+8];\n".to_string(),
        join(h, 3),
        "\tst.global.v4.u8 [%rd6], {%h3, %h2, %h1, %h0};\n\tld.global.u32 %r5, [%rd6];\n\tcvt.u64.u32 %o4, %r5;\n".to_string(),
        "\tst.global.v2.u16 [%rd6+4], {%t, %s};\n\tld.global.u32 %r5, [%rd6+4];\n\tcvt.u64.u32 %o5, %r5;\n".to_string(),
        "\tst.global.v2.u8 [%rd6+8], {%s, %t};\n\tld.global.u32 %r5, [%rd6+8];\n\tcvt.u64.u32 %o6, %r5;\n".to_string(),
        // A word register's upper bits and a literal's stay out of the neighbouring element.
        "\tst.global.v4.b16 [%rd6], {%a, %s, 0x1234, %b};\n\tld.global.v2.u32 {%r5, %r6}, [%rd6];\n\tmov.b64 %o7, {%r5, %r6};\n".to_string(),
    ]
    .concat();
    check(&body, &integer_pairs(), |x, y| {
        let bytes = x.to_le_bytes();
        let halves = |v: u64| [v as u16, (v >> 16) as u16, (v >> 32) as u16, (v >> 48) as u16];
        let join = |v: [u16; 4]| v.iter().enumerate().fold(0u64, |acc, (i, &e)| acc | u64::from(e) << (16 * i));
        let (s, t) = (x as u16, y as u16);
        let yh = halves(y);
        [
            join([0, 1, 2, 3].map(|i| u16::from(bytes[i]))),
            join([0, 1, 2, 3].map(|i| bytes[i] as i8 as i16 as u16)),
            join([halves(x)[2], halves(x)[3], 0, 0]),
            join(yh),
            u64::from(u32::from_le_bytes([yh[3] as u8, yh[2] as u8, yh[1] as u8, yh[0] as u8])),
            u64::from(u32::from(t) | u32::from(s) << 16),
            // Two bytes stored: the upper half keeps y's.
            u64::from(u32::from(s as u8) | u32::from(t as u8) << 8 | (y as u32 & 0xFFFF_0000)),
            join([x as u16, s, 0x1234, y as u16]),
        ]
    });
}

#[test]
fn set_and_the_comparisons_of_narrow_and_flushed_values() {
    let body = "\tset.lt.u32.s32 %r1, %a, %b;\n\tset.hi.u32.u32 %r2, %a, %b;\n\tmov.b64 %o0, {%r1, %r2};\n\
                \tset.gt.f32.f32 %k0, %f, %g;\n\tmov.b32 %r1, %k0;\n\tset.neu.s32.f64 %r2, %d, %q;\n\tmov.b64 %o1, {%r1, %r2};\n\
                \tsetp.lt.s16 %p1, %s, %t;\n\tselp.u32 %r1, 1, 0, %p1;\n\tsetp.lt.ftz.f32 %p2, %f, %g;\n\tselp.u32 %r2, 1, 0, %p2;\n\tmov.b64 %o2, {%r1, %r2};\n\
                \tset.eq.and.u32.u32 %r1, %a, %b, %p1;\n\tset.ne.or.u32.s32 %r2, %a, %b, !%p2;\n\tmov.b64 %o3, {%r1, %r2};\n\
                \tsetp.ne.s16 %p3, %s, %t;\n\tselp.u32 %r1, 1, 0, %p3;\n\tsetp.gt.s16 %p3, %s, -2;\n\tselp.u32 %r2, 1, 0, %p3;\n\tmov.b64 %o4, {%r1, %r2};\n\
                \tsetp.lt.u16 %p3, %s, -127;\n\tselp.u32 %r1, 1, 0, %p3;\n\tsetp.eq.s16 %p3, %s, -1;\n\tselp.u32 %r2, 1, 0, %p3;\n\tmov.b64 %o5, {%r1, %r2};\n\
                \tcvt.u8.u32 %u0, %a;\n\tsetp.hi.u8 %p3, %u0, -2;\n\tselp.u32 %r1, 1, 0, %p3;\n\tsetp.ne.b16 %p3, %s, 0xFFFFFFFE;\n\tselp.u32 %r2, 1, 0, %p3;\n\tmov.b64 %o6, {%r1, %r2};\n";
    let mut inputs = integer_pairs();
    // Equal words, subnormal and NaN floats, and negative 16-bit values in some lanes.
    let specials = [
        (5, 5),
        (0x0000_8001, 0x0000_0001),
        (1, 2),
        (0x8000_0001, 0x0000_0000),
        (0x7FC0_0000, 0),
        (0xFFFF, 0xFFFE),
        (0xFF80, 0),
        (0xFF81, 0),
        (0x12FFFE, 0),
        (0xFF, 0),
    ];
    for (i, &(a, b)) in specials.iter().enumerate() {
        inputs[i].0 = (inputs[i].0 & !0xFFFF_FFFF) | a;
        inputs[i].1 = (inputs[i].1 & !0xFFFF_FFFF) | b;
    }
    check(body, &inputs, |x, y| {
        let (a, b) = (x as u32, y as u32);
        let (f, g, d, q) = (f32::from_bits(a), f32::from_bits(b), f64::from_bits(x), f64::from_bits(y));
        let flush = |v: f32| if v.is_subnormal() { 0.0 } else { v };
        let all = |c: bool| if c { u32::MAX } else { 0 };
        let pair = |lo: u32, hi: u32| u64::from(lo) | u64::from(hi) << 32;
        let p1 = (a as u16 as i16) < (b as u16 as i16);
        let p2 = flush(f) < flush(g);
        [
            pair(all((a as i32) < (b as i32)), all(a > b)),
            pair(if f > g { 1.0f32.to_bits() } else { 0 }, all(d != q || d.is_nan() || q.is_nan())),
            pair(u32::from(p1), u32::from(p2)),
            pair(all(a == b && p1), all(a != b || !p2)),
            pair(u32::from(a as u16 != b as u16), u32::from(a as u16 as i16 > -2)),
            // A literal compares with a narrow value as its bits of that width.
            pair(u32::from((a as u16) < 0xFF81), u32::from(a as u16 == 0xFFFF)),
            pair(u32::from(a as u8 > 0xFE), u32::from(a as u16 != 0xFFFE)),
            0,
        ]
    });
    // Equality needs no sign extension, and a literal is extended as it is translated.
    let made = translated(body);
    assert_eq!((made("setp.ne.s16").len(), made("setp.gt.s16").len(), made("setp.lt.s16").len()), (1, 3, 5));
}

#[test]
fn integral_rounding_of_halves() {
    let body = "\tcvt.rni.s32.f16 %r1, %s;\n\tcvt.rmi.f16.f16 %h0, %s;\n\tcvt.u32.u16 %r2, %h0;\n\tmov.b64 %o0, {%r1, %r2};\n\
                \tcvt.rpi.u32.f16 %r1, %s;\n\tcvt.rzi.f16.f16 %h1, %s;\n\tcvt.u32.u16 %r2, %h1;\n\tmov.b64 %o1, {%r1, %r2};\n\
                \tcvt.rzi.s32.f16 %r1, %s;\n\tcvt.rni.f16.f16 %h2, %s;\n\tcvt.u32.u16 %r2, %h2;\n\tmov.b64 %o2, {%r1, %r2};\n";
    let halves = [0.0f32, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.25, 65504.0, -65504.0, 1000.7, -3.75, 7.0, f32::INFINITY, f32::NAN, 1e-7, 0.99, -0.99];
    let inputs: Vec<(u64, u64)> =
        (0..32).map(|i| (u64::from(half::f16::from_f32(halves[i % halves.len()] * if i >= halves.len() { 3.0 } else { 1.0 }).to_bits()), 0)).collect();
    check(body, &inputs, |x, _| {
        let v = f64::from(half::f16::from_bits(x as u16).to_f32());
        let int = |r: f64| if r.is_nan() { 0 } else { r.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32 as u32 };
        let uint = |r: f64| if r.is_nan() { 0 } else { r.clamp(0.0, f64::from(u32::MAX)) as u32 };
        let half = |r: f64| if r.is_nan() { 0x7FFF } else { u32::from(half::f16::from_f64(r).to_bits()) };
        let pair = |lo: u32, hi: u32| u64::from(lo) | u64::from(hi) << 32;
        [pair(int(v.round_ties_even()), half(v.floor())), pair(uint(v.ceil()), half(v.trunc())), pair(int(v.trunc()), half(v.round_ties_even())), 0, 0, 0, 0, 0]
    });
}

#[test]
fn vote_uni_says_whether_the_warp_agrees() {
    let vote = |n: u32, out: usize| {
        format!("\tsetp.lt.u32 %p1, %r0, {n};\n\tvote.sync.uni.pred %p2, %p1, -1;\n\tselp.u32 %r1, 1, 0, %p2;\n\tcvt.u64.u32 %o{out}, %r1;\n")
    };
    let body = [vote(0, 0), vote(32, 1), vote(5, 2), vote(31, 3)].concat();
    check(&body, &integer_pairs(), |_, _| [1, 1, 0, 0, 0, 0, 0, 0]);
}

/// PTX's `bfe.{u64,s64}`: bits past bit 63, and above the field, are the extension.
fn bfe64(a: u64, pos: u32, len: u32, signed: bool) -> u64 {
    let (pos, len) = (pos & 0xFF, len & 0xFF);
    let msb = if len == 0 { 0 } else { (pos + len - 1).min(63) };
    let sign = u64::from(signed && len != 0 && (a >> msb) & 1 == 1);
    (0..64).fold(0, |d, i| d | (if i < len && pos + i <= 63 { (a >> (pos + i)) & 1 } else { sign }) << i)
}

#[test]
fn bit_fields_of_64_bit_values() {
    let fields = [(4, 8), (60, 8), (70, 3), (0, 64), (0, 0), (32, 32), (1, 63), (63, 1)];
    for ty in ["u64", "s64"] {
        let body: String = fields.iter().enumerate().map(|(i, (pos, len))| format!("\tbfe.{ty} %o{i}, %x, {pos}, {len};\n")).collect();
        check(&body, &integer_pairs(), |x, _| fields.map(|(pos, len)| bfe64(x, pos, len, ty == "s64")));
    }
}

/// PTX's `prmt.b32` byte selection, written from the ISA's tables.
fn prmt(a: u32, b: u32, c: u32, mode: &str) -> u32 {
    let bytes = u64::from(a) | u64::from(b) << 32;
    let byte = |k: u32| (bytes >> (8 * (k % 8))) as u32 & 0xFF;
    let s = c & 3;
    // Each mode's selectors for result bytes 0..3 (the ISA lists them from byte 3 down).
    let selectors: [u32; 4] = match mode {
        "f4e" => [s, s + 1, s + 2, s + 3],
        "b4e" => [s, (s + 7) % 8, (s + 6) % 8, (s + 5) % 8],
        "rc8" => [s; 4],
        "ecl" => [s, s.max(1), s.max(2), 3],
        "ecr" => [0, s.min(1), s.min(2), s.min(3)],
        "rc16" => [2 * (s & 1), 2 * (s & 1) + 1, 2 * (s & 1), 2 * (s & 1) + 1],
        _ => {
            let mut out = 0;
            for i in 0..4 {
                let nibble = (c >> (4 * i)) & 0xF;
                let v = byte(nibble);
                let v = if nibble & 8 == 0 {
                    v
                } else if v & 0x80 != 0 {
                    0xFF
                } else {
                    0
                };
                out |= v << (8 * i);
            }
            return out;
        }
    };
    selectors.iter().enumerate().fold(0, |out, (i, &k)| out | byte(k) << (8 * i))
}

#[test]
fn byte_permutes_and_funnel_shifts() {
    let modes = ["", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"];
    let mut body = String::new();
    for (i, mode) in modes.iter().enumerate() {
        body.push_str(&format!("\tprmt.b32{mode} %r1, %a, %b, %c;\n\tcvt.u64.u32 %o{i}, %r1;\n"));
    }
    body.push_str(
        "\tshf.l.wrap.b32 %r1, %a, %b, %c;\n\tshf.r.wrap.b32 %r2, %a, %b, %c;\n\tshf.l.clamp.b32 %r3, %a, %b, %c;\n\tshf.r.clamp.b32 %r4, %a, %b, %c;\n\
         \txor.b32 %r1, %r1, %r3;\n\txor.b32 %r2, %r2, %r4;\n\tmov.b64 %o7, {%r1, %r2};\n",
    );
    let mut inputs = integer_pairs();
    // Shift amounts and selectors in the high word of `y`: small, 32, large.
    for (i, (_, y)) in inputs.iter_mut().enumerate() {
        let c: u32 = match i % 4 {
            0 => i as u32,
            1 => 32 + i as u32,
            2 => 0x7654_3210u32.rotate_left(4 * i as u32),
            _ => (*y >> 32) as u32,
        };
        *y = (*y & 0xFFFF_FFFF) | u64::from(c) << 32;
    }
    check(&body, &inputs, |x, y| {
        let (a, b, c) = (x as u32, y as u32, (y >> 32) as u32);
        let pair = u64::from(a) | u64::from(b) << 32;
        let (wrap, clamp) = (c & 31, c.min(32));
        let left = |n: u32| ((pair << n) >> 32) as u32;
        let right = |n: u32| (pair >> n) as u32;
        let mut out = [0; 8];
        for (i, mode) in ["", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"].iter().enumerate() {
            out[i] = u64::from(prmt(a, b, c, mode));
        }
        out[7] = u64::from(left(wrap) ^ left(clamp)) | u64::from(right(wrap) ^ right(clamp)) << 32;
        out
    });
}

#[test]
fn saturating_integer_conversions() {
    let body = "\tcvt.sat.u8.s32 %r1, %a;\n\tcvt.u64.u32 %o0, %r1;\n\tcvt.sat.s16.u32 %r2, %a;\n\tcvt.u64.u32 %o1, %r2;\n\
                \tcvt.sat.u32.s64 %r3, %x;\n\tcvt.u64.u32 %o2, %r3;\n\tcvt.sat.s32.s64 %r4, %x;\n\tcvt.u64.u32 %o3, %r4;\n\
                \tcvt.sat.s64.u64 %o4, %x;\n\tcvt.sat.u64.s64 %o5, %x;\n\tcvt.sat.u64.s32 %o6, %a;\n\tcvt.sat.s8.s16 %h0, %s;\n\tcvt.u64.u8 %o7, %h0;\n";
    check(body, &integer_pairs(), |x, _| {
        let a = x as u32;
        let s = a as u16;
        [
            (a as i32).clamp(0, 255) as u64,
            u64::from(a.min(i16::MAX as u32)),
            u64::from((x as i64).clamp(0, i64::from(u32::MAX)) as u32),
            u64::from((x as i64).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32 as u32),
            x.min(i64::MAX as u64),
            (x as i64).max(0) as u64,
            (a as i32).max(0) as u64,
            u64::from((s as i16).clamp(-128, 127) as u16 & 0xFF),
        ]
    });
}

/// PTX extends a conversion's integer result to its destination register's width by the
/// result type's signedness: LLVM's `cvt.s8.s32 %rs1, %r1` then `max.s16 %rs3, %rs1, %rs2`
/// (Triton's `tl.maximum` of two int8 values) relies on `%rs1` holding the byte sign-extended
/// to 16 bits. From integers and from floats, into 16-, 32- and 64-bit registers.
#[test]
fn signed_results_extend_to_their_register() {
    let body = "\tcvt.s8.s32 %h0, %a;\n\tcvt.u64.u16 %o0, %h0;\n\tcvt.s8.s32 %r1, %a;\n\tcvt.u64.u32 %o1, %r1;\n\
                \tcvt.s16.u32 %r2, %a;\n\tcvt.u64.u32 %o2, %r2;\n\tcvt.s16.s8 %r3, %h0;\n\tcvt.u64.u32 %o3, %r3;\n\
                \tcvt.s8.s64 %o4, %x;\n\tcvt.rzi.s8.f32 %h1, %g;\n\tcvt.u64.u16 %o5, %h1;\n\
                \tcvt.rzi.s16.f32 %r4, %g;\n\tcvt.u64.u32 %o6, %r4;\n\tcvt.rzi.s32.f32 %o7, %g;\n\
                \tcvt.u8.s32 %h2, %a;\n\tcvt.u16.s8 %r5, %h0;\n\tcvt.u64.u16 %rd0, %h2;\n\tcvt.u64.u32 %rd1, %r5;\n\
                \tshl.b64 %rd1, %rd1, 16;\n\tor.b64 %o0, %o0, %rd1;\n\tshl.b64 %rd0, %rd0, 48;\n\tor.b64 %o0, %o0, %rd0;\n";
    let floats = [-9.75f32, 9.75, -128.5, -129.0, 127.9, 200.0, -40000.0, 40000.0, -3e9, 3e9, -0.5, f32::NAN, f32::NEG_INFINITY, 1e-40];
    let inputs: Vec<(u64, u64)> = integer_pairs().into_iter().enumerate().map(|(i, (x, y))| (x, floats.get(i).map_or(y, |f| u64::from(f.to_bits())))).collect();
    check(body, &inputs, |x, y| {
        let a = x as u32;
        let g = f32::from_bits(y as u32);
        // Rust's float-to-integer `as` saturates and takes NaN to 0, as PTX's cvt does.
        let (g8, g16, g32) = (g as i8, g as i16, g as i32);
        let byte = a as i8;
        [
            u64::from(byte as i16 as u16) | u64::from(byte as i16 as u16) << 16 | u64::from(a as u8) << 48,
            u64::from(byte as i32 as u32),
            u64::from(a as i16 as i32 as u32),
            u64::from(byte as i32 as u32),
            x as i8 as i64 as u64,
            u64::from(g8 as i16 as u16),
            u64::from(g16 as i32 as u32),
            g32 as i64 as u64,
        ]
    });
}

#[test]
fn wide_integers_to_and_from_floats() {
    let body = "\tcvt.rn.f32.s64 %k0, %x;\n\tcvt.rn.f32.u64 %k1, %x;\n\tmov.b32 %r1, %k0;\n\tmov.b32 %r2, %k1;\n\tmov.b64 %o0, {%r1, %r2};\n\
                \tcvt.rn.f64.s64 %z0, %x;\n\tmov.b64 %o1, %z0;\n\tcvt.rn.f64.u64 %z1, %x;\n\tmov.b64 %o2, %z1;\n\
                \tcvt.rzi.s64.f64 %o3, %q;\n\tcvt.rni.u64.f64 %o4, %q;\n\tcvt.rmi.s64.f32 %o5, %g;\n\tcvt.rpi.u64.f32 %o6, %g;\n\
                \tcvt.rzi.ftz.s64.f32 %o7, %g;\n";
    // `%q` is all of `y` as an f64; `%g` its low word as an f32.
    let doubles = [0.0, -0.0, 0.5, -0.5, 1.5, -2.5, 3.75, -3.75, 1e19, -1e19, 2e19, 9.3e18, -9.3e18, 5e-324, f64::INFINITY, f64::NEG_INFINITY, f64::NAN];
    let floats = [0.5f32, -0.5, 1.5, -2.5, 1e-40, -1e-40, 3.75, -3.75, 1e19, -1e19, 2e19, 9.3e18, -9.3e18, f32::INFINITY, f32::NAN];
    let ints = integer_pairs();
    let inputs: Vec<(u64, u64)> = (0..32)
        .map(|i| {
            // 2^60 + 2^36 + 1 rounds up to f32, but down through f64 then to even.
            let x = if i % 5 == 0 { 0x1000_0010_0000_0001 ^ ((i as u64) << 62) } else { ints[i].0 };
            let y = doubles.get(i).map_or_else(|| 0x4010_0000_0000_0000 | u64::from(floats[i - doubles.len()].to_bits()), |v| v.to_bits());
            (x, y)
        })
        .collect();
    check(body, &inputs, |x, y| {
        let d = f64::from_bits(y);
        let g = f32::from_bits(y as u32);
        let to_i64 = |v: f64| if v.is_nan() { 0 } else { v as i64 as u64 };
        let to_u64 = |v: f64| if v.is_nan() { 0 } else { v as u64 };
        [
            u64::from((x as i64 as f32).to_bits()) | u64::from((x as f32).to_bits()) << 32,
            (x as i64 as f64).to_bits(),
            (x as f64).to_bits(),
            to_i64(d.trunc()),
            to_u64(d.round_ties_even()),
            to_i64(f64::from(g).floor()),
            to_u64(f64::from(g).ceil()),
            to_i64(f64::from(if g.is_subnormal() { 0.0 } else { g }).trunc()),
        ]
    });
}

/// `x` rounded to f32 toward zero (`"rz"`), minus infinity (`"rm"`) or plus infinity (`"rp"`).
fn round_f32(x: f64, mode: &str) -> f32 {
    let r = x as f32;
    if x.is_nan() || f64::from(r) == x {
        return r;
    }
    let toward = |r: f32, up: bool| {
        let next = if r == 0.0 {
            if up { f32::from_bits(1) } else { -f32::from_bits(1) }
        } else if (r > 0.0) == up {
            f32::from_bits(r.to_bits() + 1)
        } else {
            f32::from_bits(r.to_bits() - 1)
        };
        if r.is_infinite() { f32::MAX.copysign(r) } else { next }
    };
    match mode {
        "rz" if f64::from(r).abs() > x.abs() => toward(r, r < 0.0),
        "rm" if f64::from(r) > x => toward(r, false),
        "rp" if f64::from(r) < x => toward(r, true),
        _ => r,
    }
}

#[test]
fn directed_multiplies_f64_min_max_and_tanh() {
    let body = "\tmul.rz.f32 %k0, %f, %g;\n\tmul.rm.f32 %k1, %f, %g;\n\tmov.b32 %r1, %k0;\n\tmov.b32 %r2, %k1;\n\tmov.b64 %o0, {%r1, %r2};\n\
                \tmul.rp.f32 %k2, %f, %g;\n\tmul.rz.ftz.f32 %k3, %f, %g;\n\tmov.b32 %r1, %k2;\n\tmov.b32 %r2, %k3;\n\tmov.b64 %o1, {%r1, %r2};\n\
                \tmin.f64 %z0, %d, %q;\n\tmov.b64 %o2, %z0;\n\tmax.f64 %z1, %d, %q;\n\tmov.b64 %o3, %z1;\n\
                \ttanh.approx.f32 %k0, %f;\n\tmov.b32 %r1, %k0;\n\tcvt.u64.u32 %o4, %r1;\n\
                \tdiv.rn.ftz.f32 %k0, %f, %g;\n\tdiv.approx.ftz.f32 %k1, %f, %g;\n\tmov.b32 %r1, %k0;\n\tmov.b32 %r2, %k1;\n\tmov.b64 %o5, {%r1, %r2};\n\
                \tdiv.rz.ftz.f32 %k0, %f, %g;\n\tmov.b32 %r1, %k0;\n\tcvt.u64.u32 %o6, %r1;\n";
    let values: [f32; 16] = [0.0, -0.0, 1.0, -1.0, 1.0 + f32::EPSILON, 3.0, -1.0 / 3.0, 1e-20, -1e-20, 1e30, -3e38, 1e-39, f32::INFINITY, f32::NAN, 0.1, 7.5];
    let doubles: [f64; 8] = [0.0, -0.0, 1.5, -2.25, f64::NAN, f64::INFINITY, -1e300, 5e-324];
    let inputs: Vec<(u64, u64)> = (0..32)
        .map(|i| {
            let (f, g) = (values[i % 16], values[(i * 7 + 3) % 16]);
            let (d, q) = (doubles[i % 8], doubles[(i / 4) % 8]);
            ((d.to_bits() & !0xFFFF_FFFF) | u64::from(f.to_bits()), (q.to_bits() & !0xFFFF_FFFF) | u64::from(g.to_bits()))
        })
        .collect();
    check(body, &inputs, |x, y| {
        let (f, g) = (f32::from_bits(x as u32), f32::from_bits(y as u32));
        let (d, q) = (f64::from_bits(x), f64::from_bits(y));
        let canon = |v: f32| if v.is_nan() { 0x7FFF_FFFF } else { v.to_bits() };
        let product = f64::from(f) * f64::from(g);
        // An exact zero product keeps the sign of the product.
        let mul = |mode: &str| canon(if product == 0.0 { f * g } else { round_f32(product, mode) });
        let flush = |v: f32| if v.is_subnormal() { 0.0f32.copysign(v) } else { v };
        let mul_ftz = {
            let (ff, gg) = (flush(f), flush(g));
            let p = f64::from(ff) * f64::from(gg);
            canon(flush(if p == 0.0 { ff * gg } else { round_f32(p, "rz") }))
        };
        let pair = |lo: u32, hi: u32| u64::from(lo) | u64::from(hi) << 32;
        let min_max = |max: bool| -> u64 {
            match (d.is_nan(), q.is_nan()) {
                (true, true) => 0x7FFF_FFFF_FFFF_FFFF,
                (true, false) => q.to_bits(),
                (false, true) => d.to_bits(),
                _ if d == q => {
                    if max {
                        d.to_bits() & q.to_bits()
                    } else {
                        d.to_bits() | q.to_bits()
                    }
                }
                _ => {
                    if (d < q) != max {
                        d.to_bits()
                    } else {
                        q.to_bits()
                    }
                }
            }
        };
        [
            pair(mul("rz"), mul("rm")),
            pair(mul("rp"), mul_ftz),
            min_max(false),
            min_max(true),
            u64::from(canon(f64::from(f).tanh() as f32)),
            {
                let q = canon(flush(flush(f) / flush(g)));
                pair(q, q)
            },
            {
                let (ff, gg) = (flush(f), flush(g));
                let exact = f64::from(ff) / f64::from(gg);
                // The f64 quotient of two f32 values is never within 2^-53 of an f32 value it
                // does not equal, so rounding it toward zero rounds the exact quotient.
                u64::from(canon(flush(if exact.is_finite() && exact != 0.0 { round_f32(exact, "rz") } else { ff / gg })))
            },
            0,
        ]
    });
}

/// One operation in every rounding direction: `{r}` in `op` is replaced by `.rz`, `.rm`, `.rp`
/// and `.rn` (results in `%o0` to `%o3`, through `%z0`/`%k0` as `f64` says).
fn directed_body(op: &str, f64: bool) -> String {
    ["rz", "rm", "rp", "rn"]
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let line = op.replace("{r}", r);
            if f64 { format!("\t{line}\n\tmov.b64 %o{i}, %z0;\n") } else { format!("\t{line}\n\tmov.b32 %r1, %k0;\n\tcvt.u64.u32 %o{i}, %r1;\n") }
        })
        .collect()
}

/// Checks a directed-rounding translation: to nearest equals the host's `nearest`, and toward
/// minus and plus infinity bracket it one step apart (or agree), toward zero picking by sign.
fn check_directed(op: &str, is_f64: bool, inputs: &[(u64, u64)], nearest: impl Fn(u64, u64) -> f64) {
    let body = directed_body(op, is_f64);
    let value = |bits: u64| if is_f64 { f64::from_bits(bits) } else { f64::from(f32::from_bits(bits as u32)) };
    let step_up = |v: f64| if is_f64 { v.next_up() } else { f64::from((v as f32).next_up()) };
    for simt in [SimtModel::Its, SimtModel::Stack] {
        for (out, &(x, y)) in outputs(&body, inputs, simt).iter().zip(inputs) {
            let [zero, down, up, near] = [out[0], out[1], out[2], out[3]].map(value);
            let want = nearest(x, y);
            let context = format!("{simt:?}: `{op}` x = {x:#018x} y = {y:#018x}: rz {zero:e} rm {down:e} rp {up:e} rn {near:e}, host {want:e}");
            if want.is_nan() {
                assert!(near.is_nan() && zero.is_nan() && down.is_nan() && up.is_nan(), "{context}");
                continue;
            }
            assert_eq!(near.to_bits(), want.to_bits(), "{context}");
            assert!(down <= near && near <= up && (down == up || step_up(down) == up), "{context}");
            assert_eq!(zero, if down >= 0.0 { down } else { up }, "{context}");
        }
    }
}

#[test]
fn every_direction_of_f64_arithmetic_division_roots_and_conversions() {
    // Pairs whose results rarely land exactly: thirds, tenths, huge and tiny magnitudes.
    let values = [1.0, -1.0, 3.0, 0.1, -0.7, 1e-300, 7e-310, 1e300, -1e308, 1.0 + f64::EPSILON, 2.0 / 3.0, 1e16 + 1.0, 5.0, -2.5e-5, 123456.789, 0.0];
    let inputs: Vec<(u64, u64)> = (0..32).map(|i| (f64::to_bits(values[i % 16]), f64::to_bits(values[(i * 5 + 3) % 16]))).collect();
    let (d, q) = (|x: u64| f64::from_bits(x), |y: u64| f64::from_bits(y));
    check_directed("add.{r}.f64 %z0, %d, %q;", true, &inputs, |x, y| d(x) + q(y));
    check_directed("sub.{r}.f64 %z0, %d, %q;", true, &inputs, |x, y| d(x) - q(y));
    check_directed("mul.{r}.f64 %z0, %d, %q;", true, &inputs, |x, y| d(x) * q(y));
    check_directed("fma.{r}.f64 %z0, %d, %q, %d;", true, &inputs, |x, y| d(x).mul_add(q(y), d(x)));
    check_directed("div.{r}.f64 %z0, %d, %q;", true, &inputs, |x, y| d(x) / q(y));
    check_directed("rcp.{r}.f64 %z0, %d;", true, &inputs, |x, _| 1.0 / d(x));
    check_directed("abs.f64 %z1, %d;\n\tsqrt.{r}.f64 %z0, %z1;", true, &inputs, |x, _| d(x).abs().sqrt());
    check_directed("cvt.{r}.f32.f64 %k0, %d;", false, &inputs, |x, _| f64::from(d(x) as f32));
    // f32 operands are the low words: reinterpret the f64 inputs as f32 pairs.
    let floats: Vec<(u64, u64)> = inputs.iter().map(|&(x, y)| (u64::from((d(x) as f32).to_bits()), u64::from((q(y) as f32).to_bits()))).collect();
    let (f, g) = (|x: u64| f32::from_bits(x as u32), |y: u64| f32::from_bits(y as u32));
    check_directed("div.{r}.f32 %k0, %f, %g;", false, &floats, |x, y| f64::from(f(x) / g(y)));
    check_directed("rcp.{r}.f32 %k0, %f;", false, &floats, |x, _| f64::from(1.0 / f(x)));
    check_directed("abs.f32 %k1, %f;\n\tsqrt.{r}.f32 %k0, %k1;", false, &floats, |x, _| f64::from(f(x).abs().sqrt()));
    // Integers that do not fit the significand.
    let ints: Vec<(u64, u64)> = integer_pairs();
    check_directed("cvt.{r}.f32.s64 %k0, %x;", false, &ints, |x, _| f64::from(x as i64 as f32));
    check_directed("cvt.{r}.f64.u64 %z0, %x;", true, &ints, |x, _| x as f64);
    check_directed("cvt.{r}.f32.u32 %k0, %a;", false, &ints, |x, _| f64::from(x as u32 as f32));
}

#[test]
fn sixty_four_bit_atomics() {
    let source = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 k_param_0)\n{\n\
        \t.reg .b32 %r<4>;\n\t.reg .b64 %rd<16>;\n\t.reg .f64 %fd<4>;\n\
        \tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r1, %tid.x;\n\tcvt.u64.u32 %rd3, %r1;\n\
        \tshl.b64 %rd4, %rd3, 40;\n\tatom.global.add.u64 %rd5, [%rd2], %rd4;\n\tsub.s64 %rd6, 16, %rd3;\n\tred.global.max.s64 [%rd2+8], %rd6;\n\
        \tcvt.rn.f64.u32 %fd1, %r1;\n\tatom.global.add.f64 %fd2, [%rd2+16], %fd1;\n\tatom.global.exch.b64 %rd7, [%rd2+24], %rd4;\n\
        \tatom.global.cas.b64 %rd8, [%rd2+32], %rd3, 1000;\n\tred.global.add.u64 [%rd2+40], -1;\n\
        \tmul.wide.u32 %rd9, %r1, 8;\n\tadd.s64 %rd10, %rd2, %rd9;\n\tst.global.u64 [%rd10+64], %rd5;\n\tmov.b64 %rd11, %fd2;\n\tst.global.u64 [%rd10+320], %rd11;\n\tret;\n}\n";
    for simt in [SimtModel::Its, SimtModel::Stack] {
        let (bytes, _) = run_one_warp(source, vec![Arg::new("k_param_0", ArgInit::Zeros(2 * (8 + 64)))], "k_param_0", simt);
        let word = |i: usize| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap());
        // Lanes apply in lane order: lane l sees the sum of lanes below it.
        let sum = |n: u64| (0..n).map(|l| l << 40).sum::<u64>();
        assert_eq!(word(0), sum(32), "{simt:?}");
        assert_eq!(word(1), 16, "{simt:?}: the largest of 16 - tid");
        assert_eq!(f64::from_bits(word(2)), (0..32).map(f64::from).sum::<f64>(), "{simt:?}");
        assert_eq!(word(3), 31 << 40, "{simt:?}: the last lane's exchange stays");
        assert_eq!(word(4), 1000, "{simt:?}: lane 0 expected 0 and swapped");
        assert_eq!(word(5), (-32i64) as u64, "{simt:?}: -1 sign-extended, 32 times");
        for l in 0..32u64 {
            assert_eq!(word(8 + l as usize), sum(l), "{simt:?}: lane {l}'s old value");
            assert_eq!(f64::from_bits(word(40 + l as usize)), (0..l).map(|v| v as f64).sum::<f64>(), "{simt:?}: lane {l}'s old f64");
        }
    }
}

#[test]
fn trap_stops_the_launch_naming_the_thread_and_line() {
    let source = kernel("\tsetp.eq.u32 %p1, %r0, 5;\n\t@%p1 trap;\n");
    let module = common::translated_module("k.ptx", &source);
    let kernel = &module.kernels[0];
    let request = LaunchRequest {
        grid: Some([1, 1, 1]),
        block: Some([32, 1, 1]),
        args: vec![Arg::new("k_param_0", ArgInit::Zeros(128)), Arg::new("k_param_1", ArgInit::Zeros(512))],
        module_dir: None,
    };
    let launch = prepare(kernel, &request).expect("prepares");
    for simt in [SimtModel::Its, SimtModel::Stack] {
        let fault = simt_interp::run(kernel, &launch.config, &launch.memory, &RunOptions { simt, ..RunOptions::default() }, None).expect_err("traps");
        assert_eq!((fault.kind, fault.lane, fault.thread), (FaultKind::Trap, Some(5), Some([5, 0, 0])), "{simt:?}");
        let line = source.lines().position(|l| l.contains("trap;")).expect("the trap line") as u32 + 1;
        assert_eq!(fault.line, Some(line), "{simt:?}");
    }
}

/// tinygrad's casts between floats and 8- and 16-bit integers: float to integer saturates to
/// the destination's range (NaN gives 0), integer to float widens exactly first; and the
/// arithmetic shift of a signed 16-bit value (its sign, though registers keep it zero-extended).
#[test]
fn narrow_integers_to_and_from_floats_and_their_shifts() {
    let body = "\tcvt.rzi.s8.f32 %h0, %f;\n\tcvt.s64.s8 %o0, %h0;\n\tcvt.rzi.u8.f32 %h1, %f;\n\tcvt.u64.u8 %o1, %h1;\n\
                \tcvt.rzi.s16.f32 %h2, %f;\n\tcvt.s64.s16 %o2, %h2;\n\tcvt.rni.u16.f32 %h3, %f;\n\tcvt.u64.u16 %o3, %h3;\n\
                \tcvt.rn.f32.s8 %k0, %t;\n\tmov.b32 %r1, %k0;\n\tcvt.rn.f32.u16 %k1, %t;\n\tmov.b32 %r2, %k1;\n\tmov.b64 %o4, {%r1, %r2};\n\
                \tand.b32 %r3, %c, 31;\n\tshr.s16 %h0, %t, %r3;\n\tcvt.s64.s16 %o5, %h0;\n\
                \tcvt.rzi.s16.f16 %h1, %t;\n\tcvt.s64.s16 %o6, %h1;\n\tcvt.rn.f64.s8 %z0, %t;\n\tmov.b64 %o7, %z0;\n";
    let floats = [
        1e9f32,
        -1e9,
        127.9,
        -128.5,
        -129.0,
        300.0,
        f32::NAN,
        -0.5,
        255.5,
        65535.9,
        70000.0,
        -1.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        3.7,
        2.5,
        -32768.9,
        32767.5,
        0.0,
        -0.0,
    ];
    let halves = [0x3C00u16, 0xC000, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x0080, 0x00FF, 0xFF80, 0x8000, 0x4A00, 0x57FF, 0xD800, 0x7801, 0x0001];
    let inputs: Vec<(u64, u64)> = (0..32)
        .map(|i| {
            let f = floats[i % floats.len()].to_bits();
            let t = halves[i % halves.len()];
            (u64::from(f), u64::from(t) | ((i as u64 * 3) % 40) << 32)
        })
        .collect();
    check(body, &inputs, |x, y| {
        let f = f32::from_bits(x as u32);
        let t = y as u16;
        let saturate = |v: f32, low: f64, high: f64| if v.is_nan() { 0 } else { f64::from(v).clamp(low, high) as i64 };
        let shift = ((y >> 32) as u32 & 31).min(15);
        let half = half::f16::from_bits(t).to_f32();
        [
            saturate(f.trunc(), -128.0, 127.0) as u64,
            saturate(f.trunc(), 0.0, 255.0) as u64,
            saturate(f.trunc(), -32768.0, 32767.0) as u64,
            saturate(f.round_ties_even(), 0.0, 65535.0) as u64,
            u64::from((f32::from(t as u8 as i8)).to_bits()) | u64::from((f32::from(t)).to_bits()) << 32,
            i64::from((t as i16) >> shift) as u64,
            saturate(half.trunc(), -32768.0, 32767.0) as u64,
            f64::from(t as u8 as i8).to_bits(),
        ]
    });
}

/// Scalar f16 and bf16 arithmetic, one instruction on a pair whose high half is zero: the
/// correctly rounded result (checked against the exact f64 result rounded once), NaN for NaN,
/// and the register still zero-extended (`cvt.u64.u16` reads all of it).
#[test]
fn scalar_half_arithmetic_is_correctly_rounded() {
    let body = "\tadd.f16 %h0, %s, %t;\n\tcvt.u64.u16 %o0, %h0;\n\tsub.rn.f16 %h1, %s, %t;\n\tcvt.u64.u16 %o1, %h1;\n\
                \tmul.f16 %h2, %s, %t;\n\tcvt.u64.u16 %o2, %h2;\n\tmin.f16 %h3, %s, %t;\n\tcvt.u64.u16 %o3, %h3;\n\
                \tmax.f16 %h0, %s, %t;\n\tcvt.u64.u16 %o4, %h0;\n\tadd.bf16 %h1, %s, %t;\n\tcvt.u64.u16 %o5, %h1;\n\
                \tmul.rn.bf16 %h2, %s, %t;\n\tcvt.u64.u16 %o6, %h2;\n";
    let mut random = xorshift(0x2545_F491_4F6C_DD1D);
    let mut next = || random() as u16;
    let edges =
        [(0x3C00, 0x3C01), (0x7BFF, 0x7BFF), (0x0001, 0x8001), (0x7C00, 0xFC00), (0x7E00, 0x3C00), (0x0400, 0x83FF), (0xFBFF, 0x4000), (0x1400, 0x1400)];
    let inputs: Vec<(u64, u64)> = (0..32)
        .map(|i| {
            let (s, t) = edges.get(i).copied().unwrap_or_else(|| (next(), next()));
            (u64::from(s), u64::from(t))
        })
        .collect();
    let is_nan_half = |bits: u64| bits as u16 & 0x7C00 == 0x7C00 && bits as u16 & 0x3FF != 0;
    let source = kernel(body);
    let module = common::translated_module("k.ptx", &source);
    for (op, mnemonic) in [("add.f16", "HADD2"), ("sub.rn.f16", "HFMA2"), ("mul.f16", "HMUL2"), ("min.f16", "HMIN2"), ("mul.rn.bf16", "HMUL2.BF16X2")] {
        let line = source.lines().position(|l| l.contains(op)).expect("the instruction") as u32 + 1;
        let kernel = &module.kernels[0];
        let made: Vec<String> = kernel.lines.iter().zip(&kernel.code).filter(|&(&l, _)| l == line).map(|(_, i)| simt_isa::format_mnemonic(&i.form)).collect();
        assert_eq!(made, [mnemonic], "`{op}`");
    }
    for simt in [SimtModel::Its, SimtModel::Stack] {
        for (lane, (out, &(x, y))) in outputs(body, &inputs, simt).iter().zip(&inputs).enumerate() {
            let (a, b) = (half::f16::from_bits(x as u16).to_f64(), half::f16::from_bits(y as u16).to_f64());
            let (p, q) = (half::bf16::from_bits(x as u16).to_f64(), half::bf16::from_bits(y as u16).to_f64());
            let h = |v: f64| u64::from(half::f16::from_f64(v).to_bits());
            let bh = |v: f64| u64::from(half::bf16::from_f64(v).to_bits());
            // min and max return the other operand for one NaN, and -0 below +0.
            let pick = |max: bool| match (a.is_nan(), b.is_nan()) {
                (true, _) => y,
                (_, true) => x,
                _ if (a < b || (a == b && x as u16 == 0x8000)) != max => x,
                _ => y,
            };
            let want = [h(a + b), h(a - b), h(a * b), pick(false), pick(true), bh(p + q), bh(p * q)];
            for (k, &w) in want.iter().enumerate() {
                let nan = if k < 5 { is_nan_half(w) } else { half::bf16::from_bits(w as u16).is_nan() };
                let got_nan = if k < 5 { is_nan_half(out[k]) } else { half::bf16::from_bits(out[k] as u16).is_nan() };
                assert!(
                    if nan { got_nan } else { out[k] == w },
                    "{simt:?}: output {k} of lane {lane}: {:#06x} for {x:#06x}, {y:#06x}, expected {w:#06x}",
                    out[k]
                );
            }
        }
    }
}

/// Pairs of halves in one register: `mov.b32` packs two 16-bit registers (the first in the
/// low half) and unpacks them, `cvt.rn.f16x2.f32 d, a, b` rounds two floats with `a` in the
/// upper half, `neg`/`abs` of a pair or a half flip or clear sign bits only (NaNs included).
#[test]
fn pairs_of_halves() {
    let body = "\tmov.b32 %r1, {%s, %t};\n\tcvt.u64.u32 %o0, %r1;\n\tmov.b32 {%h0, %h1}, %b;\n\tcvt.u32.u16 %r2, %h0;\n\tcvt.u32.u16 %r3, %h1;\n\
                \tmov.b64 %o1, {%r2, %r3};\n\tcvt.rn.f16x2.f32 %r4, %f, %g;\n\tcvt.u64.u32 %o2, %r4;\n\tcvt.rn.bf16x2.f32 %r5, %f, %g;\n\tcvt.u64.u32 %o3, %r5;\n\
                \tneg.f16x2 %r6, %a;\n\tabs.bf16x2 %r7, %a;\n\tmov.b64 %o4, {%r6, %r7};\n\tneg.f16 %h2, %s;\n\tabs.f16 %h3, %t;\n\
                \tcvt.u32.u16 %r2, %h2;\n\tcvt.u32.u16 %r3, %h3;\n\tmov.b64 %o5, {%r2, %r3};\n";
    let floats = [1.0f32, -2.5, 65520.0, 1e-8, f32::NAN, f32::INFINITY, 3.140625, -0.0, 1.000_976_6, 6.1e-5];
    let inputs: Vec<(u64, u64)> = (0..32)
        .map(|i| {
            let (f, g) = (floats[i % floats.len()], floats[(i * 7 + 3) % floats.len()]);
            (u64::from(f.to_bits()), u64::from(g.to_bits()))
        })
        .collect();
    check(body, &inputs, |x, y| {
        let (a, b) = (x as u32, y as u32);
        let (f, g) = (f32::from_bits(a), f32::from_bits(b));
        let h = |v: f32| u32::from(half::f16::from_f32(v).to_bits());
        let bh = |v: f32| u32::from(half::bf16::from_f32(v).to_bits());
        // PACK turns every NaN into the canonical one of its format.
        let hn = |v: f32| if v.is_nan() { 0x7FFF } else { h(v) };
        let bn = |v: f32| if v.is_nan() { 0x7FFF } else { bh(v) };
        [
            u64::from((a & 0xFFFF) | (b & 0xFFFF) << 16),
            u64::from(b & 0xFFFF) | u64::from(b >> 16) << 32,
            u64::from(hn(g) | hn(f) << 16),
            u64::from(bn(g) | bn(f) << 16),
            u64::from(a ^ 0x8000_8000) | u64::from(a & 0x7FFF_7FFF) << 32,
            u64::from((a & 0xFFFF) ^ 0x8000) | u64::from(b & 0x7FFF) << 32,
            0,
            0,
        ]
    });
}

/// Bytes of a word and FP4 pairs (Triton's fp4 operands on sm_100a): `mov.b32` unpacks a word
/// into four bytes and packs them back (the first lowest), `cvt.rn.{f16x2,bf16x2}.e2m1x2`
/// widens a byte's two E2M1 values (the low nibble into the low half) exactly, and
/// `cvt.rn.satfinite.e2m1x2.f32 d, a, b` rounds two floats to nearest even, saturating, `a` in
/// the high nibble.
#[test]
fn bytes_and_fp4_pairs() {
    let body = "\tmov.b32 {%u0, %u1, %u2, %u3}, %a;\n\tmov.b32 %r1, {%u3, %u2, %u1, %u0};\n\tcvt.u64.u32 %o0, %r1;\n\
                \tcvt.u32.u8 %r2, %u1;\n\tcvt.u32.u8 %r3, %u3;\n\tmov.b64 %o1, {%r2, %r3};\n\
                \tcvt.rn.f16x2.e2m1x2 %r4, %u0;\n\tcvt.rn.bf16x2.e2m1x2 %r5, %u2;\n\tmov.b64 %o2, {%r4, %r5};\n\
                \tcvt.rn.satfinite.e2m1x2.f32 %u1, %f, %g;\n\tcvt.u64.u8 %o3, %u1;\n";
    let floats = [1.0f32, -2.5, 0.25, 0.75, 5.0, -7.0, 1e9, -0.0, 2.5, f32::INFINITY, 1.75, 3.5];
    let mut next = xorshift(0x2545_F491_4F6C_DD1D);
    let inputs: Vec<(u64, u64)> = (0..32)
        .map(|i| {
            let (f, g) = (floats[i % floats.len()], floats[(i * 5 + 1) % floats.len()]);
            (u64::from(f.to_bits()) ^ (next() & 0x00FF_FF00), u64::from(g.to_bits()))
        })
        .collect();
    // E2M1: sign, two exponent bits biased by 1, one mantissa bit; 0.5 the subnormal step.
    let e2m1 = |code: u32| {
        let magnitude = [0.0f32, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0][(code & 7) as usize];
        if code & 8 != 0 { -magnitude } else { magnitude }
    };
    let nearest = |v: f32| -> u32 {
        // Ties to the even code (the one whose mantissa bit is 0); past 6, 6.
        let m = v.abs().min(6.0);
        let codes = (0..8u32).map(|c| (c, e2m1(c)));
        let best = codes.min_by(|&(c, x), &(d, y)| (x - m).abs().total_cmp(&(y - m).abs()).then((c & 1).cmp(&(d & 1)))).unwrap().0;
        best | if v.is_sign_negative() { 8 } else { 0 }
    };
    check(body, &inputs, |x, y| {
        let a = x as u32;
        let byte = |k: u32| (a >> (8 * k)) & 0xFF;
        let h = |c: u32| u32::from(half::f16::from_f32(e2m1(c)).to_bits());
        let bh = |c: u32| u32::from(half::bf16::from_f32(e2m1(c)).to_bits());
        let (f, g) = (f32::from_bits(a), f32::from_bits(y as u32));
        [
            u64::from(a.swap_bytes()),
            u64::from(byte(1)) | u64::from(byte(3)) << 32,
            u64::from(h(byte(0) & 15) | h(byte(0) >> 4) << 16) | u64::from(bh(byte(2) & 15) | bh(byte(2) >> 4) << 16) << 32,
            u64::from(nearest(g) | nearest(f) << 4),
            0,
            0,
            0,
            0,
        ]
    });
}

/// Mixed precision (sm_100, Triton's fp8 sums): `add`, `sub` and `fma` of `.f32` with `.f16` or
/// `.bf16` operands widen those exactly, then round once in f32.
#[test]
fn mixed_precision_arithmetic() {
    let body = "\tadd.rn.f32.f16 %k0, %s, %g;\n\tsub.rn.f32.bf16 %k1, %t, %f;\n\tfma.rn.f32.f16 %k2, %s, %t, %g;\n\tfma.rn.f32.bf16 %k3, %s, %t, %f;\n\
                \tmov.b32 %r1, %k0;\n\tmov.b32 %r2, %k1;\n\tmov.b64 %o0, {%r1, %r2};\n\tmov.b32 %r1, %k2;\n\tmov.b32 %r2, %k3;\n\tmov.b64 %o1, {%r1, %r2};\n";
    let mut next = xorshift(0x5851_F42D_4C95_7F2D);
    let inputs: Vec<(u64, u64)> = (0..32).map(|_| (next() & 0x7FFF_FFFF_BFFF_BFFF, next() & 0x3FFF_FFFF_BFFF_BFFF)).collect();
    check(body, &inputs, |x, y| {
        let (a, b) = (x as u32, y as u32);
        let (f, g) = (f32::from_bits(a), f32::from_bits(b));
        let h = |bits: u32| half::f16::from_bits(bits as u16).to_f32();
        let bh = |bits: u32| half::bf16::from_bits(bits as u16).to_f32();
        let canonical = |v: f32| u64::from(if v.is_nan() { 0x7FFF_FFFF } else { v.to_bits() });
        let (s, t) = (a & 0xFFFF, b & 0xFFFF);
        [canonical(h(s) + g) | canonical(bh(t) - f) << 32, canonical(h(s).mul_add(h(t), g)) | canonical(bh(s).mul_add(bh(t), f)) << 32, 0, 0, 0, 0, 0, 0]
    });
}

/// Pairs of 16-bit integers (sm_90's `max.u16x2`, `min.s16x2`, `add.s16x2` (Triton's int16
/// sums), `sub.u16x2`: each half on its own, wrapping; `max.relu.s16x2`), and `.relu` of
/// `min`/`max.s32` (Triton's `tl.maximum` on sm_120a), inside a nested scope that declares `a`
/// and the range `a<2>` at once, as Triton's inline conversions do.
#[test]
fn pairs_of_16_bit_integers_in_a_scope_of_two_namesakes() {
    let body = "\t{\n\t.reg .b32 a;\n\t.reg .b16 a<2>;\n\tmov.b32 a, %a;\n\tmov.b32 {a0, a1}, a;\n\tmov.b32 %r1, {a1, a0};\n\t}\n\
                \tcvt.u64.u32 %o0, %r1;\n\tmax.u16x2 %r2, %a, %b;\n\tmin.s16x2 %r3, %a, %b;\n\tmov.b64 %o1, {%r2, %r3};\n\
                \tadd.s16x2 %r4, %a, %b;\n\tsub.u16x2 %r5, %a, %b;\n\tmov.b64 %o2, {%r4, %r5};\n\tadd.u16x2 %r6, %a, 0x8001FFFF;\n\tcvt.u64.u32 %o3, %r6;\n\
                \tmax.relu.s32 %r6, %a, %b;\n\tmin.relu.s32 %r7, %a, %b;\n\tmov.b64 %o4, {%r6, %r7};\n\tmax.relu.s16x2 %r6, %a, %b;\n\tcvt.u64.u32 %o5, %r6;\n";
    check(body, &integer_pairs(), |x, y| {
        let (a, b) = (x as u32, y as u32);
        let halves = |v: u32| [v & 0xFFFF, v >> 16];
        let pack = |h: [u32; 2]| u64::from(h[0] | h[1] << 16);
        let (ha, hb, hc) = (halves(a), halves(b), halves(0x8001_FFFF));
        let max_u = pack([0, 1].map(|i| ha[i].max(hb[i])));
        let min_s = pack([0, 1].map(|i| (ha[i] as u16 as i16).min(hb[i] as u16 as i16) as u16 as u32));
        let add = |h: [u32; 2]| pack([0, 1].map(|i| (ha[i] + h[i]) & 0xFFFF));
        let sub = pack([0, 1].map(|i| ha[i].wrapping_sub(hb[i]) & 0xFFFF));
        let relu = |v: i32| v.max(0) as u32;
        let max_relu = pack([0, 1].map(|i| relu(i32::from((ha[i] as u16 as i16).max(hb[i] as u16 as i16)))));
        let (sa, sb) = (a as i32, b as i32);
        [
            pack([ha[1], ha[0]]),
            max_u | min_s << 32,
            add(hb) | sub << 32,
            add(hc),
            u64::from(relu(sa.max(sb))) | u64::from(relu(sa.min(sb))) << 32,
            max_relu,
            0,
            0,
        ]
    });
}

/// `lop3.b32` (Triton's fp8 conversions on sm_80): each bit of the result is bit `4a + 2b + c`
/// of the table; and `cvt.rz.{f16x2,bf16x2}.f32 d, a, b` rounds each float toward zero, `a` in
/// the upper half.
#[test]
fn lop3_and_pairs_rounded_toward_zero() {
    let body = "\tlop3.b32 %r1, %a, %b, %e, 0x96;\n\tlop3.b32 %r2, %a, %b, %e, 0xE8;\n\tmov.b64 %o0, {%r1, %r2};\n\
                \tlop3.b32 %r3, %a, %b, %e, 0xF8;\n\tlop3.b32 %r4, %a, %b, %e, 0x1A;\n\tmov.b64 %o1, {%r3, %r4};\n\
                \tcvt.rz.f16x2.f32 %r5, %f, %g;\n\tcvt.rz.bf16x2.f32 %r6, %f, %g;\n\tmov.b64 %o2, {%r5, %r6};\n";
    let floats = [1.0f32, -2.5, 65520.0, 1e-8, 3.140_625, -0.0, 1.000_976_6, 6.1e-5, 1e5, -7e4, 0.1, -1.0e-30];
    let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
    let inputs: Vec<(u64, u64)> = (0..32)
        .map(|i| {
            let (f, g) = (floats[i % floats.len()], floats[(i * 7 + 3) % floats.len()]);
            (u64::from(f.to_bits()) | next() << 32, u64::from(g.to_bits()))
        })
        .collect();
    // Round to nearest, then a step toward zero where that went past the value (an infinity
    // is a step past the largest finite value).
    let toward_zero = |v: f32, bits: u16, back: f32| if back.abs() > v.abs() { u32::from(bits - 1) } else { u32::from(bits) };
    let h = |v: f32| {
        let x = half::f16::from_f32(v);
        toward_zero(v, x.to_bits(), x.to_f32())
    };
    let bh = |v: f32| {
        let x = half::bf16::from_f32(v);
        toward_zero(v, x.to_bits(), x.to_f32())
    };
    check(body, &inputs, |x, y| {
        let (a, e, b) = (x as u32, (x >> 32) as u32, y as u32);
        let (f, g) = (f32::from_bits(a), f32::from_bits(b));
        [
            u64::from(a ^ b ^ e) | u64::from((a & b) | (a & e) | (b & e)) << 32,
            u64::from(a | (b & e)) | u64::from(((a & b) | e) ^ a) << 32,
            u64::from(h(g) | h(f) << 16) | u64::from(bh(g) | bh(f) << 16) << 32,
            0,
            0,
            0,
            0,
            0,
        ]
    });
}

/// Pairs of halves, each half on its own (the low half first), and f16 `fma`, rounded once:
/// Triton's `fma.rn.f16x2` and friends. Checked half by half against the definition.
#[test]
fn pair_arithmetic_and_half_fma() {
    let body = "\tadd.f16x2 %r1, %a, %b;\n\tmul.rn.bf16x2 %r2, %a, %b;\n\tmov.b64 %o0, {%r1, %r2};\n\
                \tfma.rn.f16x2 %r3, %a, %b, %e;\n\tmin.f16x2 %r4, %a, %b;\n\tmov.b64 %o1, {%r3, %r4};\n\
                \tsub.f16x2 %r5, %a, %b;\n\tmax.bf16x2 %r6, %a, %b;\n\tmov.b64 %o2, {%r5, %r6};\n\
                \tcvt.u16.u32 %h3, %e;\n\tfma.rn.f16 %h0, %s, %t, %h3;\n\tcvt.u64.u16 %o3, %h0;\n";
    let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
    // Halves near 1 (so sums round), and some of anything (NaN, infinities, subnormals).
    let mut half = |i: usize| -> u64 { if i % 4 == 3 { next() & 0xFFFF } else { 0x3000 | (next() & 0x1FFF) | ((next() & 1) << 15) } };
    let inputs: Vec<(u64, u64)> =
        (0..32).map(|i| (half(i) | half(i + 1) << 16 | half(i + 2) << 32 | half(i + 3) << 48, half(i + 5) | half(i + 6) << 16)).collect();
    let f = |bits: u64| half::f16::from_bits(bits as u16).to_f64();
    let bf = |bits: u64| half::bf16::from_bits(bits as u16).to_f64();
    let h = |v: f64| u64::from(half::f16::from_f64(v).to_bits());
    let bh = |v: f64| u64::from(half::bf16::from_f64(v).to_bits());
    for simt in [SimtModel::Its, SimtModel::Stack] {
        for (lane, (out, &(x, y))) in outputs(body, &inputs, simt).iter().zip(&inputs).enumerate() {
            let (a, b, e) = (x & 0xFFFF_FFFF, y & 0xFFFF_FFFF, x >> 32);
            let halves = |word: u64| [word & 0xFFFF, word >> 16];
            let pair = |op: &dyn Fn(u64, u64, u64) -> u64| {
                let [a0, a1] = halves(a);
                let [b0, b1] = halves(b);
                let [e0, e1] = halves(e);
                op(a0, b0, e0) | op(a1, b1, e1) << 16
            };
            let pick = |p: f64, q: f64, pb: u64, qb: u64, max: bool| match (p.is_nan(), q.is_nan()) {
                (true, true) => 0x7FFF,
                (true, _) => qb,
                (_, true) => pb,
                _ if (p < q || (p == q && pb == 0x8000)) != max => pb,
                _ => qb,
            };
            let want = [
                pair(&|p, q, _| h(f(p) + f(q))) | pair(&|p, q, _| bh(bf(p) * bf(q))) << 32,
                pair(&|p, q, r| h(f(p).mul_add(f(q), f(r)))) | pair(&|p, q, _| pick(f(p), f(q), p, q, false)) << 32,
                pair(&|p, q, _| h(f(p) - f(q))) | pair(&|p, q, _| pick(bf(p), bf(q), p, q, true)) << 32,
                h(f(x & 0xFFFF).mul_add(f(y & 0xFFFF), f(e & 0xFFFF))),
            ];
            // NaN results are any NaN: compare them as NaNs, half by half.
            let is_nan = |bits: u64, brain: bool| if brain { bf(bits).is_nan() } else { f(bits).is_nan() };
            for (k, &w) in want.iter().enumerate() {
                for slot in 0..if k == 3 { 1 } else { 4 } {
                    let brain = (k == 0 || k == 2) && slot >= 2;
                    let (got, w) = ((out[k] >> (16 * slot)) & 0xFFFF, (w >> (16 * slot)) & 0xFFFF);
                    assert!(
                        if is_nan(w, brain) { is_nan(got, brain) } else { got == w },
                        "{simt:?}: output {k} half {slot} of lane {lane}: {got:#06x}, want {w:#06x} (x {x:#018x}, y {y:#018x})"
                    );
                }
            }
        }
    }
}

/// bf16 `fma`, rounded once: on pairs and on a single half. Random halves near 1 (their f64
/// sum is exact, so rounding it once is the definition), and the tie 3 (1 + 2^-7) with 2^-100
/// below and above it, where rounding an f64 sum first would go to even both times.
#[test]
fn bf16_fma_rounds_once() {
    let body = "\tfma.rn.bf16x2 %r1, %a, %b, %c;\n\tcvt.u64.u32 %o0, %r1;\n\tcvt.u16.u32 %h1, %c;\n\tfma.rn.bf16 %h0, %s, %t, %h1;\n\tcvt.u64.u16 %o1, %h0;\n";
    let mut next = xorshift(0x2545_F491_4F6C_DD1D);
    let mut half = || 0x3E00 | (next() & 0x3FF) | ((next() & 1) << 15);
    let mut inputs: Vec<(u64, u64)> = (0..32).map(|_| (half() | half() << 16, half() | half() << 16 | (half() | half() << 16) << 32)).collect();
    inputs[0] = (0x4040_4040, 0x0D80_8D80_3F81_3F81);
    let bf = |bits: u64| half::bf16::from_bits(bits as u16).to_f64();
    let fma = |a: u64, b: u64, c: u64| {
        let exact = bf(a).mul_add(bf(b), bf(c));
        u64::from(half::bf16::from_f64(exact).to_bits())
    };
    check(body, &inputs, |x, y| {
        let (a, b, c) = (x & 0xFFFF_FFFF, y & 0xFFFF_FFFF, y >> 32);
        let want = if x == 0x4040_4040 { 0x4042_4041 } else { fma(a, b, c) | fma(a >> 16, b >> 16, c >> 16) << 16 };
        [want, want & 0xFFFF, 0, 0, 0, 0, 0, 0]
    });
}

/// Comparisons of halves (tinygrad's `setp.lt.f16`), each one `HSETP2`: ordered and unordered,
/// one half or a pair into two predicates (`p|q`, the low halves into `p`), and combined with a
/// predicate, also one of its own destinations.
#[test]
fn half_comparisons() {
    let body = "\tsetp.lt.f16 %p1, %s, %t;\n\tselp.u32 %r1, 1, 0, %p1;\n\tsetp.neu.bf16 %p2, %s, %t;\n\tselp.u32 %r2, 1, 0, %p2;\n\tmov.b64 %o0, {%r1, %r2};\n\
                \tsetp.gtu.f16x2 %p1|%p2, %a, %b;\n\tselp.u32 %r1, 1, 0, %p1;\n\tselp.u32 %r2, 1, 0, %p2;\n\tmov.b64 %o1, {%r1, %r2};\n\
                \tsetp.ne.u32 %p3, %c, 0;\n\tsetp.le.and.bf16x2 %p1|%p2, %a, %b, %p3;\n\tselp.u32 %r1, 1, 0, %p1;\n\tselp.u32 %r2, 1, 0, %p2;\n\tmov.b64 %o2, {%r1, %r2};\n\
                \tsetp.gt.or.f16x2 %p3|%p1, %a, %b, %p3;\n\tselp.u32 %r1, 1, 0, %p3;\n\tselp.u32 %r2, 1, 0, %p1;\n\tmov.b64 %o3, {%r1, %r2};\n";
    // Zeros of both signs, NaNs, infinities, subnormals and ordinary values, in f16 and bf16 alike.
    let halves = [0x0000u64, 0x8000, 0x7E00, 0x7FC0, 0x7C00, 0xFC00, 0x0001, 0x3C00, 0xBC00, 0x3C01, 0x4000, 0x7F80];
    let mut next = xorshift(0x2545_F491_4F6C_DD1D);
    let mut pick = || halves[(next() % halves.len() as u64) as usize];
    let inputs: Vec<(u64, u64)> = (0..32).map(|lane| (pick() | pick() << 16, pick() | pick() << 16 | (lane % 2) << 32)).collect();
    let f = |bits: u64| half::f16::from_bits(bits as u16).to_f32();
    let bf = |bits: u64| half::bf16::from_bits(bits as u16).to_f32();
    check(body, &inputs, |x, y| {
        let (a, b, c) = (x & 0xFFFF_FFFF, y & 0xFFFF_FFFF, y >> 32);
        let gtu = |p: f32, q: f32| p > q || p.is_nan() || q.is_nan();
        let pair = |lo: bool, hi: bool| u64::from(lo) | u64::from(hi) << 32;
        [
            pair(f(a) < f(b), bf(a) != bf(b)),
            pair(gtu(f(a), f(b)), gtu(f(a >> 16), f(b >> 16))),
            pair(bf(a) <= bf(b) && c != 0, bf(a >> 16) <= bf(b >> 16) && c != 0),
            // The combining predicate is read before either destination is written.
            pair(f(a) > f(b) || c != 0, f(a >> 16) > f(b >> 16) || c != 0),
            0,
            0,
            0,
            0,
        ]
    });
    // Each `setp` on halves is one HSETP2: a single half's high result is discarded (PT).
    let source = kernel(body);
    let module = common::translated_module("k.ptx", &source);
    let kernel = &module.kernels[0];
    for (i, line) in source.lines().enumerate().filter(|(_, l)| l.contains("setp.") && l.contains("16")) {
        let made: Vec<String> =
            kernel.lines.iter().zip(&kernel.code).filter(|&(&l, _)| l as usize == i + 1).map(|(_, i)| simt_isa::format_mnemonic(&i.form)).collect();
        assert!(made.len() == 1 && made[0].starts_with("HSETP2"), "{line}: {made:?}");
    }
}

/// An integer literal wider than its use keeps its low bits, as ptxas does (`mov.b32 %r,
/// 4294967297` is 1): tinygrad writes `4294967296U` for a 32-bit counter's overflow. Into a
/// 16-bit register it keeps 16, so the register stays zero-extended (`cvt.u32.u16` of it is a
/// plain copy).
#[test]
fn wide_literals_keep_their_low_bits() {
    let body = "\tmov.b32 %r1, 4294967296U;\n\tadd.u32 %r2, %a, 4294967297;\n\tmov.b64 %o0, {%r1, %r2};\n\tmov.b16 %h0, 65537;\n\tcvt.u64.u16 %o1, %h0;\n\
                \tsetp.eq.u32 %p1, %a, %a;\n\tselp.b16 %h1, 65538, 0, %p1;\n\tcvt.u32.u16 %r3, %h1;\n\tcvt.u64.u32 %o2, %r3;\n";
    check(body, &integer_pairs(), |x, _| [u64::from((x as u32).wrapping_add(1)) << 32, 1, 2, 0, 0, 0, 0, 0]);
}

/// tinygrad's addresses, `cvt.s64.s32 %t, %i` then `mad.lo.s64 %t, %t, k, %base`, become one
/// `IMAD.WIDE` (as ptxas makes them) where nothing else reads the converted value, nothing
/// writes the index between, and `k` fits 32 bits; otherwise they stay as written. Both give
/// PTX's values, negative and large indices included.
#[test]
fn index_products_fuse_into_one_imad_wide() {
    let body = "\tcvt.s64.s32 %o0, %a;\n\tmad.lo.s64 %o0, %o0, 8, %y;\n\
                \tcvt.s64.s32 %o5, %b;\n\tmad.lo.s64 %o1, %o5, -4, %x;\n\tadd.s64 %o1, %o1, %o5;\n\
                \tcvt.s64.s32 %o3, %c;\n\tmad.lo.s64 %o3, %o3, 4294967296, %y;\n\
                \tcvt.u64.u32 %o4, %b;\n\tmad.lo.u64 %o4, 16, %o4, %x;\n\
                \tcvt.s64.s32 %o6, %a;\n\tcvt.s64.s32 %o7, %a;\n\tmad.lo.s64 %o6, %o6, 2, %x;\n\tmad.lo.s64 %o7, %o7, 4, %y;\n\
                \tcvt.u64.u32 %o2, %e;\n\tadd.u32 %e, %e, 1;\n\tmad.lo.u64 %o2, %o2, 3, %x;\n";
    check(body, &integer_pairs(), |x, y| {
        let sext = |w: u64| i64::from(w as u32 as i32) as u64;
        let (a, e, b, c) = (x & 0xFFFF_FFFF, x >> 32, y & 0xFFFF_FFFF, y >> 32);
        [
            sext(a).wrapping_mul(8).wrapping_add(y),
            sext(b).wrapping_mul(-4i64 as u64).wrapping_add(x).wrapping_add(sext(b)),
            e.wrapping_mul(3).wrapping_add(x),
            (sext(c) << 32).wrapping_add(y),
            b.wrapping_mul(16).wrapping_add(x),
            sext(b),
            sext(a).wrapping_mul(2).wrapping_add(x),
            sext(a).wrapping_mul(4).wrapping_add(y),
        ]
    });
    let made = translated(body);
    for (cvt, mad, fused) in [
        ("cvt.s64.s32 %o0", "mad.lo.s64 %o0", true),
        ("cvt.s64.s32 %o5", "mad.lo.s64 %o1", false),
        ("cvt.s64.s32 %o3", "mad.lo.s64 %o3", false),
        ("cvt.u64.u32 %o4", "mad.lo.u64 %o4", true),
        ("cvt.s64.s32 %o6", "mad.lo.s64 %o6", true),
        ("cvt.s64.s32 %o7", "mad.lo.s64 %o7", true),
        ("cvt.u64.u32 %o2", "mad.lo.u64 %o2", false),
    ] {
        assert_eq!(made(cvt).is_empty(), fused, "{cvt}: {:?}", made(cvt));
        if fused {
            assert!(made(mad)[0].starts_with("IMAD.WIDE"), "{mad}: {:?}", made(mad));
        }
    }
}

/// PTX's carry flag on 32-bit integers, kept in a register of its own: a 64-bit sum from
/// `add.cc` + `addc`, a three-word sum through `addc.cc`, and `a * b + c` in 64 bits from
/// `mad.lo.cc` + `madc.hi` (Triton's range reduction in `sin`/`cos`).
#[test]
fn carry_chains() {
    let body = "\tadd.cc.u32 %r1, %a, %b;\n\taddc.u32 %r2, %e, %c;\n\tmov.b64 %o0, {%r1, %r2};\n\
                \tadd.cc.u32 %r3, %a, %b;\n\taddc.cc.u32 %r4, %e, %c;\n\taddc.u32 %r5, 0, 0;\n\tmov.b64 %o1, {%r3, %r4};\n\tcvt.u64.u32 %o2, %r5;\n\
                \tmad.lo.cc.u32 %r6, %a, %b, %e;\n\tmadc.hi.u32 %r7, %a, %b, 0;\n\tmov.b64 %o3, {%r6, %r7};\n";
    let mut inputs = integer_pairs();
    inputs[0] = (u64::MAX, 1);
    inputs[1] = (0xFFFF_FFFF, 1);
    check(body, &inputs, |x, y| {
        let (a, e) = (x as u32, (x >> 32) as u32);
        let b = y as u32;
        let wide = u128::from(x) + u128::from(y);
        let mad = u64::from(a) * u64::from(b) + u64::from(e);
        [x.wrapping_add(y), wide as u64, (wide >> 64) as u64, mad, 0, 0, 0, 0]
    });
}

/// Borrows and 64-bit carries share the carry flag: `sub.cc` + `subc` give a 64-bit
/// difference a word at a time (libdevice's double-precision `sin`/`cos` reduction), `subc` of
/// zeros reads the borrow back as all ones, a 64-bit `add.cc`/`sub.cc` carries into the next
/// instruction of either width (clang's `__int128`), literals included, and a `subc` after an
/// `add.cc` takes the carry as its borrow, as PTX defines `d = a - (b + CC.CF)`.
#[test]
fn borrows_and_64_bit_carries() {
    let body = "\tsub.cc.u32 %r1, %a, %b;\n\tsubc.cc.u32 %r2, %e, %c;\n\tsubc.u32 %r3, 0, 0;\n\tmov.b64 %o0, {%r1, %r2};\n\
                \tadd.cc.u64 %o2, %x, -1;\n\taddc.u32 %r4, 0, 0;\n\tmov.b64 %o1, {%r3, %r4};\n\
                \tadd.cc.u64 %o3, %x, %y;\n\taddc.u64 %o4, %x, 0;\n\tsub.cc.u64 %o5, 5, %y;\n\tsubc.u64 %o6, %y, %x;\n\
                \tadd.cc.u32 %r5, %a, %b;\n\tsubc.u32 %r6, %e, %c;\n\tcvt.u64.u32 %o7, %r6;\n";
    check(body, &integer_pairs(), |x, y| {
        let (a, e, b, c) = (x as u32, (x >> 32) as u32, y as u32, (y >> 32) as u32);
        let borrow = |n: bool| if n { 0xFFFF_FFFF } else { 0 };
        let sum_carries = x.checked_add(y).is_none();
        [
            x.wrapping_sub(y),
            borrow(x < y) | u64::from(x != 0) << 32,
            x.wrapping_sub(1),
            x.wrapping_add(y),
            x + u64::from(sum_carries),
            5u64.wrapping_sub(y),
            y.wrapping_sub(x).wrapping_sub(u64::from(y > 5)),
            u64::from(e.wrapping_sub(c).wrapping_sub(u32::from(a.checked_add(b).is_none()))),
        ]
    });
}

/// `match.{any,all}.sync.b64` compare whole 64-bit values: lanes that agree on one word but
/// not the other are not matched (numba's `match_any_sync` of an `int64`).
#[test]
fn matches_of_64_bit_values() {
    let body = "\tmatch.any.sync.b64 %r1, %x, -1;\n\tcvt.u64.u32 %o0, %r1;\n\tmatch.all.sync.b64 %r2, %y, -1;\n\tcvt.u64.u32 %o1, %r2;\n\
                \tmatch.all.sync.b64 %r3, %x, -1;\n\tcvt.u64.u32 %o2, %r3;\n";
    let words = [0x1_0000_0005, 0x2_0000_0005, 0x1_0000_0006, 0x1_0000_0005, 0x2_0000_0006];
    let inputs: Vec<(u64, u64)> = (0..32).map(|lane| (words[lane * 7 % 5], 0x7_0000_0001)).collect();
    let lanes_holding = |x: u64| inputs.iter().enumerate().filter(|&(_, &(v, _))| v == x).map(|(l, _)| 1u64 << l).sum::<u64>();
    check(body, &inputs, |x, _| [lanes_holding(x), 0xFFFF_FFFF, 0, 0, 0, 0, 0, 0]);
}

/// A register declared in a nested `{ }` block is the block's own (NVRTC's
/// `__syncthreads_count` declares `%p1` in a kernel with a `%p1`): it hides the outer one,
/// which keeps its value across the block; sibling blocks may declare one name with
/// different types; a range declared inside hides the outer range's members.
#[test]
fn nested_blocks_have_registers_of_their_own() {
    let body = "\tmov.b64 %o0, %x;\n\t{\n\t.reg .b64 %o0;\n\tadd.s64 %o0, %x, %y;\n\tmov.b64 %o1, %o0;\n\t}\n\
                \t{\n\t.reg .pred %p1;\n\tsetp.lt.u64 %p1, %x, %y;\n\tselp.b64 %o2, 1, 0, %p1;\n\t}\n\
                \t{\n\t.reg .b32 %p1;\n\tmov.b32 %p1, %a;\n\tcvt.u64.u32 %o3, %p1;\n\t}\n\
                \t{\n\t.reg .b32 %w<2>;\n\tmov.b32 %w0, %b;\n\t{\n\t.reg .b32 %w0;\n\tmov.b32 %w0, 7;\n\t}\n\tcvt.u64.u32 %o4, %w0;\n\t}\n";
    check(body, &integer_pairs(), |x, y| [x, x.wrapping_add(y), u64::from(x < y), x & 0xFFFF_FFFF, y & 0xFFFF_FFFF, 0, 0, 0]);
}

/// A label declared in a nested `{ }` block is the block's own, so sibling blocks may each
/// declare one (Triton's inline `mbarrier` waits each loop on a `waitLoop:` in its own block),
/// and an inner block's label hides the outer one for branches inside it.
#[test]
fn nested_blocks_have_labels_of_their_own() {
    let body = "\tmov.b64 %o0, 0;\n\tmov.b64 %o1, 0;\n\tmov.b64 %o2, 0;\n\
                \t{\n\t.reg .pred %q;\n\tloop:\n\tadd.s64 %o0, %o0, 1;\n\tsetp.lt.u64 %q, %o0, 3;\n\t@%q bra.uni loop;\n\t}\n\
                \t{\n\t.reg .pred %q;\n\tloop:\n\tadd.s64 %o1, %o1, 2;\n\tsetp.lt.u64 %q, %o1, 10;\n\t@%q bra.uni loop;\n\t}\n\
                \tbra.uni loop;\n\tadd.s64 %o2, %o2, 100;\n\
                loop:\n\tadd.s64 %o2, %o2, 1;\n";
    check(body, &integer_pairs(), |_, _| [3, 10, 1, 0, 0, 0, 0, 0]);
}

/// The integer forms CUDA's intrinsics write: `dp4a`/`dp2a` (`__dp4a`, `__dp2a_lo/hi`: one
/// `IDP`), `sad` (`__sad`, `__usad`, and 64-bit), `mul24`/`mad24` (`__mul24`, `__umul24`).
#[test]
fn dot_products_sums_of_differences_and_24_bit_products() {
    let body = "\tdp4a.u32.u32 %r1, %a, %b, %e;\n\tdp4a.s32.s32 %r2, %a, %b, %c;\n\tmov.b64 %o0, {%r1, %r2};\n\
                \tdp4a.s32.u32 %r3, %a, %b, 7;\n\tdp2a.lo.u32.s32 %r4, %a, %b, %c;\n\tmov.b64 %o1, {%r3, %r4};\n\
                \tdp2a.hi.s32.u32 %r5, %a, %b, %e;\n\tsad.u32 %r6, %a, %b, %c;\n\tmov.b64 %o2, {%r5, %r6};\n\
                \tsad.s32 %r7, %a, %b, 5;\n\tmul24.lo.s32 %r1, %a, %b;\n\tmov.b64 %o3, {%r7, %r1};\n\
                \tsad.u64 %o4, %x, %y, %x;\n\tsad.s64 %o5, %x, %y, -3;\n\
                \tmul24.hi.u32 %r2, %a, %b;\n\tmad24.lo.u32 %r3, %a, %b, %c;\n\tmov.b64 %o6, {%r2, %r3};\n\
                \tmad24.hi.s32 %r4, %a, %b, %e;\n\tmul24.hi.s32 %r5, %a, 0x7FFFFF;\n\tmov.b64 %o7, {%r4, %r5};\n";
    check(body, &integer_pairs(), |x, y| {
        let (a, e, b, c) = (x as u32, (x >> 32) as u32, y as u32, (y >> 32) as u32);
        let part = |v: u32, at: u32, bits: u32, signed: bool| {
            let field = (v >> at) & ((1u64 << bits) - 1) as u32;
            if signed && field >> (bits - 1) != 0 { field.wrapping_sub(1 << bits) } else { field }
        };
        let dp4 = |sa, sb, acc: u32| (0..4).fold(acc, |s, i| s.wrapping_add(part(a, 8 * i, 8, sa).wrapping_mul(part(b, 8 * i, 8, sb))));
        let dp2 = |k, sa, sb, acc: u32| (0..2).fold(acc, |s, i| s.wrapping_add(part(a, 16 * i, 16, sa).wrapping_mul(part(b, k + 8 * i, 8, sb))));
        let sad32 = |signed: bool, acc: u32| acc.wrapping_add(if signed { (a as i32).abs_diff(b as i32) } else { a.abs_diff(b) });
        let wide24 = |u: u32, v: u32, signed: bool| {
            let (u, v) = (part(u, 0, 24, signed), part(v, 0, 24, signed));
            if signed { (i64::from(u as i32) * i64::from(v as i32)) as u64 } else { u64::from(u) * u64::from(v) }
        };
        let join = |lo: u32, hi: u32| u64::from(lo) | u64::from(hi) << 32;
        [
            join(dp4(false, false, e), dp4(true, true, c)),
            join(dp4(true, false, 7), dp2(0, false, true, c)),
            join(dp2(16, true, false, e), sad32(false, c)),
            join(sad32(true, 5), wide24(a, b, true) as u32),
            x.wrapping_add(x.abs_diff(y)),
            ((x as i64).abs_diff(y as i64)).wrapping_sub(3),
            join((wide24(a, b, false) >> 16) as u32, (wide24(a, b, false) as u32).wrapping_add(c)),
            join(((wide24(a, b, true) >> 16) as u32).wrapping_add(e), (wide24(a, 0x7F_FFFF, true) >> 16) as u32),
        ]
    });
}

/// `WARP_SZ` (PTX's predefined 32) in a shuffle's clamp computed as
/// `((WARP_SZ << 8) - 8192) | 31`, as `cuda_fp16.h` writes it: the clamp must be known as
/// a constant, which the constant inference folds through 32-bit arithmetic.
#[test]
fn a_clamp_computed_from_the_warp_size() {
    let body = "\tmov.u32 %r1, WARP_SZ;\n\tshl.b32 %r2, %r1, 8;\n\tadd.s32 %r3, %r2, -8192;\n\tor.b32 %r4, %r3, 31;\n\
                \tshfl.sync.bfly.b32 %r5, %a, 1, %r4, -1;\n\tcvt.u64.u32 %o0, %r5;\n";
    let inputs = integer_pairs();
    let words: Vec<u32> = inputs.iter().map(|&(x, _)| x as u32).collect();
    check(body, &inputs, |x, y| {
        let lane = inputs.iter().position(|&p| p == (x, y)).expect("an input");
        [u64::from(words[lane ^ 1]), 0, 0, 0, 0, 0, 0, 0]
    });
}

/// `set` into halves (1.0 per true half: `h2exp`'s corrections in `cuda_fp16.h`, `__hisnan`;
/// all ones per true half into a `.u32`) and CUDA's `atomicInc`/`atomicDec`, counters that
/// wrap at `b`.
#[test]
fn half_sets_and_wrapping_counters() {
    let body = "\tset.eq.f16x2.f16x2 %r6, %a, %b;\n\tset.nan.f16.f16 %h0, %s, %t;\n\tset.lt.u32.f16x2 %r7, %a, %b;\n\
                \tcvt.u64.u32 %o1, %r6;\n\tcvt.u32.u16 %r6, %h0;\n\tmov.b64 %o2, {%r6, %r7};\n\
                \tatom.global.inc.u32 %r1, [%rd6], %c;\n\tatom.global.dec.u32 %r2, [%rd6+4], %c;\n\tld.global.v2.u32 {%r3, %r4}, [%rd6];\n\
                \tmov.b64 %o3, {%r1, %r3};\n\tmov.b64 %o4, {%r2, %r4};\n";
    let mut inputs = integer_pairs();
    // Halves that compare equal, a NaN, and counters at and past their bounds.
    inputs[3] = (0x0002_0005_3C00_7E00, 0x0000_0005_3C00_7E00);
    inputs[4] = (0x0000_0000_4000_3C00, 0x0000_0003_3C00_4000);
    inputs[5] = (0x0000_0009_0000_0009, 0x0000_0009_0000_0000);
    check(body, &inputs, |x, y| {
        let (a, e, b, c) = (x as u32, (x >> 32) as u32, y as u32, (y >> 32) as u32);
        let half = |v: u32, k: u32| half::f16::from_bits((v >> (16 * k)) as u16);
        let each = |one: u32, holds: &dyn Fn(half::f16, half::f16) -> bool| {
            (0..2).map(|k| if holds(half(a, k), half(b, k)) { one << (16 * k) } else { 0 }).sum::<u32>()
        };
        let inc = if a >= c { 0 } else { a + 1 };
        let dec = if e == 0 || e > c { c } else { e - 1 };
        [
            0,
            u64::from(each(0x3C00, &|p, q| p == q)),
            u64::from(if half(a, 0).is_nan() || half(b, 0).is_nan() { 0x3C00u32 } else { 0 }) | u64::from(each(0xFFFF, &|p, q| p < q)) << 32,
            u64::from(a) | u64::from(inc) << 32,
            u64::from(e) | u64::from(dec) << 32,
            0,
            0,
            0,
        ]
    });
}

/// Partial member masks, as cooperative groups' 8-lane tiles write them (each lane's mask
/// is its tile's lanes, `0xff << (lane & 24)`): ballots, votes and `match.any` keep the
/// mask's lanes, and a tile's butterfly shuffle, whose clamp 31 lies outside the segment
/// mask (`0x181f`, PTX's `0x1807`), stays in the tile.
#[test]
fn collectives_over_partial_member_masks() {
    let body = "\tand.b32 %r1, %r0, 24;\n\tshl.b32 %r2, 255, %r1;\n\tand.b32 %r3, %a, 1;\n\tsetp.ne.u32 %p1, %r3, 0;\n\
                \tvote.sync.ballot.b32 %r4, %p1, %r2;\n\tcvt.u64.u32 %o0, %r4;\n\
                \tvote.sync.all.pred %p2, %p1, %r2;\n\tselp.u32 %r5, 1, 0, %p2;\n\tvote.sync.any.pred %p2, %p1, %r2;\n\tselp.u32 %r6, 2, 0, %p2;\n\
                \tvote.sync.uni.pred %p2, %p1, %r2;\n\tselp.u32 %r7, 4, 0, %p2;\n\tor.b32 %r5, %r5, %r6;\n\tor.b32 %r5, %r5, %r7;\n\tcvt.u64.u32 %o1, %r5;\n\
                \tmatch.any.sync.b32 %r6, %r3, %r2;\n\tcvt.u64.u32 %o2, %r6;\n\
                \tshfl.sync.bfly.b32 %r7, %a, 5, 0x181f, %r2;\n\tcvt.u64.u32 %o3, %r7;\n";
    let inputs = integer_pairs();
    let odd: Vec<bool> = inputs.iter().map(|&(x, _)| x & 1 == 1).collect();
    check(body, &inputs, |x, y| {
        let lane = inputs.iter().position(|&p| p == (x, y)).expect("an input");
        let tile = (lane & 24..(lane & 24) + 8).collect::<Vec<_>>();
        let bits = |keep: &dyn Fn(usize) -> bool| tile.iter().filter(|&&l| keep(l)).map(|&l| 1u64 << l).sum::<u64>();
        let ballot = bits(&|l| odd[l]);
        let all = u64::from(tile.iter().all(|&l| odd[l]));
        let any = u64::from(tile.iter().any(|&l| odd[l]));
        let uniform = u64::from(tile.iter().all(|&l| odd[l] == odd[tile[0]]));
        [ballot, all | any << 1 | uniform << 2, bits(&|l| odd[l] == odd[lane]), inputs[lane ^ 5].0 & 0xFFFF_FFFF, 0, 0, 0, 0]
    });
}

/// A register written once, by a literal `mov`, and otherwise only read (tinygrad's
/// `%cast_s32_0`, Triton's hoisted constants) is read as the literal wherever the reading
/// instruction takes one, and its `mov` goes once no read needs the register: `mad.lo.s32 %r,
/// %a, %four, %one` is one `IMAD` with two literals, as ptxas makes it. A register written
/// twice, or under a guard, stays a register. Both give PTX's values.
#[test]
fn literal_registers_fold_into_their_reads() {
    let body = "\tmov.b32 %r1, 4;\n\tmov.b32 %r2, 1;\n\tmad.lo.s32 %r3, %a, %r1, %r2;\n\tshl.b32 %r4, %b, %r1;\n\tmov.b64 %o0, {%r3, %r4};\n\
                \tmov.b32 %r5, 0f40000000;\n\tfma.rn.f32 %k0, %f, %r5, %g;\n\tmov.b32 %r6, %k0;\n\tcvt.u64.u32 %o1, %r6;\n\
                \tmov.f64 %z0, 0d3FF8000000000000;\n\tadd.f64 %z1, %d, %z0;\n\tmov.b64 %o2, %z1;\n\
                \tmov.b64 %rd0, -3;\n\tadd.s64 %o3, %x, %rd0;\n\tadd.s64 %o4, %rd0, %y;\n\
                \tsetp.lt.u32 %p1, %a, %b;\n\tmov.b32 %r7, 7;\n\t@%p1 mov.b32 %r7, 9;\n\tcvt.u64.u32 %o5, %r7;\n";
    check(body, &integer_pairs(), |x, y| {
        let (a, b) = (x as u32, y as u32);
        let fma = f32::from_bits(a).mul_add(2.0, f32::from_bits(b));
        let sum = f64::from_bits(x) + 1.5;
        [
            u64::from(a.wrapping_mul(4).wrapping_add(1)) | u64::from(b << 4) << 32,
            u64::from(if fma.is_nan() { 0x7FFF_FFFF } else { fma.to_bits() }),
            if sum.is_nan() { 0x7FFF_FFFF_FFFF_FFFF } else { sum.to_bits() },
            x.wrapping_sub(3),
            y.wrapping_sub(3),
            if a < b { 9 } else { 7 },
            0,
            0,
        ]
    });
    let made = translated(body);
    for gone in ["mov.b32 %r1, 4;", "mov.b32 %r2, 1;", "mov.b32 %r5, 0f40000000;", "mov.f64 %z0"] {
        assert_eq!(made(gone), Vec::<String>::new(), "{gone}");
    }
    assert!(matches!(made("mad.lo.s32 %r3").as_slice(), [imad] if imad.starts_with("IMAD ") && imad.ends_with(", 4, 1")), "{:?}", made("mad.lo.s32 %r3"));
    assert!(matches!(made("fma.rn.f32").as_slice(), [ffma] if ffma.contains(", 2.0, ")), "{:?}", made("fma.rn.f32"));
    assert_eq!(made("mov.b32 %r7, 7;").len(), 1, "a register written twice keeps its mov");
}

/// tinygrad's accumulators, `add %acc2, %acc, %x; mov %acc, %acc2` in a loop, cost no move:
/// an instruction that became one simt instruction reads its sources before it writes, so its
/// destination may take the register of a source that dies there, and the copy back is then
/// of a register to itself. Both give PTX's values.
#[test]
fn an_accumulator_is_added_to_in_place() {
    let body = "\tmov.b32 %r1, 0;\n\tmov.b32 %r4, 0;\nACC:\n\tadd.s32 %r2, %r1, %a;\n\tmov.b32 %r1, %r2;\n\tadd.s32 %r4, %r4, 1;\n\
                \tsetp.lt.u32 %p1, %r4, 3;\n\t@%p1 bra ACC;\n\tcvt.u64.u32 %o0, %r1;\n";
    check(body, &integer_pairs(), |x, _| [u64::from((x as u32).wrapping_mul(3)), 0, 0, 0, 0, 0, 0, 0]);
    let made = translated(body);
    assert_eq!(made("mov.b32 %r1, %r2;"), Vec::<String>::new());
    let add = made("add.s32 %r2, %r1, %a;");
    let operands: Vec<&str> = add[0].trim_start_matches("IADD ").split(", ").collect();
    assert!(add.len() == 1 && operands[0] == operands[1], "{add:?}");
}

/// Shifts of 16-bit values, which registers keep zero-extended: a logical shift right stays
/// within the 16 bits and is one `SHR`; a left shift is cut back to them; an arithmetic one
/// takes the sign first. A shift past the width gives 0 (or the sign), as PTX clamps it.
#[test]
fn narrow_shifts() {
    let body = "\tand.b32 %r1, %c, 31;\n\tshr.u16 %h0, %t, %r1;\n\tcvt.u64.u16 %o0, %h0;\n\tshl.b16 %h1, %t, %r1;\n\tcvt.u64.u16 %o1, %h1;\n\
                \tshr.s16 %h2, %t, %r1;\n\tcvt.s64.s16 %o2, %h2;\n\tshr.b16 %h3, 65535, %r1;\n\tcvt.u64.u16 %o3, %h3;\n";
    check(body, &integer_pairs(), |_, y| {
        let (t, amount) = (y as u16, (y >> 32) as u32 & 31);
        let right = |v: u32| if amount >= 16 { 0 } else { u64::from(v >> amount) };
        [
            right(u32::from(t)),
            u64::from((u32::from(t) << amount) as u16),
            i64::from((i32::from(t as i16) >> amount.min(15)) as i16) as u64,
            right(0xFFFF),
            0,
            0,
            0,
            0,
        ]
    });
    let made = translated(body);
    assert_eq!((made("shr.u16").len(), made("shl.b16").len(), made("shr.s16").len()), (1, 2, 4));
}

/// Literals that leave an instruction a copy of one source make it that copy (tinygrad's
/// address of element 0, `mad.wide.s32 %addr, %idx, 4, %base` with `%idx` 0), and a copy
/// shares its source's register though the source lives on: neither costs an instruction.
/// A copy whose source is written again while the copy lives keeps a register of its own.
#[test]
fn copies_share_their_sources_register() {
    let body = "\tmov.b32 %r1, 0;\n\tmov.b32 %r2, 1;\n\tmad.wide.s32 %rd0, %r1, 4, %x;\n\tadd.s64 %o0, %rd0, %x;\n\tmad.lo.s32 %r6, %r1, %b, %a;\n\
                \tadd.s32 %r3, %r6, %r1;\n\tmul.lo.s32 %r4, %r3, %r2;\n\tshl.b32 %r5, %r4, %r1;\n\tadd.s32 %r7, %r5, %a;\n\tcvt.u64.u32 %o2, %r7;\n\
                \tmov.b64 %rd0, %y;\n\tadd.s64 %y, %y, 1;\n\tadd.s64 %o3, %rd0, %y;\n";
    check(body, &integer_pairs(), |x, y| [x.wrapping_add(x), 0, u64::from((x as u32).wrapping_add(x as u32)), y.wrapping_add(y.wrapping_add(1)), 0, 0, 0, 0]);
    let made = translated(body);
    for copy in ["mad.wide.s32 %rd0", "mad.lo.s32 %r6", "mul.lo.s32 %r4", "shl.b32 %r5"] {
        assert_eq!(made(copy), Vec::<String>::new(), "{copy}");
    }
    // `%r6` took `%a`'s register, and `%r3`, a copy of a copy of `%a`, may not (the rule knows
    // a copy's own source only): one move, which `%r4` and `%r5` then share.
    assert_eq!(made("add.s32 %r3").len(), 1);
    assert!(!made("mov.b64 %rd0, %y;").is_empty(), "its source is written while it lives");
}

/// Predicates past the five a spilling kernel colours live in registers as 0 or 1; `and`,
/// `or`, `xor`, `not` and `mov` into one of them are computed there (`AND`, `OR`, `XOR`,
/// `MOV`, or a `SEL` by a coloured predicate), under the instruction's guard, and a `mov` of
/// one into a coloured predicate is one comparison: one instruction each, where moving each
/// through a scratch predicate and back took up to four. Eighteen predicates live at once.
#[test]
fn logic_on_spilled_predicates_stays_in_their_registers() {
    let mut body = String::from("\t.reg .pred %q<18>;\n\t.reg .b32 %m<18>;\n");
    for i in 0..10 {
        body += &format!("\tand.b32 %m{i}, %a, {};\n\tsetp.ne.b32 %q{i}, %m{i}, 0;\n", 1 << i);
    }
    // The first five colour (P0 .. P4), the rest spill.
    let logic = [
        "and.pred %q10, %q5, %q6;",
        "or.pred %q11, %q7, %q0;",
        "xor.pred %q12, %q8, %q9;",
        "not.pred %q13, %q9;",
        "and.pred %q14, %q5, !%q1;",
        "not.pred %q15, %q0;",
        "mov.pred %q16, %q7;",
        "@%q0 mov.pred %q17, %q2;",
        "@!%q0 mov.pred %q17, %q8;",
        "@%q0 mov.pred %q3, %q9;",
    ];
    body += &logic.map(|l| format!("\t{l}\n")).concat();
    // All eighteen live into another block, where no reordering within one can part them;
    // the first five read there eight times more, the dearest to spill by far.
    body += "$Luses:\n\tmov.b32 %r1, 0;\n";
    for i in 0..18 {
        body += &format!("\tselp.b32 %m{i}, {}, 0, %q{i};\n\tor.b32 %r1, %r1, %m{i};\n", 1 << i);
    }
    for i in 0..5 {
        body += &format!("\tselp.b32 %m{i}, {}, 0, %q{i};\n\tor.b32 %r1, %r1, %m{i};\n", 1 << i).repeat(8);
    }
    body += "\tcvt.u64.u32 %o0, %r1;\n";
    check(&body, &integer_pairs(), |x, _| {
        let b = |i: u32| (x >> i) & 1 == 1;
        let q = [
            b(0),
            b(1),
            b(2),
            if b(0) { b(9) } else { b(3) },
            b(4),
            b(5),
            b(6),
            b(7),
            b(8),
            b(9),
            b(5) && b(6),
            b(7) || b(0),
            b(8) ^ b(9),
            !b(9),
            b(5) && !b(1),
            !b(0),
            b(7),
            if b(0) { b(2) } else { b(8) },
        ];
        [q.iter().enumerate().map(|(i, &v)| u64::from(v) << i).sum(), 0, 0, 0, 0, 0, 0, 0]
    });
    let made = translated(&body);
    let opcode = |l: &str| made(l).iter().map(|i| i.split(' ').find(|w| !w.starts_with('@')).unwrap_or_default().to_string()).collect::<Vec<_>>();
    let opcodes: Vec<Vec<String>> = logic.iter().map(|l| opcode(l)).collect();
    let want = ["AND", "SEL", "XOR", "XOR", "SEL", "SEL", "MOV", "SEL", "MOV", "ISETP.NE.U32"];
    assert_eq!(opcodes, want.map(|o| vec![o.to_string()]));
}

/// A byte taken out of a word by `prmt` with zeros above it and narrowed to 16 bits (Triton's
/// fp8 operands on sm_89) keeps every bit: the `cvt.u16.u32` is a copy, which vanishes, where
/// it was an `AND`; a `prmt` that may leave bits above 16 keeps its `cvt` an `AND`.
#[test]
fn narrowing_a_byte_the_prmt_zero_extended_is_a_copy() {
    let body = "\tprmt.b32 %r1, %a, 0, 0x7771;\n\tcvt.u16.u32 %s, %r1;\n\tprmt.b32 %r2, %a, 0, 0x3210;\n\tcvt.u16.u32 %t, %r2;\n\
                \tcvt.u64.u16 %o0, %s;\n\tcvt.u64.u16 %o1, %t;\n";
    check(body, &integer_pairs(), |x, _| {
        let a = x as u32;
        [u64::from((a >> 8) & 0xFF), u64::from(a & 0xFFFF), 0, 0, 0, 0, 0, 0]
    });
    let made = translated(body);
    assert!(made("cvt.u16.u32 %s, %r1;").is_empty(), "{:?}", made("cvt.u16.u32 %s"));
    assert_eq!(made("cvt.u16.u32 %t, %r2;").len(), 1);
}

/// A `setp` whose predicate only one `and`, `or` or `xor.pred` below it reads, nothing between
/// writing what it compares, is one comparison with that operation, in the logic's place
/// (ptxas's `ISETP.GT.XOR`, and Triton's sorts are made of them), listed at the `setp`'s
/// line; where a register it compares is written between, the two stay apart.
#[test]
fn a_comparison_read_once_by_logic_is_one_with_it() {
    let body = "\t.reg .pred %v;\n\tsetp.gt.u32 %p1, %a, %b;\n\tsetp.lt.u32 %p2, %b, 9;\n\tadd.u32 %r1, %a, 1;\n\txor.pred %p3, %p2, %p1;\n\
                \tsetp.ne.u32 %v, %r1, 0;\n\tadd.u32 %r1, %r1, 3;\n\tand.pred %p0, %v, !%p2;\n\
                \tselp.u64 %o0, 1, 0, %p3;\n\tselp.u64 %o1, 1, 0, %p0;\n\tcvt.u64.u32 %o2, %r1;\n";
    check(body, &integer_pairs(), |x, y| {
        let (a, b) = (x as u32, y as u32);
        [u64::from((a > b) ^ (b < 9)), u64::from(a.wrapping_add(1) != 0 && b >= 9), u64::from(a.wrapping_add(4)), 0, 0, 0, 0, 0]
    });
    // The one comparison keeps the `setp`'s line.
    let made = translated(body);
    assert!(made("xor.pred %p3, %p2, %p1;").is_empty(), "{:?}", made("xor.pred"));
    let fused = made("setp.gt.u32 %p1, %a, %b;");
    assert!(fused.len() == 1 && fused[0].starts_with("ISETP.GT.U32.XOR P"), "{fused:?}");
    assert_eq!(made("setp.ne.u32 %v, %r1, 0;").len(), 1, "its register is written before the logic");
    assert_eq!(made("and.pred %p0, %v, !%p2;").len(), 1);
}

/// Where more predicates live at once than simt has, the ones spilled to registers are the
/// cheapest to spill: seven lane bits computed up front and read once in another block go to
/// registers, and the comparisons made and read at once in between keep predicates: each
/// `setp` one `ISETP` and each `selp` one `SEL` (with the bits placed first, as their first
/// mentions are, the comparisons spilled instead, each through a register and back).
#[test]
fn long_lived_predicates_spill_before_ones_read_at_once() {
    let mut body = String::from("\t.reg .pred %bit<7>, %c<6>;\n");
    for i in 0..7 {
        body += &format!("\tand.b32 %w{i}, %a, {};\n\tsetp.ne.b32 %bit{i}, %w{i}, 0;\n", 1 << i);
    }
    for i in 0..6 {
        body += &format!("\tsetp.gt.u32 %c{i}, %b, {};\n\tselp.u32 %w{}, {}, 0, %c{i};\n", 3 * i, 8 + i, i + 1);
    }
    body += "$Luses:\n";
    for i in 0..7 {
        body += &format!("\tselp.u64 %rd0, {}, 0, %bit{i};\n\tor.b64 %o0, %o0, %rd0;\n", 1 << i);
    }
    for i in 0..6 {
        body += &format!("\tcvt.u64.u32 %rd0, %w{};\n\tadd.u64 %o1, %o1, %rd0;\n", 8 + i);
    }
    check(&body, &integer_pairs(), |x, y| {
        let (a, b) = (x as u32, y as u32);
        let counted: u64 = (0..6u32).filter(|&i| b > 3 * i).map(|i| u64::from(i + 1)).sum();
        [u64::from(a & 0x7F), counted, 0, 0, 0, 0, 0, 0]
    });
    let made = translated(&body);
    for i in 0..6 {
        assert_eq!(made(&format!("setp.gt.u32 %c{i},")).len(), 1, "comparison {i}");
        assert_eq!(made(&format!("selp.u32 %w{},", 8 + i)).len(), 1, "its select");
    }
}

/// A comparison of pairs of halves into two predicates (`setp.lt.f16x2 %p|%q`, Triton's f16
/// compares on sm_100a) where both are spilled: one `HSETP2` into the scratch predicates, each
/// then written back to its register. Twelve predicates are live at once, read in another block.
#[test]
fn half_pair_comparisons_into_two_spilled_predicates() {
    let mut body = String::from("\t.reg .pred %lo<6>, %hi<6>;\n");
    for i in 0..6 {
        body += &format!("\tadd.u32 %w{i}, %b, {};\n\tsetp.lt.f16x2 %lo{i}|%hi{i}, %a, %w{i};\n", 0x0400_0400 * i);
    }
    body += "$Luses:\n";
    for i in 0..6 {
        body +=
            &format!("\tselp.u64 %rd0, {}, 0, %lo{i};\n\tor.b64 %o0, %o0, %rd0;\n\tselp.u64 %rd0, {}, 0, %hi{i};\n\tor.b64 %o1, %o1, %rd0;\n", 1 << i, 1 << i);
    }
    check(&body, &integer_pairs(), |x, y| {
        let (a, b) = (x as u32, y as u32);
        let half = |v: u32| half::f16::from_bits(v as u16).to_f32();
        let bits = |shift: u32| -> u64 { (0..6u32).filter(|&i| half(a >> shift) < half(b.wrapping_add(0x0400_0400 * i) >> shift)).map(|i| 1 << i).sum() };
        [bits(0), bits(16), 0, 0, 0, 0, 0, 0]
    });
}

/// tinygrad computes every comparison before the first is used; in PTX's order ten
/// predicates would be live at once and half of them would pass through registers. A kernel
/// that spills is translated again with each unguarded `setp` moved down to its first use
/// (within its block, past nothing that names its registers), and the shorter kept: here
/// every comparison is one `ISETP` again.
#[test]
fn comparisons_move_down_to_their_first_use() {
    let mut body = String::from("\t.reg .pred %q<10>;\n\t.reg .b32 %m<10>;\n");
    for i in 0..10 {
        body += &format!("\tand.b32 %m{i}, %a, {};\n\tsetp.ne.b32 %q{i}, %m{i}, 0;\n", 1 << i);
    }
    body += "\tmov.b32 %r1, 0;\n";
    for i in 0..10 {
        body += &format!("\tselp.b32 %m{i}, {}, 0, %q{i};\n\tor.b32 %r1, %r1, %m{i};\n", 1 << i);
    }
    body += "\tcvt.u64.u32 %o0, %r1;\n";
    check(&body, &integer_pairs(), |x, _| [x & 0x3FF, 0, 0, 0, 0, 0, 0, 0]);
    let made = translated(&body);
    for i in 0..10 {
        assert_eq!(made(&format!("setp.ne.b32 %q{i},")).len(), 1, "{:?}", made(&format!("setp.ne.b32 %q{i},")));
    }
}

/// A shared or local `cvta` sets or clears the window in the high word, so its result may
/// not share a register with a source that lives on: clang's -O3 stack frame does
/// `cvta.local.u64 %SP, %SPL` and goes on storing through `%SPL` (its `printf` arguments),
/// and the two once shared a pair, so those stores went through the window.
#[test]
fn window_conversions_keep_their_source() {
    let body = "\tmov.b64 %rd0, %x;\n\tcvta.shared.u64 %o0, %rd0;\n\tadd.s64 %o1, %rd0, 1;\n\
                \tcvta.to.shared.u64 %o2, %o0;\n\tcvta.local.u64 %o3, %y;\n\tadd.s64 %o4, %y, %o0;\n\tcvta.to.local.u64 %o5, %o3;\n";
    let (shared, local) = (0x0001_0000_0000_0000u64, 0x0002_0000_0000_0000u64);
    check(body, &integer_pairs(), |x, y| {
        let low = |v: u64| v & 0xFFFF_FFFF;
        [low(x) | shared, x.wrapping_add(1), low(x), low(y) | local, y.wrapping_add(low(x) | shared), low(y), 0, 0]
    });
}

/// `min.xorsign.abs` and `max.xorsign.abs` (Triton's `tl.clamp(x, -c, c)` on sm_90): the lesser
/// (greater) magnitude, a NaN only when both are, its sign the XOR of the two signs unless
/// it is NaN (then canonical); `.ftz` flushes subnormal inputs first.
/// Pairs of f32 values in the low words that minimums and maximums treat apart (NaNs, signed
/// zeros, subnormals, infinities), then integer pairs.
fn float_pairs() -> Vec<(u64, u64)> {
    let edges: [(f32, f32); 12] = [
        (1.5, -0.25),
        (-2.0, -3.0),
        (f32::NAN, -1.0),
        (-7.0, f32::NAN),
        (f32::NAN, f32::NAN),
        (0.0, -0.0),
        (f32::NEG_INFINITY, 5.0),
        (1e-40, 1.0),
        (-1e-40, -2e-40),
        (0.5, -0.5),
        (-3e38, 2.0),
        (f32::INFINITY, f32::NEG_INFINITY),
    ];
    let mut pairs: Vec<(u64, u64)> = edges.iter().map(|&(x, y)| (u64::from(x.to_bits()), u64::from(y.to_bits()))).collect();
    pairs.extend(integer_pairs().into_iter().take(32 - pairs.len()));
    pairs
}

/// `min.NaN` and `max.NaN` (Triton's `tl.maximum(..., propagate_nan=ALL)`): the canonical NaN
/// when either operand is NaN, else `min`/`max` (-0 below +0); halves and pairs of them per half.
#[test]
fn nan_propagating_min_and_max() {
    let body = "\tmax.NaN.f32 %k0, %f, %g;\n\tmov.b32 %r1, %k0;\n\tmin.NaN.f32 %k1, %f, %g;\n\tmov.b32 %r2, %k1;\n\tmov.b64 %o0, {%r1, %r2};\n\
                \tcvt.rn.f16.f32 %h0, %f;\n\tcvt.rn.f16.f32 %h1, %g;\n\tmax.NaN.f16 %h2, %h0, %h1;\n\tmin.NaN.f16 %h3, %h0, %h1;\n\
                \tcvt.u64.u16 %o1, %h2;\n\tcvt.u64.u16 %o2, %h3;\n\tmov.b32 %r3, {%s, %t};\n\tmov.b32 %r4, {%t, %s};\n\
                \tmax.NaN.bf16x2 %r5, %r3, %r4;\n\tcvt.u64.u32 %o3, %r5;\n\tmax.NaN.ftz.f32 %k2, %f, %g;\n\tmov.b32 %r6, %k2;\n\tcvt.u64.u32 %o4, %r6;\n";
    // `max` and `min` of values as PTX orders them, `nan` the format's canonical NaN.
    fn pick(x: f64, y: f64, max: bool) -> Option<f64> {
        if x.is_nan() || y.is_nan() {
            return None;
        }
        Some(if x == y {
            if max == x.is_sign_negative() { y } else { x }
        } else if (x < y) == max {
            y
        } else {
            x
        })
    }
    let f32_bits = |r: Option<f64>| r.map_or(0x7FFF_FFFF, |v| (v as f32).to_bits());
    let f16_bits = |r: Option<f64>| r.map_or(0x7FFF, |v| half::f16::from_f64(v).to_bits());
    let bf16_bits = |r: Option<f64>| r.map_or(0x7FFF, |v| half::bf16::from_f64(v).to_bits());
    check(body, &float_pairs(), |x, y| {
        let (f, g) = (f32::from_bits(x as u32), f32::from_bits(y as u32));
        let (s, t) = (half::bf16::from_bits(x as u16).to_f64(), half::bf16::from_bits(y as u16).to_f64());
        let flush = |v: f32| f64::from(if v.is_subnormal() { 0.0f32.copysign(v) } else { v });
        let (h0, h1) = (half::f16::from_f32(f).to_f64(), half::f16::from_f32(g).to_f64());
        [
            u64::from(f32_bits(pick(f.into(), g.into(), true))) | u64::from(f32_bits(pick(f.into(), g.into(), false))) << 32,
            u64::from(f16_bits(pick(h0, h1, true))),
            u64::from(f16_bits(pick(h0, h1, false))),
            u64::from(bf16_bits(pick(s, t, true))) * 0x1_0001,
            u64::from(f32_bits(pick(flush(f), flush(g), true))),
            0,
            0,
            0,
        ]
    });
}

#[test]
fn xorsign_abs_min_and_max() {
    let body = "\tmin.xorsign.abs.f32 %k0, %f, %g;\n\tmov.b32 %r1, %k0;\n\tmax.xorsign.abs.f32 %k1, %f, %g;\n\tmov.b32 %r2, %k1;\n\
                \tmov.b64 %o0, {%r1, %r2};\n\tmin.xorsign.abs.f32 %k2, %f, 0fBF800000;\n\tmov.b32 %r3, %k2;\n\tcvt.u64.u32 %o1, %r3;\n\
                \tmin.xorsign.abs.ftz.f32 %k3, %f, %g;\n\tmov.b32 %r4, %k3;\n\tcvt.u64.u32 %o2, %r4;\n";
    let xorsign = |a: u32, b: u32, max: bool, ftz: bool| -> u32 {
        let flush = |v: u32| if ftz && f32::from_bits(v).is_subnormal() { v & 0x8000_0000 } else { v };
        let (a, b) = (flush(a), flush(b));
        let (x, y) = (f32::from_bits(a & 0x7FFF_FFFF), f32::from_bits(b & 0x7FFF_FFFF));
        let m = match (x.is_nan(), y.is_nan()) {
            (true, true) => return 0x7FFF_FFFF,
            (true, false) => y,
            (false, true) => x,
            _ if max => x.max(y),
            _ => x.min(y),
        };
        m.to_bits() | ((a ^ b) & 0x8000_0000)
    };
    check(body, &float_pairs(), |x, y| {
        let (a, b) = (x as u32, y as u32);
        [
            u64::from(xorsign(a, b, false, false)) | u64::from(xorsign(a, b, true, false)) << 32,
            u64::from(xorsign(a, 0xBF80_0000, false, false)),
            u64::from(xorsign(a, b, false, true)),
            0,
            0,
            0,
            0,
            0,
        ]
    });
}
