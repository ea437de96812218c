//! Assembles a generated 100,000-line kernel (ALU, memory and branches with labels),
//! and the control-flow shapes that once made reconvergence analysis quadratic, at a
//! million lines each: a chain of backward branches, a fan of branches to one label,
//! and branches nested a million deep; then the divergence lints on the same shapes.
//! `cargo bench -p simt-asm --bench assemble`.

use std::fmt::Write;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const LINES: usize = 100_000;

fn kernel() -> String {
    let mut s = String::from(".kernel big\n.param .u32 n\n.param .ptr.f32 x\n.shared .f32 tile[256]\n");
    let mut lines = 4;
    let mut block = 0;
    while lines + 12 < LINES {
        let _ = write!(
            s,
            "B{block}:\n    S2R R0, SR_TID.X            // thread\n    LD.PARAM.U32 R1, [x]\n    LEA R2, R0, R1, 2\n    \
             LD.GLOBAL.F32 R3, [R2+16]\n    FFMA R4, R3, 2.5, -|R5|\n    IADD R6, R6, 0x10\n    ISETP.LT.U32 P0, R6, 1000\n\
             @P0 BRA B{}\n    ST.SHARED.F32 [R0+tile], R4\n    MOV R8, 0d3FF0000000000000\n    @!P0 BRA B{block}\n",
            block + 1
        );
        lines += 12;
        block += 1;
    }
    let _ = writeln!(s, "B{block}:\n    EXIT");
    s
}

/// The adversarial shapes, each about a million lines. Their branches depend on the
/// thread index and their bodies are barriers, so the lints see every branch as
/// divergent and every barrier inside some branch's region: their worst case too.
fn shapes() -> Vec<(&'static str, String)> {
    const N: usize = 1_000_000;
    const HEAD: &str = "S2R R0, SR_TID.X\nISETP.EQ P0, R0, 0\n";
    let mut chain = format!(".kernel chain\n{HEAD}");
    for i in 0..N / 2 {
        let _ = writeln!(chain, "L{i}: BAR.SYNC\n@P0 BRA L{i}");
    }
    chain.push_str("EXIT\n");
    let mut fan = format!(".kernel fan\n{HEAD}");
    for _ in 0..N / 2 {
        fan.push_str("@P0 BRA END\nBAR.SYNC\n");
    }
    fan.push_str("END: EXIT\n");
    let mut nest = format!(".kernel nest\n{HEAD}");
    for i in 0..N / 2 {
        let _ = writeln!(nest, "@P0 BRA E{i}");
    }
    for i in (0..N / 2).rev() {
        let _ = writeln!(nest, "E{i}: BAR.SYNC");
    }
    nest.push_str("EXIT\n");
    vec![("chain", chain), ("fan", fan), ("nest", nest)]
}

fn bench(c: &mut Criterion) {
    let source = kernel();
    let lines = source.lines().count() as u64;
    let mut group = c.benchmark_group("assemble");
    group.throughput(Throughput::Elements(lines));
    group.sample_size(20);
    group.bench_function("100k lines", |b| b.iter(|| simt_asm::assemble("big.s", &source).expect("the generated kernel assembles")));
    group.finish();
    let mut group = c.benchmark_group("assemble adversarial 1M lines");
    group.sample_size(10);
    for (name, source) in shapes() {
        group.throughput(Throughput::Elements(source.lines().count() as u64));
        group.bench_function(name, |b| b.iter(|| simt_asm::assemble("shape.s", &source).expect("the shape assembles")));
    }
    group.finish();
    let mut group = c.benchmark_group("lint adversarial 1M lines");
    group.sample_size(10);
    let levels = simt_asm::LintLevels::default();
    for (name, source) in shapes() {
        let module = simt_asm::assemble("shape.s", &source).expect("the shape assembles");
        group.throughput(Throughput::Elements(source.lines().count() as u64));
        group.bench_function(name, |b| b.iter(|| simt_asm::lint(&module, &levels, false).warnings));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
