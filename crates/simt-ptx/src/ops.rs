//! Opcodes and their typed modifiers.
//!
//! The parser reads an opcode (`ld`), then its dotted words (`.global.v4.f32`) in any order,
//! maps each word to a [`Modifier`], and hands them to the opcode's builder here, which sorts
//! them into the fields of a typed struct: a space, a type, a rounding mode, flags. A word the
//! opcode does not take, or two of one kind, is a diagnostic naming it. Where PTX gives order a
//! meaning (`cvt.f32.s32`: destination, then source; `mma`'s four types; `.row.col`) the words
//! of that kind are taken in source order.

use std::fmt;

use simt_isa::{MmaScaledKind, TcScaledKind};

use crate::ast::Span;

macro_rules! modifiers {
    ($($variant:ident = $text:literal,)*) => {
        /// Every dotted word an instruction may carry.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum Modifier { $($variant,)* }

        impl Modifier {
            /// The modifier spelled `text` (with its dot), if PTX has one.
            pub fn from_text(text: &str) -> Option<Modifier> {
                match text {
                    $($text => Some(Modifier::$variant),)*
                    _ => None,
                }
            }

            /// Its spelling, with the dot.
            pub fn text(self) -> &'static str {
                match self { $(Modifier::$variant => $text,)* }
            }
        }
    };
}

modifiers! {
    B8 = ".b8", B16 = ".b16", B32 = ".b32", B64 = ".b64", B128 = ".b128",
    U8 = ".u8", U16 = ".u16", U32 = ".u32", U64 = ".u64",
    S8 = ".s8", S16 = ".s16", S32 = ".s32", S64 = ".s64",
    F16 = ".f16", F16x2 = ".f16x2", Bf16 = ".bf16", Bf16x2 = ".bf16x2", Tf32 = ".tf32",
    F32 = ".f32", F64 = ".f64", Pred = ".pred", E4m3 = ".e4m3", E5m2 = ".e5m2", E4m3x2 = ".e4m3x2", E5m2x2 = ".e5m2x2", E2m1x2 = ".e2m1x2", E2m1 = ".e2m1", E2m3 = ".e2m3", E3m2 = ".e3m2", F32x2 = ".f32x2", U16x2 = ".u16x2", S16x2 = ".s16x2",
    Rn = ".rn", Rz = ".rz", Rm = ".rm", Rp = ".rp", Rna = ".rna",
    Rni = ".rni", Rzi = ".rzi", Rmi = ".rmi", Rpi = ".rpi",
    Global = ".global", Shared = ".shared", Local = ".local", Param = ".param", Const = ".const", Reg = ".reg",
    V2 = ".v2", V4 = ".v4", V8 = ".v8",
    Cta = ".cta", Gpu = ".gpu", Sys = ".sys", Cluster = ".cluster", Gl = ".gl",
    Volatile = ".volatile", Relaxed = ".relaxed", Acquire = ".acquire", Release = ".release",
    AcqRel = ".acq_rel", Sc = ".sc", Weak = ".weak", Mmio = ".mmio",
    Ca = ".ca", Cg = ".cg", Cs = ".cs", Lu = ".lu", Cv = ".cv", Wb = ".wb", Wt = ".wt",
    Eq = ".eq", Ne = ".ne", Lt = ".lt", Le = ".le", Gt = ".gt", Ge = ".ge",
    Lo = ".lo", Ls = ".ls", Hi = ".hi", Hs = ".hs",
    Equ = ".equ", Neu = ".neu", Ltu = ".ltu", Leu = ".leu", Gtu = ".gtu", Geu = ".geu", Num = ".num", Nan = ".nan",
    And = ".and", Or = ".or", Xor = ".xor", Add = ".add", Inc = ".inc", Dec = ".dec",
    Min = ".min", Max = ".max", Exch = ".exch", Cas = ".cas", Popc = ".popc",
    Wide = ".wide",
    Up = ".up", Down = ".down", Bfly = ".bfly", Idx = ".idx",
    All = ".all", Any = ".any", Uni = ".uni", Ballot = ".ballot",
    Ftz = ".ftz", Sat = ".sat", Approx = ".approx", Full = ".full", Cc = ".cc",
    Sync = ".sync", Aligned = ".aligned", Nc = ".nc", To = ".to", Relu = ".relu",
    Satfinite = ".satfinite", Noftz = ".noftz", Warp = ".warp", Arrive = ".arrive", Red = ".red",
    L = ".l", R = ".r", Wrap = ".wrap", Clamp = ".clamp", Shiftamt = ".shiftamt",
    F4e = ".f4e", B4e = ".b4e", Rc8 = ".rc8", Ecl = ".ecl", Ecr = ".ecr", Rc16 = ".rc16",
    M16n8k16 = ".m16n8k16", M16n8k8 = ".m16n8k8", M8n8k4 = ".m8n8k4", M16n8k32 = ".m16n8k32", M16n8k64 = ".m16n8k64",
    ScaleVec1x = ".scale_vec::1X", ScaleVec2x = ".scale_vec::2X", ScaleVec4x = ".scale_vec::4X", Ue8m0 = ".ue8m0", Ue4m3 = ".ue4m3",
    Row = ".row", Col = ".col",
    Async = ".async", CommitGroup = ".commit_group", WaitGroup = ".wait_group", WaitAll = ".wait_all",
    M8n8 = ".m8n8", X1 = ".x1", X2 = ".x2", X4 = ".x4", Trans = ".trans",
    Load = ".load", Store = ".store", Mma = ".mma", A = ".a", B = ".b", C = ".c", D = ".d", M16n16k16 = ".m16n16k16",
    MmaAsync = ".mma_async", Fence = ".fence", Proxy = ".proxy",
    Init = ".init", Inval = ".inval", ExpectTx = ".expect_tx", CompleteTx = ".complete_tx", ArriveDrop = ".arrive_drop",
    TestWait = ".test_wait", TryWait = ".try_wait", Parity = ".parity", PendingCount = ".pending_count",
    Bulk = ".bulk", Tensor = ".tensor", Tile = ".tile", BulkGroup = ".bulk_group", Read = ".read",
    D1 = ".1d", D2 = ".2d", D3 = ".3d", D4 = ".4d", D5 = ".5d",
    MbarrierCompleteTx = ".mbarrier::complete_tx::bytes",
    TensormapGeneric = ".tensormap::generic", Replace = ".replace", CpFenceproxy = ".cp_fenceproxy", B1024 = ".b1024",
    GlobalAddress = ".global_address", Rank = ".rank", BoxDim = ".box_dim", GlobalDim = ".global_dim",
    GlobalStride = ".global_stride", ElementStride = ".element_stride", Elemtype = ".elemtype",
    InterleaveLayout = ".interleave_layout", SwizzleMode = ".swizzle_mode", SwizzleAtomicity = ".swizzle_atomicity",
    FillMode = ".fill_mode",
    LaunchDependents = ".launch_dependents", Wait = ".wait", Xorsign = ".xorsign", Abs = ".abs", NanProp = ".NaN",
    L1EvictNormal = ".L1::evict_normal", L1EvictUnchanged = ".L1::evict_unchanged", L1EvictFirst = ".L1::evict_first",
    L1EvictLast = ".L1::evict_last", L1NoAllocate = ".L1::no_allocate",
    L2EvictNormal = ".L2::evict_normal", L2EvictUnchanged = ".L2::evict_unchanged", L2EvictFirst = ".L2::evict_first",
    L2EvictLast = ".L2::evict_last", L2CacheHint = ".L2::cache_hint",
    L2Prefetch64 = ".L2::64B", L2Prefetch128 = ".L2::128B", L2Prefetch256 = ".L2::256B", Fractional = ".fractional",
    // `tcgen05` (sm_100a).
    Alloc = ".alloc", Dealloc = ".dealloc", RelinquishAllocPermit = ".relinquish_alloc_permit", Ld = ".ld", St = ".st", Commit = ".commit",
    WaitLd = ".wait::ld", WaitSt = ".wait::st", FenceBeforeThreadSync = ".fence::before_thread_sync", FenceAfterThreadSync = ".fence::after_thread_sync",
    CtaGroup1 = ".cta_group::1", CtaGroup2 = ".cta_group::2",
    KindF16 = ".kind::f16", KindTf32 = ".kind::tf32", KindF8f6f4 = ".kind::f8f6f4", KindI8 = ".kind::i8",
    KindMxf8f6f4 = ".kind::mxf8f6f4", KindMxf4 = ".kind::mxf4", KindMxf4nvf4 = ".kind::mxf4nvf4", BlockScale = ".block_scale",
    Block16 = ".block16", Block32 = ".block32", Ws = ".ws",
    Shape32x32b = ".32x32b", Shape16x64b = ".16x64b", Shape16x128b = ".16x128b", Shape16x256b = ".16x256b", Shape16x32bx2 = ".16x32bx2",
    X8 = ".x8", X16 = ".x16", X32 = ".x32", X64 = ".x64", X128 = ".x128",
    Pack16b = ".pack::16b", Unpack16b = ".unpack::16b", MbarrierArriveOne = ".mbarrier::arrive::one", MulticastCluster = ".multicast::cluster",
    // `wgmma`'s `.m64nNkK`, whose N and K the parser keeps beside the modifiers (`Modifiers::shape`).
    M64nNkK = ".m64nNkK",
}

impl fmt::Display for Modifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

/// A kind of modifier: an enum whose variants are some of [`Modifier`]'s, spelled the same.
macro_rules! class {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident,)* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vmeta])* $variant,)* }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The value `modifier` spells, if it is of this kind.
            pub fn from_modifier(modifier: Modifier) -> Option<$name> {
                match modifier {
                    $(Modifier::$variant => Some($name::$variant),)*
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }

            /// The modifier that spells it.
            pub fn modifier(self) -> Modifier {
                match self { $($name::$variant => Modifier::$variant,)* }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.modifier().text())
            }
        }
    };
}

class! {
    /// An instruction, register or variable type.
    Type {
        /// Untyped 8 bits.
        B8, /// Untyped 16 bits.
        B16, /// Untyped 32 bits.
        B32, /// Untyped 64 bits.
        B64, /// Untyped 128 bits.
        B128, /// Unsigned 8 bits.
        U8, /// Unsigned 16 bits.
        U16, /// Unsigned 32 bits.
        U32, /// Unsigned 64 bits.
        U64, /// Signed 8 bits.
        S8, /// Signed 16 bits.
        S16, /// Signed 32 bits.
        S32, /// Signed 64 bits.
        S64, /// IEEE half.
        F16, /// Two IEEE halves in 32 bits.
        F16x2, /// bfloat16.
        Bf16, /// Two bfloat16 in 32 bits.
        Bf16x2, /// TensorFloat-32 in 32 bits.
        Tf32, /// IEEE single.
        F32, /// IEEE double.
        F64, /// A predicate.
        Pred, /// FP8 with 4 exponent bits (`mma` inputs only).
        E4m3, /// FP8 with 5 exponent bits (`mma` inputs only).
        E5m2, /// Two FP8 with 4 exponent bits in 16 bits (`cvt` only).
        E4m3x2, /// Two FP8 with 5 exponent bits in 16 bits (`cvt` only).
        E5m2x2, /// Two FP4 (E2M1) in 8 bits, the first in the low nibble (`cvt` only).
        E2m1x2, /// FP4 (E2M1), two a byte (block-scaled `mma` inputs only).
        E2m1, /// FP6 with 2 exponent bits (block-scaled `mma` inputs only, a byte each).
        E2m3, /// FP6 with 3 exponent bits (block-scaled `mma` inputs only, a byte each).
        E3m2, /// Two IEEE singles in 64 bits (sm_100's `add.f32x2`).
        F32x2, /// Two unsigned 16-bit integers in 32 bits (sm_90's `min`/`max.u16x2`).
        U16x2, /// Two signed 16-bit integers in 32 bits.
        S16x2,
    }
}

impl Type {
    /// Size in bits (a predicate counts 1).
    pub fn bits(self) -> u32 {
        use Type::*;
        match self {
            Pred => 1,
            E2m1 => 4,
            E2m3 | E3m2 => 6,
            B8 | U8 | S8 | E4m3 | E5m2 | E2m1x2 => 8,
            B16 | U16 | S16 | F16 | Bf16 | E4m3x2 | E5m2x2 => 16,
            B32 | U32 | S32 | F16x2 | Bf16x2 | Tf32 | F32 | U16x2 | S16x2 => 32,
            B64 | U64 | S64 | F64 | F32x2 => 64,
            B128 => 128,
        }
    }

    /// Signed integer.
    pub fn is_signed(self) -> bool {
        matches!(self, Type::S8 | Type::S16 | Type::S32 | Type::S64)
    }

    /// Signed, unsigned or untyped integer.
    pub fn is_integer(self) -> bool {
        use Type::*;
        matches!(self, B8 | B16 | B32 | B64 | B128 | U8 | U16 | U32 | U64 | S8 | S16 | S32 | S64)
    }

    /// A floating-point type (including the packed pairs).
    pub fn is_float(self) -> bool {
        use Type::*;
        matches!(self, F16 | F16x2 | Bf16 | Bf16x2 | Tf32 | F32 | F64 | F32x2)
    }
}

class! {
    /// A rounding mode: the first five for floating-point results, the `i` forms round to an integer.
    Rounding {
        /// To nearest, ties to even.
        Rn, /// Towards zero.
        Rz, /// Towards minus infinity.
        Rm, /// Towards plus infinity.
        Rp, /// To nearest, ties away from zero.
        Rna, /// To the nearest integer, ties to even.
        Rni, /// To an integer towards zero.
        Rzi, /// To an integer towards minus infinity.
        Rmi, /// To an integer towards plus infinity.
        Rpi,
    }
}

impl Rounding {
    /// `.rni`, `.rzi`, `.rmi` or `.rpi`.
    pub fn is_integer(self) -> bool {
        matches!(self, Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi)
    }
}

class! {
    /// A state space. Memory instructions without one use generic addressing.
    StateSpace {
        /// Device memory.
        Global, /// Per-block memory.
        Shared, /// Per-thread memory.
        Local, /// Kernel and call parameters.
        Param, /// Constant memory.
        Const, /// Registers (only in declarations and `.func` parameters).
        Reg,
    }
}

