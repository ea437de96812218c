//! Runs the shared conformance cases (`../shared/conformance`) against the `simt` binary of this build.

use std::path::Path;
use std::process::Command;

/// Cases that pass today; add a case here once it passes.
const PASSING: &[&str] = &["atomics", "bits", "block_sum", "diverge", "errors", "loops", "mma_dense", "mma_sparse", "saxpy", "shuffles"];

#[test]
fn conformance_cases_pass() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance");
    let cases = shared.join("cases");
    if !cases.is_dir() {
        eprintln!("skipped: no conformance cases at {} (they live next to the repository)", cases.display());
        return;
    }
    let failures: Vec<String> = PASSING
        .iter()
        .filter_map(|case| {
            let out = Command::new("python3")
                .arg(shared.join("run"))
                .arg(&cases)
                .args(["--only", case])
                .env("SIMT", env!("CARGO_BIN_EXE_simt"))
                .output()
                .expect("python3 runs the conformance runner");
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            (!out.status.success() || !text.contains("1 passed")).then(|| format!("{case}:\n{text}"))
        })
        .collect();
    assert!(failures.is_empty(), "conformance failures:\n{}", failures.join("\n"));
}
