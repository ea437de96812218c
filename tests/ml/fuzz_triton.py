"""Differential fuzzing of simt's PTX front end on kernels Triton compiles from random programs.

Each case is a random Triton kernel: loads of random inputs, a random tree of typed
element-wise operations (arithmetic, bit logic, shifts, division, comparisons, `tl.where`,
casts and bitcasts between float and integer types of every width), an element-wise store and
a reduction (sum, min, max, argmax, xor-sum, cumsum, sort) over a 1-D or 2-D tile. It is
compiled for a random target (sm_80, sm_89, sm_90a, sm_100a, sm_120a) and warp count, run by
`simt run`, and compared with the same kernel on Triton's own CPU interpreter
(`TRITON_INTERPRET=1`): bit for bit where both compute exactly, within a tolerance where an
approximate function or a float reduction's order is involved. The corpus (`triton/`) checks
chosen kernels; this finds what the PTX passes get wrong on forms nobody wrote down.

Usage: python fuzz_triton.py --simt PATH [--seed S] [--count N] [--keep DIR]
       python fuzz_triton.py --simt PATH --replay CASE_DIR...
Each mismatch or failure is kept in DIR (default /tmp/simt-fuzz-triton) as case<seed>/ with
the kernel's source (kernel.py), its PTX, inputs (p<i>.npy), the interpreter's outputs
(want_*.npy), simt's (got_*.npy), the launch (case.json) and the `simt run` command
(command.sh, run from that folder); `--replay` judges kept cases again with another build.
Exit status 1 when any case disagrees. Needs the venv regen.sh makes (triton, numpy); no GPU.
"""
import argparse
import importlib.util
import json
import math
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="simt-fuzz-triton-cache-"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Triton decides when triton.language is imported whether its functions compile or interpret,
# so the interpreter's references are computed by a second process of this script.
REFERENCE = len(sys.argv) > 1 and sys.argv[1] == "--reference"
if REFERENCE:
    os.environ["TRITON_INTERPRET"] = "1"

import numpy as np  # noqa: E402

import mlcorpus as mc  # noqa: E402
import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402

# Triton type -> (numpy dtype, bits, is float, is signed)
TYPES = {
    "float32": (np.float32, 32, True, True),
    "float16": (np.float16, 16, True, True),
    "float64": (np.float64, 64, True, True),
    "int64": (np.int64, 64, False, True),
    "int32": (np.int32, 32, False, True),
    "uint32": (np.uint32, 32, False, False),
    "int16": (np.int16, 16, False, True),
    "int8": (np.int8, 8, False, True),
    "uint8": (np.uint8, 8, False, False),
}
# FP8 codes of the integers -3 .. 3 (`tl.dot` operands only: numpy has no FP8 types).
FP8_CODES = {"float8_e4m3": {0: 0x00, 1: 0x38, 2: 0x40, 3: 0x44}, "float8_e5m2": {0: 0x00, 1: 0x3C, 2: 0x40, 3: 0x42}}
SIG = {"float8_e4m3": "fp8e4nv", "float8_e5m2": "fp8e5", "float32": "fp32", "float16": "fp16", "float64": "fp64", "int64": "i64", "int32": "i32", "uint32": "u32", "int16": "i16", "int8": "i8", "uint8": "u8"}
FLOATS = [t for t in TYPES if TYPES[t][2]]
INTS = [t for t in TYPES if not TYPES[t][2]]
# Same-width bitcasts between a float type and an integer type.
BITCASTS = {"float32": ["int32", "uint32"], "float16": ["int16"], "float64": ["int64"], "int32": ["float32"], "uint32": ["float32"],
            "int16": ["float16"], "int64": ["float64"]}
# Integer types Triton's atomics take.
ATOMIC_TYPES = ["int32", "uint32", "int64"]
COMPARISONS = ["<", "<=", "==", "!=", ">", ">="]
TARGETS = [80, 89, 90, 100, 120]


