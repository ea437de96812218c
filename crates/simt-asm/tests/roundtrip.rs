//! Property: random valid programs, generated from the instruction table,
//! assemble; their disassembly assembles to the same code; and disassembling
//! that again gives identical text.

use proptest::prelude::*;
use simt_isa::*;

/// A small deterministic generator, so one proptest seed describes a whole program.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
    /// Random letter case: the language is case-insensitive for these words.
    fn case(&mut self, text: &str) -> String {
        match self.below(3) {
            0 => text.to_ascii_lowercase(),
            1 => text.to_ascii_uppercase(),
            _ => text.chars().map(|c| if self.chance(50) { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() }).collect(),
        }
    }
}

const HEADER: &str = ".param .u32 n\n.param .f64 d\n.param .ptr.f32 x\n.shared .f32 tile[64]\n.shared .u32 buf[16]\n.shared .align 16 .u8 dyn[]\n";

fn register(rng: &mut Rng, count: u8, mma: bool) -> String {
    if count == 1 && rng.chance(5) {
        return "RZ".into();
    }
    let count = u64::from(count);
    let align = if count > 1 && !mma { count } else { 1 };
    let slots = (255 - count) / align;
    format!("R{}", rng.below(slots + 1) * align)
}

fn int_literal(rng: &mut Rng) -> String {
    let v = rng.next() as u32;
    match rng.below(5) {
        0 => format!("{}", v % 1000),
        1 => format!("-{}", v % 100_000),
        2 => format!("0x{v:X}"),
        3 => format!("0b{:b}", v % 4096),
        _ => format!("{}", v as i32),
    }
}

fn f32_literal(rng: &mut Rng) -> String {
    let bits = rng.next() as u32;
    let v = f32::from_bits(bits);
    match rng.below(6) {
        0 if v.is_finite() => format!("{v:?}"),
        1 => format!("{}", rng.below(2000) as i64 - 1000),
        2 => rng.pick(&["inf", "-inf", "nan", "INF"]).to_string(),
        3 => format!("{}", (rng.below(1 << 20) as f32) / 64.0),
        _ => format!("0f{bits:08X}"),
    }
}

fn f64_literal(rng: &mut Rng) -> String {
    let bits = rng.next();
    let v = f64::from_bits(bits);
    match rng.below(5) {
        0 if v.is_finite() => format!("{v:?}"),
        1 => format!("{}", rng.below(2000) as i64 - 1000),
        2 => rng.pick(&["inf", "-inf", "nan"]).to_string(),
        _ => format!("0d{bits:016X}"),
    }
}

fn address(rng: &mut Rng, param: bool, wide: bool) -> String {
    // A 64-bit address's base is a pair: an even register.
    let reg = if wide { format!("R{}", 2 * rng.below(127)) } else { format!("R{}", rng.below(255)) };
    let sym = if param { *rng.pick(&["n", "d", "x"]) } else { *rng.pick(&["tile", "buf"]) };
    match rng.below(7) {
        0 => format!("[{reg}]"),
        1 => format!("[{reg}+{}]", rng.below(4096)),
        2 => format!("[{reg}-{}]", rng.below(4096)),
        3 => format!("[0x{:X}]", rng.next() as u32),
        4 => format!("[{sym}]"),
        5 => format!("[{sym}+{}]", rng.below(64) * 4),
        _ => format!("[{reg}+{sym}]"),
    }
}

/// Picks modifiers for `row` that pass the table's combination rules, and their text.
fn modifiers(rng: &mut Rng, row: &OpInfo) -> (Instruction, String) {
    loop {
        let mut inst = Instruction::new(row.opcode);
        let mut indices = [0u8; 4];
        let mut text = rng.case(row.mnemonic);
        for (gi, g) in row.groups.iter().enumerate() {
            let v = rng.below(g.names.len() as u64) as u8;
            indices[gi] = v;
            let spelling = g.spelling(v);
            let omit = spelling.is_empty() || (g.default == Some(v) && rng.chance(50));
            if !omit {
                text.push('.');
                text.push_str(&rng.case(spelling));
            }
        }
        inst.form = Form::from_indices(row.opcode, indices).expect("indices from the row");
        match inst.validate() {
            Err(e) if e.at == ErrorAt::Modifiers => continue,
            _ => return (inst, text),
        }
    }
}

