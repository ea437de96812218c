//! `simt run`: one launch, from the command line to dumped buffers.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use simt_host::{self as host, Arg, HostError, LaunchRequest, PreparedLaunch};
use simt_interp::launch::{DEFAULT_ITS_YIELD, DEFAULT_MAX_STEPS, DEFAULT_RUNAWAY_STEPS, DEFAULT_SMS};
use simt_interp::trace::Filter;
use simt_interp::{Checks, Fault, FaultKind, Finding, Progress, RunOptions, SimtModel, Stats};
use simt_isa::{ElemType, Kernel, Module};

use crate::{Failure, Outcome, check_output, color, load_module};

/// Arguments of `simt run`.
#[derive(Args)]
#[command(group(clap::ArgGroup::new("tracing").args(["trace", "trace_svg", "pipeview", "report"]).multiple(true)))]
#[command(after_help = "Examples:
  simt run asm/saxpy.s --dump y
  simt run asm/saxpy.s --grid 4 --block 256 --arg n=1000 --arg a=2.5 \\
      --arg 'x=iota(1000)' --arg y=@y.npy --dump y=out.npy
  simt run asm/saxpy.s --simt stack --json --dump y
  simt run asm/bugs/race.s --check racecheck,initcheck

Argument values: a literal (42, -2.5, 0f3F800000) for scalars; for pointers
zeros(N), fill(N, V), iota(N), rand(N, SEED), [1, 2.5, 3], @FILE.npy or
@FILE.bin (raw little-endian).")]
pub struct RunArgs {
    #[command(flatten)]
    launch: LaunchArgs,
    /// Print one JSON object on stdout: kernel, grid, block, statistics and the dumped buffers.
    #[arg(long)]
    json: bool,
    /// Fault the launch if it is still running after SECONDS of wall-clock time.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    timeout: Option<std::time::Duration>,
    /// OS threads to run SMs on [default: one per core].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=simt_isa::MAX_THREADS))]
    threads: Option<u64>,
    /// Print statistics on stderr.
    #[arg(long)]
    stats: bool,
    /// Record every issued warp instruction with its lanes and reconvergence events (one
    /// thread; see --block, --warp, --format, -o).
    #[arg(long)]
    trace: bool,
    /// Trace only this block (linear index, x fastest).
    #[arg(long = "trace-block", value_name = "B", requires = "tracing")]
    trace_block: Option<u64>,
    /// Trace only this warp of each block.
    #[arg(long, value_name = "W", requires = "tracing")]
    warp: Option<u32>,
    /// The trace's format: text (one row per issue; the default), json (records), chrome (trace events for Perfetto).
    #[arg(long, value_enum, requires = "trace")]
    format: Option<TraceFormat>,
    /// Write the trace to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE", requires = "trace")]
    output: Option<PathBuf>,
    /// Draw the divergence picture (lanes against issue steps) into FILE.svg.
    #[arg(long, value_name = "FILE.svg")]
    trace_svg: Option<PathBuf>,
    /// Write the run as one HTML page to open in a browser: the source with per-line counters
    /// beside a zoomable timeline of every issued warp instruction; with --timing, the warps'
    /// stall reasons and the issue slots over cycles.
    #[arg(long, value_name = "FILE.html")]
    report: Option<PathBuf>,
    #[command(flatten)]
    timing: crate::timing::TimingArgs,
    /// Sanitizer findings shown in full; the rest are only counted in the summary.
    #[arg(long, value_name = "N", default_value_t = 100)]
    check_max: usize,
    /// Write a record of this run into DIR: its inputs and their hashes, statistics, the
    /// hash of every dump, status and error, wall time and memory, named by a content key.
    #[arg(long, value_name = "DIR")]
    record: Option<PathBuf>,
    /// After the run, compare a pointer parameter's buffer with a reference `.npy` (repeatable);
    /// a mismatch exits 3.
    #[arg(long, value_name = "NAME=FILE.npy")]
    expect: Vec<String>,
    /// The tolerance of `--expect NAME`: an element passes when |got - want| <= T * max(1, |want|) [default: 0, equal].
    #[arg(long, value_name = "NAME=T")]
    tolerance: Vec<String>,
}