class Gen:
    """A random typed expression tree as Triton source; `approx` records whether it used a
    function the hardware approximates (then the comparison has a tolerance)."""

    def __init__(self, rng, inputs, shape):
        self.rng, self.inputs, self.shape = rng, inputs, shape
        self.approx = False

    def cast(self, code, src, dst):
        if src == dst:
            return code
        if src == "int1" or (TYPES[src][2] == TYPES[dst][2]) or not TYPES[src][2]:
            return f"({code}).to(tl.{dst})"
        # Float to integer: clamped into range first (out-of-range conversions are undefined).
        lo, hi = (0, 200) if not TYPES[dst][3] else (-100, 100) if TYPES[dst][1] == 8 else (-30000, 30000)
        return f"tl.minimum(tl.maximum({code}, {lo}.0), {hi}.0).to(tl.{dst})"

    def const(self, ty, value=None):
        if value is not None:
            return f"tl.full({self.shape}, {value}, tl.{ty})"
        if TYPES[ty][2]:
            v = self.rng.choice([0.5, 1.0, 1.5, 2.0, -3.0, 0.0, 7.25, 1e-3, 100.0])
        else:
            v = self.rng.choice([0, 1, 2, 3, 7, 255, 100]) if not TYPES[ty][3] else self.rng.choice([0, 1, -1, 3, -7, 100, 127])
        return f"tl.full({self.shape}, {v}, tl.{ty})"

    def expr(self, ty, depth):
        r = self.rng
        if depth <= 0 or r.random() < 0.15:
            if r.random() < 0.2:
                return self.const(ty)
            name, src = r.choice(self.inputs)
            return self.cast(name, src, ty)
        is_float, bits, signed = TYPES[ty][2], TYPES[ty][1], TYPES[ty][3]
        kinds = ["bin", "bin", "bin", "minmax", "where", "cast", "unary"]
        kinds += ["round", "round"] if is_float else ["idiv", "idiv_literal", "bits", "shift", "shift_literal"]
        if ty in BITCASTS:
            kinds.append("bitcast")
        if ty in ("int32", "uint32"):
            kinds.append("mulhi")
        kind = r.choice(kinds)
        sub = lambda t=ty: self.expr(t, depth - 1)  # noqa: E731
        if kind == "bin":
            return f"({sub()} {r.choice('+-*')} {sub()})"
        if kind == "minmax":
            nan = ", propagate_nan=tl.PropagateNan.ALL" if is_float and r.random() < 0.3 else ""
            return f"tl.{r.choice(['minimum', 'maximum'])}({sub()}, {sub()}{nan})"
        if kind == "where":
            return f"tl.where({self.condition(depth - 1)}, {sub()}, {sub()})"
        if kind == "cast":
            t = r.choice(list(TYPES))
            return self.cast(sub(t), t, ty)
        if kind == "unary":
            if is_float:
                return f"{r.choice(['-', 'tl.abs'])}({sub()})"
            return f"{r.choice(['-', '~', 'tl.abs'] if signed else ['~', '-'])}({sub()})"
        if kind == "idiv":
            # A divisor from 1 to 8: no division by zero, no INT_MIN / -1.
            return f"({sub()} {r.choice(['//', '%'])} (({sub()} & 7) + 1).to(tl.{ty}))"
        if kind == "idiv_literal":
            # Division by a literal: LLVM multiplies by a magic number and shifts.
            c = r.choice([c for c in [1, 2, 3, 5, 7, 10, 16, 100, 255, -3, -8] if (c >= 0 or signed) and c < 2 ** (bits - int(signed))])
            return f"({sub()} {r.choice(['//', '%'])} {c})"
        if kind == "shift_literal":
            return f"({sub()} {r.choice(['<<', '>>'])} {r.randrange(bits)})"
        if kind == "round":
            # Correctly rounded functions of f32 and f64 (a half goes through f32, exactly).
            t = "float32" if ty == "float16" else ty
            x, y = self.cast(sub(), ty, t), self.cast(sub(), ty, t)
            f = r.choice(["floor", "ceil", "sqrt_rn", "div_rn"])
            if t == "float32" and f in ("floor", "ceil"):
                # Triton's are `cvt.rmi.ftz`, `cvt.rpi.ftz`: subnormals are zeros (of their sign).
                x = f"tl.where(tl.abs({x}) < 1.1754943508222875e-38, {x} * 0.0, {x})"
            if t == "float64":  # f64's division and root round correctly as they are
                code = {"sqrt_rn": f"tl.sqrt(tl.abs({x}))", "div_rn": f"({x} / (tl.abs({y}) + 1.0))"}.get(f, f"tl.{f}({x})")
            else:
                code = {"sqrt_rn": f"tl.sqrt_rn(tl.abs({x}))", "div_rn": f"tl.div_rn({x}, tl.abs({y}) + 1.0)"}.get(f, f"tl.{f}({x})")
            return self.cast(code, t, ty)
        if kind == "bits":
            return f"({sub()} {r.choice('&|^')} {sub()})"
        if kind == "shift":
            return f"({sub()} {r.choice(['<<', '>>'])} ({sub()} & {bits - 1}).to(tl.{ty}))"
        if kind == "bitcast":
            t = r.choice(BITCASTS[ty])
            x = sub(t)
            if TYPES[t][2]:
                # A NaN's payload is the implementation's (PTX's canonical NaN is not numpy's).
                x = f"tl.where({x} == {x}, {x}, {self.const(t, 0)})"
            return f"({x}).to(tl.{ty}, bitcast=True)"
        if kind == "mulhi":
            return f"tl.umulhi({sub()}, {sub()})"
        raise AssertionError(kind)

    def condition(self, depth):
        """A boolean: a comparison, or comparisons joined by `&`, `|` and `^` (PTX's predicate
        logic, which simt fuses with the comparisons)."""
        r = self.rng
        if depth > 0 and r.random() < 0.4:
            return f"({self.condition(depth - 1)} {r.choice('&|^')} {self.condition(depth - 1)})"
        t = r.choice(list(TYPES))
        return f"({self.expr(t, depth)} {r.choice(COMPARISONS)} {self.expr(t, depth)})"

    def approximate(self, code, ty):
        """An approximate function of the whole expression, in f32 (Triton's math is f32)."""
        self.approx = True
        f = self.rng.choice(["tl.exp", "tl.log", "tl.sqrt", "tl.sin", "tl.cos", "tl.rsqrt", "tl.exp2", "tl.log2", "tl.sigmoid", "/"])
        x = self.cast(code, ty, "float32")
        if f == "/":
            # Triton's division of f32 is `div.full.f32`, within 2 ulp (and of a constant, a reciprocal).
            return f"({x} / (tl.abs({self.cast(self.expr(ty, 1), ty, 'float32')}) + 1.0))"
        if f in ("tl.log", "tl.sqrt", "tl.rsqrt", "tl.log2"):
            x = f"(tl.abs({x}) + 0.5)"
        elif f in ("tl.exp", "tl.exp2", "tl.sin", "tl.cos"):
            x = f"tl.minimum(tl.maximum({x}, -20.0), 20.0)"
        if f == "tl.sigmoid":
            return f"tl.sigmoid({x})"
        return f"{f}({x})"


