//! The host side of a launch: turning arguments into buffers and parameters, and buffers back into output.
//!
//! [`prepare`] checks a launch request against a kernel (dimensions, argument
//! names, every parameter present) and only then materialises the arguments:
//! scalars become PARAM bytes, pointer arguments become GLOBAL buffers named
//! after their parameter, so `memory.buffer("y")` finds `y` after the run.
//! [`write_text`], [`write_json`] and [`write_buffer_file`] turn a
//! buffer back into text, JSON or a file.
//!
//! Value conversions: integer literals must fit the element type; an integer
//! for a float type means that float; every narrowing to f16, bf16 or f32
//! rounds to nearest even; `0f`/`0d` bit patterns are taken exactly for f32 /
//! f64 (and `0f` for b32). `rand(N, SEED)` runs SplitMix64 from `SEED`, one
//! 64-bit draw per element: floats take the top bits as a uniform value in
//! [0, 1) with the type's precision (exactly representable, no rounding up to
//! 1), integers take the low bytes.
//!
//! The tensor-core types of contract section 9 (see [`lowp`]): `tf32`, `e4m3`,
//! `e5m2` and `e2m1` buffers take f32 data (a decimal is read as f32 first)
//! and store it converted with the `CVT` rules; `s4` and `u4` take integers;
//! the 4-bit types pack two elements a byte, the first in the low nibble.
//! Dumps convert back: f32 for the float types, integers for S4/U4.

#![warn(missing_docs)]

use std::path::{Path, PathBuf};

use half::{bf16, f16};
use rayon::prelude::*;
use simt_isa::tensormap::{Swizzle, TENSOR_MAP_BYTES, TensorElem, TensorMap};
use simt_isa::{
    ArgInit, ElemType, Kernel, Literal, MAX_BLOCK_THREADS, MAX_BUFFER_FILE_BYTES, MAX_TOTAL_BUFFER_BYTES as MAX_TOTAL_BYTES, Param, ParamType, TensorMapInit,
};

use simt_interp::launch::{LaunchError, check_shape};
use simt_interp::memory::{Buffer, GUARD_BYTES, GlobalMemory, MemoryError};
use simt_interp::{LaunchConfig, WordBytes};

use simt_io::lowp::{self, ConversionError, lowp_type};
use simt_io::npy::{self, Dtype};
use simt_io::{Element, FileError, elements, file_elements, is_npy_path, read_bounded, write_atomically};
use simt_tensor::formats::LowpType;

/// Where an argument came from; decides how a relative `@FILE` is resolved and how errors name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgOrigin {
    /// An `.arg` directive of the module; relative files are relative to `dir`, the module file's directory.
    Directive {
        /// The module file's directory.
        dir: PathBuf,
    },
    /// The command line (or a library caller); relative files are relative to the working directory.
    CommandLine,
}

impl ArgOrigin {
    /// The folder a relative `@FILE` is relative to.
    fn base(&self) -> &Path {
        match self {
            ArgOrigin::CommandLine => Path::new(""),
            ArgOrigin::Directive { dir } => dir.as_path(),
        }
    }
}

/// One argument of a launch request.
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    /// Parameter name.
    pub name: String,
    /// Value.
    pub init: ArgInit,
    /// Where it came from.
    pub origin: ArgOrigin,
}

impl Arg {
    /// An argument given by the caller (command line or library).
    pub fn new(name: impl Into<String>, init: ArgInit) -> Arg {
        Arg { name: name.into(), init, origin: ArgOrigin::CommandLine }
    }
}

/// What the caller asks for; anything left out comes from the kernel's `.launch` and `.arg`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaunchRequest {
    /// Overrides `.launch`'s grid.
    pub grid: Option<[u32; 3]>,
    /// Overrides `.launch`'s block.
    pub block: Option<[u32; 3]>,
    /// Overrides `.arg` defaults, by name; a later entry for the same name wins.
    pub args: Vec<Arg>,
    /// The directory `.arg` files are relative to (the module file's), `None` for the working directory.
    pub module_dir: Option<PathBuf>,
}

/// A launch ready to [`run`](simt_interp::run): configuration, memory and which parameter owns which buffer.
#[derive(Debug)]
pub struct PreparedLaunch {
    /// Grid, block and PARAM bytes.
    pub config: LaunchConfig,
    /// The buffers, one per pointer parameter, named after it.
    pub memory: GlobalMemory,
    /// Pointer parameters and their element types, in parameter order.
    pub buffers: Vec<(String, ElemType)>,
}

impl PreparedLaunch {
    /// The element type and current bytes of the buffer of pointer parameter `name`.
    pub fn buffer(&self, name: &str) -> Option<(ElemType, Vec<u8>)> {
        let (elem, buffer) = self.buffer_of(name)?;
        Some((elem, buffer.bytes()))
    }

    /// The element type and the buffer of pointer parameter `name`, without copying it.
    pub fn buffer_of(&self, name: &str) -> Option<(ElemType, &Buffer)> {
        let elem = self.buffers.iter().find(|(n, _)| n == name)?.1;
        Some((elem, self.memory.buffer(name)?))
    }
}

/// Encountered when a launch request cannot be turned into a launch; nothing has run.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// Neither `.launch` nor the request gives a grid or block.
    #[error("kernel `{kernel}` has no `.launch` directive and no {what} was given")]
    NoLaunch {
        /// Kernel name.
        kernel: String,
        /// `grid`, `block`, or `grid or block`.
        what: &'static str,
    },
    /// A zero extent or too many threads per block.
    #[error("invalid {what} {}: {reason}", dims_text(*.dims))]
    BadDims {
        /// `grid` or `block`.
        what: &'static str,
        /// The extents.
        dims: [u32; 3],
        /// What is wrong.
        reason: String,
    },
    /// Arguments no parameter takes.
    #[error("kernel `{kernel}` has no parameter `{name}`{}; its parameters are: {params}", .suggestion.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default())]
    UnknownArg {
        /// Kernel name.
        kernel: String,
        /// The name given.
        name: String,
        /// The closest parameter name, if one is close.
        suggestion: Option<String>,
        /// Every parameter, as `.param` declarations.
        params: String,
    },
    /// Parameters without a value.
    #[error("missing {} for kernel `{kernel}`:{}", if .missing.len() == 1 { "argument" } else { "arguments" }, .missing.iter().map(|m| format!("\n  {}", m.declaration)).collect::<String>())]
    MissingArgs {
        /// Kernel name.
        kernel: String,
        /// Each parameter without a value.
        missing: Vec<MissingArg>,
    },
    /// A value that does not suit its parameter.
    #[error("argument `{name}`{} for `.param .{ty} {name}`: {problem}", if *.from_directive { " (from `.arg`)" } else { "" })]
    BadArg {
        /// Parameter name.
        name: String,
        /// Parameter type.
        ty: String,
        /// Whether the value is the module's `.arg` default rather than the caller's.
        from_directive: bool,
        /// What is wrong.
        problem: ValueError,
    },
    /// The buffers do not fit GLOBAL memory.
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// The kernel cannot be launched with this shape (see [`check_shape`]).
    #[error("cannot launch: {0}")]
    Launch(#[from] LaunchError),
}

/// A parameter a launch gave no value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingArg {
    /// Its declaration, `.param .ptr.f32 y`.
    pub declaration: String,
    /// Its name.
    pub name: String,
    /// A value it could take, in the argument syntax (`zeros(1024)`, `2.5`).
    pub example: &'static str,
}

/// How a front end's users give a launch what it lacks: errors that say what to do say
/// it in their words (`--arg 'y=zeros(8)'` on the command line, `args={"y": ...}` in Python).
pub trait Spelling {
    /// A grid and block given with the launch.
    fn shape(&self) -> String;
    /// Argument `name` given the value `value` (in the argument syntax).
    fn argument(&self, name: &str, value: &str) -> String;
    /// How a caller's arguments are given (the origin of a bad one).
    fn given(&self) -> String;
}

impl HostError {
    /// The error, with what to do said as `spelling`'s users do it.
    pub fn explain(&self, spelling: &dyn Spelling) -> String {
        match self {
            HostError::NoLaunch { .. } => format!("{self}: pass e.g. {}", spelling.shape()),
            HostError::MissingArgs { kernel, missing } => {
                let mut text = format!("missing {} for kernel `{kernel}`:", if missing.len() == 1 { "argument" } else { "arguments" });
                for m in missing {
                    text.push_str(&format!("\n  {:<24} pass e.g. {}", m.declaration, spelling.argument(&m.name, m.example)));
                }
                text
            }
            HostError::BadArg { name, ty, from_directive: false, problem } => {
                format!("argument `{name}` ({}) for `.param .{ty} {name}`: {problem}", spelling.given())
            }
            other => other.to_string(),
        }
    }
}

