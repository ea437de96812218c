//! Sweeps as a user runs them: `simt run --record`, `simt sweep` (plans, the local
//! pool, resuming after `kill -9`, failures, Slurm arrays emulated task by task) and
//! `simt collect`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tempfile::TempDir;

fn repo() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).to_path_buf()
}

fn simt(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simt")).current_dir(dir).args(args).env("NO_COLOR", "1").output().expect("simt runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A folder with two small kernels (a copy of saxpy and one that faults) and a plan.
fn workspace(plan: &str) -> TempDir {
    let dir = TempDir::new().unwrap();
    std::fs::create_dir(dir.path().join("k")).unwrap();
    std::fs::copy(repo().join("asm/saxpy.s"), dir.path().join("k/saxpy.s")).unwrap();
    std::fs::copy(repo().join("asm/vector_add.s"), dir.path().join("k/vector_add.s")).unwrap();
    std::fs::write(dir.path().join("plan.toml"), plan).unwrap();
    dir
}

const PLAN: &str = "out = \"s.sweep\"\n\n[[kernel]]\npath = \"k/*.s\"\n\n[grid]\nsimt = [\"its\", \"stack\"]\ngrid = [\"1\", \"2\", \"4\"]\n";

fn records(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "json")).collect();
    files.sort();
    files
}

#[test]
fn identical_runs_share_a_key_and_different_inputs_do_not() {
    let dir = workspace(PLAN);
    let run = |args: &[&str]| {
        let mut all = vec!["run", "k/saxpy.s", "--record", "rec"];
        all.extend_from_slice(args);
        assert_eq!(simt(dir.path(), &all).status.code(), Some(0));
    };
    run(&["--arg", "a=2", "--dump", "y"]);
    run(&["--dump", "y", "--arg", "a=2", "--threads", "1"]);
    assert_eq!(records(&dir.path().join("rec")).len(), 1, "order and --threads change nothing");
    run(&["--arg", "a=3", "--dump", "y"]);
    run(&["--arg", "a=2", "--dump", "y", "--simt", "stack"]);
    std::fs::write(dir.path().join("k/saxpy.s"), std::fs::read_to_string(repo().join("asm/saxpy.s")).unwrap() + "\n// edited\n").unwrap();
    run(&["--arg", "a=2", "--dump", "y"]);
    let files = records(&dir.path().join("rec"));
    assert_eq!(files.len(), 4, "an argument, a flag and the kernel's bytes each make a new key");
    let record: serde_json::Value = serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    for field in ["key", "command", "inputs", "status", "summary", "dumps", "wall_s", "peak_memory_bytes"] {
        assert!(!record[field].is_null(), "{field} in {record}");
    }
    assert_eq!(record["key"].as_str().unwrap(), files[0].file_stem().unwrap().to_str().unwrap());
    assert_eq!(record["inputs"]["files"][0]["sha256"].as_str().unwrap().len(), 64);
}

#[test]
fn expect_compares_a_dump_with_a_reference() {
    let dir = workspace(PLAN);
    assert_eq!(simt(dir.path(), &["run", "k/saxpy.s", "--dump", "y=ref.npy"]).status.code(), Some(0));
    let same = simt(dir.path(), &["run", "k/saxpy.s", "--expect", "y=ref.npy", "--record", "rec"]);
    assert_eq!(same.status.code(), Some(0), "{}", text(&same.stderr));
    let differ = simt(dir.path(), &["run", "k/saxpy.s", "--arg", "a=2.5001", "--expect", "y=ref.npy", "--record", "rec"]);
    assert_eq!(differ.status.code(), Some(3));
    assert!(text(&differ.stderr).starts_with("error: --expect y: "), "{}", text(&differ.stderr));
    let close = simt(dir.path(), &["run", "k/saxpy.s", "--arg", "a=2.5001", "--expect", "y=ref.npy", "--tolerance", "y=1e-3"]);
    assert_eq!(close.status.code(), Some(0), "{}", text(&close.stderr));
    let rec: Vec<serde_json::Value> = records(&dir.path().join("rec")).iter().map(|p| serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()).collect();
    let passed: Vec<bool> = rec.iter().map(|r| r["checks"][0]["passed"].as_bool().unwrap()).collect();
    assert!(passed.contains(&true) && passed.contains(&false), "{rec:?}");
}

