// f32_sequence_ilp: correctly rounded f32 reciprocals (FDIV 1 / x) or square roots (FSQRT)
// against independent chains in one warp, as cuda_study's micro_benchmarks/inst_lat.cu times
// __frcp_rn and __fsqrt_rn: `steps` turns of `ilp` chains (1, 2, 4 or 8), one operation each a
// turn, then the loop's count, compare and branch. The cycles of the turns (SR_CLOCK) go to
// cycles[0]; a turn's cycles over `ilp` are what its table shows. Where a machine runs these
// as blocking sequences (`[sequence]` in its file), more chains do not hide their latency.
//
// Try it:
//   simt run asm/bench/f32_sequence_ilp.s --timing h100 --dump cycles
//   simt run asm/bench/f32_sequence_ilp.s --timing h100 --dump cycles --arg ilp=8 --arg sqrt=1
.kernel f32_sequence_ilp
.param .u32 steps                   // turns
.param .u32 ilp                     // independent chains: 1, 2, 4 or 8
.param .u32 sqrt                    // 1: FSQRT, else FDIV 1 / x
.param .ptr.u32 cycles              // [1]: cycles of the turns
.launch grid(1) block(32)
.arg steps = 64
.arg ilp = 1
.arg sqrt = 0
.arg cycles = zeros(1)

    LD.PARAM.U32 R20, [steps]
    LD.PARAM.U32 R21, [ilp]
    LD.PARAM.U32 R22, [sqrt]
    LD.PARAM.U32 R23, [cycles]
    MOV     R9, 1.0
    MOV     R0, 2.0
    MOV     R1, 3.0
    MOV     R2, 4.0
    MOV     R3, 5.0
    MOV     R4, 6.0
    MOV     R5, 7.0
    MOV     R6, 8.0
    MOV     R7, 9.0
    MOV     R24, 0                  // turns done
    ISETP.NE.U32 P0, R22, 0
    ISETP.EQ.U32 P1, R21, 2
    ISETP.EQ.U32 P2, R21, 4
    ISETP.EQ.U32 P3, R21, 8
    S2R     R12, SR_CLOCK
@P0 BRA     SQRT
@P1 BRA     DIV2
@P2 BRA     DIV4
@P3 BRA     DIV8
DIV1:
    FDIV    R0, R9, R0
    IADD    R24, R24, 1
    ISETP.LT.U32 P4, R24, R20
@P4 BRA     DIV1
    BRA     DONE
DIV2:
    FDIV    R0, R9, R0
    FDIV    R1, R9, R1
    IADD    R24, R24, 1
    ISETP.LT.U32 P4, R24, R20
@P4 BRA     DIV2
    BRA     DONE
DIV4:
    FDIV    R0, R9, R0
    FDIV    R1, R9, R1
    FDIV    R2, R9, R2
    FDIV    R3, R9, R3
    IADD    R24, R24, 1
    ISETP.LT.U32 P4, R24, R20
@P4 BRA     DIV4
    BRA     DONE
DIV8:
    FDIV    R0, R9, R0
    FDIV    R1, R9, R1
    FDIV    R2, R9, R2
    FDIV    R3, R9, R3
    FDIV    R4, R9, R4
    FDIV    R5, R9, R5
    FDIV    R6, R9, R6
    FDIV    R7, R9, R7
    IADD    R24, R24, 1
    ISETP.LT.U32 P4, R24, R20
@P4 BRA     DIV8
    BRA     DONE
SQRT:
@P1 BRA     SQRT2
@P2 BRA     SQRT4
@P3 BRA     SQRT8
SQRT1:
    FSQRT   R0, R0
    IADD    R24, R24, 1
    ISETP.LT.U32 P4, R24, R20
@P4 BRA     SQRT1
    BRA     DONE
SQRT2:
    FSQRT   R0, R0
    FSQRT   R1, R1
    IADD    R24, R24, 1
    ISETP.LT.U32 P4, R24, R20
@P4 BRA     SQRT2
    BRA     DONE
SQRT4:
    FSQRT   R0, R0
    FSQRT   R1, R1
    FSQRT   R2, R2
    FSQRT   R3, R3
    IADD    R24, R24, 1
    ISETP.LT.U32 P4, R24, R20
@P4 BRA     SQRT4
    BRA     DONE
SQRT8:
    FSQRT   R0, R0
    FSQRT   R1, R1
    FSQRT   R2, R2
    FSQRT   R3, R3
    FSQRT   R4, R4
    FSQRT   R5, R5
    FSQRT   R6, R6
    FSQRT   R7, R7
    IADD    R24, R24, 1
    ISETP.LT.U32 P4, R24, R20
@P4 BRA     SQRT8
    BRA     DONE
DONE:
    S2R     R13, SR_CLOCK
    IADD    R13, R13, -R12
    ST.GLOBAL.U32 [R23], R13
    EXIT
