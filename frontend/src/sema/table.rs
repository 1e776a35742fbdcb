//! The instruction table: one entry per opcode saying which modifiers it takes, which are
//! required, which types it accepts in which position, and the shape of its operands.
//!
//! Operand shapes are space-separated `kind:type` items, alternatives separated by `|`
//! (chosen by operand count). Kinds: `d` destination, `D` destination that may be a
//! predicate pair `a|p`, `s` source, `m` source that may also be a variable's address,
//! `n` predicate source (`p`, `!p` or a constant), `a` address, `l` label, `i` immediate.
//! Types: `T`/`U`/`V` the first/second/third type suffix, `R` the result type (`T`, or twice
//! its width with `.wide`), a type name (`u32`, `pred`), or `*` for any.
//!
//! Required groups are space-separated; each group is `|`-separated spellings or categories
//! (`@cmp`, `@atom`, `@space`, `@shfl`, `@vote`, `@mul`, `@scope`), one of which must be
//! written.

use super::modifiers::Ctx;
use super::rules::{self, Rule};
use crate::checked::Opcode;

/// What an opcode accepts.
#[derive(Debug)]
pub struct OpSpec {
    /// The opcode as written.
    pub name: &'static str,
    /// The checked opcode.
    pub op: Opcode,
    /// How ambiguous modifier spellings are read.
    pub ctx: Ctx,
    /// Accepted modifier spellings (types excepted), space-separated.
    pub mods: &'static str,
    /// Accepted types for each type suffix position, space-separated.
    pub types: &'static [&'static str],
    /// How many type suffixes must be written (the rest of `types` is optional).
    pub min_types: usize,
    /// Required modifier groups.
    pub required: &'static str,
    /// Operand shapes.
    pub operands: &'static str,
    /// Extra checks the columns above cannot express.
    pub rule: Option<Rule>,
    /// The operand shapes when they depend on the modifiers (instead of `operands`).
    pub operands_of: Option<fn(&crate::checked::Mods) -> &'static str>,
}

macro_rules! int {
    () => {
        "s16 u16 s32 u32 s64 u64"
    };
}
macro_rules! int32_64 {
    () => {
        "s32 u32 s64 u64"
    };
}
macro_rules! bits {
    () => {
        "b16 b32 b64"
    };
}
macro_rules! float {
    () => {
        "f32 f64"
    };
}
macro_rules! half {
    () => {
        "f16 f16x2 bf16 bf16x2"
    };
}
macro_rules! memory {
    () => {
        "b8 b16 b32 b64 b128 u8 u16 u32 u64 s8 s16 s32 s64 f32 f64"
    };
}
macro_rules! cvt {
    () => {
        "u8 u16 u32 u64 s8 s16 s32 s64 f16 f16x2 f32 f64 bf16 bf16x2 tf32"
    };
}
macro_rules! ld_mods {
    () => {
        "global shared shared::cta shared::cluster local const param ca cg cs lu cv nc v2 v4 weak relaxed acquire \
         volatile cta cluster gpu sys L1::evict_normal L1::evict_unchanged L1::evict_first L1::evict_last \
         L1::no_allocate L2::evict_normal L2::evict_first L2::evict_last L2::64B L2::128B \
         L2::256B L2::cache_hint"
    };
}

/// An entry that accepts nothing beyond its name and opcode (the base of the table rows).
pub const fn spec(name: &'static str, op: Opcode) -> OpSpec {
    OpSpec {
        name,
        op,
        ctx: Ctx::Plain,
        mods: "",
        types: &[],
        min_types: 0,
        required: "",
        operands: "",
        rule: None,
        operands_of: None,
    }
}

