//! Instruction selection: MIR to VCode. Each MIR value gets a virtual register of its width
//! class, except constants, kernel parameters and `%ntid`/`%nctaid`, which are folded into
//! operands (immediates and `c[0x0][...]`) wherever a form accepts them and materialised
//! with a move where one does not. One file per instruction family.

mod accumulators;
mod address;
mod aggregate;
mod arith;
mod async_copy;
mod atomic;
mod barrier;
mod bits;
mod bits64;
mod bulk_copy;
mod call;
mod cfg;
mod convert;
mod family;
pub(crate) mod fit;
mod float;
mod float_fold;
mod fp16;
mod fp64;
mod frame;
mod generic;
mod guarded_select;
mod idioms;
mod ifconvert;
mod lea;
mod mathfn;
mod mbarrier;
mod memory;
mod operand;
mod policy;
mod progress;
mod reconverge;
mod setp_logic;
mod subroutine;
mod subword;
mod tensor;
mod tuple_params;
mod values;
mod warp;
mod wgmma;
mod wide;

/// The one uniform register ptxc names (it allocates none): REDUX's result, the cache-policy
/// pair UR4:UR5 of an access's descriptor, and the barrier address of an arrival; the pre-RA
/// scheduler keeps every instruction naming it in order (`sched/pre_ra.rs`).
pub(crate) const FIXED_UR: u8 = 4;

use crate::vars::KernelVars;
use crate::vcode::{BlockId, MInst, VClass, VCode, VReg};
use ptxc_mir::ir::{Function, Inst, Type, Value};
use ptxc_sass::isa::Arch;
use rustc_hash::FxHashMap as HashMap;

/// A MIR construct the back end cannot select yet.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("kernel `{kernel}`: {what} is not supported by this version of the ptxc back end")]
pub struct IselError {
    /// The kernel.
    pub kernel: String,
    /// The construct.
    pub what: String,
    /// Where the PTX instruction being selected is, if known.
    pub at: ptxc_mir::ir::SrcLoc,
}

/// The register class of a MIR type.
pub fn class_of(ty: Type) -> VClass {
    match ty {
        Type::Pred => VClass::Pred,
        t if t.bits() <= 32 => VClass::Single,
        _ => VClass::Pair,
    }
}

/// Selection state for one function.
pub struct Isel<'a> {
    /// The MIR function.
    pub func: &'a Function,
    /// The VCode under construction.
    pub vcode: VCode,
    /// Registers of MIR values that live in registers.
    regs: HashMap<Value, VReg>,
    /// Foldable values materialised in the current block.
    local: HashMap<Value, VReg>,
    /// `SR_SWINHI` read in the current block (`generic.rs`).
    swinhi: Option<VReg>,
    /// The generic addresses `{a, SR_SWINHI}` of `.shared::cluster` addresses made in the
    /// current block (`generic.rs`).
    cluster_pairs: HashMap<Value, VReg>,
    /// Values that live in one register of a tuple (elements of vector loads).
    subs: HashMap<Value, (VReg, u8)>,
    /// Instructions of the block being selected.
    pub out: Vec<MInst>,
    /// Number of uses of each value.
    uses: HashMap<Value, u32>,
    /// Instructions folded into their single user (skipped when reached).
    fused: HashMap<Inst, ()>,
    /// Selects made of one guarded instruction (`guarded_select.rs`).
    guarded_selects: HashMap<Inst, guarded_select::GuardedArm>,
    /// Selects that are one instruction (`idioms.rs`).
    select_idioms: HashMap<Inst, idioms::Idiom>,
    /// Selecting the body of an if-converted arm, whose instructions all take the arm's
    /// guard (a guarded select there falls back to SEL).
    in_guarded_arm: bool,
    /// Where the function's variables live.
    vars: &'a KernelVars,
    /// Which values and branches are uniform across a warp.
    pub divergence: ptxc_mir::analysis::divergence::Divergence,
    /// Select small branch arms as guarded code.
    pub if_convert: bool,
    /// Select a select of a value computed for it alone as that instruction under a guard.
    pub guarded_selects_on: bool,
    /// Leave the convergence barrier out of branches on uniform conditions.
    pub uniform_branches: bool,
    /// Aggregate atomics on warp-uniform addresses (`aggregate.rs`).
    pub aggregate_atomics: bool,
    /// The active mask, its leader and whether this thread is the leader, as computed for
    /// the last aggregated atomic, and the MIR block that computed them (`aggregate.rs`).
    pub warp_leader: Option<(ptxc_mir::ir::Block, aggregate::Leader)>,
    /// The slow paths called as subroutines (`subroutine.rs`).
    subroutines: Vec<crate::legalize::Subroutine>,
    /// Headers of the loops whose back edges get a forward-progress latch (`progress.rs`).
    spin_headers: &'a rustc_hash::FxHashSet<ptxc_mir::ir::Block>,
    /// The instructions being selected are warp-wide ones the compiler inserts itself
    /// (`MInst::warp_wide`).
    pub warp_wide: bool,
    /// The source position of the MIR instruction being selected.
    pub srcloc: ptxc_mir::ir::SrcLoc,
    /// Blocks whose parameters travel partly as register tuples.
    tuple_params: HashMap<ptxc_mir::ir::Block, tuple_params::TupleParams>,
    /// `wgmma`s whose accumulator copies and A tuple were made at the `wgmma.fence` before
    /// them, with that A operand (`wgmma.rs`).
    prepared_wgmma: HashMap<Inst, Option<crate::vcode::MOp>>,
    /// The pinned registers of A of each `wgmma` reading A from registers.
    a_quads: HashMap<Inst, [VReg; 4]>,
}

