//! The value types of Hopper's bulk-copy, TMA and register-reconfiguration modifiers
//! (`sm90/tma.rs`, `sm90/bulk.rs`, `sm90/setmaxreg.rs`): each variant is one code of the
//! field, as nvdisasm 13.5 (`-b SM90`) spells it.

use super::super::modifier::{Mod, ModSet, ModValue};

values! {
    /// The number of tensor dimensions of a TMA instruction (bits 79..81; 5..7 print
    /// `INVALIDn`).
    TmaDim for TmaDim, absent D1 {
        /// `.1D`
        D1 = 0,
        /// `.2D`
        D2 = 1,
        /// `.3D`
        D3 = 2,
        /// `.4D`
        D4 = 3,
        /// `.5D`
        D5 = 4,
    }
}

impl TmaDim {
    /// The number of coordinates (1 to 5).
    pub fn count(self) -> u8 {
        self.code() as u8 + 1
    }
}

values! {
    /// The memories of a bulk copy, destination first (bits 73..74: bit 73 the destination,
    /// bit 74 the source, set for shared memory).
    BulkDirection for BulkDirection, absent SharedFromGlobal {
        /// `.G.G`: global to global (nvdisasm prints it; ptxas emits none).
        GlobalFromGlobal = 0,
        /// `.S.G`: global to the cluster's shared memory, completed on an mbarrier.
        SharedFromGlobal = 1,
        /// `.G.S`: the CTA's shared memory to global, completed by the bulk group.
        GlobalFromShared = 2,
        /// `.S.S`: the CTA's shared memory to the cluster's, completed on an mbarrier.
        SharedFromShared = 3,
    }
}

impl BulkDirection {
    /// True if the destination is shared memory (a 32-bit address followed by the mbarrier's).
    pub fn to_shared(self) -> bool {
        self.code() & 1 == 1
    }

    /// True if the source is shared memory (a 32-bit address; global sources are 64-bit).
    pub fn from_shared(self) -> bool {
        self.code() & 2 == 2
    }
}

values! {
    /// The reduction of UBLKRED and UTMAREDG (bits 87..89).
    BulkRedOp for BulkRedOp, absent Add {
        /// `.ADD`
        Add = 0,
        /// `.MIN`
        Min = 1,
        /// `.MAX`
        Max = 2,
        /// `.INC`: wrapping increment below the source value.
        Inc = 3,
        /// `.DEC`: wrapping decrement.
        Dec = 4,
        /// `.AND`
        And = 5,
        /// `.OR`
        Or = 6,
        /// `.XOR`
        Xor = 7,
    }
}

values! {
    /// The element type of a UBLKRED reduction (bits 81..84; 9..15 print `INVALIDn`).
    BulkRedType for BulkRedType, absent U32 {
        /// Unsigned 32-bit (nothing printed; also PTX's `.b32`).
        U32 = 0,
        /// `.S32`
        S32 = 1,
        /// `.U64` (also PTX's `.b64`).
        U64 = 2,
        /// `.S64`
        S64 = 3,
        /// `.F16.RN`
        F16 = 4,
        /// `.F32.RN`
        F32 = 5,
        /// `.F32.FTZ.RN`
        F32Ftz = 6,
        /// `.F64.RN`
        F64 = 7,
        /// `.BF16.RN`
        Bf16 = 8,
    }
}

values! {
    /// UTMACCTL's operation on a tensor map (bit 82).
    TensorMapCctl for TensorMapCctl, absent Prefetch {
        /// `.IV`: invalidate the cached copy.
        Invalidate = 0,
        /// `.PF`: prefetch it (PTX `prefetch.tensormap`).
        Prefetch = 1,
    }
}

values! {
    /// What USETMAXREG does with the warp's registers (bits 72..73; 0 and 3 are illegal).
    MaxRegMode for MaxRegMode, absent Dealloc {
        /// `.DEALLOC`: give registers back to the pool (PTX `setmaxnreg.dec`).
        Dealloc = 1,
        /// `.TRY_ALLOC`: take registers from the pool if it has them; the uniform predicate
        /// says whether it had (PTX `setmaxnreg.inc`, which ptxas retries in a loop).
        TryAlloc = 2,
    }
}
