// block_reduce: partial sums of a u32 array, one per block (wrapping 32-bit adds).
//   out[b] = in[b*B] + in[b*B + 1] + ... + in[b*B + B - 1]   (B = ntid.x,
//   elements at or past n count as 0); the total is the sum of out.
//
// Algorithm: the classic shared-memory tree. Each thread loads one element
// into buf[tid]; then for stride = B/2, B/4, ..., 1 the threads tid < stride
// add buf[tid + stride] into buf[tid], with BAR.SYNC after every step so the
// next step sees the whole previous one. Thread 0 writes buf[0].
// B must be a power of two, at most 1024; the grid should be ceil(n / B).
//
// Try it:
//   simt run asm/block_reduce.s --dump out
//   simt run asm/block_reduce.s --grid 4 --block 128 --arg n=500 \
//       --arg 'in=iota(500)' --arg 'out=zeros(4)' --dump out     # 8128 24512 40896 51214
.kernel block_reduce
.param .u32 n
.param .ptr.u32 in
.param .ptr.u32 out
.shared .u32 buf[1024]
.launch grid(40) block(256)
.arg n = 10000
.arg in = rand(10000, 3)
.arg out = zeros(40)

    S2R     R0, SR_TID.X
    S2R     R1, SR_CTAID.X
    S2R     R2, SR_NTID.X
    IMAD    R3, R1, R2, R0          // i = ctaid.x * B + tid.x
    LD.PARAM.U32 R4, [n]
    ISETP.LT.U32 P0, R3, R4
    LD.PARAM.U32 R6, [in]
    LEA     R6, R3, R6, 2           // &in[i]
    MOV     R5, 0
@P0 LD.GLOBAL.U32 R5, [R6]          // x = i < n ? in[i] : 0
    MOV     R7, buf
    LEA     R8, R0, R7, 2           // &buf[tid]
    ST.SHARED.U32 [R8], R5
    BAR.SYNC
    SHR.U32 R9, R2, 1               // stride = B / 2
    ISETP.EQ P1, R9, 0
@P1 BRA     DONE                    // a block of one thread has nothing to add
STEP:
    ISETP.GE.U32 P1, R0, R9
@P1 BRA     SKIP                    // only tid < stride works in this step
    LEA     R10, R9, R8, 2          // &buf[tid + stride]
    LD.SHARED.U32 R11, [R10]
    LD.SHARED.U32 R12, [R8]
    IADD    R12, R12, R11
    ST.SHARED.U32 [R8], R12
SKIP:
    BAR.SYNC                        // every thread, every step
    SHR.U32 R9, R9, 1
    ISETP.NE P1, R9, 0
@P1 BRA     STEP
DONE:
    ISETP.NE P2, R0, 0
@P2 EXIT
    LD.SHARED.U32 R13, [R7]         // buf[0]: the block's sum
    LD.PARAM.U32 R14, [out]
    LEA     R14, R1, R14, 2
    ST.GLOBAL.U32 [R14], R13        // out[ctaid.x]
    EXIT
