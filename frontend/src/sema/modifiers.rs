//! Instruction modifiers: what each spelling means (which depends a little on the opcode:
//! `.lo` is a comparison for `setp` and a result half for `mul`) and how a written list of them
//! becomes the normalised [`Mods`], each category at most once.

use crate::ast::{Ident, ScalarType, StateSpace};
use crate::checked::*;

/// The meaning of one modifier spelling.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ModValue {
    /// A state space (`.global`).
    Space(StateSpace),
    /// `.to` of `cvta.to.global`.
    To,
    /// A rounding mode.
    Rounding(Rounding),
    /// `.ftz`
    Ftz,
    /// `.sat`, `.satfinite`
    Sat,
    /// `.approx`
    Approx,
    /// `.full`
    Full,
    /// `.lo`/`.hi`/`.wide`
    Mul(MulMode),
    /// `.cc`
    Cc,
    /// A comparison.
    Cmp(CmpOp),
    /// `.and`/`.or`/`.xor`/`.popc` of setp/set/bar.red.
    Bool(BoolOp),
    /// An atomic operation.
    Atom(AtomOp),
    /// `.v2`/`.v4`/`.v8`
    Vector(u8),
    /// A cache operator.
    Cache(CacheOp),
    /// A memory order.
    Order(MemOrder),
    /// A memory scope.
    Scope(MemScope),
    /// A shfl mode.
    Shfl(ShflMode),
    /// A vote (or match) mode.
    Vote(VoteMode),
    /// `.sync`
    Sync,
    /// `.aligned`
    Aligned,
    /// `.uni`
    Uni,
    /// Any other flag, kept by name.
    Flag,
}

/// How an opcode reads the spellings that mean different things for different opcodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ctx {
    /// Nothing special.
    Plain,
    /// setp/set/slct: comparisons and boolean combiners.
    Compare,
    /// atom/red: atomic operations.
    Atomic,
    /// bar/barrier: `.and/.or/.popc` reductions.
    Barrier,
    /// vote/match: modes.
    Vote,
    /// mul/mad and friends: `.lo/.hi/.wide`.
    Mul,
    /// Video instructions: `.add/.min/.max` secondary operations are flags.
    Video,
    /// `cp.async` (and `fence.proxy`): the state spaces (`.shared::cluster.global`) are flags.
    Copy,
}

const COMPARE: &[(&str, ModValue)] = &[
    ("eq", ModValue::Cmp(CmpOp::Eq)),
    ("ne", ModValue::Cmp(CmpOp::Ne)),
    ("lt", ModValue::Cmp(CmpOp::Lt)),
    ("le", ModValue::Cmp(CmpOp::Le)),
    ("gt", ModValue::Cmp(CmpOp::Gt)),
    ("ge", ModValue::Cmp(CmpOp::Ge)),
    ("lo", ModValue::Cmp(CmpOp::Lo)),
    ("ls", ModValue::Cmp(CmpOp::Ls)),
    ("hi", ModValue::Cmp(CmpOp::Hi)),
    ("hs", ModValue::Cmp(CmpOp::Hs)),
    ("equ", ModValue::Cmp(CmpOp::Equ)),
    ("neu", ModValue::Cmp(CmpOp::Neu)),
    ("ltu", ModValue::Cmp(CmpOp::Ltu)),
    ("leu", ModValue::Cmp(CmpOp::Leu)),
    ("gtu", ModValue::Cmp(CmpOp::Gtu)),
    ("geu", ModValue::Cmp(CmpOp::Geu)),
    ("num", ModValue::Cmp(CmpOp::Num)),
    ("nan", ModValue::Cmp(CmpOp::Nan)),
    ("and", ModValue::Bool(BoolOp::And)),
    ("or", ModValue::Bool(BoolOp::Or)),
    ("xor", ModValue::Bool(BoolOp::Xor)),
];

const ATOMIC: &[(&str, ModValue)] = &[
    ("add", ModValue::Atom(AtomOp::Add)),
    ("min", ModValue::Atom(AtomOp::Min)),
    ("max", ModValue::Atom(AtomOp::Max)),
    ("inc", ModValue::Atom(AtomOp::Inc)),
    ("dec", ModValue::Atom(AtomOp::Dec)),
    ("and", ModValue::Atom(AtomOp::And)),
    ("or", ModValue::Atom(AtomOp::Or)),
    ("xor", ModValue::Atom(AtomOp::Xor)),
    ("exch", ModValue::Atom(AtomOp::Exch)),
    ("cas", ModValue::Atom(AtomOp::Cas)),
];

