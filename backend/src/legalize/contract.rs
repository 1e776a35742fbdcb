//! Contraction, as ptxas does by default (`--fmad=true`): a float `mul` without a rounding
//! modifier whose only use is an `add`/`sub` without one, in the same block and with the
//! same `.ftz`, becomes part of one fused multiply-add (a single rounding):
//! `a*b + c` -> `fma(a, b, c)`, `a*b - c` -> `fma(a, b, -c)`, `c - a*b` -> `fma(-a, b, c)`.
//! A `.sat` on the multiplication prevents it (the add's `.sat` carries over). Instructions
//! with an explicit rounding modifier (`.rn` included) never contract.

use ptxc_mir::ir::{Aux, Block, FloatMode, Function, Inst, InstData, Opcode, Value, ValueDef};
use rustc_hash::FxHashMap as HashMap;

/// Contracts every eligible pair in `func`.
pub fn run(func: &mut Function) {
    let uses = use_counts(func);
    for b in func.layout.clone() {
        for i in func.blocks[b].insts.clone() {
            contract(func, &uses, b, i);
        }
    }
}

fn use_counts(func: &Function) -> HashMap<Value, u32> {
    let mut uses = HashMap::default();
    for &b in &func.layout {
        for &i in &func.blocks[b].insts {
            for v in func.insts[i].all_args() {
                *uses.entry(v).or_insert(0) += 1;
            }
        }
    }
    uses
}

/// The float mode of an instruction that may contract (no rounding modifier), if any.
fn contractible(data: &InstData) -> Option<FloatMode> {
    match data.aux {
        Aux::Float(m) if m.rnd.is_none() => Some(m),
        _ => None,
    }
}

/// `(a, b)` if `v` is a contractible multiplication in `block` used only once, with the
/// add's flush mode and no saturation.
fn product(
    func: &Function,
    uses: &HashMap<Value, u32>,
    block: Block,
    v: Value,
    add: FloatMode,
) -> Option<(Value, Value)> {
    let ValueDef::Result(m, _) = func.values[v].def else {
        return None;
    };
    let d = &func.insts[m];
    let mode = contractible(d).filter(|mm| mm.ftz == add.ftz && !mm.sat)?;
    let same_block = func.blocks[block].insts.contains(&m);
    (d.op == Opcode::Fmul && mode.rnd.is_none() && same_block && uses.get(&v) == Some(&1))
        .then(|| (d.args[0], d.args[1]))
}

/// Rewrites `inst` into an `ffma` if it adds a contractible product.
fn contract(func: &mut Function, uses: &HashMap<Value, u32>, block: Block, inst: Inst) {
    let d = func.insts[inst].clone();
    let Some(mode) = contractible(&d) else { return };
    if !matches!(d.op, Opcode::Fadd | Opcode::Fsub) {
        return;
    }
    let (x, y) = (d.args[0], d.args[1]);
    let negate = |func: &mut Function, v: Value| -> Value {
        let n = func.create_inst(InstData {
            op: Opcode::Fneg,
            ty: d.ty,
            args: [v].into_iter().collect(),
            aux: Aux::Float(FloatMode::default()),
        });
        let pos = func.blocks[block]
            .insts
            .iter()
            .position(|&i| i == inst)
            .expect("in block");
        func.blocks[block].insts.insert(pos, n);
        func.results[n][0]
    };
    let args = if let Some((a, b)) = product(func, uses, block, x, mode) {
        let c = if d.op == Opcode::Fsub { negate(func, y) } else { y };
        [a, b, c]
    } else if let Some((a, b)) = product(func, uses, block, y, mode) {
        let a = if d.op == Opcode::Fsub { negate(func, a) } else { a };
        [a, b, x]
    } else {
        return;
    };
    func.insts[inst] = InstData {
        op: Opcode::Ffma,
        ty: d.ty,
        args: args.into_iter().collect(),
        aux: Aux::Float(mode),
    };
}
