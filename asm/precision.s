// precision: the same 16 x 16 x K product in six arithmetics, each against an f64 reference.
//   A (16 x k, row-major) and B (k x 16, given column-major as bt[col * k + kk])
//   are read as f32 x in [0, 1) and used as (2x - 1) * scale. Warp w computes
//   D = A x B with
//     w = 0  FP32: FFMA chains in k order (no conversion)
//     w = 1  TF32: CVT.TF32.F32, MMA.M16N16K16.F32.TF32
//     w = 2  BF16: PACK.BF16X2, MMA.M16N16K16.F32.BF16
//     w = 3  FP16: PACK.F16X2, MMA.M16N16K16.F32.F16
//     w = 4  FP8:  CVT.E4M3X2.F32, MMA.M16N16K16.F32.E4M3
//     w = 5  FP4:  CVT.E2M1X2.F32, MMA.M16N16K16.F32.E2M1
//   (every arithmetic accumulates in f32), and err[w] is its relative error
//   sqrt(sum (D - R)^2 / sum R^2) against R, the product of the same f32 inputs
//   in f64 (DFMA chains; the f64 products of f32 values are exact).
//   The differences come from rounding the inputs: the accumulation is the same
//   f32 chain in every row (docs/tensor.md).
//
// Algorithm: the block's 192 threads copy and scale A and B into shared memory;
// after BAR.SYNC every warp computes the reference and the FFMA product of its
// 8 elements per lane (lane 2r + h: row r, columns 8h .. 8h+7, the MMA
// accumulator layout), then its own arithmetic, then the two sums of squares,
// reduced over the warp with SHFL.BFLY on both halves of each f64.
// Requirements: k a multiple of 16, at most 256; grid(1) block(192).
//
// Try it:
//   simt run asm/precision.s --dump err
//   simt run asm/precision.s --arg scale=4 --dump err
.kernel precision
.target sm_100
.param .u32 k
.param .f32 scale
.param .ptr.f32 A                   // 16 x k, row-major, values x in [0, 1)
.param .ptr.f32 Bt                  // B column-major: Bt[col * k + kk] = B[kk][col]
.param .ptr.f32 err                 // 6 relative errors: FP32, TF32, BF16, FP16, FP8, FP4
.shared .align 16 .f32 sA[4096]
.shared .align 16 .f32 sB[4096]
.launch grid(1) block(192)
.arg k = 256
.arg scale = 1.0
.arg A = rand(4096, 11)
.arg Bt = rand(4096, 12)
.arg err = zeros(6)

    S2R     R100, SR_TID.X
    LD.PARAM.U32 R105, [k]
    LD.PARAM.F32 R106, [scale]
    SHL     R107, R105, 4           // 16k elements per matrix
    LD.PARAM.U32 R108, [A]
    LD.PARAM.U32 R109, [Bt]
    MOV     R110, R100              // i = tid
COPY:                               // sA[i] = (2 A[i] - 1) * scale, sB likewise
    SHL     R111, R110, 2
    IADD    R112, R111, R108
    LD.GLOBAL.F32 R113, [R112]
    FFMA    R113, R113, 2.0, -1.0
    FMUL    R113, R113, R106
    ST.SHARED.F32 [R111+sA], R113
    IADD    R112, R111, R109
    LD.GLOBAL.F32 R113, [R112]
    FFMA    R113, R113, 2.0, -1.0
    FMUL    R113, R113, R106
    ST.SHARED.F32 [R111+sB], R113
    IADD    R110, R110, 192
    ISETP.LT.U32 P0, R110, R107
@P0 BRA     COPY
    BAR.SYNC

    S2R     R101, SR_LANEID
    S2R     R102, SR_WARPID
    SHR.U32 R103, R101, 1           // r
    AND     R104, R101, 1           // h
    SHL     R117, R105, 2           // 4k: bytes from one column of Bt to the next
    // The reference R (f64 pairs R16 .. R30) and the FFMA product (R8 .. R15) of
    // elements (r, 8h + e), e = 0 .. 7, over k in order.
    IMUL    R118, R103, R117        // &sA[r][0] - sA
    SHL     R119, R104, 3
    IMUL    R119, R119, R117        // &sB[8h][0] - sB
    MOV     R16, 0d0000000000000000
    MOV     R18, 0d0000000000000000
    MOV     R20, 0d0000000000000000
    MOV     R22, 0d0000000000000000
    MOV     R24, 0d0000000000000000
    MOV     R26, 0d0000000000000000
    MOV     R28, 0d0000000000000000
    MOV     R30, 0d0000000000000000
    MOV     R8, 0.0
    MOV     R9, 0.0
    MOV     R10, 0.0
    MOV     R11, 0.0
    MOV     R12, 0.0
    MOV     R13, 0.0
    MOV     R14, 0.0
    MOV     R15, 0.0
    MOV     R116, 0                 // kk
