//! The register-file layout of one function: quads first (4-aligned), then pairs
//! (2-aligned), then single registers, each region as large as its class needs.

use regalloc2 as ra;

/// Sizes and bases of the three general-register regions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Regions {
    /// Number of quads, pairs and singles.
    pub count: [usize; 3],
    /// First register of the quad, pair and single regions.
    pub base: [usize; 3],
}

impl Regions {
    /// A layout for `singles`, `pairs` and `quads`.
    pub fn new(singles: usize, pairs: usize, quads: usize) -> Regions {
        let quad_base = 0;
        let pair_base = quad_base + 4 * quads;
        let single_base = pair_base + 2 * pairs;
        Regions {
            count: [quads, pairs, singles],
            base: [quad_base, pair_base, single_base],
        }
    }

    /// The same layout after `reserved` registers (a multiple of 4: the quads stay aligned).
    pub fn after(mut self, reserved: usize) -> Regions {
        debug_assert!(reserved.is_multiple_of(4));
        for b in &mut self.base {
            *b += reserved;
        }
        self
    }

    /// Registers used in all (highest + 1).
    pub fn total(&self) -> usize {
        self.base[2] + self.count[2]
    }

    /// The regalloc2 environment for this layout.
    pub fn machine_env(&self) -> ra::MachineEnv {
        super::machine_env_for([self.count[2], self.count[1], self.count[0]])
    }

    /// The first SASS register of an allocated physical register.
    pub fn sass_reg(&self, preg: ra::PReg) -> u8 {
        let i = preg.hw_enc();
        let r = match preg.class() {
            ra::RegClass::Int => self.base[2] + i,
            ra::RegClass::Float => self.base[1] + 2 * i,
            ra::RegClass::Vector => self.base[0] + 4 * i,
        };
        r as u8
    }
}
