// Planted bug for `--check racecheck`: a producer warp hands rows to a consumer warp through
// one shared slot and two named barriers, FULL (1: the row is in the slot) and EMPTY (2: the
// slot may be refilled), as asm/producer_consumer.s does with two stages. The consumer
// arrives at EMPTY before it reads the slot rather than after, so the producer may store
// the next row while the consumer still reads this one. Here the consumer's read happens to
// come first, so the sums are right; on hardware they vary.
//   simt run asm/bugs/early_arrive.s --dump sums
//   simt run asm/bugs/early_arrive.s --check racecheck     # exit 2: reports lines 30 and 44
.kernel early_arrive
.param .ptr.u32 sums
.shared .u32 slot[32]
.launch grid(1) block(64)
.arg sums = zeros(32)

    S2R     R0, SR_TID.X
    SHR.U32 R1, R0, 5               // the warp
    AND     R2, R0, 31              // the lane
    SHL     R3, R2, 2
    MOV     R4, 0                   // the row
    ISETP.NE.U32 P1, R1, 0
@P1 BRA     CONSUME

    // Producer (warp 0): rows 0 .. 3, lane l's element of row r is r + l.
PRODUCE:
    ISETP.GE.U32 P0, R4, 4
@P0 EXIT
    ISETP.NE.U32 P2, R4, 0
@P2 BAR.SYNC 2, 64                  // EMPTY: wait until the last row was read
    IADD    R5, R4, R2
    ST.SHARED.U32 [R3+slot], R5
    BAR.ARRIVE 1, 64                // FULL: the row is in the slot
    IADD    R4, R4, 1
    BRA     PRODUCE

    // Consumer (warp 1): lane l adds element l of every row.
CONSUME:
    MOV     R7, 0
NEXT:
    ISETP.GE.U32 P0, R4, 4
@P0 BRA     DONE
    BAR.SYNC 1, 64                  // FULL: wait for the row
    ISETP.NE.U32 P2, R4, 3
@P2 BAR.ARRIVE 2, 64                // EMPTY, too early: the row is not read yet
    LD.SHARED.U32 R6, [R3+slot]
    IADD    R7, R7, R6
    IADD    R4, R4, 1
    BRA     NEXT
DONE:
    LD.PARAM.U32 R8, [sums]
    IADD    R8, R8, R3
    ST.GLOBAL.U32 [R8], R7
    EXIT
