//! The syntax tree of one PTX module. Every name borrows from the source text,
//! and every item carries the byte span it was parsed from.

use std::fmt;
use std::ops::Range;

use crate::ops::{Op, SpecialReg, StateSpace, Type, Vector};

/// A byte range of the source, `start..end`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// The first byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// `start..end`.
    pub const fn new(start: u32, end: u32) -> Span {
        Span { start, end }
    }

    /// From the start of `self` to the end of `other`.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start, other.end.max(self.start))
    }

    /// The span as a `usize` range, for slicing the source.
    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// A value and the span it was written at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spanned<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub span: Span,
}

/// A whole `.ptx` file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Module<'a> {
    /// `.version MAJOR.MINOR`.
    pub version: Option<Spanned<(u32, u32)>>,
    /// `.target sm_80[, option...]`: the first name and any options after it.
    pub target: Option<Spanned<Vec<&'a str>>>,
    /// `.address_size 32|64` (PTX's default is 32 when absent).
    pub address_size: Option<Spanned<u32>>,
    /// Functions, variables and the other module-level directives, in source order.
    pub items: Vec<Item<'a>>,
}

impl<'a> Module<'a> {
    /// Every function with a body or a prototype, in source order.
    pub fn functions(&self) -> impl Iterator<Item = &Function<'a>> {
        self.items.iter().filter_map(|item| match item {
            Item::Function(f) => Some(f),
            _ => None,
        })
    }

    /// The `.entry` functions (kernels).
    pub fn entries(&self) -> impl Iterator<Item = &Function<'a>> {
        self.functions().filter(|f| f.kind == FunctionKind::Entry)
    }

    /// The function named `name` that has a body.
    pub fn function(&self, name: &str) -> Option<&Function<'a>> {
        self.functions().find(|f| f.name.value == name && f.body.is_some())
    }
}

/// A module-level item.
#[derive(Clone, Debug, PartialEq)]
pub enum Item<'a> {
    /// `.entry` or `.func`, defined or declared.
    Function(Function<'a>),
    /// A `.global`, `.const` or `.shared` variable (or an `.extern` declaration of one).
    Variable(Variable<'a>),
    /// `.file INDEX "path"`: a source file named by `.loc`.
    File {
        /// The number `.loc` uses.
        index: u32,
        /// The path, without its quotes.
        path: &'a str,
        /// The whole directive.
        span: Span,
    },
    /// `.pragma "text";` at module level.
    Pragma(Spanned<&'a str>),
}

/// `.visible`, `.extern`, `.weak` or `.common`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Linkage {
    /// `.visible`: defined here, seen by other modules.
    Visible,
    /// `.extern`: declared here, defined elsewhere.
    Extern,
    /// `.weak`: visible, and may be overridden.
    Weak,
    /// `.common`: a weak global that other modules' definitions merge with.
    Common,
}

/// Whether a function is a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    /// `.entry`: a kernel, launched from the host.
    Entry,
    /// `.func`: a device function, reached by `call`.
    Func,
}

/// An `.entry` or `.func`.
#[derive(Clone, Debug, PartialEq)]
pub struct Function<'a> {
    /// Its linkage directive, if any.
    pub linkage: Option<Spanned<Linkage>>,
    /// `.entry` or `.func`.
    pub kind: FunctionKind,
    /// Its name.
    pub name: Spanned<&'a str>,
    /// The return parameters of a `.func` (`.func (.param .b32 r) f(...)`).
    pub returns: Vec<Param<'a>>,
    /// The parameters, in order.
    pub params: Vec<Param<'a>>,
    /// `.maxntid`, `.reqntid`, `.minnctapersm`, `.maxnreg`, `.noreturn`, `.pragma`.
    pub directives: Vec<Spanned<FunctionDirective<'a>>>,
    /// The body; `None` for a prototype (`.func f(...);` or `.extern .func`).
    pub body: Option<Block<'a>>,
    /// From the linkage (or `.entry`/`.func`) to the closing `}` or `;`.
    pub span: Span,
}

