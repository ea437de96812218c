//! Host buffers of the tensor-core element types of contract section 9.
//!
//! The conversions are `simt_tensor::formats` (the functions `CVT` itself
//! runs); this module reads the host's inputs for them. `tf32`, `e4m3`,
//! `e5m2` and `e2m1` buffers hold f32 data: a literal is read as f32 first (an
//! integer or decimal rounds to nearest, a `0f` pattern is exact, a finite
//! decimal beyond f32 is an error as for `.f32` buffers), then rounded once to
//! the format. `s4` and `u4` hold integers in -8 ..= 7 and 0 ..= 15. The
//! 4-bit types pack two elements a byte, the first in the low nibble. Reading
//! back gives the exact f32 value of every code (NaN codes give NaN) and
//! S4/U4 as integers.

use simt_isa::{ElemType, Literal};
use simt_tensor::formats::{self, Decoded, EncodeError, LowpType, MiniFloat, tf32_round};

use crate::Element;

/// The section 9 type `elem` is, if it is one.
pub fn lowp_type(elem: ElemType) -> Option<LowpType> {
    Some(match elem {
        ElemType::TF32 => LowpType::Tf32,
        ElemType::E4M3 => LowpType::Float(MiniFloat::E4M3),
        ElemType::E5M2 => LowpType::Float(MiniFloat::E5M2),
        ElemType::E2M1 => LowpType::Float(MiniFloat::E2M1),
        ElemType::S4 => LowpType::S4,
        ElemType::U4 => LowpType::U4,
        _ => return None,
    })
}

/// The code of an f32 value, with the `CVT` rules (integer types take its low bits).
fn code_f32(ty: LowpType, x: f32) -> u32 {
    match ty {
        LowpType::Tf32 => tf32_round(x),
        LowpType::Float(format) => u32::from(format.encode(x)),
        LowpType::S4 | LowpType::U4 => x as i32 as u32 & 0xF,
    }
}

/// Encountered when a value cannot become an element of a section 9 type.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConversionError {
    /// A float for S4 or U4.
    #[error("{lit} is a float but {ty} holds integers: write an integer")]
    FloatForInteger {
        /// The value given.
        lit: Literal,
        /// The element type.
        ty: LowpType,
    },
    /// A `0d` pattern for a type that takes f32 data.
    #[error("{lit} is an f64 pattern, but {ty} takes f32 data: write a `0f` pattern or a decimal")]
    F64Pattern {
        /// The value given.
        lit: Literal,
        /// The element type.
        ty: LowpType,
    },
    /// A finite decimal that f32, which the data is read as, cannot hold.
    #[error("`{lit}` is too large for f32 (at most {:e}), which {ty} data is read as: write inf for infinity", f32::MAX)]
    TooLargeForF32 {
        /// The value given.
        lit: Literal,
        /// The element type.
        ty: LowpType,
    },
    /// An integer outside S4's or U4's range.
    #[error("{value} does not fit {ty} ({min} ..= {max})")]
    OutOfRange {
        /// The value given.
        value: i64,
        /// The element type.
        ty: LowpType,
        /// Its smallest value.
        min: i32,
        /// Its largest value.
        max: i32,
    },
    /// One element of a list.
    #[error("element {index}: {source}")]
    Element {
        /// Its index, from 0.
        index: usize,
        /// What is wrong with it.
        source: Box<ConversionError>,
    },
    /// A buffer's values as a whole (an odd count of a 4-bit type, a value out of range).
    #[error(transparent)]
    Encode(#[from] EncodeError),
}

/// The value a literal gives an element of `ty`: an integer for S4/U4, f32 data otherwise.
///
/// # Errors
/// For S4 and U4 anything but an integer in range; for the float types a `0d` pattern or a
/// finite decimal too large for f32.
fn literal_value(ty: LowpType, lit: Literal) -> Result<f64, ConversionError> {
    match (ty.int_range(), lit) {
        (Some((min, max)), Literal::Int(value)) if value < i64::from(min) || value > i64::from(max) => Err(ConversionError::OutOfRange { value, ty, min, max }),
        (Some(_), Literal::Int(v)) => Ok(v as f64),
        (Some(_), _) => Err(ConversionError::FloatForInteger { lit, ty }),
        (None, Literal::Int(v)) => Ok(f64::from(v as f32)),
        (None, Literal::F32Bits(bits)) => Ok(f64::from(f32::from_bits(bits))),
        (None, Literal::F64Bits(_)) => Err(ConversionError::F64Pattern { lit, ty }),
        (None, Literal::Float(v)) => {
            let x = v as f32;
            if v.is_finite() && x.is_infinite() {
                return Err(ConversionError::TooLargeForF32 { lit, ty });
            }
            Ok(f64::from(x))
        }
    }
}

