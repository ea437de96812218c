//! The instruction table: one description per instruction form, read by every layer.
//!
//! Each row of [`instruction_table!`] names the opcode, its modifiers as typed
//! fields (or fixed spellings), its operands, the unit it issues to, its
//! latency class, its semantic [`Flags`] and a one-line description. From the
//! rows come [`Opcode`], [`TABLE`] (what generic layers read: the assembler's
//! modifier matching, the encoder, the disassembler, `docs/isa.md`) and
//! [`Form`], the opcode together with its typed modifiers, which semantic
//! layers match exhaustively. What every instruction reads, writes and
//! accesses is derived from these rows once, in `semantics.rs`.

use std::fmt;

use crate::target::Target;

/// A modifier group's value type: its spellings in encoding order.
pub trait Modifier: Copy + Sized + 'static {
    /// Spellings in encoding order (an empty spelling is the absent value of a flag).
    const NAMES: &'static [&'static str];
    /// Every value in encoding order.
    const ALL: &'static [Self];
    /// The value with encoding `index`, if there is one.
    fn from_index(index: u8) -> Option<Self> {
        Self::ALL.get(usize::from(index)).copied()
    }
    /// The encoding of this value.
    fn index(self) -> u8;
    /// The first target that has this value (contract section 9).
    fn since(self) -> Target;
}

/// Declares a modifier enum whose variant order is its encoding. A value that
/// a later generation introduced names its first target: `E4M3 = "E4M3" @ Sm89`.
macro_rules! modifier_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $text:literal $(@ $since:ident)?),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum $name { $(#[doc = concat!("Written `.", $text, "`.")] $variant),+ }

        impl Modifier for $name {
            const NAMES: &'static [&'static str] = &[$($text),+];
            const ALL: &'static [$name] = &[$($name::$variant),+];
            fn index(self) -> u8 {
                self as u8
            }
            fn since(self) -> Target {
                match self { $($name::$variant => modifier_enum!(@since $($since)?)),+ }
            }
        }

        impl $name {
            /// The spelling used in assembly.
            pub fn name(self) -> &'static str {
                <Self as Modifier>::NAMES[self as usize]
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
    (@since) => { Target::OLDEST };
    (@since $since:ident) => { Target::$since };
}

modifier_enum!(
    /// Types of `CVT`.
    CvtType { U32 = "U32", S32 = "S32", F32 = "F32", F64 = "F64", F16 = "F16", BF16 = "BF16", S64 = "S64", U64 = "U64" }
);
modifier_enum!(
    /// Signedness of integer comparisons, `IMUL.HI`, `IMIN`/`IMAX` and `SHR`.
    IntType { S32 = "S32", U32 = "U32" }
);
modifier_enum!(
    /// Whether a 64-bit right shift is logical (`U64`) or arithmetic (`S64`).
    Int64Type { S64 = "S64", U64 = "U64" }
);
modifier_enum!(
    /// How `REDUX` combines the lanes' values.
    ReduxOp { Add = "ADD", Min = "MIN", Max = "MAX", And = "AND", Or = "OR", Xor = "XOR" }
);
modifier_enum!(
    /// How `IDP` extends a byte of its operands: signed or unsigned.
    Sign8 { S8 = "S8", U8 = "U8" }
);
modifier_enum!(
    /// How `IDP.2A` extends a half of its first operand: signed or unsigned.
    Sign16 { S16 = "S16", U16 = "U16" }
);
modifier_enum!(
    /// Which two bytes of `b` `IDP.2A` takes: bytes 0 and 1, or 2 and 3.
    DpHalf { Lo = "LO", Hi = "HI" }
);
modifier_enum!(
    /// What `BAR.RED` computes of its predicate over the block.
    BarRedOp { Popc = "POPC", And = "AND", Or = "OR" }
);
modifier_enum!(
    /// Which lanes `MATCH` reports.
    MatchMode { Any = "ANY", All = "ALL" }
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
    /// Whether subnormal f32 inputs and results flush to signed zero.
    Ftz { No = "", Yes = "FTZ" }
);
modifier_enum!(
    /// Whether an f32 result is clamped to [0, 1] (NaN gives 0).
    Sat { No = "", Yes = "SAT" }
);
modifier_enum!(
    /// The orderings a float `REDUX` takes.
    MinMax { Min = "MIN", Max = "MAX" }
);
modifier_enum!(
    /// Whether a float `REDUX` orders the magnitudes of its values, and gives one (PTX `.abs`).
    Magnitude { No = "", Yes = "ABS" }
);
modifier_enum!(
    /// Whether a NaN among a float `REDUX`'s values makes its result the canonical NaN
    /// (PTX `.NaN`); without it NaNs are passed over, as `FMIN`/`FMAX` pass them over.
    NanProp { No = "", Yes = "NAN" }
);
modifier_enum!(
    /// How an f32 result rounds: to nearest even, toward zero, minus infinity or plus infinity.
    Round { Rn = "", Rz = "RZ", Rm = "RM", Rp = "RP" }
);
modifier_enum!(
    /// Formats of a pair of halves: `PACK`'s, and the half arithmetic's (`HADD2`, ...).
    PackType { F16x2 = "F16X2", Bf16x2 = "BF16X2" }
);
modifier_enum!(
    /// Special-function unit operations.
    MufuOp { Rcp = "RCP", Rsq = "RSQ", Sqrt = "SQRT", Sin = "SIN", Cos = "COS", Ex2 = "EX2", Lg2 = "LG2", Tanh = "TANH" @ Sm75 }
);
modifier_enum!(
    /// Memory spaces.
    Space { Global = "GLOBAL", Shared = "SHARED", Local = "LOCAL", Param = "PARAM" }
);
modifier_enum!(
    /// The space a load or store names: a state space, or `GENERIC`, a 64-bit address
    /// whose window decides the space lane by lane (`docs/language.md`, "Addresses").
    MemSpace { Global = "GLOBAL", Shared = "SHARED", Local = "LOCAL", Param = "PARAM", Generic = "GENERIC" }
);
modifier_enum!(
    /// The spaces atomics work in (`GENERIC`: GLOBAL or SHARED by the address's window).
    AtomSpace { Global = "GLOBAL", Shared = "SHARED", Generic = "GENERIC" }
);
modifier_enum!(
    /// How a memory instruction forms its address: a 32-bit offset in its space (`[R4+8]`),
    /// or, with `E` (SASS's extended address), the 64-bit value of the pair `R4:R5` plus the
    /// offset sign-extended, whose high word must name a mapped region.
    AddrWidth { W32 = "", E = "E" }
);
modifier_enum!(
    /// Vector width of a load or store (`Scalar` is written as nothing).
    VecWidth { Scalar = "", V2 = "V2", V4 = "V4" }
);
modifier_enum!(
    /// How many 8x8 matrices of 16-bit elements `LDSM` loads: one per destination register.
    MatrixCount { X1 = "X1", X2 = "X2", X4 = "X4" }
);
modifier_enum!(
    /// Whether `LDSM` transposes each matrix as it loads it.
    Trans { No = "", Yes = "T" }
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
    AtomOp { Add = "ADD", Min = "MIN", Max = "MAX", Exch = "EXCH", And = "AND", Or = "OR", Xor = "XOR", Inc = "INC", Dec = "DEC" }
);
modifier_enum!(
    /// Atomic operand types.
    AtomType {
        U32 = "U32", S32 = "S32", F32 = "F32", B32 = "B32", U64 = "U64", S64 = "S64", F64 = "F64", B64 = "B64",
        F16 = "F16", BF16 = "BF16" @ Sm90, F16x2 = "F16X2", BF16x2 = "BF16X2" @ Sm90
    }
);
modifier_enum!(
    /// The one operand type of `ATOM.CAS`.
    CasType { B32 = "B32", B64 = "B64" }
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
    MmaAcc { F32 = "F32", F16 = "F16", S32 = "S32", F64 = "F64" @ Sm80 }
);
modifier_enum!(
    /// Input types of `MMA`, each with the generation that introduced it (the encoding
    /// holds 16 values).
    MmaIn {
        F16 = "F16", BF16 = "BF16" @ Sm80, S8 = "S8" @ Sm75, U8 = "U8" @ Sm75,
        TF32 = "TF32" @ Sm80, E4M3 = "E4M3" @ Sm89, E5M2 = "E5M2" @ Sm89, E2M1 = "E2M1" @ Sm100,
        S4 = "S4" @ Sm75, U4 = "U4" @ Sm75, F64 = "F64" @ Sm80, E2M3 = "E2M3" @ Sm100, E3M2 = "E3M2" @ Sm100,
    }
);
modifier_enum!(
    /// Where `WGMMA` reads A: shared memory through a matrix descriptor (`SS`), or this warp's
    /// registers (`RS`). B is always in shared memory.
    WgmmaSrc { Ss = "SS", Rs = "RS" }
);
modifier_enum!(
    /// Which of `WGMMA`'s shared-memory multiplicands are transposed (PTX's `imm-trans-a` and
    /// `imm-trans-b`): A then B, `N` K-major (as stored by rows of K), `T` M- or N-major.
    WgmmaTrans { Nn = "NN", Tn = "TN", Nt = "NT", Tt = "TT" }
);
modifier_enum!(
    /// Which count of an mbarrier's phase `MBAR.TX` changes: it expects more transaction bytes,
    /// or that many of them completed.
    MbarTxOp { Expect = "EXPECT", Complete = "COMPLETE" }
);
modifier_enum!(
    /// Whether `MBAR.ARRIVE` also leaves the mbarrier's later phases (PTX `mbarrier.arrive_drop`).
    MbarDrop { No = "", Yes = "DROP" }
);
modifier_enum!(
    /// The rank of the tensor a `TMA` copy reads or writes: how many coordinates name its box.
    TensorRank { D1 = "1D", D2 = "2D", D3 = "3D", D4 = "4D", D5 = "5D" }
);
modifier_enum!(
    /// The shape of one repetition of a `TMEM.LD` or `TMEM.ST` (PTX `tcgen05.ld/st`'s
    /// `.shape`): TMEM lanes by bits a lane; `16X32BX2` is two `16x32b` accesses, the second
    /// `s` columns on.
    TmemShape { L32x32b = "32X32B", L16x64b = "16X64B", L16x128b = "16X128B", L16x256b = "16X256B", L16x32bx2 = "16X32BX2" }
);
modifier_enum!(
    /// How many times a `TMEM.LD` or `TMEM.ST` repeats its shape along the columns (PTX `.num`).
    TmemNum { X1 = "X1", X2 = "X2", X4 = "X4", X8 = "X8", X16 = "X16", X32 = "X32", X64 = "X64", X128 = "X128" }
);
modifier_enum!(
    /// Whether a `TMEM.LD` packs the low halves of two adjacent cells into a register, and a
    /// `TMEM.ST` unpacks a register into two cells (PTX `.pack::16b`, `.unpack::16b`).
    TmemPack { No = "", Yes = "PACK16" }
);
modifier_enum!(
    /// The kind of a `TCMMA` (PTX `tcgen05.mma`'s `.kind`): which element types its instruction
    /// descriptor may name, and K (16 for `F16`, 8 for `TF32`, 32 for the 8-bit kinds).
    TcKind { F16 = "F16", Tf32 = "TF32", F8f6f4 = "F8F6F4", I8 = "I8" }
);
modifier_enum!(
    /// The kind of a block-scaled `TCMMA` (PTX `tcgen05.mma`'s `.kind` with `.block_scale`):
    /// 8-bit floats with an E8M0 scale a 32 elements (K 32), E2M1 pairs with an E8M0 scale a 32
    /// (K 64), or E2M1 pairs with a scale a 16, E4M3 or E8M0 (K 64).
    TcScaledKind { Mxf8f6f4 = "MXF8F6F4", Mxf4 = "MXF4", Mxf4nvf4 = "MXF4NVF4" }
);
modifier_enum!(
    /// The kind of an `MMA.SCALED` (PTX `mma.sync`'s `.kind` with `.block_scale`, with its
    /// `.scale_vec` and scale type): 8-, 6- or 4-bit floats, a byte each, with an E8M0 scale a
    /// 32 elements (`MXF8F6F4`, K 32), E2M1 with an E8M0 scale a 32 (`MXF4`, K 64) or a 16 (`MXF4NVF4`), or
    /// E2M1 with an E4M3 scale a 16 (`NVF4`, NVIDIA's nvfp4).
    MmaScaledKind { Mxf8f6f4 = "MXF8F6F4", Mxf4 = "MXF4", Mxf4nvf4 = "MXF4NVF4", Nvf4 = "NVF4" }
);
modifier_enum!(
    /// How `PRMT` picks its four bytes: by the selector's nibbles (`IDX`), or by one of PTX's
    /// fixed patterns indexed by the selector's low two bits.
    PrmtMode { Idx = "IDX", F4e = "F4E", B4e = "B4E", Rc8 = "RC8", Ecl = "ECL", Ecr = "ECR", Rc16 = "RC16" }
);
modifier_enum!(
    /// Which way `SHF` shifts the pair `b:a`.
    ShfDir { L = "L", R = "R" }
);
modifier_enum!(
    /// How `SHF` reads its shift amount: modulo 32 (`WRAP`) or clamped to 32 (`CLAMP`).
    ShfAmount { Wrap = "WRAP", Clamp = "CLAMP" }
);
modifier_enum!(
    /// Packed narrow float formats `CVT.<to>.F32` writes two of.
    CvtPair { E4M3x2 = "E4M3X2" @ Sm89, E5M2x2 = "E5M2X2" @ Sm89, E2M1x2 = "E2M1X2" @ Sm100 }
);
modifier_enum!(
    /// Narrow float formats `CVT.F32.<from>` widens.
    NarrowFloat { E4M3 = "E4M3" @ Sm89, E5M2 = "E5M2" @ Sm89, E2M1 = "E2M1" @ Sm100 }
);

impl AtomOp {
    /// The types `ATOM.<op>` takes.
    pub fn types(self) -> &'static [AtomType] {
        use AtomType::*;
        match self {
            AtomOp::Add => &[U32, S32, F32, U64, F64, F16, BF16, F16x2, BF16x2],
            AtomOp::Min | AtomOp::Max => &[U32, S32, U64, S64],
            AtomOp::Exch | AtomOp::And | AtomOp::Or | AtomOp::Xor => &[B32, B64],
            AtomOp::Inc | AtomOp::Dec => &[U32],
        }
    }
}

