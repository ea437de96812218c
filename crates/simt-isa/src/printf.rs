//! `PRINTF`'s format strings: which of C's `printf` conversions they hold, the argument
//! words those take, and the text they make of them.
//!
//! The arguments are 32-bit words laid out as CUDA's `vprintf` lays its argument buffer
//! out in memory (and as `PRINTF` finds them in registers): each argument aligned to its
//! size, 4-byte ones (`%d`, `%c`, a `*` width) in one word, 8-byte ones (`%ld`, every
//! float conversion, which C promotes to `double`, `%s` and `%p` addresses) in the next
//! even-aligned pair, low word first.
//!
//! The text is what glibc's `printf` makes (CUDA prints a GPU's records with the host's
//! `printf`): floats from their exact binary value, rounded to nearest with ties to even.
//! Rust's `{:.N}` and `{:.Ne}` round that way, so they do the digits; the `sprintf` crate
//! was not used because it rounds through floating-point arithmetic.

use std::fmt::Write as _;

use crate::limits::{MAX_PRINTF_ARGS, MAX_PRINTF_FIELD};

/// A checked format string: its text and its conversions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Format {
    pieces: Vec<Piece>,
    /// Bit `i`: argument word `i` holds (part of) an argument; the others are padding.
    used: u64,
    pairs: bool,
    arguments: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Text(String),
    Conv(Conv),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Conv {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: Field,
    precision: Option<Field>,
    kind: Kind,
    length: Length,
    /// The first argument word of the value.
    word: u8,
}

/// A width or precision: written in the format, or read from an argument word (`*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Fixed(u32),
    Arg(u8),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Signed,
    Unsigned,
    Octal,
    Hex { upper: bool },
    Char,
    Str,
    Pointer,
    Fixed { upper: bool },
    Exp { upper: bool },
    General { upper: bool },
    HexFloat { upper: bool },
}

/// How an integer argument is narrowed (`hh`, `h`) or widened (`l`, `ll`, `j`, `z`, `t`:
/// 64 bits on CUDA's LP64 device ABI).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Length {
    Char,
    Short,
    Int,
    Long,
}

/// Why a format string cannot be printed: what, and the byte offset of the conversion.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FormatError {
    /// Byte offset in the format of the `%` that starts the conversion at fault.
    pub at: usize,
    /// What is wrong, lowercase.
    pub message: String,
}

/// Why one lane's record could not be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RenderError<E> {
    /// A width or precision read from an argument is past [`MAX_PRINTF_FIELD`].
    Field(i32),
    /// Reading a `%s` string failed.
    String(E),
}

