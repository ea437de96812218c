// bob: multiplies and adds separately: two roundings, within 1e-6 of the reference.
.kernel saxpy
.param .u32 n
.param .f32 a
.param .ptr.f32 x
.param .ptr.f32 y
.launch grid(4) block(256)
.arg n = 1000
.arg a = 2.5
.arg x = rand(1000, 1)
.arg y = rand(1000, 2)
    S2R     R0, SR_TID.X
    S2R     R1, SR_CTAID.X
    S2R     R2, SR_NTID.X
    IMAD    R0, R1, R2, R0
    LD.PARAM.U32 R3, [n]
    ISETP.GE.U32 P0, R0, R3
@P0 EXIT
    LD.PARAM.U32 R4, [x]
    LD.PARAM.U32 R5, [y]
    LEA     R4, R0, R4, 2
    LEA     R5, R0, R5, 2
    LD.GLOBAL.F32 R6, [R4]
    LD.GLOBAL.F32 R7, [R5]
    LD.PARAM.F32 R8, [a]
    FMUL    R6, R8, R6
    FADD    R7, R6, R7
    ST.GLOBAL.F32 [R5], R7
    EXIT
