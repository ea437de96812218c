//! `simt debug`: a step debugger over the interpreter's stepping API.
//!
//! Blocks run one at a time in block order; the current block is the one being
//! debugged. `continue` and the other warps' turns while a stepped warp waits use
//! the round-robin order of `--trace` (each warp issues until it blocks, then the
//! next; at the end of a round the block barrier opens or, when nothing issued, the
//! `its` forced release runs), so a session that runs to the end computes what
//! `simt run` computes. `step` issues the selected warp out of that order, which
//! changes nothing a race-free kernel computes.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;
use simt_interp::trace::lane_chars;
use simt_interp::{BlockReason, BlockSim, ControlView, Counters, Launch, Peek, StepResult, ThreadState, WarpView};
use simt_isa::Kernel;

use crate::run::{LaunchArgs, Prepared};
use crate::{Failure, Outcome};

/// Arguments of `simt debug`.
#[derive(Args)]
#[command(after_help = "Examples:
  simt debug asm/divergence/if_else.s
  simt debug asm/divergence/if_else.s --simt stack --commands examples/debug/divergence.cmds

Commands (type `help` in a session): break LINE | break pc N, delete [N], continue,
step [N], warp W, lanes 0-7, regs R2 R3, preds, mask, stack, shared ADDR [N],
mem BUFFER [I..J], where, help, quit.")]
pub struct DebugArgs {
    #[command(flatten)]
    launch: LaunchArgs,
    /// Run the commands in FILE (one a line; `#` starts a comment) and print the transcript
    /// instead of asking on the terminal.
    #[arg(long, value_name = "FILE")]
    commands: Option<PathBuf>,
}

/// The commands, with their syntax and what they do: `help` prints them, the terminal completes their names.
const COMMANDS: &[(&str, &str, &str)] = &[
    (
        "break",
        "break LINE | break pc N",
        "stop when any warp is about to issue source line LINE, or pc N (decimal or 0x hex); no argument lists the breakpoints",
    ),
    ("delete", "delete [N]", "remove breakpoint N, or all of them"),
    ("continue", "continue", "run every warp until one reaches a breakpoint, or the kernel ends"),
    ("step", "step [N]", "issue N instructions (1 by default) of the selected warp"),
    ("warp", "warp W", "select warp W of the current block"),
    ("lanes", "lanes 0-7,16 | lanes all", "select the lanes `regs` shows"),
    ("regs", "regs [R2 R3 ...]", "the selected warp's registers per selected lane (all registers without arguments)"),
    ("preds", "preds", "the selected warp's predicates P0 .. P6 per lane"),
    ("mask", "mask", "the selected warp's next issue mask, exited lanes and barrier waits"),
    ("stack", "stack", "the reconvergence stack (--simt stack) or the thread groups and their waits (--simt its)"),
    ("shared", "shared ADDR [N]", "N words (8 by default) of the current block's shared memory from byte address ADDR"),
    ("mem", "mem BUFFER [I..J]", "elements I .. J-1 of a pointer parameter's buffer (the first 16 by default)"),
    ("where", "where", "every warp of the current block: its pc, source line and state"),
    ("help", "help", "this list"),
    ("quit", "quit", "end the session"),
];

/// Words `shared` shows when not told how many.
const SHARED_WORDS: u32 = 8;
/// Elements `mem` shows when not given a range.
const MEM_ELEMENTS: u64 = 16;
/// Most words or elements one `shared` or `mem` command prints.
const MAX_SHOWN: u64 = 4096;

pub fn debug(args: DebugArgs) -> Outcome {
    let mut prepared = crate::run::prepare(&args.launch)?;
    prepared.options.memory_report = true;
    let script = match &args.commands {
        Some(path) => Some(
            crate::read_file(path)
                .and_then(|bytes| String::from_utf8(bytes).map_err(|_| Failure::input(format!("{}: the commands file is not UTF-8 text", path.display()))))?,
        ),
        None => None,
    };
    if let Some(commands) = &args.commands {
        for file in prepared.dumps.iter().filter_map(|d| d.file.as_ref()) {
            crate::check_output(file, &[commands])?;
        }
    }
    let Prepared { module, launch, options, .. } = &prepared;
    let kernel = prepared.kernel();
    let stepper = Launch::new(kernel, &launch.config, &launch.memory, options)
        .map_err(|e| Failure::input(simt_interp::Fault::invalid_launch(&kernel.name, e).message))?;
    let mut session = Session::new(&prepared, &stepper, module.source.as_deref());
    session.banner();
    session.flush()?;
    match script {
        Some(text) => {
            for line in text.lines() {
                if session.transcribe(line)? == Flow::Quit {
                    break;
                }
            }
        }
        None if std::io::stdin().is_terminal() => interactive(&mut session)?,
        None => {
            for line in std::io::stdin().lines() {
                let line = line.map_err(|e| Failure::input(format!("cannot read the commands from stdin: {e}")))?;
                if session.transcribe(&line)? == Flow::Quit {
                    break;
                }
            }
        }
    }
    if session.status == Status::Faulted {
        return Err(Failure::Fault("error: the kernel faulted; the fault report is above".into()));
    }
    if session.findings > 0 {
        return Err(Failure::Fault("error: the sanitizers found problems; their report is above".into()));
    }
    Ok(())
}

