//! ptxc's own Hopper code beyond the matmuls of `sim_hopper_wgmma.rs`: `stmatrix` (STSM) gives
//! the same shared-memory image on the simulator as the MIR interpreter's reading of the PTX
//! ISA (every lane's registers, with and without `.trans`); an accumulator that would have
//! to survive the `wgmma` that overwrites its registers is refused with its location rather
//! than miscompiled; and `elect.sync` (ELECT) elects one thread per warp under divergence,
//! alike in ptxas's cubin, ptxc's and the MIR engine.

mod common;

use common::*;

/// A kernel that stores `{lane * 4 + k + (lane << 16)}` (k = 0..3) of each lane with
/// `stmatrix.x4` (`trans` or not) into shared memory, row `r` of matrix `m` at
/// `(8m + r) * 16` bytes, and copies the 512 bytes out.
fn stmatrix_ptx(trans: bool) -> String {
    let t = if trans { ".trans" } else { "" };
    format!(
        r#".version 8.0
.target sm_90
.address_size 64
.visible .entry stsm(.param .u64 out) {{
  .shared .align 16 .b8 tile[512];
  .reg .b32 %r<16>;
  .reg .b64 %rd<6>;
  mov.u32 %r0, %tid.x;
  shl.b32 %r1, %r0, 2;
  shl.b32 %r2, %r0, 16;
  add.s32 %r3, %r1, %r2;
  add.s32 %r4, %r3, 1;
  add.s32 %r5, %r3, 2;
  add.s32 %r6, %r3, 3;
  shl.b32 %r7, %r0, 4;
  mov.u32 %r8, tile;
  add.s32 %r9, %r8, %r7;
  stmatrix.sync.aligned.m8n8.x4{t}.shared.b16 [%r9], {{%r3, %r4, %r5, %r6}};
  bar.sync 0;
  add.s32 %r10, %r8, %r7;
  ld.shared.v4.b32 {{%r11, %r12, %r13, %r14}}, [%r10];
  ld.param.u64 %rd0, [out];
  cvta.to.global.u64 %rd1, %rd0;
  mul.wide.u32 %rd2, %r0, 16;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.b32 [%rd3], {{%r11, %r12, %r13, %r14}};
  ret;
}}
"#
    )
}

#[test]
fn stmatrix_stores_as_the_ptx_isa_says_on_the_simulator_and_the_mir_engine() {
    for trans in [false, true] {
        let dir = scratch(&format!("hopper_compile_stsm_{trans}"));
        let ptx = dir.join("stsm.ptx");
        std::fs::write(&ptx, stmatrix_ptx(trans)).unwrap();
        let spec = dir.join("stsm.toml");
        std::fs::write(
            &spec,
            "kernel = \"stsm\"\ngrid = [1, 1, 1]\nblock = [32, 1, 1]\nparams = [ { ptr = \"out\" } ]\n\
             [buffers.out]\ndtype = \"u32\"\nlen = 128\n",
        )
        .unwrap();
        let mut outs = Vec::new();
        for engine in ["sim", "mir"] {
            let out = dir.join(engine);
            let o = ptxc(&[
                "run",
                ptx.to_str().unwrap(),
                "--arch",
                "sm_90",
                "--launch",
                spec.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--engine",
                engine,
            ]);
            assert!(o.status.success(), "{engine}: {}{}", text(&o.stdout), text(&o.stderr));
            outs.push(std::fs::read(out.join("out.npy")).unwrap());
        }
        assert_eq!(
            outs[0],
            outs[1],
            "stmatrix{}: simulator and MIR engine differ",
            if trans { ".trans" } else { "" }
        );
        // Not transposed, lane 4g + t's register m holds row g, columns 2t and 2t + 1 of
        // matrix m: row 0 of matrix 0 is lanes 0..3's first registers.
        let words: Vec<u32> = outs[0][outs[0].len() - 512..]
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        // Word 1 is columns 2 and 3 of row 0 of matrix 0. Not transposed, lane 4g + t's
        // register m holds row g, columns 2t and 2t + 1 of matrix m: lane 1's first register
        // (4 | 1 << 16). Transposed, it holds column g, rows 2t and 2t + 1: columns 2 and 3
        // of row 0 are the low halves of lanes 8 and 12 (32 and 48).
        let expected = if trans { 32 | 48 << 16 } else { 4 | 1 << 16 };
        let what = if trans { "stmatrix.trans" } else { "stmatrix" };
        assert_eq!(words[1], expected, "{what}: word 1 {:#x}", words[1]);
    }
}

