// Sixteen steps of the Collatz map per thread, written two ways. In `collatz`
// each side of the odd/even test counts the step and goes back to the loop on
// its own, so the branch's reconvergence point is after the loop (DONE): once
// the warp splits, the odd lanes and the even lanes each run the rest of the
// loop alone, every later split cuts the groups smaller, and SIMD efficiency
// collapses. The assembler warns about it (loop_divergence). `collatz_joined`
// lets both sides meet at NEXT, inside the loop, and computes the same values
// with the warp together again every step.
// Try it:
//   simt asm asm/divergence/collatz.s -o collatz.simtb   # the warning
//   simt run asm/divergence/collatz.s --kernel collatz --stats --dump n
//   simt run asm/divergence/collatz.s --kernel collatz_joined --stats --dump n
.kernel collatz
.param .ptr.u32 n
.launch grid(1) block(32)
.arg n = zeros(32)
    S2R  R0, SR_TID.X
    IADD R1, R0, 27                 // x = tid + 27
    MOV  R2, 0                      // i
LOOP:
    AND  R3, R1, 1
    ISETP.NE P1, R3, 0
@P1 BRA  ODD                        // splits the warp; the sides meet only at DONE
    SHR  R1, R1, 1                  // even: x / 2
    IADD R2, R2, 1
    ISETP.LT.U32 P0, R2, 16
@P0 BRA  LOOP
    BRA  DONE
ODD:
    IMUL R1, R1, 3                  // odd: 3x + 1
    IADD R1, R1, 1
    IADD R2, R2, 1
    ISETP.LT.U32 P0, R2, 16
@P0 BRA  LOOP
DONE:
    LD.PARAM.U32 R4, [n]
    LEA  R4, R0, R4, 2
    ST.GLOBAL.U32 [R4], R1
    EXIT

.kernel collatz_joined
.param .ptr.u32 n
.launch grid(1) block(32)
.arg n = zeros(32)
    S2R  R0, SR_TID.X
    IADD R1, R0, 27                 // x = tid + 27
    MOV  R2, 0                      // i
LOOP:
    AND  R3, R1, 1
    ISETP.NE P1, R3, 0
@P1 BRA  ODD                        // splits the warp; the sides meet at NEXT
    SHR  R1, R1, 1                  // even: x / 2
    BRA  NEXT
ODD:
    IMUL R1, R1, 3                  // odd: 3x + 1
    IADD R1, R1, 1
NEXT:
    IADD R2, R2, 1
    ISETP.LT.U32 P0, R2, 16
@P0 BRA  LOOP
    LD.PARAM.U32 R4, [n]
    LEA  R4, R0, R4, 2
    ST.GLOBAL.U32 [R4], R1
    EXIT
