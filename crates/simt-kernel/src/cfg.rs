//! Control-flow graphs of kernels and the reconvergence points of divergent branches.
//!
//! Nodes are pcs `0 .. n` plus a virtual exit node `n`. Every instruction
//! flows to `pc + 1` unless it is an unguarded branch or terminator (the
//! table's [`Flags::BRANCH`] and [`Flags::TERMINATOR`]); a branch also flows to
//! its target; a terminator flows to the exit node, and so does the last
//! instruction when control falls off the end. A branch that may diverge (any
//! guard other than `PT`) reconverges at its immediate post-dominator.
//!
//! Post-dominators are the dominators of the reverse graph rooted at the exit,
//! found with the semi-NCA algorithm (Georgiadis, Werneck, Tarjan: semidominators
//! by Lengauer-Tarjan's path-compressed evaluation, then immediate dominators
//! by a nearest-common-ancestor walk). It is near-linear in practice, with no
//! iteration to a fixed point, so long chains of backward branches and
//! thousands of branches to one label cost what their size warrants. Nodes
//! from which the exit cannot be reached (infinite loops) have no
//! post-dominator in that graph; they are given the exit node, so a branch
//! inside such a loop reconverges "at exit", which is where its lanes would
//! meet if the loop ever ended.

use simt_isa::{Flags, Guard, Instruction, NO_RECONV, Operand, PT};

/// The control-flow graph of one kernel, with predecessor lists for walking it backwards.
#[derive(Clone, Debug)]
pub struct Cfg {
    /// Successors per node (at most two); the exit node has none.
    succ: Vec<[u32; 2]>,
    /// Number of valid entries in `succ` per node.
    count: Vec<u8>,
}

/// The label target of a branch, if `inst` is one.
fn branch_target(inst: &Instruction) -> Option<u32> {
    if !inst.info().flags.contains(Flags::BRANCH) {
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
    /// Builds the graph of `code`; branch targets past the code go to the exit.
    pub fn build(code: &[Instruction]) -> Cfg {
        let n = code.len() as u32;
        let mut succ = Vec::with_capacity(code.len() + 1);
        let mut count = Vec::with_capacity(code.len() + 1);
        for (pc, inst) in code.iter().enumerate() {
            let next = pc as u32 + 1;
            let unguarded = inst.guard == Guard::ALWAYS;
            let terminator = inst.info().flags.contains(Flags::TERMINATOR);
            let (edges, k) = match (branch_target(inst), terminator) {
                (Some(t), _) if unguarded => ([t.min(n), 0], 1),
                (Some(t), _) => ([next, t.min(n)], 2),
                (None, true) if unguarded => ([n, 0], 1),
                (None, true) => ([next, n], 2),
                (None, false) => ([next, 0], 1),
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

    /// The predecessors of every node, as offsets into one list (compressed rows).
    fn predecessors(&self) -> (Vec<u32>, Vec<u32>) {
        let n = self.succ.len();
        let mut start = vec![0u32; n + 1];
        for node in 0..n {
            for &s in self.successors(node as u32) {
                start[s as usize + 1] += 1;
            }
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut preds = vec![0u32; start[n] as usize];
        for node in 0..n {
            for &s in self.successors(node as u32) {
                preds[fill[s as usize] as usize] = node as u32;
                fill[s as usize] += 1;
            }
        }
        (start, preds)
    }

    /// The immediate post-dominator of every node; the exit node and nodes
    /// that cannot reach the exit get the exit node.
    pub fn post_dominators(&self) -> Vec<u32> {
        const NONE: u32 = u32::MAX;
        let n = self.succ.len();
        let exit = self.exit();
        let (pred_start, preds) = self.predecessors();
        let preds_of = |v: u32| &preds[pred_start[v as usize] as usize..pred_start[v as usize + 1] as usize];

        // Preorder of the reverse graph from the exit (iteratively: kernels can be long).
        // Arrays below are indexed by preorder number; `vertex` maps back to nodes.
        let mut number = vec![NONE; n];
        let mut vertex = Vec::with_capacity(n);
        let mut parent = Vec::with_capacity(n);
        let mut stack: Vec<(u32, u32)> = vec![(exit, NONE)];
        while let Some((v, from)) = stack.pop() {
            if number[v as usize] != NONE {
                continue;
            }
            number[v as usize] = vertex.len() as u32;
            vertex.push(v);
            parent.push(from);
            for &p in preds_of(v).iter().rev() {
                if number[p as usize] == NONE {
                    stack.push((p, number[v as usize]));
                }
            }
        }
        let reached = vertex.len();

        // Semidominators, Lengauer-Tarjan style, with iterative path compression.
        let mut semi: Vec<u32> = (0..reached as u32).collect();
        let mut label: Vec<u32> = (0..reached as u32).collect();
        let mut ancestor = vec![NONE; reached];
        let mut path = Vec::new();
        for w in (1..reached).rev() {
            // Edges into w in the reverse graph come from w's successors in the CFG.
            for &s in self.successors(vertex[w]) {
                let v = number[s as usize];
                if v == NONE {
                    continue;
                }
                let u = eval(v, &mut ancestor, &mut label, &semi, &mut path);
                semi[w] = semi[w].min(semi[u as usize]);
            }
            ancestor[w] = parent[w];
        }

        // Immediate dominators: the nearest common ancestor of the parent and the semidominator.
        let mut idom = parent.clone();
        for w in 1..reached {
            while idom[w] > semi[w] {
                idom[w] = idom[idom[w] as usize];
            }
        }
        let mut ipdom = vec![exit; n];
        for w in 1..reached {
            ipdom[vertex[w] as usize] = vertex[idom[w] as usize];
        }
        ipdom
    }
}

/// The vertex of least semidominator on the compressed path from `v` to its forest root.
fn eval(v: u32, ancestor: &mut [u32], label: &mut [u32], semi: &[u32], path: &mut Vec<u32>) -> u32 {
    const NONE: u32 = u32::MAX;
    if ancestor[v as usize] == NONE {
        return v;
    }
    // Collect the path up to the vertex just below the root, then compress it top-down.
    path.clear();
    let mut x = v;
    while ancestor[ancestor[x as usize] as usize] != NONE {
        path.push(x);
        x = ancestor[x as usize];
    }
    for &x in path.iter().rev() {
        let a = ancestor[x as usize];
        if semi[label[a as usize] as usize] < semi[label[x as usize] as usize] {
            label[x as usize] = label[a as usize];
        }
        ancestor[x as usize] = ancestor[a as usize];
    }
    label[v as usize]
}

/// Sets the reconvergence pc of every branch in `code`: the immediate
/// post-dominator for branches that may diverge, [`NO_RECONV`] for the rest.
/// Branch targets must already be resolved.
pub fn annotate_reconvergence(code: &mut [Instruction]) {
    let ipdom = Cfg::build(code).post_dominators();
    for (pc, inst) in code.iter_mut().enumerate() {
        let divergent = inst.info().flags.contains(Flags::BRANCH) && may_diverge(inst.guard);
        for op in inst.operands.iter_mut() {
            if let Operand::Label { reconv, .. } = op {
                *reconv = if divergent { ipdom[pc] } else { NO_RECONV };
            }
        }
    }
}
