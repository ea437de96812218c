//! Fragment layouts: which lane and register of a warp holds which matrix element.
//!
//! Every operand is described lane by lane: lane `l` holds a fixed list of
//! elements, numbered `e = 0, 1, ...`; register `g` of the fragment packs
//! elements `g * per_reg .. (g + 1) * per_reg`, the lowest `e` in the lowest
//! bits. `per_reg` is 1 for 32-bit values, 2 for 16-bit, 4 for 8-bit and 8 for
//! 4-bit ones, so one [`coord`] function serves every element width; a 64-bit
//! element (f64) takes the register pair `2e, 2e + 1`, low word first.
//!
//! The interpreter and the tests use [`pack`] and [`unpack`] ([`pack64`] and
//! [`unpack64`] for f64) to move between row-major matrices and fragments;
//! [`crate::mma`] uses the same [`coord`] through precomputed tables.

/// The instruction shapes, each with its own fragment layout (the instruction set's own).
pub use simt_isa::MmaShape as Shape;

/// An operand of an MMA. `C` also describes `D`, which shares its layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// The left multiplicand, M x K (for the sparse shape: the 16x16 kept values,
    /// row `i` holding the kept values of logical row `i` in column order).
    A,
    /// The right multiplicand, K x N.
    B,
    /// The accumulator, M x N.
    C,
}

/// (rows, columns) of an operand's matrix.
pub const fn dims(shape: Shape, operand: Operand) -> (usize, usize) {
    match (shape, operand) {
        (Shape::M16N8K16, Operand::B) => (16, 8),
        (Shape::M16N8K16, Operand::C) => (16, 8),
        (Shape::SpM16N16K32, Operand::B) => (32, 16),
        (Shape::M8N8K4, Operand::A) => (8, 4),
        (Shape::M8N8K4, Operand::B) => (4, 8),
        (Shape::M8N8K4, Operand::C) => (8, 8),
        (Shape::M16N8K8, Operand::A) => (16, 8),
        (Shape::M16N8K8, Operand::B) => (8, 8),
        (Shape::M16N8K8, Operand::C) => (16, 8),
        (Shape::M16N8K32, Operand::A) => (16, 32),
        (Shape::M16N8K32, Operand::B) => (32, 8),
        (Shape::M16N8K32, Operand::C) => (16, 8),
        (Shape::M16N8K64, Operand::A) => (16, 64),
        (Shape::M16N8K64, Operand::B) => (64, 8),
        (Shape::M16N8K64, Operand::C) => (16, 8),
        _ => (16, 16),
    }
}

/// How many elements each lane holds.
pub const fn elements_per_lane(shape: Shape, operand: Operand) -> usize {
    let (rows, cols) = dims(shape, operand);
    rows * cols / 32
}

