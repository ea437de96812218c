//! `libgpuocelot.so` as tinygrad's mock CUDA driver uses it: `dlopen`ed by its file name,
//! `ptx_run` over `malloc`ed memory with sm_35 PTX, bad pointers reported with the process
//! alive, several threads at once; and `simt.h` compiled into a C program that launches
//! through the typed API. (The ML corpora also run through `ptx_run`: `tests/ml_corpus.rs`.)

#[path = "support/ocelot.rs"]
mod ocelot;

use ocelot::Ocelot;

/// What the mock's PTX looks like: `.target sm_35`, pointers as `.u64` parameters used
/// without `cvta`, 64-bit address arithmetic. `out[i] = in[i] + 1` for `i < n`.
const ADD_ONE: &str = "
.version 7.5
.target sm_35
.address_size 64
.visible .entry add_one(.param .u64 out, .param .u64 in, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [in];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.s32 %r5, %r2, %r3, %r4;
	setp.ge.u32 %p1, %r5, %r1;
	@%p1 bra DONE;
	mul.wide.u32 %rd3, %r5, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.u32 %r2, [%rd4];
	add.s32 %r2, %r2, 1;
	add.s64 %rd5, %rd1, %rd3;
	st.global.u32 [%rd5], %r2;
DONE:
	ret;
}
";

/// `n` words of `malloc`ed memory holding `f(i)`, freed on drop.
struct Malloced {
    ptr: *mut u32,
    n: usize,
}

impl Malloced {
    fn new(n: usize, f: impl Fn(usize) -> u32) -> Malloced {
        // SAFETY: a plain allocation, checked, filled before use.
        let ptr = unsafe { libc::malloc(4 * n) }.cast::<u32>();
        assert!(!ptr.is_null());
        for i in 0..n {
            // SAFETY: `i < n` words were allocated.
            unsafe { ptr.add(i).write(f(i)) };
        }
        Malloced { ptr, n }
    }

    fn address(&self) -> u64 {
        self.ptr as u64
    }

    fn words(&self) -> Vec<u32> {
        // SAFETY: `n` initialised words.
        unsafe { std::slice::from_raw_parts(self.ptr, self.n) }.to_vec()
    }
}

impl Drop for Malloced {
    fn drop(&mut self) {
        // SAFETY: allocated by `malloc`, freed once.
        unsafe { libc::free(self.ptr.cast()) };
    }
}

#[test]
fn sm_35_ptx_runs_over_malloced_memory() {
    let lib = Ocelot::open();
    let input = Malloced::new(1000, |i| 3 * i as u32);
    let out = Malloced::new(1000, |_| 7);
    let error = lib.ptx_run(ADD_ONE, &mut [out.address(), input.address(), 999], [128, 1, 1], [8, 1, 1], 0);
    assert_eq!(error, "");
    let want: Vec<u32> = (0..1000).map(|i| if i < 999 { 3 * i + 1 } else { 7 }).collect();
    assert_eq!(out.words(), want, "thread 999 is past n and stores nothing");
}

#[test]
fn a_bad_pointer_is_a_fault_naming_it_and_the_process_lives_on() {
    let lib = Ocelot::open();
    let out = Malloced::new(32, |_| 7);
    let error = lib.ptx_run(ADD_ONE, &mut [out.address(), 0x10, 32], [32, 1, 1], [1, 1, 1], 0);
    assert!(error.contains("kernel `add_one` faulted"), "{error}");
    assert!(error.contains("host 0x10, not mapped in this process"), "{error}");
    assert!(error.contains("ld.global.u32 %r2, [%rd4];"), "the fault shows its PTX line: {error}");
    assert!(error.contains("thread (0,0,0)"), "{error}");
    assert_eq!(out.words(), vec![7; 32], "no thread got past the load");
    // The library still works after a fault.
    let input = Malloced::new(32, |i| i as u32);
    assert_eq!(lib.ptx_run(ADD_ONE, &mut [out.address(), input.address(), 32], [32, 1, 1], [1, 1, 1], 0), "");
    assert_eq!(out.words(), (1..=32).collect::<Vec<u32>>());
}

