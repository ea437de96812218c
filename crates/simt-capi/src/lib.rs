//! simt as a C library: load a module from PTX or `.s` text, launch its kernels over the
//! caller's host memory, and GPU Ocelot's `ptx_run` on top (see `docs/c-api.md`).
//!
//! The C functions (`simt_*` and `ptx_run`, declared in `include/simt.h`) are thin: they
//! turn C values into [`HostArg`]s, call [`launch`], and keep the last error per thread.
//! Everything that decides something lives here, in Rust, where the Python package uses it
//! too ([`launch`] is how `simt.ptx_run` runs).
//!
//! Host memory is lent to the launch without a copy (as the Python package lends numpy
//! arrays): a kernel's loads and stores reach the caller's bytes directly, and every access
//! is bounds-checked against the memory lent, so a bad pointer is a fault, never a crash.
#![warn(missing_docs)]

mod c_api;
mod host_memory;
mod ocelot;

use std::sync::{Arc, Mutex};

use rustc_hash::FxHasher;
use simt_interp::{GlobalMemory, LaunchConfig, Lent, RunOptions, Stats, WordBytes};
use simt_isa::{Module, ParamType};

pub use host_memory::{register, unregister};
pub use ocelot::ptx_run;

/// One argument of a launch, matched to the kernel's parameter in the same position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HostArg {
    /// `len` bytes of host memory at `ptr`, for a pointer parameter: the kernel reaches
    /// exactly these bytes.
    Memory {
        /// First byte.
        ptr: *mut u8,
        /// How many.
        len: usize,
    },
    /// A 64-bit word. For a pointer parameter, a host address (0 is a null pointer), which
    /// reaches to the end of its registered allocation or, failing that, of its mapping;
    /// for a scalar, its bits (the low 32 for a 32-bit parameter), as `ptx_run` passes them.
    Word(u64),
    /// A number for an `.f32` or `.f64` parameter.
    Float(f64),
}

/// The grid and block of a launch, and its dynamic shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Blocks in x, y, z.
    pub grid: [u32; 3],
    /// Threads per block in x, y, z.
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory per block (CUDA's `sharedMemBytes`), after the kernel's
    /// static shared variables: what a PTX `.extern .shared` array addresses.
    pub shared_bytes: u32,
}

/// Why a launch did not complete.
#[derive(Clone, Debug)]
pub enum LaunchFailure {
    /// Refused before anything ran (argument count or kind, launch shape, memory).
    Refused(String),
    /// The kernel faulted while running; the memory it was lent holds what it stored before.
    Fault(Box<simt_interp::Fault>),
}

/// Writes what a launch printed (its `printf`s) to the process's stdout, as the CUDA runtime
/// does for a C caller; a closed stdout loses it, as it would lose the runtime's.
pub fn write_printed(printed: &[simt_interp::Printed]) {
    let _ = simt_interp::write_printed(&mut std::io::stdout().lock(), printed);
}

impl LaunchFailure {
    /// What the launch printed before it failed.
    pub fn printed(&self) -> &[simt_interp::Printed] {
        match self {
            LaunchFailure::Refused(_) => &[],
            LaunchFailure::Fault(fault) => &fault.printed,
        }
    }

    /// The failure as the command line prints it, a fault shown against `module`'s source.
    pub fn render(&self, module: &Module) -> String {
        match self {
            LaunchFailure::Refused(message) => message.clone(),
            LaunchFailure::Fault(fault) => fault.render(module, false),
        }
    }
}

/// Reads a module from text: PTX when `name` ends in `.ptx` or the text starts (after
/// comments) with `.version`, as every PTX module must; `.s` assembly otherwise.
///
/// # Errors
/// Why the text is no module.
pub fn load(name: &str, text: &str) -> Result<Module, ModuleError> {
    match simt_isa::Input::of(name, text.as_bytes())? {
        simt_isa::Input::Ptx(text) => simt_ptx::translate(name, text, None).map_err(|d| ModuleError::Diagnostics(d.render(name, text, false))),
        simt_isa::Input::Assembly(text) => simt_asm::assemble(name, text).map_err(|d| ModuleError::Diagnostics(d.render(false))),
        simt_isa::Input::Bytecode(bytes) => simt_isa::read_module(bytes).map_err(|source| ModuleError::Bytecode { name: name.into(), source }),
    }
}

