// transpose_naive: out = in^T for a rows x cols f32 matrix (both row-major),
// one thread per element and no shared memory:
//   out[c * rows + r] = in[r * cols + c].
// Threads of a warp hold consecutive c: their reads of `in` are coalesced, but
// their writes to `out` are `rows` elements apart, one 32-byte sector (and one
// 128-byte line) per lane. Compare with asm/transpose.s in lab 5.
// Grid: (ceil(cols / 32), ceil(rows / 8)) with block (32, 8).
//
// Try it:
//   simt run asm/transpose_naive.s --dump out
//   simt run asm/transpose_naive.s --stats
.kernel transpose_naive
.param .u32 rows
.param .u32 cols
.param .ptr.f32 in                  // rows x cols
.param .ptr.f32 out                 // cols x rows
.launch grid(5, 25) block(32, 8)
.arg rows = 200
.arg cols = 150
.arg in = iota(30000)
.arg out = zeros(30000)

    S2R     R0, SR_TID.X
    S2R     R1, SR_CTAID.X
    S2R     R2, SR_NTID.X
    IMAD    R0, R1, R2, R0          // c
    S2R     R1, SR_TID.Y
    S2R     R3, SR_CTAID.Y
    S2R     R2, SR_NTID.Y
    IMAD    R1, R3, R2, R1          // r
    LD.PARAM.U32 R5, [rows]
    LD.PARAM.U32 R6, [cols]
    ISETP.GE.U32 P0, R0, R6
    ISETP.GE.U32.OR P0, R1, R5, P0
@P0 EXIT
    LD.PARAM.U32 R7, [in]
    LD.PARAM.U32 R8, [out]
    IMAD    R9, R1, R6, R0          // r * cols + c
    LEA     R9, R9, R7, 2
    LD.GLOBAL.F32 R10, [R9]
    IMAD    R11, R0, R5, R1         // c * rows + r
    LEA     R11, R11, R8, 2
    ST.GLOBAL.F32 [R11], R10
    EXIT