/// The terminal session: line editing, history, completion; an empty line repeats `step` or `continue`.
fn interactive(session: &mut Session<'_>) -> Outcome {
    use rustyline::error::ReadlineError;
    let config = rustyline::Config::builder().auto_add_history(true).completion_type(rustyline::CompletionType::List).build();
    let mut editor: rustyline::Editor<Completion, rustyline::history::DefaultHistory> =
        rustyline::Editor::with_config(config).map_err(|e| Failure::input(format!("cannot start the line editor: {e}")))?;
    editor.set_helper(Some(Completion { buffers: session.prepared.launch.buffers.iter().map(|(name, _)| name.clone()).collect() }));
    let mut last = String::new();
    loop {
        match editor.readline("(simt) ") {
            Ok(line) => {
                let line =
                    if line.trim().is_empty() && matches!(last.split_whitespace().next(), Some("step" | "s" | "continue" | "c")) { last.clone() } else { line };
                last.clone_from(&line);
                let flow = session.execute(&line);
                session.flush()?;
                if flow == Flow::Quit {
                    return Ok(());
                }
            }
            Err(ReadlineError::Interrupted) => {}
            Err(ReadlineError::Eof) => return Ok(()),
            Err(e) => return Err(Failure::input(format!("cannot read a command: {e}"))),
        }
    }
}

/// Completes command names, and buffer names after `mem`.
struct Completion {
    buffers: Vec<String>,
}

impl rustyline::completion::Completer for Completion {
    type Candidate = String;

    fn complete(&self, line: &str, pos: usize, _: &rustyline::Context<'_>) -> rustyline::Result<(usize, Vec<String>)> {
        let before = &line[..pos];
        let start = before.rfind(char::is_whitespace).map_or(0, |i| i + 1);
        let word = &before[start..];
        let words: Vec<&str> = before[..start].split_whitespace().collect();
        let candidates: Vec<String> = match words.as_slice() {
            [] => COMMANDS.iter().map(|c| c.0).filter(|c| c.starts_with(word)).map(String::from).collect(),
            ["mem"] => self.buffers.iter().filter(|b| b.starts_with(word)).cloned().collect(),
            _ => Vec::new(),
        };
        Ok((start, candidates))
    }
}

impl rustyline::hint::Hinter for Completion {
    type Hint = String;
}
impl rustyline::highlight::Highlighter for Completion {}
impl rustyline::validate::Validator for Completion {}
impl rustyline::Helper for Completion {}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Flow {
    Go,
    Quit,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Status {
    Running,
    Faulted,
    Finished,
}

/// A breakpoint: a source line or a pc.
#[derive(Clone, Copy)]
enum Spot {
    Line(u32),
    Pc(u32),
}

/// What one scheduler action did.
enum Tick {
    /// A warp issued an instruction, or ended its turn.
    Moved,
    /// A warp is about to issue at a breakpoint (warp, pc, breakpoint number).
    Breakpoint(usize, u32, usize),
    /// The kernel faulted or finished.
    Stopped,
}

struct Session<'l> {
    prepared: &'l Prepared,
    kernel: &'l Kernel,
    launch: &'l Launch<'l>,
    source: Vec<&'l str>,
    status: Status,
    /// Distinct sanitizer findings of the finished launch (`--check`).
    findings: usize,
    /// The current block and its linear index; `None` once the kernel has finished.
    block: Option<BlockSim<'l>>,
    linear: u64,
    counters: Counters,
    /// The selected warp and lanes.
    warp: usize,
    lanes: u32,
    /// Breakpoints by number (from 1); deleted ones are `None`.
    breakpoints: Vec<Option<Spot>>,
    /// The round-robin position: the warp whose turn it is, and whether the round issued anything.
    turn: usize,
    progressed: bool,
    /// The warp and pc `continue` stopped at: it issues there once before the breakpoint stops it again.
    resume: Option<(usize, u32)>,
    out: String,
}

