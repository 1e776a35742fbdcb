//! ptxc's Hopper clusters: the kernels of `tests/hopper/cluster_*.ptx` (the cluster special
//! registers; a distributed-shared-memory exchange through `mapa`,
//! `ld`/`st`/`atom`/`red.shared::cluster` and `barrier.cluster`; arrivals and transaction
//! counts on another CTA's `mbarrier`) run five ways (ptxas's and ptxc's sm_90 cubins on both
//! simulator engines, ptxc's MIR on the interpreter) on launches without a cluster shape,
//! where every CTA is a cluster of its own, and four ways (the cubins on both engines) on
//! clusters of 2 to 8 CTAs; every run must equal a host reference written for any cluster
//! size. The MIR engine also runs them with explicit cluster shapes: any shape for the
//! special registers, clusters of one CTA for the rest, and refuses what needs another CTA
//! with a message naming the kernel, thread and instruction.

mod common;

use common::five_ways::{Cubins, Via};
use common::*;
use ptxc::launch::{LaunchSpec, ParamSpec};
use ptxc_mir::interp::{LaunchConfig, VecMemory};
use ptxc_sass::isa::Arch;
use std::collections::BTreeMap;

/// `tests/hopper/<name>.ptx`.
fn kernel_path(name: &str) -> std::path::PathBuf {
    root().join(format!("tests/hopper/{name}.ptx"))
}

