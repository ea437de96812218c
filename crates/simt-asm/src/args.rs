//! Argument values: `.arg` directives and `--arg NAME=VALUE` on the command line.

use simt_isa::{ArgInit, ElemType, Literal, Param, ParamType};

use crate::ast::{ArgValue, Lit, Span};
use crate::diagnostics::suggest;
use crate::grammar::ArgValueParser;
use crate::lexer::{self, LexError};
use crate::literal::{check_elem, to_literal};

const BUFFER_FORMS: &str = "zeros(N), fill(N, V), iota(N), rand(N, SEED), [a, b, ...] or @FILE";
const FUNCTIONS: [&str; 4] = ["zeros", "fill", "iota", "rand"];

/// Parses the value of a `--arg name=VALUE` option: a literal, `zeros(N)`,
/// `fill(N, V)`, `iota(N)`, `rand(N, SEED)`, a list `[1, 2.5, 3]` or `@FILE`.
///
/// # Errors
/// A lowercase message saying what is wrong and what to write instead.
pub fn parse_arg_init(text: &str) -> Result<ArgInit, String> {
    let trimmed = text.trim();
    // A command-line path may hold any character, spaces included, so it is not lexed.
    if let Some(path) = trimmed.strip_prefix('@') {
        return if path.is_empty() { Err("`@` needs a file name: write @FILE.npy or @FILE.bin".into()) } else { Ok(ArgInit::File(path.into())) };
    }
    let mut tokens = Vec::new();
    let mut errors = Vec::new();
    let mut lines = Vec::new();
    lexer::for_each_line(text, &mut tokens, |line| lines.push(line.to_vec()), |e| errors.push(e));
    if let Some(e) = errors.into_iter().next() {
        return Err(e.message);
    }
    if lines.len() != 1 {
        return Err(format!("expected one value: a literal or {BUFFER_FORMS}"));
    }
    let value = ArgValueParser::new()
        .parse(lines[0].iter().map(|&t| Ok::<_, LexError>(t)))
        .map_err(|e| format!("cannot read `{trimmed}`: {}; write a literal or {BUFFER_FORMS}", crate::assembler::parse_error_message(&e).1))?;
    arg_init(&value).map_err(|(_, message)| message)
}

fn count(lit: &Lit<'_>, what: &str) -> Result<u64, (Span, String)> {
    match to_literal(lit.num) {
        Ok(Literal::Int(n)) if n >= 0 => Ok(n as u64),
        _ => Err((lit.span, format!("{what} must be a non-negative integer"))),
    }
}

fn literal(lit: &Lit<'_>) -> Result<Literal, (Span, String)> {
    to_literal(lit.num).map_err(|m| (lit.span, m))
}

/// Turns a parsed value into an [`ArgInit`], checking the forms but not the types.
pub(crate) fn arg_init(value: &ArgValue<'_>) -> Result<ArgInit, (Span, String)> {
    Ok(match value {
        ArgValue::Scalar(lit) => ArgInit::Scalar(literal(lit)?),
        ArgValue::List(items) => ArgInit::List(items.iter().map(literal).collect::<Result<_, _>>()?),
        ArgValue::File(name) => {
            let path = &name.text[1..];
            if path.is_empty() {
                return Err((name.span, "`@` needs a file name: write @FILE.npy or @FILE.bin".into()));
            }
            ArgInit::File(path.into())
        }
        ArgValue::Call { name, args, span } => {
            let function = name.text.to_ascii_lowercase();
            let arity = match function.as_str() {
                "zeros" | "iota" => 1,
                "fill" | "rand" => 2,
                _ => {
                    let hint = suggest(name.text, FUNCTIONS).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default();
                    return Err((name.span, format!("unknown buffer form `{}`{hint}: write {BUFFER_FORMS}", name.text)));
                }
            };
            if args.len() != arity {
                let form = match function.as_str() {
                    "zeros" => "zeros(N)",
                    "iota" => "iota(N)",
                    "fill" => "fill(N, V)",
                    _ => "rand(N, SEED)",
                };
                return Err((*span, format!("{function} takes {arity} argument{}: write {form}", if arity == 1 { "" } else { "s" })));
            }
            let n = count(&args[0], "the element count")?;
            match function.as_str() {
                "zeros" => ArgInit::Zeros(n),
                "iota" => ArgInit::Iota(n),
                "fill" => ArgInit::Fill(n, literal(&args[1])?),
                _ => ArgInit::Rand(n, count(&args[1], "the seed")?),
            }
        }
    })
}

