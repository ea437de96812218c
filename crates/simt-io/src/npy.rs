//! Reading and writing `.npy` files.
//!
//! The format is a magic string, a version, a Python dict literal describing
//! the array and the raw data. Only what simt buffers can hold is accepted:
//! little-endian (or one-byte) integers of 8 to 64 bits, bools and floats of
//! 16 to 64 bits, in C order. Everything else is rejected with an error that names
//! what the file holds; reading never panics and never allocates more than
//! the file's own size.
//!
//! bfloat16 has no numpy dtype: bf16 buffers travel as `<u2` (the raw bits;
//! in numpy, `(a.astype(np.uint32) << 16).view(np.float32)` widens them).

use std::fmt;

use simt_isa::ElemType;

const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// The numpy dtypes simt reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtype {
    /// `|u1`
    U8,
    /// `|i1`
    I8,
    /// `<u2`
    U16,
    /// `<i2`
    I16,
    /// `<u4`
    U32,
    /// `<i4`
    I32,
    /// `<f2`
    F16,
    /// `<f4`
    F32,
    /// `<f8`
    F64,
    /// `<i8`
    I64,
    /// `<u8`
    U64,
    /// `|b1`
    Bool,
}

/// What to tell a user whose array has numpy dtype kind `kind` (`'f'`, `'i'`, `'u'`, `'b'`)
/// and `size` bytes per element where a buffer of `elem` is needed.
///
/// A hint never offers a conversion that changes values where the bits may have been
/// meant: between integer (or bool) types of one size `view` is the whole answer (it
/// keeps the bits; `astype` would give the same bits, except into a bool); between a
/// float and an integer type of one size either may be meant, so both are named, each
/// with what it does; only across sizes is `astype` alone right. bf16 travels as its
/// bits in `<u2`, and no numpy conversion of float values gives them: `ml_dtypes` does.
pub fn conversion_hint(kind: char, size: usize, elem: ElemType) -> String {
    let want = Dtype::of_elem(elem);
    let float = |k: char| k == 'f';
    let same_bits = format!("pass the same bits with `a.view('{}')`", want.descr());
    if elem == ElemType::BF16 && float(kind) {
        "bf16 travels as its bits in `<u2`: round float values to them with `a.astype(ml_dtypes.bfloat16).view('<u2')` (the ml_dtypes package)".into()
    } else if size != want.size() {
        format!("convert the values with `a.astype('{}')`", want.descr())
    } else if float(kind) == float(want.kind()) {
        same_bits
    } else {
        format!("{same_bits}, or convert the values with `a.astype('{}')`", want.descr())
    }
}

impl Dtype {
    /// Every dtype simt reads.
    pub const ALL: [Dtype; 12] =
        [Dtype::U8, Dtype::I8, Dtype::U16, Dtype::I16, Dtype::U32, Dtype::I32, Dtype::F16, Dtype::F32, Dtype::F64, Dtype::I64, Dtype::U64, Dtype::Bool];

