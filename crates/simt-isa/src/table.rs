//! The instruction table: the single source of truth for every mnemonic.
//!
//! Each row names the opcode, its modifier groups, its operands, the unit it
//! issues to and a one-line description. Encoding, decoding, the assembler's
//! operand checks, the disassembler and `docs/isa.md` are all derived from it,
//! so adding an instruction here is the only change those layers need.

use std::fmt;

/// Declares a modifier enum whose variant order is its encoding.
macro_rules! modifier_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum $name { $(#[doc = concat!("Written `.", $text, "`.")] $variant),+ }

        impl $name {
            /// Spellings in encoding order.
            pub const NAMES: &'static [&'static str] = &[$($text),+];
            /// Every value in encoding order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The value with encoding `index`, if there is one.
            pub fn from_index(index: u8) -> Option<Self> {
                Self::ALL.get(usize::from(index)).copied()
            }

            /// The spelling used in assembly.
            pub fn name(self) -> &'static str {
                Self::NAMES[self as usize]
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

modifier_enum!(
    /// Types of `CVT`.
    CvtType { U32 = "U32", S32 = "S32", F32 = "F32", F64 = "F64", F16 = "F16", BF16 = "BF16" }
);
modifier_enum!(
    /// Signedness of integer comparisons, `IMUL.HI`, `IMIN`/`IMAX` and `SHR`.
    IntType { S32 = "S32", U32 = "U32" }
);
modifier_enum!(
    /// Integer comparisons.
    Cmp { Eq = "EQ", Ne = "NE", Lt = "LT", Le = "LE", Gt = "GT", Ge = "GE" }
);
modifier_enum!(
    /// Float comparisons: ordered, unordered (`..U`: true when either is NaN), `NUM` and `NAN`.
    FCmp {
        Eq = "EQ", Ne = "NE", Lt = "LT", Le = "LE", Gt = "GT", Ge = "GE",
        Equ = "EQU", Neu = "NEU", Ltu = "LTU", Leu = "LEU", Gtu = "GTU", Geu = "GEU",
        Num = "NUM", Nan = "NAN",
    }
);
modifier_enum!(
    /// How a comparison result combines with the `q` predicate.
    BoolOp { And = "AND", Or = "OR", Xor = "XOR" }
);
modifier_enum!(
    /// Pair formats of `PACK`.
    PackType { F16x2 = "F16X2", Bf16x2 = "BF16X2" }
);
modifier_enum!(
    /// Special-function unit operations.
    MufuOp { Rcp = "RCP", Rsq = "RSQ", Sqrt = "SQRT", Sin = "SIN", Cos = "COS", Ex2 = "EX2", Lg2 = "LG2" }
);
modifier_enum!(
    /// Memory spaces.
    Space { Global = "GLOBAL", Shared = "SHARED", Local = "LOCAL", Param = "PARAM" }
);
modifier_enum!(
    /// Vector width of a load or store (`Scalar` is written as nothing).
    VecWidth { Scalar = "", V2 = "V2", V4 = "V4" }
);
modifier_enum!(
    /// Element types of loads and stores.
    MemType {
        U8 = "U8", S8 = "S8", U16 = "U16", S16 = "S16", U32 = "U32", S32 = "S32",
        B32 = "B32", F32 = "F32", B64 = "B64", F64 = "F64",
    }
);
modifier_enum!(
    /// Atomic read-modify-write operations (`CAS` has its own opcode).
    AtomOp { Add = "ADD", Min = "MIN", Max = "MAX", Exch = "EXCH", And = "AND", Or = "OR", Xor = "XOR" }
);
modifier_enum!(
    /// Atomic operand types.
    AtomType { U32 = "U32", S32 = "S32", F32 = "F32", B32 = "B32" }
);
modifier_enum!(
    /// Scope of a memory fence.
    MembarScope { Cta = "CTA", Gl = "GL" }
);
modifier_enum!(
    /// Source-lane rules of `SHFL`.
    ShflMode { Idx = "IDX", Up = "UP", Down = "DOWN", Bfly = "BFLY" }
);
modifier_enum!(
    /// Predicate reductions of `VOTE`.
    VoteMode { All = "ALL", Any = "ANY" }
);
modifier_enum!(
    /// Accumulator types of `MMA`.
    MmaAcc { F32 = "F32", F16 = "F16", S32 = "S32" }
);
modifier_enum!(
    /// Input types of `MMA`.
    MmaIn { F16 = "F16", BF16 = "BF16", S8 = "S8", U8 = "U8" }
);
/// Special registers readable with `S2R`, in encoding order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum SpecialReg {
    /// Thread index in the block, x.
    TidX,
    /// Thread index in the block, y.
    TidY,
    /// Thread index in the block, z.
    TidZ,
    /// Block extent, x.
    NtidX,
    /// Block extent, y.
    NtidY,
    /// Block extent, z.
    NtidZ,
    /// Block index in the grid, x.
    CtaidX,
    /// Block index in the grid, y.
    CtaidY,
    /// Block index in the grid, z.
    CtaidZ,
    /// Grid extent, x.
    NctaidX,
    /// Grid extent, y.
    NctaidY,
    /// Grid extent, z.
    NctaidZ,
    /// Lane index in the warp.
    LaneId,
    /// Warp index in the block.
    WarpId,
    /// The SM running the block.
    SmId,
    /// Cycle counter (timing backend) or the warp's issued-instruction count.
    Clock,
}

impl SpecialReg {
    /// Spellings in encoding order.
    pub const NAMES: &'static [&'static str] = &[
        "SR_TID.X", "SR_TID.Y", "SR_TID.Z", "SR_NTID.X", "SR_NTID.Y", "SR_NTID.Z",
        "SR_CTAID.X", "SR_CTAID.Y", "SR_CTAID.Z", "SR_NCTAID.X", "SR_NCTAID.Y", "SR_NCTAID.Z",
        "SR_LANEID", "SR_WARPID", "SR_SMID", "SR_CLOCK",
    ];
    const ALL: [SpecialReg; 16] = [
        Self::TidX, Self::TidY, Self::TidZ, Self::NtidX, Self::NtidY, Self::NtidZ,
        Self::CtaidX, Self::CtaidY, Self::CtaidZ, Self::NctaidX, Self::NctaidY, Self::NctaidZ,
        Self::LaneId, Self::WarpId, Self::SmId, Self::Clock,
    ];

    /// The special register with encoding `index`.
    pub fn from_index(index: u8) -> Option<Self> {
        Self::ALL.get(usize::from(index)).copied()
    }

    /// Looks a name up, ignoring case.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::NAMES.iter().position(|n| n.eq_ignore_ascii_case(name)).map(|i| Self::ALL[i])
    }

    /// The spelling used in assembly.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// The functional unit an instruction issues to (used by the timing backend and statistics).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    /// Single-precision pipeline.
    Fp32,
    /// Integer pipeline.
    Int,
    /// Double-precision pipeline.
    Fp64,
    /// Special-function unit.
    Sfu,
    /// Load/store unit (memory, atomics and shuffles).
    LdSt,
    /// Tensor core.
    Tensor,
    /// Branch and control.
    Control,
}

