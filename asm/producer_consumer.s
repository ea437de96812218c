// producer_consumer: column sums of a rows x 64 f32 matrix by a warp-specialized pipeline:
//   sums[c] = x[0][c] + x[1][c] + ... + x[rows - 1][c], added in row order (f32).
//
// Algorithm: the block's warps take roles, as Hopper kernels (CUTLASS's, Triton's
// warp_specialize) do. Warp 0, the producer, copies the matrix into shared memory a row at a
// time, into two stages used in turn (row i into stage s = i % 2); warps 1 and 2, the
// consumers, add each row into their column's running sum (thread 32 + c keeps column c).
// Named barriers hand the stages back and forth, four of them counting 96 threads (the
// three warps):
//   FULL[s]  = barrier 1 + s: the producer arrives (BAR.ARRIVE: it does not wait) once row i
//              is in stage s; the consumers wait there (BAR.SYNC) before reading it.
//   EMPTY[s] = barrier 3 + s: the consumers arrive once they have read stage s; the producer
//              waits there before it refills stage s with row i + 2.
// So the producer copies row i + 1 while the consumers add row i. A barrier completes when
// its 96 threads have arrived, counted a warp (32) at a time, whether they wait or not
// (docs/language.md, "Block barriers").
//
// Try it:
//   simt run asm/producer_consumer.s --dump sums
//   simt run asm/producer_consumer.s --timing h100      # consumers wait at barriers while rows come from DRAM
.kernel producer_consumer
.param .u32 rows
.param .ptr.f32 x
.param .ptr.f32 sums
.shared .align 16 .f32 stage[128]       // two stages of one 64-float row
.launch grid(1) block(96)
.arg rows = 40
.arg x = rand(2560, 3)
.arg sums = zeros(64)

    S2R     R0, SR_TID.X
    SHR.U32 R1, R0, 5               // the warp
    LD.PARAM.U32 R2, [rows]
    MOV     R4, 0                   // i, the row
    ISETP.NE.U32 P0, R1, 0
@P0 BRA     CONSUME                 // warp-uniform: roles are whole warps

    // Producer (warp 0): lane l copies columns l and 32 + l of each row.
    LD.PARAM.U32 R3, [x]
    LEA     R3, R0, R3, 2           // &x[0][l]
    SHL     R8, R0, 2               // l * 4
PRODUCE:
    ISETP.GE.U32 P1, R4, R2
@P1 EXIT
    AND     R5, R4, 1               // s
    ISETP.GE.U32 P2, R4, 2          // stage s held row i - 2: wait until it has been read
    IADD    R6, R5, 3
@P2 BAR.SYNC R6, 96                 // EMPTY[s]
    LD.GLOBAL.F32 R9, [R3]
    LD.GLOBAL.F32 R10, [R3+128]
    SHL     R11, R5, 8              // s * 256 bytes
    IADD    R11, R11, R8
    ST.SHARED.F32 [R11+stage], R9
    ST.SHARED.F32 [R11+stage+128], R10
    IADD    R6, R5, 1
    BAR.ARRIVE R6, 96               // FULL[s]: row i is in stage s
    IADD    R3, R3, 256             // the next row
    IADD    R4, R4, 1
    BRA     PRODUCE

    // Consumers (warps 1 and 2): thread 32 + c adds column c.
CONSUME:
    ISUB    R8, R0, 32              // c
    SHL     R12, R8, 2              // c * 4
    MOV     R13, 0                  // the running sum, 0.0
NEXT:
    ISETP.GE.U32 P1, R4, R2
@P1 BRA     DONE
    AND     R5, R4, 1               // s
    IADD    R6, R5, 1
    BAR.SYNC R6, 96                 // FULL[s]: wait for row i
    SHL     R11, R5, 8
    IADD    R11, R11, R12
    LD.SHARED.F32 R9, [R11+stage]
    FADD    R13, R13, R9
    IADD    R6, R5, 3
    BAR.ARRIVE R6, 96               // EMPTY[s]: stage s may be refilled
    IADD    R4, R4, 1
    BRA     NEXT
DONE:
    LD.PARAM.U32 R3, [sums]
    IADD    R3, R3, R12
    ST.GLOBAL.F32 [R3], R13
    EXIT
