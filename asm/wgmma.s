// wgmma: one warpgroup's 64 x 32 x 16 product D = A x B on Hopper's warpgroup MMA (WGMMA,
// PTX wgmma.mma_async), its tiles read from shared memory through matrix descriptors.
//   A is 64 x 16 f16 and B 16 x 32 f16, both row-major in global memory; D is 64 x 32 f32.
//
// The block's 128 threads (four warps: one warpgroup) first copy A and B into SHARED memory in
// two of PTX's canonical layouts, unswizzled: "core matrices" of 8 rows of 16 bytes (8 f16),
// 128 bytes each (docs/tensor.md, "WGMMA"):
//   sA, K-major (k contiguous): element (m, k) at
//       (m % 8) * 16 + (m / 8) * 256 + (k % 8) * 2 + (k / 8) * 128,
//     so its leading byte offset (to the next 8 k) is 128, its stride byte offset (to the
//     next 8 m) 256;
//   sB, N-major (n contiguous, as B is stored: WGMMA's .NT, B transposed): element (n, k) at
//       (n % 8) * 2 + (n / 8) * 128 + (k % 8) * 16 + (k / 8) * 512,
//     so its leading byte offset (the next 8 k) is 512, its stride byte offset (the next 8 n) 128.
// A descriptor is start >> 4 | (leading >> 4) << 16 | (stride >> 4) << 32 (swizzle 0, bits
// 62-63). Then warp w computes rows 16w .. 16w + 15 of D: R16 .. R31 are its four m16n8 C
// fragments (columns 0-7, 8-15, 16-23, 24-31), lane l holding rows 16w + l / 4 and + 8,
// columns 2 (l % 4) and + 1 of each, which it stores back row-major.
//
// Try it:
//   simt run asm/wgmma.s --dump d
//   simt run asm/wgmma.s --timing h100
.target sm_90
.kernel wgmma
.param .ptr.f16 a                   // 64 x 16, row-major
.param .ptr.f16 b                   // 16 x 32, row-major
.param .ptr.f32 d                   // 64 x 32, row-major: the product
.shared .align 16 .u32 sA[512]      // A, K-major: 2048 bytes
.shared .align 16 .u32 sB[256]      // B, N-major: 1024 bytes
.launch grid(1) block(128)
.arg a = rand(1024, 1)
.arg b = rand(512, 2)
.arg d = zeros(2048)

    S2R     R0, SR_TID.X
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
    ISETP.LT.U32 P0, R5, 512
@P0 BRA     COPY_A
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
    ISETP.LT.U32 P0, R5, 256
@P0 BRA     COPY_B
    BAR.SYNC                        // the tiles are whole before any warp reads them
    SHR     R10, R3, 4
    IADD    R10, R10, 0x80000       // A: start, leading 128 bytes (8 << 16)
    MOV     R11, 16                 //    stride 256 bytes, no swizzle
    SHR     R12, R4, 4
    IADD    R12, R12, 0x200000      // B: start, leading 512 bytes (32 << 16)
    MOV     R13, 8                  //    stride 128 bytes, no swizzle
    WGMMA.SS.F32.F16.NT R16, R10, R12, 32, !PT   // rows 16w.. of A x B (!PT: nothing to accumulate)
    // lane l: row 16w + l / 4, column 2 (l % 4), in each 8-column slice
    S2R     R1, SR_LANEID
    SHR     R2, R0, 5               // w
    SHR     R3, R1, 2
    LEA     R3, R2, R3, 4           // row
    AND     R5, R1, 3
    SHL     R5, R5, 1               // column
    LEA     R3, R3, R5, 5           // row * 32 + column
    LD.PARAM.U32 R6, [d]
    LEA     R6, R3, R6, 2           // &d[row][column]
    ST.GLOBAL.V2.B32 [R6], R16      // columns 0-7: row, then row + 8 (1024 bytes on)
    ST.GLOBAL.V2.B32 [R6+1024], R18
    ST.GLOBAL.V2.B32 [R6+32], R20   // columns 8-15
    ST.GLOBAL.V2.B32 [R6+1056], R22
    ST.GLOBAL.V2.B32 [R6+64], R24   // columns 16-23
    ST.GLOBAL.V2.B32 [R6+1088], R26
    ST.GLOBAL.V2.B32 [R6+96], R28   // columns 24-31
    ST.GLOBAL.V2.B32 [R6+1120], R30
    EXIT
