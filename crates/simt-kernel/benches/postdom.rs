//! Post-dominators of adversarial control-flow shapes at the size of the largest
//! kernels: a million-instruction chain of backward branches, a fan of branches
//! to one label, and deep nesting. `cargo bench -p simt-kernel --bench postdom`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use simt_isa::{Guard, Instruction, NO_RECONV, Opcode, Operand};
use simt_kernel::cfg::Cfg;

const LEN: u32 = 1_000_000;

fn branch(target: u32) -> Instruction {
    let mut inst = Instruction::new(Opcode::Bra);
    inst.guard = Guard { pred: 0, negated: false };
    inst.operands[0] = Operand::Label { target, reconv: NO_RECONV };
    inst
}

fn shapes() -> Vec<(&'static str, Vec<Instruction>)> {
    let nop = || Instruction::new(Opcode::Nop);
    let chain = (0..LEN).map(|i| if i % 2 == 1 { branch(i - 1) } else { nop() }).collect();
    let fan = (0..LEN).map(|i| if i + 1 < LEN { branch(LEN - 1) } else { Instruction::new(Opcode::Exit) }).collect();
    let nest = (0..LEN).map(|i| if i < LEN / 2 { branch(LEN - 1 - i) } else { nop() }).collect();
    vec![("chain", chain), ("fan", fan), ("nest", nest)]
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("post_dominators_1M");
    group.sample_size(10);
    for (name, code) in shapes() {
        let cfg = Cfg::build(&code);
        group.bench_with_input(BenchmarkId::from_parameter(name), &cfg, |b, cfg| b.iter(|| cfg.post_dominators()));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
