//! The `simt` command as a user sees it: exit codes, messages, files.

use std::path::Path;

use assert_cmd::Command;
use tempfile::TempDir;

const SAXPY: &str = "\
// y[i] = a * x[i] + y[i]
.kernel saxpy
.param .u32 n
.param .f32 a
.param .ptr.f32 x
.param .ptr.f32 y
.launch grid(1) block(32)
.arg a = 2
.arg x = iota(4)
    S2R     R0, SR_TID.X
    LD.PARAM.U32 R3, [n]
    ISETP.GE.U32 P0, R0, R3
@P0 EXIT
    LD.PARAM.U32 R4, [x]
    LD.PARAM.U32 R5, [y]
    LEA     R4, R0, R4, 2
    LEA     R5, R0, R5, 2
    LD.GLOBAL.F32 R6, [R4]
    LD.GLOBAL.F32 R7, [R5]
    LD.PARAM.F32 R8, [a]
    FFMA    R7, R8, R6, R7
    ST.GLOBAL.F32 [R5], R7
    EXIT
";

const OOB: &str = "\
.kernel oob
.param .ptr.f32 x
.launch grid(1) block(32)
.arg x = zeros(16)
    S2R  R0, SR_TID.X
    LD.PARAM.U32 R1, [x]
    LEA  R2, R0, R1, 2
    LD.GLOBAL.F32 R3, [R2]
    EXIT
";

/// A scratch folder holding `saxpy.s` and `oob.s`; commands run inside it.
fn workspace() -> TempDir {
    let dir = TempDir::new().expect("a temporary folder");
    std::fs::write(dir.path().join("saxpy.s"), SAXPY).expect("write saxpy.s");
    std::fs::write(dir.path().join("oob.s"), OOB).expect("write oob.s");
    dir
}

fn simt(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_simt"));
    cmd.current_dir(dir).args(args).env("NO_COLOR", "1");
    cmd
}

/// Runs and returns (exit code, stdout, stderr).
fn outcome(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = simt(dir, args).output().expect("simt runs");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("UTF-8 output");
    (out.status.code().expect("an exit code, not a signal"), text(out.stdout), text(out.stderr))
}

/// The stderr of a rejected command (exit 1).
fn rejected(dir: &Path, args: &[&str]) -> String {
    let (code, _, stderr) = outcome(dir, args);
    assert_eq!(code, 1, "simt {args:?} should be rejected; stderr: {stderr}");
    stderr
}

