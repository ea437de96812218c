//! Control-flow graphs of kernels and the reconvergence points of divergent branches.
//!
//! Nodes are pcs `0 .. n` plus a virtual exit node `n`. Every instruction
//! flows to `pc + 1` unless it is an unguarded `BRA` or `EXIT`; a `BRA` also
//! flows to its target; an `EXIT` flows to the exit node, and so does the
//! last instruction when control falls off the end. A branch that may diverge
//! (any guard other than `PT`) reconverges at its immediate post-dominator,
//! found with the Cooper-Harvey-Kennedy iterative algorithm on the reverse
//! graph. Nodes from which the exit cannot be reached (infinite loops) have no
//! post-dominator in that graph; they are given the exit node, so a branch
//! inside such a loop reconverges "at exit", which is where its lanes would
//! meet if the loop ever ended.

use simt_isa::{Guard, Instruction, NO_RECONV, Opcode, Operand, PT};

/// The control-flow graph of one kernel.
#[derive(Clone, Debug)]
pub struct Cfg {
    /// Successors per node (at most two); the exit node has none.
    succ: Vec<[u32; 2]>,
    /// Number of valid entries in `succ` per node.
    count: Vec<u8>,
}

/// The label operand of a branch, if `inst` is one.
fn branch_target(inst: &Instruction) -> Option<u32> {
    if inst.opcode() != Opcode::Bra {
        return None;
    }
    inst.operands().iter().find_map(|op| match *op {
        Operand::Label { target, .. } => Some(target),
        _ => None,
    })
}

/// Whether a guarded instruction may run on some lanes and not on others.
fn may_diverge(guard: Guard) -> bool {
    guard.pred != PT
}

impl Cfg {
    /// Builds the graph of `code`; branch targets must be inside the code.
    pub fn build(code: &[Instruction]) -> Cfg {
        let n = code.len() as u32;
        let mut succ = Vec::with_capacity(code.len() + 1);
        let mut count = Vec::with_capacity(code.len() + 1);
        for (pc, inst) in code.iter().enumerate() {
            let next = pc as u32 + 1;
            let unguarded = inst.guard == Guard::ALWAYS;
            let (edges, k) = match (inst.opcode(), branch_target(inst)) {
                (Opcode::Bra, Some(t)) if unguarded => ([t.min(n), 0], 1),
                (Opcode::Bra, Some(t)) => ([next, t.min(n)], 2),
                (Opcode::Exit, _) if unguarded => ([n, 0], 1),
                (Opcode::Exit, _) => ([next, n], 2),
                _ => ([next, 0], 1),
            };
            succ.push(edges);
            count.push(k);
        }
        succ.push([0, 0]);
        count.push(0);
        Cfg { succ, count }
    }

    /// The virtual exit node (`code.len()`).
    pub fn exit(&self) -> u32 {
        (self.succ.len() - 1) as u32
    }

    /// The successors of `node`.
    pub fn successors(&self, node: u32) -> &[u32] {
        &self.succ[node as usize][..usize::from(self.count[node as usize])]
    }

