//! From parsed lines to kernels: directives, symbol tables, instruction
//! selection from the table, operand checks, labels and layouts.

use std::collections::HashMap;

use lalrpop_util::ParseError;
use simt_isa::disasm::default_operand;
use simt_isa::*;

use crate::args::arg_init;
use crate::ast::{self, AddrItem, ArgValue, Lit, Num, OperandForm, Span, Stmt};
use crate::diagnostics::{Diagnostics, Sink, also, help, suggest};
use crate::grammar::LineParser;
use crate::lexer::{self, LexError, Token};
use crate::literal::{fit_int, fit_source, to_literal, word_literal};
use simt_kernel::{BuildError, KernelBuilder};

/// A readable name for a grammar terminal in "expected ..." lists.
fn terminal_name(t: &str) -> String {
    match t {
        "\"word\"" => "a name".into(),
        "\"dotword\"" => "a `.type`".into(),
        "\"number\"" => "a number".into(),
        "\"string\"" => "a string".into(),
        other => format!("`{}`", other.trim_matches('"')),
    }
}

/// The place and text of a grammar error.
pub(crate) fn parse_error_message(e: &ParseError<usize, Token<'_>, LexError>) -> (Span, String) {
    let expected = |list: &[String]| {
        let mut names: Vec<String> = list.iter().map(|t| terminal_name(t)).collect();
        names.dedup();
        match names.len() {
            0 => String::new(),
            1 => format!(": expected {}", names[0]),
            _ if names.len() <= 7 => format!(": expected one of {}", names.join(", ")),
            _ => String::new(),
        }
    };
    match e {
        ParseError::InvalidToken { location } => (Span::new(*location, *location + 1), "invalid token".into()),
        ParseError::UnrecognizedEof { location, expected: list } => {
            (Span::new(*location, *location), format!("the statement ends too early{}", expected(list)))
        }
        ParseError::UnrecognizedToken { token: (l, t, r), expected: list } => (Span::new(*l, *r), format!("unexpected `{t}`{}", expected(list))),
        ParseError::ExtraToken { token: (l, t, r) } => (Span::new(*l, *r), format!("unexpected `{t}` after the statement")),
        ParseError::User { error } => (Span::new(error.span.start, error.span.end), error.message.clone()),
    }
}

/// The two files of numbered names.
#[derive(Clone, Copy, Debug)]
enum RegFile {
    Register,
    Predicate,
}

/// A register or predicate numbered past its file (`R300`, `P9`).
#[derive(Debug)]
struct PastTheFile<'t> {
    text: &'t str,
    file: RegFile,
}

impl std::fmt::Display for PastTheFile<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = self.text;
        match self.file {
            RegFile::Register => write!(f, "register `{text}` does not exist: registers are R0 .. R254, and RZ reads as zero"),
            RegFile::Predicate => write!(f, "predicate `{text}` does not exist: predicates are P0 .. P6, and PT is always true"),
        }
    }
}

/// A numbered name such as `R7` or `P3`: `Some(Ok(index))` for the file's
/// letter + a number inside it, or `RZ`/`PT`; `Some(Err)` for a number past
/// the file; `None` for other words.
fn numbered(text: &str, file: RegFile) -> Option<Result<u8, PastTheFile<'_>>> {
    let (prefix, special, special_index, count) = match file {
        RegFile::Register => ('R', "Z", RZ, NUM_REGS),
        RegFile::Predicate => ('P', "T", PT, u32::from(PT)),
    };
    let rest = text.strip_prefix([prefix, prefix.to_ascii_lowercase()])?;
    if rest.eq_ignore_ascii_case(special) {
        return Some(Ok(special_index));
    }
    if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(match rest.parse::<u32>() {
        Ok(n) if n < count => Ok(n as u8),
        _ => Err(PastTheFile { text, file }),
    })
}

/// A register: `R0 .. R254` or `RZ`.
fn register(text: &str) -> Option<Result<u8, PastTheFile<'_>>> {
    numbered(text, RegFile::Register)
}

/// A predicate: `P0 .. P6` or `PT`.
fn predicate(text: &str) -> Option<Result<u8, PastTheFile<'_>>> {
    numbered(text, RegFile::Predicate)
}

/// Whether a word is reserved for registers, predicates, special registers or literals.
fn is_reserved(text: &str) -> bool {
    register(text).is_some() || predicate(text).is_some() || SpecialReg::from_name(text).is_some() || word_literal(text, false).is_some()
}

/// Instruction rows by upper-case base mnemonic.
fn rows_of(base: &str) -> impl Iterator<Item = &'static OpInfo> + '_ {
    TABLE.iter().filter(move |row| row.mnemonic.eq_ignore_ascii_case(base))
}

/// Why a row did not accept the modifiers.
enum ModMiss {
    /// Token `index` is not accepted at this point.
    Token(usize),
    /// Group `index` has no default and was not written.
    Missing(usize),
}

/// Matches the modifier tokens left to right against the row's groups: a token
/// may skip groups that have defaults; groups left over must have defaults.
fn match_modifiers(row: &OpInfo, tokens: &[&str]) -> Result<[u8; 4], (usize, ModMiss)> {
    let mut mods = [0u8; 4];
    for (m, g) in mods.iter_mut().zip(row.groups) {
        *m = g.default.unwrap_or(0);
    }
    let mut next = 0;
    for (t, token) in tokens.iter().enumerate() {
        let mut found = None;
        for (gi, g) in row.groups.iter().enumerate().skip(next) {
            if let Some(v) = g.names.iter().position(|n| !n.is_empty() && n.eq_ignore_ascii_case(token)) {
                found = Some((gi, v as u8));
                break;
            }
            if g.default.is_none() {
                break;
            }
        }
        let Some((gi, v)) = found else { return Err((t, ModMiss::Token(t))) };
        mods[gi] = v;
        next = gi + 1;
    }
    match row.groups.iter().enumerate().skip(next).find(|(_, g)| g.default.is_none()) {
        Some((gi, _)) => Err((tokens.len(), ModMiss::Missing(gi))),
        None => Ok(mods),
    }
}

