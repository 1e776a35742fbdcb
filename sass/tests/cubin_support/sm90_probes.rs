//! Hand-written PTX probes for what the repository's test PTX lacks on sm_90: each says
//! which ptxas 13.5 behaviour it shows. `cubin_sm90` compiles them with ptxas and checks the
//! reader and writer on them.

/// One probe: a name, the `-arch` to compile it for, what it shows, and its PTX.
pub struct Probe {
    pub name: &'static str,
    pub arch: &'static str,
    pub shows: &'static str,
    pub ptx: &'static str,
}

/// Every probe.
pub const PROBES: &[Probe] = &[
    Probe {
        name: "launch",
        arch: "sm_90",
        shows: "Launch-shape directives and PDL: `.reqntid` + `.minnctapersm` and `%ctaid.z` (no `CTAIDZ_USED` on sm_90), `.maxntid` + `.maxnreg`, `.reqnctapercluster` with `barrier.cluster`, `.explicitcluster` + `.maxclusterrank`, `griddepcontrol` (`PREEXIT_USED` 1).",
        ptx: r#".version 8.0
.target sm_90
.address_size 64

.visible .entry k_reqntid(.param .u64 p) .reqntid 128, 1, 1 .minnctapersm 2
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %ctaid.z;
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r1;
  ret;
}
.visible .entry k_maxntid(.param .u64 p) .maxntid 256, 1, 1 .maxnreg 32
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %ctaid.z;
  mov.u32 %r2, %nctaid.z;
  add.u32 %r1, %r1, %r2;
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r1;
  ret;
}
.visible .entry k_cluster(.param .u64 p) .reqnctapercluster 2, 1, 1
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %cluster_ctarank;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r1;
  ret;
}
.visible .entry k_explicit(.param .u64 p) .explicitcluster .maxclusterrank 4
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %clusterid.x;
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r1;
  ret;
}
.visible .entry k_pdl(.param .u64 p)
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  griddepcontrol.wait;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], 1;
  griddepcontrol.launch_dependents;
  ret;
}
"#,
    },
    Probe {
        name: "async_copies",
        arch: "sm_90",
        shows: "mbarriers (`NUM_MBARRIERS`, `MBARRIER_INSTR_OFFSETS`), a TMA copy with `prefetch.tensormap` (`.nv.compat` tensor maps 1) and bulk copies (ISA class 2).",
        ptx: r#".version 8.0
.target sm_90
.address_size 64

.visible .entry k_mbar(.param .u64 p)
{
  .reg .b32 %r<6>; .reg .b64 %rd<6>; .reg .pred %pp;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b8 buf[256];
  mov.u32 %r1, bar;
  mbarrier.init.shared.b64 [bar], 32;
  mbarrier.arrive.shared.b64 %rd3, [bar];
  W: mbarrier.test_wait.shared.b64 %pp, [bar], %rd3;
  @!%pp bra W;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  ld.shared.u32 %r2, [buf];
  st.global.u32 [%rd2], %r2;
  ret;
}
.visible .entry k_tma(.param .u64 .ptr .align 64 tmap, .param .u64 out)
{
  .reg .b32 %r<6>; .reg .b64 %rd<6>; .reg .pred %pp;
  .shared .align 8 .b64 bar;
  .shared .align 128 .b8 buf[1024];
  ld.param.u64 %rd1, [tmap];
  mbarrier.init.shared.b64 [bar], 1;
  prefetch.tensormap [%rd1];
  mov.u32 %r1, 0;
  cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1, {%r1, %r1}], [bar];
  mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 1024;
  W: mbarrier.try_wait.shared.b64 %pp, [bar], %rd3;
  @!%pp bra W;
  ld.shared.u32 %r2, [buf];
  ld.param.u64 %rd4, [out];
  cvta.to.global.u64 %rd2, %rd4;
  st.global.u32 [%rd2], %r2;
  ret;
}
.visible .entry k_bulk(.param .u64 src, .param .u64 out)
{
  .reg .b32 %r<6>; .reg .b64 %rd<6>; .reg .pred %pp;
  .shared .align 8 .b64 bar;
  .shared .align 128 .b8 buf[1024];
  ld.param.u64 %rd1, [src];
  mbarrier.init.shared.b64 [bar], 1;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 1024, [bar];
  mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 1024;
  W: mbarrier.try_wait.shared.b64 %pp, [bar], %rd3;
  @!%pp bra W;
  fence.proxy.async.shared::cta;
  ld.param.u64 %rd4, [out];
  cp.async.bulk.global.shared::cta.bulk_group [%rd4], [buf], 1024;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  ret;
}
"#,
    },
    Probe {
        name: "arch_specific",
        arch: "sm_90a",
        shows: "sm_90a: `setmaxnreg` and `tensormap.replace` (`.nv.compat` accelerator target 1, tensor maps 2).",
        ptx: r#".version 8.3
.target sm_90a
.address_size 64
.visible .entry k_setmax(.param .u64 p)
{
  .reg .b32 %r<6>; .reg .b64 %rd<6>;
  setmaxnreg.inc.sync.aligned.u32 232;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], 1;
  ret;
}
.visible .entry k_tmreplace(.param .u64 p)
{
  .reg .b32 %r<6>; .reg .b64 %rd<6>;
  .shared .align 128 .b8 tm[128];
  ld.param.u64 %rd1, [p];
  mov.u64 %rd2, tm;
  tensormap.replace.tile.global_address.shared::cta.b1024.b64 [tm], %rd1;
  ld.shared.u32 %r1, [tm];
  cvta.to.global.u64 %rd3, %rd1;
  st.global.u32 [%rd3], %r1;
  ret;
}
"#,
    },
    Probe {
        name: "record_order",
        arch: "sm_90",
        shows: "Record order: printf (`EXTERNS`, `SYSCALL_OFFSETS`), an unused load component, `shfl`, a global atomic, an mbarrier, a divergent loop (`CRS_STACK_SIZE`), `.maxntid`; `brx.idx` (`INDIRECT_BRANCH_TARGETS`, a bank-2 jump table), `wmma` (`WMMA_USED`), `st.async`/`red.async`; `vprintf` used by the last kernel only.",
        ptx: r#".version 8.3
.target sm_90
.address_size 64
.extern .func (.param .b32 ret) vprintf (.param .b64 fmt, .param .b64 args);
.global .align 1 .b8 fmtstr[4] = {37, 100, 10, 0};

.visible .entry k_ul(.param .u64 p, .param .u32 n) .maxntid 64, 1, 1
{
  .reg .b32 %r<20>; .reg .b64 %rd<20>; .reg .pred %pp<4>; .reg .f32 %f<8>;
  .shared .align 8 .b64 bar;
  .local .align 8 .b8 buf[16];
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r10, [n];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  shfl.sync.bfly.b32 %r3, %r1, 1, 31, -1;
  atom.global.add.u32 %r4, [%rd2+64], 1;
  add.u32 %r1, %r3, %r4;
  mbarrier.init.shared.b64 [bar], 32;
  ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd2];
  mov.u32 %r11, 0;
L: add.u32 %r11, %r11, %r1;
  setp.lt.u32 %pp1, %r11, %r10;
  @%pp1 bra L;
  mbarrier.arrive.shared.b64 %rd3, [bar];
  W: mbarrier.test_wait.shared.b64 %pp2, [bar], %rd3;
  @!%pp2 bra W;
  add.f32 %f5, %f1, %f2;
  add.f32 %f5, %f5, %f3;
  cvt.rzi.u32.f32 %r12, %f5;
  add.u32 %r12, %r12, %r11;
  st.local.u32 [buf], %r12;
  mov.u64 %rd5, buf;
  cvta.local.u64 %rd6, %rd5;
  mov.u64 %rd7, fmtstr;
  cvta.global.u64 %rd8, %rd7;
  {
    .param .b64 a0; .param .b64 a1; .param .b32 rv;
    st.param.b64 [a0], %rd8;
    st.param.b64 [a1], %rd6;
    call.uni (rv), vprintf, (a0, a1);
  }
  st.global.u32 [%rd2+4], %r12;
  ret;
}
.visible .entry k_brx(.param .u64 p, .param .u32 n)
{
  .reg .b32 %r<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  cvta.to.global.u64 %rd2, %rd1;
  ts: .branchtargets A, B, C;
  brx.idx %r1, ts;
  A: st.global.u32 [%rd2], 1; ret;
  B: st.global.u32 [%rd2], 2; ret;
  C: st.global.u32 [%rd2], 3; ret;
}
.visible .entry k_wmma(.param .u64 p)
{
  .reg .b32 %r<20>; .reg .b64 %rd<4>; .reg .f32 %f<10>;
  ld.param.u64 %rd1, [p];
  wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8}, [%rd1];
  wmma.load.b.sync.aligned.col.m16n16k16.global.f16 {%r9,%r10,%r11,%r12,%r13,%r14,%r15,%r16}, [%rd1];
  wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8}, {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8}, {%r9,%r10,%r11,%r12,%r13,%r14,%r15,%r16}, {%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8};
  wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8};
  ret;
}
.visible .entry k_async(.param .u64 p, .param .u32 rank)
{
  .reg .b32 %r<8>; .reg .b64 %rd<4>;
  .shared .align 8 .b64 bar;
  .shared .align 8 .b32 val;
  ld.param.u32 %r1, [rank];
  mbarrier.init.shared.b64 [bar], 1;
  mapa.shared::cluster.u32 %r2, val, %r1;
  mapa.shared::cluster.u32 %r3, bar, %r1;
  st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r2], 5, [%r3];
  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r2], 1, [%r3];
  ret;
}
"#,
    },
    Probe {
        name: "everything",
        arch: "sm_90",
        shows: "One kernel with most records at once (`.reqntid`, a cluster, barriers, printf, shfl, atomics, mbarrier, PDL), and the cluster directives combined.",
        ptx: r#".version 8.0
.target sm_90
.address_size 64
.extern .func (.param .b32 ret) vprintf (.param .b64 fmt, .param .b64 args);
.global .align 1 .b8 fmtstr[4] = {37, 100, 10, 0};

.visible .entry k_all(.param .u64 p, .param .u32 n) .reqntid 64, 1, 1 .reqnctapercluster 2, 1, 1
{
  .reg .b32 %r<20>; .reg .b64 %rd<20>; .reg .pred %pp<4>; .reg .f32 %f<4>;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b32 sm[64];
  .local .align 8 .b8 buf[16];
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r10, [n];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.z;
  mbarrier.init.shared.b64 [bar], 32;
  shfl.sync.bfly.b32 %r3, %r1, 1, 31, -1;
  atom.global.add.u32 %r4, [%rd2], 1;
  ld.global.v4.u32 {%r5, %r6, %r7, %r8}, [%rd2+16];
  st.shared.u32 [sm], %r5;
  bar.sync 1;
  mov.u32 %r11, 0;
L: add.u32 %r11, %r11, %r3;
  setp.lt.u32 %pp1, %r11, %r10;
  @%pp1 bra L;
  mbarrier.arrive.shared.b64 %rd3, [bar];
  W: mbarrier.test_wait.shared.b64 %pp2, [bar], %rd3;
  @!%pp2 bra W;
  add.u32 %r12, %r11, %r4;
  add.u32 %r12, %r12, %r2;
  st.local.u32 [buf], %r12;
  mov.u64 %rd5, buf;
  cvta.local.u64 %rd6, %rd5;
  mov.u64 %rd7, fmtstr;
  cvta.global.u64 %rd8, %rd7;
  {
    .param .b64 a0; .param .b64 a1; .param .b32 rv;
    st.param.b64 [a0], %rd8;
    st.param.b64 [a1], %rd6;
    call.uni (rv), vprintf, (a0, a1);
  }
  st.global.u32 [%rd2+4], %r12;
  griddepcontrol.launch_dependents;
  ret;
}
.visible .entry k_two(.param .u64 p) .maxntid 128, 1, 1 .maxclusterrank 8 .explicitcluster
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], 1;
  ret;
}
.visible .entry k_three(.param .u64 p) .maxntid 128, 1, 1 .reqnctapercluster 2,1,1 .explicitcluster
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], 1;
  ret;
}
"#,
    },
    Probe {
        name: "module_data",
        arch: "sm_90",
        shows: "A local kernel before a visible one that uses shared memory and calls a weak function; `.global` with an address initialiser (`gcount+8`), `.const` data.",
        ptx: r#".version 8.0
.target sm_90
.address_size 64
.global .align 4 .u32 gcount;
.global .align 8 .u64 gptr = generic(gcount)+8;
.const .align 4 .u32 ctab[4] = {1,2,3,4};

.weak .func (.param .b32 r) wf(.param .b32 a)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [a];
  mul.lo.u32 %r2, %r1, %r1;
  st.param.b32 [r], %r2;
  ret;
}
.visible .entry k_sh(.param .u64 p)
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  .shared .align 4 .b32 s[32];
  ld.param.u64 %rd1, [p];
  mov.u32 %r2, %tid.x;
  st.shared.u32 [s], %r2;
  bar.sync 0;
  ld.shared.u32 %r1, [s+4];
  {
   .param .b32 a; .param .b32 r;
   st.param.b32 [a], %r1;
   call (r), wf, (a);
   ld.param.b32 %r1, [r];
  }
  atom.global.add.u32 %r3, [gcount], %r1;
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r3;
  ret;
}