def inputs_for(rng, ty, count):
    dt = TYPES[ty][0]
    if TYPES[ty][2]:
        vals = np.array([rng.choice([rng.uniform(-4, 4), rng.uniform(-1e3, 1e3), rng.choice([0.0, -0.0, 1.0, 0.5])]) for _ in range(count)])
        return vals.astype(dt)
    info = np.iinfo(dt)
    small = [rng.randint(-9, 9) for _ in range(count)]
    big = [rng.randint(int(info.min), int(info.max)) for _ in range(count)]
    return np.array([b if rng.random() < 0.3 else s for s, b in zip(small, big)]).astype(np.int64).astype(dt)


class Case:
    """One random kernel, its launch and inputs, from `seed` alone."""

    def __init__(self, seed):
        rng = random.Random(seed)
        self.seed = seed
        self.capability = rng.choice(TARGETS)
        self.num_warps = rng.choice([1, 2, 4, 4, 8])
        self.num_stages = 3
        if rng.random() < 0.25:
            self.make_dot(rng)
            return
        self.two_d = rng.random() < 0.4
        if self.two_d:
            self.rows, self.cols = rng.choice([1, 2, 4, 8, 16]), rng.choice([16, 32, 64, 128])
            self.n_rows, self.n_cols = rng.randint(1, 40), rng.randint(1, self.cols)
            self.count, shape = self.n_rows * self.n_cols, "[ROWS, COLS]"
            self.grid = math.ceil(self.n_rows / self.rows)
            self.scalars = [self.n_rows, self.n_cols]
            self.constexprs = {"ROWS": self.rows, "COLS": self.cols}
        else:
            self.block = rng.choice([32, 64, 128, 256, 512, 1024])
            self.count, shape = rng.randint(1, 3 * self.block), "[BLOCK]"
            self.grid = math.ceil(self.count / self.block)
            self.scalars = [self.count]
            self.constexprs = {"BLOCK": self.block}
        self.in_types = [rng.choice(list(TYPES)) for _ in range(rng.randint(1, 3))]
        self.inputs = [inputs_for(rng, t, self.count) for t in self.in_types]
        gen = Gen(rng, [(f"x{i}", t) for i, t in enumerate(self.in_types)], shape)
        self.reduction = rng.choice(["sum", "max", "min", "argmax", "argmin", "xor_sum", "cumsum", "sort", "atomic", "none",
                                     "reverse_cumsum", "descending_sort", "product"])
        self.out_type = rng.choice(ATOMIC_TYPES if self.reduction == "atomic" else list(TYPES))
        body = gen.expr(self.out_type, rng.randint(1, 5))
        # A loop that carries `v` across its back edge (registers the allocator keeps live
        # around it, copies where PTX has phis), for a trip count the launch gives.
        self.step, self.trips = None, None
        if rng.random() < 0.35:
            self.trips = rng.randint(0, 4)
            self.scalars.append(self.trips)
            outside = gen.inputs
            gen.inputs = outside + [("v", self.out_type)] * 2 + [(f"(i + tl.zeros({shape}, tl.int32))", "int32")]
            self.step = gen.expr(self.out_type, rng.randint(1, 4))
            gen.inputs = outside
        self.approximation = None
        if self.reduction != "atomic" and rng.random() < 0.2:
            self.approximation, self.out_type = gen.approximate("v", self.out_type), "float32"
        if self.reduction in ("xor_sum", "product") and TYPES[self.out_type][2]:
            self.reduction = "sum"
        # The store through a layout Triton must convert to (shared memory, shuffles), with
        # offsets and mask moved alike: the same values land in the same places.
        self.reshuffle = rng.choice([None, None, "flip", "split_join"] + (["trans", "reshape"] if self.two_d else []))
        self.approx = gen.approx
        # Atomics land on a few cells (contended), in an order that cannot matter for integers.
        self.atomic = rng.choice(["add", "max", "min", "and", "or", "xor"])
        self.cells = rng.randint(1, 8)
        self.source = self.render(body)
        self.red_type = self.reduction_type()
        self.red_count = {"cumsum": self.count, "sort": self.count, "reverse_cumsum": self.count, "descending_sort": self.count,
                          "none": 1, "atomic": self.cells}.get(
            self.reduction, self.grid * (self.rows if self.two_d else 1))

    def make_dot(self, rng):
        """A matrix product: `tl.dot` of two tiles over a K loop (the target's MMA: `mma.sync`,
        `wgmma`, `tcgen05.mma`, pipelined over `num_stages`), then an element-wise epilogue.
        The elements are small integers, so every product and sum is exact in any order and
        the comparison is bit for bit."""
        self.two_d, self.step, self.approx, self.reduction = True, None, False, "none"
        kind = rng.choice(["float16", "float16", "int8", "float32", "tf32", "float8_e5m2"] + (["float8_e4m3"] if self.capability >= 89 else []))
        self.in_types = ["float32" if kind == "tf32" else kind] * 2
        acc = "int32" if kind == "int8" else "float32"
        bm, bn, bk = (rng.choice([16, 32, 64]) for _ in range(3))
        if kind in FP8_CODES or kind == "int8":
            bk = max(bk, 32)  # 8-bit dots take K of 32 or more
        programs, turns = rng.randint(1, 2), rng.randint(1, 3)
        self.num_stages = rng.randint(1, 3)
        m, n, k = bm * programs, bn, bk * turns
        self.rows, self.cols, self.count, self.grid = bm, bn, m * n, programs
        self.scalars, self.constexprs = [k], {"BM": bm, "BN": bn, "BK": bk}
        def small(count):
            values = [rng.randint(-3, 3) for _ in range(count)]
            if kind in FP8_CODES:
                return np.array([FP8_CODES[kind][abs(v)] | (0x80 if v < 0 else 0) for v in values], np.uint8)
            return np.array(values).astype(TYPES[self.in_types[0]][0])
        self.inputs = [small(m * k), small(k * n)]
        gen = Gen(rng, [("acc", acc)], "[BM, BN]")
        self.out_type = acc
        epilogue = gen.expr(acc, rng.randint(0, 2)) if rng.random() < 0.5 else "acc"
        precision = {"float32": ', input_precision="ieee"', "tf32": ', input_precision="tf32"'}.get(kind, "")
        self.source = "\n".join([
            "import triton", "import triton.language as tl", "", "", "@triton.jit",
            "def kernel(a, b, out, red, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):",
            "    rows = tl.program_id(0) * BM + tl.arange(0, BM)",
            "    cols = tl.arange(0, BN)",
            "    ks = tl.arange(0, BK)",
            f"    acc = tl.zeros([BM, BN], tl.{acc})",
            "    for k0 in range(0, K, BK):",
            "        x = tl.load(a + rows[:, None] * K + (k0 + ks)[None, :])",
            "        y = tl.load(b + (k0 + ks)[:, None] * BN + cols[None, :])",
            f"        acc = tl.dot(x, y, acc{precision})",
            f"    v = {epilogue}",
            "    tl.store(out + rows[:, None] * BN + cols[None, :], v)", ""])
        self.red_type, self.red_count = acc, 1

    def render(self, body):
        ins = ", ".join([f"in{i}" for i in range(len(self.in_types))] + ["out", "red"] + self.scalar_names())
        lines = ["import triton", "import triton.language as tl", ""]
        if self.reduction == "product":
            # A combining function of the kernel's own (wrapping integer products associate).
            lines += ["", "@triton.jit", "def product(a, b):", "    return a * b", ""]
        lines += ["", "@triton.jit"]
        if self.two_d:
            lines += [f"def kernel({ins}, ROWS: tl.constexpr, COLS: tl.constexpr):",
                      "    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]",
                      "    cols = tl.arange(0, COLS)[None, :]",
                      "    m = (rows < n_rows) & (cols < n_cols)",
                      "    offs = rows * n_cols + cols"]
        else:
            lines += [f"def kernel({ins}, BLOCK: tl.constexpr):",
                      "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)",
                      "    m = offs < n"]
        for i in range(len(self.in_types)):
            lines.append(f"    x{i} = tl.load(in{i} + offs, mask=m, other=0)")
        lines.append(f"    v = {body}")
        if self.step is not None:
            lines += ["    for i in range(0, k):", f"        v = {self.step}"]
        if self.approximation is not None:
            lines.append(f"    v = {self.approximation}")
        moved = {
            None: "{}",
            "flip": f"tl.flip({{}}, {1 if self.two_d else 0})",
            "trans": "tl.trans({})",
            "reshape": "tl.reshape({}, [ROWS * COLS])",
            "split_join": "tl.reshape(tl.join(*tl.split(tl.reshape({}, " + ("[ROWS, COLS // 2, 2]" if self.two_d else "[BLOCK // 2, 2]") +
                          "))), " + ("[ROWS, COLS]" if self.two_d else "[BLOCK]") + ")",
        }[self.reshuffle]
        lines.append(f"    tl.store(out + {moved.format('offs')}, {moved.format('v')}, mask={moved.format('m')})")
        axis = 1 if self.two_d else 0
        where = "tl.program_id(0) * ROWS + tl.arange(0, ROWS)" if self.two_d else "tl.program_id(0)"
        rmask = ", mask=tl.program_id(0) * ROWS + tl.arange(0, ROWS) < n_rows" if self.two_d else ""
        if self.reduction in ("sum", "max", "min", "argmax", "argmin", "xor_sum"):
            lines.append(f"    r = tl.{self.reduction}(v, axis={axis})")
            lines.append(f"    tl.store(red + {where}, r{rmask})")
        elif self.reduction in ("cumsum", "sort", "reverse_cumsum", "descending_sort"):
            scan = {"reverse_cumsum": "cumsum(v, {}, reverse=True)", "descending_sort": "sort(v, {}, descending=True)"}.get(self.reduction, self.reduction + "(v, {})")
            lines.append(f"    r = tl.{scan.format(axis)}")
            lines.append("    tl.store(red + offs, r, mask=m)")
        elif self.reduction == "product":
            lines.append(f"    r = tl.reduce(v, {axis}, product)")
            lines.append(f"    tl.store(red + {where}, r{rmask})")
        elif self.reduction == "atomic":
            lines.append(f"    tl.atomic_{self.atomic}(red + offs % {self.cells}, v, mask=m)")
        return "\n".join(lines) + "\n"

    def scalars_by_name(self):
        return dict(zip(["K"] if "BK" in self.constexprs else self.scalar_names(), self.scalars))

    def scalar_names(self):
        """The kernel's integer parameters, in order: the sizes, then the loop's trip count."""
        return (["n_rows", "n_cols"] if self.two_d else ["n"]) + (["k"] if self.step is not None else [])

    def reduction_type(self):
        """The element type the reduction stores (Triton widens small integer sums)."""
        if self.reduction in ("argmax", "argmin"):
            return "int32"
        if self.reduction in ("sum", "cumsum", "reverse_cumsum") and not TYPES[self.out_type][2] and TYPES[self.out_type][1] < 32:
            return "int32"
        return self.out_type

    def buffers(self):
        """Every pointer argument's type and initial contents: the inputs, `out` and `red`."""
        return list(zip(self.in_types, self.inputs)) + [(self.out_type, np.zeros(self.count, TYPES[self.out_type][0])),
                                                         (self.red_type, np.zeros(self.red_count, TYPES[self.red_type][0]))]

    def signature(self):
        if "K" in self.scalars_by_name():
            sig = {"a": "*" + SIG[self.in_types[0]], "b": "*" + SIG[self.in_types[1]], "out": "*" + SIG[self.out_type],
                   "red": "*" + SIG[self.red_type], "K": "i32", **{k: "constexpr" for k in self.constexprs}}
            return sig, dict(self.constexprs), {(i,): [["tt.divisibility", 16]] for i in range(4)}
        sig, attrs = {}, {}
        for i, (t, _) in enumerate(self.buffers()):
            sig["out" if i == len(self.inputs) else "red" if i > len(self.inputs) else f"in{i}"] = "*" + SIG[t]
            attrs[(i,)] = [["tt.divisibility", 16]]
        sig.update({k: "i32" for k in self.scalar_names()})
        sig.update({k: "constexpr" for k in self.constexprs})
        return sig, dict(self.constexprs), attrs


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _order_zeros_as_ptx():
    """PTX's `min` and `max` order -0.0 below +0.0 (numpy's return the first of two equal
    values): make the interpreter's do the same."""
    from triton.runtime.interpreter import InterpreterBuilder

    def ordered(op, keep_negative):
        def f(a, b):
            r = op(a, b)
            zeros = (a == 0) & (b == 0)
            pick = np.where(np.signbit(a) == keep_negative, a, b)
            return np.where(zeros, pick, r).astype(r.dtype)
        return f
    for name, op, negative in [("maxnumf", np.fmax, False), ("maximumf", np.maximum, False),
                               ("minnumf", np.fmin, True), ("minimumf", np.minimum, True)]:
        fn = ordered(op, negative)
        setattr(InterpreterBuilder, f"create_{name}", lambda self, lhs, rhs, fn=fn: self.binary_op(lhs, rhs, fn))