/// Why text did not become a module.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ModuleError {
    /// Neither bytecode nor UTF-8 text.
    #[error(transparent)]
    NotAModule(#[from] simt_isa::NotAModule),
    /// The assembler's or the PTX translator's diagnostics, rendered against the name and
    /// the text (which the caller may not keep: C callers and `ptx_run` receive text).
    #[error("{0}")]
    Diagnostics(String),
    /// Bytecode that does not load.
    #[error("{name}: {source}")]
    Bytecode {
        /// The module's name.
        name: String,
        /// What is wrong with it.
        source: simt_isa::LoadError,
    },
}

/// Translated PTX modules by their text, so a caller launching the same kernel thousands
/// of times (a test suite through `ptx_run`) translates it once.
struct ModuleCache {
    /// Oldest first.
    entries: std::collections::VecDeque<Cached>,
    text_bytes: usize,
}

/// The text's hash, the text and the result of loading it.
type Cached = (u64, Box<str>, Result<Arc<Module>, ModuleError>);

/// What the cache may hold: texts are kept to tell hash collisions apart, and a translated
/// module takes a few times its text.
const CACHE_TEXT_BYTES: usize = 64 << 20;

static CACHE: Mutex<ModuleCache> = Mutex::new(ModuleCache { entries: std::collections::VecDeque::new(), text_bytes: 0 });

/// [`load`] of PTX text through a cache keyed by the text (refusals are cached too).
///
/// # Errors
/// As [`load`].
pub fn load_cached(name: &str, text: &str) -> Result<Arc<Module>, ModuleError> {
    use std::hash::{Hash, Hasher};
    let mut hasher = FxHasher::default();
    text.hash(&mut hasher);
    let hash = hasher.finish();
    let find = |cache: &ModuleCache| cache.entries.iter().find(|(h, t, _)| *h == hash && **t == *text).map(|(_, _, m)| m.clone());
    if let Some(found) = find(&CACHE.lock().unwrap_or_else(|e| e.into_inner())) {
        return found;
    }
    // Translated outside the lock: other threads launch cached kernels meanwhile.
    let loaded = load(name, text).map(Arc::new);
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if find(&cache).is_none() {
        while cache.text_bytes + text.len() > CACHE_TEXT_BYTES
            && let Some((_, old, _)) = cache.entries.pop_front()
        {
            cache.text_bytes -= old.len();
        }
        cache.text_bytes += text.len();
        cache.entries.push_back((hash, text.into(), loaded.clone()));
    }
    loaded
}

/// Lends the caller's memory at host address `addr` as a buffer named after `param`: the
/// run of it that `addr` reaches (at most `cap` bytes), from the word holding `addr`. Returns
/// the GLOBAL address `addr` becomes and the bytes it reaches from there, or why nothing was
/// lent (`addr` is in no memory this process may write).
///
/// # Errors
/// When the launch's buffers would exceed GLOBAL memory.
fn lend_at(memory: &mut GlobalMemory, param: &str, addr: usize, cap: usize) -> Result<Result<(u32, u64), host_memory::NoReach>, LendError> {
    let reach = match host_memory::reach(addr) {
        Ok(reach) => reach,
        Err(why) => return Ok(Err(why)),
    };
    // Lent memory is whole aligned words: start at the word holding `addr`.
    let start = addr & !3;
    let len = (reach.len + (addr - start)).min(cap) & !3;
    // SAFETY: the caller of `launch` promises the memory is theirs for the call; it lies in a
    // registered allocation or a writable mapping, so it is there.
    let Some(lent) = (unsafe { Lent::new(start as *mut u8, len, Box::new(())) }) else {
        return Err(LendError::TooShort { addr, len: reach.len });
    };
    let base = memory.alloc_lent(&format!("{param} (host {addr:#x})"), lent)?;
    Ok(Ok((base + (addr - start) as u32, len.saturating_sub(addr - start) as u64)))
}

