//! `simt`: assemble, disassemble, run and inspect simt kernels.
//!
//! Exit status: 0 success, 1 the input was rejected (nothing ran, or an
//! output could not be written), 2 the kernel faulted. Errors never panic.

mod collect;
mod debug;
mod occupancy;
mod record;
mod report;
mod run;
mod sparsify;
mod sweep;
mod timing;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use simt_isa::{Module, Target};

/// Command line of `simt`.
#[derive(Parser)]
#[command(
    name = "simt",
    version,
    about = "Assemble, disassemble and run kernels of the simt instruction set, a small PTX-like SIMT machine with tensor cores",
    after_help = "Examples:\n  simt run asm/saxpy.s --dump y\n  simt asm asm/saxpy.s --listing\n  simt run kernel.simtb --grid 4 --block 256 --arg n=1000 --arg x=@x.npy --dump y=y.npy\n\nExit status: 0 success, 1 rejected input, 2 kernel fault."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Assemble a `.s` file into bytecode.
    #[command(after_help = "Example:\n  simt asm saxpy.s              # writes saxpy.simtb\n  simt asm saxpy.s -o k.simtb --listing")]
    Asm {
        /// The `.s` source file.
        file: PathBuf,
        /// Where to write the bytecode [default: FILE with the extension `.simtb`, unless --listing is given].
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
        /// Print a listing (pc, encoding, source line, reconvergence points) on stdout; bytecode is then written only with -o.
        #[arg(long)]
        listing: bool,
        /// Target architecture, overriding every `.target`: sm_70, sm_75, sm_80, sm_89, sm_90 or sm_100.
        #[arg(long, value_name = "sm_XX", value_parser = str::parse::<Target>)]
        arch: Option<Target>,
        #[command(flatten)]
        lints: LintArgs,
    },
    /// Turn bytecode (or source) back into assembly that assembles to the same code.
    #[command(after_help = "Example:\n  simt disasm saxpy.simtb            # prints the assembly\n  simt disasm saxpy.simtb -o back.s")]
    Disasm {
        /// A bytecode file (a `.s` file is assembled first).
        file: PathBuf,
        /// Where to write the assembly [default: stdout].
        #[arg(short, long, value_name = "OUT.s")]
        output: Option<PathBuf>,
    },
    /// Translate PTX (clang's or nvcc's output) and show what it became.
    #[command(
        after_help = "Example:\n  simt ptx saxpy.ptx --emit s          # each PTX line beside the simt instructions it became\n  simt run saxpy.ptx --arg 0=1000 ...   # every command takes .ptx files directly"
    )]
    Ptx {
        /// The `.ptx` file.
        file: PathBuf,
        /// What to print: `s`, the translated assembly with the PTX line beside each instruction.
        #[arg(long, value_name = "FORM", default_value = "s", value_parser = ["s"])]
        emit: String,
        /// Where to write it [default: stdout].
        #[arg(short, long, value_name = "OUT.s")]
        output: Option<PathBuf>,
        /// Target architecture, overriding the PTX `.target`: sm_70, sm_75, sm_80, sm_89, sm_90 or sm_100.
        #[arg(long, value_name = "sm_XX", value_parser = str::parse::<Target>)]
        arch: Option<Target>,
    },
    /// Run one kernel launch and print or save its buffers.
    Run(Box<run::RunArgs>),
    /// Step through a launch: breakpoints, warps, lanes, registers, masks, the reconvergence stack, memory.
    Debug(Box<debug::DebugArgs>),
    /// Prune a dense matrix to 2:4 structured sparsity in the layout `MMA.SP` reads.
    Sparsify(sparsify::SparsifyArgs),
    /// List the machines `--timing` knows, or print one's configuration file.
    Configs(timing::ConfigsArgs),
    /// Blocks and warps of a kernel per SM, what limits them, and how registers and shared memory change that.
    Occupancy(occupancy::OccupancyArgs),
    /// Run every job of a sweep plan (kernels x options), each recorded once; resumable; or emit a Slurm job array.
    Sweep(Box<sweep::SweepArgs>),
    /// The run records of a sweep as one table (CSV, JSON lines) or a chart.
    Collect(collect::CollectArgs),
    /// Draw a recorded trace as one HTML page: source, lane timeline, per-line counters.
    Report(report::ReportArgs),
}