impl<'l> Session<'l> {
    fn new(prepared: &'l Prepared, launch: &'l Launch<'l>, source: Option<&'l str>) -> Session<'l> {
        let kernel = launch.kernel();
        Session {
            prepared,
            kernel,
            launch,
            source: source.map(|s| s.lines().collect()).unwrap_or_default(),
            status: Status::Running,
            findings: 0,
            block: Some(launch.block(0, simt_interp::launch::sm_of_block(0, prepared.options.sms))),
            linear: 0,
            counters: Counters::new(kernel.code.len()),
            warp: 0,
            lanes: u32::MAX,
            breakpoints: Vec::new(),
            turn: 0,
            progressed: false,
            resume: None,
            out: String::new(),
        }
    }

    /// Appends a line to the output.
    fn say(&mut self, text: impl AsRef<str>) {
        self.out.push_str(text.as_ref());
        self.out.push('\n');
    }

    fn error(&mut self, text: impl AsRef<str>) {
        self.say(format!("error: {}", text.as_ref()));
    }

    fn flush(&mut self) -> Outcome {
        crate::print(&std::mem::take(&mut self.out))
    }

    /// Echoes a script line like a prompt and runs it.
    fn transcribe(&mut self, line: &str) -> Result<Flow, Failure> {
        let command = line.split('#').next().unwrap_or("").trim();
        if command.is_empty() {
            return Ok(Flow::Go);
        }
        self.say(format!("(simt) {command}"));
        let flow = self.execute(command);
        self.flush()?;
        Ok(flow)
    }

    fn banner(&mut self) {
        let config = &self.prepared.launch.config;
        let model = match self.prepared.options.simt {
            simt_interp::SimtModel::Its => "its",
            simt_interp::SimtModel::Stack => "stack",
        };
        let [gx, gy, gz] = config.grid;
        let [bx, by, bz] = config.block;
        self.say(format!(
            "kernel `{}`: grid {gx}x{gy}x{gz}, block {bx}x{by}x{bz} ({} warps a block), --simt {model}; `help` lists the commands",
            self.kernel.name,
            self.launch.warps_per_block()
        ));
        self.say_block_start();
    }

    fn say_block_start(&mut self) {
        let index = self.block.as_ref().map_or([0; 3], BlockSim::index);
        self.say(format!("block {} ({}, {}, {}) starts", self.linear, index[0], index[1], index[2]));
    }

    fn execute(&mut self, line: &str) -> Flow {
        let mut words = line.split_whitespace();
        let Some(command) = words.next() else { return Flow::Go };
        let rest: Vec<&str> = words.collect();
        let name = match COMMANDS.iter().find(|c| c.0 == command) {
            Some(c) => c.0,
            None => match command {
                "b" => "break",
                "c" | "cont" => "continue",
                "s" => "step",
                "q" | "exit" => "quit",
                "stacks" | "its" => "stack",
                _ => {
                    let near = COMMANDS.iter().map(|c| c.0).min_by_key(|c| strsim::levenshtein(c, command)).filter(|c| strsim::levenshtein(c, command) <= 2);
                    let hint = near.map_or(String::new(), |n| format!(" (did you mean `{n}`?)"));
                    self.error(format!("unknown command `{command}`{hint}; `help` lists the commands"));
                    return Flow::Go;
                }
            },
        };
        let result = match name {
            "break" => self.cmd_break(&rest),
            "delete" => self.cmd_delete(&rest),
            "continue" => no_args(&rest).and_then(|()| self.cmd_continue()),
            "step" => self.cmd_step(&rest),
            "warp" => self.cmd_warp(&rest),
            "lanes" => self.cmd_lanes(&rest),
            "regs" => self.cmd_regs(&rest),
            "preds" => no_args(&rest).and_then(|()| self.cmd_preds()),
            "mask" => no_args(&rest).and_then(|()| self.cmd_mask()),
            "stack" => no_args(&rest).and_then(|()| self.cmd_stack()),
            "shared" => self.cmd_shared(&rest),
            "mem" => self.cmd_mem(&rest),
            "where" => no_args(&rest).and_then(|()| self.cmd_where()),
            "help" => {
                self.cmd_help();
                Ok(())
            }
            _ => return Flow::Quit,
        };
        if let Err(message) = result {
            self.error(message);
        }
        Flow::Go
    }

    fn cmd_help(&mut self) {
        for (_, syntax, what) in COMMANDS {
            self.say(format!("  {syntax:<26} {what}"));
        }
        self.say("  (b, c, s and q are short for break, continue, step and quit)");
    }

    /// The current block, for commands that inspect it.
    fn block(&mut self) -> Result<&mut BlockSim<'l>, String> {
        self.block.as_mut().ok_or_else(|| "the kernel has finished: no block is resident (mem still shows the buffers)".to_string())
    }

    /// The current block, for commands that run it.
    fn running(&mut self) -> Result<(), String> {
        match self.status {
            Status::Running => Ok(()),
            Status::Faulted => Err("the kernel faulted: it cannot run further; inspect it, or quit".into()),
            Status::Finished => Err("the kernel has finished".into()),
        }
    }

    // ---- breakpoints ----

    fn cmd_break(&mut self, args: &[&str]) -> Result<(), String> {
        let spot = match args {
            [] => {
                let list: Vec<String> =
                    self.breakpoints.iter().enumerate().filter_map(|(i, b)| b.map(|b| format!("  {}: {}", i + 1, self.describe_spot(b)))).collect();
                if list.is_empty() {
                    self.say("no breakpoints");
                }
                list.into_iter().for_each(|l| self.say(l));
                return Ok(());
            }
            ["pc", n] => {
                let pc = parse_number(n).ok_or_else(|| format!("`{n}` is not a pc (a whole number, decimal or 0x hex)"))?;
                if u64::from(pc) >= self.kernel.code.len() as u64 {
                    return Err(format!("kernel `{}` has pcs 0 .. {}; pc {pc} is past its end", self.kernel.name, self.kernel.code.len().saturating_sub(1)));
                }
                Spot::Pc(pc)
            }
            [line] => {
                let n = line.parse::<u32>().map_err(|_| format!("`{line}` is not a line number; write `break LINE` or `break pc N`"))?;
                let next = (0..self.kernel.code.len() as u32).filter_map(|pc| self.kernel.line(pc)).filter(|&l| l >= n).min();
                match next {
                    Some(l) if l == n => Spot::Line(n),
                    Some(l) => {
                        self.say(format!("line {n} has no instruction; the next line with one is {l}"));
                        Spot::Line(l)
                    }
                    None => return Err(format!("no instruction of kernel `{}` is on line {n} or after it", self.kernel.name)),
                }
            }
            _ => return Err("write `break LINE` or `break pc N`".into()),
        };
        self.breakpoints.push(Some(spot));
        self.say(format!("breakpoint {} at {}", self.breakpoints.len(), self.describe_spot(spot)));
        Ok(())
    }

    fn describe_spot(&self, spot: Spot) -> String {
        match spot {
            Spot::Line(l) => {
                let pc = (0..self.kernel.code.len() as u32).find(|&pc| self.kernel.line(pc) == Some(l)).unwrap_or(0);
                self.place(pc)
            }
            Spot::Pc(pc) => self.place(pc),
        }
    }

    fn cmd_delete(&mut self, args: &[&str]) -> Result<(), String> {
        match args {
            [] => {
                self.breakpoints.iter_mut().for_each(|b| *b = None);
                self.say("every breakpoint deleted");
            }
            [n] => {
                let slot = n.parse::<usize>().ok().and_then(|i| i.checked_sub(1)).and_then(|i| self.breakpoints.get_mut(i)).filter(|b| b.is_some());
                let slot = slot.ok_or_else(|| format!("there is no breakpoint {n}; `break` lists them"))?;
                *slot = None;
                self.say(format!("breakpoint {n} deleted"));
            }
            _ => return Err("write `delete` or `delete N`".into()),
        }
        Ok(())
    }

    /// The number of the first breakpoint at `pc`.
    fn breakpoint_at(&self, pc: u32) -> Option<usize> {
        let line = self.kernel.line(pc);
        self.breakpoints.iter().position(|b| match b {
            Some(Spot::Pc(p)) => *p == pc,
            Some(Spot::Line(l)) => Some(*l) == line,
            None => false,
        })
    }

    // ---- running ----

    /// One scheduler action: the warp whose turn it is issues one instruction, or ends its
    /// turn; a finished block makes way for the next.
    fn tick(&mut self, breakpoints: bool) -> Tick {
        let warps = self.launch.warps_per_block();
        let Some(block) = self.block.as_mut() else { return Tick::Stopped };
        if block.is_done() {
            self.next_block();
            return if self.status == Status::Running { Tick::Moved } else { Tick::Stopped };
        }
        let w = self.turn;
        if let Peek::Issue(preview) = block.peek(w) {
            if breakpoints
                && self.resume != Some((w, preview.pc))
                && let Some(n) = self.breakpoint_at(preview.pc)
            {
                self.resume = Some((w, preview.pc));
                return Tick::Breakpoint(w, preview.pc, n + 1);
            }
            return match self.issue(w) {
                Some(_) => {
                    self.progressed = true;
                    Tick::Moved
                }
                None => Tick::Stopped,
            };
        }
        self.turn += 1;
        if self.turn == warps {
            self.turn = 0;
            let progressed = std::mem::take(&mut self.progressed);
            if !block.release_barrier()
                && !progressed
                && let Err(fault) = block.force_progress()
            {
                self.fault(&fault);
                return Tick::Stopped;
            }
        }
        Tick::Moved
    }

    /// Issues warp `w`'s next instruction; `None` when it faulted (reported) or could not issue.
    fn issue(&mut self, w: usize) -> Option<simt_interp::Step> {
        if self.resume.is_some_and(|(rw, _)| rw == w) {
            self.resume = None;
        }
        let block = self.block.as_mut()?;
        match block.step(w) {
            Ok(StepResult::Issued(step)) => Some(step),
            Ok(_) => None,
            Err(fault) => {
                self.fault(&fault);
                None
            }
        }
    }

    fn fault(&mut self, fault: &simt_interp::Fault) {
        self.status = Status::Faulted;
        // Inspection starts where the fault is.
        if let Some(w) = fault.warp {
            self.warp = w as usize;
        }
        let text = fault.render(&self.prepared.module, false);
        self.say(text.trim_end());
    }

    /// The current block is done: its counters join the launch's, and the next block
    /// starts, or the kernel finishes.
    fn next_block(&mut self) {
        let Some(block) = self.block.take() else { return };
        self.counters.add(&block.into_counters());
        self.say(format!("block {} finished", self.linear));
        self.linear += 1;
        self.turn = 0;
        self.progressed = false;
        self.resume = None;
        if self.linear < self.launch.blocks() {
            self.block = Some(self.launch.block(self.linear, simt_interp::launch::sm_of_block(self.linear, self.prepared.options.sms)));
            self.say_block_start();
            return;
        }
        self.status = Status::Finished;
        let stats = self.launch.stats(&self.counters);
        self.say(format!("kernel `{}` finished", self.kernel.name));
        self.out.push_str(&stats.render_text());
        if !stats.findings.is_empty() {
            self.findings = stats.findings.len();
            self.out.push_str(&crate::run::render_findings(&self.prepared.module, &stats.findings, usize::MAX));
        }
        // The dumps stream out after what was said so far, as `simt run` prints them.
        let printed = self.flush().and_then(|()| crate::run::report(self.kernel, &self.prepared.launch, &stats, &self.prepared.dumps, None, None));
        if let Err(Failure::Rejected(text) | Failure::Fault(text)) = printed {
            self.say(text);
        }
    }

    fn cmd_continue(&mut self) -> Result<(), String> {
        self.running()?;
        let before = self.launch.steps();
        loop {
            match self.tick(true) {
                Tick::Moved => {}
                Tick::Stopped => return Ok(()),
                Tick::Breakpoint(w, pc, n) => {
                    self.warp = w;
                    let issued = self.launch.steps() - before;
                    self.say(format!("breakpoint {n}: block {}, warp {w}, {} (after {issued} warp instructions)", self.linear, self.place(pc)));
                    let mask = self.next_mask(w).unwrap_or_default();
                    self.say(format!("  {}", mask));
                    return Ok(());
                }
            }
        }
    }

    fn cmd_step(&mut self, args: &[&str]) -> Result<(), String> {
        let n = match args {
            [] => 1,
            [n] => n.parse::<u64>().ok().filter(|&n| n >= 1).ok_or_else(|| format!("`{n}` is not a number of steps (a whole number from 1)"))?,
            _ => return Err("write `step` or `step N`".into()),
        };
        self.running()?;
        for _ in 0..n {
            if !self.step_selected() {
                break;
            }
        }
        Ok(())
    }

    /// Issues one instruction of the selected warp, letting the others run while it waits.
    /// Returns whether stepping can go on.
    fn step_selected(&mut self) -> bool {
        let w = self.warp;
        let mut others = 0u64;
        let mut reason = None;
        loop {
            let Some(block) = self.block.as_mut() else { return false };
            match block.peek(w) {
                Peek::Issue(_) => break,
                Peek::Done if !block.is_done() => {
                    self.say(format!("warp {w} has exited; select another with `warp W`, or `continue`"));
                    return false;
                }
                Peek::Blocked(r) => reason = reason.or(Some(r)),
                Peek::Done => {}
            }
            let before = self.launch.steps();
            let linear = self.linear;
            if let Tick::Stopped = self.tick(false) {
                return false;
            }
            others += self.launch.steps() - before;
            if self.linear != linear {
                // A fresh block: its warp `w` starts at pc 0; the step is taken there.
                reason = None;
                others = 0;
            }
        }
        if let Some(reason) = reason {
            self.say(format!("warp {w} waited {}; the other warps issued {others} instructions meanwhile", wait_text(reason)));
        }
        let Some(step) = self.issue(w) else { return false };
        let live = self.block.as_ref().map_or(0, |b| b.live_lanes(w));
        let gone = !(step.active | live);
        let gone = if step.opcode == simt_isa::Opcode::Exit { gone & !step.active } else { gone };
        let text = format!(
            "block {} warp {w}  pc {:<4} line {:<4} {:<14} [{}]  {}",
            self.linear,
            step.pc,
            self.kernel.line(step.pc).unwrap_or(0),
            simt_isa::format_mnemonic(&self.kernel.code[step.pc as usize].form),
            lane_chars(step.active, step.executed, gone),
            self.source_text(step.pc)
        );
        self.say(text.trim_end());
        // A block that finished with this step gives way to the next at once.
        if self.block.as_ref().is_some_and(BlockSim::is_done) {
            self.next_block();
        }
        self.status == Status::Running
    }

    // ---- selection ----

    fn cmd_warp(&mut self, args: &[&str]) -> Result<(), String> {
        let warps = self.launch.warps_per_block();
        let [w] = args else { return Err("write `warp W`".into()) };
        let w = w.parse::<usize>().ok().filter(|&w| w < warps).ok_or_else(|| format!("`{w}` is not a warp of this block: it has warps 0 .. {}", warps - 1))?;
        self.warp = w;
        let next = self.block.as_mut().map(|b| b.peek(w));
        let state = match next {
            Some(Peek::Issue(p)) => format!("next {}", self.place(p.pc)),
            Some(Peek::Blocked(r)) => format!("waiting {}", wait_text(r)),
            Some(Peek::Done) | None => "exited".into(),
        };
        self.say(format!("warp {w}: {state}"));
        Ok(())
    }

    fn cmd_lanes(&mut self, args: &[&str]) -> Result<(), String> {
        let text = args.join("");
        if text.is_empty() {
            return Err("write `lanes 0-7,16` or `lanes all`".into());
        }
        self.lanes = parse_lanes(&text)?;
        self.say(format!("{} selected", describe_lanes(self.lanes)));
        Ok(())
    }

    // ---- inspection ----

    fn cmd_regs(&mut self, args: &[&str]) -> Result<(), String> {
        let count = self.kernel.regs as usize;
        let regs: Vec<usize> = if args.is_empty() {
            (0..count).collect()
        } else {
            args.iter()
                .map(|a| {
                    let n = a.strip_prefix(['R', 'r']).and_then(|n| n.parse::<usize>().ok());
                    match n {
                        Some(n) if n < count => Ok(n),
                        _ if count == 0 => Err(format!("`{a}` is not a register of kernel `{}`, which uses none", self.kernel.name)),
                        _ => Err(format!("`{a}` is not a register of kernel `{}` (it uses R0 .. R{})", self.kernel.name, count - 1)),
                    }
                })
                .collect::<Result<_, _>>()?
        };
        if regs.is_empty() {
            self.say(format!("kernel `{}` uses no registers", self.kernel.name));
            return Ok(());
        }
        let (w, lanes) = (self.warp, self.lanes);
        let block = self.block()?;
        let marks = lane_marks(block, w);
        let (rows, _) = block.registers(w);
        let mut lines = vec![format!("warp {w}, {}", describe_lanes(lanes & marks.valid))];
        lines.push(format!("lane   {}", regs.iter().map(|r| format!("{:<28}", format!("R{r}"))).collect::<String>()));
        for l in (0..32).filter(|l| lanes >> l & 1 != 0 && marks.valid >> l & 1 != 0) {
            let cells: String = regs.iter().map(|&r| format!("{:<28}", word(rows[r][l]))).collect();
            lines.push(format!("{} {l:>2}   {cells}", marks.chars[l]));
        }
        lines.push(format!("(lane marks: {})", MARKS_LEGEND));
        lines.into_iter().for_each(|l| self.say(l.trim_end()));
        Ok(())
    }

    fn cmd_preds(&mut self) -> Result<(), String> {
        let w = self.warp;
        let block = self.block()?;
        let (_, preds) = block.registers(w);
        let preds = preds.to_vec();
        self.say(format!("warp {w}: predicates per lane, lane 0 first (1 true, 0 false)"));
        for (i, mask) in preds.iter().enumerate() {
            let bits: String = (0..32).map(|l| if mask >> l & 1 != 0 { '1' } else { '0' }).collect();
            self.say(format!("  P{i} [{bits}]"));
        }
        Ok(())
    }

    fn cmd_mask(&mut self) -> Result<(), String> {
        let w = self.warp;
        let next = self.next_mask(w)?;
        let view = self.block()?.warp_view(w);
        self.say(format!("warp {w}:"));
        self.say(format!("  {next}"));
        self.say(format!("  exited     [{}] {}", lane_chars(view.exited, view.exited, !view.valid), describe_lanes(view.exited)));
        self.say(format!("  at barrier [{}] {}", lane_chars(view.at_barrier, view.at_barrier, !view.valid), describe_lanes(view.at_barrier)));
        Ok(())
    }

    /// The selected warp's next issue as `next pc .. [lanes]`, or what it waits for.
    fn next_mask(&mut self, w: usize) -> Result<String, String> {
        let block = self.block()?;
        let peek = block.peek(w);
        let view = block.warp_view(w);
        let gone = view.exited | !view.valid;
        Ok(match peek {
            Peek::Issue(p) => format!("next       [{}] {} ({})", lane_chars(p.active, p.executed, gone), describe_lanes(p.active), self.place(p.pc)),
            Peek::Blocked(r) => format!("next       none: the warp waits {}", wait_text(r)),
            Peek::Done => "next       none: every thread has exited".into(),
        })
    }

    fn cmd_stack(&mut self) -> Result<(), String> {
        let w = self.warp;
        let block = self.block()?;
        let next = match block.peek(w) {
            Peek::Issue(p) => Some((p.pc, p.active)),
            _ => None,
        };
        let view: WarpView = block.warp_view(w);
        let gone = view.exited | !view.valid;
        match &view.control {
            ControlView::Stack(entries) => {
                self.say(format!("warp {w}: reconvergence stack, top (issues next) first: lanes, reconvergence pc, pc"));
                for (depth, e) in entries.iter().enumerate().rev() {
                    let reconv = e.reconv.map_or("exit".to_string(), |r| r.to_string());
                    let arrived = if e.reconv == Some(e.pc) { "  (arrived; waits for the entries above)" } else { "" };
                    let at = self.place(e.pc);
                    self.say(format!("  #{depth} [{}] reconv {reconv:<5} {at}{arrived}", lane_chars(e.mask, e.mask, gone)));
                }
                if entries.is_empty() {
                    self.say("  (empty: every thread has exited)");
                }
            }
            ControlView::Its { groups, barriers } => {
                self.say(format!("warp {w}: thread groups (--simt its)"));
                for g in groups {
                    let state = match g.state {
                        ThreadState::Ready if next.is_some_and(|(pc, active)| pc == g.pc && active & g.lanes != 0) => "issues next",
                        ThreadState::Ready => "ready",
                        ThreadState::Reconvergence => "waits to reconverge",
                        ThreadState::Barrier => "waits at BAR.SYNC",
                        ThreadState::Collective => "waits for the warp at a collective",
                    };
                    let at = self.place(g.pc);
                    self.say(format!("  [{}] {state:<19} {at}", lane_chars(g.lanes, g.lanes, gone)));
                }
                if groups.is_empty() {
                    self.say("  (none: every thread has exited)");
                }
                if !barriers.is_empty() {
                    self.say("convergence barriers (members, x arrived and waiting):");
                }
                for b in barriers {
                    let at = if b.reconv as usize >= self.kernel.code.len() { "the exit".to_string() } else { self.place(b.reconv) };
                    self.say(format!("  [{}] at {at}", lane_chars(b.members, b.arrived, gone)));
                }
            }
        }
        Ok(())
    }

    fn cmd_shared(&mut self, args: &[&str]) -> Result<(), String> {
        let (addr, count) = match args {
            [a] => (*a, None),
            [a, n] => (*a, Some(*n)),
            _ => return Err("write `shared ADDR` or `shared ADDR N` (ADDR a byte address, N words)".into()),
        };
        let addr = parse_number(addr).ok_or_else(|| format!("`{addr}` is not an address (a whole number, decimal or 0x hex)"))?;
        let count = match count {
            None => SHARED_WORDS,
            Some(n) => parse_number(n)
                .filter(|&n| n >= 1 && u64::from(n) <= MAX_SHOWN)
                .ok_or_else(|| format!("`{n}` is not a number of words from 1 to {MAX_SHOWN}"))?,
        };
        if addr % 4 != 0 {
            return Err(format!("shared address {addr:#x} is not a multiple of 4: `shared` shows whole words"));
        }
        let words = self.block()?.shared_words().to_vec();
        let size = words.len() * 4;
        let first = addr as usize / 4;
        if size == 0 {
            return Err(format!("kernel `{}` has no shared memory", self.kernel.name));
        }
        if first >= words.len() {
            return Err(format!("shared address {addr:#x} is past the end of the block's shared memory ({size} bytes)"));
        }
        let last = (first + count as usize).min(words.len());
        self.say(format!("block {}: shared memory, {size} bytes", self.linear));
        for (i, &w) in words[first..last].iter().enumerate() {
            self.say(format!("  {:#06x}  {}", (first + i) * 4, word(w)).trim_end());
        }
        if first + count as usize > words.len() {
            self.say(format!("  (shared memory ends at {size:#x})"));
        }
        Ok(())
    }

    fn cmd_mem(&mut self, args: &[&str]) -> Result<(), String> {
        let (name, range) = match args {
            [name] => (*name, None),
            [name, range] => (*name, Some(*range)),
            _ => return Err("write `mem BUFFER` or `mem BUFFER I..J`".into()),
        };
        let names = || self.prepared.launch.buffers.iter().map(|(n, _)| format!("`{n}`")).collect::<Vec<_>>().join(", ");
        let Some((elem, buffer)) = self.prepared.launch.buffer_of(name) else {
            return Err(match self.kernel.param(name).map(|p| p.ty) {
                Some(ty) if ty.buffer_elem().is_none() => format!("`{name}` is a scalar .{} parameter; the buffers are {}", ty.name(), names()),
                _ => format!("kernel `{}` has no pointer parameter `{name}`; its buffers are {}", self.kernel.name, names()),
            });
        };
        let len = buffer.len as u64 * 8 / u64::from(elem.bits());
        let (start, end) = match range {
            None => (0, len.min(MEM_ELEMENTS)),
            Some(r) => parse_range(r, len)?,
        };
        if end - start > MAX_SHOWN {
            return Err(format!("{start}..{end} is {} elements; show at most {MAX_SHOWN} at a time", end - start));
        }
        self.say(format!(
            "`{name}`: {len} elements of .{}{}",
            elem.name(),
            if range.is_none() && end < len { format!(", the first {end}") } else { String::new() }
        ));
        let mut index = 0u64;
        let mut lines = Vec::new();
        let _ = buffer.for_each_piece(|_, bytes| {
            for e in simt_host::elements(elem, bytes) {
                if index >= end {
                    return Err(());
                }
                if index >= start {
                    lines.push(format!("  {name}[{index}] = {e}"));
                }
                index += 1;
            }
            Ok(())
        });
        lines.into_iter().for_each(|l| self.say(l));
        Ok(())
    }

    fn cmd_where(&mut self) -> Result<(), String> {
        let selected = self.warp;
        let linear = self.linear;
        let block = self.block()?;
        let mut rows = Vec::new();
        for w in 0..block.warp_count() {
            let view = block.warp_view(w);
            let gone = view.exited | !view.valid;
            let row = match block.peek(w) {
                Peek::Issue(p) => (Some(p.pc), "ready".to_string(), lane_chars(p.active, p.executed, gone)),
                Peek::Blocked(r) => {
                    let pc = match &view.control {
                        ControlView::Stack(e) => e.last().map(|e| e.pc),
                        ControlView::Its { groups, .. } => groups.first().map(|g| g.pc),
                    };
                    (pc, format!("waits {}", wait_text(r)), lane_chars(0, 0, gone))
                }
                Peek::Done => (None, "exited".to_string(), lane_chars(0, 0, gone)),
            };
            rows.push((w, row));
        }
        self.say(format!("block {linear}:"));
        for (w, (pc, state, lanes)) in rows {
            let mark = if w == selected { '*' } else { ' ' };
            let at = pc.map_or(String::new(), |pc| self.place(pc));
            self.say(format!("{mark} warp {w:<3} [{lanes}] {state:<28} {at}").trim_end());
        }
        Ok(())
    }

    // ---- text ----

    /// `pc 3, line 14: @P0 BRA EVEN`.
    fn place(&self, pc: u32) -> String {
        match self.kernel.line(pc) {
            Some(line) => format!("pc {pc}, line {line}: {}", self.source_text(pc)),
            None => format!("pc {pc}: {}", self.source_text(pc)),
        }
    }

    /// The source line of `pc` without its comment, or the disassembled instruction.
    fn source_text(&self, pc: u32) -> String {
        let from_source = self.kernel.line(pc).and_then(|l| self.source.get((l as usize).checked_sub(1)?)).map(|text| {
            let code = text.split("//").next().unwrap_or("");
            code.split_whitespace().collect::<Vec<_>>().join(" ")
        });
        match (from_source, self.kernel.code.get(pc as usize)) {
            (Some(text), _) if !text.is_empty() => text,
            (_, Some(inst)) => simt_isa::format_instruction(inst, &simt_isa::Symbols::of(self.kernel)),
            (_, None) => "(the exit)".into(),
        }
    }
}

