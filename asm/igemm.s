// igemm: D = A x B + C on the tensor cores, A and B in s8, C and D in s32.
//   A is m x k row-major; B (k x n) is given column-major as bt[col * k + kk] =
//   B[kk][col]; C and D are m x n row-major. Pass C = zeros(m * n) for the
//   plain product. D[i][j] = C[i][j] + sum over kk of A[i][kk] * B[kk][j], the
//   exact products added with 32-bit wrap-around (isa.md section 8).
//
// Algorithm: register-blocked MMA.M16N16K16.S32.S8, fragments loaded straight
// from global memory. Block (bx, by) of 4 warps (128 threads) computes the
// 64x64 tile of D at rows 64*by.., columns 64*bx..; warp w = 2*wy + wx owns
// the 32x32 sub-tile at rows 64*by + 32*wy, columns 64*bx + 32*wx as 2x2
// accumulator fragments (i, j) in R0 + 8*(2i + j). Lane l = 2r + h holds
// 8 bytes of A (row 16i + r, k 8h .. 8h+7 of the step, lowest k in the low
// byte) and of B (column 16j + r, the same k), 2 registers each.
// Each K step of 16: 4 LD.GLOBAL.V2.B32 feed 4 MMAs.
// Requirements: m and n multiples of 64, k a multiple of 16, grid
// (n / 64, m / 64), block 128. Defaults: 128 x 128 x 128, grid 2 x 2; `rand`
// gives any bits for s8, so the inputs cover -128 .. 127.
// (For u8 inputs, change the parameter types to .u8 and the MMA to .S32.U8.)
//
// Try it:
//   simt run asm/igemm.s --stats
//   simt run asm/igemm.s --arg 'C=rand(16384,3)' --dump D
.kernel igemm
.param .u32 m
.param .u32 n
.param .u32 k
.param .ptr.s8 A                    // m x k, row-major
.param .ptr.s8 Bt                   // B column-major: Bt[col * k + kk] = B[kk][col]
.param .ptr.s32 C                   // m x n, row-major, added to the product
.param .ptr.s32 D                   // m x n, row-major, the result
.launch grid(2, 2) block(128)
.arg m = 128
.arg n = 128
.arg k = 128
.arg A = rand(16384, 1)
.arg Bt = rand(16384, 2)
.arg C = zeros(16384)
.arg D = zeros(16384)

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
    IADD    R40, R81, R83           // i = 0
    IADD    R41, R40, R84           // i = 1
    // B fragment pointers: &Bt[col0 + 16j + r][8h]
    IADD    R85, R76, R72           // col = col0 + r
    IMAD    R86, R85, R79, R82      // col * k + 8h
    LD.PARAM.U32 R87, [Bt]
    IADD    R42, R86, R87           // j = 0
    IADD    R43, R42, R84           // j = 1
    // C / D element offset of fragment (0, 0): (row0 + r) * n + col0 + 8h
    IADD    R88, R76, R82
    IMAD    R89, R80, R78, R88
    SHL     R92, R78, 6             // 16 rows of n s32 = 64n bytes
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
    MOV     R44, 0                  // k0
KLOOP:
    LD.GLOBAL.V2.B32 R32, [R40]     // A fragment i = 0
    LD.GLOBAL.V2.B32 R34, [R41]     // A fragment i = 1
    LD.GLOBAL.V2.B32 R36, [R42]     // B fragment j = 0
    LD.GLOBAL.V2.B32 R38, [R43]     // B fragment j = 1
    MMA.M16N16K16.S32.S8 R0, R32, R36, R0
    MMA.M16N16K16.S32.S8 R8, R32, R38, R8
    MMA.M16N16K16.S32.S8 R16, R34, R36, R16
    MMA.M16N16K16.S32.S8 R24, R34, R38, R24
    IADD    R40, R40, 16            // next 16 k: 16 bytes further along each row
    IADD    R41, R41, 16
    IADD    R42, R42, 16
    IADD    R43, R43, 16
    IADD    R44, R44, 16
    ISETP.LT.U32 P0, R44, R79
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