/// A label operand of the instruction being checked, resolved once the whole kernel is read.
struct Fixup<'a> {
    operand: usize,
    label: &'a str,
    span: Span,
}

/// What a new name names ([`Assembler::check_name`]).
#[derive(Clone, Copy)]
enum NameOf {
    Kernel,
    Parameter,
    SharedVariable,
}

/// Parameters and shared variables of the kernel being assembled.
#[derive(Default)]
struct Symbols<'a> {
    params: HashMap<&'a str, (u32, Span)>,
    shared: HashMap<&'a str, (u32, Span)>,
    /// The `name[]` array, which must be the last shared variable declared.
    dynamic: Option<&'a str>,
}

/// The kernel being assembled, filled line by line so that no syntax tree
/// outlives its line: the kernel itself grows in a [`KernelBuilder`]; this keeps
/// the source spans its diagnostics point at.
struct KernelState<'a> {
    name: ast::Name<'a>,
    /// Diagnostics before this kernel began: any new one means no kernel is produced.
    errors_before: usize,
    builder: KernelBuilder,
    symbols: Symbols<'a>,
    header: Header,
    /// Where each label is defined.
    label_spans: HashMap<&'a str, Span>,
    /// `.arg` directives, checked at the end, when every parameter is known.
    args: Vec<(Box<ast::ArgDecl<'a>>, Span)>,
    /// The label name and span of every branch reference, by [`simt_kernel::BranchRef`] number.
    branch_refs: Vec<(&'a str, Span)>,
    max_reg: Option<(u32, Span)>,
    builder_abandoned: bool,
    /// The kernel's own `.target`.
    target: Option<(Target, Span)>,
    /// Instructions whose form a later generation introduced, with the mnemonic's span,
    /// checked against the target once the whole kernel is read (`.target` may follow them).
    gated: Vec<(Form, Span)>,
}

struct Assembler<'a> {
    /// `--arch`: overrides every `.target`.
    arch: Option<Target>,
    /// A `.target` before the first `.kernel`, for every kernel of the file.
    file_target: Option<(Target, Span)>,
    sink: Sink,
    kernel_names: HashMap<&'a str, Span>,
    current: Option<KernelState<'a>>,
    kernels: Vec<Kernel>,
    stray_reported: bool,
}

/// Assembles a whole file; `arch` (`--arch`) overrides every `.target`.
pub(crate) fn assemble<'a>(file_name: &str, source: &'a str, arch: Option<Target>) -> Result<Module, Diagnostics> {
    let mut asm =
        Assembler { arch, file_target: None, sink: Sink::default(), kernel_names: HashMap::new(), current: None, kernels: Vec::new(), stray_reported: false };
    let parser = LineParser::new();
    let mut tokens = Vec::new();
    let mut lex_errors = Vec::new();
    // Lines are visited in order, so the line number is found by counting newlines since the last one.
    let (mut counted_to, mut line_no) = (0usize, 1u32);
    let on_line = |toks: &[lexer::Spanned<'a>]| {
        let start = toks[0].0;
        line_no += source.as_bytes()[counted_to..start].iter().filter(|&&b| b == b'\n').count() as u32;
        counted_to = start;
        match parser.parse(toks.iter().map(|&t| Ok::<_, LexError>(t))) {
            Ok(line) => asm.line(line_no, line, start),
            Err(e) => {
                let (span, message) = parse_error_message(&e);
                let d = asm.error("syntax", span, message, "here");
                if let ParseError::UnrecognizedToken { .. } | ParseError::UnrecognizedEof { .. } = e {
                    help(d, "one statement per line: `[label:] [@P0] MNEMONIC operands` or a directive");
                }
            }
        }
    };
    lexer::for_each_line(source, &mut tokens, on_line, |e| lex_errors.push(e));
    asm.finish_kernel();
    for e in lex_errors {
        asm.error("syntax", Span::new(e.span.start, e.span.end), e.message, "here");
    }
    if asm.sink.total == 0 && asm.kernels.is_empty() {
        asm.error("kernel", Span::new(0, 0), "the file defines no kernel: start one with `.kernel NAME`", "expected a .kernel here");
    }
    if asm.sink.total == 0 {
        return Ok(Module { source_name: file_name.to_string(), source: Some(source.to_string()), kernels: asm.kernels });
    }
    // Report in source order, whichever pass found the problem.
    Err(Diagnostics::new(file_name, source, asm.sink))
}

/// The directives that may appear once, with where they were given.
#[derive(Default)]
struct Header {
    local_size: Option<(u32, Span)>,
    regs: Option<(u32, Span)>,
    launch: Option<LaunchDims>,
}

impl<'a> Assembler<'a> {
    fn error(&mut self, code: &str, span: Span, message: impl Into<String>, label: impl Into<String>) -> &mut codespan_reporting::diagnostic::Diagnostic<()> {
        self.sink.error(code, span, message, label)
    }

    /// A non-negative integer from a directive.
    fn uint(&mut self, lit: &Lit<'_>, what: &str, min: u64, max: u64) -> Option<u32> {
        match to_literal(lit.num) {
            Literal::Int(v) if v >= 0 && (min..=max).contains(&(v as u64)) => Some(v as u32),
            _ => {
                self.error("directive", lit.span, format!("{what} must be an integer from {min} to {max}"), "out of range");
                None
            }
        }
    }

    /// A new kernel, parameter or shared-variable name must be a plain identifier that the
    /// places the name stands in cannot read as something else: a kernel's stands in no
    /// operand; a parameter's in addresses only, where a register's would be the base; a
    /// shared variable's also as an immediate, where a predicate, special register or literal
    /// word is read as that. (A PTX parameter called `pt` or `inf` keeps its name.)
    fn check_name(&mut self, name: &ast::Name<'_>, what: NameOf) -> bool {
        let what_name = match what {
            NameOf::Kernel => "kernel",
            NameOf::Parameter => "parameter",
            NameOf::SharedVariable => "shared variable",
        };
        let clash = match what {
            NameOf::Kernel => None,
            NameOf::Parameter => register(name.text).map(|_| "a register name, which an address reads as its base register"),
            NameOf::SharedVariable => is_reserved(name.text).then_some("a register, predicate or literal name"),
        };
        if name.text.contains('.') {
            self.error("name", name.span, format!("a {what_name} name cannot contain `.`: use letters, digits and `_`"), "invalid name");
            false
        } else if let Some(clash) = clash {
            self.error("name", name.span, format!("`{}` is {clash}: pick another {what_name} name", name.text), "reserved");
            false
        } else {
            true
        }
    }

