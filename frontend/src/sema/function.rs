//! One function: parameters and their layout, labels, declarations (with `%r<N>` expansion and
//! nested scopes flattened), instructions, and performance directives.

use super::body::Body;
use super::layout;
use super::symbols::ModuleSymbols;
use crate::ast::{Function, Param, PerfDirective, StateSpace, Statement, VarDecl};
use crate::checked::*;
use crate::diag::Diagnostic;

/// Most registers one function may declare (bounds memory on hostile input).
const MAX_REGS: usize = 1 << 20;

/// Checks a function with a body.
pub fn check(module: &ModuleSymbols, globals: &[VarInfo], f: &Function) -> Result<CheckedFunction, Vec<Diagnostic>> {
    let mut body = Body::new(module, globals);
    let params = parameters(&mut body, f, &f.params);
    let returns = parameters(&mut body, f, &f.returns);
    let stmts = f.body.as_deref().unwrap_or_default();
    body.scopes.push();
    collect_labels(&mut body, stmts);
    let mut out = Vec::new();
    walk(&mut body, stmts, &mut out);
    check_cluster_directives(&mut body, f);
    if !body.diags.is_empty() {
        return Err(body.diags);
    }
    let mut checked = CheckedFunction {
        name: f.name.name.clone(),
        is_entry: f.is_entry,
        linkage: f.linkage,
        params,
        returns,
        regs: body.regs,
        vars: body.vars,
        labels: body.label_names,
        max_ntid: None,
        req_ntid: None,
        max_nreg: None,
        min_ncta_per_sm: None,
        noreturn: false,
        cluster: Default::default(),
        body: out,
        span: f.span,
    };
    apply_directives(&mut checked, &f.directives);
    Ok(checked)
}

fn parameters(body: &mut Body<'_>, f: &Function, params: &[Param]) -> Vec<ParamInfo> {
    let base = if f.is_entry {
        layout::kernel_param_base(body.module.target_sm)
    } else {
        0
    };
    let layout = layout::layout(params, base);
    params
        .iter()
        .zip(layout)
        .map(|(p, (offset, size, align))| {
            let info = layout::param_var(p, size, align);
            let (var, reg) = if p.space == StateSpace::Reg {
                if f.is_entry {
                    body.diags
                        .push(Diagnostic::error("kernel parameters must be `.param`", p.span));
                }
                let var = VarId(body.vars.len() as u32);
                body.vars.push(info);
                (var, Some(body.add_reg(&p.name, p.ty, p.vector.unwrap_or(1))))
            } else {
                let var = body.add_var(&p.name, info);
                if f.is_entry {
                    body.kernel_params.push(var);
                }
                (var, None)
            };
            ParamInfo {
                name: p.name.name.clone(),
                space: p.space,
                var,
                reg,
                ty: p.ty,
                size,
                align,
                offset,
                span: p.span,
            }
        })
        .collect()
}

fn collect_labels(body: &mut Body<'_>, stmts: &[Statement]) {
    for st in stmts {
        match st {
            Statement::Label(l) => {
                if body.labels.contains_key(&l.name) {
                    body.diags.push(Diagnostic::error(
                        format!("label `{}` is defined twice", l.name),
                        l.span,
                    ));
                    continue;
                }
                body.labels
                    .insert(l.name.clone(), LabelId(body.label_names.len() as u32));
                body.label_names.push(l.name.clone());
            }
            Statement::CallPrototype { name, .. } => {
                body.prototypes.insert(name.name.clone());
            }
            Statement::Block(inner, _) => collect_labels(body, inner),
            _ => {}
        }
    }
}

fn walk(body: &mut Body<'_>, stmts: &[Statement], out: &mut Vec<CheckedStmt>) {
    for st in stmts {
        match st {
            Statement::Decl(d) => declare(body, d),
            Statement::Label(l) => {
                if let Some(&id) = body.labels.get(&l.name) {
                    out.push(CheckedStmt::Label(id));
                }
            }
            Statement::Inst(i) => match super::instruction::check(body, i) {
                Ok(inst) => out.push(CheckedStmt::Inst(inst)),
                Err(d) => body.diags.push(d),
            },
            Statement::Block(inner, _) => {
                body.scopes.push();
                walk(body, inner, out);
                body.scopes.pop();
            }
            Statement::Loc { file, line, col, .. } => out.push(CheckedStmt::Loc {
                file: *file,
                line: *line,
                col: *col,
            }),
            Statement::Opaque { .. } | Statement::CallPrototype { .. } => {}
        }
    }
}

