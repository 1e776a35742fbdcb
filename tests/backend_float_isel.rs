//! Float selection against ptxas: for single operations, every floating-point, MUFU and
//! conversion instruction (mnemonic with modifiers) of ptxas's main path (up to its first
//! branch or call: the fast path where there is a slow one, whose algorithm differs) appears
//! in ptxc's code too. Only the set of such instructions is compared: ptxc writes predicated
//! scalings as FSEL + FMUL, and compares may test the opposite condition, so FSETP, DSETP
//! and HSETP2 are left out. Contraction follows `--fmad` and never touches `.rn`.

mod common;

use common::*;
use ptxc::pipeline::{CompileOptions, compile_ptx};
use std::collections::BTreeSet;

/// A kernel computing `body` from `%a`, `%b`, `%c` of type `ty` into `%d` of type `out`.
fn kernel(body: &str, ty: &str, out: &str) -> String {
    format!(
        ".version 7.8\n.target sm_75\n.address_size 64\n\
         .visible .entry k(.param .u64 pa, .param .u64 pd)\n{{\n\
         .reg .{ty} %a, %b, %c, %t<4>;\n.reg .{out} %d;\n.reg .pred %p, %q;\n.reg .u64 %r<3>;\n\
         ld.param.u64 %r1, [pa];\nld.param.u64 %r2, [pd];\n\
         ld.global.{ty} %a, [%r1];\nld.global.{ty} %b, [%r1+8];\nld.global.{ty} %c, [%r1+16];\n\
         {body}\nst.global.{out} [%r2], %d;\nret;\n}}\n"
    )
}

/// The instruction texts (mnemonic with modifiers) of a cubin.
fn mnemonics(cubin: &[u8]) -> Vec<String> {
    let text = ptxc::disasm::disassemble(cubin, false).expect("disassembles");
    listing(&text)
        .values()
        .map(|t| {
            t.split_whitespace()
                .find(|w| !w.starts_with('@'))
                .unwrap_or("")
                .to_string()
        })
        .collect()
}

/// True for the instructions compared with ptxas's.
fn is_float_or_conversion(m: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "FADD", "FMUL", "FFMA", "FMNMX", "FCHK", "MUFU", "DADD", "DMUL", "DFMA", "HADD2", "HMUL2", "HFMA2", "I2F",
        "F2I", "F2F", "FRND", "IDP",
    ];
    PREFIXES.iter().any(|p| m == *p || m.starts_with(&format!("{p}.")))
}

fn ptxc_cubin(ptx: &str, fmad: bool) -> Vec<u8> {
    let opts = CompileOptions {
        fmad,
        ..Default::default()
    };
    compile_ptx(ptx, "k.ptx", &opts).unwrap_or_else(|e| panic!("{}\n{ptx}", e.0))
}

fn ptxas_cubin(ptx: &str, name: &str) -> Vec<u8> {
    let dir = scratch(&format!("float_isel_{name}"));
    let (src, out) = (dir.join("k.ptx"), dir.join("k.cubin"));
    std::fs::write(&src, ptx).unwrap();
    ptxas(&src, &out);
    std::fs::read(&out).unwrap()
}

