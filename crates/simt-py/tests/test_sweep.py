"""A sweep manifest run from Python: a thread pool, a process pool and Dask's
LocalCluster all leave the records (and `simt collect`'s table) the CLI's pool leaves."""

import os
import shutil
import subprocess
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pytest

import simt.sweep
from conftest import ROOT

PLAN = 'out = "s.sweep"\n[[kernel]]\npath = "k/*.s"\n[grid]\nsimt = ["its", "stack"]\ngrid = ["1", "2"]\n'


@pytest.fixture
def binary():
    path = os.environ.get("SIMT") or shutil.which("simt") or str(ROOT / "target" / "release" / "simt")
    if not os.path.exists(path):
        pytest.skip("no simt binary: build it (cargo build --release) or set SIMT")
    return path


def workspace(tmp_path):
    (tmp_path / "k").mkdir()
    for name in ["saxpy.s", "vector_add.s"]:
        shutil.copy(ROOT / "asm" / name, tmp_path / "k" / name)
    (tmp_path / "plan.toml").write_text(PLAN)
    return tmp_path


def emit(binary, d):
    subprocess.run([binary, "sweep", "plan.toml", "--emit", "slurm", "m"], cwd=d, check=True, capture_output=True)
    return d / "m" / "manifest.jsonl"


def table(binary, d):
    return subprocess.run([binary, "collect", "s.sweep"], cwd=d, check=True, capture_output=True).stdout


@pytest.fixture
def reference(binary, tmp_path_factory):
    d = workspace(tmp_path_factory.mktemp("local"))
    subprocess.run([binary, "sweep", "plan.toml"], cwd=d, check=True, capture_output=True)
    return table(binary, d)


@pytest.mark.parametrize("pool", [ThreadPoolExecutor, ProcessPoolExecutor])
def test_a_manifest_through_concurrent_futures(binary, reference, tmp_path, pool):
    d = workspace(tmp_path)
    manifest = emit(binary, d)
    with pool(2) as executor:
        records = simt.sweep.run(manifest, executor, simt=binary)
    assert [r["status"] for r in records] == ["ok"] * 8
    assert [r["key"] for r in records] == [j["key"] for j in simt.sweep.read_manifest(manifest)]
    assert table(binary, d) == reference
    status = subprocess.run([binary, "sweep", "plan.toml", "--status"], cwd=d, check=True, capture_output=True, text=True).stdout
    assert status == "8 jobs: 8 done, 0 failed, 0 missing\n"


def test_a_manifest_through_dask(binary, reference, tmp_path):
    distributed = pytest.importorskip("distributed")
    d = workspace(tmp_path)
    manifest = emit(binary, d)
    jobs = simt.sweep.read_manifest(manifest)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        records = client.gather(client.map(simt.sweep.run_job, jobs, simt=binary))
    assert [r["status"] for r in records] == ["ok"] * 8
    assert table(binary, d) == reference


def test_a_job_that_fails_is_recorded(binary, tmp_path):
    d = workspace(tmp_path)
    (d / "k" / "vector_add.s").write_text(".kernel k\n    FROB R0\n")
    records = simt.sweep.run(emit(binary, d), simt=binary)
    assert sorted(r["status"] for r in records) == ["ok", "ok", "ok", "ok", "rejected", "rejected", "rejected", "rejected"]
    assert any("unknown mnemonic" in (r["error"] or "") for r in records)
