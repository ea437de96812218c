//! Keys: a content hash of everything that determines a run's result.
//!
//! A run's [`Inputs`] are simt's version and commit, the kernel file's bytes, the bytes
//! of every file the run reads (`--arg NAME=@FILE`, the kernel's own `.arg NAME = @FILE`
//! defaults, `--expect` references), the resolved values of a `--timing` machine (where
//! the binary gives a [`crate::flags::MachineResolver`]), and every option that changes
//! results, in a canonical order. The key is the SHA-256 of their JSON form,
//! so two runs share a key exactly when they share all of these.
//!
//! Paths are part of the inputs as written: two students' identical kernels in two
//! files are two records, and a sweep moved as a whole keeps its keys.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use simt_isa::{ArgInit, Module};

use crate::command::RunCommand;
use crate::flags::{Effect, FlagSet};

/// Hex digits of a key: 128 bits, short enough for a file name.
const KEY_DIGITS: usize = 32;

/// The simt that runs the jobs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Build {
    /// The crate version.
    pub version: String,
    /// The git commit it was built from, or `unknown` (a build outside git).
    pub commit: String,
}

impl Build {
    /// This build of simt.
    pub fn current() -> Build {
        Build { version: env!("CARGO_PKG_VERSION").into(), commit: env!("SIMT_COMMIT").into() }
    }
}

/// A file a run reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileInput {
    /// Why the run reads it: `kernel`, `--arg x`, `.arg x`, `--expect y`, `--timing`.
    pub role: String,
    /// Its path, as the run opens it.
    pub path: String,
    /// The SHA-256 of its bytes; `None` when it cannot be read (the run then fails and says why).
    pub sha256: Option<String>,
}

/// Everything that determines a run's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inputs {
    /// The simt that ran it.
    pub simt: Build,
    /// The kernel file, then every other file the run reads, in the order found.
    pub files: Vec<FileInput>,
    /// The options that change results, sorted by name (repeated options keep their order).
    pub options: Vec<(String, Option<String>)>,
}

impl Inputs {
    /// The inputs of `command` started in `cwd`, hashing files through `cache`.
    pub fn gather(command: &RunCommand, cwd: &Path, flags: &FlagSet, cache: &FileCache) -> Inputs {
        let file = |role: String, path: String| {
            let sha256 = cache.sha256(&cwd.join(&path));
            FileInput { role, path, sha256 }
        };
        let mut files = vec![file("kernel".into(), command.kernel.clone())];
        let kernel_dir = Path::new(&command.kernel).parent().unwrap_or(Path::new(""));
        for (param, data) in cache.kernel_data_files(&cwd.join(&command.kernel)) {
            files.push(file(format!(".arg {param}"), kernel_dir.join(data).display().to_string()));
        }
        let mut options = Vec::new();
        for (name, value) in &command.options {
            let effect = flags.get(name).map_or(Effect::Result, |f| f.effect);
            let named = value.as_deref().and_then(|v| v.split_once('=')).map(|(n, v)| (n.trim(), v));
            match effect {
                Effect::Neutral => continue,
                Effect::Dump => {
                    let buffer = value.as_deref().map(|v| v.split_once('=').map_or(v, |(n, _)| n).trim().to_string());
                    options.push((name.clone(), buffer));
                    continue;
                }
                Effect::Argument => {
                    if let Some((param, data)) = named.and_then(|(n, v)| Some((n, v.trim_start().strip_prefix('@')?))) {
                        files.push(file(format!("--arg {param}"), data.to_string()));
                    }
                }
                Effect::Expectation => {
                    if let Some((dump, reference)) = named {
                        files.push(file(format!("--expect {dump}"), reference.to_string()));
                    }
                }
                Effect::MachineConfig => {
                    // The machine as the timing model reads it (built-in or file alike), where
                    // the binary can resolve it; else a file counts by its bytes and a built-in
                    // by its name (and simt's commit, which fixes the built-ins).
                    let resolved = value.as_deref().and_then(|v| Some((v, flags.resolve_machine(v, cwd)?)));
                    if let Some((v, text)) = resolved {
                        files.push(FileInput { role: format!("--{name} (resolved values)"), path: v.to_string(), sha256: Some(sha256_bytes(text.as_bytes())) });
                    } else if let Some(v) = value.as_deref().filter(|v| cwd.join(v).is_file()) {
                        files.push(file(format!("--{name}"), v.to_string()));
                    }
                }
                Effect::Result => {}
            }
            options.push((name.clone(), value.clone()));
        }
        // Order changes nothing (`--arg a=1 --arg n=4` is `--arg n=4 --arg a=1`) except
        // between repeats of one option for one parameter (the last wins), which a
        // stable sort by flag and parameter name keeps.
        let param = |(name, value): &(String, Option<String>)| match (flags.get(name).map(|f| f.effect), value) {
            (Some(Effect::Argument), Some(v)) => v.split_once('=').map_or(v.as_str(), |(n, _)| n).trim().to_string(),
            _ => String::new(),
        };
        options.sort_by_cached_key(|o| (o.0.clone(), param(o)));
        Inputs { simt: Build::current(), files, options }
    }

