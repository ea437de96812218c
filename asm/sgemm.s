// sgemm: C = A x B in f32, all row-major: A is m x k, B is k x n, C is m x n.
//   C[r][c] = sum over kk of A[r][kk] * B[kk][c], accumulated with one FFMA per
//   product in increasing kk, starting from 0.0 (C's old contents are ignored).
//
// Algorithm: shared-memory tiling with register blocking. Block (bx, by) of
// 16x16 threads computes the 64x64 tile of C at rows 64*by.., columns 64*bx..;
// thread (tx, ty) owns the 4x4 outputs at rows 64*by + 4*ty + i and columns
// 64*bx + 4*tx + j, kept in registers R32..R47 (R32 + 4i + j). The k
// dimension is walked in steps of 16:
//   - the block copies the 64x16 slice of A (stored transposed, As[kk][row],
//     rows padded to 68 floats) and the 16x64 slice of B (Bs[kk][col]) into
//     shared memory, 4 elements of each per thread, zero outside the matrices;
//   - BAR.SYNC;
//   - the fully unrolled inner loop: for each of the 16 kk, two LD.SHARED.V4
//     (4 A values of the thread's rows, 4 B values of its columns) feed 16
//     FFMAs -- 256 FFMAs per 32 shared loads per tile, which makes this kernel
//     the interpreter's FFMA-throughput benchmark;
//   - BAR.SYNC before the next slice overwrites the tiles.
// Finally each thread stores its 4x4 outputs, guarded at the edges.
// Any m, n, k >= 1 work (partial tiles are padded with zeros, which adds exact
// 0.0 terms); the grid must be (ceil(n / 64), ceil(m / 64)) and the block (16, 16).
//
// Try it:
//   simt run asm/sgemm.s --dump C
//   simt run asm/sgemm.s --grid 2,1 --arg m=3 --arg n=65 --arg k=2 \
//       --arg 'A=[1,2,3,4,5,6]' --arg 'B=fill(130,1)' --arg 'C=zeros(195)' --dump C
.kernel sgemm
.param .u32 m
.param .u32 n
.param .u32 k
.param .ptr.f32 A
.param .ptr.f32 B
.param .ptr.f32 C
.shared .align 16 .f32 As[1088]     // 16 x 68: As[kk][row], padded rows
.shared .align 16 .f32 Bs[1024]     // 16 x 64: Bs[kk][col]
.launch grid(2, 2) block(16, 16)
.arg m = 128
.arg n = 128
.arg k = 128
.arg A = rand(16384, 1)
.arg B = rand(16384, 2)
.arg C = zeros(16384)

    S2R     R0, SR_TID.X            // tx
    S2R     R1, SR_TID.Y            // ty
    S2R     R2, SR_CTAID.X
    SHL     R2, R2, 6               // col0 = 64 * ctaid.x
    S2R     R3, SR_CTAID.Y
    SHL     R3, R3, 6               // row0 = 64 * ctaid.y
    LD.PARAM.U32 R4, [m]
    LD.PARAM.U32 R5, [n]
    LD.PARAM.U32 R6, [k]
    LD.PARAM.U32 R7, [A]
    LD.PARAM.U32 R8, [B]
    LD.PARAM.U32 R9, [C]
    LEA     R10, R1, R0, 4          // tid = ty * 16 + tx
    // A slice: thread loads rows row0 + (tid >> 4) + 16q, column k0 + (tid & 15)
    AND     R11, R10, 15            // lka = tid & 15
    SHR.U32 R12, R10, 4             // lra = tid >> 4
    IADD    R13, R3, R12            // ra = row0 + lra (+ 16q)
    IMAD    R14, R11, 68, R12       // lka * 68 + lra
    MOV     R15, As
    LEA     R14, R14, R15, 2        // &As[lka][lra]
    // B slice: thread loads row k0 + (tid >> 6) + 4q, column col0 + (tid & 63)
    AND     R16, R10, 63            // lcb
    SHR.U32 R17, R10, 6             // lkb
    IADD    R18, R2, R16            // cb = col0 + lcb
    ISETP.LT.U32 P2, R18, R5        // P2: cb < n
    MOV     R19, Bs
    LEA     R20, R17, R16, 6        // lkb * 64 + lcb
    LEA     R20, R20, R19, 2        // &Bs[lkb][lcb]
    // the thread's rows of As and columns of Bs for the inner loop
    LEA     R21, R1, R15, 4         // &As[0][4 * ty]
    LEA     R22, R0, R19, 4         // &Bs[0][4 * tx]
    MOV     R32, 0.0
    MOV     R33, 0.0
    MOV     R34, 0.0
    MOV     R35, 0.0
    MOV     R36, 0.0
    MOV     R37, 0.0
    MOV     R38, 0.0
    MOV     R39, 0.0
    MOV     R40, 0.0
    MOV     R41, 0.0
    MOV     R42, 0.0
    MOV     R43, 0.0
    MOV     R44, 0.0
    MOV     R45, 0.0
    MOV     R46, 0.0
    MOV     R47, 0.0
    MOV     R23, 0                  // k0