/// What `regs` marks each lane with.
struct Marks {
    valid: u32,
    chars: Vec<char>,
}

const MARKS_LEGEND: &str = "x issues next, o issues next guarded off, . waits, blank exited";

/// Each lane's part in warp `w`'s next issue, in the trace notation.
fn lane_marks(block: &mut BlockSim<'_>, w: usize) -> Marks {
    let view = block.warp_view(w);
    let gone = view.exited | !view.valid;
    let chars = match block.peek(w) {
        Peek::Issue(p) => lane_chars(p.active, p.executed, gone),
        _ => lane_chars(0, 0, gone),
    };
    Marks { valid: view.valid, chars: chars.chars().collect() }
}

fn wait_text(reason: BlockReason) -> &'static str {
    match reason {
        BlockReason::Barrier => "at BAR.SYNC",
        BlockReason::Collective => "for the whole warp at a collective",
        BlockReason::Reconvergence => "to reconverge",
    }
}

/// A 32-bit word as hex and signed decimal, and as f32 when its bits look like an ordinary float.
fn word(bits: u32) -> String {
    let exponent = (bits >> 23) & 0xff;
    // Floats of magnitude 2^-27 .. 2^28; small integers have exponent 0 and never qualify.
    let float = if (100..=154).contains(&exponent) { format!(" {}f", simt_isa::disasm::format_f32(bits)) } else { String::new() };
    format!("{bits:#010x} {}{float}", bits as i32)
}

