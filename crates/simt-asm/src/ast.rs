//! The syntax tree of one line, as the grammar builds it. Every node keeps its
//! byte span so that diagnostics can point at the exact token.

use std::ops::Range;

/// A byte range of the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// The span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Span {
        // 32-bit offsets keep syntax nodes small; sources beyond 4 GiB are not supported.
        Span { start: start as u32, end: end as u32 }
    }

    /// As a range, for codespan labels.
    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }

    /// The sub-span `offset .. offset + len` of this span.
    pub fn sub(self, offset: usize, len: usize) -> Span {
        let start = self.start as usize + offset;
        Span::new(start, start + len)
    }
}

/// A word with its span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Name<'a> {
    /// The text as written.
    pub text: &'a str,
    /// Where.
    pub span: Span,
}

/// A numeric literal, classified but not yet fitted to a slot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num<'a> {
    /// An integer (decimal, `0x` or `0b`), sign applied.
    Int(i64),
    /// A decimal float, kept as text so that each slot rounds it once to its own width.
    Dec {
        /// Written with a leading `-`.
        neg: bool,
        /// The digits, without the sign.
        text: &'a str,
        /// Its value rounded to f64, sign applied (f64 slots and host values use it).
        value: f64,
    },
    /// `inf` or `-inf`.
    Inf {
        /// `-inf`.
        neg: bool,
    },
    /// `nan`: the canonical quiet NaN of the slot's width.
    Nan,
    /// `0f` + 8 hex digits: exact f32 bits.
    F32Bits(u32),
    /// `0d` + 16 hex digits: exact f64 bits.
    F64Bits(u64),
}

/// A literal with its span.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lit<'a> {
    /// The value.
    pub num: Num<'a>,
    /// Where.
    pub span: Span,
}

/// One `+ term` or `- term` of an address.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AddrTerm<'a> {
    /// Preceded by `-`.
    pub neg: bool,
    /// A register or symbol name, or a number.
    pub item: AddrItem<'a>,
    /// Where.
    pub span: Span,
}

/// The body of an address term.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AddrItem<'a> {
    /// A register, shared variable or parameter.
    Word(&'a str),
    /// A byte offset.
    Num(Num<'a>),
}

/// What an operand looks like, before the instruction says what it must be.
#[derive(Clone, Debug, PartialEq)]
pub enum OperandForm<'a> {
    /// A register, predicate, special register, label, symbol, `inf` or `nan`, with prefixes.
    Word {
        /// The word.
        text: &'a str,
        /// `-x`.
        neg: bool,
        /// `|x|`.
        abs: bool,
        /// `!x`.
        not: bool,
    },
    /// A numeric literal.
    Num(Num<'a>),
    /// `[ ... ]`.
    Addr(Vec<AddrTerm<'a>>),
    /// A string literal, quotes and escapes as written.
    Str(&'a str),
}

/// An operand with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand<'a> {
    /// Its form.
    pub form: OperandForm<'a>,
    /// Where.
    pub span: Span,
}

/// An instruction statement.
#[derive(Clone, Debug, PartialEq)]
pub struct Instr<'a> {
    /// `@P0`, `@!P1`, ... as written.
    pub guard: Option<Name<'a>>,
    /// The mnemonic with its modifiers (`LD.GLOBAL.U32`).
    pub mnemonic: Name<'a>,
    /// Operands in order.
    pub operands: Vec<Operand<'a>>,
    /// The whole statement.
    pub span: Span,
}

/// The value of an `.arg` directive or a `--arg` option.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgValue<'a> {
    /// A literal.
    Scalar(Lit<'a>),
    /// `zeros(N)`, `fill(N, V)`, `iota(N)`, `rand(N, SEED)`, `tensormap(...)`.
    Call {
        /// The function name.
        name: Name<'a>,
        /// Its arguments.
        args: Vec<CallArg<'a>>,
        /// The whole call.
        span: Span,
    },
    /// `[a, b, c]`.
    List(Vec<Lit<'a>>),
    /// `@FILE`.
    File(Name<'a>),
    /// A word as a keyword's value (`type=f16`).
    Word(Name<'a>),
}

/// One argument of a call: a value, or `name=value`.
#[derive(Clone, Debug, PartialEq)]
pub enum CallArg<'a> {
    /// A positional value.
    Value(ArgValue<'a>),
    /// `name=value`.
    Keyword {
        /// The keyword.
        name: Name<'a>,
        /// Its value.
        value: ArgValue<'a>,
    },
}

/// One `grid(...)` or `block(...)` of `.launch`.
#[derive(Clone, Debug, PartialEq)]
pub struct Dims<'a> {
    /// `grid` or `block`.
    pub name: Name<'a>,
    /// The extents.
    pub extents: Vec<Lit<'a>>,
    /// The whole group.
    pub span: Span,
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt<'a> {
    /// `.kernel name`
    Kernel(Name<'a>),
    /// `.param .type name`
    Param {
        /// `.u32`, `.ptr.f32`, ...
        ty: Name<'a>,
        /// The parameter name.
        name: Name<'a>,
    },
    /// `.shared [.align N] .type name[len]` or `name[]` (boxed: parser stack slots are as large as the largest node).
    Shared(Box<SharedDecl<'a>>),
    /// `.local N`
    Local(Lit<'a>),
    /// `.regs N`
    Regs(Lit<'a>),
    /// `.launch grid(..) block(..)`
    Launch(Vec<Dims<'a>>),
    /// `.arg name = value`
    Arg(Box<ArgDecl<'a>>),
    /// `.target sm_XX`
    Target(Name<'a>),
    /// An instruction.
    Instr(Box<Instr<'a>>),
}

/// The parts of a `.shared` directive.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedDecl<'a> {
    /// The `.align` value.
    pub align: Option<Lit<'a>>,
    /// `.f32`, ...
    pub ty: Name<'a>,
    /// The variable name.
    pub name: Name<'a>,
    /// How many elements.
    pub len: SharedLen<'a>,
}

/// The extent of a shared array.
#[derive(Clone, Debug, PartialEq)]
pub enum SharedLen<'a> {
    /// `name`: one element.
    One,
    /// `name[len]`.
    Count(Lit<'a>),
    /// `name[]`: the dynamic shared memory a launch adds after the static arrays.
    Dynamic,
}

/// The parts of an `.arg` directive.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgDecl<'a> {
    /// The parameter.
    pub name: Name<'a>,
    /// Its default.
    pub value: ArgValue<'a>,
}

/// A statement with the span of the whole statement.
#[derive(Clone, Debug, PartialEq)]
pub struct Statement<'a> {
    /// The statement.
    pub stmt: Stmt<'a>,
    /// Where.
    pub span: Span,
}

/// One source line: an optional label and an optional statement.
#[derive(Clone, Debug, PartialEq)]
pub struct Line<'a> {
    /// `name:`.
    pub label: Option<Name<'a>>,
    /// The statement.
    pub stmt: Option<Statement<'a>>,
}