/// A performance-tuning or other directive between a function's parameters and its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FunctionDirective<'a> {
    /// `.maxntid x[, y[, z]]`: at most this many threads per block.
    MaxNtid([u32; 3]),
    /// `.reqntid x[, y[, z]]`: exactly this block shape.
    ReqNtid([u32; 3]),
    /// `.minnctapersm n`.
    MinNctaPerSm(u32),
    /// `.maxnctapersm n`.
    MaxNctaPerSm(u32),
    /// `.maxnreg n`.
    MaxNreg(u32),
    /// `.noreturn` (a `.func` that never returns).
    NoReturn,
    /// `.pragma "text";`.
    Pragma(&'a str),
}

/// One parameter of a function or prototype.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param<'a> {
    /// `.param`, or `.reg` (register parameters of a `.func`).
    pub space: StateSpace,
    /// `.align N`, if written.
    pub align: Option<u32>,
    /// `.ptr[.space][.align N]` on an `.entry` pointer parameter: the space it points to and its alignment.
    pub ptr: Option<PtrAttribute>,
    /// The element type.
    pub ty: Type,
    /// The name (`_` in an anonymous `.callprototype` parameter).
    pub name: Spanned<&'a str>,
    /// `[N]`: a byte array such as `.param .align 8 .b8 p[16]` for a struct passed by value.
    pub array: Option<u32>,
    /// The whole parameter.
    pub span: Span,
}

/// `.ptr` on a kernel parameter: what the pointer points to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtrAttribute {
    /// `.global`, `.shared`, `.const` or `.local`; `None` is generic.
    pub space: Option<StateSpace>,
    /// `.align N`.
    pub align: Option<u32>,
}

/// A variable declaration: module level (`.global`, `.const`, `.shared`) or inside a body
/// (`.local`, `.shared`, `.param`).
#[derive(Clone, Debug, PartialEq)]
pub struct Variable<'a> {
    /// Linkage, if written.
    pub linkage: Option<Linkage>,
    /// Its state space.
    pub space: StateSpace,
    /// `.align N`.
    pub align: Option<u32>,
    /// `.v2`/`.v4` elements.
    pub vector: Option<Vector>,
    /// The element type.
    pub ty: Type,
    /// Its name.
    pub name: Spanned<&'a str>,
    /// Array extents, outermost first; `None` is `[]` (size from the initializer, or external).
    pub dims: Vec<Option<u32>>,
    /// `= value` or `= {values}`.
    pub init: Option<Initializer<'a>>,
    /// The whole declaration.
    pub span: Span,
}

/// A variable's initial value.
#[derive(Clone, Debug, PartialEq)]
pub enum Initializer<'a> {
    /// A number.
    Value(Spanned<Immediate>),
    /// The address of a variable or function (`generic(name)` is written `generic: true`).
    Address {
        /// The symbol.
        name: Spanned<&'a str>,
        /// Written as `generic(name)`.
        generic: bool,
    },
    /// `{a, b, ...}`.
    List(Spanned<Vec<Initializer<'a>>>),
}

/// `.reg .ty names;`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterDecl<'a> {
    /// `.v2`/`.v4` registers.
    pub vector: Option<Vector>,
    /// The register type.
    pub ty: Type,
    /// The names declared.
    pub names: Vec<RegisterName<'a>>,
    /// The whole declaration.
    pub span: Span,
}

/// One name of a `.reg` declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegisterName<'a> {
    /// The name, or the prefix of a range.
    pub name: &'a str,
    /// `%r<16>`: the registers `%r0` .. `%r15`.
    pub range: Option<u32>,
    /// The name with its range.
    pub span: Span,
}

/// `{ statements }`: a function body or a nested scope.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block<'a> {
    /// The statements in order.
    pub statements: Vec<Statement<'a>>,
    /// From `{` to `}`.
    pub span: Span,
}

