// warp_reduce: partial sums of an f32 array, one per block, with warp shuffles.
//   out[b] = the sum of the elements that block b's threads visit (below); the
//   total is the sum of out.
//
// Algorithm (three levels, as in CUB's BlockReduce with WARP_REDUCTIONS):
//   1. each thread adds up in[i], in[i + T], in[i + 2T], ... (grid-stride,
//      T = nctaid.x * ntid.x threads in the launch), starting from 0.0;
//   2. each warp adds its 32 values with SHFL.DOWN by 16, 8, 4, 2, 1
//      (lane 0 ends with the warp's sum) and lane 0 stores it in wsum[warp];
//   3. after BAR.SYNC, warp 0 loads wsum[lane] (0.0 past the last warp),
//      reduces it with SHFL.BFLY by 16, 8, 4, 2, 1 (every lane ends with the
//      block's sum) and lane 0 writes out[ctaid.x].
// The order of the f32 additions is fixed by the launch shape, so a given
// grid/block always gives bit-identical results. ntid.x must be a multiple of
// 32 (whole warps: shuffles read every lane), at most 1024.
//
// Try it:
//   simt run asm/warp_reduce.s --dump out
//   simt run asm/warp_reduce.s --grid 2 --block 64 --arg n=1000 \
//       --arg 'in=fill(1000,1)' --arg 'out=zeros(2)' --dump out    # 512 488
.kernel warp_reduce
.param .u32 n
.param .ptr.f32 in
.param .ptr.f32 out
.shared .f32 wsum[32]
.launch grid(16) block(256)
.arg n = 50000
.arg in = rand(50000, 4)
.arg out = zeros(16)

    S2R     R0, SR_TID.X
    S2R     R1, SR_CTAID.X
    S2R     R2, SR_NTID.X
    IMAD    R3, R1, R2, R0          // i = ctaid.x * ntid.x + tid.x
    S2R     R4, SR_NCTAID.X
    IMUL    R4, R4, R2              // T = nctaid.x * ntid.x
    LD.PARAM.U32 R5, [n]
    LD.PARAM.U32 R6, [in]
    MOV     R7, 0.0                 // acc
    ISETP.GE.U32 P0, R3, R5
@P0 BRA     WARP
ACC:                                // 1. grid-stride accumulation
    LEA     R8, R3, R6, 2
    LD.GLOBAL.F32 R9, [R8]
    FADD    R7, R7, R9              // acc += in[i]
    IADD    R3, R3, R4
    ISETP.LT.U32 P0, R3, R5
@P0 BRA     ACC
WARP:                               // 2. warp-level tree, lane 0 gets the sum
    SHFL.DOWN R10, R7, 16
    FADD    R7, R7, R10
    SHFL.DOWN R10, R7, 8
    FADD    R7, R7, R10
    SHFL.DOWN R10, R7, 4
    FADD    R7, R7, R10
    SHFL.DOWN R10, R7, 2
    FADD    R7, R7, R10
    SHFL.DOWN R10, R7, 1
    FADD    R7, R7, R10
    S2R     R11, SR_LANEID
    S2R     R12, SR_WARPID
    MOV     R13, wsum
    ISETP.EQ P1, R11, 0
    LEA     R14, R12, R13, 2        // &wsum[warp]
@P1 ST.SHARED.F32 [R14], R7
    BAR.SYNC
    ISETP.NE P2, R12, 0
@P2 EXIT                            // 3. warp 0 combines the warps' sums
    SHR.U32 R15, R2, 5              // warps in the block
    ISETP.LT.U32 P3, R11, R15
    LEA     R16, R11, R13, 2        // &wsum[lane]
    MOV     R17, 0.0
@P3 LD.SHARED.F32 R17, [R16]
    SHFL.BFLY R10, R17, 16
    FADD    R17, R17, R10
    SHFL.BFLY R10, R17, 8
    FADD    R17, R17, R10
    SHFL.BFLY R10, R17, 4
    FADD    R17, R17, R10
    SHFL.BFLY R10, R17, 2
    FADD    R17, R17, R10
    SHFL.BFLY R10, R17, 1
    FADD    R17, R17, R10
@!P1 EXIT
    LD.PARAM.U32 R18, [out]
    LEA     R18, R1, R18, 2
    ST.GLOBAL.F32 [R18], R17        // out[ctaid.x]
    EXIT
