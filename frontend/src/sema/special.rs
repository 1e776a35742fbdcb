//! Special registers (`%tid.x`, `%laneid`, `WARP_SZ`, ...) and their types; the cluster
//! registers of sm_90 (`%cluster_ctarank`, `%clusterid.x`, ...) with the target they need.

use crate::ast::ScalarType;
use crate::checked::SpecialReg;

/// Special registers without a component, with their type.
const SCALARS: &[(&str, SpecialReg, ScalarType)] = &[
    ("%laneid", SpecialReg::LaneId, ScalarType::U32),
    ("%warpid", SpecialReg::WarpId, ScalarType::U32),
    ("%nwarpid", SpecialReg::NWarpId, ScalarType::U32),
    ("%smid", SpecialReg::SmId, ScalarType::U32),
    ("%nsmid", SpecialReg::NSmId, ScalarType::U32),
    ("%gridid", SpecialReg::GridId, ScalarType::U64),
    ("%lanemask_eq", SpecialReg::LaneMaskEq, ScalarType::U32),
    ("%lanemask_le", SpecialReg::LaneMaskLe, ScalarType::U32),
    ("%lanemask_lt", SpecialReg::LaneMaskLt, ScalarType::U32),
    ("%lanemask_ge", SpecialReg::LaneMaskGe, ScalarType::U32),
    ("%lanemask_gt", SpecialReg::LaneMaskGt, ScalarType::U32),
    ("%clock", SpecialReg::Clock, ScalarType::U32),
    ("%clock64", SpecialReg::Clock64, ScalarType::U64),
    ("%globaltimer", SpecialReg::GlobalTimer, ScalarType::U64),
    ("%globaltimer_lo", SpecialReg::GlobalTimerLo, ScalarType::U32),
    ("%globaltimer_hi", SpecialReg::GlobalTimerHi, ScalarType::U32),
    ("%total_smem_size", SpecialReg::TotalSmemSize, ScalarType::U32),
    ("%dynamic_smem_size", SpecialReg::DynamicSmemSize, ScalarType::U32),
    ("WARP_SZ", SpecialReg::WarpSize, ScalarType::U32),
    ("%cluster_ctarank", SpecialReg::ClusterCtaRank, ScalarType::U32),
    ("%cluster_nctarank", SpecialReg::ClusterNctaRank, ScalarType::U32),
    ("%is_explicit_cluster", SpecialReg::IsExplicitCluster, ScalarType::Pred),
];

/// Vector special registers that take a `.x`/`.y`/`.z` component.
type MakeSpecial = fn(u8) -> SpecialReg;

const VECTORS: &[(&str, MakeSpecial)] = &[
    ("%tid", SpecialReg::Tid),
    ("%ntid", SpecialReg::Ntid),
    ("%ctaid", SpecialReg::Ctaid),
    ("%nctaid", SpecialReg::Nctaid),
    ("%clusterid", SpecialReg::ClusterId),
    ("%nclusterid", SpecialReg::NClusterId),
    ("%cluster_ctaid", SpecialReg::ClusterCtaId),
    ("%cluster_nctaid", SpecialReg::ClusterNctaId),
];

/// The special register `name` (no component) and its type.
pub fn scalar(name: &str) -> Option<(SpecialReg, ScalarType)> {
    SCALARS.iter().find(|(n, _, _)| *n == name).map(|(_, r, t)| (*r, *t))
}

/// True if `name` is a vector special register that needs a component (`%tid`).
pub fn is_vector(name: &str) -> bool {
    VECTORS.iter().any(|(n, _)| *n == name)
}

/// `%tid.x` and friends (all `.u32`).
pub fn component(name: &str, component: &str) -> Option<SpecialReg> {
    let index = component_index(component)?;
    if index > 2 {
        return None;
    }
    VECTORS.iter().find(|(n, _)| *n == name).map(|(_, make)| make(index))
}

/// `x`/`r` → 0, `y`/`g` → 1, `z`/`b` → 2, `w`/`a` → 3.
pub fn component_index(component: &str) -> Option<u8> {
    Some(match component {
        "x" | "r" => 0,
        "y" | "g" => 1,
        "z" | "b" => 2,
        "w" | "a" => 3,
        _ => return None,
    })
}

/// The message refusing `sr` (written `name`) in a module whose `.target` is sm_`target`,
/// if the target lacks it.
pub fn refusal(sr: SpecialReg, name: &str, target: u32) -> Option<String> {
    let sm = sr.first_sm().filter(|&sm| target < sm)?;
    Some(super::features::needs_sm(name, sm, target))
}
