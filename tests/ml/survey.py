"""Surveys what keeps simt's PTX front end from running the ML corpora, construct by construct.

For every kernel of tests/ml/{triton,tinygrad}/kernels.json this runs `simt run` as the
manifest says. When simt refuses the PTX, each error is classified into a construct (the
`.section` DWARF blocks, `.loc ... inlined_at`, an unknown instruction, ...); then the PTX is
rewritten in a scratch copy to get past every construct found, and run again, until it runs or
nothing more can be done. So one kernel yields the whole chain of constructs it needs, not only
the first. Rewrites of two kinds:

- faithful ones change nothing the kernel computes (drop DWARF sections, drop `inlined_at` from
  `.loc`, mark a pointer parameter with `cvta.to.global`, `mov r, var[0]` -> `mov r, var`): a
  kernel that then runs shows what simt would compute once those constructs are supported;
- lossy ones delete every line of an unsupported instruction, only to find what comes next; the
  run result after one of them means nothing and is reported as such.

Usage: python survey.py [--simt PATH] [--out /tmp/ml-survey.md] [--corpus triton,tinygrad] [--only NAME,...]
Needs numpy (for the comparison, from run_corpus.py).
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_corpus as rc  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_ROUNDS = 16

_ERR_RE = re.compile(r"^error: (.*)$")
_LOC_RE = re.compile(r"┌─ (?:.*?):(\d+):(\d+)")


def parse_errors(text):
    """[(message, line or None)] of simt's diagnostics."""
    out = []
    lines = text.splitlines()
    for i, l in enumerate(lines):
        m = _ERR_RE.match(l)
        if not m:
            continue
        line = None
        for j in range(i + 1, min(i + 4, len(lines))):
            mm = _LOC_RE.search(lines[j])
            if mm:
                line = int(mm.group(1))
                break
            if _ERR_RE.match(lines[j]):
                break
        out.append((m.group(1).strip(), line))
    return out


def opcode_of(text):
    t = text.strip()
    t = re.sub(r"^@!?%\w+\s+", "", t)  # guard
    m = re.match(r"([a-z][\w.]*)", t)
    return m.group(1) if m else t.split()[0] if t.split() else ""


def family_of(op):
    """cp.async.cg.shared.global -> cp.async; ldmatrix.sync.aligned.m8n8.x4.shared.b16 -> ldmatrix"""
    parts = op.split(".")
    two = {"cp.async", "mma.sync", "cvt.rn", "ld.global", "st.global", "ld.shared", "st.shared", "atom.global",
           "red.global", "bar.sync", "barrier.sync", "shfl.sync"}
    if ".".join(parts[:2]) in two:
        return ".".join(parts[:2])
    return parts[0]


# ---------------------------------------------------------------- classification

class Construct:
    def __init__(self, key, title, faithful, rewrite, explain=""):
        self.key, self.title, self.faithful, self.rewrite, self.explain = key, title, faithful, rewrite, explain


def _drop_sections(lines):
    out, depth, skipping = [], 0, False
    for no, t in lines:
        s = t.strip()
        if not skipping and s.startswith(".section"):
            depth = s.count("{") - s.count("}")
            skipping = depth > 0 or "{" not in s
            if "{" in s and depth <= 0:
                skipping = False
            continue
        if skipping:
            depth += s.count("{") - s.count("}")
            if depth <= 0 and ("}" in s or "{" in s):
                skipping = False
            continue
        out.append((no, t))
    return out


def _drop_inlined_at(lines):
    return [(no, re.sub(r"^(\s*\.loc\s+\d+\s+\d+\s+\d+)\s*,\s*function_name\s+[^,]+,\s*inlined_at\s+\d+\s+\d+\s+\d+",
                        r"\1", t)) for no, t in lines]


def _drop_file_lines(lines):
    return [(no, t) for no, t in lines if not t.strip().startswith(".file")]


def _drop_loc_lines(lines):
    return [(no, t) for no, t in lines if not t.strip().startswith(".loc")]


def _mark_pointer_params(names):
    def rw(lines):
        out = []
        for no, t in lines:
            out.append((no, t))
            m = re.match(r"\s*ld\.param\.(?:u64|b64|s64)\s+(%\w+)\s*,\s*\[\s*(\w+)\s*(?:\+\s*0\s*)?\]", t)
            if m and m.group(2) in names:
                out.append((no, f"\tcvta.to.global.u64\t{m.group(1)}, {m.group(1)};"))
        return out
    return rw


