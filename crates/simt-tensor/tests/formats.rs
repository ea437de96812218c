//! The section 9 conversions: special values of every conversion, exhaustive
//! round trips, nearest-value properties against a brute-force search, the
//! host's buffer encoding, and the expectations of the conformance cases
//! `cvt_lowp` and `host_lowp`.

mod common;

use common::{bin_of, expected_bin, npy_u32, runs, words};
use proptest::prelude::*;
use simt_tensor::formats::{self, Decoded, EncodeError, LowpType, MiniFloat, tf32_round, tf32_value};

const E4M3: MiniFloat = MiniFloat::E4M3;
const E5M2: MiniFloat = MiniFloat::E5M2;
const E2M1: MiniFloat = MiniFloat::E2M1;

fn p2(e: i32) -> f32 {
    2f32.powi(e)
}

fn next_up(x: f32) -> f32 {
    f32::from_bits(x.to_bits() + 1)
}

fn next_down(x: f32) -> f32 {
    f32::from_bits(x.to_bits() - 1)
}

#[test]
fn tf32_special_values() {
    let cases: &[(f32, u32)] = &[
        (0.0, 0x0000_0000),
        (-0.0, 0x8000_0000),
        (1.0, 0x3F80_0000),
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties go away from zero.
        (1.0 + p2(-11), 0x3F80_2000),
        (-(1.0 + p2(-11)), 0xBF80_2000),
        (next_down(1.0 + p2(-11)), 0x3F80_0000),
        (next_up(1.0 + p2(-11)), 0x3F80_2000),
        // 1 + 3 * 2^-11 is halfway between odd and even mantissas: still away.
        (1.0 + 3.0 * p2(-11), 0x3F80_4000),
        // A carry out of the mantissa moves to the next binade.
        (f32::from_bits(0x3FFF_F000), 0x4000_0000),
        (f32::from_bits(0x3FFF_EFFF), 0x3FFF_E000),
        (0.1, 0x3DCC_C000),
        // The largest finite TF32 and what rounds to it or past it.
        (f32::from_bits(0x7F7F_E000), 0x7F7F_E000),
        (f32::from_bits(0x7F7F_EFFF), 0x7F7F_E000),
        (f32::from_bits(0x7F7F_F000), 0x7F80_0000),
        (f32::MAX, 0x7F80_0000),
        (f32::MIN, 0xFF80_0000),
        (f32::INFINITY, 0x7F80_0000),
        (f32::NEG_INFINITY, 0xFF80_0000),
        (f32::NAN, 0x7FFF_E000),
        (-f32::NAN, 0x7FFF_E000),
        (f32::from_bits(0x7F80_0001), 0x7FFF_E000),
        // f32 subnormals: the same rule, up into the smallest normal.
        (f32::from_bits(0x0000_0FFF), 0x0000_0000),
        (f32::from_bits(0x0000_1000), 0x0000_2000),
        (f32::from_bits(0x8000_1000), 0x8000_2000),
        (f32::from_bits(0x007F_F000), 0x0080_0000),
        (f32::from_bits(0x007F_EFFF), 0x007F_E000),
    ];
    for &(x, want) in cases {
        assert_eq!(tf32_round(x), want, "{x:e} ({:#010x})", x.to_bits());
    }
}

#[test]
fn tf32_value_ignores_the_low_bits() {
    assert_eq!(tf32_value(0x3F80_1FFF), 1.0);
    assert_eq!(tf32_value(0xBF80_3FFF).to_bits(), 0xBF80_2000);
    // A NaN whose payload lies only in the ignored bits reads as infinity.
    assert_eq!(tf32_value(0x7F80_1234), f32::INFINITY);
    assert!(tf32_value(0x7FC0_0000).is_nan());
}

