//! Tensor-core instructions as the checker hands them on: `mma.sync`, `wmma.load`,
//! `wmma.store`, `wmma.mma` and `movmatrix` with their shapes, layouts and element types,
//! and how many registers each fragment has (PTX ISA, "Warp Level Matrix Multiply-
//! Accumulate Instructions"; what sm_75 and sm_80 accept follows ptxas 13.5), and the
//! warpgroup instructions of sm_90a (`wgmma`).

/// An element type of a tensor-core fragment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum MmaType {
    F16,
    Bf16,
    Tf32,
    F32,
    F64,
    S32,
    S8,
    U8,
    S4,
    U4,
    B1,
}

impl MmaType {
    /// Every type with its spelling.
    pub const ALL: [(MmaType, &'static str); 11] = [
        (MmaType::F16, "f16"),
        (MmaType::Bf16, "bf16"),
        (MmaType::Tf32, "tf32"),
        (MmaType::F32, "f32"),
        (MmaType::F64, "f64"),
        (MmaType::S32, "s32"),
        (MmaType::S8, "s8"),
        (MmaType::U8, "u8"),
        (MmaType::S4, "s4"),
        (MmaType::U4, "u4"),
        (MmaType::B1, "b1"),
    ];

    /// The type spelled `name` (without the dot).
    pub fn from_name(name: &str) -> Option<MmaType> {
        MmaType::ALL.iter().find(|(_, n)| *n == name).map(|(t, _)| *t)
    }

    /// The spelling without the dot.
    pub fn name(self) -> &'static str {
        MmaType::ALL.iter().find(|(t, _)| *t == self).map_or("?", |(_, n)| n)
    }

    /// Bits per element.
    pub fn bits(self) -> u32 {
        match self {
            MmaType::F64 => 64,
            MmaType::F32 | MmaType::Tf32 | MmaType::S32 => 32,
            MmaType::F16 | MmaType::Bf16 => 16,
            MmaType::S8 | MmaType::U8 => 8,
            MmaType::S4 | MmaType::U4 => 4,
            MmaType::B1 => 1,
        }
    }

    /// Signed integer elements.
    pub fn is_signed(self) -> bool {
        matches!(self, MmaType::S8 | MmaType::S4 | MmaType::S32)
    }
}

/// A matrix shape `mMnNkK`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum MmaShape {
    M8n8k4,
    M16n8k4,
    M16n8k8,
    M16n8k16,
    M16n8k32,
    M16n8k64,
    M16n8k128,
    M16n8k256,
    M8n8k16,
    M8n8k32,
    M8n8k128,
    M16n16k16,
    M32n8k16,
    M8n32k16,
}

impl MmaShape {
    /// Every shape with its spelling.
    pub const ALL: [(MmaShape, &'static str); 14] = [
        (MmaShape::M8n8k4, "m8n8k4"),
        (MmaShape::M16n8k4, "m16n8k4"),
        (MmaShape::M16n8k64, "m16n8k64"),
        (MmaShape::M16n8k128, "m16n8k128"),
        (MmaShape::M16n8k256, "m16n8k256"),
        (MmaShape::M16n8k8, "m16n8k8"),
        (MmaShape::M16n8k16, "m16n8k16"),
        (MmaShape::M16n8k32, "m16n8k32"),
        (MmaShape::M8n8k16, "m8n8k16"),
        (MmaShape::M8n8k32, "m8n8k32"),
        (MmaShape::M8n8k128, "m8n8k128"),
        (MmaShape::M16n16k16, "m16n16k16"),
        (MmaShape::M32n8k16, "m32n8k16"),
        (MmaShape::M8n32k16, "m8n32k16"),
    ];

    /// The shape spelled `name`.
    pub fn from_name(name: &str) -> Option<MmaShape> {
        MmaShape::ALL.iter().find(|(_, n)| *n == name).map(|(s, _)| *s)
    }

    /// The spelling without the dot.
    pub fn name(self) -> &'static str {
        MmaShape::ALL.iter().find(|(s, _)| *s == self).map_or("?", |(_, n)| n)
    }

    /// `(m, n, k)`.
    pub fn dims(self) -> (u32, u32, u32) {
        match self {
            MmaShape::M8n8k4 => (8, 8, 4),
            MmaShape::M16n8k4 => (16, 8, 4),
            MmaShape::M16n8k64 => (16, 8, 64),
            MmaShape::M16n8k128 => (16, 8, 128),
            MmaShape::M16n8k256 => (16, 8, 256),
            MmaShape::M16n8k8 => (16, 8, 8),
            MmaShape::M16n8k16 => (16, 8, 16),
            MmaShape::M16n8k32 => (16, 8, 32),
            MmaShape::M8n8k16 => (8, 8, 16),
            MmaShape::M8n8k32 => (8, 8, 32),
            MmaShape::M8n8k128 => (8, 8, 128),
            MmaShape::M16n16k16 => (16, 16, 16),
            MmaShape::M32n8k16 => (32, 8, 16),
            MmaShape::M8n32k16 => (8, 32, 16),
        }
    }
}

