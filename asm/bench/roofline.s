// roofline: gpu-benches' gpu-roofline `testfun` in single precision: each thread walks
// its column of two arrays (blocks of 256 threads, the block's columns side by side),
// two elements of each per turn, and runs `its` dependent FFMAs on each pair before
// summing: two chains, so two FFMAs in flight per thread. Its intensity is
// (2 + 2 its) flops per 8 bytes read; few `its` are bound by DRAM, many by the FP32
// lanes, and in between the two overlap only as well as the warps' phases let them.
//
// Try it (56 FFMAs per element: 14.25 flops per byte, near A100's ridge; a block per SM):
//   simt run asm/bench/roofline.s --timing a100 --grid 108 --block 256 \
//       --arg its=56 --arg m=16 --arg 'a=zeros(442368)' --arg 'b=zeros(442368)' --arg 'c=zeros(108)'
.kernel roofline
.param .u32 its                     // FFMAs per element, a multiple of 8
.param .u32 m                       // elements per thread and array, even
.param .ptr.f32 a                   // blocks x 256 x m floats
.param .ptr.f32 b                   // as a
.param .ptr.f32 c                   // one word per block: written only if a sum is 123 (never)
.launch grid(4) block(256)
.arg its = 8
.arg m = 8
.arg a = zeros(8192)
.arg b = zeros(8192)
.arg c = zeros(4)

    S2R     R0, SR_TID.X
    S2R     R1, SR_CTAID.X
    LD.PARAM.U32 R2, [its]
    LD.PARAM.U32 R3, [m]
    LD.PARAM.U32 R4, [a]
    LD.PARAM.U32 R5, [b]
    IMUL    R6, R1, R3
    SHL     R6, R6, 8               // block x 256 x m: the block's first element
    IADD    R6, R6, R0
    LEA     R7, R6, R4, 2           // this thread's element of a
    LEA     R8, R6, R5, 2           // and of b
    MOV     R9, 0                   // the sum
    MOV     R10, 0                  // elements done
TURN:
    LD.GLOBAL.F32 R11, [R7]         // a
    LD.GLOBAL.F32 R12, [R8]         // b
    LD.GLOBAL.F32 R13, [R7+1024]    // a2, the next row of the block's columns
    LD.GLOBAL.F32 R14, [R8+1024]    // b2
    FADD    R15, R11, -R12          // v
    FADD    R16, R13, -R14          // v2
    MOV     R17, R2                 // FFMAs a chain still to run
    ISETP.LT.U32 P0, R17, 32
@P0 BRA     STEP
STEP32:                             // 32 a chain a turn while 32 are left: ptxas unrolls
                                    // gpu-roofline's loop whole, and a turn's 3 instructions
                                    // would hold back a partition that issues an FFMA a cycle
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    IADD    R17, R17, -32
    ISETP.GE.U32 P0, R17, 32
@P0 BRA     STEP32
STEP:
    ISETP.EQ P0, R17, 0
@P0 BRA     SUMS
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    FFMA    R15, R15, R11, R12
    FFMA    R16, R16, R13, R14
    IADD    R17, R17, -8
    BRA     STEP
SUMS:
    FADD    R15, R15, R16
    FADD    R9, R9, R15
    IADD    R7, R7, 2048            // two rows of 256 floats on
    IADD    R8, R8, 2048
    IADD    R10, R10, 2
    ISETP.LT.U32 P1, R10, R3
@P1 BRA     TURN
    FSETP.NE P2, R9, 123.0          // as gpu-roofline, store only a sum that never comes
@P2 EXIT
    LD.PARAM.U32 R18, [c]
    LEA     R19, R1, R18, 2
    ST.GLOBAL.F32 [R19], R9
    EXIT
