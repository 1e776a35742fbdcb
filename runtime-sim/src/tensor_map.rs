//! Tensor maps (`CUtensorMap`, the 128 bytes a TMA instruction names): what they describe and
//! how the simulator keeps them.
//!
//! NVIDIA's driver fills the 128 bytes (`cuTensorMapEncodeTiled`) in a format it does not
//! document, and kernels only pass them on to `cp.async.bulk.tensor` and friends. The
//! simulator therefore uses a format of its own, written by the launch specification's
//! `tensormap` parameters ([`TensorMap::encode`]) and read by the TMA instructions
//! ([`TensorMap::decode`]); a map in any other format (say, one a real driver encoded) is
//! refused with an error rather than misread. The fields and their limits are those of
//! `cuTensorMapEncodeTiled` in the CUDA driver API documentation:
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | global address (16-byte aligned) |
//! | 8..28 | global dimensions, 5 x u32 (elements) |
//! | 28..60 | global strides of dimensions 1..4, 4 x u64 (bytes, multiples of 16) |
//! | 60..80 | box dimensions, 5 x u32 (1..=256) |
//! | 80..85 | element strides, 5 x u8 (1..=8) |
//! | 85 | rank (1..=5) |
//! | 86 | data type ([`TmaType`]) |
//! | 87 | swizzle ([`TmaSwizzle`]) |
//! | 88 | out-of-bounds fill: 0 zeros, 1 NaN (float types) |
//! | 120..128 | the tag `PTXCTMAP` |
//!
//! Tiled mode only (no im2col, no interleave). A box's elements lie in shared memory in
//! row-major order, dimension 0 fastest, each dimension holding `ceil(box / element
//! stride)` elements; a swizzled box permutes its 16-byte chunks within each row of 32, 64
//! or 128 bytes by the bits above them, as the wgmma matrix descriptors read them
//! (`exec/semantics/matrix_desc.rs`), from the shared address itself.

/// The tag at the end of the simulator's tensor maps.
pub const TAG: &[u8; 8] = b"PTXCTMAP";
/// Bytes of a tensor map.
pub const SIZE: usize = 128;

/// Element types of a tensor map (`CUtensorMapDataType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TmaType {
    /// 8-bit.
    U8,
    /// 16-bit integer.
    U16,
    /// 32-bit integer.
    U32,
    /// 32-bit signed integer.
    I32,
    /// 64-bit integer.
    U64,
    /// 64-bit signed integer.
    I64,
    /// IEEE half.
    F16,
    /// IEEE single.
    F32,
    /// IEEE double.
    F64,
    /// bfloat16.
    Bf16,
    /// tf32 (stored as 32 bits).
    Tf32,
}

/// The types with their codes and names (the names of the launch specification).
const TYPES: &[(TmaType, u8, &str)] = &[
    (TmaType::U8, 0, "u8"),
    (TmaType::U16, 1, "u16"),
    (TmaType::U32, 2, "u32"),
    (TmaType::I32, 3, "i32"),
    (TmaType::U64, 4, "u64"),
    (TmaType::I64, 5, "i64"),
    (TmaType::F16, 6, "f16"),
    (TmaType::F32, 7, "f32"),
    (TmaType::F64, 8, "f64"),
    (TmaType::Bf16, 9, "bf16"),
    (TmaType::Tf32, 11, "tf32"),
];

impl TmaType {
    /// The type of a launch-specification name (`f16`, `bf16`, `f32`, ...).
    pub fn named(name: &str) -> Option<TmaType> {
        TYPES.iter().find(|t| t.2 == name).map(|t| t.0)
    }

    /// Bytes per element.
    pub fn bytes(self) -> usize {
        match self {
            TmaType::U8 => 1,
            TmaType::U16 | TmaType::F16 | TmaType::Bf16 => 2,
            TmaType::U32 | TmaType::I32 | TmaType::F32 | TmaType::Tf32 => 4,
            TmaType::U64 | TmaType::I64 | TmaType::F64 => 8,
        }
    }

