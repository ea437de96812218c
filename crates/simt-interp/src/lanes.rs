//! Per-lane semantics of the arithmetic instructions, exact to the contract.
//!
//! Every function here is a pure function of bits, small enough to inline
//! into the 32-lane loops, and covered by the table-driven tests below. The
//! integer operations are declared with [`lane_ops!`], which writes each
//! operation's lane function once and derives a 32-lane loop specialised per
//! operation, so the loop never matches on the operation per lane. An
//! operation carries its instruction's typed modifiers (`IMIN.U32` is
//! `Min(IntType::U32)`), so decoding passes them through unchanged; the
//! modifier is the same for every lane, and the optimiser takes its test out
//! of the loop.

use half::{bf16, f16};
use simt_isa::{BoolOp, Cmp, CvtType, DpHalf, FCmp, Int64Type, IntType, MufuOp, PackType, PrmtMode, Round, ShfAmount, ShfDir, Sign8, Sign16};
use simt_tensor::formats::{MiniFloat, tf32_round};

use crate::directed;

/// Float flags of FADD/FMUL/FFMA/FMIN/FMAX.
#[derive(Clone, Copy, Debug, Default)]
pub struct FFlags {
    /// Subnormal inputs and results flush to signed zero.
    pub ftz: bool,
    /// The result is clamped to [0, 1].
    pub sat: bool,
}

/// f32 operations with two sources.
#[derive(Clone, Copy, Debug)]
pub enum FOp {
    Add,
    Mul,
    Min,
    Max,
    /// `FMIN.NAN`, `FMAX.NAN`: NaN when either operand is.
    MinNan,
    MaxNan,
    Div,
}

/// Integer operations on 64-bit register pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Int64Op {
    Add,
    Sub,
    Mul,
    Min(Int64Type),
    Max(Int64Type),
    Div(Int64Type),
    Rem(Int64Type),
    Shl,
    Shr(Int64Type),
    /// The whole product of the low 32 bits of each source.
    MulWide(IntType),
    /// The high 64 bits of the 128-bit product.
    MulHi(Int64Type),
}

/// One lane of a 64-bit integer operation, wrapping; a shift count (`b`) of 64 or
/// more saturates the shift.
#[inline(always)]
pub fn int64_op(op: Int64Op, a: u64, b: u64) -> u64 {
    use Int64Type::{S64, U64};
    let low_signed = |x: u64| i64::from(x as u32 as i32);
    match op {
        Int64Op::Add => a.wrapping_add(b),
        Int64Op::Sub => a.wrapping_sub(b),
        Int64Op::Mul => a.wrapping_mul(b),
        Int64Op::Min(S64) => (a as i64).min(b as i64) as u64,
        Int64Op::Min(U64) => a.min(b),
        Int64Op::Max(S64) => (a as i64).max(b as i64) as u64,
        Int64Op::Max(U64) => a.max(b),
        // As IDIV and IREM: division by zero gives all ones, the remainder the dividend.
        Int64Op::Div(S64) => {
            if b == 0 {
                u64::MAX
            } else {
                (a as i64).wrapping_div(b as i64) as u64
            }
        }
        Int64Op::Div(U64) => a.checked_div(b).unwrap_or(u64::MAX),
        Int64Op::Rem(S64) => {
            if b == 0 {
                a
            } else {
                (a as i64).wrapping_rem(b as i64) as u64
            }
        }
        Int64Op::Rem(U64) => a.checked_rem(b).unwrap_or(a),
        Int64Op::Shl => {
            if b >= 64 {
                0
            } else {
                a << b
            }
        }
        Int64Op::Shr(U64) => {
            if b >= 64 {
                0
            } else {
                a >> b
            }
        }
        Int64Op::Shr(S64) => ((a as i64) >> b.min(63)) as u64,
        Int64Op::MulWide(IntType::S32) => low_signed(a).wrapping_mul(low_signed(b)) as u64,
        Int64Op::MulWide(IntType::U32) => (a & 0xFFFF_FFFF) * (b & 0xFFFF_FFFF),
        Int64Op::MulHi(S64) => ((i128::from(a as i64) * i128::from(b as i64)) >> 64) as u64,
        Int64Op::MulHi(U64) => ((u128::from(a) * u128::from(b)) >> 64) as u64,
    }
}

/// f64 operations with two sources.
#[derive(Clone, Copy, Debug)]
pub enum DOp {
    Add,
    Mul,
    Div,
    Min,
    Max,
}

/// Declares an enum of lane operations over the sources `$x`: each variant (with
/// the typed modifiers it carries, if any) and its lane function, `$apply(op,
/// lanes...)` for one lane and `$map(op, rows...)` for 32 lanes with the operation
/// fixed outside the loop.
macro_rules! lane_ops {
    ($(#[$meta:meta])* $name:ident, $apply:ident, $map:ident, |$($x:ident),+| {
        $($variant:ident $(($($m:ident: $mty:ty),+))? => $body:expr,)+
    }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name { $($variant $(($($mty),+))?),+ }

        /// One lane.
        #[inline(always)]
        pub fn $apply(op: $name, $($x: u32),+) -> u32 {
            match op { $($name::$variant $(($($m),+))? => $body),+ }
        }

        /// 32 lanes, specialised per operation so each loop vectorises.
        #[inline(always)]
        pub fn $map(op: $name, $($x: &[u32; 32]),+) -> [u32; 32] {
            lane_match!(op, $apply, [$($x),+], [$(($name::$variant $(, $($m),+)?)),+], [])
        }
    };
}

/// A `match` with one 32-lane loop per operation (built one arm at a time, since
/// the arms repeat over the operations and each arm repeats over the sources).
macro_rules! lane_match {
    ($op:expr, $apply:ident, [$($x:ident),+], [], [$($arms:tt)*]) => {
        match $op { $($arms)* }
    };
    ($op:expr, $apply:ident, [$($x:ident),+], [($v:path $(, $m:ident)*) $(, $rest:tt)*], [$($arms:tt)*]) => {
        lane_match!($op, $apply, [$($x),+], [$($rest),*], [$($arms)* op @ $v { .. } => {
            let mut out = [0u32; 32];
            for (l, o) in out.iter_mut().enumerate() {
                *o = $apply(op, $($x[l]),+);
            }
            out
        }])
    };
}

lane_ops!(
    /// Operations with two sources on a register's bits: integers, wrapping (shift counts of 32
    /// or more saturate the shift), and pairs of halves.
    IntOp, int_op, int_op_lanes, |a, b| {
        Add => a.wrapping_add(b),
        Sub => a.wrapping_sub(b),
        Mul => a.wrapping_mul(b),
        MulHi(ty: IntType) => match ty {
            IntType::S32 => ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32,
            IntType::U32 => ((u64::from(a) * u64::from(b)) >> 32) as u32,
        },
        Min(ty: IntType) => match ty {
            IntType::S32 => (a as i32).min(b as i32) as u32,
            IntType::U32 => a.min(b),
        },
        Max(ty: IntType) => match ty {
            IntType::S32 => (a as i32).max(b as i32) as u32,
            IntType::U32 => a.max(b),
        },
        And => a & b,
        Or => a | b,
        Xor => a ^ b,
        Shl => shl(a, b),
        Shr(ty: IntType) => match ty {
            IntType::S32 => ((a as i32) >> b.min(31)) as u32,
            IntType::U32 => a.checked_shr(b).unwrap_or(0),
        },
        // Division by zero gives all ones, the remainder the dividend.
        Div(ty: IntType) => match ty {
            IntType::S32 => if b == 0 { u32::MAX } else { (a as i32).wrapping_div(b as i32) as u32 },
            IntType::U32 => a.checked_div(b).unwrap_or(u32::MAX),
        },
        Rem(ty: IntType) => match ty {
            IntType::S32 => if b == 0 { a } else { (a as i32).wrapping_rem(b as i32) as u32 },
            IntType::U32 => a.checked_rem(b).unwrap_or(a),
        },
        Hadd2(ty: PackType) => half_add_pair(ty, a, b),
        Hmul2(ty: PackType) => half_pair(HalfArith::Mul, ty, a, b, 0),
        Hmin2(ty: PackType) => half_pair(HalfArith::Min, ty, a, b, 0),
        Hmax2(ty: PackType) => half_pair(HalfArith::Max, ty, a, b, 0),
        Hmin2Nan(ty: PackType) => half_pair(HalfArith::MinNan, ty, a, b, 0),
        Hmax2Nan(ty: PackType) => half_pair(HalfArith::MaxNan, ty, a, b, 0),
    }
);