/// What a launch is made of: the kernel, its grid, arguments and dumps, and how it runs.
/// `simt run` and `simt debug` share these flags.
#[derive(Args)]
pub struct LaunchArgs {
    /// A `.s` source or bytecode file.
    file: PathBuf,
    /// The kernel to launch (needed when the file has several).
    #[arg(long, value_name = "NAME")]
    kernel: Option<String>,
    /// Blocks in the grid, overriding `.launch`; missing extents are 1.
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = parse_dims)]
    grid: Option<[u32; 3]>,
    /// Threads per block, overriding `.launch`; missing extents are 1.
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = parse_dims)]
    block: Option<[u32; 3]>,
    /// Bytes of dynamic shared memory (CUDA's launch-time size; what a PTX `.extern .shared`
    /// array addresses), after the kernel's static shared variables.
    #[arg(long = "shared-bytes", value_name = "N", default_value_t = 0)]
    shared_bytes: u32,
    /// Set a parameter, overriding its `.arg` default (repeatable).
    #[arg(long = "arg", value_name = "NAME=VALUE")]
    args: Vec<String>,
    /// Print a buffer after the run, or write it to FILE (`.npy` keeps the dtype, anything else is raw little-endian); repeatable.
    #[arg(long = "dump", value_name = "NAME[:TYPE][=FILE]")]
    dumps: Vec<String>,
    /// SIMT model: its (independent thread scheduling) or stack (a per-warp reconvergence stack).
    #[arg(long, value_name = "its|stack", default_value = "its", value_parser = str::parse::<SimtModel>)]
    simt: SimtModel,
    /// Most warp instructions the launch may issue before it faults.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_STEPS, value_parser = at_least_one::<u64>)]
    max_steps: u64,
    /// Under `its`, backward branches a thread group may take in a row while another waits.
    #[arg(long, value_name = "Y", default_value_t = DEFAULT_ITS_YIELD, value_parser = at_least_one::<u32>)]
    its_yield: u32,
    /// Warp instructions one warp may issue in a row without storing, exiting or reaching a barrier
    /// before the launch faults as a runaway (0: no such check).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_RUNAWAY_STEPS)]
    runaway_steps: u64,
    /// Bytes of records the kernel's PRINTFs (CUDA's printf) may make before the launch
    /// faults: each record's text and 64 bytes for where it came from.
    #[arg(long, value_name = "BYTES", default_value_t = simt_isa::DEFAULT_PRINTF_LIMIT)]
    printf_limit: u64,
    /// SMs the blocks are spread over.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SMS, value_parser = at_least_one::<u32>)]
    sms: u32,
    /// Sanitizers to run, comma-separated or repeated: memcheck (always on), racecheck, initcheck, synccheck.
    #[arg(long = "check", value_delimiter = ',', value_name = "CHECK", value_parser = parse_check)]
    checks: Vec<String>,
    /// Target architecture, overriding every `.target`: sm_70, sm_75, sm_80, sm_89, sm_90 or sm_100.
    #[arg(long, value_name = "sm_XX", value_parser = str::parse::<simt_isa::Target>)]
    arch: Option<simt_isa::Target>,
    #[command(flatten)]
    lints: crate::LintArgs,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TraceFormat {
    /// One row per issued warp instruction, then the per-branch summary.
    Text,
    /// The same as JSON records.
    Json,
    /// Chrome trace events (Perfetto, chrome://tracing).
    Chrome,
}

/// The most issues a trace records; the launch still runs to the end.
const MAX_TRACE_ISSUES: usize = 1_000_000;
/// Steps per warp the divergence picture draws before it only says how many more there were.
const SVG_STEPS: usize = 400;

/// How the command line gives a launch what it lacks.
pub struct CommandLine;

impl simt_interp::Remedies for CommandLine {
    fn word(&self, remedy: &simt_interp::Remedy) -> String {
        use simt_interp::Remedy;
        match remedy {
            Remedy::MoreSteps => "raise the limit with --max-steps if the kernel is just long".into(),
            Remedy::MoreTime => "raise --timeout if the kernel is just long".into(),
            Remedy::MoreRunawaySteps => "raise --runaway-steps if the loop does end, or give 0 to turn this check off".into(),
            Remedy::DynamicShared(name) => format!("`{name}` is dynamic shared memory, sized by the launch: give it with `--shared-bytes N`"),
            Remedy::MorePrintf => "raise --printf-limit if that much output is expected, or print from fewer threads".into(),
        }
    }
}

impl host::Spelling for CommandLine {
    fn shape(&self) -> String {
        "`--grid 1 --block 32`".into()
    }

    fn argument(&self, name: &str, value: &str) -> String {
        let arg = format!("{name}={value}");
        // Quoted when a shell would read its parentheses or brackets, so it can be pasted.
        if arg.contains(['(', '[']) { format!("--arg '{arg}'") } else { format!("--arg {arg}") }
    }

    fn given(&self) -> String {
        "--arg".into()
    }
}

/// A `--check` value: a sanitizer's name.
fn parse_check(name: &str) -> Result<String, simt_isa::UnknownName> {
    Checks::default().enable(name).map(|()| name.to_string())
}

