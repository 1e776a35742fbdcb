//! The PTX ISA `.version` a module needs: for its `.target`, and for each feature it uses.
//!
//! The numbers are ptxas 13.5's, found by compiling one probe per row at every version from
//! 6.0 to 9.0 and keeping the first that ptxas accepts (its messages read "Feature 'redux'
//! requires PTX ISA .version 7.0 or later", "PTX .version 6.4 does not support .target
//! sm_80"). Where ptxas's numbers differ from the PTX ISA manual's tables, ptxas's are kept,
//! since a module ptxas refuses is not one ptxc should accept.

/// A PTX ISA version, `(major, minor)`.
pub type Version = (u32, u32);

/// The newest `.version` ptxc reads: ptxas 13.5's ("Unsupported .version 9.9; current
/// version is '9.5'").
pub const NEWEST: Version = (9, 5);

/// The first `.version` that allows each `.target` (sm_87 was probed with `-arch=sm_87`, the
/// others with `-arch=sm_75` or their own architecture).
const TARGETS: &[(u32, Version)] = &[
    (50, (4, 0)),
    (52, (4, 1)),
    (53, (4, 2)),
    (60, (5, 0)),
    (61, (5, 0)),
    (62, (5, 0)),
    (70, (6, 0)),
    (72, (6, 1)),
    (75, (6, 3)),
    (80, (7, 0)),
    (86, (7, 1)),
    (87, (7, 4)),
    (89, (7, 8)),
    (90, (7, 8)),
];

/// The opcodes a row applies to.
enum On {
    /// Every opcode.
    Any,
    /// These opcodes only.
    Only(&'static [&'static str]),
    /// Every opcode but these.
    Except(&'static [&'static str]),
}

/// When a row applies to an instruction, by what is written after its opcode.
enum When {
    /// Always (the opcode itself is the feature).
    Always,
    /// One of these modifiers or type suffixes is written.
    Written(&'static [&'static str]),
    /// Both are written, anywhere.
    Both(&'static str, &'static str),
    /// The first is written immediately before the second (`cvt.f32.bf16`).
    Adjacent(&'static str, &'static str),
}

/// A feature and the first `.version` that has it.
struct Since {
    on: On,
    when: When,
    version: Version,
    feature: &'static str,
}

const fn since(on: On, when: When, version: Version, feature: &'static str) -> Since {
    Since {
        on,
        when,
        version,
        feature,
    }
}

const L1_HINTS: &[&str] = &[
    "L1::evict_normal",
    "L1::evict_unchanged",
    "L1::evict_first",
    "L1::evict_last",
    "L1::no_allocate",
];