#[test]
fn a_run_prints_the_dumped_buffer() {
    let dir = workspace();
    let (code, stdout, stderr) = outcome(dir.path(), &["run", "saxpy.s", "--arg", "n=4", "--arg", "y=[0.5, 0.25, 0, -1]", "--dump", "y"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "0.5\n2.25\n4\n5\n");
    assert_eq!(stderr, "");
}

#[test]
fn several_dumps_get_headers_and_files_keep_their_dtype() {
    let dir = workspace();
    let args = ["run", "saxpy.s", "--arg", "n=4", "--arg", "y=zeros(4)", "--dump", "x", "--dump", "y", "--dump", "y=y.npy", "--dump", "x=x.bin"];
    let (code, stdout, _) = outcome(dir.path(), &args);
    assert_eq!(code, 0);
    assert_eq!(stdout, "x:\n0\n1\n2\n3\ny:\n0\n2\n4\n6\n");
    let npy = std::fs::read(dir.path().join("y.npy")).unwrap();
    assert!(String::from_utf8_lossy(&npy[..64]).contains("'descr': '<f4'"));
    assert_eq!(std::fs::read(dir.path().join("x.bin")).unwrap().len(), 16);
    // The written .npy feeds the next run.
    let (code, stdout, _) = outcome(dir.path(), &["run", "saxpy.s", "--arg", "n=4", "--arg", "y=@y.npy", "--dump", "y"]);
    assert_eq!((code, stdout.as_str()), (0, "0\n4\n8\n12\n"));
}

#[test]
fn json_is_one_valid_object() {
    let dir = workspace();
    let (code, stdout, _) = outcome(dir.path(), &["run", "saxpy.s", "--arg", "n=2", "--arg", "y=[1, 0f7FC00000]", "--json", "--dump", "y"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("stdout is JSON");
    assert_eq!(v["kernel"], "saxpy");
    assert_eq!(v["grid"], serde_json::json!([1, 1, 1]));
    assert_eq!(v["block"], serde_json::json!([32, 1, 1]));
    assert_eq!(v["buffers"]["y"], serde_json::json!([1.0, "nan"]));
    assert!(v["stats"].is_object());
}

#[test]
fn a_fault_exits_2_and_names_the_line() {
    let dir = workspace();
    let (code, stdout, stderr) = outcome(dir.path(), &["run", "oob.s"]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stdout, "");
    assert!(stderr.contains("oob.s:8"), "{stderr}");
}

#[test]
fn missing_argument() {
    insta::assert_snapshot!(rejected(workspace().path(), &["run", "saxpy.s"]));
}

#[test]
fn unknown_argument_with_suggestion() {
    insta::assert_snapshot!(rejected(workspace().path(), &["run", "saxpy.s", "--arg", "nn=3"]));
}

#[test]
fn ill_typed_argument() {
    insta::assert_snapshot!(rejected(workspace().path(), &["run", "saxpy.s", "--arg", "n=2.5", "--arg", "y=zeros(4)"]));
}

#[test]
fn npy_dtype_mismatch() {
    let dir = workspace();
    simt(dir.path(), &["run", "saxpy.s", "--arg", "n=4", "--arg", "y=zeros(4)", "--dump", "y=y.npy"]).assert().success();
    std::fs::write(dir.path().join("int.s"), ".kernel k\n.param .ptr.s32 v\n.launch grid(1) block(1)\n    EXIT\n").unwrap();
    insta::assert_snapshot!(rejected(dir.path(), &["run", "int.s", "--arg", "v=@y.npy"]));
}

#[test]
fn missing_file() {
    let stderr = rejected(workspace().path(), &["run", "nowhere.s"]);
    // The OS's wording of "not found" varies; the start is ours.
    insta::assert_snapshot!(stderr.split(':').take(2).collect::<Vec<_>>().join(":"));
}

#[test]
fn bad_bytecode() {
    let dir = workspace();
    std::fs::write(dir.path().join("bad.simtb"), b"\x7fSMT\x01\x00\x00\x00\xff\xff").unwrap();
    insta::assert_snapshot!(rejected(dir.path(), &["run", "bad.simtb"]));
}

#[test]
fn other_rejections_exit_1() {
    let dir = workspace();
    let d = dir.path();
    std::fs::write(d.join("bad.s"), ".kernel bad\n    FROB R1, R0\n    EXIT\n").unwrap();
    assert!(rejected(d, &["asm", "bad.s"]).contains("bad.s:2"));
    assert!(rejected(d, &["run", "saxpy.s", "--arg", "n=1", "--arg", "y=zeros(1)", "--block", "33,32"]).contains("1056 threads"));
    assert!(rejected(d, &["run", "saxpy.s", "--dump", "n"]).contains("scalar"));
    assert!(rejected(d, &["run", "saxpy.s", "--arg", "n"]).contains("NAME=VALUE"));
    assert!(rejected(d, &["run", "saxpy.s", "--kernel", "other"]).contains("its kernels are: saxpy"));
    assert!(rejected(d, &["run", "saxpy.s", "--simt", "warp"]).contains("its"));
    assert!(rejected(d, &["frobnicate"]).contains("unrecognized subcommand"));
}

#[test]
fn every_subcommand_has_help_with_an_example() {
    let dir = workspace();
    for sub in [&[][..], &["asm"], &["disasm"], &["run"], &["debug"], &["sparsify"]] {
        let args: Vec<&str> = sub.iter().copied().chain(["--help"]).collect();
        let (code, stdout, _) = outcome(dir.path(), &args);
        assert_eq!(code, 0, "{args:?}");
        assert!(stdout.contains("Example"), "simt {args:?} shows no example:\n{stdout}");
    }
}

#[test]
fn asm_disasm_asm_round_trips() {
    let dir = workspace();
    let d = dir.path();
    let (code, listing, _) = outcome(d, &["asm", "saxpy.s", "--listing"]);
    assert_eq!(code, 0);
    assert!(listing.contains("FFMA"));
    assert!(!d.join("saxpy.simtb").exists(), "--listing without -o wrote bytecode");
    simt(d, &["asm", "saxpy.s", "--listing", "-o", "saxpy.simtb"]).assert().success();
    simt(d, &["disasm", "saxpy.simtb", "-o", "back.s"]).assert().success();
    simt(d, &["asm", "back.s", "-o", "back.simtb"]).assert().success();
    let (_, again, _) = outcome(d, &["disasm", "back.simtb"]);
    let first = std::fs::read_to_string(d.join("back.s")).unwrap();
    assert_eq!(first, again);
    let run = |file: &str| outcome(d, &["run", file, "--arg", "n=4", "--arg", "y=zeros(4)", "--dump", "y"]).1;
    assert_eq!(run("saxpy.simtb"), run("saxpy.s"));
}

#[test]
fn sparsify_writes_three_files() {
    let dir = workspace();
    let d = dir.path();
    let dense: Vec<u8> = (0..16 * 32).flat_map(|i| ((i % 7) as f32 - 3.0).to_le_bytes()).collect();
    std::fs::write(d.join("a.npy"), simt_io::npy::write(simt_io::npy::Dtype::F32, &[16, 32], &dense)).unwrap();
    simt(d, &["sparsify", "a.npy", "-o", "a24"]).assert().success();
    use simt_io::npy::Dtype;
    for (suffix, dtype, shape) in [("values", Dtype::F32, vec![16, 16]), ("meta", Dtype::U32, vec![32]), ("pruned", Dtype::F32, vec![16, 32])] {
        let array = simt_io::npy::read(&std::fs::read(d.join(format!("a24.{suffix}.npy"))).unwrap()).unwrap();
        assert_eq!((array.dtype, array.shape), (dtype, shape), "{suffix}");
    }
    assert!(rejected(d, &["sparsify", "a.npy", "--rows", "8", "-o", "x"]).contains("does not match"));
}

/// `--arch` and `.target` (contract section 9): checked on source and bytecode, recorded in
/// bytecode, written back by `disasm`.
#[test]
fn targets_gate_forms_on_source_and_bytecode() {
    let dir = workspace();
    let fp8 = ".kernel k\n.launch grid(1) block(32)\n    CVT.E4M3X2.F32 R0, 1.0, 2.0\n    EXIT\n";
    std::fs::write(dir.path().join("fp8.s"), fp8).unwrap();
    assert!(rejected(dir.path(), &["asm", "fp8.s", "--arch", "sm_80"]).contains("CVT.E4M3X2.F32 needs target sm_89 (Ada)"));
    assert!(rejected(dir.path(), &["run", "fp8.s", "--arch", "sm_61"]).contains("`sm_61` is not a target: use one of sm_70"));
    let (code, _, stderr) = outcome(dir.path(), &["asm", "fp8.s", "--arch", "sm_90", "-o", "k.simtb"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, listing, _) = outcome(dir.path(), &["disasm", "k.simtb"]);
    assert_eq!(code, 0);
    assert!(listing.contains(".kernel k\n.target sm_90\n"), "{listing}");
    // Bytecode is checked against --arch too, naming the instruction's pc and line.
    let err = rejected(dir.path(), &["run", "k.simtb", "--arch", "sm_75"]);
    assert!(err.contains("kernel `k`, pc 0, line 3: CVT.E4M3X2.F32 needs target sm_89"), "{err}");
    assert_eq!(outcome(dir.path(), &["run", "k.simtb", "--arch", "sm_100"]).0, 0);
    // Re-assembling bytecode for a later target records it.
    assert_eq!(outcome(dir.path(), &["asm", "k.simtb", "--arch", "sm_100", "-o", "k2.simtb"]).0, 0);
    assert!(outcome(dir.path(), &["disasm", "k2.simtb"]).1.contains(".target sm_100"));
}

/// Section 9 buffers: f32 data in, converted; values out (text), raw codes out (`.bin`).
#[test]
fn low_precision_buffers_convert_both_ways() {
    let dir = workspace();
    let copy = ".kernel k\n.param .ptr.e2m1 x\n.launch grid(1) block(1)\n    EXIT\n";
    std::fs::write(dir.path().join("x.s"), copy).unwrap();
    let (code, stdout, stderr) = outcome(dir.path(), &["run", "x.s", "--arg", "x=[0.3, -7, 2.5, nan]", "--dump", "x", "--dump", "x=x.bin"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "0.5\n-6\n2\n6\n");
    assert_eq!(std::fs::read(dir.path().join("x.bin")).unwrap(), [0xF1, 0x74]);
    let err = rejected(dir.path(), &["run", "x.s", "--arg", "x=[1, 2, 3]"]);
    assert!(err.contains("3 elements of e2m1 do not fill whole bytes"), "{err}");
    std::fs::write(dir.path().join("s.s"), copy.replace("e2m1", "s4")).unwrap();
    let err = rejected(dir.path(), &["run", "s.s", "--arg", "x=[1, 2, 8, 0]"]);
    assert!(err.contains("--arg x=[1, 2, 8, 0] (.param .ptr.s4 x): element 2") && err.contains("element 2: 8 does not fit s4 (-8 ..= 7)"), "{err}");
}

/// `--check`: the launch goes on after a finding, each distinct finding is shown once,
/// at most `--check-max` in full, then a summary; outputs are written and the exit is 2.
#[test]
fn sanitizer_findings_are_all_reported_once_with_a_summary() {
    let dir = workspace();
    let race = concat!(env!("CARGO_MANIFEST_DIR"), "/../../asm/bugs/race.s");
    let (code, stdout, stderr) = outcome(dir.path(), &["run", race, "--check", "racecheck,initcheck", "--dump", "out=out.npy"]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(dir.path().join("out.npy").exists(), "the run finished: its dumps are written");
    insta::assert_snapshot!(stderr.replace(race, "asm/bugs/race.s"));

    let (code, _, stderr) = outcome(dir.path(), &["run", race, "--check", "racecheck,initcheck", "--check-max", "1"]);
    assert_eq!(code, 2);
    assert_eq!(stderr.matches("error: kernel `race`").count(), 1, "{stderr}");
    assert!(stderr.ends_with("sanitizer summary: 3 errors (2 racecheck, 1 initcheck); 1 shown, see the rest with --check-max 3\n"), "{stderr}");

    let (code, stdout, _) = outcome(dir.path(), &["run", race, "--check", "racecheck,initcheck", "--json"]);
    assert_eq!(code, 2);
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("stdout is JSON");
    let findings = v["findings"].as_array().expect("a findings list");
    let seen: Vec<(&str, u64, u64)> =
        findings.iter().map(|f| (f["kind"].as_str().unwrap(), f["line"].as_u64().unwrap(), f["count"].as_u64().unwrap())).collect();
    assert_eq!(seen, [("racecheck", 19, 63), ("initcheck", 19, 1), ("racecheck", 14, 1)]);
    assert_eq!(findings[0]["related"][0][0], 14);
}

/// The divergence lints warn on `asm` and `run` of source; `-D`/`--deny-warnings` make
/// them errors that stop the command before anything is written or run.
#[test]
fn lints_warn_and_deny_like_rustc() {
    let dir = workspace();
    let collatz = concat!(env!("CARGO_MANIFEST_DIR"), "/../../asm/divergence/collatz.s");
    let (code, _, stderr) = outcome(dir.path(), &["asm", collatz, "-o", "c.simtb"]);
    assert_eq!(code, 0);
    assert!(stderr.starts_with("warning[loop_divergence]"), "{stderr}");
    assert!(dir.path().join("c.simtb").exists());
    // Bytecode carries no lints: running it is quiet.
    let (code, _, stderr) = outcome(dir.path(), &["run", "c.simtb", "--kernel", "collatz_joined"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    for deny in [&["--deny-warnings"][..], &["-D", "loop_divergence"], &["-D", "warnings", "-W", "loop_divergence", "-D", "loop_divergence"]] {
        let mut args = vec!["asm", collatz, "-o", "denied.simtb"];
        args.extend_from_slice(deny);
        let stderr = rejected(dir.path(), &args);
        assert!(stderr.starts_with("error[loop_divergence]") && stderr.ends_with("error: 1 denied lint finding; nothing was written or run\n"), "{stderr}");
        assert!(!dir.path().join("denied.simtb").exists());
    }
    let (code, _, stderr) = outcome(dir.path(), &["run", collatz, "--kernel", "collatz", "-A", "loop_divergence"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    let (code, _, stderr) = outcome(dir.path(), &["asm", collatz, "-o", "c.simtb", "-A", "loop-divergence"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    insta::assert_snapshot!(rejected(dir.path(), &["asm", collatz, "-A", "loop_divergense"]));
}

/// A PTX `.extern .shared` array (Triton's `global_smem`) is dynamic shared memory: it starts
/// where the static shared variables end, and `--shared-bytes` sizes it; without it, the
/// fault says what to give.
#[test]
fn dynamic_shared_memory_is_sized_by_the_launch() {
    let dir = workspace();
    std::fs::write(
        dir.path().join("rev.ptx"),
        ".version 8.0\n.target sm_80\n.address_size 64\n.extern .shared .align 16 .b8 smem[];\n\
         .visible .entry rev(.param .u64 out)\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\t.shared .align 4 .b32 fixed[1];\n\
         \tmov.u32 %r1, %tid.x;\n\tshl.b32 %r2, %r1, 2;\n\tmov.u32 %r3, smem;\n\tadd.s32 %r3, %r3, %r2;\n\tst.shared.u32 [%r3], %r1;\n\
         \tst.shared.u32 [fixed], 7;\n\tbar.sync 0;\n\tmov.u32 %r3, smem;\n\tsub.s32 %r2, 124, %r2;\n\tadd.s32 %r3, %r3, %r2;\n\tld.shared.u32 %r2, [%r3];\n\
         \tld.param.u64 %rd1, [out];\n\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd1, %rd1, %rd2;\n\tst.global.u32 [%rd1], %r2;\n\tret;\n}\n",
    )
    .unwrap();
    let args = ["run", "rev.ptx", "--grid", "1", "--block", "32", "--arg", "out=zeros(32)", "--dump", "out"];
    let (code, stdout, stderr) = outcome(dir.path(), &[&args[..], &["--shared-bytes", "128"]].concat());
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.split_whitespace().map(|v| v.parse::<u32>().unwrap()).collect::<Vec<_>>(), (0..32).rev().collect::<Vec<_>>());
    let (code, _, stderr) = outcome(dir.path(), &args);
    assert_eq!(code, 2);
    assert!(stderr.contains("outside the block's shared memory (16 bytes)"), "the static variable, then the dynamic array at 16: {stderr}");
    assert!(stderr.contains("`smem` is dynamic shared memory, sized by the launch: give it with `--shared-bytes N`"), "{stderr}");
    // `simt ptx` writes the array as `smem[]`, which the listing's launch sizes the same way.
    let (code, _, stderr) = outcome(dir.path(), &["ptx", "rev.ptx", "-o", "rev.s"]);
    assert_eq!(code, 0, "{stderr}");
    let listing = std::fs::read_to_string(dir.path().join("rev.s")).unwrap();
    assert!(listing.contains(".shared .align 16 .u8 smem[]\n"), "{listing}");
    let (code, from_listing, stderr) = outcome(dir.path(), &[&["run", "rev.s"], &args[2..], &["--shared-bytes", "128"]].concat());
    assert_eq!((code, from_listing), (0, stdout), "{stderr}");
}

/// A PTX module variable's integer elements hold their initializers' bits at the element's
/// width: a `.b32` may hold an f32's bits and -1, a `.b8` 255 or 617's low byte (which once
/// made the translation an `.arg` that could not run or reassemble).
#[test]
fn module_variables_hold_their_initializers_bits() {
    let dir = workspace();
    std::fs::write(
        dir.path().join("g.ptx"),
        ".version 8.0\n.target sm_80\n.address_size 64\n.global .align 4 .b32 w[2] = {0f3F800000, -1};\n.global .align 1 .b8 c[2] = {255, 617};\n\
         .visible .entry k(.param .u64 out)\n{\n\t.reg .b32 %r<5>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [out];\n\tld.global.u32 %r1, [w];\n\
         \tld.global.u32 %r2, [w+4];\n\tld.global.u8 %r3, [c];\n\tld.global.u8 %r4, [c+1];\n\tst.global.u32 [%rd1], %r1;\n\tst.global.u32 [%rd1+4], %r2;\n\
         \tst.global.u32 [%rd1+8], %r3;\n\tst.global.u32 [%rd1+12], %r4;\n\tret;\n}\n",
    )
    .unwrap();
    let want = vec!["1065353216", "4294967295", "255", "105"];
    let run = ["--grid", "1", "--block", "1", "--arg", "out=zeros(4)", "--dump", "out:u32"];
    let (code, stdout, stderr) = outcome(dir.path(), &[&["run", "g.ptx"][..], &run].concat());
    assert_eq!((code, stdout.split_whitespace().collect::<Vec<_>>()), (0, want.clone()), "{stderr}");
    let (code, _, stderr) = outcome(dir.path(), &["ptx", "g.ptx", "-o", "g.s"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = outcome(dir.path(), &[&["run", "g.s"][..], &run].concat());
    assert_eq!((code, stdout.split_whitespace().collect::<Vec<_>>()), (0, want), "{stderr}");
}

/// A module variable of untyped bytes (`__constant__ float k[2]` is `.const .b8 k[8]`) takes
/// a buffer of any dtype as its bytes, as cudaMemcpyToSymbol would fill it: here a float32
/// `.npy` (a typed `u8` buffer would refuse its dtype).
#[test]
fn a_byte_array_module_variable_takes_any_dtype() {
    let dir = workspace();
    std::fs::write(
        dir.path().join("c.ptx"),
        ".version 8.0\n.target sm_80\n.address_size 64\n.const .align 4 .b8 k[8];\n\
         .visible .entry scale(.param .u64 out)\n{\n\t.reg .f32 %f<3>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [out];\n\
         \tld.const.f32 %f1, [k];\n\tld.const.f32 %f2, [k+4];\n\tmul.f32 %f1, %f1, %f2;\n\tst.global.f32 [%rd1], %f1;\n\tret;\n}\n",
    )
    .unwrap();
    let bytes: Vec<u8> = [1.5f32, 2.5].iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(dir.path().join("k.npy"), simt_io::npy::write(simt_io::npy::Dtype::F32, &[2], &bytes)).unwrap();
    let args = ["run", "c.ptx", "--grid", "1", "--block", "1", "--arg", "out=zeros(1)", "--arg", "k=@k.npy", "--dump", "out:f32"];
    let (code, stdout, stderr) = outcome(dir.path(), &args);
    assert_eq!((code, stdout.trim()), (0, "3.75"), "{stderr}");
}

/// `--dump NAME:TYPE` reads a buffer's bytes as another element type: a PTX pointer's
/// buffer holds whatever the kernel stored (Triton stores floats as `.b32`).
#[test]
fn a_dump_may_name_the_element_type() {
    let dir = workspace();
    let ptx = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/cuda/saxpy.ptx");
    std::fs::copy(&ptx, dir.path().join("saxpy.ptx")).unwrap();
    let args = ["run", "saxpy.ptx", "--grid", "1", "--block", "32", "--arg", "0=3", "--arg", "1=2", "--arg", "2=[1, 2, 3]", "--arg", "3=[1, 1, 1]"];
    let (code, stdout, stderr) = outcome(dir.path(), &[&args[..], &["--dump", "3"]].concat());
    assert_eq!((code, stdout.split_whitespace().collect::<Vec<_>>()), (0, vec!["3", "5", "7"]), "{stderr}");
    let (code, stdout, _) = outcome(dir.path(), &[&args[..], &["--dump", "3:u32"]].concat());
    assert_eq!((code, stdout.split_whitespace().collect::<Vec<_>>()), (0, vec!["1077936128", "1084227584", "1088421888"]), "the f32 bits of 3, 5, 7");
    let (code, _, stderr) = outcome(dir.path(), &[&args[..], &["--dump", "3:f64=y.npy"]].concat());
    assert_eq!(code, 1);
    assert!(stderr.contains("--dump saxpy_param_3:f64: the buffer holds 12 bytes, not a whole number of f64 elements"), "{stderr}");
    let stderr = rejected(dir.path(), &[&args[..], &["--dump", "3:f23"]].concat());
    assert!(stderr.contains("`f23` is not an element type; use one of"), "{stderr}");
}

#[test]
fn int64_and_bool_buffers_come_back_in_their_dtype() {
    // tinygrad's kernels take int64 and bool arrays through `.u64` pointers.
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ml/tinygrad");
    let out = TempDir::new().unwrap();
    let file = |name: &str| out.path().join(name).display().to_string();
    let descr = |name: &str| String::from_utf8_lossy(&std::fs::read(out.path().join(name)).unwrap()[..64]).into_owned();
    let mul = ["run", "int64_mul.ptx", "--grid", "8", "--block", "32", "--arg", "data0=@data/zeros.int64.1024.npy"];
    let ins = ["--arg", "data1=@data/int64_mul.data1.in.npy", "--arg", "data2=@data/int64_mul.data2.in.npy"];
    let dumps = [format!("data0={}", file("p.npy")), format!("data0:u64={}", file("p.u64.npy")), format!("data0:u8={}", file("p.bin"))];
    let mut args: Vec<&str> = mul.iter().chain(&ins).copied().collect();
    for d in &dumps {
        args.extend(["--dump", d.as_str()]);
    }
    let (code, _, stderr) = outcome(&corpus, &args);
    assert_eq!(code, 0, "{stderr}");
    assert!(descr("p.npy").contains("'descr': '<i8'") && descr("p.u64.npy").contains("'descr': '<u8'"));
    let expected = std::fs::read(corpus.join("data/int64_mul.data0.expected.npy")).unwrap();
    assert_eq!(std::fs::read(out.path().join("p.npy")).unwrap(), expected, "the dump is the reference, header and all");
    assert_eq!(std::fs::read(out.path().join("p.bin")).unwrap(), expected[128..]);
    let less = ["run", "compare_bool_out.ptx", "--grid", "8", "--block", "32", "--arg", "data0=@data/zeros.bool.1024.npy"];
    let ins = ["--arg", "data1=@data/add.data2.in.npy", "--arg", "data2=@data/add.data1.in.npy"];
    let dump = format!("data0={}", file("b.npy"));
    let args: Vec<&str> = less.iter().chain(&ins).copied().chain(["--dump", dump.as_str(), "--dump", "data0"]).collect();
    let (code, stdout, stderr) = outcome(&corpus, &args);
    assert_eq!(code, 0, "{stderr}");
    assert!(descr("b.npy").contains("'descr': '|b1'"));
    assert!(stdout.lines().all(|l| l == "0" || l == "1") && stdout.lines().count() == 1024, "bools print as 0 and 1");
    assert_eq!(std::fs::read(out.path().join("b.npy")).unwrap(), std::fs::read(corpus.join("data/compare_bool_out.data0.expected.npy")).unwrap());
}

/// `PRINTF`'s records come by block, then barrier interval, then warp, each warp's in issue
/// order, whatever the thread count or timing, before the dumps; a `VPRINTF` (PTX's
/// `call vprintf`) prints the same way.
#[test]
fn printf_records_come_in_one_order() {
    let dir = workspace();
    let kernel = ".kernel k\n.param .ptr.u32 out\n.launch grid(2) block(40)\n    S2R R4, SR_CTAID.X\n    S2R R5, SR_TID.X\n\
                  \x20   ISETP.EQ.U32 P0, R5, 33\n@P0 PRINTF \"first: %d.%d\\n\", R4\n    ISETP.LT.U32 P1, R5, 2\n\
                  @P1 PRINTF \"%d.%d\\n\", R4\n    BAR.SYNC\n    ISETP.EQ.U32 P2, R5, 39\n@P2 PRINTF \"%d.%d %s\\n\", R4\n    EXIT\n";
    // `%s` takes the pair R6:R7, which holds a null pointer: `(null)`.
    let kernel = kernel.replace("    BAR.SYNC\n", "    BAR.SYNC\n    MOV R6, 0\n    MOV R7, 0\n");
    std::fs::write(dir.path().join("p.s"), kernel).unwrap();
    let want = "0.0\n0.1\nfirst: 0.33\n0.39 (null)\n1.0\n1.1\nfirst: 1.33\n1.39 (null)\n7\n";
    for extra in [&["--threads", "1"][..], &["--threads", "2"], &["--simt", "stack"]] {
        let args = [&["run", "p.s", "--arg", "out=[7]", "--dump", "out"][..], extra].concat();
        let (code, stdout, stderr) = outcome(dir.path(), &args);
        assert_eq!((code, stdout.as_str()), (0, want), "{extra:?}: {stderr}");
    }
    let (code, stdout, stderr) = outcome(dir.path(), &["run", "p.s", "--arg", "out=[7]", "--timing", "h100"]);
    assert!(code == 0 && stdout.starts_with(&want[..want.len() - 2]), "{stderr}\n{stdout}");
}

/// Past `--printf-limit` bytes of records (each its text and 64 bytes) the launch faults,
/// naming the limit and the flag; what the blocks up to the faulting one printed comes first.
#[test]
fn printf_output_has_a_limit() {
    let dir = workspace();
    std::fs::write(dir.path().join("p.s"), ".kernel k\n.launch grid(3) block(2)\n    S2R R0, SR_CTAID.X\n    PRINTF \"block %d\\n\", R0\n    EXIT\n").unwrap();
    let (code, stdout, stderr) = outcome(dir.path(), &["run", "p.s", "--printf-limit", "400", "--threads", "1"]);
    assert_eq!((code, stdout.as_str()), (2, "block 0\nblock 0\nblock 1\nblock 1\nblock 2\n"), "{stderr}");
    assert!(stderr.contains("the launch printed more than 400 bytes, its limit"), "{stderr}");
    assert!(stderr.contains("raise --printf-limit"), "{stderr}");
}

/// `PRINTF` reads the registers its arguments are in and not the ones that pad a pair to its
/// alignment: initcheck reports an unwritten argument, never an unwritten pad.
#[test]
fn printf_reads_its_arguments_and_not_their_padding() {
    let dir = workspace();
    let kernel = |convert: &str| format!(".kernel k\n.launch grid(1) block(2)\n    S2R R4, SR_TID.X\n{convert}    PRINTF \"%d %.1f\\n\", R4\n    EXIT\n");
    std::fs::write(dir.path().join("padded.s"), kernel("    CVT.F64.U32 R6, R4\n")).unwrap();
    let (code, stdout, stderr) = outcome(dir.path(), &["run", "padded.s", "--check", "initcheck"]);
    assert_eq!((code, stdout.as_str()), (0, "0 0.0\n1 1.0\n"), "{stderr}");
    std::fs::write(dir.path().join("unwritten.s"), kernel("")).unwrap();
    let (code, _, stderr) = outcome(dir.path(), &["run", "unwritten.s", "--check", "initcheck"]);
    assert!(code == 2 && stderr.contains("R6 is read") && stderr.contains("R7 is read") && !stderr.contains("R5 is read"), "{stderr}");
}

/// A failed device `assert` (clang's and NVRTC's `call __assertfail`) stops the launch with
/// CUDA's message, the fault naming the first thread whose assertion failed.
#[test]
fn a_failed_assert_names_the_assertion_and_the_thread() {
    let dir = workspace();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ptx");
    let bytes: Vec<u8> = [1i32, 2, 3, -4, 5, -6, 7, 8].iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(dir.path().join("x.npy"), simt_io::npy::write(simt_io::npy::Dtype::I32, &[8], &bytes)).unwrap();
    for (fixture, function) in [
        ("fixtures/assert_checked.sm_80.O3.ptx", "assert_checked"),
        ("fixtures-nvrtc/assert_checked.sm_80.ptx", "void assert_checked(int, const int *, int *)"),
    ] {
        std::fs::copy(fixtures.join(fixture), dir.path().join("k.ptx")).unwrap();
        let (code, _, stderr) =
            outcome(dir.path(), &["run", "k.ptx", "--grid", "1", "--block", "8", "--arg", "0=8", "--arg", "1=@x.npy", "--arg", "2=zeros(8)"]);
        assert_eq!(code, 2, "{fixture}: {stderr}");
        assert!(stderr.contains(&format!("assert_checked.cu:5: {function}: Assertion `x[i] >= 0` failed.")), "{fixture}: {stderr}");
        assert!(stderr.contains("thread (3,0,0), warp 0, lane 3"), "{fixture}: {stderr}");
    }
}

/// `asm/wgmma.s` and `asm/tcgen05.s` (the same product by Hopper's warpgroup MMA and by
/// Blackwell's `TCMMA` into tensor memory): each element of D is the f32 multiply-add chain of
/// A's row and B's column in increasing k (the `MMA` semantics, `docs/tensor.md`), under both
/// SIMT models and timed, so their shared-memory tiles lie where their descriptors say, and D
/// where tensor memory's layout puts it.
#[test]
fn the_warpgroup_and_tensor_memory_examples_multiply_their_tiles() {
    for (file, machine) in [("wgmma.s", "h100"), ("tcgen05.s", "b200")] {
        multiplies_its_tiles(file, machine);
    }
}

fn multiplies_its_tiles(file: &str, machine: &str) {
    let dir = workspace();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../asm").join(file);
    let source = source.to_str().expect("a UTF-8 path");
    // 64 x 32 x 16 multiply-accumulates, whether four warps' slices or one thread's MMA.
    let (code, _, stats) = outcome(dir.path(), &["run", source, "--stats"]);
    assert!(code == 0 && stats.contains("tensor: 4 MMA instructions, 32768 multiply-accumulates"), "{file}: {stats}");
    for extra in [&[][..], &["--simt", "stack"], &["--timing", machine]] {
        let args = [&["run", source, "--dump", "a=a.bin", "--dump", "b=b.bin", "--dump", "d=d.bin"][..], extra].concat();
        let (code, _, stderr) = outcome(dir.path(), &args);
        assert_eq!(code, 0, "{file} {extra:?}: {stderr}");
        let read = |name: &str| std::fs::read(dir.path().join(name)).expect("a dump");
        let halves = |bytes: Vec<u8>| bytes.chunks(2).map(|h| half::f16::from_le_bytes([h[0], h[1]]).to_f32()).collect::<Vec<f32>>();
        let (a, b) = (halves(read("a.bin")), halves(read("b.bin")));
        let d: Vec<u32> = read("d.bin").chunks(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
        for (i, &got) in d.iter().enumerate() {
            let (m, n) = (i / 32, i % 32);
            let want = (0..16).fold(0f32, |acc, k| a[m * 16 + k].mul_add(b[k * 32 + n], acc));
            assert_eq!(got, want.to_bits(), "{file} {extra:?}: d[{m}][{n}]");
        }
    }
}