/// (row, column) of element `e` of lane `lane`; `lane < 32`, `e < elements_per_lane`.
///
/// `M16N16K16` and the sparse shape follow contract section 8 (`r = l >> 1`,
/// `h = l & 1`). `M16N8K16` follows the PTX ISA, section 9.7.14.5.8 "Matrix
/// Fragments for mma.m16n8k16 with floating point type", with element `e`
/// being the PTX `a_e` / `b_e` / `c_e`. `M8N8K4` follows the PTX ISA's "Matrix
/// Fragments for mma.m8n8k4 with .f64 floating point type" (contract section 9):
/// `a0` is `A[groupID][threadID_in_group]`, `b0` is `B[threadID_in_group][groupID]`,
/// `c0, c1` are `C[groupID][threadID_in_group * 2 + i]`. `M16N8K8` follows the PTX ISA's
/// "Matrix Fragments for mma.m16n8k8" with `.tf32`: `a_e` is row `groupID + 8 (e & 1)`,
/// column `threadID_in_group + 4 (e >> 1)`; `b_e` row `threadID_in_group + 4 e`, column
/// `groupID`; C as `M16N8K16`'s. `M16N8K32` follows "Matrix Fragments for mma.m16n8k32"
/// with 8-bit types, four elements a register: `a_e` is row `groupID + 8 ((e >> 2) & 1)`,
/// column `threadID_in_group * 4 + (e & 3) + 16 (e >> 3)`; `b_e` row
/// `threadID_in_group * 4 + (e & 3) + 16 (e >> 2)`, column `groupID`; C as `M16N8K16`'s.
/// `M16N8K64` (E2M1, eight elements a register) is `M16N8K32`'s bytes with two elements
/// each: `a_e` is row `groupID + 8 ((e >> 3) & 1)`, column `threadID_in_group * 8 + (e & 7) +
/// 32 (e >> 4)`; `b_e` row `threadID_in_group * 8 + (e & 7) + 32 (e >> 3)`, column `groupID`.
#[inline]
pub const fn coord(shape: Shape, operand: Operand, lane: usize, e: usize) -> (usize, usize) {
    let (r, h) = (lane >> 1, lane & 1);
    let (group, thread) = (lane >> 2, lane & 3);
    match (shape, operand) {
        (Shape::M16N8K16, Operand::A) => (group + 8 * ((e >> 1) & 1), thread * 2 + (e & 1) + 8 * (e >> 2)),
        (Shape::M16N8K16, Operand::B) => (thread * 2 + (e & 1) + 8 * (e >> 1), group),
        (Shape::M16N8K16, Operand::C) => (group + 8 * (e >> 1), thread * 2 + (e & 1)),
        (Shape::M8N8K4, Operand::A) => (group, thread),
        (Shape::M8N8K4, Operand::B) => (thread, group),
        (Shape::M8N8K4, Operand::C) => (group, thread * 2 + e),
        (Shape::M16N8K8, Operand::A) => (group + 8 * (e & 1), thread + 4 * (e >> 1)),
        (Shape::M16N8K8, Operand::B) => (thread + 4 * e, group),
        (Shape::M16N8K8, Operand::C) => (group + 8 * (e >> 1), thread * 2 + (e & 1)),
        (Shape::M16N8K32, Operand::A) => (group + 8 * ((e >> 2) & 1), thread * 4 + (e & 3) + 16 * (e >> 3)),
        (Shape::M16N8K32, Operand::B) => (thread * 4 + (e & 3) + 16 * (e >> 2), group),
        (Shape::M16N8K32 | Shape::M16N8K64, Operand::C) => (group + 8 * (e >> 1), thread * 2 + (e & 1)),
        (Shape::M16N8K64, Operand::A) => (group + 8 * ((e >> 3) & 1), thread * 8 + (e & 7) + 32 * (e >> 4)),
        (Shape::M16N8K64, Operand::B) => (thread * 8 + (e & 7) + 32 * (e >> 3), group),
        (Shape::SpM16N16K32, Operand::B) => (16 * h + e, r),
        (_, Operand::B) => (8 * h + e, r),
        (_, Operand::A | Operand::C) => (r, 8 * h + e),
    }
}

/// For every lane and element, the flat index `row * 16 + col` of its element
/// in a matrix with 16 columns: the work matrices of [`crate::mma`] all have
/// 16 columns, so one table type serves every operand.
pub(crate) type Table = [[u16; 16]; 32];

const fn table(shape: Shape, operand: Operand) -> Table {
    let mut t = [[0u16; 16]; 32];
    let mut lane = 0;
    while lane < 32 {
        let mut e = 0;
        while e < elements_per_lane(shape, operand) {
            let (row, col) = coord(shape, operand, lane, e);
            t[lane][e] = (row * 16 + col) as u16;
            e += 1;
        }
        lane += 1;
    }
    t
}

const DENSE_A: Table = table(Shape::M16N16K16, Operand::A);
const DENSE_B: Table = table(Shape::M16N16K16, Operand::B);
const DENSE_C: Table = table(Shape::M16N16K16, Operand::C);
const M16N8_A: Table = table(Shape::M16N8K16, Operand::A);
const M16N8_B: Table = table(Shape::M16N8K16, Operand::B);
const M16N8_C: Table = table(Shape::M16N8K16, Operand::C);
const SP_A: Table = table(Shape::SpM16N16K32, Operand::A);
const SP_B: Table = table(Shape::SpM16N16K32, Operand::B);
const SP_C: Table = table(Shape::SpM16N16K32, Operand::C);
const M8N8_A: Table = table(Shape::M8N8K4, Operand::A);
const M8N8_B: Table = table(Shape::M8N8K4, Operand::B);
const M8N8_C: Table = table(Shape::M8N8K4, Operand::C);
const M16N8K8_A: Table = table(Shape::M16N8K8, Operand::A);
const M16N8K8_B: Table = table(Shape::M16N8K8, Operand::B);

