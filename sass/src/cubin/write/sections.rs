//! The sections a module needs, in the writer's canonical (ptxas 13.5) header order.

use super::data::{ModuleData, constant3_align};
use super::debug_frame::default_debug_frame;
use super::plan::{Body, Info, Link, SectionPlan};
use crate::cubin::model::{CubinModule, ElfFlavour, KernelImage, PARAM_BASE, RawSection};
use crate::cubin::names::*;
use crate::cubin::notes;
use crate::cubin::reloc::Reloc;
use crate::cubin::text::TEXT_ALIGN;

const SHT_PROGBITS: u32 = 1;
const SHT_SYMTAB: u32 = 2;
const SHT_STRTAB: u32 = 3;
const SHT_RELA: u32 = 4;
const SHT_NOTE: u32 = 7;
const SHT_NOBITS: u32 = 8;
const SHT_REL: u32 = 9;
const SHF_WRITE_ALLOC: u64 = 0x3;
const SHF_ALLOC: u64 = 0x2;
const SHF_ALLOC_EXEC: u64 = 0x6;

/// Flags that depend on the flavour.
struct Flavoured {
    v8: bool,
}

impl Flavoured {
    fn info_link(&self) -> u64 {
        if self.v8 { SHF_INFO_LINK } else { 0 }
    }
}

/// Every section of `m`, in canonical order (without the null section).
pub fn plan_sections(m: &CubinModule) -> Vec<SectionPlan> {
    let f = Flavoured {
        v8: m.flavour == ElfFlavour::V8,
    };
    let data = ModuleData::new(m);
    let frame = m.debug_frame.clone().unwrap_or_else(|| default_debug_frame(m));
    let mut out = tables();
    out.push(raw_section(&frame));
    out.extend(m.extra_sections.iter().map(raw_section));
    if f.v8 {
        out.extend(note_sections(m));
    }
    out.extend(info_sections(m, &f));
    if f.v8 {
        out.push(callgraph());
    }
    out.push(rel_action(m));
    out.extend(reloc_sections(m, &frame, &f));
    out.extend(constant_sections(m, &f));
    out.extend(m.kernels.iter().map(|k| text_section(k, &f)));
    out.extend(data_sections(m, &data, &f));
    out
}

fn tables() -> Vec<SectionPlan> {
    vec![
        SectionPlan::new(SHSTRTAB, SHT_STRTAB, 0, 1, Body::Shstrtab),
        SectionPlan::new(STRTAB, SHT_STRTAB, 0, 1, Body::Strtab),
        SectionPlan::new(SYMTAB, SHT_SYMTAB, 0, 8, Body::Symtab)
            .link(Link::Strtab)
            .info(Info::FirstGlobal)
            .entsize(24),
    ]
}

fn raw_section(s: &RawSection) -> SectionPlan {
    SectionPlan::new(&s.name, s.sh_type, s.flags, s.align, Body::Bytes(s.data.clone()))
        .link(Link::Raw(s.link))
        .info(Info::Raw(s.info))
        .entsize(s.entsize)
}

fn note_sections(m: &CubinModule) -> [SectionPlan; 2] {
    [
        SectionPlan::new(
            notes::TKINFO,
            SHT_NOTE,
            TKINFO_FLAGS,
            4,
            Body::Bytes(notes::encode_tkinfo(&m.tool)),
        ),
        SectionPlan::new(
            notes::CUINFO,
            SHT_NOTE,
            CUINFO_FLAGS,
            4,
            Body::Bytes(notes::encode_cuinfo(m.virtual_sm, m.toolkit_version)),
        )
        .link(Link::Section(notes::TKINFO.into())),
    ]
}

fn info_sections(m: &CubinModule, f: &Flavoured) -> Vec<SectionPlan> {
    let module = SectionPlan::new(NV_INFO, SHT_CUDA_INFO, 0, 4, Body::ModuleInfo).link(Link::Symtab);
    let kernels = m.kernels.iter().enumerate().map(|(i, k)| {
        SectionPlan::new(
            kernel_section(INFO_PREFIX, &k.name),
            SHT_CUDA_INFO,
            f.info_link(),
            4,
            Body::KernelInfo(i),
        )
        .link(Link::Symtab)
        .info(Info::Section(kernel_section(TEXT_PREFIX, &k.name)))
    });
    std::iter::once(module).chain(kernels).collect()
}

fn callgraph() -> SectionPlan {
    SectionPlan::new(CALLGRAPH, SHT_CUDA_CALLGRAPH, 0, 4, Body::Callgraph)
        .link(Link::Symtab)
        .entsize(8)
}

fn rel_action(m: &CubinModule) -> SectionPlan {
    SectionPlan::new(
        REL_ACTION,
        SHT_CUDA_RELOCINFO,
        0,
        8,
        Body::Bytes(m.reloc_actions.clone()),
    )
    .entsize(8)
}

