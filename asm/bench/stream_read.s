// stream_read: every thread reads one 8-byte element per turn of a grid-stride loop
// and keeps a running sum, as gpu-benches' gpu-stream "read" kernel reads doubles:
// a warp has 256 bytes (two lines) in flight at a time. Launched with two blocks per
// SM, the block size sets the occupancy (256 threads: 25% of an SM's 2048), and
// Little's law the bandwidth: bytes in flight per SM over DRAM's loaded latency.
//
// Try it (two blocks of 512 threads on each of h100's 132 SMs: 50% occupancy):
//   simt run asm/bench/stream_read.s --timing h100 --grid 264 --block 512 \
//       --arg n=4194304 --arg 'x=zeros(8388608)' --arg 'y=zeros(135168)'
.kernel stream_read
.param .u32 n                       // elements of 8 bytes
.param .ptr.u32 x                   // 2n words
.param .ptr.u32 y                   // one word per thread: its sum, stored only if it is 123
.launch grid(8) block(256)
.arg n = 8192
.arg x = zeros(16384)
.arg y = zeros(2048)

    S2R     R0, SR_TID.X
    S2R     R1, SR_CTAID.X
    S2R     R2, SR_NTID.X
    S2R     R3, SR_NCTAID.X
    IMAD    R4, R1, R2, R0          // global thread
    IMUL    R5, R2, R3              // threads in the grid
    LD.PARAM.U32 R6, [n]
    LD.PARAM.U32 R7, [x]
    LD.PARAM.U32 R8, [y]
    MOV     R10, 0
    MOV     R11, R4
    ISETP.GE.U32 P0, R11, R6
@P0 BRA     DONE
LOOP:
    LEA     R9, R11, R7, 3
    LD.GLOBAL.B64 R12, [R9]
    IADD    R11, R11, R5
    ISETP.LT.U32 P1, R11, R6
    IADD    R10, R10, R12
@P1 BRA     LOOP
DONE:
    ISETP.NE P2, R10, 123           // as gpu-stream, store only a sum that never comes, so no
@P2 EXIT                            // block waits for a store's acknowledgement
    LEA     R14, R4, R8, 2
    ST.GLOBAL.U32 [R14], R10
    EXIT
