//! Name resolution: the module's variables and functions, and a function's nested scopes
//! (every `{ }` opens one; an inner declaration shadows an outer one).

use crate::ast::{Span, StateSpace};
use crate::checked::{RegId, VarId};
use std::collections::HashMap;

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
    pub globals: HashMap<String, VarId>,
    /// Functions by name.
    pub functions: HashMap<String, Signature>,
}

/// The stack of scopes of one function body.
#[derive(Default)]
pub struct Scopes {
    stack: Vec<HashMap<String, Symbol>>,
}

impl Scopes {
    /// Opens a scope.
    pub fn push(&mut self) {
        self.stack.push(HashMap::new());
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
