//! Tensor maps: the 128 bytes that describe a tensor in GLOBAL memory to a `TMA` copy (CUDA's
//! `CUtensorMap`, which `cuTensorMapEncodeTiled` fills and a kernel takes as a `__grid_constant__`
//! parameter). NVIDIA leaves the bytes opaque, so the layout here is simt's own; what it holds is
//! what `cuTensorMapEncodeTiled` is given, and [`TensorMap::check`] refuses what that function
//! refuses. `docs/tensor.md`, "Tensor maps", gives the layout.
//!
//! | bytes | field |
//! | --- | --- |
//! | 0..4 | `TMAP` |
//! | 4 | layout version, 1 |
//! | 5 | rank, 1 ..= 5 |
//! | 6 | element type, CUDA's `CUtensorMapDataType` (0 `u8` ..= 9 `bf16`) |
//! | 7 | swizzle, CUDA's `CUtensorMapSwizzle` (0 none, 1 32 bytes, 2 64 bytes, 3 128 bytes) |
//! | 16..24 | the tensor's GLOBAL address |
//! | 24..44 | its extent in each dimension, innermost first, 5 x u32 |
//! | 48..80 | the bytes between consecutive indices of dimensions 1 ..= 4, 4 x u64 |
//! | 80..100 | the box: elements a copy moves in each dimension, 5 x u32 |
//! | 100..120 | the element strides (the box's step in each dimension), 5 x u32 |
//!
//! Every other byte is 0, and a dimension past the rank has extent, box and element stride 1.

use std::fmt;

/// Bytes of a tensor map.
pub const TENSOR_MAP_BYTES: usize = 128;
/// The most dimensions a tensor map has.
pub const MAX_RANK: usize = 5;
/// The most elements a box has in one dimension.
pub const MAX_BOX: u32 = 256;

/// The first bytes of every map: its tag and layout version.
pub const TAG: &[u8; 4] = b"TMAP";
/// The layout's version, byte 4.
pub const LAYOUT_VERSION: u8 = 1;

/// Where each field lies in the 128 bytes (the table above), for code that writes a map itself
/// (PTX's `tensormap.replace`): one place for the layout, which [`TensorMap::encode`] and
/// [`TensorMap::decode`] read too.
pub mod at {
    /// [`super::LAYOUT_VERSION`].
    pub const VERSION: usize = 4;
    /// The rank, a byte.
    pub const RANK: usize = 5;
    /// The element type, a byte.
    pub const ELEM: usize = 6;
    /// The swizzle, a byte.
    pub const SWIZZLE: usize = 7;
    /// The tensor's address, 8 bytes.
    pub const ADDRESS: usize = 16;
    /// Dimension `d`'s extent, 4 bytes at `DIMS + 4 d`.
    pub const DIMS: usize = 24;
    /// Dimension `d`'s stride (d >= 1), 8 bytes at `STRIDES + 8 (d - 1)`.
    pub const STRIDES: usize = 48;
    /// The box in dimension `d`, 4 bytes at `BOXES + 4 d`.
    pub const BOXES: usize = 80;
    /// The element stride in dimension `d`, 4 bytes at `ELEMENT_STRIDES + 4 d`.
    pub const ELEMENT_STRIDES: usize = 100;
}

/// An element type of a tensor map, numbered as CUDA's `CUtensorMapDataType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensorElem {
    /// `UINT8`.
    U8,
    /// `UINT16`.
    U16,
    /// `UINT32`.
    U32,
    /// `INT32`.
    S32,
    /// `UINT64`.
    U64,
    /// `INT64`.
    S64,
    /// `FLOAT16`.
    F16,
    /// `FLOAT32`.
    F32,
    /// `FLOAT64`.
    F64,
    /// `BFLOAT16`.
    BF16,
}

impl TensorElem {
    /// Every type, in CUDA's order.
    pub const ALL: [TensorElem; 10] = [
        TensorElem::U8,
        TensorElem::U16,
        TensorElem::U32,
        TensorElem::S32,
        TensorElem::U64,
        TensorElem::S64,
        TensorElem::F16,
        TensorElem::F32,
        TensorElem::F64,
        TensorElem::BF16,
    ];

    /// Bytes of one element.
    pub fn bytes(self) -> u32 {
        match self {
            TensorElem::U8 => 1,
            TensorElem::U16 | TensorElem::F16 | TensorElem::BF16 => 2,
            TensorElem::U32 | TensorElem::S32 | TensorElem::F32 => 4,
            TensorElem::U64 | TensorElem::S64 | TensorElem::F64 => 8,
        }
    }

    /// The type with CUDA's number `code` (`CU_TENSOR_MAP_DATA_TYPE_*`), if simt has it.
    pub fn from_code(code: u8) -> Option<TensorElem> {
        TensorElem::ALL.get(usize::from(code)).copied()
    }

