//! The meaning of every instruction: one function per operation, chosen once at load time
//! from the table [`TABLE`] by the form's mnemonic, and helpers that apply a per-lane
//! function to whole 32-lane register rows.

mod atomic;
mod bits;
mod conv;
mod fchk;
mod float;
mod flow;
mod fp64;
mod half;
mod int;
mod mem;
mod mufu;
mod special;
mod uniform;
mod warp_ops;

pub use flow::{bar_count, bar_id, release_barriers, release_convergence};
pub use mem::{Space, address_of, space_of, space_of_mnemonic};

use super::ctx::Ctx;
use super::warp::{Row, WARP, Warp, lanes};
use crate::decoded::{Decoded, Dst};
use crate::error::SimError;

/// Runs one instruction for the lanes of `group` (all at `d.pc`); `exec` are the lanes whose
/// guard holds. Functions of control-flow instructions move the program counters
/// themselves; every other instruction is followed by an advance of `group`.
pub type ExecFn = fn(&mut Ctx<'_, '_>, &mut Warp, &Decoded, u32, u32) -> Result<(), SimError>;

/// Mnemonic (as the ISA description spells it) → semantics. Control-flow instructions are
/// marked so that the engine does not advance their lanes.
pub const TABLE: &[(&str, ExecFn, bool)] = &[
    ("MOV", int::mov, false),
    ("IADD3", int::iadd3, false),
    ("IMAD", int::imad, false),
    ("IMAD.WIDE", int::imad_wide, false),
    ("IMAD.HI", int::imad_hi, false),
    ("LEA", int::lea, false),
    ("LOP3.LUT", int::lop3, false),
    ("SHF", int::shf, false),
    ("ISETP", int::isetp, false),
    ("SEL", int::sel, false),
    ("IMNMX", int::imnmx, false),
    ("IABS", int::iabs, false),
    ("PLOP3.LUT", int::plop3, false),
    ("P2R", int::p2r, false),
    ("R2P", int::r2p, false),
    ("IDP", int::idp, false),
    ("IDP.4A", int::idp, false),
    ("IDP.2A", int::idp, false),
    ("VABSDIFF", int::vabsdiff, false),
    ("PRMT", bits::prmt, false),
    ("SGXT", bits::sgxt, false),
    ("BMSK", bits::bmsk, false),
    ("POPC", bits::popc, false),
    ("FLO", bits::flo, false),
    ("BREV", bits::brev, false),
    ("FADD", float::fadd, false),
    ("FMUL", float::fmul, false),
    ("FFMA", float::ffma, false),
    ("FSETP", float::fsetp, false),
    ("FSET", float::fset, false),
    ("FMNMX", float::fmnmx, false),
    ("FSEL", float::fsel, false),
    ("FCHK", fchk::fchk, false),
    ("MUFU", mufu::mufu, false),
    ("DADD", fp64::dadd, false),
    ("DMUL", fp64::dmul, false),
    ("DFMA", fp64::dfma, false),
    ("DSETP", fp64::dsetp, false),
    ("HADD2", half::hadd2, false),
    ("HMUL2", half::hmul2, false),
    ("HFMA2", half::hfma2, false),
    ("HFMA2.MMA", half::hfma2, false),
    ("HSETP2", half::hsetp2, false),
    ("HSET2", half::hset2, false),
    ("HMNMX2", half::hmnmx2, false),
    ("I2F", conv::i2f, false),
    ("F2I", conv::f2i, false),
    ("F2F", conv::f2f, false),
    ("FRND", conv::frnd, false),
    ("I2I", conv::i2i, false),
    ("I2IP", conv::i2ip, false),
    ("S2R", special::s2r, false),
    ("CS2R", special::cs2r, false),
    ("S2UR", special::s2ur, false),
    ("LDG", mem::load, false),
    ("LDS", mem::load, false),
    ("LDL", mem::load, false),
    ("LD", mem::load, false),
    ("STG", mem::store, false),
    ("STS", mem::store, false),
    ("STL", mem::store, false),
    ("ST", mem::store, false),
    ("LDC", mem::ldc, false),
    ("ULDC", mem::uldc, false),
    ("LDSM", mem::ldsm, false),
    ("ATOMG", atomic::atom, false),
    ("ATOMS", atomic::atom, false),
    ("ATOM", atomic::atom, false),
    ("RED", atomic::red, false),
    ("SHFL", warp_ops::shfl, false),
    ("VOTE", warp_ops::vote, false),
    ("VOTEU", warp_ops::voteu, false),
    ("MATCH", warp_ops::match_, false),
    ("UMOV", uniform::umov, false),
    ("UIADD3", uniform::uiadd3, false),
    ("ULOP3.LUT", uniform::ulop3, false),
    ("USHF", uniform::ushf, false),
    ("USEL", uniform::usel, false),
    ("UISETP", uniform::uisetp, false),
    ("ULEA", uniform::ulea, false),
    ("UIMAD", uniform::uimad, false),
    ("UIMAD.WIDE", uniform::uimad_wide, false),
    ("UPOPC", uniform::upopc, false),
    ("UPRMT", uniform::uprmt, false),
    ("USGXT", uniform::usgxt, false),
    ("UBREV", uniform::ubrev, false),
    ("UFLO", uniform::uflo, false),
    ("UBMSK", uniform::ubmsk, false),
    ("UPLOP3.LUT", uniform::uplop3, false),
    ("R2UR", uniform::r2ur, false),
    ("BRA", flow::bra, true),
    ("BRX", flow::brx, true),
    ("JMP", flow::jmp, true),
    ("EXIT", flow::exit, true),
    ("BSSY", flow::bssy, false),
    ("BSYNC", flow::bsync, true),
    ("BMOV", flow::bmov, false),
    ("BMOV.32", flow::bmov, false),
    ("BMOV.64", flow::bmov, false),
    ("BREAK", flow::brk, false),
    ("WARPSYNC", flow::warpsync, true),
    ("CALL", flow::call, true),
    ("CALL.REL", flow::call, true),
    ("CALL.ABS", flow::call, true),
    ("RET", flow::ret, true),
    ("RET.REL", flow::ret, true),
    ("RET.ABS", flow::ret, true),
    ("BAR", flow::bar, true),
    ("BPT", flow::bpt, true),
    ("NOP", flow::nop, false),
    ("DEPBAR", flow::nop, false),
    ("MEMBAR", flow::nop, false),
    ("ERRBAR", flow::nop, false),
    ("CCTL", flow::nop, false),
    ("CCTLL", flow::nop, false),
    ("YIELD", flow::nop, false),
    ("NANOSLEEP", flow::nop, false),
    ("PMTRIG", flow::nop, false),
    ("LEPC", special::lepc, false),
    ("B2R", flow::b2r, false),
    ("QSPC", mem::qspc, false),
];

