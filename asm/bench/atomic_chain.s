// atomic_chain: the latency of dependent global atomics, after Accel-Sim's tuner
// microbenchmark atomic_add_lat (accel-sim-framework, util/tuner/GPU_Microbenchmark/ubench/
// atomics): one thread sets data[i] = (i + 1) % n, then runs `hops` of
// index = atomicAdd(&data[index], 10), walking consecutive words, each atomic waiting for the
// last one's old value. cycles[0] is the time of the walk.
//
// Try it:
//   simt run asm/bench/atomic_chain.s --timing v100 --dump cycles
.kernel atomic_chain
.param .u32 n                       // words of data
.param .u32 hops
.param .ptr.u32 data
.param .ptr.u32 cycles              // one word
.launch grid(1) block(1)
.arg n = 1024
.arg hops = 1024
.arg data = zeros(1024)
.arg cycles = zeros(1)

    LD.PARAM.U32 R0, [n]
    LD.PARAM.U32 R1, [hops]
    LD.PARAM.U32 R2, [data]
    LD.PARAM.U32 R3, [cycles]
    MOV     R4, 0                   // i
FILL:
    IADD    R5, R4, 1
    IREM.U32 R5, R5, R0             // (i + 1) % n
    LEA     R6, R4, R2, 2
    ST.GLOBAL.U32 [R6], R5
    MOV     R4, R5
    ISETP.NE.U32 P0, R4, 0
@P0 BRA     FILL
    MEMBAR.GL                       // the walk reads what the fill wrote
    MOV     R7, 0                   // index
    MOV     R8, 0                   // hops done
    S2R     R9, SR_CLOCK
WALK:
    LEA     R6, R7, R2, 2
    ATOM.GLOBAL.ADD.U32 R7, [R6], 10
    IADD    R8, R8, 1
    ISETP.LT.U32 P1, R8, R1
@P1 BRA     WALK
    IADD    R10, R7, 0              // wait for the last atomic
    S2R     R11, SR_CLOCK
    ISUB    R11, R11, R9
    ST.GLOBAL.U32 [R3], R11
    EXIT
