"""Run a sweep manifest from Python, on any ``concurrent.futures`` executor or a Dask cluster.

``simt sweep PLAN --emit slurm DIR`` writes ``DIR/manifest.jsonl``: one job a line, with
its key, the folder it starts in, its records folder and the arguments of ``simt run``.
Each job here runs as its own ``simt run --record`` process, exactly as the local pool
and the Slurm array run it, so the records (and ``simt collect``'s table) are the same
whichever ran them. Jobs that already have a record are skipped.

```python
import tempfile
from concurrent.futures import ThreadPoolExecutor
import simt.sweep
manifest = simt.sweep.emit("examples/sweeps/grade-students.toml", tempfile.mkdtemp())
with ThreadPoolExecutor(2) as pool:
    records = simt.sweep.run(manifest, pool)
[r["status"] for r in records]   # ['ok', 'ok', 'ok', 'fault'] the first time: dave's saxpy faults
```

With Dask: ``client.map(simt.sweep.run_job, simt.sweep.read_manifest(path))`` and
``client.gather`` (``run_job`` is a plain module function, so it pickles).
"""

import json
import os
import pathlib
import shutil
import subprocess
from typing import Any, Dict, List, Optional

__all__ = ["emit", "read_manifest", "simt_binary", "record_of", "run_job", "run"]


def emit(plan: "os.PathLike[str] | str", folder: "os.PathLike[str] | str", simt: Optional[str] = None) -> pathlib.Path:
    """Writes the manifest of sweep ``plan`` into ``folder`` (``simt sweep PLAN --emit slurm
    FOLDER``) and returns its path.

    ```python
    import tempfile, simt.sweep
    manifest = simt.sweep.emit("examples/sweeps/grade-students.toml", tempfile.mkdtemp())
    ```
    """
    subprocess.run([simt or simt_binary(), "sweep", os.fspath(plan), "--emit", "slurm", os.fspath(folder)],
                   check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    return pathlib.Path(folder) / "manifest.jsonl"


def read_manifest(path: "os.PathLike[str] | str") -> List[Dict[str, Any]]:
    """The jobs of a manifest, in order: dicts with ``key``, ``cwd``, ``records`` and ``argv``.

    ```python
    import tempfile, simt.sweep
    jobs = simt.sweep.read_manifest(simt.sweep.emit("examples/sweeps/grade-students.toml", tempfile.mkdtemp()))
    [job["key"] for job in jobs]
    ```
    """
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def simt_binary() -> str:
    """The ``simt`` command to run jobs with: ``$SIMT``, else ``simt`` on ``PATH``.

    ```python
    import subprocess, simt.sweep
    subprocess.run([simt.sweep.simt_binary(), "--version"], check=True)
    ```
    """
    found = os.environ.get("SIMT") or shutil.which("simt")
    if not found:
        raise FileNotFoundError("no simt binary: set SIMT to its path, or put it on PATH (cargo build --release; target/release/simt)")
    return found


def record_of(job: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The job's record, or None when it has none yet.

    ```python
    import tempfile, simt.sweep
    job = simt.sweep.read_manifest(simt.sweep.emit("examples/sweeps/grade-students.toml", tempfile.mkdtemp()))[0]
    simt.sweep.run_job(job)
    simt.sweep.record_of(job)["status"]
    ```
    """
    path = pathlib.Path(job["records"]) / f"{job['key']}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def run_job(job: Dict[str, Any], simt: Optional[str] = None) -> Dict[str, Any]:
    """Runs one job (unless it has a record that did not fail) and returns its record.

    A process that dies without writing its record gives a record-like dict with
    ``status`` ``"crashed"`` and the tail of its stderr as ``error``. A plain module
    function, so it pickles: ``client.map(simt.sweep.run_job, jobs)`` on Dask.

    ```python
    import tempfile, simt.sweep
    jobs = simt.sweep.read_manifest(simt.sweep.emit("examples/sweeps/grade-students.toml", tempfile.mkdtemp()))
    [simt.sweep.run_job(job)["status"] for job in jobs]
    ```
    """
    done = record_of(job)
    if done is not None and done["status"] == "ok":
        return done
    command = [simt or simt_binary(), "run", *job["argv"], "--record", job["records"]]
    proc = subprocess.run(command, cwd=job["cwd"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "NO_COLOR": "1"})
    record = record_of(job)
    if record is not None:
        return record
    tail = proc.stderr.decode("utf-8", "replace")[-4096:].strip()
    return {"key": job["key"], "status": "crashed", "exit_code": proc.returncode, "error": tail or f"simt run exited {proc.returncode} without a record"}


def run(manifest: "os.PathLike[str] | str", executor: Any = None, simt: Optional[str] = None) -> List[Dict[str, Any]]:
    """Runs every job of ``manifest`` on ``executor`` (any ``concurrent.futures.Executor``;
    a thread pool by default: the work happens in child processes) and returns their
    records in manifest order.

    ```python
    import tempfile, simt.sweep
    records = simt.sweep.run(simt.sweep.emit("examples/sweeps/grade-students.toml", tempfile.mkdtemp()))
    ```
    """
    jobs = read_manifest(manifest)
    binary = simt or simt_binary()
    if executor is None:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
            return list(pool.map(run_job, jobs, [binary] * len(jobs)))
    return list(executor.map(run_job, jobs, [binary] * len(jobs)))