/// (input, E4M3 code, E5M2 code, E2M1 code) for values every format meets.
#[test]
fn shared_special_values() {
    let cases: &[(f32, u8, u8, u8)] = &[
        (0.0, 0x00, 0x00, 0x0),
        (-0.0, 0x80, 0x80, 0x8),
        (1.0, 0x38, 0x3C, 0x2),
        (-1.0, 0xB8, 0xBC, 0xA),
        (f32::NAN, 0x7F, 0x7F, 0x7),
        (-f32::NAN, 0x7F, 0x7F, 0x7),
        (f32::INFINITY, 0x7E, 0x7B, 0x7),
        (f32::NEG_INFINITY, 0xFE, 0xFB, 0xF),
        (f32::MAX, 0x7E, 0x7B, 0x7),
        (f32::MIN, 0xFE, 0xFB, 0xF),
        // The smallest f32 subnormal rounds to a zero of its sign.
        (f32::from_bits(1), 0x00, 0x00, 0x0),
        (f32::from_bits(0x8000_0001), 0x80, 0x80, 0x8),
        (-1e-30, 0x80, 0x80, 0x8),
    ];
    for &(x, e4m3, e5m2, e2m1) in cases {
        assert_eq!(E4M3.encode(x), e4m3, "e4m3 of {x:e}");
        assert_eq!(E5M2.encode(x), e5m2, "e5m2 of {x:e}");
        assert_eq!(E2M1.encode(x), e2m1, "e2m1 of {x:e}");
    }
}

fn check(format: MiniFloat, cases: &[(f32, u8)]) {
    for &(x, want) in cases {
        assert_eq!(format.encode(x), want, "{format} of {x:e} ({:#010x})", x.to_bits());
    }
}

#[test]
fn e4m3_special_values() {
    check(
        E4M3,
        &[
            // Ties to even inside a binade: 1 + 1/16 is halfway between 1 (even) and 1.125.
            (1.0625, 0x38),
            (next_down(1.0625), 0x38),
            (next_up(1.0625), 0x39),
            (1.1875, 0x3A),
            (next_down(1.1875), 0x39),
            (0.3, 0x2A),
            (-0.3, 0xAA),
            // Saturation: 448 is the largest finite; 464 is halfway to the missing 480.
            (416.0, 0x7D),
            (424.0, 0x7D),
            (432.0, 0x7E),
            (448.0, 0x7E),
            (next_up(448.0), 0x7E),
            (464.0, 0x7E),
            (next_up(464.0), 0x7E),
            (480.0, 0x7E),
            (1e30, 0x7E),
            (-464.0, 0xFE),
            (-480.0, 0xFE),
            // Subnormals: 2^-9 is the smallest; half of it ties to zero.
            (p2(-9), 0x01),
            (p2(-10), 0x00),
            (next_up(p2(-10)), 0x01),
            (next_down(p2(-10)), 0x00),
            (-p2(-10), 0x80),
            (-next_up(p2(-10)), 0x81),
            (3.0 * p2(-10), 0x02),
            (5.0 * p2(-10), 0x02),
            (7.0 * p2(-9), 0x07),
            // Between the largest subnormal (7 * 2^-9) and the smallest normal (2^-6).
            (15.0 * p2(-10), 0x08),
            (next_down(15.0 * p2(-10)), 0x07),
            (p2(-6), 0x08),
            (p2(-12), 0x00),
        ],
    );
}

#[test]
fn e5m2_special_values() {
    check(
        E5M2,
        &[
            (1.125, 0x3C),
            (next_up(1.125), 0x3D),
            (1.375, 0x3E),
            (next_down(1.375), 0x3D),
            (0.1, 0x2E),
            // 57344 is the largest finite; 61440 is halfway to 65536 (infinity's place).
            (49152.0, 0x7A),
            (53248.0, 0x7A),
            (next_up(53248.0), 0x7B),
            (57344.0, 0x7B),
            (61440.0, 0x7B),
            (next_up(61440.0), 0x7B),
            (65536.0, 0x7B),
            (1e10, 0x7B),
            (-61440.0, 0xFB),
            // Subnormals down to 2^-16.
            (p2(-16), 0x01),
            (p2(-17), 0x00),
            (next_up(p2(-17)), 0x01),
            (-p2(-17), 0x80),
            (3.0 * p2(-17), 0x02),
            (3.0 * p2(-16), 0x03),
            (7.0 * p2(-17), 0x04),
            (next_down(7.0 * p2(-17)), 0x03),
            (p2(-14), 0x04),
        ],
    );
}

