"""simt from Python: assemble, load and run kernels with numpy arrays in and out.

>>> import numpy as np, simt
>>> k = simt.load("asm/saxpy.s")["saxpy"]
>>> r = k.run(args={"n": 4, "a": 2.0, "x": np.arange(4, dtype=np.float32), "y": np.ones(4, np.float32)})
>>> r["y"]
array([1., 3., 5., 7.], dtype=float32)
"""

from ._simt import (
    AssemblyError,
    Deadlock,
    Fault,
    Kernel,
    LaunchError,
    LintWarning,
    LoadError,
    Program,
    Result,
    SimtError,
    Sim,
    StepLimit,
    __version__,
    assemble,
    load,
    machines,
    ptx,
    ptx_run,
)

__all__ = [
    "AssemblyError",
    "Deadlock",
    "Fault",
    "Kernel",
    "LaunchError",
    "LintWarning",
    "LoadError",
    "Program",
    "Result",
    "SimtError",
    "Sim",
    "StepLimit",
    "__version__",
    "assemble",
    "load",
    "machines",
    "ptx",
    "ptx_run",
]
