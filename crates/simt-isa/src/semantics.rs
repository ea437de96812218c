//! What an instruction reads, writes and accesses, derived from its table row.
//!
//! Every consumer (the interpreter, statistics, sanitizers, the CFG, the
//! timing backend, the fuzz generator) asks these functions instead of
//! keeping its own list of opcodes. The rules that need a modifier's value
//! (how many registers a load moves, how big an MMA fragment is) live here,
//! once; `table::tests` and this module's tests check that every row that
//! names a rule can answer it.

use crate::instr::{Instruction, Operand, PT, RZ, Src};
use crate::table::*;

/// The tensor-core shapes, each with its own fragment layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaShape {
    /// `MMA.M16N16K16`: lane `l` works on row `l >> 1`, half `l & 1`.
    M16N16K16,
    /// `MMA.M16N8K16`: the layout of PTX `mma.sync.aligned.m16n8k16`.
    M16N8K16,
    /// `MMA.SP.M16N16K32`: compressed A (16x16 kept values), B 32x16.
    SpM16N16K32,
    /// `MMA.M8N8K4`: the layout of PTX `mma.sync.aligned.m8n8k4` with f64 elements.
    M8N8K4,
    /// `MMA.M16N8K8`: the layout of PTX `mma.sync.aligned.m16n8k8` with TF32 elements.
    M16N8K8,
    /// `MMA.M16N8K32`: the layout of PTX `mma.sync.aligned.m16n8k32` with 8-bit elements.
    M16N8K32,
    /// `MMA.SCALED` of E2M1 pairs: the layout of PTX `mma.sync.aligned.m16n8k64` (`M16N8K32`'s
    /// bytes, two elements each).
    M16N8K64,
}

impl MmaShape {
    /// The shape of an MMA opcode (`Form::mma` says which is which); `None` for any other opcode.
    pub fn of(opcode: Opcode) -> Option<MmaShape> {
        Form::new(opcode).mma().map(|form| form.shape)
    }

    /// The opcode of the `MMA` row of this shape ([`MmaShape::of`]'s inverse; `MMA.SCALED` for
    /// `M16N8K64`, which only it has).
    pub fn opcode(self) -> Opcode {
        match self {
            MmaShape::M16N16K16 => Opcode::Mma,
            MmaShape::M16N8K16 => Opcode::MmaM16n8k16,
            MmaShape::SpM16N16K32 => Opcode::MmaSp,
            MmaShape::M8N8K4 => Opcode::MmaM8n8k4,
            MmaShape::M16N8K8 => Opcode::MmaM16n8k8,
            MmaShape::M16N8K32 => Opcode::MmaM16n8k32,
            MmaShape::M16N8K64 => Opcode::MmaScaled,
        }
    }

    /// The `MMA` shape a `WGMMA` of `input` elements is made of, `n / 8` of them side by side:
    /// K is 32 bytes of elements.
    pub fn warpgroup_slice(input: MmaIn) -> MmaShape {
        match input.bits() {
            32 => MmaShape::M16N8K8,
            8 => MmaShape::M16N8K32,
            _ => MmaShape::M16N8K16,
        }
    }

    /// The multiply-accumulates one operation does (for `MMA.SP`, the useful ones: the
    /// pruned zeros of A are not counted).
    pub fn macs(self) -> u64 {
        match self {
            MmaShape::M16N16K16 => 16 * 16 * 16,
            MmaShape::SpM16N16K32 => 16 * 16 * 32,
            MmaShape::M16N8K16 => 16 * 8 * 16,
            MmaShape::M8N8K4 => 8 * 8 * 4,
            MmaShape::M16N8K8 => 16 * 8 * 8,
            MmaShape::M16N8K32 => 16 * 8 * 32,
            MmaShape::M16N8K64 => 16 * 8 * 64,
        }
    }
}

/// One tensor-core operation: shape, accumulator and input types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MmaForm {
    /// Shape and layout.
    pub shape: MmaShape,
    /// Accumulator (and result) type.
    pub acc: MmaAcc,
    /// Type of `a` and `b`.
    pub input: MmaIn,
    /// An integer result clamped to the i32 range instead of wrapping (PTX's `.satfinite`).
    pub sat: bool,
}

impl MmaIn {
    /// Bits of one element in a fragment register.
    pub fn bits(self) -> u32 {
        match self {
            MmaIn::F16 | MmaIn::BF16 => 16,
            MmaIn::S8 | MmaIn::U8 | MmaIn::E4M3 | MmaIn::E5M2 => 8,
            MmaIn::E2M3 | MmaIn::E3M2 => 6,
            MmaIn::E2M1 | MmaIn::S4 | MmaIn::U4 => 4,
            MmaIn::TF32 => 32,
            MmaIn::F64 => 64,
        }
    }
}

impl MmaAcc {
    /// Bits of one accumulator element.
    pub fn bits(self) -> u32 {
        match self {
            MmaAcc::F16 => 16,
            MmaAcc::F32 | MmaAcc::S32 => 32,
            MmaAcc::F64 => 64,
        }
    }
}

