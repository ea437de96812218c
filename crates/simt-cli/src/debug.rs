//! `simt debug`: a step debugger over the interpreter's stepping API.
//!
//! Blocks run one at a time in block order; the current block is the one being
//! debugged. `continue` and the other warps' turns while a stepped warp waits use
//! the round-robin order of `--trace` (each warp issues until it blocks, then the
//! next; at the end of a round the block barrier opens or, when nothing issued, the
//! `its` forced release runs), so a session that runs to the end computes what
//! `simt run` computes. `step`, `next` and `finish` issue the selected warp out of that
//! order, which changes nothing a race-free kernel computes.
//!
//! `next` and `finish` know device-function calls from the kernel's frames
//! ([`simt_isa::Frames`]), which the PTX front end records when it inlines them.

mod expr;
mod input;

use simt_interp::{TMEM_COLUMNS, TMEM_LANES};
use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;
use simt_host::PreparedLaunch;
use simt_interp::trace::lane_chars;
use simt_interp::{BlockReason, BlockSim, ControlView, Counters, Launch, Peek, Step, StepResult, ThreadState, WarpView};
use simt_io::Element;
use simt_isa::Kernel;

use crate::run::{LaunchArgs, Prepared};
use crate::{Failure, Outcome};
use expr::{Expr, Names, Scope, Special};
use input::Input;

/// Arguments of `simt debug`.
#[derive(Args)]
#[command(after_help = "Examples:
  simt debug asm/divergence/if_else.s
  simt debug asm/divergence/if_else.s --simt stack --commands examples/debug/divergence.cmds
  simt debug examples/debug/calls.ptx --grid 1 --block 64 --arg 'out=zeros(64)' --commands examples/debug/calls.cmds

Commands (type `help` in a session): break LINE [if COND] | break pc N, watch BUFFER[I],
delete [N], continue, step [N] (stepi), next [N], finish, block B, restart, warp W,
lanes 0-7, print[/x|/f] EXPR, regs R2 R3, preds, mask, stack, shared ADDR [N],
mem BUFFER [I..J], list [LINE], where, backtrace, info warps|lanes|breakpoints, help, quit.")]
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
        "break LINE [if COND]",
        "stop when a warp is about to issue line LINE (`break pc N`: pc N), given COND only if it holds in a lane issuing; alone: the list",
    ),
    ("watch", "watch BUFFER[I]", "stop when element I of a pointer parameter's buffer changes, saying who wrote it"),
    ("delete", "delete [N]", "remove breakpoint or watchpoint N, or all of them"),
    ("continue", "continue", "run every warp until one reaches a breakpoint, a watched element changes, or the kernel ends"),
    ("step", "step [N]", "issue N instructions (1 by default) of the selected warp (stepi and si say the same)"),
    ("next", "next [N]", "run the selected warp to its next source line, over device-function calls"),
    ("finish", "finish", "run the selected warp until the device-function call it is in returns"),
    ("block", "block B", "switch to block B: a later block after running those before it to their end, an earlier one by a restart"),
    ("restart", "restart", "start the launch over with the same arguments, keeping the breakpoints and watchpoints"),
    ("warp", "warp W", "select warp W of the current block"),
    ("lanes", "lanes 0-7,16 | lanes all", "select the lanes `regs` and `print` show"),
    (
        "print",
        "print[/x|/f] EXPR",
        "EXPR in each selected lane: registers R3, predicates P0, tid.x, ctaid.x, laneid, BUFFER[I], numbers, C's operators (/x hex, /f as f32)",
    ),
    ("regs", "regs [R2 R3 ...]", "the selected warp's registers per selected lane (all registers without arguments)"),
    ("preds", "preds", "the selected warp's predicates P0 .. P6 per lane"),
    ("mask", "mask", "the selected warp's next issue mask, exited lanes and barrier waits"),
    ("stack", "stack", "the reconvergence stack (--simt stack) or the thread groups and their waits (--simt its)"),
    ("shared", "shared ADDR [N]", "N words (8 by default) of the current block's shared memory from byte address ADDR"),
    ("mem", "mem BUFFER [I..J]", "elements I .. J-1 of a pointer parameter's buffer (the first 16 by default)"),
    ("tmem", "tmem LANE [COLUMN [N]]", "N cells (8 by default) of lane LANE of the current block's tensor memory from COLUMN (Blackwell's TMEM)"),
    ("list", "list [LINE]", "the source around the selected warp's line (=> marks it, b a breakpoint), or around LINE"),
    ("where", "where", "every warp of the current block: its pc, source line and state"),
    ("backtrace", "backtrace", "the selected warp's place and the device-function calls it is in, innermost first"),
    ("info", "info warps|lanes|breakpoints", "the block's warps (as `where`), where each lane of the selected warp is, or the breakpoints and watchpoints"),
    ("help", "help", "this list"),
    ("quit", "quit", "end the session"),
];

/// Words `shared` shows when not told how many.
const SHARED_WORDS: u32 = 8;
/// Elements `mem` shows when not given a range.
const MEM_ELEMENTS: u64 = 16;
/// Most words or elements one `shared` or `mem` command prints.
const MAX_SHOWN: u64 = 4096;
/// Source lines `list` shows.
const LIST_LINES: u32 = 11;
/// Value groups `print` lists one a line; more are shown eight lanes a line.
const MAX_GROUPS: usize = 8;

pub fn debug(args: DebugArgs) -> Outcome {
    let mut prepared = prepare(&args)?;
    let mut input = match &args.commands {
        Some(path) => {
            let bytes = crate::read_file(path)?;
            if std::str::from_utf8(&bytes).is_err() {
                return Err(Failure::input(format!("{}: the commands file is not UTF-8 text", path.display())));
            }
            Input::lines(Box::new(std::io::Cursor::new(bytes)), path.display().to_string())
        }
        None if std::io::stdin().is_terminal() => Input::terminal(&prepared)?,
        None => Input::lines(Box::new(std::io::stdin().lock()), "stdin".into()),
    };
    let mut kept = Kept::new();
    let mut goto = None;
    loop {
        let kernel = prepared.kernel();
        let stepper = Launch::new(kernel, &prepared.launch.config, &prepared.launch.memory, &prepared.options)
            .map_err(|e| Failure::input(simt_interp::Fault::invalid_launch(&kernel.name, e).message))?;
        let mut session = Session::new(&prepared, &stepper, kept);
        session.banner();
        if let Some(block) = goto {
            session.run_to_block(block);
        }
        session.flush()?;
        let flow = input.drive(&mut session)?;
        if let Flow::Restart(block) = flow {
            kept = session.into_kept();
            goto = block;
            prepared = prepare(&args)?;
            continue;
        }
        if session.status == Status::Faulted {
            return Err(Failure::Fault("error: the kernel faulted; the fault report is above".into()));
        }
        if session.findings > 0 {
            return Err(Failure::Fault("error: the sanitizers found problems; their report is above".into()));
        }
        return Ok(());
    }
}

