//! `docs/cli.md` lists every limit with the constant behind it and what happens at it.
//! This walks that table: every row's value equals its constant, every limit constant
//! has a row, and crossing each limit (where that is cheap to do) does what the row says.

use std::collections::BTreeMap;
use std::path::Path;

use assert_cmd::Command;
use tempfile::TempDir;

/// The constants behind the table, by name, as the code defines them.
fn constants() -> BTreeMap<&'static str, Vec<u64>> {
    use simt_interp::launch::{DEFAULT_MAX_STEPS, DEFAULT_RUNAWAY_STEPS};
    use simt_isa::*;
    BTreeMap::from([
        ("MAX_INPUT_BYTES", vec![MAX_INPUT_BYTES]),
        ("MAX_BUFFER_FILE_BYTES", vec![MAX_BUFFER_FILE_BYTES]),
        ("MAX_TOTAL_BUFFER_BYTES", vec![MAX_TOTAL_BUFFER_BYTES]),
        ("MAX_GRID_DIMS", MAX_GRID_DIMS.iter().map(|&d| u64::from(d)).collect()),
        ("MAX_BLOCKS", vec![MAX_BLOCKS]),
        ("MAX_BLOCK_THREADS", vec![MAX_BLOCK_THREADS]),
        ("MAX_SHARED_BYTES", vec![u64::from(MAX_SHARED_BYTES)]),
        ("MAX_LOCAL_BYTES", vec![u64::from(MAX_LOCAL_BYTES)]),
        ("MAX_LOCAL_BLOCK_BYTES", vec![MAX_LOCAL_BLOCK_BYTES]),
        ("MAX_CODE_LEN", vec![MAX_CODE_LEN as u64]),
        ("MAX_POOL_LEN", vec![MAX_POOL_LEN as u64]),
        ("MAX_LINE_TOKENS", vec![MAX_LINE_TOKENS as u64]),
        ("MAX_RENDERED_DIAGNOSTICS", vec![MAX_RENDERED_DIAGNOSTICS as u64]),
        ("LONG_LINE", vec![LONG_LINE as u64]),
        ("MAX_COMMAND_LINE_BYTES", vec![MAX_COMMAND_LINE_BYTES as u64]),
        ("MAX_THREADS", vec![MAX_THREADS]),
        ("THREAD_STATE_BUDGET", vec![THREAD_STATE_BUDGET]),
        ("NUM_REGS", vec![u64::from(NUM_REGS)]),
        ("DEFAULT_MAX_STEPS", vec![DEFAULT_MAX_STEPS]),
        ("DEFAULT_RUNAWAY_STEPS", vec![DEFAULT_RUNAWAY_STEPS]),
        ("DEFAULT_PRINTF_LIMIT", vec![DEFAULT_PRINTF_LIMIT]),
        ("MAX_PRINTF_ARGS", vec![MAX_PRINTF_ARGS as u64]),
        ("MAX_PRINTF_FIELD", vec![u64::from(MAX_PRINTF_FIELD)]),
        ("MAX_PRINTF_STRING", vec![MAX_PRINTF_STRING as u64]),
        ("PRINTF_RECORD_BYTES", vec![PRINTF_RECORD_BYTES]),
        ("MAX_RECORDS", vec![simt_timing::MAX_RECORDS]),
        ("MAX_JOBS", vec![simt_sweep::plan::MAX_JOBS]),
        ("MAX_PLAN_BYTES", vec![simt_sweep::plan::MAX_PLAN_BYTES]),
    ])
}

/// The rows of the limits table: constant name and the numbers of its value column
/// (the part before any parenthesis, commas separating several).
fn documented() -> BTreeMap<String, Vec<u64>> {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/cli.md")).expect("docs/cli.md");
    let section = doc.split("## Limits").nth(1).expect("a Limits section").split("\n## ").next().unwrap_or_default();
    section
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let name = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            let value = cells.get(2)?.split('(').next().unwrap_or_default();
            let numbers = value.split(',').map(|n| n.trim().parse::<u64>().expect("a number in the value column")).collect();
            Some((name.to_string(), numbers))
        })
        .collect()
}

#[test]
fn the_table_matches_the_code() {
    let code = constants();
    let doc = documented();
    for (name, value) in &code {
        assert_eq!(doc.get(*name), Some(value), "docs/cli.md's limits table: row `{name}`");
    }
    for name in doc.keys() {
        assert!(code.contains_key(name.as_str()), "docs/cli.md names `{name}`, which this test does not know");
    }
    // Every constant of the limits module has a row.
    let source = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../simt-isa/src/limits.rs")).unwrap();
    for line in source.lines().filter_map(|l| l.strip_prefix("pub const ")) {
        let name = line.split(':').next().unwrap_or_default();
        assert!(doc.contains_key(name), "limits.rs defines `{name}` but docs/cli.md's table has no row for it");
    }
}