#[test]
fn a_registered_allocation_bounds_its_pointers_exactly() {
    let lib = Ocelot::open();
    let register: unsafe extern "C" fn(*const u8, usize) -> i32 = lib.function("simt_register");
    let unregister: unsafe extern "C" fn(*const u8) -> i32 = lib.function("simt_unregister");
    let input = Malloced::new(64, |i| i as u32);
    let out = Malloced::new(64, |_| 0);
    // SAFETY: the allocation is live; only its first 32 words are registered.
    unsafe { register(out.ptr.cast(), 128) };
    let error = lib.ptx_run(ADD_ONE, &mut [out.address(), input.address(), 64], [64, 1, 1], [1, 1, 1], 0);
    // SAFETY: registered above.
    assert_eq!(unsafe { unregister(out.ptr.cast()) }, 0);
    assert!(error.contains("faulted"), "thread 32 stores past the 128 registered bytes: {error}");
    assert!(error.contains("st.global.u32 [%rd5], %r2;"), "{error}");
    assert!(error.contains("thread (32,0,0)"), "{error}");
    assert_eq!(out.words()[32..], [0; 32], "nothing lands past the registered allocation");
}

#[test]
fn refusals_say_what_is_wrong() {
    let lib = Ocelot::open();
    let error = lib.ptx_run(ADD_ONE, &mut [0, 0], [1, 1, 1], [1, 1, 1], 0);
    assert!(error.contains("kernel `add_one` takes 3 arguments (.param .raw.u32 out, .param .raw.u32 in, .param .u32 n), but 2 were passed"), "{error}");
    let mma = ADD_ONE
        .replace("ret;", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r1,%r2}, {%f1,%f2,%f3,%f4};\n\tret;");
    let mma = mma.replace(".reg .b64 %rd<6>;", ".reg .b64 %rd<6>;\n\t.reg .f32 %f<5>;");
    let error = lib.ptx_run(&mma, &mut [0, 0, 0], [1, 1, 1], [1, 1, 1], 0);
    assert!(error.contains("this instruction needs target sm_80 (Ampere) or later, but the PTX targets sm_35 (Kepler)"), "{error}");
    let error = lib.ptx_run(&ADD_ONE.replace("sm_35", "sm_20"), &mut [0, 0, 0], [1, 1, 1], [1, 1, 1], 0);
    assert!(error.contains("`.target sm_20` is older than every target simt runs"), "{error}");
}

#[test]
fn threads_may_call_ptx_run_at_once() {
    let lib = Ocelot::open();
    std::thread::scope(|s| {
        for t in 0..8u32 {
            let lib = &lib;
            s.spawn(move || {
                for round in 0..20u32 {
                    let input = Malloced::new(300, |i| i as u32 * t + round);
                    let out = Malloced::new(300, |_| 0);
                    assert_eq!(lib.ptx_run(ADD_ONE, &mut [out.address(), input.address(), 300], [64, 1, 1], [5, 1, 1], 0), "");
                    assert_eq!(out.words(), (0..300).map(|i| i * t + round + 1).collect::<Vec<u32>>());
                }
            });
        }
    });
}

