// Planted bug for `--check synccheck`: BAR.SYNC inside an if. Under the
// default `its` model it happens to complete here (every thread reaches some
// barrier), but it is a barrier in divergent code: undefined on many GPUs.
//   simt run asm/bugs/divergent_sync.s --check synccheck   (reports line 17)
.kernel divergent_sync
.param .ptr.u32 out
.shared .u32 buf[64]
.launch grid(1) block(64)
.arg out = zeros(64)

    S2R   R0, SR_TID.X
    LEA   R1, R0, buf, 2
    ST.SHARED.U32 [R1], R0
    AND   R2, R0, 1
    ISETP.EQ P0, R2, 0
@P0 BRA   EVEN
    BAR.SYNC                        // odd threads only
    BRA   JOIN
EVEN:
    BAR.SYNC                        // even threads only
JOIN:
    XOR   R3, R0, 1
    LEA   R3, R3, buf, 2
    LD.SHARED.U32 R4, [R3]
    LD.PARAM.U32 R5, [out]
    LEA   R5, R0, R5, 2
    ST.GLOBAL.U32 [R5], R4
    EXIT
