//! Memory: shared-memory exchanges between threads behind barriers, atomics on global and
//! shared accumulators, loads from data-dependent places of the input (every width,
//! sign- and zero-extending, vectors), and aligned vector accesses of up to 16 bytes (wide
//! input loads, vector stores and loads of local and shared memory).

use super::Gen;
use crate::program::{Class, Dsts, Imm, ImmTy, Inst, Operand, Reg, Space, Src, Stmt, print};

/// An exchange of a register with another thread of the block.
pub fn exchange(g: &mut Gen) -> Stmt {
    let c = g
        .rng
        .pick(&[Class::B32, Class::B32, Class::B64, Class::F32, Class::F64, Class::B16]);
    let (src, dst) = (g.reg(c), g.reg(c));
    let offset = g.rng.range(1, g.p.block.max(2) as u64 - 1) as u32;
    Stmt::Exchange { src, dst, offset }
}

/// An atomic update of an accumulator.
pub fn atomic(g: &mut Gen) -> Stmt {
    let global = g.p.shared_acc.is_empty() || (!g.p.global_acc.is_empty() && g.rng.chance(50));
    let (space, accs) = if global {
        (Space::Global, &g.p.global_acc)
    } else {
        (Space::Shared, &g.p.shared_acc)
    };
    let slot = g.rng.index(accs.len());
    let a = accs[slot].clone();
    let imm = ImmTy::of(a.ty).unwrap_or(ImmTy::U32);
    let src = g.src(a.class(), imm);
    Stmt::Atomic {
        space,
        slot,
        src,
        ret: g.rng.chance(50),
    }
}

fn fixed(s: &str) -> Src {
    Src {
        op: Operand::Fixed(s.into()),
        imm: None,
    }
}

fn set(op: &str, dst: &str, srcs: Vec<Src>) -> Inst {
    Gen::bare(op.into(), vec![Operand::Fixed(dst.into())], Dsts::Plain, srcs)
}

/// A load from the input at an index taken from a register.
pub fn gather(g: &mut Gen) -> Stmt {
    let mask = g.p.input_words - 1;
    let index = g.src(Class::B32, ImmTy::U32);
    let mask = Src {
        op: Operand::Imm(Imm::new(ImmTy::U32, mask as u64)),
        imm: None,
    };
    let mut group = vec![
        set("and.b32", "%xt0", vec![index, mask]),
        set("mul.wide.u32", "%xd0", vec![fixed("%xt0"), fixed("8")]),
        set("add.s64", "%xd0", vec![fixed("%xd0"), fixed("%xin")]),
    ];
    let (ty, c, max_off) = g.rng.pick(&[
        ("u8", Class::B16, 7),
        ("s8", Class::B32, 7),
        ("u16", Class::B32, 6),
        ("s16", Class::B16, 6),
        ("u32", Class::B32, 4),
        ("s32", Class::B64, 4),
        ("b32", Class::B32, 4),
        ("f32", Class::F32, 4),
        ("u64", Class::B64, 0),
        ("f64", Class::F64, 0),
        ("v2.u32", Class::B32, 0),
        ("v2.f32", Class::F32, 0),
        ("v2.u16", Class::B16, 4),
    ]);
    let size = match ty {
        "u8" | "s8" => 1,
        "u16" | "s16" => 2,
        _ => 4,
    };
    let off = g.rng.below(max_off / size + 1) * size;
    let nc = if g.rng.chance(30) { ".nc" } else { "" };
    let addr = fixed(&format!("[%xd0+{off}]"));
    let (dsts, form) = if ty.starts_with("v2") {
        (vec![Operand::Reg(g.reg(c)), Operand::Reg(g.reg(c))], Dsts::Vector)
    } else {
        (vec![Operand::Reg(g.reg(c))], Dsts::Plain)
    };
    if form == Dsts::Vector && dsts[0] == dsts[1] {
        group.push(Gen::bare(
            format!("ld.global{nc}.{}", &ty[3..]),
            vec![dsts[0].clone()],
            Dsts::Plain,
            vec![addr],
        ));
    } else {
        group.push(Gen::bare(format!("ld.global{nc}.{ty}"), dsts, form, vec![addr]));
    }
    Stmt::Group(group)
}