REF:
    LD.SHARED.F32 R40, [R118+sA]    // A[r][kk]
    CVT.F64.F32 R32, R40
    MOV     R120, R119
    LD.SHARED.F32 R41, [R120+sB]    // B[kk][8h]
    CVT.F64.F32 R34, R41
    DFMA    R16, R32, R34, R16
    FFMA    R8, R40, R41, R8
    IADD    R120, R120, R117
    LD.SHARED.F32 R41, [R120+sB]    // B[kk][8h + 1]
    CVT.F64.F32 R34, R41
    DFMA    R18, R32, R34, R18
    FFMA    R9, R40, R41, R9
    IADD    R120, R120, R117
    LD.SHARED.F32 R41, [R120+sB]
    CVT.F64.F32 R34, R41
    DFMA    R20, R32, R34, R20
    FFMA    R10, R40, R41, R10
    IADD    R120, R120, R117
    LD.SHARED.F32 R41, [R120+sB]
    CVT.F64.F32 R34, R41
    DFMA    R22, R32, R34, R22
    FFMA    R11, R40, R41, R11
    IADD    R120, R120, R117
    LD.SHARED.F32 R41, [R120+sB]
    CVT.F64.F32 R34, R41
    DFMA    R24, R32, R34, R24
    FFMA    R12, R40, R41, R12
    IADD    R120, R120, R117
    LD.SHARED.F32 R41, [R120+sB]
    CVT.F64.F32 R34, R41
    DFMA    R26, R32, R34, R26
    FFMA    R13, R40, R41, R13
    IADD    R120, R120, R117
    LD.SHARED.F32 R41, [R120+sB]
    CVT.F64.F32 R34, R41
    DFMA    R28, R32, R34, R28
    FFMA    R14, R40, R41, R14
    IADD    R120, R120, R117
    LD.SHARED.F32 R41, [R120+sB]    // B[kk][8h + 7]
    CVT.F64.F32 R34, R41
    DFMA    R30, R32, R34, R30
    FFMA    R15, R40, R41, R15
    IADD    R118, R118, 4
    IADD    R119, R119, 4
    IADD    R116, R116, 1
    ISETP.LT.U32 P0, R116, R105
@P0 BRA     REF

    // D (R0 .. R7, the MMA accumulator layout) in the warp's arithmetic.
    MOV     R0, R8                  // FP32: the FFMA product
    MOV     R1, R9
    MOV     R2, R10
    MOV     R3, R11
    MOV     R4, R12
    MOV     R5, R13
    MOV     R6, R14
    MOV     R7, R15
    ISETP.EQ.U32 P0, R102, 0
@P0 BRA     ERR
    MOV     R0, 0.0                 // tensor cores: D = A x B + 0
    MOV     R1, 0.0
    MOV     R2, 0.0
    MOV     R3, 0.0
    MOV     R4, 0.0
    MOV     R5, 0.0
    MOV     R6, 0.0
    MOV     R7, 0.0
    SHL     R114, R104, 3
    IMAD    R115, R103, R105, R114
    SHL     R115, R115, 2           // &sA[r][8h] - sA = &sB[r][8h] - sB
    MOV     R116, 0                 // k0
    ISETP.EQ.U32 P1, R102, 1
    ISETP.EQ.U32 P2, R102, 2
    ISETP.EQ.U32 P3, R102, 3
    ISETP.EQ.U32 P4, R102, 4
KLOOP:                              // A[r][k0 + 8h ..] in R40 .. R47, B[k0 + 8h ..][r] in R48 .. R55
    LD.SHARED.V4.B32 R40, [R115+sA]
    LD.SHARED.V4.B32 R44, [R115+sA+16]
    LD.SHARED.V4.B32 R48, [R115+sB]
    LD.SHARED.V4.B32 R52, [R115+sB+16]
@P1 BRA     TF32
@P2 BRA     BF16
@P3 BRA     FP16
@P4 BRA     FP8
    CVT.E2M1X2.F32 R56, R40, R41    // FP4: 8 elements in one register
    CVT.E2M1X2.F32 R72, R42, R43
    LEA     R56, R72, R56, 8
    CVT.E2M1X2.F32 R72, R44, R45
    LEA     R56, R72, R56, 16
    CVT.E2M1X2.F32 R72, R46, R47
    LEA     R56, R72, R56, 24
    CVT.E2M1X2.F32 R64, R48, R49
    CVT.E2M1X2.F32 R72, R50, R51
    LEA     R64, R72, R64, 8
    CVT.E2M1X2.F32 R72, R52, R53
    LEA     R64, R72, R64, 16
    CVT.E2M1X2.F32 R72, R54, R55
    LEA     R64, R72, R64, 24
    MMA.M16N16K16.F32.E2M1 R0, R56, R64, R0
    BRA     NEXT