/// Seconds, whole or fractional, more than zero.
fn parse_seconds(text: &str) -> Result<std::time::Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 1e9 => Ok(std::time::Duration::from_secs_f64(s)),
        _ => Err(format!("`{text}` is not a number of seconds above 0 (for example 10 or 0.5)")),
    }
}

/// A whole number of at least 1, with a message that says so (clap's own names the type's maximum).
fn at_least_one<T: std::str::FromStr + PartialOrd + From<u8>>(text: &str) -> Result<T, String> {
    match text.trim().parse::<T>() {
        Ok(v) if v >= T::from(1) => Ok(v),
        Ok(_) => Err("must be at least 1".into()),
        Err(_) => Err(format!("`{text}` is not a whole number")),
    }
}

/// `X[,Y[,Z]]` for other subcommands' flags.
pub fn parse_dims_arg(text: &str) -> Result<[u32; 3], String> {
    parse_dims(text)
}

/// The index of the kernel `--kernel` names, or of the only one.
fn module_kernel_index(module: &Module, name: Option<&str>, file: &Path) -> Result<usize, Failure> {
    let kernel = select_kernel(module, name, file)?;
    Ok(module.kernels.iter().position(|k| std::ptr::eq(k, kernel)).expect("the kernel was selected from this module"))
}

/// The kernel `--kernel` names, or the only one.
pub fn select_kernel_of<'m>(module: &'m Module, name: Option<&str>, file: &Path) -> Result<&'m Kernel, Failure> {
    select_kernel(module, name, file)
}

fn parse_dims(text: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(format!("`{text}` has {} extents; give X, X,Y or X,Y,Z", parts.len()));
    }
    let mut dims = [1; 3];
    for (d, part) in dims.iter_mut().zip(parts) {
        *d = part.parse().map_err(|_| format!("`{part}` is not a whole number from 1 to {}", u32::MAX))?;
    }
    Ok(dims)
}

/// One `--dump`: a pointer parameter, optionally the element type to read its bytes as,
/// and optionally a file.
pub struct Dump {
    name: String,
    elem: Option<ElemType>,
    pub file: Option<PathBuf>,
}

impl Dump {
    /// The element type to write and the buffer: `:T` where given, else the buffer's own.
    fn view<'l>(&self, launch: &'l PreparedLaunch) -> std::io::Result<(ElemType, &'l simt_interp::memory::Buffer)> {
        let (own, buffer) = launch.buffer_of(&self.name).expect("--dump names were checked to have buffers when the launch was prepared");
        let elem = self.elem.unwrap_or(own);
        if elem.bytes_for(1).is_some() && !u64::from(buffer.len).is_multiple_of(u64::from(elem.size())) {
            return Err(std::io::Error::other(format!(
                "--dump {}:{elem}: the buffer holds {} bytes, not a whole number of {elem} elements",
                self.name, buffer.len
            )));
        }
        Ok((elem, buffer))
    }
}

/// A launch checked and ready: the module, which kernel, its buffers, what to dump and
/// how to run it.
pub struct Prepared {
    pub module: Module,
    kernel: usize,
    pub launch: PreparedLaunch,
    pub dumps: Vec<Dump>,
    /// The files the launch reads (outputs must not name them).
    pub inputs: Vec<PathBuf>,
    /// How to run it (no deadline, threads or memory report: those are `simt run`'s).
    pub options: RunOptions,
}

impl Prepared {
    /// The kernel to launch.
    pub fn kernel(&self) -> &Kernel {
        &self.module.kernels[self.kernel]
    }
}

