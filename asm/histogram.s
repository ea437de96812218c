// histogram: 256-bin histogram of a byte array.
//   hist[v] += the number of bytes of data[0..n) equal to v (hist is added to,
//   so start it at zeros(256)).
//
// Algorithm (privatised histogram): every block keeps its own 256 counters in
// shared memory. The block clears them, BAR.SYNC; its threads walk the data
// grid-stride (thread i reads bytes i, i + T, i + 2T, ..., T = threads in the
// launch) doing ATOM.SHARED.ADD on the byte's counter; BAR.SYNC; then the
// threads add the block's non-zero counters into the global histogram with
// ATOM.GLOBAL.ADD. Shared atomics absorb the contention, and each block issues
// at most 256 global atomics. Integer adds commute, so the result does not
// depend on the order blocks run in. Any grid and block shape works.
//
// Try it:
//   simt run asm/histogram.s --dump hist
//   simt run asm/histogram.s --grid 2 --block 64 --arg n=256 \
//       --arg 'data=iota(256)' --dump hist      # every bin 1
//   simt run asm/histogram.s --arg n=6 --arg 'data=[1,2,2,3,3,3]' --dump hist
.kernel histogram
.param .u32 n
.param .ptr.u8 data
.param .ptr.u32 hist
.shared .u32 bins[256]
.launch grid(16) block(256)
.arg n = 50000
.arg data = rand(50000, 6)
.arg hist = zeros(256)

    S2R     R0, SR_TID.X
    S2R     R1, SR_CTAID.X
    S2R     R2, SR_NTID.X
    MOV     R3, bins
    MOV     R4, R0                  // j = tid
CLEAR:                              // bins[j] = 0 for j = tid, tid + B, ... < 256
    ISETP.GE.U32 P0, R4, 256
@P0 BRA     CLEARED
    LEA     R5, R4, R3, 2
    ST.SHARED.U32 [R5], RZ
    IADD    R4, R4, R2
    BRA     CLEAR
CLEARED:
    BAR.SYNC
    IMAD    R6, R1, R2, R0          // i = ctaid.x * ntid.x + tid.x
    S2R     R7, SR_NCTAID.X
    IMUL    R7, R7, R2              // T
    LD.PARAM.U32 R8, [n]
    LD.PARAM.U32 R9, [data]
COUNT:
    ISETP.GE.U32 P0, R6, R8
@P0 BRA     COUNTED
    IADD    R10, R9, R6
    LD.GLOBAL.U8 R11, [R10]         // v = data[i]
    LEA     R12, R11, R3, 2
    ATOM.SHARED.ADD.U32 RZ, [R12], 1    // bins[v] += 1
    IADD    R6, R6, R7
    BRA     COUNT
COUNTED:
    BAR.SYNC
    LD.PARAM.U32 R13, [hist]
    MOV     R4, R0                  // j = tid
MERGE:
    ISETP.GE.U32 P0, R4, 256
@P0 EXIT
    LEA     R5, R4, R3, 2
    LD.SHARED.U32 R14, [R5]
    ISETP.NE P1, R14, 0
    LEA     R15, R4, R13, 2
@P1 ATOM.GLOBAL.ADD.U32 RZ, [R15], R14  // hist[j] += bins[j]
    IADD    R4, R4, R2
    BRA     MERGE
