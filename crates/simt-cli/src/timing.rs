//! The timing backend on the command line: `simt run --timing`, `--pipeview`,
//! `--timeline`, and `simt configs`.

use simt_interp::trace::Filter;
use std::path::{Path, PathBuf};

use clap::Args;
use simt_host::PreparedLaunch;
use simt_interp::{FaultKind, RunOptions};
use simt_isa::{Kernel, Module};
use simt_timing::{Machine, PipeFilter, Report, TimingError, TimingOptions};

use crate::{Failure, Outcome, check_output, color, print};

/// The `simt run` flags of the timing backend.
#[derive(Args, Default)]
pub struct TimingArgs {
    /// Run cycle by cycle on a machine: a built-in name (`simt configs` lists them) or a .toml file;
    /// prints the timing report after the results.
    #[arg(long, value_name = "NAME|FILE.toml")]
    pub timing: Option<String>,
    /// With --timing: the warp scheduler policy, overriding the machine's: lrr (loose round-robin) or gto (greedy-then-oldest).
    #[arg(long, value_name = "POLICY", value_parser = ["lrr", "gto"], requires = "timing")]
    pub scheduler: Option<String>,
    /// With --timing: print each warp instruction's pipeline stages, one row per instruction.
    #[arg(long, requires = "timing")]
    pub pipeview: bool,
    /// With --pipeview: only the instruction at pc N.
    #[arg(long, value_name = "N", requires = "pipeview", conflicts_with = "line")]
    pub pc: Option<u32>,
    /// With --pipeview: only the instructions of source line L.
    #[arg(long, value_name = "L", requires = "pipeview")]
    pub line: Option<u32>,
    /// With --timing: write a Chrome trace-event file (open it in Perfetto or chrome://tracing).
    #[arg(long, value_name = "FILE.json", requires = "timing")]
    pub timeline: Option<PathBuf>,
}

/// A timed launch's report and the machine it ran on.
pub struct Timed {
    pub machine: Machine,
    pub report: Report,
}

/// Loads `--timing`'s machine.
pub fn machine(name: &str) -> Result<Machine, Failure> {
    Machine::load(name).map_err(Failure::input)
}

/// Runs the launch timed when `--timing` was given; `None` otherwise.
/// `select` is the `--trace-block` and `--warp` selection, which `--pipeview` shares with `--trace`;
/// `for_report` records the timeline a report draws.
#[allow(clippy::too_many_arguments)]
pub fn run(
    module: &Module,
    kernel: &Kernel,
    launch: &PreparedLaunch,
    options: &RunOptions,
    args: &TimingArgs,
    select: Filter,
    for_report: bool,
    inputs: &[&Path],
    progress: &simt_interp::Progress,
) -> Result<Option<Timed>, Failure> {
    let Some(name) = &args.timing else { return Ok(None) };
    let mut machine = machine(name)?;
    match args.scheduler.as_deref() {
        Some("lrr") => machine.sm.scheduler = simt_timing::config::Policy::Lrr,
        Some("gto") => machine.sm.scheduler = simt_timing::config::Policy::Gto,
        _ => {}
    }
    if let Some(path) = &args.timeline {
        check_output(path, inputs)?;
    }
    let timing = TimingOptions {
        pipeview: args.pipeview.then_some(PipeFilter { block: select.block, warp: select.warp, pc: args.pc, line: args.line }),
        timeline: args.timeline.is_some() || for_report,
        progress: Some(progress),
    };
    let report = simt_timing::run(kernel, &launch.config, &launch.memory, options, &machine, &timing).map_err(|e| match e {
        TimingError::Unsupported(why) => Failure::input(why.to_string()),
        TimingError::Fault(fault) if fault.kind == FaultKind::InvalidLaunch => Failure::input(fault.message),
        TimingError::Fault(fault) => Failure::Fault(fault.worded(&crate::run::CommandLine).render(module, color())),
    })?;
    if let Some(path) = &args.timeline {
        simt_io::write_atomically(path, |f| report.write_timeline(f)).map_err(|e| Failure::input(format!("cannot write {}: {e}", path.display())))?;
        if let Some(cycle) = report.recording_stopped {
            eprintln!(
                "note: {} holds the cycles before {cycle} only: the timeline stopped recording there, at {} records",
                path.display(),
                simt_timing::MAX_RECORDS
            );
        }
    }
    Ok(Some(Timed { machine, report }))
}

/// The `"timing"` member of `simt run --json`: the statistics, and the pipeview rows when
/// recorded (with `pipeview_stopped_at`, the cycle where recording stopped at its limit).
/// The rows are written as text, not built as a JSON value: a million of them as values
/// would take a gigabyte.
pub fn json(timed: &Timed, pipeview: bool) -> Result<String, serde_json::Error> {
    let stats = serde_json::to_string(&timed.report.stats)?;
    if !pipeview {
        return Ok(stats);
    }
    let Some(fields) = stats.strip_suffix('}') else { return Ok(stats) };
    let stopped = serde_json::to_string(&timed.report.recording_stopped)?;
    Ok(format!("{fields},\"pipeview\":{},\"pipeview_stopped_at\":{stopped}}}", serde_json::to_string(&timed.report.pipeview)?))
}

/// Prints the timing report (and the pipeview) after the results of a text run.
pub fn print_text(timed: &Timed, args: &TimingArgs) -> Outcome {
    let mut text = String::from("\n");
    text.push_str(&timed.report.stats.render_text(&timed.machine.description));
    if args.pipeview {
        text.push('\n');
        text.push_str(&timed.report.render_pipeview());
        if let Some(cycle) = timed.report.recording_stopped {
            text.push_str(&format!(
                "... stopped recording at cycle {cycle}, after {} records (rows and timeline events together, the limit): narrow it with --trace-block, --warp, --pc or --line\n",
                simt_timing::MAX_RECORDS
            ));
        }
    }
    print(&text)
}

/// Arguments of `simt configs`.
#[derive(Args)]
#[command(
    after_help = "Examples:\n  simt configs              # the built-in machines\n  simt configs h100 > my.toml   # a file to edit, then: simt run k.s --timing my.toml"
)]
pub struct ConfigsArgs {
    /// Print this machine's configuration file (a built-in name or a .toml file, which is checked).
    name: Option<String>,
}

/// `simt configs`: lists the built-in machines, or prints one's file.
pub fn configs(args: ConfigsArgs) -> Outcome {
    match args.name {
        None => {
            let mut text = String::new();
            for (name, _) in simt_timing::config::BUILTIN {
                let m = machine(name)?;
                text.push_str(&format!("{name:<10} {}\n", m.description));
            }
            text.push_str("\nUse one with `simt run FILE --timing NAME`; `simt configs NAME` prints its file to copy and edit.\n");
            print(&text)
        }
        Some(name) => {
            let m = machine(&name)?;
            match simt_timing::config::BUILTIN.iter().find(|(n, _)| *n == m.name && n.eq_ignore_ascii_case(&name)) {
                Some((_, text)) => print(text),
                None => print(&format!("{name}: a valid machine `{}` ({})\n", m.name, m.description)),
            }
        }
    }
}
