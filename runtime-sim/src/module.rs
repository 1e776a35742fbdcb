//! A loaded module: every kernel of a cubin decoded once, module variables placed in global
//! memory, relocations applied to the code and the constant banks, and what a launch needs
//! to know about each kernel.

use crate::decoded::Decoded;
use crate::error::SimError;
use crate::memory::GlobalMemory;
use ptxc_sass::cubin::{self, CubinModule, GlobalSpace, KernelImage, Reloc, RelocKind};
use ptxc_sass::isa::Arch;
use ptxc_sass::isa::values::{MemOrder, MemSem, Scope};
use ptxc_sass::isa::{Op, decode};
use std::collections::HashMap;

/// Bytes of call stack per thread on top of the kernel's own frame (the driver's default
/// `cudaLimitStackSize`).
pub const STACK_BYTES: u32 = 1024;

/// A kernel ready to run.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// Name.
    pub name: String,
    /// The architecture of its code (which latency tables its control codes follow).
    pub arch: Arch,
    /// Decoded instructions; instruction `i` is at byte offset `16 * i`.
    pub insts: Vec<Decoded>,
    /// Registers per thread (as recorded in the cubin).
    pub regs: u32,
    /// Register rows a warp needs (covers every register the code names).
    pub reg_rows: usize,
    /// Static shared memory in bytes.
    pub shared_size: u32,
    /// Parameter block size in bytes.
    pub param_size: u32,
    /// Parameter `(offset, size)` in declaration order.
    pub params: Vec<(u32, u32)>,
    /// Local memory per thread in bytes (`EIATTR_FRAME_SIZE`).
    pub local_size: u32,
    /// Local memory per thread including the call stack (the value of `c[0x0][0x28]`).
    pub local_bytes: u32,
    /// `.nv.constant2.<name>`.
    pub const_bank2: Vec<u8>,
    /// CTAs may communicate through global memory: the kernel has global or generic
    /// atomics, GPU- or system-scope fences, or strong (volatile) global accesses.
    pub communicates: bool,
    /// The kernel reads shared memory through the async proxy (HGMMA): its CTAs track which
    /// warps wrote shared memory since their last `FENCE.VIEW.ASYNC.S`.
    pub async_proxy: bool,
    /// The kernel's cluster attributes (sm_90: `.reqnctapercluster`, `.maxclusterrank`,
    /// `.explicitcluster`).
    pub cluster: ClusterAttrs,
}

/// A kernel's cluster attributes, from its `EIATTR_CTA_PER_CLUSTER`,
/// `EIATTR_MAX_CLUSTER_RANK` and `EIATTR_EXPLICIT_CLUSTER`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClusterAttrs {
    /// The cluster shape every launch has.
    pub dims: Option<[u32; 3]>,
    /// At most this many CTAs per cluster.
    pub max_rank: Option<u32>,
    /// The kernel must be launched with a cluster shape.
    pub explicit: bool,
}

impl ClusterAttrs {
    /// The cluster shape of a launch that asks for `asked` (`None`: none): the kernel's
    /// own shape when the launch gives none; an error when the two differ, when an explicit
    /// cluster kernel gets none, or when the cluster is larger than `.maxclusterrank`.
    pub fn resolve(&self, kernel: &str, asked: Option<[u32; 3]>) -> Result<Option<[u32; 3]>, SimError> {
        let bad = |what: String| Err(SimError::BadLaunch(format!("kernel `{kernel}`: {what}")));
        let shape = match (asked, self.dims) {
            (Some(a), Some(k)) if a != k => {
                return bad(format!(
                    "launched with clusters of {a:?} CTAs but compiled for {k:?} (`.reqnctapercluster`)"
                ));
            }
            (a, k) => a.or(k),
        };
        if self.explicit && shape.is_none() {
            return bad("`.explicitcluster` needs a launch with a cluster shape (`cluster = [x, y, z]`)".into());
        }
        if let (Some(s), Some(max)) = (shape, self.max_rank) {
            let size: u64 = s.iter().map(|&x| u64::from(x)).product();
            if size > u64::from(max) {
                return bad(format!(
                    "a cluster of {size} CTAs exceeds its `.maxclusterrank` of {max}"
                ));
            }
        }
        Ok(shape)
    }
}