TILE:
    IADD    R24, R23, R11           // kk = k0 + lka
    ISETP.LT.U32 P0, R24, R6        // kk < k
    IADD    R25, R13, 0
    ISETP.LT.U32.AND P1, R25, R4, P0
    IMAD    R26, R25, R6, R24       // (ra + 16q) * k + kk
    LEA     R26, R26, R7, 2
    MOV     R27, 0.0
@P1 LD.GLOBAL.F32 R27, [R26]
    ST.SHARED.F32 [R14+0], R27  // As[lka][lra + 0]
    IADD    R25, R13, 16
    ISETP.LT.U32.AND P1, R25, R4, P0
    IMAD    R26, R25, R6, R24       // (ra + 16q) * k + kk
    LEA     R26, R26, R7, 2
    MOV     R27, 0.0
@P1 LD.GLOBAL.F32 R27, [R26]
    ST.SHARED.F32 [R14+64], R27  // As[lka][lra + 16]
    IADD    R25, R13, 32
    ISETP.LT.U32.AND P1, R25, R4, P0
    IMAD    R26, R25, R6, R24       // (ra + 16q) * k + kk
    LEA     R26, R26, R7, 2
    MOV     R27, 0.0
@P1 LD.GLOBAL.F32 R27, [R26]
    ST.SHARED.F32 [R14+128], R27  // As[lka][lra + 32]
    IADD    R25, R13, 48
    ISETP.LT.U32.AND P1, R25, R4, P0
    IMAD    R26, R25, R6, R24       // (ra + 16q) * k + kk
    LEA     R26, R26, R7, 2
    MOV     R27, 0.0
@P1 LD.GLOBAL.F32 R27, [R26]
    ST.SHARED.F32 [R14+192], R27  // As[lka][lra + 48]
    IADD    R24, R23, R17
    ISETP.LT.U32.AND P1, R24, R6, P2
    IMAD    R26, R24, R5, R18       // (k0 + lkb + 4q) * n + cb
    LEA     R26, R26, R8, 2
    MOV     R27, 0.0
@P1 LD.GLOBAL.F32 R27, [R26]
    ST.SHARED.F32 [R20+0], R27  // Bs[lkb + 0][lcb]
    IADD    R24, R23, R17
    IADD    R24, R24, 4
    ISETP.LT.U32.AND P1, R24, R6, P2
    IMAD    R26, R24, R5, R18       // (k0 + lkb + 4q) * n + cb
    LEA     R26, R26, R8, 2
    MOV     R27, 0.0
@P1 LD.GLOBAL.F32 R27, [R26]
    ST.SHARED.F32 [R20+1024], R27  // Bs[lkb + 4][lcb]
    IADD    R24, R23, R17
    IADD    R24, R24, 8
    ISETP.LT.U32.AND P1, R24, R6, P2
    IMAD    R26, R24, R5, R18       // (k0 + lkb + 4q) * n + cb
    LEA     R26, R26, R8, 2
    MOV     R27, 0.0