/// Why a command failed; the text is ready to print.
enum Failure {
    /// Exit 1: the input was rejected or an output could not be written.
    Rejected(String),
    /// Exit 2: the kernel faulted.
    Fault(String),
    /// Exit 3: the run finished but a buffer differs from its `--expect` reference.
    Mismatch(String),
}

impl Failure {
    fn input(message: impl std::fmt::Display) -> Failure {
        Failure::Rejected(format!("error: {message}"))
    }
}

type Outcome = Result<(), Failure>;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // clap's own usage errors exit 2, which simt reserves for kernel faults.
            return if e.use_stderr() { ExitCode::from(1) } else { ExitCode::SUCCESS };
        }
    };
    let outcome = match cli.command {
        Command::Asm { file, output, listing, arch, lints } => asm(&file, output, listing, arch, &lints),
        Command::Disasm { file, output } => disasm(&file, output),
        Command::Ptx { file, emit: _, output, arch } => ptx(&file, output, arch),
        Command::Run(args) => run::run(*args),
        Command::Debug(args) => debug::debug(*args),
        Command::Sparsify(args) => sparsify::sparsify(args),
        Command::Configs(args) => timing::configs(args),
        Command::Occupancy(args) => occupancy::occupancy(args),
        Command::Sweep(args) => sweep::sweep(*args),
        Command::Collect(args) => collect::collect(args),
        Command::Report(args) => report::report(args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Rejected(text)) => {
            eprintln!("{}", text.trim_end());
            ExitCode::from(1)
        }
        Err(Failure::Fault(text)) => {
            eprintln!("{}", text.trim_end());
            ExitCode::from(2)
        }
        Err(Failure::Mismatch(text)) => {
            eprintln!("{}", text.trim_end());
            ExitCode::from(3)
        }
    }
}

/// Colour only for a terminal, and never when `NO_COLOR` is set.
fn color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

fn read_file(path: &Path) -> Result<Vec<u8>, Failure> {
    simt_io::read_bounded(path, simt_isa::MAX_INPUT_BYTES).map_err(Failure::input)
}

/// Refuses an output path that names one of the inputs: writing it would destroy what was read.
fn check_output(path: &Path, inputs: &[&Path]) -> Outcome {
    let Ok(out) = path.canonicalize() else { return Ok(()) };
    for input in inputs {
        if input.canonicalize().is_ok_and(|i| i == out) {
            return Err(Failure::input(format!("{} is an input of this command; write the output somewhere else", path.display())));
        }
    }
    Ok(())
}

/// Writes an output file whole or not at all (a temporary renamed into place), never over an input.
fn write_file(path: &Path, bytes: &[u8], inputs: &[&Path]) -> Outcome {
    use std::io::Write;
    check_output(path, inputs)?;
    simt_io::write_atomically(path, |mut f| f.write_all(bytes)).map_err(|e| Failure::input(format!("cannot write {}: {e}", path.display())))
}

/// Writes to stdout; a closed pipe (`simt ... | head`) is not an error.
fn print(text: &str) -> Outcome {
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Failure::input(format!("cannot write to stdout: {e}"))),
        _ => Ok(()),
    }
}

/// The divergence lints' levels, as rustc takes them.
#[derive(clap::Args, Default)]
struct LintArgs {
    /// Allow a lint (say nothing): loop_divergence, divergent_barrier, unreachable_code,
    /// uninit_read, or `warnings` for all; repeatable.
    #[arg(short = 'A', value_name = "LINT")]
    allow: Vec<String>,
    /// Warn about a lint's findings (the default for all).
    #[arg(short = 'W', value_name = "LINT")]
    warn: Vec<String>,
    /// Make a lint's findings errors: nothing is written or run.
    #[arg(short = 'D', value_name = "LINT")]
    deny: Vec<String>,
    /// Make every lint's findings errors (`-D warnings`).
    #[arg(long)]
    deny_warnings: bool,
}

