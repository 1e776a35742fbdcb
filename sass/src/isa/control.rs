//! The control code of a Turing instruction (bits 105..126): stall count, yield, write and
//! read scoreboards, wait mask and operand-reuse flags, with the validity rules that nvdisasm
//! enforces (docs/ENCODING-SM75.md A.2).

use super::bits::{BitField, bits};
use std::fmt;

const STALL: BitField = bits(105, 4);
const YIELD_BIT: BitField = bits(109, 1);
const WRITE_SB: BitField = bits(110, 3);
const READ_SB: BitField = bits(113, 3);
const WAIT: BitField = bits(116, 6);
const REUSE: BitField = bits(122, 4);

/// "No scoreboard" in the read/write scoreboard fields.
pub const NO_SB: u8 = 7;

/// The decoded control code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Control {
    /// Cycles before the warp's next instruction may issue (0..=15).
    pub stall: u8,
    /// Yield hint: true prints as `Y` and is stored as bit 109 = 0.
    pub yield_: bool,
    /// Scoreboard incremented at issue and released at write-back (0..=5, 7 = none).
    pub write_sb: u8,
    /// Scoreboard released once the sources are read (0..=5, 7 = none).
    pub read_sb: u8,
    /// Scoreboards to wait on before issue (bit k = SBk).
    pub wait: u8,
    /// Operand reuse flags: bit 0 = A, 1 = B, 2 = C, 3 = the unprinted fourth slot.
    pub reuse: u8,
}

impl Default for Control {
    fn default() -> Self {
        Control {
            stall: 1,
            yield_: false,
            write_sb: NO_SB,
            read_sb: NO_SB,
            wait: 0,
            reuse: 0,
        }
    }
}

/// Why a control code cannot be encoded (nvdisasm would reject it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    /// Stall above 15.
    #[error("stall count {0} does not fit in 4 bits")]
    StallRange(u8),
    /// A scoreboard index other than 0..=5 or 7.
    #[error("scoreboard index {0} is not 0..5 or 7 (none)")]
    ScoreboardRange(u8),
    /// Wait mask with bits above SB5.
    #[error("wait mask {0:#x} names scoreboards above SB5")]
    WaitRange(u8),
    /// Without yield, only stall 1..=11 is legal.
    #[error("stall {0} without yield is illegal (only 1..11 may clear the yield hint)")]
    StallWithoutYield(u8),
    /// With yield and stall 0, reuse flags are illegal.
    #[error("reuse flags with yield and stall 0 are illegal")]
    ReuseWithYieldStall0,
}

impl Control {
    /// A control code with stall `stall`, yield set as ptxas does for that stall, no scoreboards.
    pub fn stall(stall: u8) -> Control {
        Control {
            stall,
            yield_: !(1..=11).contains(&stall),
            ..Control::default()
        }
    }

    /// Checks the validity rules of the {stall, yield, reuse} field.
    pub fn validate(&self) -> Result<(), ControlError> {
        if self.stall > 15 {
            return Err(ControlError::StallRange(self.stall));
        }
        for sb in [self.write_sb, self.read_sb] {
            if sb > 5 && sb != NO_SB {
                return Err(ControlError::ScoreboardRange(sb));
            }
        }
        if self.wait > 0x3f {
            return Err(ControlError::WaitRange(self.wait));
        }
        if !self.yield_ && !(1..=11).contains(&self.stall) {
            return Err(ControlError::StallWithoutYield(self.stall));
        }
        if self.yield_ && self.stall == 0 && self.reuse != 0 {
            return Err(ControlError::ReuseWithYieldStall0);
        }
        Ok(())
    }

    /// Reads the control code of an instruction.
    pub fn decode(inst: u128) -> Control {
        Control {
            stall: STALL.get(inst) as u8,
            yield_: YIELD_BIT.get(inst) == 0,
            write_sb: WRITE_SB.get(inst) as u8,
            read_sb: READ_SB.get(inst) as u8,
            wait: WAIT.get(inst) as u8,
            reuse: REUSE.get(inst) as u8,
        }
    }

    /// Writes the control code into an instruction (after [`Control::validate`]).
    pub fn encode_into(&self, inst: &mut u128) -> Result<(), ControlError> {
        self.validate()?;
        STALL.set(inst, self.stall as u64);
        YIELD_BIT.set(inst, u64::from(!self.yield_));
        WRITE_SB.set(inst, self.write_sb as u64);
        READ_SB.set(inst, self.read_sb as u64);
        WAIT.set(inst, self.wait as u64);
        REUSE.set(inst, self.reuse as u64);
        Ok(())
    }

    /// The bits the control code occupies.
    pub fn mask() -> u128 {
        STALL.mask() | YIELD_BIT.mask() | WRITE_SB.mask() | READ_SB.mask() | WAIT.mask() | REUSE.mask()
    }

    /// True if the reuse flags are shown: nvdisasm ignores them when the yield bit is set.
    pub fn reuse_shown(&self, slot: u8) -> bool {
        !self.yield_ && self.reuse & (1 << slot) != 0
    }
}

/// Prints the control code the way CuAssembler does: `[B0-2---:R-:W1:Y:S04]`.
impl fmt::Display for Control {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[B")?;
        for k in 0..6 {
            if self.wait & (1 << k) != 0 {
                write!(f, "{k}")?;
            } else {
                f.write_str("-")?;
            }
        }
        let sb = |s: u8| {
            if s == NO_SB { "-".to_string() } else { s.to_string() }
        };
        write!(
            f,
            ":R{}:W{}:{}:S{:02}]",
            sb(self.read_sb),
            sb(self.write_sb),
            if self.yield_ { "Y" } else { "-" },
            self.stall
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::bits::from_words;

    #[test]
    fn decodes_ptxas_imad_control() {
        // IMAD R4, R4, c[0x0][0x0], R9 with [B0-----:R-:W-:Y:S05]
        let c = Control::decode(from_words(0x0000000004047a24, 0x001fca00078e0209));
        assert_eq!(c.to_string(), "[B0-----:R-:W-:Y:S05]");
        let mut x = 0u128;
        c.encode_into(&mut x).unwrap();
        assert_eq!(x, from_words(0, 0x001fca0000000000));
    }

    #[test]
    fn rejects_illegal_combinations() {
        let no_yield = |stall| Control {
            stall,
            yield_: false,
            ..Control::default()
        };
        assert!(no_yield(0).validate().is_err());
        assert!(no_yield(12).validate().is_err());
        assert!(no_yield(11).validate().is_ok());
        let c = Control {
            stall: 0,
            yield_: true,
            reuse: 1,
            ..Control::default()
        };
        assert_eq!(c.validate(), Err(ControlError::ReuseWithYieldStall0));
    }
}
