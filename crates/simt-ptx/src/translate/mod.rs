//! The PTX front end, second half: a parsed module becomes simt kernels.
//!
//! Each `.entry` becomes one [`Kernel`] built through [`KernelBuilder`], so layouts,
//! labels and reconvergence points come from the same code as for `.s` files. Every
//! simt instruction keeps the PTX line it came from, so faults, traces and the
//! debugger point at the PTX. The mapping (docs/ptx.md):
//!
//! - PTX registers are virtual and unbounded; simt has R0-R254 and P0-P6. Liveness over
//!   the PTX control-flow graph gives an interference graph, coloured greedily in program
//!   order (`registers.rs`): 32-bit and narrower values into one register (16- and 8-bit
//!   values kept zero-extended), 64-bit values into an even-aligned pair (low word first),
//!   predicates into P0-P6. What finds no colour spills: predicates to registers, registers
//!   to LOCAL memory.
//! - A `.u64` parameter whose value reaches an address is a pointer (`pointers.rs`): a
//!   simt `.raw.T` parameter, `T` the type of the first access through it; any other is a
//!   `.u64`, which takes a buffer as well as a number. A 64-bit register used as an address
//!   is a 64-bit (`.E`) access, a generic one resolved by window as it runs (`memory.rs`).
//! - One PTX instruction becomes one or a few simt instructions: `operation` below
//!   dispatches, and the families that take more than a line live beside it (`arith.rs`,
//!   `convert.rs`, `memory.rs`, `collective.rs`).
//! - Anything else is refused with a diagnostic naming the instruction: never a
//!   silent mistranslation.

// Keys are short names from the source: FxHash beats SipHash several-fold here.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use simt_isa as isa;
use simt_isa::{Form, Instruction, Kernel, Module, Opcode, RZ, Src, mods};
use simt_kernel::KernelBuilder;

use crate::ast::{self, Address, Immediate, OperandKind, Span, Statement};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::ops::{self as px, Op, StateSpace, Type};

mod arith;
mod collective;
mod convert;
mod halves;
mod literals;
mod memory;
mod pointers;
mod predicates;
mod registers;
mod schedule;
mod tcgen05;
mod tma;
mod wide;
mod wmma;

use pointers::{mentioned_names, pointer_types};

/// Translates every `.entry` of `source` (parsed first) into a simt module.
///
/// `target` (`--arch`) overrides the module's `.target`.
///
/// # Errors
/// Every problem found, parse errors and untranslatable instructions alike; render
/// them with [`Diagnostics::render`].
pub fn translate(file_name: &str, source: &str, target: Option<isa::Target>) -> std::result::Result<Module, Diagnostics> {
    let parsed = crate::parse(source);
    if !parsed.diagnostics.is_empty() {
        return Err(parsed.diagnostics);
    }
    let module = &parsed.module;
    let lines = LineIndex::new(source);
    let mut diagnostics = Diagnostics::default();
    let named = module_target(module, &mut diagnostics);
    let older = named.and_then(|n| n.older);
    let target = target.or(named.map(|n| n.simt));
    // A second definition of a kernel or function (ptxas refuses one) would give two kernels
    // of one name, or calls that reach only the first body.
    let mut defined: HashMap<&str, Span> = HashMap::default();
    for f in module.functions().filter(|f| f.body.is_some()) {
        if let Some(first) = defined.insert(f.name.value, f.name.span) {
            diagnostics.push(Diagnostic {
                span: f.name.span,
                message: format!("`{}` is defined a second time here: a module defines each kernel and function once", f.name.value),
                notes: vec![format!("first defined on line {}", lines.line(first.start))],
            });
        }
    }
    let mut kernels = Vec::new();
    for entry in module.entries() {
        match translate_entry(module, entry, &lines, target, older) {
            Ok(kernel) => kernels.push(kernel),
            Err(found) => found.into_iter().for_each(|d| diagnostics.push(d)),
        }
    }
    if kernels.is_empty() && diagnostics.is_empty() {
        diagnostics.push(Diagnostic {
            span: Span::new(0, 0),
            message: "the module has no `.entry` kernel".into(),
            notes: vec!["a kernel is a function declared `.visible .entry` (CUDA `__global__`)".into()],
        });
    }
    diagnostics.finish();
    if !diagnostics.is_empty() {
        return Err(diagnostics);
    }
    Ok(Module { source_name: file_name.to_string(), source: Some(source.to_string()), kernels })
}

/// The oldest `.target` accepted: Kepler's `sm_30`. Kepler, Maxwell and Pascal kernels (what
/// GPU Ocelot's users, tinygrad's mock driver among them, emit) run with the semantics of
/// simt's oldest target.
const OLDEST_SM: u32 = 30;

/// The generation of an `sm_NN` older than simt's targets.
fn older_generation(number: u32) -> &'static str {
    match number {
        ..50 => "Kepler",
        50..60 => "Maxwell",
        _ => "Pascal",
    }
}

/// What `.target sm_NN` selects.
#[derive(Clone, Copy, Debug)]
struct NamedTarget {
    /// The nearest simt target at or below it, or simt's oldest for an older one.
    simt: isa::Target,
    /// The number NN when it is older than every simt target: forms that target lacks are refused.
    older: Option<u32>,
}

/// The simt target named by `.target sm_NN`.
fn module_target(module: &ast::Module, diagnostics: &mut Diagnostics) -> Option<NamedTarget> {
    let target = module.target.as_ref()?;
    let name = target.value.iter().find(|t| t.starts_with("sm_"))?;
    let number: u32 = name.trim_start_matches("sm_").trim_end_matches(|c: char| c.is_ascii_alphabetic()).parse().ok()?;
    let number_of = |t: &isa::Target| t.name()[3..].parse::<u32>().unwrap_or(u32::MAX);
    if let Some(&simt) = isa::Target::ALL.iter().rev().find(|t| number_of(t) <= number) {
        return Some(NamedTarget { simt, older: None });
    }
    if number >= OLDEST_SM {
        return Some(NamedTarget { simt: isa::Target::ALL[0], older: Some(number) });
    }
    diagnostics.push(Diagnostic {
        span: target.span,
        message: format!("`.target {name}` is older than every target simt runs"),
        notes: vec![format!(
            "simt models {} and runs sm_{OLDEST_SM} and later with the semantics of the oldest",
            isa::Target::ALL.iter().map(|t| t.name()).collect::<Vec<_>>().join(", ")
        )],
    });
    None
}

/// 1-based line numbers of byte offsets.
struct LineIndex {
    starts: Vec<u32>,
}

impl LineIndex {
    fn new(source: &str) -> LineIndex {
        let starts = std::iter::once(0).chain(memchr::memchr_iter(b'\n', source.as_bytes()).map(|i| i as u32 + 1)).collect();
        LineIndex { starts }
    }

    fn line(&self, offset: u32) -> u32 {
        self.starts.partition_point(|&s| s <= offset) as u32
    }
}

/// PTX label names in the spelling `.s` accepts ([`isa::is_identifier`]), so `simt ptx`
/// output assembles: the `.` of inlined copies' names becomes `_`, and a name that then
/// meets another gets `_N`. Every other label keeps its PTX name (clang's `$L__BB0_2`).
#[derive(Debug, Default)]
struct LabelNames {
    renamed: HashMap<String, String>,
}

impl LabelNames {
    fn new(items: &[Item<'_, '_>]) -> LabelNames {
        let labels = || items.iter().filter_map(|i| if let Item::Label(n, _) = i { Some(*n) } else { None });
        let mut taken: std::collections::HashSet<String> = labels().filter(|n| isa::is_identifier(n)).map(str::to_string).collect();
        let mut names = LabelNames::default();
        for name in labels().filter(|n| !isa::is_identifier(n)) {
            let base: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '$' { c } else { '_' }).collect();
            let base = if base.starts_with(|c: char| c.is_ascii_digit()) { format!("L{base}") } else { base };
            let mut spelled = base.clone();
            for n in 1.. {
                if !taken.contains(&spelled) {
                    break;
                }
                spelled = format!("{base}_{n}");
            }
            taken.insert(spelled.clone());
            names.renamed.insert(name.to_string(), spelled);
        }
        names
    }

    fn name<'s>(&'s self, label: &'s str) -> &'s str {
        self.renamed.get(label).map_or(label, String::as_str)
    }
}

/// What a PTX register holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Pred,
    /// 8 to 32 bits, in one register.
    Word {
        bits: u32,
    },
    /// 64 bits, in an even-aligned pair.
    Pair,
}

/// What colouring needs: the registers, what interferes, what is copied into what, and
/// where each is mentioned.
#[derive(Clone, Copy)]
struct Graph<'g, 'a> {
    names_of: &'g [&'a str],
    classes_of: &'g [Class],
    /// Row `id` (`words` long) is the set of registers `id` interferes with.
    interferes: &'g [u64],
    words: usize,
    partners: &'g [Vec<usize>],
    /// Each MMA fragment or vector operand: the alignment of its first register, and its
    /// registers with their offsets in it, in registers (see [`Entry::colour`]); and each
    /// register's fragments with its offset.
    fragments: &'g [(usize, Vec<(usize, usize)>)],
    fragment_of: &'g [Vec<(usize, usize)>],
    /// The reload registers the spilled registers need (0 where none is).
    reload_regs: u32,
    /// What spilling each register would cost for what it frees: its mentions, weighed by the
    /// loops around them, over how many registers it interferes with (Chaitin's measure).
    spill_costs: &'g [f64],
}

/// The registers one instruction writes and reads, as ranges of a shared list of ids.
struct Mentions {
    item: usize,
    defs: std::ops::Range<usize>,
    uses: std::ops::Range<usize>,
    guarded: bool,
    /// A plain copy of its one use into its one def.
    copy: bool,
    /// A move of its one use into its one def, the value changed or not (`mov`, any
    /// `cvta`): the two best share a register, where they may, so that the move vanishes.
    moves: bool,
    /// Translated as one simt instruction, which reads its sources before it writes: its
    /// destinations need not keep clear of its sources' registers.
    reads_first: bool,
}

/// The declared registers: single names, and ranges (`%r<100>` declares `%r0` .. `%r99`)
/// by prefix, so a declaration costs nothing per register.
#[derive(Default)]
struct Classes<'a> {
    names: HashMap<&'a str, Class>,
    ranges: HashMap<&'a str, (u32, Class)>,
}

