"""Speed of simt from Python against Rust and the CLI (issue 16): not a test, a measurement.

Run from the repository root with the package installed (release build) and
`simt` built (`cargo build --release`):

    python crates/simt-py/bench/speed.py [path/to/simt]

Prints the cost of launching a one-warp kernel from Python (compare with
`cargo bench -p simt-interp --bench interp -- one-warp`, the same launch from
Rust), a 16M-element saxpy from Python and from the CLI (the same generated
inputs in both, alternated, best and median of 7), and the peak RSS of a fresh
process that passes a 256 MB array in and takes a 256 MB result out.
"""

import resource
import subprocess
import sys
import time
import timeit

import numpy as np

import simt


def peak_rss_of_a_large_launch():
    """Runs in a fresh process, so its peak RSS is this launch's."""
    n = 1 << 26  # 64M float32: 256 MB
    saxpy = simt.load("asm/saxpy.s")["saxpy"]
    x = np.ones(n, dtype=np.float32)
    r = saxpy.run(grid=n // 256, block=256, args={"n": n, "a": 2.0, "x": x, "y": f"fill({n}, 1)"})
    assert r["y"][0] == 3.0
    held = x.nbytes + r["y"].nbytes
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"256 MB in, 256 MB out: peak RSS {peak / 2**20:.0f} MiB for {held / 2**20:.0f} MiB held = {peak / held:.2f}x")


def main():
    cli = sys.argv[1] if len(sys.argv) > 1 else "target/release/simt"
    n = 1 << 24

    one_warp = simt.assemble(".kernel k\n.launch grid(1) block(32)\nEXIT\n")["k"]
    runs = 5000
    one_warp.run(threads=1)
    per_launch = min(timeit.repeat(lambda: one_warp.run(threads=1), number=runs, repeat=3)) / runs
    print(f"one-warp launch from Python: {per_launch * 1e6:.1f} us")

    saxpy = simt.load("asm/saxpy.s")["saxpy"]
    args = {"n": n, "a": 2.5, "x": f"rand({n}, 1)", "y": f"rand({n}, 2)"}
    cli_args = [cli, "run", "asm/saxpy.s", "--grid", str(n // 256), "--block", "256", "--arg", f"n={n}", "--arg", "a=2.5",
                "--arg", f"x=rand({n}, 1)", "--arg", f"y=rand({n}, 2)", "--dump", "y=/dev/null"]
    py, whole = [], []
    for _ in range(7):
        start = time.perf_counter()
        saxpy.run(grid=n // 256, block=256, args=args)
        py.append(time.perf_counter() - start)
        start = time.perf_counter()
        subprocess.run(cli_args, check=True, stdout=subprocess.DEVNULL)
        whole.append(time.perf_counter() - start)
    py.sort()
    whole.sort()
    print(f"saxpy 16M: Python best {py[0] * 1e3:.0f} ms, median {py[3] * 1e3:.0f} ms (buffers returned as numpy); "
          f"CLI best {whole[0] * 1e3:.0f} ms, median {whole[3] * 1e3:.0f} ms (process start and a dump included)")

    subprocess.run([sys.executable, __file__, "--rss"], check=True)


if __name__ == "__main__":
    if sys.argv[1:] == ["--rss"]:
        peak_rss_of_a_large_launch()
    else:
        main()
