//! Module data sections built from the variables: `.nv.global.init` bytes, `.nv.global` size
//! and the alignments.

use crate::cubin::model::{CubinModule, GlobalSpace, GlobalVar};

/// Alignment of bank 3 when no `.const` variable says otherwise.
const DEFAULT_CONST_ALIGN: u64 = 4;

/// The `.global` sections of a module.
pub struct ModuleData {
    /// `.nv.global.init`: bytes and alignment.
    pub global_init: Option<(Vec<u8>, u64)>,
    /// `.nv.global`: size and alignment.
    pub global_zero: Option<(u64, u64)>,
}

impl ModuleData {
    /// Lays out the `.global` variables of `m` at their offsets.
    pub fn new(m: &CubinModule) -> Self {
        let globals = m.globals.iter().filter(|g| g.space == GlobalSpace::Global);
        let (initialised, zero): (Vec<&GlobalVar>, Vec<&GlobalVar>) = globals.partition(|g| g.init.is_some());
        ModuleData {
            global_init: (!initialised.is_empty()).then(|| (init_bytes(&initialised), max_align(&initialised))),
            global_zero: (!zero.is_empty()).then(|| (extent(&zero), max_align(&zero))),
        }
    }
}

/// Alignment of `.nv.constant3`: the largest of its variables'.
pub fn constant3_align(m: &CubinModule) -> u64 {
    let consts: Vec<&GlobalVar> = m.globals.iter().filter(|g| g.space == GlobalSpace::Const).collect();
    if consts.is_empty() {
        DEFAULT_CONST_ALIGN
    } else {
        max_align(&consts)
    }
}

fn init_bytes(vars: &[&GlobalVar]) -> Vec<u8> {
    let mut bytes = vec![0; extent(vars) as usize];
    for v in vars {
        let init = v.init.as_deref().unwrap_or_default();
        let start = v.offset as usize;
        bytes[start..start + init.len()].copy_from_slice(init);
    }
    bytes
}

fn extent(vars: &[&GlobalVar]) -> u64 {
    vars.iter()
        .map(|v| v.offset + v.size.max(v.init.as_ref().map_or(0, |i| i.len() as u64)))
        .max()
        .unwrap_or(0)
}

fn max_align(vars: &[&GlobalVar]) -> u64 {
    vars.iter().map(|v| u64::from(v.align.max(1))).max().unwrap_or(1)
}