impl<'a> Classes<'a> {
    /// The registers `decls` declare, with a diagnostic in `errors` for each declaration of a
    /// kind simt has no register for.
    fn declared(decls: &[&Statement<'a>], errors: &mut Vec<Diagnostic>) -> Classes<'a> {
        let mut classes = Classes::default();
        for statement in decls {
            let Statement::Registers(r) = statement else { continue };
            if r.vector.is_some() {
                errors.push(Diagnostic::new(r.span, "vector registers (`.reg .v2`) are not supported; declare scalar registers"));
                continue;
            }
            let class = match r.ty.bits() {
                1 => Class::Pred,
                64 => Class::Pair,
                bits @ (8 | 16 | 32) => Class::Word { bits },
                _ => {
                    errors.push(Diagnostic::new(r.span, format!("`.reg {}` registers are not supported", r.ty)));
                    continue;
                }
            };
            for name in &r.names {
                match name.range {
                    // `%r<4>` declares %r0 .. %r3; the names are made once, here.
                    Some(n) => {
                        classes.ranges.insert(name.name, (n, class));
                    }
                    None => {
                        classes.names.insert(name.name, class);
                    }
                }
            }
        }
        classes
    }

    fn get(&self, name: &str) -> Option<Class> {
        if let Some(&class) = self.names.get(name) {
            return Some(class);
        }
        let (prefix, index) = ast::range_member(name)?;
        let &(count, class) = self.ranges.get(prefix)?;
        (index < count).then_some(class)
    }
}

/// An operation on halves ([`Entry::half_arith`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HalfOp {
    Add,
    Sub,
    Mul,
    Min,
    Max,
    /// `min.NaN`, `max.NaN`.
    MinNan,
    MaxNan,
    Fma,
}

/// Whether `op`'s translation compares into [`SCRATCH_PRED`]: `set`, and an f64 reciprocal or
/// square root that flushes subnormals.
fn needs_scratch_pred(op: Op) -> bool {
    match op {
        Op::Set(_) | Op::Brx(_) => true,
        Op::Rcp(f) | Op::Sqrt(f) | Op::Rsqrt(f) => f.ty == Type::F64 && f.ftz,
        _ => false,
    }
}

/// Whether `op` reads or writes PTX's carry flag.
fn writes_or_reads_carry(op: Op) -> bool {
    match op {
        Op::Add(a) | Op::Sub(a) => a.cc,
        Op::Mad(m) => m.cc,
        Op::AddC(_) | Op::SubC(_) | Op::MadC(_) => true,
        _ => false,
    }
}

/// f16, bf16 or a pair of either.
fn is_half(ty: Type) -> bool {
    matches!(ty, Type::F16 | Type::Bf16 | Type::F16x2 | Type::Bf16x2)
}

/// simt's formats for a half type or a pair of halves (f16 unless it is bf16): one element's
/// `CvtType` and the pair's `PackType`.
fn half_formats(ty: Type) -> (isa::CvtType, isa::PackType) {
    if matches!(ty, Type::Bf16 | Type::Bf16x2) { (isa::CvtType::BF16, isa::PackType::Bf16x2) } else { (isa::CvtType::F16, isa::PackType::F16x2) }
}

/// Where a PTX register lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Loc {
    Pred(u8),
    Reg(u8),
    Pair(u8),
    /// A predicate that found no P register: it lives in this register as 0 or 1 and is
    /// moved into a scratch predicate (P5, P6) around each instruction that uses it.
    SpilledPred(u8),
    /// A register or pair that found no room, as ptxas spills, or a spilled predicate that
    /// found no register (`pred`, its 0 or 1): it lives in LOCAL memory at this byte offset
    /// and is loaded into a reload register before each instruction that mentions it (a
    /// predicate's standing as a spilled predicate's register), and stored back after each
    /// that writes it.
    Spilled {
        offset: u32,
        pair: bool,
        pred: bool,
    },
}

/// The most registers kept back, when a kernel spills, to hold the spilled values one
/// instruction mentions (an `mma` names up to 16 registers; vector loads and stores 4 pairs):
/// a kernel keeps back what its instruction naming the most spilled registers needs.
const RELOAD_REGS: u32 = 24;

/// The predicates left for spilled ones to pass through.
const SCRATCH_PREDS: [u8; 2] = [5, 6];

/// The predicate the translations [`needs_scratch_pred`] names compare into, kept back from
/// allocation in kernels that have one (an instruction reading a spilled predicate, as `set`
/// may, passes it through P5).
const SCRATCH_PRED: u8 = SCRATCH_PREDS[1];

/// A name that stands for an address: a variable or a kernel parameter.
#[derive(Clone, Copy, Debug)]
struct Symbol {
    space: StateSpace,
    address: u32,
    /// For a module-scope `.global`/`.const` variable, the register holding its buffer's
    /// address (loaded from its parameter, `address`, when the kernel starts).
    base: Option<u8>,
}

impl Symbol {
    /// The variable's address as a source: its register, or the literal address.
    fn value(self) -> Src {
        match self.base {
            Some(base) => Src::reg(base),
            None => Src::imm(self.address),
        }
    }
}

/// One statement of a kernel body that matters to the translation.
#[derive(Clone, Copy)]
enum Item<'t, 'a> {
    Label(&'a str, Span),
    Inst(&'t ast::Instruction<'a>),
}

/// How often each name is mentioned by `items`' instructions, as an operand or a guard.
fn mention_counts<'a>(items: &[Item<'_, 'a>]) -> HashMap<&'a str, u32> {
    let mut mentions = HashMap::default();
    let mut names = Vec::new();
    for item in items {
        let Item::Inst(inst) = item else { continue };
        names.clear();
        inst.operands.iter().for_each(|o| o.names(&mut names));
        names.extend(inst.guard.map(|g| g.predicate));
        names.iter().for_each(|&name| *mentions.entry(name).or_default() += 1);
    }
    mentions
}

/// The names `inst` may write, appended to `names`: its first operand where it writes that,
/// and, erring toward writes, every name inside any operand but a plain or negated name or
/// a literal (vectors, pairs and addresses, which some instructions write through).
fn names_written<'a>(inst: &ast::Instruction<'a>, names: &mut Vec<&'a str>) {
    let writes = inst.op.writes_first_operand();
    for (k, o) in inst.operands.iter().enumerate() {
        match o.kind {
            OperandKind::Name(n) if k == 0 && writes => names.push(n),
            OperandKind::Name(_) | OperandKind::Not(_) | OperandKind::Immediate(_) => {}
            _ => o.names(names),
        }
    }
}

fn flatten<'t, 'a>(block: &'t ast::Block<'a>, items: &mut Vec<Item<'t, 'a>>, decls: &mut Vec<&'t Statement<'a>>) {
    for statement in block.flat() {
        match statement {
            Statement::Label(l) => items.push(Item::Label(l.value, l.span)),
            Statement::Instruction(i) => items.push(Item::Inst(i)),
            Statement::Registers(_) | Statement::Variable(_) | Statement::BranchTargets { .. } => decls.push(statement),
            Statement::Block(_) | Statement::Pragma(_) | Statement::Loc { .. } | Statement::Prototype { .. } => {}
        }
    }
}

fn with_note(mut d: Diagnostic, note: impl Into<String>) -> Diagnostic {
    d.notes.push(note.into());
    d
}

type Result<T> = std::result::Result<T, Diagnostic>;

/// The scratch registers the translation of one instruction may use: a 4-register block
/// for vector loads and stores, its upper pair also for a 64-bit literal.
const SCRATCH: u32 = 4;
/// With `mma` in the kernel: its A (4 registers), B (2, then 2 unused) and C/D (4) fragments.
const MMA_SCRATCH: u32 = 12;
/// With `wmma`: `MMA.M16N16K16`'s A (4), B (4) and C/D (8) fragments; its loads and stores
/// use fewer.
const WMMA_SCRATCH: u32 = 16;
/// With a call of `__assertfail` (`inline.rs`): its three pointers and its line.
const ASSERT_SCRATCH: u32 = 8;

