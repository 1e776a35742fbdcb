//! The equivalence rules: when two different output words count as equal. They apply only
//! to words whose value may come from floating-point arithmetic (the word's slice says so,
//! [`crate::slice::Slice::float`]); every other word must be identical. Between the
//! interpreter and a compiled kernel both rules apply; between the two compilers only
//! [`Rule::NanBits`] does (they compute the same operation with different instruction
//! sequences, whose NaNs differ; everything else, the sign of a saturated zero included,
//! must agree bit for bit). `difftest/README.md` states the rules; the tests below check
//! each.

use crate::program::Class;

/// Why two NaNs with different bits count as equal.
pub const NAN_BITS: &str = "PTX leaves unspecified which NaN a float operation returns; the \
    interpreter's soft float returns the canonical NaN where the compiled division, reciprocal and \
    square-root sequences return others (ptxas's slow paths give -qNaN 0xfff8000000000000); the \
    bits travel unchanged through moves, selects, shuffles and exchanges";

/// Why +0 and -0 count as equal in words computed by saturating float instructions.
pub const SAT_ZERO_SIGN: &str = "`.sat` clamps to [0.0, 1.0], which -0.0 is inside: the \
    interpreter keeps -0 as PTX writes it; the hardware keeps it in some units (FADD/FMUL/FFMA.SAT) \
    and gives +0 in others (F2F.SAT, HADD2/HFMA2.SAT), and the two compilers pick different units \
    for the same conversion";

/// An accepted difference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Both words are NaNs of the word's float width ([`NAN_BITS`]).
    NanBits,
    /// Both words are zeros of opposite sign, computed with a saturating float instruction
    /// ([`SAT_ZERO_SIGN`]).
    SatZeroSign,
}

impl Rule {
    /// The reason.
    pub fn reason(self) -> &'static str {
        match self {
            Rule::NanBits => NAN_BITS,
            Rule::SatZeroSign => SAT_ZERO_SIGN,
        }
    }
}

/// What the rules need to know about a word.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WordFacts {
    /// The float width of the word's value (16, 32 or 64) when it may be the result of
    /// floating-point arithmetic; None otherwise (integers, predicates, accumulators, bits
    /// loaded or moved from integers).
    pub float_width: Option<u32>,
    /// A saturating float instruction is in the word's slice.
    pub saturated: bool,
}

impl WordFacts {
    /// The facts of a word held in a register of class `class` whose slice says whether
    /// float arithmetic computed it (`float`) and whether it saturated (`saturated`).
    pub fn of(class: Option<Class>, float: bool, saturated: bool) -> WordFacts {
        let width = match class {
            Some(Class::B16) => Some(16),
            Some(Class::B32 | Class::F32) => Some(32),
            Some(Class::B64 | Class::F64) => Some(64),
            _ => None,
        };
        WordFacts {
            float_width: width.filter(|_| float),
            saturated,
        }
    }
}

/// The rule under which the two compilers' words `a` and `b` count as equal, or None.
pub fn compilers_equivalent(w: &WordFacts, a: u64, b: u64) -> Option<Rule> {
    equivalent(w, a, b).filter(|r| *r == Rule::NanBits)
}

/// The rule under which words `a` (the interpreter's) and `b` (a compiled kernel's) count as
/// equal, or None (identical words need no rule).
pub fn equivalent(w: &WordFacts, a: u64, b: u64) -> Option<Rule> {
    let bits = w.float_width?;
    if a == b {
        return None;
    }
    let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let same_upper = a & !mask == b & !mask;
    let (exp, frac) = match bits {
        16 => (0x7c00u64, 0x03ffu64),
        32 => (0x7f80_0000, 0x007f_ffff),
        _ => (0x7ff0_0000_0000_0000, 0x000f_ffff_ffff_ffff),
    };
    let nan = |x: u64| x & exp == exp && x & frac != 0;
    if same_upper && nan(a) && nan(b) {
        return Some(Rule::NanBits);
    }
    let sign = 1u64 << (bits - 1);
    let zero = |x: u64| x & !sign == 0;
    (w.saturated && zero(a) && zero(b)).then_some(Rule::SatZeroSign)
}

#[cfg(test)]
mod tests {
    use super::*;

    const F32: WordFacts = WordFacts {
        float_width: Some(32),
        saturated: false,
    };

    #[test]
    fn nans_of_float_words_are_equal() {
        assert_eq!(equivalent(&F32, 0x7fc0_0000, 0xffc0_0000), Some(Rule::NanBits));
        assert_eq!(equivalent(&F32, 0x7fc0_0000, 0x7f80_0001), Some(Rule::NanBits));
        let f64w = WordFacts {
            float_width: Some(64),
            saturated: false,
        };
        assert_eq!(
            equivalent(&f64w, 0x7ff8_0000_0000_0000, 0xfff8_0000_0000_0000),
            Some(Rule::NanBits)
        );
        let f16w = WordFacts {
            float_width: Some(16),
            saturated: false,
        };
        assert_eq!(equivalent(&f16w, 0x7e00, 0x7fff), Some(Rule::NanBits));
    }

    #[test]
    fn a_nan_and_a_number_differ() {
        assert_eq!(equivalent(&F32, 0x7fc0_0000, 0x7f80_0000), None, "NaN vs +inf");
        assert_eq!(equivalent(&F32, 0x7fc0_0000, 0), None);
    }

    #[test]
    fn integer_words_are_never_equivalent() {
        // The same bits as two f32 NaNs, in a word no float arithmetic computed.
        let int = WordFacts::of(Some(Class::B32), false, true);
        assert_eq!(equivalent(&int, 0x7fc0_0000, 0xffc0_0000), None);
        assert_eq!(equivalent(&int, 0x8000_0000, 0), None);
        let pred = WordFacts::of(Some(Class::Pred), true, true);
        assert_eq!(equivalent(&pred, 1, 0), None);
        let acc = WordFacts::of(None, true, true);
        assert_eq!(equivalent(&acc, 0x7fc0_0000, 0xffc0_0000), None);
    }

    #[test]
    fn between_the_compilers_only_nan_bits() {
        let sat = WordFacts::of(Some(Class::F32), true, true);
        assert_eq!(compilers_equivalent(&sat, 0x8000_0000, 0), None);
        assert_eq!(
            compilers_equivalent(&sat, 0x7fc0_0000, 0x7fff_ffff),
            Some(Rule::NanBits)
        );
        let int = WordFacts::of(Some(Class::B32), false, false);
        assert_eq!(compilers_equivalent(&int, 0x7fc0_0000, 0x7fff_ffff), None);
    }

    #[test]
    fn upper_bits_must_agree() {
        assert_eq!(equivalent(&F32, 0x1_7fc0_0000, 0x7fc0_0000), None);
    }

    #[test]
    fn zero_signs_only_with_saturation() {
        assert_eq!(equivalent(&F32, 0x8000_0000, 0), None);
        let sat = WordFacts::of(Some(Class::F32), true, true);
        assert_eq!(equivalent(&sat, 0x8000_0000, 0), Some(Rule::SatZeroSign));
        assert_eq!(equivalent(&sat, 0x8000_0001, 1), None, "only zeros");
        let sat16 = WordFacts::of(Some(Class::B16), true, true);
        assert_eq!(equivalent(&sat16, 0x8000, 0), Some(Rule::SatZeroSign));
    }
}
