// stream_stencil: a 1D stencil over n floats, grid-stride, as gpu-benches' gpu-stream "3pt"
// and "5pt": one load stream read at neighbouring offsets (the neighbours' words come from
// lines a warp, or the warp before, just read) and one store stream.
//   reach = 1: a[i] = 0.5 b[i-1] - b[i] + 0.5 b[i+1]                          for 1 <= i < n-1
//   reach = 2: a[i] = 0.25 b[i-2] + 0.25 b[i-1] - b[i] + 0.5 b[i+1] + 0.5 b[i+2]   for 2 <= i < n-2
// The 5-point loads run under a predicate, so the 3-point form issues them (and their two
// FFMAs on zeros) without touching memory: a few issue slots in a kernel bound by DRAM.
//
// Try it (64 MB of each array on h100):
//   simt run asm/bench/stream_stencil.s --timing h100 --grid 1056 --block 256 \
//       --arg n=16777216 --arg reach=1 --arg 'a=zeros(16777216)' --arg 'b=zeros(16777216)'
.kernel stream_stencil
.param .u32 n
.param .u32 reach                   // 1 or 2
.param .ptr.f32 a
.param .ptr.f32 b
.launch grid(4) block(256)
.arg n = 4096
.arg reach = 1
.arg a = zeros(4096)
.arg b = iota(4096)

    S2R     R0, SR_TID.X
    S2R     R1, SR_CTAID.X
    S2R     R2, SR_NTID.X
    S2R     R3, SR_NCTAID.X
    IMAD    R4, R1, R2, R0          // global thread
    IMUL    R5, R2, R3              // threads in the grid
    LD.PARAM.U32 R6, [n]
    LD.PARAM.U32 R7, [reach]
    LD.PARAM.U32 R8, [a]
    LD.PARAM.U32 R9, [b]
    IADD    R4, R4, R7              // i starts at reach
    IADD    R6, R6, -R7             // and ends before n - reach
    ISETP.EQ P2, R7, 2              // the 5-point form
    MOV     R10, 0.5                // b[i-1]'s weight
@P2 MOV     R10, 0.25
    MOV     R20, 0                  // b[i-2] and b[i+2]: zeros for the 3-point form
    MOV     R21, 0
    ISETP.GE.U32 P0, R4, R6
@P0 EXIT
LOOP:
    LEA     R11, R4, R9, 2
    LD.GLOBAL.F32 R12, [R11-4]
    LD.GLOBAL.F32 R13, [R11]
    LD.GLOBAL.F32 R14, [R11+4]
@P2 LD.GLOBAL.F32 R20, [R11-8]
@P2 LD.GLOBAL.F32 R21, [R11+8]
    FMUL    R15, R14, 0.5
    FADD    R15, R15, -R13
    FFMA    R15, R12, R10, R15
    FFMA    R15, R20, 0.25, R15
    FFMA    R15, R21, 0.5, R15
    LEA     R16, R4, R8, 2
    ST.GLOBAL.F32 [R16], R15
    IADD    R4, R4, R5
    ISETP.LT.U32 P1, R4, R6
@P1 BRA     LOOP
    EXIT
