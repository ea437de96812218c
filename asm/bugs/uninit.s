// Planted bug for `--check initcheck`: the block sums a shared array, but
// only the first 32 threads fill it, so threads 32..63 read slots nothing
// wrote (shared memory starts zeroed, which hides the bug without the check).
//   simt run asm/bugs/uninit.s --check initcheck   # exit 2: reports line 19
.kernel uninit
.param .ptr.u32 out
.shared .u32 vals[64]
.launch grid(1) block(64)
.arg out = zeros(64)

    S2R   R0, SR_TID.X
    LEA   R1, R0, vals, 2
    ISETP.GE.U32 P0, R0, 32
@P0 BRA   SKIP                      // the bug: threads 32.. never store
    IMUL  R2, R0, 10
    ST.SHARED.U32 [R1], R2
SKIP:
    BAR.SYNC
    LD.SHARED.U32 R3, [R1]          // threads 32.. read unwritten slots
    LD.PARAM.U32 R4, [out]
    LEA   R4, R0, R4, 2
    ST.GLOBAL.U32 [R4], R3
    EXIT
