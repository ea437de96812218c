//! Which lane and register hold which element, written out independently of
//! `layout::coord` from contract sections 8 and 9 and the PTX ISA (section
//! 9.7.14.5.8 for m16n8k16; "Matrix Fragments for mma.m8n8k4 with .f64" for m8n8k4).

use simt_isa::{Form, Instruction, MmaAcc, MmaIn, Opcode, mods};
use simt_tensor::layout::{Operand, Shape, dims, elements_per_lane, pack, pack64, unpack, unpack64};

/// A matrix whose every element is distinct: its own row-major index.
fn numbered(shape: Shape, operand: Operand) -> Vec<u32> {
    let (rows, cols) = dims(shape, operand);
    (0..(rows * cols) as u32).collect()
}

/// Value `slot` of a register holding `per_reg` values.
fn slot(word: u32, per_reg: usize, slot: usize) -> u32 {
    let bits = 32 / per_reg;
    (word >> (bits * slot)) & (u32::MAX >> (32 - bits))
}

/// What a test matrix holds at (row, column).
type Label<'a> = dyn Fn(usize, usize) -> usize + 'a;

/// Where a lane's element sits: (lane, element) -> (row, column).
type Place = dyn Fn(usize, usize) -> (usize, usize);

/// Checks every element of packed matrices against `expect(lane, reg, slot) = (row, col)`:
/// a numbered matrix, and (so that 4-bit slots tell every element apart too) one
/// holding each element's row and one holding its column.
fn check(shape: Shape, operand: Operand, per_reg: usize, expect: impl Fn(usize, usize, usize) -> (usize, usize)) {
    let (rows, cols) = dims(shape, operand);
    let mask = (u32::MAX >> (32 - 32 / per_reg)) as usize;
    let labels: [(&str, &Label); 3] = [("index", &|r, c| r * cols + c), ("row", &|r, _| r), ("column", &|_, c| c)];
    for (what, label) in labels {
        let matrix: Vec<u32> = (0..rows * cols).map(|i| (label(i / cols, i % cols) & mask) as u32).collect();
        let frag = pack(shape, operand, per_reg, &matrix);
        assert_eq!(frag.len(), elements_per_lane(shape, operand) / per_reg);
        for (g, reg) in frag.iter().enumerate() {
            for (lane, &word) in reg.iter().enumerate() {
                for s in 0..per_reg {
                    let (row, col) = expect(lane, g, s);
                    assert_eq!(slot(word, per_reg, s) as usize, label(row, col) & mask, "{shape:?} {operand:?} {what}: lane {lane} reg {g} slot {s}");
                }
            }
        }
    }
}

#[test]
fn m16n16k16_follows_the_contract() {
    let rh = |lane: usize| (lane >> 1, lane & 1);
    // a: A[r][8h .. 8h+7], lower column in the low half; 8-bit: lowest k in the low byte.
    check(Shape::M16N16K16, Operand::A, 2, |l, g, s| (rh(l).0, 8 * rh(l).1 + 2 * g + s));
    check(Shape::M16N16K16, Operand::A, 4, |l, g, s| (rh(l).0, 8 * rh(l).1 + 4 * g + s));
    // Section 9: TF32 one element a register, 4-bit element i in bits 4i+3 .. 4i.
    check(Shape::M16N16K16, Operand::A, 1, |l, g, _| (rh(l).0, 8 * rh(l).1 + g));
    check(Shape::M16N16K16, Operand::A, 8, |l, _, s| (rh(l).0, 8 * rh(l).1 + s));
    // b: B[8h .. 8h+7][r], lower k in the low half.
    check(Shape::M16N16K16, Operand::B, 2, |l, g, s| (8 * rh(l).1 + 2 * g + s, rh(l).0));
    check(Shape::M16N16K16, Operand::B, 4, |l, g, s| (8 * rh(l).1 + 4 * g + s, rh(l).0));
    check(Shape::M16N16K16, Operand::B, 1, |l, g, _| (8 * rh(l).1 + g, rh(l).0));
    check(Shape::M16N16K16, Operand::B, 8, |l, _, s| (8 * rh(l).1 + s, rh(l).0));
    // c, d: C[r][8h .. 8h+7], 8 f32/s32 registers or 4 packed f16 registers.
    check(Shape::M16N16K16, Operand::C, 1, |l, g, _| (rh(l).0, 8 * rh(l).1 + g));
    check(Shape::M16N16K16, Operand::C, 2, |l, g, s| (rh(l).0, 8 * rh(l).1 + 2 * g + s));
}

