//! Reference computations for the PTX corpus: one plain Rust function per kernel of
//! `cuda/kernels.toml`, over the same inputs, returning the final contents of the kernel's
//! output buffers.
//!
//! Each function follows its kernel's order of floating-point operations, including the
//! multiply-adds clang contracts into `fma.rn` (`a * b + c` in one expression, at -O0 and -O3
//! alike), the shared-memory reduction trees and the shuffle patterns, so "exact" kernels
//! compare bit for bit at both optimisation levels. Kernels built on `.approx` functions
//! (softmax, layernorm) are computed in f64 and compared within the manifest's tolerance.
//!
//! Included by the corpus tests with `#[path = ".../tests/ptx/reference.rs"] mod reference;`;
//! it uses nothing outside `std`.

use std::collections::BTreeMap;

/// A kernel argument: a scalar or a buffer.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `s32` scalar.
    S32(i32),
    /// `u32` scalar.
    U32(u32),
    /// `f32` scalar.
    F32(f32),
    /// `f64` scalar.
    F64(f64),
    /// A pointer argument's buffer.
    Buffer(Buffer),
}

/// A typed buffer. `f16` elements are kept as their bits.
#[derive(Clone, Debug, PartialEq)]
pub enum Buffer {
    /// `ptr.u8`.
    U8(Vec<u8>),
    /// `ptr.s32`.
    S32(Vec<i32>),
    /// `ptr.u32`.
    U32(Vec<u32>),
    /// `ptr.f16`, as IEEE half bits.
    F16(Vec<u16>),
    /// `ptr.f32`.
    F32(Vec<f32>),
    /// `ptr.f64`.
    F64(Vec<f64>),
}

impl Buffer {
    /// The number of elements.
    pub fn len(&self) -> usize {
        match self {
            Buffer::U8(v) => v.len(),
            Buffer::S32(v) => v.len(),
            Buffer::U32(v) => v.len(),
            Buffer::F16(v) => v.len(),
            Buffer::F32(v) => v.len(),
            Buffer::F64(v) => v.len(),
        }
    }
}

/// The arguments of one launch, by parameter name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inputs {
    values: BTreeMap<String, Value>,
}

/// The final contents of the output buffers, by parameter name.
pub type Outputs = BTreeMap<String, Buffer>;

/// A reference computation.
pub type Reference = fn(&Inputs) -> Outputs;

macro_rules! getters {
    ($($scalar:ident: $st:ty = $sv:ident;)* / $($buffer:ident: $bt:ty = $bv:ident;)*) => {
        $(
            /// The scalar argument `name`.
            pub fn $scalar(&self, name: &str) -> $st {
                match self.values.get(name) {
                    Some(Value::$sv(v)) => *v,
                    other => panic!("argument `{name}`: expected a {} scalar, found {other:?}", stringify!($sv)),
                }
            }
        )*
        $(
            /// The buffer argument `name`.
            pub fn $buffer(&self, name: &str) -> &[$bt] {
                match self.values.get(name) {
                    Some(Value::Buffer(Buffer::$bv(v))) => v,
                    other => panic!("argument `{name}`: expected a {} buffer, found {other:?}", stringify!($bv)),
                }
            }
        )*
    };
}

impl Inputs {
    /// No arguments yet.
    pub fn new() -> Inputs {
        Inputs::default()
    }

    /// Sets argument `name`.
    pub fn insert(&mut self, name: &str, value: Value) {
        self.values.insert(name.to_string(), value);
    }

    getters! {
        s32: i32 = S32; u32: u32 = U32; f32: f32 = F32; f64: f64 = F64;
        /
        u8s: u8 = U8; s32s: i32 = S32; u32s: u32 = U32; f16s: u16 = F16; f32s: f32 = F32; f64s: f64 = F64;
    }

    /// The scalar `name` as a count (negative counts are 0).
    fn count(&self, name: &str) -> usize {
        usize::try_from(self.s32(name)).unwrap_or(0)
    }
}

/// Every kernel's reference, by entry name.
pub const REFERENCES: &[(&str, Reference)] = &[
    ("vector_add", vector_add),
    ("saxpy", saxpy),
    ("daxpy", daxpy),
    ("reduce_shared", reduce_shared),
    ("reduce_warp", reduce_warp),
    ("reduce_atomic", reduce_atomic),
    ("dot_xor", dot_xor),
    ("scan_block", scan_block),
    ("scan_warp", scan_warp),
    ("histogram", histogram),
    ("transpose_naive", transpose),
    ("transpose_tiled", transpose),
    ("sgemm_naive", sgemm),
    ("sgemm_tiled", sgemm),
    ("softmax", softmax),
    ("layernorm", layernorm),
    ("bitonic_sort", bitonic_sort),
    ("stencil_1d", stencil_1d),
    ("conv2d", conv2d),
    ("spmv_csr", spmv_csr),
    ("bfs_step", bfs_step),
    ("device_calls", device_calls),
    ("local_array", local_array),
    ("divergent_loop", divergent_loop),
    ("vote_ballot", vote_ballot),
    ("compact", compact),
    ("atomic_minmax", atomic_minmax),
    ("matvec", matvec),
    ("int_ops", int_ops),
    ("relu_clamp", relu_clamp),
    ("hgemm_mma", hgemm_mma),
    ("vec4_scale", vec4_scale),
    ("convert", convert),
    ("warp_match_redux", warp_match_redux),
    ("warp_tiles_redux", warp_tiles_redux),
    ("pointer_calls", pointer_calls),
    ("wide_index", wide_index),
    ("math_lib", math_lib),
    ("globals", globals),
    ("bit_mix", bit_mix),
    ("atomic_wide", atomic_wide),
    ("block_votes", block_votes),
    ("cub_block", cub_block),
    ("math_double", math_double),
    ("int8_dot", int8_dot),
    ("wmma_tiles", wmma_tiles),
    ("wmma_s8", wmma_s8),
    ("coop_tiles", coop_tiles),
    ("barrier_phases", barrier_phases),
    ("struct_param", struct_param),
    ("printf_demo", printf_demo),
    ("assert_checked", assert_checked),
];