#[test]
fn e2m1_special_values() {
    check(
        E2M1,
        &[
            (0.25, 0x0),
            (next_up(0.25), 0x1),
            (-0.25, 0x8),
            (0.5, 0x1),
            (0.75, 0x2),
            (next_down(0.75), 0x1),
            (1.25, 0x2),
            (1.75, 0x4),
            (2.5, 0x4),
            (next_up(2.5), 0x5),
            (3.0, 0x5),
            (3.5, 0x6),
            (next_down(3.5), 0x5),
            (5.0, 0x6),
            (next_up(5.0), 0x7),
            (6.0, 0x7),
            (7.0, 0x7),
            (100.0, 0x7),
            (-7.0, 0xF),
            (0.3, 0x1),
        ],
    );
}

#[test]
fn decoding_gives_exact_values() {
    let cases: &[(MiniFloat, u32, f32)] = &[
        (E4M3, 0x00, 0.0),
        (E4M3, 0x01, p2(-9)),
        (E4M3, 0x07, 7.0 * p2(-9)),
        (E4M3, 0x08, p2(-6)),
        (E4M3, 0x38, 1.0),
        (E4M3, 0x2A, 0.3125),
        (E4M3, 0x7E, 448.0),
        (E4M3, 0xFE, -448.0),
        (E4M3, 0x1234_5638, 1.0),
        (E5M2, 0x01, p2(-16)),
        (E5M2, 0x03, 3.0 * p2(-16)),
        (E5M2, 0x04, p2(-14)),
        (E5M2, 0x3C, 1.0),
        (E5M2, 0x7B, 57344.0),
        (E5M2, 0x7C, f32::INFINITY),
        (E5M2, 0xFC, f32::NEG_INFINITY),
        (E2M1, 0xFFF7, 6.0),
        (E2M1, 0xF, -6.0),
        // FP6: OCP MX's tables (E2M3 bias 1, E3M2 bias 3), the two top bits of a byte ignored.
        (MiniFloat::E2M3, 0x01, p2(-3)),
        (MiniFloat::E2M3, 0x08, 1.0),
        (MiniFloat::E2M3, 0x0B, 1.375),
        (MiniFloat::E2M3, 0x1F, 7.5),
        (MiniFloat::E2M3, 0x3F, -7.5),
        (MiniFloat::E2M3, 0xC8, 1.0),
        (MiniFloat::E3M2, 0x01, p2(-4)),
        (MiniFloat::E3M2, 0x04, 0.25),
        (MiniFloat::E3M2, 0x0C, 1.0),
        (MiniFloat::E3M2, 0x1F, 28.0),
        (MiniFloat::E3M2, 0x3E, -24.0),
    ];
    for &(format, code, want) in cases {
        assert_eq!(format.decode(code).to_bits(), want.to_bits(), "{format} {code:#x}");
    }
    assert_eq!(E4M3.decode(0x80).to_bits(), 0x8000_0000);
    assert_eq!(E2M1.decode(0x8).to_bits(), 0x8000_0000);
    let e2m1: Vec<f32> = (0..8).map(|c| E2M1.decode(c)).collect();
    assert_eq!(e2m1, [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]);
    for (format, code) in [(E4M3, 0x7F), (E4M3, 0xFF), (E5M2, 0x7D), (E5M2, 0x7E), (E5M2, 0x7F), (E5M2, 0xFF)] {
        assert_eq!(format.decode(code).to_bits(), formats::CANONICAL_NAN, "{format} {code:#x}");
    }
}

