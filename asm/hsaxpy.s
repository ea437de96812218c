// hsaxpy: y[i] = a * x[i] + y[i] for every i < n, in f16, two elements an instruction.
//
// Algorithm: thread t handles the pair of halves 2t, 2t + 1 of x and y, one 32-bit word
// each: it loads both words, multiplies and adds both halves with one HFMA2 (each half
// rounded once, as `__hfma2` does) and stores the word back. `a` comes as an f32 and is
// rounded to f16 in both halves of a register (PACK.F16X2), once per thread.
// n must be even (an odd n would leave its last element to a thread that loads past it),
// and the grid must cover n / 2 pairs: grid.x * block.x * 2 >= n.
// Under the timing backend HFMA2 issues as FFMA does, so the same instruction count does
// twice the FLOPs of saxpy.s (and moves half the bytes).
//
// Try it:
//   simt run asm/hsaxpy.s --dump y
//   simt run asm/hsaxpy.s --arg a=-1 --arg 'x=iota(1000)' --arg 'y=fill(1000, 0.5)' --dump y
.kernel hsaxpy
.param .u32 n
.param .f32 a
.param .ptr.f16 x
.param .ptr.f16 y
.launch grid(2) block(256)
.arg n = 1000
.arg a = 2.5
.arg x = rand(1000, 1)
.arg y = rand(1000, 2)

    S2R     R0, SR_TID.X
    S2R     R1, SR_CTAID.X
    S2R     R2, SR_NTID.X
    IMAD    R0, R1, R2, R0          // t = ctaid.x * ntid.x + tid.x
    SHL     R9, R0, 1               // its first element, 2t
    LD.PARAM.U32 R3, [n]
    ISETP.GE.U32 P0, R9, R3
@P0 EXIT                            // threads past the end leave early
    LD.PARAM.U32 R4, [x]
    LD.PARAM.U32 R5, [y]
    LEA     R4, R0, R4, 2           // &x[2t], a word of two halves
    LEA     R5, R0, R5, 2           // &y[2t]
    LD.GLOBAL.B32 R6, [R4]
    LD.GLOBAL.B32 R7, [R5]
    LD.PARAM.F32 R8, [a]
    PACK.F16X2 R8, R8, R8           // (a, a) in f16
    HFMA2   R7, R8, R6, R7          // a * x + y on both halves, each rounded once
    ST.GLOBAL.B32 [R5], R7
    EXIT
