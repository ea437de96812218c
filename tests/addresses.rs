//! 64-bit addresses as a user meets them: the `.E` and `.GENERIC.E` forms of the `.s`
//! language, PTX's generic pointers (`cvta`, `isspacep`, pointers kept in memory and loaded
//! back, a pointer to local memory), high words no region has, and how a PTX `.u64`
//! parameter binds (a buffer, an integer, nothing). Every run goes under both SIMT models and
//! timed on h100, which must agree.

use std::path::Path;
use std::process::Command;

use tempfile::TempDir;

/// Lanes keep generic pointers in shared memory and load them back: even lanes point into
/// shared memory, odd lanes into their own local memory, so one warp's accesses split
/// between spaces. Each lane then counts itself through a generic atomic on a shared and a
/// global counter, and writes what it read through a generic pointer to global memory.
const WINDOWS_S: &str = "\
.kernel windows
.param .u64 out
.param .u64 count
.shared .align 8 .u8 slots[256]
.shared .u8 data[128]
.shared .u8 tally[4]
.local 4
.launch grid(2) block(32)
    S2R  R0, SR_TID.X
    SHL  R1, R0, 2
    IADD R2, R0, 100
    ST.SHARED.U32 [R1+data], R2
    IMUL R3, R0, 7
    ST.LOCAL.U32 [RZ], R3
    AND  R4, R0, 1
    ISETP.EQ P0, R4, 0
@P0 IADD R6, R1, data
@P0 MOV  R7, 0x10000
@!P0 MOV R6, 0
@!P0 MOV R7, 0x20000
    SHL  R8, R0, 3
    ST.SHARED.B64 [R8+slots], R6
    BAR.SYNC
    LD.SHARED.B64 R10, [R8+slots]
    LD.GENERIC.E.U32 R12, [R10]
    MOV  R14, tally
    MOV  R15, 0x10000
    ATOM.GENERIC.E.ADD.U32 RZ, [R14], 1
    BAR.SYNC
    LD.PARAM.B64 R16, [count]
    LD.SHARED.U32 R13, [tally]
    ISETP.EQ P1, R0, 0
@P1 ATOM.GLOBAL.E.ADD.U32 RZ, [R16], R13
    LD.PARAM.B64 R18, [out]
    IMUL.WIDE.U32 R20, R0, 4
    IADD64 R18, R18, R20
    ST.GENERIC.E.U32 [R18], R12
    EXIT
";

/// The same ideas in PTX, as compilers write them: `cvta` into and out of the windows,
/// pointers stored to shared memory and loaded back (their origin unknown to the
/// translation), a pointer to local memory, `isspacep`.
const WINDOWS_PTX: &str = "\
.version 8.0
.target sm_80
.address_size 64

.visible .entry windows(.param .u64 out, .param .u64 flags)
{
	.reg .pred %p<4>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<16>;
	.shared .align 8 .b64 slots[64];
	.shared .align 4 .b32 data[32];
	.local .align 4 .b32 mine[1];

	mov.u32 %r1, %tid.x;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [flags];
	mul.wide.u32 %rd3, %r1, 4;
	mov.u64 %rd4, data;
	cvta.shared.u64 %rd5, %rd4;
	add.s64 %rd6, %rd5, %rd3;
	add.u32 %r2, %r1, 100;
	st.u32 [%rd6], %r2;
	mov.u64 %rd7, mine;
	cvta.local.u64 %rd8, %rd7;
	mul.lo.u32 %r3, %r1, 7;
	st.u32 [%rd8], %r3;
	mov.u64 %rd9, slots;
	mul.wide.u32 %rd10, %r1, 16;
	add.s64 %rd11, %rd9, %rd10;
	st.shared.u64 [%rd11], %rd6;
	st.shared.u64 [%rd11+8], %rd8;
	bar.sync 0;
	ld.shared.u64 %rd12, [%rd11];
	ld.shared.u64 %rd13, [%rd11+8];
	ld.u32 %r4, [%rd12];
	ld.u32 %r5, [%rd13];
	add.u32 %r6, %r4, %r5;
	cvta.global.u64 %rd14, %rd1;
	add.s64 %rd14, %rd14, %rd3;
	st.u32 [%rd14], %r6;
	isspacep.shared %p1, %rd12;
	isspacep.local %p2, %rd13;
	isspacep.global %p3, %rd14;
	selp.u32 %r7, 1, 0, %p1;
	selp.u32 %r8, 2, 0, %p2;
	selp.u32 %r9, 4, 0, %p3;
	or.b32 %r10, %r7, %r8;
	or.b32 %r10, %r10, %r9;
	isspacep.global %p1, %rd12;
	selp.u32 %r11, 8, 0, %p1;
	or.b32 %r10, %r10, %r11;
	cvta.to.shared.u64 %rd15, %rd12;
	cvt.u32.u64 %r11, %rd15;
	shl.b32 %r11, %r11, 8;
	or.b32 %r10, %r10, %r11;
	add.s64 %rd2, %rd2, %rd3;
	st.global.u32 [%rd2], %r10;
	ret;
}
";

