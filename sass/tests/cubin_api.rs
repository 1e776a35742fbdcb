//! The public API used by the emitter: padding, register counts, and a module built from
//! scratch (kernel, parameters, module variables, address slots) written in both flavours,
//! read back, and shown to the tools.

mod cubin_support;

use cubin_support::*;
use ptxc_sass::cubin::{
    self, BRA_SELF, Binding, CubinError, CubinModule, ElfFlavour, GlobalSpace, GlobalVar, KernelImage, KernelParam,
    NOP, Reloc, RelocKind, pad_text, register_count,
};

/// `MOV R1, c[0x0][0x28]` as ptxas encodes it.
const MOV_R1_STACK: [u64; 2] = [0x0000_0a00_0001_7a02, 0x000f_e400_0000_0f00];
/// `EXIT`.
const EXIT: [u64; 2] = [0x0000_0000_0000_794d, 0x000f_ea00_0380_0000];

fn instructions(words: &[[u64; 2]]) -> Vec<u8> {
    words
        .iter()
        .flat_map(|[w0, w1]| w0.to_le_bytes().into_iter().chain(w1.to_le_bytes()))
        .collect()
}

#[test]
fn padding_is_bra_self_then_nops_to_128_bytes() {
    let mut code = instructions(&[EXIT]);
    pad_text(&mut code);
    assert_eq!(code.len(), 128);
    assert_eq!(code[16..32], BRA_SELF);
    assert!(code[32..].chunks(16).all(|c| c == NOP));

    let mut full = instructions(&[MOV_R1_STACK; 7]);
    pad_text(&mut full);
    assert_eq!(full.len(), 128, "the BRA ends on the boundary: no NOPs");
    assert_eq!(full[112..], BRA_SELF);
}

#[test]
fn register_count_is_highest_plus_three() {
    assert_eq!(register_count(Some(1)), 4);
    assert_eq!(register_count(Some(9)), 12);
    assert_eq!(register_count(Some(45)), 48);
    assert_eq!(register_count(None), 4, "ptxas' minimum: every kernel sets up R1");
}

/// A module as the emitter would build it.
fn handmade(flavour: ElfFlavour) -> CubinModule {
    let mut code = instructions(&[MOV_R1_STACK, EXIT]);
    pad_text(&mut code);
    let mut k = KernelImage::new("store", code);
    k.params = vec![KernelParam::new(0, 0, 8), KernelParam::new(1, 8, 4)];
    k.param_size = 12;
    k.reg_count = register_count(Some(1));
    k.exit_offsets = vec![0x10];
    k.shared_size = 0x100;
    k.num_barriers = 1;
    k.req_ntid = Some([128, 1, 1]);
    let mut m = CubinModule::new(75);
    m.flavour = flavour;
    m.kernels.push(k);
    let var = |name: &str, space, size, align, init: Option<Vec<u8>>| GlobalVar {
        name: name.into(),
        space,
        offset: 0,
        size,
        align,
        init,
        binding: Binding::Global,
    };
    m.globals = vec![
        var("g", GlobalSpace::Global, 4, 4, Some(vec![1, 2, 3, 4])),
        var("z", GlobalSpace::Global, 16, 8, None),
        var("c", GlobalSpace::Const, 8, 8, None),
    ];
    m.const_bank3 = vec![7; 8];
    m.const_bank4 = vec![0; 16];
    m.const_bank4_relocs = vec![
        Reloc::new(8, RelocKind::R_CUDA_64, "z"),
        Reloc::new(0, RelocKind::R_CUDA_64, "g"),
    ];
    m
}

/// What reading gives back beyond what was written: the recorded layout and the generated
/// `.debug_frame`.
fn without_file_details(mut m: CubinModule) -> CubinModule {
    m.layout = None;
    m.debug_frame = None;
    m
}

#[test]
fn handmade_module_reads_back_unchanged() {
    for flavour in [ElfFlavour::V8, ElfFlavour::V7] {
        let m = handmade(flavour);
        let back = cubin::read(&cubin::write(&m)).expect("our own output reads");
        assert_eq!(without_file_details(back), m, "{flavour:?}");
    }
}

#[test]
fn handmade_module_is_accepted_by_the_tools() {
    let dir = scratch_dir("cubin_api");
    for flavour in [ElfFlavour::V8, ElfFlavour::V7] {
        let path = dir.join(format!("{flavour:?}.cubin"));
        std::fs::write(&path, cubin::write(&handmade(flavour))).unwrap();
        let disasm = nvdisasm(&path);
        let warnings: Vec<&str> = disasm.stderr.lines().collect();
        let expected: &[&str] = if flavour == ElfFlavour::V8 { &[] } else { &V7_WARNINGS };
        assert!(disasm.ok && warnings == expected, "{flavour:?}: {}", disasm.stderr);
        let code = instruction_lines(&disasm.stdout).join("\n");
        assert!(code.contains("MOV R1, c[0x0][0x28]") && code.contains("EXIT"), "{code}");
        assert!(code.contains("BRA") && code.contains("NOP"), "{code}");

        let elf = cuobjdump_elf(&path);
        assert!(elf.ok && elf.stderr.is_empty(), "{flavour:?}: {}", elf.stderr);
        for needle in [
            "EIATTR_KPARAM_INFO",
            "EIATTR_REQNTID",
            "EIATTR_EXIT_INSTR_OFFSETS",
            ".nv.shared.store",
            ".nv.global.init",
            ".rel.nv.constant4",
        ] {
            assert!(
                elf.stdout.contains(needle),
                "{flavour:?}: no {needle} in\n{}",
                elf.stdout
            );
        }
        let relocations = elf.stdout.split(".rel.nv.constant4").nth(2).unwrap_or_default();
        assert!(
            relocations.contains("z    R_CUDA_64") && relocations.contains("g    R_CUDA_64"),
            "{relocations}"
        );
        match flavour {
            ElfFlavour::V8 => assert!(elf.stdout.contains("EIATTR_NUM_BARRIERS")),
            ElfFlavour::V7 => assert!(elf.stdout.contains("100006"), "barrier count in the .text flags"),
        }
    }
}

#[test]
fn inconsistent_modules_are_write_errors() {
    let mut m = handmade(ElfFlavour::V8);
    m.const_bank4_relocs
        .push(Reloc::new(16, RelocKind::R_CUDA_64, "missing"));
    assert_eq!(
        cubin::try_write(&m),
        Err(CubinError::Write("no symbol named missing".into()))
    );
}

#[test]
#[should_panic(expected = "no symbol named missing")]
fn write_panics_on_inconsistent_modules() {
    let mut m = handmade(ElfFlavour::V8);
    m.kernels[0].externs.push("missing".into());
    cubin::write(&m);
}
