// shared_ways: shared-memory load throughput against bank conflicts, after kzwrime's
// gpu_shm_microbench `add_vectors` for floats, float2s and float4s
// (github.com/kzwrime/gpu_shm_microbench). Blocks of 128 threads fill 16 KB of shared
// memory, then each thread adds up `repeats` x 256 elements of `width` floats at
// shm[(tid % ways) * 32 + tid / share + j], j = 0..255 (in elements), a chain of adds per
// float of the element, and stores its sum back once a turn, as that kernel does, but to
// words of its own beyond what any thread reads, from byte 12288: the original writes
// shm[tid + i % 256], into words other threads read and wrote, a race; either store is a
// pass or a few for the warp. `ways` = k, `share` = k is its k-way conflict (k lanes in one
// bank, 32 elements apart); `ways` = 1, `share` = 32 its broadcast (a warp reads one
// element); `ways` = 1, `share` = 1 its "normal" (consecutive elements). With enough warps
// the shared pipeline bounds the launch, so a k-way conflict of floats takes about k times
// the broadcast's cycles.
//
// Try it (a 4-way conflict of floats, then of float4s, then the float broadcast, on one block):
//   simt run asm/bench/shared_ways.s --timing v100 --arg ways=4 --arg share=4
//   simt run asm/bench/shared_ways.s --timing v100 --arg ways=4 --arg share=4 --arg width=4
//   simt run asm/bench/shared_ways.s --timing v100 --arg ways=1 --arg share=32
.kernel shared_ways
.param .u32 ways                    // lanes tid % ways read words 32 apart: one bank
.param .u32 share                   // lanes tid / share read one word
.param .u32 repeats                 // turns of 256 loads
.param .u32 width                   // floats an element: 1, 2 or 4
.param .ptr.f32 a                   // one float per thread: its first value, then its sum
.shared .f32 shm[4096]
.launch grid(1) block(128)
.arg ways = 1
.arg share = 32
.arg repeats = 4
.arg width = 1
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
    LD.PARAM.U32 R13, [width]
    SHL     R14, R13, 2             // bytes an element
    IREM.U32 R15, R0, R10
    IDIV.U32 R16, R0, R11
    LEA     R15, R15, R16, 5        // (tid % ways) * 32 + tid / share
    IMAD    R15, R15, R14, R7       // its address at j = 0
    IMAD    R16, R0, R14, R7
    IADD    R16, R16, 12288         // where the sum goes
    MOV     R20, 0                  // the sum, R20 .. R19 + width
    MOV     R21, 0
    MOV     R22, 0
    MOV     R23, 0
    MOV     R17, 0                  // turns done
    ISETP.EQ.U32 P3, R13, 2
@P3 BRA     TURN2
    ISETP.EQ.U32 P3, R13, 4
@P3 BRA     TURN4
TURN:
    MOV     R18, R15
    MOV     R19, 0
LOADS:
    LD.SHARED.F32 R24, [R18+0]
    LD.SHARED.F32 R25, [R18+4]
    LD.SHARED.F32 R26, [R18+8]
    LD.SHARED.F32 R27, [R18+12]
    LD.SHARED.F32 R28, [R18+16]
    LD.SHARED.F32 R29, [R18+20]
    LD.SHARED.F32 R30, [R18+24]
    LD.SHARED.F32 R31, [R18+28]
    LD.SHARED.F32 R32, [R18+32]
    LD.SHARED.F32 R33, [R18+36]
    LD.SHARED.F32 R34, [R18+40]
    LD.SHARED.F32 R35, [R18+44]
    LD.SHARED.F32 R36, [R18+48]
    LD.SHARED.F32 R37, [R18+52]
    LD.SHARED.F32 R38, [R18+56]
    LD.SHARED.F32 R39, [R18+60]
    FADD    R20, R20, R24
    FADD    R20, R20, R25
    FADD    R20, R20, R26
    FADD    R20, R20, R27
    FADD    R20, R20, R28
    FADD    R20, R20, R29
    FADD    R20, R20, R30
    FADD    R20, R20, R31
    FADD    R20, R20, R32
    FADD    R20, R20, R33
    FADD    R20, R20, R34
    FADD    R20, R20, R35
    FADD    R20, R20, R36
    FADD    R20, R20, R37
    FADD    R20, R20, R38
    FADD    R20, R20, R39
    IADD    R18, R18, 64
    IADD    R19, R19, 16
    ISETP.LT.U32 P1, R19, 256
