//! Table-driven tests of literal forms, address forms, operand forms,
//! modifiers and directives.

use simt_isa::*;

const HEAD: &str = ".kernel k\n.param .u32 n\n.param .f64 d\n.param .ptr.f32 x\n.shared .u8 flag\n.shared .f32 tile[64]\n";

/// Assembles one instruction and returns it.
fn one(line: &str) -> Result<Instruction, String> {
    let source = format!("{HEAD}    {line}\n    EXIT\n");
    simt_asm::assemble("t.s", &source).map(|m| m.kernels[0].code[0]).map_err(|d| d.render(false))
}

fn src(line: &str, index: usize) -> Src {
    match one(line).unwrap_or_else(|e| panic!("{line}: {e}")).operands[index] {
        Operand::Src(s) => s,
        other => panic!("{line}: operand {index} is {other:?}"),
    }
}

#[test]
fn literal_forms() {
    let cases: &[(&str, usize, Src)] = &[
        ("IADD R1, R2, 42", 2, Src::imm(42)),
        ("IADD R1, R2, -7", 2, Src::imm(-7i32 as u32)),
        ("IADD R1, R2, 0x2A", 2, Src::imm(42)),
        ("IADD R1, R2, 0b1010", 2, Src::imm(10)),
        ("IADD R1, R2, 4294967295", 2, Src::imm(u32::MAX)),
        ("IADD R1, R2, -2147483648", 2, Src::imm(0x8000_0000)),
        ("IADD R1, R2, tile", 2, Src::imm(4)),
        ("FADD R1, R2, 1.0", 2, Src::imm(1.0f32.to_bits())),
        ("FADD R1, R2, -2.5e-3", 2, Src::imm((-2.5e-3f32).to_bits())),
        ("FADD R1, R2, 1e9", 2, Src::imm(1e9f32.to_bits())),
        ("FADD R1, R2, 3", 2, Src::imm(3.0f32.to_bits())),
        ("FADD R1, R2, -3", 2, Src::imm((-3.0f32).to_bits())),
        ("FADD R1, R2, inf", 2, Src::imm(f32::INFINITY.to_bits())),
        ("FADD R1, R2, -inf", 2, Src::imm(f32::NEG_INFINITY.to_bits())),
        ("FADD R1, R2, nan", 2, Src::imm(0x7FFF_FFFF)),
        ("FADD R1, R2, 0f3F800000", 2, Src::imm(0x3F80_0000)),
        ("FADD R1, -R2, 1", 1, Src::Reg { reg: 2, neg: true, abs: false }),
        ("FADD R1, |R2|, 1", 1, Src::Reg { reg: 2, neg: false, abs: true }),
        ("FADD R1, -|R2|, 1", 1, Src::Reg { reg: 2, neg: true, abs: true }),
        ("IADD R1, -R2, RZ", 1, Src::Reg { reg: 2, neg: true, abs: false }),
        ("DADD R2, R4, 1.5", 2, Src::Imm { bits: 1.5f64.to_bits(), wide: true }),
        ("DADD R2, R4, 2", 2, Src::Imm { bits: 2.0f64.to_bits(), wide: true }),
        ("DADD R2, R4, nan", 2, Src::Imm { bits: 0x7FFF_FFFF_FFFF_FFFF, wide: true }),
        ("DADD R2, R4, 0d3FF0000000000000", 2, Src::Imm { bits: 0x3FF0_0000_0000_0000, wide: true }),
        ("MOV R1, 7", 1, Src::imm(7)),
        ("MOV R1, 1.0", 1, Src::imm(0x3F80_0000)),
        ("MOV R1, 0f3F800000", 1, Src::imm(0x3F80_0000)),
        ("MOV R2, 0d3FF0000000000000", 1, Src::Imm { bits: 0x3FF0_0000_0000_0000, wide: true }),
        ("SEL R1, -1, 2.5, P0", 1, Src::imm(u32::MAX)),
        ("CVT.F32.S32 R1, -5", 1, Src::imm(-5i32 as u32)),
        ("CVT.S32.F32 R1, -2.7", 1, Src::imm((-2.7f32).to_bits())),
        ("CVT.F32.F64 R1, 0.1", 1, Src::Imm { bits: 0.1f64.to_bits(), wide: true }),
    ];
    for (line, index, expected) in cases {
        assert_eq!(src(line, *index), *expected, "{line}");
    }
}

