//! The launch's clusters (sm_90) as the interpreter sees them: the cluster special registers
//! of a CTA, and which CTA's shared memory an address names. A launch without a cluster
//! shape runs every CTA as a cluster of its own (`%is_explicit_cluster` false).
//!
//! The interpreter runs one CTA at a time, so what needs another CTA of the cluster (its
//! shared memory, the cluster's barrier in a cluster of more than one CTA) is refused with a
//! message rather than given a wrong result.

use super::LaunchConfig;
use crate::ir::SpecialReg;

/// Bits 24..31 of a shared address: the rank of the CTA whose memory it names.
const RANK_SHIFT: u32 = 24;
/// The offset bits of a shared address.
const OFFSET_MASK: u64 = (1 << RANK_SHIFT) - 1;

/// The message for what needs the other CTAs of a cluster.
pub const NO_CLUSTERS: &str = "the MIR engine runs no clusters of more than one CTA (it runs the CTAs one \
                               at a time); run the kernel on the simulator";

/// The cluster shape of a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clusters {
    /// CTAs per cluster dimension.
    pub dims: [u32; 3],
    /// The launch gave a cluster shape.
    pub explicit: bool,
}

impl Clusters {
    /// The clusters of `cfg`; an error if its shape is empty or does not tile the grid.
    pub fn of(cfg: &LaunchConfig) -> Result<Clusters, String> {
        let Some(dims) = cfg.cluster else {
            return Ok(Clusters {
                dims: [1; 3],
                explicit: false,
            });
        };
        if dims.contains(&0) {
            return Err(format!("the cluster shape {dims:?} has an empty dimension"));
        }
        if (0..3).any(|d| !cfg.grid[d].is_multiple_of(dims[d])) {
            return Err(format!(
                "the grid {:?} is not a whole number of clusters of {dims:?}",
                cfg.grid
            ));
        }
        Ok(Clusters { dims, explicit: true })
    }

    /// CTAs per cluster.
    pub fn size(&self) -> u64 {
        self.dims.iter().map(|&d| d as u64).product()
    }

    /// The rank of CTA `ctaid` in its cluster (x fastest).
    pub fn rank(&self, ctaid: [u32; 3]) -> u64 {
        let [x, y, z] = [0, 1, 2].map(|d| (ctaid[d] % self.dims[d]) as u64);
        let [dx, dy, _] = self.dims.map(u64::from);
        x + dx * (y + dy * z)
    }

    /// The value of cluster special register `sr` for CTA `ctaid` of a grid of `grid` CTAs
    /// (`None` for the other special registers).
    pub fn special(&self, sr: SpecialReg, ctaid: [u32; 3], grid: [u32; 3]) -> Option<u64> {
        let dim = |d: u8| d as usize;
        Some(match sr {
            SpecialReg::ClusterId(d) => (ctaid[dim(d)] / self.dims[dim(d)]) as u64,
            SpecialReg::NClusterId(d) => (grid[dim(d)] / self.dims[dim(d)]) as u64,
            SpecialReg::ClusterCtaId(d) => (ctaid[dim(d)] % self.dims[dim(d)]) as u64,
            SpecialReg::ClusterNctaId(d) => self.dims[dim(d)] as u64,
            SpecialReg::ClusterCtaRank => self.rank(ctaid),
            SpecialReg::ClusterNctaRank => self.size(),
            SpecialReg::IsExplicitCluster => self.explicit as u64,
            _ => return None,
        })
    }

    /// The offset in the executing CTA (of rank `own`) of the 32-bit shared address `addr`.
    /// A `.shared::cta` access (`cta`) takes bits 24..31 of 0 or of the CTA's own rank; a
    /// `.shared::cluster` one (or a generic one in the shared window) names a CTA by them.
    /// Another CTA's rank is refused; bits that name no CTA of the cluster are left in the
    /// offset (which the bounds check then refuses).
    pub fn shared_offset(&self, addr: u64, own: u64, cta: bool) -> Result<u64, String> {
        let rank = addr >> RANK_SHIFT;
        if rank == own || (cta && rank == 0) {
            return Ok(addr & OFFSET_MASK);
        }
        if rank < self.size() {
            let space = if cta {
                "a `.shared::cta`"
            } else {
                "a `.shared::cluster`"
            };
            return Err(format!(
                "{space} access at {addr:#x} names the shared memory of CTA rank {rank} of the cluster (this \
                 CTA is rank {own}): {NO_CLUSTERS}"
            ));
        }
        Ok(addr)
    }

    /// Whether the generic address `offset` past the shared window's base is in the executing
    /// CTA's own shared memory (`isspacep.shared::cta`) rather than another CTA's of the
    /// cluster.
    pub fn is_own(&self, offset: u64, own: u64) -> bool {
        let rank = offset >> RANK_SHIFT;
        rank == own || rank >= self.size()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(grid: [u32; 3], cluster: Option<[u32; 3]>) -> LaunchConfig {
        LaunchConfig {
            grid,
            block: [32, 1, 1],
            cluster,
            ..Default::default()
        }
    }

    #[test]
    fn ranks_and_ids_follow_the_cluster_shape() {
        let c = Clusters::of(&launch([4, 6, 2], Some([2, 3, 1]))).unwrap();
        // x 3 % 2 = 1, y 4 % 3 = 1: rank 1 + 2 * 1.
        let ctaid = [3, 4, 1];
        assert_eq!(c.rank(ctaid), 3);
        let sp = |sr| c.special(sr, ctaid, [4, 6, 2]).unwrap();
        assert_eq!(sp(SpecialReg::ClusterId(0)), 1);
        assert_eq!(sp(SpecialReg::ClusterId(1)), 1);
        assert_eq!(sp(SpecialReg::ClusterCtaId(1)), 1);
        assert_eq!(sp(SpecialReg::NClusterId(1)), 2);
        assert_eq!(sp(SpecialReg::ClusterNctaRank), 6);
        assert_eq!(sp(SpecialReg::IsExplicitCluster), 1);
    }

    #[test]
    fn a_launch_without_clusters_has_one_cta_per_cluster() {
        let c = Clusters::of(&launch([5, 1, 1], None)).unwrap();
        assert_eq!(c.special(SpecialReg::NClusterId(0), [3, 0, 0], [5, 1, 1]), Some(5));
        assert_eq!(c.special(SpecialReg::ClusterCtaRank, [3, 0, 0], [5, 1, 1]), Some(0));
        assert_eq!(c.special(SpecialReg::IsExplicitCluster, [3, 0, 0], [5, 1, 1]), Some(0));
    }

    #[test]
    fn a_shape_that_does_not_tile_the_grid_is_refused() {
        let err = Clusters::of(&launch([3, 1, 1], Some([2, 1, 1]))).unwrap_err();
        assert!(err.contains("not a whole number of clusters"), "{err}");
    }

    #[test]
    fn shared_addresses_name_their_cta_by_rank() {
        let c = Clusters::of(&launch([4, 1, 1], Some([4, 1, 1]))).unwrap();
        assert_eq!(c.shared_offset(0x0200_0010, 2, false), Ok(0x10));
        assert_eq!(c.shared_offset(0x10, 2, true), Ok(0x10));
        assert!(c.shared_offset(0x10, 2, false).unwrap_err().contains(NO_CLUSTERS));
        assert!(c.shared_offset(0x0100_0010, 2, true).unwrap_err().contains("rank 1"));
        assert_eq!(c.shared_offset(0x0900_0010, 2, false), Ok(0x0900_0010));
    }
}
