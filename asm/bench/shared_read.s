// shared_read: one block per SM reading the same buffer of doubles over and over, after
// gpu-benches' gpu-cache (github.com/te42kyfo/gpu-benches): each thread adds up every 256th
// double from its own, `iters` times over `n` doubles, in one chain of DADDs (scaled by 1.3
// after each pass, as there), so every SM reads all of the buffer each pass. Below the L1 it
// hits there; beyond, in L2, where a machine with two partitions can keep a copy near each
// SM only while the buffer fits one partition. Bytes read over time is the bandwidth.
//
// Try it (a 1 MB buffer read by 16 SMs of a100, past their L1s):
//   simt run asm/bench/shared_read.s --timing a100 --grid 16 --arg n=131072 --arg 'b=zeros(262144)'
.kernel shared_read
.param .u32 n                       // doubles, a multiple of 2048
.param .u32 iters
.param .ptr.f64 b
.param .ptr.f64 out                 // one double per block: written only if a sum is 123 (never)
.launch grid(1) block(256)
.arg n = 2048
.arg iters = 2
.arg b = zeros(4096)
.arg out = zeros(2)

    S2R     R0, SR_TID.X
    LD.PARAM.U32 R1, [n]
    LD.PARAM.U32 R2, [iters]
    LD.PARAM.U32 R3, [b]
    LEA     R4, R0, R3, 3           // &b[tid]
    MOV     R6, 0                   // the sum, a double in R6:R7
    MOV     R7, 0
    MOV     R8, 0                   // passes done
PASS:
    MOV     R9, R4
    MOV     R10, 0                  // doubles done this pass
LOADS:
    LD.GLOBAL.F64 R12, [R9+0]
    LD.GLOBAL.F64 R14, [R9+2048]
    LD.GLOBAL.F64 R16, [R9+4096]
    LD.GLOBAL.F64 R18, [R9+6144]
    LD.GLOBAL.F64 R20, [R9+8192]
    LD.GLOBAL.F64 R22, [R9+10240]
    LD.GLOBAL.F64 R24, [R9+12288]
    LD.GLOBAL.F64 R26, [R9+14336]
    DADD    R6, R6, R12
    DADD    R6, R6, R14
    DADD    R6, R6, R16
    DADD    R6, R6, R18
    DADD    R6, R6, R20
    DADD    R6, R6, R22
    DADD    R6, R6, R24
    DADD    R6, R6, R26
    IADD    R9, R9, 16384
    IADD    R10, R10, 2048
    ISETP.LT.U32 P0, R10, R1
@P0 BRA     LOADS
    DMUL    R6, R6, 1.3
    IADD    R8, R8, 1
    ISETP.LT.U32 P1, R8, R2
@P1 BRA     PASS
    EXIT
