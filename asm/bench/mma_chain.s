// mma_chain: tensor-core throughput against warps, after Accel-Sim's tuner microbenchmark
// tensor_bw_half (accel-sim-framework, util/tuner/GPU_Microbenchmark/ubench/core): one
// block whose warps each run `n` dependent MMA.M16N16K16 (wmma m16n16k16) on one
// accumulator, with f32 accumulation, or f16 with `f16acc` = 1. cycles[0] is the time
// from the barrier before the chains to the barrier after them; warps x n x 4096 MACs over
// it is the SM's rate. With a warp or two per partition the chains' latency bounds it,
// with eight the tensor cores' interval.
//
// Try it (32 warps, then one):
//   simt run asm/bench/mma_chain.s --timing v100 --dump cycles
//   simt run asm/bench/mma_chain.s --timing v100 --block 32 --dump cycles
.kernel mma_chain
.param .u32 n                       // MMAs a warp, a multiple of 8
.param .u32 f16acc                  // 1: f16 accumulators
.param .ptr.u32 cycles              // one word
.launch grid(1) block(1024)
.arg n = 64
.arg f16acc = 0
.arg cycles = zeros(1)

    S2R     R30, SR_TID.X
    LD.PARAM.U32 R24, [n]
    LD.PARAM.U32 R25, [f16acc]
    LD.PARAM.U32 R26, [cycles]
    ISETP.EQ.U32 P0, R30, 0
    ISETP.NE.U32 P1, R25, 0
    // the fragments (their values do not matter to the timing)
    MOV     R0, 0
    MOV     R1, 0
    MOV     R2, 0
    MOV     R3, 0
    MOV     R4, 0
    MOV     R5, 0
    MOV     R6, 0
    MOV     R7, 0
    MOV     R8, 0
    MOV     R9, 0
    MOV     R10, 0
    MOV     R11, 0
    MOV     R12, 0
    MOV     R13, 0
    MOV     R14, 0
    MOV     R15, 0
    MOV     R16, 0
    MOV     R17, 0
    MOV     R18, 0
    MOV     R19, 0
    MOV     R20, 0
    MOV     R21, 0
    MOV     R22, 0
    MOV     R23, 0
    MOV     R27, 0                  // MMAs done
    BAR.SYNC
    S2R     R28, SR_CLOCK
@P1 BRA     F16
F32:
    MMA.M16N16K16.F32.F16 R16, R0, R8, R16
    MMA.M16N16K16.F32.F16 R16, R0, R8, R16
    MMA.M16N16K16.F32.F16 R16, R0, R8, R16
    MMA.M16N16K16.F32.F16 R16, R0, R8, R16
    MMA.M16N16K16.F32.F16 R16, R0, R8, R16
    MMA.M16N16K16.F32.F16 R16, R0, R8, R16
    MMA.M16N16K16.F32.F16 R16, R0, R8, R16
    MMA.M16N16K16.F32.F16 R16, R0, R8, R16
    IADD    R27, R27, 8
    ISETP.LT.U32 P2, R27, R24
@P2 BRA     F32
    IADD    R29, R16, 0             // wait for the last accumulator
    BRA     DONE
F16:
    MMA.M16N16K16.F16.F16 R16, R0, R8, R16
    MMA.M16N16K16.F16.F16 R16, R0, R8, R16
    MMA.M16N16K16.F16.F16 R16, R0, R8, R16
    MMA.M16N16K16.F16.F16 R16, R0, R8, R16
    MMA.M16N16K16.F16.F16 R16, R0, R8, R16
    MMA.M16N16K16.F16.F16 R16, R0, R8, R16
    MMA.M16N16K16.F16.F16 R16, R0, R8, R16
    MMA.M16N16K16.F16.F16 R16, R0, R8, R16
    IADD    R27, R27, 8
    ISETP.LT.U32 P2, R27, R24
@P2 BRA     F16
    IADD    R29, R16, 0             // wait for the last accumulator
DONE:
    BAR.SYNC
    S2R     R29, SR_CLOCK
    ISUB    R29, R29, R28
@P0 ST.GLOBAL.U32 [R26], R29
    EXIT