def _drop_index_zero(lines):
    return [(no, re.sub(r"(\bmov\.[ubs]64\s+%\w+\s*,\s*\w+)\[0\]", r"\1", t)) for no, t in lines]


def _drop_cta(lines):
    return [(no, t.replace("::cta", "")) for no, t in lines]


def _unbrace_single(lines):
    return [(no, re.sub(r"\{\s*(%\w+)\s*\}", r"\1", t) if opcode_of(t).split(".")[0] in ("ld", "st", "atom", "red") else t)
            for no, t in lines]


def _unused_param_to_u32(name):
    def rw(lines):
        return [(no, re.sub(r"\.param\s+\.u64\s+(?:\.ptr\s+)?(?:\.global\s+)?(?:\.align\s+\d+\s+)?" + re.escape(name) + r"\b",
                            ".param .u32 " + name, t)) for no, t in lines]
    return rw


def _size_extern_shared(name):
    def rw(lines, shared_bytes=None):
        return [(no, re.sub(r"\.extern\s+(\.shared\s+(?:\.align\s+\d+\s+)?\.b8\s+" + re.escape(name) + r")\[\]",
                            lambda m: m.group(1) + f"[{max(shared_bytes or 0, 16)}]", t)) for no, t in lines]
    rw.wants_shared = True
    return rw


def _delete_opcode(op):
    def rw(lines):
        return [(no, t) for no, t in lines if opcode_of(t) != op]
    return rw


def _delete_line_no(orig_nos):
    def rw(lines):
        return [(no, t) for no, t in lines if no not in orig_nos]
    return rw


