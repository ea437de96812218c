// prefix_scan: inclusive scan (running sum) of each block's elements, u32, wrapping.
//   out[i] = in[b*B] + ... + in[i] for i in block b's range [b*B, b*B + B), i < n
//   sums[b] = the sum of block b's elements (the last inclusive value), which a
//   second pass would scan and add back to obtain a scan of the whole array.
//   B = ntid.x; elements at or past n count as 0 and are not written.
//
// Algorithm: Hillis-Steele in shared memory, double-buffered. Each thread
// stores its element in buf[0][tid]; for offset = 1, 2, 4, ... < B every thread
// reads v = in[tid] (+ in[tid - offset] if tid >= offset) from one buffer and
// writes v to the other, then BAR.SYNC and the buffers swap roles. log2(B)
// steps of one barrier each; O(B log B) adds (Blelloch does O(B) with twice the
// barriers). B may be any size up to 1024 (not only powers of two).
//
// Try it:
//   simt run asm/prefix_scan.s --dump sums
//   simt run asm/prefix_scan.s --grid 2 --block 8 --arg n=12 \
//       --arg 'in=fill(12,1)' --arg 'out=zeros(12)' --arg 'sums=zeros(2)' --dump out
.kernel prefix_scan
.param .u32 n
.param .ptr.u32 in
.param .ptr.u32 out
.param .ptr.u32 sums
.shared .u32 buf[2048]              // two buffers of 1024: buf[0][..], buf[1][..]
.launch grid(12) block(256)
.arg n = 3000
.arg in = rand(3000, 5)
.arg out = zeros(3000)
.arg sums = zeros(12)

    S2R     R0, SR_TID.X
    S2R     R1, SR_CTAID.X
    S2R     R2, SR_NTID.X
    IMAD    R3, R1, R2, R0          // i = ctaid.x * B + tid.x
    LD.PARAM.U32 R4, [n]
    ISETP.LT.U32 P0, R3, R4         // P0: i < n
    LD.PARAM.U32 R6, [in]
    LEA     R6, R3, R6, 2
    MOV     R5, 0
@P0 LD.GLOBAL.U32 R5, [R6]          // v = i < n ? in[i] : 0
    MOV     R7, buf
    LEA     R8, R0, R7, 2           // src = &buf[0][tid]
    IADD    R9, R8, 4096            // dst = &buf[1][tid]
    ST.SHARED.U32 [R8], R5
    BAR.SYNC
    MOV     R10, 1                  // offset
    ISETP.GE.U32 P1, R10, R2
@P1 BRA     DONE
STEP:
    LD.SHARED.U32 R5, [R8]          // v = src[tid]
    ISETP.GE.U32 P2, R0, R10
    SHL     R11, R10, 2
    ISUB    R11, R8, R11            // &src[tid - offset]
@P2 LD.SHARED.U32 R12, [R11]
@P2 IADD    R5, R5, R12             // v += src[tid - offset]
    ST.SHARED.U32 [R9], R5          // dst[tid] = v
    BAR.SYNC                        // one barrier per step: the next step writes
    MOV     R13, R8                 //   the buffer this one read, after everyone
    MOV     R8, R9                  //   has passed this barrier
    MOV     R9, R13                 // swap src and dst
    SHL     R10, R10, 1
    ISETP.LT.U32 P1, R10, R2
@P1 BRA     STEP
DONE:                               // v is this thread's inclusive sum
    LD.PARAM.U32 R14, [out]
    LEA     R14, R3, R14, 2
@P0 ST.GLOBAL.U32 [R14], R5         // out[i]
    IADD    R15, R2, -1
    ISETP.NE P3, R0, R15
@P3 EXIT
    LD.PARAM.U32 R16, [sums]
    LEA     R16, R1, R16, 2
    ST.GLOBAL.U32 [R16], R5         // sums[ctaid.x] (last thread of the block)
    EXIT