#[test]
fn a_sweep_runs_every_job_once_and_resumes() {
    let dir = workspace(PLAN);
    let dry = simt(dir.path(), &["sweep", "plan.toml", "--dry-run"]);
    assert!(text(&dry.stdout).contains("12 jobs"), "{}", text(&dry.stdout));
    assert!(!dir.path().join("s.sweep").exists(), "a dry run writes nothing");
    let first = simt(dir.path(), &["sweep", "plan.toml", "--jobs", "2"]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    assert!(text(&first.stderr).contains("12 jobs run: 12 done, 0 failed; 0 skipped"), "{}", text(&first.stderr));
    assert_eq!(records(&dir.path().join("s.sweep/records")).len(), 12);
    let manifest = std::fs::read_to_string(dir.path().join("s.sweep/manifest.jsonl")).unwrap();
    assert_eq!(manifest.lines().count(), 12);
    let again = simt(dir.path(), &["sweep", "plan.toml"]);
    assert!(text(&again.stderr).contains("0 jobs run: 0 done, 0 failed; 12 skipped"), "{}", text(&again.stderr));
    assert_eq!(text(&simt(dir.path(), &["sweep", "plan.toml", "--status"]).stdout), "12 jobs: 12 done, 0 failed, 0 missing\n");
}

#[test]
fn failed_jobs_are_recorded_and_the_others_go_on() {
    let dir = workspace("out = \"s.sweep\"\n[[kernel]]\npath = \"bad/*.s\"\n[options]\nmax-steps = 200000\n[grid]\nsimt = [\"its\", \"stack\"]\n");
    std::fs::create_dir(dir.path().join("bad")).unwrap();
    std::fs::write(dir.path().join("bad/a_syntax.s"), ".kernel k\n    FROB R0\n").unwrap();
    for name in ["oob.s", "divergent_barrier.s"] {
        std::fs::copy(repo().join("asm/bugs").join(name), dir.path().join("bad").join(name)).unwrap();
    }
    std::fs::copy(repo().join("asm/divergence/spinlock.s"), dir.path().join("bad/spinlock.s")).unwrap();
    let out = simt(dir.path(), &["sweep", "plan.toml"]);
    assert_eq!(out.status.code(), Some(2));
    let summary = text(&out.stderr);
    // Syntax twice, oob twice, the barrier deadlocks under stack, the spin lock hits the step limit under stack.
    assert!(summary.starts_with("sweep: 8 jobs run: 2 done, 6 failed; 0 skipped"), "{summary}");
    for what in ["unknown mnemonic", "past the end of buffer", "deadlock", "200000 warp instructions"] {
        assert!(summary.to_lowercase().contains(what), "{what}: {summary}");
    }
    assert_eq!(text(&simt(dir.path(), &["sweep", "plan.toml", "--status"]).stdout), "8 jobs: 2 done, 6 failed, 0 missing\n");
    let retry = simt(dir.path(), &["sweep", "plan.toml", "--retry-failed"]);
    assert!(text(&retry.stderr).starts_with("sweep: 6 jobs run: 0 done, 6 failed; 2 skipped"), "{}", text(&retry.stderr));
}

#[test]
fn a_job_over_its_memory_limit_fails_alone() {
    let dir = workspace("out = \"s.sweep\"\n[[kernel]]\npath = \"k/saxpy.s\"\n[grid]\narg.x = [\"zeros(1000)\", \"zeros(100000000)\"]\n");
    let out = simt(dir.path(), &["sweep", "plan.toml", "--mem-limit", "256M"]);
    assert_eq!(out.status.code(), Some(2));
    let summary = text(&out.stderr);
    assert!(summary.starts_with("sweep: 2 jobs run: 1 done, 1 failed"), "{summary}");
}

#[test]
fn bad_plans_name_their_line_and_run_nothing() {
    let cases = [
        ("[grid]\nsimd = [\"its\"]\n", "plan.toml:5:1", "has no option --simd (did you mean `simt`?)"),
        ("[[kernel]]\npath = \"missing.s\"\n", "plan.toml:5:8", "cannot read kernel `missing.s`"),
        ("[grid]\nsimt = []\n", "plan.toml:5:8", "has no values"),
        ("[grid]\nsimt = [\"its\", \"vliw\"]\n", "plan.toml:5:16", "invalid value 'vliw'"),
        (
            "[grid]\narg.a = [1,2,3,4,5,6,7,8,9,10]\narg.n = [1,2,3,4,5,6,7,8,9,10]\nmax-steps = [1,2,3,4,5,6,7,8,9,10]\nsms = [1,2,3,4,5,6,7,8,9,10]\nits-yield = [1,2,3,4,5,6,7,8,9,10]\nrunaway-steps = [1,2,3,4,5,6,7,8,9,10]\ntimeout = [1,2,3,4,5,6,7,8,9,10,11]\n",
            "plan.toml",
            "the plan expands to 11000000 jobs, more than the 1000000",
        ),
        (
            &format!("[grid]\n{}", (0..20).map(|i| format!("arg.v{i} = [1,2,3,4,5,6,7,8,9,10]\n")).collect::<String>()),
            "plan.toml",
            "the plan expands to more than 18446744073709551615 jobs",
        ),
    ];
    for (tail, place, message) in cases {
        let dir = workspace(&format!("out = \"s.sweep\"\n[[kernel]]\npath = \"k/saxpy.s\"\n{tail}"));
        let out = simt(dir.path(), &["sweep", "plan.toml"]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{tail}: {stderr}");
        assert!(stderr.contains(place) && stderr.contains(message), "{tail}: {stderr}");
        assert!(!dir.path().join("s.sweep").exists(), "{tail}: nothing runs");
    }
}

#[test]
fn kill_9_half_way_loses_only_the_jobs_in_flight() {
    let plan = "out = \"s.sweep\"\n[[kernel]]\npath = \"k/*.s\"\n[grid]\narg.n = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]\nsimt = [\"its\", \"stack\"]\n";
    let dir = workspace(plan);
    let mut child = Command::new(env!("CARGO_BIN_EXE_simt")).current_dir(dir.path()).args(["sweep", "plan.toml", "--jobs", "1"]).spawn().unwrap();
    let records_dir = dir.path().join("s.sweep/records");
    let started = std::time::Instant::now();
    while records(&records_dir).len() < 10 && started.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    // The job in flight dies by its parent-death signal, which can land after it renamed its
    // record into place: count once the directory has stopped changing.
    let mut done = records(&records_dir);
    loop {
        std::thread::sleep(std::time::Duration::from_millis(100));
        let now = records(&records_dir);
        if now.len() == done.len() {
            break;
        }
        done = now;
    }
    assert!(done.len() >= 10 && done.len() < 64, "{} records", done.len());
    for path in &done {
        serde_json::from_slice::<serde_json::Value>(&std::fs::read(path).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    let rerun = simt(dir.path(), &["sweep", "plan.toml"]);
    let summary = text(&rerun.stderr);
    assert!(summary.contains(&format!("{} skipped", done.len())), "{summary}");
    let resumed = simt(dir.path(), &["collect", "s.sweep"]).stdout;
    let fresh = workspace(plan);
    assert_eq!(simt(fresh.path(), &["sweep", "plan.toml"]).status.code(), Some(0));
    assert_eq!(text(&resumed), text(&simt(fresh.path(), &["collect", "s.sweep"]).stdout), "the table equals an uninterrupted sweep's");
}

#[test]
fn slurm_arrays_cover_the_jobs_left_and_match_the_local_run() {
    let dir = workspace(PLAN);
    let out =
        simt(dir.path(), &["sweep", "plan.toml", "--emit", "slurm", "arr", "--chunk", "5", "--partition", "batch", "--time", "0:10:00", "--max-running", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let script = std::fs::read_to_string(dir.path().join("arr/sweep.sbatch")).unwrap();
    let arr = std::path::absolute(dir.path().join("arr")).unwrap();
    insta::assert_snapshot!(script.replace(&arr.display().to_string(), "ARR"));
    assert!(dir.path().join("arr/simt").is_file(), "the binary is copied beside the manifest");
    // Tasks 0 and 2 of three run; task 1 is "cancelled".
    for task in ["0", "2"] {
        let out = Command::new(dir.path().join("arr/simt"))
            .current_dir(dir.path())
            .args(["sweep", "--manifest", "arr/manifest.jsonl", "--chunk", "5", "--task", task])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    assert_eq!(text(&simt(dir.path(), &["sweep", "plan.toml", "--status"]).stdout), "12 jobs: 7 done, 0 failed, 5 missing\n");
    let again = simt(dir.path(), &["sweep", "plan.toml", "--emit", "slurm", "arr", "--chunk", "5"]);
    assert!(text(&again.stdout).starts_with("5 jobs in 1 array tasks"), "{}", text(&again.stdout));
    let out = Command::new(dir.path().join("arr/simt"))
        .current_dir(dir.path())
        .args(["sweep", "--manifest", "arr/manifest.jsonl", "--chunk", "5", "--task", "0"])
        .output()
        .unwrap();
    assert!(text(&out.stderr).contains("5 jobs run: 5 done"), "{}", text(&out.stderr));
    let local = workspace(PLAN);
    assert_eq!(simt(local.path(), &["sweep", "plan.toml"]).status.code(), Some(0));
    let table = |d: &Path| simt(d, &["collect", "s.sweep"]).stdout;
    assert_eq!(text(&table(dir.path())), text(&table(local.path())), "Slurm's table is the local pool's, byte for byte");
}

#[test]
fn collect_writes_csv_jsonl_and_a_chart() {
    let dir = workspace(PLAN);
    assert_eq!(simt(dir.path(), &["sweep", "plan.toml"]).status.code(), Some(0));
    assert_eq!(simt(dir.path(), &["collect", "s.sweep", "-o", "t.csv"]).status.code(), Some(0));
    let csv = std::fs::read_to_string(dir.path().join("t.csv")).unwrap();
    assert_eq!(csv.lines().count(), 13);
    assert!(csv.starts_with("key,kernel,status,exit_code,error,"), "{csv}");
    assert!(csv.lines().next().unwrap().contains("opt.simt") && csv.contains("stats.simd_efficiency"), "{csv}");
    assert_eq!(simt(dir.path(), &["collect", "s.sweep", "-o", "t.jsonl"]).status.code(), Some(0));
    for line in std::fs::read_to_string(dir.path().join("t.jsonl")).unwrap().lines() {
        let row: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(row["status"], "ok");
    }
    let out = simt(dir.path(), &["collect", "s.sweep", "--plot", "stats.warp_instructions", "--by", "grid", "-o", "c.svg"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let svg = std::fs::read_to_string(dir.path().join("c.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("rect") && n.children().any(|c| c.has_tag_name("title"))).count(), 12);
    let bad = simt(dir.path(), &["collect", "s.sweep", "--plot", "stats.warp_instructions", "--by", "scheduler"]);
    assert_eq!(bad.status.code(), Some(1));
}

/// The chart `docs/sweeps.md` shows is what the scheduler study produces today
/// (`SIMT_BLESS=1 cargo test --release --test sweep` redraws it).
#[test]
fn the_scheduler_study_chart_is_current() {
    let dir = TempDir::new().unwrap();
    std::fs::create_dir_all(dir.path().join("examples/sweeps")).unwrap();
    std::os::unix::fs::symlink(repo().join("asm"), dir.path().join("asm")).unwrap();
    std::fs::copy(repo().join("examples/sweeps/scheduler-study.toml"), dir.path().join("examples/sweeps/scheduler-study.toml")).unwrap();
    let out = simt(dir.path(), &["sweep", "examples/sweeps/scheduler-study.toml"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = simt(dir.path(), &["collect", "examples/sweeps/scheduler-study.sweep", "--plot", "timing.cycles", "--by", "scheduler", "-o", "chart.svg"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let chart = std::fs::read_to_string(dir.path().join("chart.svg")).unwrap();
    let shipped = repo().join("docs/img/scheduler-study-cycles.svg");
    if std::env::var_os("SIMT_BLESS").is_some() {
        std::fs::create_dir_all(shipped.parent().unwrap()).unwrap();
        std::fs::write(&shipped, &chart).unwrap();
    }
    assert_eq!(std::fs::read_to_string(&shipped).unwrap_or_default(), chart, "the chart is stale: SIMT_BLESS=1 cargo test --release --test sweep");
}

/// A machine file counts by its resolved values: a comment changes no key, a number does.
#[test]
fn keys_hash_a_machines_resolved_values() {
    let dir = workspace(PLAN);
    let h100 = std::fs::read_to_string(repo().join("configs/h100.toml")).unwrap();
    let run = |config: &str| {
        std::fs::write(dir.path().join("m.toml"), config).unwrap();
        let out = simt(dir.path(), &["run", "k/saxpy.s", "--timing", "m.toml", "--record", "rec"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        records(&dir.path().join("rec")).len()
    };
    assert_eq!(run(&h100), 1);
    assert_eq!(run(&format!("# a comment\n{h100}")), 1, "a comment changes nothing");
    let changed = h100.replacen("scheduler = \"gto\"", "scheduler = \"lrr\"", 1);
    assert_ne!(changed, h100);
    assert_eq!(run(&changed), 2, "a value makes a new key");
}

#[test]
fn bad_sweep_flags_are_refused_with_what_to_do() {
    let dir = workspace(PLAN);
    let out = simt(dir.path(), &["sweep", "plan.toml", "--emit", "pbs", "out"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("the engines simt writes job scripts for are: slurm"), "{}", text(&out.stderr));
    assert!(!dir.path().join("s.sweep").exists(), "nothing is written");
    let out = simt(dir.path(), &["sweep", "plan.toml", "--mem-limit", "10"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("is not a size of at least 1M (for example 4G or 512M)"), "{}", text(&out.stderr));
    let out = simt(dir.path(), &["collect", "nowhere"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("is not a folder of run records"), "{}", text(&out.stderr));
    // Nothing a user types becomes a line of the job script of its own.
    for bad in [["--partition", "batch\n#SBATCH --wrap=rm"], ["--time", "1:00 && x"], ["--mem", ""]] {
        let out = simt(dir.path(), &["sweep", "plan.toml", "--emit", "slurm", "out", bad[0], bad[1]]);
        assert_eq!(out.status.code(), Some(1), "{bad:?}");
        assert!(text(&out.stderr).contains("is not a Slurm value"), "{}", text(&out.stderr));
    }
    for bad in ["--max-running", "--cpus-per-task"] {
        let out = simt(dir.path(), &["sweep", "plan.toml", "--emit", "slurm", "out", bad, "0"]);
        assert_eq!(out.status.code(), Some(1), "{bad} 0");
    }
    assert!(!dir.path().join("out").exists() && !dir.path().join("s.sweep").exists(), "nothing is written");
}

#[test]
fn a_plan_writes_only_inside_its_folder() {
    for out in ["../..", "/tmp/elsewhere.sweep", "a/../../b", ".", ""] {
        let dir = workspace(&format!("out = \"{out}\"\n[[kernel]]\npath = \"k/saxpy.s\"\n"));
        let run = simt(dir.path(), &["sweep", "plan.toml"]);
        assert_eq!(run.status.code(), Some(1), "out = {out}");
        assert!(text(&run.stderr).contains("the sweep folder is a folder inside the plan's"), "{}", text(&run.stderr));
    }
}

#[test]
fn a_second_sweep_into_the_same_folder_stops_at_once() {
    use std::os::fd::AsRawFd;
    let dir = workspace(PLAN);
    std::fs::create_dir_all(dir.path().join("s.sweep")).unwrap();
    // Another sweep holds the folder's lock.
    let held = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(dir.path().join("s.sweep/.lock")).unwrap();
    // SAFETY: flock on a descriptor this test owns.
    assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) }, 0);
    let out = simt(dir.path(), &["sweep", "plan.toml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("another `simt sweep` is running jobs into"), "{}", text(&out.stderr));
    assert!(records(&dir.path().join("s.sweep/records")).is_empty(), "no job ran");
    // The status is read without the lock.
    assert_eq!(simt(dir.path(), &["sweep", "plan.toml", "--status"]).status.code(), Some(0));
    drop(held);
    assert_eq!(simt(dir.path(), &["sweep", "plan.toml"]).status.code(), Some(0));
}

#[test]
fn collect_leaves_out_what_is_not_a_record_and_goes_on() {
    let dir = workspace(PLAN);
    assert_eq!(simt(dir.path(), &["sweep", "plan.toml", "--jobs", "2"]).status.code(), Some(0));
    let records_dir = dir.path().join("s.sweep/records");
    let good = records(&records_dir).len();
    std::fs::write(records_dir.join("damaged.json"), "{ not json").unwrap();
    std::os::unix::fs::symlink("/dev/zero", records_dir.join("zero.json")).unwrap();
    let fifo = std::ffi::CString::new(records_dir.join("fifo.json").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a valid C string.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let out = simt(dir.path(), &["collect", "s.sweep", "-o", "t.csv"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("damaged.json: not a run record")
            && stderr.contains("zero.json: not a regular file")
            && stderr.contains("fifo.json: not a regular file"),
        "{stderr}"
    );
    assert!(stderr.contains(&format!("3 of {} files", good + 3)), "{stderr}");
    let table = std::fs::read_to_string(dir.path().join("t.csv")).unwrap();
    assert_eq!(table.lines().count(), good + 1, "a header and a row per record");
    // --status does not block on the FIFO either.
    assert_eq!(simt(dir.path(), &["sweep", "plan.toml", "--status"]).status.code(), Some(0));
}