lane_ops!(
    /// Integer operations with one source.
    UnOp, un_op, un_op_lanes, |a| {
        Abs => (a as i32).wrapping_abs() as u32,
        Not => !a,
        Popc => a.count_ones(),
        Clz => a.leading_zeros(),
        Brev => a.reverse_bits(),
    }
);

lane_ops!(
    /// Operations with three sources on a register's bits: integers and pairs of halves.
    TriOp, tri_op, tri_op_lanes, |a, b, c| {
        Imad => a.wrapping_mul(b).wrapping_add(c),
        Lea => shl(a, c).wrapping_add(b),
        Bfe(ty: IntType) => bfe(a, b, c, ty == IntType::S32),
        Prmt(mode: PrmtMode) => prmt(a, b, c, mode),
        Shf(dir: ShfDir, amount: ShfAmount) => shf(a, b, match amount {
            ShfAmount::Wrap => c & 31,
            ShfAmount::Clamp => c.min(32),
        }, dir == ShfDir::L),
        Hfma2(ty: PackType) => half_pair(HalfArith::Fma, ty, a, b, c),
        Dp4a(sa: Sign8, sb: Sign8) => (0..4).fold(c, |sum, i| sum.wrapping_add(part(a, 8 * i, 8, sa == Sign8::S8).wrapping_mul(part(b, 8 * i, 8, sb == Sign8::S8)))),
        Dp2a(half: DpHalf, sa: Sign16, sb: Sign8) => {
            let k = if half == DpHalf::Hi { 16 } else { 0 };
            (0..2).fold(c, |sum, i| sum.wrapping_add(part(a, 16 * i, 16, sa == Sign16::S16).wrapping_mul(part(b, k + 8 * i, 8, sb == Sign8::S8))))
        },
    }
);

/// The `bits`-wide field of `x` at bit `at`, sign- or zero-extended.
#[inline(always)]
fn part(x: u32, at: u32, bits: u32, signed: bool) -> u32 {
    let field = x << (32 - at - bits);
    if signed { ((field as i32) >> (32 - bits)) as u32 } else { field >> (32 - bits) }
}

/// What `HADD2`, `HMUL2`, `HFMA2`, `HMIN2` and `HMAX2` do to each half.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HalfArith {
    Add,
    Mul,
    Fma,
    Min,
    Max,
    MinNan,
    MaxNan,
}

/// An operation on pairs of halves: each half of the result from the same half of the sources,
/// worked out in f64 and rounded once.
#[inline(always)]
fn half_pair(op: HalfArith, ty: PackType, a: u32, b: u32, c: u32) -> u32 {
    let bf = ty == PackType::Bf16x2;
    let value = |bits: u32| half_value(bits, ty);
    let half = |shift: u32| {
        let (x, y) = (value(a >> shift), value(b >> shift));
        let exact_or_odd = match op {
            HalfArith::Add => sum_to_odd(x, y),
            // Exact: two halves' product has at most 22 significant bits, well inside f64's range.
            HalfArith::Mul => x * y,
            HalfArith::Fma => sum_to_odd(x * y, value(c >> shift)),
            HalfArith::Min => min_max(x, y, false),
            HalfArith::Max => min_max(x, y, true),
            HalfArith::MinNan => min_max_nan(x, y, false),
            HalfArith::MaxNan => min_max_nan(x, y, true),
        };
        to_f16_bits(exact_or_odd, bf)
    };
    half(0) | half(16) << 16
}

/// Both halves of `a` plus those of `b`, each rounded once to nearest even, subnormals kept
/// (`HADD2`, and the half-precision atomic adds).
pub fn half_add_pair(ty: PackType, a: u32, b: u32) -> u32 {
    half_pair(HalfArith::Add, ty, a, b, 0)
}

/// The value of the half in the low 16 bits of `bits`, an f16 or (`BF16X2`) a bf16, exactly.
#[inline(always)]
pub fn half_value(bits: u32, ty: PackType) -> f64 {
    match ty {
        PackType::F16x2 => f16::from_bits(bits as u16).to_f64(),
        PackType::Bf16x2 => bf16::from_bits(bits as u16).to_f64(),
    }
}

/// `x + y` rounded to odd in f64. Rounded again, to f32 and then to a half (each at least two
/// bits narrower than the one before), it gives the sum rounded once (Boldo and Melquiond,
/// "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd").
fn sum_to_odd(x: f64, y: f64) -> f64 {
    let s = x + y;
    if !s.is_finite() {
        return s;
    }
    // TwoSum: `s + e` is `x + y` exactly, and `s` is 0 only when the sum is.
    let t = s - x;
    let e = (x - (s - t)) + (y - t);
    if e == 0.0 || s.to_bits() & 1 == 1 {
        return s;
    }
    // Inexact and even: the odd neighbour on the exact sum's side.
    let away_from_zero = (e > 0.0) == (s > 0.0);
    f64::from_bits(if away_from_zero { s.to_bits() + 1 } else { s.to_bits() - 1 })
}

/// PTX `shf`: the 64-bit `high:low` shifted by `n` (at most 32), the high word of a left
/// shift or the low word of a right one.
#[inline(always)]
fn shf(low: u32, high: u32, n: u32, left: bool) -> u32 {
    let pair = u64::from(low) | (u64::from(high) << 32);
    if left { ((pair << n) >> 32) as u32 } else { (pair >> n) as u32 }
}

/// PTX `prmt.b32`: byte `i` of the result is byte `pick(i)` of the eight bytes of `b:a`.
#[inline(always)]
fn prmt(a: u32, b: u32, c: u32, mode: PrmtMode) -> u32 {
    let bytes = u64::from(a) | (u64::from(b) << 32);
    let byte = |k: u32| ((bytes >> (8 * (k & 7))) & 0xFF) as u32;
    let s = c & 3;
    let mut out = 0;
    for i in 0..4u32 {
        let picked = match mode {
            PrmtMode::Idx => {
                let nibble = (c >> (4 * i)) & 0xF;
                let value = byte(nibble);
                // Bit 3 of the nibble replicates the picked byte's sign bit.
                if nibble & 8 == 0 {
                    value
                } else if value & 0x80 != 0 {
                    0xFF
                } else {
                    0
                }
            }
            PrmtMode::F4e => byte(s + i),
            PrmtMode::B4e => byte(s.wrapping_sub(i)),
            PrmtMode::Rc8 => byte(s),
            PrmtMode::Ecl => byte(i.max(s)),
            PrmtMode::Ecr => byte(i.min(s)),
            PrmtMode::Rc16 => byte(2 * (s & 1) + (i & 1)),
        };
        out |= picked << (8 * i);
    }
    out
}

/// PTX `bfe`: the `len`-bit field of `a` at `pos` (both mod 256); bits past bit 31, and
/// all bits above the field, are the extension (the field's top bit when signed, else 0).
#[inline(always)]
fn bfe(a: u32, pos: u32, len: u32, signed: bool) -> u32 {
    let (pos, len) = (pos & 0xFF, len & 0xFF);
    let sign = signed && len != 0 && (a >> (pos + len - 1).min(31)) & 1 != 0;
    let width = len.min(32u32.saturating_sub(pos));
    let field = if pos >= 32 { 0 } else { a >> pos };
    let mask = if width >= 32 { u32::MAX } else { (1 << width) - 1 };
    (field & mask) | if sign { !mask } else { 0 }
}

