//! The execution engine: CTAs, warps in lock step (minimum position in reverse post-order
//! first), per-thread values, memory accesses, collectives and barriers.

use super::cluster::{Clusters, NO_CLUSTERS};
use super::eval::{CONST_WINDOW, LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE, eval_pure};
use super::memory::{GlobalMemory, Layout, MODULE_BASE, Placement};
use super::{InterpError, LaunchConfig, MAX_STRAY_REPORTS, STEP_LIMIT, Stats};
use crate::analysis::dom::reverse_post_order;
use crate::ir::{AtomOp, Aux, Block, DriverFn, Function, Inst, Opcode, Space, SpecialReg, Type, print::inst_text};
use cranelift_entity::{EntityRef, SecondaryMap};

/// What a thread is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Running,
    /// Waiting at the barrier instruction.
    Waiting(Inst),
    Exited,
}

struct Thread {
    tid: [u32; 3],
    lane: u32,
    block: Block,
    idx: usize,
    state: State,
    vals: Vec<u64>,
    local: Vec<u8>,
}

/// Launch-wide state.
struct Machine<'f, 'm> {
    func: &'f Function,
    cfg: &'f LaunchConfig,
    mem: &'m mut dyn GlobalMemory,
    layout: Layout,
    rpo: SecondaryMap<Block, u32>,
    stats: Stats,
    ctaid: [u32; 3],
    /// The launch's cluster shape.
    clusters: Clusters,
    /// The CTA's rank in its cluster.
    rank: u64,
    shared: Vec<u8>,
    /// Threads that arrived at each of the 16 CTA barriers since it last completed, and at
    /// the cluster's barrier ([`CLUSTER_BARRIER`]).
    arrived: [u32; 17],
}

/// The index of the cluster's barrier among the barriers of `Machine::arrived`.
const CLUSTER_BARRIER: usize = 16;

type Fault = String;

pub fn launch(func: &Function, cfg: &LaunchConfig, mem: &mut dyn GlobalMemory) -> Result<Stats, InterpError> {
    let mut rpo = SecondaryMap::with_default(u32::MAX);
    for (i, b) in reverse_post_order(func).into_iter().enumerate() {
        rpo[b] = i as u32;
    }
    let clusters = Clusters::of(cfg).map_err(|what| InterpError {
        kernel: func.name.clone(),
        thread: None,
        inst: None,
        what,
    })?;
    let mut m = Machine {
        func,
        cfg,
        mem,
        layout: Layout::new(func, cfg.reserved_shared),
        rpo,
        stats: Stats::default(),
        ctaid: [0; 3],
        clusters,
        rank: 0,
        shared: Vec::new(),
        arrived: [0; 17],
    };
    let [gx, gy, gz] = cfg.grid;
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                m.ctaid = [x, y, z];
                m.rank = m.clusters.rank(m.ctaid);
                m.run_cta()?;
            }
        }
    }
    Ok(m.stats)
}

impl Machine<'_, '_> {
    fn error(&self, t: Option<&Thread>, inst: Option<Inst>, what: String) -> InterpError {
        InterpError {
            kernel: self.func.name.clone(),
            thread: t.map(|t| (self.ctaid, t.tid)),
            inst: inst.map(|i| inst_text(self.func, i)),
            what,
        }
    }

    fn run_cta(&mut self) -> Result<(), InterpError> {
        let [bx, by, bz] = self.cfg.block;
        let n = (bx * by * bz) as usize;
        self.shared = vec![0; (self.layout.shared_static + self.cfg.dynamic_shared as u64) as usize];
        self.arrived = [0; 17];
        let entry = self
            .func
            .entry()
            .ok_or_else(|| self.error(None, None, "empty kernel".into()))?;
        let mut threads: Vec<Thread> = (0..n)
            .map(|i| {
                let i = i as u32;
                Thread {
                    tid: [i % bx, (i / bx) % by, i / (bx * by)],
                    lane: i % 32,
                    block: entry,
                    idx: 0,
                    state: State::Running,
                    vals: vec![0; self.func.values.len()],
                    local: vec![0; self.layout.local as usize],
                }
            })
            .collect();
        self.stats.ctas += 1;
        self.stats.warps += n.div_ceil(32) as u64;
        loop {
            let mut yielded = false;
            for w in 0..n.div_ceil(32) {
                let end = (w * 32 + 32).min(n);
                yielded |= self.run_warp(&mut threads[w * 32..end])?;
            }
            if threads.iter().all(|t| t.state == State::Exited) {
                return Ok(());
            }
            if !yielded {
                self.release_barrier(&mut threads)?;
            }
        }
    }

    /// Runs a warp until every thread has exited or waits at a barrier (false), or until
    /// it has made a volatile shared-memory load (true): such a load may be polling for
    /// another warp's store (an `mbarrier.test_wait` loop), so the other warps run first.
    fn run_warp(&mut self, warp: &mut [Thread]) -> Result<bool, InterpError> {
        loop {
            let pos = |t: &Thread| (self.rpo[t.block], t.idx);
            let Some(first) = warp.iter().filter(|t| t.state == State::Running).map(pos).min() else {
                return Ok(false);
            };
            let group: Vec<usize> = (0..warp.len())
                .filter(|&i| warp[i].state == State::Running && pos(&warp[i]) == first)
                .collect();
            self.stats.warp_instructions += 1;
            self.stats.thread_instructions += group.len() as u64;
            if self.stats.warp_instructions > STEP_LIMIT {
                return Err(self.error(None, None, format!("more than {STEP_LIMIT} warp instructions")));
            }
            let inst = self.func.blocks[warp[group[0]].block].insts[warp[group[0]].idx];
            if self.func.insts[inst].op.is_collective() {
                self.collective(warp, &group, inst)?;
            } else {
                for &i in &group {
                    self.step(&mut warp[i], inst)
                        .map_err(|e| self.error(Some(&warp[i]), Some(inst), e))?;
                }
                if self.polls(inst) {
                    return Ok(true);
                }
            }
        }
    }