/// The reference of kernel `entry`.
pub fn reference(entry: &str) -> Option<Reference> {
    REFERENCES.iter().find(|(name, _)| *name == entry).map(|(_, f)| *f)
}

fn outputs(list: Vec<(&str, Buffer)>) -> Outputs {
    list.into_iter().map(|(name, buffer)| (name.to_string(), buffer)).collect()
}

/// The PTX `fma.rn.f32`: one rounding.
fn fma(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

fn pointer_calls(inp: &Inputs) -> Outputs {
    let n = inp.count("n");
    let x = inp.f32s("x");
    let mut y = inp.f32s("y").to_vec();
    for i in 0..n {
        y[i] += x[i] * 2.0;
    }
    outputs(vec![("y", Buffer::F32(y))])
}

fn globals(inp: &Inputs) -> Outputs {
    const TAPS: [f32; 5] = [0.0625, 0.25, 0.375, 0.25, 0.0625];
    let n = inp.count("n");
    let x = inp.f32s("x");
    let mut y = vec![0f32; x.len()];
    for (i, out) in y.iter_mut().enumerate().take(n) {
        *out = TAPS.iter().enumerate().fold(0.0, |acc, (k, t)| acc + t * x[(i + k).saturating_sub(2).min(n - 1)]);
    }
    // Every thread takes one ticket from a counter that starts at zero.
    let tickets = (0..inp.s32s("tickets").len()).map(|i| i32::from(i < n)).collect();
    outputs(vec![("y", Buffer::F32(y)), ("tickets", Buffer::S32(tickets))])
}

fn math_lib(inp: &Inputs) -> Outputs {
    let n = inp.count("n");
    let x = inp.f32s("x");
    let (mut y, mut z) = (vec![0f32; x.len()], vec![0f64; x.len()]);
    for i in 0..n {
        let v = x[i] * 8.0 - 4.0;
        let rounded = (v * 3.0).round_ties_even() as i32 as f32;
        y[i] = v.floor() + 2.0 * v.ceil() + 4.0 * v.trunc() + 8.0 * v.round_ties_even() + rounded + v.abs().sqrt() + 1.5f32.copysign(v);
        let w = f64::from(v);
        z[i] = w.abs().sqrt() + w / 3.0 + (w * 2.5).floor() + w.round_ties_even() + (i as i64 * 1_000_003 - 5_000_000) as f64;
    }
    outputs(vec![("y", Buffer::F32(y)), ("z", Buffer::F64(z))])
}

fn atomic_wide(inp: &Inputs) -> Outputs {
    let n = inp.count("n");
    let x = inp.f32s("x");
    let words = |v: u64| [v as u32, (v >> 32) as u32];
    let mut counts = [0u64; 2];
    let (mut sum, mut best) = (inp.f64s("sum")[0], i64::MIN);
    let (mut claim, mut seen) = (inp.u32s("claim").to_vec(), inp.u32s("seen").to_vec());
    for (i, &v) in x.iter().enumerate().take(n) {
        counts[usize::from(v >= 0.5)] += (1 << 33) | 1;
        sum += f64::from(v);
        best = best.max((v * 1e6) as i64 - 500_000 * (i as i64 % 3));
        let key = ((i as u64 + 1) << 32) | i as u64;
        claim[2 * i..2 * i + 2].copy_from_slice(&words(key));
        seen[2 * i..2 * i + 2].copy_from_slice(&words(key));
    }
    outputs(vec![
        ("counts", Buffer::U32(counts.iter().flat_map(|&c| words(c)).collect())),
        ("sum", Buffer::F64(vec![sum])),
        ("best", Buffer::U32(words(best as u64).to_vec())),
        ("claim", Buffer::U32(claim)),
        ("seen", Buffer::U32(seen)),
    ])
}

fn bit_mix(inp: &Inputs) -> Outputs {
    let n = inp.count("n");
    let x = inp.u32s("x");
    let (mut out, mut z) = (inp.u32s("out").to_vec(), inp.f64s("z").to_vec());
    // CUDA's __byte_perm: the low three bits of each selector nibble pick a byte of y:x.
    let byte_perm = |a: u32, b: u32, s: u32| {
        let bytes = u64::from(a) | u64::from(b) << 32;
        (0..4).fold(0u32, |r, k| r | (((bytes >> (8 * ((s >> (4 * k)) & 7))) & 0xFF) as u32) << (8 * k))
    };
    for i in 0..n {
        let (a, b) = (x[i], x[(i + 1) % n]);
        let w = u64::from(a) << 32 | u64::from(b);
        let (funnel, shift) = (u64::from(a) | u64::from(b) << 32, i as u32);
        let f = (a as i32) as f32 * 1e-3;
        let ll = (f * 1e6) as i64;
        let values = [
            u64::from(byte_perm(a, b, 0x5140)) | u64::from(byte_perm(a, b, a & 0x7777)) << 32,
            u64::from(((funnel << (shift & 31)) >> 32) as u32) | u64::from((funnel >> shift.min(32)) as u32) << 32,
            u64::from(a.rotate_left(7)) ^ u64::from(b.rotate_right(13)) << 32,
            ((u128::from(w) * 0x9E37_79B9_7F4A_7C15) >> 64) as u64 ^ ((i128::from(w as i64) * -12_345_678_901) >> 64) as u64,
            (i32::from(a as i16) * i32::from(b as i16)) as i64 as u64,
            w.wrapping_mul(u64::from(b)).wrapping_add(0x1_2345_6789),
            ll as u64 ^ (((f * 3.0e9).round_ties_even() as i64 as u64) << 1),
            u64::from((w as i64 as f32).to_bits()) | u64::from((w as f32).to_bits()) << 32,
        ];
        for (k, v) in values.iter().enumerate() {
            out[16 * i + 2 * k] = *v as u32;
            out[16 * i + 2 * k + 1] = (v >> 32) as u32;
        }
        let (d, e) = (w as f64, w as i64 as f64);
        z[2 * i] = d.min(e * 0.5);
        z[2 * i + 1] = (-d).max(e) + ll as f64;
    }
    outputs(vec![("out", Buffer::U32(out)), ("z", Buffer::F64(z))])
}

fn wide_index(inp: &Inputs) -> Outputs {
    let n = inp.count("n");
    let x = inp.s32s("x");
    let out = (0..n)
        .map(|i| {
            let v = (i64::from(x[i]) * 1_000_003 - (n - i) as i64 * 4096).clamp(-3_000_000_000, 3_000_000_000);
            let near = (n - 1 - i).min(7) as i32;
            ((v >> 8) as i32).wrapping_add(near).wrapping_add(i32::from(v < 0))
        })
        .collect();
    outputs(vec![("out", Buffer::S32(out))])
}

fn vector_add(inp: &Inputs) -> Outputs {
    let n = inp.count("n");
    let (a, b) = (inp.f32s("a"), inp.f32s("b"));
    let mut c = inp.f32s("c").to_vec();
    for i in 0..n {
        c[i] = a[i] + b[i];
    }
    outputs(vec![("c", Buffer::F32(c))])
}

fn saxpy(inp: &Inputs) -> Outputs {
    let (n, a, x) = (inp.count("n"), inp.f32("a"), inp.f32s("x"));
    let mut y = inp.f32s("y").to_vec();
    for i in 0..n {
        y[i] = fma(a, x[i], y[i]);
    }
    outputs(vec![("y", Buffer::F32(y))])
}

fn daxpy(inp: &Inputs) -> Outputs {
    let (n, a, x) = (inp.count("n"), inp.f64("a"), inp.f64s("x"));
    let mut y = inp.f64s("y").to_vec();
    for i in 0..n {
        y[i] = a.mul_add(x[i], y[i]);
    }
    outputs(vec![("y", Buffer::F64(y))])
}

/// Block size of the kernels whose launch the manifest fixes at 256 threads.
const BLOCK: usize = 256;

/// The shared-memory tree `for s = B/2 .. 1: buf[t] += buf[t + s]`; returns `buf[0]`.
fn tree_sum(mut buf: Vec<f32>) -> f32 {
    let mut s = buf.len() / 2;
    while s > 0 {
        for t in 0..s {
            buf[t] += buf[t + s];
        }
        s /= 2;
    }
    buf[0]
}

fn reduce_shared(inp: &Inputs) -> Outputs {
    let (n, x) = (inp.count("n"), inp.f32s("in"));
    let mut out = inp.f32s("out").to_vec();
    for (block, o) in out.iter_mut().enumerate() {
        let buf = (0..BLOCK).map(|t| block * BLOCK + t).map(|i| if i < n { x[i] } else { 0.0 }).collect();
        *o = tree_sum(buf);
    }
    outputs(vec![("out", Buffer::F32(out))])
}

fn reduce_warp(inp: &Inputs) -> Outputs {
    let (n, x) = (inp.count("n"), inp.s32s("in"));
    let mut out = inp.s32s("out").to_vec();
    out[0] = x[..n].iter().fold(out[0], |acc, &v| acc.wrapping_add(v));
    outputs(vec![("out", Buffer::S32(out))])
}

fn reduce_atomic(inp: &Inputs) -> Outputs {
    // The inputs are small integers: every order of f32 additions gives this sum exactly.
    let (n, x) = (inp.count("n"), inp.f32s("in"));
    let mut out = inp.f32s("out").to_vec();
    out[0] += x[..n].iter().sum::<f32>();
    outputs(vec![("out", Buffer::F32(out))])
}

/// `v += shfl.bfly(v, m)` for m = 16, 8, 4, 2, 1 over one warp's values.
fn butterfly_sum(mut lanes: [f32; 32]) -> [f32; 32] {
    let mut m = 16;
    while m > 0 {
        let before = lanes;
        for (l, v) in lanes.iter_mut().enumerate() {
            *v = before[l] + before[l ^ m];
        }
        m /= 2;
    }
    lanes
}

/// `v += shfl.down(v, off)` for off = 16 .. 1; lanes past the end read their own value.
fn shfl_down_sum(mut lanes: [f32; 32]) -> [f32; 32] {
    let mut off = 16;
    while off > 0 {
        let before = lanes;
        for (l, v) in lanes.iter_mut().enumerate() {
            *v = before[l] + if l + off < 32 { before[l + off] } else { before[l] };
        }
        off /= 2;
    }
    lanes
}

fn dot_xor(inp: &Inputs) -> Outputs {
    let (n, x, y) = (inp.count("n"), inp.f32s("x"), inp.f32s("y"));
    let mut out = inp.f32s("out").to_vec();
    for (block, o) in out.iter_mut().enumerate() {
        let mut s = 0.0f32;
        for warp in 0..BLOCK / 32 {
            let lanes = std::array::from_fn(|l| {
                let i = block * BLOCK + warp * 32 + l;
                if i < n { x[i] * y[i] } else { 0.0 }
            });
            s += butterfly_sum(lanes)[0];
        }
        *o = s;
    }
    outputs(vec![("out", Buffer::F32(out))])
}

fn scan_block(inp: &Inputs) -> Outputs {
    let x = inp.s32s("in");
    let mut out = inp.s32s("out").to_vec();
    for (block, chunk) in x.chunks(BLOCK).enumerate() {
        let mut acc = 0i32;
        for (t, &v) in chunk.iter().enumerate() {
            acc = acc.wrapping_add(v);
            out[block * BLOCK + t] = acc;
        }
    }
    outputs(vec![("out", Buffer::S32(out))])
}

fn scan_warp(inp: &Inputs) -> Outputs {
    let x = inp.s32s("in");
    let mut out = inp.s32s("out").to_vec();
    for (warp, chunk) in x.chunks(32).enumerate() {
        let mut acc = 0i32;
        for (l, &v) in chunk.iter().enumerate() {
            acc = acc.wrapping_add(v);
            out[warp * 32 + l] = acc;
        }
    }
    outputs(vec![("out", Buffer::S32(out))])
}

fn histogram(inp: &Inputs) -> Outputs {
    let (n, data) = (inp.count("n"), inp.u32s("data"));
    let mut bins = inp.s32s("bins").to_vec();
    for &d in &data[..n] {
        bins[(d % 64) as usize] += 1;
    }
    outputs(vec![("bins", Buffer::S32(bins))])
}

fn transpose(inp: &Inputs) -> Outputs {
    let (rows, cols, x) = (inp.count("rows"), inp.count("cols"), inp.f32s("in"));
    let mut out = inp.f32s("out").to_vec();
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = x[r * cols + c];
        }
    }
    outputs(vec![("out", Buffer::F32(out))])
}

