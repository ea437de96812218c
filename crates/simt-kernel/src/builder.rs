//! [`KernelBuilder`]: from declarations, labels and instructions to a validated kernel.

use std::collections::HashMap;

use simt_isa::*;

use crate::cfg;

/// A label of the kernel being built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Label(u32);

/// A branch operand waiting for its label, numbered in the order they were added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BranchRef(pub u32);

/// Encountered when the pieces given to a [`KernelBuilder`] do not make a kernel.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// A branch names a label that was never placed.
    #[error("undefined label `{name}`")]
    UndefinedLabel {
        /// The label's name.
        name: String,
        /// The branch that names it.
        at: BranchRef,
    },
    /// A label placed after the last instruction, with nothing to branch to.
    #[error("label `{name}` marks the end of the kernel, after the last instruction")]
    LabelAtEnd {
        /// The label's name.
        name: String,
        /// The branch that names it.
        at: BranchRef,
    },
    /// A label placed twice.
    #[error("label `{name}` is defined twice")]
    Redefined {
        /// The label's name.
        name: String,
    },
    /// No instructions.
    #[error("kernel `{0}` has no instructions: add at least `EXIT`")]
    Empty(String),
    /// Shared memory past [`MAX_SHARED_BYTES`].
    #[error("shared memory would reach {end} bytes; a block may have at most {MAX_SHARED_BYTES} (228 KiB): make the array smaller")]
    SharedTooLarge {
        /// Where the variable would end.
        end: u64,
    },
    /// More code than [`MAX_CODE_LEN`].
    #[error("the kernel has more than the {MAX_CODE_LEN} instructions a kernel may have")]
    TooLong,
    /// A register count below what the code uses.
    #[error("{regs} registers are too few: the kernel uses R{used}")]
    TooFewRegs {
        /// Registers declared.
        regs: u32,
        /// The highest register used.
        used: u32,
    },
    /// The finished kernel breaks a rule of the bytecode format.
    #[error(transparent)]
    Invalid(#[from] KernelError),
}

/// Builds one kernel. Parameters and shared variables are laid out as they are
/// declared (contract section 1): each parameter aligned to its size, each
/// shared variable to its alignment, from address 0.
#[derive(Clone, Debug)]
pub struct KernelBuilder {
    kernel: Kernel,
    /// Name and pc (once placed) of every label.
    labels: Vec<(String, Option<u32>)>,
    /// Each label's index in `labels`, by name.
    label_index: HashMap<String, u32>,
    /// Each format's index in the kernel's formats, by text.
    format_index: HashMap<String, u16>,
    /// Branch operands to patch: (pc, operand index, label).
    branches: Vec<(usize, usize, Label)>,
    regs: Option<u32>,
    /// Set by [`KernelBuilder::abandon`]: instructions are counted, not kept.
    abandoned: bool,
    /// Instructions pushed (kept or only counted).
    len: u32,
}

impl KernelBuilder {
    /// A kernel called `name` with nothing in it yet.
    pub fn new(name: impl Into<String>) -> KernelBuilder {
        KernelBuilder {
            kernel: Kernel {
                name: name.into(),
                params: Vec::new(),
                shared: Vec::new(),
                shared_size: 0,
                local_size: 0,
                regs: 0,
                launch: None,
                args: Vec::new(),
                code: Vec::new(),
                lines: Vec::new(),
                labels: Vec::new(),
                target: Target::DEFAULT,
                frames: Frames::default(),
                formats: Vec::new(),
            },
            labels: Vec::new(),
            label_index: HashMap::new(),
            format_index: HashMap::new(),
            branches: Vec::new(),
            regs: None,
            abandoned: false,
            len: 0,
        }
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.kernel.name
    }

    /// Declares the next parameter; returns its PARAM offset.
    pub fn param(&mut self, name: impl Into<String>, ty: ParamType) -> u32 {
        let end = self.kernel.params.last().map_or(0, |p| p.offset + p.ty.size());
        let offset = end.next_multiple_of(ty.size());
        self.kernel.params.push(Param { name: name.into(), ty, offset });
        offset
    }

    /// The parameters declared so far.
    pub fn params(&self) -> &[Param] {
        &self.kernel.params
    }