struct Entry<'t, 'a> {
    b: KernelBuilder,
    lines: &'t LineIndex,
    classes: Classes<'a>,
    locs: HashMap<&'a str, Loc>,
    /// Whether any instruction reads or writes PTX's carry flag.
    uses_carry: bool,
    /// The register holding the carry flag (`CC.CF`, 0 or 1), where the kernel uses one.
    carry: Option<u8>,
    /// LOCAL bytes per thread: the kernel's `.local` variables, then its spilled registers.
    local_size: u32,
    /// The first reload register and how many there are, where the kernel spills.
    reload: Option<(u8, u32)>,
    symbols: HashMap<&'a str, Symbol>,
    /// Pointer parameters: the simt parameter's element type, by PTX name.
    pointers: HashMap<&'a str, isa::ElemType>,
    /// The kernel's instructions in order, for the inferences below.
    insts: Vec<&'t ast::Instruction<'a>>,
    /// What each register's address points into, for generic accesses; inferred at the
    /// first one (-O3 code often has none).
    spaces: std::cell::OnceCell<HashMap<&'a str, crate::spaces::Spaces>>,
    /// Label names as `.s` spells them.
    labels: LabelNames,
    /// Each `.branchtargets` list's labels, by the list's name.
    jump_tables: HashMap<&'a str, Vec<&'a str>>,
    /// Spilled predicates standing in scratch predicates for the current instruction.
    aliases: Vec<(&'a str, u8)>,
    /// Registers that hold one constant everywhere; inferred at the first member mask in a
    /// register (-O0 code).
    constants: std::cell::OnceCell<HashMap<&'a str, i64>>,
    /// Every name the kernel may read; inferred at the first `d|p` of a `shfl`.
    read: std::cell::OnceCell<HashSet<&'a str>>,
    /// What an earlier translation learned: literal registers, items that became one instruction.
    hints: &'t Hints<'a>,
    /// The reads that took one: (item, operand span) and the literal.
    taken: std::cell::RefCell<HashMap<(usize, Span), Immediate>>,
    /// The items computed on spilled predicates' registers (`spilled_logic`).
    on_spilled_predicates: HashSet<usize>,
    /// The item being translated.
    item: usize,
    scratch: u8,
    /// How many scratch registers follow `scratch`.
    scratch_regs: u32,
    /// Whether the kernel needs [`SCRATCH_PRED`] (see [`needs_scratch_pred`]).
    needs_scratch_pred: bool,
    line: u32,
    guard: isa::Guard,
    span: Span,
    /// The PTX's `.target` (or `--arch`): every instruction must exist there.
    target: Option<isa::Target>,
    /// The `.target`'s number when it is older than every simt target (sm_35 to sm_62).
    older: Option<u32>,
    /// Whether the current instruction's 64-bit literal already fills the scratch pair.
    wide_literal_taken: bool,
    /// Module variables and by-value parameters, whose buffer addresses a register holds:
    /// each with its parameter's type and, for a module variable, its `.arg` default.
    module_vars: Vec<(&'a str, isa::ParamType, Option<isa::ArgInit>)>,
    /// The PTX instruction each pushed instruction came from, by pc.
    spans: Vec<Span>,
    /// The inlined call ([`isa::Frames`]) the current instruction belongs to, and each pushed
    /// instruction's, by pc.
    frame: u32,
    frames: Vec<u32>,
}

/// Translates kernel `f`, its device-function calls inlined first.
fn translate_entry(
    module: &ast::Module<'_>,
    f: &ast::Function<'_>,
    lines: &LineIndex,
    target: Option<isa::Target>,
    older: Option<u32>,
) -> std::result::Result<Kernel, Vec<Diagnostic>> {
    let Some(body) = &f.body else { return Err(vec![Diagnostic::new(f.name.span, "an `.entry` without a body cannot run")]) };
    let plan = crate::inline::plan(module, f).map_err(|e| vec![e])?;
    let source = Source { module, f, lines, arch: (target, older) };
    if plan.is_trivial() {
        let (mut items, mut decls) = (Vec::new(), Vec::new());
        flatten(body, &mut items, &mut decls);
        return translate_items(source, items, decls, Inlined::default());
    }
    let mut expanded = plan.expand(|offset| lines.line(offset));
    let calls = std::mem::take(&mut expanded.calls);
    let (items, item_frames): (Vec<_>, _) = expanded
        .items
        .iter()
        .map(|item| match item {
            crate::inline::Owned::Label(name, span) => (Item::Label(name, *span), 0),
            crate::inline::Owned::Inst(inst, frame) => (Item::Inst(inst), *frame),
        })
        .unzip();
    let decls = expanded.decls.iter().collect();
    let inlined = Inlined { bindings: &expanded.bindings, item_frames, calls };
    translate_items(source, items, decls, inlined)
}

/// The kernel a translation is of, where it is written, and the target.
#[derive(Clone, Copy)]
struct Source<'t, 'a> {
    module: &'t ast::Module<'a>,
    f: &'t ast::Function<'a>,
    lines: &'t LineIndex,
    /// The `.target` (or `--arch`) as a simt target, and its number when older than every one.
    arch: (Option<isa::Target>, Option<u32>),
}

/// A kernel as translated.
struct Translation {
    kernel: Kernel,
    /// Whether its registers spilled to LOCAL memory, or its predicates to registers.
    spilled: bool,
    /// The reads of literal registers that took their literal (`literals.rs`).
    taken: HashMap<(usize, Span), Immediate>,
    /// The simt instructions each item became.
    emitted: Vec<u32>,
    /// The items computed on spilled predicates' registers: one instruction only because
    /// those predicates spilled, which another translation may not repeat.
    on_spilled_predicates: HashSet<usize>,
}

/// What an earlier translation of a kernel tells the next.
#[derive(Default)]
struct Hints<'a> {
    /// Literal registers whose reads may take their literal (`literals.rs`).
    literals: HashMap<&'a str, literals::Literal>,
    /// The items that became one simt instruction.
    reads_first: HashSet<usize>,
}

/// Translates `items`, after the passes over the PTX (`halves.rs`'s whole words, `wide.rs`'s
/// index products), in PTX's order ([`translate_twice`]); where the kernel spills registers or
/// predicates, also in the order `schedule.rs` gives each basic block for fewer registers
/// live, and keeps the shorter.
fn translate_items<'t, 'a>(
    source: Source<'t, 'a>,
    items: Vec<Item<'t, 'a>>,
    decls: Vec<&'t Statement<'a>>,
    inlined: Inlined<'_, 'a>,
) -> std::result::Result<Kernel, Vec<Diagnostic>> {
    // The passes over the PTX, by position: `wide.rs`'s index products (each fused conversion
    // left out), `halves.rs`'s whole words, pairs unpacked at once, pairs of loaded words and
    // narrowings that keep every bit, `tcgen05.rs`'s stores of zero and `predicates.rs`'s
    // comparisons fused into their logic.
    let mut passes = wide::fused_index_products(&items);
    let others = [
        halves::whole_words(&items),
        halves::pairs_unpacked_at_once(&items),
        halves::pairs_of_loaded_words(&items),
        halves::narrowings_of_small_words(&items),
        tcgen05::stores_of_zero(&items),
        predicates::fused_comparisons(&items),
    ];
    for (at, edit) in others.into_iter().flatten() {
        if !matches!(passes.get(&at), Some(None)) {
            passes.insert(at, edit);
        }
    }
    let (items, item_frames, _) = edit(items, inlined.item_frames, &passes);
    let inlined = Inlined { item_frames, ..inlined };
    let Translation { kernel, spilled, .. } = translate_twice(source, &items, &decls, &inlined)?;
    if !spilled {
        return Ok(kernel);
    }
    let Some(order) = schedule::for_pressure(&items, &Classes::declared(&decls, &mut Vec::new())) else { return Ok(kernel) };
    let items: Vec<_> = order.iter().map(|&at| items[at]).collect();
    let item_frames = if inlined.item_frames.is_empty() { Vec::new() } else { order.iter().map(|&at| inlined.item_frames[at]).collect() };
    let inlined = Inlined { item_frames, ..inlined };
    match translate_twice(source, &items, &decls, &inlined) {
        Ok(scheduled) if scheduled.kernel.code.len() < kernel.code.len() => Ok(scheduled.kernel),
        _ => Ok(kernel),
    }
}

/// Translates `items` twice. First with each read of a literal register (`literals.rs`)
/// that can take its literal taking it; then from the PTX with those reads made literals and
/// the moves no longer read left out, and with each instruction that became one simt
/// instruction free to write a register one of its sources dies in (tinygrad's `add %acc2,
/// %acc, %x; mov %acc, %acc2` then needs no move). The second is kept unless it came out
/// longer or such an instruction became more than one (a copy may become none).
fn translate_twice<'t, 'a>(
    source: Source<'t, 'a>,
    items: &[Item<'t, 'a>],
    decls: &[&'t Statement<'a>],
    inlined: &Inlined<'_, 'a>,
) -> std::result::Result<Translation, Vec<Diagnostic>> {
    let none = Hints::default();
    let literals = Hints { literals: literals::literal_registers(items), ..Hints::default() };
    let first = match Entry::translate(source, items, decls.to_vec(), inlined, &literals) {
        Ok(first) => first,
        // What the kernel says without literals read in is the diagnostic to show.
        Err(_) if !literals.literals.is_empty() => Entry::translate(source, items, decls.to_vec(), inlined, &none)?,
        Err(e) => return Err(e),
    };
    let edits = literals::substituted(items, &literals.literals, &first.taken);
    let (second_items, item_frames, places) = edit(items.to_vec(), inlined.item_frames.clone(), &edits);
    // A copy (an instruction the literals made one, too) has its own rule (`registers.rs`).
    let copy = |at: usize| matches!(second_items[at], Item::Inst(inst) if matches!(inst.op, Op::Mov(_)));
    let reads_first: HashSet<usize> = first
        .emitted
        .iter()
        .enumerate()
        .filter(|&(at, &n)| n == 1 && !first.on_spilled_predicates.contains(&at))
        .filter_map(|(at, _)| places[at])
        .filter(|&at| !copy(at))
        .collect();
    let second_inlined = Inlined { item_frames, bindings: inlined.bindings, calls: inlined.calls.clone() };
    let hints = Hints { reads_first, ..Hints::default() };
    match Entry::translate(source, &second_items, decls.to_vec(), &second_inlined, &hints) {
        Ok(second) if second.kernel.code.len() <= first.kernel.code.len() && hints.reads_first.iter().all(|&at| second.emitted[at] <= 1) => Ok(second),
        _ => Ok(first),
    }
}

/// `items` with `edits` made: the instruction an edit has for a position in its place, a
/// position it has none for left out, and each item's frame in `frames` (empty without inlined
/// calls) kept beside it; and where each item of `items` stands in the result.
fn edit<'t, 'a>(
    items: Vec<Item<'t, 'a>>,
    frames: Vec<u32>,
    edits: &'t HashMap<usize, Option<ast::Instruction<'a>>>,
) -> (Vec<Item<'t, 'a>>, Vec<u32>, Vec<Option<usize>>) {
    let kept = |at: &usize| !matches!(edits.get(at), Some(None));
    let frames = frames.into_iter().enumerate().filter(|(at, _)| kept(at)).map(|(_, frame)| frame).collect();
    let places = (0..items.len())
        .scan(0, |next, at| {
            let place = kept(&at).then_some(*next);
            *next += usize::from(place.is_some());
            Some(place)
        })
        .collect();
    let items = items
        .into_iter()
        .enumerate()
        .filter(|(at, _)| kept(at))
        .map(|(at, item)| match edits.get(&at) {
            Some(Some(inst)) => Item::Inst(inst),
            _ => item,
        })
        .collect();
    (items, frames, places)
}

/// What inlining a kernel's calls leaves its translation (nothing for a kernel without calls).
#[derive(Default)]
struct Inlined<'b, 'a> {
    /// (a copy's formal parameter or result, the caller variable it stands for).
    bindings: &'b [(&'a str, &'a str)],
    /// The frame ([`isa::Frames`]) of each item.
    item_frames: Vec<u32>,
    /// The calls, frame 1 first.
    calls: Vec<isa::InlinedCall>,
}

impl<'t, 'a> Entry<'t, 'a> {
    /// The kernel, with each read of a literal register of `hints` that can take its literal
    /// so, and the items `hints` says became one instruction free to share registers.
    fn translate(
        Source { module, f, lines, arch: (target, older) }: Source<'t, 'a>,
        items: &[Item<'t, 'a>],
        decls: Vec<&'t Statement<'a>>,
        inlined: &Inlined<'_, 'a>,
        hints: &'t Hints<'a>,
    ) -> std::result::Result<Translation, Vec<Diagnostic>> {
        let mut entry = Entry {
            b: KernelBuilder::new(f.name.value),
            lines,
            classes: Classes::default(),
            locs: HashMap::default(),
            symbols: HashMap::default(),
            pointers: HashMap::default(),
            insts: Vec::new(),
            spaces: std::cell::OnceCell::new(),
            aliases: Vec::new(),
            labels: LabelNames::default(),
            jump_tables: HashMap::default(),
            constants: std::cell::OnceCell::new(),
            read: std::cell::OnceCell::new(),
            hints,
            taken: std::cell::RefCell::default(),
            on_spilled_predicates: HashSet::default(),
            item: 0,
            scratch: 0,
            // MMA fragments need more room.
            scratch_regs: items
                .iter()
                .map(|i| match i {
                    Item::Inst(ast::Instruction { op: Op::Wmma(_), .. }) => WMMA_SCRATCH,
                    Item::Inst(ast::Instruction {
                        op: Op::Mma(_) | Op::CpAsyncBulkTensor { .. } | Op::TensormapCopy | Op::Tcgen05(px::Tcgen05::MmaScaled(_)),
                        ..
                    }) => MMA_SCRATCH,
                    Item::Inst(i @ ast::Instruction { op: Op::Call(_), .. }) if i.callee() == Some(crate::inline::ASSERTFAIL) => ASSERT_SCRATCH,
                    _ => SCRATCH,
                })
                .max()
                .unwrap_or(SCRATCH),
            needs_scratch_pred: items.iter().any(|i| matches!(i, Item::Inst(i) if needs_scratch_pred(i.op))),
            uses_carry: items.iter().any(|i| matches!(i, Item::Inst(i) if writes_or_reads_carry(i.op))),
            line: 0,
            guard: isa::Guard::ALWAYS,
            span: f.name.span,
            spans: Vec::new(),
            frame: 0,
            frames: Vec::new(),
            target,
            older,
            local_size: 0,
            reload: None,
            carry: None,
            wide_literal_taken: false,
            module_vars: Vec::new(),
        };
        if let Some(target) = target {
            entry.b.target(target);
        }
        let mut errors = Vec::new();
        entry.declare(module, f, &decls, items, inlined.bindings, &mut errors);
        if let Err(e) = entry.allocate(items) {
            errors.push(e);
        }
        entry.insts = items.iter().filter_map(|i| if let Item::Inst(i) = i { Some(*i) } else { None }).collect();
        if !errors.is_empty() {
            return Err(errors);
        }
        entry.labels = LabelNames::new(items);
        if let Err(e) = entry.load_module_variables() {
            errors.push(e);
        }
        let mut emitted = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            entry.item = i;
            entry.frame = inlined.item_frames.get(i).copied().unwrap_or(0);
            let before = entry.spans.len();
            let result = match *item {
                Item::Label(name, span) => {
                    let label = entry.b.label(entry.labels.name(name));
                    entry.b.place(label).map_err(|e| Diagnostic::new(span, e.to_string()))
                }
                Item::Inst(inst) => entry.instruction(inst),
            };
            if let Err(e) = result {
                errors.push(e);
            }
            emitted.push((entry.spans.len() - before) as u32);
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        // The builder validates every instruction; a broken one is the translation's fault,
        // shown at the PTX instruction it came from.
        if !inlined.calls.is_empty() {
            entry.b.frames(isa::Frames { calls: inlined.calls.clone(), of_pc: std::mem::take(&mut entry.frames) });
        }
        let spans = std::mem::take(&mut entry.spans);
        let spilled = entry.reload.is_some() || entry.locs.values().any(|loc| matches!(loc, Loc::SpilledPred(_)));
        let taken = entry.taken.take();
        let on_spilled_predicates = std::mem::take(&mut entry.on_spilled_predicates);
        let kernel = entry.b.finish().map_err(|found| {
            found
                .into_iter()
                .map(|e| match &e {
                    simt_kernel::BuildError::Invalid(k) if let Some(&span) = k.pc.and_then(|pc| spans.get(pc as usize)) => {
                        Diagnostic::new(span, format!("internal error: the translation of this instruction is invalid: {}; please report it", k.message))
                    }
                    _ => Diagnostic::new(f.name.span, format!("kernel `{}`: {e}", f.name.value)),
                })
                .collect::<Vec<_>>()
        })?;
        Ok(Translation { kernel, spilled, taken, emitted, on_spilled_predicates })
    }

