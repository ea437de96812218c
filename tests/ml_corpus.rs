//! The ML compilers' corpora (`tests/ml/`: PTX that Triton and tinygrad emitted, with numpy
//! inputs and references) run through `simt run` as their manifests say, under both SIMT
//! models and timed on the h100 model (b200 for Blackwell's, sm_100a and sm_120a), and compared with the references by each kernel's
//! tolerance, and through `libgpuocelot.so`'s `ptx_run` over host memory as tinygrad's mock
//! CUDA driver calls it (tinygrad's kernels without tensor cores retargeted to the `sm_35`
//! the mock asks for).
//! Kernels the front end does not run yet are listed in `NOT_YET` with the reason;
//! the test fails when one of them starts to run (so the list only shrinks) and when any
//! other kernel fails.

#[path = "support/ocelot.rs"]
mod ocelot;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use simt_io::Element;
use simt_io::npy::{self, Dtype};

/// Kernels refused today, with what refuses them (see `tests/ml/README.md`).
const NOT_YET: &[(&str, &str)] = &[];

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ml").join(name)
}

/// Elements as f64 (exact for every dtype the corpora use).
fn values(a: &npy::Array) -> Vec<f64> {
    simt_io::elements(a.dtype.elem(), &a.data).map(Element::value).collect()
}

/// Where `got` differs from `want` beyond the tolerance; bits must agree where it is exact.
fn mismatch(got: &npy::Array, want: &npy::Array, tolerance: &Value) -> Option<String> {
    if got.data.len() != want.data.len() {
        return Some(format!("{} bytes, expected {}", got.data.len(), want.data.len()));
    }
    let exact = tolerance["kind"] == "exact" || !matches!(want.dtype, Dtype::F16 | Dtype::F32 | Dtype::F64);
    if exact {
        let at = got.data.iter().zip(&want.data).position(|(a, b)| a != b)?;
        return Some(format!("byte {at} differs ({} bytes compared, exact)", got.data.len()));
    }
    let (rtol, atol) = (tolerance["rtol"].as_f64().unwrap(), tolerance["atol"].as_f64().unwrap());
    // Read the dump as the reference's dtype: a buffer may come back under another of its width.
    let got = values(&npy::Array { dtype: want.dtype, shape: got.shape.clone(), data: got.data.clone() });
    let want = values(want);
    let bad = (0..want.len()).find(|&i| !((got[i] - want[i]).abs() <= atol + rtol * want[i].abs() || got[i].is_nan() && want[i].is_nan()))?;
    Some(format!("[{bad}] = {}, expected {} (rtol {rtol}, atol {atol})", got[bad], want[bad]))
}

/// Runs one kernel as its manifest says, with `extra` flags, from its PTX or from `source`
/// in its place; the failure, if any.
fn run(dir: &Path, kernel: &Value, extra: &[&str], source: Option<&Path>) -> Option<String> {
    let scratch = tempfile::tempdir().unwrap();
    let command = kernel["simt_command"].as_str().unwrap();
    // shlex's quoting: a word with brackets (`tensormap(...)`) comes in single quotes, and no
    // word of the corpora holds a space or a quote of its own.
    let mut args: Vec<String> = command.split_whitespace().skip(1).map(|w| w.trim_matches('\'').to_string()).collect();
    if let Some(source) = source {
        args[1] = source.display().to_string();
    }
    for i in 1..args.len() {
        if args[i - 1] == "--dump" {
            let (name, file) = args[i].split_once('=').unwrap();
            args[i] = format!("{name}={}", scratch.path().join(file).display());
        }
    }
    let out = Command::new(env!("CARGO_BIN_EXE_simt")).args(&args).args(extra).current_dir(dir).output().unwrap();
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Some(format!("exit {}: {}", out.status, stderr.lines().next().unwrap_or("")));
    }
    for output in kernel["outputs"].as_array().unwrap() {
        let param = output["param"].as_str().unwrap();
        let got = npy::read(&std::fs::read(scratch.path().join(format!("out.{param}.npy"))).unwrap()).unwrap();
        let want = npy::read(&std::fs::read(dir.join(output["expected"].as_str().unwrap())).unwrap()).unwrap();
        if let Some(why) = mismatch(&got, &want, &kernel["tolerance"]) {
            return Some(format!("{param}: {why}"));
        }
    }
    None
}

