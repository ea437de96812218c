//! Kernel faults and how they are shown.

use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor};
use simt_isa::Module;

/// What went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum FaultKind {
    /// An access to address 0 .. 255 of GLOBAL.
    NullAccess,
    /// An address no buffer or region contains.
    Unmapped,
    /// An access that starts inside a region but runs past its end.
    OutOfBounds,
    /// An address not aligned to the access size.
    Misaligned,
    /// Threads wait for each other forever (barrier, collective, reconvergence).
    Deadlock,
    /// The launch issued more warp instructions than `--max-steps` allows.
    StepLimit,
    /// The launch was still running at its `--timeout`.
    TimeLimit,
    /// A warp issued `--runaway-steps` instructions in a row without making progress.
    Runaway,
    /// A tensor-core instruction (an MMA, or an `LDSM` that feeds one) was issued by an
    /// incomplete warp or with invalid metadata.
    Tensor,
    /// An mbarrier or tensor copy used as PTX forbids: more arrivals than a phase waits for,
    /// a transaction count out of range, a tensor map that is not one or does not fit the copy.
    Async,
    /// A block barrier used as PTX forbids: a number past 15, a thread count that is not whole
    /// warps or more than the block has, or differs between a phase's warps, or differs
    /// between a warp's lanes.
    Barrier,
    /// A thread executed `TRAP` (PTX `trap`, CUDA `__trap()`, a failed device `assert`).
    Trap,
    /// The launch's `PRINTF`s printed more than its `printf_limit`, or one could not print
    /// (a width past the limit, a `%s` string without its NUL).
    Printf,
    /// The launch itself is impossible (extents, resources, parameter bytes); nothing ran.
    InvalidLaunch,
    /// racecheck: two threads touched shared memory with no barrier between, at least one writing.
    /// Findings are named by the sanitizer that makes them, as `--check` and the summary name it.
    #[serde(rename = "racecheck")]
    Race,
    /// initcheck: a read of a register, shared or local memory that nothing wrote.
    #[serde(rename = "initcheck")]
    Uninitialized,
    /// synccheck: `BAR.SYNC` or a warp collective reached by a diverged warp.
    #[serde(rename = "synccheck")]
    Divergence,
}

impl FaultKind {
    /// The sanitizers, each with the kind of finding it makes, as `--check` names them.
    pub const SANITIZERS: [(FaultKind, &'static str); 3] =
        [(FaultKind::Race, "racecheck"), (FaultKind::Uninitialized, "initcheck"), (FaultKind::Divergence, "synccheck")];
}

/// A kernel fault (the launch stopped), or one sanitizer finding (the launch went on).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Fault {
    /// What went wrong.
    pub kind: FaultKind,
    /// One sentence, lowercase, naming what was accessed or who waits for whom.
    pub message: String,
    /// Kernel name.
    pub kernel: String,
    /// Block index.
    pub block: [u32; 3],
    /// Thread index inside the block, when one thread is at fault.
    pub thread: Option<[u32; 3]>,
    /// Warp index inside the block.
    pub warp: Option<u32>,
    /// Lane inside the warp.
    pub lane: Option<u32>,
    /// Program counter.
    pub pc: Option<u32>,
    /// Source line of `pc`.
    pub line: Option<u32>,
    /// Further facts: where other threads are, what the limit was.
    pub notes: Vec<String>,
    /// Other source lines involved (a racing access), with what happened there.
    pub related: Vec<(u32, String)>,
    /// The sanitizer findings made before the launch stopped here, in block order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<crate::Finding>,
    /// What the launch printed before it stopped here, in print order (`Stats::printed`):
    /// the records of the blocks up to this one, which ran whatever the thread count.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub printed: Vec<crate::Printed>,
    /// A setting of the launch that would let it go on; each front end words it for its
    /// users ([`Fault::worded`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remedy: Option<Remedy>,
}

/// A setting of a launch that would let a faulted launch go on: the fact, which the
/// command line words as a flag and Python as a keyword argument.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Remedy {
    /// A higher bound on warp instructions, if the kernel is just long.
    MoreSteps,
    /// More wall-clock time, if the kernel is just long.
    MoreTime,
    /// A higher bound on instructions a warp issues without progress, or none.
    MoreRunawaySteps,
    /// Bytes of dynamic shared memory for the named array, given with the launch.
    DynamicShared(String),
    /// A higher bound on the bytes a launch may print.
    MorePrintf,
}

/// How a front end's users change a launch's settings.
pub trait Remedies {
    /// What to do, in the front end's words.
    fn word(&self, remedy: &Remedy) -> String;
}