/// The code of one literal, for `fill` and single elements.
///
/// # Errors
/// See [`literal_value`].
pub fn code(ty: LowpType, lit: Literal) -> Result<u32, ConversionError> {
    let value = literal_value(ty, lit)?;
    // Two copies fill whole bytes whatever the width; the first is the element.
    let bytes = formats::encode(ty, &[value, value])?;
    Ok(match ty.bits() {
        32 => u32::from_le_bytes(bytes[..4].try_into().expect("a word")),
        8 => u32::from(bytes[0]),
        _ => u32::from(bytes[0] & 0xF),
    })
}

/// The bytes of a buffer holding `values`.
///
/// # Errors
/// An odd count of a 4-bit type, or the first element that does not suit `ty` (with its index).
pub fn list(ty: LowpType, values: &[Literal]) -> Result<Vec<u8>, ConversionError> {
    let values = values.iter().enumerate().map(|(index, &v)| literal_value(ty, v).map_err(|e| ConversionError::Element { index, source: Box::new(e) }));
    let values: Vec<f64> = values.collect::<Result<_, _>>()?;
    Ok(formats::encode(ty, &values)?)
}

/// The code of `iota`'s element `i` (its range was checked up front).
pub fn iota_code(ty: LowpType, i: u64) -> u32 {
    code_f32(ty, i as f32)
}

/// The code of `rand`'s element from its 64-bit draw: the top 24 bits as an f32 in
/// [0, 1) converted with the `CVT` rules (so it may round up to 1), or any 4 bits.
pub fn rand_code(ty: LowpType, draw: u64) -> u32 {
    match ty {
        LowpType::S4 | LowpType::U4 => draw as u32 & 0xF,
        _ => code_f32(ty, (draw >> 40) as f32 * 2f32.powi(-24)),
    }
}

/// The buffer of a `.npy` file's data: f32 for the float types, i8/u8 for S4/U4
/// (as [`crate::npy::Dtype::of_elem`] says).
///
/// # Errors
/// An odd count of a 4-bit type, or an S4/U4 value out of range (naming its index).
pub fn from_npy(ty: LowpType, data: &[u8]) -> Result<Vec<u8>, EncodeError> {
    match ty {
        LowpType::S4 => formats::encode(ty, &data.iter().map(|&b| b as i8).collect::<Vec<_>>()),
        LowpType::U4 => formats::encode(ty, data),
        _ => formats::encode(ty, &data.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes"))).collect::<Vec<_>>()),
    }
}

/// The elements a buffer's bytes hold, in order.
pub(crate) fn elements(ty: LowpType, bytes: &[u8]) -> impl Iterator<Item = Element> + '_ {
    formats::decode(ty, bytes).map(|e| match e {
        Decoded::F32(x) => Element::F32(x),
        Decoded::Int(v) => Element::Int(i64::from(v)),
    })
}