    /// The immediate post-dominator of every node; the exit node and nodes
    /// that cannot reach the exit get the exit node.
    pub fn post_dominators(&self) -> Vec<u32> {
        let n = self.succ.len();
        let exit = self.exit();
        // Predecessors in the forward graph are the successors in the reverse graph.
        let mut pred_start = vec![0u32; n + 1];
        for node in 0..n {
            for &s in self.successors(node as u32) {
                pred_start[s as usize + 1] += 1;
            }
        }
        for i in 0..n {
            pred_start[i + 1] += pred_start[i];
        }
        let mut fill = pred_start.clone();
        let mut preds = vec![0u32; pred_start[n] as usize];
        for node in 0..n {
            for &s in self.successors(node as u32) {
                preds[fill[s as usize] as usize] = node as u32;
                fill[s as usize] += 1;
            }
        }
        let preds_of = |v: u32| &preds[pred_start[v as usize] as usize..pred_start[v as usize + 1] as usize];

        // Postorder of the reverse graph from the exit, iteratively (kernels can be long).
        const UNSEEN: u32 = u32::MAX;
        let mut order = vec![UNSEEN; n];
        let mut postorder = Vec::with_capacity(n);
        let mut stack: Vec<(u32, usize)> = vec![(exit, 0)];
        order[exit as usize] = 0;
        while let Some(top) = stack.last_mut() {
            let (v, i) = *top;
            if let Some(&p) = preds_of(v).get(i) {
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
            // Reverse postorder, skipping the exit (the root).
            for &v in postorder.iter().rev().skip(1) {
                let mut new = UNSEEN;
                for &s in self.successors(v) {
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
        for d in &mut ipdom {
            if *d == UNSEEN {
                *d = exit;
            }
        }
        ipdom
    }
}

/// Sets the reconvergence pc of every branch in `code`: the immediate
/// post-dominator for branches that may diverge, [`NO_RECONV`] for the rest.
/// Branch targets must already be resolved.
pub fn annotate_reconvergence(code: &mut [Instruction]) {
    let cfg = Cfg::build(code);
    let ipdom = cfg.post_dominators();
    for (pc, inst) in code.iter_mut().enumerate() {
        let divergent = inst.opcode() == Opcode::Bra && may_diverge(inst.guard);
        for op in inst.operands.iter_mut() {
            if let Operand::Label { reconv, .. } = op {
                *reconv = if divergent { ipdom[pc] } else { NO_RECONV };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reconvergence pc of the branch at each pc that has one, in pc order.
    fn reconv(body: &str) -> Vec<(usize, u32)> {
        let module = crate::assemble("t.s", &format!(".kernel k\n{body}")).unwrap_or_else(|d| panic!("{d}"));
        module.kernels[0]
            .code
            .iter()
            .enumerate()
            .filter_map(|(pc, inst)| match inst.operands[0] {
                Operand::Label { reconv, .. } => Some((pc, reconv)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn if_else_reconverges_at_the_join() {
        let body = "ISETP.EQ P0, R1, 0\n@P0 BRA EVEN\nIMUL R2, R0, 3\nBRA JOIN\nEVEN: SHL R2, R0, 1\nJOIN: VOTE.BALLOT R3, PT\nEXIT\n";
        assert_eq!(reconv(body), [(1, 5), (3, NO_RECONV)]);
    }

    #[test]
    fn nested_if_else() {
        let body = "@P0 BRA ELSE1\n@P1 BRA ELSE2\nNOP\nBRA END2\nELSE2: NOP\nEND2: NOP\nBRA END1\nELSE1: NOP\nEND1: EXIT\n";
        assert_eq!(reconv(body), [(0, 8), (1, 5), (3, NO_RECONV), (6, NO_RECONV)]);
    }

    #[test]
    fn loop_with_break() {
        let body = "NOP\nLOOP: @P0 BRA DONE\nNOP\n@P2 BRA LOOP\nDONE: NOP\nEXIT\n";
        assert_eq!(reconv(body), [(1, 4), (3, 4)]);
    }

    #[test]
    fn loop_with_early_exit_and_break_meets_at_the_virtual_exit() {
        let body = "NOP\nLOOP: @P0 BRA DONE\n@P1 EXIT\n@P2 BRA LOOP\nDONE: NOP\nEXIT\n";
        assert_eq!(reconv(body), [(1, 6), (3, 6)]);
    }

    #[test]
    fn while_loop_with_back_edge() {
        // The loops.s shape: the exit test at the top, an unconditional back edge.
        let body = "MOV R5, 0\nLOOP: ISETP.GE.U32 P0, R5, R4\n@P0 BRA DONE\nIADD R5, R5, 1\nBRA LOOP\nDONE: EXIT\n";
        assert_eq!(reconv(body), [(2, 5), (4, NO_RECONV)]);
    }

    #[test]
    fn unstructured_jumps() {
        let body = "@P0 BRA B\nA: NOP\n@P1 BRA C\nB: NOP\nC: NOP\nEXIT\n";
        assert_eq!(reconv(body), [(0, 4), (2, 4)]);
    }

    #[test]
    fn branch_to_the_next_instruction() {
        assert_eq!(reconv("@P0 BRA NEXT\nNEXT: EXIT\n"), [(0, 1)]);
    }

    #[test]
    fn falling_off_the_end_reaches_the_exit() {
        assert_eq!(reconv("@P0 BRA L\nNOP\nL: NOP\n"), [(0, 2)]);
        assert_eq!(reconv("@P0 BRA L\nEXIT\nL: NOP\n"), [(0, 3)]);
    }

    #[test]
    fn infinite_loops_reconverge_at_the_exit() {
        assert_eq!(reconv("@P0 EXIT\nSPIN: @P1 BRA SPIN\nBRA SPIN\n"), [(1, 3), (2, NO_RECONV)]);
    }

    #[test]
    fn branches_that_cannot_diverge_have_no_reconvergence_point() {
        assert_eq!(reconv("@PT BRA L\n@!PT BRA L\nL: EXIT\n"), [(0, NO_RECONV), (1, NO_RECONV)]);
    }

    #[test]
    fn graph_edges() {
        let module = crate::assemble("t.s", ".kernel k\n@P0 BRA L\nEXIT\nL: @P1 EXIT\nBRA L\n").unwrap();
        let cfg = Cfg::build(&module.kernels[0].code);
        assert_eq!(cfg.exit(), 4);
        assert_eq!(cfg.successors(0), [1, 2]);
        assert_eq!(cfg.successors(1), [4]);
        assert_eq!(cfg.successors(2), [3, 4]);
        assert_eq!(cfg.successors(3), [2]);
        assert_eq!(cfg.successors(4), [] as [u32; 0]);
        assert_eq!(cfg.post_dominators(), [4, 4, 4, 2, 4]);
    }

    #[test]
    fn long_chains_do_not_overflow_the_stack() {
        let body = "@P0 BRA END\n".to_string() + &"NOP\n".repeat(200_000) + "END: EXIT\n";
        assert_eq!(reconv(&body), [(0, 200_001)]);
    }
}