/// A `.u64` the translation cannot follow to an access (it reaches one only through shared
/// memory), a pointer parameter, and a trailing `.u64` the kernel never reads.
const BINDING_PTX: &str = "\
.version 8.0
.target sm_80
.address_size 64

.visible .entry bind(.param .u64 src, .param .u64 dst, .param .u64 scale, .param .u64 unused)
{
	.reg .b32 %r<6>;
	.reg .b64 %rd<8>;
	.shared .align 8 .b64 keep[1];

	mov.u32 %r1, %tid.x;
	ld.param.u64 %rd1, [src];
	ld.param.u64 %rd2, [dst];
	ld.param.u64 %rd3, [scale];
	st.shared.u64 [keep], %rd2;
	ld.shared.u64 %rd4, [keep];
	mul.wide.u32 %rd5, %r1, 4;
	add.s64 %rd6, %rd1, %rd5;
	ld.global.u32 %r2, [%rd6];
	cvt.u32.u64 %r3, %rd3;
	mul.lo.u32 %r4, %r2, %r3;
	add.s64 %rd7, %rd4, %rd5;
	st.global.u32 [%rd7], %r4;
	ret;
}
";

/// Faults: each kernel's one access has a 64-bit address no region contains.
const FAULTS_S: &str = "\
.kernel far_global
.param .u64 p
.launch grid(1) block(32)
    LD.PARAM.B64 R2, [p]
    LD.GLOBAL.E.U32 R0, [R2+4]
    EXIT

.kernel far_generic
.param .u64 p
.launch grid(1) block(32)
    LD.PARAM.B64 R2, [p]
    ST.GENERIC.E.U32 [R2], RZ
    EXIT

.kernel far_shared
.shared .u8 s[64]
.launch grid(1) block(32)
    MOV R2, 8
    MOV R3, 0x10000
    LD.SHARED.E.U32 R0, [R2]
    EXIT

.kernel local_atomic
.local 16
.launch grid(1) block(32)
    MOV R2, 0
    MOV R3, 0x20000
    ATOM.GENERIC.E.ADD.U32 R0, [R2], 1
    EXIT
";

/// Block b scales the first n floats of buffer b by b + 1, reaching it through a table of
/// pointers (`float **`) as Triton's grouped GEMM reaches its matrices.
const TABLE_PTX: &str = "\
.version 7.0
.target sm_80
.address_size 64
.visible .entry scale_each(.param .u64 table, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<5>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [table];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %ctaid.x;
	mul.wide.u32 %rd3, %r1, 8;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.u64 %rd5, [%rd4];
	mov.u32 %r2, %tid.x;
	ld.param.u32 %r3, [n];
	setp.ge.u32 %p1, %r2, %r3;
	@%p1 bra DONE;
	mul.wide.u32 %rd6, %r2, 4;
	add.s64 %rd7, %rd5, %rd6;
	ld.global.f32 %f1, [%rd7];
	add.u32 %r4, %r1, 1;
	cvt.rn.f32.u32 %f2, %r4;
	mul.f32 %f3, %f1, %f2;
	st.global.f32 [%rd7], %f3;
DONE:
	ret;
}
";

const MODES: [&[&str]; 3] = [&["--simt", "its"], &["--simt", "stack"], &["--timing", "h100"]];

fn workspace() -> TempDir {
    let dir = TempDir::new().expect("a temporary folder");
    for (name, text) in [("windows.s", WINDOWS_S), ("windows.ptx", WINDOWS_PTX), ("bind.ptx", BINDING_PTX), ("faults.s", FAULTS_S), ("table.ptx", TABLE_PTX)] {
        std::fs::write(dir.path().join(name), text).expect("write a fixture");
    }
    dir
}

