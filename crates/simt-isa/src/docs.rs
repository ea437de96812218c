//! `docs/isa.md`, generated from the instruction table.

use std::fmt::Write;

use crate::disasm::format_mnemonic;
use crate::table::*;
use crate::target::Target;

/// How many registers an operand of this width names, in words.
fn width_note(width: Width) -> &'static str {
    match width {
        Width::One => "",
        Width::Pair => "register pair",
        Width::Data => "1, 2 or 4 registers by type and vector width",
        Width::Matrices => "a register a matrix",
        Width::Converted => "a pair for F64, S64 and U64, else one register",
        Width::Literal => "a pair for a `0d` literal, else one register",
        Width::Fragment(_) => "fragment, registers by MMA form",
        Width::Printed => "the registers the format's arguments take",
        Width::Members => "each lane's member mask (left out: the whole warp)",
        Width::Warpgroup(FragRole::C) => "`n / 2` registers (`n / 4` for F16)",
        Width::Warpgroup(_) => "a descriptor pair (`SS`) or 4 fragment registers (`RS`)",
        Width::Coordinates => "a register per dimension of the rank",
        Width::Quad => "four registers",
        Width::Tmem => "the shape's registers (1, 2 for `16X128B`, 4 for `16X256B`) times the repetitions",
    }
}

fn operand_notes(row: &OpInfo) -> String {
    let mut notes = Vec::new();
    for spec in row.operands {
        let note = match spec.kind {
            OperandKind::Dst(Width::One) => "register".to_string(),
            OperandKind::Dst(width) => width_note(width).to_string(),
            OperandKind::Reg(Width::One) => "register".to_string(),
            OperandKind::Reg(width) => format!("register, {}", width_note(width)),
            OperandKind::Src { lit, mods, width } => {
                let lit = match lit {
                    LitKind::NoLiteral => "register",
                    LitKind::Int => "register or integer",
                    LitKind::F32 => "register or f32",
                    LitKind::F64 => "pair or f64",
                    LitKind::Any => "register or any literal",
                    LitKind::Converted => "register or literal of the `from` type",
                };
                let mods = match mods {
                    SrcMods::Plain => "",
                    SrcMods::Neg => ", `-`",
                    SrcMods::NegAbs => ", `-` `|..|`",
                };
                let width = match (width, width_note(width)) {
                    (Width::One | Width::Pair, _) if lit.starts_with("pair") => String::new(),
                    (_, "") => String::new(),
                    (_, note) => format!(", {note}"),
                };
                format!("{lit}{mods}{width}")
            }
            OperandKind::PredDst => "predicate".to_string(),
            OperandKind::PredSrc => "predicate, `!`".to_string(),
            OperandKind::Special => "special register".to_string(),
            OperandKind::Addr => "address".to_string(),
            OperandKind::Label => "label".to_string(),
            OperandKind::Imm => "integer literal".to_string(),
            OperandKind::Format => "string literal".to_string(),
        };
        notes.push(format!("`{}`: {note}", spec.name));
    }
    notes.join("; ")
}

/// Every form of `row`: each combination of its modifier values.
fn forms(row: &OpInfo) -> Vec<Form> {
    let mut forms = vec![[0u8; 4]];
    for (g, group) in row.groups.iter().enumerate() {
        forms = forms
            .into_iter()
            .flat_map(|base| {
                (0..group.names.len() as u8).map(move |v| {
                    let mut indices = base;
                    indices[g] = v;
                    indices
                })
            })
            .collect();
    }
    forms.into_iter().filter_map(|indices| Form::from_indices(row.opcode, indices)).collect()
}

/// The forms that exist: every combination, less the MMA type pairs the contract does not define.
fn defined_forms(row: &OpInfo) -> impl Iterator<Item = Form> {
    forms(row).into_iter().filter(Form::is_defined)
}

/// The "target" cell of a row: the first target that has any of its forms, then the
/// modifier values whose every form needs a later one.
fn target_note(row: &OpInfo) -> String {
    let forms: Vec<Form> = defined_forms(row).collect();
    let first = forms.iter().map(Form::since).min().unwrap_or(row.since);
    let mut later: Vec<(Target, Vec<&str>)> = Vec::new();
    for (g, group) in row.groups.iter().enumerate().filter(|(_, g)| !g.is_fixed()) {
        for (v, name) in group.names.iter().enumerate().filter(|(_, n)| !n.is_empty()) {
            let with_value = forms.iter().filter(|f| usize::from(f.indices()[g]) == v);
            let Some(since) = with_value.map(Form::since).min() else { continue };
            if since > first {
                match later.iter_mut().find(|(t, _)| *t == since) {
                    Some((_, names)) => names.push(name),
                    None => later.push((since, vec![name])),
                }
            }
        }
    }
    later.sort_by_key(|(t, _)| *t);
    let mut note = first.name().to_string();
    for (target, names) in later {
        let names: Vec<String> = names.iter().map(|n| format!("`.{n}`")).collect();
        let _ = write!(note, "; {} {target}", names.join(" "));
    }
    note
}

