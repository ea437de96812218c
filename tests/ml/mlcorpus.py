"""Shared helpers of gen_triton.py and gen_tinygrad.py: .npy files, PTX parameter lists, manifests.

A corpus is a folder (tests/ml/triton, tests/ml/tinygrad) holding one .ptx file per kernel, a
data/ folder of small .npy inputs and expected outputs, and kernels.json, the manifest that
README.md describes. Everything here is our own code; nothing is copied from Triton or tinygrad.
"""
import hashlib
import json
import os
import re
import shlex
import subprocess
import tempfile

import numpy as np

# The parameter list of an .entry: `.param .u64 .ptr .global .align 1 name` (Triton, LLVM) or
# `.param .u64 name` (tinygrad).
_ENTRY_RE = re.compile(r"\.entry\s+([A-Za-z_$][\w$]*)\s*\((.*?)\)", re.S)


def ptx_entries(ptx):
    """[(entry name, [(param name, PTX type, is_pointer_hint)])] of every .entry in the PTX text."""
    out = []
    for m in _ENTRY_RE.finditer(ptx):
        params = []
        for p in m.group(2).split(","):
            p = " ".join(p.split())
            if not p:
                continue
            # Forms: ".param .u64 .ptr .global .align 1 NAME", ".param .u32 NAME" and, for bytes
            # passed by value (a CUtensorMap), ".param .align 64 .b8 NAME[128]".
            toks = p.split()
            assert toks[0] == ".param", p
            ty = next(t for t in toks[1:] if t not in (".align", ".ptr") and not t[0].isdigit())
            name = toks[-1]
            if name.endswith("]"):
                name, _, size = name[:-1].partition("[")
                ty = f"{ty}[{size}]"
            params.append({"name": name, "ptx_type": ty, "ptr_hint": ".ptr" in toks})
        out.append((m.group(1), params))
    return out


class Corpus:
    """Collects the kernels of one corpus and writes their files and kernels.json."""

    def __init__(self, root, generator, versions, notes, target="sm_80"):
        self.root = root
        self.data = os.path.join(root, "data")
        os.makedirs(self.data, exist_ok=True)
        for d in (root, self.data):
            for f in os.listdir(d):
                if f.endswith((".ptx", ".npy")) or f == "kernels.json":
                    os.remove(os.path.join(d, f))
        self.kernels = []
        self.header = {"generator": generator, "versions": versions, "target": target, "notes": notes}
        self._npy_cache = {}
        self._by_content = {}

    def npy(self, name, array):
        """Write array as data/<name>.npy and return its path relative to the corpus folder.
        The same name twice must be the same data; the same data twice is written once, under
        its first name."""
        array = np.ascontiguousarray(array)
        key = (array.dtype.str, array.shape, hashlib.sha256(array.tobytes()).hexdigest())
        if key in self._by_content:  # the same data under another name: one file
            return self._by_content[key]
        rel = f"data/{name}.npy"
        self._by_content[key] = rel
        if rel in self._npy_cache:
            prev = self._npy_cache[rel]
            assert prev.dtype == array.dtype and prev.shape == array.shape and prev.tobytes() == array.tobytes(), \
                f"{rel} written twice with different data"
            return rel
        self._npy_cache[rel] = array
        np.save(os.path.join(self.root, rel), array, allow_pickle=False)
        return rel

    def ptx(self, name, text):
        rel = f"{name}.ptx"
        with open(os.path.join(self.root, rel), "w") as f:
            f.write(text)
        return rel

    def add(self, kernel):
        names = {k["name"] for k in self.kernels}
        assert kernel["name"] not in names, kernel["name"]
        regs = ptxas_registers(os.path.join(self.root, kernel["file"]), kernel.get("capability", 80))
        if regs is not None:
            kernel["ptxas_registers"] = regs
        kernel["simt_command"] = simt_command(kernel)
        self.kernels.append(kernel)

    def write(self):
        total = 0
        for d in (self.root, self.data):
            for f in os.listdir(d):
                p = os.path.join(d, f)
                if os.path.isfile(p):
                    total += os.path.getsize(p)
        doc = dict(self.header)
        doc["kernel_count"] = len(self.kernels)
        doc["kernels"] = self.kernels
        with open(os.path.join(self.root, "kernels.json"), "w") as f:
            f.write(dumps(doc))
        print(f"{self.root}: {len(self.kernels)} kernels, {total / 1e6:.2f} MB of files")


