//! Bit operations: and/or/xor/not/cnot, shifts with amounts in and out of range, funnel
//! shifts, popc/clz/brev/bfind, bfe/bfi, prmt in every mode, lop3, bmsk/szext (PTX 7.6+),
//! dp4a/dp2a.

use super::Gen;
use super::types::IntTy;
use crate::program::{Class, Dsts, Imm, ImmTy, Inst, Operand, Reg, Src, Stmt};

/// One bit-operation statement.
pub fn any(g: &mut Gen) -> Stmt {
    match g.rng.weighted(&[16, 6, 16, 6, 12, 10, 6, 10, 6, 4, 4]) {
        0 => logic(g),
        1 => not(g),
        2 => shift(g),
        3 => funnel(g),
        4 => count(g),
        5 => bfe(g),
        6 => bfi(g),
        7 => prmt(g),
        8 => lop3(g),
        9 => mask_ext(g),
        _ => dot(g),
    }
}

fn bits_ty(g: &mut Gen) -> IntTy {
    IntTy::new(g.rng.pick(&[16, 32, 32, 64]), false)
}

/// A u32 amount or position: any register value or an immediate around the widths.
fn amount(g: &mut Gen) -> Src {
    if g.rng.chance(45) {
        g.small(ImmTy::U32, 0, 70)
    } else {
        g.src_reg(Class::B32, Some(ImmTy::U32))
    }
}

fn logic(g: &mut Gen) -> Stmt {
    let t = bits_ty(g);
    let op = g.rng.pick(&["and", "or", "xor"]);
    let d = g.reg(t.class());
    let srcs = vec![g.src(t.class(), t.imm()), g.src(t.class(), t.imm())];
    g.inst(format!("{op}.{}", t.bname()), d, srcs)
}

fn not(g: &mut Gen) -> Stmt {
    let t = bits_ty(g);
    let op = g.rng.pick(&["not", "cnot"]);
    let d = g.reg(t.class());
    let s = g.src_reg(t.class(), Some(t.imm()));
    g.inst(format!("{op}.{}", t.bname()), d, vec![s])
}

fn shift(g: &mut Gen) -> Stmt {
    let t = IntTy::random(g.rng);
    let name = if g.rng.chance(50) {
        format!("shl.{}", t.bname())
    } else {
        let ty = g.rng.pick(&["b", "u", "s"]);
        format!("shr.{ty}{}", t.bits)
    };
    let d = g.reg(t.class());
    let a = g.src(t.class(), t.imm());
    let s = amount(g);
    g.inst(name, d, vec![a, s])
}

fn funnel(g: &mut Gen) -> Stmt {
    let dir = g.rng.pick(&["l", "r"]);
    let mode = g.rng.pick(&["wrap", "clamp"]);
    let d = g.reg(Class::B32);
    let srcs = vec![g.src(Class::B32, ImmTy::U32), g.src(Class::B32, ImmTy::U32), amount(g)];
    g.inst(format!("shf.{dir}.{mode}.b32"), d, srcs)
}

fn count(g: &mut Gen) -> Stmt {
    let wide = g.rng.chance(35);
    let (c, b, imm) = if wide {
        (Class::B64, "64", ImmTy::U64)
    } else {
        (Class::B32, "32", ImmTy::U32)
    };
    let s = g.src_reg(c, Some(imm));
    match g.rng.below(4) {
        0 => {
            let d = g.reg(Class::B32);
            g.inst(format!("popc.b{b}"), d, vec![s])
        }
        1 => {
            let d = g.reg(Class::B32);
            g.inst(format!("clz.b{b}"), d, vec![s])
        }
        2 => {
            let d = g.reg(c);
            g.inst(format!("brev.b{b}"), d, vec![s])
        }
        _ => {
            let d = g.reg(Class::B32);
            let sign = g.rng.pick(&["u", "s"]);
            let sh = if g.rng.chance(40) { ".shiftamt" } else { "" };
            let s = Src {
                imm: ImmTy::of(&format!("{sign}{b}")),
                ..s
            };
            g.inst(format!("bfind{sh}.{sign}{b}"), d, vec![s])
        }
    }
}

