//! Evaluation of the pure MIR operations on bit patterns (a value of type `T` is its bits,
//! zero-extended to 64). The interpreter and constant folding both use [`eval_pure`].

use super::float::{convert, float_binary, float_ternary, float_unary, fmt_of, pack};
use crate::ir::{Aux, Cond, Opcode, Type};
use ptxc_softfloat as sf;
use smallvec::{SmallVec, smallvec};

/// Generic-address window of shared memory (as the back end's `c[0x0][0x18]`).
pub const SHARED_WINDOW: u64 = 0x7ff0_0000_0000;
/// Generic-address window of local memory (as the back end's `c[0x0][0x20]`).
pub const LOCAL_WINDOW: u64 = 0x7ff8_0000_0000;
/// Generic-address window of constant bank 3 (as the address the driver gives kernels at
/// `c[0x0][0x50]`, where `cvta.const` finds it).
pub const CONST_WINDOW: u64 = 0x7fe8_0000_0000;
/// Size of each window.
pub const WINDOW_SIZE: u64 = 1 << 32;

/// Results of one evaluation.
pub type Results = SmallVec<[u64; 2]>;

fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

fn mask(ty: Type) -> u64 {
    ty.mask()
}

/// Evaluates a pure instruction; `None` for opcodes that need the machine (memory, threads).
pub fn eval_pure(op: Opcode, ty: Type, aux: &Aux, args: &[u64]) -> Option<Results> {
    let w = ty.bits();
    let m = mask(ty);
    let a = args.first().copied().unwrap_or(0);
    let b = args.get(1).copied().unwrap_or(0);
    let c = args.get(2).copied().unwrap_or(0);
    let (sa, sb) = (sext(a, w), sext(b, w));
    let one = |v: u64| Some(smallvec![v & m]);
    use Opcode::*;
    match op {
        Const => match aux {
            Aux::Imm(bits) => one(*bits),
            _ => None,
        },
        Copy | Bitcast => one(a),
        Iadd => one(a.wrapping_add(b)),
        Isub => one(a.wrapping_sub(b)),
        Imul => one(a.wrapping_mul(b)),
        ImulHiS => one(((sa as i128 * sb as i128) >> w) as u64),
        ImulHiU => one(((a as u128 * b as u128) >> w) as u64),
        ImulWideS => Some(smallvec![(sa as i128 * sb as i128) as u64 & mask(wide(ty))]),
        ImulWideU => Some(smallvec![(a as u128 * b as u128) as u64 & mask(wide(ty))]),
        Imad => one(a.wrapping_mul(b).wrapping_add(c)),
        ImadHiS => one((((sa as i128 * sb as i128) >> w) as u64).wrapping_add(c)),
        ImadHiU => one((((a as u128 * b as u128) >> w) as u64).wrapping_add(c)),
        ImadWideS => Some(smallvec![
            ((sa as i128 * sb as i128) as u64).wrapping_add(c) & mask(wide(ty))
        ]),
        ImadWideU => Some(smallvec![
            ((a as u128 * b as u128) as u64).wrapping_add(c) & mask(wide(ty))
        ]),
        IaddSatS => one(saturate(sa as i128 + sb as i128, w)),
        IsubSatS => one(saturate(sa as i128 - sb as i128, w)),
        IaddCarry => {
            let sum = a as u128 + b as u128 + (c & 1) as u128;
            Some(smallvec![sum as u64 & m, (sum >> w) as u64 & 1])
        }
        Mul24LoS => one((sext(a, 24) * sext(b, 24)) as u64),
        Mul24LoU => one((a & 0xff_ffff) * (b & 0xff_ffff)),
        Mul24HiS => one(((sext(a, 24) * sext(b, 24)) >> 16) as u64),
        Mul24HiU => one(((a & 0xff_ffff) * (b & 0xff_ffff)) >> 16),
        DivS => one(if sb == 0 { m } else { sa.wrapping_div(sb) as u64 }),
        DivU => one(a.checked_div(b).unwrap_or(m)),
        RemS => one(if sb == 0 { a } else { sa.wrapping_rem(sb) as u64 }),
        RemU => one(if b == 0 { a } else { a % b }),
        Ineg => one(a.wrapping_neg()),
        And => one(a & b),
        Or => one(a | b),
        Xor => one(a ^ b),
        Not => one(!a),
        Shl => one(if b >= w as u64 { 0 } else { a << b }),
        ShrU => one(if b >= w as u64 { 0 } else { a >> b }),
        ShrS => one((sa >> b.min(w as u64 - 1)) as u64),
        MinS => one(sa.min(sb) as u64),
        MaxS => one(sa.max(sb) as u64),
        MinU => one(a.min(b)),
        MaxU => one(a.max(b)),
        BfeS | BfeU => one(bfe(a, b, c, w, op == BfeS)),
        Bfi => one(bfi(a, b, c, args.get(3).copied().unwrap_or(0), w)),
        BfindU => Some(smallvec![if a == 0 {
            0xffff_ffff
        } else {
            63 - a.leading_zeros() as u64
        }]),
        BfindS => {
            let x = if sa < 0 { !a & m } else { a };
            Some(smallvec![if x == 0 {
                0xffff_ffff
            } else {
                63 - x.leading_zeros() as u64
            }])
        }
        Brev => one(a.reverse_bits() >> (64 - w)),
        Clz => Some(smallvec![(a.leading_zeros() - (64 - w)) as u64]),
        Popc => Some(smallvec![a.count_ones() as u64]),
        Prmt => one(prmt(a, b, c, imm(aux))),
        Lop3 => one(lop3(a, b, c, imm(aux))),
        ShfLClamp | ShfLWrap | ShfRClamp | ShfRWrap => one(shf(op, a, b, c)),
        Dp4a => one(dp4a(a, b, c, imm(aux))),
        Dp2a => one(dp2a(a, b, c, imm(aux))),
        Icmp => Some(smallvec![icmp(cond(aux), a, b, w) as u64]),
        Select => Some(smallvec![if a & 1 != 0 { b } else { c }]),
        Fcmp => Some(smallvec![fcmp(cond(aux), a, b, ty) as u64]),
        Fadd | Fsub | Fmul | Fmin | Fmax | Fdiv | FdivApprox | FdivFull => one(float_binary(op, ty, aux, a, b)),
        Ffma => one(float_ternary(ty, aux, a, b, c)),
        Fneg | Fabs | Fflush | Frint | Frcp | FrcpApprox | Fsqrt | FsqrtApprox | FrsqrtApprox | Fex2Approx
        | Flg2Approx | FsinApprox | FcosApprox | FtanhApprox => one(float_unary(op, ty, aux, a)),
        Fcopysign => {
            let sign = 1u64 << (w - 1);
            one((a & sign) | (b & !sign))
        }
        Ftestp => Some(smallvec![testp(a, ty, imm(aux)) as u64]),
        FdivCheck => Some(smallvec![super::float::fdiv_check(a, b, ty) as u64]),
        Convert => match aux {
            Aux::Convert(info) => one(convert(info, ty, a)),
            _ => None,
        },
        Fpack => match aux {
            Aux::Convert(info) => one(pack(info, ty, a, b)),
            _ => None,
        },
        ToGeneric => one(window(aux).map_or(a, |base| base + (a & (WINDOW_SIZE - 1)))),
        FromGeneric => one(window(aux).map_or(a, |base| a.wrapping_sub(base))),
        IsSpace => {
            let inside = |base: u64| a >= base && a < base + WINDOW_SIZE;
            let r = match aux {
                Aux::Space(crate::ir::Space::Shared | crate::ir::Space::SharedCluster) => inside(SHARED_WINDOW),
                Aux::Space(crate::ir::Space::Local) => inside(LOCAL_WINDOW),
                Aux::Space(crate::ir::Space::Const) => inside(CONST_WINDOW),
                Aux::Space(crate::ir::Space::Global) => {
                    !inside(SHARED_WINDOW) && !inside(LOCAL_WINDOW) && !inside(CONST_WINDOW)
                }
                _ => false,
            };
            Some(smallvec![r as u64])
        }
        _ => None,
    }
}

