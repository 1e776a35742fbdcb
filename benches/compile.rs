//! Whole-pipeline compile time (PTX text to cubin bytes, in process, kernels in parallel as
//! `ptxc compile` does): the ~1 MB corpus module and three kernels of the benchmark suite.

use criterion::{Criterion, criterion_group, criterion_main};
use ptxc::pipeline::{CompileOptions, compile_ptx_module};
use std::hint::black_box;

/// Suite kernels of different sizes (tests/kernels).
const SUITE: [&str; 3] = ["saxpy_f32", "nbody_f32", "bitonic_sort"];

fn compile(c: &mut Criterion) {
    let opts = CompileOptions::default();
    let mut group = c.benchmark_group("compile");
    group.sample_size(10);
    let big = std::fs::read_to_string(ptxc_testkit::large_corpus_file()).expect("the corpus file is missing");
    group.bench_function("corpus_1mb", |b| {
        b.iter(|| compile_ptx_module(black_box(&big), "corpus.ptx", &opts).is_ok())
    });
    for name in SUITE {
        let path = format!("{}/tests/kernels/{name}.ptx", env!("CARGO_MANIFEST_DIR"));
        let src = std::fs::read_to_string(&path).expect("a suite kernel is missing");
        group.bench_function(name, |b| {
            b.iter(|| compile_ptx_module(black_box(&src), name, &opts).is_ok())
        });
    }
    group.finish();
}

criterion_group!(benches, compile);
criterion_main!(benches);
