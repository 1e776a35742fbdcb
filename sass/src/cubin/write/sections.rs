//! The sections a module needs, in the writer's canonical (ptxas 13.5) header order: the
//! family's [`SectionGroup`] list, each group expanded here.

use super::data::{ModuleData, constant3_align};
use super::debug_frame::default_debug_frame;
use super::plan::{Body, Info, Link, SectionPlan};
use crate::cubin::compat::{COMPAT, SHT_CUDA_COMPAT_INFO};
use crate::cubin::family::{Family, RelocTarget, SectionGroup, family};
use crate::cubin::model::{CubinModule, ElfFlavour, KernelImage, RawSection};
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

/// What every group needs: the module, its family, flavour, data layout and frame.
struct Ctx<'m> {
    m: &'m CubinModule,
    family: &'static Family,
    v8: bool,
    data: ModuleData,
    frame: RawSection,
}

impl Ctx<'_> {
    /// `SHF_INFO_LINK` in V8, nothing in V7.
    fn info_link(&self) -> u64 {
        if self.v8 { SHF_INFO_LINK } else { 0 }
    }
}

/// Every section of `m`, in canonical order (without the null section).
pub fn plan_sections(m: &CubinModule) -> Vec<SectionPlan> {
    let ctx = Ctx {
        m,
        family: family(m.sm),
        v8: m.flavour == ElfFlavour::V8,
        data: ModuleData::new(m),
        frame: m.debug_frame.clone().unwrap_or_else(|| default_debug_frame(m)),
    };
    ctx.family.sections.iter().flat_map(|&g| group(&ctx, g)).collect()
}

fn group(ctx: &Ctx, g: SectionGroup) -> Vec<SectionPlan> {
    let m = ctx.m;
    match g {
        SectionGroup::Tables => tables(),
        SectionGroup::DebugFrame => vec![raw_section(&ctx.frame)],
        SectionGroup::Extra => m.extra_sections.iter().map(raw_section).collect(),
        SectionGroup::Notes if ctx.v8 => note_sections(ctx).into(),
        SectionGroup::ModuleInfo => {
            vec![SectionPlan::new(NV_INFO, SHT_CUDA_INFO, 0, 4, Body::ModuleInfo).link(Link::Symtab)]
        }
        SectionGroup::Compat => vec![SectionPlan::new(COMPAT, SHT_CUDA_COMPAT_INFO, 0, 4, Body::Compat)],
        SectionGroup::KernelInfo => kernel_info_sections(ctx),
        SectionGroup::Callgraph if ctx.v8 => vec![callgraph()],
        SectionGroup::RelAction if ctx.family.rel_action_always || !m.reloc_actions.is_empty() => {
            vec![rel_action(m)]
        }
        SectionGroup::Relocations => reloc_sections(ctx),
        SectionGroup::Bank4 => bank4(m).into_iter().collect(),
        SectionGroup::Bank3 => bank3(m).into_iter().collect(),
        SectionGroup::KernelBanks => m
            .kernels
            .iter()
            .flat_map(|k| [bank2(ctx, k), bank0(ctx, k)])
            .flatten()
            .collect(),
        SectionGroup::Bank2 => m.kernels.iter().filter_map(|k| bank2(ctx, k)).collect(),
        SectionGroup::Bank0 => m.kernels.iter().filter_map(|k| bank0(ctx, k)).collect(),
        SectionGroup::Text => m.kernels.iter().map(|k| text_section(ctx, k)).collect(),
        SectionGroup::Data => data_sections(ctx),
        SectionGroup::Notes | SectionGroup::Callgraph | SectionGroup::RelAction => Vec::new(),
    }
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

/// `.note.nv.tkinfo` and `.note.nv.cuinfo`; the latter points at `.nv.compat` where the
/// family writes one.
fn note_sections(ctx: &Ctx) -> [SectionPlan; 2] {
    let m = ctx.m;
    let tkinfo = SectionPlan::new(
        notes::TKINFO,
        SHT_NOTE,
        TKINFO_FLAGS,
        4,
        Body::Bytes(notes::encode_tkinfo(&m.tool)),
    );
    let cuinfo = SectionPlan::new(
        notes::CUINFO,
        SHT_NOTE,
        CUINFO_FLAGS,
        4,
        Body::Bytes(notes::encode_cuinfo(m.virtual_sm, m.toolkit_version)),
    )
    .link(Link::Section(notes::TKINFO.into()));
    let cuinfo = if ctx.family.sections.contains(&SectionGroup::Compat) {
        let mut linked = cuinfo.info(Info::Section(COMPAT.into()));
        linked.flags |= SHF_INFO_LINK;
        linked
    } else {
        cuinfo
    };
    [tkinfo, cuinfo]
}

fn kernel_info_sections(ctx: &Ctx) -> Vec<SectionPlan> {
    let kernels = ctx.m.kernels.iter().enumerate();
    kernels
        .map(|(i, k)| {
            SectionPlan::new(
                kernel_section(INFO_PREFIX, &k.name),
                SHT_CUDA_INFO,
                ctx.info_link(),
                4,
                Body::KernelInfo(i),
            )
            .link(Link::Symtab)
            .info(Info::Section(kernel_section(TEXT_PREFIX, &k.name)))
        })
        .collect()
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

/// One relocated section: its name, relocations, bytes (for implicit addends) and whether
/// its relocation section is kept when empty.
struct Target<'a> {
    name: String,
    relocs: &'a [Reloc],
    bytes: &'a [u8],
    keep_empty: bool,
}

impl<'a> Target<'a> {
    fn new(name: impl Into<String>, relocs: &'a [Reloc], bytes: &'a [u8]) -> Self {
        Target {
            name: name.into(),
            relocs,
            bytes,
            keep_empty: false,
        }
    }
}

/// Relocation sections in the family's target order.
fn reloc_sections(ctx: &Ctx) -> Vec<SectionPlan> {
    let targets = ctx.family.reloc_targets.iter().flat_map(|&t| reloc_targets(ctx, t));
    targets.flat_map(|t| target_reloc_sections(ctx, t)).collect()
}

fn reloc_targets<'a>(ctx: &'a Ctx, which: RelocTarget) -> Vec<Target<'a>> {
    let m = ctx.m;
    let kernels = m.kernels.iter();
    match which {
        RelocTarget::Kernels => kernels
            .flat_map(|k| [text_target(k), bank0_target(k), bank2_target(k)])
            .collect(),
        RelocTarget::Extra => m
            .extra_sections
            .iter()
            .map(|s| Target::new(&s.name, &s.relocs, &s.data))
            .collect(),
        RelocTarget::Text => kernels.map(text_target).collect(),
        RelocTarget::Bank0 => kernels.map(bank0_target).collect(),
        RelocTarget::Bank2 => kernels.map(bank2_target).collect(),
        RelocTarget::Bank4 => vec![Target::new(CONSTANT4, &m.const_bank4_relocs, &m.const_bank4)],
        RelocTarget::Bank3 => vec![Target::new(CONSTANT3, &m.const_bank3_relocs, &m.const_bank3)],
        RelocTarget::GlobalInit => match &ctx.data.global_init {
            Some((bytes, _)) => vec![Target {
                keep_empty: m.resolved_global_init_relocs,
                ..Target::new(GLOBAL_INIT, &m.global_init_relocs, bytes)
            }],
            None => vec![Target::new(GLOBAL_INIT, &m.global_init_relocs, &[])],
        },
        RelocTarget::DebugFrame => vec![Target::new(&ctx.frame.name, &ctx.frame.relocs, &ctx.frame.data)],
    }
}