def reference(case_dir):
    """Runs a prepared case's kernel on Triton's interpreter (in the `--reference` process)
    and saves what it stores as want_out.npy and want_red.npy."""
    import check_triton_interp as interp
    _order_zeros_as_ptx()
    with open(os.path.join(case_dir, "case.json")) as f:
        c = json.load(f)
    mod = load_module(os.path.join(case_dir, "kernel.py"), f"fuzz_case_{c['seed']}")
    keep, args, bufs = [], [], []
    for i, t in enumerate(c["types"]):
        arr = np.load(os.path.join(case_dir, f"p{i}.npy"))
        big = np.zeros(arr.size * 2 + 8192, arr.dtype)  # the interpreter touches masked-off addresses
        keep.append(big)
        bufs.append(big[: arr.size])
        bufs[-1][...] = arr
        args.append(interp._tensor(bufs[-1], t))
    mod.kernel[(c["grid"], 1, 1)](*args, *c["scalars"], num_warps=c["num_warps"], **c["constexprs"])
    np.save(os.path.join(case_dir, "want_out.npy"), bufs[-2])
    np.save(os.path.join(case_dir, "want_red.npy"), bufs[-1])


def _eq(a, b):
    if a.shape != b.shape:
        return np.zeros(max(a.size, b.size), bool)
    if a.dtype.kind == "f":
        return (a == b) | (np.isnan(a) & np.isnan(b))
    return a == b


