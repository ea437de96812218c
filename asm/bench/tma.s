// tma: one thread copies 64 boxes of 32 x 32 f32 (4 KB each) from global into shared memory
// with TMA.LOAD (PTX cp.async.bulk.tensor), each completing its bytes on an mbarrier.
//
// `boxes_in_flight` starts eight copies, each on its own mbarrier and buffer, before waiting
// for any, as a pipelined TMA GEMM keeps its stages in flight; `boxes_one_by_one` waits for
// each copy before starting the next, so every copy pays the whole trip to memory. A waiting
// MBAR.TEST issues only once its mbarrier's copies have landed (docs/timing.md, "Tensor
// copies"), so the first takes a fraction of the second's cycles.
//
// Try it:
//   simt run asm/bench/tma.s --kernel boxes_in_flight --timing h100
//   simt run asm/bench/tma.s --kernel boxes_one_by_one --timing h100
.target sm_90
.kernel boxes_in_flight
.param .raw.f32 src
.shared .align 1024 .u32 tiles[8192]    // eight 4 KB buffers
.shared .align 8 .u32 bars[16]          // eight mbarriers
.launch grid(1) block(32)
.arg src = tensormap(zeros(65536), box=[32, 32], shape=[256, 256], type=f32)

    S2R     R0, SR_TID.X
    LD.PARAM.U32 R2, [src]
    MOV     R3, 0
    ISETP.EQ.U32 P0, R0, 0
    MOV     R10, 0
INIT:
    SHL     R11, R10, 3
@P0 MBAR.INIT [R11+bars], 1
    IADD    R10, R10, 1
    ISETP.LT.U32 P2, R10, 8
@P2 BRA     INIT
    MOV     R8, 0                   // round: boxes 8 round .. 8 round + 7
ROUND:
    MOV     R10, 0                  // j: the box's buffer and mbarrier
ISSUE:
    SHL     R4, R10, 5              // x = 32 j
    SHL     R5, R8, 5               // y = 32 round
    SHL     R11, R10, 3
    IADD    R11, R11, bars
    SHL     R12, R10, 12
    IADD    R12, R12, tiles
@P0 MBAR.ARRIVE RZ, [R11], 1, 4096
@P0 TMA.LOAD.2D R12, R2, R4, R11
    IADD    R10, R10, 1
    ISETP.LT.U32 P2, R10, 8
@P2 BRA     ISSUE
    AND     R9, R8, 1               // the phase this round completes
    MOV     R10, 0
WAIT_ALL:
    SHL     R11, R10, 3
WAIT:
    MBAR.TEST P1, [R11+bars], R9
@!P1 BRA    WAIT
    IADD    R10, R10, 1
    ISETP.LT.U32 P2, R10, 8
@P2 BRA     WAIT_ALL
    IADD    R8, R8, 1
    ISETP.LT.U32 P2, R8, 8
@P2 BRA     ROUND
    EXIT

.kernel boxes_one_by_one
.param .raw.f32 src
.shared .align 1024 .u32 tile[1024]     // one 4 KB buffer
.shared .align 8 .u32 bar[2]            // one mbarrier
.launch grid(1) block(32)
.arg src = tensormap(zeros(65536), box=[32, 32], shape=[256, 256], type=f32)

    S2R     R0, SR_TID.X
    LD.PARAM.U32 R2, [src]
    MOV     R3, 0
    ISETP.EQ.U32 P0, R0, 0
@P0 MBAR.INIT [bar], 1
    MOV     R8, 0                   // k: box k at x = 32 (k % 8), y = 32 (k / 8)
NEXT:
    AND     R4, R8, 7
    SHL     R4, R4, 5
    SHR     R5, R8, 3
    SHL     R5, R5, 5
@P0 MBAR.ARRIVE RZ, [bar], 1, 4096
@P0 TMA.LOAD.2D tile, R2, R4, bar
    AND     R9, R8, 1               // the phase this copy completes
WAIT:
    MBAR.TEST P1, [bar], R9
@!P1 BRA    WAIT
    IADD    R8, R8, 1
    ISETP.LT.U32 P2, R8, 64
@P2 BRA     NEXT
    EXIT
