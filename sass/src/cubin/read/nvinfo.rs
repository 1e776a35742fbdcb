//! Reading `.nv.info` and `.nv.info.<kernel>` records into the model. Records whose value
//! the writer derives (`CUDA_API_VERSION`, `PARAM_CBANK`) are checked for shape only, the
//! family's fixed-value records (`LANGUAGE`, `SW_WAR`, the unnamed 0x5f, ...) dropped when
//! they have the family's value; unknown records, known ones in an unexpected format,
//! fixed-value ones with another value and ones the family does not write are kept
//! verbatim.

use super::elf::{ElfView, Section};
use crate::cubin::eiattr::{decode_records, eiattr_name, has_expected_format, id};
use crate::cubin::error::CubinError;
use crate::cubin::family::family;
use crate::cubin::model::{CubinModule, KernelImage, KernelParam, NvInfoAttr};

/// Applies the records of `.nv.info.<kernel>` of an `sm` module to `k`.
pub fn apply_kernel_info(
    elf: &ElfView<'_>,
    section: &Section<'_>,
    k: &mut KernelImage,
    sm: u32,
) -> Result<(), CubinError> {
    let fam = family(sm);
    for (at, r) in decode_records(&section.name, section.data)? {
        if fam.is_constant(&r) {
            continue;
        }
        let verbatim = fam.constant(r.id).is_some() || !fam.kernel_attr_order.contains(&r.id);
        if verbatim || !has_expected_format(&r) {
            k.other_attrs.push(r);
            continue;
        }
        let words = r.payload_words();
        let need = |n: usize| expect_words(section, at, &r, &words, n);
        match r.id {
            id::CUDA_API_VERSION | id::PARAM_CBANK => {}
            id::CBANK_PARAM_SIZE => k.param_size = u32::from(r.value),
            id::KPARAM_INFO => {
                need(3)?;
                k.params.push(param(&words));
            }
            id::MAXREG_COUNT => k.max_reg_count = Some(u32::from(r.value)),
            id::NUM_BARRIERS => k.num_barriers = u32::from(r.value),
            id::EXTERNS => {
                for w in &words {
                    k.externs.push(elf.symbol(*w as usize, &section.name)?.name.clone());
                }
            }
            id::COOP_GROUP_MASK_REGIDS => k.coop_group_mask_regids = words,
            id::COOP_GROUP_INSTR_OFFSETS => k.coop_group_offsets = words,
            id::INT_WARP_WIDE_INSTR_OFFSETS => k.int_warp_wide_offsets = words,
            id::SYSCALL_OFFSETS => k.syscall_offsets = words,
            id::EXIT_INSTR_OFFSETS => k.exit_offsets = words,
            id::UNUSED_LOAD_BYTE_OFFSET => {
                k.unused_load_bytes = words.chunks_exact(2).map(|w| [w[0], w[1]]).collect();
            }
            id::CTAIDZ_USED => k.ctaid_z_used = true,
            id::CRS_STACK_SIZE => {
                need(1)?;
                k.crs_stack_size = Some(words[0]);
            }
            id::REQNTID => {
                need(3)?;
                k.req_ntid = Some([words[0], words[1], words[2]]);
            }
            id::MAX_THREADS => {
                need(3)?;
                k.max_ntid = Some([words[0], words[1], words[2]]);
            }
            id::CTA_PER_CLUSTER => {
                need(3)?;
                k.cluster_dims = Some([words[0], words[1], words[2]]);
            }
            id::MAX_CLUSTER_RANK => {
                need(1)?;
                k.max_cluster_rank = Some(words[0]);
            }
            id::EXPLICIT_CLUSTER => k.explicit_cluster = true,
            _ => k.other_attrs.push(r),
        }
    }
    k.params.sort_by_key(|p| p.ordinal);
    Ok(())
}

fn param(words: &[u32]) -> KernelParam {
    let (position, info) = (words[1], words[2]);
    KernelParam {
        ordinal: position & 0xffff,
        offset: position >> 16,
        size: info >> 18,
        pointee_log_align: info as u8,
        space: ((info >> 8) & 0xf) as u8,
        cbank: ((info >> 12) & 0x1f) as u8,
        in_shared_memory: info & (1 << 17) != 0,
    }
}

/// Applies the per-function records of `.nv.info` to the kernels and functions of `m`.
pub fn apply_module_info(elf: &ElfView<'_>, section: &Section<'_>, m: &mut CubinModule) -> Result<(), CubinError> {
    for (at, r) in decode_records(&section.name, section.data)? {
        if !has_expected_format(&r) {
            m.other_module_attrs.push(r);
            continue;
        }
        let words = r.payload_words();
        let target = match r.id {
            id::REGCOUNT | id::FRAME_SIZE | id::MIN_STACK_SIZE | id::MAX_STACK_SIZE => {
                expect_words(section, at, &r, &words, 2)?;
                elf.symbol(words[0] as usize, &section.name)?.name.clone()
            }
            id::UNNAMED_5F => continue,
            _ => {
                m.other_module_attrs.push(r);
                continue;
            }
        };
        let value = words[1];
        if !set_function_value(m, &target, r.id, value) {
            return Err(CubinError::at(
                &section.name,
                at,
                format!("{} refers to {target}, which is not a function", eiattr_name(r.id)),
            ));
        }
    }
    Ok(())
}

/// Stores `value` of attribute `attr` on the kernel or function called `name`.
fn set_function_value(m: &mut CubinModule, name: &str, attr: u8, value: u32) -> bool {
    for k in &mut m.kernels {
        if k.name == name {
            match attr {
                id::REGCOUNT => k.reg_count = value,
                id::FRAME_SIZE => k.frame_size = value,
                id::MIN_STACK_SIZE => k.min_stack_size = Some(value),
                _ => k.max_stack_size = Some(value),
            }
            return true;
        }
        if let Some(f) = k.functions.iter_mut().find(|f| f.name == name) {
            match attr {
                id::FRAME_SIZE => f.frame_size = Some(value),
                id::MIN_STACK_SIZE => f.min_stack_size = Some(value),
                id::MAX_STACK_SIZE => f.max_stack_size = Some(value),
                _ => return false,
            }
            return true;
        }
    }
    false
}

fn expect_words(section: &Section<'_>, at: u64, r: &NvInfoAttr, words: &[u32], n: usize) -> Result<(), CubinError> {
    if words.len() < n {
        return Err(CubinError::at(
            &section.name,
            at,
            format!("{} has {} payload words, expected {n}", eiattr_name(r.id), words.len()),
        ));
    }
    Ok(())
}
