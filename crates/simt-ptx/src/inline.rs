//! Device-function calls, by inlining: simt has no call instruction, so each `call` of a
//! `.func` is replaced by a copy of the function's body with its own names (registers,
//! labels, variables, its parameters and return value), each `ret` in the copy becoming a
//! branch to the end of the copy.
//!
//! Arguments and results pass as PTX passes them, through `.param` variables: the caller
//! declares one per argument and result in the call's block and `st.param`s/`ld.param`s it;
//! the function `ld.param`s its formal parameters and `st.param`s its result. Here those
//! caller variables live in LOCAL memory, and each copy's formal parameters and result are
//! bound to the caller's variables of the same position. Recursion, calls through a pointer
//! and functions without a body are refused, but for the CUDA runtime's `vprintf` and
//! `__assertfail` ([`RUNTIME`]), which stay calls and become simt's `VPRINTF` and `TRAP.ASSERT`.
//!
//! Registers and variables declared in a nested `{ }` block are that block's own, hiding the
//! same names outside it (NVRTC wraps `__syncthreads_count` in `{ .reg .pred %p1; ... }` in a
//! kernel that has a `%p1` of its own): each gets a name of its own too, in the kernel as in
//! every copy.
//!
//! Done in two steps so that the new names can be borrowed like source text: [`plan`] walks
//! the call tree and makes every name a copy needs, then [`Plan::expand`] builds the copies.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::ast::{self, Address, OperandKind, Span, Spanned, Statement};
use crate::diagnostic::Diagnostic;
use crate::ops::{Control, Op};

/// The CUDA runtime's `printf`.
pub(crate) const VPRINTF: &str = "vprintf";
/// The CUDA runtime's failed device `assert`.
pub(crate) const ASSERTFAIL: &str = "__assertfail";
/// The functions a call may name without a body: the CUDA runtime's, which simt runs as
/// instructions.
pub(crate) const RUNTIME: [&str; 2] = [VPRINTF, ASSERTFAIL];

/// How deep calls may nest.
const MAX_DEPTH: usize = 16;
/// How many copies one kernel may make, so a call tree cannot multiply the code without bound.
const MAX_COPIES: usize = 256;
/// How many statements the copies of one kernel may hold together: as many as the largest
/// file holds (64 MiB of one-line statements), so inlining costs no more memory than a
/// file that big. Counted before each copy is made: 128 copies of a 130,000-line body
/// would otherwise be built (gigabytes) and only then refused.
pub(crate) const MAX_INLINED_STATEMENTS: usize = 1 << 22;

/// One copy of a function body (copy 0 is the kernel itself).
struct Copy<'t, 'a> {
    function: &'t ast::Function<'a>,
    /// The call it replaces: the caller's copy, the call instruction and its scope there.
    call: Option<(usize, &'t ast::Instruction<'a>, usize)>,
    /// The scope around each scope of the body ([`ast::Block::scoped`]).
    parents: Vec<usize>,
}

/// The call tree of one kernel and every name its copies need.
pub(crate) struct Plan<'t, 'a> {
    copies: Vec<Copy<'t, 'a>>,
    /// The copy that replaces a call: by (caller copy, the call's span start).
    calls: HashMap<(usize, u32), usize>,
    /// New names, made once; `renamed` points into it, by (copy, scope declaring the name, name).
    names: Vec<String>,
    renamed: HashMap<(usize, usize, &'a str), usize>,
    /// The label ending each copy (an index into `names`), where its `ret`s branch.
    ends: HashMap<usize, usize>,
}

/// What the translation reads: statements in order (calls replaced), the declarations of
/// every copy, the bindings of formal parameters and results to caller variables, and the
/// calls as the kernel records them.
pub(crate) struct Expanded<'p> {
    pub(crate) items: Vec<Owned<'p>>,
    pub(crate) decls: Vec<Statement<'p>>,
    /// (a copy's formal parameter or result, the caller variable it stands for).
    pub(crate) bindings: Vec<(&'p str, &'p str)>,
    /// Copy `k` (from 1) is frame `k` of [`simt_isa::Frames`]: the call it replaces, by line.
    pub(crate) calls: Vec<simt_isa::InlinedCall>,
}

