//! Time per MMA of each form (the budget is 2 µs for every form).

use criterion::{Criterion, criterion_group, criterion_main};
use simt_isa::{MmaAcc, MmaIn, Opcode};
use std::hint::black_box;

/// Fragments filled with small normal f16 values (pairs per register), so the
/// chain does real rounding work; read as TF32, f64 pairs, 8- or 4-bit codes
/// they are ordinary finite values too (an occasional FP8 NaN code costs the
/// same as any value).
fn fragment(regs: usize, seed: u32) -> Vec<[u32; 32]> {
    (0..regs)
        .map(|g| {
            std::array::from_fn(|l| {
                let x = (g as u32 * 32 + l as u32).wrapping_mul(2_654_435_761).wrapping_add(seed);
                let half = |v: u32| 0x3800 | (v & 0x03FF) | (v & 0x8000);
                half(x) | half(x >> 16) << 16
            })
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let forms = [
        ("MMA.M16N16K16.F32.F16", Opcode::Mma, MmaAcc::F32, MmaIn::F16, [4, 4, 8]),
        ("MMA.M16N16K16.F16.F16", Opcode::Mma, MmaAcc::F16, MmaIn::F16, [4, 4, 4]),
        ("MMA.M16N16K16.S32.S8", Opcode::Mma, MmaAcc::S32, MmaIn::S8, [2, 2, 8]),
        ("MMA.M16N8K16.F32.BF16", Opcode::MmaM16n8k16, MmaAcc::F32, MmaIn::BF16, [4, 2, 4]),
        ("MMA.SP.M16N16K32.F32.F16", Opcode::MmaSp, MmaAcc::F32, MmaIn::F16, [4, 8, 8]),
        ("MMA.M16N16K16.F32.TF32", Opcode::Mma, MmaAcc::F32, MmaIn::TF32, [8, 8, 8]),
        ("MMA.M16N16K16.F32.E4M3", Opcode::Mma, MmaAcc::F32, MmaIn::E4M3, [2, 2, 8]),
        ("MMA.M16N16K16.F32.E5M2", Opcode::Mma, MmaAcc::F32, MmaIn::E5M2, [2, 2, 8]),
        ("MMA.M16N16K16.F32.E2M1", Opcode::Mma, MmaAcc::F32, MmaIn::E2M1, [1, 1, 8]),
        ("MMA.M16N16K16.S32.S4", Opcode::Mma, MmaAcc::S32, MmaIn::S4, [1, 1, 8]),
        ("MMA.M8N8K4.F64.F64", Opcode::MmaM8n8k4, MmaAcc::F64, MmaIn::F64, [2, 2, 4]),
        ("MMA.M16N8K32.S32.S8", Opcode::MmaM16n8k32, MmaAcc::S32, MmaIn::S8, [4, 2, 4]),
        ("MMA.M16N8K32.F32.E4M3", Opcode::MmaM16n8k32, MmaAcc::F32, MmaIn::E4M3, [4, 2, 4]),
    ];
    for (name, opcode, acc, input, [na, nb, nc]) in forms {
        let (a, b, cc) = (fragment(na, 1), fragment(nb, 2), fragment(nc, 3));
        // Every lane keeps columns (1, 2), (0, 1), (0, 3), (1, 2) of its four groups.
        let e = (opcode == Opcode::MmaSp).then_some([0x9C49_9C49u32 & 0xFFFF; 32]);
        let mut d = vec![[0u32; 32]; nc];
        c.bench_function(name, |bench| {
            bench.iter(|| {
                simt_tensor::mma(opcode, acc, input, false, black_box(&a), black_box(&b), black_box(&cc), e.as_ref(), &mut d).expect("valid operands");
                black_box(&d);
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
