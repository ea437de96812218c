"""Type stubs of the simt package (the extension module simt._simt)."""

from os import PathLike
from typing import Any, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

Dims = Union[int, Tuple[int], Tuple[int, int], Tuple[int, int, int], Sequence[int]]
# A list of arrays is a table of pointers to them (the command line's pointers(...)).
ArgValue = Union[npt.NDArray[Any], Sequence[npt.NDArray[Any]], int, float, str]

class SimtError(Exception):
    """Base class of every error simt raises."""

class AssemblyError(SimtError):
    """Source that does not assemble; str(e) is the rendered diagnostic."""
    file: str
    line: int
    column: int
    count: int

class LintWarning(UserWarning):
    """Findings of the divergence lints at the warn level; str(w.message) is the rendered text."""

class LoadError(SimtError):
    """A file that is neither simt source nor bytecode this version reads."""

class LaunchError(SimtError):
    """A launch rejected before it ran: dimensions, arguments, resources."""

class Fault(SimtError):
    """A kernel fault; str(e) is the rendered fault with its source line."""
    kind: str
    reason: str
    kernel: str
    block: Tuple[int, int, int]
    thread: Optional[Tuple[int, int, int]]
    warp: Optional[int]
    lane: Optional[int]
    pc: Optional[int]
    line: Optional[int]
    notes: List[str]
    printed: str

class Deadlock(Fault):
    """Threads that wait for each other forever."""

class StepLimit(Fault):
    """A launch that issued more warp instructions than max_steps allows."""

class Result:
    """What a run left: buffers as numpy arrays (a writeable argument array as itself, holding
    what the kernel stored), statistics, timing and trace."""
    kernel: str
    grid: Tuple[int, int, int]
    block: Tuple[int, int, int]
    buffers: Dict[str, npt.NDArray[Any]]
    stats: Dict[str, Any]
    timing: Optional[Dict[str, Any]]
    trace: Optional[List[Dict[str, Any]]]
    findings: List[Dict[str, Any]]
    printed: str
    def __getitem__(self, name: str) -> npt.NDArray[Any]: ...
    def trace_table(self) -> Optional[Dict[str, Any]]: ...
    def report(self, path: Union[str, "PathLike[str]"]) -> None: ...
    def _repr_svg_(self) -> Optional[str]: ...

class Sim:
    """A launch stepped one warp instruction at a time (Kernel.launch)."""
    block: Optional[int]
    steps: int
    stats: Dict[str, Any]
    def step(self, warp: Optional[int] = None) -> Optional[Dict[str, Any]]: ...
    def warp(self, block: int, warp: int) -> Dict[str, Any]: ...
    def run(self, breakpoints: Optional[Sequence[int]] = None) -> Optional[Result]: ...

class Kernel:
    """One kernel of a program."""
    name: str
    params: List[Tuple[str, str]]
    launch_dims: Optional[Tuple[Tuple[int, int, int], Tuple[int, int, int]]]
    defaults: Dict[str, str]
    regs: int
    shared_bytes: int
    def disasm(self) -> str: ...
    def run(
        self,
        *,
        grid: Optional[Dims] = None,
        block: Optional[Dims] = None,
        args: Optional[Union[Mapping[str, ArgValue], Sequence[ArgValue]]] = None,
        model: Literal["its", "stack"] = "its",
        timing: Optional[str] = None,
        sanitize: Optional[Sequence[Literal["memcheck", "racecheck", "initcheck", "synccheck"]]] = None,
        max_steps: Optional[int] = None,
        threads: Optional[int] = None,
        trace: bool = False,
        trace_block: Optional[int] = None,
        trace_warp: Optional[int] = None,
        raw: bool = False,
        memory_report: bool = False,
        shared: int = 0,
        its_yield: int = 16,
        printf_limit: int = 67108864,
    ) -> Result: ...
    def launch(
        self,
        *,
        grid: Optional[Dims] = None,
        block: Optional[Dims] = None,
        args: Optional[Union[Mapping[str, ArgValue], Sequence[ArgValue]]] = None,
        model: Literal["its", "stack"] = "its",
        sanitize: Optional[Sequence[Literal["memcheck", "racecheck", "initcheck", "synccheck"]]] = None,
        max_steps: Optional[int] = None,
        shared: int = 0,
        its_yield: int = 16,
    ) -> Sim: ...

class Program:
    """An assembled or loaded module."""
    kernels: List[Kernel]
    source_name: str
    def __getitem__(self, name: str) -> Kernel: ...
    def __len__(self) -> int: ...
    def disasm(self) -> str: ...
    def to_bytes(self) -> bytes: ...

Lint = Literal["loop_divergence", "divergent_barrier", "unreachable_code", "uninit_read", "warnings"]

def assemble(
    source: str,
    name: str = "<source>",
    *,
    allow: Optional[Sequence[Lint]] = None,
    warn: Optional[Sequence[Lint]] = None,
    deny: Optional[Sequence[Lint]] = None,
) -> Program: ...
def ptx(source: str, name: str = "<source>.ptx") -> Program: ...
def load(
    path: Union[str, "PathLike[str]"],
    *,
    allow: Optional[Sequence[Lint]] = None,
    warn: Optional[Sequence[Lint]] = None,
    deny: Optional[Sequence[Lint]] = None,
) -> Program: ...
def ptx_run(
    ptx: str,
    args: Sequence[Union["np.ndarray", int, float]],
    grid: Union[int, Sequence[int]],
    block: Union[int, Sequence[int]],
    shared: int = 0,
) -> None: ...
def machines() -> Dict[str, str]: ...
