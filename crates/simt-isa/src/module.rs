//! Kernels and modules, and the versioned bytecode format that stores them.
//!
//! Layout (all integers little-endian, strings as `u32` length + UTF-8):
//!
//! ```text
//! magic "\x7fSMT" | u16 version | u16 flags (0)
//! string source_name | u8 has_source [string source]
//! u32 kernel_count, then per kernel:
//!   string name
//!   u8 target                                                     (version 2: `Target` code)
//!   u32 n, n x (string name, u8 param_type, u32 offset)          parameters
//!   u32 n, n x (string name, u8 elem, u32 len, u32 align, u32 offset)  shared variables
//!   u32 shared_size | u32 local_size | u32 regs
//!   u8 has_launch [u32 x 3 grid, u32 x 3 block]
//!   u32 n, n x (string name, arg_init)                            `.arg` defaults
//!   u32 n, n x u64                                                constant pool
//!   u32 n, n x u128                                               instruction words
//!   n x u32                                                       source line per pc
//!   u32 n, n x (string name, u32 pc)                              labels
//!   u32 n, n x (string function, u32 caller, u32 line)            inlined calls (version 3)
//!   [n x u32]                                                     frame per pc, when calls were inlined (version 3)
//!   u32 n, n x string                                             `PRINTF` formats (version 5)
//! ```
//!
//! `arg_init` is a tag byte (0 scalar, 1 zeros, 2 fill, 3 iota, 4 rand,
//! 5 list, 6 file) followed by its fields; a literal is a tag byte (0 int
//! i64, 1 float f64, 2 f32 bits, 3 f64 bits) and 8 bytes.
//!
//! Version 5 has no member mask on `REDUX` and `MATCH`: their words load with the whole warp's
//! ([`upgrade_v5_instruction`]). Version 4 has no `PRINTF` formats (its kernels load with none). Version 3 has no address-width group (`.E`) on `LD`, `ST`, `ATOM` and `ATOM.CAS`: their
//! words load with the later groups moved up one place and 32-bit addresses
//! ([`upgrade_v3_word`]). Version 2 has no inlined calls (its kernels load without frames, as `.s` kernels
//! have none). Version 1 (before `.target`) has no target byte; its kernels load with
//! the default target, which has every form (rows and modifier values were
//! only appended since, so its words decode the same).
//!
//! Loading checks every length against the bytes that remain before
//! allocating, decodes every word, then runs [`Kernel::validate`], so a
//! loaded module upholds the same invariants as an assembled one.

use std::fmt;

use crate::disasm::format_mnemonic;
use crate::instr::*;
use crate::limits::{MAX_CODE_LEN, MAX_LOCAL_BYTES, MAX_SHARED_BYTES};
use crate::table::{Form, Opcode};
use crate::target::Target;

/// The four bytes every bytecode file starts with.
pub const MAGIC: &[u8; 4] = b"\x7fSMT";
/// What a kernel file holds, told apart the same way by every tool: bytecode by its
/// magic byte (source never starts with DEL, so a damaged bytecode file is reported as
/// such), else UTF-8 text without a byte-order mark, which is PTX when its name ends in
/// `.ptx` or its first directive is `.version`, and `.s` assembly otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input<'a> {
    /// Bytecode (`simt asm` output).
    Bytecode(&'a [u8]),
    /// PTX text.
    Ptx(&'a str),
    /// `.s` assembly text.
    Assembly(&'a str),
}

/// A file that is neither simt bytecode nor UTF-8 text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{name}: neither simt bytecode nor UTF-8 text")]
pub struct NotAModule {
    /// The file's name.
    pub name: String,
}

impl<'a> Input<'a> {
    /// What `bytes`, read from a file called `name`, hold.
    ///
    /// # Errors
    /// Bytes that are neither bytecode nor UTF-8 text.
    pub fn of(name: &str, bytes: &'a [u8]) -> Result<Input<'a>, NotAModule> {
        if bytes.first() == Some(&MAGIC[0]) {
            return Ok(Input::Bytecode(bytes));
        }
        let text = std::str::from_utf8(bytes).map_err(|_| NotAModule { name: name.into() })?;
        // Editors on some systems start UTF-8 files with a byte-order mark; it is not part of the text.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let ptx_name = std::path::Path::new(name).extension().is_some_and(|e| e.eq_ignore_ascii_case("ptx"));
        Ok(if ptx_name || starts_with_version(text) { Input::Ptx(text) } else { Input::Assembly(text) })
    }
}

/// Whether the first thing in `text` other than blanks and comments is `.version`.
fn starts_with_version(text: &str) -> bool {
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.split_once('\n').map_or("", |(_, next)| next);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, next)| next);
        } else {
            return rest.starts_with(".version");
        }
    }
}

/// The format version this crate writes (it also reads [`OLDEST_VERSION`] onwards).
pub const VERSION: u16 = 7;
/// The oldest format version this crate reads.
pub const OLDEST_VERSION: u16 = 1;

/// Element types of pointer parameters, shared arrays and host buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ElemType {
    /// Unsigned 8-bit.
    U8,
    /// Signed 8-bit.
    S8,
    /// Unsigned 16-bit.
    U16,
    /// Signed 16-bit.
    S16,
    /// Unsigned 32-bit.
    U32,
    /// Signed 32-bit.
    S32,
    /// IEEE binary16.
    F16,
    /// bfloat16.
    BF16,
    /// IEEE binary32.
    F32,
    /// IEEE binary64.
    F64,
    /// Untyped 32 bits (printed as unsigned).
    B32,
    /// TF32 in an f32 word (the host rounds f32 data with `CVT.TF32.F32`).
    TF32,
    /// FP8 E4M3, one byte.
    E4M3,
    /// FP8 E5M2, one byte.
    E5M2,
    /// FP4 E2M1, two a byte (first element in the low nibble).
    E2M1,
    /// Signed 4-bit integer, two a byte.
    S4,
    /// Unsigned 4-bit integer, two a byte.
    U4,
    /// Signed 64-bit (numpy's int64, which ML compilers index and count with).
    S64,
    /// Unsigned 64-bit.
    U64,
    /// A byte holding 0 or 1 (numpy's bool).
    Bool,
}

impl ElemType {
    /// Every element type, in encoding order.
    pub const ALL: [ElemType; 20] = [
        Self::U8,
        Self::S8,
        Self::U16,
        Self::S16,
        Self::U32,
        Self::S32,
        Self::F16,
        Self::BF16,
        Self::F32,
        Self::F64,
        Self::B32,
        Self::TF32,
        Self::E4M3,
        Self::E5M2,
        Self::E2M1,
        Self::S4,
        Self::U4,
        Self::S64,
        Self::U64,
        Self::Bool,
    ];

