//! `simt collect DIR`: the run records of a sweep (or any folder of them) as one
//! table, CSV or JSON lines, or as a chart of one statistic.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use clap::Args;
use rayon::prelude::*;
use serde_json::Value;
use simt_sweep::record::{Record, RecordError, record_files};
use simt_sweep::table::{self, Format, Row};

use crate::{Failure, Outcome};

/// Arguments of `simt collect`.
#[derive(Args)]
#[command(after_help = "Examples:
  simt collect study.sweep -o results.csv
  simt collect study.sweep -o results.jsonl
  simt collect study.sweep --plot timing.cycles --by scheduler -o cycles.svg")]
pub struct CollectArgs {
    /// A sweep folder (its `records/`) or a folder of records.
    dir: PathBuf,
    /// Where to write: `.csv`, `.jsonl`, or with --plot `.svg` [default: CSV on stdout].
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Also the columns that differ from run to run of the same job: wall time and peak memory.
    #[arg(long)]
    resources: bool,
    /// Draw this column (a statistic, e.g. `timing.cycles` or `stats.simd_efficiency`) as grouped bars, one group per kernel.
    #[arg(long, value_name = "COLUMN", requires = "by")]
    plot: Option<String>,
    /// The plan axis (option column without `opt.`, e.g. `scheduler`, `timing`, `arg.n`) whose values are the bars of a group.
    #[arg(long, value_name = "AXIS", requires = "plot")]
    by: Option<String>,
}

/// The records under `dir` (sorted by key) as rows, each record dropped as soon as it is a
/// row. A file that is not a record of this format is reported on stderr and left out: one
/// damaged file does not hide the others.
fn read_rows(dir: &Path, resources: bool) -> Result<Vec<Row>, Failure> {
    let records_dir = if dir.join("records").is_dir() { dir.join("records") } else { dir.to_path_buf() };
    if !records_dir.is_dir() {
        return Err(Failure::input(format!("{} is not a folder of run records (or a sweep folder holding records/)", dir.display())));
    }
    let files = record_files(&records_dir);
    let read: Vec<Result<Row, RecordError>> = files.par_iter().map(|p| Record::read(p).map(|r| table::row(&r, resources))).collect();
    let mut rows = Vec::with_capacity(read.len());
    let mut skipped = 0;
    for row in read {
        match row {
            Ok(row) => rows.push(row),
            Err(e) => {
                skipped += 1;
                eprintln!("warning: {e}; left out");
            }
        }
    }
    if skipped > 0 {
        eprintln!(
            "warning: {skipped} of {} files in {} are not records this simt reads; the table has the other {}",
            files.len(),
            records_dir.display(),
            rows.len()
        );
    }
    Ok(rows)
}

pub fn collect(args: CollectArgs) -> Outcome {
    let rows = read_rows(&args.dir, args.resources)?;
    if let (Some(stat), Some(axis)) = (&args.plot, &args.by) {
        let svg = crate::collect::chart(&rows, stat, axis)?;
        return match &args.output {
            Some(path) => crate::write_file(path, svg.as_bytes(), &[]),
            None => crate::print(&svg),
        };
    }
    let jsonl = args.output.as_ref().is_some_and(|p| p.extension().is_some_and(|e| e == "jsonl"));
    let text = table::render(&rows, if jsonl { Format::JsonLines } else { Format::Csv });
    match &args.output {
        Some(path) => crate::write_file(path, text.as_bytes(), &[]),
        None => crate::print(&text),
    }
}