    /// Registers, variables and parameters.
    fn declare(
        &mut self,
        module: &'t ast::Module<'a>,
        f: &'t ast::Function<'a>,
        decls: &[&'t Statement<'a>],
        items: &[Item<'t, 'a>],
        bindings: &[(&'a str, &'a str)],
        errors: &mut Vec<Diagnostic>,
    ) {
        let mut local_size = 0u32;
        let module_vars = module.items.iter().filter_map(|i| match i {
            ast::Item::Variable(v) => Some(v),
            _ => None,
        });
        let body_vars = decls.iter().filter_map(|s| match s {
            Statement::Variable(v) => Some(v),
            _ => None,
        });
        // The names the kernel mentions, gathered only when wanted: for module variables of
        // its own, or 64-bit parameters that are not pointers (which most kernels lack).
        let mentioned = std::cell::OnceCell::new();
        let mentioned = || mentioned.get_or_init(|| mentioned_names(items));
        let module_has_vars = module.items.iter().any(|i| matches!(i, ast::Item::Variable(v) if matches!(v.space, StateSpace::Global | StateSpace::Const)));
        // `.extern .shared` arrays (dynamic shared memory) start where the static ones end,
        // all at the same address: placed after every other variable.
        let mut dynamic: Vec<&ast::Variable<'a>> = Vec::new();
        // One name, one shared, global or constant variable: a second declaration (even one
        // shadowing a module variable in a block) would become a second symbol of the same
        // name in the module. Local and `.param` variables (each call block's `param0`) are
        // places in LOCAL memory, not symbols, and may repeat.
        let mut seen: HashSet<&'a str> = HashSet::default();
        for (var, module_scope) in module_vars.map(|v| (v, true)).chain(body_vars.map(|v| (v, false))) {
            if matches!(var.space, StateSpace::Shared | StateSpace::Global | StateSpace::Const) && !seen.insert(var.name.value) {
                errors.push(Diagnostic::new(
                    var.name.span,
                    format!("`{}` is declared a second time here: simt gives each variable of a kernel one name", var.name.value),
                ));
                continue;
            }
            // A module's shared variable belongs to the kernels that name it, as ptxas
            // allocates it: declaring every one in every kernel would cost kernels times
            // variables (2,000 of each took 1.2 s and 370 MB) and shared memory they never use.
            if module_scope && var.space == StateSpace::Shared && !mentioned().contains(var.name.value) {
                continue;
            }
            if var.space == StateSpace::Shared && var.dims.iter().any(Option::is_none) {
                dynamic.push(var);
                continue;
            }
            let result = match var.space {
                StateSpace::Global | StateSpace::Const if module_has_vars && mentioned().contains(var.name.value) => self.module_variable(var),
                _ => self.variable(var, &mut local_size),
            };
            if let Err(e) = result {
                errors.push(e);
            }
        }
        if let Some(first) = dynamic.first() {
            let align = dynamic.iter().map(|v| v.align.unwrap_or(1)).max().unwrap_or(1);
            match self.b.shared(first.name.value, isa::ElemType::U8, 0, align) {
                Ok(address) => dynamic.iter().for_each(|v| {
                    self.symbols.insert(v.name.value, Symbol { space: StateSpace::Shared, address, base: None });
                }),
                Err(e) => errors.push(Diagnostic::new(first.span, e.to_string())),
            }
        }
        self.b.local(local_size);
        self.local_size = local_size;
        // A copy's formal parameters and results stand for its caller's `.param` variables.
        for &(formal, actual) in bindings {
            if let Some(&symbol) = self.symbols.get(actual) {
                self.symbols.insert(formal, symbol);
            }
        }
        for statement in decls {
            if let Statement::BranchTargets { name, targets } = statement {
                self.jump_tables.insert(name.value, targets.iter().map(|t| t.value).collect());
            }
        }
        self.classes = Classes::declared(decls, errors);
        let symbols = &self.symbols;
        let pointers = pointer_types(f, items, |n| symbols.get(n).map(|s| (s.space, s.address)));
        for p in &f.params {
            // A parameter passed by value as bytes (a struct, a `__grid_constant__` CUtensorMap)
            // lives in a GLOBAL buffer the launch fills: a buffer parameter here, read as a module
            // variable is, through its address in a register (`load_module_variables`).
            if let (Type::B8 | Type::U8 | Type::S8 | Type::B32 | Type::B64, Some(_)) = (p.ty, p.array) {
                let ty = isa::ParamType::Raw(pointers.get(p.name.value).copied().unwrap_or(isa::ElemType::U32));
                let offset = self.b.param(p.name.value, ty);
                self.symbols.insert(p.name.value, Symbol { space: StateSpace::Global, address: offset, base: None });
                self.module_vars.push((p.name.value, ty, None));
                continue;
            }
            let ty = match (p.ty, p.array) {
                (_, Some(_)) => Err("array parameters of this type"),
                (Type::U32 | Type::B32, None) => Ok(isa::ParamType::U32),
                (Type::S32, None) => Ok(isa::ParamType::S32),
                (Type::F32, None) => Ok(isa::ParamType::F32),
                (Type::F64, None) => Ok(isa::ParamType::F64),
                (Type::U64 | Type::S64 | Type::B64, None) => Ok(pointers.get(p.name.value).map_or(isa::ParamType::U64, |&elem| isa::ParamType::Raw(elem))),
                _ => Err("parameters of this type"),
            };
            match ty {
                Ok(ty) => {
                    let offset = self.b.param(p.name.value, ty);
                    self.symbols.insert(p.name.value, Symbol { space: StateSpace::Param, address: offset, base: None });
                    if let Some(elem) = ty.buffer_elem() {
                        self.pointers.insert(p.name.value, elem);
                    }
                    // A parameter the kernel never reads (Triton's trailing global- and
                    // profile-scratch pointers) may be left out of a launch: it is 0.
                    if ty == isa::ParamType::U64 && !mentioned().contains(p.name.value) {
                        self.b.arg(isa::ArgDefault { name: p.name.value.to_string(), init: isa::ArgInit::Scalar(isa::Literal::Int(0)) });
                    }
                }
                Err(what) => errors.push(with_note(
                    Diagnostic::new(p.span, format!("parameter `{}`: {what} are not supported", p.name.value)),
                    "supported: .u32, .s32, .b32, .f32, .f64 scalars and .u64 pointers to global memory",
                )),
            }
        }
        for (name, ty, init) in self.module_vars.clone() {
            // A by-value parameter was declared in its place above.
            let Some(init) = init else { continue };
            if f.params.iter().any(|p| p.name.value == name) {
                errors.push(Diagnostic::new(f.name.span, format!("module variable `{name}` has the name of a parameter of this kernel")));
                continue;
            }
            let offset = self.b.param(name, ty);
            self.b.arg(isa::ArgDefault { name: name.to_string(), init });
            if let Some(symbol) = self.symbols.get_mut(name) {
                symbol.address = offset;
            }
        }
    }

    /// Loads each module variable's buffer address into its register, once, first.
    fn load_module_variables(&mut self) -> Result<()> {
        for i in 0..self.module_vars.len() {
            let Symbol { address, base: Some(base), .. } = self.symbols[self.module_vars[i].0] else { continue };
            let ld = memory::Place::PARAM.ld(isa::VecWidth::Scalar, isa::MemType::U32);
            self.emit(ld, &[dst(base), isa::Operand::Addr { base: RZ, offset: address as i32 }])?;
        }
        Ok(())
    }