/// Loads the kernel, checks the arguments and dumps against it, and makes its buffers.
pub fn prepare(args: &LaunchArgs) -> Result<Prepared, Failure> {
    let mut module = load_module(&args.file, args.arch, Some(&args.lints))?;
    let index = module_kernel_index(&module, args.kernel.as_deref(), &args.file)?;
    module.kernels[index].add_dynamic_shared(args.shared_bytes);
    let kernel = &module.kernels[index];
    let request = LaunchRequest {
        grid: args.grid,
        block: args.block,
        args: args.args.iter().map(|a| parse_arg(kernel, a)).collect::<Result<_, _>>()?,
        module_dir: Some(args.file.parent().unwrap_or(Path::new("")).to_path_buf()),
    };
    let dumps: Vec<Dump> = args.dumps.iter().map(|d| parse_dump(kernel, d)).collect::<Result<_, _>>()?;
    let module_dir = args.file.parent().unwrap_or(Path::new(""));
    let mut inputs: Vec<PathBuf> = vec![args.file.clone()];
    inputs.extend(request.args.iter().flat_map(|a| a.init.files()).map(PathBuf::from));
    inputs.extend(kernel.args.iter().flat_map(|a| a.init.files()).map(|f| module_dir.join(f)));
    let input_paths: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    for path in dumps.iter().filter_map(|d| d.file.as_ref()) {
        check_output(path, &input_paths)?;
    }
    let launch = host::prepare(kernel, &request).map_err(|e| Failure::input(e.explain(&CommandLine)))?;
    if let Some(d) = dumps.iter().find(|d| launch.buffer_of(&d.name).is_none()) {
        return Err(no_buffer(&d.name, "--dump"));
    }
    // Every warp issues at least one instruction: a launch with more warps than the step
    // limit can never finish, so it is rejected before it starts.
    let (grid, block) = (launch.config.grid, launch.config.block);
    let blocks: u128 = grid.iter().map(|&d| u128::from(d)).product();
    let threads: u128 = block.iter().map(|&d| u128::from(d)).product();
    let warps = blocks * threads.div_ceil(32);
    if warps > u128::from(args.max_steps) {
        return Err(Failure::input(format!(
            "a grid of {blocks} blocks of {threads} threads has {warps} warps, more than --max-steps {} allows (each warp issues at least one instruction)",
            args.max_steps
        )));
    }
    let options = RunOptions {
        simt: args.simt,
        max_steps: args.max_steps,
        sms: args.sms,
        its_yield: args.its_yield,
        threads: None,
        checks: args.checks.iter().try_fold(Checks::default(), |mut checks, name| checks.enable(name).map(|()| checks)).map_err(Failure::input)?,
        runaway_steps: args.runaway_steps,
        memory_report: false,
        deadline: None,
        printf_limit: args.printf_limit,
    };
    Ok(Prepared { module, kernel: index, launch, dumps, inputs, options })
}

pub fn run(args: RunArgs) -> Outcome {
    let started = Instant::now();
    let mut results = crate::record::RunResults::default();
    let outcome = launch(&args, &mut results);
    match &args.record {
        Some(dir) => {
            // The arguments after `simt run`, as given: the record's command and key.
            let argv: Vec<String> = std::env::args().skip(2).collect();
            crate::record::write(dir, argv, &outcome, results, started)?;
            outcome
        }
        None => outcome,
    }
}

/// One `--expect NAME=FILE` with its tolerance, and the reference, read before the run.
struct Expect {
    name: String,
    reference: String,
    want: simt_io::npy::Array,
    tolerance: f64,
}

/// The `--expect`s of a run, each reference read and its dtype checked against its buffer's
/// before the launch, as `--arg` files are: a reference that cannot be compared is a wrong
/// command line (exit 1), not a failed check found after a long run.
fn parse_expects(kernel: &Kernel, launch: &PreparedLaunch, args: &RunArgs) -> Result<Vec<Expect>, Failure> {
    let mut tolerances = std::collections::HashMap::new();
    for t in &args.tolerance {
        let (name, value) = t.split_once('=').ok_or_else(|| Failure::input(format!("--tolerance `{t}`: give NAME=T, for example y=1e-6")))?;
        let value: f64 = value
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| Failure::input(format!("--tolerance {t}: `{value}` is not a number of at least 0")))?;
        tolerances.insert(name.trim().to_string(), value);
    }
    let expects = args
        .expect
        .iter()
        .map(|e| {
            let (name, reference) = e.split_once('=').ok_or_else(|| Failure::input(format!("--expect `{e}`: give NAME=FILE.npy, for example y=ref/y.npy")))?;
            let name = buffer_name(kernel, name, "--expect")?;
            let reference = reference.trim().to_string();
            let want = simt_io::read_npy_file(Path::new(&reference)).map_err(|e| Failure::input(format!("--expect {name}: {e}")))?;
            let (elem, _) = launch.buffer_of(&name).ok_or_else(|| no_buffer(&name, "--expect"))?;
            let dtype = simt_io::npy::Dtype::of_elem(elem);
            if want.dtype != dtype {
                let hint = simt_io::npy::conversion_hint(want.dtype.kind(), want.dtype.size(), elem);
                return Err(Failure::input(format!(
                    "--expect {name}: {reference} holds dtype {} but `{name}` is a {elem} buffer, dumped as {dtype}; {hint}",
                    want.dtype
                )));
            }
            Ok(Expect { tolerance: tolerances.remove(&name).unwrap_or(0.0), name, reference, want })
        })
        .collect::<Result<Vec<_>, Failure>>()?;
    if let Some(name) = tolerances.keys().next() {
        return Err(Failure::input(format!("--tolerance {name}=...: there is no --expect {name}=FILE.npy for it to apply to")));
    }
    Ok(expects)
}