impl Format {
    /// Checks `text`, C's format syntax, against what `PRINTF` prints.
    ///
    /// # Errors
    /// The first conversion that is unknown, has no device meaning (`%n`, `%ls`, `%Lf`)
    /// or is past a limit, at its `%`.
    pub fn parse(text: &str) -> Result<Format, FormatError> {
        if let Some(at) = text.find('\0') {
            return Err(FormatError { at, message: "a format cannot hold NUL: it would end there".into() });
        }
        let mut format = Format { pieces: Vec::new(), used: 0, pairs: false, arguments: 0 };
        let mut used = 0u64;
        let mut next_word = 0u32;
        let mut args = 0usize;
        let mut literal = String::new();
        let mut rest = text;
        while let Some(percent) = rest.find('%') {
            literal.push_str(&rest[..percent]);
            let at = text.len() - rest.len() + percent;
            let spec = &rest[percent + 1..];
            if let Some(after) = spec.strip_prefix('%') {
                literal.push('%');
                rest = after;
                continue;
            }
            let fail = |message: String| FormatError { at, message };
            let mut take_word = |wide: bool| -> Result<u8, FormatError> {
                args += 1;
                if args > MAX_PRINTF_ARGS {
                    return Err(fail(format!("a format takes at most {MAX_PRINTF_ARGS} arguments, as CUDA's printf does")));
                }
                let word = if wide { next_word.next_multiple_of(2) } else { next_word };
                next_word = word + if wide { 2 } else { 1 };
                used |= (if wide { 3 } else { 1 }) << word;
                Ok(word as u8)
            };
            let bytes = spec.as_bytes();
            let mut i = 0;
            let mut flags = (false, false, false, false, false);
            while let Some(&b) = bytes.get(i) {
                match b {
                    b'-' => flags.0 = true,
                    b'+' => flags.1 = true,
                    b' ' => flags.2 = true,
                    b'#' => flags.3 = true,
                    b'0' => flags.4 = true,
                    _ => break,
                }
                i += 1;
            }
            let mut field = |i: &mut usize, what: &str| -> Result<Option<Field>, FormatError> {
                if bytes.get(*i) == Some(&b'*') {
                    *i += 1;
                    return Ok(Some(Field::Arg(take_word(false)?)));
                }
                let digits = bytes[*i..].iter().take_while(|b| b.is_ascii_digit()).count();
                if digits == 0 {
                    return Ok(None);
                }
                let value = spec[*i..*i + digits].parse::<u32>().ok().filter(|&v| v <= MAX_PRINTF_FIELD);
                *i += digits;
                match value {
                    Some(v) => Ok(Some(Field::Fixed(v))),
                    None => Err(fail(format!("a {what} is at most {MAX_PRINTF_FIELD}"))),
                }
            };
            let width = field(&mut i, "width")?.unwrap_or(Field::Fixed(0));
            let precision = if bytes.get(i) == Some(&b'.') {
                i += 1;
                Some(field(&mut i, "precision")?.unwrap_or(Field::Fixed(0)))
            } else {
                None
            };
            let (length, spelled) = match (bytes.get(i), bytes.get(i + 1)) {
                (Some(b'h'), Some(b'h')) => (Length::Char, "hh"),
                (Some(b'l'), Some(b'l')) => (Length::Long, "ll"),
                (Some(b'h'), _) => (Length::Short, "h"),
                (Some(b'l'), _) => (Length::Long, "l"),
                (Some(b'j'), _) => (Length::Long, "j"),
                (Some(b'z'), _) => (Length::Long, "z"),
                (Some(b't'), _) => (Length::Long, "t"),
                (Some(b'L'), _) => return Err(fail("`L` (long double) has no device type: print a double with `%f`".into())),
                _ => (Length::Int, ""),
            };
            i += spelled.len();
            let Some(c) = spec[i..].chars().next() else {
                return Err(fail("the format ends inside a conversion: write `%%` for a percent sign".into()));
            };
            let kind = match c {
                'd' | 'i' => Kind::Signed,
                'u' => Kind::Unsigned,
                'o' => Kind::Octal,
                'x' | 'X' => Kind::Hex { upper: c == 'X' },
                'c' => Kind::Char,
                's' => Kind::Str,
                'p' => Kind::Pointer,
                'f' | 'F' => Kind::Fixed { upper: c == 'F' },
                'e' | 'E' => Kind::Exp { upper: c == 'E' },
                'g' | 'G' => Kind::General { upper: c == 'G' },
                'a' | 'A' => Kind::HexFloat { upper: c == 'A' },
                'n' => return Err(fail("`%n` writes memory, which PRINTF does not".into())),
                other => return Err(fail(format!("`%{other}` is not a conversion: use d i u o x X c s p f F e E g G a A, or `%%`"))),
            };
            let integer = matches!(kind, Kind::Signed | Kind::Unsigned | Kind::Octal | Kind::Hex { .. });
            if !(spelled.is_empty() || integer || kind.is_float() && spelled == "l") {
                return Err(fail(format!("`%{spelled}{c}` has no device meaning: write `%{c}`")));
            }
            let (left, plus, space, alt, zero) = flags;
            let mut conv = Conv { left, plus, space, alt, zero, width, precision, kind, length, word: 0 };
            conv.word = take_word(conv.is_wide())?;
            format.pairs |= conv.is_wide();
            if !literal.is_empty() {
                format.pieces.push(Piece::Text(std::mem::take(&mut literal)));
            }
            format.pieces.push(Piece::Conv(conv));
            rest = &spec[i + c.len_utf8()..];
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            format.pieces.push(Piece::Text(literal));
        }
        format.used = used;
        format.arguments = args as u8;
        Ok(format)
    }