/// The storage order of a matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaLayout {
    /// `.row`
    Row,
    /// `.col`
    Col,
}

/// One of the matrices of `D = A * B + C`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fragment {
    /// The left multiplicand.
    A,
    /// The right multiplicand.
    B,
    /// The accumulator (`wmma.load.c`).
    C,
    /// The result (`wmma.store.d`).
    D,
}

/// The types of `D = A * B + C`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub struct MmaTypes {
    pub d: MmaType,
    pub a: MmaType,
    pub b: MmaType,
    pub c: MmaType,
}

/// An `mma` or `wmma.mma`: shape, layouts of A and B, types and saturation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MmaOp {
    /// The shape.
    pub shape: MmaShape,
    /// A's layout.
    pub a_layout: MmaLayout,
    /// B's layout.
    pub b_layout: MmaLayout,
    /// Element types.
    pub types: MmaTypes,
    /// `.satfinite`.
    pub satfinite: bool,
    /// `.and.popc` (single-bit shapes, sm_80 on; else `.xor.popc`).
    pub and_popc: bool,
}

impl MmaOp {
    /// Registers of each operand as written: `[d, a, b, c]`.
    pub fn operand_regs(&self, wmma: bool) -> [usize; 4] {
        let t = self.types;
        let d = fragment_regs(self.shape, Fragment::D, t.d, wmma);
        let a = fragment_regs(self.shape, Fragment::A, t.a, wmma);
        let b = fragment_regs(self.shape, Fragment::B, t.b, wmma);
        let c = fragment_regs(self.shape, Fragment::C, t.c, wmma);
        [d, a, b, c]
    }
}

/// A warpgroup `wgmma.mma_async.sync.aligned.m64nNk16.dtype.atype.btype` (sm_90a): f16 or
/// bf16 multiplicands, an f32 or (f16 multiplicands only) f16 accumulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WgmmaOp {
    /// N: 8 to 256 in steps of 8.
    pub n: u32,
    /// The accumulator type (f32 or f16).
    pub d: MmaType,
    /// The multiplicand type of A and B (f16 or bf16).
    pub ab: MmaType,
    /// A comes from four registers (else from a shared-memory matrix descriptor).
    pub a_regs: bool,
}

impl WgmmaOp {
    /// Registers of the accumulator per thread: N/2 f32 values or N/4 f16 pairs.
    pub fn accumulator_regs(&self) -> usize {
        (if self.d == MmaType::F32 { self.n / 2 } else { self.n / 4 }) as usize
    }
}

/// A checked tensor-core instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensorOp {
    /// `mma.sync.aligned`: operands d, a, b, c.
    Mma(MmaOp),
    /// `wmma.load.{a,b,c}`: operands d, address, optional stride.
    WmmaLoad {
        /// The fragment.
        frag: Fragment,
        /// The shape.
        shape: MmaShape,
        /// The layout in memory.
        layout: MmaLayout,
        /// The element type.
        ty: MmaType,
    },
    /// `wmma.store.d`: operands address, d, optional stride.
    WmmaStore {
        /// The shape.
        shape: MmaShape,
        /// The layout in memory.
        layout: MmaLayout,
        /// The element type.
        ty: MmaType,
    },
    /// `wmma.mma`: operands d, a, b, c.
    WmmaMma(MmaOp),
    /// `movmatrix.sync.aligned.m8n8.trans.b16`: operands d, a.
    Movmatrix,
    /// `wgmma.mma_async`: operands d, a-desc (or `{a0..a3}`), b-desc, scale-d, imm-scale-a,
    /// imm-scale-b, imm-trans-a (descriptor A only), imm-trans-b.
    Wgmma(WgmmaOp),
    /// `wgmma.fence.sync.aligned`.
    WgmmaFence,
    /// `wgmma.commit_group.sync.aligned`.
    WgmmaCommit,
    /// `wgmma.wait_group.sync.aligned n`: operand the immediate n.
    WgmmaWait,
}

