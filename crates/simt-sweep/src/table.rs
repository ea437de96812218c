//! Run records as one table: a row per record, the plan's options and every
//! statistic as columns in a stable order, written as CSV or JSON lines.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use rayon::prelude::*;
use serde_json::Value;

use crate::record::Record;

/// One record's columns and values, sorted by column name. Names are shared (interned per
/// thread), so 100,000 rows of a hundred columns do not allocate ten million strings.
#[derive(Clone, Debug, Default)]
pub struct Row(Vec<(Arc<str>, Value)>);

impl Row {
    /// The value of column `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.binary_search_by(|(k, _)| (**k).cmp(name)).ok().map(|i| &self.0[i].1)
    }

    /// Whether the row has column `name`.
    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Column names and values, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0.iter().map(|(k, v)| (&**k, v))
    }

    fn from_cells(mut cells: Vec<(Arc<str>, Value)>) -> Row {
        // A later value of a column replaces an earlier one.
        cells.reverse();
        cells.sort_by(|a, b| a.0.cmp(&b.0));
        cells.dedup_by(|later, earlier| later.0 == earlier.0);
        Row(cells)
    }
}

thread_local! {
    static NAMES: RefCell<HashMap<Box<str>, Arc<str>>> = RefCell::new(HashMap::new());
}

/// The shared copy of column name `name`.
fn intern(name: &str) -> Arc<str> {
    NAMES.with(|names| {
        if let Some(shared) = names.borrow().get(name) {
            return shared.clone();
        }
        let shared: Arc<str> = Arc::from(name);
        names.borrow_mut().insert(name.into(), shared.clone());
        shared
    })
}

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
    let mut row: Vec<(Arc<str>, Value)> = Vec::with_capacity(128);
    let put = |row: &mut Vec<(Arc<str>, Value)>, name: &str, value: Value| row.push((intern(name), value));
    put(&mut row, "key", Value::from(record.key.clone()));
    put(&mut row, "kernel", record.inputs.files.first().map_or(Value::Null, |f| Value::from(f.path.clone())));
    put(&mut row, "status", Value::from(record.status.name()));
    put(&mut row, "exit_code", record.exit_code.map_or(Value::Null, Value::from));
    put(&mut row, "error", record.first_error_line().filter(|_| record.failed()).map_or(Value::Null, Value::from));
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
        put(&mut row, &column, Value::from(value));
    }
    for check in &record.checks {
        put(&mut row, &format!("check.{}", check.dump), Value::from(if check.passed { "passed" } else { "failed" }));
        if let Some(e) = check.max_abs_error {
            put(&mut row, &format!("check.{}.max_abs_error", check.dump), Value::from(e));
        }
    }
    if let Some(summary) = &record.summary {
        for part in ["stats", "timing"] {
            if let Some(v) = summary.get(part) {
                flatten(&mut part.to_string(), v, &mut row);
            }
        }
        if let Some(findings) = summary.get("findings").and_then(Value::as_array) {
            put(&mut row, "findings", Value::from(findings.len()));
        }
    }
    if resources {
        put(&mut row, "wall_s", Value::from(record.wall_s));
        put(&mut row, "peak_memory_bytes", record.peak_memory_bytes.map_or(Value::Null, Value::from));
    }
    Row::from_cells(row)
}

/// Every number, string and boolean under `value`, by dotted path; lists (branches, per-line
/// reports) are too long for a column and left out.
fn flatten(path: &mut String, value: &Value, row: &mut Vec<(Arc<str>, Value)>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let len = path.len();
                path.push('.');
                path.push_str(k);
                flatten(path, v, row);
                path.truncate(len);
            }
        }
        Value::Array(_) | Value::Null => {}
        scalar => row.push((intern(path), scalar.clone())),
    }
}

/// The columns of `rows`: the leading ones, then every other in name order.
pub fn columns(rows: &[Row]) -> Vec<String> {
    // Hashing each row's names (rather than comparing them in a tree) keeps 100,000 rows quick.
    let all: HashSet<&str> = rows
        .par_iter()
        .fold(HashSet::new, |mut set, r| {
            set.extend(r.iter().map(|(k, _)| k));
            set
        })
        .reduce(HashSet::new, |mut a, b| {
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
    let mut entries = row.iter().filter(|(k, _)| !LEADING.contains(k)).peekable();
    for column in &columns[LEADING.len()..] {
        match entries.peek() {
            Some((k, v)) if *k == column.as_str() => {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_sorted_and_a_later_value_wins() {
        let cell = |k: &str, v: i32| (intern(k), Value::from(v));
        let row = Row::from_cells(vec![cell("b", 1), cell("a", 2), cell("b", 3)]);
        assert_eq!(row.iter().map(|(k, v)| (k.to_string(), v.clone())).collect::<Vec<_>>(), [("a".into(), Value::from(2)), ("b".into(), Value::from(3))]);
        assert_eq!(row.get("b"), Some(&Value::from(3)));
        assert!(!row.contains_key("c"));
        assert!(Arc::ptr_eq(&intern("a"), &intern("a")), "names are shared");
    }

    #[test]
    fn csv_quotes_what_needs_it() {
        assert_eq!(csv_field(Some(&Value::from("a,b"))), "\"a,b\"");
        assert_eq!(csv_field(Some(&Value::from("say \"hi\""))), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field(Some(&Value::from(1.5))), "1.5");
        assert_eq!(csv_field(None), "");
    }
}