impl AtomType {
    /// Whether this type is 64 bits wide (a register pair).
    pub fn is_wide(self) -> bool {
        matches!(self, AtomType::U64 | AtomType::S64 | AtomType::F64 | AtomType::B64)
    }

    /// Bytes a lane's atomic changes: 2 for one half, 8 for a pair, else 4.
    pub fn bytes(self) -> u32 {
        match self {
            AtomType::F16 | AtomType::BF16 => 2,
            t if t.is_wide() => 8,
            _ => 4,
        }
    }

    /// The halves this type adds, one (`F16`, `BF16`) or two packed in a word (`F16X2`,
    /// `BF16X2`), as `PackType` names their format.
    pub fn halves(self) -> Option<PackType> {
        match self {
            AtomType::F16 | AtomType::F16x2 => Some(PackType::F16x2),
            AtomType::BF16 | AtomType::BF16x2 => Some(PackType::Bf16x2),
            _ => None,
        }
    }
}

impl CvtType {
    /// Whether a value of this type occupies a register pair.
    pub fn is_pair(self) -> bool {
        matches!(self, CvtType::F64 | CvtType::S64 | CvtType::U64)
    }
}

impl MemSpace {
    /// The state space this names; `None` for `GENERIC`, which each lane's address decides.
    pub fn space(self) -> Option<Space> {
        match self {
            MemSpace::Global => Some(Space::Global),
            MemSpace::Shared => Some(Space::Shared),
            MemSpace::Local => Some(Space::Local),
            MemSpace::Param => Some(Space::Param),
            MemSpace::Generic => None,
        }
    }
}

impl From<Space> for MemSpace {
    fn from(space: Space) -> MemSpace {
        match space {
            Space::Global => MemSpace::Global,
            Space::Shared => MemSpace::Shared,
            Space::Local => MemSpace::Local,
            Space::Param => MemSpace::Param,
        }
    }
}

impl From<AtomSpace> for MemSpace {
    fn from(space: AtomSpace) -> MemSpace {
        match space {
            AtomSpace::Global => MemSpace::Global,
            AtomSpace::Shared => MemSpace::Shared,
            AtomSpace::Generic => MemSpace::Generic,
        }
    }
}

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
        "SR_TID.X",
        "SR_TID.Y",
        "SR_TID.Z",
        "SR_NTID.X",
        "SR_NTID.Y",
        "SR_NTID.Z",
        "SR_CTAID.X",
        "SR_CTAID.Y",
        "SR_CTAID.Z",
        "SR_NCTAID.X",
        "SR_NCTAID.Y",
        "SR_NCTAID.Z",
        "SR_LANEID",
        "SR_WARPID",
        "SR_SMID",
        "SR_CLOCK",
    ];
    const ALL: [SpecialReg; 16] = [
        Self::TidX,
        Self::TidY,
        Self::TidZ,
        Self::NtidX,
        Self::NtidY,
        Self::NtidZ,
        Self::CtaidX,
        Self::CtaidY,
        Self::CtaidZ,
        Self::NctaidX,
        Self::NctaidY,
        Self::NctaidZ,
        Self::LaneId,
        Self::WarpId,
        Self::SmId,
        Self::Clock,
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

/// The functional unit an instruction issues to: the timing backend's pipelines, and
/// the grouping of per-unit statistics.
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
    /// Every unit.
    pub const ALL: [Unit; 7] = [Unit::Int, Unit::Fp32, Unit::Fp64, Unit::Sfu, Unit::LdSt, Unit::Tensor, Unit::Control];

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

/// How long an instruction takes until a dependent one may issue, as a class the
/// timing backend's machine configuration gives a number for. `Memory` and `Tensor`
/// latencies come from the memory model and the MMA form instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LatencyClass {
    /// Integer add, logic, shifts, moves, compares, selects.
    Alu,
    /// Integer multiplies (`IMUL`, `IMAD`, `IMUL.HI`).
    Mul,
    /// f32 add, multiply, fused multiply-add, min/max, compare.
    Fp32,
    /// f64 arithmetic and compares.
    Fp64,
    /// Conversions and packing.
    Convert,
    /// Special functions (`MUFU`).
    Sfu,
    /// Loads, stores and atomics: decided by the memory hierarchy.
    Memory,
    /// Warp shuffles and votes, which cross lanes.
    Shuffle,
    /// Tensor-core operations: decided by the MMA form.
    Tensor,
    /// Branches, exits, barriers and fences.
    Control,
}

impl LatencyClass {
    /// Every class.
    pub const ALL: [LatencyClass; 10] = [
        LatencyClass::Alu,
        LatencyClass::Mul,
        LatencyClass::Fp32,
        LatencyClass::Fp64,
        LatencyClass::Convert,
        LatencyClass::Sfu,
        LatencyClass::Memory,
        LatencyClass::Shuffle,
        LatencyClass::Tensor,
        LatencyClass::Control,
    ];

    /// The key naming this class in machine configurations and docs.
    pub fn name(self) -> &'static str {
        match self {
            LatencyClass::Alu => "alu",
            LatencyClass::Mul => "mul",
            LatencyClass::Fp32 => "fp32",
            LatencyClass::Fp64 => "fp64",
            LatencyClass::Convert => "convert",
            LatencyClass::Sfu => "sfu",
            LatencyClass::Memory => "memory",
            LatencyClass::Shuffle => "shuffle",
            LatencyClass::Tensor => "tensor",
            LatencyClass::Control => "control",
        }
    }
}

/// What an instruction does beyond computing registers, as flags every layer tests
/// instead of keeping its own list of opcodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags(u16);

impl Flags {
    /// Nothing beyond registers and predicates.
    pub const NONE: Flags = Flags(0);
    /// Reads memory.
    pub const LOAD: Flags = Flags(1);
    /// Writes memory.
    pub const STORE: Flags = Flags(1 << 1);
    /// Reads, modifies and writes memory indivisibly.
    pub const ATOMIC: Flags = Flags(1 << 2);
    /// Every non-exited thread of the warp takes part together.
    pub const COLLECTIVE: Flags = Flags(1 << 3);
    /// May send threads to a label.
    pub const BRANCH: Flags = Flags(1 << 4);
    /// Ends the threads that execute it.
    pub const TERMINATOR: Flags = Flags(1 << 5);
    /// Waits for the block's threads.
    pub const BARRIER: Flags = Flags(1 << 6);
    /// Orders memory operations.
    pub const FENCE: Flags = Flags(1 << 7);
    /// Adds to what the launch prints.
    pub const OUTPUT: Flags = Flags(1 << 8);

