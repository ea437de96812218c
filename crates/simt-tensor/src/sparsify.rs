//! 2:4 structured sparsity: magnitude pruning into the compressed form that
//! `MMA.SP.M16N16K32` reads, and back.
//!
//! A matrix is cut into 16x32 tiles, each the logical A of one `MMA.SP`. Within
//! a tile, lane `l = 2r + h` covers row `r`, columns `16h .. 16h + 15`: four
//! groups of four columns, two kept values each. Its metadata word holds in
//! bits `2i+1:2i` the column inside its group of kept value `i` (`i = 0..7`,
//! group `i / 2`); the upper 16 bits are zero.

/// The metadata of one lane names a group whose two indices are not strictly increasing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("metadata indices of group {group} are {first}, {second}; the two indices of a group must be strictly increasing")]
pub struct MetadataError {
    /// The group within the lane (0..3: bits `4g+3:4g` of the metadata word).
    pub group: u32,
    /// The index of the group's first kept value.
    pub first: u8,
    /// The index of the group's second kept value.
    pub second: u8,
}

/// Why a matrix cannot be sparsified or decompressed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SparsifyError {
    /// Encountered when the matrix does not divide into 16x32 tiles.
    #[error("a 2:4 sparse matrix needs rows a multiple of 16 and columns a multiple of 32, not {rows} x {cols}")]
    Shape {
        /// Rows given.
        rows: usize,
        /// Columns given.
        cols: usize,
    },
    /// Encountered when a slice does not have the length the shape implies.
    #[error("{what} has {actual} values; a {rows} x {cols} matrix needs {expected}")]
    Length {
        /// Which slice: "the dense matrix", "values" or "metadata".
        what: &'static str,
        /// Its length.
        actual: usize,
        /// The length the shape implies.
        expected: usize,
        /// Rows given.
        rows: usize,
        /// Columns given.
        cols: usize,
    },
    /// Encountered when decompressing metadata that no sparsification produces.
    #[error("tile {tile}, lane {lane}: {error}")]
    Metadata {
        /// The tile, counted in row-major tile order.
        tile: usize,
        /// The lane (the word within the tile's block).
        lane: usize,
        /// What is wrong with the word.
        #[source]
        error: MetadataError,
    },
}

/// A 2:4 pruned matrix in the form `MMA.SP` consumes.
#[derive(Debug, Clone, PartialEq)]
pub struct Sparse24 {
    /// Rows of the dense matrix.
    pub rows: usize,
    /// Columns of the dense matrix.
    pub cols: usize,
    /// The kept values, `rows x cols/2` row-major, in column order.
    pub values: Vec<f32>,
    /// One 32-word block per 16x32 tile, tiles in row-major tile order; word
    /// `l` is the `e` register of lane `l` for `MMA.SP` on that tile.
    pub metadata: Vec<u32>,
    /// The `rows x cols` dense matrix with the pruned values set to +0.0.
    pub pruned: Vec<f32>,
}

/// Magnitude 2:4 pruning of a row-major `rows x cols` matrix: of every 4
/// consecutive values of a row the two largest `|value|`s are kept, ties going
/// to the lower column. A NaN counts as larger than any number, so pruning
/// never hides one.
///
/// # Errors
///
/// [`SparsifyError::Shape`] unless `rows % 16 == 0` and `cols % 32 == 0`;
/// [`SparsifyError::Length`] unless `dense.len() == rows * cols`.
pub fn sparsify(dense: &[f32], rows: usize, cols: usize) -> Result<Sparse24, SparsifyError> {
    check(rows, cols, "the dense matrix", dense.len(), rows * cols)?;
    let mut sparse = Sparse24 { rows, cols, values: Vec::with_capacity(rows * cols / 2), metadata: vec![0; rows * cols / 16], pruned: vec![0.0; rows * cols] };
    for (row, values) in dense.chunks_exact(cols).enumerate() {
        for (group, four) in values.chunks_exact(4).enumerate() {
            let kept = keep_two(four);
            for &i in &kept {
                sparse.values.push(four[i]);
                sparse.pruned[row * cols + 4 * group + i] = four[i];
            }
            // Group `group` of the row is group `group % 4` of lane `2r + h`
            // in tile (row / 16, group / 8).
            let tile = row / 16 * (cols / 32) + group / 8;
            let lane = 2 * (row % 16) + group % 8 / 4;
            let shift = 4 * (group % 4);
            sparse.metadata[tile * 32 + lane] |= ((kept[0] | kept[1] << 2) as u32) << shift;
        }
    }
    Ok(sparse)
}

/// The dense matrix that compressed `values` and `metadata` (as in [`Sparse24`])
/// stand for, zeros in the pruned places.
///
/// # Errors
///
/// [`SparsifyError::Shape`] and [`SparsifyError::Length`] as for [`sparsify`];
/// [`SparsifyError::Metadata`] for a metadata word whose two indices of a group
/// are not strictly increasing.
pub fn decompress(values: &[f32], metadata: &[u32], rows: usize, cols: usize) -> Result<Vec<f32>, SparsifyError> {
    check(rows, cols, "values", values.len(), rows * cols / 2)?;
    check(rows, cols, "metadata", metadata.len(), rows * cols / 16)?;
    let mut dense = vec![0.0; rows * cols];
    for (index, &word) in metadata.iter().enumerate() {
        let (tile, lane) = (index / 32, index % 32);
        let kept = decode_metadata(word).map_err(|error| SparsifyError::Metadata { tile, lane, error })?;
        let row = tile / (cols / 32) * 16 + lane / 2;
        let first_col = tile % (cols / 32) * 32 + lane % 2 * 16;
        for (i, col) in kept.iter().enumerate() {
            dense[row * cols + first_col + 4 * (i / 2) + usize::from(*col)] = values[row * cols / 2 + first_col / 2 + i];
        }
    }
    Ok(dense)
}

/// The column inside its group of each of the 8 kept values a metadata word describes.
///
/// # Errors
///
/// The first group whose two indices are not strictly increasing.
pub fn decode_metadata(word: u32) -> Result<[u8; 8], MetadataError> {
    let kept: [u8; 8] = std::array::from_fn(|i| (word >> (2 * i) & 3) as u8);
    for (group, pair) in kept.chunks_exact(2).enumerate() {
        if pair[0] >= pair[1] {
            return Err(MetadataError { group: group as u32, first: pair[0], second: pair[1] });
        }
    }
    Ok(kept)
}

fn check(rows: usize, cols: usize, what: &'static str, actual: usize, expected: usize) -> Result<(), SparsifyError> {
    if !rows.is_multiple_of(16) || !cols.is_multiple_of(32) {
        return Err(SparsifyError::Shape { rows, cols });
    }
    if actual != expected {
        return Err(SparsifyError::Length { what, actual, expected, rows, cols });
    }
    Ok(())
}

/// The two positions of `four` to keep, in increasing order.
fn keep_two(four: &[f32]) -> [usize; 2] {
    // The bits of |x| order magnitudes, and put NaN above infinity.
    let magnitude = |i: usize| four[i].abs().to_bits();
    // `max_by_key` returns the last maximum; reversing makes ties go to the lower column.
    let first = (0..4).rev().max_by_key(|&i| magnitude(i)).unwrap_or(0);
    let second = (0..4).rev().filter(|&i| i != first).max_by_key(|&i| magnitude(i)).unwrap_or(0);
    [first.min(second), first.max(second)]
}
