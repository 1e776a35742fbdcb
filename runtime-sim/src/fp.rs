//! IEEE single-precision arithmetic with the rounding modes and flush-to-zero of SASS:
//! round-to-nearest uses the host's IEEE operations; the directed modes correct the
//! nearest result with the exact rounding error (TwoSum / exact f64 products).

/// Rounding modes in SASS encoding order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rnd {
    /// To nearest, ties to even.
    Rn,
    /// Toward minus infinity.
    Rm,
    /// Toward plus infinity.
    Rp,
    /// Toward zero.
    Rz,
}

impl Rnd {
    /// From the 2-bit `rnd` field (0 RN, 1 RM, 2 RP, 3 RZ).
    pub fn from_bits(b: u8) -> Rnd {
        match b & 3 {
            0 => Rnd::Rn,
            1 => Rnd::Rm,
            2 => Rnd::Rp,
            _ => Rnd::Rz,
        }
    }
}

/// Flushes a subnormal to a zero of the same sign.
pub fn flush(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

fn next_up(x: f32) -> f32 {
    if x.is_nan() || x == f32::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f32::from_bits(1);
    }
    let b = x.to_bits();
    f32::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

fn next_down(x: f32) -> f32 {
    -next_up(-x)
}

/// Adjusts the nearest result `r` of an exact value `r + err` for a directed mode.
fn direct(r: f32, err: f64, mode: Rnd) -> f32 {
    if !r.is_finite() || err == 0.0 {
        return directed_overflow(r, mode);
    }
    match mode {
        Rnd::Rn => r,
        Rnd::Rp if err > 0.0 => next_up(r),
        Rnd::Rm if err < 0.0 => next_down(r),
        // Toward zero: keep r unless the exact value lies between r and zero.
        Rnd::Rz if r == 0.0 || (err > 0.0) == (r > 0.0) => r,
        Rnd::Rz if r > 0.0 => next_down(r),
        Rnd::Rz => next_up(r),
        _ => r,
    }
}

/// Overflowed nearest results become the largest finite value under directed modes.
fn directed_overflow(r: f32, mode: Rnd) -> f32 {
    match (mode, r) {
        (Rnd::Rz | Rnd::Rm, f32::INFINITY) => f32::MAX,
        (Rnd::Rz | Rnd::Rp, f32::NEG_INFINITY) => f32::MIN,
        _ => r,
    }
}

/// Rounds an f64 (exact value) to f32 with `mode`.
pub fn round_f64(x: f64, mode: Rnd) -> f32 {
    let r = x as f32;
    if mode == Rnd::Rn || x.is_nan() {
        return r;
    }
    if r.is_infinite() && x.is_finite() {
        return directed_overflow(r, mode);
    }
    direct(r, x - r as f64, mode)
}

/// `a + b`.
pub fn add(a: f32, b: f32, mode: Rnd, ftz: bool) -> f32 {
    let (a, b) = if ftz { (flush(a), flush(b)) } else { (a, b) };
    let r = a + b;
    let r = if mode == Rnd::Rn || !r.is_finite() || !a.is_finite() || !b.is_finite() {
        if r.is_infinite() && a.is_finite() && b.is_finite() {
            directed_overflow(r, mode)
        } else {
            r
        }
    } else {
        // TwoSum: the exact error of the nearest sum.
        let bb = r - a;
        let err = (a - (r - bb)) as f64 + (b - bb) as f64;
        direct(r, err, mode)
    };
    if ftz { flush(r) } else { r }
}

/// `a * b`.
pub fn mul(a: f32, b: f32, mode: Rnd, ftz: bool) -> f32 {
    let (a, b) = if ftz { (flush(a), flush(b)) } else { (a, b) };
    let r = if mode == Rnd::Rn {
        a * b
    } else {
        round_f64(a as f64 * b as f64, mode)
    };
    if ftz { flush(r) } else { r }
}

/// `a * b + c` with one rounding.
pub fn fma(a: f32, b: f32, c: f32, mode: Rnd, ftz: bool) -> f32 {
    let (a, b, c) = if ftz { (flush(a), flush(b), flush(c)) } else { (a, b, c) };
    let r = if mode == Rnd::Rn {
        a.mul_add(b, c)
    } else {
        let p = a as f64 * b as f64; // exact
        let s = p + c as f64;
        if !s.is_finite() {
            round_f64(s, mode)
        } else {
            // TwoSum in f64: s + e is exactly p + c.
            let bb = s - p;
            let e = (p - (s - bb)) + (c as f64 - bb);
            let r = s as f32;
            if r.is_infinite() {
                directed_overflow(r, mode)
            } else {
                direct(r, (s - r as f64) + e, mode)
            }
        }
    };
    if ftz { flush(r) } else { r }
}

/// Clamps to [0, 1] (NaN becomes +0).
pub fn saturate(x: f32) -> f32 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

/// SASS FMNMX: NaN-aware min/max with -0 < +0.
pub fn min_max(a: f32, b: f32, max: bool, ftz: bool) -> f32 {
    let (a, b) = if ftz { (flush(a), flush(b)) } else { (a, b) };
    match (a.is_nan(), b.is_nan()) {
        (true, true) => f32::from_bits(0x7fff_ffff),
        (true, false) => b,
        (false, true) => a,
        _ => {
            let pick_a = if a == b {
                (a.is_sign_negative() && !max) || (a.is_sign_positive() && max)
            } else {
                (a < b) != max
            };
            if pick_a { a } else { b }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directed_rounding_of_sums() {
        let third = 1.0f32 / 3.0;
        assert_eq!(add(1.0, 1e-10, Rnd::Rp, false), next_up(1.0));
        assert_eq!(add(1.0, 1e-10, Rnd::Rz, false), 1.0);
        assert_eq!(add(1.0, -1e-10, Rnd::Rz, false), next_down(1.0));
        assert_eq!(add(1.0, -1e-10, Rnd::Rm, false), next_down(1.0));
        assert_eq!(mul(third, 3.0, Rnd::Rn, false), 1.0);
        // third is 0x3eaaaaab, a little above 1/3: the exact product is 1 + 2^-25.
        assert_eq!(mul(third, 3.0, Rnd::Rz, false), 1.0);
        assert_eq!(mul(third, 3.0, Rnd::Rp, false), next_up(1.0));
        assert_eq!(fma(2.0, 3.0, 1.0, Rnd::Rz, false), 7.0);
        assert_eq!(add(f32::MAX, f32::MAX, Rnd::Rz, false), f32::MAX);
        assert_eq!(flush(f32::from_bits(1)), 0.0);
    }

    #[test]
    fn min_max_handles_nan_and_signed_zero() {
        assert_eq!(min_max(f32::NAN, 1.0, false, false), 1.0);
        assert!(min_max(0.0, -0.0, false, false).is_sign_negative());
        assert!(min_max(-0.0, 0.0, true, false).is_sign_positive());
    }
}
