// The classic intra-warp spin lock: every thread takes one global lock,
// increments a counter and releases the lock.
//
// Under --simt its (the default) it completes: the thread that won the lock
// waits at the reconvergence point after the spin loop; once the spinning
// threads have taken 16 backward branches in a row (--its-yield) they yield
// to it, it leaves the critical section and releases the lock.
// Under --simt stack it cannot finish: the winner waits on the reconvergence
// stack below the spinners forever, and the launch faults at the step limit.
//   simt run asm/divergence/spinlock.s --dump counter
//   simt run asm/divergence/spinlock.s --simt stack --max-steps 100000   # exit 2: the step limit
.kernel spinlock
.param .ptr.u32 lock
.param .ptr.u32 counter
.launch grid(2) block(64)
.arg lock = zeros(1)
.arg counter = zeros(1)

    LD.PARAM.U32 R0, [lock]
    LD.PARAM.U32 R1, [counter]
    MOV  R2, 1
SPIN:
    ATOM.GLOBAL.CAS.B32 R3, [R0], RZ, R2    // old = lock; if old == 0 then lock = 1
    ISETP.NE P0, R3, 0
@P0 BRA  SPIN                               // someone else holds it: try again
    LD.GLOBAL.U32 R4, [R1]                  // critical section
    IADD R4, R4, 1
    ST.GLOBAL.U32 [R1], R4
    MEMBAR.GL
    ATOM.GLOBAL.EXCH.B32 RZ, [R0], RZ       // release
    EXIT