class! {
    /// A vector width.
    Vector {
        /// Two elements.
        V2, /// Four elements.
        V4, /// Eight elements.
        V8,
    }
}

impl Vector {
    /// The number of elements.
    pub fn len(self) -> usize {
        match self {
            Vector::V2 => 2,
            Vector::V4 => 4,
            Vector::V8 => 8,
        }
    }

    /// Never: a vector has at least two elements.
    pub fn is_empty(self) -> bool {
        false
    }
}

class! {
    /// The set of threads a memory ordering applies to.
    Scope {
        /// The block.
        Cta, /// The device.
        Gpu, /// The system.
        Sys, /// The cluster.
        Cluster,
    }
}

class! {
    /// `membar`'s level.
    MembarLevel {
        /// The block.
        Cta, /// The device.
        Gl, /// The system.
        Sys,
    }
}

class! {
    /// Memory-consistency semantics of a load, store, atomic or fence.
    Semantics {
        /// `.volatile`.
        Volatile, /// `.relaxed`.
        Relaxed, /// `.acquire`.
        Acquire, /// `.release`.
        Release, /// `.acq_rel`.
        AcqRel, /// `.sc`.
        Sc, /// `.weak` (the default of plain loads and stores).
        Weak, /// `.mmio`.
        Mmio,
    }
}

class! {
    /// An eviction priority for L1 (`ld.L1::evict_last`) or, in `createpolicy`, for L2: hints
    /// about what to keep cached, which change no value.
    Eviction {
        /// As usual.
        L1EvictNormal, /// Keep the line's priority.
        L1EvictUnchanged, /// Evict first.
        L1EvictFirst, /// Evict last.
        L1EvictLast, /// Do not allocate in L1.
        L1NoAllocate,
    }
}

class! {
    /// `createpolicy`'s L2 eviction priorities.
    L2Eviction {
        /// As usual.
        L2EvictNormal, /// Keep the line's priority.
        L2EvictUnchanged, /// Evict first.
        L2EvictFirst, /// Evict last.
        L2EvictLast,
    }
}

class! {
    /// How much an `ld` may prefetch into L2 around what it reads (a hint).
    L2Prefetch {
        /// 64 bytes.
        L2Prefetch64, /// 128 bytes.
        L2Prefetch128, /// 256 bytes.
        L2Prefetch256,
    }
}

class! {
    /// A cache operator of `ld` and `st`.
    CacheOp {
        /// Cache at all levels.
        Ca, /// Cache in L2 only.
        Cg, /// Streaming.
        Cs, /// Last use.
        Lu, /// Do not cache, fetch again.
        Cv, /// Write back.
        Wb, /// Write through.
        Wt,
    }
}

class! {
    /// A comparison of `setp` and `set`: signed/float, unsigned, and unordered float forms.
    CmpOp {
        /// Equal.
        Eq, /// Not equal.
        Ne, /// Less than.
        Lt, /// Less or equal.
        Le, /// Greater than.
        Gt, /// Greater or equal.
        Ge, /// Unsigned lower.
        Lo, /// Unsigned lower or same.
        Ls, /// Unsigned higher.
        Hi, /// Unsigned higher or same.
        Hs, /// Equal or unordered.
        Equ, /// Not equal or unordered.
        Neu, /// Less than or unordered.
        Ltu, /// Less or equal or unordered.
        Leu, /// Greater than or unordered.
        Gtu, /// Greater or equal or unordered.
        Geu, /// Both numbers.
        Num, /// Either is NaN.
        Nan,
    }
}

class! {
    /// How `setp` and `set` combine the comparison with a predicate operand.
    BoolOp {
        /// And.
        And, /// Or.
        Or, /// Exclusive or.
        Xor,
    }
}

class! {
    /// The operation of `atom` and `red`.
    AtomOp {
        /// Bitwise and.
        And, /// Bitwise or.
        Or, /// Bitwise exclusive or.
        Xor, /// Addition.
        Add, /// Wrapping increment.
        Inc, /// Wrapping decrement.
        Dec, /// Minimum.
        Min, /// Maximum.
        Max, /// Exchange.
        Exch, /// Compare and swap.
        Cas,
    }
}

class! {
    /// The operation of `redux.sync`.
    ReduxOp {
        /// Sum.
        Add, /// Minimum.
        Min, /// Maximum.
        Max, /// Bitwise and.
        And, /// Bitwise or.
        Or, /// Bitwise exclusive or.
        Xor,
    }
}

class! {
    /// Which part of an integer product `mul` and `mad` keep.
    MulMode {
        /// The low half.
        Lo, /// The high half.
        Hi, /// The whole product, twice as wide.
        Wide,
    }
}

class! {
    /// Where `shfl` reads from.
    ShflMode {
        /// Lane minus delta.
        Up, /// Lane plus delta.
        Down, /// Lane xor mask.
        Bfly, /// A given lane.
        Idx,
    }
}

class! {
    /// What `vote` computes.
    VoteMode {
        /// Every lane's predicate is true.
        All, /// Some lane's predicate is true.
        Any, /// Every lane agrees.
        Uni, /// The predicates as a 32-bit mask.
        Ballot,
    }
}

class! {
    /// What `match.sync` computes.
    MatchMode {
        /// The lanes holding the same value as this one.
        Any, /// The mask if every lane holds the same value, else 0.
        All,
    }
}

class! {
    /// The special byte-selection modes of `prmt`.
    PrmtMode {
        /// Forward 4 extract.
        F4e, /// Backward 4 extract.
        B4e, /// Replicate 8.
        Rc8, /// Edge clamp left.
        Ecl, /// Edge clamp right.
        Ecr, /// Replicate 16.
        Rc16,
    }
}

class! {
    /// The direction of a funnel shift.
    ShfDirection {
        /// Left.
        L, /// Right.
        R,
    }
}

class! {
    /// How a funnel shift treats its amount.
    ShfMode {
        /// Modulo 32.
        Wrap, /// Clamped to 32.
        Clamp,
    }
}

class! {
    /// The shape of a matrix multiply-accumulate.
    MmaShape {
        /// 16x8 by 8x16.
        M16n8k16, /// 16x8 by 8x8.
        M16n8k8, /// 8x8 by 8x4.
        M8n8k4, /// 16x8 by 8x32.
        M16n8k32, /// 16x8 by 8x64 (E2M1 pairs, block-scaled only).
        M16n8k64,
    }
}

class! {
    /// A fragment layout of `mma`.
    Layout {
        /// Row-major.
        Row, /// Column-major.
        Col,
    }
}

class! {
    /// The reduction of `bar.red`.
    BarReduction {
        /// Count the true predicates.
        Popc, /// All true.
        And, /// Any true.
        Or,
    }
}

/// Integer and floating-point arithmetic: `add`, `sub`, `addc`, `subc`, `neg`, `abs`, `min`, `max`, `fma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Arith {
    /// The operand type.
    pub ty: Type,
    /// `.rn` etc. on floating-point forms.
    pub rounding: Option<Rounding>,
    /// Flush subnormal inputs and results to zero.
    pub ftz: bool,
    /// Saturate (`.s32` clamps; floats clamp to [0, 1]).
    pub sat: bool,
    /// Write (`add.cc`) the carry flag; `addc` also reads it.
    pub cc: bool,
    /// `min`/`max` `.xorsign.abs`: of the magnitudes, with the XOR of the signs.
    pub xorsign_abs: bool,
    /// `min`/`max` `.NaN`: NaN when either operand is.
    pub nan: bool,
    /// `min`/`max` `.relu` (`.s32`, `.s16x2`; sm_90): negative results become 0.
    pub relu: bool,
    /// Mixed precision (`add.rn.f32.f16 d, a, c`, sm_100): the type of the `.f16` or `.bf16`
    /// operands (`a`; `fma`'s `a` and `b`), widened to `ty`, `.f32`.
    pub narrow: Option<Type>,
}

/// `mul` and `mad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mul {
    /// The operand type.
    pub ty: Type,
    /// Integer forms: which part of the product.
    pub mode: Option<MulMode>,
    /// Floating-point forms: the rounding.
    pub rounding: Option<Rounding>,
    /// Flush subnormals.
    pub ftz: bool,
    /// Saturate.
    pub sat: bool,
    /// Write the carry flag (`mad.lo.cc`).
    pub cc: bool,
}

/// `dp4a.atype.btype` and `dp2a.{lo,hi}.atype.btype`: integer dot products.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dot {
    /// `dp2a`: whether `.hi` (bytes 2 and 3 of `b`) rather than `.lo`.
    pub hi: bool,
    /// How `a`'s parts extend (`.u32` or `.s32`).
    pub a: Type,
    /// How `b`'s bytes extend.
    pub b: Type,
}

/// `div`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Div {
    /// The operand type.
    pub ty: Type,
    /// Floating-point forms: `.approx`, `.full` or a rounding; integer forms have none.
    pub mode: Option<FloatMode>,
    /// Flush subnormals.
    pub ftz: bool,
}

/// How a floating-point function is evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatMode {
    /// `.approx`: the fast hardware approximation.
    Approx,
    /// `.full` (`div.full.f32`): an approximation with a documented error bound.
    Full,
    /// Exactly rounded in the given mode.
    Rounded(Rounding),
}

/// `rcp`, `sqrt`, `rsqrt`, `ex2`, `lg2`, `sin`, `cos`, `tanh`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatFn {
    /// The operand type.
    pub ty: Type,
    /// Approximate or rounded.
    pub mode: FloatMode,
    /// Flush subnormals.
    pub ftz: bool,
}

/// Instructions whose only modifier is a type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Typed {
    /// The operand type.
    pub ty: Type,
}

/// `bfind[.shiftamt].type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bfind {
    /// The left shift that moves the bit found to the top, rather than its position.
    pub shiftamt: bool,
    /// The operand type.
    pub ty: Type,
}

/// `prmt.b32[.mode]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Prmt {
    /// A special mode; `None` selects bytes by the selector's nibbles.
    pub mode: Option<PrmtMode>,
}

/// `shf.{l,r}.{wrap,clamp}.b32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shf {
    /// Left or right.
    pub direction: ShfDirection,
    /// Wrap or clamp the amount.
    pub mode: ShfMode,
}

/// `setp.cmp[.bool].type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Setp {
    /// The comparison.
    pub cmp: CmpOp,
    /// Combined with a fourth, predicate operand.
    pub combine: Option<BoolOp>,
    /// Flush subnormals.
    pub ftz: bool,
    /// The type compared.
    pub ty: Type,
}

/// `set.cmp[.bool].dtype.stype`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Set {
    /// The comparison.
    pub cmp: CmpOp,
    /// Combined with a fourth, predicate operand.
    pub combine: Option<BoolOp>,
    /// Flush subnormals.
    pub ftz: bool,
    /// The result type (all ones or 1.0 for true).
    pub dst: Type,
    /// The type compared.
    pub src: Type,
}

/// `cvt[.rnd][.ftz][.sat][.relu].dtype.atype`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cvt {
    /// The result type.
    pub dst: Type,
    /// The source type.
    pub src: Type,
    /// The rounding (float-to-int conversions use the `i` forms).
    pub rounding: Option<Rounding>,
    /// Flush subnormals.
    pub ftz: bool,
    /// Saturate to the destination's range.
    pub sat: bool,
    /// Clamp negative results to zero.
    pub relu: bool,
    /// `.satfinite`: clamp to the largest finite value (FP8 results must say so).
    pub satfinite: bool,
}

/// `cvta[.to].space.size`: between a space's addresses and generic ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cvta {
    /// `.to`: generic to the space; otherwise the space to generic.
    pub to: bool,
    /// The space.
    pub space: StateSpace,
    /// `.u32` or `.u64`.
    pub ty: Type,
}

/// `ld` and `st`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Memory {
    /// The space; `None` is a generic address.
    pub space: Option<StateSpace>,
    /// `.volatile`, `.relaxed`, `.acquire`, `.release`, `.weak`, `.mmio`.
    pub semantics: Option<Semantics>,
    /// The scope of `.relaxed`/`.acquire`/`.release`.
    pub scope: Option<Scope>,
    /// `ld.global.nc`: through the non-coherent (texture) cache.
    pub nc: bool,
    /// A cache operator.
    pub cache: Option<CacheOp>,
    /// `.L1::evict_*`, `.L1::no_allocate`: a hint.
    pub eviction: Option<Eviction>,
    /// `.L2::64B` and the like: a hint.
    pub prefetch: Option<L2Prefetch>,
    /// `.L2::cache_hint`: a last operand gives a cache policy (`createpolicy`'s), a hint.
    pub cache_hint: bool,
    /// `.v2`/`.v4`: several consecutive elements.
    pub vector: Option<Vector>,
    /// The element type.
    pub ty: Type,
}

/// `atom` and `red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Atom {
    /// The space; `None` is a generic address.
    pub space: Option<StateSpace>,
    /// `.relaxed`, `.acquire`, `.release`, `.acq_rel`.
    pub semantics: Option<Semantics>,
    /// The scope.
    pub scope: Option<Scope>,
    /// The operation.
    pub op: AtomOp,
    /// `.v2`/`.v4` (floating-point adds on sm_90).
    pub vector: Option<Vector>,
    /// The element type.
    pub ty: Type,
    /// `.noftz` on half-precision adds.
    pub noftz: bool,
}

/// Which barrier instruction family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarSpelling {
    /// `bar`: `bar.sync` is `barrier.sync.aligned`.
    Bar,
    /// `barrier`: `.aligned` only when written.
    Barrier,
}

/// What a barrier does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarAction {
    /// Wait until the expected threads arrive.
    Sync,
    /// Arrive without waiting.
    Arrive,
    /// Wait, and reduce a predicate over the arriving threads.
    Red(BarReduction),
}

/// `bar.sync`, `bar.arrive`, `bar.red`, `barrier.sync[.aligned]`, ...
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bar {
    /// `bar` or `barrier`.
    pub spelling: BarSpelling,
    /// Sync, arrive or reduce.
    pub action: BarAction,
    /// `.aligned`: every thread of the warp executes the same barrier (implied by `bar`).
    pub aligned: bool,
    /// The result type of `bar.red` (`.u32` for popc, `.pred` otherwise).
    pub ty: Option<Type>,
}

