//! Instructions Ampere and Ada add to the core (each checked bit by bit with nvdisasm):
//! * `HFMA2.MMA` (sm_80 on): HFMA2 on the tensor pipe (opcodes 0x?35), without lane
//!   swizzles or `.F32`, with `.RELU` (79); ptxas uses it on sm_80 to spread moves and FMAs
//!   over more pipes.
//! * `F2FP.PACK_AB` (0x23e, 0x83e, 0xa3e): two f32 rounded to f16 or bf16 and packed, A high,
//!   B low; `.RELU` 75, `.BF16` 76, `.SATFINITE` 77, rounding 79..81 (RN or RZ). Under
//!   `.MERGE_C` (78) it converts B alone, into the low half, with C the register merged
//!   (`F2FP.RELU.BF16.MERGE_C Rd, B, RZ`: ptxas's `cvt.rn.relu.bf16.f32`). Ada spells the
//!   types `.F16.F32` / `.BF16.F32`.
//! * `I2FP.F32.S32|U32` (sm_86 on, 0x245, 0x845, 0xa45, 0xc45): I2F to f32 on the FMA pipe; rounding
//!   RN or RZ. Its result is timed as an ALU one: ptxas 13.5 reads it with FSETP 4 cycles
//!   later on sm_90 (ALU after ALU; an FMA-pipe writer would need 5) and with FMUL/FADD 5
//!   cycles later on sm_86, sm_89 and sm_90 (FMA after ALU).
//! * `F2IP.U8|S8.F32` (sm_86 on, 0x243): f32 to packed saturated bytes.
//! * `REDUX.op URd, A` (0x3c4): a reduction over the active lanes into a uniform register;
//!   op 78..81, `.S32` 73.
//! * `ATOMS.POPC.INC.32 Rd, [A+URb]` (0xf8c): shared-memory increment by the active lanes.
//! * `ATOMS.ARRIVE.64 Rd, [A+URb]` (0xf8c, bits 87..90 = 0b1001): one arrival on the
//!   `mbarrier` at the address (ptxas's `mbarrier.arrive`, see `docs/MBARRIER.md`).
//! * `ATOM.E.ARRIVE.64` / `ATOM.E.POPC.INC.32 Pd, Rd, [A+URc]` (0xf8a, bit 91 set; operation
//!   87..90 = 0b1001 / 0b1010): the same two on a generic address (ptxas's `mbarrier` on a
//!   generic address); order, cache and type fields as the uniform-address ATOM's.

use crate::flag;
use crate::isa::arch::{Arch, Archs};
use crate::isa::build::*;
use crate::isa::desc::{Form, ImmStyle, LatCat as L, ModDesc, Op, OperandDesc, Pipe, Role};
use crate::isa::sm75::mem::{CACHE, UrAt, address, address_with_width_bit};
use crate::isa::values::MbarrierOp;

/// Adds the new forms (HFMA2.MMA is derived from the core's HFMA2).
pub fn add(forms: &mut Vec<Form>) {
    let mma: Vec<Form> = forms
        .iter()
        .filter(|f| f.op == Op::Hfma2 && matches!(f.opcode, 0x231 | 0x431 | 0x631 | 0x831 | 0xa31))
        .map(hfma2_mma)
        .collect();
    forms.extend(mma);
    forms.extend(f2fp());
    forms.extend(i2fp());
    forms.push(f2ip());
    forms.push(redux());
    forms.push(atoms_popc_inc());
    forms.push(atoms_arrive());
    forms.push(atom_mbarrier(MbarrierOp::Arrive));
    forms.push(atom_mbarrier(MbarrierOp::PopcInc));
}

/// `HFMA2.MMA`: the core HFMA2 form with opcode 0x?35, no swizzles and no `.F32`.
fn hfma2_mma(f: &Form) -> Form {
    let mut b = derive(f)
        .since(Arch::Sm80)
        .replace_mod(Mod::HalfF32, &[])
        .mods([super::core::RELU])
        .op_under(Mod::Relu, super::core::relu_predicate())
        .invalid_when(super::core::SAT_WITH_RELU);
    for role in [Role::A, Role::B, Role::C] {
        if f.operand_index(role).is_some() {
            b = b.map_operand(role, |o| OperandDesc { swizzle: None, ..o });
        }
    }
    let mut form = b.timing(L::Fp16, Pipe::Fp16).build();
    form.mnemonic = "HFMA2.MMA";
    form.opcode = f.opcode + 4;
    OPCODE.set(&mut form.template, form.opcode as u64);
    form
}

