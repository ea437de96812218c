//! The functions of `include/simt.h`. Each catches panics (none may unwind into C), turns
//! C values into Rust ones and keeps its error as the thread's last error.

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_int};
use std::sync::Arc;

use simt_interp::{RunOptions, Stats};
use simt_isa::Module;

use crate::{HostArg, LaunchFailure, Shape};

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Makes `message` this thread's last error (NUL bytes, which C cannot show, become spaces).
pub(crate) fn set_last_error(message: &str) {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = text);
}

/// Runs `f`, turning a panic into an error message: a bug in simt fails the call, never
/// the caller's process.
pub(crate) fn guarded<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let what = panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned()).unwrap_or_default();
        Err(format!("internal error in simt (please report it): {what}"))
    })
}

/// The text of the last error on this thread, or an empty string; valid until this thread's
/// next `simt_*` call.
#[unsafe(no_mangle)]
pub extern "C" fn simt_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// A loaded module: its kernels and their names as C strings.
pub struct SimtModule {
    module: Arc<Module>,
    names: Vec<CString>,
}

/// Reads a module from `len` bytes of PTX or `.s` text; `name` (may be NULL) names it in
/// messages and, ending in `.ptx`, says it is PTX. NULL on error (see `simt_last_error`).
///
/// # Safety
/// `text` points to `len` readable bytes; `name` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn simt_module_load(text: *const c_char, len: usize, name: *const c_char) -> *mut SimtModule {
    let loaded = guarded(|| {
        if text.is_null() {
            return Err("simt_module_load: the text is NULL".into());
        }
        // SAFETY: the caller promises `len` readable bytes at `text`.
        let bytes = unsafe { std::slice::from_raw_parts(text.cast::<u8>(), len) };
        let text = std::str::from_utf8(bytes).map_err(|e| format!("simt_module_load: the text is not UTF-8 ({e})"))?;
        let name = if name.is_null() {
            "<text>".to_string()
        } else {
            // SAFETY: the caller promises a NUL-terminated string.
            unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned()
        };
        let module = crate::load(&name, text).map_err(|e| e.to_string())?;
        let names = module.kernels.iter().map(|k| CString::new(k.name.as_str()).unwrap_or_default()).collect();
        Ok(SimtModule { module: Arc::new(module), names })
    });
    match loaded {
        Ok(module) => Box::into_raw(Box::new(module)),
        Err(message) => {
            set_last_error(&message);
            std::ptr::null_mut()
        }
    }
}

/// Frees a module from `simt_module_load` (NULL is ignored).
///
/// # Safety
/// `module` came from `simt_module_load` and is freed once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn simt_module_free(module: *mut SimtModule) {
    if !module.is_null() {
        // SAFETY: the caller gives back a box `simt_module_load` made, once.
        drop(unsafe { Box::from_raw(module) });
    }
}

/// How many kernels the module holds.
///
/// # Safety
/// `module` is a live module.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn simt_module_kernel_count(module: *const SimtModule) -> usize {
    // SAFETY: the caller promises a live module (or NULL).
    unsafe { module.as_ref() }.map_or(0, |m| m.names.len())
}

/// The name of kernel `index`, or NULL past the last; valid while the module lives.
///
/// # Safety
/// `module` is a live module.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn simt_module_kernel_name(module: *const SimtModule, index: usize) -> *const c_char {
    // SAFETY: the caller promises a live module (or NULL).
    unsafe { module.as_ref() }.and_then(|m| m.names.get(index)).map_or(std::ptr::null(), |n| n.as_ptr())
}

/// One argument, `simt_arg` in `simt.h`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SimtArg {
    kind: u32,
    bits: u64,
    number: f64,
    ptr: *mut u8,
    len: usize,
}

const SIMT_ARG_WORD: u32 = 0;
const SIMT_ARG_FLOAT: u32 = 1;
const SIMT_ARG_BUFFER: u32 = 2;

/// What a launch did, `simt_stats` in `simt.h`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SimtStats {
    blocks: u64,
    warps: u64,
    threads: u64,
    warp_instructions: u64,
    thread_instructions: u64,
    simd_efficiency: f64,
}

impl From<&Stats> for SimtStats {
    fn from(s: &Stats) -> SimtStats {
        SimtStats {
            blocks: s.blocks,
            warps: s.warps,
            threads: s.threads,
            warp_instructions: s.warp_instructions,
            thread_instructions: s.thread_instructions,
            simd_efficiency: s.simd_efficiency,
        }
    }
}

