"""Numba's CUDA kernels on simt: no GPU, no driver, no CUDA toolkit.

```python
import numpy as np
from numba import cuda
import simt.numba

@cuda.jit
def axpy(a, x, y):
    i = cuda.grid(1)
    if i < x.size:
        y[i] += a * x[i]

x, y = np.arange(4, dtype=np.float32), np.ones(4, np.float32)
simt.numba.launch(axpy, 1, 32, np.float32(2.0), x, y)
assert (y == [1, 3, 5, 7]).all()   # the kernel's stores land in y, as on a GPU
```

`launch` compiles the kernel for its arguments' types with Numba's own compiler
(`numba.cuda.compile_ptx`: the `numba-cuda` package and NVIDIA's `nvidia-cuda-nvcc-cu12`
and `nvidia-cuda-nvrtc-cu12` wheels, `pip install 'simt[numba]'`, no GPU), runs the PTX
on simt and returns simt's `Result` (statistics, timing, sanitizer findings).
"""

import numpy as np

# Numba lays an array argument out as five parameters and two per dimension: its meminfo
# and parent pointers (which device code never reads), element count, element size and
# data pointer, then the shape and the strides in bytes.
_UNREAD = 0


def _parameters(value):
    """The kernel parameters Numba's ABI makes of one argument, in order."""
    if isinstance(value, np.ndarray):
        if not value.flags.c_contiguous:
            raise TypeError("simt.numba.launch takes C-contiguous arrays (np.ascontiguousarray makes one)")
        data = value
        if value.dtype.kind == "c":
            data = value.view(value.real.dtype)  # complex numbers as their parts
        elif value.dtype.kind == "V":
            data = value.view(np.uint8)  # records as their bytes
        return [_UNREAD, _UNREAD, value.size, value.itemsize, data.reshape(-1), *value.shape, *value.strides]
    if isinstance(value, (bool, np.bool_)):
        return [int(value)]
    if isinstance(value, (int, float, np.integer, np.floating)):
        return [value]
    raise TypeError(f"simt.numba.launch passes arrays and numbers, not {type(value).__name__}")


def to_ptx(kernel, *args, cc=(8, 0)):
    """The PTX Numba makes of `kernel` (a `@cuda.jit` function or a plain one) for the
    types of `args`, for compute capability `cc`.

    ```python
    import numpy as np
    from numba import cuda
    import simt.numba

    @cuda.jit
    def double(x):
        x[cuda.grid(1)] *= 2

    text = simt.numba.to_ptx(double, np.zeros(8, np.float32))
    assert ".target sm_80" in text and ".visible .entry" in text
    ```
    """
    import numba
    from numba import cuda

    function = getattr(kernel, "py_func", kernel)
    types = tuple(numba.typeof(a) for a in args)
    ptx, _ = cuda.compile_ptx(function, types, cc=cc)
    return ptx


def launch(kernel, grid, block, *args, cc=(8, 0), **run):
    """Runs `kernel[grid, block](*args)` on simt: arrays are passed by reference (the
    kernel's stores land in them) and `run` takes `Kernel.run`'s other keywords
    (`model`, `timing`, `sanitize`, ...).

    ```python
    import numpy as np
    from numba import cuda
    import simt.numba

    @cuda.jit
    def count_positive(x, out):
        n = cuda.syncthreads_count(1 if x[cuda.grid(1)] > 0 else 0)
        if cuda.threadIdx.x == 0:
            out[cuda.blockIdx.x] = n

    x, out = np.arange(-100, 156, dtype=np.int32), np.zeros(2, np.int32)
    result = simt.numba.launch(count_positive, 2, 128, x, out, timing="h100")
    assert list(out) == [27, 128] and result.timing["cycles"] > 0
    ```
    """
    from . import ptx

    flat = [p for a in args for p in _parameters(a)]
    program = ptx(to_ptx(kernel, *args, cc=cc))
    return program.kernels[0].run(grid=grid, block=block, args=flat, **run)
