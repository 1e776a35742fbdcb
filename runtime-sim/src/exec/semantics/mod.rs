//! The meaning of every instruction: one function per operation, chosen once at load time by
//! an exhaustive `match` on the form's [`Op`], and helpers that apply a per-lane function to
//! whole 32-lane register rows.

mod async_copy;
mod atomic;
mod bits;
mod bulk;
pub mod cluster;
mod conv;
mod fchk;
mod float;
mod flow;
mod fp64;
mod gmma;
mod half;
mod int;
mod matrix_desc;
mod mem;
mod mma;
mod mufu;
mod special;
mod syncs;
mod uniform;
mod warp_ops;

pub use async_copy::apply_arrivals;

pub use flow::{bar_count, bar_id, release_barriers, release_convergence};
pub use mem::{Space, address_of, read_bytes, space_of, space_of_op, write_bytes};

use super::ctx::Ctx;
use super::warp::{Row, WARP, Warp, lanes};
use crate::decoded::{Decoded, Dst};
use crate::error::SimError;
use ptxc_sass::isa::Op;
use ptxc_sass::isa::values::BoolOp;

/// Runs one instruction for the lanes of `group` (all at `d.pc`); `exec` are the lanes whose
/// guard holds. Functions of control-flow instructions move the program counters
/// themselves; every other instruction is followed by an advance of `group`.
pub type ExecFn = fn(&mut Ctx<'_, '_>, &mut Warp, &Decoded, u32, u32) -> Result<(), SimError>;

/// The semantics of `d` and whether it moves program counters itself (control flow).
pub fn select(d: &Decoded) -> (ExecFn, bool) {
    if d.inst.is_none() {
        return (undecodable, false);
    }
    (of_op(d.op), moves_pc(d.op))
}

