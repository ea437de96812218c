// chase_shared: a pointer chase in shared memory, timed with SR_CLOCK.
//
// The block fills buf with the stride (4 bytes), then one warp chases it: LD.SHARED
// and a dependent IADD per hop. cycles[0] / n is the shared-memory latency
// (memory.shared.latency, 29 on h100) plus the IADD's (latency.alu).
//
// Try it:
//   simt run asm/bench/chase_shared.s --timing h100 --dump cycles
.kernel chase_shared
.param .u32 n                       // hops, a multiple of 8, at most 1024
.param .ptr.u32 cycles
.shared .u32 buf[1056]
.launch grid(1) block(32)
.arg n = 256
.arg cycles = zeros(1)

    S2R     R10, SR_LANEID
    ISETP.EQ P1, R10, 0
    MOV     R11, buf
    LEA     R12, R10, R11, 2        // &buf[lane]
    MOV     R13, 4
    MOV     R14, 0
FILL:
    ST.SHARED.U32 [R12], R13
    IADD    R12, R12, 128
    IADD    R14, R14, 32
    ISETP.LT.U32 P0, R14, 1056
@P0 BRA     FILL
    BAR.SYNC
    LD.PARAM.U32 R2, [n]
    LD.PARAM.U32 R9, [cycles]
    MOV     R3, R11
    MOV     R21, 0
    S2R     R5, SR_CLOCK
HOP:
    IADD    R21, R21, 8             // the loop's own work, placed so it overlaps the chase
    LD.SHARED.U32 R4, [R3]
    ISETP.LT.U32 P0, R21, R2
    IADD    R3, R3, R4
    LD.SHARED.U32 R4, [R3]
    IADD    R3, R3, R4
    LD.SHARED.U32 R4, [R3]
    IADD    R3, R3, R4
    LD.SHARED.U32 R4, [R3]
    IADD    R3, R3, R4
    LD.SHARED.U32 R4, [R3]
    IADD    R3, R3, R4
    LD.SHARED.U32 R4, [R3]
    IADD    R3, R3, R4
    LD.SHARED.U32 R4, [R3]
    IADD    R3, R3, R4
    LD.SHARED.U32 R4, [R3]
    IADD    R3, R3, R4
@P0 BRA     HOP
    IADD    R6, R3, 0
    S2R     R7, SR_CLOCK
    ISUB    R8, R7, R5
@P1 ST.GLOBAL.U32 [R9], R8
    EXIT