/// Position and length operands of bfe/bfi. PTX restricts them to 0..255 and gives the
/// 32-bit forms `& 0xff` semantics, which ptxas implements (PRMT of the low bytes); its
/// 64-bit forms shift by the whole register instead, so 64-bit operands outside 0..255 are
/// left out: registers are masked to their low byte first (in `%xt2`/`%xt3`).
fn field(g: &mut Gen, wide: bool, group: &mut Vec<Inst>) -> (Src, Src) {
    let (mut pos, mut len) = (amount(g), amount(g));
    if wide {
        for (s, tmp) in [(&mut pos, "%xt2"), (&mut len, "%xt3")] {
            if matches!(s.op, Operand::Reg(_)) {
                let mask = Src {
                    op: Operand::Imm(Imm::new(ImmTy::U32, 0xff)),
                    imm: None,
                };
                let dst = vec![Operand::Fixed(tmp.into())];
                group.push(Gen::bare("and.b32".into(), dst, Dsts::Plain, vec![s.clone(), mask]));
                *s = Src {
                    op: Operand::Fixed(tmp.into()),
                    imm: None,
                };
            }
        }
    }
    (pos, len)
}

/// A statement of `group` followed by `last` (just `last` when the group is empty).
fn grouped(g: &mut Gen, mut group: Vec<Inst>, op: String, dst: Reg, srcs: Vec<Src>) -> Stmt {
    if group.is_empty() {
        return g.inst(op, dst, srcs);
    }
    group.push(Gen::bare(op, vec![Operand::Reg(dst)], Dsts::Plain, srcs));
    Stmt::Group(group)
}

fn bfe(g: &mut Gen) -> Stmt {
    let t = IntTy::new(g.rng.pick(&[32, 64]), g.rng.chance(50));
    let d = g.reg(t.class());
    let a = g.src(t.class(), t.imm());
    let mut group = Vec::new();
    let (pos, len) = field(g, t.bits == 64, &mut group);
    grouped(g, group, format!("bfe.{}", t.name()), d, vec![a, pos, len])
}

fn bfi(g: &mut Gen) -> Stmt {
    let t = IntTy::new(g.rng.pick(&[32, 64]), false);
    let d = g.reg(t.class());
    let (a, b) = (g.src(t.class(), t.imm()), g.src(t.class(), t.imm()));
    let mut group = Vec::new();
    let (pos, len) = field(g, t.bits == 64, &mut group);
    grouped(g, group, format!("bfi.{}", t.bname()), d, vec![a, b, pos, len])
}

fn prmt(g: &mut Gen) -> Stmt {
    let mode = g.rng.pick(&["", "", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"]);
    let d = g.reg(Class::B32);
    let sel = if g.rng.chance(50) {
        Src {
            op: Operand::Imm(Imm::new(ImmTy::U32, g.rng.below(0x1_0000))),
            imm: Some(ImmTy::U32),
        }
    } else {
        g.src_reg(Class::B32, Some(ImmTy::U32))
    };
    let srcs = vec![g.src(Class::B32, ImmTy::U32), g.src(Class::B32, ImmTy::U32), sel];
    g.inst(format!("prmt.b32{mode}"), d, srcs)
}

fn lop3(g: &mut Gen) -> Stmt {
    let d = g.reg(Class::B32);
    let srcs = vec![
        g.src(Class::B32, ImmTy::U32),
        g.src(Class::B32, ImmTy::U32),
        g.src(Class::B32, ImmTy::U32),
        g.small(ImmTy::U32, 0, 255),
    ];
    g.inst("lop3.b32".into(), d, srcs)
}

fn mask_ext(g: &mut Gen) -> Stmt {
    if !g.version_at_least(7, 6) {
        return bfe(g);
    }
    let mode = g.rng.pick(&["clamp", "wrap"]);
    let d = g.reg(Class::B32);
    if g.rng.chance(50) {
        let srcs = vec![amount(g), amount(g)];
        g.inst(format!("bmsk.{mode}.b32"), d, srcs)
    } else {
        let sign = g.rng.pick(&["u", "s"]);
        let srcs = vec![g.src(Class::B32, ImmTy::U32), amount(g)];
        g.inst(format!("szext.{mode}.{sign}32"), d, srcs)
    }
}

fn dot(g: &mut Gen) -> Stmt {
    let (ta, tb) = (g.rng.pick(&["u32", "s32"]), g.rng.pick(&["u32", "s32"]));
    let d = g.reg(Class::B32);
    let acc_ty = if ta == "s32" || tb == "s32" {
        ImmTy::S32
    } else {
        ImmTy::U32
    };
    let srcs = vec![
        g.src(Class::B32, ImmTy::U32),
        g.src(Class::B32, ImmTy::U32),
        g.src(Class::B32, acc_ty),
    ];
    if g.rng.chance(50) {
        g.inst(format!("dp4a.{ta}.{tb}"), d, srcs)
    } else {
        let half = g.rng.pick(&["lo", "hi"]);
        g.inst(format!("dp2a.{half}.{ta}.{tb}"), d, srcs)
    }
}