/// Runs `simt` in `dir`: (exit code, stdout, stderr).
fn simt(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_simt")).current_dir(dir).args(args).env("NO_COLOR", "1").output().expect("run simt");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Runs `args` under every mode; each must succeed and print the same dumps.
fn dumps_everywhere(dir: &Path, args: &[&str]) -> String {
    let mut first: Option<String> = None;
    for mode in MODES {
        let all: Vec<&str> = args.iter().chain(mode.iter()).copied().collect();
        let (code, stdout, stderr) = simt(dir, &all);
        assert_eq!(code, 0, "simt {}: {stderr}", all.join(" "));
        // The dumps come first; a timed run prints its report after them.
        let dumps: String = stdout.lines().take_while(|l| !l.trim().is_empty() && !l.starts_with("timing")).map(|l| format!("{l}\n")).collect();
        match &first {
            None => first = Some(dumps),
            Some(f) => assert_eq!(f, &dumps, "{} disagrees", mode.join(" ")),
        }
    }
    first.expect("three modes ran")
}

/// The values printed under `name:` (a run with two or more dumps heads each with its name).
fn dump_values(text: &str, name: &str) -> Vec<u64> {
    let mut lines = text.lines().skip_while(|l| *l != format!("{name}:")).skip(1);
    std::iter::from_fn(|| lines.next().and_then(|l| l.trim().parse().ok())).collect()
}

#[test]
fn generic_windows_in_the_s_language() {
    let dir = workspace();
    let out = dumps_everywhere(dir.path(), &["run", "windows.s", "--arg", "out=zeros(32)", "--arg", "count=zeros(1)", "--dump", "out", "--dump", "count"]);
    let want: Vec<u64> = (0..32).map(|l| if l % 2 == 0 { 100 + l } else { 7 * l }).collect();
    assert_eq!(dump_values(&out, "out"), want);
    // Both blocks counted their 32 lanes in shared memory, then once each in global memory.
    assert_eq!(dump_values(&out, "count"), [64]);
}

#[test]
fn ptx_generic_pointers_cvta_and_isspacep() {
    let dir = workspace();
    let out = dumps_everywhere(
        dir.path(),
        &["run", "windows.ptx", "--grid", "1", "--block", "32", "--arg", "out=zeros(32)", "--arg", "flags=zeros(32)", "--dump", "out", "--dump", "flags"],
    );
    // Through shared memory (100 + lane) plus through local memory (7 * lane).
    assert_eq!(dump_values(&out, "out"), (0..32).map(|l| 100 + 8 * l).collect::<Vec<_>>());
    // isspacep: shared 1, local 2, global 4, and not global for the shared pointer; then the
    // shared offset cvta.to.shared gives back (`data` at 512), shifted up.
    assert_eq!(dump_values(&out, "flags"), (0..32).map(|l| 7 | (512 + 4 * l) << 8).collect::<Vec<_>>());
    // The pointers loaded back are resolved as they run; the ones the translation proves
    // shared or local stay 32-bit accesses of that space.
    let (_, listing, _) = simt(dir.path(), &["ptx", "windows.ptx"]);
    assert!(listing.contains("LD.GENERIC.E.U32"), "{listing}");
    assert!(listing.contains("ST.SHARED.U32"), "{listing}");
    assert!(listing.contains("ST.GLOBAL.E.U32"), "{listing}");
}

#[test]
fn a_ptx_u64_takes_a_buffer_an_integer_or_nothing() {
    let dir = workspace();
    // `dst` reaches its store only through shared memory: a `.u64`, given a buffer.
    let out = dumps_everywhere(
        dir.path(),
        &[
            "run",
            "bind.ptx",
            "--grid",
            "1",
            "--block",
            "4",
            "--arg",
            "src=iota(4)",
            "--arg",
            "dst=zeros(4)",
            "--arg",
            "scale=3",
            "--dump",
            "src",
            "--dump",
            "dst",
        ],
    );
    assert_eq!(dump_values(&out, "src"), [0, 1, 2, 3]);
    assert_eq!(dump_values(&out, "dst"), [0, 3, 6, 9]);
    let (_, listing, _) = simt(dir.path(), &["disasm", "bind.ptx"]);
    assert!(listing.contains(".param .raw.u32 src") && listing.contains(".param .u64 dst") && listing.contains(".param .u64 unused"), "{listing}");
    // `scale` given a buffer holds its address, which the kernel multiplies by: a number.
    let (code, _, _) =
        simt(dir.path(), &["run", "bind.ptx", "--grid", "1", "--block", "4", "--arg", "src=iota(4)", "--arg", "dst=zeros(4)", "--arg", "scale=zeros(1)"]);
    assert_eq!(code, 0);
    // A pointer parameter takes an integer address: 0 here, which faults when followed.
    let (code, _, stderr) =
        simt(dir.path(), &["run", "bind.ptx", "--grid", "1", "--block", "4", "--arg", "src=0", "--arg", "dst=zeros(4)", "--arg", "scale=1"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("LD.GLOBAL.E.U32 reads address 0x0: addresses below 0x100 are never mapped"), "{stderr}");
    // A `.u64` given a number has no buffer to dump.
    let (code, _, stderr) =
        simt(dir.path(), &["run", "bind.ptx", "--grid", "1", "--block", "4", "--arg", "src=iota(4)", "--arg", "dst=0", "--arg", "scale=1", "--dump", "dst"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("u64_number_dumped", stderr);
    // A pointer parameter's integer is a 32-bit GLOBAL address.
    let (code, _, stderr) =
        simt(dir.path(), &["run", "bind.ptx", "--grid", "1", "--block", "4", "--arg", "src=0x100000000", "--arg", "dst=zeros(4)", "--arg", "scale=1"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("pointer_given_a_wide_integer", stderr);
}

#[test]
fn pointers_give_a_kernel_a_table_of_buffer_addresses() {
    let dir = workspace();
    let run = ["run", "table.ptx", "--grid", "3", "--block", "32", "--arg", "n=4", "--arg", "table=pointers(iota(4), fill(4, 1), [1, 2, 3, 4], type=f32)"];
    let dumps = ["--dump", "table.0", "--dump", "0.1", "--dump", "table.2", "--dump", "table"];
    let out = dumps_everywhere(dir.path(), &[&run[..], &dumps[..]].concat());
    let values = |name: &str| -> Vec<String> { out.lines().skip_while(|l| *l != format!("{name}:")).skip(1).take(4).map(str::to_string).collect() };
    assert_eq!(values("table.0"), ["0", "1", "2", "3"]);
    assert_eq!(values("table.1"), ["2", "2", "2", "2"]);
    assert_eq!(values("table.2"), ["3", "6", "9", "12"]);
    // The table holds each buffer's 64-bit address, in order.
    let addresses = dump_values(&out, "table");
    assert!(addresses.len() == 3 && addresses.windows(2).all(|w| w[0] < w[1]), "{out}");
    // A buffer the table does not have, and pointers for a scalar.
    let (code, _, stderr) = simt(dir.path(), &[&run[..], &["--dump", "table.3"]].concat());
    assert_eq!(code, 1);
    insta::assert_snapshot!("pointers_past_the_table", stderr);
    let (code, _, stderr) =
        simt(dir.path(), &["run", "table.ptx", "--grid", "1", "--block", "32", "--arg", "n=pointers(zeros(4))", "--arg", "table=pointers(zeros(4))"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("pointers_for_a_scalar", stderr);
    let (code, _, stderr) =
        simt(dir.path(), &["run", "table.ptx", "--grid", "1", "--block", "32", "--arg", "n=4", "--arg", "table=pointers(zeros(4), [1.5], type=s32)"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("pointers_with_a_bad_buffer", stderr);
}

#[test]
fn high_words_no_region_has_are_faults_naming_the_address() {
    let dir = workspace();
    let cases: [(&str, &[&str]); 4] =
        [("far_global", &["--arg", "p=0x500000100"]), ("far_generic", &["--arg", "p=0x0003000000000000"]), ("far_shared", &[]), ("local_atomic", &[])];
    for (kernel, args) in cases {
        let mut first: Option<String> = None;
        for mode in MODES {
            let mut all = vec!["run", "faults.s", "--kernel", kernel];
            all.extend_from_slice(args);
            all.extend_from_slice(mode);
            let (code, _, stderr) = simt(dir.path(), &all);
            assert_eq!(code, 2, "{kernel} {}: {stderr}", mode.join(" "));
            match &first {
                None => {
                    insta::assert_snapshot!(format!("fault_{kernel}"), stderr);
                    first = Some(stderr);
                }
                Some(f) => assert_eq!(f, &stderr, "{kernel} {}", mode.join(" ")),
            }
        }
    }
}

#[test]
fn ptx_arithmetic_past_a_buffer_faults_with_the_whole_address() {
    let dir = workspace();
    let far = "\
.version 8.0
.target sm_80
.address_size 64
.visible .entry far(.param .u64 p)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	add.s64 %rd2, %rd1, 4294967296;
	ld.global.u32 %r1, [%rd2+4];
	st.global.u32 [%rd1], %r1;
	ret;
}
";
    std::fs::write(dir.path().join("far.ptx"), far).unwrap();
    let (code, _, stderr) = simt(dir.path(), &["run", "far.ptx", "--grid", "1", "--block", "32", "--arg", "p=zeros(64)"]);
    assert_eq!(code, 2);
    insta::assert_snapshot!("ptx_far_global", stderr);
}