    /// A module-scope `.global` or `.const` variable the kernel uses (a `__device__` or
    /// `__constant__` variable, a math library table) becomes a buffer parameter of the same
    /// name whose `.arg` default is the initializer (zeros without one), so each launch
    /// starts from the values the PTX gives. The kernel reads its address from the parameter.
    fn module_variable(&mut self, var: &'t ast::Variable<'a>) -> Result<()> {
        let unsupported = |what: &str| Diagnostic::new(var.span, format!("`{}`: {what} are not supported yet", var.name.value));
        if var.vector.is_some() {
            return Err(unsupported("vector variables"));
        }
        let (elem, words) = match var.ty {
            Type::B8 | Type::U8 | Type::S8 => (isa::ElemType::U8, 1),
            Type::B32 | Type::U32 => (isa::ElemType::U32, 1),
            Type::S32 => (isa::ElemType::S32, 1),
            Type::F32 => (isa::ElemType::F32, 1),
            Type::F64 => (isa::ElemType::F64, 1),
            // simt has no 64-bit integer elements: two words each, low first.
            Type::B64 | Type::U64 | Type::S64 => (isa::ElemType::U32, 2),
            _ => return Err(unsupported("module variables of this type")),
        };
        let mut values = Vec::new();
        if let Some(init) = &var.init {
            initial_values(init, &mut values).map_err(|span| Diagnostic::new(span, "an initializer that is an address is not supported yet"))?;
        }
        let declared: Option<u64> = var.dims.iter().try_fold(1u64, |n, d| d.map(|d| n.saturating_mul(u64::from(d))));
        let count = declared.unwrap_or(values.len() as u64).max(1);
        if values.len() as u64 > count {
            return Err(Diagnostic::new(var.span, format!("`{}` has {} initial values for {count} elements", var.name.value, values.len())));
        }
        if count * u64::from(elem.size()) * words > isa::MAX_TOTAL_BUFFER_BYTES {
            return Err(unsupported("variables this large"));
        }
        let name = var.name.value;
        if !isa::is_identifier(name) {
            return Err(unsupported("module variables whose names are not identifiers"));
        }
        let init = if values.iter().all(|v| *v == Immediate::Int(0)) {
            isa::ArgInit::Zeros(count * words)
        } else {
            // Integer elements hold the value's bits at their width (PTX's `.b8` 255 and -1
            // are one byte; a `.b32` may hold an f32's bits); float elements hold the value.
            let float_into_bytes = || Diagnostic::new(var.span, format!("`{name}`: a float initializer for `.{}` elements is not supported", var.ty));
            let mut list: Vec<isa::Literal> = Vec::new();
            for v in values.iter().chain(std::iter::repeat(&Immediate::Int(0))).take(count as usize) {
                match (elem, words, *v) {
                    (_, 2, Immediate::Int(i)) => list.extend([isa::Literal::Int(i64::from(i as u32)), isa::Literal::Int(i64::from((i >> 32) as u32))]),
                    (_, 2, Immediate::F64(bits)) => list.extend([isa::Literal::Int(i64::from(bits as u32)), isa::Literal::Int(i64::from((bits >> 32) as u32))]),
                    (_, 2, Immediate::F32(bits)) => list.extend([isa::Literal::Int(i64::from(bits)), isa::Literal::Int(0)]),
                    (isa::ElemType::U8, _, Immediate::Int(i)) => list.push(isa::Literal::Int(i64::from(i as u8))),
                    (isa::ElemType::U32, _, Immediate::Int(i)) => list.push(isa::Literal::Int(i64::from(i as u32))),
                    (isa::ElemType::S32, _, Immediate::Int(i)) => list.push(isa::Literal::Int(i64::from(i as i32))),
                    (isa::ElemType::U32, _, Immediate::F32(bits)) => list.push(isa::Literal::Int(i64::from(bits))),
                    (isa::ElemType::S32, _, Immediate::F32(bits)) => list.push(isa::Literal::Int(i64::from(bits as i32))),
                    (isa::ElemType::U8 | isa::ElemType::U32 | isa::ElemType::S32, _, _) => return Err(float_into_bytes()),
                    (_, _, Immediate::Int(i)) => list.push(isa::Literal::Int(i)),
                    (_, _, Immediate::F32(bits)) => list.push(isa::Literal::Float(f64::from(f32::from_bits(bits)))),
                    (_, _, Immediate::F64(bits)) => list.push(isa::Literal::Float(f64::from_bits(bits))),
                }
            }
            isa::ArgInit::List(list)
        };
        // Untyped bits (`.b8`: how compilers declare a `__constant__ float k[17]` or a struct)
        // take a buffer of any dtype as its bytes, as a PTX pointer parameter does.
        let ty = if matches!(var.ty, Type::B8 | Type::B32 | Type::B64) { isa::ParamType::Raw(elem) } else { isa::ParamType::Ptr(elem) };
        // The parameter itself comes after the kernel's own (`declare`), which keep their positions.
        self.symbols.insert(name, Symbol { space: StateSpace::Global, address: 0, base: None });
        self.module_vars.push((name, ty, Some(init)));
        Ok(())
    }

    fn variable(&mut self, var: &'t ast::Variable<'a>, local_size: &mut u32) -> Result<()> {
        let unsupported = |what: &str| Diagnostic::new(var.span, format!("`{}`: {what} are not supported yet", var.name.value));
        if var.init.is_some() && var.space != StateSpace::Global && var.space != StateSpace::Const {
            return Err(unsupported("initialised variables"));
        }
        let elem_bytes = var.ty.bits().div_ceil(8) * var.vector.map_or(1, |v| v.len() as u32);
        let mut count = 1u64;
        for dim in &var.dims {
            count = count.saturating_mul(u64::from(dim.ok_or_else(|| unsupported("arrays of unknown size outside shared memory"))?));
        }
        let bytes = count.saturating_mul(u64::from(elem_bytes));
        let align = var.align.unwrap_or(elem_bytes).max(1);
        match var.space {
            StateSpace::Shared => {
                let len = u32::try_from(bytes).map_err(|_| unsupported("arrays this large"))?;
                let address = self.b.shared(var.name.value, isa::ElemType::U8, len, align).map_err(|e| Diagnostic::new(var.span, e.to_string()))?;
                self.symbols.insert(var.name.value, Symbol { space: StateSpace::Shared, address, base: None });
            }
            // A call's argument and result variables (`.param` in the call's block) live in
            // LOCAL memory; a block per call declares them again under the same names, and
            // calls run one after another, so one place serves them all.
            StateSpace::Param if self.symbols.contains_key(var.name.value) => {}
            StateSpace::Local | StateSpace::Param => {
                let start = u64::from(*local_size).next_multiple_of(u64::from(align));
                let end = start + bytes;
                if end > u64::from(isa::MAX_LOCAL_BYTES) {
                    return Err(Diagnostic::new(var.span, format!("local memory would reach {end} bytes; a thread may have {}", isa::MAX_LOCAL_BYTES)));
                }
                *local_size = end as u32;
                self.symbols.insert(var.name.value, Symbol { space: StateSpace::Local, address: start as u32, base: None });
            }
            // Module-scope globals and constants only matter to the kernels that use them,
            // which are refused where they name one.
            StateSpace::Global | StateSpace::Const => {}
            _ => return Err(unsupported("variables in this state space")),
        }
        Ok(())
    }

    // ---- emitting -------------------------------------------------------------

    fn emit(&mut self, form: Form, operands: &[isa::Operand]) -> Result<()> {
        // Kepler to Pascal lack every form newer than simt's oldest target, and tensor cores.
        let lacks = match self.older {
            Some(_) => form.since() > isa::Target::ALL[0] || form.mma().is_some(),
            None => self.target.is_some_and(|target| form.since() > target),
        };
        self.refuse_newer(form.since(), lacks)?;
        let mut inst = Instruction { form, guard: self.guard, operands: [isa::Operand::None; isa::MAX_OPERANDS] };
        inst.operands[..operands.len()].copy_from_slice(operands);
        self.b.push(inst, self.line).map_err(|e| Diagnostic::new(self.span, e.to_string()))?;
        self.spans.push(self.span);
        self.frames.push(self.frame);
        Ok(())
    }

    /// Refuses the current instruction, which needs target `needs`, where the PTX's target
    /// `lacks` it.
    fn refuse_newer(&self, needs: isa::Target, lacks: bool) -> Result<()> {
        if let Some(target) = self.target
            && lacks
        {
            let (named, generation) = match self.older {
                Some(number) => (format!("sm_{number}"), older_generation(number)),
                None => (target.name().to_string(), target.generation()),
            };
            return Err(with_note(
                Diagnostic::new(
                    self.span,
                    format!("this instruction needs target {needs} ({}) or later, but the PTX targets {named} ({generation})", needs.generation()),
                ),
                format!("compile for {needs} (clang: --cuda-gpu-arch={needs}; nvcc: -arch={needs}), or run with --arch {needs}"),
            ));
        }
        Ok(())
    }

    fn op(&mut self, opcode: Opcode, operands: &[isa::Operand]) -> Result<()> {
        self.emit(Form::new(opcode), operands)
    }

    /// `BRA` to `label` under the current guard, resolved when the kernel is finished.
    fn branch(&mut self, label: simt_kernel::Label) -> Result<()> {
        let pc = self.b.len() as u32;
        self.op(Opcode::Bra, &[isa::Operand::Label { target: 0, reconv: isa::NO_RECONV }])?;
        self.b.branch_to(pc, 0, label);
        Ok(())
    }

    fn mov(&mut self, d: u8, a: Src) -> Result<()> {
        if a == Src::reg(d) {
            // A copy whose two registers the allocator coalesced.
            return Ok(());
        }
        self.op(Opcode::Mov, &[dst(d), isa::Operand::Src(a)])
    }

    /// Keeps a 16- or 8-bit register zero-extended after an operation that may carry
    /// into its upper bits.
    fn narrow(&mut self, d: u8, bits: u32) -> Result<()> {
        if bits < 32 { self.low_bits(d, Src::reg(d), bits) } else { Ok(()) }
    }

    /// `d = ` the low `bits` bits of `x`, zero-extended: one `AND`, or a `MOV` of all 32.
    fn low_bits(&mut self, d: u8, x: Src, bits: u32) -> Result<()> {
        if bits < 32 { self.op(Opcode::And, &[dst(d), src(x), src(Src::imm(low_mask(bits)))]) } else { self.mov(d, x) }
    }

    // ---- operands -------------------------------------------------------------

    fn loc(&self, o: &ast::Operand<'a>) -> Result<Loc> {
        match o.kind {
            OperandKind::Name(n) => self.locs.get(n).copied().ok_or_else(|| match self.classes.get(n) {
                Some(_) => Diagnostic::new(o.span, format!("internal error: `{n}` has no register")),
                None => Diagnostic::new(o.span, format!("`{n}` is not a register declared in this kernel")),
            }),
            _ => Err(Diagnostic::new(o.span, "expected a register")),
        }
    }