/// Result codes of `simt_launch`.
const SIMT_OK: c_int = 0;
const SIMT_REFUSED: c_int = 1;
const SIMT_FAULT: c_int = 2;

/// Launches kernel `kernel` (by name) of `module` on `grid` x `block` threads with `n_args`
/// arguments and `shared_bytes` of dynamic shared memory; fills `stats` (may be NULL). Returns `SIMT_OK`, `SIMT_REFUSED` (nothing ran)
/// or `SIMT_FAULT` (the kernel faulted; memory holds what it stored before).
///
/// # Safety
/// `module` is live; `kernel` is NUL-terminated; `args` points to `n_args` arguments whose
/// buffers and addresses are the caller's memory; `grid` and `block` point to 3 values each.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn simt_launch(
    module: *const SimtModule,
    kernel: *const c_char,
    args: *const SimtArg,
    n_args: usize,
    grid: *const u32,
    block: *const u32,
    shared_bytes: u32,
    stats: *mut SimtStats,
) -> c_int {
    let result = guarded(|| {
        // SAFETY: the caller's promises, above.
        let (module, kernel) =
            unsafe { (module.as_ref().ok_or("simt_launch: the module is NULL")?, kernel.as_ref().ok_or("simt_launch: the kernel name is NULL")?) };
        if grid.is_null() || block.is_null() || (args.is_null() && n_args > 0) {
            return Err("simt_launch: grid, block or args is NULL".to_string());
        }
        // SAFETY: as above.
        let kernel = unsafe { CStr::from_ptr(kernel) }.to_string_lossy();
        let index = module.module.kernels.iter().position(|k| k.name == kernel).ok_or_else(|| {
            let names: Vec<_> = module.module.kernels.iter().map(|k| format!("`{}`", k.name)).collect();
            format!("simt_launch: the module has no kernel `{kernel}`; it has {}", names.join(", "))
        })?;
        // SAFETY: as above.
        let (c_args, grid, block) =
            unsafe { (if n_args == 0 { &[][..] } else { std::slice::from_raw_parts(args, n_args) }, *grid.cast::<[u32; 3]>(), *block.cast::<[u32; 3]>()) };
        let mut host_args = Vec::with_capacity(n_args);
        for (i, a) in c_args.iter().enumerate() {
            host_args.push(match a.kind {
                SIMT_ARG_WORD => HostArg::Word(a.bits),
                SIMT_ARG_FLOAT => HostArg::Float(a.number),
                SIMT_ARG_BUFFER => HostArg::Memory { ptr: a.ptr, len: a.len },
                other => return Err(format!("simt_launch: argument {i} has kind {other}, which is none of SIMT_ARG_WORD, SIMT_ARG_FLOAT, SIMT_ARG_BUFFER")),
            });
        }
        // SAFETY: the caller promises the memory behind the arguments is theirs.
        let launched = unsafe { crate::launch(&module.module, index, &host_args, Shape { grid, block, shared_bytes }, &RunOptions::default()) };
        crate::write_printed(launched.as_ref().map_or_else(LaunchFailure::printed, |stats| &stats.printed));
        Ok(launched)
    });
    match result {
        Ok(Ok(run)) => {
            // SAFETY: `stats` is NULL or points to a `simt_stats` the caller owns.
            if let Some(out) = unsafe { stats.as_mut() } {
                *out = SimtStats::from(&run);
            }
            set_last_error("");
            SIMT_OK
        }
        Ok(Err(failure)) => {
            // SAFETY: as above: the module is live.
            set_last_error(&failure.render(&unsafe { &*module }.module));
            if matches!(failure, LaunchFailure::Fault(_)) { SIMT_FAULT } else { SIMT_REFUSED }
        }
        Err(message) => {
            set_last_error(&message);
            SIMT_REFUSED
        }
    }
}

/// Registers `[ptr, ptr + len)` as one allocation: addresses inside it passed as pointer
/// arguments reach exactly its end. Returns 0.
#[unsafe(no_mangle)]
pub extern "C" fn simt_register(ptr: *const u8, len: usize) -> c_int {
    crate::register(ptr as usize, len);
    0
}

/// Forgets the allocation registered at `ptr`: 0, or -1 when none was.
#[unsafe(no_mangle)]
pub extern "C" fn simt_unregister(ptr: *const u8) -> c_int {
    if crate::unregister(ptr as usize) { 0 } else { -1 }
}