/// `membar.level`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Membar {
    /// The level.
    pub level: MembarLevel,
}

/// `fence[.sem].scope`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fence {
    /// `.sc` or `.acq_rel` (the default).
    pub semantics: Semantics,
    /// The scope.
    pub scope: Scope,
}

/// `shfl[.sync].mode.b32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shfl {
    /// Where to read from.
    pub mode: ShflMode,
    /// `.b32`.
    pub ty: Type,
    /// `.sync`: takes a member mask (the form without it is deprecated, and absent from sm_70 on).
    pub sync: bool,
}

/// `vote[.sync].mode.type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Vote {
    /// What it computes.
    pub mode: VoteMode,
    /// `.pred`, or `.b32` for ballot.
    pub ty: Type,
    /// `.sync`: takes a member mask.
    pub sync: bool,
}

/// `redux.sync.op.type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Redux {
    /// The reduction.
    pub op: ReduxOp,
    /// `.abs` (`.f32` only): of the values' magnitudes.
    pub abs: bool,
    /// `.NaN` (`.f32` only): NaN when any value is.
    pub nan: bool,
    /// `.u32`, `.s32`, `.b32` or (sm_100a) `.f32`.
    pub ty: Type,
}

/// `match.mode.sync.type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Match {
    /// Any or all.
    pub mode: MatchMode,
    /// `.b32` or `.b64`.
    pub ty: Type,
}

/// `bra`, `call` and `ret`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Control {
    /// `.uni`: every active thread goes the same way.
    pub uni: bool,
}

/// `mma.sync.aligned.shape.alayout.blayout[.satfinite].dtype.atype.btype.ctype`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mma {
    /// The shape.
    pub shape: MmaShape,
    /// A's layout.
    pub a_layout: Layout,
    /// B's layout.
    pub b_layout: Layout,
    /// The result type.
    pub d: Type,
    /// A's element type.
    pub a: Type,
    /// B's element type.
    pub b: Type,
    /// The accumulator type.
    pub c: Type,
    /// `.satfinite` (integer forms clamp instead of wrapping).
    pub satfinite: bool,
    /// `.kind::mxf8f6f4`, `::mxf4` or `::mxf4nvf4` with `.block_scale`: the kind, as the
    /// `.scale_vec` and scale type make it.
    pub scale: Option<MmaScaledKind>,
    /// `.kind::f8f6f4` (sm_120a, no scales): A and B of any 8-, 6- or 4-bit float, a byte each.
    pub f8f6f4: bool,
}

/// An opcode with its typed modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // each variant is the instruction of the same name
pub enum Op {
    Add(Arith),
    Sub(Arith),
    AddC(Arith),
    SubC(Arith),
    Mul(Mul),
    Mad(Mul),
    /// `madc`: `mad` that also adds the carry flag.
    MadC(Mul),
    Mul24(Mul),
    Mad24(Mul),
    Sad(Typed),
    Dp4a(Dot),
    Dp2a(Dot),
    Fma(Arith),
    Div(Div),
    Rem(Typed),
    Neg(Arith),
    Abs(Arith),
    Min(Arith),
    Max(Arith),
    And(Typed),
    Or(Typed),
    Xor(Typed),
    Not(Typed),
    Cnot(Typed),
    Shl(Typed),
    Shr(Typed),
    Shf(Shf),
    Popc(Typed),
    Clz(Typed),
    Brev(Typed),
    Bfind(Bfind),
    Copysign(Typed),
    Bfe(Typed),
    Bfi(Typed),
    Lop3(Typed),
    Prmt(Prmt),
    Setp(Setp),
    Set(Set),
    Selp(Typed),
    Rcp(FloatFn),
    Sqrt(FloatFn),
    Rsqrt(FloatFn),
    Ex2(FloatFn),
    Lg2(FloatFn),
    Sin(FloatFn),
    Cos(FloatFn),
    Tanh(FloatFn),
    Cvt(Cvt),
    Cvta(Cvta),
    /// `isspacep.space p, a`: whether generic address `a` points into the space.
    Isspacep(StateSpace),
    Mov(Typed),
    Ld(Memory),
    St(Memory),
    Atom(Atom),
    Red(Atom),
    Bar(Bar),
    /// `bar.warp.sync mask`.
    BarWarpSync,
    Membar(Membar),
    Fence(Fence),
    Shfl(Shfl),
    Vote(Vote),
    /// `activemask.b32 d`.
    Activemask,
    Redux(Redux),
    Match(Match),
    Bra(Control),
    /// `brx.idx{.uni} index, list`: a branch to label `index` of a `.branchtargets` list.
    Brx(Control),
    Call(Control),
    Ret(Control),
    Exit,
    Trap,
    /// `nanosleep.u32 t`: sleep up to `2 t` nanoseconds (`__nanosleep`).
    Nanosleep(Typed),
    Mma(Mma),
    /// `cp.async.ca|cg.shared.global [dst], [src], cp-size{, src-size}`: copies global memory
    /// to shared memory (asynchronously on hardware).
    CpAsync(CpAsync),
    /// `cp.async.commit_group`: closes a group of `cp.async`s.
    CpAsyncCommit,
    /// `cp.async.wait_group N` (`wait_all`: `None`): waits for the groups but the last `N`.
    CpAsyncWait {
        /// `wait_all` rather than `wait_group N`.
        all: bool,
    },
    /// `ldmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16 d, [a]`: each lane gives a row address
    /// of an 8x8 matrix of 16-bit elements; each lane gets two elements of each matrix.
    Ldmatrix(Matrices),
    Wmma(Wmma),
    /// `stmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16 [a], s` (sm_90): `ldmatrix`'s inverse,
    /// each lane's two elements of each matrix stored where `ldmatrix` would load them from.
    Stmatrix(Matrices),
    /// `wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype d, a, b, scale-d{, imm-scale-a,
    /// imm-scale-b{, imm-trans-a}{, imm-trans-b}}` (sm_90a): a warpgroup's MMA.
    Wgmma(Wgmma),
    /// `wgmma.fence.sync.aligned`, `wgmma.commit_group.sync.aligned` and `wgmma.wait_group.sync.aligned N`:
    /// ordering around the asynchronous MMAs.
    WgmmaOrder(WgmmaOrder),
    /// `fence.proxy.async{.shared::cta}`: orders generic-proxy writes before async-proxy reads;
    /// `fence.proxy.tensormap::generic.{release,acquire}.scope{ [a], 128}` (`tensormap`): a
    /// tensor map's writes before the copies that read it.
    FenceProxy {
        /// `.tensormap::generic` rather than `.async`.
        tensormap: bool,
    },
    /// `tensormap.replace.tile.field.space.b1024.type [a], {ord,} new_val` (sm_90a): one field
    /// of the tensor map at `a`.
    TensormapReplace {
        /// Which field.
        field: TensormapField,
        /// In GLOBAL memory rather than SHARED.
        global: bool,
    },
    /// `tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned
    /// [dst], [src], 128` (sm_90a): a warp copies a tensor map from shared to global memory.
    TensormapCopy,
    /// `mbarrier.<action>{.sem}{.scope}.shared{::cta}.b64 ...` (sm_80; the transaction counts sm_90).
    Mbarrier(MbarrierAction),
    /// `tcgen05.*` (sm_100a): tensor memory and the MMAs that accumulate in it.
    Tcgen05(Tcgen05),
    /// `elect.sync d|p, membermask` (sm_90): one leader among the member lanes that execute it.
    Elect,
    /// `setmaxnreg.{inc,dec}.sync.aligned.u32 N` (sm_90a): a warpgroup asks for more or fewer
    /// registers per thread (warp-specialized kernels give their producer warps fewer).
    Setmaxnreg {
        /// `.inc` rather than `.dec`.
        increase: bool,
    },
    /// `createpolicy.fractional.L2::evict_*{.L2::evict_*}.b64 d, fraction` (sm_80): a cache
    /// policy for `.L2::cache_hint` accesses (Triton's `eviction_policy`).
    Createpolicy,
    /// `griddepcontrol.{wait,launch_dependents}` (sm_90): programmatic dependent launch, a
    /// kernel waiting for the grid before it, or letting the next one start.
    Griddepcontrol {
        /// `.wait` rather than `.launch_dependents`.
        wait: bool,
    },
    /// `cp.async.bulk.tensor.Nd` (sm_90): a box of a tensor between global and shared memory
    /// through a tensor map, `.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dst],
    /// [map, {coords}], [mbar]` (`load`) or `.global.shared::cta.tile.bulk_group [map, {coords}], [src]`.
    CpAsyncBulkTensor {
        /// How many coordinates name the box.
        rank: u8,
        /// From global memory into shared memory, rather than out of it.
        load: bool,
    },
    /// `cp.async.bulk.commit_group` and `cp.async.bulk.wait_group{.read} N`: groups of bulk copies.
    CpAsyncBulkOrder {
        /// `wait_group` rather than `commit_group`.
        wait: bool,
    },
}

/// A field of a tensor map that `tensormap.replace` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensormapField {
    /// `.global_address`: the tensor's.
    GlobalAddress,
    /// `.rank`: its dimensions less one.
    Rank,
    /// `.box_dim`: the box's extent in a dimension.
    BoxDim,
    /// `.global_dim`: the tensor's extent in a dimension.
    GlobalDim,
    /// `.global_stride`: bytes between indices of dimension `ord + 1`.
    GlobalStride,
    /// `.element_stride`: the box's step in a dimension.
    ElementStride,
    /// `.elemtype`: PTX's number of the element type.
    Elemtype,
    /// `.interleave_layout`.
    InterleaveLayout,
    /// `.swizzle_mode`.
    SwizzleMode,
    /// `.swizzle_atomicity` (sm_100).
    SwizzleAtomicity,
    /// `.fill_mode`: zeros or NaNs outside the tensor.
    FillMode,
}

impl TensormapField {
    const ALL: [(Modifier, TensormapField); 11] = [
        (Modifier::GlobalAddress, TensormapField::GlobalAddress),
        (Modifier::Rank, TensormapField::Rank),
        (Modifier::BoxDim, TensormapField::BoxDim),
        (Modifier::GlobalDim, TensormapField::GlobalDim),
        (Modifier::GlobalStride, TensormapField::GlobalStride),
        (Modifier::ElementStride, TensormapField::ElementStride),
        (Modifier::Elemtype, TensormapField::Elemtype),
        (Modifier::InterleaveLayout, TensormapField::InterleaveLayout),
        (Modifier::SwizzleMode, TensormapField::SwizzleMode),
        (Modifier::SwizzleAtomicity, TensormapField::SwizzleAtomicity),
        (Modifier::FillMode, TensormapField::FillMode),
    ];

    fn from_modifier(m: Modifier) -> Option<TensormapField> {
        TensormapField::ALL.iter().find(|(x, _)| *x == m).map(|&(_, f)| f)
    }

    /// Whether the field is one of a dimension's, named by an ordinal operand.
    pub fn per_dimension(self) -> bool {
        matches!(self, TensormapField::BoxDim | TensormapField::GlobalDim | TensormapField::GlobalStride | TensormapField::ElementStride)
    }

    /// Its PTX spelling.
    pub fn modifier(self) -> Modifier {
        TensormapField::ALL.iter().find(|(_, f)| *f == self).map_or(Modifier::Rank, |&(m, _)| m)
    }
}

/// What an `mbarrier` instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MbarrierAction {
    /// `init [a], count`.
    Init,
    /// `inval [a]`.
    Inval,
    /// `expect_tx [a], tx` (`complete`: `complete_tx`).
    Tx {
        /// `complete_tx` rather than `expect_tx`.
        complete: bool,
    },
    /// `arrive{.expect_tx} state, [a]{, count | tx}` and `arrive_drop`.
    Arrive {
        /// `arrive_drop`.
        drop: bool,
        /// `.expect_tx`: the third operand is transaction bytes, not a count.
        expect_tx: bool,
    },
    /// `test_wait{.parity}` and `try_wait{.parity}` `done, [a], state | parity{, hint}`.
    Wait {
        /// `try_wait` rather than `test_wait`.
        try_wait: bool,
        /// `.parity`: the third operand is a phase's parity, not `arrive`'s state.
        parity: bool,
    },
}

/// `wgmma.mma_async`'s shape and types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Wgmma {
    /// N, the columns of B and D: a multiple of 8 from 8 to 256.
    pub n: u16,
    /// K: 8, 16 or 32 (by the input type).
    pub k: u8,
    /// D's element type.
    pub d: Type,
    /// A's element type.
    pub a: Type,
    /// B's element type.
    pub b: Type,
}

class! {
    /// The shape of a `tcgen05.ld` or `tcgen05.st`.
    TmemShape {
        /// 32 lanes, 32 bits each.
        Shape32x32b,
        /// 16 lanes, 64 bits each.
        Shape16x64b,
        /// 16 lanes, 128 bits each.
        Shape16x128b,
        /// 16 lanes, 256 bits each.
        Shape16x256b,
        /// Two accesses of 16 lanes, 32 bits each.
        Shape16x32bx2,
    }
}

class! {
    /// How many times a `tcgen05.ld` or `tcgen05.st` repeats its shape (`.num`).
    TmemNum {
        /// Once.
        X1, /// Twice.
        X2, /// 4 times.
        X4, /// 8 times.
        X8, /// 16 times.
        X16, /// 32 times.
        X32, /// 64 times.
        X64, /// 128 times.
        X128,
    }
}

class! {
    /// The kind of a `tcgen05.mma`: which element types its instruction descriptor may name.
    TcgenKind {
        /// f16 or bf16 inputs.
        KindF16, /// tf32 inputs.
        KindTf32, /// 8-, 6- and 4-bit floats.
        KindF8f6f4, /// 8-bit integers.
        KindI8,
    }
}