/// Grouped bars: one group per kernel, one bar per value of `axis`, the height the
/// mean of `stat` over the rows that share both.
fn chart(rows: &[Row], stat: &str, axis: &str) -> Result<String, Failure> {
    let axis_column = ["opt.", "arg.", ""].iter().map(|p| format!("{p}{axis}")).find(|c| rows.iter().any(|r| r.contains_key(c)));
    let Some(axis_column) = axis_column else {
        return Err(Failure::input(format!("--by {axis}: no record has that option; the options are the plan's axes, such as scheduler, timing or arg.n")));
    };
    // A group is a kernel and the values of the other axes that vary (`sgemm v100`), so
    // bars never average over machines or arguments.
    let text_of = |v: &Value| v.as_str().map_or(v.to_string(), str::to_string);
    let varying: Vec<String> = table::columns(rows)
        .into_iter()
        .filter(|c| (c.starts_with("opt.") || c.starts_with("arg.")) && *c != axis_column)
        .filter(|c| rows.iter().map(|r| r.get(c).map(text_of).unwrap_or_default()).collect::<BTreeSet<String>>().len() > 1)
        .collect();
    let mut sums: BTreeMap<(String, String), (f64, u32)> = BTreeMap::new();
    for r in rows {
        let Some(value) = r.get(stat).and_then(Value::as_f64) else { continue };
        let kernel = r.get("kernel").and_then(Value::as_str).unwrap_or("?");
        let mut kernel = Path::new(kernel).file_stem().map_or(kernel.to_string(), |s| s.to_string_lossy().into_owned());
        for c in &varying {
            kernel.push(' ');
            kernel.push_str(&r.get(c).map(text_of).unwrap_or_default());
        }
        let bar = r.get(&axis_column).map_or("(none)".to_string(), |v| v.as_str().map_or(v.to_string(), str::to_string));
        let entry = sums.entry((kernel, bar)).or_insert((0.0, 0));
        entry.0 += value;
        entry.1 += 1;
    }
    if sums.is_empty() {
        return Err(Failure::input(format!("--plot {stat}: no record has a number there; `simt collect DIR` lists the columns")));
    }
    let kernels: Vec<&String> = sums.keys().map(|(k, _)| k).collect::<BTreeSet<_>>().into_iter().collect();
    let bars: Vec<&String> = sums.keys().map(|(_, b)| b).collect::<BTreeSet<_>>().into_iter().collect();
    let max = sums.values().map(|(s, n)| s / f64::from(*n)).fold(0.0f64, f64::max);
    let top = nice_ceiling(max);
    let (left, bottom, plot_h, bar_w, gap) = (80.0, 60.0, 240.0, 18.0, 16.0);
    let group_w = bar_w * bars.len() as f64 + gap;
    let width = left + group_w * kernels.len() as f64 + 160.0;
    let height = plot_h + bottom + 50.0;
    let colours = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7"];
    let esc = |t: &str| t.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" font-family=\"sans-serif\" font-size=\"11\">\n<text x=\"{left}\" y=\"20\" font-size=\"14\">{} by {}</text>\n",
        esc(stat),
        esc(axis)
    );
    let y = |v: f64| 30.0 + plot_h - if top > 0.0 { v / top * plot_h } else { 0.0 };
    for i in 0..=4 {
        let v = top * f64::from(i) / 4.0;
        svg.push_str(&format!(
            "<line x1=\"{left}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n",
            width - 160.0,
            y(v),
            y(v),
            left - 6.0,
            y(v) + 4.0,
            short_number(v)
        ));
    }
    for (g, kernel) in kernels.iter().enumerate() {
        let x0 = left + gap / 2.0 + group_w * g as f64;
        for (b, bar) in bars.iter().enumerate() {
            if let Some((sum, n)) = sums.get(&((*kernel).clone(), (*bar).clone())) {
                let v = sum / f64::from(*n);
                svg.push_str(&format!(
                    "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{bar_w}\" height=\"{:.1}\" fill=\"{}\"><title>{}, {}: {}</title></rect>\n",
                    x0 + bar_w * b as f64,
                    y(v),
                    30.0 + plot_h - y(v),
                    colours[b % colours.len()],
                    esc(kernel),
                    esc(bar),
                    v
                ));
            }
        }
        svg.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" transform=\"rotate(-35 {:.1} {:.1})\">{}</text>\n",
            x0 + group_w / 2.0,
            30.0 + plot_h + 14.0,
            x0 + group_w / 2.0,
            30.0 + plot_h + 14.0,
            esc(kernel)
        ));
    }
    for (b, bar) in bars.iter().enumerate() {
        let ly = 40.0 + 16.0 * b as f64;
        svg.push_str(&format!(
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text>\n",
            width - 150.0,
            ly,
            colours[b % colours.len()],
            width - 135.0,
            ly + 9.0,
            esc(&format!("{axis} = {bar}"))
        ));
    }
    svg.push_str("</svg>\n");
    Ok(svg)
}

/// The smallest of 1, 2 or 5 times a power of ten at or above `v`.
fn nice_ceiling(v: f64) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * p).find(|&c| c >= v).unwrap_or(10.0 * p)
}

/// `12k`, `3.5M`: tick labels that fit.
fn short_number(v: f64) -> String {
    match v.abs() {
        a if a >= 1e9 => format!("{}G", trim(v / 1e9)),
        a if a >= 1e6 => format!("{}M", trim(v / 1e6)),
        a if a >= 1e3 => format!("{}k", trim(v / 1e3)),
        _ => trim(v),
    }
}

fn trim(v: f64) -> String {
    let text = format!("{v:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}