    /// Declares the next shared variable of `len` elements, aligned to `align` bytes
    /// (a power of two of at least the element size); returns its SHARED address.
    ///
    /// # Errors
    /// When the block's shared memory would pass [`MAX_SHARED_BYTES`].
    pub fn shared(&mut self, name: impl Into<String>, elem: ElemType, len: u32, align: u32) -> Result<u32, BuildError> {
        let offset = u64::from(self.kernel.shared_size).next_multiple_of(u64::from(align.max(1)));
        let end = offset + u64::from(len) * u64::from(elem.size());
        if end > u64::from(MAX_SHARED_BYTES) {
            return Err(BuildError::SharedTooLarge { end });
        }
        self.kernel.shared.push(SharedVar { name: name.into(), elem, len, align, offset: offset as u32 });
        self.kernel.shared_size = end as u32;
        Ok(offset as u32)
    }

    /// The target whose forms the kernel may use (checked by [`KernelBuilder::finish`]).
    pub fn target(&mut self, target: Target) {
        self.kernel.target = target;
    }

    /// The device-function calls inlined into the kernel and the frame of every instruction
    /// pushed (checked by [`KernelBuilder::finish`]).
    pub fn frames(&mut self, frames: Frames) {
        self.kernel.frames = frames;
    }

    /// The `format` operand of a `PRINTF` of `text`, the text kept once however many
    /// `PRINTF`s print it.
    ///
    /// # Errors
    /// What `PRINTF` cannot print (`printf::Format::parse`), or more formats than an
    /// operand can index.
    pub fn format(&mut self, text: &str) -> Result<Operand, printf::FormatError> {
        let format = printf::Format::parse(text)?;
        let formats = &mut self.kernel.formats;
        let index = match self.format_index.get(text) {
            Some(&i) => i,
            None => {
                let i = u16::try_from(formats.len())
                    .map_err(|_| printf::FormatError { at: 0, message: format!("a kernel has at most {} different formats", usize::from(u16::MAX) + 1) })?;
                formats.push(text.to_string());
                self.format_index.insert(text.to_string(), i);
                i
            }
        };
        Ok(format.operand(index))
    }

    /// Bytes of LOCAL memory per thread.
    pub fn local(&mut self, bytes: u32) {
        self.kernel.local_size = bytes;
    }

    /// Registers per thread, for occupancy; without it, the highest register used plus one.
    pub fn regs(&mut self, regs: u32) {
        self.regs = Some(regs);
    }

    /// The default launch shape.
    pub fn launch(&mut self, dims: LaunchDims) {
        self.kernel.launch = Some(dims);
    }

    /// A default argument.
    pub fn arg(&mut self, arg: ArgDefault) {
        self.kernel.args.push(arg);
    }

    /// The label called `name`, created on first use.
    pub fn label(&mut self, name: &str) -> Label {
        if let Some(&i) = self.label_index.get(name) {
            return Label(i);
        }
        let i = self.labels.len() as u32;
        self.labels.push((name.to_string(), None));
        self.label_index.insert(name.to_string(), i);
        Label(i)
    }

    /// Places `label` before the next instruction.
    ///
    /// # Errors
    /// When it was placed before.
    pub fn place(&mut self, label: Label) -> Result<(), BuildError> {
        let (name, pc) = &mut self.labels[label.0 as usize];
        if pc.is_some() {
            return Err(BuildError::Redefined { name: name.clone() });
        }
        *pc = Some(self.len);
        Ok(())
    }

    /// The front end found errors, so no kernel will come of this: from now on
    /// instructions are only counted (labels keep their pcs and are still checked),
    /// and the code already kept is dropped, so a file of bad lines costs little.
    pub fn abandon(&mut self) {
        self.abandoned = true;
        self.kernel.code = Vec::new();
        self.kernel.lines = Vec::new();
    }

    /// Appends an instruction from source line `line`; returns its pc.
    ///
    /// # Errors
    /// When the kernel would pass [`MAX_CODE_LEN`] instructions.
    pub fn push(&mut self, inst: Instruction, line: u32) -> Result<u32, BuildError> {
        if self.len as usize >= MAX_CODE_LEN {
            return Err(BuildError::TooLong);
        }
        if !self.abandoned {
            self.kernel.code.push(inst);
            self.kernel.lines.push(line);
        }
        self.len += 1;
        Ok(self.len - 1)
    }

    /// Makes operand `operand` of the instruction at `pc` branch to `label` once it is placed.
    pub fn branch_to(&mut self, pc: u32, operand: usize, label: Label) -> BranchRef {
        self.branches.push((pc as usize, operand, label));
        BranchRef(self.branches.len() as u32 - 1)
    }

