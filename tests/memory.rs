//! Peak memory of `simt` commands that once multiplied their input: each case runs the
//! command as a child and reads its peak resident set (`wait4`'s `ru_maxrss`), then
//! checks it against the bound `docs/cli.md` documents (the inputs plus a small
//! constant, never a product with the thread count or with state the kernel does not use).
#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::{Command, Stdio};

use tempfile::TempDir;

const MIB: u64 = 1 << 20;

/// Held by each test for its whole run. Linux copies a process's peak-RSS record into a
/// forked child and `exec` does not reset it, so a child's `ru_maxrss` is at least the test
/// process's own resident set at the fork: the cases run one at a time so that no other
/// case's large source text is resident then.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs `simt args` in `dir` with output discarded; returns (exit code, peak RSS in bytes).
// The child is reaped by `wait4`, which also gives its peak memory.
#[allow(clippy::zombie_processes)]
fn peak_rss(dir: &Path, args: &[&str]) -> (i32, u64) {
    let child = Command::new(env!("CARGO_BIN_EXE_simt")).current_dir(dir).args(args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("simt starts");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of that plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, writing into the two locals.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t, "wait4");
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { -1 };
    (code, usage.ru_maxrss as u64 * 1024)
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    std::fs::write(dir.join(name), text).unwrap();
    name.to_string()
}

const SAXPY: &str = ".kernel saxpy\n.param .u32 n\n.param .f32 a\n.param .ptr.f32 x\n.param .ptr.f32 y\n\
    S2R R0, SR_TID.X\nS2R R1, SR_CTAID.X\nS2R R2, SR_NTID.X\nIMAD R0, R1, R2, R0\nLD.PARAM.U32 R3, [n]\n\
    ISETP.GE.U32 P0, R0, R3\n@P0 EXIT\nLD.PARAM.U32 R4, [x]\nLD.PARAM.U32 R5, [y]\nLEA R4, R0, R4, 2\n\
    LEA R5, R0, R5, 2\nLD.GLOBAL.F32 R6, [R4]\nLD.GLOBAL.F32 R7, [R5]\nLD.PARAM.F32 R8, [a]\n\
    FFMA R7, R8, R6, R7\nST.GLOBAL.F32 [R5], R7\nEXIT\n";

