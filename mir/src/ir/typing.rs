//! Types of instruction arguments and results, read from the type codes of the opcode table
//! ([`crate::ir::opcode`]).

use super::function::Function;
use super::inst::{Aux, InstData, Opcode};
use super::types::Type;
use smallvec::SmallVec;

/// The integer type twice as wide as `ty` (`ty` itself if there is none).
pub fn wide(ty: Type) -> Type {
    Type::int(ty.bits() * 2).unwrap_or(ty)
}

/// How many elements a vector code `V` stands for.
fn vector_len(data: &InstData) -> usize {
    match (&data.op, &data.aux) {
        (Opcode::Ldmatrix, Aux::Imm(bits)) => (bits & 7) as usize,
        (Opcode::MmaF16, Aux::Imm(bits)) => 2 + 2 * (bits & 1) as usize,
        (Opcode::MmaIntM16n8, _) => 4,
        (Opcode::Mma884, Aux::Imm(bits)) => 4 + 4 * (bits & 1) as usize,
        (Opcode::Wgmma, Aux::Imm(bits)) => super::mma::WgmmaFlags::from_bits(*bits).accumulator_regs(),
        (_, Aux::Mem(m)) => m.vector.max(1) as usize,
        _ => 1,
    }
}

/// The result types of `data`.
pub fn result_types(data: &InstData) -> SmallVec<[Type; 2]> {
    let mut out = SmallVec::new();
    for c in data.op.info().results.chars() {
        match c {
            'V' => out.extend(std::iter::repeat_n(data.ty, vector_len(data))),
            c => out.push(code_type(c, data.ty).expect("result codes are concrete")),
        }
    }
    out
}

fn code_type(code: char, ty: Type) -> Option<Type> {
    Some(match code {
        'T' => ty,
        'W' => wide(ty),
        'p' => Type::Pred,
        'i' => Type::I32,
        'l' => Type::I64,
        _ => return None,
    })
}

fn matches_code(code: char, ty: Type, actual: Type) -> bool {
    match code {
        'a' => matches!(actual, Type::I32 | Type::I64),
        'x' => true,
        c => code_type(c, ty) == Some(actual),
    }
}

/// Checks the argument count and types of `data` against the table.
pub fn check_args(func: &Function, data: &InstData) -> Result<(), String> {
    let mut i = 0;
    for code in data.op.info().args.split_whitespace() {
        let c = code.chars().next().expect("non-empty code");
        let (optional, repeat) = (code.ends_with('?'), code.ends_with('*'));
        loop {
            let Some(&v) = data.args.get(i) else {
                if optional || repeat {
                    break;
                }
                return Err(format!("missing argument {i}"));
            };
            let actual = func.ty(v);
            if !matches_code(c, data.ty, actual) {
                if optional || repeat {
                    break;
                }
                return Err(format!(
                    "argument {i} ({v}) has type {actual}, expected `{code}` for {}",
                    data.ty
                ));
            }
            i += 1;
            if !repeat {
                break;
            }
        }
    }
    if i != data.args.len() {
        return Err(format!("{} arguments, expected {}", data.args.len(), i));
    }
    check_aux(data)
}

/// The kind of extra data an opcode carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuxKind {
    /// `Aux::None`.
    None,
    /// `Aux::Imm`.
    Imm,
    /// `Aux::Cond`.
    Cond,
    /// `Aux::Param`.
    Param,
    /// `Aux::Special`.
    Special,
    /// `Aux::Var`.
    Var,
    /// `Aux::Convert`.
    Convert,
    /// `Aux::Mem`.
    Mem,
    /// `Aux::Atom`.
    Atom,
    /// `Aux::Space`.
    Space,
    /// `Aux::Branch`.
    Branch,
    /// `Aux::Float`.
    Float,
    /// `Aux::Float` with a rounding mode.
    FloatRounded,
}

/// The kind of extra data `op` carries.
pub fn aux_kind(op: Opcode) -> AuxKind {
    use Opcode::*;
    match op {
        Const | Prmt | Lop3 | Dp4a | Dp2a | Ftestp | Shfl | Redux | Ldmatrix | MmaInt | MmaF16 | MmaIntM16n8
        | Mma884 | Fence | CallDriver | CallFunc | CpAsync | CpAsyncWait | CpAsyncArrive | Wgmma | WgmmaWait
        | FenceProxyAsync | Stmatrix | BulkCopy | BulkWait | TmaLoad | TmaStore => AuxKind::Imm,
        Icmp | Fcmp => AuxKind::Cond,
        Param => AuxKind::Param,
        Special => AuxKind::Special,
        Addr => AuxKind::Var,
        Convert | Fpack => AuxKind::Convert,
        Load | Store | PrefetchL1 | PrefetchL2 | PrefetchL2Last | MbarPhaseTest | MbarInit => AuxKind::Mem,
        Atom | MbarArrive => AuxKind::Atom,
        ToGeneric | FromGeneric | IsSpace => AuxKind::Space,
        Jump | Brif => AuxKind::Branch,
        Frint | Fdiv | Frcp | Fsqrt => AuxKind::FloatRounded,
        Fadd | Fsub | Fmul | Ffma | Fneg | Fabs | Fmin | Fmax | Fflush | FdivApprox | FdivFull | FrcpApprox
        | FsqrtApprox | FrsqrtApprox | Fex2Approx | Flg2Approx | FsinApprox | FcosApprox | FtanhApprox => {
            AuxKind::Float
        }
        _ => AuxKind::None,
    }
}

/// Checks that `aux` is the kind the opcode needs.
fn check_aux(data: &InstData) -> Result<(), String> {
    let ok = match aux_kind(data.op) {
        AuxKind::None => matches!(data.aux, Aux::None),
        AuxKind::Imm => matches!(data.aux, Aux::Imm(_)),
        AuxKind::Cond => matches!(data.aux, Aux::Cond(_)),
        AuxKind::Param => matches!(data.aux, Aux::Param(_)),
        AuxKind::Special => matches!(data.aux, Aux::Special(_)),
        AuxKind::Var => matches!(data.aux, Aux::Var(_)),
        AuxKind::Convert => matches!(data.aux, Aux::Convert(_)),
        AuxKind::Mem => matches!(data.aux, Aux::Mem(_)),
        AuxKind::Atom => matches!(data.aux, Aux::Atom(_)),
        AuxKind::Space => matches!(data.aux, Aux::Space(_)),
        AuxKind::Branch => matches!(data.aux, Aux::Branch(_)),
        AuxKind::Float => matches!(data.aux, Aux::Float(_)),
        AuxKind::FloatRounded => matches!(data.aux, Aux::Float(m) if m.rnd.is_some()),
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{}` has the wrong kind of extra data {:?}",
            data.op.name(),
            data.aux
        ))
    }
}
