//! The open issues: bugs found by differential testing that are not fixed yet (all of them
//! in ptxas, the oracle), each with its regression case, how it shows and what it rests on.

use super::ops;
use super::{Component, Evidence, How, Issue, Sign};
use crate::compare::Kind;
use crate::program::opcode::{family, float_arith, has, parts};
use crate::program::{Inst, Operand};
use crate::slice::Slice;

/// A wrapping 32-bit add or sub of an immediate (`.cc` or not).
fn wrapping_add_imm(i: &Inst) -> bool {
    let op = i.op.replace(".cc", "");
    matches!(op.as_str(), "add.u32" | "add.s32" | "sub.u32" | "sub.s32") && ops::has_imm(i)
}

/// A move from a special register ptxas reads from a constant bank (`%ntid.y`, `%ntid.z`,
/// `%nctaid.x` ...).
fn constant_bank_sreg(i: &Inst) -> bool {
    i.srcs.iter().any(|s| {
        matches!(&s.op, crate::program::Operand::Fixed(r) if r.starts_with("%n") && (!r.ends_with(".x") || r == "%nctaid.x"))
    })
}

/// `ptxas-sat-f16`: a saturating conversion to s16/u16 feeding a saturating conversion of
/// f16 to f32 or f64.
fn sat_s16_into_sat_f16(w: &Slice) -> bool {
    w.feeds(
        |i| ops::is_sat_cvt(i) && ops::cvt_to(i, &["s16", "u16"]),
        |i| ops::is_sat_cvt(i) && ops::cvt_from(i, &["f16"]) && ops::cvt_to(i, &["f32", "f64"]),
    )
}

/// A predicate logic instruction (`and`, `or`, `xor`, `not`, `mov` of `.pred`).
fn pred_logic(i: &Inst) -> bool {
    i.op.ends_with(".pred") && matches!(family(i), "and" | "or" | "xor" | "not" | "mov")
}

/// The predicates an instruction reads (its sources, negated or not).
fn pred_srcs(i: &Inst) -> Vec<crate::program::Reg> {
    i.srcs
        .iter()
        .filter_map(|s| match s.op {
            Operand::Reg(r) | Operand::NotPred(r) => Some(r),
            _ => None,
        })
        .collect()
}

/// `ptxas-pred-pair-guarded`: a predicate logic instruction of the word's slice and another
/// one of the program read the same two predicates, and one of them is guarded by one of the
/// two and writes one of them (`and.pred p2, p0, p1; @p1 or.pred p1, p1, p0` or `or.pred p2,
/// p0, p1; @p1 mov.pred p0, p0`).
fn pred_pair_guarded(w: &Slice) -> bool {
    let guarded_in = |i: &Inst, pair: &[crate::program::Reg]| matches!((i.guard, i.dsts.first()), (Some((_, g)), Some(Operand::Reg(d))) if pair.contains(&g) && pair.contains(d));
    w.instructions().filter(|a| pred_logic(a)).any(|a| {
        w.program_instructions()
            .filter(|b| pred_logic(b) && !std::ptr::eq(*b, a))
            .any(|b| {
                let mut pair = pred_srcs(a);
                pair.extend(pred_srcs(b));
                pair.sort_by_key(|r| r.index);
                pair.dedup();
                pair.len() == 2 && (guarded_in(a, &pair) || guarded_in(b, &pair))
            })
    })
}

/// The integer types a saturating `cvt` can clamp to.
const INTEGER_TYPES: &[&str] = &["s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"];

/// `ptxas-abs-unsigned`: a 16- or 32-bit integer abs feeding a conversion of an unsigned
/// integer to float.
fn abs_as_unsigned_float(w: &Slice) -> bool {
    w.feeds(
        |i| ops::abs_int(i) && !i.op.ends_with("64"),
        |i| ops::cvt_from(i, &["u32", "u16"]) && ops::cvt_to(i, &["f16", "f32", "f64"]),
    )
}

/// `ptxas-f16-widen-roundtrip`: the word reads the bits of an f16 register as an integer
/// (`cvt.rm.f32.u8 f0, h0`) that f16 arithmetic of the word's slice writes and that the
/// program also widens to f32 or f64 (`cvt.f32.f16 f1, h0`).
fn f16_bits_beside_widening(w: &Slice) -> bool {
    let reads_bits = |i: &Inst| ops::cvt_from(i, &["u8", "s8", "u16", "s16"]);
    let src_reg = |i: &Inst| match i.srcs.first().map(|s| &s.op) {
        Some(Operand::Reg(r)) => Some(*r),
        _ => None,
    };
    let writes = |i: &Inst, r: crate::program::Reg| i.dsts.iter().any(|d| matches!(d, Operand::Reg(x) if *x == r));
    w.instructions().filter(|i| reads_bits(i)).filter_map(src_reg).any(|r| {
        w.instructions()
            .any(|i| i.op.ends_with(".f16") && !ops::is_cvt(i) && writes(i, r))
            && w.program_instructions()
                .any(|i| ops::cvt_from(i, &["f16"]) && ops::cvt_to(i, &["f32", "f64"]) && src_reg(i) == Some(r))
    })
}

/// `ptxas-setp-ftz-branch`: an f32 `setp` with `.ftz` that combines predicates is in the
/// word's slice, or one decides a guard of it.
fn setp_ftz_decides(w: &Slice) -> bool {
    let setp_ftz = |i: &Inst| family(i) == "setp" && has(i, "ftz") && i.op.ends_with(".f32");
    w.has(|i| setp_ftz(i) && ["and", "or", "xor"].iter().any(|b| has(i, b))) || w.feeds(setp_ftz, |i| i.guard.is_some())
}

/// `ptxas-hmma-const-neg`: an `mma` of the word's slice takes a fragment computed from
/// immediates alone.
fn mma_of_constant(w: &Slice) -> bool {
    w.feeds(ops::all_imm, |i| family(i) == "mma")
}