/// The accumulator of an `m64n32k16.f32` wgmma: `{%f0, ..., %f15}`.
fn accumulator16() -> String {
    let regs: Vec<String> = (0..16).map(|i| format!("%f{i}")).collect();
    format!("{{{}}}", regs.join(", "))
}

/// Compiles kernel `name` (`ptx`) for sm_90a, which must fail without writing a cubin: the
/// error output.
fn refusal(name: &str, ptx: &str) -> String {
    let dir = scratch(&format!("hopper_compile_{name}"));
    let path = dir.join(format!("{name}.ptx"));
    std::fs::write(&path, ptx).unwrap();
    let cubin = dir.join(format!("{name}.cubin"));
    let o = ptxc_compile("sm_90a", &path, &cubin);
    assert!(!o.status.success(), "{name} compiled");
    assert!(!cubin.exists(), "{name}: a cubin was written");
    text(&o.stderr)
}

#[test]
fn an_accumulator_used_after_it_is_overwritten_is_refused_with_its_location() {
    let acc = accumulator16();
    let ptx = format!(
        r#".version 8.0
.target sm_90a
.address_size 64
.visible .entry keep_old(.param .u64 out, .param .u64 da, .param .u64 db) {{
  .reg .f32 %f<20>;
  .reg .b64 %rd<6>;
  .reg .pred %p<2>;
  ld.param.u64 %rd0, [da];
  ld.param.u64 %rd1, [db];
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {acc}, %rd0, %rd1, 0, 1, 1, 0, 0;
  mov.f32 %f17, %f0;
  wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {acc}, %rd0, %rd1, 1, 1, 1, 0, 0;
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
  ld.param.u64 %rd2, [out];
  st.global.f32 [%rd2], %f17;
  st.global.f32 [%rd2+4], %f0;
  ret;
}}
"#
    );
    let err = refusal("keep_old", &ptx);
    assert!(
        err.contains("overwritten while its old value is still used") && err.contains("keep_old"),
        "{err}"
    );
}

/// `elect.sync` under divergence (`tests/hopper/elect.ptx`): ptxas's cubin and ptxc's on the
/// simulator and the MIR engine agree, and in each warp exactly one participating thread is
/// the leader, every participant gets the leader's lane, and the others are untouched.
#[test]
fn elect_sync_elects_one_participating_thread_per_warp() {
    let dir = scratch("hopper_compile_elect");
    let ptx = root().join("tests/hopper/elect.ptx");
    let spec = dir.join("elect.toml");
    let threads = 96u32;
    std::fs::write(
        &spec,
        format!(
            "kernel = \"elect_some\"\ngrid = [1, 1, 1]\nblock = [{threads}, 1, 1]\n\
             params = [ {{ ptr = \"out\" }} ]\n[buffers.out]\ndtype = \"u32\"\nlen = {}\n",
            2 * threads
        ),
    )
    .unwrap();
    let ptxas_cubin = dir.join("elect.ptxas.cubin");
    ptxas_for("sm_90", &ptx, &ptxas_cubin);
    let ptxc_cubin = dir.join("elect.ptxc.cubin");
    let o = ptxc_compile("sm_90", &ptx, &ptxc_cubin);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let runs: [(&str, &std::path::Path, &[&str]); 3] = [
        ("ptxas", &ptxas_cubin, &[]),
        ("ptxc", &ptxc_cubin, &[]),
        ("mir", &ptx, &["--arch", "sm_90", "--engine", "mir"]),
    ];
    let mut outs = Vec::new();
    for (what, input, extra) in runs {
        let out = dir.join(what);
        let mut args = vec!["run", input.to_str().unwrap(), "--launch", spec.to_str().unwrap()];
        args.extend(["--out", out.to_str().unwrap()]);
        args.extend(extra);
        let o = ptxc(&args);
        assert!(o.status.success(), "{what}: {}", text(&o.stderr));
        assert!(
            text(&o.stdout).contains("hazards 0") || *what == *"mir",
            "{what}: {}",
            text(&o.stdout)
        );
        outs.push(std::fs::read(out.join("out.npy")).unwrap());
    }
    assert_eq!(outs[0], outs[1], "ptxas's and ptxc's cubins differ");
    assert_eq!(outs[0], outs[2], "the simulator and the MIR engine differ");
    let bytes = &outs[0][outs[0].len() - 8 * threads as usize..];
    let words: Vec<u32> = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for warp in 0..threads / 32 {
        let lanes: Vec<u32> = (0..32).filter(|l| (warp * 32 + l) % 3 != 0).collect();
        let at = |l: u32| ((warp * 32 + l) * 2) as usize;
        let leaders: Vec<u32> = lanes.iter().copied().filter(|&l| words[at(l) + 1] == 1).collect();
        assert_eq!(leaders.len(), 1, "warp {warp}: leaders {leaders:?}");
        for &l in &lanes {
            assert_eq!(words[at(l)], leaders[0], "warp {warp} lane {l}: elected lane");
        }
        for l in (0..32).filter(|l| (warp * 32 + l) % 3 == 0) {
            assert_eq!(
                (words[at(l)], words[at(l) + 1]),
                (u32::MAX, u32::MAX),
                "warp {warp} lane {l}"
            );
        }
    }
}

