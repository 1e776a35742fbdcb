//! `createpolicy` (sm_80): the 64-bit L2 cache policy. `.fractional` is a constant, the
//! value ptxas materialises for it (a move of the high word, the low word zero; probed with
//! ptxas 13.5 for every priority and many fractions). `.range` is computed at run time from
//! the address and the two sizes by the integer and float operations ptxas emits
//! (`docs/CACHE-POLICY.md`, where the function they compute is written out).

use super::LowerError;
use super::context::Lowerer;
use super::memory::Address;
use crate::ir::{Aux, Cond, ConvertInfo, FloatMode, Opcode, Rounding, Space, Type, Value};
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

/// The high word of every `.range` policy: bit 28 (a policy) and bit 27 (a range); also the
/// whole high word of a policy with `total_size` 0.
const RANGE_BASE: u64 = 0x1800_0000;

impl Lowerer<'_> {
    /// `createpolicy.fractional.L2::primary[.L2::secondary].b64 d[, fraction]` and
    /// `createpolicy.range[.global].L2::primary[.L2::secondary].b64 d, [a], primary, total`.
    pub fn lower_createpolicy(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        if inst.mods.has_flag("range") {
            return self.lower_createpolicy_range(inst);
        }
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
        let (primary, secondary_first) = priorities(inst);
        let policy = self.konst(Type::I64, fractional_policy(primary, secondary_first, fraction));
        let d = self.dst(inst, 0)?;
        self.write_reg(d, policy, false, inst.span)
    }

    /// `createpolicy.range`: with `e = max(ceil(lg2(float(total))) - 7, 12)` (the float
    /// operations as ptxas has them, `cvt.rn.f32.u32`, `lg2.approx.ftz.f32`,
    /// `cvt.rpi.u32.f32`, so `e` is the hardware's wherever its logarithm is), the high word
    /// is bits 28 and 27, the priorities as for `.fractional`, `e - 12` in bits 20..23, the
    /// low 7 bits of the first `2^e`-byte block `a >> e` in bits 12..18, and in bits 5..11
    /// the number of blocks `((a + (2^e - 1 + primary) mod 2^32) >> e) - (a >> e)`, at most
    /// 127; `total` 0 gives bits 28 and 27 alone. The low word is 0.
    fn lower_createpolicy_range(&mut self, inst: &CheckedInst) -> Result<(), LowerError> {
        let d = self.dst(inst, 0)?;
        let address = self.policy_address(inst)?;
        let primary = self.operand(self.arg(inst, 2)?, Type::I32, false, inst.span)?;
        let total = self.operand(self.arg(inst, 3)?, Type::I32, false, inst.span)?;
        let (code, secondary_first) = priorities(inst);
        let e = self.range_exponent_value(total);
        let i32c = |this: &mut Self, k: u64| this.konst(Type::I32, k);
        let i64c = |this: &mut Self, k: u64| this.konst(Type::I64, k);
        let bin = |this: &mut Self, op: Opcode, ty: Type, a: Value, b: Value| this.emit(op, ty, &[a, b], Aux::None);
        // The primary range in 2^e-byte blocks.
        let one = i32c(self, 1);
        let block = bin(self, Opcode::Shl, Type::I32, one, e);
        let all_ones = i32c(self, 0xffff_ffff);
        let mask = bin(self, Opcode::Iadd, Type::I32, block, all_ones);
        let bump = bin(self, Opcode::Iadd, Type::I32, mask, primary);
        let bump = self.widen(bump, Type::I64);
        let end = bin(self, Opcode::Iadd, Type::I64, address, bump);
        let start = bin(self, Opcode::ShrU, Type::I64, address, e);
        let end = bin(self, Opcode::ShrU, Type::I64, end, e);
        let count = bin(self, Opcode::Isub, Type::I64, end, start);
        let most = i64c(self, 0x7f);
        let count = bin(self, Opcode::MinU, Type::I64, count, most);
        let count = self.emit(
            Opcode::Convert,
            Type::I32,
            &[count],
            Aux::Convert(int_convert(Type::I64)),
        );
        let start = self.emit(
            Opcode::Convert,
            Type::I32,
            &[start],
            Aux::Convert(int_convert(Type::I64)),
        );
        // The fields of the high word.
        let fields = [(start, 0x7f, 12), (count, 0x7f, 5)];
        let base = RANGE_BASE | code << 25 | (secondary_first as u64) << 24;
        let twelve = i32c(self, 12);
        let e12 = bin(self, Opcode::Isub, Type::I32, e, twelve);
        let mut high = self.field(e12, 0xf, 20);
        for (v, m, at) in fields {
            let f = self.field(v, m, at);
            high = bin(self, Opcode::Or, Type::I32, high, f);
        }
        let base = i32c(self, base);
        let high = bin(self, Opcode::Or, Type::I32, high, base);
        // `total_size` 0 gives the bare range policy.
        let zero = i32c(self, 0);
        let empty = self.emit_typed(Opcode::Icmp, Type::I32, &[total, zero], Aux::Cond(Cond::Eq), Type::Pred);
        let bare = i32c(self, RANGE_BASE);
        let high = self.emit(Opcode::Select, Type::I32, &[empty, bare, high], Aux::None);
        let high = self.widen(high, Type::I64);
        let thirty_two = i32c(self, 32);
        let policy = bin(self, Opcode::Shl, Type::I64, high, thirty_two);
        self.write_reg(d, policy, false, inst.span)
    }

    /// `max(ceil(lg2(float(total))) - 7, 12)` (i32), as ptxas computes it.
    fn range_exponent_value(&mut self, total: Value) -> Value {
        let to_float = ConvertInfo {
            rnd: Some(Rounding::Rn),
            ..int_convert(Type::I32)
        };
        let f = self.emit(Opcode::Convert, Type::F32, &[total], Aux::Convert(to_float));
        let ftz = FloatMode {
            ftz: true,
            ..FloatMode::default()
        };
        let lg2 = self.emit(Opcode::Flg2Approx, Type::F32, &[f], Aux::Float(ftz));
        let to_int = ConvertInfo {
            from: Type::F32,
            rnd: Some(Rounding::Rp),
            ..int_convert(Type::F32)
        };
        let ceil = self.emit(Opcode::Convert, Type::I32, &[lg2], Aux::Convert(to_int));
        let seven = self.konst(Type::I32, (-7i32) as u32 as u64);
        let e = self.emit(Opcode::Iadd, Type::I32, &[ceil, seven], Aux::None);
        let twelve = self.konst(Type::I32, 12);
        self.emit(Opcode::MaxS, Type::I32, &[e, twelve], Aux::None)
    }

    /// `(v & mask) << at` (i32).
    fn field(&mut self, v: Value, mask: u64, at: u64) -> Value {
        let m = self.konst(Type::I32, mask);
        let masked = self.emit(Opcode::And, Type::I32, &[v, m], Aux::None);
        let sh = self.konst(Type::I32, at);
        self.emit(Opcode::Shl, Type::I32, &[masked, sh], Aux::None)
    }

    /// The 64-bit generic (or global) address of `createpolicy.range`'s `[a]`.
    fn policy_address(&mut self, inst: &CheckedInst) -> Result<Value, LowerError> {
        let Address::Value(base, space, offset) = self.address(inst, 1)? else {
            return Err(LowerError::new(
                "the address of `createpolicy.range` is in global memory, not a kernel parameter",
                inst.span,
            ));
        };
        if !matches!(space, Space::Global | Space::Generic) {
            return Err(LowerError::new(
                "the address of `createpolicy.range` is in global memory",
                inst.span,
            ));
        }
        let base = self.widen(base, Type::I64);
        if offset == 0 {
            return Ok(base);
        }
        let k = self.konst(Type::I64, offset as u64);
        Ok(self.emit(Opcode::Iadd, Type::I64, &[base, k], Aux::None))
    }
}

/// The primary priority's code and whether the secondary is `.L2::evict_first`.
fn priorities(inst: &CheckedInst) -> (u64, bool) {
    let mut priorities = inst.mods.flags.iter().filter(|f| f.starts_with("L2::"));
    let code = |f: &String| PRIMARY.iter().find(|(n, _)| n == f).map(|&(_, c)| c);
    let primary = priorities.next().and_then(code).unwrap_or(0);
    let secondary_first = priorities.next().is_some_and(|f| f == "L2::evict_first");
    (primary, secondary_first)
}

/// An unsigned conversion from `from` without rounding or saturation.
fn int_convert(from: Type) -> ConvertInfo {
    ConvertInfo {
        from,
        from_signed: false,
        to_signed: false,
        rnd: None,
        sat: false,
        ftz: false,
        relu: false,
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