/// Loads and checks the launch, as at the start and at each `restart`.
fn prepare(args: &DebugArgs) -> Result<Prepared, Failure> {
    let mut prepared = crate::run::prepare(&args.launch)?;
    prepared.options.memory_report = true;
    if let Some(commands) = &args.commands {
        for file in prepared.dumps.iter().filter_map(|d| d.file.as_ref()) {
            crate::check_output(file, &[commands])?;
        }
    }
    Ok(prepared)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Flow {
    Go,
    Quit,
    /// Start the launch over, then run to this block.
    Restart(Option<u64>),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Status {
    Running,
    Faulted,
    Finished,
}

/// Where a breakpoint is: a source line or a pc.
#[derive(Clone, Copy)]
enum Spot {
    Line(u32),
    Pc(u32),
}

/// A breakpoint's condition, as written and parsed.
struct Condition {
    text: String,
    expr: Expr,
}

/// A breakpoint or a watchpoint; they are numbered together, as in gdb.
enum Stop {
    Break {
        spot: Spot,
        condition: Option<Condition>,
        hits: u64,
    },
    /// Element `index` of the buffer of pointer parameter `buffer`, last seen as `value`
    /// (`None` when it could not be read: a restart with a smaller buffer).
    Watch {
        buffer: String,
        index: u64,
        value: Option<Element>,
        hits: u64,
    },
}

/// What a `restart` keeps.
struct Kept {
    stops: Vec<Option<Stop>>,
    warp: usize,
    lanes: u32,
}

impl Kept {
    fn new() -> Kept {
        Kept { stops: Vec::new(), warp: 0, lanes: u32::MAX }
    }
}

/// A breakpoint that stops a warp: its number (from 1), the lanes about to issue for which
/// its condition holds, or why the condition could not be evaluated.
struct Hit {
    number: usize,
    lanes: u32,
    error: Option<String>,
}

/// What one scheduler action did.
enum Tick {
    /// A warp issued an instruction, or ended its turn.
    Moved,
    /// A warp is about to issue at a breakpoint (warp, pc, the breakpoint).
    Breakpoint(usize, u32, Hit),
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
    /// Records of the current block's `PRINTF`s already shown.
    printed_shown: usize,
    counters: Counters,
    /// The selected warp and lanes.
    warp: usize,
    lanes: u32,
    /// Breakpoints and watchpoints by number (from 1); deleted ones are `None`.
    stops: Vec<Option<Stop>>,
    /// The round-robin position: the warp whose turn it is, and whether the round issued anything.
    turn: usize,
    progressed: bool,
    /// The warp and pc a breakpoint stopped at: it issues there once before the breakpoint stops it again.
    resume: Option<(usize, u32)>,
    /// Set when a watched element changed: the command running the kernel stops.
    watched: bool,
    /// The launch's warp instructions when the last command ended, for "since the last stop".
    mark: u64,
    out: String,
}

impl<'l> Session<'l> {
    fn new(prepared: &'l Prepared, launch: &'l Launch<'l>, kept: Kept) -> Session<'l> {
        let kernel = launch.kernel();
        let mut session = Session {
            prepared,
            kernel,
            launch,
            source: prepared.module.source.as_deref().map(|s| s.lines().collect()).unwrap_or_default(),
            status: Status::Running,
            findings: 0,
            block: Some(launch.block(0, simt_interp::launch::sm_of_block(0, prepared.options.sms))),
            linear: 0,
            printed_shown: 0,
            counters: Counters::new(kernel.code.len()),
            warp: kept.warp,
            lanes: kept.lanes,
            stops: kept.stops,
            turn: 0,
            progressed: false,
            resume: None,
            watched: false,
            mark: 0,
            out: String::new(),
        };
        // Watched elements start from the fresh launch's buffers.
        for stop in session.stops.iter_mut().flatten() {
            if let Stop::Watch { buffer, index, value, .. } = stop {
                *value = element(&prepared.launch, buffer, *index).ok();
            }
        }
        session
    }

    fn into_kept(self) -> Kept {
        Kept { stops: self.stops, warp: self.warp, lanes: self.lanes }
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

    fn banner(&mut self) {
        let config = &self.prepared.launch.config;
        let model = self.prepared.options.simt.name();
        let [gx, gy, gz] = config.grid;
        let [bx, by, bz] = config.block;
        let warps = self.launch.warps_per_block();
        self.say(format!(
            "kernel `{}`: grid {gx}x{gy}x{gz}, block {bx}x{by}x{bz} ({warps} warp{} a block), --simt {model}; `help` lists the commands",
            self.kernel.name,
            if warps == 1 { "" } else { "s" }
        ));
        self.say_block_start();
    }

    fn say_block_start(&mut self) {
        let index = self.block.as_ref().map_or([0; 3], BlockSim::index);
        self.say(format!("block {} ({}, {}, {}) starts", self.linear, index[0], index[1], index[2]));
    }

    fn execute(&mut self, line: &str) -> Flow {
        let mut words = line.split_whitespace();
        let Some(word) = words.next() else { return Flow::Go };
        let rest: Vec<&str> = words.collect();
        // `print/x`: gdb's output formats.
        let (command, format) = word.split_once('/').map_or((word, None), |(c, f)| (c, Some(f)));
        let name = match COMMANDS.iter().find(|c| c.0 == command) {
            Some(c) => c.0,
            None => match command {
                "b" => "break",
                "c" | "cont" => "continue",
                "s" | "stepi" | "si" => "step",
                "n" => "next",
                "p" => "print",
                "l" => "list",
                "bt" => "backtrace",
                "i" => "info",
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
        if format.is_some() && name != "print" {
            self.error(format!("only `print` takes a /FORMAT; write `{name}` alone"));
            return Flow::Go;
        }
        let result = match name {
            "break" => self.cmd_break(&rest),
            "watch" => self.cmd_watch(&rest),
            "delete" => self.cmd_delete(&rest),
            "continue" => no_args(&rest).and_then(|()| self.cmd_continue()),
            "step" => self.cmd_step(&rest),
            "next" => self.cmd_next(&rest),
            "finish" => no_args(&rest).and_then(|()| self.cmd_finish()),
            "block" => match self.cmd_block(&rest) {
                Ok(Flow::Go) => Ok(()),
                Ok(flow) => return flow,
                Err(e) => Err(e),
            },
            "restart" => match no_args(&rest) {
                Ok(()) => {
                    self.say(format!("restarting kernel `{}` with the same arguments; breakpoints and watchpoints are kept", self.kernel.name));
                    return Flow::Restart(None);
                }
                Err(e) => Err(e),
            },
            "warp" => self.cmd_warp(&rest),
            "lanes" => self.cmd_lanes(&rest),
            "print" => self.cmd_print(format, &rest.join(" ")),
            "regs" => self.cmd_regs(&rest),
            "preds" => no_args(&rest).and_then(|()| self.cmd_preds()),
            "mask" => no_args(&rest).and_then(|()| self.cmd_mask()),
            "stack" => no_args(&rest).and_then(|()| self.cmd_stack()),
            "shared" => self.cmd_shared(&rest),
            "mem" => self.cmd_mem(&rest),
            "tmem" => self.cmd_tmem(&rest),
            "list" => self.cmd_list(&rest),
            "where" => no_args(&rest).and_then(|()| self.cmd_where()),
            "backtrace" => no_args(&rest).and_then(|()| self.cmd_backtrace()),
            "info" => match rest.as_slice() {
                ["warps" | "warp"] => self.cmd_where(),
                ["lanes" | "lane"] => self.cmd_info_lanes(),
                ["breakpoints" | "breakpoint" | "break" | "b" | "watchpoints"] => {
                    self.list_stops();
                    Ok(())
                }
                _ => Err("write `info warps`, `info lanes` or `info breakpoints`".into()),
            },
            "help" => {
                self.cmd_help();
                Ok(())
            }
            _ => return Flow::Quit,
        };
        if let Err(message) = result {
            self.error(message);
        }
        self.mark = self.launch.steps();
        Flow::Go
    }

    fn cmd_help(&mut self) {
        for (_, syntax, what) in COMMANDS {
            self.say(format!("  {syntax:<29} {what}"));
        }
        self.say("  (b, c, s, si, n, p, l, i, bt and q are short for break, continue, step, step, next, print, list, info, backtrace and quit)");
    }

    /// The current block, for commands that inspect it.
    fn block(&mut self) -> Result<&mut BlockSim<'l>, String> {
        self.block.as_mut().ok_or_else(|| NO_BLOCK.to_string())
    }

    /// Whether the kernel can run further.
    fn running(&mut self) -> Result<(), String> {
        match self.status {
            Status::Running => Ok(()),
            Status::Faulted => Err("the kernel faulted: it cannot run further; inspect it, `restart` it, or quit".into()),
            Status::Finished => Err("the kernel has finished; `restart` runs it again".into()),
        }
    }

    /// "after N warp instructions since the last stop, M since the launch began".
    fn since(&self) -> String {
        let all = self.launch.steps();
        let n = all - self.mark;
        format!("after {n} warp instruction{} since the last stop, {all} since the launch began", if n == 1 { "" } else { "s" })
    }

    /// Parses an expression over what the kernel has.
    fn parse(&self, text: &str) -> Result<Expr, String> {
        let buffers: Vec<String> = self.prepared.launch.buffers.iter().map(|(name, _)| name.clone()).collect();
        expr::parse(text, &Names { regs: self.kernel.regs, buffers: &buffers, unknown_buffer: &|name| unknown_buffer(self.prepared, name) })
    }

    /// Where expressions about warp `w` read their values.
    fn scope(&self, w: usize) -> LaneScope<'_, 'l> {
        LaneScope { block: self.block.as_ref(), warp: w, launch: &self.prepared.launch }
    }
}

/// Why `name` names no buffer, and which buffers there are.
fn unknown_buffer(prepared: &Prepared, name: &str) -> String {
    let kernel = prepared.kernel();
    let names = prepared.launch.buffers.iter().map(|(n, _)| format!("`{n}`")).collect::<Vec<_>>().join(", ");
    let names = if names.is_empty() { "none".to_string() } else { names };
    match kernel.param(name).map(|p| p.ty) {
        Some(ty) if ty.buffer_elem().is_none() => format!("`{name}` is a scalar .{} parameter; the buffers are {names}", ty.name()),
        _ => format!("kernel `{}` has no pointer parameter `{name}`; its buffers are {names}", kernel.name),
    }
}

const NO_BLOCK: &str = "the kernel has finished: no block is resident (`mem` and `print BUFFER[I]` still show the buffers)";

/// What an expression reads in warp `warp` of the current block.
struct LaneScope<'s, 'l> {
    block: Option<&'s BlockSim<'l>>,
    warp: usize,
    launch: &'s PreparedLaunch,
}

impl Scope for LaneScope<'_, '_> {
    fn register(&self, r: u8, lane: usize) -> Result<u32, String> {
        let block = self.block.ok_or(NO_BLOCK)?;
        Ok(block.registers(self.warp).0.get(usize::from(r)).map_or(0, |row| row[lane]))
    }

    fn predicate(&self, p: u8, lane: usize) -> Result<bool, String> {
        let block = self.block.ok_or(NO_BLOCK)?;
        Ok(block.registers(self.warp).1.get(usize::from(p)).is_some_and(|mask| mask >> lane & 1 != 0))
    }

    fn special(&self, s: Special, lane: usize) -> u32 {
        let config = &self.launch.config;
        let [bx, by, _] = config.block;
        let thread = (self.warp * 32 + lane) as u32;
        match s {
            Special::Tid(d) => [thread % bx, thread / bx % by, thread / (bx * by)][d],
            Special::Ctaid(d) => self.block.map_or(0, |b| b.index()[d]),
            Special::Ntid(d) => config.block[d],
            Special::Nctaid(d) => config.grid[d],
            Special::Laneid => lane as u32,
            Special::Warpid => self.warp as u32,
        }
    }

    fn element(&self, buffer: &str, index: i64) -> Result<Element, String> {
        let index = u64::try_from(index).map_err(|_| format!("{buffer}[{index}]: an index is not negative"))?;
        element(self.launch, buffer, index)
    }
}

/// Element `index` of the buffer of pointer parameter `name`, as the kernel left it so far.
fn element(launch: &PreparedLaunch, name: &str, index: u64) -> Result<Element, String> {
    let (elem, buffer) = launch.buffer_of(name).ok_or_else(|| format!("`{name}` is not a pointer parameter"))?;
    let slot = launch.memory.buffers().iter().position(|b| b.name == name).ok_or_else(|| format!("`{name}` has no buffer"))?;
    let bits = u64::from(elem.bits());
    let len = u64::from(buffer.len) * 8 / bits;
    if index >= len {
        return Err(format!("{name}[{index}] is past the end of `{name}`, which has {len} elements"));
    }
    // Elements narrower than a byte share it: read the byte and pick the element out.
    let first = index * bits / 8;
    let bytes: Vec<u8> = (first..first + bits.div_ceil(8)).map(|b| launch.memory.read(slot, b as u32, 1) as u8).collect();
    let per_byte = (8 / bits).max(1);
    simt_io::elements(elem, &bytes).nth((index % per_byte) as usize).ok_or_else(|| format!("{name}[{index}] cannot be read"))
}

/// Whether two readings of an element hold the same bits (a NaN that stays is no change).
fn same(a: Option<Element>, b: Option<Element>) -> bool {
    match (a, b) {
        (Some(Element::F32(x)), Some(Element::F32(y))) => x.to_bits() == y.to_bits(),
        (Some(Element::F64(x)), Some(Element::F64(y))) => x.to_bits() == y.to_bits(),
        (a, b) => a == b,
    }
}

impl<'l> Session<'l> {
    // ---- breakpoints and watchpoints ----

    fn cmd_break(&mut self, args: &[&str]) -> Result<(), String> {
        if args.is_empty() {
            self.list_stops();
            return Ok(());
        }
        let (at, condition) = match args.iter().position(|a| *a == "if") {
            Some(i) => (&args[..i], Some(args[i + 1..].join(" "))),
            None => (args, None),
        };
        // The condition is checked first, so that a bad one adds nothing and says nothing else.
        let condition = condition.map(|text| self.parse(&text).map(|expr| Condition { text, expr })).transpose()?;
        let spot = match at {
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
            _ => return Err("write `break LINE` or `break pc N`, then `if COND` for a condition".into()),
        };
        let stop = Stop::Break { spot, condition, hits: 0 };
        let text = self.describe_stop(&stop, "  ");
        self.stops.push(Some(stop));
        self.say(format!("breakpoint {} at {text}", self.stops.len()));
        Ok(())
    }

    fn cmd_watch(&mut self, args: &[&str]) -> Result<(), String> {
        let text = args.join("");
        let text = text.strip_prefix("mem").filter(|_| args.len() > 1).unwrap_or(&text);
        let usage = "write `watch BUFFER[I]` (I a whole number), BUFFER a pointer parameter";
        let (buffer, index) = text.strip_suffix(']').and_then(|t| t.split_once('[')).ok_or(usage)?;
        let index = index.parse::<u64>().map_err(|_| usage)?;
        if self.prepared.launch.buffer_of(buffer).is_none() {
            return Err(unknown_buffer(self.prepared, buffer));
        }
        let value = Some(element(&self.prepared.launch, buffer, index)?);
        let stop = Stop::Watch { buffer: buffer.to_string(), index, value, hits: 0 };
        let text = self.describe_stop(&stop, "  ");
        self.stops.push(Some(stop));
        self.say(format!("watchpoint {}: {text}", self.stops.len()));
        Ok(())
    }

    /// A breakpoint's place or a watchpoint's element, with its hits; a condition follows on a
    /// line of its own, indented by `indent`, as gdb shows it.
    fn describe_stop(&self, stop: &Stop, indent: &str) -> String {
        let (text, hits) = match stop {
            Stop::Break { spot, condition, hits } => {
                let pc = match *spot {
                    Spot::Line(l) => (0..self.kernel.code.len() as u32).find(|&pc| self.kernel.line(pc) == Some(l)).unwrap_or(0),
                    Spot::Pc(pc) => pc,
                };
                let condition = condition.as_ref().map_or(String::new(), |c| format!("\n{indent}stop only if {}", c.text));
                (format!("{}{condition}", self.place(pc)), *hits)
            }
            Stop::Watch { buffer, index, value, hits } => {
                let now = value.map_or("unreadable".into(), |v| v.to_string());
                (format!("{buffer}[{index}], now {now}"), *hits)
            }
        };
        match hits {
            0 => text,
            1 => format!("{text}\n{indent}hit once"),
            n => format!("{text}\n{indent}hit {n} times"),
        }
    }

    fn list_stops(&mut self) {
        let list: Vec<String> = self
            .stops
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                let kind = match s.as_ref()? {
                    Stop::Break { .. } => "breakpoint",
                    Stop::Watch { .. } => "watchpoint",
                };
                Some(format!("  {}: {kind} {}", i + 1, self.describe_stop(s.as_ref()?, "       ")))
            })
            .collect();
        if list.is_empty() {
            self.say("no breakpoints or watchpoints");
        }
        list.into_iter().for_each(|l| self.say(l));
    }

    fn cmd_delete(&mut self, args: &[&str]) -> Result<(), String> {
        match args {
            [] => {
                self.stops.iter_mut().for_each(|b| *b = None);
                self.say("every breakpoint and watchpoint deleted");
            }
            [n] => {
                let slot = n.parse::<usize>().ok().and_then(|i| i.checked_sub(1)).and_then(|i| self.stops.get_mut(i)).filter(|b| b.is_some());
                let slot = slot.ok_or_else(|| format!("there is no breakpoint or watchpoint {n}; `info breakpoints` lists them"))?;
                let kind = match slot.take() {
                    Some(Stop::Watch { .. }) => "watchpoint",
                    _ => "breakpoint",
                };
                self.say(format!("{kind} {n} deleted"));
            }
            _ => return Err("write `delete` or `delete N`".into()),
        }
        Ok(())
    }

    /// The first breakpoint that stops warp `w`, about to issue `pc` with lanes `active`.
    fn breakpoint_hit(&mut self, w: usize, pc: u32, active: u32) -> Option<Hit> {
        let line = self.kernel.line(pc);
        let scope = self.scope(w);
        let hit = self.stops.iter().enumerate().find_map(|(i, stop)| {
            let Some(Stop::Break { spot, condition, .. }) = stop else { return None };
            let here = match *spot {
                Spot::Pc(p) => p == pc,
                Spot::Line(l) => Some(l) == line,
            };
            if !here {
                return None;
            }
            let Some(condition) = condition else { return Some(Hit { number: i + 1, lanes: active, error: None }) };
            let mut lanes = 0;
            for lane in (0..32).filter(|l| active >> l & 1 != 0) {
                match condition.expr.eval(&scope, lane) {
                    Ok(v) if expr::truth(v) => lanes |= 1 << lane,
                    Ok(_) => {}
                    Err(e) => return Some(Hit { number: i + 1, lanes: active, error: Some(format!("lane {lane}: {e}")) }),
                }
            }
            (lanes != 0).then_some(Hit { number: i + 1, lanes, error: None })
        })?;
        if let Some(Some(Stop::Break { hits, .. })) = self.stops.get_mut(hit.number - 1) {
            *hits += 1;
        }
        Some(hit)
    }

    /// Stops at a breakpoint: warp `w` is about to issue `pc`, and issues it when the kernel runs on.
    fn say_breakpoint(&mut self, w: usize, pc: u32, hit: &Hit) {
        self.warp = w;
        self.resume = Some((w, pc));
        let condition = match self.stops.get(hit.number - 1) {
            Some(Some(Stop::Break { condition: Some(c), .. })) => format!(" (if {})", c.text),
            _ => String::new(),
        };
        self.say(format!("breakpoint {}{condition}: block {}, warp {w}, {} ({})", hit.number, self.linear, self.place(pc), self.since()));
        match &hit.error {
            Some(e) => self.say(format!("  its condition cannot be evaluated: {e}; `delete {}` removes it", hit.number)),
            None if !condition.is_empty() => self.say(format!("  the condition holds in {}", describe_lanes(hit.lanes))),
            None => {}
        }
        let mask = self.next_mask(w).unwrap_or_default();
        self.say(format!("  {mask}"));
    }

    /// After warp `w` issued `step`: reports each watched element that changed, and selects `w`.
    fn check_watches(&mut self, w: usize, step: &Step) {
        let launch = &self.prepared.launch;
        let mut changes = Vec::new();
        for (i, stop) in self.stops.iter_mut().enumerate() {
            let Some(Stop::Watch { buffer, index, value, hits }) = stop else { continue };
            let now = element(launch, buffer, *index).ok();
            if same(now, *value) {
                continue;
            }
            let show = |v: Option<Element>| v.map_or("unreadable".into(), |v| v.to_string());
            changes.push((i + 1, format!("{buffer}[{index}]: {} -> {}", show(*value), show(now)), writers(launch, buffer, *index, step)));
            *value = now;
            *hits += 1;
        }
        for (number, change, lanes) in changes {
            let lanes = if lanes == 0 { String::new() } else { format!(" ({})", describe_lanes(lanes)) };
            let at = self.place(step.issued.pc);
            self.say(format!("watchpoint {number}, {change}, written by block {}, warp {w}{lanes} at {at} ({})", self.linear, self.since()));
            self.watched = true;
            self.warp = w;
        }
    }
}

/// The lanes of `step` whose store or atomic covers element `index` of `buffer`.
fn writers(launch: &PreparedLaunch, buffer: &str, index: u64, step: &Step) -> u32 {
    let (Some(access), Some((elem, b))) = (step.access, launch.buffer_of(buffer)) else { return 0 };
    if access.space != simt_isa::Space::Global || access.kind == simt_isa::AccessKind::Load {
        return 0;
    }
    let at = u64::from(b.base) + index * u64::from(elem.bits()) / 8;
    (0..32)
        .filter(|l| access.lanes >> l & 1 != 0 && (u64::from(access.addresses[*l])..u64::from(access.addresses[*l]) + u64::from(access.size)).contains(&at))
        .fold(0, |m, l| m | 1 << l)
}

impl<'l> Session<'l> {
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
                && let Some(hit) = self.breakpoint_hit(w, preview.pc, preview.active)
            {
                return Tick::Breakpoint(w, preview.pc, hit);
            }
            return match self.issue(w) {
                Some(step) => {
                    self.progressed = true;
                    self.check_watches(w, &step);
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
    fn issue(&mut self, w: usize) -> Option<Step> {
        if self.resume.is_some_and(|(rw, _)| rw == w) {
            self.resume = None;
        }
        let block = self.block.as_mut()?;
        match block.step(w) {
            Ok(StepResult::Issued(step)) => {
                self.say_printed();
                Some(step)
            }
            Ok(_) => None,
            Err(fault) => {
                self.fault(&fault);
                None
            }
        }
    }

    /// Shows what the step just issued printed, as it happens (the run's output, at the end,
    /// has it again in print order).
    fn say_printed(&mut self) {
        let Some(block) = &self.block else { return };
        let new: Vec<String> = block.counters().printed()[self.printed_shown..]
            .iter()
            .map(|p| format!("printf from thread ({},{},{}): {}", p.thread[0], p.thread[1], p.thread[2], p.text.trim_end_matches('\n')))
            .collect();
        self.printed_shown += new.len();
        new.iter().for_each(|line| self.say(line));
    }

    fn fault(&mut self, fault: &simt_interp::Fault) {
        self.status = Status::Faulted;
        // Inspection starts where the fault is.
        if let Some(w) = fault.warp {
            self.warp = w as usize;
        }
        let text = fault.clone().worded(&crate::run::CommandLine).render(&self.prepared.module, false);
        self.say(text.trim_end());
    }

    /// The current block is done: its counters join the launch's, and the next block
    /// starts, or the kernel finishes.
    fn next_block(&mut self) {
        let Some(block) = self.block.take() else { return };
        self.counters.add(&block.into_counters());
        self.say(format!("block {} finished", self.linear));
        self.linear += 1;
        self.printed_shown = 0;
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

    /// A block that finished with the last step gives way to the next at once.
    fn end_block_if_done(&mut self) {
        if self.block.as_ref().is_some_and(BlockSim::is_done) {
            self.next_block();
        }
    }

    fn cmd_continue(&mut self) -> Result<(), String> {
        self.running()?;
        loop {
            match self.tick(true) {
                Tick::Moved if std::mem::take(&mut self.watched) => return Ok(()),
                Tick::Moved => {}
                Tick::Stopped => return Ok(()),
                Tick::Breakpoint(w, pc, hit) => {
                    self.say_breakpoint(w, pc, &hit);
                    return Ok(());
                }
            }
        }
    }

    fn cmd_step(&mut self, args: &[&str]) -> Result<(), String> {
        let n = count(args, "step")?;
        self.running()?;
        let w = self.warp;
        for _ in 0..n {
            let Some(waited) = self.wait_selected() else { break };
            if let Some((reason, others)) = waited {
                self.say(format!("warp {w} waited {}; the other warps issued {others} instructions meanwhile", wait_text(reason)));
            }
            let Some(step) = self.issue(w) else { break };
            let live = self.block.as_ref().map_or(0, |b| b.live_lanes(w));
            let gone = step.gone(live);
            let text = format!(
                "block {} warp {w}  pc {:<4} line {:<4} {:<14} [{}]  {}",
                self.linear,
                step.issued.pc,
                self.kernel.line(step.issued.pc).unwrap_or(0),
                simt_isa::format_mnemonic(&self.kernel.code[step.issued.pc as usize].form),
                lane_chars(step.issued.active, step.issued.executed, gone),
                self.source_text(step.issued.pc)
            );
            self.say(text.trim_end());
            self.check_watches(w, &step);
            self.end_block_if_done();
            if std::mem::take(&mut self.watched) || self.status != Status::Running {
                break;
            }
        }
        Ok(())
    }

    /// Lets the other warps run until the selected one can issue. Says what it waited for and
    /// how many instructions the others issued meanwhile; `None` when it cannot issue (it has
    /// exited: said so) or the kernel stopped.
    fn wait_selected(&mut self) -> Option<Option<(BlockReason, u64)>> {
        let w = self.warp;
        let mut others = 0u64;
        let mut reason = None;
        loop {
            let block = self.block.as_mut()?;
            match block.peek(w) {
                Peek::Issue(_) => return Some(reason.map(|r| (r, others))),
                Peek::Done if !block.is_done() => {
                    self.say(format!("warp {w} has exited; select another with `warp W`, or `continue`"));
                    return None;
                }
                Peek::Blocked(r) => reason = reason.or(Some(r)),
                Peek::Done => {}
            }
            let before = self.launch.steps();
            let linear = self.linear;
            if let Tick::Stopped = self.tick(false) {
                return None;
            }
            others += self.launch.steps() - before;
            if self.linear != linear {
                // A fresh block: its warp `w` starts at pc 0; the step is taken there.
                reason = None;
                others = 0;
            }
        }
    }

    fn cmd_next(&mut self, args: &[&str]) -> Result<(), String> {
        let n = count(args, "next")?;
        self.running()?;
        for _ in 0..n {
            let pc = self.selected_pc()?;
            let (kernel, frame, line) = (self.kernel, self.kernel.frame(pc), self.kernel.line(pc));
            // Another line of this call, or the code it returns to; a call made from here runs through.
            let arrived = |pc: u32| {
                let f = kernel.frame(pc);
                (f == frame && kernel.line(pc) != line) || (f != frame && !kernel.frame_within(f, frame))
            };
            if !self.run_selected(arrived) {
                break;
            }
        }
        Ok(())
    }

    fn cmd_finish(&mut self) -> Result<(), String> {
        self.running()?;
        let pc = self.selected_pc()?;
        let (kernel, frame) = (self.kernel, self.kernel.frame(pc));
        let Some(call) = kernel.inlined_call(frame) else {
            return Err(format!("warp {} is in the kernel's own code, not in a device-function call: use `next`, `step` or `continue`", self.warp));
        };
        self.say(format!("run till the call of `{}` at line {} returns", call.function, call.line));
        self.run_selected(|pc| !kernel.frame_within(kernel.frame(pc), frame));
        Ok(())
    }

    /// The pc the selected warp issues next or waits at.
    fn selected_pc(&mut self) -> Result<u32, String> {
        let w = self.warp;
        warp_pc(self.block()?, w).ok_or_else(|| format!("warp {w} has exited; select another with `warp W`, or `continue`"))
    }

    /// Issues the selected warp's instructions until it is about to issue a pc where
    /// `arrived` holds; stops early, saying why, at a breakpoint of that warp, a watched
    /// change, the end of the warp or of its block, or a fault. Returns whether it arrived.
    fn run_selected(&mut self, arrived: impl Fn(u32) -> bool) -> bool {
        let (w, linear) = (self.warp, self.linear);
        // Where it starts is where it is, not where it arrives.
        let mut started = false;
        loop {
            // The others run while it waits (at a barrier, say), so it stops where it can issue.
            if self.wait_selected().is_none() {
                return false;
            }
            let Some(Peek::Issue(next)) = self.block.as_mut().map(|b| b.peek(w)) else { return false };
            if started {
                if let Some(hit) = self.breakpoint_hit(w, next.pc, next.active) {
                    self.say_breakpoint(w, next.pc, &hit);
                    return false;
                }
                if arrived(next.pc) {
                    self.say(format!("warp {w} at {} ({})", self.place(next.pc), self.since()));
                    return true;
                }
            }
            started = true;
            let Some(step) = self.issue(w) else { return false };
            self.check_watches(w, &step);
            self.end_block_if_done();
            if std::mem::take(&mut self.watched) || self.linear != linear || self.status != Status::Running {
                return false;
            }
        }
    }

    fn cmd_block(&mut self, args: &[&str]) -> Result<Flow, String> {
        let blocks = self.launch.blocks();
        let [b] = args else { return Err("write `block B`, B a block's linear index (x fastest)".into()) };
        let b = b.parse::<u64>().ok().filter(|&b| b < blocks).ok_or_else(|| format!("`{b}` is not a block of the grid: it has blocks 0 .. {}", blocks - 1))?;
        match self.status {
            Status::Running if b == self.linear => self.say(format!("block {b} is the current block")),
            Status::Running if b > self.linear => self.run_to_block(b),
            _ => {
                let why = if self.status == Status::Running { format!("block {b} has run") } else { "the kernel has stopped".into() };
                self.say(format!("{why}; restarting the launch to reach block {b} (breakpoints and watchpoints are kept)"));
                return Ok(Flow::Restart(Some(b)));
            }
        }
        Ok(Flow::Go)
    }

    /// Runs the blocks before block `b` to their end, past breakpoints; watched changes are said but do not stop it.
    fn run_to_block(&mut self, b: u64) {
        while self.status == Status::Running && self.linear < b {
            if let Tick::Stopped = self.tick(false) {
                break;
            }
        }
        self.watched = false;
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
        // The table is built in memory: a long list of registers would make it huge.
        if args.len() > simt_isa::NUM_REGS as usize {
            return Err(format!("`regs` shows at most {} registers at a time (got {}); name fewer, or none for all of them", simt_isa::NUM_REGS, args.len()));
        }
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
                    let issues = g.state == ThreadState::Ready && next.is_some_and(|(pc, active)| pc == g.pc && active & g.lanes != 0);
                    let state = if issues { "issues next" } else { group_state(g.state) };
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

    fn cmd_tmem(&mut self, args: &[&str]) -> Result<(), String> {
        let numbers =
            args.iter().map(|a| parse_number(a).ok_or_else(|| format!("`{a}` is not a number (decimal or 0x hex)"))).collect::<Result<Vec<u32>, String>>()?;
        let (lane, first, count) = match numbers[..] {
            [lane] => (lane, 0, SHARED_WORDS),
            [lane, column] => (lane, column, SHARED_WORDS),
            [lane, column, n] if (1..=TMEM_COLUMNS).contains(&n) => (lane, column, n),
            [_, _, n] => return Err(format!("`{n}` is not a number of cells from 1 to {TMEM_COLUMNS}")),
            _ => return Err("write `tmem LANE`, `tmem LANE COLUMN` or `tmem LANE COLUMN N`".into()),
        };
        if lane >= TMEM_LANES || first >= TMEM_COLUMNS {
            return Err(format!("tensor memory has lanes 0-{} and columns 0-{}", TMEM_LANES - 1, TMEM_COLUMNS - 1));
        }
        let linear = self.linear;
        let (allocations, cells) = self.block()?.tensor_memory();
        if allocations.is_empty() {
            return Err(format!("block {linear} has no tensor memory allocated (TMEM.ALLOC gives it)"));
        }
        let mut lines = vec![format!(
            "block {linear}: tensor memory lane {lane}; allocated: {}",
            allocations.iter().map(|&(c, n)| format!("columns {c}-{}", c + n - 1)).collect::<Vec<_>>().join(", ")
        )];
        for column in first..(first + count).min(TMEM_COLUMNS) {
            let cell = if allocations.iter().any(|&(c, n)| (c..c + n).contains(&column)) {
                word(cells[(lane * TMEM_COLUMNS + column) as usize])
            } else {
                "(not allocated)".to_string()
            };
            lines.push(format!("  column {column:3}  {cell}").trim_end().to_string());
        }
        lines.into_iter().for_each(|line| self.say(line));
        Ok(())
    }

    fn cmd_mem(&mut self, args: &[&str]) -> Result<(), String> {
        let (name, range) = match args {
            [name] => (*name, None),
            [name, range] => (*name, Some(*range)),
            _ => return Err("write `mem BUFFER` or `mem BUFFER I..J`".into()),
        };
        let Some((elem, buffer)) = self.prepared.launch.buffer_of(name) else { return Err(unknown_buffer(self.prepared, name)) };
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
            for e in simt_io::elements(elem, bytes) {
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

    fn cmd_print(&mut self, format: Option<&str>, text: &str) -> Result<(), String> {
        // gdb takes `print /x R3` as well as `print/x R3`.
        let (format, text) = match text.strip_prefix('/').map(|t| t.split_once(' ').unwrap_or((t, ""))) {
            Some((f, rest)) if format.is_none() => (Some(f), rest.trim()),
            _ => (format, text),
        };
        let show: fn(Element) -> String = match format {
            None | Some("d") => |v| v.to_string(),
            Some("x") => hex,
            Some("f") => as_float,
            Some(f) => return Err(format!("`/{f}` is not a format: write print/x (hex), print/f (bits as f32) or print/d")),
        };
        let expr = self.parse(text)?;
        let w = self.warp;
        if expr.is_uniform() {
            let value = expr.eval(&self.scope(w), 0)?;
            self.say(format!("{text} = {}", show(value)));
            return Ok(());
        }
        let valid = self.block.as_ref().ok_or(NO_BLOCK)?.warp_view(w).valid;
        let lanes = self.lanes & valid;
        if lanes == 0 {
            return Err(format!("warp {w} has none of the selected lanes ({}); `lanes all` selects every lane", describe_lanes(self.lanes)));
        }
        let scope = self.scope(w);
        let values = (0..32)
            .filter(|l| lanes >> l & 1 != 0)
            .map(|l| expr.eval(&scope, l).map(|v| (l, show(v))).map_err(|e| format!("lane {l}: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        self.say(format!("warp {w}, {text}:"));
        per_lane(&values).into_iter().for_each(|l| self.say(l));
        Ok(())
    }

    /// The selected warp's place and the device-function calls it is in, innermost first.
    fn cmd_backtrace(&mut self) -> Result<(), String> {
        let pc = self.selected_pc()?;
        let kernel = self.kernel;
        let mut lines = vec![format!("#0  {}", self.place(pc))];
        // Each call is made from a lower frame (`Frames`), so the chain ends; `take` bounds it all the same.
        let calls = std::iter::successors(kernel.inlined_call(kernel.frame(pc)), |call| kernel.inlined_call(call.caller)).take(kernel.frames.calls.len());
        for call in calls {
            let function = kernel.inlined_call(call.caller).map_or(&kernel.name, |c| &c.function);
            let text = self.line_text(call.line).unwrap_or_default();
            lines.push(format!("#{}  line {} in {function}: {text}", lines.len(), call.line));
        }
        lines.into_iter().for_each(|l| self.say(l.trim_end()));
        Ok(())
    }

    fn cmd_list(&mut self, args: &[&str]) -> Result<(), String> {
        let w = self.warp;
        let current = self.block.as_mut().and_then(|b| warp_pc(b, w)).and_then(|pc| self.kernel.line(pc));
        let center = match args {
            [] => current.ok_or_else(|| format!("warp {w} is at no line (it has exited, or the kernel has finished); write `list LINE`"))?,
            [n] => n.parse::<u32>().ok().filter(|&n| n >= 1).ok_or_else(|| format!("`{n}` is not a line number (a whole number from 1)"))?,
            _ => return Err("write `list` or `list LINE`".into()),
        };
        let len = self.source.len() as u32;
        if len == 0 {
            return Err(format!("the source of `{}` is not available; `simt asm --listing` shows the code", self.prepared.module.source_name));
        }
        if center > len {
            return Err(format!("line {center} is past the end of `{}` ({len} lines)", self.prepared.module.source_name));
        }
        let first = center.saturating_sub(LIST_LINES / 2).max(1);
        let last = (first + LIST_LINES - 1).min(len);
        let stopped: Vec<u32> = self
            .stops
            .iter()
            .flatten()
            .filter_map(|s| match s {
                Stop::Break { spot: Spot::Line(l), .. } => Some(*l),
                Stop::Break { spot: Spot::Pc(pc), .. } => self.kernel.line(*pc),
                Stop::Watch { .. } => None,
            })
            .collect();
        for l in first..=last {
            let here = if current == Some(l) { "=>" } else { "  " };
            let stop = if stopped.contains(&l) { 'b' } else { ' ' };
            let text = self.source[l as usize - 1].replace('\t', "    ");
            self.say(format!("{here}{stop} {l:>4}  {text}").trim_end());
        }
        Ok(())
    }

    fn cmd_info_lanes(&mut self) -> Result<(), String> {
        let w = self.warp;
        let block = self.block()?;
        let (view, peek) = (block.warp_view(w), block.peek(w));
        // Lanes in the same state at the same pc, in the order of their lowest lane.
        let mut groups: Vec<(u32, &str, Option<u32>)> = Vec::new();
        for l in (0..32).filter(|l| view.valid >> l & 1 != 0) {
            let (state, pc) = lane_state(&view, peek, l);
            match groups.iter_mut().find(|g| g.1 == state && g.2 == pc) {
                Some(g) => g.0 |= 1 << l,
                None => groups.push((1 << l, state, pc)),
            }
        }
        self.say(format!("warp {w}: where each lane is"));
        for (lanes, state, pc) in groups {
            let at = pc.map_or(String::new(), |pc| self.place(pc));
            self.say(format!("  {:<18} {state:<34} {at}", describe_lanes(lanes)).trim_end());
        }
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
            let pc = warp_pc(block, w);
            let row = match block.peek(w) {
                Peek::Issue(p) => (pc, "ready".to_string(), lane_chars(p.active, p.executed, gone)),
                Peek::Blocked(r) => (pc, format!("waits {}", wait_text(r)), lane_chars(0, 0, gone)),
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

    /// `pc 3, line 14: @P0 BRA EVEN`, or
    /// `pc 8, line 15 in bump: setp.lt.u32 %p, %r1, 32;` in an inlined device-function call.
    fn place(&self, pc: u32) -> String {
        let function = self.kernel.inlined_call(self.kernel.frame(pc)).map_or(String::new(), |c| format!(" in {}", c.function));
        match self.kernel.line(pc) {
            Some(line) => format!("pc {pc}, line {line}{function}: {}", self.source_text(pc)),
            None => format!("pc {pc}{function}: {}", self.source_text(pc)),
        }
    }

    /// The source line of `pc` without its comment, or the disassembled instruction.
    fn source_text(&self, pc: u32) -> String {
        match (self.kernel.line(pc).and_then(|l| self.line_text(l)), self.kernel.code.get(pc as usize)) {
            (Some(text), _) if !text.is_empty() => text,
            (_, Some(inst)) => simt_isa::format_instruction(inst, &simt_isa::Symbols::of(self.kernel)),
            (_, None) => "(the exit)".into(),
        }
    }

    /// Source line `line` without its comment, its spaces evened out.
    fn line_text(&self, line: u32) -> Option<String> {
        let text = self.source.get((line as usize).checked_sub(1)?)?;
        let code = text.split("//").next().unwrap_or("");
        Some(code.split_whitespace().collect::<Vec<_>>().join(" "))
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

/// Where warp `w` is: the pc it issues next, or where it waits; `None` when it has exited.
fn warp_pc(block: &mut BlockSim<'_>, w: usize) -> Option<u32> {
    match block.peek(w) {
        Peek::Issue(p) => Some(p.pc),
        Peek::Blocked(_) => match block.warp_view(w).control {
            ControlView::Stack(e) => e.last().map(|e| e.pc),
            ControlView::Its { groups, .. } => groups.first().map(|g| g.pc),
        },
        Peek::Done => None,
    }
}

/// What lane `l` of a warp does, and at which pc.
fn lane_state(view: &WarpView, peek: Peek, l: u32) -> (&'static str, Option<u32>) {
    let bit = 1u32 << l;
    if view.exited & bit != 0 {
        return ("exited", None);
    }
    if let Peek::Issue(p) = peek
        && p.active & bit != 0
    {
        return (if p.executed & bit != 0 { "issues next" } else { "issues next, guarded off" }, Some(p.pc));
    }
    match &view.control {
        ControlView::Stack(entries) => {
            // The topmost entry holding the lane is where it goes on; only the top one issues.
            let top = entries.len().checked_sub(1);
            let Some((depth, e)) = entries.iter().enumerate().rev().find(|(_, e)| e.mask & bit != 0) else { return ("exited", None) };
            let state = match peek {
                Peek::Blocked(r) if Some(depth) == top => wait_text(r),
                _ => "waits on the reconvergence stack",
            };
            (state, Some(e.pc))
        }
        ControlView::Its { groups, .. } => match groups.iter().find(|g| g.lanes & bit != 0) {
            Some(g) => (group_state(g.state), Some(g.pc)),
            None => ("exited", None),
        },
    }
}

/// What an `its` thread group does.
fn group_state(state: ThreadState) -> &'static str {
    match state {
        ThreadState::Ready => "ready",
        ThreadState::Reconvergence => "waits to reconverge",
        ThreadState::Barrier => "waits at BAR.SYNC",
        ThreadState::Collective => "waits for the warp at a collective",
    }
}

/// `print`'s values per lane: one line per distinct value when there are few, else eight lanes a line.
fn per_lane(values: &[(usize, String)]) -> Vec<String> {
    let mut groups: Vec<(u32, &str)> = Vec::new();
    for (l, v) in values {
        match groups.iter_mut().find(|g| g.1 == v) {
            Some(g) => g.0 |= 1 << l,
            None => groups.push((1 << l, v)),
        }
    }
    if groups.len() <= MAX_GROUPS {
        return groups.into_iter().map(|(lanes, v)| format!("  {}: {v}", describe_lanes(lanes))).collect();
    }
    values
        .chunks(8)
        .map(|row| {
            let lanes = row.iter().fold(0u32, |m, (l, _)| m | 1 << l);
            format!("  {}: {}", describe_lanes(lanes), row.iter().map(|(_, v)| v.as_str()).collect::<Vec<_>>().join(" "))
        })
        .collect()
}

/// `print/x`: integers as their 32-bit (or, when wider, 64-bit) two's complement, floats as their bits.
fn hex(v: Element) -> String {
    match v {
        Element::Int(v) if i32::try_from(v).is_ok() => format!("{:#x}", v as u32),
        Element::Int(v) => format!("{v:#x}"),
        Element::U64(v) => format!("{v:#x}"),
        Element::F32(v) => format!("{:#x}", v.to_bits()),
        Element::F64(v) => format!("{:#x}", v.to_bits()),
    }
}

/// `print/f`: an integer's low 32 bits read as an f32 (a register holding a float).
fn as_float(v: Element) -> String {
    match v {
        Element::Int(v) => simt_isa::disasm::format_f32(v as u32),
        v => v.to_string(),
    }
}

/// The count argument of `step` and `next`: 1 without one.
fn count(args: &[&str], command: &str) -> Result<u64, String> {
    match args {
        [] => Ok(1),
        [n] => n.parse::<u64>().ok().filter(|&n| n >= 1).ok_or_else(|| format!("`{n}` is not a number of steps (a whole number from 1)")),
        _ => Err(format!("write `{command}` or `{command} N`")),
    }
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
    fn lane_lists_name_runs() {
        assert_eq!(describe_lanes(0), "none");
        assert_eq!(describe_lanes(0b1011), "lanes 0-1, 3");
        assert_eq!(describe_lanes(u32::MAX), "lanes 0-31");
    }

    #[test]
    fn values_group_by_lane_until_there_are_many() {
        let same: Vec<(usize, String)> = (0..32).map(|l| (l, if l < 16 { "7" } else { "9" }.to_string())).collect();
        assert_eq!(per_lane(&same), ["  lanes 0-15: 7", "  lanes 16-31: 9"]);
        let all: Vec<(usize, String)> = (0..12).map(|l| (l, l.to_string())).collect();
        assert_eq!(per_lane(&all), ["  lanes 0-7: 0 1 2 3 4 5 6 7", "  lanes 8-11: 8 9 10 11"]);
        assert_eq!(hex(Element::Int(-1)), "0xffffffff");
        assert_eq!(as_float(Element::Int(0x3fc0_0000)), "1.5");
    }
}
