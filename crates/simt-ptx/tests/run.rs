//! The corpus run end to end: every fixture of `tests/ptx` (clang's at -O3 and -O0 in
//! `fixtures/`, NVRTC's, which is nvcc's device compiler, in `fixtures-nvrtc/`) is
//! translated; every one that translates runs under both SIMT models and on the timing
//! backend's `h100` with the manifest's inputs and must match its Rust reference
//! (`tests/ptx/reference.rs`) within the manifest's tolerance. The
//! fixtures that do not translate yet are recorded with their first refusal in a
//! snapshot, so a change in either direction shows up in review.

#[path = "../../../tests/ptx/reference.rs"]
#[allow(dead_code)]
mod reference;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use reference::{Buffer, Inputs, Value};
use simt_host::{Arg, LaunchRequest, prepare};
use simt_interp::{RunOptions, SimtModel, run};
use simt_isa::{ArgInit, ElemType};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ptx")
}

struct Param {
    name: String,
    ty: String,
}

struct Kernel {
    entry: String,
    params: Vec<Param>,
    grid: [u32; 3],
    block: [u32; 3],
    inputs: BTreeMap<String, String>,
    outputs: Vec<String>,
    /// `None` for exact, else (relative, absolute).
    tolerance: Option<(f64, f64)>,
    targets: Vec<String>,
    /// Whether clang compiles it too (else NVRTC alone: `compilers = ["nvrtc"]`).
    clang: bool,
}

fn dims(v: &toml::Value) -> [u32; 3] {
    let list: Vec<u32> = v.as_array().expect("dims").iter().map(|x| x.as_integer().expect("dim") as u32).collect();
    [list[0], list.get(1).copied().unwrap_or(1), list.get(2).copied().unwrap_or(1)]
}

fn manifest() -> Vec<Kernel> {
    let text = std::fs::read_to_string(corpus_dir().join("cuda/kernels.toml")).expect("kernels.toml");
    let doc: toml::Table = text.parse().expect("kernels.toml parses");
    doc["kernel"]
        .as_array()
        .expect("[[kernel]]")
        .iter()
        .map(|k| {
            let s = |key: &str| k[key].as_str().expect(key).to_string();
            Kernel {
                entry: s("entry"),
                params: k["params"]
                    .as_array()
                    .expect("params")
                    .iter()
                    .map(|p| Param { name: p["name"].as_str().expect("name").into(), ty: p["type"].as_str().expect("type").into() })
                    .collect(),
                grid: dims(&k["grid"]),
                block: dims(&k["block"]),
                inputs: k["inputs"].as_table().expect("inputs").iter().map(|(n, v)| (n.clone(), v.as_str().expect("input").to_string())).collect(),
                outputs: k["outputs"].as_array().expect("outputs").iter().map(|o| o.as_str().expect("output").to_string()).collect(),
                tolerance: match &k["tolerance"] {
                    toml::Value::String(_) => None,
                    t => Some((t["relative"].as_float().expect("relative"), t["absolute"].as_float().expect("absolute"))),
                },
                targets: k
                    .get("targets")
                    .and_then(|t| t.as_array())
                    .map(|t| t.iter().map(|x| x.as_str().expect("target").to_string()).collect())
                    .unwrap_or_else(|| vec!["sm_70".into(), "sm_80".into()]),
                clang: k.get("compilers").and_then(|c| c.as_array()).is_none_or(|c| c.iter().any(|x| x.as_str() == Some("clang"))),
            }
        })
        .collect()
}

/// The element type of a buffer (`ptr.T`) or of bytes passed by value (`bytes.T`).
fn elem_type(ty: &str) -> ElemType {
    match ty.strip_prefix("bytes.").map_or(ty.to_string(), |e| format!("ptr.{e}")).as_str() {
        "ptr.u8" => ElemType::U8,
        "ptr.s32" => ElemType::S32,
        "ptr.u32" => ElemType::U32,
        "ptr.f16" => ElemType::F16,
        "ptr.f32" => ElemType::F32,
        "ptr.f64" => ElemType::F64,
        other => panic!("unknown buffer type {other}"),
    }
}

