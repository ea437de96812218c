//! Argument values: `.arg` directives and `--arg NAME=VALUE` on the command line.

use simt_isa::{ArgInit, ElemType, Literal, Param, ParamType, PointersInit, TensorMapInit};

use crate::ast::{ArgValue, CallArg, Lit, Span};
use crate::diagnostics::suggest;
use crate::grammar::ArgValueParser;
use crate::lexer::{self, LexError};
use crate::literal::{LiteralError, check_elem, to_literal};

const BUFFER_FORMS: &str = "zeros(N), fill(N, V), iota(N), rand(N, SEED), [a, b, ...] or @FILE";

/// A buffer written as a call: `zeros(N)`, `fill(N, V)`, `iota(N)`, `rand(N, SEED)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferForm {
    /// `zeros(N)`.
    Zeros,
    /// `fill(N, V)`.
    Fill,
    /// `iota(N)`.
    Iota,
    /// `rand(N, SEED)`.
    Rand,
}

impl BufferForm {
    const ALL: [BufferForm; 4] = [BufferForm::Zeros, BufferForm::Fill, BufferForm::Iota, BufferForm::Rand];

    /// The function's name.
    pub fn name(self) -> &'static str {
        match self {
            BufferForm::Zeros => "zeros",
            BufferForm::Fill => "fill",
            BufferForm::Iota => "iota",
            BufferForm::Rand => "rand",
        }
    }

    /// How the form is written.
    pub fn template(self) -> &'static str {
        match self {
            BufferForm::Zeros => "zeros(N)",
            BufferForm::Fill => "fill(N, V)",
            BufferForm::Iota => "iota(N)",
            BufferForm::Rand => "rand(N, SEED)",
        }
    }

    fn arity(self) -> usize {
        match self {
            BufferForm::Zeros | BufferForm::Iota => 1,
            BufferForm::Fill | BufferForm::Rand => 2,
        }
    }
}

fn did_you_mean(suggestion: &Option<String>) -> String {
    suggestion.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default()
}

/// A value whose form is wrong, whatever its parameter.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArgFormError {
    /// `@` alone.
    #[error("`@` needs a file name: write @FILE.npy or @FILE.bin")]
    NoFileName,
    /// A call that is not a buffer form.
    #[error("unknown buffer form `{name}`{}: write {}", did_you_mean(.suggestion), BUFFER_FORMS)]
    UnknownForm {
        /// The name as written.
        name: String,
        /// The nearest form's name, when one is near.
        suggestion: Option<String>,
    },
    /// A form called with the wrong number of arguments.
    #[error("{} takes {} argument{}: write {}", .0.name(), .0.arity(), if .0.arity() == 1 { "" } else { "s" }, .0.template())]
    Arity(BufferForm),
    /// A count or seed that is not a non-negative integer.
    #[error("{0} must be a non-negative integer")]
    NotACount(&'static str),
    /// A buffer form's argument that is not a number.
    #[error("{} takes numbers: write {}", .0.name(), .0.template())]
    NotANumber(BufferForm),
    /// A `tensormap(...)` that does not say what a tensor map needs.
    #[error("{0}; write {TENSORMAP_FORM}")]
    TensorMap(String),
    /// A `pointers(...)` that is not buffers and a type.
    #[error("{0}; write {POINTERS_FORM}")]
    Pointers(String),
}

const POINTERS_FORM: &str = "pointers(B0, B1, ...) with buffers such as zeros(N) or @FILE.npy, and optional type=T";

const TENSORMAP_FORM: &str =
    "tensormap(TENSOR, box=[B0, B1, ...]) with optional swizzle=0|32|64|128, shape=[D0, D1, ...], element_strides=[S0, S1, ...] and type=T";

