//! Where variables live, laid out as ptxas lays them out: module `.global` variables in
//! `.nv.global.init` (initialised) or `.nv.global`, their addresses in 64-bit slots of
//! constant bank 4 (filled by `R_CUDA_64` relocations); module `.const` variables in constant
//! bank 3 (their addresses are bank offsets); a kernel's shared variables at offsets in the
//! CTA's shared memory (dynamic `.extern .shared` arrays after the static ones); its local
//! variables at offsets in the thread's stack frame. The functions the driver provides
//! (`vprintf`, ...) that a kernel calls are undefined symbols whose addresses also sit in
//! bank-4 slots, before the variables' (as ptxas places them).

use ptxc_mir::ir::{Aux, DriverFn, Function, MemVar, Module, Opcode, Space};
use ptxc_sass::cubin::{Binding, CubinModule, ExternSymbol, GlobalSpace, GlobalVar, Reloc, RelocKind, SymbolKind};
use rustc_hash::FxHashMap as HashMap;

/// Where one variable of a kernel lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// A `.global` variable whose address is in `c[0x4][slot]`.
    Global {
        /// Byte offset of the address slot in constant bank 4.
        slot: u32,
    },
    /// A `.const` variable at this offset of constant bank 3.
    Const {
        /// Byte offset in bank 3 (also the variable's `.const` address).
        offset: u32,
    },
    /// A shared variable at this shared-memory address.
    Shared {
        /// Byte offset in the CTA's shared memory.
        offset: u32,
    },
    /// A local variable at this offset from the stack pointer.
    Local {
        /// Byte offset in the frame.
        offset: u32,
    },
}

/// The variables of one kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelVars {
    /// The place of each entry of `Function::vars`.
    pub places: Vec<Place>,
    /// Static shared memory in bytes.
    pub shared_size: u32,
    /// Largest alignment of a shared variable.
    pub shared_align: u32,
    /// The kernel declares a dynamic (`.extern .shared`) array.
    pub dynamic_shared: bool,
    /// Bytes of the thread's stack frame (local variables), a multiple of 8.
    pub frame_size: u32,
    /// Largest alignment of a local variable (at least 8): the frame keeps it.
    pub frame_align: u32,
    /// The bank-4 address slot of every driver function of the module.
    pub driver_slots: Vec<(DriverFn, u32)>,
    /// The variables of each of the kernel's device functions (`Function::callees`): their
    /// own local variables in their own frames, the kernel's shared variables where the
    /// kernel has them.
    pub callees: Vec<KernelVars>,
    /// The first convergence barrier a device function may use (those below it are its
    /// callers'; set while the kernel compiles); 0 in a kernel.
    pub barrier_base: u8,
}

impl KernelVars {
    /// The bank-4 slot holding the address of driver function `f`.
    pub fn driver_slot(&self, f: DriverFn) -> Option<u32> {
        self.driver_slots.iter().find(|(g, _)| *g == f).map(|(_, s)| *s)
    }
}

/// The driver functions `f` calls, in order of first call.
pub fn driver_calls(f: &Function) -> Vec<DriverFn> {
    let mut out = Vec::new();
    for d in f.insts.values() {
        if d.op != Opcode::CallDriver {
            continue;
        }
        if let Aux::Imm(i) = d.aux
            && let Some(g) = DriverFn::from_index(i)
            && !out.contains(&g)
        {
            out.push(g);
        }
    }
    out
}

/// The kernels of `m` and their device functions.
fn with_callees(m: &Module) -> impl Iterator<Item = &Function> {
    m.functions.iter().flat_map(|f| std::iter::once(f).chain(&f.callees))
}

/// A variable-layout error (bad input that the front end let through).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("variable `{name}`: {what}")]
pub struct LayoutError {
    /// The variable.
    pub name: String,
    /// What is wrong.
    pub what: String,
}

/// The module-scope variables of a module and the constant-bank data that describes them.
#[derive(Clone, Debug, Default)]
pub struct ModuleVars {
    by_name: HashMap<String, Place>,
    globals: Vec<GlobalVar>,
    init_bytes: u64,
    zero_bytes: u64,
    bank3: Vec<u8>,
    bank3_relocs: Vec<Reloc>,
    bank4: Vec<u8>,
    bank4_relocs: Vec<Reloc>,
    init_relocs: Vec<Reloc>,
    drivers: Vec<(DriverFn, u32)>,
    /// Shared bytes the system reserves before a kernel's variables (`Arch::reserved_shared`).
    reserved_shared: u32,
}

fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a.max(1)) * a.max(1)
}

/// Bank 3 holds at most 64 KiB.
const BANK_BYTES: u64 = 0x1_0000;

