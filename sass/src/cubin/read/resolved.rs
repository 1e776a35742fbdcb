//! sm_90 facts the files record only indirectly: which kernels address shared memory (an
//! empty `.rela.text.<k>` and the nameless `.nv.reservedSmem.cap` symbol) and whether ptxas
//! resolved `.nv.global.init` relocations itself (an empty `.rela.nv.global.init`).

use super::elf::ElfView;
use crate::cubin::model::{CubinModule, KernelImage};
use crate::cubin::names::*;

/// Sets [`KernelImage::uses_shared_memory`] and
/// [`CubinModule::resolved_global_init_relocs`] from an sm_90 file.
pub fn read_resolved(elf: &ElfView<'_>, m: &mut CubinModule) {
    let has_section = |name: &str| elf.section_named(name).is_some();
    m.resolved_global_init_relocs = has_section(&reloc_section(GLOBAL_INIT, true));
    // A kernel with shared memory whose code ptxas relocated: without functions the
    // relocations can only have been shared-memory accesses.
    let candidates: Vec<usize> = (0..m.kernels.len())
        .filter(|&i| {
            let k = &m.kernels[i];
            k.has_shared_section() && has_section(&reloc_section(&kernel_section(TEXT_PREFIX, &k.name), true))
        })
        .collect();
    for &i in &candidates {
        let k = &mut m.kernels[i];
        k.uses_shared_memory = k.functions.is_empty();
    }
    if let Some(owner) = cap_owner(elf, &m.kernels, &candidates) {
        m.kernels[owner].uses_shared_memory = true;
    }
}

/// The kernel after whose symbol ptxas put `.nv.reservedSmem.cap`: the last candidate whose
/// symbol comes before it, else the first candidate.
fn cap_owner(elf: &ElfView<'_>, kernels: &[KernelImage], candidates: &[usize]) -> Option<usize> {
    let position = |name: &str| elf.symbols.iter().position(|s| s.name == name);
    let cap = position(RESERVED_SMEM_CAP)?;
    let before = candidates
        .iter()
        .rev()
        .find(|&&i| position(&kernels[i].name).is_some_and(|p| p < cap));
    before.or(candidates.first()).copied()
}
