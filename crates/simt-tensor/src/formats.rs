//! The low-precision element formats of contract section 9, bit-exact: TF32,
//! the FP8 formats E4M3 and E5M2, the FP4 format E2M1 and the 4-bit integers
//! S4 and U4.
//!
//! Conversions to a narrow format round once, directly from the f32 bits
//! (never through an intermediate format, which could round twice).
//! Conversions to f32 are exact. The same functions serve `CVT`, the MMA
//! element decoders and the host, which stores f32 data in buffers of these
//! types ([`encode`]) and shows them back ([`decode`]).
//!
//! ```
//! use simt_tensor::formats::{MiniFloat, tf32_round};
//! assert_eq!(MiniFloat::E4M3.encode(0.3), 0x2A); // 0.3125 = 1.25 * 2^-2
//! assert_eq!(MiniFloat::E4M3.encode(1000.0), 0x7E); // saturates to 448
//! assert_eq!(MiniFloat::E2M1.pack2(1.0, -6.0), 0xF2);
//! assert_eq!(tf32_round(1.0 + 2f32.powi(-11)), (1.0 + 2f32.powi(-10)).to_bits()); // a tie, away from zero
//! ```

use std::fmt;

/// The f32 NaN every conversion and MMA result uses.
pub const CANONICAL_NAN: u32 = 0x7FFF_FFFF;

/// `CVT.TF32.F32` of a NaN: the canonical NaN with the low 13 bits cleared.
pub const TF32_NAN: u32 = 0x7FFF_E000;

/// The 13 low mantissa bits of an f32 that TF32 does not have.
const TF32_DROPPED: u32 = 0x1FFF;

/// Half of TF32's last kept mantissa bit.
const TF32_HALF_ULP: u32 = 0x1000;

/// `CVT.TF32.F32`: the bits of `x` rounded to 10 mantissa bits, to nearest with
/// ties away from zero (PTX `cvt.rna.tf32.f32`), low 13 bits cleared.
///
/// NaN gives [`TF32_NAN`]; a finite value whose rounded magnitude would exceed
/// the largest finite TF32 (`0x7F7FE000`) becomes infinity with its sign.
/// Subnormals round like normals (a carry into the exponent is exact).
pub fn tf32_round(x: f32) -> u32 {
    if x.is_nan() {
        return TF32_NAN;
    }
    let bits = x.to_bits();
    let (sign, magnitude) = (bits & 0x8000_0000, bits & 0x7FFF_FFFF);
    if magnitude >= 0x7F80_0000 {
        return bits;
    }
    // Adding half of the kept ULP and truncating rounds ties away from zero; a
    // carry out of the mantissa moves to the next binade, and out of the largest
    // one gives exactly the infinity pattern.
    sign | ((magnitude + TF32_HALF_ULP) & !TF32_DROPPED)
}

/// The value an MMA reads from a TF32 register: the low 13 mantissa bits read
/// as zero (so a NaN whose payload lies only there reads as infinity).
#[inline(always)]
pub fn tf32_value(bits: u32) -> f32 {
    f32::from_bits(bits & !TF32_DROPPED)
}

/// The value of an S4 element: the low 4 bits of `code`, two's complement.
#[inline(always)]
pub fn s4_value(code: u32) -> i32 {
    ((code << 28) as i32) >> 28
}

/// The value of a U4 element: the low 4 bits of `code`.
#[inline(always)]
pub fn u4_value(code: u32) -> i32 {
    (code & 0xF) as i32
}

/// The narrow float formats stored as codes: FP8 E4M3 and E5M2, FP6 E2M3 and E3M2, FP4 E2M1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MiniFloat {
    /// Sign, 4 exponent bits (bias 7), 3 mantissa bits; no infinities,
    /// `S.1111.111` is NaN; largest finite 448, subnormals down to 2^-9.
    E4M3,
    /// Sign, 5 exponent bits (bias 15), 2 mantissa bits, IEEE-like (infinities
    /// `S.11111.00`, NaNs above); largest finite 57344, subnormals down to 2^-16.
    E5M2,
    /// Sign, 2 exponent bits (bias 1), 1 mantissa bit: ±{0, 0.5, 1, 1.5, 2, 3,
    /// 4, 6}; no infinity, no NaN.
    E2M1,
    /// Sign, 2 exponent bits (bias 1), 3 mantissa bits (OCP MX FP6): largest finite 7.5,
    /// subnormals down to 2^-3; no infinity, no NaN.
    E2M3,
    /// Sign, 3 exponent bits (bias 3), 2 mantissa bits (OCP MX FP6): largest finite 28,
    /// subnormals down to 2^-4; no infinity, no NaN.
    E3M2,
}

