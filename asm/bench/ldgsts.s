// ldgsts: one warp copies 64 chunks of 512 bytes from global into shared memory with
// LDGSTS.V4 (PTX cp.async, 16 bytes a lane), closing a group after each copy.
//
// `copies_in_flight` waits with DEPBAR 7, so up to eight copies travel at once, as a
// pipelined GEMM's prologue and main loop keep its stages in flight; `copies_one_by_one`
// waits with DEPBAR 0 after each, so every copy pays the whole trip to memory. The first
// takes about an eighth of the second's cycles (compare the `cycles` of the timing reports).
//
// Try it:
//   simt run asm/bench/ldgsts.s --kernel copies_in_flight --timing h100
//   simt run asm/bench/ldgsts.s --kernel copies_one_by_one --timing h100
.target sm_80
.kernel copies_in_flight
.param .ptr.u32 src
.shared .align 16 .u32 tile[128]
.launch grid(1) block(32)
.arg src = zeros(8192)

    S2R     R0, SR_LANEID
    SHL     R1, R0, 4               // this lane's 16 bytes of a chunk
    LD.PARAM.U32 R2, [src]
    IADD    R2, R2, R1
    MOV     R3, tile
    IADD    R3, R3, R1
    MOV     R4, 0
LOOP:
    LDGSTS.V4 R3, [R2], 16
    LDGDEPBAR
    DEPBAR  7
    IADD    R2, R2, 512
    IADD    R4, R4, 1
    ISETP.LT.U32 P0, R4, 64
@P0 BRA     LOOP
    LDGDEPBAR
    DEPBAR  0
    EXIT

.kernel copies_one_by_one
.param .ptr.u32 src
.shared .align 16 .u32 tile[128]
.launch grid(1) block(32)
.arg src = zeros(8192)

    S2R     R0, SR_LANEID
    SHL     R1, R0, 4
    LD.PARAM.U32 R2, [src]
    IADD    R2, R2, R1
    MOV     R3, tile
    IADD    R3, R3, R1
    MOV     R4, 0
LOOP:
    LDGSTS.V4 R3, [R2], 16
    LDGDEPBAR
    DEPBAR  0
    IADD    R2, R2, 512
    IADD    R4, R4, 1
    ISETP.LT.U32 P0, R4, 64
@P0 BRA     LOOP
    EXIT
