//! GPU Ocelot's `ptx_run`, the one C function tinygrad's mock CUDA driver launches every
//! kernel through (`test/mockgpu/helpers.py`): PTX text, the kernel's arguments as 64-bit
//! words (buffers as host addresses), block before grid, and the dynamic shared memory size.

use std::ffi::{CStr, c_char, c_int, c_void};

use simt_interp::RunOptions;

use crate::c_api::{guarded, set_last_error};
use crate::{HostArg, LaunchFailure, Shape};

/// Runs the first kernel of the NUL-terminated PTX `ptx` once: `args[i]` is the value of
/// its i-th parameter (a host address for a pointer). Errors and faults are printed to
/// stderr, prefixed `simt: ptx_run:`, and kept as `simt_last_error`; the function returns
/// nothing, as Ocelot's does.
///
/// # Safety
/// `ptx` is NUL-terminated; `args` points to `n_args` words; every address among them is
/// memory the caller owns for the call.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)] // Ocelot's signature, which callers bind to.
pub unsafe extern "C" fn ptx_run(
    ptx: *const c_char,
    n_args: c_int,
    args: *mut *mut c_void,
    block_x: c_int,
    block_y: c_int,
    block_z: c_int,
    grid_x: c_int,
    grid_y: c_int,
    grid_z: c_int,
    shared_mem_size: c_int,
) {
    let result = guarded(|| {
        if ptx.is_null() {
            return Err("the PTX text is NULL".into());
        }
        // SAFETY: the caller promises a NUL-terminated string.
        let text = unsafe { CStr::from_ptr(ptx) }.to_str().map_err(|e| format!("the PTX text is not UTF-8 ({e})"))?;
        let n_args = usize::try_from(n_args).map_err(|_| format!("{n_args} arguments"))?;
        if args.is_null() && n_args > 0 {
            return Err("args is NULL".into());
        }
        // SAFETY: the caller promises `n_args` words at `args`.
        let words = if n_args == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(args, n_args) } };
        let dims = |what: &str, d: [c_int; 3]| -> Result<[u32; 3], String> {
            let mut out = [0; 3];
            for (o, v) in out.iter_mut().zip(d) {
                *o = u32::try_from(v).map_err(|_| format!("{what} ({}, {}, {}) has a negative extent", d[0], d[1], d[2]))?;
            }
            Ok(out)
        };
        let shared_bytes = u32::try_from(shared_mem_size).map_err(|_| format!("shared_mem_size is {shared_mem_size}"))?;
        let shape = Shape { grid: dims("grid", [grid_x, grid_y, grid_z])?, block: dims("block", [block_x, block_y, block_z])?, shared_bytes };
        let module = crate::load_cached("ptx_run.ptx", text).map_err(|e| e.to_string())?;
        let host_args: Vec<HostArg> = words.iter().map(|&w| HostArg::Word(w as u64)).collect();
        // SAFETY: the caller promises the addresses are their memory.
        let launched = unsafe { crate::launch(&module, 0, &host_args, shape, &RunOptions::default()) };
        crate::write_printed(launched.as_ref().map_or_else(LaunchFailure::printed, |stats| &stats.printed));
        launched.map_err(|failure| failure.render(&module))
    });
    match result {
        Ok(_) => set_last_error(""),
        Err(message) => {
            eprintln!("simt: ptx_run: {}", message.trim_end());
            set_last_error(&message);
        }
    }
}
