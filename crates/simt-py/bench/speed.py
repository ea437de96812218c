"""Speed of simt from Python against the CLI (issue 16): not a test, a measurement.

Run from the repository root with the package installed (release build) and
`simt` built (`cargo build --release`):

    python crates/simt-py/bench/speed.py [path/to/simt]

Prints the cost of launching a one-warp kernel from Python, and a 16M-element
saxpy from Python and from the CLI (the same generated inputs in both).
"""

import subprocess
import sys
import time
import timeit

import numpy as np

import simt

CLI = sys.argv[1] if len(sys.argv) > 1 else "target/release/simt"
N = 1 << 24


def best(f, repeat=3):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


one_warp = simt.assemble(".kernel k\n.launch grid(1) block(32)\nEXIT\n")["k"]
runs = 2000
per_launch = timeit.timeit(lambda: one_warp.run(threads=1), number=runs) / runs
print(f"one-warp launch from Python: {per_launch * 1e6:.1f} us")

saxpy = simt.load("asm/saxpy.s")["saxpy"]
args = {"n": N, "a": 2.5, "x": f"rand({N}, 1)", "y": f"rand({N}, 2)"}
py = best(lambda: saxpy.run(grid=N // 256, block=256, args=args))
cli_args = [CLI, "run", "asm/saxpy.s", "--grid", str(N // 256), "--block", "256", "--arg", f"n={N}", "--arg", "a=2.5",
            "--arg", f"x=rand({N}, 1)", "--arg", f"y=rand({N}, 2)", "--dump", "y=/dev/null"]
cli = best(lambda: subprocess.run(cli_args, check=True))
print(f"saxpy 16M: Python {py * 1e3:.0f} ms (buffers returned as numpy), CLI {cli * 1e3:.0f} ms (process start and a dump included)")

x = np.random.default_rng(0).random(N, dtype=np.float32)
y = np.zeros(N, dtype=np.float32)
arrays = best(lambda: saxpy.run(grid=N // 256, block=256, args={"n": N, "a": 2.5, "x": x, "y": y}))
print(f"saxpy 16M with numpy inputs: {arrays * 1e3:.0f} ms")
