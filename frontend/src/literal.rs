//! Numeric literals: PTX integers are 64-bit, signed unless `U`-suffixed or too large for
//! `i64`; `0fXXXXXXXX` is the bit pattern of an f32, `0dXXXXXXXXXXXXXXXX` of an f64, decimal
//! floats are f64.

/// Parses an integer literal (`123`, `0x1F`, `017`, `0b101`, optional `U`): its value and
/// whether it is unsigned. `Err` holds the message of an out-of-range or malformed literal.
pub fn parse_int(text: &str) -> Result<(u64, bool), String> {
    let (digits, suffix_u) = match text.strip_suffix('U') {
        Some(d) => (d, true),
        None => (text, false),
    };
    let (body, radix) = if let Some(h) = digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(b) = digits.strip_prefix("0b").or(digits.strip_prefix("0B")) {
        (b, 2)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (&digits[1..], 8)
    } else {
        (digits, 10)
    };
    let value = u64::from_str_radix(body, radix).map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow => {
            format!("integer literal `{text}` does not fit in 64 bits")
        }
        _ => format!("malformed integer literal `{text}`"),
    })?;
    Ok((value, suffix_u || value > i64::MAX as u64))
}

/// Parses a float literal: its value and whether it was an exact single-precision `0f` form.
pub fn parse_float(text: &str) -> Result<(f64, bool), String> {
    let malformed = || format!("malformed floating-point literal `{text}`");
    let bytes = text.as_bytes();
    if bytes.len() == 10 && bytes[0] == b'0' && matches!(bytes[1], b'f' | b'F') {
        let bits = u32::from_str_radix(&text[2..], 16).map_err(|_| malformed())?;
        return Ok((f32_bits_to_f64(bits), true));
    }
    if bytes.len() == 18 && bytes[0] == b'0' && matches!(bytes[1], b'd' | b'D') {
        let bits = u64::from_str_radix(&text[2..], 16).map_err(|_| malformed())?;
        return Ok((f64::from_bits(bits), false));
    }
    text.parse::<f64>().map(|v| (v, false)).map_err(|_| malformed())
}

/// The exact spelling of an f64 as a PTX `0d` literal.
pub fn f64_literal(value: f64) -> String {
    format!("0d{:016X}", value.to_bits())
}

/// The exact spelling of an f32 (given widened to f64) as a PTX `0f` literal.
pub fn f32_literal(value: f64) -> String {
    format!("0f{:08X}", f64_to_f32_bits(value))
}

/// Widens f32 bits to an f64 exactly, NaN payloads (and signalling NaNs) included.
pub fn f32_bits_to_f64(bits: u32) -> f64 {
    let value = f32::from_bits(bits);
    if !value.is_nan() {
        return value as f64;
    }
    let sign = ((bits >> 31) as u64) << 63;
    let payload = ((bits & 0x007F_FFFF) as u64) << 29;
    f64::from_bits(sign | 0x7FF0_0000_0000_0000 | payload)
}

/// The f32 bits of a value widened by [`f32_bits_to_f64`] (exact inverse for NaNs too).
pub fn f64_to_f32_bits(value: f64) -> u32 {
    if !value.is_nan() {
        return (value as f32).to_bits();
    }
    let bits = value.to_bits();
    let sign = ((bits >> 63) as u32) << 31;
    let payload = ((bits >> 29) & 0x007F_FFFF) as u32;
    sign | 0x7F80_0000 | payload.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(parse_int("0"), Ok((0, false)));
        assert_eq!(parse_int("42U"), Ok((42, true)));
        assert_eq!(parse_int("0x1f"), Ok((31, false)));
        assert_eq!(parse_int("017"), Ok((15, false)));
        assert_eq!(parse_int("0b101"), Ok((5, false)));
        assert_eq!(parse_int("0xffffffffffffffff"), Ok((u64::MAX, true)));
        assert!(parse_int("99999999999999999999").is_err());
        assert!(parse_int("09").is_err());
    }

    #[test]
    fn floats() {
        assert_eq!(parse_float("0f3F800000"), Ok((1.0, true)));
        assert_eq!(parse_float("0d3FF0000000000000"), Ok((1.0, false)));
        assert_eq!(parse_float("1.5"), Ok((1.5, false)));
        assert_eq!(parse_float("1e3"), Ok((1000.0, false)));
        assert_eq!(f32_literal(1.0), "0f3F800000");
        for bits in [0x7F80_0001u32, 0xFFC0_0000, 0x7FFF_FFFF, 0x0000_0001] {
            assert_eq!(f64_to_f32_bits(f32_bits_to_f64(bits)), bits);
        }
    }
}
