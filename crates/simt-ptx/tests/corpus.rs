//! The corpus in `tests/ptx`: every fixture parses cleanly, the manifest agrees with the
//! fixtures, and the instruction mix is recorded.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use simt_ptx::ast::{Block, FunctionKind, Statement};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ptx")
}

fn fixtures() -> Vec<(String, String)> {
    let dir = corpus_dir().join("fixtures");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().expect("file name").to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).expect("fixture text"))
        })
        .collect()
}

#[test]
fn every_fixture_parses_without_diagnostics() {
    let fixtures = fixtures();
    assert!(fixtures.len() >= 100, "the corpus has {} fixtures; run tests/ptx/regen.sh", fixtures.len());
    let mut failures = String::new();
    for (name, text) in &fixtures {
        let parsed = simt_ptx::parse(text);
        if !parsed.diagnostics.is_empty() {
            failures.push_str(&parsed.diagnostics.render(name, text, false));
            continue;
        }
        let module = &parsed.module;
        assert_eq!(module.version.map(|v| v.value), Some((7, 0)), "{name}");
        assert_eq!(module.address_size.map(|a| a.value), Some(64), "{name}");
        let entry = name.split('.').next().expect("kernel name");
        let kernel = module.function(entry).unwrap_or_else(|| panic!("{name}: no .entry {entry}"));
        assert_eq!(kernel.kind, FunctionKind::Entry, "{name}");
        assert!(count_instructions(kernel.body.as_ref().expect("a body")) > 0, "{name}");
    }
    assert!(failures.is_empty(), "{failures}");
}

fn count_instructions(block: &Block<'_>) -> usize {
    block
        .statements
        .iter()
        .map(|s| match s {
            Statement::Instruction(_) => 1,
            Statement::Block(inner) => count_instructions(inner),
            _ => 0,
        })
        .sum()
}

fn tally(block: &Block<'_>, counts: &mut BTreeMap<String, usize>) {
    for statement in &block.statements {
        match statement {
            Statement::Instruction(i) => *counts.entry(i.op.to_string()).or_default() += 1,
            Statement::Block(inner) => tally(inner, counts),
            _ => {}
        }
    }
}

/// How often each instruction form occurs over all fixtures: the work list of the translation.
#[test]
fn instruction_mix() {
    let mut counts = BTreeMap::new();
    for (_, text) in fixtures() {
        let parsed = simt_ptx::parse(&text);
        for function in parsed.module.functions() {
            if let Some(body) = &function.body {
                tally(body, &mut counts);
            }
        }
    }
    let mut rows: Vec<_> = counts.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let table: String = rows.iter().map(|(form, n)| format!("{n:>6}  {form}\n")).collect();
    insta::assert_snapshot!(table);
}

#[allow(dead_code)]
#[path = "../../../tests/ptx/reference.rs"]
mod reference;

use reference::{Buffer, Inputs, Value};
use serde::Deserialize;

/// `tests/ptx/cuda/kernels.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    kernel: Vec<Kernel>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Kernel {
    entry: String,
    params: Vec<ParamSpec>,
    grid: Vec<u32>,
    block: Vec<u32>,
    #[serde(default)]
    shared_bytes: u32,
    inputs: BTreeMap<String, String>,
    outputs: Vec<String>,
    tolerance: toml::Value,
    #[serde(default)]
    targets: Option<Vec<String>>,
    /// `["nvrtc"]` for a kernel in `cuda/nvrtc/` that only NVRTC compiles.
    #[serde(default)]
    compilers: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ParamSpec {
    name: String,
    #[serde(rename = "type")]
    ty: String,
    #[serde(default)]
    count: Option<usize>,
}

