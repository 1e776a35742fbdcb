//! The simulator's float glue for SASS: the rounding-mode field, f32/f64 operations whose
//! round-to-nearest cases use the host's (correctly rounded) operations for speed while the
//! directed modes go through [`ptxc_softfloat`], flush-to-zero and NaN canonicalisation of
//! whole rows, FMNMX, and the comparison codes. Results that are NaN are the GPU's canonical
//! NaN (`0x7fffffff`).

use ptxc_sass::isa::values::{FloatCmp, Rounding};
use ptxc_softfloat::{self as sf, F32, F64};

/// Rounding modes (the simulator's name for [`ptxc_softfloat::Rounding`]).
pub use ptxc_softfloat::Rounding as Rnd;

/// The rounding mode of a SASS rounding modifier.
pub fn rnd(r: Rounding) -> Rnd {
    match r {
        Rounding::Rn => Rnd::Rn,
        Rounding::Rm => Rnd::Rm,
        Rounding::Rp => Rnd::Rp,
        Rounding::Rz => Rnd::Rz,
    }
}

/// The canonical NaN of f32 results.
pub const NAN32: u32 = F32.canonical_nan() as u32;

/// Flushes a subnormal to a zero of the same sign.
#[inline]
pub fn flush(x: f32) -> f32 {
    f32::from_bits(sf::flush(x.to_bits() as u64, F32) as u32)
}

/// Flushes a subnormal f64 to a zero of the same sign.
#[inline]
pub fn flush64(x: f64) -> f64 {
    f64::from_bits(sf::flush(x.to_bits(), F64))
}

/// Canonicalises a NaN result.
#[inline]
pub fn canon(x: f32) -> f32 {
    f32::from_bits(sf::canonicalize(x.to_bits() as u64, F32) as u32)
}

/// Canonicalises a NaN f64 result.
#[inline]
pub fn canon64(x: f64) -> f64 {
    f64::from_bits(sf::canonicalize(x.to_bits(), F64))
}

#[inline]
fn post(r: f32, ftz: bool) -> f32 {
    canon(if ftz { flush(r) } else { r })
}

/// An f32 operation of the soft-float crate on operands flushed under `ftz`, its result
/// flushed too.
#[inline]
fn soft32<const N: usize>(args: [f32; N], ftz: bool, op: impl FnOnce([u64; N]) -> u64) -> f32 {
    let bits = args.map(|x| sf::flush_if(ftz, x.to_bits() as u64, F32));
    f32::from_bits(sf::flush_if(ftz, op(bits), F32) as u32)
}

/// `a + b`.
#[inline]
pub fn add(a: f32, b: f32, mode: Rnd, ftz: bool) -> f32 {
    if mode == Rnd::Rn {
        let (a, b) = if ftz { (flush(a), flush(b)) } else { (a, b) };
        return post(a + b, ftz);
    }
    soft32([a, b], ftz, |[a, b]| sf::add(a, b, F32, mode))
}

/// `a * b`.
#[inline]
pub fn mul(a: f32, b: f32, mode: Rnd, ftz: bool) -> f32 {
    if mode == Rnd::Rn {
        let (a, b) = if ftz { (flush(a), flush(b)) } else { (a, b) };
        return post(a * b, ftz);
    }
    soft32([a, b], ftz, |[a, b]| sf::mul(a, b, F32, mode))
}

/// `a * b + c` with one rounding.
#[inline]
pub fn fma(a: f32, b: f32, c: f32, mode: Rnd, ftz: bool) -> f32 {
    if mode == Rnd::Rn {
        let (a, b, c) = if ftz { (flush(a), flush(b), flush(c)) } else { (a, b, c) };
        return post(fma_rn(a, b, c), ftz);
    }
    soft32([a, b, c], ftz, |[a, b, c]| sf::fma(a, b, c, F32, mode))
}

/// f64 `a + b`.
pub fn dadd(a: f64, b: f64, mode: Rnd) -> f64 {
    if mode == Rnd::Rn {
        return canon64(a + b);
    }
    f64::from_bits(sf::add(a.to_bits(), b.to_bits(), F64, mode))
}

/// f64 `a * b`.
pub fn dmul(a: f64, b: f64, mode: Rnd) -> f64 {
    if mode == Rnd::Rn {
        return canon64(a * b);
    }
    f64::from_bits(sf::mul(a.to_bits(), b.to_bits(), F64, mode))
}

/// f64 `a * b + c` with one rounding.
pub fn dfma(a: f64, b: f64, c: f64, mode: Rnd) -> f64 {
    if mode == Rnd::Rn {
        return canon64(dfma_rn(a, b, c));
    }
    f64::from_bits(sf::fma(a.to_bits(), b.to_bits(), c.to_bits(), F64, mode))
}

