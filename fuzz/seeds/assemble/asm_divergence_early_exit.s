// Lanes with an odd lane id leave early; the rest keep working and then
// take part in a warp-wide vote: exited threads no longer take part.
//   simt run asm/divergence/early_exit.s --dump out --stats
.kernel early_exit
.param .ptr.u32 out
.launch grid(1) block(32)
.arg out = zeros(32)

    S2R   R0, SR_LANEID
    LD.PARAM.U32 R3, [out]
    LEA   R3, R0, R3, 2
    AND   R1, R0, 1
    ISETP.NE P0, R1, 0
@P0 BRA   LEAVE
    IMUL  R2, R0, 100
    ISETP.LT P1, R0, 16
    VOTE.BALLOT R4, P1              // only the even lanes vote
    IADD  R2, R2, R4
    ST.GLOBAL.U32 [R3], R2
    EXIT
LEAVE:
    ST.GLOBAL.U32 [R3], R0
    EXIT