    /// The spelling in directives (`f32`).
    pub fn name(self) -> &'static str {
        ["u8", "s8", "u16", "s16", "u32", "s32", "f16", "bf16", "f32", "f64", "b32", "tf32", "e4m3", "e5m2", "e2m1", "s4", "u4", "s64", "u64", "bool"]
            [self as usize]
    }

    /// Bits of one element.
    pub fn bits(self) -> u32 {
        match self {
            Self::E2M1 | Self::S4 | Self::U4 => 4,
            Self::U8 | Self::S8 | Self::E4M3 | Self::E5M2 | Self::Bool => 8,
            Self::U16 | Self::S16 | Self::F16 | Self::BF16 => 16,
            Self::U32 | Self::S32 | Self::F32 | Self::B32 | Self::TF32 => 32,
            Self::F64 | Self::S64 | Self::U64 => 64,
        }
    }

    /// Whether two elements share a byte (so a buffer holds an even count of them).
    pub fn is_packed(self) -> bool {
        self.bits() < 8
    }

    /// Bytes of `count` elements; `None` for an odd count of a packed type.
    pub fn bytes_for(self, count: u64) -> Option<u64> {
        let bits = count.checked_mul(u64::from(self.bits()))?;
        bits.is_multiple_of(8).then_some(bits / 8)
    }

    /// Looks a spelling up, ignoring case.
    pub fn from_name(name: &str) -> Option<ElemType> {
        Self::ALL.into_iter().find(|t| t.name().eq_ignore_ascii_case(name))
    }

    /// Size in bytes of the smallest addressable unit: one element, or for a
    /// packed 4-bit type the byte that holds two.
    pub fn size(self) -> u32 {
        self.bits().div_ceil(8)
    }

    /// Whether values are floating point.
    pub fn is_float(self) -> bool {
        matches!(self, Self::F16 | Self::BF16 | Self::F32 | Self::F64 | Self::TF32 | Self::E4M3 | Self::E5M2 | Self::E2M1)
    }

    fn from_index(index: u8) -> Option<ElemType> {
        Self::ALL.get(usize::from(index)).copied()
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The type of a kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// A scalar `.u32`.
    U32,
    /// A scalar `.s32`.
    S32,
    /// A scalar `.f32`.
    F32,
    /// A scalar `.f64`.
    F64,
    /// A scalar `.u64`: a 64-bit integer in a register pair, low word first (PTX's `.u64`,
    /// `.s64` and `.b64` parameters that are not pointers into a buffer).
    U64,
    /// A GLOBAL address of a buffer of this element type.
    Ptr(ElemType),
    /// A GLOBAL address of a buffer of any element type, taken as its bytes: a PTX pointer
    /// parameter, which the kernel reads as it likes (Triton loads floats as `.b32`). The
    /// element type is the one the kernel's accesses suggest; generated values (`rand`,
    /// lists) and dumps of a buffer that came without a type use it.
    Raw(ElemType),
}

impl ParamType {
    /// The element type of a buffer parameter (`Ptr` or `Raw`); `None` for a scalar.
    pub fn buffer_elem(self) -> Option<ElemType> {
        match self {
            ParamType::Ptr(e) | ParamType::Raw(e) => Some(e),
            ParamType::U32 | ParamType::S32 | ParamType::F32 | ParamType::F64 | ParamType::U64 => None,
        }
    }

    /// The element type of the buffer that argument `init` makes for this parameter: a
    /// buffer parameter's own, or, for a `.u64` given a buffer rather than a number, raw
    /// `u32` words (the parameter then holds the buffer's 64-bit address). `None`: a scalar,
    /// which a `.raw` parameter (a PTX pointer) also takes, as an address.
    pub fn buffer_for(self, init: &ArgInit) -> Option<ElemType> {
        match (self, init) {
            (ParamType::U64 | ParamType::Raw(_), ArgInit::Scalar(_)) => None,
            (ParamType::U64, _) => Some(ElemType::U32),
            (ty, _) => ty.buffer_elem(),
        }
    }

    /// The element type `init`'s values are written as: [`Self::buffer_for`]'s, but a raw
    /// buffer's `u32` words take bits (`B32`), so that a negative literal is its two's
    /// complement: PTX loads a C `int` with `ld.u32` as readily as with `ld.s32`, so the words'
    /// signedness is the kernel's, not the buffer's. Its dumps stay `u32`.
    pub fn literal_elem(self, init: &ArgInit) -> Option<ElemType> {
        match (self, self.buffer_for(init)) {
            (ParamType::Raw(_), Some(ElemType::U32)) => Some(ElemType::B32),
            (_, elem) => elem,
        }
    }

    /// Whether a buffer file of any dtype binds to this parameter, as its bytes.
    pub fn takes_any_dtype(self) -> bool {
        matches!(self, ParamType::Raw(_) | ParamType::U64)
    }

    /// Size (and alignment) in the PARAM space.
    pub fn size(self) -> u32 {
        if matches!(self, ParamType::F64 | ParamType::U64) { 8 } else { 4 }
    }

    /// The spelling in `.param` (`u32`, `ptr.f32`).
    pub fn name(self) -> String {
        match self {
            ParamType::U32 => "u32".into(),
            ParamType::S32 => "s32".into(),
            ParamType::F32 => "f32".into(),
            ParamType::F64 => "f64".into(),
            ParamType::U64 => "u64".into(),
            ParamType::Ptr(e) => format!("ptr.{e}"),
            ParamType::Raw(e) => format!("raw.{e}"),
        }
    }

    fn code(self) -> u8 {
        match self {
            ParamType::U32 => 0,
            ParamType::S32 => 1,
            ParamType::F32 => 2,
            ParamType::F64 => 3,
            ParamType::U64 => 4,
            ParamType::Ptr(e) => 0x10 + e as u8,
            ParamType::Raw(e) => 0x30 + e as u8,
        }
    }

    fn from_code(code: u8) -> Option<ParamType> {
        Some(match code {
            0 => ParamType::U32,
            1 => ParamType::S32,
            2 => ParamType::F32,
            3 => ParamType::F64,
            4 => ParamType::U64,
            c if c >= 0x30 => ParamType::Raw(ElemType::from_index(c - 0x30)?),
            c if c >= 0x10 => ParamType::Ptr(ElemType::from_index(c - 0x10)?),
            _ => return None,
        })
    }
}

/// A kernel parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// Name.
    pub name: String,
    /// Type.
    pub ty: ParamType,
    /// Byte offset in the PARAM space.
    pub offset: u32,
}

/// A static shared-memory array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedVar {
    /// Name; as an operand it stands for `offset`.
    pub name: String,
    /// Element type.
    pub elem: ElemType,
    /// Element count.
    pub len: u32,
    /// Alignment in bytes.
    pub align: u32,
    /// Byte offset in the SHARED space.
    pub offset: u32,
}

/// Grid and block extents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchDims {
    /// Blocks in x, y, z.
    pub grid: [u32; 3],
    /// Threads per block in x, y, z.
    pub block: [u32; 3],
}

/// A literal in an `.arg` default or a `--arg` value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Literal {
    /// An integer (range-checked against the destination type when used).
    Int(i64),
    /// A decimal float, `inf` or `nan`.
    Float(f64),
    /// A `0f` bit pattern.
    F32Bits(u32),
    /// A `0d` bit pattern.
    F64Bits(u64),
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Literal::Int(v) => write!(f, "{v}"),
            Literal::Float(v) if v.is_nan() => f.write_str("nan"),
            Literal::Float(v) if v.is_infinite() => f.write_str(if v > 0.0 { "inf" } else { "-inf" }),
            Literal::Float(v) => write!(f, "{v:?}"),
            Literal::F32Bits(b) => write!(f, "0f{b:08X}"),
            Literal::F64Bits(b) => write!(f, "0d{b:016X}"),
        }
    }
}

/// How a parameter is initialised (`.arg` directive or `--arg`).
#[derive(Clone, Debug, PartialEq)]
pub enum ArgInit {
    /// A scalar value.
    Scalar(Literal),
    /// `zeros(N)`.
    Zeros(u64),
    /// `fill(N, V)`.
    Fill(u64, Literal),
    /// `iota(N)`: 0, 1, 2, ...
    Iota(u64),
    /// `rand(N, SEED)`.
    Rand(u64, u64),
    /// `[a, b, c]`.
    List(Vec<Literal>),
    /// `@FILE` (`.npy` or raw `.bin`).
    File(String),
    /// `tensormap(TENSOR, box=[...], ...)`: a tensor and the tensor map that describes it.
    TensorMap(Box<TensorMapInit>),
    /// `pointers(B0, B1, ..., type=T)`: buffers and a table of their addresses.
    Pointers(Box<PointersInit>),
}

impl ArgInit {
    /// The files the value reads: its `@FILE`, a tensor map's tensor's, pointers' buffers'.
    pub fn files(&self) -> Vec<&str> {
        match self {
            ArgInit::File(name) => vec![name],
            ArgInit::TensorMap(map) => map.tensor.files(),
            ArgInit::Pointers(pointers) => pointers.buffers.iter().flat_map(ArgInit::files).collect(),
            ArgInit::Scalar(_) | ArgInit::Zeros(_) | ArgInit::Fill(..) | ArgInit::Iota(_) | ArgInit::Rand(..) | ArgInit::List(_) => Vec::new(),
        }
    }
}