/// A kernel with a `wgmma` that also calls `vprintf` is refused: the call's registers (its
/// arguments in R4 and up) would collide with the pinned accumulators.
#[test]
fn wgmma_beside_a_driver_call_is_refused() {
    let ptx = format!(
        r#".version 8.0
.target sm_90a
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 1 .b8 fmt[3] = {{37, 102, 0}};
.visible .entry with_printf(.param .u64 da, .param .u64 db) {{
  .reg .f32 %f<20>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd0, [da];
  ld.param.u64 %rd1, [db];
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {}, %rd0, %rd1, 0, 1, 1, 0, 0;
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
  mov.u64 %rd2, fmt;
  cvta.global.u64 %rd3, %rd2;
  {{
    .param .b64 param0;
    st.param.b64 [param0], %rd3;
    .param .b64 param1;
    st.param.b64 [param1], 0;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
  }}
  ret;
}}
"#,
        accumulator16()
    );
    let err = refusal("with_printf", &ptx);
    assert!(err.contains("wgmma in a kernel that calls driver functions"), "{err}");
}

/// Runs `input` (a cubin, or PTX with `extra` arguments) on the launch `spec`; the bytes of
/// buffer `out`, or the error output when the run fails.
fn run_out(
    dir: &std::path::Path,
    what: &str,
    input: &std::path::Path,
    spec: &std::path::Path,
    extra: &[&str],
) -> Result<Vec<u8>, String> {
    let out = dir.join(what);
    let mut args = vec!["run", input.to_str().unwrap(), "--launch", spec.to_str().unwrap()];
    args.extend(["--out", out.to_str().unwrap()]);
    args.extend(extra);
    let o = ptxc(&args);
    if !o.status.success() {
        return Err(text(&o.stderr));
    }
    Ok(std::fs::read(out.join("out.npy")).unwrap())
}

/// The u32 words at the end of an `.npy` file of `n` words.
fn npy_words(bytes: &[u8], n: usize) -> Vec<u32> {
    words(&bytes[bytes.len() - 4 * n..])
}