    /// Whether `inst` is a volatile load from shared memory (the CTA's or the cluster's).
    fn polls(&self, inst: Inst) -> bool {
        let d = &self.func.insts[inst];
        matches!((d.op, &d.aux), (Opcode::Load, Aux::Mem(m)) if m.volatile && matches!(m.space, Space::Shared | Space::SharedCluster))
            || d.op == Opcode::MbarPhaseTest
    }

    /// Executes one non-collective instruction for one thread.
    fn step(&mut self, t: &mut Thread, inst: Inst) -> Result<(), Fault> {
        let func = self.func;
        let data = &func.insts[inst];
        let args: Vec<u64> = data.args.iter().map(|v| t.vals[v.index()]).collect();
        let results = &func.results[inst];
        match data.op {
            Opcode::Jump | Opcode::Brif => {
                let k = if data.op == Opcode::Brif && args[0] & 1 == 0 {
                    1
                } else {
                    0
                };
                let call = &data.targets()[k];
                let vals: Vec<u64> = call.args.iter().map(|v| t.vals[v.index()]).collect();
                for (p, v) in func.blocks[call.block].params.iter().zip(vals) {
                    t.vals[p.index()] = v;
                }
                t.block = call.block;
                t.idx = 0;
                return Ok(());
            }
            Opcode::Exit => {
                t.state = State::Exited;
                return Ok(());
            }
            Opcode::Trap => return Err("trap".into()),
            Opcode::CallFunc | Opcode::ArgArea | Opcode::Return => {
                return Err(
                    "a device-function call kept as a call (the MIR interpreter runs calls inlined: lower without `keep_calls`)"
                        .into(),
                );
            }
            Opcode::CallDriver => {
                let name = DriverFn::from_index(match data.aux {
                    Aux::Imm(i) => i,
                    _ => u64::MAX,
                })
                .map_or("an unknown driver function", |d| d.name());
                return Err(format!(
                    "a call to `{name}` (the MIR interpreter has no driver functions; run the cubin on the simulator)"
                ));
            }
            _ => {}
        }
        let out = match (data.op, &data.aux) {
            (Opcode::IsSpace, Aux::Space(Space::Shared)) if self.clusters.size() > 1 => {
                let inside = (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&args[0]);
                smallvec::smallvec![u64::from(
                    inside && self.clusters.is_own(args[0] - SHARED_WINDOW, self.rank)
                )]
            }
            _ => match eval_pure(data.op, data.ty, &data.aux, &args) {
                Some(out) => out,
                None => self.machine_op(t, inst, &args)?,
            },
        };
        for (r, v) in results.iter().zip(out) {
            t.vals[r.index()] = v;
        }
        t.idx += 1;
        Ok(())
    }

