// sgemm_naive: C = A x B in f32, all row-major: A is m x k, B is k x n, C is m x n.
//   C[r][c] = sum over kk of A[r][kk] * B[kk][c], one FFMA per product in
//   increasing kk, starting from 0.0.
//
// Algorithm: the textbook first attempt. One thread per output element
// (column = global x, row = global y) walks k with two global loads and one
// FFMA per step: 8 instructions per multiply-add and no reuse through shared
// memory, so it is bound by its loads and its loop overhead. Compare it with
// asm/sgemm.s (shared tiling) in the memory lab and with the timing backend.
// The grid must cover n x m: grid = (ceil(n / 16), ceil(m / 16)), block (16, 16).
//
// Try it:
//   simt run asm/sgemm_naive.s --dump C
//   simt run asm/sgemm_naive.s --grid 32,32 --arg m=512 --arg n=512 --arg k=512 \
//       --arg 'A=rand(262144, 1)' --arg 'B=rand(262144, 2)' --arg 'C=zeros(262144)' --stats
.kernel sgemm_naive
.param .u32 m
.param .u32 n
.param .u32 k
.param .ptr.f32 A
.param .ptr.f32 B
.param .ptr.f32 C
.launch grid(4, 4) block(16, 16)
.arg m = 64
.arg n = 64
.arg k = 64
.arg A = rand(4096, 1)
.arg B = rand(4096, 2)
.arg C = zeros(4096)

    S2R     R0, SR_TID.X
    S2R     R1, SR_CTAID.X
    S2R     R2, SR_NTID.X
    IMAD    R0, R1, R2, R0          // col
    S2R     R1, SR_TID.Y
    S2R     R3, SR_CTAID.Y
    S2R     R2, SR_NTID.Y
    IMAD    R1, R3, R2, R1          // row
    LD.PARAM.U32 R8, [m]
    LD.PARAM.U32 R9, [n]
    LD.PARAM.U32 R12, [k]
    ISETP.GE.U32 P0, R0, R9
    ISETP.GE.U32.OR P0, R1, R8, P0
@P0 EXIT                            // outside C
    LD.PARAM.U32 R3, [A]
    IMAD    R4, R1, R12, RZ         // row * k
    LEA     R3, R4, R3, 2           // &A[row][0]
    LD.PARAM.U32 R4, [B]
    LEA     R4, R0, R4, 2           // &B[0][col]
    SHL     R7, R9, 2               // n * 4: one row of B
    MOV     R10, 0.0                // the sum
    MOV     R11, 0                  // kk
LOOP:
    LD.GLOBAL.F32 R5, [R3]          // A[row][kk]
    LD.GLOBAL.F32 R6, [R4]          // B[kk][col]
    FFMA    R10, R5, R6, R10
    IADD    R3, R3, 4
    IADD    R4, R4, R7
    IADD    R11, R11, 1
    ISETP.LT.U32 P1, R11, R12
@P1 BRA LOOP
    LD.PARAM.U32 R3, [C]
    IMAD    R4, R1, R9, R0          // row * n + col
    LEA     R3, R4, R3, 2
    ST.GLOBAL.F32 [R3], R10
    EXIT
