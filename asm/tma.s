// tma: a 64 x 64 f32 matrix transposed a 32 x 32 tile per block, each tile brought into shared
// memory by Hopper's tensor memory accelerator (TMA.LOAD, PTX cp.async.bulk.tensor) and written
// back by TMA.STORE.
//
// src and dst are tensor maps (docs/tensor.md, "Tensor maps"): `tensormap(...)` makes the tensor
// and the 128 bytes that describe it, and the parameter holds the map's address. Both boxes are
// 32 x 32 elements, rows of 128 bytes swizzled by 128 bytes: the 16-byte chunk j of row r lies
// in chunk j ^ (r % 8) of that row, so element (r, c) of a tile at a 1024-byte boundary is at
//     r * 128 + ((c / 4) ^ (r % 8)) * 16 + (c % 4) * 4.
// Thread 0 initialises the mbarrier, arrives on it expecting the box's 4096 bytes and starts the
// copy, which completes those bytes; every thread waits for phase 0 to complete (MBAR.TEST in a
// loop), moves its 8 elements from `tile` to their transposed places in `moved`, and after the
// block's barrier thread 0 stores `moved` as the tile at the transposed coordinates.
//
// Try it:
//   simt run asm/tma.s --dump dst
//   simt run asm/tma.s --timing h100
.target sm_90
.kernel tma
.param .raw.f32 src
.param .raw.f32 dst
.shared .align 1024 .u32 tile[1024]     // the tile as TMA.LOAD lays it out (4096 bytes)
.shared .align 1024 .u32 moved[1024]    // its transpose, laid out the same way
.shared .align 8 .u32 bar[2]            // the mbarrier
.launch grid(2, 2) block(128)
.arg src = tensormap(rand(4096, 7), box=[32, 32], swizzle=128, shape=[64, 64], type=f32)
.arg dst = tensormap(zeros(4096), box=[32, 32], swizzle=128, shape=[64, 64], type=f32)

    S2R     R0, SR_TID.X
    S2R     R1, SR_CTAID.X
    S2R     R2, SR_CTAID.Y
    SHL     R1, R1, 5               // x, the tile's first column (coordinates: innermost first)
    SHL     R2, R2, 5               // y, its first row
    LD.PARAM.U32 R4, [src]          // the maps' addresses, as pairs
    MOV     R5, 0
    LD.PARAM.U32 R6, [dst]
    MOV     R7, 0
    ISETP.EQ.U32 P0, R0, 0
@P0 MBAR.INIT [bar], 1              // one arrival a phase: thread 0's
    BAR.SYNC                        // every thread sees it initialised
@P0 MBAR.ARRIVE RZ, [bar], 1, 4096  // and the phase waits for the box's bytes too
@P0 TMA.LOAD.2D tile, R4, R1, bar
WAIT:
    MBAR.TEST P1, [bar], 0          // has phase 0 completed?
@!P1 BRA    WAIT
    // thread t: column c = t % 32 of rows r = t / 32, + 4, ..., + 28
    AND     R10, R0, 31             // c
    SHR     R11, R0, 5              // r
    SHR     R12, R10, 2             // c / 4
    AND     R13, R10, 3             // c % 4
    AND     R14, R10, 7             // c % 8
MOVE:
    AND     R15, R11, 7
    XOR     R15, R15, R12           // chunk (c / 4) ^ (r % 8)
    SHL     R15, R15, 4
    LEA     R15, R13, R15, 2        // + (c % 4) * 4
    LEA     R15, R11, R15, 7        // + r * 128
    LD.SHARED.U32 R16, [R15+tile]   // element (r, c)
    SHR     R17, R11, 2
    XOR     R17, R17, R14           // chunk (r / 4) ^ (c % 8)
    SHL     R17, R17, 4
    AND     R18, R11, 3
    LEA     R17, R18, R17, 2        // + (r % 4) * 4
    LEA     R17, R10, R17, 7        // + c * 128
    ST.SHARED.U32 [R17+moved], R16  // is element (c, r) of the transpose
    IADD    R11, R11, 4
    ISETP.LT.U32 P2, R11, 32
@P2 BRA     MOVE
    BAR.SYNC                        // `moved` is whole
    MOV     R8, R2                  // the transposed tile's coordinates: (y, x)
    MOV     R9, R1
@P0 TMA.STORE.2D R6, R8, moved
    EXIT
