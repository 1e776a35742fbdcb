//! The symbol table in the writer's canonical order, which follows ptxas' creation order:
//! local symbols first (notes, then per kernel its code, shared memory, the module data on the
//! first kernel, bank 2, internal functions, bank 0; then frames and tables), then the
//! non-local ones (per kernel: the kernel, the module's visible variables and externs on the
//! first kernel, its visible functions).

use super::plan::{STT_FUNC, STT_OBJECT, STT_SECTION, SectionPlan, SymbolPlan};
use crate::cubin::model::{Binding, CubinModule, ElfFlavour, GlobalSpace, GlobalVar, KernelImage, SymbolKind};
use crate::cubin::names::*;
use crate::cubin::notes;

/// All symbols of `m` (without the null symbol), given the planned sections.
pub fn plan_symbols(m: &CubinModule, sections: &[SectionPlan]) -> Vec<SymbolPlan> {
    let exists = |name: &str| sections.iter().any(|s| s.name == name);
    let mut locals = Vec::new();
    if m.flavour == ElfFlavour::V8 {
        locals.push(section_symbol(notes::TKINFO));
        locals.push(section_symbol(notes::CUINFO));
    }
    for (i, k) in m.kernels.iter().enumerate() {
        if k.binding == Binding::Local {
            locals.push(kernel_symbol(k));
        }
        locals.push(section_symbol(&kernel_section(TEXT_PREFIX, &k.name)));
        if k.shared_size > 0 {
            locals.push(section_symbol(&kernel_section(SHARED_PREFIX, &k.name)));
        }
        if i == 0 {
            locals.extend(module_data_locals(m, &exists));
        }
        if !k.const_bank2.is_empty() {
            locals.push(section_symbol(&kernel_section(CONSTANT2_PREFIX, &k.name)));
        }
        locals.extend(functions(k, true));
        if k.entry {
            locals.push(section_symbol(&kernel_section(CONSTANT0_PREFIX, &k.name)));
        }
    }
    if m.kernels.is_empty() {
        locals.extend(module_data_locals(m, &exists));
    }
    if sections.iter().any(|s| s.name == DEBUG_FRAME && !s.is_empty()) {
        locals.push(section_symbol(DEBUG_FRAME));
    }
    locals.extend(m.extra_sections.iter().map(|s| section_symbol(&s.name)));
    if m.flavour == ElfFlavour::V8 {
        locals.push(section_symbol(CALLGRAPH));
    }
    locals.push(section_symbol(REL_ACTION));
    locals.extend(non_local_symbols(m));
    locals
}

fn non_local_symbols(m: &CubinModule) -> Vec<SymbolPlan> {
    let mut out = Vec::new();
    for (i, k) in m.kernels.iter().enumerate() {
        if k.binding != Binding::Local {
            out.push(kernel_symbol(k));
        }
        if i == 0 {
            out.extend(module_non_locals(m));
        }
        out.extend(functions(k, false));
    }
    if m.kernels.is_empty() {
        out.extend(module_non_locals(m));
    }
    out
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

fn module_non_locals(m: &CubinModule) -> Vec<SymbolPlan> {
    let vars = m
        .globals
        .iter()
        .filter(|g| g.binding != Binding::Local)
        .map(variable_symbol);
    let externs = m.externs.iter().map(|e| SymbolPlan {
        name: e.name.clone(),
        info: binding_bits(e.binding) | symbol_type(e.kind),
        other: 0,
        section: None,
        value: 0,
        size: 0,
    });
    vars.chain(externs).collect()
}

fn functions(k: &KernelImage, local: bool) -> impl Iterator<Item = SymbolPlan> + '_ {
    let text = kernel_section(TEXT_PREFIX, &k.name);
    k.functions
        .iter()
        .filter(move |f| (f.binding == Binding::Local) == local)
        .map(move |f| SymbolPlan {
            name: f.name.clone(),
            info: binding_bits(f.binding) | STT_FUNC,
            other: 0,
            section: Some(text.clone()),
            value: f.offset,
            size: f.size,
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
        name: g.name.clone(),
        info: binding_bits(g.binding) | STT_OBJECT,
        other: 0,
        section: Some(var_section(g).into()),
        value: g.offset,
        size: g.size,
    }
}

fn kernel_symbol(k: &KernelImage) -> SymbolPlan {
    SymbolPlan {
        name: k.name.clone(),
        info: binding_bits(k.binding) | STT_FUNC,
        other: if k.entry { STO_CUDA_ENTRY } else { 0 },
        section: Some(kernel_section(TEXT_PREFIX, &k.name)),
        value: 0,
        size: k.code.len() as u64,
    }
}

fn section_symbol(section: &str) -> SymbolPlan {
    SymbolPlan {
        name: section.into(),
        info: STT_SECTION,
        other: 0,
        section: Some(section.into()),
        value: 0,
        size: 0,
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