impl MmaForm {
    /// Whether the contract defines this combination of shape and types.
    pub fn is_defined(self) -> bool {
        if self.sat && (self.shape, self.acc) != (MmaShape::M16N8K32, MmaAcc::S32) {
            return false;
        }
        match self.shape {
            MmaShape::M16N16K16 => matches!(
                (self.acc, self.input),
                (MmaAcc::F32, MmaIn::F16 | MmaIn::BF16 | MmaIn::TF32 | MmaIn::E4M3 | MmaIn::E5M2 | MmaIn::E2M1)
                    | (MmaAcc::F16, MmaIn::F16)
                    | (MmaAcc::S32, MmaIn::S8 | MmaIn::U8 | MmaIn::S4 | MmaIn::U4)
            ),
            MmaShape::M16N8K16 => matches!((self.acc, self.input), (MmaAcc::F32, MmaIn::F16 | MmaIn::BF16) | (MmaAcc::F16, MmaIn::F16)),
            MmaShape::SpM16N16K32 => self.acc == MmaAcc::F32 && matches!(self.input, MmaIn::F16 | MmaIn::BF16),
            MmaShape::M8N8K4 => self.acc == MmaAcc::F64 && self.input == MmaIn::F64,
            MmaShape::M16N8K8 => self.acc == MmaAcc::F32 && self.input == MmaIn::TF32,
            MmaShape::M16N8K32 => matches!((self.acc, self.input), (MmaAcc::S32, MmaIn::S8 | MmaIn::U8) | (MmaAcc::F32, MmaIn::E4M3 | MmaIn::E5M2)),
            MmaShape::M16N8K64 => (self.acc, self.input) == (MmaAcc::F32, MmaIn::E2M1),
        }
    }

    /// Every defined form of `shape`, in encoding order.
    pub fn defined(shape: MmaShape) -> impl Iterator<Item = MmaForm> {
        MmaAcc::ALL.iter().flat_map(move |&acc| MmaIn::ALL.iter().map(move |&input| MmaForm { shape, acc, input, sat: false })).filter(|f| f.is_defined())
    }

    /// The type combinations the shape has, for messages (`.F32.F16, .F32.BF16 or ...`).
    pub fn defined_types(shape: MmaShape) -> String {
        let types: Vec<String> = MmaForm::defined(shape).map(|f| format!(".{}.{}", f.acc, f.input)).collect();
        match types.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => types.concat(),
        }
    }

    /// Registers of the fragment of operand `role` (`d` has `c`'s).
    pub fn regs(self, role: FragRole) -> u8 {
        // Elements per lane: 16x16 tiles hold 8 per lane; the 16x8 tile's C and B hold 4;
        // the sparse shape's B (32x16) holds 16; the 8x8x4 shape's A and B 1, C 2; the
        // 16x8x8 shape's A (16x8) and C 4, B (8x8) 2; the 16x8x32 shape's A (16x32) 16, B
        // (32x8) 8, C 4; the 16x8x64 shape's A 32, B 16, C 4.
        let elements = match (self.shape, role) {
            (MmaShape::M16N8K32, FragRole::A) => 16,
            (MmaShape::M16N8K32, FragRole::B) => 8,
            (MmaShape::M16N8K32 | MmaShape::M16N8K64, FragRole::C) => 4,
            (MmaShape::M16N8K64, FragRole::A) => 32,
            (MmaShape::M16N8K64, FragRole::B) => 16,
            (MmaShape::M16N8K16, FragRole::B | FragRole::C) | (MmaShape::M16N8K8, FragRole::A | FragRole::C) => 4,
            (MmaShape::M16N8K8, FragRole::B) => 2,
            (MmaShape::SpM16N16K32, FragRole::B) => 16,
            (MmaShape::M8N8K4, FragRole::A | FragRole::B) => 1,
            (MmaShape::M8N8K4, FragRole::C) => 2,
            _ => 8,
        };
        let bits = match role {
            FragRole::A | FragRole::B => self.input.bits(),
            FragRole::C => self.acc.bits(),
        };
        (elements * bits).div_ceil(32) as u8
    }

    /// The alignment of every fragment's first register: 2 where elements are f64 pairs.
    pub fn reg_align(self) -> u8 {
        if self.input == MmaIn::F64 || self.acc == MmaAcc::F64 { 2 } else { 1 }
    }
}

/// How an instruction touches memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    /// Reads.
    Load,
    /// Writes.
    Store,
    /// Reads, modifies and writes indivisibly.
    Atomic,
}

/// Where SHARED memory lies in the 64-bit generic address space: a generic address whose
/// high word is this one's is the SHARED offset in its low word (PTX `cvta.shared` adds it,
/// `cvta.to.shared` takes it off, `isspacep.shared` tests for it). The shared and local
/// windows lie above 2^47, where no host address is (x86-64 and AArch64 user space ends
/// below), so no GLOBAL address, however a buffer was lent, falls in one.
pub const SHARED_WINDOW: u64 = 0x0001_0000_0000_0000;
/// Where the thread's LOCAL memory lies in the generic address space (as [`SHARED_WINDOW`]).
pub const LOCAL_WINDOW: u64 = 0x0002_0000_0000_0000;

/// The memory side of an instruction, per lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemAccess {
    /// Memory space. A `GENERIC` access says GLOBAL here: the space of each lane's address
    /// is known only when it executes (`simt_interp::Access` has it), and global is where
    /// compiled code's generic accesses mostly go.
    pub space: Space,
    /// Whether the space comes from each lane's 64-bit address (`GENERIC`).
    pub generic: bool,
    /// Whether the address is a 64-bit register pair (`E`).
    pub wide: bool,
    /// Load, store or atomic.
    pub kind: AccessKind,
    /// Bytes one lane moves.
    pub size: u32,
    /// Registers of data per lane.
    pub regs: u8,
}

impl MemAccess {
    /// An mbarrier's 8 bytes of SHARED memory, read, written or both at once.
    fn mbarrier(kind: AccessKind) -> MemAccess {
        MemAccess { space: Space::Shared, generic: false, wide: false, kind, size: 8, regs: 0 }
    }