@P1 LD.GLOBAL.F32 R27, [R26]
    ST.SHARED.F32 [R20+2048], R27  // Bs[lkb + 8][lcb]
    IADD    R24, R23, R17
    IADD    R24, R24, 12
    ISETP.LT.U32.AND P1, R24, R6, P2
    IMAD    R26, R24, R5, R18       // (k0 + lkb + 4q) * n + cb
    LEA     R26, R26, R8, 2
    MOV     R27, 0.0
@P1 LD.GLOBAL.F32 R27, [R26]
    ST.SHARED.F32 [R20+3072], R27  // Bs[lkb + 12][lcb]
    BAR.SYNC
    LD.SHARED.V4.B32 R48, [R21+0]   // a = As[0][4ty .. 4ty+3]
    LD.SHARED.V4.B32 R52, [R22+0]   // b = Bs[0][4tx .. 4tx+3]
    FFMA    R32, R48, R52, R32
    FFMA    R33, R48, R53, R33
    FFMA    R34, R48, R54, R34
    FFMA    R35, R48, R55, R35
    FFMA    R36, R49, R52, R36
    FFMA    R37, R49, R53, R37
    FFMA    R38, R49, R54, R38
    FFMA    R39, R49, R55, R39
    FFMA    R40, R50, R52, R40
    FFMA    R41, R50, R53, R41
    FFMA    R42, R50, R54, R42
    FFMA    R43, R50, R55, R43
    FFMA    R44, R51, R52, R44
    FFMA    R45, R51, R53, R45
    FFMA    R46, R51, R54, R46
    FFMA    R47, R51, R55, R47
    LD.SHARED.V4.B32 R48, [R21+272]   // a = As[1][4ty .. 4ty+3]
    LD.SHARED.V4.B32 R52, [R22+256]   // b = Bs[1][4tx .. 4tx+3]
    FFMA    R32, R48, R52, R32
    FFMA    R33, R48, R53, R33
    FFMA    R34, R48, R54, R34
    FFMA    R35, R48, R55, R35
    FFMA    R36, R49, R52, R36
    FFMA    R37, R49, R53, R37
    FFMA    R38, R49, R54, R38
    FFMA    R39, R49, R55, R39
    FFMA    R40, R50, R52, R40
    FFMA    R41, R50, R53, R41
    FFMA    R42, R50, R54, R42
    FFMA    R43, R50, R55, R43
    FFMA    R44, R51, R52, R44
    FFMA    R45, R51, R53, R45
    FFMA    R46, R51, R54, R46
    FFMA    R47, R51, R55, R47
    LD.SHARED.V4.B32 R48, [R21+544]   // a = As[2][4ty .. 4ty+3]
    LD.SHARED.V4.B32 R52, [R22+512]   // b = Bs[2][4tx .. 4tx+3]
    FFMA    R32, R48, R52, R32
    FFMA    R33, R48, R53, R33
    FFMA    R34, R48, R54, R34
    FFMA    R35, R48, R55, R35
    FFMA    R36, R49, R52, R36
    FFMA    R37, R49, R53, R37
    FFMA    R38, R49, R54, R38
    FFMA    R39, R49, R55, R39
    FFMA    R40, R50, R52, R40
    FFMA    R41, R50, R53, R41
    FFMA    R42, R50, R54, R42
    FFMA    R43, R50, R55, R43
    FFMA    R44, R51, R52, R44
    FFMA    R45, R51, R53, R45
    FFMA    R46, R51, R54, R46
    FFMA    R47, R51, R55, R47
    LD.SHARED.V4.B32 R48, [R21+816]   // a = As[3][4ty .. 4ty+3]
    LD.SHARED.V4.B32 R52, [R22+768]   // b = Bs[3][4tx .. 4tx+3]
    FFMA    R32, R48, R52, R32
    FFMA    R33, R48, R53, R33
    FFMA    R34, R48, R54, R34
    FFMA    R35, R48, R55, R35
    FFMA    R36, R49, R52, R36
    FFMA    R37, R49, R53, R37
    FFMA    R38, R49, R54, R38
    FFMA    R39, R49, R55, R39
    FFMA    R40, R50, R52, R40
    FFMA    R41, R50, R53, R41
    FFMA    R42, R50, R54, R42
    FFMA    R43, R50, R55, R43
    FFMA    R44, R51, R52, R44
    FFMA    R45, R51, R53, R45
    FFMA    R46, R51, R54, R46
    FFMA    R47, R51, R55, R47
    LD.SHARED.V4.B32 R48, [R21+1088]   // a = As[4][4ty .. 4ty+3]
    LD.SHARED.V4.B32 R52, [R22+1024]   // b = Bs[4][4tx .. 4tx+3]
    FFMA    R32, R48, R52, R32
    FFMA    R33, R48, R53, R33
    FFMA    R34, R48, R54, R34
    FFMA    R35, R48, R55, R35
    FFMA    R36, R49, R52, R36
    FFMA    R37, R49, R53, R37
    FFMA    R38, R49, R54, R38
    FFMA    R39, R49, R55, R39
    FFMA    R40, R50, R52, R40
    FFMA    R41, R50, R53, R41
    FFMA    R42, R50, R54, R42
    FFMA    R43, R50, R55, R43
    FFMA    R44, R51, R52, R44
    FFMA    R45, R51, R53, R45
    FFMA    R46, R51, R54, R46
    FFMA    R47, R51, R55, R47
    LD.SHARED.V4.B32 R48, [R21+1360]   // a = As[5][4ty .. 4ty+3]
    LD.SHARED.V4.B32 R52, [R22+1280]   // b = Bs[5][4tx .. 4tx+3]
    FFMA    R32, R48, R52, R32
    FFMA    R33, R48, R53, R33
    FFMA    R34, R48, R54, R34
    FFMA    R35, R48, R55, R35
    FFMA    R36, R49, R52, R36
    FFMA    R37, R49, R53, R37
    FFMA    R38, R49, R54, R38
    FFMA    R39, R49, R55, R39
    FFMA    R40, R50, R52, R40
    FFMA    R41, R50, R53, R41
    FFMA    R42, R50, R54, R42
    FFMA    R43, R50, R55, R43
    FFMA    R44, R51, R52, R44
    FFMA    R45, R51, R53, R45
    FFMA    R46, R51, R54, R46
    FFMA    R47, R51, R55, R47
    LD.SHARED.V4.B32 R48, [R21+1632]   // a = As[6][4ty .. 4ty+3]
    LD.SHARED.V4.B32 R52, [R22+1536]   // b = Bs[6][4tx .. 4tx+3]
    FFMA    R32, R48, R52, R32
    FFMA    R33, R48, R53, R33
    FFMA    R34, R48, R54, R34
    FFMA    R35, R48, R55, R35
    FFMA    R36, R49, R52, R36
    FFMA    R37, R49, R53, R37
    FFMA    R38, R49, R54, R38
    FFMA    R39, R49, R55, R39
    FFMA    R40, R50, R52, R40
    FFMA    R41, R50, R53, R41
    FFMA    R42, R50, R54, R42
    FFMA    R43, R50, R55, R43
    FFMA    R44, R51, R52, R44
    FFMA    R45, R51, R53, R45
    FFMA    R46, R51, R54, R46
    FFMA    R47, R51, R55, R47
    LD.SHARED.V4.B32 R48, [R21+1904]   // a = As[7][4ty .. 4ty+3]
    LD.SHARED.V4.B32 R52, [R22+1792]   // b = Bs[7][4tx .. 4tx+3]
    FFMA    R32, R48, R52, R32
    FFMA    R33, R48, R53, R33
    FFMA    R34, R48, R54, R34
    FFMA    R35, R48, R55, R35
    FFMA    R36, R49, R52, R36
    FFMA    R37, R49, R53, R37
    FFMA    R38, R49, R54, R38
    FFMA    R39, R49, R55, R39
    FFMA    R40, R50, R52, R40
    FFMA    R41, R50, R53, R41
    FFMA    R42, R50, R54, R42
    FFMA    R43, R50, R55, R43
    FFMA    R44, R51, R52, R44
    FFMA    R45, R51, R53, R45
    FFMA    R46, R51, R54, R46
    FFMA    R47, R51, R55, R47
    LD.SHARED.V4.B32 R48, [R21+2176]   // a = As[8][4ty .. 4ty+3]
    LD.SHARED.V4.B32 R52, [R22+2048]   // b = Bs[8][4tx .. 4tx+3]
    FFMA    R32, R48, R52, R32
    FFMA    R33, R48, R53, R33
    FFMA    R34, R48, R54, R34
    FFMA    R35, R48, R55, R35
    FFMA    R36, R49, R52, R36
    FFMA    R37, R49, R53, R37
    FFMA    R38, R49, R54, R38
    FFMA    R39, R49, R55, R39
    FFMA    R40, R50, R52, R40
    FFMA    R41, R50, R53, R41
    FFMA    R42, R50, R54, R42
    FFMA    R43, R50, R55, R43
    FFMA    R44, R51, R52, R44
    FFMA    R45, R51, R53, R45
    FFMA    R46, R51, R54, R46
    FFMA    R47, R51, R55, R47
    LD.SHARED.V4.B32 R48, [R21+2448]   // a = As[9][4ty .. 4ty+3]
    LD.SHARED.V4.B32 R52, [R22+2304]   // b = Bs[9][4tx .. 4tx+3]
    FFMA    R32, R48, R52, R32
    FFMA    R33, R48, R53, R33
    FFMA    R34, R48, R54, R34
    FFMA    R35, R48, R55, R35
    FFMA    R36, R49, R52, R36
    FFMA    R37, R49, R53, R37
    FFMA    R38, R49, R54, R38
    FFMA    R39, R49, R55, R39
    FFMA    R40, R50, R52, R40
    FFMA    R41, R50, R53, R41
    FFMA    R42, R50, R54, R42
    FFMA    R43, R50, R55, R43
    FFMA    R44, R51, R52, R44
    FFMA    R45, R51, R53, R45
    FFMA    R46, R51, R54, R46
    FFMA    R47, R51, R55, R47
    LD.SHARED.V4.B32 R48, [R21+2720]   // a = As[10][4ty .. 4ty+3]
    LD.SHARED.V4.B32 R52, [R22+2560]   // b = Bs[10][4tx .. 4tx+3]
    FFMA    R32, R48, R52, R32
    FFMA    R33, R48, R53, R33
    FFMA    R34, R48, R54, R34
    FFMA    R35, R48, R55, R35
    FFMA    R36, R49, R52, R36
    FFMA    R37, R49, R53, R37
    FFMA    R38, R49, R54, R38
    FFMA    R39, R49, R55, R39
    FFMA    R40, R50, R52, R40
    FFMA    R41, R50, R53, R41
    FFMA    R42, R50, R54, R42
    FFMA    R43, R50, R55, R43
    FFMA    R44, R51, R52, R44
    FFMA    R45, R51, R53, R45
    FFMA    R46, R51, R54, R46
    FFMA    R47, R51, R55, R47
    LD.SHARED.V4.B32 R48, [R21+2992]   // a = As[11][4ty .. 4ty+3]
    LD.SHARED.V4.B32 R52, [R22+2816]   // b = Bs[11][4tx .. 4tx+3]
    FFMA    R32, R48, R52, R32
    FFMA    R33, R48, R53, R33
    FFMA    R34, R48, R54, R34
    FFMA    R35, R48, R55, R35
    FFMA    R36, R49, R52, R36
    FFMA    R37, R49, R53, R37
    FFMA    R38, R49, R54, R38
    FFMA    R39, R49, R55, R39
    FFMA    R40, R50, R52, R40
    FFMA    R41, R50, R53, R41
    FFMA    R42, R50, R54, R42
    FFMA    R43, R50, R55, R43
    FFMA    R44, R51, R52, R44
    FFMA    R45, R51, R53, R45
    FFMA    R46, R51, R54, R46
    FFMA    R47, R51, R55, R47
    LD.SHARED.V4.B32 R48, [R21+3264]   // a = As[12][4ty .. 4ty+3]
    LD.SHARED.V4.B32 R52, [R22+3072]   // b = Bs[12][4tx .. 4tx+3]
    FFMA    R32, R48, R52, R32
    FFMA    R33, R48, R53, R33
    FFMA    R34, R48, R54, R34
    FFMA    R35, R48, R55, R35
    FFMA    R36, R49, R52, R36
    FFMA    R37, R49, R53, R37
    FFMA    R38, R49, R54, R38
    FFMA    R39, R49, R55, R39
    FFMA    R40, R50, R52, R40
    FFMA    R41, R50, R53, R41
    FFMA    R42, R50, R54, R42
    FFMA    R43, R50, R55, R43
    FFMA    R44, R51, R52, R44
    FFMA    R45, R51, R53, R45
    FFMA    R46, R51, R54, R46
    FFMA    R47, R51, R55, R47
    LD.SHARED.V4.B32 R48, [R21+3536]   // a = As[13][4ty .. 4ty+3]
    LD.SHARED.V4.B32 R52, [R22+3328]   // b = Bs[13][4tx .. 4tx+3]
    FFMA    R32, R48, R52, R32
    FFMA    R33, R48, R53, R33
    FFMA    R34, R48, R54, R34
    FFMA    R35, R48, R55, R35
    FFMA    R36, R49, R52, R36
    FFMA    R37, R49, R53, R37
    FFMA    R38, R49, R54, R38
    FFMA    R39, R49, R55, R39
    FFMA    R40, R50, R52, R40
    FFMA    R41, R50, R53, R41
    FFMA    R42, R50, R54, R42
    FFMA    R43, R50, R55, R43
    FFMA    R44, R51, R52, R44
    FFMA    R45, R51, R53, R45
    FFMA    R46, R51, R54, R46
    FFMA    R47, R51, R55, R47
    LD.SHARED.V4.B32 R48, [R21+3808]   // a = As[14][4ty .. 4ty+3]
    LD.SHARED.V4.B32 R52, [R22+3584]   // b = Bs[14][4tx .. 4tx+3]
    FFMA    R32, R48, R52, R32
    FFMA    R33, R48, R53, R33
    FFMA    R34, R48, R54, R34
    FFMA    R35, R48, R55, R35
    FFMA    R36, R49, R52, R36
    FFMA    R37, R49, R53, R37
    FFMA    R38, R49, R54, R38
    FFMA    R39, R49, R55, R39
    FFMA    R40, R50, R52, R40
    FFMA    R41, R50, R53, R41
    FFMA    R42, R50, R54, R42
    FFMA    R43, R50, R55, R43
    FFMA    R44, R51, R52, R44
    FFMA    R45, R51, R53, R45
    FFMA    R46, R51, R54, R46
    FFMA    R47, R51, R55, R47
    LD.SHARED.V4.B32 R48, [R21+4080]   // a = As[15][4ty .. 4ty+3]
    LD.SHARED.V4.B32 R52, [R22+3840]   // b = Bs[15][4tx .. 4tx+3]
    FFMA    R32, R48, R52, R32
    FFMA    R33, R48, R53, R33
    FFMA    R34, R48, R54, R34
    FFMA    R35, R48, R55, R35
    FFMA    R36, R49, R52, R36
    FFMA    R37, R49, R53, R37
    FFMA    R38, R49, R54, R38
    FFMA    R39, R49, R55, R39
    FFMA    R40, R50, R52, R40
    FFMA    R41, R50, R53, R41
    FFMA    R42, R50, R54, R42
    FFMA    R43, R50, R55, R43
    FFMA    R44, R51, R52, R44
    FFMA    R45, R51, R53, R45
    FFMA    R46, R51, R54, R46
    FFMA    R47, R51, R55, R47
    BAR.SYNC
    IADD    R23, R23, 16
    ISETP.LT.U32 P0, R23, R6