/// Text that is not an argument value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArgSyntaxError {
    /// A character or token the language does not have (the lexer's words).
    #[error("{0}")]
    Lexical(String),
    /// Nothing, or more than one value.
    #[error("expected one value: a literal or {}", BUFFER_FORMS)]
    NotOneValue,
    /// Tokens that do not make a value.
    #[error("cannot read `{text}`: {reason}; write a literal or {}", BUFFER_FORMS)]
    Unreadable {
        /// The value as given.
        text: String,
        /// The grammar's words for what it expected.
        reason: String,
    },
    /// A value of a wrong form.
    #[error(transparent)]
    Form(#[from] ArgFormError),
}

/// Parses the value of a `--arg name=VALUE` option: a literal, `zeros(N)`,
/// `fill(N, V)`, `iota(N)`, `rand(N, SEED)`, a list `[1, 2.5, 3]` or `@FILE`.
///
/// # Errors
/// What is wrong, in words that say what to write instead.
pub fn parse_arg_init(text: &str) -> Result<ArgInit, ArgSyntaxError> {
    let trimmed = text.trim();
    // A command-line path may hold any character, spaces included, so it is not lexed.
    if let Some(path) = trimmed.strip_prefix('@') {
        return if path.is_empty() { Err(ArgFormError::NoFileName.into()) } else { Ok(ArgInit::File(path.into())) };
    }
    let mut tokens = Vec::new();
    let mut errors = Vec::new();
    let mut lines = Vec::new();
    lexer::for_each_line(text, &mut tokens, |line| lines.push(line.to_vec()), |e| errors.push(e));
    if let Some(e) = errors.into_iter().next() {
        return Err(ArgSyntaxError::Lexical(e.message));
    }
    if lines.len() != 1 {
        return Err(ArgSyntaxError::NotOneValue);
    }
    let value = ArgValueParser::new()
        .parse(lines[0].iter().map(|&t| Ok::<_, LexError>(t)))
        .map_err(|e| ArgSyntaxError::Unreadable { text: trimmed.into(), reason: crate::assembler::parse_error_message(&e).1 })?;
    arg_init(&value).map_err(|(_, e)| e.into())
}

fn count(lit: &Lit<'_>, what: &'static str) -> Result<u64, (Span, ArgFormError)> {
    match to_literal(lit.num) {
        Literal::Int(n) if n >= 0 => Ok(n as u64),
        _ => Err((lit.span, ArgFormError::NotACount(what))),
    }
}

/// Turns a parsed value into an [`ArgInit`], checking the forms but not the types.
pub(crate) fn arg_init(value: &ArgValue<'_>) -> Result<ArgInit, (Span, ArgFormError)> {
    Ok(match value {
        ArgValue::Scalar(lit) => ArgInit::Scalar(to_literal(lit.num)),
        ArgValue::List(items) => ArgInit::List(items.iter().map(|lit| to_literal(lit.num)).collect()),
        ArgValue::File(name) => {
            let path = &name.text[1..];
            if path.is_empty() {
                return Err((name.span, ArgFormError::NoFileName));
            }
            ArgInit::File(path.into())
        }
        ArgValue::Word(word) => return Err((word.span, ArgFormError::TensorMap(format!("`{}` is a word, not a value", word.text)))),
        ArgValue::Call { name, args, span } if name.text.eq_ignore_ascii_case("tensormap") => tensor_map(args, *span)?,
        ArgValue::Call { name, args, span } if name.text.eq_ignore_ascii_case("pointers") => pointers(args, *span)?,
        ArgValue::Call { name, args, span } => {
            let Some(form) = BufferForm::ALL.into_iter().find(|f| f.name().eq_ignore_ascii_case(name.text)) else {
                let names = BufferForm::ALL.map(BufferForm::name);
                let suggestion = suggest(name.text, names.iter().copied().chain(["tensormap", "pointers"])).map(str::to_string);
                return Err((name.span, ArgFormError::UnknownForm { name: name.text.into(), suggestion }));
            };
            if args.len() != form.arity() {
                return Err((*span, ArgFormError::Arity(form)));
            }
            let numbers: Vec<&Lit<'_>> = args
                .iter()
                .map(|a| match a {
                    CallArg::Value(ArgValue::Scalar(lit)) => Ok(lit),
                    _ => Err((*span, ArgFormError::NotANumber(form))),
                })
                .collect::<Result<_, _>>()?;
            let n = count(numbers[0], "the element count")?;
            match form {
                BufferForm::Zeros => ArgInit::Zeros(n),
                BufferForm::Iota => ArgInit::Iota(n),
                BufferForm::Fill => ArgInit::Fill(n, to_literal(numbers[1].num)),
                BufferForm::Rand => ArgInit::Rand(n, count(numbers[1], "the seed")?),
            }
        }
    })
}

