//! Loads and stores of every state space: LDG/STG (global), LD/ST (generic), LDS/STS
//! (shared), LDL/STL (local) of 1 to 16 bytes with vectors as register pairs and quads, and
//! LDC (constant and parameter space, one element at a time). Addresses come from
//! `address.rs`.

use super::fit::Arg;
use super::{Isel, IselError, class_of};
use crate::vcode::{MInst, MKind, MOp, VClass, VReg, WideOp};
use ptxc_mir::ir::{Aux, CacheHint, Evict, Inst, L2Prefetch, MemInfo, Opcode, Space, Type, Value};
use ptxc_sass::isa::values::{CachePolicy, CctlOp, MemSem, MemSize, Prefetch, Scope, ShfType};
use ptxc_sass::isa::{Arch, Mod, ModSet, Op, Role, Value as V};
use smallvec::SmallVec;

/// The register class holding `bytes` of data.
fn tuple_class(bytes: u32) -> VClass {
    match bytes {
        16 => VClass::Quad,
        8 => VClass::Pair,
        _ => VClass::Single,
    }
}

/// The load and store operations of a space (`None`: no stores to it). Generic accesses
/// use LDG/STG when `generic_is_global`; the cluster's shared memory is reached through its
/// generic addresses (LD/ST, as ptxas 13.5 writes `.shared::cluster` accesses).
fn ops_of(space: Space, generic_is_global: bool) -> (Op, Option<Op>) {
    match space {
        Space::Global => (Op::Ldg, Some(Op::Stg)),
        Space::Generic if generic_is_global => (Op::Ldg, Some(Op::Stg)),
        Space::Generic | Space::SharedCluster => (Op::Ld, Some(Op::St)),
        Space::Shared => (Op::Lds, Some(Op::Sts)),
        Space::Local => (Op::Ldl, Some(Op::Stl)),
        Space::Const | Space::Param => (Op::Ldc, None),
    }
}

/// The modifiers of an access's cache hints, as ptxas 13.5 spells them on LDG/STG/LD/ST
/// (`.EF`, `.EL`, `.EU`, `.NA`; `.LTC64B`..`.LTC256B`); none for the defaults. On sm_80
/// ptxas prefetches 256 bytes for weak loads only: a non-coherent, volatile or strong load
/// with `.L2::256B` gets `.LTC128B` (`ld.global.nc.L2::256B` is `LDG.E.LTC128B.CONSTANT`
/// there, `LDG.E.LTC256B.CONSTANT` on sm_86, sm_87 and sm_89): `only_128`.
fn hint_mods(hint: CacheHint, only_128: bool) -> Vec<ModSet> {
    let evict = match hint.evict {
        Evict::Normal => None,
        Evict::First => Some(CachePolicy::Ef),
        Evict::Last => Some(CachePolicy::El),
        Evict::Unchanged => Some(CachePolicy::Eu),
        Evict::NoAllocate => Some(CachePolicy::Na),
        Evict::LastUse => Some(CachePolicy::Lu),
    };
    let prefetch = match hint.l2_prefetch {
        L2Prefetch::None => None,
        L2Prefetch::B64 => Some(Prefetch::B64),
        L2Prefetch::B128 => Some(Prefetch::B128),
        L2Prefetch::B256 if only_128 => Some(Prefetch::B128),
        L2Prefetch::B256 => Some(Prefetch::B256),
    };
    evict
        .map(|e| e.set())
        .into_iter()
        .chain(prefetch.map(|p| p.set()))
        .collect()
}