    /// The first register of `parts` where they lie as one instruction reads or writes them,
    /// consecutive words (`wide`: pairs) from a multiple of `align`, so that it takes them in
    /// place.
    fn in_place(&self, parts: &[ast::Operand<'a>], wide: bool, align: usize) -> Option<u8> {
        let regs = parts
            .iter()
            .map(|part| match (self.loc(part).ok()?, wide) {
                (Loc::Reg(r), false) | (Loc::Pair(r), true) => Some(r),
                _ => None,
            })
            .collect::<Option<Vec<u8>>>()?;
        let step = if wide { 2 } else { 1 };
        let consecutive = regs.iter().enumerate().all(|(i, &r)| usize::from(r) == usize::from(regs[0]) + step * i);
        (consecutive && usize::from(regs[0]).is_multiple_of(align)).then_some(regs[0])
    }

    fn word(&self, o: &ast::Operand<'a>) -> Result<u8> {
        match self.loc(o)? {
            Loc::Reg(r) | Loc::Pair(r) => Ok(r),
            Loc::Pred(_) | Loc::SpilledPred(_) => Err(Diagnostic::new(o.span, "expected a register, found a predicate")),
            Loc::Spilled { .. } => Err(Diagnostic::new(o.span, "internal error: a spilled register was not reloaded")),
        }
    }

    fn pair(&self, o: &ast::Operand<'a>) -> Result<u8> {
        match self.loc(o)? {
            Loc::Pair(r) => Ok(r),
            _ => Err(Diagnostic::new(o.span, "expected a 64-bit register")),
        }
    }

    fn pred(&self, o: &ast::Operand<'a>) -> Result<u8> {
        if let OperandKind::Name(n) = o.kind
            && let Some(&(_, p)) = self.aliases.iter().find(|(name, _)| *name == n)
        {
            return Ok(p);
        }
        match self.loc(o)? {
            Loc::Pred(p) => Ok(p),
            Loc::SpilledPred(_) => Err(Diagnostic::new(o.span, "internal error: a spilled predicate was not moved into a scratch predicate")),
            _ => Err(Diagnostic::new(o.span, "expected a predicate")),
        }
    }

    /// The guard `inst` runs under.
    fn guard_of(&self, inst: &ast::Instruction<'a>) -> Result<isa::Guard> {
        let Some(g) = inst.guard else { return Ok(isa::Guard::ALWAYS) };
        Ok(isa::Guard { pred: self.pred(&ast::Operand { kind: OperandKind::Name(g.predicate), span: g.span })?, negated: g.negated })
    }

    /// An MMA's "accumulate" operand (`wgmma`'s `scale-d`, `tcgen05.mma`'s `enable-input-d`):
    /// a predicate, or a literal standing for `PT` (nonzero) or `!PT` (0).
    fn enable_predicate(&self, o: &ast::Operand<'a>) -> Result<isa::Operand> {
        match self.constant(o) {
            Some(v) => Ok(isa::Operand::PredSrc { pred: isa::PT, negated: v == 0 }),
            None => self.pred_src(o),
        }
    }

    fn pred_src(&self, o: &ast::Operand<'a>) -> Result<isa::Operand> {
        let (name, negated) = match o.kind {
            OperandKind::Name(n) => (n, false),
            OperandKind::Not(n) => (n, true),
            _ => return Err(Diagnostic::new(o.span, "expected a predicate")),
        };
        let p = self.pred(&ast::Operand { kind: OperandKind::Name(name), span: o.span })?;
        Ok(isa::Operand::PredSrc { pred: p, negated })
    }

    fn symbol(&self, name: &str, span: Span) -> Result<Symbol> {
        self.symbols
            .get(name)
            .copied()
            .ok_or_else(|| Diagnostic::new(span, format!("`{name}` is not a register, shared or local variable, or parameter of this kernel")))
    }

    /// A variable's address as a source. A scalar kernel parameter has none simt can give (it
    /// is a word of PARAM space, which has no generic window); bytes passed by value have their
    /// GLOBAL buffer's.
    fn symbol_value(&self, name: &str, span: Span) -> Result<Src> {
        match self.symbol(name, span)? {
            Symbol { space: StateSpace::Param, .. } => Err(Diagnostic::new(
                span,
                format!(
                    "taking the address of scalar parameter `{name}` is not supported: only a parameter passed by value as bytes (`.b8 {name}[N]`) has one"
                ),
            )),
            symbol => Ok(symbol.value()),
        }
    }

    /// A 32-bit source: a register (the low word of a pair), a literal (its low 32 bits: PTX
    /// converts an integer constant to the size of its use, and ptxas keeps the low bits of
    /// tinygrad's `mov.b32 %r, 4294967296U`), or a variable's address.
    fn src32(&self, o: &ast::Operand<'a>) -> Result<Src> {
        if let Some(imm) = self.literal(o, literals::Literal::word) {
            return self.src32(&imm);
        }
        match o.kind {
            OperandKind::Name(n) if self.locs.contains_key(n) => Ok(Src::reg(self.word(o)?)),
            OperandKind::Name(n) => self.symbol_value(n, o.span),
            OperandKind::Immediate(Immediate::Int(v)) => Ok(Src::imm(v as u32)),
            OperandKind::Immediate(Immediate::F32(bits)) => Ok(Src::imm(bits)),
            _ => Err(Diagnostic::new(o.span, "expected a 32-bit register or literal")),
        }
    }

    /// A source of a `bits`-wide type: as [`src32`](Self::src32), a literal keeping only the
    /// type's bits, since 8- and 16-bit values are kept zero-extended.
    fn src_of_width(&self, o: &ast::Operand<'a>, bits: u32) -> Result<Src> {
        Ok(match self.src32(o)? {
            Src::Imm { bits: v, wide } => Src::Imm { bits: v & u64::from(low_mask(bits)), wide },
            x => x,
        })
    }

    /// A 64-bit source: a pair, a literal (sign-extended from 32 bits where it fits,
    /// otherwise moved into a scratch pair), or a variable's address.
    fn src64(&mut self, o: &ast::Operand<'a>) -> Result<Src> {
        if let Some(imm) = self.literal(o, literals::Literal::wide) {
            return self.src64(&imm);
        }
        match o.kind {
            OperandKind::Name(n) if self.locs.contains_key(n) => Ok(Src::reg(self.pair(o)?)),
            OperandKind::Name(n) => self.symbol_value(n, o.span),
            OperandKind::Immediate(Immediate::Int(v)) if i32::try_from(v).is_ok() => Ok(Src::imm(v as i32 as u32)),
            OperandKind::Immediate(Immediate::Int(v)) => self.wide_literal(v as u64),
            OperandKind::Immediate(Immediate::F64(bits)) => self.wide_literal(bits),
            _ => Err(Diagnostic::new(o.span, "expected a 64-bit register or literal")),
        }
    }

    /// A 64-bit source where the instruction needs a register pair (the first source of the
    /// 64-bit rows): a literal goes to the scratch pair first, sign-extended from 32 bits.
    fn pair_src(&mut self, o: &ast::Operand<'a>) -> Result<Src> {
        if matches!(o.kind, OperandKind::Name(n) if self.hints.literals.contains_key(n)) {
            // The literal would need the scratch pair: the register costs nothing.
            return Ok(Src::reg(self.pair(o)?));
        }
        match self.src64(o)? {
            Src::Imm { bits, wide: false } => self.wide_literal(i64::from(bits as u32 as i32) as u64),
            value => Ok(value),
        }
    }

    fn wide_literal(&mut self, bits: u64) -> Result<Src> {
        // One scratch pair holds it: a second would overwrite the first.
        if std::mem::replace(&mut self.wide_literal_taken, true) {
            return Err(Diagnostic::new(
                self.span,
                "two 64-bit literals that do not fit 32 bits in one instruction are not supported; compute one into a register first",
            ));
        }
        let r = self.scratch + 2;
        self.mov(r, Src::Imm { bits, wide: true })?;
        Ok(Src::reg(r))
    }

    /// An f64 source: a pair or a `0d` literal (which DADD and friends take directly).
    fn src_f64(&self, o: &ast::Operand<'a>) -> Result<Src> {
        if let Some(imm) = self.literal(o, literals::Literal::double) {
            return self.src_f64(&imm);
        }
        match o.kind {
            OperandKind::Immediate(Immediate::F64(bits)) => Ok(Src::Imm { bits, wide: true }),
            _ => Ok(Src::reg(self.pair(o)?)),
        }
    }

    /// Where `o` names a literal register whose literal `form` gives for this read: that
    /// literal as an operand, the read recorded as taking it.
    fn literal(&self, o: &ast::Operand<'a>, form: fn(literals::Literal) -> Option<Immediate>) -> Option<ast::Operand<'a>> {
        let OperandKind::Name(n) = o.kind else { return None };
        let imm = form(*self.hints.literals.get(n)?)?;
        self.taken.borrow_mut().insert((self.item, o.span), imm);
        Some(ast::Operand { kind: OperandKind::Immediate(imm), span: o.span })
    }

    fn address(&self, o: &ast::Operand<'a>) -> Result<(isa::Operand, Option<StateSpace>)> {
        let OperandKind::Address(Address { base, offset }) = o.kind else { return Err(Diagnostic::new(o.span, "expected an address `[...]`")) };
        let (base, extra, space) = match base {
            None => (RZ, 0, None),
            Some(b) if self.locs.contains_key(b.value) => (self.word(&ast::Operand { kind: OperandKind::Name(b.value), span: b.span })?, 0, None),
            Some(b) => match self.symbol(b.value, b.span)? {
                Symbol { base: Some(base), space, .. } => (base, 0, Some(space)),
                s => (RZ, i64::from(s.address), Some(s.space)),
            },
        };
        let offset = i32::try_from(offset + extra).map_err(|_| Diagnostic::new(o.span, "the address offset does not fit 32 bits"))?;
        Ok((isa::Operand::Addr { base, offset }, space))
    }

    fn operands<const N: usize>(&self, inst: &'t ast::Instruction<'a>) -> Result<&'t [ast::Operand<'a>; N]> {
        inst.operands
            .as_slice()
            .try_into()
            .map_err(|_| Diagnostic::new(inst.span, format!("this translation expects {N} operands, found {}", inst.operands.len())))
    }

    // ---- instructions ---------------------------------------------------------

    fn instruction(&mut self, inst: &'t ast::Instruction<'a>) -> Result<()> {
        self.span = inst.span;
        self.wide_literal_taken = false;
        self.line = self.lines.line(inst.span.start);
        self.guard = isa::Guard::ALWAYS;
        // Reloaded first, so that a predicate spilled to LOCAL memory is a spilled predicate's
        // register for the rest.
        let reloaded = if self.reload.is_some() { self.reload_spilled(inst)? } else { Vec::new() };
        if !self.spilled_logic(inst)? {
            let write_back = self.unspill(inst)?;
            self.guard = self.guard_of(inst)?;
            self.operation(inst)?;
            for (r, p) in write_back.into_iter().flatten() {
                let (form, operands) = registers::bit(dst(r), isa::Operand::PredSrc { pred: p, negated: false });
                self.emit(form, &operands)?;
            }
        }
        if !reloaded.is_empty() {
            self.guard = isa::Guard::ALWAYS;
            self.store_spilled(inst, reloaded)?;
        }
        Ok(())
    }

    /// One PTX instruction, by family: arithmetic and comparisons (`arith.rs`), conversions
    /// (`convert.rs`), memory (`memory.rs`), warp-wide and control instructions
    /// (`collective.rs`). The match names every opcode, so a new one is a compile error here
    /// until it is given a family.
    fn operation(&mut self, inst: &'t ast::Instruction<'a>) -> Result<()> {
        let op = inst.op;
        match op {
            Op::Add(_)
            | Op::Sub(_)
            | Op::AddC(_)
            | Op::SubC(_)
            | Op::Mul(_)
            | Op::Mad(_)
            | Op::MadC(_)
            | Op::Mul24(_)
            | Op::Mad24(_)
            | Op::Sad(_)
            | Op::Dp4a(_)
            | Op::Dp2a(_)
            | Op::Fma(_)
            | Op::Div(_)
            | Op::Rem(_)
            | Op::Neg(_)
            | Op::Abs(_)
            | Op::Min(_)
            | Op::Max(_)
            | Op::And(_)
            | Op::Or(_)
            | Op::Xor(_)
            | Op::Not(_)
            | Op::Cnot(_)
            | Op::Shl(_)
            | Op::Shr(_)
            | Op::Shf(_)
            | Op::Popc(_)
            | Op::Clz(_)
            | Op::Brev(_)
            | Op::Bfind(_)
            | Op::Bfe(_)
            | Op::Bfi(_)
            | Op::Lop3(_)
            | Op::Prmt(_)
            | Op::Copysign(_)
            | Op::Setp(_)
            | Op::Set(_)
            | Op::Selp(_)
            | Op::Rcp(_)
            | Op::Sqrt(_)
            | Op::Rsqrt(_)
            | Op::Ex2(_)
            | Op::Lg2(_)
            | Op::Sin(_)
            | Op::Cos(_)
            | Op::Tanh(_) => self.arithmetic(inst),
            Op::Cvt(c) => self.cvt(inst, c),

            Op::Cvta(c) => self.cvta(inst, c),
            Op::Isspacep(space) => self.isspacep(inst, space),
            Op::Mov(t) => self.mov_instruction(inst, t),
            Op::Ld(m) | Op::St(m) => self.memory(inst, m, matches!(op, Op::Ld(_))),
            Op::Atom(a) | Op::Red(a) => self.atomic(inst, a, matches!(op, Op::Red(_))),
            Op::Bar(_)
            | Op::BarWarpSync
            | Op::Membar(_)
            | Op::Fence(_)
            | Op::Shfl(_)
            | Op::Vote(_)
            | Op::Redux(_)
            | Op::Match(_)
            | Op::Activemask
            | Op::Bra(_)
            | Op::Brx(_) => self.warp_and_control(inst),
            Op::Mma(m) => self.mma(inst, m),
            Op::Wgmma(w) => self.wgmma(inst, w),
            // A `WGMMA` completes as it executes, and its shared-memory reads come after the
            // block's barrier like any load's: these order nothing more.
            Op::WgmmaOrder(_) | Op::FenceProxy { .. } => Ok(()),
            Op::CpAsync(_) => self.cp_async(inst),
            Op::Mbarrier(action) => self.mbarrier(inst, action),
            Op::Tcgen05(t) => self.tcgen05(inst, t),
            Op::Elect => self.elect(inst),
            // Every warp has the kernel's registers whatever it asks for: nothing to do but
            // check the count PTX allows.
            Op::Setmaxnreg { .. } => {
                let [count] = self.operands(inst)?;
                match self.constant(count) {
                    Some(n) if (24..=256).contains(&n) && n % 8 == 0 => Ok(()),
                    _ => Err(Diagnostic::new(count.span, "`setmaxnreg` takes a register count from 24 to 256, a multiple of 8")),
                }
            }
            // Launches run one after another: the grid before has finished, and the next has not started.
            Op::Griddepcontrol { .. } => Ok(()),
            // simt's caches hold no priorities: a policy is a word the hinted accesses ignore.
            Op::Createpolicy => {
                let [d, _] = self.operands(inst)?;
                let d = self.pair(d)?;
                self.op(Opcode::Mov, &[dst(d), src(Src::imm(0))])?;
                self.op(Opcode::Mov, &[dst(d + 1), src(Src::imm(0))])
            }
            Op::CpAsyncBulkTensor { rank, load } => self.bulk_tensor(inst, rank, load),
            // Each tensor copy is whole as it issues: nothing is left to wait for.
            Op::CpAsyncBulkOrder { .. } => Ok(()),
            Op::TensormapReplace { field, global } => self.tensormap_replace(inst, field, global),
            Op::TensormapCopy => self.tensormap_copy(inst),
            // Functionally the copies complete as they issue; the timing backend waits for their groups.
            Op::CpAsyncCommit => self.emit(Form::Ldgdepbar(mods::Ldgdepbar {}), &[]),
            Op::CpAsyncWait { all: true } => {
                self.emit(Form::Ldgdepbar(mods::Ldgdepbar {}), &[])?;
                self.emit(Form::Depbar(mods::Depbar {}), &[isa::Operand::Imm(0)])
            }
            Op::CpAsyncWait { all: false } => {
                let [n] = self.operands(inst)?;
                let n = self
                    .constant(n)
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| Diagnostic::new(n.span, "`cp.async.wait_group` takes a literal count"))?;
                self.emit(Form::Depbar(mods::Depbar {}), &[isa::Operand::Imm(n)])
            }
            Op::Ldmatrix(l) => self.matrices(inst, l, true),
            Op::Wmma(w) => self.wmma(inst, w),
            Op::Stmatrix(l) => self.matrices(inst, l, false),
            // Calls were inlined (`inline.rs`), their `ret`s made branches: a `ret` here ends the kernel.
            Op::Ret(_) | Op::Exit => self.op(Opcode::Exit, &[]),
            Op::Trap => self.op(Opcode::Trap, &[]),
            // PTX bounds the sleep by [0, 2t] nanoseconds: not sleeping is within it.
            Op::Nanosleep(_) => self.op(Opcode::Nop, &[]),
            // Device functions are inlined before translation (`inline.rs`): a call left here is the runtime's.
            Op::Call(_) => self.runtime_call(inst),
        }
    }

