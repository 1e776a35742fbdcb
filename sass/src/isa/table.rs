//! The instruction table: every form of every architecture in one list (a [`FormId`] names
//! the same form everywhere), and for each architecture whose description is written, the
//! view the decoder and the instruction builder search (the forms valid on it, by opcode).

use super::arch::Arch;
use super::desc::{Form, Op};
use super::inst::FormId;
use super::{sm75, sm80};
use std::collections::HashMap;
use std::sync::OnceLock;

/// Architectures whose instruction set is described and checked against nvdisasm.
pub const DESCRIBED: &[Arch] = &[Arch::Sm75, Arch::Sm80, Arch::Sm86, Arch::Sm89];

/// The whole table with one view per described architecture.
pub struct Isa {
    forms: Vec<Form>,
    views: Vec<(Arch, ArchView)>,
}

/// The forms valid on one architecture, by opcode and by operation.
pub struct ArchView {
    arch: Arch,
    by_opcode: HashMap<u16, Vec<FormId>>,
    /// Indexed by `Op as usize`.
    by_op: Vec<Vec<FormId>>,
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
        let views = DESCRIBED.iter().map(|&a| (a, ArchView::new(a, &forms))).collect();
        Isa { forms, views }
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
        self.views
            .iter()
            .find(|(a, _)| *a == arch)
            .map(|(_, v)| v)
            .ok_or(NotDescribed(arch))
    }

    /// The name nvdisasm prints for special register `n`.
    pub fn special_reg_name(&self, n: u8) -> Option<&'static str> {
        sm75::SPECIAL_REGS.iter().find(|(k, _)| *k == n).map(|(_, s)| *s)
    }
}

impl ArchView {
    fn new(arch: Arch, forms: &[Form]) -> ArchView {
        let mut by_opcode: HashMap<u16, Vec<FormId>> = HashMap::new();
        let mut by_op: Vec<Vec<FormId>> = Vec::new();
        for (i, f) in forms.iter().enumerate() {
            if f.archs.contains(arch) {
                by_opcode.entry(f.opcode).or_default().push(FormId(i as u16));
                let k = f.op as usize;
                if by_op.len() <= k {
                    by_op.resize(k + 1, Vec::new());
                }
                by_op[k].push(FormId(i as u16));
            }
        }
        ArchView { arch, by_opcode, by_op }
    }

    /// The architecture.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// Candidate forms for the 12-bit opcode.
    pub fn by_opcode(&self, opcode: u16) -> &[FormId] {
        self.by_opcode.get(&opcode).map_or(&[], |v| v.as_slice())
    }

    /// The forms of operation `op`, in table order.
    pub fn of_op(&self, op: Op) -> &[FormId] {
        self.by_op.get(op as usize).map_or(&[], |v| v.as_slice())
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
