//! Disassembly and listings, derived from the instruction table.
//!
//! The text this module writes assembles back to the same instruction words,
//! and disassembling that again gives the same text.

use std::collections::HashMap;
use std::fmt::Write;

use crate::instr::*;
use crate::module::*;
use crate::table::*;

/// The value an omitted optional operand of `opcode` takes (`q` = `PT`, SHFL width 32, a member
/// mask the whole warp, `MMA.SCALED`'s selectors 0).
pub fn default_operand(opcode: Opcode, kind: OperandKind) -> Operand {
    match kind {
        OperandKind::PredSrc => Operand::PredSrc { pred: PT, negated: false },
        OperandKind::Imm if opcode == Opcode::MmaScaled => Operand::Imm(0),
        OperandKind::Imm => Operand::Imm(32),
        OperandKind::Src { width: Width::Printed, .. } => Operand::Src(Src::reg(RZ)),
        OperandKind::Src { width: Width::Members, .. } => Operand::Src(Src::imm(u32::MAX)),
        _ => Operand::None,
    }
}

/// Shortest text that reads back as exactly these f32 bits.
pub fn format_f32(bits: u32) -> String {
    let v = f32::from_bits(bits);
    if bits == 0x7FFF_FFFF {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let text = format!("{v:?}");
    if v.is_finite() && text.parse::<f32>().map(f32::to_bits) == Ok(bits) { text } else { format!("0f{bits:08X}") }
}

/// Shortest text that reads back as exactly these f64 bits; always marked as a 64-bit literal.
pub fn format_f64(bits: u64) -> String {
    // A plain decimal would read back as f32 in some slots, so f64 values keep their bit pattern.
    format!("0d{bits:016X}")
}

fn format_int(bits: u32) -> String {
    let signed = bits as i32;
    if (-65536..=65536).contains(&signed) { signed.to_string() } else { format!("0x{bits:X}") }
}

/// Names the disassembler uses for pcs and parameter offsets.
#[derive(Default)]
pub struct Symbols<'a> {
    labels: HashMap<u32, String>,
    params: HashMap<u32, &'a str>,
    formats: &'a [String],
}