    /// Instructions that need the machine: parameters, special registers, addresses, memory.
    fn machine_op(&mut self, t: &mut Thread, inst: Inst, args: &[u64]) -> Result<smallvec::SmallVec<[u64; 2]>, Fault> {
        let data = &self.func.insts[inst];
        let ty = data.ty;
        Ok(match (&data.op, &data.aux) {
            (Opcode::Undef, _) => smallvec::smallvec![0],
            (Opcode::Param, Aux::Param(off)) => {
                let (off, n) = (*off as usize, ty.bytes() as usize);
                let bytes = self
                    .cfg
                    .params
                    .get(off..off + n)
                    .ok_or_else(|| format!("parameter offset {off} is outside the parameter block"))?;
                smallvec::smallvec![le(bytes)]
            }
            (Opcode::Special, Aux::Special(sr)) => smallvec::smallvec![self.special(t, *sr) & ty.mask()],
            (Opcode::Addr, Aux::Var(i)) => {
                smallvec::smallvec![self.layout.address(self.func, *i as usize) & ty.mask()]
            }
            (Opcode::Load, Aux::Mem(m)) => {
                let n = m.vector.max(1) as u64;
                let size = ty.bytes() as u64;
                let base = args[0].wrapping_add(m.offset as u64);
                check_align(base, size * n.min(4))?;
                let mut out = smallvec::SmallVec::new();
                for k in 0..n {
                    let mut buf = vec![0u8; size as usize];
                    self.access(t, m.space, base + k * size, &mut buf, false)?;
                    out.push(le(&buf));
                }
                out
            }
            (Opcode::Store, Aux::Mem(m)) => {
                let size = ty.bytes() as u64;
                let base = args[0].wrapping_add(m.offset as u64);
                // `.L2::cache_hint`'s policy (the last argument) changes no value.
                let values = &args[1..args.len() - usize::from(m.hint.policy)];
                check_align(base, size * (values.len() as u64).min(4))?;
                for (k, v) in values.iter().enumerate() {
                    let mut buf = v.to_le_bytes()[..size as usize].to_vec();
                    self.access(t, m.space, base + k as u64 * size, &mut buf, true)?;
                }
                smallvec::SmallVec::new()
            }
            (Opcode::Atom, Aux::Atom(a)) => smallvec::smallvec![self.atomic(t, ty, a, args)?],
            (Opcode::MbarArrive, Aux::Atom(a)) => {
                smallvec::smallvec![self.atomic(t, Type::I64, a, &[args[0], args[1] & 0xffff_ffff])?]
            }
            (Opcode::MbarInit, Aux::Mem(m)) => {
                let addr = args[0].wrapping_add(m.offset as u64);
                check_align(addr, 8)?;
                self.access(t, m.space, addr, &mut args[1].to_le_bytes(), true)?;
                smallvec::SmallVec::new()
            }
            (Opcode::MbarPhaseTest, Aux::Mem(m)) => {
                let addr = args[0].wrapping_add(m.offset as u64);
                check_align(addr, 8)?;
                let mut buf = [0u8; 8];
                self.access(t, m.space, addr, &mut buf, false)?;
                smallvec::smallvec![u64::from(le(&buf) >> 63 != (args[1] >> 31) & 1)]
            }
            (Opcode::CpAsync, Aux::Imm(imm)) => {
                self.cp_async(t, *imm, args)?;
                smallvec::SmallVec::new()
            }
            // Tensor maps are in the simulator's format (`runtime-sim/src/tensor_map.rs`),
            // which this interpreter does not read.
            (Opcode::TmaLoad | Opcode::TmaStore, _) => {
                return Err(
                    "TMA (`cp.async.bulk.tensor`) is not interpreted by the MIR engine; run it on the simulator"
                        .to_string(),
                );
            }
            (Opcode::BulkCopy, Aux::Imm(flags)) => {
                self.bulk_copy(t, *flags, args)?;
                smallvec::SmallVec::new()
            }
            // Copies land at once: the arrival is made at once.
            (Opcode::CpAsyncArrive, aux) => {
                let hopper = matches!(aux, Aux::Imm(f) if f & crate::lower::CP_ASYNC_ARRIVE_HOPPER != 0);
                let arrive = crate::ir::AtomInfo {
                    op: if hopper { AtomOp::HopperArrive } else { AtomOp::Arrive },
                    space: Space::Shared,
                    offset: 0,
                    red: false,
                };
                let args = if hopper {
                    [args[0] & 0xffff_ffff, 1]
                } else {
                    [args[0] & 0xffff_ffff, 0]
                };
                self.atomic(t, Type::I64, &arrive, &args)?;
                smallvec::SmallVec::new()
            }
            // Copies land at once: nothing is pending at a commit or a wait.
            // A prefetch changes no value.
            (
                Opcode::Fence
                | Opcode::FenceProxyAsync
                | Opcode::Nanosleep
                | Opcode::CpAsyncCommit
                | Opcode::CpAsyncWait
                | Opcode::BulkCommit
                | Opcode::BulkWait
                | Opcode::PrefetchL1
                | Opcode::PrefetchL2
                | Opcode::PrefetchL2Last
                | Opcode::L1Invalidate,
                _,
            ) => smallvec::SmallVec::new(),
            (op, _) => return Err(format!("`{}` cannot be interpreted here", op.name())),
        })
    }

    /// `cp_async (shared, global[, src-size])`: copies the first src-size bytes (all without
    /// one) and zeroes the rest of the `imm & 0xff` bytes.
    fn cp_async(&mut self, t: &mut Thread, imm: u64, args: &[u64]) -> Result<(), Fault> {
        let size = imm & 0xff;
        let (to, from) = (args[0] & 0xffff_ffff, args[1]);
        check_align(to, size)?;
        check_align(from, size)?;
        // `.L2::cache_hint`'s policy (the last argument) changes no value.
        let args = &args[..args.len() - usize::from(imm & crate::lower::CP_ASYNC_POLICY != 0)];
        let valid = args.get(2).map_or(size, |&n| (n & 0xffff_ffff).min(size));
        let mut buf = vec![0u8; size as usize];
        if valid > 0 {
            self.access(t, Space::Global, from, &mut buf[..valid as usize], false)?;
        }
        self.access(t, Space::Shared, to, &mut buf, true)
    }

    /// `bulk_copy`: the bytes move at once; a copy into shared memory completes them on its
    /// mbarrier (the simulator's transaction-count model).
    fn bulk_copy(&mut self, t: &mut Thread, flags: u64, args: &[u64]) -> Result<(), Fault> {
        let bytes = (args[2] & 0xffff_ffff) * 16;
        let to_shared = flags & crate::lower::BULK_TO_SHARED != 0;
        let (to, from) = if to_shared {
            (args[0] & 0xffff_ffff, args[1])
        } else {
            (args[0], args[1] & 0xffff_ffff)
        };
        check_align(to, 16)?;
        check_align(from, 16)?;
        let (dst, src) = if to_shared {
            (Space::Shared, Space::Global)
        } else {
            (Space::Global, Space::Shared)
        };
        let mut buf = vec![0u8; bytes as usize];
        self.access(t, src, from, &mut buf, false)?;
        self.access(t, dst, to, &mut buf, true)?;
        if to_shared {
            let complete = crate::ir::AtomInfo {
                op: AtomOp::HopperCompleteTx,
                space: Space::Shared,
                offset: 0,
                red: false,
            };
            self.atomic(t, Type::I64, &complete, &[args[3] & 0xffff_ffff, bytes])?;
        }
        Ok(())
    }