#[test]
fn f32_decimals_round_once() {
    // 1.00000005960464477539062500000001 lies just above the midpoint of two
    // f32 values; rounding through f64 first lands on the midpoint and then on the even (lower) one.
    let text = "1.00000005960464477539062500000001";
    assert_eq!(src(&format!("FADD R1, R2, {text}"), 2), Src::imm(text.parse::<f32>().unwrap().to_bits()));
    assert_ne!(text.parse::<f32>().unwrap(), text.parse::<f64>().unwrap() as f32);
}

#[test]
fn rejected_literals() {
    let cases = [
        ("IADD R1, R2, 1.5", "float literal"),
        ("IADD R1, R2, 4294967296", "range"),
        ("IADD R1, R2, -2147483649", "range"),
        ("IADD R1, R2, 0f3F800000", "float literal"),
        ("FADD R1, R2, 0d3FF0000000000000", "64 bits"),
        ("FADD R1, R2, 1e39", "too large"),
        ("DADD R2, R4, 0f3F800000", "32 bits"),
        ("SEL R1, 0d3FF0000000000000, R2, P0", "only MOV"),
        ("SHFL.IDX R1, R2, R3, 1.5", "float literal"),
        ("SHFL.IDX R1, R2, R3, 3", "power of two"),
        ("FADD R1, R2, 0f3F80", "8 hex digits"),
        ("FADD R1, R2, -0f3F800000", "negated"),
        ("IADD R1, R2, 99999999999999999999", "does not fit 64 bits"),
        ("IADD R1, R2, 12abc", "not a number"),
        ("MUFU.RCP R1, tile", "shared address"),
        ("LD.SHARED.U32 R1, [R2+1.5]", "integer"),
    ];
    for (line, needle) in cases {
        let e = one(line).expect_err(line);
        assert!(e.contains(needle), "{line}: expected `{needle}` in\n{e}");
    }
}