    /// The `descr` numpy writes for this dtype.
    pub fn descr(self) -> &'static str {
        match self {
            Dtype::U8 => "|u1",
            Dtype::I8 => "|i1",
            Dtype::U16 => "<u2",
            Dtype::I16 => "<i2",
            Dtype::U32 => "<u4",
            Dtype::I32 => "<i4",
            Dtype::F16 => "<f2",
            Dtype::F32 => "<f4",
            Dtype::F64 => "<f8",
            Dtype::I64 => "<i8",
            Dtype::U64 => "<u8",
            Dtype::Bool => "|b1",
        }
    }

    /// numpy's kind code: `'u'`, `'i'`, `'f'` or `'b'`.
    pub fn kind(self) -> char {
        self.descr().as_bytes()[1] as char
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Dtype::U8 | Dtype::I8 | Dtype::Bool => 1,
            Dtype::U16 | Dtype::I16 | Dtype::F16 => 2,
            Dtype::U32 | Dtype::I32 | Dtype::F32 => 4,
            Dtype::F64 | Dtype::I64 | Dtype::U64 => 8,
        }
    }

    /// The dtype that stores buffers of `elem` (`b32` as `<u4`, `bf16` as `<u2` bits; the
    /// section 9 types as the values they hold: f32, and `|i1`/`|u1` for S4/U4).
    pub fn of_elem(elem: ElemType) -> Dtype {
        match elem {
            ElemType::TF32 | ElemType::E4M3 | ElemType::E5M2 | ElemType::E2M1 => Dtype::F32,
            ElemType::S4 => Dtype::I8,
            ElemType::U4 => Dtype::U8,
            ElemType::U8 => Dtype::U8,
            ElemType::S8 => Dtype::I8,
            ElemType::U16 | ElemType::BF16 => Dtype::U16,
            ElemType::S16 => Dtype::I16,
            ElemType::U32 | ElemType::B32 => Dtype::U32,
            ElemType::S32 => Dtype::I32,
            ElemType::F16 => Dtype::F16,
            ElemType::F32 => Dtype::F32,
            ElemType::F64 => Dtype::F64,
            ElemType::S64 => Dtype::I64,
            ElemType::U64 => Dtype::U64,
            ElemType::Bool => Dtype::Bool,
        }
    }

    /// The element type whose buffers this dtype stores as they are (`<u2` as u16, not bf16).
    pub fn elem(self) -> ElemType {
        match self {
            Dtype::U8 => ElemType::U8,
            Dtype::I8 => ElemType::S8,
            Dtype::U16 => ElemType::U16,
            Dtype::I16 => ElemType::S16,
            Dtype::U32 => ElemType::U32,
            Dtype::I32 => ElemType::S32,
            Dtype::F16 => ElemType::F16,
            Dtype::F32 => ElemType::F32,
            Dtype::F64 => ElemType::F64,
            Dtype::I64 => ElemType::S64,
            Dtype::U64 => ElemType::U64,
            Dtype::Bool => ElemType::Bool,
        }
    }

    fn parse(descr: &str) -> Result<Dtype, NpyError> {
        let unsupported = || NpyError::UnsupportedDtype(descr.to_string());
        let (order, code) = descr.split_at_checked(1).ok_or_else(unsupported)?;
        let dtype = match code {
            "u1" => Dtype::U8,
            "i1" => Dtype::I8,
            "u2" => Dtype::U16,
            "i2" => Dtype::I16,
            "u4" => Dtype::U32,
            "i4" => Dtype::I32,
            "f2" => Dtype::F16,
            "f4" => Dtype::F32,
            "f8" => Dtype::F64,
            "i8" => Dtype::I64,
            "u8" => Dtype::U64,
            "b1" => Dtype::Bool,
            _ => return Err(unsupported()),
        };
        match order {
            "<" | "|" if dtype.size() == 1 || order == "<" => Ok(dtype),
            // A one-byte dtype has no byte order, whatever the prefix says.
            ">" | "=" if dtype.size() == 1 => Ok(dtype),
            ">" => Err(NpyError::BigEndian(descr.to_string())),
            _ => Err(unsupported()),
        }
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.descr())
    }
}

/// An array read from a `.npy` file: its dtype, shape and little-endian bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Array {
    /// Element type.
    pub dtype: Dtype,
    /// Extents, outermost first (C order); empty for a 0-d array.
    pub shape: Vec<usize>,
    /// The elements, little-endian, C order.
    pub data: Vec<u8>,
}

/// Encountered when bytes are not a `.npy` file simt can use.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NpyError {
    /// The magic string or version is wrong.
    #[error("not a .npy file (it does not start with the numpy magic string \\x93NUMPY)")]
    NotNpy,
    /// A format version other than 1, 2 or 3.
    #[error("unsupported .npy format version {0}.{1} (simt reads versions 1, 2 and 3)")]
    UnsupportedVersion(u8, u8),
    /// The header is cut short or is not the dict numpy writes.
    #[error("corrupt .npy header: {0}")]
    BadHeader(String),
    /// A dtype simt has no element type for.
    #[error(
        "unsupported .npy dtype {0:?}: simt reads |u1 |i1 <u2 <i2 <u4 <i4 <i8 <u8 |b1 <f2 <f4 <f8 (convert the values with `a.astype(np.float32)` or `a.astype(np.int64)`)"
    )]
    UnsupportedDtype(String),
    /// A big-endian dtype.
    #[error("big-endian .npy dtype {0:?}: save a little-endian copy with `a.astype(a.dtype.newbyteorder('<'))`")]
    BigEndian(String),
    /// Fortran (column-major) order.
    #[error("the .npy array is in Fortran order: save a C-order copy with `np.ascontiguousarray(a)`")]
    FortranOrder,
    /// The data does not match the header's shape.
    #[error("the .npy data holds {found} bytes but its header promises {expected} (the file is truncated or corrupt)")]
    DataLength {
        /// Bytes the shape and dtype call for.
        expected: u128,
        /// Bytes present after the header.
        found: usize,
    },
}