def _ptxas(capability=80):
    import importlib.util
    spec = importlib.util.find_spec("triton")  # found, not imported
    if spec is None or not spec.submodule_search_locations:
        return None
    # Triton compiles sm_90 and newer with its newer ptxas (and a newer PTX version).
    name = "ptxas" if capability < 90 else "ptxas-blackwell"
    p = os.path.join(list(spec.submodule_search_locations)[0], "backends", "nvidia", "bin", name)
    return p if os.path.exists(p) else None


def ptxas_registers(ptx_path, capability=80):
    """Registers per thread that ptxas (the one the triton wheel bundles) gives the kernel for
    its target (sm_80, sm_89, or sm_90a); it also proves the PTX well-formed. None without ptxas."""
    ptxas = _ptxas(capability)
    if ptxas is None:
        return None
    arch = f"sm_{capability}" if capability < 90 else f"sm_{capability}a"
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([ptxas, f"-arch={arch}", "-v", ptx_path, "-o", os.path.join(d, "k.cubin")],
                           capture_output=True, text=True)
    assert p.returncode == 0, f"ptxas rejects {ptx_path}: {p.stderr}"
    m = re.search(r"Used (\d+) registers", p.stderr + p.stdout)
    return int(m.group(1)) if m else None


def dumps(doc):
    """JSON with one line per kernel field, parameter and output (diffs stay readable)."""
    def one(v):
        return json.dumps(v, separators=(", ", ": "))
    lines = ["{"]
    top = [k for k in doc if k != "kernels"]
    for k in top:
        if isinstance(doc[k], list):
            lines.append(f' {one(k)}: [')
            lines.append(",\n".join("  " + one(x) for x in doc[k]))
            lines.append(" ],")
        else:
            lines.append(f" {one(k)}: {one(doc[k])},")
    lines.append(' "kernels": [')
    ks = []
    for kern in doc["kernels"]:
        fields = []
        for k, v in kern.items():
            if k in ("params", "outputs") and v:
                fields.append(f'   {one(k)}: [\n' + ",\n".join("    " + one(x) for x in v) + "\n   ]")
            else:
                fields.append(f"   {one(k)}: {one(v)}")
        ks.append("  {\n" + ",\n".join(fields) + "\n  }")
    lines.append(",\n".join(ks))
    lines.append(" ]")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == json.loads(json.dumps(doc))
    return text


def simt_command(k):
    """The `simt run` command line that runs kernel k from inside its corpus folder and dumps
    its outputs next to the expected files (out.<param>.npy)."""
    cmd = ["simt", "run", k["file"], "--kernel", k["entry"],
           "--grid", ",".join(map(str, k["grid"])), "--block", ",".join(map(str, k["block"]))]
    if k.get("shared_bytes", 0) > 0:
        cmd += ["--shared-bytes", str(k["shared_bytes"])]
    for p in k["params"]:
        if p["role"] == "buffer":
            cmd += ["--arg", f"{p['name']}=@{p['input']}"]
        elif p["role"] == "scalar":
            cmd += ["--arg", f"{p['name']}={scalar_literal(p)}"]
        elif p["role"] == "tensormap":
            element = f",type={p['element']}" if p.get("element") else ""
            box = ",".join(map(str, p["box"]))
            cmd += ["--arg", f"{p['name']}=tensormap(@{p['input']},box=[{box}],swizzle={p['swizzle']}{element})"]
        elif p["role"] == "pointers":
            cmd += ["--arg", f"{p['name']}=pointers({','.join('@' + f for f in p['inputs'])})"]
        elif p["role"] == "scratch":
            cmd += ["--arg", f"{p['name']}=zeros({p['words']})"]
        elif p["role"] == "unused":
            cmd += ["--arg", f"{p['name']}=0"]
    for o in k["outputs"]:
        cmd += ["--dump", f"{o['param']}=out.{o['param']}.npy"]
    return " ".join(shlex.quote(c) for c in cmd)


def scalar_literal(p):
    """A scalar parameter's value as `simt run --arg` takes it: f32 as its exact bits (0fXXXXXXXX)."""
    if p["ptx_type"] == ".f32" or p.get("type") in ("fp32", "float32"):
        return "0f%08X" % int(np.array(p["value"], np.float32).view(np.uint32))
    return str(int(p["value"]))


def exact():
    return {"kind": "exact"}


def close(rtol, atol, why):
    return {"kind": "close", "rtol": rtol, "atol": atol, "why": why}