/// `pointers(B0, B1, ..., type=T)`: buffers (any buffer form but a scalar, a tensor map or
/// more pointers) and a table of their 64-bit addresses, which the parameter points to, as
/// a kernel given an array of device pointers (`float **`, Triton's grouped GEMM) reads
/// them. Buffer `k` is the one `--dump NAME.k` names; `--dump NAME` names the table.
#[derive(Clone, Debug, PartialEq)]
pub struct PointersInit {
    /// The buffers, in table order.
    pub buffers: Vec<ArgInit>,
    /// Their element type; left out, a file's own dtype, else `u32` words (as a `.u64`
    /// given a buffer).
    pub elem: Option<ElemType>,
}

impl fmt::Display for PointersInit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("pointers(")?;
        for (i, buffer) in self.buffers.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{buffer}")?;
        }
        if let Some(elem) = self.elem {
            write!(f, "{}type={elem}", if self.buffers.is_empty() { "" } else { ", " })?;
        }
        f.write_str(")")
    }
}

/// `tensormap(TENSOR, box=[b0, b1], swizzle=128, shape=[d0, d1], type=f16)`: the tensor's
/// contents (any buffer form but a scalar), and what `cuTensorMapEncodeTiled` would be given,
/// outermost dimension first as numpy writes a shape. The parameter gets the map's address;
/// the tensor is the buffer `--dump` names by the parameter (docs/tensor.md, "Tensor maps").
#[derive(Clone, Debug, PartialEq)]
pub struct TensorMapInit {
    /// The tensor's elements.
    pub tensor: ArgInit,
    /// Its element type; left out, a `.npy` file's.
    pub elem: Option<ElemType>,
    /// Its extents, outermost first; left out, a `.npy` file's shape, else one dimension.
    pub shape: Option<Vec<u64>>,
    /// The box a copy moves, outermost first.
    pub boxes: Vec<u32>,
    /// The box's step in each dimension, outermost first (CUDA's `elementStrides`); left out,
    /// every element.
    pub element_strides: Option<Vec<u32>>,
    /// The swizzle's span in bytes: 0 (none), 32, 64 or 128.
    pub swizzle: u32,
}

impl fmt::Display for TensorMapInit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |values: &mut dyn Iterator<Item = u64>| values.map(|v| v.to_string()).collect::<Vec<_>>().join(", ");
        write!(f, "tensormap({}, box=[{}]", self.tensor, list(&mut self.boxes.iter().map(|&b| u64::from(b))))?;
        if self.swizzle != 0 {
            write!(f, ", swizzle={}", self.swizzle)?;
        }
        if let Some(shape) = &self.shape {
            write!(f, ", shape=[{}]", list(&mut shape.iter().copied()))?;
        }
        if let Some(steps) = &self.element_strides {
            write!(f, ", element_strides=[{}]", list(&mut steps.iter().map(|&s| u64::from(s))))?;
        }
        if let Some(elem) = self.elem {
            write!(f, ", type={elem}")?;
        }
        f.write_str(")")
    }
}

impl fmt::Display for ArgInit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgInit::Scalar(v) => write!(f, "{v}"),
            ArgInit::Zeros(n) => write!(f, "zeros({n})"),
            ArgInit::Fill(n, v) => write!(f, "fill({n}, {v})"),
            ArgInit::Iota(n) => write!(f, "iota({n})"),
            ArgInit::Rand(n, seed) => write!(f, "rand({n}, {seed})"),
            ArgInit::List(values) => {
                f.write_str("[")?;
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            ArgInit::File(path) => write!(f, "@{path}"),
            ArgInit::TensorMap(map) => write!(f, "{map}"),
            ArgInit::Pointers(pointers) => write!(f, "{pointers}"),
        }
    }
}

/// A default argument from an `.arg` directive.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgDefault {
    /// Parameter name.
    pub name: String,
    /// Value.
    pub init: ArgInit,
}

/// One kernel: its interface, resources and code.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// Name.
    pub name: String,
    /// Parameters in declaration order.
    pub params: Vec<Param>,
    /// Shared arrays in declaration order.
    pub shared: Vec<SharedVar>,
    /// Bytes of SHARED memory per block.
    pub shared_size: u32,
    /// Bytes of LOCAL memory per thread.
    pub local_size: u32,
    /// Registers per thread.
    pub regs: u32,
    /// Default launch, from `.launch`.
    pub launch: Option<LaunchDims>,
    /// Default arguments, from `.arg`.
    pub args: Vec<ArgDefault>,
    /// Instructions.
    pub code: Vec<Instruction>,
    /// Source line (1-based) of each instruction.
    pub lines: Vec<u32>,
    /// Label names and the pcs they mark.
    pub labels: Vec<(String, u32)>,
    /// The target whose instruction forms the kernel may use (`.target`, `--arch`).
    pub target: Target,
    /// Which instructions come from device-function calls a front end inlined.
    pub frames: Frames,
    /// The format strings of the kernel's `PRINTF`s, which their `format` operands index.
    pub formats: Vec<String>,
}

/// The device-function calls a front end inlined into a kernel (the PTX front end inlines
/// every `call`, simt having no call instruction), so that a debugger can step over a call
/// as one line and out of one (`simt debug`'s `next` and `finish`) and name the function
/// an instruction is in. Frame 0 is the kernel's own code; frame `i` is the copy of a
/// function body that replaced the call `calls[i - 1]`. A kernel without calls (every
/// `.s` kernel) has no frames: both lists are empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frames {
    /// The inlined calls, each after the frame it is made from (its caller).
    pub calls: Vec<InlinedCall>,
    /// The frame of each instruction: as long as the code, or empty when `calls` is.
    pub of_pc: Vec<u32>,
}

/// One inlined device-function call: a frame of [`Frames`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlinedCall {
    /// The function called.
    pub function: String,
    /// The frame the call is made from, lower than the call's own.
    pub caller: u32,
    /// The source line of the call.
    pub line: u32,
}

/// A compiled `.s` file: its kernels and, for error messages, its source.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// The file name the module was assembled from.
    pub source_name: String,
    /// The source text, so faults can show the line even without the file.
    pub source: Option<String>,
    /// Kernels in file order.
    pub kernels: Vec<Kernel>,
}

impl Module {
    /// The kernel called `name`.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// Byte range of source line `line` (1-based) without its indentation and trailing
    /// comment, where diagnostics about that line point; `None` without source or code there.
    pub fn line_span(&self, line: u32) -> Option<std::ops::Range<usize>> {
        let source = self.source.as_deref()?;
        let start = source.split_inclusive('\n').take(line.checked_sub(1)? as usize).map(str::len).sum::<usize>();
        let text = source.get(start..)?.lines().next()?;
        let code = text.split("//").next().unwrap_or(text).trim_end();
        let indent = code.len() - code.trim_start().len();
        (code.len() > indent).then(|| start + indent..start + code.len())
    }
}

/// Whether `name` is spelled as `.s` spells kernel, parameter, shared-variable and label names:
/// as PTX spells identifiers (a letter, then letters, digits, `_` and `$`; or `_`, `$` or `%`
/// first), so a PTX name is a name in `simt ptx`'s listing. The `.s` lexer's words follow it.
pub fn is_identifier(name: &str) -> bool {
    let follows = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
    match name.as_bytes() {
        [first, rest @ ..] => (first.is_ascii_alphabetic() || matches!(first, b'_' | b'$' | b'%')) && rest.iter().all(|&b| follows(b)),
        [] => false,
    }
}

/// Encountered when a kernel breaks an invariant that assembling guarantees.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("kernel `{kernel}`{}: {message}", pc.map(|pc| format!(", pc {pc}")).unwrap_or_default())]
pub struct KernelError {
    /// Kernel name.
    pub kernel: String,
    /// The instruction at fault, if one is.
    pub pc: Option<u32>,
    /// What is wrong.
    pub message: String,
}

impl Kernel {
    /// Adds `bytes` of dynamic shared memory after the static shared variables: CUDA's
    /// launch-time `sharedMemBytes`, what a PTX `.extern .shared` array (which starts where
    /// the static ones end) addresses. The launch checks the total against the limit.
    pub fn add_dynamic_shared(&mut self, bytes: u32) {
        self.shared_size = self.shared_size.saturating_add(bytes);
    }