    fn atomic(&mut self, t: &mut Thread, ty: Type, a: &crate::ir::AtomInfo, args: &[u64]) -> Result<u64, Fault> {
        let size = ty.bytes() as usize;
        let addr = args[0].wrapping_add(a.offset as u64);
        check_align(addr, size as u64)?;
        let mut buf = vec![0u8; size];
        self.access(t, a.space, addr, &mut buf, false)?;
        let old = le(&buf);
        let (b, m, w) = (args[1], ty.mask(), ty.bits());
        let s = |v: u64| super::eval::eval_pure(Opcode::Copy, ty, &Aux::None, &[v]).map_or(v, |r| r[0]);
        let signed = |v: u64| ((v << (64 - w)) as i64) >> (64 - w);
        let new = match a.op {
            AtomOp::Add => old.wrapping_add(b),
            AtomOp::Fadd => {
                let global = !matches!(self.resolve_space(a.space, addr), Space::Shared | Space::SharedCluster);
                let mode = crate::ir::FloatMode {
                    rnd: None,
                    ftz: global && ty == Type::F32,
                    sat: false,
                    nan: false,
                    relu: false,
                    xorsign: false,
                };
                super::float::float_binary(Opcode::Fadd, ty, &Aux::Float(mode), old, b)
            }
            AtomOp::MinS => signed(old).min(signed(b)) as u64,
            AtomOp::MaxS => signed(old).max(signed(b)) as u64,
            AtomOp::MinU => old.min(b),
            AtomOp::MaxU => old.max(b),
            AtomOp::Inc => {
                if old >= b {
                    0
                } else {
                    old + 1
                }
            }
            AtomOp::Dec => {
                if old == 0 || old > b {
                    b
                } else {
                    old - 1
                }
            }
            AtomOp::And => old & b,
            AtomOp::Or => old | b,
            AtomOp::Xor => old ^ b,
            AtomOp::Exch => b,
            AtomOp::Cas => {
                if old == b {
                    args[2]
                } else {
                    old
                }
            }
            AtomOp::Arrive => mbarrier_arrive(old),
            AtomOp::HopperArrive => hopper_arrive(old, b, false),
            AtomOp::HopperDrop => hopper_arrive(old, b, true),
            AtomOp::HopperPending => hopper_field(old, HOPPER_PENDING_AT, |p| p.wrapping_sub(1)),
            AtomOp::HopperArriveTx => hopper_arrive(hopper_tx(old, b as i64), 1, false),
            AtomOp::HopperExpectTx => hopper_tx(old, b as i64),
            AtomOp::HopperCompleteTx => hopper_tx(old, -(b as i64)),
        } & m;
        let mut buf = s(new).to_le_bytes()[..size].to_vec();
        self.access(t, a.space, addr, &mut buf, true)?;
        Ok(old)
    }

