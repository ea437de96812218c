//! The PTX front end, second half: a parsed module becomes simt kernels.
//!
//! Each `.entry` becomes one [`Kernel`] built through [`KernelBuilder`], so layouts,
//! labels and reconvergence points come from the same code as for `.s` files. Every
//! simt instruction keeps the PTX line it came from, so faults, traces and the
//! debugger point at the PTX. The mapping (docs/ptx.md):
//!
//! - PTX registers are virtual and unbounded; simt has R0-R254 and P0-P6. Each PTX
//!   register gets a live interval (first to last mention, stretched over every loop it
//!   overlaps) and a linear scan packs the intervals: 32-bit and narrower values into
//!   one register (16- and 8-bit values kept zero-extended), 64-bit values into an
//!   even-aligned pair (low word first), predicates into P0-P6.
//! - A `.u64` parameter whose value reaches `cvta.to.global` is a pointer: a simt
//!   `.ptr` parameter whose element type is the type of the first load or store through
//!   it. A 64-bit address is its pair's low word; simt addresses are 32 bits.
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

/// PTX label names in the spelling `.s` accepts (letters, digits, `_`), so `simt ptx`
/// output assembles: `$` and `%` (clang 15 and later write `$L__BB0_2`) and the `.` of
/// inlined copies' names become `_`, and a name that then meets another gets `_N`.
#[derive(Debug, Default)]
struct LabelNames {
    renamed: HashMap<String, String>,
}

impl LabelNames {
    fn new(items: &[Item<'_, '_>]) -> LabelNames {
        let valid = |n: &str| n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        let labels = || items.iter().filter_map(|i| if let Item::Label(n, _) = i { Some(*n) } else { None });
        let mut taken: std::collections::HashSet<String> = labels().filter(|n| valid(n)).map(str::to_string).collect();
        let mut names = LabelNames::default();
        for name in labels().filter(|n| !valid(n)) {
            let base: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
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
    insts: &'g [Mentions],
    ids: &'g [usize],
}

/// The registers one instruction writes and reads, as ranges of a shared list of ids.
struct Mentions {
    item: usize,
    defs: std::ops::Range<usize>,
    uses: std::ops::Range<usize>,
    guarded: bool,
    /// A plain copy of its one use into its one def.
    copy: bool,
}

/// The declared registers: single names, and ranges (`%r<100>` declares `%r0` .. `%r99`)
/// by prefix, so a declaration costs nothing per register.
#[derive(Default)]
struct Classes<'a> {
    names: HashMap<&'a str, Class>,
    ranges: HashMap<&'a str, (u32, Class)>,
}

impl Classes<'_> {
    fn get(&self, name: &str) -> Option<Class> {
        if let Some(&class) = self.names.get(name) {
            return Some(class);
        }
        let (prefix, index) = ast::range_member(name)?;
        let &(count, class) = self.ranges.get(prefix)?;
        (index < count).then_some(class)
    }
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
    /// A register or pair that found no room, as ptxas spills: it lives in LOCAL memory at
    /// this byte offset and is loaded into a reload register before each instruction that
    /// mentions it, and stored back after each that writes it.
    Spilled {
        offset: u32,
        pair: bool,
    },
}

/// Registers kept back, when a kernel spills, to hold the spilled values one instruction
/// mentions (an `mma` names up to 10 registers; vector loads and stores 4 pairs).
const RELOAD_REGS: u32 = 24;

/// The predicates left for spilled ones to pass through.
const SCRATCH_PREDS: [u8; 2] = [5, 6];

/// The predicate `set` compares into and a `cp.async` with a source size guards its loads
/// with, kept back from allocation in kernels that use them (an instruction reading a
/// spilled predicate, as `set` may, passes it through P5).
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