fn no_args(args: &[&str]) -> Result<(), String> {
    match args {
        [] => Ok(()),
        _ => Err(format!("this command takes no arguments (got `{}`)", args.join(" "))),
    }
}

/// A whole number, decimal or `0x` hex.
fn parse_number(text: &str) -> Option<u32> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// `0-7,16,20-23` or `all`.
fn parse_lanes(text: &str) -> Result<u32, String> {
    if text == "all" {
        return Ok(u32::MAX);
    }
    let bad = |part: &str| format!("`{part}` is not a lane or a range of lanes (lanes are 0 .. 31; write 0-7,16 or all)");
    let mut mask = 0u32;
    for part in text.split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b) = match (a.parse::<u32>(), b.parse::<u32>()) {
            (Ok(a), Ok(b)) if a <= b && b < 32 => (a, b),
            _ => return Err(bad(part)),
        };
        mask |= (u32::MAX >> (31 - (b - a))) << a;
    }
    Ok(mask)
}

/// "0-7, 16" for a mask; "none" for an empty one.
fn describe_lanes(mask: u32) -> String {
    if mask == 0 {
        return "none".into();
    }
    let mut parts = Vec::new();
    let mut l = 0;
    while l < 32 {
        if mask >> l & 1 == 0 {
            l += 1;
            continue;
        }
        let start = l;
        while l < 32 && mask >> l & 1 != 0 {
            l += 1;
        }
        parts.push(if l - 1 == start { format!("{start}") } else { format!("{start}-{}", l - 1) });
    }
    format!("lanes {}", parts.join(", "))
}

