//! Run records: one JSON file per run, named by its key, whole or absent.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::check::CheckOutcome;
use crate::key::Inputs;

/// The version of the record format; readers refuse others.
pub const RECORD_FORMAT: u32 = 1;

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// It ran to the end.
    Ok,
    /// simt rejected the input (exit 1): assembly or argument errors, unreadable files.
    Rejected,
    /// The kernel faulted (exit 2): a bad access, a deadlock, the step limit, a timeout.
    Fault,
    /// The process died without a record of its own (a signal, the memory limit);
    /// the sweep that ran it wrote this one.
    Crashed,
}

impl Status {
    /// The name used in records and tables.
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Rejected => "rejected",
            Status::Fault => "fault",
            Status::Crashed => "crashed",
        }
    }
}

/// What one run of `simt run` read, did and produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// [`RECORD_FORMAT`].
    pub format: u32,
    /// The key of [`Record::inputs`], which names the file.
    pub key: String,
    /// The command, as given to `simt run`.
    pub command: Vec<String>,
    /// Everything that determines the result.
    pub inputs: Inputs,
    /// How the run ended.
    pub status: Status,
    /// The exit status, if the process exited.
    pub exit_code: Option<i32>,
    /// The error, for a run that did not end well.
    pub error: Option<String>,
    /// The object `simt run --json` prints, without the buffers: the launch and its
    /// statistics (functional, and timing when used); none for a failed run.
    pub summary: Option<serde_json::Value>,
    /// The SHA-256 of each dumped buffer's `.npy` form, by buffer name.
    pub dumps: BTreeMap<String, String>,
    /// Dumps compared with references.
    pub checks: Vec<CheckOutcome>,
    /// Wall-clock seconds of the whole run.
    pub wall_s: f64,
    /// Peak resident memory, where known.
    pub peak_memory_bytes: Option<u64>,
}

impl Record {
    /// Whether the run failed (anything but [`Status::Ok`]; a failed check is a result, not a failure).
    pub fn failed(&self) -> bool {
        self.status != Status::Ok
    }

    /// The first line of the error, or of the first failed check.
    pub fn first_error_line(&self) -> Option<String> {
        match &self.error {
            Some(e) => Some(e.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string()),
            None => self.checks.iter().find(|c| !c.passed).map(CheckOutcome::describe),
        }
    }

    /// Writes the record into `dir` as `KEY.json`, whole or not at all.
    ///
    /// # Errors
    /// What the filesystem said.
    pub fn write(&self, dir: &Path) -> std::io::Result<PathBuf> {
        use std::io::Write;
        std::fs::create_dir_all(dir)?;
        let path = record_path(dir, &self.key);
        let mut json = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        json.push(b'\n');
        simt_io::write_atomically(&path, |mut f| f.write_all(&json))?;
        Ok(path)
    }

    /// Reads the record at `path`: a regular file (a FIFO or a device among the records
    /// would block or never end) of at most [`MAX_RECORD_BYTES`].
    ///
    /// # Errors
    /// An unreadable or oversized file, something not a file, JSON that is not a record,
    /// or another format version.
    pub fn read(path: &Path) -> Result<Record, RecordError> {
        let meta = std::fs::metadata(path).map_err(|source| simt_io::ReadError::Io { path: path.to_path_buf(), source })?;
        if !meta.is_file() {
            return Err(RecordError::NotAFile(path.to_path_buf()));
        }
        let bytes = simt_io::read_bounded(path, MAX_RECORD_BYTES)?;
        Record::parse(&bytes).map_err(|problem| RecordError::Invalid { path: path.to_path_buf(), problem })
    }

    /// Parses a record's bytes.
    ///
    /// # Errors
    /// JSON that is not a record of this format.
    pub fn parse(bytes: &[u8]) -> Result<Record, InvalidRecord> {
        #[derive(Deserialize)]
        struct Format {
            format: u32,
        }
        let format: Format = serde_json::from_slice(bytes).map_err(InvalidRecord::NotARecord)?;
        if format.format != RECORD_FORMAT {
            return Err(InvalidRecord::OtherFormat(format.format));
        }
        serde_json::from_slice(bytes).map_err(InvalidRecord::NotARecord)
    }
}

/// Why a file is not a record this simt can read.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// It could not be read, or is larger than [`MAX_RECORD_BYTES`].
    #[error(transparent)]
    Read(#[from] simt_io::ReadError),
    /// It is a folder, a FIFO or a device: reading it would block or never end.
    #[error("{}: not a regular file, so not a record", .0.display())]
    NotAFile(PathBuf),
    /// Its bytes are not a record.
    #[error("{}: {problem}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with its bytes.
        problem: InvalidRecord,
    },
}

/// What is wrong with bytes that should be a record.
#[derive(Debug, thiserror::Error)]
pub enum InvalidRecord {
    /// Not JSON, or JSON without a record's fields.
    #[error("not a run record: {0}")]
    NotARecord(serde_json::Error),
    /// A record of another format version.
    #[error("a record of format {0}, and this simt reads format {RECORD_FORMAT}")]
    OtherFormat(u32),
}

/// The largest record read: a run's record holds its statistics and hashes, never buffers.
pub const MAX_RECORD_BYTES: u64 = 64 << 20;

/// Where the record of `key` lives in `dir`.
pub fn record_path(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("{key}.json"))
}

/// The keys that have a record in `dir` (none if it does not exist); temporaries and
/// other files are not records.
pub fn recorded_keys(dir: &Path) -> std::collections::HashSet<String> {
    record_files(dir).into_iter().filter_map(|p| Some(p.file_stem()?.to_str()?.to_string())).collect()
}

/// The record files in `dir`, sorted by name.
pub fn record_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json") && p.file_name().is_some_and(|n| !n.to_string_lossy().starts_with('.')))
        .collect();
    files.sort();
    files
}
