//! Memory instructions of every width and space: LDG/STG (global), LDS/STS (shared),
//! LDL/STL (local), LD/ST (generic: the shared and local windows of `c[0x0][0x18]` and
//! `c[0x0][0x20]`, global otherwise), LDC/ULDC (constant banks), LDSM (matrix loads from
//! shared memory) and QSPC. Every access is bounds- and alignment-checked.

use crate::decoded::{Addr, Decoded, Src};
use crate::error::SimError;
use crate::exec::ctx::{Ctx, LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE, split_shared};
use crate::exec::warp::{WARP, Warp, lanes};
use crate::memory::Access;
use ptxc_sass::isa::Op;
use ptxc_sass::isa::RZ;
use ptxc_sass::isa::values::{LdsmCount, LdsmShape, MemSize, QspcSpace};

type R = Result<(), SimError>;

/// An address space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// Device memory.
    Global,
    /// The CTA's shared memory.
    Shared,
    /// The thread's local memory.
    Local,
    /// Generic: one of the three, by address.
    Generic,
}

impl Space {
    /// Name for messages.
    pub fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Local => "local",
            Space::Generic => "generic",
        }
    }
}

/// The space an instruction accesses (decided once at load time).
#[inline]
pub fn space_of(d: &Decoded) -> Space {
    d.space
}

/// The space operation `op` accesses (global for every operation that accesses none).
pub fn space_of_op(op: Op) -> Space {
    match op {
        Op::Lds
        | Op::Sts
        | Op::Atoms
        | Op::AtomsCas
        | Op::AtomsPopcInc
        | Op::AtomsArrive
        | Op::ArrivesLdgstsbar
        | Op::SyncsArrive
        | Op::SyncsPhasechk
        | Op::SyncsExch
        | Op::SyncsCctl
        | Op::Ldsm => Space::Shared,
        Op::Ldl | Op::Stl => Space::Local,
        Op::Ld | Op::St | Op::Atom | Op::AtomCas | Op::AtomArrive | Op::AtomPopcInc => Space::Generic,
        _ => Space::Global,
    }
}

/// Access size in bytes and sign extension.
pub fn size_of(size: MemSize) -> (usize, bool) {
    (size.bytes() as usize, size.signed())
}

/// The address `[Ra + URb + offset]` of `lane` (before space translation).
#[inline]
pub fn address_of(w: &Warp, a: &Addr, lane: usize) -> u64 {
    let base = if a.base == RZ {
        0
    } else if a.wide {
        w.reg64(a.base, lane)
    } else {
        w.reg(a.base, lane) as u64
    };
    let base = base << a.scale;
    let u = match a.ureg {
        Some(u) if a.ureg_wide || a.wide || a.base == RZ => w.ureg64(u),
        Some(u) => w.ureg(u) as u64,
        None => 0,
    };
    base.wrapping_add(u).wrapping_add(a.offset as i64 as u64)
}

/// The addresses `[Ra + URb + offset]` of all 32 lanes (as [`address_of`] for each).
#[inline(always)]
pub fn address_row(w: &Warp, a: &Addr) -> [u64; WARP] {
    let mut out = [0u64; WARP];
    if a.base != RZ {
        let lo = w.row(a.base);
        if a.wide {
            let hi = w.row(a.base.saturating_add(1));
            for (o, (&l, &h)) in out.iter_mut().zip(lo.iter().zip(hi.iter())) {
                *o = (l as u64 | (h as u64) << 32) << a.scale;
            }
        } else {
            for (o, &l) in out.iter_mut().zip(lo.iter()) {
                *o = (l as u64) << a.scale;
            }
        }
    }
    let u = match a.ureg {
        Some(u) if a.ureg_wide || a.wide || a.base == RZ => w.ureg64(u),
        Some(u) => w.ureg(u) as u64,
        None => 0,
    };
    let add = u.wrapping_add(a.offset as i64 as u64);
    for o in out.iter_mut() {
        *o = o.wrapping_add(add);
    }
    out
}

/// A resolved location.
enum Loc {
    Global(u64),
    Shared(usize),
    /// The shared memory of another CTA of the cluster: its rank and the offset there.
    Peer(u32, usize),
    Local(usize),
}

