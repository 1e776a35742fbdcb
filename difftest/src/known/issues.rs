//! What the comparison knows in advance, listed explicitly:
//!
//! - [`equivalent`]: accepted differences between the interpreter's semantics and the
//!   hardware's (as ptxas's code on the simulator shows it), each with its reason; two words
//!   that differ only so count as equal.
//! - [`ISSUES`]: open bugs found by differential testing, each with its component, a
//!   diagnosis, the regression case that reproduces it and a matcher. A mismatch an open
//!   issue matches is reported as that issue ("explained") instead of failing the campaign;
//!   the regression test checks that each case still shows its issue, so a fix is noticed.

use crate::compare::{Kind, Mismatch};
use crate::program::{Class, Dsts, Inst, Operand, Program, Space, Stmt};

/// Why two NaNs with different bits count as equal.
pub const NAN_BITS: &str = "PTX leaves unspecified which NaN a float operation returns; the \
    interpreter's soft float returns the canonical NaN where the compiled division, reciprocal and \
    square-root sequences return others (ptxas's slow paths give -qNaN 0xfff8000000000000), and \
    mov.b32/mov.b64 carry those bits into integer registers";

/// Why +0 and -0 count as equal in programs that saturate floats.
pub const SAT_ZERO_SIGN: &str = "`.sat` clamps to [0.0, 1.0], which -0.0 is inside: the \
    interpreter keeps -0 as PTX writes it; the hardware keeps it in some units (FADD/FMUL/FFMA.SAT) \
    and gives +0 in others (F2F.SAT, HADD2/HFMA2.SAT), and the two compilers pick different units \
    for the same conversion";

/// A reason two different output words count as equal, or None. Only used between the
/// interpreter and a compiled kernel: the two compilers' words must agree bit for bit.
pub fn equivalent(p: Option<&Program>, word: u32, a: u64, b: u64) -> Option<&'static str> {
    let nan32 = |x: u64| f32::from_bits(x as u32).is_nan();
    let nan64 = |x: u64| f64::from_bits(x).is_nan();
    let nan16 = |x: u64| x & 0x7c00 == 0x7c00 && x & 0x3ff != 0;
    let p = p?;
    let class = p.word_class(word)?;
    let same_nan = match class {
        Class::F32 | Class::B32 => a >> 32 == b >> 32 && nan32(a) && nan32(b),
        Class::F64 | Class::B64 => nan64(a) && nan64(b),
        Class::B16 => a >> 16 == b >> 16 && nan16(a) && nan16(b),
        Class::Pred => false,
    };
    if same_nan {
        return Some(NAN_BITS);
    }
    let sign = match class {
        Class::F32 => 1u64 << 31,
        Class::F64 => 1 << 63,
        Class::B16 => 1 << 15,
        _ => return None,
    };
    let zeros = a & !sign == 0 && b & !sign == 0 && a != b;
    (zeros && any_inst(p, &|i| i.op.contains(".sat.f") || i.op.ends_with(".sat.f16"))).then_some(SAT_ZERO_SIGN)
}

/// The component a bug is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Component {
    /// `frontend/`: parsing and checking.
    Frontend,
    /// `mir/`: lowering and the interpreter.
    Mir,
    /// `backend/`: selection, allocation, scheduling, encoding.
    Backend,
    /// `runtime-sim/`: the simulator.
    Simulator,
    /// NVIDIA's ptxas, the oracle.
    Ptxas,
}

/// An open bug.
#[derive(Debug)]
pub struct Issue {
    /// Short name.
    pub id: &'static str,
    /// Where the bug is.
    pub component: Component,
    /// What is wrong (first line: a summary).
    pub summary: &'static str,
    /// The regression case under `tests/difftest/` (its name without extension).
    pub case: &'static str,
    /// Kinds of mismatch it shows as.
    pub kinds: &'static [Kind],
    /// Texts one of which the mismatch's message contains.
    pub messages: &'static [&'static str],
    /// Instructions that run into it, for generators that avoid open issues.
    pub avoid: Option<fn(&Inst) -> bool>,
    /// For a value mismatch (no message to match): whether a program has what it takes.
    pub program: Option<fn(&Program) -> bool>,
}

impl Issue {
    /// Whether `m`, a mismatch of program `p` (if known), is this issue.
    pub fn matches(&self, m: &Mismatch, p: Option<&Program>) -> bool {
        self.kinds.contains(&m.kind)
            && (self.messages.iter().any(|t| !t.is_empty() && m.message.contains(t))
                || self.program.zip(p).is_some_and(|(f, p)| f(p)))
    }
}

/// The open issue `m`, a mismatch of program `p` (if known), is, if any.
pub fn issue(m: &Mismatch, p: Option<&Program>) -> Option<&'static Issue> {
    ISSUES.iter().find(|i| i.matches(m, p))
}

