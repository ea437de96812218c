// hgemm_sparse: D = A x B + C with a 2:4 structured-sparse A on the tensor
// cores (MMA.SP.M16N16K32.F32.F16), A and B in f16, C and D in f32.
//   A is logically m x k with 2:4 sparsity and is given compressed, exactly as
//   `simt sparsify` writes it (docs/tensor.md):
//     vals: m x k/2 f16, row-major, the kept values of each row in column order;
//     meta: u32, one block of 32 words per 16x32 tile of A, tiles in row-major
//           tile order (tile (ti, tj) is block ti * (k/32) + tj); word l is the
//           `e` register of lane l.
//   B (k x n) is column-major: bt[col * k + kk] = B[kk][col]. C, D: m x n row-major.
//   D[i][j] is the f32 FFMA chain from C[i][j] over the kept values of row i in
//   increasing kk (pruned positions take no part), one rounding per step.
//
// Algorithm: as asm/hgemm.s, with K steps of 32. Block (bx, by) of 4 warps
// computes the 64x64 tile of D at rows 64*by.., columns 64*bx..; warp
// w = 2*wy + wx owns the 32x32 sub-tile at rows 64*by + 32*wy, columns
// 64*bx + 32*wx as 2x2 accumulator fragments (i, j) in R0 + 8*(2i + j).
// Per K step of 32, lane l = 2r + h loads, straight from global memory:
//   - A fragment i (R32 + 4i): 16 bytes of vals at row 16i + r, kept columns
//     k0/2 + 8h .. +7 (the 8 kept values of logical columns k0 + 16h .. +15);
//   - its metadata (R56 + i): word l of block (row tile, k0 / 32);
//   - B fragment j (R40 + 8j): 32 bytes of bt, column 16j + r, k0 + 16h .. +15;
// and issues 4 MMA.SP: the math of a K=32 dense step with the A storage and
// the MMA count of a K=16 one.
// Requirements: m and n multiples of 64, k a multiple of 32, grid
// (n / 64, m / 64), block 128. Defaults: 256 x 256 x 256, grid 4 x 4.
//
// Default inputs need no file: vals = rand (uniform [0, 1)), and every
// metadata word is 0x9CD8, i.e. in every row, each group of 16 logical columns
// keeps columns (0,2) of its first group of four, (1,3) of the second, (0,3)
// of the third and (1,2) of the fourth -- a valid (if regular) 2:4 pattern.
// For a real pruned matrix, run `simt sparsify` (--help) on a dense m x k f16
// array and pass its values and metadata files:
//   simt run asm/hgemm.s --dump A=a.npy            # any dense 256 x 256 f16 A
//   simt sparsify a.npy --rows 256 -o a24          # a24.values.npy, a24.meta.npy, a24.pruned.npy
//   simt run asm/hgemm_sparse.s --arg vals=@a24.values.npy --arg meta=@a24.meta.npy --dump D
//
// Try it:
//   simt run asm/hgemm_sparse.s --stats
.kernel hgemm_sparse
.param .u32 m
.param .u32 n
.param .u32 k                       // logical columns of A (rows of B)
.param .ptr.f16 vals                // m x k/2 kept values of A
.param .ptr.u32 meta                // (m/16) * (k/32) * 32 metadata words
.param .ptr.f16 Bt                  // B column-major: Bt[col * k + kk] = B[kk][col]
.param .ptr.f32 C
.param .ptr.f32 D
.launch grid(4, 4) block(128)
.arg m = 256
.arg n = 256
.arg k = 256
.arg vals = rand(32768, 1)
.arg meta = fill(4096, 0x9CD8)
.arg Bt = rand(65536, 2)
.arg C = zeros(65536)
.arg D = zeros(65536)

    S2R     R70, SR_LANEID
    S2R     R71, SR_WARPID
    SHR.U32 R72, R70, 1             // r = lane >> 1
    AND     R73, R70, 1             // h = lane & 1
    AND     R74, R71, 1             // wx
    SHR.U32 R75, R71, 1             // wy
    S2R     R76, SR_CTAID.X
    SHL     R76, R76, 6
    LEA     R76, R74, R76, 5        // col0 = 64 * bx + 32 * wx
    S2R     R77, SR_CTAID.Y
    SHL     R77, R77, 6
    LEA     R77, R75, R77, 5        // row0 = 64 * by + 32 * wy
    LD.PARAM.U32 R78, [n]
    LD.PARAM.U32 R79, [k]
    // A fragment pointers: &vals[row0 + 16i + r][8h]; a row holds k/2 f16 = k bytes
    IADD    R80, R77, R72           // row = row0 + r
    SHL     R82, R73, 3             // 8h
    SHR.U32 R81, R79, 1             // k/2
    IMAD    R81, R80, R81, R82      // row * k/2 + 8h
    LD.PARAM.U32 R83, [vals]
    LEA     R58, R81, R83, 1        // i = 0
    SHL     R84, R79, 4             // 16 rows of k bytes
    IADD    R59, R58, R84           // i = 1
    // metadata pointers: word lane of block (row0 / 16 + i) * (k / 32)
    SHR.U32 R85, R79, 5             // k / 32 tiles per tile row
    SHR.U32 R86, R77, 4             // row0 / 16
    IMUL    R86, R86, R85
    LEA     R86, R86, R70, 5        // block * 32 + lane
    LD.PARAM.U32 R87, [meta]
    LEA     R62, R86, R87, 2        // i = 0
    LEA     R63, R85, R62, 7        // i = 1: k/32 blocks of 128 bytes further
    // B fragment pointers: &Bt[col0 + 16j + r][16h]
    IADD    R88, R76, R72           // col = col0 + r
    SHL     R94, R73, 4             // 16h
    IMAD    R89, R88, R79, R94      // col * k + 16h
    LD.PARAM.U32 R87, [Bt]
    LEA     R60, R89, R87, 1        // j = 0
    SHL     R84, R79, 5             // 16 columns of k f16 = 32k bytes
    IADD    R61, R60, R84           // j = 1
    // C / D element offset of fragment (0, 0): (row0 + r) * n + col0 + 8h
    IADD    R88, R76, R82
    IMAD    R89, R80, R78, R88
    SHL     R92, R78, 6             // 16 rows of n f32 = 64n bytes
    LD.PARAM.U32 R90, [C]
    LEA     R91, R89, R90, 2
    IADD    R93, R91, R92
    LD.GLOBAL.V4.B32 R0, [R91]      // (0, 0)
    LD.GLOBAL.V4.B32 R4, [R91+16]
    LD.GLOBAL.V4.B32 R8, [R91+64]   // (0, 1)
    LD.GLOBAL.V4.B32 R12, [R91+80]
    LD.GLOBAL.V4.B32 R16, [R93]     // (1, 0)
    LD.GLOBAL.V4.B32 R20, [R93+16]
    LD.GLOBAL.V4.B32 R24, [R93+64]  // (1, 1)
    LD.GLOBAL.V4.B32 R28, [R93+80]
    MOV     R64, 0                  // k0
