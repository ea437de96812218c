//! Run records as one table: a row per record, the plan's options and every
//! statistic as columns in a stable order, written as CSV or JSON lines.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde_json::Value;

use crate::record::Record;

/// One record's columns and values.
pub type Row = BTreeMap<String, Value>;

/// How [`render`] writes the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A header line, then one comma-separated line per row (RFC 4180 quoting).
    Csv,
    /// One JSON object per row, its keys in column order.
    JsonLines,
}

/// Columns every table starts with, in this order; the rest follow sorted by name.
const LEADING: [&str; 5] = ["key", "kernel", "status", "exit_code", "error"];

/// One record as flat columns: the plan's options (`opt.NAME`, `arg.NAME`), checks,
/// and every number of the statistics under its dotted path.
pub fn row(record: &Record, resources: bool) -> Row {
    let mut row = BTreeMap::new();
    row.insert("key".into(), Value::from(record.key.clone()));
    row.insert("kernel".into(), record.inputs.files.first().map_or(Value::Null, |f| Value::from(f.path.clone())));
    row.insert("status".into(), Value::from(record.status.name()));
    row.insert("exit_code".into(), record.exit_code.map_or(Value::Null, Value::from));
    row.insert("error".into(), record.first_error_line().filter(|_| record.failed()).map_or(Value::Null, Value::from));
    let mut options: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, value) in &record.inputs.options {
        let (column, value) = match (name.as_str(), value) {
            ("arg", Some(v)) => match v.split_once('=') {
                Some((param, v)) => (format!("arg.{}", param.trim()), v.trim().to_string()),
                None => (format!("opt.{name}"), v.clone()),
            },
            (_, Some(v)) => (format!("opt.{name}"), v.clone()),
            (_, None) => (format!("opt.{name}"), "true".to_string()),
        };
        options.entry(column).or_default().push(value);
    }
    for (column, values) in options {
        // The last of repeated values wins, as on the command line (`--arg n=1 --arg n=2`);
        // flags that accumulate (`--dump`) list them all.
        let value = if column.starts_with("arg.") { values.last().cloned().unwrap_or_default() } else { values.join(" ") };
        row.insert(column, Value::from(value));
    }
    for check in &record.checks {
        row.insert(format!("check.{}", check.dump), Value::from(if check.passed { "passed" } else { "failed" }));
        if let Some(e) = check.max_abs_error {
            row.insert(format!("check.{}.max_abs_error", check.dump), Value::from(e));
        }
    }
    if let Some(summary) = &record.summary {
        for part in ["stats", "timing"] {
            if let Some(v) = summary.get(part) {
                flatten(part, v, &mut row);
            }
        }
        if let Some(findings) = summary.get("findings").and_then(Value::as_array) {
            row.insert("findings".into(), Value::from(findings.len()));
        }
    }
    if resources {
        row.insert("wall_s".into(), Value::from(record.wall_s));
        row.insert("peak_memory_bytes".into(), record.peak_memory_bytes.map_or(Value::Null, Value::from));
    }
    row
}

/// Every number, string and boolean under `value`, by dotted path; lists (branches, per-line
/// reports) are too long for a column and left out.
fn flatten(path: &str, value: &Value, row: &mut Row) {
    match value {
        Value::Object(map) => map.iter().for_each(|(k, v)| flatten(&format!("{path}.{k}"), v, row)),
        Value::Array(_) | Value::Null => {}
        scalar => {
            row.insert(path.to_string(), scalar.clone());
        }
    }
}

/// The columns of `rows`: the leading ones, then every other in name order.
pub fn columns(rows: &[Row]) -> Vec<String> {
    // Hashing each row's names (rather than comparing them in a tree) keeps 100,000 rows quick.
    let all: std::collections::HashSet<&str> = rows.par_iter().fold(std::collections::HashSet::new, |mut set, r| {
        set.extend(r.keys().map(String::as_str));
        set
    }).reduce(std::collections::HashSet::new, |mut a, b| {
        a.extend(b);
        a
    });
    let mut rest: Vec<&str> = all.into_iter().filter(|c| !LEADING.contains(c)).collect();
    rest.sort_unstable();
    LEADING.iter().chain(&rest).map(|c| c.to_string()).collect()
}

/// A row's values in the order of `columns` (leading ones first, the rest sorted as the
/// row's own keys are, so one merge finds them all).
fn aligned<'r>(row: &'r Row, columns: &[String]) -> Vec<Option<&'r Value>> {
    let mut out: Vec<Option<&Value>> = columns[..LEADING.len()].iter().map(|c| row.get(c)).collect();
    let mut entries = row.iter().filter(|(k, _)| !LEADING.contains(&k.as_str())).peekable();
    for column in &columns[LEADING.len()..] {
        match entries.peek() {
            Some((k, v)) if *k == column => {
                out.push(Some(*v));
                entries.next();
            }
            _ => out.push(None),
        }
    }
    out
}

fn csv_field(value: Option<&Value>) -> String {
    let text = match value {
        None | Some(Value::Null) => return String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    };
    if text.contains([',', '"', '\n', '\r']) { format!("\"{}\"", text.replace('"', "\"\"")) } else { text }
}


/// The table of `rows` in `format`: the same rows give the same bytes.
pub fn render(rows: &[Row], format: Format) -> String {
    let columns = columns(rows);
    let lines: Vec<String> = rows
        .par_iter()
        .map(|r| {
            let values = aligned(r, &columns);
            match format {
                Format::JsonLines => {
                    let ordered: serde_json::Map<String, Value> = columns.iter().zip(values).filter_map(|(c, v)| Some((c.clone(), v?.clone()))).collect();
                    Value::Object(ordered).to_string()
                }
                Format::Csv => values.into_iter().map(csv_field).collect::<Vec<_>>().join(","),
            }
        })
        .collect();
    let mut text = String::new();
    if format == Format::Csv {
        text.push_str(&columns.iter().map(|c| csv_field(Some(&Value::from(c.clone())))).collect::<Vec<_>>().join(","));
        text.push('\n');
    }
    for line in lines {
        text.push_str(&line);
        text.push('\n');
    }
    text
}
