//! The attribute sections: `.nv.info` (per-function resources), `.nv.info.<kernel>` and the
//! V8 `.nv.callgraph`, in the record order ptxas uses (the family's table for kernels).

use super::resolve::Resolver;
use crate::cubin::eiattr::{encode_records, id};
use crate::cubin::error::CubinError;
use crate::cubin::family::family;
use crate::cubin::model::{
    Binding, CubinModule, DeviceFunction, ElfFlavour, KernelImage, NvInfoAttr, SymbolKind, param_base,
};
use crate::cubin::names::{CONSTANT0_PREFIX, kernel_section};

/// `.nv.info` contents. V8: per kernel, last first, `REGCOUNT` then `FRAME_SIZE` of its
/// functions (see [`functions_last_first`]) and of itself; then `MIN_STACK_SIZE` of each
/// kernel, first first (sm_90: in kernel symbol order).
/// V7 (CUDA 11): per kernel, last first, `REGCOUNT`, then `MAX_STACK_SIZE`, `MIN_STACK_SIZE`,
/// `FRAME_SIZE` of its functions and of itself.
pub fn module_info(m: &CubinModule, r: &Resolver) -> Result<Vec<u8>, CubinError> {
    let mut records = Vec::new();
    let v8 = m.flavour == ElfFlavour::V8;
    for k in m.kernels.iter().rev() {
        let sym = r.symbol(&k.name)?;
        records.push(NvInfoAttr::words(id::REGCOUNT, &[sym, k.reg_count]));
        for f in functions_last_first(k) {
            let fsym = r.symbol(&f.name)?;
            if !v8 {
                push_sized(&mut records, id::MAX_STACK_SIZE, fsym, f.max_stack_size);
                push_sized(&mut records, id::MIN_STACK_SIZE, fsym, f.min_stack_size);
            }
            push_sized(&mut records, id::FRAME_SIZE, fsym, f.frame_size);
        }
        if !v8 {
            push_sized(&mut records, id::MAX_STACK_SIZE, sym, k.max_stack_size);
            push_sized(&mut records, id::MIN_STACK_SIZE, sym, k.min_stack_size);
        }
        push_sized(&mut records, id::FRAME_SIZE, sym, Some(k.frame_size));
    }
    if v8 {
        let mut kernels = m
            .kernels
            .iter()
            .map(|k| Ok((r.symbol(&k.name)?, k)))
            .collect::<Result<Vec<_>, CubinError>>()?;
        if family(m.sm).min_stack_by_symbol {
            kernels.sort_by_key(|&(sym, _)| sym);
        }
        for (sym, k) in kernels {
            push_sized(&mut records, id::MIN_STACK_SIZE, sym, k.min_stack_size);
        }
        if m.kernels.is_empty() {
            records.extend(family(m.sm).constant(id::UNNAMED_5F).map(|c| c.record()));
        }
    }
    records.extend(m.other_module_attrs.iter().cloned());
    Ok(encoded(&records))
}

/// The kernel's functions in reverse creation order: ptxas creates the visible (global, weak)
/// ones before the local ones, so locals come first, each group last symbol first.
fn functions_last_first(k: &KernelImage) -> impl Iterator<Item = &DeviceFunction> {
    let local = |f: &&DeviceFunction| f.binding == Binding::Local;
    let locals = k.functions.iter().rev().filter(local);
    let visible = k.functions.iter().rev().filter(move |f| !local(f));
    locals.chain(visible)
}

fn push_sized(records: &mut Vec<NvInfoAttr>, attr: u8, sym: u32, value: Option<u32>) {
    if let Some(v) = value {
        records.push(NvInfoAttr::words(attr, &[sym, v]));
    }
}

/// `.nv.info.<kernel>` contents for `k`: the records derived from the model (those the
/// family's order lists), the family's fixed-value records (each unless `k.other_attrs` has
/// one with its id) and `k.other_attrs`, stably sorted into the family's record order.
pub fn kernel_info(m: &CubinModule, k: &KernelImage, r: &Resolver) -> Result<Vec<u8>, CubinError> {
    let fam = family(m.sm);
    let v8 = m.flavour == ElfFlavour::V8;
    let mut rec = derived_records(m, k, r)?;
    rec.retain(|a| fam.kernel_attr_order.contains(&a.id));
    let overridden = |id: u8| k.other_attrs.iter().any(|a| a.id == id);
    let constants = fam
        .kernel_constants
        .iter()
        .filter(|c| (v8 || !c.v8_only) && !overridden(c.id));
    rec.extend(constants.map(|c| c.record()));
    rec.extend(k.other_attrs.iter().cloned());
    rec.sort_by_key(|a| fam.kernel_rank(a.id));
    Ok(encoded(&rec))
}

/// The records the model's fields give, in no particular order.
fn derived_records(m: &CubinModule, k: &KernelImage, r: &Resolver) -> Result<Vec<NvInfoAttr>, CubinError> {
    let v8 = m.flavour == ElfFlavour::V8;
    let mut rec = vec![NvInfoAttr::words(id::CUDA_API_VERSION, &[m.toolkit_version])];
    rec.extend(param_records(m, k, r)?);
    rec.extend(launch_records(k));
    if let Some(max) = k.max_reg_count {
        rec.push(NvInfoAttr::hval(id::MAXREG_COUNT, max as u16));
    }
    if v8 && k.num_barriers > 0 {
        rec.push(NvInfoAttr::bval(id::NUM_BARRIERS, k.num_barriers as u8));
    }
    if !k.externs.is_empty() {
        let syms = k.externs.iter().map(|e| r.symbol(e)).collect::<Result<Vec<_>, _>>()?;
        rec.push(NvInfoAttr::words(id::EXTERNS, &syms));
    }
    rec.extend(code_records(k));
    Ok(rec)
}