impl Unit {
    /// Short name used in listings, statistics and docs.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Fp32 => "FP32",
            Unit::Int => "INT",
            Unit::Fp64 => "FP64",
            Unit::Sfu => "SFU",
            Unit::LdSt => "LD/ST",
            Unit::Tensor => "TENSOR",
            Unit::Control => "CONTROL",
        }
    }
}

/// One `.MOD` position of a mnemonic: the spellings it accepts, in encoding order.
///
/// A group with a default may be left out; an empty spelling is the
/// "absent" value of an optional flag and is never written.
#[derive(Clone, Copy, Debug)]
pub struct ModGroup {
    /// What the group means, for messages and docs (`type`, `cmp`, ...).
    pub name: &'static str,
    /// Accepted spellings in encoding order.
    pub names: &'static [&'static str],
    /// The value used when the group is left out, if it may be.
    pub default: Option<u8>,
}

impl ModGroup {
    /// Whether this group is part of the mnemonic rather than a choice.
    pub fn is_fixed(&self) -> bool {
        self.names.len() == 1 && self.default.is_none()
    }

    /// The spelling of value `index` (empty for an absent flag).
    pub fn spelling(&self, index: u8) -> &'static str {
        self.names.get(usize::from(index)).copied().unwrap_or("")
    }
}