/// `tensormap(TENSOR, box=[...], swizzle=N, shape=[...], type=T)`.
fn tensor_map(args: &[CallArg<'_>], span: Span) -> Result<ArgInit, (Span, ArgFormError)> {
    let wrong = |span: Span, why: String| (span, ArgFormError::TensorMap(why));
    let mut positional = args.iter().filter_map(|a| match a {
        CallArg::Value(v) => Some(v),
        CallArg::Keyword { .. } => None,
    });
    let tensor = match positional.next() {
        Some(ArgValue::Scalar(lit)) => return Err(wrong(lit.span, "the tensor is a buffer (@FILE, rand(N, SEED), ...), not a number".into())),
        Some(ArgValue::Call { name, span, .. }) if name.text.eq_ignore_ascii_case("tensormap") => {
            return Err(wrong(*span, "a tensor map's tensor is a buffer, not another tensor map".into()));
        }
        Some(value) => arg_init(value)?,
        None => return Err(wrong(span, "the first argument is the tensor".into())),
    };
    if positional.next().is_some() {
        return Err(wrong(span, "only the tensor is given without a keyword".into()));
    }
    let numbers = |value: &ArgValue<'_>, what: &str| -> Result<Vec<u64>, (Span, ArgFormError)> {
        match value {
            ArgValue::List(items) => items.iter().map(|lit| count(lit, "an extent").map_err(|_| wrong(lit.span, format!("{what} holds counts")))).collect(),
            _ => Err(wrong(span, format!("{what} is a list, `[64, 64]`"))),
        }
    };
    let mut map = TensorMapInit { tensor, elem: None, shape: None, boxes: Vec::new(), swizzle: 0, element_strides: None };
    let mut has_box = false;
    for arg in args {
        let CallArg::Keyword { name, value } = arg else { continue };
        match name.text {
            "box" => {
                has_box = true;
                map.boxes = numbers(value, "box")?.into_iter().map(|b| u32::try_from(b).unwrap_or(u32::MAX)).collect();
            }
            "shape" => map.shape = Some(numbers(value, "shape")?),
            "element_strides" => {
                map.element_strides = Some(numbers(value, "element_strides")?.into_iter().map(|s| u32::try_from(s).unwrap_or(u32::MAX)).collect());
            }
            "swizzle" => {
                map.swizzle = match value {
                    ArgValue::Scalar(lit) => match to_literal(lit.num) {
                        Literal::Int(b @ (0 | 32 | 64 | 128)) => b as u32,
                        _ => return Err(wrong(lit.span, "swizzle is 0, 32, 64 or 128 (bytes)".into())),
                    },
                    _ => return Err(wrong(span, "swizzle is 0, 32, 64 or 128 (bytes)".into())),
                }
            }
            "type" => {
                map.elem = match value {
                    ArgValue::Word(w) => Some(ElemType::from_name(w.text).ok_or_else(|| wrong(w.span, format!("`{}` is not an element type", w.text)))?),
                    _ => return Err(wrong(span, "type is an element type's name, `f16`".into())),
                }
            }
            other => {
                let suggestion =
                    suggest(other, ["box", "shape", "swizzle", "type", "element_strides"]).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default();
                return Err(wrong(name.span, format!("`{other}` is not a tensor map keyword{suggestion}")));
            }
        }
    }
    if !has_box {
        return Err(wrong(span, "the box is missing".into()));
    }
    Ok(ArgInit::TensorMap(Box::new(map)))
}