def classify(msg, text, corpus_lines, lossy_so_far=False):
    """A Construct for one diagnostic (msg) at a line whose text is `text`."""
    s = (text or "").strip()
    op = opcode_of(s) if s else ""
    m = re.search(r"invalid --arg (\w+)=@\S+ \(\.param \.u64 \w+\):.*scalar \.u64 parameter takes a literal", msg)
    if m:
        uses = sorted({opcode_of(t) for _, t in corpus_lines if re.match(r"\s*(@!?%\w+\s+)?(ld|st|atom|red)\.global", t)})
        if lossy_so_far:
            return Construct("artifact:param-scalar-after-deletion",
                             "a pointer parameter whose only accesses the survey deleted looks like a 64-bit scalar", True,
                             _mark_pointer_params({m.group(1)}))
        return Construct("u64-param-as-scalar",
                         "pointer parameter taken for a 64-bit scalar (`--arg P=@x.npy` refused: \"a scalar .u64 parameter "
                         "takes a literal\"): its accesses are not traced back to it", True,
                         _mark_pointer_params({m.group(1)}),
                         "seen with `atom.global.gpu.acq_rel.add.u32` (Triton's tl.atomic_add) and `st.global.s64` "
                         "(tinygrad int64) as the only accesses; global accesses in such kernels: " + ", ".join(
                             f"`{u}`" for u in uses[:8]))
    if "`.section`" in msg:
        return Construct("dwarf-section", "`.section .debug_*` DWARF blocks (Triton always emits them)", True, _drop_sections)
    if s.startswith(".loc") and "inlined_at" in s:
        return Construct("loc-inlined-at", "`.loc F L C, function_name $L__info_stringN, inlined_at F L C`", True,
                         _drop_inlined_at)
    if s.startswith(".file"):
        return Construct("file-directive", "`.file N \"path\"` form: " + msg, True, _drop_file_lines)
    if s.startswith(".loc"):
        return Construct("loc-other", "`.loc` form: " + msg, True, _drop_loc_lines)
    m = re.search(r"parameter `(\w+)`: 64-bit integer parameters that are not pointers", msg)
    if m and not any(re.search(r"\[\s*" + re.escape(m.group(1)) + r"\s*(\+\s*\d+\s*)?\]", t) for _, t in corpus_lines):
        return Construct("unused-u64-param",
                         "unused `.param .u64 .ptr .global` parameter (Triton's global_scratch / profile_scratch)", True,
                         _unused_param_to_u32(m.group(1)),
                         "Triton appends two pointer parameters that a kernel without scratch never reads; the launcher "
                         "passes null")
    if m:
        return Construct("u64-param-not-pointer",
                         "pointer parameter not recognised: its value reaches the loads/stores only as the addend of "
                         "`mad.lo.s64` (tinygrad) or `mad.wide.s32` (Triton), never through `cvta`", True,
                         _mark_pointer_params({m.group(1)}),
                         "tinygrad: `ld.param.u64 %dat_u64_0, [data0+0];` then `mad.lo.s64 %bidx_u64_0, %bidx_u64_0, 4, "
                         "%dat_u64_0;` then `st.global.f32 [%bidx_u64_0+0], ...`. Triton: `ld.param.b64 %rd3, "
                         "[softmax_kernel_param_0];` then `mad.wide.s32 %rd7, %r51, 4, %rd3;` `add.s64 %rd2, %rd7, %rd6;`. "
                         "simt's message: `64-bit integer parameters that are not pointers into global memory are not "
                         "supported`. The survey inserts `cvta.to.global.u64 %d, %d;` after the `ld.param`")
    if re.search(r"expected `;` after the statement, found `\[`", msg) and re.search(r"\bmov\.[ubs]64\s+%\w+\s*,\s*\w+\[0\]", s):
        return Construct("mov-var-index", "`mov.u64 %r, local0[0]` (address of a variable with an index)", True, _drop_index_zero)
    m = re.match(r"`(\w+)`: arrays of unknown size", msg)
    if m:
        return Construct("extern-shared", "`.extern .shared .b8 global_smem[]` (dynamic shared memory)", True,
                         _size_extern_shared(m.group(1)),
                         "its size is the launch's dynamic shared memory: the manifest's shared_bytes")
    m = re.search(r"unsupported \.npy dtype \"([^\"]+)\"", msg)
    if m:
        return Construct("npy-dtype-unread", "`.npy` inputs of int64 / bool (`<i8`, `|b1`) are not read by `--arg`", True,
                         "raw-args", "the survey passes raw .bin inputs instead")
    m = re.match(r"argument `(\w+)` \(--arg\) for `\.param \.ptr\.(\w+) \w+`: (\S+) holds dtype (\S+)", msg)
    if m:
        return Construct("npy-dtype-vs-inferred-element",
                         "`--arg P=@x.npy` refused: the .npy dtype (f32, f16, ...) differs from the element type simt "
                         "inferred for the pointer (`b32` from Triton's `ld.global.b32`, `u32` when no access is traced)",
                         True, "raw-args",
                         "the survey passes raw .bin inputs instead. Triton accesses floats as `.b32`; for tinygrad the "
                         "element type falls back to u32 because the accesses through `mad.lo.s64`-computed addresses "
                         "are not traced back to the parameter")
    if re.search(r"\{\s*%\w+\s*\}", s) and op.split(".")[0] in ("ld", "st", "atom", "red"):
        return Construct("single-element-braces", "`ld`/`st` with a one-register vector `{ %r1 }` (Triton's inline asm)",
                         True, _unbrace_single, "Triton writes `@%p1 ld.global.b32 { %r1 }, [ %rd1 + 0 ];` for every "
                         "scalar load and store")
    if re.search(r"\bmov\.b(32|64)\s+%\w+\s*,\s*\{", s):
        return Construct("mov-pack-vector", "`mov.b32 %r, {%h0, %h1}` (pack two 16-bit registers into 32 bits)", False,
                         None)
    if re.search(r"\bmov\.b(32|64)\s+\{", s):
        return Construct("mov-unpack-vector", "`mov.b32 {%h0, %h1}, %r` (unpack 32 bits into two 16-bit registers)", False,
                         None)
    if "::cta" in s or "::cluster" in s:
        return Construct("state-space-cta", "`.shared::cta` state space (`st.shared::cta.b32`, `ld.shared::cta`)", True,
                         _drop_cta, "the `::cta` sub-qualifier means plain `.shared` for a kernel without clusters")
    if "more registers are live here than simt has" in msg:
        return Construct("register-pressure", "more live registers than simt's 255 (`R0`-`R254`)", False, "stop",
                         "Triton's FMA matmul keeps a 64x64 f32 tile in 128 threads (32 accumulators each) plus "
                         "prefetched operands; ptxas fits these kernels in 222 registers (the manifests' "
                         "`ptxas_registers`), simt's allocation (64-bit values in register pairs) runs out")
    m = re.match(r"`([^`]+)` is not supported by the PTX front end yet", msg)
    if m:
        if "f16x2" in m.group(1) or "bf16x2" in m.group(1):
            return Construct("packed-f16x2-arith", "packed half2 arithmetic (`fma.rn.f16x2`, `neg.f16x2`, ...)", False, None)
        if m.group(1).endswith(".f16"):
            return Construct("f16-scalar-arith", "scalar f16 arithmetic (`mul.f16`, `max.f16`, `ex2.approx.f16`, ...)",
                             False, None)
        if m.group(1).startswith("mma"):
            return Construct(f"unsupported-mma:{m.group(1)}", f"`{m.group(1)}` (simt has m16n8k16 f16/bf16 only)",
                             False, None)
        return Construct(f"unsupported:{m.group(1)}", f"`{m.group(1)}` (not supported by the front end yet)", False, None)
    m = re.match(r"unknown instruction `([^`]*)`", msg)
    if m:
        fam = family_of(op)
        return Construct(f"unknown:{fam}", f"unknown instruction `{fam}` (e.g. `{op}`)", False, _delete_opcode(op))
    m = re.match(r"`([^`]+)` takes (\d+) operands?, found (\d+)", msg)
    if m and re.match(r"cvt\.\w+\.b?f16x2\.f32", m.group(1)):
        return Construct("cvt-x2-pack", "`cvt.rn.f16x2.f32 d, a, b` / `cvt.rn.bf16x2.f32` (convert and pack two floats)",
                         False, None)
    if m:
        return Construct(f"operands:{m.group(1)}", f"`{m.group(1)}` with {m.group(3)} operands (simt takes {m.group(2)})",
                         False, _delete_opcode(op))
    # anything else: key on the message with numbers and names blurred, delete the lines of that opcode
    blurred = re.sub(r"`[^`]*`", "`…`", msg)
    blurred = re.sub(r"\d+", "N", blurred)
    fam = family_of(op) if op else "?"
    return Construct(f"other:{fam}:{blurred}", f"{msg}", False, None)