fn manifest() -> Manifest {
    let path = corpus_dir().join("cuda/kernels.toml");
    let text = std::fs::read_to_string(&path).expect("tests/ptx/cuda/kernels.toml");
    toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

impl Kernel {
    fn targets(&self) -> Vec<String> {
        self.targets.clone().unwrap_or_else(|| vec!["sm_70".to_string(), "sm_80".to_string()])
    }

    fn nvrtc_only(&self) -> bool {
        self.compilers.as_deref() == Some(&["nvrtc".to_string()])
    }

    /// The fixtures made of it: clang's at -O0 and -O3 per target, or NVRTC's.
    fn fixtures(&self) -> Vec<PathBuf> {
        let name = &self.entry;
        let per_target = |target: String| -> Vec<PathBuf> {
            if self.nvrtc_only() {
                vec![corpus_dir().join("fixtures-nvrtc").join(format!("{name}.{target}.ptx"))]
            } else {
                ["O0", "O3"].iter().map(|level| corpus_dir().join("fixtures").join(format!("{name}.{target}.{level}.ptx"))).collect()
            }
        };
        self.targets().into_iter().flat_map(per_target).collect()
    }
}

/// The stems of the `.cu` files in `tests/ptx/<folder>`.
fn sources(folder: &str) -> Vec<String> {
    let mut stems: Vec<String> = std::fs::read_dir(corpus_dir().join(folder))
        .unwrap_or_else(|e| panic!("tests/ptx/{folder}: {e}"))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .map(|p| p.file_stem().expect("stem").to_string_lossy().into_owned())
        .collect();
    stems.sort();
    stems
}

/// The `.param` type clang gives a manifest parameter type.
fn ptx_param_type(ty: &str) -> &'static str {
    match ty {
        "s32" | "u32" => ".u32",
        "f32" => ".f32",
        "f64" => ".f64",
        t if t.starts_with("ptr.") => ".u64",
        t if t.starts_with("bytes.") => ".b8",
        other => panic!("unknown manifest type `{other}`"),
    }
}

#[test]
fn manifest_agrees_with_sources_fixtures_and_references() {
    let manifest = manifest();
    for (folder, nvrtc_only) in [("cuda", false), ("cuda/nvrtc", true)] {
        let mut entries: Vec<String> = manifest.kernel.iter().filter(|k| k.nvrtc_only() == nvrtc_only).map(|k| k.entry.clone()).collect();
        entries.sort();
        assert_eq!(sources(folder), entries, "one manifest entry per .cu file in tests/ptx/{folder}, named after it");
    }
    assert!(manifest.kernel.len() >= 25);
    for kernel in &manifest.kernel {
        let name = &kernel.entry;
        assert!(reference::reference(name).is_some(), "{name}: no reference in tests/ptx/reference.rs");
        assert!((1..=3).contains(&kernel.grid.len()) && (1..=3).contains(&kernel.block.len()), "{name}: grid and block have 1 to 3 extents");
        let threads: u32 = kernel.block.iter().product();
        assert!(threads > 0 && threads <= 1024 && kernel.grid.iter().all(|&g| g > 0), "{name}: launch shape");
        assert!(kernel.shared_bytes <= 48 * 1024, "{name}: dynamic shared bytes");
        match &kernel.tolerance {
            toml::Value::String(s) => assert_eq!(s, "exact", "{name}"),
            toml::Value::Table(t) => {
                for key in ["relative", "absolute", "why"] {
                    assert!(t.contains_key(key), "{name}: tolerance needs `{key}`");
                }
            }
            other => panic!("{name}: tolerance {other:?}"),
        }
        let names: Vec<&str> = kernel.params.iter().map(|p| p.name.as_str()).collect();
        let mut inputs: Vec<&str> = kernel.inputs.keys().map(String::as_str).collect();
        let mut sorted = names.clone();
        sorted.sort();
        inputs.sort();
        assert_eq!(sorted, inputs, "{name}: one input per parameter");
        for out in &kernel.outputs {
            let param = kernel.params.iter().find(|p| &p.name == out).unwrap_or_else(|| panic!("{name}: output `{out}` is no parameter"));
            assert!(param.ty.starts_with("ptr."), "{name}: output `{out}` is not a buffer");
        }
        for path in kernel.fixtures() {
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let parsed = simt_ptx::parse(&text);
            let function = parsed.module.function(name).unwrap_or_else(|| panic!("{}: no {name}", path.display()));
            let declared: Vec<String> = function.params.iter().map(|p| p.ty.to_string()).collect();
            let expected: Vec<&str> = kernel.params.iter().map(|p| ptx_param_type(&p.ty)).collect();
            assert_eq!(declared, expected, "{}: parameters", path.display());
        }
    }
}