#[test]
fn dumps_stream_instead_of_copying_buffers() {
    let _serial = one_at_a_time();
    let dir = TempDir::new().unwrap();
    let k = write(dir.path(), "saxpy.s", SAXPY);
    let n = 8 << 20; // two buffers of 32 MiB
    let args = |extra: &[&'static str]| {
        let mut a = vec![
            "run".to_string(),
            k.clone(),
            "--grid".into(),
            (n / 256).to_string(),
            "--block".into(),
            "256".into(),
            "--arg".into(),
            format!("n={n}"),
            "--arg".into(),
            "a=2".into(),
            "--arg".into(),
            format!("x=iota({n})"),
            "--arg".into(),
            format!("y=fill({n}, 1)"),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let buffers = 2 * 4 * n as u64;
    for extra in [&["--dump", "y"][..], &["--json", "--dump", "y"], &["--dump", "y=out.npy"]] {
        let a = args(extra);
        let (code, peak) = peak_rss(dir.path(), &a.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(code, 0, "{extra:?}");
        assert!(peak < buffers + 48 * MIB, "{extra:?}: peak {} MiB for {} MiB of buffers", peak / MIB, buffers / MIB);
    }
}

#[test]
fn the_assembler_keeps_a_hundred_diagnostics_not_all() {
    let _serial = one_at_a_time();
    let dir = TempDir::new().unwrap();
    let k = write(dir.path(), "bad.s", &format!(".kernel k\n{}", "FOO R1, R2\n".repeat(1_000_000)));
    let (code, peak) = peak_rss(dir.path(), &["asm", &k]);
    assert_eq!(code, 1);
    assert!(peak < 64 * MIB, "peak {} MiB for an 11 MiB source of bad lines", peak / MIB);
}

#[test]
fn per_thread_state_is_capped_whatever_the_thread_count() {
    let _serial = one_at_a_time();
    let dir = TempDir::new().unwrap();
    // 256k instructions: 8 MiB of statistics counters per OS thread.
    let k = write(dir.path(), "long.s", &format!(".kernel k\n.launch grid(64) block(32)\n{}EXIT\n", "NOP\n".repeat(256 * 1024)));
    let (code, few) = peak_rss(dir.path(), &["run", &k, "--threads", "2"]);
    assert_eq!(code, 0);
    let (code, many) = peak_rss(dir.path(), &["run", &k, "--threads", "1024"]);
    assert_eq!(code, 0);
    // Uncapped, 1024 threads would hold 8 GiB of counters; the slack covers the capped
    // threads' stacks and the allocator's arenas, which vary with how many run at once.
    assert!(many < few + simt_isa::THREAD_STATE_BUDGET + 64 * MIB, "2 threads: {} MiB, 1024 threads: {} MiB", few / MIB, many / MIB);
}

#[test]
fn buffers_fill_the_32_bit_space_and_cost_only_the_pages_a_kernel_touches() {
    let _serial = one_at_a_time();
    let dir = TempDir::new().unwrap();
    // `pad` pushes `x` and `hits` to the top of the 32-bit space, past 2^31 and within
    // 40 MiB of 2^32; 32-bit loads and stores reach `x`, a 64-bit atomic reaches `hits`.
    let k = write(
        dir.path(),
        "high.s",
        ".kernel high\n.param .ptr.u32 pad\n.param .ptr.u32 x\n.param .u64 hits\n.launch grid(2) block(64)\n\
         S2R R0, SR_TID.X\nS2R R2, SR_CTAID.X\nIMAD R0, R2, 64, R0\nLD.PARAM.U32 R1, [x]\nLEA R3, R0, R1, 2\nLD.GLOBAL.U32 R4, [R3]\nIADD R4, R4, R0\n\
         ST.GLOBAL.U32 [R3], R4\nLD.PARAM.B64 R6, [hits]\nATOM.GLOBAL.E.ADD.U32 R8, [R6+4], 1\nEXIT\n",
    );
    let pad_words = (simt_isa::MAX_TOTAL_BUFFER_BYTES - 40 * MIB) / 4;
    let pad = format!("pad=zeros({pad_words})");
    for timing in [&[][..], &["--timing", "h100"][..]] {
        let mut args = vec!["run", &k, "--arg", &pad, "--arg", "x=fill(128, 7)", "--arg", "hits=zeros(2)", "--dump", "x", "--dump", "hits"];
        args.extend_from_slice(timing);
        let out = Command::new(env!("CARGO_BIN_EXE_simt")).current_dir(dir.path()).args(&args).output().expect("simt starts");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        // Thread i adds i to x[i]; all 128 add 1 to hits[1].
        let x: Vec<String> = (0..128).map(|i| (7 + i).to_string()).collect();
        assert!(stdout.starts_with(&format!("x:\n{}\nhits:\n0\n128\n", x.join("\n"))), "{args:?}:\n{stdout}");
        let (code, peak) = peak_rss(dir.path(), &args);
        assert_eq!(code, 0);
        assert!(peak < 64 * MIB, "{args:?}: peak {} MiB for 4 GiB of buffers, nearly all untouched", peak / MIB);
    }
}

#[test]
fn declared_but_unused_state_costs_nothing() {
    let _serial = one_at_a_time();
    let dir = TempDir::new().unwrap();
    // 64 MiB of local memory per block and the largest shared memory, on many threads, with
    // every sanitizer: blocks that only exit touch none of it.
    let k = write(dir.path(), "idle.s", ".kernel k\n.shared .u8 s[200000]\n.local 65536\n.launch grid(1000) block(1024)\nEXIT\n");
    let (code, peak) = peak_rss(dir.path(), &["run", &k, "--threads", "64", "--check", "racecheck,initcheck,synccheck"]);
    assert_eq!(code, 0);
    assert!(peak < 96 * MIB, "peak {} MiB", peak / MIB);
}

#[test]
fn a_long_literal_list_costs_a_bounded_multiple_of_itself() {
    let _serial = one_at_a_time();
    let dir = TempDir::new().unwrap();
    // About half a million elements: a million tokens with the commas, the most a statement holds.
    let list = vec!["7"; 500_000].join(",");
    let k = write(dir.path(), "list.s", &format!(".kernel k\n.param .ptr.u32 x\n.arg x = [{list}]\nEXIT\n"));
    let (code, peak) = peak_rss(dir.path(), &["asm", &k]);
    assert_eq!(code, 0);
    assert!(peak < 160 * MIB, "peak {} MiB for a 1 MiB list", peak / MIB);
}

/// `docs/ptx.md`, "Limits": translating PTX takes at most about 30 times the file's size (plus
/// the register allocator's tables, which grow with one kernel's registers, not with the file).
#[test]
fn ptx_translation_stays_within_thirty_times_the_file() {
    let _serial = one_at_a_time();
    let dir = TempDir::new().unwrap();
    // 10,000 kernels of 20 instructions, as a large library of small kernels is: 6.8 MB.
    let body = "{\n.reg .pred %p<3>;\n.reg .b32 %r<12>;\n.reg .f32 %f<6>;\n.reg .b64 %rd<10>;\nld.param.u64 %rd1, [p0];\n\
        ld.param.u64 %rd2, [p1];\nld.param.u32 %r1, [p2];\nmov.u32 %r2, %ctaid.x;\nmov.u32 %r3, %ntid.x;\nmov.u32 %r4, %tid.x;\n\
        mad.lo.s32 %r5, %r2, %r3, %r4;\nsetp.ge.s32 %p1, %r5, %r1;\n@%p1 bra $L_END;\ncvta.to.global.u64 %rd3, %rd1;\n\
        cvta.to.global.u64 %rd4, %rd2;\nmul.wide.s32 %rd5, %r5, 4;\nadd.s64 %rd6, %rd3, %rd5;\nadd.s64 %rd7, %rd4, %rd5;\n\
        ld.global.f32 %f1, [%rd6];\nld.global.f32 %f2, [%rd7];\nfma.rn.f32 %f3, %f1, 0f40000000, %f2;\nmul.f32 %f4, %f3, %f3;\n\
        add.f32 %f5, %f4, %f1;\nst.global.f32 [%rd7], %f5;\n$L_END:\nret;\n}\n";
    let mut text = String::from(".version 7.0\n.target sm_70\n.address_size 64\n");
    for i in 0..10_000 {
        text.push_str(&format!(".visible .entry k{i}(.param .u64 p0, .param .u64 p1, .param .u32 p2)\n{body}"));
    }
    let k = write(dir.path(), "many.ptx", &text);
    let (code, peak) = peak_rss(dir.path(), &["ptx", &k, "-o", "many.s"]);
    assert_eq!(code, 0);
    let size = text.len() as u64;
    assert!(peak < 30 * size + 32 * MIB, "peak {} MiB for a {} MiB file", peak / MIB, size / MIB);
}
