//! The symbol table in the writer's canonical order, which follows ptxas' creation order:
//! local symbols first (notes, then per kernel its code, shared memory, the module data on the
//! first kernel, bank 2, internal functions, bank 0; then frames and tables), then the
//! non-local ones (per kernel: the kernel, the module's visible variables and externs on the
//! first kernel, its visible functions).
//!
//! sm_90 differs: the reserved shared-memory symbols follow the first kernel's symbol, the
//! nameless `.nv.reservedSmem.cap` the first kernel that addresses shared memory (before
//! the externs when that is the first kernel), and the `.nv.constant0.<k>` section symbols
//! come last, after the non-local ones; a shared-memory section symbol exists only when the
//! kernel has more than the reserved shared memory.

use super::plan::{STT_FUNC, STT_OBJECT, STT_SECTION, SectionPlan, SymbolPlan};
use crate::cubin::family::{Family, family};
use crate::cubin::model::{Binding, CubinModule, ElfFlavour, GlobalSpace, GlobalVar, KernelImage, SymbolKind};
use crate::cubin::names::*;
use crate::cubin::notes;

/// All symbols of `m` (without the null symbol), given the planned sections.
pub fn plan_symbols(m: &CubinModule, sections: &[SectionPlan]) -> Vec<SymbolPlan> {
    let fam = family(m.sm);
    let exists = |name: &str| sections.iter().any(|s| s.name == name);
    let mut locals = Vec::new();
    if m.flavour == ElfFlavour::V8 {
        locals.push(section_symbol(notes::TKINFO));
        locals.push(section_symbol(notes::CUINFO));
    }
    for (i, k) in m.kernels.iter().enumerate() {
        locals.extend(kernel_locals(m, fam, k, i == 0, &exists));
    }
    if m.kernels.is_empty() {
        locals.extend(module_data_locals(m, &exists));
    }
    if sections.iter().any(|s| s.name == DEBUG_FRAME && !s.is_empty()) {
        locals.push(section_symbol(DEBUG_FRAME));
    }
    locals.extend(m.extra_sections.iter().map(|s| section_symbol(&s.name)));
    for table in [CALLGRAPH, REL_ACTION] {
        if exists(table) {
            locals.push(section_symbol(table));
        }
    }
    locals.extend(non_local_symbols(m, fam));
    if !fam.locals_first {
        locals.extend(m.kernels.iter().filter(|k| k.entry).map(bank0_symbol));
    }
    locals
}

/// The local symbols created with kernel `k`.
fn kernel_locals(
    m: &CubinModule,
    fam: &Family,
    k: &KernelImage,
    first: bool,
    exists: &dyn Fn(&str) -> bool,
) -> Vec<SymbolPlan> {
    let mut out = Vec::new();
    if k.binding == Binding::Local {
        out.push(kernel_symbol(k));
    }
    out.push(section_symbol(&kernel_section(TEXT_PREFIX, &k.name)));
    if k.shared_size > fam.reserved_shared {
        out.push(section_symbol(&kernel_section(SHARED_PREFIX, &k.name)));
    }
    if first {
        out.extend(module_data_locals(m, exists));
    }
    if !k.const_bank2.is_empty() {
        out.push(SymbolPlan {
            name: kernel_section(fam.bank2_symbol_prefix, &k.name),
            ..section_symbol(&kernel_section(CONSTANT2_PREFIX, &k.name))
        });
    }
    out.extend(functions(k, true));
    if fam.locals_first && k.entry {
        out.push(bank0_symbol(k));
    }
    out
}

fn non_local_symbols(m: &CubinModule, fam: &Family) -> Vec<SymbolPlan> {
    let reserved = if fam.reserved_smem {
        reserved_symbols()
    } else {
        Vec::new()
    };
    let cap_owner = m
        .kernels
        .iter()
        .position(|k| k.uses_shared_memory)
        .filter(|_| fam.reserved_smem);
    let mut out = Vec::new();
    for (i, k) in m.kernels.iter().enumerate() {
        if k.binding != Binding::Local {
            out.push(kernel_symbol(k));
        }
        if i == 0 {
            out.extend(reserved.iter().cloned());
            out.extend(visible_variables(m));
        }
        if cap_owner == Some(i) {
            out.push(reserved_cap_symbol());
        }
        out.extend(extern_symbols(m, |e| extern_owner(m, fam, e) == i));
        out.extend(functions(k, false));
    }
    if m.kernels.is_empty() {
        out.extend(reserved);
        out.extend(visible_variables(m));
        out.extend(extern_symbols(m, |_| true));
    }
    out
}

/// The kernel after which extern `name` comes: the first that refers to it where the
/// family says so, else (and for externs no kernel names) the first kernel.
fn extern_owner(m: &CubinModule, fam: &Family, name: &str) -> usize {
    let first_user = || m.kernels.iter().position(|k| k.externs.iter().any(|e| e == name));
    if fam.externs_with_first_user {
        first_user().unwrap_or(0)
    } else {
        0
    }
}

