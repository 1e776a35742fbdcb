//! NVIDIA's rules on top of IEEE arithmetic, shared by PTX and SASS semantics:
//! flush-to-zero, canonical NaNs, the `.ftz` division rule, min/max, saturation to [0, 1],
//! and the integer a NaN converts to.

use crate::arith::{div, quotient};
use crate::class::{Class, classify};
use crate::convert::IntType;
use crate::format::Format;
use crate::round::{Rounding, round, tiny_after_rounding};

/// Flushes a subnormal to a zero of the same sign (`.ftz` applies it to the inputs and the
/// result of an operation; the result is flushed after rounding on the subnormal grid, so a
/// result that rounds up to the smallest normal stays).
#[inline]
pub fn flush(x: u64, f: Format) -> u64 {
    if f.is_subnormal(x) { x & f.sign_bit() } else { x }
}

/// [`flush`] if `ftz`, else `x`.
#[inline]
pub fn flush_if(ftz: bool, x: u64, f: Format) -> u64 {
    if ftz { flush(x, f) } else { x }
}

/// A NaN becomes the canonical NaN; other values are kept.
#[inline]
pub fn canonicalize(x: u64, f: Format) -> u64 {
    if f.is_nan(x) { f.canonical_nan() } else { x }
}

/// `a / b` with `.ftz` as NVIDIA's IEEE division and reciprocal (`div.rn.ftz.f32`,
/// `rcp.rn.ftz.f32` ...) define it: subnormal operands are flushed, and the result is a
/// signed zero when it is tiny after rounding with an unbounded exponent, so a quotient just
/// below the smallest normal that would round up to it on the subnormal grid still gives
/// zero. ptxas's `div.rp.ftz.f32` routine shows it: `2^-126 / (1 + 2^-23)` gives +0, not
/// `2^-126`. A result that is not tiny is normal and rounded as usual. (For a quotient of
/// normal operands this is the same as the exact quotient being below the smallest normal:
/// such a quotient is never close enough below a power of two to round up to it.)
pub fn div_ftz(a: u64, b: u64, f: Format, r: Rounding) -> u64 {
    let (a, b) = (flush(a, f), flush(b, f));
    if let (Class::Finite(x), Class::Finite(y)) = (classify(a, f), classify(b, f)) {
        let q = quotient(x, y);
        if tiny_after_rounding(q, f, r) {
            return f.zero(q.neg);
        }
        return round(q, f, r);
    }
    div(a, b, f, r)
}

/// `a` converted from `from` to the narrower `to` with rounding `r` and `.ftz`
/// (`cvt.RND.ftz.f32.f64`): a signed zero when the result is tiny after rounding with an
/// unbounded exponent (IEEE 754's tininess after rounding, as in [`div_ftz`]), else the plain
/// conversion. ptxas 13.5 compiles it so: `F2F.F32.F64` and a compare of `|a|` with one
/// threshold per rounding direction (2^-126 - 2^-151 to nearest, 2^-126 toward zero, just
/// above 2^-126 - 2^-150 away from zero), then `FMUL` by 2^-126 to a signed zero. Flushing the
/// result rounded on the subnormal grid would keep 2^-126 for `a` in
/// [2^-126 - 2^-150, 2^-126 - 2^-151).
pub fn convert_ftz(a: u64, from: Format, to: Format, r: Rounding) -> u64 {
    let a = flush(a, from);
    if let Class::Finite(x) = classify(a, from)
        && tiny_after_rounding(x, to, r)
    {
        return to.zero(x.neg);
    }
    crate::convert::convert(a, from, to, r)
}

/// The smaller of `a` and `b` (PTX `min`, SASS FMNMX/HMNMX2 and `fminf`): a NaN operand
/// yields the other operand, two NaNs the canonical NaN, and -0 is below +0.
pub fn min(a: u64, b: u64, f: Format) -> u64 {
    min_max(a, b, f, false)
}

/// The larger of `a` and `b`, with [`min`]'s rules.
pub fn max(a: u64, b: u64, f: Format) -> u64 {
    min_max(a, b, f, true)
}

fn min_max(a: u64, b: u64, f: Format, max: bool) -> u64 {
    let (a, b) = (a & f.mask(), b & f.mask());
    match (f.is_nan(a), f.is_nan(b)) {
        (true, true) => f.canonical_nan(),
        (true, false) => b,
        (false, true) => a,
        // Total order of the non-NaN values: -0 < +0.
        _ => {
            if (order_key(a, f) < order_key(b, f)) != max {
                a
            } else {
                b
            }
        }
    }
}

/// The modes of PTX's sm_80 `min`/`max` (SASS FMNMX/HMNMX2 `.NAN`, `.XORSIGN`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MinMaxMode {
    /// The larger value instead of the smaller.
    pub max: bool,
    /// `.NaN`: a NaN operand gives the canonical NaN.
    pub nan: bool,
    /// `.xorsign.abs`: the result's sign is the XOR of `signs` (the operands' signs before
    /// their absolute values were taken), unless it is a NaN.
    pub xorsign: Option<(bool, bool)>,
}

/// PTX `min`/`max` of `a` and `b` with `mode` (the operands as compared: already absolute
/// under `.xorsign.abs`).
pub fn min_max_with(a: u64, b: u64, f: Format, mode: MinMaxMode) -> u64 {
    let (a, b) = (a & f.mask(), b & f.mask());
    if mode.nan && (f.is_nan(a) || f.is_nan(b)) {
        return f.canonical_nan();
    }
    let r = min_max(a, b, f, mode.max);
    match mode.xorsign {
        Some((sa, sb)) if !f.is_nan(r) => (r & !f.sign_bit()) | if sa != sb { f.sign_bit() } else { 0 },
        _ => r,
    }
}

/// A key whose signed integer order is the numeric order of non-NaN values, with -0 < +0.
fn order_key(x: u64, f: Format) -> i64 {
    let magnitude = (x & !f.sign_bit()) as i64;
    if f.is_negative(x) { -magnitude - 1 } else { magnitude }
}

/// Clamps `x` to [0, 1] (`.sat`): NaN and negative values give +0, -0 is kept (it lies in
/// [0, 1]; some instructions turn it into +0, their callers do that).
pub fn saturate(x: u64, f: Format) -> u64 {
    let x = x & f.mask();
    if f.is_nan(x) || (f.is_negative(x) && !f.is_zero(x)) {
        0
    } else if x >= f.one() && !f.is_negative(x) {
        f.one()
    } else {
        x
    }
}

/// Whether NVIDIA's float-to-integer conversion turns a NaN into 0 ("NaN to zero": sources
/// of at most 32 bits converted to integers of at most 32 bits, ptxas's `.NTZ` on F2I);
/// otherwise a NaN gives [`nan_to_int`]'s `1 << (bits - 1)`, as the PTX ISA specifies for
/// `cvt` (f64 sources, 64-bit results).
pub fn nan_to_zero(from: Format, to: IntType) -> bool {
    from.width() <= 32 && to.bits <= 32
}

/// The integer a NaN converts to: 0 under NaN-to-zero, else `1 << (bits - 1)` (the most
/// negative value of a signed type).
pub fn nan_to_int(to: IntType, ntz: bool) -> i128 {
    match (ntz, to.signed) {
        (true, _) => 0,
        (false, true) => -(1i128 << (to.bits - 1)),
        (false, false) => 1i128 << (to.bits - 1),
    }
}
