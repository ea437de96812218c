//! Plans: a TOML file naming kernels and a grid of `simt run` options. Every kernel
//! runs with every combination of the grid's values; each such run is one job.
//!
//! ```toml
//! out = "study.sweep"                  # the sweep folder, beside the plan by default
//!
//! [[kernel]]
//! path = "kernels/*.s"                 # a path or a glob, relative to the plan
//! options = { arg = { n = 256 } }      # options of these kernels only
//! check = [{ dump = "y", reference = "ref/y.npy", tolerance = 1e-6 }]
//!
//! [options]                            # options of every job
//! max-steps = 1000000
//!
//! [grid]                               # every combination of these values
//! simt = ["its", "stack"]
//! its-yield = [1, 8]
//! arg.a = [1.0, 2.5]                   # --arg a=1.0, --arg a=2.5
//! ```
//!
//! Option names are the long flags of `simt run` without `--`: any flag can be an
//! option or an axis. A switch takes `true` or `false`; a table gives `NAME=VALUE`
//! pairs (`arg = { n = 4 }` is `--arg n=4`); an array in `[options]` repeats the flag.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::command::RunCommand;
use crate::flags::{Effect, FlagSet};

/// The most jobs one plan may expand to. A sweep holds every job's command and key in
/// memory, about 1 KB a job: a million jobs plan in about a gigabyte and ten seconds.
pub const MAX_JOBS: u64 = 1_000_000;

/// The largest plan file read.
pub const MAX_PLAN_BYTES: u64 = 16 << 20;

/// A plan, checked and ready to expand.
#[derive(Debug)]
pub struct Plan {
    /// The plan file.
    pub path: PathBuf,
    /// Its folder: kernel paths are relative to it, and jobs start in it.
    pub dir: PathBuf,
    /// The sweep folder (manifest, records).
    pub out: PathBuf,
    entries: Vec<Entry>,
    options: Vec<Setting>,
    axes: Vec<Axis>,
}

/// A `[[kernel]]` entry with its files found.
#[derive(Debug)]
struct Entry {
    files: Vec<String>,
    options: Vec<Setting>,
    checks: Vec<Check>,
}

/// A check of one dump of a kernel.
#[derive(Debug)]
struct Check {
    dump: String,
    reference: String,
    tolerance: f64,
}

/// One option the plan sets: `--flag VALUE`, `--flag KEY=VALUE`, repeated or a switch.
#[derive(Clone, Debug)]
struct Setting {
    /// The option's name in the plan and in tables: `simt`, `arg.n`.
    name: String,
    flag: String,
    /// The values after the flag; `None` for a switch that is on. Empty: the flag is left out.
    values: Vec<Option<String>>,
    line: usize,
}

impl Setting {
    fn push_options(&self, options: &mut Vec<(String, Option<String>)>) {
        options.extend(self.values.iter().map(|v| (self.flag.clone(), v.clone())));
    }
}

/// One axis of the grid: the alternatives of one option.
#[derive(Debug)]
struct Axis {
    alternatives: Vec<Setting>,
}

/// A job: one `simt run`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// The command, relative to the plan's folder.
    pub command: RunCommand,
}

/// A plan that cannot be used, with the place in the file.
#[derive(Debug, PartialEq, Eq)]
pub struct PlanError {
    /// The plan file.
    pub file: PathBuf,
    /// 1-based line and column; 0 when the error is about the file as a whole.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong and what to do.
    pub message: String,
    /// The text of the line.
    pub text: Option<String>,
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            return write!(f, "{}: {}", self.file.display(), self.message);
        }
        write!(f, "{}:{}:{}: {}", self.file.display(), self.line, self.column, self.message)?;
        if let Some(text) = &self.text {
            write!(f, "\n{:>5} | {}", self.line, text.trim_end())?;
        }
        Ok(())
    }
}

impl std::error::Error for PlanError {}

/// Reads a plan and reports the first problem with its place.
struct Loader<'a> {
    path: &'a Path,
    text: &'a str,
    flags: &'a FlagSet,
}

type Result<T> = std::result::Result<T, PlanError>;