/// Both SGEMMs accumulate `acc = fma(A[row][k], B[k][col], acc)` for k in order (the tiled one
/// walks the tiles in order and k within each), so they share one reference.
fn sgemm(inp: &Inputs) -> Outputs {
    let (m, n, k) = (inp.count("M"), inp.count("N"), inp.count("K"));
    let (a, b) = (inp.f32s("A"), inp.f32s("B"));
    let mut c = inp.f32s("C").to_vec();
    for row in 0..m {
        for col in 0..n {
            c[row * n + col] = (0..k).fold(0.0, |acc, kk| fma(a[row * k + kk], b[kk * n + col], acc));
        }
    }
    outputs(vec![("C", Buffer::F32(c))])
}

fn softmax(inp: &Inputs) -> Outputs {
    let (cols, x) = (inp.count("cols"), inp.f32s("in"));
    let mut out = inp.f32s("out").to_vec();
    for (r, row) in x.chunks(cols).enumerate() {
        let m = row.iter().fold(f32::MIN, |m, &v| m.max(v)) as f64;
        let sum: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
        for (j, &v) in row.iter().enumerate() {
            out[r * cols + j] = ((v as f64 - m).exp() / sum) as f32;
        }
    }
    outputs(vec![("out", Buffer::F32(out))])
}