impl Fault {
    /// A fault of `kernel` with nothing located yet; the executor fills in the
    /// block, thread, warp, lane, pc and line it knows.
    pub fn new(kind: FaultKind, kernel: impl Into<String>, message: impl Into<String>) -> Fault {
        Fault {
            kind,
            message: message.into(),
            kernel: kernel.into(),
            block: [0; 3],
            thread: None,
            warp: None,
            lane: None,
            pc: None,
            line: None,
            notes: Vec::new(),
            related: Vec::new(),
            findings: Vec::new(),
            printed: Vec::new(),
            remedy: None,
        }
    }

    /// The fault with its remedy, if it has one, as a last note in `words`.
    pub fn worded(mut self, words: &dyn Remedies) -> Fault {
        if let Some(remedy) = self.remedy.take() {
            self.notes.push(words.word(&remedy));
        }
        self
    }

    /// The fault reported when a launch is impossible and nothing ran.
    pub fn invalid_launch(kernel: &str, error: crate::launch::LaunchError) -> Fault {
        Fault::new(FaultKind::InvalidLaunch, kernel, error.to_string())
    }

    /// "block (x,y,z), thread (x,y,z), warp w, lane l, pc p": where the fault happened.
    fn place(&self) -> String {
        let mut who = format!("block ({},{},{})", self.block[0], self.block[1], self.block[2]);
        if let Some([x, y, z]) = self.thread {
            who.push_str(&format!(", thread ({x},{y},{z})"));
        }
        if let Some(w) = self.warp {
            who.push_str(&format!(", warp {w}"));
        }
        if let Some(l) = self.lane {
            who.push_str(&format!(", lane {l}"));
        }
        if let Some(pc) = self.pc {
            who.push_str(&format!(", pc {pc}"));
        }
        who
    }

    /// The fault as a codespan diagnostic over the module's source (file:line:col, the line, a caret),
    /// or as a plain `file:line: message` when the module carries no source.
    pub fn render(&self, module: &Module, color: bool) -> String {
        self.render_titled(module, color, format!("kernel `{}` faulted: {}", self.kernel, self.message), &self.notes)
    }

    fn render_titled(&self, module: &Module, color: bool, title: String, notes: &[String]) -> String {
        let who = self.place();
        let span = self.line.and_then(|line| module.line_span(line));
        let Some(span) = span else {
            let place = match self.line {
                Some(line) => format!("{}:{line}", module.source_name),
                None => module.source_name.clone(),
            };
            let mut text = format!("error: {title}\n  --> {place}\n  = {who}\n");
            for (line, what) in &self.related {
                text.push_str(&format!("  = {}:{line}: {what}\n", module.source_name));
            }
            for note in notes {
                text.push_str(&format!("  = {note}\n"));
            }
            return text;
        };
        let source = module.source.as_deref().unwrap_or_default();
        let file = SimpleFile::new(module.source_name.as_str(), source);
        let mut labels = vec![Label::primary((), span).with_message(who)];
        for (line, what) in &self.related {
            if let Some(span) = module.line_span(*line) {
                labels.push(Label::secondary((), span).with_message(what.clone()));
            }
        }
        let diagnostic = Diagnostic::error().with_message(title).with_labels(labels).with_notes(notes.to_vec());
        render_diagnostic(&file, &diagnostic, color)
    }
}

impl crate::Finding {
    /// The finding as a codespan diagnostic, like [`Fault::render`], saying how often it happened.
    pub fn render(&self, module: &Module, color: bool) -> String {
        let fault = &self.fault;
        let mut notes = fault.notes.clone();
        match self.count {
            Some(1) => {}
            Some(n) => notes.push(format!("found {n} times; this is the first")),
            None => notes.push("the launch stopped at a fault before it could count how often".into()),
        }
        fault.render_titled(module, color, format!("kernel `{}`: {}", fault.kernel, fault.message), &notes)
    }
}

impl std::fmt::Display for Fault {
    /// One line: what happened and where (`render` shows the source line too).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "kernel `{}` faulted: {} ({}", self.kernel, self.message, self.place())?;
        if let Some(line) = self.line {
            write!(f, ", line {line}")?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for Fault {}

/// Renders a codespan diagnostic, with ANSI colours when asked.
pub fn render_diagnostic(file: &SimpleFile<&str, &str>, diagnostic: &Diagnostic<()>, color: bool) -> String {
    let config = term::Config::default();
    if color {
        let mut out = termcolor::Ansi::new(Vec::new());
        if term::emit_to_write_style(&mut out, &config, file, diagnostic).is_ok() {
            return String::from_utf8_lossy(&out.into_inner()).into_owned();
        }
    }
    term::emit_into_string(&config, file, diagnostic).unwrap_or_else(|e| format!("error: {}\n({e})\n", diagnostic.message))
}

#[cfg(test)]
mod tests {
    use super::FaultKind;

    #[test]
    fn findings_are_named_by_their_sanitizer_in_json() {
        for (kind, check) in FaultKind::SANITIZERS {
            assert_eq!(serde_json::to_string(&kind).unwrap(), format!("\"{check}\""));
        }
    }
}