/// The canonical f32 NaN that NVIDIA GPUs produce.
pub const NAN32: u32 = 0x7FFF_FFFF;
/// The canonical f64 NaN.
pub const NAN64: u64 = 0x7FFF_FFFF_FFFF_FFFF;
/// The canonical f16 and bf16 NaN.
pub const NAN16: u32 = 0x7FFF;

#[inline(always)]
pub(crate) fn canon32(v: f32) -> u32 {
    if v.is_nan() { NAN32 } else { v.to_bits() }
}

#[inline(always)]
pub(crate) fn canon64(v: f64) -> u64 {
    if v.is_nan() { NAN64 } else { v.to_bits() }
}

/// Flushes a subnormal to a zero of the same sign.
#[inline(always)]
fn flush(v: f32) -> f32 {
    if v.is_subnormal() { f32::from_bits(v.to_bits() & 0x8000_0000) } else { v }
}

/// Applies `.FTZ` to the result, `.SAT` clamping and NaN canonicalisation.
#[inline(always)]
fn finish(v: f32, flags: FFlags) -> u32 {
    let v = if flags.ftz { flush(v) } else { v };
    if flags.sat {
        // NaN and every negative value, -0 included, saturate to +0.
        if v.is_nan() || v <= 0.0 {
            return 0;
        }
        return v.min(1.0).to_bits();
    }
    canon32(v)
}

/// `.FTZ` on an input.
#[inline(always)]
fn input(bits: u32, flags: FFlags) -> f32 {
    let v = f32::from_bits(bits);
    if flags.ftz { flush(v) } else { v }
}

/// IEEE minimum/maximum as the contract defines them: the non-NaN operand wins, -0 < +0.
#[inline(always)]
fn min_max<F: MinMax>(a: F, b: F, max: bool) -> F {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => F::CANONICAL_NAN,
        (true, false) => b,
        (false, true) => a,
        // Equal values differ at most in the sign of zero: OR the signs for min, AND for max.
        _ if a == b => a.join_bits(b, max),
        _ => {
            if (a < b) != max {
                a
            } else {
                b
            }
        }
    }
}

/// [`min_max`], but the canonical NaN when either operand is NaN (`FMIN.NAN`, `HMAX2.NAN`).
fn min_max_nan<F: MinMax>(a: F, b: F, max: bool) -> F {
    if a.is_nan() || b.is_nan() { F::CANONICAL_NAN } else { min_max(a, b, max) }
}

/// What FMIN/FMAX and DMIN/DMAX need of a float type.
trait MinMax: Copy + PartialOrd {
    const CANONICAL_NAN: Self;
    fn is_nan(self) -> bool;
    /// The bitwise AND (`and`) or OR of the two values' bits.
    fn join_bits(self, other: Self, and: bool) -> Self;
}

macro_rules! min_max {
    ($($t:ty: $nan:expr),*) => {$(
        impl MinMax for $t {
            const CANONICAL_NAN: $t = <$t>::from_bits($nan);
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn join_bits(self, other: $t, and: bool) -> $t {
                <$t>::from_bits(if and { self.to_bits() & other.to_bits() } else { self.to_bits() | other.to_bits() })
            }
        }
    )*};
}
min_max!(f32: NAN32, f64: NAN64);

/// f32 two-operand operations.
#[inline(always)]
pub fn f32_op(op: FOp, a: u32, b: u32, flags: FFlags) -> u32 {
    let (x, y) = (input(a, flags), input(b, flags));
    let r = match op {
        FOp::Add => x + y,
        FOp::Mul => x * y,
        FOp::Min => min_max(x, y, false),
        FOp::Max => min_max(x, y, true),
        FOp::MinNan => min_max_nan(x, y, false),
        FOp::MaxNan => min_max_nan(x, y, true),
        FOp::Div => x / y,
    };
    finish(r, flags)
}

/// The least or greatest of f32 `values` (`REDUX.F32`), -0 below +0: NaNs passed over, the
/// canonical NaN only when there is nothing else; with `nan`, the canonical NaN if any is NaN.
pub fn reduce_f32(values: impl Iterator<Item = u32>, max: bool, nan: bool) -> u32 {
    let mut values = values.map(f32::from_bits);
    let first = values.next().unwrap_or(f32::CANONICAL_NAN);
    let pick = if nan { min_max_nan } else { min_max };
    values.fold(first, |x, y| pick(x, y, max)).to_bits()
}

/// `FFMA`: one rounding.
#[inline(always)]
pub fn ffma(a: u32, b: u32, c: u32, flags: FFlags) -> u32 {
    finish(input(a, flags).mul_add(input(b, flags), input(c, flags)), flags)
}

/// `FFMA` with any rounding: `a * b + c` rounded once in the given direction.
///
/// The product of two f32 values is exact in f64, and TwoSum gives the sum as `s + e`
/// exactly; `s` rounded to nearest in f32 is then within one step of the answer, and the
/// sign of its exact distance from `s + e` says which way to step.
pub fn ffma_rounded(a: u32, b: u32, c: u32, rnd: Round, flags: FFlags) -> u32 {
    if rnd == Round::Rn {
        return ffma(a, b, c, flags);
    }
    let (x, y, z) = (f64::from(input(a, flags)), f64::from(input(b, flags)), f64::from(input(c, flags)));
    let p = x * y;
    let s = p + z;
    if !s.is_finite() {
        return finish(s as f32, flags);
    }
    let t = s - p;
    let e = (p - (s - t)) + (z - t);
    if s == 0.0 && e == 0.0 {
        // Zeros of one sign keep it; any other exact zero is +0, or -0 rounding down.
        let same = p == 0.0 && z == 0.0 && p.is_sign_negative() == z.is_sign_negative();
        let zero = if same {
            z
        } else if rnd == Round::Rm {
            -0.0
        } else {
            0.0
        };
        return finish(zero as f32, flags);
    }
    let negative = s < 0.0 || (s == 0.0 && e < 0.0);
    let down = match rnd {
        Round::Rm => true,
        Round::Rp | Round::Rn => false,
        Round::Rz => !negative,
    };
    let f = s as f32;
    // Exact: `f` and `s` are within a factor of two of each other (Sterbenz), or `f` is 0 or infinite.
    let above = f64::from(f) - s;
    let step = |f: f32, up: bool| -> f32 {
        if f == 0.0 {
            return if up { f32::from_bits(1) } else { -f32::from_bits(1) };
        }
        let bits = f.to_bits();
        f32::from_bits(if (f > 0.0) == up { bits + 1 } else { bits - 1 })
    };
    let r = match (down, above > e, above < e) {
        (true, true, _) => step(f, false),
        (false, _, true) => step(f, true),
        _ => f,
    };
    finish(r, flags)
}

/// `BFI`: `b` with its `len`-bit field at `pos` replaced by the low bits of `a`.
#[inline(always)]
pub fn bfi(a: u32, b: u32, pos: u32, len: u32) -> u32 {
    let (pos, len) = (pos & 0xFF, len & 0xFF);
    if pos >= 32 || len == 0 {
        return b;
    }
    let field = if len >= 32 { u32::MAX } else { (1u32 << len) - 1 } << pos;
    (b & !field) | ((a << pos) & field)
}

/// `LOP3`: each bit of the result is bit `4a + 2b + c` of `lut`: the OR of the minterms
/// `lut` sets.
#[inline(always)]
pub fn lop3(a: u32, b: u32, c: u32, lut: u32) -> u32 {
    let pick = |x: u32, set: bool| if set { x } else { !x };
    (0..8).filter(|k| lut >> k & 1 != 0).fold(0, |d, k| d | (pick(a, k & 4 != 0) & pick(b, k & 2 != 0) & pick(c, k & 1 != 0)))
}

/// `FRND`: `a` rounded to an integral value in the given direction.
#[inline(always)]
pub fn frnd(a: u32, rnd: Round, flags: FFlags) -> u32 {
    let x = input(a, flags);
    finish(
        match rnd {
            Round::Rn => x.round_ties_even(),
            Round::Rz => x.trunc(),
            Round::Rm => x.floor(),
            Round::Rp => x.ceil(),
        },
        flags,
    )
}