const BARRIER: &[(&str, ModValue)] = &[
    ("and", ModValue::Bool(BoolOp::And)),
    ("or", ModValue::Bool(BoolOp::Or)),
    ("popc", ModValue::Bool(BoolOp::Popc)),
    // `barrier.cluster`: the cluster's barrier, not a memory scope.
    ("cluster", ModValue::Flag),
];

const VOTE: &[(&str, ModValue)] = &[
    ("all", ModValue::Vote(VoteMode::All)),
    ("any", ModValue::Vote(VoteMode::Any)),
    ("uni", ModValue::Vote(VoteMode::Uni)),
    ("ballot", ModValue::Vote(VoteMode::Ballot)),
];

const MUL: &[(&str, ModValue)] = &[
    ("lo", ModValue::Mul(MulMode::Lo)),
    ("hi", ModValue::Mul(MulMode::Hi)),
    ("wide", ModValue::Mul(MulMode::Wide)),
];

/// Spellings with one meaning whatever the opcode.
const COMMON: &[(&str, ModValue)] = &[
    ("global", ModValue::Space(StateSpace::Global)),
    ("shared", ModValue::Space(StateSpace::Shared)),
    ("shared::cta", ModValue::Space(StateSpace::Shared)),
    ("shared::cluster", ModValue::Space(StateSpace::SharedCluster)),
    ("local", ModValue::Space(StateSpace::Local)),
    ("const", ModValue::Space(StateSpace::Const)),
    ("param", ModValue::Space(StateSpace::Param)),
    ("to", ModValue::To),
    ("rn", ModValue::Rounding(Rounding::Rn)),
    ("rz", ModValue::Rounding(Rounding::Rz)),
    ("rm", ModValue::Rounding(Rounding::Rm)),
    ("rp", ModValue::Rounding(Rounding::Rp)),
    ("rni", ModValue::Rounding(Rounding::Rni)),
    ("rzi", ModValue::Rounding(Rounding::Rzi)),
    ("rmi", ModValue::Rounding(Rounding::Rmi)),
    ("rpi", ModValue::Rounding(Rounding::Rpi)),
    ("rna", ModValue::Rounding(Rounding::Rna)),
    ("ftz", ModValue::Ftz),
    ("sat", ModValue::Sat),
    ("satfinite", ModValue::Sat),
    ("approx", ModValue::Approx),
    ("full", ModValue::Full),
    ("cc", ModValue::Cc),
    ("v2", ModValue::Vector(2)),
    ("v4", ModValue::Vector(4)),
    ("v8", ModValue::Vector(8)),
    ("ca", ModValue::Cache(CacheOp::Ca)),
    ("cg", ModValue::Cache(CacheOp::Cg)),
    ("cs", ModValue::Cache(CacheOp::Cs)),
    ("lu", ModValue::Cache(CacheOp::Lu)),
    ("cv", ModValue::Cache(CacheOp::Cv)),
    ("wb", ModValue::Cache(CacheOp::Wb)),
    ("wt", ModValue::Cache(CacheOp::Wt)),
    ("nc", ModValue::Cache(CacheOp::Nc)),
    ("weak", ModValue::Order(MemOrder::Weak)),
    ("relaxed", ModValue::Order(MemOrder::Relaxed)),
    ("acquire", ModValue::Order(MemOrder::Acquire)),
    ("release", ModValue::Order(MemOrder::Release)),
    ("acq_rel", ModValue::Order(MemOrder::AcqRel)),
    ("sc", ModValue::Order(MemOrder::Sc)),
    ("volatile", ModValue::Order(MemOrder::Volatile)),
    ("cta", ModValue::Scope(MemScope::Cta)),
    ("cluster", ModValue::Scope(MemScope::Cluster)),
    ("gpu", ModValue::Scope(MemScope::Gpu)),
    ("gl", ModValue::Scope(MemScope::Gpu)),
    ("sys", ModValue::Scope(MemScope::Sys)),
    ("up", ModValue::Shfl(ShflMode::Up)),
    ("down", ModValue::Shfl(ShflMode::Down)),
    ("bfly", ModValue::Shfl(ShflMode::Bfly)),
    ("idx", ModValue::Shfl(ShflMode::Idx)),
    ("sync", ModValue::Sync),
    ("aligned", ModValue::Aligned),
    ("uni", ModValue::Uni),
];