fn layernorm(inp: &Inputs) -> Outputs {
    let (cols, eps, x) = (inp.count("cols"), inp.f32("eps") as f64, inp.f32s("in"));
    let (gamma, beta) = (inp.f32s("gamma"), inp.f32s("beta"));
    let mut out = inp.f32s("out").to_vec();
    for (r, row) in x.chunks(cols).enumerate() {
        let mean = row.iter().map(|&v| v as f64).sum::<f64>() / cols as f64;
        let var = row.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / cols as f64;
        let inv = 1.0 / (var + eps).sqrt();
        for (j, &v) in row.iter().enumerate() {
            out[r * cols + j] = ((v as f64 - mean) * inv * gamma[j] as f64 + beta[j] as f64) as f32;
        }
    }
    outputs(vec![("out", Buffer::F32(out))])
}

fn bitonic_sort(inp: &Inputs) -> Outputs {
    let mut data = inp.s32s("data").to_vec();
    data.sort_unstable();
    outputs(vec![("data", Buffer::S32(data))])
}

fn stencil_1d(inp: &Inputs) -> Outputs {
    let (n, x) = (inp.count("n"), inp.f32s("in"));
    let mut out = inp.f32s("out").to_vec();
    for (g, o) in out.iter_mut().enumerate().take(n) {
        let mut acc = 0.0f32;
        for k in -3i64..=3 {
            let i = g as i64 + k;
            acc += if (0..n as i64).contains(&i) { x[i as usize] } else { 0.0 };
        }
        *o = acc;
    }
    outputs(vec![("out", Buffer::F32(out))])
}