/// Translates an address of `space` into a location, checking bounds and alignment.
#[inline(always)]
fn locate(
    ctx: &Ctx,
    w: &Warp,
    d: &Decoded,
    space: Space,
    lane: usize,
    addr: u64,
    size: usize,
) -> Result<Loc, SimError> {
    let fault_oob = |space: &'static str| SimError::OutOfBounds {
        at: ctx.at(w, lane, d.pc),
        space,
        addr,
        size: size as u32,
    };
    if !addr.is_multiple_of(size as u64) {
        return Err(SimError::Misaligned {
            at: ctx.at(w, lane, d.pc),
            space: space.name(),
            addr,
            size: size as u32,
        });
    }
    let space = match space {
        Space::Generic if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&addr) => {
            return locate_shared(ctx, w, d, lane, addr - SHARED_WINDOW, size, true);
        }
        Space::Generic if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&addr) => {
            return locate(ctx, w, d, Space::Local, lane, addr - LOCAL_WINDOW, size);
        }
        Space::Generic => Space::Global,
        s => s,
    };
    match space {
        Space::Shared => locate_shared(ctx, w, d, lane, addr, size, reaches_cluster(d.op)),
        Space::Local => {
            let a = addr & 0xffff_ffff;
            if a + size as u64 <= w.local_bytes as u64 {
                Ok(Loc::Local(lane * w.local_bytes as usize + a as usize))
            } else {
                Err(fault_oob("local"))
            }
        }
        _ => Ok(Loc::Global(addr)),
    }
}

/// Instructions with a shared-memory address that may name another CTA of the cluster
/// (`SYNCS.ARRIVE.*.RED` for `mbarrier` operations on shared::cluster barriers, bulk and
/// TMA copies to shared::cluster). The others (LDS, STS, ATOMS, ...) reach their own CTA's memory only;
/// `ld.shared::cluster` and its kin go through generic addresses.
fn reaches_cluster(op: Op) -> bool {
    matches!(op, Op::SyncsArrive | Op::Ublkcp | Op::Utmaldg)
}

/// Translates a shared-memory address (`rank << 24 | offset`, [`split_shared`]) into a
/// location in the own CTA's memory or, when `remote`, another CTA's of the cluster.
#[inline(always)]
fn locate_shared(
    ctx: &Ctx,
    w: &Warp,
    d: &Decoded,
    lane: usize,
    addr: u64,
    size: usize,
    remote: bool,
) -> Result<Loc, SimError> {
    let (rank, offset) = split_shared(addr);
    let place = ctx.cta.cluster;
    let oob = || SimError::OutOfBounds {
        at: ctx.at(w, lane, d.pc),
        space: "shared",
        addr,
        size: size as u32,
    };
    // Every CTA of a launch has the same amount of shared memory.
    if offset + size > ctx.cta.shared.len() {
        return Err(oob());
    }
    if rank == place.rank {
        return Ok(Loc::Shared(offset));
    }
    if rank >= place.size {
        return Err(oob());
    }
    if !remote {
        return Err(SimError::OtherCtaShared {
            at: ctx.at(w, lane, d.pc),
            inst: d.text(),
            rank,
            addr: addr as u32,
        });
    }
    Ok(Loc::Peer(rank, offset))
}

/// Turns a global access result into `Some` (noting stray accesses) or `None` (a fault).
fn global_result(ctx: &mut Ctx, w: &Warp, d: &Decoded, lane: usize, addr: u64, how: Access) -> Option<()> {
    match how {
        Access::Ok => Some(()),
        Access::Stray => {
            let at = ctx.at(w, lane, d.pc);
            ctx.stats
                .stray(|| format!("{at}: access at {addr:#x} past the end of its allocation"));
            Some(())
        }
        Access::Fault => None,
    }
}

/// Reads `out.len()` bytes at a location.
#[inline(always)]
fn read_loc(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, lane: usize, loc: &Loc, out: &mut [u8]) -> Option<()> {
    match *loc {
        Loc::Global(a) => {
            let how = ctx.global.read(a, out);
            global_result(ctx, w, d, lane, a, how)
        }
        Loc::Shared(a) => {
            out.copy_from_slice(ctx.cta.shared.get(a..a + out.len())?);
            Some(())
        }
        Loc::Peer(rank, a) => {
            out.copy_from_slice(ctx.peers.peer(rank)?.shared.get(a..a + out.len())?);
            Some(())
        }
        Loc::Local(a) => {
            if w.local.is_empty() {
                out.fill(0);
                return Some(());
            }
            out.copy_from_slice(w.local.get(a..a + out.len())?);
            Some(())
        }
    }
}