/// A vector type for a register class and width: (PTX type, class).
fn vector_type(g: &mut Gen, lanes: usize) -> (&'static str, Class) {
    match lanes {
        4 => g.rng.pick(&[
            ("u32", Class::B32),
            ("b32", Class::B32),
            ("f32", Class::F32),
            ("u16", Class::B16),
        ]),
        _ => g.rng.pick(&[
            ("u32", Class::B32),
            ("f32", Class::F32),
            ("u64", Class::B64),
            ("b64", Class::B64),
            ("f64", Class::F64),
            ("b16", Class::B16),
        ]),
    }
}

/// `n` different registers of class `c`, if the pool has them.
fn distinct(g: &mut Gen, c: Class, n: usize) -> Option<Vec<Operand>> {
    let pool = g.p.pools[c.slot()] as usize;
    if pool < n {
        return None;
    }
    let mut all: Vec<u8> = (0..pool as u8).collect();
    let mut out = Vec::new();
    for _ in 0..n {
        let k = g.rng.index(all.len());
        out.push(Operand::Reg(Reg {
            class: c,
            index: all.remove(k),
        }));
    }
    Some(out)
}

/// Bytes of a register class in memory.
fn class_bytes(c: Class) -> u64 {
    match c {
        Class::B16 => 2,
        Class::B64 | Class::F64 => 8,
        _ => 4,
    }
}

/// A vector access of provably aligned memory: a wide load from the input (an index
/// register masked to a multiple of the access size), or a vector store and load of a
/// per-thread slot of local or shared memory (16-byte aligned), which gives back the
/// stored values in other registers.
pub fn vector(g: &mut Gen) -> Stmt {
    let lanes = if g.rng.chance(50) { 4 } else { 2 };
    let (ty, c) = vector_type(g, lanes);
    let Some(dsts) = distinct(g, c, lanes) else {
        return gather(g);
    };
    let bytes = class_bytes(c) * lanes as u64;
    let vty = format!("v{lanes}.{ty}");
    if g.rng.chance(40) {
        let words = bytes.div_ceil(8).max(1) as u32;
        let mask = (g.p.input_words - 1) & !(words - 1);
        let index = g.src(Class::B32, ImmTy::U32);
        let mask = Src {
            op: Operand::Imm(Imm::new(ImmTy::U32, mask as u64)),
            imm: None,
        };
        let nc = if g.rng.chance(30) { ".nc" } else { "" };
        return Stmt::Group(vec![
            set("and.b32", "%xt0", vec![index, mask]),
            set("mul.wide.u32", "%xd0", vec![fixed("%xt0"), fixed("8")]),
            set("add.s64", "%xd0", vec![fixed("%xd0"), fixed("%xin")]),
            Gen::bare(
                format!("ld.global{nc}.{vty}"),
                dsts,
                Dsts::Vector,
                vec![fixed("[%xd0]")],
            ),
        ]);
    }
    let srcs: Vec<Reg> = (0..lanes).map(|_| g.reg(c)).collect();
    let value = Src {
        op: Operand::Vector(srcs),
        imm: None,
    };
    let mut group = Vec::new();
    let local = format!("[{}]", print::LOCAL_SLOT);
    let addr = if g.rng.chance(50) {
        group.push(set("mov.u32", "%xt0", vec![fixed(print::VECTOR_SLOTS)]));
        group.push(set("shl.b32", "%xt1", vec![fixed("%xtid"), fixed("4")]));
        group.push(set("add.u32", "%xt0", vec![fixed("%xt0"), fixed("%xt1")]));
        ("shared", "[%xt0]")
    } else {
        ("local", &*local)
    };
    group.push(Gen::bare(
        format!("st.{}.{vty}", addr.0),
        Vec::new(),
        Dsts::Plain,
        vec![fixed(addr.1), value],
    ));
    group.push(Gen::bare(
        format!("ld.{}.{vty}", addr.0),
        dsts,
        Dsts::Vector,
        vec![fixed(addr.1)],
    ));
    Stmt::Group(group)
}
