//! Embeds the git commit simt is built from: every run record names it, and it is part of
//! every record's key, so results stay tied to the code that made them.

use std::path::Path;
use std::process::Command;

/// The crate's directory, read when the script runs (one compiled script may serve two
/// checkouts that share a target directory, as CI's clone does).
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).current_dir(manifest_dir()).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

fn main() {
    println!("cargo::rerun-if-env-changed=SIMT_COMMIT");
    // Packagers building from a tarball may say which commit it is; without git it is "unknown".
    let commit = std::env::var("SIMT_COMMIT").ok().or_else(|| git(&["rev-parse", "HEAD"])).unwrap_or_else(|| "unknown".into());
    // Rebuild when HEAD moves: HEAD itself (a checkout) and the branch it names (a commit).
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for name in watched {
        if let Some(path) = git(&["rev-parse", "--git-path", &name]) {
            let path = Path::new(&manifest_dir()).join(path);
            if path.exists() {
                println!("cargo::rerun-if-changed={}", path.display());
            }
        }
    }
    println!("cargo::rustc-env=SIMT_COMMIT={commit}");
}
