//! `simt sweep PLAN.toml`: every job of a plan run as its own `simt run --record`
//! process on a local pool, or emitted as a Slurm job array; jobs with a record are
//! skipped, so a sweep killed at any point resumes where it was.

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use simt_sweep::key::FileCache;
use simt_sweep::plan::Plan;
use simt_sweep::record::{RECORD_FORMAT, Record, Status, record_path};

use crate::record::{inputs_of, run_flags};
use crate::{Failure, Outcome};

/// Arguments of `simt sweep`.
#[derive(Args)]
#[command(after_help = "Examples:
  simt sweep examples/sweeps/scheduler-study.toml --dry-run
  simt sweep examples/sweeps/scheduler-study.toml --jobs 8
  simt sweep examples/sweeps/scheduler-study.toml --status
  simt sweep examples/sweeps/scheduler-study.toml --emit slurm OUT --chunk 100 --partition batch
  simt collect examples/sweeps/scheduler-study.sweep -o results.csv")]
pub struct SweepArgs {
    /// The plan (TOML; see docs/sweeps.md).
    #[arg(required_unless_present = "manifest")]
    plan: Option<PathBuf>,
    /// Print the expanded jobs (key and command) and run nothing.
    #[arg(long, conflicts_with_all = ["status", "emit"])]
    dry_run: bool,
    /// Count the jobs done, failed and missing from the records, and run nothing.
    #[arg(long, conflicts_with = "emit")]
    status: bool,
    /// Run the jobs whose record says they failed again (and the missing ones).
    #[arg(long)]
    retry_failed: bool,
    /// Jobs run at once [default: one per core].
    #[arg(short, long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=4096))]
    jobs: Option<u64>,
    /// Address-space limit of each job, in bytes with an optional K, M or G [default: the
    /// machine's memory divided by --jobs, at least 1G]; a job over it fails alone.
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    mem_limit: Option<u64>,
    /// Instead of running, write a job array for a cluster engine into DIR: `--emit slurm DIR`.
    #[arg(long, num_args = 2, value_names = ["ENGINE", "DIR"])]
    emit: Vec<String>,
    /// Jobs per array task (`--emit`), so a large sweep fits the site's MaxArraySize.
    #[arg(long, value_name = "C", default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    chunk: u64,
    /// Array tasks running at once (`--array=0-N%K`).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    max_running: Option<u64>,
    /// Passed to `sbatch --partition`.
    #[arg(long, value_name = "NAME", value_parser = slurm_value)]
    partition: Option<String>,
    /// Passed to `sbatch --time` (per array task).
    #[arg(long, value_name = "TIME", value_parser = slurm_value)]
    time: Option<String>,
    /// Passed to `sbatch --mem` (per array task).
    #[arg(long, value_name = "MEM", value_parser = slurm_value)]
    mem: Option<String>,
    /// Passed to `sbatch --cpus-per-task`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    cpus_per_task: Option<u64>,
    /// Run one array task's chunk of an emitted manifest (what the job script calls).
    #[arg(long, value_name = "FILE", requires = "task", hide = true)]
    manifest: Option<PathBuf>,
    /// The array task whose chunk to run.
    #[arg(long, value_name = "I", requires = "manifest", hide = true)]
    task: Option<u64>,
}

/// A value for an `#SBATCH` line: one word of the characters Slurm's partition names,
/// times and sizes use, so nothing can end the line or start another directive.
fn slurm_value(text: &str) -> Result<String, String> {
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "._:,+-=/".contains(c)) {
        Ok(text.to_string())
    } else {
        Err(format!("`{}` is not a Slurm value: use letters, digits and . _ : , + - = / (for example batch, 1:00:00, 4G)", text.escape_debug()))
    }
}

