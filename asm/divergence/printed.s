// What each thread prints, and in which order: the two sides of a divergent branch, then,
// past a barrier, every thread again. Two warps a block: records come by block, then by
// the barriers the block had opened, then by warp, each warp's in the order it made them
// (docs/language.md, "Printing").
//   simt run asm/divergence/printed.s
.kernel printed
.launch grid(2) block(36)
    S2R R4, SR_CTAID.X
    S2R R5, SR_TID.X
    AND R6, R5, 1
    ISETP.EQ.U32 P0, R6, 0
@P0 BRA even
    PRINTF "block %d thread %2d: odd\n", R4
    BRA join
even:
    PRINTF "block %d thread %2d: even\n", R4
join:
    BAR.SYNC
    CVT.F64.U32 R6, R5
    PRINTF "block %d thread %2d: after the barrier, %.1f\n", R4
    EXIT