/// Relocation sections in ptxas' order: extra sections, code, bank 0, module data, frames.
fn reloc_sections(m: &CubinModule, frame: &RawSection, f: &Flavoured) -> Vec<SectionPlan> {
    let mut targets: Vec<(String, &[Reloc])> = Vec::new();
    for s in &m.extra_sections {
        targets.push((s.name.clone(), &s.relocs));
    }
    for k in &m.kernels {
        targets.push((kernel_section(TEXT_PREFIX, &k.name), &k.relocs));
    }
    for k in &m.kernels {
        targets.push((kernel_section(CONSTANT0_PREFIX, &k.name), &k.const_bank0_relocs));
    }
    for k in &m.kernels {
        targets.push((kernel_section(CONSTANT2_PREFIX, &k.name), &k.const_bank2_relocs));
    }
    targets.push((CONSTANT4.into(), &m.const_bank4_relocs));
    targets.push((CONSTANT3.into(), &m.const_bank3_relocs));
    targets.push((GLOBAL_INIT.into(), &m.global_init_relocs));
    targets.push((frame.name.clone(), &frame.relocs));
    let mut out = Vec::new();
    for (target, relocs) in targets {
        for with_addends in [false, true] {
            let chosen: Vec<Reloc> = relocs
                .iter()
                .filter(|r| r.addend.is_some() == with_addends)
                .cloned()
                .collect();
            if !chosen.is_empty() {
                out.push(reloc_section_plan(&target, chosen, with_addends, f));
            }
        }
    }
    out
}

fn reloc_section_plan(target: &str, relocs: Vec<Reloc>, rela: bool, f: &Flavoured) -> SectionPlan {
    let (sh_type, entsize) = if rela { (SHT_RELA, 24) } else { (SHT_REL, 16) };
    SectionPlan::new(
        reloc_section(target, rela),
        sh_type,
        f.info_link(),
        8,
        Body::Relocs(relocs, rela),
    )
    .link(Link::Symtab)
    .info(Info::Section(target.to_string()))
    .entsize(entsize)
}

fn constant_sections(m: &CubinModule, f: &Flavoured) -> Vec<SectionPlan> {
    let mut out = Vec::new();
    if !m.const_bank4.is_empty() {
        out.push(SectionPlan::new(
            CONSTANT4,
            SHT_PROGBITS,
            SHF_ALLOC,
            8,
            Body::Bytes(m.const_bank4.clone()),
        ));
    }
    if !m.const_bank3.is_empty() {
        let align = constant3_align(m);
        out.push(SectionPlan::new(
            CONSTANT3,
            SHT_PROGBITS,
            SHF_ALLOC,
            align,
            Body::Bytes(m.const_bank3.clone()),
        ));
    }
    let bank_flags = SHF_ALLOC | f.info_link();
    for k in &m.kernels {
        let text = Info::Section(kernel_section(TEXT_PREFIX, &k.name));
        if !k.const_bank2.is_empty() {
            let name = kernel_section(CONSTANT2_PREFIX, &k.name);
            out.push(
                SectionPlan::new(name, SHT_PROGBITS, bank_flags, 4, Body::Bytes(k.const_bank2.clone()))
                    .info(text.clone()),
            );
        }
        if k.entry {
            let name = kernel_section(CONSTANT0_PREFIX, &k.name);
            let bank0 = vec![0; k.const_bank0_size.unwrap_or(PARAM_BASE + k.param_size) as usize];
            out.push(SectionPlan::new(name, SHT_PROGBITS, bank_flags, 4, Body::Bytes(bank0)).info(text));
        }
    }
    out
}

fn text_section(k: &KernelImage, f: &Flavoured) -> SectionPlan {
    let barriers = if f.v8 { 0 } else { u64::from(k.num_barriers) << 20 };
    SectionPlan::new(
        kernel_section(TEXT_PREFIX, &k.name),
        SHT_PROGBITS,
        SHF_ALLOC_EXEC | barriers,
        TEXT_ALIGN as u64,
        Body::Bytes(k.code.clone()),
    )
    .link(Link::Symtab)
    .info(Info::Text {
        reg_count: k.reg_count,
        kernel: k.name.clone(),
    })
}

/// The shared-memory alignment: at least 16 with dynamic shared memory, as ptxas does.
fn shared_align(k: &KernelImage) -> u64 {
    let declared = u64::from(k.shared_align.max(1));
    if k.uses_dynamic_shared {
        declared.max(16)
    } else {
        declared
    }
}

/// `.nv.global.init`, then the NOBITS sections: the first kernel's shared memory,
/// `.nv.global`, the other kernels' shared memory (ptxas' creation order).
fn data_sections(m: &CubinModule, data: &ModuleData, f: &Flavoured) -> Vec<SectionPlan> {
    let mut out = Vec::new();
    if let Some((bytes, align)) = &data.global_init {
        out.push(SectionPlan::new(
            GLOBAL_INIT,
            SHT_PROGBITS,
            SHF_WRITE_ALLOC,
            *align,
            Body::Bytes(bytes.clone()),
        ));
    }
    let global = data
        .global_zero
        .map(|(size, align)| SectionPlan::new(GLOBAL, SHT_NOBITS, SHF_WRITE_ALLOC, align, Body::NoBits(size)));
    let shared = m.kernels.iter().filter(|k| k.has_shared_section()).map(|k| {
        SectionPlan::new(
            kernel_section(SHARED_PREFIX, &k.name),
            SHT_NOBITS,
            SHF_WRITE_ALLOC | f.info_link(),
            shared_align(k),
            Body::NoBits(u64::from(k.shared_size)),
        )
        .info(Info::Section(kernel_section(TEXT_PREFIX, &k.name)))
    });
    let mut shared = shared.peekable();
    if m.kernels.first().is_some_and(KernelImage::has_shared_section) {
        out.extend(shared.next());
    }
    out.extend(global);
    out.extend(shared);
    out
}