fn check_scalar(ty: ParamType, lit: Literal) -> Result<(), String> {
    let ok = match (ty, lit) {
        (ParamType::U32, Literal::Int(v)) => (0..=i64::from(u32::MAX)).contains(&v),
        (ParamType::S32, Literal::Int(v)) => (i64::from(i32::MIN)..=i64::from(i32::MAX)).contains(&v),
        // Any 64-bit integer: a negative one means its two's complement bits.
        (ParamType::U64, Literal::Int(_)) => true,
        // A PTX pointer holds a 32-bit GLOBAL address (every buffer lies below 2^32).
        (ParamType::Raw(_), Literal::Int(v)) if !(0..=i64::from(u32::MAX)).contains(&v) => {
            return Err(format!("{lit} is no address a pointer parameter can hold: it holds a GLOBAL address, below 2^32 (a buffer's, or 0); give a buffer"));
        }
        (ParamType::Raw(_), Literal::Int(_)) => true,
        (ParamType::Raw(_), _) => return Err(format!("{lit} is a float, not an address: give a buffer or an integer address")),
        (ParamType::U32 | ParamType::S32 | ParamType::U64, _) => {
            return Err(format!("{lit} is a float but the parameter is .{}: write an integer", ty.name()));
        }
        (ParamType::F32, Literal::F64Bits(_)) => return Err("a `0d` pattern is f64: write a `0f` pattern or a decimal for .f32".into()),
        (ParamType::F64, Literal::F32Bits(_)) => return Err("a `0f` pattern is f32: write a `0d` pattern or a decimal for .f64".into()),
        _ => true,
    };
    if ok { Ok(()) } else { Err(format!("{lit} does not fit .{}", ty.name())) }
}

/// The message for an odd element count of a packed 4-bit type.
pub(crate) fn odd_count(elem: ElemType, n: u64) -> String {
    format!("{n} elements of {elem} do not fill whole bytes: {elem} packs two elements a byte, so give an even number of elements")
}

fn check_buffer(elem: ElemType, init: &ArgInit) -> Result<(), String> {
    match init {
        ArgInit::Scalar(_) => Err(format!("a .ptr.{elem} parameter needs a buffer: write {BUFFER_FORMS}")),
        ArgInit::Fill(n, _) | ArgInit::Iota(n) | ArgInit::Rand(n, _) | ArgInit::Zeros(n) if elem.is_packed() && n % 2 == 1 => Err(odd_count(elem, *n)),
        ArgInit::Fill(_, v) => check_elem(*v, elem),
        ArgInit::List(values) => {
            if elem.is_packed() && values.len() % 2 == 1 {
                return Err(odd_count(elem, values.len() as u64));
            }
            values.iter().enumerate().try_for_each(|(i, v)| check_elem(*v, elem).map_err(|e| format!("element {i}: {e}")))
        }
        ArgInit::Iota(n) if !elem.is_float() && *n > 0 => {
            let last = i64::try_from(*n - 1).unwrap_or(i64::MAX);
            check_elem(Literal::Int(last), elem).map_err(|_| format!("iota({n}) counts past the largest {elem}: use fewer elements or a wider type"))
        }
        ArgInit::Zeros(_) | ArgInit::Iota(_) | ArgInit::Rand(..) | ArgInit::File(_) => Ok(()),
    }
}

/// A value that does not suit its parameter. The parameter is a field, not part of
/// the problem's words, so that a front end that already names it (`--arg x=5
/// (.param .ptr.f32 x): ...`) does not name it twice.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("argument `{param}`: {problem}")]
pub struct ArgMismatch {
    /// The parameter's name.
    pub param: String,
    /// What is wrong and what to write instead, lowercase.
    pub problem: String,
}

