//! The conformance cases committed under `tests/fixtures/conformance` (copies
//! of the shared suite's `cases/` and promoted `next/` cases; `.ci/run` checks
//! the copies still match and also runs the shared runner itself), run against
//! the `simt` binary of this build by the rules of the shared runner: each
//! case's `case.json` is a list of runs, each with a command, an exit status,
//! substrings of stderr and stdout, binary dumps with their values, and files
//! that must be identical. Nothing outside the repository is read: comparing the
//! copies with the shared suite is `.ci/run`'s job.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use simt_io::Element;
use simt_isa::ElemType;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/conformance")
}

/// Little-endian elements of the runner's type `ty` (`u8` .. `f64`, `b32`) as f64 (exact for all).
fn read_elements(bytes: &[u8], ty: &str) -> Vec<f64> {
    let elem = ElemType::from_name(ty).unwrap_or_else(|| panic!("conformance type {ty} is not known"));
    simt_io::elements(elem, bytes).map(Element::value).collect()
}

/// The runner's comparison: NaN matches NaN, `tol` is relative above 1 and absolute below.
fn same(got: f64, want: &Value, tol: f64) -> bool {
    let want = match want {
        Value::String(s) => s.parse::<f64>().expect("a special value such as \"nan\" or \"inf\""),
        other => other.as_f64().expect("a number"),
    };
    if want.is_nan() {
        return got.is_nan();
    }
    if tol > 0.0 { (got - want).abs() <= tol * want.abs().max(1.0) } else { got == want }
}

/// The failures of one case, one line each.
fn run_case(case: &Path) -> Vec<String> {
    let runs: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(case.join("case.json")).unwrap()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let substitute = |a: &Value| a.as_str().unwrap().replace("{tmp}", tmp.path().to_str().unwrap()).replace("{case}", case.to_str().unwrap());
        let args: Vec<String> = run["cmd"].as_array().unwrap().iter().map(substitute).collect();
        let where_ = format!("run {i} (simt {})", args.join(" "));
        let out = Command::new(env!("CARGO_BIN_EXE_simt")).args(&args).current_dir(case).output().unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        let Some(code) = out.status.code().filter(|&c| c != 101) else {
            failures.push(format!("{where_}: crashed ({}); stderr: {stderr}", out.status));
            continue;
        };
        let want_exit = &run.get("exit").cloned().unwrap_or(Value::from(0));
        if want_exit != "any" && want_exit.as_i64() != Some(i64::from(code)) {
            failures.push(format!("{where_}: exit {code}, want {want_exit}; stderr: {stderr}"));
            continue;
        }
        for (stream, text) in [("stderr", &stderr), ("stdout", &stdout)] {
            for needle in run.get(stream).and_then(Value::as_array).into_iter().flatten() {
                let needle = needle.as_str().unwrap();
                if !text.to_lowercase().contains(&needle.to_lowercase()) {
                    failures.push(format!("{where_}: {stream} lacks {needle:?}; it was: {text}"));
                }
            }
        }
        let tol = run.get("tol").and_then(Value::as_f64).unwrap_or(0.0);
        for (name, spec) in run.get("bins").and_then(Value::as_object).into_iter().flatten() {
            let Ok(bytes) = std::fs::read(tmp.path().join(name)) else {
                failures.push(format!("{where_}: {name} was not written"));
                continue;
            };
            let got = read_elements(&bytes, spec[0].as_str().unwrap());
            let want = spec[1].as_array().unwrap();
            if got.len() != want.len() {
                failures.push(format!("{where_}: {name} has {} elements, want {}", got.len(), want.len()));
            } else if let Some(k) = (0..got.len()).find(|&k| !same(got[k], &want[k], tol)) {
                failures.push(format!("{where_}: {name}[{k}] = {}, want {}", got[k], want[k]));
            }
        }
        for pair in run.get("same_files").and_then(Value::as_array).into_iter().flatten() {
            let read = |k: usize| std::fs::read(tmp.path().join(pair[k].as_str().unwrap())).ok();
            if read(0).is_none() || read(0) != read(1) {
                failures.push(format!("{where_}: {} and {} differ or are missing", pair[0], pair[1]));
            }
        }
    }
    failures
}

#[test]
fn conformance_cases_pass() {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(fixtures()).unwrap().map(|e| e.unwrap().path()).collect();
    cases.sort();
    assert!(cases.len() >= 21, "only {} conformance cases under {}", cases.len(), fixtures().display());
    let failures: Vec<String> = cases
        .iter()
        .flat_map(|case| {
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            run_case(case).into_iter().map(move |f| format!("{name}: {f}"))
        })
        .collect();
    assert!(failures.is_empty(), "conformance failures:\n{}", failures.join("\n"));
}