/// The number of 32-bit registers of a fragment: of `mma.sync` (`wmma` false) or of `wmma`
/// (the PTX ISA's fragment sizes; a `wmma` f16 multiplicand has 8 registers, of which sm_75
/// uses 4, or 2 for the smaller side of m32n8k16 and m8n32k16).
pub fn fragment_regs(shape: MmaShape, frag: Fragment, ty: MmaType, wmma: bool) -> usize {
    let (m, n, k) = shape.dims();
    let elems = match frag {
        Fragment::A => m * k,
        Fragment::B => k * n,
        Fragment::C | Fragment::D => m * n,
    };
    if wmma && ty == MmaType::F16 && matches!(frag, Fragment::A | Fragment::B) {
        return 8;
    }
    if shape == MmaShape::M8n8k4 && ty != MmaType::F64 {
        // Four 8x8x4 products, one per quad-pair: each lane holds 4 elements of A and B
        // and 8 of C and D.
        let per_lane = if matches!(frag, Fragment::A | Fragment::B) {
            4
        } else {
            8
        };
        return per_lane * ty.bits() as usize / 32;
    }
    (elems * ty.bits()) as usize / 32 / 32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragment_sizes_match_the_ptx_isa() {
        use Fragment::*;
        use MmaShape::*;
        use MmaType::*;
        assert_eq!(fragment_regs(M8n8k4, A, F16, false), 2);
        assert_eq!(fragment_regs(M8n8k4, C, F16, false), 4);
        assert_eq!(fragment_regs(M8n8k4, D, F32, false), 8);
        assert_eq!(fragment_regs(M8n8k4, A, F64, false), 2);
        assert_eq!(fragment_regs(M8n8k4, B, F64, false), 2);
        assert_eq!(fragment_regs(M8n8k4, C, F64, false), 4);
        assert_eq!(fragment_regs(M16n8k8, A, F16, false), 2);
        assert_eq!(fragment_regs(M16n8k8, B, F16, false), 1);
        assert_eq!(fragment_regs(M16n8k8, C, F32, false), 4);
        assert_eq!(fragment_regs(M16n8k16, A, F16, false), 4);
        assert_eq!(fragment_regs(M16n8k16, B, Bf16, false), 2);
        assert_eq!(fragment_regs(M16n8k16, D, F16, false), 2);
        assert_eq!(fragment_regs(M16n8k8, A, Tf32, false), 4);
        assert_eq!(fragment_regs(M16n8k8, B, Tf32, false), 2);
        assert_eq!(fragment_regs(M16n8k8, A, Bf16, false), 2);
        assert_eq!(fragment_regs(M16n8k32, A, S8, false), 4);
        assert_eq!(fragment_regs(M16n8k32, B, U8, false), 2);
        assert_eq!(fragment_regs(M16n8k32, C, S32, false), 4);
        assert_eq!(fragment_regs(M16n8k16, A, U8, false), 2);
        assert_eq!(fragment_regs(M16n8k16, B, S8, false), 1);
        assert_eq!(fragment_regs(M8n8k16, A, S8, false), 1);
        assert_eq!(fragment_regs(M8n8k32, B, U4, false), 1);
        assert_eq!(fragment_regs(M8n8k128, A, B1, false), 1);
        assert_eq!(fragment_regs(M8n8k128, C, S32, false), 2);
        assert_eq!(fragment_regs(M16n16k16, A, F16, true), 8);
        assert_eq!(fragment_regs(M16n16k16, C, F16, true), 4);
        assert_eq!(fragment_regs(M16n16k16, C, F32, true), 8);
        assert_eq!(fragment_regs(M16n16k16, A, S8, true), 2);
        assert_eq!(fragment_regs(M32n8k16, A, U8, true), 4);
        assert_eq!(fragment_regs(M32n8k16, B, S8, true), 1);
        assert_eq!(fragment_regs(M8n32k16, B, S8, true), 4);
        assert_eq!(fragment_regs(M8n8k32, C, S32, true), 2);
        assert_eq!(fragment_regs(M16n8k4, A, Tf32, false), 2);
        assert_eq!(fragment_regs(M16n8k4, B, Tf32, false), 1);
        assert_eq!(fragment_regs(M16n8k4, C, F32, false), 4);
        assert_eq!(fragment_regs(M16n8k32, A, S4, false), 2);
        assert_eq!(fragment_regs(M16n8k32, B, U4, false), 1);
        assert_eq!(fragment_regs(M16n8k64, A, U4, false), 4);
        assert_eq!(fragment_regs(M16n8k64, B, S4, false), 2);
        assert_eq!(fragment_regs(M16n8k128, A, B1, false), 2);
        assert_eq!(fragment_regs(M16n8k128, B, B1, false), 1);
        assert_eq!(fragment_regs(M16n8k256, A, B1, false), 4);
        assert_eq!(fragment_regs(M16n8k256, B, B1, false), 2);
        assert_eq!(fragment_regs(M16n8k256, D, S32, false), 4);
    }
}
