// Divergence inside a loop: every iteration splits the warp on a
// data-dependent condition and reconverges before the loop's back edge.
//   simt run asm/divergence/loop_diverge.s --dump out --stats
.kernel loop_diverge
.param .ptr.u32 out
.launch grid(1) block(32)
.arg out = zeros(32)

    S2R  R0, SR_LANEID
    MOV  R5, 0                      // i
    MOV  R6, 0                      // acc
LOOP:
    IADD R7, R0, R5
    AND  R7, R7, 3
    ISETP.EQ P0, R7, 0
@P0 BRA  SKIP                       // a quarter of the lanes skip the body
    IMAD R6, R6, 2, R5
    BRA  NEXT
SKIP:
    IADD R6, R6, 1000
NEXT:
    IADD R5, R5, 1
    ISETP.LT.U32 P1, R5, 6
@P1 BRA  LOOP
    LD.PARAM.U32 R8, [out]
    LEA  R9, R0, R8, 2
    ST.GLOBAL.U32 [R9], R6
    EXIT