fn conv2d(inp: &Inputs) -> Outputs {
    let (h, w) = (inp.s32("height") as i64, inp.s32("width") as i64);
    let (img, filter) = (inp.f32s("img"), inp.f32s("filter"));
    let mut out = inp.f32s("out").to_vec();
    for y in 0..h {
        for x in 0..w {
            let mut acc = 0.0f32;
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let (yy, xx) = (y + dy, x + dx);
                    if (0..h).contains(&yy) && (0..w).contains(&xx) {
                        acc = fma(img[(yy * w + xx) as usize], filter[((dy + 1) * 3 + dx + 1) as usize], acc);
                    }
                }
            }
            out[(y * w + x) as usize] = acc;
        }
    }
    outputs(vec![("out", Buffer::F32(out))])
}

fn spmv_csr(inp: &Inputs) -> Outputs {
    let rows = inp.count("rows");
    let (row_ptr, col_idx, vals, x) = (inp.s32s("row_ptr"), inp.s32s("col_idx"), inp.f32s("vals"), inp.f32s("x"));
    let mut y = inp.f32s("y").to_vec();
    for r in 0..rows {
        let span = row_ptr[r] as usize..row_ptr[r + 1] as usize;
        y[r] = span.fold(0.0, |acc, j| fma(vals[j], x[col_idx[j] as usize], acc));
    }
    outputs(vec![("y", Buffer::F32(y))])
}

/// Every unvisited neighbour of a frontier vertex gets level `depth + 1` and a place in
/// `next`; which frontier vertex claims it first does not change the result.
fn bfs_step(inp: &Inputs) -> Outputs {
    let (nodes, depth) = (inp.count("nodes"), inp.s32("depth"));
    let (row_ptr, cols, frontier) = (inp.s32s("row_ptr"), inp.s32s("cols"), inp.s32s("frontier"));
    let mut level = inp.s32s("level").to_vec();
    let mut next = inp.s32s("next").to_vec();
    for v in (0..nodes).filter(|&v| frontier[v] != 0) {
        for &u in &cols[row_ptr[v] as usize..row_ptr[v + 1] as usize] {
            if level[u as usize] == -1 {
                level[u as usize] = depth + 1;
                next[u as usize] = 1;
            }
        }
    }
    outputs(vec![("level", Buffer::S32(level)), ("next", Buffer::S32(next))])
}

fn device_calls(inp: &Inputs) -> Outputs {
    let (n, x) = (inp.count("n"), inp.f32s("x"));
    let mut y = inp.f32s("y").to_vec();
    let square = |v: f32| v * v;
    // poly(x, 2, -3) = 2 * square(x) + (-3 * x) + 1: the first product fused, the sum after it not.
    let poly = |v: f32| fma(square(v), 2.0, -3.0 * v) + 1.0;
    for i in 0..n {
        let j = (i as i64 - 1).clamp(0, n as i64 - 1) as usize;
        y[i] = poly(x[i]) + square(x[j]);
    }
    outputs(vec![("y", Buffer::F32(y))])
}

fn local_array(inp: &Inputs) -> Outputs {
    let x = inp.u32s("in");
    let mut out = inp.u32s("out").to_vec();
    for (i, o) in out.iter_mut().enumerate() {
        let mut v = x[i * 16..i * 16 + 16].to_vec();
        v.sort_unstable();
        *o = v.iter().enumerate().fold(0u32, |acc, (k, &e)| acc.wrapping_add((k as u32 + 1).wrapping_mul(e)));
    }
    outputs(vec![("out", Buffer::U32(out))])
}

fn divergent_loop(inp: &Inputs) -> Outputs {
    let (n, x) = (inp.count("n"), inp.u32s("in"));
    let mut steps = inp.u32s("steps").to_vec();
    for i in 0..n {
        let (mut v, mut count) = (x[i], 0u32);
        while v > 1 && count < 1000 {
            v = if v & 1 != 0 { v.wrapping_mul(3).wrapping_add(1) } else { v / 2 };
            count += 1;
        }
        steps[i] = count;
    }
    outputs(vec![("steps", Buffer::U32(steps))])
}

fn vote_ballot(inp: &Inputs) -> Outputs {
    let x = inp.s32s("in");
    let mut out = inp.s32s("out").to_vec();
    for (w, warp) in x.chunks(32).enumerate() {
        let positive = warp.iter().filter(|&&v| v > 0).count();
        out[3 * w] = positive as i32;
        out[3 * w + 1] = (positive == 32) as i32;
        out[3 * w + 2] = (positive > 0) as i32;
    }
    outputs(vec![("out", Buffer::S32(out))])
}

fn compact(inp: &Inputs) -> Outputs {
    let x = inp.s32s("in");
    let mut out = inp.s32s("out").to_vec();
    let kept: Vec<i32> = x.iter().copied().filter(|v| v & 1 != 0).collect();
    out[..kept.len()].copy_from_slice(&kept);
    outputs(vec![("out", Buffer::S32(out)), ("count", Buffer::S32(vec![kept.len() as i32]))])
}

fn atomic_minmax(inp: &Inputs) -> Outputs {
    let (n, x) = (inp.count("n"), inp.s32s("in"));
    let mut out = inp.s32s("out").to_vec();
    for &v in &x[..n] {
        out[0] = out[0].min(v);
        out[1] = out[1].max(v);
    }
    outputs(vec![("out", Buffer::S32(out))])
}