/// A statement of the expanded body; an instruction with the copy (frame) it belongs to.
pub(crate) enum Owned<'p> {
    Label(&'p str, Span),
    Inst(ast::Instruction<'p>, u32),
}

/// The names one scope declares: registers (ranges by prefix), variables, labels, and in the
/// body's scope also parameters and results. Sets, so that looking up every name a kernel
/// mentions costs no more than the kernel's size.
#[derive(Default)]
struct Declared<'a> {
    singles: HashSet<&'a str>,
    ranges: HashMap<&'a str, u32>,
    variables: HashSet<&'a str>,
}

impl<'a> Declared<'a> {
    /// What each scope of `f`'s body declares, by scope.
    fn scopes(f: &ast::Function<'a>, body: &[(&Statement<'a>, usize)], scopes: usize) -> Vec<Declared<'a>> {
        let mut d: Vec<Declared<'a>> = (0..scopes).map(|_| Declared::default()).collect();
        d[0].singles.extend(f.params.iter().chain(&f.returns).map(|p| p.name.value));
        for &(s, scope) in body {
            match s {
                Statement::Registers(r) => {
                    for n in &r.names {
                        match n.range {
                            Some(count) => {
                                d[scope].ranges.insert(n.name, count);
                            }
                            None => {
                                d[scope].singles.insert(n.name);
                            }
                        }
                    }
                }
                Statement::Variable(v) => {
                    d[scope].variables.insert(v.name.value);
                }
                // A nested block's labels are its own, as its registers are: Triton's inline
                // `mbarrier` waits each put a `waitLoop:` in a `{ }` of their own.
                Statement::Label(l) => {
                    d[scope].singles.insert(l.value);
                }
                _ => {}
            }
        }
        d
    }

    /// The range member `name` is, if this scope declares that range.
    fn member(&self, name: &'a str) -> Option<(&'a str, u32)> {
        let (prefix, index) = ast::range_member(name)?;
        (index < *self.ranges.get(prefix)?).then_some((prefix, index))
    }

    fn declares(&self, name: &'a str) -> bool {
        self.singles.contains(name) || self.variables.contains(name) || self.member(name).is_some() || self.ranges.contains_key(name)
    }

    /// The new name of `name`, tagged `tag`, if this scope declares it (a range's prefix
    /// included). PTX names have no dots, so a `.tag` segment can never meet a name from
    /// the source.
    fn rename(&self, name: &'a str, tag: &str) -> Option<String> {
        // A range's prefix first: where a scope declares `a` and `a<2>` (Triton's inline
        // conversions do), both are one name, whose new name must keep the members' form.
        if self.ranges.contains_key(name) {
            return Some(format!("{name}.{tag}."));
        }
        if self.singles.contains(name) || self.variables.contains(name) {
            return Some(format!("{name}.{tag}"));
        }
        // A range register keeps its number last, so the copy's range still finds it.
        self.member(name).map(|(prefix, index)| format!("{prefix}.{tag}.{index}"))
    }
}

/// `scope` and the scopes around it, innermost first, to the body's (0).
fn enclosing(parents: &[usize], scope: usize) -> impl Iterator<Item = usize> + '_ {
    std::iter::successors(Some(scope), |&s| (s != 0).then(|| parents[s]))
}