/// The code: ptxas resolves shared-memory references and calls itself (sm_90 keeps the
/// empty section).
fn text_target(k: &KernelImage) -> Target<'_> {
    Target {
        keep_empty: k.uses_shared_memory || !k.functions.is_empty(),
        ..Target::new(kernel_section(TEXT_PREFIX, &k.name), &k.relocs, &k.code)
    }
}

fn bank0_target(k: &KernelImage) -> Target<'_> {
    Target::new(kernel_section(CONSTANT0_PREFIX, &k.name), &k.const_bank0_relocs, &[])
}

/// Bank 2: ptxas resolves the code addresses of its jump tables itself (sm_90 keeps the empty
/// section).
fn bank2_target(k: &KernelImage) -> Target<'_> {
    Target {
        keep_empty: !k.const_bank2.is_empty(),
        ..Target::new(
            kernel_section(CONSTANT2_PREFIX, &k.name),
            &k.const_bank2_relocs,
            &k.const_bank2,
        )
    }
}

/// The relocation sections of one target: `.rel` then `.rela` (sm_75..sm_89, each when not
/// empty), or one `.rela` with every addend explicit, kept empty where ptxas resolved the
/// relocations itself (sm_90).
fn target_reloc_sections(ctx: &Ctx, t: Target) -> Vec<SectionPlan> {
    if ctx.family.rela_only {
        if t.relocs.is_empty() && !t.keep_empty {
            return Vec::new();
        }
        let explicit = t.relocs.iter().map(|r| Reloc {
            addend: Some(r.explicit_addend(t.bytes)),
            ..r.clone()
        });
        return vec![reloc_section_plan(ctx, &t.name, explicit.collect(), true)];
    }
    let mut out = Vec::new();
    for with_addends in [false, true] {
        let chosen: Vec<Reloc> = t
            .relocs
            .iter()
            .filter(|r| r.addend.is_some() == with_addends)
            .cloned()
            .collect();
        if !chosen.is_empty() {
            out.push(reloc_section_plan(ctx, &t.name, chosen, with_addends));
        }
    }
    out
}