/// A launch of `kernel` over `grid` CTAs of `threads` threads with one output buffer `out`
/// of `words` words.
fn spec(kernel: &str, grid: [u32; 3], threads: u32, words: usize) -> LaunchSpec {
    LaunchSpec {
        kernel: kernel.to_string(),
        grid,
        block: [threads, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: None,
        params: vec![ParamSpec::Ptr {
            buffer: "out".to_string(),
            offset: 0,
        }],
        buffers: BTreeMap::from([("out".to_string(), u32_zeros(words))]),
        symbols: BTreeMap::new(),
        limits: Default::default(),
    }
}

/// The words of buffer `out` after running `spec` with ptxas's and ptxc's cubins on both
/// engines, which must agree (the MIR engine runs no clusters of more than one CTA).
fn four_ways(name: &str, spec: &LaunchSpec) -> Vec<u32> {
    let cubins = Cubins::new(Arch::Sm90, &kernel_path(name), name);
    let ways = [
        Via::Ptxas(ptxc_sim::Engine::Timed),
        Via::Ptxas(ptxc_sim::Engine::Functional),
        Via::Ptxc(ptxc_sim::Engine::Timed),
        Via::Ptxc(ptxc_sim::Engine::Functional),
    ];
    let first = cubins.run(spec, ways[0], "out");
    for via in &ways[1..] {
        assert!(
            cubins.run(spec, *via, "out") == first,
            "{name}: {via:?} differs from ptxas's timed run"
        );
    }
    words(&first)
}

/// [`spec`] with clusters of `dims`.
fn clustered(kernel: &str, grid: [u32; 3], threads: u32, words: usize, dims: [u32; 3]) -> LaunchSpec {
    LaunchSpec {
        cluster: Some(dims),
        ..spec(kernel, grid, threads, words)
    }
}

/// The words of buffer `out` after running `spec` five ways, which must agree.
fn five_ways(name: &str, spec: &LaunchSpec) -> Vec<u32> {
    let cubins = Cubins::new(Arch::Sm90, &kernel_path(name), name);
    words(&cubins.agree(spec, "out"))
}

/// The words `out` holds after the MIR engine runs kernel `name` of `tests/hopper` (lowered
/// for sm_90) over `grid` CTAs of `threads` threads with cluster shape `cluster`, or the
/// engine's error.
fn mir_with_clusters(
    name: &str,
    grid: [u32; 3],
    threads: u32,
    words: usize,
    cluster: Option<[u32; 3]>,
) -> Result<Vec<u32>, String> {
    let src = std::fs::read_to_string(kernel_path(name)).unwrap();
    mir_run(&src, name, (grid, threads, words), cluster)
}

/// [`mir_with_clusters`] of the PTX `src`; `shape` is the grid, the threads per CTA and the
/// words of `out`.
fn mir_run(
    src: &str,
    name: &str,
    (grid, threads, words): ([u32; 3], u32, usize),
    cluster: Option<[u32; 3]>,
) -> Result<Vec<u32>, String> {
    let module = ptxc::pipeline::lower_ptx_for(src, name, Arch::Sm90).unwrap_or_else(|e| panic!("{}", e.0));
    let func = module.functions.iter().find(|f| f.name == name).unwrap();
    let base = 0x1_0000_0000u64;
    let mut mem = VecMemory {
        base,
        bytes: vec![0; 4 * words],
    };
    let cfg = LaunchConfig {
        grid,
        block: [threads, 1, 1],
        dynamic_shared: 0,
        reserved_shared: ptxc_sass::isa::Arch::Sm90.reserved_shared(),
        params: base.to_le_bytes().to_vec(),
        cluster,
    };
    ptxc_mir::interp::launch(func, &cfg, &mut mem).map_err(|e| e.to_string())?;
    Ok(common::words(&mem.bytes))
}

/// What `cluster_ids` stores for the CTA at `ctaid` of `grid`, clusters of `dims` (`None`:
/// no cluster shape, one CTA per cluster).
fn ids_reference(ctaid: [u32; 3], grid: [u32; 3], dims: Option<[u32; 3]>) -> [u32; 16] {
    let d = dims.unwrap_or([1, 1, 1]);
    let id = |k: usize| ctaid[k] / d[k];
    let n = |k: usize| grid[k] / d[k];
    let local = |k: usize| ctaid[k] % d[k];
    let rank = local(0) + d[0] * (local(1) + d[1] * local(2));
    [
        id(0),
        id(1),
        id(2),
        n(0),
        n(1),
        n(2),
        local(0),
        local(1),
        local(2),
        d[0],
        d[1],
        d[2],
        rank,
        d.iter().product(),
        dims.is_some() as u32,
        0x600d,
    ]
}

/// Every CTA's words of `cluster_ids` over `grid`.
fn ids_expected(grid: [u32; 3], dims: Option<[u32; 3]>) -> Vec<u32> {
    let mut v = Vec::new();
    for z in 0..grid[2] {
        for y in 0..grid[1] {
            for x in 0..grid[0] {
                v.extend(ids_reference([x, y, z], grid, dims));
            }
        }
    }
    v
}

#[test]
fn cluster_special_registers_without_a_cluster_shape_make_each_cta_its_own_cluster() {
    let grid = [4, 3, 2];
    let got = five_ways("cluster_ids", &spec("cluster_ids", grid, 32, 16 * 24));
    assert_eq!(got, ids_expected(grid, None));
}

#[test]
fn the_mir_engine_gives_the_cluster_special_registers_of_any_shape() {
    for (grid, dims) in [([4, 6, 2], [2, 3, 1]), ([8, 1, 1], [4, 1, 1]), ([2, 2, 4], [1, 2, 2])] {
        let n = 16 * grid.iter().product::<u32>() as usize;
        let got = mir_with_clusters("cluster_ids", grid, 32, n, Some(dims)).unwrap();
        assert_eq!(got, ids_expected(grid, Some(dims)), "clusters of {dims:?}");
    }
    let err = mir_with_clusters("cluster_ids", [3, 1, 1], 32, 48, Some([2, 1, 1])).unwrap_err();
    assert!(err.contains("not a whole number of clusters"), "{err}");
}

/// What thread `t` of the CTA of rank `r` (clusters of `n` CTAs) stores in `cluster_dsmem`.
fn dsmem_reference(r: u32, n: u32, t: u32) -> [u32; 8] {
    let theirs = ((r + 1) % n) << 16 | t;
    [theirs, theirs, theirs, 100, 103, t + 7, 5, 1]
}

/// `cluster_dsmem` over `ctas` CTAs of `threads` threads in clusters of `n` along x.
fn dsmem_expected(ctas: u32, threads: u32, n: u32) -> Vec<u32> {
    (0..ctas)
        .flat_map(|c| (0..threads).flat_map(move |t| dsmem_reference(c % n, n, t)))
        .collect()
}

#[test]
fn distributed_shared_memory_exchange_runs_in_one_cta_clusters() {
    let (ctas, threads) = (3, 64);
    let words = 8 * (ctas * threads) as usize;
    let got = five_ways("cluster_dsmem", &spec("cluster_dsmem", [ctas, 1, 1], threads, words));
    assert_eq!(got, dsmem_expected(ctas, threads, 1));
    // An explicit shape of one CTA per cluster takes the cluster barrier's path.
    let mir = mir_with_clusters("cluster_dsmem", [ctas, 1, 1], threads, words, Some([1, 1, 1])).unwrap();
    assert_eq!(mir, dsmem_expected(ctas, threads, 1));
}

/// What thread `t` of the CTA of rank `r` (clusters of `n` CTAs, `threads` threads) stores
/// in `cluster_mbarrier`.
fn mbarrier_reference(r: u32, n: u32, t: u32, threads: u32) -> [u32; 4] {
    let word = ((r + n - 1) % n) << 16 | t;
    let after = if t.is_multiple_of(2) { word + 1000 } else { word };
    // The barrier after three phases (the simulator's model, docs/MBARRIER.md): the
    // expected count in bits 1..20, the pending count reloaded in bits 43..62, phase 1.
    let expected = (1u32 << 20) - threads;
    let (lo, hi) = if t == 0 {
        (expected << 1, expected << 11 | 1 << 31)
    } else {
        (0, 0)
    };
    [word, after, lo, hi]
}

/// `cluster_mbarrier` over `ctas` CTAs of `threads` threads in clusters of `n` along x.
fn mbarrier_expected(ctas: u32, threads: u32, n: u32) -> Vec<u32> {
    (0..ctas)
        .flat_map(|c| (0..threads).flat_map(move |t| mbarrier_reference(c % n, n, t, threads)))
        .collect()
}

#[test]
fn arrivals_and_transaction_counts_on_a_shared_cluster_barrier_run_in_one_cta_clusters() {
    let (ctas, threads) = (2, 64);
    let words = 4 * (ctas * threads) as usize;
    let got = five_ways(
        "cluster_mbarrier",
        &spec("cluster_mbarrier", [ctas, 1, 1], threads, words),
    );
    assert_eq!(got, mbarrier_expected(ctas, threads, 1));
    let mir = mir_with_clusters("cluster_mbarrier", [ctas, 1, 1], threads, words, Some([1, 1, 1])).unwrap();
    assert_eq!(mir, mbarrier_expected(ctas, threads, 1));
}

#[test]
fn the_mir_engine_refuses_what_needs_another_cta_of_the_cluster() {
    for name in ["cluster_dsmem", "cluster_mbarrier"] {
        let err = mir_with_clusters(name, [4, 1, 1], 32, 1024, Some([2, 1, 1])).unwrap_err();
        assert!(
            err.contains("runs no clusters of more than one CTA") && err.contains(name) && err.contains("thread"),
            "{name}: {err}"
        );
    }
}

#[test]
fn the_mir_engine_refuses_another_ctas_shared_memory() {
    let src = std::fs::read_to_string(kernel_path("cluster_dsmem")).unwrap();
    let unsynchronised: String = src
        .lines()
        .filter(|l| !l.contains("barrier.cluster"))
        .collect::<Vec<_>>()
        .join("\n");
    let err = mir_run(&unsynchronised, "cluster_dsmem", ([2, 1, 1], 32, 512), Some([2, 1, 1])).unwrap_err();
    assert!(err.contains("names the shared memory of CTA rank 1"), "{err}");
    assert!(
        err.contains("CTA [0, 0, 0], thread [0, 0, 0]") && err.contains("load"),
        "{err}"
    );
}

#[test]
fn cluster_special_registers_of_ptxcs_cubins_follow_the_cluster_shape() {
    for (grid, dims) in [([4, 6, 2], [2, 3, 1]), ([8, 1, 1], [4, 1, 1]), ([2, 2, 4], [1, 2, 2])] {
        let n = 16 * grid.iter().product::<u32>() as usize;
        let got = four_ways("cluster_ids", &clustered("cluster_ids", grid, 32, n, dims));
        assert_eq!(got, ids_expected(grid, Some(dims)), "clusters of {dims:?}");
    }
}

#[test]
fn ptxcs_distributed_shared_memory_exchange_runs_in_clusters() {
    for n in [2, 4, 8] {
        let (ctas, threads) = (16, 64);
        let words = 8 * (ctas * threads) as usize;
        let got = four_ways(
            "cluster_dsmem",
            &clustered("cluster_dsmem", [ctas, 1, 1], threads, words, [n, 1, 1]),
        );
        assert_eq!(got, dsmem_expected(ctas, threads, n), "clusters of {n}");
    }
}

#[test]
fn ptxcs_arrivals_on_another_ctas_barrier_run_in_clusters() {
    for n in [2, 4] {
        let (ctas, threads) = (8, 64);
        let words = 4 * (ctas * threads) as usize;
        let got = four_ways(
            "cluster_mbarrier",
            &clustered("cluster_mbarrier", [ctas, 1, 1], threads, words, [n, 1, 1]),
        );
        assert_eq!(got, mbarrier_expected(ctas, threads, n), "clusters of {n}");
    }
}