.entry k_local(.param .u64 p)
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  ld.const.u32 %r1, [ctab+4];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r1;
  ret;
}
"#,
    },
    Probe {
        name: "extern_shared",
        arch: "sm_90",
        shows: "Module-scope `.extern .shared`: the first kernel only calls a function, the second addresses the shared memory (it gets the nameless `.nv.reservedSmem.cap` symbol).",
        ptx: r#".version 8.0
.target sm_90
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.func (.param .b32 r) f(.param .b32 a)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [a];
  mul.lo.u32 %r2, %r1, %r1;
  st.param.b32 [r], %r2;
  ret;
}
.visible .entry k_uses(.param .u64 p)
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r2, %tid.x;
  st.shared.u32 [dyn], %r2;
  bar.sync 0;
  ld.shared.u32 %r1, [dyn+4];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r1;
  ret;
}
.visible .entry k_call(.param .u64 p)
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  {
   .param .b32 a; .param .b32 r;
   st.param.b32 [a], %r1;
   call.uni (r), f, (a);
   ld.param.b32 %r1, [r];
  }
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r1;
  ret;
}
"#,
    },
    Probe {
        name: "sparse_mma",
        arch: "sm_90",
        shows: "`mma.sp` (`SPARSE_MMA_MASK` 0x10).",
        ptx: r#".version 8.0
.target sm_90
.address_size 64
.visible .entry k_sp(.param .u64 p)
{
  .reg .b32 %r<20>; .reg .b64 %rd<4>; .reg .f32 %f<10>;
  ld.param.u64 %rd1, [p];
  ld.global.v4.u32 {%r1,%r2,%r3,%r4}, [%rd1];
  ld.global.v4.u32 {%r5,%r6,%r7,%r8}, [%rd1+16];
  ld.global.u32 %r9, [%rd1+32];
  mov.f32 %f1, 0f00000000; mov.f32 %f2, 0f00000000; mov.f32 %f3, 0f00000000; mov.f32 %f4, 0f00000000;
  mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f5,%f6,%f7,%f8}, {%r1,%r2,%r3,%r4}, {%r5,%r6,%r7,%r8}, {%f1,%f2,%f3,%f4}, %r9, 0x0;
  st.global.v4.f32 [%rd1], {%f5,%f6,%f7,%f8};
  ret;
}
"#,
    },
    Probe {
        name: "jump_table_shared",
        arch: "sm_90",
        shows: "`brx.idx` in a kernel with shared memory: empty `.rela.text` then `.rela.nv.constant2`.",
        ptx: r#".version 8.0
.target sm_90
.address_size 64
.visible .entry k_brx2(.param .u64 p, .param .u32 n)
{
  .reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .pred %pp;
  .shared .align 4 .b32 s[32];
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r3, %tid.x;
  st.shared.u32 [s], %r3;
  bar.sync 0;
  ld.shared.u32 %r4, [s+4];
  and.b32 %r5, %r4, 3;
  ts: .branchtargets A, B, C;
  brx.idx %r5, ts;
  A: st.global.u32 [%rd2], 1; ret;
  B: st.global.u32 [%rd2], 2; ret;
  C: st.global.u32 [%rd2], %r4; ret;
}
"#,
    },
];
