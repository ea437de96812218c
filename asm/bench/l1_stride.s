// l1_stride: L1 load throughput against the stride between lanes, after gpu-benches'
// gpu-strides `strideKernel` (one block of 1024 threads on one SM), for floats or, with
// `double` = 1, doubles. Thread t reads the elements at A + (t % 64) * stride + 0, 4, 8,
// ... 28, eight loads a turn, and folds them into a sum with FFMAs (DFMAs), as that kernel
// does; every load after the first turn hits L1. With `width` w and `pitch` p it is
// gpu-strides' `blockKernel` instead: the block as w x (1024 / w) threads, thread (x, y)
// reading from A + x * stride + (y % 32 + 1) * p. A warp's load of floats spans 32 * stride
// floats: stride 1 is one 128-byte line, stride 8 is eight lines, stride 32 or more is a
// line per lane. Cycles per warp load are the kernel's cycles over its warp loads (32 warps
// x 8 x `turns`).
//
// Try it (stride 4: four lines per warp load; then doubles, eight lines):
//   simt run asm/bench/l1_stride.s --timing a100 --arg stride=4
//   simt run asm/bench/l1_stride.s --timing a100 --arg stride=4 --arg double=1 --arg 'a=zeros(4224)'
//   simt run asm/bench/l1_stride.s --timing a100 --arg width=8 --arg pitch=4098 --arg 'a=zeros(135330)'
.kernel l1_stride
.param .u32 stride                  // elements between neighbouring lanes
.param .u32 turns                   // turns of eight loads per thread
.param .u32 double                  // 1: the elements are doubles
.param .u32 width                   // threads a row: 64 for strideKernel
.param .u32 pitch                   // elements between rows: 0 for strideKernel
.param .ptr.f32 a                   // 64 x stride + 33 x pitch + 32 elements
.param .ptr.f32 sum                 // one word: written only if a sum is 123 (never)
.launch grid(1) block(1024)
.arg stride = 1
.arg turns = 64
.arg double = 0
.arg width = 64
.arg pitch = 0
.arg a = zeros(2112)
.arg sum = zeros(1)

    S2R     R0, SR_TID.X
    LD.PARAM.U32 R1, [stride]
    LD.PARAM.U32 R2, [turns]
    LD.PARAM.U32 R3, [a]
    LD.PARAM.U32 R9, [double]
    LD.PARAM.U32 R8, [width]
    LD.PARAM.U32 R17, [pitch]
    IREM.U32 R18, R0, R8            // x
    IDIV.U32 R19, R0, R8
    AND     R19, R19, 31            // y % 32
    IADD    R19, R19, 1
    IMUL    R4, R18, R1
    IMAD    R4, R19, R17, R4        // this thread's first element
    MOV     R7, 0                   // turns done
    ISETP.NE.U32 P2, R9, 0
@P2 BRA     DOUBLES
    LEA     R5, R4, R3, 2           // this thread's first float
    MOV     R6, 0                   // the sum
TURN:
    LD.GLOBAL.F32 R10, [R5]
    LD.GLOBAL.F32 R11, [R5+16]
    LD.GLOBAL.F32 R12, [R5+32]
    LD.GLOBAL.F32 R13, [R5+48]
    LD.GLOBAL.F32 R14, [R5+80]
    LD.GLOBAL.F32 R15, [R5+64]
    LD.GLOBAL.F32 R16, [R5+96]
    LD.GLOBAL.F32 R17, [R5+112]
    FFMA    R6, R10, R11, R6
    FFMA    R6, R12, R13, R6
    FFMA    R6, R14, R15, R6
    FFMA    R6, R16, R17, R6
    IADD    R7, R7, 1
    ISETP.LT.U32 P0, R7, R2
@P0 BRA     TURN
    FSETP.NE P1, R6, 123.0          // as gpu-strides, store only a sum that never comes
@P1 EXIT
    LD.PARAM.U32 R8, [sum]
    ST.GLOBAL.F32 [R8], R6
    EXIT
DOUBLES:
    LEA     R5, R4, R3, 3           // this thread's first double
    MOV     R26, 0                  // the sum, a double in R26:R27
    MOV     R27, 0
DTURN:
    LD.GLOBAL.F64 R10, [R5]
    LD.GLOBAL.F64 R12, [R5+32]
    LD.GLOBAL.F64 R14, [R5+64]
    LD.GLOBAL.F64 R16, [R5+96]
    LD.GLOBAL.F64 R18, [R5+160]
    LD.GLOBAL.F64 R20, [R5+128]
    LD.GLOBAL.F64 R22, [R5+192]
    LD.GLOBAL.F64 R24, [R5+224]
    DFMA    R26, R10, R12, R26
    DFMA    R26, R14, R16, R26
    DFMA    R26, R18, R20, R26
    DFMA    R26, R22, R24, R26
    IADD    R7, R7, 1
    ISETP.LT.U32 P0, R7, R2
@P0 BRA     DTURN
    EXIT                            // the sum never is 123: gpu-strides would store nothing