fn launch(args: &RunArgs, results: &mut crate::record::RunResults) -> Outcome {
    if let Some(n) = args.threads {
        // `--threads` bounds every part of the run (arguments, dumps), not only the SMs.
        let _ = rayon::ThreadPoolBuilder::new().num_threads(n as usize).build_global();
    }
    let mut prepared = prepare(&args.launch)?;
    prepared.options.threads = args.threads.map(|t| t as usize);
    // Reports and JSON traces show per-line memory efficiency.
    let keep_values = args.report.is_some() || (args.trace && args.format == Some(TraceFormat::Json));
    prepared.options.memory_report = args.stats || args.json || keep_values;
    prepared.options.deadline = args.timeout.map(|t| Instant::now() + t);
    let Prepared { module, launch, dumps, inputs, options, .. } = &prepared;
    let kernel = prepared.kernel();
    let expects = parse_expects(kernel, launch, args)?;
    let mut inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    inputs.extend(expects.iter().map(|e| Path::new(&e.reference)));
    for path in args.output.iter().chain(&args.trace_svg).chain(&args.report) {
        check_output(path, &inputs)?;
    }
    // A report and a JSON trace show what each issue wrote; the first issues' values are kept.
    let filter =
        Filter { block: args.trace_block, warp: args.warp, max_issues: MAX_TRACE_ISSUES, values: if keep_values { simt_report::VALUE_ISSUES } else { 0 } };
    let record_trace = |memory: &simt_interp::GlobalMemory| {
        with_progress(module, launch, args.check_max, |p| simt_interp::trace::trace(kernel, &launch.config, memory, options, filter, Some(p)).map_err(Box::new))
    };
    // A timed run changes the buffers: the report's trace runs first, on a copy of them.
    let timed_trace = match (&args.report, &args.timing.timing) {
        (Some(_), Some(_)) => Some(record_trace(&launch.memory.duplicate())?),
        _ => None,
    };
    let timed = watching(launch, |p| crate::timing::run(module, kernel, launch, options, &args.timing, filter, args.report.is_some(), &inputs, p))?;
    let stats = if let Some(t) = &timed {
        if let (Some(path), Some(trace)) = (&args.report, timed_trace) {
            let warps_per_block = u64::from(launch.config.block.iter().product::<u32>().div_ceil(32));
            let timing = simt_report::TimingView::new(&t.report, &format!("{} ({})", t.machine.name, t.machine.description), warps_per_block);
            crate::report::write(path, &simt_report::RunView::new(module, kernel, &launch.config, options.simt, trace), Some(&timing), &inputs)?;
        }
        t.report.functional.clone()
    } else if args.trace || args.trace_svg.is_some() || args.report.is_some() {
        let trace = record_trace(&launch.memory)?;
        if let Some(path) = &args.trace_svg {
            write_output(path, trace.render_svg(kernel, SVG_STEPS).as_bytes())?;
        }
        let stats = trace.stats.clone();
        let json = args.trace && args.format == Some(TraceFormat::Json);
        let mut text = Vec::new();
        if args.trace {
            match args.format.unwrap_or(TraceFormat::Text) {
                TraceFormat::Text => text.extend_from_slice(trace.render_text().as_bytes()),
                TraceFormat::Chrome => text = trace.write_chrome(text).map_err(|e| Failure::input(e.to_string()))?,
                TraceFormat::Json => {}
            }
        }
        // The JSON trace is the report's view of the run, so `simt report` can draw it.
        let view = (json || args.report.is_some()).then(|| simt_report::RunView::new(module, kernel, &launch.config, options.simt, trace));
        if let Some(view) = view.as_ref().filter(|_| json) {
            serde_json::to_writer(&mut text, view).map_err(|e| Failure::input(e.to_string()))?;
            text.push(b'\n');
        }
        if args.trace {
            match &args.output {
                Some(path) => write_output(path, &text)?,
                None => crate::print(&String::from_utf8_lossy(&text))?,
            }
        }
        if let (Some(path), Some(view)) = (&args.report, &view) {
            crate::report::write(path, view, None, &inputs)?;
        }
        stats
    } else {
        with_progress(module, launch, args.check_max, |p| simt_interp::run(kernel, &launch.config, &launch.memory, options, Some(p)).map_err(Box::new))?
    };
    if args.stats {
        eprintln!("{}", stats.render_text().trim_end());
    }
    let timing_json = match (&timed, args.json) {
        (Some(t), true) => Some(crate::timing::json(t, args.timing.pipeview).map_err(|e| Failure::input(format!("cannot render JSON: {e}")))?),
        _ => None,
    };
    report(kernel, launch, &stats, dumps, args.json.then_some(options), timing_json.as_deref())?;
    if let Some(t) = &timed
        && !args.json
    {
        crate::timing::print_text(t, &args.timing)?;
    }
    let buffer = |name: &str| launch.buffer_of(name).expect("--dump and --expect names were checked to be pointer parameters");
    if args.record.is_some() {
        let timing = match &timed {
            Some(t) => Some(crate::timing::json(t, false).map_err(|e| Failure::input(format!("cannot render JSON: {e}")))?),
            None => None,
        };
        results.summary = Some(serde_json::json!({
            "kernel": kernel.name,
            "grid": launch.config.grid,
            "block": launch.config.block,
            "simt": options.simt.name(),
            "stats": stats,
            "findings": stats.findings,
            "timing": timing.map(|t| serde_json::from_str::<serde_json::Value>(&t).unwrap_or_default()),
        }));
        for dump in dumps {
            let (elem, memory) = dump.view(launch).map_err(Failure::input)?;
            results.dumps.insert(dump.name.clone(), crate::record::npy_hash(elem, memory));
        }
    }
    results.checks = expects
        .iter()
        .map(|e| {
            let (elem, memory) = buffer(&e.name);
            crate::record::check_buffer(&e.name, elem, memory, &e.reference, &e.want, e.tolerance)
        })
        .collect();
    if !stats.findings.is_empty() {
        // The run finished and its outputs are written; the findings make it fail.
        return Err(Failure::Fault(render_findings(module, &stats.findings, args.check_max)));
    }
    let failed: Vec<String> = results.checks.iter().filter(|c| !c.passed).map(|c| format!("error: --expect {}", c.describe())).collect();
    if !failed.is_empty() {
        return Err(Failure::Mismatch(failed.join("\n")));
    }
    Ok(())
}

