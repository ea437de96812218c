//! The timing backend on the command line: every `sh` command of `docs/timing.md` and
//! the latency lab runs as written; errors exit 1 with a location; JSON and the
//! timeline file are well formed.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn simt(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_simt")).args(args).current_dir(root()).output().expect("simt runs")
}

/// The lines of the ```sh blocks of a markdown file.
fn sh_commands(doc: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join(doc)).expect("doc");
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            inside = line.trim() == "```sh";
            continue;
        }
        if inside && !line.trim().is_empty() {
            out.push(line.to_string());
        }
    }
    out
}

#[test]
fn every_sh_command_in_the_timing_docs_runs() {
    let bin = Path::new(env!("CARGO_BIN_EXE_simt")).parent().expect("bin dir").to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    for doc in ["docs/timing.md", "docs/course/04-latency-and-occupancy.md"] {
        let commands = sh_commands(doc);
        assert!(!commands.is_empty(), "{doc} has sh blocks");
        for command in commands {
            let out = Command::new("sh").arg("-c").arg(&command).env("PATH", &path).current_dir(root()).output().expect("sh");
            assert!(out.status.success(), "{doc}: `{command}` failed:\n{}", String::from_utf8_lossy(&out.stderr));
        }
    }
}

#[test]
fn a_bad_machine_file_is_an_error_with_its_location() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.toml");
    let text = String::from_utf8(simt(&["configs", "h100"]).stdout).unwrap().replacen("max_warps = 64", "max_wraps = 64", 1);
    std::fs::write(&file, text).unwrap();
    let out = simt(&["run", "asm/saxpy.s", "--timing", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("m.toml:") && err.contains("unknown key `max_wraps`") && err.contains("did you mean `max_warps`?"), "{err}");
    let out = simt(&["run", "asm/saxpy.s", "--timing", "h10"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean `h100`?"));
}

#[test]
fn forms_a_generation_lacks_are_rejected() {
    // Beyond the machine's target: the form, its line and the target it needs.
    let out = simt(&["run", "asm/hgemm_sparse.s", "--timing", "v100"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot run on v100: `MMA.SP.M16N16K32.F32.F16` (line ")
            && err.contains("needs target sm_80 (Ampere) or later, but v100 is sm_70 (Volta)"),
        "{err}"
    );
}

#[test]
fn json_has_the_timing_member_and_the_timeline_is_a_trace() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.json");
    let out = simt(&["run", "asm/saxpy.s", "--timing", "h100", "--json", "--pipeview", "--pc", "13", "--timeline", trace.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert!(v["timing"]["cycles"].as_u64().unwrap() > 0);
    assert_eq!(v["timing"]["machine"], "h100");
    assert!(!v["timing"]["pipeview"].as_array().unwrap().is_empty());
    let t: serde_json::Value = serde_json::from_slice(&std::fs::read(&trace).unwrap()).expect("trace JSON");
    let events = t["traceEvents"].as_array().unwrap();
    assert!(events.iter().any(|e| e["ph"] == "X" && e["name"].as_str().unwrap().starts_with("FFMA (line")));
    assert!(events.iter().any(|e| e["ph"] == "C"));
}

#[test]
fn occupancy_reproduces_the_seed_figures() {
    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("k.s");
    std::fs::write(&k, ".kernel k\n.regs 255\n.launch grid(1) block(256)\n    EXIT\n").unwrap();
    let out = simt(&["occupancy", k.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["warps_per_sm"], 8);
    std::fs::write(&k, ".kernel k\n.shared .u8 big[232448]\n.launch grid(1) block(256)\n    EXIT\n").unwrap();
    let v: serde_json::Value = serde_json::from_slice(&simt(&["occupancy", k.to_str().unwrap(), "--json"]).stdout).unwrap();
    assert_eq!((v["blocks_per_sm"].as_u64(), v["limiter"].as_str()), (Some(1), Some("shared_memory")));
}