/// One statement of a body.
#[derive(Clone, Debug, PartialEq)]
pub enum Statement<'a> {
    /// `name:`.
    Label(Spanned<&'a str>),
    /// `.reg` declarations.
    Registers(RegisterDecl<'a>),
    /// `.local`, `.shared`, `.param` (call arguments), `.const` or `.global` declared in a body.
    Variable(Variable<'a>),
    /// An instruction.
    Instruction(Instruction<'a>),
    /// A nested `{ }` scope (clang puts one around every call sequence).
    Block(Block<'a>),
    /// `.pragma "text";`.
    Pragma(Spanned<&'a str>),
    /// `.loc file line column`: where the following instructions come from.
    Loc {
        /// The `.file` index.
        file: u32,
        /// The line.
        line: u32,
        /// The column.
        column: u32,
        /// `inlined_at FILE LINE COLUMN`: the call site of the function the line belongs to.
        inlined_at: Option<[u32; 3]>,
        /// The directive.
        span: Span,
    },
    /// `name: .branchtargets L0, L1, ...;`: the labels a `brx.idx` picks from by index.
    BranchTargets {
        /// The label naming the list.
        name: Spanned<&'a str>,
        /// Its labels, index 0 first.
        targets: Vec<Spanned<&'a str>>,
    },
    /// `name: .callprototype (.param .b32 _) _ (.param .b32 _);`: the signature of an indirect call.
    Prototype {
        /// The label naming it.
        name: Spanned<&'a str>,
        /// Return parameters.
        returns: Vec<Param<'a>>,
        /// Parameters.
        params: Vec<Param<'a>>,
        /// The whole statement.
        span: Span,
    },
}

/// `@%p` or `@!%p` before an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard<'a> {
    /// `@!`: the instruction runs where the predicate is false.
    pub negated: bool,
    /// The predicate register.
    pub predicate: &'a str,
    /// From `@` to the predicate's end.
    pub span: Span,
}

/// One instruction: an optional guard, the opcode with its typed modifiers, and the operands.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction<'a> {
    /// The guard predicate.
    pub guard: Option<Guard<'a>>,
    /// The opcode with its modifiers.
    pub op: Op,
    /// Where the opcode and its modifiers are written (`ld.global.v4.f32`).
    pub op_span: Span,
    /// The operands in order. `call` always has `(returns), callee, (arguments)[, prototype]`,
    /// the lists empty where the source leaves them out.
    pub operands: Vec<Operand<'a>>,
    /// From the guard (or opcode) to the `;`.
    pub span: Span,
}

/// Where [`Instruction::call_list`] finds a call's results.
pub const CALL_RESULTS: usize = 0;
/// Where [`Instruction::call_list`] finds a call's arguments.
pub const CALL_ARGUMENTS: usize = 2;

impl<'a> Instruction<'a> {
    /// The function a `call` names: the parser gives every call the shape
    /// `call (results), callee, (arguments)`.
    pub fn callee(&self) -> Option<&'a str> {
        match self.operands.get(1).map(|o| &o.kind) {
            Some(OperandKind::Name(n)) => Some(*n),
            _ => None,
        }
    }

    /// A call's results (`CALL_RESULTS`) or arguments (`CALL_ARGUMENTS`): empty where the
    /// list is, or where this is no call.
    pub fn call_list(&self, list: usize) -> &[Operand<'a>] {
        match self.operands.get(list).map(|o| &o.kind) {
            Some(OperandKind::List(v)) => v,
            _ => &[],
        }
    }

    /// Every name the instruction mentions, its guard's predicate included.
    pub fn names(&self, out: &mut Vec<&'a str>) {
        self.operands.iter().for_each(|o| o.names(out));
        out.extend(self.guard.map(|g| g.predicate));
    }
}

/// An operand and its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand<'a> {
    /// What it is.
    pub kind: OperandKind<'a>,
    /// Where it is written.
    pub span: Span,
}

/// The forms an operand takes.
#[derive(Clone, Debug, PartialEq)]
pub enum OperandKind<'a> {
    /// A register, variable, parameter, label or function name.
    Name(&'a str),
    /// `!%p`: a negated predicate (setp's and selp-like predicate inputs, vote).
    Not(&'a str),
    /// `%p|%q`: the two destinations of `setp`, or shfl's value and its validity predicate.
    Pair(&'a str, &'a str),
    /// A special register such as `%tid.x` or `%laneid`.
    Special(SpecialReg),
    /// A number.
    Immediate(Immediate),
    /// `[base]`, `[base+offset]`, `[base-offset]` or `[offset]`.
    Address(Address<'a>),
    /// `[map, {c0, c1}]`: a tensor map's address and the coordinates of a box in its tensor.
    TensorAddress(Spanned<&'a str>, Vec<Operand<'a>>),
    /// `{a, b, c, d}`: the elements of a vector operand.
    Vector(Vec<Operand<'a>>),
    /// `(a, b)`: the return or argument list of a `call`.
    List(Vec<Operand<'a>>),
    /// `_`: a destination whose value is dropped.
    Sink,
}

/// The range prefix and index of a register name (`%r12` is `("%r", 12)`), as `.reg .b32
/// %r<N>` declares them: the index is a decimal number without leading zeros.
pub fn range_member(name: &str) -> Option<(&str, u32)> {
    let digits = name.len() - name.bytes().rev().take_while(u8::is_ascii_digit).count();
    let (prefix, index) = name.split_at(digits);
    if index.is_empty() || (index.len() > 1 && index.starts_with('0')) {
        return None;
    }
    Some((prefix, index.parse().ok()?))
}

impl<'a> Block<'a> {
    /// Every statement, nested blocks flattened, in order.
    pub fn flat(&self) -> Vec<&Statement<'a>> {
        let mut out = Vec::with_capacity(self.statements.len());
        self.flatten_into(&mut out);
        out
    }

    /// Every statement, nested blocks flattened, in order, each with its scope: the body is
    /// scope 0 and each nested `{ }` block a scope of its own, whose declarations hide the
    /// same names outside it. `parents[s]` is the scope around scope `s` (scope 0's is 0).
    pub fn scoped(&self) -> (Vec<(&Statement<'a>, usize)>, Vec<usize>) {
        let (mut out, mut parents) = (Vec::with_capacity(self.statements.len()), vec![0]);
        self.scope_into(0, &mut out, &mut parents);
        (out, parents)
    }

    fn scope_into<'s>(&'s self, scope: usize, out: &mut Vec<(&'s Statement<'a>, usize)>, parents: &mut Vec<usize>) {
        for s in &self.statements {
            match s {
                Statement::Block(b) => {
                    parents.push(scope);
                    b.scope_into(parents.len() - 1, out, parents);
                }
                other => out.push((other, scope)),
            }
        }
    }

    fn flatten_into<'s>(&'s self, out: &mut Vec<&'s Statement<'a>>) {
        for s in &self.statements {
            match s {
                Statement::Block(b) => b.flatten_into(out),
                other => out.push(other),
            }
        }
    }
}

impl<'a> Operand<'a> {
    /// Every name the operand mentions (registers, labels, variables alike), appended to `out`.
    pub fn names(&self, out: &mut Vec<&'a str>) {
        match &self.kind {
            OperandKind::Name(n) | OperandKind::Not(n) => out.push(n),
            // `_` (a sink) is no name.
            OperandKind::Pair(a, b) => out.extend([*a, *b].into_iter().filter(|&n| n != "_")),
            OperandKind::Address(Address { base: Some(b), .. }) => out.push(b.value),
            OperandKind::Vector(v) | OperandKind::List(v) => v.iter().for_each(|o| o.names(out)),
            OperandKind::TensorAddress(map, coords) => {
                out.push(map.value);
                coords.iter().for_each(|o| o.names(out));
            }
            OperandKind::Address(_) | OperandKind::Special(_) | OperandKind::Immediate(_) | OperandKind::Sink => {}
        }
    }
}

/// A memory operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Address<'a> {
    /// The register or variable the address starts from; `None` for an absolute address.
    pub base: Option<Spanned<&'a str>>,
    /// The byte offset added to it.
    pub offset: i64,
}

/// A numeric literal. Integers are 64-bit two's-complement patterns (`0xFFFFFFFF` and
/// `-1` differ; each instruction takes the low bits it needs); floats keep their bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Immediate {
    /// An integer.
    Int(i64),
    /// `0fXXXXXXXX`: f32 bits.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX` or a decimal number such as `1.5`: f64 bits.
    F64(u64),
}

impl fmt::Display for Immediate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Immediate::Int(v) => write!(f, "{v}"),
            Immediate::F32(bits) => write!(f, "0f{bits:08X}"),
            Immediate::F64(bits) => write!(f, "0d{bits:016X}"),
        }
    }
}