/// Section symbols of the module data sections, each followed by its local variables.
fn module_data_locals(m: &CubinModule, exists: &dyn Fn(&str) -> bool) -> Vec<SymbolPlan> {
    let mut out = Vec::new();
    for section in [GLOBAL_INIT, GLOBAL, CONSTANT3] {
        if exists(section) {
            out.push(section_symbol(section));
            let vars = m
                .globals
                .iter()
                .filter(|g| g.binding == Binding::Local && var_section(g) == section);
            out.extend(vars.map(variable_symbol));
        }
    }
    if exists(CONSTANT4) {
        out.push(section_symbol(CONSTANT4));
    }
    out
}

fn visible_variables(m: &CubinModule) -> impl Iterator<Item = SymbolPlan> + '_ {
    m.globals
        .iter()
        .filter(|g| g.binding != Binding::Local)
        .map(variable_symbol)
}

fn extern_symbols<'m>(m: &'m CubinModule, wanted: impl Fn(&str) -> bool + 'm) -> impl Iterator<Item = SymbolPlan> + 'm {
    m.externs.iter().filter(move |e| wanted(&e.name)).map(|e| SymbolPlan {
        info: binding_bits(e.binding) | symbol_type(e.kind),
        ..symbol(&e.name, None)
    })
}

/// sm_90's `.nv.reservedSmem.offset0` (undefined weak object of 4 bytes) and
/// `__nv_reservedSMEM_offset_0_alias` (weak, in `.nv.shared.reserved.0`).
fn reserved_symbols() -> Vec<SymbolPlan> {
    vec![
        SymbolPlan {
            info: binding_bits(Binding::Weak) | STT_OBJECT,
            size: 4,
            ..symbol(RESERVED_SMEM_OFFSET, None)
        },
        SymbolPlan {
            info: binding_bits(Binding::Weak),
            other: STO_RESERVED_SHARED,
            ..symbol(RESERVED_SMEM_ALIAS, Some(RESERVED_SHARED.into()))
        },
    ]
}

/// The nameless local symbol ptxas leaves for its dropped `.nv.reservedSmem.cap`.
fn reserved_cap_symbol() -> SymbolPlan {
    SymbolPlan {
        other: STV_INTERNAL,
        nameless: true,
        ..symbol(RESERVED_SMEM_CAP, None)
    }
}

fn functions(k: &KernelImage, local: bool) -> impl Iterator<Item = SymbolPlan> + '_ {
    let text = kernel_section(TEXT_PREFIX, &k.name);
    k.functions
        .iter()
        .filter(move |f| (f.binding == Binding::Local) == local)
        .map(move |f| SymbolPlan {
            info: binding_bits(f.binding) | STT_FUNC,
            value: f.offset,
            size: f.size,
            ..symbol(&f.name, Some(text.clone()))
        })
}

/// The section holding variable `g`.
pub fn var_section(g: &GlobalVar) -> &'static str {
    match (g.space, g.init.is_some()) {
        (GlobalSpace::Const, _) => CONSTANT3,
        (GlobalSpace::Global, true) => GLOBAL_INIT,
        (GlobalSpace::Global, false) => GLOBAL,
    }
}

fn variable_symbol(g: &GlobalVar) -> SymbolPlan {
    SymbolPlan {
        info: binding_bits(g.binding) | STT_OBJECT,
        value: g.offset,
        size: g.size,
        ..symbol(&g.name, Some(var_section(g).into()))
    }
}

fn kernel_symbol(k: &KernelImage) -> SymbolPlan {
    SymbolPlan {
        info: binding_bits(k.binding) | STT_FUNC,
        other: if k.entry { STO_CUDA_ENTRY } else { 0 },
        size: k.code.len() as u64,
        ..symbol(&k.name, Some(kernel_section(TEXT_PREFIX, &k.name)))
    }
}

fn bank0_symbol(k: &KernelImage) -> SymbolPlan {
    section_symbol(&kernel_section(CONSTANT0_PREFIX, &k.name))
}

fn section_symbol(section: &str) -> SymbolPlan {
    SymbolPlan {
        info: STT_SECTION,
        ..symbol(section, Some(section.into()))
    }
}

/// A local `STT_NOTYPE` symbol at value 0, size 0.
fn symbol(name: &str, section: Option<String>) -> SymbolPlan {
    SymbolPlan {
        name: name.into(),
        info: 0,
        other: 0,
        section,
        value: 0,
        size: 0,
        nameless: false,
    }
}

fn binding_bits(b: Binding) -> u8 {
    match b {
        Binding::Local => 0x00,
        Binding::Global => 0x10,
        Binding::Weak => 0x20,
    }
}

fn symbol_type(kind: SymbolKind) -> u8 {
    match kind {
        SymbolKind::NoType => 0,
        SymbolKind::Object => STT_OBJECT,
        SymbolKind::Function => STT_FUNC,
        SymbolKind::Other(t) => t & 0xf,
    }
}