/// Checks that `init` suits `param`: a literal that fits a scalar parameter,
/// a buffer form whose values fit a pointer parameter's element type.
///
/// # Errors
/// The parameter, and what is wrong with the value.
pub fn check_arg(param: &Param, init: &ArgInit) -> Result<(), ArgMismatch> {
    let result = match (param.ty.buffer_for(init), init) {
        (Some(elem), _) => check_buffer(elem, init),
        (None, ArgInit::Scalar(lit)) => check_scalar(param.ty, *lit),
        (None, _) => Err(format!("a scalar .{} parameter takes a literal such as 42 or 2.5, not a buffer", param.ty.name())),
    };
    result.map_err(|problem| ArgMismatch { param: param.name.clone(), problem })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_parses() {
        assert_eq!(parse_arg_init("42"), Ok(ArgInit::Scalar(Literal::Int(42))));
        assert_eq!(parse_arg_init("-2.5"), Ok(ArgInit::Scalar(Literal::Float(-2.5))));
        assert_eq!(parse_arg_init("0f3F800000"), Ok(ArgInit::Scalar(Literal::F32Bits(0x3F80_0000))));
        assert_eq!(parse_arg_init("zeros(4)"), Ok(ArgInit::Zeros(4)));
        assert_eq!(parse_arg_init("fill(3, -inf)"), Ok(ArgInit::Fill(3, Literal::Float(f64::NEG_INFINITY))));
        assert_eq!(parse_arg_init("iota(10)"), Ok(ArgInit::Iota(10)));
        assert_eq!(parse_arg_init("rand(8, 7)"), Ok(ArgInit::Rand(8, 7)));
        assert_eq!(parse_arg_init("[1, 2.5, 0x10]"), Ok(ArgInit::List(vec![Literal::Int(1), Literal::Float(2.5), Literal::Int(16)])));
        assert_eq!(parse_arg_init(" @dir/my data.npy"), Ok(ArgInit::File("dir/my data.npy".into())));
        assert!(parse_arg_init("zero(4)").unwrap_err().contains("did you mean `zeros`"));
        assert!(parse_arg_init("fill(4)").is_err());
        assert!(parse_arg_init("1 2").is_err());
        assert!(parse_arg_init("").is_err());
        assert!(parse_arg_init("zeros(-1)").is_err());
    }

    #[test]
    fn types_are_checked() {
        let p = |ty| Param { name: "p".into(), ty, offset: 0 };
        let ok = |ty, text: &str| check_arg(&p(ty), &parse_arg_init(text).unwrap());
        assert!(ok(ParamType::U32, "4294967295").is_ok());
        assert!(ok(ParamType::U32, "-1").is_err());
        assert!(ok(ParamType::S32, "-2147483648").is_ok());
        assert!(ok(ParamType::S32, "2147483648").is_err());
        assert!(ok(ParamType::U32, "1.5").is_err());
        assert!(ok(ParamType::F32, "nan").is_ok());
        assert!(ok(ParamType::F32, "0d3FF0000000000000").is_err());
        assert!(ok(ParamType::F64, "0d3FF0000000000000").is_ok());
        assert!(ok(ParamType::F32, "zeros(3)").is_err());
        assert!(ok(ParamType::Ptr(ElemType::F32), "3").is_err());
        assert!(ok(ParamType::Ptr(ElemType::F32), "[1, 2.5]").is_ok());
        assert!(ok(ParamType::Ptr(ElemType::U32), "[1, 2.5]").is_err());
        assert!(ok(ParamType::Ptr(ElemType::U8), "fill(2, 256)").is_err());
        assert!(ok(ParamType::Ptr(ElemType::S8), "[-128, 127]").is_ok());
        assert!(ok(ParamType::Ptr(ElemType::U8), "iota(257)").is_err());
        assert!(ok(ParamType::Ptr(ElemType::U8), "iota(256)").is_ok());
    }

    #[test]
    fn low_precision_buffers_are_checked() {
        let p = |ty| Param { name: "s".into(), ty, offset: 0 };
        let check = |elem, text: &str| check_arg(&p(ParamType::Ptr(elem)), &parse_arg_init(text).unwrap());
        assert!(check(ElemType::S4, "[-8, 7, 0, -1]").is_ok());
        assert_eq!(check(ElemType::S4, "[1, 8]").unwrap_err().to_string(), "argument `s`: element 1: 8 does not fit s4 (-8 ..= 7)");
        assert_eq!(check(ElemType::U4, "[0, -1]").unwrap_err().to_string(), "argument `s`: element 1: -1 does not fit u4 (0 ..= 15)");
        assert!(check(ElemType::U4, "[0.5, 1]").unwrap_err().problem.contains("element 0: 0.5 is a float but u4 holds integers"));
        assert!(check(ElemType::U4, "iota(17)").is_err());
        assert!(check(ElemType::U4, "iota(16)").is_ok());
        assert!(check(ElemType::E2M1, "[1.0, 2.0, 3.0]").unwrap_err().problem.contains("3 elements of e2m1 do not fill whole bytes"));
        assert!(check(ElemType::S4, "zeros(3)").unwrap_err().problem.contains("give an even number"));
        assert!(check(ElemType::E4M3, "[1e10, nan, 0.1]").is_ok());
        assert!(check(ElemType::TF32, "fill(3, 0f3F800001)").is_ok());
    }
}
