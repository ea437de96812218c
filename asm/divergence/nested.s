// Three levels of nested if/else on lane l's low three bits: five leaves, of
// 8, 8, 8, 4 and 4 lanes (only the last split tests bit 0). The listing
// (`simt asm --listing`) shows where each branch reconverges.
//   simt run asm/divergence/nested.s --dump out --stats
.kernel nested
.param .ptr.u32 out
.launch grid(1) block(32)
.arg out = zeros(32)

    S2R   R0, SR_LANEID
    MOV   R2, 0
    AND   R1, R0, 4
    ISETP.NE P0, R1, 0
@P0 BRA   HIGH
    AND   R1, R0, 2
    ISETP.NE P1, R1, 0
@P1 BRA   LOW_ODD
    IADD  R2, R2, 10                // leaves 0, 1
    BRA   LOW_DONE
LOW_ODD:
    IADD  R2, R2, 20                // leaves 2, 3
LOW_DONE:
    BRA   LEVEL1_DONE
HIGH:
    AND   R1, R0, 2
    ISETP.NE P1, R1, 0
@P1 BRA   HIGH_ODD
    IADD  R2, R2, 30                // leaves 4, 5
    BRA   LEVEL1_DONE
HIGH_ODD:
    AND   R1, R0, 1
    ISETP.NE P2, R1, 0
@P2 BRA   LEAF7
    IADD  R2, R2, 40                // leaf 6
    BRA   LEVEL1_DONE
LEAF7:
    IADD  R2, R2, 50                // leaf 7
LEVEL1_DONE:
    IADD  R2, R2, R0                // every lane again
    LD.PARAM.U32 R3, [out]
    LEA   R3, R0, R3, 2
    ST.GLOBAL.U32 [R3], R2
    EXIT
