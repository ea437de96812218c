//! `docs/isa.md`, generated from the instruction table.

use std::fmt::Write;

use crate::table::*;

/// How many registers an operand of this width names, in words.
fn width_note(width: Width) -> &'static str {
    match width {
        Width::One => "",
        Width::Pair => "register pair",
        Width::Data => "1, 2 or 4 registers by type and vector width",
        Width::Converted => "a pair for F64, else one register",
        Width::Literal => "a pair for a `0d` literal, else one register",
        Width::Fragment(_) => "fragment, registers by MMA form",
    }
}

fn operand_notes(row: &OpInfo) -> String {
    let mut notes = Vec::new();
    for spec in row.operands {
        let note = match spec.kind {
            OperandKind::Dst(Width::One) => "register".to_string(),
            OperandKind::Dst(width) => width_note(width).to_string(),
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
        };
        notes.push(format!("`{}`: {note}", spec.name));
    }
    notes.join("; ")
}

/// The full text of `docs/isa.md`.
pub fn isa_markdown() -> String {
    let mut s = String::new();
    s.push_str("# simt instruction reference\n\n");
    s.push_str("<!-- Generated from crates/simt-isa/src/table.rs. Do not edit: run `SIMT_BLESS=1 cargo test -p simt-isa docs` after changing the table. -->\n\n");
    s.push_str("Every row of the instruction table, with its modifiers, operands, the unit it issues to and its semantics. ");
    s.push_str("`[..]` marks what may be left out; `<A|B>` is a choice. Any instruction may start with a guard `@P0` or `@!P0`. ");
    s.push_str("Mnemonics, modifiers and register names are case-insensitive. The language itself is described in `docs/language.md`.\n\n");
    s.push_str("The unit is the pipeline the timing backend issues to; the latency class names the machine configuration's ");
    s.push_str("latency (`docs/timing.md`); the flags say what an instruction does beyond its registers.\n\n");
    s.push_str("| syntax | unit | latency | flags | semantics | operands |\n| --- | --- | --- | --- | --- | --- |\n");
    for row in TABLE {
        let cell = |text: &str| text.replace('|', "\\|");
        let flags: Vec<&str> = row.flags.names().collect();
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {} | {} |",
            cell(&row.syntax()),
            row.unit.name(),
            row.latency.name(),
            flags.join(", "),
            cell(row.doc.trim()),
            cell(&operand_notes(row))
        );
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
        assert!(
            on_disk == fresh,
            "docs/isa.md is stale: run `SIMT_BLESS=1 cargo test -p simt-isa docs` and commit the result"
        );
    }
}