fn dims_text(d: [u32; 3]) -> String {
    format!("({}, {}, {})", d[0], d[1], d[2])
}

/// Checks `request` against `kernel` and materialises every argument.
///
/// Checks run before any file is read: dimensions, unknown names, missing
/// parameters; then arguments are materialised in parameter order.
///
/// # Errors
/// See [`HostError`].
pub fn prepare(kernel: &Kernel, request: &LaunchRequest) -> Result<PreparedLaunch, HostError> {
    let (grid, block) = launch_dims(kernel, request)?;
    // Every limit that depends on the kernel and the shape only (grid extents, shared and
    // local memory) is checked before any buffer exists.
    check_shape(kernel, grid, block)?;
    for arg in &request.args {
        if kernel.param(&arg.name).is_none() {
            return Err(HostError::unknown_param(kernel, &arg.name));
        }
    }
    let module_dir = request.module_dir.clone().unwrap_or_default();
    let defaults = kernel.args.iter().map(|a| Arg { name: a.name.clone(), init: a.init.clone(), origin: ArgOrigin::Directive { dir: module_dir.clone() } });
    let all: Vec<Arg> = defaults.chain(request.args.iter().cloned()).collect();
    let chosen: Vec<Option<&Arg>> = kernel.params.iter().map(|p| all.iter().rev().find(|a| a.name == p.name)).collect();
    let missing: Vec<MissingArg> = kernel
        .params
        .iter()
        .zip(&chosen)
        .filter(|(_, a)| a.is_none())
        .map(|(p, _)| MissingArg { declaration: format!(".param .{} {}", p.ty.name(), p.name), name: p.name.clone(), example: example_value(p.ty) })
        .collect();
    if !missing.is_empty() {
        return Err(HostError::MissingArgs { kernel: kernel.name.clone(), missing });
    }

    // The sizes of all buffers are known before any is made: check their sum first, so
    // that no request allocates more than GLOBAL memory holds.
    // A file whose size is not known up front (a pipe, a device) is read now, bounded
    // by what is left of the budget, and counts with its real size.
    let mut planned = 0u64;
    let mut preread: Vec<Option<Vec<u8>>> = vec![None; kernel.params.len()];
    for (i, (param, arg)) in kernel.params.iter().zip(&chosen).enumerate() {
        let Some((elem, arg)) = arg.and_then(|a| Some((param.ty.buffer_for(&a.init)?, a))) else { continue };
        let base = arg.origin.base();
        let bytes = match &arg.init {
            ArgInit::File(name) if !std::fs::metadata(base.join(name)).is_ok_and(|m| m.is_file()) => {
                // The room a buffer file has beyond GLOBAL memory is its `.npy` header's.
                let limit = MAX_BUFFER_FILE_BYTES - planned.min(MAX_TOTAL_BYTES);
                let data = read_bounded(&base.join(name), limit).map_err(|e| HostError::bad_arg(param, arg, FileError::from(e)))?;
                let len = data.len() as u64;
                preread[i] = Some(data);
                len
            }
            init => planned_bytes(elem, init, base),
        };
        planned = planned.saturating_add(bytes.next_multiple_of(256)).saturating_add(u64::from(GUARD_BYTES));
        if planned > MAX_TOTAL_BYTES {
            return Err(HostError::Memory(MemoryError::TooLarge { name: param.name.clone(), bytes }));
        }
    }

    let mut params = vec![0u8; kernel.param_size() as usize];
    let mut memory = GlobalMemory::new();
    let mut buffers = Vec::new();
    for ((param, arg), preread) in kernel.params.iter().zip(chosen).zip(preread).filter_map(|((p, a), r)| Some(((p, a?), r))) {
        let bad = |problem: ValueError| HostError::bad_arg(param, arg, problem);
        let bytes = match (&arg.init, param.ty.buffer_for(&arg.init)) {
            (ArgInit::TensorMap(map), _) => {
                if !matches!(param.ty, ParamType::Raw(_) | ParamType::U64) {
                    return Err(bad(ValueError::TensorMapParam));
                }
                let base = arg.origin.base();
                let (elem, shape, data) = tensor_contents(map, base).map_err(bad)?;
                let tensor_type = tensor_elem(elem).map_err(bad)?;
                let swizzle =
                    Swizzle::of_bytes(map.swizzle).ok_or_else(|| bad(ValueError::TensorMap(format!("swizzle={} is not 0, 32, 64 or 128", map.swizzle))))?;
                buffers.push((param.name.clone(), elem));
                let tensor = memory.alloc(&param.name, data)?;
                let described = TensorMap::dense(u64::from(tensor), tensor_type, &shape, &map.boxes, map.element_strides.as_deref(), swizzle)
                    .map_err(|e| bad(ValueError::TensorMap(e.to_string())))?;
                let address = memory.alloc(&format!("{}.map", param.name), WordBytes::from_bytes(&described.encode()))?;
                address_bytes(param.ty, address)
            }
            (ArgInit::Pointers(pointers), _) => {
                if !matches!(param.ty, ParamType::Raw(_) | ParamType::U64) {
                    return Err(bad(ValueError::PointersParam));
                }
                let base = arg.origin.base();
                // Untyped, a buffer is words, as a `.u64` given one is; files bring their own dtype.
                let (elem, literal_elem) = pointers.elem.map_or((ElemType::U32, ElemType::B32), |e| (e, e));
                let mut table = Vec::with_capacity(8 * pointers.buffers.len());
                for (index, pointee) in pointers.buffers.iter().enumerate() {
                    let (elem, data) = buffer_contents(elem, literal_elem, pointers.elem.is_none(), pointee, base, None)
                        .map_err(|problem| bad(ValueError::Pointee { index, problem: Box::new(problem) }))?;
                    let name = format!("{}.{index}", param.name);
                    table.extend_from_slice(&u64::from(memory.alloc(&name, data)?).to_le_bytes());
                    buffers.push((name, elem));
                }
                buffers.push((param.name.clone(), ElemType::U64));
                let address = memory.alloc(&param.name, WordBytes::from_bytes(&table))?;
                address_bytes(param.ty, address)
            }
            (_, buffer) => match buffer {
                Some(elem) => {
                    let base = arg.origin.base();
                    let literal_elem = param.ty.literal_elem(&arg.init).unwrap_or(elem);
                    let (elem, data) = buffer_contents(elem, literal_elem, param.ty.takes_any_dtype(), &arg.init, base, preread).map_err(bad)?;
                    buffers.push((param.name.clone(), elem));
                    let address = memory.alloc(&param.name, data)?;
                    address_bytes(param.ty, address)
                }
                None => match &arg.init {
                    ArgInit::Scalar(lit) => scalar_bytes(param.ty, *lit).map_err(bad)?,
                    other => return Err(bad(ValueError::NeedsLiteral { example: example_value(param.ty), given: other.clone() })),
                },
            },
        };
        params[param.offset as usize..][..bytes.len()].copy_from_slice(&bytes);
    }
    Ok(PreparedLaunch { config: LaunchConfig { grid, block, params }, memory, buffers })
}

fn launch_dims(kernel: &Kernel, request: &LaunchRequest) -> Result<([u32; 3], [u32; 3]), HostError> {
    let grid = request.grid.or(kernel.launch.map(|l| l.grid));
    let block = request.block.or(kernel.launch.map(|l| l.block));
    let (grid, block) = match (grid, block) {
        (Some(g), Some(b)) => (g, b),
        (g, b) => {
            let what = match (g, b) {
                (None, None) => "grid or block",
                (None, _) => "grid",
                _ => "block",
            };
            return Err(HostError::NoLaunch { kernel: kernel.name.clone(), what });
        }
    };
    for (what, dims) in [("grid", grid), ("block", block)] {
        if dims.contains(&0) {
            return Err(HostError::BadDims { what, dims, reason: "every extent must be at least 1".into() });
        }
    }
    let threads: u64 = block.iter().map(|&d| u64::from(d)).product();
    if threads > MAX_BLOCK_THREADS {
        let reason = format!("{threads} threads per block, more than the {MAX_BLOCK_THREADS} allowed");
        return Err(HostError::BadDims { what: "block", dims: block, reason });
    }
    Ok((grid, block))
}

impl HostError {
    fn bad_arg(param: &Param, arg: &Arg, problem: impl Into<ValueError>) -> HostError {
        let from_directive = matches!(arg.origin, ArgOrigin::Directive { .. });
        HostError::BadArg { name: param.name.clone(), ty: param.ty.name(), from_directive, problem: problem.into() }
    }

