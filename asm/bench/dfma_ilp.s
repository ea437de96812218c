// dfma_ilp: DFMA throughput against independent chains per warp (ILP) and warps
// (TLP), as gpu-benches' cuda-incore measures it.
//
// Each warp runs `reps` turns of 32 DFMAs: one dependent chain (`ilp` = 1, each
// DFMA needs the one before) or two interleaved chains (`ilp` = 2). With one chain
// a warp issues a DFMA per `latency.fp64` cycles; with two, its partition's FP64
// lanes bound it (a warp's DFMA occupies 8 lanes for 4 cycles on v100). More warps
// spread over the partitions until the SM's FP64 lanes are the bound (one warp
// instruction a cycle on v100). Cycles per DFMA: the run's cycles over 32 x reps x
// warps.
//
// Try it:
//   simt run asm/bench/dfma_ilp.s --timing v100
//   simt run asm/bench/dfma_ilp.s --timing v100 --block 128 --arg ilp=2
.kernel dfma_ilp
.param .u32 reps                    // turns of 32 DFMAs per warp
.param .u32 ilp                     // independent chains per warp: 1 or 2
.launch grid(1) block(32)
.arg reps = 64
.arg ilp = 1

    LD.PARAM.U32 R20, [reps]
    LD.PARAM.U32 R21, [ilp]
    MOV     R0, 0d3FF0000000000000      // 1.0
    MOV     R2, 0d3FF0000000000000
    MOV     R8, 0d3FECCCCCCCCCCCCD      // 0.9, as cuda-incore's t * 0.9 + 0.5
    MOV     R10, 0d3FE0000000000000     // 0.5
    MOV     R22, 0
    ISETP.EQ P0, R21, 2
@P0 BRA     TWO
ONE:
    IADD    R22, R22, 1
    ISETP.LT.U32 P1, R22, R20
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R0, R0, R8, R10
@P1 BRA     ONE
    EXIT
TWO:
    IADD    R22, R22, 1
    ISETP.LT.U32 P1, R22, R20
    DFMA    R0, R0, R8, R10
    DFMA    R2, R2, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R2, R2, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R2, R2, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R2, R2, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R2, R2, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R2, R2, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R2, R2, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R2, R2, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R2, R2, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R2, R2, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R2, R2, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R2, R2, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R2, R2, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R2, R2, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R2, R2, R8, R10
    DFMA    R0, R0, R8, R10
    DFMA    R2, R2, R8, R10
@P1 BRA     TWO
    EXIT