# ---------------------------------------------------------------- one kernel

def _is_syntax(msg):
    return (msg.startswith("expected") or msg.startswith("unknown instruction") or "`.section`" in msg
            or re.search(r"takes \d+ operands?, found", msg) is not None or "needs a type such as" in msg)


def survey_kernel(corpus_dir, kernel, simt, timeout, scratch):
    src = open(os.path.join(corpus_dir, kernel["file"])).read().splitlines()
    lines = [(i + 1, t) for i, t in enumerate(src)]
    chain = []  # [(construct, [(orig line, text, msg)])]
    applied = []  # [(key, rewrite)] in order
    keys = {}
    lossy = raw = False
    first_error = None
    outcome = None
    for rnd in range(MAX_ROUNDS):
        path = os.path.join(scratch, os.path.basename(kernel["file"]))
        with open(path, "w") as f:
            f.write("\n".join(t for _, t in lines) + "\n")
        r = rc.run_kernel(corpus_dir, kernel, simt, timeout, ptx=path, raw=raw)
        if r["status"] != "refused":
            outcome = r
            break
        errs = parse_errors(r["message"])
        if first_error is None:
            first_error = r["message"].split("\n\n")[0].strip()
        if not errs:
            outcome = {"status": "refused", "message": r["message"]}
            break
        syntax = [e for e in errs if _is_syntax(e[0])]
        if syntax:  # rewrite what the parser refuses first: later errors may only follow from it
            errs = syntax
        found = collections.OrderedDict()
        seen_lines = set()
        for msg, ln in errs:
            if ln is not None and ln in seen_lines:
                continue  # one construct per line: the first diagnostic
            seen_lines.add(ln)
            text = lines[ln - 1][1] if ln and ln <= len(lines) else ""
            orig = lines[ln - 1][0] if ln and ln <= len(lines) else None
            c = classify(msg, text, lines, lossy)
            found.setdefault(c.key, (c, []))[1].append((orig, text.strip(), msg))
        progressed = False
        for key, (c, sites) in found.items():
            if key not in keys:
                keys[key] = len(chain)
                chain.append((c, list(sites)))
            else:
                chain[keys[key]][1].extend(sites)
            if c.rewrite == "stop":  # nothing to rewrite: deleting lines would not get past it
                continue
            if c.rewrite == "raw-args":
                progressed |= not raw
                raw = True
                applied.append((key, "raw-args"))
                continue
            if c.rewrite is None or (not c.faithful and not c.key.startswith("unknown:")):
                rw = _delete_line_no({o for o, _, _ in sites if o is not None})
            else:
                rw = c.rewrite
            new = _apply(rw, lines, kernel)
            if new != lines:
                lines = new
                progressed = True
                lossy |= not c.faithful
                applied.append((key, rw))
        if not progressed:
            outcome = {"status": "stuck", "message": r["message"].split("\n\n")[0]}
            break
    else:
        outcome = {"status": "stuck", "message": f"still refused after {MAX_ROUNDS} rounds"}
    # Ablation: a faithful rewrite whose removal changes nothing was not needed (its error only
    # followed from another construct); it leaves the chain.
    unneeded = []
    if outcome["status"] in ("pass", "mismatch", "fault", "timeout"):
        for c, _ in list(chain):
            if not c.faithful:
                continue
            rest = [(k, rw) for k, rw in applied if k != c.key]
            if len(rest) == len(applied):
                continue
            trial = [(i + 1, t) for i, t in enumerate(src)]
            trial_raw = False
            for k, rw in rest:
                if rw == "raw-args":
                    trial_raw = True
                else:
                    trial = _apply(rw, trial, kernel)
            path = os.path.join(scratch, os.path.basename(kernel["file"]))
            with open(path, "w") as f:
                f.write("\n".join(t for _, t in trial) + "\n")
            r = rc.run_kernel(corpus_dir, kernel, simt, timeout, ptx=path, raw=trial_raw)
            if r["status"] == outcome["status"]:
                unneeded.append(c.key)
                applied = rest
        chain = [(c, sites) for c, sites in chain if c.key not in unneeded]
    return {"first_error": first_error, "chain": chain, "lossy": lossy, "outcome": outcome, "unneeded": unneeded}