/// `pointers(B0, B1, ..., type=T)`.
fn pointers(args: &[CallArg<'_>], span: Span) -> Result<ArgInit, (Span, ArgFormError)> {
    let wrong = |span: Span, why: String| (span, ArgFormError::Pointers(why));
    let mut init = PointersInit { buffers: Vec::new(), elem: None };
    for arg in args {
        match arg {
            CallArg::Value(ArgValue::Scalar(lit)) => {
                return Err(wrong(lit.span, "each pointer's target is a buffer (@FILE, zeros(N), ...), not a number".into()));
            }
            CallArg::Value(ArgValue::Call { name, span, .. }) if ["tensormap", "pointers"].iter().any(|f| name.text.eq_ignore_ascii_case(f)) => {
                return Err(wrong(*span, format!("a pointer's target is a buffer, not {}(...)", name.text)));
            }
            CallArg::Value(value) => init.buffers.push(arg_init(value)?),
            CallArg::Keyword { name, value } if name.text == "type" => {
                init.elem = match value {
                    ArgValue::Word(w) => Some(ElemType::from_name(w.text).ok_or_else(|| wrong(w.span, format!("`{}` is not an element type", w.text)))?),
                    _ => return Err(wrong(span, "type is an element type's name, `f16`".into())),
                }
            }
            CallArg::Keyword { name, .. } => {
                let suggestion = suggest(name.text, ["type"]).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default();
                return Err(wrong(name.span, format!("`{}` is not a pointers keyword{suggestion}", name.text)));
            }
        }
    }
    if init.buffers.is_empty() {
        return Err(wrong(span, "no buffers are given".into()));
    }
    Ok(ArgInit::Pointers(Box::new(init)))
}

/// What makes a value unfit for its parameter.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ArgProblem {
    /// A literal for a pointer parameter.
    #[error("a .ptr.{0} parameter needs a buffer: write {forms}", forms = BUFFER_FORMS)]
    NeedsBuffer(ElemType),
    /// A buffer for a scalar parameter.
    #[error("a scalar .{} parameter takes a literal such as 42 or 2.5, not a buffer", .0.name())]
    NeedsLiteral(ParamType),
    /// An odd number of packed 4-bit elements.
    #[error("{count} elements of {elem} do not fill whole bytes: {elem} packs two elements a byte, so give an even number of elements")]
    OddCount {
        /// The element type.
        elem: ElemType,
        /// The elements given.
        count: u64,
    },
    /// `fill`'s value does not fit the element type.
    #[error(transparent)]
    Fill(LiteralError),
    /// A list element does not fit the element type.
    #[error("element {index}: {problem}")]
    Element {
        /// Its index in the list.
        index: usize,
        /// Why it does not fit.
        problem: LiteralError,
    },
    /// `iota(N)` with N - 1 beyond the element type.
    #[error("iota({count}) counts past the largest {elem}: use fewer elements or a wider type")]
    IotaPastLargest {
        /// The elements asked for.
        count: u64,
        /// The element type.
        elem: ElemType,
    },
    /// A buffer of `pointers(...)` that does not suit its element type.
    #[error("buffer {index} of pointers(...): {problem}")]
    Pointee {
        /// Its index in the table.
        index: usize,
        /// Why it does not suit.
        problem: Box<ArgProblem>,
    },
    /// `pointers(...)` for a parameter that cannot take one.
    #[error("pointers(...) goes to a pointer parameter (a .raw one, as PTX pointers are, or .u64), not a .{} one", .0.name())]
    PointersParam(ParamType),
    /// A tensor map for a parameter that cannot take one.
    #[error("a tensor map goes to a parameter passed by value as bytes (PTX `.param .b8 p[128]`, a .raw parameter), not a .{} one", .0.name())]
    TensorMapParam(ParamType),
    /// An integer no pointer parameter can hold.
    #[error("{0} is no address a pointer parameter can hold: it holds a GLOBAL address, below 2^32 (a buffer's, or 0); give a buffer")]
    NotAnAddress(Literal),
    /// A float for a pointer parameter.
    #[error("{0} is a float, not an address: give a buffer or an integer address")]
    FloatAddress(Literal),
    /// A float for an integer parameter.
    #[error("{lit} is a float but the parameter is .{}: write an integer", .ty.name())]
    FloatForInteger {
        /// The value given.
        lit: Literal,
        /// The parameter's type.
        ty: ParamType,
    },
    /// A `0d` pattern for `.f32`.
    #[error("a `0d` pattern is f64: write a `0f` pattern or a decimal for .f32")]
    F64PatternForF32,
    /// A `0f` pattern for `.f64`.
    #[error("a `0f` pattern is f32: write a `0d` pattern or a decimal for .f64")]
    F32PatternForF64,
    /// An integer outside the parameter's range.
    #[error("{lit} does not fit .{}", .ty.name())]
    OutOfRange {
        /// The value given.
        lit: Literal,
        /// The parameter's type.
        ty: ParamType,
    },
}

