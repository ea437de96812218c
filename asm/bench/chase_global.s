// chase_global: a pointer chase through a global buffer, twice, timed with SR_CLOCK.
//
// `chain` holds the stride in every word, so each hop loads the distance to the
// next one and adds it: LD then a dependent IADD, `n` hops per pass. The first
// pass finds every line cold (DRAM latency); the second finds them in L1 when
// n * stride fits in L1, else in L2. cycles[p] is pass p's total: per hop it is
// the load latency plus the IADD's (latency.alu).
//
// Try it:
//   simt run asm/bench/chase_global.s --timing h100 --dump cycles               # L1-resident second pass
//   simt run asm/bench/chase_global.s --timing h100 --dump cycles \
//       --arg n=8192 --arg chain='fill(262144, 128)'                              # 1 MB: L2-resident second pass
.kernel chase_global
.param .u32 n                       // hops per pass, a multiple of 8
.param .ptr.u32 chain               // every word: the stride in bytes
.param .ptr.u32 cycles              // [2]: cycles of pass 0 and pass 1
.launch grid(1) block(32)
.arg n = 256
.arg chain = fill(8192, 128)
.arg cycles = zeros(2)

    LD.PARAM.U32 R1, [chain]
    LD.PARAM.U32 R2, [n]
    LD.PARAM.U32 R9, [cycles]
    S2R     R10, SR_LANEID
    ISETP.EQ P1, R10, 0
    MOV     R20, 0                  // pass
PASS:
    MOV     R3, R1
    MOV     R21, 0                  // hops done
    S2R     R5, SR_CLOCK
HOP:
    IADD    R21, R21, 8             // the loop's own work, placed so it overlaps the chase
    LD.GLOBAL.U32 R4, [R3]
    ISETP.LT.U32 P0, R21, R2
    IADD    R3, R3, R4
    LD.GLOBAL.U32 R4, [R3]
    IADD    R3, R3, R4
    LD.GLOBAL.U32 R4, [R3]
    IADD    R3, R3, R4
    LD.GLOBAL.U32 R4, [R3]
    IADD    R3, R3, R4
    LD.GLOBAL.U32 R4, [R3]
    IADD    R3, R3, R4
    LD.GLOBAL.U32 R4, [R3]
    IADD    R3, R3, R4
    LD.GLOBAL.U32 R4, [R3]
    IADD    R3, R3, R4
    LD.GLOBAL.U32 R4, [R3]
    IADD    R3, R3, R4
@P0 BRA     HOP
    IADD    R6, R3, 0               // waits for the last hop
    S2R     R7, SR_CLOCK
    ISUB    R8, R7, R5
    LEA     R22, R20, R9, 2
@P1 ST.GLOBAL.U32 [R22], R8
    IADD    R20, R20, 1
    ISETP.LT.U32 P2, R20, 2
@P2 BRA     PASS
    EXIT