/// A piece of a buffer as the bytes of its `.npy` dump: each element as f32, or as
/// one signed or unsigned byte for S4/U4.
pub fn to_npy(ty: LowpType, bytes: &[u8]) -> Vec<u8> {
    formats::decode(ty, bytes)
        .flat_map(|e| match e {
            Decoded::F32(x) => x.to_le_bytes().to_vec(),
            Decoded::Int(v) => vec![v as u8],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_convert_with_the_cvt_rules() {
        let e4m3 = LowpType::Float(MiniFloat::E4M3);
        assert_eq!(code(e4m3, Literal::Float(448.0)), Ok(0x7E));
        assert_eq!(code(e4m3, Literal::Float(-1000.0)), Ok(0xFE), "saturates");
        assert_eq!(code(e4m3, Literal::Float(f64::INFINITY)), Ok(0x7E));
        assert_eq!(code(e4m3, Literal::Float(f64::NAN)), Ok(0x7F));
        assert_eq!(code(e4m3, Literal::Int(17)), Ok(0x58), "17 is a tie between 16 and 18: even");
        assert_eq!(code(e4m3, Literal::F32Bits(0x3F80_0000)), Ok(0x38));
        assert!(code(e4m3, Literal::Float(1e39)).unwrap_err().to_string().contains("too large for f32"));
        assert!(code(e4m3, Literal::F64Bits(0)).unwrap_err().to_string().contains("f64 pattern"));
        // 1 + 2^-11 + 2^-40 is no f32: read as f32 it is the tie 1 + 2^-11, which TF32 rounds away.
        assert_eq!(code(LowpType::Tf32, Literal::Float(1.0 + 2f64.powi(-11) + 2f64.powi(-40))), Ok(0x3F80_2000));
        assert_eq!(code(LowpType::Tf32, Literal::Float(f64::from(f32::MAX))), Ok(0x7F80_0000));
        assert_eq!(code(LowpType::Float(MiniFloat::E2M1), Literal::Float(f64::NAN)), Ok(0x7));
        assert_eq!(code(LowpType::S4, Literal::Int(-8)), Ok(0x8));
        assert_eq!(code(LowpType::S4, Literal::Int(8)), Err(ConversionError::OutOfRange { value: 8, ty: LowpType::S4, min: -8, max: 7 }));
        assert_eq!(code(LowpType::S4, Literal::Int(8)).unwrap_err().to_string(), "8 does not fit s4 (-8 ..= 7)");
        assert_eq!(code(LowpType::U4, Literal::Int(15)), Ok(0xF));
        assert!(code(LowpType::U4, Literal::Float(1.5)).unwrap_err().to_string().contains("holds integers"));
    }

    #[test]
    fn lists_pack_and_name_the_bad_element() {
        let ints = |v: &[i64]| v.iter().map(|&x| Literal::Int(x)).collect::<Vec<_>>();
        assert_eq!(list(LowpType::S4, &ints(&[1, 2, 3, -1])), Ok(vec![0x21, 0xF3]));
        assert_eq!(list(LowpType::U4, &ints(&[0, 15, 16, 1])).unwrap_err().to_string(), "element 2: 16 does not fit u4 (0 ..= 15)");
        assert_eq!(
            list(LowpType::S4, &[Literal::Int(1), Literal::Float(0.5)]).unwrap_err().to_string(),
            "element 1: 0.5 is a float but s4 holds integers: write an integer"
        );
        assert!(list(LowpType::Float(MiniFloat::E2M1), &ints(&[1, 2, 3])).unwrap_err().to_string().contains("even number"));
        let decoded: Vec<Element> = elements(LowpType::S4, &[0x21, 0xF3]).collect();
        assert_eq!(decoded, [1, 2, 3, -1].map(Element::Int));
        let decoded: Vec<Element> = elements(LowpType::Float(MiniFloat::E2M1), &[0xF2]).collect();
        assert_eq!(decoded, [1.0, -6.0].map(Element::F32));
    }

    #[test]
    fn npy_data_converts_both_ways() {
        let f32s: Vec<u8> = [0.3f32, -6.5, 1.0, f32::NAN].iter().flat_map(|x| x.to_le_bytes()).collect();
        let e2m1 = LowpType::Float(MiniFloat::E2M1);
        assert_eq!(from_npy(e2m1, &f32s), Ok(vec![0xF1, 0x72]), "0.3 -> 0.5, -6.5 saturates to -6, NaN -> +6");
        let back: Vec<f32> = to_npy(e2m1, &[0xF1, 0x72]).chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(back, [0.5, -6.0, 1.0, 6.0]);
        assert!(from_npy(e2m1, &f32s[..12]).unwrap_err().to_string().contains("3 elements of e2m1"));
        assert_eq!(from_npy(LowpType::S4, &[0xF8, 7]), Ok(vec![0x78]));
        assert_eq!(from_npy(LowpType::S4, &[1, 2, 9, 0]).unwrap_err().to_string(), "element 2: 9 does not fit s4 (-8 ..= 7)");
        assert_eq!(to_npy(LowpType::S4, &[0x78]), [0xF8, 7]);
        assert_eq!(from_npy(LowpType::Tf32, &(1.0 + 2f32.powi(-11)).to_le_bytes()), Ok(0x3F80_2000u32.to_le_bytes().to_vec()));
        assert_eq!(iota_code(LowpType::Float(MiniFloat::E4M3), 17), 0x58);
        assert_eq!(rand_code(LowpType::U4, 0xFFFF_FFFF_FFFF_FFF3), 3);
    }
}
