// bank_conflict: every warp loads shared memory 256 times at lane * stride words.
//
// stride 1: the 32 lanes hit 32 banks, one pass per load; stride 32: all lanes
// hit bank 0 at different words, a 32-way conflict, 32 passes per load. With
// enough warps the shared pipeline is the bottleneck, so the launch takes about
// 32 times as long (compare the `cycles` of the timing report).
//
// Try it:
//   simt run asm/bench/bank_conflict.s --timing h100 --arg stride=1
//   simt run asm/bench/bank_conflict.s --timing h100 --arg stride=32
.kernel bank_conflict
.param .u32 stride                  // in 4-byte words
.param .ptr.u32 out
.shared .u32 buf[1024]
.launch grid(1) block(1024)
.arg stride = 1
.arg out = zeros(1)

    S2R     R14, SR_TID.X               // each thread fills one word first, so
    MOV     R13, buf                    // the loads read defined values
    LEA     R15, R14, R13, 2
    ST.SHARED.U32 [R15], R14
    BAR.SYNC
    S2R     R10, SR_LANEID
    LD.PARAM.U32 R11, [stride]
    IMUL    R12, R10, R11
    AND     R12, R12, 1023
    LEA     R3, R12, R13, 2         // &buf[(lane * stride) mod 1024]
    MOV     R21, 0
LOOP:
    IADD    R21, R21, 1
    ISETP.LT.U32 P0, R21, 4
    LD.SHARED.U32 R24, [R3]
    LD.SHARED.U32 R25, [R3]
    LD.SHARED.U32 R26, [R3]
    LD.SHARED.U32 R27, [R3]
    LD.SHARED.U32 R28, [R3]
    LD.SHARED.U32 R29, [R3]
    LD.SHARED.U32 R30, [R3]
    LD.SHARED.U32 R31, [R3]
    LD.SHARED.U32 R32, [R3]
    LD.SHARED.U32 R33, [R3]
    LD.SHARED.U32 R34, [R3]
    LD.SHARED.U32 R35, [R3]
    LD.SHARED.U32 R36, [R3]
    LD.SHARED.U32 R37, [R3]
    LD.SHARED.U32 R38, [R3]
    LD.SHARED.U32 R39, [R3]
    LD.SHARED.U32 R24, [R3]
    LD.SHARED.U32 R25, [R3]
    LD.SHARED.U32 R26, [R3]
    LD.SHARED.U32 R27, [R3]
    LD.SHARED.U32 R28, [R3]
    LD.SHARED.U32 R29, [R3]
    LD.SHARED.U32 R30, [R3]
    LD.SHARED.U32 R31, [R3]
    LD.SHARED.U32 R32, [R3]
    LD.SHARED.U32 R33, [R3]
    LD.SHARED.U32 R34, [R3]
    LD.SHARED.U32 R35, [R3]
    LD.SHARED.U32 R36, [R3]
    LD.SHARED.U32 R37, [R3]
    LD.SHARED.U32 R38, [R3]
    LD.SHARED.U32 R39, [R3]
    LD.SHARED.U32 R24, [R3]
    LD.SHARED.U32 R25, [R3]
    LD.SHARED.U32 R26, [R3]
    LD.SHARED.U32 R27, [R3]
    LD.SHARED.U32 R28, [R3]
    LD.SHARED.U32 R29, [R3]
    LD.SHARED.U32 R30, [R3]
    LD.SHARED.U32 R31, [R3]
    LD.SHARED.U32 R32, [R3]
    LD.SHARED.U32 R33, [R3]
    LD.SHARED.U32 R34, [R3]
    LD.SHARED.U32 R35, [R3]
    LD.SHARED.U32 R36, [R3]
    LD.SHARED.U32 R37, [R3]
    LD.SHARED.U32 R38, [R3]
    LD.SHARED.U32 R39, [R3]
    LD.SHARED.U32 R24, [R3]
    LD.SHARED.U32 R25, [R3]
    LD.SHARED.U32 R26, [R3]
    LD.SHARED.U32 R27, [R3]
    LD.SHARED.U32 R28, [R3]
    LD.SHARED.U32 R29, [R3]
    LD.SHARED.U32 R30, [R3]
    LD.SHARED.U32 R31, [R3]
    LD.SHARED.U32 R32, [R3]
    LD.SHARED.U32 R33, [R3]
    LD.SHARED.U32 R34, [R3]
    LD.SHARED.U32 R35, [R3]
    LD.SHARED.U32 R36, [R3]
    LD.SHARED.U32 R37, [R3]
    LD.SHARED.U32 R38, [R3]
    LD.SHARED.U32 R39, [R3]
@P0 BRA     LOOP
    EXIT