/// Writes bytes at a location.
#[inline(always)]
fn write_loc(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, lane: usize, loc: &Loc, data: &[u8]) -> Option<()> {
    match *loc {
        Loc::Global(a) => {
            let how = ctx.global.write(a, data);
            global_result(ctx, w, d, lane, a, how)
        }
        Loc::Shared(a) => {
            ctx.cta.shared.get_mut(a..a + data.len())?.copy_from_slice(data);
            ctx.cta.note_generic_write(a, data.len(), w.index);
            Some(())
        }
        Loc::Peer(rank, a) => {
            ctx.peers
                .peer(rank)?
                .shared
                .get_mut(a..a + data.len())?
                .copy_from_slice(data);
            Some(())
        }
        Loc::Local(a) => {
            if w.local.is_empty() {
                w.local = vec![0; WARP * w.local_bytes as usize];
            }
            w.local.get_mut(a..a + data.len())?.copy_from_slice(data);
            Some(())
        }
    }
}

/// Reads `size` bytes for `lane` at `addr` in `space`.
#[inline(always)]
pub fn read_bytes(
    ctx: &mut Ctx,
    w: &mut Warp,
    d: &Decoded,
    space: Space,
    lane: usize,
    addr: u64,
    out: &mut [u8],
) -> Result<(), SimError> {
    let loc = locate(ctx, w, d, space, lane, addr, out.len())?;
    read_loc(ctx, w, d, lane, &loc, out).ok_or_else(|| SimError::OutOfBounds {
        at: ctx.at(w, lane, d.pc),
        space: space.name(),
        addr,
        size: out.len() as u32,
    })
}

/// Writes bytes for `lane` at `addr` in `space`.
#[inline(always)]
pub fn write_bytes(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, space: Space, lane: usize, addr: u64, data: &[u8]) -> R {
    let loc = locate(ctx, w, d, space, lane, addr, data.len())?;
    write_loc(ctx, w, d, lane, &loc, data).ok_or_else(|| SimError::OutOfBounds {
        at: ctx.at(w, lane, d.pc),
        space: space.name(),
        addr,
        size: data.len() as u32,
    })
}

/// Loads: every lane of `exec` reads its address; results go to consecutive registers,
/// sub-word values sign- or zero-extended.
pub fn load(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    let Some(a) = d.addr else {
        return super::unsupported(ctx, w, d, group, exec);
    };
    let (size, sign) = size_of(d.m.size);
    let mut rows = [[0u32; WARP]; 4];
    match size {
        1 => load_lanes::<1>(ctx, w, d, &a, exec, sign, &mut rows)?,
        2 => load_lanes::<2>(ctx, w, d, &a, exec, sign, &mut rows)?,
        8 => load_lanes::<8>(ctx, w, d, &a, exec, sign, &mut rows)?,
        16 => load_lanes::<16>(ctx, w, d, &a, exec, sign, &mut rows)?,
        _ => load_lanes::<4>(ctx, w, d, &a, exec, sign, &mut rows)?,
    }
    if d.dst.present() {
        for (k, row) in rows.iter().enumerate().take(size.div_ceil(4)) {
            w.write_row(d.dst.reg.wrapping_add(k as u8), exec, row);
        }
    }
    Ok(())
}

/// Loads `N` bytes per lane into register rows.
#[allow(clippy::too_many_arguments)]
fn load_lanes<const N: usize>(
    ctx: &mut Ctx,
    w: &mut Warp,
    d: &Decoded,
    a: &Addr,
    exec: u32,
    sign: bool,
    rows: &mut [[u32; WARP]; 4],
) -> R {
    let space = space_of(d);
    let mut addrs = [0u64; WARP];
    let mut bufs = [[0u8; N]; WARP];
    let global = global_addresses::<N>(w, a, space, exec, &mut addrs) && ctx.global.read_lanes(&addrs, exec, &mut bufs);
    for l in lanes(exec) {
        let buf = &mut bufs[l];
        if !global {
            read_bytes(ctx, w, d, space, l, address_of(w, a, l), buf)?;
        }
        if N < 4 {
            let mut v = 0u32;
            for (i, b) in buf.iter().enumerate() {
                v |= (*b as u32) << (8 * i);
            }
            let bits = 8 * N as u32;
            if sign {
                v = ((v << (32 - bits)) as i32 >> (32 - bits)) as u32;
            }
            rows[0][l] = v;
        } else {
            for (k, row) in rows.iter_mut().enumerate().take(N / 4) {
                row[l] = u32::from_le_bytes([buf[4 * k], buf[4 * k + 1], buf[4 * k + 2], buf[4 * k + 3]]);
            }
        }
    }
    Ok(())
}

/// Stores: every lane of `exec` writes its data registers.
pub fn store(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    let Some(a) = d.addr else {
        return super::unsupported(ctx, w, d, group, exec);
    };
    match size_of(d.m.size).0 {
        1 => store_lanes::<1>(ctx, w, d, &a, exec),
        2 => store_lanes::<2>(ctx, w, d, &a, exec),
        8 => store_lanes::<8>(ctx, w, d, &a, exec),
        16 => store_lanes::<16>(ctx, w, d, &a, exec),
        _ => store_lanes::<4>(ctx, w, d, &a, exec),
    }
}

