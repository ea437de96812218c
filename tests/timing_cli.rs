//! The timing backend on the command line: errors exit 1 with a location; JSON and the
//! timeline file are well formed. (`docs_commands.rs` runs the commands of `docs/timing.md`
//! and the latency lab, as every document's.)

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn simt(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_simt")).args(args).current_dir(root()).output().expect("simt runs")
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
