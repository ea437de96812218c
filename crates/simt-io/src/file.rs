//! Reading files within a limit and writing them whole or not at all.

use std::path::{Path, PathBuf};

/// Encountered when [`read_bounded`] cannot give a file's bytes.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The path names a directory.
    #[error("cannot read {}: it is a directory", path.display())]
    Directory {
        /// The directory.
        path: PathBuf,
    },
    /// The file holds more than the limit.
    #[error("{} holds {size} bytes or more; the most simt reads is {limit}", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size, or the bytes read before giving up.
        size: u64,
        /// The most that was to be read.
        limit: u64,
    },
}

/// Reads at most `limit` bytes of `path`; a longer file (or an endless one such as
/// `/dev/zero`) is an error, not an allocation without bound.
///
/// # Errors
/// When the file cannot be read or holds more than `limit` bytes.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let io = |source| ReadError::Io { path: path.to_path_buf(), source };
    let too_big = |size| ReadError::TooLarge { path: path.to_path_buf(), size, limit };
    let file = std::fs::File::open(path).map_err(io)?;
    match file.metadata() {
        Ok(m) if m.is_dir() => return Err(ReadError::Directory { path: path.to_path_buf() }),
        Ok(m) if m.len() > limit => return Err(too_big(m.len())),
        _ => {}
    }
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_big(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Writes a file so that it is either whole or absent: `write` fills a temporary file
/// in the same folder, which is then renamed over `path`. A write cut short (a full
/// disk, a file-size limit, a crash) leaves any earlier file at `path` as it was.
/// A path that exists but is no regular file (a device, a FIFO) is written directly.
///
/// # Errors
/// What the filesystem said; the temporary file is removed.
pub fn write_atomically(path: &Path, write: impl FnOnce(&std::fs::File) -> std::io::Result<()>) -> std::io::Result<()> {
    // A device, pipe or socket (`/dev/stdout`, a FIFO) is written in place: it cannot
    // be replaced, and renaming over it would replace the device itself.
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return write(&std::fs::OpenOptions::new().write(true).open(path)?);
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let temp = dir.join(format!(".{name}.simt-{}.tmp", std::process::id()));
    // Not synced to disk: this guards against failed writes and a killed simt, which
    // is what loses data in practice, at no cost to the speed of large dumps.
    let result = std::fs::File::create(&temp).and_then(|file| write(&file));
    match result.and_then(|()| replace(&temp, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&temp);
            Err(e)
        }
    }
}

/// Puts the file `temp` in `path`'s place, atomically for anyone reading `path`.
///
/// Where `path` is an existing file on Linux, the two are swapped (`renameat2` with
/// `RENAME_EXCHANGE`) and the old one then removed, rather than renamed over: ext4
/// takes a rename over an existing file as a request to start writing the new file's
/// data to disk at once (its `auto_da_alloc` heuristic), which costs a 64 MiB dump
/// 40 ms on the critical path; after a swap the kernel writes it back in its own time.
fn replace(temp: &Path, path: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    if std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_dir()) {
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(std::io::Error::other);
        let (from, to) = (c(temp)?, c(path)?);
        // SAFETY: both are NUL-terminated paths that live across the call.
        let swapped = unsafe { libc::renameat2(libc::AT_FDCWD, from.as_ptr(), libc::AT_FDCWD, to.as_ptr(), libc::RENAME_EXCHANGE) } == 0;
        if swapped {
            // `temp` now names the old file. The new one is in place whatever happens here.
            let _ = std::fs::remove_file(temp);
            return Ok(());
        }
        // Not supported by this file system, or `path` vanished: a plain rename does.
    }
    std::fs::rename(temp, path)
}

/// Whether `path` names an `.npy` file (by its extension, in any case).
pub fn is_npy_path(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("npy"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_stop_at_the_limit_and_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.bin");
        std::fs::write(&path, [7; 10]).unwrap();
        assert_eq!(read_bounded(&path, 10).unwrap(), [7; 10]);
        let err = read_bounded(&path, 9).unwrap_err();
        assert_eq!(err.to_string(), format!("{} holds 10 bytes or more; the most simt reads is 9", path.display()));
        assert!(matches!(read_bounded(dir.path(), 9), Err(ReadError::Directory { .. })));
        assert!(matches!(read_bounded(&dir.path().join("none"), 9), Err(ReadError::Io { .. })));
    }

    #[test]
    fn replacing_a_file_swaps_in_the_new_one_and_leaves_nothing_behind() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let path = dir.join("y.bin");
        write_atomically(&path, |mut f| f.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new", "a file that did not exist");
        let reader = std::fs::File::open(&path).unwrap();
        write_atomically(&path, |mut f| f.write_all(b"newer")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"newer", "an existing file is replaced");
        assert_eq!(std::io::read_to_string(reader).unwrap(), "new", "a reader of the old file keeps reading it whole");
        let failed = write_atomically(&path, |mut f| {
            f.write_all(b"partial")?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"newer", "a failed write leaves the old file");
        #[cfg(unix)]
        {
            // Like `rename`, replacing a link replaces the link, not the file it points to.
            std::fs::write(dir.join("target"), b"kept").unwrap();
            std::os::unix::fs::symlink("target", dir.join("link")).unwrap();
            write_atomically(&dir.join("link"), |mut f| f.write_all(b"over")).unwrap();
            assert_eq!((std::fs::read(dir.join("target")).unwrap(), std::fs::read(dir.join("link")).unwrap()), (b"kept".to_vec(), b"over".to_vec()));
        }
        let names: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert!(names.iter().all(|n| !n.contains("tmp")), "no temporary files left: {names:?}");
    }
}
