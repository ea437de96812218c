// strided: out[i] = in[i * stride] for every i < n (f32), one thread per element.
//
// Consecutive threads of a warp read words `stride` apart: at stride 1 a warp's
// 32 loads fall in 4 sectors (one 128-byte line); at stride 8 or more every lane
// needs a sector of its own, so 8 times the bytes move for the same useful data.
// The stores stay coalesced throughout. Lab 5 sweeps the stride.
//
// `in` must hold at least n * stride elements.
//
// Try it:
//   simt run asm/strided.s --stats
//   simt run asm/strided.s --arg stride=4 --stats
.kernel strided
.param .u32 n
.param .u32 stride                  // in elements
.param .ptr.f32 in
.param .ptr.f32 out
.launch grid(1024) block(128)
.arg n = 131072
.arg stride = 1
.arg in = iota(4194304)          // enough for stride 32
.arg out = zeros(131072)

    S2R     R0, SR_TID.X
    S2R     R1, SR_CTAID.X
    S2R     R2, SR_NTID.X
    IMAD    R0, R1, R2, R0          // i = ctaid.x * ntid.x + tid.x
    LD.PARAM.U32 R4, [n]
    ISETP.GE.U32 P0, R0, R4
@P0 EXIT
    LD.PARAM.U32 R5, [stride]
    LD.PARAM.U32 R6, [in]
    LD.PARAM.U32 R7, [out]
    IMUL    R8, R0, R5              // i * stride
    LEA     R9, R8, R6, 2
    LD.GLOBAL.F32 R10, [R9]         // in[i * stride]
    LEA     R9, R0, R7, 2
    ST.GLOBAL.F32 [R9], R10         // out[i]
    EXIT
