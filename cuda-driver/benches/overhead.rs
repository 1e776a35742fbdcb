//! What the driver library adds to the simulator: launch latency of an empty kernel through
//! `cuLaunchKernel` against the same launch on `ptxc_sim::Device` directly, and copy
//! bandwidth of `cuMemcpyHtoD`/`cuMemcpyDtoH` against the simulator's own copies.
//!
//! `cargo bench -p ptxc-cuda-driver --bench overhead`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use cuda::api::{context::*, init::*, launch::*, memory::*, module::*};
use cuda::types::{CUresult, Handle};
use ptxc_sim::{Config, Device, Engine, LaunchDims};
use std::ffi::c_void;
use std::hint::black_box;

const EMPTY: &str =
    ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry empty(.param .u64 p)\n{\n  ret;\n}\n\0";
const BYTES: usize = 16 << 20;

fn ok(r: CUresult) {
    assert_eq!(r, CUresult::CUDA_SUCCESS);
}

/// A current primary context and the empty kernel's function.
fn setup() -> Handle {
    unsafe {
        ok(cuInit(0));
        let mut ctx: Handle = std::ptr::null_mut();
        ok(cuDevicePrimaryCtxRetain(&mut ctx, 0));
        ok(cuCtxSetCurrent(ctx));
        let mut m: Handle = std::ptr::null_mut();
        ok(cuModuleLoadData(&mut m, EMPTY.as_ptr().cast()));
        let mut f: Handle = std::ptr::null_mut();
        ok(cuModuleGetFunction(&mut f, m, c"empty".as_ptr()));
        f
    }
}

fn launches(c: &mut Criterion) {
    let f = setup();
    let mut g = c.benchmark_group("launch");
    let mut arg = 0u64;
    g.bench_function("empty kernel, cuLaunchKernel", |b| {
        b.iter(|| unsafe {
            let mut params = [(&mut arg as *mut u64).cast::<c_void>()];
            ok(cuLaunchKernel(
                f,
                1,
                1,
                1,
                32,
                1,
                1,
                0,
                std::ptr::null_mut(),
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            ));
        })
    });
    let mut dev = Device::new(Config::t4());
    let cubin =
        ptxc::pipeline::compile_ptx(EMPTY.trim_end_matches('\0'), "empty", &Default::default()).expect("compiles");
    let m = dev.load(&cubin).expect("loads");
    let dims = LaunchDims {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dynamic_shared: 0,
        cluster: None,
    };
    g.bench_function("empty kernel, ptxc_sim::Device", |b| {
        b.iter(|| {
            black_box(
                dev.launch_with(&m, "empty", &dims, &[0; 8], Engine::Timed, None)
                    .expect("runs"),
            )
        })
    });
    g.finish();
}

fn copies(c: &mut Criterion) {
    setup();
    let host = vec![7u8; BYTES];
    let mut back = vec![0u8; BYTES];
    let mut d = 0u64;
    unsafe { ok(cuMemAlloc_v2(&mut d, BYTES)) };
    let mut g = c.benchmark_group("memcpy 16 MiB");
    g.throughput(Throughput::Bytes(BYTES as u64));
    g.sample_size(20);
    g.bench_function("cuMemcpyHtoD", |b| {
        b.iter(|| unsafe { ok(cuMemcpyHtoD_v2(d, host.as_ptr().cast(), BYTES)) })
    });
    g.bench_function("cuMemcpyDtoH", |b| {
        b.iter(|| unsafe { ok(cuMemcpyDtoH_v2(back.as_mut_ptr().cast(), d, BYTES)) })
    });
    let mut dev = Device::new(Config::t4());
    let a = dev.alloc(BYTES);
    g.bench_function("ptxc_sim::Device::write", |b| {
        b.iter(|| dev.write(a, &host).expect("in bounds"))
    });
    g.finish();
    assert_eq!(back, host);
}

criterion_group!(benches, launches, copies);
criterion_main!(benches);