    /// A call of the CUDA runtime (`inline.rs` keeps them), its arguments loaded from their
    /// `.param` places into scratch registers: `call (r), vprintf, (format, args)` is `VPRINTF`
    /// with the count stored in `r`'s place; `call __assertfail, (message, file, line,
    /// function, size)` is `TRAP.ASSERT`.
    fn runtime_call(&mut self, inst: &'t ast::Instruction<'a>) -> Result<()> {
        let names = |list: usize| {
            inst.call_list(list)
                .iter()
                .map(|o| if let OperandKind::Name(n) = o.kind { Ok((n, o.span)) } else { Err(o.span) })
                .collect::<std::result::Result<Vec<_>, Span>>()
        };
        let callee = inst.callee().unwrap_or("");
        let (Ok(results), Ok(args)) = (names(ast::CALL_RESULTS), names(ast::CALL_ARGUMENTS)) else {
            return Err(Diagnostic::new(inst.span, "a call's arguments and results are `.param` variables"));
        };
        let place = |(name, span): (&str, Span)| -> Result<i32> {
            match self.symbol(name, span)? {
                Symbol { space: StateSpace::Local, address, base: None } => Ok(address as i32),
                _ => Err(Diagnostic::new(span, format!("`{name}` is not a `.param` variable of the call's block"))),
            }
        };
        let places = args.iter().map(|&a| place(a)).collect::<Result<Vec<i32>>>()?;
        let result = results.first().map(|&r| place(r)).transpose()?;
        let s = self.scratch;
        // Each argument into the scratch registers, a pair for a pointer.
        let mut load = |at: u8, offset: i32, pair: bool| {
            let (vec, ty) = if pair { (isa::VecWidth::V2, isa::MemType::B32) } else { (isa::VecWidth::Scalar, isa::MemType::U32) };
            let ld = Form::Ld(mods::Ld { space: isa::MemSpace::Local, addr: isa::AddrWidth::W32, vec, ty });
            self.emit(ld, &[dst(s + at), isa::Operand::Addr { base: RZ, offset }])
        };
        match (callee, places.as_slice(), result) {
            (crate::inline::VPRINTF, &[format, buffer], result) => {
                load(0, format, true)?;
                load(2, buffer, true)?;
                self.op(Opcode::Vprintf, &[dst(s), src(Src::reg(s)), src(Src::reg(s + 2))])?;
                if let Some(result) = result {
                    let st = Form::St(mods::St { space: isa::MemSpace::Local, addr: isa::AddrWidth::W32, vec: isa::VecWidth::Scalar, ty: isa::MemType::B32 });
                    self.emit(st, &[isa::Operand::Addr { base: RZ, offset: result }, src(Src::reg(s))])?;
                }
                Ok(())
            }
            (crate::inline::ASSERTFAIL, &[message, file, line, function, _], None) => {
                load(0, message, true)?;
                load(2, file, true)?;
                load(4, line, false)?;
                load(6, function, true)?;
                self.op(Opcode::TrapAssert, &[0, 2, 4, 6].map(|r| src(Src::reg(s + r))))
            }
            _ => Err(unsupported(inst, format!("this call of `{callee}`"))),
        }
    }

    /// The low and high words of a 64-bit source.
    fn halves(&self, o: &ast::Operand<'a>) -> Result<(Src, Src)> {
        if let Some(imm) = self.literal(o, literals::Literal::double) {
            return self.halves(&imm);
        }
        match o.kind {
            OperandKind::Name(n) if self.locs.contains_key(n) => {
                let r = self.pair(o)?;
                Ok((Src::reg(r), Src::reg(r + 1)))
            }
            OperandKind::Name(n) => Ok((self.symbol_value(n, o.span)?, Src::imm(0))),
            OperandKind::Immediate(Immediate::Int(v)) => Ok((Src::imm(v as u32), Src::imm((v as u64 >> 32) as u32))),
            OperandKind::Immediate(Immediate::F64(v)) => Ok((Src::imm(v as u32), Src::imm((v >> 32) as u32))),
            _ => Err(Diagnostic::new(o.span, "expected a 64-bit register or literal")),
        }
    }

    /// The value of a literal, or of a register whose every definition is that one constant.
    fn constant(&self, o: &ast::Operand<'a>) -> Option<i64> {
        match o.kind {
            OperandKind::Immediate(Immediate::Int(v)) => Some(v),
            OperandKind::Name(n) => self.constants.get_or_init(|| crate::spaces::constants(&self.insts, self.spaces())).get(n).copied(),
            _ => None,
        }
    }

    /// Whether the kernel may read register `name`: it is in a guard or an operand somewhere other
    /// than a `d|p` pair, whose halves are always destinations.
    fn may_read(&self, name: &str) -> bool {
        self.read
            .get_or_init(|| {
                let mut names = Vec::new();
                for inst in &self.insts {
                    names.extend(inst.guard.as_ref().map(|g| g.predicate));
                    inst.operands.iter().filter(|o| !matches!(o.kind, OperandKind::Pair(..))).for_each(|o| o.names(&mut names));
                }
                names.into_iter().collect()
            })
            .contains(name)
    }

    /// A collective's member mask: `None` where it is the whole warp, else its value. simt's
    /// collectives wait for every non-exited lane of the warp whatever the mask says (a lane
    /// that never comes is a deadlock fault, never a wrong value), and a mask restricts the
    /// lanes a result is made of (`docs/ptx.md`).
    fn member_mask(&self, mask: &ast::Operand<'a>) -> Result<Option<Src>> {
        match self.constant(mask) {
            Some(-1 | 0xFFFF_FFFF) => Ok(None),
            _ => self.src32(mask).map(Some),
        }
    }

    /// The member mask as a `REDUX` or `MATCH` operand, left as the whole warp where it is one.
    fn members(&self, mask: &ast::Operand<'a>) -> Result<isa::Operand> {
        Ok(src(self.member_mask(mask)?.unwrap_or(Src::imm(u32::MAX))))
    }