/// Runs one kernel through `ptx_run` over host memory holding its inputs; the failure, if any.
fn run_ptx_run(lib: &ocelot::Ocelot, corpus: &str, dir: &Path, kernel: &Value) -> Option<String> {
    let mut ptx = std::fs::read_to_string(dir.join(kernel["file"].as_str().unwrap())).unwrap();
    // What tinygrad writes for the mock's compute capability 3.5; its tensor-core kernels
    // (which it writes only for sm_80 and later) keep their target.
    if corpus == "tinygrad" && !ptx.contains("mma.sync") {
        let at = ptx.find(".target sm_").unwrap() + ".target ".len();
        let end = at + ptx[at..].find(|c: char| c.is_whitespace()).unwrap();
        ptx.replace_range(at..end, "sm_35");
    }
    // Each buffer in 8-byte words, as `malloc` would align it; the inputs' dtypes and shapes.
    let mut buffers: Vec<(&str, Vec<u64>, npy::Array)> = Vec::new();
    let mut scratch: Vec<Vec<u64>> = Vec::new();
    let mut args = Vec::new();
    for param in kernel["params"].as_array().unwrap() {
        let name = param["name"].as_str().unwrap();
        args.push(match param["role"].as_str().unwrap() {
            "buffer" => {
                let array = npy::read(&std::fs::read(dir.join(param["input"].as_str().unwrap())).unwrap()).unwrap();
                let mut words = vec![0u64; array.data.len().div_ceil(8)];
                bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..array.data.len()].copy_from_slice(&array.data);
                let address = words.as_ptr() as u64;
                buffers.push((name, words, array));
                address
            }
            // Triton's global scratch, where a kernel writes the tensor maps it makes.
            "scratch" => {
                let words = vec![0u64; (param["words"].as_u64().unwrap() as usize).div_ceil(2)];
                let address = words.as_ptr() as u64;
                scratch.push(words);
                address
            }
            "scalar" if param["type"] == "fp32" => u64::from((param["value"].as_f64().unwrap() as f32).to_bits()),
            "scalar" => param["value"].as_i64().unwrap() as u64,
            _ => 0,
        });
    }
    let [grid, block] = [&kernel["grid"], &kernel["block"]]
        .map(|d| <[u32; 3]>::try_from(d.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect::<Vec<_>>()).unwrap());
    let error = lib.ptx_run(&ptx, &mut args, block, grid, kernel["shared_bytes"].as_u64().unwrap() as u32);
    if !error.is_empty() {
        return Some(error.lines().next().unwrap_or_default().to_string());
    }
    for output in kernel["outputs"].as_array().unwrap() {
        let param = output["param"].as_str().unwrap();
        let (_, words, input) = buffers.iter().find(|(name, _, _)| *name == param).unwrap();
        let got = npy::Array { dtype: input.dtype, shape: input.shape.clone(), data: bytemuck::cast_slice::<u64, u8>(words)[..input.data.len()].to_vec() };
        let want = npy::read(&std::fs::read(dir.join(output["expected"].as_str().unwrap())).unwrap()).unwrap();
        if let Some(why) = mismatch(&got, &want, &kernel["tolerance"]) {
            return Some(format!("{param}: {why}"));
        }
    }
    None
}

/// Runs the `.s` file `simt ptx` writes of one kernel as its manifest runs the PTX: what a
/// user who edits the listing starts from (Triton's `.extern .shared` arrays included).
fn run_translated(dir: &Path, kernel: &Value) -> Option<String> {
    let scratch = tempfile::tempdir().unwrap();
    let listing = scratch.path().join("kernel.s");
    let out = Command::new(env!("CARGO_BIN_EXE_simt")).args(["ptx", kernel["file"].as_str().unwrap(), "-o"]).arg(&listing).current_dir(dir).output().unwrap();
    if !out.status.success() {
        return Some(format!("simt ptx: {}", String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("")));
    }
    run(dir, kernel, &[], Some(&listing))
}

#[test]
fn ml_corpora_run_and_match_their_references() {
    let lib = ocelot::Ocelot::open();
    let mut failures = Vec::new();
    let mut ran = 0;
    for name in ["triton", "tinygrad"] {
        let dir = corpus(name);
        let manifest: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("kernels.json")).unwrap()).unwrap();
        for kernel in manifest["kernels"].as_array().unwrap() {
            let id = format!("{name}/{}", kernel["name"].as_str().unwrap());
            let refused = NOT_YET.iter().any(|(k, _)| *k == id);
            // Under every sanitizer too: a finding exits 2. What compilers emit is race-free and
            // reads only what it wrote, spilled registers included.
            // Timed on h100, but Blackwell's kernels on b200, simt's one Blackwell machine: datacenter
            // Blackwell's tensor memory and consumer Blackwell's block-scaled mma.sync need its target.
            let machine = if kernel["capability"].as_u64().is_some_and(|c| c >= 100) { "b200" } else { "h100" };
            for extra in [&["--simt", "its"][..], &["--simt", "stack"], &["--timing", machine], &["--check", "racecheck,initcheck,synccheck"]] {
                match (run(&dir, kernel, extra, None), refused) {
                    (Some(why), false) => failures.push(format!("{id} {}: {why}", extra.join(" "))),
                    (None, true) => failures.push(format!("{id} {}: runs now; take it off NOT_YET", extra.join(" "))),
                    _ => {}
                }
                if refused {
                    break;
                }
            }
            // `ptx_run` lends the memory its pointer arguments name, not what a tensor map or a
            // table of pointers points to; its callers (tinygrad's CI) pass neither.
            let indirect = kernel["params"].as_array().unwrap().iter().any(|p| p["role"] == "tensormap" || p["role"] == "pointers");
            if !refused
                && !indirect
                && let Some(why) = run_ptx_run(&lib, name, &dir, kernel)
            {
                failures.push(format!("{id} through ptx_run: {why}"));
            }
            if !refused && let Some(why) = run_translated(&dir, kernel) {
                failures.push(format!("{id} as `simt ptx` writes it: {why}"));
            }
            ran += 1;
        }
    }
    assert!(ran >= 100, "only {ran} kernels in the corpora");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