    /// The space a generic address falls in.
    fn resolve_space(&self, space: Space, addr: u64) -> Space {
        if space != Space::Generic {
            return space;
        }
        if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&addr) {
            Space::Shared
        } else if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&addr) {
            Space::Local
        } else if (CONST_WINDOW..CONST_WINDOW + WINDOW_SIZE).contains(&addr) {
            Space::Const
        } else {
            Space::Global
        }
    }

    /// Reads (`write == false`) or writes `buf` at `addr` in `space`.
    fn access(&mut self, t: &mut Thread, space: Space, addr: u64, buf: &mut [u8], write: bool) -> Result<(), Fault> {
        let resolved = self.resolve_space(space, addr);
        let n = buf.len();
        let slice_of = |mem: &mut Vec<u8>, off: u64, what: &str| -> Result<std::ops::Range<usize>, Fault> {
            let end = off.checked_add(n as u64).filter(|&e| e <= mem.len() as u64);
            end.map(|e| off as usize..e as usize)
                .ok_or_else(|| format!("{what} address {off:#x} (+{n}) is out of bounds ({} bytes)", mem.len()))
        };
        let copy = |mem: &mut Vec<u8>, r: std::ops::Range<usize>, buf: &mut [u8]| {
            if write {
                mem[r].copy_from_slice(buf);
            } else {
                buf.copy_from_slice(&mem[r]);
            }
        };
        // The offset in a windowed space: from the window's base for a generic address.
        let offset_in = |window: u64| {
            if space == Space::Generic {
                addr - window
            } else {
                addr & 0xffff_ffff
            }
        };
        match resolved {
            Space::Shared | Space::SharedCluster => {
                // A `.shared::cta` access may leave out the rank; a generic or
                // `.shared::cluster` one names the CTA by it.
                let cta = space == Space::Shared;
                let off = self.clusters.shared_offset(offset_in(SHARED_WINDOW), self.rank, cta)?;
                let r = slice_of(&mut self.shared, off, "shared")?;
                copy(&mut self.shared, r, buf);
            }
            Space::Local => {
                let off = offset_in(LOCAL_WINDOW);
                let r = slice_of(&mut t.local, off, "local")?;
                copy(&mut t.local, r, buf);
            }
            Space::Const => {
                if write {
                    return Err("constant memory is read-only".into());
                }
                let off = offset_in(CONST_WINDOW);
                let r = slice_of(&mut self.layout.constant, off, "constant")?;
                buf.copy_from_slice(&self.layout.constant[r]);
            }
            Space::Param => {
                if write {
                    return Err("the parameter block is read-only".into());
                }
                let r = slice_of(&mut self.cfg.params.clone(), addr, "parameter")?;
                buf.copy_from_slice(&self.cfg.params[r]);
            }
            _ if (MODULE_BASE..MODULE_BASE + (1 << 32)).contains(&addr) => {
                let r = slice_of(&mut self.layout.module, addr - MODULE_BASE, "module variable")?;
                copy(&mut self.layout.module, r, buf);
            }
            _ => {
                let placed = if write {
                    self.mem.write(addr, buf)?
                } else {
                    self.mem.read(addr, buf)?
                };
                if placed == Placement::Stray {
                    self.stray(t, addr, n, write);
                }
            }
        }
        Ok(())
    }

    /// Counts (and reports the first few) stray global accesses.
    fn stray(&mut self, t: &Thread, addr: u64, n: usize, write: bool) {
        self.stats.stray_accesses += 1;
        if self.stats.stray_reports.len() < MAX_STRAY_REPORTS {
            self.stats.stray_reports.push(format!(
                "kernel `{}`, CTA {:?}, thread {:?}: {} of {n} bytes at {addr:#x} past the end of its allocation",
                self.func.name,
                self.ctaid,
                t.tid,
                if write { "write" } else { "read" }
            ));
        }
    }

    fn special(&self, t: &Thread, sr: SpecialReg) -> u64 {
        let lane = t.lane as u64;
        let dim = |v: [u32; 3], d: u8| v[d as usize] as u64;
        let [bx, by, _] = self.cfg.block;
        let linear = t.tid[0] + bx * (t.tid[1] + by * t.tid[2]);
        match sr {
            SpecialReg::Tid(d) => dim(t.tid, d),
            SpecialReg::Ntid(d) => dim(self.cfg.block, d),
            SpecialReg::Ctaid(d) => dim(self.ctaid, d),
            SpecialReg::Nctaid(d) => dim(self.cfg.grid, d),
            SpecialReg::LaneId => lane,
            SpecialReg::WarpId => (linear / 32) as u64,
            SpecialReg::NWarpId => 32,
            SpecialReg::SmId | SpecialReg::GridId => 0,
            SpecialReg::NSmId => 1,
            SpecialReg::LaneMaskEq => 1 << lane,
            SpecialReg::LaneMaskLt => (1 << lane) - 1,
            SpecialReg::LaneMaskLe => (2 << lane) - 1,
            SpecialReg::LaneMaskGt => !((2u64 << lane) - 1) & 0xffff_ffff,
            SpecialReg::LaneMaskGe => !((1u64 << lane) - 1) & 0xffff_ffff,
            SpecialReg::Clock | SpecialReg::Clock64 | SpecialReg::GlobalTimer | SpecialReg::GlobalTimerLo => {
                self.stats.warp_instructions
            }
            SpecialReg::GlobalTimerHi => 0,
            SpecialReg::TotalSmemSize => self.shared.len() as u64,
            SpecialReg::DynamicSmemSize => self.cfg.dynamic_shared as u64,
            SpecialReg::WarpSize => 32,
            SpecialReg::ClusterId(_)
            | SpecialReg::NClusterId(_)
            | SpecialReg::ClusterCtaId(_)
            | SpecialReg::ClusterNctaId(_)
            | SpecialReg::ClusterCtaRank
            | SpecialReg::ClusterNctaRank
            | SpecialReg::IsExplicitCluster => self.clusters.special(sr, self.ctaid, self.cfg.grid).unwrap_or(0),
        }
    }

    /// Executes a warp-collective instruction for the threads of `group` together.
    fn collective(&mut self, warp: &mut [Thread], group: &[usize], inst: Inst) -> Result<(), InterpError> {
        let data = &self.func.insts[inst];
        let arg = |t: &Thread, k: usize| t.vals[data.args[k].index()];
        let active: u64 = group.iter().map(|&i| 1u64 << warp[i].lane).sum();
        let results = &self.func.results[inst];
        let mut outs: Vec<Vec<u64>> = Vec::with_capacity(group.len());
        match data.op {
            Opcode::BarSync | Opcode::BarArrive | Opcode::BarRedPopc | Opcode::BarRedAnd | Opcode::BarRedOr => {
                for &i in group {
                    let id = arg(&warp[i], 0);
                    if id > 15 {
                        return Err(self.error(Some(&warp[i]), Some(inst), format!("barrier id {id} is not 0 to 15")));
                    }
                    self.arrived[id as usize] += 1;
                    warp[i].state = if data.op == Opcode::BarArrive {
                        warp[i].idx += 1;
                        State::Running
                    } else {
                        State::Waiting(inst)
                    };
                }
                return Ok(());
            }
            Opcode::ClusterArrive | Opcode::ClusterWait => {
                if self.clusters.size() > 1 {
                    let t = group.first().map(|&i| &warp[i]);
                    return Err(self.error(t, Some(inst), format!("`barrier.cluster`: {NO_CLUSTERS}")));
                }
                for &i in group {
                    warp[i].state = if data.op == Opcode::ClusterArrive {
                        self.arrived[CLUSTER_BARRIER] += 1;
                        warp[i].idx += 1;
                        State::Running
                    } else {
                        State::Waiting(inst)
                    };
                }
                return Ok(());
            }
            Opcode::Ldmatrix => {
                for &i in group {
                    let v = self
                        .matrix_access(warp, i, inst, false)
                        .map_err(|e| self.error(Some(&warp[i]), Some(inst), e))?;
                    outs.push(v);
                }
            }
            Opcode::Stmatrix => {
                for &i in group {
                    let v = self
                        .matrix_access(warp, i, inst, true)
                        .map_err(|e| self.error(Some(&warp[i]), Some(inst), e))?;
                    outs.push(v);
                }
            }
            Opcode::Wgmma | Opcode::WgmmaFence | Opcode::WgmmaCommit | Opcode::WgmmaWait => {
                let t = group.first().map(|&i| &warp[i]);
                return Err(self.error(
                    t,
                    Some(inst),
                    "`wgmma` runs on the SASS simulator only: the MIR interpreter runs warps, not warpgroups".into(),
                ));
            }
            _ => {
                for &i in group {
                    let t = &warp[i];
                    let lane_of = |l: u32| group.iter().map(|&g| &warp[g]).find(|g| g.lane == l);
                    let v: Vec<u64> = match data.op {
                        Opcode::Shfl => {
                            let (j, ok) = shfl_source(data.aux.clone(), t.lane, arg(t, 1), arg(t, 2));
                            let src = if ok { lane_of(j).unwrap_or(t) } else { t };
                            vec![arg(src, 0), ok as u64]
                        }
                        Opcode::VoteAll | Opcode::VoteAny | Opcode::VoteUni | Opcode::VoteBallot => {
                            let mask = arg(t, 1) & active;
                            let ballot: u64 = group
                                .iter()
                                .map(|&g| &warp[g])
                                .filter(|g| mask >> g.lane & 1 == 1 && arg(g, 0) & 1 == 1)
                                .map(|g| 1u64 << g.lane)
                                .sum();
                            vec![match data.op {
                                Opcode::VoteAll => (ballot == mask) as u64,
                                Opcode::VoteAny => (ballot != 0) as u64,
                                Opcode::VoteUni => (ballot == 0 || ballot == mask) as u64,
                                _ => ballot,
                            }]
                        }
                        Opcode::Redux => {
                            let mask = arg(t, 1) & active;
                            let flags = crate::ir::redux::ReduxFlags::from_bits(match data.aux {
                                Aux::Imm(b) => b,
                                _ => 0,
                            });
                            let values = group
                                .iter()
                                .map(|&g| &warp[g])
                                .filter(|g| mask >> g.lane & 1 == 1)
                                .map(|g| arg(g, 0) as u32);
                            vec![flags.reduce(values) as u64]
                        }
                        Opcode::MatchAny | Opcode::MatchAll => {
                            let mask = arg(t, 1) & active;
                            let same: u64 = group
                                .iter()
                                .map(|&g| &warp[g])
                                .filter(|g| mask >> g.lane & 1 == 1 && arg(g, 0) == arg(t, 0))
                                .map(|g| 1u64 << g.lane)
                                .sum();
                            if data.op == Opcode::MatchAny {
                                vec![same]
                            } else if same == mask {
                                vec![mask, 1]
                            } else {
                                vec![0, 0]
                            }
                        }
                        Opcode::Activemask => vec![active],
                        Opcode::MmaInt => {
                            let Aux::Imm(flags) = data.aux else {
                                return Err(self.error(Some(t), Some(inst), "mma without its shape".into()));
                            };
                            let ab = |l: u32| lane_of(l).map(|s| (arg(s, 0), arg(s, 1)));
                            super::tensor::mma_int(flags, t.lane, &ab, [arg(t, 2), arg(t, 3)])
                                .map_err(|e| self.error(Some(t), Some(inst), e))?
                                .to_vec()
                        }
                        Opcode::MmaF16 => {
                            let flags = crate::ir::mma::MmaF16Flags::from_bits(match data.aux {
                                Aux::Imm(b) => b,
                                _ => 0,
                            });
                            let (a, b, _) = flags.regs();
                            let regs = |l: u32| lane_of(l).map(|s| (0..a + b).map(|k| arg(s, k)).collect::<Vec<u64>>());
                            let c: Vec<u64> = (a + b..data.args.len()).map(|k| arg(t, k)).collect();
                            super::tensor::mma_f16(flags, t.lane, &regs, &c)
                                .map_err(|e| self.error(Some(t), Some(inst), e))?
                        }
                        Opcode::MmaIntM16n8 => {
                            let flags = crate::ir::mma::MmaIntFlags::from_bits(match data.aux {
                                Aux::Imm(b) => b,
                                _ => 0,
                            });
                            let (a, b, _) = flags.regs();
                            let regs = |l: u32| lane_of(l).map(|s| (0..a + b).map(|k| arg(s, k)).collect::<Vec<u64>>());
                            let c: Vec<u64> = (a + b..data.args.len()).map(|k| arg(t, k)).collect();
                            super::tensor::mma_int_m16n8(flags, t.lane, &regs, &c)
                                .map_err(|e| self.error(Some(t), Some(inst), e))?
                        }
                        Opcode::MmaF64 => {
                            let ab = |l: u32| lane_of(l).map(|s| (arg(s, 0), arg(s, 1)));
                            super::tensor::mma_f64(t.lane, &ab, [arg(t, 2), arg(t, 3)])
                                .map_err(|e| self.error(Some(t), Some(inst), e))?
                                .to_vec()
                        }
                        Opcode::Mma884 => {
                            let Aux::Imm(flags) = data.aux else {
                                return Err(self.error(Some(t), Some(inst), "mma without its types".into()));
                            };
                            let n = data.args.len();
                            let regs = |l: u32| lane_of(l).map(|s| (0..n).map(|k| arg(s, k)).collect::<Vec<u64>>());
                            super::tensor::mma_884(flags, t.lane, &regs)
                                .map_err(|e| self.error(Some(t), Some(inst), e))?
                        }
                        // The lowest participating lane in the mask (as the simulator's
                        // ELECT elects; the PTX ISA leaves the choice open).
                        Opcode::Elect => {
                            let mask = arg(t, 0);
                            let leader = group
                                .iter()
                                .map(|&g| warp[g].lane)
                                .filter(|&l| mask >> l & 1 == 1)
                                .min();
                            match leader {
                                Some(l) => vec![l as u64, (l == t.lane) as u64],
                                None => vec![0, 0],
                            }
                        }
                        Opcode::Movmatrix => {
                            let (g, t2) = (t.lane / 4, t.lane % 4 * 2);
                            let half = |row: u32, col: u32| -> Result<u64, InterpError> {
                                let src = lane_of(4 * row + col / 2).ok_or_else(|| {
                                    self.error(
                                        Some(t),
                                        Some(inst),
                                        format!("lane {} does not take part in movmatrix", 4 * row + col / 2),
                                    )
                                })?;
                                Ok(arg(src, 0) >> (16 * (col % 2)) & 0xffff)
                            };
                            vec![half(t2, g)? | half(t2 + 1, g)? << 16]
                        }
                        other => return Err(self.error(Some(t), Some(inst), format!("unknown collective {other:?}"))),
                    };
                    outs.push(v);
                }
            }
        }
        for (&i, v) in group.iter().zip(outs) {
            for (r, x) in results.iter().zip(v) {
                warp[i].vals[r.index()] = x & self.func.ty(*r).mask();
            }
            warp[i].idx += 1;
        }
        Ok(())
    }

    /// One thread's part of `ldmatrix` (its fragments, returned) or, with `store`, of
    /// `stmatrix` (its registers, written): row addresses come from the lanes of the warp.
    fn matrix_access(&mut self, warp: &mut [Thread], i: usize, inst: Inst, store: bool) -> Result<Vec<u64>, Fault> {
        let data = &self.func.insts[inst];
        let name = data.op.name();
        let Aux::Imm(bits) = data.aux else {
            return Err(format!("{name} without its shape"));
        };
        let (count, trans) = (bits & 7, bits >> 4 & 1 == 1);
        let lane = warp[i].lane as u64;
        let row_addr = |warp: &[Thread], row_lane: u64| -> Result<u64, Fault> {
            warp.iter()
                .find(|t| t.lane as u64 == row_lane)
                .map(|t| t.vals[data.args[0].index()] & 0xffff_ffff)
                .ok_or_else(|| format!("lane {row_lane} does not take part in {name}"))
        };
        let mut out = Vec::new();
        for k in 0..count {
            let mut word = if store {
                warp[i].vals[data.args[1 + k as usize].index()]
            } else {
                0
            };
            for e in 0..2u64 {
                let (row, col) = matrix_element(lane, e, trans);
                let addr = row_addr(warp, k * 8 + row)? + col * 2;
                let mut buf = ((word >> (16 * e)) as u16).to_le_bytes();
                let t = &mut warp[i];
                self.access(t, Space::Shared, addr, &mut buf, store)?;
                if !store {
                    word |= le(&buf) << (16 * e);
                }
            }
            if !store {
                out.push(word);
            }
        }
        Ok(out)
    }

    /// The number of threads barrier instruction `inst` waits for: its thread count, or
    /// every live thread of the CTA.
    fn expected(&self, t: &Thread, inst: Inst, live: usize) -> u64 {
        let d = &self.func.insts[inst];
        let count_arg = match d.op {
            Opcode::BarSync | Opcode::BarArrive => d.args.get(1),
            Opcode::ClusterWait => None,
            _ => d.args.get(2),
        };
        count_arg.map_or(live as u64, |v| t.vals[v.index()])
    }

    /// Completes the barriers that every expected thread has reached (arrivals included),
    /// releasing their waiting threads with the reduction results; an error if none can be
    /// completed (a deadlock).
    fn release_barrier(&mut self, threads: &mut [Thread]) -> Result<(), InterpError> {
        let live = threads.iter().filter(|t| t.state != State::Exited).count();
        let waiting: Vec<usize> = (0..threads.len())
            .filter(|&i| matches!(threads[i].state, State::Waiting(_)))
            .collect();
        let Some(&first) = waiting.first() else {
            return Err(self.error(None, None, "no thread can make progress".into()));
        };
        let inst_of = |t: &Thread| match t.state {
            State::Waiting(inst) => inst,
            _ => unreachable!("a waiting thread"),
        };
        let id_of = |t: &Thread| match self.func.insts[inst_of(t)].op {
            Opcode::ClusterWait => CLUSTER_BARRIER as u64,
            _ => t.vals[self.func.insts[inst_of(t)].args[0].index()],
        };
        let ids: Vec<u64> = waiting.iter().map(|&i| id_of(&threads[i])).collect();
        let mut released = false;
        for id in 0..=CLUSTER_BARRIER as u64 {
            let same: Vec<usize> = (0..waiting.len())
                .filter(|&k| ids[k] == id)
                .map(|k| waiting[k])
                .collect();
            let Some(&one) = same.first() else { continue };
            let expected = self.expected(&threads[one], inst_of(&threads[one]), live);
            if u64::from(self.arrived[id as usize]) < expected {
                continue;
            }
            self.arrived[id as usize] = 0;
            released = true;
            self.complete(threads, &same);
        }
        if released {
            return Ok(());
        }
        let inst = inst_of(&threads[first]);
        let id = ids[0];
        let expected = self.expected(&threads[first], inst, live);
        Err(self.error(
            Some(&threads[first]),
            Some(inst),
            format!(
                "barrier deadlock: barrier {id} expects {expected} threads but {} of {live} live threads arrived",
                self.arrived[id as usize]
            ),
        ))
    }

    /// Releases the threads `same` waiting at one barrier, giving the reductions' results.
    fn complete(&self, threads: &mut [Thread], same: &[usize]) {
        let pred = |t: &Thread| match t.state {
            State::Waiting(inst) if self.func.insts[inst].args.len() > 1 => {
                t.vals[self.func.insts[inst].args[1].index()] & 1
            }
            _ => 0,
        };
        let count = same.iter().filter(|&&i| pred(&threads[i]) == 1).count() as u64;
        for &i in same {
            let State::Waiting(inst) = threads[i].state else {
                continue;
            };
            let r = match self.func.insts[inst].op {
                Opcode::BarRedPopc => Some(count),
                Opcode::BarRedAnd => Some((count == same.len() as u64) as u64),
                Opcode::BarRedOr => Some((count > 0) as u64),
                _ => None,
            };
            if let (Some(r), Some(&v)) = (r, self.func.results[inst].first()) {
                threads[i].vals[v.index()] = r;
            }
            threads[i].state = State::Running;
            threads[i].idx += 1;
        }
    }
}