/// mbarrier transaction counts (`tests/hopper/mbarrier_tx.ptx`): `arrive.expect_tx`,
/// `expect_tx` and `complete_tx` make each phase wait for its bytes as well as its arrivals.
/// ptxas's cubin and ptxc's (both engines) and the MIR engine give what the PTX ISA says:
/// every thread sees warp 1's words of each phase, and the barrier is back at phase 0 with
/// its count reloaded. With 4 of the expected bytes never completed, the kernel never gets
/// past its first wait.
#[test]
fn mbarrier_phases_wait_for_their_transaction_bytes() {
    let dir = scratch("hopper_compile_mbarrier_tx");
    let ptx = root().join("tests/hopper/mbarrier_tx.ptx");
    let spec = dir.join("tx.toml");
    std::fs::write(
        &spec,
        "kernel = \"mbarrier_tx\"\ngrid = [1, 1, 1]\nblock = [64, 1, 1]\nparams = [ { ptr = \"out\" } ]\n\
         [buffers.out]\ndtype = \"u32\"\nlen = 130\n",
    )
    .unwrap();
    let ptxas_cubin = dir.join("tx.ptxas.cubin");
    ptxas_for("sm_90", &ptx, &ptxas_cubin);
    let ptxc_cubin = dir.join("tx.ptxc.cubin");
    let o = ptxc_compile("sm_90", &ptx, &ptxc_cubin);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let functional: &[&str] = &["--mode", "functional"];
    let runs: [(&str, &std::path::Path, &[&str]); 5] = [
        ("ptxas", &ptxas_cubin, &[]),
        ("ptxas_functional", &ptxas_cubin, functional),
        ("ptxc", &ptxc_cubin, &[]),
        ("ptxc_functional", &ptxc_cubin, functional),
        ("mir", &ptx, &["--arch", "sm_90", "--engine", "mir"]),
    ];
    for (what, input, extra) in runs {
        let bytes = run_out(&dir, what, input, &spec, extra).unwrap_or_else(|e| panic!("{what}: {e}"));
        let words = npy_words(&bytes, 130);
        for t in 0..64 {
            let word = 3 * (t % 32) + 7;
            assert_eq!(words[t as usize], word, "{what}: phase 0, thread {t}");
            assert_eq!(words[64 + t as usize], 2 * word, "{what}: phase 1, thread {t}");
        }
        // init of 1: the expected count (2^20 - 1) << 1, the pending count reloaded as
        // (2^20 - 1) << 11 in the high word, phase 0 after two phases, no bytes pending.
        assert_eq!(
            (words[128], words[129]),
            ((0xf_ffff << 1), (0xf_ffff << 11)),
            "{what}: the barrier"
        );
    }
    let short = dir.join("short.ptx");
    let src = std::fs::read_to_string(&ptx).unwrap();
    std::fs::write(&short, src.replace("[bar], 128;", "[bar], 132;")).unwrap();
    let short_cubin = dir.join("short.cubin");
    let o = ptxc_compile("sm_90", &short, &short_cubin);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let limit: &[&str] = &["--mode", "functional", "--max-instructions", "100000"];
    let err =
        run_out(&dir, "short", &short_cubin, &spec, limit).expect_err("the first phase completed without its bytes");
    assert!(err.contains("instruction limit"), "{err}");
}

/// Two kernels with the cluster directives (sm_90) and no cluster instruction.
const CLUSTER_DIRECTIVES: &str = r#".version 8.0
.target sm_90
.address_size 64
.visible .entry pairs(.param .u64 out)
.explicitcluster
.reqnctapercluster 2, 1, 1
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<4>;
  mov.u32 %r0, %tid.x;
  ld.param.u64 %rd0, [out];
  mul.wide.u32 %rd1, %r0, 4;
  add.s64 %rd2, %rd0, %rd1;
  st.global.u32 [%rd2], %r0;
  ret;
}
.visible .entry ranked(.param .u64 out)
.maxclusterrank 4
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<4>;
  mov.u32 %r0, %tid.x;
  ld.param.u64 %rd0, [out];
  mul.wide.u32 %rd1, %r0, 4;
  add.s64 %rd2, %rd0, %rd1;
  st.global.u32 [%rd2], %r0;
  ret;
}
"#;