/// Holds the sweep folder's lock while jobs run, so two sweeps of one plan do not both run
/// every job: the second stops at once, saying why.
fn lock_sweep(out: &Path) -> Result<std::fs::File, Failure> {
    std::fs::create_dir_all(out).map_err(|e| Failure::input(format!("cannot create {}: {e}", out.display())))?;
    let path = out.join(".lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| Failure::input(format!("cannot open {}: {e}", path.display())))?;
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor this function owns; the lock goes with the file.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return Err(Failure::input(format!(
                "another `simt sweep` is running jobs into {}; wait for it to end (`--status` shows progress), or give this plan another `out`",
                out.display()
            )));
        }
    }
    Ok(file)
}

fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, scale) = match t.char_indices().last() {
        Some((i, 'K' | 'k')) => (&t[..i], 1u64 << 10),
        Some((i, 'M' | 'm')) => (&t[..i], 1 << 20),
        Some((i, 'G' | 'g')) => (&t[..i], 1 << 30),
        _ => (t, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .filter(|&n| n >= 1 << 20)
        .ok_or_else(|| format!("`{text}` is not a size of at least 1M (for example 4G or 512M)"))
}

/// One job as a manifest line: where it runs, where it records, its command and key.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Entry {
    key: String,
    /// The folder the job starts in (the plan's), absolute.
    cwd: PathBuf,
    /// The records folder, absolute.
    records: PathBuf,
    /// The arguments after `simt run`.
    argv: Vec<String>,
}

/// The sweep folder's layout.
fn records_dir(out: &Path) -> PathBuf {
    out.join("records")
}

/// A plan's jobs with their keys (files hashed once however many jobs read them).
fn entries(plan: &Plan) -> Result<Vec<Entry>, Failure> {
    let flags = run_flags();
    let cache = FileCache::default();
    let records = std::path::absolute(records_dir(&plan.out)).map_err(|e| Failure::input(e.to_string()))?;
    plan.jobs()
        .par_iter()
        .map(|job| {
            let argv = job.command.to_argv();
            let inputs = inputs_of(&argv, &plan.dir, &flags, &cache).map_err(Failure::input)?;
            Ok(Entry { key: inputs.key(), cwd: plan.dir.clone(), records: records.clone(), argv })
        })
        .collect()
}

/// Writes one JSON line per entry, whole or not at all.
fn write_manifest(path: &Path, entries: &[Entry]) -> Outcome {
    use std::io::Write;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Failure::input(format!("cannot create {}: {e}", dir.display())))?;
    }
    simt_io::write_atomically(path, |file| {
        let mut out = std::io::BufWriter::new(file);
        for entry in entries {
            serde_json::to_writer(&mut out, entry).map_err(std::io::Error::other)?;
            out.write_all(b"\n")?;
        }
        out.flush()
    })
    .map_err(|e| Failure::input(format!("cannot write {}: {e}", path.display())))
}

fn read_manifest(path: &Path) -> Result<Vec<Entry>, Failure> {
    let bytes = simt_io::read_bounded(path, 1 << 32).map_err(Failure::input)?;
    let text = String::from_utf8(bytes).map_err(|_| Failure::input(format!("{}: not a manifest (not UTF-8)", path.display())))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).map_err(|e| Failure::input(format!("{}:{}: not a manifest line: {e}", path.display(), i + 1))))
        .collect()
}

/// What the records say about a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Done,
    Failed,
    Missing,
}

fn state(entry: &Entry) -> State {
    match Record::read(&record_path(&entry.records, &entry.key)) {
        Ok(record) if record.failed() => State::Failed,
        Ok(_) => State::Done,
        // A record that does not parse (from another format, damaged by hand) is run again.
        Err(_) => State::Missing,
    }
}

