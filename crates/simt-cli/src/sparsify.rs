//! `simt sparsify`: 2:4 pruning of a dense `.npy` matrix into `MMA.SP` operands.

use std::path::PathBuf;

use clap::Args;
use half::f16;
use simt_io::npy::{self, Dtype};

use crate::{Failure, Outcome, write_file};

/// Arguments of `simt sparsify`.
#[derive(Args)]
#[command(after_help = "Example:
  simt sparsify a.npy -o a24      # writes a24.values.npy, a24.meta.npy, a24.pruned.npy

The matrix (f16 or f32, rows a multiple of 16, columns of 32) keeps the two
largest-magnitude values of every group of four. PREFIX.values.npy holds them
(rows x cols/2, input dtype), PREFIX.meta.npy the u32 metadata words (32 per
16x32 tile, tiles row-major: word l is lane l's `e` operand), PREFIX.pruned.npy
the dense matrix with the dropped values zeroed (input dtype).")]
pub struct SparsifyArgs {
    /// The dense matrix, `<f2` or `<f4`, 2-D or 1-D with --rows or --cols.
    input: PathBuf,
    /// Rows [default: from a 2-D array's shape].
    #[arg(long)]
    rows: Option<usize>,
    /// Columns [default: from a 2-D array's shape].
    #[arg(long)]
    cols: Option<usize>,
    /// Prefix of the three output files.
    #[arg(short, long, value_name = "PREFIX")]
    output: PathBuf,
}

pub fn sparsify(args: SparsifyArgs) -> Outcome {
    let array = simt_io::read_npy_file(&args.input).map_err(Failure::input)?;
    let dense: Vec<f32> = match array.dtype {
        Dtype::F32 => array.data.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect(),
        Dtype::F16 => array.data.chunks_exact(2).map(|c| f16::from_le_bytes([c[0], c[1]]).to_f32()).collect(),
        other => {
            return Err(Failure::input(format!("{} holds dtype {other}; sparsify takes <f2 or <f4 matrices", args.input.display())));
        }
    };
    let (rows, cols) = shape(&array.shape, args.rows, args.cols, dense.len()).map_err(|e| Failure::input(format!("{}: {e}", args.input.display())))?;
    let sparse = simt_tensor::sparsify::sparsify(&dense, rows, cols).map_err(Failure::input)?;
    let floats = |values: &[f32]| -> Vec<u8> {
        match array.dtype {
            Dtype::F16 => values.iter().flat_map(|&v| f16::from_f32(v).to_le_bytes()).collect(),
            _ => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        }
    };
    let meta: Vec<u8> = sparse.metadata.iter().flat_map(|w| w.to_le_bytes()).collect();
    let out = |suffix: &str| PathBuf::from(format!("{}.{suffix}.npy", args.output.display()));
    let input = [args.input.as_path()];
    write_file(&out("values"), &npy::write(array.dtype, &[rows, cols / 2], &floats(&sparse.values)), &input)?;
    write_file(&out("meta"), &npy::write(Dtype::U32, &[sparse.metadata.len()], &meta), &input)?;
    write_file(&out("pruned"), &npy::write(array.dtype, &[rows, cols], &floats(&sparse.pruned)), &input)
}

/// Rows and columns from the array's shape and the flags, which must agree with each other.
fn shape(dims: &[usize], rows: Option<usize>, cols: Option<usize>, len: usize) -> Result<(usize, usize), String> {
    let from_file = match dims {
        [r, c] => Some((*r, *c)),
        [_] => None,
        _ => return Err(format!("a {}-D array is not a matrix", dims.len())),
    };
    let (r, c) = match (from_file, rows, cols) {
        (Some(rc), None, None) => rc,
        (Some((r, c)), _, _) => (rows.unwrap_or(r), cols.unwrap_or(c)),
        (None, Some(r), Some(c)) => (r, c),
        (None, Some(r), None) if r > 0 && len.is_multiple_of(r) => (r, len / r),
        (None, None, Some(c)) if c > 0 && len.is_multiple_of(c) => (len / c, c),
        (None, None, None) => return Err("a 1-D array needs --rows or --cols".into()),
        _ => return Err(format!("{len} elements do not divide into the rows or columns given")),
    };
    if r.checked_mul(c) != Some(len) {
        return Err(format!("{r} x {c} does not match the {len} elements of the array"));
    }
    Ok((r, c))
}
