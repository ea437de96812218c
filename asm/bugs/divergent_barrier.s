// BAR.SYNC on both sides of an if/else: a barrier in divergent code, the
// planted bug for `--check synccheck` and the clearest difference between the
// SIMT models. Under --simt its every thread of the block arrives at *a*
// BAR.SYNC, so the barrier completes; under --simt stack the warp is stuck at
// the first side's barrier while its other lanes can never run, and the launch
// faults with a deadlock naming where everyone waits. On real GPUs a barrier
// in divergent code is undefined behaviour, hence synccheck reports it.
//   simt run asm/bugs/divergent_barrier.s --dump out
//   simt run asm/bugs/divergent_barrier.s --simt stack        # exit 2: a deadlock
//   simt run asm/bugs/divergent_barrier.s --check synccheck   # exit 2: reports lines 23 and 26
.kernel divergent_barrier
.param .ptr.u32 out
.shared .u32 flags[64]
.launch grid(1) block(64)
.arg out = zeros(64)

    S2R   R0, SR_TID.X
    LEA   R1, R0, flags, 2
    ST.SHARED.U32 [R1], R0
    AND   R2, R0, 1
    ISETP.EQ P0, R2, 0
@P0 BRA   EVEN
    BAR.SYNC                        // odd threads wait here
    BRA   JOIN
EVEN:
    BAR.SYNC                        // even threads wait here
JOIN:
    XOR   R3, R0, 1                 // read the neighbour's flag, written before the barrier
    LEA   R3, R3, flags, 2
    LD.SHARED.U32 R4, [R3]
    LD.PARAM.U32 R5, [out]
    LEA   R5, R0, R5, 2
    ST.GLOBAL.U32 [R5], R4
    EXIT
