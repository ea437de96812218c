#!/usr/bin/env python3
"""Rebuilds tests/fidelity/device/probe.ptx from probe.cu with NVRTC for compute_90 (H100, H200),
as tests/ptx/regen-nvrtc.py builds its fixtures (NVRTC from the package index; or NVRTC names a
libnvrtc.so). The GPU and simt then run the same PTX. Usage: tests/fidelity/device/regen.py
"""

import ctypes
import importlib.util
import pathlib
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("regen_nvrtc", HERE.parent.parent / "ptx" / "regen-nvrtc.py")
nvrtc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(nvrtc)

with tempfile.TemporaryDirectory() as scratch:
    lib = ctypes.CDLL(nvrtc.libnvrtc(scratch))
    ptx = nvrtc.compile_ptx(lib, (HERE / "probe.cu").read_bytes(), "probe.cu", ["--gpu-architecture=compute_90", "-std=c++17"])
    (HERE / "probe.ptx").write_text(ptx)
    print(f"wrote probe.ptx with {nvrtc.PACKAGE}")
