//! The errors of one assembly run, rendered the way rustc renders its own.

use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Config, Styles, StylesWriter, termcolor::Ansi};

use crate::ast::Span;

/// Every problem found in one file.
#[derive(Clone, Debug)]
pub struct Diagnostics {
    file: SimpleFile<String, String>,
    list: Vec<Diagnostic<()>>,
}

impl Diagnostics {
    pub(crate) fn new(file_name: &str, source: &str, list: Vec<Diagnostic<()>>) -> Diagnostics {
        Diagnostics { file: SimpleFile::new(file_name.to_string(), source.to_string()), list }
    }

    /// All diagnostics, each with `file:line:col`, the source line and a caret
    /// under the offending token; ANSI colours when `color` is set.
    pub fn render(&self, color: bool) -> String {
        let config = Config::default();
        let mut out = Vec::new();
        for d in &self.list {
            // Rendering only fails for spans outside the file, which the assembler never makes.
            let _ = if color {
                let styles = Styles::default();
                let mut writer = StylesWriter::new(Ansi::new(&mut out), &styles);
                term::emit_to_write_style(&mut writer, &config, &self.file, d)
            } else {
                term::emit_to_io_write(&mut out, &config, &self.file, d)
            };
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    /// The number of diagnostics.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there are none (an `Err` from [`crate::assemble`] always has some).
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The diagnostics themselves, for tools that render them another way.
    pub fn diagnostics(&self) -> &[Diagnostic<()>] {
        &self.list
    }
}

impl std::fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.render(false))
    }
}

impl std::error::Error for Diagnostics {}

/// Collects diagnostics while assembling.
#[derive(Default)]
pub(crate) struct Sink {
    pub(crate) list: Vec<Diagnostic<()>>,
}

impl Sink {
    /// Reports an error: `code` names its class, `message` says what to do,
    /// `label` is printed under the caret.
    pub(crate) fn error(&mut self, code: &str, span: Span, message: impl Into<String>, label: impl Into<String>) -> &mut Diagnostic<()> {
        self.list.push(
            Diagnostic::error()
                .with_code(code)
                .with_message(message.into())
                .with_labels(vec![Label::primary((), span.range()).with_message(label.into())]),
        );
        self.list.last_mut().expect("just pushed")
    }
}

/// Adds `help: ...` to a diagnostic.
pub(crate) fn help(d: &mut Diagnostic<()>, text: impl Into<String>) {
    d.notes.push(format!("help: {}", text.into()));
}

/// Adds a secondary label (`first defined here`).
pub(crate) fn also(d: &mut Diagnostic<()>, span: Span, text: impl Into<String>) {
    d.labels.push(Label::secondary((), span.range()).with_message(text.into()));
}

/// The closest of `candidates` to `word`, if it is close enough to be a likely typo.
pub(crate) fn suggest<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let upper = word.to_ascii_uppercase();
    candidates
        .into_iter()
        .map(|c| (strsim::levenshtein(&upper, &c.to_ascii_uppercase()), c))
        .filter(|&(d, c)| d <= 2.max(c.len() / 3) && d < c.len().max(upper.len()))
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}
