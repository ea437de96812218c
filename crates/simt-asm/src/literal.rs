//! Literal classification and the rules that fit a literal into a slot:
//! an instruction operand (by [`LitKind`]) or a parameter (by [`ParamType`]).

use lalrpop_util::ParseError;
use simt_isa::{ElemType, LitKind, Literal, Opcode, Src};

use crate::ast::Num;
use crate::lexer::{LexError, Token};

/// Wraps a message for a grammar action that rejects its input.
pub(crate) fn user<'a>(start: usize, end: usize, message: impl ToString) -> ParseError<usize, Token<'a>, LexError> {
    ParseError::User { error: LexError { span: start..end, message: message.to_string() } }
}

/// `inf` or `nan` (any case) as a literal; other words are names.
pub(crate) fn word_literal(word: &str, neg: bool) -> Option<Num<'_>> {
    if word.eq_ignore_ascii_case("inf") {
        Some(Num::Inf { neg })
    } else if word.eq_ignore_ascii_case("nan") && !neg {
        Some(Num::Nan)
    } else {
        None
    }
}

/// What is wrong with a literal, or with a literal in the slot it was written in.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LiteralError {
    /// `0x` or `0b` and nothing after it.
    #[error("`{0}` has no digits after its prefix")]
    NoDigits(String),
    /// Literals are signed 64-bit: a 32-bit slot checks its own range later (`OutsideInt32`),
    /// and a `.u64` value of 2^63 or more is spelled as its two's complement.
    #[error(
        "`{0}` does not fit 64 bits: literals range from -2^63 to 2^63 - 1 (a 64-bit value of 2^63 or more is written as its two's complement: -1 for 0xFFFFFFFFFFFFFFFF)"
    )]
    Beyond64Bits(String),
    /// A digit its base does not have.
    #[error("`{text}` is not a valid base-{radix} integer")]
    BadDigit {
        /// The literal as written.
        text: String,
        /// 2, 10 or 16.
        radix: u32,
    },
    /// `-0f...`: a bit pattern has no sign to flip.
    #[error("a bit pattern cannot be negated: flip the sign bit of `{0}` instead")]
    NegatedPattern(String),
    /// `0f` needs 8 hex digits, `0d` 16.
    #[error("`{text}` needs exactly {width} hex digits after its prefix")]
    PatternDigits {
        /// The literal as written.
        text: String,
        /// The hex digits the prefix needs.
        width: usize,
    },
    /// Not a number in any form.
    #[error("`{0}` is not a number: write 42, 0x2A, 0b1010, 1.5, 1e9, 0f3F800000 or 0d3FF0000000000000")]
    NotANumber(String),
    /// An integer outside what a 32-bit slot holds, signed or unsigned.
    #[error("integers in 32-bit slots range from -2147483648 to 4294967295")]
    OutsideInt32,
    /// `1.5` where an integer is expected.
    #[error("a float literal cannot stand where an integer is expected: write an integer")]
    FloatForInteger,
    /// A decimal beyond f32's range.
    #[error("`{0}` is too large for f32 (at most 3.4028235e38): write inf for infinity")]
    BeyondF32(String),
    /// A decimal beyond f64's range.
    #[error("`{0}` is too large for f64: write inf for infinity")]
    BeyondF64(String),
    /// A `0d` pattern in an f32 slot.
    #[error("a `0d` literal is 64 bits wide but this slot holds f32: use a `0f` pattern or a decimal")]
    F64PatternForF32,
    /// A `0f` pattern in an f64 slot.
    #[error("a `0f` literal is 32 bits wide but this slot holds f64: use a `0d` pattern or a decimal")]
    F32PatternForF64,
    /// A `0d` literal where only `MOV` takes one.
    #[error("{0} takes 32-bit literals; only MOV loads a `0d` literal into a register pair")]
    WideForOpcode(Opcode),
    /// A literal in an operand that reads only registers.
    #[error("this operand must be a register, not a literal")]
    RegisterOnly,
    /// An integer outside an element type's range.
    #[error("{value} does not fit {elem} ({lo} ..= {hi})")]
    OutsideElement {
        /// The literal's value.
        value: i64,
        /// The element type.
        elem: ElemType,
        /// The type's smallest value.
        lo: i64,
        /// The type's largest value.
        hi: i64,
    },
    /// A float for an integer element type.
    #[error("{lit} is a float but {elem} holds integers: write an integer")]
    FloatForElement {
        /// The literal.
        lit: Literal,
        /// The element type.
        elem: ElemType,
    },
    /// A bit pattern whose width is not the element type's.
    #[error("{lit} is a bit pattern of the wrong width for {elem}: use 0d for f64 and 0f otherwise")]
    PatternWidth {
        /// The literal.
        lit: Literal,
        /// The element type.
        elem: ElemType,
    },
}

