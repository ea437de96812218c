// stream: every thread sums `per_thread` floats of x, grid-stride (coalesced: a
// warp reads 128 consecutive bytes per load), and writes its sum to y.
//
// One warp per SM keeps one 128-byte load in flight: far below its share of
// DRAM bandwidth (Little's law: bandwidth = bytes in flight / latency). Enough
// warps per SM keep enough loads in flight to saturate DRAM. The timing report's
// "DRAM bandwidth" line gives the achieved figure.
//
// Try it (132 SMs of h100; blocks of 32 threads are one warp each; x needs
// grid x block x 16 floats and y one per thread):
//   simt run asm/bench/stream.s --timing h100 --grid 132 --block 32
//   simt run asm/bench/stream.s --timing h100 --grid 1056 --block 256 \
//       --arg 'x=fill(4325376, 1.0)' --arg 'y=zeros(270336)'
.kernel stream
.param .u32 per_thread
.param .ptr.f32 x                   // grid threads x per_thread floats
.param .ptr.f32 y                   // one float per thread
.launch grid(132) block(32)
.arg per_thread = 16
.arg x = fill(67584, 1.0)
.arg y = zeros(4224)

    S2R     R0, SR_TID.X
    S2R     R1, SR_CTAID.X
    S2R     R2, SR_NTID.X
    S2R     R3, SR_NCTAID.X
    IMAD    R4, R1, R2, R0          // global thread
    IMUL    R5, R2, R3              // threads in the grid
    LD.PARAM.U32 R6, [per_thread]
    LD.PARAM.U32 R7, [x]
    LD.PARAM.U32 R8, [y]
    LEA     R9, R4, R7, 2           // &x[thread]
    SHL     R5, R5, 2               // grid stride in bytes
    MOV     R10, 0.0
    MOV     R11, 0
LOOP:
    LD.GLOBAL.F32 R12, [R9]
    IADD    R9, R9, R5
    IADD    R11, R11, 1
    ISETP.LT.U32 P0, R11, R6
    FADD    R10, R10, R12
@P0 BRA     LOOP
    LEA     R13, R4, R8, 2
    ST.GLOBAL.F32 [R13], R10
    EXIT