/// A `tcgen05` instruction (sm_100a): tensor memory, and the MMAs that accumulate in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tcgen05 {
    /// `tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [dst], ncols`.
    Alloc,
    /// `tcgen05.dealloc.cta_group::1.sync.aligned.b32 taddr, ncols`.
    Dealloc,
    /// `tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned`.
    Relinquish,
    /// `tcgen05.ld.sync.aligned.shape.num{.pack::16b}.b32 r, [taddr]{, imm}` (`load`), or
    /// `tcgen05.st.sync.aligned.shape.num{.unpack::16b}.b32 [taddr]{, imm}, r`.
    Move {
        /// `ld` rather than `st`.
        load: bool,
        /// The shape.
        shape: TmemShape,
        /// The repetitions.
        num: TmemNum,
        /// `.pack::16b` (`ld`) or `.unpack::16b` (`st`).
        pack: bool,
    },
    /// `tcgen05.mma.cta_group::1.kind [d-tmem], a-desc|[a-tmem], b-desc, idesc, enable-input-d`.
    Mma(TcgenKind),
    /// `tcgen05.mma.cta_group::1.kind::{mxf8f6f4,mxf4,mxf4nvf4}.block_scale{.block16,.block32}
    /// [d-tmem], a-desc, b-desc, idesc, [scale-a-tmem], [scale-b-tmem], enable-input-d`.
    MmaScaled(TcScaledKind),
    /// `tcgen05.commit.cta_group::1.mbarrier::arrive::one{.shared::cluster}.b64 [mbar]`.
    Commit,
    /// `tcgen05.wait::ld.sync.aligned` (`ld`) or `tcgen05.wait::st.sync.aligned`.
    Wait {
        /// `::ld` rather than `::st`.
        ld: bool,
    },
    /// `tcgen05.fence::before_thread_sync` or `::after_thread_sync` (`after`).
    Fence {
        /// `::after_thread_sync`.
        after: bool,
    },
}

/// Which of `wgmma`'s ordering instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WgmmaOrder {
    /// `wgmma.fence`: register accesses before it happen before the next `wgmma.mma_async`.
    Fence,
    /// `wgmma.commit_group`: closes a group of `wgmma.mma_async`s.
    Commit,
    /// `wgmma.wait_group N`: waits until at most N groups are pending.
    Wait,
}

/// `cp.async.ca|cg.shared.global`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CpAsync {
    /// `.ca` (cache in L1 too) or `.cg` (L2 only).
    pub cache: CacheOp,
}

/// Which of `wmma`'s instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WmmaAction {
    /// `wmma.load.a`: a fragment of A from memory.
    LoadA,
    /// `wmma.load.b`.
    LoadB,
    /// `wmma.load.c`: the accumulator.
    LoadC,
    /// `wmma.store.d`: the result to memory.
    StoreD,
    /// `wmma.mma`: `d = a * b + c` on fragments.
    Mma,
}

/// `wmma.{load.a,load.b,load.c,store.d}.sync.aligned.layout.m16n16k16{.space}.type` and
/// `wmma.mma.sync.aligned.alayout.blayout.m16n16k16{.atype.btype}.dtype.ctype`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Wmma {
    /// Which instruction.
    pub action: WmmaAction,
    /// The layout in memory (loads, stores), or A's (`mma`).
    pub layout: Layout,
    /// `mma`: B's layout.
    pub b_layout: Layout,
    /// Loads and stores: the state space (`None`: generic).
    pub space: Option<StateSpace>,
    /// Loads and stores: the element type; `mma`: D's.
    pub ty: Type,
    /// `mma`: A's and B's element type (`.f16` when not written) and C's.
    pub ab: Type,
    /// `mma`: C's element type.
    pub c: Type,
}

/// The 8x8 matrices of `ldmatrix`/`stmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Matrices {
    /// How many matrices: 1, 2 or 4.
    pub count: u8,
    /// `.trans`: each lane gets a column pair instead of a row pair.
    pub trans: bool,
}

/// Every opcode the parser knows, as written before its first dot.
pub const OPCODES: &[&str] = &[
    "abs",
    "activemask",
    "add",
    "addc",
    "and",
    "atom",
    "bar",
    "barrier",
    "bfe",
    "bfi",
    "bfind",
    "bra",
    "brx",
    "brev",
    "call",
    "clz",
    "cnot",
    "copysign",
    "cos",
    "cp",
    "cvt",
    "cvta",
    "div",
    "elect",
    "griddepcontrol",
    "createpolicy",
    "setmaxnreg",
    "dp2a",
    "dp4a",
    "ex2",
    "exit",
    "fence",
    "fma",
    "isspacep",
    "ld",
    "ldmatrix",
    "lg2",
    "lop3",
    "mad",
    "mad24",
    "madc",
    "mbarrier",
    "match",
    "max",
    "membar",
    "min",
    "mma",
    "mov",
    "mul",
    "mul24",
    "nanosleep",
    "neg",
    "not",
    "or",
    "popc",
    "prmt",
    "rcp",
    "red",
    "redux",
    "rem",
    "ret",
    "rsqrt",
    "sad",
    "selp",
    "set",
    "setp",
    "shf",
    "shfl",
    "shl",
    "shr",
    "sin",
    "sqrt",
    "st",
    "stmatrix",
    "sub",
    "subc",
    "tanh",
    "tcgen05",
    "tensormap",
    "trap",
    "vote",
    "wgmma",
    "wmma",
    "xor",
];

/// Why an opcode's modifiers do not make an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModifierError {
    /// The modifier at fault, or the opcode when something is missing.
    pub span: Span,
    /// A lowercase sentence.
    pub message: String,
}

/// The modifiers of one instruction, each used at most once.
pub(crate) struct Modifiers<'m> {
    opcode: &'m str,
    opcode_span: Span,
    list: &'m [(Modifier, Span)],
    used: u64,
    /// N and K of a `.m64nNkK` (`Modifier::M64nNkK`) among them.
    shape: Option<(u16, u8)>,
}

/// The most modifiers one instruction may carry (real ones have at most 9).
pub const MAX_MODIFIERS: usize = 16;

