//! `simt debug`: transcripts of scripted sessions (`--commands`) as a user or an
//! autograder sees them.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn simt(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_simt"))
        .current_dir(root())
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("simt starts");
    if let Some(text) = stdin {
        use std::io::Write;
        // simt stops reading at a line past its limit: the broken pipe is its answer, not a failure here.
        if let Err(e) = child.stdin.take().expect("a stdin pipe").write_all(text.as_bytes()) {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "simt reads stdin: {e}");
        }
    }
    child.wait_with_output().expect("simt runs")
}

/// Runs `simt debug` with the commands `script` and returns the transcript; the session must succeed.
fn session(args: &[&str], script: &str) -> String {
    let dir = tempfile::TempDir::new().expect("a temporary folder");
    let file = dir.path().join("session.cmds");
    std::fs::write(&file, script).expect("the script is written");
    let mut all = vec!["debug"];
    all.extend_from_slice(args);
    all.extend(["--commands", file.to_str().expect("UTF-8 path")]);
    let out = simt(&all, None);
    assert!(out.status.success(), "simt {all:?} failed: {}\n{}", String::from_utf8_lossy(&out.stderr), String::from_utf8_lossy(&out.stdout));
    String::from_utf8(out.stdout).expect("UTF-8 transcript")
}

#[test]
fn divergence_walkthrough_under_its() {
    let script = std::fs::read_to_string(root().join("examples/debug/divergence.cmds")).expect("the shipped example");
    insta::assert_snapshot!(session(&["asm/divergence/if_else.s", "--simt", "its"], &script));
}

#[test]
fn divergence_walkthrough_under_the_stack() {
    let script = std::fs::read_to_string(root().join("examples/debug/divergence.cmds")).expect("the shipped example");
    insta::assert_snapshot!(session(&["asm/divergence/if_else.s", "--simt", "stack"], &script));
}

#[test]
fn a_loop_shows_lanes_waiting_to_reconverge() {
    let script = "break pc 5\ncontinue\ncontinue\ncontinue\nstack\nmask\nwhere\n";
    let its = session(&["asm/divergence/data_loop.s", "--simt", "its"], script);
    let stack = session(&["asm/divergence/data_loop.s", "--simt", "stack"], script);
    insta::assert_snapshot!("data_loop_its", its);
    insta::assert_snapshot!("data_loop_stack", stack);
}

const REDUCE: &[&str] = &["asm/block_reduce.s", "--grid", "2", "--block", "64", "--arg", "n=128", "--arg", "in=iota(128)", "--arg", "out=zeros(2)"];

/// Blackwell's tensor memory as the MMA left it: warp 0's quarter holds rows 0-15 of D in lanes
/// 0-15, warp 1's rows 16-31 in lanes 32-47; lanes 16-31 were never written; past the 32
/// allocated columns there is none.
#[test]
fn tensor_memory_of_the_tcgen05_example() {
    let script = "\
break 97            # TMEM.LD, after the MMA's commit
continue
tmem 0 0 4
tmem 32 30 4        # row 16's last columns, then past the allocation
tmem 16 0 2
tmem 200
";
    insta::assert_snapshot!(session(&["asm/tcgen05.s"], script));
}

#[test]
fn shared_memory_and_buffers_of_a_block_reduction() {
    let script = "\
break 38            # the first BAR.SYNC
continue
where
step                # warp 0 arrives at the barrier
where
step                # and waits there until warp 1 arrives too
shared 0 4
shared 0xf8 4       # past the 64 words the block wrote, up to the end of buf
mem in 60..68
mem out
delete
continue
mem out
";
    insta::assert_snapshot!(session(REDUCE, script));
}

