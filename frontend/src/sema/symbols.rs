//! Name resolution: the module's variables and functions, and a function's nested scopes
//! (every `{ }` opens one; an inner declaration shadows an outer one).

use crate::ast::{Span, StateSpace};
use crate::checked::{RegId, VarId};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A fast, non-cryptographic hasher for names (the FxHash mixing step): symbol tables are
/// looked up for every operand, and SipHash showed up in profiles.
#[derive(Default, Clone, Copy)]
pub struct NameHasher(u64);

impl Hasher for NameHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
            self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(K);
        }
    }
}

/// A map keyed by names.
pub type NameMap<V> = HashMap<String, V, BuildHasherDefault<NameHasher>>;

/// What a name in a function body refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symbol {
    /// A register (incl. `.reg` parameters).
    Reg(RegId),
    /// A variable in memory (incl. `.param` parameters and module globals).
    Var(VarId),
}

/// The signature of a function, for checking calls.
#[derive(Clone, Debug)]
pub struct Signature {
    /// `.entry`?
    pub is_entry: bool,
    /// Parameter spaces and sizes.
    pub params: Vec<(StateSpace, u32)>,
    /// Return value spaces and sizes.
    pub returns: Vec<(StateSpace, u32)>,
    /// Has a body.
    pub defined: bool,
    /// Where it was first declared.
    pub span: Span,
}

/// Module-level names.
#[derive(Default)]
pub struct ModuleSymbols {
    /// Global variables by name (ids are positions in `CheckedModule::globals`).
    pub globals: NameMap<VarId>,
    /// Functions by name.
    pub functions: NameMap<Signature>,
    /// The `sm_NN` of the module's `.target` (what its instructions may use).
    pub target_sm: u32,
    /// The module's `.version` (which features its instructions may use).
    pub version: super::versions::Version,
    /// The `.target` is architecture-specific (`sm_90a`): `wgmma` and its kin are allowed.
    pub arch_specific: bool,
}

/// The stack of scopes of one function body.
#[derive(Default)]
pub struct Scopes {
    stack: Vec<NameMap<Symbol>>,
}

impl Scopes {
    /// Opens a scope.
    pub fn push(&mut self) {
        self.stack.push(NameMap::default());
    }

    /// Closes the innermost scope.
    pub fn pop(&mut self) {
        self.stack.pop();
    }

    /// Declares `name` in the innermost scope; returns the symbol it replaced there, if any.
    pub fn declare(&mut self, name: &str, symbol: Symbol) -> Option<Symbol> {
        self.stack
            .last_mut()
            .and_then(|scope| scope.insert(name.to_string(), symbol))
    }

    /// The innermost declaration of `name`.
    pub fn lookup(&self, name: &str) -> Option<Symbol> {
        self.stack.iter().rev().find_map(|scope| scope.get(name).copied())
    }
}
