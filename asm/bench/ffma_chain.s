// ffma_chain: 256 dependent FFMAs per warp, timed with SR_CLOCK.
//
// Each warp runs R0 = R0 * R1 + R2 256 times; every FFMA needs the one before,
// so a warp issues one every `latency.fp32` cycles (4 on h100). Lane 0 of each
// warp writes the SR_CLOCK before and after its chain to cycles[2w], cycles[2w+1]:
// their difference divided by 256 x reps is the latency.
// With one warp a partition issues once per latency; with enough warps per
// partition (latency / issue interval of them) it issues every cycle, and the
// SM reaches its FP32 peak (lanes.fp32 FMAs per cycle: 128 on h100).
//
// Try it:
//   simt run asm/bench/ffma_chain.s --timing h100 --dump cycles
//   simt run asm/bench/ffma_chain.s --timing h100 --block 1024 --arg 'cycles=zeros(64)'
.kernel ffma_chain
.param .u32 reps                    // times the 256-FFMA chain runs
.param .ptr.u32 cycles              // two words per warp of the launch: start, end
.launch grid(1) block(32)
.arg reps = 1
.arg cycles = zeros(2)

    S2R     R10, SR_LANEID
    S2R     R11, SR_WARPID
    S2R     R12, SR_CTAID.X
    S2R     R13, SR_NTID.X
    IADD    R13, R13, 31
    SHR.U32 R13, R13, 5             // warps per block
    IMAD    R11, R12, R13, R11      // launch-wide warp
    LD.PARAM.U32 R14, [cycles]
    LEA     R14, R11, R14, 3
    ISETP.EQ P0, R10, 0
    MOV     R0, 1.0
    MOV     R1, 1.0
    MOV     R2, 0.5
    LD.PARAM.U32 R21, [reps]
    MOV     R20, 0
    S2R     R4, SR_CLOCK
REP:
    IADD    R20, R20, 1
    ISETP.LT.U32 P1, R20, R21
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
    FFMA    R0, R0, R1, R2
@P1 BRA     REP
    IADD    R5, R0, 0               // waits for the last FFMA
    S2R     R6, SR_CLOCK
@P0 ST.GLOBAL.U32 [R14], R4
@P0 ST.GLOBAL.U32 [R14+4], R6
    EXIT
