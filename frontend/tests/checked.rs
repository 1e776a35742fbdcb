//! The checked module follows the conventions the MIR lowering relies on.

use ptxc_frontend::ast::{ScalarType, StateSpace};
use ptxc_frontend::checked::*;

const SRC: &str = r#"
.version 7.8
.target sm_75
.address_size 64
.global .align 4 .u32 counter;
.extern .shared .align 16 .b8 dyn[];
.func (.param .b32 rv) twice(.param .b32 x)
{
    .reg .b32 %t;
    ld.param.b32 %t, [x];
    add.s32 %t, %t, %t;
    st.param.b32 [rv], %t;
    ret;
}
.visible .entry k(.param .u64 out, .param .align 8 .b8 blob[12], .param .u32 n)
.maxntid 128, 1, 1
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;
    .reg .f32 %f<3>;
    ld.param.u32 %r0, [blob+4];
    ld.param.u64 %rd0, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %lanemask_lt;
    setp.lt.u32 %p0, %r1, %r0;
    @!%p0 bra DONE;
    {
        .reg .b32 %r1;
        mov.u32 %r1, WARP_SZ;
    }
    mov.u64 %rd1, counter;
    cvta.global.u64 %rd2, counter;
    ld.global.v2.f32 {%f0, %f1}, [%rd0+8];
    cvt.rn.f32.s32 %f2, %r0;
    mul.wide.s32 %rd1, %r0, 4;
    setp.ne.and.u32 %p1, %r0, 0, !%p0;
    {
        .param .b32 a;
        .param .b32 r;
        st.param.b32 [a], %r0;
        call.uni (r), twice, (a);
        ld.param.b32 %r3, [r];
    }
DONE:
    ret;
}
"#;

fn kernel(m: &CheckedModule) -> &CheckedFunction {
    m.functions.iter().find(|f| f.name == "k").expect("kernel k")
}

fn insts(f: &CheckedFunction) -> Vec<&CheckedInst> {
    f.body
        .iter()
        .filter_map(|s| if let CheckedStmt::Inst(i) = s { Some(i) } else { None })
        .collect()
}

fn reg(f: &CheckedFunction, name: &str) -> RegId {
    RegId(
        f.regs
            .iter()
            .position(|r| r.name == name)
            .unwrap_or_else(|| panic!("no {name}")) as u32,
    )
}

#[test]
fn module_and_parameter_layout() {
    let m = ptxc_frontend::parse_and_check(SRC).expect("checks");
    assert_eq!((m.version, m.target_sm), ((7, 8), 75));
    assert_eq!(m.globals.len(), 2);
    assert_eq!(m.globals[1].size, 0, "extern shared arrays have no size");
    let k = kernel(&m);
    assert!(k.is_entry);
    assert_eq!(k.max_ntid, Some([128, 1, 1]));
    let layout: Vec<(&str, u32, u32, u32)> = k
        .params
        .iter()
        .map(|p| (p.name.as_str(), p.offset, p.size, p.align))
        .collect();
    assert_eq!(layout, vec![("out", 0, 8, 8), ("blob", 8, 12, 8), ("n", 20, 4, 4)]);
    for p in &k.params {
        let var = &k.vars[p.var.0 as usize];
        assert_eq!(
            (var.name.as_str(), var.space, var.size),
            (p.name.as_str(), StateSpace::Param, p.size as u64)
        );
    }
    assert_eq!(&k.vars[..2], &m.globals[..], "globals come first in every function");
}

