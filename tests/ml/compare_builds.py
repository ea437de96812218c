"""Compares what two simt builds make of ML compilers' PTX: instructions translated, and run.

For each `.ptx` file of the folders given (the corpora by default), counts the instructions
`simt ptx` lists under each build and names every file the NEW build makes longer or fails
on; then runs each corpus kernel's manifest command with `--stats` under both and sums the
warp instructions issued. The PTX front end's changes are measured with it (docs/ptx.md,
"ML compilers' PTX").

Usage:
  python3 compare_builds.py OLD NEW [--ptx DIR ...] [--no-run]

OLD and NEW are `simt` binaries (build the old one from a worktree of the commit before).
Needs only the standard library; prints one line per file that got longer and the totals.
"""
import argparse
import glob
import json
import os
import re
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPORA = ("triton", "tinygrad")


def listed(simt, path):
    """The instructions `simt ptx` lists for `path`, or None when it refuses the file."""
    r = subprocess.run([simt, "ptx", path], capture_output=True, text=True)
    if r.returncode:
        return None
    return sum(1 for line in r.stdout.splitlines() if re.match(r"    [A-Z@]", line))


def issued(simt, corpus, kernel):
    """Warp instructions the kernel's manifest command issues under `simt` (its dumps left out)."""
    words = shlex.split(kernel["simt_command"])[1:]
    command = []
    skip = False
    for w in words:
        if skip:
            skip = False
        elif w == "--dump":
            skip = True
        else:
            command.append(w)
    r = subprocess.run([simt] + command + ["--stats"], cwd=os.path.join(HERE, corpus), capture_output=True, text=True)
    m = re.search(r"issued (\d+) warp instructions", r.stdout + r.stderr)
    return int(m.group(1)) if m else None


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--ptx", action="append", help="a folder of .ptx files (default: the two corpora)")
    p.add_argument("--no-run", action="store_true", help="count translated instructions only")
    a = p.parse_args()
    old, new = os.path.abspath(a.old), os.path.abspath(a.new)
    status = 0
    for folder in a.ptx or [os.path.join(HERE, c) for c in CORPORA]:
        totals = [0, 0]
        for path in sorted(glob.glob(os.path.join(folder, "*.ptx"))):
            before, after = listed(old, path), listed(new, path)
            if after is None and before is not None:
                print(f"refused now: {path}")
                status = 1
            elif before is not None and after is not None:
                totals[0] += before
                totals[1] += after
                if after > before:
                    print(f"longer: {path} {before} -> {after}")
        print(f"{folder}: {totals[0]:,} -> {totals[1]:,} instructions translated")
    if not a.no_run:
        for corpus in CORPORA:
            with open(os.path.join(HERE, corpus, "kernels.json")) as f:
                manifest = json.load(f)
            kernels = manifest["kernels"] if isinstance(manifest, dict) else manifest
            totals = [0, 0]
            for k in kernels:
                counts = [issued(old, corpus, k), issued(new, corpus, k)]
                if None in counts:
                    print(f"did not run: {corpus}/{k['name']} {counts}")
                    continue
                totals = [t + c for t, c in zip(totals, counts)]
            print(f"{corpus}: {totals[0]:,} -> {totals[1]:,} warp instructions issued")
    sys.exit(status)


if __name__ == "__main__":
    main()