/// What distinguishes one format from another, for the shared algorithms.
struct Layout {
    /// Width of a code in bits (the sign is the top bit).
    bits: u32,
    /// Mantissa bits.
    man: u32,
    /// The exponent of the smallest normal (1 - bias); subnormals share its quantum.
    emin: i32,
    /// The largest finite magnitude code; every magnitude code above is special.
    max_code: u32,
    /// Whether the first special code is infinity (E5M2) rather than NaN.
    has_inf: bool,
    /// The code `encode` gives a NaN.
    nan_code: u8,
}

impl MiniFloat {
    /// Every format.
    pub const ALL: [MiniFloat; 5] = [MiniFloat::E4M3, MiniFloat::E5M2, MiniFloat::E2M1, MiniFloat::E2M3, MiniFloat::E3M2];

    const fn layout(self) -> Layout {
        match self {
            MiniFloat::E4M3 => Layout { bits: 8, man: 3, emin: -6, max_code: 0x7E, has_inf: false, nan_code: 0x7F },
            MiniFloat::E5M2 => Layout { bits: 8, man: 2, emin: -14, max_code: 0x7B, has_inf: true, nan_code: 0x7F },
            MiniFloat::E2M1 => Layout { bits: 4, man: 1, emin: 0, max_code: 0x7, has_inf: false, nan_code: 0x7 },
            MiniFloat::E2M3 => Layout { bits: 6, man: 3, emin: 0, max_code: 0x1F, has_inf: false, nan_code: 0x1F },
            MiniFloat::E3M2 => Layout { bits: 6, man: 2, emin: -2, max_code: 0x1F, has_inf: false, nan_code: 0x1F },
        }
    }

    /// Width of a code in bits: 8, 6 or 4.
    pub const fn bits(self) -> u32 {
        self.layout().bits
    }

    /// The lowercase name used for element types (`e4m3`).
    pub const fn name(self) -> &'static str {
        match self {
            MiniFloat::E4M3 => "e4m3",
            MiniFloat::E5M2 => "e5m2",
            MiniFloat::E2M1 => "e2m1",
            MiniFloat::E2M3 => "e2m3",
            MiniFloat::E3M2 => "e3m2",
        }
    }

    /// The largest finite value: 448, 57344, 6, 7.5 or 28.
    pub fn max_finite(self) -> f32 {
        self.decode(self.layout().max_code)
    }

    /// The code of `x` (`CVT` of one element, section 9): round to nearest
    /// even directly from the f32 bits; infinities and finite values beyond
    /// the largest finite saturate to it with their sign (PTX `.satfinite`); a
    /// negative value that rounds to zero gives negative zero. NaN gives `0x7F`
    /// (E2M1: `0x7`, which is +6; E2M3 and E3M2: `0x1F`, their largest).
    pub fn encode(self, x: f32) -> u8 {
        let l = self.layout();
        if x.is_nan() {
            return l.nan_code;
        }
        let bits = x.to_bits();
        let sign = ((bits >> 31) as u8) << (l.bits - 1);
        let magnitude = bits & 0x7FFF_FFFF;
        if magnitude >= 0x7F80_0000 {
            return sign | l.max_code as u8;
        }
        // x = significand * 2^(exp - 23), exactly.
        let biased = (magnitude >> 23) as i32;
        let significand = u64::from(if biased == 0 { magnitude } else { magnitude & 0x7F_FFFF | 0x80_0000 });
        let exp = biased.max(1) - 127;
        // The quantum of the result is 2^(e - man) with e the exponent of x,
        // but never below the subnormal quantum (formats' emin is far above f32's).
        let e = exp.max(l.emin);
        // At least 20; past 40 a 24-bit significand rounds to zero anyway.
        let shift = ((23 - l.man as i32) + (e - exp)).min(40) as u32;
        let (quotient, rest, half) = (significand >> shift, significand & ((1 << shift) - 1), 1u64 << (shift - 1));
        let rounded = quotient + u64::from(rest > half || (rest == half && quotient & 1 == 1));
        // `rounded` counts quanta of binade e; codes are contiguous across binades,
        // so a carry to 2^(man + 1) lands on the next binade's first code.
        let code = (((e - l.emin) as u64) << l.man) + rounded;
        sign | code.min(u64::from(l.max_code)) as u8
    }

    /// The exact f32 value of the low [`bits`](Self::bits) bits of `code`; a
    /// NaN code gives the canonical NaN `0x7FFFFFFF` (either sign).
    pub fn decode(self, code: u32) -> f32 {
        f32::from_bits(self.decode_bits(code))
    }

    /// `CVT.E4M3X2.F32 d, a, b` (and E5M2X2, E2M1X2): `a`'s code in the low
    /// element of `d`, `b`'s in the next, upper bits 0.
    pub fn pack2(self, a: f32, b: f32) -> u32 {
        u32::from(self.encode(a)) | u32::from(self.encode(b)) << self.bits()
    }

    const fn decode_bits(self, code: u32) -> u32 {
        let l = self.layout();
        let sign = (code >> (l.bits - 1) & 1) << 31;
        let magnitude = code & ((1 << (l.bits - 1)) - 1);
        if magnitude > l.max_code {
            return if l.has_inf && magnitude == l.max_code + 1 { sign | 0x7F80_0000 } else { CANONICAL_NAN };
        }
        let (field, mantissa) = (magnitude >> l.man, magnitude & ((1 << l.man) - 1));
        if field == 0 {
            if mantissa == 0 {
                return sign;
            }
            // A subnormal mantissa * 2^(emin - man): normalise around its top bit.
            let top = 31 - mantissa.leading_zeros();
            let exp = l.emin - l.man as i32 + top as i32;
            return sign | ((exp + 127) as u32) << 23 | (mantissa - (1 << top)) << (23 - top);
        }
        let exp = l.emin + field as i32 - 1;
        sign | ((exp + 127) as u32) << 23 | mantissa << (23 - l.man)
    }
}

