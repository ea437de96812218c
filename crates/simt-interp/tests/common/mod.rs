//! Support shared by the integration tests: loading the kernel library,
//! launching with buffers captured before and after, and reading bytes back.
// Each test binary uses a different subset.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use simt_host::{Arg, LaunchRequest, PreparedLaunch, prepare};
use simt_interp::{Launch, LaunchConfig, RunOptions, SimtModel, Stats, StepResult, run};
use simt_isa::{ArgInit, Literal, Module};

/// xorshift64*: a small deterministic generator, so every failure names its seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

pub const MODELS: [SimtModel; 2] = [SimtModel::Its, SimtModel::Stack];

/// The kernel library.
pub fn asm_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../asm")
}

/// Assembles a file of the library, named relative to `asm/`.
pub fn load(name: &str) -> Module {
    assemble_file(&asm_dir().join(name))
}

/// Assembles a file, panicking with the diagnostics if it does not assemble.
pub fn assemble_file(path: &Path) -> Module {
    let source = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let shown = path.strip_prefix(asm_dir()).unwrap_or(path).display().to_string();
    simt_asm::assemble(&shown, &source).unwrap_or_else(|d| panic!("{shown} does not assemble:\n{}", d.render(false)))
}

/// Assembles a kernel written in a test.
pub fn assemble_text(source: &str) -> Module {
    simt_asm::assemble("test.s", source).unwrap_or_else(|d| panic!("{}", d.render(false)))
}

/// Every `.s` file under `asm/`, recursively and sorted, except the planted bugs of `asm/bugs/`.
pub fn library_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "bugs") {
                    walk(&path, out);
                }
            } else if path.extension().is_some_and(|e| e == "s") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&asm_dir(), &mut files);
    files
}

/// Prepares the first kernel of `module` with `request`; relative files are relative to `asm/`.
pub fn prepared(module: &Module, request: &LaunchRequest) -> PreparedLaunch {
    let kernel = &module.kernels[0];
    let mut request = request.clone();
    request.module_dir = Some(asm_dir());
    prepare(kernel, &request).unwrap_or_else(|e| panic!("{}: {e}", kernel.name))
}

/// One finished launch: the buffers before and after, the configuration and the statistics.
pub struct Launched {
    pub before: BTreeMap<String, Vec<u8>>,
    pub after: BTreeMap<String, Vec<u8>>,
    pub config: LaunchConfig,
    pub params: Vec<(String, u32)>,
    pub stats: Stats,
}

impl Launched {
    pub fn input(&self, name: &str) -> &[u8] {
        &self.before[name]
    }
    pub fn output(&self, name: &str) -> &[u8] {
        &self.after[name]
    }
    fn param_bytes(&self, name: &str) -> [u8; 4] {
        let offset = self.params.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no parameter {name}")).1 as usize;
        self.config.params[offset..offset + 4].try_into().unwrap()
    }
    pub fn u32(&self, name: &str) -> u32 {
        u32::from_le_bytes(self.param_bytes(name))
    }
    pub fn f32(&self, name: &str) -> f32 {
        f32::from_le_bytes(self.param_bytes(name))
    }
}

/// Runs the first kernel of `module` under `simt`, panicking with the rendered fault if it faults.
pub fn launch(module: &Module, request: &LaunchRequest, simt: SimtModel) -> Launched {
    let kernel = &module.kernels[0];
    let prepared = prepared(module, request);
    let snapshot = |p: &PreparedLaunch| -> BTreeMap<String, Vec<u8>> { p.buffers.iter().map(|(name, _)| (name.clone(), p.buffer(name).unwrap().1)).collect() };
    let before = snapshot(&prepared);
    let options = RunOptions { simt, ..RunOptions::default() };
    let stats = run(kernel, &prepared.config, &prepared.memory, &options, None)
        .unwrap_or_else(|f| panic!("{} faulted under {simt:?}:\n{}", kernel.name, f.render(module, false)));
    let after = snapshot(&prepared);
    let params = kernel.params.iter().map(|p| (p.name.clone(), p.offset)).collect();
    Launched { before, after, config: prepared.config.clone(), params, stats }
}

pub fn f16s(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(2).map(|c| half::f16::from_bits(u16::from_le_bytes(c.try_into().unwrap())).to_f32()).collect()
}
pub fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}
pub fn u32s(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}
pub fn i32s(bytes: &[u8]) -> Vec<i32> {
    bytes.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// Bit-exact comparison of two f32 vectors with a readable first difference.
pub fn assert_f32_bits(what: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.to_bits(), w.to_bits(), "{what}[{i}]: got {g}, want {w}");
    }
}

pub fn assert_u32s(what: &str, got: &[u32], want: &[u32]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g, w, "{what}[{i}]");
    }
}

pub fn int(name: &str, v: i64) -> Arg {
    Arg::new(name, ArgInit::Scalar(Literal::Int(v)))
}
pub fn float(name: &str, v: f64) -> Arg {
    Arg::new(name, ArgInit::Scalar(Literal::Float(v)))
}
pub fn buf(name: &str, init: ArgInit) -> Arg {
    Arg::new(name, init)
}
pub fn request(grid: [u32; 3], block: [u32; 3], args: Vec<Arg>) -> LaunchRequest {
    LaunchRequest { grid: Some(grid), block: Some(block), args, module_dir: None }
}

/// Every warp's issue sequence, (pc, active mask, executed mask), block after block,
/// stepping each warp in turn until it blocks, as `run` does; `render` names a fault.
pub fn stepped_traces(launch: &Launch<'_>, render: impl Fn(&simt_interp::Fault) -> String) -> Vec<Vec<(u32, u32, u32)>> {
    let mut traces = Vec::new();
    for b in 0..launch.blocks() {
        let mut block = launch.block(b, 0);
        let mut per_warp = vec![Vec::new(); block.warp_count()];
        while !block.is_done() {
            let mut progressed = false;
            for (w, t) in per_warp.iter_mut().enumerate() {
                while let StepResult::Issued(step) = block.step(w).unwrap_or_else(|f| panic!("{}", render(&f))) {
                    t.push((step.issued.pc, step.issued.active, step.issued.executed));
                    progressed = true;
                }
            }
            if !progressed && !block.release_barrier() {
                block.force_progress().unwrap_or_else(|f| panic!("{}", render(&f)));
            }
        }
        traces.extend(per_warp);
    }
    traces
}