/// Parses a `.npy` file.
///
/// # Errors
/// See [`NpyError`]; any byte string gives an error or an array, never a panic.
pub fn read(bytes: &[u8]) -> Result<Array, NpyError> {
    if bytes.len() < 8 || &bytes[..6] != MAGIC {
        return Err(NpyError::NotNpy);
    }
    let (major, minor) = (bytes[6], bytes[7]);
    let (header_len, start) = match major {
        1 if bytes.len() >= 10 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10usize),
        2 | 3 if bytes.len() >= 12 => (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12),
        1..=3 => return Err(NpyError::BadHeader("the header length is cut short".into())),
        _ => return Err(NpyError::UnsupportedVersion(major, minor)),
    };
    let header = bytes
        .get(start..start.saturating_add(header_len))
        .ok_or_else(|| NpyError::BadHeader(format!("the header claims {header_len} bytes but the file ends first")))?;
    let header = std::str::from_utf8(header).map_err(|_| NpyError::BadHeader("the header is not text".into()))?;
    let descr = dict_value(header, "descr")?;
    let descr = unquote(descr).ok_or_else(|| NpyError::UnsupportedDtype(descr.to_string()))?;
    let dtype = Dtype::parse(descr)?;
    match dict_value(header, "fortran_order")? {
        "False" => {}
        "True" => return Err(NpyError::FortranOrder),
        other => return Err(NpyError::BadHeader(format!("fortran_order is {other:?}, not True or False"))),
    }
    let shape = parse_shape(dict_value(header, "shape")?)?;
    let data = &bytes[start + header_len..];
    let expected = shape.iter().fold(dtype.size() as u128, |n, &d| n.saturating_mul(d as u128));
    if expected != data.len() as u128 {
        return Err(NpyError::DataLength { expected, found: data.len() });
    }
    Ok(Array { dtype, shape, data: data.to_vec() })
}

/// The text after `'key':` up to the next top-level `,` or `}`.
fn dict_value<'a>(header: &'a str, key: &str) -> Result<&'a str, NpyError> {
    let missing = || NpyError::BadHeader(format!("the header has no '{key}' entry"));
    let at = header.find(&format!("'{key}'")).or_else(|| header.find(&format!("\"{key}\""))).ok_or_else(missing)?;
    let rest = header[at + key.len() + 2..].trim_start().strip_prefix(':').ok_or_else(missing)?.trim_start();
    let mut depth = 0usize;
    for (i, c) in rest.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            ',' | '}' if depth == 0 => return Ok(rest[..i].trim()),
            _ => {}
        }
    }
    Err(NpyError::BadHeader(format!("the '{key}' entry is not terminated")))
}

fn unquote(s: &str) -> Option<&str> {
    s.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')).or_else(|| s.strip_prefix('"').and_then(|s| s.strip_suffix('"')))
}

fn parse_shape(text: &str) -> Result<Vec<usize>, NpyError> {
    let inner = text.strip_prefix('(').and_then(|s| s.strip_suffix(')')).ok_or_else(|| NpyError::BadHeader(format!("shape {text:?} is not a tuple")))?;
    inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.trim_end_matches('L').parse().map_err(|_| NpyError::BadHeader(format!("shape entry {s:?} is not a size"))))
        .collect()
}

/// Encodes `data` (little-endian elements of `dtype`) as a version 1.0 `.npy` file of the given shape.
///
/// # Panics
/// When `data.len()` is not the product of `shape` times the element size: that is a bug in the caller.
pub fn write(dtype: Dtype, shape: &[usize], data: &[u8]) -> Vec<u8> {
    assert_eq!(shape.iter().product::<usize>() * dtype.size(), data.len(), "npy::write: shape and data disagree");
    let mut out = header(dtype, shape);
    out.extend_from_slice(data);
    out
}

