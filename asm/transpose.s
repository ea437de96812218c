// transpose: out = in^T for a rows x cols f32 matrix (both row-major).
//   out[c * rows + r] = in[r * cols + c] for r < rows, c < cols.
//
// Algorithm: 32x32 tiles through shared memory, as in NVIDIA's "An Efficient
// Matrix Transpose in CUDA C/C++". Block (ctaid.x, ctaid.y) owns the tile of
// input rows 32*ctaid.y .. +31 and columns 32*ctaid.x .. +31. Its 32 x H
// threads (block(32, H), H dividing 32, e.g. 32x8) first copy the tile into
// shared memory with coalesced reads (thread (tx, ty) reads row ty, ty + H, ...
// column tx), BAR.SYNC, then write the transposed tile with coalesced writes
// (thread (tx, ty) writes out row 32*ctaid.x + ty + kH, column 32*ctaid.y + tx,
// reading the tile's column). The tile is 32 x 33 floats: the extra column
// puts the elements of a tile column in 32 different banks, so the column reads
// have no bank conflicts. Tiles on the matrix's edge are guarded element by
// element. Grid: (ceil(cols / 32), ceil(rows / 32)).
//
// Try it:
//   simt run asm/transpose.s --dump out
//   simt run asm/transpose.s --grid 2,1 --block 32,32 --arg rows=3 --arg cols=40 \
//       --arg 'in=iota(120)' --arg 'out=zeros(120)' --dump out
.kernel transpose
.param .u32 rows
.param .u32 cols
.param .ptr.f32 in                  // rows x cols
.param .ptr.f32 out                 // cols x rows
.shared .f32 tile[1056]             // 32 x 33 (padded)
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
    IMAD    R15, R11, 33, R0        // j * 33 + tx
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
    IMAD    R15, R0, 33, R11        // tx * 33 + j: a tile column, conflict-free
    LEA     R15, R15, R9, 2
@P1 LD.SHARED.F32 R14, [R15]
    IMAD    R13, R12, R5, R10       // (col0 + j) * rows + row0 + tx
    LEA     R13, R13, R8, 2
@P1 ST.GLOBAL.F32 [R13], R14
    IADD    R11, R11, R2
    ISETP.LT.U32 P2, R11, 32
@P2 BRA     STORE
    EXIT