    /// Bytes of the PARAM space.
    pub fn param_size(&self) -> u32 {
        self.params.iter().map(|p| p.offset + p.ty.size()).max().unwrap_or(0)
    }

    /// The parameter called `name`.
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }

    /// The first instruction whose form `target` lacks: its pc and form.
    pub fn first_beyond(&self, target: Target) -> Option<(u32, Form)> {
        self.code.iter().position(|inst| inst.form.since() > target).map(|pc| (pc as u32, self.code[pc].form))
    }

    /// The source line of `pc`, if known.
    pub fn line(&self, pc: u32) -> Option<u32> {
        self.lines.get(pc as usize).copied()
    }

    /// The frame of `pc` (see [`Frames`]): 0, the kernel's own code, without inlined calls.
    pub fn frame(&self, pc: u32) -> u32 {
        self.frames.of_pc.get(pc as usize).copied().unwrap_or(0)
    }

    /// The inlined call that made frame `frame`; `None` for frame 0.
    pub fn inlined_call(&self, frame: u32) -> Option<&InlinedCall> {
        self.frames.calls.get(usize::try_from(frame).ok()?.checked_sub(1)?)
    }

    /// Whether frame `inner` is frame `outer` or inside a call made (directly or not) from it.
    pub fn frame_within(&self, inner: u32, outer: u32) -> bool {
        // Callers are lower than their calls in a valid kernel; the bound keeps an invalid one finite.
        let mut frame = inner;
        for _ in 0..=self.frames.calls.len() {
            if frame == outer {
                return true;
            }
            match self.inlined_call(frame) {
                Some(call) => frame = call.caller,
                None => return false,
            }
        }
        false
    }

    /// Checks every structural invariant the interpreter relies on.
    ///
    /// # Errors
    /// The first broken invariant.
    pub fn validate(&self) -> Result<(), KernelError> {
        let fail = |pc: Option<usize>, message: String| KernelError { kernel: self.name.clone(), pc: pc.map(|p| p as u32), message };
        if self.code.is_empty() {
            return Err(fail(None, "has no instructions".into()));
        }
        if self.code.len() > MAX_CODE_LEN {
            return Err(fail(None, format!("has {} instructions, more than the {MAX_CODE_LEN} allowed", self.code.len())));
        }
        if self.lines.len() != self.code.len() {
            return Err(fail(None, format!("line table has {} entries for {} instructions", self.lines.len(), self.code.len())));
        }
        if self.regs > NUM_REGS {
            return Err(fail(None, format!("asks for {} registers; R0 .. R254 is the most", self.regs)));
        }
        let frames = &self.frames;
        if frames.of_pc.len() != if frames.calls.is_empty() { 0 } else { self.code.len() } {
            return Err(fail(
                None,
                format!("frame table has {} entries for {} instructions and {} inlined calls", frames.of_pc.len(), self.code.len(), frames.calls.len()),
            ));
        }
        if let Some(pc) = frames.of_pc.iter().position(|&f| f as usize > frames.calls.len()) {
            return Err(fail(Some(pc), format!("is in frame {}, but only {} calls were inlined", frames.of_pc[pc], frames.calls.len())));
        }
        if let Some(i) = frames.calls.iter().enumerate().position(|(i, c)| c.caller as usize > i) {
            return Err(fail(None, format!("inlined call {} is made from frame {}, not from an earlier one", i + 1, frames.calls[i].caller)));
        }
        let len = self.code.len() as u32;
        if self.formats.len() > usize::from(u16::MAX) + 1 {
            return Err(fail(None, format!("has {} formats; the most is {}", self.formats.len(), usize::from(u16::MAX) + 1)));
        }
        let formats = self
            .formats
            .iter()
            .enumerate()
            .map(|(i, text)| crate::printf::Format::parse(text).map_err(|e| fail(None, format!("format {i} {}: {e}", crate::printf::quote(text)))))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some((pc, form)) = self.first_beyond(self.target) {
            return Err(fail(Some(pc as usize), beyond_target(&form, self.target)));
        }
        for (pc, inst) in self.code.iter().enumerate() {
            inst.validate().map_err(|e| fail(Some(pc), e.message))?;
            if let Some(max) = inst.max_reg()
                && max >= self.regs
            {
                return Err(fail(Some(pc), format!("uses R{max} but the kernel has {} registers", self.regs)));
            }
            for op in inst.operands() {
                if let Operand::Format { index, .. } = *op {
                    let Some(format) = formats.get(usize::from(index)) else {
                        return Err(fail(Some(pc), format!("names format {index}, but the kernel has {}", formats.len())));
                    };
                    if format.operand(index) != *op {
                        return Err(fail(Some(pc), format!("says its format reads other argument words than format {index} does")));
                    }
                }
                if let Operand::Label { target, reconv } = *op {
                    if target >= len {
                        return Err(fail(Some(pc), format!("branch target {target} is outside the kernel (0 .. {})", len - 1)));
                    }
                    if reconv != NO_RECONV && reconv > len {
                        return Err(fail(Some(pc), format!("reconvergence pc {reconv} is outside the kernel")));
                    }
                }
            }
        }
        // Parameters sit where the contract's layout puts them (in order, each aligned to
        // its size), so the PARAM space is as small as the parameters.
        let mut end = 0u32;
        for p in &self.params {
            let expected = end.next_multiple_of(p.ty.size());
            if p.offset != expected {
                return Err(fail(None, format!("parameter `{}` is at offset {}, but the layout puts it at {expected}", p.name, p.offset)));
            }
            end = expected + p.ty.size();
        }
        if self.shared_size > MAX_SHARED_BYTES {
            return Err(fail(None, format!("declares {} bytes of shared memory; a block may have at most {MAX_SHARED_BYTES}", self.shared_size)));
        }
        if self.local_size > MAX_LOCAL_BYTES {
            return Err(fail(None, format!("declares {} bytes of local memory per thread; the most is {MAX_LOCAL_BYTES}", self.local_size)));
        }
        for v in &self.shared {
            if v.elem.is_packed() {
                return Err(fail(None, format!("shared variable `{}` has the packed type {}, which shared memory does not hold", v.name, v.elem)));
            }
            let bytes = u64::from(v.len) * u64::from(v.elem.size());
            if !v.align.is_power_of_two() || v.offset % v.align != 0 || u64::from(v.offset) + bytes > u64::from(self.shared_size) {
                return Err(fail(None, format!("shared variable `{}` lies outside the shared space or is misaligned", v.name)));
            }
        }
        for (name, pc) in &self.labels {
            if *pc > len {
                return Err(fail(None, format!("label `{name}` marks pc {pc}, past the end")));
            }
        }
        if let Some(l) = self.launch
            && (l.grid.contains(&0) || l.block.contains(&0))
        {
            return Err(fail(None, "the default launch has a zero extent".into()));
        }
        Ok(())
    }
}

/// Why `form` cannot run on `target`, naming the generation that introduced it.
pub fn beyond_target(form: &Form, target: Target) -> String {
    let needs = form.since();
    format!("{} needs target {needs} ({}) or later, but the kernel targets {target} ({})", format_mnemonic(form), needs.generation(), target.generation())
}