impl<'m> Modifiers<'m> {
    pub(crate) fn new(opcode: &'m str, opcode_span: Span, list: &'m [(Modifier, Span)]) -> Modifiers<'m> {
        debug_assert!(list.len() <= MAX_MODIFIERS);
        Modifiers { opcode, opcode_span, list, used: 0, shape: None }
    }

    /// The modifiers with the N and K of the `.m64nNkK` among them.
    pub(crate) fn with_shape(self, shape: Option<(u16, u8)>) -> Modifiers<'m> {
        Modifiers { shape, ..self }
    }

    fn error(&self, span: Span, message: String) -> ModifierError {
        ModifierError { span, message }
    }

    /// The one unused modifier of a kind, if written; two of the kind is an error.
    fn one<T>(&mut self, class: impl Fn(Modifier) -> Option<T>, what: impl fmt::Display) -> Result<Option<T>, ModifierError> {
        let mut found: Option<(T, usize)> = None;
        for (i, &(modifier, span)) in self.list.iter().enumerate() {
            if self.used & (1 << i) != 0 {
                continue;
            }
            if let Some(value) = class(modifier) {
                if let Some((_, first)) = found {
                    let first = self.list[first].0;
                    return Err(self.error(span, format!("`{}` takes one {what}, found `{first}` and `{modifier}`", self.opcode)));
                }
                found = Some((value, i));
            }
        }
        Ok(found.map(|(value, i)| {
            self.used |= 1 << i;
            value
        }))
    }

    /// Like [`Self::one`], but missing is an error too.
    fn required<T>(&mut self, class: impl Fn(Modifier) -> Option<T>, what: &str, example: &str) -> Result<T, ModifierError> {
        match self.one(class, what)? {
            Some(value) => Ok(value),
            None => Err(self.error(self.opcode_span, format!("`{}` needs {what} such as `{example}`", self.opcode))),
        }
    }

    /// Whether `flag` is written (once).
    fn flag(&mut self, flag: Modifier) -> Result<bool, ModifierError> {
        /// A flag's name in backticks, written only if an error needs it.
        struct Quoted(Modifier);
        impl fmt::Display for Quoted {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "`{}`", self.0)
            }
        }
        Ok(self.one(|m| (m == flag).then_some(()), Quoted(flag))?.is_some())
    }

    /// The first `N` unused modifiers of a kind, in source order; fewer or more is an error.
    fn ordered<T: Copy, const N: usize>(&mut self, class: impl Fn(Modifier) -> Option<T>, what: &str) -> Result<[T; N], ModifierError> {
        let mut out: [Option<T>; N] = [None; N];
        let mut count = 0;
        for (i, &(modifier, span)) in self.list.iter().enumerate() {
            if self.used & (1 << i) != 0 {
                continue;
            }
            if let Some(value) = class(modifier) {
                if count == N {
                    return Err(self.error(span, format!("`{}` takes {N} {what}, this is one more", self.opcode)));
                }
                out[count] = Some(value);
                count += 1;
                self.used |= 1 << i;
            }
        }
        if count < N {
            return Err(self.error(self.opcode_span, format!("`{}` needs {N} {what}, found {count}", self.opcode)));
        }
        Ok(out.map(|v| v.expect("counted")))
    }

    /// Every modifier was used; the first that was not is an error.
    fn finish(self) -> Result<(), ModifierError> {
        match self.list.iter().enumerate().find(|(i, _)| self.used & (1 << i) == 0) {
            None => Ok(()),
            Some((_, &(modifier, span))) => Err(self.error(span, format!("`{}` does not take `{modifier}` here", self.opcode))),
        }
    }

    /// `mma`'s `.kind::mxf8f6f4`, `::mxf4` or `::mxf4nvf4` with `.block_scale`, its
    /// `.scale_vec::NX` and its scale type, if it has a kind: what simt runs it as.
    fn mma_block_scale(&mut self) -> Result<Option<MmaScaledKind>, ModifierError> {
        use Modifier as M;
        let Some(kind) = self.one(|x| [M::KindMxf8f6f4, M::KindMxf4, M::KindMxf4nvf4].contains(&x).then_some(x), "a kind")? else {
            return Ok(None);
        };
        self.require_flag(M::BlockScale)?;
        let vec = self.one(|x| [M::ScaleVec1x, M::ScaleVec2x, M::ScaleVec4x].contains(&x).then_some(x), "a scale vector size")?;
        let scale = self.required(|x| [M::Ue8m0, M::Ue4m3].contains(&x).then_some(x), "a scale type", ".ue8m0")?;
        let scaled = match (kind, vec, scale) {
            (M::KindMxf8f6f4, None | Some(M::ScaleVec1x), M::Ue8m0) => MmaScaledKind::Mxf8f6f4,
            (M::KindMxf4, None | Some(M::ScaleVec2x), M::Ue8m0) => MmaScaledKind::Mxf4,
            // E2M1 pairs with an E8M0 scale a 32 elements are what `.kind::mxf4` is.
            (M::KindMxf4nvf4, Some(M::ScaleVec2x), M::Ue8m0) => MmaScaledKind::Mxf4,
            (M::KindMxf4nvf4, Some(M::ScaleVec4x), M::Ue8m0) => MmaScaledKind::Mxf4nvf4,
            (M::KindMxf4nvf4, Some(M::ScaleVec4x), _) => MmaScaledKind::Nvf4,
            (M::KindMxf4nvf4, None, _) => {
                return Err(self.error(self.opcode_span, "`.kind::mxf4nvf4` takes its scale vector size: `.scale_vec::2X` or `.scale_vec::4X`".to_string()));
            }
            (_, _, M::Ue4m3) => {
                return Err(self.error(self.opcode_span, "`.ue4m3` scales come one a 16 elements: `.kind::mxf4nvf4.block_scale.scale_vec::4X`".to_string()));
            }
            (kind, _, _) => {
                let fits = if kind == M::KindMxf8f6f4 { ".scale_vec::1X" } else { ".scale_vec::2X" };
                return Err(self.error(self.opcode_span, format!("`{kind}` takes `{fits}` (or none)")));
            }
        };
        Ok(Some(scaled))
    }

    fn ty(&mut self) -> Result<Type, ModifierError> {
        self.required(Type::from_modifier, "a type", ".u32")
    }

    fn typed(&mut self) -> Result<Typed, ModifierError> {
        Ok(Typed { ty: self.ty()? })
    }

    fn arith(&mut self) -> Result<Arith, ModifierError> {
        self.arith_of(false)
    }

    /// `add`, `sub` and `fma`: [`arith`](Self::arith), or with two types the mixed-precision
    /// form (sm_100): `.f32`, then the narrow operands' `.f16` or `.bf16`.
    fn mixed_arith(&mut self) -> Result<Arith, ModifierError> {
        self.arith_of(true)
    }

    fn arith_of(&mut self, mixed: bool) -> Result<Arith, ModifierError> {
        let (rounding, ftz, sat, cc) =
            (self.one(Rounding::from_modifier, "rounding mode")?, self.flag(Modifier::Ftz)?, self.flag(Modifier::Sat)?, self.flag(Modifier::Cc)?);
        let types = self.list.iter().enumerate().filter(|&(i, &(m, _))| self.used & (1 << i) == 0 && Type::from_modifier(m).is_some()).count();
        let (ty, narrow) = if mixed && types >= 2 {
            let [ty, narrow] = self.ordered(Type::from_modifier, "types (the result's, then the narrow operands')")?;
            if ty != Type::F32 || !matches!(narrow, Type::F16 | Type::Bf16) {
                let message = format!("mixed-precision `{}` is `.f32` with `.f16` or `.bf16` operands, not `{ty}` with `{narrow}`", self.opcode);
                return Err(self.error(self.opcode_span, message));
            }
            (ty, Some(narrow))
        } else {
            (self.ty()?, None)
        };
        Ok(Arith { ty, rounding, ftz, sat, cc, xorsign_abs: false, nan: false, relu: false, narrow })
    }

    /// `min` and `max`: [`arith`](Self::arith) with `.relu`, `.NaN` and `.xorsign.abs`.
    fn min_max(&mut self) -> Result<Arith, ModifierError> {
        let relu = self.flag(Modifier::Relu)?;
        let nan = self.flag(Modifier::NanProp)?;
        let xorsign = self.flag(Modifier::Xorsign)?;
        if self.flag(Modifier::Abs)? != xorsign {
            return Err(self.error(self.opcode_span, format!("`{}` takes `.xorsign` and `.abs` together", self.opcode)));
        }
        Ok(Arith { xorsign_abs: xorsign, nan, relu, ..self.arith()? })
    }

    fn mul(&mut self) -> Result<Mul, ModifierError> {
        let mul = Mul {
            mode: self.one(MulMode::from_modifier, "product part")?,
            rounding: self.one(Rounding::from_modifier, "rounding mode")?,
            ftz: self.flag(Modifier::Ftz)?,
            sat: self.flag(Modifier::Sat)?,
            cc: self.flag(Modifier::Cc)?,
            ty: self.ty()?,
        };
        if mul.ty.is_integer() && mul.mode.is_none() {
            let message = format!("`{}` on integers needs `.lo`, `.hi` or `.wide`", self.opcode);
            return Err(self.error(self.opcode_span, message));
        }
        Ok(mul)
    }

    fn float_mode(&mut self) -> Result<Option<FloatMode>, ModifierError> {
        let approx = self.flag(Modifier::Approx)?;
        let full = self.flag(Modifier::Full)?;
        let rounding = self.one(Rounding::from_modifier, "rounding mode")?;
        Ok(match (approx, full, rounding) {
            (false, false, None) => None,
            (true, false, None) => Some(FloatMode::Approx),
            (false, true, None) => Some(FloatMode::Full),
            (false, false, Some(r)) => Some(FloatMode::Rounded(r)),
            _ => {
                let message = format!("`{}` takes one of `.approx`, `.full` or a rounding mode", self.opcode);
                return Err(self.error(self.opcode_span, message));
            }
        })
    }

    fn float_fn(&mut self) -> Result<FloatFn, ModifierError> {
        let mode = self.float_mode()?;
        let ftz = self.flag(Modifier::Ftz)?;
        let ty = self.ty()?;
        let mode = mode.ok_or_else(|| self.error(self.opcode_span, format!("`{}` needs `.approx` or a rounding mode such as `.rn`", self.opcode)))?;
        Ok(FloatFn { ty, mode, ftz })
    }

    fn memory(&mut self, load: bool) -> Result<Memory, ModifierError> {
        Ok(Memory {
            space: self.one(StateSpace::from_modifier, "state space")?,
            semantics: self.one(Semantics::from_modifier, "memory ordering")?,
            scope: self.one(Scope::from_modifier, "scope")?,
            nc: load && self.flag(Modifier::Nc)?,
            cache: self.one(CacheOp::from_modifier, "cache operator")?,
            eviction: self.one(Eviction::from_modifier, "L1 eviction priority")?,
            prefetch: self.one(L2Prefetch::from_modifier, "L2 prefetch size")?,
            cache_hint: self.flag(Modifier::L2CacheHint)?,
            vector: self.one(Vector::from_modifier, "vector width")?,
            ty: self.ty()?,
        })
    }

    fn atom(&mut self) -> Result<Atom, ModifierError> {
        Ok(Atom {
            space: self.one(StateSpace::from_modifier, "state space")?,
            semantics: self.one(Semantics::from_modifier, "memory ordering")?,
            scope: self.one(Scope::from_modifier, "scope")?,
            op: self.required(AtomOp::from_modifier, "an operation", ".add")?,
            vector: self.one(Vector::from_modifier, "vector width")?,
            noftz: self.flag(Modifier::Noftz)?,
            ty: self.ty()?,
        })
    }

    fn compare(&mut self) -> Result<(CmpOp, Option<BoolOp>, bool), ModifierError> {
        Ok((self.required(CmpOp::from_modifier, "a comparison", ".lt")?, self.one(BoolOp::from_modifier, "combining operation")?, self.flag(Modifier::Ftz)?))
    }

    fn bar(&mut self, spelling: BarSpelling) -> Result<Op, ModifierError> {
        if spelling == BarSpelling::Bar && self.flag(Modifier::Warp)? {
            if !self.flag(Modifier::Sync)? {
                return Err(self.error(self.opcode_span, "`bar.warp` needs `.sync`".to_string()));
            }
            return Ok(Op::BarWarpSync);
        }
        let sync = self.flag(Modifier::Sync)?;
        let arrive = self.flag(Modifier::Arrive)?;
        let red = self.flag(Modifier::Red)?;
        let action = match (sync, arrive, red) {
            (true, false, false) => BarAction::Sync,
            (false, true, false) => BarAction::Arrive,
            (false, false, true) => BarAction::Red(self.required(BarReduction::from_modifier, "a reduction", ".popc")?),
            _ => {
                let message = format!("`{}` takes one of `.sync`, `.arrive` or `.red`", self.opcode);
                return Err(self.error(self.opcode_span, message));
            }
        };
        let aligned = self.flag(Modifier::Aligned)? || spelling == BarSpelling::Bar;
        let ty = match action {
            BarAction::Red(_) => Some(self.ty()?),
            _ => None,
        };
        Ok(Op::Bar(Bar { spelling, action, aligned, ty }))
    }

    /// `cp.async.bulk`'s tensor copies and groups.
    fn bulk(&mut self) -> Result<Op, ModifierError> {
        if self.flag(Modifier::CommitGroup)? {
            return Ok(Op::CpAsyncBulkOrder { wait: false });
        }
        if self.flag(Modifier::WaitGroup)? {
            // `.read` waits only until the sources may be reused; every copy is whole as it issues.
            self.flag(Modifier::Read)?;
            return Ok(Op::CpAsyncBulkOrder { wait: true });
        }
        if !self.flag(Modifier::Tensor)? {
            let message = "`cp.async.bulk` is supported for tensors (`cp.async.bulk.tensor`) and its groups; a plain bulk copy is not";
            return Err(self.error(self.opcode_span, message.to_string()));
        }
        let rank = self.required(
            |m| match m {
                Modifier::D1 => Some(1),
                Modifier::D2 => Some(2),
                Modifier::D3 => Some(3),
                Modifier::D4 => Some(4),
                Modifier::D5 => Some(5),
                _ => None,
            },
            "a rank",
            ".2d",
        )?;
        let [to, from] = self.ordered(StateSpace::from_modifier, "state spaces (destination, then source)")?;
        self.flag(Modifier::Tile)?;
        match (to, from) {
            (StateSpace::Shared, StateSpace::Global) => {
                self.require_flag(Modifier::MbarrierCompleteTx)?;
                Ok(Op::CpAsyncBulkTensor { rank, load: true })
            }
            (StateSpace::Global, StateSpace::Shared) => {
                self.require_flag(Modifier::BulkGroup)?;
                Ok(Op::CpAsyncBulkTensor { rank, load: false })
            }
            _ => Err(self.error(self.opcode_span, format!("`cp.async.bulk.tensor` copies `.shared.global` or `.global.shared`, not `{to}{from}`"))),
        }
    }

    /// `tensormap.replace` and `tensormap.cp_fenceproxy`.
    fn tensormap(&mut self) -> Result<Op, ModifierError> {
        if self.flag(Modifier::CpFenceproxy)? {
            let [to, from] = self.ordered(StateSpace::from_modifier, "state spaces (destination, then source)")?;
            if (to, from) != (StateSpace::Global, StateSpace::Shared) {
                return Err(self.error(self.opcode_span, format!("`tensormap.cp_fenceproxy` copies `.global.shared::cta`, not `{to}{from}`")));
            }
            self.require_flag(Modifier::TensormapGeneric)?;
            self.one(Semantics::from_modifier, "ordering")?;
            self.one(Scope::from_modifier, "scope")?;
            self.require_flag(Modifier::Sync)?;
            self.require_flag(Modifier::Aligned)?;
            return Ok(Op::TensormapCopy);
        }
        self.require_flag(Modifier::Replace)?;
        self.require_flag(Modifier::Tile)?;
        let field = self.required(TensormapField::from_modifier, "a field", ".global_dim")?;
        let global = match self.one(StateSpace::from_modifier, "state space")? {
            Some(StateSpace::Global) => true,
            Some(StateSpace::Shared) => false,
            _ => return Err(self.error(self.opcode_span, "`tensormap.replace` needs `.global` or `.shared::cta`".to_string())),
        };
        self.require_flag(Modifier::B1024)?;
        self.one(|m| matches!(m, Modifier::B32 | Modifier::B64).then_some(()), "type")?;
        Ok(Op::TensormapReplace { field, global })
    }

    fn mbarrier(&mut self) -> Result<Op, ModifierError> {
        use MbarrierAction::*;
        let (arrive, drop) = (self.flag(Modifier::Arrive)?, self.flag(Modifier::ArriveDrop)?);
        let action = if arrive || drop {
            Arrive { drop, expect_tx: self.flag(Modifier::ExpectTx)? }
        } else if self.flag(Modifier::Init)? {
            Init
        } else if self.flag(Modifier::Inval)? {
            Inval
        } else if self.flag(Modifier::ExpectTx)? {
            Tx { complete: false }
        } else if self.flag(Modifier::CompleteTx)? {
            Tx { complete: true }
        } else if self.flag(Modifier::TestWait)? {
            Wait { try_wait: false, parity: self.flag(Modifier::Parity)? }
        } else if self.flag(Modifier::TryWait)? {
            Wait { try_wait: true, parity: self.flag(Modifier::Parity)? }
        } else if self.flag(Modifier::PendingCount)? {
            let message = "`mbarrier.pending_count` is not supported: the state `mbarrier.arrive` gives holds its phase's parity only";
            return Err(self.error(self.opcode_span, message.to_string()));
        } else {
            return Err(self.error(self.opcode_span, "`mbarrier` needs an action such as `.init`, `.arrive` or `.try_wait`".to_string()));
        };
        // The ordering and scope: a block's warps see each other's accesses in issue order.
        self.one(Semantics::from_modifier, "memory ordering")?;
        self.one(Scope::from_modifier, "scope")?;
        if !self.flag(Modifier::Shared)? {
            let message = "`mbarrier` is supported on `.shared` addresses (`mbarrier.init.shared::cta.b64`); a generic address is not";
            return Err(self.error(self.opcode_span, message.to_string()));
        }
        self.require_flag(Modifier::B64)?;
        Ok(Op::Mbarrier(action))
    }

    /// `tcgen05.*`: one action and its modifiers.
    fn tcgen05(&mut self) -> Result<Op, ModifierError> {
        use Modifier as M;
        let actions = [
            M::Alloc,
            M::Dealloc,
            M::RelinquishAllocPermit,
            M::Ld,
            M::St,
            M::Mma,
            M::Commit,
            M::WaitLd,
            M::WaitSt,
            M::FenceBeforeThreadSync,
            M::FenceAfterThreadSync,
        ];
        let action = self.required(|x| actions.contains(&x).then_some(x), "an action", ".mma")?;
        let one_block = |m: &mut Self| -> Result<(), ModifierError> {
            if m.flag(M::CtaGroup2)? {
                let message = "`tcgen05` on a pair of blocks (`.cta_group::2`) is not supported: simt launches no clusters";
                return Err(m.error(m.opcode_span, message.to_string()));
            }
            m.require_flag(M::CtaGroup1)
        };
        let sync_aligned = |m: &mut Self| -> Result<(), ModifierError> {
            m.require_flag(M::Sync)?;
            m.require_flag(M::Aligned)
        };
        let op = match action {
            M::Alloc => {
                one_block(self)?;
                sync_aligned(self)?;
                self.require_flag(M::Shared)?;
                self.require_flag(M::B32)?;
                Tcgen05::Alloc
            }
            M::Dealloc => {
                one_block(self)?;
                sync_aligned(self)?;
                self.require_flag(M::B32)?;
                Tcgen05::Dealloc
            }
            M::RelinquishAllocPermit => {
                one_block(self)?;
                sync_aligned(self)?;
                Tcgen05::Relinquish
            }
            M::Ld | M::St => {
                let load = action == M::Ld;
                sync_aligned(self)?;
                let shape = self.required(TmemShape::from_modifier, "a shape", ".32x32b")?;
                let num = self.required(TmemNum::from_modifier, "a repetition count", ".x1")?;
                let pack = self.flag(if load { M::Pack16b } else { M::Unpack16b })?;
                self.require_flag(M::B32)?;
                Tcgen05::Move { load, shape, num, pack }
            }
            M::Mma => {
                one_block(self)?;
                if let Some(kind) = self.one(|x| [M::KindMxf8f6f4, M::KindMxf4, M::KindMxf4nvf4].contains(&x).then_some(x), "a kind")? {
                    self.require_flag(M::BlockScale)?;
                    let (block16, block32) = (self.flag(M::Block16)?, self.flag(M::Block32)?);
                    let scaled = match (kind, block16, block32) {
                        (_, true, true) => {
                            return Err(self.error(self.opcode_span, "`.block16` and `.block32` are two sizes of one scale block: give one".to_string()));
                        }
                        (M::KindMxf8f6f4, false, _) => TcScaledKind::Mxf8f6f4,
                        (M::KindMxf4, false, _) => TcScaledKind::Mxf4,
                        (M::KindMxf4nvf4, true, _) => TcScaledKind::Mxf4nvf4,
                        // E2M1 pairs with an E8M0 scale a 32 elements are what `.kind::mxf4` is.
                        (M::KindMxf4nvf4, false, true) => TcScaledKind::Mxf4,
                        (M::KindMxf4nvf4, false, false) => {
                            return Err(self.error(self.opcode_span, "`.kind::mxf4nvf4` takes its scale block's size: `.block16` or `.block32`".to_string()));
                        }
                        _ => return Err(self.error(self.opcode_span, format!("`{kind}` scales 32 elements a scale (`.block32`), not 16"))),
                    };
                    return Ok(Op::Tcgen05(Tcgen05::MmaScaled(scaled)));
                }
                if self.flag(M::Ws)? {
                    return Err(self.error(self.opcode_span, "`tcgen05.mma.ws` (weight-stationary MMAs) is not supported yet".to_string()));
                }
                Tcgen05::Mma(self.required(TcgenKind::from_modifier, "a kind", ".kind::f16")?)
            }
            M::Commit => {
                one_block(self)?;
                if self.flag(M::MulticastCluster)? {
                    let message = "`tcgen05.commit.multicast::cluster` is not supported: simt launches no clusters";
                    return Err(self.error(self.opcode_span, message.to_string()));
                }
                self.require_flag(M::MbarrierArriveOne)?;
                self.flag(M::Shared)?;
                self.require_flag(M::B64)?;
                Tcgen05::Commit
            }
            M::WaitLd | M::WaitSt => {
                sync_aligned(self)?;
                Tcgen05::Wait { ld: action == M::WaitLd }
            }
            _ => Tcgen05::Fence { after: action == M::FenceAfterThreadSync },
        };
        Ok(Op::Tcgen05(op))
    }

    fn require_flag(&mut self, flag: Modifier) -> Result<(), ModifierError> {
        if self.flag(flag)? { Ok(()) } else { Err(self.error(self.opcode_span, format!("`{}` needs `{flag}`", self.opcode))) }
    }
}