/// f64 two-operand operations.
#[inline(always)]
pub fn f64_op(op: DOp, a: u64, b: u64) -> u64 {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    canon64(match op {
        DOp::Add => x + y,
        DOp::Mul => x * y,
        DOp::Div => x / y,
        DOp::Min => min_max(x, y, false),
        DOp::Max => min_max(x, y, true),
    })
}

/// `DRND`: `a` rounded to an integral value in the given direction.
#[inline(always)]
pub fn drnd(a: u64, rnd: Round) -> u64 {
    let x = f64::from_bits(a);
    canon64(match rnd {
        Round::Rn => x.round_ties_even(),
        Round::Rz => x.trunc(),
        Round::Rm => x.floor(),
        Round::Rp => x.ceil(),
    })
}

/// `DSQRT`: correctly rounded, as IEEE 754 square roots are.
#[inline(always)]
pub fn dsqrt(a: u64) -> u64 {
    canon64(f64::from_bits(a).sqrt())
}

/// `DFMA`: one rounding.
#[inline(always)]
pub fn dfma(a: u64, b: u64, c: u64) -> u64 {
    canon64(f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c)))
}

/// `a << b` with counts of 32 or more giving 0.
#[inline(always)]
pub fn shl(a: u32, b: u32) -> u32 {
    a.checked_shl(b).unwrap_or(0)
}

/// A lane's integer, 32 or 64 bits, and its signed reading.
pub trait LaneInt: Copy + Ord {
    /// The same bits as a signed integer.
    type Signed: Copy + Ord;
    /// `self` read as signed.
    fn signed(self) -> Self::Signed;
}

impl LaneInt for u32 {
    type Signed = i32;
    #[inline(always)]
    fn signed(self) -> i32 {
        self as i32
    }
}

impl LaneInt for u64 {
    type Signed = i64;
    #[inline(always)]
    fn signed(self) -> i64 {
        self as i64
    }
}

/// Integer comparison of 32 lanes at once, as a lane mask: the comparison is chosen
/// outside the loop, so each loop is a plain vector compare.
#[inline(always)]
pub fn icmp_lanes<T: LaneInt>(cmp: Cmp, signed: bool, a: &[T; 32], b: &[T; 32]) -> u32 {
    #[inline(always)]
    fn mask(f: impl Fn(usize) -> bool) -> u32 {
        let mut m = 0;
        for l in 0..32 {
            m |= u32::from(f(l)) << l;
        }
        m
    }
    // Lanes are read as signed inside each loop: converting whole rows up front costs
    // every comparison, signed or not, two array copies the optimiser keeps.
    let (sa, sb) = (|l: usize| a[l].signed(), |l: usize| b[l].signed());
    match (cmp, signed) {
        (Cmp::Eq, _) => mask(|l| a[l] == b[l]),
        (Cmp::Ne, _) => mask(|l| a[l] != b[l]),
        (Cmp::Lt, true) => mask(|l| sa(l) < sb(l)),
        (Cmp::Le, true) => mask(|l| sa(l) <= sb(l)),
        (Cmp::Gt, true) => mask(|l| sa(l) > sb(l)),
        (Cmp::Ge, true) => mask(|l| sa(l) >= sb(l)),
        (Cmp::Lt, false) => mask(|l| a[l] < b[l]),
        (Cmp::Le, false) => mask(|l| a[l] <= b[l]),
        (Cmp::Gt, false) => mask(|l| a[l] > b[l]),
        (Cmp::Ge, false) => mask(|l| a[l] >= b[l]),
    }
}

/// Float comparison: ordered forms are false on NaN, `..U` forms true.
#[inline(always)]
pub fn fcmp(cmp: FCmp, a: f64, b: f64) -> bool {
    let unordered = a.is_nan() || b.is_nan();
    match cmp {
        FCmp::Eq => a == b,
        FCmp::Ne => !unordered && a != b,
        FCmp::Lt => a < b,
        FCmp::Le => a <= b,
        FCmp::Gt => a > b,
        FCmp::Ge => a >= b,
        FCmp::Equ => unordered || a == b,
        FCmp::Neu => a != b,
        FCmp::Ltu => unordered || a < b,
        FCmp::Leu => unordered || a <= b,
        FCmp::Gtu => unordered || a > b,
        FCmp::Geu => unordered || a >= b,
        FCmp::Num => !unordered,
        FCmp::Nan => unordered,
    }
}

/// Combines a comparison mask with `q`.
#[inline(always)]
pub fn combine(bop: BoolOp, cmp: u32, q: u32) -> u32 {
    match bop {
        BoolOp::And => cmp & q,
        BoolOp::Or => cmp | q,
        BoolOp::Xor => cmp ^ q,
    }
}

/// `MUFU`: computed in f64, rounded once to f32; with `ftz` a subnormal input and result are
/// flushed to a zero of their sign.
#[inline(always)]
pub fn mufu(op: MufuOp, a: u32, ftz: bool) -> u32 {
    let a = if ftz { flush(f32::from_bits(a)) } else { f32::from_bits(a) };
    let x = f64::from(a);
    let r = match op {
        MufuOp::Rcp => 1.0 / x,
        MufuOp::Rsq => 1.0 / x.sqrt(),
        MufuOp::Sqrt => x.sqrt(),
        MufuOp::Sin => x.sin(),
        MufuOp::Cos => x.cos(),
        MufuOp::Ex2 => x.exp2(),
        MufuOp::Lg2 => x.log2(),
        MufuOp::Tanh => x.tanh(),
    };
    canon32(if ftz { flush(r as f32) } else { r as f32 })
}

/// f64 to f32 rounding to odd, so that a second rounding to a format with at
/// least two bits less precision (f16, bf16) is the correct single rounding.
fn f64_to_f32_odd(x: f64) -> f32 {
    let r = x as f32;
    if x.is_nan() || f64::from(r) == x {
        return r;
    }
    let mut bits = r.to_bits();
    if f64::from(r).abs() > x.abs() {
        bits -= 1;
    }
    f32::from_bits(bits | 1)
}

/// Rounds to f16 or bf16 (nearest even) once; NaN becomes the canonical 0x7FFF.
fn to_f16_bits(v: f64, bf: bool) -> u32 {
    if v.is_nan() {
        return NAN16;
    }
    let v = f64_to_f32_odd(v);
    if bf { u32::from(bf16::from_f32(v).to_bits()) } else { u32::from(f16::from_f32(v).to_bits()) }
}

/// `PACK.F16X2` / `PACK.BF16X2`: `a` in the low half.
#[inline]
pub fn pack(a: u32, b: u32, bf: bool) -> u32 {
    let half = |x: u32| to_f16_bits(f64::from(f32::from_bits(x)), bf);
    half(a) | (half(b) << 16)
}

/// A `CVT` source's value, exactly: every source type is representable in f64 or i128.
enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    /// The value of `src` read as `from`, with the source modifiers applied (exact too).
    fn of(src: u64, from: CvtType, neg: bool, abs: bool) -> Num {
        let lo = src as u32;
        match from {
            CvtType::U32 => Num::Int(i128::from(lo)),
            CvtType::S32 => Num::Int(i128::from(lo as i32)),
            CvtType::U64 => Num::Int(i128::from(src)),
            CvtType::S64 => Num::Int(i128::from(src as i64)),
            CvtType::F32 => Num::Float(f64::from(f32::from_bits(lo))),
            CvtType::F64 => Num::Float(f64::from_bits(src)),
            CvtType::F16 => Num::Float(f64::from(f16::from_bits(lo as u16))),
            CvtType::BF16 => Num::Float(f64::from(bf16::from_bits(lo as u16))),
        }
        .modified(neg, abs)
    }

    fn modified(self, neg: bool, abs: bool) -> Num {
        match self {
            Num::Int(i) => Num::Int(if abs { i.abs() } else { i } * if neg { -1 } else { 1 }),
            Num::Float(f) => Num::Float(if abs { f.abs() } else { f } * if neg { -1.0 } else { 1.0 }),
        }
    }
}

