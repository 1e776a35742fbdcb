//! Pipe balancing, after the final order is fixed: in a block with more ALU than FMA
//! instructions, an ALU instruction that directly follows another one moves to the FMA
//! pipe when IMAD computes the same value: `MOV d, x` becomes
//! `IMAD.MOV.U32 d, RZ, RZ, x`, `SHF.L.U32 d, a, k, RZ` becomes `IMAD.SHL.U32 d, a, 2^k, RZ`
//! and `IADD3 d, a, b, RZ` (registers, no carry) becomes `IMAD.IADD d, a, 0x1, b`. Each
//! sub-partition issues an ALU instruction only every other cycle; ptxas spreads integer
//! work over both pipes this way. Control codes are assigned afterwards, from the new
//! instructions' latencies.

use crate::emit::CodeBlock;
use ptxc_sass::isa::desc::Pipe;
use ptxc_sass::isa::make::make;
use ptxc_sass::isa::values::ShfType;
use ptxc_sass::isa::{Arch, Inst, Mod, Op, Operand, PT, RZ, Role, Value};

/// Moves every other ALU instruction of a run of them to the FMA pipe where it can;
/// returns how many it moved.
pub fn run(blocks: &mut [CodeBlock], arch: Arch) -> usize {
    let mut moved = 0;
    for block in blocks {
        let pipes: Vec<Pipe> = block.insts.iter().map(|e| e.inst.desc().meta.pipe).collect();
        let count = |p: Pipe| pipes.iter().filter(|&&x| x == p).count();
        if count(Pipe::Alu) <= count(Pipe::Fma) {
            continue;
        }
        let mut after_alu = false;
        for (e, &pipe) in block.insts.iter_mut().zip(&pipes) {
            if after_alu
                && pipe == Pipe::Alu
                && let Some(mut imad) = as_imad(&e.inst, arch)
            {
                imad.guard = e.inst.guard;
                imad.guard_neg = e.inst.guard_neg;
                e.inst = imad;
                moved += 1;
                after_alu = false;
                continue;
            }
            after_alu = pipe == Pipe::Alu;
        }
    }
    moved
}

/// A plain register operand (not RZ, no modifiers).
fn plain_reg(op: Option<&Operand>) -> Option<u8> {
    let op = op?;
    match op.value {
        Value::Reg(r) if r != RZ && !op.neg && !op.not && !op.abs => Some(r),
        _ => None,
    }
}

/// True if the operand is absent or RZ / PT.
fn unused(op: Option<&Operand>) -> bool {
    op.is_none_or(|o| matches!(o.value, Value::Reg(RZ) | Value::Pred { idx: PT, neg: false }))
}

/// The IMAD computing what `inst` computes, if it is one of the three ALU forms.
fn as_imad(inst: &Inst, arch: Arch) -> Option<Inst> {
    let d = Operand::reg(plain_reg(inst.get(Role::Dst))?);
    let rz = Operand::reg(RZ);
    let (a, b, c) = match inst.desc().op {
        Op::Mov => {
            let src = inst.get(Role::B)?;
            if src.neg
                || src.not
                || src.abs
                || !matches!(src.value, Value::Reg(_) | Value::Imm(_) | Value::CBank { .. })
            {
                return None;
            }
            (rz, rz, *src)
        }
        Op::Shf => {
            let left_u32 =
                !inst.flag(Mod::Right) && !inst.flag(Mod::Hi) && inst.get_mod::<ShfType>() == Some(ShfType::U32);
            let a = plain_reg(inst.get(Role::A))?;
            let Value::Imm(k) = inst.get(Role::B)?.value else {
                return None;
            };
            // (A shift by 0 is left alone: nvdisasm reads IMAD by 1 into RZ as `.MOV`.)
            if !left_u32 || !unused(inst.get(Role::C)) || !(1..32).contains(&k) {
                return None;
            }
            (Operand::reg(a), Operand::imm(1 << k), rz)
        }
        Op::Iadd3 => {
            let plain = !inst.flag(Mod::X) && unused(inst.get(Role::PredDst0)) && unused(inst.get(Role::PredDst1));
            let (a, b) = (plain_reg(inst.get(Role::A))?, plain_reg(inst.get(Role::B))?);
            if !plain || !unused(inst.get(Role::C)) {
                return None;
            }
            (Operand::reg(a), Operand::imm(1), Operand::reg(b))
        }
        _ => return None,
    };
    // ptxas writes IMAD.MOV.U32 and IMAD.SHL.U32, and IMAD.IADD signed (the low word is the
    // same either way).
    let signed = inst.desc().op == Op::Iadd3;
    make(
        arch,
        Op::Imad,
        &[(Role::Dst, d), (Role::A, a), (Role::B, b), (Role::C, c)],
        &[Mod::Signed.flag(signed)],
    )
    .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::Emitted;
    use ptxc_sass::isa::values::ShfType;

    fn alu_run(arch: Arch) -> CodeBlock {
        let r = Operand::reg;
        let iadd3 = make(
            arch,
            Op::Iadd3,
            &[(Role::Dst, r(1)), (Role::A, r(2)), (Role::B, r(3)), (Role::C, r(RZ))],
            &[],
        );
        let mov = make(arch, Op::Mov, &[(Role::Dst, r(4)), (Role::B, r(5))], &[]);
        let shf = make(
            arch,
            Op::Shf,
            &[
                (Role::Dst, r(6)),
                (Role::A, r(7)),
                (Role::B, Operand::imm(3)),
                (Role::C, r(RZ)),
            ],
            &[Mod::Right.flag(false), ShfType::U32.set(), Mod::Hi.flag(false)],
        );
        let iadd3_b = make(
            arch,
            Op::Iadd3,
            &[(Role::Dst, r(8)), (Role::A, r(9)), (Role::B, r(10)), (Role::C, r(RZ))],
            &[],
        );
        CodeBlock {
            insts: [iadd3, mov, shf, iadd3_b]
                .into_iter()
                .map(|i| Emitted::new(i.unwrap()))
                .collect(),
        }
    }

    #[test]
    fn every_other_alu_instruction_of_a_run_moves_to_the_fma_pipe() {
        for arch in [Arch::Sm75, Arch::Sm80, Arch::Sm90] {
            let mut blocks = [alu_run(arch)];
            assert_eq!(run(&mut blocks, arch), 2, "{arch:?}");
            let text: Vec<String> = blocks[0]
                .insts
                .iter()
                .map(|e| ptxc_sass::isa::text::inst_text(&e.inst, 0, &ptxc_sass::isa::text::RawAddresses))
                .collect();
            assert_eq!(
                text,
                [
                    "IADD3 R1, R2, R3, RZ",
                    "IMAD.MOV.U32 R4, RZ, RZ, R5",
                    "SHF.L.U32 R6, R7, 0x3, RZ",
                    "IMAD.IADD R8, R9, 0x1, R10",
                ],
                "{arch:?}"
            );
        }
    }

    #[test]
    fn blocks_with_as_much_fma_work_are_left_alone() {
        let arch = Arch::Sm75;
        let mut block = alu_run(arch);
        let r = Operand::reg;
        for k in 0..4 {
            let imad = make(
                arch,
                Op::Imad,
                &[
                    (Role::Dst, r(20 + k)),
                    (Role::A, r(2)),
                    (Role::B, r(3)),
                    (Role::C, r(4)),
                ],
                &[],
            );
            block.insts.push(Emitted::new(imad.unwrap()));
        }
        let before = block.clone();
        let mut blocks = [block];
        assert_eq!(run(&mut blocks, arch), 0);
        assert_eq!(blocks[0], before);
    }
}