/// `.explicitcluster`, `.reqnctapercluster` and `.maxclusterrank` reach the cubin as ptxas
/// writes them (`EIATTR_EXPLICIT_CLUSTER`, `EIATTR_CTA_PER_CLUSTER`,
/// `EIATTR_MAX_CLUSTER_RANK`); before sm_90 they are refused with their location.
#[test]
fn cluster_directives_give_ptxas_cluster_attributes() {
    let dir = scratch("hopper_compile_cluster_directives");
    let ptx = dir.join("cluster.ptx");
    std::fs::write(&ptx, CLUSTER_DIRECTIVES).unwrap();
    let (theirs, ours) = both_cubins("sm_90", &ptx, &dir);
    let kernels = |cubin: &std::path::Path| ptxc_sass::cubin::read(&std::fs::read(cubin).unwrap()).unwrap().kernels;
    let (theirs, ours) = (kernels(&theirs), kernels(&ours));
    for name in ["pairs", "ranked"] {
        let t = theirs.iter().find(|k| k.name == name).unwrap();
        let o = ours.iter().find(|k| k.name == name).unwrap();
        let cluster = |k: &ptxc_sass::cubin::KernelImage| (k.explicit_cluster, k.cluster_dims, k.max_cluster_rank);
        assert_eq!(cluster(o), cluster(t), "{name}");
    }
    let pairs = ours.iter().find(|k| k.name == "pairs").unwrap();
    assert_eq!((pairs.explicit_cluster, pairs.cluster_dims), (true, Some([2, 1, 1])));
    let old = dir.join("old.ptx");
    std::fs::write(&old, CLUSTER_DIRECTIVES.replace(".target sm_90", ".target sm_80")).unwrap();
    let cubin = dir.join("old.cubin");
    let o = ptxc_compile("sm_80", &old, &cubin);
    assert!(!o.status.success() && !cubin.exists(), "compiled for sm_80");
    let err = text(&o.stderr);
    assert!(
        err.contains("`.reqnctapercluster` needs sm_90") && err.contains("old.ptx:4"),
        "{err}"
    );
}

/// `setmaxnreg` (`tests/hopper/setmaxnreg.ptx`): ptxas keeps it (USETMAXREG, its retry loop),
/// ptxc compiles the kernel with one register count and says so; both cubins store every
/// thread's index on the simulator. A count outside the PTX ISA's range is refused.
#[test]
fn setmaxnreg_is_kept_by_ptxas_and_reported_as_ignored_by_ptxc() {
    let dir = scratch("hopper_compile_setmaxnreg");
    let ptx = root().join("tests/hopper/setmaxnreg.ptx");
    let theirs = dir.join("ptxas.cubin");
    ptxas_for("sm_90a", &ptx, &theirs);
    let sass = text(&oracle("nvdisasm", &["-c", theirs.to_str().unwrap()]).stdout);
    assert!(sass.contains("USETMAXREG.TRY_ALLOC.CTAPOOL UP0, 0xf0"), "{sass}");
    let ours = dir.join("ptxc.cubin");
    let o = ptxc_compile("sm_90a", &ptx, &ours);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("`setmaxnreg` ignored"), "{}", text(&o.stderr));
    let spec = dir.join("smr.toml");
    std::fs::write(
        &spec,
        "kernel = \"smr\"\ngrid = [2]\nblock = [128]\nparams = [ { ptr = \"out\" } ]\n[buffers.out]\ndtype = \"u32\"\nlen = 128\n",
    )
    .unwrap();
    for (what, cubin) in [("ptxas", &theirs), ("ptxc", &ours)] {
        let bytes = run_out(&dir, what, cubin, &spec, &[]).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(npy_words(&bytes, 128), (0..128).collect::<Vec<u32>>(), "{what}");
    }
    let bad = dir.join("bad.ptx");
    std::fs::write(
        &bad,
        std::fs::read_to_string(&ptx).unwrap().replace("u32 240;", "u32 250;"),
    )
    .unwrap();
    let o = ptxc_compile("sm_90a", &bad, &dir.join("bad.cubin"));
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("multiple of 8 from 24 to 256"),
        "{}",
        text(&o.stderr)
    );
}

