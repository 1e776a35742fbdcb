//! Simulation speed in warp instructions per second: a compute-bound kernel (eight FFMA
//! chains and an integer hash per thread) and a memory-bound one (`y = a * x + y` over 4 MiB
//! arrays), on the functional and the timed engine, on one thread and on every core.
//!
//! The kernels are ptxas cubins checked in beside their PTX (`benches/data/`); regenerate them
//! with `ptxas -arch=sm_75 -O3 compute.ptx -o compute.cubin` (and `stream`).
//!
//! Run: `cargo bench -p ptxc-sim --bench sim_speed` (criterion reports "elem/s": warp
//! instructions per second).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ptxc_sim::{Config, Device, Engine, LaunchDims};
use std::hint::black_box;

/// A prepared launch.
struct Case {
    name: &'static str,
    device: Device,
    module: ptxc_sim::module::Module,
    kernel: &'static str,
    dims: LaunchDims,
    params: Vec<u8>,
}

fn compute_case() -> Case {
    let mut device = Device::new(Config::t4());
    let module = device
        .load(include_bytes!("data/compute.cubin"))
        .expect("compute.cubin loads");
    let (blocks, threads) = (80u32, 256u32);
    let out = device.alloc(4 * (blocks * threads) as usize);
    let mut params = out.to_le_bytes().to_vec();
    params.extend_from_slice(&64u32.to_le_bytes());
    Case {
        name: "compute",
        device,
        module,
        kernel: "compute",
        dims: LaunchDims {
            grid: [blocks, 1, 1],
            block: [threads, 1, 1],
            dynamic_shared: 0,
            cluster: None,
        },
        params,
    }
}

fn stream_case() -> Case {
    let mut device = Device::new(Config::t4());
    let module = device
        .load(include_bytes!("data/stream.cubin"))
        .expect("stream.cubin loads");
    let n = 1usize << 20;
    let x = device.alloc(4 * n);
    let y = device.alloc(4 * n);
    let xs: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
    device.write(x, &xs).expect("x");
    let mut params = x.to_le_bytes().to_vec();
    params.extend_from_slice(&y.to_le_bytes());
    params.extend_from_slice(&2.0f32.to_le_bytes());
    params.extend_from_slice(&(n as u32).to_le_bytes());
    Case {
        name: "stream",
        device,
        module,
        kernel: "stream",
        dims: LaunchDims {
            grid: [160, 1, 1],
            block: [256, 1, 1],
            dynamic_shared: 0,
            cluster: None,
        },
        params,
    }
}

impl Case {
    fn launch(&mut self, engine: Engine) -> u64 {
        let stats = self
            .device
            .launch_with(&self.module, self.kernel, &self.dims, &self.params, engine, None)
            .expect("the benchmark kernel runs");
        assert_eq!(stats.hazards, 0);
        stats.warp_instructions
    }
}

fn bench(c: &mut Criterion) {
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    for make in [compute_case as fn() -> Case, stream_case] {
        let mut case = make();
        for (engine, engine_name) in [(Engine::Functional, "functional"), (Engine::Timed, "timed")] {
            let instructions = case.launch(engine);
            let mut group = c.benchmark_group(format!("{engine_name}/{}", case.name));
            group.throughput(Throughput::Elements(instructions));
            group.sample_size(10);
            group.bench_function("1 thread", |b| {
                b.iter(|| one_thread.install(|| black_box(case.launch(engine))))
            });
            group.bench_function("all threads", |b| b.iter(|| black_box(case.launch(engine))));
            group.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