#[test]
fn float_instructions_are_those_ptxas_uses() {
    let cases: &[(&str, &str, &str)] = &[
        ("rcp.approx.f32 %d, %a;", "f32", "f32"),
        ("rcp.approx.ftz.f32 %d, %a;", "f32", "f32"),
        ("sqrt.approx.f32 %d, %a;", "f32", "f32"),
        ("rsqrt.approx.ftz.f32 %d, %a;", "f32", "f32"),
        ("ex2.approx.f32 %d, %a;", "f32", "f32"),
        ("lg2.approx.ftz.f32 %d, %a;", "f32", "f32"),
        ("sin.approx.f32 %d, %a;", "f32", "f32"),
        ("cos.approx.ftz.f32 %d, %a;", "f32", "f32"),
        ("tanh.approx.f32 %d, %a;", "f32", "f32"),
        ("div.approx.f32 %d, %a, %b;", "f32", "f32"),
        ("div.full.ftz.f32 %d, %a, %b;", "f32", "f32"),
        ("div.rn.f32 %d, %a, %b;", "f32", "f32"),
        ("rcp.rn.f32 %d, %a;", "f32", "f32"),
        ("sqrt.rn.f32 %d, %a;", "f32", "f32"),
        ("div.rn.f64 %d, %a, %b;", "f64", "f64"),
        ("rcp.rn.f64 %d, %a;", "f64", "f64"),
        ("sqrt.rn.f64 %d, %a;", "f64", "f64"),
        ("rcp.approx.ftz.f64 %d, %a;", "f64", "f64"),
        ("add.rz.f32 %d, %a, %b;", "f32", "f32"),
        ("mul.rm.ftz.sat.f32 %d, %a, %b;", "f32", "f32"),
        ("fma.rp.f64 %d, %a, %b, %c;", "f64", "f64"),
        ("min.ftz.f32 %d, %a, %b;", "f32", "f32"),
        ("neg.f64 %d, %a;", "f64", "f64"),
        ("abs.ftz.f32 %d, %a;", "f32", "f32"),
        ("setp.gtu.ftz.f32 %p, %a, %b; selp.f32 %d, %a, %b, %p;", "f32", "f32"),
        ("setp.num.f64 %p, %a, %b; selp.f64 %d, %a, %b, %p;", "f64", "f64"),
        ("cvt.rzi.s32.f32 %d, %a;", "f32", "s32"),
        ("cvt.rmi.u64.f32 %d, %a;", "f32", "u64"),
        ("cvt.rni.s32.f64 %d, %a;", "f64", "s32"),
        ("cvt.rn.f32.f64 %d, %a;", "f64", "f32"),
        ("cvt.rz.f32.s64 %d, %a;", "s64", "f32"),
        ("cvt.rn.f64.u32 %d, %a;", "u32", "f64"),
        ("cvt.f64.f32 %d, %a;", "f32", "f64"),
        ("cvt.rpi.f32.f32 %d, %a;", "f32", "f32"),
        ("cvt.rzi.f64.f64 %d, %a;", "f64", "f64"),
        ("cvt.sat.f32.f32 %d, %a;", "f32", "f32"),
        ("cvt.rn.f16.f32 %d, %a;", "f32", "b16"),
        ("cvt.f32.f16 %d, %a;", "b16", "f32"),
        ("add.f16x2 %d, %a, %b;", "b32", "b32"),
        ("fma.rn.sat.f16x2 %d, %a, %b, %c;", "b32", "b32"),
        ("mul.ftz.f16 %d, %a, %b;", "b16", "b16"),
        ("ex2.approx.f16x2 %d, %a;", "b32", "b32"),
        ("dp4a.u32.s32 %d, %a, %b, %c;", "u32", "u32"),
        ("div.u32 %d, %a, %b;", "u32", "u32"),
    ];
    let mut problems = Vec::new();
    for (i, &(body, ty, out)) in cases.iter().enumerate() {
        let ptx = kernel(body, ty, out);
        let ours: BTreeSet<String> = mnemonics(&ptxc_cubin(&ptx, true)).into_iter().collect();
        let theirs: BTreeSet<String> = mnemonics(&ptxas_cubin(&ptx, &i.to_string()))
            .into_iter()
            .take_while(|m| !matches!(m.as_str(), "BRA" | "CALL.REL.NOINC" | "EXIT"))
            .filter(|m| is_float_or_conversion(m))
            .collect();
        let missing: Vec<&String> = theirs.difference(&ours).collect();
        if !missing.is_empty() {
            problems.push(format!("`{body}`: ptxas uses {missing:?}, ptxc has {ours:?}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn contraction_follows_fmad_and_spares_rn() {
    let plain = kernel("mul.f32 %t0, %a, %b;\nadd.f32 %d, %t0, %c;", "f32", "f32");
    let rn = kernel("mul.rn.f32 %t0, %a, %b;\nadd.rn.f32 %d, %t0, %c;", "f32", "f32");
    let sub = kernel("mul.f64 %t0, %a, %b;\nsub.f64 %d, %c, %t0;", "f64", "f64");
    let has = |ptx: &str, fmad: bool, m: &str| mnemonics(&ptxc_cubin(ptx, fmad)).iter().any(|x| x == m);
    assert!(
        has(&plain, true, "FFMA") && !has(&plain, true, "FMUL"),
        "contracted by default"
    );
    assert!(
        has(&plain, false, "FMUL") && !has(&plain, false, "FFMA"),
        "--fmad=false keeps mul and add"
    );
    assert!(has(&rn, true, "FMUL") && !has(&rn, true, "FFMA"), ".rn never contracts");
    assert!(
        has(&sub, true, "DFMA") && !has(&sub, true, "DMUL"),
        "f64 c - a*b contracts"
    );
}

#[test]
fn fmad_flag_reaches_the_command_line() {
    let dir = scratch("float_isel_cli");
    let src = dir.join("k.ptx");
    std::fs::write(&src, kernel("mul.f32 %t0, %a, %b;\nadd.f32 %d, %t0, %c;", "f32", "f32")).unwrap();
    let s = src.to_str().unwrap();
    for (flag, want) in [("--fmad=true", "FFMA"), ("--fmad=false", "FMUL")] {
        let out = dir.join("k.cubin");
        let o = ptxc(&["compile", s, "-o", out.to_str().unwrap(), flag]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert!(
            mnemonics(&std::fs::read(&out).unwrap()).iter().any(|m| m == want),
            "{flag}"
        );
    }
}
