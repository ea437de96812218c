//! `simt run --record DIR` and `--expect`: what a run leaves for a sweep. The record's
//! key comes from the command line and the bytes of every file it reads
//! (`simt_sweep::key`), so a sweep knows a job's key before running it.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{CommandFactory, Parser};
use sha2::{Digest, Sha256};
use simt_isa::ElemType;
use simt_sweep::check::{CheckOutcome, compare};
use simt_sweep::command::RunCommand;
use simt_sweep::flags::FlagSet;
use simt_sweep::key::{FileCache, Inputs};
use simt_sweep::record::{RECORD_FORMAT, Record, Status};

use crate::{Failure, Outcome};

/// The flags of `simt run`, from its own parser, each value checked by it too.
pub fn run_flags() -> FlagSet {
    let cli = crate::Cli::command();
    let run = cli.find_subcommand("run").expect("simt has a run subcommand");
    let flags: Vec<(String, Option<char>, bool)> =
        run.get_arguments().filter_map(|a| Some((a.get_long()?.to_string(), a.get_short(), a.get_action().takes_values()))).collect();
    FlagSet::new(flags)
        .with_machine_resolver(Box::new(|value, cwd| {
            let file = cwd.join(value);
            let name = if file.is_file() { file.display().to_string() } else { value.to_string() };
            // Every resolved field, in declaration order: what the timing model reads.
            simt_timing::Machine::load(&name).ok().map(|machine| format!("{machine:?}"))
        }))
        .with_value_check(Box::new(|name, value| {
            // The kernel path is never opened by parsing, so any name does.
            let mut argv = vec!["simt".to_string(), "run".into(), "k.s".into(), format!("--{name}")];
            argv.extend(value.map(str::to_string));
            match crate::Cli::try_parse_from(argv) {
                // Alone, a flag may lack a partner another option of the plan gives (`--scheduler` needs `--timing`).
                Err(e) if matches!(e.kind(), clap::error::ErrorKind::MissingRequiredArgument | clap::error::ErrorKind::ArgumentConflict) => Ok(()),
                Err(e) => Err(e.to_string().lines().next().unwrap_or_default().trim_start_matches("error: ").into()),
                Ok(_) => Ok(()),
            }
        }))
}

/// What a run produced that its record keeps.
#[derive(Default)]
pub struct RunResults {
    /// The `--json` object without buffers.
    pub summary: Option<serde_json::Value>,
    /// The SHA-256 of each dumped buffer's `.npy` form.
    pub dumps: BTreeMap<String, String>,
    /// The `--expect` comparisons.
    pub checks: Vec<CheckOutcome>,
}

/// A sink that hashes what is written to it.
struct HashWriter(Sha256);

impl Write for HashWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The SHA-256 of a buffer's `.npy` form, streamed.
pub fn npy_hash(elem: ElemType, buffer: &simt_interp::memory::Buffer) -> String {
    let mut hasher = HashWriter(Sha256::new());
    simt_host::write_npy(&mut hasher, elem, buffer).expect("hashing cannot fail");
    simt_sweep::key::hex(&hasher.0.finalize())
}

/// Compares a buffer with the reference `.npy` file `reference`, read as `want`.
pub fn check_buffer(
    dump: &str,
    elem: ElemType,
    buffer: &simt_interp::memory::Buffer,
    reference: &str,
    want: &simt_io::npy::Array,
    tolerance: f64,
) -> CheckOutcome {
    let mut bytes = Vec::new();
    simt_host::write_npy(&mut bytes, elem, buffer).expect("writing to memory cannot fail");
    match simt_io::npy::read(&bytes) {
        Ok(got) => compare(dump, &got, reference, want, tolerance),
        Err(e) => CheckOutcome::failed(dump, reference, tolerance, e.to_string()),
    }
}

/// Peak resident memory of this process so far.
fn peak_memory_bytes() -> Option<u64> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a whole rusage into the pointer it is given.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } == 0;
    // SAFETY: written by the successful call above.
    ok.then(|| unsafe { usage.assume_init() }.ru_maxrss as u64 * 1024)
}

/// `text` without ANSI colour sequences (a run on a terminal renders them).
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            chars.by_ref().find(|c| c.is_ascii_alphabetic());
        } else {
            out.push(c);
        }
    }
    out
}

/// The key and inputs of the `simt run` whose arguments are `argv`, started in `cwd`.
///
/// # Errors
/// A command line the sweep's reader does not understand (simt's own parser accepted it).
pub fn inputs_of(argv: &[String], cwd: &Path, flags: &FlagSet, cache: &FileCache) -> Result<Inputs, String> {
    let command = RunCommand::parse(argv, flags).map_err(|e| e.to_string())?;
    Ok(Inputs::gather(&command, cwd, flags, cache))
}

/// Writes the record of a run that ended with `outcome` into `dir`.
pub fn write(dir: &Path, argv: Vec<String>, outcome: &Outcome, results: RunResults, started: Instant) -> Outcome {
    let flags = run_flags();
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let inputs = inputs_of(&argv, &cwd, &flags, &FileCache::default()).map_err(Failure::input)?;
    let (status, exit_code, error) = match outcome {
        Ok(()) => (Status::Ok, 0, None),
        Err(Failure::Rejected(text)) => (Status::Rejected, 1, Some(plain(text))),
        Err(Failure::Fault(text)) => (Status::Fault, 2, Some(plain(text))),
        // A failed check is a result of the run, kept in `checks`.
        Err(Failure::Mismatch(_)) => (Status::Ok, 3, None),
    };
    let record = Record {
        format: RECORD_FORMAT,
        key: inputs.key(),
        command: argv,
        inputs,
        status,
        exit_code: Some(exit_code),
        error,
        summary: results.summary,
        dumps: results.dumps,
        checks: results.checks,
        wall_s: started.elapsed().as_secs_f64(),
        peak_memory_bytes: peak_memory_bytes(),
    };
    record.write(dir).map(|_| ()).map_err(|e| Failure::input(format!("cannot write the record into {}: {e}", dir.display())))
}