impl<'a> Symbols<'a> {
    /// Labels of `kernel`, plus `L<pc>` for every branch target without one.
    pub fn of(kernel: &'a Kernel) -> Symbols<'a> {
        let mut labels: HashMap<u32, String> = HashMap::new();
        for (name, pc) in &kernel.labels {
            labels.entry(*pc).or_insert_with(|| name.clone());
        }
        for inst in &kernel.code {
            for op in inst.operands() {
                if let Operand::Label { target, .. } = *op {
                    labels.entry(target).or_insert_with(|| format!("L{target}"));
                }
            }
        }
        let params = kernel.params.iter().map(|p| (p.offset, p.name.as_str())).collect();
        Symbols { labels, params, formats: &kernel.formats }
    }

    /// The label at `pc`, if any.
    pub fn label(&self, pc: u32) -> Option<&str> {
        self.labels.get(&pc).map(String::as_str)
    }
}

fn reg_name(r: u8) -> String {
    if r == RZ { "RZ".into() } else { format!("R{r}") }
}

fn pred_name(p: u8) -> String {
    if p == PT { "PT".into() } else { format!("P{p}") }
}

/// The mnemonic of a form with its modifiers, as written (`MMA.M16N16K16.F32.BF16`);
/// modifiers at their default are left out.
pub fn format_mnemonic(form: &Form) -> String {
    let info = form.info();
    let mut s = info.mnemonic.to_string();
    for (g, value) in info.groups.iter().zip(form.indices()) {
        if g.default == Some(value) {
            continue;
        }
        s.push('.');
        s.push_str(g.spelling(value));
    }
    s
}

/// Assembly text of one instruction (without label or trailing comment).
pub fn format_instruction(inst: &Instruction, symbols: &Symbols<'_>) -> String {
    let info = inst.info();
    let mut s = String::new();
    if inst.guard != Guard::ALWAYS {
        let _ = write!(s, "@{}{} ", if inst.guard.negated { "!" } else { "" }, pred_name(inst.guard.pred));
    }
    s.push_str(&format_mnemonic(&inst.form));
    let mut count = info.operands.len();
    while count > info.operands.len() - usize::from(info.optional) && inst.operands[count - 1] == default_operand(info.opcode, info.operands[count - 1].kind) {
        count -= 1;
    }
    let space = inst.form.access().map(|a| a.space);
    for i in 0..count {
        s.push_str(if i == 0 { " " } else { ", " });
        match inst.operands[i] {
            Operand::None => {}
            Operand::Reg(r) => s.push_str(&reg_name(r)),
            Operand::Src(Src::Reg { reg, neg, abs }) => {
                let name = reg_name(reg);
                let body = if abs { format!("|{name}|") } else { name };
                s.push_str(if neg { "-" } else { "" });
                s.push_str(&body);
            }
            Operand::Src(Src::Imm { bits, wide }) => {
                let text = match (inst.lit_kind(i), wide) {
                    (_, true) => format_f64(bits),
                    (LitKind::F32, false) => format_f32(bits as u32),
                    _ => format_int(bits as u32),
                };
                s.push_str(&text);
            }
            Operand::Pred(p) => s.push_str(&pred_name(p)),
            Operand::PredSrc { pred, negated } => {
                s.push_str(if negated { "!" } else { "" });
                s.push_str(&pred_name(pred));
            }
            Operand::Special(sr) => s.push_str(sr.name()),
            Operand::Addr { base, offset } => {
                if base == RZ {
                    let absolute = offset as u32;
                    match symbols.params.get(&absolute) {
                        Some(name) if space == Some(Space::Param) => {
                            let _ = write!(s, "[{name}]");
                        }
                        _ => {
                            let _ = write!(s, "[0x{absolute:X}]");
                        }
                    }
                } else if offset == 0 {
                    let _ = write!(s, "[{}]", reg_name(base));
                } else if offset > 0 {
                    let _ = write!(s, "[{}+{offset}]", reg_name(base));
                } else {
                    let _ = write!(s, "[{}-{}]", reg_name(base), offset.unsigned_abs());
                }
            }
            Operand::Label { target, .. } => {
                s.push_str(symbols.label(target).map_or_else(|| format!("L{target}"), str::to_string).as_str());
            }
            Operand::Imm(v) => {
                let _ = write!(s, "{v}");
            }
            Operand::Format { index, .. } => match symbols.formats.get(usize::from(index)) {
                Some(text) => s.push_str(&crate::printf::quote(text)),
                None => {
                    let _ = write!(s, "<format {index}>");
                }
            },
        }
    }
    s
}

fn dims(d: [u32; 3]) -> String {
    let n = if d[2] != 1 {
        3
    } else if d[1] != 1 {
        2
    } else {
        1
    };
    d[..n].iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

/// The directives of a kernel, as they would be written in a `.s` file.
fn write_header(out: &mut String, k: &Kernel) {
    let _ = writeln!(out, ".kernel {}", k.name);
    let _ = writeln!(out, ".target {}", k.target);
    for p in &k.params {
        let _ = writeln!(out, ".param .{} {}", p.ty.name(), p.name);
    }
    for v in &k.shared {
        let natural = v.elem.size().max(4);
        let align = if v.align == natural { String::new() } else { format!(".align {} ", v.align) };
        // No elements: the dynamic shared memory a launch adds (PTX's `.extern .shared`).
        let len = if v.len == 0 { String::new() } else { v.len.to_string() };
        let _ = writeln!(out, ".shared {align}.{} {}[{len}]", v.elem, v.name);
    }
    if k.local_size != 0 {
        let _ = writeln!(out, ".local {}", k.local_size);
    }
    let _ = writeln!(out, ".regs {}", k.regs);
    if let Some(l) = k.launch {
        let _ = writeln!(out, ".launch grid({}) block({})", dims(l.grid), dims(l.block));
    }
    for a in &k.args {
        let _ = writeln!(out, ".arg {} = {}", a.name, a.init);
    }
}

/// Disassembles a whole module into text that assembles back to the same code.
pub fn disassemble(module: &Module) -> String {
    disassemble_inner(module, false)
}

/// Like [`disassemble`], with the source line each group of instructions came from as a
/// comment beside its first instruction: the view of a translation from another language
/// (a PTX line and the simt instructions it became), like `cuobjdump -sass`.
pub fn disassemble_with_source(module: &Module) -> String {
    disassemble_inner(module, true)
}

fn disassemble_inner(module: &Module, with_source: bool) -> String {
    let source_lines: Vec<&str> = module.source.as_deref().map(|s| s.lines().collect()).unwrap_or_default();
    let mut out = String::new();
    // No file names here: disassembling the reassembled text must give identical text.
    out.push_str("// disassembled by simt\n");
    for (i, k) in module.kernels.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        write_header(&mut out, k);
        out.push('\n');
        let symbols = Symbols::of(k);
        let mut shown_line = None;
        for (pc, inst) in k.code.iter().enumerate() {
            if let Some(label) = symbols.label(pc as u32) {
                let _ = writeln!(out, "{label}:");
            }
            let text = format_instruction(inst, &symbols);
            let line = k.lines.get(pc).copied();
            let source = line.filter(|_| with_source && shown_line != line).and_then(|l| source_lines.get(l.checked_sub(1)? as usize));
            match source {
                Some(source) => {
                    shown_line = line;
                    let source = source.split_whitespace().collect::<Vec<_>>().join(" ");
                    let _ = writeln!(out, "    {text:<40} // {:>4}: {source}", line.unwrap_or(0));
                }
                None => {
                    let _ = writeln!(out, "    {text}");
                }
            }
        }
        if let Some(label) = symbols.label(k.code.len() as u32) {
            let _ = writeln!(out, "{label}:");
        }
    }
    out
}

/// A listing: pc, encoding, source line and text, and each divergent branch's reconvergence pc.
pub fn listing(module: &Module) -> String {
    let source_lines: Vec<&str> = module.source.as_deref().map(|s| s.lines().collect()).unwrap_or_default();
    let mut out = String::new();
    for k in &module.kernels {
        let _ = writeln!(out, "// kernel {} ({} instructions, {} registers, target {})", k.name, k.code.len(), k.regs, k.target);
        let _ = writeln!(out, "{:>5}  {:<32}  {:>5}  source", "pc", "encoding", "line");
        let symbols = Symbols::of(k);
        let mut pool = PoolBuilder::default();
        for (pc, inst) in k.code.iter().enumerate() {
            let word = encode(inst, &mut pool);
            let line = k.lines[pc];
            // Line 0 means no line: loaded bytecode may carry it.
            let text = (line.checked_sub(1))
                .and_then(|i| source_lines.get(i as usize))
                .map(|l| l.split("//").next().unwrap_or(l).trim().to_string())
                .filter(|l| !l.is_empty())
                .unwrap_or_else(|| format_instruction(inst, &symbols));
            let reconv = inst.operands().iter().find_map(|op| match *op {
                Operand::Label { reconv, .. } if reconv != NO_RECONV => Some(reconv),
                _ => None,
            });
            let note = match reconv {
                Some(r) if r as usize == k.code.len() => "    ; reconverges at exit".to_string(),
                Some(r) => format!("    ; reconverges at pc {r}"),
                None => String::new(),
            };
            let _ = writeln!(out, "{pc:>5}  {word:032x}  {line:>5}  {text}{note}");
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the `run_bytecode` fuzzer: a loaded line table may hold 0 (or a line past
    /// the source), and `line - 1` overflowed.
    #[test]
    fn listing_takes_any_line_number() {
        let kernel = Kernel {
            name: "k".into(),
            params: vec![],
            shared: vec![],
            shared_size: 0,
            local_size: 0,
            regs: 0,
            launch: None,
            args: vec![],
            code: vec![Instruction::new(Opcode::Nop), Instruction::new(Opcode::Nop), Instruction::new(Opcode::Exit)],
            lines: vec![0, u32::MAX, 1],
            labels: vec![],
            target: crate::Target::DEFAULT,
            frames: crate::Frames::default(),
            formats: vec![],
        };
        let module = Module { source_name: "k.s".into(), source: Some("    EXIT // the end\n".into()), kernels: vec![kernel] };
        let module = crate::read_module(&crate::write_module(&module)).expect("a line table of any numbers loads");
        let text = listing(&module);
        assert_eq!(text.lines().filter(|l| l.ends_with("NOP")).count(), 2, "{text}");
        assert!(text.contains("      1  EXIT"), "{text}");
    }
}