#[test]
fn m16n8k16_follows_ptx() {
    // PTX: groupID = %laneid >> 2, threadID_in_group = %laneid % 4; element i of a
    // lane is slot i % 2 of register i / 2 (f16x2) or register i (f32).
    let gid = |lane: usize| lane >> 2;
    let tig = |lane: usize| lane % 4;
    check(Shape::M16N8K16, Operand::A, 2, |l, g, s| {
        let i = 2 * g + s;
        let row = if i < 2 || (4..6).contains(&i) { gid(l) } else { gid(l) + 8 };
        let col = if i < 4 { tig(l) * 2 + (i & 1) } else { tig(l) * 2 + (i & 1) + 8 };
        (row, col)
    });
    check(Shape::M16N8K16, Operand::B, 2, |l, g, s| {
        let i = 2 * g + s;
        let row = if i < 2 { tig(l) * 2 + (i & 1) } else { tig(l) * 2 + (i & 1) + 8 };
        (row, gid(l))
    });
    check(Shape::M16N8K16, Operand::C, 1, |l, i, _| {
        let row = if i < 2 { gid(l) } else { gid(l) + 8 };
        (row, tig(l) * 2 + (i & 1))
    });
}

#[test]
fn m16n8k8_tf32_follows_ptx() {
    // PTX "Matrix Fragments for mma.m16n8k8" with .tf32, one element per register: a0-a3 at
    // row groupID (a0, a2) or groupID + 8 (a1, a3), column threadID_in_group (a0, a1) or + 4
    // (a2, a3); b0, b1 at row threadID_in_group (+ 4 for b1), column groupID; c as m16n8k16.
    let gid = |lane: usize| lane >> 2;
    let tig = |lane: usize| lane % 4;
    check(Shape::M16N8K8, Operand::A, 1, |l, i, _| (if i % 2 == 0 { gid(l) } else { gid(l) + 8 }, if i < 2 { tig(l) } else { tig(l) + 4 }));
    check(Shape::M16N8K8, Operand::B, 1, |l, i, _| (if i == 0 { tig(l) } else { tig(l) + 4 }, gid(l)));
    check(Shape::M16N8K8, Operand::C, 1, |l, i, _| (if i < 2 { gid(l) } else { gid(l) + 8 }, tig(l) * 2 + (i & 1)));
    assert_eq!([dims(Shape::M16N8K8, Operand::A), dims(Shape::M16N8K8, Operand::B), dims(Shape::M16N8K8, Operand::C)], [(16, 8), (8, 8), (16, 8)]);
}

#[test]
fn m16n8k32_8bit_follows_ptx() {
    // PTX "Matrix Fragments for mma.m16n8k32" with .s8/.u8/.e4m3/.e5m2, four elements a
    // register (element i is slot i % 4 of register i / 4): a_i at row groupID for i < 4 or
    // 8 <= i < 12, else groupID + 8, column threadID_in_group * 4 + (i & 3), + 16 for i >= 8;
    // b_i at row threadID_in_group * 4 + (i & 3), + 16 for i >= 4, column groupID; c as m16n8k16.
    let gid = |lane: usize| lane >> 2;
    let tig = |lane: usize| lane % 4;
    check(Shape::M16N8K32, Operand::A, 4, |l, g, s| {
        let i = 4 * g + s;
        let row = if i < 4 || (8..12).contains(&i) { gid(l) } else { gid(l) + 8 };
        let col = if i < 8 { tig(l) * 4 + (i & 3) } else { tig(l) * 4 + (i & 3) + 16 };
        (row, col)
    });
    check(Shape::M16N8K32, Operand::B, 4, |l, g, s| {
        let i = 4 * g + s;
        let row = if i < 4 { tig(l) * 4 + (i & 3) } else { tig(l) * 4 + (i & 3) + 16 };
        (row, gid(l))
    });
    check(Shape::M16N8K32, Operand::C, 1, |l, i, _| (if i < 2 { gid(l) } else { gid(l) + 8 }, tig(l) * 2 + (i & 1)));
    assert_eq!([dims(Shape::M16N8K32, Operand::A), dims(Shape::M16N8K32, Operand::B), dims(Shape::M16N8K32, Operand::C)], [(16, 32), (32, 8), (16, 8)]);
}