fn matvec(inp: &Inputs) -> Outputs {
    let (rows, cols) = (inp.count("rows"), inp.count("cols"));
    let (a, x) = (inp.f32s("A"), inp.f32s("x"));
    let mut y = inp.f32s("y").to_vec();
    for (row, out) in y.iter_mut().enumerate().take(rows) {
        let lanes = std::array::from_fn(|lane| (lane..cols).step_by(32).fold(0.0, |acc, j| fma(a[row * cols + j], x[j], acc)));
        *out = shfl_down_sum(lanes)[0];
    }
    outputs(vec![("y", Buffer::F32(y))])
}

fn int_ops(inp: &Inputs) -> Outputs {
    let (n, d, x) = (inp.count("n"), inp.s32("d"), inp.s32s("in"));
    let mut out = inp.s32s("out").to_vec();
    for i in 0..n {
        let v = x[i];
        let u = v as u32;
        let o = &mut out[8 * i..8 * i + 8];
        o[0] = v.wrapping_div(d);
        o[1] = v.wrapping_rem(d);
        o[2] = (u / d as u32) as i32 ^ (u % 7) as i32;
        o[3] = u.count_ones() as i32 + (((v | 1) as u32).leading_zeros() << 8) as i32;
        o[4] = u.reverse_bits() as i32;
        o[5] = (v >> 3) ^ (u >> 5) as i32 ^ (u << 4) as i32;
        o[6] = (v.max(d) as u32).wrapping_sub(v.min(d.wrapping_neg()) as u32) as i32;
        o[7] = ((v as i64 * 1_000_003) >> 20) as i32;
    }
    outputs(vec![("out", Buffer::S32(out))])
}

fn relu_clamp(inp: &Inputs) -> Outputs {
    let (n, slope, lo, hi, x) = (inp.count("n"), inp.f32("slope"), inp.f32("lo"), inp.f32("hi"), inp.f32s("x"));
    let mut out = inp.f32s("out").to_vec();
    let mut absx = inp.f32s("absx").to_vec();
    for i in 0..n {
        let v = x[i] - 0.5;
        out[i] = if v > 0.0 { v.max(lo).min(hi) } else { slope * v };
        absx[i] = v.abs();
    }
    outputs(vec![("out", Buffer::F32(out)), ("absx", Buffer::F32(absx))])
}

/// IEEE half bits to f32 (exact).
fn f16_to_f32(bits: u16) -> f32 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let mantissa = f32::from(bits & 0x3ff);
    match exp {
        0 => sign * mantissa * (-24f32).exp2(),
        31 if mantissa == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        _ => sign * (1.0 + mantissa / 1024.0) * ((exp - 15) as f32).exp2(),
    }
}

/// D = A * B^T for 16x16 f16 tiles: simt's MMA is an f32 FFMA chain from C = 0 in k order.
fn hgemm_mma(inp: &Inputs) -> Outputs {
    let (a, bt) = (inp.f16s("A"), inp.f16s("Bt"));
    let mut d = inp.f32s("D").to_vec();
    for i in 0..16 {
        for j in 0..16 {
            d[i * 16 + j] = (0..16).fold(0.0, |acc, k| fma(f16_to_f32(a[i * 16 + k]), f16_to_f32(bt[j * 16 + k]), acc));
        }
    }
    outputs(vec![("D", Buffer::F32(d))])
}

fn vec4_scale(inp: &Inputs) -> Outputs {
    let (n4, s, x) = (inp.count("n4"), inp.f32("s"), inp.f32s("in"));
    let mut out = inp.f32s("out").to_vec();
    for i in 0..4 * n4 {
        out[i] = fma(s, x[i], (i % 4 + 1) as f32);
    }
    outputs(vec![("out", Buffer::F32(out))])
}

fn convert(inp: &Inputs) -> Outputs {
    let n = inp.count("n");
    let (ints, floats, bytes) = (inp.s32s("ints"), inp.f32s("floats"), inp.u8s("bytes"));
    let mut f_out = inp.f32s("f_out").to_vec();
    let mut i_out = inp.s32s("i_out").to_vec();
    let mut d_out = inp.f64s("d_out").to_vec();
    let mut b_out = inp.u8s("b_out").to_vec();
    for i in 0..n {
        f_out[i] = ints[i] as f32 * 0.5;
        // cvt.rzi.s32.f32 truncates and saturates, as `as` does.
        i_out[i] = (fma(floats[i], 1000.0, -500.0) as i32).wrapping_add(i32::from(bytes[i]));
        d_out[i] = f64::from(floats[i]) * 3.0;
        b_out[i] = bytes[i].wrapping_mul(3).wrapping_add(1);
    }
    outputs(vec![("f_out", Buffer::F32(f_out)), ("i_out", Buffer::S32(i_out)), ("d_out", Buffer::F64(d_out)), ("b_out", Buffer::U8(b_out))])
}

