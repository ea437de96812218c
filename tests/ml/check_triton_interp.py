"""Checks gen_triton.py's numpy references against Triton's own CPU interpreter (TRITON_INTERPRET=1).

This runs each kernel's Python source (not its PTX) on the same inputs and compares with the
expected outputs under the kernel's tolerance, so a wrong reference is caught here rather than
blamed on the simulator. Triton's interpreter wants torch tensors; a few lines below stand in
for them over numpy arrays (buffers get slack after their end: the interpreter touches masked-off
addresses). No GPU and no torch are needed.

Usage: python check_triton_interp.py [NAME,...]   (regen.sh runs it after gen_triton.py)
Exit status 1 when a reference disagrees.
"""
import os
import sys

os.environ["TRITON_INTERPRET"] = "1"  # before the kernels are defined
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import gen_triton as g  # noqa: E402
from triton.tools.tensor_descriptor import TensorDescriptor  # noqa: E402

# Known differences of the interpreter itself, not of our references: it converts f32 to
# bfloat16 by truncation, where the PTX (cvt.rn.bf16x2.f32) rounds to nearest even.
INTERPRETER_DIFFERS = {("casts", "bf_ptr"): 1}
# Kernels the interpreter cannot check: its tl.dot on bf16 operands multiplies their bits as
# integers (a load of bf16 converts correctly: checked with a copy kernel).
INTERPRETER_CANNOT = {"matmul_bf16_s3": "tl.dot on bf16 multiplies the bits", "matmul_bf16_s3_sm90": "tl.dot on bf16 multiplies the bits",
                      "pdl_scale_sm90": "tl.extra.cuda.gdc_wait has no interpreter form",
                      "fp8_casts_sm90": "f32 to e5m2 cast does not saturate as the PTX's cvt.rn.satfinite does (1e5 becomes 98304, not 57344)",
                      "fp8_casts_f16_sm90": "f16 to e5m2 cast does not saturate as the PTX's cvt.rn.satfinite does",
                      "fp8_casts_bf16_sm90": "bf16 to e5m2 cast does not saturate as the PTX's cvt.rn.satfinite does",
                      "fp8_casts_sm100": "f32 to e5m2 cast does not saturate as the PTX's cvt.rn.satfinite does",
                      "fp8_casts_f16_sm100": "f16 to e5m2 cast does not saturate as the PTX's cvt.rn.satfinite does",
                      "fp8_casts_bf16_sm100": "bf16 to e5m2 cast does not saturate as the PTX's cvt.rn.satfinite does",
                      "scatter_add_bf16_sm90": "atomic_add has no bf16 form (ValueError: Unsupported data type)",
                      "fp8_e5m2_cast_sm80": "f32 to e5m2 cast rounds to nearest, not as sm_80's bit arithmetic (cvt.rz.f16x2.f32, lop3) does",
                      "dot_scaled_nvfp4_sm120": "dot_scaled reads every scale as E8M0 (byte << 23), nvfp4's E4M3 ones too",
                      "dot_scaled_nvfp4_sm100": "dot_scaled reads every scale as E8M0 (byte << 23), nvfp4's E4M3 ones too",
                      "matmul_bf16_s3_sm100": "tl.dot on bf16 multiplies the bits"}


class _Dtype:
    def __init__(self, name):
        self.name = name
        self.itemsize = {"float8_e4m3": 1, "float8_e5m2": 1, "bfloat16": 2}.get(name) or np.dtype(name).itemsize

    def __str__(self):
        return "torch." + {"float8_e4m3": "float8_e4m3fn"}.get(self.name, self.name)

    __repr__ = __str__


class _Storage:
    def __init__(self, arr):
        self.arr = arr

    def data_ptr(self):
        return self.arr.ctypes.data

    def cpu(self):
        return self

    def copy_(self, other):
        pass


class _Tensor:
    """Just enough of torch.Tensor for triton.runtime.interpreter, over one numpy array."""

    def __init__(self, arr, dtype):
        self.arr, self.dtype = arr, dtype

    def data_ptr(self):
        return self.arr.ctypes.data

    def untyped_storage(self):
        return _Storage(self.arr)

    def new_empty(self, *a, **k):
        return type(self)(self.arr[:0], self.dtype)

    def set_(self, storage, offset, size, stride):
        self.arr = storage.arr
        return self

    def storage_offset(self):
        return 0

    def size(self):
        return self.arr.shape

    def stride(self):
        return tuple(s // self.arr.itemsize for s in self.arr.strides)

    def copy_(self, other):
        pass

    @property
    def device(self):
        return "cpu"


# Triton caches a specialisation per argument type and dtype object: keep one class and one
# dtype object per dtype alive for the whole run.
_DTYPES, _CLASSES = {}, {}


def _tensor(arr, dtname):
    if dtname not in _DTYPES:
        _DTYPES[dtname] = _Dtype(dtname)
        _CLASSES[dtname] = type("T_" + dtname, (_Tensor,), {})
    return _CLASSES[dtname](arr, _DTYPES[dtname])


def main():
    only = set(sys.argv[1].split(",")) if len(sys.argv) > 1 else None
    bad = 0
    for spec in g.specs():
        if only and spec.name not in only:
            continue
        if spec.name in INTERPRETER_CANNOT:
            print(f"{spec.name:16s} skipped: the interpreter's {INTERPRETER_CANNOT[spec.name]}")
            continue
        args, bufs, keep = [], {}, []
        for name, a in spec.args.items():
            if a[0] in ("buffer", "tensordesc"):
                src = a[1]
                big = np.zeros(src.size * 2 + 8192, src.dtype)
                keep.append(big)
                arr = big[: src.size].reshape(src.shape)
                arr[...] = src
                bufs[name] = arr
                tensor = _tensor(arr, a[3] or src.dtype.name)  # an element numpy lacks, as its bits
                if a[0] == "tensordesc":
                    tensor = TensorDescriptor(tensor, list(arr.shape), list(tensor.stride()), a[4])
                args.append(tensor)
            elif a[0] == "pointers":
                # A table of the members' host addresses, which the interpreter follows as is.
                for k, src in enumerate(a[1]):
                    arr = src.copy()
                    keep.append(arr)
                    bufs[f"{name}.{k}"] = arr
                table = np.array([bufs[f"{name}.{k}"].ctypes.data for k in range(len(a[1]))], np.int64)
                keep.append(table)
                args.append(_tensor(table, "int64"))
            elif a[0] == "scalar":
                args.append(a[2])
            else:
                args.append(a[1])
        spec.fn[spec.grid](*args, num_warps=spec.num_warps)
        for name, ref in spec.outputs.items():
            got = bufs[name].reshape(-1)
            want = np.asarray(ref).reshape(-1).astype(got.dtype)
            diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
            if spec.tolerance["kind"] == "exact":
                ok = np.array_equal(got, want, equal_nan=got.dtype.kind == "f")
            else:
                t = spec.tolerance
                ok = bool(np.all(diff <= t["atol"] + t["rtol"] * np.abs(want.astype(np.float64))))
            known = INTERPRETER_DIFFERS.get((spec.name, name))
            if not ok and known is not None and diff.max() <= known:
                status = f"ok (interpreter differs by at most {known}, known)"
            else:
                status = "ok" if ok else "MISMATCH"
                bad += not ok
            print(f"{spec.name:16s} {name:10s} {status}  max |diff| {diff.max():.3g}")
    print("triton references: " + ("all agree with the interpreter" if not bad else f"{bad} disagree"))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