    fn mov_instruction(&mut self, inst: &'t ast::Instruction<'a>, t: px::Typed) -> Result<()> {
        let [d, x] = self.operands(inst)?;
        if let OperandKind::Special(sr) = x.kind {
            use px::SpecialReg as P;
            let lanes = |lane_bit: u32| -> Src { Src::imm(lane_bit) };
            match sr {
                // simt's clock is 32 bits: %clock64 is it, zero-extended, and so is %globaltimer,
                // a nanosecond a cycle (docs/ptx.md).
                P::Clock64 | P::Globaltimer => {
                    let d = self.pair(d)?;
                    self.op(Opcode::S2r, &[dst(d), isa::Operand::Special(isa::SpecialReg::Clock)])?;
                    return self.mov(d + 1, Src::imm(0));
                }
                // The lane masks from %laneid: eq = 1 << lane, lt = eq - 1, le = lt | eq, gt = !le, ge = !lt.
                P::LanemaskEq | P::LanemaskLt | P::LanemaskLe | P::LanemaskGt | P::LanemaskGe => {
                    let d = self.word(d)?;
                    let t = self.scratch;
                    self.op(Opcode::S2r, &[dst(t), isa::Operand::Special(isa::SpecialReg::LaneId)])?;
                    self.op(Opcode::Shl, &[dst(t), src(lanes(1)), src(Src::reg(t))])?;
                    if sr == P::LanemaskEq {
                        return self.mov(d, Src::reg(t));
                    }
                    self.op(Opcode::Iadd, &[dst(t + 1), src(Src::reg(t)), src(Src::imm(u32::MAX))])?;
                    return match sr {
                        P::LanemaskLt => self.mov(d, Src::reg(t + 1)),
                        P::LanemaskGe => self.op(Opcode::Not, &[dst(d), src(Src::reg(t + 1))]),
                        P::LanemaskLe => self.op(Opcode::Or, &[dst(d), src(Src::reg(t)), src(Src::reg(t + 1))]),
                        _ => {
                            self.op(Opcode::Or, &[dst(t), src(Src::reg(t)), src(Src::reg(t + 1))])?;
                            self.op(Opcode::Not, &[dst(d), src(Src::reg(t))])
                        }
                    };
                }
                _ => {}
            }
            let d = self.word(d)?;
            let sr = special(sr).ok_or_else(|| {
                with_note(
                    Diagnostic::new(x.span, format!("the special register `{sr:?}` is not supported")),
                    "supported: %tid, %ntid, %ctaid, %nctaid, %laneid, %warpid, %smid, %clock, %clock64, %globaltimer, %lanemask_*",
                )
            })?;
            return self.op(Opcode::S2r, &[dst(d), isa::Operand::Special(sr)]);
        }
        match (class_of(t.ty), &d.kind, &x.kind) {
            (Some(Class::Pred), _, OperandKind::Immediate(Immediate::Int(v))) => {
                let d = self.pred(d)?;
                let value = isa::Operand::PredSrc { pred: isa::PT, negated: *v == 0 };
                let pt = isa::Operand::PredSrc { pred: isa::PT, negated: false };
                self.emit(Form::Plop(mods::Plop { bop: isa::BoolOp::And }), &[isa::Operand::Pred(d), value, pt])
            }
            (Some(Class::Pred), _, _) => {
                let (d, x) = (self.pred(d)?, self.pred_src(x)?);
                let pt = isa::Operand::PredSrc { pred: isa::PT, negated: false };
                self.emit(Form::Plop(mods::Plop { bop: isa::BoolOp::And }), &[isa::Operand::Pred(d), x, pt])
            }
            // Packing two halves or four bytes into a word (`mov.b32 %r, {%h0, %h1}`: the first
            // lowest): each next part's low bits inserted over the word so far's upper bits (two
            // halves one instruction, as ptxas's PRMT; four bytes through scratch, so that `d`
            // is written last whichever part it is).
            (Some(Class::Word { bits: 32 }), OperandKind::Name(_), OperandKind::Vector(parts)) if matches!(parts.len(), 2 | 4) => {
                let d = self.word(d)?;
                let width = 32 / parts.len() as u32;
                let mut word = self.src32(&parts[0])?;
                for (i, part) in parts.iter().enumerate().skip(1) {
                    let target = if i + 1 == parts.len() { d } else { self.scratch };
                    let part = self.src32(part)?;
                    self.op(Opcode::Bfi, &[dst(target), src(part), src(word), src(Src::imm(width * i as u32)), src(Src::imm(width))])?;
                    word = Src::reg(target);
                }
                Ok(())
            }
            // Unpacking two halves or four bytes, zero-extended: the part whose register is the
            // word's own comes last, so the others read the word first.
            (Some(Class::Word { bits: 32 }), OperandKind::Vector(parts), OperandKind::Name(_)) if matches!(parts.len(), 2 | 4) => {
                let x = self.src32(x)?;
                let width = 32 / parts.len() as u32;
                let mut targets = Vec::with_capacity(parts.len());
                for (i, part) in parts.iter().enumerate().filter(|(_, p)| p.kind != OperandKind::Sink) {
                    targets.push((self.word(part)?, i as u32));
                }
                targets.sort_by_key(|&(r, _)| matches!(x, Src::Reg { reg, .. } if reg == r));
                for (r, i) in targets {
                    match i * width {
                        0 => self.op(Opcode::And, &[dst(r), src(x), src(Src::imm(u32::MAX >> (32 - width)))])?,
                        position if position + width == 32 => {
                            self.emit(Form::Shr(mods::Shr { ty: isa::IntType::U32 }), &[dst(r), src(x), src(Src::imm(position))])?
                        }
                        position => {
                            self.emit(Form::Bfe(mods::Bfe { ty: isa::IntType::U32 }), &[dst(r), src(x), src(Src::imm(position)), src(Src::imm(width))])?
                        }
                    }
                }
                Ok(())
            }
            // Packing two words into a pair, and unpacking.
            (Some(Class::Pair), OperandKind::Name(_), OperandKind::Vector(parts)) if parts.len() == 2 => {
                let d = self.pair(d)?;
                let (lo, hi) = (self.src32(&parts[0])?, self.src32(&parts[1])?);
                self.mov(d, lo)?;
                self.mov(d + 1, hi)
            }
            (Some(Class::Pair), OperandKind::Vector(parts), OperandKind::Name(_)) if parts.len() == 2 => {
                let x = self.pair(x)?;
                for (i, part) in parts.iter().enumerate() {
                    if part.kind != OperandKind::Sink {
                        let r = self.word(part)?;
                        self.mov(r, Src::reg(x + i as u8))?;
                    }
                }
                Ok(())
            }
            (Some(Class::Pair), _, _) => {
                let d = self.pair(d)?;
                match x.kind {
                    OperandKind::Immediate(Immediate::Int(v)) => self.mov(d, Src::Imm { bits: v as u64, wide: true }),
                    OperandKind::Immediate(Immediate::F64(bits)) => self.mov(d, Src::Imm { bits, wide: true }),
                    _ => {
                        let (lo, hi) = self.halves(x)?;
                        self.mov(d, lo)?;
                        self.mov(d + 1, hi)
                    }
                }
            }
            (Some(Class::Word { bits }), _, _) => {
                let d = self.word(d)?;
                let x = self.src_of_width(x, bits)?;
                self.mov(d, x)
            }
            (None, _, _) => Err(Diagnostic::new(inst.op_span, format!("`mov{}` is not supported by the PTX front end yet", t.ty))),
        }
    }
}

/// The mask of the low `bits` bits of a word (all of them from 32 on).
fn low_mask(bits: u32) -> u32 {
    if bits >= 32 { u32::MAX } else { (1 << bits) - 1 }
}

fn too_many(at: Span, name: &str) -> Diagnostic {
    with_note(
        Diagnostic::new(at, format!("more registers are live here than simt has (`{name}` finds none free)")),
        "simt has R0-R254, less the registers the translation keeps for itself (scratch, reloads, module variables' addresses)",
    )
}

fn dst(r: u8) -> isa::Operand {
    isa::Operand::Reg(r)
}

fn src(s: Src) -> isa::Operand {
    isa::Operand::Src(s)
}

fn ftz(on: bool) -> isa::Ftz {
    if on { isa::Ftz::Yes } else { isa::Ftz::No }
}

fn sat(on: bool) -> isa::Sat {
    if on { isa::Sat::Yes } else { isa::Sat::No }
}

fn negate_f32(s: Src) -> Src {
    match s {
        Src::Reg { reg, neg, abs } => Src::Reg { reg, neg: !neg, abs },
        Src::Imm { bits, wide } => Src::Imm { bits: bits ^ 0x8000_0000, wide },
    }
}

fn class_of(ty: Type) -> Option<Class> {
    match ty.bits() {
        1 => Some(Class::Pred),
        8 | 16 | 32 => Some(Class::Word { bits: ty.bits() }),
        64 => Some(Class::Pair),
        _ => None,
    }
}

/// The refusal of an instruction the translation does not build, `what` naming it.
fn unsupported(inst: &ast::Instruction<'_>, what: String) -> Diagnostic {
    with_note(Diagnostic::new(inst.op_span, format!("{what} is not supported by the PTX front end yet")), "docs/ptx.md lists what is supported")
}

/// An initializer's numbers in order; the span of an address initializer, which has none.
fn initial_values(init: &ast::Initializer<'_>, out: &mut Vec<Immediate>) -> std::result::Result<(), Span> {
    match init {
        ast::Initializer::Value(v) => out.push(v.value),
        ast::Initializer::Address { name, .. } => return Err(name.span),
        ast::Initializer::List(list) => {
            for item in &list.value {
                initial_values(item, out)?;
            }
        }
    }
    Ok(())
}

/// The directed rounding `FFMA.RZ/RM/RP` gives f32 `fma`, `add` and `sub`.
fn f64_imm(value: f64) -> Src {
    Src::Imm { bits: value.to_bits(), wide: true }
}

/// A rounding direction other than to nearest.
fn directed(rounding: Option<px::Rounding>) -> Option<isa::Round> {
    match rounding {
        Some(px::Rounding::Rz) => Some(isa::Round::Rz),
        Some(px::Rounding::Rm) => Some(isa::Round::Rm),
        Some(px::Rounding::Rp) => Some(isa::Round::Rp),
        _ => None,
    }
}

/// The signed zero `x * y + zero` adds so that an exact zero product keeps its sign: +0
/// rounding down (where -0 + +0 is -0), -0 otherwise (where +0 + -0 is +0).
fn neutral_zero(rnd: isa::Round) -> u64 {
    if rnd == isa::Round::Rm { 0 } else { 1 << 63 }
}

/// The rounding of a float operation that has every direction: `.rz`/`.rm`/`.rp`, else to
/// nearest (any other modifier is refused).
fn float_rounding(rounding: Option<px::Rounding>, op: Op, inst: &ast::Instruction<'_>) -> Result<isa::Round> {
    match directed(rounding) {
        Some(rnd) => Ok(rnd),
        None => rn_only(rounding, op, inst).map(|()| isa::Round::Rn),
    }
}

/// Float arithmetic rounds to nearest even; `.rz`, `.rm` and `.rp` are not built.
fn rn_only(rounding: Option<px::Rounding>, op: Op, inst: &ast::Instruction<'_>) -> Result<()> {
    match rounding {
        None | Some(px::Rounding::Rn) => Ok(()),
        Some(r) => Err(with_note(
            Diagnostic::new(inst.op_span, format!("`{}{r}` is not supported by the PTX front end yet", op.name())),
            "simt's floating-point arithmetic rounds to nearest even (`.rn`)",
        )),
    }
}

fn special(sr: px::SpecialReg) -> Option<isa::SpecialReg> {
    use isa::SpecialReg as S;
    use px::{Dim, SpecialReg as P};
    let dim = |d: Dim, x: S, y: S, z: S| match d {
        Dim::X => x,
        Dim::Y => y,
        Dim::Z => z,
    };
    Some(match sr {
        P::Tid(d) => dim(d, S::TidX, S::TidY, S::TidZ),
        P::Ntid(d) => dim(d, S::NtidX, S::NtidY, S::NtidZ),
        P::Ctaid(d) => dim(d, S::CtaidX, S::CtaidY, S::CtaidZ),
        P::Nctaid(d) => dim(d, S::NctaidX, S::NctaidY, S::NctaidZ),
        P::Laneid => S::LaneId,
        P::Warpid => S::WarpId,
        P::Smid => S::SmId,
        P::Clock => S::Clock,
        _ => return None,
    })
}