    /// CUDA's number for this type.
    pub fn code(self) -> u8 {
        TensorElem::ALL.iter().position(|&e| e == self).unwrap_or(0) as u8
    }

    /// The name a `tensormap(...)` argument gives it (`f16`, `bf16`, `s32`, ...).
    pub fn name(self) -> &'static str {
        match self {
            TensorElem::U8 => "u8",
            TensorElem::U16 => "u16",
            TensorElem::U32 => "u32",
            TensorElem::S32 => "s32",
            TensorElem::U64 => "u64",
            TensorElem::S64 => "s64",
            TensorElem::F16 => "f16",
            TensorElem::F32 => "f32",
            TensorElem::F64 => "f64",
            TensorElem::BF16 => "bf16",
        }
    }
}

impl fmt::Display for TensorElem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a box is swizzled in SHARED memory, numbered as CUDA's `CUtensorMapSwizzle`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Swizzle {
    /// Rows as they are.
    #[default]
    None,
    /// 32-byte swizzle.
    B32,
    /// 64-byte swizzle.
    B64,
    /// 128-byte swizzle.
    B128,
}

impl Swizzle {
    /// The swizzle of `bytes`-byte rows (0 for none), as `tensormap(..., swizzle=N)` names it.
    pub fn of_bytes(bytes: u32) -> Option<Swizzle> {
        Some(match bytes {
            0 => Swizzle::None,
            32 => Swizzle::B32,
            64 => Swizzle::B64,
            128 => Swizzle::B128,
            _ => return None,
        })
    }

    /// The row bytes its pattern spans: 16 (a chunk: no swizzle), 32, 64 or 128.
    pub fn span(self) -> u32 {
        16 << (self as u32)
    }

    /// The SHARED byte address where byte `address` of an unswizzled layout lies: bits 4.. of
    /// the address XORed with bits 7.., as many as a row of the span has 16-byte chunks past
    /// the first (CuTe's `Swizzle<B, 4, 3>`). A `WGMMA` matrix descriptor's swizzle is the same.
    #[inline(always)]
    pub fn apply(self, address: u32) -> u32 {
        swizzle(address, self.span())
    }
}

/// [`Swizzle::apply`] for a span of `span` bytes (16, 32, 64 or 128).
#[inline(always)]
pub fn swizzle(address: u32, span: u32) -> u32 {
    address ^ (((address >> 7) & (span / 16 - 1)) << 4)
}

/// What a tensor map describes: a tensor in GLOBAL memory and the box a copy moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorMap {
    /// The tensor's GLOBAL address.
    pub address: u64,
    /// Its element type.
    pub elem: TensorElem,
    /// How many dimensions it has (1 ..= 5).
    pub rank: u8,
    /// Its extent in each dimension, innermost first; 1 past the rank.
    pub dims: [u32; MAX_RANK],
    /// The bytes between consecutive indices of each dimension: `strides[0]` is the element's
    /// size; 0 past the rank.
    pub strides: [u64; MAX_RANK],
    /// The box's elements in each dimension; 1 past the rank.
    pub boxes: [u32; MAX_RANK],
    /// The box's step in each dimension (1: every element); 1 past the rank.
    pub element_strides: [u32; MAX_RANK],
    /// How the box lies in SHARED memory.
    pub swizzle: Swizzle,
}

/// Why bytes are not a tensor map, or a map is one `cuTensorMapEncodeTiled` would refuse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TensorMapError {
    /// The bytes do not start with `TMAP` and the layout version.
    #[error("it is not a tensor map (its bytes do not start with `TMAP` and version {LAYOUT_VERSION}): pass one the host made")]
    NotAMap,
    /// The element type is not one simt has.
    #[error("element type {0} is not one of CUDA's 0 (u8) ..= 9 (bf16)")]
    Elem(u8),
    /// A field breaks a rule.
    #[error("{0}")]
    Rule(String),
}

impl TensorMap {
    /// The elements a copy moves in dimension `d`: the box's extent over its step, rounded up.
    pub fn box_elements(&self, d: usize) -> u32 {
        self.boxes[d].div_ceil(self.element_strides[d].max(1))
    }

    /// The bytes a copy moves: the whole box, elements outside the tensor included (up to
    /// 256^5 elements of 8 bytes: 2^43, so counted in 64 bits).
    pub fn box_bytes(&self) -> u64 {
        (0..MAX_RANK).map(|d| u64::from(self.box_elements(d))).product::<u64>() * u64::from(self.elem.bytes())
    }