impl Op {
    /// The instruction `opcode` with `modifiers`, or `Ok(None)` when PTX has no such opcode
    /// (or the parser does not know it).
    pub(crate) fn build(mut m: Modifiers<'_>) -> Result<Option<Op>, ModifierError> {
        use Op::*;
        let op = match m.opcode {
            "add" => Add(m.mixed_arith()?),
            "sub" => Sub(m.mixed_arith()?),
            "addc" => AddC(m.arith()?),
            "subc" => SubC(m.arith()?),
            "mul" => Mul(m.mul()?),
            "mad" => Mad(m.mul()?),
            "madc" => MadC(m.mul()?),
            "mul24" => Mul24(m.mul()?),
            "mad24" => Mad24(m.mul()?),
            "sad" => Sad(m.typed()?),
            "dp4a" => {
                let [a, b] = m.ordered(Type::from_modifier, "types (a's, then b's)")?;
                Dp4a(crate::ops::Dot { hi: false, a, b })
            }
            "dp2a" => {
                let hi = match m.required(MulMode::from_modifier, "a half of b", ".lo")? {
                    MulMode::Lo => false,
                    MulMode::Hi => true,
                    MulMode::Wide => return Err(m.error(m.opcode_span, "`dp2a` takes `.lo` or `.hi`".to_string())),
                };
                let [a, b] = m.ordered(Type::from_modifier, "types (a's, then b's)")?;
                Dp2a(crate::ops::Dot { hi, a, b })
            }
            "fma" => Fma(m.mixed_arith()?),
            "div" => Div(crate::ops::Div { mode: m.float_mode()?, ftz: m.flag(Modifier::Ftz)?, ty: m.ty()? }),
            "rem" => Rem(m.typed()?),
            "neg" => Neg(m.arith()?),
            "abs" => Abs(m.arith()?),
            "min" => Min(m.min_max()?),
            "max" => Max(m.min_max()?),
            "and" => And(m.typed()?),
            "or" => Or(m.typed()?),
            "xor" => Xor(m.typed()?),
            "not" => Not(m.typed()?),
            "cnot" => Cnot(m.typed()?),
            "shl" => Shl(m.typed()?),
            "shr" => Shr(m.typed()?),
            "shf" => {
                let shf = crate::ops::Shf {
                    direction: m.required(ShfDirection::from_modifier, "a direction", ".l")?,
                    mode: m.required(ShfMode::from_modifier, "a mode", ".wrap")?,
                };
                m.require_flag(Modifier::B32)?;
                Shf(shf)
            }
            "popc" => Popc(m.typed()?),
            "clz" => Clz(m.typed()?),
            "brev" => Brev(m.typed()?),
            "bfind" => Bfind(crate::ops::Bfind { shiftamt: m.flag(Modifier::Shiftamt)?, ty: m.ty()? }),
            "copysign" => Copysign(m.typed()?),
            "bfe" => Bfe(m.typed()?),
            "bfi" => Bfi(m.typed()?),
            "lop3" => Lop3(m.typed()?),
            "prmt" => {
                let mode = m.one(PrmtMode::from_modifier, "mode")?;
                m.require_flag(Modifier::B32)?;
                Prmt(crate::ops::Prmt { mode })
            }
            "setp" => {
                let (cmp, combine, ftz) = m.compare()?;
                Setp(crate::ops::Setp { cmp, combine, ftz, ty: m.ty()? })
            }
            "set" => {
                let (cmp, combine, ftz) = m.compare()?;
                let [dst, src] = m.ordered(Type::from_modifier, "types (result, then source)")?;
                Set(crate::ops::Set { cmp, combine, ftz, dst, src })
            }
            "selp" => Selp(m.typed()?),
            "rcp" => Rcp(m.float_fn()?),
            "sqrt" => Sqrt(m.float_fn()?),
            "rsqrt" => Rsqrt(m.float_fn()?),
            "ex2" => Ex2(m.float_fn()?),
            "lg2" => Lg2(m.float_fn()?),
            "sin" => Sin(m.float_fn()?),
            "cos" => Cos(m.float_fn()?),
            "tanh" => Tanh(m.float_fn()?),
            "cvt" => {
                let rounding = m.one(Rounding::from_modifier, "rounding mode")?;
                let ftz = m.flag(Modifier::Ftz)?;
                let sat = m.flag(Modifier::Sat)?;
                let relu = m.flag(Modifier::Relu)?;
                let satfinite = m.flag(Modifier::Satfinite)?;
                let [dst, src] = m.ordered(Type::from_modifier, "types (result, then source)")?;
                Cvt(crate::ops::Cvt { dst, src, rounding, ftz, sat, relu, satfinite })
            }
            "isspacep" => Isspacep(m.required(StateSpace::from_modifier, "a state space", ".global")?),
            "cvta" => {
                Cvta(crate::ops::Cvta { to: m.flag(Modifier::To)?, space: m.required(StateSpace::from_modifier, "a state space", ".global")?, ty: m.ty()? })
            }
            "mov" => Mov(m.typed()?),
            "ld" => Ld(m.memory(true)?),
            "st" => St(m.memory(false)?),
            "atom" => Atom(m.atom()?),
            "red" => Red(m.atom()?),
            "bar" => m.bar(BarSpelling::Bar)?,
            "barrier" => m.bar(BarSpelling::Barrier)?,
            "membar" => Membar(crate::ops::Membar { level: m.required(MembarLevel::from_modifier, "a level", ".gl")? }),
            "fence" => {
                if m.flag(Modifier::Proxy)? {
                    let tensormap = m.flag(Modifier::TensormapGeneric)?;
                    if tensormap {
                        m.one(Semantics::from_modifier, "ordering")?;
                        m.one(Scope::from_modifier, "scope")?;
                    } else {
                        m.require_flag(Modifier::Async)?;
                        m.flag(Modifier::Shared)?;
                    }
                    m.finish()?;
                    return Ok(Some(FenceProxy { tensormap }));
                }
                let semantics = m.one(Semantics::from_modifier, "ordering")?.unwrap_or(Semantics::AcqRel);
                if !matches!(semantics, Semantics::AcqRel | Semantics::Sc) {
                    return Err(m.error(m.opcode_span, format!("`fence` takes `.sc` or `.acq_rel`, not `{semantics}`")));
                }
                Fence(crate::ops::Fence { semantics, scope: m.required(Scope::from_modifier, "a scope", ".gpu")? })
            }
            "shfl" => Shfl(crate::ops::Shfl { sync: m.flag(Modifier::Sync)?, mode: m.required(ShflMode::from_modifier, "a mode", ".down")?, ty: m.ty()? }),
            "vote" => Vote(crate::ops::Vote { sync: m.flag(Modifier::Sync)?, mode: m.required(VoteMode::from_modifier, "a mode", ".ballot")?, ty: m.ty()? }),
            "activemask" => {
                m.require_flag(Modifier::B32)?;
                Activemask
            }
            "redux" => {
                m.require_flag(Modifier::Sync)?;
                let op = m.required(ReduxOp::from_modifier, "an operation", ".add")?;
                let (abs, nan) = (m.flag(Modifier::Abs)?, m.flag(Modifier::NanProp)?);
                Redux(crate::ops::Redux { op, abs, nan, ty: m.ty()? })
            }
            "match" => {
                m.require_flag(Modifier::Sync)?;
                Match(crate::ops::Match { mode: m.required(MatchMode::from_modifier, "a mode", ".any")?, ty: m.ty()? })
            }
            "bra" => Bra(Control { uni: m.flag(Modifier::Uni)? }),
            "brx" => {
                m.require_flag(Modifier::Idx)?;
                Brx(Control { uni: m.flag(Modifier::Uni)? })
            }
            "call" => Call(Control { uni: m.flag(Modifier::Uni)? }),
            "ret" => Ret(Control { uni: m.flag(Modifier::Uni)? }),
            "exit" => Exit,
            "trap" => Trap,
            "nanosleep" => Nanosleep(m.typed()?),
            "mma" => {
                m.require_flag(Modifier::Sync)?;
                m.require_flag(Modifier::Aligned)?;
                let shape = m.required(MmaShape::from_modifier, "a shape", ".m16n8k16")?;
                let [a_layout, b_layout] = m.ordered(Layout::from_modifier, "layouts (A's, then B's)")?;
                let satfinite = m.flag(Modifier::Satfinite)?;
                let f8f6f4 = m.flag(Modifier::KindF8f6f4)?;
                let scale = m.mma_block_scale()?;
                let [d, a, b, c] = m.ordered(Type::from_modifier, "types (D, A, B, C)")?;
                Mma(crate::ops::Mma { shape, a_layout, b_layout, d, a, b, c, satfinite, scale, f8f6f4 })
            }
            "cp" => {
                m.require_flag(Modifier::Async)?;
                if m.flag(Modifier::Bulk)? {
                    m.bulk()?
                } else if m.flag(Modifier::CommitGroup)? {
                    CpAsyncCommit
                } else if m.flag(Modifier::WaitGroup)? {
                    CpAsyncWait { all: false }
                } else if m.flag(Modifier::WaitAll)? {
                    CpAsyncWait { all: true }
                } else {
                    let cache = m.required(CacheOp::from_modifier, "a cache operator", ".cg")?;
                    let [to, from] = m.ordered(StateSpace::from_modifier, "state spaces (destination, then source)")?;
                    if (to, from) != (StateSpace::Shared, StateSpace::Global) {
                        return Err(m.error(m.opcode_span, format!("`cp.async` copies `.shared.global`, not `{to}{from}`")));
                    }
                    CpAsync(crate::ops::CpAsync { cache })
                }
            }
            "mbarrier" => m.mbarrier()?,
            "tcgen05" => m.tcgen05()?,
            "tensormap" => m.tensormap()?,
            "elect" => {
                m.require_flag(Modifier::Sync)?;
                Elect
            }
            "setmaxnreg" => {
                let direction = m.required(|x| [Modifier::Inc, Modifier::Dec].contains(&x).then_some(x), "a direction", ".inc")?;
                m.require_flag(Modifier::Sync)?;
                m.require_flag(Modifier::Aligned)?;
                m.require_flag(Modifier::U32)?;
                Setmaxnreg { increase: direction == Modifier::Inc }
            }
            "createpolicy" => {
                m.require_flag(Modifier::Fractional)?;
                m.required(L2Eviction::from_modifier, "an L2 eviction priority", ".L2::evict_last")?;
                m.one(L2Eviction::from_modifier, "second L2 eviction priority")?;
                m.require_flag(Modifier::B64)?;
                Createpolicy
            }
            "griddepcontrol" => {
                let action = m.required(|x| [Modifier::Wait, Modifier::LaunchDependents].contains(&x).then_some(x), "an action", ".wait")?;
                Griddepcontrol { wait: action == Modifier::Wait }
            }
            "wgmma" => {
                let order = if m.flag(Modifier::Fence)? {
                    Some(crate::ops::WgmmaOrder::Fence)
                } else if m.flag(Modifier::CommitGroup)? {
                    Some(crate::ops::WgmmaOrder::Commit)
                } else if m.flag(Modifier::WaitGroup)? {
                    Some(crate::ops::WgmmaOrder::Wait)
                } else {
                    None
                };
                m.require_flag(Modifier::Sync)?;
                m.require_flag(Modifier::Aligned)?;
                match order {
                    Some(order) => WgmmaOrder(order),
                    None => {
                        m.require_flag(Modifier::MmaAsync)?;
                        m.require_flag(Modifier::M64nNkK)?;
                        let (n, k) = m.shape.unwrap_or((0, 0));
                        let [d, a, b] = m.ordered(Type::from_modifier, "types (D, A, B)")?;
                        Wgmma(crate::ops::Wgmma { n, k, d, a, b })
                    }
                }
            }
            "wmma" => {
                let action = if m.flag(Modifier::Load)? {
                    match m.required(|x| [Modifier::A, Modifier::B, Modifier::C].contains(&x).then_some(x), "a matrix", ".a")? {
                        Modifier::A => WmmaAction::LoadA,
                        Modifier::B => WmmaAction::LoadB,
                        _ => WmmaAction::LoadC,
                    }
                } else if m.flag(Modifier::Store)? {
                    m.require_flag(Modifier::D)?;
                    WmmaAction::StoreD
                } else if m.flag(Modifier::Mma)? {
                    WmmaAction::Mma
                } else {
                    return Err(m.error(m.opcode_span, "`wmma` takes `.load.a`, `.load.b`, `.load.c`, `.store.d` or `.mma`".to_string()));
                };
                m.require_flag(Modifier::Sync)?;
                m.require_flag(Modifier::Aligned)?;
                m.require_flag(Modifier::M16n16k16)?;
                if action == WmmaAction::Mma {
                    let [layout, b_layout] = m.ordered(Layout::from_modifier, "layouts (A's, then B's)")?;
                    let types = m.list.iter().enumerate().filter(|&(i, &(x, _))| m.used & (1 << i) == 0 && Type::from_modifier(x).is_some()).count();
                    let (ab, ty, c) = if types == 4 {
                        let [d, a, b, c] = m.ordered(Type::from_modifier, "types (D, A, B, C)")?;
                        if a != b {
                            return Err(m.error(m.opcode_span, format!("`wmma.mma` with A of `{a}` and B of `{b}` is not supported: they must be one type")));
                        }
                        (a, d, c)
                    } else {
                        let [d, c] = m.ordered(Type::from_modifier, "types (D, then C)")?;
                        (Type::F16, d, c)
                    };
                    Wmma(crate::ops::Wmma { action, layout, b_layout, space: None, ty, ab, c })
                } else {
                    let layout = m.required(Layout::from_modifier, "a layout", ".row")?;
                    let space = m.one(StateSpace::from_modifier, "state space")?;
                    let ty = m.ty()?;
                    Wmma(crate::ops::Wmma { action, layout, b_layout: layout, space, ty, ab: ty, c: ty })
                }
            }
            "ldmatrix" | "stmatrix" => {
                m.require_flag(Modifier::Sync)?;
                m.require_flag(Modifier::Aligned)?;
                m.require_flag(Modifier::M8n8)?;
                let count = m.required(
                    |x| match x {
                        Modifier::X1 => Some(1),
                        Modifier::X2 => Some(2),
                        Modifier::X4 => Some(4),
                        _ => None,
                    },
                    "a matrix count",
                    ".x4",
                )?;
                let trans = m.flag(Modifier::Trans)?;
                m.require_flag(Modifier::Shared)?;
                m.require_flag(Modifier::B16)?;
                let matrices = crate::ops::Matrices { count, trans };
                if m.opcode == "ldmatrix" { Ldmatrix(matrices) } else { Stmatrix(matrices) }
            }
            _ => return Ok(None),
        };
        m.finish()?;
        Ok(Some(op))
    }