/// What ptxas 13.5 writes for each cluster construct, as nvdisasm prints it, in ptxc's cubin
/// of each cluster kernel: the special registers from `SR_CgaCtaId` and the launch's cluster
/// words; `mapa` as PRMT with 0x654; `.shared::cluster` accesses as generic ones at
/// `{a, SR_SWINHI}`; `isspacep.shared::cluster` as QSPC.E.D; arrivals on another CTA's
/// mbarrier as SYNCS.ARRIVE.TRANS64.RED after the cluster's release fence; the cluster fences;
/// the cluster barrier behind the launch's cluster word.
const CLUSTER_FORMS: &[(&str, &[&str])] = &[
    (
        "hopper_isa/cluster_sregs",
        &[
            "SR_CgaCtaId",
            "c[0x0][0x140]",
            "c[0x0][0x144]",
            "c[0x0][0x148]",
            "c[0x0][0x14c]",
            "c[0x0][0x15c]",
            "c[0x0][0x160]",
            "c[0x0][0x164]",
            "c[0x0][0x188]",
        ],
    ),
    (
        "hopper_isa/cluster_memory",
        &[
            "SR_CgaCtaId",
            ", 0x654, ",
            "SR_SWINHI",
            "LD.E R",
            "ST.E [R",
            "LD.E.64 R",
            "ATOM.E.ADD.STRONG.GPU PT, R",
            "ATOM.E.CAS.STRONG.GPU PT, R",
            "ATOM.E.EXCH.64.STRONG.GPU PT, R",
            "ATOM.E.ADD.STRONG.GPU PT, RZ, [R",
            "ATOM.E.MAX.S32.STRONG.GPU PT, RZ, [R",
            "QSPC.E.D P",
            "SYNCS.ARRIVE.TRANS64.RED.A1T0 RZ, [R",
            "SYNCS.ARRIVE.TRANS64.RED.ART0 RZ, [R",
            "SYNCS.ARRIVE.TRANS64.RED RZ, [R",
            "SYNCS.ARRIVE.TRANS64.RED.A0TR RZ, [R",
            "SYNCS.ARRIVE.TRANS64.RED.A0TX RZ, [R",
            "MEMBAR.ALL.CTA",
            "MEMBAR.ALL.GPU",
            "MEMBAR.SC.GPU",
            "CGAERRBAR",
            "CCTL.IVALL",
            "FENCE.VIEW.ASYNC.S",
            "FENCE.VIEW.ASYNC.G",
        ],
    ),
    (
        "hopper_isa/cluster_barrier",
        &["c[0x0][0x140]", "UCGABAR_ARV", "UCGABAR_WAIT", "BAR.SYNC", "CGAERRBAR"],
    ),
    ("hopper/cluster_ids", &["SR_CgaCtaId", "c[0x0][0x144]", "c[0x0][0x15c]"]),
    (
        "hopper/cluster_dsmem",
        &[
            "UCGABAR_ARV",
            "UCGABAR_WAIT",
            ", 0x654, ",
            "LD.E R",
            "ST.E [R",
            "ATOM.E.CAS",
            "QSPC.E.D",
        ],
    ),
    (
        "hopper/cluster_mbarrier",
        &[
            "SYNCS.ARRIVE.TRANS64.RED.A1T0 RZ",
            "SYNCS.ARRIVE.TRANS64.RED.ART0 RZ",
            "UCGABAR_WAIT",
        ],
    ),
];

/// The nvdisasm listing of ptxc's cubin of `tests/<name>.ptx` for `arch` (nvdisasm must read it
/// without complaint).
fn ptxc_sass(name: &str, arch: &str, dir: &std::path::Path) -> String {
    let ptx = root().join(format!("tests/{name}.ptx"));
    let cubin = dir.join(format!("{}_{arch}.cubin", name.replace('/', "_")));
    let o = ptxc_compile(arch, &ptx, &cubin);
    assert!(o.status.success(), "{name} for {arch}: {}", text(&o.stderr));
    let nv = oracle("nvdisasm", &["-c", cubin.to_str().unwrap()]);
    assert!(
        nv.status.success() && nv.stderr.is_empty(),
        "{name}: nvdisasm: {}",
        text(&nv.stderr)
    );
    text(&nv.stdout)
}

/// ptxc compiles the cluster kernels for sm_90 and sm_90a into the SASS forms ptxas writes
/// (`CLUSTER_FORMS`), which nvdisasm reads; `tests/backend_encodings.rs` checks that every
/// instruction decodes to ptxc's own text.
#[test]
fn cluster_kernels_compile_to_ptxas_forms_on_sm90_and_sm90a() {
    let dir = scratch("hopper_compile_cluster_forms");
    for arch in ["sm_90", "sm_90a"] {
        for (name, forms) in CLUSTER_FORMS {
            if arch == "sm_90" && name.starts_with("hopper_isa") {
                continue; // `.target sm_90a`
            }
            let sass = ptxc_sass(name, arch, &dir);
            for form in *forms {
                assert!(sass.contains(form), "{name} ({arch}) lacks `{form}`:\n{sass}");
            }
        }
    }
}