impl Isel<'_> {
    /// True if no generic address of the kernel can point into shared or local memory: no
    /// instruction makes one (PTX cannot put one in an initialiser, and the windows differ
    /// between launches), so generic accesses are global ones.
    fn generic_is_global(&self) -> bool {
        !self.func.insts.values().any(|d| d.op == Opcode::ToGeneric)
    }

    /// The modifiers of an access of `bytes` to `info.space`.
    fn mem_mods(&self, info: &MemInfo, bytes: u32) -> Result<Vec<ModSet>, IselError> {
        let size = MemSize::of_bytes(bytes).ok_or_else(|| self.unsupported(format!("{bytes}-byte memory accesses")))?;
        Ok(match info.space {
            Space::Global | Space::Generic | Space::SharedCluster => {
                let sem = match (info.non_coherent && info.space == Space::Global, info.volatile) {
                    (true, _) => MemSem::Constant,
                    (false, true) => MemSem::Strong,
                    _ => MemSem::Weak,
                };
                let mut mods = vec![Mod::E.flag(true), size.set(), sem.set(), Scope::Sys.set()];
                let only_128 = sem != MemSem::Weak && self.vcode.arch == Arch::Sm80;
                mods.extend(hint_mods(info.hint, only_128));
                mods
            }
            _ => vec![size.set()],
        })
    }

    /// Bytes of a vector access.
    fn access_shape(&self, ty: Type, n: usize) -> Result<u32, IselError> {
        let bytes = ty.bytes() * n as u32;
        if MemSize::of_bytes(bytes).is_none() {
            return Err(self.unsupported(format!("vectors of {n} {ty} values")));
        }
        Ok(bytes)
    }

    /// Selects a memory instruction.
    pub(super) fn lower_memory(&mut self, inst: Inst) -> Result<(), IselError> {
        match self.func.insts[inst].op {
            Opcode::Load => self.lower_load(inst),
            Opcode::Store => self.lower_store(inst),
            Opcode::PrefetchL1 | Opcode::PrefetchL2 | Opcode::PrefetchL2Last => self.lower_prefetch(inst),
            Opcode::ToGeneric | Opcode::FromGeneric => self.lower_generic_conversion(inst),
            Opcode::IsSpace => self.lower_is_space(inst),
            other => Err(self.unsupported(format!("MIR `{}`", other.name()))),
        }
    }

    fn mem_info(&self, inst: Inst) -> Result<MemInfo, IselError> {
        match self.func.insts[inst].aux {
            Aux::Mem(info) => Ok(info),
            _ => Err(self.unsupported("a memory access without memory info")),
        }
    }

    /// `load`: the destination is a register, pair or quad; vector elements alias its registers.
    pub fn lower_load(&mut self, inst: Inst) -> Result<(), IselError> {
        let mut info = self.mem_info(inst)?;
        if matches!(info.space, Space::Const | Space::Param) {
            return self.lower_constant_load(inst, &info);
        }
        let data = &self.func.insts[inst];
        let ty = data.ty;
        let mut results = self.func.results[inst].clone();
        if let Some((first, n)) = self.narrowed(&results, ty, &info) {
            info.offset += i64::from(first as u32 * ty.bytes());
            results = results[first..first + n].iter().copied().collect();
        }
        let bytes = self.access_shape(ty, results.len())?;
        let mut mods = self.mem_mods(&info, bytes)?;
        let policy = info.hint.policy.then(|| data.args[data.args.len() - 1]);
        let addr = self.access_operand(data.args[0], info.offset, info.space)?;
        let addr = match policy {
            Some(p) => self.policy_descriptor(p, addr, &mut mods)?,
            None => Arg::op(addr),
        };
        let d = if results.len() == 1 {
            self.def_reg(results[0])
        } else {
            self.vcode.new_vreg(tuple_class(bytes))
        };
        let (op, _) = ops_of(info.space, self.generic_is_global());
        self.emit_sass(op, &[(Role::Dst, MOp::Reg(d))], &[(Role::Addr, addr)], &mods, None)?;
        self.note_partly_used(&results, ty, bytes);
        if results.len() > 1 && ty.bytes() < 4 {
            self.split_narrow(&results, ty, d, bytes)?;
        } else if results.len() > 1 {
            self.split_vector(&results, ty, d);
        }
        Ok(())
    }

    /// The elements a vector load of 32-bit or wider elements needs to read, as ptxas narrows
    /// such loads: (first, count) of the smallest aligned power-of-two run of elements that
    /// holds every element the code reads, when that is fewer than all (`ld.v4` of which
    /// only `.w` is read becomes a 32-bit load at offset 12). Volatile loads keep their
    /// width, and so does a load none of whose elements is read.
    fn narrowed(&self, results: &[Value], ty: Type, info: &MemInfo) -> Option<(usize, usize)> {
        let used: Vec<usize> = (0..results.len()).filter(|&i| self.use_count(results[i]) > 0).collect();
        if results.len() < 2 || ty.bytes() < 4 || info.volatile || used.is_empty() {
            return None;
        }
        let (lo, hi) = (used[0], used[used.len() - 1]);
        let n = (1..results.len())
            .map(|k| 1 << k)
            .find(|&n| lo / n == hi / n)
            .unwrap_or(results.len());
        let n = if lo == hi { 1 } else { n };
        (n < results.len()).then_some((lo / n * n, n))
    }

    /// Records a load of several registers of which some, not all, hold only elements the
    /// code never reads (a register holding any element read counts as read).
    fn note_partly_used(&mut self, results: &[Value], ty: Type, bytes: u32) {
        if bytes <= 4 {
            return;
        }
        let bits = |at: u32| (1u64 << (at / 4 * 4)) - 1;
        let mask = results
            .iter()
            .enumerate()
            .filter(|&(_, &r)| self.use_count(r) > 0)
            .fold(0u64, |m, (i, _)| {
                let (start, end) = (i as u32 * ty.bytes(), (i as u32 + 1) * ty.bytes());
                m | (bits(end.next_multiple_of(4)) & !bits(start))
            });
        if mask != 0 && mask != bits(bytes) {
            self.vcode.partly_used_loads.push((self.srcloc, mask as u32));
        }
    }

    /// Elements of a vector of 8- or 16-bit values loaded into one register or a pair: each
    /// is its word shifted down (upper bits are left undefined, as for every narrow value).
    fn split_narrow(&mut self, results: &[Value], ty: Type, d: VReg, bytes: u32) -> Result<(), IselError> {
        for (i, &r) in results.iter().enumerate() {
            let at = i as u32 * ty.bytes();
            let word = if bytes > 4 {
                MOp::Sub(d, (at / 4) as u8)
            } else {
                MOp::Reg(d)
            };
            let shift = 8 * (at % 4);
            if shift == 0 {
                self.bind(r, word)?;
                continue;
            }
            let srcs = [
                (Role::A, Arg::rz()),
                (Role::B, Arg::imm(shift)),
                (Role::C, Arg::op(word)),
            ];
            let v = MOp::Reg(self.def_reg(r));
            self.emit_sass(
                Op::Shf,
                &[(Role::Dst, v)],
                &srcs,
                &[Mod::Right.flag(true), ShfType::U32.set(), Mod::Hi.flag(true)],
                None,
            )?;
        }
        Ok(())
    }

    /// 8- or 16-bit values packed into 32-bit words with PRMT: pairs of bytes side by side
    /// (selector 0x0040), then pairs of halves (0x5410).
    fn pack_narrow(&mut self, ty: Type, values: &[Value]) -> Result<Vec<MOp>, IselError> {
        let prmt = |me: &mut Self, a: MOp, sel: u32, c: MOp| {
            me.emit_temp(
                Op::Prmt,
                &[(Role::A, Arg::op(a)), (Role::B, Arg::imm(sel)), (Role::C, Arg::op(c))],
                &[],
            )
        };
        let mut halves = Vec::new();
        if ty.bytes() == 1 {
            for pair in values.chunks(2) {
                let (a, b) = (self.src_op(pair[0]), self.src_op(pair[1]));
                halves.push(prmt(self, a, 0x0040, b)?);
            }
        } else {
            halves = values.iter().map(|&v| self.src_op(v)).collect();
        }
        if halves.len() == 1 {
            return Ok(halves);
        }
        let mut words = Vec::new();
        for pair in halves.chunks(2) {
            words.push(prmt(self, pair[0], 0x5410, pair[1])?);
        }
        Ok(words)
    }

    /// Makes the elements of a vector load name the registers of the loaded tuple `d`: a
    /// 64-bit element the aligned pair starting at its first register (`LDS.128 R4` gives
    /// `R4:R5` and `R6:R7`, read in place as ptxas's DFMAs read them).
    fn split_vector(&mut self, results: &[Value], ty: Type, d: VReg) {
        let regs_per = (ty.bytes() / 4) as u8;
        for (i, &r) in results.iter().enumerate() {
            self.alias_sub(r, d, i as u8 * regs_per);
        }
    }

    /// Constant- and parameter-space loads: one LDC per element (`LDC.64` for 64-bit ones).
    fn lower_constant_load(&mut self, inst: Inst, info: &MemInfo) -> Result<(), IselError> {
        let data = &self.func.insts[inst];
        let (ty, addr) = (data.ty, data.args[0]);
        let results = self.func.results[inst].clone();
        let size = MemSize::of_bytes(ty.bytes()).filter(|s| s.bytes() <= 8);
        let size = size.ok_or_else(|| self.unsupported(format!("{}-byte constant loads", ty.bytes())))?;
        for (i, &r) in results.iter().enumerate() {
            let offset = info.offset + (i as u32 * ty.bytes()) as i64;
            let operand = self.mem_operand(addr, offset, info.space)?;
            let d = self.def_reg(r);
            self.emit_sass(
                Op::Ldc,
                &[(Role::Dst, MOp::Reg(d))],
                &[(Role::B, Arg::op(operand))],
                &[size.set()],
                None,
            )?;
        }
        Ok(())
    }

    /// `store`: vector data is packed into a pair or quad unless it already is one.
    pub fn lower_store(&mut self, inst: Inst) -> Result<(), IselError> {
        let info = self.mem_info(inst)?;
        let Some(op) = ops_of(info.space, self.generic_is_global()).1 else {
            return Err(self.unsupported(format!("stores to {}-space memory", info.space.name())));
        };
        let data = &self.func.insts[inst];
        // `.L2::cache_hint`: the policy follows the values.
        let n = data.args.len() - usize::from(info.hint.policy);
        let (ty, values, policy) = (data.ty, data.args[1..n].to_vec(), data.args.get(n).copied());
        let bytes = self.access_shape(ty, values.len())?;
        let mut mods = self.mem_mods(&info, bytes)?;
        let addr = self.access_operand(data.args[0], info.offset, info.space)?;
        let v = self.store_data(ty, &values, bytes)?;
        let addr = match policy {
            Some(p) => self.policy_descriptor(p, addr, &mut mods)?,
            None => Arg::op(addr),
        };
        self.emit_sass(op, &[], &[(Role::Addr, addr), (Role::Data, Arg::op(v))], &mods, None)
    }

    /// A prefetch as ptxas 13.5 compiles it: `CCTL.E.PF1|PF2|PML2 [R+off]` for global and
    /// generic addresses (ptxas prefetches a generic address as a global one), `CCTLL.PF1|PF2`
    /// for local ones; `.L2::evict_last` (sm_80 on) is `.PML2`. Other spaces have none.
    fn lower_prefetch(&mut self, inst: Inst) -> Result<(), IselError> {
        let info = self.mem_info(inst)?;
        let data = &self.func.insts[inst];
        let level = match data.op {
            Opcode::PrefetchL1 => CctlOp::Pf1,
            Opcode::PrefetchL2 => CctlOp::Pf2,
            _ => CctlOp::Pml2,
        };
        let (op, mut mods) = match info.space {
            Space::Global | Space::Generic => (Op::Cctl, vec![Mod::E.flag(true)]),
            Space::Local => (Op::Cctll, vec![]),
            s => return Err(self.unsupported(format!("prefetches of {}-space memory", s.name()))),
        };
        if op == Op::Cctll && level == CctlOp::Pml2 {
            return Err(self.unsupported("an evict-last prefetch of local memory"));
        }
        mods.push(level.set());
        let addr = self.mem_operand(data.args[0], info.offset, info.space)?;
        self.emit_sass(op, &[], &[(Role::Addr, Arg::op(addr))], &mods, None)
    }

    /// The register (or tuple) holding the data of a store.
    fn store_data(&mut self, ty: Type, values: &[Value], bytes: u32) -> Result<MOp, IselError> {
        if values.len() == 1 {
            // A stored zero reads RZ (`STS [R4], RZ`, `STG.E.64 [R2], RZ`), as ptxas stores it.
            let zero = match class_of(ty) {
                VClass::Single => self.foldable(values[0]) == Some(V::Imm(0)),
                VClass::Pair => self.const64(values[0]) == Some(V::Imm(0)),
                _ => false,
            };
            if zero {
                return Ok(MOp::Fixed(V::Reg(ptxc_sass::isa::RZ)));
            }
            return Ok(MOp::Reg(self.reg(values[0])));
        }
        if ty.bytes() < 4 {
            let words = self.pack_narrow(ty, values)?;
            if words.len() == 1 {
                return Ok(words[0]);
            }
            let d = self.vcode.new_vreg(tuple_class(bytes));
            self.push(MInst::new(MKind::Wide {
                op: WideOp::Pack,
                d,
                srcs: words.into_iter().collect(),
                tmp: None,
            }));
            return Ok(MOp::Reg(d));
        }
        if let Some(t) = self.same_tuple(values, bytes) {
            return Ok(MOp::Reg(t));
        }
        let mut parts: SmallVec<[MOp; 3]> = SmallVec::new();
        for &v in values {
            if class_of(ty) == VClass::Pair {
                let r = self.reg(v);
                parts.extend([MOp::Sub(r, 0), MOp::Sub(r, 1)]);
            } else {
                parts.push(self.src_op(v));
            }
        }
        let d = self.vcode.new_vreg(tuple_class(bytes));
        self.push(MInst::new(MKind::Wide {
            op: WideOp::Pack,
            d,
            srcs: parts,
            tmp: None,
        }));
        Ok(MOp::Reg(d))
    }

    /// The tuple whose registers are exactly `values` in order, if there is one.
    fn same_tuple(&self, values: &[Value], bytes: u32) -> Option<VReg> {
        let (t, _) = self.sub_of(values[0])?;
        let ok = values
            .iter()
            .enumerate()
            .all(|(i, &v)| self.sub_of(v) == Some((t, i as u8)));
        (ok && self.vcode.class(t) == tuple_class(bytes)).then_some(t)
    }
}
