//! Strength reduction of multiplications, divisions and remainders by constants: `imul` by
//! 2^k becomes `shl`; unsigned `div`/`rem` by 2^k become `shr_u`/`and`; signed ones by 2^k
//! become the biased shift sequence; unsigned `div`/`rem` by other constants become a
//! multiply-high by a magic number (Granlund and Montgomery, "Division by Invariant
//! Integers using Multiplication", PLDI 1994: with `s = ceil(log2 d)` and
//! `m = ceil(2^(w+s) / d)`, `n / d = mulhi(n, m) >> s` when `m` fits in `w` bits, else
//! `(t + ((n - t) >> 1)) >> (s - 1)` with `t = mulhi(n, m - 2^w)`).

use crate::ir::{Aux, Function, Inst, InstData, Opcode, Type, Value};
use rustc_hash::FxHashMap as HashMap;

/// Runs the pass; returns whether anything changed.
pub fn run(func: &mut Function) -> bool {
    let mut subst: HashMap<Value, Value> = HashMap::default();
    for b in func.layout.clone() {
        let mut out: Vec<Inst> = Vec::new();
        for i in func.blocks[b].insts.clone() {
            match reduce(func, i) {
                Some((new, result)) => {
                    out.extend(new);
                    subst.insert(func.results[i][0], result);
                }
                None => out.push(i),
            }
        }
        func.blocks[b].insts = out;
    }
    let changed = !subst.is_empty();
    func.replace_uses(&subst);
    changed
}

/// Builds a straight-line sequence of new instructions.
struct Seq<'f> {
    func: &'f mut Function,
    insts: Vec<Inst>,
}

impl Seq<'_> {
    fn op(&mut self, op: Opcode, ty: Type, args: &[Value], aux: Aux) -> Value {
        let i = self.func.create_inst(InstData {
            op,
            ty,
            args: args.into(),
            aux,
        });
        self.insts.push(i);
        self.func.results[i][0]
    }
    fn k(&mut self, ty: Type, bits: u64) -> Value {
        self.op(Opcode::Const, ty, &[], Aux::Imm(bits & ty.mask()))
    }
    fn bin(&mut self, op: Opcode, ty: Type, a: Value, b: Value) -> Value {
        self.op(op, ty, &[a, b], Aux::None)
    }
    fn shift(&mut self, op: Opcode, ty: Type, a: Value, n: u32) -> Value {
        let n = self.k(Type::I32, n as u64);
        self.bin(op, ty, a, n)
    }
}

fn reduce(func: &mut Function, i: Inst) -> Option<(Vec<Inst>, Value)> {
    let d = func.insts[i].clone();
    if !d.ty.is_int() || d.args.len() != 2 {
        return None;
    }
    let (x, c) = (d.args[0], func.const_value(d.args[1]));
    let ty = d.ty;
    let w = ty.bits();
    let mut s = Seq {
        func,
        insts: Vec::new(),
    };
    let pow2 = |c: u64| (c.is_power_of_two()).then(|| c.trailing_zeros());
    if let Some(c) = c
        && c > 1
        && w + (64 - (c - 1).leading_zeros()) >= 128
    {
        return None;
    }
    let result = match (d.op, c) {
        (Opcode::Imul, _) => {
            let (x, c) = match (s.func.const_value(d.args[0]), c) {
                (_, Some(c)) => (x, c),
                (Some(c), None) => (d.args[1], c),
                _ => return None,
            };
            let k = pow2(c)?;
            s.shift(Opcode::Shl, ty, x, k)
        }
        (Opcode::DivU, Some(c)) if c > 1 => match pow2(c) {
            Some(k) => s.shift(Opcode::ShrU, ty, x, k),
            None => udiv_magic(&mut s, ty, x, c),
        },
        (Opcode::RemU, Some(c)) if c > 1 => match pow2(c) {
            Some(_) => {
                let m = s.k(ty, c - 1);
                s.bin(Opcode::And, ty, x, m)
            }
            None => {
                let q = udiv_magic(&mut s, ty, x, c);
                let kc = s.k(ty, c);
                let qc = s.bin(Opcode::Imul, ty, q, kc);
                s.bin(Opcode::Isub, ty, x, qc)
            }
        },
        (Opcode::DivS | Opcode::RemS, Some(c)) if c > 1 && c < (1 << (w - 1)) => {
            let k = pow2(c)?;
            let q = sdiv_pow2(&mut s, ty, x, k);
            if d.op == Opcode::DivS {
                q
            } else {
                let qk = s.shift(Opcode::Shl, ty, q, k);
                s.bin(Opcode::Isub, ty, x, qk)
            }
        }
        _ => return None,
    };
    Some((s.insts, result))
}

/// `x / 2^k` rounded toward zero for signed `x`.
fn sdiv_pow2(s: &mut Seq, ty: Type, x: Value, k: u32) -> Value {
    let w = ty.bits();
    let sign = s.shift(Opcode::ShrS, ty, x, w - 1);
    let bias = s.shift(Opcode::ShrU, ty, sign, w - k);
    let t = s.bin(Opcode::Iadd, ty, x, bias);
    s.shift(Opcode::ShrS, ty, t, k)
}

/// The magic multiplier and shift of unsigned division by `d` (not a power of two).
pub fn magic_unsigned(d: u64, w: u32) -> (u128, u32) {
    let s = 64 - (d - 1).leading_zeros();
    let m = (1u128 << (w + s)).div_ceil(d as u128);
    (m, s)
}

fn udiv_magic(s: &mut Seq, ty: Type, x: Value, d: u64) -> Value {
    let w = ty.bits();
    let (m, sh) = magic_unsigned(d, w);
    if m < 1u128 << w {
        let mk = s.k(ty, m as u64);
        let hi = s.bin(Opcode::ImulHiU, ty, x, mk);
        return s.shift(Opcode::ShrU, ty, hi, sh);
    }
    let mk = s.k(ty, (m - (1u128 << w)) as u64);
    let t = s.bin(Opcode::ImulHiU, ty, x, mk);
    let diff = s.bin(Opcode::Isub, ty, x, t);
    let half = s.shift(Opcode::ShrU, ty, diff, 1);
    let sum = s.bin(Opcode::Iadd, ty, t, half);
    s.shift(Opcode::ShrU, ty, sum, sh - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn udiv_by_magic(n: u64, d: u64, w: u32) -> u64 {
        let (m, s) = magic_unsigned(d, w);
        let mask = if w == 64 { u64::MAX } else { (1 << w) - 1 };
        let mulhi = |a: u64, b: u64| ((a as u128 * b as u128) >> w) as u64;
        if m < 1u128 << w {
            mulhi(n, m as u64) >> s
        } else {
            let t = mulhi(n, (m - (1u128 << w)) as u64);
            ((t + (((n.wrapping_sub(t)) & mask) >> 1)) & mask) >> (s - 1)
        }
    }

    #[test]
    fn magic_division_matches_division() {
        let mut x = 0x1234_5678_9abc_def0u64;
        for d in [3u64, 5, 6, 7, 10, 11, 13, 25, 100, 641, 1000, 0x7fff_ffff, 0xffff_fffe] {
            for _ in 0..2000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let n32 = x & 0xffff_ffff;
                assert_eq!(udiv_by_magic(n32, d, 32), n32 / d, "{n32} / {d}");
                assert_eq!(udiv_by_magic(x, d, 64), x / d, "{x} / {d}");
            }
            for n in [0u64, 1, d - 1, d, d + 1, 0xffff_ffff] {
                assert_eq!(udiv_by_magic(n, d, 32), n / d);
            }
        }
    }
}
