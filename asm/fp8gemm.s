// fp8gemm: D = A x B + C on the tensor cores, A and B in FP8 E4M3, C and D in f32.
//   A is m x k row-major, one byte per element; B (k x n) is given column-major
//   as bt[col * k + kk] = B[kk][col] (a B fragment is then 8 contiguous bytes per
//   lane, like an A fragment); C and D are m x n row-major f32. The host converts
//   f32 data into E4M3 with CVT.E4M3X2.F32's rules (round to nearest even,
//   saturate at 448), so `--arg A=@a.npy` takes a float32 array.
//   D[i][j] is, exactly, the f32 FFMA chain acc = C[i][j]; for kk = 0, 1, ...,
//   k-1: acc = fma(A[i][kk], B[kk][j], acc) over the E4M3 values (isa.md
//   sections 8 and 9).
//
// Algorithm: asm/hgemm.s with MMA.M16N16K16.F32.E4M3. Block (bx, by) of 4 warps
// computes the 64x64 tile of D at rows 64*by.., columns 64*bx..; warp
// w = 2*wy + wx owns the 32x32 sub-tile at rows 64*by + 32*wy, columns
// 64*bx + 32*wx as 2x2 accumulator fragments (i, j) in R0 + 8*(2i + j). An E4M3
// fragment is 2 registers: lane l = 2r + h holds A[16i + r][8h .. 8h+7] of the
// step (lowest k in the low byte) and B[8h .. 8h+7][16j + r].
// Each K step of 16: 4 LD.GLOBAL.V2.B32 feed 4 MMAs.
// Requirements: m and n multiples of 64, k a multiple of 16, grid
// (n / 64, m / 64), block 128. Defaults: 256 x 256 x 256, grid 4 x 4.
//
// Try it:
//   simt run asm/fp8gemm.s --stats
//   simt run asm/fp8gemm.s --arg 'C=rand(65536,3)' --dump D=d.npy
.kernel fp8gemm
.target sm_89
.param .u32 m
.param .u32 n
.param .u32 k
.param .ptr.e4m3 A                  // m x k, row-major
.param .ptr.e4m3 Bt                 // B column-major: Bt[col * k + kk] = B[kk][col]
.param .ptr.f32 C                   // m x n, row-major, added to the product
.param .ptr.f32 D                   // m x n, row-major, the result
.launch grid(4, 4) block(128)
.arg m = 256
.arg n = 256
.arg k = 256
.arg A = rand(65536, 1)
.arg Bt = rand(65536, 2)
.arg C = zeros(65536)
.arg D = zeros(65536)

    S2R     R70, SR_LANEID
    S2R     R71, SR_WARPID
    SHR.U32 R72, R70, 1             // r = lane >> 1
    AND     R73, R70, 1             // h = lane & 1
    SHL     R82, R73, 3             // 8h
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
    SHL     R84, R79, 4             // 16 rows (columns) of k bytes
    // A fragment pointers: &A[row0 + 16i + r][8h]
    IADD    R80, R77, R72           // row = row0 + r
    IMAD    R81, R80, R79, R82      // row * k + 8h
    LD.PARAM.U32 R83, [A]
    IADD    R48, R81, R83           // i = 0
    IADD    R49, R48, R84           // i = 1
    // B fragment pointers: &Bt[col0 + 16j + r][8h]
    IADD    R85, R76, R72           // col = col0 + r
    IMAD    R86, R85, R79, R82      // col * k + 8h
    LD.PARAM.U32 R87, [Bt]
    IADD    R50, R86, R87           // j = 0
    IADD    R51, R50, R84           // j = 1
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
    MOV     R52, 0                  // k0
KLOOP:
    LD.GLOBAL.V2.B32 R32, [R48]     // A fragment i = 0
    LD.GLOBAL.V2.B32 R34, [R49]     // A fragment i = 1
    LD.GLOBAL.V2.B32 R36, [R50]     // B fragment j = 0
    LD.GLOBAL.V2.B32 R38, [R51]     // B fragment j = 1
    MMA.M16N16K16.F32.E4M3 R0, R32, R36, R0
    MMA.M16N16K16.F32.E4M3 R8, R32, R38, R8
    MMA.M16N16K16.F32.E4M3 R16, R34, R36, R16
    MMA.M16N16K16.F32.E4M3 R24, R34, R38, R24
    IADD    R48, R48, 16            // next 16 k: 16 bytes further along each row
    IADD    R49, R49, 16
    IADD    R50, R50, 16
    IADD    R51, R51, 16
    IADD    R52, R52, 16
    ISETP.LT.U32 P0, R52, R79
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