#[test]
fn bad_commands_print_one_line_and_the_session_goes_on() {
    let script = "\
frobnicate
stpe
step 0
step x
warp 2
warp -1
lanes 32
lanes 7-0
lanes
regs R4
regs R99
regs X1
shared 2
shared 0x10000
shared 0 0
mem
mem nope
mem n
mem out 5..2
mem out 0..99
mem out x
print
print R99
print R0 +
print/z R0
print /q R0
step/x
print 1 / 0
print nope[0]
break 14 if
break 14 if R99 == 1
break 14 R0
watch
watch out
watch out[x]
watch nope[0]
watch out[9999]
list 0
list 9999
list 1 2
info
info frobs
block
block 7
next 0
finish
finish now
break
break 0
break 999
break pc 999
break pc zz
delete 7
where everything
step
lanes 0-3,8
regs R0
quit
step
";
    insta::assert_snapshot!(session(&["asm/divergence/if_else.s"], script));
}

#[test]
fn a_session_run_to_the_end_computes_what_simt_run_computes() {
    let dir = tempfile::TempDir::new().expect("a temporary folder");
    let d = dir.path().to_str().expect("UTF-8 path");
    for (name, args) in [
        ("reduce", REDUCE.to_vec()),
        ("if_else", vec!["asm/divergence/if_else.s", "--simt", "stack"]),
        ("data_loop", vec!["asm/divergence/data_loop.s"]),
        ("spinlock", vec!["asm/divergence/spinlock.s"]),
    ] {
        let buffer = if name == "reduce" { "out" } else { name_of_buffer(name) };
        let ran = format!("{d}/{name}-run.npy");
        let debugged = format!("{d}/{name}-debug.npy");
        let mut run: Vec<&str> = vec!["run"];
        run.extend(&args);
        let dump_text = format!("--dump={buffer}");
        let dump_file = format!("--dump={buffer}={ran}");
        run.extend([dump_text.as_str(), dump_file.as_str()]);
        let out = simt(&run, None);
        assert!(out.status.success(), "{run:?}: {}", String::from_utf8_lossy(&out.stderr));
        let printed = String::from_utf8(out.stdout).expect("UTF-8");
        let dump_file = format!("--dump={buffer}={debugged}");
        let mut debug: Vec<&str> = args.clone();
        debug.extend([dump_text.as_str(), dump_file.as_str()]);
        // Breakpoints and steps on the way change nothing the kernel computes.
        let transcript = session(&debug, "break pc 2\ncontinue\nstep 3\nwarp 1\nstep\ncontinue\ndelete\ncontinue\n");
        assert!(transcript.ends_with(&printed), "{name}: the transcript ends with what `simt run` prints:\n{transcript}\n---\n{printed}");
        assert_eq!(std::fs::read(&ran).expect("run's dump"), std::fs::read(&debugged).expect("debug's dump"), "{name}");
    }
}

fn name_of_buffer(kernel: &str) -> &'static str {
    match kernel {
        "spinlock" => "counter",
        _ => "out",
    }
}

#[test]
fn a_fault_prints_the_report_and_leaves_inspection() {
    let dir = tempfile::TempDir::new().expect("a temporary folder");
    let file = dir.path().join("s.cmds");
    std::fs::write(&file, "continue\nstep\nwhere\nlanes 26-29\nregs R0 R1\nmem y 58..60\n").expect("written");
    let out = simt(&["debug", "asm/bugs/oob.s", "--commands", file.to_str().expect("UTF-8")], None);
    assert_eq!(out.status.code(), Some(2), "a fault exits 2, as `simt run` does");
    let transcript = String::from_utf8(out.stdout).expect("UTF-8");
    let run = simt(&["run", "asm/bugs/oob.s"], None);
    let report = String::from_utf8(run.stderr).expect("UTF-8");
    assert!(transcript.contains(report.trim_end()), "the fault report is `simt run`'s:\n{transcript}\n---\n{report}");
    insta::assert_snapshot!(transcript);
}

#[test]
fn commands_read_from_a_pipe_give_the_same_transcript() {
    let script = std::fs::read_to_string(root().join("examples/debug/divergence.cmds")).expect("the shipped example");
    let piped = simt(&["debug", "asm/divergence/if_else.s"], Some(&script));
    assert!(piped.status.success());
    assert_eq!(String::from_utf8(piped.stdout).expect("UTF-8"), session(&["asm/divergence/if_else.s"], &script));
}