/// `I..J` (J excluded), `I..`, `..J` or `I`, within `len` elements.
fn parse_range(text: &str, len: u64) -> Result<(u64, u64), String> {
    let number = |s: &str, default: u64| if s.is_empty() { Some(default) } else { s.parse::<u64>().ok() };
    let (start, end) = match text.split_once("..") {
        Some((a, b)) => (number(a, 0), number(b, len)),
        None => (number(text, 0).filter(|_| !text.is_empty()), text.parse::<u64>().ok().map(|i| i + 1)),
    };
    match (start, end) {
        (Some(s), Some(e)) if s < e && e <= len => Ok((s, e)),
        (Some(s), Some(e)) if s < e => Err(format!("{text} reaches past the buffer's end: it has {len} elements (0 .. {})", len.saturating_sub(1))),
        (Some(_), Some(_)) => Err(format!("{text} is an empty range: write I..J with I < J")),
        _ => Err(format!("`{text}` is not a range: write I..J (J excluded), I.., ..J or I")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_parse_as_lists_of_ranges() {
        assert_eq!(parse_lanes("all"), Ok(u32::MAX));
        assert_eq!(parse_lanes("0-7"), Ok(0xff));
        assert_eq!(parse_lanes("0-7,16"), Ok(0x1_00ff));
        assert_eq!(parse_lanes("31"), Ok(1 << 31));
        assert_eq!(parse_lanes("0-31"), Ok(u32::MAX));
        for bad in ["32", "7-0", "a", "0-", "-1", ""] {
            assert!(parse_lanes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn ranges_stay_within_the_buffer() {
        assert_eq!(parse_range("2..5", 10), Ok((2, 5)));
        assert_eq!(parse_range("2..", 10), Ok((2, 10)));
        assert_eq!(parse_range("..3", 10), Ok((0, 3)));
        assert_eq!(parse_range("9", 10), Ok((9, 10)));
        for bad in ["5..2", "3..3", "0..11", "10", "x", "1..x"] {
            assert!(parse_range(bad, 10).is_err(), "{bad}");
        }
    }

    #[test]
    fn words_show_floats_only_when_they_look_like_floats() {
        assert_eq!(word(42), "0x0000002a 42");
        assert_eq!(word(0xffff_ffff), "0xffffffff -1");
        assert_eq!(word(1.5f32.to_bits()), "0x3fc00000 1069547520 1.5f");
    }

    #[test]
    fn completion_offers_commands_then_buffers() {
        use rustyline::completion::Completer;
        let history = rustyline::history::MemHistory::new();
        let context = rustyline::Context::new(&history);
        let completion = Completion { buffers: vec!["out".into(), "offsets".into(), "in".into()] };
        let complete = |line: &str| completion.complete(line, line.len(), &context).expect("completes");
        assert_eq!(complete("st"), (0, vec!["step".to_string(), "stack".to_string()]));
        assert_eq!(complete("mem o"), (4, vec!["out".to_string(), "offsets".to_string()]));
        assert_eq!(complete("mem "), (4, vec!["out".to_string(), "offsets".to_string(), "in".to_string()]));
        assert_eq!(complete("regs R"), (5, vec![]));
    }

    #[test]
    fn lane_lists_name_runs() {
        assert_eq!(describe_lanes(0), "none");
        assert_eq!(describe_lanes(0b1011), "lanes 0-1, 3");
        assert_eq!(describe_lanes(u32::MAX), "lanes 0-31");
    }
}
