"""Captures the PTX that tinygrad's PTXRenderer emits for sm_80, without a GPU, and writes tests/ml/tinygrad/.

Each case is a tinygrad tensor expression written for this corpus. It is realized twice:

1. on the NULL device with the PTX renderer (DEV="MOCK+NULL:PTX:sm_80": NULL runs nothing and
   the MOCK interface makes the renderer's compiler a text substitution instead of nvJitLink,
   so neither a GPU nor CUDA libraries are needed). Every kernel launch is intercepted and its
   PTX (exactly the bytes tinygrad would hand to cuModuleLoadData), entry name, launch
   dimensions (global_size is the grid in blocks, local_size the block), buffer parameters and
   symbolic-variable parameters are recorded;
2. on the PYTHON device (tinygrad's pure-Python emulator), which schedules the same kernels in
   the same order on real data. Each launch's buffers are copied before and after it runs, so
   every PTX kernel gets its own inputs (intermediates included) and expected outputs. The two
   runs are checked to have the same kernels with the same buffers.

The final result of each case is also checked against a plain numpy computation, so a capture
mistake cannot go unnoticed.

Usage: python gen_tinygrad.py [OUT_DIR]   (regen.sh runs it in the pinned venv)
"""
import importlib.metadata
import os
import re
import sys

os.environ.setdefault("DEV", "MOCK+NULL:PTX:sm_80")
os.environ.setdefault("PARALLEL", "0")  # compile in this process, in order
os.environ.setdefault("CACHELEVEL", "0")  # no disk cache: every kernel is rendered anew

import numpy as np  # noqa: E402
from tinygrad import Tensor, Variable, dtypes  # noqa: E402
from tinygrad.helpers import Context  # noqa: E402
from tinygrad.dtype import _to_np_dtype  # noqa: E402
from tinygrad.uop.ops import Ops, PatternMatcher, UPat  # noqa: E402
import tinygrad.engine.realize as realize  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlcorpus as mc  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PTX_DEV, REF_DEV = "NULL", "PYTHON"

# ---------------------------------------------------------------- launch capture

_captured = []


def _spy(ctx, call, ast):
    resolved = realize.resolve_params(call, ctx.input_uops)
    bufs = [resolved[i].buffer for i in ast.arg.globals]
    ref = bufs and bufs[0].device == REF_DEV
    before = [b.ensure_allocated().numpy().copy() for b in bufs] if ref else None
    ret = realize.exec_kernel(ctx, call, ast)
    after = [b.numpy().copy() for b in bufs] if ref else None
    gs, ls = ast.arg.launch_dims(ctx.var_vals)
    _captured.append({
        "entry": ast.arg.function_name, "program": ast, "global": tuple(gs), "local": tuple(ls) if ls else (1, 1, 1),
        "outs": tuple(ast.arg.outs), "ins": tuple(ast.arg.ins),
        "bufs": [(b.dtype, b.size) for b in bufs],
        "vars": [(v.expr, ctx.var_vals[v.expr]) for v in ast.arg.vars],
        "before": before, "after": after,
    })
    return ret


realize.pm_exec = PatternMatcher([
    (UPat(Ops.CALL, src=(UPat(Ops.PROGRAM, name="ast"),), name="call", allow_any_len=True), _spy)]) + realize.pm_exec


def run_case(case, device):
    _captured.clear()
    with Context(**case.get("ctx", {})):
        ins = {k: Tensor(v, device=device).realize() for k, v in case["inputs"].items()}
        if not ins:  # a generator: the function makes its tensors on the device it is given
            ins = {"dev": device}
        _captured.clear()
        out = case["fn"](**ins)
        out.realize()
    return out, list(_captured)


# ---------------------------------------------------------------- the cases

TOL_APPROX = "PTX's .approx instruction against the emulator's correctly rounded libm"


