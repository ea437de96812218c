// stream_init: every thread stores one 8-byte element, as gpu-benches' gpu-stream
// "init" kernel writes doubles (A[i] = 0.23): one store stream, no loads. Whole sectors
// are written, so L2 allocates them without reading DRAM; DRAM sees the dirty lines L2
// evicts to make room, and a write-only stream is bound by how fast those go out.
//
// Try it (two blocks of 1024 threads on each of h100's 132 SMs, 64 MB):
//   simt run asm/bench/stream_init.s --timing h100 --grid 4096 --block 1024 \
//       --arg n=4194304 --arg 'x=zeros(8388608)'
.kernel stream_init
.param .u32 n                       // elements of 8 bytes
.param .ptr.u32 x                   // 2n words
.launch grid(8) block(256)
.arg n = 2048
.arg x = zeros(4096)

    S2R     R0, SR_TID.X
    S2R     R1, SR_CTAID.X
    S2R     R2, SR_NTID.X
    IMAD    R3, R1, R2, R0          // this thread's element
    LD.PARAM.U32 R4, [n]
    ISETP.GE.U32 P0, R3, R4
@P0 EXIT
    LD.PARAM.U32 R5, [x]
    LEA     R6, R3, R5, 3
    MOV     R8, 0xD70A3D71          // 0.23 as a double: its low word
    MOV     R9, 0x3FCD70A3          // and its high word
    ST.GLOBAL.B64 [R6], R8
    EXIT
