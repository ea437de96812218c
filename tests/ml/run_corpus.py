"""Runs the ML corpora (tests/ml/triton, tests/ml/tinygrad) through `simt run` and compares the results.

For each kernel of each kernels.json this runs the manifest's `simt run` command (in the
corpus folder, dumping the outputs into a scratch folder), then compares every dumped output
with its expected .npy under the kernel's tolerance: "exact" is bit-equality (NaNs equal),
"close" is |got - want| <= atol + rtol * |want| elementwise.

Usage:
  python run_corpus.py [--simt PATH] [--corpus triton,tinygrad] [--only NAME,...]
                       [--timeout SECONDS] [--json FILE] [-v]

Needs only numpy (any Python 3 with numpy; the venv of regen.sh has it). Prints one line per
kernel and a closing `N passed, N failed` line; the exit status is 1 when any kernel failed.
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def compare(got, want, tol):
    """(ok, detail) for one output."""
    if got.size != want.size:
        return False, f"size {got.size}, expected {want.size}"
    got = got.reshape(-1)
    want = want.reshape(-1)
    if got.dtype != want.dtype:
        if got.dtype.itemsize == want.dtype.itemsize:
            got = got.view(want.dtype)  # simt dumps some buffers under another element type of the same width
        else:
            return False, f"dtype {got.dtype}, expected {want.dtype}"
    if tol["kind"] == "exact" or want.dtype.kind in "biu":
        same = (got.view(np.uint8) == want.view(np.uint8)).reshape(got.size, -1).all(1)
        if want.dtype.kind == "f":
            same |= np.isnan(got) & np.isnan(want)
        bad = np.flatnonzero(~same)
        if bad.size == 0:
            return True, "exact"
        i = bad[0]
        return False, f"{bad.size}/{got.size} differ; first [{i}] got {got[i]!r} expected {want[i]!r}"
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    err = np.abs(g - w)
    lim = tol["atol"] + tol["rtol"] * np.abs(w)
    okm = (err <= lim) | (np.isnan(g) & np.isnan(w))
    bad = np.flatnonzero(~okm)
    worst = float(np.nanmax(err)) if err.size else 0.0
    if bad.size == 0:
        return True, f"max |diff| {worst:.3g}"
    i = bad[0]
    return False, f"{bad.size}/{got.size} outside rtol={tol['rtol']} atol={tol['atol']}; max |diff| {worst:.3g}; " \
                  f"first [{i}] got {got[i]!r} expected {want[i]!r}"


def command(kernel, simt, outdir, ptx=None, raw=False, corpus_dir="."):
    """argv of the kernel's simt run (from inside its corpus folder), dumping into outdir.
    raw: pass buffers as raw little-endian .bin files and dump them raw (no dtype checks)."""
    argv = shlex.split(kernel["simt_command"])
    argv[0] = simt
    if ptx is not None:
        argv[2] = ptx
    for i, a in enumerate(argv):
        if i > 0 and argv[i - 1] == "--dump":
            name, _, path = a.partition("=")
            if raw:
                path = path[:-4] + ".bin"
            argv[i] = f"{name}={os.path.join(outdir, path)}"
        elif raw and i > 0 and argv[i - 1] == "--arg" and "=@" in a:
            name, _, path = a.partition("=@")
            binpath = os.path.join(outdir, f"in.{name}.bin")
            np.load(os.path.join(corpus_dir, path)).tofile(binpath)
            argv[i] = f"{name}=@{binpath}"
    return argv


def run_kernel(corpus_dir, kernel, simt, timeout, ptx=None, raw=False):
    """{"status": pass|mismatch|refused|fault|timeout|error, "rc", "message"}"""
    outdir = tempfile.mkdtemp(prefix="simt-ml-run-")
    try:
        argv = command(kernel, simt, outdir, ptx, raw, corpus_dir)
        try:
            p = subprocess.run(argv + ["--timeout", str(timeout)], cwd=corpus_dir, capture_output=True, text=True,
                               timeout=timeout + 30)
        except subprocess.TimeoutExpired:
            return {"status": "timeout", "rc": None, "message": f"no answer after {timeout + 30} s"}
        msg = (p.stderr.strip() + "\n" + p.stdout.strip()).strip()
        if p.returncode == 1:
            return {"status": "refused", "rc": 1, "message": msg}
        if p.returncode == 2:
            status = "timeout" if "timeout" in msg.lower() or "wall-clock" in msg.lower() else "fault"
            return {"status": status, "rc": 2, "message": msg}
        if p.returncode != 0:
            return {"status": "error", "rc": p.returncode, "message": msg}
        details, ok = [], True
        for o in kernel["outputs"]:
            path = os.path.join(outdir, f"out.{o['param']}.{'bin' if raw else 'npy'}")
            if not os.path.exists(path):
                ok = False
                details.append(f"{o['param']}: no dump written")
                continue
            want = np.load(os.path.join(corpus_dir, o["expected"]))
            got = np.fromfile(path, dtype=want.dtype) if raw else np.load(path)
            good, d = compare(got, want, kernel["tolerance"])
            ok &= good
            details.append(f"{o['param']}: {d}")
        return {"status": "pass" if ok else "mismatch", "rc": 0, "message": "; ".join(details)}
    finally:
        shutil.rmtree(outdir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--simt", default=shutil.which("simt") or os.path.join(HERE, "..", "..", "target", "release", "simt"))
    ap.add_argument("--corpus", default="triton,tinygrad")
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--json", default="")
    ap.add_argument("-v", action="store_true", help="print the whole message of a failure")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    results, passed, failed = [], 0, 0
    for corpus in args.corpus.split(","):
        cdir = os.path.join(HERE, corpus)
        manifest = json.load(open(os.path.join(cdir, "kernels.json")))
        for k in manifest["kernels"]:
            if only and k["name"] not in only:
                continue
            r = run_kernel(cdir, k, args.simt, args.timeout)
            r.update(corpus=corpus, name=k["name"])
            results.append(r)
            first = r["message"].splitlines()[0] if r["message"] else ""
            print(f"{corpus}/{k['name']}: {r['status']}  {first}" if not args.v else
                  f"{corpus}/{k['name']}: {r['status']}\n{r['message']}\n")
            if r["status"] == "pass":
                passed += 1
            else:
                failed += 1
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
