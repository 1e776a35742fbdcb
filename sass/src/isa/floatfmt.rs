//! Float immediates printed the way nvdisasm prints them: the value widened to f64, as C's
//! `%.20g` below 1e9 in magnitude and `%.20e` from 1e9 on; `-0.0 `, `+INF `, `-INF `,
//! `+QNAN `, `-QNAN ` for the special values (with nvdisasm's trailing space).

/// Magnitude from which nvdisasm switches to `%.20e`.
const EXPONENT_FROM: f64 = 1e9;

/// Formats an f32 bit pattern.
pub fn f32_text(bits: u32) -> String {
    f64_text(f32::from_bits(bits) as f64, bits >> 31 == 1)
}

/// Formats an f16 bit pattern.
pub fn f16_text(bits: u16) -> String {
    f64_text(f16_to_f64(bits), bits >> 15 == 1)
}

/// Widens an IEEE half-precision value.
pub fn f16_to_f64(bits: u16) -> f64 {
    let sign = if bits >> 15 == 1 { -1.0 } else { 1.0 };
    let exp = (bits >> 10) & 0x1f;
    let frac = (bits & 0x3ff) as f64;
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        0x1f if frac == 0.0 => sign * f64::INFINITY,
        0x1f => f64::NAN,
        e => sign * (1.0 + frac / 1024.0) * 2f64.powi(e as i32 - 15),
    }
}

/// Formats an f64 (`negative` gives the sign of NaNs).
pub fn f64_text(x: f64, negative: bool) -> String {
    if x.is_nan() {
        return if negative { "-QNAN ".into() } else { "+QNAN ".into() };
    }
    if x.is_infinite() {
        return if x < 0.0 { "-INF ".into() } else { "+INF ".into() };
    }
    if x == 0.0 && x.is_sign_negative() {
        return "-0.0 ".into();
    }
    if x.abs() >= EXPONENT_FROM {
        return percent_e(x, 20);
    }
    percent_g(x, 20)
}

/// C's `%.{precision}e`.
pub fn percent_e(x: f64, precision: usize) -> String {
    let sci = format!("{:.*e}", precision, x);
    let (mantissa, exp) = sci.split_once('e').expect("exponent in {:e} output");
    let exp: i32 = exp.parse().expect("integer exponent");
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.abs())
}

/// C's `%.{precision}g`.
pub fn percent_g(x: f64, precision: usize) -> String {
    if x == 0.0 {
        return if x.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let sci = format!("{:.*e}", precision - 1, x);
    let (mantissa, exp) = sci.split_once('e').expect("exponent in {:e} output");
    let exp: i32 = exp.parse().expect("integer exponent");
    if exp < -4 || exp >= precision as i32 {
        let m = trim_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (precision as i32 - 1 - exp).max(0) as usize;
        trim_zeros(&format!("{x:.decimals$}")).to_string()
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_nvdisasm_samples() {
        assert_eq!(f32_text(0x3fb8aa3b), "1.4426950216293334961");
        assert_eq!(f32_text(0x3f317218), "0.69314718246459960938");
        assert_eq!(f32_text(0x00800000), "1.175494350822287508e-38");
        assert_eq!(f32_text(0x00100000), "1.469367938527859385e-39");
        assert_eq!(f32_text(0x3e22f983), "0.15915493667125701904");
        assert_eq!(f32_text(0xbf800000), "-1");
        assert_eq!(f32_text(0x40000000), "2");
        assert_eq!(f32_text(0x3f000000), "0.5");
        assert_eq!(f32_text(0x7f800000), "+INF ");
        assert_eq!(f32_text(0xffc00000), "-QNAN ");
        assert_eq!(f32_text(0x4e6e6b28), "1.00000000000000000000e+09");
        assert_eq!(f32_text(0x4cbebc20), "100000000");
        assert_eq!(f32_text(0x80000000), "-0.0 ");
        assert_eq!(f16_text(0x3800), "0.5");
    }
}