/// The source lane of a shuffle and whether it is in range (PTX's `shfl.sync` rules).
fn shfl_source(aux: Aux, lane: u32, b: u64, c: u64) -> (u32, bool) {
    let Aux::Imm(mode) = aux else { return (lane, false) };
    let (lane, bval, cval, seg) = (
        lane as i64,
        (b & 0x1f) as i64,
        (c & 0x1f) as i64,
        ((c >> 8) & 0x1f) as i64,
    );
    let max_lane = (lane & seg) | (cval & !seg);
    let min_lane = lane & seg;
    let (j, ok) = match mode {
        0 => (lane - bval, lane - bval >= max_lane),
        1 => (lane + bval, lane + bval <= max_lane),
        2 => (lane ^ bval, (lane ^ bval) <= max_lane),
        _ => {
            let j = min_lane | (bval & !seg);
            (j, j <= max_lane)
        }
    };
    if ok { (j as u32, true) } else { (lane as u32, false) }
}

fn le(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(b)
}

fn check_align(addr: u64, size: u64) -> Result<(), Fault> {
    if size > 1 && !addr.is_multiple_of(size.min(16)) {
        Err(format!("misaligned {size}-byte access at {addr:#x}"))
    } else {
        Ok(())
    }
}

/// One arrival on the 64-bit `mbarrier` word `old` (`docs/MBARRIER.md`, the layout ptxas
/// gives the barrier): low word `0x40000000 - expected`, high word the phase (bit 31) above
/// `0x80000000 - pending`. The arrival adds one to the high word; a carry into bit 31
/// completes the phase and restarts the pending count at the expected count.
fn mbarrier_arrive(old: u64) -> u64 {
    let (lo, hi) = (old as u32, (old >> 32) as u32);
    let mut n = hi.wrapping_add(1);
    if (n ^ hi) & 0x8000_0000 != 0 {
        n = (n & 0x8000_0000) | (lo.wrapping_add(0x4000_0000) & 0x7fff_ffff);
    }
    (n as u64) << 32 | lo as u64
}