    /// Argument words from the first to the last the format reads, pads included (registers
    /// from `PRINTF`'s `a` on).
    pub fn words(&self) -> u8 {
        (64 - self.used.leading_zeros()) as u8
    }

    /// Whether an argument is an even-aligned pair, so that `a` must be an even register.
    pub fn has_pairs(&self) -> bool {
        self.pairs
    }

    /// The argument words that hold arguments (bit `i` for word `i`): the others pad a pair
    /// to its alignment, and `PRINTF` does not read them.
    pub fn used_words(&self) -> u64 {
        self.used
    }

    /// The `format` operand of a `PRINTF` of this format, the kernel's format `index`.
    pub fn operand(&self, index: u16) -> crate::Operand {
        crate::Operand::Format { index, used: self.used, pairs: self.pairs }
    }

    /// The arguments the format takes (`*` widths and precisions too): what CUDA's
    /// `printf` returns.
    pub fn arguments(&self) -> u8 {
        self.arguments
    }

    /// Appends the text of one record to `out`: `word(i)` is argument word `i`, and
    /// `string(address, most)` the bytes of a `%s` string before its NUL, at most `most` of them.
    ///
    /// # Errors
    /// A `*` width or precision past [`MAX_PRINTF_FIELD`], or `string`'s error.
    pub fn render<E>(
        &self,
        word: impl Fn(u8) -> u32,
        mut string: impl FnMut(u64, usize) -> Result<Vec<u8>, E>,
        out: &mut Vec<u8>,
    ) -> Result<(), RenderError<E>> {
        let pair = |w: u8| u64::from(word(w)) | u64::from(word(w + 1)) << 32;
        for piece in &self.pieces {
            let conv = match piece {
                Piece::Text(text) => {
                    out.extend_from_slice(text.as_bytes());
                    continue;
                }
                Piece::Conv(conv) => *conv,
            };
            let mut left = conv.left;
            let width = match conv.width {
                Field::Fixed(w) => w,
                Field::Arg(w) => {
                    let value = word(w) as i32;
                    left |= value < 0;
                    checked_field(value.unsigned_abs(), value)?
                }
            };
            let precision = match conv.precision {
                None => None,
                Some(Field::Fixed(p)) => Some(p),
                // A negative precision from an argument is taken as if it were omitted.
                Some(Field::Arg(w)) => match word(w) as i32 {
                    p if p < 0 => None,
                    p => Some(checked_field(p as u32, p)?),
                },
            };
            let value = if conv.is_wide() { pair(conv.word) } else { u64::from(word(conv.word)) };
            let zero_pads = conv.zero && !left;
            let body = match conv.kind {
                Kind::Signed => {
                    let v = match conv.length {
                        Length::Char => i64::from(value as i8),
                        Length::Short => i64::from(value as i16),
                        Length::Int => i64::from(value as i32),
                        Length::Long => value as i64,
                    };
                    let sign = if v < 0 { "-" } else { plus_sign(conv) };
                    let digits = integer_digits(v.unsigned_abs(), 10, false, precision);
                    pad_number(out, sign, digits.as_bytes(), 0, width, left, zero_pads && precision.is_none());
                    continue;
                }
                Kind::Unsigned | Kind::Octal | Kind::Hex { .. } => {
                    let v = match conv.length {
                        Length::Char => u64::from(value as u8),
                        Length::Short => u64::from(value as u16),
                        Length::Int => u64::from(value as u32),
                        Length::Long => value,
                    };
                    let (radix, upper) = match conv.kind {
                        Kind::Octal => (8, false),
                        Kind::Hex { upper } => (16, upper),
                        _ => (10, false),
                    };
                    let mut digits = integer_digits(v, radix, upper, precision);
                    let prefix = match conv.kind {
                        Kind::Octal if conv.alt && !digits.starts_with('0') => "0",
                        Kind::Hex { upper } if conv.alt && v != 0 => ["0x", "0X"][usize::from(upper)],
                        _ => "",
                    };
                    digits.insert_str(0, prefix);
                    pad_number(out, "", digits.as_bytes(), prefix.len(), width, left, zero_pads && precision.is_none());
                    continue;
                }
                Kind::Char => vec![value as u8],
                Kind::Str => {
                    let most = precision.map_or(usize::MAX, |p| p as usize);
                    // glibc writes a null string as `(null)`, or nothing where the precision cuts it.
                    match (value, most) {
                        (0, 6..) => b"(null)".to_vec(),
                        (0, _) => Vec::new(),
                        _ => string(value, most).map_err(RenderError::String)?,
                    }
                }
                Kind::Pointer if value == 0 => b"(nil)".to_vec(),
                Kind::Pointer => {
                    let digits = format!("0x{value:x}");
                    pad_number(out, "", digits.as_bytes(), 2, width, left, zero_pads);
                    continue;
                }
                Kind::Fixed { upper } | Kind::Exp { upper } | Kind::General { upper } | Kind::HexFloat { upper } => {
                    let v = f64::from_bits(value);
                    let sign = if v.is_sign_negative() { "-" } else { plus_sign(conv) };
                    if !v.is_finite() {
                        let text = match (v.is_nan(), upper) {
                            (true, false) => "nan",
                            (true, true) => "NAN",
                            (false, false) => "inf",
                            (false, true) => "INF",
                        };
                        pad_number(out, sign, text.as_bytes(), 0, width, left, false);
                        continue;
                    }
                    let mut text = match conv.kind {
                        Kind::Fixed { .. } => fixed(v.abs(), precision.unwrap_or(6), conv.alt),
                        Kind::Exp { .. } => exponential(v.abs(), precision.unwrap_or(6), conv.alt),
                        Kind::General { .. } => general(v.abs(), precision.unwrap_or(6), conv.alt),
                        _ => hex_float(v.abs(), precision),
                    };
                    if upper {
                        text.make_ascii_uppercase();
                    }
                    let prefix = if matches!(conv.kind, Kind::HexFloat { .. }) { 2 } else { 0 };
                    pad_number(out, sign, text.as_bytes(), prefix, width, left, zero_pads);
                    continue;
                }
            };
            pad_number(out, "", &body, 0, width, left, false);
        }
        Ok(())
    }
}

