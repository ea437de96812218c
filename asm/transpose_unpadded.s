// transpose_unpadded: out = in^T through shared memory, like asm/transpose.s,
// but with a 32 x 32 tile instead of 32 x 33. Reading a tile column then puts
// all 32 elements in one bank: a 32-way bank conflict on every column read.
// Compare `--stats` of the two (the memory-efficiency report) in lab 5.
//
// Try it:
//   simt run asm/transpose_unpadded.s --dump out
//   simt run asm/transpose_unpadded.s --grid 2,1 --block 32,32 --arg rows=3 --arg cols=40 \
//       --arg 'in=iota(120)' --arg 'out=zeros(120)' --dump out
.kernel transpose_unpadded
.param .u32 rows
.param .u32 cols
.param .ptr.f32 in                  // rows x cols
.param .ptr.f32 out                 // cols x rows
.shared .f32 tile[1024]             // 32 x 32 (not padded)
.launch grid(5, 7) block(32, 8)
.arg rows = 200
.arg cols = 150
.arg in = iota(30000)
.arg out = zeros(30000)

    S2R     R0, SR_TID.X            // tx
    S2R     R1, SR_TID.Y            // ty
    S2R     R2, SR_NTID.Y           // H
    S2R     R3, SR_CTAID.X
    SHL     R3, R3, 5               // first column of the tile in `in`
    S2R     R4, SR_CTAID.Y
    SHL     R4, R4, 5               // first row of the tile in `in`
    LD.PARAM.U32 R5, [rows]
    LD.PARAM.U32 R6, [cols]
    LD.PARAM.U32 R7, [in]
    LD.PARAM.U32 R8, [out]
    MOV     R9, tile
    IADD    R10, R3, R0             // c = column of in
    ISETP.LT.U32 P0, R10, R6        // c < cols
    MOV     R11, R1                 // j = ty
LOAD:                               // tile[j][tx] = in[row0 + j][c]
    IADD    R12, R4, R11            // r = row0 + j
    ISETP.LT.U32.AND P1, R12, R5, P0
    IMAD    R13, R12, R6, R10       // r * cols + c
    LEA     R13, R13, R7, 2
@P1 LD.GLOBAL.F32 R14, [R13]
    IMAD    R15, R11, 32, R0        // j * 32 + tx
    LEA     R15, R15, R9, 2
@P1 ST.SHARED.F32 [R15], R14
    IADD    R11, R11, R2            // j += H
    ISETP.LT.U32 P2, R11, 32
@P2 BRA     LOAD
    BAR.SYNC
    IADD    R10, R4, R0             // column of out = row0 + tx
    ISETP.LT.U32 P0, R10, R5
    MOV     R11, R1                 // j = ty
STORE:                              // out[col0 + j][row0 + tx] = tile[tx][j]
    IADD    R12, R3, R11            // row of out = col0 + j
    ISETP.LT.U32.AND P1, R12, R6, P0
    IMAD    R15, R0, 32, R11        // tx * 32 + j: a tile column, all in one bank
    LEA     R15, R15, R9, 2
@P1 LD.SHARED.F32 R14, [R15]
    IMAD    R13, R12, R5, R10       // (col0 + j) * rows + row0 + tx
    LEA     R13, R13, R8, 2
@P1 ST.GLOBAL.F32 [R13], R14
    IADD    R11, R11, R2
    ISETP.LT.U32 P2, R11, 32
@P2 BRA     STORE
    EXIT
