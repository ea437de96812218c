//! 2:4 sparsification, decompression, metadata errors, and `MMA.SP` on the result.

mod common;

use common::{FORMS, Lcg};
use simt_tensor::layout::Operand;
use simt_tensor::sparsify::{MetadataError, SparsifyError, decompress, sparsify};

fn random_matrix(rows: usize, cols: usize, seed: u64) -> Vec<f32> {
    let mut rng = Lcg(seed);
    // Few distinct magnitudes, so that ties happen often.
    (0..rows * cols).map(|_| (rng.next() % 9) as f32 / 4.0 - 1.0).collect()
}

#[test]
fn keeps_the_two_largest_magnitudes_ties_to_the_lower_column() {
    let mut dense = vec![0.0f32; 16 * 32];
    dense[..8].copy_from_slice(&[1.0, -3.0, 2.0, 3.0, 5.0, 5.0, 5.0, 5.0]);
    dense[8..12].copy_from_slice(&[0.0, -0.0, 0.0, 1.0]);
    dense[12..16].copy_from_slice(&[f32::NAN, 1.0, f32::INFINITY, 2.0]);
    let s = sparsify(&dense, 16, 32).unwrap();
    assert_eq!(&s.values[..6], &[-3.0, 3.0, 5.0, 5.0, 0.0, 1.0]);
    assert!(s.values[6].is_nan() && s.values[7] == f32::INFINITY);
    // Lane 0 groups: (1, 3), (0, 1), (0, 3), (0, 2).
    assert_eq!(s.metadata[0], 0b10_00_11_00_01_00_11_01);
    assert_eq!(&s.pruned[..8], &[0.0, -3.0, 0.0, 3.0, 5.0, 5.0, 0.0, 0.0]);
    // An all-zero group keeps columns 0 and 1.
    assert_eq!(s.metadata[1] & 0xF, 0b01_00);
}

#[test]
fn metadata_blocks_follow_the_tile_order() {
    // 32 x 64: four tiles. A single non-zero at (row, col) must show in the
    // metadata word of tile (row / 16, col / 32), lane 2 (row % 16) + col % 32 / 16.
    let (rows, cols) = (32, 64);
    let (row, col) = (17, 54); // tile (1, 1) = 3, lane 2 + 1 = 3, group 1 keeps columns 0 and 2
    let mut dense = vec![0.0f32; rows * cols];
    dense[row * cols + col] = 7.0;
    let s = sparsify(&dense, rows, cols).unwrap();
    assert_eq!(s.metadata.len(), 4 * 32);
    for (index, &word) in s.metadata.iter().enumerate() {
        let expected = if index == 3 * 32 + 3 { 0x4484 } else { 0x4444 };
        assert_eq!(word, expected, "word {index}");
    }
    assert_eq!(s.values[row * cols / 2 + 32 / 2 + 8 + 2 + 1], 7.0);
}

#[test]
fn decompress_inverts_sparsify() {
    for (rows, cols, seed) in [(16, 32, 1), (32, 64, 2), (48, 96, 3)] {
        let dense = random_matrix(rows, cols, seed);
        let s = sparsify(&dense, rows, cols).unwrap();
        assert_eq!(s.values.len(), rows * cols / 2);
        let back = decompress(&s.values, &s.metadata, rows, cols).unwrap();
        assert_eq!(back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), s.pruned.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
        for (group, four) in s.pruned.chunks_exact(4).enumerate() {
            assert!(four.iter().filter(|&&x| x != 0.0).count() <= 2, "group {group}: {four:?}");
            // The kept magnitudes are the two largest of the group.
            let mut original: Vec<f32> = dense[4 * group..4 * group + 4].iter().map(|x| x.abs()).collect();
            original.sort_by(f32::total_cmp);
            assert_eq!(four.iter().map(|x| x.abs()).sum::<f32>(), original[2] + original[3], "group {group}");
        }
    }
}

#[test]
fn bad_shapes_and_metadata_are_errors() {
    assert_eq!(sparsify(&[0.0; 16 * 16], 16, 16).unwrap_err(), SparsifyError::Shape { rows: 16, cols: 16 });
    assert!(matches!(sparsify(&[0.0; 10], 16, 32), Err(SparsifyError::Length { actual: 10, expected: 512, .. })));
    let mut metadata = vec![0x4444u32; 64];
    metadata[37] = 0x4474; // group 1 of tile 1, lane 5: indices 3, 1
    let err = decompress(&[0.0; 32 * 16], &metadata, 16, 64).unwrap_err();
    assert_eq!(err, SparsifyError::Metadata { tile: 1, lane: 5, error: MetadataError { group: 1, first: 3, second: 1 } });
    assert_eq!(err.to_string(), "tile 1, lane 5: metadata indices of group 1 are 3, 1; the two indices of a group must be strictly increasing");
}

#[test]
fn invalid_metadata_faults_the_mma_naming_lane_and_group() {
    let form = FORMS[7];
    let mut e = [0x4444u32; 32];
    e[5] = 0x4744; // group 2: indices 3, 1
    e[9] = 0x0000; // a later bad lane: the lowest one is reported
    let zeros = |op| vec![0u32; form.len(op)];
    let err = form.run(&zeros(Operand::A), &zeros(Operand::B), &zeros(Operand::C), Some(&e)).unwrap_err();
    assert_eq!(err.lane, 5);
    assert_eq!(err.to_string(), "lane 5: metadata indices of group 2 are 3, 1; the two indices of a group must be strictly increasing");
}

#[test]
fn mma_sp_on_sparsified_tiles_equals_the_dense_product_of_the_pruned_matrix() {
    for (seed, form) in [(7, FORMS[7]), (8, FORMS[8])] {
        let dense = random_matrix(16, 32, seed);
        // Values that are exact in both f16 and bf16.
        let s = sparsify(&dense, 16, 32).unwrap();
        let bits = |x: f32| u32::from(if form.input == simt_isa::MmaIn::BF16 { half::bf16::from_f32(x).to_bits() } else { half::f16::from_f32(x).to_bits() });
        let kept: Vec<u32> = s.values.iter().map(|&x| bits(x)).collect();
        let pruned: Vec<u32> = s.pruned.iter().map(|&x| bits(x)).collect();
        let b: Vec<u32> = random_matrix(32, 16, seed + 100).into_iter().map(bits).collect();
        let c: Vec<u32> = random_matrix(16, 16, seed + 200).into_iter().map(f32::to_bits).collect();
        let e: [u32; 32] = s.metadata.try_into().unwrap();
        let got = form.run(&kept, &b, &c, Some(&e)).unwrap();
        assert_eq!(got, form.reference(&pruned, &b, &c, 16, 32, 16));
    }
}

#[test]
fn the_worked_example_of_docs_tensor_md() {
    let mut dense = vec![0.0f32; 16 * 32];
    dense[..16].copy_from_slice(&[0.5, 0.0, -2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.5, 3.0, 0.0, 4.0, 0.0, 0.0, -1.0]);
    let s = sparsify(&dense, 16, 32).unwrap();
    assert_eq!(&s.values[..8], &[0.5, -2.0, 0.0, 0.0, 1.5, 3.0, 4.0, -1.0]);
    assert_eq!(s.metadata[0], 0xC948);
}
