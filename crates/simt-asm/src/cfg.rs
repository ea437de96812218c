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
    if inst.opcode != Opcode::Bra {
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
            let (edges, k) = match (inst.opcode, branch_target(inst)) {
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
        let divergent = inst.opcode == Opcode::Bra && may_diverge(inst.guard);
        for op in inst.operands.iter_mut() {
            if let Operand::Label { reconv, .. } = op {
                *reconv = if divergent { ipdom[pc] } else { NO_RECONV };
            }
        }
    }
}