/// The format of a float `CVT` type (`None` for the integer types).
fn float_format(ty: CvtType) -> Option<directed::Format> {
    match ty {
        CvtType::F32 => Some(directed::F32),
        CvtType::F64 => Some(directed::F64),
        CvtType::F16 => Some(directed::F16),
        CvtType::BF16 => Some(directed::BF16),
        CvtType::U32 | CvtType::S32 | CvtType::U64 | CvtType::S64 => None,
    }
}

/// `CVT`: the source as a 64-bit pattern (low word first), the result likewise.
pub fn cvt(src: u64, from: CvtType, to: CvtType, neg: bool, abs: bool) -> u64 {
    match Num::of(src, from, neg, abs) {
        // Rust's `as` truncates toward zero, saturates and maps NaN to 0, as the contract asks.
        Num::Float(f) => match to {
            CvtType::F32 => u64::from(canon32(f as f32)),
            CvtType::F64 => canon64(f),
            CvtType::F16 => u64::from(to_f16_bits(f, false)),
            CvtType::BF16 => u64::from(to_f16_bits(f, true)),
            CvtType::U32 => u64::from(f as u32),
            CvtType::S32 => u64::from(f as i32 as u32),
            CvtType::U64 => f as u64,
            CvtType::S64 => f as i64 as u64,
        },
        // Integers wrap to integer types and round once, to nearest, to float types (Rust's
        // `as` does for f32 and f64).
        Num::Int(i) => match to {
            CvtType::U32 | CvtType::S32 => u64::from(i as u32),
            CvtType::U64 | CvtType::S64 => i as u64,
            CvtType::F32 => u64::from((i as f32).to_bits()),
            CvtType::F64 => (i as f64).to_bits(),
            CvtType::F16 => directed::round(directed::Exact::of_int(i), directed::F16, Round::Rn),
            CvtType::BF16 => directed::round(directed::Exact::of_int(i), directed::BF16, Round::Rn),
        },
    }
}

/// `CVT.<to>.<from>.RZ/RM/RP`: `cvt` with every rounding it does in direction `rnd`.
pub fn cvt_directed(src: u64, from: CvtType, to: CvtType, neg: bool, abs: bool, rnd: Round) -> u64 {
    let Some(format) = float_format(to) else {
        // To an integer: an integral value in the direction (truncated by default), which CVT
        // then converts exactly.
        return match Num::of(src, from, neg, abs) {
            Num::Int(_) => cvt(src, from, to, neg, abs),
            Num::Float(f) => {
                let integral = match rnd {
                    Round::Rn | Round::Rz => f.trunc(),
                    Round::Rm => f.floor(),
                    Round::Rp => f.ceil(),
                };
                cvt(integral.to_bits(), CvtType::F64, to, false, false)
            }
        };
    };
    match Num::of(src, from, neg, abs) {
        Num::Int(i) => directed::round(directed::Exact::of_int(i), format, rnd),
        // NaN and infinities convert without rounding.
        Num::Float(f) if !f.is_finite() => cvt(src, from, to, neg, abs),
        Num::Float(f) => directed::round(directed::Exact::of_f64(f), format, rnd),
    }
}

/// `CVT.TF32.F32`: rounded to 10 mantissa bits, ties away from zero (contract section 9).
#[inline]
pub fn cvt_tf32(a: u32) -> u32 {
    tf32_round(f32::from_bits(a))
}

/// `CVT.E4M3X2.F32` (and E5M2X2, E2M1X2): `a` in the low element, upper bits 0.
#[inline]
pub fn cvt_pair(format: MiniFloat, a: u32, b: u32) -> u32 {
    format.pack2(f32::from_bits(a), f32::from_bits(b))
}

/// `CVT.F32.E4M3` (and E5M2, E2M1): the lowest element of `a`, exactly; NaN is canonical.
#[inline]
pub fn cvt_widen(format: MiniFloat, a: u32) -> u32 {
    format.decode(a).to_bits()
}

/// `CVT.F16X2.<from>X2` (`bf16`: `BF16X2`): the two lowest elements of `a`, each widened
/// exactly, packed with the lowest in the low half.
pub fn cvt_pair_widen(format: MiniFloat, a: u32, bf16: bool) -> u32 {
    pack(cvt_widen(format, a), cvt_widen(format, a >> format.bits()), bf16)
}

/// `LDSM`'s exchange: `rows[k][r]` is word `k` of the 16-byte row lane `r`'s address named,
/// and register `j` of lane `l` gets word `l % 4` of matrix `j`'s row `l / 4`, or with
/// `trans` the 16-bit elements of its column `l / 4` in rows `2 (l % 4)` (low half) and
/// `2 (l % 4) + 1`. Matrices past `count` stay 0.
pub(crate) fn matrices(rows: &[[u32; 32]; 4], count: u8, trans: bool) -> [[u32; 32]; 4] {
    let element = |row: usize, column: usize| (rows[column / 2][row] >> (16 * (column % 2))) & 0xFFFF;
    let mut out = [[0u32; 32]; 4];
    for (j, matrix) in out.iter_mut().take(usize::from(count)).enumerate() {
        for (l, word) in matrix.iter_mut().enumerate() {
            let first = 8 * j;
            *word = if trans {
                let (row, column) = (first + 2 * (l % 4), l / 4);
                element(row, column) | element(row + 1, column) << 16
            } else {
                rows[l % 4][first + l / 4]
            };
        }
    }
    out
}

