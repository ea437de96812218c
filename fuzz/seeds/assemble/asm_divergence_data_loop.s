// A data-dependent loop: lane l iterates (l % 8) times. Lanes leave the loop
// one group at a time and wait at DONE (the loop exit's reconvergence point)
// until the last one arrives, so SIMD efficiency falls as the loop goes on.
//   simt run asm/divergence/data_loop.s --dump out --stats
.kernel data_loop
.param .ptr.u32 out
.launch grid(1) block(64)
.arg out = zeros(64)

    S2R  R0, SR_TID.X
    AND  R4, R0, 7                  // k = tid % 8 iterations
    MOV  R5, 0                      // j
    MOV  R6, 1                      // acc
LOOP:
    ISETP.GE.U32 P0, R5, R4
@P0 BRA  DONE                       // diverges as lanes finish
    IMUL R6, R6, 3
    IADD R5, R5, 1
    BRA  LOOP
DONE:
    LD.PARAM.U32 R8, [out]
    LEA  R9, R0, R8, 2
    ST.GLOBAL.U32 [R9], R6          // 3^k
    EXIT
