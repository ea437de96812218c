// seed_trace: the worked trace of the `teaching` machine (one SM, one partition,
// a 4-stage multiply-accumulate pipeline). Eight warps each issue
// `FFMA R3, RZ, RZ, RZ` and then a second FFMA that depends on the first
// through R3 (the values do not matter to the timing; RZ reads 0).
//
// On `teaching` the arbiter grants warp 0 in cycle 0: issue 0, register read 1,
// dispatch (handshake) 2, execute 3-6 (the 4-stage MAC pipeline), writeback 7;
// its dependent FFMA issues at 8. Meanwhile the other warps' independent FFMAs
// issue one per cycle, 1 to 7, filling the pipeline.
//
// Try it:
//   simt run asm/bench/seed_trace.s --timing teaching --pipeview
.kernel seed_trace
.launch grid(1) block(256)

    FFMA    R3, RZ, RZ, RZ
    FFMA    R3, RZ, RZ, R3          // depends on the first through R3
    EXIT