def cases():
    rng = np.random.default_rng(7)

    def f32(*shape, lo=-1.0, hi=1.0):
        return rng.uniform(lo, hi, shape).astype(np.float32)

    def normal(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    def i32(*shape, lo=-1000, hi=1000):
        return rng.integers(lo, hi, shape, dtype=np.int32)

    C = []

    def case(name, inputs, fn, ref, tol=None, ctx=None, check=1e-5, note=""):
        C.append({"name": name, "inputs": inputs, "fn": fn, "ref": ref, "tol": tol, "ctx": ctx or {},
                  "check": check, "note": note})

    exact = None  # tol None: exact for every output
    a, b, c = f32(1024), f32(1024), f32(1024)
    pos = f32(1024, lo=0.01, hi=100.0)
    ang = f32(1024, lo=-3.14159, hi=3.14159)

    # elementwise f32
    case("add", {"a": a, "b": b}, lambda a, b: a + b, lambda a, b: a + b, exact)
    case("mul_add", {"a": a, "b": b, "c": c}, lambda a, b, c: a * b + c, lambda a, b, c: a * b + c,
         mc.close(1e-6, 1e-7, "a*b+c is one fma.rn.f32 in the PTX; the emulator rounds a*b+c computed in f64"))
    case("sub_div", {"a": a, "b": pos}, lambda a, b: (a - 0.5) / b, lambda a, b: (a - np.float32(0.5)) / b,
         mc.close(1e-6, 1e-7, "division is a * rcp.approx(b) in tinygrad's PTX"))
    case("relu", {"a": a}, lambda a: a.relu(), lambda a: np.maximum(a, 0), exact)
    case("where_cmp", {"a": a, "b": b}, lambda a, b: (a < b).where(a, b * 2), lambda a, b: np.where(a < b, a, b * 2), exact)
    case("maximum_minimum", {"a": a, "b": b}, lambda a, b: a.maximum(b) - a.minimum(b * 0.5),
         lambda a, b: np.maximum(a, b) - np.minimum(a, b * np.float32(0.5)), exact)
    case("abs_neg_sign", {"a": a}, lambda a: (-a).abs() + a.sign(), lambda a: np.abs(a) + np.sign(a), exact)
    case("clip", {"a": normal(1024)}, lambda a: a.clip(-0.5, 0.75), lambda a: np.clip(a, -0.5, 0.75), exact)

    # transcendental (.approx)
    case("exp2", {"a": f32(1024, lo=-10, hi=10)}, lambda a: a.exp2(), lambda a: np.exp2(a), mc.close(2e-6, 0, TOL_APPROX))
    case("exp", {"a": f32(1024, lo=-10, hi=10)}, lambda a: a.exp(), lambda a: np.exp(a), mc.close(4e-6, 0, TOL_APPROX))
    case("log2", {"a": pos}, lambda a: a.log2(), lambda a: np.log2(a), mc.close(2e-6, 2e-7, TOL_APPROX))
    case("log", {"a": pos}, lambda a: a.log(), lambda a: np.log(a), mc.close(2e-6, 2e-7, TOL_APPROX))
    case("sin", {"a": ang}, lambda a: a.sin(), lambda a: np.sin(a), mc.close(0, 2e-6, TOL_APPROX + " (sin.approx: absolute error)"))
    case("cos", {"a": ang}, lambda a: a.cos(), lambda a: np.cos(a), mc.close(0, 2e-6, TOL_APPROX + " (sin.approx: absolute error)"))
    case("sqrt", {"a": pos}, lambda a: a.sqrt(), lambda a: np.sqrt(a), mc.close(2e-6, 0, TOL_APPROX))
    case("rsqrt", {"a": pos}, lambda a: a.rsqrt(), lambda a: 1 / np.sqrt(a), mc.close(2e-6, 0, TOL_APPROX))
    case("reciprocal", {"a": pos}, lambda a: a.reciprocal(), lambda a: 1 / a, mc.close(2e-6, 0, TOL_APPROX))
    case("sigmoid", {"a": normal(1024) * 3}, lambda a: a.sigmoid(), lambda a: 1 / (1 + np.exp(-a)), mc.close(4e-6, 1e-7, TOL_APPROX))
    case("tanh", {"a": normal(1024) * 2}, lambda a: a.tanh(), lambda a: np.tanh(a), mc.close(4e-6, 2e-6, TOL_APPROX))
    case("gelu", {"a": normal(1024) * 2}, lambda a: a.gelu(),
         lambda a: 0.5 * a * (1 + np.tanh(0.7978845608 * (a + 0.044715 * a ** 3))), mc.close(4e-6, 2e-6, TOL_APPROX), check=1e-4)
    case("pow", {"a": pos, "b": f32(1024, lo=-2, hi=2)}, lambda a, b: a.pow(b), lambda a, b: np.power(a.astype(np.float64), b),
         mc.close(1e-5, 1e-7, TOL_APPROX + " (pow = exp2(b*log2(a)))"), check=1e-4)

    # integers
    ia, ib = i32(1024, lo=-100000, hi=100000), i32(1024, lo=1, hi=1000)
    case("int_arith", {"a": ia, "b": ib}, lambda a, b: a * 3 - b + (a // b) + (a % b),
         lambda a, b: a * 3 - b + a // b + a % b, exact, check=None)
    case("int_bitops", {"a": ia, "b": ib}, lambda a, b: ((a ^ b) & 0xFF0) | (a << 3) | (b >> 2),
         lambda a, b: ((a ^ b) & 0xFF0) | (a << 3) | (b >> 2), exact)
    case("int_cmp_where", {"a": ia, "b": ib}, lambda a, b: (a > b).where(a.maximum(b * 100), b),
         lambda a, b: np.where(a > b, np.maximum(a, b * 100), b), exact)
    case("int64_mul", {"a": ia.astype(np.int64), "b": ib.astype(np.int64)}, lambda a, b: a * b * 1000003 + (a >> 3),
         lambda a, b: a * b * 1000003 + (a >> 3), exact)
    case("uint8_ops", {"a": rng.integers(0, 256, 1024, dtype=np.uint8), "b": rng.integers(0, 256, 1024, dtype=np.uint8)},
         lambda a, b: (a + b) ^ (a * 3), lambda a, b: (a + b) ^ (a * np.uint8(3)), exact)

    # casts and f16
    xc = (normal(1024) * 1000).astype(np.float32)
    case("cast_f32_i32", {"a": xc}, lambda a: a.cast(dtypes.int32), lambda a: a.astype(np.int32), exact)
    case("cast_i32_f32", {"a": i32(1024, lo=-(1 << 30), hi=1 << 30)}, lambda a: a.cast(dtypes.float32),
         lambda a: a.astype(np.float32), exact)
    case("cast_f32_f16", {"a": xc / 10}, lambda a: a.cast(dtypes.float16), lambda a: a.astype(np.float16), exact)
    case("cast_f16_f32", {"a": (normal(1024) * 10).astype(np.float16)}, lambda a: a.cast(dtypes.float32) * 3,
         lambda a: a.astype(np.float32) * 3, exact)
    case("cast_u8_f32", {"a": rng.integers(0, 256, 1024, dtype=np.uint8)}, lambda a: a.cast(dtypes.float32) / 255.0,
         lambda a: a.astype(np.float32) / np.float32(255), mc.close(1e-6, 1e-7, "x / 255 becomes x * (1/255) in f32"))
    case("cast_bool", {"a": a, "b": b}, lambda a, b: (a > b).cast(dtypes.int32) + (a > 0).cast(dtypes.int32) * 2,
         lambda a, b: (a > b).astype(np.int32) + (a > 0).astype(np.int32) * 2, exact)
    case("compare_bool_out", {"a": a, "b": b}, lambda a, b: (a > b) & (b > 0), lambda a, b: (a > b) & (b > 0), exact)
    h1, h2, h3 = ((normal(1024)).astype(np.float16) for _ in range(3))
    case("f16_arith", {"a": h1, "b": h2, "c": h3}, lambda a, b, c: a * b + c - a.maximum(c),
         lambda a, b, c: (a.astype(np.float32) * b + c - np.maximum(a, c)).astype(np.float16),
         mc.close(1e-3, 1e-3, "f16 fma against the emulator's f64 arithmetic rounded to f16"), check=5e-3)
    h_nan = h1.copy()
    h_nan[::37] = np.nan
    case("f16_compare", {"a": h_nan, "b": h2}, lambda a, b: (a < b).where(a, b) + (a != a).cast(dtypes.float16),
         lambda a, b: np.where(a < b, a, b) + (a != a).astype(np.float16), exact)
    case("f16_exp2", {"a": (f32(1024, lo=-8, hi=8)).astype(np.float16)}, lambda a: a.exp2(),
         lambda a: np.exp2(a.astype(np.float32)).astype(np.float16), mc.close(1e-3, 1e-5, "ex2.approx.f16"), check=2e-3)

    # reductions
    m = normal(64, 64)
    case("sum_all", {"a": normal(4096)}, lambda a: a.sum(), lambda a: a.astype(np.float64).sum(),
         mc.close(1e-5, 1e-5, "f32 sums in the kernel's order (partial sums through shared memory)"), check=1e-4)
    case("sum_axis1", {"a": m}, lambda a: a.sum(1), lambda a: a.sum(1), mc.close(1e-5, 1e-5, "f32 sums in another order"))
    case("sum_axis0", {"a": m}, lambda a: a.sum(0), lambda a: a.sum(0), mc.close(1e-5, 1e-5, "f32 sums in another order"))
    case("max_all", {"a": normal(4096)}, lambda a: a.max(), lambda a: a.max(), exact)
    case("max_axis1", {"a": m}, lambda a: a.max(1), lambda a: a.max(1), exact)
    case("sum_int", {"a": i32(4096)}, lambda a: a.sum(), lambda a: a.sum(), exact)
    case("mean_var", {"a": m}, lambda a: a.var(1) + a.mean(1), lambda a: a.var(1, ddof=1) + a.mean(1),
         mc.close(1e-5, 1e-5, "f32 sums in another order"), check=1e-4)
    case("argmax", {"a": m}, lambda a: a.argmax(1), lambda a: a.argmax(1), exact)
    case("cumsum", {"a": normal(256)}, lambda a: a.cumsum(0), lambda a: np.cumsum(a.astype(np.float64)),
         mc.close(1e-5, 1e-5, "f32 sums in another order"), check=1e-4)
    case("cumsum_2d", {"a": normal(16, 64)}, lambda a: a.cumsum(1), lambda a: np.cumsum(a.astype(np.float64), 1),
         mc.close(1e-5, 1e-5, "f32 sums in another order"), check=1e-4)
    case("softmax", {"a": m}, lambda a: a.softmax(1), lambda a: np.exp(a - a.max(1, keepdims=True)) / np.exp(a - a.max(1, keepdims=True)).sum(1, keepdims=True),
         mc.close(1e-5, 1e-6, TOL_APPROX + "; f32 sums in another order"))
    case("log_softmax", {"a": m}, lambda a: a.log_softmax(1),
         lambda a: a - a.max(1, keepdims=True) - np.log(np.exp(a - a.max(1, keepdims=True)).sum(1, keepdims=True)),
         mc.close(1e-5, 1e-5, TOL_APPROX + "; f32 sums in another order"))
    case("layernorm", {"a": normal(32, 128)}, lambda a: a.layernorm(), lambda a: (a - a.mean(1, keepdims=True)) / np.sqrt(a.var(1, keepdims=True) + 1e-5),
         mc.close(1e-5, 1e-5, TOL_APPROX + "; f32 sums in another order"), check=1e-4)

    # matmul: tensor cores on sm_80 (TC=1, tinygrad's default) and without (TC=0)
    A, B = f32(64, 64), f32(64, 64)
    mm_tol = mc.close(1e-5, 1e-5, "f32 accumulation in another order")
    case("matmul_f32", {"a": A, "b": B}, lambda a, b: a @ b, lambda a, b: a @ b, mm_tol, ctx={"TC": 0})
    case("matmul_tf32_tc", {"a": A, "b": B}, lambda a, b: a @ b, lambda a, b: a @ b,
         mc.close(1e-2, 1e-2, "tf32 tensor cores (mma.sync ... .tf32) keep 10 mantissa bits of each input"),
         ctx={"TC": 1, "ALLOW_TF32": 1}, check=2e-2)
    A2, B2 = f32(128, 128), f32(128, 128)
    case("matmul_f32_128", {"a": A2, "b": B2}, lambda a, b: a @ b, lambda a, b: a @ b, mm_tol, ctx={"TC": 0})
    Ah, Bh = A2.astype(np.float16), B2.astype(np.float16)
    case("matmul_f16_tc", {"a": Ah, "b": Bh}, lambda a, b: a @ b,
         lambda a, b: (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16),
         mc.close(2e-3, 2e-3, "f16 inputs, f32 accumulation in mma order, rounded to f16"), ctx={"TC": 1}, check=5e-3)
    case("matmul_f16_acc_f32_tc", {"a": Ah[:64, :64].copy(), "b": Bh[:64, :64].copy()},
         lambda a, b: a.matmul(b, dtype=dtypes.float32),
         lambda a, b: a.astype(np.float32) @ b.astype(np.float32),
         mc.close(1e-4, 1e-4, "f32 accumulation: each mma adds 16 products at a time, numpy sums pairwise"), ctx={"TC": 1}, check=1e-4)
    case("matmul_f16_notc", {"a": Ah[:64, :64].copy(), "b": Bh[:64, :64].copy()}, lambda a, b: a @ b,
         lambda a, b: (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16),
         mc.close(2e-3, 2e-3, "f16 result of an f32 accumulation"), ctx={"TC": 0}, check=5e-3)
    case("matvec", {"a": f32(1, 128), "b": f32(128, 256)}, lambda a, b: a @ b, lambda a, b: a @ b, mm_tol, check=1e-4)
    # tinygrad writes these two with tf32 tensor cores (mma.sync m16n8k8 .tf32) at sm_80.
    tf32_tol = mc.close(1e-2, 1e-2, "tinygrad uses tf32 tensor cores here, which keep 10 mantissa bits of each input")
    case("batched_matmul", {"a": f32(4, 32, 32), "b": f32(4, 32, 32)}, lambda a, b: a @ b, lambda a, b: a @ b, tf32_tol, check=2e-2)
    case("linear_relu", {"x": f32(32, 64), "w": f32(64, 64), "b": f32(64)}, lambda x, w, b: (x @ w + b).relu(),
         lambda x, w, b: np.maximum(x @ w + b, 0), tf32_tol, check=2e-2)

    # convolution and pooling
    x = f32(1, 4, 16, 16)
    w = f32(8, 4, 3, 3)
    case("conv2d", {"x": x, "w": w}, lambda x, w: x.conv2d(w), lambda x, w: conv2d_ref(x, w, 1, 0),
         mc.close(1e-5, 1e-5, "f32 accumulation in another order"))
    case("conv2d_pad_stride", {"x": x, "w": w}, lambda x, w: x.conv2d(w, stride=2, padding=1),
         lambda x, w: conv2d_ref(x, w, 2, 1), mc.close(1e-5, 1e-5, "f32 accumulation in another order"))
    case("conv2d_f16_tc", {"x": x.astype(np.float16), "w": w.astype(np.float16)}, lambda x, w: x.conv2d(w),
         lambda x, w: conv2d_ref(x.astype(np.float32), w.astype(np.float32), 1, 0).astype(np.float16),
         mc.close(2e-3, 2e-3, "f16 result of an f32 accumulation"), ctx={"TC": 1}, check=5e-3)
    case("max_pool2d", {"x": f32(1, 4, 16, 16)}, lambda x: x.max_pool2d(), lambda x: x.reshape(1, 4, 8, 2, 8, 2).max((3, 5)), exact)
    case("avg_pool2d", {"x": f32(1, 4, 16, 16)}, lambda x: x.avg_pool2d(), lambda x: x.reshape(1, 4, 8, 2, 8, 2).mean((3, 5)),
         mc.close(1e-6, 1e-7, "a sum of four times 1/4"))

    # data movement, indexing, generators
    case("transpose", {"a": f32(64, 96)}, lambda a: a.T.contiguous(), lambda a: a.T, exact)
    case("permute_3d", {"a": f32(8, 16, 32)}, lambda a: a.permute(2, 0, 1).contiguous() * 2, lambda a: a.transpose(2, 0, 1) * 2, exact)
    case("pad_slice", {"a": f32(32, 32)}, lambda a: a.pad(((1, 1), (2, 0)))[::2, 1:].contiguous(),
         lambda a: np.pad(a, ((1, 1), (2, 0)))[::2, 1:], exact)
    case("gather_rows", {"t": f32(64, 32), "idx": rng.integers(0, 64, 16, dtype=np.int32)}, lambda t, idx: t[idx],
         lambda t, idx: t[idx], exact)
    case("full_iota", {}, lambda dev: Tensor.ones(16, 64, device=dev).cumsum(1) * 3 + 1,
         lambda: np.tile(np.arange(1, 65, dtype=np.float32) * 3 + 1, (16, 1)), exact)
    case("rand", {}, lambda dev: _seeded_rand(dev), None, exact)
    case("symbolic_shrink", {"a": f32(64, 32)}, lambda a: a.shrink(((0, Variable("n", 1, 64).bind(40)), None)).sum(1) * 2,
         lambda a: a[:40].sum(1) * 2, mc.close(1e-5, 1e-5, "f32 sums in another order"), check=1e-4,
         note="a symbolic Variable n (bound to 40) is a kernel parameter")
    return C


def _seeded_rand(dev):
    Tensor.manual_seed(1234)
    return Tensor.rand(2048, device=dev)


def conv2d_ref(x, w, stride, pad):
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, ci, h, wd = x.shape
    co, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, co, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
            out += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j].astype(np.float64))
    return out


# ---------------------------------------------------------------- the corpus

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def ptx_text(program):
    binary = program.src[-1]
    assert binary.op is Ops.BINARY, binary.op
    return binary.arg.decode()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "tinygrad")
    versions = {"tinygrad": importlib.metadata.version("tinygrad"), "numpy": np.__version__}
    corpus = mc.Corpus(out, "gen_tinygrad.py", versions, notes=[
        "PTX from tinygrad's PTXRenderer for sm_80 on the NULL device (DEV=MOCK+NULL:PTX:sm_80): the bytes tinygrad "
        "would pass to cuModuleLoadData (.version 7.5, .target sm_80).",
        "grid is tinygrad's global_size (blocks), block its local_size (threads), as tinygrad's CUDA runtime launches them.",
        "Buffer parameters are data0, data1, ... in order; symbolic Variables follow as .s32 parameters (named dataN too).",
        "tinygrad declares its shared memory inside the kernel (.shared .align 16 .b8 local0[N]): shared_bytes (dynamic) is 0; "
        "static_shared_bytes adds up those declarations.",
        "Inputs and expected outputs of every kernel come from running the same schedule on tinygrad's PYTHON emulator; "
        "a case with several kernels has one entry per kernel (<case>.k<i>), the later ones reading the earlier ones' results.",
    ])
    total = 0
    only = set(os.environ["ONLY"].split(",")) if os.environ.get("ONLY") else None
    for cs in cases():
        if only and cs["name"] not in only:
            continue
        _, ptx_launches = run_case(cs, PTX_DEV)
        ref_out, ref_launches = run_case(cs, REF_DEV)
        assert len(ptx_launches) == len(ref_launches), (cs["name"], len(ptx_launches), len(ref_launches))
        # the numpy check of the case's result
        if cs["name"].startswith("symbolic"):  # a symbolic shape has no .numpy(): read the last kernel's output buffer
            last = ref_launches[-1]
            got = last["after"][last["outs"][0]]
            got = got[: np.asarray(cs["ref"](**cs["inputs"])).size]
        else:
            got = ref_out.numpy()
        if cs["ref"] is not None:
            want = np.asarray(cs["ref"](**cs["inputs"]))
            assert got.shape == want.shape or got.size == want.size, (cs["name"], got.shape, want.shape)
            if cs["check"] is None or got.dtype.kind in "biu":
                assert np.array_equal(got.reshape(-1), want.reshape(-1).astype(got.dtype)), cs["name"]
            else:
                g64, w64 = got.astype(np.float64).reshape(-1), want.astype(np.float64).reshape(-1)
                err = np.max(np.abs(g64 - w64) / np.maximum(1.0, np.abs(w64)))
                assert err <= cs["check"], (cs["name"], err)
        multi = len(ptx_launches) > 1
        for i, (p, r) in enumerate(zip(ptx_launches, ref_launches)):
            assert p["bufs"] == r["bufs"] and p["outs"] == r["outs"] and p["ins"] == r["ins"], \
                (cs["name"], i, p["bufs"], r["bufs"], p["outs"], r["outs"])
            assert [v[0] for v in p["vars"]] == [v[0] for v in r["vars"]]
            name = f"{cs['name']}.k{i}" if multi else cs["name"]
            ptx = ptx_text(p["program"])
            [(entry, pparams)] = mc.ptx_entries(ptx)
            assert entry == p["entry"], (entry, p["entry"])
            nb = len(p["bufs"])
            assert len(pparams) == nb + len(p["vars"]), (name, pparams)
            params, outputs = [], []
            all_int = True
            for j, pp in enumerate(pparams):
                d = {"name": pp["name"], "ptx_type": pp["ptx_type"]}
                if j < nb:
                    dt, size = p["bufs"][j]
                    before, after = r["before"][j], r["after"][j]
                    npdt = np.dtype(_to_np_dtype(dt))
                    if j in p["outs"] and j not in p["ins"] and not before.any():
                        # an output the kernel only writes: zeros (what the emulator's buffer held too)
                        arr = np.zeros(size, npdt)
                        fname = f"zeros.{npdt.name}.{size}"
                    else:
                        arr = before
                        fname = f"{name}.{pp['name']}.in"
                    d.update(role="buffer", input=corpus.npy(fname, arr), dtype=npdt.name, count=int(size))
                    if j in p["outs"]:
                        outputs.append({"param": pp["name"], "expected": corpus.npy(f"{name}.{pp['name']}.expected", after),
                                        "dtype": npdt.name})
                        all_int &= npdt.kind in "biu"
                else:
                    vname, vval = p["vars"][j - nb]
                    d.update(role="scalar", value=int(vval), type="int32", variable=vname, note="symbolic Variable")
                params.append(d)
            tol = mc.exact() if (cs["tol"] is None or all_int) else cs["tol"]
            if tol.get("kind") == "close" and tol["rtol"] == 0 and tol["atol"] == 0:
                tol = mc.exact()
            static_shared = sum(int(s) for s in re.findall(r"\.shared\s+(?:\.align\s+\d+\s+)?\.b8\s+\w+\[(\d+)\]", ptx))
            kernel = {
                "name": name, "case": cs["name"], "file": corpus.ptx(name, ptx), "entry": entry,
                "grid": list(map(int, p["global"])), "block": list(map(int, p["local"])), "shared_bytes": 0,
                "static_shared_bytes": static_shared,
                "params": params, "outputs": outputs, "tolerance": tol,
            }
            if cs["ctx"]:
                kernel["context"] = cs["ctx"]
            if multi:
                kernel["kernel_of_case"] = [i, len(ptx_launches)]
            if cs["note"]:
                kernel["note"] = cs["note"]
            corpus.add(kernel)
            total += 1
            print(f"  {name:28s} {entry:40s} grid={p['global']} block={p['local']} shared={static_shared}")
    corpus.write()


if __name__ == "__main__":
    main()