    fn data(space: MemSpace, addr: AddrWidth, kind: AccessKind, vec: VecWidth, ty: MemType) -> MemAccess {
        let regs = match (vec, ty) {
            (VecWidth::V2, _) => 2,
            (VecWidth::V4, _) => 4,
            (_, MemType::B64 | MemType::F64) => 2,
            _ => 1,
        };
        let size = match ty {
            MemType::U8 | MemType::S8 => 1,
            MemType::U16 | MemType::S16 => 2,
            _ => 4 * u32::from(regs),
        };
        MemAccess { space: space.space().unwrap_or(Space::Global), generic: space == MemSpace::Generic, wide: addr == AddrWidth::E, kind, size, regs }
    }

    /// An atomic of `bytes` bytes: a half, a word, or a 64-bit pair.
    fn atomic(space: AtomSpace, addr: AddrWidth, bytes: u32) -> MemAccess {
        let regs = bytes.div_ceil(4) as u8;
        MemAccess { size: bytes, regs, ..MemAccess::data(space.into(), addr, AccessKind::Atomic, VecWidth::Scalar, MemType::B32) }
    }

    /// `LDSM`'s (`STSM`'s, `kind` a store): each lane receives (gives) a word per matrix, so
    /// `size` counts those; the rows it reads (writes) are 16 bytes from each of the first
    /// `8 x count` lanes' addresses ([`MatrixCount::row_lanes`]).
    fn matrices(count: MatrixCount, kind: AccessKind) -> MemAccess {
        let regs = count.matrices();
        MemAccess { size: 4 * u32::from(regs), regs, ..MemAccess::data(MemSpace::Shared, AddrWidth::W32, kind, VecWidth::Scalar, MemType::B32) }
    }
}

impl TmemShape {
    /// The most registers a `TMEM.LD` or `TMEM.ST` moves (PTX's `.32x32b.x128`).
    pub const MAX_REGISTERS: u32 = 128;

    /// The registers of one repetition: a cell per register of each of the warp's 32 threads.
    pub fn registers_per_repetition(self) -> u32 {
        match self {
            TmemShape::L16x128b => 2,
            TmemShape::L16x256b => 4,
            TmemShape::L32x32b | TmemShape::L16x64b | TmemShape::L16x32bx2 => 1,
        }
    }

    /// The 32-bit columns one repetition spans (unpacked): a register's cell each, but for
    /// `16X64B`'s two columns a register, `16X128B`'s four a register pair, `16X256B`'s eight.
    pub fn columns_per_repetition(self) -> u32 {
        match self {
            TmemShape::L16x64b => 2,
            TmemShape::L16x128b => 4,
            TmemShape::L16x256b => 8,
            TmemShape::L32x32b | TmemShape::L16x32bx2 => 1,
        }
    }

    /// The registers of `num` repetitions.
    pub fn registers(self, num: TmemNum) -> u32 {
        self.registers_per_repetition() * num.count()
    }
}

impl TmemNum {
    /// The number of repetitions.
    pub fn count(self) -> u32 {
        1 << self.index()
    }
}

impl TcKind {
    /// K, the columns of A one `TCMMA` of this kind multiplies: 32 bytes of its elements.
    pub fn k(self) -> u32 {
        match self {
            TcKind::F16 => 16,
            TcKind::Tf32 => 8,
            TcKind::F8f6f4 | TcKind::I8 => 32,
        }
    }

    /// The MMA shape a `TCMMA` of this kind is computed as, 16 rows by 8 columns at a time.
    pub fn slice(self) -> MmaShape {
        match self {
            TcKind::F16 => MmaShape::M16N8K16,
            TcKind::Tf32 => MmaShape::M16N8K8,
            TcKind::F8f6f4 | TcKind::I8 => MmaShape::M16N8K32,
        }
    }
}

impl TcScaledKind {
    /// The `MMA.SCALED` kind of the same elements and blocks (a `TCMMA`'s instruction
    /// descriptor, not its kind, says whether `MXF4NVF4`'s scales are E4M3).
    fn blocks_as(self) -> MmaScaledKind {
        match self {
            TcScaledKind::Mxf8f6f4 => MmaScaledKind::Mxf8f6f4,
            TcScaledKind::Mxf4 => MmaScaledKind::Mxf4,
            TcScaledKind::Mxf4nvf4 => MmaScaledKind::Mxf4nvf4,
        }
    }

    /// K, the columns of A one `TCMMA` of this kind multiplies: 32 bytes of its elements.
    pub fn k(self) -> u32 {
        self.blocks_as().k()
    }

    /// The elements along K that share a scale.
    pub fn block(self) -> u32 {
        self.blocks_as().block()
    }
}

impl MmaScaledKind {
    /// K, the columns of A one MMA of this kind multiplies: 32 bytes of its elements.
    pub fn k(self) -> u32 {
        match self {
            MmaScaledKind::Mxf8f6f4 => 32,
            _ => 64,
        }
    }

    /// The elements along K that share a scale.
    pub fn block(self) -> u32 {
        match self {
            MmaScaledKind::Mxf8f6f4 | MmaScaledKind::Mxf4 => 32,
            MmaScaledKind::Mxf4nvf4 | MmaScaledKind::Nvf4 => 16,
        }
    }

    /// The scales of a row of A (a column of B) one MMA of this kind takes, a K block each
    /// (PTX's `.scale_vec::1X`, `2X`, `4X`).
    pub fn blocks(self) -> u32 {
        self.k() / self.block()
    }

    /// Whether the scales are E4M3 (PTX's `.ue4m3`) rather than E8M0.
    pub fn e4m3_scales(self) -> bool {
        self == MmaScaledKind::Nvf4
    }

    /// The shape: K 32 bytes of E4M3 or E5M2, or 64 E2M1 elements.
    pub fn shape(self) -> MmaShape {
        match self {
            MmaScaledKind::Mxf8f6f4 => MmaShape::M16N8K32,
            _ => MmaShape::M16N8K64,
        }
    }

