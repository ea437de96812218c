//! Every shipped `.s` file assembles, and assemble -> disassemble -> assemble
//! reproduces its code exactly (and disassembling again gives the same text).

use std::path::{Path, PathBuf};

fn s_files(dir: &Path, recursive: bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() && recursive {
            s_files(&path, true, out);
        } else if path.extension().is_some_and(|e| e == "s") {
            out.push(path);
        }
    }
}

/// Assembles `path`, then checks the disassembly round trip.
fn round_trip(path: &Path) {
    let source = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.display().to_string();
    let module = simt_asm::assemble(&name, &source).unwrap_or_else(|d| panic!("{name} does not assemble:\n{d}"));
    let text = simt_isa::disassemble(&module);
    let again = simt_asm::assemble("disassembled.s", &text).unwrap_or_else(|d| panic!("disassembly of {name} does not assemble:\n{d}\n{text}"));
    assert_eq!(module.kernels.len(), again.kernels.len());
    for (a, b) in module.kernels.iter().zip(&again.kernels) {
        assert_eq!(a.code, b.code, "{name}: kernel {} changed after a round trip", a.name);
        assert_eq!((a.regs, a.shared_size, &a.params, &a.shared, a.launch), (b.regs, b.shared_size, &b.params, &b.shared, b.launch));
        // Through Debug, so that a NaN default compares equal to itself.
        assert_eq!(format!("{:?}", a.args), format!("{:?}", b.args), "{name}: kernel {} changed its .arg defaults", a.name);
    }
    let mut text_again = simt_isa::disassemble(&again);
    // The first line names the source file, which differs by construction.
    text_again = text_again.replacen("disassembled.s", &name, 1);
    assert_eq!(text, text_again, "{name}: disassembling twice differs");
}

#[test]
fn project_examples_round_trip() {
    let mut files = Vec::new();
    s_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../asm"), true, &mut files);
    for f in &files {
        round_trip(f);
    }
}

/// The conformance cases committed under `tests/fixtures/conformance` (CI
/// checks they match the shared suite).
fn conformance_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/conformance")
}

#[test]
fn conformance_cases_round_trip() {
    let mut files = Vec::new();
    for d in std::fs::read_dir(conformance_dir()).expect("tests/fixtures/conformance is committed") {
        s_files(&d.unwrap().path(), false, &mut files);
    }
    // The error case must not assemble, and the `.target` gating probes assemble only under some `--arch`.
    files.retain(|f| !f.ends_with("errors/bad.s") && !f.parent().is_some_and(|d| d.ends_with("arch_gating")));
    files.sort();
    assert!(files.len() > 20, "only {} conformance kernels found", files.len());
    for f in &files {
        round_trip(f);
    }
}

#[test]
fn the_conformance_error_case_reports_every_error() {
    let source = std::fs::read_to_string(conformance_dir().join("errors/bad.s")).unwrap();
    let err = simt_asm::assemble("bad.s", &source).unwrap_err();
    let text = err.render(false);
    for needle in ["bad.s:4", "FROB", "NOWHERE", "bad.s:6"] {
        assert!(text.contains(needle), "missing {needle} in\n{text}");
    }
}

/// The grammar lives inside the crate so that `cargo package` carries it, and
/// `grammar/` at the repository root is a link to it, where a reader looks first.
#[test]
fn the_packaged_crate_carries_the_grammar_the_root_shows() {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shown = manifest_dir.join("../../grammar/simt.lalrpop");
    assert_eq!(std::fs::canonicalize(&shown).unwrap(), std::fs::canonicalize(manifest_dir.join("grammar/simt.lalrpop")).unwrap());
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["package", "-p", "simt-asm", "--list", "--allow-dirty", "--offline"])
        .current_dir(manifest_dir)
        .output()
        .expect("cargo runs");
    let listing = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "cargo package --list failed:\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(listing.lines().any(|l| l == "grammar/simt.lalrpop"), "the package lacks the grammar:\n{listing}");
}