/// Whether some instruction of `p` satisfies `f`.
fn any_inst(p: &Program, f: &dyn Fn(&Inst) -> bool) -> bool {
    let mut found = false;
    crate::program::walk::stmts(&p.body, &mut |s| match s {
        Stmt::Inst(i) => found |= f(i),
        Stmt::Group(g) => found |= g.iter().any(f),
        _ => {}
    });
    found
}

/// The dot-separated parts of an instruction's opcode (`cvt.rmi.s8.f16`: cvt, rmi, s8, f16).
fn parts(i: &Inst) -> Vec<&str> {
    i.op.split('.').collect()
}

/// Whether the opcode of `i` has the part `part` (`sat`, `ftz`, `s16` ...).
fn has(i: &Inst, part: &str) -> bool {
    i.op.split('.').any(|t| t == part)
}

/// The 8- and 16-bit integer types.
const NARROW_INTS: [&str; 4] = ["s8", "u8", "s16", "u16"];

/// Whether the opcode of `i` names an 8- or 16-bit integer type.
fn has_narrow_int(i: &Inst) -> bool {
    NARROW_INTS.iter().any(|t| has(i, t))
}

/// Whether `i` is a `cvt`.
fn is_cvt(i: &Inst) -> bool {
    i.op.starts_with("cvt.")
}

/// Whether `i` is a saturating `cvt`.
fn is_sat_cvt(i: &Inst) -> bool {
    is_cvt(i) && has(i, "sat")
}

/// The first open issue statement `s` of program `p` runs into, if any (by the issues'
/// `avoid` predicates; an atomic is seen as the `atom`/`red` instruction it prints as).
pub fn avoided(p: &Program, s: &Stmt) -> Option<&'static Issue> {
    let insts: Vec<Inst> = match s {
        Stmt::Inst(i) => vec![i.clone()],
        Stmt::Group(g) => g.clone(),
        Stmt::Atomic { space, slot, src, ret } => {
            let (sp, accs) = match space {
                Space::Global => ("global", &p.global_acc),
                Space::Shared => ("shared", &p.shared_acc),
            };
            let a = accs.get(*slot)?;
            let op = format!("{}.{sp}.{}.{}", if *ret { "atom" } else { "red" }, a.op.name(), a.ty);
            vec![Inst {
                guard: None,
                op,
                dsts: Vec::new(),
                dst_form: Dsts::Plain,
                srcs: vec![src.clone()],
            }]
        }
        _ => Vec::new(),
    };
    ISSUES
        .iter()
        .find(|issue| issue.avoid.is_some_and(|f| insts.iter().any(f)))
}