/// A C program over `simt.h`: loads `.s` text, launches with typed arguments, reads the
/// statistics and an error. Skipped, saying why, where no C compiler is installed.
#[test]
fn simt_h_compiles_and_its_api_launches_kernels() {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    if std::process::Command::new(&cc).arg("--version").output().is_err() {
        eprintln!("skipped: no C compiler `{cc}` (install gcc or clang, or set CC)");
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let program = scratch.path().join("launch.c");
    std::fs::write(&program, C_PROGRAM).unwrap();
    let lib = Ocelot::path();
    let include = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../simt-capi/include");
    let dir = lib.parent().unwrap();
    let exe = scratch.path().join("launch");
    let built = std::process::Command::new(&cc)
        .arg(&program)
        .arg("-I")
        .arg(&include)
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", dir.display()))
        .args(["-Wall", "-Werror", "-o"])
        .arg(&exe)
        .output()
        .unwrap();
    assert!(built.status.success(), "cc failed:\n{}", String::from_utf8_lossy(&built.stderr));
    let ran = std::process::Command::new(&exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&ran.stdout);
    assert!(ran.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&ran.stderr));
    insta::assert_snapshot!(stdout);
}

const C_PROGRAM: &str = r#"
#include <stdio.h>
#include <string.h>
#include "simt.h"

static const char *SAXPY =
    ".kernel saxpy\n.param .u32 n\n.param .f32 a\n.param .ptr.f32 x\n.param .ptr.f32 y\n"
    "    S2R R0, SR_TID.X\n    S2R R1, SR_CTAID.X\n    S2R R2, SR_NTID.X\n    IMAD R0, R1, R2, R0\n"
    "    LD.PARAM.U32 R3, [n]\n    ISETP.GE.U32 P0, R0, R3\n@P0 EXIT\n"
    "    LD.PARAM.U32 R4, [x]\n    LD.PARAM.U32 R5, [y]\n    SHL R6, R0, 2\n    IADD R4, R4, R6\n    IADD R5, R5, R6\n"
    "    LD.GLOBAL.F32 R7, [R4]\n    LD.GLOBAL.F32 R8, [R5]\n    LD.PARAM.F32 R9, [a]\n    FFMA R8, R9, R7, R8\n"
    "    ST.GLOBAL.F32 [R5], R8\n    EXIT\n";

int main(void) {
  simt_module *m = simt_module_load(SAXPY, strlen(SAXPY), "saxpy.s");
  if (!m) { printf("load failed: %s\n", simt_last_error()); return 1; }
  printf("kernels: %zu, first: %s\n", simt_module_kernel_count(m), simt_module_kernel_name(m, 0));
  float x[100], y[100];
  for (int i = 0; i < 100; i++) { x[i] = (float)i; y[i] = 1.0f; }
  simt_arg args[4] = {simt_arg_u32(100), simt_arg_f32(2.0f), simt_arg_buffer(x, sizeof x), simt_arg_buffer(y, sizeof y)};
  uint32_t grid[3] = {2, 1, 1}, block[3] = {64, 1, 1};
  simt_stats stats;
  int rc = simt_launch(m, "saxpy", args, 4, grid, block, 0, &stats);
  printf("rc %d, y[0] %g, y[99] %g, error \"%s\"\n", rc, y[0], y[99], simt_last_error());
  printf("blocks %llu, warps %llu, threads %llu, warp instructions %llu, thread instructions %llu, simd efficiency %.3f\n",
         (unsigned long long)stats.blocks, (unsigned long long)stats.warps, (unsigned long long)stats.threads,
         (unsigned long long)stats.warp_instructions, (unsigned long long)stats.thread_instructions, stats.simd_efficiency);
  rc = simt_launch(m, "saxpi", args, 4, grid, block, 0, NULL);
  printf("rc %d: %s\n", rc, simt_last_error());
  rc = simt_launch(m, "saxpy", args, 3, grid, block, 0, NULL);
  printf("rc %d: %s\n", rc, simt_last_error());
  args[3] = simt_arg_buffer(y, 40);
  rc = simt_launch(m, "saxpy", args, 4, grid, block, 0, NULL);
  printf("rc %d: %s\n", rc, simt_last_error());
  simt_module_free(m);
  m = simt_module_load("  BOGUS R1\n", 11, "bad.s");
  printf("load of bad text: %s\n%s\n", m ? "a module" : "NULL", simt_last_error());
  return 0;
}
"#;