#[test]
fn address_forms() {
    let cases: &[(&str, u8, i32)] = &[
        ("LD.GLOBAL.U32 R1, [R4]", 4, 0),
        ("LD.GLOBAL.U32 R1, [R4+16]", 4, 16),
        ("LD.GLOBAL.U32 R1, [R4-4]", 4, -4),
        ("LD.GLOBAL.U32 R1, [0x100]", RZ, 0x100),
        ("LD.GLOBAL.U32 R1, [0xFFFFFFFC]", RZ, -4),
        ("LD.SHARED.F32 R1, [tile]", RZ, 4),
        ("LD.SHARED.F32 R1, [tile+8]", RZ, 12),
        ("LD.SHARED.F32 R1, [R4+tile]", 4, 4),
        ("LD.SHARED.F32 R1, [R4+tile+8]", 4, 12),
        ("LD.SHARED.U8 R1, [flag]", RZ, 0),
        ("LD.PARAM.U32 R1, [n]", RZ, 0),
        ("LD.PARAM.F64 R2, [d]", RZ, 8),
        ("LD.PARAM.U32 R1, [x]", RZ, 16),
        ("LD.PARAM.U32 R1, [R4+x]", 4, 16),
        ("ATOM.SHARED.ADD.U32 R1, [tile+4], 1", RZ, 8),
        ("ST.GLOBAL.U32 [R5+256], R8", 5, 256),
    ];
    for (line, base, offset) in cases {
        let inst = one(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        let addr = inst.operands().iter().find_map(|o| match *o {
            Operand::Addr { base, offset } => Some((base, offset)),
            _ => None,
        });
        assert_eq!(addr, Some((*base, *offset)), "{line}");
    }
    for (line, needle) in [
        ("LD.PARAM.U32 R1, [tile]", "shared variable"),
        ("LD.SHARED.U32 R1, [n]", "parameter"),
        ("LD.GLOBAL.U32 R1, [R1+R2]", "one base register"),
        ("LD.GLOBAL.U32 R1, [R4-R2]", "one base register"),
        ("LD.GLOBAL.U32 R1, [-R2]", "unexpected `-`"),
        ("LD.GLOBAL.U32 R1, [R256]", "does not exist"),
        ("LD.GLOBAL.U32 R1, [0x100000000]", "32 bits"),
        ("IADD R1, [R2], R3", "address"),
        ("LD.GLOBAL.U32 R1, R2", "must be an address"),
        ("ST.PARAM.U32 [n], R1", "read-only"),
    ] {
        let e = one(line).expect_err(line);
        assert!(e.contains(needle), "{line}: expected `{needle}` in\n{e}");
    }
}

#[test]
fn mnemonics_modifiers_and_operands() {
    let cases: &[(&str, Opcode, &[u8])] = &[
        ("vote.ballot r1, !p2", Opcode::VoteBallot, &[0]),
        ("VOTE.ANY P1, P2", Opcode::Vote, &[1]),
        ("IMUL R1, R2, R3", Opcode::Imul, &[]),
        ("IMUL.HI.U32 R1, R2, R3", Opcode::ImulHi, &[0, 1]),
        ("IMUL.HI R1, R2, R3", Opcode::ImulHi, &[0, 0]),
        ("ATOM.GLOBAL.CAS.B32 R1, [R2], RZ, 1", Opcode::AtomCas, &[0, 0, 0]),
        ("ATOM.SHARED.EXCH.B32 R1, [R2], 1", Opcode::Atom, &[1, 0, 3, 3]),
        ("ATOM.GENERIC.E.EXCH.B32 R1, [R2], 1", Opcode::Atom, &[2, 1, 3, 3]),
        ("ISETP.LT.OR P0, R1, R2, !P1", Opcode::Isetp, &[2, 0, 1]),
        ("ISETP.LT.U32 P0, R1, R2", Opcode::Isetp, &[2, 1, 0]),
        ("LD.GLOBAL.V2.B32 R2, [R4]", Opcode::Ld, &[0, 0, 1, 6]),
        ("LD.GLOBAL.E.V2.B32 R2, [R4]", Opcode::Ld, &[0, 1, 1, 6]),
        ("FADD.SAT R1, R2, R3", Opcode::Fadd, &[0, 1]),
        ("FADD.FTZ.SAT R1, R2, R3", Opcode::Fadd, &[1, 1]),
        ("MMA.M16N8K16.F32.F16 R0, R8, R12, R0", Opcode::MmaM16n8k16, &[0, 0, 0]),
        ("MMA.SP.M16N16K32.F32.BF16 R0, R8, R12, R0, R20", Opcode::MmaSp, &[0, 0, 0, 1]),
        ("BAR.SYNC", Opcode::BarSync, &[0]),
        ("bar.sync;", Opcode::BarSync, &[0]),
        ("BAR.SYNC R3, 128", Opcode::BarSync, &[0]),
        ("BAR.ARRIVE 1, R4", Opcode::BarArrive, &[0]),
    ];
    for (line, opcode, mods) in cases {
        let inst = one(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(inst.opcode(), *opcode, "{line}");
        assert_eq!(&inst.form.indices()[..mods.len()], *mods, "{line}");
    }
    let isetp = one("ISETP.EQ P0, R1, R2").unwrap();
    assert_eq!(isetp.operands[3], Operand::PredSrc { pred: PT, negated: false }, "omitted q is PT");
    let shfl = one("SHFL.IDX R1, R2, R3").unwrap();
    assert_eq!(shfl.operands[3], Operand::Imm(32), "omitted width is 32");
    let s2r = one("S2R R1, sr_ctaid.y").unwrap();
    assert_eq!(s2r.operands[1], Operand::Special(SpecialReg::CtaidY));
    let redux = one("REDUX.ADD R2, R0").unwrap();
    assert_eq!(redux.operands[2], Operand::Src(Src::imm(u32::MAX)), "omitted member mask is the whole warp");
    let wgmma = one("WGMMA.SS.F32.F16.NT R16, R0, R2, 64, !P1").unwrap();
    assert_eq!((wgmma.reg_count(0), wgmma.reg_count(1), wgmma.reg_count(2)), (32, 2, 2));
    assert_eq!(wgmma.form.wgmma(), Some((WgmmaSrc::Ss, WgmmaTrans::Nt)));
    assert_eq!(one("WGMMA.RS.F16.F16 R16, R4, R2, 256").unwrap().operands[4], Operand::PredSrc { pred: PT, negated: false }, "omitted q accumulates");
    assert_eq!(one("WGMMA.RS.F16.F16 R16, R4, R2, 256").unwrap().reg_count(0), 64);
    for (line, error) in [
        ("WGMMA.RS.F32.F16.TN R16, R4, R2, 8", "A in registers (.RS) is not transposed: write .NN or .NT, not .TN"),
        ("WGMMA.SS.F32.TF32.NT R16, R0, R2, 8", "only F16 and BF16 multiplicands may be transposed (.NN for other types), not .NT"),
        ("WGMMA.SS.F32.S8 R16, R0, R2, 8", "WGMMA takes types"),
        ("WGMMA.SS.F32.F16 R16, R0, R2, 12", "n = 12: a warpgroup MMA is 8 to 256 columns wide, a multiple of 8"),
        ("WGMMA.SS.F32.F16 R16, R1, R2, 8", "R1 cannot start a register pair"),
        ("WGMMA.SS.F32.F16 R240, R0, R2, 64", "R240 .. R271 runs past R254"),
        ("BAR.SYNC 16", "barrier 16 does not exist: a block has barriers 0 .. 15"),
        ("BAR.SYNC 1, 48", "a barrier's thread count counts whole warps: a multiple of 32 from 32 to 1024, not 48"),
        ("BAR.ARRIVE 2, 2048", "a multiple of 32 from 32 to 1024, not 2048"),
        ("BAR.ARRIVE 2", "BAR.ARRIVE takes 2 operands, found 1"),
        ("MMA.SCALED.MXF4.E4M3.E2M1 R16, R0, R4, R16, R8, R9", "MMA.SCALED.MXF4 multiplies .E2M1.E2M1, not .E4M3.E2M1"),
        ("MMA.SCALED.MXF8F6F4.E4M3.S8 R16, R0, R4, R16, R8, R9", "MMA.SCALED.MXF8F6F4 multiplies E4M3, E5M2, E3M2, E2M3 or E2M1 each, not .E4M3.S8"),
        ("MMA.SCALED.MXF4.E2M1.E2M1 R16, R0, R4, R16, R8, R9, 0x0010", "B's scales start at byte 1, but MXF4 takes 2"),
        ("MMA.SCALED.MXF4.E2M1.E2M1 R16, R0, R4, R16, R8, R9, 0x0200", "A's thread selector is 2"),
        ("MMA.SCALED.MXF4.E2M1.E2M1 R16, R0, R4, R16, 0, R9", "this operand must be a register"),
        ("MMA.SCALED.MXF4.E2M1.E2M1 R16, R0, R4, R16, -R8, R9", "takes no source modifiers"),
    ] {
        let e = one(line).unwrap_err();
        assert!(e.contains(error), "{line}: {e}");
    }
    // `MMA.SCALED`'s selectors, PTX's `{2, 1}` and `{2, 3}`; left out, 0.
    let scaled = one("MMA.SCALED.MXF4.E2M1.E2M1 R16, R0, R4, R16, R8, R9, 0x2123").unwrap();
    assert_eq!(simt_isa::ScaleSelectors::of(0x2123), simt_isa::ScaleSelectors { a_byte: 2, a_thread: 1, b_byte: 2, b_thread: 3 });
    assert_eq!((scaled.operands[6], scaled.reg_count(1), scaled.reg_count(2), scaled.reg_count(3)), (Operand::Imm(0x2123), 4, 2, 4));
    assert_eq!(one("MMA.SCALED.NVF4.E2M1.E2M1 R16, R0, R4, R16, R8, R9").unwrap().operands[6], Operand::Imm(0), "omitted selectors are 0");
    assert!(one("MMA.SCALED.MXF8F6F4.E4M3.E5M2 R16, R0, R4, R16, R8, R9").is_ok(), "mixed 8-bit types");
    // 6- and 4-bit types in MXF8F6F4 take a byte each: MMA.M16N8K32's 4 and 2 registers.
    let bytes = one("MMA.SCALED.MXF8F6F4.E2M3.E2M1 R16, R0, R4, R16, R8, R9").unwrap();
    assert_eq!((bytes.reg_count(1), bytes.reg_count(2)), (4, 2));
    assert_eq!(one("BAR.SYNC").unwrap().operands[..2], [Operand::None, Operand::None], "barrier 0, every thread");
    assert_eq!(one("BAR.SYNC 3").unwrap().operands[..2], [Operand::Src(Src::imm(3)), Operand::None], "barrier 3, every thread");
    let guarded = one("@!P3 NOP").unwrap();
    assert_eq!(guarded.guard, Guard { pred: 3, negated: true });
    assert_eq!(one("@PT NOP").unwrap().guard, Guard::ALWAYS);
}

#[test]
fn directives_and_layouts() {
    let source = "// comment\n/* block\n comment */ .KERNEL first\n.param .u32 n\n.param .f64 d\n.param .ptr.bf16 h\n\
                  .shared .u8 a[3]\n.shared .align 16 .f16 b[5]\n.shared .f64 c\n.shared .u16 e\n.local 64\n.regs 32\n\
                  .launch grid(2,3) block(16,16)\n.arg n = 1000\n.arg h = fill(4, 0.5)\n.arg d = -1\n\
                  top: NOP ; \n@P0 BRA top\nEXIT\nend:\n.kernel second\n.launch block(32) grid(1)\n.arg x = @data/x.npy\n.param .ptr.u8 x\nEXIT";
    let m = simt_asm::assemble("t.s", source).unwrap_or_else(|d| panic!("{d}"));
    let k = &m.kernels[0];
    let offsets: Vec<u32> = k.params.iter().map(|p| p.offset).collect();
    assert_eq!(offsets, [0, 8, 16]);
    let shared: Vec<(u32, u32)> = k.shared.iter().map(|v| (v.offset, v.align)).collect();
    assert_eq!(shared, [(0, 4), (16, 16), (32, 8), (40, 4)]);
    assert_eq!(k.shared_size, 42);
    assert_eq!((k.local_size, k.regs), (64, 32));
    assert_eq!(k.launch, Some(LaunchDims { grid: [2, 3, 1], block: [16, 16, 1] }));
    assert_eq!(k.args[1], ArgDefault { name: "h".into(), init: ArgInit::Fill(4, Literal::Float(0.5)) });
    assert_eq!(k.lines, [17, 18, 19]);
    assert_eq!(k.labels, [("top".to_string(), 0), ("end".to_string(), 3)]);
    assert_eq!(k.code[1].operands[0], Operand::Label { target: 0, reconv: 2 });
    let k2 = &m.kernels[1];
    assert_eq!(k2.regs, 1);
    assert_eq!(k2.args[0].init, ArgInit::File("data/x.npy".into()));
    assert_eq!(k2.launch, Some(LaunchDims { grid: [1, 1, 1], block: [32, 1, 1] }));
}

#[test]
fn symbols_are_declared_before_use_but_labels_and_args_may_come_later() {
    let late_shared = simt_asm::assemble("t.s", ".kernel k\nMOV R1, buf\n.shared .u32 buf[4]\nEXIT\n").unwrap_err().render(false);
    assert!(late_shared.contains("must be a register or a literal, found `buf`"), "{late_shared}");
    let late_param = simt_asm::assemble("t.s", ".kernel k\nLD.PARAM.U32 R1, [n]\n.param .u32 n\nEXIT\n").unwrap_err().render(false);
    assert!(late_param.contains("declare it with .param above its first use"), "{late_param}");
    let forward = simt_asm::assemble("t.s", ".kernel k\n.arg n = 3\n@P0 BRA end\n.param .u32 n\nend: EXIT\n").unwrap();
    assert_eq!(forward.kernels[0].args[0].init, ArgInit::Scalar(Literal::Int(3)));
}

#[test]
fn default_regs_is_highest_used_plus_one() {
    let m = simt_asm::assemble("t.s", ".kernel k\nDADD R10, R2, R4\nEXIT\n").unwrap();
    assert_eq!(m.kernels[0].regs, 12);
}

#[test]
fn arbitrary_bytes_never_panic() {
    let samples = [
        "",
        "\0",
        "@",
        "[",
        ".kernel",
        ".kernel k\n@",
        ".kernel k\nLD.",
        ".kernel k\n.",
        "/*",
        "*/",
        "é",
        ".kernel k\n.arg x = @",
        "0x",
        ".kernel k\nIADD R1, R2, 0x\n",
    ];
    for s in samples {
        if let Err(d) = simt_asm::assemble("t.s", s) {
            assert!(!d.render(true).is_empty());
        }
        let _ = simt_asm::parse_arg_init(s);
    }
}

/// The 64-bit address forms: each line assembles, disassembles to itself, and reads its
/// base as a pair; the misuses are errors that say what to write.
#[test]
fn sixty_four_bit_address_forms() {
    let cases: &[(&str, MemAccess)] = &[
        ("LD.GLOBAL.E.F32 R1, [R4+8]", MemAccess { space: Space::Global, generic: false, wide: true, kind: AccessKind::Load, size: 4, regs: 1 }),
        ("LD.GENERIC.E.V2.B32 R2, [R6-16]", MemAccess { space: Space::Global, generic: true, wide: true, kind: AccessKind::Load, size: 8, regs: 2 }),
        ("ST.SHARED.E.U8 [R4], R1", MemAccess { space: Space::Shared, generic: false, wide: true, kind: AccessKind::Store, size: 1, regs: 1 }),
        ("ST.GENERIC.E.B64 [R8+4], R2", MemAccess { space: Space::Global, generic: true, wide: true, kind: AccessKind::Store, size: 8, regs: 2 }),
        ("ATOM.GENERIC.E.ADD.U32 R1, [R4], 1", MemAccess { space: Space::Global, generic: true, wide: true, kind: AccessKind::Atomic, size: 4, regs: 1 }),
        ("ATOM.GLOBAL.E.CAS.B64 R2, [R4], R6, R8", MemAccess { space: Space::Global, generic: false, wide: true, kind: AccessKind::Atomic, size: 8, regs: 2 }),
        ("LD.LOCAL.E.U32 R1, [0x10]", MemAccess { space: Space::Local, generic: false, wide: true, kind: AccessKind::Load, size: 4, regs: 1 }),
    ];
    for (line, access) in cases {
        let source = format!(".kernel k\n.local 32\n.shared .u8 s[64]\n    {line}\n    EXIT\n");
        let module = simt_asm::assemble("t.s", &source).unwrap_or_else(|d| panic!("{line}: {}", d.render(false)));
        let inst = module.kernels[0].code[0];
        assert_eq!(inst.form.access(), Some(*access), "{line}");
        assert!(simt_isa::disassemble(&module).contains(line), "{line} disassembles to\n{}", simt_isa::disassemble(&module));
        if let Operand::Addr { base, .. } = inst.operands().iter().copied().find(|o| matches!(o, Operand::Addr { .. })).unwrap()
            && base != RZ
        {
            assert!(inst.effects().reads.contains(base + 1), "{line}: the base's high word is read");
        }
    }
    let errors = ["LD.GENERIC.U32 R1, [R4]", "LD.GLOBAL.E.U32 R1, [R3]", "ATOM.SHARED.E.ADD.U32 R1, [R254], 1"];
    let source = format!(".kernel k\n{}\n    EXIT\n", errors.map(|l| format!("    {l}")).join("\n"));
    insta::assert_snapshot!(simt_asm::assemble("t.s", &source).unwrap_err().render(false));
}

proptest::proptest! {
    #[test]
    fn random_text_never_panics(text in "(\\.kernel k\n|R[0-9]{1,3}|P[0-9]|@!?|[\\[\\]().,;:|!+=-]|0[xbfd][0-9A-F]{0,17}|[0-9.e]{1,6}|/\\*|\\*/|//|\n| |[A-Za-z_.]{1,8}|\\PC)*") {
        if let Err(d) = simt_asm::assemble("t.s", &text) {
            assert!(!d.is_empty());
            let _ = d.render(false);
        }
        let _ = simt_asm::parse_arg_init(&text);
    }
}