    /// Takes one parsed line (`start`: its first byte).
    fn line(&mut self, line_no: u32, line: ast::Line<'a>, start: usize) {
        if let Some(ast::Statement { stmt: Stmt::Kernel(name), .. }) = &line.stmt {
            self.finish_kernel();
            self.start_kernel(*name);
        }
        if self.current.is_none()
            && let Some(ast::Statement { stmt: Stmt::Target(name), span }) = line.stmt
        {
            // The one directive that may come before the first kernel: it applies to the file.
            let previous = self.file_target.map(|(_, at)| at);
            if let Some(target) = self.target_name(&name, previous, span, "this file") {
                self.file_target = Some((target, span));
            }
            return;
        }
        let Some(mut k) = self.current.take() else {
            if !self.stray_reported {
                let span = line.stmt.as_ref().map(|s| s.span).or(line.label.map(|l| l.span)).unwrap_or(Span::new(start, start));
                let d = self.error("kernel", span, "this statement comes before the first `.kernel` directive", "outside any kernel");
                help(d, "put `.kernel NAME` above it");
                self.stray_reported = true;
            }
            return;
        };
        if let Some(label) = line.label {
            self.label(&mut k, label);
        }
        if let Some(stmt) = line.stmt {
            match stmt.stmt {
                Stmt::Instr(ins) => self.push_instruction(&mut k, line_no, &ins),
                Stmt::Arg(decl) => k.args.push((decl, stmt.span)),
                other => self.directive(&other, stmt.span, &mut k),
            }
        }
        self.current = Some(k);
    }

    fn start_kernel(&mut self, name: ast::Name<'a>) {
        self.check_name(&name, NameOf::Kernel);
        if let Some(first) = self.kernel_names.insert(name.text, name.span) {
            let d = self.error("kernel", name.span, format!("kernel `{}` is defined twice: rename one of them", name.text), "second definition");
            also(d, first, "first defined here");
        }
        self.current = Some(KernelState {
            name,
            errors_before: self.sink.total,
            builder: KernelBuilder::new(name.text),
            symbols: Symbols::default(),
            header: Header::default(),
            label_spans: HashMap::new(),
            args: Vec::new(),
            branch_refs: Vec::new(),
            max_reg: None,
            builder_abandoned: false,
            target: None,
            gated: Vec::new(),
        });
    }

    fn label(&mut self, k: &mut KernelState<'a>, label: ast::Name<'a>) {
        if label.text.contains('.') {
            self.error("label", label.span, "a label name cannot contain `.`: use letters, digits and `_`", "invalid label");
        } else if let Some(&first) = k.label_spans.get(label.text) {
            let d = self.error("label", label.span, format!("label `{}` is defined twice: rename one of them", label.text), "second definition");
            also(d, first, "first defined here");
        } else {
            k.label_spans.insert(label.text, label.span);
            let id = k.builder.label(label.text);
            // Names are checked for duplicates above, so placing cannot fail.
            let _ = k.builder.place(id);
        }
    }

    fn push_instruction(&mut self, k: &mut KernelState<'a>, line_no: u32, ins: &ast::Instr<'a>) {
        let mut fixups = Vec::new();
        // A rejected instruction keeps its slot so that later labels keep their pcs.
        let inst = self.instruction(ins, &k.symbols, &mut k.builder, &mut fixups).unwrap_or_else(|| Instruction::new(Opcode::Nop));
        if inst.form.since() > Target::OLDEST {
            k.gated.push((inst.form, ins.mnemonic.span));
        }
        if let Some(r) = inst.max_reg()
            && k.max_reg.is_none_or(|(m, _)| r > m)
        {
            k.max_reg = Some((r, ins.span));
        }
        if self.sink.total > k.errors_before && !k.builder_abandoned {
            // This kernel will not be kept: stop storing its code.
            k.builder.abandon();
            k.builder_abandoned = true;
        }
        let pc = match k.builder.push(inst, line_no) {
            Ok(pc) => pc,
            Err(e) => {
                self.error("kernel", ins.span, e.to_string(), "one instruction too many");
                return;
            }
        };
        for f in fixups {
            let label = k.builder.label(f.label);
            k.builder.branch_to(pc, f.operand, label);
            k.branch_refs.push((f.label, f.span));
        }
    }