def agree(got, want, close, atol=0.0):
    """Whether simt's `got` is the interpreter's `want`: bit for bit, or where `close`, within
    a relative 1e-3 (f16) or 1e-5 (f32) plus `atol`."""
    if got.shape != want.shape:
        return False
    if not close:
        return bool(np.all(_eq(got, want)))
    g, w = got.astype(np.float64), want.astype(np.float64)
    both_nan = np.isnan(g) & np.isnan(w)
    same_inf = np.isinf(g) & (g == w)
    rtol = 1e-3 if got.dtype == np.float16 else 1e-5
    with np.errstate(invalid="ignore"):
        return bool(np.all(both_nan | same_inf | (np.abs(g - w) <= rtol * np.abs(w) + rtol + atol)))


def prepare(seed, work):
    """Writes case `seed`'s kernel, PTX, inputs, description (case.json) and `simt run`
    command into work/case<seed>; None, or why Triton would not compile it."""
    case = Case(seed)
    case_dir = os.path.join(work, f"case{seed}")
    os.makedirs(case_dir, exist_ok=True)
    with open(os.path.join(case_dir, "kernel.py"), "w") as f:
        f.write(case.source)
    sig, consts, attrs = case.signature()
    mod = load_module(os.path.join(case_dir, "kernel.py"), f"fuzz_case_{seed}")
    try:
        src = triton.compiler.ASTSource(fn=mod.kernel, signature=sig, constexprs=consts, attrs=attrs)
        # No FMA contraction: the interpreter rounds each multiply and add.
        compiled = triton.compile(src, target=GPUTarget("cuda", case.capability, 32),
                                  options={"num_warps": case.num_warps, "num_stages": case.num_stages, "enable_fp_fusion": False})
    except Exception as e:  # Triton refuses some random programs: not simt's concern
        shutil.rmtree(case_dir)
        return f"triton: {(str(e).strip().splitlines() or [type(e).__name__])[-1][:120]}"
    ptx = compiled.asm["ptx"]
    with open(os.path.join(case_dir, "kernel.ptx"), "w") as f:
        f.write(ptx)
    [(entry, params)] = mc.ptx_entries(ptx)
    bufs = case.buffers()
    cmd = ["simt", "run", "kernel.ptx", "--kernel", entry, "--grid", f"{case.grid},1,1", "--block", f"{32 * compiled.metadata.num_warps},1,1"]
    if compiled.metadata.shared > 0:
        cmd += ["--shared-bytes", str(compiled.metadata.shared)]
    for i, p in enumerate(params):
        if i < len(bufs):
            np.save(os.path.join(case_dir, f"p{i}.npy"), bufs[i][1])
            cmd += ["--arg", f"{p['name']}=@p{i}.npy"]
        elif i < len(bufs) + len(case.scalars):
            cmd += ["--arg", f"{p['name']}={case.scalars[i - len(bufs)]}"]
        else:
            cmd += ["--arg", f"{p['name']}=0"]  # Triton's scratch pointers
    out, red = params[len(case.inputs)]["name"], params[len(case.inputs) + 1]["name"]
    cmd += ["--dump", f"{out}=got_out.npy", "--dump", f"{red}=got_red.npy"]
    with open(os.path.join(case_dir, "command.sh"), "w") as f:
        f.write(" ".join(shlex.quote(c) for c in cmd) + "\n")
    description = {"seed": seed, "capability": case.capability, "num_warps": case.num_warps, "grid": case.grid,
                   "scalars": case.scalars, "constexprs": case.constexprs, "types": [t for t, _ in bufs],
                   "reduction": case.reduction, "approx": case.approx, "terms": case.cols if case.two_d else case.block}
    with open(os.path.join(case_dir, "case.json"), "w") as f:
        json.dump(description, f, indent=1)
    return None