/// Assumes the lanes that take `if (lane < 20)` run `activemask` together (both of simt's
/// SIMT models keep a warp converged inside a branch it entered together).
fn warp_match_redux(inp: &Inputs) -> Outputs {
    let x = inp.s32s("in");
    let mut out = inp.s32s("out").to_vec();
    for (w, warp) in x.chunks(32).enumerate() {
        for (lane, &v) in warp.iter().enumerate() {
            let o = &mut out[8 * (w * 32 + lane)..][..8];
            o[0] = warp.iter().enumerate().filter(|(_, u)| *u & 3 == v & 3).fold(0u32, |m, (l, _)| m | 1 << l) as i32;
            o[1] = warp.iter().fold(0i32, |acc, &u| acc.wrapping_add(u));
            o[2] = *warp.iter().min().expect("32 lanes");
            o[3] = *warp.iter().max().expect("32 lanes");
            o[4] = warp.iter().fold(0, |acc, &u| acc | (u & 0xf0));
            o[5] = lane as i32;
            o[6] = if lane < 20 { 0x000F_FFFF } else { 0 };
            o[7] = 1;
        }
    }
    outputs(vec![("out", Buffer::S32(out))])
}

fn warp_tiles_redux(inp: &Inputs) -> Outputs {
    let x = inp.s32s("in");
    let mut out = inp.s32s("out").to_vec();
    let lanes = |of: &[i32], keep: &dyn Fn(i32) -> bool| of.iter().enumerate().filter(|&(_, &u)| keep(u)).fold(0u32, |m, (l, _)| m | 1 << l);
    for (w, warp) in x.chunks(32).enumerate() {
        for (lane, &v) in warp.iter().enumerate() {
            let first = lane & 24;
            let tile = &warp[first..first + 8];
            let o = &mut out[6 * (w * 32 + lane)..][..6];
            o[0] = tile.iter().fold(0i32, |s, &u| s.wrapping_add(u));
            o[1] = *tile.iter().min().expect("eight lanes");
            o[2] = tile.iter().fold(0, |s, &u| s ^ u);
            let agree = tile.iter().all(|&u| u >> 8 == v >> 8);
            o[3] = if agree { (0xFFu32 << first) as i32 + 1 } else { 0 };
            o[4] = (lanes(tile, &|u| u & 1 == v & 1) << first) as i32;
            o[5] = if v & 1 != 0 { warp.iter().copied().filter(|u| u & 1 != 0).max().expect("this lane") } else { 0 };
        }
    }
    outputs(vec![("out", Buffer::S32(out))])
}

fn block_votes(inp: &Inputs) -> Outputs {
    // The manifest's block: each block of 112 threads answers over its own threads.
    const BLOCK: usize = 112;
    let (n, x) = (inp.count("n"), inp.s32s("x"));
    let mut out = inp.s32s("out").to_vec();
    for first in (0..n).step_by(BLOCK) {
        let v: Vec<i32> = (first..first + BLOCK).map(|i| if i < n { x[i] % 100 } else { 0 }).collect();
        let positive = v.iter().filter(|&&v| v > 0).count() as i32;
        let all_above = i32::from(v.iter().all(|&v| v > -99));
        let any_large = i32::from(v.iter().any(|&v| v > 97));
        out[first..(first + BLOCK).min(n)].fill(positive * 4 + all_above * 2 + any_large);
    }
    outputs(vec![("out", Buffer::S32(out))])
}

/// What it prints is checked against `printf_demo.out`; thread 0 of each block keeps the
/// last `printf`'s result, its number of arguments (the `*` width and the value).
fn printf_demo(inp: &Inputs) -> Outputs {
    outputs(vec![("count", Buffer::S32(vec![2; inp.s32s("count").len()]))])
}

fn assert_checked(inp: &Inputs) -> Outputs {
    let (n, x) = (inp.count("n"), inp.s32s("x"));
    let mut y = inp.s32s("y").to_vec();
    for i in 0..n {
        y[i] = x[i].wrapping_mul(2);
    }
    outputs(vec![("y", Buffer::S32(y))])
}

fn cub_block(inp: &Inputs) -> Outputs {
    let (x, keys) = (inp.s32s("x"), inp.u32s("keys"));
    let (mut sums, mut scan, mut sorted) = (Vec::new(), Vec::new(), Vec::new());
    for block in x.chunks(128) {
        sums.push(block.iter().fold(0i32, |s, &v| s.wrapping_add(v)));
        scan.extend(block.iter().scan(0i32, |s, &v| {
            *s = s.wrapping_add(v);
            Some(*s)
        }));
    }
    for block in keys.chunks(512) {
        let mut block = block.to_vec();
        block.sort_unstable();
        sorted.extend(block);
    }
    outputs(vec![("sums", Buffer::S32(sums)), ("scan", Buffer::S32(scan)), ("sorted", Buffer::U32(sorted))])
}

fn math_double(inp: &Inputs) -> Outputs {
    let (n, x) = (inp.count("n"), inp.f64s("x"));
    let mut out = inp.f64s("out").to_vec();
    for (i, &v) in x[..n].iter().enumerate() {
        out[i * 8..i * 8 + 8].copy_from_slice(&[
            v.sin() + v.cos(),
            (v * 0.01).exp() + (v.abs() + 1.0).ln(),
            v.abs().powf(2.7) * 1e-9,
            v.cbrt() + v.hypot(1.3),
            v.atan2(-0.4) + (v / (v.abs() + 1.0)).acos(),
            (v * 1e-3).tanh() + v.asinh(),
            (v * 1e-3).exp_m1() + v.abs().ln_1p(),
            (v * 1e-300).sin() * 1e300 + (v * 1e15).cos(),
        ]);
    }
    outputs(vec![("out", Buffer::F64(out))])
}