impl fmt::Display for MiniFloat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Every code's value, for the MMA element decoders.
const fn value_table<const N: usize>(format: MiniFloat) -> [f32; N] {
    let mut table = [0.0; N];
    let mut code = 0;
    while code < N {
        table[code] = f32::from_bits(format.decode_bits(code as u32));
        code += 1;
    }
    table
}

/// The value of every E4M3 code.
pub(crate) static E4M3_VALUES: [f32; 256] = value_table(MiniFloat::E4M3);
/// The value of every E5M2 code.
pub(crate) static E5M2_VALUES: [f32; 256] = value_table(MiniFloat::E5M2);
/// The value of every E2M1 code.
pub(crate) static E2M1_VALUES: [f32; 16] = value_table(MiniFloat::E2M1);

/// The element types of section 9 a host buffer may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LowpType {
    /// TF32 in a little-endian f32 word, rounded with [`tf32_round`].
    Tf32,
    /// One of the narrow float formats, a byte (E2M1: a nibble) each.
    Float(MiniFloat),
    /// 4-bit two's complement integers, -8 ..= 7.
    S4,
    /// 4-bit unsigned integers, 0 ..= 15.
    U4,
}

impl LowpType {
    /// Every type.
    pub const ALL: [LowpType; 6] =
        [LowpType::Tf32, LowpType::Float(MiniFloat::E4M3), LowpType::Float(MiniFloat::E5M2), LowpType::Float(MiniFloat::E2M1), LowpType::S4, LowpType::U4];

    /// Bits of one element in memory: 32, 8 or 4.
    pub const fn bits(self) -> u32 {
        match self {
            LowpType::Tf32 => 32,
            LowpType::Float(f) => f.bits(),
            LowpType::S4 | LowpType::U4 => 4,
        }
    }

    /// The lowercase name used in `.param .ptr.<type>` (`tf32`, `s4`).
    pub const fn name(self) -> &'static str {
        match self {
            LowpType::Tf32 => "tf32",
            LowpType::Float(f) => f.name(),
            LowpType::S4 => "s4",
            LowpType::U4 => "u4",
        }
    }

    /// The inclusive range of an integer type; `None` for the float types.
    pub const fn int_range(self) -> Option<(i32, i32)> {
        match self {
            LowpType::S4 => Some((-8, 7)),
            LowpType::U4 => Some((0, 15)),
            _ => None,
        }
    }

    /// Bytes that `count` elements occupy.
    ///
    /// # Errors
    /// An odd count of a 4-bit type, which would leave half a byte.
    pub fn byte_len(self, count: usize) -> Result<usize, EncodeError> {
        match self.bits() {
            4 if count % 2 == 1 => Err(EncodeError::OddCount { ty: self, count }),
            bits => Ok(count * bits as usize / 8),
        }
    }

    /// The code of one value: a float type converts it to f32 and rounds with
    /// the `CVT` rules; an integer type takes it as an integer.
    fn code(self, index: usize, value: f64) -> Result<u32, EncodeError> {
        if let Some((min, max)) = self.int_range() {
            return if value.is_nan() || (value.is_finite() && value.fract() != 0.0) {
                Err(EncodeError::NotInteger { ty: self, index, value })
            } else if value < f64::from(min) || value > f64::from(max) {
                Err(EncodeError::OutOfRange { ty: self, index, value })
            } else {
                Ok(value as i32 as u32 & 0xF)
            };
        }
        Ok(match self {
            LowpType::Float(f) => u32::from(f.encode(value as f32)),
            _ => tf32_round(value as f32),
        })
    }
}

