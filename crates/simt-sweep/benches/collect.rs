//! `simt collect`'s table: 100,000 records of a timed run (`benches/record.json`, a
//! real record of `asm/saxpy.s --timing h100`) parsed, flattened and written as CSV.
//! `cargo bench -p simt-sweep --bench collect`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rayon::prelude::*;
use simt_sweep::record::Record;
use simt_sweep::table::{self, Format};

const RECORDS: usize = 100_000;

fn bench(c: &mut Criterion) {
    let template = include_str!("record.json");
    // Each record its own bytes, as files on disk would be: a distinct key and argument.
    let files: Vec<String> = (0..RECORDS).map(|i| template.replacen("\"--timing\"", &format!("\"--arg\",\"n={i}\",\"--timing\""), 1)).collect();
    let mut group = c.benchmark_group("collect");
    group.throughput(Throughput::Elements(RECORDS as u64));
    group.sample_size(10);
    group.bench_function("100k records to CSV", |b| {
        b.iter(|| {
            let records: Vec<Record> = files.par_iter().map(|f| Record::parse(f.as_bytes()).expect("a record")).collect();
            let rows: Vec<table::Row> = records.par_iter().map(|r| table::row(r, false)).collect();
            table::render(&rows, Format::Csv).len()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
