//! FCHK, the range check of ptxas's single-precision division.
//!
//! `div.rn.f32` compiles to a fast path (`MUFU.RCP` of the divisor, one Newton step on the
//! reciprocal, a quotient, its residual `a - b*q` and one correction) guarded by
//! `FCHK P, a, b`; where P is set the code calls a slow path that scales both operands near 1
//! and rescales the result, which is correct for every input. The fast path is correctly
//! rounded only when no intermediate value is subnormal, infinite or lost:
//!
//! - the operands are finite, non-zero and normal (a zero dividend needs the slow path for
//!   the sign: `FFMA q, a, r, RZ` turns `-0` into `+0`);
//! - the reciprocal of the divisor is normal: unbiased exponent `-126 < e_b < 125`;
//! - the quotient stays normal and finite: `-125 < e_a - e_b < 127`;
//! - the residual is exact: it is about `2^(e_a - 24)` and must not be subnormal,
//!   `e_a > -103`.
//!
//! These are the conditions the POWER ISA gives for its equivalent instruction (`ftdiv`,
//! for f64: `e_b <= -1022`, `e_b >= 1021`, `e_a - e_b >= 1023`, `e_a - e_b <= -1021`,
//! `e_a <= -970 = -1022 + 52`) carried over to f32. NVIDIA does not document FCHK; recorded
//! hardware outputs cannot tell the two paths apart where both are exact, so the exact
//! hardware predicate only matters for timing. The test below checks that the fast path is
//! exact wherever this FCHK lets it run, also with a reciprocal one unit off.

use crate::decoded::Decoded;
use crate::error::SimError;
use crate::exec::ctx::Ctx;
use crate::exec::warp::{WARP, Warp};

use super::float::frow;

/// Whether `a / b` needs the slow path of ptxas's division (see the module documentation).
pub fn division_needs_check(a: f32, b: f32) -> bool {
    let (ea, eb) = ((a.to_bits() >> 23) & 0xff, (b.to_bits() >> 23) & 0xff);
    // Zero, subnormal (exponent field 0), infinity or NaN (255).
    if ea == 0 || ea == 255 || eb == 0 || eb == 255 {
        return true;
    }
    let (xa, xb) = (ea as i32 - 127, eb as i32 - 127);
    xb <= -126 || xb >= 125 || xa - xb >= 127 || xa - xb <= -125 || xa <= -103
}

/// FCHK: sets the predicate where a division needs the slow path.
pub fn fchk(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> Result<(), SimError> {
    let (a, b) = (frow(ctx, w, &d.a), frow(ctx, w, &d.b));
    let mut r = 0u32;
    for l in 0..WARP {
        r |= (division_needs_check(a[l], b[l]) as u32) << l;
    }
    w.set_pred(d.pd[0].idx, exec, r);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::division_needs_check;

    /// ptxas's fast path with reciprocal `r` (`MUFU.RCP` flushes a subnormal result).
    fn fast_path(a: f32, b: f32, r: f32) -> f32 {
        let r = if r.is_subnormal() { 0.0 } else { r };
        let e = (-b).mul_add(r, 1.0);
        let r = r.mul_add(e, r);
        let q = a.mul_add(r, 0.0);
        let rem = (-b).mul_add(q, a);
        r.mul_add(rem, q)
    }

    fn ulp_step(x: f32, k: i32) -> f32 {
        f32::from_bits((x.to_bits() as i32 + k) as u32)
    }

    #[test]
    fn the_fast_path_is_exact_wherever_fchk_allows_it() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut checked = 0;
        for i in 0..2_000_000u32 {
            let x = next();
            // Exponents drawn uniformly, with extra weight near the edges of the checks.
            let pick = |bits: u64, edge: bool| -> u32 {
                let e = if edge {
                    [1u32, 2, 3, 4, 22, 23, 24, 25, 26, 250, 251, 252, 253, 254][(bits % 14) as usize]
                } else {
                    (bits % 254) as u32 + 1
                };
                ((bits >> 32) as u32 & 0x807f_ffff) | e << 23
            };
            let a = f32::from_bits(pick(x, i % 3 == 0));
            let b = f32::from_bits(pick(next(), i % 5 == 0));
            if division_needs_check(a, b) {
                continue;
            }
            checked += 1;
            let want = a / b;
            let r = (1.0f64 / b as f64) as f32;
            for k in [-1, 0, 1] {
                let got = fast_path(a, b, ulp_step(r, k));
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "{a:e} / {b:e} (reciprocal {k:+} ulp): fast path {got:e}, IEEE {want:e}"
                );
            }
        }
        assert!(checked > 500_000, "only {checked} divisions took the fast path");
    }

    #[test]
    fn special_operands_take_the_slow_path() {
        for (a, b) in [
            (0.0, 1.0),
            (-0.0, 1.0),
            (1.0, 0.0),
            (f32::NAN, 1.0),
            (1.0, f32::INFINITY),
            (1e-40, 1.0),
            (1.0, 1e-40),
            (f32::MAX, 0.5),
            (2f32.powi(-125), -2f32.powi(-123)),
        ] {
            assert!(division_needs_check(a, b), "{a:e} / {b:e}");
        }
        assert!(!division_needs_check(1.0, 3.0));
    }
}