    /// Whether it multiplies A of type `a` by B of type `b`: any 8-, 6- or 4-bit float each
    /// (`MXF8F6F4`), or E2M1.
    pub fn takes(self, a: MmaIn, b: MmaIn) -> bool {
        match self {
            MmaScaledKind::Mxf8f6f4 => [a, b].iter().all(|t| matches!(t, MmaIn::E4M3 | MmaIn::E5M2 | MmaIn::E2M3 | MmaIn::E3M2 | MmaIn::E2M1)),
            _ => (a, b) == (MmaIn::E2M1, MmaIn::E2M1),
        }
    }

    /// The type whose fragment layout the elements take: `MXF8F6F4` holds each element in a
    /// byte of its own (a 6-bit one in bits 5-0, E2M1 in bits 5-2), laid out as E4M3; the fp4
    /// kinds pack two E2M1 to a byte.
    pub fn container(self) -> MmaIn {
        match self {
            MmaScaledKind::Mxf8f6f4 => MmaIn::E4M3,
            _ => MmaIn::E2M1,
        }
    }
}

/// Where an `MMA.SCALED` finds its scales: PTX's `{byte-id, thread-id}` for A and for B, the
/// hex digits of its `sel` operand (`0x<ba><ta><bb><tb>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScaleSelectors {
    /// The byte of A's scale word holding its first K block's scale.
    pub a_byte: u32,
    /// Which pair of each quad's lanes holds A's scales (0: lanes 0 and 1, 1: lanes 2 and 3).
    pub a_thread: u32,
    /// The byte of B's scale word holding its first K block's scale.
    pub b_byte: u32,
    /// Which lane of each quad holds B's scales.
    pub b_thread: u32,
}

impl ScaleSelectors {
    /// The selectors `sel` holds.
    pub fn of(sel: u32) -> ScaleSelectors {
        let digit = |at: u32| (sel >> at) & 0xF;
        ScaleSelectors { a_byte: digit(12), a_thread: digit(8), b_byte: digit(4), b_thread: digit(0) }
    }

    /// Why `sel` cannot select the scales of `kind`, if it cannot: a scale word has four bytes,
    /// a kind's scales start at a multiple of their count (PTX's byte-id 0 to 3 for
    /// `.scale_vec::1X`, 0 or 2 for `2X`, 0 for `4X`), two lanes of a quad hold A's and one B's.
    pub fn check(sel: u32, kind: MmaScaledKind) -> Result<ScaleSelectors, String> {
        let s = ScaleSelectors::of(sel);
        let blocks = kind.blocks();
        let bytes = match blocks {
            1 => "0, 1, 2 or 3",
            2 => "0 or 2",
            _ => "0",
        };
        if sel > 0xFFFF {
            return Err(format!("sel {sel:#x} has more than four hex digits (0x<ba><ta><bb><tb>)"));
        }
        for (name, byte) in [("A", s.a_byte), ("B", s.b_byte)] {
            if byte % blocks != 0 || byte >= 4 {
                return Err(format!("{name}'s scales start at byte {byte}, but {kind} takes {blocks} a row (column), from byte {bytes} of the word"));
            }
        }
        if s.a_thread > 1 {
            return Err(format!("A's thread selector is {}: two lanes of each quad hold A's scales, pair 0 or 1", s.a_thread));
        }
        if s.b_thread > 3 {
            return Err(format!("B's thread selector is {}: one lane of each quad holds B's scales, 0 to 3", s.b_thread));
        }
        Ok(s)
    }

    /// The lane holding the scales of row `m` (0 .. 15) of A.
    pub fn a_lane(self, m: u32) -> usize {
        (4 * (m % 8) + 2 * self.a_thread + m / 8) as usize
    }

    /// The lane holding the scales of column `n` (0 .. 7) of B.
    pub fn b_lane(self, n: u32) -> usize {
        (4 * n + self.b_thread) as usize
    }
}

/// What a `TCMMA` multiplies: a plain kind, or a block-scaled one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcmmaKind {
    /// `TCMMA.<kind>` and `TCMMA.TS.<kind>`.
    Plain(TcKind),
    /// `TCMMA.<kind>` of a [`TcScaledKind`].
    Scaled(TcScaledKind),
}

impl TcmmaKind {
    /// K, the columns of A one `TCMMA` multiplies.
    pub fn k(self) -> u32 {
        match self {
            TcmmaKind::Plain(kind) => kind.k(),
            TcmmaKind::Scaled(kind) => kind.k(),
        }
    }
}

impl std::fmt::Display for TcmmaKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TcmmaKind::Plain(kind) => kind.fmt(f),
            TcmmaKind::Scaled(kind) => kind.fmt(f),
        }
    }
}

impl MatrixCount {
    /// The number of matrices.
    pub fn matrices(self) -> u8 {
        match self {
            MatrixCount::X1 => 1,
            MatrixCount::X2 => 2,
            MatrixCount::X4 => 4,
        }
    }

    /// The lanes whose addresses name the matrices' rows, 8 a matrix.
    pub fn row_lanes(self) -> u32 {
        u32::MAX >> (32 - 8 * u32::from(self.matrices()))
    }
}