    /// Checks the rules `cuTensorMapEncodeTiled` checks (CUDA driver API, "Tensor Map Object
    /// Management"): a rank of 1 to 5, a 16-byte-aligned address, extents of at least 1, strides
    /// that are multiples of 16 below 2^40, boxes of 1 to 256 elements whose innermost row is a
    /// multiple of 16 bytes and fits the swizzle's span, element strides of 1 to 8. simt also
    /// asks the innermost element stride to be 1 (every element of a row).
    pub fn check(&self) -> Result<(), TensorMapError> {
        let rule = |s: String| Err(TensorMapError::Rule(s));
        let rank = usize::from(self.rank);
        if !(1..=MAX_RANK).contains(&rank) {
            return rule(format!("rank {rank} is not 1 ..= {MAX_RANK}"));
        }
        if !self.address.is_multiple_of(16) {
            return rule(format!("the tensor's address {:#x} is not 16-byte aligned", self.address));
        }
        for d in 0..rank {
            if self.dims[d] == 0 {
                return rule(format!("dimension {d} has extent 0"));
            }
            if d > 0 && (!self.strides[d].is_multiple_of(16) || self.strides[d] >= 1 << 40) {
                return rule(format!("dimension {d}'s stride of {} bytes is not a multiple of 16 below 2^40", self.strides[d]));
            }
            if !(1..=MAX_BOX).contains(&self.boxes[d]) {
                return rule(format!("the box has {} elements in dimension {d}, not 1 ..= {MAX_BOX}", self.boxes[d]));
            }
            if !(1..=8).contains(&self.element_strides[d]) || (d == 0 && self.element_strides[0] != 1) {
                let allowed = if d == 0 { "1 (simt copies whole rows)" } else { "1 ..= 8" };
                return rule(format!("dimension {d}'s element stride {} is not {allowed}", self.element_strides[d]));
            }
        }
        let row = self.boxes[0] * self.elem.bytes();
        if !row.is_multiple_of(16) {
            return rule(format!("the box's innermost row is {row} bytes, not a multiple of 16"));
        }
        if self.swizzle != Swizzle::None && row > self.swizzle.span() {
            return rule(format!("the box's innermost row is {row} bytes, more than the {}-byte swizzle spans", self.swizzle.span()));
        }
        Ok(())
    }

    /// The map's 128 bytes.
    pub fn encode(&self) -> [u8; TENSOR_MAP_BYTES] {
        let mut out = [0u8; TENSOR_MAP_BYTES];
        out[..4].copy_from_slice(TAG);
        out[at::VERSION] = LAYOUT_VERSION;
        out[at::RANK] = self.rank;
        out[at::ELEM] = self.elem.code();
        out[at::SWIZZLE] = self.swizzle as u8;
        out[at::ADDRESS..][..8].copy_from_slice(&self.address.to_le_bytes());
        for d in 0..MAX_RANK {
            out[at::DIMS + 4 * d..][..4].copy_from_slice(&self.dims[d].to_le_bytes());
            if d > 0 {
                out[at::STRIDES + 8 * (d - 1)..][..8].copy_from_slice(&self.strides[d].to_le_bytes());
            }
            out[at::BOXES + 4 * d..][..4].copy_from_slice(&self.boxes[d].to_le_bytes());
            out[at::ELEMENT_STRIDES + 4 * d..][..4].copy_from_slice(&self.element_strides[d].to_le_bytes());
        }
        out
    }