#[test]
fn operands_follow_the_conventions() {
    let m = ptxc_frontend::parse_and_check(SRC).expect("checks");
    let k = kernel(&m);
    let i = insts(k);
    let blob = k.params[1].var;
    assert_eq!(
        i[0].operands[1],
        CheckedOperand::Address {
            base: AddrBase::Var(blob),
            offset: 4
        }
    );
    assert_eq!(i[0].mods.space, Some(StateSpace::Param));
    assert_eq!(i[2].operands[1], CheckedOperand::Special(SpecialReg::Tid(0)));
    assert_eq!(i[3].operands[1], CheckedOperand::Special(SpecialReg::LaneMaskLt));
    assert_eq!(i[4].mods.cmp, Some(CmpOp::Lt));
    assert_eq!(i[5].guard, Some((reg(k, "%p0"), true)));
    assert_eq!(i[5].operands, vec![CheckedOperand::Label(LabelId(0))]);
    assert_eq!(k.labels, vec!["DONE".to_string()]);
    let inner = i[6].operands[0].clone();
    assert_ne!(
        inner,
        CheckedOperand::Reg(reg(k, "%r1")),
        "the inner %r1 is its own register"
    );
    assert_eq!(i[6].operands[1], CheckedOperand::Special(SpecialReg::WarpSize));
    assert_eq!(i[7].operands[1], CheckedOperand::VarAddr(VarId(0)));
    assert_eq!(i[8].operands[1], CheckedOperand::VarAddr(VarId(0)));
    assert_eq!(i[9].mods.types, vec![ScalarType::F32]);
    assert_eq!(i[9].mods.vector, Some(2));
    assert!(matches!(i[9].operands[0], CheckedOperand::Vector(ref v) if v.len() == 2));
    assert_eq!(i[10].mods.types, vec![ScalarType::F32, ScalarType::S32]);
    assert_eq!(i[10].mods.rounding, Some(Rounding::Rn));
    assert_eq!(
        (i[11].mods.mul_mode, i[11].mods.types.clone()),
        (Some(MulMode::Wide), vec![ScalarType::S32])
    );
    assert_eq!(i[12].mods.bool_op, Some(BoolOp::And));
    assert_eq!(i[12].operands[3], CheckedOperand::NotReg(reg(k, "%p0")));
    let call = i.iter().find(|i| i.op == Opcode::Call).expect("call");
    assert!(call.mods.uni);
    assert!(
        matches!(&call.operands[..], [CheckedOperand::List(r), CheckedOperand::Func(f), CheckedOperand::List(a)]
        if f == "twice" && r.len() == 1 && a.len() == 1)
    );
}

#[test]
fn register_ranges_expand() {
    let m = ptxc_frontend::parse_and_check(SRC).expect("checks");
    let k = kernel(&m);
    let names: Vec<&str> = k.regs.iter().map(|r| r.name.as_str()).take(6).collect();
    assert_eq!(names, vec!["%p0", "%p1", "%r0", "%r1", "%r2", "%r3"]);
    assert_eq!(k.regs.iter().filter(|r| r.name == "%r1").count(), 2);
}

#[test]
fn modifier_order_does_not_matter() {
    let head = ".version 7.8\n.target sm_75\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n.reg .b32 %r1;\n.reg .b64 %rd1;\n";
    let a = ptxc_frontend::parse_and_check(&format!("{head}ld.global.relaxed.gpu.u32 %r1, [%rd1];\nret;\n}}\n"))
        .expect("checks");
    let b = ptxc_frontend::parse_and_check(&format!("{head}ld.relaxed.gpu.global.u32 %r1, [%rd1];\nret;\n}}\n"))
        .expect("checks");
    let mods = |m: &CheckedModule| match &m.functions[0].body[0] {
        CheckedStmt::Inst(i) => i.mods.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(mods(&a), mods(&b));
    assert_eq!(mods(&a).order, Some(MemOrder::Relaxed));
    assert_eq!(mods(&a).scope, Some(MemScope::Gpu));
}

#[test]
fn indirect_calls_name_their_prototype() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/indirect_call.ptx");
    let src = std::fs::read_to_string(path).expect("test data");
    let m = ptxc_frontend::parse_and_check(&src).expect("checks");
    let k = kernel(&m);
    let i = insts(k);
    assert!(matches!(i[0].operands[1], CheckedOperand::Func(ref f) if f == "f"));
    let call = i.iter().find(|i| i.op == Opcode::Call).expect("call");
    assert!(matches!(&call.operands[..],
        [CheckedOperand::List(_), CheckedOperand::Reg(_), CheckedOperand::List(_), CheckedOperand::Prototype(p)] if p == "proto"));
}

#[test]
fn a_one_element_vector_without_v1_is_its_element() {
    let head = ".version 8.8\n.target sm_75\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n.reg .pred %p1;\n.reg .b32 %r<3>;\n.reg .b64 %rd1;\n";
    let braced = ptxc_frontend::parse_and_check(&format!(
        "{head}@%p1 ld.global.b32 {{ %r1 }}, [ %rd1 + 0 ];\n@%p1 st.global.b32 [ %rd1 + 0 ], {{ %r2 }};\nret;\n}}\n"
    ))
    .expect("checks");
    let plain = ptxc_frontend::parse_and_check(&format!(
        "{head}@%p1 ld.global.b32 %r1, [ %rd1 + 0 ];\n@%p1 st.global.b32 [ %rd1 + 0 ], %r2;\nret;\n}}\n"
    ))
    .expect("checks");
    let operands = |m: &CheckedModule| -> Vec<Vec<CheckedOperand>> {
        insts(&m.functions[0]).iter().map(|i| i.operands.clone()).collect()
    };
    assert_eq!(operands(&braced), operands(&plain));
}
