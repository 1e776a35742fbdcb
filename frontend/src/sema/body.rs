//! The state of one function body while it is checked: its registers, variables, labels and
//! scopes, and how a name resolves.

use super::special;
use super::symbols::{ModuleSymbols, NameMap, Scopes, Symbol};
use crate::ast::{Ident, ScalarType};
use crate::checked::*;
use crate::diag::Diagnostic;
use std::collections::HashSet;

/// One function body being checked.
pub struct Body<'m> {
    /// Module-level names.
    pub module: &'m ModuleSymbols,
    /// Registers so far.
    pub regs: Vec<RegInfo>,
    /// Variables so far (module globals first).
    pub vars: Vec<VarInfo>,
    /// Labels of the whole function.
    pub labels: NameMap<LabelId>,
    /// Label names by id.
    pub label_names: Vec<String>,
    /// `.callprototype` labels.
    pub prototypes: HashSet<String>,
    /// Kernel parameters (read-only).
    pub kernel_params: Vec<VarId>,
    /// Nested scopes.
    pub scopes: Scopes,
    /// Errors so far.
    pub diags: Vec<Diagnostic>,
}

/// What a name means at a use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Resolved {
    /// A register.
    Reg(RegId),
    /// A variable.
    Var(VarId),
    /// A label.
    Label(LabelId),
    /// A function.
    Func,
    /// A call prototype.
    Prototype,
    /// A special register and its type.
    Special(SpecialReg, ScalarType),
}

impl<'m> Body<'m> {
    /// An empty body over `module`'s names with the module's variables.
    pub fn new(module: &'m ModuleSymbols, globals: &[VarInfo]) -> Body<'m> {
        let mut scopes = Scopes::default();
        scopes.push();
        for (i, g) in globals.iter().enumerate() {
            scopes.declare(&g.name, Symbol::Var(VarId(i as u32)));
        }
        scopes.push();
        Body {
            module,
            regs: Vec::new(),
            vars: globals.to_vec(),
            labels: NameMap::default(),
            label_names: Vec::new(),
            prototypes: HashSet::new(),
            kernel_params: Vec::new(),
            scopes,
            diags: Vec::new(),
        }
    }

    /// Declares a register in the innermost scope.
    pub fn add_reg(&mut self, name: &Ident, ty: ScalarType, vector: u32) -> RegId {
        let id = RegId(self.regs.len() as u32);
        self.regs.push(RegInfo {
            name: name.name.clone(),
            ty,
            vector,
        });
        self.declare(name, Symbol::Reg(id));
        id
    }

    /// Declares a variable in the innermost scope.
    pub fn add_var(&mut self, name: &Ident, info: VarInfo) -> VarId {
        let id = VarId(self.vars.len() as u32);
        self.vars.push(info);
        self.declare(name, Symbol::Var(id));
        id
    }

    fn declare(&mut self, name: &Ident, symbol: Symbol) {
        if self.scopes.declare(&name.name, symbol).is_some() {
            let message = format!("`{}` is declared twice in the same scope", name.name);
            self.diags.push(Diagnostic::error(message, name.span));
        }
    }

    /// What `name` refers to.
    pub fn resolve(&self, name: &Ident) -> Result<Resolved, Diagnostic> {
        if let Some(symbol) = self.scopes.lookup(&name.name) {
            return Ok(match symbol {
                Symbol::Reg(r) => Resolved::Reg(r),
                Symbol::Var(v) => Resolved::Var(v),
            });
        }
        if let Some((reg, ty)) = special::scalar(&name.name) {
            return Ok(Resolved::Special(reg, ty));
        }
        if let Some(&label) = self.labels.get(&name.name) {
            return Ok(Resolved::Label(label));
        }
        if self.module.functions.contains_key(&name.name) {
            return Ok(Resolved::Func);
        }
        if self.prototypes.contains(&name.name) {
            return Ok(Resolved::Prototype);
        }
        if special::is_vector(&name.name) {
            return Err(Diagnostic::error(
                format!("`{}` needs a component (`.x`, `.y` or `.z`)", name.name),
                name.span,
            ));
        }
        Err(Diagnostic::error(
            format!("undeclared identifier `{}`", name.name),
            name.span,
        ))
    }
}