#[test]
fn m16n8k64_e2m1_follows_ptx() {
    // PTX "Matrix Fragments for mma.m16n8k64" with .e2m1 (block-scaled `mma.sync`), eight
    // elements a register: registers a0 .. a3 hold row groupID (a0, a2) or groupID + 8 (a1,
    // a3), columns threadID_in_group * 8 .. + 7 (a0, a1) or those + 32 (a2, a3); b0 rows
    // threadID_in_group * 8 .. + 7, b1 those + 32, column groupID; c as m16n8k16.
    let gid = |lane: usize| lane >> 2;
    let tig = |lane: usize| lane % 4;
    check(Shape::M16N8K64, Operand::A, 8, |l, g, s| (gid(l) + 8 * (g % 2), tig(l) * 8 + s + 32 * (g / 2)));
    check(Shape::M16N8K64, Operand::B, 8, |l, g, s| (tig(l) * 8 + s + 32 * g, gid(l)));
    check(Shape::M16N8K64, Operand::C, 1, |l, i, _| (if i < 2 { gid(l) } else { gid(l) + 8 }, tig(l) * 2 + (i & 1)));
    assert_eq!([dims(Shape::M16N8K64, Operand::A), dims(Shape::M16N8K64, Operand::B), dims(Shape::M16N8K64, Operand::C)], [(16, 64), (64, 8), (16, 8)]);
}

#[test]
fn m8n8k4_follows_ptx() {
    // a: one f64 A[l >> 2][l % 4]; b: one f64 B[l % 4][l >> 2]; c, d: C[l >> 2][2(l % 4) + i].
    // Each f64 is a register pair, low word first.
    let shape = Shape::M8N8K4;
    let expect: [(Operand, &Place); 3] =
        [(Operand::A, &|l, _| (l >> 2, l % 4)), (Operand::B, &|l, _| (l % 4, l >> 2)), (Operand::C, &|l, i| (l >> 2, 2 * (l % 4) + i))];
    for (operand, place) in expect {
        let (rows, cols) = dims(shape, operand);
        // Element (row, col) is 0x1_0000_0000 * (index + 1) + index: both words are told apart.
        let matrix: Vec<u64> = (0..(rows * cols) as u64).map(|i| (i + 1) << 32 | i).collect();
        let frag = pack64(shape, operand, &matrix);
        assert_eq!(frag.len(), 2 * elements_per_lane(shape, operand));
        for (e, regs) in frag.chunks_exact(2).enumerate() {
            for (lane, words) in regs[0].iter().zip(&regs[1]).enumerate() {
                let (row, col) = place(lane, e);
                let index = (row * cols + col) as u32;
                assert_eq!(words, (&index, &(index + 1)), "{operand:?} lane {lane} element {e}");
            }
        }
        assert_eq!(unpack64(shape, operand, &frag), matrix);
    }
    assert_eq!([dims(shape, Operand::A), dims(shape, Operand::B), dims(shape, Operand::C)], [(8, 4), (4, 8), (8, 8)]);
}