/// `barrier.cluster` (`tests/hopper_isa/cluster_barrier.ptx`, six arrivals and six waits) as
/// ptxas writes it: the launch's cluster word read once, each arrival (the four without
/// `.relaxed` after `MEMBAR.ALL.GPU`, ERRBAR, CGAERRBAR) and each wait (`UCGABAR_WAIT`,
/// `CCTL.IVALL`, else `BAR.SYNC 0`) behind it.
#[test]
fn cluster_barriers_are_guarded_by_the_launch_cluster_word() {
    let dir = scratch("hopper_compile_cluster_barrier");
    let sass = ptxc_sass("hopper_isa/cluster_barrier", "sm_90a", &dir);
    let count = |s: &str| sass.matches(s).count();
    assert_eq!(count("c[0x0][0x140]"), 1, "{sass}");
    assert_eq!(count("UCGABAR_ARV"), 6, "{sass}");
    assert_eq!(count("UCGABAR_WAIT"), 6, "{sass}");
    assert_eq!(count("BAR.SYNC"), 6, "{sass}");
    assert_eq!(count("CGAERRBAR"), 4, "{sass}");
    assert_eq!(count("MEMBAR.ALL.GPU"), 4, "{sass}");
    assert_eq!(count("CCTL.IVALL"), 6, "{sass}");
}

/// The shared addresses of sm_90 (ptxas: `S2R R3, SR_CgaCtaId; LEA R0, R3, R0, 0x18`): a
/// shared variable's address taken as a value carries the CTA's rank in bits 24..31, so that
/// `ld.shared::cluster` of it reads the CTA's own memory; sm_80's code has no rank.
#[test]
fn shared_addresses_carry_the_cta_rank_on_sm90_only() {
    let dir = scratch("hopper_compile_shared_rank");
    let kernel = |target: &str, cluster: bool| {
        format!(
            ".version 8.0\n.target {target}\n.address_size 64\n.visible .entry k(.param .u64 out)\n{{\n\
             .reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.shared .align 8 .b8 buf[1024];\n\
             ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\nmov.u32 %r1, %tid.x;\n\
             mov.u32 %r4, buf;\nshl.b32 %r2, %r1, 2;\nadd.u32 %r3, %r4, %r2;\nst.shared.u32 [%r3], %r1;\n\
             mov.u64 %rd2, buf;\ncvta.shared.u64 %rd3, %rd2;\nst.global.u32 [%rd1], %r3;\n\
             st.global.u64 [%rd1+8], %rd3;\n{}ret;\n}}\n",
            if cluster {
                "ld.shared::cluster.u32 %r6, [%r3];\nst.global.u32 [%rd1+16], %r6;\n"
            } else {
                ""
            }
        )
    };
    let compile = |arch: &str, src: String| {
        let ptx = dir.join(format!("{arch}.ptx"));
        std::fs::write(&ptx, src).unwrap();
        let cubin = dir.join(format!("{arch}.cubin"));
        let o = ptxc_compile(arch, &ptx, &cubin);
        assert!(o.status.success(), "{arch}: {}", text(&o.stderr));
        text(&oracle("nvdisasm", &["-c", cubin.to_str().unwrap()]).stdout)
    };
    let sm90 = compile("sm_90", kernel("sm_90", true));
    for form in ["S2R R", "SR_CgaCtaId", "SR_SWINHI", "LD.E R"] {
        assert!(sm90.contains(form), "sm_90 lacks `{form}`:\n{sm90}");
    }
    let sm80 = compile("sm_80", kernel("sm_80", false));
    assert!(!sm80.contains("SR_CgaCtaId"), "{sm80}");
}