/// The full text of `docs/isa.md`.
pub fn isa_markdown() -> String {
    let mut s = String::new();
    s.push_str("# simt instruction reference\n\n");
    s.push_str(
        "<!-- Generated from crates/simt-isa/src/table.rs. Do not edit: run `SIMT_BLESS=1 cargo test -p simt-isa docs` after changing the table. -->\n\n",
    );
    s.push_str("Every row of the instruction table, with its modifiers, operands, the unit it issues to and its semantics. ");
    s.push_str("`[..]` marks what may be left out; `<A|B>` is a choice. Any instruction may start with a guard `@P0` or `@!P0`. ");
    s.push_str("Mnemonics, modifiers and register names are case-insensitive. The language itself is described in `docs/language.md`.\n\n");
    s.push_str("The unit is the pipeline the timing backend issues to; the latency class names the machine configuration's ");
    s.push_str("latency (`docs/timing.md`); the flags say what an instruction does beyond its registers; the target is the ");
    s.push_str("first one that has the form (see Targets below).\n\n");
    s.push_str("| syntax | unit | latency | flags | target | semantics | operands |\n| --- | --- | --- | --- | --- | --- | --- |\n");
    for row in TABLE {
        let cell = |text: &str| text.replace('|', "\\|");
        let flags: Vec<&str> = row.flags.names().collect();
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {} | {} | {} |",
            cell(&row.syntax()),
            row.unit.name(),
            row.latency.name(),
            flags.join(", "),
            target_note(row),
            cell(row.doc.trim()),
            cell(&operand_notes(row))
        );
    }
    s.push_str("\n## Targets\n\n");
    s.push_str("A kernel names its target with `.target sm_XX` (before the first `.kernel` for the whole file, or inside a kernel); ");
    s.push_str("`simt asm|run --arch sm_XX` overrides it; the default is `sm_100`. A form the target lacks is an assembly error ");
    s.push_str("naming the target that introduced it. Each target has the forms of the ones above it and adds:\n\n");
    s.push_str("| target | generation | adds |\n| --- | --- | --- |\n");
    for target in Target::ALL {
        let added: Vec<String> = TABLE
            .iter()
            .flat_map(defined_forms)
            .filter(|f| f.since() == target && (target > Target::OLDEST || f.info().unit == Unit::Tensor))
            .map(|f| format!("`{}`", format_mnemonic(&f)))
            .collect();
        let added = match (target, added.is_empty()) {
            (Target::OLDEST, _) => format!("every form not listed below; tensor cores: {}", added.join(", ")),
            (_, true) => "no new forms".to_string(),
            (_, false) => added.join(", "),
        };
        let _ = writeln!(s, "| `{target}` | {} | {added} |", target.generation());
    }
    s.push_str("\n## Special registers\n\n");
    for name in SpecialReg::NAMES {
        let _ = writeln!(s, "- `{name}`");
    }
    s.push_str("\n## Encoding\n\nEach instruction is one 128-bit little-endian word; literals live in a per-kernel constant pool. ");
    s.push_str("The field layout is documented in `crates/simt-isa/src/instr.rs` and the file format in `crates/simt-isa/src/module.rs` ");
    s.push_str("(see also `docs/bytecode.md`).\n\n| opcode byte | instruction |\n| --- | --- |\n");
    for row in TABLE {
        let _ = writeln!(s, "| {:#04x} | `{}` |", row.opcode as u8, row.full_mnemonic());
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn docs_isa_md_is_up_to_date() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/isa.md");
        let fresh = super::isa_markdown();
        if std::env::var_os("SIMT_BLESS").is_some() {
            std::fs::write(path, &fresh).expect("write docs/isa.md");
            return;
        }
        let on_disk = std::fs::read_to_string(path).unwrap_or_default();
        assert!(on_disk == fresh, "docs/isa.md is stale: run `SIMT_BLESS=1 cargo test -p simt-isa docs` and commit the result");
    }
}
