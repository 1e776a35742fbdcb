//! The instruction table: every form of every architecture in one list (a [`FormId`] names
//! the same form everywhere), and for each architecture whose description is written, the
//! view the decoder and the instruction builder search (the forms valid on it, by opcode).
//!
//! The table is built in stages, each when first needed: Turing's forms, then Ampere's and
//! Ada's deltas, then Hopper's. A stage only appends forms and ends earlier ones at an
//! architecture (`Archs::until`), so each stage's table is a prefix of the next one's: a
//! compilation for sm_75 builds the Turing stage alone, and a [`FormId`] names the same
//! description in every stage that has it (only where it ends may differ, which an
//! [`ArchView`] of the stage that covers the architecture answers).

use super::arch::Arch;
use super::desc::{Form, Op};
use super::inst::FormId;
use super::{sm75, sm80, sm90};
use std::sync::OnceLock;

/// Architectures whose instruction set is described and checked against nvdisasm.
pub const DESCRIBED: &[Arch] = &[Arch::Sm75, Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90, Arch::Sm90a];

/// One stage of the table with one view per described architecture it covers (each built
/// when first asked for: a compilation needs one).
pub struct Isa {
    /// The stage: 0 Turing, 1 Ampere and Ada, 2 Hopper (see [`stage`]).
    stage: usize,
    forms: Vec<Form>,
    /// The view of `DESCRIBED[i]`.
    views: [OnceLock<ArchView>; DESCRIBED.len()],
}

/// The forms valid on one architecture, by opcode and by operation.
pub struct ArchView {
    arch: Arch,
    /// The stage whose forms the view lists.
    stage: usize,
    by_opcode: Groups,
    /// Keyed by `Op as usize`.
    by_op: Groups,
}

/// Form ids grouped by a small key, each group in table order: group `k` is
/// `ids[starts[k]..starts[k + 1]]` (built by a counting sort, without hashing).
struct Groups {
    starts: Vec<u32>,
    ids: Vec<FormId>,
}

impl Groups {
    /// Groups `items` (key, id), given in table order.
    fn new(items: &[(usize, FormId)]) -> Groups {
        let keys = items.iter().map(|&(k, _)| k + 1).max().unwrap_or(0);
        let mut starts = vec![0u32; keys + 1];
        for &(k, _) in items {
            starts[k + 1] += 1;
        }
        for k in 0..keys {
            starts[k + 1] += starts[k];
        }
        let mut next = starts.clone();
        let mut ids = vec![FormId(0); items.len()];
        for &(k, id) in items {
            ids[next[k] as usize] = id;
            next[k] += 1;
        }
        Groups { starts, ids }
    }

    /// The ids with key `k`, in table order.
    fn get(&self, k: usize) -> &[FormId] {
        match (self.starts.get(k), self.starts.get(k + 1)) {
            (Some(&lo), Some(&hi)) => &self.ids[lo as usize..hi as usize],
            _ => &[],
        }
    }
}

/// An architecture without an instruction-set description.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("ptxc has no instruction-set description of {0} (it describes {described})", described = described_names())]
pub struct NotDescribed(pub Arch);

fn described_names() -> String {
    DESCRIBED.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ")
}

/// How many stages the table is built in.
const STAGES: usize = 3;

/// The stage of the table that describes `arch`: 0 for Turing, 1 for Ampere and Ada, 2 for
/// Hopper.
pub fn stage(arch: Arch) -> usize {
    if arch >= Arch::Sm90 {
        2
    } else if arch >= Arch::Sm80 {
        1
    } else {
        0
    }
}

impl Isa {
    /// Builds stage `stage`: Turing's forms and the deltas up to that stage.
    fn new(stage: usize) -> Isa {
        let mut forms = sm75::forms();
        if stage >= 1 {
            sm80::apply(&mut forms);
        }
        if stage >= 2 {
            sm90::apply(&mut forms);
        }
        Isa {
            stage,
            forms,
            views: [const { OnceLock::new() }; DESCRIBED.len()],
        }
    }

    /// The form with id `id`.
    pub fn form(&self, id: FormId) -> &Form {
        &self.forms[id.0 as usize]
    }

    /// All forms of this stage (of [`isa`]: of all architectures).
    pub fn forms(&self) -> impl Iterator<Item = (FormId, &Form)> {
        self.forms.iter().enumerate().map(|(i, f)| (FormId(i as u16), f))
    }

    /// The view of `arch`, if its instruction set is described (from the stage that covers
    /// it when this one does not).
    pub fn for_arch(&self, arch: Arch) -> Result<&ArchView, NotDescribed> {
        if stage(arch) > self.stage {
            return arch_view(arch);
        }
        let i = DESCRIBED.iter().position(|&a| a == arch).ok_or(NotDescribed(arch))?;
        Ok(self.views[i].get_or_init(|| ArchView::new(arch, self.stage, &self.forms)))
    }
}

