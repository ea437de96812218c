//! The errors of one assembly run, rendered the way rustc renders its own.

use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Config, Styles, StylesWriter, termcolor::Ansi};

use simt_isa::{LONG_LINE, MAX_RENDERED_DIAGNOSTICS as MAX_RENDERED};

use crate::ast::Span;

/// The problems found in one file: the first [`MAX_RENDERED`] in source order, and how many there were.
#[derive(Clone, Debug)]
pub struct Diagnostics {
    file: SimpleFile<String, String>,
    list: Vec<Diagnostic<()>>,
    total: usize,
}

impl Diagnostics {
    pub(crate) fn new(file_name: &str, source: &str, sink: Sink) -> Diagnostics {
        let Sink { mut list, total, .. } = sink;
        list.sort_by_key(position);
        Diagnostics { file: SimpleFile::new(file_name.to_string(), source.to_string()), list, total }
    }

    /// All diagnostics, each with `file:line:col`, the source line and a caret
    /// under the offending token; ANSI colours when `color` is set.
    ///
    /// Hostile input stays readable: after [`MAX_RENDERED`] diagnostics the rest
    /// are counted, not shown, and a diagnostic on a line longer than
    /// [`LONG_LINE`] bytes is shown as its location without the line.
    pub fn render(&self, color: bool) -> String {
        let config = Config::default();
        let mut out = Vec::new();
        for d in &self.list {
            if let Some(short) = self.without_long_lines(d) {
                out.extend_from_slice(short.as_bytes());
                continue;
            }
            emit(&mut out, &config, &self.file, d, color);
        }
        if self.total > self.list.len() {
            let more = self.total - self.list.len();
            out.extend_from_slice(format!("error: {more} more errors not shown; fix the ones above first\n").as_bytes());
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    /// `file:line:col: message` when a label sits on a line too long to print.
    fn without_long_lines(&self, d: &Diagnostic<()>) -> Option<String> {
        let source = self.file.source();
        let label = d.labels.first()?;
        let start = source[..label.range.start].rfind('\n').map_or(0, |i| i + 1);
        let end = source[label.range.start..].find('\n').map_or(source.len(), |i| label.range.start + i);
        if end - start <= LONG_LINE {
            return None;
        }
        let line = source[..label.range.start].matches('\n').count() + 1;
        let column = label.range.start - start + 1;
        let code = d.code.as_deref().map(|c| format!("[{c}]")).unwrap_or_default();
        let mut text =
            format!("error{code}: {}\n  --> {}:{line}:{column} (a line of {} bytes, not shown)\n", shorten(&d.message), self.file.name(), end - start);
        for note in &d.notes {
            text.push_str(&format!("  = {}\n", shorten(note)));
        }
        Some(text)
    }

    /// The number of problems found (more than [`Diagnostics::diagnostics`] holds past [`MAX_RENDERED`]).
    pub fn len(&self) -> usize {
        self.total
    }

    /// Whether there are none (an `Err` from [`crate::assemble`] always has some).
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The first [`MAX_RENDERED`] diagnostics in source order, for tools that render them another way.
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

/// Appends `d` rendered over `file` to `out`, with ANSI colours when asked. Rendering only
/// fails for spans outside the file, which neither the assembler nor the lints make.
pub(crate) fn emit<S: AsRef<str> + Clone + std::fmt::Display>(out: &mut Vec<u8>, config: &Config, file: &SimpleFile<S, S>, d: &Diagnostic<()>, color: bool) {
    let _ = if color {
        let styles = Styles::default();
        term::emit_to_write_style(&mut StylesWriter::new(Ansi::new(out), &styles), config, file, d)
    } else {
        term::emit_to_io_write(out, config, file, d)
    };
}

/// `text` cut to a few hundred characters, so a message quoting a huge token stays short.
fn shorten(text: &str) -> String {
    const MAX: usize = 300;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}... ({} bytes in all)", &text[..cut], text.len()),
        None => text.to_string(),
    }
}

/// Where a diagnostic points: the start of its primary label.
fn position(d: &Diagnostic<()>) -> usize {
    d.labels.first().map_or(0, |l| l.range.start)
}

/// Collects diagnostics while assembling: it keeps the [`MAX_RENDERED`] earliest
/// in the file and only counts the rest, so a file of millions of bad lines
/// costs memory for a hundred.
pub(crate) struct Sink {
    list: Vec<Diagnostic<()>>,
    /// Every error reported, kept or not.
    pub(crate) total: usize,
    /// Where the latest-placed kept diagnostic points, and its index.
    latest: (usize, usize),
    /// Receives help and secondary labels of a diagnostic that is not kept.
    discard: Diagnostic<()>,
}

impl Default for Sink {
    fn default() -> Sink {
        Sink { list: Vec::new(), total: 0, latest: (0, 0), discard: Diagnostic::error() }
    }
}

impl Sink {
    /// Whether a diagnostic at `span` would be kept (not only counted): work that only
    /// improves a message, like looking for a suggestion, can be skipped otherwise.
    pub(crate) fn keeps(&self, span: Span) -> bool {
        self.list.len() < MAX_RENDERED || span.range().start < self.latest.0
    }

    /// Reports an error: `code` names its class, `message` says what to do,
    /// `label` is printed under the caret.
    pub(crate) fn error(&mut self, code: &str, span: Span, message: impl Into<String>, label: impl Into<String>) -> &mut Diagnostic<()> {
        self.total += 1;
        let start = span.range().start;
        let full = self.list.len() == MAX_RENDERED;
        if full && start >= self.latest.0 {
            self.discard = Diagnostic::error();
            return &mut self.discard;
        }
        let d = Diagnostic::error().with_code(code).with_message(message.into()).with_labels(vec![Label::primary((), span.range()).with_message(label.into())]);
        let at = if full {
            self.list[self.latest.1] = d;
            self.latest.1
        } else {
            self.list.push(d);
            self.list.len() - 1
        };
        if full || start >= self.latest.0 {
            self.latest = self.list.iter().enumerate().map(|(i, d)| (position(d), i)).max().unwrap_or((0, 0));
        }
        &mut self.list[at]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sink_keeps_the_earliest_diagnostics_and_counts_the_rest() {
        let mut sink = Sink::default();
        // Later passes report earlier lines: keep the earliest whatever the order.
        for start in (0..300).rev().chain(300..1000) {
            help(sink.error("e", Span::new(start, start + 1), format!("at {start}"), "here"), "ignored when dropped");
        }
        let d = Diagnostics::new("t.s", &" ".repeat(1001), sink);
        assert_eq!(d.len(), 1000);
        let kept: Vec<usize> = d.diagnostics().iter().map(position).collect();
        assert_eq!(kept, (0..MAX_RENDERED).collect::<Vec<_>>());
        assert!(d.render(false).ends_with("error: 900 more errors not shown; fix the ones above first\n"));
    }
}