def _apply(rw, lines, kernel):
    return rw(lines, kernel.get("shared_bytes", 0)) if getattr(rw, "wants_shared", False) else rw(lines)


# ---------------------------------------------------------------- report

SUSPECT = [
    ("`mad.lo.cc.u32` / `mad.hi.cc.u32`: the carry-out is dropped", r"\bmad\.(lo|hi)\.cc\.",
     "simt makes a plain `IMAD` of it (`simt ptx` shows `mad.lo.cc.u32` -> `IMAD`), while `add.cc` is refused as "
     "the docs say; here only the following `madc` is refused, so the pair is caught, but `.cc` alone is not. "
     "libdevice's sin/cos range reduction (Payne-Hanek) uses the pair."),
]


def first_line(s):
    return (s or "").strip().splitlines()[0] if s else ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--simt", default=shutil.which("simt") or "simt")
    ap.add_argument("--out", default="/tmp/ml-survey.md")
    ap.add_argument("--corpus", default="triton,tinygrad")
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--json", default="")
    ap.add_argument("--label", default="", help="what the simt binary is (say, the commit it was built from)")
    ap.add_argument("--compare", default="", help="a --json file of an earlier survey: list what it had that is gone")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    version = subprocess.run([args.simt, "--version"], capture_output=True, text=True).stdout.strip()
    rows = []
    scratch = tempfile.mkdtemp(prefix="simt-ml-survey-")
    try:
        for corpus in args.corpus.split(","):
            cdir = os.path.join(HERE, corpus)
            manifest = json.load(open(os.path.join(cdir, "kernels.json")))
            for k in manifest["kernels"]:
                if only and k["name"] not in only:
                    continue
                s = survey_kernel(cdir, k, args.simt, args.timeout, scratch)
                s.update(corpus=corpus, kernel=k)
                rows.append(s)
                o = s["outcome"]
                print(f"{corpus}/{k['name']}: {' -> '.join(c.key for c, _ in s['chain']) or '-'}  => {o['status']}"
                      f"{' (lossy)' if s['lossy'] and o['status'] in ('pass', 'mismatch', 'fault') else ''}", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report = render(rows, version, args)
    with open(args.out, "w") as f:
        f.write(report)
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"corpus": r["corpus"], "kernel": r["kernel"]["name"], "first_error": r["first_error"],
                        "chain": [c.key for c, _ in r["chain"]], "lossy": r["lossy"],
                        "outcome": r["outcome"]["status"], "message": r["outcome"].get("message", "")} for r in rows],
                      f, indent=1)
    print(f"wrote {args.out}")


