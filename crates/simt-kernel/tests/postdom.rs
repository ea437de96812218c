//! Post-dominators by semi-NCA agree with the iterative Cooper-Harvey-Kennedy
//! algorithm simt used before (kept here as the reference) on random
//! control-flow graphs, including unreachable code and infinite loops.

use proptest::prelude::*;
use simt_isa::{Guard, Instruction, NO_RECONV, Opcode, Operand};
use simt_kernel::cfg::Cfg;

/// The reference: Cooper, Harvey and Kennedy's iterative algorithm on the reverse graph.
fn reference(cfg: &Cfg) -> Vec<u32> {
    const UNSEEN: u32 = u32::MAX;
    let n = cfg.exit() as usize + 1;
    let exit = cfg.exit();
    let mut preds = vec![Vec::new(); n];
    for v in 0..n as u32 {
        for &s in cfg.successors(v) {
            preds[s as usize].push(v);
        }
    }
    let mut order = vec![UNSEEN; n];
    let mut postorder = Vec::new();
    let mut stack: Vec<(u32, usize)> = vec![(exit, 0)];
    order[exit as usize] = 0;
    while let Some(top) = stack.last_mut() {
        let (v, i) = *top;
        if let Some(&p) = preds[v as usize].get(i) {
            top.1 += 1;
            if order[p as usize] == UNSEEN {
                order[p as usize] = 0;
                stack.push((p, 0));
            }
        } else {
            order[v as usize] = postorder.len() as u32;
            postorder.push(v);
            stack.pop();
        }
    }
    let mut ipdom = vec![UNSEEN; n];
    ipdom[exit as usize] = exit;
    let intersect = |ipdom: &[u32], mut a: u32, mut b: u32| {
        while a != b {
            while order[a as usize] < order[b as usize] {
                a = ipdom[a as usize];
            }
            while order[b as usize] < order[a as usize] {
                b = ipdom[b as usize];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &v in postorder.iter().rev().skip(1) {
            let mut new = UNSEEN;
            for &s in cfg.successors(v) {
                if ipdom[s as usize] == UNSEEN {
                    continue;
                }
                new = if new == UNSEEN { s } else { intersect(&ipdom, s, new) };
            }
            if new != UNSEEN && ipdom[v as usize] != new {
                ipdom[v as usize] = new;
                changed = true;
            }
        }
    }
    ipdom.iter().map(|&d| if d == UNSEEN { exit } else { d }).collect()
}

/// A kernel of `kinds.len()` instructions: 0 NOP, 1 guarded BRA, 2 BRA, 3 guarded EXIT, 4 EXIT.
fn code(kinds: &[(u8, u32)]) -> Vec<Instruction> {
    let n = kinds.len() as u32;
    kinds
        .iter()
        .map(|&(kind, target)| {
            let mut inst = Instruction::new(match kind {
                1 | 2 => Opcode::Bra,
                3 | 4 => Opcode::Exit,
                _ => Opcode::Nop,
            });
            if kind == 1 || kind == 3 {
                inst.guard = Guard { pred: 0, negated: false };
            }
            if inst.opcode() == Opcode::Bra {
                inst.operands[0] = Operand::Label { target: target % n, reconv: NO_RECONV };
            }
            inst
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn semi_nca_agrees_with_the_iterative_algorithm(kinds in prop::collection::vec((0u8..5, any::<u32>()), 1..60)) {
        let cfg = Cfg::build(&code(&kinds));
        prop_assert_eq!(cfg.post_dominators(), reference(&cfg));
    }
}

#[test]
fn adversarial_shapes_agree_too() {
    // A chain of backward branches, a fan of branches to one label, deep nesting.
    let chain: Vec<(u8, u32)> = (0..2000u32).map(|i| (if i % 2 == 1 { 1 } else { 0 }, i.saturating_sub(1))).collect();
    let fan: Vec<(u8, u32)> = (0..2000).map(|i| if i < 1999 { (1, 1999) } else { (4, 0) }).collect();
    let nest: Vec<(u8, u32)> = (0..2000).map(|i| if i < 1000 { (1, 1999 - i) } else { (0, 0) }).collect();
    for kinds in [chain, fan, nest] {
        let cfg = Cfg::build(&code(&kinds));
        assert_eq!(cfg.post_dominators(), reference(&cfg));
    }
}