impl Kind {
    fn is_float(self) -> bool {
        matches!(self, Kind::Fixed { .. } | Kind::Exp { .. } | Kind::General { .. } | Kind::HexFloat { .. })
    }
}

impl Conv {
    /// Whether the argument is 8 bytes (an even-aligned pair of words): a double (C promotes
    /// floats), an address, or a long integer.
    fn is_wide(self) -> bool {
        self.kind.is_float() || matches!(self.kind, Kind::Str | Kind::Pointer) || self.length == Length::Long
    }
}

fn checked_field<E>(value: u32, given: i32) -> Result<u32, RenderError<E>> {
    if value <= MAX_PRINTF_FIELD { Ok(value) } else { Err(RenderError::Field(given)) }
}

fn plus_sign(conv: Conv) -> &'static str {
    if conv.plus {
        "+"
    } else if conv.space {
        " "
    } else {
        ""
    }
}

/// The digits of `v`, at least `precision` of them (C: `%.0d` of 0 is no digits at all).
fn integer_digits(v: u64, radix: u32, upper: bool, precision: Option<u32>) -> String {
    let mut digits = match (radix, upper) {
        (8, _) => format!("{v:o}"),
        (16, false) => format!("{v:x}"),
        (16, true) => format!("{v:X}"),
        _ => v.to_string(),
    };
    match precision {
        Some(0) if v == 0 => digits.clear(),
        Some(p) if (p as usize) > digits.len() => digits.insert_str(0, &"0".repeat(p as usize - digits.len())),
        _ => {}
    }
    digits
}