    const NAMED: [(Flags, &'static str); 9] = [
        (Flags::LOAD, "load"),
        (Flags::STORE, "store"),
        (Flags::ATOMIC, "atomic"),
        (Flags::COLLECTIVE, "collective"),
        (Flags::BRANCH, "branch"),
        (Flags::TERMINATOR, "terminator"),
        (Flags::BARRIER, "barrier"),
        (Flags::FENCE, "fence"),
        (Flags::OUTPUT, "output"),
    ];

    /// Both sets of flags.
    pub const fn union(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }

    /// Whether every flag of `other` is set.
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether any flag of `other` is set.
    pub const fn intersects(self, other: Flags) -> bool {
        self.0 & other.0 != 0
    }

    /// The names of the set flags, for docs and listings.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        Flags::NAMED.into_iter().filter(move |(f, _)| self.contains(*f)).map(|(_, name)| name)
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

/// The group name shown for a modifier field (`ty` is written "type", `input` "in").
const fn group_name(field: &'static str) -> &'static str {
    match field.as_bytes() {
        b"ty" => "type",
        b"input" => "in",
        _ => field,
    }
}

/// Register count of an operand, or the rule that decides it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// One 32-bit register.
    One,
    /// An even-aligned pair holding a 64-bit value.
    Pair,
    /// The data of a memory access: 1, 2 or 4 registers by type and vector width.
    Data,
    /// `LDSM`'s destination: a register per matrix.
    Matrices,
    /// A `CVT` operand: a pair for `F64`, else one register (destination: `to`; source: `from`).
    Converted,
    /// A `MOV` destination: a pair when the source is a `0d` literal.
    Literal,
    /// A tensor-core fragment, sized by the MMA form.
    Fragment(FragRole),
    /// `PRINTF`'s arguments: the words its format takes (`Operand::Format`), from an even
    /// register where one of them is a pair.
    Printed,
    /// A warp collective's member mask: one register or literal, each lane's own; left out,
    /// the whole warp (`0xFFFFFFFF`).
    Members,
    /// A `WGMMA` operand: `d`, the warp's share of the accumulator, `n / 2` registers (`n / 4`
    /// for F16), `n` being the `n` operand; `a`, a descriptor pair (`SS`) or 4 registers of
    /// fragment (`RS`).
    Warpgroup(FragRole),
    /// A `TMA` copy's coordinates: as many registers as its rank.
    Coordinates,
    /// A `TMEM.LD` destination or `TMEM.ST` source: the shape's registers (1, or 2 for
    /// `16X128B`, 4 for `16X256B`) times the repetitions.
    Tmem,
    /// Four registers: two descriptor pairs.
    Quad,
}

/// The role of an MMA operand, which decides its fragment's register count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FragRole {
    /// The left multiplicand.
    A,
    /// The right multiplicand.
    B,
    /// The accumulator (and the result `d`, which shares its layout).
    C,
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
    /// Read as the `CVT` source type says.
    Converted,
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
    /// A source register (range) with no literal and no modifier, written in bytecode as the
    /// register alone, as `Dst` is: rows whose operands would not fit the word as `Src` use it.
    Reg(Width),
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
    /// A format string (`"x = %d\n"`), kept in the kernel's [`formats`](crate::Kernel::formats).
    Format,
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
    /// Latency class.
    pub latency: LatencyClass,
    /// What it does beyond registers.
    pub flags: Flags,
    /// The first target that has the row (a modifier value may need a later one: [`Form::since`]).
    pub since: Target,
    /// One-line semantics.
    pub doc: &'static str,
}

impl OpInfo {
    /// The full mnemonic including the fixed modifiers (`VOTE.BALLOT`, `MMA.SP.M16N16K32`);
    /// a choice written before a fixed modifier stands as its group name (`CVT.<to>.F32`),
    /// so that no two rows share a full mnemonic; an optional group is left out.
    pub fn full_mnemonic(&self) -> String {
        let mut s = self.mnemonic.to_string();
        let last_fixed = self.groups.iter().rposition(ModGroup::is_fixed);
        for (i, g) in self.groups.iter().enumerate() {
            if g.is_fixed() {
                s.push('.');
                s.push_str(g.names[0]);
            } else if g.default.is_none() && last_fixed.is_some_and(|last| i < last) {
                s.push_str(&format!(".<{}>", g.name));
            }
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

/// Generates one row's modifier struct from its group list: typed fields
/// (`name: Type` or `name: Type = Default`) and fixed spellings (`"HI"`), in the
/// order they are written. The struct knows its groups, converts from and to
/// the encoded per-group indices, and has a default (each group's default, or
/// its first value).
macro_rules! row_modifiers {
    (@parse $doc:literal $name:ident [$($fields:tt)*] [$($steps:tt)*] []) => {
        row_modifiers!(@emit $doc $name [$($fields)*] [$($steps)*]);
    };
    (@parse $doc:literal $name:ident [$($fields:tt)*] [$($steps:tt)*] [$fixed:literal $(, $($rest:tt)*)?]) => {
        row_modifiers!(@parse $doc $name [$($fields)*] [$($steps)* (fixed $fixed)] [$($($rest)*)?]);
    };
    (@parse $doc:literal $name:ident [$($fields:tt)*] [$($steps:tt)*] [$f:ident : $ty:ident $(= $default:ident)? $(, $($rest:tt)*)?]) => {
        row_modifiers!(@parse $doc $name [$($fields)* ($f $ty $($default)?)] [$($steps)* (typed $f $ty $($default)?)] [$($($rest)*)?]);
    };
    (@emit $doc:literal $name:ident [] []) => {
        #[doc = concat!("`", $doc, "` has no modifiers.")]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name {}

        impl $name {
            /// No groups.
            pub const GROUPS: &'static [ModGroup] = &[];

            /// Only all-zero indices.
            pub fn from_indices(indices: [u8; 4]) -> Option<Self> {
                (indices == [0; 4]).then_some(Self {})
            }

            /// All zero.
            pub fn indices(&self) -> [u8; 4] {
                [0; 4]
            }

            /// No modifier needs a later target.
            pub fn since(&self) -> Target {
                Target::OLDEST
            }
        }
    };
    (@emit $doc:literal $name:ident [$(($f:ident $ty:ident $($default:ident)?))*] [$($step:tt)*]) => {
        #[doc = concat!("Modifiers of `", $doc, "`.")]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct $name { $(#[doc = concat!("The `", stringify!($f), "` modifier.")] pub $f: $ty),* }

        impl $name {
            /// The groups as written, fixed spellings included.
            pub const GROUPS: &'static [ModGroup] = &[$(row_modifiers!(@group $step)),*];

            /// From encoded group indices; `None` when one is out of range.
            pub fn from_indices(indices: [u8; 4]) -> Option<Self> {
                let mut indices = indices.into_iter();
                $(row_modifiers!(@read indices $step);)*
                if indices.any(|i| i != 0) {
                    return None;
                }
                Some(Self { $($f),* })
            }

            /// The encoded group indices (0 for fixed spellings and unused slots).
            pub fn indices(&self) -> [u8; 4] {
                let mut out = [0u8; 4];
                let mut slots = out.iter_mut();
                $(row_modifiers!(@write self slots $step);)*
                out
            }

            /// The first target that has every modifier value chosen.
            pub fn since(&self) -> Target {
                Target::OLDEST$(.max(self.$f.since()))*
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self { $($f: row_modifiers!(@default $ty $($default)?)),* }
            }
        }
    };
    (@group (fixed $fixed:literal)) => {
        ModGroup { name: $fixed, names: &[$fixed], default: None }
    };
    (@group (typed $f:ident $ty:ident)) => {
        ModGroup { name: group_name(stringify!($f)), names: <$ty as Modifier>::NAMES, default: None }
    };
    (@group (typed $f:ident $ty:ident $default:ident)) => {
        ModGroup { name: group_name(stringify!($f)), names: <$ty as Modifier>::NAMES, default: Some($ty::$default as u8) }
    };
    (@read $it:ident (fixed $fixed:literal)) => {
        if $it.next()? != 0 {
            return None;
        }
    };
    (@read $it:ident (typed $f:ident $ty:ident $($default:ident)?)) => {
        let $f = <$ty as Modifier>::from_index($it.next()?)?;
    };
    (@write $self:ident $slots:ident (fixed $fixed:literal)) => {
        $slots.next();
    };
    (@write $self:ident $slots:ident (typed $f:ident $ty:ident $($default:ident)?)) => {
        if let Some(slot) = $slots.next() {
            *slot = $self.$f.index();
        }
    };
    (@default $ty:ident) => { <$ty as Modifier>::ALL[0] };
    (@default $ty:ident $default:ident) => { $ty::$default };
}

/// The instruction table. Each row:
///
/// ```text
/// /// One-line semantics.
/// Variant: "MNEMONIC" [modifier groups], operands, optional N, Unit, LatencyClass, [FLAG | FLAG] [, since SmXX];
/// ```
///
/// `since` names the first target of a row a later generation introduced; rows
/// without it exist on every target.
macro_rules! instruction_table {
    ($(
        $(#[doc = $doc:literal])+
        $variant:ident: $mnemonic:literal [$($groups:tt)*], $operands:expr, optional $optional:literal,
            $unit:ident, $latency:ident, [$($flag:ident)|*] $(, since $since:ident)?;
    )+) => {
        /// Every instruction form. The discriminant is the encoded opcode byte.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Opcode { $($(#[doc = $doc])+ $variant),+ }

        /// The typed modifiers of each row, one struct per opcode.
        pub mod mods {
            use super::*;
            $(row_modifiers!(@parse $mnemonic $variant [] [] [$($groups)*]);)+
        }

        /// An instruction form: the opcode with its typed modifier values.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Form { $($(#[doc = $doc])+ $variant(mods::$variant)),+ }

        impl Form {
            /// The opcode.
            pub fn opcode(&self) -> Opcode {
                match self { $(Form::$variant(_) => Opcode::$variant),+ }
            }

            /// The form of `opcode` with its default modifiers.
            pub fn new(opcode: Opcode) -> Form {
                match opcode { $(Opcode::$variant => Form::$variant(mods::$variant::default())),+ }
            }

            /// The form of `opcode` with encoded group indices; `None` when one is out of range.
            pub fn from_indices(opcode: Opcode, indices: [u8; 4]) -> Option<Form> {
                match opcode { $(Opcode::$variant => mods::$variant::from_indices(indices).map(Form::$variant)),+ }
            }

            /// The encoded group indices, in the row's group order.
            pub fn indices(&self) -> [u8; 4] {
                match self { $(Form::$variant(m) => m.indices()),+ }
            }

            /// The first target that has this form: the row's, or a later one that one of
            /// its modifier values needs (`MMA.M16N16K16.F32.E4M3` needs sm_89).
            pub fn since(&self) -> Target {
                match self { $(Form::$variant(m) => m.since().max(TABLE[Opcode::$variant as usize].since)),+ }
            }
        }

        /// The table, indexed by `Opcode as usize`.
        pub static TABLE: &[OpInfo] = &[$(OpInfo {
            opcode: Opcode::$variant,
            mnemonic: $mnemonic,
            groups: mods::$variant::GROUPS,
            operands: $operands,
            optional: $optional,
            unit: Unit::$unit,
            latency: LatencyClass::$latency,
            flags: Flags::NONE$(.union(Flags::$flag))*,
            since: modifier_enum!(@since $($since)?),
            doc: concat!($($doc),+),
        }),+];
    };
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
const S_INT: OperandKind = src(LitKind::Int, SrcMods::Plain, Width::One);
const S_INT_NEG: OperandKind = src(LitKind::Int, SrcMods::Neg, Width::One);
const S_F32: OperandKind = src(LitKind::F32, SrcMods::NegAbs, Width::One);
const S_F64: OperandKind = src(LitKind::F64, SrcMods::NegAbs, Width::Pair);
const S_PAIR: OperandKind = src(LitKind::NoLiteral, SrcMods::Plain, Width::Pair);
const S_PAIR_INT: OperandKind = src(LitKind::Int, SrcMods::Plain, Width::Pair);
const S_ANY: OperandKind = src(LitKind::Any, SrcMods::Plain, Width::One);
/// An atomic's operand: a 32-bit register or literal, or a register pair for the 64-bit types.
const S_ATOM: OperandKind = src(LitKind::Any, SrcMods::Plain, Width::Data);
const S_MEMBERS: OperandKind = src(LitKind::Int, SrcMods::Plain, Width::Members);
const WG_D: OperandKind = OperandKind::Dst(Width::Warpgroup(FragRole::C));
const WG_A: OperandKind = src(LitKind::NoLiteral, SrcMods::Plain, Width::Warpgroup(FragRole::A));
/// A `TMA` copy's coordinates: a register per dimension of its rank.
const TMEM_SRC: OperandKind = src(LitKind::NoLiteral, SrcMods::Plain, Width::Tmem);
const COORDS: OperandKind = src(LitKind::NoLiteral, SrcMods::Plain, Width::Coordinates);
const S_REG: OperandKind = src(LitKind::NoLiteral, SrcMods::Plain, Width::One);
const P: OperandKind = OperandKind::PredDst;
const Q: OperandKind = OperandKind::PredSrc;
const SR: OperandKind = OperandKind::Special;
const ADDR: OperandKind = OperandKind::Addr;
const LABEL: OperandKind = OperandKind::Label;
const IMM: OperandKind = OperandKind::Imm;
const FRAG_A: OperandKind = src(LitKind::NoLiteral, SrcMods::Plain, Width::Fragment(FragRole::A));
const FRAG_B: OperandKind = src(LitKind::NoLiteral, SrcMods::Plain, Width::Fragment(FragRole::B));
const FRAG_C: OperandKind = src(LitKind::NoLiteral, SrcMods::Plain, Width::Fragment(FragRole::C));
const FRAG_D: OperandKind = OperandKind::Dst(Width::Fragment(FragRole::C));
/// Register-only fragments and words, 8 bits each in bytecode (`MMA.SCALED`'s seven operands).
const R_FRAG_A: OperandKind = OperandKind::Reg(Width::Fragment(FragRole::A));
const R_FRAG_B: OperandKind = OperandKind::Reg(Width::Fragment(FragRole::B));
const R_FRAG_C: OperandKind = OperandKind::Reg(Width::Fragment(FragRole::C));
const R_ONE: OperandKind = OperandKind::Reg(Width::One);
const FORMAT: OperandKind = OperandKind::Format;
const PRINTED: OperandKind = src(LitKind::NoLiteral, SrcMods::Plain, Width::Printed);

const DAB_INT: &[OperandSpec] = &[op("d", D), op("a", S_INT), op("b", S_INT)];
const DAB_F32: &[OperandSpec] = &[op("d", D), op("a", S_F32), op("b", S_F32)];
const DABC_F32: &[OperandSpec] = &[op("d", D), op("a", S_F32), op("b", S_F32), op("c", S_F32)];
const DA_INT: &[OperandSpec] = &[op("d", D), op("a", S_INT)];
const DAB_F64: &[OperandSpec] = &[op("d", D2), op("a", S_F64), op("b", S_F64)];
const MEM_DATA: &[OperandSpec] = &[op("d", OperandKind::Dst(Width::Data)), op("addr", ADDR)];
const MMA_OPERANDS: &[OperandSpec] = &[op("d", FRAG_D), op("a", FRAG_A), op("b", FRAG_B), op("c", FRAG_C)];

instruction_table! {
    /// `d = a`. A `0d` literal fills the pair `d:d+1`.
    Mov: "MOV" [], &[op("d", OperandKind::Dst(Width::Literal)), op("a", S_ANY)], optional 0, Int, Alu, [];
    /// `d = ` the special register.
    S2r: "S2R" [], &[op("d", D), op("sr", SR)], optional 0, Int, Alu, [];
    /// `d = p ? a : b`.
    Sel: "SEL" [], &[op("d", D), op("a", S_ANY), op("b", S_ANY), op("p", Q)], optional 0, Int, Alu, [];
    /// Converts `a` from one type to another: float to int rounds to an integral value (truncating by default; `RM` floors, `RP` ceils) and saturates (NaN gives 0); other conversions round once, to nearest even or toward zero (`RZ`), minus infinity (`RM`) or plus infinity (`RP`); F16/BF16 occupy the low 16 bits, F64/S64/U64 a pair.
    Cvt: "CVT" [to: CvtType, from: CvtType, rnd: Round = Rn], &[op("d", OperandKind::Dst(Width::Converted)), op("a", src(LitKind::Converted, SrcMods::NegAbs, Width::Converted))], optional 0, Fp32, Convert, [];
    /// Packs two f32 values, rounded to nearest even, into one register: `a` in the low half.
    Pack: "PACK" [ty: PackType], &[op("d", D), op("a", S_F32), op("b", S_F32)], optional 0, Fp32, Convert, [];
    /// `d = a + b`, wrapping.
    Iadd: "IADD" [], &[op("d", D), op("a", S_INT_NEG), op("b", S_INT_NEG)], optional 0, Int, Alu, [];
    /// `d = a - b`, wrapping.
    Isub: "ISUB" [], DAB_INT, optional 0, Int, Alu, [];
    /// `d = ` the low 32 bits of `a * b`.
    Imul: "IMUL" [], DAB_INT, optional 0, Int, Mul, [];
    /// `d = ` the high 32 bits of the 64-bit product `a * b`.
    ImulHi: "IMUL" ["HI", ty: IntType = S32], DAB_INT, optional 0, Int, Mul, [];
    /// `d = ` the low 32 bits of `a * b + c`.
    Imad: "IMAD" [], &[op("d", D), op("a", S_INT), op("b", S_INT), op("c", S_INT)], optional 0, Int, Mul, [];
    /// `d = min(a, b)`.
    Imin: "IMIN" [ty: IntType = S32], DAB_INT, optional 0, Int, Alu, [];
    /// `d = max(a, b)`.
    Imax: "IMAX" [ty: IntType = S32], DAB_INT, optional 0, Int, Alu, [];
    /// `d = |a|`, wrapping (`|i32::MIN|` is `i32::MIN`).
    Iabs: "IABS" [], DA_INT, optional 0, Int, Alu, [];
    /// `d = (a << s) + b`, wrapping.
    Lea: "LEA" [], &[op("d", D), op("a", S_INT), op("b", S_INT), op("s", S_INT)], optional 0, Int, Alu, [];
    /// `d = a & b`.
    And: "AND" [], DAB_INT, optional 0, Int, Alu, [];
    /// `d = a | b`.
    Or: "OR" [], DAB_INT, optional 0, Int, Alu, [];
    /// `d = a ^ b`.
    Xor: "XOR" [], DAB_INT, optional 0, Int, Alu, [];
    /// `d = !a`.
    Not: "NOT" [], DA_INT, optional 0, Int, Alu, [];
    /// `d = a << b`; counts of 32 or more give 0.
    Shl: "SHL" [], DAB_INT, optional 0, Int, Alu, [];
    /// `d = a >> b`, logical (`U32`, the default, as PTX `shr.b32` and C's `>>` on `unsigned`) or arithmetic (`S32`); counts of 32 or more give 0 or all sign bits.
    Shr: "SHR" [ty: IntType = U32], DAB_INT, optional 0, Int, Alu, [];
    /// `d = ` the number of set bits of `a`.
    Popc: "POPC" [], DA_INT, optional 0, Int, Alu, [];
    /// `d = ` the number of leading zero bits of `a` (32 for 0).
    Clz: "CLZ" [], DA_INT, optional 0, Int, Alu, [];
    /// `d = ` `a` with its bits reversed.
    Brev: "BREV" [], DA_INT, optional 0, Int, Alu, [];
    /// `p = (a cmp b) bop q` on integers (signed unless `.U32`).
    Isetp: "ISETP" [cmp: Cmp, ty: IntType = S32, bop: BoolOp = And], &[op("p", P), op("a", S_INT), op("b", S_INT), op("q", Q)], optional 1, Int, Alu, [];
    /// `p = (a fcmp b) bop q` on f32.
    Fsetp: "FSETP" [cmp: FCmp, bop: BoolOp = And], &[op("p", P), op("a", S_F32), op("b", S_F32), op("q", Q)], optional 1, Fp32, Fp32, [];
    /// `p = (a fcmp b) bop q` on f64 pairs.
    Dsetp: "DSETP" [cmp: FCmp, bop: BoolOp = And], &[op("p", P), op("a", S_F64), op("b", S_F64), op("q", Q)], optional 1, Fp64, Fp64, [];
    /// `d = a + b` in f32, round to nearest even.
    Fadd: "FADD" [ftz: Ftz = No, sat: Sat = No], DAB_F32, optional 0, Fp32, Fp32, [];
    /// `d = a * b` in f32, round to nearest even.
    Fmul: "FMUL" [ftz: Ftz = No, sat: Sat = No], DAB_F32, optional 0, Fp32, Fp32, [];
    /// `d = a * b + c` in f32, rounded once: to nearest even, or toward zero (`RZ`), minus infinity (`RM`) or plus infinity (`RP`), where an exact zero sum of opposite signs is -0 under `RM` and +0 otherwise.
    Ffma: "FFMA" [ftz: Ftz = No, sat: Sat = No, rnd: Round = Rn], DABC_F32, optional 0, Fp32, Fp32, [];
    /// `d = min(a, b)` in f32; the non-NaN operand wins.
    Fmin: "FMIN" [ftz: Ftz = No], DAB_F32, optional 0, Fp32, Fp32, [];
    /// `d = max(a, b)` in f32; the non-NaN operand wins.
    Fmax: "FMAX" [ftz: Ftz = No], DAB_F32, optional 0, Fp32, Fp32, [];
    /// `d = f(a)`, computed in f64 and rounded once to f32; `.FTZ` flushes a subnormal input
    /// and result to a zero of its sign.
    Mufu: "MUFU" [op: MufuOp, ftz: Ftz = No], &[op("d", D), op("a", S_F32)], optional 0, Sfu, Sfu, [];
    /// `d = a + b` in f64 on register pairs.
    Dadd: "DADD" [], DAB_F64, optional 0, Fp64, Fp64, [];
    /// `d = a * b` in f64 on register pairs.
    Dmul: "DMUL" [], DAB_F64, optional 0, Fp64, Fp64, [];
    /// `d = a * b + c` in f64 on register pairs, rounded once: to nearest even, toward zero (`RZ`), minus infinity (`RM`) or plus infinity (`RP`), where an exact zero sum of opposite signs is -0 under `RM` and +0 otherwise.
    Dfma: "DFMA" [rnd: Round = Rn], &[op("d", D2), op("a", S_F64), op("b", S_F64), op("c", S_F64)], optional 0, Fp64, Fp64, [];
    /// Loads `d` (1, 2 or 4 registers) from memory; sub-word types zero- or sign-extend. With `E` the address is 64 bits, from the pair `addr`'s base names; `GENERIC` (only with `E`) finds the space from the address's window, lane by lane.
    Ld: "LD" [space: MemSpace, addr: AddrWidth = W32, vec: VecWidth = Scalar, ty: MemType], MEM_DATA, optional 0, LdSt, Memory, [LOAD];
    /// Stores `a` (1, 2 or 4 registers) to memory. `E` and `GENERIC` as for `LD`.
    St: "ST" [space: MemSpace, addr: AddrWidth = W32, vec: VecWidth = Scalar, ty: MemType], &[op("addr", ADDR), op("a", src(LitKind::NoLiteral, SrcMods::Plain, Width::Data))], optional 0, LdSt, Memory, [STORE];
    /// Atomically applies `op` with `b` to memory; `d` gets the old value. Lanes of a warp apply in lane order; `ADD.F32` flushes subnormal inputs and results to sign-preserving zero. `INC` and `DEC` (`U32`, CUDA's `atomicInc`/`atomicDec`) count and wrap: `INC` stores `old >= b ? 0 : old + 1`, `DEC` stores `old == 0 || old > b ? b : old - 1`. The 64-bit types work on register pairs (`b` a register pair). `ADD` also takes halves, rounding each sum to nearest even and keeping subnormals (PTX's `.noftz`): `F16` and `BF16` add the low 16 bits of `b` into the half at a 2-byte-aligned address (`d` gets the old half, zero-extended; the word's other half is untouched), `F16X2` and `BF16X2` both halves of a word. `E` and `GENERIC` as for `LD`.
    Atom: "ATOM" [space: AtomSpace, addr: AddrWidth = W32, op: AtomOp, ty: AtomType], &[op("d", OperandKind::Dst(Width::Data)), op("addr", ADDR), op("b", S_ATOM)], optional 0, LdSt, Memory, [LOAD | STORE | ATOMIC];
    /// Atomic compare-and-swap: if `mem == b` then `mem = c`; `d` gets the old value (`B64`: on register pairs). `E` and `GENERIC` as for `LD`.
    AtomCas: "ATOM" [space: AtomSpace, addr: AddrWidth = W32, "CAS", ty: CasType], &[op("d", OperandKind::Dst(Width::Data)), op("addr", ADDR), op("b", S_ATOM), op("c", S_ATOM)], optional 0, LdSt, Memory, [LOAD | STORE | ATOMIC];
    /// Memory fence: no effect on values; the timing backend waits for the warp's outstanding memory operations.
    Membar: "MEMBAR" [scope: MembarScope], &[], optional 0, Control, Control, [FENCE];
    /// `d = a` of source lane `j` (PTX `shfl.sync` rules, segment width `w`, default 32). Warp-collective.
    Shfl: "SHFL" [mode: ShflMode], &[op("d", D), op("a", S_REG), op("b", S_INT), op("w", IMM)], optional 1, LdSt, Shuffle, [COLLECTIVE];
    /// `p = ` whether `q` holds for all (`ALL`) or any (`ANY`) guard-true lane. Warp-collective.
    Vote: "VOTE" [mode: VoteMode], &[op("p", P), op("q", Q)], optional 0, Int, Shuffle, [COLLECTIVE];
    /// `d = ` the mask of guard-true lanes where `q` holds. Warp-collective.
    VoteBallot: "VOTE" ["BALLOT"], &[op("d", D), op("q", Q)], optional 0, Int, Shuffle, [COLLECTIVE];
    /// Waits until every non-exited thread of the warp arrives here. Warp-collective.
    Warpsync: "WARPSYNC" [], &[], optional 0, Control, Control, [COLLECTIVE];
    /// 16x16x16 matrix multiply-accumulate `d = a * b + c` on warp fragments.
    Mma: "MMA" ["M16N16K16", acc: MmaAcc, input: MmaIn], MMA_OPERANDS, optional 0, Tensor, Tensor, [COLLECTIVE];
    /// 16x8x16 matrix multiply-accumulate in the fragment layout of PTX `mma.sync.aligned.m16n8k16`.
    MmaM16n8k16: "MMA" ["M16N8K16", acc: MmaAcc, input: MmaIn], MMA_OPERANDS, optional 0, Tensor, Tensor, [COLLECTIVE], since Sm80;
    /// 16x16x32 matrix multiply-accumulate with a 2:4-sparse `a` and its metadata `e`.
    MmaSp: "MMA" ["SP", "M16N16K32", acc: MmaAcc, input: MmaIn], &[op("d", FRAG_D), op("a", FRAG_A), op("b", FRAG_B), op("c", FRAG_C), op("e", S_REG)], optional 0, Tensor, Tensor, [COLLECTIVE], since Sm80;
    /// Jumps to `label`; a guarded branch may diverge and reconverges at its immediate post-dominator.
    Bra: "BRA" [], &[op("label", LABEL)], optional 0, Control, Control, [BRANCH];
    /// Ends the thread.
    Exit: "EXIT" [], &[], optional 0, Control, Control, [TERMINATOR];
    /// Waits at block barrier `a` (0 when left out; 16 of them, 0 .. 15) until every non-exited thread of the block waits there, or, given `b` (a multiple of 32), until `b` threads have arrived, counted a whole warp (32) at a time, by `BAR.SYNC a, b` or `BAR.ARRIVE a, b` (PTX `bar.sync a{, b}`).
    BarSync: "BAR" ["SYNC"], &[op("a", S_INT), op("b", S_INT)], optional 2, Control, Control, [BARRIER];
    /// Does nothing.
    Nop: "NOP" [], &[], optional 0, Control, Control, [];
    // The tensor-core generations (contract section 9), kept together.
    /// 8x8x4 f64 matrix multiply-accumulate (`.F64.F64`) in the fragment layout of PTX `mma.sync.aligned.m8n8k4`, a DFMA chain per element.
    MmaM8n8k4: "MMA" ["M8N8K4", acc: MmaAcc, input: MmaIn], MMA_OPERANDS, optional 0, Tensor, Tensor, [COLLECTIVE], since Sm80;
    /// Rounds f32 `a` to TF32 (10 mantissa bits, to nearest with ties away from zero) and clears the low 13 bits; NaN gives `0x7FFFE000`, overflow infinity.
    CvtTf32: "CVT" ["TF32", "F32"], &[op("d", D), op("a", S_F32)], optional 0, Fp32, Convert, [], since Sm80;
    /// Converts f32 `a` and `b` to two E4M3 or E5M2 bytes (E2M1 nibbles), `a` lowest, upper bits 0: to nearest even, saturating to the largest finite value; NaN gives `0x7F` (E2M1 `0x7`).
    CvtX2: "CVT" [to: CvtPair, "F32"], &[op("d", D), op("a", S_F32), op("b", S_F32)], optional 0, Fp32, Convert, [];
    /// Converts the lowest E4M3, E5M2 or E2M1 element of `a` to f32, exactly; NaN gives the canonical NaN.
    CvtWiden: "CVT" ["F32", from: NarrowFloat], &[op("d", D), op("a", S_INT)], optional 0, Fp32, Convert, [];
    // 64-bit integers on register pairs (low word in the even register) and predicate
    // logic, kept together: what compiled PTX needs beyond the rows above (docs/ptx.md).
    /// `d = a + b` on 64-bit pairs, wrapping; a literal `b` is a 32-bit value, sign-extended.
    Iadd64: "IADD64" [], &[op("d", D2), op("a", S_PAIR), op("b", S_PAIR_INT)], optional 0, Int, Alu, [];
    /// `d = ` the low 64 bits of `a * b` on 64-bit pairs; a literal `b` is sign-extended.
    Imul64: "IMUL64" [], &[op("d", D2), op("a", S_PAIR), op("b", S_PAIR_INT)], optional 0, Int, Mul, [];
    /// `d = a * b`, the whole 64-bit product of two 32-bit values (signed unless `U32`), into a pair.
    ImulWide: "IMUL" ["WIDE", ty: IntType = S32], &[op("d", D2), op("a", S_INT), op("b", S_INT)], optional 0, Int, Mul, [];
    /// `d = a << b` on a 64-bit pair; counts of 64 or more give 0.
    Shl64: "SHL64" [], &[op("d", D2), op("a", S_PAIR), op("b", S_INT)], optional 0, Int, Alu, [];
    /// `d = a >> b` on a 64-bit pair, logical (`U64`) or arithmetic (`S64`); counts of 64 or more give 0 or all sign bits.
    Shr64: "SHR64" [ty: Int64Type = S64], &[op("d", D2), op("a", S_PAIR), op("b", S_INT)], optional 0, Int, Alu, [];
    /// `p = a bop b` on predicates (`!` negates a source).
    Plop: "PLOP" [bop: BoolOp], &[op("p", P), op("a", Q), op("b", Q)], optional 0, Int, Alu, [];
    /// `d = a / b` in f32, correctly rounded: to nearest even (PTX `div.rn.f32`), toward zero (`RZ`), minus infinity (`RM`) or plus infinity (`RP`).
    Fdiv: "FDIV" [rnd: Round = Rn], DAB_F32, optional 0, Sfu, Sfu, [];
    /// `d = a / b`, rounded toward zero (signed unless `U32`); `b = 0` gives `0xFFFFFFFF`, `i32::MIN / -1` gives `i32::MIN`.
    Idiv: "IDIV" [ty: IntType = S32], DAB_INT, optional 0, Sfu, Sfu, [];
    /// `d = a - b * (a / b)`, the remainder of `IDIV` (its sign is `a`'s); `b = 0` gives `a`.
    Irem: "IREM" [ty: IntType = S32], DAB_INT, optional 0, Sfu, Sfu, [];
    /// `d = ` the `len`-bit field of `a` at bit `pos` (each taken mod 256), zero-extended (`U32`) or sign-extended from the field's top bit (`S32`); bits past bit 31 read as the extension.
    Bfe: "BFE" [ty: IntType = U32], &[op("d", D), op("a", S_INT), op("pos", S_INT), op("len", S_INT)], optional 0, Int, Alu, [];
    /// `d = ` `a` combined over the guard-true lanes in this lane's member mask `m`: `ADD` wrapping, `MIN`/`MAX` signed unless `U32`, `AND`/`OR`/`XOR` bitwise (PTX `redux.sync`). Warp-collective.
    Redux: "REDUX" [op: ReduxOp, ty: IntType = S32], &[op("d", D), op("a", S_REG), op("m", S_MEMBERS)], optional 1, Int, Shuffle, [COLLECTIVE], since Sm80;
    /// `d = ` the mask of the guard-true lanes in this lane's member mask `m` whose `a` equals this lane's (`ANY`), or of all of them if all their `a` are equal and else 0 (`ALL`) (PTX `match.sync`). Warp-collective.
    Match: "MATCH" [mode: MatchMode], &[op("d", D), op("a", S_REG), op("m", S_MEMBERS)], optional 1, Int, Shuffle, [COLLECTIVE];
    // More 64-bit integer rows for compiled PTX (`size_t` loop bounds and indices).
    /// `d = a - b` on 64-bit pairs, wrapping; a literal `b` is a 32-bit value, sign-extended.
    Isub64: "ISUB64" [], &[op("d", D2), op("a", S_PAIR), op("b", S_PAIR_INT)], optional 0, Int, Alu, [];
    /// `d = ` the smaller of 64-bit pairs `a` and `b`, signed (`S64`) or unsigned (`U64`); a literal `b` is sign-extended.
    Imin64: "IMIN64" [ty: Int64Type = S64], &[op("d", D2), op("a", S_PAIR), op("b", S_PAIR_INT)], optional 0, Int, Alu, [];
    /// `d = ` the larger of 64-bit pairs `a` and `b`, signed (`S64`) or unsigned (`U64`); a literal `b` is sign-extended.
    Imax64: "IMAX64" [ty: Int64Type = S64], &[op("d", D2), op("a", S_PAIR), op("b", S_PAIR_INT)], optional 0, Int, Alu, [];
    /// `p = (a cmp b) bop q` on 64-bit pairs, signed unless `U64`; a literal `b` is sign-extended.
    Isetp64: "ISETP64" [cmp: Cmp, ty: Int64Type = S64, bop: BoolOp = And], &[op("p", P), op("a", S_PAIR), op("b", S_PAIR_INT), op("q", Q)], optional 1, Int, Alu, [];
    /// `d = a` rounded to an integral f32: to nearest even, toward zero (`RZ`, trunc), minus infinity (`RM`, floor) or plus infinity (`RP`, ceil); zeros and infinities keep themselves, NaN gives the canonical NaN.
    Frnd: "FRND" [rnd: Round = Rn, ftz: Ftz = No], &[op("d", D), op("a", S_F32)], optional 0, Fp32, Convert, [];
    /// `d = a / b` in f64, correctly rounded: to nearest even (PTX `div.rn.f64`, `rcp.rn.f64` as `1 / b`), toward zero (`RZ`), minus infinity (`RM`) or plus infinity (`RP`).
    Ddiv: "DDIV" [rnd: Round = Rn], DAB_F64, optional 0, Fp64, Sfu, [];
    /// `d = sqrt(a)` in f64, correctly rounded: to nearest even, toward zero (`RZ`), minus infinity (`RM`) or plus infinity (`RP`); negative `a` gives the canonical NaN, -0 gives -0.
    Dsqrt: "DSQRT" [rnd: Round = Rn], &[op("d", D2), op("a", S_F64)], optional 0, Fp64, Sfu, [];
    /// `d = a` rounded to an integral f64: to nearest even, toward zero (`RZ`), minus infinity (`RM`) or plus infinity (`RP`); NaN gives the canonical NaN.
    Drnd: "DRND" [rnd: Round = Rn], &[op("d", D2), op("a", S_F64)], optional 0, Fp64, Convert, [];
    /// `d = b` with its `len`-bit field at bit `pos` replaced by the low bits of `a` (PTX `bfi`; `pos` and `len` taken mod 256, bits past bit 31 dropped).
    Bfi: "BFI" [], &[op("d", D), op("a", S_INT), op("b", S_INT), op("pos", S_INT), op("len", S_INT)], optional 0, Int, Alu, [];
    /// `d = a / b` on 64-bit pairs, rounded toward zero (signed unless `U64`); `b = 0` gives all ones, `i64::MIN / -1` gives `i64::MIN`; a literal `b` is sign-extended.
    Idiv64: "IDIV64" [ty: Int64Type = S64], &[op("d", D2), op("a", S_PAIR), op("b", S_PAIR_INT)], optional 0, Sfu, Sfu, [];
    /// `d = a - b * (a / b)` on 64-bit pairs, the remainder of `IDIV64` (its sign is `a`'s); `b = 0` gives `a`.
    Irem64: "IREM64" [ty: Int64Type = S64], &[op("d", D2), op("a", S_PAIR), op("b", S_PAIR_INT)], optional 0, Sfu, Sfu, [];
    /// `d = ` the high 64 bits of the 128-bit product `a * b` on 64-bit pairs, signed (`S64`) or unsigned (`U64`); a literal `b` is sign-extended.
    ImulHi64: "IMUL64" ["HI", ty: Int64Type = S64], &[op("d", D2), op("a", S_PAIR), op("b", S_PAIR_INT)], optional 0, Int, Mul, [];
    /// `d = ` four bytes picked from the eight of `b:a` (`a` is bytes 0-3) by selector `c` (PTX `prmt.b32`): with `IDX`, nibble `i` of `c` picks byte `i` (its bit 3 replicates the picked byte's sign instead); the other modes are PTX's fixed patterns, indexed by `c`'s low two bits.
    Prmt: "PRMT" [mode: PrmtMode = Idx], &[op("d", D), op("a", S_INT), op("b", S_INT), op("c", S_INT)], optional 0, Int, Alu, [];
    /// Stops the launch with a fault naming the first guard-true lane (PTX `trap`, CUDA `__trap()` and a failed `assert`).
    Trap: "TRAP" [], &[], optional 0, Control, Control, [TERMINATOR];
    /// Funnel shift of the 64-bit `b:a` (`a` low) by `c`: `L` keeps the high word of the left shift, `R` the low word of the right shift (PTX `shf`).
    Shf: "SHF" [dir: ShfDir, amount: ShfAmount], &[op("d", D), op("a", S_INT), op("b", S_INT), op("c", S_INT)], optional 0, Int, Alu, [];
    /// `d = min(a, b)` in f64 on register pairs; the non-NaN operand wins, and -0 is below +0.
    Dmin: "DMIN" [], DAB_F64, optional 0, Fp64, Fp64, [];
    /// `d = max(a, b)` in f64 on register pairs; the non-NaN operand wins, and +0 is above -0.
    Dmax: "DMAX" [], DAB_F64, optional 0, Fp64, Fp64, [];
    /// `d = sqrt(a)` in f32, rounded once: to nearest even (as `MUFU.SQRT`), toward zero (`RZ`), minus infinity (`RM`) or plus infinity (`RP`); negative `a` gives the canonical NaN, -0 gives -0.
    Fsqrt: "FSQRT" [rnd: Round = Rn], &[op("d", D), op("a", S_F32)], optional 0, Sfu, Sfu, [];
    /// 16x8x8 TF32 matrix multiply-accumulate (`.F32.TF32`) in the fragment layout of PTX `mma.sync.aligned.m16n8k8`: 4 registers of A, 2 of B, 4 of C.
    MmaM16n8k8: "MMA" ["M16N8K8", acc: MmaAcc, input: MmaIn], MMA_OPERANDS, optional 0, Tensor, Tensor, [COLLECTIVE], since Sm80;
    /// 16x8x32 matrix multiply-accumulate of 8-bit inputs in the fragment layout of PTX `mma.sync.aligned.m16n8k32` (4 registers of A, 2 of B, 4 of C): `.S32.S8`/`.S32.U8` exactly, wrapping or, with `.SAT`, clamped to the i32 range; `.F32.E4M3`/`.F32.E5M2` as a chain in increasing k.
    MmaM16n8k32: "MMA" ["M16N8K32", acc: MmaAcc, input: MmaIn, sat: Sat = No], MMA_OPERANDS, optional 0, Tensor, Tensor, [COLLECTIVE], since Sm80;
    /// Loads 1, 2 or 4 8x8 matrices of 16-bit elements from SHARED memory into `d` (a register each), as PTX `ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16`: lanes 8j .. 8j + 7 give the 16-byte-aligned addresses of matrix j's rows, and every one of them must execute it. Lane `l`'s register j gets the 32-bit word `l % 4` of row `l / 4` of matrix j; with `T`, the elements of column `l / 4` in rows `2 (l % 4)` (low half) and `2 (l % 4) + 1`. Warp-collective.
    Ldsm: "LDSM" [count: MatrixCount, trans: Trans = No], &[op("d", OperandKind::Dst(Width::Matrices)), op("addr", ADDR)], optional 0, LdSt, Memory, [LOAD | COLLECTIVE], since Sm75;
    // Asynchronous copies from GLOBAL to SHARED (PTX `cp.async`), kept together.
    /// Copies the first `n` bytes of the 4, 8 or 16 (`V2`, `V4`) at GLOBAL `[addr]` to SHARED at the address in `s`, and zeroes the rest (PTX `cp.async.ca|cg.shared.global` with a source size; `n` of the size or more copies it all, `n = 0` reads nothing). The copy is made as it issues; the timing backend lets the warp go on, counting it in the warp's open group of copies (`LDGDEPBAR`, `DEPBAR`). `E` as for `LD`.
    Ldgsts: "LDGSTS" [addr: AddrWidth = W32, vec: VecWidth = Scalar], &[op("s", S_INT), op("addr", ADDR), op("n", S_INT)], optional 0, LdSt, Memory, [LOAD | STORE], since Sm80;
    /// Closes the warp's open group of `LDGSTS` copies (PTX `cp.async.commit_group`).
    Ldgdepbar: "LDGDEPBAR" [], &[], optional 0, Control, Control, [], since Sm80;
    /// Waits until no more than the `n` most recently closed groups of the warp's `LDGSTS` copies are incomplete (PTX `cp.async.wait_group n`). No effect on values: each copy was made as it issued.
    Depbar: "DEPBAR" [], &[op("n", IMM)], optional 0, Control, Control, [], since Sm80;
    // Arithmetic on pairs of halves (PTX's `f16`, `f16x2`, `bf16` and `bf16x2`), kept together. Each
    // half of `d` comes from the same half of the sources; a literal gives the pair's 32 bits.
    /// `d = a + b` on each half of the pair (`F16X2`, the default, or `BF16X2`), rounded once to nearest even; a NaN result is the canonical `0x7FFF`.
    Hadd2: "HADD2" [ty: PackType = F16x2], DAB_INT, optional 0, Fp32, Fp32, [];
    /// `d = a * b` on each half of the pair (`F16X2` or `BF16X2`), rounded once to nearest even; a NaN result is the canonical `0x7FFF`.
    Hmul2: "HMUL2" [ty: PackType = F16x2], DAB_INT, optional 0, Fp32, Fp32, [];
    /// `d = a * b + c` on each half of the pair (`F16X2` or `BF16X2`), rounded once to nearest even (an exact zero sum of opposite signs is +0); a NaN result is the canonical `0x7FFF`.
    Hfma2: "HFMA2" [ty: PackType = F16x2], &[op("d", D), op("a", S_INT), op("b", S_INT), op("c", S_INT)], optional 0, Fp32, Fp32, [];
    /// `d = min(a, b)` on each half of the pair (`F16X2` or `BF16X2`); the non-NaN operand wins, -0 is below +0, and two NaNs give `0x7FFF`.
    Hmin2: "HMIN2" [ty: PackType = F16x2], DAB_INT, optional 0, Fp32, Fp32, [];
    /// `d = max(a, b)` on each half of the pair (`F16X2` or `BF16X2`); the non-NaN operand wins, +0 is above -0, and two NaNs give `0x7FFF`.
    Hmax2: "HMAX2" [ty: PackType = F16x2], DAB_INT, optional 0, Fp32, Fp32, [];
    /// `p = (a fcmp b) bop c` on the low halves, `q` the same on the high halves (`F16X2` or `BF16X2`), each half compared as its exact f32 value is by `FSETP`; `PT` as `p` or `q` discards that result.
    Hsetp2: "HSETP2" [cmp: FCmp, bop: BoolOp = And, ty: PackType = F16x2], &[op("p", P), op("q", P), op("a", S_INT), op("b", S_INT), op("c", Q)], optional 1, Fp32, Fp32, [];
    /// `d = a * b + c`: the whole 64-bit product of two 32-bit values (signed unless `U32`) plus the 64-bit pair `c`, wrapping (PTX `mad.wide`); a literal `c` is a 32-bit value, sign-extended.
    ImadWide: "IMAD" ["WIDE", ty: IntType = S32], &[op("d", D2), op("a", S_INT), op("b", S_INT), op("c", S_PAIR_INT)], optional 0, Int, Mul, [];
    /// Waits as `BAR.SYNC` does (the two are one barrier), then `d = ` `q` over the block's threads that arrived at a `BAR.RED` with their guard true: `POPC` how many had it true, `AND` 1 if all did, `OR` 1 if any did, else 0 (PTX `bar.red`, CUDA `__syncthreads_count`, `_and`, `_or`).
    BarRed: "BAR" ["RED", op: BarRedOp], &[op("d", D), op("q", Q)], optional 0, Control, Control, [BARRIER];
    /// `d = c + ` the sum of the products of the four bytes of `a` and `b`, byte `i` with byte `i`, each extended as its sign says (`S8` or `U8`), wrapping (PTX `dp4a`, CUDA `__dp4a`).
    Idp4a: "IDP" ["4A", a: Sign8, b: Sign8], &[op("d", D), op("a", S_INT), op("b", S_INT), op("c", S_INT)], optional 0, Int, Mul, [];
    /// `d = c + a.h0 * b.byte(k) + a.h1 * b.byte(k + 1)`: the two halves of `a` (`S16` or `U16`) times two bytes of `b` (`S8` or `U8`), `k = 0` (`LO`) or 2 (`HI`), wrapping (PTX `dp2a`, CUDA `__dp2a_lo`, `__dp2a_hi`).
    Idp2a: "IDP" ["2A", half: DpHalf, a: Sign16, b: Sign8], &[op("d", D), op("a", S_INT), op("b", S_INT), op("c", S_INT)], optional 0, Int, Mul, [];
    /// Each thread prints `format` (C's `printf` conversions) with its arguments from registers `a` on, laid out as CUDA's `vprintf` lays them out in memory: 4-byte ones (`%d %u %x %c`, `*`) a register each, 8-byte ones (`%ld`, the floats as f64, `%s` and `%p` addresses) the next even-aligned pair; `a` may be left out when there are none. The launch prints the records in block order, then by barrier interval, warp and issue (`docs/language.md`, "Printing").
    Printf: "PRINTF" [], &[op("format", FORMAT), op("a", PRINTED)], optional 1, Control, Control, [OUTPUT];
    /// CUDA's `vprintf` (PTX `call vprintf`): each thread prints the format at generic address `format` with its arguments from the buffer at generic address `args`, laid out as `PRINTF`'s registers are, and `d = ` the number of arguments the format takes, `*`s included (-1 for a null format). The format is read as the thread runs (at most 64 KiB) and checked as `PRINTF`'s are.
    Vprintf: "VPRINTF" [], &[op("d", D), op("format", S_PAIR), op("args", S_PAIR)], optional 0, Control, Control, [OUTPUT];
    /// A failed device `assert` (CUDA's `__assertfail`, PTX `call __assertfail`): stops the launch as `TRAP` does, the fault saying `file:line: function: Assertion `message` failed.`, the three strings read as the first guard-true lane's loads would from the generic addresses in pairs `message`, `file` and `function`.
    TrapAssert: "TRAP" ["ASSERT"], &[op("message", S_PAIR), op("file", S_PAIR), op("line", S_INT), op("function", S_PAIR)], optional 0, Control, Control, [TERMINATOR];
    /// This warp's 16 rows of a warpgroup MMA (PTX `wgmma.mma_async`): `d[16w .. 16w + 16, 0 .. n] = a * b + (q ? d : 0)`, `w` the warp's place in its warpgroup (its index in the block, mod 4), as `n / 8` `MMA.M16N8K16` (K8 for TF32, K32 for 8-bit inputs) in column order. A is 64 x K and B K x n in SHARED memory at the matrix descriptors in pairs `a` and `b` (PTX's layout: start, leading and stride byte offsets, swizzle mode), or A is this warp's `MMA` fragment in `a` (`RS`). Reads SHARED as it executes; every lane takes part.
    Wgmma: "WGMMA" [src: WgmmaSrc, acc: MmaAcc, input: MmaIn, trans: WgmmaTrans = Nn], &[op("d", WG_D), op("a", WG_A), op("b", S_PAIR), op("n", IMM), op("q", Q)], optional 1, Tensor, Tensor, [COLLECTIVE], since Sm90;
    // The mbarrier (PTX `mbarrier`), kept together: 64 bits of SHARED memory, 8-byte aligned,
    // counting a phase's pending arrivals and transaction bytes (docs/language.md, "Barriers in
    // memory", gives its layout). Each guard-true lane acts on its own address, in lane order.
    /// Makes the 8 bytes at SHARED `[addr]` an mbarrier expecting `count` arrivals (1 .. 2^20 - 1) each phase, with no transaction bytes pending, in phase 0 (PTX `mbarrier.init`).
    MbarInit: "MBAR" ["INIT"], &[op("addr", ADDR), op("count", S_INT)], optional 0, LdSt, Memory, [STORE], since Sm80;
    /// Arrives at the mbarrier at SHARED `[addr]`: adds `tx` bytes to its phase's pending transaction count, then counts `count` arrivals; a phase with no arrival and no byte left pending completes, and the next begins. `DROP` also lowers the arrivals later phases expect by `count`. `d = ` the parity of the phase it arrived in, PTX's `state` (PTX `mbarrier.arrive{.expect_tx}`, `mbarrier.arrive_drop`).
    MbarArrive: "MBAR" ["ARRIVE", drop: MbarDrop = No], &[op("d", D), op("addr", ADDR), op("count", S_INT), op("tx", S_INT)], optional 0, LdSt, Memory, [LOAD | STORE | ATOMIC], since Sm80;
    /// Adds `tx` bytes to the pending transaction count of the mbarrier at SHARED `[addr]`'s phase (`EXPECT`), or takes them off (`COMPLETE`), which completes the phase when no arrival and no byte is left pending (PTX `mbarrier.expect_tx`, `mbarrier.complete_tx`).
    MbarTx: "MBAR" ["TX", op: MbarTxOp], &[op("addr", ADDR), op("tx", S_INT)], optional 0, LdSt, Memory, [LOAD | STORE | ATOMIC], since Sm90;
    /// `p = ` whether the phase of parity `parity & 1` of the mbarrier at SHARED `[addr]` has completed, that is, whether its current phase has the other parity (PTX `mbarrier.test_wait` and `try_wait`, `.parity` or with `MBAR.ARRIVE`'s `d`). Never waits: a loop does.
    MbarTest: "MBAR" ["TEST"], &[op("p", P), op("addr", ADDR), op("parity", S_INT)], optional 0, LdSt, Memory, [LOAD], since Sm80;
    // Tensor copies between GLOBAL and SHARED memory through a tensor map (PTX
    // `cp.async.bulk.tensor`, Hopper's tensor memory accelerator), kept together; docs/tensor.md,
    // "Tensor maps", gives the map's 128 bytes. Each guard-true lane makes its own copy, whole,
    // as it issues.
    /// Copies the box at coordinates `c` (the rank's count of consecutive registers, innermost first, signed) of the tensor that the tensor map at generic address `m` describes from GLOBAL to SHARED at `s`, laid out densely (innermost first) and swizzled as the map says, elements outside the tensor reading as zero; then completes the box's bytes on the mbarrier at SHARED `b` (PTX `cp.async.bulk.tensor.Nd.shared::cta.global.tile.mbarrier::complete_tx::bytes`).
    TmaLoad: "TMA" ["LOAD", rank: TensorRank], &[op("s", S_INT), op("m", S_PAIR), op("c", COORDS), op("b", S_INT)], optional 0, LdSt, Control, [], since Sm90;
    /// Copies the box laid out densely (and swizzled as the map says) at SHARED `s` into the tensor that the tensor map at generic address `m` describes, at coordinates `c`; elements outside the tensor are not written (PTX `cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group`).
    TmaStore: "TMA" ["STORE", rank: TensorRank], &[op("m", S_PAIR), op("c", COORDS), op("s", S_INT)], optional 0, LdSt, Control, [], since Sm90;
    /// The warp arrives at block barrier `a` (0 .. 15), which `b` threads (a multiple of 32) complete, counting 32, and goes on without waiting: a producer's signal to the warps waiting at `BAR.SYNC a, b` (PTX `bar.arrive a, b`). Every non-exited thread of the warp arrives together.
    BarArrive: "BAR" ["ARRIVE"], &[op("a", S_INT), op("b", S_INT)], optional 0, Control, Control, [BARRIER | COLLECTIVE];
    // Tensor memory and the MMAs that accumulate in it (PTX `tcgen05`, datacenter Blackwell),
    // kept together: each block has 128 lanes by 512 columns of 32-bit cells, allocated by
    // columns; a TMEM address is `lane << 16 | column` (docs/tensor.md, "Tensor memory").
    /// Allocates `n` columns of the block's tensor memory (32, 64, 128, 256 or 512, at a multiple of `n`) and stores their address (lane 0, first column) as a word at SHARED `[addr]` (PTX `tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32`). Warp-collective: every lane, the same `addr` and `n`; faults where `n` columns are not free (hardware waits for them) or after `TMEM.RELINQUISH`.
    TmemAlloc: "TMEM" ["ALLOC"], &[op("addr", ADDR), op("n", S_INT)], optional 0, LdSt, Memory, [STORE | COLLECTIVE], since Sm100;
    /// Frees the `n` columns `TMEM.ALLOC` gave at TMEM address `a` (PTX `tcgen05.dealloc`); a block must free all it allocated before its threads exit. Warp-collective.
    TmemDealloc: "TMEM" ["DEALLOC"], &[op("a", S_INT), op("n", S_INT)], optional 0, Control, Control, [COLLECTIVE], since Sm100;
    /// Gives up the block's right to allocate tensor memory: a later `TMEM.ALLOC` faults (PTX `tcgen05.relinquish_alloc_permit`). Warp-collective.
    TmemRelinquish: "TMEM" ["RELINQUISH"], &[], optional 0, Control, Control, [COLLECTIVE], since Sm100;
    /// Loads this warp's share of tensor memory from TMEM address `[t]`, the same in every lane, into `d` (PTX `tcgen05.ld.sync.aligned`): `X1` .. `X128` repetitions of the shape along the columns, a cell a register (`PACK16`: the low halves of two adjacent cells), lane and column of each register as docs/tensor.md gives them; `16X32BX2`'s lanes 16-31 read `s` columns on. A warp reaches lanes `32 (w % 4)` .. `+ 31` only. Every lane takes part; the load is complete as it executes.
    TmemLd: "TMEM" ["LD", shape: TmemShape, num: TmemNum, pack: TmemPack = No], &[op("d", OperandKind::Dst(Width::Tmem)), op("t", ADDR), op("s", IMM)], optional 1, LdSt, Shuffle, [COLLECTIVE], since Sm100;
    /// Stores `a` to this warp's share of tensor memory at TMEM address `[t]` as `TMEM.LD` loads it (PTX `tcgen05.st.sync.aligned`; `PACK16` writes each half of a register to the low half of its own cell, the high half zero); `RZ` as `a` stores zero to every cell, as SASS's `STTM ..., RZ`.
    TmemSt: "TMEM" ["ST", shape: TmemShape, num: TmemNum, pack: TmemPack = No], &[op("t", ADDR), op("a", TMEM_SRC), op("s", IMM)], optional 1, LdSt, Shuffle, [COLLECTIVE], since Sm100;
    /// One whole MMA into tensor memory by each guard-true lane (PTX `tcgen05.mma.cta_group::1`): `D = A * B + (q ? D : 0)`, D an M x N matrix of f32 (or f16, s32) cells at TMEM address `d`, A M x K and B K x N in SHARED memory at the matrix descriptors in pairs `a` and `b`, M, N, the types, transposes and negations from instruction descriptor `i` (docs/tensor.md gives its bits), computed as `MMA.M16N8K16` slices are (K8 for `TF32`, K32 for the 8-bit kinds). Reads SHARED as it executes.
    Tcmma: "TCMMA" [kind: TcKind], &[op("d", S_INT), op("a", S_PAIR), op("b", S_PAIR), op("i", S_INT), op("q", Q)], optional 1, Tensor, Tensor, [], since Sm100;
    /// `TCMMA` with A in tensor memory at TMEM address `a`, an M x K matrix a row a lane, K packed into 32-bit columns (PTX `tcgen05.mma` with `[a-tmem]`).
    TcmmaTs: "TCMMA" ["TS", kind: TcKind], &[op("d", S_INT), op("a", S_INT), op("b", S_PAIR), op("i", S_INT), op("q", Q)], optional 1, Tensor, Tensor, [], since Sm100;
    /// `TCMMA` of block-scaled narrow floats (PTX `tcgen05.mma.kind::mxf8f6f4`, `::mxf4` and `::mxf4nvf4` with `.block_scale`, Triton's `tl.dot_scaled`): A's and B's descriptors in the four registers from `ab`, and each block of 32 (`MXF4NVF4`: 16) elements of a row of A and of a column of B times its scale, an E8M0 `2^(s - 127)` (or, as the instruction descriptor says for `MXF4NVF4`, an unsigned E4M3) at TMEM addresses `s` (A's) and `s + 1` (B's), from the byte the instruction descriptor's scale-factor ids pick (docs/tensor.md gives the layout). `MXF8F6F4` multiplies E4M3 or E5M2 bytes, K = 32; `MXF4` and `MXF4NVF4` E2M1 pairs, K = 64. Computed as one chain of exact scaled products a result element, rounded to f32 at each step.
    TcmmaMx: "TCMMA" ["SCALED", kind: TcScaledKind], &[op("d", S_INT), op("ab", src(LitKind::NoLiteral, SrcMods::Plain, Width::Quad)), op("i", S_INT), op("s", S_PAIR), op("q", Q)], optional 1, Tensor, Tensor, [], since Sm100;
    /// Arrives once, with a count of 1, on the mbarrier at SHARED `[addr]` when this lane's `TCMMA`s so far are complete (PTX `tcgen05.commit.cta_group::1.mbarrier::arrive::one`); each `TCMMA` completes as it executes, so the arrival is made at once.
    TcmmaCommit: "TCMMA" ["COMMIT"], &[op("addr", ADDR)], optional 0, LdSt, Memory, [LOAD | STORE | ATOMIC], since Sm100;
    // New rows go last: an opcode is its row's place, and bytecode of every version keeps its numbers.
    /// `d` = any bitwise function of `a`, `b` and `c`: each bit of `d` is bit `4a + 2b + c` of `lut`'s low 8 bits, `a`, `b`, `c` that position's bits (PTX `lop3.b32`; `lut` is the function of 0xF0, 0xCC and 0xAA: 0x80 is `a & b & c`, 0x96 `a ^ b ^ c`).
    Lop3: "LOP3" [], &[op("d", D), op("a", S_INT), op("b", S_INT), op("c", S_INT), op("lut", S_INT)], optional 0, Int, Alu, [];
    /// 16 x 8 block-scaled matrix multiply-accumulate in PTX's fragment layouts (PTX `mma.sync.aligned` `.kind::mxf8f6f4`, `::mxf4` and `::mxf4nvf4` with `.block_scale`, consumer Blackwell; Triton's `tl.dot_scaled` on sm_120a): `d = (a sa) (b sb) + c` in f32, A's elements of the first type and B's of the second, each block of 32 (`MXF4NVF4`, `NVF4`: 16) elements along K of a row of A and of a column of B times its scale, an E8M0 `2^(s - 127)` (`NVF4`: an E4M3). `MXF8F6F4` multiplies bytes in `MMA.M16N8K32`'s layout (K 32, one scale a row), each an E4M3 or E5M2, a 6-bit E3M2 or E2M3 in bits 5-0, or an E2M1 in bits 5-2 (PTX's containers; the other bits are ignored); `MXF4`, `MXF4NVF4` and `NVF4` E2M1 pairs in that layout, two elements a byte, the first in the low nibble (K 64: two scales, or four). Row `m`'s scales are bytes of `sa` in lane `4 (m % 8) + 2 ta + m / 8`, column `n`'s bytes of `sb` in lane `4 n + tb`, a K block a byte from byte `ba` (`bb`) on; `sel` holds PTX's selectors as hex digits, `0x<ba><ta><bb><tb>` (left out, 0). Computed as one chain of exact scaled products a result element, rounded to f32 at each step.
    MmaScaled: "MMA" ["SCALED", kind: MmaScaledKind, a: MmaIn, b: MmaIn], &[op("d", FRAG_D), op("a", R_FRAG_A), op("b", R_FRAG_B), op("c", R_FRAG_C), op("sa", R_ONE), op("sb", R_ONE), op("sel", IMM)], optional 1, Tensor, Tensor, [COLLECTIVE], since Sm100;
    /// Elects the lowest guard-true lane of this lane's member mask `m` (the whole warp when left out): `d = ` its lane number (`0xFFFFFFFF` where the mask holds no guard-true lane), `p = ` whether this lane is it (PTX `elect.sync d|p, m`, SASS `ELECT`). Warp-collective.
    Elect: "ELECT" [], &[op("d", D), op("p", P), op("m", S_MEMBERS)], optional 1, Int, Shuffle, [COLLECTIVE], since Sm90;
    /// Converts the two lowest E4M3 or E5M2 bytes (E2M1 nibbles) of `a` to f16 halves, exactly, the lowest in the low half; NaN gives the canonical `0x7FFF` (PTX `cvt.rn.f16x2.e4m3x2`, SASS `F2FP.F16.E4M3.UNPACK_B`).
    CvtF16x2Widen: "CVT" ["F16X2", from: CvtPair], &[op("d", D), op("a", S_INT)], optional 0, Fp32, Convert, [];
    /// `CVT.F16X2`'s conversion to bf16 halves (PTX `cvt.rn.bf16x2.e4m3x2`).
    CvtBf16x2Widen: "CVT" ["BF16X2", from: CvtPair], &[op("d", D), op("a", S_INT)], optional 0, Fp32, Convert, [];
    /// Stores 1, 2 or 4 8x8 matrices of 16-bit elements from `a` (a register each) to SHARED memory, `LDSM`'s inverse (PTX `stmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16`, SASS `STSM`): lanes 8j .. 8j + 7 give the 16-byte-aligned addresses of matrix j's rows, and every one of them must execute it. Lane `l`'s register j holds the 32-bit word `l % 4` of row `l / 4` of matrix j; with `T`, the elements of column `l / 4` in rows `2 (l % 4)` (low half) and `2 (l % 4) + 1`. Warp-collective.
    Stsm: "STSM" [count: MatrixCount, trans: Trans = No], &[op("addr", ADDR), op("a", src(LitKind::NoLiteral, SrcMods::Plain, Width::Matrices))], optional 0, LdSt, Memory, [STORE | COLLECTIVE], since Sm90;
    /// `d = ` the least or greatest f32 `a` over the guard-true lanes in this lane's member mask `m` (the whole warp when left out), -0 below +0 (PTX `redux.sync.{min,max}{.abs}{.NaN}.f32`, sm_100a; Triton's `tl.max` and `tl.min` of floats on Blackwell). NaNs are passed over, the canonical NaN `0x7FFFFFFF` only when every value is one; with `NAN` any NaN gives it. With `ABS`, of the values' magnitudes. Warp-collective.
    ReduxF32: "REDUX" [op: MinMax, "F32", abs: Magnitude = No, nan: NanProp = No], &[op("d", D), op("a", S_REG), op("m", S_MEMBERS)], optional 1, Int, Shuffle, [COLLECTIVE], since Sm100;
    /// `d = min(a, b)` in f32, -0 below +0, the canonical NaN `0x7FFFFFFF` when either is NaN (PTX `min.NaN.f32`; Triton's `tl.minimum(..., propagate_nan=ALL)`).
    FminNan: "FMIN" ["NAN", ftz: Ftz = No], DAB_F32, optional 0, Fp32, Fp32, [], since Sm80;
    /// `d = max(a, b)` in f32, +0 above -0, the canonical NaN `0x7FFFFFFF` when either is NaN (PTX `max.NaN.f32`).
    FmaxNan: "FMAX" ["NAN", ftz: Ftz = No], DAB_F32, optional 0, Fp32, Fp32, [], since Sm80;
    /// `HMIN2` on each half of the pair, `0x7FFF` in a half where either is NaN (PTX `min.NaN.{f16,bf16}{x2}`).
    Hmin2Nan: "HMIN2" ["NAN", ty: PackType = F16x2], DAB_INT, optional 0, Fp32, Fp32, [], since Sm80;
    /// `HMAX2` on each half of the pair, `0x7FFF` in a half where either is NaN (PTX `max.NaN.{f16,bf16}{x2}`).
    Hmax2Nan: "HMAX2" ["NAN", ty: PackType = F16x2], DAB_INT, optional 0, Fp32, Fp32, [], since Sm80;
}

/// Block barriers a block has (`BAR.SYNC a`, `BAR.ARRIVE a`: PTX's sixteen, 0 .. 15).
pub const BARRIERS: u32 = 16;

impl Opcode {
    /// This opcode's table row.
    pub fn info(self) -> &'static OpInfo {
        &TABLE[self as usize]
    }

    /// The opcode with encoding `byte`, if there is one.
    pub fn from_byte(byte: u8) -> Option<Self> {
        TABLE.get(usize::from(byte)).map(|row| row.opcode)
    }

    /// The row's semantic flags.
    pub fn flags(self) -> Flags {
        self.info().flags
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.info().full_mnemonic())
    }
}

impl Form {
    /// This form's table row.
    pub fn info(&self) -> &'static OpInfo {
        self.opcode().info()
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

    /// Every modifier spelling a row accepts: a value per group, or nothing for a group
    /// with a default (and for a flag's empty spelling).
    fn spellings(row: &OpInfo) -> Vec<Vec<&'static str>> {
        let mut all = vec![Vec::new()];
        for g in row.groups {
            let mut choices: Vec<Option<&str>> = g.names.iter().filter(|n| !n.is_empty()).map(|&n| Some(n)).collect();
            if g.default.is_some() {
                choices.push(None);
            }
            all = all.into_iter().flat_map(|base: Vec<&'static str>| choices.iter().map(move |c| base.iter().copied().chain(*c).collect())).collect();
        }
        all
    }

    /// An opcode is its row's place, written into every bytecode file, so rows are only ever
    /// added at the end. `opcodes.txt` lists the rows as they stood; the table starts with them.
    #[test]
    fn opcodes_keep_their_numbers() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/opcodes.txt");
        let recorded = std::fs::read_to_string(path).unwrap_or_default();
        let names: Vec<String> = TABLE.iter().map(|row| format!("{:?}", row.opcode)).collect();
        let old: Vec<&str> = recorded.lines().collect();
        for (i, (was, is)) in old.iter().zip(&names).enumerate() {
            assert_eq!(
                *was, is,
                "opcode {i} was {was} and is now {is}: a row was inserted or moved, and bytecode already written would decode differently; put new rows at the end of the table"
            );
        }
        assert!(old.len() <= names.len(), "rows {:?} are gone: bytecode using them would no longer decode", &old[names.len()..]);
        if old.len() < names.len() {
            assert!(std::env::var_os("SIMT_BLESS").is_some(), "new rows {:?}: run `SIMT_BLESS=1 cargo test -p simt-isa` to record them", &names[old.len()..]);
            let tmp = format!("{path}.tmp");
            std::fs::write(&tmp, names.join("\n") + "\n").expect("write opcodes.txt");
            std::fs::rename(&tmp, path).expect("rename opcodes.txt");
        }
    }

    #[test]
    fn groups_of_one_mnemonic_are_distinguishable() {
        // The assembler picks a row by trying every row of a mnemonic; two rows
        // that accept the same spelling would make that choice ambiguous.
        for a in TABLE {
            let accepted = spellings(a);
            for b in TABLE.iter().filter(|b| b.mnemonic == a.mnemonic && b.opcode != a.opcode) {
                for s in spellings(b) {
                    assert!(!accepted.contains(&s), "{} and {} both accept {}.{}", a.syntax(), b.syntax(), a.mnemonic, s.join("."));
                }
                assert_ne!(a.full_mnemonic(), b.full_mnemonic(), "statistics would merge {} and {}", a.syntax(), b.syntax());
            }
        }
    }

    #[test]
    fn every_form_round_trips_through_its_indices() {
        for row in TABLE {
            assert!(row.groups.len() <= 4, "{}: the encoding has room for 4 modifier groups", row.mnemonic);
            let mut indices = [0u8; 4];
            // Every value of every group, one group at a time.
            for (g, group) in row.groups.iter().enumerate() {
                for v in 0..group.names.len() as u8 {
                    indices[g] = v;
                    let form = Form::from_indices(row.opcode, indices).expect("in range");
                    assert_eq!(form.opcode(), row.opcode);
                    assert_eq!(form.indices(), indices, "{}", row.syntax());
                }
                indices[g] = group.names.len() as u8;
                assert_eq!(Form::from_indices(row.opcode, indices), None, "{}: value past the group", row.syntax());
                indices[g] = 0;
            }
            let defaults: Vec<u8> = row.groups.iter().map(|g| g.default.unwrap_or(0)).collect();
            assert_eq!(&Form::new(row.opcode).indices()[..defaults.len()], &defaults[..], "{}", row.syntax());
        }
    }

    #[test]
    fn syntax_lines_read_like_the_contract() {
        assert_eq!(Opcode::Isetp.info().syntax(), "ISETP.<EQ|NE|LT|LE|GT|GE>[.<S32|U32>][.<AND|OR|XOR>] p, a, b[, q]");
        assert_eq!(Opcode::VoteBallot.info().syntax(), "VOTE.BALLOT d, q");
        assert_eq!(Opcode::Fadd.info().syntax(), "FADD[.FTZ][.SAT] d, a, b");
        assert_eq!(Opcode::AtomCas.info().syntax(), "ATOM.<GLOBAL|SHARED|GENERIC>[.E].CAS.<B32|B64> d, [addr], b, c");
        assert_eq!(Opcode::AtomCas.to_string(), "ATOM.<space>.CAS");
        assert_eq!(Opcode::Ld.info().syntax(), "LD.<GLOBAL|SHARED|LOCAL|PARAM|GENERIC>[.E][.<V2|V4>].<U8|S8|U16|S16|U32|S32|B32|F32|B64|F64> d, [addr]");
        assert_eq!(Opcode::Cvt.info().syntax(), "CVT.<U32|S32|F32|F64|F16|BF16|S64|U64>.<U32|S32|F32|F64|F16|BF16|S64|U64>[.<RZ|RM|RP>] d, a");
        assert_eq!(Opcode::MmaSp.to_string(), "MMA.SP.M16N16K32");
        assert_eq!(Opcode::CvtX2.to_string(), "CVT.<to>.F32");
        assert_eq!(Opcode::CvtWiden.info().syntax(), "CVT.F32.<E4M3|E5M2|E2M1> d, a");
    }

    #[test]
    fn forms_record_the_generation_that_introduced_them() {
        let mma = |acc, input| Form::Mma(mods::Mma { acc, input });
        assert_eq!(mma(MmaAcc::F32, MmaIn::F16).since(), Target::Sm70);
        assert_eq!(mma(MmaAcc::F16, MmaIn::F16).since(), Target::Sm70);
        assert_eq!(mma(MmaAcc::S32, MmaIn::S8).since(), Target::Sm75);
        assert_eq!(mma(MmaAcc::S32, MmaIn::U4).since(), Target::Sm75);
        assert_eq!(mma(MmaAcc::F32, MmaIn::BF16).since(), Target::Sm80);
        assert_eq!(mma(MmaAcc::F32, MmaIn::TF32).since(), Target::Sm80);
        assert_eq!(mma(MmaAcc::F32, MmaIn::E4M3).since(), Target::Sm89);
        assert_eq!(mma(MmaAcc::F32, MmaIn::E5M2).since(), Target::Sm89);
        assert_eq!(mma(MmaAcc::F32, MmaIn::E2M1).since(), Target::Sm100);
        assert_eq!(Form::MmaM16n8k16(mods::MmaM16n8k16 { acc: MmaAcc::F32, input: MmaIn::F16 }).since(), Target::Sm80);
        assert_eq!(Form::MmaSp(mods::MmaSp { acc: MmaAcc::F32, input: MmaIn::F16 }).since(), Target::Sm80);
        assert_eq!(Form::MmaM8n8k4(mods::MmaM8n8k4 { acc: MmaAcc::F64, input: MmaIn::F64 }).since(), Target::Sm80);
        assert_eq!(Form::MmaM16n8k8(mods::MmaM16n8k8 { acc: MmaAcc::F32, input: MmaIn::TF32 }).since(), Target::Sm80);
        assert_eq!(Form::MmaM16n8k32(mods::MmaM16n8k32 { acc: MmaAcc::S32, input: MmaIn::S8, sat: Sat::Yes }).since(), Target::Sm80);
        assert_eq!(Form::MmaM16n8k32(mods::MmaM16n8k32 { acc: MmaAcc::F32, input: MmaIn::E4M3, sat: Sat::No }).since(), Target::Sm89);
        assert_eq!(Form::new(Opcode::CvtTf32).since(), Target::Sm80);
        assert_eq!(Form::CvtX2(mods::CvtX2 { to: CvtPair::E4M3x2 }).since(), Target::Sm89);
        assert_eq!(Form::CvtX2(mods::CvtX2 { to: CvtPair::E5M2x2 }).since(), Target::Sm89);
        assert_eq!(Form::CvtX2(mods::CvtX2 { to: CvtPair::E2M1x2 }).since(), Target::Sm100);
        assert_eq!(Form::CvtWiden(mods::CvtWiden { from: NarrowFloat::E5M2 }).since(), Target::Sm89);
        assert_eq!(Form::CvtWiden(mods::CvtWiden { from: NarrowFloat::E2M1 }).since(), Target::Sm100);
        assert_eq!(Form::new(Opcode::Cvt).since(), Target::Sm70);
        assert_eq!(Form::new(Opcode::Ffma).since(), Target::Sm70);
    }
}