impl ModuleVars {
    /// Lays out the module variables that the kernels of `m` name (each name once), for a
    /// target that reserves `reserved_shared` bytes before a kernel's shared variables.
    pub fn new(m: &Module, reserved_shared: u32) -> Result<ModuleVars, LayoutError> {
        let mut mv = ModuleVars {
            reserved_shared,
            ..ModuleVars::default()
        };
        for f in with_callees(m) {
            for d in driver_calls(f) {
                if mv.drivers.iter().all(|(g, _)| *g != d) {
                    let slot = mv.bank4.len() as u32;
                    mv.bank4.extend([0u8; 8]);
                    mv.bank4_relocs
                        .push(Reloc::new(u64::from(slot), RelocKind::R_CUDA_64, d.name()));
                    mv.drivers.push((d, slot));
                }
            }
        }
        for f in with_callees(m) {
            for v in &f.vars {
                if matches!(v.space, Space::Global | Space::Const) && !mv.by_name.contains_key(&v.name) {
                    mv.place(v)?;
                }
            }
        }
        for f in with_callees(m) {
            for v in &f.vars {
                mv.relocate(f, v)?;
            }
        }
        Ok(mv)
    }

    fn place(&mut self, v: &MemVar) -> Result<(), LayoutError> {
        let align = u64::from(v.align.max(1));
        let (space, offset, place) = if v.space == Space::Const {
            let offset = align_up(self.bank3.len() as u64, align);
            if offset + v.size > BANK_BYTES {
                return Err(LayoutError {
                    name: v.name.clone(),
                    what: "the `.const` variables exceed the 64 KiB of constant bank 3".into(),
                });
            }
            self.bank3.resize(offset as usize, 0);
            let mut bytes = v.init.clone().unwrap_or_default();
            bytes.resize(v.size as usize, 0);
            self.bank3.extend(bytes);
            let place = Place::Const { offset: offset as u32 };
            (GlobalSpace::Const, offset, place)
        } else {
            let counter = if v.init.is_some() {
                &mut self.init_bytes
            } else {
                &mut self.zero_bytes
            };
            let offset = align_up(*counter, align);
            *counter = offset + v.size;
            let slot = self.bank4.len() as u32;
            self.bank4.extend([0u8; 8]);
            self.bank4_relocs
                .push(Reloc::new(u64::from(slot), RelocKind::R_CUDA_64, v.name.clone()));
            (GlobalSpace::Global, offset, Place::Global { slot })
        };
        self.globals.push(GlobalVar {
            name: v.name.clone(),
            space,
            offset,
            size: v.size,
            align: align as u32,
            init: (space == GlobalSpace::Global)
                .then(|| v.init.clone())
                .flatten()
                .map(|mut b| {
                    b.resize(v.size as usize, 0);
                    b
                }),
            binding: Binding::Global,
        });
        self.by_name.insert(v.name.clone(), place);
        Ok(())
    }

    /// Addresses in the initial bytes of module variable `v` of `f`: relocations for
    /// `.global` targets, the bank or shared offset written in place for the others.
    fn relocate(&mut self, f: &Function, v: &MemVar) -> Result<(), LayoutError> {
        let Some(&place) = self.by_name.get(&v.name) else {
            return Ok(());
        };
        let kernel = self.kernel_local_places(f);
        for &(off, target) in &v.relocs {
            let t = &f.vars[target as usize];
            let value = match (self.by_name.get(&t.name), kernel.get(target as usize)) {
                (Some(Place::Global { .. }), _) => None,
                (Some(Place::Const { offset }), _) => Some(u64::from(*offset)),
                (_, Some(Some(Place::Shared { offset } | Place::Local { offset }))) => Some(u64::from(*offset)),
                _ => {
                    return Err(LayoutError {
                        name: v.name.clone(),
                        what: format!("its initialiser takes the address of `{}`, which has no place", t.name),
                    });
                }
            };
            match (place, value) {
                (Place::Global { .. }, None) => {
                    let at = self.global(&v.name).offset + off;
                    self.push_init_reloc(at, &t.name, false);
                }
                (Place::Const { offset }, None) => {
                    self.push_init_reloc(u64::from(offset) + off, &t.name, true);
                }
                (Place::Const { offset }, Some(x)) => {
                    let at = (u64::from(offset) + off) as usize;
                    self.bank3[at..at + 8].copy_from_slice(&x.to_le_bytes());
                }
                // Module variables are global or constant.
                (Place::Shared { .. } | Place::Local { .. }, _) => {}
                (Place::Global { .. }, Some(x)) => {
                    let g = self.globals.iter_mut().find(|g| g.name == v.name).expect("placed");
                    if let Some(init) = &mut g.init {
                        let at = off as usize;
                        init[at..at + 8].copy_from_slice(&x.to_le_bytes());
                    }
                }
            }
        }
        Ok(())
    }