/// Plans the copies the calls of kernel `f` need.
pub(crate) fn plan<'t, 'a>(module: &'t ast::Module<'a>, f: &'t ast::Function<'a>) -> Result<Plan<'t, 'a>, Diagnostic> {
    let mut plan = Plan {
        copies: vec![Copy { function: f, call: None, parents: Vec::new() }],
        calls: HashMap::default(),
        names: Vec::new(),
        renamed: HashMap::default(),
        ends: HashMap::default(),
    };
    // The statements the copies hold so far, and each function's count, found once.
    let mut inlined = 0usize;
    let mut sizes: HashMap<&'a str, usize> = HashMap::default();
    // Depth-first, with the chain of calls that led here for finding recursion.
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    while let Some((k, depth)) = stack.pop() {
        let function = plan.copies[k].function;
        let Some(body) = &function.body else { continue };
        let (list, parents) = body.scoped();
        let declared = Declared::scopes(function, &list, parents.len());
        // A copy renames what its body declares; the kernel, what its nested blocks do.
        let tag = |scope: usize| match (k, scope) {
            (0, s) => format!("s{s}"),
            (k, 0) => format!("c{k}"),
            (k, s) => format!("c{k}.s{s}"),
        };
        // Every name the body mentions, with the scope it is mentioned in: the parameters and
        // results in the body's, then each statement's.
        let mut names: Vec<(&'a str, usize)> = function.params.iter().chain(&function.returns).map(|p| (p.name.value, 0)).collect();
        let mut mentioned = Vec::new();
        for &(s, scope) in &list {
            mentioned.clear();
            match s {
                Statement::Instruction(i) => i.names(&mut mentioned),
                Statement::Registers(r) => mentioned.extend(r.names.iter().map(|n| n.name)),
                Statement::Variable(v) => mentioned.push(v.name.value),
                Statement::Label(l) => mentioned.push(l.value),
                _ => {}
            }
            names.extend(mentioned.iter().map(|&name| (name, scope)));
        }
        for (name, scope) in names {
            // The innermost scope around the mention that declares the name.
            let Some(declaring) = enclosing(&parents, scope).find(|&s| declared[s].declares(name)) else { continue };
            // A nested block's variable that hides none is the function's, so the blocks
            // around calls (`{ .param .b32 param0; ... call ... }`, one per call) share
            // their argument variables' LOCAL memory as they did; registers cost nothing
            // apart, and each block has its own.
            let hides = || enclosing(&parents, declaring).skip(1).any(|s| declared[s].declares(name));
            let at = if declaring != 0 && declared[declaring].variables.contains(&name) && !hides() { 0 } else { declaring };
            if (k == 0 && at == 0) || plan.renamed.contains_key(&(k, at, name)) {
                continue;
            }
            let Some(new) = declared[declaring].rename(name, &tag(at)) else { continue };
            plan.names.push(new);
            plan.renamed.insert((k, at, name), plan.names.len() - 1);
        }
        if k > 0 {
            plan.names.push(format!("end.c{k}.ret"));
            plan.ends.insert(k, plan.names.len() - 1);
        }
        plan.copies[k].parents = parents;
        for &(s, scope) in &list {
            let Statement::Instruction(call) = s else { continue };
            if !matches!(call.op, Op::Call(_)) {
                continue;
            }
            let Some(callee_name) = call.callee() else {
                return Err(Diagnostic::new(call.span, "this call names no function"));
            };
            if call.operands.len() > 3 {
                return Err(Diagnostic::new(call.span, "calls through a function pointer (with a prototype) are not supported"));
            }
            if RUNTIME.contains(&callee_name) && module.function(callee_name).is_none() {
                continue;
            }
            let callee = module
                .function(callee_name)
                .ok_or_else(|| Diagnostic::new(call.span, format!("`{callee_name}` has no body in this file: only functions defined here can be called")))?;
            let mut chain = Some(k);
            while let Some(c) = chain {
                if std::ptr::eq(plan.copies[c].function, callee) {
                    return Err(Diagnostic::new(call.span, format!("`{callee_name}` calls itself (directly or not): recursion is not supported")));
                }
                chain = plan.copies[c].call.map(|(caller, _, _)| caller);
            }
            if depth + 1 > MAX_DEPTH || plan.copies.len() >= MAX_COPIES {
                return Err(Diagnostic::new(call.span, format!("calls nest deeper than {MAX_DEPTH} or make more than {MAX_COPIES} copies of function bodies")));
            }
            let size = *sizes.entry(callee_name).or_insert_with(|| callee.body.as_ref().map_or(0, |b| b.flat().len()));
            inlined = inlined.saturating_add(size);
            if inlined > MAX_INLINED_STATEMENTS {
                return Err(Diagnostic::new(
                    call.span,
                    format!(
                        "inlining this call makes the kernel's copies of function bodies hold more than {MAX_INLINED_STATEMENTS} statements: call the function fewer times, or from fewer places"
                    ),
                ));
            }
            let copy = plan.copies.len();
            plan.copies.push(Copy { function: callee, call: Some((k, call, scope)), parents: Vec::new() });
            plan.calls.insert((k, call.span.start), copy);
            stack.push((copy, depth + 1));
        }
    }
    Ok(plan)
}

impl<'t, 'a> Plan<'t, 'a> {
    /// Whether the kernel calls nothing and its nested blocks declare nothing: its
    /// statements are the translation's as they are.
    pub(crate) fn is_trivial(&self) -> bool {
        self.copies.len() == 1 && self.renamed.is_empty()
    }

    /// What `name`, read in scope `scope` of copy `k`, is called in the expanded body: the
    /// new name of the innermost declaration around it, or itself.
    fn name<'p>(&'p self, k: usize, scope: usize, name: &'a str) -> &'p str {
        enclosing(&self.copies[k].parents, scope).find_map(|at| self.renamed.get(&(k, at, name))).map_or(name, |&i| self.names[i].as_str())
    }

    /// The label ending copy `k`: its `ret`s branch there.
    fn end_label(&self, k: usize) -> &str {
        self.ends.get(&k).map_or("", |&i| self.names[i].as_str())
    }

    fn operand<'p>(&'p self, k: usize, scope: usize, o: &ast::Operand<'a>) -> ast::Operand<'p> {
        let name = |n: &'a str| self.name(k, scope, n);
        let kind = match &o.kind {
            OperandKind::Name(n) => OperandKind::Name(name(n)),
            OperandKind::Not(n) => OperandKind::Not(name(n)),
            OperandKind::Pair(a, b) => OperandKind::Pair(name(a), name(b)),
            OperandKind::Address(Address { base, offset }) => {
                OperandKind::Address(Address { base: base.map(|b| Spanned { value: name(b.value), span: b.span }), offset: *offset })
            }
            OperandKind::Vector(v) => OperandKind::Vector(v.iter().map(|o| self.operand(k, scope, o)).collect()),
            OperandKind::TensorAddress(map, coords) => {
                OperandKind::TensorAddress(Spanned { value: name(map.value), span: map.span }, coords.iter().map(|o| self.operand(k, scope, o)).collect())
            }
            OperandKind::List(v) => OperandKind::List(v.iter().map(|o| self.operand(k, scope, o)).collect()),
            OperandKind::Special(s) => OperandKind::Special(*s),
            OperandKind::Immediate(i) => OperandKind::Immediate(*i),
            OperandKind::Sink => OperandKind::Sink,
        };
        ast::Operand { kind, span: o.span }
    }

    fn instruction<'p>(&'p self, k: usize, scope: usize, i: &ast::Instruction<'a>) -> ast::Instruction<'p> {
        ast::Instruction {
            guard: i.guard.map(|g| ast::Guard { negated: g.negated, predicate: self.name(k, scope, g.predicate), span: g.span }),
            op: i.op,
            op_span: i.op_span,
            operands: i.operands.iter().map(|o| self.operand(k, scope, o)).collect(),
            span: i.span,
        }
    }

    /// The kernel's statements with every call replaced by its copy; `line` gives the source
    /// line of a byte offset.
    pub(crate) fn expand(&self, line: impl Fn(u32) -> u32) -> Expanded<'_> {
        let calls = self.copies[1..]
            .iter()
            .filter_map(|c| c.call.map(|(caller, call, _)| (c.function, caller, call)))
            .map(|(function, caller, call)| simt_isa::InlinedCall {
                function: function.name.value.to_string(),
                caller: caller as u32,
                line: line(call.span.start),
            })
            .collect();
        let mut out = Expanded { items: Vec::new(), decls: Vec::new(), bindings: Vec::new(), calls };
        self.copy(0, &mut out);
        out
    }

    fn copy<'p>(&'p self, k: usize, out: &mut Expanded<'p>) {
        let function = self.copies[k].function;
        let Some(body) = &function.body else { return };
        let (list, _) = body.scoped();
        if let Some((caller, call, scope)) = self.copies[k].call {
            // Formal parameters and results stand for the caller's variables in their places.
            let list_names = |list: usize| call.call_list(list).iter().filter_map(|o| if let OperandKind::Name(n) = o.kind { Some(n) } else { None });
            for (formal, actual) in
                function.params.iter().zip(list_names(ast::CALL_ARGUMENTS)).chain(function.returns.iter().zip(list_names(ast::CALL_RESULTS)))
            {
                out.bindings.push((self.name(k, 0, formal.name.value), self.name(caller, scope, actual)));
            }
        }
        // A `ret` that ends the body needs no branch to the end.
        let last = list.iter().rposition(|(s, _)| matches!(s, Statement::Instruction(_)));
        for (at, (s, scope)) in list.into_iter().enumerate() {
            match s {
                Statement::Label(l) => out.items.push(Owned::Label(self.name(k, scope, l.value), l.span)),
                Statement::Registers(r) => out.decls.push(Statement::Registers(ast::RegisterDecl {
                    vector: r.vector,
                    ty: r.ty,
                    names: r.names.iter().map(|n| ast::RegisterName { name: self.name(k, scope, n.name), range: n.range, span: n.span }).collect(),
                    span: r.span,
                })),
                Statement::Variable(v) => {
                    let mut v = v.clone();
                    v.name.value = self.name(k, scope, v.name.value);
                    out.decls.push(Statement::Variable(v));
                }
                Statement::BranchTargets { name, targets } => {
                    let rename = |l: &ast::Spanned<&'a str>| ast::Spanned { value: self.name(k, scope, l.value), span: l.span };
                    out.decls.push(Statement::BranchTargets { name: rename(name), targets: targets.iter().map(rename).collect() });
                }
                Statement::Instruction(i) => match i.op {
                    Op::Call(_) => {
                        match self.calls.get(&(k, i.span.start)) {
                            Some(&callee) => {
                                self.copy(callee, out);
                                out.items.push(Owned::Label(self.end_label(callee), i.span));
                            }
                            // A call `plan` kept: the runtime's.
                            None => out.items.push(Owned::Inst(self.instruction(k, scope, i), k as u32)),
                        }
                    }
                    Op::Ret(_) if k > 0 && i.guard.is_none() && Some(at) == last => {}
                    Op::Ret(_) if k > 0 => {
                        let mut bra = self.instruction(k, scope, i);
                        bra.op = Op::Bra(Control { uni: i.guard.is_none() });
                        bra.operands = vec![ast::Operand { kind: OperandKind::Name(self.end_label(k)), span: i.op_span }];
                        out.items.push(Owned::Inst(bra, k as u32));
                    }
                    _ => out.items.push(Owned::Inst(self.instruction(k, scope, i), k as u32)),
                },
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// Each inlined copy is a frame of the kernel, made from its caller's frame at the call's line.
    #[test]
    fn inlined_calls_are_frames_of_the_kernel() {
        let source = include_str!("../../../examples/debug/calls.ptx");
        let module = crate::translate("calls.ptx", source, None).expect("translates");
        let kernel = &module.kernels[0];
        let calls: Vec<(&str, u32, u32)> = kernel.frames.calls.iter().map(|c| (c.function.as_str(), c.caller, c.line)).collect();
        assert_eq!(calls, [("scale", 0, 55), ("bump", 1, 36)]);
        let line_of = |line: u32| (0..kernel.code.len() as u32).find(|&pc| kernel.line(pc) == Some(line)).expect("code on the line");
        // The kernel's own code, scale's body, bump's body inside it, and back.
        assert_eq!([50, 31, 17, 37, 56].map(|line| kernel.frame(line_of(line))), [0, 1, 2, 1, 0]);
        assert!(kernel.frame_within(2, 1) && !kernel.frame_within(1, 2));
    }
}