/// Every feature newer than PTX ISA 6.0 that ptxc compiles, with ptxas 13.5's version.
const SINCE: &[Since] = &[
    since(On::Only(&["mma"]), When::Always, (6, 4), "`mma`"),
    since(On::Only(&["ldmatrix"]), When::Always, (6, 5), "`ldmatrix`"),
    since(On::Only(&["stmatrix"]), When::Always, (7, 8), "`stmatrix`"),
    since(On::Only(&["wgmma"]), When::Always, (8, 0), "`wgmma`"),
    since(On::Only(&["elect"]), When::Always, (8, 0), "`elect`"),
    since(On::Only(&["setmaxnreg"]), When::Always, (8, 0), "`setmaxnreg`"),
    since(
        On::Only(&["fence"]),
        When::Written(&["async"]),
        (8, 0),
        "`fence.proxy.async`",
    ),
    since(
        On::Only(&["mma"]),
        When::Written(&["m16n8k8", "m8n8k16", "m8n8k32"]),
        (6, 5),
        "this `mma` shape",
    ),
    since(On::Only(&["cvt"]), When::Written(&["pack"]), (6, 5), "`cvt.pack`"),
    since(On::Only(&["redux"]), When::Always, (7, 0), "`redux`"),
    since(On::Only(&["cp"]), When::Written(&["async"]), (7, 0), "`cp.async`"),
    since(On::Only(&["mbarrier"]), When::Always, (7, 0), "`mbarrier`"),
    since(On::Only(&["tanh"]), When::Always, (7, 0), "`tanh`"),
    since(
        On::Only(&["ex2"]),
        When::Written(&["f16", "f16x2"]),
        (7, 0),
        "`ex2.f16/f16x2`",
    ),
    since(
        On::Any,
        When::Written(&["bf16", "bf16x2", "tf32"]),
        (7, 0),
        "`.bf16`, `.bf16x2` and `.tf32`",
    ),
    since(On::Any, When::Written(&["NaN"]), (7, 0), "`.NaN`"),
    since(On::Any, When::Written(&["relu"]), (7, 0), "`.relu`"),
    since(
        On::Only(&["cvt"]),
        When::Adjacent("f16x2", "f32"),
        (7, 0),
        "`cvt.f16x2.f32`",
    ),
    since(
        On::Only(&["mma"]),
        When::Written(&[
            "m16n8k16",
            "m16n8k32",
            "m16n8k64",
            "m16n8k4",
            "m8n8k128",
            "m16n8k128",
            "m16n8k256",
        ]),
        (7, 0),
        "this `mma` shape",
    ),
    since(
        On::Only(&["mma"]),
        When::Both("m8n8k4", "f64"),
        (7, 0),
        "`mma.m8n8k4` with f64",
    ),
    since(On::Only(&["cp"]), When::Written(&["bulk"]), (8, 0), "`cp.async.bulk`"),
    since(
        On::Only(&["mbarrier"]),
        When::Written(&["expect_tx", "complete_tx"]),
        (8, 0),
        "`mbarrier.expect_tx` and `.complete_tx`",
    ),
    since(
        On::Only(&["mbarrier"]),
        When::Written(&["parity"]),
        (7, 1),
        "`mbarrier.test_wait.parity`",
    ),
    since(
        On::Only(&["cvt"]),
        When::Adjacent("f32", "bf16"),
        (7, 1),
        "`cvt.f32.bf16`",
    ),
    since(
        On::Only(&["mma"]),
        When::Written(&["and"]),
        (7, 1),
        "`mma` with `.and.popc`",
    ),
    since(On::Any, When::Written(&["xorsign"]), (7, 2), "`.xorsign.abs`"),
    since(On::Only(&["createpolicy"]), When::Always, (7, 4), "`createpolicy`"),
    since(On::Any, When::Written(&["L2::cache_hint"]), (7, 4), "`.L2::cache_hint`"),
    since(
        On::Only(&["ld", "st"]),
        When::Written(L1_HINTS),
        (7, 4),
        "an `.L1::` eviction priority",
    ),
    since(
        On::Only(&["ld", "cp"]),
        When::Written(&["L2::64B", "L2::128B", "L2::256B"]),
        (7, 4),
        "an `.L2::` prefetch size",
    ),
    since(
        On::Only(&["prefetch"]),
        When::Written(&["L2::evict_last", "L2::evict_normal"]),
        (7, 4),
        "an eviction priority on `prefetch`",
    ),
    since(On::Any, When::Written(&["alias"]), (7, 5), "the `.alias` proxy"),
    since(On::Only(&["bmsk"]), When::Always, (7, 6), "`bmsk`"),
    since(On::Only(&["szext"]), When::Always, (7, 6), "`szext`"),
    since(
        On::Except(&["cp"]),
        When::Written(&["shared::cta"]),
        (7, 8),
        "`.shared::cta`",
    ),
    since(On::Only(&["barrier"]), When::Written(&["cta"]), (7, 8), "`barrier.cta`"),
    since(On::Only(&["movmatrix"]), When::Always, (7, 8), "`movmatrix`"),
    since(
        On::Only(&["cvt"]),
        When::Written(&["satfinite"]),
        (8, 1),
        "`cvt` with `.satfinite`",
    ),
    since(On::Any, When::Written(&["mmio"]), (8, 2), "`.mmio`"),
    since(
        On::Only(&["barrier"]),
        When::Written(&["release", "relaxed", "acquire"]),
        (8, 0),
        "an order on `barrier.cluster`",
    ),
    since(
        On::Only(&["fence"]),
        When::Written(&["mbarrier_init"]),
        (8, 0),
        "`fence.mbarrier_init`",
    ),
    since(
        On::Only(&["mbarrier"]),
        When::Written(&["shared::cluster", "cluster"]),
        (8, 0),
        "`mbarrier` at cluster scope or on `.shared::cluster`",
    ),
];

/// A feature the module's `.version` does not have.
pub struct TooOld {
    /// What the feature is, as it is shown.
    pub feature: &'static str,
    /// The first version that has it.
    pub needs: Version,
    /// Which written modifier is the feature (`None`: the opcode).
    pub modifier: Option<usize>,
}