/// F2FP's type on sm_80 and sm_86.
const F2FP_TYPE: ModDesc = modifier(Mod::Bf16, 76, 1, &[(0, ""), (1, ".BF16")], 0);

/// Ada spells F2FP's types with their source: `.F16.F32`, `.BF16.F32`.
pub fn ada(forms: &mut Vec<Form>) {
    super::changed(
        forms,
        Arch::Sm89,
        |f| f.op == Op::F2fp,
        |_, b| {
            b.map_mod(Mod::Bf16, |m| ModDesc {
                values: &[(0, ".F16.F32"), (1, ".BF16.F32")],
                ..m
            })
        },
    );
}

fn f2fp() -> Vec<Form> {
    let rnd = modifier(Mod::Rnd, 79, 2, &[(0, ""), (3, ".RZ")], 0);
    let b_operands = [
        (0x23e, reg(Role::B, RB).reuse(1)),
        (0x83e, imm32(Role::B, ImmStyle::F32)),
        (0xa3e, cbank(Role::B)),
    ];
    let mods = |merge: ModDesc| {
        [
            flag!(Mod::SatFinite, 77, ".SATFINITE"),
            flag!(Mod::Relu, 75, ".RELU"),
            F2FP_TYPE,
            merge,
            rnd,
        ]
    };
    let pack = b_operands.into_iter().map(|(opc, b)| {
        form("F2FP", Op::F2fp, opc)
            .since(Arch::Sm80)
            .ops([rd(), reg(Role::A, RA).reuse(0), b])
            .mods(mods(modifier(Mod::MergeC, 78, 1, &[(0, ".PACK_AB")], 0)))
            .fixed(RC, 8, 0xff)
            .timing(L::Alu, Pipe::Alu)
            .build()
    });
    // `.MERGE_C`: B alone converted into the low half, C the register merged (ptxas: RZ);
    // the A field is not printed (ptxas writes RZ).
    let merge = b_operands.into_iter().map(|(opc, b)| {
        form("F2FP", Op::F2fp, opc)
            .since(Arch::Sm80)
            .ops([rd(), b, reg(Role::C, RC)])
            .mods(mods(modifier(Mod::MergeC, 78, 1, &[(1, ".MERGE_C")], 1)))
            .fixed(RA, 8, 0xff)
            .timing(L::Alu, Pipe::Alu)
            .build()
    });
    pack.chain(merge).collect()
}

fn i2fp() -> Vec<Form> {
    let itype = |values: &'static [(u16, &'static str)]| {
        split_modifier(
            Mod::IntType,
            bits(74, 1),
            bits(84, 2),
            values,
            values[values.len() - 1].0,
        )
    };
    let both: &'static [(u16, &'static str)] = &[(4, ".U32"), (5, ".S32")];
    let b_operands = [
        (0x245, reg(Role::B, RB), both),
        (0x845, imm32(Role::B, ImmStyle::Hex), &[(4, ".U32")][..]),
        (0x845, imm32(Role::B, ImmStyle::SignedHex), &[(5, ".S32")][..]),
        (0xa45, cbank(Role::B), both),
        (0xc45, ureg(Role::B, RB), both),
    ];
    b_operands
        .into_iter()
        .map(|(opc, b, types)| {
            let uniform = u64::from(opc == 0xc45);
            form("I2FP", Op::I2f, opc)
                .since(Arch::Sm86)
                .fixed(UNIFORM_BIT, 1, uniform)
                .ops([rd(), b])
                .mods([
                    modifier(Mod::FloatType, 75, 3, &[(2, ".F32")], 2),
                    itype(types),
                    modifier(Mod::Rnd, 78, 2, &[(0, ""), (3, ".RZ")], 0),
                ])
                .timing(L::Alu, Pipe::Fma)
                .build()
        })
        .collect()
}