impl Form {
    /// How this form touches memory; `None` for one that does not.
    pub fn access(&self) -> Option<MemAccess> {
        match *self {
            Form::Ld(mods::Ld { space, addr, vec, ty }) => Some(MemAccess::data(space, addr, AccessKind::Load, vec, ty)),
            Form::St(mods::St { space, addr, vec, ty }) => Some(MemAccess::data(space, addr, AccessKind::Store, vec, ty)),
            Form::Atom(mods::Atom { space, addr, ty, .. }) => Some(MemAccess::atomic(space, addr, ty.bytes())),
            Form::AtomCas(mods::AtomCas { space, addr, ty }) => Some(MemAccess::atomic(space, addr, if ty == CasType::B64 { 8 } else { 4 })),
            Form::Ldsm(mods::Ldsm { count, .. }) => Some(MemAccess::matrices(count, AccessKind::Load)),
            Form::Stsm(mods::Stsm { count, .. }) => Some(MemAccess::matrices(count, AccessKind::Store)),
            Form::MbarInit(_) => Some(MemAccess::mbarrier(AccessKind::Store)),
            Form::MbarArrive(_) | Form::MbarTx(_) => Some(MemAccess::mbarrier(AccessKind::Atomic)),
            Form::MbarTest(_) => Some(MemAccess::mbarrier(AccessKind::Load)),
            Form::TcmmaCommit(_) => Some(MemAccess::mbarrier(AccessKind::Atomic)),
            // The allocation's address, a word the instruction makes rather than a register's.
            Form::TmemAlloc(_) => Some(MemAccess { size: 4, regs: 0, ..MemAccess::mbarrier(AccessKind::Store) }),
            // The GLOBAL side: what the memory system serves. The SHARED side is written as it issues.
            Form::Ldgsts(mods::Ldgsts { addr, vec }) => {
                Some(MemAccess { regs: 0, ..MemAccess::data(MemSpace::Global, addr, AccessKind::Load, vec, MemType::B32) })
            }
            _ => None,
        }
    }

    /// The tensor-core operation of an MMA form; `None` for any other.
    pub fn mma(&self) -> Option<MmaForm> {
        if let Form::MmaM16n8k32(mods::MmaM16n8k32 { acc, input, sat }) = *self {
            return Some(MmaForm { shape: MmaShape::M16N8K32, acc, input, sat: sat == Sat::Yes });
        }
        if let Form::MmaScaled(mods::MmaScaled { kind, .. }) = *self {
            return Some(MmaForm { shape: kind.shape(), acc: MmaAcc::F32, input: kind.container(), sat: false });
        }
        let (shape, acc, input) = match *self {
            Form::Mma(mods::Mma { acc, input }) => (MmaShape::M16N16K16, acc, input),
            Form::MmaM16n8k16(mods::MmaM16n8k16 { acc, input }) => (MmaShape::M16N8K16, acc, input),
            Form::MmaSp(mods::MmaSp { acc, input }) => (MmaShape::SpM16N16K32, acc, input),
            Form::MmaM8n8k4(mods::MmaM8n8k4 { acc, input }) => (MmaShape::M8N8K4, acc, input),
            Form::MmaM16n8k8(mods::MmaM16n8k8 { acc, input }) => (MmaShape::M16N8K8, acc, input),
            Form::Wgmma(mods::Wgmma { acc, input, .. }) => (MmaShape::warpgroup_slice(input), acc, input),
            _ => return None,
        };
        Some(MmaForm { shape, acc, input, sat: false })
    }

    /// Whether the contract defines this form: every form but an `ATOM` of a type its operation
    /// does not take, a `TMEM.LD` or `TMEM.ST` of more than 128 registers, an MMA of types its shape lacks, or a `WGMMA` transposing what it cannot
    /// (a type other than F16 and BF16, A in registers).
    pub fn is_defined(&self) -> bool {
        if let Form::Atom(mods::Atom { op, ty, .. }) = *self {
            return op.types().contains(&ty);
        }
        if let Some((shape, num, _)) = self.tmem_access() {
            return shape.registers(num) <= TmemShape::MAX_REGISTERS;
        }
        if let Form::MmaScaled(mods::MmaScaled { kind, a, b }) = *self {
            return kind.takes(a, b);
        }
        let Some(mma) = self.mma() else { return true };
        let transposable = match self.wgmma() {
            Some((src, trans)) => {
                (trans == WgmmaTrans::Nn || mma.input.bits() == 16) && (src == WgmmaSrc::Ss || matches!(trans, WgmmaTrans::Nn | WgmmaTrans::Nt))
            }
            None => true,
        };
        mma.is_defined() && transposable
    }

    /// Where a `WGMMA` reads A, and which of its shared-memory operands are transposed;
    /// `None` for any other form.
    pub fn wgmma(&self) -> Option<(WgmmaSrc, WgmmaTrans)> {
        match *self {
            Form::Wgmma(mods::Wgmma { src, trans, .. }) => Some((src, trans)),
            _ => None,
        }
    }

    /// The shape, repetitions and packing of a `TMEM.LD` or `TMEM.ST`; `None` for any other form.
    pub fn tmem_access(&self) -> Option<(TmemShape, TmemNum, TmemPack)> {
        match *self {
            Form::TmemLd(mods::TmemLd { shape, num, pack }) | Form::TmemSt(mods::TmemSt { shape, num, pack }) => Some((shape, num, pack)),
            _ => None,
        }
    }

    /// The kind of an `MMA.SCALED` and the types of A and B; `None` for any other form.
    pub fn scaled_mma(&self) -> Option<(MmaScaledKind, MmaIn, MmaIn)> {
        match *self {
            Form::MmaScaled(mods::MmaScaled { kind, a, b }) => Some((kind, a, b)),
            _ => None,
        }
    }

    /// The kind of a `TCMMA` (either source of A, scaled or not); `None` for any other form.
    pub fn tcmma(&self) -> Option<TcmmaKind> {
        match *self {
            Form::Tcmma(mods::Tcmma { kind }) | Form::TcmmaTs(mods::TcmmaTs { kind }) => Some(TcmmaKind::Plain(kind)),
            Form::TcmmaMx(mods::TcmmaMx { kind }) => Some(TcmmaKind::Scaled(kind)),
            _ => None,
        }
    }