#[test]
fn max_finite_values() {
    assert_eq!(E4M3.max_finite(), 448.0);
    assert_eq!(E5M2.max_finite(), 57344.0);
    assert_eq!(E2M1.max_finite(), 6.0);
    assert_eq!(MiniFloat::E2M3.max_finite(), 7.5);
    assert_eq!(MiniFloat::E3M2.max_finite(), 28.0);
    // No NaN: it gives the largest, as E2M1's does.
    assert_eq!(MiniFloat::E2M3.encode(f32::NAN), 0x1F);
    assert_eq!(MiniFloat::E3M2.encode(-100.0), 0x3F);
}

#[test]
fn every_code_round_trips() {
    for format in MiniFloat::ALL {
        for code in 0..1u32 << format.bits() {
            let value = format.decode(code);
            if value.is_nan() {
                continue;
            }
            // E5M2's infinities saturate: `.satfinite` has no infinite result.
            let want = if value.is_infinite() { code - 1 } else { code };
            assert_eq!(u32::from(format.encode(value)), want, "{format} {code:#x} = {value}");
        }
    }
}

#[test]
fn pairs_pack_low_element_first() {
    assert_eq!(E4M3.pack2(1.0, -448.0), 0xFE38);
    assert_eq!(E5M2.pack2(f32::NAN, 1.0), 0x3C7F);
    assert_eq!(E2M1.pack2(1.0, -6.0), 0xF2);
    assert_eq!(E2M1.pack2(f32::NAN, -0.0), 0x87);
}

#[test]
fn four_bit_integers() {
    let s4: Vec<i32> = (0..16).map(formats::s4_value).collect();
    assert_eq!(s4, [0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1]);
    let u4: Vec<i32> = (0..16).map(formats::u4_value).collect();
    assert_eq!(u4, (0..16).collect::<Vec<_>>());
    assert_eq!(formats::s4_value(0xFFFF_FFF9), -7);
    assert_eq!(formats::u4_value(0xFFFF_FFF9), 9);
}

/// The code nearest to `x` by searching every finite code: ties to the even
/// code, beyond the largest finite value that value (`.satfinite`), the sign
/// always kept.
fn brute_force(format: MiniFloat, x: f32) -> u8 {
    if x.is_nan() {
        return format.encode(x);
    }
    let sign_bit = 1u32 << (format.bits() - 1);
    let magnitude = f64::from(x.abs()).min(f64::from(format.max_finite()));
    let best = (0..sign_bit)
        .map(|code| (code, f64::from(format.decode(code))))
        .filter(|(_, v)| v.is_finite())
        .min_by(|(ca, va), (cb, vb)| (va - magnitude).abs().total_cmp(&(vb - magnitude).abs()).then((ca & 1).cmp(&(cb & 1))))
        .map(|(code, _)| code)
        .unwrap();
    (best | if x.is_sign_negative() { sign_bit } else { 0 }) as u8
}

/// TF32 by f64 arithmetic: round the significand scaled to 11 bits, ties away.
fn tf32_by_f64(x: f32) -> u32 {
    if x.is_nan() {
        return formats::TF32_NAN;
    }
    let exp = ((x.to_bits() >> 23) & 0xFF).max(1) as i32 - 127;
    let ulp = 2f64.powi(exp - 10);
    let scaled = f64::from(x.abs()) / ulp;
    let rounded = (scaled.floor() + if scaled.fract() >= 0.5 { 1.0 } else { 0.0 }) * ulp;
    let value = if rounded > f64::from(f32::from_bits(0x7F7F_E000)) { f64::INFINITY } else { rounded };
    (value as f32).to_bits() | (x.to_bits() & 0x8000_0000)
}