/// A loaded module.
#[derive(Clone, Debug)]
pub struct Module {
    /// Kernels by name.
    pub kernels: Vec<Kernel>,
    /// Constant bank 3 (user `.const` data, relocated).
    pub const_bank3: Vec<u8>,
    /// Device address of the copy of constant bank 3 in global memory, through which
    /// generic addresses reach `.const` data (`cvta.const`): the driver gives it to kernels
    /// at `c[0x0][0x50]`, which ptxas's code reads for it (`ULDC.64 UR4, c[0x0][0x50]` and
    /// the symbol's offset in the bank added, e.g. for numba's `print()` format strings).
    pub const_base: u64,
    /// Constant bank 4 (addresses of globals).
    pub const_bank4: Vec<u8>,
    /// Module variables.
    pub globals: Vec<GlobalSymbol>,
}

/// A module variable placed in device memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalSymbol {
    /// Name.
    pub name: String,
    /// Device address.
    pub addr: u64,
    /// Size in bytes.
    pub size: u64,
    /// Offset in constant bank 3 for `.const` variables.
    pub const_offset: Option<u64>,
}

/// Device addresses of the module's symbols.
struct Symbols {
    addrs: HashMap<String, u64>,
}

impl Symbols {
    fn get(&self, name: &str, what: &str) -> Result<u64, SimError> {
        self.addrs
            .get(name)
            .copied()
            .ok_or_else(|| SimError::BadModule(format!("{what}: relocation against unknown symbol `{name}`")))
    }
}

/// Places the module's `.global` and `.const` variables in global memory.
fn place_globals(m: &CubinModule, mem: &mut GlobalMemory) -> (Symbols, Vec<GlobalSymbol>, [u64; 3]) {
    let extent = |space: GlobalSpace, init: bool| {
        m.globals
            .iter()
            .filter(|g| g.space == space && g.init.is_some() == init)
            .map(|g| g.offset + g.size)
            .max()
            .unwrap_or(0)
    };
    let init_size = extent(GlobalSpace::Global, true);
    let zero_size = extent(GlobalSpace::Global, false);
    let init_base = mem.alloc(init_size as usize);
    let zero_base = mem.alloc(zero_size as usize);
    let const_base = mem.alloc(m.const_bank3.len());
    let _ = mem.write(const_base, &m.const_bank3);
    let mut addrs = HashMap::new();
    let mut globals = Vec::new();
    for g in &m.globals {
        let base = match (g.space, g.init.is_some()) {
            (GlobalSpace::Const, _) => const_base,
            (GlobalSpace::Global, true) => init_base,
            (GlobalSpace::Global, false) => zero_base,
        };
        let addr = base + g.offset;
        if let Some(data) = &g.init {
            let _ = mem.write(addr, data);
        }
        addrs.insert(g.name.clone(), addr);
        globals.push(GlobalSymbol {
            name: g.name.clone(),
            addr,
            size: g.size,
            const_offset: (g.space == GlobalSpace::Const).then_some(g.offset),
        });
    }
    for (f, name) in crate::driver::DRIVER_FNS {
        addrs.insert(name.to_string(), f.addr());
    }
    addrs.insert(".nv.global.init".into(), init_base);
    addrs.insert(".nv.global".into(), zero_base);
    addrs.insert(".nv.constant3".into(), const_base);
    (Symbols { addrs }, globals, [init_base, zero_base, const_base])
}

/// The value a relocation stores: the symbol's address plus the explicit addend, or plus the
/// bits already in place (`Elf64_Rel`).
fn reloc_value(r: &Reloc, syms: &Symbols, in_place: u64, what: &str) -> Result<u64, SimError> {
    let base = syms.get(&r.symbol, what)?;
    Ok(base.wrapping_add(r.addend.map_or(in_place, |a| a as u64)))
}

/// Applies data relocations (64-bit addresses) to `bytes`.
fn relocate_data(bytes: &mut [u8], relocs: &[Reloc], syms: &Symbols, what: &str) -> Result<(), SimError> {
    for r in relocs {
        let o = r.offset as usize;
        let Some(slot) = bytes.get_mut(o..o + 8) else {
            return Err(SimError::BadModule(format!(
                "{what}: relocation at {o:#x} outside the data"
            )));
        };
        match r.kind {
            RelocKind::R_CUDA_64 | RelocKind::R_CUDA_G64 => {
                let in_place = u64::from_le_bytes(slot.try_into().expect("8 bytes"));
                let v = reloc_value(r, syms, in_place, what)?;
                slot.copy_from_slice(&v.to_le_bytes());
            }
            k => {
                return Err(SimError::BadModule(format!("{what}: unsupported data relocation {k}")));
            }
        }
    }
    Ok(())
}