fn int8_dot(inp: &Inputs) -> Outputs {
    let (n, a, b) = (inp.count("n"), inp.s32s("a"), inp.s32s("b"));
    let mut out = inp.s32s("out").to_vec();
    // Byte or half `k` of `v`, of `bits` bits, sign- or zero-extended.
    let part = |v: i32, k: u32, bits: u32, signed: bool| {
        let field = (v as u32 >> (k * bits)) & ((1u64 << bits) - 1) as u32;
        if signed && field >> (bits - 1) != 0 { field.wrapping_sub(1 << bits) as i32 } else { field as i32 }
    };
    let dp4 = |x, y, signed, c: i32| (0..4).fold(c, |s, k| s.wrapping_add(part(x, k, 8, signed).wrapping_mul(part(y, k, 8, signed))));
    let dp2 = |x, y, hi: u32, signed, c: i32| (0..2).fold(c, |s, k| s.wrapping_add(part(x, k, 16, signed).wrapping_mul(part(y, k + 2 * hi, 8, signed))));
    let wide24 = |x: i32, y: i32, signed| (i64::from(part(x, 0, 24, signed)) * i64::from(part(y, 0, 24, signed))) as i32;
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        out[i * 8..i * 8 + 8].copy_from_slice(&[
            dp4(x, y, true, 17),
            dp4(x, y, false, 3),
            dp2(x, y, 0, true, -5),
            dp2(x, y, 1, false, 9),
            x.abs_diff(y).wrapping_add(7) as i32,
            (x as u32).abs_diff(y as u32).wrapping_add(1) as i32,
            wide24(x, y, true),
            wide24(x, y, false),
        ]);
    }
    outputs(vec![("out", Buffer::S32(out))])
}

fn wmma_tiles(inp: &Inputs) -> Outputs {
    let (a, b, c) = (inp.f16s("a"), inp.f16s("b"), inp.f32s("c"));
    let mut d = inp.f32s("d").to_vec();
    let half = |bits: u16| f64::from(half::f16::from_bits(bits).to_f32());
    for k in 0..16 {
        let base = k * 32 * 32;
        // Element (i, j) of a 32-wide matrix stored row-major, or column-major.
        let at = |i: usize, j: usize, col: bool| base + if col { j * 32 + i } else { i * 32 + j };
        let (a_col, b_row, cd_col) = (k & 1 != 0, k & 2 != 0, k & 4 != 0);
        for i in 0..16 {
            for j in 0..16 {
                let ab: f64 = (0..16).map(|l| half(a[at(i, l, a_col)]) * half(b[at(l, j, !b_row)])).sum();
                d[at(i, j, cd_col)] = (ab + 0.5 * f64::from(c[at(i, j, cd_col)])) as f32;
            }
        }
    }
    outputs(vec![("d", Buffer::F32(d))])
}

fn wmma_s8(inp: &Inputs) -> Outputs {
    // The bytes are signed chars.
    let (a, b) = (inp.u8s("a"), inp.u8s("b"));
    let value = |x: u8| i32::from(x as i8);
    let mut d = inp.s32s("d").to_vec();
    for tile in 0..2 {
        let base = tile * 256;
        for i in 0..16 {
            for j in 0..16 {
                d[base + i * 16 + j] = 7 + (0..16).map(|k| value(a[base + i * 16 + k]) * value(b[base + k * 16 + j])).sum::<i32>();
            }
        }
    }
    outputs(vec![("d", Buffer::S32(d))])
}

fn struct_param(inp: &Inputs) -> Outputs {
    // Affine { float scale; float shift; int n; }, passed as its three words.
    let f = inp.u32s("f");
    let (scale, shift, n) = (f32::from_bits(f[0]), f32::from_bits(f[1]), f[2] as usize);
    let x = inp.f32s("x");
    let mut y = inp.f32s("y").to_vec();
    for i in 0..n {
        y[i] = fma(x[i], scale, shift);
    }
    outputs(vec![("y", Buffer::F32(y))])
}

fn barrier_phases(inp: &Inputs) -> Outputs {
    let (v, rounds) = (inp.s32s("in"), inp.count("rounds") as i32);
    let mut out = inp.s32s("out").to_vec();
    for (i, o) in out.iter_mut().enumerate() {
        // Round r reads the next thread's value (in the block of 128, wrapping) times r + 1.
        let next = v[(i & !127) + (i + 1) % 128];
        *o = (1..=rounds).fold(0i32, |acc, r| acc.wrapping_add(next.wrapping_mul(r)));
    }
    outputs(vec![("out", Buffer::S32(out))])
}

fn coop_tiles(inp: &Inputs) -> Outputs {
    let v = inp.s32s("in");
    let mut out = inp.s32s("out").to_vec();
    for (i, o) in out.iter_mut().enumerate() {
        let (warp, tile) = (&v[i & !31..(i & !31) + 32], &v[i & !7..(i & !7) + 8]);
        let rank = i % 8;
        let warp_sum = warp.iter().fold(0i32, |s, &x| s.wrapping_add(x));
        let tile_max = *tile.iter().max().expect("eight lanes");
        let large = i32::from(tile.iter().any(|&x| x > 900));
        let positive = tile.iter().filter(|&&x| x > 0).count() as i32;
        // shfl_down past the tile's last lane reads the lane's own value.
        let next = if rank + 1 < 8 { tile[rank + 1] } else { v[i] };
        *o = warp_sum + tile_max * 3 + large * 7 + positive * 11 + next * 13 + rank as i32 + ((i % 128) / 8) as i32 * 100;
    }
    outputs(vec![("out", Buffer::S32(out))])
}
