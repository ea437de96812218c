// Planted bug for memcheck (always on): the kernel launches 64 threads for a
// 60-element buffer and forgets the bounds check, so threads 60..63 write
// past the end of `y`.
//   simt run asm/bugs/oob.s                         # exit 2: reports line 16, buffer `y`
.kernel oob
.param .ptr.f32 x
.param .ptr.f32 y
.launch grid(1) block(64)
.arg x = iota(64)
.arg y = zeros(60)

    S2R   R0, SR_TID.X
    LD.PARAM.U32 R1, [y]
    LEA   R1, R0, R1, 2
    MOV   R2, 1.5
    ST.GLOBAL.F32 [R1], R2          // no `if (i < n)`: threads 60.. are out of bounds
    EXIT
