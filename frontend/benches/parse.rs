//! Parser throughput (MB/s) on the largest corpus file, the ~1 MB deal.II/Kokkos module.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn parse_throughput(c: &mut Criterion) {
    let src = std::fs::read_to_string(ptxc_testkit::large_corpus_file()).expect("the corpus file is missing");
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(src.len() as u64));
    group.sample_size(20);
    group.bench_function("lex", |b| {
        b.iter(|| ptxc_frontend::lexer::Lexer::new(black_box(&src)).count())
    });
    group.bench_function("parse", |b| b.iter(|| ptxc_frontend::parse(black_box(&src)).is_ok()));
    group.bench_function("parse_and_check", |b| {
        b.iter(|| ptxc_frontend::parse_and_check(black_box(&src)).is_ok())
    });
    group.finish();
}

criterion_group!(benches, parse_throughput);
criterion_main!(benches);