    /// The key: the first 128 bits of the SHA-256 of the inputs' JSON, in hex.
    pub fn key(&self) -> String {
        let json = serde_json::to_vec(self).expect("inputs are plain data");
        let mut key = hex(&Sha256::digest(&json));
        key.truncate(KEY_DIGITS);
        key
    }
}

/// Hashes of files and the data files kernels name, each read once per sweep.
#[derive(Default)]
pub struct FileCache {
    hashes: Mutex<HashMap<PathBuf, Option<String>>>,
    data_files: Mutex<HashMap<PathBuf, Vec<(String, String)>>>,
}

impl FileCache {
    /// The SHA-256 of the file at `path`, or `None` if it cannot be read.
    pub fn sha256(&self, path: &Path) -> Option<String> {
        if let Some(hash) = self.hashes.lock().expect("no panics under the lock").get(path) {
            return hash.clone();
        }
        let hash = sha256_file(path).ok();
        self.hashes.lock().expect("no panics under the lock").insert(path.to_path_buf(), hash.clone());
        hash
    }

    /// `(parameter, file)` for every `.arg NAME = @FILE` default of the kernels in the
    /// module at `path` (files relative to the module's folder); none when it does not load.
    fn kernel_data_files(&self, path: &Path) -> Vec<(String, String)> {
        if let Some(found) = self.data_files.lock().expect("no panics under the lock").get(path) {
            return found.clone();
        }
        let found = simt_io::read_bounded(path, simt_isa::MAX_INPUT_BYTES).ok().and_then(|b| load_defaults(path, &b)).map_or_else(Vec::new, |m| {
            m.kernels
                .iter()
                .flat_map(|k| &k.args)
                .filter_map(|a| match &a.init {
                    ArgInit::File(f) => Some((a.name.clone(), f.clone())),
                    _ => None,
                })
                .collect()
        });
        self.data_files.lock().expect("no panics under the lock").insert(path.to_path_buf(), found.clone());
        found
    }
}

/// The module, as far as its `.arg` defaults go; `None` when it cannot name a data file
/// (no `.arg` line with `@`, which spares assembling most kernels) or does not load.
fn load_defaults(path: &Path, bytes: &[u8]) -> Option<Module> {
    let name = path.display().to_string();
    match simt_isa::Input::of(&name, bytes).ok()? {
        simt_isa::Input::Bytecode(bytes) => simt_isa::read_module(bytes).ok(),
        // PTX has no `.arg` defaults.
        simt_isa::Input::Ptx(_) => None,
        simt_isa::Input::Assembly(text) if text.lines().any(|l| l.trim_start().starts_with(".arg") && l.contains('@')) => simt_asm::assemble(&name, text).ok(),
        simt_isa::Input::Assembly(_) => None,
    }
}