fn wide(ty: Type) -> Type {
    crate::ir::typing::wide(ty)
}

fn imm(aux: &Aux) -> u64 {
    match aux {
        Aux::Imm(v) => *v,
        _ => 0,
    }
}

fn cond(aux: &Aux) -> Cond {
    match aux {
        Aux::Cond(c) => *c,
        _ => Cond::Eq,
    }
}

fn window(aux: &Aux) -> Option<u64> {
    match aux {
        Aux::Space(crate::ir::Space::Shared | crate::ir::Space::SharedCluster) => Some(SHARED_WINDOW),
        Aux::Space(crate::ir::Space::Local) => Some(LOCAL_WINDOW),
        Aux::Space(crate::ir::Space::Const) => Some(CONST_WINDOW),
        _ => None,
    }
}

fn saturate(v: i128, w: u32) -> u64 {
    let (lo, hi) = (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1);
    v.clamp(lo, hi) as u64
}

fn bfe(a: u64, pos: u64, len: u64, w: u32, signed: bool) -> u64 {
    let (pos, len, msb) = (pos & 0xff, len & 0xff, w as u64 - 1);
    if len == 0 {
        return 0;
    }
    let sbit = if signed { (a >> (pos + len - 1).min(msb)) & 1 } else { 0 };
    (0..w as u64).fold(0, |d, i| {
        let bit = if i < len && pos + i <= msb {
            (a >> (pos + i)) & 1
        } else {
            sbit
        };
        d | bit << i
    })
}

