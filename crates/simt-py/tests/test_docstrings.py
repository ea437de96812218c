"""Every public function, class and method of the package documents itself with an
example, and every example runs (from the repository root, as the docstrings say).
Sweep examples run `simt` (`$SIMT`, else `simt` on PATH, as `simt.sweep` does)."""

import doctest
import inspect
import re
import textwrap
from pathlib import Path

import pytest

import simt
import simt.numba
import simt.sweep

ROOT = Path(__file__).resolve().parents[3]
EXCEPTIONS = {"SimtError", "AssemblyError", "LoadError", "LaunchError", "Fault", "Deadlock", "StepLimit"}


def documented():
    """(qualified name, object) for each public callable of the package."""
    for name in simt.__all__:
        if name in EXCEPTIONS or name.startswith("__"):
            continue
        obj = getattr(simt, name)
        yield f"simt.{name}", obj
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if not attr.startswith("_") and callable(member):
                    yield f"simt.{name}.{attr}", member
    for module in (simt.sweep, simt.numba):
        yield module.__name__, module
        for name, obj in vars(module).items():
            if inspect.isfunction(obj) and obj.__module__ == module.__name__ and not name.startswith("_"):
                yield f"{module.__name__}.{name}", obj


def examples(doc):
    return re.findall(r"```python\n(.*?)```", doc or "", flags=re.S)


@pytest.mark.parametrize("name,obj", list(documented()), ids=lambda v: v if isinstance(v, str) else "")
def test_each_public_callable_has_an_example_that_runs(name, obj, monkeypatch):
    doc = inspect.getdoc(obj) or ""
    blocks = [textwrap.dedent(b) for b in examples(doc)]
    assert blocks, f"{name} has no ```python example in its docstring"
    if name.startswith("simt.sweep"):
        try:
            simt.sweep.simt_binary()
        except FileNotFoundError as e:
            pytest.skip(str(e))
    if name.startswith("simt.numba"):
        pytest.importorskip("numba.cuda", reason="numba-cuda is not installed (pip install 'simt[numba]')")
    monkeypatch.chdir(ROOT)
    for block in blocks:
        exec(compile(block, f"<docstring of {name}>", "exec"), {"simt": simt, "np": __import__("numpy")})


def test_the_package_docstring_doctest_passes(monkeypatch):
    monkeypatch.chdir(ROOT)
    failures, tried = doctest.testmod(simt, verbose=False)[:2]
    assert tried and not failures