fn lookup(table: &[(&str, ModValue)], spelling: &str) -> Option<ModValue> {
    table.iter().find(|(s, _)| *s == spelling).map(|(_, v)| *v)
}

/// What `spelling` means for an opcode read in context `ctx` (every spelling an opcode's table
/// entry allows has a meaning: unknown ones are [`ModValue::Flag`]).
pub fn classify(ctx: Ctx, spelling: &str) -> ModValue {
    let specific = match ctx {
        Ctx::Plain | Ctx::Video => None,
        Ctx::Compare => lookup(COMPARE, spelling),
        Ctx::Atomic => lookup(ATOMIC, spelling),
        Ctx::Barrier => lookup(BARRIER, spelling),
        Ctx::Vote => lookup(VOTE, spelling),
        Ctx::Mul => lookup(MUL, spelling),
        Ctx::Copy => {
            matches!(spelling, "shared" | "shared::cta" | "shared::cluster" | "global").then_some(ModValue::Flag)
        }
    };
    specific.or_else(|| lookup(COMMON, spelling)).unwrap_or(ModValue::Flag)
}

/// True if `spelling` means something to some opcode (used to tell "unknown modifier" from
/// "not allowed here").
pub fn is_known(spelling: &str) -> bool {
    [COMPARE, ATOMIC, BARRIER, VOTE, MUL, COMMON]
        .iter()
        .any(|t| lookup(t, spelling).is_some())
        || ScalarType::from_name(spelling).is_some()
        || super::table::any_opcode_allows(spelling)
}

/// Records `value` (written as `m`) into `mods`; `Err` names the earlier modifier it conflicts
/// with.
pub fn apply(mods: &mut Mods, value: ModValue, m: &Ident) -> Result<(), String> {
    fn set<T: Copy + PartialEq>(slot: &mut Option<T>, v: T, what: &str) -> Result<(), String> {
        match slot {
            Some(old) if *old == v => Err("written twice".to_string()),
            Some(_) => Err(format!("conflicts with the {what} written before")),
            None => {
                *slot = Some(v);
                Ok(())
            }
        }
    }
    fn flag(slot: &mut bool) -> Result<(), String> {
        if std::mem::replace(slot, true) {
            return Err("written twice".to_string());
        }
        Ok(())
    }
    match value {
        ModValue::Space(s) => set(&mut mods.space, s, "state space"),
        ModValue::To => flag(&mut mods.to_space),
        ModValue::Rounding(r) => set(&mut mods.rounding, r, "rounding mode"),
        ModValue::Ftz => flag(&mut mods.ftz),
        ModValue::Sat => flag(&mut mods.sat),
        ModValue::Approx => flag(&mut mods.approx),
        ModValue::Full => flag(&mut mods.full),
        ModValue::Mul(x) => set(&mut mods.mul_mode, x, "result mode"),
        ModValue::Cc => flag(&mut mods.cc),
        ModValue::Cmp(c) => set(&mut mods.cmp, c, "comparison"),
        ModValue::Bool(b) => set(&mut mods.bool_op, b, "boolean operation"),
        ModValue::Atom(a) => set(&mut mods.atom_op, a, "atomic operation"),
        ModValue::Vector(n) => set(&mut mods.vector, n, "vector width"),
        ModValue::Cache(c) => set(&mut mods.cache, c, "cache operator"),
        ModValue::Order(o) => set(&mut mods.order, o, "memory order"),
        ModValue::Scope(s) => set(&mut mods.scope, s, "scope"),
        ModValue::Shfl(s) => set(&mut mods.shfl_mode, s, "shuffle mode"),
        ModValue::Vote(v) => set(&mut mods.vote_mode, v, "mode"),
        ModValue::Sync => flag(&mut mods.sync),
        ModValue::Aligned => flag(&mut mods.aligned),
        ModValue::Uni => flag(&mut mods.uni),
        ModValue::Flag => {
            if mods.has_flag(&m.name) {
                return Err("written twice".to_string());
            }
            mods.flags.push(m.name.clone());
            Ok(())
        }
    }
}