/// `STSM`'s exchange, [`matrices`]' inverse: the 16-byte rows (`rows[k][r]` word `k` of the
/// row lane `r` names) that `matrices` would give back as the registers `matrices` (matrix
/// `j`'s in `matrices[j]`). Rows past `count`'s matrices stay 0.
pub(crate) fn rows_of_matrices(matrices: &[[u32; 32]; 4], count: u8, trans: bool) -> [[u32; 32]; 4] {
    let mut rows = [[0u32; 32]; 4];
    for (j, matrix) in matrices.iter().take(usize::from(count)).enumerate() {
        for (l, &word) in matrix.iter().enumerate() {
            let first = 8 * j;
            if trans {
                // The halves of lane l's word are column l / 4 of rows 2 (l % 4) and the next.
                let (row, column) = (first + 2 * (l % 4), l / 4);
                for (k, half) in [word & 0xFFFF, word >> 16].into_iter().enumerate() {
                    let shift = 16 * (column % 2);
                    let cell = &mut rows[column / 2][row + k];
                    *cell = (*cell & !(0xFFFF << shift)) | half << shift;
                }
            } else {
                rows[l % 4][first + l / 4] = word;
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: FFlags = FFlags { ftz: false, sat: false };
    const FTZ: FFlags = FFlags { ftz: true, sat: false };
    const SAT: FFlags = FFlags { ftz: false, sat: true };

    fn f(v: f32) -> u32 {
        v.to_bits()
    }

    /// Every table on inputs that give each bit position its own (a, b, c): bit `i` of the
    /// result is the table's bit `4a + 2b + c`, whatever bit position carries it.
    #[test]
    fn lop3_reads_its_table_bit_by_bit() {
        let (a, b, c) = (0xF0F0_F0F0u32, 0xCCCC_CCCCu32, 0xAAAA_AAAAu32);
        for lut in 0..256u32 {
            assert_eq!(lop3(a, b, c, lut), lut * 0x0101_0101, "table {lut:#04x}");
            assert_eq!(lop3(a.rotate_left(7), b.rotate_left(7), c.rotate_left(7), lut), (lut * 0x0101_0101).rotate_left(7));
        }
        assert_eq!(lop3(a, b, c, 0x1FF), lop3(a, b, c, 0xFF), "bits past the table's 8 are ignored");
    }

    #[test]
    fn f32_table() {
        let min_normal = 0x0080_0000;
        let cases: &[(FOp, u32, u32, FFlags, u32)] = &[
            (FOp::Add, f(1.0), f(2.0), PLAIN, f(3.0)),
            (FOp::Add, f(0.75), f(0.5), SAT, f(1.0)),
            (FOp::Add, f(-3.0), f(1.0), SAT, 0),
            (FOp::Mul, f(-0.0), f(1.0), SAT, 0),
            (FOp::Add, f(f32::INFINITY), f(f32::NEG_INFINITY), PLAIN, NAN32),
            (FOp::Add, f(f32::INFINITY), f(f32::NEG_INFINITY), SAT, 0),
            (FOp::Mul, min_normal, f(0.5), PLAIN, 0x0040_0000),
            (FOp::Mul, min_normal, f(0.5), FTZ, 0),
            (FOp::Mul, min_normal | 0x8000_0000, f(0.5), FTZ, 0x8000_0000),
            (FOp::Add, 0x0000_0001, 0, FTZ, 0),
            (FOp::Add, 0x0000_0001, 0, PLAIN, 1),
            (FOp::Min, NAN32, f(2.0), PLAIN, f(2.0)),
            (FOp::Max, f(2.0), 0xFFC0_0000, PLAIN, f(2.0)),
            (FOp::Min, NAN32, NAN32, PLAIN, NAN32),
            (FOp::Min, f(0.0), f(-0.0), PLAIN, f(-0.0)),
            (FOp::Max, f(-0.0), f(0.0), PLAIN, f(0.0)),
            (FOp::Min, f(-1.0), f(3.0), PLAIN, f(-1.0)),
            (FOp::Max, f(-1.0), f(3.0), PLAIN, f(3.0)),
            (FOp::Mul, f(f32::MAX), f(2.0), PLAIN, f(f32::INFINITY)),
        ];
        for &(op, a, b, flags, want) in cases {
            assert_eq!(f32_op(op, a, b, flags), want, "{op:?} {a:#x} {b:#x} {flags:?}");
        }
    }

    #[test]
    fn ffma_rounds_once() {
        let a = 0x3F80_0001; // 1 + 2^-23
        let c = 0xBF80_0002; // -(1 + 2^-22)
        assert_eq!(ffma(a, a, c, PLAIN), 0x2880_0000); // 2^-46 survives
        assert_eq!(f32_op(FOp::Add, f32_op(FOp::Mul, a, a, PLAIN), c, PLAIN), 0);
        assert_eq!(ffma(f(2.0), f(3.0), f(-7.0), SAT), 0);
        assert_eq!(ffma(f(0.0), f(f32::INFINITY), f(1.0), PLAIN), NAN32);
    }

    #[test]
    fn f64_table() {
        let one_ulp = 0x3FF0_0000_0000_0001;
        let minus = 0xBFF0_0000_0000_0002;
        assert_eq!(dfma(one_ulp, one_ulp, minus), 0x3970_0000_0000_0000);
        assert_eq!(f64_op(DOp::Add, 1.5f64.to_bits(), 2.25f64.to_bits()), 3.75f64.to_bits());
        assert_eq!(f64_op(DOp::Mul, f64::INFINITY.to_bits(), 0), NAN64);
    }

    #[test]
    fn int_table() {
        let cases: &[(IntOp, u32, u32, u32)] = &[
            (IntOp::Add, u32::MAX, 2, 1),
            (IntOp::Sub, 0, 1, u32::MAX),
            (IntOp::Mul, 0x8000_0000, 2, 0),
            (IntOp::MulHi(IntType::U32), u32::MAX, u32::MAX, 0xFFFF_FFFE),
            (IntOp::MulHi(IntType::S32), u32::MAX, u32::MAX, 0),
            (IntOp::MulHi(IntType::S32), 0x8000_0000, 2, u32::MAX),
            (IntOp::Min(IntType::S32), u32::MAX, 1, u32::MAX),
            (IntOp::Min(IntType::U32), u32::MAX, 1, 1),
            (IntOp::Max(IntType::S32), u32::MAX, 1, 1),
            (IntOp::Max(IntType::U32), u32::MAX, 1, u32::MAX),
            (IntOp::Shl, 1, 31, 0x8000_0000),
            (IntOp::Shl, 1, 32, 0),
            (IntOp::Shl, 1, u32::MAX, 0),
            (IntOp::Shr(IntType::U32), 0x8000_0000, 31, 1),
            (IntOp::Shr(IntType::U32), 0x8000_0000, 32, 0),
            (IntOp::Shr(IntType::S32), 0x8000_0000, 40, u32::MAX),
            (IntOp::Shr(IntType::S32), 0x4000_0000, 40, 0),
            (IntOp::And, 0b1100, 0b1010, 0b1000),
            (IntOp::Or, 0b1100, 0b1010, 0b1110),
            (IntOp::Xor, 0b1100, 0b1010, 0b0110),
            (IntOp::Div(IntType::S32), (-7i32) as u32, 2, (-3i32) as u32),
            (IntOp::Div(IntType::U32), (-7i32) as u32, 2, 0x7FFF_FFFC),
            (IntOp::Div(IntType::S32), 5, 0, u32::MAX),
            (IntOp::Div(IntType::S32), 0x8000_0000, u32::MAX, 0x8000_0000),
            (IntOp::Rem(IntType::S32), (-7i32) as u32, 2, u32::MAX),
            (IntOp::Rem(IntType::U32), (-7i32) as u32, 2, 1),
            (IntOp::Rem(IntType::U32), 5, 0, 5),
        ];
        for &(op, a, b, want) in cases {
            assert_eq!(int_op(op, a, b), want, "{op:?} {a:#x} {b:#x}");
        }
        assert_eq!(un_op(UnOp::Abs, 0x8000_0000), 0x8000_0000);
        assert_eq!(un_op(UnOp::Abs, (-5i32) as u32), 5);
        assert_eq!(un_op(UnOp::Popc, 0xF0F0), 8);
        assert_eq!(un_op(UnOp::Clz, 0), 32);
        assert_eq!(un_op(UnOp::Clz, 1), 31);
        assert_eq!(un_op(UnOp::Brev, 1), 0x8000_0000);
        assert_eq!(un_op(UnOp::Not, 0), u32::MAX);
    }

    /// The 32-lane loops, specialised per operation and modifier by `lane_ops!`,
    /// agree with the lane functions for every modifier value.
    #[test]
    fn lane_loops_follow_their_modifiers() {
        let a: [u32; 32] = std::array::from_fn(|l| (l as u32).wrapping_mul(0x9E37_79B9) ^ (l as u32) << 28);
        let b: [u32; 32] = std::array::from_fn(|l| (l as u32).wrapping_mul(0x85EB_CA6B).rotate_left(l as u32) % 40);
        let c: [u32; 32] = std::array::from_fn(|l| l as u32 * 3);
        for ty in [IntType::S32, IntType::U32] {
            for op in [IntOp::MulHi(ty), IntOp::Min(ty), IntOp::Max(ty), IntOp::Shr(ty), IntOp::Div(ty), IntOp::Rem(ty)] {
                let lanes = int_op_lanes(op, &a, &b);
                assert!((0..32).all(|l| lanes[l] == int_op(op, a[l], b[l])), "{op:?}");
            }
        }
        let tri_ops = [IntType::S32, IntType::U32]
            .map(TriOp::Bfe)
            .into_iter()
            .chain([PrmtMode::Idx, PrmtMode::F4e, PrmtMode::B4e, PrmtMode::Rc8, PrmtMode::Ecl, PrmtMode::Ecr, PrmtMode::Rc16].map(TriOp::Prmt));
        let shf = [ShfDir::L, ShfDir::R].into_iter().flat_map(|dir| [ShfAmount::Wrap, ShfAmount::Clamp].map(|amount| TriOp::Shf(dir, amount)));
        for op in tri_ops.chain(shf) {
            let lanes = tri_op_lanes(op, &a, &b, &c);
            assert!((0..32).all(|l| lanes[l] == tri_op(op, a[l], b[l], c[l])), "{op:?}");
        }
    }

    #[test]
    fn int64_modifiers() {
        use Int64Type::{S64, U64};
        let minus_seven = (-7i64) as u64;
        let cases: &[(Int64Op, u64, u64, u64)] = &[
            (Int64Op::Min(S64), minus_seven, 1, minus_seven),
            (Int64Op::Min(U64), minus_seven, 1, 1),
            (Int64Op::Max(S64), minus_seven, 1, 1),
            (Int64Op::Max(U64), minus_seven, 1, minus_seven),
            (Int64Op::Div(S64), minus_seven, 2, (-3i64) as u64),
            (Int64Op::Div(U64), minus_seven, 2, minus_seven / 2),
            (Int64Op::Div(S64), 1, 0, u64::MAX),
            (Int64Op::Rem(S64), minus_seven, 2, u64::MAX),
            (Int64Op::Rem(U64), 9, 0, 9),
            (Int64Op::Shr(S64), 1 << 63, 70, u64::MAX),
            (Int64Op::Shr(U64), 1 << 63, 63, 1),
            (Int64Op::Shr(U64), 1 << 63, 64, 0),
            (Int64Op::MulWide(IntType::S32), 0xFFFF_FFFF, 2, (-2i64) as u64),
            (Int64Op::MulWide(IntType::U32), 0xFFFF_FFFF, 2, 0x1_FFFF_FFFE),
            (Int64Op::MulHi(S64), u64::MAX, u64::MAX, 0),
            (Int64Op::MulHi(U64), u64::MAX, u64::MAX, u64::MAX - 1),
        ];
        for &(op, a, b, want) in cases {
            assert_eq!(int64_op(op, a, b), want, "{op:?} {a:#x} {b:#x}");
        }
    }

    #[test]
    fn comparisons() {
        let one = |cmp, signed, a, b| icmp_lanes(cmp, signed, &[a; 32], &[b; 32]) == u32::MAX;
        assert!(one(Cmp::Lt, true, u32::MAX, 0));
        assert!(!one(Cmp::Lt, false, u32::MAX, 0));
        assert!(one(Cmp::Ge, false, 5, 5));
        let nan = f64::NAN;
        for (cmp, want_nan) in [
            (FCmp::Eq, false),
            (FCmp::Ne, false),
            (FCmp::Lt, false),
            (FCmp::Ge, false),
            (FCmp::Equ, true),
            (FCmp::Neu, true),
            (FCmp::Ltu, true),
            (FCmp::Geu, true),
            (FCmp::Num, false),
            (FCmp::Nan, true),
        ] {
            assert_eq!(fcmp(cmp, nan, 1.0), want_nan, "{cmp:?}");
        }
        assert!(fcmp(FCmp::Ne, 1.0, 2.0) && fcmp(FCmp::Num, 1.0, 2.0) && !fcmp(FCmp::Nan, 1.0, 2.0));
        assert_eq!(combine(BoolOp::Xor, 0b1100, 0b1010), 0b0110);
    }

    #[test]
    fn conversions() {
        let c = |v: u64, from, to| cvt(v, from, to, false, false);
        assert_eq!(c(u64::from(f(-2.7)), CvtType::F32, CvtType::S32), u64::from((-2i32) as u32));
        assert_eq!(c(u64::from(f(-1.0)), CvtType::F32, CvtType::U32), 0);
        assert_eq!(c(u64::from(NAN32), CvtType::F32, CvtType::S32), 0);
        assert_eq!(c(u64::from(f(3e9)), CvtType::F32, CvtType::S32), i32::MAX as u64);
        assert_eq!(c(u64::from(f(5e9)), CvtType::F32, CvtType::U32), u64::from(u32::MAX));
        assert_eq!(c(u64::from(f(1.0)), CvtType::F32, CvtType::F16), 0x3C00);
        assert_eq!(c(u64::from(f(1.0)), CvtType::F32, CvtType::BF16), 0x3F80);
        assert_eq!(c(u64::from(NAN32), CvtType::F32, CvtType::F16), 0x7FFF);
        assert_eq!(c(u64::from(f(65520.0)), CvtType::F32, CvtType::F16), 0x7C00);
        assert_eq!(c(16_777_217, CvtType::U32, CvtType::F32), u64::from(f(16_777_216.0)));
        assert_eq!(c(u64::from(u32::MAX), CvtType::S32, CvtType::F32), u64::from(f(-1.0)));
        // 2^24 + 2^16 + 1 rounds to bf16 in one step (a second rounding through f32 would tie to even).
        assert_eq!(c(0x0101_0001, CvtType::U32, CvtType::BF16), 0x4B81);
        // 1 + 2^-11 + 2^-40 is just above an f16 tie: one rounding goes up, two would tie to even.
        assert_eq!(c((1.0 + 2f64.powi(-11) + 2f64.powi(-40)).to_bits(), CvtType::F64, CvtType::F16), 0x3C01);
        assert_eq!(c(1e300f64.to_bits(), CvtType::F64, CvtType::BF16), 0x7F80);
        assert_eq!(c((-1e-300f64).to_bits(), CvtType::F64, CvtType::F16), 0x8000);
        assert_eq!(c(0.1f64.to_bits(), CvtType::F64, CvtType::F32), u64::from(f(0.1)));
        assert_eq!(c(u64::from(f(0.1)), CvtType::F32, CvtType::F64), f64::from(0.1f32).to_bits());
        assert_eq!(c(0x3C00, CvtType::F16, CvtType::S32), 1);
        assert_eq!(cvt(u64::from(f(2.5)), CvtType::F32, CvtType::F32, true, false), u64::from(f(-2.5)));
        assert_eq!(cvt(5, CvtType::S32, CvtType::S32, true, false), u64::from((-5i32) as u32));
        assert_eq!(pack(f(1.0), f(-2.0), false), 0xC000_3C00);
    }

    #[test]
    fn low_precision_conversions() {
        // (f32 input, CVT.TF32.F32)
        let tf32 = [
            (1.0f32.to_bits(), 0x3F80_0000),
            (0x3F80_1000, 0x3F80_2000), // 1 + 2^-11: a tie, away from zero
            (0xBF80_1000, 0xBF80_2000), // and for negatives
            (0x3F80_0FFF, 0x3F80_0000), // just below the tie
            (0x7F7F_F000, 0x7F80_0000), // rounds past the largest TF32: infinity
            (0x7F7F_EFFF, 0x7F7F_E000), // rounds down to it: stays finite
            (0xFF80_0000, 0xFF80_0000), // -inf
            (0x7FC0_0001, 0x7FFF_E000), // NaN
            (0xFFFF_FFFF, 0x7FFF_E000), // NaN, negative
            (0x0000_1000, 0x0000_2000), // a subnormal tie
            (0x8000_0000, 0x8000_0000), // -0
        ];
        for (a, want) in tf32 {
            assert_eq!(cvt_tf32(a), want, "CVT.TF32.F32 {a:#010x}");
        }
        // (format, a, b, CVT.<format>X2.F32)
        let pairs = [
            (MiniFloat::E4M3, f(1.0), f(-2.0), 0xC038),
            (MiniFloat::E4M3, f(448.0), f(464.0), 0x7E7E), // 464 is the tie above 448: saturates
            (MiniFloat::E4M3, f(f32::INFINITY), f(f32::NEG_INFINITY), 0xFE7E),
            (MiniFloat::E4M3, NAN32, f(-1e-9), 0x807F), // NaN; a negative that rounds to zero
            (MiniFloat::E4M3, f(2f32.powi(-10)), f(3.0 * 2f32.powi(-10)), 0x0200), // ties to even subnormals
            (MiniFloat::E5M2, f(57344.0), f(1e9), 0x7B7B),
            (MiniFloat::E5M2, f(f32::INFINITY), NAN32, 0x7F7B),
            (MiniFloat::E5M2, f(1.125), f(1.375), 0x3E3C), // ties to even: 1.0 and 1.5
            (MiniFloat::E2M1, f(0.75), f(5.0), 0x62),      // 0.75 -> 1.0 (even), 5 -> 4 (even)
            (MiniFloat::E2M1, NAN32, f(-100.0), 0xF7),     // NaN gives +6, -100 saturates to -6
            (MiniFloat::E2M1, f(-0.25), f(0.25), 0x08),    // both ties to zero, one negative
        ];
        for (format, a, b, want) in pairs {
            assert_eq!(cvt_pair(format, a, b), want, "CVT.{format}X2.F32 {:?} {:?}", f32::from_bits(a), f32::from_bits(b));
        }
        // (format, register, CVT.F32.<format>): only the lowest element counts.
        let widen = [
            (MiniFloat::E4M3, 0xFFFF_FF38, f(1.0)),
            (MiniFloat::E4M3, 0x7E, f(448.0)),
            (MiniFloat::E4M3, 0x01, f(2f32.powi(-9))),
            (MiniFloat::E4M3, 0xFF, 0x7FFF_FFFF),
            (MiniFloat::E5M2, 0x7C, f(f32::INFINITY)),
            (MiniFloat::E5M2, 0xFD, 0x7FFF_FFFF),
            (MiniFloat::E5M2, 0x80, f(-0.0)),
            (MiniFloat::E2M1, 0xF7, f(6.0)),
            (MiniFloat::E2M1, 0x9, f(-0.5)),
        ];
        for (format, a, want) in widen {
            assert_eq!(cvt_widen(format, a), want, "CVT.F32.{format} {a:#x}");
        }
    }

    #[test]
    fn mufu_is_f64_rounded_once() {
        assert_eq!(mufu(MufuOp::Sqrt, f(2.0), false), 0x3FB5_04F3);
        assert_eq!(mufu(MufuOp::Rcp, f(3.0), false), 0x3EAA_AAAB);
        assert_eq!(mufu(MufuOp::Rcp, 0, false), f(f32::INFINITY));
        assert_eq!(mufu(MufuOp::Sqrt, f(-1.0), false), NAN32);
        assert_eq!(mufu(MufuOp::Ex2, f(10.0), false), f(1024.0));
        assert_eq!(mufu(MufuOp::Lg2, f(0.125), false), f(-3.0));
        assert_eq!(mufu(MufuOp::Rsq, f(4.0), false), f(0.5));
    }

    #[test]
    fn mufu_ftz_flushes_a_subnormal_input_and_result() {
        let tiny = 0x0000_0001; // the smallest positive subnormal
        assert_eq!(mufu(MufuOp::Rcp, tiny, true), f(f32::INFINITY), "1 / +0");
        assert_eq!(mufu(MufuOp::Rcp, tiny | 0x8000_0000, true), f(f32::NEG_INFINITY), "1 / -0");
        assert_eq!(mufu(MufuOp::Sqrt, tiny, true), 0, "sqrt(+0)");
        assert_ne!(mufu(MufuOp::Sqrt, tiny, false), 0, "sqrt(2^-149) is 2^-74.5");
        assert_eq!(mufu(MufuOp::Ex2, f(-140.0), true), 0, "2^-140 is subnormal");
        assert_eq!(mufu(MufuOp::Ex2, f(-140.0), false), 0x0000_0200, "2^-149 x 2^9");
        assert_eq!(mufu(MufuOp::Ex2, f(10.0), true), f(1024.0), "a normal result is kept");
    }

    /// `v` rounded to f16, nearest even, by its place against the midpoint of the f16s around
    /// it (exact in f64); past the largest f16 by half a step is infinity.
    fn f16_nearest(v: f64) -> u16 {
        let magnitude = v.abs();
        let mut below = f16::from_f64(magnitude);
        if below.to_f64() > magnitude {
            below = f16::from_bits(below.to_bits() - 1);
        }
        let above = if below == f16::INFINITY { 65536.0 } else { f16::from_bits(below.to_bits() + 1).to_f64().min(65536.0) };
        let midpoint = (below.to_f64() + above) / 2.0;
        let up = magnitude > midpoint || (magnitude == midpoint && below.to_bits() & 1 == 1);
        let bits = if up { below.to_bits() + 1 } else { below.to_bits() };
        bits | if v.is_sign_negative() { 0x8000 } else { 0 }
    }

    /// The case that showed `half`'s `f16::from_f64` rounding twice: a proptest run found it.
    #[test]
    fn hfma2_rounds_a_near_tie_once() {
        let got = tri_op(TriOp::Hfma2(PackType::F16x2), 2_299_133_952, 3_796_697_088, 3_234_791_424);
        let [x, y, z] = [2_299_133_952u32, 3_796_697_088, 3_234_791_424].map(|w| f16::from_bits((w >> 16) as u16).to_f64());
        assert_eq!(x.mul_add(y, z), -2.2802733182907104);
        assert_eq!((got >> 16, u32::from(f16_nearest(x.mul_add(y, z)))), (49295, 49295), "-2.279296875, below the tie");
    }

    proptest::proptest! {
        /// Directed roundings bracket the exact result: round-to-nearest (the host's own
        /// correctly rounded fused multiply-add) is one of the two, they are one step apart
        /// unless equal, and toward zero picks by the sign.
        #[test]
        fn directed_ffma_brackets_round_to_nearest(a: u32, b: u32, c: u32) {
            let (x, y, z) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
            let nearest = x.mul_add(y, z);
            proptest::prop_assume!(nearest.is_finite() && x.is_finite() && y.is_finite() && z.is_finite());
            let [down, up, zero] = [Round::Rm, Round::Rp, Round::Rz].map(|r| f32::from_bits(ffma_rounded(a, b, c, r, PLAIN)));
            proptest::prop_assert!(down <= up);
            proptest::prop_assert!(nearest == down || nearest == up, "{nearest} not in [{down}, {up}]");
            if down != up {
                let next = if down == 0.0 { f32::from_bits(1) } else if down > 0.0 { f32::from_bits(down.to_bits() + 1) } else { f32::from_bits(down.to_bits() - 1) };
                proptest::prop_assert_eq!(next, up);
                proptest::prop_assert_eq!(zero.to_bits(), if down >= 0.0 { down.to_bits() } else { up.to_bits() });
            }
        }

        /// `HFMA2` on f16 halves is the host's fused multiply-add in f64, rounded to f16. That
        /// rounds twice, but for f16 inputs never wrongly: where the addend decides a tie, the
        /// f64 sum is exact (a product of halves and a half span at most 63 bits only when one
        /// is too small to reach a half's rounding point). The f64 is rounded to f16 here by
        /// comparing it with the midpoint of its two neighbours, exact in f64: `half`'s
        /// `f16::from_f64` goes through f32 on some hosts, rounding twice itself
        /// (-2.2802733182907104 became the tie -2.2802734375, then the even f16 above it).
        #[test]
        fn hfma2_on_f16_rounds_once(a: u32, b: u32, c: u32) {
            let got = tri_op(TriOp::Hfma2(PackType::F16x2), a, b, c);
            for shift in [0, 16] {
                let [x, y, z] = [a, b, c].map(|w| f16::from_bits((w >> shift) as u16).to_f64());
                let want = x.mul_add(y, z);
                let want = if want.is_nan() { NAN16 } else { u32::from(f16_nearest(want)) };
                proptest::prop_assert_eq!((got >> shift) & 0xFFFF, want, "{} * {} + {}", x, y, z);
            }
        }
    }

    proptest::proptest! {
        /// `STSM` stores what `LDSM` loads back: the rows of any registers give them again,
        /// and the registers of any rows (of the matrices moved) give those rows.
        #[test]
        fn stored_matrices_load_back(words in proptest::collection::vec(proptest::prelude::any::<u32>(), 128), count in 0usize..3, trans: bool) {
            let count = [1u8, 2, 4][count];
            let mut given = [[0u32; 32]; 4];
            for (j, matrix) in given.iter_mut().take(usize::from(count)).enumerate() {
                matrix.copy_from_slice(&words[32 * j..32 * j + 32]);
            }
            proptest::prop_assert_eq!(matrices(&rows_of_matrices(&given, count, trans), count, trans), given);
            let mut rows = [[0u32; 32]; 4];
            for (k, row) in rows.iter_mut().enumerate() {
                for (r, word) in row.iter_mut().enumerate().take(8 * usize::from(count)) {
                    *word = words[32 * k + r];
                }
            }
            proptest::prop_assert_eq!(rows_of_matrices(&matrices(&rows, count, trans), count, trans), rows);
        }
    }
}