/// Stores `N` bytes per lane from the data registers.
fn store_lanes<const N: usize>(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, a: &Addr, exec: u32) -> R {
    let space = space_of(d);
    let (data, _) = d.data.unwrap_or((RZ, 1));
    let mut bufs = [[0u8; N]; WARP];
    for k in 0..N.div_ceil(4) {
        let r = if data == RZ { RZ } else { data.wrapping_add(k as u8) };
        let row = w.row(r);
        let n = (N - 4 * k).min(4);
        for l in lanes(exec) {
            bufs[l][4 * k..4 * k + n].copy_from_slice(&row[l].to_le_bytes()[..n]);
        }
    }
    let mut addrs = [0u64; WARP];
    if global_addresses::<N>(w, a, space, exec, &mut addrs) && ctx.global.write_lanes(&addrs, exec, &bufs) {
        return Ok(());
    }
    for l in lanes(exec) {
        write_bytes(ctx, w, d, space, l, address_of(w, a, l), &bufs[l])?;
    }
    Ok(())
}

/// Fills `addrs` for the lanes of `exec` and says whether they are all naturally aligned
/// global addresses (a generic address outside the shared and local windows is one), the
/// case a warp-wide access handles; anything else goes lane by lane.
#[inline(always)]
fn global_addresses<const N: usize>(w: &Warp, a: &Addr, space: Space, exec: u32, addrs: &mut [u64; WARP]) -> bool {
    if !matches!(space, Space::Global | Space::Generic) {
        return false;
    }
    *addrs = address_row(w, a);
    let mut ok = true;
    for l in lanes(exec) {
        let x = addrs[l];
        ok &= x.is_multiple_of(N as u64);
        if space == Space::Generic {
            ok &= !(SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&x)
                && !(LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&x);
        }
    }
    ok
}

/// The constant-bank operand of LDC/ULDC.
fn const_operand(d: &Decoded) -> Option<(u8, i32, Option<u8>)> {
    [&d.a, &d.b, &d.c].iter().find_map(|s| match s.src {
        Src::Const { bank, offset, reg } => Some((bank, offset, reg)),
        _ => None,
    })
}

/// Reads `size` bytes of a constant bank (sign/zero-extended below 4 bytes).
fn const_value(ctx: &Ctx, bank: u8, offset: i64, size: usize, sign: bool) -> [u32; 4] {
    let mut out = [0u32; 4];
    if size >= 4 {
        for (k, o) in out.iter_mut().enumerate().take(size / 4) {
            *o = ctx.consts.read32(bank, offset + 4 * k as i64);
        }
    } else {
        let word = ctx.consts.read32(bank, offset & !3);
        let shift = 8 * (offset & 3) as u32;
        let bits = 8 * size as u32;
        let v = (word >> shift) & ((1u32 << bits) - 1);
        out[0] = if sign {
            ((v << (32 - bits)) as i32 >> (32 - bits)) as u32
        } else {
            v
        };
    }
    out
}

/// LDC: a constant-bank load with a register index.
pub fn ldc(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    let Some((bank, offset, reg)) = const_operand(d) else {
        return super::unsupported(ctx, w, d, group, exec);
    };
    let (size, sign) = size_of(d.m.size);
    let mut rows = [[0u32; WARP]; 4];
    for l in lanes(exec) {
        let idx = reg.map_or(0, |r| w.reg(r, l) as i32 as i64);
        let v = const_value(ctx, bank, offset as i64 + idx, size, sign);
        for k in 0..4 {
            rows[k][l] = v[k];
        }
    }
    for (k, row) in rows.iter().enumerate().take(size.div_ceil(4)) {
        w.write_row(d.dst.reg.wrapping_add(k as u8), exec, row);
    }
    Ok(())
}

/// ULDC: a constant-bank load into uniform registers.
pub fn uldc(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    let Some((bank, offset, _)) = const_operand(d) else {
        return super::unsupported(ctx, w, d, group, exec);
    };
    if exec == 0 {
        return Ok(());
    }
    let (size, sign) = size_of(d.m.size);
    let v = const_value(ctx, bank, offset as i64, size, sign);
    for (k, &x) in v.iter().enumerate().take(size.div_ceil(4)) {
        w.set_ureg(d.dst.reg.wrapping_add(k as u8), x);
    }
    Ok(())
}