TF32:
    CVT.TF32.F32 R56, R40
    CVT.TF32.F32 R57, R41
    CVT.TF32.F32 R58, R42
    CVT.TF32.F32 R59, R43
    CVT.TF32.F32 R60, R44
    CVT.TF32.F32 R61, R45
    CVT.TF32.F32 R62, R46
    CVT.TF32.F32 R63, R47
    CVT.TF32.F32 R64, R48
    CVT.TF32.F32 R65, R49
    CVT.TF32.F32 R66, R50
    CVT.TF32.F32 R67, R51
    CVT.TF32.F32 R68, R52
    CVT.TF32.F32 R69, R53
    CVT.TF32.F32 R70, R54
    CVT.TF32.F32 R71, R55
    MMA.M16N16K16.F32.TF32 R0, R56, R64, R0
    BRA     NEXT
BF16:
    PACK.BF16X2 R56, R40, R41
    PACK.BF16X2 R57, R42, R43
    PACK.BF16X2 R58, R44, R45
    PACK.BF16X2 R59, R46, R47
    PACK.BF16X2 R64, R48, R49
    PACK.BF16X2 R65, R50, R51
    PACK.BF16X2 R66, R52, R53
    PACK.BF16X2 R67, R54, R55
    MMA.M16N16K16.F32.BF16 R0, R56, R64, R0
    BRA     NEXT
FP16:
    PACK.F16X2 R56, R40, R41
    PACK.F16X2 R57, R42, R43
    PACK.F16X2 R58, R44, R45
    PACK.F16X2 R59, R46, R47
    PACK.F16X2 R64, R48, R49
    PACK.F16X2 R65, R50, R51
    PACK.F16X2 R66, R52, R53
    PACK.F16X2 R67, R54, R55
    MMA.M16N16K16.F32.F16 R0, R56, R64, R0
    BRA     NEXT
FP8:
    CVT.E4M3X2.F32 R56, R40, R41    // 4 elements a register
    CVT.E4M3X2.F32 R72, R42, R43
    LEA     R56, R72, R56, 16
    CVT.E4M3X2.F32 R57, R44, R45
    CVT.E4M3X2.F32 R72, R46, R47
    LEA     R57, R72, R57, 16
    CVT.E4M3X2.F32 R64, R48, R49
    CVT.E4M3X2.F32 R72, R50, R51
    LEA     R64, R72, R64, 16
    CVT.E4M3X2.F32 R65, R52, R53
    CVT.E4M3X2.F32 R72, R54, R55
    LEA     R65, R72, R65, 16
    MMA.M16N16K16.F32.E4M3 R0, R56, R64, R0
NEXT:
    IADD    R115, R115, 64          // next 16 k
    IADD    R116, R116, 16
    ISETP.LT.U32 P0, R116, R105
@P0 BRA     KLOOP

ERR:                                // sum (D - R)^2 and sum R^2 over the lane's 8 elements
    MOV     R34, 0d0000000000000000
    MOV     R36, 0d0000000000000000
    CVT.F64.F32 R38, R0
    DADD    R38, R38, -R16
    DFMA    R34, R38, R38, R34
    DFMA    R36, R16, R16, R36
    CVT.F64.F32 R38, R1
    DADD    R38, R38, -R18
    DFMA    R34, R38, R38, R34
    DFMA    R36, R18, R18, R36
    CVT.F64.F32 R38, R2
    DADD    R38, R38, -R20
    DFMA    R34, R38, R38, R34
    DFMA    R36, R20, R20, R36
    CVT.F64.F32 R38, R3
    DADD    R38, R38, -R22
    DFMA    R34, R38, R38, R34
    DFMA    R36, R22, R22, R36
    CVT.F64.F32 R38, R4
    DADD    R38, R38, -R24
    DFMA    R34, R38, R38, R34
    DFMA    R36, R24, R24, R36
    CVT.F64.F32 R38, R5
    DADD    R38, R38, -R26
    DFMA    R34, R38, R38, R34
    DFMA    R36, R26, R26, R36
    CVT.F64.F32 R38, R6
    DADD    R38, R38, -R28
    DFMA    R34, R38, R38, R34
    DFMA    R36, R28, R28, R36
    CVT.F64.F32 R38, R7
    DADD    R38, R38, -R30
    DFMA    R34, R38, R38, R34
    DFMA    R36, R30, R30, R36
    MOV     R42, 16                 // over the warp: butterfly on both halves of each f64
WSUM:
    SHFL.BFLY R38, R34, R42
    SHFL.BFLY R39, R35, R42
    DADD    R34, R34, R38
    SHFL.BFLY R38, R36, R42
    SHFL.BFLY R39, R37, R42
    DADD    R36, R36, R38
    SHR.U32 R42, R42, 1
    ISETP.NE.U32 P0, R42, 0
@P0 BRA     WSUM
    CVT.F32.F64 R40, R34
    CVT.F32.F64 R41, R36
    MUFU.RCP R41, R41
    FMUL    R40, R40, R41
    MUFU.SQRT R40, R40              // sqrt(sum (D - R)^2 / sum R^2)
    ISETP.NE.U32 P0, R101, 0
@P0 EXIT
    LD.PARAM.U32 R43, [err]
    LEA     R43, R102, R43, 2
    ST.GLOBAL.F32 [R43], R40
    EXIT