/// Encountered when bytes cannot be loaded as a module.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// The file does not start with the bytecode magic.
    #[error("not simt bytecode (the file does not start with the simt magic bytes); assemble `.s` files with `simt asm`")]
    BadMagic,
    /// The file was written by another format version.
    #[error("bytecode version {found} is not supported (this simt reads versions {OLDEST_VERSION} to {VERSION}); reassemble the source")]
    UnsupportedVersion {
        /// Version in the file.
        found: u16,
    },
    /// The file ends early or a length is impossible.
    #[error("truncated or corrupt bytecode: {what} at byte {offset}")]
    Truncated {
        /// What was being read.
        what: String,
        /// Byte offset.
        offset: usize,
    },
    /// A value is out of range.
    #[error("corrupt bytecode: {0}")]
    Invalid(String),
    /// A decoded kernel breaks an invariant.
    #[error("corrupt bytecode: {0}")]
    Kernel(#[from] KernelError),
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).expect("tables are far below 4G entries"));
    }
    fn str(&mut self, s: &str) {
        self.len(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }
    fn literal(&mut self, v: Literal) {
        match v {
            Literal::Int(i) => {
                self.u8(0);
                self.u64(i as u64);
            }
            Literal::Float(x) => {
                self.u8(1);
                self.u64(x.to_bits());
            }
            Literal::F32Bits(b) => {
                self.u8(2);
                self.u64(u64::from(b));
            }
            Literal::F64Bits(b) => {
                self.u8(3);
                self.u64(b);
            }
        }
    }
    fn arg(&mut self, init: &ArgInit) {
        match init {
            ArgInit::Scalar(v) => {
                self.u8(0);
                self.literal(*v);
            }
            ArgInit::Zeros(n) => {
                self.u8(1);
                self.u64(*n);
            }
            ArgInit::Fill(n, v) => {
                self.u8(2);
                self.u64(*n);
                self.literal(*v);
            }
            ArgInit::Iota(n) => {
                self.u8(3);
                self.u64(*n);
            }
            ArgInit::Rand(n, seed) => {
                self.u8(4);
                self.u64(*n);
                self.u64(*seed);
            }
            ArgInit::List(values) => {
                self.u8(5);
                self.len(values.len());
                for v in values {
                    self.literal(*v);
                }
            }
            ArgInit::File(path) => {
                self.u8(6);
                self.str(path);
            }
            ArgInit::TensorMap(map) => {
                self.u8(7);
                self.arg(&map.tensor);
                self.u8(map.elem.map_or(0xFF, |e| e as u8));
                match &map.shape {
                    Some(shape) => {
                        self.u8(1);
                        self.len(shape.len());
                        shape.iter().for_each(|&d| self.u64(d));
                    }
                    None => self.u8(0),
                }
                self.len(map.boxes.len());
                map.boxes.iter().for_each(|&b| self.u32(b));
                self.u32(map.swizzle);
                match &map.element_strides {
                    Some(steps) => {
                        self.u8(1);
                        self.len(steps.len());
                        steps.iter().for_each(|&s| self.u32(s));
                    }
                    None => self.u8(0),
                }
            }
            ArgInit::Pointers(pointers) => {
                self.u8(8);
                self.len(pointers.buffers.len());
                pointers.buffers.iter().for_each(|b| self.arg(b));
                self.u8(pointers.elem.map_or(0xFF, |e| e as u8));
            }
        }
    }
}

/// Serialises a module.
pub fn write_module(module: &Module) -> Vec<u8> {
    let mut w = Writer(Vec::new());
    w.0.extend_from_slice(MAGIC);
    w.u16(VERSION);
    w.u16(0);
    w.str(&module.source_name);
    match &module.source {
        Some(text) => {
            w.u8(1);
            w.str(text);
        }
        None => w.u8(0),
    }
    w.len(module.kernels.len());
    for k in &module.kernels {
        w.str(&k.name);
        w.u8(k.target.code());
        w.len(k.params.len());
        for p in &k.params {
            w.str(&p.name);
            w.u8(p.ty.code());
            w.u32(p.offset);
        }
        w.len(k.shared.len());
        for v in &k.shared {
            w.str(&v.name);
            w.u8(v.elem as u8);
            w.u32(v.len);
            w.u32(v.align);
            w.u32(v.offset);
        }
        w.u32(k.shared_size);
        w.u32(k.local_size);
        w.u32(k.regs);
        match k.launch {
            Some(l) => {
                w.u8(1);
                l.grid.into_iter().chain(l.block).for_each(|x| w.u32(x));
            }
            None => w.u8(0),
        }
        w.len(k.args.len());
        for a in &k.args {
            w.str(&a.name);
            w.arg(&a.init);
        }
        let mut pool = PoolBuilder::default();
        let words: Vec<u128> = k.code.iter().map(|i| encode(i, &mut pool)).collect();
        let pool = pool.into_values();
        w.len(pool.len());
        pool.into_iter().for_each(|v| w.u64(v));
        w.len(words.len());
        for word in words {
            w.0.extend_from_slice(&word.to_le_bytes());
        }
        k.lines.iter().for_each(|&l| w.u32(l));
        w.len(k.labels.len());
        for (name, pc) in &k.labels {
            w.str(name);
            w.u32(*pc);
        }
        w.len(k.frames.calls.len());
        for call in &k.frames.calls {
            w.str(&call.function);
            w.u32(call.caller);
            w.u32(call.line);
        }
        k.frames.of_pc.iter().for_each(|&f| w.u32(f));
        w.len(k.formats.len());
        k.formats.iter().for_each(|f| w.str(f));
    }
    w.0
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], LoadError> {
        if self.bytes.len() - self.pos < n {
            return Err(LoadError::Truncated { what: what.into(), offset: self.pos });
        }
        let slice = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(slice)
    }
    fn u8(&mut self, what: &str) -> Result<u8, LoadError> {
        Ok(self.take(1, what)?[0])
    }
    fn u16(&mut self, what: &str) -> Result<u16, LoadError> {
        Ok(u16::from_le_bytes(self.take(2, what)?.try_into().expect("2 bytes")))
    }
    fn u32(&mut self, what: &str) -> Result<u32, LoadError> {
        Ok(u32::from_le_bytes(self.take(4, what)?.try_into().expect("4 bytes")))
    }
    fn u64(&mut self, what: &str) -> Result<u64, LoadError> {
        Ok(u64::from_le_bytes(self.take(8, what)?.try_into().expect("8 bytes")))
    }
    /// A count of items of at least `item_size` bytes each, checked against what remains.
    fn count(&mut self, item_size: usize, what: &str) -> Result<usize, LoadError> {
        let at = self.pos;
        let n = self.u32(what)? as usize;
        if n.saturating_mul(item_size) > self.bytes.len() - self.pos {
            return Err(LoadError::Truncated { what: format!("{what} ({n} entries)"), offset: at });
        }
        Ok(n)
    }
    fn str(&mut self, what: &str) -> Result<String, LoadError> {
        let n = self.count(1, what)?;
        let at = self.pos;
        String::from_utf8(self.take(n, what)?.to_vec()).map_err(|_| LoadError::Invalid(format!("{what} at byte {at} is not UTF-8")))
    }
    fn literal(&mut self) -> Result<Literal, LoadError> {
        let tag = self.u8("literal tag")?;
        let bits = self.u64("literal")?;
        Ok(match tag {
            0 => Literal::Int(bits as i64),
            1 => Literal::Float(f64::from_bits(bits)),
            2 => Literal::F32Bits(u32::try_from(bits).map_err(|_| LoadError::Invalid("an f32 bit pattern is wider than 32 bits".into()))?),
            3 => Literal::F64Bits(bits),
            t => return Err(LoadError::Invalid(format!("unknown literal tag {t}"))),
        })
    }
    fn arg(&mut self) -> Result<ArgInit, LoadError> {
        self.arg_within(false)
    }
    /// An argument; `nested` inside a tensor map's or pointers', which hold no tensor map or
    /// pointers in turn.
    fn arg_within(&mut self, nested: bool) -> Result<ArgInit, LoadError> {
        Ok(match self.u8("argument tag")? {
            0 => ArgInit::Scalar(self.literal()?),
            1 => ArgInit::Zeros(self.u64("element count")?),
            2 => ArgInit::Fill(self.u64("element count")?, self.literal()?),
            3 => ArgInit::Iota(self.u64("element count")?),
            4 => ArgInit::Rand(self.u64("element count")?, self.u64("seed")?),
            5 => {
                let n = self.count(9, "list length")?;
                ArgInit::List((0..n).map(|_| self.literal()).collect::<Result<_, _>>()?)
            }
            6 => ArgInit::File(self.str("file name")?),
            7 if !nested => {
                let tensor = self.arg_within(true)?;
                let elem = match self.u8("tensor map element type")? {
                    0xFF => None,
                    e => Some(ElemType::from_index(e).ok_or_else(|| LoadError::Invalid(format!("unknown tensor map element type {e}")))?),
                };
                let shape = match self.u8("tensor map shape tag")? {
                    0 => None,
                    _ => {
                        let n = self.count(8, "tensor map rank")?;
                        Some((0..n).map(|_| self.u64("tensor map extent")).collect::<Result<_, _>>()?)
                    }
                };
                let n = self.count(4, "tensor map box rank")?;
                let boxes = (0..n).map(|_| self.u32("tensor map box")).collect::<Result<_, _>>()?;
                let swizzle = self.u32("tensor map swizzle")?;
                let element_strides = match self.u8("tensor map element strides tag")? {
                    0 => None,
                    _ => {
                        let n = self.count(4, "tensor map element strides")?;
                        Some((0..n).map(|_| self.u32("tensor map element stride")).collect::<Result<_, _>>()?)
                    }
                };
                ArgInit::TensorMap(Box::new(TensorMapInit { tensor, elem, shape, boxes, swizzle, element_strides }))
            }
            8 if !nested => {
                // The smallest buffer is a tag and an empty file name.
                let n = self.count(5, "pointers' buffer count")?;
                let buffers = (0..n).map(|_| self.arg_within(true)).collect::<Result<_, _>>()?;
                let elem = match self.u8("pointers' element type")? {
                    0xFF => None,
                    e => Some(ElemType::from_index(e).ok_or_else(|| LoadError::Invalid(format!("unknown pointers element type {e}")))?),
                };
                ArgInit::Pointers(Box::new(PointersInit { buffers, elem }))
            }
            t => return Err(LoadError::Invalid(format!("unknown argument tag {t}"))),
        })
    }
}