    /// The bytes of a NaN of this type (the NaN fill), if it is a float type.
    fn nan(self) -> Option<&'static [u8]> {
        match self {
            TmaType::F16 => Some(&[0xff, 0x7f]),
            TmaType::Bf16 => Some(&[0xff, 0x7f]),
            TmaType::F32 | TmaType::Tf32 => Some(&[0xff, 0xff, 0xff, 0x7f]),
            TmaType::F64 => Some(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]),
            _ => None,
        }
    }

    fn code(self) -> u8 {
        TYPES.iter().find(|t| t.0 == self).map_or(0, |t| t.1)
    }

    fn of_code(code: u8) -> Option<TmaType> {
        TYPES.iter().find(|t| t.1 == code).map(|t| t.0)
    }
}

/// Swizzle modes of a tensor map (`CUtensorMapSwizzle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TmaSwizzle {
    /// No swizzling.
    None,
    /// 32-byte rows.
    B32,
    /// 64-byte rows.
    B64,
    /// 128-byte rows.
    B128,
}

impl TmaSwizzle {
    /// The mode of a launch-specification name (`none`, `32B`, `64B`, `128B`).
    pub fn named(name: &str) -> Option<TmaSwizzle> {
        match name {
            "none" => Some(TmaSwizzle::None),
            "32B" => Some(TmaSwizzle::B32),
            "64B" => Some(TmaSwizzle::B64),
            "128B" => Some(TmaSwizzle::B128),
            _ => None,
        }
    }

    /// Bytes per swizzled row (16 without swizzling: one chunk, nothing moves).
    pub fn span(self) -> usize {
        match self {
            TmaSwizzle::None => 16,
            TmaSwizzle::B32 => 32,
            TmaSwizzle::B64 => 64,
            TmaSwizzle::B128 => 128,
        }
    }

    /// The shared address of logical shared address `addr`: chunk bits 4.. XOR bits 7...
    pub fn apply(self, addr: u32) -> u32 {
        let mask = (self.span() / 16 - 1) as u32;
        addr ^ ((addr >> 7) & mask) << 4
    }
}

/// What a tensor map describes (tiled mode).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorMap {
    /// Global address of element 0.
    pub address: u64,
    /// Element type.
    pub dtype: TmaType,
    /// Elements per dimension (dimension 0 innermost); its length is the rank.
    pub dims: Vec<u32>,
    /// Bytes between consecutive elements of dimensions 1.. (rank - 1 entries).
    pub strides: Vec<u64>,
    /// Box elements per dimension.
    pub boxes: Vec<u32>,
    /// Traversal strides per dimension.
    pub element_strides: Vec<u32>,
    /// Swizzle of the box in shared memory.
    pub swizzle: TmaSwizzle,
    /// Out-of-bounds elements read as NaN instead of zero (float types).
    pub nan_fill: bool,
}

/// One element of a box: its global address (`None` out of bounds) and its byte offset in
/// the box before swizzling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoxElement {
    /// Global address, if the element is inside the tensor.
    pub global: Option<u64>,
    /// Offset in the box in shared memory, unswizzled.
    pub offset: u32,
}

impl TensorMap {
    /// Checks the fields against `cuTensorMapEncodeTiled`'s limits.
    pub fn check(&self) -> Result<(), String> {
        let rank = self.dims.len();
        if !(1..=5).contains(&rank) {
            return Err(format!("a tensor map has 1 to 5 dimensions, not {rank}"));
        }
        if self.boxes.len() != rank || self.element_strides.len() != rank || self.strides.len() + 1 != rank {
            return Err("box, element strides and global strides must match the rank".into());
        }
        if !self.address.is_multiple_of(16) {
            return Err(format!("the global address {:#x} is not 16-byte aligned", self.address));
        }
        if let Some(s) = self.strides.iter().find(|&&s| !s.is_multiple_of(16) || s == 0) {
            return Err(format!("global stride {s} is not a positive multiple of 16 bytes"));
        }
        if self.dims.contains(&0) {
            return Err("every global dimension needs at least one element".into());
        }
        if let Some(b) = self.boxes.iter().find(|&&b| b == 0 || b > 256) {
            return Err(format!("box dimension {b} is outside 1..=256"));
        }
        if let Some(e) = self.element_strides.iter().find(|&&e| e == 0 || e > 8) {
            return Err(format!("element stride {e} is outside 1..=8"));
        }
        let inner = self.row_elements(0) as usize * self.dtype.bytes();
        if !inner.is_multiple_of(16) {
            return Err(format!(
                "the box's inner dimension is {inner} bytes, not a multiple of 16"
            ));
        }
        if self.swizzle != TmaSwizzle::None && inner > self.swizzle.span() {
            return Err(format!(
                "the box's inner dimension ({inner} bytes) exceeds the {}-byte swizzle span",
                self.swizzle.span()
            ));
        }
        if self.nan_fill && self.dtype.nan().is_none() {
            return Err("the NaN fill needs a float type".into());
        }
        Ok(())
    }

