//! The shared conformance cases `mma_dense` and `mma_sparse`, run directly on
//! `mma`: their `.npy` inputs are loaded the way their kernels load them and
//! D must equal the `d.bin` their `case.json` expects.

mod common;

use common::FORMS;
use simt_tensor::layout::{Operand, Shape, pack, unpack};
use std::path::PathBuf;

fn case_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/cases").join(name)
}

/// The raw little-endian data of a 1-D `.npy` file and its `descr`.
fn npy(name: &str, file: &str) -> (String, Vec<u8>) {
    let bytes = std::fs::read(case_dir(name).join(file)).unwrap_or_else(|e| panic!("{name}/{file}: {e}"));
    assert_eq!(&bytes[..6], b"\x93NUMPY", "{file}: not an .npy file");
    let (header_len, start) = match bytes[6] {
        1 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10),
        _ => (u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize, 12),
    };
    let header = std::str::from_utf8(&bytes[start..start + header_len]).unwrap();
    assert!(header.contains("'fortran_order': False"), "{file}: {header}");
    let descr = header.split("'descr': '").nth(1).and_then(|rest| rest.split('\'').next()).unwrap().to_string();
    (descr, bytes[start + header_len..].to_vec())
}

/// A file of 16-bit values as raw bits.
fn npy_u16(name: &str, file: &str) -> Vec<u32> {
    let (descr, data) = npy(name, file);
    assert_eq!(descr, "<f2", "{file}");
    data.chunks_exact(2).map(|c| u32::from(u16::from_le_bytes([c[0], c[1]]))).collect()
}

/// A file of 32-bit values (f32 or u32) as raw bits.
fn npy_u32(name: &str, file: &str) -> Vec<u32> {
    let (descr, data) = npy(name, file);
    assert!(descr == "<f4" || descr == "<u4", "{file}: {descr}");
    data.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// Every expected `d.bin` of a case (all runs of a case must agree).
fn expected_d(name: &str) -> Vec<u32> {
    let text = std::fs::read_to_string(case_dir(name).join("case.json")).unwrap();
    let runs: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut expected = Vec::new();
    for run in runs.as_array().unwrap() {
        let bin = &run["bins"]["d.bin"];
        assert_eq!(bin[0], "f32");
        let values: Vec<u32> = bin[1].as_array().unwrap().iter().map(|v| (v.as_f64().unwrap() as f32).to_bits()).collect();
        if !expected.is_empty() {
            assert_eq!(values, expected, "{name}: runs disagree");
        }
        expected = values;
    }
    expected
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
    assert_eq!(d, expected_d("mma_dense"));
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
    simt_tensor::mma(simt_isa::Opcode::Mma, simt_isa::MmaAcc::F32, simt_isa::MmaIn::F16, &fa, &fb, &fc, None, &mut fd).unwrap();
    let d: Vec<u32> = (0..256).map(|i| fd[i % 8][i / 8]).collect();
    assert_eq!(d, expected_d("mma_dense"));
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
    assert_eq!(d, expected_d("mma_sparse"));
    // And the same through the library's own decompression and a dense K = 32 chain.
    let kept: Vec<f32> = vals.iter().map(|&x| half::f16::from_bits(x as u16).to_f32()).collect();
    let dense = simt_tensor::sparsify::decompress(&kept, &e, 16, 32).unwrap();
    let dense_bits: Vec<u32> = dense.iter().map(|&x| u32::from(half::f16::from_f32(x).to_bits())).collect();
    assert_eq!(form.reference(&dense_bits, &b_from_bt(&bt, 32), &c, 16, 32, 16), d);
}
