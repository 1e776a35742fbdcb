//! Hopper's thread-block clusters on the simulator (`tests/hopper_cluster/*.ptx`, ptxas's
//! sm_90 cubins, both engines): the cluster special registers on a 3-D cluster shape,
//! distributed shared memory (mapa, ld/atom on shared::cluster and generic addresses of
//! other CTAs) with the cluster barrier, mbarrier arrivals on another CTA's barrier, and a
//! bulk copy from one CTA's shared memory into another's, and multicast TMA and bulk copies
//! into every CTA of a cluster. Every result is checked against
//! values computed here from the launch; the launch errors (a grid of partial clusters, too
//! large a cluster, a cluster on sm_80, shapes against the kernel's cluster directives), a
//! cluster barrier that cannot complete and a shared::cta load from another CTA are checked
//! for their messages.

mod common;

use common::*;
use std::path::{Path, PathBuf};

/// ptxas's cubin of `tests/hopper_cluster/<name>.ptx`, in `dir` (sm_90a for the TMA kernel,
/// sm_90 for the others).
fn cubin(name: &str, dir: &Path) -> PathBuf {
    let ptx = root().join(format!("tests/hopper_cluster/{name}.ptx"));
    let out = dir.join(format!("{name}.cubin"));
    ptxas_for(if name.starts_with("tma") { "sm_90a" } else { "sm_90" }, &ptx, &out);
    out
}

/// Runs `cubin` on `spec` expecting a launch error; its message.
fn run_error(dir: &Path, cubin: &Path, spec: &str) -> String {
    let toml = dir.join("bad.toml");
    std::fs::write(&toml, spec).unwrap();
    let o = ptxc(&["run", cubin.to_str().unwrap(), "--launch", toml.to_str().unwrap()]);
    assert!(!o.status.success(), "the launch should fail: {}", text(&o.stdout));
    text(&o.stderr)
}

const ENGINES: [&str; 2] = ["functional", "timed"];

/// The 20 words `cluster_ids` stores for the CTA at `ctaid` of `grid` in clusters of
/// `shape` (PTX ISA: `%cluster_ctarank` is x + y * nx + z * nx * ny within the cluster).
fn expected_ids(ctaid: [u32; 3], grid: [u32; 3], shape: [u32; 3], explicit: bool) -> Vec<u32> {
    let clusterid: Vec<u32> = (0..3).map(|i| ctaid[i] / shape[i]).collect();
    let nclusterid: Vec<u32> = (0..3).map(|i| grid[i] / shape[i]).collect();
    let within: Vec<u32> = (0..3).map(|i| ctaid[i] % shape[i]).collect();
    let rank = within[0] + within[1] * shape[0] + within[2] * shape[0] * shape[1];
    let mut w = ctaid.to_vec();
    w.extend(&clusterid);
    w.extend(&nclusterid);
    w.extend(&within);
    w.extend(shape);
    w.push(rank);
    w.extend([
        shape.iter().product(),
        explicit as u32,
        explicit as u32,
        explicit as u32,
    ]);
    w
}