/// SplitMix64 draw `i` from `seed`, as simt's `rand(N, SEED)` makes it.
fn splitmix64(seed: u64, i: u64) -> u64 {
    let mut z = seed.wrapping_add(i.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn uniform(seed: u64, i: u64, bits: u32) -> f64 {
    (splitmix64(seed, i) >> (64 - bits)) as f64 * (-(bits as f64)).exp2()
}

/// The bits of an f16 for a non-negative value it represents exactly (all `rand` draws for f16 are).
fn f16_bits(v: f64) -> u16 {
    let bits = if v == 0.0 {
        0
    } else {
        let exp = v.log2().floor() as i32;
        if exp < -14 { (v * 2f64.powi(24)) as u16 } else { (((exp + 15) as u16) << 10) | ((v / 2f64.powi(exp) - 1.0) * 1024.0) as u16 }
    };
    assert_eq!(decode(bits), v, "{v} is not an f16");
    bits
}

fn decode(bits: u16) -> f64 {
    let exp = ((bits >> 10) & 0x1f) as i32;
    let m = (bits & 0x3ff) as f64;
    if exp == 0 { m * 2f64.powi(-24) } else { (1.0 + m / 1024.0) * 2f64.powi(exp - 15) }
}

/// The arguments a manifest entry describes, generated with the `--arg` vocabulary.
fn generate(kernel: &Kernel) -> Inputs {
    let mut inputs = Inputs::new();
    for param in &kernel.params {
        let text = kernel.inputs[&param.name].trim();
        let value = match param.ty.strip_prefix("ptr.").or_else(|| param.ty.strip_prefix("bytes.")) {
            None => match param.ty.as_str() {
                "s32" => Value::S32(text.parse().expect("s32 literal")),
                "u32" => Value::U32(text.parse().expect("u32 literal")),
                "f32" => Value::F32(text.parse().expect("f32 literal")),
                "f64" => Value::F64(text.parse().expect("f64 literal")),
                other => panic!("{other}"),
            },
            Some(elem) => {
                let values = elements(text);
                assert_eq!(Some(values.len()), param.count, "{}: `{}` = {text}: element count", kernel.entry, param.name);
                Value::Buffer(buffer(elem, &values))
            }
        };
        inputs.insert(&param.name, value);
    }
    inputs
}

/// A buffer's elements as f64 (exact for every type the corpus uses), or raw draws for `rand`.
enum Element {
    Number(f64),
    Draw(u64, u64),
}

fn elements(text: &str) -> Vec<Element> {
    let call =
        |prefix: &str| text.strip_prefix(prefix).and_then(|r| r.strip_suffix(')')).map(|r| r.split(',').map(|a| a.trim().to_string()).collect::<Vec<_>>());
    if let Some(list) = text.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        return list.split(',').map(|v| Element::Number(v.trim().parse().expect("list element"))).collect();
    }
    if let Some(args) = call("zeros(") {
        return (0..args[0].parse::<u64>().expect("count")).map(|_| Element::Number(0.0)).collect();
    }
    if let Some(args) = call("fill(") {
        let v: f64 = args[1].parse().expect("fill value");
        return (0..args[0].parse::<u64>().expect("count")).map(|_| Element::Number(v)).collect();
    }
    if let Some(args) = call("iota(") {
        return (0..args[0].parse::<u64>().expect("count")).map(|i| Element::Number(i as f64)).collect();
    }
    if let Some(args) = call("rand(") {
        let seed: u64 = args[1].parse().expect("seed");
        return (0..args[0].parse::<u64>().expect("count")).map(|i| Element::Draw(seed, i)).collect();
    }
    panic!("`{text}` is not in the --arg vocabulary");
}

fn buffer(elem: &str, values: &[Element]) -> Buffer {
    let num = |e: &Element| match e {
        Element::Number(v) => *v,
        Element::Draw(..) => unreachable!(),
    };
    macro_rules! ints {
        ($variant:ident, $t:ty) => {
            Buffer::$variant(
                values
                    .iter()
                    .map(|e| match e {
                        Element::Draw(s, i) => splitmix64(*s, *i) as $t,
                        n => num(n) as i64 as $t,
                    })
                    .collect(),
            )
        };
    }
    match elem {
        "u8" => ints!(U8, u8),
        "s32" => ints!(S32, i32),
        "u32" => ints!(U32, u32),
        "f16" => Buffer::F16(values.iter().map(|e| f16_bits(if let Element::Draw(s, i) = e { uniform(*s, *i, 11) } else { num(e) })).collect()),
        "f32" => Buffer::F32(values.iter().map(|e| (if let Element::Draw(s, i) = e { uniform(*s, *i, 24) } else { num(e) }) as f32).collect()),
        "f64" => Buffer::F64(values.iter().map(|e| if let Element::Draw(s, i) = e { uniform(*s, *i, 53) } else { num(e) }).collect()),
        other => panic!("unknown element type {other}"),
    }
}

#[test]
fn every_reference_runs_on_its_manifest_inputs() {
    for kernel in manifest().kernel {
        let inputs = generate(&kernel);
        let outputs = reference::reference(&kernel.entry).expect("checked above")(&inputs);
        let names: Vec<&String> = outputs.keys().collect();
        let mut expected: Vec<&String> = kernel.outputs.iter().collect();
        expected.sort();
        assert_eq!(names, expected, "{}: output buffers", kernel.entry);
        for (name, buffer) in &outputs {
            let param = kernel.params.iter().find(|p| &p.name == name).expect("an output parameter");
            assert_eq!(Some(buffer.len()), param.count, "{}: `{name}` length", kernel.entry);
        }
    }
}

/// The references that replay a device's order of operations agree with plain f64 math.
#[test]
fn order_following_references_agree_with_f64_math() {
    let manifest = manifest();
    let kernel = |name: &str| manifest.kernel.iter().find(|k| k.entry == name).expect("kernel");
    let close = |got: f32, want: f64| (got as f64 - want).abs() <= 1e-4 * want.abs().max(1.0);
    let f32s = |outputs: &reference::Outputs, name: &str| match &outputs[name] {
        Buffer::F32(v) => v.clone(),
        other => panic!("{other:?}"),
    };

    let inputs = generate(kernel("reduce_shared"));
    let out = f32s(&reference::reference("reduce_shared").unwrap()(&inputs), "out");
    for (b, chunk) in inputs.f32s("in").chunks(256).enumerate() {
        assert!(close(out[b], chunk.iter().map(|&v| v as f64).sum()), "reduce_shared block {b}");
    }

    let inputs = generate(kernel("dot_xor"));
    let out = f32s(&reference::reference("dot_xor").unwrap()(&inputs), "out");
    let (x, y) = (inputs.f32s("x"), inputs.f32s("y"));
    for (b, o) in out.iter().enumerate() {
        let want: f64 = (b * 256..(b * 256 + 256).min(1000)).map(|i| x[i] as f64 * y[i] as f64).sum();
        assert!(close(*o, want), "dot_xor block {b}");
    }

    let inputs = generate(kernel("matvec"));
    let out = f32s(&reference::reference("matvec").unwrap()(&inputs), "y");
    let (a, x) = (inputs.f32s("A"), inputs.f32s("x"));
    for (r, o) in out.iter().enumerate() {
        assert!(close(*o, (0..70).map(|j| a[r * 70 + j] as f64 * x[j] as f64).sum()), "matvec row {r}");
    }

    let inputs = generate(kernel("hgemm_mma"));
    let out = f32s(&reference::reference("hgemm_mma").unwrap()(&inputs), "D");
    let (a, bt) = (inputs.f16s("A"), inputs.f16s("Bt"));
    for i in 0..16 {
        for j in 0..16 {
            let want: f64 = (0..16).map(|k| decode(a[i * 16 + k]) * decode(bt[j * 16 + k])).sum();
            assert!(close(out[i * 16 + j], want), "hgemm D[{i}][{j}]");
        }
    }
}