/// The block-local materialisations of the selector at one point.
pub struct BlockValues {
    local: HashMap<Value, VReg>,
    swinhi: Option<VReg>,
    cluster_pairs: HashMap<Value, VReg>,
}

/// Selects VCode of `arch` for `func`, whose variables live where `vars` says, without the
/// `disabled` optimisations; the slow paths `subroutines` names are called as subroutines,
/// and the back edges of the loops `spin_headers` heads get a forward-progress latch.
pub fn select(
    func: &Function,
    vars: &KernelVars,
    arch: Arch,
    disabled: &[crate::compile::Optimisation],
    subroutines: &[crate::legalize::Subroutine],
    spin_headers: &rustc_hash::FxHashSet<ptxc_mir::ir::Block>,
) -> Result<VCode, IselError> {
    use crate::compile::Optimisation;
    let mut isel = Isel {
        func,
        vcode: VCode {
            name: func.name.clone(),
            device_function: func.is_device_function,
            barrier_base: vars.barrier_base,
            arch,
            ..VCode::default()
        },
        regs: HashMap::default(),
        local: HashMap::default(),
        swinhi: None,
        cluster_pairs: HashMap::default(),
        subs: HashMap::default(),
        out: Vec::new(),
        uses: HashMap::default(),
        fused: HashMap::default(),
        guarded_selects: HashMap::default(),
        select_idioms: HashMap::default(),
        in_guarded_arm: false,
        vars,
        divergence: ptxc_mir::analysis::divergence::Divergence::new(func),
        if_convert: !disabled.contains(&Optimisation::IfConvert),
        guarded_selects_on: !disabled.contains(&Optimisation::GuardedSelects),
        uniform_branches: !disabled.contains(&Optimisation::UniformBranches),
        aggregate_atomics: !disabled.contains(&Optimisation::WarpAggregation),
        warp_wide: false,
        warp_leader: None,
        subroutines: subroutines.to_vec(),
        spin_headers,
        srcloc: ptxc_mir::ir::SrcLoc::NONE,
        tuple_params: HashMap::default(),
        prepared_wgmma: HashMap::default(),
        a_quads: HashMap::default(),
    };
    isel.vcode.local_bytes = vars.frame_size;
    isel.vcode.local_align = vars.frame_align;
    isel.count_uses();
    isel.find_fusions();
    isel.assign_tuple_params();
    isel.pin_accumulators()?;
    cfg::build(&mut isel)?;
    isel.vcode.divergent_loop = crate::attrs::has_divergent_loop(isel.func, &isel.divergence);
    reconverge::insert_reconvergence(&mut isel.vcode);
    Ok(isel.vcode)
}