    /// Resolves labels, arguments and registers of the current kernel and keeps it if it is clean.
    fn finish_kernel(&mut self) {
        let Some(k) = self.current.take() else { return };
        let KernelState { name, errors_before, mut builder, symbols: _, header, label_spans, args, branch_refs, max_reg, target, gated, .. } = k;
        self.check_target(target, &gated, &mut builder);
        let mut defaults = Vec::new();
        for (decl, span) in &args {
            self.arg(decl.name, &decl.value, *span, builder.params(), &mut defaults);
        }
        defaults.into_iter().for_each(|a| builder.arg(a));
        builder.local(header.local_size.map_or(0, |(n, _)| n));
        if let Some((n, _)) = header.regs {
            builder.regs(n);
        }
        if let Some(dims) = header.launch {
            builder.launch(dims);
        }
        let errors = match builder.finish() {
            Ok(kernel) if self.sink.total == errors_before => {
                self.kernels.push(kernel);
                return;
            }
            Ok(_) => return,
            Err(errors) => errors,
        };
        for e in errors {
            match e {
                BuildError::UndefinedLabel { name: ref label, at } => {
                    let d = self.error("label", branch_refs[at.0 as usize].1, e.to_string(), "not defined in this kernel");
                    match suggest(label, label_spans.keys().copied()) {
                        Some(s) => help(d, format!("did you mean `{s}`?")),
                        None => help(d, format!("define it with `{label}:` before an instruction")),
                    }
                }
                BuildError::LabelAtEnd { at, .. } => {
                    let d = self.error("label", branch_refs[at.0 as usize].1, e.to_string(), "nothing to branch to");
                    help(d, "add `EXIT` after the label");
                }
                BuildError::Empty(_) => {
                    self.error("kernel", name.span, e.to_string(), "empty kernel");
                }
                BuildError::TooFewRegs { regs, used } => {
                    let span = header.regs.map_or(name.span, |(_, span)| span);
                    let d = self.error(
                        "directive",
                        span,
                        format!("`.regs {regs}` is too small: the kernel uses R{used}"),
                        format!("raise this to {} or more", used + 1),
                    );
                    if let Some((_, at)) = max_reg {
                        also(d, at, format!("R{used} is used here"));
                    }
                }
                // Every other rule is checked as the kernel is read, with a better message; this is a safety net.
                BuildError::Redefined { .. } | BuildError::SharedTooLarge { .. } | BuildError::TooLong | BuildError::Invalid(_) => {
                    self.error("kernel", name.span, e.to_string(), "in this kernel");
                }
            }
        }
    }

    fn directive(&mut self, stmt: &Stmt<'a>, span: Span, k: &mut KernelState<'a>) {
        let (symbols, h) = (&mut k.symbols, &mut k.header);
        match stmt {
            Stmt::Param { ty, name } => {
                let text = ty.text[1..].to_ascii_lowercase();
                let parsed = match text.as_str() {
                    "u32" => Some(ParamType::U32),
                    "s32" => Some(ParamType::S32),
                    "f32" => Some(ParamType::F32),
                    "f64" => Some(ParamType::F64),
                    "u64" => Some(ParamType::U64),
                    t => match t.split_once('.') {
                        Some(("ptr", elem)) => ElemType::from_name(elem).map(ParamType::Ptr),
                        Some(("raw", elem)) => ElemType::from_name(elem).map(ParamType::Raw),
                        _ => None,
                    },
                };
                let Some(pty) = parsed else {
                    let d = self.error("directive", ty.span, format!("unknown parameter type `{}`", ty.text), "unknown type");
                    let elems: Vec<&str> = ElemType::ALL.iter().map(|e| e.name()).collect();
                    help(d, format!("use .u32, .s32, .f32, .f64, .u64, .ptr.<{0}> or .raw.<{0}>", elems.join("|")));
                    return;
                };
                if !self.check_name(name, NameOf::Parameter) || !self.new_symbol(name, symbols) {
                    return;
                }
                let offset = k.builder.param(name.text, pty);
                symbols.params.insert(name.text, (offset, name.span));
            }
            Stmt::Shared(decl) => {
                let ast::SharedDecl { align, ty, name, len } = &**decl;
                let Some(elem) = ElemType::from_name(&ty.text[1..]) else {
                    let d = self.error("directive", ty.span, format!("unknown element type `{}`", ty.text), "unknown type");
                    help(d, "use .u8, .s8, .u16, .s16, .u32, .s32, .f16, .bf16, .f32, .f64, .b32, .tf32, .e4m3 or .e5m2");
                    return;
                };
                if elem.is_packed() {
                    let d = self.error("directive", ty.span, format!("`.{elem}` packs two elements a byte, which a shared array cannot hold"), "packed type");
                    help(d, "declare the bytes instead, e.g. `.shared .u8 name[N/2]`, and unpack them with SHR and AND");
                    return;
                }
                let natural = elem.size().max(4);
                let align = match align {
                    Some(lit) => match self.uint(lit, "`.align`", 1, 1 << 16) {
                        Some(a) if a.is_power_of_two() && a >= elem.size() => a,
                        Some(a) => {
                            self.error(
                                "directive",
                                lit.span,
                                format!("`.align {a}` must be a power of two of at least {} (the .{elem} size)", elem.size()),
                                "bad alignment",
                            );
                            return;
                        }
                        None => return,
                    },
                    None => natural,
                };
                let count = match len {
                    ast::SharedLen::Count(lit) => match self.uint(lit, "a shared array length", 1, u64::from(u32::MAX)) {
                        Some(n) => n,
                        None => return,
                    },
                    ast::SharedLen::One => 1,
                    ast::SharedLen::Dynamic => 0,
                };
                if let Some(dynamic) = symbols.dynamic {
                    let (message, remedy) = if count == 0 {
                        (
                            format!("a second dynamic shared array: `{dynamic}[]` already addresses the launch's dynamic shared memory"),
                            format!("address this one through `{dynamic}` too (`[{dynamic}+OFFSET]`)"),
                        )
                    } else {
                        (
                            format!("`{}` comes after the dynamic shared array `{dynamic}[]`, which must be the kernel's last shared variable", name.text),
                            format!("declare `{}` above `{dynamic}[]`: the dynamic array starts where the static ones end", name.text),
                        )
                    };
                    let d = self.error("directive", span, message, "after the dynamic array");
                    help(d, remedy);
                    return;
                }
                if !self.check_name(name, NameOf::SharedVariable) || !self.new_symbol(name, symbols) {
                    return;
                }
                if count == 0 {
                    symbols.dynamic = Some(name.text);
                }
                match k.builder.shared(name.text, elem, count, align) {
                    Ok(offset) => {
                        symbols.shared.insert(name.text, (offset, name.span));
                    }
                    Err(e) => {
                        self.error("directive", span, e.to_string(), "too large");
                    }
                }
            }
            Stmt::Local(lit) => {
                if let Some(n) = self.uint(lit, "`.local` (bytes per thread)", 0, u64::from(simt_isa::MAX_LOCAL_BYTES)) {
                    self.once(&mut h.local_size, n, span, ".local");
                }
            }
            Stmt::Regs(lit) => {
                if let Some(n) = self.uint(lit, "`.regs`", 1, u64::from(NUM_REGS)) {
                    self.once(&mut h.regs, n, span, ".regs");
                }
            }
            Stmt::Launch(dims) => self.launch(dims, span, h),
            Stmt::Target(name) => {
                let previous = k.target.map(|(_, at)| at);
                if let Some(target) = self.target_name(name, previous, span, "this kernel") {
                    k.target = Some((target, span));
                }
            }
            Stmt::Kernel(_) | Stmt::Arg(_) | Stmt::Instr(_) => {}
        }
    }