@P0 BRA     TILE
    // store the 4x4 outputs
    LEA     R28, R1, R3, 2          // r = row0 + 4 * ty
    LEA     R29, R0, R2, 2          // c = col0 + 4 * tx
    MOV     R30, R28
    ISETP.LT.U32 P0, R30, R4
    IMAD    R31, R30, R5, R29
    LEA     R31, R31, R9, 2         // &C[r + i][c]
    IADD    R24, R29, 0
    ISETP.LT.U32.AND P1, R24, R5, P0
@P1 ST.GLOBAL.F32 [R31+0], R32
    IADD    R24, R29, 1
    ISETP.LT.U32.AND P1, R24, R5, P0
@P1 ST.GLOBAL.F32 [R31+4], R33
    IADD    R24, R29, 2
    ISETP.LT.U32.AND P1, R24, R5, P0
@P1 ST.GLOBAL.F32 [R31+8], R34
    IADD    R24, R29, 3
    ISETP.LT.U32.AND P1, R24, R5, P0
@P1 ST.GLOBAL.F32 [R31+12], R35
    IADD    R30, R28, 1
    ISETP.LT.U32 P0, R30, R4
    IMAD    R31, R30, R5, R29
    LEA     R31, R31, R9, 2         // &C[r + i][c]
    IADD    R24, R29, 0
    ISETP.LT.U32.AND P1, R24, R5, P0