    /// Elements of the box along dimension `d` (the box divided by the traversal stride).
    fn row_elements(&self, d: usize) -> u32 {
        self.boxes[d].div_ceil(self.element_strides[d])
    }

    /// Bytes of one box in shared memory.
    pub fn box_bytes(&self) -> usize {
        (0..self.dims.len())
            .map(|d| self.row_elements(d) as usize)
            .product::<usize>()
            * self.dtype.bytes()
    }

    /// The box at `coords` (one per dimension, signed), element by element in shared-memory
    /// order.
    pub fn box_elements(&self, coords: &[i32]) -> Vec<BoxElement> {
        let rank = self.dims.len();
        let counts: Vec<u32> = (0..rank).map(|d| self.row_elements(d)).collect();
        let size = self.dtype.bytes() as u32;
        let mut out = Vec::with_capacity(self.box_bytes() / size as usize);
        let mut index = vec![0u32; rank];
        for n in 0..counts.iter().product::<u32>() {
            let mut global = Some(self.address);
            for (d, &i) in index.iter().enumerate() {
                let c = i64::from(coords.get(d).copied().unwrap_or(0)) + i64::from(i * self.element_strides[d]);
                let stride = if d == 0 { u64::from(size) } else { self.strides[d - 1] };
                global = match global {
                    Some(g) if (0..i64::from(self.dims[d])).contains(&c) => Some(g + c as u64 * stride),
                    _ => None,
                };
            }
            out.push(BoxElement {
                global,
                offset: n * size,
            });
            for d in 0..rank {
                index[d] += 1;
                if index[d] < counts[d] {
                    break;
                }
                index[d] = 0;
            }
        }
        out
    }

    /// The bytes an out-of-bounds element reads as.
    pub fn fill(&self) -> Vec<u8> {
        match (self.nan_fill, self.dtype.nan()) {
            (true, Some(nan)) => nan.to_vec(),
            _ => vec![0; self.dtype.bytes()],
        }
    }

    /// The map's 128 bytes in the simulator's format.
    pub fn encode(&self) -> [u8; SIZE] {
        let mut b = [0u8; SIZE];
        b[0..8].copy_from_slice(&self.address.to_le_bytes());
        for (d, &n) in self.dims.iter().enumerate() {
            b[8 + 4 * d..12 + 4 * d].copy_from_slice(&n.to_le_bytes());
        }
        for (d, &s) in self.strides.iter().enumerate() {
            b[28 + 8 * d..36 + 8 * d].copy_from_slice(&s.to_le_bytes());
        }
        for (d, &n) in self.boxes.iter().enumerate() {
            b[60 + 4 * d..64 + 4 * d].copy_from_slice(&n.to_le_bytes());
        }
        for (d, &e) in self.element_strides.iter().enumerate() {
            b[80 + d] = e as u8;
        }
        b[85] = self.dims.len() as u8;
        b[86] = self.dtype.code();
        b[87] = match self.swizzle {
            TmaSwizzle::None => 0,
            TmaSwizzle::B32 => 1,
            TmaSwizzle::B64 => 2,
            TmaSwizzle::B128 => 3,
        };
        b[88] = u8::from(self.nan_fill);
        b[120..128].copy_from_slice(TAG);
        b
    }

