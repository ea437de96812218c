// chase_random: one thread chases through `slots` slots `stride` bytes apart in a
// random order, as gpu-benches' gpu-latency does, and times the second pass.
//
// The order is a full-period linear congruential sequence over the power of two at or
// above the slots, skipping values past the last slot (cycle walking), so a pass visits
// every slot once and the next pass repeats it; with a power of two of slots nothing is
// skipped, and with others the skipping overlaps the hop's load. The buffer is
// zeros: each hop adds the loaded zero to the next slot's address, which makes the
// next load wait for this one without the host writing a chain of pointers (a 1 GB
// footprint costs no memory beyond the pages the chase touches). Per hop the thread
// waits a load and a dependent IADD (latency.alu); the loop's branch adds a cycle per
// eight hops. `warm` hops run first, untimed; then `hops` hops are timed with SR_CLOCK.
//
// Try it (4 MB at 64-byte stride: L2-resident after the first pass):
//   simt run asm/bench/chase_random.s --timing h100 --dump cycles \
//       --arg slots=65536 --arg warm=65536 --arg 'buf=zeros(1048576)'
.kernel chase_random
.param .u32 slots                   // at least 2
.param .u32 stride                  // bytes between slots
.param .u32 warm                    // untimed hops first, a multiple of 8
.param .u32 hops                    // timed hops, a multiple of 8
.param .ptr.u32 buf                 // slots x stride bytes of zeros
.param .ptr.u32 cycles              // [1]: cycles of the timed hops
.launch grid(1) block(1)
.arg slots = 1024
.arg stride = 64
.arg warm = 1024
.arg hops = 1024
.arg buf = zeros(16384)
.arg cycles = zeros(1)

    LD.PARAM.U32 R1, [slots]
    LD.PARAM.U32 R2, [stride]
    LD.PARAM.U32 R3, [warm]
    LD.PARAM.U32 R4, [hops]
    LD.PARAM.U32 R5, [buf]
    LD.PARAM.U32 R6, [cycles]
    MOV     R16, R1                 // the slots
    IADD    R1, R1, -1
    CLZ     R17, R1
    SHR     R1, -1, R17             // the mask: the power of two at or above the slots, less 1
    MOV     R7, 0                   // slot
    MOV     R8, R5                  // its address
    MOV     R9, 0                   // hops done
    MOV     R20, 0                  // pass: 0 warms, 1 is timed
    MOV     R21, R3
    S2R     R12, SR_CLOCK
PASS:
    ISETP.EQ P1, R21, 0
@P1 BRA     DONE
HOP:
    LD.GLOBAL.U32 R10, [R8]
NEXT0:
    IMAD    R7, R7, 1664525, 1013904223
    AND     R7, R7, R1
    ISETP.GE.U32 P3, R7, R16        // past the last slot: the next value
@P3 BRA     NEXT0
    IMAD    R11, R7, R2, R5
    IADD    R8, R11, R10            // waits for the load: the chain
    LD.GLOBAL.U32 R10, [R8]
NEXT1:
    IMAD    R7, R7, 1664525, 1013904223
    AND     R7, R7, R1
    ISETP.GE.U32 P3, R7, R16        // past the last slot: the next value
@P3 BRA     NEXT1
    IMAD    R11, R7, R2, R5
    IADD    R8, R11, R10            // waits for the load: the chain
    LD.GLOBAL.U32 R10, [R8]
NEXT2:
    IMAD    R7, R7, 1664525, 1013904223
    AND     R7, R7, R1
    ISETP.GE.U32 P3, R7, R16        // past the last slot: the next value
@P3 BRA     NEXT2
    IMAD    R11, R7, R2, R5
    IADD    R8, R11, R10            // waits for the load: the chain
    LD.GLOBAL.U32 R10, [R8]
NEXT3:
    IMAD    R7, R7, 1664525, 1013904223
    AND     R7, R7, R1
    ISETP.GE.U32 P3, R7, R16        // past the last slot: the next value
@P3 BRA     NEXT3
    IMAD    R11, R7, R2, R5
    IADD    R8, R11, R10            // waits for the load: the chain
    LD.GLOBAL.U32 R10, [R8]
NEXT4:
    IMAD    R7, R7, 1664525, 1013904223
    AND     R7, R7, R1
    ISETP.GE.U32 P3, R7, R16        // past the last slot: the next value
@P3 BRA     NEXT4
    IMAD    R11, R7, R2, R5
    IADD    R8, R11, R10            // waits for the load: the chain
    LD.GLOBAL.U32 R10, [R8]
NEXT5:
    IMAD    R7, R7, 1664525, 1013904223
    AND     R7, R7, R1
    ISETP.GE.U32 P3, R7, R16        // past the last slot: the next value
@P3 BRA     NEXT5
    IMAD    R11, R7, R2, R5
    IADD    R8, R11, R10            // waits for the load: the chain
    LD.GLOBAL.U32 R10, [R8]
NEXT6:
    IMAD    R7, R7, 1664525, 1013904223
    AND     R7, R7, R1
    ISETP.GE.U32 P3, R7, R16        // past the last slot: the next value
@P3 BRA     NEXT6
    IMAD    R11, R7, R2, R5
    IADD    R8, R11, R10            // waits for the load: the chain
    LD.GLOBAL.U32 R10, [R8]
NEXT7:
    IMAD    R7, R7, 1664525, 1013904223
    AND     R7, R7, R1
    ISETP.GE.U32 P3, R7, R16        // past the last slot: the next value
@P3 BRA     NEXT7
    IMAD    R11, R7, R2, R5
    IADD    R8, R11, R10            // waits for the load: the chain
    IADD    R9, R9, 8
    ISETP.LT.U32 P0, R9, R21
@P0 BRA     HOP
DONE:
    IADD    R13, R8, 0              // waits for the last hop
    S2R     R14, SR_CLOCK
    ISUB    R15, R14, R12
    ST.GLOBAL.U32 [R6], R15
    IADD    R20, R20, 1
    MOV     R9, 0
    MOV     R21, R4
    S2R     R12, SR_CLOCK
    ISETP.LT.U32 P2, R20, 2
@P2 BRA     PASS
    EXIT
