//! Source positions of instructions, for line tables (`ptxas -lineinfo`): the byte offset of
//! the PTX instruction an instruction was made from. Passes that create instructions leave
//! them without one; whoever writes line tables gives those the position of the instruction
//! before them.

/// The byte offset of a PTX instruction in its source text, or none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SrcLoc(u32);

impl SrcLoc {
    /// No position.
    pub const NONE: SrcLoc = SrcLoc(0);

    /// The position `offset` bytes into the source.
    pub fn at(offset: u32) -> SrcLoc {
        SrcLoc(offset.saturating_add(1))
    }

    /// The byte offset, if there is one.
    pub fn offset(self) -> Option<u32> {
        self.0.checked_sub(1)
    }

    /// True when there is no position.
    pub fn is_none(self) -> bool {
        self == SrcLoc::NONE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_round_trip() {
        assert_eq!(SrcLoc::at(0).offset(), Some(0));
        assert_eq!(SrcLoc::at(41).offset(), Some(41));
        assert_eq!(SrcLoc::NONE.offset(), None);
        assert_eq!(SrcLoc::default(), SrcLoc::NONE);
    }
}