#[test]
fn sparse_follows_the_contract() {
    let rh = |lane: usize| (lane >> 1, lane & 1);
    // a: the 8 kept values of row r from logical columns 16h .. 16h+15, in column order.
    check(Shape::SpM16N16K32, Operand::A, 2, |l, g, s| (rh(l).0, 8 * rh(l).1 + 2 * g + s));
    // b: 8 registers holding B[16h .. 16h+15][r].
    check(Shape::SpM16N16K32, Operand::B, 2, |l, g, s| (16 * rh(l).1 + 2 * g + s, rh(l).0));
    check(Shape::SpM16N16K32, Operand::C, 1, |l, g, _| (rh(l).0, 8 * rh(l).1 + g));
}

#[test]
fn unpack_inverts_pack() {
    for shape in [Shape::M16N16K16, Shape::M16N8K16, Shape::SpM16N16K32, Shape::M16N8K8] {
        for operand in [Operand::A, Operand::B, Operand::C] {
            for per_reg in [1, 2, 4, 8] {
                if !elements_per_lane(shape, operand).is_multiple_of(per_reg) {
                    continue;
                }
                let mask = u32::MAX >> (32 - 32 / per_reg);
                let matrix: Vec<u32> = numbered(shape, operand).iter().map(|x| x.wrapping_mul(2_654_435_761) & mask).collect();
                assert_eq!(unpack(shape, operand, per_reg, &pack(shape, operand, per_reg, &matrix)), matrix, "{shape:?} {operand:?} {per_reg}");
            }
        }
    }
}

#[test]
fn register_counts_match_the_instruction_table() {
    let forms = [
        (Opcode::Mma, MmaAcc::F32, MmaIn::F16),
        (Opcode::Mma, MmaAcc::F16, MmaIn::F16),
        (Opcode::Mma, MmaAcc::S32, MmaIn::S8),
        (Opcode::MmaM16n8k16, MmaAcc::F32, MmaIn::BF16),
        (Opcode::MmaSp, MmaAcc::F32, MmaIn::F16),
        (Opcode::Mma, MmaAcc::F32, MmaIn::TF32),
        (Opcode::Mma, MmaAcc::F32, MmaIn::E4M3),
        (Opcode::Mma, MmaAcc::F32, MmaIn::E5M2),
        (Opcode::Mma, MmaAcc::F32, MmaIn::E2M1),
        (Opcode::Mma, MmaAcc::S32, MmaIn::S4),
        (Opcode::Mma, MmaAcc::S32, MmaIn::U4),
        (Opcode::MmaM8n8k4, MmaAcc::F64, MmaIn::F64),
    ];
    for (opcode, acc, input) in forms {
        let mut inst = Instruction::new(opcode);
        inst.form = match opcode {
            Opcode::Mma => Form::Mma(mods::Mma { acc, input }),
            Opcode::MmaM16n8k16 => Form::MmaM16n8k16(mods::MmaM16n8k16 { acc, input }),
            Opcode::MmaM8n8k4 => Form::MmaM8n8k4(mods::MmaM8n8k4 { acc, input }),
            _ => Form::MmaSp(mods::MmaSp { acc, input }),
        };
        let shape = Shape::of(opcode).unwrap();
        let in_bits = match input {
            MmaIn::TF32 => 32,
            MmaIn::F16 | MmaIn::BF16 => 16,
            MmaIn::S8 | MmaIn::E4M3 | MmaIn::E5M2 => 8,
            MmaIn::E2M1 | MmaIn::S4 | MmaIn::U4 => 4,
            _ => 64,
        };
        let acc_bits = match acc {
            MmaAcc::F16 => 16,
            MmaAcc::F64 => 64,
            _ => 32,
        };
        let regs = |operand, bits: usize| (elements_per_lane(shape, operand) * bits).div_ceil(32);
        // Operands in table order: d, a, b, c.
        let ours = [regs(Operand::C, acc_bits), regs(Operand::A, in_bits), regs(Operand::B, in_bits), regs(Operand::C, acc_bits)];
        let table: Vec<usize> = (0..4).map(|i| usize::from(inst.reg_count(i))).collect();
        assert_eq!(table, ours, "{opcode} .{acc}.{input}");
    }
}
