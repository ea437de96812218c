//! simt's `libgpuocelot.so` loaded as a program loads GPU Ocelot's: `dlopen` by its file
//! name, functions looked up by name. Shared by the tests that call it.

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::PathBuf;

/// `ptx_run` of `simt.h` (GPU Ocelot's signature).
pub type PtxRun = unsafe extern "C" fn(*const c_char, c_int, *mut *mut c_void, c_int, c_int, c_int, c_int, c_int, c_int, c_int);

/// The library, open for the life of the test process.
pub struct Ocelot {
    handle: *mut c_void,
}

// SAFETY: a dlopen handle may be used from any thread.
unsafe impl Send for Ocelot {}
unsafe impl Sync for Ocelot {}

impl Ocelot {
    /// Where cargo put the library: beside this test binary (`deps/`, where a dependency's
    /// cdylib lands) or one directory up (where `cargo build` puts it).
    pub fn path() -> PathBuf {
        let exe = std::env::current_exe().unwrap();
        let deps = exe.parent().unwrap();
        let name = format!("{}gpuocelot{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX);
        [deps.join(&name), deps.parent().unwrap().join(&name)]
            .into_iter()
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("{name} is not built beside {}", deps.display()))
    }

    /// Opens the library.
    pub fn open() -> Ocelot {
        let path = CString::new(Ocelot::path().to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path; the library's initialisers are Rust's, which are sound.
        let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        assert!(!handle.is_null(), "dlopen {path:?} failed");
        Ocelot { handle }
    }

    /// The function `name`, as a `T` (a function pointer type matching its C declaration).
    pub fn function<T: Copy>(&self, name: &str) -> T {
        assert_eq!(std::mem::size_of::<T>(), std::mem::size_of::<*mut c_void>());
        let symbol = CString::new(name).unwrap();
        // SAFETY: a live handle and a NUL-terminated name.
        let found = unsafe { libc::dlsym(self.handle, symbol.as_ptr()) };
        assert!(!found.is_null(), "the library exports no `{name}`");
        // SAFETY: the caller names a function of this type, and pointers have its size.
        unsafe { std::mem::transmute_copy(&found) }
    }

    /// Runs the NUL-less `ptx` through `ptx_run` with `args` (block before grid, as Ocelot
    /// takes them) and `shared` bytes of dynamic shared memory; returns `simt_last_error`:
    /// empty when it ran.
    pub fn ptx_run(&self, ptx: &str, args: &mut [u64], block: [u32; 3], grid: [u32; 3], shared: u32) -> String {
        let ptx_run: PtxRun = self.function("ptx_run");
        let last_error: unsafe extern "C" fn() -> *const c_char = self.function("simt_last_error");
        let text = CString::new(ptx).unwrap();
        let d = |x: u32| x as c_int;
        // SAFETY: the text is NUL-terminated; `args` holds `args.len()` words, each a value
        // or the address of memory the caller owns.
        unsafe {
            ptx_run(
                text.as_ptr(),
                args.len() as c_int,
                args.as_mut_ptr().cast(),
                d(block[0]),
                d(block[1]),
                d(block[2]),
                d(grid[0]),
                d(grid[1]),
                d(grid[2]),
                d(shared),
            );
            CStr::from_ptr(last_error()).to_string_lossy().into_owned()
        }
    }
}