/// `ptxas-abs-sat-zero`: a saturated f32 result feeds an `abs.f32`.
fn sat_into_abs_f32(w: &Slice) -> bool {
    w.feeds(ops::sat_f32, ops::abs_f32)
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
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::CaseOnly,
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "d keeps its old value where the guard is false (PTX: a false guard predicate leaves the destination unchanged); ptxas's unguarded IABS/I2F overwrite it with the float of |old bits|.",
    },
    Issue {
        id: "ptxas-guarded-set-s16",
        component: Component::Ptxas,
        summary: "ptxas 13.5 ignores the guard of set with 16-bit operands\n\
                  `@p set.CMP.u32.s16 d, a, b` becomes a guarded ISETP and SEL, then an unguarded \
                  PRMT d, d, 0x9910 (sign extension of the low half): when the guard is false, the upper \
                  half of d is overwritten. The generator never guards such a set.",
        case: "ptxas_guarded_set_s16",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::CaseOnly,
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "d keeps all 32 old bits where the guard is false; ptxas's unguarded PRMT 0x9910 replaces the upper half with the sign of bit 15.",
    },
    Issue {
        id: "ptxas-guarded-testp",
        component: Component::Ptxas,
        summary: "ptxas 13.5 drops the guard of testp\n\
                  `@!p testp.notanumber.f64 p, a` always overwrites p (with a constant operand it folds \
                  the test and stores the constant). The generator never guards testp.",
        case: "ptxas_guarded_testp",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::CaseOnly,
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "p keeps its old value where the guard is false; ptxas writes the test's result (or the folded constant) unconditionally.",
    },
    Issue {
        id: "ptxas-crash",
        component: Component::Ptxas,
        summary: "ptxas 13.5 crashes (SIGSEGV) on some programs with an unreachable block and an atomic\n\
                  Reductions (`red`) and atomics (`atom`, seed 334) alike. For example `@%p0 bra L2; @!%p0 bra L4; red.global.min.u32 [a], 0; L4: L2: \
                  red.global.max.u64 [a+8], 0;` (tests/difftest/ptxas_crash.ptx). The atomic need not be in the \
                  unreachable block: `@%p0 bra L2; @!%p0 bra L4; shl.b64 rd0, 0, 0; L4: L2: red.shared.max.s64 \
                  [xacc], 0;` crashes too (seed 14542 of the issue-25 campaign, shrunk); the block may also follow \
                  a guarded `continue` whose predicate contradicts its branch (seeds 9713, 14718), or branches on a \
                  copy of the predicate: `and.pred %p0, %p1, %p1; @!%p1 bra L5; @%p0 bra L7; red.global.add.s32 \
                  [a], 0; L7: L5:` (seed 49293). The \
                  interpreter and ptxc are still compared.",
        case: "ptxas_crash",
        shows: &[Sign {
            kind: Kind::OracleCrash,
            how: How::Message(
                &["SIGSEGV"],
                Some(|w| w.has_unreachable(|_| true) && w.has(ops::atomic)),
            ),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "ptxas should compile the program (it is valid PTX; at -O0 it does); instead it exits with SIGSEGV and no message.",
    },
    Issue {
        id: "ptxas-f16-fold",
        component: Component::Ptxas,
        summary: "ptxas 13.5 folds cvt.rni.u8.f16 of a cnot.b16 result to the integer bits\n\
                  `cnot.b16 h1, h0;` then, in a loop that runs once, `cvt.rni.u8.f16 r0, h1;`: ptxas \
                  stores h1's bits (0 or 1) instead of rounding the f16 value (0 or 2^-24, both 0). \
                  A value mismatch (M = C != P): never matched automatically.",
        case: "ptxas_f16_fold",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| w.feeds(ops::cnot, |i| ops::cvt_from(i, &["f16"]))),
        }],
        avoid: Some(|i| i.op == "cnot.b16"),
        evidence: Evidence::Sass,
        expected: "cnot.b16 gives the bits 0 or 1, as f16 the values 0 and 2^-24; cvt.rni.u8.f16 rounds either to the integer 0, so r0 = 0. ptxas stores the bits (1).",
    },
    Issue {
        id: "ptxas-shift-narrow",
        component: Component::Ptxas,
        summary: "ptxas 13.5 narrows a float-to-u32 conversion that feeds a 16-bit shift amount to F2I.S16\n\
                  `cvt.rni.ftz.u32.f32 r0, f0; shr.s16 h0, 1, r0;` becomes F2I.S16 and SHF: for f0 = -32768.0 \
                  the u32 conversion saturates to 0 (h0 = 1) but F2I.S16 gives -32768, a shift past the width \
                  (h0 = 0). A value mismatch (M = C != P).",
        case: "ptxas_shift_narrow",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| {
                w.feeds(
                    |i| ops::cvt_from(i, &["f32", "f64", "f16"]) && ops::cvt_to(i, &["u32", "s32", "u64", "s64"]),
                    ops::shift16,
                )
            }),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "cvt.rni.ftz.u32.f32 of -32768.0 saturates to 0 (PTX: float-to-integer conversions saturate to the destination range), so shr.s16 h0, 1, 0 gives 1. ptxas's F2I.S16 gives -32768, a shift amount past the width, and h0 = 0.",
    },
    Issue {
        id: "ptxas-abs-unsigned",
        component: Component::Ptxas,
        summary: "ptxas 13.5 converts an abs.s32/abs.s16 result to float as signed where the PTX converts it as unsigned\n\
                  `abs.s32 r1, r0; cvt.rm.f32.u32 f0, r1;` becomes `IABS R9, R3; I2F.RM R7, R9` (signed I2F), and \
                  `abs.s16 h1, h0; cvt.rz.f32.u16 f0, h1;` becomes `IABS; PRMT; I2F.S16.RZ`: ptxas assumes |x| >= 0, \
                  but abs(INT_MIN) = INT_MIN, which as u32 is 2^31 (0x4f000000) and ptxas gives -2^31 (0xcf000000). \
                  Seeds 704806, 706678, 75721 (generator r2). A value mismatch (M = C != P), or ptxc != ptxas \
                  where the wrong sign reaches a zero whose sign the interpreter leaves open.",
        case: "ptxas_abs_unsigned",
        shows: &[
            Sign {
                kind: Kind::OracleDiffers,
                how: How::Word(abs_as_unsigned_float),
            },
            // Seed 75721: a zero divided by the wrongly signed float has the wrong sign, and
            // the interpreter accepts either sign of that zero (its dividend is a saturated
            // zero), so the word shows as the compilers differing.
            Sign {
                kind: Kind::CompilersDiffer,
                how: How::Word(abs_as_unsigned_float),
            },
        ],
        avoid: None,
        evidence: Evidence::Spec(
            "abs.s32 of INT_MIN (and abs.s16 of -32768) is INT_MIN, the two's-complement wrap-around: the PTX specification describes abs as |a| and does not state the result for the most negative value",
        ),
        expected: "abs.s32 of 0x80000000 is 0x80000000; cvt.rm.f32.u32 reads it as the unsigned 2^31 and gives 0x4f000000. ptxas converts it as signed (I2F of -2^31) and gives 0xcf000000.",
    },
    Issue {
        id: "ptxas-slct-abs",
        component: Component::Ptxas,
        summary: "ptxas 13.5 folds slct.s32.f32 of an abs.f32 result to the first operand, ignoring NaN\n\
                  `abs.f32 f0, f0; slct.s32.f32 r0, 1, 0, f0;` becomes `MOV R7, 0x1`: ptxas assumes |f| >= 0, \
                  but for f = NaN the comparison c >= 0 is false and slct selects b (0). \
                  Seeds 704488, 709521. A value mismatch (M = C != P).",
        case: "ptxas_slct_abs",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| w.feeds(ops::abs_f32, |i| family(i) == "slct" && i.op.ends_with(".f32"))),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "abs.f32 of a NaN is a NaN; slct selects a when c >= 0, and c >= 0 is false for a NaN, so r0 = b (0). ptxas folds the select to a (1).",
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
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| {
                w.feeds(wrapping_add_imm, |i| {
                    matches!(i.op.as_str(), "sub.sat.s32" | "add.sat.s32") && ops::has_imm(i)
                })
            }),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "add.u32 wraps: r0 = 0x7ffffffe gives r2 = 0x8000003e, and sub.sat.s32 r2, 1 gives 0x8000003d. ptxas saturates the folded sum r0 + 0x3f to 0x7fffffff.",
    },
    Issue {
        id: "ptxas-sat-f16",
        component: Component::Ptxas,
        summary: "ptxas 13.5 drops the .sat of cvt.sat.f32.f16 / cvt.sat.f64.f16 whose source is a cvt.sat.s16/u16 result\n\
                  `cvt.sat.s16.s32 h0, r0; cvt.sat.f32.f16 f0, h0;` becomes `I2I.S16.S32.SAT R7, R3; \
                  HADD2.F32 R9, R7.H0_H0, -RZ.H0_H0` (alone, cvt.sat.f32.f16 is HADD2.F32.SAT), and \
                  cvt.sat.f64.f16 becomes a bare `F2F.F64.F16`: the integer saturation says nothing about the f16 \
                  value, so 0x7fff (NaN) gives NaN and 0x8000 (-0) gives -0 where the PTX clamps both to 0. \
                  Seeds 707446, 707501, 709159. A value mismatch (M = C != P); the -0 also shows as \
                  ptxc != ptxas (seed 10263 of the issue-25 campaign).",
        case: "ptxas_sat_f16",
        // The -0 of h0 = 0x8000 is a sign difference the interpreter's rule for saturated zeros
        // accepts, so that word shows as the compilers differing (seed 10263).
        shows: &[
            Sign {
                kind: Kind::OracleDiffers,
                how: How::Word(sat_s16_into_sat_f16),
            },
            Sign {
                kind: Kind::CompilersDiffer,
                how: How::Word(sat_s16_into_sat_f16),
            },
        ],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "cvt.sat.f32.f16 clamps to [0.0, 1.0] and flushes NaN to +0 (PTX, cvt: .sat on a float destination): h0 = 0x7fff (NaN) and 0x8000 (-0) both give +0. ptxas drops the .sat and stores NaN and -0.",
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
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| {
                w.has(|i| {
                    matches!(i.op.as_str(), "or.pred" | "and.pred") && i.srcs.len() == 2 && i.srcs[0] == i.srcs[1]
                })
            }),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "p1 = p0 | p0 = p0 before p0 is redefined; where p1 is false the add runs and f0 = 0 + 0 = 0. ptxas emits no FADD and stores the loaded f0.",
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
                  PT; UIADD3 UR4, UR4, -0x1, URZ; @!P0 BREAK B1`). The threads whose CAS succeeded also \
                  reach a barrier or leave the loop while the others wait at the retry's BSYNC: a \
                  deadlock (issue-25 campaign seed 2356: `BAR.SYNC 0x0` after the CAS with 33 of 64 threads, \
                  the rest at `BSYNC B1`; seed 9946: `@!P4 BRA` out of the retry's `BSSY B0` region \
                  without BREAK, then `BSYNC B1`). A value mismatch (M = C != P) or a fault of ptxas's \
                  cubin (the instruction limit, or a barrier deadlock).",
        case: "ptxas_shared_cas_loop",
        shows: &[
            Sign {
                kind: Kind::OracleDiffers,
                how: How::Word(|w| w.in_loop_with(ops::shared_atomic64)),
            },
            Sign {
                kind: Kind::PtxasFault,
                how: How::Message(
                    &["instruction limit of", "barrier deadlock"],
                    Some(|w| w.in_loop_with(ops::shared_atomic64)),
                ),
            },
        ],
        avoid: None,
        evidence: Evidence::Model(
            "the simulator's model of a uniform register under divergence: ptxas keeps the loop's trip count in UR4 and decrements it with UIADD3 on the path that only the threads whose CAS succeeded take; the simulator gives a warp one uniform register file shared by all its threads, so the threads still retrying their CAS see the count already decremented. What hardware does with a uniform register written by a subset of a divergent warp is not documented. The deadlocks rest on the simulator's model of BSSY/BSYNC (a thread waits at BSYNC until every thread of the barrier's mask that has not exited or left it by BREAK arrives) and of BAR.SYNC (counts threads)",
        ),
        expected: "Every thread runs the loop body its trip count times (4 in the case): f1 is the body's result after 4 trips for every thread. On the simulator, ptxas's threads whose CAS failed run the body one time fewer.",
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
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| {
                w.live_across(
                    |i| ops::is_cvt(i) && ops::has_narrow_int(i),
                    |i| family(i) == "div" && i.op.ends_with(".f64"),
                )
            }),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "h2 = cvt.rzi.s8.f32 of f1 does not change across the division, and r1 = cvt.u32.s8 of h2 is 0 for the case's inputs (h2 = 0). ptxas keeps h2 in R24, which the division subroutine overwrites (IADD3 R24, R39, -0x1, RZ), and r1 = 0xffff0000.",
    },
    Issue {
        id: "ptxas-neg16-sat",
        component: Component::Ptxas,
        summary: "ptxas 13.5 negates a 16-bit value in 32 bits before a saturating narrowing\n\
                  `neg.s16 h0, h0; cvt.sat.s8.s16 r0, h0;` becomes `PRMT R0, R2, 0x9910; IADD3 R0, RZ, -R0, RZ` \
                  and clamps with SEL: for h0 = -32768 the PTX negation wraps to -32768 (saturated: -128), \
                  ptxas's gives 32768 (saturated: 127). Seed 909796. A value mismatch (M = C != P).",
        case: "ptxas_neg16_sat",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| w.feeds(|i| i.op == "neg.s16", |i| ops::is_sat_cvt(i) && i.op.ends_with("16"))),
        }],
        avoid: None,
        evidence: Evidence::Spec(
            "neg.s16 of -32768 wraps to -32768 (two's complement, as add and sub do): the PTX specification describes neg as -a and does not state the result for the most negative value",
        ),
        expected: "neg.s16 of -32768 is -32768 (wrap-around), and cvt.sat.s8.s16 clamps it to -128. ptxas negates in 32 bits (32768) and clamps to 127.",
    },
    Issue {
        id: "ptxas-neg16-reneg",
        component: Component::Ptxas,
        summary: "ptxas 13.5 negates a guarded neg.s16 result a second time before a 16-bit comparison\n\
                  `@%p0 bra L; neg.s16 h0, h0; set.lt.u32.s16 r0, h0, 0; L:` becomes `@!P0 IMAD.MOV R4, RZ, RZ, \
                  -R4; @!P0 PRMT R9, R4, 0x7710, RZ` (h0 = -h, stored) and then `@!P0 PRMT R4, R9, 0x9910, RZ; \
                  @!P0 IADD3 R4, RZ, -R4, RZ; @!P0 PRMT R4, R4, 0x9910, RZ; @!P0 ISETP.LT.AND P1, PT, R4, RZ`: \
                  the comparison tests -h0 = h, not h0. Seed 4682 of the issue-25 campaign \
                  (--avoid-open-issues). A value mismatch (M = C != P).",
        case: "ptxas_neg16_reneg",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| {
                w.feeds(
                    |i| i.op == "neg.s16",
                    |i| matches!(family(i), "set" | "setp") && has(i, "s16"),
                )
            }),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "h0 = neg.s16 of 0x4100 is -16640 and set.lt.u32.s16 r0, h0, 0 gives 0xffffffff. ptxas compares the negation of the stored h0 (R9), 16640, and gives 0.",
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
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| w.feeds(|i| matches!(family(i), "mul" | "mad") && has(i, "hi"), ops::borrow_in)),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "sub.cc.u32 r1, r0, r3 with r3 = 0 does not borrow, so subc.u32 r2, 0, 0 gives 0. ptxas's IMAD.HI adds (-r3) << 32 = 0 to the product, which cannot carry, and its IADD3.X gives -1 + 0 = 0xffffffff.",
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
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| w.feeds(constant_bank_sreg, |i| family(i) == "szext")),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "szext.clamp.u32 r0, 1, r1 with r1 = %ntid.z = 1 (the launch's block is (n, 1, 1)) keeps bit 0 of 1: r0 = 1. ptxas reads the width from c[0x2][0x0], not %ntid.z's c[0x0][0x8].",
    },
    Issue {
        id: "ptxas-cvt-f16-narrow-guarded",
        component: Component::Ptxas,
        summary: "ptxas 13.5 writes only the low 16 bits of a guarded narrow cvt from f16 or f32 into a 32-bit register\n\
                  `@!p0 bra L; @p0 cvt.rmi.s8.f16 r1, h0;` becomes `F2I.S8.F16.FLOOR.NTZ R7, R7; PRMT R11, R7, \
                  0x7610, R11`, keeping r1's old upper half where PTX sign-extends (zero-extends for u8/u16) the \
                  result to the register: -128 gives 0x0000ff80 instead of 0xffffff80. The same with .u8 and .s16 \
                  destinations; unguarded, the F2I writes R11 directly. Seed 1107459. From f32 too: `@!%p0 bra L; \
                  @%p0 cvt.rni.u8.f32 r2, f0;` becomes `F2I.U8.NTZ R13, R13; PRMT R17, R13, 0x7610, R17` and r2 = \
                  0x4d1b0000 where it is 0 (seed 6676 of the issue-25 campaign). A value mismatch (M = C != P).",
        case: "ptxas_cvt_f16_narrow_guarded",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| {
                w.has(|i| {
                    ops::is_cvt(i) && i.guard.is_some() && ops::cvt_from(i, &["f16", "f32"]) && ops::has_narrow_int(i)
                })
            }),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "cvt.rmi.s8.f16 of -128.0 into a .b32 register sign-extends the result: r1 = 0xffffff80 (PTX: a destination register wider than the type is sign- or zero-extended). ptxas merges the low 16 bits into the old value: 0x0000ff80.",
    },
    Issue {
        id: "ptxas-setp-ftz-branch",
        component: Component::Ptxas,
        summary: "ptxas 13.5 branches on a setp.*.and.ftz.f32 recomputed without .ftz\n\
                  `setp.gtu.and.ftz.f32 p1, 0f00000001, f0, p0; @p1 bra L;` becomes `FSETP.LTU.AND P3, PT, R11, \
                  1.4e-45, PT` (no .FTZ) for the branch `@P0 BRA P3` next to `FSETP.LTU.FTZ.AND P2, PT, R11, \
                  1.4e-45, P0` for the value of p1: for f0 = 0 the stored p1 is false (the denormal flushes to 0) \
                  but the branch is taken. Seed 1102299. A plain setp merged into a branch condition loses .FTZ \
                  the same way: `setp.gtu.ftz.f32 p0, 0f00000001, f0; @p1 bra L; @p0 popc.b64 r0, rd0; L:` becomes \
                  `FSETP.GE.FTZ.AND P1, PT, R9, 1.4e-45, PT` for p0 and `FSETP.GE.OR P2, PT, R9, 1.4e-45, P0` (no \
                  .FTZ) for the guard !p0 && !p1 of the popc's result: for f0 = 0 the popc runs (seed 701639, \
                  generator r2, --avoid-open-issues). A value mismatch (M = C != P).",
        case: "ptxas_setp_ftz_branch",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(setp_ftz_decides),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "With .ftz the denormal 0f00000001 is flushed to 0, so for f0 = 0 setp.gtu gives false, p1 = false and the branch is not taken. ptxas branches on an FSETP without .FTZ, which is true.",
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
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| {
                w.has(|i| {
                    matches!(family(i), "add" | "sub" | "fma" | "mul") && i.op.ends_with(".f32") && ops::all_imm(i)
                })
            }),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "0f40D3477B + 0fBFDFBF6E is exactly halfway between 0x409b579f and 0x409b57a0; round-to-nearest-even gives 0x409b57a0 (as FADD does). ptxas's folded constant is 0x409b579f.",
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
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| w.feeds(ops::abs_int, ops::borrow_in)),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "For rd0 = 0, 0 - |rd0| does not borrow, so subc.s64 0 - 0 - 0 = 0. ptxas adds -|rd0| = 0, which makes no carry, and gives -1 (0xffffffffffffffff).",
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
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| {
                w.feeds(
                    |i| ops::cvt_to(i, &["f16"]),
                    |i| ops::cvt_from(i, &ops::NARROW_INTS) && parts(i).len() == 3,
                )
            }),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "cvt.rz.f16.f32 of 1.0 puts 0x3c00 in h1; cvt.u64.u8 rd0, h1 converts h1's low byte (PTX: a source register wider than the type is truncated), 0x00: rd0 = 0. ptxas converts the value 1.0 and gives 1.",
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
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| w.feeds(|i| i.op == "cvt.s64.u32", |i| i.op.starts_with("shl.b64"))),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "cvt.s64.u32 zero-extends an unsigned source: r0 = 0xd6fdae56 gives rd0 = rd1 = 0x00000000d6fdae56. ptxas builds the high word with SHF.R.S32.HI, 0xffffffff.",
    },
    Issue {
        id: "ptxas-abs-sat",
        component: Component::Ptxas,
        summary: "ptxas 13.5 drops the lower clamp of a saturating integer cvt of an abs result, assuming |x| >= 0\n\
                  `abs.s32 r1, r0; cvt.sat.u32.s32 r1, r1;` becomes a bare `IABS R7, R3`: abs(INT_MIN) is INT_MIN, \
                  which the saturating conversion to u32 clamps to 0; ptxas stores 0x80000000 (seed 1500294). \
                  `abs.s16 h0, h0; cvt.sat.s8.s16 r0, h0;` becomes `PRMT R0, R2, 0x9910; IABS R0, R0; \
                  IMNMX.U32 R0, R0, 0x7f`: the 32-bit IABS of the sign-extended -32768 is +32768, which the \
                  unsigned clamp takes to 127, while the abs.s16 result ptxas itself stores is 0x8000 (-32768), \
                  which cvt.sat.s8 clamps to -128 (seed 72743, generator r2, --avoid-open-issues). A value \
                  mismatch (M = C != P).",
        case: "ptxas_abs_sat",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| w.feeds(ops::abs_int, |i| ops::is_sat_cvt(i) && ops::cvt_to(i, INTEGER_TYPES))),
        }],
        avoid: None,
        evidence: Evidence::Spec(
            "abs.s32 of INT_MIN is INT_MIN, the two's-complement wrap-around: the PTX specification describes abs as |a| and does not state the result for the most negative value",
        ),
        expected: "abs.s32 of 0x80000000 is 0x80000000 (negative), which cvt.sat.u32.s32 clamps to 0: r1 = 0. ptxas drops the conversion and stores 0x80000000.",
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
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| w.feeds(ops::cnot, ops::shift16)),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "r1 = cnot(r0) is 0 or 1, so shr.b16 h0, 1, r1 gives 1 or 0 (1 for r0 != 0). ptxas shifts by R1, the stack pointer c[0x0][0x28], and gives 0.",
    },
    Issue {
        id: "ptxas-setp-abs-nan",
        component: Component::Ptxas,
        summary: "ptxas 13.5 folds an ordered comparison of an abs.f32 result with a negative constant to true, ignoring NaN\n\
                  `abs.f32 f1, f0; setp.lt.f32 p0, 0fD80D25F1, f1;` becomes `MOV R9, 0x1`: ptxas assumes |f| >= 0 \
                  > -6.2e14, but for a NaN f0 the ordered setp.lt is false. Seed 1508186. A value mismatch \
                  (M = C != P).",
        case: "ptxas_setp_abs_nan",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| {
                w.feeds(ops::abs_f32, |i| {
                    family(i) == "setp" && i.op.ends_with(".f32") && ops::has_imm(i)
                })
            }),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "For a NaN f0, |f0| is a NaN and the ordered setp.lt.f32 is false: p0 = 0. ptxas folds it to true (1).",
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
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| w.feeds(ops::cnot, ops::is_sat_cvt)),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "cnot.b32 of 0 is 1, and cvt.sat.s8.u32 keeps 1: r1 = 1. ptxas compares -1 (0xffffffff) against 0x80 and clamps to -128 (0xffffff80).",
    },
    Issue {
        id: "ptxas-guarded-range",
        component: Component::Ptxas,
        summary: "ptxas 13.5 drops a narrowing cvt after a guarded cvt.sat, as if the guard always held\n\
                  `@!p0 cvt.sat.u8.s32 h0, r0; cvt.u8.u8 r1, h0;` stores h0 unmasked (`@!P0 I2I.U8.S32.SAT R9, R7; \
                  STG [R4+0x8], R9`): where p0 is set h0 keeps its loaded 16-bit value (0x17a) and cvt.u8.u8 must \
                  keep its low byte (0x7a). Seed 2103377. A value mismatch (M = C != P).",
        case: "ptxas_guarded_range",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| {
                w.feeds(
                    |i| i.guard.is_some() && ops::is_sat_cvt(i),
                    |i| {
                        ops::cvt_types(i).is_some_and(|(d, s)| d == s && ops::NARROW_INTS.contains(&d))
                            && parts(i).len() == 3
                    },
                )
            }),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "Where the guard p0 is set the cvt.sat does not run and h0 keeps its loaded 16-bit value (0x17a); cvt.u8.u8 r1, h0 keeps its low byte, 0x7a. ptxas stores h0 unmasked (0x17a).",
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
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| {
                w.feeds(
                    |i| ops::cvt_to(i, &["f16"]) && ops::cvt_from(i, &["f32", "f64"]),
                    |i| ops::cvt_to(i, &["f16"]) && !ops::cvt_from(i, &["f16", "f32", "f64"]),
                )
            }),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "cvt.rp.f16.f32 of 1.0 gives the bits 0x3c00; cvt.rp.f16.u16 converts the integer 0x3c00 = 15360, which is 0x7380 in f16. ptxas stores 0x3c00.",
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
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| {
                w.live_across(
                    |i| ops::is_cvt(i) && ops::has_narrow_int(i),
                    |i| family(i) == "sqrt" && i.op.ends_with(".f64"),
                )
            }),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "r0 = mul.wide.u16 1, h0 with h0 the u16 from cvt.rmi.u16.f32: its upper half is 0. ptxas keeps h0 in R9, which the square-root subroutine overwrites (DMUL R8, ...), and r0's upper half is 0x40100000.",
    },
    Issue {
        id: "ptxas-sad16-stale-high",
        component: Component::Ptxas,
        summary: "ptxas 13.5 computes sad.u16 with VABSDIFF.U32 over a register whose upper half is stale\n\
                  `cvt.rzi.sat.u16.f32 h0, f2; ...; sad.u16 h1, h0, 1, 0;` becomes `F2I.U16.TRUNC.NTZ R4, R4; \
                  PRMT R13, R4, 0x7610, R13; VABSDIFF.U32 R8, R13, 0x1, RZ`: the PRMT keeps R13's upper half, \
                  which an earlier FSEL R13 set to an f64's high word, and the absolute difference is taken \
                  on all 32 bits: h0 = 0 gives 0xffff instead of 1. Seed 361 (generator r2, \
                  --avoid-open-issues). A value mismatch (M = C != P).",
        case: "ptxas_sad16_stale_high",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| {
                w.feeds(
                    |i| ops::is_cvt(i) && ops::cvt_to(i, &ops::NARROW_INTS),
                    |i| family(i) == "sad" && i.op.ends_with("16"),
                )
            }),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "sad.u16 h1, h0, 1, 0 is |h0 - 1| + 0 on 16-bit values: h0 = 0 gives h1 = 1. ptxas's VABSDIFF.U32 \
                   reads R13 = 0x40900000 | h0 and stores the low half of 0x408fffff, 0xffff.",
    },
    Issue {
        id: "ptxas-s16-stale-high",
        component: Component::Ptxas,
        summary: "ptxas 13.5 computes signed 16-bit max and shr, and widens 16-bit values, in 32 bits over a register whose upper half is stale\n\
                  `cvt.rzi.s16.f32 h1, f2; ...; shr.s16 h0, h1, r0;` becomes `F2I.S16.TRUNC.NTZ R24, R19; PRMT R29, \
                  R24, 0x7610, R29; SHF.R.S32.HI R22, RZ, R22, R29`: the PRMT keeps R29's upper half (a row size, \
                  0), so h1 = -1 shifts as 0x0000ffff and gives 0 for 16 and more. Likewise `cvt.rzi.sat.s8.f16 h0, \
                  h0; max.s16 h1, h0, 31;` becomes `F2I.S8.F16.TRUNC.NTZ R22, R24; PRMT R28, R22, 0x7610, R28; \
                  IMNMX R30, R28, 0x1f, !PT` over R28's stale upper half: h0 = 0 gives 0, not 31. Seeds 16324 and \
                  4448 of the issue-25 campaign (--avoid-open-issues). The widening `cvt.u32.u16 r3, h2` of such a \
                  value is dropped too: `cvt.rni.u16.f32 h2, f0; ...; @!p0 cvt.u32.u16 r3, h2` becomes `F2I.U16.NTZ \
                  R32, R59; PRMT R25, R32, 0x7610, R25; @!P1 IMAD.MOV.U32 R51, RZ, RZ, R25`, and r3 = 0x7f6c0000 \
                  (R25's upper half, left by a warp reduction's SHFL) where it is 0 (seed 28247). So is the \
                  widening multiply `mul.wide.u16 r0, h1, 1` of `cvt.rni.u16.f32 h1, f0` in a loop: `F2I.U16.NTZ R8, \
                  R13; PRMT R9, R8, 0x7610, R9; IMAD.MOV.U32 R11, RZ, RZ, R9` gives r0 = 0xffff0000 where it is 0 \
                  (seed 50477, generator r3). A value mismatch (M = C != P).",
        case: "ptxas_s16_stale_high",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| {
                w.feeds(
                    |i| ops::is_cvt(i) && ops::cvt_to(i, &ops::NARROW_INTS),
                    |i| {
                        (matches!(family(i), "max" | "min" | "shr") && has(i, "s16"))
                            || (ops::cvt_from(i, &["u16", "s16"]) && ops::cvt_to(i, &["u32", "s32", "u64", "s64"]))
                            || (family(i) == "mul" && has(i, "wide") && i.op.ends_with("16"))
                    },
                )
            }),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "shr.s16 and max.s16 work on the 16-bit value: shr.s16 of h1 = -1 (0xffff) is 0xffff for every shift, and max.s16 of h0 = 0 and 31 is 31. ptxas's SHF.R.S32.HI and IMNMX read the whole 32-bit register, whose upper half the PRMT merge left stale (not the sign extension), and store 0.",
    },
    Issue {
        id: "ptxas-clz-addsat-fold",
        component: Component::Ptxas,
        summary: "ptxas 13.5 folds the 31 of clz into the constant of a saturating add and tests the overflow of the wrong sum\n\
                  `clz.b32 r1, r2; add.sat.s32 r1, r1, 2147483647;` becomes `FLO.U32 R4, R31; IADD3 R11, -R4, \
                  -0x7fffffe2, RZ; PLOP3.LUT P0, PT, R4.SIGN, c[0x2][0x0].SIGN, R11.SIGN, 0x20, 0x0; PLOP3.LUT P4, PT, \
                  R4.SIGN, c[0x2][0x0].SIGN, R11.SIGN, 0x4, 0x0; SEL R11, R11, 0x7fffffff, !P0; SEL R13, R11, \
                  0x80000000, !P4` with c[0x2][0x0] = 0x8000001e: the overflow tests take the operands -FLO and \
                  0x8000001e (negative), not clz and 0x7fffffff, so P0 never holds and clz + 0x7fffffff wraps \
                  (0x80000000 .. 0x8000001f) instead of saturating to 0x7fffffff. Seed 14352 of the issue-25 \
                  campaign (--avoid-open-issues). A value mismatch (M = C != P).",
        case: "ptxas_clz_addsat_fold",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| {
                w.feeds(
                    |i| family(i) == "clz",
                    |i| matches!(family(i), "add" | "sub") && has(i, "sat"),
                )
            }),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "clz.b32 of a nonzero r2 is 0..31 and clz + 2147483647 overflows for clz >= 1: add.sat.s32 gives 0x7fffffff. ptxas's P0 needs c[0x2][0x0] non-negative, which 0x8000001e is not, and its P4 needs R11 non-negative, so it stores the wrapped sum 0x8000001e - FLO.",
    },
    Issue {
        id: "ptxas-abs-sat-zero",
        component: Component::Ptxas,
        summary: "ptxas 13.5 drops abs.f32 of a saturated f32 result, assuming it is non-negative\n\
                  `sub.rm.sat.f32 f2, f1, f2; ...; @!p abs.f32 f1, f2;` becomes `FADD.RM.SAT R10, -R0, R9; \
                  FSEL R31, R10, R28, !P1` with no |R10|: a saturated result is in [0.0, 1.0], but -0.0 \
                  is in that range (x - x rounded toward minus infinity is -0.0) and abs must clear its \
                  sign. Seeds 3942 and 6223 (generator r2, --avoid-open-issues). The interpreter and \
                  ptxc give +0.0, ptxas -0.0 (ptxc != ptxas, both accepted by the interpreter's rule \
                  for the sign of a saturated zero). Where the zero is then divided into, the sign \
                  decides the infinity: `sub.rm.sat.f32 f2, 0f00000000, f0; abs.f32 f0, f2; div.rn.f32 \
                  f1, 0f00000001, f0;` becomes `FADD.RM.SAT R7, RZ, -R4; MUFU.RCP R0, R7` (the other \
                  steps take -|R7|): ptxas gives -inf where |-0.0| gives +inf (seed 702102, a value \
                  mismatch M = C != P).",
        case: "ptxas_abs_sat_zero",
        shows: &[
            Sign {
                kind: Kind::CompilersDiffer,
                how: How::Word(sat_into_abs_f32),
            },
            Sign {
                kind: Kind::OracleDiffers,
                how: How::Word(sat_into_abs_f32),
            },
        ],
        avoid: None,
        evidence: Evidence::Model(
            "FADD/FFMA with .SAT keep the sign of a -0.0 result (the simulator's model, which the equivalence rule for saturated zeros also rests on); ptxas's SASS shows the abs dropped, and the stored value is wrong only if the hardware's saturating unit returns -0.0",
        ),
        expected: "abs.f32 clears the sign bit (PTX: abs takes the absolute value; |-0.0| = +0.0): f1 = +0.0 (0x00000000) where the saturated difference is -0.0. ptxas stores the saturated value itself, 0x80000000.",
    },
    Issue {
        id: "ptxas-cvt-sat-zero",
        component: Component::Ptxas,
        summary: "ptxas 13.5 merges or drops a float cvt.sat after float arithmetic, keeping a -0.0 its own conversion turns into +0.0\n\
                  `add.rp.ftz.sat.f32 f0, f1, f1; cvt.sat.f64.f32 fd0, f0;` becomes `FADD.FTZ.RP.SAT R9, R3, R3; \
                  F2F.F64.F32 R6, R9` with no clamp (the saturated input is taken to be in [0.0, 1.0] \
                  already; seed 26108), and `fma.rn.f32 f0, 0f00000001, f0, 0f00000000; cvt.sat.f32.f32 \
                  f0, f0;` becomes one `FFMA.SAT R7, R2, 1.4e-45, RZ` (seed 38200). Where the arithmetic \
                  gives -0.0, the conversion as ptxas compiles it alone gives +0.0 (`FADD.SAT R0, RZ, R0` \
                  for cvt.sat.f32.f32: +0.0 + -0.0 = +0.0; `DSETP.MAX` with +0.0 for cvt.sat.f64.f32; \
                  `F2F.F16.F32; HADD2.SAT` for cvt.rn.sat.f16.f32, dropped to a bare F2F after FFMA.SAT in \
                  seed 50904), as the interpreter and ptxc do; merged or dropped, -0.0 stays. Seeds 26108, 38200, \
                  39551, 50904, 53629, 67140 (generator r2, --avoid-open-issues). ptxc != ptxas, both accepted by the interpreter's \
                  rule for the sign of a saturated zero.",
        case: "ptxas_cvt_sat_zero",
        shows: &[Sign {
            kind: Kind::CompilersDiffer,
            how: How::Word(|w| {
                w.feeds(
                    |i| float_arith(i) && !ops::is_cvt(i),
                    |i| {
                        ops::is_sat_cvt(i)
                            && ops::cvt_from(i, &["f32", "f64"])
                            && ops::cvt_to(i, &["f16", "f32", "f64"])
                    },
                )
            }),
        }],
        avoid: None,
        evidence: Evidence::Model(
            "FADD/FFMA with .SAT keep the sign of a -0.0 result, DSETP.MAX orders -0.0 below +0.0 and HADD2.SAT gives +0.0 for -0.0 (the simulator's models, which the equivalence rule for saturated zeros also rests on): ptxas's SASS shows the conversion merged or dropped, and its -0.0 differs from what its own code for the conversion gives only under these models",
        ),
        expected: "cvt.sat of -0.0 gives +0.0 (0x0), as ptxas's own code for the conversion alone (FADD.SAT R, RZ, x: +0.0 + -0.0 = +0.0; DSETP.MAX with +0.0 for f64) and the interpreter give; on the regression case ptxas converts without the clamp and stores 0x8000000000000000.",
    },
    Issue {
        id: "ptxas-pred-pair-guarded",
        component: Component::Ptxas,
        summary: "ptxas 13.5 miscompiles two predicate operations on the same two predicates when one is guarded by one of them\n\
                  ptxas merges them into two PLOP3s over the pair and gets a truth table wrong: \
                  `and.pred %p2, %p0, %p1; @%p1 or.pred %p1, %p1, %p0;` gives p1 the table 0x0 (false; \
                  the guarded or leaves p1 unchanged; seed 20419), and `or.pred %p2, %p0, %p1; @%p1 \
                  mov.pred %p0, %p0;` gives p2 the table 0x80 (p0 & p1, where the or is p0 | p1; seed \
                  31328). Without the guard, or with another operation on the pair, ptxas is right. \
                  Generator r2, --avoid-open-issues. A value mismatch (M = C != P).",
        case: "ptxas_pred_pair_guarded",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(pred_pair_guarded),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "On the regression case (seed 20419) p1 keeps its value: where p1 is true, p1 | p0 is true; where it is false the guard skips the write. ptxas's `PLOP3.LUT P1, PT, P0, P2, PT, 0x0, 0x0` writes false, so p1 = 0 where it was 1.",
    },
    Issue {
        id: "ptxas-cvt-rz-f16-roundtrip",
        component: Component::Ptxas,
        summary: "ptxas 13.5 drops the f16 truncation of cvt.rz.f16.f32 when the f16 is converted back to f32\n\
                  `cvt.rz.f16.f32 %h0, 0f00000001; ...; cvt.ftz.f32.f16 %f0, %h0;` becomes `IMAD.MOV.U32 R13, \
                  RZ, RZ, 0x1` for f0 (and h0 is rounded, to nearest, only where it is stored): f0 = \
                  0x00000001 where the f16 truncation gives +0.0; with 0f3f801fff, f0 = 0x3f801fff where it \
                  is 1.0. With .rm or .rn ptxas converts the immediate (`F2F.F16.F32.RM R0, 1.00097...`). In \
                  the unshrunk program the source is a register (`cvt.rz.f16.f32 %h0, %f0; @%p1 cvt.ftz.f32.f16 \
                  %f1, %h0;` stores f0's value, 0xc906f275 where the truncation gives -65504, 0xc77fe000). \
                  Seed 28603 (generator r2, --avoid-open-issues). A value mismatch (M = C != P).",
        case: "ptxas_cvt_rz_f16_roundtrip",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| {
                w.feeds(
                    |i| ops::cvt_to(i, &["f16"]) && ops::cvt_from(i, &["f32"]) && has(i, "rz"),
                    |i| ops::cvt_from(i, &["f16"]) && ops::cvt_to(i, &["f32", "f64"]),
                )
            }),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "cvt.rz.f16.f32 of 2^-149 truncates to +0.0 (0x0000); cvt.ftz.f32.f16 of it is +0.0 (0x00000000). ptxas stores the f32 immediate, 0x00000001.",
    },
    Issue {
        id: "ptxas-f2i64-narrow-nan",
        component: Component::Ptxas,
        summary: "ptxas 13.5 folds a saturating 64-to-32-bit cvt of a float-to-64-bit-integer cvt into one conversion with NaN to zero\n\
                  `cvt.rzi.s64.f32 rd0, f0; cvt.sat.s32.s64 r0, rd0;` becomes `F2I.S64.TRUNC R6, R3` for rd0 and \
                  `F2I.TRUNC.NTZ R9, R3` for r0: for a NaN f0, rd0 = 0x8000000000000000 (a NaN converts to \
                  1 << 63 for a 64-bit destination) saturates to INT_MIN, 0x80000000, where the folded f32-to-s32 \
                  conversion gives 0. Seed 31460; from f16 too (`cvt.rpi.s64.f16` / `cvt.rmi.s64.f16`, seeds 60175, \
                  63170; generator r2, --avoid-open-issues). A value mismatch \
                  (M = C != P).",
        case: "ptxas_f2i64_narrow_nan",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| {
                w.feeds(
                    |i| ops::cvt_from(i, &["f16", "f32"]) && ops::cvt_to(i, &["s64", "u64"]),
                    |i| {
                        ops::is_sat_cvt(i)
                            && ops::cvt_from(i, &["s64", "u64"])
                            && ops::cvt_to(i, &["s32", "u32", "s16", "u16", "s8", "u8"])
                    },
                )
            }),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "cvt.rzi.s64.f32 of a NaN is 0x8000000000000000 (PTX ISA 9.0, cvt: a NaN converts to 1 << (w - 1) when the destination is 64-bit; ptxas's own F2I.S64.TRUNC gives it for rd0); cvt.sat.s32.s64 saturates it to 0x80000000. ptxas's folded F2I.TRUNC.NTZ gives 0.",
    },
    Issue {
        id: "ptxas-max-sat-zero",
        component: Component::Ptxas,
        summary: "ptxas 13.5 replaces max.f32 of a saturated result and a negative immediate by an add of +0.0, turning -0.0 into +0.0\n\
                  `mul.rz.sat.f32 f2, 0f00000000, f0; max.ftz.f32 f1, 0f85F36A8C, f2;` becomes `FMUL.RZ.SAT R7, \
                  RZ, R3; FADD.FTZ.SAT R9, RZ, R7`: a saturated result is in [0.0, 1.0], so the max is the \
                  saturated value, but where it is -0.0 the max is -0.0 and +0.0 + -0.0 gives +0.0. ptxc keeps \
                  the FMNMX. Seed 53457 (generator r2, --avoid-open-issues). ptxc != ptxas, both accepted by \
                  the interpreter's rule for the sign of a saturated zero.",
        case: "ptxas_max_sat_zero",
        shows: &[Sign {
            kind: Kind::CompilersDiffer,
            how: How::Word(|w| {
                w.feeds(
                    |i| ops::sat_f32(i) && !ops::is_cvt(i),
                    |i| matches!(family(i), "max" | "min") && i.op.ends_with(".f32") && ops::has_imm(i),
                )
            }),
        }],
        avoid: None,
        evidence: Evidence::Model(
            "FADD/FMUL/FFMA with .SAT keep the sign of a -0.0 result (the simulator's model, which the equivalence rule for saturated zeros also rests on): ptxas's SASS shows the max replaced by an add of +0.0, and the stored value is wrong only if the saturating unit returns -0.0",
        ),
        expected: "max.ftz.f32 of 0f85F36A8C (-2.29e-35) and -0.0 is -0.0 (0x80000000), the larger input; ptxas's FADD.FTZ.SAT R9, RZ, R7 gives +0.0 + -0.0 = +0.0.",
    },
    Issue {
        id: "ptxas-addsat-unroll",
        component: Component::Ptxas,
        summary: "ptxas 13.5 merges unrolled iterations of `mul.lo; add.sat.s32 r, x, x` into multiplies by 2n, dropping the saturation\n\
                  A loop of `mov.u32 %xt2, %nctaid.x; mul.lo.u32 %r0, %r1, %xt2; add.sat.s32 %r1, %r0, %r0;` is \
                  unrolled four times, and the first three copies become `IMAD R9, R9, R2, RZ` with R2 = 2n: \
                  only the last copy saturates (`IMAD.IADD; PLOP3 ...SIGN; SEL 0x7fffffff; SEL 0x80000000`), so \
                  an overflow of r0 + r0 in another copy wraps where the PTX saturates (r1 = 0x7fffffff where it \
                  is 0x80000000). Seed 57659 (generator r2, --avoid-open-issues). A value mismatch \
                  (M = C != P).",
        case: "ptxas_addsat_unroll",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| {
                w.feeds(
                    |i| i.op == "add.sat.s32" && i.srcs.len() == 2 && i.srcs[0] == i.srcs[1],
                    |i| family(i) == "mul",
                ) && w.in_loop_with(|i| i.op == "add.sat.s32")
            }),
        }],
        avoid: None,
        evidence: Evidence::Sass,
        expected: "Every iteration saturates r0 + r0 to [INT_MIN, INT_MAX]: on the regression case thread 0's r1 = 0x80000000. ptxas multiplies by 2n without saturation in three of four unrolled iterations and stores 0x7fffffff.",
    },
    Issue {
        id: "ptxas-f16-widen-roundtrip",
        component: Component::Ptxas,
        summary: "ptxas 13.5 rebuilds an f16 register from its f32 widening, changing a NaN's bits that an integer conversion then reads\n\
                  `@!p1 sub.rn.f16 h0, h0, h0; ...; cvt.rm.f32.u8 f0, h0; cvt.f32.f16 f1, h0;` becomes `SEL R0, R0, R5, !P0; \
                  HADD2.F32 R0, R0.H0_H0, -RZ.H0_H0; HADD2 R0, R0.F32, -RZ.H0_H0; ...; I2F.U8.RM R13, R0`: the u8 \
                  conversion (and the u16 store) read f16(f32(h0)), not h0. The round trip is the identity except \
                  on NaNs: h0 = 0x7c01 (a signalling NaN from the input, the sub not executed) comes back as the \
                  canonical 0x7fff, and f0 is 255.0 where the low byte of h0 gives 1.0. Seed 89231 (generator r2, \
                  --avoid-open-issues). A value mismatch (M = C != P).",
        case: "ptxas_f16_widen_roundtrip",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(f16_bits_beside_widening),
        }],
        avoid: None,
        evidence: Evidence::Model(
            "HADD2 returns the canonical NaN for a NaN operand (0x7fffffff widened, 0x7fff narrowed), the simulator's model of NVIDIA's half-precision arithmetic; ptxas's SASS shows the register rebuilt by the round trip, which changes the stored bits only if the hardware does not keep a NaN's payload through HADD2.F32 and HADD2 .F32",
        ),
        expected: "h0 keeps its bits, 0x7c01, where the guarded sub does not execute; cvt.rm.f32.u8 of its low byte, 0x01, gives 1.0 (0x3f800000). ptxas converts the low byte of the round-tripped 0x7fff and stores 255.0 (0x437f0000).",
    },
    Issue {
        id: "ptxas-neg32-sat",
        component: Component::Ptxas,
        summary: "ptxas 13.5 tests a saturating narrowing of a neg.s32 result on the operand, assuming the negation cannot overflow\n\
                  `neg.s32 r2, r0; cvt.sat.u8.s32 r1, r2;` becomes `ISETP.GT.AND P0, PT, R3, RZ; ISETP.LE.AND P1, PT, \
                  R3, -0xff; IADD3 R0, RZ, -R3, RZ; SEL R0, R0, RZ, !P0; SEL R7, R0, 0xff, !P1`: -r0 < 0 is tested as \
                  r0 > 0 and -r0 >= 255 as r0 <= -255. For r0 = INT_MIN the PTX negation wraps to INT_MIN \
                  (saturated to u8: 0); ptxas's tests give 255. Seed 8192 (generator r3, --avoid-open-issues). \
                  A value mismatch (M = C != P).",
        case: "ptxas_neg32_sat",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(|w| {
                w.feeds(
                    |i| i.op == "neg.s32",
                    |i| ops::is_sat_cvt(i) && ops::cvt_to(i, INTEGER_TYPES),
                )
            }),
        }],
        avoid: None,
        evidence: Evidence::Spec(
            "neg.s32 of INT_MIN wraps to INT_MIN (two's complement, as add and sub do): the PTX specification describes neg as -a and does not state the result for the most negative value",
        ),
        expected: "neg.s32 of 0x80000000 is 0x80000000 (wrap-around), which cvt.sat.u8.s32 clamps to 0. ptxas's comparisons on the operand (r0 > 0 false, r0 <= -255 true) give 255.",
    },
    Issue {
        id: "ptxas-hmma-const-neg",
        component: Component::Ptxas,
        summary: "ptxas 13.5 folds the sign of a constant f16x2 mma fragment into HMMA's operand negation as if it were one f32\n\
                  `xor.b32 r1, 0xDD00BC62, 0; mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {..}, {..}, {r1}, {..};` \
                  becomes `MOV R10, 0x5d00bc62; HMMA.1688.F16 R10, R8, -R10, R6`, and a B of 0xad7d21fb (`shf.l.clamp`) \
                  becomes `MOV R12, 0x2d7d21fb; HMMA.1688.F32 R12, R6, -R12, R8`: the constant's bit 31 (the sign of \
                  the upper f16 only) is cleared and the whole operand negated. With the negation of an HMMA \
                  operand negating each f16 element, as the simulator models it, the lower element's sign is \
                  flipped too and the products change sign. Seeds 47235 and 69927 (generator r3, \
                  --avoid-open-issues). A value mismatch (M = C != P).",
        case: "ptxas_hmma_const_neg",
        shows: &[Sign {
            kind: Kind::OracleDiffers,
            how: How::Word(mma_of_constant),
        }],
        avoid: None,
        evidence: Evidence::Model(
            "the negation bit of an HMMA operand negates each f16 element of the register (the simulator's model, as HADD2 and HFMA2 negate both halves; ptxas compiles neg.f16x2 as HADD2 -R, and never folds it into HMMA); if the hardware's HMMA negation flipped bit 31 alone, ptxas's folding would be right and the simulator wrong. No published measurement of HMMA's operand negation was found",
        ),
        expected: "The fragment holds the constant as written, 0xdd00bc62 (elements 0xbc62 and 0xdd00); the mma of the regression case gives 0x75947594 for thread 0's second D register (r3). ptxas's -{0xbc62, 0x5d00} = {0x3c62, 0xdd00} under per-element negation gives 0x76177617.",
    },
];