fn reloc_section_plan(ctx: &Ctx, target: &str, relocs: Vec<Reloc>, rela: bool) -> SectionPlan {
    let (sh_type, entsize) = if rela { (SHT_RELA, 24) } else { (SHT_REL, 16) };
    SectionPlan::new(
        reloc_section(target, rela),
        sh_type,
        ctx.info_link(),
        8,
        Body::Relocs(relocs, rela),
    )
    .link(Link::Symtab)
    .info(Info::Section(target.to_string()))
    .entsize(entsize)
}

fn bank4(m: &CubinModule) -> Option<SectionPlan> {
    let bytes = Body::Bytes(m.const_bank4.clone());
    (!m.const_bank4.is_empty()).then(|| SectionPlan::new(CONSTANT4, SHT_PROGBITS, SHF_ALLOC, 8, bytes))
}

fn bank3(m: &CubinModule) -> Option<SectionPlan> {
    let bytes = Body::Bytes(m.const_bank3.clone());
    let align = constant3_align(m);
    (!m.const_bank3.is_empty()).then(|| SectionPlan::new(CONSTANT3, SHT_PROGBITS, SHF_ALLOC, align, bytes))
}

/// `.nv.constant2.<k>` when the kernel has bank 2 constants.
fn bank2(ctx: &Ctx, k: &KernelImage) -> Option<SectionPlan> {
    let name = kernel_section(CONSTANT2_PREFIX, &k.name);
    let bytes = Body::Bytes(k.const_bank2.clone());
    (!k.const_bank2.is_empty()).then(|| {
        SectionPlan::new(name, SHT_PROGBITS, SHF_ALLOC | ctx.info_link(), 4, bytes)
            .info(Info::Section(kernel_section(TEXT_PREFIX, &k.name)))
    })
}

/// `.nv.constant0.<k>` of an entry: `param_base + param_size` zero bytes.
fn bank0(ctx: &Ctx, k: &KernelImage) -> Option<SectionPlan> {
    let name = kernel_section(CONSTANT0_PREFIX, &k.name);
    let size = k.const_bank0_size.unwrap_or(ctx.family.param_base + k.param_size);
    k.entry.then(|| {
        SectionPlan::new(
            name,
            SHT_PROGBITS,
            SHF_ALLOC | ctx.info_link(),
            4,
            Body::Bytes(vec![0; size as usize]),
        )
        .info(Info::Section(kernel_section(TEXT_PREFIX, &k.name)))
    })
}

fn text_section(ctx: &Ctx, k: &KernelImage) -> SectionPlan {
    let barriers = if ctx.v8 { 0 } else { u64::from(k.num_barriers) << 20 };
    let reg_count = if ctx.family.regcount_in_text_info {
        k.reg_count
    } else {
        0
    };
    SectionPlan::new(
        kernel_section(TEXT_PREFIX, &k.name),
        SHT_PROGBITS,
        SHF_ALLOC_EXEC | barriers,
        TEXT_ALIGN as u64,
        Body::Bytes(k.code.clone()),
    )
    .link(Link::Symtab)
    .info(Info::Text {
        reg_count,
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

/// `.nv.global.init`, then the NOBITS sections: the first kernel's shared memory, the
/// reserved shared memory (sm_90), `.nv.global`, the other kernels' shared memory (ptxas'
/// creation order).
fn data_sections(ctx: &Ctx) -> Vec<SectionPlan> {
    let (m, data) = (ctx.m, &ctx.data);
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
            SHF_WRITE_ALLOC | ctx.info_link(),
            shared_align(k),
            Body::NoBits(u64::from(k.shared_size)),
        )
        .info(Info::Section(kernel_section(TEXT_PREFIX, &k.name)))
    });
    let mut shared = shared.peekable();
    if m.kernels.first().is_some_and(KernelImage::has_shared_section) {
        out.extend(shared.next());
    }
    if ctx.family.reserved_smem {
        out.push(SectionPlan::new(
            RESERVED_SHARED,
            SHT_NOBITS,
            SHF_WRITE_ALLOC,
            1,
            Body::NoBits(0),
        ));
    }
    out.extend(global);
    out.extend(shared);
    out
}
