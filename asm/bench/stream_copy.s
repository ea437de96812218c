// stream_copy: a[i] = s * b[i] over n floats, grid-stride, as gpu-benches' gpu-stream
// "scale" (one load stream, one store stream).
//
// Try it (64 MB of each array on h100):
//   simt run asm/bench/stream_copy.s --timing h100 --grid 1056 --block 256 \
//       --arg n=16777216 --arg 'a=zeros(16777216)' --arg 'b=zeros(16777216)'
.kernel stream_copy
.param .u32 n
.param .f32 s
.param .ptr.f32 a
.param .ptr.f32 b
.launch grid(4) block(256)
.arg n = 4096
.arg s = 2.0
.arg a = zeros(4096)
.arg b = fill(4096, 1.0)

    S2R     R0, SR_TID.X
    S2R     R1, SR_CTAID.X
    S2R     R2, SR_NTID.X
    S2R     R3, SR_NCTAID.X
    IMAD    R4, R1, R2, R0          // global thread
    IMUL    R5, R2, R3              // threads in the grid
    LD.PARAM.U32 R6, [n]
    LD.PARAM.F32 R7, [s]
    LD.PARAM.U32 R8, [a]
    LD.PARAM.U32 R9, [b]
    ISETP.GE.U32 P0, R4, R6
@P0 EXIT
LOOP:
    LEA     R11, R4, R9, 2
    LD.GLOBAL.F32 R12, [R11]
    FMUL    R15, R7, R12
    LEA     R16, R4, R8, 2
    ST.GLOBAL.F32 [R16], R15
    IADD    R4, R4, R5
    ISETP.LT.U32 P1, R4, R6
@P1 BRA     LOOP
    EXIT