/// The precomputed [`Table`] of an operand.
pub(crate) fn table_of(shape: Shape, operand: Operand) -> &'static Table {
    match (shape, operand) {
        (Shape::M16N16K16, Operand::A) => &DENSE_A,
        (Shape::M16N16K16, Operand::B) => &DENSE_B,
        (Shape::M16N16K16, Operand::C) => &DENSE_C,
        (Shape::M16N8K16, Operand::A) => &M16N8_A,
        (Shape::M16N8K16, Operand::B) => &M16N8_B,
        (Shape::M16N8K16, Operand::C) => &M16N8_C,
        (Shape::SpM16N16K32, Operand::A) => &SP_A,
        (Shape::SpM16N16K32, Operand::B) => &SP_B,
        (Shape::SpM16N16K32, Operand::C) => &SP_C,
        (Shape::M8N8K4, Operand::A) => &M8N8_A,
        (Shape::M8N8K4, Operand::B) => &M8N8_B,
        (Shape::M8N8K4, Operand::C) => &M8N8_C,
        (Shape::M16N8K8, Operand::A) => &M16N8K8_A,
        (Shape::M16N8K8, Operand::B) => &M16N8K8_B,
        // The 16x8 accumulator's layout is the m16n8k16 one.
        (Shape::M16N8K8, Operand::C) => &M16N8_C,
        // K = 32 does not fit the 16-column work matrices: `crate::mma` runs it on whole matrices.
        (Shape::M16N8K32 | Shape::M16N8K64, _) => unreachable!("K = 32 and K = 64 are not run through tables"),
    }
}

/// Packs a row-major matrix of raw element bits (only the low `32 / per_reg`
/// bits of each value are used) into a fragment of `elements_per_lane / per_reg`
/// registers.
///
/// # Panics
///
/// If `matrix` is shorter than the operand or `per_reg` is not 1, 2, 4 or 8.
pub fn pack(shape: Shape, operand: Operand, per_reg: usize, matrix: &[u32]) -> Vec<[u32; 32]> {
    let (bits, mask) = slot_bits(per_reg);
    let cols = dims(shape, operand).1;
    let mut frag = vec![[0u32; 32]; elements_per_lane(shape, operand) / per_reg];
    for (g, reg) in frag.iter_mut().enumerate() {
        for (lane, word) in reg.iter_mut().enumerate() {
            for s in 0..per_reg {
                let (row, col) = coord(shape, operand, lane, g * per_reg + s);
                *word |= (matrix[row * cols + col] & mask) << (bits * s);
            }
        }
    }
    frag
}

/// The inverse of [`pack`]: the row-major matrix of raw element bits a fragment holds.
///
/// # Panics
///
/// If `frag` has fewer registers than the operand needs or `per_reg` is not 1, 2, 4 or 8.
pub fn unpack(shape: Shape, operand: Operand, per_reg: usize, frag: &[[u32; 32]]) -> Vec<u32> {
    let (bits, mask) = slot_bits(per_reg);
    let (rows, cols) = dims(shape, operand);
    let mut matrix = vec![0u32; rows * cols];
    for (g, reg) in frag.iter().take(elements_per_lane(shape, operand) / per_reg).enumerate() {
        for (lane, word) in reg.iter().enumerate() {
            for s in 0..per_reg {
                let (row, col) = coord(shape, operand, lane, g * per_reg + s);
                matrix[row * cols + col] = (word >> (bits * s)) & mask;
            }
        }
    }
    matrix
}

/// Packs a row-major matrix of 64-bit elements into a fragment of register
/// pairs: element `e` in registers `2e` (low word) and `2e + 1` (high word).
///
/// # Panics
///
/// If `matrix` is shorter than the operand.
pub fn pack64(shape: Shape, operand: Operand, matrix: &[u64]) -> Vec<[u32; 32]> {
    let cols = dims(shape, operand).1;
    let mut frag = vec![[0u32; 32]; 2 * elements_per_lane(shape, operand)];
    for (e, regs) in frag.chunks_exact_mut(2).enumerate() {
        let (low, high) = regs.split_at_mut(1);
        for (lane, (low, high)) in low[0].iter_mut().zip(&mut high[0]).enumerate() {
            let (row, col) = coord(shape, operand, lane, e);
            let value = matrix[row * cols + col];
            (*low, *high) = (value as u32, (value >> 32) as u32);
        }
    }
    frag
}

/// The inverse of [`pack64`].
///
/// # Panics
///
/// If `frag` has fewer registers than the operand needs.
pub fn unpack64(shape: Shape, operand: Operand, frag: &[[u32; 32]]) -> Vec<u64> {
    let (rows, cols) = dims(shape, operand);
    let mut matrix = vec![0u64; rows * cols];
    for (e, regs) in frag.chunks_exact(2).take(elements_per_lane(shape, operand)).enumerate() {
        for (lane, (&low, &high)) in regs[0].iter().zip(&regs[1]).enumerate() {
            let (row, col) = coord(shape, operand, lane, e);
            matrix[row * cols + col] = u64::from(low) | u64::from(high) << 32;
        }
    }
    matrix
}

/// (bit width, mask) of one of `per_reg` values packed into a register.
fn slot_bits(per_reg: usize) -> (usize, u32) {
    assert!(matches!(per_reg, 1 | 2 | 4 | 8), "a register holds 1, 2, 4 or 8 values, not {per_reg}");
    let bits = 32 / per_reg;
    (bits, u32::MAX >> (32 - bits))
}