impl fmt::Display for LowpType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why host data does not fit a buffer of a section 9 type. The messages name
/// the element; the caller adds the parameter.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EncodeError {
    /// A 4-bit type holds two elements a byte.
    #[error("{count} elements of {ty} do not fill whole bytes: {ty} packs two elements a byte, so give an even number of elements")]
    OddCount {
        /// The buffer's type.
        ty: LowpType,
        /// How many elements were given.
        count: usize,
    },
    /// An integer type was given a value with a fraction (or NaN).
    #[error("element {index}: {ty} takes integers, not {value}")]
    NotInteger {
        /// The buffer's type.
        ty: LowpType,
        /// Index of the element, from 0.
        index: usize,
        /// The value given.
        value: f64,
    },
    /// An integer outside the type's range.
    #[error("element {index}: {value} does not fit {ty} ({})", range_text(*.ty))]
    OutOfRange {
        /// The buffer's type.
        ty: LowpType,
        /// Index of the element, from 0.
        index: usize,
        /// The value given.
        value: f64,
    },
}

fn range_text(ty: LowpType) -> String {
    ty.int_range().map_or_else(String::new, |(min, max)| format!("{min} ..= {max}"))
}

/// The bytes of a buffer of `ty` holding `values`: little-endian words for
/// TF32, one byte for E4M3 and E5M2, two elements a byte (the first in the low
/// nibble) for E2M1, S4 and U4.
///
/// Float types take f32 data: each value is converted to f32 (exact for f32
/// data and small integers) and rounded with the `CVT` rules. S4 and U4 take
/// integers.
///
/// # Errors
/// An odd count of a 4-bit type; for S4 and U4 a value with a fraction or out
/// of range (the first such element).
pub fn encode<T: Copy + Into<f64>>(ty: LowpType, values: &[T]) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(ty.byte_len(values.len())?);
    match ty.bits() {
        32 => {
            for (i, &v) in values.iter().enumerate() {
                out.extend_from_slice(&ty.code(i, v.into())?.to_le_bytes());
            }
        }
        8 => {
            for (i, &v) in values.iter().enumerate() {
                out.push(ty.code(i, v.into())? as u8);
            }
        }
        _ => {
            for (i, pair) in values.chunks_exact(2).enumerate() {
                out.push((ty.code(2 * i, pair[0].into())? | ty.code(2 * i + 1, pair[1].into())? << 4) as u8);
            }
        }
    }
    Ok(out)
}

/// One element read back from a buffer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decoded {
    /// TF32, E4M3, E5M2, E2M1: the exact value (a NaN code gives the canonical NaN).
    F32(f32),
    /// S4, U4.
    Int(i32),
}

impl fmt::Display for Decoded {
    /// Integers in decimal, floats with Rust's shortest round-trip formatting (as every dump).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decoded::F32(v) => write!(f, "{v}"),
            Decoded::Int(v) => write!(f, "{v}"),
        }
    }
}

/// The elements of a buffer of `ty`, in order (for `--dump`). A TF32 word is
/// shown as the f32 it holds, whatever its low 13 bits (the buffer's `.bin`
/// dump has the raw bytes); a trailing partial word is ignored.
pub fn decode(ty: LowpType, bytes: &[u8]) -> impl Iterator<Item = Decoded> + '_ {
    let unit = if ty == LowpType::Tf32 { 4 } else { 1 };
    let per_unit = if ty.bits() == 4 { 2 } else { 1 };
    let element = move |code: u32| match ty {
        LowpType::Tf32 => Decoded::F32(f32::from_bits(code)),
        LowpType::Float(f) => Decoded::F32(f.decode(code)),
        LowpType::S4 => Decoded::Int(s4_value(code)),
        LowpType::U4 => Decoded::Int(u4_value(code)),
    };
    bytes.chunks_exact(unit).flat_map(move |chunk| {
        let word = chunk.iter().rev().fold(0, |w, &b| w << 8 | u32::from(b));
        [element(word), element(word >> 4)].into_iter().take(per_unit)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_tables_match_decode() {
        for code in 0..256 {
            assert_eq!(E4M3_VALUES[code as usize].to_bits(), MiniFloat::E4M3.decode(code).to_bits());
            assert_eq!(E5M2_VALUES[code as usize].to_bits(), MiniFloat::E5M2.decode(code).to_bits());
        }
        for code in 0..16 {
            assert_eq!(E2M1_VALUES[code as usize].to_bits(), MiniFloat::E2M1.decode(code).to_bits());
        }
    }
}