impl Plan {
    /// Reads and checks the plan at `path` against the flags of `simt run`: every option
    /// exists and takes the value given, every kernel file and reference exists, and the
    /// grid expands to between 1 and [`MAX_JOBS`] jobs. Nothing is run.
    ///
    /// # Errors
    /// The first problem, with its line.
    pub fn load(path: &Path, flags: &FlagSet) -> Result<Plan> {
        let whole = |message: String| PlanError { file: path.to_path_buf(), line: 0, column: 0, message, text: None };
        let bytes = simt_io::read_bounded(path, MAX_PLAN_BYTES).map_err(|e| whole(e.to_string()))?;
        let text = String::from_utf8(bytes).map_err(|_| whole("the plan is not UTF-8 text".into()))?;
        let dir = std::path::absolute(path).map_err(|e| whole(e.to_string()))?.parent().map(Path::to_path_buf).unwrap_or_default();
        Loader { path, text: &text, flags }.plan(dir)
    }

    /// How many jobs the plan expands to; `None` when that is more than a `u64` counts.
    pub fn job_count(&self) -> Option<u64> {
        let grid = self.axes.iter().try_fold(1u64, |n, a| n.checked_mul(a.alternatives.len() as u64))?;
        self.entries.iter().map(|e| e.files.len() as u64).sum::<u64>().checked_mul(grid)
    }

    /// Every job, kernel entries in plan order, files sorted, the first axis slowest.
    pub fn jobs(&self) -> Vec<Job> {
        let mut jobs = Vec::with_capacity(self.job_count().and_then(|n| usize::try_from(n).ok()).unwrap_or(0));
        let combinations = self.axes.iter().fold(1usize, |n, a| n * a.alternatives.len());
        for entry in &self.entries {
            // Kernel options override plan options of the same name.
            let mut fixed: Vec<&Setting> = self.options.iter().filter(|o| !entry.options.iter().any(|e| e.name == o.name)).collect();
            fixed.extend(&entry.options);
            for file in &entry.files {
                for combination in 0..combinations {
                    let mut options = Vec::new();
                    fixed.iter().for_each(|s| s.push_options(&mut options));
                    let mut rest = combination;
                    let mut chosen = Vec::with_capacity(self.axes.len());
                    for axis in self.axes.iter().rev() {
                        chosen.push(&axis.alternatives[rest % axis.alternatives.len()]);
                        rest /= axis.alternatives.len();
                    }
                    chosen.iter().rev().for_each(|s| s.push_options(&mut options));
                    for check in &entry.checks {
                        options.push(("expect".into(), Some(format!("{}={}", check.dump, check.reference))));
                        if check.tolerance != 0.0 {
                            options.push(("tolerance".into(), Some(format!("{}={}", check.dump, check.tolerance))));
                        }
                    }
                    jobs.push(Job { command: RunCommand { kernel: file.clone(), options } });
                }
            }
        }
        jobs
    }
}

