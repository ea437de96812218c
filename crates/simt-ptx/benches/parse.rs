//! Parsing and translation speed in PTX lines per second. Parsing runs over the whole corpus
//! concatenated into one large module-shaped text (the parser does not resolve names);
//! translation (parse included) over every fixture that translates, one file at a time, as
//! `simt run file.ptx` does it.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn corpus_text() -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ptx/fixtures");
    let mut files: Vec<_> = std::fs::read_dir(&dir).expect("tests/ptx/fixtures").map(|e| e.expect("entry").path()).collect();
    files.sort();
    let mut text = String::new();
    // About 200k lines: large enough that per-call setup does not count.
    while text.lines().count() < 200_000 {
        for file in &files {
            text.push_str(&std::fs::read_to_string(file).expect("fixture"));
        }
    }
    text
}

fn parse(c: &mut Criterion) {
    let text = corpus_text();
    let lines = text.lines().count() as u64;
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Elements(lines));
    group.sample_size(20);
    group.bench_function("corpus_lines", |b| {
        b.iter(|| {
            let parsed = simt_ptx::parse(std::hint::black_box(&text));
            assert!(parsed.diagnostics.is_empty());
            parsed.module.items.len()
        })
    });
    group.bench_function("tokenize_lines", |b| b.iter(|| simt_ptx::lexer::tokenize(std::hint::black_box(&text)).0.len()));
    group.finish();
}

fn translate(c: &mut Criterion) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ptx/fixtures");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("tests/ptx/fixtures")
        .map(|e| e.expect("entry").path())
        .map(|p| (p.display().to_string(), std::fs::read_to_string(&p).expect("fixture")))
        .filter(|(name, text)| simt_ptx::translate(name, text, None).is_ok())
        .collect();
    files.sort();
    let lines: usize = files.iter().map(|(_, text)| text.lines().count()).sum();
    let mut group = c.benchmark_group("translate");
    group.throughput(Throughput::Elements(lines as u64));
    group.sample_size(20);
    group.bench_function("corpus_lines", |b| {
        b.iter(|| files.iter().map(|(name, text)| simt_ptx::translate(name, std::hint::black_box(text), None).map_or(0, |m| m.kernels.len())).sum::<usize>())
    });
    group.finish();
}

criterion_group!(benches, parse, translate);
criterion_main!(benches);
