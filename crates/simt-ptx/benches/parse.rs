//! Parsing speed in PTX lines per second, over the whole corpus concatenated into one large
//! module-shaped text (each fixture's functions renamed apart is unnecessary: the parser does
//! not resolve names).

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

criterion_group!(benches, parse);
criterion_main!(benches);
