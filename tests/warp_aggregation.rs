//! Warp-aggregated atomics (`backend/src/isel/aggregate.rs`): atomics on a warp-uniform
//! address, reached by partial warps (a per-thread guard) and by full ones, give on the
//! simulator the results of the threads running one after the other (lowest lane first in a
//! warp; the warps in any order), as the MIR interpreter and the code without aggregation
//! (`--disable warp-aggregation`) give them, without hazards; the inserted
//! warp-wide instructions are listed in `EIATTR_INT_WARP_WIDE_INSTR_OFFSETS` and not in
//! `EIATTR_COOP_GROUP_INSTR_OFFSETS`, and an atomic only `%tid.x == 0` reaches is left
//! alone, as ptxas does.

mod common;

use common::*;

/// Each thread below `n` (a per-thread guard: warps run partly) adds the parameter `k` to
/// `out[0]` and keeps the old value in `out[8 + tid]`, adds `k` to `out[1]` without using
/// the result, takes the minimum and maximum of its `tid ^ 13` into shared words copied to
/// `out[2]` and `out[3]`, and the maximum into `out[4]` directly; thread 0 alone adds 1 to
/// `out[5]`; each thread below `n` also adds 1 to `out[6]`, keeping the old value in
/// `out[104 + tid]`.
const KERNEL: &str = r#"
.version 7.0
.target sm_75
.address_size 64
.visible .entry agg(.param .u64 out, .param .u32 k, .param .u32 n)
{
    .reg .u32 %r<16>;
    .reg .u64 %rd<8>;
    .reg .pred %p<4>;
    .shared .align 4 .u32 lo;
    .shared .align 4 .u32 hi;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    ld.param.u32 %r1, [k];
    ld.param.u32 %r2, [n];
    mov.u32 %r3, %tid.x;
    setp.ne.u32 %p1, %r3, 0;
    @%p1 bra INIT_DONE;
    mov.u32 %r4, 1000;
    st.shared.u32 [lo], %r4;
    mov.u32 %r4, 0;
    st.shared.u32 [hi], %r4;
INIT_DONE:
    bar.sync 0;
    setp.ge.u32 %p2, %r3, %r2;
    @%p2 bra SKIP;
    atom.global.add.u32 %r5, [%rd2], %r1;
    mul.wide.u32 %rd3, %r3, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4+32], %r5;
    atom.global.add.u32 %r13, [%rd2+24], 1;
    st.global.u32 [%rd4+416], %r13;
    red.global.add.u32 [%rd2+4], %r1;
    xor.b32 %r6, %r3, 13;
    atom.shared.min.u32 %r7, [lo], %r6;
    atom.shared.max.s32 %r8, [hi], %r6;
    atom.global.max.u32 %r9, [%rd2+16], %r6;
SKIP:
    bar.sync 0;
    @%p1 bra DONE;
    ld.shared.u32 %r10, [lo];
    st.global.u32 [%rd2+8], %r10;
    ld.shared.u32 %r11, [hi];
    st.global.u32 [%rd2+12], %r11;
    atom.global.add.u32 %r12, [%rd2+20], 1;
DONE:
    ret;
}
"#;

/// Threads per block.
const THREADS: u32 = 96;

fn spec(n: u32) -> String {
    format!(
        "kernel = \"agg\"\ngrid = [1]\nblock = [{THREADS}]\n\
         params = [ {{ ptr = \"out\" }}, {{ u32 = 7 }}, {{ u32 = {n} }} ]\n\
         [buffers.out]\ndtype = \"u32\"\nlen = {}\n",
        8 + 2 * THREADS
    )
}

/// Checks `got` against what the kernel stores when threads `0..n` run one after the other,
/// warp by warp in some order (the warps of a block run in any order), lowest lane first in
/// a warp: the old values each warp's threads get are consecutive multiples of the operand,
/// and all of them together are every multiple below `n` once.
fn check(got: &[u32], n: u32, what: &str) {
    let want = expected(n);
    let (scalars, olds) = got.split_at(8);
    assert_eq!(scalars, &want[..8], "{what}: the words at out[0..8]");
    for (base, step) in [(0usize, 7u32), (THREADS as usize, 1)] {
        let olds = &olds[base..base + THREADS as usize];
        let mut all: Vec<u32> = olds[..n as usize].to_vec();
        all.sort_unstable();
        let every: Vec<u32> = (0..n).map(|t| step * t).collect();
        assert_eq!(all, every, "{what}: old values of the adds of {step}");
        for t in 1..n as usize {
            if t % 32 != 0 {
                assert_eq!(olds[t], olds[t - 1] + step, "{what}: thread {t}, adds of {step}");
            }
        }
        assert!(olds[n as usize..].iter().all(|&v| v == 0), "{what}: threads from {n}");
    }
}