    /// The target a `.target` directive names; `None` after reporting an unknown name
    /// or a second `.target` for the same scope (`previous`: where the first one is).
    fn target_name(&mut self, name: &ast::Name<'_>, previous: Option<Span>, span: Span, scope: &str) -> Option<Target> {
        if let Some(first) = previous {
            let d = self.error("directive", span, format!("`.target` is given twice for {scope}: keep one"), "second one");
            also(d, first, "first one here");
            return None;
        }
        match Target::from_name(name.text) {
            Some(target) => Some(target),
            None => {
                let d = self.error("directive", name.span, format!("unknown target `{}`", name.text), "not a target");
                help(d, format!("use one of {}", Target::names()));
                None
            }
        }
    }

    /// Reports every instruction the kernel's target lacks, and gives the builder the
    /// target: `--arch`, else the kernel's `.target`, else the file's, else the default.
    fn check_target(&mut self, own: Option<(Target, Span)>, gated: &[(Form, Span)], builder: &mut KernelBuilder) {
        let (target, set_at) = match (self.arch, own.or(self.file_target)) {
            (Some(arch), _) => (arch, None),
            (None, Some((target, at))) => (target, Some(at)),
            (None, None) => (Target::DEFAULT, None),
        };
        let by_arch = self.arch.is_some();
        let mut rejected = false;
        for (form, span) in gated.iter().filter(|(form, _)| form.since() > target) {
            rejected = true;
            let needs = form.since();
            let d = self.error("target", *span, beyond_target(form, target), format!("needs {needs}"));
            if let Some(at) = set_at {
                also(d, at, "the target is set here");
            }
            let fix = if by_arch { format!("pass `--arch {needs}`") } else { format!("write `.target {needs}`") };
            help(d, format!("{fix} (or a later target), or use a form {target} has (docs/isa.md, Targets)"));
        }
        // A rejected kernel is never kept; leaving the builder at the default target keeps
        // its own check from reporting the same instructions again.
        if !rejected {
            builder.target(target);
        }
    }

    /// Records a directive that may appear once.
    fn once(&mut self, slot: &mut Option<(u32, Span)>, value: u32, span: Span, what: &str) {
        if let Some((_, first)) = *slot {
            let d = self.error("directive", span, format!("`{what}` is given twice in this kernel: keep one"), "second one");
            also(d, first, "first one here");
        } else {
            *slot = Some((value, span));
        }
    }

    /// Registers a parameter or shared name, rejecting clashes.
    fn new_symbol(&mut self, name: &ast::Name<'a>, symbols: &Symbols<'a>) -> bool {
        let clash = symbols.params.get(name.text).map(|p| ("parameter", p.1)).or(symbols.shared.get(name.text).map(|s| ("shared variable", s.1)));
        if let Some((what, first)) = clash {
            let d = self.error("symbol", name.span, format!("`{}` is already a {what} of this kernel: pick another name", name.text), "name clash");
            also(d, first, "first declared here");
            return false;
        }
        true
    }