/// Every opcode ptxc accepts (one line per opcode: this is a table); what needs a later
/// target than sm_75 is refused for older ones by `features.rs` and the rules.
#[rustfmt::skip]
pub static TABLE: &[OpSpec] = &[
    OpSpec { mods: "ftz", types: &[concat!("s16 s32 s64 ", float!(), " ", half!())], min_types: 1, operands: "d:T s:T", rule: Some(rules::sign), ..spec("abs", Opcode::Abs) },
    OpSpec { types: &["b32"], min_types: 1, operands: "d:T", ..spec("activemask", Opcode::Activemask) },
    OpSpec { mods: "sat rn rz rm rp ftz cc", types: &[concat!(int!(), " ", float!(), " ", half!())], min_types: 1, operands: "d:T s:T s:T", rule: Some(rules::arith), ..spec("add", Opcode::Add) },
    OpSpec { mods: "cc", types: &[int32_64!()], min_types: 1, operands: "d:T s:T s:T", ..spec("addc", Opcode::Addc) },
    OpSpec { types: &[concat!("pred ", bits!())], min_types: 1, operands: "d:T s:T s:T", ..spec("and", Opcode::And) },
    OpSpec { ctx: Ctx::Atomic, mods: "global shared shared::cta shared::cluster add min max inc dec and or xor exch cas relaxed acquire release acq_rel cta cluster gpu sys noftz", types: &["b32 b64 u32 u64 s32 s64 f32 f64 f16 f16x2 bf16 bf16x2"], min_types: 1, required: "@atom", operands: "d:T a s:T|d:T a s:T s:T", rule: Some(rules::atomic), ..spec("atom", Opcode::Atom) },
    OpSpec { ctx: Ctx::Barrier, mods: "sync arrive red and or popc warp", types: &["u32 pred"], required: "sync|arrive|red", operands: "s:u32|s:u32 s:u32|d:T s:u32 n:pred|d:T s:u32 s:u32 n:pred", rule: Some(rules::barrier), ..spec("bar", Opcode::Bar) },
    OpSpec { ctx: Ctx::Barrier, mods: "sync arrive red wait and or popc aligned cluster release relaxed acquire", types: &["u32 pred"], required: "sync|arrive|red|wait", rule: Some(rules::barrier), operands_of: Some(rules::barrier_operands), ..spec("barrier", Opcode::Barrier) },
    OpSpec { types: &["u32 s32 u64 s64"], min_types: 1, operands: "d:T s:T s:u32 s:u32", ..spec("bfe", Opcode::Bfe) },
    OpSpec { types: &["b32 b64"], min_types: 1, operands: "d:T s:T s:T s:u32 s:u32", ..spec("bfi", Opcode::Bfi) },
    OpSpec { mods: "shiftamt", types: &["u32 s32 u64 s64"], min_types: 1, operands: "d:u32 s:T", ..spec("bfind", Opcode::Bfind) },
    OpSpec { mods: "clamp wrap", types: &["b32"], min_types: 1, required: "clamp|wrap", operands: "d:T s:u32 s:u32", ..spec("bmsk", Opcode::Bmsk) },
    OpSpec { mods: "uni", operands: "l", ..spec("bra", Opcode::Bra) },
    OpSpec { types: &["b32 b64"], min_types: 1, operands: "d:T s:T", ..spec("brev", Opcode::Brev) },
    OpSpec { ..spec("brkpt", Opcode::Brkpt) },
    OpSpec { mods: "uni", operands: "call", ..spec("call", Opcode::Call) },
    OpSpec { types: &["b32 b64"], min_types: 1, operands: "d:u32 s:T", ..spec("clz", Opcode::Clz) },
    OpSpec { types: &[bits!()], min_types: 1, operands: "d:T s:T", ..spec("cnot", Opcode::Cnot) },
    OpSpec { types: &[float!()], min_types: 1, operands: "d:T s:T s:T", ..spec("copysign", Opcode::Copysign) },
    OpSpec { mods: "approx ftz", types: &["f32"], min_types: 1, required: "approx", operands: "d:T s:T", ..spec("cos", Opcode::Cos) },
    OpSpec { ctx: Ctx::Copy, mods: "async ca cg shared shared::cta global commit_group wait_group wait_all L2::64B L2::128B L2::256B mbarrier arrive noinc L2::cache_hint bulk shared::cluster mbarrier::complete_tx::bytes bulk_group read tensor 1d 2d 3d 4d 5d tile", types: &["b64"], required: "async", rule: Some(rules::cp_async), operands_of: Some(rules::cp_async_operands), ..spec("cp", Opcode::CpAsync) },
    OpSpec { mods: "fractional range global L2::evict_last L2::evict_normal L2::evict_first L2::evict_unchanged", types: &["b64"], min_types: 1, required: "fractional|range", rule: Some(rules::createpolicy), operands_of: Some(rules::createpolicy_operands), ..spec("createpolicy", Opcode::Createpolicy) },
    OpSpec { mods: "rn rz rm rp rni rzi rmi rpi rna ftz sat satfinite relu pack", types: &[cvt!(), cvt!(), "b32"], min_types: 2, operands: "d:T s:U|d:T s:U s:U|d:V s:U s:U s:V", rule: Some(rules::cvt), ..spec("cvt", Opcode::Cvt) },
    OpSpec { mods: "to global shared shared::cta shared::cluster local const param", types: &["u32 u64"], min_types: 1, required: "@space", operands: "d:T m:T", rule: Some(rules::cvta), ..spec("cvta", Opcode::Cvta) },
    OpSpec { mods: "approx full rn rz rm rp ftz", types: &[concat!(int!(), " ", float!())], min_types: 1, operands: "d:T s:T s:T", rule: Some(rules::div), ..spec("div", Opcode::Div) },
    OpSpec { ctx: Ctx::Mul, mods: "lo hi", types: &["u32 s32", "u32 s32"], min_types: 2, required: "@mul", operands: "d:b32 s:b32 s:b32 s:b32", ..spec("dp2a", Opcode::Dp2a) },
    OpSpec { types: &["u32 s32", "u32 s32"], min_types: 2, operands: "d:b32 s:b32 s:b32 s:b32", ..spec("dp4a", Opcode::Dp4a) },
    OpSpec { mods: "sync", required: "sync", operands: "D:b32 s:b32", ..spec("elect", Opcode::Elect) },
    OpSpec { mods: "approx ftz", types: &["f32 f16 f16x2 bf16 bf16x2"], min_types: 1, required: "approx", operands: "d:T s:T", rule: Some(rules::ftz_f32_only), ..spec("ex2", Opcode::Ex2) },
    OpSpec { ..spec("exit", Opcode::Exit) },
    OpSpec { ctx: Ctx::Copy, mods: "sc acq_rel release cta cluster gpu sys proxy async shared shared::cta shared::cluster global mbarrier_init", operands: "", rule: Some(rules::fence), ..spec("fence", Opcode::Fence) },
    OpSpec { mods: "rn rz rm rp ftz sat relu", types: &[concat!(float!(), " ", half!())], min_types: 1, operands: "d:T s:T s:T s:T", rule: Some(rules::fma), ..spec("fma", Opcode::Fma) },
    OpSpec { mods: "global shared shared::cta shared::cluster local const param", required: "@space", operands: "d:pred s:*", rule: Some(rules::isspacep), ..spec("isspacep", Opcode::Isspacep) },
    OpSpec { mods: ld_mods!(), types: &[memory!()], min_types: 1, operands_of: Some(rules::load_operands), rule: Some(rules::load), ..spec("ld", Opcode::Ld) },
    OpSpec { mods: "sync aligned m8n8 x1 x2 x4 trans shared shared::cta", types: &["b16"], min_types: 1, required: "sync aligned m8n8 x1|x2|x4", operands: "d:b32 a", ..spec("ldmatrix", Opcode::Ldmatrix) },
    OpSpec { mods: "global v2 v4", types: &[memory!()], min_types: 1, operands: "d:T a", rule: Some(rules::load_uniform), ..spec("ldu", Opcode::Ldu) },
    OpSpec { mods: "approx ftz", types: &["f32"], min_types: 1, required: "approx", operands: "d:T s:T", ..spec("lg2", Opcode::Lg2) },
    OpSpec { types: &["b32"], min_types: 1, operands: "d:T s:T s:T s:T i:b32", ..spec("lop3", Opcode::Lop3) },
    OpSpec { ctx: Ctx::Mul, mods: "lo hi wide sat cc rn rz rm rp ftz", types: &[concat!(int!(), " ", float!())], min_types: 1, operands: "d:R s:T s:T s:R", rule: Some(rules::mad), ..spec("mad", Opcode::Mad) },
    OpSpec { ctx: Ctx::Mul, mods: "lo hi sat", types: &["u32 s32"], min_types: 1, required: "@mul", operands: "d:T s:T s:T s:T", rule: Some(rules::mad24), ..spec("mad24", Opcode::Mad24) },
    OpSpec { ctx: Ctx::Mul, mods: "lo hi cc", types: &[int32_64!()], min_types: 1, required: "@mul", operands: "d:T s:T s:T s:T", ..spec("madc", Opcode::Madc) },
    OpSpec { mods: "shared::cluster", types: &["u32 u64"], min_types: 1, operands: "d:T m:T s:u32", rule: Some(rules::mapa), ..spec("mapa", Opcode::Mapa) },
    OpSpec { ctx: Ctx::Vote, mods: "sync any all", types: &["b32 b64"], min_types: 1, required: "sync any|all", operands: "D:b32 s:T s:u32", ..spec("match", Opcode::Match) },
    OpSpec { mods: "ftz relu NaN xorsign abs", types: &[concat!(int!(), " ", float!(), " ", half!())], min_types: 1, operands: "d:T s:T s:T", rule: Some(rules::min_max), ..spec("max", Opcode::Max) },
    OpSpec { mods: "init arrive arrive_drop test_wait try_wait pending_count inval noComplete parity expect_tx complete_tx shared shared::cta shared::cluster release acquire relaxed cta cluster", types: &["b64"], min_types: 1, required: "init|arrive|arrive_drop|test_wait|try_wait|pending_count|inval|@tx", rule: Some(rules::mbarrier), operands_of: Some(rules::mbarrier_operands), ..spec("mbarrier", Opcode::Mbarrier) },
    OpSpec { mods: "cta gl sys", required: "@scope", operands: "", ..spec("membar", Opcode::Membar) },
    OpSpec { mods: "ftz relu NaN xorsign abs", types: &[concat!(int!(), " ", float!(), " ", half!())], min_types: 1, operands: "d:T s:T s:T", rule: Some(rules::min_max), ..spec("min", Opcode::Min) },
    OpSpec { mods: "v2 v4", types: &["pred b16 b32 b64 b128 u16 u32 u64 s16 s32 s64 f32 f64"], min_types: 1, operands: "d:T m:T", rule: Some(rules::mov), ..spec("mov", Opcode::Mov) },
    OpSpec { ctx: Ctx::Mul, mods: "lo hi wide sat rn rz rm rp ftz", types: &[concat!(int!(), " ", float!(), " ", half!())], min_types: 1, operands: "d:R s:T s:T", rule: Some(rules::mul), ..spec("mul", Opcode::Mul) },
    OpSpec { ctx: Ctx::Mul, mods: "lo hi", types: &["u32 s32"], min_types: 1, required: "@mul", operands: "d:T s:T s:T", ..spec("mul24", Opcode::Mul24) },
    OpSpec { types: &["u32"], min_types: 1, operands: "s:u32", ..spec("nanosleep", Opcode::Nanosleep) },
    OpSpec { mods: "ftz", types: &[concat!("s16 s32 s64 ", float!(), " ", half!())], min_types: 1, operands: "d:T s:T", rule: Some(rules::sign), ..spec("neg", Opcode::Neg) },
    OpSpec { types: &[concat!("pred ", bits!())], min_types: 1, operands: "d:T s:T", ..spec("not", Opcode::Not) },
    OpSpec { types: &[concat!("pred ", bits!())], min_types: 1, operands: "d:T s:T s:T", ..spec("or", Opcode::Or) },
    OpSpec { mods: "mask", operands: "i:*", ..spec("pmevent", Opcode::Pmevent) },
    OpSpec { types: &["b32 b64"], min_types: 1, operands: "d:u32 s:T", ..spec("popc", Opcode::Popc) },
    OpSpec { mods: "global local L1 L2 L2::evict_last L2::evict_normal", required: "L1|L2|L2::evict_last|L2::evict_normal", operands: "a", rule: Some(rules::prefetch), ..spec("prefetch", Opcode::Prefetch) },
    OpSpec { mods: "L1", required: "L1", operands: "a", ..spec("prefetchu", Opcode::Prefetch) },
    OpSpec { mods: "f4e b4e rc8 ecl ecr rc16", types: &["b32"], min_types: 1, operands: "d:T s:T s:T s:T", rule: Some(rules::prmt), ..spec("prmt", Opcode::Prmt) },
    OpSpec { mods: "approx rn rz rm rp ftz", types: &[float!()], min_types: 1, operands: "d:T s:T", rule: Some(rules::rcp_sqrt), ..spec("rcp", Opcode::Rcp) },
    OpSpec { ctx: Ctx::Atomic, mods: "global shared shared::cta shared::cluster add min max inc dec and or xor relaxed release cta cluster gpu sys noftz", types: &["b32 b64 u32 u64 s32 s64 f32 f64 f16 f16x2 bf16 bf16x2"], min_types: 1, required: "@atom", operands: "a s:T", rule: Some(rules::atomic), ..spec("red", Opcode::Red) },
    OpSpec { ctx: Ctx::Atomic, mods: "sync add min max and or xor", types: &["u32 s32 b32"], min_types: 1, required: "sync @atom", operands: "d:T s:T s:u32", rule: Some(rules::redux), ..spec("redux", Opcode::Redux) },
    OpSpec { types: &[int!()], min_types: 1, operands: "d:T s:T s:T", ..spec("rem", Opcode::Rem) },
    OpSpec { mods: "uni", ..spec("ret", Opcode::Ret) },
    OpSpec { mods: "approx ftz", types: &[float!()], min_types: 1, required: "approx", operands: "d:T s:T", ..spec("rsqrt", Opcode::Rsqrt) },
    OpSpec { types: &[int!()], min_types: 1, operands: "d:T s:T s:T s:T", ..spec("sad", Opcode::Sad) },
    OpSpec { types: &[concat!(bits!(), " ", int!(), " ", float!())], min_types: 1, operands: "d:T s:T s:T n:pred", ..spec("selp", Opcode::Selp) },
    OpSpec { ctx: Ctx::Compare, mods: "ftz eq ne lt le gt ge lo ls hi hs equ neu ltu leu gtu geu num nan and or xor", types: &["u32 s32 f32 f16 f16x2 bf16 bf16x2", concat!(bits!(), " ", int!(), " ", float!(), " ", half!())], min_types: 2, required: "@cmp", operands: "d:T s:U s:U|d:T s:U s:U n:pred", rule: Some(rules::set), ..spec("set", Opcode::Set) },
    OpSpec { mods: "inc dec sync aligned", types: &["u32"], min_types: 1, required: "inc|dec sync aligned", operands: "i", rule: Some(rules::setmaxnreg), ..spec("setmaxnreg", Opcode::Setmaxnreg) },
    OpSpec { ctx: Ctx::Compare, mods: "ftz eq ne lt le gt ge lo ls hi hs equ neu ltu leu gtu geu num nan and or xor", types: &[concat!(bits!(), " ", int!(), " ", float!(), " ", half!())], min_types: 1, required: "@cmp", operands: "D:pred s:T s:T|D:pred s:T s:T n:pred", rule: Some(rules::setp), ..spec("setp", Opcode::Setp) },
    OpSpec { mods: "l r clamp wrap", types: &["b32"], min_types: 1, required: "l|r clamp|wrap", operands: "d:T s:T s:T s:u32", ..spec("shf", Opcode::Shf) },
    OpSpec { mods: "sync up down bfly idx", types: &["b32"], min_types: 1, required: "sync @shfl", operands: "D:T s:T s:u32 s:u32 s:u32", ..spec("shfl", Opcode::Shfl) },
    OpSpec { types: &[bits!()], min_types: 1, operands: "d:T s:T s:u32", ..spec("shl", Opcode::Shl) },
    OpSpec { types: &[concat!(bits!(), " ", int!())], min_types: 1, operands: "d:T s:T s:u32", ..spec("shr", Opcode::Shr) },
    OpSpec { mods: "approx ftz", types: &["f32"], min_types: 1, required: "approx", operands: "d:T s:T", ..spec("sin", Opcode::Sin) },
    OpSpec { ctx: Ctx::Compare, mods: "ftz", types: &[concat!(bits!(), " ", int!(), " ", float!()), "s32 f32"], min_types: 2, operands: "d:T s:T s:T s:U", rule: Some(rules::slct), ..spec("slct", Opcode::Slct) },
    OpSpec { mods: "approx rn rz rm rp ftz", types: &[float!()], min_types: 1, operands: "d:T s:T", rule: Some(rules::sqrt), ..spec("sqrt", Opcode::Sqrt) },
    OpSpec { mods: "global shared shared::cta shared::cluster local param wb cg cs wt v2 v4 weak relaxed release volatile cta cluster gpu sys L1::evict_normal L1::evict_unchanged L1::evict_first L1::evict_last L1::no_allocate L2::evict_normal L2::evict_first L2::evict_last L2::cache_hint", types: &[memory!()], min_types: 1, operands_of: Some(rules::store_operands), rule: Some(rules::store), ..spec("st", Opcode::St) },
    OpSpec { mods: "sync aligned m8n8 x1 x2 x4 trans shared shared::cta", types: &["b16"], min_types: 1, required: "sync aligned m8n8 x1|x2|x4", operands: "a s:b32", ..spec("stmatrix", Opcode::Stmatrix) },
    OpSpec { mods: "sat rn rz rm rp ftz cc", types: &[concat!(int!(), " ", float!(), " ", half!())], min_types: 1, operands: "d:T s:T s:T", rule: Some(rules::arith), ..spec("sub", Opcode::Sub) },
    OpSpec { mods: "cc", types: &[int32_64!()], min_types: 1, operands: "d:T s:T s:T", ..spec("subc", Opcode::Subc) },
    OpSpec { mods: "clamp wrap", types: &["u32 s32"], min_types: 1, required: "clamp|wrap", operands: "d:T s:T s:u32", ..spec("szext", Opcode::Szext) },
    OpSpec { mods: "approx", types: &["f32 f16 f16x2 bf16 bf16x2"], min_types: 1, required: "approx", operands: "d:T s:T", ..spec("tanh", Opcode::Tanh) },
    OpSpec { mods: "finite infinite number notanumber normal subnormal", types: &[float!()], min_types: 1, required: "finite|infinite|number|notanumber|normal|subnormal", operands: "d:pred s:T", ..spec("testp", Opcode::Testp) },
    OpSpec { ..spec("trap", Opcode::Trap) },
    OpSpec { ctx: Ctx::Vote, mods: "sync all any uni ballot", types: &["pred b32"], min_types: 1, required: "sync @vote", operands: "d:T n:pred s:u32", rule: Some(rules::vote), ..spec("vote", Opcode::Vote) },
    OpSpec { ctx: Ctx::Video, mods: "sat clamp wrap add min max", types: &["u32 s32", "u32 s32", "u32"], min_types: 3, required: "clamp|wrap", operands: "d:T s:U s:V|d:T s:U s:V s:T", ..spec("vshl", Opcode::Vshl) },
    OpSpec { ctx: Ctx::Video, mods: "sat clamp wrap add min max", types: &["u32 s32", "u32 s32", "u32"], min_types: 3, required: "clamp|wrap", operands: "d:T s:U s:V|d:T s:U s:V s:T", ..spec("vshr", Opcode::Vshr) },
    OpSpec { types: &[concat!("pred ", bits!())], min_types: 1, operands: "d:T s:T s:T", ..spec("xor", Opcode::Xor) },
];

/// The table entry of `name`.
pub fn lookup(name: &str) -> Option<&'static OpSpec> {
    TABLE.binary_search_by(|s| s.name.cmp(name)).ok().map(|i| &TABLE[i])
}

/// True if any opcode accepts the modifier `spelling`.
pub fn any_opcode_allows(spelling: &str) -> bool {
    TABLE.iter().any(|s| s.mods.split_whitespace().any(|m| m == spelling))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_sorted_and_unique() {
        for pair in TABLE.windows(2) {
            assert!(pair[0].name < pair[1].name, "{} before {}", pair[0].name, pair[1].name);
        }
    }

    #[test]
    fn operand_shapes_are_well_formed() {
        for spec in TABLE {
            for shape in spec.operands.split('|').filter(|s| !s.is_empty() && *s != "call") {
                for item in shape.split_whitespace() {
                    let (kind, ty) = item.split_once(':').unwrap_or((item, "*"));
                    assert!("dDsmnali".contains(kind), "{}: bad kind in {item}", spec.name);
                    let ok =
                        matches!(ty, "T" | "U" | "V" | "R" | "*") || crate::ast::ScalarType::from_name(ty).is_some();
                    assert!(ok, "{}: bad type in {item}", spec.name);
                }
            }
        }
    }
}