/// The SHA-256 of a file's bytes, in hex, read in pieces.
///
/// # Errors
/// When the file cannot be read.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(std::io::Error::other("a directory"));
    }
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match file.read(&mut buf)? {
            0 => break,
            n => hasher.update(&buf[..n]),
        }
    }
    Ok(hex(&hasher.finalize()))
}

/// The SHA-256 of `bytes`, in hex.
pub fn sha256_bytes(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// `bytes` as lowercase hex digits.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::with_capacity(2 * bytes.len()), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::test_flags;

    fn key_of(dir: &Path, line: &str) -> String {
        let argv: Vec<String> = line.split(' ').map(String::from).collect();
        let cmd = RunCommand::parse(&argv, &test_flags()).unwrap();
        Inputs::gather(&cmd, dir, &test_flags(), &FileCache::default()).key()
    }

    #[test]
    fn keys_follow_what_changes_results() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        write("k.s", ".kernel k\n.param .ptr.f32 x\n.arg x = @x.bin\n    EXIT\n");
        write("x.bin", "1234");
        write("y.bin", "5678");
        let base = key_of(dir.path(), "k.s --simt its --arg n=1 --arg a=2");
        assert_eq!(base.len(), 32);
        // Order, neutral flags and where a dump goes change nothing.
        assert_eq!(key_of(dir.path(), "k.s --arg a=2 --threads 3 --simt its --arg n=1 --json"), base);
        assert_eq!(key_of(dir.path(), "k.s --dump y=a.npy"), key_of(dir.path(), "k.s --dump y=b.npy"));
        // Values, which buffers are dumped, the files named and their bytes all do.
        for other in ["k.s --simt stack --arg n=1 --arg a=2", "k.s --simt its --arg n=1 --arg a=3", "k.s --simt its --arg n=1"] {
            assert_ne!(key_of(dir.path(), other), base, "{other}");
        }
        assert_ne!(key_of(dir.path(), "k.s --dump y"), key_of(dir.path(), "k.s --dump z"));
        assert_ne!(key_of(dir.path(), "k.s --arg x=@x.bin"), key_of(dir.path(), "k.s --arg x=@y.bin"));
        let before = [key_of(dir.path(), "k.s --arg x=@y.bin"), base.clone()];
        write("y.bin", "changed");
        write("x.bin", "changed, and named by the kernel's own .arg");
        assert_ne!(key_of(dir.path(), "k.s --arg x=@y.bin"), before[0]);
        assert_ne!(key_of(dir.path(), "k.s --simt its --arg n=1 --arg a=2"), before[1]);
    }

    #[test]
    fn the_kernel_defaults_and_missing_files_are_inputs() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/k.s"), ".kernel k\n.param .ptr.f32 x\n.arg x = @data.bin\n    EXIT\n").unwrap();
        let cmd = RunCommand::parse(&["sub/k.s".into(), "--expect".into(), "x=ref.npy".into()], &test_flags()).unwrap();
        let inputs = Inputs::gather(&cmd, dir.path(), &test_flags(), &FileCache::default());
        let files: Vec<(&str, &str, bool)> = inputs.files.iter().map(|f| (f.role.as_str(), f.path.as_str(), f.sha256.is_some())).collect();
        assert_eq!(files, [("kernel", "sub/k.s", true), (".arg x", "sub/data.bin", false), ("--expect x", "ref.npy", false)]);
    }

    #[test]
    fn file_hashes_are_sha256() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("abc"), "abc").unwrap();
        let want = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(sha256_file(&dir.path().join("abc")).unwrap(), want);
        assert_eq!(sha256_bytes(b"abc"), want);
        assert!(sha256_file(dir.path()).is_err());
    }
}