fn check_scalar(ty: ParamType, lit: Literal) -> Result<(), ArgProblem> {
    let ok = match (ty, lit) {
        (ParamType::U32, Literal::Int(v)) => (0..=i64::from(u32::MAX)).contains(&v),
        (ParamType::S32, Literal::Int(v)) => (i64::from(i32::MIN)..=i64::from(i32::MAX)).contains(&v),
        // Any 64-bit integer: a negative one means its two's complement bits.
        (ParamType::U64, Literal::Int(_)) => true,
        // A PTX pointer holds a 32-bit GLOBAL address (every buffer lies below 2^32).
        (ParamType::Raw(_), Literal::Int(v)) if !(0..=i64::from(u32::MAX)).contains(&v) => return Err(ArgProblem::NotAnAddress(lit)),
        (ParamType::Raw(_), Literal::Int(_)) => true,
        (ParamType::Raw(_), _) => return Err(ArgProblem::FloatAddress(lit)),
        (ParamType::U32 | ParamType::S32 | ParamType::U64, _) => return Err(ArgProblem::FloatForInteger { lit, ty }),
        (ParamType::F32, Literal::F64Bits(_)) => return Err(ArgProblem::F64PatternForF32),
        (ParamType::F64, Literal::F32Bits(_)) => return Err(ArgProblem::F32PatternForF64),
        _ => true,
    };
    if ok { Ok(()) } else { Err(ArgProblem::OutOfRange { lit, ty }) }
}

fn check_buffer(elem: ElemType, init: &ArgInit) -> Result<(), ArgProblem> {
    let odd = |count: u64| ArgProblem::OddCount { elem, count };
    match init {
        ArgInit::Scalar(_) => Err(ArgProblem::NeedsBuffer(elem)),
        ArgInit::Fill(n, _) | ArgInit::Iota(n) | ArgInit::Rand(n, _) | ArgInit::Zeros(n) if elem.is_packed() && n % 2 == 1 => Err(odd(*n)),
        ArgInit::Fill(_, v) => check_elem(*v, elem).map_err(ArgProblem::Fill),
        ArgInit::List(values) => {
            if elem.is_packed() && values.len() % 2 == 1 {
                return Err(odd(values.len() as u64));
            }
            values.iter().enumerate().try_for_each(|(index, v)| check_elem(*v, elem).map_err(|problem| ArgProblem::Element { index, problem }))
        }
        ArgInit::Iota(n) if !elem.is_float() && *n > 0 => {
            let last = i64::try_from(*n - 1).unwrap_or(i64::MAX);
            check_elem(Literal::Int(last), elem).map_err(|_| ArgProblem::IotaPastLargest { count: *n, elem })
        }
        ArgInit::Zeros(_) | ArgInit::Iota(_) | ArgInit::Rand(..) | ArgInit::File(_) => Ok(()),
        // The tensor's own type, where it is given; a file's comes with the file.
        ArgInit::TensorMap(map) => map.elem.map_or(Ok(()), |elem| check_buffer(elem, &map.tensor)),
        // Untyped, generated values are words of bits, as a raw buffer's are.
        ArgInit::Pointers(pointers) => pointers.buffers.iter().enumerate().try_for_each(|(index, buffer)| {
            check_buffer(pointers.elem.unwrap_or(ElemType::B32), buffer).map_err(|problem| ArgProblem::Pointee { index, problem: Box::new(problem) })
        }),
    }
}

