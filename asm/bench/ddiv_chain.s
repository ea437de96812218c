// ddiv_chain: DDIV and DSQRT latency and throughput against warps, as gpu-benches'
// cuda-incore measures them: each warp runs `reps` turns of 16 dependent steps,
// t = 0.1 / (t + 0.2) (or, with `sqrt` = 1, t = sqrt(t + 0.2)), a DADD and the DDIV or
// DSQRT. Cycles per step: the run's cycles over 16 x reps x warps.
//
// Try it:
//   simt run asm/bench/ddiv_chain.s --timing v100
//   simt run asm/bench/ddiv_chain.s --timing v100 --block 1024 --arg sqrt=1
.kernel ddiv_chain
.param .u32 reps                    // turns of 16 steps per warp
.param .u32 sqrt                    // 1: DSQRT, else DDIV
.launch grid(1) block(32)
.arg reps = 16
.arg sqrt = 0

    LD.PARAM.U32 R20, [reps]
    LD.PARAM.U32 R21, [sqrt]
    MOV     R0, 0d3FF0000000000000      // t = 1.0
    MOV     R4, 0d3FC999999999999A      // 0.2
    MOV     R6, 0d3FB999999999999A      // 0.1
    MOV     R22, 0
    ISETP.NE.U32 P0, R21, 0
@P0 BRA     SQRT
DIV:
    IADD    R22, R22, 1
    ISETP.LT.U32 P1, R22, R20
    DADD    R2, R0, R4
    DDIV    R0, R6, R2
    DADD    R2, R0, R4
    DDIV    R0, R6, R2
    DADD    R2, R0, R4
    DDIV    R0, R6, R2
    DADD    R2, R0, R4
    DDIV    R0, R6, R2
    DADD    R2, R0, R4
    DDIV    R0, R6, R2
    DADD    R2, R0, R4
    DDIV    R0, R6, R2
    DADD    R2, R0, R4
    DDIV    R0, R6, R2
    DADD    R2, R0, R4
    DDIV    R0, R6, R2
    DADD    R2, R0, R4
    DDIV    R0, R6, R2
    DADD    R2, R0, R4
    DDIV    R0, R6, R2
    DADD    R2, R0, R4
    DDIV    R0, R6, R2
    DADD    R2, R0, R4
    DDIV    R0, R6, R2
    DADD    R2, R0, R4
    DDIV    R0, R6, R2
    DADD    R2, R0, R4
    DDIV    R0, R6, R2
    DADD    R2, R0, R4
    DDIV    R0, R6, R2
    DADD    R2, R0, R4
    DDIV    R0, R6, R2
@P1 BRA     DIV
    EXIT
SQRT:
    IADD    R22, R22, 1
    ISETP.LT.U32 P1, R22, R20
    DADD    R2, R0, R4
    DSQRT   R0, R2
    DADD    R2, R0, R4
    DSQRT   R0, R2
    DADD    R2, R0, R4
    DSQRT   R0, R2
    DADD    R2, R0, R4
    DSQRT   R0, R2
    DADD    R2, R0, R4
    DSQRT   R0, R2
    DADD    R2, R0, R4
    DSQRT   R0, R2
    DADD    R2, R0, R4
    DSQRT   R0, R2
    DADD    R2, R0, R4
    DSQRT   R0, R2
    DADD    R2, R0, R4
    DSQRT   R0, R2
    DADD    R2, R0, R4
    DSQRT   R0, R2
    DADD    R2, R0, R4
    DSQRT   R0, R2
    DADD    R2, R0, R4
    DSQRT   R0, R2
    DADD    R2, R0, R4
    DSQRT   R0, R2
    DADD    R2, R0, R4
    DSQRT   R0, R2
    DADD    R2, R0, R4
    DSQRT   R0, R2
    DADD    R2, R0, R4
    DSQRT   R0, R2
@P1 BRA     SQRT
    EXIT