@P1 BRA     LOADS
    ST.SHARED.F32    [R16], R20        // the sum, to words of its own
    IADD    R17, R17, 1
    ISETP.LT.U32 P2, R17, R12
@P2 BRA     TURN
    BRA     DONE
TURN2:
    MOV     R18, R15
    MOV     R19, 0
LOADS2:
    LD.SHARED.V2.B32 R24, [R18+0]
    LD.SHARED.V2.B32 R26, [R18+8]
    LD.SHARED.V2.B32 R28, [R18+16]
    LD.SHARED.V2.B32 R30, [R18+24]
    LD.SHARED.V2.B32 R32, [R18+32]
    LD.SHARED.V2.B32 R34, [R18+40]
    LD.SHARED.V2.B32 R36, [R18+48]
    LD.SHARED.V2.B32 R38, [R18+56]
    FADD    R20, R20, R24
    FADD    R21, R21, R25
    FADD    R20, R20, R26
    FADD    R21, R21, R27
    FADD    R20, R20, R28
    FADD    R21, R21, R29
    FADD    R20, R20, R30
    FADD    R21, R21, R31
    FADD    R20, R20, R32
    FADD    R21, R21, R33
    FADD    R20, R20, R34
    FADD    R21, R21, R35
    FADD    R20, R20, R36
    FADD    R21, R21, R37
    FADD    R20, R20, R38
    FADD    R21, R21, R39
    IADD    R18, R18, 64
    IADD    R19, R19, 8
    ISETP.LT.U32 P1, R19, 256
@P1 BRA     LOADS2
    ST.SHARED.V2.B32 [R16], R20
    IADD    R17, R17, 1
    ISETP.LT.U32 P2, R17, R12
@P2 BRA     TURN2
    BRA     DONE
TURN4:
    MOV     R18, R15
    MOV     R19, 0
LOADS4:
    LD.SHARED.V4.B32 R24, [R18+0]
    LD.SHARED.V4.B32 R28, [R18+16]
    LD.SHARED.V4.B32 R32, [R18+32]
    LD.SHARED.V4.B32 R36, [R18+48]
    LD.SHARED.V4.B32 R40, [R18+64]
    LD.SHARED.V4.B32 R44, [R18+80]
    LD.SHARED.V4.B32 R48, [R18+96]
    LD.SHARED.V4.B32 R52, [R18+112]
    FADD    R20, R20, R24
    FADD    R21, R21, R25
    FADD    R22, R22, R26
    FADD    R23, R23, R27
    FADD    R20, R20, R28
    FADD    R21, R21, R29
    FADD    R22, R22, R30
    FADD    R23, R23, R31
    FADD    R20, R20, R32
    FADD    R21, R21, R33
    FADD    R22, R22, R34
    FADD    R23, R23, R35
    FADD    R20, R20, R36
    FADD    R21, R21, R37
    FADD    R22, R22, R38
    FADD    R23, R23, R39
    FADD    R20, R20, R40
    FADD    R21, R21, R41
    FADD    R22, R22, R42
    FADD    R23, R23, R43
    FADD    R20, R20, R44
    FADD    R21, R21, R45
    FADD    R22, R22, R46
    FADD    R23, R23, R47
    FADD    R20, R20, R48
    FADD    R21, R21, R49
    FADD    R22, R22, R50
    FADD    R23, R23, R51
    FADD    R20, R20, R52
    FADD    R21, R21, R53
    FADD    R22, R22, R54
    FADD    R23, R23, R55
    IADD    R18, R18, 128
    IADD    R19, R19, 8
    ISETP.LT.U32 P1, R19, 256
@P1 BRA     LOADS4
    ST.SHARED.V4.B32 [R16], R20
    IADD    R17, R17, 1
    ISETP.LT.U32 P2, R17, R12
@P2 BRA     TURN4
DONE:
    FADD    R20, R20, R21           // one float for the host, as the original keeps one
    FADD    R20, R20, R22
    FADD    R20, R20, R23
    ST.GLOBAL.F32 [R5], R20
    EXIT
