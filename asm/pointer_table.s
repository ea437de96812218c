// pointer_table: sums[g] = the sum of array g's lens[g] elements, each array reached through
// a table of pointers (C's `float **`, Triton's grouped GEMM): thread g of the warp takes
// array g.
//
// `pointers(B0, B1, ...)` gives the parameter the address of a table of 64-bit addresses,
// one for each buffer; the buffers are `arrays.0`, `arrays.1`, ... for --dump and the
// debugger, and `arrays` itself is the table. Every address lies below 2^32, so a kernel
// that addresses GLOBAL memory with 32 bits reads the low word of each entry.
//
// Try it:
//   simt run asm/pointer_table.s --dump sums --dump arrays
//   simt run asm/pointer_table.s --arg 'arrays=pointers(iota(5), fill(2, 0.25), type=f32)' \
//       --arg 'lens=[5, 2]' --arg groups=2 --dump sums --dump arrays.1
.kernel pointer_table
.param .u32 groups
.param .u64 arrays
.param .ptr.u32 lens
.param .ptr.f32 sums
.launch grid(1) block(32)
.arg groups = 3
.arg arrays = pointers([1, 2, 3, 4], [0.5, 0.5], fill(10, 2), type=f32)
.arg lens = [4, 2, 10]
.arg sums = zeros(3)

    S2R     R0, SR_TID.X            // g
    LD.PARAM.U32 R1, [groups]
    ISETP.GE.U32 P0, R0, R1
@P0 EXIT                            // no array for this thread
    LD.PARAM.U32 R2, [arrays]       // the table's address (its low word)
    SHL     R3, R0, 3
    IADD    R3, R2, R3
    LD.GLOBAL.U32 R4, [R3]          // arrays[g]: its low word is the array's address
    LD.PARAM.U32 R5, [lens]
    SHL     R6, R0, 2
    IADD    R5, R5, R6
    LD.GLOBAL.U32 R5, [R5]          // lens[g]
    MOV     R7, 0                   // the sum
LOOP:
    ISETP.EQ.U32 P1, R5, 0
@P1 BRA     DONE                    // threads of shorter arrays wait here for the rest
    LD.GLOBAL.F32 R8, [R4]
    FADD    R7, R7, R8
    IADD    R4, R4, 4
    IADD    R5, R5, -1
    BRA     LOOP
DONE:
    LD.PARAM.U32 R9, [sums]
    IADD    R9, R9, R6
    ST.GLOBAL.F32 [R9], R7
    EXIT
