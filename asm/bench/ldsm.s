// ldsm: every warp runs LDSM.X4 (PTX ldmatrix .x4) 64 times, lane l naming row
// l * stride bytes into shared memory.
//
// stride 16: the 32 rows of 16 bytes are consecutive, 512 bytes over all 32 banks, four
// passes an LDSM (the fewest: 128 bytes a pass); stride 128: every row falls in banks 0-3,
// 32 passes. With 16 warps the shared pipeline is the bottleneck, so the launch takes about
// 8 times as long (compare the `cycles` and the bank conflicts of the timing report).
//
// Try it:
//   simt run asm/bench/ldsm.s --timing h100 --arg stride=16
//   simt run asm/bench/ldsm.s --timing h100 --arg stride=128
.kernel ldsm
.target sm_80
.param .u32 stride                  // in bytes, a multiple of 16
.param .ptr.u32 out
.shared .align 16 .u32 buf[1024]
.launch grid(1) block(512)
.arg stride = 16
.arg out = zeros(1)

    S2R     R14, SR_TID.X               // each thread fills two words first, so
    MOV     R13, buf                    // the loads read defined values
    LEA     R15, R14, R13, 2
    ST.SHARED.U32 [R15], R14
    ST.SHARED.U32 [R15+2048], R14
    BAR.SYNC
    S2R     R10, SR_LANEID
    LD.PARAM.U32 R11, [stride]
    IMUL    R12, R10, R11
    AND     R12, R12, 4080
    IADD    R3, R12, R13            // &buf[(lane * stride) mod 4096 bytes]
    MOV     R21, 0
LOOP:
    IADD    R21, R21, 1
    ISETP.LT.U32 P0, R21, 4
    LDSM.X4 R24, [R3]
    LDSM.X4 R28, [R3]
    LDSM.X4 R32, [R3]
    LDSM.X4 R36, [R3]
    LDSM.X4 R40, [R3]
    LDSM.X4 R44, [R3]
    LDSM.X4 R48, [R3]
    LDSM.X4 R52, [R3]
    LDSM.X4 R56, [R3]
    LDSM.X4 R60, [R3]
    LDSM.X4 R64, [R3]
    LDSM.X4 R68, [R3]
    LDSM.X4 R72, [R3]
    LDSM.X4 R76, [R3]
    LDSM.X4 R80, [R3]
    LDSM.X4 R84, [R3]
@P0 BRA     LOOP
    EXIT