def render(rows, version, args):
    by = collections.OrderedDict()
    first = collections.Counter()
    for r in rows:
        for i, (c, sites) in enumerate(r["chain"]):
            e = by.setdefault(c.key, {"c": c, "kernels": [], "example": None, "sites": 0, "all_sites": []})
            e["kernels"].append(f"{r['corpus']}/{r['kernel']['name']}")
            e["sites"] += len(sites)
            e["all_sites"].extend(sites)
            if e["example"] is None:
                o, t, m = sites[0]
                e["example"] = (r["corpus"], r["kernel"]["file"], o, t, m)
            if i == 0:
                first[c.key] += 1
    artifacts = {k: v for k, v in by.items() if k.startswith("artifact:")}
    by = collections.OrderedDict((k, v) for k, v in by.items() if not k.startswith("artifact:"))
    for r in rows:
        r["chain"] = [(c, st) for c, st in r["chain"] if not c.key.startswith("artifact:")]
    ranked = sorted(by.items(), key=lambda kv: (-len(kv[1]["kernels"]), -first[kv[0]], kv[0]))
    n = len(rows)
    per_corpus = collections.Counter(r["corpus"] for r in rows)
    status = collections.Counter()
    for r in rows:
        st = r["outcome"]["status"]
        if not r["chain"]:
            status[f"runs as is: {st}"] += 1
        elif r["lossy"] and st in ("pass", "mismatch", "fault", "timeout"):
            status["runs only after deleting unsupported instructions (result meaningless)"] += 1
        elif st in ("pass", "mismatch", "fault", "timeout"):
            status[f"after faithful rewrites only: {st}"] += 1
        else:
            status[f"still refused after rewrites ({st})"] += 1
    L = []
    L.append("# simt on ML-compiler PTX: survey\n")
    L.append(f"simt: `{version}` ({args.simt}{'; ' + args.label if args.label else ''}); corpora: " + ", ".join(f"{c} ({k} kernels)" for c, k in per_corpus.items())
             + f"; {n} kernels in all. Produced by `tests/ml/survey.py`.\n")
    as_is = sum(1 for r in rows if not r["chain"] and r["outcome"]["status"] == "pass")
    L.append(f"**As is: {as_is}/{n} kernels run and match their reference.**\n")
    L.append("## Summary: constructs ranked by how many kernels they block\n")
    L.append("A kernel counts under every construct in its chain (it needs all of them); `first` counts the kernels "
             "where the construct is the first error simt reports today. `faithful` means the survey could rewrite "
             "the construct away without changing what the kernel computes (so the kernels behind it could be run).\n")
    L.append("| # | construct | kernels blocked (triton / tinygrad) | first | faithful rewrite | representative example |")
    L.append("|---|---|---|---|---|---|")
    for i, (key, e) in enumerate(ranked, 1):
        kc = collections.Counter(k.split("/")[0] for k in e["kernels"])
        corpus, file, o, t, m = e["example"]
        ex = f"`{corpus}/{file}:{o}`: `{t[:110]}`" if o is not None else f"`{corpus}/{file}`: {m[:160]}"
        L.append(f"| {i} | {e['c'].title} | {len(e['kernels'])} ({kc.get('triton', 0)} / {kc.get('tinygrad', 0)}) | "
                 f"{first[key]} | {'yes' if e['c'].faithful else 'no (lines deleted)'} | {ex} |")
    L.append("")
    if args.compare:
        old = json.load(open(args.compare))
        before = collections.Counter(k for r in old for k in r["chain"])
        now = collections.Counter(k for r in rows for k, in [(c.key,) for c, _ in r["chain"]])
        gone = [k for k in before if k not in now]
        L.append(f"Since the earlier survey (`{os.path.basename(args.compare)}`: {sum(1 for r in old if not r['chain'] and r['outcome'] == 'pass')} "
                 f"kernels ran as is then), these constructs no longer stop any kernel: "
                 + (", ".join(f"`{k}` ({before[k]} kernels)" for k in gone) if gone else "none") + ".\n")
    L.append("## Order of work: constructs to support, greedily, for the most kernels running\n")
    L.append("Each step adds the construct that lets the most further kernels through (a kernel is through when every "
             "construct of its chain is supported). `pass` counts kernels known to match their reference then (their "
             "chain had only faithful rewrites and the run passed); `through` also counts kernels whose chain needed "
             "lossy rewrites (their result is unknown until the missing instructions exist).\n")
    L.append("| step | support | through (cumulative) | of which known to pass |")
    L.append("|---|---|---|---|")
    chains = [({c.key for c, _ in r["chain"]}, (not r["lossy"]) and r["outcome"]["status"] == "pass") for r in rows]
    done, step = set(), 0
    left = {k for ch, _ in chains for k in ch}
    while left:
        def gain(k):
            return sum(1 for ch, _ in chains if ch and ch <= done | {k} and not ch <= done)
        best = max(sorted(left), key=lambda k: (gain(k), len(by[k]["kernels"])))
        done.add(best)
        left.discard(best)
        step += 1
        through = sum(1 for ch, _ in chains if ch <= done)
        known = sum(1 for ch, ok in chains if ch <= done and ok)
        L.append(f"| {step} | {by[best]['c'].title} | {through} | {known} |")
    L.append("")
    for k, v in artifacts.items():
        L.append(f"(Not counted: {len(v['kernels'])} kernels met `{k}`, {v['c'].title}, an effect of the survey's own "
                 f"line deletions: {', '.join(v['kernels'])}.)\n")
    L.append("Outcome after the survey's rewrites:\n")
    for k, v in status.most_common():
        L.append(f"- {k}: {v}")
    L.append("")
    L.append("## Accepted but suspect\n")
    L.append("Constructs simt translates without a word although the translation cannot be right; found by "
             "scanning the PTX, not by a refusal.\n")
    for title, rx, why in SUSPECT:
        hits = []
        for r in rows:
            text = open(os.path.join(HERE, r["corpus"], r["kernel"]["file"])).read().splitlines()
            nos = [i + 1 for i, t in enumerate(text) if re.search(rx, t)]
            if nos:
                hits.append((f"{r['corpus']}/{r['kernel']['file']}", nos, text[nos[0] - 1].strip()))
        if hits:
            L.append(f"- **{title}**: {len(hits)} kernels ({', '.join(h[0] for h in hits)}); e.g. "
                     f"`{hits[0][0]}` line {hits[0][1][0]}: `{hits[0][2]}`. {why}")
        else:
            L.append(f"- {title}: not in these corpora.")
    L.append("")
    L.append("## Constructs in detail\n")
    for i, (key, e) in enumerate(ranked, 1):
        corpus, file, o, t, m = e["example"]
        L.append(f"### {i}. {e['c'].title}\n")
        L.append(f"- key `{key}`; {len(e['kernels'])} kernels, {e['sites']} diagnostics in all")
        L.append(f"- simt says: `{m}`")
        if o is not None:
            L.append(f"- example `{corpus}/{file}` line {o}: `{t}`")
        forms = collections.Counter(opcode_of(x[1]) for x in e["all_sites"] if x[1])
        if forms and (key.startswith(("unknown:", "unsupported", "cvt-", "mov-", "f16-", "packed-", "single-",
                                       "state-", "register-"))):
            L.append("- forms seen (lines): " + ", ".join(f"`{f}` ({n})" for f, n in forms.most_common()))
        if e["c"].explain:
            L.append(f"- {e['c'].explain}")
        L.append(f"- kernels: {', '.join(e['kernels'])}")
        L.append("")
    L.append("## Per kernel\n")
    L.append("`first error` is simt's first diagnostic on the unmodified PTX; `chain` the constructs met in order; "
             "`after rewrites` what simt did once the chain was rewritten away (meaningless after a lossy rewrite).\n")
    L.append("| kernel | first error (line) | chain | after rewrites |")
    L.append("|---|---|---|---|")
    for r in rows:
        fe = r["first_error"] or ""
        fl = first_line(fe).removeprefix("error: ")
        m = _LOC_RE.search(fe)
        loc = f" (line {m.group(1)})" if m else ""
        o = r["outcome"]
        res = o["status"]
        if r["lossy"] and res in ("pass", "mismatch", "fault", "timeout"):
            res += " (lossy: meaningless)"
        detail = first_line(o.get("message", ""))[:160]
        if detail and o["status"] != "pass" and not (r["lossy"] and res.endswith("meaningless)")):
            res += f": {detail}"
        L.append(f"| {r['corpus']}/{r['kernel']['name']} | {fl[:140]}{loc} | "
                 f"{' → '.join(c.key for c, _ in r['chain']) or '—'} | {res.replace('|', '/')} |")
    L.append("")
    return "\n".join(L)


if __name__ == "__main__":
    main()