fn declare(body: &mut Body<'_>, d: &VarDecl) {
    match d.space {
        StateSpace::Reg => declare_regs(body, d),
        StateSpace::Sreg => body
            .diags
            .push(Diagnostic::error("special registers cannot be declared", d.span)),
        _ => {
            for name in &d.names {
                let module = body.module;
                let resolve = |n: &str| super::resolve_init(module, n);
                match layout::var_info(d, name, &resolve) {
                    Ok(info) => {
                        body.add_var(&name.name, info);
                    }
                    Err(diag) => body.diags.push(diag),
                }
            }
        }
    }
}

fn declare_regs(body: &mut Body<'_>, d: &VarDecl) {
    let vector = d.vector.unwrap_or(1);
    for name in &d.names {
        if !name.array.is_empty() || name.init.is_some() {
            let message = format!(
                "register `{}` cannot be an array or have an initialiser",
                name.name.name
            );
            body.diags.push(Diagnostic::error(message, name.name.span));
            continue;
        }
        let count = name.range.unwrap_or(0) as usize;
        if body.regs.len() + count > MAX_REGS {
            body.diags
                .push(Diagnostic::error("too many registers in one function", name.name.span));
            return;
        }
        match name.range {
            None => {
                body.add_reg(&name.name, d.ty, vector);
            }
            Some(n) => {
                for i in 0..n {
                    let mut expanded = name.name.clone();
                    expanded.name = format!("{}{i}", name.name.name);
                    body.add_reg(&expanded, d.ty, vector);
                }
            }
        }
    }
}

fn triple(v: &[u32]) -> [u32; 3] {
    [
        v.first().copied().unwrap_or(1),
        v.get(1).copied().unwrap_or(1),
        v.get(2).copied().unwrap_or(1),
    ]
}

/// The cluster directives need sm_90 and a kernel, and a cluster holds at most 16 CTAs
/// (the PTX ISA's portable limit is 8; Hopper allows 16 with a non-portable size).
fn check_cluster_directives(body: &mut Body, f: &Function) {
    let target = body.module.target_sm;
    for d in &f.directives {
        let name = match d {
            PerfDirective::ReqNctaPerCluster(_) => ".reqnctapercluster",
            PerfDirective::MaxClusterRank(_) => ".maxclusterrank",
            PerfDirective::ExplicitCluster => ".explicitcluster",
            _ => continue,
        };
        let problem = if target < 90 {
            Some(format!("`{name}` needs sm_90 (target is sm_{target})"))
        } else if !f.is_entry {
            Some(format!("`{name}` applies to kernels (`.entry`) only"))
        } else {
            match d {
                PerfDirective::ReqNctaPerCluster(v) if v.is_empty() || v.len() > 3 || v.contains(&0) => {
                    Some(format!("`{name}` takes one to three non-zero dimensions"))
                }
                PerfDirective::ReqNctaPerCluster(v)
                    if v.iter().fold(1u64, |n, &d| n.saturating_mul(u64::from(d))) > 16 =>
                {
                    Some(format!("`{name}` asks for more than 16 CTAs per cluster"))
                }
                PerfDirective::MaxClusterRank(0) => Some(format!("`{name}` must be at least 1")),
                _ => None,
            }
        };
        if let Some(message) = problem {
            body.diags.push(Diagnostic::error(message, f.span));
        }
    }
}

fn apply_directives(f: &mut CheckedFunction, directives: &[PerfDirective]) {
    for d in directives {
        match d {
            PerfDirective::MaxNtid(v) => f.max_ntid = Some(triple(v)),
            PerfDirective::ReqNtid(v) => f.req_ntid = Some(triple(v)),
            PerfDirective::MaxNreg(n) => f.max_nreg = Some(*n),
            PerfDirective::MinNctaPerSm(n) => f.min_ncta_per_sm = Some(*n),
            PerfDirective::NoReturn => f.noreturn = true,
            PerfDirective::ReqNctaPerCluster(v) => f.cluster.req_ncta = Some(triple(v)),
            PerfDirective::MaxClusterRank(n) => f.cluster.max_rank = Some(*n),
            PerfDirective::ExplicitCluster => f.cluster.explicit = true,
            PerfDirective::MaxNctaPerSm(_) | PerfDirective::Pragma(_) => {}
        }
    }
}