/// `.shared::cluster` accesses beyond the probes: vectors of four words and of two 64-bit
/// values, bytes and halves, strong (`.relaxed`, `.acquire`, `.release` at cluster scope)
/// loads and stores, f32 and 64-bit atomics and reductions, and a `.shared` variable named
/// in a `.shared::cluster` access (its own CTA's memory: LDS).
const CLUSTER_ACCESSES: &str = r#".version 8.0
.target sm_90
.address_size 64
.visible .entry accesses(.param .u64 out, .param .u32 rank)
{
  .reg .b32 %r<40>;
  .reg .b64 %rd<20>;
  .reg .f32 %f<8>;
  .reg .b16 %h<4>;
  .shared .align 16 .b8 buf[1024];
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r9, [rank];
  mov.u32 %r4, buf;
  mapa.shared::cluster.u32 %r6, %r4, %r9;
  ld.shared::cluster.v4.u32 {%r10, %r11, %r12, %r13}, [%r6+16];
  st.shared::cluster.v2.b64 [%r6+32], {%rd1, %rd1};
  atom.shared::cluster.add.f32 %f1, [%r6+48], 0f3F800000;
  atom.shared::cluster.cas.b64 %rd2, [%r6+56], %rd1, 5;
  red.shared::cluster.add.u64 [%r6+64], %rd1;
  ld.shared::cluster.u8 %r14, [%r6+1];
  mov.b16 %h1, 7;
  st.shared::cluster.u16 [%r6+2], %h1;
  ld.relaxed.cluster.shared::cluster.u32 %r15, [%r6+4];
  ld.acquire.cluster.shared::cluster.u32 %r16, [%r6+8];
  st.release.cluster.shared::cluster.u32 [%r6+12], %r16;
  atom.relaxed.cluster.shared::cluster.exch.b32 %r17, [%r6+12], 3;
  ld.shared::cluster.u32 %r18, [buf+4];
  mapa.shared::cluster.u32 %r19, buf+8, 0;
  add.u32 %r20, %r10, %r11;
  add.u32 %r20, %r20, %r12;
  add.u32 %r20, %r20, %r13;
  add.u32 %r20, %r20, %r14;
  add.u32 %r20, %r20, %r15;
  add.u32 %r20, %r20, %r17;
  add.u32 %r20, %r20, %r18;
  add.u32 %r20, %r20, %r19;
  cvt.rzi.u32.f32 %r21, %f1;
  add.u32 %r20, %r20, %r21;
  cvt.u32.u64 %r22, %rd2;
  add.u32 %r20, %r20, %r22;
  st.global.u32 [%rd1], %r20;
  ret;
}
"#;

/// ptxc compiles the accesses of `CLUSTER_ACCESSES` to generic LD/ST/ATOM at
/// `{a, SR_SWINHI}` (LDS for the variable named directly), and nvdisasm lists ptxc's cubin
/// exactly as ptxc does.
#[test]
fn shared_cluster_accesses_of_every_width_compile_to_generic_accesses() {
    let dir = scratch("hopper_compile_cluster_accesses");
    let ptx = dir.join("accesses.ptx");
    std::fs::write(&ptx, CLUSTER_ACCESSES).unwrap();
    let cubin = dir.join("accesses.cubin");
    let o = ptxc_compile("sm_90", &ptx, &cubin);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let nv = oracle("nvdisasm", &["-c", cubin.to_str().unwrap()]);
    assert!(nv.status.success() && nv.stderr.is_empty(), "{}", text(&nv.stderr));
    let sass = text(&nv.stdout);
    let ours = ptxc::disasm::disassemble(&std::fs::read(&cubin).unwrap(), false).unwrap();
    assert_eq!(listing_by_section(&sass), listing_by_section(&ours));
    for form in [
        "LD.E.128 R",
        "ST.E.128 [R",
        "ATOM.E.ADD.F32.FTZ.RN.STRONG.GPU PT",
        "ATOM.E.CAS.64.STRONG.GPU PT",
        "ATOM.E.ADD.64.STRONG.GPU PT, RZ",
        "LD.E.U8 R",
        "ST.E.U16 [R",
        "LD.E.STRONG.SYS R",
        "ST.E.STRONG.SYS [R",
        "ATOM.E.EXCH.STRONG.GPU PT",
        "LDS R",
        ", 0x654, ",
    ] {
        assert!(sass.contains(form), "lacks `{form}`:\n{sass}");
    }
}
