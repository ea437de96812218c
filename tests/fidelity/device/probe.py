#!/usr/bin/env python3
"""Times the cases of probe.ptx (built from probe.cu by regen.py) on a GPU or on simt, one line a
case: `CASE warps=W chains=I VALUE UNIT`, so the two outputs compare line by line.

  probe.py gpu                 on the GPU, through CuPy (the device machines have it): the
                               compute cases, then global atomics under contention and the
                               pointer chase at strides 32-4096 over 4 KB to 8 GB, each with
                               the SM clock NVML read just after it
  probe.py simt MACHINE        the compute cases on `simt run --timing MACHINE`, from the same
                               PTX (SIMT names the binary; default target/release/simt)

A compute case runs one block of W warps, each with I independent chains of `steps` x `unroll`
dependent instructions, twice (the first warms the instruction cache), and gives the cycles the
first warp took per instruction of one chain: the latency with one chain and one warp, the
issue interval with more. docs/timing.md, "Measuring a lent GPU", says how to run it there.
"""

import os
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
PTX = HERE / "probe.ptx"

# (case, kernel, warps, chains, steps, unroll): `unroll` instructions a chain per step.
COMPUTE = [
    ("shfl", "shfl_chains_1", 1, 1, 256, 8),
    ("shfl", "shfl_chains_8", 1, 8, 256, 8),
    ("shfl", "shfl_chains_8", 4, 8, 256, 8),
    ("shfl", "shfl_chains_4", 32, 4, 64, 8),
]
for sfu in ["ex2", "lg2", "sin", "rsqrt"]:
    for warps, chains, steps in [(1, 1, 256), (1, 8, 256), (1, 32, 64), (4, 8, 256), (32, 8, 64)]:
        COMPUTE.append((sfu, f"sfu_{sfu}_{chains}", warps, chains, steps, 8))
for warps in [1, 4, 8, 16, 32]:
    for op in ["ddiv", "dsqrt", "fdiv", "fsqrt"]:
        COMPUTE.append((op, f"{op}_chain", warps, 1, 256, 1))
for mma in ["f16_f32", "f16_f16", "bf16_f32", "tf32_f32", "s8_s32", "f64", "sp_f16_f32"]:
    for warps, chains, steps in [(1, 1, 256), (1, 4, 256), (4, 4, 256), (8, 8, 128), (32, 8, 64)]:
        COMPUTE.append((f"mma_{mma}", f"mma_{mma}_{chains}", warps, chains, steps, 1))

CHASE_STRIDES = [32, 64, 128, 512, 4096]
HOPS = 4096


def per_instruction(cycles, chains, steps, unroll):
    return cycles / (steps * unroll * chains)


def line(case, warps, chains, value, unit, extra=""):
    print(f"{case} warps={warps} chains={chains} {value:.3f} {unit}{extra}", flush=True)


def gpu():
    import cupy as cp
    import numpy as np
    import pynvml

    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(0)
    clock = lambda: f" sm_mhz={pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM)}"
    props = cp.cuda.runtime.getDeviceProperties(0)
    sms, l2 = props["multiProcessorCount"], props["l2CacheSize"]
    print(f"device {props['name'].decode()} sm_{props['major']}{props['minor']} sms={sms} l2={l2}{clock()}", flush=True)
    module = cp.RawModule(path=str(PTX))
    cycles = cp.zeros(2, dtype=cp.int64)
    out = cp.zeros(32 * 32 * 8, dtype=cp.uint8)
    for case, kernel, warps, chains, steps, unroll in COMPUTE:
        f = module.get_function(kernel)
        for _ in range(2):
            f((1,), (32 * warps,), (np.int32(steps), out, cycles))
        cp.cuda.Device().synchronize()
        line(case, warps, chains, per_instruction(int(cycles[0]), chains, steps, unroll), "cycles", clock())

    # Global atomics: two blocks of 1024 threads an SM, `iters` adds each, timed by events.
    blocks, threads, iters = 2 * sms, 1024, 64
    counters = cp.zeros(blocks * threads, dtype=cp.uint32)
    atomics = module.get_function("atomics")
    for mode, case in enumerate(["atomic_one_address", "atomic_address_per_warp", "atomic_address_per_thread"]):
        atomics((blocks,), (threads,), (counters, np.int32(mode), np.int32(4)))
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        atomics((blocks,), (threads,), (counters, np.int32(mode), np.int32(iters)))
        stop.record()
        stop.synchronize()
        ms = cp.cuda.get_elapsed_time(start, stop)
        line(case, blocks * threads // 32, 1, blocks * threads * iters / (ms * 1e6), "atomics_per_ns", clock())

    # The chase: slots in a full-period LCG order; a whole pass first where L2 could hold the
    # lines touched (beyond, every hop misses anyway), then HOPS timed hops.
    free, _ = cp.cuda.runtime.memGetInfo()
    largest = 8 << 30
    while largest > free // 2:
        largest //= 2
    buf = cp.empty(largest, dtype=cp.uint8)
    last = cp.zeros(1, dtype=cp.uint64)
    init, chase = module.get_function("chase_init"), module.get_function("chase")
    for stride in CHASE_STRIDES:
        size = 4096
        while size <= largest:
            slots = size // stride
            if slots >= 16:
                init((1024,), (256,), (buf, np.uint64(slots), np.uint64(stride)))
                warm = slots if min(slots * 128, size) <= l2 else 8192
                chase((1,), (1,), (buf, np.uint64(warm), np.uint64(HOPS), last, cycles))
                cp.cuda.Device().synchronize()
                print(f"chase stride={stride} bytes={size} {int(cycles[0]) / HOPS:.2f} cycles_per_hop{clock()}", flush=True)
            size *= 2


def entry(kernel):
    """probe.ptx's header and `kernel` alone: simt translates a whole module, and refuses one
    whose other kernels use forms its front end lacks."""
    text = PTX.read_text()
    first = text.index(".visible .entry")
    start = text.index(f".visible .entry {kernel}(")
    end = text.find(".visible .entry", start + 1)
    return text[:first] + text[start : end if end >= 0 else len(text)]


def simt(machine):
    binary = os.environ.get("SIMT", "target/release/simt")
    print(f"device simt --timing {machine}", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        for case, kernel, warps, chains, steps, unroll in COMPUTE:
            path = pathlib.Path(scratch) / f"{kernel}.ptx"
            path.write_text(entry(kernel))
            args = ["--arg", f"0={steps}", "--arg", "1=zeros(65536)", "--arg", "2=zeros(2)", "--dump", "2:u64"]
            run = subprocess.run([binary, "run", str(path), "--grid", "1", "--block", str(32 * warps), "--timing", machine, *args], capture_output=True, text=True)
            if run.returncode != 0:
                first = (run.stderr.strip().splitlines() or ["?"])[0]
                print(f"{case} warps={warps} chains={chains} refused: {first}", flush=True)
                continue
            cycles = int(re.search(r"-?\d+", run.stdout).group())
            line(case, warps, chains, per_instruction(cycles, chains, steps, unroll), "cycles")


if __name__ == "__main__":
    if sys.argv[1:2] == ["gpu"]:
        gpu()
    elif sys.argv[1:2] == ["simt"] and len(sys.argv) == 3:
        simt(sys.argv[2])
    else:
        sys.exit(__doc__)