    /// Instructions added so far.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether no instruction was added.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Resolves labels, gives every divergent branch its reconvergence point, counts
    /// registers and validates the kernel.
    ///
    /// # Errors
    /// Every unresolved label, an empty kernel, too few registers, or the first
    /// rule of [`Kernel::validate`] the result breaks; an abandoned kernel always
    /// fails, with just the problems found here (possibly none).
    pub fn finish(mut self) -> Result<Kernel, Vec<BuildError>> {
        let mut errors = Vec::new();
        let len = self.len;
        if len == 0 {
            errors.push(BuildError::Empty(self.kernel.name.clone()));
        }
        for (i, &(pc, operand, label)) in self.branches.iter().enumerate() {
            let (name, placed) = &self.labels[label.0 as usize];
            match placed {
                Some(target) if *target < len => {
                    if let Some(inst) = self.kernel.code.get_mut(pc) {
                        inst.operands[operand] = Operand::Label { target: *target, reconv: NO_RECONV };
                    }
                }
                Some(_) => errors.push(BuildError::LabelAtEnd { name: name.clone(), at: BranchRef(i as u32) }),
                None => errors.push(BuildError::UndefinedLabel { name: name.clone(), at: BranchRef(i as u32) }),
            }
        }
        let used = self.kernel.code.iter().filter_map(Instruction::max_reg).max();
        self.kernel.regs = match (self.regs, used) {
            (Some(regs), Some(used)) if regs <= used => {
                errors.push(BuildError::TooFewRegs { regs, used });
                regs
            }
            (Some(regs), _) => regs,
            (None, used) => used.map_or(1, |r| r + 1),
        };
        if !errors.is_empty() || self.abandoned {
            return Err(errors);
        }
        cfg::annotate_reconvergence(&mut self.kernel.code);
        self.kernel.labels = self.labels.into_iter().filter_map(|(name, pc)| Some((name, pc?))).collect();
        self.kernel.labels.sort_by_key(|&(_, pc)| pc);
        self.kernel.validate().map_err(|e| vec![e.into()])?;
        Ok(self.kernel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(opcode: Opcode) -> Instruction {
        Instruction::new(opcode)
    }

    #[test]
    fn layouts_follow_the_contract() {
        let mut b = KernelBuilder::new("k");
        assert_eq!(b.param("n", ParamType::U32), 0);
        assert_eq!(b.param("x", ParamType::F64), 8);
        assert_eq!(b.param("p", ParamType::Ptr(ElemType::F32)), 16);
        assert_eq!(b.shared("a", ElemType::U8, 3, 4), Ok(0));
        assert_eq!(b.shared("h", ElemType::F16, 8, 16), Ok(16));
        assert!(matches!(b.shared("big", ElemType::F32, MAX_SHARED_BYTES, 4), Err(BuildError::SharedTooLarge { .. })));
    }

    #[test]
    fn labels_resolve_and_branches_reconverge() {
        let mut b = KernelBuilder::new("k");
        let end = b.label("END");
        let mut bra = inst(Opcode::Bra);
        bra.guard = Guard { pred: 0, negated: false };
        let pc = b.push(bra, 1).unwrap();
        b.branch_to(pc, 0, end);
        b.push(inst(Opcode::Nop), 2).unwrap();
        b.place(end).unwrap();
        b.push(inst(Opcode::Exit), 3).unwrap();
        let k = b.finish().unwrap();
        assert_eq!(k.code[0].operands[0], Operand::Label { target: 2, reconv: 2 });
        assert_eq!(k.labels, [("END".to_string(), 2)]);
        assert_eq!(k.regs, 1);
    }

    #[test]
    fn every_problem_is_reported() {
        let mut b = KernelBuilder::new("k");
        let (missing, late) = (b.label("MISSING"), b.label("LATE"));
        let pc = b.push(inst(Opcode::Bra), 1).unwrap();
        let first = b.branch_to(pc, 0, missing);
        let second = b.branch_to(pc, 0, late);
        b.place(late).unwrap();
        assert_eq!(b.place(late), Err(BuildError::Redefined { name: "LATE".into() }));
        let errors = b.finish().unwrap_err();
        assert_eq!(errors, [BuildError::UndefinedLabel { name: "MISSING".into(), at: first }, BuildError::LabelAtEnd { name: "LATE".into(), at: second }]);
        assert_eq!(KernelBuilder::new("e").finish().unwrap_err(), [BuildError::Empty("e".into())]);
    }
}