#[test]
fn a_missing_commands_file_is_rejected() {
    let out = simt(&["debug", "asm/divergence/if_else.s", "--commands", "no/such/file.cmds"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/file.cmds"));
}

/// `--check` findings of a debugged launch are reported at its end, as `simt run` reports them, and exit 2.
#[test]
fn sanitizer_findings_end_the_transcript() {
    let out = simt(&["debug", "asm/bugs/race.s", "--check", "racecheck"], Some("continue\nquit\n"));
    assert_eq!(out.status.code(), Some(2));
    let transcript = String::from_utf8_lossy(&out.stdout);
    assert!(transcript.contains("racecheck: read after write hazard") && transcript.contains("sanitizer summary: 2 errors (2 racecheck)"), "{transcript}");
}

const CALLS: &[&str] = &["examples/debug/calls.ptx", "--grid", "1", "--block", "64", "--arg", "out=zeros(64)"];

/// `next` steps over a PTX device-function call and `finish` out of one, though the front end inlined them.
#[test]
fn device_function_calls_under_both_models() {
    let script = std::fs::read_to_string(root().join("examples/debug/calls.cmds")).expect("the shipped example");
    for model in ["its", "stack"] {
        let args = [CALLS, &["--simt", model]].concat();
        insta::assert_snapshot!(format!("calls_{model}"), session(&args, &script));
    }
}

#[test]
fn conditional_breakpoints_print_and_watch_under_both_models() {
    let script = std::fs::read_to_string(root().join("examples/debug/conditions.cmds")).expect("the shipped example");
    for model in ["its", "stack"] {
        insta::assert_snapshot!(format!("conditions_{model}"), session(&["asm/divergence/data_loop.s", "--simt", model], &script));
    }
}

#[test]
fn blocks_and_restarts_keep_breakpoints_and_watchpoints() {
    let script = "\
block 1                      # block 0 runs to its end first
where
print ctaid.x
print ctaid.x * ntid.x + tid.x
watch out[0]
block 0                      # it has run: the launch restarts to reach it
info breakpoints
continue                     # block 0 writes its sum
restart
info breakpoints
break 38 if warpid == 1 && laneid < 4
continue
list
bt                           # a .s kernel calls nothing: its place alone
next
info lanes
quit
";
    for model in ["its", "stack"] {
        let args = [REDUCE, &["--simt", model]].concat();
        insta::assert_snapshot!(format!("blocks_and_restart_{model}"), session(&args, script));
    }
}

/// Input without line ends stops at the first line's limit, quickly, instead of filling memory.
#[test]
fn endless_stdin_ends_with_an_error() {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_simt"))
        .current_dir(root())
        .args(["debug", "asm/divergence/if_else.s"])
        .stdin(std::fs::File::open("/dev/zero").expect("/dev/zero"))
        .output()
        .expect("simt runs");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error: stdin: line 1 is longer than 65536 bytes; commands are one short line each"), "{stderr}");
    assert!(start.elapsed() < Duration::from_secs(30), "took {:?}", start.elapsed());
}

/// `regs` builds its table in memory: a line naming a million registers is refused before it
/// is read whole, and one naming thousands is refused by `regs`.
#[test]
fn regs_with_huge_argument_lists_is_refused() {
    let million = format!("regs {}\n", "R0 ".repeat(1_000_000));
    let out = simt(&["debug", "asm/divergence/if_else.s"], Some(&million));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("stdin: line 1 is longer than 65536 bytes"));
    let thousands = format!("regs {}\nregs R0\n", "R0 ".repeat(20_000));
    let transcript = session(&["asm/divergence/if_else.s"], &thousands);
    assert!(transcript.contains("error: `regs` shows at most 255 registers at a time (got 20000); name fewer, or none for all of them"), "{transcript}");
    assert!(transcript.contains("(simt) regs R0\nwarp 0, lanes 0-31"), "the session goes on:\n{transcript}");
}
