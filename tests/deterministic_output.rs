//! The same PTX always gives the same cubin (no dependence on hashing or thread timing):
//! kernels that exercise predicate demotion, spilling and parallel compilation are
//! compiled several times in one process and must be byte-identical.

mod common;

use common::*;
use ptxc::pipeline::{CompileOptions, compile_ptx};

#[test]
fn compiling_twice_gives_identical_cubins() {
    for (name, max_registers) in [
        ("bitonic_sort", None),
        ("spill_pressure", Some(16)),
        ("divergent_loops", None),
        ("matmul_tiled", Some(24)),
    ] {
        let src = std::fs::read_to_string(root().join(format!("tests/kernels/{name}.ptx"))).unwrap();
        let opts = CompileOptions {
            max_registers,
            ..CompileOptions::default()
        };
        let first = compile_ptx(&src, name, &opts).unwrap();
        for _ in 0..3 {
            assert!(
                compile_ptx(&src, name, &opts).unwrap() == first,
                "{name}: output changed between runs"
            );
        }
    }
}

#[test]
fn the_large_corpus_file_compiles_identically_twice() {
    let path = ptxc_testkit::large_corpus_file();
    let src = std::fs::read_to_string(&path).unwrap();
    let opts = CompileOptions::default();
    let first = compile_ptx(&src, "corpus", &opts).unwrap();
    assert!(
        compile_ptx(&src, "corpus", &opts).unwrap() == first,
        "output changed between runs"
    );
}
