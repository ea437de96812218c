// vector_add: c[i] = a[i] + b[i] for every i < n (f32).
//
// Algorithm: a grid-stride loop. Thread i of the launch handles elements
// i, i + T, i + 2T, ... where T = nctaid.x * ntid.x is the number of threads in
// the launch, so any grid/block shape covers any n (threads whose first index
// is already past n leave at once).
//
// The buffers must hold at least n elements.
//
// Try it:
//   simt run asm/vector_add.s --dump c
//   simt run asm/vector_add.s --grid 3 --block 64 --arg n=1000 \
//       --arg 'a=iota(1000)' --arg 'b=fill(1000,0.5)' --arg 'c=zeros(1000)' --dump c
.kernel vector_add
.param .u32 n
.param .ptr.f32 a
.param .ptr.f32 b
.param .ptr.f32 c
.launch grid(8) block(128)
.arg n = 10000
.arg a = rand(10000, 1)
.arg b = rand(10000, 2)
.arg c = zeros(10000)

    S2R     R0, SR_TID.X
    S2R     R1, SR_CTAID.X
    S2R     R2, SR_NTID.X
    IMAD    R0, R1, R2, R0          // i = ctaid.x * ntid.x + tid.x
    S2R     R3, SR_NCTAID.X
    IMUL    R3, R3, R2              // stride T = nctaid.x * ntid.x
    LD.PARAM.U32 R4, [n]
    LD.PARAM.U32 R5, [a]
    LD.PARAM.U32 R6, [b]
    LD.PARAM.U32 R7, [c]
    ISETP.GE.U32 P0, R0, R4
@P0 EXIT                            // nothing to do for this thread
LOOP:
    SHL     R8, R0, 2               // byte offset of element i
    IADD    R9, R5, R8
    LD.GLOBAL.F32 R10, [R9]         // a[i]
    IADD    R9, R6, R8
    LD.GLOBAL.F32 R11, [R9]         // b[i]
    FADD    R10, R10, R11
    IADD    R9, R7, R8
    ST.GLOBAL.F32 [R9], R10         // c[i] = a[i] + b[i]
    IADD    R0, R0, R3              // i += T
    ISETP.LT.U32 P0, R0, R4
@P0 BRA     LOOP
    EXIT
