//! Which `.u64` parameters are pointers, and the element type of each.

use super::*;

/// The element type of every `.u64` parameter that is a pointer into global memory: its
/// value (through moves, `cvta.to.global` and additions) reaches the address of a load,
/// store or atomic, whose type gives the element type (the first one found).
pub(super) fn pointer_types<'a>(
    f: &ast::Function<'a>,
    items: &[Item<'_, 'a>],
    symbol: impl Fn(&str) -> Option<(StateSpace, u32)>,
) -> HashMap<&'a str, isa::ElemType> {
    let params: Vec<&str> = f.params.iter().map(|p| p.name.value).collect();
    let mut origin: HashMap<&'a str, &'a str> = HashMap::default();
    let mut found: HashMap<&'a str, isa::ElemType> = HashMap::default();
    let mut slots: HashMap<crate::spaces::Slot<'a>, &'a str> = HashMap::default();
    let slot = |o: Option<&ast::Operand<'a>>| crate::spaces::slot(o, &symbol);
    let name = |o: Option<&ast::Operand<'a>>| match o.map(|o| &o.kind) {
        Some(OperandKind::Name(n)) => Some(*n),
        _ => None,
    };
    let base = |o: Option<&ast::Operand<'a>>| match o.map(|o| &o.kind) {
        Some(OperandKind::Address(Address { base: Some(b), .. })) => Some(b.value),
        _ => None,
    };
    // Only these move pointers or access memory through them.
    let insts: Vec<&ast::Instruction<'a>> = items
        .iter()
        .filter_map(|i| match i {
            Item::Inst(i)
                if matches!(i.op, Op::Ld(_) | Op::St(_) | Op::Atom(_) | Op::Red(_) | Op::Cvta(_) | Op::Mov(_) | Op::Add(_) | Op::Mad(_) | Op::CpAsync(_)) =>
            {
                Some(*i)
            }
            _ => None,
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for inst in &insts {
            let ops = &inst.operands;
            let from = match inst.op {
                Op::Ld(m) if m.space == Some(StateSpace::Param) && base(ops.get(1)).is_some_and(|b| params.contains(&b)) => base(ops.get(1)),
                // -O0 keeps pointers in stack slots: `st.u64 [%SP+8], %rd6` ... `ld.u64 %rd7, [%SP+8]`.
                Op::Ld(m) if m.ty.bits() == 64 && slot(ops.get(1)).is_some_and(|s| slots.contains_key(&s)) => {
                    slot(ops.get(1)).and_then(|s| slots.get(&s).copied())
                }
                // A 64-bit store may put a pointer in a stack slot; it is also an access (`st.global.f64`).
                Op::St(m)
                    if m.ty.bits() == 64
                        && slot(ops.first()).is_some_and(|s| !slots.contains_key(&s))
                        && name(ops.get(1)).is_some_and(|v| origin.contains_key(v)) =>
                {
                    if let (Some(s), Some(&param)) = (slot(ops.first()), name(ops.get(1)).and_then(|v| origin.get(v))) {
                        slots.insert(s, param);
                        changed = true;
                    }
                    None
                }
                Op::Cvta(_) | Op::Mov(_) => name(ops.get(1)).and_then(|s| origin.get(s).copied()),
                Op::Add(a) if a.ty.bits() == 64 => {
                    name(ops.get(1)).and_then(|s| origin.get(s).copied()).or_else(|| name(ops.get(2)).and_then(|s| origin.get(s).copied()))
                }
                // `mad.wide.s32 %rd, %r, 4, %base`: Triton's address arithmetic adds the base last.
                Op::Mad(m) if m.mode == Some(px::MulMode::Wide) || m.ty.bits() == 64 => name(ops.get(3)).and_then(|s| origin.get(s).copied()),
                Op::Ld(m) | Op::St(m) => {
                    let addr = if matches!(inst.op, Op::Ld(_)) { ops.get(1) } else { ops.first() };
                    if let Some(param) = base(addr).and_then(|b| origin.get(b))
                        && let elem = pointee(m.ty)
                        && !found.contains_key(param)
                    {
                        found.insert(param, elem);
                    }
                    None
                }
                // `cp.async`'s source is global memory, read as raw words.
                Op::CpAsync(_) => {
                    if let Some(param) = base(ops.get(1)).and_then(|b| origin.get(b))
                        && !found.contains_key(param)
                    {
                        found.insert(param, isa::ElemType::U32);
                    }
                    None
                }
                Op::Atom(a) | Op::Red(a) => {
                    let addr = if matches!(inst.op, Op::Red(_)) { ops.first() } else { ops.get(1) };
                    if let Some(param) = base(addr).and_then(|b| origin.get(b))
                        && let elem = pointee(a.ty)
                        && !found.contains_key(param)
                    {
                        found.insert(param, elem);
                    }
                    None
                }
                _ => None,
            };
            // The first origin found stays: a register given two would otherwise flip
            // between them forever (what clang writes assigns each once).
            if let (Some(from), Some(d)) = (from, name(ops.first()))
                && !origin.contains_key(d)
            {
                origin.insert(d, from);
                changed = true;
            }
        }
    }
    // A parameter is a pointer when its value is an address somewhere (`found`) or reaches
    // `cvta.to.global`; one never dereferenced still needs a type: raw 32-bit words.
    let mut pointers = found.clone();
    for item in items {
        if let Item::Inst(inst) = item
            && let (Op::Cvta(c), Some(OperandKind::Name(s))) = (inst.op, inst.operands.get(1).map(|o| &o.kind))
            && c.to
            && c.space == StateSpace::Global
            && let Some(&param) = origin.get(s)
        {
            pointers.entry(param).or_insert(isa::ElemType::U32);
        }
    }
    pointers
}

/// The element type a buffer accessed as `ty` gets; raw 32-bit words where no element type
/// says it (64-bit integers: the access still proves the parameter a pointer).
pub(super) fn pointee(ty: Type) -> isa::ElemType {
    elem_type(ty).unwrap_or(isa::ElemType::U32)
}

/// Every name an operand of the kernel's instructions mentions (registers, variables, parameters).
pub(super) fn mentioned_names<'a>(items: &[Item<'_, 'a>]) -> HashSet<&'a str> {
    let mut names = Vec::new();
    for item in items {
        if let Item::Inst(inst) = item {
            inst.operands.iter().for_each(|o| o.names(&mut names));
        }
    }
    names.into_iter().collect()
}

fn elem_type(ty: Type) -> Option<isa::ElemType> {
    use isa::ElemType as E;
    Some(match ty {
        Type::U8 | Type::B8 => E::U8,
        Type::S8 => E::S8,
        Type::U16 | Type::B16 => E::U16,
        Type::S16 => E::S16,
        Type::F16 => E::F16,
        Type::Bf16 => E::BF16,
        Type::U32 => E::U32,
        Type::S32 => E::S32,
        Type::B32 | Type::F16x2 | Type::Bf16x2 => E::B32,
        Type::F32 => E::F32,
        Type::F64 => E::F64,
        _ => return None,
    })
}
