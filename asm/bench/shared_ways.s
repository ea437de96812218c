// shared_ways: shared-memory load throughput against bank conflicts, after kzwrime's
// gpu_shm_microbench `add_vectors` for floats (github.com/kzwrime/gpu_shm_microbench).
// Blocks of 128 threads fill 16 KB of shared memory, then each thread adds up
// `repeats` x 256 floats at shm[(tid % ways) * 32 + tid / share + j], j = 0..255, and
// stores its sum back once a turn, as that kernel does, but to a word of its own beyond
// what any thread reads, shm[1024 + tid]: the original writes shm[tid + i % 256], into
// words other threads read and wrote, a race; either store is one pass for the warp. `ways` = k, `share` = k is its
// k-way conflict (k lanes in one bank, 32 words apart); `ways` = 1, `share` = 32 its
// broadcast (a warp reads one word). With enough warps the shared pipeline bounds the
// launch, so a k-way conflict takes about k times the broadcast's cycles.
//
// Try it (a 4-way conflict, then the broadcast, on one block):
//   simt run asm/bench/shared_ways.s --timing v100 --arg ways=4 --arg share=4
//   simt run asm/bench/shared_ways.s --timing v100 --arg ways=1 --arg share=32
.kernel shared_ways
.param .u32 ways                    // lanes tid % ways read words 32 apart: one bank
.param .u32 share                   // lanes tid / share read one word
.param .u32 repeats                 // turns of 256 loads
.param .ptr.f32 a                   // one float per thread: its first value, then its sum
.shared .f32 shm[4096]
.launch grid(1) block(128)
.arg ways = 1
.arg share = 32
.arg repeats = 4
.arg a = zeros(128)

    S2R     R0, SR_TID.X
    S2R     R1, SR_CTAID.X
    S2R     R2, SR_NTID.X
    IMAD    R3, R1, R2, R0          // id
    LD.PARAM.U32 R4, [a]
    LEA     R5, R3, R4, 2
    LD.GLOBAL.F32 R6, [R5]
    MOV     R7, shm
    MOV     R8, R0
FILL:
    LEA     R9, R8, R7, 2
    ST.SHARED.F32 [R9], R6
    IADD    R8, R8, R2
    ISETP.LT.U32 P0, R8, 4096
@P0 BRA     FILL
    BAR.SYNC                        // the original reads without one; here the words are defined
    LD.PARAM.U32 R10, [ways]
    LD.PARAM.U32 R11, [share]
    LD.PARAM.U32 R12, [repeats]
    IREM.U32 R13, R0, R10
    IDIV.U32 R14, R0, R11
    LEA     R15, R13, R14, 5        // (tid % ways) * 32 + tid / share
    LEA     R15, R15, R7, 2         // its address at j = 0
    IADD    R16, R0, 1024
    LEA     R16, R16, R7, 2         // where the sum goes
    MOV     R17, 0                  // the sum
    MOV     R18, 0                  // turns done
TURN:
    MOV     R19, R15
    MOV     R20, 0
LOADS:
    LD.SHARED.F32 R21, [R19]
    LD.SHARED.F32 R22, [R19+4]
    LD.SHARED.F32 R23, [R19+8]
    LD.SHARED.F32 R24, [R19+12]
    LD.SHARED.F32 R25, [R19+16]
    LD.SHARED.F32 R26, [R19+20]
    LD.SHARED.F32 R27, [R19+24]
    LD.SHARED.F32 R28, [R19+28]
    LD.SHARED.F32 R29, [R19+32]
    LD.SHARED.F32 R30, [R19+36]
    LD.SHARED.F32 R31, [R19+40]
    LD.SHARED.F32 R32, [R19+44]
    LD.SHARED.F32 R33, [R19+48]
    LD.SHARED.F32 R34, [R19+52]
    LD.SHARED.F32 R35, [R19+56]
    LD.SHARED.F32 R36, [R19+60]
    FADD    R17, R17, R21
    FADD    R17, R17, R22
    FADD    R17, R17, R23
    FADD    R17, R17, R24
    FADD    R17, R17, R25
    FADD    R17, R17, R26
    FADD    R17, R17, R27
    FADD    R17, R17, R28
    FADD    R17, R17, R29
    FADD    R17, R17, R30
    FADD    R17, R17, R31
    FADD    R17, R17, R32
    FADD    R17, R17, R33
    FADD    R17, R17, R34
    FADD    R17, R17, R35
    FADD    R17, R17, R36
    IADD    R19, R19, 64
    IADD    R20, R20, 16
    ISETP.LT.U32 P1, R20, 256
@P1 BRA     LOADS
    ST.SHARED.F32 [R16], R17        // shm[1024 + tid] = sum
    IADD    R18, R18, 1
    ISETP.LT.U32 P2, R18, R12
@P2 BRA     TURN
    ST.GLOBAL.F32 [R5], R17
    EXIT