/// Where Hopper's barrier word (`docs/MBARRIER.md`, Hopper) keeps `2^20 - expected` and
/// `2^20 - pending` (20 bits each); bit 63 is the phase.
const HOPPER_EXPECTED_AT: u32 = 1;
const HOPPER_PENDING_AT: u32 = 43;
const HOPPER_FIELD: u64 = (1 << 20) - 1;

/// The word with the 20-bit field at `at` changed by `f` (wrapping in 20 bits).
fn hopper_field(word: u64, at: u32, f: impl Fn(u64) -> u64) -> u64 {
    let v = f(word >> at & HOPPER_FIELD) & HOPPER_FIELD;
    word & !(HOPPER_FIELD << at) | v << at
}

/// `count` arrivals on the Hopper barrier `old`, the simulator's model
/// (`runtime-sim/src/exec/semantics/syncs.rs`, one thread at a time here): `drop` first
/// raises the expected field; reaching 2^20 pending wraps the field to 0, and the phase
/// completes when no transaction byte is pending either.
fn hopper_arrive(old: u64, count: u64, drop: bool) -> u64 {
    let word = if drop {
        hopper_field(old, HOPPER_EXPECTED_AT, |e| e + count)
    } else {
        old
    };
    let pending = (word >> HOPPER_PENDING_AT & HOPPER_FIELD) + count;
    hopper_settle(hopper_field(word, HOPPER_PENDING_AT, |_| {
        if pending > HOPPER_FIELD { 0 } else { pending }
    }))
}

