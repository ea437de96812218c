//! `libgpuocelot.so`: simt under the name GPU Ocelot's library has, so a program that loads
//! Ocelot for its `ptx_run` (tinygrad's mock CUDA driver) runs its kernels on simt.
//! Everything lives in `simt-capi`; this crate only gives the library its name, and
//! exports the same functions (`ptx_run` and the `simt_*` API of `simt.h`).

pub use simt::*;
