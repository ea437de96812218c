// Planted bug for `--check racecheck`: each thread writes its slot of a
// shared array and then reads its neighbour's slot, but the BAR.SYNC that
// should separate the two is missing. Without the check the kernel "works"
// here because warps happen to run in order; on hardware the result varies.
//   simt run asm/bugs/race.s --check racecheck     # exit 2: reports lines 19 and 14
.kernel race
.param .ptr.u32 out
.shared .u32 slots[64]
.launch grid(1) block(64)
.arg out = zeros(64)

    S2R   R0, SR_TID.X
    LEA   R1, R0, slots, 2
    ST.SHARED.U32 [R1], R0          // write my slot
    // BAR.SYNC is missing here
    IADD  R2, R0, 1
    AND   R2, R2, 63
    LEA   R2, R2, slots, 2
    LD.SHARED.U32 R3, [R2]          // read my neighbour's slot
    LD.PARAM.U32 R4, [out]
    LEA   R4, R0, R4, 2
    ST.GLOBAL.U32 [R4], R3
    EXIT