/// What the kernel stores when threads `0..n` run one after the other, lowest first.
fn expected(n: u32) -> Vec<u32> {
    let mut out = vec![0u32; (8 + 2 * THREADS) as usize];
    let vals: Vec<u32> = (0..n).map(|t| t ^ 13).collect();
    out[0] = 7 * n;
    out[1] = 7 * n;
    out[2] = vals.iter().copied().min().unwrap_or(1000).min(1000);
    out[3] = vals.iter().copied().max().unwrap_or(0);
    out[4] = out[3];
    out[5] = 1;
    out[6] = n;
    for t in 0..n {
        out[(8 + t) as usize] = 7 * t;
        out[(8 + THREADS + t) as usize] = t;
    }
    out
}

/// Compiles the kernel for `arch` with `extra` options.
fn compile(dir: &std::path::Path, arch: &str, extra: &[&str], name: &str) -> std::path::PathBuf {
    let ptx = dir.join("agg.ptx");
    std::fs::write(&ptx, KERNEL).unwrap();
    let cubin = dir.join(name);
    let mut args = vec![
        "compile",
        "--arch",
        arch,
        ptx.to_str().unwrap(),
        "-o",
        cubin.to_str().unwrap(),
    ];
    args.extend(extra);
    let o = ptxc(&args);
    assert!(o.status.success(), "{}", text(&o.stderr));
    cubin
}

#[test]
fn aggregated_atomics_give_the_results_of_threads_in_order() {
    for arch in ["sm_75", "sm_80"] {
        let dir = scratch(&format!("warp_aggregation_{arch}"));
        let on = compile(&dir, arch, &[], "on.cubin");
        let off = compile(&dir, arch, &["--disable", "warp-aggregation"], "off.cubin");
        // 96 threads: three full warps; 45: one full, one partial and one idle warp; 1: one
        // thread.
        for n in [96, 45, 1] {
            let mir = &run_words(&dir, &dir.join("agg.ptx"), &spec(n), "mir", &["out"])[0];
            check(mir, n, &format!("{arch} n={n}: MIR interpreter"));
            for engine in ["functional", "timed"] {
                let got = &run_words(&dir, &on, &spec(n), engine, &["out"])[0];
                check(got, n, &format!("{arch} n={n}: {engine}, aggregated"));
                let got = &run_words(&dir, &off, &spec(n), engine, &["out"])[0];
                check(got, n, &format!("{arch} n={n}: {engine}, not aggregated"));
            }
        }
    }
}

#[test]
fn inserted_warp_wide_instructions_are_listed_apart_from_warp_operations() {
    for arch in ["sm_75", "sm_80", "sm_90"] {
        let dir = scratch(&format!("warp_aggregation_attrs_{arch}"));
        let read = |c: &std::path::Path| {
            let m = ptxc_sass::cubin::read(&std::fs::read(c).unwrap()).unwrap();
            m.kernels.into_iter().find(|k| k.name == "agg").unwrap()
        };
        let on = read(&compile(&dir, arch, &[], "on.cubin"));
        let off = read(&compile(&dir, arch, &["--disable", "warp-aggregation"], "off.cubin"));
        assert!(!on.int_warp_wide_offsets.is_empty(), "{arch}");
        assert!(on.coop_group_offsets.is_empty(), "{arch}: {:?}", on.coop_group_offsets);
        assert!(off.int_warp_wide_offsets.is_empty(), "{arch}");
        let listing = text(&ptxc(&["disasm", dir.join("on.cubin").to_str().unwrap()]).stdout);
        for off in &on.int_warp_wide_offsets {
            let tag = format!("/*{off:04x}*/");
            let line = listing.lines().find(|l| l.contains(&tag)).unwrap();
            assert!(
                ["VOTE", "SHFL", "REDUX"].iter().any(|op| line.contains(op)),
                "{arch}: {line}"
            );
        }
        // Thread 0's own `atom.global.add` (behind `%tid.x != 0`) stays one ATOM/RED per
        // thread: the last atomic of the listing is unguarded.
        let last = listing
            .lines()
            .rfind(|l| ["RED.E", "REDG.E", "ATOMG.E"].iter().any(|op| l.contains(op)))
            .unwrap();
        assert!(!last.contains("@P"), "{arch}: {last}");
    }
}
