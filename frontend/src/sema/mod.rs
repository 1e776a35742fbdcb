//! Semantic checks: the target, module-level names (variables and functions), then each
//! function body against the per-opcode instruction table. Produces the [`CheckedModule`].

mod body;
mod call;
mod consteval;
mod features;
mod function;
mod instruction;
mod layout;
mod modifiers;
mod operands;
mod rules;
mod special;
mod symbols;
pub mod table;
mod tensor;
mod versions;
mod wgmma;

pub use versions::NEWEST as NEWEST_PTX_VERSION;

use crate::ast::{self, Item, Linkage, StateSpace};
use crate::checked::{CheckedModule, SourceFile, VarId, VarInfo};
use crate::diag::Diagnostic;
use symbols::{ModuleSymbols, Signature};

/// The newest GPU ptxc compiles for (sm_75, sm_80, sm_86, sm_89 and sm_90).
pub const TARGET_SM: u32 = 90;

/// Checks a parsed module.
pub fn check(m: &ast::Module) -> Result<CheckedModule, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let (target_sm, symbols, globals) = declarations(m, &mut diags);
    let mut functions = Vec::new();
    for item in &m.items {
        if let Item::Function(f) = item
            && f.body.is_some()
        {
            check_function(&symbols, &globals, f, &mut functions, &mut diags);
        }
    }
    finish(m, target_sm, globals, functions, diags)
}

/// Checks a parsed module that is not needed afterwards, freeing each function body once it
/// is checked, so that the syntax tree and the checked tree are not both whole in memory.
/// The bodies are checked in parallel when there are several (each against the module's
/// declarations only); the results keep source order.
pub fn check_owned(mut m: ast::Module) -> Result<CheckedModule, Vec<Diagnostic>> {
    use rayon::prelude::*;
    let mut diags = Vec::new();
    let (target_sm, symbols, globals) = declarations(&m, &mut diags);
    let mut bodies: Vec<&mut ast::Function> = m
        .items
        .iter_mut()
        .filter_map(|item| match item {
            Item::Function(f) if f.body.is_some() => Some(f),
            _ => None,
        })
        .collect();
    let check_and_free = |f: &mut &mut ast::Function| {
        let checked = function::check(&symbols, &globals, f);
        f.body = Some(Vec::new());
        checked
    };
    // One body is checked on this thread, without starting rayon's pool.
    let results: Vec<Result<crate::checked::CheckedFunction, Vec<Diagnostic>>> = if bodies.len() > 1 {
        bodies.par_iter_mut().map(check_and_free).collect()
    } else {
        bodies.iter_mut().map(check_and_free).collect()
    };
    let mut functions = Vec::new();
    for result in results {
        match result {
            Ok(checked) => functions.push(checked),
            Err(errors) => diags.extend(errors),
        }
    }
    finish(&m, target_sm, globals, functions, diags)
}

/// The module-level facts every body is checked against: the target, the functions'
/// signatures and the module variables.
fn declarations(m: &ast::Module, diags: &mut Vec<Diagnostic>) -> (u32, ModuleSymbols, Vec<VarInfo>) {
    if let Some(message) = versions::newest(m.version) {
        diags.push(Diagnostic::error(message, ast::Span::default()));
    }
    let target_sm = target(m, diags);
    if m.address_size != 64 {
        diags.push(Diagnostic::error(
            "only `.address_size 64` is supported",
            ast::Span::default(),
        ));
    }
    let mut symbols = ModuleSymbols {
        target_sm,
        version: m.version,
        arch_specific: arch_specific(m),
        ..ModuleSymbols::default()
    };
    // Functions first: initialisers may take their addresses.
    declare_functions(m, &mut symbols, diags);
    let globals = module_variables(m, &mut symbols, diags);
    (target_sm, symbols, globals)
}

/// Checks the body of `f`, adding it to `functions` or its errors to `diags`.
fn check_function(
    symbols: &ModuleSymbols,
    globals: &[VarInfo],
    f: &ast::Function,
    functions: &mut Vec<crate::checked::CheckedFunction>,
    diags: &mut Vec<Diagnostic>,
) {
    match function::check(symbols, globals, f) {
        Ok(checked) => functions.push(checked),
        Err(errors) => diags.extend(errors),
    }
}

/// The checked module, or every diagnostic in source order.
fn finish(
    m: &ast::Module,
    target_sm: u32,
    globals: Vec<VarInfo>,
    functions: Vec<crate::checked::CheckedFunction>,
    mut diags: Vec<Diagnostic>,
) -> Result<CheckedModule, Vec<Diagnostic>> {
    if !diags.is_empty() {
        diags.sort_by_key(|d| d.span.start);
        return Err(diags);
    }
    let files = m
        .items
        .iter()
        .filter_map(|item| match item {
            Item::File { index, name, span } => Some(SourceFile {
                index: *index,
                name: name.clone(),
                span: *span,
            }),
            _ => None,
        })
        .collect();
    Ok(CheckedModule::new(
        m.version,
        target_sm,
        arch_specific(m),
        globals,
        functions,
        files,
    ))
}