/// Register count of an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// One 32-bit register.
    One,
    /// An even-aligned pair holding a 64-bit value.
    Pair,
    /// Decided by the modifiers (vector loads, conversions, MMA fragments).
    ByModifier,
}

/// How a literal in a source slot is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LitKind {
    /// Registers only.
    NoLiteral,
    /// A 32-bit integer; a float literal is an error.
    Int,
    /// An f32 value; integer literals mean that float value.
    F32,
    /// An f64 value in a register pair.
    F64,
    /// Integers as integers, floats as f32 bits, `0d` literals as f64 pairs (`MOV`, `SEL`).
    Any,
    /// Decided by the modifiers (`CVT`).
    ByModifier,
}

/// Which source modifiers a source accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SrcMods {
    /// None.
    Plain,
    /// `-R` (two's complement for integers).
    Neg,
    /// `-R`, `|R|` and `-|R|`.
    NegAbs,
}

/// The syntactic class of one operand position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandKind {
    /// A destination register.
    Dst(Width),
    /// A register or literal source.
    Src {
        /// Literal interpretation.
        lit: LitKind,
        /// Accepted modifiers.
        mods: SrcMods,
        /// Register count.
        width: Width,
    },
    /// A destination predicate (`P0`..`P6`, `PT`).
    PredDst,
    /// A source predicate, optionally negated.
    PredSrc,
    /// A special register (`SR_TID.X`, ...).
    Special,
    /// A memory address `[base+offset]`.
    Addr,
    /// A branch target.
    Label,
    /// An integer literal only.
    Imm,
}

/// One operand of a table row.
#[derive(Clone, Copy, Debug)]
pub struct OperandSpec {
    /// Name used in the syntax line (`d`, `a`, `p`, ...).
    pub name: &'static str,
    /// What may be written there.
    pub kind: OperandKind,
}

/// One row of the instruction table.
#[derive(Debug)]
pub struct OpInfo {
    /// The opcode this row describes.
    pub opcode: Opcode,
    /// Base mnemonic, without modifiers.
    pub mnemonic: &'static str,
    /// Modifier groups in the order they are written.
    pub groups: &'static [ModGroup],
    /// Operands in the order they are written.
    pub operands: &'static [OperandSpec],
    /// How many trailing operands may be left out (they take documented defaults).
    pub optional: u8,
    /// Functional unit.
    pub unit: Unit,
    /// One-line semantics.
    pub doc: &'static str,
}

impl OpInfo {
    /// The full mnemonic including the fixed modifiers (`VOTE.BALLOT`, `MMA.SP.M16N16K32`).
    pub fn full_mnemonic(&self) -> String {
        let mut s = self.mnemonic.to_string();
        for g in self.groups.iter().filter(|g| g.is_fixed()) {
            s.push('.');
            s.push_str(g.names[0]);
        }
        s
    }

    /// The syntax line used in docs and help, e.g. `ISETP.<cmp>[.<type>][.<bop>] p, a, b[, q]`.
    pub fn syntax(&self) -> String {
        let mut s = self.mnemonic.to_string();
        for g in self.groups {
            if g.is_fixed() {
                s.push('.');
                s.push_str(g.names[0]);
                continue;
            }
            let choices: Vec<&str> = g.names.iter().copied().filter(|n| !n.is_empty()).collect();
            let inner = if choices.len() == 1 { choices[0].to_string() } else { format!("<{}>", choices.join("|")) };
            if g.default.is_some() {
                s.push_str(&format!("[.{inner}]"));
            } else {
                s.push_str(&format!(".{inner}"));
            }
        }
        let required = self.operands.len() - usize::from(self.optional);
        for (i, op) in self.operands.iter().enumerate() {
            let sep = if i == 0 { " " } else { ", " };
            let text = match op.kind {
                OperandKind::Addr => format!("[{}]", op.name),
                _ => op.name.to_string(),
            };
            if i >= required {
                s.push_str(&format!("[{sep}{text}]"));
            } else {
                s.push_str(sep);
                s.push_str(&text);
            }
        }
        s
    }
}

