//! Reading one kernel: its `.text` section, its symbol, its banks, shared memory and the
//! functions inside it.

use super::elf::{ElfView, Section};
use super::nvinfo::apply_kernel_info;
use crate::cubin::error::CubinError;
use crate::cubin::model::{Binding, DeviceFunction, ElfFlavour, KernelImage, param_base};
use crate::cubin::names::*;

const STT_FUNC: u8 = 2;
/// `.text` `sh_flags` bits 20–26: barrier count (V7).
const BARRIER_SHIFT: u32 = 20;
const BARRIER_MASK: u64 = 0x7f;

/// The kernel of an `sm` module whose code is `text`.
pub fn read_kernel(elf: &ElfView<'_>, text: &Section<'_>, sm: u32) -> Result<KernelImage, CubinError> {
    let sym_index = (text.info & 0x00ff_ffff) as usize;
    let sym = elf.symbol(sym_index, &text.name)?;
    let suffix = text.name.strip_prefix(TEXT_PREFIX).unwrap_or(&text.name);
    let mut k = KernelImage::new(sym.name.clone(), text.data.to_vec());
    k.entry = sym.other & STO_CUDA_ENTRY != 0;
    k.binding = binding(sym.bind());
    k.reg_count = text.info >> 24;
    k.min_stack_size = None;
    k.max_reg_count = None;
    if elf.flavour == ElfFlavour::V7 {
        k.num_barriers = ((text.flags >> BARRIER_SHIFT) & BARRIER_MASK) as u32;
    }
    k.functions = functions(elf, text.index, sym_index);
    read_banks(elf, text, suffix, &mut k);
    read_shared(elf, text, suffix, &mut k);
    if let Some(info) = attached(elf, text, INFO_PREFIX, suffix, |s| s.sh_type == SHT_CUDA_INFO) {
        apply_kernel_info(elf, info, &mut k, sm)?;
    }
    settle_bank0_size(&mut k, param_base(sm));
    Ok(k)
}

/// The section `<prefix><suffix>` attached to `text` (by `sh_info`, else by name).
fn attached<'s, 'a>(
    elf: &'s ElfView<'a>,
    text: &Section<'_>,
    prefix: &str,
    suffix: &str,
    also: impl Fn(&Section<'_>) -> bool,
) -> Option<&'s Section<'a>> {
    let name = kernel_section(prefix, suffix);
    let by_info = elf
        .sections
        .iter()
        .find(|s| s.name.starts_with(prefix) && s.info as usize == text.index && also(s));
    by_info.or_else(|| elf.section_named(&name))
}

fn read_banks(elf: &ElfView<'_>, text: &Section<'_>, suffix: &str, k: &mut KernelImage) {
    if let Some(bank0) = attached(elf, text, CONSTANT0_PREFIX, suffix, |_| true) {
        k.const_bank0_size = Some(bank0.size as u32);
    }
    if let Some(bank2) = attached(elf, text, CONSTANT2_PREFIX, suffix, |_| true) {
        k.const_bank2 = bank2.data.to_vec();
    }
}

/// Without `EIATTR_CBANK_PARAM_SIZE` the parameters fill bank 0 after `base`; the bank size
/// is kept only when the usual rule does not give it.
fn settle_bank0_size(k: &mut KernelImage, base: u32) {
    if let Some(size) = k.const_bank0_size {
        if k.params.is_empty() && k.param_size == 0 {
            k.param_size = size.saturating_sub(base);
        }
        if size == base + k.param_size {
            k.const_bank0_size = None;
        }
    }
}

fn read_shared(elf: &ElfView<'_>, text: &Section<'_>, suffix: &str, k: &mut KernelImage) {
    if let Some(shared) = attached(elf, text, SHARED_PREFIX, suffix, |_| true) {
        k.shared_size = shared.size as u32;
        k.shared_align = shared.align as u32;
        k.uses_dynamic_shared = shared.size == 0 || shared.align == 16;
    }
}

/// Function symbols other than the kernel's own that live in section `text_index`.
fn functions(elf: &ElfView<'_>, text_index: usize, kernel_sym: usize) -> Vec<DeviceFunction> {
    elf.symbols
        .iter()
        .enumerate()
        .filter(|(i, s)| *i != kernel_sym && s.shndx == text_index && s.kind() == STT_FUNC)
        .map(|(_, s)| DeviceFunction {
            name: s.name.clone(),
            binding: binding(s.bind()),
            offset: s.value,
            size: s.size,
            frame_size: None,
            min_stack_size: None,
            max_stack_size: None,
        })
        .collect()
}

/// The binding for ELF `st_bind` (unknown values read as global).
pub fn binding(bind: u8) -> Binding {
    match bind {
        0 => Binding::Local,
        2 => Binding::Weak,
        _ => Binding::Global,
    }
}
