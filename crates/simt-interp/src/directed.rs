//! Rounding toward zero, minus infinity or plus infinity, exactly: the `RZ`/`RM`/`RP` forms
//! of `DFMA`, `DDIV`, `DSQRT`, `FDIV`, `FSQRT` and `CVT`. The host rounds to nearest only,
//! so these work from the exact value: an integer significand with an exponent, rounded
//! once. Division and square root round to nearest first and step one unit toward the exact
//! result when the exact remainder says it lies on the other side.

use simt_isa::Round;

/// A binary floating-point format.
#[derive(Clone, Copy, Debug)]
pub struct Format {
    /// Significand bits stored (the leading one of a normal value is implicit).
    frac: u32,
    /// Exponent bits.
    exp: u32,
}

pub const F64: Format = Format { frac: 52, exp: 11 };
pub const F32: Format = Format { frac: 23, exp: 8 };
pub const F16: Format = Format { frac: 10, exp: 5 };
pub const BF16: Format = Format { frac: 7, exp: 8 };

/// A finite value `(-1)^negative * significand * 2^exponent`, exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exact {
    pub negative: bool,
    pub significand: u128,
    pub exponent: i32,
}

impl Exact {
    /// A finite f64 (zeros give a zero significand).
    pub fn of_f64(x: f64) -> Exact {
        let bits = x.to_bits();
        let biased = ((bits >> 52) & 0x7FF) as i32;
        let frac = bits & ((1 << 52) - 1);
        let (significand, exponent) = if biased == 0 { (frac, -1074) } else { (frac | 1 << 52, biased - 1075) };
        Exact { negative: x.is_sign_negative(), significand: u128::from(significand), exponent }
    }

    /// An integer.
    pub fn of_int(i: i128) -> Exact {
        Exact { negative: i < 0, significand: i.unsigned_abs(), exponent: 0 }
    }
}

/// The bits of `x` rounded once to `format` in direction `rnd` (a zero significand gives a
/// zero of `x`'s sign). Overflow gives infinity or the largest finite value, as the direction says.
pub fn round(x: Exact, format: Format, rnd: Round) -> u64 {
    let (frac, bias) = (format.frac as i32, (1i32 << (format.exp - 1)) - 1);
    let sign = u64::from(x.negative) << (format.frac + format.exp);
    if x.significand == 0 {
        return sign;
    }
    let top = x.exponent + (128 - x.significand.leading_zeros() as i32) - 1;
    let mut lsb = (top - frac).max(1 - bias - frac);
    let shift = lsb - x.exponent;
    // The kept bits, and how the dropped ones compare with half a unit of the last kept bit.
    let (mut kept, dropped) = match shift {
        ..=0 => (x.significand << -shift, None),
        1..=127 => {
            let rest = x.significand & ((1 << shift) - 1);
            (x.significand >> shift, (rest != 0).then(|| rest.cmp(&(1 << (shift - 1)))))
        }
        128 => (0, Some(x.significand.cmp(&(1 << 127)))),
        _ => (0, Some(std::cmp::Ordering::Less)),
    };
    let up = match (rnd, dropped) {
        (_, None) | (Round::Rz, _) => false,
        (Round::Rn, Some(half)) => half.is_gt() || (half.is_eq() && kept & 1 == 1),
        (Round::Rm, Some(_)) => x.negative,
        (Round::Rp, Some(_)) => !x.negative,
    };
    kept += u128::from(up);
    if kept >> (frac + 1) != 0 {
        kept >>= 1;
        lsb += 1;
    }
    let kept = kept as u64;
    if kept < 1 << frac {
        // Zero or subnormal: the exponent field is 0.
        return sign | kept;
    }
    let biased = lsb + frac + bias;
    let all_ones = (1u64 << format.exp) - 1;
    if biased as u64 >= all_ones {
        let infinite = match rnd {
            Round::Rn => true,
            Round::Rz => false,
            Round::Rm => x.negative,
            Round::Rp => !x.negative,
        };
        return sign | if infinite { all_ones << frac } else { ((all_ones - 1) << frac) | ((1 << frac) - 1) };
    }
    sign | (biased as u64) << frac | (kept & ((1 << frac) - 1))
}