const fn choice(name: &'static str, names: &'static [&'static str], default: Option<u8>) -> ModGroup {
    ModGroup { name, names, default }
}

const fn fixed(text: &'static str) -> ModGroup {
    // A fixed spelling is a one-element choice without a default; the name doubles as its spelling.
    ModGroup { name: text, names: fixed_names(text), default: None }
}

const fn fixed_names(text: &'static str) -> &'static [&'static str] {
    // Each fixed modifier spelling used by the table, as a static one-element slice.
    match text.as_bytes() {
        b"HI" => &["HI"],
        b"CAS" => &["CAS"],
        b"BALLOT" => &["BALLOT"],
        b"SYNC" => &["SYNC"],
        b"SP" => &["SP"],
        b"M16N16K16" => &["M16N16K16"],
        b"M16N8K16" => &["M16N8K16"],
        b"M16N16K32" => &["M16N16K32"],
        _ => panic!("add the fixed modifier to fixed_names"),
    }
}

const fn op(name: &'static str, kind: OperandKind) -> OperandSpec {
    OperandSpec { name, kind }
}

const fn src(lit: LitKind, mods: SrcMods, width: Width) -> OperandKind {
    OperandKind::Src { lit, mods, width }
}

// Operand shorthands used by the table below.
const D: OperandKind = OperandKind::Dst(Width::One);
const D2: OperandKind = OperandKind::Dst(Width::Pair);
const DM: OperandKind = OperandKind::Dst(Width::ByModifier);
const S_INT: OperandKind = src(LitKind::Int, SrcMods::Plain, Width::One);
const S_INT_NEG: OperandKind = src(LitKind::Int, SrcMods::Neg, Width::One);
const S_F32: OperandKind = src(LitKind::F32, SrcMods::NegAbs, Width::One);
const S_F64: OperandKind = src(LitKind::F64, SrcMods::NegAbs, Width::Pair);
const S_ANY: OperandKind = src(LitKind::Any, SrcMods::Plain, Width::One);
const S_CVT: OperandKind = src(LitKind::ByModifier, SrcMods::NegAbs, Width::ByModifier);
const S_REG: OperandKind = src(LitKind::NoLiteral, SrcMods::Plain, Width::One);
const S_FRAG: OperandKind = src(LitKind::NoLiteral, SrcMods::Plain, Width::ByModifier);
const P: OperandKind = OperandKind::PredDst;
const Q: OperandKind = OperandKind::PredSrc;
const SR: OperandKind = OperandKind::Special;
const ADDR: OperandKind = OperandKind::Addr;
const LABEL: OperandKind = OperandKind::Label;
const IMM: OperandKind = OperandKind::Imm;

const FTZ: ModGroup = choice("ftz", &["", "FTZ"], Some(0));
const SAT: ModGroup = choice("sat", &["", "SAT"], Some(0));
const INT_TYPE: ModGroup = choice("type", IntType::NAMES, Some(0));
const BOOL_OP: ModGroup = choice("bop", BoolOp::NAMES, Some(0));
const CVT_TO: ModGroup = choice("to", CvtType::NAMES, None);
const CVT_FROM: ModGroup = choice("from", CvtType::NAMES, None);
const SPACE: ModGroup = choice("space", Space::NAMES, None);
const ATOM_SPACE: ModGroup = choice("space", &["GLOBAL", "SHARED"], None);
const VEC: ModGroup = choice("vec", VecWidth::NAMES, Some(0));
const MEM_TYPE: ModGroup = choice("type", MemType::NAMES, None);
const MMA_ACC: ModGroup = choice("acc", MmaAcc::NAMES, None);
const MMA_IN: ModGroup = choice("in", MmaIn::NAMES, None);

const DAB_INT: &[OperandSpec] = &[op("d", D), op("a", S_INT), op("b", S_INT)];
const DAB_F32: &[OperandSpec] = &[op("d", D), op("a", S_F32), op("b", S_F32)];
const DABC_F32: &[OperandSpec] = &[op("d", D), op("a", S_F32), op("b", S_F32), op("c", S_F32)];
const DA_INT: &[OperandSpec] = &[op("d", D), op("a", S_INT)];
const DAB_F64: &[OperandSpec] = &[op("d", D2), op("a", S_F64), op("b", S_F64)];
const MMA_OPERANDS: &[OperandSpec] = &[op("d", DM), op("a", S_FRAG), op("b", S_FRAG), op("c", S_FRAG)];

macro_rules! instruction_table {
    ($(
        $(#[doc = $doc:literal])+
        $variant:ident: $mnemonic:literal $groups:tt, $operands:expr, optional $optional:literal, $unit:ident;
    )+) => {
        /// Every instruction form. The discriminant is the encoded opcode byte.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Opcode { $($(#[doc = $doc])+ $variant),+ }

        /// The table, indexed by `Opcode as usize`.
        pub static TABLE: &[OpInfo] = &[$(OpInfo {
            opcode: Opcode::$variant,
            mnemonic: $mnemonic,
            groups: &$groups,
            operands: $operands,
            optional: $optional,
            unit: Unit::$unit,
            doc: concat!($($doc),+),
        }),+];
    };
}

instruction_table! {
    /// `d = a`. A `0d` literal fills the pair `d:d+1`.
    Mov: "MOV" [], &[op("d", DM), op("a", S_ANY)], optional 0, Int;
    /// `d = ` the special register.
    S2r: "S2R" [], &[op("d", D), op("sr", SR)], optional 0, Int;
    /// `d = p ? a : b`.
    Sel: "SEL" [], &[op("d", D), op("a", S_ANY), op("b", S_ANY), op("p", Q)], optional 0, Int;
    /// Converts `a` from one type to another: float to int truncates and saturates (NaN gives 0), other conversions round to nearest even; F16/BF16 occupy the low 16 bits.
    Cvt: "CVT" [CVT_TO, CVT_FROM], &[op("d", DM), op("a", S_CVT)], optional 0, Fp32;
    /// Packs two f32 values, rounded to nearest even, into one register: `a` in the low half.
    Pack: "PACK" [choice("type", PackType::NAMES, None)], &[op("d", D), op("a", S_F32), op("b", S_F32)], optional 0, Fp32;
    /// `d = a + b`, wrapping.
    Iadd: "IADD" [], &[op("d", D), op("a", S_INT_NEG), op("b", S_INT_NEG)], optional 0, Int;
    /// `d = a - b`, wrapping.
    Isub: "ISUB" [], DAB_INT, optional 0, Int;
    /// `d = ` the low 32 bits of `a * b`.
    Imul: "IMUL" [], DAB_INT, optional 0, Int;
    /// `d = ` the high 32 bits of the 64-bit product `a * b`.
    ImulHi: "IMUL" [fixed("HI"), INT_TYPE], DAB_INT, optional 0, Int;
    /// `d = ` the low 32 bits of `a * b + c`.
    Imad: "IMAD" [], &[op("d", D), op("a", S_INT), op("b", S_INT), op("c", S_INT)], optional 0, Int;
    /// `d = min(a, b)`.
    Imin: "IMIN" [INT_TYPE], DAB_INT, optional 0, Int;
    /// `d = max(a, b)`.
    Imax: "IMAX" [INT_TYPE], DAB_INT, optional 0, Int;
    /// `d = |a|`, wrapping (`|i32::MIN|` is `i32::MIN`).
    Iabs: "IABS" [], DA_INT, optional 0, Int;
    /// `d = (a << s) + b`, wrapping.
    Lea: "LEA" [], &[op("d", D), op("a", S_INT), op("b", S_INT), op("s", S_INT)], optional 0, Int;
    /// `d = a & b`.
    And: "AND" [], DAB_INT, optional 0, Int;
    /// `d = a | b`.
    Or: "OR" [], DAB_INT, optional 0, Int;
    /// `d = a ^ b`.
    Xor: "XOR" [], DAB_INT, optional 0, Int;
    /// `d = !a`.
    Not: "NOT" [], DA_INT, optional 0, Int;
    /// `d = a << b`; counts of 32 or more give 0.
    Shl: "SHL" [], DAB_INT, optional 0, Int;
    /// `d = a >> b`, logical (`U32`) or arithmetic (`S32`); counts of 32 or more give 0 or all sign bits.
    Shr: "SHR" [INT_TYPE], DAB_INT, optional 0, Int;
    /// `d = ` the number of set bits of `a`.
    Popc: "POPC" [], DA_INT, optional 0, Int;
    /// `d = ` the number of leading zero bits of `a` (32 for 0).
    Clz: "CLZ" [], DA_INT, optional 0, Int;
    /// `d = ` `a` with its bits reversed.
    Brev: "BREV" [], DA_INT, optional 0, Int;
    /// `p = (a cmp b) bop q` on integers (signed unless `.U32`).
    Isetp: "ISETP" [choice("cmp", Cmp::NAMES, None), INT_TYPE, BOOL_OP], &[op("p", P), op("a", S_INT), op("b", S_INT), op("q", Q)], optional 1, Int;
    /// `p = (a fcmp b) bop q` on f32.
    Fsetp: "FSETP" [choice("cmp", FCmp::NAMES, None), BOOL_OP], &[op("p", P), op("a", S_F32), op("b", S_F32), op("q", Q)], optional 1, Fp32;
    /// `p = (a fcmp b) bop q` on f64 pairs.
    Dsetp: "DSETP" [choice("cmp", FCmp::NAMES, None), BOOL_OP], &[op("p", P), op("a", S_F64), op("b", S_F64), op("q", Q)], optional 1, Fp64;
    /// `d = a + b` in f32, round to nearest even.
    Fadd: "FADD" [FTZ, SAT], DAB_F32, optional 0, Fp32;
    /// `d = a * b` in f32, round to nearest even.
    Fmul: "FMUL" [FTZ, SAT], DAB_F32, optional 0, Fp32;
    /// `d = a * b + c` in f32, rounded once.
    Ffma: "FFMA" [FTZ, SAT], DABC_F32, optional 0, Fp32;
    /// `d = min(a, b)` in f32; the non-NaN operand wins.
    Fmin: "FMIN" [FTZ], DAB_F32, optional 0, Fp32;
    /// `d = max(a, b)` in f32; the non-NaN operand wins.
    Fmax: "FMAX" [FTZ], DAB_F32, optional 0, Fp32;
    /// `d = f(a)`, computed in f64 and rounded once to f32.
    Mufu: "MUFU" [choice("op", MufuOp::NAMES, None)], &[op("d", D), op("a", S_F32)], optional 0, Sfu;
    /// `d = a + b` in f64 on register pairs.
    Dadd: "DADD" [], DAB_F64, optional 0, Fp64;
    /// `d = a * b` in f64 on register pairs.
    Dmul: "DMUL" [], DAB_F64, optional 0, Fp64;
    /// `d = a * b + c` in f64 on register pairs, rounded once.
    Dfma: "DFMA" [], &[op("d", D2), op("a", S_F64), op("b", S_F64), op("c", S_F64)], optional 0, Fp64;
    /// Loads `d` (1, 2 or 4 registers) from memory; sub-word types zero- or sign-extend.
    Ld: "LD" [SPACE, VEC, MEM_TYPE], &[op("d", DM), op("addr", ADDR)], optional 0, LdSt;
    /// Stores `a` (1, 2 or 4 registers) to memory.
    St: "ST" [SPACE, VEC, MEM_TYPE], &[op("addr", ADDR), op("a", S_FRAG)], optional 0, LdSt;
    /// Atomically applies `op` with `b` to memory; `d` gets the old value. Lanes of a warp apply in lane order.
    Atom: "ATOM" [ATOM_SPACE, choice("op", AtomOp::NAMES, None), choice("type", AtomType::NAMES, None)], &[op("d", D), op("addr", ADDR), op("b", S_ANY)], optional 0, LdSt;
    /// Atomic compare-and-swap: if `mem == b` then `mem = c`; `d` gets the old value.
    AtomCas: "ATOM" [ATOM_SPACE, fixed("CAS"), choice("type", &["B32"], None)], &[op("d", D), op("addr", ADDR), op("b", S_ANY), op("c", S_ANY)], optional 0, LdSt;
    /// Memory fence: no effect on values; the timing backend waits for the warp's outstanding memory operations.
    Membar: "MEMBAR" [choice("scope", MembarScope::NAMES, None)], &[], optional 0, Control;
    /// `d = a` of source lane `j` (PTX `shfl.sync` rules, segment width `w`, default 32). Warp-collective.
    Shfl: "SHFL" [choice("mode", ShflMode::NAMES, None)], &[op("d", D), op("a", S_REG), op("b", S_INT), op("w", IMM)], optional 1, LdSt;
    /// `p = ` whether `q` holds for all (`ALL`) or any (`ANY`) participating lane. Warp-collective.
    Vote: "VOTE" [choice("mode", VoteMode::NAMES, None)], &[op("p", P), op("q", Q)], optional 0, Int;
    /// `d = ` the mask of participating lanes where `q` holds. Warp-collective.
    VoteBallot: "VOTE" [fixed("BALLOT")], &[op("d", D), op("q", Q)], optional 0, Int;
    /// Waits until every non-exited thread of the warp arrives here. Warp-collective.
    Warpsync: "WARPSYNC" [], &[], optional 0, Control;
    /// 16x16x16 matrix multiply-accumulate `d = a * b + c` on warp fragments.
    Mma: "MMA" [fixed("M16N16K16"), MMA_ACC, MMA_IN], MMA_OPERANDS, optional 0, Tensor;
    /// 16x8x16 matrix multiply-accumulate in the fragment layout of PTX `mma.sync.aligned.m16n8k16`.
    MmaM16n8k16: "MMA" [fixed("M16N8K16"), MMA_ACC, MMA_IN], MMA_OPERANDS, optional 0, Tensor;
    /// 16x16x32 matrix multiply-accumulate with a 2:4-sparse `a` and its metadata `e`.
    MmaSp: "MMA" [fixed("SP"), fixed("M16N16K32"), MMA_ACC, MMA_IN], &[op("d", DM), op("a", S_FRAG), op("b", S_FRAG), op("c", S_FRAG), op("e", S_REG)], optional 0, Tensor;
    /// Jumps to `label`; a guarded branch may diverge and reconverges at its immediate post-dominator.
    Bra: "BRA" [], &[op("label", LABEL)], optional 0, Control;
    /// Ends the thread.
    Exit: "EXIT" [], &[], optional 0, Control;
    /// Waits until every non-exited thread of the block arrives at a `BAR.SYNC`.
    BarSync: "BAR" [fixed("SYNC")], &[], optional 0, Control;
    /// Does nothing.
    Nop: "NOP" [], &[], optional 0, Control;
}

impl Opcode {
    /// This opcode's table row.
    pub fn info(self) -> &'static OpInfo {
        &TABLE[self as usize]
    }

    /// The opcode with encoding `byte`, if there is one.
    pub fn from_byte(byte: u8) -> Option<Self> {
        TABLE.get(usize::from(byte)).map(|row| row.opcode)
    }

    /// Whether every non-exited thread of the warp must take part together.
    pub fn is_warp_collective(self) -> bool {
        matches!(
            self,
            Opcode::Shfl | Opcode::Vote | Opcode::VoteBallot | Opcode::Warpsync | Opcode::Mma | Opcode::MmaM16n8k16 | Opcode::MmaSp
        )
    }

    /// Whether this is a tensor-core instruction.
    pub fn is_mma(self) -> bool {
        matches!(self, Opcode::Mma | Opcode::MmaM16n8k16 | Opcode::MmaSp)
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.info().full_mnemonic())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_indexed_by_opcode() {
        for (i, row) in TABLE.iter().enumerate() {
            assert_eq!(row.opcode as usize, i, "{} is out of place", row.mnemonic);
        }
    }

    #[test]
    fn groups_of_one_mnemonic_are_distinguishable() {
        // The assembler picks a row by trying every row of a mnemonic; two rows
        // that accept the same spelling would make that choice ambiguous.
        for a in TABLE {
            for b in TABLE.iter().filter(|b| b.mnemonic == a.mnemonic && b.opcode != a.opcode) {
                let fixed_a: Vec<_> = a.groups.iter().filter(|g| g.is_fixed()).map(|g| g.names[0]).collect();
                let fixed_b: Vec<_> = b.groups.iter().filter(|g| g.is_fixed()).map(|g| g.names[0]).collect();
                assert_ne!(fixed_a, fixed_b, "{} and {} overlap", a.syntax(), b.syntax());
            }
        }
    }

    #[test]
    fn syntax_lines_read_like_the_contract() {
        assert_eq!(Opcode::Isetp.info().syntax(), "ISETP.<EQ|NE|LT|LE|GT|GE>[.<S32|U32>][.<AND|OR|XOR>] p, a, b[, q]");
        assert_eq!(Opcode::VoteBallot.info().syntax(), "VOTE.BALLOT d, q");
        assert_eq!(Opcode::Fadd.info().syntax(), "FADD[.FTZ][.SAT] d, a, b");
        assert_eq!(Opcode::MmaSp.to_string(), "MMA.SP.M16N16K32");
    }
}
