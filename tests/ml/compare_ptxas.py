"""Compares what simt makes of ML compilers' PTX with what NVIDIA's ptxas makes of it.

For each `.ptx` file of the folders given (the corpora by default), counts the instructions
`simt ptx` lists and the SASS instructions ptxas compiles the file to for its own `.target`
(`cuobjdump -sass`, leaving out `NOP`s and the branch-to-self after the last `EXIT`, both
padding), then prints the totals, their ratio, and the files simt makes longest against
ptxas. It is how far the PTX front end is from the real compiler's instruction count, which
the timing backend's cycles for these kernels stand on (docs/ptx.md, "ML compilers' PTX").
Only kernels without loops compare so: ptxas unrolls loops (tinygrad's `sum_all`, 33
instructions in simt, is 1,839 in SASS), so their totals are printed apart.

Usage:
  python3 compare_ptxas.py SIMT [--ptx DIR ...] [--bin DIR] [--worst N]

ptxas and cuobjdump come with Triton (`triton/backends/nvidia/bin`, found in the Python that
runs this; the ML venv of README.md has it), or from `--bin DIR`. Needs no GPU.
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from compare_builds import CORPORA, HERE, listed


def nvidia_bin():
    """Triton's folder of NVIDIA tools, or None."""
    try:
        import triton
    except ImportError:
        return None
    path = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")
    return path if os.path.exists(os.path.join(path, "ptxas")) else None


def compiled(tools, path):
    """The SASS instructions ptxas makes of `path` for its `.target`, or None when it refuses it."""
    with open(path) as f:
        target = re.search(r"\.target\s+(sm_\d+a?)", f.read())
    if not target:
        return None
    with tempfile.TemporaryDirectory() as scratch:
        cubin = os.path.join(scratch, "k.cubin")
        if subprocess.run([os.path.join(tools, "ptxas"), f"-arch={target.group(1)}", path, "-o", cubin], capture_output=True).returncode:
            return None
        sass = subprocess.run([os.path.join(tools, "cuobjdump"), "-sass", cubin], capture_output=True, text=True).stdout
    count, previous = 0, ""
    for line in sass.splitlines():
        m = re.match(r"\s+/\*[0-9a-f]{4}\*/\s+([^\s;]+)", line)
        if not m or m.group(1) == "NOP" or (m.group(1) == "BRA" and previous == "EXIT"):
            continue
        count += 1
        previous = m.group(1)
    return count


def has_loop(path):
    """Whether the PTX branches back to a label above the branch."""
    seen = set()
    with open(path) as f:
        for line in f:
            label = re.match(r"\s*([$%\w]+):", line)
            if label:
                seen.add(label.group(1))
            target = re.search(r"\bbra(?:\.uni)?\s+([$%\w]+)\s*;", line)
            if target and target.group(1) in seen:
                return True
    return False


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("simt")
    p.add_argument("--ptx", action="append", help="a folder of .ptx files (default: the two corpora)")
    p.add_argument("--bin", help="the folder holding ptxas and cuobjdump (default: Triton's)")
    p.add_argument("--worst", type=int, default=10, help="how many of the files simt makes longest to name")
    a = p.parse_args()
    tools = a.bin or nvidia_bin()
    if not tools:
        sys.exit("no ptxas: install triton (tests/ml/README.md) or give --bin DIR")
    simt = os.path.abspath(a.simt)
    for folder in a.ptx or [os.path.join(HERE, c) for c in CORPORA]:
        paths = sorted(glob.glob(os.path.join(folder, "*.ptx")))
        with ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
            counts = list(pool.map(lambda path: (path, listed(simt, path), compiled(tools, path)), paths))
        both = [(path, ours, theirs) for path, ours, theirs in counts if ours and theirs]
        straight = [c for c in both if not has_loop(c[0])]
        for what, files in (("without loops", straight), ("with loops (ptxas unrolls them)", [c for c in both if has_loop(c[0])])):
            ours, theirs = sum(c[1] for c in files), sum(c[2] for c in files)
            print(f"{folder}, {len(files)} kernels {what}: simt {ours:,}, ptxas {theirs:,} instructions ({ours / max(theirs, 1):.3f}x)")
        for path, o, t in sorted(straight, key=lambda c: c[1] / c[2], reverse=True)[: a.worst]:
            print(f"  {o / t:.2f}x {os.path.basename(path)}: simt {o}, ptxas {t}")


if __name__ == "__main__":
    main()