impl ArchView {
    fn new(arch: Arch, stage: usize, forms: &[Form]) -> ArchView {
        let valid = || {
            forms
                .iter()
                .enumerate()
                .filter(move |(_, f)| f.archs.contains(arch))
                .map(|(i, f)| (f, FormId(i as u16)))
        };
        let by_opcode: Vec<(usize, FormId)> = valid().map(|(f, id)| (usize::from(f.opcode), id)).collect();
        let by_op: Vec<(usize, FormId)> = valid().map(|(f, id)| (f.op as usize, id)).collect();
        ArchView {
            arch,
            stage,
            by_opcode: Groups::new(&by_opcode),
            by_op: Groups::new(&by_op),
        }
    }

    /// The architecture.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// Candidate forms for the 12-bit opcode.
    pub fn by_opcode(&self, opcode: u16) -> &[FormId] {
        self.by_opcode.get(usize::from(opcode))
    }

    /// The forms of operation `op`, in table order.
    pub fn of_op(&self, op: Op) -> &[FormId] {
        self.by_op.get(op as usize)
    }

    /// The forms valid on this architecture.
    pub fn forms(&self) -> impl Iterator<Item = (FormId, &'static Form)> {
        let arch = self.arch;
        table(self.stage).forms().filter(move |(_, f)| f.archs.contains(arch))
    }

    /// The form of operation `op` whose opcode is `opcode`, if any.
    pub fn find(&self, op: Op, opcode: u16) -> Option<FormId> {
        self.by_opcode(opcode).iter().copied().find(|&id| id.form().op == op)
    }
}

/// The stages built so far.
static TABLES: [OnceLock<Isa>; STAGES] = [const { OnceLock::new() }; STAGES];

/// Stage `stage` of the table (built once, when first asked for).
fn table(stage: usize) -> &'static Isa {
    TABLES[stage].get_or_init(|| Isa::new(stage))
}

/// The whole table, every form of every architecture (built once).
pub fn isa() -> &'static Isa {
    table(STAGES - 1)
}

/// The view of `arch`, from the stage of the table that covers it (built when first asked
/// for).
pub fn arch_view(arch: Arch) -> Result<&'static ArchView, NotDescribed> {
    table(stage(arch)).for_arch(arch)
}

/// The built stages, earliest first: each one's forms are a prefix of the next one's.
fn built() -> impl Iterator<Item = &'static Isa> {
    TABLES.iter().filter_map(OnceLock::get)
}

impl FormId {
    /// The form this id names, from the earliest built stage that has it (an id comes from a
    /// built stage, so this builds nothing in practice; it builds the whole table otherwise).
    pub fn form(self) -> &'static Form {
        let i = self.0 as usize;
        built().find_map(|t| t.forms.get(i)).unwrap_or_else(|| isa().form(self))
    }
}

/// The first form of operation `op` in table order (of any architecture), from the earliest
/// built stage that has one (the whole table is built when none does).
pub fn first_form_of(op: Op) -> Option<&'static Form> {
    built()
        .find_map(|t| t.forms.iter().find(|f| f.op == op))
        .or_else(|| isa().forms.iter().find(|f| f.op == op))
}

/// The view of the Turing core, for code that handles only sm_75 today.
pub fn sm75_view() -> &'static ArchView {
    arch_view(Arch::Sm75).expect("sm_75 is described")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each stage's forms are the next stage's first forms, alike but for where a later
    /// stage ends them: ids name the same form in every stage.
    #[test]
    fn each_stage_is_a_prefix_of_the_next() {
        for s in 1..STAGES {
            let (earlier, later) = (table(s - 1), table(s));
            assert!(earlier.forms.len() < later.forms.len());
            for (a, b) in earlier.forms.iter().zip(&later.forms) {
                let mut b = b.clone();
                b.archs.until = a.archs.until;
                assert_eq!(*a, b, "stage {s} changed {} beyond where it ends", a.mnemonic);
            }
        }
    }

    /// An architecture's view lists the same forms from its own stage as from the whole table.
    #[test]
    fn a_stage_views_its_architectures_as_the_whole_table() {
        for &arch in DESCRIBED {
            let own = arch_view(arch).unwrap();
            let whole = ArchView::new(arch, STAGES - 1, &isa().forms);
            for (a, b) in [(&own.by_opcode, &whole.by_opcode), (&own.by_op, &whole.by_op)] {
                assert_eq!((&a.starts, &a.ids), (&b.starts, &b.ids), "{arch:?}");
            }
        }
    }
}