    fn launch(&mut self, dims: &[ast::Dims<'_>], span: Span, h: &mut Header) {
        let mut grid = None;
        let mut block = None;
        for d in dims {
            let slot = if d.name.text.eq_ignore_ascii_case("grid") {
                &mut grid
            } else if d.name.text.eq_ignore_ascii_case("block") {
                &mut block
            } else {
                self.error("directive", d.name.span, format!("`.launch` takes grid(..) and block(..), not `{}`", d.name.text), "unknown");
                return;
            };
            if slot.is_some() || d.extents.is_empty() || d.extents.len() > 3 {
                self.error("directive", d.span, "give grid and block once each, with 1 to 3 extents: grid(4) block(16,16)", "here");
                return;
            }
            let mut ext = [1u32; 3];
            for (e, lit) in ext.iter_mut().zip(&d.extents) {
                match self.uint(lit, "a launch extent", 1, u64::from(u32::MAX)) {
                    Some(v) => *e = v,
                    None => return,
                }
            }
            *slot = Some(ext);
        }
        let (Some(grid), Some(block)) = (grid, block) else {
            self.error("directive", span, "`.launch` needs both grid(..) and block(..): write .launch grid(4) block(256)", "incomplete");
            return;
        };
        let threads: u64 = block.iter().map(|&b| u64::from(b)).product();
        if threads > simt_isa::MAX_BLOCK_THREADS {
            self.error(
                "directive",
                span,
                format!("a block holds at most {} threads, this one {threads}: make it smaller", simt_isa::MAX_BLOCK_THREADS),
                "too many threads",
            );
            return;
        }
        if h.launch.replace(LaunchDims { grid, block }).is_some() {
            self.error("directive", span, "`.launch` is given twice in this kernel: keep one", "second one");
        }
    }

    fn arg(&mut self, name: ast::Name<'_>, value: &ArgValue<'_>, span: Span, params: &[Param], args: &mut Vec<ArgDefault>) {
        let Some(param) = params.iter().find(|p| p.name == name.text) else {
            let d = self.error("arg", name.span, format!("`.arg` names `{}`, which is not a parameter of this kernel", name.text), "unknown parameter");
            if let Some(s) = suggest(name.text, params.iter().map(|p| p.name.as_str())) {
                help(d, format!("did you mean `{s}`?"));
            }
            return;
        };
        let init = match arg_init(value) {
            Ok(init) => init,
            Err((at, problem)) => {
                self.error("arg", at, problem.to_string(), "here");
                return;
            }
        };
        if let Err(mismatch) = crate::check_arg(param, &init) {
            self.error("arg", span, mismatch.to_string(), format!("`{}` is .{}", param.name, param.ty.name()));
            return;
        }
        if args.iter().any(|a| a.name == name.text) {
            self.error("arg", span, format!("`{}` already has an `.arg` default: keep one", name.text), "second default");
            return;
        }
        args.push(ArgDefault { name: name.text.to_string(), init });
    }
}

/// The `format` operand of a `PRINTF` from its string literal `text` (quotes included); an
/// error points at the escape or conversion at fault.
fn format_operand(builder: &mut KernelBuilder, text: &str, span: Span) -> Result<Operand, OperandError> {
    let body = &text[1..text.len() - 1];
    let format = simt_isa::printf::unquote(body).map_err(|m| op_err(m, "in this string"))?;
    builder.format(&format).map_err(|e| {
        let source = simt_isa::printf::source_offset(body, e.at);
        let spec_end =
            body[source..].char_indices().skip(1).find(|&(_, c)| c.is_ascii_alphabetic() || c == '%').map_or(body.len(), |(i, c)| source + i + c.len_utf8());
        let offset = |i: usize| span.start as usize + 1 + i;
        at(op_err(e.message, "this conversion"), Span::new(offset(source), offset(spec_end)))
    })
}

/// What went wrong with one operand: message, caret label, optional help.
struct OperandError {
    message: String,
    label: &'static str,
    help: Option<String>,
    /// The token inside the operand at fault, when narrower than the operand.
    span: Option<Span>,
}

fn op_err(message: impl ToString, label: &'static str) -> OperandError {
    OperandError { message: message.to_string(), label, help: None, span: None }
}

fn at(mut e: OperandError, span: Span) -> OperandError {
    e.span = Some(span);
    e
}

fn with_help(mut e: OperandError, text: impl Into<String>) -> OperandError {
    e.help = Some(text.into());
    e
}

/// Describes a word that was found where another kind of operand was expected.
fn describe(text: &str, symbols: &Symbols<'_>) -> String {
    if register(text).is_some() {
        format!("register `{text}`")
    } else if predicate(text).is_some() {
        format!("predicate `{text}`")
    } else if SpecialReg::from_name(text).is_some() {
        format!("special register `{text}`")
    } else if symbols.params.contains_key(text) {
        format!("parameter `{text}`")
    } else if symbols.shared.contains_key(text) {
        format!("shared variable `{text}`")
    } else {
        format!("`{text}`")
    }
}

impl<'a> Assembler<'a> {
    fn guard(&mut self, g: &ast::Name<'_>) -> Option<Guard> {
        let body = &g.text[1..];
        let (negated, name) = match body.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, body),
        };
        match predicate(name) {
            Some(Ok(pred)) => Some(Guard { pred, negated }),
            Some(Err(past)) => {
                self.error("register", g.span, past.to_string(), "no such predicate");
                None
            }
            None => {
                self.error("syntax", g.span, format!("a guard is a predicate: write @P0, @!P0 or @PT, not `{}`", g.text), "not a guard");
                None
            }
        }
    }

    /// Picks the table row and modifier values for a mnemonic like `LD.GLOBAL.V2.B32`.
    fn select(&mut self, m: &ast::Name<'_>) -> Option<(Opcode, [u8; 4])> {
        const MAX_MODIFIERS: usize = 8;
        let mut parts = m.text.split('.');
        let base = parts.next().unwrap_or("");
        // A fixed buffer: modifiers are parsed for every instruction and never outnumber the groups.
        let mut buffer = [""; MAX_MODIFIERS];
        let mut n = 0;
        for part in parts {
            if n == MAX_MODIFIERS {
                self.error("modifier", m.span, format!("too many modifiers: no instruction takes more than {}", MAX_MODIFIERS - 1), "too many");
                return None;
            }
            buffer[n] = part;
            n += 1;
        }
        let tokens = &buffer[..n];
        let mut best: Option<(&OpInfo, usize, ModMiss)> = None;
        let mut any = false;
        for row in rows_of(base) {
            any = true;
            match match_modifiers(row, tokens) {
                Ok(mods) => return Some((row.opcode, mods)),
                Err((progress, miss)) => {
                    if best.as_ref().is_none_or(|b| progress > b.1) {
                        best = Some((row, progress, miss));
                    }
                }
            }
        }
        let base_span = m.span.sub(0, base.len());
        if !any {
            let shown = self.sink.keeps(base_span);
            let d = self.error("mnemonic", base_span, format!("unknown mnemonic `{base}`"), "not an instruction");
            match suggest(base, TABLE.iter().map(|r| r.mnemonic).filter(|_| shown)) {
                Some(s) => help(d, format!("did you mean `{s}`?")),
                None => help(d, "the instructions are listed in docs/isa.md"),
            }
            return None;
        }
        let (row, _, miss) = best?;
        let forms: Vec<String> = rows_of(base).map(OpInfo::syntax).collect();
        let d = match miss {
            ModMiss::Token(t) => {
                let offset = base.len() + 1 + tokens[..t].iter().map(|s| s.len() + 1).sum::<usize>();
                let span = m.span.sub(offset, tokens[t].len());
                let known = rows_of(base).flat_map(|r| r.groups.iter()).flat_map(|g| g.names.iter()).any(|n| n.eq_ignore_ascii_case(tokens[t]));
                if known {
                    self.error("modifier", span, format!("modifier `.{}` is not allowed here", tokens[t]), "out of place")
                } else {
                    let candidates = rows_of(base).flat_map(|r| r.groups.iter()).flat_map(|g| g.names.iter().copied()).filter(|n| !n.is_empty());
                    let hint = suggest(tokens[t], candidates);
                    let d = self.error("modifier", span, format!("unknown modifier `.{}` for {}", tokens[t], base.to_ascii_uppercase()), "unknown modifier");
                    if let Some(s) = hint {
                        help(d, format!("did you mean `.{s}`?"));
                    }
                    d
                }
            }
            ModMiss::Missing(g) => {
                let group = &row.groups[g];
                let choices: Vec<&str> = group.names.iter().copied().filter(|n| !n.is_empty()).collect();
                self.error(
                    "modifier",
                    m.span,
                    format!("{} needs a `{}` modifier: one of .{}", row.mnemonic, group.name, choices.join(", .")),
                    "incomplete mnemonic",
                )
            }
        };
        help(d, format!("write {}", forms.join(" or ")));
        None
    }

    /// Checks and encodes one instruction; `None` after reporting its errors.
    fn instruction(&mut self, ins: &ast::Instr<'a>, symbols: &Symbols<'_>, builder: &mut KernelBuilder, fixups: &mut Vec<Fixup<'a>>) -> Option<Instruction> {
        let guard = match &ins.guard {
            Some(g) => self.guard(g),
            None => Some(Guard::ALWAYS),
        };
        let (opcode, mods) = self.select(&ins.mnemonic)?;
        // The indices were matched against the row's own spellings, so they are in range.
        let form = Form::from_indices(opcode, mods)?;
        let mut inst = Instruction { form, guard: guard?, ..Instruction::new(opcode) };
        let info = opcode.info();
        let given = ins.operands.len();
        let max = info.operands.len();
        let min = max - usize::from(info.optional);
        if given < min || given > max {
            let expected = if min == max { format!("{max}") } else { format!("{min} or {max}") };
            let span = ins.operands.get(max).map_or(ins.span, |o| Span { start: o.span.start, end: ins.span.end });
            let d = self.error(
                "operand",
                span,
                format!("{} takes {expected} operand{}, found {given}", opcode, if max == 1 { "" } else { "s" }),
                if given > max { "extra operands" } else { "missing operands" },
            );
            help(d, format!("write {}", info.syntax()));
            return None;
        }
        let mut ok = true;
        for (i, spec) in info.operands.iter().enumerate() {
            let Some(operand) = ins.operands.get(i) else {
                inst.operands[i] = default_operand(opcode, spec.kind);
                continue;
            };
            let resolved = match (&operand.form, spec.kind) {
                (&OperandForm::Str(text), OperandKind::Format) => format_operand(builder, text, operand.span),
                _ => self.operand(&inst, i, spec.kind, operand, symbols),
            };
            match resolved {
                Ok(op) => {
                    // Branch targets are filled in when the whole kernel has been read.
                    if let (Operand::Label { .. }, OperandForm::Word { text, .. }) = (op, &operand.form) {
                        fixups.push(Fixup { operand: i, label: text, span: operand.span });
                    }
                    inst.operands[i] = op;
                }
                Err(e) => {
                    ok = false;
                    let d = self.error("operand", e.span.unwrap_or(operand.span), e.message, e.label);
                    if let Some(h) = e.help {
                        help(d, h);
                    }
                }
            }
        }
        if !ok {
            return None;
        }
        if let Err(e) = inst.validate() {
            let span = match e.at {
                ErrorAt::Modifiers => ins.mnemonic.span,
                ErrorAt::Guard => ins.guard.map_or(ins.span, |g| g.span),
                ErrorAt::Operand(i) => ins.operands.get(i).map_or(ins.span, |o| o.span),
            };
            let d = self.error("operand", span, e.message, "here");
            help(d, format!("write {}", info.syntax()));
            return None;
        }
        Some(inst)
    }

    /// Resolves operand `i` of `inst` (whose opcode and modifiers are known) as `kind`.
    fn operand(&mut self, inst: &Instruction, i: usize, kind: OperandKind, op: &ast::Operand<'_>, symbols: &Symbols<'_>) -> Result<Operand, OperandError> {
        let name = inst.info().operands[i].name;
        match (&op.form, kind) {
            (OperandForm::Addr(terms), OperandKind::Addr) => self.address(inst, terms, symbols),
            (OperandForm::Addr(_), _) => Err(op_err(format!("operand `{name}` cannot be an address: only LD, ST and ATOM take `[..]`"), "unexpected address")),
            (_, OperandKind::Addr) => {
                Err(with_help(op_err(format!("operand `{name}` must be an address"), "expected `[..]`"), "write [R4], [R4+16], [0x100] or [name]"))
            }
            (OperandForm::Str(_), _) => Err(op_err(format!("operand `{name}` cannot be a string: only PRINTF's format is one"), "unexpected string")),
            (_, OperandKind::Format) => {
                Err(with_help(op_err(format!("operand `{name}` must be a string literal"), "expected a string"), "write PRINTF \"x = %d\\n\", R4"))
            }
            (OperandForm::Num(num), OperandKind::Src { .. } | OperandKind::Reg(_)) => {
                fit_source(*num, inst.lit_kind(i), inst.opcode()).map(Operand::Src).map_err(|m| op_err(m, "this literal"))
            }
            (OperandForm::Num(num), OperandKind::Imm) => fit_int(*num).map(Operand::Imm).map_err(|m| op_err(m, "this literal")),
            (OperandForm::Num(_), _) => Err(op_err(format!("operand `{name}` cannot be a literal"), "unexpected literal")),
            (&OperandForm::Word { text, neg, abs, not }, kind) => {
                let plain = !neg && !abs && !not;
                match kind {
                    OperandKind::Dst(_) => match register(text) {
                        Some(Ok(r)) if plain => Ok(Operand::Reg(r)),
                        Some(Ok(_)) => Err(op_err("a destination takes no `-`, `|..|` or `!`", "plain register expected")),
                        Some(Err(m)) => Err(op_err(m, "no such register")),
                        None => Err(op_err(
                            format!("operand `{name}` must be a register (R0 .. R254 or RZ), found {}", describe(text, symbols)),
                            "expected a register",
                        )),
                    },
                    OperandKind::Src { .. } | OperandKind::Reg(_) => {
                        if let Some(r) = register(text) {
                            let reg = r.map_err(|m| op_err(m, "no such register"))?;
                            return if not {
                                Err(op_err("`!` negates predicates; write `-R` to negate a register", "`!` on a register"))
                            } else {
                                Ok(Operand::Src(Src::Reg { reg, neg, abs }))
                            };
                        }
                        if let Some(num) = word_literal(text, neg).filter(|_| !abs && !not) {
                            return fit_source(num, inst.lit_kind(i), inst.opcode()).map(Operand::Src).map_err(|m| op_err(m, "this literal"));
                        }
                        if let Some(&(addr, _)) = symbols.shared.get(text) {
                            return match inst.lit_kind(i) {
                                LitKind::Int | LitKind::Any if plain => Ok(Operand::Src(Src::imm(addr))),
                                _ if !plain => Err(op_err("a shared address takes no `-`, `|..|` or `!`", "here")),
                                _ => Err(op_err(
                                    format!("`{text}` is a shared address, an integer, but operand `{name}` takes f32 or a register"),
                                    "shared address",
                                )),
                            };
                        }
                        let e = op_err(
                            format!("operand `{name}` must be a register or a literal, found {}", describe(text, symbols)),
                            "expected a register or literal",
                        );
                        Err(if symbols.params.contains_key(text) {
                            with_help(e, format!("read a parameter with LD.PARAM.U32 R0, [{text}]"))
                        } else if SpecialReg::from_name(text).is_some() {
                            with_help(e, format!("read it with S2R R0, {text}"))
                        } else if let Some(s) = suggest(text, symbols.shared.keys().copied()) {
                            with_help(e, format!("did you mean `{s}`?"))
                        } else {
                            e
                        })
                    }
                    OperandKind::PredDst => match predicate(text) {
                        Some(Ok(p)) if plain => Ok(Operand::Pred(p)),
                        Some(Ok(_)) => Err(op_err("a destination predicate cannot be negated", "plain predicate expected")),
                        Some(Err(m)) => Err(op_err(m, "no such predicate")),
                        None => Err(op_err(
                            format!("operand `{name}` must be a predicate (P0 .. P6 or PT), found {}", describe(text, symbols)),
                            "expected a predicate",
                        )),
                    },
                    OperandKind::PredSrc => match predicate(text) {
                        Some(Ok(pred)) if !neg && !abs => Ok(Operand::PredSrc { pred, negated: not }),
                        Some(Ok(_)) => Err(op_err("negate a predicate with `!`, as in !P0", "`-` or `|..|` on a predicate")),
                        Some(Err(m)) => Err(op_err(m, "no such predicate")),
                        None => Err(op_err(
                            format!("operand `{name}` must be a predicate (P0 .. P6, PT, or !P0), found {}", describe(text, symbols)),
                            "expected a predicate",
                        )),
                    },
                    OperandKind::Special => match SpecialReg::from_name(text) {
                        Some(sr) if plain => Ok(Operand::Special(sr)),
                        _ => {
                            let e = op_err(format!("unknown special register {}", describe(text, symbols)), "expected SR_...");
                            Err(match suggest(text, SpecialReg::NAMES.iter().copied()) {
                                Some(s) => with_help(e, format!("did you mean `{s}`?")),
                                None => with_help(e, format!("special registers are {}", SpecialReg::NAMES.join(", "))),
                            })
                        }
                    },
                    OperandKind::Label if plain && !text.contains('.') => Ok(Operand::Label { target: 0, reconv: NO_RECONV }),
                    OperandKind::Label => Err(op_err("a branch target is a label name", "expected a label")),
                    OperandKind::Imm | OperandKind::Addr | OperandKind::Format => {
                        Err(op_err(format!("operand `{name}` must be an integer literal"), "expected an integer"))
                    }
                }
            }
        }
    }

    /// Resolves `[base + offsets + symbols]`.
    fn address(&mut self, inst: &Instruction, terms: &[ast::AddrTerm<'_>], symbols: &Symbols<'_>) -> Result<Operand, OperandError> {
        let param_space = inst.form.access().is_some_and(|a| a.space == Space::Param);
        let mut base = None;
        let mut offset: i64 = 0;
        for t in terms {
            match t.item {
                AddrItem::Num(Num::Int(v)) => offset = offset.saturating_add(if t.neg { v.saturating_neg() } else { v }),
                AddrItem::Num(_) => return Err(at(op_err("an address offset is an integer", "not an integer"), t.span)),
                AddrItem::Word(w) => {
                    if let Some(r) = register(w) {
                        let r = r.map_err(|m| at(op_err(m, "no such register"), t.span))?;
                        if t.neg || base.is_some() {
                            return Err(at(op_err("an address has at most one base register, added first: [R4+16]", "second or negated register"), t.span));
                        }
                        base = Some(r);
                        continue;
                    }
                    let (table, what, other) =
                        if param_space { (&symbols.params, "parameter", &symbols.shared) } else { (&symbols.shared, "shared variable", &symbols.params) };
                    let Some(&(addr, _)) = table.get(w) else {
                        let e = at(op_err(format!("unknown {what} `{w}` in this address"), "not declared"), t.span);
                        return Err(if other.contains_key(w) {
                            with_help(
                                e,
                                if param_space {
                                    format!("`{w}` is a shared variable: use LD.SHARED")
                                } else {
                                    format!("`{w}` is a parameter: read it with LD.PARAM.U32 R0, [{w}]")
                                },
                            )
                        } else if let Some(s) = suggest(w, table.keys().copied()) {
                            with_help(e, format!("did you mean `{s}`?"))
                        } else {
                            with_help(e, format!("declare it with .{} above its first use", if param_space { "param" } else { "shared" }))
                        });
                    };
                    if t.neg {
                        return Err(at(op_err("a symbol's address can only be added", "negated symbol"), t.span));
                    }
                    offset += i64::from(addr);
                }
            }
            if !(-(1i64 << 31)..(1i64 << 32)).contains(&offset) {
                return Err(op_err("the address offset does not fit 32 bits", "too large"));
            }
        }
        Ok(Operand::Addr { base: base.unwrap_or(RZ), offset: offset as u32 as i32 })
    }
}