/// One random valid instruction line (without label).
fn instruction(rng: &mut Rng, labels: usize) -> String {
    loop {
        let row = rng.pick(TABLE);
        if let Some(line) = instruction_of(rng, row, labels) {
            return line;
        }
    }
}

/// A random instruction line of `row`, or `None` where its MMA registers happened to overlap
/// (the one rule left to chance).
fn instruction_of(rng: &mut Rng, row: &OpInfo, labels: usize) -> Option<String> {
    let (mut inst, mnemonic) = modifiers(rng, row);
    // PRINTF's `a` may be left out only where its format takes no arguments: always given.
    let omittable = if row.opcode == Opcode::Printf { 0 } else { row.optional };
    let count = row.operands.len() - if rng.chance(50) { usize::from(omittable) } else { 0 };
    let mut texts = vec![String::new(); count];
    // Sources first: a MOV of a 0d literal makes its destination a pair.
    let order: Vec<usize> = (0..count)
        .filter(|&i| !matches!(row.operands[i].kind, OperandKind::Dst(_)))
        .chain((0..count).filter(|&i| matches!(row.operands[i].kind, OperandKind::Dst(_))))
        .collect();
    for i in order {
        let mma = row.unit == Unit::Tensor;
        texts[i] = match row.operands[i].kind {
            // PRINTF's arguments: an even register, or RZ where the format takes none.
            OperandKind::Src { width: Width::Printed, .. } if inst.reg_count(i) == 0 => "RZ".into(),
            OperandKind::Src { width: Width::Printed, .. } => format!("R{}", 2 * rng.below(100)),
            OperandKind::Dst(_) | OperandKind::Reg(_) => register(rng, inst.reg_count(i), mma),
            OperandKind::Src { mods, .. } => {
                let lit = inst.lit_kind(i);
                if lit != LitKind::NoLiteral && rng.chance(40) {
                    match lit {
                        // A barrier's number and its count of whole warps.
                        _ if matches!(row.opcode, Opcode::BarSync | Opcode::BarArrive) => {
                            if i == 0 { rng.below(16) } else { 32 * (1 + rng.below(32)) }.to_string()
                        }
                        LitKind::Int => int_literal(rng),
                        LitKind::F32 => f32_literal(rng),
                        LitKind::F64 => f64_literal(rng),
                        _ if row.opcode == Opcode::Mov && rng.chance(30) => {
                            let text = format!("0d{:016X}", rng.next());
                            inst.operands[i] = Operand::Src(Src::Imm { bits: 0, wide: true });
                            text
                        }
                        _ if rng.chance(50) => int_literal(rng),
                        _ if rng.chance(20) => rng.pick(&["tile", "buf"]).to_string(),
                        _ => f32_literal(rng),
                    }
                } else {
                    let reg = register(rng, inst.reg_count(i), mma);
                    let neg = mods != SrcMods::Plain && rng.chance(30);
                    let abs = mods == SrcMods::NegAbs && rng.chance(30);
                    let body = if abs { format!("|{reg}|") } else { reg };
                    format!("{}{body}", if neg { "-" } else { "" })
                }
            }
            OperandKind::PredDst => {
                let name = format!("P{}", rng.below(8)).replace("P7", "PT");
                rng.case(&name)
            }
            OperandKind::PredSrc => format!("{}{}", if rng.chance(30) { "!" } else { "" }, format!("P{}", rng.below(8)).replace("P7", "PT")),
            OperandKind::Special => {
                let name = *rng.pick(SpecialReg::NAMES);
                rng.case(name)
            }
            OperandKind::Addr => {
                let access = inst.form.access();
                address(rng, access.is_some_and(|a| a.space == Space::Param), access.is_some_and(|a| a.wide))
            }
            OperandKind::Label => format!("L{}", rng.below(labels as u64)),
            OperandKind::Imm => format!("{}", 1u32 << rng.below(6)),
            OperandKind::Format => {
                let text = *rng.pick(&[r"hi\n", r"%d: %c\t%%\n", r#"%5.2f|%s|\"%lx\"\n"#, r"\\ %*d \x1b"]);
                let format = simt_isa::printf::Format::parse(&simt_isa::printf::unquote(text).expect("an escaped format")).expect("a valid format");
                inst.operands[i] = format.operand(0);
                format!("\"{text}\"")
            }
        };
    }
    let guard = match rng.below(6) {
        0 => format!("@P{} ", rng.below(7)),
        1 => format!("@!P{} ", rng.below(7)),
        2 => "@PT ".into(),
        _ => String::new(),
    };
    let line = format!("{guard}{mnemonic} {}", texts.join(", "));
    if row.unit == Unit::Tensor && simt_asm::assemble("t.s", &format!(".kernel t\n{line}\n")).is_err() {
        return None;
    }
    Some(line)
}

fn program(seed: u64, kernels: usize, len: usize) -> String {
    let mut rng = Rng(seed | 1);
    let mut text = String::from("// generated\n");
    for k in 0..kernels {
        text.push_str(&format!(".kernel k{k}\n{HEADER}"));
        let labels = 1 + rng.below(4) as usize;
        // Labels sit on random instructions; L0 is always the first one.
        let mut at: Vec<usize> = (1..labels).map(|_| rng.below(len as u64) as usize).collect();
        at.insert(0, 0);
        for pc in 0..len {
            for (l, _) in at.iter().enumerate().filter(|&(_, &p)| p == pc) {
                text.push_str(&format!("L{l}:\n"));
            }
            text.push_str(&format!("    {}\n", instruction(&mut rng, labels)));
        }
        text.push_str("    EXIT\n");
    }
    text
}

fn check_round_trip(text: &str) {
    let first = simt_asm::assemble("p.s", text).unwrap_or_else(|d| panic!("generated program does not assemble:\n{d}\n{text}"));
    let dis = disassemble(&first);
    let second = simt_asm::assemble("p.s", &dis).unwrap_or_else(|d| panic!("disassembly does not assemble:\n{d}\n{dis}"));
    for (a, b) in first.kernels.iter().zip(&second.kernels) {
        assert_eq!(a.code, b.code, "kernel {}:\n{text}\n---\n{dis}", a.name);
    }
    assert_eq!(disassemble(&second), dis);
}

/// Every row's instructions, one (a first try that assembles) among random ones, round trip.
#[test]
fn generated_programs_cover_the_table() {
    let mut rng = Rng(43);
    let mut text = format!("// generated\n.kernel k0\n{HEADER}L0:\n");
    for row in TABLE {
        let line = (0..1000).find_map(|_| instruction_of(&mut rng, row, 1)).unwrap_or_else(|| panic!("no {} assembles", row.mnemonic));
        text.push_str(&format!("    {line}\n    {}\n", instruction(&mut rng, 1)));
    }
    text.push_str("    EXIT\n");
    check_round_trip(&text);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_programs_round_trip(seed in any::<u64>(), kernels in 1usize..3, len in 1usize..40) {
        check_round_trip(&program(seed, kernels, len));
    }
}

/// Bytecode written by earlier versions keeps its meaning: each `asm_*` fuzz seed (assembled by
/// simt when it was made, a format version or more ago) decodes to the code its source assembles
/// to today (`simt_isa`'s `opcodes_keep_their_numbers` guards the opcodes these kernels do not
/// use).
#[test]
fn old_bytecode_decodes_to_what_its_source_assembles_to() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut checked = 0;
    for entry in std::fs::read_dir(root.join("fuzz/seeds/bytecode")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let Some(stem) = name.strip_prefix("asm_") else { continue };
        // `asm_divergence_if_else` is asm/divergence/if_else.s or asm/divergence_if_else.s.
        let candidates = [root.join(format!("asm/{stem}.s")), root.join(format!("asm/{}.s", stem.replacen('_', "/", 1)))];
        let Some(source) = candidates.iter().find(|p| p.exists()) else { continue };
        let old = read_module(&std::fs::read(&path).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = std::fs::read_to_string(source).unwrap();
        let new = simt_asm::assemble(source.to_str().unwrap(), &text).unwrap_or_else(|_| panic!("{} assembles", source.display()));
        assert_eq!(disassemble(&old), disassemble(&new), "{name} decodes to other code than {} assembles to", source.display());
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} seeds had their source");
}