/// Loads bytecode, PTX or `.s` source, told apart by `simt_isa::Input::of`;
/// `arch` (`--arch`) overrides every kernel's target, and a form it lacks is an error.
/// Source is linted when `lints` is given: warnings go to stderr, denied findings fail.
fn load_module(path: &Path, arch: Option<Target>, lints: Option<&LintArgs>) -> Result<Module, Failure> {
    let bytes = read_file(path)?;
    let name = path.display().to_string();
    let source = match simt_isa::Input::of(&name, &bytes).map_err(|e| Failure::input(e.to_string()))? {
        simt_isa::Input::Ptx(source) => return simt_ptx::translate(&name, source, arch).map_err(|d| Failure::Rejected(d.render(&name, source, color()))),
        simt_isa::Input::Assembly(source) => source,
        simt_isa::Input::Bytecode(bytes) => return load_bytecode(path, bytes, arch),
    };
    let module = match arch {
        Some(arch) => simt_asm::assemble_for(&name, source, arch),
        None => simt_asm::assemble(&name, source),
    }
    .map_err(|d| Failure::Rejected(d.render(color())))?;
    if let Some(args) = lints {
        let mut deny = args.deny.clone();
        if args.deny_warnings {
            deny.insert(0, "warnings".into());
        }
        let levels = simt_asm::LintLevels::from_flags(&args.allow, &args.warn, &deny).map_err(Failure::input)?;
        let report = simt_asm::lint(&module, &levels, color());
        if report.denied > 0 {
            let s = if report.denied == 1 { "" } else { "s" };
            return Err(Failure::Rejected(format!("{}error: {} denied lint finding{s}; nothing was written or run", report.text, report.denied)));
        }
        eprint!("{}", report.text);
    }
    Ok(module)
}

/// Reads bytecode; `arch` overrides every kernel's target, and a form it lacks is an error.
fn load_bytecode(path: &Path, bytes: &[u8], arch: Option<Target>) -> Result<Module, Failure> {
    let mut module = simt_isa::read_module(bytes).map_err(|e| Failure::input(format!("{}: {e}", path.display())))?;
    if let Some(arch) = arch {
        for kernel in &mut module.kernels {
            if let Some((pc, form)) = kernel.first_beyond(arch) {
                let line = kernel.line(pc).map(|l| format!(", line {l}")).unwrap_or_default();
                return Err(Failure::input(format!("{}: kernel `{}`, pc {pc}{line}: {}", path.display(), kernel.name, simt_isa::beyond_target(&form, arch))));
            }
            kernel.target = arch;
        }
    }
    Ok(module)
}

fn asm(file: &Path, output: Option<PathBuf>, listing: bool, arch: Option<Target>, lints: &LintArgs) -> Outcome {
    let module = load_module(file, arch, Some(lints))?;
    let bytes = simt_isa::write_module(&module);
    if bytes.len() as u64 > simt_isa::MAX_INPUT_BYTES {
        return Err(Failure::input(format!(
            "{}: the bytecode would be {} bytes, more than the {} simt reads back; split the kernels over several files",
            file.display(),
            bytes.len(),
            simt_isa::MAX_INPUT_BYTES
        )));
    }
    // A listing is for reading: it writes bytecode only where asked to, leaving no `.simtb` beside the source.
    if let Some(output) = output.or_else(|| (!listing).then(|| file.with_extension("simtb"))) {
        write_file(&output, &bytes, &[file])?;
    }
    if listing {
        print(&simt_isa::listing(&module))?;
    }
    Ok(())
}

fn ptx(file: &Path, output: Option<PathBuf>, arch: Option<Target>) -> Outcome {
    if !file.extension().is_some_and(|e| e.eq_ignore_ascii_case("ptx")) {
        return Err(Failure::input(format!("{}: `simt ptx` reads `.ptx` files; for `.s` and bytecode use `simt disasm`", file.display())));
    }
    let text = simt_isa::disassemble_with_source(&load_module(file, arch, None)?);
    match output {
        Some(path) => write_file(&path, text.as_bytes(), &[file]),
        None => print(&text),
    }
}

fn disasm(file: &Path, output: Option<PathBuf>) -> Outcome {
    let text = simt_isa::disassemble(&load_module(file, None, None)?);
    match output {
        Some(path) => write_file(&path, text.as_bytes(), &[file]),
        None => print(&text),
    }
}