    /// A map from its 128 bytes, which must be in the simulator's format and valid.
    pub fn decode(b: &[u8]) -> Result<TensorMap, String> {
        if b.len() < SIZE || &b[120..128] != TAG {
            return Err(
                "not a tensor map of the simulator's format (give tensor maps in the launch specification)".into(),
            );
        }
        let word = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().expect("four bytes"));
        let rank = b[85] as usize;
        if !(1..=5).contains(&rank) {
            return Err(format!("a tensor map of rank {rank}"));
        }
        let map = TensorMap {
            address: u64::from_le_bytes(b[0..8].try_into().expect("eight bytes")),
            dtype: TmaType::of_code(b[86]).ok_or_else(|| format!("tensor map data type {}", b[86]))?,
            dims: (0..rank).map(|d| word(8 + 4 * d)).collect(),
            strides: (1..rank)
                .map(|d| u64::from_le_bytes(b[20 + 8 * d..28 + 8 * d].try_into().expect("eight bytes")))
                .collect(),
            boxes: (0..rank).map(|d| word(60 + 4 * d)).collect(),
            element_strides: (0..rank).map(|d| u32::from(b[80 + d])).collect(),
            swizzle: match b[87] {
                0 => TmaSwizzle::None,
                1 => TmaSwizzle::B32,
                2 => TmaSwizzle::B64,
                3 => TmaSwizzle::B128,
                s => return Err(format!("tensor map swizzle code {s}")),
            },
            nan_fill: b[88] != 0,
        };
        map.check()?;
        Ok(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map_2d() -> TensorMap {
        TensorMap {
            address: 0x1000,
            dtype: TmaType::F32,
            dims: vec![10, 3],
            strides: vec![48],
            boxes: vec![4, 2],
            element_strides: vec![1, 1],
            swizzle: TmaSwizzle::None,
            nan_fill: false,
        }
    }

    #[test]
    fn maps_round_trip_through_their_bytes() {
        let m = map_2d();
        assert_eq!(TensorMap::decode(&m.encode()), Ok(m));
        let mut bytes = map_2d().encode();
        bytes[127] = 0;
        assert!(TensorMap::decode(&bytes).unwrap_err().contains("format"));
    }

    #[test]
    fn a_box_walks_row_major_and_leaves_out_of_bounds_elements() {
        let m = map_2d();
        // Columns 8..11 of rows 2..3: columns 10 and 11 and row 3 are outside.
        let e = m.box_elements(&[8, 2]);
        assert_eq!(e.len(), 8);
        assert_eq!(
            e[0],
            BoxElement {
                global: Some(0x1000 + 2 * 48 + 8 * 4),
                offset: 0
            }
        );
        assert_eq!(e[1].global, Some(0x1000 + 2 * 48 + 9 * 4));
        assert_eq!((e[2].global, e[3].global), (None, None));
        assert!(e[4..].iter().all(|x| x.global.is_none()));
        assert_eq!(e[5].offset, 20);
        // Negative coordinates are outside too.
        assert_eq!(m.box_elements(&[-1, 0])[0].global, None);
    }

    #[test]
    fn element_strides_skip_elements_and_shrink_the_box() {
        let mut m = map_2d();
        m.element_strides = vec![2, 1];
        m.boxes = vec![8, 1];
        let e = m.box_elements(&[0, 0]);
        assert_eq!(e.len(), 4);
        assert_eq!(e[1].global, Some(0x1000 + 8));
    }

    #[test]
    fn limits_are_checked() {
        let mut m = map_2d();
        m.boxes = vec![3, 2];
        assert!(m.check().unwrap_err().contains("multiple of 16"));
        let mut m = map_2d();
        m.swizzle = TmaSwizzle::B32;
        m.boxes = vec![16, 2];
        assert!(m.check().unwrap_err().contains("swizzle span"));
        let mut m = map_2d();
        m.strides = vec![40];
        assert!(m.check().is_err());
    }

    #[test]
    fn swizzling_permutes_chunks_as_the_matrix_descriptors_read_them() {
        assert_eq!(TmaSwizzle::B128.apply(0x80), 0x90);
        assert_eq!(TmaSwizzle::B128.apply(0x3f0), 0x380);
        assert_eq!(TmaSwizzle::B64.apply(0x180), 0x1b0);
        assert_eq!(TmaSwizzle::None.apply(0x180), 0x180);
    }
}
