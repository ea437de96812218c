// dgemm: D = A x B + C in f64 on the tensor cores (MMA.M8N8K4.F64.F64, sm_80).
//   A is m x k row-major; B (k x n) is given column-major as bt[col * k + kk] =
//   B[kk][col]; C and D are m x n row-major; all f64.
//   D[i][j] is, exactly, the DFMA chain acc = C[i][j]; for kk = 0, 1, ..., k-1:
//   acc = fma(A[i][kk], B[kk][j], acc) (isa.md section 9: each MMA is a DFMA
//   chain over its 4 k, and the K loop carries the accumulator in registers).
//
// Algorithm: register-blocked MMA.M8N8K4.F64.F64 in PTX's m8n8k4 layout, with
// lane l = 4g + t: a = A[g][t], b = B[t][g], c/d = C[g][2t], C[g][2t + 1] of
// its 8x8x4 step (docs/tensor.md). Block (bx, by) of 4 warps computes the 32x32
// tile of D at rows 32*by.., columns 32*bx..; warp w = 2*wy + wx owns the 16x16
// sub-tile at rows 32*by + 16*wy, columns 32*bx + 16*wx as 2x2 accumulator
// fragments (i, j) of 8x8, each two f64 pairs, in R0 + 4*(2i + j).
// Each K step of 4: 4 LD.GLOBAL.F64 (two A, two B fragments) feed 4 MMAs.
// Requirements: m and n multiples of 32, k a multiple of 4, grid
// (n / 32, m / 32), block 128. Defaults: 64 x 64 x 64, grid 2 x 2.
//
// Try it:
//   simt run asm/dgemm.s --stats
//   simt run asm/dgemm.s --arg 'C=rand(4096,3)' --dump D=d.npy
.kernel dgemm
.target sm_80
.param .u32 m
.param .u32 n
.param .u32 k
.param .ptr.f64 A                   // m x k, row-major
.param .ptr.f64 Bt                  // B column-major: Bt[col * k + kk] = B[kk][col]
.param .ptr.f64 C                   // m x n, row-major, added to the product
.param .ptr.f64 D                   // m x n, row-major, the result
.launch grid(2, 2) block(128)
.arg m = 64
.arg n = 64
.arg k = 64
.arg A = rand(4096, 1)
.arg Bt = rand(4096, 2)
.arg C = zeros(4096)
.arg D = zeros(4096)

    S2R     R70, SR_LANEID
    S2R     R71, SR_WARPID
    SHR.U32 R72, R70, 2             // g = lane >> 2
    AND     R73, R70, 3             // t = lane & 3
    AND     R74, R71, 1             // wx
    SHR.U32 R75, R71, 1             // wy
    S2R     R76, SR_CTAID.X
    SHL     R76, R76, 5
    LEA     R76, R74, R76, 4        // col0 = 32 * bx + 16 * wx
    S2R     R77, SR_CTAID.Y
    SHL     R77, R77, 5
    LEA     R77, R75, R77, 4        // row0 = 32 * by + 16 * wy
    LD.PARAM.U32 R78, [n]
    LD.PARAM.U32 R79, [k]
    SHL     R84, R79, 6             // 8 rows (columns) of k f64 = 64k bytes
    // A fragment pointers: &A[row0 + 8i + g][t]
    IADD    R80, R77, R72           // row = row0 + g
    IMAD    R81, R80, R79, R73      // row * k + t
    LD.PARAM.U32 R83, [A]
    LEA     R40, R81, R83, 3        // i = 0
    IADD    R41, R40, R84           // i = 1
    // B fragment pointers: &Bt[col0 + 8j + g][t]
    IADD    R85, R76, R72           // col = col0 + g
    IMAD    R86, R85, R79, R73      // col * k + t
    LD.PARAM.U32 R87, [Bt]
    LEA     R42, R86, R87, 3        // j = 0
    IADD    R43, R42, R84           // j = 1
    // C / D element offset of fragment (0, 0): (row0 + g) * n + col0 + 2t
    LEA     R88, R73, R76, 1
    IMAD    R89, R80, R78, R88
    SHL     R92, R78, 6             // 8 rows of n f64 = 64n bytes
    LD.PARAM.U32 R90, [C]
    LEA     R91, R89, R90, 3
    IADD    R93, R91, R92
    LD.GLOBAL.V4.B32 R0, [R91]      // (0, 0): two f64
    LD.GLOBAL.V4.B32 R4, [R91+64]   // (0, 1)
    LD.GLOBAL.V4.B32 R8, [R93]      // (1, 0)
    LD.GLOBAL.V4.B32 R12, [R93+64]  // (1, 1)
    MOV     R44, 0                  // k0
KLOOP:
    LD.GLOBAL.F64 R16, [R40]        // A fragment i = 0
    LD.GLOBAL.F64 R18, [R41]        // A fragment i = 1
    LD.GLOBAL.F64 R20, [R42]        // B fragment j = 0
    LD.GLOBAL.F64 R22, [R43]        // B fragment j = 1
    MMA.M8N8K4.F64.F64 R0, R16, R20, R0
    MMA.M8N8K4.F64.F64 R4, R16, R22, R4
    MMA.M8N8K4.F64.F64 R8, R18, R20, R8
    MMA.M8N8K4.F64.F64 R12, R18, R22, R12
    IADD    R40, R40, 32            // next 4 k: 32 bytes further along each row
    IADD    R41, R41, 32
    IADD    R42, R42, 32
    IADD    R43, R43, 32
    IADD    R44, R44, 4
    ISETP.LT.U32 P0, R44, R79
@P0 BRA     KLOOP
    LD.PARAM.U32 R90, [D]
    LEA     R91, R89, R90, 3
    IADD    R93, R91, R92
    ST.GLOBAL.V4.B32 [R91], R0
    ST.GLOBAL.V4.B32 [R91+64], R4
    ST.GLOBAL.V4.B32 [R93], R8
    ST.GLOBAL.V4.B32 [R93+64], R12
    EXIT