/// Writes `sign` and `body` in a field of `width`: spaces on the left (or, `left`, on the
/// right), or zeros after the sign and the first `prefix` bytes of `body` (`0x`).
fn pad_number(out: &mut Vec<u8>, sign: &str, body: &[u8], prefix: usize, width: u32, left: bool, zeros: bool) {
    let pad = (width as usize).saturating_sub(sign.len() + body.len());
    if left {
        out.extend_from_slice(sign.as_bytes());
        out.extend_from_slice(body);
        out.resize(out.len() + pad, b' ');
    } else if zeros {
        out.extend_from_slice(sign.as_bytes());
        out.extend_from_slice(&body[..prefix]);
        out.resize(out.len() + pad, b'0');
        out.extend_from_slice(&body[prefix..]);
    } else {
        out.resize(out.len() + pad, b' ');
        out.extend_from_slice(sign.as_bytes());
        out.extend_from_slice(body);
    }
}

/// `%f` of a finite, non-negative `v`.
fn fixed(v: f64, precision: u32, alt: bool) -> String {
    let mut text = format!("{v:.*}", precision as usize);
    if alt && precision == 0 {
        text.push('.');
    }
    text
}

/// `%e` of a finite, non-negative `v`: Rust's `1.5e3` written as C's `1.5e+03`.
fn exponential(v: f64, precision: u32, alt: bool) -> String {
    let text = format!("{v:.*e}", precision as usize);
    let (mantissa, exponent) = text.split_once('e').expect("`{:e}` writes an exponent");
    let exponent: i32 = exponent.parse().expect("`{:e}` writes an integer exponent");
    let mut out = mantissa.to_string();
    if alt && precision == 0 {
        out.push('.');
    }
    let _ = write!(out, "e{}{:02}", if exponent < 0 { '-' } else { '+' }, exponent.unsigned_abs());
    out
}

/// `%g` of a finite, non-negative `v`: `%e` or `%f` by the exponent `%e` would write, then,
/// unless `#`, without trailing zeros.
fn general(v: f64, precision: u32, alt: bool) -> String {
    let p = precision.max(1);
    let e = format!("{v:.*e}", p as usize - 1);
    let exponent: i32 = e.split_once('e').and_then(|(_, x)| x.parse().ok()).expect("`{:e}` writes an integer exponent");
    let mut text = if (-4..p as i32).contains(&exponent) { fixed(v, (p as i32 - 1 - exponent) as u32, alt) } else { exponential(v, p - 1, alt) };
    if !alt {
        let (number, exponent) = match text.find('e') {
            Some(i) => text.split_at(i),
            None => (text.as_str(), ""),
        };
        if number.contains('.') {
            let number = number.trim_end_matches('0').trim_end_matches('.');
            text = format!("{number}{exponent}");
        }
    }
    text
}