fn decode(ty: &str, bytes: &[u8]) -> Buffer {
    let words = |n: usize| bytes.chunks_exact(n);
    match elem_type(ty) {
        ElemType::U8 => Buffer::U8(bytes.to_vec()),
        ElemType::S32 => Buffer::S32(words(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()),
        ElemType::U32 => Buffer::U32(words(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()),
        ElemType::F16 => Buffer::F16(words(2).map(|c| u16::from_le_bytes(c.try_into().unwrap())).collect()),
        ElemType::F32 => Buffer::F32(words(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()),
        _ => Buffer::F64(words(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect()),
    }
}

fn scalar(ty: &str, text: &str) -> Value {
    match ty {
        "s32" => Value::S32(text.parse().expect("s32")),
        "u32" => Value::U32(text.parse().expect("u32")),
        "f32" => Value::F32(text.parse().expect("f32")),
        "f64" => Value::F64(text.parse().expect("f64")),
        other => panic!("unknown scalar type {other}"),
    }
}

/// Element `i` of a buffer as f64, and its bits, for comparing.
fn elements(b: &Buffer) -> Vec<(f64, u64)> {
    match b {
        Buffer::U8(v) => v.iter().map(|&x| (f64::from(x), u64::from(x))).collect(),
        Buffer::S32(v) => v.iter().map(|&x| (f64::from(x), x as u32 as u64)).collect(),
        Buffer::U32(v) => v.iter().map(|&x| (f64::from(x), u64::from(x))).collect(),
        Buffer::F16(v) => v.iter().map(|&x| (f64::from(half::f16::from_bits(x)), u64::from(x))).collect(),
        Buffer::F32(v) => v.iter().map(|&x| (f64::from(x), u64::from(x.to_bits()))).collect(),
        Buffer::F64(v) => v.iter().map(|&x| (x, x.to_bits())).collect(),
    }
}

/// How a fixture runs: functionally under one SIMT model, or timed on the `h100` model.
#[derive(Clone, Copy, Debug)]
enum Engine {
    Functional(SimtModel),
    TimedH100,
}

/// Runs one translated fixture and compares it with the reference; `Err` says how it differs.
fn check(kernel: &Kernel, module: &simt_isa::Module, scratch: &Path, engine: Engine) -> Result<(), String> {
    let translated = module.kernel(&kernel.entry).ok_or("no kernel of that name")?;
    let mut inputs = Inputs::new();
    let mut args = Vec::new();
    for (i, p) in kernel.params.iter().enumerate() {
        let text = &kernel.inputs[&p.name];
        let ptx_name = format!("{}_param_{i}", kernel.entry);
        if p.ty.starts_with("ptr.") || p.ty.starts_with("bytes.") {
            // The bytes the manifest's type gives, passed raw: the translation infers the
            // pointer's element type from the code, which may read the buffer otherwise.
            let init = simt_asm::parse_arg_init(text).map_err(|e| format!("{}: {e}", p.name))?;
            let bytes = simt_host::buffer_bytes(elem_type(&p.ty), &init, Path::new("")).map_err(|e| format!("{}: {e}", p.name))?;
            let file = scratch.join(format!("{}-{}.bin", kernel.entry, p.name));
            std::fs::write(&file, bytes.as_bytes()).map_err(|e| e.to_string())?;
            inputs.insert(&p.name, Value::Buffer(decode(&p.ty, bytes.as_bytes())));
            args.push(Arg::new(ptx_name, ArgInit::File(file.display().to_string())));
        } else {
            inputs.insert(&p.name, scalar(&p.ty, text));
            args.push(Arg::new(ptx_name, simt_asm::parse_arg_init(text).map_err(|e| format!("{}: {e}", p.name))?));
        }
    }
    let request = LaunchRequest { grid: Some(kernel.grid), block: Some(kernel.block), args, module_dir: None };
    let prepared = prepare(translated, &request).map_err(|e| e.to_string())?;
    let stats = match engine {
        Engine::Functional(simt) => {
            let options = RunOptions { simt, threads: Some(2), ..RunOptions::default() };
            run(translated, &prepared.config, &prepared.memory, &options, None).map_err(|f| f.render(module, false))?
        }
        Engine::TimedH100 => {
            let machine = simt_timing::Machine::builtin("h100");
            let options = RunOptions { threads: Some(2), ..RunOptions::default() };
            simt_timing::run(translated, &prepared.config, &prepared.memory, &options, &machine, &simt_timing::TimingOptions::default())
                .map_err(|e| e.to_string())?
                .functional
        }
    };
    // A kernel that prints has, beside it, what glibc's printf makes of the same calls.
    let printed: String = stats.printed.iter().map(|p| p.text.as_str()).collect();
    let expected = std::fs::read_to_string(corpus_dir().join("cuda").join(format!("{}.out", kernel.entry))).unwrap_or_default();
    if printed != expected {
        return Err(format!("it printed {printed:?}, not {expected:?}"));
    }
    let want = reference::reference(&kernel.entry).ok_or("no reference")?(&inputs);
    for name in &kernel.outputs {
        let i = kernel.params.iter().position(|p| &p.name == name).ok_or("output is not a parameter")?;
        let (_, bytes) = prepared.buffer(&format!("{}_param_{i}", kernel.entry)).ok_or("no output buffer")?;
        let got = elements(&decode(&kernel.params[i].ty, &bytes));
        let want = elements(&want[name]);
        if got.len() != want.len() {
            return Err(format!("`{name}`: {} elements, the reference has {}", got.len(), want.len()));
        }
        for (k, ((g, gb), (w, wb))) in got.iter().zip(&want).enumerate() {
            let ok = match kernel.tolerance {
                None => gb == wb,
                Some((rel, abs)) => (g - w).abs() <= abs + rel * w.abs() || gb == wb,
            };
            if !ok {
                return Err(format!("`{name}`[{k}] is {g} ({gb:#x}), the reference {w} ({wb:#x})"));
            }
        }
    }
    Ok(())
}

#[test]
fn translated_fixtures_match_their_references() {
    let scratch = std::env::temp_dir().join(format!("simt-ptx-run-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let mut refused = String::new();
    let (mut ran, mut failures) = (0, Vec::new());
    for kernel in manifest() {
        for target in &kernel.targets {
            let clang = ["O3", "O0"].map(|level| format!("fixtures/{}.{target}.{level}.ptx", kernel.entry));
            let clang = clang.into_iter().filter(|_| kernel.clang);
            for file in clang.chain([format!("fixtures-nvrtc/{}.{target}.ptx", kernel.entry)]) {
                let text = std::fs::read_to_string(corpus_dir().join(&file)).expect("fixture");
                let module = match simt_ptx::translate(&file, &text, None) {
                    Ok(module) => {
                        // `simt ptx` output assembles back to the same code.
                        let shown = simt_isa::disassemble_with_source(&module);
                        let back = simt_asm::assemble(&file, &shown).unwrap_or_else(|d| panic!("{file}: {}", d.render(false)));
                        for (a, b) in module.kernels.iter().zip(&back.kernels) {
                            assert!(a.code == b.code, "{file}: `simt ptx` output assembles to different code");
                        }
                        module
                    }
                    Err(d) => {
                        let first = d.iter().next().map_or(String::new(), |d| d.message.clone());
                        refused.push_str(&format!("{file}: {} refusal(s), first: {first}\n", d.total()));
                        continue;
                    }
                };
                for engine in [Engine::Functional(SimtModel::Its), Engine::Functional(SimtModel::Stack), Engine::TimedH100] {
                    ran += 1;
                    if let Err(e) = check(&kernel, &module, &scratch, engine) {
                        failures.push(format!("{file} under {engine:?}: {e}"));
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(failures.is_empty(), "{} of {ran} runs differ from their references:\n{}", failures.len(), failures.join("\n"));
    assert!(ran >= 40, "only {ran} runs: the translation refuses too much");
    insta::assert_snapshot!("refused_fixtures", refused);
}