fn flatten<'t, 'a>(block: &'t ast::Block<'a>, items: &mut Vec<Item<'t, 'a>>, decls: &mut Vec<&'t Statement<'a>>) {
    for statement in block.flat() {
        match statement {
            Statement::Label(l) => items.push(Item::Label(l.value, l.span)),
            Statement::Instruction(i) => items.push(Item::Inst(i)),
            Statement::Registers(_) | Statement::Variable(_) => decls.push(statement),
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

struct Entry<'t, 'a> {
    b: KernelBuilder,
    lines: &'t LineIndex,
    classes: Classes<'a>,
    locs: HashMap<&'a str, Loc>,
    /// LOCAL bytes per thread: the kernel's `.local` variables, then its spilled registers.
    local_size: u32,
    /// The first reload register, where the kernel spills.
    reload: Option<u8>,
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
    /// Spilled predicates standing in scratch predicates for the current instruction.
    aliases: Vec<(&'a str, u8)>,
    /// Registers that hold one constant everywhere; inferred at the first member mask in a
    /// register (-O0 code).
    constants: std::cell::OnceCell<HashMap<&'a str, i64>>,
    scratch: u8,
    /// How many scratch registers follow `scratch`.
    scratch_regs: u32,
    /// Whether the kernel needs [`SCRATCH_PRED`]: it has a `set`, or a `cp.async` with a
    /// source size.
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
    /// The module-scope variables the kernel uses, each a buffer parameter: name, element
    /// type and initial contents.
    module_vars: Vec<(&'a str, isa::ElemType, isa::ArgInit)>,
    /// The PTX instruction each pushed instruction came from, by pc.
    spans: Vec<Span>,
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
    if plan.is_trivial() {
        let (mut items, mut decls) = (Vec::new(), Vec::new());
        flatten(body, &mut items, &mut decls);
        return Entry::translate(module, f, items, decls, &[], lines, (target, older));
    }
    let expanded = plan.expand();
    let items = expanded
        .items
        .iter()
        .map(|item| match item {
            crate::inline::Owned::Label(name, span) => Item::Label(name, *span),
            crate::inline::Owned::Inst(inst) => Item::Inst(inst),
        })
        .collect();
    let decls = expanded.decls.iter().collect();
    Entry::translate(module, f, items, decls, &expanded.bindings, lines, (target, older))
}

impl<'t, 'a> Entry<'t, 'a> {
    fn translate(
        module: &'t ast::Module<'a>,
        f: &'t ast::Function<'a>,
        items: Vec<Item<'t, 'a>>,
        decls: Vec<&'t Statement<'a>>,
        bindings: &[(&'a str, &'a str)],
        lines: &'t LineIndex,
        (target, older): (Option<isa::Target>, Option<u32>),
    ) -> std::result::Result<Kernel, Vec<Diagnostic>> {
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
            constants: std::cell::OnceCell::new(),
            scratch: 0,
            scratch_regs: if items.iter().any(|i| matches!(i, Item::Inst(i) if matches!(i.op, Op::Mma(_) | Op::CpAsync(_) | Op::Ldmatrix(_)))) {
                MMA_SCRATCH
            } else {
                SCRATCH
            },
            needs_scratch_pred: items
                .iter()
                .any(|i| matches!(i, Item::Inst(i) if matches!(i.op, Op::Set(_)) || matches!(i.op, Op::CpAsync(_)) && i.operands.len() == 4)),
            line: 0,
            guard: isa::Guard::ALWAYS,
            span: f.name.span,
            spans: Vec::new(),
            target,
            older,
            local_size: 0,
            reload: None,
            wide_literal_taken: false,
            module_vars: Vec::new(),
        };
        if let Some(target) = target {
            entry.b.target(target);
        }
        let mut errors = Vec::new();
        entry.declare(module, f, &decls, &items, bindings, &mut errors);
        if let Err(e) = entry.allocate(&items) {
            errors.push(e);
        }
        entry.insts = items.iter().filter_map(|i| if let Item::Inst(i) = i { Some(*i) } else { None }).collect();
        if !errors.is_empty() {
            return Err(errors);
        }
        entry.labels = LabelNames::new(&items);
        if let Err(e) = entry.load_module_variables() {
            errors.push(e);
        }
        for item in &items {
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
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        // The builder validates every instruction; a broken one is the translation's fault,
        // shown at the PTX instruction it came from.
        let spans = std::mem::take(&mut entry.spans);
        entry.b.finish().map_err(|found| {
            found
                .into_iter()
                .map(|e| match &e {
                    simt_kernel::BuildError::Invalid(k) if let Some(&span) = k.pc.and_then(|pc| spans.get(pc as usize)) => {
                        Diagnostic::new(span, format!("internal error: the translation of this instruction is invalid: {}; please report it", k.message))
                    }
                    _ => Diagnostic::new(f.name.span, format!("kernel `{}`: {e}", f.name.value)),
                })
                .collect()
        })
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
        for var in module_vars.chain(body_vars) {
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
                        self.classes.ranges.insert(name.name, (n, class));
                    }
                    None => {
                        self.classes.names.insert(name.name, class);
                    }
                }
            }
        }
        let symbols = &self.symbols;
        let pointers = pointer_types(f, items, |n| symbols.get(n).map(|s| (s.space, s.address)));
        for p in &f.params {
            let ty = match (p.ty, p.array) {
                (_, Some(_)) => Err("array parameters (structs passed by value)"),
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
        for (name, elem, init) in self.module_vars.clone() {
            if f.params.iter().any(|p| p.name.value == name) {
                errors.push(Diagnostic::new(f.name.span, format!("module variable `{name}` has the name of a parameter of this kernel")));
                continue;
            }
            let offset = self.b.param(name, isa::ParamType::Ptr(elem));
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
            let ld = Form::Ld(mods::Ld { space: isa::Space::Param, vec: isa::VecWidth::Scalar, ty: isa::MemType::U32 });
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
        if !name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(unsupported("module variables whose names are not identifiers"));
        }
        let init = if values.iter().all(|v| *v == Immediate::Int(0)) {
            isa::ArgInit::Zeros(count * words)
        } else {
            let literal = |v: &Immediate| match *v {
                Immediate::Int(i) => isa::Literal::Int(i),
                Immediate::F32(bits) => isa::Literal::Float(f64::from(f32::from_bits(bits))),
                Immediate::F64(bits) => isa::Literal::Float(f64::from_bits(bits)),
            };
            let mut list: Vec<isa::Literal> = Vec::new();
            for v in values.iter().chain(std::iter::repeat(&Immediate::Int(0))).take(count as usize) {
                match (words, *v) {
                    (2, Immediate::Int(i)) => list.extend([isa::Literal::Int(i64::from(i as u32)), isa::Literal::Int(i64::from((i >> 32) as u32))]),
                    (2, Immediate::F64(bits)) => list.extend([isa::Literal::Int(i64::from(bits as u32)), isa::Literal::Int(i64::from((bits >> 32) as u32))]),
                    (2, Immediate::F32(bits)) => list.extend([isa::Literal::Int(i64::from(bits)), isa::Literal::Int(0)]),
                    (_, v) => list.push(literal(&v)),
                }
            }
            isa::ArgInit::List(list)
        };
        // The parameter itself comes after the kernel's own (`declare`), which keep their positions.
        self.symbols.insert(name, Symbol { space: StateSpace::Global, address: 0, base: None });
        self.module_vars.push((name, elem, init));
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

    /// Gives every PTX register a simt register, pair or predicate: liveness over the
    /// control-flow graph, then greedy colouring of the interference graph in program
    /// order. A destination also interferes with its instruction's sources, since a
    /// translation into several simt instructions may read a source after writing part
    /// of its result.
    fn allocate(&mut self, items: &[Item<'t, 'a>]) -> Result<()> {
        // Sized for a register per instruction or two, so that it seldom grows.
        let mut index: HashMap<&'a str, usize> = HashMap::with_capacity_and_hasher(items.len() / 2, Default::default());
        // Each register's name and class, by id.
        let (mut names_of, mut classes_of): (Vec<&'a str>, Vec<Class>) = (Vec::new(), Vec::new());
        let mut ids: Vec<usize> = Vec::new();
        let mut insts: Vec<Mentions> = Vec::new();
        let (mut scratch, mut uses) = (Vec::new(), Vec::new());
        for (at, item) in items.iter().enumerate() {
            let Item::Inst(inst) = item else { continue };
            let start = ids.len();
            uses.clear();
            for (k, operand) in inst.operands.iter().enumerate() {
                scratch.clear();
                operand.names(&mut scratch);
                let writes =
                    k == 0 && !matches!(inst.op, Op::St(_) | Op::Red(_) | Op::Bra(_) | Op::Call(_)) && !matches!(operand.kind, OperandKind::Address(_));
                for &name in &scratch {
                    let id = match index.get(name) {
                        Some(&id) => id,
                        None => {
                            let Some(class) = self.classes.get(name) else { continue };
                            names_of.push(name);
                            classes_of.push(class);
                            index.insert(name, names_of.len() - 1);
                            names_of.len() - 1
                        }
                    };
                    if writes { ids.push(id) } else { uses.push(id) }
                }
            }
            if let Some(g) = inst.guard {
                let id = match index.get(g.predicate) {
                    Some(&id) => Some(id),
                    None => self.classes.get(g.predicate).map(|class| {
                        names_of.push(g.predicate);
                        classes_of.push(class);
                        index.insert(g.predicate, names_of.len() - 1);
                        names_of.len() - 1
                    }),
                };
                uses.extend(id);
            }
            let defs_end = ids.len();
            ids.extend_from_slice(&uses);
            // A plain copy (`mov`, `cvta`) of one register into another of its kind may
            // share its register when the source dies there: the move then disappears.
            let copy = matches!(inst.op, Op::Mov(_) | Op::Cvta(_))
                && defs_end - start == 1
                && ids.len() - defs_end == 1
                && inst.guard.is_none()
                && classes_of[ids[start]] == classes_of[ids[defs_end]];
            insts.push(Mentions { item: at, defs: start..defs_end, uses: defs_end..ids.len(), guarded: inst.guard.is_some(), copy });
        }
        let n = names_of.len();
        // Basic blocks over `insts`: a label starts one, a branch or an exit ends one.
        let mut label_block: HashMap<&'a str, usize> = HashMap::default();
        let mut starts = vec![0usize];
        let mut next_inst = 0;
        for item in items {
            match item {
                Item::Label(name, _) => {
                    if *starts.last().unwrap_or(&0) != next_inst {
                        starts.push(next_inst);
                    }
                    label_block.insert(name, starts.len() - 1);
                }
                Item::Inst(inst) => {
                    next_inst += 1;
                    if matches!(inst.op, Op::Bra(_) | Op::Ret(_) | Op::Exit | Op::Trap) {
                        starts.push(next_inst);
                    }
                }
            }
        }
        starts.push(insts.len());
        starts.dedup();
        let blocks: Vec<(usize, usize)> = starts.windows(2).map(|w| (w[0], w[1])).collect();
        let block_of_label = |name: &str| label_block.get(name).map(|&b| b.min(blocks.len().saturating_sub(1)));
        let mut succs: Vec<Vec<usize>> = vec![Vec::new(); blocks.len()];
        for (b, &(first, end)) in blocks.iter().enumerate() {
            let Some(last) = end.checked_sub(1).filter(|&l| l >= first) else {
                if b + 1 < blocks.len() {
                    succs[b].push(b + 1);
                }
                continue;
            };
            let Item::Inst(inst) = items[insts[last].item] else { continue };
            let unconditional = inst.guard.is_none();
            match inst.op {
                Op::Bra(_) => {
                    if let Some(OperandKind::Name(label)) = inst.operands.first().map(|o| &o.kind) {
                        succs[b].extend(block_of_label(label));
                    }
                    if !unconditional && b + 1 < blocks.len() {
                        succs[b].push(b + 1);
                    }
                }
                Op::Ret(_) | Op::Exit | Op::Trap if unconditional => {}
                _ if b + 1 < blocks.len() => succs[b].push(b + 1),
                _ => {}
            }
        }
        // Backward liveness to a fixpoint.
        let words = n.div_ceil(64).max(1);
        let mut live_in = vec![vec![0u64; words]; blocks.len()];
        let mut live_out = vec![vec![0u64; words]; blocks.len()];
        let transfer = |live: &mut Vec<u64>, m: &Mentions| {
            if !m.guarded {
                ids[m.defs.clone()].iter().for_each(|&d| live[d / 64] &= !(1 << (d % 64)));
            }
            ids[m.uses.clone()].iter().for_each(|&u| live[u / 64] |= 1 << (u % 64));
        };
        let mut changed = true;
        let mut live = vec![0u64; words];
        while changed {
            changed = false;
            for b in (0..blocks.len()).rev() {
                let mut out = std::mem::take(&mut live_out[b]);
                out.fill(0);
                for &s in &succs[b] {
                    out.iter_mut().zip(&live_in[s]).for_each(|(o, i)| *o |= i);
                }
                live.clone_from(&out);
                for inst in insts[blocks[b].0..blocks[b].1].iter().rev() {
                    transfer(&mut live, inst);
                }
                if live != live_in[b] {
                    live_in[b].clone_from(&live);
                    changed = true;
                }
                live_out[b] = out;
            }
        }
        // Interference.
        let mut interferes = vec![0u64; n * words];
        let connect = |a: usize, b: usize, graph: &mut Vec<u64>| {
            if a != b {
                graph[a * words + b / 64] |= 1 << (b % 64);
                graph[b * words + a / 64] |= 1 << (a % 64);
            }
        };
        for (b, &(first, end)) in blocks.iter().enumerate() {
            let mut live = live_out[b].clone();
            for inst in insts[first..end].iter().rev() {
                let (defs, uses) = (&ids[inst.defs.clone()], &ids[inst.uses.clone()]);
                for &d in defs {
                    for (w, &bits) in live.iter().enumerate() {
                        let mut bits = bits;
                        while bits != 0 {
                            let x = w * 64 + bits.trailing_zeros() as usize;
                            bits &= bits - 1;
                            connect(d, x, &mut interferes);
                        }
                    }
                    if !inst.copy {
                        for &x in uses.iter().chain(defs) {
                            connect(d, x, &mut interferes);
                        }
                    }
                }
                transfer(&mut live, inst);
            }
        }
        // Greedy colouring in order of first mention. Predicates that find no colour
        // are spilled to registers, and the colouring is redone with P5 and P6 kept back
        // to carry them.
        let mut spilled = vec![false; n];
        let mut partners = vec![Vec::new(); n];
        for m in insts.iter().filter(|m| m.copy) {
            let (d, u) = (ids[m.defs.start], ids[m.uses.start]);
            partners[d].push(u);
            partners[u].push(d);
        }
        let (loc, highest) = loop {
            let graph = Graph { names_of: &names_of, classes_of: &classes_of, interferes: &interferes, words, partners: &partners, insts: &insts, ids: &ids };
            match self.colour(&graph, &spilled, items)? {
                Ok(done) => break done,
                Err(uncoloured) => uncoloured.into_iter().for_each(|id| spilled[id] = true),
            }
        };
        self.locs.reserve(names_of.len());
        for (id, name) in names_of.iter().enumerate() {
            let l = match loc[id] {
                Some(Loc::Spilled { pair, .. }) => {
                    let offset = self.local_size.next_multiple_of(8);
                    self.local_size = offset + if pair { 8 } else { 4 };
                    if self.local_size > isa::MAX_LOCAL_BYTES {
                        return Err(Diagnostic::new(
                            self.span,
                            format!("spilled registers would take local memory to {} bytes; a thread may have {}", self.local_size, isa::MAX_LOCAL_BYTES),
                        ));
                    }
                    Some(Loc::Spilled { offset, pair })
                }
                l => l,
            };
            if let Some(l) = l {
                self.locs.insert(name, l);
            }
        }
        let mut first_free = highest + 1;
        if self.locs.values().any(|l| matches!(l, Loc::Spilled { .. })) {
            self.b.local(self.local_size);
            let reload = first_free.next_multiple_of(2);
            self.reload = Some(reload as u8);
            first_free = reload + RELOAD_REGS;
        }
        self.scratch = first_free.next_multiple_of(SCRATCH) as u8;
        let bases = u32::from(self.scratch) + self.scratch_regs;
        if bases + self.module_vars.len() as u32 > isa::NUM_REGS {
            return Err(too_many(self.span, "the translation's scratch registers"));
        }
        for (i, (name, ..)) in self.module_vars.iter().enumerate() {
            if let Some(symbol) = self.symbols.get_mut(name) {
                symbol.base = Some((bases + i as u32) as u8);
            }
        }
        Ok(())
    }

    /// One colouring attempt: every register's location and the highest register used, or
    /// the registers and predicates that found no colour (spilled on the next attempt).
    #[allow(clippy::type_complexity)]
    fn colour(&self, g: &Graph<'_, 'a>, spilled: &[bool], items: &[Item<'t, 'a>]) -> Result<std::result::Result<(Vec<Option<Loc>>, u32), Vec<usize>>> {
        let Graph { names_of, classes_of, interferes, words, partners, insts, ids } = *g;
        let n = names_of.len();
        let pred_colours = if spilled.iter().any(|&s| s) {
            usize::from(SCRATCH_PREDS[0])
        } else if self.needs_scratch_pred {
            usize::from(SCRATCH_PRED)
        } else {
            7
        };
        let spills = (0..n).any(|i| spilled[i] && classes_of[i] != Class::Pred);
        // What follows the allocated registers: the reload registers where the kernel spills
        // (from an even register), the scratch block (from a multiple of SCRATCH), and one
        // register per module-scope variable's address.
        let after = if spills { RELOAD_REGS + 1 } else { 0 } + SCRATCH - 1 + self.scratch_regs + self.module_vars.len() as u32;
        let usable = isa::NUM_REGS.saturating_sub(after) as usize;
        let mut uncoloured = Vec::new();
        let mut loc: Vec<Option<Loc>> = vec![None; n];
        let mut highest = 0u32;
        for id in 0..n {
            let name = names_of[id];
            let (mut regs, mut preds) = ([false; isa::NUM_REGS as usize], [false; 7]);
            for (w, &bits) in interferes[id * words..(id + 1) * words].iter().enumerate() {
                let mut bits = bits;
                while bits != 0 {
                    let x = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    match loc[x] {
                        Some(Loc::Pred(p)) => preds[usize::from(p)] = true,
                        Some(Loc::Reg(r) | Loc::SpilledPred(r)) => regs[usize::from(r)] = true,
                        Some(Loc::Pair(r)) => (regs[usize::from(r)], regs[usize::from(r) + 1]) = (true, true),
                        Some(Loc::Spilled { .. }) | None => {}
                    }
                }
            }
            // Where the register is first mentioned, for the message when none is free.
            let at = || match items[insts.iter().find(|m| ids[m.defs.start..m.uses.end].contains(&id)).map_or(0, |m| m.item)] {
                Item::Inst(i) => i.span,
                Item::Label(_, span) => span,
            };
            // The register of a copy partner, where it is free: the copy then vanishes.
            let partner = partners[id].iter().find_map(|&other| match loc[other] {
                Some(Loc::Reg(r)) if !regs[usize::from(r)] => Some(Loc::Reg(r)),
                Some(Loc::Pair(r)) if !regs[usize::from(r)] && !regs[usize::from(r) + 1] => Some(Loc::Pair(r)),
                _ => None,
            });
            loc[id] = Some(match classes_of[id] {
                Class::Pred if spilled[id] => {
                    let r = (0..usable).find(|&r| !regs[r]).ok_or_else(|| too_many(at(), name))?;
                    highest = highest.max(r as u32);
                    Loc::SpilledPred(r as u8)
                }
                Class::Pred => match preds[..pred_colours].iter().position(|used| !used) {
                    Some(p) => Loc::Pred(p as u8),
                    None => {
                        uncoloured.push(id);
                        continue;
                    }
                },
                Class::Word { .. } | Class::Pair if spilled[id] => Loc::Spilled { offset: 0, pair: classes_of[id] == Class::Pair },
                Class::Word { .. } if matches!(partner, Some(Loc::Reg(_))) => partner.expect("matched"),
                Class::Pair if matches!(partner, Some(Loc::Pair(_))) => partner.expect("matched"),
                Class::Word { .. } => match (0..usable).find(|&r| !regs[r]) {
                    Some(r) => {
                        highest = highest.max(r as u32);
                        Loc::Reg(r as u8)
                    }
                    None => {
                        uncoloured.push(id);
                        continue;
                    }
                },
                Class::Pair => match (0..usable.saturating_sub(1)).step_by(2).find(|&r| !regs[r] && !regs[r + 1]) {
                    Some(r) => {
                        highest = highest.max(r as u32 + 1);
                        Loc::Pair(r as u8)
                    }
                    None => {
                        uncoloured.push(id);
                        continue;
                    }
                },
            });
        }
        Ok(if uncoloured.is_empty() { Ok((loc, highest)) } else { Err(uncoloured) })
    }

    // ---- emitting -------------------------------------------------------------

    fn emit(&mut self, form: Form, operands: &[isa::Operand]) -> Result<()> {
        // Kepler to Pascal lack every form newer than simt's oldest target, and tensor cores.
        let lacks = match self.older {
            Some(_) => form.since() > isa::Target::ALL[0] || form.mma().is_some(),
            None => self.target.is_some_and(|target| form.since() > target),
        };
        if let Some(target) = self.target
            && lacks
        {
            let needs = form.since();
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
        let mut inst = Instruction { form, guard: self.guard, operands: [isa::Operand::None; isa::MAX_OPERANDS] };
        inst.operands[..operands.len()].copy_from_slice(operands);
        self.b.push(inst, self.line).map_err(|e| Diagnostic::new(self.span, e.to_string()))?;
        self.spans.push(self.span);
        Ok(())
    }

    fn op(&mut self, opcode: Opcode, operands: &[isa::Operand]) -> Result<()> {
        self.emit(Form::new(opcode), operands)
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
        if bits < 32 {
            self.op(Opcode::And, &[dst(d), src(Src::reg(d)), src(Src::imm((1u32 << bits) - 1))])?;
        }
        Ok(())
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

    /// The spilled predicate `name`'s register, if it is one.
    fn spilled(&self, name: &str) -> Option<u8> {
        match self.locs.get(name) {
            Some(Loc::SpilledPred(r)) => Some(*r),
            _ => None,
        }
    }

    /// Moves the spilled predicates `inst` reads into scratch predicates and points its
    /// spilled destination at one; returns the destination's register, to write back.
    fn unspill(&mut self, inst: &'t ast::Instruction<'a>) -> Result<Option<(u8, u8)>> {
        self.aliases.clear();
        let mut free = SCRATCH_PREDS.iter().copied();
        let read = |entry: &mut Self, name: &'a str, free: &mut dyn Iterator<Item = u8>| -> Result<()> {
            let Some(r) = entry.spilled(name) else { return Ok(()) };
            if entry.aliases.iter().any(|(n, _)| *n == name) {
                return Ok(());
            }
            let p = free.next().ok_or_else(|| Diagnostic::new(inst.span, "this instruction reads more spilled predicates than simt can carry (two)"))?;
            let saved = std::mem::replace(&mut entry.guard, isa::Guard::ALWAYS);
            entry.emit(
                Form::Isetp(mods::Isetp { cmp: isa::Cmp::Ne, ty: isa::IntType::U32, bop: isa::BoolOp::And }),
                &[isa::Operand::Pred(p), src(Src::reg(r)), src(Src::reg(RZ)), isa::Operand::PredSrc { pred: isa::PT, negated: false }],
            )?;
            entry.guard = saved;
            entry.aliases.push((name, p));
            Ok(())
        };
        if let Some(g) = inst.guard {
            read(self, g.predicate, &mut free)?;
        }
        let writes_first = !matches!(inst.op, Op::St(_) | Op::Red(_) | Op::Bra(_) | Op::Call(_));
        let mut mentioned = Vec::new();
        for (k, operand) in inst.operands.iter().enumerate() {
            if k == 0 && writes_first {
                continue;
            }
            mentioned.clear();
            operand.names(&mut mentioned);
            for &name in &mentioned {
                read(self, name, &mut free)?;
            }
        }
        let written = match inst.operands.first().map(|o| &o.kind) {
            Some(OperandKind::Name(name)) if writes_first => self.spilled(name).map(|r| (*name, r)),
            _ => None,
        };
        Ok(written.map(|(name, r)| {
            // The result goes to the last scratch predicate: one read there is read first.
            let p = SCRATCH_PREDS[SCRATCH_PREDS.len() - 1];
            self.aliases.retain(|(n, _)| *n != name);
            self.aliases.push((name, p));
            (r, p)
        }))
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

    /// A 32-bit source: a register (the low word of a pair), a literal, or a variable's address.
    fn src32(&self, o: &ast::Operand<'a>) -> Result<Src> {
        match o.kind {
            OperandKind::Name(n) if self.locs.contains_key(n) => Ok(Src::reg(self.word(o)?)),
            OperandKind::Name(n) => Ok(self.symbol(n, o.span)?.value()),
            OperandKind::Immediate(Immediate::Int(v)) => {
                if (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&v) {
                    Ok(Src::imm(v as u32))
                } else {
                    Err(Diagnostic::new(o.span, format!("{v} does not fit 32 bits")))
                }
            }
            OperandKind::Immediate(Immediate::F32(bits)) => Ok(Src::imm(bits)),
            _ => Err(Diagnostic::new(o.span, "expected a 32-bit register or literal")),
        }
    }

    /// A 64-bit source: a pair, a literal (sign-extended from 32 bits where it fits,
    /// otherwise moved into a scratch pair), or a variable's address.
    fn src64(&mut self, o: &ast::Operand<'a>) -> Result<Src> {
        match o.kind {
            OperandKind::Name(n) if self.locs.contains_key(n) => Ok(Src::reg(self.pair(o)?)),
            OperandKind::Name(n) => Ok(self.symbol(n, o.span)?.value()),
            OperandKind::Immediate(Immediate::Int(v)) if i32::try_from(v).is_ok() => Ok(Src::imm(v as i32 as u32)),
            OperandKind::Immediate(Immediate::Int(v)) => self.wide_literal(v as u64),
            OperandKind::Immediate(Immediate::F64(bits)) => self.wide_literal(bits),
            _ => Err(Diagnostic::new(o.span, "expected a 64-bit register or literal")),
        }
    }

    /// A 64-bit source where the instruction needs a register pair (the first source of the
    /// 64-bit rows): a literal goes to the scratch pair first, sign-extended from 32 bits.
    fn pair_src(&mut self, o: &ast::Operand<'a>) -> Result<Src> {
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
        match o.kind {
            OperandKind::Immediate(Immediate::F64(bits)) => Ok(Src::Imm { bits, wide: true }),
            _ => Ok(Src::reg(self.pair(o)?)),
        }
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
        let reloaded = if self.reload.is_some() { self.reload_spilled(inst)? } else { Vec::new() };
        let write_back = self.unspill(inst)?;
        self.guard = match inst.guard {
            None => isa::Guard::ALWAYS,
            Some(g) => {
                let p = self.pred(&ast::Operand { kind: OperandKind::Name(g.predicate), span: g.span })?;
                isa::Guard { pred: p, negated: g.negated }
            }
        };
        self.operation(inst)?;
        if let Some((r, p)) = write_back {
            let pred = isa::Operand::PredSrc { pred: p, negated: false };
            self.op(Opcode::Sel, &[dst(r), src(Src::imm(1)), src(Src::imm(0)), pred])?;
        }
        if !reloaded.is_empty() {
            self.guard = isa::Guard::ALWAYS;
            self.store_spilled(inst, reloaded)?;
        }
        Ok(())
    }

    /// Loads every spilled register `inst` mentions into a reload register, which stands
    /// for it until [`store_spilled`](Self::store_spilled); returns what it replaced. The
    /// loads are unguarded and include destinations, so lanes the instruction leaves alone
    /// store back the value they had.
    fn reload_spilled(&mut self, inst: &'t ast::Instruction<'a>) -> Result<Vec<(&'a str, Loc)>> {
        let mut names = Vec::new();
        for operand in &inst.operands {
            operand.names(&mut names);
        }
        let (mut next, end) = (u32::from(self.reload.unwrap_or(0)), u32::from(self.reload.unwrap_or(0)) + RELOAD_REGS);
        let mut reloaded = Vec::new();
        for name in names {
            let Some(&spill @ Loc::Spilled { offset, pair }) = self.locs.get(name) else { continue };
            next = if pair { next.next_multiple_of(2) } else { next };
            let width = if pair { 2 } else { 1 };
            if next + width > end {
                return Err(Diagnostic::new(
                    inst.span,
                    format!("this instruction names more spilled registers than simt can reload at once ({RELOAD_REGS} registers)"),
                ));
            }
            let (r, ty) = (next as u8, if pair { isa::MemType::B64 } else { isa::MemType::U32 });
            next += width;
            self.emit(
                Form::Ld(mods::Ld { space: isa::Space::Local, vec: isa::VecWidth::Scalar, ty }),
                &[dst(r), isa::Operand::Addr { base: RZ, offset: offset as i32 }],
            )?;
            self.locs.insert(name, if pair { Loc::Pair(r) } else { Loc::Reg(r) });
            reloaded.push((name, spill));
        }
        Ok(reloaded)
    }

    /// Stores the reload registers `inst` wrote back to their spilled registers' LOCAL
    /// slots, and puts the spilled locations back.
    fn store_spilled(&mut self, inst: &'t ast::Instruction<'a>, reloaded: Vec<(&'a str, Loc)>) -> Result<()> {
        let mut written = Vec::new();
        let writes_first = !matches!(inst.op, Op::St(_) | Op::Red(_) | Op::Bra(_) | Op::Call(_));
        if writes_first && let Some(first) = inst.operands.first() {
            first.names(&mut written);
        }
        // Instructions that write a second destination (`ld`'s vector braces are the first
        // operand; `shfl`, `mma` and friends write only their first too).
        for (name, spill) in reloaded {
            let Loc::Spilled { offset, pair } = spill else { continue };
            if written.contains(&name) {
                let r = match self.locs.get(name) {
                    Some(Loc::Reg(r) | Loc::Pair(r)) => *r,
                    _ => continue,
                };
                let ty = if pair { isa::MemType::B64 } else { isa::MemType::U32 };
                self.emit(
                    Form::St(mods::St { space: isa::Space::Local, vec: isa::VecWidth::Scalar, ty }),
                    &[isa::Operand::Addr { base: RZ, offset: offset as i32 }, src(Src::reg(r))],
                )?;
            }
            self.locs.insert(name, spill);
        }
        Ok(())
    }

    fn operation(&mut self, inst: &'t ast::Instruction<'a>) -> Result<()> {
        let unsupported = |what: String| unsupported(inst, what);
        let op = inst.op;
        match op {
            // Scalar halves have no simt instruction: they widen to f32 exactly, the f32
            // operation rounds once, and rounding that to 16 bits is the correctly rounded
            // result (f32's 24 bits are at least 2 x 11 + 2, so the double rounding is
            // innocuous for +, - and x; min, max and ex2.approx need no such argument).
            Op::Add(a) | Op::Sub(a) | Op::Min(a) | Op::Max(a)
                if matches!(a.ty, Type::F16 | Type::Bf16) && !a.ftz && !a.sat && matches!(a.rounding, None | Some(px::Rounding::Rn)) =>
            {
                let form = match op {
                    Op::Add(_) | Op::Sub(_) => Form::Fadd(mods::Fadd { ftz: ftz(false), sat: sat(false) }),
                    Op::Min(_) => Form::Fmin(mods::Fmin { ftz: ftz(false) }),
                    _ => Form::Fmax(mods::Fmax { ftz: ftz(false) }),
                };
                self.half_via_f32(inst, a.ty, form, matches!(op, Op::Sub(_)))
            }
            Op::Mul(m) if matches!(m.ty, Type::F16 | Type::Bf16) && !m.ftz && !m.sat && matches!(m.rounding, None | Some(px::Rounding::Rn)) => {
                self.half_via_f32(inst, m.ty, Form::Fmul(mods::Fmul { ftz: ftz(false), sat: sat(false) }), false)
            }
            Op::Ex2(f) if matches!(f.ty, Type::F16 | Type::Bf16) && f.mode == px::FloatMode::Approx && !f.ftz => {
                self.half_via_f32(inst, f.ty, Form::Mufu(mods::Mufu { op: isa::MufuOp::Ex2 }), false)
            }
            Op::Add(a) | Op::Sub(a) => {
                let [d, x, y] = self.operands(inst)?;
                let sub = matches!(op, Op::Sub(_));
                if a.cc {
                    return Err(unsupported(format!("`{}` with a carry (`.cc`)", op.name())));
                }
                match class_of(a.ty) {
                    Some(Class::Word { bits }) if a.ty.is_integer() && !a.sat => {
                        let d = self.word(d)?;
                        let (x, y) = (self.src32(x)?, self.src32(y)?);
                        self.op(if sub { Opcode::Isub } else { Opcode::Iadd }, &[dst(d), src(x), src(y)])?;
                        self.narrow(d, bits)
                    }
                    Some(Class::Pair) if a.ty.is_integer() => {
                        let d = self.pair(d)?;
                        let (x, y) = (self.pair_src(x)?, self.src64(y)?);
                        self.op(if sub { Opcode::Isub64 } else { Opcode::Iadd64 }, &[dst(d), src(x), src(y)])
                    }
                    _ if a.ty == Type::F32 => {
                        let rounded = directed(a.rounding);
                        if rounded.is_none() {
                            rn_only(a.rounding, op, inst)?;
                        }
                        let d = self.word(d)?;
                        let (x, mut y) = (self.src32(x)?, self.src32(y)?);
                        if sub {
                            y = negate_f32(y);
                        }
                        match rounded {
                            // x * 1 + y rounds the sum once, and keeps every sign of zero an add gives.
                            Some(rnd) => self.emit(
                                Form::Ffma(mods::Ffma { ftz: ftz(a.ftz), sat: sat(a.sat), rnd }),
                                &[dst(d), src(x), src(Src::imm(1.0f32.to_bits())), src(y)],
                            ),
                            None => self.emit(Form::Fadd(mods::Fadd { ftz: ftz(a.ftz), sat: sat(a.sat) }), &[dst(d), src(x), src(y)]),
                        }
                    }
                    _ if a.ty == Type::F64 => {
                        let rnd = directed(a.rounding);
                        if rnd.is_none() {
                            rn_only(a.rounding, op, inst)?;
                        }
                        let d = self.pair(d)?;
                        let (x, mut y) = (self.src_f64(x)?, self.src_f64(y)?);
                        if sub {
                            y = match y {
                                Src::Reg { reg, .. } => Src::Reg { reg, neg: true, abs: false },
                                Src::Imm { bits, wide } => Src::Imm { bits: bits ^ (1 << 63), wide },
                            };
                        }
                        match rnd {
                            // x * 1 + y rounds the sum once.
                            Some(rnd) => self.emit(Form::Dfma(mods::Dfma { rnd }), &[dst(d), src(x), src(f64_imm(1.0)), src(y)]),
                            None => self.op(Opcode::Dadd, &[dst(d), src(x), src(y)]),
                        }
                    }
                    _ => Err(unsupported(format!("`{}{}{}`", op.name(), if a.sat { ".sat" } else { "" }, a.ty))),
                }
            }
            // A carry would be dropped silently: refused, as on `add.cc`.
            Op::Mad(m) if m.cc => Err(unsupported(format!("`{}` with a carry (`.cc`)", op.name()))),
            Op::Mul(m) | Op::Mad(m) => self.multiply(inst, m, matches!(op, Op::Mad(_))),
            Op::Fma(a) => {
                let [d, x, y, z] = self.operands(inst)?;
                let rnd = float_rounding(a.rounding, op, inst)?;
                match a.ty {
                    Type::F32 => {
                        let d = self.word(d)?;
                        let (x, y, z) = (self.src32(x)?, self.src32(y)?, self.src32(z)?);
                        self.emit(Form::Ffma(mods::Ffma { ftz: ftz(a.ftz), sat: sat(a.sat), rnd }), &[dst(d), src(x), src(y), src(z)])
                    }
                    Type::F64 => {
                        let d = self.pair(d)?;
                        let (x, y, z) = (self.src_f64(x)?, self.src_f64(y)?, self.src_f64(z)?);
                        self.emit(Form::Dfma(mods::Dfma { rnd }), &[dst(d), src(x), src(y), src(z)])
                    }
                    ty => Err(unsupported(format!("`fma{ty}`"))),
                }
            }
            // 16-bit operands, as registers keep them: zero-extended; signed ones are sign-extended
            // first, and the result is cut back to 16 bits.
            Op::Min(px::Arith { ty: ty @ (Type::S16 | Type::U16), .. })
            | Op::Max(px::Arith { ty: ty @ (Type::S16 | Type::U16), .. })
            | Op::Div(px::Div { ty: ty @ (Type::S16 | Type::U16), .. })
            | Op::Rem(px::Typed { ty: ty @ (Type::S16 | Type::U16) }) => {
                let [d, x, y] = self.operands(inst)?;
                let t = self.scratch;
                let (x, y) = (self.src32(x)?, self.src32(y)?);
                self.widen(t, x, ty)?;
                self.widen(t + 1, y, ty)?;
                let int = if ty == Type::S16 { isa::IntType::S32 } else { isa::IntType::U32 };
                let form = match op {
                    Op::Min(_) => Form::Imin(mods::Imin { ty: int }),
                    Op::Max(_) => Form::Imax(mods::Imax { ty: int }),
                    Op::Div(_) => Form::Idiv(mods::Idiv { ty: int }),
                    _ => Form::Irem(mods::Irem { ty: int }),
                };
                let d = self.word(d)?;
                self.emit(form, &[dst(d), src(Src::reg(t)), src(Src::reg(t + 1))])?;
                self.narrow(d, 16)
            }
            Op::Div(dv) => {
                let [d, x, y] = self.operands(inst)?;
                match (dv.ty, dv.mode, dv.ftz) {
                    // `.approx` and `.full` promise at most 2 ulp; simt rounds correctly (docs/ptx.md).
                    (
                        Type::F32,
                        Some(
                            mode @ (px::FloatMode::Rounded(px::Rounding::Rn | px::Rounding::Rz | px::Rounding::Rm | px::Rounding::Rp)
                            | px::FloatMode::Approx
                            | px::FloatMode::Full),
                        ),
                        ftz,
                    ) => {
                        let d = self.word(d)?;
                        let (x, y) = (self.src32(x)?, self.src32(y)?);
                        let (x, y) = (self.flushed(x, ftz, 0)?, self.flushed(y, ftz, 1)?);
                        let rnd = match mode {
                            px::FloatMode::Rounded(r) => directed(Some(r)).unwrap_or(isa::Round::Rn),
                            _ => isa::Round::Rn,
                        };
                        self.emit(Form::Fdiv(mods::Fdiv { rnd }), &[dst(d), src(x), src(y)])?;
                        self.flush_in_place(d, ftz)
                    }
                    (Type::S32 | Type::U32 | Type::S64 | Type::U64, None, false) => self.divide(dv.ty, false, [d, x, y]),
                    (Type::F64, Some(px::FloatMode::Rounded(r @ (px::Rounding::Rn | px::Rounding::Rz | px::Rounding::Rm | px::Rounding::Rp))), false) => {
                        let rnd = directed(Some(r)).unwrap_or(isa::Round::Rn);
                        let d = self.pair(d)?;
                        let (x, y) = (self.src_f64(x)?, self.src_f64(y)?);
                        self.emit(Form::Ddiv(mods::Ddiv { rnd }), &[dst(d), src(x), src(y)])
                    }
                    _ => Err(unsupported(format!("`div{}{}{}`", dv.mode.map_or(String::new(), |m| m.to_string()), if dv.ftz { ".ftz" } else { "" }, dv.ty)))
                        .map_err(|e| {
                            with_note(
                                e,
                                "supported: div.s32, div.u32, div.s64, div.u64, div.{rn,rz,rm,rp}.f32, div.approx.f32, div.full.f32, div.{rn,rz,rm,rp}.f64",
                            )
                        }),
                }
            }
            Op::Rem(t) if matches!(t.ty, Type::S32 | Type::U32 | Type::S64 | Type::U64) => {
                let [d, x, y] = self.operands(inst)?;
                self.divide(t.ty, true, [d, x, y])
            }
            Op::Bfe(t) if matches!(t.ty, Type::S64 | Type::U64) => {
                // With a literal position and length (bit fields of 64-bit values): the field
                // shifted to the top, then back down, arithmetically when signed.
                let [d, x, pos, len] = self.operands(inst)?;
                let (Some(pos), Some(len)) = (self.constant(pos), self.constant(len)) else {
                    return Err(unsupported(format!("`bfe{}` with a position or length in a register", t.ty)));
                };
                let (pos, len) = ((pos & 0xFF) as u32, (len & 0xFF) as u32);
                let ty = if t.ty == Type::S64 { isa::Int64Type::S64 } else { isa::Int64Type::U64 };
                let shr = Form::Shr64(mods::Shr64 { ty });
                let (d, x) = (self.pair(d)?, self.pair_src(x)?);
                match (len, pos) {
                    (0, _) => {
                        self.mov(d, Src::imm(0))?;
                        self.mov(d + 1, Src::imm(0))
                    }
                    // Past the top every bit is the extension: the sign (signed) or 0.
                    (_, 64..) => self.emit(shr, &[dst(d), src(x), src(Src::imm(if ty == isa::Int64Type::S64 { 63 } else { 64 }))]),
                    (_, _) if pos + len >= 64 => self.emit(shr, &[dst(d), src(x), src(Src::imm(pos))]),
                    _ => {
                        self.op(Opcode::Shl64, &[dst(d), src(x), src(Src::imm(64 - pos - len))])?;
                        self.emit(shr, &[dst(d), src(Src::reg(d)), src(Src::imm(64 - len))])
                    }
                }
            }
            Op::Bfe(t) if matches!(t.ty, Type::S32 | Type::U32) => {
                let [d, x, pos, len] = self.operands(inst)?;
                let d = self.word(d)?;
                let (x, pos, len) = (self.src32(x)?, self.src32(pos)?, self.src32(len)?);
                let ty = if t.ty == Type::S32 { isa::IntType::S32 } else { isa::IntType::U32 };
                self.emit(Form::Bfe(mods::Bfe { ty }), &[dst(d), src(x), src(pos), src(len)])
            }
            Op::Neg(a) | Op::Abs(a) => {
                let [d, x] = self.operands(inst)?;
                let neg = matches!(op, Op::Neg(_));
                match a.ty {
                    Type::S32 | Type::S16 => {
                        let d = self.word(d)?;
                        let x = self.src32(x)?;
                        if neg {
                            self.op(Opcode::Isub, &[dst(d), src(Src::reg(RZ)), src(x)])?;
                        } else {
                            let t = self.scratch;
                            self.extend_sign(t, x, a.ty.bits())?;
                            self.op(Opcode::Iabs, &[dst(d), src(Src::reg(t))])?;
                        }
                        self.narrow(d, a.ty.bits())
                    }
                    // -x is x * -1; |x| the larger of x and -x (both wrap at i64::MIN, as PTX's do).
                    Type::S64 => {
                        let (d, x, t) = (self.pair(d)?, Src::reg(self.pair(x)?), self.scratch);
                        let minus_one = Src::imm(u32::MAX);
                        if neg {
                            return self.op(Opcode::Imul64, &[dst(d), src(x), src(minus_one)]);
                        }
                        self.op(Opcode::Imul64, &[dst(t), src(x), src(minus_one)])?;
                        self.emit(Form::Imax64(mods::Imax64 { ty: isa::Int64Type::S64 }), &[dst(d), src(x), src(Src::reg(t))])
                    }
                    // Sign-bit operations, exact for every input as PTX defines them (`.ftz` flushes first).
                    Type::F32 => {
                        let d = self.word(d)?;
                        let x = self.src32(x)?;
                        let x = self.flushed(x, a.ftz, 0)?;
                        let (opcode, mask) = if neg { (Opcode::Xor, 0x8000_0000) } else { (Opcode::And, 0x7FFF_FFFF) };
                        self.op(opcode, &[dst(d), src(x), src(Src::imm(mask))])
                    }
                    Type::F64 => {
                        let (d, x) = (self.pair(d)?, self.pair(x)?);
                        self.mov(d, Src::reg(x))?;
                        let (opcode, mask) = if neg { (Opcode::Xor, 0x8000_0000) } else { (Opcode::And, 0x7FFF_FFFF) };
                        self.op(opcode, &[dst(d + 1), src(Src::reg(x + 1)), src(Src::imm(mask))])
                    }
                    // The sign bits of a half, bf16, or each of a pair.
                    Type::F16 | Type::Bf16 | Type::F16x2 | Type::Bf16x2 if !a.ftz => {
                        let d = self.word(d)?;
                        let x = self.src32(x)?;
                        let pair = matches!(a.ty, Type::F16x2 | Type::Bf16x2);
                        let (opcode, mask) = match (neg, pair) {
                            (true, true) => (Opcode::Xor, 0x8000_8000),
                            (true, false) => (Opcode::Xor, 0x8000),
                            (false, true) => (Opcode::And, 0x7FFF_7FFF),
                            (false, false) => (Opcode::And, 0x7FFF),
                        };
                        self.op(opcode, &[dst(d), src(x), src(Src::imm(mask))])
                    }
                    ty => Err(unsupported(format!("`{}{}{ty}`", op.name(), if a.ftz { ".ftz" } else { "" }))),
                }
            }
            Op::Min(a) | Op::Max(a) if matches!(a.ty, Type::S64 | Type::U64) => {
                let [d, x, y] = self.operands(inst)?;
                let ty = if a.ty == Type::S64 { isa::Int64Type::S64 } else { isa::Int64Type::U64 };
                let form = if matches!(op, Op::Max(_)) { Form::Imax64(mods::Imax64 { ty }) } else { Form::Imin64(mods::Imin64 { ty }) };
                let d = self.pair(d)?;
                let (x, y) = (self.pair_src(x)?, self.src64(y)?);
                self.emit(form, &[dst(d), src(x), src(y)])
            }
            Op::Min(a) | Op::Max(a) if a.ty == Type::F64 => {
                let [d, x, y] = self.operands(inst)?;
                let d = self.pair(d)?;
                let (x, y) = (self.src_f64(x)?, self.src_f64(y)?);
                self.op(if matches!(op, Op::Max(_)) { Opcode::Dmax } else { Opcode::Dmin }, &[dst(d), src(x), src(y)])
            }
            Op::Min(a) | Op::Max(a) => {
                let [d, x, y] = self.operands(inst)?;
                let max = matches!(op, Op::Max(_));
                let dd = self.word(d)?;
                let (x, y) = (self.src32(x)?, self.src32(y)?);
                let ops = [dst(dd), src(x), src(y)];
                match a.ty {
                    Type::S32 | Type::U32 => {
                        let ty = if a.ty == Type::S32 { isa::IntType::S32 } else { isa::IntType::U32 };
                        self.emit(if max { Form::Imax(mods::Imax { ty }) } else { Form::Imin(mods::Imin { ty }) }, &ops)
                    }
                    Type::F32 => {
                        let f = ftz(a.ftz);
                        self.emit(if max { Form::Fmax(mods::Fmax { ftz: f }) } else { Form::Fmin(mods::Fmin { ftz: f }) }, &ops)
                    }
                    ty => Err(unsupported(format!("`{}{ty}`", op.name()))),
                }
            }
            Op::And(t) | Op::Or(t) | Op::Xor(t) => {
                let [d, x, y] = self.operands(inst)?;
                let (opcode, bop) = match op {
                    Op::And(_) => (Opcode::And, isa::BoolOp::And),
                    Op::Or(_) => (Opcode::Or, isa::BoolOp::Or),
                    _ => (Opcode::Xor, isa::BoolOp::Xor),
                };
                match class_of(t.ty) {
                    Some(Class::Pred) => {
                        let (d, x, y) = (self.pred(d)?, self.pred_src(x)?, self.pred_src(y)?);
                        self.emit(Form::Plop(mods::Plop { bop }), &[isa::Operand::Pred(d), x, y])
                    }
                    Some(Class::Word { .. }) => {
                        let d = self.word(d)?;
                        let (x, y) = (self.src32(x)?, self.src32(y)?);
                        self.op(opcode, &[dst(d), src(x), src(y)])
                    }
                    Some(Class::Pair) => {
                        let d = self.pair(d)?;
                        let (xl, xh) = self.halves(x)?;
                        let (yl, yh) = self.halves(y)?;
                        self.op(opcode, &[dst(d), src(xl), src(yl)])?;
                        self.op(opcode, &[dst(d + 1), src(xh), src(yh)])
                    }
                    None => Err(unsupported(format!("`{}{}`", op.name(), t.ty))),
                }
            }
            Op::Not(t) => {
                let [d, x] = self.operands(inst)?;
                match class_of(t.ty) {
                    Some(Class::Pred) => {
                        let (d, x) = (self.pred(d)?, self.pred_src(x)?);
                        let isa::Operand::PredSrc { pred, negated } = x else { unreachable!("pred_src makes PredSrc") };
                        let not_x = isa::Operand::PredSrc { pred, negated: !negated };
                        let pt = isa::Operand::PredSrc { pred: isa::PT, negated: false };
                        self.emit(Form::Plop(mods::Plop { bop: isa::BoolOp::And }), &[isa::Operand::Pred(d), not_x, pt])
                    }
                    Some(Class::Word { bits }) => {
                        let d = self.word(d)?;
                        let x = self.src32(x)?;
                        self.op(Opcode::Not, &[dst(d), src(x)])?;
                        self.narrow(d, bits)
                    }
                    Some(Class::Pair) => {
                        let d = self.pair(d)?;
                        let (xl, xh) = self.halves(x)?;
                        self.op(Opcode::Not, &[dst(d), src(xl)])?;
                        self.op(Opcode::Not, &[dst(d + 1), src(xh)])
                    }
                    None => Err(unsupported(format!("`not{}`", t.ty))),
                }
            }
            Op::Shl(t) | Op::Shr(t) => {
                let [d, x, y] = self.operands(inst)?;
                let shl = matches!(op, Op::Shl(_));
                match class_of(t.ty) {
                    Some(Class::Word { bits }) => {
                        let d = self.word(d)?;
                        let (mut x, y) = (self.src32(x)?, self.src32(y)?);
                        // Narrow values are kept zero-extended: an arithmetic shift needs the sign first.
                        if !shl && t.ty.is_signed() && bits < 32 {
                            self.widen(self.scratch, x, t.ty)?;
                            x = Src::reg(self.scratch);
                        }
                        let form = if shl {
                            Form::new(Opcode::Shl)
                        } else {
                            Form::Shr(mods::Shr { ty: if t.ty.is_signed() { isa::IntType::S32 } else { isa::IntType::U32 } })
                        };
                        self.emit(form, &[dst(d), src(x), src(y)])?;
                        self.narrow(d, bits)
                    }
                    Some(Class::Pair) => {
                        let d = self.pair(d)?;
                        let x = self.pair_src(x)?;
                        let y = self.src32(y)?;
                        let form = if shl {
                            Form::new(Opcode::Shl64)
                        } else {
                            Form::Shr64(mods::Shr64 { ty: if t.ty.is_signed() { isa::Int64Type::S64 } else { isa::Int64Type::U64 } })
                        };
                        self.emit(form, &[dst(d), src(x), src(y)])
                    }
                    _ => Err(unsupported(format!("`{}{}`", op.name(), t.ty))),
                }
            }
            Op::Popc(t) | Op::Clz(t) | Op::Brev(t) if t.ty.bits() == 32 => {
                let [d, x] = self.operands(inst)?;
                let opcode = match op {
                    Op::Popc(_) => Opcode::Popc,
                    Op::Clz(_) => Opcode::Clz,
                    _ => Opcode::Brev,
                };
                let d = self.word(d)?;
                let x = self.src32(x)?;
                self.op(opcode, &[dst(d), src(x)])
            }
            Op::Popc(t) | Op::Clz(t) | Op::Brev(t) if t.ty.bits() == 64 => {
                let [d, x] = self.operands(inst)?;
                let ((lo, hi), c, l) = (self.halves(x)?, self.scratch, self.scratch + 1);
                match op {
                    Op::Popc(_) => {
                        let d = self.word(d)?;
                        self.op(Opcode::Popc, &[dst(c), src(lo)])?;
                        self.op(Opcode::Popc, &[dst(d), src(hi)])?;
                        self.op(Opcode::Iadd, &[dst(d), src(Src::reg(d)), src(Src::reg(c))])
                    }
                    // clz(hi), plus clz(lo) when hi is 0 (clz(hi) = 32): lo's count masked by 0 - (clz(hi) >> 5).
                    Op::Clz(_) => {
                        let d = self.word(d)?;
                        self.op(Opcode::Clz, &[dst(c), src(hi)])?;
                        self.op(Opcode::Clz, &[dst(l), src(lo)])?;
                        self.emit(Form::Shr(mods::Shr { ty: isa::IntType::U32 }), &[dst(d), src(Src::reg(c)), src(Src::imm(5))])?;
                        self.op(Opcode::Isub, &[dst(d), src(Src::reg(isa::RZ)), src(Src::reg(d))])?;
                        self.op(Opcode::And, &[dst(d), src(Src::reg(d)), src(Src::reg(l))])?;
                        self.op(Opcode::Iadd, &[dst(d), src(Src::reg(d)), src(Src::reg(c))])
                    }
                    _ => {
                        let d = self.pair(d)?;
                        self.op(Opcode::Brev, &[dst(c), src(hi)])?;
                        self.op(Opcode::Brev, &[dst(d + 1), src(lo)])?;
                        self.mov(d, Src::reg(c))
                    }
                }
            }
            Op::Bfind(b) if matches!(b.ty, Type::U32 | Type::S32) => {
                let [d, x] = self.operands(inst)?;
                let (d, x) = (self.word(d)?, self.src32(x)?);
                let (c, all) = (self.scratch, self.scratch + 1);
                let x = if b.ty == Type::S32 {
                    // The most significant bit that differs from the sign: that of x, or of !x when negative.
                    self.emit(Form::Shr(mods::Shr { ty: isa::IntType::S32 }), &[dst(c), src(x), src(Src::imm(31))])?;
                    self.op(Opcode::Xor, &[dst(c), src(x), src(Src::reg(c))])?;
                    Src::reg(c)
                } else {
                    x
                };
                // CLZ is 32 only for 0, which gives all ones: OR with 0 - (clz >> 5).
                self.op(Opcode::Clz, &[dst(c), src(x)])?;
                self.emit(Form::Shr(mods::Shr { ty: isa::IntType::U32 }), &[dst(all), src(Src::reg(c)), src(Src::imm(5))])?;
                self.op(Opcode::Isub, &[dst(all), src(Src::reg(isa::RZ)), src(Src::reg(all))])?;
                if !b.shiftamt {
                    // The bit's position, 31 - clz, is clz ^ 31 for clz below 32.
                    self.op(Opcode::Xor, &[dst(c), src(Src::reg(c)), src(Src::imm(31))])?;
                }
                self.op(Opcode::Or, &[dst(d), src(Src::reg(c)), src(Src::reg(all))])
            }
            Op::Copysign(t) if matches!(t.ty, Type::F32 | Type::F64) => {
                // `d` is `b` with the sign of `a`: bit 31 of the (high) word.
                let [d, a, b] = self.operands(inst)?;
                let (sign, magnitude) = (self.scratch, self.scratch + 1);
                let (d, a_hi, b_hi) = if t.ty == Type::F32 {
                    (self.word(d)?, self.src32(a)?, self.src32(b)?)
                } else {
                    let (d, (_, a_hi), (b_lo, b_hi)) = (self.pair(d)?, self.halves(a)?, self.halves(b)?);
                    self.mov(magnitude, b_hi)?;
                    self.mov(d, b_lo)?;
                    (d + 1, a_hi, Src::reg(magnitude))
                };
                self.op(Opcode::And, &[dst(sign), src(a_hi), src(Src::imm(0x8000_0000))])?;
                self.op(Opcode::And, &[dst(magnitude), src(b_hi), src(Src::imm(0x7FFF_FFFF))])?;
                self.op(Opcode::Or, &[dst(d), src(Src::reg(sign)), src(Src::reg(magnitude))])
            }
            Op::Setp(s) => self.setp(inst, s),
            Op::Set(s) => self.set(inst, s),
            Op::Selp(t) => {
                let [d, x, y, p] = self.operands(inst)?;
                let p = self.pred_src(p)?;
                match class_of(t.ty) {
                    Some(Class::Word { .. }) => {
                        let d = self.word(d)?;
                        let (x, y) = (self.src32(x)?, self.src32(y)?);
                        self.op(Opcode::Sel, &[dst(d), src(x), src(y), p])
                    }
                    Some(Class::Pair) => {
                        let d = self.pair(d)?;
                        let (xl, xh) = self.halves(x)?;
                        let (yl, yh) = self.halves(y)?;
                        self.op(Opcode::Sel, &[dst(d), src(xl), src(yl), p])?;
                        self.op(Opcode::Sel, &[dst(d + 1), src(xh), src(yh), p])
                    }
                    _ => Err(unsupported(format!("`selp{}`", t.ty))),
                }
            }
            // f64 reciprocal and square root, correctly rounded (`.approx` promises less).
            Op::Rcp(f) | Op::Sqrt(f)
                if matches!((f.ty, f.mode), (Type::F32 | Type::F64, px::FloatMode::Rounded(px::Rounding::Rz | px::Rounding::Rm | px::Rounding::Rp)))
                    && (!f.ftz || f.ty == Type::F32) =>
            {
                let px::FloatMode::Rounded(r) = f.mode else { unreachable!("matched above") };
                let rnd = directed(Some(r)).expect("matched above");
                let [d, x] = self.operands(inst)?;
                match (f.ty, op) {
                    (Type::F32, _) => {
                        let (d, x) = (self.word(d)?, self.src32(x)?);
                        let x = self.flushed(x, f.ftz, 0)?;
                        match op {
                            Op::Rcp(_) => self.emit(Form::Fdiv(mods::Fdiv { rnd }), &[dst(d), src(Src::imm(1.0f32.to_bits())), src(x)])?,
                            _ => self.emit(Form::Fsqrt(mods::Fsqrt { rnd }), &[dst(d), src(x)])?,
                        }
                        self.flush_in_place(d, f.ftz)
                    }
                    (_, Op::Rcp(_)) => {
                        let (d, x) = (self.pair(d)?, self.src_f64(x)?);
                        self.emit(Form::Ddiv(mods::Ddiv { rnd }), &[dst(d), src(f64_imm(1.0)), src(x)])
                    }
                    _ => {
                        let (d, x) = (self.pair(d)?, self.src_f64(x)?);
                        self.emit(Form::Dsqrt(mods::Dsqrt { rnd }), &[dst(d), src(x)])
                    }
                }
            }
            Op::Rcp(f) | Op::Sqrt(f) if f.ty == Type::F64 && matches!(f.mode, px::FloatMode::Approx | px::FloatMode::Rounded(px::Rounding::Rn)) => {
                let [d, x] = self.operands(inst)?;
                let (d, x) = (self.pair(d)?, self.src_f64(x)?);
                match op {
                    Op::Rcp(_) => self.op(Opcode::Ddiv, &[dst(d), src(f64_imm(1.0)), src(x)]),
                    _ => self.op(Opcode::Dsqrt, &[dst(d), src(x)]),
                }
            }
            Op::Bfi(t) if t.ty == Type::B64 => {
                // With a literal position and length (how nvcc joins two words into one), the
                // field is a mask per word: a << pos merged into b under it.
                let [d, a, b, pos, len] = self.operands(inst)?;
                let (Some(pos), Some(len)) = (self.constant(pos), self.constant(len)) else {
                    return Err(unsupported("`bfi.b64` with a position or length in a register".into()));
                };
                let (pos, len) = ((pos & 0xFF) as u32, (len & 0xFF) as u32);
                let field = if pos >= 64 || len == 0 { 0 } else { (if len >= 64 { u64::MAX } else { (1u64 << len) - 1 }) << pos };
                let (d, (b_lo, b_hi), t) = (self.pair(d)?, self.halves(b)?, self.scratch);
                let a = self.pair_src(a)?;
                self.op(Opcode::Shl64, &[dst(t), src(a), src(Src::imm(pos.min(64)))])?;
                for (half, b_half) in [(0u32, b_lo), (1, b_hi)] {
                    let (mask, shifted, out) = ((field >> (32 * half)) as u32, Src::reg(t + half as u8), d + half as u8);
                    match mask {
                        0 => self.mov(out, b_half)?,
                        u32::MAX => self.mov(out, shifted)?,
                        // b ^ ((b ^ shifted) & mask)
                        mask => {
                            self.op(Opcode::Xor, &[dst(t + 2), src(b_half), src(shifted)])?;
                            self.op(Opcode::And, &[dst(t + 2), src(Src::reg(t + 2)), src(Src::imm(mask))])?;
                            self.op(Opcode::Xor, &[dst(out), src(b_half), src(Src::reg(t + 2))])?;
                        }
                    }
                }
                Ok(())
            }
            Op::Bfi(t) if matches!(t.ty, Type::B32 | Type::U32 | Type::S32) => {
                let [d, a, b, pos, len] = self.operands(inst)?;
                let d = self.word(d)?;
                let (a, b, pos, len) = (self.src32(a)?, self.src32(b)?, self.src32(pos)?, self.src32(len)?);
                self.op(Opcode::Bfi, &[dst(d), src(a), src(b), src(pos), src(len)])
            }
            Op::Rcp(f) | Op::Sqrt(f) | Op::Rsqrt(f) | Op::Ex2(f) | Op::Lg2(f) | Op::Sin(f) | Op::Cos(f) | Op::Tanh(f) if f.ty == Type::F32 => {
                let function = match op {
                    Op::Tanh(_) => isa::MufuOp::Tanh,
                    Op::Rcp(_) => isa::MufuOp::Rcp,
                    Op::Sqrt(_) => isa::MufuOp::Sqrt,
                    Op::Rsqrt(_) => isa::MufuOp::Rsq,
                    Op::Ex2(_) => isa::MufuOp::Ex2,
                    Op::Lg2(_) => isa::MufuOp::Lg2,
                    Op::Sin(_) => isa::MufuOp::Sin,
                    _ => isa::MufuOp::Cos,
                };
                let exact_or_approx = matches!(f.mode, px::FloatMode::Approx | px::FloatMode::Rounded(px::Rounding::Rn));
                if !exact_or_approx {
                    return Err(unsupported(format!("`{}` with this rounding", op.name())));
                }
                let [d, x] = self.operands(inst)?;
                let d = self.word(d)?;
                let x = self.src32(x)?;
                // MUFU computes in f64 and rounds once; `.ftz` flushes the input and the result.
                let x = self.flushed(x, f.ftz, 0)?;
                self.emit(Form::Mufu(mods::Mufu { op: function }), &[dst(d), src(x)])?;
                self.flush_in_place(d, f.ftz)
            }
            Op::Cvt(c) => self.cvt(inst, c),
            // A generic address is the address in its space (simt has no generic window;
            // `spaces` resolves generic accesses statically), so every `cvta` is a move.
            Op::Cvta(_) => {
                let [d, x] = self.operands(inst)?;
                let d = self.pair(d)?;
                let (xl, xh) = self.halves(x)?;
                self.mov(d, xl)?;
                self.mov(d + 1, xh)
            }
            Op::Mov(t) => self.mov_instruction(inst, t),
            Op::Ld(m) | Op::St(m) => self.memory(inst, m, matches!(op, Op::Ld(_))),
            Op::Atom(a) | Op::Red(a) => self.atomic(inst, a, matches!(op, Op::Red(_))),
            Op::Bar(bar) => {
                let barrier_zero = matches!(inst.operands.as_slice(), [ast::Operand { kind: OperandKind::Immediate(Immediate::Int(0)), .. }]);
                if bar.action != px::BarAction::Sync || !barrier_zero {
                    return Err(with_note(unsupported("this barrier".into()), "supported: `bar.sync 0` and `barrier.sync 0` (`__syncthreads()`)"));
                }
                self.op(Opcode::BarSync, &[])
            }
            Op::BarWarpSync => {
                let [mask] = self.operands(inst)?;
                self.full_mask(mask)?;
                self.op(Opcode::Warpsync, &[])
            }
            Op::Membar(m) => {
                let scope = if m.level == px::MembarLevel::Cta { isa::MembarScope::Cta } else { isa::MembarScope::Gl };
                self.emit(Form::Membar(mods::Membar { scope }), &[])
            }
            Op::Fence(f) => {
                let scope = if f.scope == px::Scope::Cta { isa::MembarScope::Cta } else { isa::MembarScope::Gl };
                self.emit(Form::Membar(mods::Membar { scope }), &[])
            }
            Op::Shfl(s) => self.shfl(inst, s),
            Op::Vote(v) => {
                if !v.sync {
                    return Err(with_note(
                        unsupported("`vote` without `.sync`".into()),
                        "write `vote.sync` with a member mask of `0xffffffff` (PTX has no `vote` without `.sync` from sm_70)",
                    ));
                }
                let [d, p, mask] = self.operands(inst)?;
                self.full_mask(mask)?;
                let q = self.pred_src(p)?;
                match v.mode {
                    px::VoteMode::Ballot => {
                        let d = self.word(d)?;
                        self.op(Opcode::VoteBallot, &[dst(d), q])
                    }
                    px::VoteMode::All | px::VoteMode::Any => {
                        let d = self.pred(d)?;
                        let mode = if v.mode == px::VoteMode::All { isa::VoteMode::All } else { isa::VoteMode::Any };
                        self.emit(Form::Vote(mods::Vote { mode }), &[isa::Operand::Pred(d), q])
                    }
                    // Uniform: no lane's `p` holds, or every lane's does (ballots of `p` and of
                    // the lanes voting, compared).
                    px::VoteMode::Uni => {
                        let (d, t) = (self.pred(d)?, self.scratch);
                        self.op(Opcode::VoteBallot, &[dst(t), q])?;
                        self.op(Opcode::VoteBallot, &[dst(t + 1), isa::Operand::PredSrc { pred: isa::PT, negated: false }])?;
                        let equal = |bop| Form::Isetp(mods::Isetp { cmp: isa::Cmp::Eq, ty: isa::IntType::U32, bop });
                        self.emit(
                            equal(isa::BoolOp::And),
                            &[isa::Operand::Pred(d), src(Src::reg(t)), src(Src::imm(0)), isa::Operand::PredSrc { pred: isa::PT, negated: false }],
                        )?;
                        self.emit(
                            equal(isa::BoolOp::Or),
                            &[isa::Operand::Pred(d), src(Src::reg(t)), src(Src::reg(t + 1)), isa::Operand::PredSrc { pred: d, negated: false }],
                        )
                    }
                }
            }
            Op::Redux(r) => {
                let [d, a, mask] = self.operands(inst)?;
                self.full_mask(mask)?;
                let op = match r.op {
                    px::ReduxOp::Add => isa::ReduxOp::Add,
                    px::ReduxOp::Min => isa::ReduxOp::Min,
                    px::ReduxOp::Max => isa::ReduxOp::Max,
                    px::ReduxOp::And => isa::ReduxOp::And,
                    px::ReduxOp::Or => isa::ReduxOp::Or,
                    px::ReduxOp::Xor => isa::ReduxOp::Xor,
                };
                let ty = if r.ty == Type::S32 { isa::IntType::S32 } else { isa::IntType::U32 };
                let (d, a) = (self.word(d)?, self.word(a)?);
                self.emit(Form::Redux(mods::Redux { op, ty }), &[dst(d), src(Src::reg(a))])
            }
            Op::Match(m) if m.ty.bits() == 32 => {
                let [d, a, mask] = self.operands(inst)?;
                if matches!(d.kind, OperandKind::Pair(..)) {
                    return Err(unsupported("`match.all` with a predicate output (`d|p`)".into()));
                }
                self.full_mask(mask)?;
                let mode = if m.mode == px::MatchMode::All { isa::MatchMode::All } else { isa::MatchMode::Any };
                let (d, a) = (self.word(d)?, self.word(a)?);
                self.emit(Form::Match(mods::Match { mode }), &[dst(d), src(Src::reg(a))])
            }
            Op::Activemask => {
                let [d] = self.operands(inst)?;
                let d = self.word(d)?;
                self.op(Opcode::VoteBallot, &[dst(d), isa::Operand::PredSrc { pred: isa::PT, negated: false }])
            }
            Op::Bra(_) => {
                let [target] = self.operands(inst)?;
                let OperandKind::Name(label) = target.kind else { return Err(Diagnostic::new(target.span, "expected a label")) };
                let label = self.b.label(self.labels.name(label));
                let pc = self.b.len() as u32;
                self.op(Opcode::Bra, &[isa::Operand::Label { target: 0, reconv: isa::NO_RECONV }])?;
                self.b.branch_to(pc, 0, label);
                Ok(())
            }
            Op::Mma(m) => self.mma(inst, m),
            Op::CpAsync(_) => self.cp_async(inst),
            // The copies complete as they issue: every group is complete when waited for.
            Op::CpAsyncCommit | Op::CpAsyncWait { .. } => Ok(()),
            Op::Ldmatrix(l) => self.ldmatrix(inst, l),
            // Calls were inlined (`inline.rs`), their `ret`s made branches: a `ret` here ends the kernel.
            Op::Ret(_) | Op::Exit => self.op(Opcode::Exit, &[]),
            Op::Trap => self.op(Opcode::Trap, &[]),
            Op::Shf(f) => {
                let [d, a, b, c] = self.operands(inst)?;
                let d = self.word(d)?;
                let (a, b, c) = (self.src32(a)?, self.src32(b)?, self.src32(c)?);
                let dir = if f.direction == px::ShfDirection::L { isa::ShfDir::L } else { isa::ShfDir::R };
                let amount = if f.mode == px::ShfMode::Wrap { isa::ShfAmount::Wrap } else { isa::ShfAmount::Clamp };
                self.emit(Form::Shf(mods::Shf { dir, amount }), &[dst(d), src(a), src(b), src(c)])
            }
            Op::Prmt(p) => {
                let [d, a, b, c] = self.operands(inst)?;
                let d = self.word(d)?;
                let (a, b, c) = (self.src32(a)?, self.src32(b)?, self.src32(c)?);
                let mode = match p.mode {
                    None => isa::PrmtMode::Idx,
                    Some(px::PrmtMode::F4e) => isa::PrmtMode::F4e,
                    Some(px::PrmtMode::B4e) => isa::PrmtMode::B4e,
                    Some(px::PrmtMode::Rc8) => isa::PrmtMode::Rc8,
                    Some(px::PrmtMode::Ecl) => isa::PrmtMode::Ecl,
                    Some(px::PrmtMode::Ecr) => isa::PrmtMode::Ecr,
                    Some(px::PrmtMode::Rc16) => isa::PrmtMode::Rc16,
                };
                self.emit(Form::Prmt(mods::Prmt { mode }), &[dst(d), src(a), src(b), src(c)])
            }
            _ => Err(unsupported(format!("`{op}`"))),
        }
    }

    /// `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32`: simt's
    /// `MMA.M16N8K16` has PTX's fragment layout, so the fragments only move into and out of
    /// consecutive scratch registers.
    /// `div` (or `rem`, with `rem`) of 32- or 64-bit integers: `IDIV`/`IREM` on words,
    /// `IDIV64`/`IREM64` on pairs.
    fn divide(&mut self, ty: Type, rem: bool, [d, x, y]: [&'t ast::Operand<'a>; 3]) -> Result<()> {
        let signed = matches!(ty, Type::S32 | Type::S64);
        if matches!(ty, Type::S64 | Type::U64) {
            let d = self.pair(d)?;
            let (x, y) = (self.pair_src(x)?, self.src64(y)?);
            let ty = if signed { isa::Int64Type::S64 } else { isa::Int64Type::U64 };
            let form = if rem { Form::Irem64(mods::Irem64 { ty }) } else { Form::Idiv64(mods::Idiv64 { ty }) };
            return self.emit(form, &[dst(d), src(x), src(y)]);
        }
        let d = self.word(d)?;
        let (x, y) = (self.src32(x)?, self.src32(y)?);
        let ty = if signed { isa::IntType::S32 } else { isa::IntType::U32 };
        let form = if rem { Form::Irem(mods::Irem { ty }) } else { Form::Idiv(mods::Idiv { ty }) };
        self.emit(form, &[dst(d), src(x), src(y)])
    }

    fn mma(&mut self, inst: &'t ast::Instruction<'a>, m: px::Mma) -> Result<()> {
        let input = match (m.a, m.b) {
            (Type::F16, Type::F16) => Some(isa::MmaIn::F16),
            (Type::Bf16, Type::Bf16) => Some(isa::MmaIn::BF16),
            _ => None,
        };
        let supported = m.shape == px::MmaShape::M16n8k16
            && m.a_layout == px::Layout::Row
            && m.b_layout == px::Layout::Col
            && m.d == Type::F32
            && m.c == Type::F32
            && !m.satfinite;
        let (Some(input), true) = (input, supported) else {
            return Err(with_note(
                Diagnostic::new(inst.op_span, format!("`{}` is not supported by the PTX front end yet", inst.op)),
                "supported: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 and its .bf16 form",
            ));
        };
        let [d, a, b, c] = self.operands(inst)?;
        let parts = |o: &'t ast::Operand<'a>, n: usize| -> Result<&'t [ast::Operand<'a>]> {
            match &o.kind {
                OperandKind::Vector(v) if v.len() == n => Ok(v),
                _ => Err(Diagnostic::new(o.span, format!("expected a vector of {n} registers"))),
            }
        };
        let (d, a, b, c) = (parts(d, 4)?, parts(a, 4)?, parts(b, 2)?, parts(c, 4)?);
        let t = self.scratch;
        let (ta, tb, tc) = (t, t + 4, t + 8);
        for (base, fragment) in [(ta, a), (tb, b), (tc, c)] {
            for (i, part) in fragment.iter().enumerate() {
                let x = self.src32(part)?;
                self.mov(base + i as u8, x)?;
            }
        }
        let form = Form::MmaM16n8k16(mods::MmaM16n8k16 { acc: isa::MmaAcc::F32, input });
        self.emit(form, &[dst(tc), src(Src::reg(ta)), src(Src::reg(tb)), src(Src::reg(tc))])?;
        for (i, part) in d.iter().enumerate() {
            let r = self.word(part)?;
            self.mov(r, Src::reg(tc + i as u8))?;
        }
        Ok(())
    }

    /// `cp.async [dst], [src], cp-size{, src-size}`: copied as it issues (a run of the kernel
    /// where every copy completes at once, which `cp.async.wait_group` allows). With a source
    /// size, only that many bytes are read and the rest are zeros: a word is loaded only where
    /// some of its bytes are read (Triton's masked-off lanes pass 0 and any address).
    fn cp_async(&mut self, inst: &'t ast::Instruction<'a>) -> Result<()> {
        let (to, from, size, source_size) = match inst.operands.as_slice() {
            [to, from, size] => (to, from, size, None),
            [to, from, size, source_size] => (to, from, size, Some(source_size)),
            _ => return Err(Diagnostic::new(inst.span, "`cp.async` takes a destination, a source, a size and optionally a source size")),
        };
        let bytes = match self.constant(size) {
            Some(b @ (4 | 8 | 16)) => b as u32,
            _ => return Err(Diagnostic::new(size.span, "`cp.async` copies 4, 8 or 16 bytes: the size must be one of those literals")),
        };
        let ((to, _), (from, _)) = (self.address(to)?, self.address(from)?);
        let isa::Operand::Addr { base, offset } = from else { return Err(Diagnostic::new(inst.span, "expected an address")) };
        let words = bytes / 4;
        let vec = match words {
            1 => isa::VecWidth::Scalar,
            2 => isa::VecWidth::V2,
            _ => isa::VecWidth::V4,
        };
        let t = self.scratch;
        let ty = if words == 1 { isa::MemType::U32 } else { isa::MemType::B32 };
        let store = Form::St(mods::St { space: isa::Space::Shared, vec, ty });
        let Some(source_size) = source_size else {
            self.emit(Form::Ld(mods::Ld { space: isa::Space::Global, vec, ty }), &[dst(t), from])?;
            return self.emit(store, &[to, src(Src::reg(t))]);
        };
        let n = self.src32(source_size)?;
        let guard = self.guard;
        let (p, mask) = (SCRATCH_PRED, t + 4);
        for w in 0..words as u8 {
            let w4 = 4 * u32::from(w);
            self.mov(t + w, Src::imm(0))?;
            // p: this word holds some of the first `n` bytes, and the instruction runs here.
            self.guard = isa::Guard::ALWAYS;
            let q = if guard == isa::Guard::ALWAYS { isa::PT } else { guard.pred };
            self.emit(
                Form::Isetp(mods::Isetp { cmp: isa::Cmp::Gt, ty: isa::IntType::U32, bop: isa::BoolOp::And }),
                &[isa::Operand::Pred(p), src(n), src(Src::imm(w4)), isa::Operand::PredSrc { pred: q, negated: guard != isa::Guard::ALWAYS && guard.negated }],
            )?;
            self.guard = isa::Guard { pred: p, negated: false };
            let at = isa::Operand::Addr { base, offset: offset.wrapping_add(w4 as i32) };
            self.emit(Form::Ld(mods::Ld { space: isa::Space::Global, vec: isa::VecWidth::Scalar, ty: isa::MemType::U32 }), &[dst(t + w), at])?;
            // Keep the word's first min(n - 4w, 4) bytes: AND with !(~0 << 8 min(n - 4w, 4)).
            self.op(Opcode::Iadd, &[dst(mask), src(n), src(Src::imm(w4.wrapping_neg()))])?;
            self.emit(Form::Imin(mods::Imin { ty: isa::IntType::U32 }), &[dst(mask), src(Src::reg(mask)), src(Src::imm(4))])?;
            self.op(Opcode::Shl, &[dst(mask), src(Src::reg(mask)), src(Src::imm(3))])?;
            self.op(Opcode::Shl, &[dst(mask + 1), src(Src::imm(u32::MAX)), src(Src::reg(mask))])?;
            self.op(Opcode::Not, &[dst(mask + 1), src(Src::reg(mask + 1))])?;
            self.op(Opcode::And, &[dst(t + w), src(Src::reg(t + w)), src(Src::reg(mask + 1))])?;
            self.guard = guard;
        }
        self.emit(store, &[to, src(Src::reg(t))])
    }

    /// `ldmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16 d, [a]`: lanes 8j to 8j + 7 give the
    /// row addresses of matrix j. Without `.trans`, lane l gets the 32-bit word l % 4 of row
    /// l / 4 of each matrix; with it, the 16-bit elements of column l / 4 in rows 2 (l % 4)
    /// and 2 (l % 4) + 1, the first in the low half. The row addresses travel by SHFL.
    fn ldmatrix(&mut self, inst: &'t ast::Instruction<'a>, l: px::Ldmatrix) -> Result<()> {
        let [d, a] = self.operands(inst)?;
        let parts: Vec<&'t ast::Operand<'a>> = match &d.kind {
            OperandKind::Vector(v) if v.len() == usize::from(l.count) => v.iter().collect(),
            OperandKind::Name(_) if l.count == 1 => vec![d],
            _ => return Err(Diagnostic::new(d.span, format!("expected {} destination registers", l.count))),
        };
        let (address, _) = self.address(a)?;
        let isa::Operand::Addr { base, offset } = address else { return Err(Diagnostic::new(a.span, "expected an address")) };
        let t = self.scratch;
        let (lane, row, source, at, column, lo, hi) = (t, t + 1, t + 2, t + 3, t + 4, t + 5, t + 6);
        let shfl = Form::Shfl(mods::Shfl { mode: isa::ShflMode::Idx });
        let shr = Form::Shr(mods::Shr { ty: isa::IntType::U32 });
        let load = |ty| Form::Ld(mods::Ld { space: isa::Space::Shared, vec: isa::VecWidth::Scalar, ty });
        self.op(Opcode::S2r, &[dst(lane), isa::Operand::Special(isa::SpecialReg::LaneId)])?;
        self.op(Opcode::Iadd, &[dst(row), src(Src::reg(base)), src(Src::imm(offset as u32))])?;
        for (j, part) in parts.iter().enumerate() {
            let first = 8 * j as u32;
            let r = self.word(part)?;
            if l.trans {
                self.op(Opcode::And, &[dst(source), src(Src::reg(lane)), src(Src::imm(3))])?;
                self.op(Opcode::Shl, &[dst(source), src(Src::reg(source)), src(Src::imm(1))])?;
                self.op(Opcode::Iadd, &[dst(source), src(Src::reg(source)), src(Src::imm(first))])?;
                self.emit(shr, &[dst(column), src(Src::reg(lane)), src(Src::imm(2))])?;
                self.op(Opcode::Shl, &[dst(column), src(Src::reg(column)), src(Src::imm(1))])?;
                for half in [lo, hi] {
                    self.emit(shfl, &[dst(at), src(Src::reg(row)), src(Src::reg(source)), isa::Operand::Imm(32)])?;
                    self.op(Opcode::Iadd, &[dst(at), src(Src::reg(at)), src(Src::reg(column))])?;
                    self.emit(load(isa::MemType::U16), &[dst(half), isa::Operand::Addr { base: at, offset: 0 }])?;
                    self.op(Opcode::Iadd, &[dst(source), src(Src::reg(source)), src(Src::imm(1))])?;
                }
                self.op(Opcode::Shl, &[dst(hi), src(Src::reg(hi)), src(Src::imm(16))])?;
                self.op(Opcode::Or, &[dst(r), src(Src::reg(lo)), src(Src::reg(hi))])?;
            } else {
                self.emit(shr, &[dst(source), src(Src::reg(lane)), src(Src::imm(2))])?;
                self.op(Opcode::Iadd, &[dst(source), src(Src::reg(source)), src(Src::imm(first))])?;
                self.emit(shfl, &[dst(at), src(Src::reg(row)), src(Src::reg(source)), isa::Operand::Imm(32)])?;
                self.op(Opcode::And, &[dst(column), src(Src::reg(lane)), src(Src::imm(3))])?;
                self.op(Opcode::Shl, &[dst(column), src(Src::reg(column)), src(Src::imm(2))])?;
                self.op(Opcode::Iadd, &[dst(at), src(Src::reg(at)), src(Src::reg(column))])?;
                self.emit(load(isa::MemType::U32), &[dst(r), isa::Operand::Addr { base: at, offset: 0 }])?;
            }
        }
        Ok(())
    }

    /// The low and high words of a 64-bit source.
    fn halves(&self, o: &ast::Operand<'a>) -> Result<(Src, Src)> {
        match o.kind {
            OperandKind::Name(n) if self.locs.contains_key(n) => {
                let r = self.pair(o)?;
                Ok((Src::reg(r), Src::reg(r + 1)))
            }
            OperandKind::Name(n) => Ok((self.symbol(n, o.span)?.value(), Src::imm(0))),
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

    /// `shfl.sync` and `vote.sync` must involve the whole warp.
    fn full_mask(&self, mask: &ast::Operand<'a>) -> Result<()> {
        match self.constant(mask) {
            Some(-1 | 0xFFFF_FFFF) => Ok(()),
            _ => Err(with_note(
                Diagnostic::new(mask.span, "the member mask must be 0xffffffff (the whole warp), and this one may not be"),
                "simt's warp collectives take every non-exited lane; partial masks are not supported",
            )),
        }
    }

    fn multiply(&mut self, inst: &'t ast::Instruction<'a>, m: px::Mul, mad: bool) -> Result<()> {
        let unsupported = |what: String| unsupported(inst, what);
        let name = if mad { "mad" } else { "mul" };
        let ops = inst.operands.as_slice();
        let (d, x, y, z) = match (mad, ops) {
            (false, [d, x, y]) => (d, x, y, None),
            (true, [d, x, y, z]) => (d, x, y, Some(z)),
            _ => return Err(Diagnostic::new(inst.span, format!("`{name}` takes {} operands", if mad { 4 } else { 3 }))),
        };
        if m.ty.is_float() {
            if let (Some(rnd), Type::F32) = (directed(m.rounding), m.ty) {
                // FFMA rounds `x * y + 0` once, so the product rounds as asked.
                let zero = (neutral_zero(rnd) >> 32) as u32;
                let d = self.word(d)?;
                let (x, y) = (self.src32(x)?, self.src32(y)?);
                let z = match z {
                    Some(z) => self.src32(z)?,
                    None => Src::imm(zero),
                };
                return self.emit(Form::Ffma(mods::Ffma { ftz: ftz(m.ftz), sat: sat(m.sat), rnd }), &[dst(d), src(x), src(y), src(z)]);
            }
            if let (Some(rnd), Type::F64) = (directed(m.rounding), m.ty) {
                let d = self.pair(d)?;
                let (x, y) = (self.src_f64(x)?, self.src_f64(y)?);
                let z = match z {
                    Some(z) => self.src_f64(z)?,
                    None => Src::Imm { bits: neutral_zero(rnd), wide: true },
                };
                return self.emit(Form::Dfma(mods::Dfma { rnd }), &[dst(d), src(x), src(y), src(z)]);
            }
            rn_only(m.rounding, inst.op, inst)?;
            return match (m.ty, z) {
                (Type::F32, None) => {
                    let d = self.word(d)?;
                    let (x, y) = (self.src32(x)?, self.src32(y)?);
                    self.emit(Form::Fmul(mods::Fmul { ftz: ftz(m.ftz), sat: sat(m.sat) }), &[dst(d), src(x), src(y)])
                }
                // `mad.rn.f32` is a fused multiply-add (PTX ISA, since sm_20).
                (Type::F32, Some(z)) => {
                    let d = self.word(d)?;
                    let (x, y, z) = (self.src32(x)?, self.src32(y)?, self.src32(z)?);
                    self.emit(Form::Ffma(mods::Ffma { ftz: ftz(m.ftz), sat: sat(m.sat), rnd: isa::Round::Rn }), &[dst(d), src(x), src(y), src(z)])
                }
                (Type::F64, None) => {
                    let d = self.pair(d)?;
                    let (x, y) = (self.src_f64(x)?, self.src_f64(y)?);
                    self.op(Opcode::Dmul, &[dst(d), src(x), src(y)])
                }
                (Type::F64, Some(z)) => {
                    let d = self.pair(d)?;
                    let (x, y, z) = (self.src_f64(x)?, self.src_f64(y)?, self.src_f64(z)?);
                    self.op(Opcode::Dfma, &[dst(d), src(x), src(y), src(z)])
                }
                (ty, _) => Err(unsupported(format!("`{name}{ty}`"))),
            };
        }
        let signed = if m.ty.is_signed() { isa::IntType::S32 } else { isa::IntType::U32 };
        let t = self.scratch;
        match (m.mode, m.ty.bits()) {
            (Some(px::MulMode::Lo), bits @ (16 | 32)) => {
                // The low bits of a product do not depend on the sources' signedness.
                let d = self.word(d)?;
                let (x, y) = (self.src32(x)?, self.src32(y)?);
                match z {
                    None => self.op(Opcode::Imul, &[dst(d), src(x), src(y)])?,
                    Some(z) => {
                        let z = self.src32(z)?;
                        self.op(Opcode::Imad, &[dst(d), src(x), src(y), src(z)])?;
                    }
                }
                self.narrow(d, bits)
            }
            (Some(px::MulMode::Hi), 32) => {
                let d = self.word(d)?;
                let (x, y) = (self.src32(x)?, self.src32(y)?);
                let high = Form::ImulHi(mods::ImulHi { ty: signed });
                match z {
                    None => self.emit(high, &[dst(d), src(x), src(y)]),
                    Some(z) => {
                        let z = self.src32(z)?;
                        self.emit(high, &[dst(t), src(x), src(y)])?;
                        self.op(Opcode::Iadd, &[dst(d), src(Src::reg(t)), src(z)])
                    }
                }
            }
            (Some(mode @ (px::MulMode::Hi | px::MulMode::Wide)), 16) => {
                // 16-bit registers hold their value zero-extended: a signed source is
                // sign-extended first, and the 32-bit product is then exact.
                let (mut x, mut y) = (self.src32(x)?, self.src32(y)?);
                if signed == isa::IntType::S32 {
                    self.extend_sign(t, x, 16)?;
                    self.extend_sign(t + 1, y, 16)?;
                    (x, y) = (Src::reg(t), Src::reg(t + 1));
                }
                let z = z.map(|z| self.src32(z)).transpose()?;
                let d = self.word(d)?;
                if mode == px::MulMode::Wide {
                    return match z {
                        None => self.op(Opcode::Imul, &[dst(d), src(x), src(y)]),
                        Some(z) => self.op(Opcode::Imad, &[dst(d), src(x), src(y), src(z)]),
                    };
                }
                self.op(Opcode::Imul, &[dst(t), src(x), src(y)])?;
                self.emit(Form::Shr(mods::Shr { ty: isa::IntType::U32 }), &[dst(t), src(Src::reg(t)), src(Src::imm(16))])?;
                match z {
                    None => self.mov(d, Src::reg(t))?,
                    Some(z) => self.op(Opcode::Iadd, &[dst(d), src(Src::reg(t)), src(z)])?,
                }
                self.narrow(d, 16)
            }
            (Some(px::MulMode::Wide), 32) => {
                let (x, y) = (self.src32(x)?, self.src32(y)?);
                let z = z.map(|z| self.src64(z)).transpose()?;
                let d = self.pair(d)?;
                let wide = Form::ImulWide(mods::ImulWide { ty: signed });
                match z {
                    None => self.emit(wide, &[dst(d), src(x), src(y)]),
                    Some(z) => {
                        self.emit(wide, &[dst(t), src(x), src(y)])?;
                        self.op(Opcode::Iadd64, &[dst(d), src(Src::reg(t)), src(z)])
                    }
                }
            }
            (Some(mode @ (px::MulMode::Lo | px::MulMode::Hi)), 64) => {
                let (x, y) = (self.pair_src(x)?, self.src64(y)?);
                let z = z.map(|z| self.src64(z)).transpose()?;
                let d = self.pair(d)?;
                let form = match mode {
                    px::MulMode::Lo => Form::Imul64(mods::Imul64 {}),
                    _ => Form::ImulHi64(mods::ImulHi64 { ty: if m.ty.is_signed() { isa::Int64Type::S64 } else { isa::Int64Type::U64 } }),
                };
                match z {
                    None => self.emit(form, &[dst(d), src(x), src(y)]),
                    Some(z) => {
                        self.emit(form, &[dst(t), src(x), src(y)])?;
                        self.op(Opcode::Iadd64, &[dst(d), src(Src::reg(t)), src(z)])
                    }
                }
            }
            _ => Err(unsupported(format!("`{name}{}{}`", m.mode.map_or(String::new(), |mode| mode.to_string()), m.ty))),
        }
    }

    fn setp(&mut self, inst: &'t ast::Instruction<'a>, s: px::Setp) -> Result<()> {
        let unsupported = |what: String| unsupported(inst, what);
        let (d, x, y, q) = match inst.operands.as_slice() {
            [d, x, y] => (d, x, y, None),
            [d, x, y, q] => (d, x, y, Some(q)),
            _ => return Err(Diagnostic::new(inst.span, "`setp` takes 3 or 4 operands")),
        };
        if matches!(d.kind, OperandKind::Pair(..)) {
            return Err(unsupported("`setp` with two destinations (`p|q`)".into()));
        }
        let p = self.pred(d)?;
        self.compare(inst, s, p, x, y, q)
    }

    /// `set.cmp[.bool].dtype.stype d, a, b[, c]`: the comparison into the predicate kept back
    /// for it (P6), then `SEL` of all ones (integer results) or 1.0 (f32), or 0.
    fn set(&mut self, inst: &'t ast::Instruction<'a>, s: px::Set) -> Result<()> {
        let (d, x, y, q) = match inst.operands.as_slice() {
            [d, x, y] => (d, x, y, None),
            [d, x, y, q] => (d, x, y, Some(q)),
            _ => return Err(Diagnostic::new(inst.span, "`set` takes 3 or 4 operands")),
        };
        let truth = match s.dst {
            Type::U32 | Type::S32 | Type::B32 => u32::MAX,
            Type::F32 => 1.0f32.to_bits(),
            ty => return Err(unsupported(inst, format!("`set` with a `{ty}` result"))),
        };
        // A spilled guard and a spilled `c` would take both scratch predicates, P6 included.
        let spilled = |o: Option<&str>| o.and_then(|n| self.spilled(n)).is_some();
        let q_name = q.and_then(|q| match q.kind {
            OperandKind::Name(n) | OperandKind::Not(n) => Some(n),
            _ => None,
        });
        if spilled(inst.guard.map(|g| g.predicate)) && spilled(q_name) {
            return Err(unsupported(inst, "`set` with a guard and a predicate operand that both live in registers (more than five predicates live)".into()));
        }
        let p = SCRATCH_PRED;
        self.compare(inst, px::Setp { cmp: s.cmp, combine: s.combine, ftz: s.ftz, ty: s.src }, p, x, y, q)?;
        let d = self.word(d)?;
        self.op(Opcode::Sel, &[dst(d), src(Src::imm(truth)), src(Src::imm(0)), isa::Operand::PredSrc { pred: p, negated: false }])
    }

    /// `p = (x cmp y) bop q` for `setp` and `set`.
    fn compare(
        &mut self,
        inst: &'t ast::Instruction<'a>,
        s: px::Setp,
        p: u8,
        x: &'t ast::Operand<'a>,
        y: &'t ast::Operand<'a>,
        q: Option<&'t ast::Operand<'a>>,
    ) -> Result<()> {
        let unsupported = |what: String| unsupported(inst, what);
        let q = match q {
            Some(q) => self.pred_src(q)?,
            None => isa::Operand::PredSrc { pred: isa::PT, negated: false },
        };
        let bop = match s.combine {
            None | Some(px::BoolOp::And) => isa::BoolOp::And,
            Some(px::BoolOp::Or) => isa::BoolOp::Or,
            Some(px::BoolOp::Xor) => isa::BoolOp::Xor,
        };
        use px::CmpOp as C;
        if s.ty.is_integer() {
            let (cmp, unsigned) = match s.cmp {
                C::Eq => (isa::Cmp::Eq, false),
                C::Ne => (isa::Cmp::Ne, false),
                C::Lt => (isa::Cmp::Lt, false),
                C::Le => (isa::Cmp::Le, false),
                C::Gt => (isa::Cmp::Gt, false),
                C::Ge => (isa::Cmp::Ge, false),
                C::Lo => (isa::Cmp::Lt, true),
                C::Ls => (isa::Cmp::Le, true),
                C::Hi => (isa::Cmp::Gt, true),
                C::Hs => (isa::Cmp::Ge, true),
                other => return Err(Diagnostic::new(inst.op_span, format!("`{other}` compares floating-point values, not `{}`", s.ty))),
            };
            let signed = !unsigned && s.ty.is_signed();
            if s.ty.bits() == 64 {
                let ty = if signed { isa::Int64Type::S64 } else { isa::Int64Type::U64 };
                let (x, y) = (self.pair_src(x)?, self.src64(y)?);
                return self.emit(Form::Isetp64(mods::Isetp64 { cmp, ty, bop }), &[isa::Operand::Pred(p), src(x), src(y), q]);
            }
            let ty = if signed { isa::IntType::S32 } else { isa::IntType::U32 };
            let (mut x, mut y) = (self.src32(x)?, self.src32(y)?);
            if s.ty.bits() < 32 && signed {
                // Registers hold 8- and 16-bit values zero-extended: compare them sign-extended.
                let t = self.scratch;
                self.widen(t, x, s.ty)?;
                self.widen(t + 1, y, s.ty)?;
                (x, y) = (Src::reg(t), Src::reg(t + 1));
            }
            return self.emit(Form::Isetp(mods::Isetp { cmp, ty, bop }), &[isa::Operand::Pred(p), src(x), src(y), q]);
        }
        let cmp = match s.cmp {
            C::Eq => isa::FCmp::Eq,
            C::Ne => isa::FCmp::Ne,
            C::Lt => isa::FCmp::Lt,
            C::Le => isa::FCmp::Le,
            C::Gt => isa::FCmp::Gt,
            C::Ge => isa::FCmp::Ge,
            C::Equ => isa::FCmp::Equ,
            C::Neu => isa::FCmp::Neu,
            C::Ltu => isa::FCmp::Ltu,
            C::Leu => isa::FCmp::Leu,
            C::Gtu => isa::FCmp::Gtu,
            C::Geu => isa::FCmp::Geu,
            C::Num => isa::FCmp::Num,
            C::Nan => isa::FCmp::Nan,
            other => return Err(Diagnostic::new(inst.op_span, format!("`{other}` compares unsigned integers, not `{}`", s.ty))),
        };
        match (s.ty, s.ftz) {
            (Type::F32, ftz) => {
                let (x, y) = (self.src32(x)?, self.src32(y)?);
                let (x, y) = (self.flushed(x, ftz, 0)?, self.flushed(y, ftz, 1)?);
                self.emit(Form::Fsetp(mods::Fsetp { cmp, bop }), &[isa::Operand::Pred(p), src(x), src(y), q])
            }
            (Type::F64, _) => {
                let (x, y) = (self.src_f64(x)?, self.src_f64(y)?);
                self.emit(Form::Dsetp(mods::Dsetp { cmp, bop }), &[isa::Operand::Pred(p), src(x), src(y), q])
            }
            (ty, ftz) => Err(unsupported(format!("`setp{}{ty}`", if ftz { ".ftz" } else { "" }))),
        }
    }

    fn cvt(&mut self, inst: &'t ast::Instruction<'a>, c: px::Cvt) -> Result<()> {
        let unsupported = || {
            with_note(
                Diagnostic::new(inst.op_span, format!("`{}` is not supported by the PTX front end yet", inst.op)),
                "docs/ptx.md lists the supported conversions",
            )
        };
        // `cvt.rn.f16x2.f32 d, a, b`: both rounded to nearest even, `a` in the upper half.
        if let (Type::F16x2 | Type::Bf16x2, Type::F32, [d, a, b], Some(px::Rounding::Rn), false, false, false) =
            (c.dst, c.src, inst.operands.as_slice(), c.rounding, c.relu, c.sat, c.ftz)
        {
            let ty = if c.dst == Type::F16x2 { isa::PackType::F16x2 } else { isa::PackType::Bf16x2 };
            let d = self.word(d)?;
            let (a, b) = (self.src32(a)?, self.src32(b)?);
            return self.emit(Form::Pack(mods::Pack { ty }), &[dst(d), src(b), src(a)]);
        }
        let [d, x] = self.operands(inst)?;
        let (to, from) = (c.dst, c.src);
        if c.relu {
            return Err(unsupported());
        }
        if to.is_integer() && from.is_integer() {
            return if c.rounding.is_some() || c.ftz { Err(unsupported()) } else { self.cvt_int(d, x, to, from, c.sat) };
        }
        // 8- and 16-bit integers convert as their 32-bit types: a narrow source is widened first
        // (exactly), a narrow result clamped to its range after (PTX's float-to-integer
        // conversions saturate; CVT to 32 bits already has, NaN giving 0).
        let wide = |t: Type| match t {
            Type::U8 | Type::U16 => Type::U32,
            Type::S8 | Type::S16 => Type::S32,
            t => t,
        };
        let cvt_type = |t: Type| match wide(t) {
            Type::U32 => Some(isa::CvtType::U32),
            Type::S32 => Some(isa::CvtType::S32),
            Type::U64 => Some(isa::CvtType::U64),
            Type::S64 => Some(isa::CvtType::S64),
            Type::F32 => Some(isa::CvtType::F32),
            Type::F64 => Some(isa::CvtType::F64),
            Type::F16 => Some(isa::CvtType::F16),
            Type::Bf16 => Some(isa::CvtType::BF16),
            _ => None,
        };
        let (Some(to_ty), Some(from_ty)) = (cvt_type(to), cvt_type(from)) else { return Err(unsupported()) };
        // `.rni`/`.rzi`/`.rmi`/`.rpi` round to an integral value (rintf, truncf, floorf, ceilf):
        // `FRND`/`DRND`, then converted exactly when the result is an integer. CVT to an integer
        // truncates (saturating, NaN giving 0), so `.rzi` needs no rounding step.
        let integral = match c.rounding {
            Some(px::Rounding::Rni) => Some(isa::Round::Rn),
            Some(px::Rounding::Rzi) => Some(isa::Round::Rz),
            Some(px::Rounding::Rmi) => Some(isa::Round::Rm),
            Some(px::Rounding::Rpi) => Some(isa::Round::Rp),
            _ => None,
        };
        let rounding_ok = match (to.is_float(), from.is_float()) {
            (true, true) if to == from => {
                if integral.is_some() {
                    matches!(to, Type::F32 | Type::F64 | Type::F16 | Type::Bf16)
                } else {
                    c.rounding.is_none() && to == Type::F32
                }
            }
            // Integer to float, and narrowing floats, round: in any direction.
            (true, false) => c.rounding.is_some_and(|r| !r.is_integer()),
            (true, true) if to.bits() < from.bits() => c.rounding.is_some_and(|r| !r.is_integer()),
            (true, true) => c.rounding.is_none(),
            (false, true) => integral.is_some(),
            (false, false) => false,
        };
        // `.sat` clamps a float result to [0, 1] (FADD.SAT below); float to integer saturates anyway.
        // `.ftz` flushes an f32 source or result.
        let sat_result = c.sat && to.is_float();
        if !rounding_ok || (sat_result && to != Type::F32) || (c.ftz && from != Type::F32 && to != Type::F32) {
            return Err(unsupported());
        }
        let mut x = if from_ty.is_pair() { Src::reg(self.pair(x)?) } else { self.src32(x)? };
        if wide(from) != from {
            self.widen(self.scratch + 1, x, from)?;
            x = Src::reg(self.scratch + 1);
        }
        if to == from && integral.is_none() {
            // `x + -0.0` is `x` for every x, -0 included: what it adds is the flush and the clamp.
            let d = self.word(d)?;
            return self.emit(Form::Fadd(mods::Fadd { ftz: ftz(c.ftz), sat: sat(c.sat) }), &[dst(d), src(x), src(Src::imm(0x8000_0000))]);
        }
        let t = self.scratch;
        if matches!(from, Type::F16 | Type::Bf16) && c.sat && integral.is_some_and(|r| r != isa::Round::Rz || to.is_float()) {
            return Err(unsupported());
        }
        if let (Some(rnd), Type::F16 | Type::Bf16, false) = (integral.filter(|&r| r != isa::Round::Rz || to.is_float()), from, c.sat) {
            // Halves round through f32, where they and their integral values are exact.
            self.emit(Form::Cvt(mods::Cvt { to: isa::CvtType::F32, from: from_ty, rnd: isa::Round::Rn }), &[dst(t), src(x)])?;
            self.emit(Form::Frnd(mods::Frnd { rnd, ftz: ftz(false) }), &[dst(t), src(Src::reg(t))])?;
            let d = if to_ty.is_pair() { self.pair(d)? } else { self.word(d)? };
            match to_ty {
                isa::CvtType::F32 => self.mov(d, Src::reg(t))?,
                to_ty => self.emit(Form::Cvt(mods::Cvt { to: to_ty, from: isa::CvtType::F32, rnd: isa::Round::Rn }), &[dst(d), src(Src::reg(t))])?,
            }
            return if wide(to) != to { self.saturate_narrow(d, to) } else { Ok(()) };
        }
        if let Some(rnd) = integral.filter(|&r| r != isa::Round::Rz || to.is_float()) {
            let rounded = if to.is_float() && to == from { if to_ty.is_pair() { self.pair(d)? } else { self.word(d)? } } else { t };
            match from {
                Type::F32 => self.emit(Form::Frnd(mods::Frnd { rnd, ftz: ftz(c.ftz) }), &[dst(rounded), src(x)])?,
                _ => self.emit(Form::Drnd(mods::Drnd { rnd }), &[dst(rounded), src(x)])?,
            }
            if to == from {
                return if sat_result {
                    self.emit(Form::Fadd(mods::Fadd { ftz: ftz(c.ftz), sat: sat(true) }), &[dst(rounded), src(Src::reg(rounded)), src(Src::imm(0x8000_0000))])
                } else {
                    Ok(())
                };
            }
            x = Src::reg(t);
        } else if c.ftz && from == Type::F32 && !to.is_integer() {
            self.emit(Form::Fadd(mods::Fadd { ftz: ftz(true), sat: sat(false) }), &[dst(t), src(x), src(Src::imm(0x8000_0000))])?;
            x = Src::reg(t);
        }
        let d = if to_ty.is_pair() { self.pair(d)? } else { self.word(d)? };
        let rnd = directed(c.rounding).unwrap_or(isa::Round::Rn);
        self.emit(Form::Cvt(mods::Cvt { to: to_ty, from: from_ty, rnd }), &[dst(d), src(x)])?;
        if wide(to) != to {
            return self.saturate_narrow(d, to);
        }
        if to == Type::F32 && (sat_result || c.ftz) {
            self.emit(Form::Fadd(mods::Fadd { ftz: ftz(c.ftz), sat: sat(c.sat) }), &[dst(d), src(Src::reg(d)), src(Src::imm(0x8000_0000))])?;
        }
        Ok(())
    }

    /// Clamps the 32-bit integer in `d` to the range of the 8- or 16-bit `to`, kept zero-extended.
    fn saturate_narrow(&mut self, d: u8, to: Type) -> Result<()> {
        let bits = to.bits();
        let (low, high, int) =
            if to.is_signed() { (-(1i32 << (bits - 1)), (1i32 << (bits - 1)) - 1, isa::IntType::S32) } else { (0, (1i32 << bits) - 1, isa::IntType::U32) };
        if to.is_signed() {
            self.emit(Form::Imax(mods::Imax { ty: int }), &[dst(d), src(Src::reg(d)), src(Src::imm(low as u32))])?;
        }
        self.emit(Form::Imin(mods::Imin { ty: int }), &[dst(d), src(Src::reg(d)), src(Src::imm(high as u32))])?;
        self.narrow(d, bits)
    }

    /// A scalar f16 or bf16 operation done in f32: each source widened exactly, `form` applied
    /// (with the second source negated for `sub`), the result rounded to nearest even.
    fn half_via_f32(&mut self, inst: &'t ast::Instruction<'a>, ty: Type, form: Form, negate_second: bool) -> Result<()> {
        let (d, sources) = inst.operands.split_first().ok_or_else(|| Diagnostic::new(inst.op_span, "expected operands"))?;
        let half = if ty == Type::Bf16 { isa::CvtType::BF16 } else { isa::CvtType::F16 };
        let mut widened = Vec::with_capacity(sources.len());
        for (i, x) in sources.iter().enumerate() {
            let x = self.src32(x)?;
            let t = self.scratch + i as u8;
            self.emit(Form::Cvt(mods::Cvt { to: isa::CvtType::F32, from: half, rnd: isa::Round::Rn }), &[dst(t), src(x)])?;
            widened.push(if negate_second && i == 1 { negate_f32(Src::reg(t)) } else { Src::reg(t) });
        }
        let t = self.scratch;
        let operands: Vec<isa::Operand> = std::iter::once(dst(t)).chain(widened.into_iter().map(src)).collect();
        self.emit(form, &operands)?;
        let d = self.word(d)?;
        self.emit(Form::Cvt(mods::Cvt { to: half, from: isa::CvtType::F32, rnd: isa::Round::Rn }), &[dst(d), src(Src::reg(t))])
    }

    /// `cvt` between integer types: wrapping, or with `.sat` clamped to the destination's range.
    fn cvt_int(&mut self, d: &'t ast::Operand<'a>, x: &'t ast::Operand<'a>, to: Type, from: Type, saturate: bool) -> Result<()> {
        let range = |ty: Type| {
            let bits = ty.bits();
            if ty.is_signed() { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) } else { (0, (1i128 << bits) - 1) }
        };
        let ((low, high), (from_low, from_high)) = (range(to), range(from));
        let (clamp_low, clamp_high) = (saturate && low > from_low, saturate && high < from_high);
        let t = self.scratch;
        if from.bits() == 64 {
            let (mut lo, mut hi) = self.halves(x)?;
            if clamp_low || clamp_high {
                let ty = if from.is_signed() { isa::Int64Type::S64 } else { isa::Int64Type::U64 };
                let mut value = self.pair_src(x)?;
                for (apply, bound, max) in [(clamp_low, low, true), (clamp_high, high, false)] {
                    if !apply {
                        continue;
                    }
                    let bound = match i32::try_from(bound) {
                        Ok(b) => Src::imm(b as u32),
                        Err(_) => self.wide_literal(bound as u64)?,
                    };
                    let form = if max { Form::Imax64(mods::Imax64 { ty }) } else { Form::Imin64(mods::Imin64 { ty }) };
                    self.emit(form, &[dst(t), src(value), src(bound)])?;
                    value = Src::reg(t);
                }
                (lo, hi) = (Src::reg(t), Src::reg(t + 1));
            }
            return if to.bits() == 64 {
                let d = self.pair(d)?;
                self.mov(d, lo)?;
                self.mov(d + 1, hi)
            } else {
                let d = self.word(d)?;
                self.mov(d, lo)?;
                self.narrow(d, to.bits())
            };
        }
        let x = self.src32(x)?;
        if clamp_low || clamp_high {
            // Compare the source's value in 32 bits.
            let ty = if from.is_signed() { isa::IntType::S32 } else { isa::IntType::U32 };
            self.widen(t, x, from)?;
            if clamp_low {
                self.emit(Form::Imax(mods::Imax { ty }), &[dst(t), src(Src::reg(t)), src(Src::imm(low as u32))])?;
            }
            if clamp_high {
                self.emit(Form::Imin(mods::Imin { ty }), &[dst(t), src(Src::reg(t)), src(Src::imm(high as u32))])?;
            }
            return self.cvt_int_word(d, Src::reg(t), to, from);
        }
        self.cvt_int_word(d, x, to, from)
    }

    /// `cvt` to an integer type from one of at most 32 bits, wrapping.
    fn cvt_int_word(&mut self, d: &'t ast::Operand<'a>, x: Src, to: Type, from: Type) -> Result<()> {
        if to.bits() == 64 {
            let d = self.pair(d)?;
            self.widen(d, x, from)?;
            return if from.is_signed() {
                self.emit(Form::Shr(mods::Shr { ty: isa::IntType::S32 }), &[dst(d + 1), src(Src::reg(d)), src(Src::imm(31))])
            } else {
                self.mov(d + 1, Src::imm(0))
            };
        }
        let d = self.word(d)?;
        if from.bits() < to.bits() {
            self.widen(d, x, from)?;
        } else {
            self.mov(d, x)?;
        }
        self.narrow(d, to.bits())
    }

    /// `d = x` read as type `from` (at most 32 bits) and extended to 32 bits by its signedness.
    fn widen(&mut self, d: u8, x: Src, from: Type) -> Result<()> {
        if from.is_signed() {
            self.extend_sign(d, x, from.bits())
        } else {
            self.mov(d, x)?;
            self.narrow(d, from.bits())
        }
    }

    /// `x`, or with `ftz` a copy in scratch register `slot` with a subnormal flushed to a zero
    /// of its sign (`FMUL.FTZ x, 1.0`, which changes nothing else).
    fn flushed(&mut self, x: Src, ftz: bool, slot: u8) -> Result<Src> {
        if !ftz {
            return Ok(x);
        }
        let t = self.scratch + slot;
        self.emit(Form::Fmul(mods::Fmul { ftz: isa::Ftz::Yes, sat: isa::Sat::No }), &[dst(t), src(x), src(Src::imm(1.0f32.to_bits()))])?;
        Ok(Src::reg(t))
    }

    /// With `ftz`, flushes a subnormal result in `d` to a zero of its sign.
    fn flush_in_place(&mut self, d: u8, ftz: bool) -> Result<()> {
        if ftz {
            self.emit(Form::Fmul(mods::Fmul { ftz: isa::Ftz::Yes, sat: isa::Sat::No }), &[dst(d), src(Src::reg(d)), src(Src::imm(1.0f32.to_bits()))])?;
        }
        Ok(())
    }

    /// `d = x` sign-extended from its low `bits` bits.
    fn extend_sign(&mut self, d: u8, x: Src, bits: u32) -> Result<()> {
        if bits >= 32 {
            return self.mov(d, x);
        }
        self.op(Opcode::Shl, &[dst(d), src(x), src(Src::imm(32 - bits))])?;
        self.emit(Form::Shr(mods::Shr { ty: isa::IntType::S32 }), &[dst(d), src(Src::reg(d)), src(Src::imm(32 - bits))])
    }

    fn mov_instruction(&mut self, inst: &'t ast::Instruction<'a>, t: px::Typed) -> Result<()> {
        let [d, x] = self.operands(inst)?;
        if let OperandKind::Special(sr) = x.kind {
            use px::SpecialReg as P;
            let lanes = |lane_bit: u32| -> Src { Src::imm(lane_bit) };
            match sr {
                // simt's clock is 32 bits: %clock64 is it, zero-extended (docs/ptx.md).
                P::Clock64 => {
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
                    "supported: %tid, %ntid, %ctaid, %nctaid, %laneid, %warpid, %smid, %clock, %clock64, %lanemask_*",
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
            // Packing two halves into a word (`mov.b32 %r, {%h0, %h1}`: the first in the low
            // half), and unpacking.
            (Some(Class::Word { bits: 32 }), OperandKind::Name(_), OperandKind::Vector(parts)) if parts.len() == 2 => {
                let d = self.word(d)?;
                let (lo, hi) = (self.src32(&parts[0])?, self.src32(&parts[1])?);
                let t = self.scratch;
                self.op(Opcode::And, &[dst(t), src(lo), src(Src::imm(0xFFFF))])?;
                self.op(Opcode::Shl, &[dst(t + 1), src(hi), src(Src::imm(16))])?;
                self.op(Opcode::Or, &[dst(d), src(Src::reg(t)), src(Src::reg(t + 1))])
            }
            (Some(Class::Word { bits: 32 }), OperandKind::Vector(parts), OperandKind::Name(_)) if parts.len() == 2 => {
                let x = self.src32(x)?;
                let t = self.scratch;
                self.mov(t, x)?;
                for (i, part) in parts.iter().enumerate() {
                    if part.kind != OperandKind::Sink {
                        let r = self.word(part)?;
                        match i {
                            0 => self.op(Opcode::And, &[dst(r), src(Src::reg(t)), src(Src::imm(0xFFFF))])?,
                            _ => self.emit(Form::Shr(mods::Shr { ty: isa::IntType::U32 }), &[dst(r), src(Src::reg(t)), src(Src::imm(16))])?,
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
            (Some(Class::Word { .. }), _, _) => {
                let d = self.word(d)?;
                let x = self.src32(x)?;
                self.mov(d, x)
            }
            (None, _, _) => Err(Diagnostic::new(inst.op_span, format!("`mov{}` is not supported by the PTX front end yet", t.ty))),
        }
    }

    fn memory(&mut self, inst: &'t ast::Instruction<'a>, m: px::Memory, load: bool) -> Result<()> {
        let name = if load { "ld" } else { "st" };
        let unsupported = |what: String| unsupported(inst, what);
        let [first, second] = self.operands(inst)?;
        let (data, addr) = if load { (first, second) } else { (second, first) };
        let (address, symbol_space) = self.address(addr)?;
        let symbols = &self.symbols;
        let space = match crate::spaces::local_params(m.space, Some(addr), &|n| symbols.get(n).map(|s| s.space)).or(symbol_space) {
            Some(space) => space,
            None => self.generic_space(addr)?,
        };
        let space = match space {
            // `.const` data is only ever module variables, which live in global buffers.
            StateSpace::Global | StateSpace::Const => isa::Space::Global,
            StateSpace::Shared => isa::Space::Shared,
            StateSpace::Local => isa::Space::Local,
            StateSpace::Param if load => isa::Space::Param,
            other => return Err(unsupported(format!("`{name}{other}`"))),
        };
        let mem_ty = match m.ty {
            Type::U8 | Type::B8 => isa::MemType::U8,
            Type::S8 => isa::MemType::S8,
            Type::U16 | Type::B16 | Type::F16 | Type::Bf16 => isa::MemType::U16,
            Type::S16 => isa::MemType::S16,
            Type::U32 => isa::MemType::U32,
            Type::S32 => isa::MemType::S32,
            Type::B32 | Type::F16x2 | Type::Bf16x2 => isa::MemType::B32,
            Type::F32 => isa::MemType::F32,
            Type::U64 | Type::S64 | Type::B64 => isa::MemType::B64,
            Type::F64 => isa::MemType::F64,
            ty => return Err(unsupported(format!("`{name}{ty}`"))),
        };
        // A pointer parameter is a 32-bit simt address: its high word is zero.
        if space == isa::Space::Param
            && mem_ty == isa::MemType::B64
            && let (Some(base), isa::Operand::Addr { offset, .. }) = (self.param_at(addr), address)
            && self.pointers.contains_key(base)
            && self.symbols[base].address as i32 == offset
        {
            let d = self.pair(data)?;
            self.emit(Form::Ld(mods::Ld { space, vec: isa::VecWidth::Scalar, ty: isa::MemType::U32 }), &[dst(d), address])?;
            return self.mov(d + 1, Src::imm(0));
        }
        let wide = mem_ty == isa::MemType::B64 || mem_ty == isa::MemType::F64;
        let vec = match m.vector {
            None => isa::VecWidth::Scalar,
            Some(px::Vector::V2) => isa::VecWidth::V2,
            Some(px::Vector::V4) if !wide => isa::VecWidth::V4,
            Some(v) => return Err(unsupported(format!("`{name}{v}{}`", m.ty))),
        };
        // Vector accesses move untyped words (simt's rule); the PTX element type only
        // decides which registers receive them.
        let mem_ty = match (vec, m.ty.bits()) {
            (isa::VecWidth::Scalar, _) => mem_ty,
            (_, 32) => isa::MemType::B32,
            (_, 64) => isa::MemType::B64,
            (_, 8 | 16) => return self.narrow_vector(load, space, address, data, m.ty),
            (_, _) => return Err(unsupported(format!("`{name}{}{}`", m.vector.map_or(String::new(), |v| v.to_string()), m.ty))),
        };
        let narrow_signed = matches!(mem_ty, isa::MemType::S8 | isa::MemType::S16);
        match (vec, &data.kind) {
            (isa::VecWidth::Scalar, _) => {
                let form = |space| if load { Form::Ld(mods::Ld { space, vec, ty: mem_ty }) } else { Form::St(mods::St { space, vec, ty: mem_ty }) };
                let reg = match (wide, load) {
                    (true, _) => self.pair(data)?,
                    (false, true) => self.word(data)?,
                    (false, false) => match self.src32(data)? {
                        Src::Reg { reg, .. } => reg,
                        literal => {
                            self.mov(self.scratch, literal)?;
                            self.scratch
                        }
                    },
                };
                if load && !wide && self.class_of_operand(data) == Some(Class::Pair) {
                    // A 32-bit or narrower value into a 64-bit register: extend it.
                    let d = self.pair(data)?;
                    self.emit(form(space), &[dst(d), address])?;
                    return if m.ty.is_signed() {
                        self.emit(Form::Shr(mods::Shr { ty: isa::IntType::S32 }), &[dst(d + 1), src(Src::reg(d)), src(Src::imm(31))])
                    } else {
                        self.mov(d + 1, Src::imm(0))
                    };
                }
                if load {
                    self.emit(form(space), &[dst(reg), address])?;
                    if narrow_signed && matches!(self.class_of_operand(data), Some(Class::Word { bits: 16 | 8 })) {
                        self.narrow(reg, 16)?;
                    }
                    Ok(())
                } else {
                    self.emit(form(space), &[address, src(Src::reg(reg))])
                }
            }
            (_, OperandKind::Vector(parts)) => {
                let per = if wide { 2 } else { 1 };
                if parts.len() as u32 * per > SCRATCH {
                    return Err(unsupported(format!("`{name}` of {} elements", parts.len())));
                }
                let t = self.scratch;
                if load {
                    self.emit(Form::Ld(mods::Ld { space, vec, ty: mem_ty }), &[dst(t), address])?;
                }
                for (i, part) in parts.iter().enumerate() {
                    let at = t + (i as u32 * per) as u8;
                    if part.kind == OperandKind::Sink {
                        continue;
                    }
                    match (wide, load) {
                        (true, true) => {
                            let r = self.pair(part)?;
                            self.mov(r, Src::reg(at))?;
                            self.mov(r + 1, Src::reg(at + 1))?;
                        }
                        (true, false) => {
                            let (lo, hi) = self.halves(part)?;
                            self.mov(at, lo)?;
                            self.mov(at + 1, hi)?;
                        }
                        (false, true) => {
                            let r = self.word(part)?;
                            self.mov(r, Src::reg(at))?;
                        }
                        (false, false) => {
                            let x = self.src32(part)?;
                            self.mov(at, x)?;
                        }
                    }
                }
                if !load {
                    self.emit(Form::St(mods::St { space, vec, ty: mem_ty }), &[address, src(Src::reg(t))])?;
                }
                Ok(())
            }
            _ => {
                Err(Diagnostic::new(data.span, format!("`{name}{}` needs a vector of registers `{{...}}`", m.vector.map_or(String::new(), |v| v.to_string()))))
            }
        }
    }

    /// `ld`/`st` `.v2`/`.v4` of 8- or 16-bit elements (`uchar4`, `short2`, ...): one access of
    /// the whole vector (2, 4 or 8 bytes, so its alignment rule is PTX's too) into scratch,
    /// the elements taken out with `BFE` or put in with `BFI`.
    fn narrow_vector(&mut self, load: bool, space: isa::Space, address: isa::Operand, data: &'t ast::Operand<'a>, ty: Type) -> Result<()> {
        let OperandKind::Vector(parts) = &data.kind else {
            return Err(Diagnostic::new(data.span, "a vector access needs a vector of registers `{...}`"));
        };
        let bits = ty.bits();
        let whole = match parts.len() as u32 * bits {
            16 => isa::MemType::U16,
            32 => isa::MemType::B32,
            _ => isa::MemType::B64,
        };
        let (vec, t) = (isa::VecWidth::Scalar, self.scratch);
        let place = |i: usize| (t + (i as u32 * bits / 32) as u8, Src::imm(i as u32 * bits % 32), Src::imm(bits));
        if load {
            self.emit(Form::Ld(mods::Ld { space, vec, ty: whole }), &[dst(t), address])?;
            for (i, part) in parts.iter().enumerate().filter(|(_, p)| p.kind != OperandKind::Sink) {
                let (word, pos, len) = place(i);
                let d = self.word(part)?;
                let ty = if ty.is_signed() { isa::IntType::S32 } else { isa::IntType::U32 };
                self.emit(Form::Bfe(mods::Bfe { ty }), &[dst(d), src(Src::reg(word)), src(pos), src(len)])?;
                if let Some(Class::Word { bits: reg_bits @ (8 | 16) }) = self.class_of_operand(part) {
                    self.narrow(d, reg_bits.max(16))?;
                }
            }
            return Ok(());
        }
        // Zeroed first, so that no bit is read unwritten.
        self.mov(t, Src::imm(0))?;
        if whole == isa::MemType::B64 {
            self.mov(t + 1, Src::imm(0))?;
        }
        for (i, part) in parts.iter().enumerate().filter(|(_, p)| p.kind != OperandKind::Sink) {
            let (word, pos, len) = place(i);
            let x = self.src32(part)?;
            self.op(Opcode::Bfi, &[dst(word), src(x), src(Src::reg(word)), src(pos), src(len)])?;
        }
        self.emit(Form::St(mods::St { space, vec, ty: whole }), &[address, src(Src::reg(t))])
    }

    fn spaces(&self) -> &HashMap<&'a str, crate::spaces::Spaces> {
        let symbols = &self.symbols;
        self.spaces.get_or_init(|| crate::spaces::infer(&self.insts, |n| symbols.get(n).map(|s| (s.space, s.address))))
    }

    /// The space a generic address points into, when the inference found exactly one.
    fn generic_space(&self, addr: &ast::Operand<'a>) -> Result<StateSpace> {
        let symbols = &self.symbols;
        if let Some(space) = crate::spaces::access_space(self.spaces(), Some(addr), &|n| symbols.get(n).map(|s| s.space)) {
            return Ok(space);
        }
        let found = match addr.kind {
            OperandKind::Address(Address { base: Some(b), .. }) => self.spaces().get(b.value).copied().unwrap_or_default().describe(),
            _ => "no known space (an absolute address)".into(),
        };
        Err(with_note(
            Diagnostic::new(addr.span, format!("cannot tell which state space this generic address points into: {found}")),
            "simt has no generic address space: every generic access must point into one space, known from the `cvta` that made its address",
        ))
    }

    /// The parameter an `ld.param` address names.
    fn param_at(&self, addr: &ast::Operand<'a>) -> Option<&'a str> {
        match addr.kind {
            OperandKind::Address(Address { base: Some(b), .. }) if self.symbols.get(b.value).is_some_and(|s| s.space == StateSpace::Param) => Some(b.value),
            _ => None,
        }
    }

    fn class_of_operand(&self, o: &ast::Operand<'a>) -> Option<Class> {
        match o.kind {
            OperandKind::Name(n) => self.classes.get(n),
            _ => None,
        }
    }

    fn atomic(&mut self, inst: &'t ast::Instruction<'a>, a: px::Atom, red: bool) -> Result<()> {
        let name = if red { "red" } else { "atom" };
        let unsupported = |what: String| unsupported(inst, what);
        let address_operand = inst.operands.get(usize::from(!red)).ok_or_else(|| Diagnostic::new(inst.span, format!("`{name}` needs an address")))?;
        let space = match a.space {
            Some(space) => space,
            None => self.generic_space(address_operand)?,
        };
        let space = match space {
            StateSpace::Global => isa::AtomSpace::Global,
            StateSpace::Shared => isa::AtomSpace::Shared,
            other => return Err(unsupported(format!("`{name}` on {other} memory"))),
        };
        let ops = inst.operands.as_slice();
        let (d, rest) = if red { (None, ops) } else { (ops.first(), ops.get(1..).unwrap_or(&[])) };
        if a.vector.is_some() || !matches!(a.ty.bits(), 32 | 64) {
            return Err(unsupported(format!("`{name}{}`", a.ty)));
        }
        // 64-bit atomics work on register pairs; `red` drops the old value into scratch.
        let wide = a.ty.bits() == 64;
        let d = match (d, wide) {
            (Some(d), true) => self.pair(d)?,
            (Some(d), false) => self.word(d)?,
            (None, true) => self.scratch,
            (None, false) => RZ,
        };
        let value = |this: &mut Self, o: &'t ast::Operand<'a>| if wide { this.src64(o) } else { this.src32(o) };
        match (a.op, rest) {
            (px::AtomOp::Cas, [addr, b, c]) => {
                let (address, _) = self.address(addr)?;
                let (b, c) = (value(self, b)?, value(self, c)?);
                let ty = if wide { isa::CasType::B64 } else { isa::CasType::B32 };
                self.emit(Form::AtomCas(mods::AtomCas { space, ty }), &[dst(d), address, src(b), src(c)])
            }
            (op, [addr, b]) => {
                let op = match op {
                    px::AtomOp::Add => isa::AtomOp::Add,
                    px::AtomOp::Min => isa::AtomOp::Min,
                    px::AtomOp::Max => isa::AtomOp::Max,
                    px::AtomOp::Exch => isa::AtomOp::Exch,
                    px::AtomOp::And => isa::AtomOp::And,
                    px::AtomOp::Or => isa::AtomOp::Or,
                    px::AtomOp::Xor => isa::AtomOp::Xor,
                    other => return Err(unsupported(format!("`{name}{other}`"))),
                };
                let ty = match (a.ty, op) {
                    (Type::U32, _) => isa::AtomType::U32,
                    (Type::S32, _) => isa::AtomType::S32,
                    (Type::F32, _) => isa::AtomType::F32,
                    (Type::F64, _) => isa::AtomType::F64,
                    // A 64-bit sum wraps the same signed or unsigned.
                    (Type::U64, _) | (Type::S64, isa::AtomOp::Add) => isa::AtomType::U64,
                    (Type::S64, _) => isa::AtomType::S64,
                    _ if wide => isa::AtomType::B64,
                    _ => isa::AtomType::B32,
                };
                let (address, _) = self.address(addr)?;
                let b = value(self, b)?;
                let form = Form::Atom(mods::Atom { space, op, ty });
                let probe = Instruction { form, guard: isa::Guard::ALWAYS, operands: [dst(d), address, src(b), isa::Operand::None, isa::Operand::None] };
                if let Err(e) = probe.validate() {
                    return Err(unsupported(format!("`{name}{}{}` ({e})", a.op, a.ty)));
                }
                self.emit(form, &[dst(d), address, src(b)])
            }
            _ => Err(Diagnostic::new(inst.span, format!("`{name}` has the wrong number of operands"))),
        }
    }

    fn shfl(&mut self, inst: &'t ast::Instruction<'a>, s: px::Shfl) -> Result<()> {
        let [d, a, b, c, mask] = self.operands(inst)?;
        if !s.sync || s.ty.bits() != 32 {
            return Err(Diagnostic::new(inst.op_span, "only `shfl.sync` of 32-bit values is supported"));
        }
        self.full_mask(mask)?;
        let mode = match s.mode {
            px::ShflMode::Up => isa::ShflMode::Up,
            px::ShflMode::Down => isa::ShflMode::Down,
            px::ShflMode::Bfly => isa::ShflMode::Bfly,
            px::ShflMode::Idx => isa::ShflMode::Idx,
        };
        // PTX packs the segment width and the clamp into `c`: ((32 - width) << 8) | clamp,
        // the clamp being 0 for `.up` and width - 1 otherwise. nvcc keeps it in a register.
        let Some(c_value) = self.constant(c) else {
            return Err(Diagnostic::new(c.span, "the clamp operand must be a literal, or a register always set to one"));
        };
        let width = 32 - (c_value >> 8);
        let clamp = c_value & 0xFF;
        let expected = if mode == isa::ShflMode::Up { 0 } else { width - 1 };
        if !(1..=32).contains(&width) || (width as u32).count_ones() != 1 || clamp != expected || c_value >> 13 != 0 {
            return Err(with_note(
                Diagnostic::new(c.span, format!("clamp value {c_value:#x} is not one that CUDA's __shfl_*_sync produces")),
                "expected ((32 - width) << 8) | (width - 1), or (32 - width) << 8 for .up, with width a power of two",
            ));
        }
        let (d, valid) = match d.kind {
            OperandKind::Pair(value, valid) => {
                (ast::Operand { kind: OperandKind::Name(value), span: d.span }, Some(ast::Operand { kind: OperandKind::Name(valid), span: d.span }))
            }
            _ => (d.clone(), None),
        };
        let b = self.src32(b)?;
        // `d|p`: p says whether the source lane lay inside the segment (else a lane reads its
        // own `a`). The source lane is worked out in scratch registers before `SHFL`, which
        // may overwrite `b`, and compared after it.
        let t = self.scratch;
        let within = match valid {
            Some(_) => Some(self.source_lane(mode, b, width as u32)?),
            None => None,
        };
        let (d, a) = (self.word(&d)?, self.word(a)?);
        self.emit(Form::Shfl(mods::Shfl { mode }), &[dst(d), src(Src::reg(a)), src(b), isa::Operand::Imm(width as u32)])?;
        let (Some(valid), Some((cmp, last))) = (valid, within) else { return Ok(()) };
        let p = self.pred(&valid)?;
        let pt = isa::Operand::PredSrc { pred: isa::PT, negated: false };
        self.emit(Form::Isetp(mods::Isetp { cmp, ty: isa::IntType::S32, bop: isa::BoolOp::And }), &[isa::Operand::Pred(p), src(Src::reg(t)), src(last), pt])
    }

    /// Computes, into scratch register `scratch`, the lane `shfl` reads from (PTX's `j`), and
    /// returns how `j` must compare with the returned bound for the read to be in range:
    /// at least the segment's first lane for `.up`, at most its last otherwise.
    fn source_lane(&mut self, mode: isa::ShflMode, b: Src, width: u32) -> Result<(isa::Cmp, Src)> {
        let (t, seg) = (self.scratch, 32 - width);
        self.op(Opcode::S2r, &[dst(t), isa::Operand::Special(isa::SpecialReg::LaneId)])?;
        let lane_bits = match b {
            Src::Imm { bits, .. } => Src::imm(bits as u32 & 31),
            _ => {
                self.op(Opcode::And, &[dst(t + 1), src(b), src(Src::imm(31))])?;
                Src::reg(t + 1)
            }
        };
        // The segment's first lane: this lane with the bits inside the segment cleared.
        let first = if seg == 0 {
            Src::imm(0)
        } else {
            self.op(Opcode::And, &[dst(t + 2), src(Src::reg(t)), src(Src::imm(seg))])?;
            Src::reg(t + 2)
        };
        let last = |this: &mut Self| -> Result<Src> {
            if seg == 0 {
                return Ok(Src::imm(width - 1));
            }
            this.op(Opcode::Or, &[dst(t + 3), src(first), src(Src::imm(width - 1))])?;
            Ok(Src::reg(t + 3))
        };
        match mode {
            isa::ShflMode::Up => {
                self.op(Opcode::Isub, &[dst(t), src(Src::reg(t)), src(lane_bits)])?;
                Ok((isa::Cmp::Ge, first))
            }
            isa::ShflMode::Down => {
                self.op(Opcode::Iadd, &[dst(t), src(Src::reg(t)), src(lane_bits)])?;
                Ok((isa::Cmp::Le, last(self)?))
            }
            isa::ShflMode::Bfly => {
                self.op(Opcode::Xor, &[dst(t), src(Src::reg(t)), src(lane_bits)])?;
                Ok((isa::Cmp::Le, last(self)?))
            }
            isa::ShflMode::Idx => {
                // j = first | (b & ~segmask): the index, kept inside the segment.
                self.op(Opcode::And, &[dst(t), src(lane_bits), src(Src::imm(width - 1))])?;
                self.op(Opcode::Or, &[dst(t), src(Src::reg(t)), src(first)])?;
                Ok((isa::Cmp::Le, last(self)?))
            }
        }
    }
}

fn too_many(at: Span, name: &str) -> Diagnostic {
    with_note(
        Diagnostic::new(at, format!("more registers are live here than simt has (`{name}` finds none free)")),
        "simt has R0-R254; spilling to local memory is not built yet",
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
    with_note(Diagnostic::new(inst.op_span, format!("{what} is not supported by the PTX front end yet")), "docs/ptx.md lists what is")
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

/// The element type of every `.u64` parameter that is a pointer into global memory: its
/// value (through moves, `cvta.to.global` and additions) reaches the address of a load,
/// store or atomic, whose type gives the element type (the first one found).
fn pointer_types<'a>(f: &ast::Function<'a>, items: &[Item<'_, 'a>], symbol: impl Fn(&str) -> Option<(StateSpace, u32)>) -> HashMap<&'a str, isa::ElemType> {
    let params: Vec<&str> = f.params.iter().map(|p| p.name.value).collect();
    let mut origin: HashMap<&'a str, &'a str> = HashMap::default();
    let mut found: HashMap<&'a str, isa::ElemType> = HashMap::default();
    let mut slots: HashMap<crate::spaces::Slot<'a>, &'a str> = HashMap::default();
    let slot = |o: Option<&ast::Operand<'a>>| crate::spaces::slot(o, &symbol);
    let name = |o: Option<&ast::Operand<'a>>| match o.map(|o| &o.kind) {
        Some(OperandKind::Name(n)) => Some(*n),
        _ => None,
    };
    let base = |o: Option<&ast::Operand<'a>>| match o.map(|o| &o.kind) {
        Some(OperandKind::Address(Address { base: Some(b), .. })) => Some(b.value),
        _ => None,
    };
    // Only these move pointers or access memory through them.
    let insts: Vec<&ast::Instruction<'a>> = items
        .iter()
        .filter_map(|i| match i {
            Item::Inst(i)
                if matches!(i.op, Op::Ld(_) | Op::St(_) | Op::Atom(_) | Op::Red(_) | Op::Cvta(_) | Op::Mov(_) | Op::Add(_) | Op::Mad(_) | Op::CpAsync(_)) =>
            {
                Some(*i)
            }
            _ => None,
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for inst in &insts {
            let ops = &inst.operands;
            let from = match inst.op {
                Op::Ld(m) if m.space == Some(StateSpace::Param) && base(ops.get(1)).is_some_and(|b| params.contains(&b)) => base(ops.get(1)),
                // -O0 keeps pointers in stack slots: `st.u64 [%SP+8], %rd6` ... `ld.u64 %rd7, [%SP+8]`.
                Op::Ld(m) if m.ty.bits() == 64 && slot(ops.get(1)).is_some_and(|s| slots.contains_key(&s)) => {
                    slot(ops.get(1)).and_then(|s| slots.get(&s).copied())
                }
                // A 64-bit store may put a pointer in a stack slot; it is also an access (`st.global.f64`).
                Op::St(m)
                    if m.ty.bits() == 64
                        && slot(ops.first()).is_some_and(|s| !slots.contains_key(&s))
                        && name(ops.get(1)).is_some_and(|v| origin.contains_key(v)) =>
                {
                    if let (Some(s), Some(&param)) = (slot(ops.first()), name(ops.get(1)).and_then(|v| origin.get(v))) {
                        slots.insert(s, param);
                        changed = true;
                    }
                    None
                }
                Op::Cvta(_) | Op::Mov(_) => name(ops.get(1)).and_then(|s| origin.get(s).copied()),
                Op::Add(a) if a.ty.bits() == 64 => {
                    name(ops.get(1)).and_then(|s| origin.get(s).copied()).or_else(|| name(ops.get(2)).and_then(|s| origin.get(s).copied()))
                }
                // `mad.wide.s32 %rd, %r, 4, %base`: Triton's address arithmetic adds the base last.
                Op::Mad(m) if m.mode == Some(px::MulMode::Wide) || m.ty.bits() == 64 => name(ops.get(3)).and_then(|s| origin.get(s).copied()),
                Op::Ld(m) | Op::St(m) => {
                    let addr = if matches!(inst.op, Op::Ld(_)) { ops.get(1) } else { ops.first() };
                    if let Some(param) = base(addr).and_then(|b| origin.get(b))
                        && let elem = pointee(m.ty)
                        && !found.contains_key(param)
                    {
                        found.insert(param, elem);
                    }
                    None
                }
                // `cp.async`'s source is global memory, read as raw words.
                Op::CpAsync(_) => {
                    if let Some(param) = base(ops.get(1)).and_then(|b| origin.get(b))
                        && !found.contains_key(param)
                    {
                        found.insert(param, isa::ElemType::U32);
                    }
                    None
                }
                Op::Atom(a) | Op::Red(a) => {
                    let addr = if matches!(inst.op, Op::Red(_)) { ops.first() } else { ops.get(1) };
                    if let Some(param) = base(addr).and_then(|b| origin.get(b))
                        && let elem = pointee(a.ty)
                        && !found.contains_key(param)
                    {
                        found.insert(param, elem);
                    }
                    None
                }
                _ => None,
            };
            // The first origin found stays: a register given two would otherwise flip
            // between them forever (what clang writes assigns each once).
            if let (Some(from), Some(d)) = (from, name(ops.first()))
                && !origin.contains_key(d)
            {
                origin.insert(d, from);
                changed = true;
            }
        }
    }
    // A parameter is a pointer when its value is an address somewhere (`found`) or reaches
    // `cvta.to.global`; one never dereferenced still needs a type: raw 32-bit words.
    let mut pointers = found.clone();
    for item in items {
        if let Item::Inst(inst) = item
            && let (Op::Cvta(c), Some(OperandKind::Name(s))) = (inst.op, inst.operands.get(1).map(|o| &o.kind))
            && c.to
            && c.space == StateSpace::Global
            && let Some(&param) = origin.get(s)
        {
            pointers.entry(param).or_insert(isa::ElemType::U32);
        }
    }
    pointers
}

/// The element type a buffer accessed as `ty` gets; raw 32-bit words where no element type
/// says it (64-bit integers: the access still proves the parameter a pointer).
fn pointee(ty: Type) -> isa::ElemType {
    elem_type(ty).unwrap_or(isa::ElemType::U32)
}

/// Every name an operand of the kernel's instructions mentions (registers, variables, parameters).
fn mentioned_names<'a>(items: &[Item<'_, 'a>]) -> HashSet<&'a str> {
    let mut names = Vec::new();
    for item in items {
        if let Item::Inst(inst) = item {
            inst.operands.iter().for_each(|o| o.names(&mut names));
        }
    }
    names.into_iter().collect()
}

fn elem_type(ty: Type) -> Option<isa::ElemType> {
    use isa::ElemType as E;
    Some(match ty {
        Type::U8 | Type::B8 => E::U8,
        Type::S8 => E::S8,
        Type::U16 | Type::B16 => E::U16,
        Type::S16 => E::S16,
        Type::F16 => E::F16,
        Type::Bf16 => E::BF16,
        Type::U32 => E::U32,
        Type::S32 => E::S32,
        Type::B32 | Type::F16x2 | Type::Bf16x2 => E::B32,
        Type::F32 => E::F32,
        Type::F64 => E::F64,
        _ => return None,
    })
}
