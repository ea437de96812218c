//! The shared conformance cases `mma_dense` and `mma_sparse`, run directly on
//! `mma`: their `.npy` inputs are loaded the way their kernels load them and
//! D must equal the `d.bin` their `case.json` expects.

mod common;

use common::{FORMS, expected_bin, npy, npy_u32};
use simt_tensor::layout::{Operand, Shape, pack, unpack};

/// A file of 16-bit values as raw bits.
fn npy_u16(name: &str, file: &str) -> Vec<u32> {
    let (descr, data) = npy(name, file);
    assert_eq!(descr, "<f2", "{file}");
    data.chunks_exact(2).map(|c| u32::from(u16::from_le_bytes([c[0], c[1]]))).collect()
}

/// Transposes the column-major `bt[n * k_dim + k] = B[k][n]` into row-major B.
fn b_from_bt(bt: &[u32], k_dim: usize) -> Vec<u32> {
    (0..k_dim * 16).map(|i| bt[(i % 16) * k_dim + i / 16]).collect()
}

#[test]
fn mma_dense_case() {
    let (a, bt, c) = (npy_u16("mma_dense", "a.npy"), npy_u16("mma_dense", "bt.npy"), npy_u32("mma_dense", "c.npy"));
    let form = FORMS[0];
    let d = form.run(&a, &b_from_bt(&bt, 16), &c, None).unwrap();
    assert_eq!(d, expected_bin("mma_dense", "mma.s", "d.bin"));
}

#[test]
fn mma_dense_case_loaded_as_the_kernel_loads_it() {
    // mma.s: lane q = 2r + h loads 16 bytes at 16q of a and bt into R0..R3 and
    // R4..R7, 32 bytes at 32q of c into R8..R15, and stores R16..R23 at 32q of d.
    let (a, bt, c) = (npy_u16("mma_dense", "a.npy"), npy_u16("mma_dense", "bt.npy"), npy_u32("mma_dense", "c.npy"));
    let halves = |v: &[u32], q: usize, g: usize| v[8 * q + 2 * g] | v[8 * q + 2 * g + 1] << 16;
    let fa: Vec<[u32; 32]> = (0..4).map(|g| std::array::from_fn(|q| halves(&a, q, g))).collect();
    let fb: Vec<[u32; 32]> = (0..4).map(|g| std::array::from_fn(|q| halves(&bt, q, g))).collect();
    let fc: Vec<[u32; 32]> = (0..8).map(|g| std::array::from_fn(|q| c[8 * q + g])).collect();
    let mut fd = vec![[0u32; 32]; 8];
    simt_tensor::mma(simt_isa::Opcode::Mma, simt_isa::MmaAcc::F32, simt_isa::MmaIn::F16, false, &fa, &fb, &fc, None, &mut fd).unwrap();
    let d: Vec<u32> = (0..256).map(|i| fd[i % 8][i / 8]).collect();
    assert_eq!(d, expected_bin("mma_dense", "mma.s", "d.bin"));
    // The same fragments are what `layout::pack` produces from the matrices.
    assert_eq!(fa, pack(Shape::M16N16K16, Operand::A, 2, &a));
    assert_eq!(unpack(Shape::M16N16K16, Operand::C, 1, &fd), d);
}

#[test]
fn mma_sparse_case() {
    let vals = npy_u16("mma_sparse", "vals.npy");
    let bt = npy_u16("mma_sparse", "bt.npy");
    let c = npy_u32("mma_sparse", "c.npy");
    let e: [u32; 32] = npy_u32("mma_sparse", "meta.npy").try_into().unwrap();
    let form = FORMS[7];
    let d = form.run(&vals, &b_from_bt(&bt, 32), &c, Some(&e)).unwrap();
    assert_eq!(d, expected_bin("mma_sparse", "sparse.s", "d.bin"));
    // And the same through the library's own decompression and a dense K = 32 chain.
    let kept: Vec<f32> = vals.iter().map(|&x| half::f16::from_bits(x as u16).to_f32()).collect();
    let dense = simt_tensor::sparsify::decompress(&kept, &e, 16, 32).unwrap();
    let dense_bits: Vec<u32> = dense.iter().map(|&x| u32::from(half::f16::from_f32(x).to_bits())).collect();
    assert_eq!(form.reference(&dense_bits, &b_from_bt(&bt, 32), &c, 16, 32, 16), d);
}