fn radix_int(digits: &str, radix: u32, neg: bool, text: &str) -> Result<Num<'static>, LiteralError> {
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    if clean.is_empty() {
        return Err(LiteralError::NoDigits(text.into()));
    }
    let magnitude = u64::from_str_radix(&clean, radix).map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow => LiteralError::Beyond64Bits(text.into()),
        _ => LiteralError::BadDigit { text: text.into(), radix },
    })?;
    let value = if neg { 0i64.checked_sub_unsigned(magnitude) } else { i64::try_from(magnitude).ok() };
    value.map(Num::Int).ok_or_else(|| LiteralError::Beyond64Bits(text.into()))
}

fn bits(digits: &str, width: usize, text: &str, neg: bool) -> Result<u64, LiteralError> {
    if neg {
        return Err(LiteralError::NegatedPattern(text.into()));
    }
    let wrong_width = || LiteralError::PatternDigits { text: text.into(), width };
    if digits.len() != width {
        return Err(wrong_width());
    }
    digits.chars().try_fold(0u64, |acc, c| Some(acc << 4 | u64::from(c.to_digit(16)?))).ok_or_else(wrong_width)
}

/// Classifies the text of a number token (`neg`: it was written with a leading `-`).
pub(crate) fn parse_number(text: &str, neg: bool) -> Result<Num<'_>, LiteralError> {
    let (prefix, rest) = text.split_at(text.len().min(2));
    match prefix.to_ascii_lowercase().as_str() {
        "0x" => radix_int(rest, 16, neg, text),
        "0b" => radix_int(rest, 2, neg, text),
        "0f" => Ok(Num::F32Bits(bits(rest, 8, text, neg)? as u32)),
        "0d" => Ok(Num::F64Bits(bits(rest, 16, text, neg)?)),
        _ if text.bytes().all(|b| b.is_ascii_digit()) => radix_int(text, 10, neg, text),
        _ => match text.parse::<f64>() {
            Ok(magnitude) => Ok(Num::Dec { neg, text, value: if neg { -magnitude } else { magnitude } }),
            Err(_) => Err(LiteralError::NotANumber(text.into())),
        },
    }
}

fn fits_32(v: i64) -> bool {
    (-(1i64 << 31)..=(1i64 << 32) - 1).contains(&v)
}

/// The f32 value of a literal in an f32 slot.
fn f32_bits(num: Num<'_>) -> Result<u32, LiteralError> {
    match num {
        Num::Int(v) if fits_32(v) => Ok((v as f32).to_bits()),
        Num::Int(_) => Err(LiteralError::OutsideInt32),
        // Parsing the decimal directly as f32 rounds once; going through f64 could round twice.
        Num::Dec { neg, text, .. } => match text.parse::<f32>() {
            Ok(v) if v.is_finite() => Ok((if neg { -v } else { v }).to_bits()),
            _ => Err(LiteralError::BeyondF32(text.into())),
        },
        Num::Inf { neg } => Ok(if neg { f32::NEG_INFINITY } else { f32::INFINITY }.to_bits()),
        Num::Nan => Ok(0x7FFF_FFFF),
        Num::F32Bits(b) => Ok(b),
        Num::F64Bits(_) => Err(LiteralError::F64PatternForF32),
    }
}

/// The f64 value of a literal in an f64 slot.
fn f64_bits(num: Num<'_>) -> Result<u64, LiteralError> {
    match num {
        Num::Int(v) if fits_32(v) => Ok((v as f64).to_bits()),
        Num::Int(_) => Err(LiteralError::OutsideInt32),
        Num::Dec { value, .. } if value.is_finite() => Ok(value.to_bits()),
        Num::Dec { text, .. } => Err(LiteralError::BeyondF64(text.into())),
        Num::Inf { neg } => Ok(if neg { f64::NEG_INFINITY } else { f64::INFINITY }.to_bits()),
        Num::Nan => Ok(0x7FFF_FFFF_FFFF_FFFF),
        Num::F32Bits(_) => Err(LiteralError::F32PatternForF64),
        Num::F64Bits(b) => Ok(b),
    }
}