    /// The map in `bytes`, checked.
    pub fn decode(bytes: &[u8; TENSOR_MAP_BYTES]) -> Result<TensorMap, TensorMapError> {
        if &bytes[..4] != TAG || bytes[at::VERSION] != LAYOUT_VERSION {
            return Err(TensorMapError::NotAMap);
        }
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or_default());
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default());
        let elem = TensorElem::from_code(bytes[at::ELEM]).ok_or(TensorMapError::Elem(bytes[at::ELEM]))?;
        let swizzle = match bytes[at::SWIZZLE] {
            0 => Swizzle::None,
            1 => Swizzle::B32,
            2 => Swizzle::B64,
            3 => Swizzle::B128,
            s => return Err(TensorMapError::Rule(format!("swizzle {s} is not one of CUDA's 0 (none) ..= 3 (128 bytes)"))),
        };
        let mut map = TensorMap {
            address: u64_at(at::ADDRESS),
            elem,
            rank: bytes[at::RANK],
            dims: [1; MAX_RANK],
            strides: [0; MAX_RANK],
            boxes: [1; MAX_RANK],
            element_strides: [1; MAX_RANK],
            swizzle,
        };
        for d in 0..MAX_RANK {
            map.dims[d] = u32_at(at::DIMS + 4 * d);
            map.strides[d] = if d == 0 { u64::from(elem.bytes()) } else { u64_at(at::STRIDES + 8 * (d - 1)) };
            map.boxes[d] = u32_at(at::BOXES + 4 * d);
            map.element_strides[d] = u32_at(at::ELEMENT_STRIDES + 4 * d);
        }
        map.check()?;
        // What lies past the rank means nothing: a copy's loops see one element there.
        for d in usize::from(map.rank)..MAX_RANK {
            (map.dims[d], map.strides[d], map.boxes[d], map.element_strides[d]) = (1, 0, 1, 1);
        }
        Ok(map)
    }

    /// A map of the row-major array of `shape` (outermost first, as numpy gives it) at `address`,
    /// its strides those of a dense array: what `tensormap(@a.npy, box=[...])` makes. `steps`,
    /// the element strides (outermost first), are all 1 when left out.
    pub fn dense(address: u64, elem: TensorElem, shape: &[u64], boxes: &[u32], steps: Option<&[u32]>, swizzle: Swizzle) -> Result<TensorMap, TensorMapError> {
        let rank = shape.len();
        let ones = vec![1; rank];
        let steps = steps.unwrap_or(&ones);
        if !(1..=MAX_RANK).contains(&rank) || boxes.len() != rank || steps.len() != rank {
            return Err(TensorMapError::Rule(format!(
                "a tensor of {rank} dimensions with a box of {} and {} element strides: all need the same rank, 1 ..= {MAX_RANK}",
                boxes.len(),
                steps.len()
            )));
        }
        let mut map = TensorMap {
            address,
            elem,
            rank: rank as u8,
            dims: [1; MAX_RANK],
            strides: [0; MAX_RANK],
            boxes: [1; MAX_RANK],
            element_strides: [1; MAX_RANK],
            swizzle,
        };
        let mut stride = u64::from(elem.bytes());
        // Innermost first: numpy's last axis is dimension 0.
        for (d, ((&extent, &b), &step)) in shape.iter().rev().zip(boxes.iter().rev()).zip(steps.iter().rev()).enumerate() {
            map.dims[d] = u32::try_from(extent)
                .ok()
                .filter(|&e| e > 0)
                .ok_or_else(|| TensorMapError::Rule(format!("dimension {d} has extent {extent}, not 1 ..= 2^32 - 1")))?;
            map.strides[d] = stride;
            map.boxes[d] = b;
            map.element_strides[d] = step;
            stride = stride.saturating_mul(extent);
        }
        map.check()?;
        Ok(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_survives_its_bytes() {
        let map = TensorMap::dense(0x1000, TensorElem::F16, &[3, 64, 256], &[2, 16, 64], None, Swizzle::B128).unwrap();
        assert_eq!(map.dims[..3], [256, 64, 3]);
        assert_eq!(map.strides[..3], [2, 512, 32768]);
        assert_eq!(map.box_bytes(), 64 * 16 * 2 * 2);
        assert_eq!(TensorMap::decode(&map.encode()), Ok(map));
    }

    #[test]
    fn maps_cuda_refuses_are_refused() {
        let ok = TensorMap::dense(0x1000, TensorElem::F32, &[64, 64], &[32, 32], None, Swizzle::B128).unwrap();
        let refused = |m: TensorMap| match m.check() {
            Err(TensorMapError::Rule(why)) => why,
            other => panic!("{m:?} gave {other:?}"),
        };
        assert!(refused(TensorMap { address: 0x1008, ..ok }).contains("16-byte aligned"));
        assert!(refused(TensorMap { boxes: [64, 32, 1, 1, 1], ..ok }).contains("more than the 128-byte swizzle"));
        assert!(refused(TensorMap { boxes: [2, 32, 1, 1, 1], ..ok }).contains("not a multiple of 16"));
        assert!(refused(TensorMap { boxes: [32, 257, 1, 1, 1], ..ok }).contains("not 1 ..= 256"));
        assert!(refused(TensorMap { strides: [4, 200, 0, 0, 0], ..ok }).contains("multiple of 16"));
        assert!(refused(TensorMap { element_strides: [1, 9, 1, 1, 1], ..ok }).contains("1 ..= 8"));
        let mut bytes = ok.encode();
        bytes[0] = b'X';
        assert_eq!(TensorMap::decode(&bytes), Err(TensorMapError::NotAMap));
        bytes = ok.encode();
        bytes[6] = 11;
        assert_eq!(TensorMap::decode(&bytes), Err(TensorMapError::Elem(11)));
    }

    #[test]
    fn swizzles_xor_the_chunk_with_the_row() {
        // Row 3 of a 128-byte swizzle: its chunk 0 lies in chunk 3, chunk 5 in chunk 6.
        assert_eq!(Swizzle::B128.apply(3 * 128), 3 * 128 + 3 * 16);
        assert_eq!(Swizzle::B128.apply(3 * 128 + 5 * 16 + 4), 3 * 128 + 6 * 16 + 4);
        // 32 bytes: bit 4 flips where bit 7 is set.
        assert_eq!(Swizzle::B32.apply(128), 128 + 16);
        assert_eq!(Swizzle::None.apply(3 * 128 + 20), 3 * 128 + 20);
    }
}