/// Runs `simt` in `dir` and returns (exit code, stderr).
fn simt(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("simt").unwrap().current_dir(dir).args(args).env("NO_COLOR", "1").output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn kernel(dir: &Path, name: &str, text: &str) -> String {
    std::fs::write(dir.join(name), text).unwrap();
    name.to_string()
}

const TINY: &str = ".kernel k\n.param .ptr.u32 x\n.launch grid(1) block(32)\n.arg x = zeros(32)\n    NOP\n";

#[test]
fn crossing_each_limit_does_what_the_table_says() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let tiny = kernel(d, "tiny.s", TINY);
    let cases: Vec<(&str, Vec<String>, i32, &str)> = vec![
        ("MAX_INPUT_BYTES", vec!["asm".into(), "/dev/zero".into()], 1, "bytes or more"),
        ("MAX_TOTAL_BUFFER_BYTES", vec!["run".into(), tiny.clone(), "--arg".into(), "x=zeros(1100000000)".into()], 1, "4278190080"),
        ("MAX_GRID_DIMS", vec!["run".into(), tiny.clone(), "--grid".into(), "1,65536".into()], 1, "the most is 65535"),
        ("MAX_BLOCKS", vec!["run".into(), tiny.clone(), "--grid".into(), "65535,65535,2".into()], 1, "the most is 4294967296"),
        ("MAX_BLOCK_THREADS", vec!["run".into(), tiny.clone(), "--block".into(), "1025".into()], 1, "1024"),
        ("MAX_SHARED_BYTES", vec!["asm".into(), kernel(d, "sh.s", ".kernel k\n.shared .u8 a[233473]\nEXIT\n")], 1, "at most 233472"),
        ("MAX_LOCAL_BYTES", vec!["asm".into(), kernel(d, "lo.s", ".kernel k\n.local 524289\nEXIT\n")], 1, "524288"),
        (
            "MAX_LOCAL_BLOCK_BYTES",
            vec!["run".into(), kernel(d, "lb.s", ".kernel k\n.local 524288\n.launch grid(1) block(1024)\nEXIT\n")],
            1,
            "a block may have at most 67108864",
        ),
        (
            "MAX_COMMAND_LINE_BYTES",
            vec!["debug".into(), tiny.clone(), "--commands".into(), kernel(d, "long.cmds", &format!("print {}\n", "1+".repeat(40_000)))],
            1,
            "line 1 is longer than 65536 bytes",
        ),
        ("MAX_THREADS", vec!["run".into(), tiny.clone(), "--threads".into(), "1025".into()], 1, "1025"),
        ("NUM_REGS", vec!["asm".into(), kernel(d, "r.s", ".kernel k\nMOV R255, 1\nEXIT\n")], 1, "R0 .. R254"),
        (
            "MAX_LINE_TOKENS",
            vec!["asm".into(), kernel(d, "list.s", &format!(".kernel k\n.param .ptr.u32 x\n.arg x = [{}]\nEXIT\n", vec!["1"; 1 << 20].join(",")))],
            1,
            "more than 1048576 tokens",
        ),
        ("MAX_RENDERED_DIAGNOSTICS", vec!["asm".into(), kernel(d, "bad.s", &format!(".kernel k\n{}", "FOO\n".repeat(150)))], 1, "50 more errors not shown"),
        ("LONG_LINE", vec!["asm".into(), kernel(d, "long.s", &format!(".kernel k\nFOO {}\n", "R1, ".repeat(400)))], 1, "not shown)"),
        (
            "DEFAULT_MAX_STEPS",
            vec!["run".into(), kernel(d, "spin.s", ".kernel k\n.launch grid(1) block(32)\nL: BRA L\n"), "--max-steps".into(), "1000".into()],
            2,
            "the launch issued 1000 warp instructions",
        ),
        (
            "DEFAULT_RUNAWAY_STEPS",
            vec!["run".into(), "spin.s".into(), "--runaway-steps".into(), "5000".into()],
            2,
            "without storing, exiting or reaching a barrier",
        ),
        (
            "DEFAULT_PRINTF_LIMIT",
            vec![
                "run".into(),
                kernel(d, "print.s", ".kernel k\n.launch grid(1) block(32)\n    PRINTF \"hello\\n\"\n    EXIT\n"),
                "--printf-limit".into(),
                "100".into(),
            ],
            2,
            "the launch printed more than 100 bytes, its limit",
        ),
        (
            "MAX_PRINTF_ARGS",
            vec!["asm".into(), kernel(d, "args.s", &format!(".kernel k\n    PRINTF \"{}\", R0\n    EXIT\n", "%d".repeat(33)))],
            1,
            "at most 32 arguments",
        ),
        ("MAX_PRINTF_FIELD", vec!["asm".into(), kernel(d, "field.s", ".kernel k\n    PRINTF \"%1025d\", R0\n    EXIT\n")], 1, "a width is at most 1024"),
        (
            "MAX_PRINTF_STRING",
            vec![
                "run".into(),
                kernel(
                    d,
                    "string.s",
                    ".kernel k\n.param .ptr.u8 s\n.launch grid(1) block(1)\n.arg s = fill(70000, 65)\n    LD.PARAM.U32 R2, [s]\n    MOV R3, 0\n    PRINTF \"%s\", R2\n    EXIT\n",
                ),
            ],
            2,
            "no NUL in its first 65536 bytes",
        ),
        ("--timeout", vec!["run".into(), "spin.s".into(), "--runaway-steps".into(), "0".into(), "--timeout".into(), "0.2".into()], 2, "ran out of time"),
    ];
    for (name, args, code, message) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (got, stderr) = simt(d, &args);
        assert_eq!(got, code, "{name}: exit status; stderr:\n{stderr}");
        assert!(stderr.contains(message), "{name}: stderr lacks `{message}`:\n{stderr}");
    }
}