impl Loader<'_> {
    fn error(&self, span: Range<usize>, message: impl Into<String>) -> PlanError {
        let start = span.start.min(self.text.len());
        let before = &self.text[..start];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = self.text[line_start..start].chars().count() + 1;
        let text = self.text[line_start..].lines().next().map(String::from);
        PlanError { file: self.path.to_path_buf(), line, column, message: message.into(), text }
    }

    fn line_of(&self, span: &Range<usize>) -> usize {
        self.text[..span.start.min(self.text.len())].matches('\n').count() + 1
    }

    fn plan(&self, dir: PathBuf) -> Result<Plan> {
        let table = DeTable::parse(self.text).map_err(|e| self.error(e.span().unwrap_or(0..0), e.message().trim_end().to_lowercase()))?;
        let mut plan = Plan { path: self.path.to_path_buf(), out: PathBuf::new(), dir, entries: Vec::new(), options: Vec::new(), axes: Vec::new() };
        let mut grid_span = None;
        let mut kernels_seen = false;
        for (key, value) in table.get_ref() {
            match key.get_ref().as_ref() {
                "out" => plan.out = plan.dir.join(self.out(value)?),
                "kernel" => {
                    kernels_seen = true;
                    let DeValue::Array(entries) = value.get_ref() else {
                        return Err(self.error(key.span(), "`kernel` is a list of tables: write each as [[kernel]] with a `path`"));
                    };
                    for entry in entries {
                        plan.entries.push(self.entry(entry, &plan.dir)?);
                    }
                }
                "options" => plan.options = self.settings(self.table(value, "options")?)?,
                "grid" => {
                    grid_span = Some(key.span());
                    plan.axes = self.axes(self.table(value, "grid")?)?;
                }
                other => {
                    return Err(self.error(key.span(), format!("a plan has no key `{other}`; its keys are out, [[kernel]], [options] and [grid]")));
                }
            }
        }
        if !kernels_seen || plan.entries.is_empty() {
            return Err(self.error(0..0, "the plan names no kernels: add a [[kernel]] table with `path = \"FILE.s\"` (or a glob)"));
        }
        if plan.out.as_os_str().is_empty() {
            let stem = self.path.file_stem().map_or("plan".into(), |s| s.to_string_lossy().into_owned());
            plan.out = plan.dir.join(format!("{stem}.sweep"));
        }
        self.check_conflicts(&plan)?;
        let too_many = match plan.job_count() {
            Some(n) if n <= MAX_JOBS => None,
            Some(n) => Some(n.to_string()),
            None => Some(format!("more than {}", u64::MAX)),
        };
        if let Some(jobs) = too_many {
            return Err(self.error(
                grid_span.unwrap_or(0..0),
                format!("the plan expands to {jobs} jobs, more than the {MAX_JOBS} a sweep runs; split it into several plans or take fewer values"),
            ));
        }
        Ok(plan)
    }

    /// An option may be an axis or fixed, not both: which would win is a guess.
    fn check_conflicts(&self, plan: &Plan) -> Result<()> {
        let fixed = plan.options.iter().chain(plan.entries.iter().flat_map(|e| &e.options));
        for setting in fixed {
            if let Some(axis) = plan.axes.iter().find(|a| a.alternatives[0].name == setting.name) {
                let line = axis.alternatives[0].line;
                let span = self.line_span(setting.line);
                return Err(self.error(span, format!("`{}` is both a grid axis (line {line}) and a fixed option; keep one", setting.name)));
            }
        }
        Ok(())
    }

    fn line_span(&self, line: usize) -> Range<usize> {
        let start = self.text.split_inclusive('\n').take(line - 1).map(str::len).sum();
        start..start
    }

    /// The sweep folder: inside the plan's folder, so a plan never writes elsewhere.
    fn out<'v>(&self, value: &'v Spanned<DeValue>) -> Result<&'v str> {
        let out = self.string(value, "out")?;
        let path = Path::new(out);
        let inside = path.components().all(|c| matches!(c, std::path::Component::Normal(_) | std::path::Component::CurDir));
        if out.trim().is_empty() || !inside || path.components().all(|c| c == std::path::Component::CurDir) {
            return Err(self.error(
                value.span(),
                format!("`out = \"{out}\"`: the sweep folder is a folder inside the plan's, named relative to it without `..` (for example \"study.sweep\")"),
            ));
        }
        Ok(out)
    }

    fn string<'v>(&self, value: &'v Spanned<DeValue>, what: &str) -> Result<&'v str> {
        value.get_ref().as_str().ok_or_else(|| self.error(value.span(), format!("`{what}` is a string, not {}", value.get_ref().type_str())))
    }

    fn table<'v, 'i>(&self, value: &'v Spanned<DeValue<'i>>, what: &str) -> Result<&'v DeTable<'i>> {
        value.get_ref().as_table().ok_or_else(|| self.error(value.span(), format!("`{what}` is a table, not {}", value.get_ref().type_str())))
    }

    fn entry(&self, value: &Spanned<DeValue>, dir: &Path) -> Result<Entry> {
        let table = self.table(value, "kernel")?;
        let mut entry = Entry { files: Vec::new(), options: Vec::new(), checks: Vec::new() };
        let mut path = None;
        for (key, v) in table {
            match key.get_ref().as_ref() {
                "path" => path = Some((self.string(v, "path")?, v.span())),
                "options" => entry.options = self.settings(self.table(v, "options")?)?,
                "check" => {
                    let DeValue::Array(checks) = v.get_ref() else {
                        return Err(self.error(v.span(), "`check` is a list: check = [{ dump = \"y\", reference = \"y.npy\" }]"));
                    };
                    for check in checks {
                        entry.checks.push(self.check(check, dir)?);
                    }
                }
                other => {
                    return Err(self.error(key.span(), format!("a [[kernel]] has no key `{other}`; its keys are path, options and check")));
                }
            }
        }
        let (pattern, span) = path.ok_or_else(|| self.error(value.span(), "this [[kernel]] has no `path`: give a kernel file or a glob"))?;
        entry.files = self.files(pattern, span, dir)?;
        Ok(entry)
    }

    /// The files a path or glob names, relative to the plan when given so, sorted.
    fn files(&self, pattern: &str, span: Range<usize>, dir: &Path) -> Result<Vec<String>> {
        if !pattern.contains(['*', '?', '[']) {
            let path = dir.join(pattern);
            return match std::fs::metadata(&path) {
                Ok(m) if m.is_file() => Ok(vec![pattern.to_string()]),
                Ok(_) => Err(self.error(span, format!("`{pattern}` is a folder; name the kernel files in it, e.g. \"{pattern}/*.s\""))),
                Err(e) => Err(self.error(span, format!("cannot read kernel `{pattern}`: {}", io_reason(&e)))),
            };
        }
        let absolute = Path::new(pattern).is_absolute();
        let full = if absolute { pattern.to_string() } else { format!("{}/{pattern}", glob::Pattern::escape(&dir.display().to_string())) };
        let found = glob::glob(&full).map_err(|e| self.error(span.clone(), format!("`{pattern}` is not a valid glob: {}", e.msg)))?;
        let mut files: Vec<String> = found
            .filter_map(|p| p.ok())
            .filter(|p| p.is_file())
            .map(|p| if absolute { p } else { p.strip_prefix(dir).map(Path::to_path_buf).unwrap_or(p) })
            .map(|p| p.display().to_string())
            .collect();
        if files.is_empty() {
            return Err(self.error(span, format!("`{pattern}` matches no file (paths are relative to the plan's folder, {})", dir.display())));
        }
        files.sort();
        Ok(files)
    }

    fn check(&self, value: &Spanned<DeValue>, dir: &Path) -> Result<Check> {
        let table = self.table(value, "check")?;
        let (mut dump, mut reference, mut tolerance) = (None, None, 0.0);
        for (key, v) in table {
            match key.get_ref().as_ref() {
                "dump" => dump = Some(self.string(v, "dump")?.to_string()),
                "reference" => {
                    let file = self.string(v, "reference")?;
                    if !dir.join(file).is_file() {
                        return Err(self.error(v.span(), format!("the reference `{file}` is not a file (paths are relative to the plan's folder)")));
                    }
                    reference = Some(file.to_string());
                }
                "tolerance" => {
                    tolerance = match v.get_ref() {
                        DeValue::Float(f) => f.as_str().parse().unwrap_or(f64::NAN),
                        DeValue::Integer(i) => i128::from_str_radix(i.as_str(), i.radix()).map_or(f64::NAN, |i| i as f64),
                        _ => f64::NAN,
                    };
                    if !(tolerance.is_finite() && tolerance >= 0.0) {
                        return Err(self.error(v.span(), "`tolerance` is a number of at least 0 (0 asks for equal values)"));
                    }
                }
                other => return Err(self.error(key.span(), format!("a check has no key `{other}`; its keys are dump, reference and tolerance"))),
            }
        }
        let missing = |what: &str| self.error(value.span(), format!("this check has no `{what}`: write {{ dump = \"y\", reference = \"y.npy\" }}"));
        let dump = dump.ok_or_else(|| missing("dump"))?;
        let reference = reference.ok_or_else(|| missing("reference"))?;
        Ok(Check { dump, reference, tolerance })
    }

    /// The flag `name` of `simt run`, if a plan may set it.
    fn flag(&self, name: &str, span: Range<usize>) -> Result<bool> {
        let Some(flag) = self.flags.get(name) else {
            let hint = self.flags.closest(name).map(|c| format!(" (did you mean `{c}`?)")).unwrap_or_default();
            return Err(self.error(span, format!("`simt run` has no option --{name}{hint}")));
        };
        if let Some(reason) = Effect::plan_refusal(name) {
            return Err(self.error(span, format!("a plan cannot set --{name}: {reason}")));
        }
        Ok(flag.takes_value)
    }

    /// The settings of an `[options]` table: arrays repeat the flag.
    fn settings(&self, table: &DeTable) -> Result<Vec<Setting>> {
        let mut settings = Vec::new();
        for (key, value) in table {
            let flag = key.get_ref().as_ref();
            let takes_value = self.flag(flag, key.span())?;
            match value.get_ref() {
                DeValue::Table(pairs) if takes_value => {
                    for (sub, v) in pairs {
                        settings.push(self.setting(flag, Some(sub.get_ref()), std::slice::from_ref(v), sub.span())?);
                    }
                }
                DeValue::Array(values) => settings.push(self.setting(flag, None, values, key.span())?),
                _ => settings.push(self.setting(flag, None, std::slice::from_ref(value), key.span())?),
            }
        }
        Ok(settings)
    }

    /// The axes of the `[grid]` table: each value is a list of alternatives.
    fn axes(&self, table: &DeTable) -> Result<Vec<Axis>> {
        let mut axes = Vec::new();
        for (key, value) in table {
            let flag = key.get_ref().as_ref();
            let takes_value = self.flag(flag, key.span())?;
            let mut lists = Vec::new();
            match value.get_ref() {
                DeValue::Table(pairs) if takes_value => lists.extend(pairs.iter().map(|(sub, v)| (Some(sub.get_ref().as_ref()), v, sub.span()))),
                _ => lists.push((None, value, key.span())),
            }
            for (sub, list, span) in lists {
                let name = sub.map_or_else(|| flag.to_string(), |s| format!("{flag}.{s}"));
                let DeValue::Array(values) = list.get_ref() else {
                    return Err(self.error(list.span(), format!("a grid axis is a list of values: write {name} = [...]")));
                };
                if values.is_empty() {
                    return Err(self.error(list.span(), format!("the axis `{name}` has no values, so the grid has no jobs; give at least one")));
                }
                let alternatives = values.iter().map(|v| self.setting(flag, sub, std::slice::from_ref(v), span.clone())).collect::<Result<_>>()?;
                axes.push(Axis { alternatives });
            }
        }
        Ok(axes)
    }

    /// One setting of `--flag` (`--flag sub=VALUE` when `sub` is given) with `values`.
    fn setting(&self, flag: &str, sub: Option<&str>, values: &[Spanned<DeValue>], span: Range<usize>) -> Result<Setting> {
        let takes_value = self.flags.get(flag).is_some_and(|f| f.takes_value);
        let name = sub.map_or_else(|| flag.to_string(), |s| format!("{flag}.{s}"));
        let mut rendered = Vec::new();
        for value in values {
            let at = value.span();
            let text = match value.get_ref() {
                DeValue::Boolean(on) if !takes_value => {
                    if *on {
                        rendered.push(None);
                    }
                    continue;
                }
                _ if !takes_value => return Err(self.error(at, format!("--{flag} is a switch: give true or false"))),
                DeValue::String(s) => s.to_string(),
                DeValue::Integer(i) => {
                    i128::from_str_radix(i.as_str(), i.radix()).map_err(|_| self.error(at.clone(), "an integer too large for simt"))?.to_string()
                }
                DeValue::Float(f) => f.as_str().to_string(),
                DeValue::Boolean(_) => return Err(self.error(at, format!("--{flag} takes a value, not true or false"))),
                other => return Err(self.error(at, format!("--{flag} takes a string or a number here, not {}", other.type_str()))),
            };
            let value = match sub {
                Some(sub) => format!("{sub}={text}"),
                None => text,
            };
            self.flags.check_value(flag, Some(&value)).map_err(|e| self.error(at, format!("--{flag} {value}: {e}")))?;
            rendered.push(Some(value));
        }
        Ok(Setting { name, flag: flag.to_string(), values: rendered, line: self.line_of(&span) })
    }
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file (paths are relative to the plan's folder)".into(),
        _ => e.to_string(),
    }
}