#[test]
fn cluster_special_registers_follow_the_launch_shape() {
    let dir = scratch("sim_hopper_cluster_ids");
    let cubin = cubin("cluster_ids", &dir);
    let grid = [4, 6, 2];
    for (shape, key) in [
        ([2, 3, 1], "cluster = [2, 3, 1]\n"),
        ([1, 2, 2], "cluster = [1, 2, 2]\n"),
        ([1, 1, 1], ""),
    ] {
        let ctas = grid.iter().product::<u32>() as usize;
        let spec = format!(
            "kernel = \"cluster_ids\"\ngrid = [4, 6, 2]\nblock = [32]\n{key}params = [ {{ ptr = \"out\" }} ]\n\
             [buffers.out]\ndtype = \"u32\"\nlen = {}\n",
            ctas * 20
        );
        for engine in ENGINES {
            let out = &run_words(&dir, &cubin, &spec, engine, &["out"])[0];
            for z in 0..grid[2] {
                for y in 0..grid[1] {
                    for x in 0..grid[0] {
                        let linear = ((z * grid[1] + y) * grid[0] + x) as usize;
                        let want = expected_ids([x, y, z], grid, shape, !key.is_empty());
                        assert_eq!(
                            &out[linear * 20..linear * 20 + 20],
                            &want[..],
                            "{engine}, cluster {shape:?}, CTA {:?}",
                            [x, y, z]
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn ctas_of_a_cluster_read_and_update_each_others_shared_memory() {
    let dir = scratch("sim_hopper_cluster_dsmem");
    let cubin = cubin("dsmem_exchange", &dir);
    let (ctas, threads) = (16u32, 128u32);
    for size in [2u32, 4, 8] {
        let spec = format!(
            "kernel = \"dsmem_exchange\"\ngrid = [{ctas}]\nblock = [{threads}]\ncluster = [{size}]\n\
             params = [ {{ ptr = \"out\" }}, {{ ptr = \"counts\" }} ]\n\
             [buffers.out]\ndtype = \"u32\"\nlen = {}\n[buffers.counts]\ndtype = \"u32\"\nlen = {}\n",
            ctas * threads,
            ctas * 2
        );
        for engine in ENGINES {
            let got = run_words(&dir, &cubin, &spec, engine, &["out", "counts"]);
            for c in 0..ctas {
                let rank = c % size;
                let next = c - rank + (rank + 1) % size;
                for t in 0..threads {
                    assert_eq!(
                        got[0][(c * threads + t) as usize],
                        next * 100_000 + ((rank + 1) % size) * 1000 + t,
                        "{engine}, clusters of {size}: CTA {c} thread {t}"
                    );
                }
                // The previous CTA's threads added 1 (shared::cluster) and 2 (generic) each.
                let counts = &got[1][2 * c as usize..2 * c as usize + 2];
                assert_eq!(
                    counts,
                    [rank + threads, rank + 2 * threads],
                    "{engine}, clusters of {size}: CTA {c}"
                );
            }
        }
    }
}

#[test]
fn ctas_arrive_on_another_ctas_mbarrier() {
    let dir = scratch("sim_hopper_cluster_mbarrier");
    let cubin = cubin("remote_mbarrier", &dir);
    // Clusters of 8 CTAs of 1024 threads take four H100 SMs each in the timed engine.
    for (size, threads) in [(2u32, 64), (4, 64), (16, 64), (8, 1024)] {
        let ctas = 32;
        let spec = format!(
            "kernel = \"remote_mbarrier\"\ngrid = [{ctas}]\nblock = [{threads}]\ncluster = [{size}]\n\
             params = [ {{ ptr = \"out\" }} ]\n[buffers.out]\ndtype = \"u32\"\nlen = {}\n",
            ctas / size * 16
        );
        for engine in ENGINES {
            let out = &run_words(&dir, &cubin, &spec, engine, &["out"])[0];
            for cluster in 0..ctas / size {
                let row = &out[(cluster * 16) as usize..(cluster * 16 + size.min(16)) as usize];
                let mut want = vec![size];
                want.extend((1..size).map(|r| (cluster * size + r) * 1000 + r));
                assert_eq!(row, &want[..], "{engine}, clusters of {size}: cluster {cluster}");
            }
        }
    }
}

#[test]
fn bad_cluster_launches_are_refused_with_their_reason() {
    let dir = scratch("sim_hopper_cluster_errors");
    let cubin = cubin("dsmem_exchange", &dir);
    let spec = |grid: &str, cluster: &str| {
        format!(
            "kernel = \"dsmem_exchange\"\ngrid = {grid}\nblock = [32]\ncluster = {cluster}\n\
             params = [ {{ ptr = \"out\" }}, {{ ptr = \"counts\" }} ]\n\
             [buffers.out]\ndtype = \"u32\"\nlen = 1024\n[buffers.counts]\ndtype = \"u32\"\nlen = 64\n"
        )
    };
    let e = run_error(&dir, &cubin, &spec("[6]", "[4]"));
    assert!(e.contains("not made of whole 4x1x1 clusters"), "{e}");
    let e = run_error(&dir, &cubin, &spec("[32]", "[32]"));
    assert!(e.contains("exceeds the 16 a cluster may hold"), "{e}");
    let e = run_error(&dir, &cubin, &spec("[4]", "[0]"));
    assert!(e.contains("`cluster[0]` must be a positive integer"), "{e}");
    // A kernel for sm_80 has no clusters.
    let ptx = dir.join("empty.ptx");
    std::fs::write(
        &ptx,
        ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry empty()\n{\n  ret;\n}\n",
    )
    .unwrap();
    let ampere = dir.join("ampere.cubin");
    ptxas_for("sm_80", &ptx, &ampere);
    let toml = "kernel = \"empty\"\ngrid = [2]\nblock = [32]\ncluster = [2]\nparams = []\n";
    let e = run_error(&dir, &ampere, toml);
    assert!(e.contains("clusters need sm_90 or later"), "{e}");
}

#[test]
fn a_cluster_barrier_that_cannot_complete_is_reported_with_its_place() {
    let dir = scratch("sim_hopper_cluster_deadlock");
    let cubin = cubin("cluster_deadlock", &dir);
    let spec = "kernel = \"cluster_deadlock\"\ngrid = [4]\nblock = [64]\ncluster = [2]\nparams = []\n";
    for engine in ENGINES {
        let toml = dir.join(format!("{engine}.toml"));
        std::fs::write(&toml, spec).unwrap();
        let o = ptxc(&[
            "run",
            cubin.to_str().unwrap(),
            "--launch",
            toml.to_str().unwrap(),
            "--mode",
            engine,
        ]);
        assert!(!o.status.success(), "{engine}: {}", text(&o.stdout));
        let e = text(&o.stderr);
        assert!(
            e.contains("kernel `cluster_deadlock`, block (0, 0, 0)")
                && e.contains("barrier deadlock: threads wait at the cluster barrier")
                && e.contains("rank 0 of a cluster of 2"),
            "{engine}: {e}"
        );
    }
}

#[test]
fn a_shared_cta_load_from_another_cta_faults() {
    let dir = scratch("sim_hopper_cluster_peer_lds");
    let cubin = cubin("cta_load_of_peer", &dir);
    let spec = "kernel = \"cta_load_of_peer\"\ngrid = [2]\nblock = [32]\ncluster = [2]\n\
                params = [ { ptr = \"out\" } ]\n[buffers.out]\ndtype = \"u32\"\nlen = 1\n";
    let e = run_error(&dir, &cubin, spec);
    assert!(
        e.contains("LDS") && e.contains("reaches the shared memory of the cluster's CTA of rank 1"),
        "{e}"
    );
    // Without clusters the other rank does not exist: an out-of-bounds access.
    let alone = spec.replace("cluster = [2]\n", "");
    let e = run_error(&dir, &cubin, &alone);
    assert!(e.contains("out-of-bounds shared access"), "{e}");
}

#[test]
fn a_kernels_cluster_directives_shape_and_check_its_launches() {
    let dir = scratch("sim_hopper_cluster_directives");
    let source = std::fs::read_to_string(root().join("tests/hopper_cluster/cluster_ids.ptx")).unwrap();
    let with = |directives: &str, name: &str| {
        let ptx = dir.join(format!("{name}.ptx"));
        let text = source.replace(
            ".entry cluster_ids(.param .u64 out)",
            &format!(".entry cluster_ids(.param .u64 out) {directives}"),
        );
        std::fs::write(&ptx, text).unwrap();
        let out = dir.join(format!("{name}.cubin"));
        ptxas_for("sm_90", &ptx, &out);
        out
    };
    let spec = |cluster: &str| {
        format!(
            "kernel = \"cluster_ids\"\ngrid = [8]\nblock = [32]\n{cluster}params = [ {{ ptr = \"out\" }} ]\n\
             [buffers.out]\ndtype = \"u32\"\nlen = 160\n"
        )
    };
    // `.reqnctapercluster 2, 1, 1`: a launch without a shape gets the kernel's.
    let fixed = with(".reqnctapercluster 2, 1, 1", "fixed");
    for engine in ENGINES {
        let out = &run_words(&dir, &fixed, &spec(""), engine, &["out"])[0];
        for x in 0..8u32 {
            let want = expected_ids([x, 0, 0], [8, 1, 1], [2, 1, 1], true);
            assert_eq!(
                &out[x as usize * 20..x as usize * 20 + 20],
                &want[..],
                "{engine}: CTA {x}"
            );
        }
    }
    let e = run_error(&dir, &fixed, &spec("cluster = [4]\n"));
    assert!(e.contains("compiled for [2, 1, 1]"), "{e}");
    let explicit = with(".explicitcluster", "explicit");
    let e = run_error(&dir, &explicit, &spec(""));
    assert!(
        e.contains("`.explicitcluster` needs a launch with a cluster shape"),
        "{e}"
    );
    let capped = with(".maxclusterrank 2", "capped");
    let e = run_error(&dir, &capped, &spec("cluster = [4]\n"));
    assert!(e.contains("exceeds its `.maxclusterrank` of 2"), "{e}");
}

#[test]
fn a_bulk_copy_moves_shared_memory_into_another_cta_and_completes_its_barrier() {
    let dir = scratch("sim_hopper_cluster_bulk");
    let cubin = cubin("bulk_to_peer", &dir);
    let clusters = 4u32;
    let spec = format!(
        "kernel = \"bulk_to_peer\"\ngrid = [{}]\nblock = [64]\ncluster = [2]\nparams = [ {{ ptr = \"out\" }} ]\n\
         [buffers.out]\ndtype = \"u32\"\nlen = {}\n",
        2 * clusters,
        64 * clusters
    );
    for engine in ENGINES {
        let out = &run_words(&dir, &cubin, &spec, engine, &["out"])[0];
        for c in 0..clusters {
            let want: Vec<u32> = (0..64).map(|t| 2 * c * 1000 + t).collect();
            assert_eq!(
                &out[(64 * c) as usize..(64 * c + 64) as usize],
                &want[..],
                "{engine}: cluster {c}"
            );
        }
    }
}

#[test]
fn multicast_copies_fill_every_cta_of_the_cluster() {
    let dir = scratch("sim_hopper_cluster_multicast");
    let cubin = cubin("tma_multicast", &dir);
    let (clusters, size) = (3u32, 4u32);
    let ctas = clusters * size;
    let t: Vec<u32> = (0..16 * 16 * clusters)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let src: Vec<u32> = (0..64).map(|i| 7 * i + 1).collect();
    u32_file(dir.join("t.npy"), &t);
    u32_file(dir.join("src.npy"), &src);
    let spec = format!(
        "kernel = \"tma_multicast\"\ngrid = [{ctas}]\nblock = [64]\ncluster = [{size}]\n\
         params = [ {{ ptr = \"out\" }}, {{ ptr = \"src\" }}, {{ tensormap = {{ buffer = \"t\", dtype = \"u32\", dims = [{}, 16], box = [16, 16] }} }} ]\n\
         [buffers.out]\ndtype = \"u32\"\nlen = {}\n[buffers.src]\nfile = \"src.npy\"\n[buffers.t]\nfile = \"t.npy\"\n",
        16 * clusters,
        ctas * 320
    );
    for engine in ENGINES {
        let out = &run_words(&dir, &cubin, &spec, engine, &["out"])[0];
        for c in 0..ctas {
            let k = c / size;
            let part = &out[(c * 320) as usize..(c * 320 + 320) as usize];
            // The box at x = 16k: tile[y][x] = t[y][16k + x], the tensor 16 * clusters wide.
            let tile: Vec<u32> = (0..256)
                .map(|i| t[((i / 16) * 16 * clusters + 16 * k + i % 16) as usize])
                .collect();
            assert_eq!(&part[..256], &tile[..], "{engine}: CTA {c}'s tile");
            assert_eq!(&part[256..], &src[..], "{engine}: CTA {c}'s line");
        }
    }
}

#[test]
fn generic_64_bit_atomics_on_shared_memory_happen_once() {
    let dir = scratch("sim_hopper_cluster_generic_atomics");
    let theirs = cubin("generic_atomics", &dir);
    let ours = dir.join("ptxc.cubin");
    let o = ptxc_compile("sm_90", &root().join("tests/hopper_cluster/generic_atomics.ptx"), &ours);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let spec = "kernel = \"generic_atomics\"\ngrid = [1]\nblock = [1]\nparams = [ { ptr = \"out\" } ]\n\
                [buffers.out]\ndtype = \"u32\"\nlen = 6\n";
    for cubin in [&theirs, &ours] {
        for engine in ENGINES {
            let out = &run_words(&dir, cubin, spec, engine, &["out"])[0];
            assert_eq!(out, &[5, 0, 7, 0, 8, 0], "{engine}, {}", cubin.display());
        }
    }
}
