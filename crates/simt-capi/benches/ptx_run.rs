//! What one `ptx_run` call costs a caller that launches a small kernel thousands of times
//! (tinygrad's test suite): a one-warp tinygrad kernel, its module cached after the first
//! call, its three buffers found in the process's mappings on every call. Also the same
//! launch with the buffers given with their lengths (`simt_launch`'s way), which skips the
//! mapping lookup.

use std::ffi::{CString, c_void};

use criterion::{Criterion, criterion_group, criterion_main};

/// tinygrad's `a + b` on 32 floats, as its PTX renderer writes it for the mock's sm_35.
const ADD: &str = "
.version 7.5
.target sm_35
.address_size 64
.visible .entry E_32(.param .u64 data0, .param .u64 data1, .param .u64 data2)
{
	.reg .u64 %dat_u64_<3>;
	.reg .u64 %bidx_u64_<3>;
	.reg .f32 %val_f32_<2>;
	.reg .f32 %alu_f32_<1>;
	.reg .u32 %lidx0;
	ld.param.u64 %dat_u64_0, [data0+0];
	ld.param.u64 %dat_u64_1, [data1+0];
	ld.param.u64 %dat_u64_2, [data2+0];
	mov.u32 %lidx0, %tid.x;
	cvt.u64.u32 %bidx_u64_0, %lidx0;
	shl.b64 %bidx_u64_0, %bidx_u64_0, 2;
	add.s64 %bidx_u64_1, %dat_u64_1, %bidx_u64_0;
	ld.global.f32 %val_f32_0, [%bidx_u64_1+0];
	add.s64 %bidx_u64_2, %dat_u64_2, %bidx_u64_0;
	ld.global.f32 %val_f32_1, [%bidx_u64_2+0];
	add.f32 %alu_f32_0, %val_f32_0, %val_f32_1;
	add.s64 %bidx_u64_0, %dat_u64_0, %bidx_u64_0;
	st.global.f32 [%bidx_u64_0+0], %alu_f32_0;
	ret;
}
";

fn ptx_run(c: &mut Criterion) {
    let text = CString::new(ADD).unwrap();
    let mut out = vec![0f32; 32];
    let a: Vec<f32> = (0..32).map(|i| i as f32).collect();
    let b = [1f32; 32];
    let mut group = c.benchmark_group("ptx_run");
    group.bench_function("one_warp_addresses", |bench| {
        bench.iter(|| {
            let mut args = [out.as_mut_ptr() as u64, a.as_ptr() as u64, b.as_ptr() as u64];
            // SAFETY: NUL-terminated text; three live buffers of 32 floats.
            unsafe { simt::ptx_run(text.as_ptr(), 3, args.as_mut_ptr().cast::<*mut c_void>(), 32, 1, 1, 1, 1, 1, 0) };
        })
    });
    assert_eq!(out[31], 32.0, "the kernel ran");
    let module = simt::load_cached("add.ptx", ADD).unwrap();
    let shape = simt::Shape { grid: [1, 1, 1], block: [32, 1, 1], shared_bytes: 0 };
    group.bench_function("one_warp_buffers", |bench| {
        bench.iter(|| {
            let args = [
                simt::HostArg::Memory { ptr: out.as_mut_ptr().cast(), len: 128 },
                simt::HostArg::Memory { ptr: a.as_ptr().cast_mut().cast(), len: 128 },
                simt::HostArg::Memory { ptr: b.as_ptr().cast_mut().cast(), len: 128 },
            ];
            // SAFETY: three live buffers of 128 bytes, written only by the launch.
            unsafe { simt::launch(&module, 0, &args, shape, &simt_interp::RunOptions::default()) }.unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, ptx_run);
criterion_main!(benches);