    /// How many coordinates name a `TMA` copy's box; `None` for any other form.
    pub fn tensor_rank(&self) -> Option<u8> {
        match *self {
            Form::TmaLoad(mods::TmaLoad { rank }) | Form::TmaStore(mods::TmaStore { rank }) => Some(rank.index() + 1),
            _ => None,
        }
    }

    /// The destination and source types of a `CVT`.
    pub fn conversion(&self) -> Option<(CvtType, CvtType)> {
        match *self {
            Form::Cvt(mods::Cvt { to, from, .. }) => Some((to, from)),
            _ => None,
        }
    }
}

/// A set of registers `R0 .. R254` (`RZ` is never in it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RegSet([u64; 4]);

impl RegSet {
    /// No register.
    pub const EMPTY: RegSet = RegSet([0; 4]);

    /// Adds `count` registers from `first` (those past `R254` are ignored).
    pub fn insert_range(&mut self, first: u8, count: u8) {
        for r in u32::from(first)..(u32::from(first) + u32::from(count)).min(u32::from(RZ)) {
            self.0[(r / 64) as usize] |= 1 << (r % 64);
        }
    }

    /// Whether `reg` is in the set.
    pub fn contains(&self, reg: u8) -> bool {
        self.0[usize::from(reg / 64)] & (1 << (reg % 64)) != 0
    }

    /// Whether the sets share a register.
    pub fn intersects(&self, other: &RegSet) -> bool {
        self.0.iter().zip(other.0).any(|(a, b)| a & b != 0)
    }

    /// Both sets.
    pub fn union(&self, other: &RegSet) -> RegSet {
        RegSet(std::array::from_fn(|i| self.0[i] | other.0[i]))
    }

    /// Registers in this set but not in `other`.
    pub fn difference(&self, other: &RegSet) -> RegSet {
        RegSet(std::array::from_fn(|i| self.0[i] & !other.0[i]))
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }

    /// How many registers.
    pub fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// The registers, lowest first.
    pub fn iter(&self) -> impl Iterator<Item = u8> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &word)| {
            let mut bits = word;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let r = bits.trailing_zeros();
                    bits &= bits - 1;
                    (64 * i as u32 + r) as u8
                })
            })
        })
    }
}

/// Everything an instruction reads and writes besides memory contents, derived once
/// per pc: what a scoreboard, a sanitizer or a trace needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Effects {
    /// Registers read (sources, address bases, fragments).
    pub reads: RegSet,
    /// Registers written.
    pub writes: RegSet,
    /// Predicates read (bit `i` for `Pi`; the guard included; `PT` never).
    pub pred_reads: u8,
    /// Predicates written.
    pub pred_writes: u8,
    /// How it touches memory, if it does.
    pub access: Option<MemAccess>,
}

fn pred_bit(p: u8) -> u8 {
    if p < PT { 1 << p } else { 0 }
}

impl Instruction {
    /// How many consecutive registers operand `index` names.
    pub fn reg_count(&self, index: usize) -> u8 {
        let width = match self.info().operands.get(index).map(|o| o.kind) {
            Some(OperandKind::Dst(w) | OperandKind::Src { width: w, .. } | OperandKind::Reg(w)) => w,
            _ => return 1,
        };
        match width {
            Width::One | Width::Members => 1,
            Width::Pair => 2,
            Width::Data | Width::Matrices => self.form.access().map_or(1, |a| a.regs),
            Width::Converted => {
                let (to, from) = self.form.conversion().unwrap_or((CvtType::U32, CvtType::U32));
                let ty = if index == 0 { to } else { from };
                if ty.is_pair() { 2 } else { 1 }
            }
            Width::Literal => match self.operands[1] {
                Operand::Src(Src::Imm { wide: true, .. }) => 2,
                _ => 1,
            },
            Width::Fragment(role) => self.form.mma().map_or(1, |m| m.regs(role)),
            // At least one register, so that a `WGMMA` of too few columns is refused for its
            // `n` (the `interp` fuzzer's crash-64d67ac: `n = 1` named none).
            Width::Warpgroup(FragRole::C) => match (self.operands[3], self.form.mma()) {
                (Operand::Imm(n), Some(mma)) => (n.min(256) * mma.acc.bits() / 64).max(1) as u8,
                _ => 1,
            },
            Width::Warpgroup(_) => match self.form.wgmma() {
                Some((WgmmaSrc::Ss, _)) => 2,
                _ => 4,
            },
            Width::Coordinates => self.form.tensor_rank().unwrap_or(1),
            Width::Quad => 4,
            Width::Tmem => self.form.tmem_access().map_or(1, |(shape, num, _)| shape.registers(num).min(TmemShape::MAX_REGISTERS) as u8),
            Width::Printed => match self.operands[0] {
                // The span from `a` to the last word read, pads included.
                Operand::Format { used, .. } => (64 - used.leading_zeros()) as u8,
                _ => 0,
            },
        }
    }

    /// How a literal in source operand `index` is read.
    pub fn lit_kind(&self, index: usize) -> LitKind {
        match self.info().operands.get(index).map(|o| o.kind) {
            Some(OperandKind::Src { lit: LitKind::Converted, .. }) => match self.form.conversion().map(|(_, from)| from) {
                Some(CvtType::U32 | CvtType::S32) => LitKind::Int,
                Some(CvtType::F32) => LitKind::F32,
                Some(CvtType::F64) => LitKind::F64,
                _ => LitKind::NoLiteral,
            },
            Some(OperandKind::Src { lit, .. }) => lit,
            _ => LitKind::NoLiteral,
        }
    }