def judge(simt, case_dir):
    """Runs a prepared case with simt: ("ok" | "FAILED" | "MISMATCH" | "skipped", why)."""
    with open(os.path.join(case_dir, "case.json")) as f:
        c = json.load(f)
    if os.path.exists(os.path.join(case_dir, "reference_error.txt")):
        with open(os.path.join(case_dir, "reference_error.txt")) as f:
            return "skipped", f"interpreter: {f.read()}"
    with open(os.path.join(case_dir, "command.sh")) as f:
        cmd = shlex.split(f.read())
    r = subprocess.run([simt] + cmd[1:], cwd=case_dir, capture_output=True, text=True, timeout=600)
    where = f"(sm_{c['capability']}, {c['num_warps']} warps, {c['reduction']})"
    if r.returncode != 0:
        return "FAILED", f"{where}: " + " / ".join((r.stderr or r.stdout).strip().splitlines()[:2])
    load = lambda name: np.load(os.path.join(case_dir, name)).reshape(-1)  # noqa: E731
    got, want = load("got_out.npy"), load("want_out.npy")
    if not agree(got, want, c["approx"]):
        return "MISMATCH", f"{where}: out differs at {np.flatnonzero(~_eq(got, want))[:5].tolist()}"
    if c["reduction"] == "none":
        return "ok", ""
    got, want = load("got_red.npy"), load("want_red.npy")
    values = load("want_out.npy")
    if c["reduction"] in ("min", "max", "argmax", "argmin", "sort", "descending_sort") and values.dtype.kind == "f" and np.isnan(values).any():
        return "ok", ""  # NaNs order as the combining tree meets them; the interpreter's reductions pass over some
    atol, close = 0.0, c["approx"]
    if got.dtype.kind == "f" and c["reduction"] in ("sum", "cumsum", "reverse_cumsum"):
        # Another order of additions: each may round by half an ulp of the largest partial sum.
        values = np.abs(values.astype(np.float64))
        bound = np.sum(values[np.isfinite(values)])
        if bound > np.finfo(got.dtype).max or not np.all(np.isfinite(values)):
            return "ok", ""  # partial sums that overflow (or NaN) in one order may not in another
        atol, close = c["terms"] * float(np.finfo(got.dtype).eps) * bound, True
    if not agree(got, want, close, atol):
        return "MISMATCH", f"{where}: {c['reduction']} differs at {np.flatnonzero(~_eq(got, want))[:5].tolist()}"
    return "ok", ""


