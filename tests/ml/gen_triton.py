"""Compiles our Triton kernels to PTX for sm_80 without a GPU and writes tests/ml/triton/.

Every kernel here is written for this corpus, after the patterns of Triton's tutorials
(vector add, fused softmax, low-memory dropout, layer norm, matmul, fused attention) plus
reductions, scans, atomics, a transpose and elementwise math. Each is compiled with
`triton.compile(ASTSource(...), target=GPUTarget("cuda", 80, 32))`, which needs no GPU and no
CUDA driver: the PTX comes from Triton's own LLVM, and ptxas (shipped in the triton wheel)
only makes the cubin, which we do not keep. Pointer arguments get Triton's `tt.divisibility=16`
attribute, as `@triton.jit` gives a 16-byte-aligned tensor at launch time, so the PTX is the
one a real launch would compile (vectorised loads included).

The expected outputs are computed with numpy, in float64 where rounding matters, and each
kernel says how closely the device must agree (see README.md).

Usage: python gen_triton.py [OUT_DIR]   (regen.sh runs it in the pinned venv)
"""
import atexit
import math
import os
import shutil
import sys
import tempfile

if "TRITON_CACHE_DIR" not in os.environ:  # a fresh cache: every kernel is compiled anew
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="simt-ml-triton-cache-")
    atexit.register(shutil.rmtree, os.environ["TRITON_CACHE_DIR"], True)
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9's default, said explicitly

import numpy as np
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlcorpus as mc  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CAPABILITY = 80  # the target of every kernel but the *_sm90 ones (Spec.for_hopper)


# ---------------------------------------------------------------- kernels

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, num / den, mask=mask)


@triton.jit
def dropout_kernel(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    r = tl.rand(seed, offs)
    keep = r > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def layernorm_fwd_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * stride
    y_ptr += row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        x = tl.where(cols < n_cols, x - mean, 0.0)
        acc += x * x
    var = tl.sum(acc, axis=0) / n_cols
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < n_cols
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + cols, (x - mean) * rstd * w + b, mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                  PRECISION: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def matmul_tile_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # Row-major A[M, K], B[K, N] (int8 or fp8), C[M, N] accumulated in its own type, a tile a program.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=c_ptr.dtype.element_ty)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b, out_dtype=c_ptr.dtype.element_ty)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def attention_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, N_CTX,
                         HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Non-causal attention of one (batch*head) slice per grid row; q, k, v, o are [BH, N_CTX, HEAD_DIM] f16.
    start_m = tl.program_id(0)
    bh = tl.program_id(1)
    base = bh * N_CTX * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # log2(e): exp(x) = exp2(x * log2(e))
    for start_n in range(0, N_CTX, BLOCK_N):
        kT = tl.load(k_ptr + base + (start_n + offs_n)[None, :] * HEAD_DIM + offs_d[:, None])
        qk = tl.dot(q, kT)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(v_ptr + base + (start_n + offs_n)[:, None] * HEAD_DIM + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc.to(tl.float16))


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_rows, n_cols, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + rows, tl.sum(x, axis=1), mask=rows < n_rows)


@triton.jit
def col_sum_i32_kernel(x_ptr, out_ptr, n_rows, n_cols, ROWS: tl.constexpr, COLS: tl.constexpr):
    # Sums a [ROWS, n_cols] int32 matrix down its columns: a reduction across warps.
    cols = tl.program_id(0) * COLS + tl.arange(0, COLS)
    rows = tl.arange(0, ROWS)
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=rows[:, None] < n_rows, other=0)
    tl.store(out_ptr + cols, tl.sum(x, axis=0))


@triton.jit
def row_max_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(out_ptr + row, tl.max(x, axis=0))


@triton.jit
def row_argmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(out_ptr + row, tl.argmax(x, axis=0))


@triton.jit
def cumsum_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0)
    tl.store(out_ptr + row * n_cols + cols, tl.cumsum(x, axis=0), mask=cols < n_cols)


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    bins = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + bins, 1, mask=mask)


@triton.jit
def atomic_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


@triton.jit
def transpose_kernel(in_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # out[N, M] = in[M, N]^T, one BLOCK_M x BLOCK_N tile per program on a 2-D grid.
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(in_ptr + rm[:, None] * N + rn[None, :], mask=mask)
    tl.store(out_ptr + rn[None, :] * M + rm[:, None], x, mask=mask)


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(out_ptr + offs, y, mask=mask)


@triton.jit
def exp_log_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.exp(x) + tl.log(tl.abs(x) + 1.0), mask=mask)


@triton.jit
def sin_cos_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.sin(x) * tl.cos(2.0 * x), mask=mask)


@triton.jit
def sqrt_rsqrt_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.sqrt(x) + tl.math.rsqrt(x) + tl.sqrt_rn(x + 1.0), mask=mask)


@triton.jit
def silu_f16_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x * tl.sigmoid(x)).to(tl.float16), mask=mask)


@triton.jit
def int_ops_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask, other=1)
    r = ((a ^ b) >> 3) | (a << 2)
    r += a // b - a % b
    r = tl.where(a > b, tl.minimum(r, a * 7), tl.maximum(r, b - 100))
    tl.store(out_ptr + offs, r, mask=mask)


@triton.jit
def cast_kernel(x_ptr, h_ptr, bf_ptr, i_ptr, n, BLOCK: tl.constexpr):
    # f32 -> f16, f32 -> bf16 (round to nearest even), f32 -> int32 (truncation).
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(h_ptr + offs, x.to(tl.float16), mask=mask)
    tl.store(bf_ptr + offs, x.to(tl.bfloat16), mask=mask)
    tl.store(i_ptr + offs, x.to(tl.int32), mask=mask)


@triton.jit
def add_f16_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * y - y, mask=mask)


@triton.jit
def tma_add_one_kernel(in_desc, out_desc, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # A tile through host-made tensor descriptors: on sm_90a the loads and the store are TMA
    # copies (cp.async.bulk.tensor) that complete on an mbarrier; tiles hang over the edges.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x = in_desc.load([pid_m * BLOCK_M, pid_n * BLOCK_N])
    out_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], x + 1.0)


@triton.jit
def matmul_tma_kernel(a_desc, b_desc, c_desc, K,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # Triton's Hopper matmul through tensor descriptors (tutorial 09's shape, one tile a program):
    # the K loop's TMA loads are pipelined over num_stages buffers and mbarriers, tl.dot is wgmma.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([pid_m * BLOCK_M, k])
        b = b_desc.load([k, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(c_desc.dtype))


@triton.jit
def tma_device_desc_kernel(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Tensor descriptors made on the device (tl.make_tensor_descriptor): each program builds its
    # tensor maps in shared memory with tensormap.replace, copies them to its slice of Triton's
    # global scratch (tensormap.cp_fenceproxy), and copies tiles through them.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    x = x_desc.load([pid_m * BLOCK_M, pid_n * BLOCK_N])
    y_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], x * 2.0 - 1.0)


@triton.jit
def matmul_tma_persistent_kernel(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                 BLOCK_K: tl.constexpr, NUM_SMS: tl.constexpr):
    # Tutorial 09's persistent TMA matmul: NUM_SMS programs stride over the tiles, the tile and K
    # loops flattened into one pipelined loop (its TMA loads run ahead across tiles).
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    for tile in tl.range(tl.program_id(0), num_m * num_n, NUM_SMS, flatten=True):
        pid_m = tile // num_n
        pid_n = tile % num_n
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            a = a_desc.load([pid_m * BLOCK_M, k])
            b = b_desc.load([k, pid_n * BLOCK_N])
            acc = tl.dot(a, b, acc)
        c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(c_desc.dtype))


