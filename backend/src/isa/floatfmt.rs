//! Float immediates printed the way nvdisasm prints them: C's `%.20g` of the value widened
//! to f64, with `+INF `, `-INF `, `+QNAN `, `-QNAN ` for the special values.

/// Formats an f32 bit pattern.
pub fn f32_text(bits: u32) -> String {
    f64_text(f32::from_bits(bits) as f64, bits >> 31 == 1)
}

/// Formats an f64 (`negative` gives the sign of NaNs).
pub fn f64_text(x: f64, negative: bool) -> String {
    if x.is_nan() {
        return if negative { "-QNAN ".into() } else { "+QNAN ".into() };
    }
    if x.is_infinite() {
        return if x < 0.0 { "-INF ".into() } else { "+INF ".into() };
    }
    percent_g(x, 20)
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
    }
}