/// The sanitizers' findings as compute-sanitizer shows them: each distinct one in full
/// (at most `max`), then a summary that counts them all.
pub fn render_findings(module: &Module, findings: &[Finding], max: usize) -> String {
    let mut text: String = findings.iter().take(max).map(|f| f.render(module, color())).collect();
    let per_check: Vec<String> = FaultKind::SANITIZERS
        .into_iter()
        .filter_map(|(kind, check)| {
            let n = findings.iter().filter(|f| f.fault.kind == kind).count();
            (n > 0).then(|| format!("{n} {check}"))
        })
        .collect();
    let n = findings.len();
    text.push_str(&format!("sanitizer summary: {n} error{} ({})", if n == 1 { "" } else { "s" }, per_check.join(", ")));
    if n > max {
        text.push_str(&format!("; {max} shown, see the rest with --check-max {n}"));
    }
    text.push('\n');
    text
}

fn select_kernel<'m>(module: &'m Module, name: Option<&str>, file: &Path) -> Result<&'m Kernel, Failure> {
    let names = || module.kernels.iter().map(|k| k.name.as_str()).collect::<Vec<_>>().join(", ");
    match (name, module.kernels.as_slice()) {
        (Some(name), _) => {
            module.kernel(name).ok_or_else(|| Failure::input(format!("{} has no kernel `{name}`; its kernels are: {}", file.display(), names())))
        }
        (None, [only]) => Ok(only),
        (None, []) => Err(Failure::input(format!("{} has no kernels", file.display()))),
        (None, _) => Err(Failure::input(format!("{} has several kernels ({}): choose one with --kernel NAME", file.display(), names()))),
    }
}

/// Parses `NAME=VALUE` and type-checks it against the parameter; unknown names are left to
/// [`host::prepare`], which suggests the closest one.
fn parse_arg(kernel: &Kernel, text: &str) -> Result<Arg, Failure> {
    let Some((name, value)) = text.split_once('=') else {
        return Err(Failure::input(format!("--arg `{text}` has no `=`: write --arg NAME=VALUE, e.g. --arg n=1000")));
    };
    let name = param_name(kernel, name.trim());
    let name = name.as_str();
    let bad = |message: &dyn std::fmt::Display| {
        let ty = kernel.param(name).map(|p| format!(" (.param .{} {name})", p.ty.name())).unwrap_or_default();
        Failure::input(format!("invalid --arg {name}={value}{ty}: {message}"))
    };
    let init = simt_asm::parse_arg_init(value).map_err(|e| bad(&e))?;
    if let Some(param) = kernel.param(name) {
        simt_asm::check_arg(param, &init).map_err(|mismatch| bad(&mismatch.problem))?;
    }
    Ok(Arg::new(name, init))
}

