//! The problems found in one file, rendered the way rustc renders its own.

use codespan_reporting::diagnostic::{Diagnostic as Report, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Config, Styles, StylesWriter, termcolor::Ansi};

use crate::ast::Span;

/// The most diagnostics kept for one file; the rest are counted. A file this broken is not
/// PTX a compiler wrote, and thousands of messages help nobody.
pub const MAX_DIAGNOSTICS: usize = 100;

/// Lines longer than this many bytes are not printed under a diagnostic, only located.
pub const LONG_LINE: usize = 512;

/// One error: what is wrong, where, and any notes on how to fix it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Where the problem is.
    pub span: Span,
    /// A lowercase sentence.
    pub message: String,
    /// Further help, one sentence each.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// A problem at `span` with no notes.
    pub(crate) fn new(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { span, message: message.into(), notes: Vec::new() }
    }

    /// 1-based line and column (in characters) of the diagnostic's start in `source`.
    pub fn line_column(&self, source: &str) -> (usize, usize) {
        let start = (self.span.start as usize).min(source.len());
        let before = &source[..floor_char_boundary(source, start)];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        (before.matches('\n').count() + 1, before[line_start..].chars().count() + 1)
    }
}

fn floor_char_boundary(source: &str, mut index: usize) -> usize {
    while !source.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// Every diagnostic of one parse, the first [`MAX_DIAGNOSTICS`] in source order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics {
    list: Vec<Diagnostic>,
    total: usize,
}

impl Diagnostics {
    pub(crate) fn push(&mut self, diagnostic: Diagnostic) {
        self.total += 1;
        if self.list.len() < MAX_DIAGNOSTICS {
            self.list.push(diagnostic);
        }
    }

    pub(crate) fn finish(&mut self) {
        self.list.sort_by_key(|d| (d.span.start, d.span.end));
    }

    /// No problems.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// How many problems there were, including those not kept.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The diagnostics kept, in source order.
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.list.iter()
    }

    /// Every diagnostic as `error: message`, `--> file:line:col`, the source line and a caret
    /// under the offending text; ANSI colours when `color` is set. A diagnostic on a line
    /// longer than [`LONG_LINE`] bytes is shown as `file:line:col: error: message`.
    pub fn render(&self, file_name: &str, source: &str, color: bool) -> String {
        let file = SimpleFile::new(file_name, source);
        let config = Config::default();
        let mut out = Vec::new();
        for d in &self.list {
            if on_long_line(source, d.span) {
                let (line, column) = d.line_column(source);
                out.extend_from_slice(format!("{file_name}:{line}:{column}: error: {}\n", d.message).as_bytes());
                for note in &d.notes {
                    out.extend_from_slice(format!("  = note: {note}\n").as_bytes());
                }
                continue;
            }
            let start = floor_char_boundary(source, (d.span.start as usize).min(source.len()));
            let end = floor_char_boundary(source, (d.span.end as usize).clamp(start, source.len()));
            let report = Report::error().with_message(&d.message).with_labels(vec![Label::primary((), start..end)]).with_notes(d.notes.clone());
            // Rendering fails only for spans outside the file, and the spans were clamped to it.
            let _ = if color {
                let styles = Styles::default();
                let mut writer = StylesWriter::new(Ansi::new(&mut out), &styles);
                term::emit_to_write_style(&mut writer, &config, &file, &report)
            } else {
                term::emit_to_io_write(&mut out, &config, &file, &report)
            };
        }
        if self.total > self.list.len() {
            let more = self.total - self.list.len();
            out.extend_from_slice(format!("error: {more} more errors not shown; fix the ones above first\n").as_bytes());
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

fn on_long_line(source: &str, span: Span) -> bool {
    let start = floor_char_boundary(source, (span.start as usize).min(source.len()));
    let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = source[start..].find('\n').map_or(source.len(), |i| start + i);
    line_end - line_start > LONG_LINE
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
