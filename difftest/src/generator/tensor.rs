//! Tensor-core matrix multiply-accumulates (`mma.sync.aligned`, PTX 6.5) on pool registers:
//! every Turing shape ptxc lowers to HMMA, IMMA and BMMA (m16n8k8 and m8n8k4 f16, m8n8k16
//! 8-bit, m8n8k32 4-bit and m8n8k128 1-bit integers, with and without `.satfinite`). Only
//! generated where the whole block is converged, like the other warp-wide operations. The
//! fragments are whatever the pool registers hold: NaNs, infinities and subnormals included.

use super::Gen;
use crate::program::{Class, Dsts, Operand, Reg, Src, Stmt};

/// The shape of one `mma` form: its name after `mma.sync.aligned.`, the registers and
/// class of D, A, B and C, and the first PTX ISA version that has it (ptxas refuses it in an
/// older module).
struct Form {
    name: &'static str,
    d: (usize, Class),
    a: usize,
    b: usize,
    c: (usize, Class),
    version: (u8, u8),
}

const fn form(name: &'static str, d: (usize, Class), a: usize, b: usize, c: (usize, Class)) -> Form {
    Form {
        name,
        d,
        a,
        b,
        c,
        version: (6, 5),
    }
}

const R: Class = Class::B32;
const F: Class = Class::F32;

/// The forms, the layouts and types drawn separately where the form allows them.
const FORMS: &[Form] = &[
    form("m16n8k8.row.col.f32.f16.f16.f32", (4, F), 2, 1, (4, F)),
    form("m16n8k8.row.col.f16.f16.f16.f16", (2, R), 2, 1, (2, R)),
    form("m8n8k4.LAYOUT.f16.f16.f16.f16", (4, R), 2, 2, (4, R)),
    form("m8n8k16.row.colSAT.s32.I8.I8.s32", (2, R), 1, 1, (2, R)),
    form("m8n8k32.row.colSAT.s32.I4.I4.s32", (2, R), 1, 1, (2, R)),
    Form {
        version: (7, 0),
        ..form("m8n8k128.row.col.s32.b1.b1.s32.xor.popc", (2, R), 1, 1, (2, R))
    },
];

/// One `mma.sync`, or `None` when the module's PTX version or the pools are too small for the
/// form drawn.
pub fn mma(g: &mut Gen) -> Option<Stmt> {
    let f = &FORMS[g.rng.index(FORMS.len())];
    if !g.version_at_least(f.version.0, f.version.1) {
        return None;
    }
    let d = distinct(g, f.d.1, f.d.0)?;
    let a = distinct(g, R, f.a)?;
    let b = distinct(g, R, f.b)?;
    let c = distinct(g, f.c.1, f.c.0)?;
    let name = spell(g, f.name);
    Some(Stmt::Inst(Gen::bare(
        format!("mma.sync.aligned.{name}"),
        d.into_iter().map(Operand::Reg).collect(),
        Dsts::Vector,
        vec![vector(a), vector(b), vector(c)],
    )))
}

/// The form's name with its layouts, integer types and saturation drawn.
fn spell(g: &mut Gen, name: &str) -> String {
    let layout = format!("{}.{}", g.rng.pick(&["row", "col"]), g.rng.pick(&["row", "col"]));
    let sat = if g.rng.chance(40) { ".satfinite" } else { "" };
    let mut s = name.replace("LAYOUT", &layout).replace("SAT", sat);
    for (slot, types) in [("I8", ["s8", "u8"]), ("I4", ["s4", "u4"])] {
        while s.contains(slot) {
            s = s.replacen(slot, g.rng.pick(&types), 1);
        }
    }
    s
}

/// `n` different registers of class `c`, if its pool has that many.
fn distinct(g: &mut Gen, c: Class, n: usize) -> Option<Vec<Reg>> {
    let size = g.p.pools[c.slot()] as usize;
    if size < n {
        return None;
    }
    let mut idx: Vec<u8> = (0..size as u8).collect();
    for i in 0..n {
        let j = i + g.rng.index(size - i);
        idx.swap(i, j);
    }
    Some(idx[..n].iter().map(|&index| Reg { class: c, index }).collect())
}

/// A vector source `{a, b, ...}`.
fn vector(regs: Vec<Reg>) -> Src {
    Src {
        op: Operand::Vector(regs),
        imm: None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Options, generate_with};
    use crate::program::print::to_ptx;

    fn mma_programs(revision: u32) -> usize {
        let opts = Options {
            avoid_open_issues: true,
            revision,
        };
        (1..=300)
            .filter(|&seed| to_ptx(&generate_with(seed, opts).program).contains("mma.sync.aligned."))
            .count()
    }

    #[test]
    fn revision_3_writes_mma_and_revision_2_does_not() {
        assert_eq!(mma_programs(2), 0);
        assert!(mma_programs(3) > 20, "{} of 300 programs", mma_programs(3));
    }

    #[test]
    fn mma_forms_respect_their_ptx_versions() {
        let opts = Options::default();
        for seed in 1..=600 {
            let ptx = to_ptx(&generate_with(seed, opts).program);
            if ptx.contains(".m8n8k128.") {
                assert!(!ptx.contains(".version 6.5"), "seed {seed}");
            }
            assert!(!ptx.contains("m16n8k8.row.col.f32.f16.f16.f16"), "seed {seed}");
        }
    }
}