/// A parameter named by its position (`2`, as PTX kernels are often used) is the
/// parameter at that index; any other text is a name.
fn param_name(kernel: &Kernel, text: &str) -> String {
    match text.parse::<usize>() {
        Ok(i) if !text.starts_with('+') => kernel.params.get(i).map_or_else(|| text.to_string(), |p| p.name.clone()),
        _ => text.to_string(),
    }
}

fn parse_dump(kernel: &Kernel, text: &str) -> Result<Dump, Failure> {
    let (spec, file) = match text.split_once('=') {
        Some((spec, file)) => (spec, Some(PathBuf::from(file))),
        None => (text, None),
    };
    // `NAME:T` reads the buffer's bytes as elements of T (a PTX pointer's buffer holds any dtype).
    let (name, elem) = match spec.split_once(':') {
        Some((name, ty)) => {
            let elem = ElemType::from_name(ty.trim()).ok_or_else(|| {
                let names: Vec<&str> = ElemType::ALL.iter().map(|t| t.name()).collect();
                Failure::input(format!("--dump {text}: `{}` is not an element type; use one of {}", ty.trim(), names.join(", ")))
            })?;
            (name, Some(elem))
        }
        None => (spec, None),
    };
    Ok(Dump { name: buffer_name(kernel, name, "--dump")?, elem, file })
}

/// The buffer `text` names for `flag`: a pointer parameter's (by name or position), or
/// `NAME.K`, buffer `K` of a parameter given `pointers(...)`.
fn buffer_name(kernel: &Kernel, text: &str, flag: &str) -> Result<String, Failure> {
    let text = text.trim();
    if let Some((param, k)) = text.rsplit_once('.')
        && let Ok(k) = k.parse::<usize>()
        && let param = param_name(kernel, param)
        && kernel.param(&param).is_some()
    {
        pointer_param(kernel, &param, text, flag)?;
        return Ok(format!("{param}.{k}"));
    }
    let name = param_name(kernel, text);
    pointer_param(kernel, &name, &name, flag)?;
    Ok(name)
}

/// Why the buffer `name` (checked by [`buffer_name`]) is not there once the launch is made.
fn no_buffer(name: &str, flag: &str) -> Failure {
    Failure::input(match name.rsplit_once('.') {
        Some((param, k)) => format!(
            "{flag} {name}: `{param}` has no buffer {k}: give it pointers(...) of more than {k} buffers, e.g. --arg '{param}=pointers(zeros(1024), zeros(1024))'"
        ),
        // A `.u64` has a buffer only when it was given one.
        None => format!("{flag} {name}: `{name}` (.u64) was given a number, not a buffer; give it one to dump, e.g. --arg '{name}=zeros(1024)'"),
    })
}

/// Checks that `name` is a pointer parameter or a `.u64` (which may be given a buffer), the
/// only kinds with a buffer `flag` can read (given as `{flag} {given}`).
fn pointer_param(kernel: &Kernel, name: &str, given: &str, flag: &str) -> Outcome {
    match kernel.param(name).map(|p| p.ty) {
        Some(ty) if ty.buffer_elem().is_some() || ty == simt_isa::ParamType::U64 => Ok(()),
        Some(ty) => Err(Failure::input(format!("{flag} {given}: `{name}` is a scalar .{} parameter; only pointer parameters have buffers", ty.name()))),
        None => Err(Failure::input(HostError::unknown_param(kernel, name))),
    }
}

/// Runs `work` [`watching`] it, and turns its fault into the report: a fault is shown after
/// the sanitizer findings made before it (at most `check_max`).
fn with_progress<T>(module: &Module, launch: &PreparedLaunch, check_max: usize, work: impl FnOnce(&Progress) -> Result<T, Box<Fault>>) -> Result<T, Failure> {
    watching(launch, work).map_err(|fault| {
        let fault = fault.worded(&CommandLine);
        // What the kernel printed before it stopped is often what explains the fault.
        if let Err(e) = simt_interp::write_printed(&mut std::io::stdout().lock(), &fault.printed) {
            return Failure::input(format!("cannot write to stdout: {e}"));
        }
        match fault.kind {
            // Nothing ran: the launch itself was rejected, like a bad argument.
            FaultKind::InvalidLaunch => Failure::input(fault.message),
            _ if fault.findings.is_empty() => Failure::Fault(fault.render(module, color())),
            _ => Failure::Fault(render_findings(module, &fault.findings, check_max) + &fault.render(module, color())),
        }
    })
}

