//! The corpus in `tests/ptx`: every fixture parses cleanly, the manifest agrees with the
//! fixtures, and the instruction mix is recorded.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use simt_ptx::ast::{Block, FunctionKind, Statement};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ptx")
}

fn fixtures() -> Vec<(String, String)> {
    let dir = corpus_dir().join("fixtures");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().expect("file name").to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).expect("fixture text"))
        })
        .collect()
}

#[test]
fn every_fixture_parses_without_diagnostics() {
    let fixtures = fixtures();
    assert!(fixtures.len() >= 100, "the corpus has {} fixtures; run tests/ptx/regen.sh", fixtures.len());
    let mut failures = String::new();
    for (name, text) in &fixtures {
        let parsed = simt_ptx::parse(text);
        if !parsed.diagnostics.is_empty() {
            failures.push_str(&parsed.diagnostics.render(name, text, false));
            continue;
        }
        let module = &parsed.module;
        assert_eq!(module.version.map(|v| v.value), Some((7, 0)), "{name}");
        assert_eq!(module.address_size.map(|a| a.value), Some(64), "{name}");
        let entry = name.split('.').next().expect("kernel name");
        let kernel = module.function(entry).unwrap_or_else(|| panic!("{name}: no .entry {entry}"));
        assert_eq!(kernel.kind, FunctionKind::Entry, "{name}");
        assert!(count_instructions(kernel.body.as_ref().expect("a body")) > 0, "{name}");
    }
    assert!(failures.is_empty(), "{failures}");
}

fn count_instructions(block: &Block<'_>) -> usize {
    block
        .statements
        .iter()
        .map(|s| match s {
            Statement::Instruction(_) => 1,
            Statement::Block(inner) => count_instructions(inner),
            _ => 0,
        })
        .sum()
}

fn tally(block: &Block<'_>, counts: &mut BTreeMap<String, usize>) {
    for statement in &block.statements {
        match statement {
            Statement::Instruction(i) => *counts.entry(i.op.to_string()).or_default() += 1,
            Statement::Block(inner) => tally(inner, counts),
            _ => {}
        }
    }
}

/// How often each instruction form occurs over all fixtures: the work list of the translation.
#[test]
fn instruction_mix() {
    let mut counts = BTreeMap::new();
    for (_, text) in fixtures() {
        let parsed = simt_ptx::parse(&text);
        for function in parsed.module.functions() {
            if let Some(body) = &function.body {
                tally(body, &mut counts);
            }
        }
    }
    let mut rows: Vec<_> = counts.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let table: String = rows.iter().map(|(form, n)| format!("{n:>6}  {form}\n")).collect();
    insta::assert_snapshot!(table);
}