/// The `sm_NN` of `.target`; an error when it is missing, above sm_90, or architecture-specific
/// other than `sm_90a`.
fn target(m: &ast::Module, diags: &mut Vec<Diagnostic>) -> u32 {
    let mut sm = None;
    for t in &m.target {
        let name = t.name.as_str();
        if let Some(n) = name.strip_prefix("sm_") {
            let digits: String = n.chars().take_while(char::is_ascii_digit).collect();
            let value: u32 = digits.parse().unwrap_or(u32::MAX);
            let suffix = &n[digits.len()..];
            let supported = value <= TARGET_SM && (suffix.is_empty() || (value == 90 && suffix == "a"));
            if !supported {
                diags.push(Diagnostic::error(
                    format!("`.target {name}` is not supported: ptxc compiles for sm_90a, sm_90 and older targets"),
                    t.span,
                ));
            }
            if let Some(message) = versions::arch_specific_target(name, m.version) {
                diags.push(Diagnostic::error(message, t.span));
            }
            if let Some(message) = versions::target(value, m.version) {
                diags.push(Diagnostic::error(message, t.span));
            }
            sm = Some(value.min(TARGET_SM));
        } else if !matches!(
            name,
            "debug" | "texmode_unified" | "texmode_independent" | "map_f64_to_f32"
        ) {
            diags.push(Diagnostic::error(format!("unknown target `{name}`"), t.span));
        }
    }
    sm.unwrap_or_else(|| {
        let span = m.target.first().map(|t| t.span).unwrap_or_default();
        diags.push(Diagnostic::error("`.target` names no `sm_NN`", span));
        TARGET_SM
    })
}

/// Whether the module's `.target` is architecture-specific (`sm_90a`).
fn arch_specific(m: &ast::Module) -> bool {
    m.target
        .iter()
        .any(|t| t.name.starts_with("sm_") && t.name.ends_with('a'))
}

fn module_variables(m: &ast::Module, symbols: &mut ModuleSymbols, diags: &mut Vec<Diagnostic>) -> Vec<VarInfo> {
    let decls: Vec<&ast::VarDecl> = m
        .items
        .iter()
        .filter_map(|i| if let Item::Variable(d) = i { Some(d) } else { None })
        .collect();
    for d in &decls {
        if matches!(d.space, StateSpace::Reg | StateSpace::Sreg | StateSpace::Param) {
            let message = format!("`.{}` variables cannot be declared at module scope", d.space.name());
            diags.push(Diagnostic::error(message, d.span));
            continue;
        }
        for name in &d.names {
            let id = VarId(symbols.globals.len() as u32);
            if symbols.globals.insert(name.name.name.clone(), id).is_some() {
                diags.push(Diagnostic::error(
                    format!("`{}` is declared twice", name.name.name),
                    name.name.span,
                ));
            }
        }
    }
    let mut globals = Vec::new();
    let resolve = |n: &str| resolve_init(symbols, n);
    for d in decls
        .iter()
        .filter(|d| !matches!(d.space, StateSpace::Reg | StateSpace::Sreg | StateSpace::Param))
    {
        for name in &d.names {
            match layout::var_info(d, name, &resolve) {
                Ok(info) => globals.push(info),
                Err(diag) => {
                    diags.push(diag);
                    globals.push(placeholder(d, name));
                }
            }
        }
    }
    globals
}

fn placeholder(d: &ast::VarDecl, name: &ast::VarName) -> VarInfo {
    VarInfo {
        name: name.name.name.clone(),
        space: d.space,
        ty: d.ty,
        size: 0,
        align: 1,
        init: None,
        init_relocs: Vec::new(),
        is_extern: d.linkage == Linkage::Extern,
        span: name.name.span,
    }
}

fn declare_functions(m: &ast::Module, symbols: &mut ModuleSymbols, diags: &mut Vec<Diagnostic>) {
    for item in &m.items {
        let Item::Function(f) = item else { continue };
        let sizes = |ps: &[ast::Param]| ps.iter().map(|p| (p.space, layout::param_size(p) as u32)).collect();
        let signature = Signature {
            is_entry: f.is_entry,
            params: sizes(&f.params),
            returns: sizes(&f.returns),
            defined: f.body.is_some(),
            span: f.name.span,
        };
        if symbols.globals.contains_key(&f.name.name) {
            diags.push(Diagnostic::error(
                format!("`{}` is already a variable", f.name.name),
                f.name.span,
            ));
        }
        match symbols.functions.get_mut(&f.name.name) {
            Some(previous) if previous.defined && signature.defined => {
                let message = format!("function `{}` is defined twice", f.name.name);
                diags.push(Diagnostic::error(message, f.name.span).with_label(previous.span, "first defined here"));
            }
            Some(previous)
                if previous.params.len() != signature.params.len()
                    || previous.returns.len() != signature.returns.len() =>
            {
                let message = format!("`{}` does not match its earlier declaration", f.name.name);
                diags.push(Diagnostic::error(message, f.name.span).with_label(previous.span, "declared here"));
            }
            Some(previous) => previous.defined |= signature.defined,
            None => {
                symbols.functions.insert(f.name.name.clone(), signature);
            }
        }
    }
}

/// What a name in a module-scope initialiser is: a global variable or a function.
pub fn resolve_init(symbols: &ModuleSymbols, name: &str) -> Option<layout::InitTarget> {
    match symbols.globals.get(name) {
        Some(&v) => Some(layout::InitTarget::Var(v)),
        None => symbols.functions.get(name).map(|_| layout::InitTarget::Func),
    }
}
