// tcgen05: a 64 x 32 x 16 product D = A x B on datacenter Blackwell's tensor memory (TMEM,
// PTX tcgen05): one thread issues the whole MMA (TCMMA), which accumulates in tensor memory,
// and each warp then loads its rows of D into registers (TMEM.LD).
//   A is 64 x 16 f16 and B 16 x 32 f16, both row-major in global memory; D is 64 x 32 f32.
//
// Warp 0 allocates 32 columns of the block's tensor memory (128 lanes x 512 columns of 32-bit
// cells); TMEM.ALLOC stores their address, lane 0 and the first column, in shared memory.
// The block copies A and B into SHARED memory in the canonical layouts asm/wgmma.s uses (A
// K-major, B N-major, unswizzled); their descriptors are Hopper's with bit 46 set, the constant
// of a Blackwell descriptor (docs/tensor.md, "Tensor memory"). The instruction descriptor
// 0x04090010 says: D f32 (bits 4-5: 1), A and B f16 (bits 7-12: 0), A K-major and B N-major
// (bit 16), N = 32 (bits 17-22: N / 8 = 4), M = 64 (bits 24-28: M / 16 = 4).
// Thread 0 issues it and commits it to an mbarrier, on which every thread waits. With M = 64,
// D's rows 16w .. 16w + 15 lie in TMEM lanes 32w .. 32w + 15, the quarter of the lanes warp w
// may reach: TMEM.LD.16X32BX2.X16 gives lane l of warp w 16 columns of TMEM lane 32w + l % 16,
// row 16w + l % 16 of D: columns 0-15 to lanes 0-15, and, 16 columns on (its last operand),
// columns 16-31 to lanes 16-31, which they store. Warp 0 frees the columns before the block ends.
//
// Try it:
//   simt run asm/tcgen05.s --dump d
//   simt run asm/tcgen05.s --timing b200
.target sm_100
.kernel tcgen05
.param .ptr.f16 a                   // 64 x 16, row-major
.param .ptr.f16 b                   // 16 x 32, row-major
.param .ptr.f32 d                   // 64 x 32, row-major: the product
.shared .align 16 .u32 sA[512]      // A, K-major: 2048 bytes
.shared .align 16 .u32 sB[256]      // B, N-major: 1024 bytes
.shared .align 8 .u32 bar[2]        // the mbarrier the MMA completes on
.shared .align 4 .u32 columns[1]    // the TMEM address TMEM.ALLOC gives
.launch grid(1) block(128)
.arg a = rand(1024, 1)
.arg b = rand(512, 2)
.arg d = zeros(2048)

    S2R     R0, SR_TID.X
    ISETP.LT.U32 P1, R0, 32         // warp 0
@P1 TMEM.ALLOC [columns], 32
    ISETP.EQ.U32 P0, R0, 0
@P0 MBAR.INIT [bar], 1              // one arrival a phase: the commit's
    LD.PARAM.U32 R1, [a]
    LD.PARAM.U32 R2, [b]
    MOV     R3, sA
    MOV     R4, sB
    // A by words w = tid, tid + 128, tid + 256, tid + 384: m = w / 8, k = 2 (w % 8)
    MOV     R5, R0
COPY_A:
    LEA     R6, R5, R1, 2           // &a[2w]
    LD.GLOBAL.U32 R7, [R6]          // A[m][k], A[m][k + 1]
    SHR     R8, R5, 3               // m
    AND     R9, R8, 7
    SHL     R9, R9, 4               // (m % 8) * 16
    SHR     R10, R8, 3
    LEA     R9, R10, R9, 8          // + (m / 8) * 256
    AND     R10, R5, 3
    LEA     R9, R10, R9, 2          // + (k % 8) * 2
    BFE     R10, R5, 2, 1
    LEA     R9, R10, R9, 7          // + (k / 8) * 128
    IADD    R9, R9, R3
    ST.SHARED.U32 [R9], R7
    IADD    R5, R5, 128
    ISETP.LT.U32 P2, R5, 512
@P2 BRA     COPY_A
    // B by words w = tid, tid + 128: k = w / 16, n = 2 (w % 16)
    MOV     R5, R0
COPY_B:
    LEA     R6, R5, R2, 2           // &b[2w]
    LD.GLOBAL.U32 R7, [R6]          // B[k][n], B[k][n + 1]
    AND     R9, R5, 3
    SHL     R9, R9, 2               // (n % 8) * 2
    BFE     R10, R5, 2, 2
    LEA     R9, R10, R9, 7          // + (n / 8) * 128
    BFE     R10, R5, 4, 3
    LEA     R9, R10, R9, 4          // + (k % 8) * 16
    BFE     R10, R5, 7, 1
    LEA     R9, R10, R9, 9          // + (k / 8) * 512
    IADD    R9, R9, R4
    ST.SHARED.U32 [R9], R7
    IADD    R5, R5, 128
    ISETP.LT.U32 P2, R5, 256
@P2 BRA     COPY_B
    BAR.SYNC                        // the tiles, the mbarrier and the TMEM address are there
    LD.SHARED.U32 R14, [columns]    // D's TMEM address: lane 0, its first column
    SHR     R10, R3, 4
    IADD    R10, R10, 0x80000       // A: start, leading 128 bytes (8 << 16)
    MOV     R11, 0x4010             //    stride 256 bytes, bit 46 set, no swizzle
    SHR     R12, R4, 4
    IADD    R12, R12, 0x200000      // B: start, leading 512 bytes (32 << 16)
    MOV     R13, 0x4008             //    stride 128 bytes, bit 46 set, no swizzle
@P0 TCMMA.F16 R14, R10, R12, 0x04090010, !PT   // the whole of D = A x B (!PT: nothing to accumulate)
@P0 TCMMA.COMMIT [bar]              // arrives once thread 0's MMAs are done
WAIT:
    MBAR.TEST P2, [bar], 0          // has phase 0 completed?
@!P2 BRA    WAIT
    SHR     R1, R0, 5               // w
    LEA     R15, R1, R14, 21        // lane 32w of D's address: w << 21 is (32 w) << 16
    TMEM.LD.16X32BX2.X16 R16, [R15], 16   // lane l: TMEM lane 32w + l % 16, columns 16 (l / 16) ..
    S2R     R2, SR_LANEID
    AND     R3, R2, 15
    LEA     R3, R1, R3, 4           // row 16w + l % 16
    SHR     R5, R2, 4               // which 16 columns
    SHL     R3, R3, 7               // row * 128 bytes
    LEA     R3, R5, R3, 6           // + 64 bytes for columns 16-31
    LD.PARAM.U32 R6, [d]
    IADD    R6, R6, R3              // &d[row][16 (l / 16)]
    ST.GLOBAL.V4.B32 [R6], R16
    ST.GLOBAL.V4.B32 [R6+16], R20
    ST.GLOBAL.V4.B32 [R6+32], R24
    ST.GLOBAL.V4.B32 [R6+48], R28
    BAR.SYNC                        // every warp has loaded its rows
@P1 TMEM.DEALLOC R14, 32
    EXIT