fn bfi(a: u64, b: u64, pos: u64, len: u64, w: u32) -> u64 {
    let (pos, len) = (pos & 0xff, len & 0xff);
    (0..len)
        .filter(|i| pos + i < w as u64)
        .fold(b, |f, i| (f & !(1 << (pos + i))) | ((a >> i) & 1) << (pos + i))
}

fn prmt(a: u64, b: u64, c: u64, mode: u64) -> u64 {
    let tmp = (b & 0xffff_ffff) << 32 | (a & 0xffff_ffff);
    let byte = |k: u64| (tmp >> (8 * (k & 7))) & 0xff;
    let s = c & 3;
    (0..4u64).fold(0, |d, i| {
        let v = match mode {
            1 => byte(s + i),
            2 => byte(s.wrapping_sub(i) & 7),
            3 => byte(s),
            4 => byte(i.max(s)),
            5 => byte(i.min(s)),
            6 => byte((s & 1) * 2 + (i & 1)),
            _ => {
                let sel = (c >> (4 * i)) & 0xf;
                let v = byte(sel & 7);
                if sel & 8 != 0 {
                    if v & 0x80 != 0 { 0xff } else { 0 }
                } else {
                    v
                }
            }
        };
        d | v << (8 * i)
    })
}

fn lop3(a: u64, b: u64, c: u64, lut: u64) -> u64 {
    (0..32).fold(0, |d, i| {
        let idx = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1);
        d | ((lut >> idx) & 1) << i
    })
}

fn shf(op: Opcode, lo: u64, hi: u64, n: u64) -> u64 {
    let clamp = matches!(op, Opcode::ShfLClamp | Opcode::ShfRClamp);
    let n = if clamp { n.min(32) } else { n & 31 };
    let both = (hi & 0xffff_ffff) << 32 | (lo & 0xffff_ffff);
    if matches!(op, Opcode::ShfLClamp | Opcode::ShfLWrap) {
        ((both << n) >> 32) & 0xffff_ffff
    } else {
        (both >> n) & 0xffff_ffff
    }
}

fn part(v: u64, k: u32, bits: u32, signed: bool) -> i64 {
    let x = (v >> (k * bits)) & ((1 << bits) - 1);
    if signed { sext(x, bits) } else { x as i64 }
}

fn dp4a(a: u64, b: u64, c: u64, signs: u64) -> u64 {
    let (sa, sb) = (signs & 1 != 0, signs & 2 != 0);
    let sum: i64 = (0..4).map(|k| part(a, k, 8, sa) * part(b, k, 8, sb)).sum();
    (c as i64).wrapping_add(sum) as u64
}

fn dp2a(a: u64, b: u64, c: u64, bits: u64) -> u64 {
    let (sa, sb, hi) = (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0);
    let first = if hi { 2 } else { 0 };
    let sum = part(a, 0, 16, sa) * part(b, first, 8, sb) + part(a, 1, 16, sa) * part(b, first + 1, 8, sb);
    (c as i64).wrapping_add(sum) as u64
}

fn icmp(c: Cond, a: u64, b: u64, w: u32) -> bool {
    let (sa, sb) = (sext(a, w), sext(b, w));
    match c {
        Cond::Eq => a == b,
        Cond::Ne => a != b,
        Cond::Lt => sa < sb,
        Cond::Le => sa <= sb,
        Cond::Gt => sa > sb,
        Cond::Ge => sa >= sb,
        Cond::Ult => a < b,
        Cond::Ule => a <= b,
        Cond::Ugt => a > b,
        Cond::Uge => a >= b,
        _ => false,
    }
}

/// A float comparison (ordered conditions are false on NaN, unordered ones true).
pub fn fcmp(c: Cond, a: u64, b: u64, ty: Type) -> bool {
    let f = fmt_of(ty);
    let (x, y) = (sf::to_f64(a, f), sf::to_f64(b, f));
    let unordered = x.is_nan() || y.is_nan();
    match c {
        Cond::Eq => x == y,
        Cond::Ne => !unordered && x != y,
        Cond::Lt => x < y,
        Cond::Le => x <= y,
        Cond::Gt => x > y,
        Cond::Ge => x >= y,
        Cond::Equ => unordered || x == y,
        Cond::Neu => x != y,
        Cond::Ltu => unordered || x < y,
        Cond::Leu => unordered || x <= y,
        Cond::Gtu => unordered || x > y,
        Cond::Geu => unordered || x >= y,
        Cond::Num => !unordered,
        Cond::Nan => unordered,
        _ => false,
    }
}

fn testp(a: u64, ty: Type, class: u64) -> bool {
    let f = fmt_of(ty);
    let (nan, inf, subnormal) = (f.is_nan(a), f.is_inf(a), f.is_subnormal(a));
    match class {
        0 => !nan && !inf,
        1 => inf,
        2 => !nan,
        3 => nan,
        // "As a special case, positive and negative zero are considered normal numbers."
        4 => !nan && !inf && !subnormal,
        _ => subnormal,
    }
}