@P1 ST.GLOBAL.F32 [R31+0], R36
    IADD    R24, R29, 1
    ISETP.LT.U32.AND P1, R24, R5, P0
@P1 ST.GLOBAL.F32 [R31+4], R37
    IADD    R24, R29, 2
    ISETP.LT.U32.AND P1, R24, R5, P0
@P1 ST.GLOBAL.F32 [R31+8], R38
    IADD    R24, R29, 3
    ISETP.LT.U32.AND P1, R24, R5, P0
@P1 ST.GLOBAL.F32 [R31+12], R39
    IADD    R30, R28, 2
    ISETP.LT.U32 P0, R30, R4
    IMAD    R31, R30, R5, R29
    LEA     R31, R31, R9, 2         // &C[r + i][c]
    IADD    R24, R29, 0
    ISETP.LT.U32.AND P1, R24, R5, P0
@P1 ST.GLOBAL.F32 [R31+0], R40
    IADD    R24, R29, 1
    ISETP.LT.U32.AND P1, R24, R5, P0
@P1 ST.GLOBAL.F32 [R31+4], R41
    IADD    R24, R29, 2
    ISETP.LT.U32.AND P1, R24, R5, P0
@P1 ST.GLOBAL.F32 [R31+8], R42
    IADD    R24, R29, 3
    ISETP.LT.U32.AND P1, R24, R5, P0
@P1 ST.GLOBAL.F32 [R31+12], R43
    IADD    R30, R28, 3
    ISETP.LT.U32 P0, R30, R4
    IMAD    R31, R30, R5, R29
    LEA     R31, R31, R9, 2         // &C[r + i][c]
    IADD    R24, R29, 0
    ISETP.LT.U32.AND P1, R24, R5, P0
@P1 ST.GLOBAL.F32 [R31+0], R44
    IADD    R24, R29, 1
    ISETP.LT.U32.AND P1, R24, R5, P0
@P1 ST.GLOBAL.F32 [R31+4], R45
    IADD    R24, R29, 2
    ISETP.LT.U32.AND P1, R24, R5, P0
@P1 ST.GLOBAL.F32 [R31+8], R46
    IADD    R24, R29, 3
    ISETP.LT.U32.AND P1, R24, R5, P0
@P1 ST.GLOBAL.F32 [R31+12], R47
    EXIT
