//! GPU architectures (SM versions). The instruction set is one description for all of them:
//! every form says from which architecture on (and until which) it exists, and each
//! architecture sees the forms valid for it ([`super::table::Isa::for_arch`]). A new
//! architecture is a delta (new forms, forms that end) on the shared core, not a copy.

/// An NVIDIA GPU architecture, oldest first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    /// Turing: T4, RTX 20xx (the default target).
    #[default]
    Sm75,
    /// Ampere, data centre: A100.
    Sm80,
    /// Ampere, consumer and inference: RTX 30xx, A10, A40.
    Sm86,
    /// Ada: RTX 40xx, L4, L40.
    Sm89,
    /// Hopper: H100, H200.
    Sm90,
    /// Hopper with its architecture-specific features (wgmma, setmaxnreg).
    Sm90a,
}

impl Arch {
    /// Every architecture, oldest first.
    pub const ALL: [Arch; 6] = [Arch::Sm75, Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90, Arch::Sm90a];

    /// The SM number (`90` for both Hopper variants).
    pub fn sm(self) -> u32 {
        match self {
            Arch::Sm75 => 75,
            Arch::Sm80 => 80,
            Arch::Sm86 => 86,
            Arch::Sm89 => 89,
            Arch::Sm90 | Arch::Sm90a => 90,
        }
    }

    /// The name PTX's `.target` and ptxas's `-arch` use (`sm_75`).
    pub fn name(self) -> &'static str {
        match self {
            Arch::Sm75 => "sm_75",
            Arch::Sm80 => "sm_80",
            Arch::Sm86 => "sm_86",
            Arch::Sm89 => "sm_89",
            Arch::Sm90 => "sm_90",
            Arch::Sm90a => "sm_90a",
        }
    }

    /// The architecture called `name` (`sm_86`).
    pub fn from_name(name: &str) -> Option<Arch> {
        Arch::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The architecture of a cubin's SM number and its architecture-specific flag.
    pub fn from_sm(sm: u32, specific: bool) -> Option<Arch> {
        match (sm, specific) {
            (90, true) => Some(Arch::Sm90a),
            (sm, false) => Arch::ALL.into_iter().find(|a| a.sm() == sm && *a != Arch::Sm90a),
            _ => None,
        }
    }

    /// The architecture before this one (`None` for sm_75, the oldest ptxc knows).
    pub fn previous(self) -> Option<Arch> {
        let i = Arch::ALL.iter().position(|&a| a == self)?;
        i.checked_sub(1).map(|j| Arch::ALL[j])
    }

    /// Byte offset of the first kernel parameter in constant bank 0, as ptxas addresses
    /// it: `c[0x0][0x160]` up to Ada, `c[0x0][0x210]` on Hopper (ptxas 13.5's SASS).
    pub fn param_base(self) -> u32 {
        crate::cubin::param_base(self.sm())
    }

    /// Byte offset in constant bank 0 of the 64-bit generic address of the module's
    /// constant bank 3, which `cvta.const` adds (ptxas 13.5 reads `c[0x0][0x50]` up to Ada,
    /// `c[0x0][0xd0]` on Hopper).
    pub fn const_window(self) -> u32 {
        if self.sm() >= 90 { 0xd0 } else { 0x50 }
    }

    /// Byte offset in constant bank 0 of the 64-bit generic address of the kernel's
    /// parameters (`cvta.param`; a tensor map passed by value is read through it): ptxas 13.5
    /// reads `c[0x0][0x198]` on Hopper (its sm_90a TMA code adds the parameter's offset).
    pub fn param_window(self) -> Option<u32> {
        (self.sm() >= 90).then_some(0x198)
    }

    /// Bytes of shared memory reserved for the system at the start of a kernel's shared
    /// window, before its variables: on Hopper ptxas 13.5 places the first variable at 0x400
    /// and counts the reserved KiB in `.nv.shared.<kernel>` (none before).
    pub fn reserved_shared(self) -> u32 {
        crate::cubin::reserved_shared(self.sm())
    }

    /// Shared addresses become generic through the `SR_SWINHI` special register (the high
    /// word of the shared window) rather than the 64-bit window base in `c[0x0][0x18]`:
    /// Hopper on, as ptxas 13.5 writes `cvta.shared`.
    pub fn shared_window_in_sreg(self) -> bool {
        self.sm() >= 90
    }

    /// nvdisasm's name of the architecture (`SM75`), for `nvdisasm -b`.
    pub fn nvdisasm_name(self) -> &'static str {
        match self {
            Arch::Sm75 => "SM75",
            Arch::Sm80 => "SM80",
            Arch::Sm86 => "SM86",
            Arch::Sm89 => "SM89",
            Arch::Sm90 | Arch::Sm90a => "SM90",
        }
    }
}

impl std::fmt::Display for Arch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The architectures a form exists on: from `since` up to and including `until`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Archs {
    /// The first architecture with the form.
    pub since: Arch,
    /// The last one, if the form was dropped later.
    pub until: Option<Arch>,
}

impl Archs {
    /// From `since` on.
    pub const fn since(since: Arch) -> Archs {
        Archs { since, until: None }
    }

    /// From `since` up to and including `until`.
    pub const fn between(since: Arch, until: Arch) -> Archs {
        Archs {
            since,
            until: Some(until),
        }
    }

    /// Whether the form exists on `arch`.
    pub fn contains(self, arch: Arch) -> bool {
        arch >= self.since && self.until.is_none_or(|u| arch <= u)
    }
}

impl Default for Archs {
    /// Every architecture ptxc knows (Turing's forms are the shared core).
    fn default() -> Archs {
        Archs::since(Arch::Sm75)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_sm_numbers_round_trip() {
        for a in Arch::ALL {
            assert_eq!(Arch::from_name(a.name()), Some(a));
            assert_eq!(Arch::from_sm(a.sm(), a == Arch::Sm90a), Some(a));
        }
        assert_eq!(Arch::from_name("sm_70"), None);
        assert_eq!(Arch::from_sm(86, true), None);
        assert_eq!(Arch::Sm75.previous(), None);
        assert_eq!(Arch::Sm86.previous(), Some(Arch::Sm80));
    }

    #[test]
    fn hopper_moves_the_driver_constants() {
        assert_eq!((Arch::Sm89.param_base(), Arch::Sm90.param_base()), (0x160, 0x210));
        assert_eq!((Arch::Sm86.const_window(), Arch::Sm90a.const_window()), (0x50, 0xd0));
        assert_eq!((Arch::Sm80.reserved_shared(), Arch::Sm90.reserved_shared()), (0, 0x400));
    }

    #[test]
    fn ranges_include_their_ends() {
        let r = Archs {
            since: Arch::Sm80,
            until: Some(Arch::Sm89),
        };
        assert!(!r.contains(Arch::Sm75));
        assert!(r.contains(Arch::Sm80) && r.contains(Arch::Sm89));
        assert!(!r.contains(Arch::Sm90));
    }
}