pub fn sweep(args: SweepArgs) -> Outcome {
    if let (Some(manifest), Some(task)) = (&args.manifest, args.task) {
        return run_task(manifest, task, args.chunk, args.mem_limit);
    }
    if let Some(engine) = args.emit.first().filter(|e| *e != "slurm") {
        return Err(Failure::input(format!("--emit {engine}: the engines simt writes job scripts for are: slurm")));
    }
    let path = args.plan.as_deref().expect("clap requires the plan without --manifest");
    let plan = Plan::load(path, &run_flags()).map_err(Failure::input)?;
    let entries = entries(&plan)?;
    if args.dry_run {
        // Written as it goes: a large plan's listing is never held whole.
        let flags = run_flags();
        for e in &entries {
            let command = simt_sweep::command::RunCommand::parse(&e.argv, &flags).map_err(Failure::input)?;
            crate::print(&format!("{}  {}\n", e.key, command.display()))?;
        }
        return crate::print(&format!("{} jobs, run in {}, recorded in {}\n", entries.len(), plan.dir.display(), records_dir(&plan.out).display()));
    }
    let states: Vec<State> = entries.par_iter().map(state).collect();
    let count = |s: State| states.iter().filter(|&&t| t == s).count();
    if args.status {
        return crate::print(&format!(
            "{} jobs: {} done, {} failed, {} missing\n",
            entries.len(),
            count(State::Done),
            count(State::Failed),
            count(State::Missing)
        ));
    }
    let todo: Vec<Entry> = entries
        .iter()
        .zip(&states)
        .filter(|(_, s)| **s == State::Missing || (args.retry_failed || !args.emit.is_empty()) && **s == State::Failed)
        .map(|(e, _)| e.clone())
        .collect();
    let _lock = lock_sweep(&plan.out)?;
    write_manifest(&plan.out.join("manifest.jsonl"), &entries)?;
    if !args.emit.is_empty() {
        return emit(&args, &todo);
    }
    let skipped = entries.len() - todo.len();
    let jobs = args.jobs.map_or_else(rayon::current_num_threads, |j| j as usize).max(1);
    let limit = args.mem_limit.unwrap_or_else(|| default_mem_limit(jobs));
    let outcomes = run_pool(&todo, jobs, limit);
    summarise(&todo, &outcomes, skipped)
}

/// The machine's memory shared by the jobs, at least 1 GiB each.
fn default_mem_limit(jobs: usize) -> u64 {
    // SAFETY: sysconf only reads system constants.
    let (pages, page) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    let total = u64::try_from(pages).unwrap_or(0).saturating_mul(u64::try_from(page).unwrap_or(0));
    (total / jobs as u64).max(1 << 30)
}

/// How one job ended: its record, read back after the process exited.
type JobOutcome = Result<Record, String>;

/// Runs `todo` on `jobs` workers, each job a `simt run --record` process.
fn run_pool(todo: &[Entry], jobs: usize, mem_limit: u64) -> Vec<JobOutcome> {
    let next = AtomicUsize::new(0);
    let outcomes: Vec<Mutex<Option<JobOutcome>>> = todo.iter().map(|_| Mutex::new(None)).collect();
    let bar = std::io::stderr().is_terminal().then(|| {
        let style = ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} jobs, {per_sec}, ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        ProgressBar::new(todo.len() as u64).with_style(style)
    });
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(todo.len()) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(entry) = todo.get(i) else { break };
                    let outcome = run_job(entry, mem_limit);
                    *outcomes[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome);
                    if let Some(bar) = &bar {
                        bar.inc(1);
                    }
                }
            });
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    outcomes.into_iter().map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()).unwrap_or_else(|| Err("not run".into()))).collect()
}