fn int_bits(num: Num<'_>) -> Result<u32, LiteralError> {
    match num {
        Num::Int(v) if fits_32(v) => Ok(v as u32),
        Num::Int(_) => Err(LiteralError::OutsideInt32),
        _ => Err(LiteralError::FloatForInteger),
    }
}

/// Fits a literal into a source operand read as `kind` of instruction `opcode`.
pub(crate) fn fit_source(num: Num<'_>, kind: LitKind, opcode: Opcode) -> Result<Src, LiteralError> {
    match kind {
        LitKind::Int => int_bits(num).map(Src::imm),
        LitKind::F32 => f32_bits(num).map(Src::imm),
        LitKind::F64 => f64_bits(num).map(|bits| Src::Imm { bits, wide: true }),
        LitKind::Any => match num {
            Num::Int(_) => int_bits(num).map(Src::imm),
            Num::F64Bits(bits) if opcode == Opcode::Mov => Ok(Src::Imm { bits, wide: true }),
            Num::F64Bits(_) => Err(LiteralError::WideForOpcode(opcode)),
            _ => f32_bits(num).map(Src::imm),
        },
        LitKind::NoLiteral | LitKind::Converted => Err(LiteralError::RegisterOnly),
    }
}

/// Fits a literal into an integer-only slot (`SHFL`'s width, counts).
pub(crate) fn fit_int(num: Num<'_>) -> Result<u32, LiteralError> {
    int_bits(num)
}

/// The host-side value of a literal (`.arg`, `--arg`).
pub(crate) fn to_literal(num: Num<'_>) -> Literal {
    match num {
        Num::Int(v) => Literal::Int(v),
        Num::Dec { value, .. } => Literal::Float(value),
        Num::Inf { neg } => Literal::Float(if neg { f64::NEG_INFINITY } else { f64::INFINITY }),
        Num::Nan => Literal::Float(f64::NAN),
        Num::F32Bits(b) => Literal::F32Bits(b),
        Num::F64Bits(b) => Literal::F64Bits(b),
    }
}

/// Checks that `lit` can be stored in an element of type `elem`.
pub(crate) fn check_elem(lit: Literal, elem: ElemType) -> Result<(), LiteralError> {
    let range = match elem {
        ElemType::U8 => Some((0, i64::from(u8::MAX))),
        ElemType::S8 => Some((i64::from(i8::MIN), i64::from(i8::MAX))),
        ElemType::U16 => Some((0, i64::from(u16::MAX))),
        ElemType::S16 => Some((i64::from(i16::MIN), i64::from(i16::MAX))),
        ElemType::U32 => Some((0, i64::from(u32::MAX))),
        // b32 is untyped: a negative integer means its two's complement bits.
        ElemType::B32 => Some((i64::from(i32::MIN), i64::from(u32::MAX))),
        ElemType::S32 => Some((i64::from(i32::MIN), i64::from(i32::MAX))),
        // A literal is an i64, so a u64 element takes the values an i64 can spell.
        ElemType::S64 => Some((i64::MIN, i64::MAX)),
        ElemType::U64 => Some((0, i64::MAX)),
        ElemType::Bool => Some((0, 1)),
        ElemType::S4 => Some((-8, 7)),
        ElemType::U4 => Some((0, 15)),
        ElemType::F16 | ElemType::BF16 | ElemType::F32 | ElemType::F64 => None,
        ElemType::TF32 | ElemType::E4M3 | ElemType::E5M2 | ElemType::E2M1 => None,
    };
    match (lit, range) {
        (Literal::Int(v), Some((lo, hi))) if (lo..=hi).contains(&v) => Ok(()),
        (Literal::Int(value), Some((lo, hi))) => Err(LiteralError::OutsideElement { value, elem, lo, hi }),
        (_, Some(_)) => Err(LiteralError::FloatForElement { lit, elem }),
        (Literal::Int(_) | Literal::Float(_), None) => Ok(()),
        (Literal::F32Bits(_), None) if elem != ElemType::F64 => Ok(()),
        (Literal::F64Bits(_), None) if elem == ElemType::F64 => Ok(()),
        (_, None) => Err(LiteralError::PatternWidth { lit, elem }),
    }
}
