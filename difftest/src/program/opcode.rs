//! What an instruction's opcode text says about its data flow, in one place: its dot-separated
//! parts, whether it writes or reads the carry flag, the type of its result, and whether that
//! result is computed by floating-point arithmetic (which may return any NaN) or moves bits.

use super::Inst;

/// The dot-separated parts of an instruction's opcode (`cvt.rmi.s8.f16`: cvt, rmi, s8, f16).
pub fn parts(i: &Inst) -> Vec<&str> {
    i.op.split('.').collect()
}

/// The first part: the instruction family (`cvt`, `add`, `shfl`, ...).
pub fn family(i: &Inst) -> &str {
    i.op.split('.').next().unwrap_or("")
}

/// Whether the opcode of `i` has the part `part` (`sat`, `ftz`, `s16` ...).
pub fn has(i: &Inst, part: &str) -> bool {
    i.op.split('.').any(|t| t == part)
}

/// Whether `i` writes the carry flag (`.cc`).
pub fn writes_carry(i: &Inst) -> bool {
    has(i, "cc")
}

/// Whether `i` reads the carry flag (`addc`, `subc`, `madc`).
pub fn reads_carry(i: &Inst) -> bool {
    matches!(family(i), "addc" | "subc" | "madc")
}

/// Whether a type part names a float type.
fn is_float_type(t: &str) -> bool {
    matches!(t, "f16" | "f32" | "f64")
}

/// The type of the value `i` writes: the destination type of a `cvt` (`cvt.rn.f16.f32`: f16),
/// of `set` (`set.lt.f32.u16`: f32) and `slct` (`slct.f32.s32`: f32), the last part otherwise.
pub fn result_type<'a>(i: &'a Inst) -> &'a str {
    let p: Vec<&'a str> = i.op.split('.').collect();
    let types: Vec<&'a str> = p
        .iter()
        .copied()
        .filter(|t| {
            t.len() >= 2
                && matches!(t.as_bytes()[0], b'b' | b'u' | b's' | b'f')
                && t[1..].bytes().all(|b| b.is_ascii_digit())
        })
        .collect();
    match p[0] {
        "cvt" | "set" | "slct" if types.len() >= 2 => types[types.len() - 2],
        _ => types.last().copied().unwrap_or(""),
    }
}

/// Families that copy bits from their sources unchanged (a NaN keeps its bits).
const BIT_MOVES: &[&str] = &["mov", "selp", "slct", "shfl", "ld"];

/// Families with a float type part whose result is no float: `set` gives 1.0 or 0.0, `setp`
/// and `testp` a predicate.
const NOT_FLOAT_RESULTS: &[&str] = &["set", "setp", "testp"];

/// Whether `i` computes a float by arithmetic: its result is a float value that PTX lets be
/// any NaN (bit moves keep their source's bits, so they are not).
pub fn float_arith(i: &Inst) -> bool {
    let fam = family(i);
    is_float_type(result_type(i)) && !NOT_FLOAT_RESULTS.contains(&fam) && !BIT_MOVES.contains(&fam)
}

/// Whether `i` copies bits from its value sources (a NaN result is its source's NaN).
pub fn moves_bits(i: &Inst) -> bool {
    BIT_MOVES.contains(&family(i))
}

/// Whether `i` is a floating-point instruction with `.sat` (clamps to [0.0, 1.0]).
pub fn sat_float(i: &Inst) -> bool {
    has(i, "sat") && is_float_type(result_type(i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::Dsts;

    fn inst(op: &str) -> Inst {
        Inst {
            guard: None,
            op: op.into(),
            dsts: Vec::new(),
            dst_form: Dsts::Plain,
            srcs: Vec::new(),
        }
    }

    #[test]
    fn result_types() {
        assert_eq!(result_type(&inst("cvt.rn.f16.f32")), "f16");
        assert_eq!(result_type(&inst("cvt.rzi.s8.f32")), "s8");
        assert_eq!(result_type(&inst("set.lt.and.ftz.f32.u16")), "f32");
        assert_eq!(result_type(&inst("slct.ftz.s32.f32")), "s32");
        assert_eq!(result_type(&inst("add.rn.ftz.sat.f32")), "f32");
        assert_eq!(result_type(&inst("shfl.sync.bfly.b32")), "b32");
        assert_eq!(result_type(&inst("ld.global.nc.v2.f32")), "f32");
    }

    #[test]
    fn float_arithmetic_and_moves() {
        assert!(float_arith(&inst("div.rn.f64")));
        assert!(float_arith(&inst("cvt.rn.f16.f32")));
        assert!(!float_arith(&inst("cvt.rni.s32.f32")));
        assert!(!float_arith(&inst("set.lt.f32.s32")));
        assert!(!float_arith(&inst("testp.finite.f32")));
        assert!(!float_arith(&inst("selp.f32")));
        assert!(moves_bits(&inst("selp.f32")));
        assert!(!float_arith(&inst("add.s32")));
        assert!(sat_float(&inst("cvt.sat.f32.f16")));
        assert!(!sat_float(&inst("cvt.sat.u8.s32")));
        assert!(writes_carry(&inst("sub.cc.u32")) && reads_carry(&inst("subc.u32")));
    }
}