KLOOP:
    LD.GLOBAL.V4.B32 R32, [R58]     // A fragment i = 0: 8 kept values
    LD.GLOBAL.V4.B32 R36, [R59]     // A fragment i = 1
    LD.GLOBAL.U32 R56, [R62]        // its metadata, i = 0
    LD.GLOBAL.U32 R57, [R63]        // i = 1
    LD.GLOBAL.V4.B32 R40, [R60]     // B fragment j = 0: k0 + 16h .. +15
    LD.GLOBAL.V4.B32 R44, [R60+16]
    LD.GLOBAL.V4.B32 R48, [R61]     // B fragment j = 1
    LD.GLOBAL.V4.B32 R52, [R61+16]
    MMA.SP.M16N16K32.F32.F16 R0, R32, R40, R0, R56
    MMA.SP.M16N16K32.F32.F16 R8, R32, R48, R8, R56
    MMA.SP.M16N16K32.F32.F16 R16, R36, R40, R16, R57
    MMA.SP.M16N16K32.F32.F16 R24, R36, R48, R24, R57
    IADD    R58, R58, 32            // 16 kept values further
    IADD    R59, R59, 32
    IADD    R62, R62, 128           // next metadata block
    IADD    R63, R63, 128
    IADD    R60, R60, 64            // 32 k further
    IADD    R61, R61, 64
    IADD    R64, R64, 32
    ISETP.LT.U32 P0, R64, R79
@P0 BRA     KLOOP
    LD.PARAM.U32 R90, [D]
    LEA     R91, R89, R90, 2
    IADD    R93, R91, R92
    ST.GLOBAL.V4.B32 [R91], R0
    ST.GLOBAL.V4.B32 [R91+16], R4
    ST.GLOBAL.V4.B32 [R91+64], R8
    ST.GLOBAL.V4.B32 [R91+80], R12
    ST.GLOBAL.V4.B32 [R93], R16
    ST.GLOBAL.V4.B32 [R93+16], R20
    ST.GLOBAL.V4.B32 [R93+64], R24
    ST.GLOBAL.V4.B32 [R93+80], R28
    EXIT
