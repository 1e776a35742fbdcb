//! The one genuine V7 ("Old ELF") cubin we have, written by CUDA 11.1 (see
//! `tests/data/cubin/README.md`): the reader gives back what it holds, the writer reproduces
//! it, and the tools accept it and its V8 conversion.

mod cubin_support;

use cubin_support::*;
use ptxc_sass::cubin::{
    self, Binding, CubinModule, ElfFlavour, GlobalSpace, KernelParam, ObjectKind, RelocKind, SymbolKind,
};

fn sample() -> (Vec<u8>, CubinModule) {
    let path = data_dir().join("cudatest.7.sm_75.cubin");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("missing {}: {e}", path.display()));
    let m = cubin::read(&bytes).expect("the CUDA 11.1 sample reads");
    (bytes, m)
}

#[test]
fn module_fields() {
    let (_, m) = sample();
    assert_eq!(
        (m.flavour, m.kind, m.sm, m.virtual_sm),
        (ElfFlavour::V7, ObjectKind::Executable, 75, 75)
    );
    assert_eq!(m.toolkit_version, 111);
    let names: Vec<&str> = m.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "_Z7argtestPiS_S_",
            "_Z10local_testiiPi",
            "_Z5childPii",
            "_Z11shared_testfPf",
            "_Z4test6float4PS_",
            "_Z11nvinfo_testiiPi",
            "_Z10simpletest4int4Pi"
        ]
    );
    let externs: Vec<(&str, SymbolKind)> = m.externs.iter().map(|e| (e.name.as_str(), e.kind)).collect();
    assert_eq!(
        externs,
        [
            ("texRef2d", SymbolKind::Other(10)),
            ("texRef1d", SymbolKind::Other(10)),
            ("inputSurfRef", SymbolKind::Other(12)),
            ("outputSurfRef", SymbolKind::Other(12)),
            ("vprintf", SymbolKind::Function),
        ]
    );
    assert_eq!(m.const_bank3.len(), 0x141);
}

#[test]
fn module_variables() {
    let (_, m) = sample();
    let vars: Vec<(&str, GlobalSpace, u64, u64, bool)> = m
        .globals
        .iter()
        .map(|g| (g.name.as_str(), g.space, g.offset, g.size, g.init.is_some()))
        .collect();
    assert_eq!(
        vars,
        [
            ("C1", GlobalSpace::Const, 0, 0x2c, false),
            ("C2", GlobalSpace::Const, 0x2c, 0x104, false),
            ("C3", GlobalSpace::Const, 0x130, 0x11, false),
            ("GlobalC1", GlobalSpace::Global, 0, 0x1c, false),
            ("GlobalC2", GlobalSpace::Global, 0x1c, 0x84, false),
            ("flist", GlobalSpace::Global, 0, 0x38, true),
            ("$str", GlobalSpace::Global, 0x50, 0xc, true),
            ("__cudart_i2opi_f", GlobalSpace::Global, 0x38, 0x18, true),
        ]
    );
    let text = m.global("$str").unwrap().init.clone().unwrap();
    assert_eq!(text, b"a[%d] = %d\n\0");
}

#[test]
fn kernel_fields() {
    let (_, m) = sample();
    let k = m.kernel("_Z7argtestPiS_S_").unwrap();
    assert!(k.entry);
    assert_eq!(k.binding, Binding::Global);
    assert_eq!((k.reg_count, k.param_size, k.const_bank0_size), (24, 0x18, Some(0x188)));
    assert_eq!(
        k.params,
        [
            KernelParam::new(0, 0, 8),
            KernelParam::new(1, 8, 8),
            KernelParam::new(2, 16, 8)
        ]
    );
    assert_eq!(k.exit_offsets, [0x850, 0x930]);
    assert_eq!(k.externs, ["vprintf"]);
    assert_eq!(
        (k.frame_size, k.min_stack_size, k.max_stack_size),
        (0x28, Some(0x30), Some(0))
    );
    assert_eq!(k.crs_stack_size, Some(0));
    assert_eq!(k.const_bank2.len(), 0x48);
    assert_eq!(k.functions.len(), 7);
    assert_eq!(k.functions[0].name, "$_Z7argtestPiS_S_$_Z2f1ii");
    assert_eq!((k.functions[0].offset, k.functions[0].size), (0x940, 0x10));
    assert_eq!(k.relocs.len(), 9);
    let call = k.relocs.iter().find(|r| r.symbol == "vprintf").unwrap();
    assert_eq!((call.offset, call.kind), (0x920, RelocKind::R_CUDA_ABS47_34));
    assert_eq!(k.relocs.iter().filter(|r| r.addend.is_some()).count(), 2);
    assert_eq!(k.const_bank0_relocs.len(), 4);

    let shared = m.kernel("_Z11shared_testfPf").unwrap();
    assert_eq!(
        (shared.num_barriers, shared.shared_size, shared.shared_align),
        (1, 0x1010, 16)
    );
    assert!(m.kernel("_Z11nvinfo_testiiPi").unwrap().ctaid_z_used);
    assert_eq!(m.kernel("_Z10simpletest4int4Pi").unwrap().coop_group_offsets, [0x160]);
}

#[test]
fn rewrite_is_byte_identical() {
    let (bytes, m) = sample();
    assert!(
        cubin::write(&m) == bytes,
        "rewriting the CUDA 11.1 V7 sample changed it"
    );
}

#[test]
fn tools_accept_the_rewrite_and_its_v8_conversion() {
    let (bytes, m) = sample();
    let dir = scratch_dir("cubin_v7_sample");
    let original = dir.join("original.cubin");
    std::fs::write(&original, &bytes).unwrap();
    let rewritten = dir.join("rewritten.cubin");
    std::fs::write(&rewritten, cubin::write(&m)).unwrap();
    let (before, after) = (nvdisasm(&original), nvdisasm(&rewritten));
    assert_eq!(after.stderr.lines().collect::<Vec<_>>(), V7_WARNINGS);
    assert_eq!(before.stdout, after.stdout);
    assert_eq!(cuobjdump_elf(&original).stdout, cuobjdump_elf(&rewritten).stdout);

    let mut v8 = m.clone();
    v8.flavour = ElfFlavour::V8;
    v8.layout = None;
    let converted = dir.join("v8.cubin");
    std::fs::write(&converted, cubin::write(&v8)).unwrap();
    let disasm = nvdisasm(&converted);
    assert!(disasm.ok && disasm.stderr.is_empty(), "{}", disasm.stderr);
    assert_eq!(instruction_lines(&disasm.stdout), instruction_lines(&before.stdout));
    let elf = cuobjdump_elf(&converted);
    assert!(elf.ok && elf.stderr.is_empty(), "{}", elf.stderr);
}
