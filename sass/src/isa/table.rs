//! The instruction table: every form of every architecture in one list (a [`FormId`] names
//! the same form everywhere), and for each architecture whose description is written, the
//! view the decoder and the instruction builder search (the forms valid on it, by opcode).

use super::arch::Arch;
use super::desc::{Form, Op};
use super::inst::FormId;
use super::{sm75, sm80, sm90};
use std::sync::OnceLock;

/// Architectures whose instruction set is described and checked against nvdisasm.
pub const DESCRIBED: &[Arch] = &[Arch::Sm75, Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90, Arch::Sm90a];

/// The whole table with one view per described architecture (each built when first asked
/// for: a compilation needs one).
pub struct Isa {
    forms: Vec<Form>,
    /// The view of `DESCRIBED[i]`.
    views: [OnceLock<ArchView>; DESCRIBED.len()],
}

/// The forms valid on one architecture, by opcode and by operation.
pub struct ArchView {
    arch: Arch,
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

impl Isa {
    fn new() -> Isa {
        let mut forms = sm75::forms();
        sm80::apply(&mut forms);
        sm90::apply(&mut forms);
        Isa {
            forms,
            views: [const { OnceLock::new() }; DESCRIBED.len()],
        }
    }

    /// The form with id `id`.
    pub fn form(&self, id: FormId) -> &Form {
        &self.forms[id.0 as usize]
    }

    /// All forms of all architectures.
    pub fn forms(&self) -> impl Iterator<Item = (FormId, &Form)> {
        self.forms.iter().enumerate().map(|(i, f)| (FormId(i as u16), f))
    }

    /// The view of `arch`, if its instruction set is described.
    pub fn for_arch(&self, arch: Arch) -> Result<&ArchView, NotDescribed> {
        let i = DESCRIBED.iter().position(|&a| a == arch).ok_or(NotDescribed(arch))?;
        Ok(self.views[i].get_or_init(|| ArchView::new(arch, &self.forms)))
    }
}

impl ArchView {
    fn new(arch: Arch, forms: &[Form]) -> ArchView {
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
        isa().forms().filter(move |(_, f)| f.archs.contains(arch))
    }

    /// The form of operation `op` whose opcode is `opcode`, if any.
    pub fn find(&self, op: Op, opcode: u16) -> Option<FormId> {
        self.by_opcode(opcode)
            .iter()
            .copied()
            .find(|&id| isa().form(id).op == op)
    }
}

/// The table (built once).
pub fn isa() -> &'static Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    ISA.get_or_init(Isa::new)
}

/// The view of the Turing core, for code that handles only sm_75 today.
pub fn sm75_view() -> &'static ArchView {
    isa().for_arch(Arch::Sm75).expect("sm_75 is described")
}
