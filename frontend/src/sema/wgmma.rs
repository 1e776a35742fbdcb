//! Checking the warpgroup tensor-core instructions of sm_90a (PTX ISA 8.0, "Asynchronous
//! Warpgroup Level Matrix Multiply-Accumulate"): `wgmma.fence`, `wgmma.commit_group`,
//! `wgmma.wait_group` and `wgmma.mma_async` with f16 or bf16 multiplicands (A from a
//! shared-memory matrix descriptor or from four registers, B from a descriptor) and an f32
//! or f16 accumulator. The other element types (tf32, e4m3, e5m2, s8/u8, b1) and `.sp` are
//! valid PTX that ptxc refuses, naming them.

use super::tensor::Written;
use crate::ast::{Instruction, Operand, ScalarType};
use crate::diag::Diagnostic;
use crate::tensor::{MmaType, TensorOp, WgmmaOp};

/// The widest N of `m64nNk16`, and its step.
const N_MAX: u32 = 256;
const N_STEP: u32 = 8;

fn error<T>(message: impl Into<String>, w: &Written<'_>) -> Result<T, Diagnostic> {
    Err(Diagnostic::error(message, w.span))
}

/// Checks the modifiers of a `wgmma` (`arch_specific`: the module's target is sm_90a).
pub fn check(w: &mut Written<'_>, arch_specific: bool, inst: &Instruction) -> Result<TensorOp, Diagnostic> {
    if w.target < 90 || !arch_specific {
        let target = format!("sm_{}", w.target) + if arch_specific { "a" } else { "" };
        return error(format!("`wgmma` needs sm_90a (target is {target})"), w);
    }
    let op = match w.take_one(&["mma_async", "fence", "commit_group", "wait_group"]) {
        Some("fence") => TensorOp::WgmmaFence,
        Some("commit_group") => TensorOp::WgmmaCommit,
        Some("wait_group") => TensorOp::WgmmaWait,
        Some(_) => TensorOp::Wgmma(mma_async(w, inst)?),
        None => {
            return error(
                "`wgmma` needs `.mma_async`, `.fence`, `.commit_group` or `.wait_group`",
                w,
            );
        }
    };
    w.need("sync", "wgmma")?;
    w.need("aligned", "wgmma")?;
    Ok(op)
}

/// `wgmma.mma_async.sync.aligned.m64nNk16.dtype.atype.btype`.
fn mma_async(w: &mut Written<'_>, inst: &Instruction) -> Result<WgmmaOp, Diagnostic> {
    if w.take("sp") {
        return error("`wgmma.mma_async.sp` is not supported by ptxc", w);
    }
    let (n, k) = shape(w)?;
    let types = w.types();
    let names: Vec<&str> = types.iter().map(|(t, _)| t.name()).collect();
    let [(d, _), (a, _), (b, _)] = types.as_slice() else {
        let other = w.items.iter().find(|m| matches!(m.name.as_str(), "e4m3" | "e5m2"));
        if let Some(m) = other {
            return error(
                format!("`wgmma.mma_async` of `.{}` is not supported by ptxc", m.name),
                w,
            );
        }
        return error("`wgmma.mma_async` needs three types (`.dtype.atype.btype`)", w);
    };
    let halves = matches!(a, MmaType::F16 | MmaType::Bf16) && a == b;
    if !halves {
        return error(
            format!(
                "`wgmma.mma_async` of `.{}` multiplicands is not supported by ptxc (f16 and bf16 are)",
                names[1..].join(".")
            ),
            w,
        );
    }
    let d_ok = *d == MmaType::F32 || (*d == MmaType::F16 && *a == MmaType::F16);
    if !d_ok {
        return error(
            format!(
                "`wgmma.mma_async` has no `.{}` accumulator for `.{}` multiplicands",
                d.name(),
                a.name()
            ),
            w,
        );
    }
    if k != 16 {
        return error(format!("`wgmma.mma_async` of `.{}` has K 16, not {k}", a.name()), w);
    }
    let a_regs = matches!(inst.operands.get(1), Some(Operand::Vector(..)));
    Ok(WgmmaOp {
        n,
        d: *d,
        ab: *a,
        a_regs,
    })
}

/// Takes the shape `m64nNkK`: `(N, K)`.
fn shape(w: &mut Written<'_>) -> Result<(u32, u32), Diagnostic> {
    let parse = |name: &str| -> Option<(u32, u32)> {
        let rest = name.strip_prefix("m64n")?;
        let (n, k) = rest.split_once('k')?;
        Some((n.parse().ok()?, k.parse().ok()?))
    };
    let Some(i) = w.items.iter().position(|m| parse(&m.name).is_some()) else {
        return error("`wgmma.mma_async` needs a shape `.m64nNk16`", w);
    };
    let item = w.items.remove(i);
    let (n, k) = parse(&item.name).expect("a shape");
    if n == 0 || n > N_MAX || n % N_STEP != 0 {
        return Err(Diagnostic::error(
            format!("`wgmma.mma_async.{}`: N is 8 to 256 in steps of 8", item.name),
            item.span,
        ));
    }
    Ok((n, k))
}

/// The operand shape of a `wgmma.mma_async` (kinds as the instruction table's): the
/// accumulator, A's descriptor or four registers, B's descriptor, scale-d, imm-scale-a,
/// imm-scale-b, imm-trans-a (descriptor A only), imm-trans-b.
pub fn operand_shape(op: &WgmmaOp) -> Vec<(char, Option<ScalarType>, Option<u32>)> {
    let imm = ('i', Some(ScalarType::S32), None);
    let mut v = vec![('d', Some(ScalarType::B32), Some(op.accumulator_regs() as u32))];
    if op.a_regs {
        v.push(('s', Some(ScalarType::B32), Some(4)));
    } else {
        v.push(('s', Some(ScalarType::B64), None));
    }
    v.extend([
        ('s', Some(ScalarType::B64), None),
        ('n', Some(ScalarType::Pred), None),
        imm,
        imm,
    ]);
    if !op.a_regs {
        v.push(imm);
    }
    v.push(imm);
    v
}