/// `a * b + c` rounded to nearest for 32 lanes, with the CPU's fused multiply-add when it
/// has one (the portable `mul_add` falls back to a slow software routine).
#[inline]
pub fn fma_rows(a: &[f32; 32], b: &[f32; 32], c: &[f32; 32], out: &mut [f32; 32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU supports the `fma` feature the function is compiled for.
        unsafe { fma_rows_hw(a, b, c, out) };
        return;
    }
    for l in 0..32 {
        out[l] = a[l].mul_add(b[l], c[l]);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn fma_rows_hw(a: &[f32; 32], b: &[f32; 32], c: &[f32; 32], out: &mut [f32; 32]) {
    for l in 0..32 {
        out[l] = a[l].mul_add(b[l], c[l]);
    }
}

/// `a * b + c` rounded to nearest in f32, with the CPU's fused multiply-add when it has one.
#[inline]
pub fn fma_rn(a: f32, b: f32, c: f32) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU supports the `fma` feature the function is compiled for.
        return unsafe { fma_hw(a, b, c) };
    }
    a.mul_add(b, c)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn fma_hw(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

/// `a * b + c` rounded to nearest in f64, with the CPU's fused multiply-add when it has one.
#[inline]
pub fn dfma_rn(a: f64, b: f64, c: f64) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU supports the `fma` feature the function is compiled for.
        return unsafe { dfma_hw(a, b, c) };
    }
    a.mul_add(b, c)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn dfma_hw(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

/// Flushes every subnormal of a row to a zero of the same sign.
#[inline]
pub fn flush_row(x: &mut [f32; 32]) {
    for v in x.iter_mut() {
        let bits = v.to_bits();
        if bits & 0x7f80_0000 == 0 {
            *v = f32::from_bits(bits & 0x8000_0000);
        }
    }
}

/// Canonicalises the NaNs of a row.
#[inline]
pub fn canon_row(x: &mut [f32; 32]) {
    for v in x.iter_mut() {
        if v.is_nan() {
            *v = f32::from_bits(NAN32);
        }
    }
}

/// Clamps to [0, 1] (NaN becomes +0, -0 stays).
pub fn saturate(x: f32) -> f32 {
    f32::from_bits(sf::saturate(x.to_bits() as u64, F32) as u32)
}

/// SASS FMNMX: NaN-aware min/max with -0 < +0 ([`ptxc_softfloat::min`]).
pub fn min_max(a: f32, b: f32, max: bool, ftz: bool) -> f32 {
    let (a, b) = (
        sf::flush_if(ftz, a.to_bits() as u64, F32),
        sf::flush_if(ftz, b.to_bits() as u64, F32),
    );
    let r = if max { sf::max(a, b, F32) } else { sf::min(a, b, F32) };
    f32::from_bits(r as u32)
}

/// A float comparison (FSETP, DSETP, HSETP2): ordered ones are false on NaN, unordered ones
/// true.
#[inline]
pub fn compare(cmp: FloatCmp, a: f64, b: f64) -> bool {
    let unordered = a.is_nan() || b.is_nan();
    match cmp {
        FloatCmp::F => false,
        FloatCmp::Lt => a < b,
        FloatCmp::Eq => a == b,
        FloatCmp::Le => a <= b,
        FloatCmp::Gt => a > b,
        FloatCmp::Ne => a != b && !unordered,
        FloatCmp::Ge => a >= b,
        FloatCmp::Num => !unordered,
        FloatCmp::Nan => unordered,
        FloatCmp::Ltu => unordered || a < b,
        FloatCmp::Equ => unordered || a == b,
        FloatCmp::Leu => unordered || a <= b,
        FloatCmp::Gtu => unordered || a > b,
        FloatCmp::Neu => a != b,
        FloatCmp::Geu => unordered || a >= b,
        FloatCmp::T => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn next_up(x: f32) -> f32 {
        f32::from_bits(x.to_bits() + 1)
    }

    #[test]
    fn directed_rounding_of_sums() {
        let third = 1.0f32 / 3.0;
        assert_eq!(add(1.0, 1e-10, Rnd::Rp, false), next_up(1.0));
        assert_eq!(add(1.0, 1e-10, Rnd::Rz, false), 1.0);
        assert_eq!(add(1.0, -1e-10, Rnd::Rz, false), f32::from_bits(1.0f32.to_bits() - 1));
        assert_eq!(mul(third, 3.0, Rnd::Rn, false), 1.0);
        assert_eq!(mul(third, 3.0, Rnd::Rz, false), 1.0);
        assert_eq!(mul(third, 3.0, Rnd::Rp, false), next_up(1.0));
        assert_eq!(fma(2.0, 3.0, 1.0, Rnd::Rz, false), 7.0);
        assert_eq!(add(f32::MAX, f32::MAX, Rnd::Rz, false), f32::MAX);
        assert_eq!(flush(f32::from_bits(1)), 0.0);
        assert_eq!(add(f32::INFINITY, f32::NEG_INFINITY, Rnd::Rn, false).to_bits(), NAN32);
    }

    #[test]
    fn min_max_handles_nan_and_signed_zero() {
        assert_eq!(min_max(f32::NAN, 1.0, false, false), 1.0);
        assert!(min_max(0.0, -0.0, false, false).is_sign_negative());
        assert!(min_max(-0.0, 0.0, true, false).is_sign_positive());
    }
}