/// The records about the code: instruction offsets, `CTAIDZ_USED`, `CRS_STACK_SIZE`.
fn code_records(k: &KernelImage) -> Vec<NvInfoAttr> {
    let mut rec = Vec::new();
    push_words(&mut rec, id::COOP_GROUP_MASK_REGIDS, &k.coop_group_mask_regids);
    push_words(&mut rec, id::COOP_GROUP_INSTR_OFFSETS, &k.coop_group_offsets);
    push_words(&mut rec, id::INT_WARP_WIDE_INSTR_OFFSETS, &k.int_warp_wide_offsets);
    push_words(&mut rec, id::SYSCALL_OFFSETS, &k.syscall_offsets);
    push_words(
        &mut rec,
        id::UNUSED_LOAD_BYTE_OFFSET,
        k.unused_load_bytes.as_flattened(),
    );
    push_words(&mut rec, id::EXIT_INSTR_OFFSETS, &k.exit_offsets);
    if k.ctaid_z_used {
        rec.push(NvInfoAttr::nval(id::CTAIDZ_USED));
    }
    if let Some(size) = k.crs_stack_size {
        rec.push(NvInfoAttr::words(id::CRS_STACK_SIZE, &[size]));
    }
    rec
}

/// The launch-shape records: `REQNTID`, `MAX_THREADS` and the cluster records.
fn launch_records(k: &KernelImage) -> Vec<NvInfoAttr> {
    let mut rec = Vec::new();
    if let Some(ntid) = k.req_ntid {
        rec.push(NvInfoAttr::words(id::REQNTID, &ntid));
    }
    if let Some(ntid) = k.max_ntid {
        rec.push(NvInfoAttr::words(id::MAX_THREADS, &ntid));
    }
    if let Some(dims) = k.cluster_dims {
        rec.push(NvInfoAttr::words(id::CTA_PER_CLUSTER, &dims));
    }
    if let Some(rank) = k.max_cluster_rank {
        rec.push(NvInfoAttr::words(id::MAX_CLUSTER_RANK, &[rank]));
    }
    if k.explicit_cluster {
        rec.push(NvInfoAttr::nval(id::EXPLICIT_CLUSTER));
    }
    rec
}

/// `PARAM_CBANK`, `CBANK_PARAM_SIZE` and one `KPARAM_INFO` per parameter, last first.
fn param_records(m: &CubinModule, k: &KernelImage, r: &Resolver) -> Result<Vec<NvInfoAttr>, CubinError> {
    if k.params.is_empty() {
        return Ok(Vec::new());
    }
    let bank = r.symbol(&kernel_section(CONSTANT0_PREFIX, &k.name))?;
    let mut out = vec![
        NvInfoAttr::words(id::PARAM_CBANK, &[bank, (k.param_size << 16) | param_base(m.sm)]),
        NvInfoAttr::hval(id::CBANK_PARAM_SIZE, k.param_size as u16),
    ];
    let mut params = k.params.clone();
    params.sort_by_key(|p| std::cmp::Reverse(p.ordinal));
    for p in params {
        let info = (p.size << 18)
            | (u32::from(p.in_shared_memory) << 17)
            | (u32::from(p.cbank & 0x1f) << 12)
            | (u32::from(p.space & 0xf) << 8)
            | u32::from(p.pointee_log_align);
        out.push(NvInfoAttr::words(
            id::KPARAM_INFO,
            &[0, (p.offset << 16) | p.ordinal, info],
        ));
    }
    Ok(out)
}

fn push_words(records: &mut Vec<NvInfoAttr>, attr: u8, words: &[u32]) {
    if !words.is_empty() {
        records.push(NvInfoAttr::words(attr, words));
    }
}

fn encoded(records: &[NvInfoAttr]) -> Vec<u8> {
    let mut out = Vec::new();
    encode_records(records, &mut out);
    out
}

/// `.nv.callgraph`: `<0,-1>`, one `<kernel, callee>` pair per external function a kernel
/// refers to, then `<0,-2> <0,-3> <0,-4>` (ptxas 13.5's layout).
pub fn callgraph(m: &CubinModule, r: &Resolver) -> Result<Vec<u8>, CubinError> {
    let mut pairs: Vec<(i32, i32)> = vec![(0, -1)];
    for k in &m.kernels {
        for callee in &k.externs {
            let is_function = m
                .externs
                .iter()
                .any(|e| &e.name == callee && e.kind == SymbolKind::Function);
            if is_function {
                pairs.push((r.symbol(&k.name)? as i32, r.symbol(callee)? as i32));
            }
        }
    }
    pairs.extend([(0, -2), (0, -3), (0, -4)]);
    Ok(pairs
        .into_iter()
        .flat_map(|(a, b)| a.to_le_bytes().into_iter().chain(b.to_le_bytes()))
        .collect())
}