/// Applies code relocations (address halves in 32-bit immediates, absolute call targets).
fn relocate_code(k: &KernelImage, syms: &Symbols) -> Result<Vec<u8>, SimError> {
    let mut code = k.code.clone();
    let what = format!("kernel `{}`", k.name);
    let functions: HashMap<&str, u64> = k.functions.iter().map(|f| (f.name.as_str(), f.offset)).collect();
    for r in &k.relocs {
        let o = r.offset as usize;
        let Some(word) = code.get(o..o + 16) else {
            return Err(SimError::BadModule(format!(
                "{what}: relocation at {o:#x} outside the code"
            )));
        };
        let mut bits = u128::from_le_bytes(word.try_into().expect("16 bytes"));
        let field = |lo: u32, len: u32| (bits >> lo) as u64 & ((1u64 << len) - 1);
        match r.kind {
            RelocKind::R_CUDA_ABS32_LO_32 | RelocKind::R_CUDA_ABS32_HI_32 => {
                let v = reloc_value(r, syms, 0, &what)?;
                let part = if r.kind == RelocKind::R_CUDA_ABS32_LO_32 {
                    v as u32
                } else {
                    (v >> 32) as u32
                };
                let _ = field;
                bits = (bits & !(0xffff_ffffu128 << 32)) | (part as u128) << 32;
            }
            RelocKind::R_CUDA_ABS47_34 => {
                let target = functions
                    .get(r.symbol.as_str())
                    .copied()
                    .or_else(|| (r.symbol == k.name).then_some(0))
                    .ok_or_else(|| SimError::BadModule(format!("{what}: call to unknown function `{}`", r.symbol)))?;
                let v = target.wrapping_add(r.addend.unwrap_or(0) as u64) & ((1 << 47) - 1);
                bits = (bits & !(((1u128 << 47) - 1) << 34)) | (v as u128) << 34;
            }
            kind => {
                return Err(SimError::BadModule(format!(
                    "{what}: unsupported code relocation {kind}"
                )));
            }
        }
        code[o..o + 16].copy_from_slice(&bits.to_le_bytes());
    }
    Ok(code)
}

/// Decodes a kernel's code; instructions the decoder does not know become placeholders that
/// fault when executed.
fn decode_code(arch: Arch, code: &[u8]) -> Vec<Decoded> {
    code.chunks(16)
        .enumerate()
        .map(|(i, c)| {
            let pc = 16 * i as u32;
            let mut w = [0u8; 16];
            w[..c.len()].copy_from_slice(c);
            match decode::decode(arch, u128::from_le_bytes(w), pc as u64) {
                Ok(inst) => Decoded::new(inst, pc),
                Err(e) => Decoded::undecodable(pc, e.to_string()),
            }
        })
        .collect()
}

/// Whether an instruction suggests CTAs talking to each other through global memory.
fn communicates(d: &Decoded) -> bool {
    let Some(inst) = &d.inst else { return false };
    // A call through a register may reach a driver function (printf, malloc): their
    // buffer and heap are device-wide.
    let register = |s: &crate::decoded::SrcOp| matches!(s.src, crate::decoded::Src::Reg(_));
    if d.op == Op::Call && (register(&d.a) || register(&d.b)) {
        return true;
    }
    // From sm_80 on, semantics and scope are one code.
    let order = inst.get_mod::<MemOrder>();
    let scope_wide = || {
        order
            .map(MemOrder::scope)
            .or_else(|| inst.get_mod::<Scope>())
            .is_none_or(|s| !matches!(s, Scope::Cta | Scope::Sm))
    };
    let strong = || {
        order
            .map(MemOrder::sem)
            .or_else(|| inst.get_mod::<MemSem>())
            .is_some_and(|s| matches!(s, MemSem::Strong | MemSem::Mmio))
    };
    match d.op {
        Op::Atomg | Op::AtomgCas | Op::Red | Op::Atom | Op::AtomCas => true,
        Op::Membar => scope_wide(),
        Op::Ldg | Op::Stg | Op::Ld | Op::St => strong() && scope_wide(),
        _ => false,
    }
}

/// The architectures the simulator models (each has a device model in [`crate::config`]).
pub const MODELLED: &[Arch] = &[Arch::Sm75, Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90, Arch::Sm90a];

