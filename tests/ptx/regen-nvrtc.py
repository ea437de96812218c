#!/usr/bin/env python3
"""Rebuilds tests/ptx/fixtures-nvrtc/ from tests/ptx/cuda/*.cu with NVRTC, the device
compiler of nvcc as a library (its PTX is what `nvcc -ptx` writes), for each target that
cuda/kernels.toml gives the kernel (default sm_70 and sm_80), with cuda/prelude-nvrtc.h.
Kernels whose manifest entry says `compilers = ["nvrtc"]` live in cuda/nvrtc/: they need
CUDA's own headers (CUB from the CCCL package, the math library), which clang here lacks.

NVRTC needs no GPU: pip installs it (nvidia-cuda-nvrtc-cu12) and the headers (CCCL's CUB,
the runtime's cuda_fp16.h and mma.h, nvcc's crt/ they include) into a temporary virtual
environment unless NVRTC names a libnvrtc.so to use and CUDA_INCLUDES the include folders
(colon-separated). Usage: tests/ptx/regen-nvrtc.py
"""

import ctypes
import os
import pathlib
import subprocess
import sys
import tempfile
import tomllib

HERE = pathlib.Path(__file__).resolve().parent
PACKAGE = "nvidia-cuda-nvrtc-cu12==12.9.86"
HEADERS = ["nvidia-cuda-cccl-cu12==12.9.27", "nvidia-cuda-runtime-cu12==12.9.79", "nvidia-cuda-nvcc-cu12==12.9.86"]


def toolkit(scratch):
    """libnvrtc.so and the header folders."""
    if os.environ.get("NVRTC") and os.environ.get("CUDA_INCLUDES"):
        return os.environ["NVRTC"], os.environ["CUDA_INCLUDES"].split(":")
    venv = pathlib.Path(scratch) / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", PACKAGE, *HEADERS], check=True)
    nvidia = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages" / "nvidia"
    includes = [nvidia / package / "include" for package in ("cuda_cccl", "cuda_runtime", "cuda_nvcc")]
    return str(nvidia / "cuda_nvrtc" / "lib" / "libnvrtc.so.12"), [str(i) for i in includes]


def compile_ptx(lib, source, name, options):
    prog = ctypes.c_void_p()
    if lib.nvrtcCreateProgram(ctypes.byref(prog), source, name.encode(), 0, None, None) != 0:
        sys.exit(f"{name}: nvrtcCreateProgram failed")
    opts = [o.encode() for o in options]
    rc = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    if rc != 0:
        sys.exit(f"{name}: {log.value.decode()}")
    lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetPTX(prog, ptx)
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return ptx.value.decode()


def main():
    with tempfile.TemporaryDirectory() as scratch:
        nvrtc, includes = toolkit(scratch)
        lib = ctypes.CDLL(nvrtc)
        major, minor = ctypes.c_int(), ctypes.c_int()
        lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
        manifest = tomllib.loads((HERE / "cuda" / "kernels.toml").read_text())
        out = HERE / "fixtures-nvrtc"
        out.mkdir(exist_ok=True)
        for old in out.glob("*.ptx"):
            old.unlink()
        prelude = str(HERE / "cuda" / "prelude-nvrtc.h")
        for kernel in manifest["kernel"]:
            entry = kernel["entry"]
            nvrtc_only = kernel.get("compilers") == ["nvrtc"]
            source = (HERE / "cuda" / ("nvrtc" if nvrtc_only else "") / f"{entry}.cu").read_bytes()
            headers = [*(f"-I{i}" for i in includes), "-std=c++17"] if nvrtc_only else []
            for target in kernel.get("targets", ["sm_70", "sm_80"]):
                arch = target.replace("sm_", "compute_")
                print(f"+ nvrtc --gpu-architecture={arch} -include=cuda/prelude-nvrtc.h {' '.join(headers)} cuda/{'nvrtc/' if nvrtc_only else ''}{entry}.cu")
                ptx = compile_ptx(lib, source, f"{entry}.cu", [f"--gpu-architecture={arch}", f"-include={prelude}", "-w", *headers])
                (out / f"{entry}.{target}.ptx").write_text(ptx)
        (HERE / "NVRTC_VERSION").write_text(f"NVRTC {major.value}.{minor.value} ({', '.join([PACKAGE, *HEADERS])})\n")
        print(f"regenerated {len(list(out.glob('*.ptx')))} fixtures with NVRTC {major.value}.{minor.value}")


if __name__ == "__main__":
    main()