/// `a * b + c` exactly, for finite operands; `None` when it is exactly zero.
pub fn fma_exact(a: f64, b: f64, c: f64) -> Option<Exact> {
    let (x, y, z) = (Exact::of_f64(a), Exact::of_f64(b), Exact::of_f64(c));
    let product = Exact { negative: x.negative != y.negative, significand: x.significand * y.significand, exponent: x.exponent + y.exponent };
    match (product.significand, z.significand) {
        (0, 0) => return None,
        (0, _) => return Some(z),
        (_, 0) => return Some(product),
        _ => {}
    }
    // With the leading bits at bit 125 (room for a carry), a product of at most 106 bits and
    // an addend of 53 have at least 20 zero bits at the bottom: an alignment shift below 20
    // drops nothing, and a larger one leaves at most one bit of cancellation, far above the
    // sticky bit that stands for what it drops.
    let normalise = |v: Exact| {
        let s = v.significand.leading_zeros() as i32 - 2;
        Exact { significand: v.significand << s, exponent: v.exponent - s, ..v }
    };
    let (p, z) = (normalise(product), normalise(z));
    let (big, small) = if (p.exponent, p.significand) >= (z.exponent, z.significand) { (p, z) } else { (z, p) };
    let gap = (big.exponent - small.exponent) as u32;
    let aligned = if gap >= 128 { 1 } else { (small.significand >> gap) | u128::from(small.significand & ((1 << gap) - 1) != 0) };
    let significand = if big.negative == small.negative { big.significand + aligned } else { big.significand - aligned };
    (significand != 0).then_some(Exact { negative: big.negative, significand, exponent: big.exponent })
}

/// The sign of a zero sum: zeros of one sign keep it; any other exact zero is +0, or -0 rounding down.
fn zero_sum(product_zero: bool, product_negative: bool, c: f64, rnd: Round) -> f64 {
    if product_zero && c == 0.0 && product_negative == c.is_sign_negative() {
        c
    } else if rnd == Round::Rm {
        -0.0
    } else {
        0.0
    }
}

/// `DFMA.RZ/RM/RP`: `a * b + c` in f64, rounded once in direction `rnd`.
pub fn dfma(a: f64, b: f64, c: f64, rnd: Round) -> f64 {
    if !(a.is_finite() && b.is_finite() && c.is_finite()) {
        // Infinities and NaN: nothing is rounded.
        return a.mul_add(b, c);
    }
    match fma_exact(a, b, c) {
        Some(v) => f64::from_bits(round(v, F64, rnd)),
        None => zero_sum(a == 0.0 || b == 0.0, a.is_sign_negative() != b.is_sign_negative(), c, rnd),
    }
}

/// A value rounded to nearest (`nearest`), moved one unit toward the exact result when `rnd`
/// asks for the other side; `above` says whether the exact result lies above `nearest`.
/// `up`/`down` step one unit in the format.
fn settle<F: Copy + PartialOrd + Default>(nearest: F, exact_above: Option<bool>, rnd: Round, up: impl Fn(F) -> F, down: impl Fn(F) -> F) -> F {
    let Some(above) = exact_above else { return nearest };
    let positive = nearest > F::default() || (nearest == F::default() && above);
    match rnd {
        Round::Rp if above => up(nearest),
        Round::Rm if !above => down(nearest),
        Round::Rz if above && !positive => up(nearest),
        Round::Rz if !above && positive => down(nearest),
        _ => nearest,
    }
}

/// What a finite, nonzero quotient or root that overflowed to `infinity` rounds to instead.
fn overflowed<F: Copy + PartialOrd + Default + std::ops::Neg<Output = F>>(infinity: F, max: F, rnd: Round) -> F {
    let positive = infinity > F::default();
    let keep = match rnd {
        Round::Rn => true,
        Round::Rz => false,
        Round::Rm => !positive,
        Round::Rp => positive,
    };
    if keep {
        infinity
    } else if positive {
        max
    } else {
        -max
    }
}

/// Whether `x / y` lies above `q`, from the exact remainder `x - q * y` (`None` when `q` is exact).
fn quotient_above(q: f64, x: f64, y: f64) -> Option<bool> {
    fma_exact(-q, y, x).map(|r| r.negative == (y < 0.0))
}

/// `DDIV.RZ/RM/RP`.
pub fn ddiv(x: f64, y: f64, rnd: Round) -> f64 {
    let q = x / y;
    if !(x.is_finite() && y.is_finite()) || x == 0.0 || y == 0.0 {
        return q;
    }
    if q.is_infinite() {
        return overflowed(q, f64::MAX, rnd);
    }
    settle(q, quotient_above(q, x, y), rnd, f64::next_up, f64::next_down)
}

/// `DSQRT.RZ/RM/RP`.
pub fn dsqrt(x: f64, rnd: Round) -> f64 {
    let q = x.sqrt();
    if !x.is_finite() || x <= 0.0 {
        return q;
    }
    settle(q, fma_exact(-q, q, x).map(|r| !r.negative), rnd, f64::next_up, f64::next_down)
}

