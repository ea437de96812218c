//! The divergence lints of [`simt_kernel::lint`] as codespan warnings, with
//! rustc's levels: `-A` allows a lint, `-W` warns, `-D` denies (an error), and
//! the group `warnings` names them all.

use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::Config;
use simt_isa::{MAX_RENDERED_DIAGNOSTICS, Module};
pub use simt_kernel::lint::LintKind;

/// What to do with a lint's findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Say nothing.
    Allow,
    /// Print a warning.
    Warn,
    /// Print an error: the command fails.
    Deny,
}

/// The level of every lint; all warn by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LintLevels([Level; LintKind::ALL.len()]);

impl Default for LintLevels {
    fn default() -> LintLevels {
        LintLevels([Level::Warn; LintKind::ALL.len()])
    }
}

impl LintLevels {
    /// Levels from `-A`, `-W` and `-D` names (a lint, `-` or `_` alike, or `warnings` for all). The group
    /// applies first and single lints override it, so `-D warnings -A unreachable_code`
    /// denies all but one; at one level of detail, `-D` beats `-W` beats `-A`.
    ///
    /// # Errors
    /// An unknown name, with the names there are.
    pub fn from_flags(allow: &[String], warn: &[String], deny: &[String]) -> Result<LintLevels, simt_isa::UnknownName> {
        let mut levels = LintLevels::default();
        let flags = [(Level::Allow, allow), (Level::Warn, warn), (Level::Deny, deny)];
        for group in [true, false] {
            for (level, names) in flags {
                // As rustc does, `loop-divergence` names `loop_divergence`.
                for name in names.iter().map(|n| n.trim().replace('-', "_")) {
                    let name = name.as_str();
                    match (name, LintKind::from_name(name)) {
                        ("warnings", _) if group => levels.0 = [level; LintKind::ALL.len()],
                        (_, Some(kind)) if !group => levels.0[kind as usize] = level,
                        ("warnings", _) | (_, Some(_)) => {}
                        _ => {
                            let choices = LintKind::ALL.iter().map(|k| k.name()).chain(["warnings"]).collect();
                            return Err(simt_isa::UnknownName { what: "a lint", given: name.to_string(), choices });
                        }
                    }
                }
            }
        }
        Ok(levels)
    }

    /// The level of `kind`.
    pub fn level(&self, kind: LintKind) -> Level {
        self.0[kind as usize]
    }
}

/// The rendered findings of the lints that are not allowed.
#[derive(Clone, Debug, Default)]
pub struct LintReport {
    /// The warnings and errors, ready to print on stderr (empty when there are none).
    pub text: String,
    /// Findings of lints at `-W`.
    pub warnings: usize,
    /// Findings of lints at `-D`: the command should fail.
    pub denied: usize,
    /// The source line of the first denied finding, for callers that point at it (Python's `AssemblyError`).
    pub first_denied_line: Option<u32>,
}

/// Lints every kernel of `module` (which must carry its source) and renders the
/// findings at their levels: the first [`MAX_RENDERED_DIAGNOSTICS`] in full, the
/// rest counted.
pub fn lint(module: &Module, levels: &LintLevels, color: bool) -> LintReport {
    let Some(source) = module.source.as_deref() else { return LintReport::default() };
    if LintKind::ALL.iter().all(|&k| levels.level(k) == Level::Allow) {
        return LintReport::default();
    }
    let file = SimpleFile::new(module.source_name.as_str(), source);
    let mut report = LintReport::default();
    let mut explained = [false; LintKind::ALL.len()];
    let mut out = Vec::new();
    for kernel in &module.kernels {
        for found in simt_kernel::lint::lint(&kernel.code) {
            let level = levels.level(found.kind);
            match level {
                Level::Allow => continue,
                Level::Warn => report.warnings += 1,
                Level::Deny => {
                    report.denied += 1;
                    report.first_denied_line = report.first_denied_line.or_else(|| kernel.line(found.pc));
                }
            }
            if report.warnings + report.denied > MAX_RENDERED_DIAGNOSTICS {
                continue;
            }
            let span = |pc: u32| kernel.line(pc).and_then(|l| module.line_span(l));
            let mut labels: Vec<Label<()>> =
                span(found.pc).map(|s| Label::primary((), s).with_message(format!("in kernel `{}`", kernel.name))).into_iter().collect();
            labels.extend(found.related.iter().filter_map(|(pc, what)| span(*pc).map(|s| Label::secondary((), s).with_message(what.clone()))));
            let mut notes = vec![format!("help: {}", found.help)];
            let name = found.kind.name();
            if !std::mem::replace(&mut explained[found.kind as usize], true) {
                notes.push(match level {
                    Level::Deny => format!("`-D {name}` made this an error"),
                    _ => format!("`{name}` warns by default; `-A {name}` silences it, `-D {name}` makes it an error"),
                });
            }
            let diagnostic = match level {
                Level::Deny => Diagnostic::error(),
                _ => Diagnostic::warning(),
            };
            let diagnostic = diagnostic.with_code(name).with_message(&found.message).with_labels(labels).with_notes(notes);
            crate::diagnostics::emit(&mut out, &Config::default(), &file, &diagnostic, color);
        }
    }
    let shown = report.warnings + report.denied;
    if shown > MAX_RENDERED_DIAGNOSTICS {
        out.extend_from_slice(format!("warning: {} more lint findings not shown\n", shown - MAX_RENDERED_DIAGNOSTICS).as_bytes());
    }
    report.text = String::from_utf8_lossy(&out).into_owned();
    report
}