/// Runs one job as its own process, under `mem_limit`. A process that dies without
/// its record (a signal, the memory limit) gets a record saying so.
fn run_job(entry: &Entry, mem_limit: u64) -> JobOutcome {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the simt binary: {e}"))?;
    let mut command = Command::new(exe);
    command.arg("run").args(&entry.argv).arg("--record").arg(&entry.records).current_dir(&entry.cwd);
    command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).env("NO_COLOR", "1");
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: only async-signal-safe prctl and setrlimit run between fork and exec.
        unsafe {
            command.pre_exec(move || {
                // A sweep killed with -9 takes its jobs with it: no orphan writes a record later.
                #[cfg(target_os = "linux")]
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                let limit = libc::rlimit { rlim_cur: mem_limit as libc::rlim_t, rlim_max: mem_limit as libc::rlim_t };
                if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let started = std::time::Instant::now();
    let mut child = command.spawn().map_err(|e| format!("cannot start simt run: {e}"))?;
    // The tail of stderr is all a crashed job leaves to say why.
    let mut stderr = Vec::new();
    if let Some(mut pipe) = child.stderr.take() {
        let _ = pipe.read_to_end(&mut stderr);
    }
    let status = child.wait().map_err(|e| format!("cannot wait for simt run: {e}"))?;
    let path = record_path(&entry.records, &entry.key);
    if let Ok(record) = Record::read(&path) {
        return Ok(record);
    }
    let tail = String::from_utf8_lossy(&stderr[stderr.len().saturating_sub(4096)..]).trim().to_string();
    let why = match status.code() {
        Some(code) => format!("simt run exited {code} without a record"),
        None => {
            #[cfg(unix)]
            let signal = std::os::unix::process::ExitStatusExt::signal(&status).unwrap_or(0);
            #[cfg(not(unix))]
            let signal = 0;
            format!("simt run was killed by signal {signal} (over --mem-limit {mem_limit} bytes, or killed)")
        }
    };
    let flags = run_flags();
    let inputs = inputs_of(&entry.argv, &entry.cwd, &flags, &FileCache::default())?;
    let record = Record {
        format: RECORD_FORMAT,
        key: entry.key.clone(),
        command: entry.argv.clone(),
        inputs,
        status: Status::Crashed,
        exit_code: status.code(),
        error: Some(if tail.is_empty() { why } else { format!("{why}\n{tail}") }),
        summary: None,
        dumps: Default::default(),
        checks: Vec::new(),
        wall_s: started.elapsed().as_secs_f64(),
        peak_memory_bytes: None,
    };
    record.write(&entry.records).map_err(|e| format!("cannot write the record of a crashed job: {e}"))?;
    Ok(record)
}

/// Done, failed (each with the first line of its error, or its failed check) and skipped;
/// exit 2 if any job failed or failed a check.
fn summarise(todo: &[Entry], outcomes: &[JobOutcome], skipped: usize) -> Outcome {
    let mut failed = Vec::new();
    let (mut done, mut mismatched) = (0, 0);
    for (entry, outcome) in todo.iter().zip(outcomes) {
        match outcome {
            Ok(record) if !record.failed() => {
                done += 1;
                // A check that failed is a result, not a failure, but a grader wants to see it.
                if let Some(check) = record.checks.iter().find(|c| !c.passed) {
                    mismatched += 1;
                    failed.push(format!("  {} {}: check {}", entry.key, entry.argv[0], check.describe()));
                }
            }
            Ok(record) => failed.push(format!("  {} {}: {}", entry.key, entry.argv[0], record.first_error_line().unwrap_or_default())),
            Err(e) => failed.push(format!("  {} {}: {e}", entry.key, entry.argv[0])),
        }
    }
    let checks = if mismatched > 0 { format!(" ({mismatched} with a failed check)") } else { String::new() };
    let mut text = format!("sweep: {} jobs run: {done} done{checks}, {} failed; {skipped} skipped (recorded before)\n", todo.len(), failed.len() - mismatched);
    const SHOWN: usize = 20;
    for line in failed.iter().take(SHOWN) {
        text.push_str(line);
        text.push('\n');
    }
    if failed.len() > SHOWN {
        text.push_str(&format!("  ... and {} more (simt collect lists them all)\n", failed.len() - SHOWN));
    }
    if failed.is_empty() {
        eprint!("{text}");
        Ok(())
    } else {
        Err(Failure::Fault(text))
    }
}

/// Runs task `task`'s chunk of an emitted manifest, one job after another.
fn run_task(manifest: &Path, task: u64, chunk: u64, mem_limit: Option<u64>) -> Outcome {
    let entries = read_manifest(manifest)?;
    let start = usize::try_from(task.saturating_mul(chunk)).unwrap_or(usize::MAX).min(entries.len());
    let end = usize::try_from((task + 1).saturating_mul(chunk)).unwrap_or(usize::MAX).min(entries.len());
    let todo: Vec<Entry> = entries[start..end].iter().filter(|e| state(e) != State::Done).cloned().collect();
    let skipped = (end - start) - todo.len();
    let outcomes: Vec<JobOutcome> = todo.iter().map(|e| run_job(e, mem_limit.unwrap_or_else(|| default_mem_limit(1)))).collect();
    summarise(&todo, &outcomes, skipped)
}

/// `--emit slurm DIR`: the jobs left to do as a manifest, the simt binary beside it, and
/// an `sbatch` script with one array task per chunk.
fn emit(args: &SweepArgs, todo: &[Entry]) -> Outcome {
    let dir = PathBuf::from(&args.emit[1]);
    std::fs::create_dir_all(dir.join("logs")).map_err(|e| Failure::input(format!("cannot create {}: {e}", dir.display())))?;
    let dir = std::path::absolute(&dir).map_err(|e| Failure::input(e.to_string()))?;
    if dir.to_string_lossy().chars().any(char::is_control) {
        return Err(Failure::input(format!(
            "--emit slurm `{}`: the folder's name is written into the job script; name it without control characters",
            dir.display()
        )));
    }
    let manifest = dir.join("manifest.jsonl");
    write_manifest(&manifest, todo)?;
    // A copy of this binary: rebuilding simt during the sweep changes nothing it runs.
    let exe = std::env::current_exe().map_err(|e| Failure::input(format!("cannot find the simt binary: {e}")))?;
    let copy = dir.join("simt");
    let temp = dir.join(".simt.tmp");
    std::fs::copy(&exe, &temp)
        .and_then(|_| std::fs::rename(&temp, &copy))
        .map_err(|e| Failure::input(format!("cannot copy simt to {}: {e}", copy.display())))?;
    let tasks = (todo.len() as u64).div_ceil(args.chunk);
    let script = dir.join("sweep.sbatch");
    let text = sbatch_script(args, &dir, tasks);
    crate::write_file(&script, text.as_bytes(), &[])?;
    if tasks == 0 {
        return crate::print("nothing to do: every job has a record that did not fail\n");
    }
    crate::print(&format!("{} jobs in {tasks} array tasks of up to {}: sbatch {}\n", todo.len(), args.chunk, script.display()))
}

fn sbatch_script(args: &SweepArgs, dir: &Path, tasks: u64) -> String {
    let quote = |p: &Path| simt_sweep::command::shell_quote(&p.display().to_string());
    let mut text =
        String::from("#!/bin/bash\n# Written by `simt sweep --emit slurm`: one array task per chunk of manifest.jsonl.\n#SBATCH --job-name=simt-sweep\n");
    let throttle = args.max_running.map(|k| format!("%{k}")).unwrap_or_default();
    text.push_str(&format!("#SBATCH --array=0-{}{throttle}\n", tasks.saturating_sub(1)));
    text.push_str(&format!("#SBATCH --output={}/logs/%A_%a.out\n", dir.display()));
    for (flag, value) in [
        ("partition", args.partition.clone()),
        ("time", args.time.clone()),
        ("mem", args.mem.clone()),
        ("cpus-per-task", args.cpus_per_task.map(|n| n.to_string())),
    ] {
        if let Some(v) = value {
            text.push_str(&format!("#SBATCH --{flag}={v}\n"));
        }
    }
    text.push_str(&format!(
        "exec {} sweep --manifest {} --chunk {} --task \"$SLURM_ARRAY_TASK_ID\"\n",
        quote(&dir.join("simt")),
        quote(&dir.join("manifest.jsonl")),
        args.chunk
    ));
    text
}