@triton.jit
def layernorm_bwd_dx_kernel(dx_ptr, dy_ptr, dw_ptr, db_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr, lock_ptr, stride, N,
                            GROUP_SIZE_M: tl.constexpr, BLOCK: tl.constexpr):
    # Tutorial 05's backward pass: each row's dx, and its share of dw and db added into one of
    # GROUP_SIZE_M partial rows under a spin lock (atomic_cas) that programs take in turn.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x_ptr += row * stride
    dy_ptr += row * stride
    dx_ptr += row * stride
    lock_id = row % GROUP_SIZE_M
    lock_ptr += lock_id
    count_ptr = lock_ptr + GROUP_SIZE_M
    dw_ptr = dw_ptr + lock_id * N + cols
    db_ptr = db_ptr + lock_id * N + cols
    x = tl.load(x_ptr + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(dy_ptr + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.)
    wdy = tl.where(mask, w * dy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    tl.store(dx_ptr + cols, (wdy - (xhat * c1 + c2)) * rstd, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = dy.to(w.dtype)
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    count = tl.load(count_ptr)
    if count == 0:
        tl.atomic_xchg(count_ptr, 1)
    else:
        partial_dw += tl.load(dw_ptr, mask=mask)
        partial_db += tl.load(db_ptr, mask=mask)
    tl.store(dw_ptr, partial_dw, mask=mask)
    tl.store(db_ptr, partial_db, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(lock_ptr, 0)


@triton.jit
def matmul_ws_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # A warp-specialized loop (tl.range(warp_specialize=True)): Triton gives the TMA loads to a
    # producer warp and the wgmma to the consumer warpgroup, hands the stages over on mbarriers
    # and named barriers, and moves registers between them with setmaxnreg.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, warp_specialize=True):
        a = a_desc.load([pid_m * BLOCK_M, k])
        b = b_desc.load([k, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(tl.float16))


@triton.jit
def pdl_scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # Programmatic dependent launch (tutorial 11): wait for the grid before, let the next start.
    tl.extra.cuda.gdc_wait()
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.extra.cuda.gdc_launch_dependents()
    tl.store(y_ptr + offs, x * 3.0, mask=mask)


@triton.jit
def _attn_bwd_dkdv(dk, dv, q_ptr, k, v, do_ptr, m_ptr, d_ptr, stride_tok, stride_d, offs_n, start_m, num_steps,
                   BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr):
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_k = tl.arange(0, HEAD_DIM)
    qT_ptrs = q_ptr + offs_m[None, :] * stride_tok + offs_k[:, None] * stride_d
    do_ptrs = do_ptr + offs_m[:, None] * stride_tok + offs_k[None, :] * stride_d
    curr_m = start_m
    for _ in range(num_steps):
        qT = tl.load(qT_ptrs)
        offs_m = curr_m + tl.arange(0, BLOCK_M)
        m = tl.load(m_ptr + offs_m)
        pT = tl.math.exp2(tl.dot(k, qT) - m[None, :])
        pT = tl.where(offs_m[None, :] >= offs_n[:, None], pT, 0.0)
        do = tl.load(do_ptrs)
        dv += tl.dot(pT.to(tl.float16), do)
        di = tl.load(d_ptr + offs_m)
        dpT = tl.dot(v, tl.trans(do)).to(tl.float32)
        dsT = (pT * (dpT - di[None, :])).to(tl.float16)
        dk += tl.dot(dsT, tl.trans(qT))
        curr_m += BLOCK_M
        qT_ptrs += BLOCK_M * stride_tok
        do_ptrs += BLOCK_M * stride_tok
    return dk, dv


@triton.jit
def attention_bwd_dkdv_kernel(q_ptr, k_ptr, v_ptr, sm_scale, do_ptr, dk_ptr, dv_ptr, m_ptr, d_ptr, stride_tok, stride_d,
                              N_CTX, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    # Tutorial 06's backward pass for dk and dv over the causal diagonal and below: q is already
    # scaled (by sm_scale / ln 2), m holds each row's log2-sum-exp and d its sum of o * do. Two
    # 64 x 64 f32 accumulators and four operand tiles live at once: with the tutorial's pointer
    # increments, more than 255 registers (ptxas spills too).
    start_n = tl.program_id(0) * BLOCK_N
    offs_n = start_n + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, HEAD_DIM)
    dv = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    dk = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    k = tl.load(k_ptr + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d)
    v = tl.load(v_ptr + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d)
    dk, dv = _attn_bwd_dkdv(dk, dv, q_ptr, k, v, do_ptr, m_ptr, d_ptr, stride_tok, stride_d, offs_n, start_n,
                            (N_CTX - start_n) // BLOCK_M, BLOCK_M, HEAD_DIM)
    tl.store(dv_ptr + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d, dv.to(tl.float16))
    tl.store(dk_ptr + offs_n[:, None] * stride_tok + offs_k[None, :] * stride_d, (dk * sm_scale).to(tl.float16))


@triton.jit
def fp8_casts_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # f32 to fp8 (e5m2 and e4m3, saturating to their largest finite values) and back.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = x.to(tl.float8e5).to(tl.float32) + x.to(tl.float8e4nv).to(tl.float32)
    tl.store(y_ptr + offs, y, mask=mask)


@triton.jit
def scatter_add_kernel(x_ptr, y_ptr, n, BINS: tl.constexpr, BLOCK: tl.constexpr):
    # tl.atomic_add on a half-precision tensor: each element into bin i % BINS (a gradient's
    # scatter-add in f16 or bf16, atom.add.noftz.f16 / .bf16).
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.atomic_add(y_ptr + offs % BINS, x, mask=mask)


@triton.jit
def cache_hints_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # The cache hints Triton's users (and TorchInductor's kernels) give loads and stores:
    # eviction policies (createpolicy and .L2::cache_hint) and cache operators. Values unchanged.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, eviction_policy="evict_last")
    y = tl.load(y_ptr + offs, mask=mask, eviction_policy="evict_first")
    tl.store(out_ptr + offs, x * 2.0 + y, mask=mask, cache_modifier=".cs")


@triton.jit
def grouped_matmul_kernel(a_ptrs, b_ptrs, c_ptrs, sizes_ptr, lds_ptr, groups, PROGRAMS: tl.constexpr,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # After tutorial 08: several f16 GEMMs of their own shapes in one launch, each group's
    # matrices reached through tables of device pointers (int64 addresses cast to pointers).
    # The groups' tiles are numbered one after another; program p takes tiles p, p + PROGRAMS, ...
    tile = tl.program_id(0)
    first = 0
    for g in range(groups):
        m = tl.load(sizes_ptr + g * 3)
        n = tl.load(sizes_ptr + g * 3 + 1)
        k = tl.load(sizes_ptr + g * 3 + 2)
        tiles_n = tl.cdiv(n, BLOCK_N)
        tiles = tl.cdiv(m, BLOCK_M) * tiles_n
        while tile >= first and tile < first + tiles:
            lda = tl.load(lds_ptr + g * 3)
            ldb = tl.load(lds_ptr + g * 3 + 1)
            ldc = tl.load(lds_ptr + g * 3 + 2)
            a = tl.load(a_ptrs + g).to(tl.pointer_type(tl.float16))
            b = tl.load(b_ptrs + g).to(tl.pointer_type(tl.float16))
            c = tl.load(c_ptrs + g).to(tl.pointer_type(tl.float16))
            rows = (tile - first) // tiles_n * BLOCK_M + tl.arange(0, BLOCK_M)
            cols = (tile - first) % tiles_n * BLOCK_N + tl.arange(0, BLOCK_N)
            ks = tl.arange(0, BLOCK_K)
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for kk in range(0, tl.cdiv(k, BLOCK_K)):
                x = tl.load(a + rows[:, None] * lda + (kk * BLOCK_K + ks)[None, :])
                y = tl.load(b + (kk * BLOCK_K + ks)[:, None] * ldb + cols[None, :])
                acc += tl.dot(x, y)
            tl.store(c + rows[:, None] * ldc + cols[None, :], acc.to(tl.float16))
            tile += PROGRAMS
        first += tiles


# ---------------------------------------------------------------- references

TRITON_DTYPE = {"float32": "fp32", "float16": "fp16", "int32": "i32", "int16": "i16", "int8": "i8", "bfloat16": "bf16",
                "int64": "i64", "uint32": "u32", "uint8": "u8", "float8_e4m3": "fp8e4nv", "float8_e5m2": "fp8e5"}


def e4m3_values(codes):
    """The float64 values of fp8 e4m3 codes (no NaN code among them): sign, 4 exponent bits biased
    by 7, 3 mantissa bits, subnormal below exponent 1."""
    c = codes.astype(np.int64)
    sign = np.where(c & 0x80, -1.0, 1.0)
    e, m = (c >> 3) & 0xF, c & 7
    return sign * np.where(e == 0, m / 8.0 * 2.0 ** -6, (1 + m / 8.0) * 2.0 ** (e - 7))


def philox_rand(seed, offsets):
    """Philox-4x32-10 as tl.rand uses it: counter (offset, 0, 0, 0), key (seed lo, seed hi),
    first word -> int32 -> ~x when negative -> * 4.6566127342e-10 in f32."""
    c0 = offsets.astype(np.uint64)
    c1 = np.zeros_like(c0)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    k0 = np.uint64(seed & 0xFFFFFFFF)
    k1 = np.uint64((seed >> 32) & 0xFFFFFFFF)
    M32 = np.uint64(0xFFFFFFFF)
    A, B = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    for _ in range(10):
        p0 = B * c2  # both factors < 2^32: the product fits in 64 bits
        p1 = A * c0
        n0 = (p0 >> np.uint64(32)) ^ c1 ^ k0
        n2 = (p1 >> np.uint64(32)) ^ c3 ^ k1
        c1, c3 = p0 & M32, p1 & M32
        c0, c2 = n0 & M32, n2 & M32
        k0 = (k0 + np.uint64(0x9E3779B9)) & M32
        k1 = (k1 + np.uint64(0xBB67AE85)) & M32
    x = c0.astype(np.uint32).view(np.int32)
    x = np.where(x < 0, ~x, x)
    return x.astype(np.float32) * np.float32(4.6566127342e-10)


def f32(x):
    return np.asarray(x, dtype=np.float64).astype(np.float32)


def to_bf16_bits(x):
    """f32 -> bf16 rounded to nearest even, as uint16 bits (inputs here are finite)."""
    b = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (b + np.uint64(0x7FFF) + ((b >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)
    return rounded.astype(np.uint16)


def fp8_round(x, man_bits, min_exp, largest):
    """f32 values rounded to an fp8 format with `man_bits` mantissa bits, normal exponents from
    `min_exp`, to nearest even, saturating to +-`largest` (PTX's .satfinite)."""
    x = np.asarray(x, dtype=np.float64)
    exp = np.floor(np.log2(np.maximum(np.abs(x), 2.0 ** min_exp)))
    quantum = 2.0 ** (exp - man_bits)
    r = np.round(x / quantum) * quantum  # numpy rounds halves to even
    return np.clip(r, -largest, largest)


def c_div(a, b):
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    q = np.abs(a64) // np.abs(b64) * np.sign(a64) * np.sign(b64)
    return q, a64 - q * b64


@triton.jit
def dot_scaled_kernel(a_ptr, b_ptr, sa_ptr, sb_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    """One tile of a block-scaled (MX) fp8 product: each 32 elements of a row of A and of a column
    of B share an e8m0 scale, 2^(s - 127)."""
    rm, rn, rk, rs = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K), tl.arange(0, K // 32)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    sa = tl.load(sa_ptr + rm[:, None] * (K // 32) + rs[None, :])
    sb = tl.load(sb_ptr + rn[:, None] * (K // 32) + rs[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot_scaled(a, sa, "e4m3", b, sb, "e4m3"))


@triton.jit
def dot_scaled_fp4_kernel(a_ptr, b_ptr, sa_ptr, sb_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                          BLOCK: tl.constexpr):
    """One tile of a block-scaled fp4 product: e2m1 pairs packed along K (the even element in the
    low nibble), each BLOCK elements of a row of A and of a column of B sharing a scale (e8m0 for
    mxfp4, e4m3 for nvfp4, as the scales' type says)."""
    rm, rn, rs = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K // BLOCK)
    a = tl.load(a_ptr + rm[:, None] * (K // 2) + tl.arange(0, K // 2)[None, :])
    b = tl.load(b_ptr + tl.arange(0, K // 2)[:, None] * N + rn[None, :])
    sa = tl.load(sa_ptr + rm[:, None] * (K // BLOCK) + rs[None, :])
    sb = tl.load(sb_ptr + rn[:, None] * (K // BLOCK) + rs[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot_scaled(a, sa, "e2m1", b, sb, "e2m1"))


@triton.jit
def dot_scaled_bf16_fp4_kernel(a_ptr, b_ptr, sb_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    """One tile of bf16 activations times mxfp4 weights (e2m1 pairs packed along K, an e8m0 scale a
    32 elements of a column), the weights' format of gpt-oss: tl.dot_scaled with no scale for A."""
    rm, rn, rs = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K // 32)
    a = tl.load(a_ptr + rm[:, None] * K + tl.arange(0, K)[None, :])
    b = tl.load(b_ptr + tl.arange(0, K // 2)[:, None] * N + rn[None, :])
    sb = tl.load(sb_ptr + rn[:, None] * (K // 32) + rs[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot_scaled(a, None, "bf16", b, sb, "e2m1"))


@triton.jit
def fp8_e5m2_cast_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # f32 to e5m2 and back where no instruction converts (sm_80: Triton rounds through halves
    # with cvt.rz.f16x2.f32 and lop3, four values at a time: with fewer a thread, it reads
    # registers it never wrote).
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(tl.float8e5).to(tl.float32), mask=mask)


@triton.jit
def sort_gather_kernel(x_ptr, i_ptr, b_ptr, sorted_ptr, top_ptr, gathered_ptr, hist_ptr, N: tl.constexpr,
                       TOP: tl.constexpr, BINS: tl.constexpr):
    """tl.sort, tl.topk, tl.gather and tl.histogram on one block's values: bitonic networks of
    shuffles and shared memory, an index gather and a count."""
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r)
    tl.store(sorted_ptr + r, tl.sort(x))
    tl.store(top_ptr + tl.arange(0, TOP), tl.topk(x, TOP))
    tl.store(gathered_ptr + r, tl.gather(x, tl.load(i_ptr + r), 0))
    tl.store(hist_ptr + tl.arange(0, BINS), tl.histogram(tl.load(b_ptr + r), BINS))


@triton.jit
def dot_scaled_mixed_kernel(a_ptr, b_ptr, sa_ptr, sb_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                            A_FMT: tl.constexpr, B_FMT: tl.constexpr, B_PACK: tl.constexpr):
    """One tile of a block-scaled product of two formats, A_FMT activations by B_FMT weights, each
    32 elements of a row of A and of a column of B sharing an e8m0 scale; B_PACK elements of B a
    byte along K (e2m1 pairs: the even element in the low nibble)."""
    rm, rn, rs = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K // 32)
    a = tl.load(a_ptr + rm[:, None] * K + tl.arange(0, K)[None, :])
    b = tl.load(b_ptr + tl.arange(0, K // B_PACK)[:, None] * N + rn[None, :])
    sa = tl.load(sa_ptr + rm[:, None] * (K // 32) + rs[None, :])
    sb = tl.load(sb_ptr + rn[:, None] * (K // 32) + rs[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot_scaled(a, sa, A_FMT, b, sb, B_FMT))


@triton.jit
def nan_min_max_i16_kernel(x_ptr, y_ptr, a_ptr, b_ptr, mx_ptr, mn_ptr, h_ptr, s_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x, y = tl.load(x_ptr + offs, mask=mask), tl.load(y_ptr + offs, mask=mask)
    a, b = tl.load(a_ptr + offs, mask=mask), tl.load(b_ptr + offs, mask=mask)
    tl.store(mx_ptr + offs, tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL), mask=mask)
    tl.store(mn_ptr + offs, tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL), mask=mask)
    tl.store(h_ptr + offs, tl.maximum(x.to(tl.float16), y.to(tl.float16), propagate_nan=tl.PropagateNan.ALL), mask=mask)
    tl.store(s_ptr + offs, (a + b) * 3 - (a - b), mask=mask)


def ptx_nans(x):
    """`x` with every NaN the canonical one PTX's NaN-propagating instructions give (all ones
    but the sign: 0x7FFFFFFF, 0x7FFF), where numpy's are quiet NaNs of its own."""
    bits = x.view(np.uint32 if x.dtype == np.float32 else np.uint16)
    return np.where(np.isnan(x), np.array(0x7FFFFFFF if x.dtype == np.float32 else 0x7FFF, bits.dtype), bits).view(x.dtype)


def e2m1_values(packed, axis):
    """The float64 values of fp4 e2m1 pairs packed along `axis`, the even element in the low
    nibble: sign, 2 exponent bits biased by 1, 1 mantissa bit, subnormal below exponent 1."""
    c = np.stack([packed & 0xF, packed >> 4], axis=axis + 1).astype(np.int64)
    c = c.reshape(*packed.shape[:axis], 2 * packed.shape[axis], *packed.shape[axis + 1:])
    sign = np.where(c & 8, -1.0, 1.0)
    e, m = (c >> 1) & 3, c & 1
    return sign * np.where(e == 0, m / 2.0, (1 + m / 2.0) * 2.0 ** (e - 1))


# ---------------------------------------------------------------- the corpus

class Spec:
    def __init__(self, name, fn, args, grid, outputs, tolerance, num_warps=4, num_stages=3, note="", capability=CAPABILITY):
        self.name, self.fn, self.args, self.grid = name, fn, args, tuple(grid) + (1,) * (3 - len(grid))
        self.outputs, self.tolerance, self.num_warps, self.num_stages, self.note = \
            outputs, tolerance, num_warps, num_stages, note
        self.capability = capability

    def for_capability(self, capability, note, name=None):
        """The same kernel compiled for another target (NAME_smXX unless named)."""
        other = Spec(name or f"{self.name}_sm{capability}", self.fn, self.args, self.grid, self.outputs, self.tolerance,
                     self.num_warps, self.num_stages, capability=capability)
        other.note = note + (f"; {self.note}" if self.note else "")
        return other

    def for_hopper(self):
        """The same kernel compiled for sm_90a, where Triton's dots are warpgroup MMAs (wgmma)."""
        return self.for_capability(90, "sm_90a: tl.dot is wgmma.mma_async on shared-memory descriptors")


def buf(array, name=None, element=None):
    """A buffer argument; `element` names the Triton element type where numpy has none (the
    array then holds its bits)."""
    return ("buffer", np.ascontiguousarray(array), name, element)


def tdesc(array, block, name=None, element=None):
    """A host-made tensor descriptor over `array` (Triton's TensorDescriptor): its kernel parameter
    is a 128-byte CUtensorMap, followed by the tensor's shape (i32 each) and strides (i64 each)."""
    return ("tensordesc", np.ascontiguousarray(array), name, element, list(block))


def ptrs(arrays, name=None):
    """A table of device pointers to `arrays` (an int64 tensor of addresses, as tutorial 08 passes
    them): simt run gives it as pointers(@a0.npy, @a1.npy, ...); output NAME.K is array K."""
    return ("pointers", [np.ascontiguousarray(a) for a in arrays], name, None)


def scalar(ty, value):
    return ("scalar", ty, value)


def const(value):
    return ("constexpr", value)


def specs():
    S = []
    rng = np.random.default_rng(2024)

    def uniform(n, lo=-1.0, hi=1.0):
        return rng.uniform(lo, hi, n).astype(np.float32)

    # vector add (tutorial 01)
    n = 1000
    x, y = uniform(n), uniform(n)
    S.append(Spec("vector_add", add_kernel,
                  {"x_ptr": buf(x), "y_ptr": buf(y), "out_ptr": buf(np.zeros(n, np.float32)),
                   "n": scalar("i32", n), "BLOCK": const(256)},
                  [4], {"out_ptr": x + y}, mc.exact()))

    # f16 arithmetic (a fused multiply-subtract)
    n = 2048
    xh = rng.uniform(-2, 2, n).astype(np.float16)
    yh = rng.uniform(-2, 2, n).astype(np.float16)
    ref = (xh.astype(np.float64) * yh.astype(np.float64) - yh.astype(np.float64)).astype(np.float16)
    S.append(Spec("add_f16", add_f16_kernel,
                  {"x_ptr": buf(xh), "y_ptr": buf(yh), "out_ptr": buf(np.zeros(n, np.float16)),
                   "n": scalar("i32", n), "BLOCK": const(512)},
                  [4], {"out_ptr": ref},
                  mc.close(1e-3, 1e-3, "x*y-y in f16: fma.rn.f16 rounds once, as numpy's reference does (from f64); "
                                       "a mul and a sub rounded separately differ by an f16 ulp")))

    # fused softmax (tutorial 02): 64 rows of 100 columns, one row per program
    rows, cols = 64, 100
    xs = rng.standard_normal((rows, cols)).astype(np.float32)
    e = np.exp(xs.astype(np.float64) - xs.max(1, keepdims=True))
    S.append(Spec("softmax", softmax_kernel,
                  {"out_ptr": buf(np.zeros((rows, cols), np.float32)), "in_ptr": buf(xs),
                   "in_stride": scalar("i32", cols), "out_stride": scalar("i32", cols),
                   "n_cols": scalar("i32", cols), "BLOCK": const(128)},
                  [rows], {"out_ptr": f32(e / e.sum(1, keepdims=True))},
                  mc.close(1e-5, 1e-7, "tl.exp is ex2.approx.f32 of x*log2(e); the division is div.full.f32")))

    # low-memory dropout (tutorial 04): tl.rand with a seed argument
    n, p, seed = 2048, 0.25, 1234
    xd = uniform(n)
    r = philox_rand(seed, np.arange(n))
    keep_scale = np.float32(1) - np.float32(p)
    S.append(Spec("dropout", dropout_kernel,
                  {"x_ptr": buf(xd), "out_ptr": buf(np.zeros(n, np.float32)), "n": scalar("i32", n),
                   "p": scalar("fp32", p), "seed": scalar("i32", seed), "BLOCK": const(512)},
                  [4], {"out_ptr": np.where(r > np.float32(p), f32(xd.astype(np.float64) / np.float64(keep_scale)), np.float32(0))},
                  mc.close(1e-6, 0.0, "x / (1 - p) is div.full.f32 (2 ulp); the random numbers and the mask are exact")))

    # layer norm forward (tutorial 05): 32 rows of 384 columns, BLOCK 256 (two column blocks)
    rows, cols = 32, 384
    xl = rng.standard_normal((rows, cols)).astype(np.float32) * 2 + 0.5
    w = uniform(cols, 0.5, 1.5)
    b = uniform(cols)
    xd64 = xl.astype(np.float64)
    mean = xd64.mean(1)
    var = ((xd64 - mean[:, None]) ** 2).mean(1)
    rstd = 1 / np.sqrt(var + 1e-5)
    yl = (xd64 - mean[:, None]) * rstd[:, None] * w + b
    S.append(Spec("layernorm_fwd", layernorm_fwd_kernel,
                  {"x_ptr": buf(xl), "y_ptr": buf(np.zeros((rows, cols), np.float32)), "w_ptr": buf(w), "b_ptr": buf(b),
                   "mean_ptr": buf(np.zeros(rows, np.float32)), "rstd_ptr": buf(np.zeros(rows, np.float32)),
                   "stride": scalar("i32", cols), "n_cols": scalar("i32", cols), "eps": scalar("fp32", 1e-5),
                   "BLOCK": const(256)},
                  [rows], {"y_ptr": f32(yl), "mean_ptr": f32(mean), "rstd_ptr": f32(rstd)},
                  mc.close(1e-5, 1e-5, "f32 sums in tree order; 1/sqrt is sqrt.approx and div.full")))

    # matmul (tutorial 03): 128x128x128, 64x64x32 tiles, GROUP_M 8, at num_stages 2, 3, 4
    M = N = K = 128
    a32 = uniform(M * K).reshape(M, K)
    b32 = uniform(K * N).reshape(K, N)
    c32 = f32(a32.astype(np.float64) @ b32.astype(np.float64))
    a16 = a32.astype(np.float16)
    b16 = b32.astype(np.float16)
    c16 = (a16.astype(np.float64) @ b16.astype(np.float64)).astype(np.float16)
    for prec, dt in (("ieee", "f32"), ("tf32", "tf32"), ("ieee", "f16")):
        for stages in (2, 3, 4):
            if dt == "f16":
                a, bb, c, ref = a16, b16, np.zeros((M, N), np.float16), c16
                tol = mc.close(2e-3, 2e-3, "f16 inputs, f32 accumulation in mma order, result rounded to f16")
            else:
                a, bb, c, ref = a32, b32, np.zeros((M, N), np.float32), c32
                tol = mc.close(1e-5, 1e-5, "f32 FMA accumulation in a different order than numpy's") if dt == "f32" else \
                    mc.close(1e-2, 2e-2, "tf32 tensor cores: inputs keep 10 mantissa bits (mma.sync ... .tf32)")
            S.append(Spec(f"matmul_{dt}_s{stages}", matmul_kernel,
                          {"a_ptr": buf(a, f"matmul.a.{a.dtype.name}"), "b_ptr": buf(bb, f"matmul.b.{a.dtype.name}"),
                           "c_ptr": buf(c, f"matmul.c0.{a.dtype.name}"),
                           "M": scalar("i32", M), "N": scalar("i32", N), "K": scalar("i32", K),
                           "stride_am": scalar("i32", K), "stride_ak": const(1), "stride_bk": scalar("i32", N),
                           "stride_bn": const(1), "stride_cm": scalar("i32", N), "stride_cn": const(1),
                           "BLOCK_M": const(64), "BLOCK_N": const(64), "BLOCK_K": const(32), "GROUP_M": const(8),
                           "PRECISION": const(prec)},
                          [(M // 64) * (N // 64)], {"c_ptr": ref}, tol, num_warps=4, num_stages=stages,
                          note=f"expected shared with the other matmul_{dt} kernels"))

    # bf16 inputs (their bits as uint16: numpy has no bfloat16), f32 out: mma.sync .bf16 on
    # sm_80, wgmma .bf16 on sm_90a
    a_bf, b_bf = to_bf16_bits(a32), to_bf16_bits(b32)
    bf16_values = lambda bits: (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)  # noqa: E731
    bf16 = Spec("matmul_bf16_s3", matmul_kernel,
                {"a_ptr": buf(a_bf, "matmul.a.bfloat16", "bfloat16"), "b_ptr": buf(b_bf, "matmul.b.bfloat16", "bfloat16"),
                 "c_ptr": buf(np.zeros((M, N), np.float32), "matmul_bf16.c0.float32"),
                 "M": scalar("i32", M), "N": scalar("i32", N), "K": scalar("i32", K),
                 "stride_am": scalar("i32", K), "stride_ak": const(1), "stride_bk": scalar("i32", N),
                 "stride_bn": const(1), "stride_cm": scalar("i32", N), "stride_cn": const(1),
                 "BLOCK_M": const(64), "BLOCK_N": const(64), "BLOCK_K": const(32), "GROUP_M": const(8),
                 "PRECISION": const("ieee")},
                [(M // 64) * (N // 64)], {"c_ptr": f32(bf16_values(a_bf) @ bf16_values(b_bf))},
                mc.close(1e-5, 1e-5, "products of bf16 values are exact in f32; the f32 sums round in mma order"),
                num_warps=4, num_stages=3, note="a_ptr and b_ptr hold bfloat16 bits")
    S.extend([bf16, bf16.for_hopper()])

    # int8 matmul on tensor cores (mma m16n8k32 s8)
    M = N = K = 64
    a8 = rng.integers(-128, 128, (M, K), dtype=np.int8)
    b8 = rng.integers(-128, 128, (K, N), dtype=np.int8)
    S.append(Spec("matmul_i8", matmul_tile_kernel,
                  {"a_ptr": buf(a8), "b_ptr": buf(b8), "c_ptr": buf(np.zeros((M, N), np.int32)),
                   "M": scalar("i32", M), "N": scalar("i32", N), "K": scalar("i32", K),
                   "BLOCK_M": const(32), "BLOCK_N": const(32), "BLOCK_K": const(32)},
                  [M // 32, N // 32], {"c_ptr": (a8.astype(np.int32) @ b8.astype(np.int32)).astype(np.int32)},
                  mc.exact(), num_warps=4, num_stages=2))

    # fp8 (e4m3) matmul: mma.sync m16n8k32 .e4m3 on sm_89, wgmma .e4m3 on sm_90a
    codes = np.random.default_rng(89).integers(0, 256, 2 * 64 * 64).astype(np.uint8)  # its own draws: the others' stay
    codes[(codes & 0x7F) == 0x7F] = 0x38  # no NaN: 1.0 instead
    a_fp8, b_fp8 = codes[:64 * 64].reshape(64, 64), codes[64 * 64:].reshape(64, 64)
    c_fp8 = f32(e4m3_values(a_fp8) @ e4m3_values(b_fp8))
    for capability in (89, 90):
        S.append(Spec(f"matmul_fp8_sm{capability}", matmul_tile_kernel,
                      {"a_ptr": buf(a_fp8, "matmul_fp8.a", "float8_e4m3"), "b_ptr": buf(b_fp8, "matmul_fp8.b", "float8_e4m3"),
                       "c_ptr": buf(np.zeros((64, 64), np.float32), "matmul_fp8.c0.float32"),
                       "M": scalar("i32", 64), "N": scalar("i32", 64), "K": scalar("i32", 64),
                       "BLOCK_M": const(64), "BLOCK_N": const(64), "BLOCK_K": const(32)},
                      [1, 1], {"c_ptr": c_fp8},
                      mc.close(2e-5, 1e-2, "products of e4m3 values are exact in f32; the f32 sums of 64 round in mma order"),
                      num_warps=4, num_stages=2, capability=capability,
                      note="a_ptr and b_ptr hold e4m3 codes (numpy has no fp8)"))

    # fused attention forward (tutorial 06, non-causal, no backward): 2 heads of 128 x 64, f16
    BH, NC, D = 2, 128, 64
    q = (rng.standard_normal((BH, NC, D)) * 0.5).astype(np.float16)
    k = (rng.standard_normal((BH, NC, D)) * 0.5).astype(np.float16)
    v = (rng.standard_normal((BH, NC, D)) * 0.5).astype(np.float16)
    scale = 1 / math.sqrt(D)
    s = np.einsum("bmd,bnd->bmn", q.astype(np.float64), k.astype(np.float64)) * scale
    pr = np.exp(s - s.max(-1, keepdims=True))
    pr /= pr.sum(-1, keepdims=True)
    o = np.einsum("bmn,bnd->bmd", pr, v.astype(np.float64)).astype(np.float16)
    S.append(Spec("attention_fwd", attention_fwd_kernel,
                  {"q_ptr": buf(q), "k_ptr": buf(k), "v_ptr": buf(v), "o_ptr": buf(np.zeros((BH, NC, D), np.float16)),
                   "sm_scale": scalar("fp32", scale), "N_CTX": scalar("i32", NC),
                   "HEAD_DIM": const(D), "BLOCK_M": const(64), "BLOCK_N": const(32)},
                  [NC // 64, BH], {"o_ptr": o},
                  mc.close(1e-2, 5e-3, "P is rounded to f16 before P@V; exp2 is ex2.approx; online softmax order"),
                  num_warps=4, num_stages=2))

    # Hopper: the tensor-core kernels again for sm_90a, where each tl.dot is wgmma.mma_async
    # (A and B from swizzled shared memory, or A from registers in attention's P @ V)
    S.extend(s.for_hopper() for s in list(S) if s.name in ("matmul_tf32_s3", "matmul_f16_s3", "attention_fwd"))
    # int8 needs a 64-row tile (one warpgroup's) for wgmma: one program of 64 x 64
    S.append(Spec("matmul_i8_sm90", matmul_tile_kernel,
                  {"a_ptr": buf(a8), "b_ptr": buf(b8), "c_ptr": buf(np.zeros((M, N), np.int32)),
                   "M": scalar("i32", M), "N": scalar("i32", N), "K": scalar("i32", K),
                   "BLOCK_M": const(64), "BLOCK_N": const(64), "BLOCK_K": const(32)},
                  [M // 64, N // 64], {"c_ptr": (a8.astype(np.int32) @ b8.astype(np.int32)).astype(np.int32)},
                  mc.exact(), num_warps=4, num_stages=2, capability=90,
                  note="sm_90a: tl.dot is wgmma.mma_async .s32.s8.s8 on shared-memory descriptors"))

    # reductions
    rows, cols = 64, 256
    xr = rng.standard_normal((rows, cols)).astype(np.float32)
    S.append(Spec("row_sum", row_sum_kernel,
                  {"x_ptr": buf(xr), "out_ptr": buf(np.zeros(rows, np.float32)), "n_rows": scalar("i32", rows),
                   "n_cols": scalar("i32", cols), "ROWS": const(4), "BLOCK": const(256)},
                  [rows // 4], {"out_ptr": f32(xr.astype(np.float64).sum(1))},
                  mc.close(1e-5, 1e-5, "f32 tree sum (shuffles) in a different order than numpy's")))
    xi = rng.integers(-1000, 1000, (128, 256), dtype=np.int32)
    S.append(Spec("col_sum_i32", col_sum_i32_kernel,
                  {"x_ptr": buf(xi), "out_ptr": buf(np.zeros(256, np.int32)), "n_rows": scalar("i32", 128),
                   "n_cols": scalar("i32", 256), "ROWS": const(128), "COLS": const(32)},
                  [256 // 32], {"out_ptr": xi.sum(0).astype(np.int32)}, mc.exact()))
    S.append(Spec("row_max", row_max_kernel,
                  {"x_ptr": buf(xr), "out_ptr": buf(np.zeros(rows, np.float32)), "n_cols": scalar("i32", cols),
                   "BLOCK": const(256)},
                  [rows], {"out_ptr": xr.max(1)}, mc.exact(), num_warps=2))
    S.append(Spec("row_argmax", row_argmax_kernel,
                  {"x_ptr": buf(xr), "out_ptr": buf(np.zeros(rows, np.int32)), "n_cols": scalar("i32", cols),
                   "BLOCK": const(256)},
                  [rows], {"out_ptr": xr.argmax(1).astype(np.int32)}, mc.exact(), num_warps=4))

    # scans
    xc = rng.integers(-50, 50, (16, 256), dtype=np.int32)
    S.append(Spec("cumsum_i32", cumsum_kernel,
                  {"x_ptr": buf(xc), "out_ptr": buf(np.zeros((16, 256), np.int32)), "n_cols": scalar("i32", 256),
                   "BLOCK": const(256)},
                  [16], {"out_ptr": np.cumsum(xc, 1).astype(np.int32)}, mc.exact()))
    xcf = uniform(16 * 200).reshape(16, 200)
    S.append(Spec("cumsum_f32", cumsum_kernel,
                  {"x_ptr": buf(xcf), "out_ptr": buf(np.zeros((16, 200), np.float32)), "n_cols": scalar("i32", 200),
                   "BLOCK": const(256)},
                  [16], {"out_ptr": f32(np.cumsum(xcf.astype(np.float64), 1))},
                  mc.close(1e-5, 1e-5, "f32 scan in a different association than a sequential sum")))

    # atomics
    n = 4096
    bins = rng.integers(0, 64, n, dtype=np.int32)
    S.append(Spec("histogram", histogram_kernel,
                  {"x_ptr": buf(bins), "hist_ptr": buf(np.zeros(64, np.int32)), "n": scalar("i32", n),
                   "BLOCK": const(512)},
                  [n // 512], {"hist_ptr": np.bincount(bins, minlength=64).astype(np.int32)}, mc.exact()))
    xa = uniform(n)
    S.append(Spec("atomic_sum", atomic_sum_kernel,
                  {"x_ptr": buf(xa), "out_ptr": buf(np.zeros(1, np.float32)), "n": scalar("i32", n),
                   "BLOCK": const(512)},
                  [n // 512], {"out_ptr": f32([xa.astype(np.float64).sum()])},
                  mc.close(1e-5, 1e-4, "f32 atomic adds of per-program tree sums, in launch order")))

    # transpose on a 2-D grid
    M, N = 96, 128
    xt = uniform(M * N).reshape(M, N)
    S.append(Spec("transpose", transpose_kernel,
                  {"in_ptr": buf(xt), "out_ptr": buf(np.zeros((N, M), np.float32)), "M": scalar("i32", M),
                   "N": scalar("i32", N), "BLOCK_M": const(32), "BLOCK_N": const(32)},
                  [M // 32, N // 32], {"out_ptr": np.ascontiguousarray(xt.T)}, mc.exact()))

    # elementwise math
    n = 1024
    xg = rng.standard_normal(n).astype(np.float32) * 2
    erf = np.vectorize(math.erf)
    S.append(Spec("gelu_erf", gelu_kernel,
                  {"x_ptr": buf(xg), "out_ptr": buf(np.zeros(n, np.float32)), "n": scalar("i32", n), "BLOCK": const(256)},
                  [n // 256], {"out_ptr": f32(0.5 * xg * (1 + erf(xg.astype(np.float64) / math.sqrt(2))))},
                  mc.close(1e-6, 1e-6, "libdevice erff (inlined into the PTX) is within 2 ulp")))
    xe = uniform(n, -4, 4)
    xe64 = xe.astype(np.float64)
    S.append(Spec("exp_log", exp_log_kernel,
                  {"x_ptr": buf(xe), "out_ptr": buf(np.zeros(n, np.float32)), "n": scalar("i32", n), "BLOCK": const(256)},
                  [n // 256], {"out_ptr": f32(np.exp(xe64) + np.log(np.abs(xe64) + 1))},
                  mc.close(2e-6, 2e-6, "tl.exp/tl.log are ex2.approx/lg2.approx with a scale")))
    xs2 = uniform(n, -math.pi, math.pi)
    S.append(Spec("sin_cos", sin_cos_kernel,
                  {"x_ptr": buf(xs2), "out_ptr": buf(np.zeros(n, np.float32)), "n": scalar("i32", n), "BLOCK": const(256)},
                  [n // 256], {"out_ptr": f32(np.sin(xs2.astype(np.float64)) * np.cos(2 * xs2.astype(np.float64)))},
                  mc.close(1e-5, 2e-6, "sin.approx.f32 and cos.approx.f32 (absolute error about 2^-21 on [-pi, pi])")))
    xq = uniform(n, 0.01, 100)
    xq64 = xq.astype(np.float64)
    S.append(Spec("sqrt_rsqrt", sqrt_rsqrt_kernel,
                  {"x_ptr": buf(xq), "out_ptr": buf(np.zeros(n, np.float32)), "n": scalar("i32", n), "BLOCK": const(256)},
                  [n // 256], {"out_ptr": f32(np.sqrt(xq64) + 1 / np.sqrt(xq64) + np.sqrt(xq64 + 1))},
                  mc.close(2e-6, 1e-6, "tl.sqrt is sqrt.approx.f32 and rsqrt is rsqrt.approx.f32; sqrt_rn is exact")))
    xh2 = rng.uniform(-6, 6, n).astype(np.float16)
    xh64 = xh2.astype(np.float64)
    S.append(Spec("silu_f16", silu_f16_kernel,
                  {"x_ptr": buf(xh2), "out_ptr": buf(np.zeros(n, np.float16)), "n": scalar("i32", n), "BLOCK": const(256)},
                  [n // 256], {"out_ptr": (xh64 / (1 + np.exp(-xh64))).astype(np.float16)},
                  mc.close(1e-3, 1e-3, "sigmoid through ex2.approx and div.full in f32, rounded to f16")))

    # integer arithmetic and casts
    n = 1024
    ai = rng.integers(-100000, 100000, n, dtype=np.int32)
    bi = rng.integers(1, 1000, n, dtype=np.int32) * rng.choice(np.array([-1, 1], np.int32), n)
    q_, r_ = c_div(ai, bi)
    a64, b64 = ai.astype(np.int64), bi.astype(np.int64)
    rr = (((a64 ^ b64) >> 3) | ((a64 << 2) & 0xFFFFFFFF)).astype(np.uint32).view(np.int32).astype(np.int64)
    rr = (rr + q_ - r_).astype(np.int32).astype(np.int64)  # int32 arithmetic wraps
    rr = np.where(a64 > b64, np.minimum(rr, a64 * 7), np.maximum(rr, b64 - 100)).astype(np.int32)
    S.append(Spec("int_ops", int_ops_kernel,
                  {"a_ptr": buf(ai), "b_ptr": buf(bi), "out_ptr": buf(np.zeros(n, np.int32)), "n": scalar("i32", n),
                   "BLOCK": const(256)},
                  [n // 256], {"out_ptr": rr}, mc.exact()))
    xcst = (rng.standard_normal(n) * 1000).astype(np.float32)
    S.append(Spec("casts", cast_kernel,
                  {"x_ptr": buf(xcst), "h_ptr": buf(np.zeros(n, np.float16)), "bf_ptr": buf(np.zeros(n, np.uint16), "casts.bf_ptr.in", "bfloat16"),
                   "i_ptr": buf(np.zeros(n, np.int32)), "n": scalar("i32", n), "BLOCK": const(256)},
                  [n // 256], {"h_ptr": xcst.astype(np.float16), "bf_ptr": to_bf16_bits(xcst),
                               "i_ptr": np.trunc(xcst).astype(np.int32)},
                  mc.exact(), note="bf_ptr holds bfloat16 bits, stored as uint16 (numpy has no bfloat16)"))

    # Hopper's tensor memory accelerator: host-made tensor descriptors (their own generator, so
    # the kernels above keep their inputs)
    tma = np.random.default_rng(90)
    xt = tma.uniform(-1.0, 1.0, (80, 96)).astype(np.float32)
    S.append(Spec("tma_add_one_sm90", tma_add_one_kernel,
                  {"in_desc": tdesc(xt, [32, 32]), "out_desc": tdesc(np.zeros((80, 96), np.float32), [32, 32]),
                   "BLOCK_M": const(32), "BLOCK_N": const(32)},
                  [3, 3], {"out_desc": xt + np.float32(1.0)}, mc.exact(), capability=90,
                  note="sm_90a: the tiles are TMA copies through tensor maps; the last row of tiles hangs past the 80 rows "
                       "(loads read zeros there, the store leaves them out)"))

    def tma_matmul(M, N, K):
        """A f16 matmul's three tensor descriptors (64 x 64 boxes) and its numpy product."""
        a = tma.uniform(-1.0, 1.0, (M, K)).astype(np.float16)
        b = tma.uniform(-1.0, 1.0, (K, N)).astype(np.float16)
        descs = {"a_desc": tdesc(a, [64, 64]), "b_desc": tdesc(b, [64, 64]), "c_desc": tdesc(np.zeros((M, N), np.float16), [64, 64])}
        return descs, {"c_desc": (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)}

    f16_dot = mc.close(2e-3, 2e-3, "f16 inputs, f32 accumulation in mma order, result rounded to f16")
    descs, product = tma_matmul(160, 128, 256)
    S.append(Spec("matmul_tma_f16_sm90", matmul_tma_kernel,
                  {**descs, "K": scalar("i32", 256), "BLOCK_M": const(64), "BLOCK_N": const(64), "BLOCK_K": const(64)},
                  [3, 2], product, f16_dot, num_warps=4, num_stages=3, capability=90,
                  note="sm_90a: A and B tiles come by TMA through tensor maps into 128-byte-swizzled buffers, three stages "
                       "of mbarriers deep; tl.dot is wgmma; M = 160 hangs a tile past the end (zeros in, left out of C)"))
    xd = tma.uniform(-1.0, 1.0, (80, 96)).astype(np.float32)
    S.append(Spec("tma_device_desc_sm90", tma_device_desc_kernel,
                  {"x_ptr": buf(xd), "y_ptr": buf(np.zeros((80, 96), np.float32)), "M": scalar("i32", 80), "N": scalar("i32", 96),
                   "BLOCK_M": const(32), "BLOCK_N": const(32)},
                  [3, 3], {"y_ptr": xd * np.float32(2.0) - np.float32(1.0)}, mc.exact(), capability=90,
                  note="sm_90a: tensor maps made on the device (tensormap.replace into shared memory, tensormap.cp_fenceproxy "
                       "into the global scratch, a slice per program); the last row of tiles hangs past the 80 rows"))
    descs, product = tma_matmul(192, 128, 192)
    S.append(Spec("matmul_tma_persistent_sm90", matmul_tma_persistent_kernel,
                  {**descs, "M": scalar("i32", 192), "N": scalar("i32", 128), "K": scalar("i32", 192),
                   "BLOCK_M": const(64), "BLOCK_N": const(64), "BLOCK_K": const(64), "NUM_SMS": const(4)},
                  [4], product, f16_dot, num_warps=4, num_stages=3, capability=90,
                  note="sm_90a: 4 persistent programs over 6 tiles, the tile and K loops flattened into one pipelined loop "
                       "of TMA loads on mbarriers feeding wgmma"))

    # Named barriers, warp specialization and a spin lock across programs: their own draws, so
    # the kernels above keep their inputs.
    ws = np.random.default_rng(2026)
    a = ws.uniform(-1.0, 1.0, (256, 192)).astype(np.float16)
    b = ws.uniform(-1.0, 1.0, (192, 256)).astype(np.float16)
    S.append(Spec("matmul_ws_f16_sm90", matmul_ws_kernel,
                  {"a_ptr": buf(a), "b_ptr": buf(b), "c_ptr": buf(np.zeros((256, 256), np.float16)),
                   "M": scalar("i32", 256), "N": scalar("i32", 256), "K": scalar("i32", 192),
                   "BLOCK_M": const(128), "BLOCK_N": const(128), "BLOCK_K": const(64)},
                  [2, 2], {"c_ptr": (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)}, f16_dot,
                  num_warps=4, num_stages=3, capability=90,
                  note="sm_90a: warp_specialize=True: 12 warps, a producer warp issuing TMA loads on mbarriers and a "
                       "consumer warpgroup running wgmma, synchronised by named barriers (bar.sync 1, 128) and setmaxnreg"))
    x = ws.uniform(-1.0, 1.0, 1000).astype(np.float32)
    S.append(Spec("pdl_scale_sm90", pdl_scale_kernel,
                  {"x_ptr": buf(x), "y_ptr": buf(np.zeros(1000, np.float32)), "n": scalar("i32", 1000), "BLOCK": const(256)},
                  [4], {"y_ptr": x * np.float32(3.0)}, mc.exact(), capability=90,
                  note="sm_90a: griddepcontrol.wait and .launch_dependents (programmatic dependent launch)"))
    M, N, G = 48, 200, 4
    x = ws.uniform(-2.0, 2.0, (M, N)).astype(np.float32)
    dy = ws.uniform(-1.0, 1.0, (M, N)).astype(np.float32)
    w = ws.uniform(0.5, 1.5, N).astype(np.float32)
    mean = x.astype(np.float64).mean(axis=1)
    rstd = 1.0 / np.sqrt(x.astype(np.float64).var(axis=1) + 1e-5)
    mean32, rstd32 = mean.astype(np.float32), rstd.astype(np.float32)
    xhat = (x.astype(np.float64) - mean32[:, None]) * rstd32[:, None]
    wdy = w.astype(np.float64) * dy
    c1 = (xhat * wdy).sum(axis=1, keepdims=True) / N
    c2 = wdy.sum(axis=1, keepdims=True) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd32[:, None]
    rows_of = [np.arange(g, M, G) for g in range(G)]
    dw = np.stack([(dy.astype(np.float64) * xhat)[r].sum(axis=0) for r in rows_of])
    db = np.stack([dy.astype(np.float64)[r].sum(axis=0) for r in rows_of])
    lock = np.zeros(2 * G, np.int32)
    S.append(Spec("layernorm_bwd_dx", layernorm_bwd_dx_kernel,
                  {"dx_ptr": buf(np.zeros((M, N), np.float32)), "dy_ptr": buf(dy), "dw_ptr": buf(np.zeros((G, N), np.float32)),
                   "db_ptr": buf(np.zeros((G, N), np.float32)), "x_ptr": buf(x), "w_ptr": buf(w),
                   "mean_ptr": buf(mean32), "rstd_ptr": buf(rstd32), "lock_ptr": buf(lock),
                   "stride": scalar("i32", N), "N": scalar("i32", N), "GROUP_SIZE_M": const(G), "BLOCK": const(256)},
                  [M], {"dx_ptr": dx, "dw_ptr": dw, "db_ptr": db,
                        "lock_ptr": np.concatenate([np.zeros(G, np.int32), np.ones(G, np.int32)])},
                  mc.close(1e-4, 1e-4, "f32 sums in Triton's reduction order; dw and db add each group's rows in the order "
                                       "programs take the lock"),
                  num_warps=4,
                  note="tutorial 05: programs of a group take a spin lock (atomic_cas, atomic_xchg) in turn to add into its "
                       "partial dw and db; the lock words end 0, the counts 1"))
    n_ctx, hd, scale = 128, 64, 0.125
    q = ws.uniform(-1.0, 1.0, (n_ctx, hd)).astype(np.float16)
    k = ws.uniform(-1.0, 1.0, (n_ctx, hd)).astype(np.float16)
    v = ws.uniform(-1.0, 1.0, (n_ctx, hd)).astype(np.float16)
    do = ws.uniform(-1.0, 1.0, (n_ctx, hd)).astype(np.float16)
    qk = k.astype(np.float64) @ q.astype(np.float64).T  # [n, m]
    causal = np.arange(n_ctx)[None, :] >= np.arange(n_ctx)[:, None]
    lse = np.log2(np.where(causal, np.exp2(qk), 0.0).sum(axis=0))  # per query row m
    m_rows = lse.astype(np.float32)
    d_rows = ws.uniform(-0.5, 0.5, n_ctx).astype(np.float32)
    p_t = np.where(causal, np.exp2(qk - m_rows[None, :]), 0.0)
    dv_ref = p_t.astype(np.float16).astype(np.float64) @ do.astype(np.float64)
    dp_t = v.astype(np.float64) @ do.astype(np.float64).T
    ds_t = (p_t * (dp_t - d_rows[None, :])).astype(np.float16).astype(np.float64)
    dk_ref = ds_t @ q.astype(np.float64) * scale
    S.append(Spec("attention_bwd_dkdv", attention_bwd_dkdv_kernel,
                  {"q_ptr": buf(q), "k_ptr": buf(k), "v_ptr": buf(v), "sm_scale": scalar("fp32", scale), "do_ptr": buf(do),
                   "dk_ptr": buf(np.zeros((n_ctx, hd), np.float16)), "dv_ptr": buf(np.zeros((n_ctx, hd), np.float16)),
                   "m_ptr": buf(m_rows), "d_ptr": buf(d_rows), "stride_tok": scalar("i32", hd), "stride_d": scalar("i32", 1),
                   "N_CTX": scalar("i32", n_ctx),
                   "BLOCK_M": const(32), "BLOCK_N": const(64), "HEAD_DIM": const(hd)},
                  [n_ctx // 64], {"dk_ptr": dk_ref, "dv_ptr": dv_ref},
                  mc.close(2e-2, 2e-2, "f16 operands and f32 accumulation in mma order, p and ds rounded to f16 (an f16 "
                                       "rounding of either may go the other way), results rounded to f16"),
                  num_warps=4, num_stages=2,
                  note="tutorial 06's dk/dv pass: more than 255 registers live (ptxas spills 200 bytes); simt spills "
                       "registers, and predicates that find no register, to local memory"))
    x = np.concatenate([ws.uniform(-4.0, 4.0, 1000), [0.0, -0.0, 500.0, -500.0, 1e5, 2.0 ** -12, 0.3125, 0.28125]]).astype(np.float32)
    fp8_sum = fp8_round(x, 2, -14, 57344.0) + fp8_round(x, 3, -6, 448.0)
    S.append(Spec("fp8_casts_sm90", fp8_casts_kernel,
                  {"x_ptr": buf(x), "y_ptr": buf(np.zeros(x.size, np.float32)), "n": scalar("i32", x.size), "BLOCK": const(256)},
                  [4], {"y_ptr": f32(fp8_sum)}, mc.exact(), capability=90,
                  note="sm_90a: cvt.rn.satfinite.{e5m2x2,e4m3x2}.f32 and cvt.rn.f16x2.{e5m2x2,e4m3x2}: to nearest even, "
                       "saturating (500 is 448 in e4m3, 1e5 is 57344 in e5m2), halves exact"))
    xh = np.concatenate([ws.uniform(-4.0, 4.0, 1000), [0.0, 500.0, -500.0, 60000.0, 2.0 ** -12, 0.3125]]).astype(np.float16)
    S.append(Spec("fp8_casts_f16_sm90", fp8_casts_kernel,
                  {"x_ptr": buf(xh), "y_ptr": buf(np.zeros(xh.size, np.float32)), "n": scalar("i32", xh.size), "BLOCK": const(256)},
                  [4], {"y_ptr": f32(fp8_round(xh, 2, -14, 57344.0) + fp8_round(xh, 3, -6, 448.0))}, mc.exact(), capability=90,
                  note="sm_90a: from halves, cvt.rn.satfinite.{e5m2x2,e4m3x2}.f16x2"))
    xb = to_bf16_bits(np.concatenate([np.random.default_rng(106).uniform(-4.0, 4.0, 1000), [0.0, 500.0, -500.0, 1e5, 2.0 ** -12, 0.3125]]).astype(np.float32))
    xb_values = (xb.astype(np.uint32) << 16).view(np.float32)
    S.append(Spec("fp8_casts_bf16_sm90", fp8_casts_kernel,
                  {"x_ptr": buf(xb, "fp8_casts.x.bfloat16", "bfloat16"), "y_ptr": buf(np.zeros(xb.size, np.float32)),
                   "n": scalar("i32", xb.size), "BLOCK": const(256)},
                  [4], {"y_ptr": f32(fp8_round(xb_values, 2, -14, 57344.0) + fp8_round(xb_values, 3, -6, 448.0))}, mc.exact(),
                  capability=90, note="sm_90a: from bfloat16 (x_ptr holds its bits)"))
    # On sm_100a the fp8 values widen to halves and add into f32 (add.rn.f32.f16), and bfloat16
    # pairs narrow at once (cvt.rn.satfinite.e4m3x2.bf16x2).
    for name in ("fp8_casts_sm90", "fp8_casts_f16_sm90", "fp8_casts_bf16_sm90"):
        S.append(next(s for s in S if s.name == name).for_capability(100, "sm_100a", name=name.replace("sm90", "sm100")))
    M = N = K = 128
    S.append(Spec("matmul_tf32x3_s2", matmul_kernel,
                  {"a_ptr": buf(a32, "matmul.a.float32"), "b_ptr": buf(b32, "matmul.b.float32"),
                   "c_ptr": buf(np.zeros((M, N), np.float32), "matmul.c0.float32"),
                   "M": scalar("i32", M), "N": scalar("i32", N), "K": scalar("i32", K),
                   "stride_am": scalar("i32", K), "stride_ak": const(1), "stride_bk": scalar("i32", N),
                   "stride_bn": const(1), "stride_cm": scalar("i32", N), "stride_cn": const(1),
                   "BLOCK_M": const(64), "BLOCK_N": const(64), "BLOCK_K": const(32), "GROUP_M": const(8),
                   "PRECISION": const("tf32x3")},
                  [(M // 64) * (N // 64)], {"c_ptr": c32},
                  mc.close(1e-5, 1e-5, "three tf32 products a term (cvt.rna.tf32.f32 splits each input into a high and a "
                                       "low part) accumulated in f32: as close as an f32 matmul"),
                  num_warps=4, num_stages=2, note="tl.dot(input_precision='tf32x3'); expected shared with the matmul_f32 kernels"))
    # Small integers: every partial sum is exact in f16 and bf16, so the order the atomics land
    # in cannot change the result.
    xi = ws.integers(-8, 9, 1000).astype(np.float32)
    sums = np.bincount(np.arange(1000) % 8, weights=xi, minlength=8)
    S.append(Spec("scatter_add_f16", scatter_add_kernel,
                  {"x_ptr": buf(xi.astype(np.float16)), "y_ptr": buf(np.zeros(8, np.float16)), "n": scalar("i32", 1000),
                   "BINS": const(8), "BLOCK": const(256)},
                  [4], {"y_ptr": sums}, mc.exact(), note="atom.global.add.noftz.f16, 125 elements a bin"))
    S.append(Spec("scatter_add_bf16_sm90", scatter_add_kernel,
                  {"x_ptr": buf(to_bf16_bits(xi), "scatter_add.x.bfloat16", "bfloat16"),
                   "y_ptr": buf(np.zeros(8, np.uint16), "scatter_add.y0.bfloat16", "bfloat16"), "n": scalar("i32", 1000),
                   "BINS": const(8), "BLOCK": const(256)},
                  [4], {"y_ptr": to_bf16_bits(sums)}, mc.exact(), capability=90,
                  note="sm_90a: atom.global.add.noftz.bf16; y_ptr holds bfloat16 bits"))
    xc, yc = ws.uniform(-1.0, 1.0, 1000).astype(np.float32), ws.uniform(-1.0, 1.0, 1000).astype(np.float32)
    S.append(Spec("cache_hints", cache_hints_kernel,
                  {"x_ptr": buf(xc), "y_ptr": buf(yc), "out_ptr": buf(np.zeros(1000, np.float32)), "n": scalar("i32", 1000),
                   "BLOCK": const(256)},
                  [4], {"out_ptr": f32(xc.astype(np.float64) * 2.0 + yc)}, mc.exact(),
                  note="ld.global.L1::evict_last.L2::cache_hint with createpolicy.fractional, st.global.cs: hints only; "
                       "2x + y rounds once, fused or not"))
    shapes = [(64, 64, 64), (128, 64, 32), (64, 128, 96)]
    ga = [ws.uniform(-1.0, 1.0, (m, k)).astype(np.float16) for m, n, k in shapes]
    gb = [ws.uniform(-1.0, 1.0, (k, n)).astype(np.float16) for m, n, k in shapes]
    S.append(Spec("grouped_matmul", grouped_matmul_kernel,
                  {"a_ptrs": ptrs(ga), "b_ptrs": ptrs(gb), "c_ptrs": ptrs([np.zeros((m, n), np.float16) for m, n, k in shapes]),
                   "sizes_ptr": buf(np.array(shapes, np.int32).reshape(-1)),
                   "lds_ptr": buf(np.array([(k, n, n) for m, n, k in shapes], np.int32).reshape(-1)),
                   "groups": scalar("i32", len(shapes)), "PROGRAMS": const(4),
                   "BLOCK_M": const(64), "BLOCK_N": const(64), "BLOCK_K": const(32)},
                  [4], {f"c_ptrs.{g}": a.astype(np.float64) @ b.astype(np.float64) for g, (a, b) in enumerate(zip(ga, gb))},
                  mc.close(2e-2, 2e-2, "f16 operands and f32 accumulation in mma order, rounded to f16"),
                  num_warps=4, num_stages=2,
                  note="tutorial 08: three GEMMs of their own shapes (5 tiles over 4 programs), each group's A, B and C "
                       "reached through a table of device pointers (simt run's pointers(...))"))
    hopper_bwd = next(s for s in S if s.name == "attention_bwd_dkdv").for_hopper()
    hopper_bwd.note = ("sm_90a: tutorial 06's dk/dv pass with wgmma; simt keeps the 32-register accumulators in "
                       "registers and spills other values to local memory")
    S.append(hopper_bwd)
    # Consumer Blackwell (sm_120a: RTX 50 series) keeps Ampere's warp MMAs, fp8 ones included.
    consumer = "sm_120a (consumer Blackwell): tl.dot is mma.sync, as on sm_80/sm_89"
    S.append(next(s for s in S if s.name == "matmul_f16_s3").for_capability(120, consumer))
    S.append(next(s for s in S if s.name == "matmul_fp8_sm89").for_capability(120, consumer, name="matmul_fp8_sm120"))
    # Datacenter Blackwell (sm_100a): tl.dot is tcgen05.mma, one thread's MMA into tensor memory.
    datacenter = ("sm_100a (datacenter Blackwell): tl.dot is tcgen05.mma, issued by one thread and accumulating in "
                  "tensor memory, which tcgen05.ld brings to registers")
    for name, new in (("matmul_f16_s3", None), ("matmul_fp8_sm89", "matmul_fp8_sm100"), ("matmul_tf32_s3", None), ("attention_fwd", None)):
        S.append(next(s for s in S if s.name == name).for_capability(100, datacenter, name=new))
    # More of them for sm_100a: bf16 operands, A and B by TMA, the persistent matmul, tables of
    # pointers, the split-TF32 matmul, the attention backward pass (pairs of singles:
    # add/sub/mul.f32x2), and the warp-specialized matmul (its roles chosen by brx.idx).
    for name, new in (("matmul_bf16_s3", None), ("matmul_tma_f16_sm90", "matmul_tma_f16_sm100"),
                      ("matmul_tma_persistent_sm90", "matmul_tma_persistent_sm100"), ("grouped_matmul", None),
                      ("matmul_tf32x3_s2", None), ("attention_bwd_dkdv", None),
                      ("matmul_ws_f16_sm90", "matmul_ws_f16_sm100")):
        S.append(next(s for s in S if s.name == name).for_capability(100, datacenter, name=new))
    # 128 x 128 tiles: an M = 128 tcgen05.mma, D a row a lane of tensor memory (PTX's layout D).
    M = N = K = 128
    S.append(Spec("matmul_f16_m128_sm100", matmul_kernel,
                  {"a_ptr": buf(a16, "matmul.a.float16"), "b_ptr": buf(b16, "matmul.b.float16"),
                   "c_ptr": buf(np.zeros((M, N), np.float16), "matmul.c0.float16"),
                   "M": scalar("i32", M), "N": scalar("i32", N), "K": scalar("i32", K),
                   "stride_am": scalar("i32", K), "stride_ak": const(1), "stride_bk": scalar("i32", N),
                   "stride_bn": const(1), "stride_cm": scalar("i32", N), "stride_cn": const(1),
                   "BLOCK_M": const(128), "BLOCK_N": const(128), "BLOCK_K": const(32), "GROUP_M": const(8),
                   "PRECISION": const("ieee")},
                  [1], {"c_ptr": c16}, mc.close(2e-3, 2e-3, "f16 inputs, f32 accumulation in mma order, result rounded to f16"),
                  num_warps=4, num_stages=3, capability=100,
                  note=datacenter + "; one 128 x 128 tile: an M = 128 MMA, D a row a lane of tensor memory"))
    # Block-scaled fp8 (tl.dot_scaled, MX e4m3 with e8m0 scales a 32 elements): sm_100a's
    # tcgen05.mma .kind::mxf8f6f4.block_scale, the scales in tensor memory.
    mx = np.random.default_rng(100).integers(0, 256, 2 * 128 * 128).astype(np.uint8)
    mx[(mx & 0x7F) == 0x7F] = 0x38
    a_mx, b_mx = mx[:128 * 128].reshape(128, 128), mx[128 * 128:].reshape(128, 128)
    scales = np.random.default_rng(101).integers(117, 128, 2 * 128 * 4).astype(np.uint8)
    sa_mx, sb_mx = scales[:512].reshape(128, 4), scales[512:].reshape(128, 4)
    scale_of = lambda s: np.repeat(2.0 ** (s.astype(np.float64) - 127), 32, axis=1)  # noqa: E731
    c_mx = f32((e4m3_values(a_mx) * scale_of(sa_mx)) @ (e4m3_values(b_mx) * scale_of(sb_mx).T))
    S.append(Spec("dot_scaled_mxfp8_sm100", dot_scaled_kernel,
                  {"a_ptr": buf(a_mx, "dot_scaled.a", "float8_e4m3"), "b_ptr": buf(b_mx, "dot_scaled.b", "float8_e4m3"),
                   "sa_ptr": buf(sa_mx, "dot_scaled.sa"), "sb_ptr": buf(sb_mx, "dot_scaled.sb"),
                   "c_ptr": buf(np.zeros((128, 128), np.float32), "dot_scaled.c0.float32"),
                   "M": const(128), "N": const(128), "K": const(128)},
                  [1], {"c_ptr": c_mx},
                  mc.close(2e-5, 1e-2, "scaled products of e4m3 values are exact in f32; the f32 sums round in mma order"),
                  num_warps=4, num_stages=1, capability=100,
                  note=datacenter + "; tl.dot_scaled: e4m3 with e8m0 scales, tcgen05.mma .kind::mxf8f6f4.block_scale.block32"))
    # Block-scaled fp4 (tl.dot_scaled of e2m1 pairs): mxfp4, e8m0 scales a 32 elements
    # (.kind::mxf4), and nvfp4, e4m3 scales a 16 (.kind::mxf4nvf4.block16): K = 64 an MMA, the
    # operands packed in shared memory as they are in global.
    fp4 = np.random.default_rng(102).integers(0, 256, 2 * 128 * 64).astype(np.uint8)
    a_fp4, b_fp4 = fp4[:128 * 64].reshape(128, 64), fp4[128 * 64:].reshape(64, 128)
    a_fp4_values, b_fp4_values = e2m1_values(a_fp4, 1), e2m1_values(b_fp4, 0)
    e4m3_scales = np.random.default_rng(104).integers(0x20, 0x48, 2 * 128 * 8).astype(np.uint8)
    for name, block, (sa_fp4, sb_fp4), element, value_of, kind in [
        ("mxfp4", 32, (scales[:512].reshape(128, 4), scales[512:].reshape(128, 4)), None,
         lambda s: 2.0 ** (s.astype(np.float64) - 127), "e8m0 scales a 32 elements, .kind::mxf4.block_scale.block32"),
        ("nvfp4", 16, (e4m3_scales[:1024].reshape(128, 8), e4m3_scales[1024:].reshape(128, 8)), "float8_e4m3",
         e4m3_values, "e4m3 scales a 16 elements, .kind::mxf4nvf4.block_scale.block16"),
    ]:
        scale_fp4 = lambda s: np.repeat(value_of(s), block, axis=1)  # noqa: E731
        c_fp4 = f32((a_fp4_values * scale_fp4(sa_fp4)) @ (b_fp4_values * scale_fp4(sb_fp4).T))
        S.append(Spec(f"dot_scaled_{name}_sm100", dot_scaled_fp4_kernel,
                      {"a_ptr": buf(a_fp4, f"dot_scaled_{name}.a"), "b_ptr": buf(b_fp4, f"dot_scaled_{name}.b"),
                       "sa_ptr": buf(sa_fp4, f"dot_scaled_{name}.sa", element), "sb_ptr": buf(sb_fp4, f"dot_scaled_{name}.sb", element),
                       "c_ptr": buf(np.zeros((128, 128), np.float32), f"dot_scaled_{name}.c0.float32"),
                       "M": const(128), "N": const(128), "K": const(128), "BLOCK": const(block)},
                      [1], {"c_ptr": c_fp4},
                      mc.close(2e-5, 1e-2, "scaled products of e2m1 values are exact in f32; the f32 sums round in mma order"),
                      num_warps=4, num_stages=1, capability=100,
                      note=datacenter + f"; tl.dot_scaled: e2m1 pairs with {kind}"))
    # bf16 activations times mxfp4 weights: no MMA takes the pair, so Triton widens the weights
    # to bf16 (sm_100a: cvt.rn.bf16x2.e2m1x2; sm_80, sm_90a: bit arithmetic), scales them, and
    # multiplies bf16 by bf16 (mma.sync, wgmma, tcgen05.mma .kind::f16).
    a_act = to_bf16_bits(np.random.default_rng(105).uniform(-1.0, 1.0, 128 * 128).astype(np.float32)).reshape(128, 128)
    sb_w = scales[512:].reshape(128, 4)
    c_w = f32(bf16_values(a_act) @ (b_fp4_values * np.repeat(2.0 ** (sb_w.astype(np.float64) - 127), 32, axis=1).T))
    weights = Spec("dot_scaled_bf16_mxfp4", dot_scaled_bf16_fp4_kernel,
                   {"a_ptr": buf(a_act, "dot_scaled_bf16.a.bfloat16", "bfloat16"), "b_ptr": buf(b_fp4, "dot_scaled_mxfp4.b"),
                    "sb_ptr": buf(sb_w, "dot_scaled_mxfp4.sb"),
                    "c_ptr": buf(np.zeros((128, 128), np.float32), "dot_scaled_bf16.c0.float32"),
                    "M": const(128), "N": const(128), "K": const(128)},
                   [1], {"c_ptr": c_w},
                   mc.close(1e-5, 1e-5, "bf16 times scaled e2m1 is exact in f32; the f32 sums round in mma order"),
                   num_warps=4, num_stages=1, note="a_ptr holds bfloat16 bits; b_ptr e2m1 pairs")
    S.extend([weights, weights.for_hopper(), weights.for_capability(100, datacenter + "; the weights widened by cvt.rn.bf16x2.e2m1x2")])
    # Block-scaled products where no MMA scales: Triton scales the operands into bf16 (bit
    # arithmetic, max.u16x2, inline conversions declaring `a` and `a<2>` in one scope) and
    # multiplies them with wgmma (sm_90a) or mma.sync (sm_80, fp4 only).
    emulated = "no block-scaled MMA: the operands scaled into bf16, then a bf16 dot"
    for name, capabilities in (("dot_scaled_mxfp8", (90,)), ("dot_scaled_mxfp4", (90, 80))):
        scaled = next(s for s in S if s.name == f"{name}_sm100")
        for capability in capabilities:
            spec = scaled.for_capability(capability, "", name=f"{name}_sm{capability}")
            spec.note = f"sm_{capability}: {emulated}"  # not the sm_100a kernel's note
            S.append(spec)
    # fp8 (e5m2) matmul on sm_80, which has no fp8 MMA: Triton widens the codes to halves with
    # lop3 and cvt.rz.f16x2.f32, and multiplies f16 by f16.
    # Magnitudes 2^-4 .. 14 (exponent fields 11 to 18): e5m2's full range would make the f32
    # sums' cancellation, not simt, decide the comparison.
    draw = np.random.default_rng(80)
    n8 = 2 * 64 * 64
    e5m2 = (draw.integers(0, 2, n8) << 7 | draw.integers(11, 19, n8) << 2 | draw.integers(0, 4, n8)).astype(np.uint8)
    e5m2_values = lambda c: (c.astype(np.uint16) << 8).view(np.float16).astype(np.float64)  # noqa: E731
    a_e5, b_e5 = e5m2[:64 * 64].reshape(64, 64), e5m2[64 * 64:].reshape(64, 64)
    S.append(Spec("matmul_e5m2_sm80", matmul_tile_kernel,
                  {"a_ptr": buf(a_e5, "matmul_e5m2.a", "float8_e5m2"), "b_ptr": buf(b_e5, "matmul_e5m2.b", "float8_e5m2"),
                   "c_ptr": buf(np.zeros((64, 64), np.float32), "matmul_e5m2.c0.float32"),
                   "M": scalar("i32", 64), "N": scalar("i32", 64), "K": scalar("i32", 64),
                   "BLOCK_M": const(64), "BLOCK_N": const(64), "BLOCK_K": const(32)},
                  [1, 1], {"c_ptr": f32(e5m2_values(a_e5) @ e5m2_values(b_e5))},
                  mc.close(2e-5, 1e-2, "e5m2 values are exact halves, their products exact in f32; the f32 sums of 64 round in mma order"),
                  num_warps=4, num_stages=2, capability=80,
                  note="sm_80: no fp8 MMA; a_ptr and b_ptr hold e5m2 codes, widened to halves"))
    x5 = np.concatenate([np.random.default_rng(81).uniform(-4.0, 4.0, 1000), [0.0, -0.0, 500.0, -500.0, 2.0 ** -12, 0.3125, 0.28125, 1.125]])
    x5 = x5.astype(np.float32)
    S.append(Spec("fp8_e5m2_cast_sm80", fp8_e5m2_cast_kernel,
                  {"x_ptr": buf(x5), "y_ptr": buf(np.zeros(x5.size, np.float32)), "n": scalar("i32", x5.size), "BLOCK": const(512)},
                  [2], {"y_ptr": f32(fp8_round(x5, 2, -14, 57344.0))}, mc.exact(), capability=80,
                  note="sm_80: no fp8 conversion; Triton rounds to nearest even through halves (cvt.rz.f16x2.f32, lop3)"))
    draw = np.random.default_rng(82)
    xs = draw.uniform(-10.0, 10.0, 256).astype(np.float32)
    gather_at, bins_of = draw.integers(0, 256, 256).astype(np.int32), draw.integers(0, 32, 256).astype(np.int32)
    S.append(Spec("sort_gather", sort_gather_kernel,
                  {"x_ptr": buf(xs), "i_ptr": buf(gather_at), "b_ptr": buf(bins_of),
                   "sorted_ptr": buf(np.zeros(256, np.float32)), "top_ptr": buf(np.zeros(16, np.float32)),
                   "gathered_ptr": buf(np.zeros(256, np.float32)), "hist_ptr": buf(np.zeros(32, np.int32)),
                   "N": const(256), "TOP": const(16), "BINS": const(32)},
                  [1], {"sorted_ptr": np.sort(xs), "top_ptr": np.sort(xs)[::-1][:16].copy(), "gathered_ptr": xs[gather_at],
                        "hist_ptr": np.bincount(bins_of, minlength=32).astype(np.int32)},
                  mc.exact(), num_warps=4, num_stages=1, note="tl.sort, tl.topk, tl.gather, tl.histogram"))
    # Block-scaled dots on consumer Blackwell: mma.sync with .block_scale, the scales in
    # registers (m16n8k32 .kind::mxf8f6f4 .scale_vec::1X; m16n8k64 .kind::mxf4nvf4 with
    # .scale_vec::2X e8m0 scales for mxfp4, .scale_vec::4X e4m3 ones for nvfp4).
    for name in ("dot_scaled_mxfp8", "dot_scaled_mxfp4", "dot_scaled_nvfp4"):
        spec = next(s for s in S if s.name == f"{name}_sm100").for_capability(120, "", name=f"{name}_sm120")
        spec.note = "sm_120a (consumer Blackwell): tl.dot_scaled is mma.sync with .block_scale, the scales in registers"
        S.append(spec)
    # An f32 matmul for sm_120a: Triton's f32 FMAs there are pairs of singles (fma.rn.f32x2).
    S.append(next(s for s in S if s.name == "matmul_f32_s2").for_capability(120, "sm_120a: f32 FMAs on pairs of singles, fma.rn.f32x2"))
    # Mixed fp8 formats, block-scaled, on sm_120a: mma.sync .kind::mxf8f6f4 .e4m3.e5m2. E5M2
    # magnitudes 2^-4 .. 14 (exponent fields 11 to 18), as the sm_80 e5m2 matmul's.
    mixed = np.random.default_rng(120)
    a_mix = mixed.integers(0, 256, 128 * 128).astype(np.uint8)
    a_mix[(a_mix & 0x7F) == 0x7F] = 0x38
    b_mix = (mixed.integers(0, 2, 128 * 128) << 7 | mixed.integers(11, 19, 128 * 128) << 2 | mixed.integers(0, 4, 128 * 128)).astype(np.uint8)
    a_mix, b_mix = a_mix.reshape(128, 128), b_mix.reshape(128, 128)
    s_mix = mixed.integers(117, 128, 2 * 128 * 4).astype(np.uint8)
    sa_mix, sb_mix = s_mix[:512].reshape(128, 4), s_mix[512:].reshape(128, 4)
    e5m2_of = lambda c: (c.astype(np.uint16) << 8).view(np.float16).astype(np.float64)  # noqa: E731
    scale_of = lambda s: np.repeat(2.0 ** (s.astype(np.float64) - 127), 32, axis=1)  # noqa: E731
    S.append(Spec("dot_scaled_mixed_fp8_sm120", dot_scaled_mixed_kernel,
                  {"a_ptr": buf(a_mix, None, "float8_e4m3"), "b_ptr": buf(b_mix, None, "float8_e5m2"),
                   "sa_ptr": buf(sa_mix), "sb_ptr": buf(sb_mix), "c_ptr": buf(np.zeros((128, 128), np.float32)),
                   "M": const(128), "N": const(128), "K": const(128), "A_FMT": const("e4m3"), "B_FMT": const("e5m2"), "B_PACK": const(1)},
                  [1], {"c_ptr": f32((e4m3_values(a_mix) * scale_of(sa_mix)) @ (e5m2_of(b_mix) * scale_of(sb_mix).T))},
                  mc.close(2e-5, 1e-2, "scaled products of fp8 values are exact in f32; the f32 sums round in mma order"),
                  num_warps=4, num_stages=1, capability=120,
                  note="sm_120a: tl.dot_scaled of e4m3 by e5m2, mma.sync .kind::mxf8f6f4 .e4m3.e5m2 with .block_scale"))
    # mxfp8 activations times mxfp4 weights on sm_100a: tcgen05.mma .kind::mxf8f6f4 of E4M3 by
    # E2M1, which Triton stores in shared memory padded, 16 elements in the first 8 bytes of 16.
    w4 = np.random.default_rng(121)
    a_w4 = w4.integers(0, 256, 128 * 128).astype(np.uint8)
    a_w4[(a_w4 & 0x7F) == 0x7F] = 0x38
    a_w4 = a_w4.reshape(128, 128)
    b_w4 = w4.integers(0, 256, 64 * 128).astype(np.uint8).reshape(64, 128)
    s_w4 = w4.integers(117, 128, 2 * 128 * 4).astype(np.uint8)
    sa_w4, sb_w4 = s_w4[:512].reshape(128, 4), s_w4[512:].reshape(128, 4)
    S.append(Spec("dot_scaled_mxfp8_mxfp4_sm100", dot_scaled_mixed_kernel,
                  {"a_ptr": buf(a_w4, None, "float8_e4m3"), "b_ptr": buf(b_w4), "sa_ptr": buf(sa_w4), "sb_ptr": buf(sb_w4),
                   "c_ptr": buf(np.zeros((128, 128), np.float32)), "M": const(128), "N": const(128), "K": const(128),
                   "A_FMT": const("e4m3"), "B_FMT": const("e2m1"), "B_PACK": const(2)},
                  [1], {"c_ptr": f32((e4m3_values(a_w4) * scale_of(sa_w4)) @ (e2m1_values(b_w4, 0) * scale_of(sb_w4).T))},
                  mc.close(2e-5, 1e-2, "scaled products of fp8 and fp4 values are exact in f32; the f32 sums round in mma order"),
                  num_warps=4, num_stages=1, capability=100,
                  note=datacenter + "; tl.dot_scaled of e4m3 by e2m1: tcgen05.mma .kind::mxf8f6f4, the e2m1 padded in shared memory"))
    # Fused softmax on sm_100a, whose row maximum is redux.sync.max.f32 (a float reduction
    # across the warp, which orders values, not bits: the inputs are mostly negative).
    S.append(next(s for s in S if s.name == "softmax").for_capability(100, "sm_100a: tl.max of floats is redux.sync.max.f32"))
    # NaN-propagating minimum and maximum (max.NaN.f32, max.NaN.f16) and int16 arithmetic on
    # pairs (add.s16x2, sub.s16x2), sm_90a. No pair of zeros of two signs: numpy's maximum
    # orders them as it meets them, PTX's puts -0 below +0.
    nanrng = np.random.default_rng(91)
    n = 1000
    xn, yn = (nanrng.standard_normal(n) * 100).astype(np.float32), (nanrng.standard_normal(n) * 100).astype(np.float32)
    xn[::7], yn[3::11], xn[5::13], yn[6::17] = np.nan, np.nan, np.inf, -np.inf
    an, bn = nanrng.integers(-32768, 32768, n).astype(np.int16), nanrng.integers(-32768, 32768, n).astype(np.int16)
    with np.errstate(over="ignore"):
        sn = (an + bn) * np.int16(3) - (an - bn)
    S.append(Spec("nan_min_max_i16_sm90", nan_min_max_i16_kernel,
                  {"x_ptr": buf(xn), "y_ptr": buf(yn), "a_ptr": buf(an), "b_ptr": buf(bn),
                   "mx_ptr": buf(np.zeros(n, np.float32)), "mn_ptr": buf(np.zeros(n, np.float32)),
                   "h_ptr": buf(np.zeros(n, np.float16)), "s_ptr": buf(np.zeros(n, np.int16)), "n": scalar("i32", n), "BLOCK": const(256)},
                  [(n + 255) // 256], {"mx_ptr": ptx_nans(np.maximum(xn, yn)), "mn_ptr": ptx_nans(np.minimum(xn, yn)),
                                       "h_ptr": ptx_nans(np.maximum(xn.astype(np.float16), yn.astype(np.float16))), "s_ptr": sn},
                  mc.exact(), capability=90,
                  note="sm_90a: tl.maximum/tl.minimum(propagate_nan=ALL) are max.NaN.f32, min.NaN.f32 and max.NaN.f16; int16 sums add.s16x2"))
    return S


def signature_of(spec):
    sig, consts, attrs = {}, {}, {}
    for i, (name, a) in enumerate(spec.args.items()):
        if a[0] == "buffer":
            sig[name] = "*" + TRITON_DTYPE[a[3] or a[1].dtype.name]
            attrs[(i,)] = [["tt.divisibility", 16]]
        elif a[0] == "pointers":
            sig[name] = "*i64"
            attrs[(i,)] = [["tt.divisibility", 16]]
        elif a[0] == "tensordesc":
            sig[name] = f"tensordesc<{TRITON_DTYPE[a[3] or a[1].dtype.name]}[{', '.join(map(str, a[4]))}]>"
        elif a[0] == "scalar":
            sig[name] = a[1]
            if a[1] in ("i32", "i64") and a[2] % 16 == 0:
                attrs[(i,)] = [["tt.divisibility", 16]]  # what the JIT's specialisation gives a multiple of 16
        else:
            sig[name] = "constexpr"
            consts[name] = a[1]
    return sig, consts, attrs


def relative_file_names():
    """Name every @triton.jit function by a path that does not depend on where the checkout or the
    venv lies, so the `.file` lines (and the DWARF bytes) of the PTX are the same on every machine:
    our kernels `gen_triton.py`, Triton's own helpers (tl.sum, tl.rand, ...) `triton/language/X.py`."""
    import triton.language as tlang
    from triton.runtime.jit import JITFunction
    for mod in list(sys.modules.values()):
        name = getattr(mod, "__name__", "") or ""
        if not (name.startswith("triton.language") or mod is sys.modules[__name__]):
            continue
        for obj in list(vars(mod).values()):
            if isinstance(obj, JITFunction) and os.path.isabs(obj.file_name):
                if obj.file_name == os.path.abspath(__file__):
                    obj.file_name = "gen_triton.py"
                else:
                    base = os.path.dirname(os.path.dirname(tlang.__file__))  # .../site-packages/triton
                    obj.file_name = "triton/" + os.path.relpath(obj.file_name, base)


def main():
    relative_file_names()
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "triton")
    versions = {"triton": triton.__version__, "numpy": np.__version__}
    corpus = mc.Corpus(out, "gen_triton.py", versions, notes=[
        "Compiled with triton.compile(ASTSource(fn, signature, constexprs, attrs), target=GPUTarget('cuda', capability, 32)), "
        "capability 80 but for the *_smXX kernels (89; 90: sm_90a, whose tl.dot is wgmma.mma_async; 100: sm_100a, "
        "datacenter Blackwell, whose tl.dot is tcgen05.mma; 120: sm_120a, consumer Blackwell, whose tl.dot is mma.sync); "
        "pointers carry tt.divisibility=16, as the JIT gives aligned tensors.",
        "Triton appends two pointer parameters to every kernel (global_scratch, profile_scratch); they are 'unused' here "
        "(the launcher passes null when the kernel's global_scratch_size and profile_scratch_size are 0), but for a kernel "
        "that makes tensor maps on the device, whose global scratch is 'scratch': zeros, global_scratch_size bytes a program.",
        "shared_bytes is compiled.metadata.shared: the dynamic shared memory (extern .shared global_smem[]) the launch must give.",
        "block is the compiled kernel's warps (metadata num_warps: more than asked for where Triton specializes warps) "
        "times 32 threads in x; grid is the number of programs in x, y, z.",
    ], target="sm_80 (a kernel's capability says otherwise)")
    for spec in specs():
        sig, consts, attrs = signature_of(spec)
        src = triton.compiler.ASTSource(fn=spec.fn, signature=sig, constexprs=consts, attrs=attrs)
        target = GPUTarget("cuda", spec.capability, 32)
        compiled = triton.compile(src, target=target, options={"num_warps": spec.num_warps, "num_stages": spec.num_stages})
        ptx = compiled.asm["ptx"]
        md = compiled.metadata
        assert md.profile_scratch_size == 0, (spec.name, md)
        [(entry, pparams)] = mc.ptx_entries(ptx)
        # Each runtime argument's PTX parameters: one, or a tensor descriptor's map, shape and
        # strides; then Triton's two scratch pointers.
        expanded = []
        for n, a in spec.args.items():
            if a[0] == "tensordesc":
                rank = a[1].ndim
                expanded += [(n, a, "map")] + [(n, a, ("shape", k)) for k in range(rank)] + [(n, a, ("stride", k)) for k in range(rank)]
            elif a[0] != "constexpr":
                expanded.append((n, a, None))
        assert len(pparams) == len(expanded) + 2, (spec.name, pparams, expanded)
        tensordescs = iter(getattr(md, "tensordesc_meta", None) or [])
        params = []
        for i, p in enumerate(pparams):
            d = {"name": p["name"], "ptx_type": p["ptx_type"]}
            if i < len(expanded):
                argname, a, part = expanded[i]
                d["arg"] = argname
                if a[0] == "buffer":
                    arr = a[1]
                    fname = a[2] or f"{spec.name}.{argname}.in"
                    if not arr.any() and argname in spec.outputs:
                        fname, arr = f"zeros.{arr.dtype.name}.{arr.size}", arr.reshape(-1)
                    d.update(role="buffer", input=corpus.npy(fname, arr), dtype=arr.dtype.name, count=int(arr.size))
                    if a[3]:
                        d["element"] = f"{a[3]} (bits as {arr.dtype.name})"
                elif a[0] == "pointers":
                    files = []
                    for g, arr in enumerate(a[1]):
                        fname = f"{spec.name}.{argname}.{g}.in"
                        if not arr.any() and f"{argname}.{g}" in spec.outputs:
                            fname, arr = f"zeros.{arr.dtype.name}.{arr.size}", arr.reshape(-1)
                        files.append(corpus.npy(fname, arr))
                    d.update(role="pointers", inputs=files, dtypes=[arr.dtype.name for arr in a[1]],
                             note="a table of device pointers: simt run takes pointers(B0, B1, ...); NAME.K is buffer K")
                elif part == "map":
                    # The tensor keeps its shape: the map's extents come from it.
                    arr = a[1]
                    fname = a[2] or f"{spec.name}.{argname}.in"
                    if not arr.any() and argname in spec.outputs:
                        fname = f"zeros.{arr.dtype.name}.{'x'.join(map(str, arr.shape))}"
                    meta = next(tensordescs)
                    d.update(role="tensormap", input=corpus.npy(fname, arr), dtype=arr.dtype.name, shape=list(arr.shape),
                             box=list(a[4]), swizzle=[0, 32, 64, 128][meta["swizzle"]],
                             note="a CUtensorMap passed by value: simt run takes tensormap(TENSOR, box=..., swizzle=...)")
                    if a[3]:
                        d["element"] = a[3]
                elif part is not None:
                    what, k = part
                    value = a[1].shape[k] if what == "shape" else a[1].strides[k] // a[1].itemsize
                    d.update(role="scalar", value=int(value), type="i32" if what == "shape" else "i64",
                             note=f"the descriptor's {what} in dimension {k} (Triton passes them beside the map)")
                else:
                    value = float(np.float32(a[2])) if a[1] == "fp32" else a[2]
                    d.update(role="scalar", value=value, type=a[1])
            elif i == len(expanded) and md.global_scratch_size > 0:
                # Triton's allocator gives each program global_scratch_size bytes, in program order.
                words = md.global_scratch_size * int(np.prod(spec.grid)) // 4
                d.update(role="scratch", arg="global_scratch", words=words,
                         note=f"Triton's global scratch: {md.global_scratch_size} bytes a program (its tensor maps), zeros at launch")
            else:
                d.update(role="unused", arg=["global_scratch", "profile_scratch"][i - len(expanded)],
                         note="Triton's scratch pointer; null at launch (scratch size 0)")
            params.append(d)
        outputs = []
        for argname, ref in spec.outputs.items():
            # `NAME.K`: buffer K of a table of pointers.
            base, _, member = argname.partition(".")
            pname = next(p["name"] for p in params if p.get("arg") == base) + (f".{member}" if member else "")
            inp = spec.args[base][1][int(member)] if member else spec.args[argname][1]
            ref = np.ascontiguousarray(ref).astype(inp.dtype).reshape(inp.shape)
            shared_name = spec.args[base][2]
            ename = f"{spec.name}.{argname}.expected" if shared_name is None else \
                shared_name.replace(".c0.", ".expected.")
            outputs.append({"param": pname, "arg": argname, "expected": corpus.npy(ename, ref), "dtype": ref.dtype.name})
        kernel = {
            "name": spec.name, "file": corpus.ptx(spec.name, ptx), "entry": entry, "capability": spec.capability,
            # A warp-specialized kernel has more warps than it was compiled with (md.num_warps).
            "grid": list(spec.grid), "block": [md.num_warps * 32, 1, 1], "shared_bytes": int(md.shared),
            "num_warps": spec.num_warps, "num_stages": spec.num_stages,
            "constexprs": {k: v for k, v in consts.items()},
            "params": params, "outputs": outputs, "tolerance": spec.tolerance,
        }
        if spec.note:
            kernel["note"] = spec.note
        corpus.add(kernel)
        print(f"  {spec.name:18s} {entry:24s} grid={spec.grid} block={md.num_warps * 32} shared={md.shared}")
    corpus.write()


if __name__ == "__main__":
    main()