fn f2ip() -> Form {
    form("F2IP", Op::F2ip, 0x243)
        .since(Arch::Sm86)
        .ops([rd(), reg(Role::A, RA), reg(Role::B, RB), reg(Role::C, RC)])
        .mods([
            modifier(Mod::IntType, 76, 2, &[(0, ".U8"), (1, ".S8")], 0),
            modifier(Mod::FloatType, 84, 0, &[(2, ".F32")], 2),
            modifier(Mod::Rnd, 78, 2, &[(0, ""), (3, ".TRUNC")], 0),
            flag!(Mod::Ntz, 74, ".NTZ"),
            flag!(Mod::Relu, 75, ".RELU"),
        ])
        .timing(L::Alu, Pipe::Alu)
        .build()
}

fn redux() -> Form {
    form("REDUX", Op::Redux, 0x3c4)
        .since(Arch::Sm80)
        .ops([urd(), reg(Role::A, RA)])
        .mods([
            modifier(
                Mod::ReduxOp,
                78,
                3,
                &[(0, ""), (1, ".OR"), (2, ".XOR"), (3, ".SUM"), (4, ".MIN"), (5, ".MAX")],
                0,
            ),
            modifier(Mod::Signed, 73, 1, &[(0, ""), (1, ".S32")], 0),
        ])
        .timing(L::Decoupled, Pipe::Alu)
        .build()
}

fn atoms_popc_inc() -> Form {
    form("ATOMS.POPC.INC", Op::AtomsPopcInc, 0xf8c)
        .archs(Archs::since(Arch::Sm80))
        .ops([rd(), address(UrAt::C, bits(40, 24), false, true)])
        .mods([modifier(Mod::AtomType, 73, 2, &[(0, ".32")], 0)])
        .fixed(87, 4, 0b1010)
        .fixed(UNIFORM_BIT, 1, 1)
        .timing(L::Decoupled, Pipe::Lsu)
        .reads_late()
        .build()
}

fn atoms_arrive() -> Form {
    form("ATOMS.ARRIVE", Op::AtomsArrive, 0xf8c)
        .archs(Archs::since(Arch::Sm80))
        .ops([rd().width(2), address(UrAt::C, bits(40, 24), false, true)])
        .mods([modifier(Mod::AtomType, 73, 2, &[(2, ".64")], 2)])
        .fixed(87, 4, 0b1001)
        .fixed(UNIFORM_BIT, 1, 1)
        .timing(L::Decoupled, Pipe::Lsu)
        .reads_late()
        .build()
}

/// Generic `ATOM.E.ARRIVE.64` / `ATOM.E.POPC.INC.32` (0xf8a): Pd 81..83, Rd, the address
/// `[Ra+URc+offset]` with its width in bit 70; type 73..76, order 77..80 as the other
/// sm_80 atomics (ptxas writes `.STRONG.SM`), cache 84..86. Bits 71 and 101..103 print
/// nothing under nvdisasm and stay clear.
fn atom_mbarrier(op: MbarrierOp) -> Form {
    const ARRIVE: &[(u16, &str)] = &[(9, ".ARRIVE")];
    const POPC_INC: &[(u16, &str)] = &[(10, ".POPC.INC")];
    const B64: &[(u16, &str)] = &[(2, ".64")];
    const B32: &[(u16, &str)] = &[(0, ".32")];
    let (kind, ops, types, width) = match op {
        MbarrierOp::Arrive => (Op::AtomArrive, ARRIVE, B64, 2),
        MbarrierOp::PopcInc => (Op::AtomPopcInc, POPC_INC, B32, 1),
    };
    form("ATOM", kind, 0xf8a)
        .archs(Archs::since(Arch::Sm80))
        .ops([
            pred(Role::PredDst0, 81, None, false),
            rd().width(width),
            address_with_width_bit(UrAt::C, bits(40, 24), Some(70), false),
        ])
        .mods([
            // `.E` only: nvdisasm prints `ATOM.???0.ARRIVE` with bit 72 clear.
            modifier(Mod::E, 72, 1, &[(1, ".E")], 1),
            modifier(Mod::MbarrierOp, 87, 4, ops, ops[0].0),
            CACHE,
            modifier(Mod::AtomType, 73, 4, types, types[0].0),
            super::memory::ATOMIC,
        ])
        .fixed(71, 1, 0)
        .fixed(UNIFORM_BIT, 1, 1)
        .timing(L::Decoupled, Pipe::Lsu)
        .reads_late()
        .build()
}