/// The open issues.
pub static ISSUES: &[Issue] = &[
    Issue {
        id: "ptxas-guarded-set-f32",
        component: Component::Ptxas,
        summary: "ptxas 13.5 ignores the guard of set with an f32 result\n\
                  `@p set.CMP.f32.T d, a, b` becomes a guarded ISETP/FSETP and SEL, then an unguarded IABS \
                  and I2F of d: when the guard is false, d becomes the float of |its old bits as an \
                  integer|. The generator never guards such a set.",
        case: "ptxas_guarded_set_f32",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: None,
    },
    Issue {
        id: "ptxas-guarded-set-s16",
        component: Component::Ptxas,
        summary: "ptxas 13.5 ignores the guard of set with 16-bit operands\n\
                  `@p set.CMP.u32.s16 d, a, b` becomes a guarded ISETP and SEL, then an unguarded \
                  PRMT d, d, 0x9910 (sign extension of the low half): when the guard is false, the upper \
                  half of d is overwritten. The generator never guards such a set.",
        case: "ptxas_guarded_set_s16",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: None,
    },
    Issue {
        id: "ptxas-guarded-testp",
        component: Component::Ptxas,
        summary: "ptxas 13.5 drops the guard of testp\n\
                  `@!p testp.notanumber.f64 p, a` always overwrites p (with a constant operand it folds \
                  the test and stores the constant). The generator never guards testp.",
        case: "ptxas_guarded_testp",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: None,
    },
    Issue {
        id: "ptxas-crash",
        component: Component::Ptxas,
        summary: "ptxas 13.5 crashes (SIGSEGV) on some programs with reductions in unreachable blocks\n\
                  For example `@%p0 bra L2; @!%p0 bra L4; red.global.min.u32 [a], 0; L4: L2: \
                  red.global.max.u64 [a+8], 0;` (tests/difftest/ptxas_crash.ptx). The interpreter and \
                  ptxc are still compared.",
        case: "ptxas_crash",
        kinds: &[Kind::OracleCrash],
        messages: &["ptxas crashed"],
        avoid: None,
        program: None,
    },
    Issue {
        id: "ptxas-f16-fold",
        component: Component::Ptxas,
        summary: "ptxas 13.5 folds cvt.rni.u8.f16 of a cnot.b16 result to the integer bits\n\
                  `cnot.b16 h1, h0;` then, in a loop that runs once, `cvt.rni.u8.f16 r0, h1;`: ptxas \
                  stores h1's bits (0 or 1) instead of rounding the f16 value (0 or 2^-24, both 0). \
                  A value mismatch (M = C != P): never matched automatically.",
        case: "ptxas_f16_fold",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: Some(|i| i.op == "cnot.b16"),
        program: Some(|p| {
            any_inst(p, &|i| i.op == "cnot.b16") && any_inst(p, &|i| i.op.starts_with("cvt.") && i.op.ends_with(".f16"))
        }),
    },
    Issue {
        id: "ptxas-shift-narrow",
        component: Component::Ptxas,
        summary: "ptxas 13.5 narrows a float-to-u32 conversion that feeds a 16-bit shift amount to F2I.S16\n\
                  `cvt.rni.ftz.u32.f32 r0, f0; shr.s16 h0, 1, r0;` becomes F2I.S16 and SHF: for f0 = -32768.0 \
                  the u32 conversion saturates to 0 (h0 = 1) but F2I.S16 gives -32768, a shift past the width \
                  (h0 = 0). A value mismatch (M = C != P).",
        case: "ptxas_shift_narrow",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            let shift16 = |i: &Inst| (i.op.starts_with("shr.") || i.op.starts_with("shl.")) && i.op.ends_with("16");
            let to_int = |i: &Inst| i.op.starts_with("cvt.r") && i.op.contains("i.") && i.op.contains(".f");
            any_inst(p, &shift16) && any_inst(p, &to_int)
        }),
    },
    Issue {
        id: "ptxas-abs-unsigned",
        component: Component::Ptxas,
        summary: "ptxas 13.5 converts an abs.s32/abs.s16 result to float as signed where the PTX converts it as unsigned\n\
                  `abs.s32 r1, r0; cvt.rm.f32.u32 f0, r1;` becomes `IABS R9, R3; I2F.RM R7, R9` (signed I2F), and \
                  `abs.s16 h1, h0; cvt.rz.f32.u16 f0, h1;` becomes `IABS; PRMT; I2F.S16.RZ`: ptxas assumes |x| >= 0, \
                  but abs(INT_MIN) = INT_MIN, which as u32 is 2^31 (0x4f000000) and ptxas gives -2^31 (0xcf000000). \
                  Seeds 704806, 706678. A value mismatch (M = C != P).",
        case: "ptxas_abs_unsigned",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            let to_float = |i: &Inst| {
                i.op.starts_with("cvt.") && (i.op.ends_with(".u32") || i.op.ends_with(".u16")) && i.op.contains(".f")
            };
            any_inst(p, &|i| i.op == "abs.s32" || i.op == "abs.s16") && any_inst(p, &to_float)
        }),
    },
    Issue {
        id: "ptxas-slct-abs",
        component: Component::Ptxas,
        summary: "ptxas 13.5 folds slct.s32.f32 of an abs.f32 result to the first operand, ignoring NaN\n\
                  `abs.f32 f0, f0; slct.s32.f32 r0, 1, 0, f0;` becomes `MOV R7, 0x1`: ptxas assumes |f| >= 0, \
                  but for f = NaN the comparison c >= 0 is false and slct selects b (0). \
                  Seeds 704488, 709521. A value mismatch (M = C != P).",
        case: "ptxas_slct_abs",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            any_inst(p, &|i| i.op == "abs.f32") && any_inst(p, &|i| i.op.starts_with("slct.") && i.op.ends_with(".f32"))
        }),
    },
    Issue {
        id: "ptxas-sat-fold",
        component: Component::Ptxas,
        summary: "ptxas 13.5 folds a wrapping add of a constant into a following sub.sat.s32 of a constant\n\
                  `add.u32 r2, r0, 0x40; sub.sat.s32 r1, r2, 1;` becomes `IADD3 R0, R3, 0x3f, RZ; \
                  PLOP3.LUT P0, PT, R3.SIGN, c[0x2][0x0].SIGN, R0.SIGN, 0x2, 0x0; ...; SEL R7, R0, 0x7fffffff, !P0` \
                  (c[0x2][0x0] = 0x3f): a saturating r0 + 0x3f, but the add.u32 wraps first: r0 = 0x7ffffffe gives \
                  r2 = 0x8000003e and r1 = 0x8000003d, where ptxas gives 0x7fffffff. Seed 707800; seed 2509861 \
                  is the same with `.cc` (`sub.cc.s32 r1, r0, 1; add.sat.s32 r1, 1, r1;` stores r0). \
                  A value mismatch (M = C != P).",
        case: "ptxas_sat_fold",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            let imm = |i: &Inst| i.srcs.iter().any(|s| matches!(s.op, crate::program::Operand::Imm(_)));
            let wrap = |i: &Inst| {
                let op = i.op.replace(".cc", "");
                matches!(op.as_str(), "add.u32" | "add.s32" | "sub.u32" | "sub.s32") && imm(i)
            };
            any_inst(p, &wrap) && any_inst(p, &|i| (i.op == "sub.sat.s32" || i.op == "add.sat.s32") && imm(i))
        }),
    },
    Issue {
        id: "ptxas-sat-f16",
        component: Component::Ptxas,
        summary: "ptxas 13.5 drops the .sat of cvt.sat.f32.f16 / cvt.sat.f64.f16 whose source is a cvt.sat.s16/u16 result\n\
                  `cvt.sat.s16.s32 h0, r0; cvt.sat.f32.f16 f0, h0;` becomes `I2I.S16.S32.SAT R7, R3; \
                  HADD2.F32 R9, R7.H0_H0, -RZ.H0_H0` (alone, cvt.sat.f32.f16 is HADD2.F32.SAT), and \
                  cvt.sat.f64.f16 becomes a bare `F2F.F64.F16`: the integer saturation says nothing about the f16 \
                  value, so 0x7fff (NaN) gives NaN and 0x8000 (-0) gives -0 where the PTX clamps both to 0. \
                  Seeds 707446, 707501, 709159. A value mismatch (M = C != P).",
        case: "ptxas_sat_f16",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        // Any rounding or .ftz modifiers between (seed 905082: `cvt.sat.u16.u64` then
        // `cvt.ftz.sat.f32.f16`).
        program: Some(|p| {
            let sat_cvt = |i: &Inst, dst: &[&str], src: &[&str]| {
                let t = parts(i);
                is_sat_cvt(i)
                    && t.len() >= 3
                    && dst.contains(&t[t.len() - 2])
                    && (src.is_empty() || src.contains(&t[t.len() - 1]))
            };
            any_inst(p, &|i| sat_cvt(i, &["s16", "u16"], &[]))
                && any_inst(p, &|i| sat_cvt(i, &["f32", "f64"], &["f16"]))
        }),
    },
    Issue {
        id: "ptxas-or-pred-self",
        component: Component::Ptxas,
        summary: "ptxas 13.5 loses a conditional write guarded by `or.pred p1, p0, p0` once p0 is redefined\n\
                  `or.pred %p1, %p0, %p0; setp.leu.f64 %p0, 0d0, 0d0; @%p1 bra L; add.rz.ftz.f32 %f0, 0f0, 0f0; L:` \
                  stores the loaded f0 unconditionally (`LDG R7, [R2]; ...; STG [R4], R7`, no FADD at all); \
                  with `mov.pred %p1, %p0` instead ptxas emits `@!P0 FADD.FTZ.RZ R7, RZ, RZ`. Seed 708852. \
                  A value mismatch (M = C != P).",
        case: "ptxas_or_pred_self",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            any_inst(p, &|i| {
                (i.op == "or.pred" || i.op == "and.pred") && i.srcs.len() == 2 && i.srcs[0] == i.srcs[1]
            })
        }),
    },
    Issue {
        id: "ptxas-shared-cas-loop",
        component: Component::Ptxas,
        summary: "ptxas 13.5 counts a loop around a CAS-emulated 64-bit shared atomic per warp, not per thread\n\
                  In `L: red.shared.min.u64 [xacc], rd0; fma.rm.f32 f1, ...; sub.u32 c, c, 1; ...bra L` \
                  (4 trips) ptxas keeps the trip count in a uniform register and merges the CAS retry \
                  loop into the outer one: `ATOMS.CAST.SPIN.64 R8, [RZ], R8, R10; ISETP.EQ.U32.AND P0, PT, \
                  R8, 0x1, PT; ...; @!P0 BRA .L_x_3` (retry via BSYNC B1; BRA .L_x_5 back to the LDS) \
                  skips `UIADD3 UR4, UR4, -0x1, URZ` and the body, which the threads whose CAS succeeded \
                  run once for the whole warp. Threads whose CAS failed (all but one when they store the \
                  same value) run the body one time fewer. Also seed 700921 (red.shared.max.u64 with \
                  mad.hi.sat.s32). When the count reaches 0 before the retrying threads pass, they \
                  decrement it past 0 and loop about 2^32 times: the simulator's instruction limit \
                  (seeds 703332, 703604, 706681: `UMOV UR4, URZ` then `ISETP.NE.U32.AND P0, PT, RZ, UR4, \
                  PT; UIADD3 UR4, UR4, -0x1, URZ; @!P0 BREAK B1`). A value mismatch (M = C != P) or a \
                  fault of ptxas's cubin.",
        case: "ptxas_shared_cas_loop",
        kinds: &[Kind::OracleDiffers, Kind::PtxasFault],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            let mut found = false;
            crate::program::walk::stmts(&p.body, &mut |s| {
                if let Stmt::Loop { body, .. } = s {
                    crate::program::walk::stmts(body, &mut |t| {
                        if let Stmt::Atomic {
                            space: Space::Shared,
                            slot,
                            ..
                        } = t
                        {
                            found |= p.shared_acc.get(*slot).is_some_and(|a| a.ty.ends_with("64"));
                        }
                    });
                }
            });
            found
        }),
    },
    Issue {
        id: "ptxas-div-f64-clobber",
        component: Component::Ptxas,
        summary: "ptxas 13.5 keeps a value live in a register its f64 division subroutine overwrites\n\
                  `cvt.rzi.s8.f32 h2, f1; @!p2 bra L; div.rz.f64 fd0, 0, 0; cvt.u32.s8 r1, h2; L:` becomes \
                  `F2I.S8.TRUNC.NTZ R24, R0; ... CALL.REL.NOINC $__internal_0_$__cuda_sm20_div_rz_f64_v2; \
                  F2I.S8.TRUNC.NTZ R0, R0; PRMT R24, R0, 0x7610, R24; IMAD.MOV.U32 R41, RZ, RZ, R24`, but the \
                  subroutine runs `IADD3 R24, R39, -0x1, RZ`: r1's upper half is the subroutine's (0xffff0000 \
                  instead of 0). In the unshrunk seed 701670 f64 registers were overwritten too. A value \
                  mismatch (M = C != P).",
        case: "ptxas_div_f64_clobber",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            let div64 = |i: &Inst| i.op.starts_with("div.") && i.op.ends_with(".f64");
            let from8 = |i: &Inst| i.op.starts_with("cvt.") && (i.op.ends_with(".s8") || i.op.ends_with(".u8"));
            any_inst(p, &div64) && any_inst(p, &from8)
        }),
    },
    Issue {
        id: "ptxas-neg16-sat",
        component: Component::Ptxas,
        summary: "ptxas 13.5 negates a 16-bit value in 32 bits before a saturating narrowing\n\
                  `neg.s16 h0, h0; cvt.sat.s8.s16 r0, h0;` becomes `PRMT R0, R2, 0x9910; IADD3 R0, RZ, -R0, RZ` \
                  and clamps with SEL: for h0 = -32768 the PTX negation wraps to -32768 (saturated: -128), \
                  ptxas's gives 32768 (saturated: 127). Seed 909796. A value mismatch (M = C != P).",
        case: "ptxas_neg16_sat",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            let narrowing = |i: &Inst| is_sat_cvt(i) && i.op.ends_with("16");
            any_inst(p, &|i| i.op == "neg.s16") && any_inst(p, &narrowing)
        }),
    },
    Issue {
        id: "ptxas-mulhi-subcc-zero",
        component: Component::Ptxas,
        summary: "ptxas 13.5 folds `sub.cc` of a `mul.hi.u32` into IMAD.HI adding the negated subtrahend\n\
                  `mul.hi.u32 r0, K, r0; sub.cc.u32 r1, r0, r3; subc.u32 r2, 0, 0;` becomes \
                  `IADD3 R4, RZ, -R9; IMAD.HI.U32 R7, P0, R7, K, R4 (addend (-r3) << 32)`: adding -r3 \
                  carries exactly when subtracting r3 does not borrow, except for r3 = 0, where P0 = 0 \
                  and the borrow-in of subc is wrong. Seed 905419. A value mismatch (M = C != P).",
        case: "ptxas_mulhi_subcc_zero",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            let borrow_out = |i: &Inst| i.op.starts_with("sub.cc") || i.op.starts_with("subc.cc");
            any_inst(p, &|i| i.op.starts_with("mul.hi") || i.op.starts_with("mad.hi")) && any_inst(p, &borrow_out)
        }),
    },
    Issue {
        id: "ptxas-sgxt-cbank",
        component: Component::Ptxas,
        summary: "ptxas 13.5 encodes a constant-bank width of SGXT with the byte offset in the bank field\n\
                  `mov.u32 r1, %ntid.z; szext.clamp.u32 r0, 1, r1;` becomes `SGXT.U32 R5, R5, c[0x2][0x0]` \
                  (raw 0x0080000005057a1a) where %ntid.z is c[0x0][0x8] (the same kernel's `IMAD.MOV.U32 R7, RZ, \
                  RZ, c[0x0][0x8]` for r1): %ntid.y gives c[0x1][0x0], %nctaid.x c[0x3][0x0], a parameter at \
                  0x16c c[0x1b][0xc]. Those banks are not in the cubin, so the width read is not %ntid.z. \
                  Seed 907711. A value mismatch (M = C != P).",
        case: "ptxas_sgxt_cbank",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            let constant_bank_sreg = |i: &Inst| {
                i.srcs.iter().any(|s| {
                    matches!(&s.op, Operand::Fixed(r) if r.starts_with("%n") && !r.ends_with(".x") || r == "%nctaid.x")
                })
            };
            any_inst(p, &|i| i.op.starts_with("szext")) && any_inst(p, &constant_bank_sreg)
        }),
    },
    Issue {
        id: "ptxas-cvt-f16-narrow-guarded",
        component: Component::Ptxas,
        summary: "ptxas 13.5 writes only the low 16 bits of a guarded narrow cvt from f16 into a 32-bit register\n\
                  `@!p0 bra L; @p0 cvt.rmi.s8.f16 r1, h0;` becomes `F2I.S8.F16.FLOOR.NTZ R7, R7; PRMT R11, R7, \
                  0x7610, R11`, keeping r1's old upper half where PTX sign-extends (zero-extends for u8/u16) the \
                  result to the register: -128 gives 0x0000ff80 instead of 0xffffff80. The same with .u8 and .s16 \
                  destinations; unguarded, or from an f32 source, the F2I writes R11 directly. Seed 1107459. A value \
                  mismatch (M = C != P).",
        case: "ptxas_cvt_f16_narrow_guarded",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            let narrow_from_f16 =
                |i: &Inst| is_cvt(i) && i.guard.is_some() && i.op.ends_with(".f16") && has_narrow_int(i);
            any_inst(p, &narrow_from_f16)
        }),
    },
    Issue {
        id: "ptxas-setp-ftz-branch",
        component: Component::Ptxas,
        summary: "ptxas 13.5 branches on a setp.*.and.ftz.f32 recomputed without .ftz\n\
                  `setp.gtu.and.ftz.f32 p1, 0f00000001, f0, p0; @p1 bra L;` becomes `FSETP.LTU.AND P3, PT, R11, \
                  1.4e-45, PT` (no .FTZ) for the branch `@P0 BRA P3` next to `FSETP.LTU.FTZ.AND P2, PT, R11, \
                  1.4e-45, P0` for the value of p1: for f0 = 0 the stored p1 is false (the denormal flushes to 0) \
                  but the branch is taken. Seed 1102299. A value mismatch (M = C != P).",
        case: "ptxas_setp_ftz_branch",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            let combined_ftz =
                |i: &Inst| i.op.starts_with("setp.") && has(i, "ftz") && ["and", "or", "xor"].iter().any(|b| has(i, b));
            any_inst(p, &combined_ftz)
        }),
    },
    Issue {
        id: "ptxas-fold-fadd-tie",
        component: Component::Ptxas,
        summary: "ptxas 13.5 constant-folds an f32 add whose exact sum is a tie without rounding to even\n\
                  `add.rn.ftz.f32 f0, 0f40D3477B, 0fBFDFBF6E;` becomes `MOV R7, 0x409b579f`: the exact sum lies \
                  halfway between 0x409b579f and 0x409b57a0, and round-to-nearest-even gives 0x409b57a0 (an FADD \
                  gives it). The same for add.rn.f32, add.f32, add.ftz.f32 and the equivalent sub. Seed 1301566. A \
                  value mismatch (M = C != P).",
        case: "ptxas_fold_fadd_tie",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            let folded = |i: &Inst| {
                (i.op.starts_with("add.")
                    || i.op.starts_with("sub.")
                    || i.op.starts_with("fma.")
                    || i.op.starts_with("mul."))
                    && i.op.ends_with(".f32")
                    && i.srcs.iter().all(|s| matches!(s.op, Operand::Imm(_)))
            };
            any_inst(p, &folded)
        }),
    },
    Issue {
        id: "ptxas-abs-subcc-zero",
        component: Component::Ptxas,
        summary: "ptxas 13.5 folds `sub.cc` of an `abs.s64` into adding the negated absolute value\n\
                  `abs.s64 rd2, rd0; sub.cc.s64 rd1, 0, rd2; subc.s64 rd1, 0, 0;` becomes SELs of rd0 and -rd0 \
                  giving -|rd0|, then `IADD3 RZ, P0, RZ, R0, RZ; IADD3.X RZ, P0, RZ, R0', RZ, P0, !PT`: the carry \
                  of adding -|rd0| equals the no-borrow of subtracting |rd0| except for rd0 = 0, where it is 0 \
                  and subc gives -1 instead of 0. Seed 1303428. A value mismatch (M = C != P).",
        case: "ptxas_abs_subcc_zero",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            let borrow_out = |i: &Inst| i.op.starts_with("sub.cc") || i.op.starts_with("subc.cc");
            any_inst(p, &|i| i.op.starts_with("abs.s")) && any_inst(p, &borrow_out)
        }),
    },
    Issue {
        id: "ptxas-f16-bits-fold",
        component: Component::Ptxas,
        summary: "ptxas 13.5 folds an integer cvt of the bits of an f16 made from a 0/1 float to the value\n\
                  `set.ge.f32.u16 f1, 0, h0; cvt.rz.f16.f32 h1, f1; cvt.u64.u8 rd0, h1;` becomes `FSEL R7, RZ, 1, \
                  !P0; FSETP.NEU.AND P0, PT, R7, RZ, PT; SEL R6, RZ, 0x1, !P0`: rd0 = 1 for 1.0, where cvt.u64.u8 \
                  takes the low byte of h1's bits (1.0 is 0x3c00, so 0). Seed 1303889. A value mismatch \
                  (M = C != P).",
        case: "ptxas_f16_bits_fold",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            let to_f16 = |i: &Inst| is_cvt(i) && parts(i).get(2) == Some(&"f16");
            let int_of_16 = |i: &Inst| {
                let t = parts(i);
                t[0] == "cvt" && t.len() == 3 && NARROW_INTS.contains(&t[2])
            };
            any_inst(p, &to_f16) && any_inst(p, &int_of_16)
        }),
    },
    Issue {
        id: "ptxas-shl-cvt-s64-u32",
        component: Component::Ptxas,
        summary: "ptxas 13.5 sign-extends a `cvt.s64.u32` result that feeds a 64-bit left shift\n\
                  `cvt.s64.u32 rd0, r0; shl.b64 rd1, rd0, 0;` stores rd0 zero-extended (`MOV R3, RZ`) but builds \
                  rd1's high word as `SHF.R.S32.HI R7, RZ, 0x1f, R2`: for r0 = 0xd6fdae56, rd1 = 0xffffffffd6fdae56 \
                  where PTX zero-extends an unsigned source. Shifts by 1 and 3 give `SHF.R.S32.HI R7, RZ, 0x1f` and \
                  `0x1d` as well. Seed 1308302. A value mismatch (M = C != P).",
        case: "ptxas_shl_cvt_s64_u32",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            let zext = |i: &Inst| i.op == "cvt.s64.u32";
            let shift = |i: &Inst| i.op.starts_with("shl.b64");
            any_inst(p, &zext) && any_inst(p, &shift)
        }),
    },
    Issue {
        id: "ptxas-abs-sat",
        component: Component::Ptxas,
        summary: "ptxas 13.5 drops a cvt.sat.u32.s32 of an abs.s32 result, assuming |x| >= 0\n\
                  `abs.s32 r1, r0; cvt.sat.u32.s32 r1, r1;` becomes a bare `IABS R7, R3`: abs(INT_MIN) is INT_MIN, \
                  which the saturating conversion to u32 clamps to 0; ptxas stores 0x80000000. Seed 1500294. A \
                  value mismatch (M = C != P).",
        case: "ptxas_abs_sat",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            let sat_to_unsigned = |i: &Inst| is_sat_cvt(i) && parts(i).iter().any(|t| t.starts_with('u'));
            any_inst(p, &|i| i.op.starts_with("abs.s")) && any_inst(p, &sat_to_unsigned)
        }),
    },
    Issue {
        id: "ptxas-cnot-shift-amount",
        component: Component::Ptxas,
        summary: "ptxas 13.5 shifts a 16-bit value by R1 (the stack pointer) when the amount is a cnot result\n\
                  `cnot.b32 r1, r0; shr.b16 h0, 1, r1;` becomes `SHF.R.U32.HI R7, RZ, R1, R6` with R1 = \
                  c[0x0][0x28] from the prologue, while r1 itself is computed into R9; with `add.u32 r1, r0, 1` \
                  instead ptxas clamps the amount (`IMNMX.U32 R0, R7, 0xffff`) and shifts by R0. Seed 1500492. A \
                  value mismatch (M = C != P).",
        case: "ptxas_cnot_shift_amount",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            let shift16 = |i: &Inst| (i.op.starts_with("shr.") || i.op.starts_with("shl.")) && i.op.ends_with("16");
            any_inst(p, &|i| i.op.starts_with("cnot.")) && any_inst(p, &shift16)
        }),
    },
    Issue {
        id: "ptxas-setp-abs-nan",
        component: Component::Ptxas,
        summary: "ptxas 13.5 folds an ordered comparison of an abs.f32 result with a negative constant to true, ignoring NaN\n\
                  `abs.f32 f1, f0; setp.lt.f32 p0, 0fD80D25F1, f1;` becomes `MOV R9, 0x1`: ptxas assumes |f| >= 0 \
                  > -6.2e14, but for a NaN f0 the ordered setp.lt is false. Seed 1508186. A value mismatch \
                  (M = C != P).",
        case: "ptxas_setp_abs_nan",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            let compare_with_constant = |i: &Inst| {
                i.op.starts_with("setp.")
                    && i.op.ends_with(".f32")
                    && i.srcs.iter().any(|s| matches!(s.op, Operand::Imm(_)))
            };
            any_inst(p, &|i| i.op == "abs.f32" || i.op == "abs.ftz.f32") && any_inst(p, &compare_with_constant)
        }),
    },
    Issue {
        id: "ptxas-cnot-sat",
        component: Component::Ptxas,
        summary: "ptxas 13.5 clamps the negation of a cnot result in a saturating narrowing\n\
                  `cnot.b32 r0, r0; cvt.sat.s8.u32 r1, r0;` becomes `SEL R0, RZ, 0xffffffff, !P0` (-cnot), then \
                  `ISETP.GT.U32.AND P0, PT, R0, 0x80, PT; SEL R5, -R0, 0xffffff80, !P0`: for r0 = 0 the cnot is 1 \
                  and r1 must be 1; ptxas compares 0xffffffff and gives -128. Seed 1700419. A value mismatch \
                  (M = C != P).",
        case: "ptxas_cnot_sat",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| any_inst(p, &|i| i.op.starts_with("cnot.")) && any_inst(p, &is_sat_cvt)),
    },
    Issue {
        id: "ptxas-guarded-range",
        component: Component::Ptxas,
        summary: "ptxas 13.5 drops a narrowing cvt after a guarded cvt.sat, as if the guard always held\n\
                  `@!p0 cvt.sat.u8.s32 h0, r0; cvt.u8.u8 r1, h0;` stores h0 unmasked (`@!P0 I2I.U8.S32.SAT R9, R7; \
                  STG [R4+0x8], R9`): where p0 is set h0 keeps its loaded 16-bit value (0x17a) and cvt.u8.u8 must \
                  keep its low byte (0x7a). Seed 2103377. A value mismatch (M = C != P).",
        case: "ptxas_guarded_range",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            let guarded_sat = |i: &Inst| i.guard.is_some() && is_sat_cvt(i);
            let narrowing_identity = |i: &Inst| {
                let t = parts(i);
                t.len() == 3 && t[0] == "cvt" && t[1] == t[2] && NARROW_INTS.contains(&t[1])
            };
            any_inst(p, &guarded_sat) && any_inst(p, &narrowing_identity)
        }),
    },
    Issue {
        id: "ptxas-f16-bits-to-f16",
        component: Component::Ptxas,
        summary: "ptxas 13.5 folds an int-to-f16 cvt of the bits of an f16 made from a 0/1 float to the value\n\
                  `set.eq.f32.b64 f0, rd0, 0; cvt.rp.f16.f32 h0, f0; cvt.rp.f16.u16 h0, h0;` becomes `FSEL R11, RZ, \
                  1, !P0; FSETP.NEU.AND P0, PT, R11, RZ, PT; SEL R13, RZ, 0x3c00, !P0`: h0 = 0x3c00 (1.0) where \
                  cvt.f16.u16 converts the integer 0x3c00 = 15360 (0x7380). The mirror of ptxas-f16-bits-fold. \
                  Seed 2302953. A value mismatch (M = C != P).",
        case: "ptxas_f16_bits_to_f16",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            let to_f16_from = |i: &Inst, int: bool| {
                let t = parts(i);
                t[0] == "cvt" && t.len() >= 2 && t[t.len() - 2] == "f16" && (t[t.len() - 1].starts_with('f') != int)
            };
            any_inst(p, &|i| to_f16_from(i, false)) && any_inst(p, &|i| to_f16_from(i, true))
        }),
    },
    Issue {
        id: "ptxas-sqrt-f64-clobber",
        component: Component::Ptxas,
        summary: "ptxas 13.5 keeps a value live in a register its f64 square-root subroutine overwrites\n\
                  `cvt.rmi.u16.f32 h0, f1; @!p0 bra L; sqrt.rm.f64 fd0, 0d0000000000000001; mul.wide.u16 r0, 1, h0; L:` \
                  becomes `PRMT R9, R8, 0x7610, R9; ... CALL.REL.NOINC $__internal_0_$__cuda_sm20_dsqrt_rd_f64; \
                  F2I.U16.FLOOR.NTZ R0, R0; PRMT R9, R0, 0x7610, R9; IMAD.MOV.U32 R11, RZ, RZ, R9`, but the \
                  subroutine writes R8:R9 (`F2F.F64.F32 R8, R16; DMUL R8, R4, R10`): r0's upper half is the \
                  subroutine's (0x40100000 instead of 0). Seed 2500218. A value mismatch (M = C != P).",
        case: "ptxas_sqrt_f64_clobber",
        kinds: &[Kind::OracleDiffers],
        messages: &[],
        avoid: None,
        program: Some(|p| {
            let sqrt64 = |i: &Inst| i.op.starts_with("sqrt.r") && i.op.ends_with(".f64");
            let narrow = |i: &Inst| is_cvt(i) && has_narrow_int(i);
            any_inst(p, &sqrt64) && any_inst(p, &narrow)
        }),
    },
];