/// `FDIV.RZ/RM/RP` (f32 operands; the remainder is exact in f64 arithmetic of this module).
pub fn fdiv(x: f32, y: f32, rnd: Round) -> f32 {
    let q = (f64::from(x) / f64::from(y)) as f32;
    if !(x.is_finite() && y.is_finite()) || x == 0.0 || y == 0.0 {
        return q;
    }
    if q.is_infinite() {
        return overflowed(q, f32::MAX, rnd);
    }
    settle(q, quotient_above(f64::from(q), f64::from(x), f64::from(y)), rnd, f32::next_up, f32::next_down)
}

/// `FSQRT.RZ/RM/RP`.
pub fn fsqrt(x: f32, rnd: Round) -> f32 {
    let q = f64::from(x).sqrt() as f32;
    if !x.is_finite() || x <= 0.0 {
        return q;
    }
    let q64 = f64::from(q);
    settle(q, fma_exact(-q64, q64, f64::from(x)).map(|r| !r.negative), rnd, f32::next_up, f32::next_down)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIRECTIONS: [Round; 4] = [Round::Rn, Round::Rz, Round::Rm, Round::Rp];

    #[test]
    fn rounding_to_nearest_agrees_with_the_host() {
        // The host's fused multiply-add and conversions round to nearest: `round` must too.
        let values = [0.0, -0.0, 1.0, -1.5, 3.0e-310, -4.9e-324, 1.0e308, -1.7e308, 0.1, 1.0 / 3.0, 123456.789, 2f64.powi(-1022), 5e-324];
        for &a in &values {
            for &b in &values {
                for &c in &values {
                    let want = a.mul_add(b, c);
                    let got = dfma(a, b, c, Round::Rn);
                    assert_eq!(got.to_bits(), want.to_bits(), "{a:e} * {b:e} + {c:e}");
                }
            }
        }
        for i in [1i128, -1, 3, 1 << 24 | 1, (1 << 60) + (1 << 36) + 1, -(1 << 53) - 1, i128::from(u64::MAX), i128::from(i64::MIN)] {
            assert_eq!(round(Exact::of_int(i), F64, Round::Rn), (i as f64).to_bits(), "{i}");
            assert_eq!(round(Exact::of_int(i), F32, Round::Rn) as u32, (i as f32).to_bits(), "{i}");
        }
    }

    #[test]
    fn directed_results_bracket_the_exact_value() {
        let values = [1.0, -1.0, 3.0, 0.1, -0.7, 1e-300, 7e-310, 1e300, -1e308, 1.0 + f64::EPSILON, 2.0 / 3.0];
        for &a in &values {
            for &b in &values {
                for &c in &values {
                    let [nearest, zero, down, up] = DIRECTIONS.map(|r| dfma(a, b, c, r));
                    assert!(down <= nearest && nearest <= up, "{a:e} {b:e} {c:e}: {down:e} {nearest:e} {up:e}");
                    assert!(down == up || down.next_up() == up || (down == f64::MAX && up.is_infinite()), "{a:e} {b:e} {c:e}: {down:e} {up:e}");
                    assert_eq!(zero, if down >= 0.0 { down } else { up });
                    let [_, zero, down, up] = DIRECTIONS.map(|r| ddiv(a, b, r));
                    assert!(down == up || down.next_up() == up, "{a:e} / {b:e}: {down:e} {up:e}");
                    assert_eq!(zero, if down >= 0.0 { down } else { up });
                }
            }
        }
    }

    proptest::proptest! {
        /// On arbitrary bit patterns (subnormals, huge exponent gaps, cancellation): to nearest
        /// matches the host's fused multiply-add, and the directed results bracket it one step
        /// apart, toward zero picking by the sign. The same for division, square root and the
        /// narrowing to f32.
        #[test]
        fn soft_rounding_matches_the_host_and_brackets_it(a: u64, b: u64, c: u64) {
            let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
            proptest::prop_assume!(x.is_finite() && y.is_finite() && z.is_finite());
            let nearest = x.mul_add(y, z);
            proptest::prop_assert_eq!(dfma(x, y, z, Round::Rn).to_bits(), nearest.to_bits());
            for (nearest, [zero, down, up]) in [
                (nearest, [Round::Rz, Round::Rm, Round::Rp].map(|r| dfma(x, y, z, r))),
                (x / y, [Round::Rz, Round::Rm, Round::Rp].map(|r| ddiv(x, y, r))),
                (x.abs().sqrt(), [Round::Rz, Round::Rm, Round::Rp].map(|r| dsqrt(x.abs(), r))),
                (x as f32 as f64, [Round::Rz, Round::Rm, Round::Rp].map(|r| f64::from(f32::from_bits(round(Exact::of_f64(x), F32, r) as u32)))),
            ] {
                if nearest.is_nan() {
                    continue;
                }
                proptest::prop_assert!(down <= up && (nearest == down || nearest == up), "{nearest:e} not in [{down:e}, {up:e}]");
                proptest::prop_assert_eq!(zero, if down >= 0.0 { down } else { up });
            }
        }
    }

    #[test]
    fn known_cases() {
        // 1/3 in f32 lies between 0x3EAAAAAA and 0x3EAAAAAB (nearest).
        assert_eq!(fdiv(1.0, 3.0, Round::Rz).to_bits(), 0x3EAA_AAAA);
        assert_eq!(fdiv(1.0, 3.0, Round::Rp).to_bits(), 0x3EAA_AAAB);
        assert_eq!(fdiv(-1.0, 3.0, Round::Rm).to_bits(), 0xBEAA_AAAB);
        assert_eq!(fdiv(f32::MAX, 0.5, Round::Rz), f32::MAX);
        assert_eq!(fdiv(f32::MAX, 0.5, Round::Rp), f32::INFINITY);
        assert_eq!(fdiv(f32::MAX, -0.5, Round::Rp), -f32::MAX);
        assert_eq!(fdiv(f32::from_bits(1), 4.0, Round::Rp), f32::from_bits(1));
        assert_eq!(fdiv(f32::from_bits(1), 4.0, Round::Rz).to_bits(), 0);
        assert_eq!(fdiv(-f32::from_bits(1), 4.0, Round::Rm), -f32::from_bits(1));
        // sqrt(2) = 1.41421356237309504880...: the f64 nearest is above it, the f32 one below.
        assert_eq!(dsqrt(2.0, Round::Rp), 2f64.sqrt());
        assert_eq!(dsqrt(2.0, Round::Rz), 2f64.sqrt().next_down());
        assert_eq!(fsqrt(2.0, Round::Rz).to_bits(), 0x3FB5_04F3);
        assert_eq!(fsqrt(2.0, Round::Rp).to_bits(), 0x3FB5_04F4);
        assert_eq!(fsqrt(4.0, Round::Rm), 2.0);
        // Exact zero sums: -0 rounding down, else +0; zeros of one sign keep it.
        assert_eq!(dfma(1.0, 1.0, -1.0, Round::Rm).to_bits(), (-0.0f64).to_bits());
        assert_eq!(dfma(1.0, 1.0, -1.0, Round::Rz).to_bits(), 0);
        assert_eq!(dfma(-0.0, 1.0, -0.0, Round::Rp).to_bits(), (-0.0f64).to_bits());
        // A tiny addend far below the product still decides the direction.
        assert_eq!(dfma(1.0, 1.0, 5e-324, Round::Rp), 1.0f64.next_up());
        assert_eq!(dfma(1.0, 1.0, -5e-324, Round::Rz), 1.0f64.next_down());
        assert_eq!(dfma(1.0, 1.0, -5e-324, Round::Rp), 1.0);
        assert_eq!(dfma(1e308, 10.0, 0.0, Round::Rz), f64::MAX);
        assert_eq!(dfma(-1e308, 10.0, 0.0, Round::Rp), -f64::MAX);
        assert_eq!(dfma(-1e308, 10.0, 0.0, Round::Rm), f64::NEG_INFINITY);
        // Integers and narrowing to f32, f16 and bf16.
        assert_eq!(round(Exact::of_int((1 << 24) + 1), F32, Round::Rp) as u32, 0x4B80_0001);
        assert_eq!(round(Exact::of_int((1 << 24) + 1), F32, Round::Rz) as u32, 0x4B80_0000);
        assert_eq!(round(Exact::of_int(-((1 << 24) + 1)), F32, Round::Rm) as u32, 0xCB80_0001);
        assert_eq!(round(Exact::of_f64(0.1), F32, Round::Rz) as u32, 0x3DCC_CCCC);
        assert_eq!(round(Exact::of_f64(0.1), F32, Round::Rp) as u32, 0x3DCC_CCCD);
        assert_eq!(round(Exact::of_f64(1e-50), F32, Round::Rp) as u32, 1);
        assert_eq!(round(Exact::of_f64(1e-50), F32, Round::Rz) as u32, 0);
        assert_eq!(round(Exact::of_f64(70000.0), F16, Round::Rz), 0x7BFF);
        assert_eq!(round(Exact::of_f64(70000.0), F16, Round::Rp), 0x7C00);
        assert_eq!(round(Exact::of_f64(1.0 + 1.0 / 256.0), BF16, Round::Rp), 0x3F81);
    }
}