/// Why memory that is there could not be lent.
#[derive(Debug, thiserror::Error)]
enum LendError {
    /// Too little of it for one aligned word.
    #[error("host address {addr:#x} reaches only {len} bytes")]
    TooShort { addr: usize, len: usize },
    /// The launch's buffers would exceed GLOBAL memory.
    #[error(transparent)]
    Memory(#[from] simt_interp::memory::MemoryError),
}

/// A pointer argument's memory when it is not whole aligned words, which [`Lent`] needs:
/// copied in before the launch and out after it.
struct CopiedBack {
    host: *mut u8,
    len: usize,
    buffer: usize,
}

/// Runs kernel `kernel` of `module` over the caller's memory and values.
///
/// Pointer parameters become buffers lent from host memory: the kernel's stores land in
/// the caller's bytes as it runs, so a kernel that faults leaves behind what it stored
/// before the fault. Every access is checked against the memory lent.
///
/// # Errors
/// A refusal before anything ran (argument count or kind, launch shape, memory), or the
/// kernel's fault rendered against its source.
///
/// # Safety
/// Every [`HostArg::Memory`] must be valid for reads and writes of its `len` bytes, and
/// every address in a [`HostArg::Word`] for a pointer parameter must lie in memory the
/// caller owns, for the whole call; nothing else may write that memory meanwhile.
pub unsafe fn launch(module: &Module, kernel: usize, args: &[HostArg], shape: Shape, options: &RunOptions) -> Result<Stats, LaunchFailure> {
    let mut kernel =
        std::borrow::Cow::Borrowed(module.kernels.get(kernel).ok_or_else(|| LaunchFailure::Refused(format!("the module has no kernel {kernel}")))?);
    if shape.shared_bytes > 0 {
        kernel.to_mut().add_dynamic_shared(shape.shared_bytes);
    }
    let kernel = &*kernel;
    // Parameters past the caller's arguments take their `.arg` defaults: a PTX module's
    // `.global`/`.const` variables (math tables such as `__cudart_i2opi_f`) are buffer
    // parameters after the kernel's own, which a caller of `ptx_run` does not know of.
    let default_of = |name: &str| kernel.args.iter().rev().find(|a| a.name == name).map(|a| &a.init);
    let defaulted = kernel.params.get(args.len()..).unwrap_or_default();
    if args.len() > kernel.params.len() || defaulted.iter().any(|p| default_of(&p.name).is_none()) {
        return Err(LaunchFailure::Refused(simt_host::argument_count_message(kernel, args.len())));
    }
    simt_interp::launch::check_shape(kernel, shape.grid, shape.block)
        .map_err(|e| LaunchFailure::Refused(format!("cannot launch kernel `{}`: {e}", kernel.name)))?;

    let pointers = kernel.params.iter().filter(|p| p.ty.buffer_elem().is_some() || p.ty == ParamType::U64).count().max(1);
    // Each pointer may reach this far, so that all of them fit GLOBAL memory together.
    let reach_cap = (simt_isa::MAX_TOTAL_BUFFER_BYTES as usize / pointers).saturating_sub(1 << 12) & !3;
    let mut params = vec![0u8; kernel.param_size() as usize];
    let mut memory = GlobalMemory::new();
    let mut copied = Vec::new();
    for (i, param) in kernel.params.iter().enumerate() {
        let refuse =
            |what: &str| LaunchFailure::Refused(format!("argument `{}` of kernel `{}` (`.param .{}`): {what}", param.name, kernel.name, param.ty.name()));
        let too_large = |e: simt_interp::memory::MemoryError| refuse(&e.to_string());
        let bytes: Vec<u8> = match args.get(i).copied() {
            // Not passed: the parameter's `.arg` default (checked to exist above).
            None => match (param.ty.buffer_elem(), default_of(&param.name).expect("checked above")) {
                (Some(elem), init) => {
                    let data = simt_host::buffer_bytes(elem, init, std::path::Path::new("")).map_err(|e| refuse(&e.to_string()))?;
                    memory.alloc(&param.name, data).map_err(too_large)?.to_le_bytes().to_vec()
                }
                (None, simt_isa::ArgInit::Scalar(literal)) => simt_host::scalar_bytes(param.ty, *literal).map_err(|e| refuse(&e.to_string()))?,
                (None, other) => return Err(refuse(&format!("its default `{other}` is not a scalar"))),
            },
            Some(arg) => match (param.ty, arg) {
                (ParamType::Ptr(_) | ParamType::Raw(_), HostArg::Word(0)) => 0u32.to_le_bytes().to_vec(),
                (ParamType::Ptr(_) | ParamType::Raw(_), HostArg::Word(addr)) => {
                    let addr = usize::try_from(addr).map_err(|_| refuse("the address does not fit this machine"))?;
                    match lend_at(&mut memory, &param.name, addr, reach_cap).map_err(|e| refuse(&e.to_string()))? {
                        Ok((base, _)) => base.to_le_bytes().to_vec(),
                        // Nothing is lent: any access through the pointer is a fault naming it.
                        Err(why) => {
                            memory.alloc(&format!("{} (host {addr:#x}, {why})", param.name), WordBytes::zeroed(0)).map_err(too_large)?.to_le_bytes().to_vec()
                        }
                    }
                }
                // A `.u64` keeps its value, which the kernel may use as a number; when it is an
                // address of the caller's memory, that memory is lent and seen at its own
                // address, so the kernel's 64-bit accesses through it reach it.
                (ParamType::U64, HostArg::Word(w)) => {
                    if let Ok(addr) = usize::try_from(w)
                        && addr != 0
                        && let Ok((base, len)) = lend_at(&mut memory, &param.name, addr, reach_cap).map_err(|e| refuse(&e.to_string()))?
                    {
                        memory.map_host(w, len, base);
                    }
                    w.to_le_bytes().to_vec()
                }
                (ParamType::Ptr(_) | ParamType::Raw(_) | ParamType::U64, HostArg::Memory { ptr, len }) => {
                    if len as u64 > simt_isa::MAX_TOTAL_BUFFER_BYTES {
                        return Err(refuse(&format!("{len} bytes is more than the {} GLOBAL memory holds", simt_isa::MAX_TOTAL_BUFFER_BYTES)));
                    }
                    // SAFETY: the caller promises `len` bytes at `ptr` are valid and theirs.
                    match unsafe { Lent::new(ptr, len, Box::new(())) } {
                        Some(lent) => memory.alloc_lent(&param.name, lent),
                        None => {
                            // SAFETY: as above.
                            let bytes = if len == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(ptr, len) } };
                            copied.push(CopiedBack { host: ptr, len, buffer: memory.buffers().len() });
                            memory.alloc(&param.name, WordBytes::from_bytes(bytes))
                        }
                    }
                    .map_err(too_large)
                    // A `.u64` holds the buffer's 64-bit address.
                    .map(|base| if param.ty == ParamType::U64 { u64::from(base).to_le_bytes().to_vec() } else { base.to_le_bytes().to_vec() })?
                }
                (ParamType::U32 | ParamType::S32 | ParamType::F32, HostArg::Word(w)) => (w as u32).to_le_bytes().to_vec(),
                (ParamType::F64, HostArg::Word(w)) => w.to_le_bytes().to_vec(),
                (ParamType::F32, HostArg::Float(x)) => (x as f32).to_bits().to_le_bytes().to_vec(),
                (ParamType::F64, HostArg::Float(x)) => x.to_bits().to_le_bytes().to_vec(),
                (ParamType::Ptr(_) | ParamType::Raw(_), HostArg::Float(_)) => return Err(refuse("a pointer takes memory or an address, not a float")),
                (_, HostArg::Memory { .. }) => return Err(refuse("a scalar takes a value, not memory")),
                (_, HostArg::Float(_)) => return Err(refuse("an integer takes an integer, not a float")),
            },
        };
        params[param.offset as usize..][..bytes.len()].copy_from_slice(&bytes);
    }
    let config = LaunchConfig { grid: shape.grid, block: shape.block, params };
    let result = simt_interp::run(kernel, &config, &memory, options, None);
    for back in copied {
        let bytes = memory.buffer_at(back.buffer).bytes();
        // SAFETY: the caller promised `len` bytes at `host` are theirs to write.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), back.host, back.len) };
    }
    result.map_err(|fault| LaunchFailure::Fault(Box::new(fault)))
}