/// LDSM: loads 8x8 matrices of 16-bit elements from shared memory; lanes 8i..8i+7 give
/// the row addresses of matrix i, and lane l receives row l/4, elements 2(l%4) and
/// 2(l%4)+1 (or, transposed, column l/4).
pub fn ldsm(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    let Some(a) = d.addr else {
        return super::unsupported(ctx, w, d, group, exec);
    };
    let count = match d.m.ldsm_count {
        LdsmCount::X1 => 1,
        LdsmCount::X2 => 2,
        LdsmCount::X4 => 4,
    };
    let transposed = d.m.ldsm_shape == LdsmShape::Mt88;
    let mut rows = [[0u32; WARP]; 4];
    for (m, row_out) in rows.iter_mut().enumerate().take(count) {
        // The 8 rows of matrix m, each 8 halves.
        let mut matrix = [[0u16; 8]; 8];
        for (r, row) in matrix.iter_mut().enumerate() {
            let lane = 8 * m + r;
            let addr = address_of(w, &a, lane);
            let mut buf = [0u8; 16];
            read_bytes(ctx, w, d, Space::Shared, lane, addr, &mut buf)?;
            for (c, x) in row.iter_mut().enumerate() {
                *x = u16::from_le_bytes([buf[2 * c], buf[2 * c + 1]]);
            }
        }
        for l in lanes(exec) {
            let (i, j) = (l / 4, 2 * (l % 4));
            let (x, y) = if transposed {
                (matrix[j][i], matrix[j + 1][i])
            } else {
                (matrix[i][j], matrix[i][j + 1])
            };
            row_out[l] = x as u32 | (y as u32) << 16;
        }
    }
    for (k, row) in rows.iter().enumerate().take(count) {
        w.write_row(d.dst.reg.wrapping_add(k as u8), exec, row);
    }
    Ok(())
}

/// STSM (sm_90): stores 8x8 matrices of 16-bit elements to shared memory, LDSM's inverse:
/// lanes 8i..8i+7 give the row addresses of matrix i, whose row l/4, elements 2(l%4) and
/// 2(l%4)+1 (transposed: column l/4) are register i of lane l. Every lane of the warp takes
/// part (PTX `stmatrix.sync.aligned`).
pub fn stsm(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, group: u32, exec: u32) -> R {
    let (Some(a), Some((data, _))) = (d.addr, d.data) else {
        return super::unsupported(ctx, w, d, group, exec);
    };
    if exec == 0 {
        return Ok(());
    }
    let count = match d.m.ldsm_count {
        LdsmCount::X1 => 1,
        LdsmCount::X2 => 2,
        LdsmCount::X4 => 4,
    };
    let transposed = d.m.ldsm_shape == LdsmShape::Mt88;
    for m in 0..count {
        let regs = w.row(data.wrapping_add(m as u8));
        let mut matrix = [[0u16; 8]; 8];
        for (l, &v) in regs.iter().enumerate() {
            let (i, j) = (l / 4, 2 * (l % 4));
            let (x, y) = (v as u16, (v >> 16) as u16);
            if transposed {
                (matrix[j][i], matrix[j + 1][i]) = (x, y);
            } else {
                (matrix[i][j], matrix[i][j + 1]) = (x, y);
            }
        }
        for (r, row) in matrix.iter().enumerate() {
            let lane = 8 * m + r;
            let bytes: Vec<u8> = row.iter().flat_map(|x| x.to_le_bytes()).collect();
            write_bytes(ctx, w, d, Space::Shared, lane, address_of(w, &a, lane), &bytes)?;
        }
    }
    Ok(())
}

/// QSPC: whether generic addresses fall in the queried window (`.S` shared, `.L` local,
/// `.G` global), into the predicate destination.
pub fn qspc(ctx: &mut Ctx, w: &mut Warp, d: &Decoded, _: u32, exec: u32) -> R {
    let Some(a) = d.addr else {
        return Ok(());
    };
    let place = ctx.cta.cluster;
    let mut r = 0u32;
    for l in lanes(exec) {
        let addr = address_of(w, &a, l);
        let shared = (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&addr);
        let rank = split_shared(addr.wrapping_sub(SHARED_WINDOW)).0;
        let local = (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&addr);
        let hit = match d.m.qspc {
            // `.S`: the own CTA's part of the window; `.D`: any CTA's of the cluster.
            QspcSpace::Shared => shared && rank == place.rank,
            QspcSpace::Cluster => shared && rank < place.size,
            QspcSpace::Local => local,
            QspcSpace::Global => !shared && !local,
        };
        r |= (hit as u32) << l;
    }
    w.set_pred(d.pd[0].idx, exec, r);
    Ok(())
}
