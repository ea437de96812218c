//! `simt report` and `simt run --report`: a run as one HTML page a student opens in a browser.

use std::path::{Path, PathBuf};

use clap::Args;
use simt_report::{RunView, TimingView};

use crate::{Failure, Outcome};

/// Arguments of `simt report`.
#[derive(Args)]
#[command(after_help = "Examples:
  simt run asm/divergence/nested.s --trace --format json -o nested.json
  simt report nested.json -o nested.html

`simt run FILE --report run.html` does both in one step (add --timing NAME for the
cycle charts).")]
pub struct ReportArgs {
    /// A trace that `simt run FILE --trace --format json -o TRACE.json` wrote.
    trace: PathBuf,
    /// The HTML file to write.
    #[arg(short, long, value_name = "FILE.html")]
    output: PathBuf,
}

/// `simt report`: draws a recorded trace.
pub fn report(args: ReportArgs) -> Outcome {
    let bytes = crate::read_file(&args.trace)?;
    let text =
        String::from_utf8(bytes).map_err(|_| Failure::input(format!("{}: not UTF-8 text; give the JSON of `--trace --format json`", args.trace.display())))?;
    let view = RunView::from_json(&text).map_err(|e| Failure::input(format!("{}: {e}", args.trace.display())))?;
    write(&args.output, &view, None, &[&args.trace])
}

/// Writes the page for `view` (and a timed run's `timing`) to `path`.
pub fn write(path: &Path, view: &RunView, timing: Option<&TimingView>, inputs: &[&Path]) -> Outcome {
    crate::write_file(path, simt_report::render(view, timing).as_bytes(), inputs)
}