    /// The error for a name that is not a parameter of `kernel`, suggesting the closest one.
    pub fn unknown_param(kernel: &Kernel, name: &str) -> HostError {
        let suggestion = kernel
            .params
            .iter()
            .map(|p| (edit_distance(&p.name, name), &p.name))
            .filter(|&(d, p)| d <= 2.max(p.len() / 3) && d < p.len().max(name.len()))
            .min()
            .map(|(_, p)| p.clone());
        let params = kernel.params.iter().map(|p| format!(".{} {}", p.ty.name(), p.name)).collect::<Vec<_>>().join(", ");
        HostError::UnknownArg { kernel: kernel.name.clone(), name: name.into(), suggestion, params }
    }
}

/// What to say when a launch passes `passed` arguments in order to `kernel`, which takes a
/// different number: every parameter, as `.param` declarations.
pub fn argument_count_message(kernel: &Kernel, passed: usize) -> String {
    let params: Vec<String> = kernel.params.iter().map(|p| format!(".param .{} {}", p.ty.name(), p.name)).collect();
    format!("kernel `{}` takes {} arguments ({}), but {passed} were passed", kernel.name, kernel.params.len(), params.join(", "))
}

/// Levenshtein distance; parameter names are short, so the quadratic table is fine.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb)).min(row[j] + 1).min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// Why a value cannot become its parameter's bytes.
#[derive(Debug, thiserror::Error)]
pub enum ValueError {
    /// A buffer form for a scalar parameter.
    #[error("a scalar takes a literal such as `{example}`, not `{given}`")]
    NeedsLiteral {
        /// A value the parameter would take.
        example: &'static str,
        /// The buffer form given.
        given: ArgInit,
    },
    /// A scalar for a pointer parameter.
    #[error("a pointer parameter needs a buffer, e.g. `fill(1024, {0})` or `[{0}]`, not the scalar `{0}`")]
    NeedsBuffer(Literal),
    /// An integer beyond 32 bits for a pointer parameter.
    #[error("{0} is no 32-bit GLOBAL address")]
    NotAnAddress(i64),
    /// A float for a pointer parameter.
    #[error("a pointer takes a buffer or an integer address, not `{0}`")]
    FloatForPointer(Literal),
    /// A float for a `.u64` parameter.
    #[error("a .u64 takes an integer, not `{0}`")]
    FloatForU64(Literal),
    /// An integer outside the element type.
    #[error("{value} does not fit {elem} ({lo} ..= {hi})")]
    OutOfRange {
        /// The value.
        value: i64,
        /// The element type.
        elem: ElemType,
        /// Its smallest value.
        lo: i64,
        /// Its largest value.
        hi: i64,
    },
    /// A float for an integer element type.
    #[error("{elem} takes integers, not the float `{lit}`")]
    FloatForInteger {
        /// The element type.
        elem: ElemType,
        /// The value.
        lit: Literal,
    },
    /// A finite decimal that rounds to infinity in the element type.
    #[error("`{lit}` is too large for {elem} (at most {max}): write inf for infinity")]
    TooLarge {
        /// The value.
        lit: Literal,
        /// The element type.
        elem: ElemType,
        /// The type's largest finite value, written out.
        max: String,
    },
    /// A value a section 9 type cannot hold.
    #[error(transparent)]
    Conversion(#[from] ConversionError),
    /// More elements than GLOBAL memory holds.
    #[error("{count} elements of {elem} exceed the {} bytes of GLOBAL memory", MAX_TOTAL_BYTES)]
    TooMany {
        /// The elements asked for.
        count: u64,
        /// The element type.
        elem: ElemType,
    },
    /// An odd number of packed 4-bit elements.
    #[error("{count} elements of {elem} do not fill whole bytes: {elem} packs two elements a byte, so give an even number of elements")]
    OddCount {
        /// The elements asked for.
        count: u64,
        /// The element type.
        elem: ElemType,
    },
    /// `iota(N)`'s last value does not fit.
    #[error("iota({count}): {problem}")]
    Iota {
        /// The elements asked for.
        count: u64,
        /// Why the last one does not fit.
        problem: Box<ValueError>,
    },
    /// A list element does not fit.
    #[error("element {index}: {problem}")]
    Element {
        /// Its index.
        index: usize,
        /// Why it does not fit.
        problem: Box<ValueError>,
    },
    /// A buffer file that cannot become the buffer.
    #[error(transparent)]
    File(#[from] FileError),
    /// A tensor map (`tensormap(...)`) that cannot be made: why, in words.
    #[error("tensormap: {0}")]
    TensorMap(String),
    /// A tensor map for a parameter that cannot take one.
    #[error("a tensor map goes to a parameter passed by value as bytes (PTX `.param .b8 p[128]`, a .raw parameter)")]
    TensorMapParam,
    /// `pointers(...)` for a parameter that cannot take one, or inside another value.
    #[error("pointers(...) goes to a pointer parameter (.raw, as PTX pointers are, or .u64) and holds buffers, not tensor maps or more pointers")]
    PointersParam,
    /// A buffer of `pointers(...)` that cannot be made.
    #[error("buffer {index} of pointers(...): {problem}")]
    Pointee {
        /// Its index in the table.
        index: usize,
        /// Why it cannot be made.
        problem: Box<ValueError>,
    },
}

impl ValueError {
    fn iota(count: u64, problem: ValueError) -> ValueError {
        ValueError::Iota { count, problem: Box::new(problem) }
    }
}

/// A scalar parameter's bytes. A `.u64` takes any 64-bit integer (a negative one as its two's
/// complement bits); there is no 64-bit integer element type, so it is written here.
pub fn scalar_bytes(ty: ParamType, lit: Literal) -> Result<Vec<u8>, ValueError> {
    let elem = match ty {
        ParamType::U32 => ElemType::U32,
        ParamType::S32 => ElemType::S32,
        ParamType::F32 => ElemType::F32,
        ParamType::F64 => ElemType::F64,
        ParamType::Ptr(e) => e,
        // A pointer given an address: 32 bits, as `simt_asm::check_arg` checked.
        ParamType::Raw(_) => {
            return match lit {
                Literal::Int(v) => u32::try_from(v).map(|v| v.to_le_bytes().to_vec()).map_err(|_| ValueError::NotAnAddress(v)),
                other => Err(ValueError::FloatForPointer(other)),
            };
        }
        ParamType::U64 => {
            return match lit {
                Literal::Int(v) => Ok(v.to_le_bytes().to_vec()),
                other => Err(ValueError::FloatForU64(other)),
            };
        }
    };
    literal_bytes(elem, lit)
}

/// A value a parameter of type `ty` could take, in the argument syntax.
pub fn example_value(ty: ParamType) -> &'static str {
    match ty {
        ParamType::U32 => "1024",
        ParamType::U64 => "0",
        ParamType::S32 => "-1",
        ParamType::F32 | ParamType::F64 => "2.5",
        ParamType::Ptr(_) | ParamType::Raw(_) => "zeros(1024)",
    }
}

/// Encodes one literal as an element of `elem`, little-endian.
///
/// # Errors
/// A float for an integer type, an integer out of range, or a bit pattern of the wrong width.
pub fn literal_bytes(elem: ElemType, lit: Literal) -> Result<Vec<u8>, ValueError> {
    let mut out = vec![0; elem.size() as usize];
    write_literal(elem, lit, &mut out)?;
    Ok(out)
}

/// Writes one literal as an element of `elem` into `out` (exactly its size).
#[inline]
fn write_literal(elem: ElemType, lit: Literal, out: &mut [u8]) -> Result<(), ValueError> {
    use ElemType::*;
    let int_range = |value: i64, lo: i64, hi: i64| {
        if (lo..=hi).contains(&value) { Ok(value) } else { Err(ValueError::OutOfRange { value, elem, lo, hi }) }
    };
    let value = match lit {
        Literal::Int(v) => v as f64,
        Literal::Float(v) => v,
        Literal::F32Bits(b) => f64::from(f32::from_bits(b)),
        Literal::F64Bits(b) => f64::from_bits(b),
    };
    // A finite decimal too large for a float type is a mistake, as it is in an instruction;
    // `inf` says infinity on purpose.
    if let (Literal::Float(v), None) = (lit, lowp_type(elem)) {
        let max = match elem {
            F16 => f16::MAX.to_string(),
            BF16 => format!("{:e}", f32::from(bf16::MAX)),
            _ => format!("{:e}", f32::MAX),
        };
        let rounded = match elem {
            F16 => f64::from(f16::from_f64(v)),
            BF16 => f64::from(bf16::from_f64(v)),
            F32 => f64::from(v as f32),
            _ => v,
        };
        if v.is_finite() && rounded.is_infinite() {
            return Err(ValueError::TooLarge { lit, elem, max });
        }
    }
    if let Some(ty) = lowp_type(elem) {
        let code = lowp::code(ty, lit)?;
        out.copy_from_slice(&code.to_le_bytes()[..out.len()]);
        return Ok(());
    }
    match (elem, lit) {
        (F32 | B32, Literal::F32Bits(b)) => out.copy_from_slice(&b.to_le_bytes()),
        (F64, Literal::F64Bits(b)) => out.copy_from_slice(&b.to_le_bytes()),
        (U8, Literal::Int(v)) => out[0] = int_range(v, 0, 255)? as u8,
        (S8, Literal::Int(v)) => out[0] = int_range(v, -128, 127)? as u8,
        (U16, Literal::Int(v)) => out.copy_from_slice(&(int_range(v, 0, 65535)? as u16).to_le_bytes()),
        (S16, Literal::Int(v)) => out.copy_from_slice(&(int_range(v, -32768, 32767)? as u16).to_le_bytes()),
        (U32, Literal::Int(v)) => out.copy_from_slice(&(int_range(v, 0, u32::MAX.into())? as u32).to_le_bytes()),
        (S32, Literal::Int(v)) => out.copy_from_slice(&(int_range(v, i32::MIN.into(), i32::MAX.into())? as u32).to_le_bytes()),
        // b32 is untyped: a negative integer means its two's complement bits.
        (B32, Literal::Int(v)) => out.copy_from_slice(&(int_range(v, i32::MIN.into(), u32::MAX.into())? as u32).to_le_bytes()),
        (S64, Literal::Int(v)) => out.copy_from_slice(&v.to_le_bytes()),
        // A literal is an i64: a u64 element takes the values it can spell.
        (U64, Literal::Int(v)) => out.copy_from_slice(&int_range(v, 0, i64::MAX)?.to_le_bytes()),
        (Bool, Literal::Int(v)) => out[0] = int_range(v, 0, 1)? as u8,
        (U8 | S8 | U16 | S16 | U32 | S32 | B32 | S64 | U64 | Bool, _) => {
            return Err(ValueError::FloatForInteger { elem, lit });
        }
        (F16, _) => out.copy_from_slice(&f16::from_f64(value).to_bits().to_le_bytes()),
        (BF16, _) => out.copy_from_slice(&bf16::from_f64(value).to_bits().to_le_bytes()),
        (F32, Literal::Int(v)) => out.copy_from_slice(&(v as f32).to_le_bytes()),
        (F32, _) => out.copy_from_slice(&(value as f32).to_le_bytes()),
        (F64, Literal::Int(v)) => out.copy_from_slice(&(v as f64).to_le_bytes()),
        (F64, _) => out.copy_from_slice(&value.to_le_bytes()),
        (TF32 | E4M3 | E5M2 | E2M1 | S4 | U4, _) => unreachable!("section 9 types are encoded above"),
    }
    Ok(())
}

/// The contents of a buffer of `elem` initialised by `init`; a relative `@FILE` is taken relative to `base`.
///
/// # Errors
/// A scalar where a buffer is needed, a value that does not suit `elem`, an
/// unreadable or ill-typed file, or a buffer larger than GLOBAL memory.
pub fn buffer_bytes(elem: ElemType, init: &ArgInit, base: &Path) -> Result<WordBytes, ValueError> {
    if let Some(ty) = lowp_type(elem) {
        return lowp_buffer(elem, ty, init, base);
    }
    let size = u64::from(elem.size());
    let count = |count: u64| match count.checked_mul(size) {
        Some(bytes) if bytes <= MAX_TOTAL_BYTES => Ok(bytes as usize),
        _ => Err(ValueError::TooMany { count, elem }),
    };
    Ok(match init {
        ArgInit::Scalar(lit) => return Err(ValueError::NeedsBuffer(*lit)),
        ArgInit::TensorMap(_) => return Err(ValueError::TensorMapParam),
        ArgInit::Pointers(_) => return Err(ValueError::PointersParam),
        ArgInit::Zeros(n) => WordBytes::zeroed(count(*n)?),
        ArgInit::Fill(n, lit) => {
            let bytes = count(*n)?;
            let v = literal_bytes(elem, *lit)?;
            match v.len() {
                1 => generate::<1>(bytes, |_| [v[0]]),
                2 => generate::<2>(bytes, |_| [v[0], v[1]]),
                4 => generate::<4>(bytes, |_| [v[0], v[1], v[2], v[3]]),
                _ => generate::<8>(bytes, |_| v[..8].try_into().expect("8 bytes")),
            }
        }
        ArgInit::Iota(n) => {
            // Values only grow, so the last one is the only one that may not fit.
            if let Some(last) = n.checked_sub(1) {
                literal_bytes(elem, Literal::Int(last as i64)).map_err(|e| ValueError::iota(*n, e))?;
            }
            // Each arm converts as `write_literal` converts an integer literal.
            let bytes = count(*n)?;
            match elem {
                ElemType::U8 | ElemType::S8 | ElemType::Bool => generate::<1>(bytes, |i| [i as u8]),
                ElemType::U16 | ElemType::S16 => generate::<2>(bytes, |i| (i as u16).to_le_bytes()),
                ElemType::U64 | ElemType::S64 => generate::<8>(bytes, |i| i.to_le_bytes()),
                ElemType::U32 | ElemType::S32 | ElemType::B32 => generate::<4>(bytes, |i| (i as u32).to_le_bytes()),
                ElemType::F16 => generate::<2>(bytes, |i| f16::from_f64(i as f64).to_bits().to_le_bytes()),
                ElemType::BF16 => generate::<2>(bytes, |i| bf16::from_f64(i as f64).to_bits().to_le_bytes()),
                ElemType::F32 => generate::<4>(bytes, |i| (i as f32).to_le_bytes()),
                ElemType::F64 => generate::<8>(bytes, |i| (i as f64).to_le_bytes()),
                ElemType::TF32 | ElemType::E4M3 | ElemType::E5M2 | ElemType::E2M1 | ElemType::S4 | ElemType::U4 => {
                    unreachable!("section 9 types are built by lowp_buffer")
                }
            }
        }
        ArgInit::Rand(n, seed) => {
            let bytes = count(*n)?;
            let draw = |p: u32, i: u64| top_bits(splitmix64(*seed, i), p);
            match elem {
                ElemType::F16 => generate::<2>(bytes, |i| f16::from_f64(draw(11, i)).to_bits().to_le_bytes()),
                ElemType::BF16 => generate::<2>(bytes, |i| bf16::from_f64(draw(8, i)).to_bits().to_le_bytes()),
                ElemType::F32 => generate::<4>(bytes, |i| (draw(24, i) as f32).to_le_bytes()),
                ElemType::F64 => generate::<8>(bytes, |i| draw(53, i).to_le_bytes()),
                ElemType::U8 | ElemType::S8 => generate::<1>(bytes, |i| [splitmix64(*seed, i) as u8]),
                ElemType::Bool => generate::<1>(bytes, |i| [splitmix64(*seed, i) as u8 & 1]),
                ElemType::U64 | ElemType::S64 => generate::<8>(bytes, |i| splitmix64(*seed, i).to_le_bytes()),
                ElemType::U16 | ElemType::S16 => generate::<2>(bytes, |i| (splitmix64(*seed, i) as u16).to_le_bytes()),
                ElemType::U32 | ElemType::S32 | ElemType::B32 => generate::<4>(bytes, |i| (splitmix64(*seed, i) as u32).to_le_bytes()),
                ElemType::TF32 | ElemType::E4M3 | ElemType::E5M2 | ElemType::E2M1 | ElemType::S4 | ElemType::U4 => {
                    unreachable!("section 9 types are built by lowp_buffer")
                }
            }
        }
        ArgInit::List(values) => {
            let mut out = WordBytes::zeroed(count(values.len() as u64)?);
            for (i, (v, e)) in values.iter().zip(out.as_bytes_mut().chunks_exact_mut(size as usize)).enumerate() {
                write_literal(elem, *v, e).map_err(|e| ValueError::Element { index: i, problem: Box::new(e) })?;
            }
            out
        }
        ArgInit::File(name) => WordBytes::from_bytes(&read_buffer_file(elem, &base.join(name))?),
    })
}

/// The bytes of a parameter that holds a buffer's `address`: all 64 bits for a `.u64`, the
/// 32-bit GLOBAL address for a pointer.
fn address_bytes(ty: ParamType, address: u32) -> Vec<u8> {
    if ty == ParamType::U64 { u64::from(address).to_le_bytes().to_vec() } else { address.to_le_bytes().to_vec() }
}

/// A buffer's element type and contents: a file's (read now unless `preread`), whose dtype is
/// the buffer's where `any_dtype` (else it must be `elem`'s), or generated values written as
/// `literal_elem`s.
fn buffer_contents(
    elem: ElemType,
    literal_elem: ElemType,
    any_dtype: bool,
    init: &ArgInit,
    base: &Path,
    preread: Option<Vec<u8>>,
) -> Result<(ElemType, WordBytes), ValueError> {
    let ArgInit::File(name) = init else { return Ok((elem, buffer_bytes(literal_elem, init, base)?)) };
    let path = base.join(name);
    let bytes = preread.map_or_else(|| read_bounded(&path, MAX_BUFFER_FILE_BYTES), Ok).map_err(FileError::from)?;
    let (file_elem, data) = file_elements(elem, any_dtype, &path, bytes)?;
    Ok((file_elem, WordBytes::from_bytes(&data)))
}

/// A buffer of one of the section 9 types (see [`lowp`]), packed two a byte for 4-bit types.
fn lowp_buffer(elem: ElemType, ty: LowpType, init: &ArgInit, base: &Path) -> Result<WordBytes, ValueError> {
    let bytes = |count: u64| {
        if elem.is_packed() && count % 2 == 1 {
            return Err(ValueError::OddCount { count, elem });
        }
        match elem.bytes_for(count) {
            Some(bytes) if bytes <= MAX_TOTAL_BYTES => Ok(bytes as usize),
            _ => Err(ValueError::TooMany { count, elem }),
        }
    };
    Ok(match init {
        ArgInit::Scalar(lit) => return Err(ValueError::NeedsBuffer(*lit)),
        ArgInit::TensorMap(_) => return Err(ValueError::TensorMapParam),
        ArgInit::Pointers(_) => return Err(ValueError::PointersParam),
        ArgInit::Zeros(n) => WordBytes::zeroed(bytes(*n)?),
        ArgInit::Fill(n, lit) => {
            let code = lowp::code(ty, *lit)?;
            lowp_generate(ty, bytes(*n)?, |_| code)
        }
        ArgInit::Iota(n) => {
            // Values only grow, so the last one is the only one that may not fit an integer type.
            if let Some(last) = n.checked_sub(1) {
                lowp::code(ty, Literal::Int(last as i64)).map_err(|e| ValueError::iota(*n, e.into()))?;
            }
            lowp_generate(ty, bytes(*n)?, |i| lowp::iota_code(ty, i))
        }
        ArgInit::Rand(n, seed) => lowp_generate(ty, bytes(*n)?, |i| lowp::rand_code(ty, splitmix64(*seed, i))),
        ArgInit::List(values) => {
            bytes(values.len() as u64)?;
            WordBytes::from_bytes(&lowp::list(ty, values)?)
        }
        ArgInit::File(name) => WordBytes::from_bytes(&read_buffer_file(elem, &base.join(name))?),
    })
}

/// A buffer of `bytes` bytes of `ty` elements, element `i` having code `code(i)`,
/// filled on every core.
fn lowp_generate(ty: LowpType, bytes: usize, code: impl Fn(u64) -> u32 + Sync) -> WordBytes {
    match ty.bits() {
        4 => generate::<1>(bytes, |b| [(code(2 * b) | code(2 * b + 1) << 4) as u8]),
        8 => generate::<1>(bytes, |i| [code(i) as u8]),
        _ => generate::<4>(bytes, |i| code(i).to_le_bytes()),
    }
}

/// The bytes `init` will need for a buffer of `elem`, without making it (a file's size for `@FILE`).
fn planned_bytes(elem: ElemType, init: &ArgInit, base: &Path) -> u64 {
    let bytes = |n: u64| n.saturating_mul(u64::from(elem.bits())) / 8;
    match init {
        ArgInit::Scalar(_) => 0,
        ArgInit::Zeros(n) | ArgInit::Fill(n, _) | ArgInit::Iota(n) | ArgInit::Rand(n, _) => bytes(*n),
        ArgInit::List(values) => bytes(values.len() as u64),
        ArgInit::File(name) => std::fs::metadata(base.join(name)).map_or(0, |m| if m.is_file() { m.len() } else { 0 }),
        ArgInit::TensorMap(map) => planned_bytes(map.elem.unwrap_or(elem), &map.tensor, base) + TENSOR_MAP_BYTES as u64,
        // Each buffer is allocated as a parameter's is; the table is what the caller counts.
        ArgInit::Pointers(pointers) => pointers.buffers.iter().fold(8 * pointers.buffers.len() as u64, |sum, b| {
            let bytes = planned_bytes(pointers.elem.unwrap_or(ElemType::U32), b, base);
            sum.saturating_add(bytes.next_multiple_of(256)).saturating_add(u64::from(GUARD_BYTES))
        }),
    }
}

/// The tensor of `tensormap(...)`: its element type, shape (outermost first) and bytes.
fn tensor_contents(map: &TensorMapInit, base: &Path) -> Result<(ElemType, Vec<u64>, WordBytes), ValueError> {
    let wrong = |why: String| ValueError::TensorMap(why);
    let (elem, shape, data) = match &map.tensor {
        ArgInit::File(name) if is_npy_path(Path::new(name)) => {
            let array = simt_io::read_npy_file(&base.join(name))?;
            let found = array.dtype.elem();
            let elem = match map.elem {
                // A type of the same width names what the bits are (numpy has no bf16).
                Some(elem) if elem.bits() != found.bits() => {
                    return Err(wrong(format!("type={elem} is {} bits, but `{name}` holds {found} ({} bits)", elem.bits(), found.bits())));
                }
                Some(elem) => elem,
                None => found,
            };
            let shape = array.shape.iter().map(|&d| d as u64).collect();
            (elem, map.shape.clone().unwrap_or(shape), WordBytes::from_bytes(&array.data))
        }
        tensor => {
            let Some(elem) = map.elem else { return Err(wrong(format!("say what the elements of `{tensor}` are with type=T (a .npy file says it itself)"))) };
            let data = match tensor {
                ArgInit::File(name) => WordBytes::from_bytes(&read_buffer_file(elem, &base.join(name))?),
                other => buffer_bytes(elem, other, base)?,
            };
            let count = data.len() as u64 * 8 / u64::from(elem.bits());
            (elem, map.shape.clone().unwrap_or(vec![count]), data)
        }
    };
    let count = shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
    if count.and_then(|c| elem.bytes_for(c)) != Some(data.len() as u64) {
        return Err(wrong(format!("shape {shape:?} does not hold the tensor's {} bytes of {elem}", data.len())));
    }
    Ok((elem, shape, data))
}

/// The tensor map's element type for a buffer's: what a copy moves is bytes, so a type of the
/// same width stands for one CUDA lacks (s8 as u8, fp8 as u8, tf32 as u32).
fn tensor_elem(elem: ElemType) -> Result<TensorElem, ValueError> {
    Ok(match elem {
        ElemType::U8 | ElemType::S8 | ElemType::Bool | ElemType::E4M3 | ElemType::E5M2 => TensorElem::U8,
        ElemType::U16 | ElemType::S16 => TensorElem::U16,
        ElemType::F16 => TensorElem::F16,
        ElemType::BF16 => TensorElem::BF16,
        ElemType::U32 | ElemType::B32 | ElemType::TF32 => TensorElem::U32,
        ElemType::S32 => TensorElem::S32,
        ElemType::F32 => TensorElem::F32,
        ElemType::U64 => TensorElem::U64,
        ElemType::S64 => TensorElem::S64,
        ElemType::F64 => TensorElem::F64,
        ElemType::E2M1 | ElemType::S4 | ElemType::U4 => {
            return Err(ValueError::TensorMap(format!("{elem} packs two elements a byte, which a tensor map of simt's cannot describe")));
        }
    })
}

/// Draw `i` (from 0) of SplitMix64 (Steele, Lea and Flood 2014) started at `seed`: tiny,
/// well mixed, simple to reproduce elsewhere, and its state after `i` steps is
/// `seed + (i + 1) * GAMMA`, so any draw is computed directly and a buffer fills
/// in parallel with the same values as one sequential generator.
fn splitmix64(seed: u64, i: u64) -> u64 {
    const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut z = seed.wrapping_add(i.wrapping_add(1).wrapping_mul(GAMMA));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A buffer of `bytes` bytes of `N`-byte elements, element `i` being `f(i)`, filled
/// in pieces on every core (each element a single store).
fn generate<const N: usize>(bytes: usize, f: impl Fn(u64) -> [u8; N] + Sync) -> WordBytes {
    const PIECE: usize = 1 << 14;
    let mut out = WordBytes::zeroed(bytes);
    out.as_bytes_mut().par_chunks_mut(N * PIECE).enumerate().for_each(|(p, piece)| {
        for (k, e) in piece.chunks_exact_mut(N).enumerate() {
            *<&mut [u8; N]>::try_from(e).expect("chunks of N") = f((p * PIECE + k) as u64);
        }
    });
    out
}

/// A uniform value in [0, 1) from the top `p` bits of `bits`: a multiple of 2^-p,
/// exact in any type with `p` significant bits (no rounding up to 1).
fn top_bits(bits: u64, p: u32) -> f64 {
    (bits >> (64 - p)) as f64 * (-(p as f64)).exp2()
}

fn read_buffer_file(elem: ElemType, path: &Path) -> Result<Vec<u8>, FileError> {
    let bytes = read_bounded(path, MAX_BUFFER_FILE_BYTES)?;
    file_elements(elem, false, path, bytes).map(|(_, data)| data)
}

/// Writes the buffer as text, one element per line, streaming it out piece by piece
/// (memory stays a piece, whatever the buffer's size).
///
/// # Errors
/// What writing `out` said.
pub fn write_text(out: &mut impl std::io::Write, elem: ElemType, buffer: &Buffer) -> std::io::Result<()> {
    buffer.for_each_piece(|_, bytes| elements(elem, bytes).try_for_each(|e| writeln!(out, "{e}")))
}

/// Writes the buffer as a JSON array, streaming: numbers, with NaN and infinities as
/// the strings `"nan"`, `"inf"`, `"-inf"`.
///
/// # Errors
/// What writing `out` said.
pub fn write_json(out: &mut impl std::io::Write, elem: ElemType, buffer: &Buffer) -> std::io::Result<()> {
    out.write_all(b"[")?;
    let mut first = true;
    buffer.for_each_piece(|_, bytes| {
        elements(elem, bytes).try_for_each(|e| {
            if !std::mem::take(&mut first) {
                out.write_all(b",")?;
            }
            serde_json::to_writer(&mut *out, &json_element(e)).map_err(std::io::Error::other)
        })
    })?;
    out.write_all(b"]")
}

/// One element as JSON: a number, or `"nan"`, `"inf"`, `"-inf"`.
fn json_element(e: Element) -> serde_json::Value {
    let x = match e {
        Element::Int(v) => return v.into(),
        Element::U64(v) => return v.into(),
        float => float.value(),
    };
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        (if x > 0.0 { "inf" } else { "-inf" }).into()
    } else {
        // Reparsing the shortest text keeps an f32's short digits (0.1, not 0.10000000149011612).
        e.to_string().parse::<f64>().map_or(serde_json::Value::Null, Into::into)
    }
}

/// Writes a buffer to `path`: `.npy` (1-D, dtype per [`Dtype::of_elem`]) or, for any other extension, raw little-endian.
///
/// # Errors
/// When the file cannot be written.
pub fn write_buffer_file(path: &Path, elem: ElemType, buffer: &Buffer) -> std::io::Result<()> {
    if lowp_type(elem).is_some() && is_npy_path(path) {
        // Converted back to the `.npy` dtype (f32, or i8/u8 for S4/U4): sizes change, so
        // the pieces are written in order.
        return write_atomically(path, |mut file| write_npy(&mut file, elem, buffer));
    }
    write_atomically(path, |file| {
        let header = if is_npy_path(path) { npy::header(Dtype::of_elem(elem), &[buffer.len as usize / elem.size() as usize]) } else { Vec::new() };
        let data_len = if header.is_empty() { buffer.len as usize } else { buffer.len as usize / elem.size() as usize * elem.size() as usize };
        write_pieces(file, &header, buffer, data_len)
    })
}

/// Writes a buffer's `.npy` form (what `--dump NAME=FILE.npy` writes) to `out`, in order,
/// a piece at a time.
///
/// # Errors
/// What `out` said.
pub fn write_npy(out: &mut impl std::io::Write, elem: ElemType, buffer: &Buffer) -> std::io::Result<()> {
    if let Some(ty) = lowp_type(elem) {
        let count = buffer.len as usize * 8 / elem.bits() as usize;
        out.write_all(&npy::header(Dtype::of_elem(elem), &[count]))?;
        return buffer.for_each_piece(|_, bytes| out.write_all(&lowp::to_npy(ty, bytes)));
    }
    let count = buffer.len as usize / elem.size() as usize;
    out.write_all(&npy::header(Dtype::of_elem(elem), &[count]))?;
    let data_len = count * elem.size() as usize;
    buffer.for_each_piece(|at, bytes| out.write_all(&bytes[..bytes.len().min(data_len.saturating_sub(at))]))
}

/// Writes `header` then the first `data_len` bytes of `buffer`, a piece at a time: on
/// every core at their offsets into a regular file, in order into anything else.
fn write_pieces(mut file: &std::fs::File, header: &[u8], buffer: &Buffer, data_len: usize) -> std::io::Result<()> {
    use std::io::Write;
    let data = |at: usize, bytes: &[u8]| -> usize { bytes.len().min(data_len.saturating_sub(at)) };
    #[cfg(unix)]
    if file.metadata()?.is_file() {
        use std::os::unix::fs::FileExt;
        file.write_all_at(header, 0)?;
        return buffer.par_for_each_piece(|at, bytes| file.write_all_at(&bytes[..data(at, bytes)], (header.len() + at) as u64));
    }
    file.write_all(header)?;
    buffer.for_each_piece(|at, bytes| file.write_all(&bytes[..data(at, bytes)]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use simt_isa::{ArgDefault, LaunchDims};

    fn kernel(params: &[(&str, ParamType)], launch: bool) -> Kernel {
        let mut offset = 0u32;
        let params = params
            .iter()
            .map(|&(name, ty)| {
                offset = offset.next_multiple_of(ty.size());
                let p = Param { name: name.into(), ty, offset };
                offset += ty.size();
                p
            })
            .collect();
        Kernel {
            name: "k".into(),
            params,
            shared: vec![],
            shared_size: 0,
            local_size: 0,
            regs: 1,
            launch: launch.then_some(LaunchDims { grid: [2, 1, 1], block: [64, 1, 1] }),
            args: vec![],
            code: vec![],
            lines: vec![],
            labels: vec![],
            target: simt_isa::Target::DEFAULT,
            frames: simt_isa::Frames::default(),
            formats: vec![],
        }
    }

    fn saxpy() -> Kernel {
        use ParamType::*;
        let mut k = kernel(&[("n", U32), ("a", F32), ("x", Ptr(ElemType::F32)), ("y", Ptr(ElemType::F32))], true);
        k.args = vec![
            ArgDefault { name: "n".into(), init: ArgInit::Scalar(Literal::Int(3)) },
            ArgDefault { name: "a".into(), init: ArgInit::Scalar(Literal::Float(2.5)) },
            ArgDefault { name: "x".into(), init: ArgInit::Iota(3) },
        ];
        k
    }

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn defaults_and_overrides_make_params_and_buffers() {
        let request = LaunchRequest {
            block: Some([32, 1, 1]),
            args: vec![Arg::new("y", ArgInit::List(vec![Literal::Int(1), Literal::Float(0.5)])), Arg::new("n", ArgInit::Scalar(Literal::Int(7)))],
            ..LaunchRequest::default()
        };
        let p = prepare(&saxpy(), &request).unwrap();
        assert_eq!((p.config.grid, p.config.block), ([2, 1, 1], [32, 1, 1]));
        let x = p.memory.buffer("x").unwrap();
        let y = p.memory.buffer("y").unwrap();
        let mut params = vec![7, 0, 0, 0];
        params.extend(2.5f32.to_le_bytes());
        params.extend(x.base.to_le_bytes());
        params.extend(y.base.to_le_bytes());
        assert_eq!(p.config.params, params);
        assert_eq!(x.bytes(), f32s(&[0.0, 1.0, 2.0]));
        assert_eq!(p.buffer("y"), Some((ElemType::F32, f32s(&[1.0, 0.5]))));
        assert_eq!(p.buffers, vec![("x".to_string(), ElemType::F32), ("y".to_string(), ElemType::F32)]);
    }

    /// A front end's words, told apart from everything else in a message.
    struct Words;

    impl Spelling for Words {
        fn shape(&self) -> String {
            "SHAPE".into()
        }
        fn argument(&self, name: &str, value: &str) -> String {
            format!("ARG[{name}={value}]")
        }
        fn given(&self) -> String {
            "GIVEN".into()
        }
    }

    #[test]
    fn request_errors_name_what_to_do_in_the_front_ends_words() {
        let k = saxpy();
        let err = |r: LaunchRequest| prepare(&k, &r).unwrap_err().explain(&Words);
        let missing = err(LaunchRequest::default());
        assert!(missing.contains(".param .ptr.f32 y") && missing.contains("pass e.g. ARG[y=zeros(1024)]"), "{missing}");
        // The library's own text states the fact and speaks no front end's language.
        let fact = prepare(&k, &LaunchRequest::default()).unwrap_err().to_string();
        assert!(fact.contains(".param .ptr.f32 y") && !fact.contains("--arg") && !fact.contains("ARG["), "{fact}");
        let unknown = err(LaunchRequest { args: vec![Arg::new("yy", ArgInit::Zeros(1))], ..Default::default() });
        assert!(unknown.contains("did you mean `y`?"), "{unknown}");
        let far = err(LaunchRequest { args: vec![Arg::new("bogus", ArgInit::Zeros(1))], ..Default::default() });
        assert!(far.contains("no parameter `bogus`") && !far.contains("did you mean"), "{far}");
        let big = err(LaunchRequest { block: Some([32, 33, 1]), ..Default::default() });
        assert!(big.contains("1056 threads per block"), "{big}");
        let zero = err(LaunchRequest { grid: Some([0, 1, 1]), ..Default::default() });
        assert!(zero.contains("invalid grid (0, 1, 1)"), "{zero}");
        let scalar = err(LaunchRequest { args: vec![Arg::new("y", ArgInit::Scalar(Literal::Int(1)))], ..Default::default() });
        assert!(scalar.contains("argument `y` (GIVEN)") && scalar.contains("needs a buffer"), "{scalar}");
        let list = err(LaunchRequest { args: vec![Arg::new("n", ArgInit::Iota(2)), Arg::new("y", ArgInit::Zeros(1))], ..Default::default() });
        assert!(list.contains("takes a literal"), "{list}");
        let no_launch = prepare(&kernel(&[], false), &LaunchRequest::default()).unwrap_err().explain(&Words);
        assert!(no_launch.ends_with("no grid or block was given: pass e.g. SHAPE"), "{no_launch}");
    }

    #[test]
    fn literals_convert_as_documented() {
        use ElemType::*;
        assert_eq!(literal_bytes(F32, Literal::Int(3)).unwrap(), 3.0f32.to_le_bytes());
        assert_eq!(literal_bytes(F32, Literal::F32Bits(0x7FC0_0001)).unwrap(), 0x7FC0_0001u32.to_le_bytes());
        assert_eq!(literal_bytes(F64, Literal::F64Bits(7)).unwrap(), 7u64.to_le_bytes());
        assert_eq!(literal_bytes(F64, Literal::Float(0.1)).unwrap(), 0.1f64.to_le_bytes());
        // 1 + 2^-11 is halfway between two f16 values: ties go to the even one, 1.0.
        assert_eq!(literal_bytes(F16, Literal::Float(1.0 + 2f64.powi(-11))).unwrap(), 0x3C00u16.to_le_bytes());
        assert_eq!(literal_bytes(BF16, Literal::Int(1)).unwrap(), 0x3F80u16.to_le_bytes());
        assert_eq!(literal_bytes(S8, Literal::Int(-128)).unwrap(), [0x80]);
        assert_eq!(literal_bytes(B32, Literal::Int(-1)).unwrap(), [0xFF; 4]);
        assert!(literal_bytes(U8, Literal::Int(256)).unwrap_err().to_string().contains("does not fit u8"));
        assert!(literal_bytes(U32, Literal::Int(-1)).is_err());
        assert!(literal_bytes(S32, Literal::Float(1.5)).unwrap_err().to_string().contains("takes integers"));
        // Too large for the type is an error, as in an instruction; `inf` is infinity on purpose.
        assert!(literal_bytes(F32, Literal::Float(1e39)).unwrap_err().to_string().contains("too large for f32 (at most 3.4028235e38)"));
        assert!(literal_bytes(F16, Literal::Float(70000.0)).unwrap_err().to_string().contains("at most 65504"));
        assert_eq!(literal_bytes(F32, Literal::Float(f64::INFINITY)).unwrap(), f32::INFINITY.to_le_bytes());
        assert_eq!(literal_bytes(F16, Literal::Float(65519.0)).unwrap(), 0x7BFFu16.to_le_bytes(), "rounds down to the largest f16");
    }

    #[test]
    fn every_buffer_form_materialises() {
        use ElemType::*;
        let here = Path::new("");
        assert_eq!(buffer_bytes(U16, &ArgInit::Zeros(3), here).unwrap().as_bytes().to_vec(), [0; 6]);
        assert_eq!(buffer_bytes(S8, &ArgInit::Fill(3, Literal::Int(-2)), here).unwrap().as_bytes().to_vec(), [0xFE; 3]);
        assert_eq!(buffer_bytes(F32, &ArgInit::Iota(3), here).unwrap().as_bytes().to_vec(), f32s(&[0.0, 1.0, 2.0]));
        assert!(buffer_bytes(U8, &ArgInit::Iota(257), here).unwrap_err().to_string().contains("iota(257): 256 does not fit u8"));
        // f16 has 11 significant bits: 2049 rounds to the even 2048.
        let h = buffer_bytes(F16, &ArgInit::Iota(2050), here).unwrap().as_bytes().to_vec();
        assert_eq!(&h[4098..], f16::from_f32(2048.0).to_bits().to_le_bytes());
        assert!(buffer_bytes(F64, &ArgInit::Zeros(u64::MAX), here).unwrap_err().to_string().contains("exceed"));
        assert!(buffer_bytes(F32, &ArgInit::List(vec![Literal::Int(1), Literal::F64Bits(0)]), here).is_ok());
        assert!(buffer_bytes(U32, &ArgInit::List(vec![Literal::Int(1), Literal::Float(0.5)]), here).unwrap_err().to_string().starts_with("element 1:"));
        assert_eq!(buffer_bytes(S64, &ArgInit::List(vec![Literal::Int(-1)]), here).unwrap().as_bytes().to_vec(), [0xFF; 8]);
        assert_eq!(buffer_bytes(U64, &ArgInit::Iota(2), here).unwrap().as_bytes().to_vec(), [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]);
        assert!(buffer_bytes(U64, &ArgInit::Fill(1, Literal::Int(-1)), here).unwrap_err().to_string().contains("-1 does not fit u64"));
        assert_eq!(buffer_bytes(Bool, &ArgInit::Iota(2), here).unwrap().as_bytes().to_vec(), [0, 1]);
        assert!(buffer_bytes(Bool, &ArgInit::Fill(1, Literal::Int(2)), here).unwrap_err().to_string().contains("2 does not fit bool (0 ..= 1)"));
    }

    #[test]
    fn rand_is_deterministic_and_in_range() {
        for elem in ElemType::ALL {
            let a = buffer_bytes(elem, &ArgInit::Rand(1000, 42), Path::new("")).unwrap().as_bytes().to_vec();
            assert_eq!(a, buffer_bytes(elem, &ArgInit::Rand(1000, 42), Path::new("")).unwrap().as_bytes().to_vec());
            assert_ne!(a, buffer_bytes(elem, &ArgInit::Rand(1000, 43), Path::new("")).unwrap().as_bytes().to_vec());
            assert_eq!(a.len() as u64, elem.bytes_for(1000).unwrap());
            assert_eq!(elements(elem, &a).count(), 1000);
            for e in elements(elem, &a) {
                match e {
                    // Section 9 types convert the f32 draw with the CVT rules, which may round up to 1.
                    Element::F32(x) if lowp_type(elem).is_some() => assert!((0.0..=1.0).contains(&x), "{elem}: {x}"),
                    Element::F32(x) => assert!((0.0..1.0).contains(&x), "{elem}: {x}"),
                    Element::F64(x) => assert!((0.0..1.0).contains(&x), "{elem}: {x}"),
                    Element::Int(_) | Element::U64(_) => {}
                }
            }
        }
        // The first outputs of SplitMix64 from seed 0, as published with the algorithm.
        assert_eq!(splitmix64(0, 0), 0xE220_A839_7B1D_CDAF);
        assert_eq!(splitmix64(0, 1), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn files_load_by_extension_and_dtype() {
        let dir = tempdir();
        let npy_path = dir.join("v.npy");
        write_buffer_file(&npy_path, ElemType::F32, memory(&f32s(&[1.5, -2.0])).buffer("b").unwrap()).unwrap();
        assert_eq!(buffer_bytes(ElemType::F32, &ArgInit::File("v.npy".into()), &dir).unwrap().as_bytes().to_vec(), f32s(&[1.5, -2.0]));
        let mismatch = buffer_bytes(ElemType::F16, &ArgInit::File("v.npy".into()), &dir).unwrap_err().to_string();
        assert!(mismatch.contains("holds dtype <f4") && mismatch.contains("element type f16 needs <f2"), "{mismatch}");
        std::fs::write(dir.join("r.bin"), [1, 0, 2]).unwrap();
        assert!(buffer_bytes(ElemType::U16, &ArgInit::File("r.bin".into()), &dir).unwrap_err().to_string().contains("not a whole number"));
        assert_eq!(buffer_bytes(ElemType::U8, &ArgInit::File("r.bin".into()), &dir).unwrap().as_bytes().to_vec(), [1, 0, 2]);
        assert!(buffer_bytes(ElemType::U8, &ArgInit::File("none.bin".into()), &dir).unwrap_err().to_string().contains("cannot read"));
        write_buffer_file(&dir.join("o.bin"), ElemType::U8, memory(&[9, 8, 7]).buffer("b").unwrap()).unwrap();
        assert_eq!(std::fs::read(dir.join("o.bin")).unwrap(), [9, 8, 7]);
        // Large buffers are written in pieces, in parallel: the file is still the whole buffer in order.
        let big: Vec<u8> = (0..1_000_003u32).map(|i| (i % 251) as u8).collect();
        write_buffer_file(&dir.join("big.bin"), ElemType::U8, memory(&big).buffer("b").unwrap()).unwrap();
        assert_eq!(std::fs::read(dir.join("big.bin")).unwrap(), big);
        write_buffer_file(&dir.join("big.npy"), ElemType::U16, memory(&big).buffer("b").unwrap()).unwrap();
        let array = npy::read(&std::fs::read(dir.join("big.npy")).unwrap()).unwrap();
        assert_eq!((array.shape.as_slice(), &array.data[..]), (&[500_001][..], &big[..1_000_002]));
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().contains("tmp")).count(),
            0,
            "no temporary files left"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn section_9_buffers_convert_and_pack() {
        use ElemType::*;
        let here = Path::new("");
        let bytes = |elem, init: ArgInit| buffer_bytes(elem, &init, here).map(|b| b.as_bytes().to_vec()).map_err(|e| e.to_string());
        assert_eq!(bytes(E2M1, ArgInit::Fill(4, Literal::Float(2.5))), Ok(vec![0x44, 0x44]), "2.5 ties to 2");
        assert_eq!(bytes(S4, ArgInit::Fill(2, Literal::Int(-3))), Ok(vec![0xDD]));
        assert_eq!(bytes(U4, ArgInit::Iota(4)), Ok(vec![0x10, 0x32]));
        assert_eq!(bytes(U4, ArgInit::Iota(18)).unwrap_err(), "iota(18): 17 does not fit u4 (0 ..= 15)");
        assert_eq!(bytes(E4M3, ArgInit::Iota(3)), Ok(vec![0x00, 0x38, 0x40]));
        assert_eq!(bytes(E5M2, ArgInit::Fill(2, Literal::Float(f64::INFINITY))), Ok(vec![0x7B, 0x7B]), "saturates");
        assert_eq!(bytes(TF32, ArgInit::Fill(1, Literal::F32Bits(0x3F80_1000))), Ok(0x3F80_2000u32.to_le_bytes().to_vec()));
        assert_eq!(bytes(E4M3, ArgInit::Zeros(3)), Ok(vec![0; 3]));
        assert!(bytes(E2M1, ArgInit::Zeros(3)).unwrap_err().to_string().contains("3 elements of e2m1 do not fill whole bytes"));
        assert!(bytes(S4, ArgInit::Rand(7, 1)).unwrap_err().to_string().contains("even number"));
        assert!(bytes(S4, ArgInit::Zeros(u64::MAX - 1)).unwrap_err().to_string().contains("exceed"));
        let list = ArgInit::List(vec![Literal::Int(-8), Literal::Int(7), Literal::Int(0), Literal::Int(9)]);
        assert_eq!(bytes(S4, list).unwrap_err(), "element 3: 9 does not fit s4 (-8 ..= 7)");
        // Dumps convert back: text, JSON and `.npy` show values; `.bin` keeps the bytes.
        assert_eq!(format_elements(E2M1, &[0xF2, 0x7F]), "1\n-6\n-6\n6\n", "the first element in the low nibble");
        assert_eq!(format_elements(E4M3, &[0x7F, 0xB0]), "NaN\n-0.5\n");
        assert_eq!(format_elements(S4, &[0x8F]), "-1\n-8\n");
        assert_eq!(json_elements(E5M2, &[0x7C, 0xFE]), r#"["inf","nan"]"#);
        let dir = tempdir().join("lowp");
        std::fs::create_dir_all(&dir).unwrap();
        write_buffer_file(&dir.join("f.npy"), E2M1, memory(&[0xF2, 0x71]).buffer("b").unwrap()).unwrap();
        let array = npy::read(&std::fs::read(dir.join("f.npy")).unwrap()).unwrap();
        assert_eq!((array.dtype, array.shape.as_slice()), (Dtype::F32, &[4][..]));
        assert_eq!(array.data, [1.0f32, -6.0, 0.5, 6.0].iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>());
        assert_eq!(bytes(E2M1, ArgInit::File(dir.join("f.npy").display().to_string())), Ok(vec![0xF2, 0x71]));
        write_buffer_file(&dir.join("s.npy"), S4, memory(&[0x8F]).buffer("b").unwrap()).unwrap();
        assert_eq!(npy::read(&std::fs::read(dir.join("s.npy")).unwrap()).unwrap().data, [0xFF, 0xF8]);
        write_buffer_file(&dir.join("f.bin"), E2M1, memory(&[0xF2, 0x71]).buffer("b").unwrap()).unwrap();
        assert_eq!(std::fs::read(dir.join("f.bin")).unwrap(), [0xF2, 0x71]);
        let wrong = bytes(E4M3, ArgInit::File(dir.join("s.npy").display().to_string())).unwrap_err();
        assert!(wrong.contains("needs <f4, which the host converts"), "{wrong}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A fresh directory per call: tests run at once, and one removing a shared directory
    /// would race another writing into it.
    fn tempdir() -> PathBuf {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("simt-host-test-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A one-buffer memory holding `bytes`.
    fn memory(bytes: &[u8]) -> GlobalMemory {
        let mut m = GlobalMemory::new();
        m.alloc("b", WordBytes::from_bytes(bytes)).unwrap();
        m
    }

    fn format_elements(elem: ElemType, bytes: &[u8]) -> String {
        let mut out = Vec::new();
        write_text(&mut out, elem, memory(bytes).buffer("b").unwrap()).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn json_elements(elem: ElemType, bytes: &[u8]) -> String {
        let mut out = Vec::new();
        write_json(&mut out, elem, memory(bytes).buffer("b").unwrap()).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn dumps_use_natural_formats() {
        assert_eq!(format_elements(ElemType::F32, &f32s(&[3.0, 5.25, 0.1, f32::NAN, -0.0])), "3\n5.25\n0.1\nNaN\n-0\n");
        assert_eq!(format_elements(ElemType::S16, &[0xFF, 0xFF, 7, 0]), "-1\n7\n");
        assert_eq!(format_elements(ElemType::B32, &[0xFF; 4]), "4294967295\n");
        assert_eq!(format_elements(ElemType::F16, &0x3555u16.to_le_bytes()), "0.33325195\n");
        assert_eq!(format_elements(ElemType::F64, &0.1f64.to_le_bytes()), "0.1\n");
        let json = json_elements(ElemType::F32, &f32s(&[0.1, 2.0, f32::NAN, f32::NEG_INFINITY]));
        assert_eq!(json, r#"[0.1,2.0,"nan","-inf"]"#);
        assert_eq!(json_elements(ElemType::S8, &[0x80]), "[-128]");
        assert_eq!(json_elements(ElemType::S8, &[]), "[]");
        assert_eq!(format_elements(ElemType::U64, &u64::MAX.to_le_bytes()), "18446744073709551615\n");
        assert_eq!(json_elements(ElemType::U64, &u64::MAX.to_le_bytes()), "[18446744073709551615]");
        assert_eq!(format_elements(ElemType::S64, &i64::MIN.to_le_bytes()), "-9223372036854775808\n");
        assert_eq!(json_elements(ElemType::Bool, &[1, 0]), "[1,0]");
        // Across pieces: every element once, in order.
        let big: Vec<u8> = (0..300_000u32).flat_map(|i| i.to_le_bytes()).collect();
        let text = format_elements(ElemType::U32, &big);
        assert_eq!(text.lines().count(), 300_000);
        assert!(text.ends_with("299998\n299999\n"));
    }
}