def main():
    if REFERENCE:
        for case_dir in sys.argv[2:]:
            try:
                reference(case_dir)
            except Exception as e:  # the interpreter's own limits (argmax of an all-NaN row): not simt's
                with open(os.path.join(case_dir, "reference_error.txt"), "w") as f:
                    f.write((str(e).strip().splitlines() or [type(e).__name__])[-1][:200])
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--simt", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--keep", default="/tmp/simt-fuzz-triton")
    ap.add_argument("--replay", nargs="+", metavar="CASE_DIR")
    a = ap.parse_args()
    simt = os.path.abspath(a.simt)
    if a.replay:
        verdicts = [judge(simt, d) for d in a.replay]
        for d, (verdict, why) in zip(a.replay, verdicts):
            print(f"{d}: {verdict} {why}")
        sys.exit(1 if any(v != "ok" for v, _ in verdicts) else 0)
    os.makedirs(a.keep, exist_ok=True)
    counts = {}
    with tempfile.TemporaryDirectory(prefix="simt-fuzz-triton-") as work:
        seeds = []
        for seed in range(a.seed, a.seed + a.count):
            why = prepare(seed, work)
            if why:
                counts["skipped"] = counts.get("skipped", 0) + 1
                print(f"case {seed}: skipped, {why}", flush=True)
            else:
                seeds.append(seed)
        dirs = [os.path.join(work, f"case{seed}") for seed in seeds]
        for first in range(0, len(dirs), 200):  # a command line of a bounded length
            subprocess.run([sys.executable, os.path.abspath(__file__), "--reference"] + dirs[first:first + 200], check=True)
        for seed, case_dir in zip(seeds, dirs):
            verdict, why = judge(simt, case_dir)
            counts[verdict] = counts.get(verdict, 0) + 1
            if verdict == "skipped":
                print(f"case {seed}: skipped, {why}", flush=True)
            elif verdict != "ok":
                dest = os.path.join(a.keep, f"case{seed}")
                shutil.rmtree(dest, ignore_errors=True)
                shutil.copytree(case_dir, dest)
                print(f"case {seed}: {verdict} {why}; kept in {dest}", flush=True)
    print(", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
    sys.exit(1 if counts.get("MISMATCH") or counts.get("FAILED") else 0)


if __name__ == "__main__":
    main()