/// `%a` of a finite, non-negative `v`, as glibc writes it: `0x1.8p+1`, subnormals `0x0.…p-1022`,
/// rounded to `precision` hex digits to nearest with ties to even (a carry makes `0x2p+0`).
fn hex_float(v: f64, precision: Option<u32>) -> String {
    let bits = v.to_bits();
    let (mut lead, mut mantissa) = ((bits >> 52 != 0) as u64, bits & ((1 << 52) - 1));
    let exponent = match (bits >> 52) as i32 {
        0 if mantissa == 0 => 0,
        0 => -1022,
        e => e - 1023,
    };
    let digits = match precision {
        None => {
            let trailing = if mantissa == 0 { 13 } else { mantissa.trailing_zeros() / 4 };
            13 - trailing as usize
        }
        Some(p) if p < 13 => {
            let drop = 4 * (13 - p);
            let (kept, rest, half) = (mantissa >> drop, mantissa & ((1 << drop) - 1), 1u64 << (drop - 1));
            // At no digits the leading one decides a tie.
            let last = if p == 0 { lead } else { kept };
            let up = rest > half || (rest == half && last & 1 == 1);
            let rounded = kept + u64::from(up);
            lead += rounded >> (4 * p);
            mantissa = (rounded & ((1u64 << (4 * p)) - 1)) << drop;
            p as usize
        }
        Some(p) => p as usize,
    };
    let mut text = format!("0x{lead}");
    if digits > 0 {
        let hex = format!("{mantissa:013x}");
        text.push('.');
        text.push_str(&hex[..digits.min(13)]);
        text.push_str(&"0".repeat(digits.saturating_sub(13)));
    }
    let _ = write!(text, "p{}{}", if exponent < 0 { '-' } else { '+' }, exponent.unsigned_abs());
    text
}

/// Writes `text` as a `.s` string literal: `"` and `\` escaped, `\n`, `\t`, `\r`, and other
/// control characters as `\xHH`.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() && (c as u32) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Reads a `.s` string literal's body (between the quotes): the escapes [`quote`] writes,
/// plus `\'`, `\a`, `\b`, `\f` and `\v`. `Err` names the bad escape.
///
/// # Errors
/// An unknown escape, a `\x` without two hex digits, or an escaped NUL (a format ends at
/// its first NUL, so one inside would hide the rest).
pub fn unquote(body: &str) -> Result<String, String> {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while !rest.is_empty() {
        let (c, written) = literal_char(rest)?;
        out.push(c);
        rest = &rest[written..];
    }
    Ok(out)
}

/// Where the character at byte `at` of [`unquote`]'s result is written in `body`: escapes
/// are longer in the source than what they stand for.
pub fn source_offset(body: &str, at: usize) -> usize {
    let (mut source, mut unquoted) = (0, 0);
    while unquoted < at
        && let Ok((c, written)) = literal_char(&body[source..])
    {
        (source, unquoted) = (source + written, unquoted + c.len_utf8());
    }
    source
}