/// The semantics of `d` and whether it moves program counters itself.
pub fn select(d: &Decoded) -> (ExecFn, bool) {
    let Some(inst) = &d.inst else {
        return (undecodable, false);
    };
    let mnemonic = inst.desc().mnemonic;
    let lookup = |m: &str| TABLE.iter().find(|(n, _, _)| *n == m).map(|&(_, f, flow)| (f, flow));
    lookup(mnemonic)
        .or_else(|| lookup(mnemonic.split('.').next().unwrap_or(mnemonic)))
        .unwrap_or((unsupported, false))
}

/// An instruction without semantics: a fault naming it.
pub fn unsupported(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, _: u32) -> Result<(), SimError> {
    Err(SimError::Unsupported {
        at: ctx.at(w, group.trailing_zeros() as usize, d.pc),
        what: d.text(),
    })
}

/// An instruction the decoder did not recognise.
pub fn undecodable(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, _: u32) -> Result<(), SimError> {
    Err(SimError::Unsupported {
        at: ctx.at(w, group.trailing_zeros() as usize, d.pc),
        what: format!(
            "an instruction the decoder does not know ({})",
            d.decode_error.as_deref().unwrap_or("?")
        ),
    })
}

/// Writes `f(lane)` for the lanes of `exec` to the destination register.
#[inline]
pub fn each(w: &mut Warp, d: &Decoded, exec: u32, mut f: impl FnMut(&Warp, usize) -> u32) {
    let mut out = [0u32; WARP];
    if exec == u32::MAX {
        for (l, o) in out.iter_mut().enumerate() {
            *o = f(w, l);
        }
    } else {
        for l in lanes(exec) {
            out[l] = f(w, l);
        }
    }
    write_dst(w, &d.dst, exec, &out);
}

/// Writes a row to a (non-uniform, 32-bit) destination.
#[inline]
pub fn write_dst(w: &mut Warp, dst: &Dst, exec: u32, out: &Row) {
    w.write_row(dst.reg, exec, out);
}

/// Writes a 64-bit value per lane to a register-pair destination.
#[inline]
pub fn write_dst64(w: &mut Warp, dst: &Dst, exec: u32, out: &[u64; WARP]) {
    w.write_row64(dst.reg, exec, out);
}

/// Combines a comparison with the predicate source (`.AND/.OR/.XOR`).
#[inline]
pub fn combine(bop: u8, r: bool, p: bool) -> bool {
    match bop {
        0 => r && p,
        1 => r || p,
        _ => r ^ p,
    }
}

/// Writes the two results of a compare (`r` and `!r`, each combined with the predicate
/// source) to the predicate destinations.
pub fn set_compare(w: &mut Warp, d: &Decoded, exec: u32, results: u32) {
    let p = w.pred_mask(d.ps[0], exec);
    let mut p0 = 0u32;
    let mut p1 = 0u32;
    for l in lanes(exec) {
        let (r, pin) = ((results >> l) & 1 == 1, (p >> l) & 1 == 1);
        p0 |= (combine(d.m.bop, r, pin) as u32) << l;
        p1 |= (combine(d.m.bop, !r, pin) as u32) << l;
    }
    w.set_pred(d.pd[0].idx, exec, p0);
    w.set_pred(d.pd[1].idx, exec, p1);
}