    /// The opcode as written before its first dot.
    pub fn name(&self) -> &'static str {
        use Op::*;
        match self {
            Add(_) => "add",
            Sub(_) => "sub",
            AddC(_) => "addc",
            SubC(_) => "subc",
            Mul(_) => "mul",
            Mad(_) => "mad",
            MadC(_) => "madc",
            Mul24(_) => "mul24",
            Mad24(_) => "mad24",
            Sad(_) => "sad",
            Dp4a(_) => "dp4a",
            Dp2a(_) => "dp2a",
            Fma(_) => "fma",
            Div(_) => "div",
            Rem(_) => "rem",
            Neg(_) => "neg",
            Abs(_) => "abs",
            Min(_) => "min",
            Max(_) => "max",
            And(_) => "and",
            Or(_) => "or",
            Xor(_) => "xor",
            Not(_) => "not",
            Cnot(_) => "cnot",
            Shl(_) => "shl",
            Shr(_) => "shr",
            Shf(_) => "shf",
            Popc(_) => "popc",
            Clz(_) => "clz",
            Brev(_) => "brev",
            Bfind(_) => "bfind",
            Copysign(_) => "copysign",
            Bfe(_) => "bfe",
            Bfi(_) => "bfi",
            Lop3(_) => "lop3",
            Prmt(_) => "prmt",
            Setp(_) => "setp",
            Set(_) => "set",
            Selp(_) => "selp",
            Rcp(_) => "rcp",
            Sqrt(_) => "sqrt",
            Rsqrt(_) => "rsqrt",
            Ex2(_) => "ex2",
            Lg2(_) => "lg2",
            Sin(_) => "sin",
            Cos(_) => "cos",
            Tanh(_) => "tanh",
            Cvt(_) => "cvt",
            Cvta(_) => "cvta",
            Isspacep(_) => "isspacep",
            Mov(_) => "mov",
            Ld(_) => "ld",
            St(_) => "st",
            Atom(_) => "atom",
            Red(_) => "red",
            Bar(b) => match b.spelling {
                BarSpelling::Bar => "bar",
                BarSpelling::Barrier => "barrier",
            },
            BarWarpSync => "bar",
            Membar(_) => "membar",
            Fence(_) => "fence",
            Shfl(_) => "shfl",
            Vote(_) => "vote",
            Activemask => "activemask",
            Redux(_) => "redux",
            Match(_) => "match",
            Bra(_) => "bra",
            Brx(_) => "brx",
            Call(_) => "call",
            Ret(_) => "ret",
            Exit => "exit",
            Trap => "trap",
            Nanosleep(_) => "nanosleep",
            Mma(_) => "mma",
            CpAsync(_) | CpAsyncCommit | CpAsyncWait { .. } => "cp",
            Ldmatrix(_) => "ldmatrix",
            Wmma(_) => "wmma",
            Stmatrix(_) => "stmatrix",
            Wgmma(_) | WgmmaOrder(_) => "wgmma",
            FenceProxy { .. } => "fence",
            TensormapReplace { .. } | TensormapCopy => "tensormap",
            Mbarrier(_) => "mbarrier",
            Tcgen05(_) => "tcgen05",
            Elect => "elect",
            Setmaxnreg { .. } => "setmaxnreg",
            Griddepcontrol { .. } => "griddepcontrol",
            Createpolicy => "createpolicy",
            CpAsyncBulkTensor { .. } | CpAsyncBulkOrder { .. } => "cp",
        }
    }

    /// Whether the first operand is read as well as written: `wgmma.mma_async` accumulates
    /// into its `d`.
    pub fn reads_first_operand(&self) -> bool {
        matches!(self, Op::Wgmma(_))
    }

    /// Whether the first operand is what the instruction writes: not for a store, a reduction
    /// or a branch, which write no register, nor for a call, whose results its callee writes.
    pub fn writes_first_operand(&self) -> bool {
        !matches!(
            self,
            Op::St(_)
                | Op::Stmatrix(_)
                | Op::Red(_)
                | Op::Bra(_)
                | Op::Brx(_)
                | Op::Call(_)
                | Op::Wmma(Wmma { action: WmmaAction::StoreD, .. })
                | Op::CpAsyncBulkTensor { load: false, .. }
                | Op::Tcgen05(
                    Tcgen05::Alloc
                        | Tcgen05::Dealloc
                        | Tcgen05::Move { load: false, .. }
                        | Tcgen05::Mma(_)
                        | Tcgen05::MmaScaled(_)
                        | Tcgen05::Commit
                        | Tcgen05::Relinquish
                        | Tcgen05::Wait { .. }
                        | Tcgen05::Fence { .. }
                )
        )
    }

    /// Whether control may leave the instruction for somewhere other than the next one: a
    /// branch, call, return, exit or trap ends a basic block.
    pub fn ends_block(&self) -> bool {
        matches!(self, Op::Bra(_) | Op::Brx(_) | Op::Call(_) | Op::Ret(_) | Op::Exit | Op::Trap)
    }

    /// How many operands the instruction takes (after `call`'s lists are filled in).
    pub fn operand_count(&self) -> std::ops::RangeInclusive<usize> {
        use Op::*;
        match self {
            Add(_) | Sub(_) | AddC(_) | SubC(_) | Mul(_) | Mul24(_) | Div(_) | Rem(_) | And(_) | Or(_) | Xor(_) | Shl(_) | Shr(_) | Copysign(_) => 3..=3,
            // PTX 8.8's three-input `min` and `max` (sm_100).
            Min(_) | Max(_) => 3..=4,
            Mad(_) | MadC(_) | Mad24(_) | Sad(_) | Dp4a(_) | Dp2a(_) | Fma(_) | Selp(_) | Bfe(_) | Prmt(_) | Shf(_) => 4..=4,
            Bfi(_) | Lop3(_) => 5..=5,
            // `cvt.rn.f16x2.f32 d, a, b` packs two.
            Cvt(c) if matches!(c.dst, Type::F16x2 | Type::Bf16x2) && c.src == Type::F32 => 3..=3,
            // `cvt.rn.satfinite.e4m3x2.f32 d, a, b` packs two as well.
            Cvt(c) if matches!(c.dst, Type::E4m3x2 | Type::E5m2x2 | Type::E2m1x2) && c.src == Type::F32 => 3..=3,
            Neg(_) | Abs(_) | Not(_) | Cnot(_) | Popc(_) | Clz(_) | Brev(_) | Bfind(_) | Mov(_) | Cvt(_) | Cvta(_) | Isspacep(_) | Rcp(_) | Sqrt(_)
            | Rsqrt(_) | Ex2(_) | Lg2(_) | Sin(_) | Cos(_) | Tanh(_) | Red(_) => 2..=2,
            // A cache policy after the address (`.L2::cache_hint`).
            Ld(m) | St(m) => 2..=2 + usize::from(m.cache_hint),
            Setp(crate::ops::Setp { combine, .. }) | Set(crate::ops::Set { combine, .. }) => {
                if combine.is_some() {
                    4..=4
                } else {
                    3..=3
                }
            }
            Atom(a) => {
                if a.op == AtomOp::Cas {
                    4..=4
                } else {
                    3..=3
                }
            }
            Bar(b) => match b.action {
                BarAction::Red(_) => 3..=4,
                _ => 1..=2,
            },
            BarWarpSync | Activemask | Bra(_) => 1..=1,
            Brx(_) => 2..=2,
            Membar(_) | Fence(_) | Ret(_) | Exit | Trap => 0..=0,
            Nanosleep(_) => 1..=1,
            Shfl(s) => {
                if s.sync {
                    5..=5
                } else {
                    4..=4
                }
            }
            Vote(v) => {
                if v.sync {
                    3..=3
                } else {
                    2..=2
                }
            }
            Redux(_) | Match(_) => 3..=3,
            Call(_) => 3..=4,
            Mma(m) if m.scale.is_some() => 8..=8,
            Mma(_) => 4..=4,
            CpAsync(_) => 3..=4,
            CpAsyncCommit | CpAsyncWait { all: true } => 0..=0,
            CpAsyncWait { all: false } => 1..=1,
            Ldmatrix(_) | Stmatrix(_) => 2..=2,
            Wmma(w) if w.action == WmmaAction::Mma => 4..=4,
            // The stride is optional.
            Wmma(_) => 2..=3,
            // `d, a, b, scale-d`, then the scales (not for integers) and the transposes (16-bit
            // types only; A's only when it is in shared memory).
            Wgmma(_) => 4..=8,
            WgmmaOrder(o) => usize::from(*o == crate::ops::WgmmaOrder::Wait)..=usize::from(*o == crate::ops::WgmmaOrder::Wait),
            FenceProxy { tensormap } => 0..=2 * usize::from(*tensormap),
            TensormapReplace { field, .. } => 2 + usize::from(field.per_dimension())..=2 + usize::from(field.per_dimension()),
            TensormapCopy => 3..=3,
            Mbarrier(MbarrierAction::Inval) => 1..=1,
            Mbarrier(MbarrierAction::Init | MbarrierAction::Tx { .. }) => 2..=2,
            Mbarrier(MbarrierAction::Arrive { expect_tx: true, .. }) => 3..=3,
            Mbarrier(MbarrierAction::Arrive { expect_tx: false, .. }) => 2..=3,
            Mbarrier(MbarrierAction::Wait { try_wait, .. }) => 3..=3 + usize::from(*try_wait),
            Elect => 2..=2,
            Tcgen05(t) => match t {
                crate::ops::Tcgen05::Alloc | crate::ops::Tcgen05::Dealloc => 2..=2,
                // The second half's offset of `.16x32bx2`.
                crate::ops::Tcgen05::Move { .. } => 2..=3,
                // `disable-output-lane` and `scale-input-d` are optional.
                crate::ops::Tcgen05::Mma(_) => 5..=7,
                crate::ops::Tcgen05::MmaScaled(_) => 7..=7,
                crate::ops::Tcgen05::Commit => 1..=2,
                _ => 0..=0,
            },
            Setmaxnreg { .. } => 1..=1,
            Griddepcontrol { .. } => 0..=0,
            Createpolicy => 2..=2,
            CpAsyncBulkTensor { load, .. } => {
                if *load {
                    3..=3
                } else {
                    2..=2
                }
            }
            CpAsyncBulkOrder { wait } => usize::from(*wait)..=usize::from(*wait),
        }
    }
}

fn opt<T: fmt::Display>(f: &mut fmt::Formatter<'_>, value: Option<T>) -> fmt::Result {
    match value {
        Some(v) => write!(f, "{v}"),
        None => Ok(()),
    }
}

fn flag(f: &mut fmt::Formatter<'_>, on: bool, modifier: Modifier) -> fmt::Result {
    if on { f.write_str(modifier.text()) } else { Ok(()) }
}

impl fmt::Display for FloatMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FloatMode::Approx => f.write_str(".approx"),
            FloatMode::Full => f.write_str(".full"),
            FloatMode::Rounded(r) => write!(f, "{r}"),
        }
    }
}