/// The header of a `.npy` file: the data of `shape` elements of `dtype` follows it.
pub fn header(dtype: Dtype, shape: &[usize]) -> Vec<u8> {
    let dims: String = shape.iter().map(|d| format!("{d},")).collect::<Vec<_>>().join(" ");
    let mut header = format!("{{'descr': '{}', 'fortran_order': False, 'shape': ({dims}), }}", dtype.descr());
    // numpy pads the header with spaces so the data starts 64-byte aligned, and ends it with a newline.
    let total = (10 + header.len() + 1).next_multiple_of(64);
    header.extend(std::iter::repeat_n(' ', total - 10 - header.len() - 1));
    header.push('\n');
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_never_turn_meant_bits_into_other_values() {
        // (what the array holds, what the parameter needs): the hint for each, one a line.
        let cases = [
            ("<f2", ElemType::BF16),
            ("<f4", ElemType::BF16),
            ("<i2", ElemType::BF16),
            ("<f2", ElemType::U16),
            ("<i4", ElemType::F32),
            ("<f4", ElemType::U32),
            ("<i4", ElemType::U32),
            ("<f8", ElemType::S64),
            ("<u8", ElemType::S64),
            ("|u1", ElemType::Bool),
            ("|b1", ElemType::U8),
            ("<f8", ElemType::F32),
            ("<i8", ElemType::S32),
            ("<f8", ElemType::E4M3),
        ];
        let lines: Vec<String> = cases
            .iter()
            .map(|&(descr, elem)| {
                let found = Dtype::parse(descr).unwrap();
                format!("{descr} for {elem}: {}", conversion_hint(found.kind(), found.size(), elem))
            })
            .collect();
        insta::assert_snapshot!(lines.join("\n"));
    }

    /// The bytes of `np.save(f, np.arange(3, dtype=np.float16))` with numpy 1.26.
    fn numpy_f16() -> Vec<u8> {
        let mut b = b"\x93NUMPY\x01\x00v\x00{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }".to_vec();
        b.resize(10 + 0x75, b' ');
        b.push(b'\n');
        b.extend_from_slice(&[0x00, 0x00, 0x00, 0x3c, 0x00, 0x40]);
        b
    }

    #[test]
    fn reads_what_numpy_writes() {
        let a = read(&numpy_f16()).unwrap();
        assert_eq!(a, Array { dtype: Dtype::F16, shape: vec![3], data: vec![0, 0, 0, 0x3c, 0, 0x40] });
    }

    #[test]
    fn reads_the_conformance_files_numpy_wrote() {
        let bytes = include_bytes!("../../../tests/fixtures/conformance/mma_sparse/meta.npy");
        let a = read(bytes).unwrap();
        assert_eq!((a.dtype, a.shape), (Dtype::U32, vec![32]));
    }

    #[test]
    fn every_dtype_round_trips_and_matches_numpys_layout() {
        for elem in ElemType::ALL {
            let dtype = Dtype::of_elem(elem);
            let data: Vec<u8> = (0..6 * dtype.size()).map(|i| i as u8).collect();
            let bytes = write(dtype, &[2, 3], &data);
            assert_eq!((bytes.len() - data.len()) % 64, 0);
            assert_eq!(read(&bytes).unwrap(), Array { dtype, shape: vec![2, 3], data });
        }
        assert_eq!(write(Dtype::F16, &[3], &numpy_f16()[128..]), numpy_f16());
    }

    #[test]
    fn versions_two_and_three_are_read() {
        let v1 = numpy_f16();
        let mut v2 = b"\x93NUMPY\x02\x00".to_vec();
        v2.extend_from_slice(&(0x76u32).to_le_bytes());
        v2.extend_from_slice(&v1[10..]);
        assert_eq!(read(&v2).unwrap().shape, vec![3]);
        v2[6] = 3;
        assert_eq!(read(&v2).unwrap().shape, vec![3]);
    }

    fn with_header(dict: &str, data: &[u8]) -> Vec<u8> {
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        b.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        b.extend_from_slice(dict.as_bytes());
        b.extend_from_slice(data);
        b
    }

    #[test]
    fn unusable_files_are_rejected_with_reasons() {
        let h = |d: &str| read(&with_header(&format!("{{'descr': '{d}', 'fortran_order': False, 'shape': (1,), }}"), &[0; 8]));
        assert_eq!(h(">f8"), Err(NpyError::BigEndian(">f8".into())));
        assert_eq!(h("<c16"), Err(NpyError::UnsupportedDtype("<c16".into())));
        assert_eq!(h("<i8").map(|a| a.dtype), Ok(Dtype::I64));
        assert_eq!(h("<c8"), Err(NpyError::UnsupportedDtype("<c8".into())));
        assert!(matches!(h("<f4"), Err(NpyError::DataLength { expected: 4, found: 8 })));
        let fortran = with_header("{'descr': '<f8', 'fortran_order': True, 'shape': (1,), }", &[0; 8]);
        assert_eq!(read(&fortran), Err(NpyError::FortranOrder));
        let huge = with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999, 99999999999), }", &[]);
        assert!(matches!(read(&huge), Err(NpyError::DataLength { .. })));
        assert_eq!(read(b"PK\x03\x04 a zip file"), Err(NpyError::NotNpy));
        assert_eq!(read(b"\x93NUMPY\x04\x00"), Err(NpyError::UnsupportedVersion(4, 0)));
    }

    #[test]
    fn every_truncation_and_corruption_is_an_error_not_a_panic() {
        let good = numpy_f16();
        for cut in 0..good.len() {
            assert!(read(&good[..cut]).is_err(), "truncated at {cut} was accepted");
        }
        for i in 0..good.len() {
            for flip in [0x01, 0x20, 0x80, 0xFF] {
                let mut b = good.clone();
                b[i] ^= flip;
                let _ = read(&b);
            }
        }
    }
}