/// The first character of a non-empty literal body, and the bytes it is written in.
fn literal_char(body: &str) -> Result<(char, usize), String> {
    let mut chars = body.chars();
    let c = chars.next().ok_or("a string literal ends here")?;
    if c != '\\' {
        return Ok((c, c.len_utf8()));
    }
    let e = chars.next().ok_or("a string cannot end with `\\`")?;
    let (value, written) = match e {
        'n' => ('\n', 2),
        't' => ('\t', 2),
        'r' => ('\r', 2),
        'a' => ('\x07', 2),
        'b' => ('\x08', 2),
        'f' => ('\x0c', 2),
        'v' => ('\x0b', 2),
        '\\' | '"' | '\'' => (e, 2),
        'x' => {
            let hex = body.get(2..4).unwrap_or("");
            let byte = u8::from_str_radix(hex, 16)
                .ok()
                .filter(|_| hex.len() == 2 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
                .ok_or("`\\x` takes two hex digits, as `\\x1b`")?;
            if !byte.is_ascii() {
                return Err("`\\x` escapes ASCII (00 .. 7f): write other characters as they are".into());
            }
            (char::from(byte), 4)
        }
        other => return Err(format!("`\\{other}` is not an escape: use \\n \\t \\r \\\\ \\\" or \\xHH")),
    };
    if value == '\0' {
        return Err("a string cannot hold NUL: it would end the format there".into());
    }
    Ok((value, written))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Renders `format` with `args` as the argument words (`%s` reads from `strings`).
    fn render(format: &str, args: &[u32]) -> String {
        let format = Format::parse(format).unwrap_or_else(|e| panic!("{format:?}: {e}"));
        assert!(usize::from(format.words()) <= args.len(), "{} words", format.words());
        let mut out = Vec::new();
        format
            .render(|w| args[usize::from(w)], |addr, most| Ok::<_, ()>(b"hello, world"[..(addr as usize).min(12).min(most)].to_vec()), &mut out)
            .expect("renders");
        String::from_utf8(out).expect("utf-8")
    }

    fn f(v: f64) -> [u32; 2] {
        let b = v.to_bits();
        [b as u32, (b >> 32) as u32]
    }

    /// Each row was checked against glibc 2.36's `printf` (Python's `%` gives the same for all
    /// but `%a`, `%p` and `%c`).
    #[test]
    fn conversions_match_glibc() {
        let cases: &[(&str, &[u32], &str)] = &[
            ("plain text, 100%%\n", &[], "plain text, 100%\n"),
            ("%d|%i|%u", &[(-5i32) as u32, 7, (-1i32) as u32], "-5|7|4294967295"),
            ("%5d|%-5d|%05d|%+d|% d", &[42, 42, 42, 42, 42], "   42|42   |00042|+42| 42"),
            ("%.3d|%.0d|%5.3d|%-+6d|%08.3d", &[7, 0, (-7i32) as u32, 9, 5], "007|| -007|+9    |     005"),
            ("%x|%X|%#x|%#o|%o|%#x|%#o", &[255, 255, 255, 8, 8, 0, 0], "ff|FF|0xff|010|10|0|0"),
            ("%#010x|%#.5o", &[255, 8], "0x000000ff|00010"),
            ("%hhd|%hd|%hhu|%hu", &[0x1ff, 0x18000, 0x1ff, 0x18000], "-1|-32768|255|32768"),
            ("%ld|%llu|%lx|%zd", &[1, 0x8000_0000, u32::MAX, u32::MAX, 0xdead_beef, 0x1, 5, 0], "-9223372036854775807|18446744073709551615|1deadbeef|5"),
            ("%c%c|%3c|%-3c|", &[b'o' as u32, b'k' as u32 + 0x100, b'x' as u32, b'y' as u32], "ok|  x|y  |"),
            ("%s|%.5s|%8.3s|%-8s|", &[12, 0, 12, 0, 12, 0, 3, 0], "hello, world|hello|     hel|hel     |"),
            ("%s|%.3s|%.6s", &[0, 0, 0, 0, 0, 0], "(null)||(null)"),
            ("%p|%p|%20p", &[0x1000, 0x7f, 0, 0, 0xab, 0], "0x7f00001000|(nil)|                0xab"),
            ("%d %f", &[3, 0, f(1.5)[0], f(1.5)[1]], "3 1.500000"),
            ("%*d|%-*d|%.*f|%*.*s", &[4, 7, 4, 7, 2, 0, f(1.23456)[0], f(1.23456)[1], 6, 2, 12, 0], "   7|7   |1.23|    he"),
            ("%*d|%.*d", &[(-3i32) as u32, 1, (-1i32) as u32, 5], "1  |5"),
        ];
        let floats: &[(&str, &[f64], &str)] = &[
            ("%f|%.0f|%.0f|%.0f|%#.0f|%.2f", &[1.23456, 0.5, 1.5, 2.5, 2.0, -0.005], "1.234560|0|2|2|2.|-0.01"),
            ("%e|%.2e|%E|%.0e|%#.0e", &[1234.5678, 0.000123456, 1e300, 5e-324, 3.0], "1.234568e+03|1.23e-04|1.000000E+300|5e-324|3.e+00"),
            ("%g|%g|%g|%g|%#g|%.3g|%g|%G", &[100000.0, 1000000.0, 0.0001, 0.00001, 1.0, 1.23456, 0.0, 1e-10], "100000|1e+06|0.0001|1e-05|1.00000|1.23|0|1E-10"),
            (
                "%a|%a|%.1a|%.0a|%A|%a|%a",
                &[1.0, 3.0, 1.96875, 1.5, 0.1, 0.0, 5e-324],
                "0x1p+0|0x1.8p+1|0x2.0p+0|0x2p+0|0X1.999999999999AP-4|0x0p+0|0x0.0000000000001p-1022",
            ),
            (
                "%f|%F|%e|%+g|%5.1f|%-6f|%06.1f",
                &[f64::NAN, f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, -f64::NAN, 0.0, -2.25],
                "nan|INF|-inf|+inf| -nan|0.000000|-002.2",
            ),
        ];
        for &(format, args, expected) in cases {
            assert_eq!(render(format, args), expected, "{format}");
        }
        for &(format, values, expected) in floats {
            let words: Vec<u32> = values.iter().flat_map(|&v| f(v)).collect();
            assert_eq!(render(format, &words), expected, "{format}");
        }
    }

    #[test]
    fn arguments_take_words_as_vprintf_lays_them_out() {
        let layout = |text: &str| {
            let f = Format::parse(text).unwrap();
            let words: Vec<u8> = f.pieces.iter().filter_map(|p| if let Piece::Conv(c) = p { Some(c.word) } else { None }).collect();
            (words, f.words(), f.has_pairs(), f.arguments(), f.used_words())
        };
        assert_eq!(layout("hello\n"), (vec![], 0, false, 0, 0));
        assert_eq!(layout("%d %u %c %x"), (vec![0, 1, 2, 3], 4, false, 4, 0b1111));
        assert_eq!(layout("%d %f %d %s"), (vec![0, 2, 4, 6], 8, true, 4, 0b1101_1101));
        assert_eq!(layout("%ld %d %lld"), (vec![0, 2, 4], 6, true, 3, 0b11_0111));
        assert_eq!(layout("%*.*f"), (vec![2], 4, true, 3, 0b1111));
    }

    #[test]
    fn formats_without_a_device_meaning_are_refused_at_their_conversion() {
        let refused = |text: &str| Format::parse(text).unwrap_err();
        for (text, at, message) in [
            ("x=%n", 2, "`%n` writes memory"),
            ("%d %ls", 3, "`%ls` has no device meaning"),
            ("%Lf", 0, "`L` (long double)"),
            ("%y", 0, "`%y` is not a conversion"),
            ("50%", 2, "ends inside a conversion"),
            ("%2000d", 0, "a width is at most 1024"),
            ("%.99999999999f", 0, "a precision is at most 1024"),
            ("%lc", 0, "`%lc` has no device meaning"),
        ] {
            let e = refused(text);
            assert_eq!(e.at, at, "{text}");
            assert!(e.message.contains(message), "{text}: {}", e.message);
        }
        let many = "%d".repeat(MAX_PRINTF_ARGS);
        assert!(Format::parse(&many).is_ok());
        assert!(refused(&format!("{many}%d")).message.contains("at most 32 arguments"));
    }

    #[test]
    fn a_field_from_an_argument_past_the_limit_is_an_error() {
        let format = Format::parse("%*d").unwrap();
        let result = format.render(|w| [5000, 1][usize::from(w)], |_, _| Ok::<_, ()>(Vec::new()), &mut Vec::new());
        assert_eq!(result, Err(RenderError::Field(5000)));
    }

    #[test]
    fn string_literals_round_trip() {
        for text in ["plain", "tab\there \"quoted\" back\\slash\n", "bell\x07 and é", "\r\x1b[0m"] {
            let quoted = quote(text);
            assert_eq!(unquote(&quoted[1..quoted.len() - 1]).as_deref(), Ok(text), "{quoted}");
        }
        assert!(unquote("a\\q").unwrap_err().contains("`\\q` is not an escape"));
        assert!(unquote("\\x0").unwrap_err().contains("two hex digits"));
        assert!(unquote("\\x+1").unwrap_err().contains("two hex digits"), "a sign is no hex digit");
        assert_eq!(source_offset("a\\tb\\x41%d", 4), 8, "the conversion after two escapes");
        assert!(unquote("\\x00").unwrap_err().contains("cannot hold NUL"));
    }
}