    /// Registers written, as (first, count) ranges; `RZ` is left out.
    pub fn written_regs(&self) -> impl Iterator<Item = (u8, u8)> + '_ {
        self.info().operands.iter().enumerate().filter_map(move |(i, spec)| match (spec.kind, self.operands[i]) {
            (OperandKind::Dst(_), Operand::Reg(r)) if r != RZ => Some((r, self.reg_count(i))),
            _ => None,
        })
    }

    /// Registers read, as (first, count) ranges; `RZ` is left out.
    pub fn read_regs(&self) -> impl Iterator<Item = (u8, u8)> + '_ {
        (0..self.info().operands.len()).flat_map(move |i| {
            // (first, count, words): `words` has bit `k` set for each range `first + k * count`
            // read; `PRINTF`'s arguments are read word by word, the pads between them not at all.
            let (first, count, words) = match (self.operands[i], self.operands[0]) {
                (Operand::Src(Src::Reg { reg, .. }), Operand::Format { used, .. }) if reg != RZ => (reg, 1, used),
                (Operand::Src(Src::Reg { reg, .. }), _) if reg != RZ => (reg, self.reg_count(i), 1),
                // `WGMMA` accumulates into `d` unless its `q` is `!PT` (PTX's scale-d of 0).
                (Operand::Reg(reg), _)
                    if reg != RZ
                        && self.info().operands[i].kind == OperandKind::Dst(Width::Warpgroup(FragRole::C))
                        && self.operands[4] != (Operand::PredSrc { pred: PT, negated: true }) =>
                {
                    (reg, self.reg_count(i), 1)
                }
                (Operand::Addr { base, .. }, _) if base != RZ => (base, if self.form.access().is_some_and(|a| a.wide) { 2 } else { 1 }, 1),
                _ => (0, 0, 0),
            };
            std::iter::successors((words != 0).then_some(words), |w| Some(w & (w - 1)).filter(|&w| w != 0))
                .map(move |w| (first.saturating_add(w.trailing_zeros() as u8 * count), count))
        })
    }

    /// The highest register this instruction names, if any.
    pub fn max_reg(&self) -> Option<u32> {
        self.written_regs().chain(self.read_regs()).map(|(r, n)| u32::from(r) + u32::from(n) - 1).max()
    }

    /// How many of its form's MMAs (`Form::mma`) one execution is: `n / 8` side by side for a
    /// `WGMMA`, else 1.
    pub fn mma_slices(&self) -> u64 {
        match (self.form.wgmma(), self.operands[3]) {
            (Some(_), Operand::Imm(n)) => u64::from(n / 8),
            _ => 1,
        }
    }

    /// What this instruction reads, writes and accesses.
    pub fn effects(&self) -> Effects {
        let mut e = Effects { access: self.form.access(), pred_reads: pred_bit(self.guard.pred), ..Effects::default() };
        for (first, count) in self.read_regs() {
            e.reads.insert_range(first, count);
        }
        for (first, count) in self.written_regs() {
            e.writes.insert_range(first, count);
        }
        for op in self.operands() {
            match *op {
                Operand::PredSrc { pred, .. } => e.pred_reads |= pred_bit(pred),
                Operand::Pred(p) => e.pred_writes |= pred_bit(p),
                _ => {}
            }
        }
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instr::Guard;

    /// A `WGMMA` is made of another row's shape, and so is an `MMA.SCALED` of 8-bit types; only
    /// `MMA.SCALED` has `M16N8K64`.
    #[test]
    fn every_mma_shape_names_its_opcode() {
        for row in TABLE {
            let form = Form::new(row.opcode);
            if let Some(shape) = MmaShape::of(row.opcode).filter(|_| form.wgmma().is_none() && form.scaled_mma().is_none()) {
                assert_eq!(shape.opcode(), row.opcode);
            }
        }
        assert_eq!(MmaShape::M16N8K64.opcode(), Opcode::MmaScaled);
    }

    /// Every row that names a rule must be able to answer it, so a new row cannot
    /// silently fall back to one register or no memory access.
    #[test]
    fn every_row_has_what_the_layers_need() {
        for row in TABLE {
            let form = Form::new(row.opcode);
            let memory = row.flags.intersects(Flags::LOAD.union(Flags::STORE).union(Flags::ATOMIC));
            assert_eq!(form.access().is_some(), memory, "{}: memory flags and access rule disagree", row.syntax());
            assert_eq!(row.latency == LatencyClass::Memory, memory, "{}: memory latency class", row.syntax());
            assert_eq!(form.mma().is_some() || form.tcmma().is_some(), row.unit == Unit::Tensor, "{}: tensor unit and MMA rule disagree", row.syntax());
            assert_eq!(row.latency == LatencyClass::Tensor, row.unit == Unit::Tensor, "{}: tensor latency class", row.syntax());
            if row.flags.contains(Flags::ATOMIC) {
                assert!(row.flags.contains(Flags::LOAD.union(Flags::STORE)), "{}: an atomic loads and stores", row.syntax());
            }
            for spec in row.operands {
                let width = match spec.kind {
                    OperandKind::Dst(w) | OperandKind::Src { width: w, .. } | OperandKind::Reg(w) => w,
                    _ => continue,
                };
                let answered = match width {
                    Width::One | Width::Pair | Width::Literal | Width::Members => true,
                    Width::Data | Width::Matrices => form.access().is_some(),
                    Width::Converted => form.conversion().is_some(),
                    Width::Fragment(_) => form.mma().is_some(),
                    Width::Printed => row.operands.first().is_some_and(|o| o.kind == OperandKind::Format),
                    Width::Warpgroup(_) => form.wgmma().is_some(),
                    Width::Coordinates => form.tensor_rank().is_some(),
                    Width::Tmem => form.tmem_access().is_some(),
                    Width::Quad => true,
                };
                assert!(answered, "{}: operand `{}` names a width rule the form cannot answer", row.syntax(), spec.name);
            }
            if let OperandKind::Src { lit: LitKind::Converted, .. } = row.operands.get(1).map_or(OperandKind::Imm, |o| o.kind) {
                assert!(form.conversion().is_some(), "{}", row.syntax());
            }
            let label = row.operands.iter().any(|o| o.kind == OperandKind::Label);
            assert_eq!(label, row.flags.contains(Flags::BRANCH), "{}: a branch has a label", row.syntax());
        }
    }

    #[test]
    fn fragment_sizes_follow_the_contract() {
        let form = |shape, acc, input| MmaForm { shape, acc, input, sat: false };
        let regs = |f: MmaForm| [f.regs(FragRole::A), f.regs(FragRole::B), f.regs(FragRole::C)];
        assert_eq!(regs(form(MmaShape::M16N16K16, MmaAcc::F32, MmaIn::F16)), [4, 4, 8]);
        assert_eq!(regs(form(MmaShape::M16N16K16, MmaAcc::F16, MmaIn::F16)), [4, 4, 4]);
        assert_eq!(regs(form(MmaShape::M16N16K16, MmaAcc::S32, MmaIn::S8)), [2, 2, 8]);
        assert_eq!(regs(form(MmaShape::M16N8K16, MmaAcc::F32, MmaIn::BF16)), [4, 2, 4]);
        assert_eq!(regs(form(MmaShape::SpM16N16K32, MmaAcc::F32, MmaIn::F16)), [4, 8, 8]);
        assert_eq!(regs(form(MmaShape::M16N16K16, MmaAcc::F32, MmaIn::TF32)), [8, 8, 8]);
        assert_eq!(regs(form(MmaShape::M16N16K16, MmaAcc::F32, MmaIn::E4M3)), [2, 2, 8]);
        assert_eq!(regs(form(MmaShape::M16N16K16, MmaAcc::F32, MmaIn::E5M2)), [2, 2, 8]);
        assert_eq!(regs(form(MmaShape::M16N16K16, MmaAcc::F32, MmaIn::E2M1)), [1, 1, 8]);
        assert_eq!(regs(form(MmaShape::M16N16K16, MmaAcc::S32, MmaIn::S4)), [1, 1, 8]);
        assert_eq!(regs(form(MmaShape::M16N16K16, MmaAcc::S32, MmaIn::U4)), [1, 1, 8]);
        assert_eq!(regs(form(MmaShape::M8N8K4, MmaAcc::F64, MmaIn::F64)), [2, 2, 4]);
        assert_eq!(regs(form(MmaShape::M16N8K8, MmaAcc::F32, MmaIn::TF32)), [4, 2, 4]);
        assert_eq!(regs(form(MmaShape::M16N8K32, MmaAcc::S32, MmaIn::S8)), [4, 2, 4]);
        assert_eq!(regs(form(MmaShape::M16N8K32, MmaAcc::F32, MmaIn::E4M3)), [4, 2, 4]);
    }

    #[test]
    fn effects_name_registers_and_predicates() {
        let mut ld = Instruction::new(Opcode::Ld);
        ld.form = Form::Ld(mods::Ld { space: MemSpace::Global, addr: AddrWidth::W32, vec: VecWidth::V4, ty: MemType::B32 });
        ld.guard = Guard { pred: 2, negated: true };
        ld.operands[0] = Operand::Reg(8);
        ld.operands[1] = Operand::Addr { base: 4, offset: 16 };
        let e = ld.effects();
        assert_eq!(e.writes.iter().collect::<Vec<_>>(), [8, 9, 10, 11]);
        assert_eq!(e.reads.iter().collect::<Vec<_>>(), [4]);
        assert_eq!((e.pred_reads, e.pred_writes), (0b100, 0));
        assert_eq!(e.access, Some(MemAccess { space: Space::Global, generic: false, wide: false, kind: AccessKind::Load, size: 16, regs: 4 }));
        // A 64-bit address reads its base pair; a generic one reports GLOBAL statically.
        ld.form = Form::Ld(mods::Ld { space: MemSpace::Generic, addr: AddrWidth::E, vec: VecWidth::Scalar, ty: MemType::F32 });
        let e = ld.effects();
        assert_eq!(e.reads.iter().collect::<Vec<_>>(), [4, 5]);
        assert_eq!(e.access, Some(MemAccess { space: Space::Global, generic: true, wide: true, kind: AccessKind::Load, size: 4, regs: 1 }));

        let mut setp = Instruction::new(Opcode::Isetp);
        setp.operands[..4].copy_from_slice(&[
            Operand::Pred(1),
            Operand::Src(Src::reg(RZ)),
            Operand::Src(Src::imm(3)),
            Operand::PredSrc { pred: PT, negated: false },
        ]);
        let e = setp.effects();
        assert!(e.reads.is_empty() && e.writes.is_empty());
        assert_eq!((e.pred_reads, e.pred_writes), (0, 0b10));
    }

    #[test]
    fn register_sets() {
        let mut s = RegSet::EMPTY;
        s.insert_range(62, 4);
        s.insert_range(253, 4);
        assert_eq!(s.iter().collect::<Vec<_>>(), [62, 63, 64, 65, 253, 254]);
        assert_eq!(s.len(), 6);
        let mut t = RegSet::EMPTY;
        t.insert_range(65, 1);
        assert!(s.intersects(&t));
        assert_eq!(s.difference(&t).len(), 5);
    }
}
