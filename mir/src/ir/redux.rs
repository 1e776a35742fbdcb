//! The `Aux::Imm` of [`crate::ir::Opcode::Redux`]: which reduction `redux.sync` computes over
//! the participating threads, and whether `.min`/`.max` compare as signed integers.

/// A `redux.sync` reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduxKind {
    /// `.add`: the wrapping sum.
    Add = 0,
    /// `.min`.
    Min = 1,
    /// `.max`.
    Max = 2,
    /// `.and`.
    And = 3,
    /// `.or`.
    Or = 4,
    /// `.xor`.
    Xor = 5,
}

/// The reduction and its signedness, as one immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReduxFlags {
    /// The reduction.
    pub kind: ReduxKind,
    /// `.s32`: `.min` and `.max` compare signed values.
    pub signed: bool,
}

impl ReduxFlags {
    /// The immediate (`kind` in bits 0..3, `signed` bit 3).
    pub fn bits(self) -> u64 {
        self.kind as u64 | (self.signed as u64) << 3
    }

    /// The flags of an immediate (an unknown reduction reads as `.add`).
    pub fn from_bits(b: u64) -> ReduxFlags {
        use ReduxKind::*;
        let kind = [Add, Min, Max, And, Or, Xor]
            .get((b & 7) as usize)
            .copied()
            .unwrap_or(Add);
        ReduxFlags {
            kind,
            signed: b >> 3 & 1 == 1,
        }
    }

    /// The reduction of `values` (the participating threads' operands).
    pub fn reduce(self, values: impl Iterator<Item = u32>) -> u32 {
        use ReduxKind::*;
        match (self.kind, self.signed) {
            (Add, _) => values.fold(0, u32::wrapping_add),
            (Min, true) => values.map(|v| v as i32).min().unwrap_or(i32::MAX) as u32,
            (Max, true) => values.map(|v| v as i32).max().unwrap_or(i32::MIN) as u32,
            (Min, false) => values.min().unwrap_or(u32::MAX),
            (Max, false) => values.max().unwrap_or(0),
            (And, _) => values.fold(u32::MAX, |x, y| x & y),
            (Or, _) => values.fold(0, |x, y| x | y),
            (Xor, _) => values.fold(0, |x, y| x ^ y),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_round_trip_and_reduce() {
        for kind in [
            ReduxKind::Add,
            ReduxKind::Min,
            ReduxKind::Max,
            ReduxKind::And,
            ReduxKind::Or,
            ReduxKind::Xor,
        ] {
            for signed in [false, true] {
                let f = ReduxFlags { kind, signed };
                assert_eq!(ReduxFlags::from_bits(f.bits()), f);
            }
        }
        let v = [3u32, 0xffff_fffe, 7];
        let r = |kind, signed| ReduxFlags { kind, signed }.reduce(v.iter().copied());
        assert_eq!(r(ReduxKind::Add, false), 8);
        assert_eq!(r(ReduxKind::Min, true), 0xffff_fffe);
        assert_eq!(r(ReduxKind::Min, false), 3);
        assert_eq!(r(ReduxKind::Max, true), 7);
        assert_eq!(r(ReduxKind::Max, false), 0xffff_fffe);
        assert_eq!(r(ReduxKind::Xor, false), 3 ^ 0xffff_fffe ^ 7);
    }
}
