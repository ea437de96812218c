//! simt's files and the host values of buffer elements.
//!
//! Every file simt reads goes through [`read_bounded`] (a limit checked before
//! anything is allocated) and every file it writes through
//! [`write_atomically`] (whole or not at all). [`npy`] reads and writes
//! `.npy`; [`file_elements`] turns a buffer file (an `.npy` or raw bytes) into
//! the elements of a parameter; [`elements`] decodes a buffer's bytes into
//! values, and [`lowp`] converts the tensor-core types of contract section 9.
//! Nothing here knows about kernels or launches, so a tool that only reads and
//! writes simt's files (`simt-sweep`) links none of the interpreter.

#![warn(missing_docs)]

use std::fmt;
use std::path::{Path, PathBuf};

use half::{bf16, f16};
use simt_isa::{ElemType, MAX_BUFFER_FILE_BYTES};

mod file;
pub mod lowp;
pub mod npy;

pub use file::{ReadError, is_npy_path, read_bounded, write_atomically};
use lowp::lowp_type;
use npy::{Dtype, NpyError};
use simt_tensor::formats::EncodeError;

/// Encountered when a buffer file cannot become a buffer.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The file is named `.npy` but is not one simt can use.
    #[error("{}: {source}", path.display())]
    Npy {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: NpyError,
    },
    /// The `.npy` file's dtype is not the one the parameter needs.
    #[error(
        "{} holds dtype {found} but the parameter's element type {elem} needs {want}{}; {}",
        path.display(),
        if lowp_type(*.elem).is_some() { ", which the host converts" } else { "" },
        npy::conversion_hint(.found.kind(), .found.size(), *.elem)
    )]
    Dtype {
        /// The file.
        path: PathBuf,
        /// The dtype it holds.
        found: Dtype,
        /// The parameter's element type.
        elem: ElemType,
        /// The dtype that element type needs.
        want: Dtype,
    },
    /// A value of the file does not fit a section 9 type.
    #[error("{}: {source}", path.display())]
    Conversion {
        /// The file.
        path: PathBuf,
        /// The value and why.
        source: EncodeError,
    },
    /// A raw file ends in part of an element.
    #[error("{} holds {len} bytes, not a whole number of {}-byte {elem} elements", path.display(), elem.size())]
    PartialElement {
        /// The file.
        path: PathBuf,
        /// Its length.
        len: usize,
        /// The parameter's element type.
        elem: ElemType,
    },
}

/// The element type and elements of a buffer file's `bytes`: an `.npy` of the parameter's
/// dtype, or raw data of whole elements. With `any_dtype` (a `Raw` parameter) any file is
/// taken as its bytes, and an `.npy` file's dtype becomes the element type, so a dump
/// writes back what came in.
///
/// # Errors
/// See [`FileError`].
pub fn file_elements(elem: ElemType, any_dtype: bool, path: &Path, bytes: Vec<u8>) -> Result<(ElemType, Vec<u8>), FileError> {
    if is_npy_path(path) {
        let array = npy::read(&bytes).map_err(|source| FileError::Npy { path: path.to_path_buf(), source })?;
        if any_dtype {
            return Ok((array.dtype.elem(), array.data));
        }
        let want = Dtype::of_elem(elem);
        if array.dtype != want {
            return Err(FileError::Dtype { path: path.to_path_buf(), found: array.dtype, elem, want });
        }
        match lowp_type(elem) {
            Some(ty) => lowp::from_npy(ty, &array.data).map(|data| (elem, data)).map_err(|source| FileError::Conversion { path: path.to_path_buf(), source }),
            None => Ok((elem, array.data)),
        }
    } else if !any_dtype && !bytes.len().is_multiple_of(elem.size() as usize) {
        Err(FileError::PartialElement { path: path.to_path_buf(), len: bytes.len(), elem })
    } else {
        Ok((elem, bytes))
    }
}

/// Reads a `.npy` file of at most [`MAX_BUFFER_FILE_BYTES`], naming the file in errors.
///
/// # Errors
/// When the file cannot be read or is not a usable `.npy`.
pub fn read_npy_file(path: &Path) -> Result<npy::Array, FileError> {
    let bytes = read_bounded(path, MAX_BUFFER_FILE_BYTES)?;
    npy::read(&bytes).map_err(|source| FileError::Npy { path: path.to_path_buf(), source })
}

/// One element of a buffer, in the width its natural format needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Element {
    /// Any integer type but u64 (`b32` as unsigned, a bool as 0 or 1).
    Int(i64),
    /// u64, whose values go beyond an i64.
    U64(u64),
    /// f16, bf16 (widened exactly) and f32.
    F32(f32),
    /// f64.
    F64(f64),
}

impl Element {
    /// The element as an f64 (exact for every float and for integers up to 2^53).
    pub fn value(self) -> f64 {
        match self {
            Element::Int(v) => v as f64,
            Element::U64(v) => v as f64,
            Element::F32(v) => f64::from(v),
            Element::F64(v) => v,
        }
    }
}

impl fmt::Display for Element {
    /// Integers in decimal, floats with Rust's shortest round-trip formatting.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Element::Int(v) => write!(f, "{v}"),
            Element::U64(v) => write!(f, "{v}"),
            Element::F32(v) => write!(f, "{v}"),
            Element::F64(v) => write!(f, "{v}"),
        }
    }
}

/// Decodes a buffer's bytes as elements of `elem`; a trailing partial element is ignored.
/// Section 9 types come back as f32 values (S4, U4 as integers).
pub fn elements(elem: ElemType, bytes: &[u8]) -> Box<dyn Iterator<Item = Element> + '_> {
    if let Some(ty) = lowp_type(elem) {
        return Box::new(lowp::elements(ty, bytes));
    }
    Box::new(bytes.chunks_exact(elem.size() as usize).map(move |c| {
        let u16le = || u16::from_le_bytes([c[0], c[1]]);
        let u32le = || u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        let word = || <[u8; 8]>::try_from(c).expect("chunks of 8");
        match elem {
            ElemType::U8 => Element::Int(c[0].into()),
            ElemType::S8 => Element::Int((c[0] as i8).into()),
            ElemType::U16 => Element::Int(u16le().into()),
            ElemType::S16 => Element::Int((u16le() as i16).into()),
            ElemType::U32 | ElemType::B32 => Element::Int(u32le().into()),
            ElemType::S32 => Element::Int((u32le() as i32).into()),
            ElemType::F16 => Element::F32(f16::from_bits(u16le()).to_f32()),
            ElemType::BF16 => Element::F32(bf16::from_bits(u16le()).to_f32()),
            ElemType::F32 => Element::F32(f32::from_bits(u32le())),
            ElemType::F64 => Element::F64(f64::from_le_bytes(word())),
            ElemType::S64 => Element::Int(i64::from_le_bytes(word())),
            ElemType::U64 => Element::U64(u64::from_le_bytes(word())),
            ElemType::Bool => Element::Int(c[0].into()),
            ElemType::TF32 | ElemType::E4M3 | ElemType::E5M2 | ElemType::E2M1 | ElemType::S4 | ElemType::U4 => {
                unreachable!("section 9 types are decoded above")
            }
        }
    }))
}