/// The function that runs operation `op`: every operation of the ISA description has one.
fn of_op(op: Op) -> ExecFn {
    match op {
        Op::Mov => int::mov,
        // VIADD is IADD3 without C, carries or predicate outputs.
        Op::Iadd3 | Op::Viadd => int::iadd3,
        Op::Imad => int::imad,
        Op::ImadWide => int::imad_wide,
        Op::ImadHi => int::imad_hi,
        Op::Lea | Op::LeaHi => int::lea,
        Op::Lop3 => int::lop3,
        Op::Shf => int::shf,
        Op::Isetp => int::isetp,
        Op::Sel => int::sel,
        Op::Imnmx => int::imnmx,
        Op::Viaddmnmx => int::viaddmnmx,
        Op::Iabs => int::iabs,
        Op::Plop3 => int::plop3,
        Op::P2r => int::p2r,
        Op::R2p => int::r2p,
        Op::Idp => int::idp,
        Op::Vabsdiff => int::vabsdiff,
        Op::Prmt => bits::prmt,
        Op::Sgxt => bits::sgxt,
        Op::Bmsk => bits::bmsk,
        Op::Popc => bits::popc,
        Op::Flo => bits::flo,
        Op::Brev => bits::brev,
        Op::Fadd => float::fadd,
        Op::Fmul => float::fmul,
        Op::Ffma => float::ffma,
        Op::Fsetp => float::fsetp,
        Op::Fset => float::fset,
        Op::Fmnmx => float::fmnmx,
        Op::Fsel => float::fsel,
        Op::Fchk => fchk::fchk,
        Op::Mufu => mufu::mufu,
        Op::Dadd => fp64::dadd,
        Op::Dmul => fp64::dmul,
        Op::Dfma => fp64::dfma,
        Op::Dsetp => fp64::dsetp,
        Op::Hadd2 => half::hadd2,
        Op::Hmul2 => half::hmul2,
        Op::Hfma2 => half::hfma2,
        Op::Hmnmx2 => half::hmnmx2,
        Op::Hsetp2 => half::hsetp2,
        Op::Hset2 => half::hset2,
        Op::I2f => conv::i2f,
        Op::F2i => conv::f2i,
        Op::F2f => conv::f2f,
        Op::Frnd => conv::frnd,
        Op::I2i => conv::i2i,
        Op::I2ip => conv::i2ip,
        Op::F2fp => conv::f2fp,
        Op::F2ip => conv::f2ip,
        Op::S2r => special::s2r,
        Op::Cs2r => special::cs2r,
        Op::S2ur => special::s2ur,
        Op::Lepc => special::lepc,
        Op::Ldg | Op::Lds | Op::Ldl | Op::Ld => mem::load,
        Op::Stg | Op::Sts | Op::Stl | Op::St => mem::store,
        Op::Ldc => mem::ldc,
        Op::Uldc => mem::uldc,
        Op::Ldsm => mem::ldsm,
        Op::Stsm => mem::stsm,
        Op::Hmma1688 => mma::hmma1688,
        Op::Hmma16816 => mma::hmma16816,
        Op::Imma16816 | Op::Imma16832 | Op::Imma16864 => mma::imma_m16n8,
        Op::Hmma1684 => mma::hmma1684,
        Op::Bmma168128 | Op::Bmma168256 => mma::bmma_m16n8,
        Op::Hmma884 => mma::hmma884,
        Op::Imma => mma::imma,
        Op::Bmma => mma::bmma,
        Op::Movm => mma::movm,
        Op::Dmma => mma::dmma,
        Op::Qspc => mem::qspc,
        Op::Atomg | Op::AtomgCas | Op::Atoms | Op::AtomsCas | Op::Atom | Op::AtomCas => atomic::atom,
        Op::Red => atomic::red,
        Op::AtomsPopcInc => atomic::atoms_popc_inc,
        Op::AtomsArrive | Op::AtomArrive => atomic::atoms_arrive,
        Op::AtomPopcInc => atomic::atoms_popc_inc,
        Op::Ldgsts => async_copy::ldgsts,
        Op::ArrivesLdgstsbar => async_copy::arrives,
        Op::SyncsArrive => syncs::arrive,
        Op::SyncsPhasechk => syncs::phasechk,
        Op::SyncsExch => syncs::exch,
        Op::SyncsCctl => syncs::cctl,
        Op::Shfl => warp_ops::shfl,
        Op::Vote => warp_ops::vote,
        Op::Voteu => warp_ops::voteu,
        Op::Elect => warp_ops::elect,
        Op::Match => warp_ops::match_,
        Op::Redux => warp_ops::redux,
        Op::Umov => uniform::umov,
        Op::Uiadd3 => uniform::uiadd3,
        Op::Uiadd3Wide => uniform::uiadd3_64,
        Op::Ulop3 => uniform::ulop3,
        Op::Ushf => uniform::ushf,
        Op::Usel => uniform::usel,
        Op::Uisetp => uniform::uisetp,
        Op::Ulea => uniform::ulea,
        Op::Uimad => uniform::uimad,
        Op::UimadWide => uniform::uimad_wide,
        Op::Upopc => uniform::upopc,
        Op::Uprmt => uniform::uprmt,
        Op::Usgxt => uniform::usgxt,
        Op::Ubrev => uniform::ubrev,
        Op::Uflo => uniform::uflo,
        Op::Ubmsk => uniform::ubmsk,
        Op::Uplop3 => uniform::uplop3,
        Op::R2ur => uniform::r2ur,
        Op::Bra => flow::bra,
        Op::Exit => flow::exit,
        Op::Bssy => flow::bssy,
        Op::Bsync => flow::bsync,
        Op::Bmov => flow::bmov,
        Op::Break => flow::brk,
        Op::Warpsync => flow::warpsync,
        Op::Call => flow::call,
        Op::Ret => flow::ret,
        Op::Bar => flow::bar,
        Op::Bpt => flow::bpt,
        Op::B2r => flow::b2r,
        // No effect on the results: LDGDEPBAR (the group's copies landed at issue; its
        // scoreboard is the timer's), fences and cache control (the simulated memory is
        // sequentially consistent and uncached for results), scheduling hints (DEPBAR's wait
        // and NANOSLEEP's delay are timing, modelled by the timed engine), and the
        // performance-monitor trigger.
        Op::Nop
        | Op::Ldgdepbar
        | Op::Depbar
        | Op::Membar
        | Op::Errbar
        | Op::Cgaerrbar
        | Op::Cctl
        | Op::Cctll
        | Op::Yield
        | Op::Nanosleep
        | Op::Pmtrig => flow::nop,
        Op::Hgmma => gmma::hgmma,
        Op::FenceViewAsync => gmma::fence_view_async,
        // The fence and the wait order and time HGMMAs (the warp's timer); their results
        // are written at issue.
        Op::WarpgroupArrive | Op::WarpgroupDepbar => flow::nop,
        Op::EndCollective => flow::end_collective,
        Op::Ublkcp => bulk::ublkcp,
        Op::Utmaldg => bulk::utmaldg,
        Op::Utmastg => bulk::utmastg,
        Op::Usetmaxreg => bulk::usetmaxreg,
        // Prefetches and tensor-map cache control change no result; the bulk group's flush is
        // timing (its copies out of shared memory are done at issue).
        Op::Utmapf | Op::Utmacctl | Op::Ublkpf | Op::Utmacmdflush => flow::nop,
        Op::UcgabarArv => cluster::arrive,
        Op::UcgabarWait => cluster::wait,
        // Reductions into global or shared memory through TMA or bulk copies, and the
        // asynchronous stores into other CTAs' shared memory, are described (decoded, printed,
        // timed) but not simulated.
        Op::Utmaredg | Op::Ublkred | Op::Stas | Op::Redas => unsupported,
    }
}

/// True for the operations that move program counters themselves.
fn moves_pc(op: Op) -> bool {
    matches!(
        op,
        Op::Bra | Op::Exit | Op::Bsync | Op::Warpsync | Op::Call | Op::Ret | Op::Bar | Op::Bpt | Op::UcgabarWait
    )
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
pub fn combine(bop: BoolOp, r: bool, p: bool) -> bool {
    match bop {
        BoolOp::And => r && p,
        BoolOp::Or => r || p,
        BoolOp::Xor => r ^ p,
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
