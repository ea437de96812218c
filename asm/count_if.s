// count_if: per block, how many elements of a u32 array exceed a threshold, and whether
// all or any of them do, from the block barrier's reductions (CUDA's __syncthreads_count,
// __syncthreads_and and __syncthreads_or; PTX bar.red):
//   count[b] = #{ i in block b, i < n : in[i] > t }
//   flags[b] = all | any << 1, all = every such in[i] > t, any = some in[i] > t
// (a block past n has no elements: its count is 0, all is 1 and any is 0).
//
// Algorithm: each thread decides its own element; one BAR.RED per question waits for the
// whole block, as BAR.SYNC does, and hands every thread the answer. No shared memory.
// Thread 0 writes the block's answers.
//
// Try it:
//   simt run asm/count_if.s --dump count --dump flags
//   simt run asm/count_if.s --grid 2 --block 64 --arg n=100 --arg t=49 \
//       --arg 'in=iota(100)' --arg 'count=zeros(2)' --arg 'flags=zeros(2)' \
//       --dump count --dump flags       # count 14 36, flags 2 3
.kernel count_if
.param .u32 n
.param .u32 t
.param .ptr.u32 in
.param .ptr.u32 count
.param .ptr.u32 flags
.launch grid(40) block(256)
.arg n = 10000
.arg t = 4000000000
.arg in = rand(10000, 5)
.arg count = zeros(40)
.arg flags = zeros(40)

    S2R     R0, SR_TID.X
    S2R     R1, SR_CTAID.X
    S2R     R2, SR_NTID.X
    IMAD    R3, R1, R2, R0          // i = ctaid.x * B + tid.x
    LD.PARAM.U32 R4, [n]
    ISETP.LT.U32 P0, R3, R4         // i < n: the thread has an element
    LD.PARAM.U32 R5, [in]
    LEA     R5, R3, R5, 2           // &in[i]
    MOV     R6, 0
@P0 LD.GLOBAL.U32 R6, [R5]
    LD.PARAM.U32 R7, [t]
    ISETP.GT.U32.AND P1, R6, R7, P0 // an element above t
    ISETP.LE.U32.AND P2, R6, R7, P0 // an element not above t
    BAR.RED.POPC R8, P1             // how many are above
    BAR.RED.AND R9, !P2             // none is not above
    BAR.RED.OR R10, P1              // one is above
    ISETP.NE P3, R0, 0
@P3 EXIT                            // thread 0 writes the answers
    LD.PARAM.U32 R11, [count]
    LEA     R11, R1, R11, 2
    ST.GLOBAL.U32 [R11], R8
    LEA     R12, R10, R9, 1         // all | any << 1
    LD.PARAM.U32 R13, [flags]
    LEA     R13, R1, R13, 2
    ST.GLOBAL.U32 [R13], R12
    EXIT
