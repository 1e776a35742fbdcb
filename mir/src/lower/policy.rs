//! `createpolicy.fractional` (sm_80): the 64-bit L2 cache policy is a constant, the value
//! ptxas materialises for it (a move of the high word, the low word zero; probed with
//! ptxas 13.5 for every priority and many fractions, `docs/CACHE-POLICY.md`).

use super::LowerError;
use super::context::Lowerer;
use crate::ir::Type;
use ptxc_frontend::checked::{CheckedInst, CheckedOperand};

/// The primary eviction priorities and their code (bits 57..58 of the policy).
const PRIMARY: [(&str, u64); 4] = [
    ("L2::evict_unchanged", 0),
    ("L2::evict_first", 1),
    ("L2::evict_last", 2),
    ("L2::evict_normal", 3),
];

/// The policy of a fraction in (0, 1] with a `primary` code and a secondary `.evict_first`
/// (else `.evict_unchanged`): bit 60 set, the primary in bits 57..58, the secondary in bit
/// 56, `ceil(16 * fraction) - 1` in bits 52..55.
pub fn fractional_policy(primary: u64, secondary_first: bool, fraction: f64) -> u64 {
    let sixteenths = ((fraction * 16.0).ceil() as u64).clamp(1, 16) - 1;
    let high = 0x1000_0000 | primary << 25 | (secondary_first as u64) << 24 | sixteenths << 20;
    high << 32
}

impl Lowerer<'_> {
    /// `createpolicy.fractional.L2::primary[.L2::secondary].b64 d[, fraction]`.
    pub fn lower_createpolicy(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let fraction = match inst.operands.get(1) {
            None => 1.0,
            Some(CheckedOperand::Float { value, .. }) => *value,
            Some(CheckedOperand::Int(i)) => *i as f64,
            Some(_) => {
                return Err(LowerError::new(
                    "the fraction of `createpolicy` is a constant",
                    inst.span,
                ));
            }
        };
        if !(fraction > 0.0 && fraction <= 1.0) {
            return Err(LowerError::new(
                format!("the fraction of `createpolicy` is in (0, 1], not {fraction}"),
                inst.span,
            ));
        }
        let mut priorities = inst.mods.flags.iter().filter(|f| f.starts_with("L2::"));
        let code = |f: &String| PRIMARY.iter().find(|(n, _)| n == f).map(|&(_, c)| c);
        let primary = priorities.next().and_then(code).unwrap_or(0);
        let secondary_first = priorities.next().is_some_and(|f| f == "L2::evict_first");
        let policy = self.konst(Type::I64, fractional_policy(primary, secondary_first, fraction));
        let d = self.dst(inst, 0)?;
        self.write_reg(d, policy, false, inst.span)
    }
}

#[cfg(test)]
mod tests {
    use super::fractional_policy;

    /// The high words ptxas 13.5 gives (sm_80, `nvdisasm -c`).
    #[test]
    fn policies_equal_ptxas_s() {
        let cases = [
            (2, false, 1.0, 0x14f0_0000u64),
            (2, false, 0.5, 0x1470_0000),
            (3, false, 1.0, 0x16f0_0000),
            (1, false, 1.0, 0x12f0_0000),
            (0, false, 1.0, 0x10f0_0000),
            (2, false, 0.25, 0x1430_0000),
            (2, true, 0.75, 0x15b0_0000),
            (2, false, 0.3, 0x1440_0000),
            (2, false, 0.1, 0x1410_0000),
            (2, false, 0.0625, 0x1400_0000),
            (2, false, 0.99, 0x14f0_0000),
            (2, false, 0.03, 0x1400_0000),
            (2, false, 0.96875, 0x14f0_0000),
            (2, false, 0.9, 0x14e0_0000),
        ];
        for (primary, first, fraction, high) in cases {
            assert_eq!(fractional_policy(primary, first, fraction), high << 32, "{fraction}");
        }
    }
}