impl Isel<'_> {
    fn count_uses(&mut self) {
        for &b in &self.func.layout {
            for &i in &self.func.blocks[b].insts {
                for v in self.func.insts[i].all_args() {
                    *self.uses.entry(v).or_default() += 1;
                }
            }
        }
    }

    /// Marks 32x32->64 multiplies whose only use is a 64-bit add in the same block: the add
    /// becomes one IMAD.WIDE.
    fn find_fusions(&mut self) {
        self.fuse_flushed_compares();
        use ptxc_mir::ir::{Opcode, Type, ValueDef};
        self.find_select_idioms();
        self.discount_folded_uses();
        self.find_float_folds();
        for &b in &self.func.layout {
            for &i in &self.func.blocks[b].insts {
                let d = &self.func.insts[i];
                if d.op != Opcode::Iadd || d.ty != Type::I64 {
                    continue;
                }
                let fusable = d.args.iter().find_map(|&a| match self.func.values[a].def {
                    ValueDef::Result(m, _)
                        if matches!(self.func.insts[m].op, Opcode::ImulWideS | Opcode::ImulWideU)
                            && self.all_uses_are_wide_adds(a, b) =>
                    {
                        Some(m)
                    }
                    _ => None,
                });
                if let Some(m) = fusable {
                    self.fuse(m);
                }
            }
        }
        self.find_lea_fusions();
        self.find_sext_add_fusions();
        self.find_compare_fusions();
        if self.guarded_selects_on {
            self.find_guarded_selects();
        }
    }

    /// Uses that fold into their user need no register: a predicate `not` feeding a branch
    /// (the branch negates its guard and reads the `not`'s operand) and the parts of an
    /// address that fold into the memory operand (the user reads the base instead). Such
    /// uses move to what the user reads, so an instruction left with none is not emitted.
    fn discount_folded_uses(&mut self) {
        use ptxc_mir::ir::{Aux, Opcode};
        // (folded use, the value its user reads instead)
        let mut moved: Vec<(Value, Option<Value>)> = Vec::new();
        for &b in &self.func.layout {
            for &i in &self.func.blocks[b].insts {
                let d = &self.func.insts[i];
                let access = match (&d.op, &d.aux) {
                    (Opcode::Brif, _) => {
                        let c = d.args[0];
                        if let Some(x) = self.def_of(c).filter(|x| x.op == Opcode::Not) {
                            moved.push((c, Some(x.args[0])));
                        }
                        None
                    }
                    (
                        Opcode::Load | Opcode::Store | Opcode::PrefetchL1 | Opcode::PrefetchL2 | Opcode::PrefetchL2Last,
                        Aux::Mem(m),
                    ) => Some((m.space, m.offset)),
                    (Opcode::Atom | Opcode::MbarArrive, Aux::Atom(a)) => Some((a.space, a.offset)),
                    (Opcode::MbarPhaseTest | Opcode::MbarInit, Aux::Mem(m)) => Some((m.space, m.offset)),
                    (Opcode::Ldmatrix, _) => Some((ptxc_mir::ir::Space::Shared, 0)),
                    _ => None,
                };
                if let Some((space, offset)) = access {
                    let a = d.args[0];
                    match self.decompose(a, offset, space) {
                        Some((address::Base::Value(v), _)) if v == a => {}
                        Some((address::Base::Value(v), _)) => moved.push((a, Some(v))),
                        Some(_) => moved.push((a, None)),
                        None => {}
                    }
                }
            }
        }
        for (from, to) in moved {
            if let Some(n) = self.uses.get_mut(&from) {
                *n = n.saturating_sub(1);
            }
            if let Some(to) = to {
                *self.uses.entry(to).or_default() += 1;
            }
        }
        self.remove_dead_values();
    }

    /// Drops the uses made by pure instructions whose results are unused, until none is
    /// left: such instructions are not selected, so their operands need no register.
    fn remove_dead_values(&mut self) {
        let mut dead: rustc_hash::FxHashSet<Inst> = rustc_hash::FxHashSet::default();
        loop {
            let mut changed = false;
            for &b in &self.func.layout {
                for &i in &self.func.blocks[b].insts {
                    let d = &self.func.insts[i];
                    if dead.contains(&i)
                        || !d.op.is_pure()
                        || self.func.results[i].iter().any(|&r| self.use_count(r) > 0)
                    {
                        continue;
                    }
                    dead.insert(i);
                    changed = true;
                    for a in d.all_args() {
                        if let Some(n) = self.uses.get_mut(&a) {
                            *n = n.saturating_sub(1);
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// True if every use of `v` is a 64-bit add in block `b` (a multiply feeding only such
    /// adds is folded into each of them as IMAD.WIDE, as ptxas does).
    fn all_uses_are_wide_adds(&self, v: Value, b: ptxc_mir::ir::Block) -> bool {
        use ptxc_mir::ir::{Opcode, Type};
        let mut uses = 0;
        for &i in &self.func.blocks[b].insts {
            let d = &self.func.insts[i];
            let n = d.all_args().filter(|&a| a == v).count() as u32;
            // Every using add must itself be emitted (not folded into an address).
            let emitted = self.func.results[i].iter().all(|&r| self.use_count(r) > 0);
            if n > 0 && (d.op != Opcode::Iadd || d.ty != Type::I64 || n > 1 || !emitted) {
                return false;
            }
            uses += n;
        }
        uses == self.use_count(v)
    }

    /// Marks the MIR `fflush` instructions that only feed f32 compares: `lower_cmp` reads
    /// through them and sets FSETP.FTZ instead (how `setp.ftz` is lowered).
    fn fuse_flushed_compares(&mut self) {
        use ptxc_mir::ir::{Opcode, Type, ValueDef};
        let mut fcmp_uses: HashMap<Value, u32> = HashMap::default();
        for &b in &self.func.layout {
            for &i in &self.func.blocks[b].insts {
                let d = &self.func.insts[i];
                if d.op == Opcode::Fcmp && d.ty == Type::F32 {
                    for &a in &d.args {
                        *fcmp_uses.entry(a).or_default() += 1;
                    }
                }
            }
        }
        for (v, n) in fcmp_uses {
            if let ValueDef::Result(i, _) = self.func.values[v].def
                && self.func.insts[i].op == Opcode::Fflush
                && n == self.use_count(v)
            {
                self.fuse(i);
            }
        }
    }

    /// The number of uses of `v`.
    pub fn use_count(&self, v: Value) -> u32 {
        self.uses.get(&v).copied().unwrap_or(0)
    }

    /// An error about `what`.
    pub fn unsupported(&self, what: impl Into<String>) -> IselError {
        IselError {
            kernel: self.func.name.clone(),
            what: what.into(),
            at: self.srcloc,
        }
    }

    /// Appends an instruction to the current block.
    pub fn push(&mut self, mut inst: MInst) {
        if inst.srcloc.is_none() {
            inst.srcloc = self.srcloc;
        }
        inst.warp_wide |= self.warp_wide;
        self.out.push(inst);
    }

    /// The virtual register that holds `v` (defining it if needed).
    pub fn def_reg(&mut self, v: Value) -> VReg {
        if let Some(&r) = self.regs.get(&v) {
            return r;
        }
        let r = self.vcode.new_vreg(class_of(self.func.ty(v)));
        self.regs.insert(v, r);
        r
    }

    /// Places the warpgroup accumulators in their pinned registers (`accumulators.rs`).
    fn pin_accumulators(&mut self) -> Result<(), IselError> {
        let acc = accumulators::assign(self.func).map_err(|e| self.unsupported(e))?;
        let mut pinned: Vec<_> = acc.reg.into_iter().collect();
        pinned.sort_by_key(|&(v, _)| v);
        for (v, r) in pinned {
            let vreg = self.vcode.new_vreg(VClass::Fixed(r));
            self.regs.insert(v, vreg);
        }
        let mut quads: Vec<_> = acc.a_quad.into_iter().collect();
        quads.sort_by_key(|&(i, _)| i);
        for (w, r) in quads {
            let regs = [0, 1, 2, 3].map(|k| self.vcode.new_vreg(VClass::Fixed(r + k)));
            self.a_quads.insert(w, regs);
        }
        self.vcode.reserved = acc.reserved;
        Ok(())
    }

    /// Makes `alias` name the same register as `of` (bitcasts and copies).
    pub fn alias(&mut self, alias: Value, of: VReg) {
        self.regs.insert(alias, of);
    }

    /// Makes `alias` name what `of` names: the same element of a tuple, else the same
    /// register.
    pub fn alias_value(&mut self, alias: Value, of: Value) {
        match self.sub_of(of) {
            Some((tuple, index)) => self.alias_sub(alias, tuple, index),
            None => {
                let r = self.reg(of);
                self.alias(alias, r);
            }
        }
    }

    /// Makes `v` name register `index` of the tuple `of`.
    pub fn alias_sub(&mut self, v: Value, of: VReg, index: u8) {
        self.subs.insert(v, (of, index));
    }

    /// The tuple register `v` lives in, if it is an element of a tuple.
    pub fn sub_of(&self, v: Value) -> Option<(VReg, u8)> {
        self.subs.get(&v).copied()
    }

    /// Marks `inst` as folded into its user.
    pub fn fuse(&mut self, inst: Inst) {
        self.fused.insert(inst, ());
    }

    /// Whether `inst` was folded into its user.
    pub fn is_fused(&self, inst: Inst) -> bool {
        self.fused.contains_key(&inst)
    }

    /// The block-local materialisations, to forget those made under a guard
    /// ([`Isel::restore_block_values`]).
    pub fn save_block_values(&self) -> BlockValues {
        BlockValues {
            local: self.local.clone(),
            swinhi: self.swinhi,
            cluster_pairs: self.cluster_pairs.clone(),
        }
    }

    /// Returns the block-local materialisations to what `saved` holds.
    pub fn restore_block_values(&mut self, saved: BlockValues) {
        self.local = saved.local;
        self.swinhi = saved.swinhi;
        self.cluster_pairs = saved.cluster_pairs;
    }

    /// Starts a new block: forgets block-local materialisations.
    pub fn start_block(&mut self) {
        self.local.clear();
        self.swinhi = None;
        self.cluster_pairs.clear();
    }

    /// Block id of the VCode block for a MIR block (assigned by `cfg`).
    pub fn block_id(map: &HashMap<ptxc_mir::ir::Block, BlockId>, b: ptxc_mir::ir::Block) -> BlockId {
        map[&b]
    }
}