/// Loads and validates a module.
///
/// # Errors
/// A memory instruction's word as version 4 lays it out, from versions 1 to 3, which had no
/// address-width group after the space: the modifier indices after the first (4 bits each,
/// from bit 12) move up one place and the width is 0, a 32-bit address. Any other word is
/// the same in every version. A fourth index that was set (never valid) is kept where it
/// makes the word fail to decode.
fn upgrade_v3_word(word: u128) -> u128 {
    let memory = matches!(Opcode::from_byte(word as u8), Some(Opcode::Ld | Opcode::St | Opcode::Atom | Opcode::AtomCas));
    if !memory || (word >> 20) & 0xF != 0 {
        return word;
    }
    (word & !(0xFFF << 12)) | (((word >> 12) & 0xFF) << 16)
}

/// `REDUX` and `MATCH` as version 6 reads them, from a version 5 word or older, which ended
/// before the member mask: the zero bits there read as `R0`, and mean the whole warp.
fn upgrade_v5_instruction(inst: &mut Instruction) {
    if matches!(inst.opcode(), Opcode::Redux | Opcode::Match) {
        inst.operands[2] = crate::disasm::default_operand(inst.opcode(), inst.info().operands[2].kind);
    }
}

/// `BAR.SYNC` as version 7 reads it, from a version 6 word or older, which had no operands:
/// the zero bits there read as `R0, R0`, and mean barrier 0 and every thread.
fn upgrade_v6_instruction(inst: &mut Instruction) {
    if inst.opcode() == Opcode::BarSync {
        inst.operands[..2].fill(Operand::None);
    }
}

