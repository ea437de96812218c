"""simt.numba: Numba's CUDA kernels, compiled by Numba (no GPU), run on simt and checked
against numpy: arrays of every rank by Numba's ABI (count, item size, data, shape,
strides), shared memory and barriers, atomics, warp shuffles, the barrier's reductions,
complex numbers, and double-precision trigonometry of large arguments (libdevice's
Payne-Hanek reduction), on both SIMT models and timed."""

import math

import numpy as np
import pytest

cuda = pytest.importorskip("numba.cuda", reason="numba-cuda is not installed (pip install 'simt[numba]')")

import simt.numba  # noqa: E402


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def tiled_matmul(A, B, C):
    sA = cuda.shared.array((16, 16), np.float32)
    sB = cuda.shared.array((16, 16), np.float32)
    x, y = cuda.grid(2)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    acc = np.float32(0.0)
    for t in range((A.shape[1] + 15) // 16):
        sA[ty, tx] = A[y, t * 16 + tx] if y < A.shape[0] and t * 16 + tx < A.shape[1] else 0
        sB[ty, tx] = B[t * 16 + ty, x] if x < B.shape[1] and t * 16 + ty < B.shape[0] else 0
        cuda.syncthreads()
        for k in range(16):
            acc += sA[ty, k] * sB[k, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = acc


@cuda.jit
def histogram(x, bins):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(bins, x[i] % bins.size, 1)


@cuda.jit
def warp_sums(x, out):
    i = cuda.grid(1)
    v = x[i]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        out[i // 32] = v


@cuda.jit
def complex_square(z, out):
    i = cuda.grid(1)
    if i < z.size:
        out[i] = z[i] * z[i] + z[i].conjugate()


@cuda.jit
def trig(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.sin(x[i]) + math.cos(x[i])


@cuda.jit
def greet(x):
    i = cuda.grid(1)
    if i < x.size:
        print("thread", i, "has", x[i])


@pytest.fixture(scope="module", autouse=True)
def compiler():
    """Numba's compiler needs NVIDIA's NVVM and NVRTC wheels besides numba-cuda."""
    try:
        simt.numba.to_ptx(saxpy, np.float32(1), *[np.zeros(1, np.float32)] * 3)
    except Exception as e:  # numba raises its own error types for a missing library
        pytest.skip(f"Numba cannot compile PTX here: {e}")


@pytest.mark.parametrize("model", ["its", "stack"])
def test_elementwise_and_two_dimensional_kernels(model):
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    out = np.zeros_like(x)
    simt.numba.launch(saxpy, 8, 128, np.float32(2.5), x, y, out, model=model)
    # Numba contracts the multiply-add into one fma.rn.f32: one rounding of the exact value.
    assert np.array_equal(out, (2.5 * x.astype(np.float64) + y).astype(np.float32))
    A, B = rng.standard_normal((37, 21)).astype(np.float32), rng.standard_normal((21, 45)).astype(np.float32)
    C = np.zeros((37, 45), np.float32)
    simt.numba.launch(tiled_matmul, (3, 3), (16, 16), A, B, C, model=model)
    assert np.allclose(C, A @ B, rtol=1e-5, atol=1e-5)


def test_atomics_shuffles_and_complex_numbers():
    rng = np.random.default_rng(2)
    x = rng.integers(0, 1000, 4096).astype(np.int32)
    bins = np.zeros(10, np.int32)
    simt.numba.launch(histogram, 16, 256, x, bins)
    assert np.array_equal(bins, np.bincount(x % 10, minlength=10))
    v = rng.integers(-100, 100, 256).astype(np.int32)
    sums = np.zeros(8, np.int32)
    simt.numba.launch(warp_sums, 2, 128, v, sums)
    assert np.array_equal(sums, v.reshape(8, 32).sum(1))
    z = (rng.standard_normal(100) + 1j * rng.standard_normal(100)).astype(np.complex64)
    out = np.zeros_like(z)
    simt.numba.launch(complex_square, 1, 128, z, out)
    assert np.allclose(out, z * z + z.conj(), rtol=1e-5)


def test_double_trigonometry_of_large_arguments_timed():
    x = np.random.default_rng(3).standard_normal(256) * 10.0 ** (np.arange(256) % 300)
    out = np.zeros_like(x)
    result = simt.numba.launch(trig, 2, 128, x, out, timing="h100")
    assert np.allclose(out, np.sin(x) + np.cos(x), rtol=1e-14, atol=1e-14)
    assert result.timing["cycles"] > 0


def test_arguments_numba_cannot_pass_are_refused():
    with pytest.raises(TypeError, match="C-contiguous"):
        simt.numba.launch(saxpy, 1, 32, np.float32(1), np.zeros((4, 4), np.float32)[:, 0], np.zeros(4, np.float32), np.zeros(4, np.float32))
    with pytest.raises(TypeError, match="arrays and numbers"):
        simt.numba.launch(saxpy, 1, 32, "two", np.zeros(4, np.float32), np.zeros(4, np.float32), np.zeros(4, np.float32))


def test_print_writes_to_stdout_in_print_order(capsys):
    """Numba's print is CUDA's vprintf with a format Numba builds (`%s %lld %s %f\\n`)."""
    x = np.array([0.5, -2.0, 3.25], np.float32)
    result = simt.numba.launch(greet, 1, 32, x)
    want = "".join(f"thread {i} has {v:f}\n" for i, v in enumerate(x))
    assert result.printed == want
    assert capsys.readouterr().out == want