    fn push_init_reloc(&mut self, at: u64, target: &str, in_bank3: bool) {
        let list = if in_bank3 {
            &mut self.bank3_relocs
        } else {
            &mut self.init_relocs
        };
        if !list.iter().any(|r| r.offset == at) {
            list.push(Reloc::new(at, RelocKind::R_CUDA_G64, target));
        }
    }

    fn global(&self, name: &str) -> &GlobalVar {
        self.globals.iter().find(|g| g.name == name).expect("placed")
    }

    /// Shared and local places of `f`'s variables (module variables give `None`).
    fn kernel_local_places(&self, f: &Function) -> Vec<Option<Place>> {
        let k = self.lay_out_kernel(f, |_| None);
        k.places.into_iter().map(Some).collect()
    }

    /// Shared variables start after the reserved bytes, when the kernel has any.
    fn lay_out_kernel(&self, f: &Function, module: impl Fn(&MemVar) -> Option<Place>) -> KernelVars {
        let mut k = KernelVars {
            shared_align: 1,
            frame_align: 8,
            ..KernelVars::default()
        };
        let has_shared = f.vars.iter().any(|v| v.space == Space::Shared);
        let mut shared = if has_shared { u64::from(self.reserved_shared) } else { 0 };
        let mut local = 0u64;
        let mut dynamic = Vec::new();
        for (i, v) in f.vars.iter().enumerate() {
            let a = u64::from(v.align.max(1));
            let place = match v.space {
                Space::Shared if v.size == 0 => {
                    dynamic.push(i);
                    k.shared_align = k.shared_align.max(a as u32);
                    Place::Shared { offset: 0 }
                }
                Space::Shared => {
                    shared = align_up(shared, a);
                    let p = Place::Shared { offset: shared as u32 };
                    shared += v.size;
                    k.shared_align = k.shared_align.max(a as u32);
                    p
                }
                Space::Local | Space::Param | Space::Generic => {
                    k.frame_align = k.frame_align.max(a as u32);
                    local = align_up(local, a);
                    let p = Place::Local { offset: local as u32 };
                    local += v.size;
                    p
                }
                // The lowering makes no variable of the cluster's shared memory.
                Space::Global | Space::Const | Space::SharedCluster => module(v).unwrap_or(Place::Const { offset: 0 }),
            };
            k.places.push(place);
        }
        // Dynamic shared arrays start after the static ones, 16-byte aligned (as the driver
        // places them).
        let dyn_start = align_up(shared, 16) as u32;
        for i in &dynamic {
            k.places[*i] = Place::Shared { offset: dyn_start };
        }
        k.dynamic_shared = !dynamic.is_empty();
        // ptxas pads the static part to the dynamic arrays' start.
        k.shared_size = if k.dynamic_shared { dyn_start } else { shared as u32 };
        k.frame_size = align_up(local, k.frame_align as u64) as u32;
        k
    }

    /// The places of `f`'s variables, and of its device functions'.
    pub fn kernel(&self, f: &Function) -> KernelVars {
        let mut k = self.lay_out_kernel(f, |v| self.by_name.get(&v.name).copied());
        k.driver_slots = self.drivers.clone();
        k.callees = f.callees.iter().map(|c| self.device_function(c, f, &k)).collect();
        k
    }

    /// The places of the variables of `c`, a device function of `kernel` (whose variables
    /// are at `kv`): its local variables in its own frame, its shared variables where the
    /// kernel has them (the lowering gives the kernel every shared variable its device
    /// functions name).
    fn device_function(&self, c: &Function, kernel: &Function, kv: &KernelVars) -> KernelVars {
        let mut d = self.lay_out_kernel(c, |v| self.by_name.get(&v.name).copied());
        for (i, v) in c.vars.iter().enumerate().filter(|(_, v)| v.space == Space::Shared) {
            if let Some(j) = kernel.vars.iter().position(|k| k.name == v.name) {
                d.places[i] = kv.places[j];
            }
        }
        d.shared_size = kv.shared_size;
        d.shared_align = kv.shared_align;
        d.dynamic_shared = kv.dynamic_shared;
        d.driver_slots = self.drivers.clone();
        d
    }

    /// Bytes of `.global` variables (as `ptxas -v` reports "gmem").
    pub fn global_bytes(&self) -> u64 {
        self.init_bytes + self.zero_bytes
    }

    /// Puts the variables, constant banks 3 and 4 and the relocations into `m`.
    pub fn install(self, m: &mut CubinModule) {
        m.globals = self.globals;
        m.const_bank3 = self.bank3;
        m.const_bank3_relocs = self.bank3_relocs;
        m.const_bank4 = self.bank4;
        m.const_bank4_relocs = self.bank4_relocs;
        m.global_init_relocs = self.init_relocs;
        m.externs = self
            .drivers
            .iter()
            .map(|(d, _)| ExternSymbol {
                name: d.name().to_string(),
                kind: SymbolKind::Function,
                binding: Binding::Global,
            })
            .collect();
    }
}