/// Wrong magic or version, truncation, out-of-range fields, or a kernel that
/// breaks an invariant; never panics, whatever the bytes.
pub fn read_module(bytes: &[u8]) -> Result<Module, LoadError> {
    let mut r = Reader { bytes, pos: 0 };
    if bytes.len() < 4 || &bytes[..4] != MAGIC {
        return Err(LoadError::BadMagic);
    }
    r.pos = 4;
    let version = r.u16("version")?;
    if !(OLDEST_VERSION..=VERSION).contains(&version) {
        return Err(LoadError::UnsupportedVersion { found: version });
    }
    if r.u16("flags")? != 0 {
        return Err(LoadError::Invalid("unknown flags are set".into()));
    }
    let source_name = r.str("source name")?;
    let source = match r.u8("source flag")? {
        0 => None,
        1 => Some(r.str("source text")?),
        f => return Err(LoadError::Invalid(format!("source flag {f} is neither 0 nor 1"))),
    };
    let nkernels = r.count(4, "kernel count")?;
    let mut kernels = Vec::with_capacity(nkernels);
    for _ in 0..nkernels {
        let name = r.str("kernel name")?;
        let target = if version >= 2 {
            let code = r.u8("target")?;
            Target::from_code(code).ok_or_else(|| LoadError::Invalid(format!("kernel `{name}`: unknown target code {code}")))?
        } else {
            Target::DEFAULT
        };
        let nparams = r.count(9, "parameter count")?;
        let mut params = Vec::with_capacity(nparams);
        for _ in 0..nparams {
            let pname = r.str("parameter name")?;
            let code = r.u8("parameter type")?;
            let ty = ParamType::from_code(code).ok_or_else(|| LoadError::Invalid(format!("unknown parameter type code {code}")))?;
            params.push(Param { name: pname, ty, offset: r.u32("parameter offset")? });
        }
        let nshared = r.count(17, "shared variable count")?;
        let mut shared = Vec::with_capacity(nshared);
        for _ in 0..nshared {
            let vname = r.str("shared variable name")?;
            let code = r.u8("shared element type")?;
            let elem = ElemType::from_index(code).ok_or_else(|| LoadError::Invalid(format!("unknown element type code {code}")))?;
            shared.push(SharedVar { name: vname, elem, len: r.u32("shared length")?, align: r.u32("shared alignment")?, offset: r.u32("shared offset")? });
        }
        let shared_size = r.u32("shared size")?;
        let local_size = r.u32("local size")?;
        let regs = r.u32("register count")?;
        let launch = match r.u8("launch flag")? {
            0 => None,
            1 => {
                let mut dims = [0u32; 6];
                for d in &mut dims {
                    *d = r.u32("launch extent")?;
                }
                Some(LaunchDims { grid: [dims[0], dims[1], dims[2]], block: [dims[3], dims[4], dims[5]] })
            }
            f => return Err(LoadError::Invalid(format!("launch flag {f} is neither 0 nor 1"))),
        };
        let nargs = r.count(5, "argument count")?;
        let mut args = Vec::with_capacity(nargs);
        for _ in 0..nargs {
            args.push(ArgDefault { name: r.str("argument name")?, init: r.arg()? });
        }
        let npool = r.count(8, "constant pool size")?;
        let pool: Vec<u64> = (0..npool).map(|_| r.u64("constant")).collect::<Result<_, _>>()?;
        let ncode = r.count(20, "instruction count")?;
        let mut code = Vec::with_capacity(ncode);
        for pc in 0..ncode {
            let word = u128::from_le_bytes(r.take(16, "instruction")?.try_into().expect("16 bytes"));
            let word = if version < 4 { upgrade_v3_word(word) } else { word };
            let mut inst = decode(word, &pool).map_err(|e| LoadError::Invalid(format!("kernel `{name}`, pc {pc}: {e}")))?;
            if version < 6 {
                upgrade_v5_instruction(&mut inst);
            }
            if version < 7 {
                upgrade_v6_instruction(&mut inst);
            }
            code.push(inst);
        }
        let lines = (0..ncode).map(|_| r.u32("line number")).collect::<Result<_, _>>()?;
        let nlabels = r.count(8, "label count")?;
        let mut labels = Vec::with_capacity(nlabels);
        for _ in 0..nlabels {
            labels.push((r.str("label name")?, r.u32("label pc")?));
        }
        let mut frames = Frames::default();
        if version >= 3 {
            let ncalls = r.count(12, "inlined call count")?;
            for _ in 0..ncalls {
                frames.calls.push(InlinedCall {
                    function: r.str("inlined function name")?,
                    caller: r.u32("inlined call's caller")?,
                    line: r.u32("inlined call's line")?,
                });
            }
            if ncalls > 0 {
                frames.of_pc = (0..ncode).map(|_| r.u32("frame")).collect::<Result<_, _>>()?;
            }
        }
        let mut formats = Vec::new();
        if version >= 5 {
            let nformats = r.count(4, "format count")?;
            for _ in 0..nformats {
                formats.push(r.str("format")?);
            }
        }
        let kernel = Kernel { name, params, shared, shared_size, local_size, regs, launch, args, code, lines, labels, target, frames, formats };
        kernel.validate()?;
        kernels.push(kernel);
    }
    if r.pos != bytes.len() {
        return Err(LoadError::Invalid(format!("{} unexpected bytes after the last kernel", bytes.len() - r.pos)));
    }
    Ok(Module { source_name, source, kernels })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::*;

    #[test]
    fn ptx_is_told_from_assembly_by_its_first_directive() {
        let kind = |text: &str| match Input::of("k", text.as_bytes()) {
            Ok(Input::Ptx(_)) => "ptx",
            Ok(Input::Assembly(_)) => "s",
            _ => "other",
        };
        assert_eq!(kind("//\n// Generated by LLVM\n/* a */ .version 7.5\n.target sm_35"), "ptx");
        assert_eq!(kind("\u{feff}\n\n.version 8.0"), "ptx");
        assert_eq!(kind(".kernel k\n"), "s");
        assert_eq!(kind("/* unclosed .version"), "s");
    }
    use crate::table::Opcode;

    fn sample() -> Module {
        let mut exit = Instruction::new(Opcode::Exit);
        exit.guard = Guard { pred: 0, negated: true };
        let mut mov = Instruction::new(Opcode::Mov);
        mov.operands[0] = Operand::Reg(2);
        mov.operands[1] = Operand::Src(Src::Imm { bits: 1.5f64.to_bits(), wide: true });
        let mut printf = Instruction::new(Opcode::Printf);
        printf.operands[..2].copy_from_slice(&[Operand::Format { index: 0, used: 0b1101, pairs: true }, Operand::Src(Src::reg(0))]);
        Module {
            source_name: "k.s".into(),
            source: Some("...".into()),
            kernels: vec![Kernel {
                name: "k".into(),
                params: vec![
                    Param { name: "n".into(), ty: ParamType::U32, offset: 0 },
                    Param { name: "d".into(), ty: ParamType::F64, offset: 8 },
                    Param { name: "x".into(), ty: ParamType::Ptr(ElemType::BF16), offset: 16 },
                ],
                shared: vec![SharedVar { name: "t".into(), elem: ElemType::F32, len: 4, align: 16, offset: 0 }],
                shared_size: 16,
                local_size: 8,
                regs: 4,
                launch: Some(LaunchDims { grid: [2, 1, 1], block: [32, 2, 1] }),
                args: vec![
                    ArgDefault { name: "n".into(), init: ArgInit::Scalar(Literal::Int(-3)) },
                    ArgDefault { name: "x".into(), init: ArgInit::List(vec![Literal::Float(0.5), Literal::F32Bits(7)]) },
                    ArgDefault {
                        name: "m".into(),
                        init: ArgInit::TensorMap(Box::new(TensorMapInit {
                            tensor: ArgInit::Rand(64, 3),
                            elem: Some(ElemType::BF16),
                            shape: Some(vec![8, 8]),
                            boxes: vec![8, 8],
                            swizzle: 32,
                            element_strides: Some(vec![2, 1]),
                        })),
                    },
                    ArgDefault {
                        name: "p".into(),
                        init: ArgInit::Pointers(Box::new(PointersInit {
                            buffers: vec![ArgInit::Zeros(4), ArgInit::File("a.npy".into()), ArgInit::List(vec![Literal::Int(1)])],
                            elem: Some(ElemType::F16),
                        })),
                    },
                    ArgDefault {
                        name: "q".into(),
                        init: ArgInit::TensorMap(Box::new(TensorMapInit {
                            tensor: ArgInit::File("q.npy".into()),
                            elem: None,
                            shape: None,
                            boxes: vec![16],
                            swizzle: 0,
                            element_strides: None,
                        })),
                    },
                ],
                code: vec![mov, printf, exit],
                lines: vec![3, 4, 5],
                labels: vec![("top".into(), 0)],
                target: Target::Sm75,
                frames: Frames { calls: vec![InlinedCall { function: "f".into(), caller: 0, line: 3 }], of_pc: vec![0, 1, 1] },
                formats: vec!["x = %d, y = %.2f\n".into()],
            }],
        }
    }

    #[test]
    fn modules_round_trip() {
        let m = sample();
        assert_eq!(read_module(&write_module(&m)), Ok(m));
    }

    #[test]
    fn version_3_memory_words_load_with_32_bit_addresses() {
        let word = |inst: &Instruction| {
            let mut pool = PoolBuilder::default();
            (encode(inst, &mut pool), pool.into_values())
        };
        let mut atom = Instruction::new(Opcode::Atom);
        atom.form = Form::Atom(mods::Atom { space: AtomSpace::Shared, addr: AddrWidth::W32, op: AtomOp::Min, ty: AtomType::S32 });
        atom.operands[..3].copy_from_slice(&[Operand::Reg(1), Operand::Addr { base: 2, offset: 8 }, Operand::Src(Src::reg(3))]);
        let mut ld = Instruction::new(Opcode::Ld);
        ld.form = Form::Ld(mods::Ld { space: MemSpace::Local, addr: AddrWidth::W32, vec: VecWidth::V2, ty: MemType::B32 });
        ld.operands[..2].copy_from_slice(&[Operand::Reg(4), Operand::Addr { base: RZ, offset: 16 }]);
        for inst in [atom, ld] {
            let (v4, pool) = word(&inst);
            // Version 3 had the same word without the (zero) width index at bits 12..16.
            let v3 = (v4 & !(0xFFF << 12)) | (((v4 >> 16) & 0xFF) << 12);
            assert_ne!(v3, v4);
            assert_eq!(decode(upgrade_v3_word(v3), &pool), Ok(inst), "{}", inst.opcode());
        }
        let mut mov = Instruction::new(Opcode::Mov);
        mov.operands[..2].copy_from_slice(&[Operand::Reg(1), Operand::Src(Src::imm(7))]);
        let (w, _) = word(&mov);
        assert_eq!(upgrade_v3_word(w), w, "other words are the same in every version");
    }

    #[test]
    fn version_5_collectives_load_with_the_whole_warp_as_members() {
        for opcode in [Opcode::Redux, Opcode::Match] {
            let mut inst = Instruction::new(opcode);
            inst.operands[..3].copy_from_slice(&[Operand::Reg(1), Operand::Src(Src::reg(2)), Operand::Src(Src::reg(0))]);
            // Version 5's word ended at `a`: its zero bits after that read as a mask of `R0`.
            let mut pool = PoolBuilder::default();
            let v5 = encode(&inst, &mut pool);
            let mut loaded = decode(v5, &pool.into_values()).unwrap();
            upgrade_v5_instruction(&mut loaded);
            assert_eq!(loaded.operands[2], Operand::Src(Src::imm(u32::MAX)), "{opcode}");
            assert_eq!(loaded.operands[..2], inst.operands[..2]);
        }
    }

    #[test]
    fn version_6_barriers_load_as_barrier_0_for_every_thread() {
        let inst = Instruction::new(Opcode::BarSync);
        // Version 6's word ended after the guard: its zero bits read as `R0, R0`.
        let mut pool = PoolBuilder::default();
        let mut v6 = encode(&inst, &mut pool) & ((1 << 28) - 1);
        let mut loaded = decode(v6, &pool.into_values()).unwrap();
        assert_eq!(loaded.operands[..2], [Operand::Src(Src::reg(0)); 2]);
        upgrade_v6_instruction(&mut loaded);
        assert_eq!(loaded, inst);
        // Version 7 marks them absent, and a named barrier's registers load as registers.
        v6 = encode(&inst, &mut PoolBuilder::default());
        assert_eq!(decode(v6, &[]).unwrap(), inst);
        let mut named = inst;
        named.operands[..2].copy_from_slice(&[Operand::Src(Src::reg(0)), Operand::Src(Src::reg(1))]);
        assert_eq!(decode(encode(&named, &mut PoolBuilder::default()), &[]).unwrap(), named);
    }

    #[test]
    fn older_versions_load_with_the_default_target_and_no_frames() {
        let mut m = sample();
        let k = &mut m.kernels[0];
        (k.frames, k.formats) = (Frames::default(), Vec::new());
        k.code.remove(1);
        k.lines.remove(1);
        let mut v6 = write_module(&m);
        // Version 6 is version 7 (the sample has no `BAR.SYNC`), version 5 is version 6 (no
        // `REDUX` or `MATCH`); version 4 is version 5
        // without the formats after the inlined calls, and version 3 is version 4 (the sample
        // has no memory instruction); both counts are zero here.
        v6[4..6].copy_from_slice(&6u16.to_le_bytes());
        assert_eq!(read_module(&v6), Ok(m.clone()));
        let mut v5 = v6.clone();
        v5[4..6].copy_from_slice(&5u16.to_le_bytes());
        assert_eq!(read_module(&v5), Ok(m.clone()));
        assert_eq!(v6[v6.len() - 8..], [0; 8]);
        let mut v3 = v6[..v6.len() - 4].to_vec();
        for version in [4u16, 3] {
            v3[4..6].copy_from_slice(&version.to_le_bytes());
            assert_eq!(read_module(&v3), Ok(m.clone()), "version {version}");
        }
        // Version 2 is version 3 without the inlined calls after the labels.
        let mut v2 = v3[..v3.len() - 4].to_vec();
        v2[4..6].copy_from_slice(&2u16.to_le_bytes());
        assert_eq!(read_module(&v2), Ok(m.clone()));
        // Version 1 is version 2 without the target byte that follows each kernel's name.
        let at = 8 + (4 + m.source_name.len()) + 1 + (4 + 3) + 4 + (4 + m.kernels[0].name.len());
        assert_eq!(v2[at], Target::Sm75.code());
        let mut v1 = v2.clone();
        v1.remove(at);
        v1[4..6].copy_from_slice(&1u16.to_le_bytes());
        let loaded = read_module(&v1).unwrap();
        assert_eq!(loaded.kernels[0].target, Target::DEFAULT);
        assert_eq!(loaded.kernels[0].code, m.kernels[0].code);
        let mut future = v6.clone();
        future[4..6].copy_from_slice(&8u16.to_le_bytes());
        assert_eq!(
            read_module(&future).unwrap_err().to_string(),
            "bytecode version 8 is not supported (this simt reads versions 1 to 7); reassemble the source"
        );
        let mut bad_target = v2;
        bad_target[at] = 6;
        assert!(read_module(&bad_target).unwrap_err().to_string().contains("unknown target code 6"));
    }

    #[test]
    fn frames_nest_and_must_be_consistent() {
        let m = sample();
        let k = &m.kernels[0];
        assert_eq!((k.frame(0), k.frame(1), k.frame(9)), (0, 1, 0));
        assert_eq!(k.inlined_call(1).map(|c| c.function.as_str()), Some("f"));
        assert!(k.inlined_call(0).is_none() && k.inlined_call(2).is_none());
        assert!(k.frame_within(1, 0) && k.frame_within(1, 1) && k.frame_within(0, 0));
        assert!(!k.frame_within(0, 1));
        for (frames, message) in [
            (Frames { calls: vec![], of_pc: vec![0, 0] }, "frame table has 2 entries"),
            (Frames { calls: k.frames.calls.clone(), of_pc: vec![0] }, "frame table has 1 entries"),
            (Frames { calls: k.frames.calls.clone(), of_pc: vec![0, 2, 1] }, "is in frame 2"),
            (Frames { calls: vec![InlinedCall { function: "f".into(), caller: 1, line: 3 }], of_pc: vec![0, 1, 1] }, "not from an earlier one"),
        ] {
            let mut bad = k.clone();
            bad.frames = frames;
            let error = bad.validate().unwrap_err().to_string();
            assert!(error.contains(message), "{error}");
        }
    }

    #[test]
    fn printf_formats_must_match_their_instructions() {
        let k = &sample().kernels[0];
        let format = |index, used, pairs| Operand::Format { index, used, pairs };
        for (operand, formats, message) in [
            (format(1, 0b1101, true), vec!["x = %d, y = %.2f\n"], "names format 1, but the kernel has 1"),
            (format(0, 0b1111, true), vec!["x = %d, y = %.2f\n"], "says its format reads other argument words than format 0 does"),
            (format(0, 0b1101, true), vec!["%d %q"], "format 0 \"%d %q\": `%q` is not a conversion"),
        ] {
            let mut bad = k.clone();
            bad.code[1].operands[0] = operand;
            bad.formats = formats.into_iter().map(String::from).collect();
            let error = bad.validate().unwrap_err().to_string();
            assert!(error.contains(message), "{error}");
        }
    }

    #[test]
    fn new_element_types_round_trip_and_pack() {
        for elem in ElemType::ALL {
            let ty = ParamType::Ptr(elem);
            assert_eq!(ParamType::from_code(ty.code()), Some(ty));
            assert_eq!(ElemType::from_name(elem.name()), Some(elem));
        }
        assert_eq!(ParamType::from_code(0x10 + ElemType::ALL.len() as u8), None);
        assert_eq!(ElemType::E2M1.bytes_for(6), Some(3));
        assert_eq!(ElemType::S4.bytes_for(5), None);
        assert_eq!(ElemType::E4M3.bytes_for(5), Some(5));
        assert_eq!(ElemType::TF32.bytes_for(2), Some(8));
        assert_eq!(ElemType::U4.size(), 1);
        let mut m = sample();
        m.kernels[0].params[2].ty = ParamType::Ptr(ElemType::U4);
        assert_eq!(read_module(&write_module(&m)), Ok(m));
    }

    #[test]
    fn code_beyond_the_target_is_rejected() {
        let mut m = sample();
        let mut mma = Instruction::new(Opcode::Mma);
        mma.form = Form::Mma(crate::table::mods::Mma { acc: crate::table::MmaAcc::F32, input: crate::table::MmaIn::BF16 });
        mma.operands[..4].copy_from_slice(&[Operand::Reg(0), Operand::Src(Src::reg(8)), Operand::Src(Src::reg(12)), Operand::Src(Src::reg(0))]);
        m.kernels[0].code.insert(0, mma);
        m.kernels[0].lines.insert(0, 2);
        m.kernels[0].frames.of_pc.insert(0, 0);
        m.kernels[0].regs = 16;
        let err = read_module(&write_module(&m)).unwrap_err().to_string();
        assert_eq!(
            err,
            "corrupt bytecode: kernel `k`, pc 0: MMA.M16N16K16.F32.BF16 needs target sm_80 (Ampere) or later, but the kernel targets sm_75 (Turing)"
        );
        m.kernels[0].target = Target::Sm80;
        assert_eq!(read_module(&write_module(&m)), Ok(m));
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = write_module(&sample());
        for cut in 0..bytes.len() {
            assert!(read_module(&bytes[..cut]).is_err(), "truncated at {cut} loaded");
        }
    }

    #[test]
    fn every_single_byte_corruption_is_handled() {
        let bytes = write_module(&sample());
        for i in 0..bytes.len() {
            for flip in [0x01, 0x80, 0xFF] {
                let mut b = bytes.clone();
                b[i] ^= flip;
                // Either still valid or an error; never a panic.
                let _ = read_module(&b);
            }
        }
    }

    #[test]
    fn crafted_layouts_are_rejected_before_anything_is_allocated() {
        // Offsets near 2^32 once wrapped `offset + size` and made a 4 GiB PARAM space.
        for offset in [0xFFFF_FFFC, 0xFFFF_FFF0, 8] {
            let mut m = sample();
            m.kernels[0].params[0].offset = offset;
            let err = read_module(&write_module(&m)).unwrap_err().to_string();
            assert!(err.contains("but the layout puts it at 0"), "{err}");
        }
        let mut m = sample();
        m.kernels[0].shared_size = u32::MAX;
        assert!(read_module(&write_module(&m)).unwrap_err().to_string().contains("bytes of shared memory"));
        let mut m = sample();
        m.kernels[0].local_size = u32::MAX;
        assert!(read_module(&write_module(&m)).unwrap_err().to_string().contains("bytes of local memory"));
    }
}