/// The canonical spelling (`ld.global.v4.f32`), modifiers in the PTX manual's order.
impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Op::*;
        f.write_str(self.name())?;
        match *self {
            Add(a) | Sub(a) | AddC(a) | SubC(a) | Fma(a) | Neg(a) | Abs(a) | Min(a) | Max(a) => {
                opt(f, a.rounding)?;
                flag(f, a.relu, Modifier::Relu)?;
                flag(f, a.ftz, Modifier::Ftz)?;
                flag(f, a.nan, Modifier::NanProp)?;
                if a.xorsign_abs {
                    f.write_str(".xorsign.abs")?;
                }
                flag(f, a.sat, Modifier::Sat)?;
                flag(f, a.cc, Modifier::Cc)?;
                write!(f, "{}", a.ty)?;
                opt(f, a.narrow)
            }
            Dp4a(d) => write!(f, "{}{}", d.a, d.b),
            Dp2a(d) => write!(f, "{}{}{}", if d.hi { ".hi" } else { ".lo" }, d.a, d.b),
            Mul(m) | Mad(m) | MadC(m) | Mul24(m) | Mad24(m) => {
                opt(f, m.mode)?;
                opt(f, m.rounding)?;
                flag(f, m.ftz, Modifier::Ftz)?;
                flag(f, m.sat, Modifier::Sat)?;
                flag(f, m.cc, Modifier::Cc)?;
                write!(f, "{}", m.ty)
            }
            Div(d) => {
                opt(f, d.mode)?;
                flag(f, d.ftz, Modifier::Ftz)?;
                write!(f, "{}", d.ty)
            }
            Rcp(x) | Sqrt(x) | Rsqrt(x) | Ex2(x) | Lg2(x) | Sin(x) | Cos(x) | Tanh(x) => {
                write!(f, "{}", x.mode)?;
                flag(f, x.ftz, Modifier::Ftz)?;
                write!(f, "{}", x.ty)
            }
            Rem(t) | And(t) | Or(t) | Xor(t) | Not(t) | Cnot(t) | Shl(t) | Shr(t) | Popc(t) | Clz(t) | Brev(t) | Copysign(t) | Bfe(t) | Bfi(t) | Lop3(t)
            | Selp(t) | Sad(t) | Nanosleep(t) | Mov(t) => write!(f, "{}", t.ty),
            Bfind(b) => {
                flag(f, b.shiftamt, Modifier::Shiftamt)?;
                write!(f, "{}", b.ty)
            }
            Shf(s) => write!(f, "{}{}.b32", s.direction, s.mode),
            Prmt(p) => {
                f.write_str(".b32")?;
                opt(f, p.mode)
            }
            Setp(s) => {
                write!(f, "{}", s.cmp)?;
                opt(f, s.combine)?;
                flag(f, s.ftz, Modifier::Ftz)?;
                write!(f, "{}", s.ty)
            }
            Set(s) => {
                write!(f, "{}", s.cmp)?;
                opt(f, s.combine)?;
                flag(f, s.ftz, Modifier::Ftz)?;
                write!(f, "{}{}", s.dst, s.src)
            }
            Cvt(c) => {
                opt(f, c.rounding)?;
                flag(f, c.ftz, Modifier::Ftz)?;
                flag(f, c.sat, Modifier::Sat)?;
                flag(f, c.relu, Modifier::Relu)?;
                flag(f, c.satfinite, Modifier::Satfinite)?;
                write!(f, "{}{}", c.dst, c.src)
            }
            Cvta(c) => {
                flag(f, c.to, Modifier::To)?;
                write!(f, "{}{}", c.space, c.ty)
            }
            Isspacep(space) => write!(f, "{space}"),
            Ld(m) | St(m) => {
                opt(f, m.semantics)?;
                opt(f, m.scope)?;
                opt(f, m.space)?;
                flag(f, m.nc, Modifier::Nc)?;
                opt(f, m.cache)?;
                opt(f, m.eviction)?;
                opt(f, m.prefetch)?;
                flag(f, m.cache_hint, Modifier::L2CacheHint)?;
                opt(f, m.vector)?;
                write!(f, "{}", m.ty)
            }
            Atom(a) | Red(a) => {
                opt(f, a.semantics)?;
                opt(f, a.scope)?;
                opt(f, a.space)?;
                write!(f, "{}", a.op)?;
                flag(f, a.noftz, Modifier::Noftz)?;
                opt(f, a.vector)?;
                write!(f, "{}", a.ty)
            }
            Bar(b) => {
                match b.action {
                    BarAction::Sync => f.write_str(".sync")?,
                    BarAction::Arrive => f.write_str(".arrive")?,
                    BarAction::Red(r) => write!(f, ".red{r}")?,
                }
                flag(f, b.aligned && b.spelling == BarSpelling::Barrier, Modifier::Aligned)?;
                opt(f, b.ty)
            }
            BarWarpSync => f.write_str(".warp.sync"),
            Membar(m) => write!(f, "{}", m.level),
            Fence(x) => write!(f, "{}{}", x.semantics, x.scope),
            Shfl(s) => {
                flag(f, s.sync, Modifier::Sync)?;
                write!(f, "{}{}", s.mode, s.ty)
            }
            Vote(v) => {
                flag(f, v.sync, Modifier::Sync)?;
                write!(f, "{}{}", v.mode, v.ty)
            }
            Activemask => f.write_str(".b32"),
            Redux(r) => {
                write!(f, ".sync{}", r.op)?;
                flag(f, r.abs, Modifier::Abs)?;
                flag(f, r.nan, Modifier::NanProp)?;
                write!(f, "{}", r.ty)
            }
            Match(x) => write!(f, "{}.sync{}", x.mode, x.ty),
            Bra(c) | Call(c) | Ret(c) => flag(f, c.uni, Modifier::Uni),
            Brx(c) => {
                f.write_str(".idx")?;
                flag(f, c.uni, Modifier::Uni)
            }
            Exit | Trap => Ok(()),
            CpAsync(c) => write!(f, ".async{}.shared.global", c.cache),
            CpAsyncCommit => f.write_str(".async.commit_group"),
            CpAsyncWait { all } => f.write_str(if all { ".async.wait_all" } else { ".async.wait_group" }),
            Ldmatrix(l) | Stmatrix(l) => write!(f, ".sync.aligned.m8n8.x{}{}.shared.b16", l.count, if l.trans { ".trans" } else { "" }),
            Wmma(w) => {
                let action = match w.action {
                    WmmaAction::LoadA => ".load.a",
                    WmmaAction::LoadB => ".load.b",
                    WmmaAction::LoadC => ".load.c",
                    WmmaAction::StoreD => ".store.d",
                    WmmaAction::Mma => ".mma",
                };
                write!(f, "{action}.sync.aligned{}", w.layout)?;
                if w.action == WmmaAction::Mma {
                    // D's type, A's and B's where they are not f16, then C's.
                    write!(f, "{}.m16n16k16{}", w.b_layout, w.ty)?;
                    if w.ab != Type::F16 {
                        write!(f, "{}{}", w.ab, w.ab)?;
                    }
                    return write!(f, "{}", w.c);
                }
                f.write_str(".m16n16k16")?;
                opt(f, w.space)?;
                write!(f, "{}", w.ty)
            }
            Wgmma(x) => write!(f, ".mma_async.sync.aligned.m64n{}k{}{}{}{}", x.n, x.k, x.d, x.a, x.b),
            WgmmaOrder(o) => f.write_str(match o {
                crate::ops::WgmmaOrder::Fence => ".fence.sync.aligned",
                crate::ops::WgmmaOrder::Commit => ".commit_group.sync.aligned",
                crate::ops::WgmmaOrder::Wait => ".wait_group.sync.aligned",
            }),
            FenceProxy { tensormap: false } => f.write_str(".proxy.async"),
            FenceProxy { tensormap: true } => f.write_str(".proxy.tensormap::generic"),
            TensormapReplace { field, global } => write!(f, ".replace.tile{}{}.b1024", field.modifier(), if global { ".global" } else { ".shared::cta" }),
            TensormapCopy => f.write_str(".cp_fenceproxy.global.shared::cta.tensormap::generic.sync.aligned"),
            Mbarrier(a) => {
                let action = match a {
                    MbarrierAction::Init => ".init",
                    MbarrierAction::Inval => ".inval",
                    MbarrierAction::Tx { complete: false } => ".expect_tx",
                    MbarrierAction::Tx { complete: true } => ".complete_tx",
                    MbarrierAction::Arrive { drop: false, expect_tx: false } => ".arrive",
                    MbarrierAction::Arrive { drop: false, expect_tx: true } => ".arrive.expect_tx",
                    MbarrierAction::Arrive { drop: true, expect_tx: false } => ".arrive_drop",
                    MbarrierAction::Arrive { drop: true, expect_tx: true } => ".arrive_drop.expect_tx",
                    MbarrierAction::Wait { try_wait: false, parity: false } => ".test_wait",
                    MbarrierAction::Wait { try_wait: false, parity: true } => ".test_wait.parity",
                    MbarrierAction::Wait { try_wait: true, parity: false } => ".try_wait",
                    MbarrierAction::Wait { try_wait: true, parity: true } => ".try_wait.parity",
                };
                write!(f, "{action}.shared.b64")
            }
            Elect => f.write_str(".sync"),
            Tcgen05(t) => match t {
                crate::ops::Tcgen05::Alloc => f.write_str(".alloc.cta_group::1.sync.aligned.shared::cta.b32"),
                crate::ops::Tcgen05::Dealloc => f.write_str(".dealloc.cta_group::1.sync.aligned.b32"),
                crate::ops::Tcgen05::Relinquish => f.write_str(".relinquish_alloc_permit.cta_group::1.sync.aligned"),
                crate::ops::Tcgen05::Move { load, shape, num, pack } => {
                    write!(f, "{}.sync.aligned{shape}{num}", if load { ".ld" } else { ".st" })?;
                    flag(f, pack, if load { Modifier::Pack16b } else { Modifier::Unpack16b })?;
                    f.write_str(".b32")
                }
                crate::ops::Tcgen05::Mma(kind) => write!(f, ".mma.cta_group::1{kind}"),
                crate::ops::Tcgen05::MmaScaled(kind) => {
                    let (name, block) = match kind {
                        TcScaledKind::Mxf8f6f4 => ("mxf8f6f4", 32),
                        TcScaledKind::Mxf4 => ("mxf4", 32),
                        TcScaledKind::Mxf4nvf4 => ("mxf4nvf4", 16),
                    };
                    write!(f, ".mma.cta_group::1.kind::{name}.block_scale.block{block}")
                }
                crate::ops::Tcgen05::Commit => f.write_str(".commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64"),
                crate::ops::Tcgen05::Wait { ld } => f.write_str(if ld { ".wait::ld.sync.aligned" } else { ".wait::st.sync.aligned" }),
                crate::ops::Tcgen05::Fence { after } => f.write_str(if after { ".fence::after_thread_sync" } else { ".fence::before_thread_sync" }),
            },
            Setmaxnreg { increase } => write!(f, "{}.sync.aligned.u32", if increase { ".inc" } else { ".dec" }),
            Griddepcontrol { wait } => f.write_str(if wait { ".wait" } else { ".launch_dependents" }),
            Createpolicy => f.write_str(".fractional.b64"),
            CpAsyncBulkTensor { rank, load: true } => write!(f, ".async.bulk.tensor.{rank}d.shared.global.tile.mbarrier::complete_tx::bytes"),
            CpAsyncBulkTensor { rank, load: false } => write!(f, ".async.bulk.tensor.{rank}d.global.shared.tile.bulk_group"),
            CpAsyncBulkOrder { wait } => f.write_str(if wait { ".async.bulk.wait_group" } else { ".async.bulk.commit_group" }),
            Mma(x) => {
                write!(f, ".sync.aligned{}{}{}", x.shape, x.a_layout, x.b_layout)?;
                flag(f, x.f8f6f4, Modifier::KindF8f6f4)?;
                let scale = x.scale.map(|kind| match kind {
                    MmaScaledKind::Mxf8f6f4 => (Modifier::KindMxf8f6f4, Modifier::ScaleVec1x, Modifier::Ue8m0),
                    MmaScaledKind::Mxf4 => (Modifier::KindMxf4, Modifier::ScaleVec2x, Modifier::Ue8m0),
                    MmaScaledKind::Mxf4nvf4 => (Modifier::KindMxf4nvf4, Modifier::ScaleVec4x, Modifier::Ue8m0),
                    MmaScaledKind::Nvf4 => (Modifier::KindMxf4nvf4, Modifier::ScaleVec4x, Modifier::Ue4m3),
                });
                if let Some((kind, vec, _)) = scale {
                    write!(f, "{kind}{}{vec}", Modifier::BlockScale)?;
                }
                flag(f, x.satfinite, Modifier::Satfinite)?;
                write!(f, "{}{}{}{}", x.d, x.a, x.b, x.c)?;
                scale.map_or(Ok(()), |(_, _, ty)| write!(f, "{ty}"))
            }
        }
    }
}

/// A dimension of a 3-component special register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// `.x`.
    X,
    /// `.y`.
    Y,
    /// `.z`.
    Z,
}

/// A special (read-only) register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecialReg {
    /// `%tid.d`: the thread's index in its block.
    Tid(Dim),
    /// `%ntid.d`: the block's extent.
    Ntid(Dim),
    /// `%ctaid.d`: the block's index in the grid.
    Ctaid(Dim),
    /// `%nctaid.d`: the grid's extent.
    Nctaid(Dim),
    /// `%laneid`.
    Laneid,
    /// `%warpid`.
    Warpid,
    /// `%nwarpid`.
    Nwarpid,
    /// `%smid`.
    Smid,
    /// `%nsmid`.
    Nsmid,
    /// `%gridid`.
    Gridid,
    /// `%lanemask_eq`.
    LanemaskEq,
    /// `%lanemask_le`.
    LanemaskLe,
    /// `%lanemask_lt`.
    LanemaskLt,
    /// `%lanemask_ge`.
    LanemaskGe,
    /// `%lanemask_gt`.
    LanemaskGt,
    /// `%clock`.
    Clock,
    /// `%clock64`.
    Clock64,
    /// `%globaltimer`.
    Globaltimer,
    /// `%dynamic_smem_size`.
    DynamicSmemSize,
    /// `%total_smem_size`.
    TotalSmemSize,
}

/// The constructor of a special register that takes a component (`%tid` needs `.x`).
pub(crate) type WithDim = fn(Dim) -> SpecialReg;

impl SpecialReg {
    /// The register named `name` (with its `%`) that takes no component, or the constructor
    /// of one that needs `.x`, `.y` or `.z`.
    pub(crate) fn lookup(name: &str) -> Option<Result<SpecialReg, WithDim>> {
        use SpecialReg::*;
        Some(match name {
            "%tid" => Err(Tid),
            "%ntid" => Err(Ntid),
            "%ctaid" => Err(Ctaid),
            "%nctaid" => Err(Nctaid),
            "%laneid" => Ok(Laneid),
            "%warpid" => Ok(Warpid),
            "%nwarpid" => Ok(Nwarpid),
            "%smid" => Ok(Smid),
            "%nsmid" => Ok(Nsmid),
            "%gridid" => Ok(Gridid),
            "%lanemask_eq" => Ok(LanemaskEq),
            "%lanemask_le" => Ok(LanemaskLe),
            "%lanemask_lt" => Ok(LanemaskLt),
            "%lanemask_ge" => Ok(LanemaskGe),
            "%lanemask_gt" => Ok(LanemaskGt),
            "%clock" => Ok(Clock),
            "%clock64" => Ok(Clock64),
            "%globaltimer" => Ok(Globaltimer),
            "%dynamic_smem_size" => Ok(DynamicSmemSize),
            "%total_smem_size" => Ok(TotalSmemSize),
            _ => return None,
        })
    }
}