/// A value that does not suit its parameter. The parameter is a field, not part of
/// the problem's words, so that a front end that already names it (`--arg x=5
/// (.param .ptr.f32 x): ...`) does not name it twice.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("argument `{param}`: {problem}")]
pub struct ArgMismatch {
    /// The parameter's name.
    pub param: String,
    /// What is wrong, in words that say what to write instead.
    pub problem: ArgProblem,
}

/// Checks that `init` suits `param`: a literal that fits a scalar parameter,
/// a buffer form whose values fit a pointer parameter's element type.
///
/// # Errors
/// The parameter, and what is wrong with the value.
pub fn check_arg(param: &Param, init: &ArgInit) -> Result<(), ArgMismatch> {
    let result = match (param.ty.literal_elem(init), init) {
        (_, ArgInit::TensorMap(_)) if !matches!(param.ty, ParamType::Raw(_) | ParamType::U64) => Err(ArgProblem::TensorMapParam(param.ty)),
        (_, ArgInit::Pointers(_)) if !matches!(param.ty, ParamType::Raw(_) | ParamType::U64) => Err(ArgProblem::PointersParam(param.ty)),
        (Some(elem), _) => check_buffer(elem, init),
        (None, ArgInit::Scalar(lit)) => check_scalar(param.ty, *lit),
        (None, _) => Err(ArgProblem::NeedsLiteral(param.ty)),
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
        assert!(parse_arg_init("zero(4)").unwrap_err().to_string().contains("did you mean `zeros`"));
        assert!(parse_arg_init("fill(4)").is_err());
        assert!(parse_arg_init("1 2").is_err());
        assert!(parse_arg_init("").is_err());
        assert!(parse_arg_init("zeros(-1)").is_err());
    }

    #[test]
    fn tensor_maps_parse_and_print_back() {
        let text = "tensormap(@dir/a.npy, box=[64, 32], swizzle=128, shape=[256, 128], element_strides=[1, 1], type=bf16)";
        let ArgInit::TensorMap(map) = parse_arg_init(text).unwrap() else { panic!("a tensor map") };
        assert_eq!(map.tensor, ArgInit::File("dir/a.npy".into()));
        assert_eq!((map.boxes.as_slice(), map.swizzle, map.elem), (&[64, 32][..], 128, Some(ElemType::BF16)));
        assert_eq!(map.shape.as_deref(), Some(&[256, 128][..]));
        assert_eq!(ArgInit::TensorMap(map.clone()).to_string(), text);
        assert_eq!(parse_arg_init(&ArgInit::TensorMap(map.clone()).to_string()), Ok(ArgInit::TensorMap(map)));
        // The tensor may be any buffer form; a generated one names its type.
        assert!(matches!(parse_arg_init("tensormap(rand(4096, 1), box=[32, 32], shape=[64, 64], type=f32)"), Ok(ArgInit::TensorMap(_))));
        let error = |text: &str| parse_arg_init(text).unwrap_err().to_string();
        assert!(error("tensormap(@a.npy)").contains("the box is missing"));
        assert!(error("tensormap(@a.npy, box=[8], swizle=32)").contains("did you mean `swizzle`"));
        assert!(error("tensormap(@a.npy, box=[8], swizzle=48)").contains("0, 32, 64 or 128"));
        assert!(error("tensormap(@a.npy, box=[8], type=f17)").contains("`f17` is not an element type"));
        assert!(error("tensormap(3, box=[8])").contains("not a number"));
        assert!(error("tensormap(tensormap(@a.npy, box=[8]), box=[8])").contains("not another tensor map"));
        assert!(error("tensormap(@a.npy, @b.npy, box=[8])").contains("only the tensor"));
        assert!(error("zeros(n=4)").contains("zeros takes numbers"));
        assert!(error("tensormp(@a.npy, box=[8])").contains("did you mean `tensormap`"));
        // Only a parameter passed by value as bytes takes one.
        let p = |ty| Param { name: "m".into(), ty, offset: 0 };
        let map = parse_arg_init("tensormap(zeros(16), box=[8], type=u16)").unwrap();
        assert!(check_arg(&p(ParamType::Raw(ElemType::U32)), &map).is_ok());
        assert!(check_arg(&p(ParamType::Ptr(ElemType::U32)), &map).unwrap_err().to_string().contains("passed by value as bytes"));
    }

    #[test]
    fn pointers_parse_and_print_back() {
        let text = "pointers(@dir/a.npy, zeros(4), [1, 2], type=f16)";
        let ArgInit::Pointers(pointers) = parse_arg_init(text).unwrap() else { panic!("pointers") };
        assert_eq!(pointers.buffers, [ArgInit::File("dir/a.npy".into()), ArgInit::Zeros(4), ArgInit::List(vec![Literal::Int(1), Literal::Int(2)])]);
        assert_eq!(pointers.elem, Some(ElemType::F16));
        assert_eq!(ArgInit::Pointers(pointers.clone()).to_string(), text);
        assert_eq!(parse_arg_init("pointers(iota(3))").unwrap().to_string(), "pointers(iota(3))");
        let error = |text: &str| parse_arg_init(text).unwrap_err().to_string();
        assert!(error("pointers()").contains("no buffers are given"));
        assert!(error("pointers(3)").contains("not a number"));
        assert!(error("pointers(pointers(zeros(1)))").contains("not pointers(...)"));
        assert!(error("pointers(zeros(1), tpye=f32)").contains("did you mean `type`"));
        assert!(error("pointrs(zeros(1))").contains("did you mean `pointers`"));
        // A pointer or a `.u64` takes them; each buffer's values must fit its type.
        let p = |ty| Param { name: "t".into(), ty, offset: 0 };
        let check = |ty, text: &str| check_arg(&p(ty), &parse_arg_init(text).unwrap()).map_err(|e| e.to_string());
        assert!(check(ParamType::Raw(ElemType::U16), "pointers(zeros(2), [-1])").is_ok());
        assert!(check(ParamType::U64, "pointers([1.5], type=f32)").is_ok());
        assert!(check(ParamType::U32, "pointers(zeros(2))").unwrap_err().contains("not a .u32 one"));
        assert!(check(ParamType::U64, "pointers(zeros(2), [1.5])").unwrap_err().contains("buffer 1 of pointers(...): element 0"));
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
        // A raw (PTX) buffer's words are bits: a C `int` loaded with `ld.u32` may be negative.
        assert!(ok(ParamType::Ptr(ElemType::U32), "[-1]").is_err());
        assert!(ok(ParamType::Raw(ElemType::U32), "[-2147483648, 4294967295]").is_ok());
        assert!(ok(ParamType::Raw(ElemType::U32), "fill(4, -7)").is_ok());
        assert!(ok(ParamType::Raw(ElemType::U32), "[-2147483649]").is_err());
        assert!(ok(ParamType::Raw(ElemType::F32), "[-1.5]").is_ok());
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
        assert!(check(ElemType::U4, "[0.5, 1]").unwrap_err().problem.to_string().contains("element 0: 0.5 is a float but u4 holds integers"));
        assert!(check(ElemType::U4, "iota(17)").is_err());
        assert!(check(ElemType::U4, "iota(16)").is_ok());
        assert!(check(ElemType::E2M1, "[1.0, 2.0, 3.0]").unwrap_err().problem.to_string().contains("3 elements of e2m1 do not fill whole bytes"));
        assert!(check(ElemType::S4, "zeros(3)").unwrap_err().problem.to_string().contains("give an even number"));
        assert!(check(ElemType::E4M3, "[1e10, nan, 0.1]").is_ok());
        assert!(check(ElemType::TF32, "fill(3, 0f3F800001)").is_ok());
    }
}