/// f32 bits: mostly around each format's range (ties, subnormals, saturation), sometimes anything.
fn f32_bits() -> impl Strategy<Value = f32> {
    prop_oneof![
        3 => (any::<bool>(), 100u32..=145, 0u32..0x80_0000).prop_map(|(s, e, m)| f32::from_bits(u32::from(s) << 31 | e << 23 | m)),
        1 => (any::<bool>(), 100u32..=145, 0u32..16).prop_map(|(s, e, m)| f32::from_bits(u32::from(s) << 31 | e << 23 | m << 19)),
        1 => any::<u32>().prop_map(f32::from_bits),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn encoding_picks_the_nearest_code(x in f32_bits()) {
        for format in MiniFloat::ALL {
            prop_assert_eq!(format.encode(x), brute_force(format, x), "{} of {:e}", format, x);
        }
    }

    #[test]
    fn tf32_rounds_to_nearest_ties_away(x in f32_bits()) {
        prop_assert_eq!(tf32_round(x), tf32_by_f64(x), "{:e}", x);
    }
}

#[test]
fn host_encoding_packs_bytes() {
    assert_eq!(formats::encode(LowpType::Tf32, &[1.0f32 + p2(-11), -0.0]).unwrap(), [0x00, 0x20, 0x80, 0x3F, 0, 0, 0, 0x80]);
    assert_eq!(formats::encode(LowpType::Float(E4M3), &[448.0f32, -1000.0, 0.3]).unwrap(), [0x7E, 0xFE, 0x2A]);
    assert_eq!(formats::encode(LowpType::Float(E2M1), &[1.0f32, -6.0, f32::NAN, 0.0]).unwrap(), [0xF2, 0x07]);
    assert_eq!(formats::encode(LowpType::S4, &[-8i32, 7, -1, 0]).unwrap(), [0x78, 0x0F]);
    assert_eq!(formats::encode(LowpType::U4, &[15.0f64, 0.0]).unwrap(), [0x0F]);
    assert_eq!(formats::encode(LowpType::S4, &[] as &[f32]).unwrap(), [] as [u8; 0]);
}

#[test]
fn host_encoding_errors_name_the_element() {
    let cases: &[(LowpType, &[f64], &str)] = &[
        (LowpType::S4, &[1.0, 2.0, 3.0], "3 elements of s4 do not fill whole bytes: s4 packs two elements a byte, so give an even number of elements"),
        (LowpType::Float(E2M1), &[1.0], "1 elements of e2m1 do not fill whole bytes: e2m1 packs two elements a byte, so give an even number of elements"),
        (LowpType::S4, &[1.0, 8.0], "element 1: 8 does not fit s4 (-8 ..= 7)"),
        (LowpType::S4, &[-9.0, 0.0], "element 0: -9 does not fit s4 (-8 ..= 7)"),
        (LowpType::U4, &[0.0, 1.0, -1.0, 16.0], "element 2: -1 does not fit u4 (0 ..= 15)"),
        (LowpType::U4, &[0.0, 1.5], "element 1: u4 takes integers, not 1.5"),
        (LowpType::S4, &[f64::NAN, 0.0], "element 0: s4 takes integers, not NaN"),
        (LowpType::S4, &[f64::INFINITY, 0.0], "element 0: inf does not fit s4 (-8 ..= 7)"),
    ];
    for &(ty, values, message) in cases {
        assert_eq!(formats::encode(ty, values).unwrap_err().to_string(), message);
    }
    assert_eq!(LowpType::Float(E2M1).byte_len(3), Err(EncodeError::OddCount { ty: LowpType::Float(E2M1), count: 3 }));
    assert_eq!(LowpType::Tf32.byte_len(3), Ok(12));
}

#[test]
fn host_decoding_reads_elements_back() {
    let tf32: Vec<Decoded> = formats::decode(LowpType::Tf32, &[0x00, 0x20, 0x80, 0x3F, 0xFF]).collect();
    assert_eq!(tf32, [Decoded::F32(1.0 + p2(-10))]);
    let e4m3: Vec<Decoded> = formats::decode(LowpType::Float(E4M3), &[0x7E, 0x80]).collect();
    assert_eq!(e4m3, [Decoded::F32(448.0), Decoded::F32(-0.0)]);
    let e2m1: Vec<Decoded> = formats::decode(LowpType::Float(E2M1), &[0xF2]).collect();
    assert_eq!(e2m1, [Decoded::F32(1.0), Decoded::F32(-6.0)]);
    let s4: Vec<Decoded> = formats::decode(LowpType::S4, &[0x78, 0x0F]).collect();
    assert_eq!(s4, [Decoded::Int(-8), Decoded::Int(7), Decoded::Int(-1), Decoded::Int(0)]);
    let u4: Vec<Decoded> = formats::decode(LowpType::U4, &[0x0F]).collect();
    assert_eq!(u4, [Decoded::Int(15), Decoded::Int(0)]);
}

proptest! {
    #[test]
    fn host_round_trip(codes in prop::collection::vec(any::<u8>(), 0..64), ty in 0usize..6) {
        let ty = LowpType::ALL[ty];
        // Bytes the host writes and decodes back to the same bytes (NaN codes excepted).
        let bytes: Vec<u8> = if ty == LowpType::Tf32 { codes.iter().flat_map(|&c| tf32_round(f32::from(c) - 100.0).to_le_bytes()).collect() } else { codes };
        let values: Vec<Decoded> = formats::decode(ty, &bytes).collect();
        let again = match ty {
            LowpType::S4 | LowpType::U4 => {
                let ints: Vec<i32> = values.iter().map(|v| match v { Decoded::Int(i) => *i, Decoded::F32(_) => panic!("an integer type") }).collect();
                formats::encode(ty, &ints)
            }
            _ => {
                let floats: Vec<f32> = values.iter().map(|v| match v { Decoded::F32(f) => *f, Decoded::Int(_) => panic!("a float type") }).collect();
                // NaN codes and E5M2's infinities do not come back (canonical NaN, saturation).
                if floats.iter().any(|f| !f.is_finite()) { return Ok(()); }
                formats::encode(ty, &floats)
            }
        };
        prop_assert_eq!(again.unwrap(), bytes);
    }
}

/// `cvt_lowp.s`: thread `i` converts `a = x[i]` and `b = x[255 - i]`; `codes[i]` feeds the decoders.
#[test]
fn cvt_lowp_case() {
    let x: Vec<f32> = npy_u32("cvt_lowp", "x.npy").into_iter().map(f32::from_bits).collect();
    let codes = npy_u32("cvt_lowp", "codes.npy");
    let a = |i: usize| x[i];
    let b = |i: usize| x[255 - i];
    let expect = |bin: &str, got: &dyn Fn(usize) -> u32| {
        let want = expected_bin("cvt_lowp", "cvt_lowp.s", bin);
        let got: Vec<u32> = (0..256).map(got).collect();
        for i in 0..256 {
            assert_eq!(got[i], want[i], "{bin}[{i}]: a = {:#010x}, b = {:#010x}, code = {:#x}", a(i).to_bits(), b(i).to_bits(), codes[i]);
        }
    };
    expect("tf32.bin", &|i| tf32_round(a(i)));
    for (format, packed, round_trip, decoded) in
        [(E4M3, "e4m3.bin", "rt4.bin", "dec4.bin"), (E5M2, "e5m2.bin", "rt5.bin", "dec5.bin"), (E2M1, "e2m1.bin", "rt2.bin", "dec2.bin")]
    {
        expect(packed, &|i| format.pack2(a(i), b(i)));
        expect(round_trip, &|i| format.decode(format.pack2(a(i), b(i))).to_bits());
        expect(decoded, &|i| format.decode(codes[i]).to_bits());
    }
}

/// The `.arg NAME=[...]` list of a run's command, as the host reads it: f64
/// literals, each then converted to f32.
fn list_arg(run: &serde_json::Value, name: &str) -> Vec<f32> {
    let cmd: Vec<&str> = run["cmd"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    let arg = cmd.iter().find_map(|a| a.strip_prefix(&format!("{name}=["))).unwrap_or_else(|| panic!("no list for {name}"));
    arg.trim_end_matches(']').split(", ").map(|v| v.parse::<f64>().unwrap() as f32).collect()
}

/// `host_lowp.s` copies the raw buffers out: the bytes are the host's encoding of its `.arg` data.
#[test]
fn host_lowp_case() {
    let runs = runs("host_lowp", "host_lowp.s");
    let npy_f32 = |file: &str| -> Vec<f32> { npy_u32("host_lowp", file).into_iter().map(f32::from_bits).collect() };
    let f = [0.75f32, 5.0, 2.5, -0.25, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 100.0, 1.25, 1.75, 3.5, -0.0, 0.5, 6.0, -4.0, 0.3];
    let s = [-8i32, -1, 0, 7, 3, -4, 5, -6, 1, 2, -2, -3, 4, 6, -7, -5];
    let u = [0i32, 15, 1, 14, 8, 7, 2, 13, 3, 12, 4, 11, 5, 10, 6, 9];
    let buffers = |a: &[f32], e: &[f32], f: &[f32], s: &[i32], u: &[i32]| -> Vec<u8> {
        let mut bytes = formats::encode(LowpType::Float(E4M3), a).unwrap();
        bytes.extend(formats::encode(LowpType::Float(E5M2), e).unwrap());
        bytes.extend(formats::encode(LowpType::Float(E2M1), f).unwrap());
        bytes.extend(formats::encode(LowpType::S4, s).unwrap());
        bytes.extend(formats::encode(LowpType::U4, u).unwrap());
        bytes
    };
    let as_bytes = |words: Vec<u32>| -> Vec<u8> { words.into_iter().map(|b| b as u8).collect() };
    // Run 0: the kernel's own `.arg` lines.
    let t = npy_f32("t.npy");
    assert_eq!(buffers(&npy_f32("a.npy"), &npy_f32("e.npy"), &f, &s, &u), as_bytes(bin_of(&runs[0], "bytes.bin").unwrap()));
    assert_eq!(words(&formats::encode(LowpType::Tf32, &t).unwrap()), bin_of(&runs[0], "words.bin").unwrap());
    // Run 1: lists on the command line.
    let (a1, e1, t1) = (list_arg(&runs[1], "a"), list_arg(&runs[1], "e"), list_arg(&runs[1], "t"));
    assert_eq!(buffers(&a1, &e1, &npy_f32("f.npy"), &s, &u), as_bytes(bin_of(&runs[1], "bytes.bin").unwrap()));
    assert_eq!(words(&formats::encode(LowpType::Tf32, &t1).unwrap()), bin_of(&runs[1], "words.bin").unwrap());
    // Run 2: `fill` and `zeros`.
    let fill = |n: usize, v: f32| vec![v; n];
    let bytes = buffers(&npy_f32("a.npy"), &fill(16, f32::INFINITY), &fill(16, 2.5), &[-3; 16], &[0; 16]);
    assert_eq!(bytes, as_bytes(bin_of(&runs[2], "bytes.bin").unwrap()));
    // `--dump` as text (runs 3 to 5).
    let text = |ty: LowpType, bytes: &[u8]| -> String { formats::decode(ty, bytes).map(|v| format!("{v}\n")).collect() };
    let stdout = |run: usize| runs[run]["stdout"][0].as_str().unwrap().to_string();
    let bytes = buffers(&npy_f32("a.npy"), &npy_f32("e.npy"), &f, &s, &u);
    assert_eq!(text(LowpType::Float(E4M3), &bytes[..16]), stdout(3));
    assert_eq!(text(LowpType::Float(E2M1), &bytes[32..40]), stdout(4));
    assert_eq!(text(LowpType::Tf32, &formats::encode(LowpType::Tf32, &t).unwrap()), stdout(5));
}
