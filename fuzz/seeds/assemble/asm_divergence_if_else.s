// Odd and even threads take different sides of an if/else and meet again.
// Under both SIMT models the warp runs the `then` side (fall-through) first
// with the odd lanes, then the `else` side with the even lanes, and issues
// the instructions after JOIN with all 32 lanes again. Try:
//   simt run asm/divergence/if_else.s --dump out --stats
.kernel if_else
.param .ptr.u32 out
.launch grid(1) block(64)
.arg out = zeros(64)

    S2R   R0, SR_TID.X
    AND   R1, R0, 1
    ISETP.EQ P0, R1, 0
@P0 BRA   EVEN                      // diverges: reconverges at JOIN
    IMUL  R2, R0, 3                 // odd: 3 * tid
    BRA   JOIN
EVEN:
    SHL   R2, R0, 1                 // even: 2 * tid
JOIN:
    LD.PARAM.U32 R3, [out]
    LEA   R3, R0, R3, 2
    ST.GLOBAL.U32 [R3], R2
    EXIT