/// Where the simulator's model keeps the signed transaction count, and its width.
const HOPPER_TX_AT: u32 = 21;
const HOPPER_TX_BITS: u32 = 21;

/// The transaction count of a Hopper barrier, sign-extended.
fn hopper_tx_count(word: u64) -> i64 {
    let raw = (word >> HOPPER_TX_AT & ((1 << HOPPER_TX_BITS) - 1)) as i64;
    raw << (64 - HOPPER_TX_BITS) >> (64 - HOPPER_TX_BITS)
}

/// `bytes` more transaction bytes expected (negative: completed) on the Hopper barrier `old`.
fn hopper_tx(old: u64, bytes: i64) -> u64 {
    let field = (1u64 << HOPPER_TX_BITS) - 1;
    let tx = (hopper_tx_count(old) + bytes) as u64 & field;
    hopper_settle(old & !(field << HOPPER_TX_AT) | tx << HOPPER_TX_AT)
}

/// Completes the phase of a Hopper barrier whose arrivals have all come (pending field 0)
/// and whose transaction count is 0: the phase flips and the pending count reloads.
fn hopper_settle(word: u64) -> u64 {
    if word >> HOPPER_PENDING_AT & HOPPER_FIELD != 0 || hopper_tx_count(word) != 0 {
        return word;
    }
    let expected = word >> HOPPER_EXPECTED_AT & HOPPER_FIELD;
    hopper_field(word, HOPPER_PENDING_AT, |_| expected) ^ 1 << 63
}

/// Where element `e` (0 or 1) of `lane`'s register of an 8x8 b16 matrix lives (`ldmatrix`,
/// `stmatrix`): row `lane / 4`, column `2 (lane % 4) + e`, or transposed.
fn matrix_element(lane: u64, e: u64, trans: bool) -> (u64, u64) {
    if trans {
        ((lane % 4) * 2 + e, lane / 4)
    } else {
        (lane / 4, (lane % 4) * 2 + e)
    }
}