/// Runs `work`, and on a terminal, once it has taken two seconds, shows its progress
/// (blocks done, warp instructions issued and their rate), refreshed from another
/// thread, so a long single block, a runaway loop or a long timed run is visible too.
fn watching<T>(launch: &PreparedLaunch, work: impl FnOnce(&Progress) -> T) -> T {
    let progress = Progress::default();
    let done = AtomicBool::new(false);
    let blocks: u64 = launch.config.grid.iter().map(|&d| u64::from(d)).product();
    std::thread::scope(|scope| {
        if std::io::stderr().is_terminal() {
            scope.spawn(|| {
                let started = Instant::now();
                let mut bar: Option<ProgressBar> = None;
                while !done.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(100));
                    if started.elapsed() < Duration::from_secs(2) {
                        continue;
                    }
                    let bar = bar.get_or_insert_with(|| {
                        let style = ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} blocks, {msg}")
                            .unwrap_or_else(|_| ProgressStyle::default_bar());
                        ProgressBar::new(blocks).with_style(style).with_elapsed(started.elapsed())
                    });
                    let steps = progress.steps.load(Ordering::Relaxed);
                    let rate = steps as f64 / started.elapsed().as_secs_f64();
                    bar.set_position(progress.blocks_done.load(Ordering::Relaxed));
                    bar.set_message(format!("{steps} warp instructions, {:.1} M/s", rate / 1e6));
                }
                if let Some(bar) = bar {
                    bar.finish_and_clear();
                }
            });
        }
        let result = work(&progress);
        done.store(true, Ordering::Relaxed);
        result
    })
}

/// Writes an output file whole or not at all.
fn write_output(path: &Path, bytes: &[u8]) -> Outcome {
    use std::io::Write;
    simt_io::write_atomically(path, |mut f| f.write_all(bytes)).map_err(|e| Failure::input(format!("cannot write {}: {e}", path.display())))
}

/// Writes the dumps; `json` (the run's options) asks for one JSON object on stdout, with
/// the timing report's JSON as its `timing` member when there is one.
pub fn report(kernel: &Kernel, launch: &PreparedLaunch, stats: &Stats, dumps: &[Dump], json: Option<&RunOptions>, timing: Option<&str>) -> Outcome {
    for dump in dumps {
        if let Some(path) = &dump.file {
            let (elem, memory) = dump.view(launch).map_err(Failure::input)?;
            host::write_buffer_file(path, elem, memory).map_err(|e| Failure::input(format!("cannot write {}: {e}", path.display())))?;
        }
    }
    // Every dump's element type fits its buffer before anything is printed.
    for dump in dumps {
        dump.view(launch).map_err(Failure::input)?;
    }
    // Buffers stream out element by element: a dump costs a piece of memory, not a copy of the buffer.
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = (|| -> std::io::Result<()> {
        if let Some(options) = json {
            // Keys in sorted order, as serde_json writes objects.
            write!(out, "{{\"block\":{},\"buffers\":{{", serde_json::to_string(&launch.config.block)?)?;
            for (i, d) in dumps.iter().enumerate() {
                let (elem, memory) = d.view(launch)?;
                write!(out, "{}{}:", if i > 0 { "," } else { "" }, serde_json::to_string(&d.name)?)?;
                host::write_json(&mut out, elem, memory)?;
            }
            let simt = options.simt.name();
            write!(out, "}},")?;
            if !stats.findings.is_empty() {
                write!(out, "\"findings\":{},", serde_json::to_string(&stats.findings)?)?;
            }
            write!(
                out,
                "\"grid\":{},\"its_yield\":{},\"kernel\":{},\"regs\":{},\"shared_bytes\":{},\"simt\":\"{simt}\",\"stats\":{}",
                serde_json::to_string(&launch.config.grid)?,
                options.its_yield,
                serde_json::to_string(&kernel.name)?,
                kernel.regs,
                kernel.shared_size,
                serde_json::to_string(stats)?
            )?;
            if let Some(timing) = timing {
                write!(out, ",\"timing\":{timing}")?;
            }
            write!(out, "}}")?;
            return writeln!(out);
        }
        simt_interp::write_printed(&mut out, &stats.printed)?;
        let printed: Vec<&Dump> = dumps.iter().filter(|d| d.file.is_none()).collect();
        for dump in &printed {
            let (elem, memory) = dump.view(launch)?;
            if printed.len() > 1 {
                writeln!(out, "{}:", dump.name)?;
            }
            host::write_text(&mut out, elem, memory)?;
        }
        out.flush()
    })();
    match result {
        // A closed pipe (`simt run ... | head`) is not an error.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Failure::input(format!("cannot write to stdout: {e}"))),
        _ => Ok(()),
    }
}