/// The architecture of the cubin `bytes`, if the simulator models it.
pub fn cubin_arch(bytes: &[u8]) -> Result<Arch, SimError> {
    let m = cubin::read(bytes).map_err(|e| SimError::BadModule(e.to_string()))?;
    modelled_arch(&m)
}

/// The architecture of `m`, if the simulator models it.
fn modelled_arch(m: &cubin::CubinModule) -> Result<Arch, SimError> {
    let names = || crate::config::Config::device_names(None);
    match m.arch() {
        Some(a) if MODELLED.contains(&a) => Ok(a),
        Some(a) => Err(SimError::UnmodelledArch {
            cubin: a.name().into(),
            modelled: names(),
        }),
        None => Err(SimError::UnmodelledArch {
            cubin: format!("sm_{}", m.sm),
            modelled: names(),
        }),
    }
}

impl Module {
    /// Reads and decodes a cubin, placing its variables in `mem`.
    pub fn load(bytes: &[u8], mem: &mut GlobalMemory) -> Result<Module, SimError> {
        let m = cubin::read(bytes).map_err(|e| SimError::BadModule(e.to_string()))?;
        let arch = modelled_arch(&m)?;
        let (syms, globals, [_, _, const_base]) = place_globals(&m, mem);
        // Initialisers of globals that hold addresses.
        for r in &m.global_init_relocs {
            let v = reloc_value(r, &syms, 0, "global initialiser")?;
            let at = syms.get(".nv.global.init", "global initialiser")? + r.offset;
            let mut old = [0u8; 8];
            let in_place = mem.read(at, &mut old).map(|_| u64::from_le_bytes(old)).unwrap_or(0);
            let value = if r.addend.is_none() {
                v.wrapping_add(in_place)
            } else {
                v
            };
            let _ = mem.write(at, &value.to_le_bytes());
        }
        let mut const_bank3 = m.const_bank3.clone();
        relocate_data(&mut const_bank3, &m.const_bank3_relocs, &syms, "constant bank 3")?;
        if let Ok(base) = syms.get(".nv.constant3", "") {
            let _ = mem.write(base, &const_bank3);
        }
        let mut const_bank4 = m.const_bank4.clone();
        relocate_data(&mut const_bank4, &m.const_bank4_relocs, &syms, "constant bank 4")?;
        let mut kernels = Vec::new();
        for k in m.kernels.iter().filter(|k| k.entry) {
            let code = relocate_code(k, &syms)?;
            if !code.len().is_multiple_of(16) {
                return Err(SimError::Decode {
                    kernel: k.name.clone(),
                    message: format!("code size {} is not a multiple of 16 bytes", code.len()),
                });
            }
            let insts = decode_code(arch, &code);
            let mut params: Vec<(u32, u32, u32)> = k.params.iter().map(|p| (p.ordinal, p.offset, p.size)).collect();
            params.sort();
            let used = insts.iter().map(|d| d.regs_used as usize).max().unwrap_or(0);
            let communicates = insts.iter().any(communicates);
            let async_proxy = insts.iter().any(|d| d.op == Op::Hgmma);
            let local_bytes = (k.frame_size + STACK_BYTES).next_multiple_of(16);
            kernels.push(Kernel {
                name: k.name.clone(),
                arch,
                insts,
                regs: k.reg_count,
                reg_rows: (k.reg_count as usize).max(used).max(1),
                shared_size: k.shared_size,
                param_size: k.param_size,
                params: params.into_iter().map(|(_, o, s)| (o, s)).collect(),
                local_size: k.frame_size,
                local_bytes,
                const_bank2: k.const_bank2.clone(),
                communicates,
                async_proxy,
                cluster: ClusterAttrs {
                    dims: k.cluster_dims,
                    max_rank: k.max_cluster_rank,
                    explicit: k.explicit_cluster,
                },
            });
        }
        Ok(Module {
            kernels,
            const_bank3,
            const_base,
            const_bank4,
            globals,
        })
    }

    /// The kernel called `name`.
    pub fn kernel(&self, name: &str) -> Result<&Kernel, SimError> {
        self.kernels
            .iter()
            .find(|k| k.name == name)
            .ok_or_else(|| SimError::NoKernel(name.to_string()))
    }

    /// Module variable `name`.
    pub fn global(&self, name: &str) -> Option<&GlobalSymbol> {
        self.globals.iter().find(|g| g.name == name)
    }
}