/// The first feature of the instruction `opcode` with modifiers `written` (without dots) that
/// `version` does not have.
pub fn instruction(opcode: &str, written: &[&str], version: Version) -> Option<TooOld> {
    SINCE
        .iter()
        .filter(|row| row.version > version && applies_to(&row.on, opcode))
        .find_map(|row| {
            matches(&row.when, written).map(|modifier| TooOld {
                feature: row.feature,
                needs: row.version,
                modifier,
            })
        })
}

/// The message for `old` in a module of `version`.
pub fn message(old: &TooOld, version: Version) -> String {
    let (major, minor) = old.needs;
    format!(
        "{} needs PTX ISA .version {major}.{minor} or later (the module has .version {}.{})",
        old.feature, version.0, version.1
    )
}

/// The message refusing `.target sm_<sm>` in a module of `version`, if it is too old.
pub fn target(sm: u32, version: Version) -> Option<String> {
    let (_, needs) = TARGETS.iter().rev().find(|(t, _)| *t <= sm)?;
    (version < *needs).then(|| {
        format!(
            "PTX .version {}.{} does not support .target sm_{sm} (it needs .version {}.{} or later)",
            version.0, version.1, needs.0, needs.1
        )
    })
}

/// The first `.version` that allows each architecture-specific `.target` (ptxas 13.5:
/// "PTX .version 7.8 does not support .target sm_90a").
const ARCH_SPECIFIC: &[(&str, Version)] = &[("sm_90a", (8, 0))];

/// The message refusing an architecture-specific `.target` (`sm_90a`) at `version`.
pub fn arch_specific_target(name: &str, version: Version) -> Option<String> {
    let (_, needs) = ARCH_SPECIFIC.iter().find(|(t, _)| *t == name)?;
    (version < *needs).then(|| {
        format!(
            "PTX .version {}.{} does not support .target {name} (it needs .version {}.{} or later)",
            version.0, version.1, needs.0, needs.1
        )
    })
}

/// The message refusing `version` if it is newer than ptxc reads.
pub fn newest(version: Version) -> Option<String> {
    (version > NEWEST).then(|| {
        format!(
            "unsupported .version {}.{}: ptxc reads PTX ISA up to .version {}.{}",
            version.0, version.1, NEWEST.0, NEWEST.1
        )
    })
}

fn applies_to(on: &On, opcode: &str) -> bool {
    match on {
        On::Any => true,
        On::Only(list) => list.contains(&opcode),
        On::Except(list) => !list.contains(&opcode),
    }
}

/// `Some(position of the written modifier that matched)`, `Some(None)` for the opcode itself,
/// `None` if the row does not apply.
fn matches(when: &When, written: &[&str]) -> Option<Option<usize>> {
    let at = |name: &str| written.iter().position(|w| *w == name);
    match when {
        When::Always => Some(None),
        When::Written(names) => written.iter().position(|w| names.contains(w)).map(Some),
        When::Both(a, b) => at(a).zip(at(b)).map(|(i, _)| Some(i)),
        When::Adjacent(a, b) => written.windows(2).position(|p| p[0] == *a && p[1] == *b).map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_needs_its_first_version() {
        assert!(target(80, (6, 5)).unwrap().contains("needs .version 7.0"));
        assert_eq!(target(80, (7, 0)), None);
        assert!(target(89, (7, 7)).is_some());
        assert_eq!(target(89, (7, 8)), None);
        assert!(target(75, (6, 2)).is_some());
        assert_eq!(target(75, (6, 3)), None);
    }

    #[test]
    fn features_are_refused_below_their_version() {
        let old = instruction("redux", &["sync", "add", "u32"], (6, 5)).unwrap();
        assert_eq!((old.needs, old.modifier), ((7, 0), None));
        assert!(instruction("redux", &["sync", "add", "u32"], (7, 0)).is_none());
        let old = instruction("ld", &["global", "L1::evict_last", "u32"], (7, 3)).unwrap();
        assert_eq!((old.needs, old.modifier), ((7, 4), Some(1)));
        assert!(instruction("ld", &["global", "L2::evict_last", "u32"], (6, 3)).is_none());
        assert!(instruction("cvt", &["f32", "bf16"], (7, 0)).is_some());
        assert!(instruction("cvt", &["bf16", "f32"], (7, 0)).is_none());
        assert!(instruction("cp", &["async", "ca", "shared::cta", "global"], (7, 0)).is_none());
        assert!(instruction("ld", &["shared::cta", "u32"], (7, 7)).is_some());
    }

    #[test]
    fn versions_after_ptxas_are_refused() {
        assert!(newest((9, 6)).is_some());
        assert!(newest((9, 5)).is_none());
    }
}
