//! Microbenchmarks on the timed engine: dependent chains of each latency class and pointer
//! chasing in shared and global memory, compiled by ptxas and timed with `%clock64` as on
//! hardware, reproduce the latencies of `docs/TIMING-SM75.md`; and the stall reasons name what a
//! warp waited for (stall count, scoreboard, pipe, barrier, register bank).
//!
//! Needs ptxas and nvdisasm (`CUDA_ORACLE_BIN`, or installed by `scripts/cuda-oracle`).

mod common;

use ptxc_sass::isa::Arch;
use ptxc_sim::{Config, Device, Engine, LaunchDims, Stats};

/// Compiles `ptx` with ptxas; the cubin and nvdisasm's listing.
fn ptxas(ptx: &str, name: &str) -> (Vec<u8>, String) {
    let dir = common::scratch(&format!("sim_timing_{name}"));
    let src = dir.join("k.ptx");
    let out = dir.join("k.cubin");
    std::fs::write(&src, ptx).unwrap();
    common::ptxas(&src, &out);
    let listing = common::text(&common::oracle("nvdisasm", &[out.to_str().unwrap()]).stdout);
    (std::fs::read(&out).unwrap(), listing)
}

/// Runs kernel `k` of `cubin` on the timed engine with `threads` threads in each of `blocks`
/// blocks; `params` builds the parameter block on the device. Zero hazards required.
fn run(cubin: &[u8], blocks: u32, threads: u32, params: impl FnOnce(&mut Device) -> Vec<u8>) -> (Device, Stats) {
    let (dev, stats) = run_unchecked(cubin, blocks, threads, params);
    assert_eq!(stats.hazards, 0, "{:?}", stats.hazard_reports.first());
    (dev, stats)
}

/// [`run`] without the hazard check (for patched cubins); stall reasons still add up.
fn run_unchecked(
    cubin: &[u8],
    blocks: u32,
    threads: u32,
    params: impl FnOnce(&mut Device) -> Vec<u8>,
) -> (Device, Stats) {
    let mut dev = Device::new(Config::small());
    let module = dev.load(cubin).expect("the cubin loads");
    let params = params(&mut dev);
    let dims = LaunchDims {
        grid: [blocks, 1, 1],
        block: [threads, 1, 1],
        dynamic_shared: 0,
        cluster: None,
    };
    let stats = dev
        .launch_with(&module, "k", &dims, &params, Engine::Timed, None)
        .expect("the kernel runs");
    assert_eq!(stats.warp_cycles, stats.warp_instructions + stats.stalls.total());
    (dev, stats)
}

fn u64s(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// A kernel `k(u64 in, u64 out)` whose thread 0 times `n` copies of `op` (a dependent
/// chain on `%x`, set up by `setup`) between two `%clock64` reads and stores the cycles.
fn chain_ptx(decl: &str, setup: &str, op: &str, n: usize) -> String {
    // The type of %x, from its declaration (`.reg .f32 %x...`).
    let ty = decl.split_whitespace().nth(1).unwrap_or(".b32");
    let body: String = (0..n).map(|_| format!("  {op}\n")).collect();
    format!(
        ".version 7.0\n.target sm_75\n.address_size 64\n\
         .visible .entry k(.param .u64 in, .param .u64 out)\n{{\n\
         .reg .u64 %in, %out, %t0, %t1;\n.reg .u32 %s;\n{decl}\n\
         ld.param.u64 %in, [in];\nld.param.u64 %out, [out];\n\
         ld.global.u32 %s, [%in];\n{setup}\n\
         mov.u64 %t0, %clock64;\n{body}  mov.u64 %t1, %clock64;\n\
         sub.u64 %t1, %t1, %t0;\nst.global.u64 [%out], %t1;\nst.global{ty} [%out+8], %x;\nret;\n}}\n"
    )
}

/// Runs a chain kernel (one thread); the cycles it measured.
fn time_chain(cubin: &[u8]) -> u64 {
    let mut out = 0;
    let (dev, _) = run(cubin, 1, 1, |dev| {
        let input = dev.alloc(64);
        dev.write(input, &[3, 0, 0, 0]).unwrap();
        out = dev.alloc(64);
        [input.to_le_bytes(), out.to_le_bytes()].concat()
    });
    u64s(&dev.read(out, 8).unwrap())[0]
}

/// Cycles per operation of a dependent chain: the difference between chains of 64 and 128
/// divided by 64 (the fixed costs cancel); `sass` is the instruction ptxas must repeat.
fn chain_latency(name: &str, decl: &str, setup: &str, op: &str, sass: &str) -> f64 {
    let mut cycles = Vec::new();
    for n in [64, 128] {
        let (cubin, listing) = ptxas(&chain_ptx(decl, setup, op, n), &format!("{name}_{n}"));
        let count = listing.lines().filter(|l| l.contains(sass)).count();
        assert!(
            count >= n,
            "{name}: ptxas folded the chain ({count} {sass} for {n}):\n{listing}"
        );
        cycles.push(time_chain(&cubin) as f64);
    }
    (cycles[1] - cycles[0]) / 64.0
}

/// Dependent chains (name, declarations, setup, one link, the SASS it must become, cycles
/// per link). Fixed-latency links take the stall count ptxas gives them (the hardware does
/// not interlock them): ALU and FMA classes 4 after their own class and 5 across
/// (`docs/TIMING-SM75.md` section 3, NVIDIA's table). HFMA2 takes 6: ptxas's stall count and
/// NVIDIA's table in Mesa both say 6 from FP16 to FP16 (an earlier note said 8). Variable-latency
/// links wait on a scoreboard: MUFU.RSQ 18 cycles (the simulator's MUFU latency; the document
/// gives only MUFU throughput), and DFMA is bound by the FP64 pipe, which takes a warp
/// instruction every 64 cycles per sub-partition on Turing (2 FP64 lanes per SM), not by its
/// 8-cycle latency.
const CHAINS: [(&str, &str, &str, &str, &str, f64); 7] = [
    (
        "alu",
        ".reg .u32 %x;",
        "mov.u32 %x, %s;",
        "shf.l.wrap.b32 %x, %x, %x, %s;",
        "SHF.L.W",
        4.0,
    ),
    (
        "fma",
        ".reg .f32 %x, %c;",
        "cvt.rn.f32.u32 %x, %s; mov.f32 %c, 0f3F000000;",
        "fma.rn.f32 %x, %x, %x, %c;",
        "FFMA",
        4.0,
    ),
    (
        "imad",
        ".reg .u32 %x;",
        "mov.u32 %x, %s;",
        "mad.lo.u32 %x, %x, %x, %s;",
        "IMAD",
        4.0,
    ),
    (
        "alu_fma",
        ".reg .u32 %x;",
        "mov.u32 %x, %s;",
        "shf.l.wrap.b32 %x, %x, %x, %s; mad.lo.u32 %x, %x, %x, %s;",
        "SHF.L.W",
        10.0,
    ),
    (
        "fp16",
        ".reg .b32 %x, %c;",
        "mov.b32 %x, %s; mov.b32 %c, 0x38003800;",
        "fma.rn.f16x2 %x, %x, %x, %c;",
        "HFMA2",
        6.0,
    ),
    (
        "fp64",
        ".reg .f64 %x, %c;",
        "cvt.rn.f64.u32 %x, %s; mov.f64 %c, 0d3FE0000000000000;",
        "fma.rn.f64 %x, %x, %x, %c;",
        "DFMA",
        64.0,
    ),
    (
        "mufu",
        ".reg .f32 %x;",
        "cvt.rn.f32.u32 %x, %s;",
        "rsqrt.approx.ftz.f32 %x, %x;",
        "MUFU.RSQ",
        18.0,
    ),
];

#[test]
fn dependent_chains_take_the_documented_latencies() {
    for (name, decl, setup, op, sass, want) in CHAINS {
        let got = chain_latency(name, decl, setup, op, sass);
        println!("{name}: {got} cycles per link ({sass})");
        assert_eq!(got, want, "{name}: cycles per dependent link");
    }
}

/// A kernel `k(u64 start, u64 out)` whose thread 0 follows `hops` 64-bit pointers from
/// `start` twice, timing each pass (cold, then warm caches).
fn chase_global_ptx(hops: usize) -> String {
    let pass: String = (0..hops).map(|_| "  ld.global.u64 %p, [%p];\n").collect();
    format!(
        ".version 7.0\n.target sm_75\n.address_size 64\n\
         .visible .entry k(.param .u64 start, .param .u64 out)\n{{\n\
         .reg .u64 %s, %out, %p, %t<3>;\n\
         ld.param.u64 %s, [start];\nld.param.u64 %out, [out];\nmov.u64 %p, %s;\n\
         mov.u64 %t0, %clock64;\n{pass}  mov.u64 %t1, %clock64;\n\
         add.u64 %p, %p, %s;\nsub.u64 %p, %p, %s;\n{pass}  mov.u64 %t2, %clock64;\n\
         sub.u64 %t2, %t2, %t1;\nsub.u64 %t1, %t1, %t0;\n\
         st.global.v2.u64 [%out], {{%t1, %t2}};\nst.global.u64 [%out+16], %p;\nret;\n}}\n"
    )
}

/// Cycles per hop of a pointer chase over `nodes` nodes 128 bytes apart (one per line, in
/// a shuffled order): (cold pass, warm pass).
fn chase_global(nodes: usize) -> (f64, f64) {
    let (cubin, listing) = ptxas(&chase_global_ptx(nodes), &format!("chase_global_{nodes}"));
    assert!(
        listing.matches("LDG.E.64").count() >= 2 * nodes,
        "ptxas changed the chase:\n{listing}"
    );
    let mut out = 0;
    let (dev, stats) = run(&cubin, 1, 1, |dev| {
        let stride = 128u64;
        let base = dev.alloc(nodes * stride as usize);
        // A cycle through all nodes in a scrambled order (multiplying by an odd number).
        let order: Vec<u64> = (0..nodes as u64).map(|i| (i * 37) % nodes as u64).collect();
        let mut bytes = vec![0u8; nodes * stride as usize];
        for k in 0..nodes {
            let (from, to) = (order[k], order[(k + 1) % nodes]);
            let at = (from * stride) as usize;
            bytes[at..at + 8].copy_from_slice(&(base + to * stride).to_le_bytes());
        }
        dev.write(base, &bytes).unwrap();
        out = dev.alloc(64);
        [(base + order[0] * stride).to_le_bytes(), out.to_le_bytes()].concat()
    });
    assert!(stats.dram_accesses > 0);
    let t = u64s(&dev.read(out, 16).unwrap());
    (t[0] as f64 / nodes as f64, t[1] as f64 / nodes as f64)
}

/// A kernel `k(u64 unused, u64 out)`: one warp fills a shared array with the addresses of
/// a cycle through it, then thread 0 follows `hops` of them, timed.
fn chase_shared_ptx(hops: usize) -> String {
    let pass: String = (0..hops).map(|_| "  ld.shared.u32 %p, [%p];\n").collect();
    format!(
        ".version 7.0\n.target sm_75\n.address_size 64\n\
         .visible .entry k(.param .u64 unused, .param .u64 out)\n{{\n\
         .reg .u64 %out, %t<2>;\n.reg .u32 %i, %a, %n, %p;\n.reg .pred %q;\n\
         .shared .align 4 .u32 ring[32];\n\
         ld.param.u64 %out, [out];\nmov.u32 %i, %tid.x;\n\
         mad.lo.u32 %n, %i, 5, 3;\nand.b32 %n, %n, 31;\nmov.u32 %a, ring;\nshl.b32 %n, %n, 2;\nadd.u32 %n, %n, %a;\n\
         shl.b32 %p, %i, 2;\nadd.u32 %p, %p, %a;\nst.shared.u32 [%p], %n;\nbar.sync 0;\n\
         setp.ne.u32 %q, %i, 0;\n@%q bra DONE;\n\
         mov.u64 %t0, %clock64;\n{pass}  mov.u64 %t1, %clock64;\n\
         sub.u64 %t1, %t1, %t0;\nst.global.u64 [%out], %t1;\nst.global.u32 [%out+8], %p;\nDONE:\nret;\n}}\n"
    )
}

/// Cycles per hop of a shared-memory pointer chase.
fn chase_shared() -> f64 {
    let mut per = Vec::new();
    for hops in [64, 128] {
        let (cubin, listing) = ptxas(&chase_shared_ptx(hops), &format!("chase_shared_{hops}"));
        assert!(
            listing.matches("LDS").count() >= hops,
            "ptxas changed the chase:\n{listing}"
        );
        let mut out = 0;
        let (dev, _) = run(&cubin, 1, 32, |dev| {
            out = dev.alloc(64);
            [0u64.to_le_bytes(), out.to_le_bytes()].concat()
        });
        per.push(u64s(&dev.read(out, 8).unwrap())[0] as f64);
    }
    (per[1] - per[0]) / 64.0
}

/// Cycles per hop of global pointer chases of `a` and `b` > `a` nodes (the difference
/// divided by `b - a`: what a pass costs beyond the fixed and tail costs): (cold, warm).
fn chase_global_per_hop(a: usize, b: usize) -> (f64, f64) {
    let (ca, wa) = chase_global(a);
    let (cb, wb) = chase_global(b);
    let n = (b - a) as f64;
    ((cb * b as f64 - ca * a as f64) / n, (wb * b as f64 - wa * a as f64) / n)
}

#[test]
fn pointer_chasing_takes_the_documented_memory_latencies() {
    let shared = chase_shared();
    let (dram, l1) = chase_global_per_hop(64, 128);
    let (_, l2) = chase_global_per_hop(1024, 2048);
    println!("shared {shared}, L1 {l1}, L2 {l2}, DRAM {dram} cycles per dependent load");
    // docs/TIMING-SM75.md section 8: shared 23 (RTX 2070), L1 32, L2 190..236, DRAM several hundred.
    assert_eq!(shared, 23.0, "shared memory");
    assert_eq!(l1, 32.0, "L1 hit");
    assert_eq!(l2, 200.0, "L2 hit");
    assert!((399.0..=402.0).contains(&dram), "DRAM: {dram}");
}

/// A kernel `k(u64 in, u64 out)` run by `threads` threads: each loads three floats and
/// computes `body` (PTX using `%a`, `%b`, `%c`, accumulating into `%x`); warp 1 and later
/// wait at a CTA barrier for warp 0 to finish `warp0` first.
fn scenario_ptx(body: &str, warp0: &str) -> String {
    format!(
        ".version 7.0\n.target sm_75\n.address_size 64\n\
         .visible .entry k(.param .u64 in, .param .u64 out)\n{{\n\
         .reg .u64 %in, %out, %w;\n.reg .u32 %i;\n.reg .f32 %a, %b, %c, %x, %y;\n.reg .f64 %d, %e;\n.reg .pred %q;\n\
         ld.param.u64 %in, [in];\nld.param.u64 %out, [out];\nmov.u32 %i, %tid.x;\n\
         ld.global.v4.f32 {{%a, %b, %c, %x}}, [%in];\ncvt.f64.f32 %d, %a;\ncvt.f64.f32 %e, %b;\n\
         setp.ge.u32 %q, %i, 32;\n@%q bra WAIT;\n{warp0}\nWAIT:\nbar.sync 0;\n{body}\n\
         cvt.rn.f32.f64 %y, %d;\nadd.f32 %x, %x, %y;\n\
         mul.wide.u32 %w, %i, 4;\nadd.u64 %out, %out, %w;\nst.global.f32 [%out], %x;\nret;\n}}\n"
    )
}

/// Runs a scenario kernel with `threads` threads; its statistics.
fn scenario(name: &str, ptx: &str, threads: u32, patch: impl Fn(&[u8]) -> Vec<u8>) -> Stats {
    let (cubin, _) = ptxas(ptx, &format!("stalls_{name}"));
    let cubin = patch(&cubin);
    let (_, stats) = run_unchecked(&cubin, 1, threads, |dev| {
        let input = dev.alloc(64);
        dev.write(input, &[1.5f32, 0.75, 0.5, 0.25].map(f32::to_le_bytes).concat())
            .unwrap();
        let out = dev.alloc(4 * threads as usize);
        [input.to_le_bytes(), out.to_le_bytes()].concat()
    });
    println!(
        "{name}: {:?}, {} warp instructions",
        stats.stalls, stats.warp_instructions
    );
    stats
}

/// `n` copies of `line`.
fn repeat(line: &str, n: usize) -> String {
    (0..n).map(|_| format!("{line}\n")).collect()
}

/// Rewrites every FFMA of the cubin to read one register three times without reuse: three
/// operands in one register bank.
fn same_bank_ffma(cubin: &[u8]) -> Vec<u8> {
    use ptxc_sass::isa::desc::Role;
    use ptxc_sass::isa::{Op, Value, decode, encode};
    let mut m = ptxc_sass::cubin::read(cubin).unwrap();
    let k = &mut m.kernels[0];
    let mut insts = decode::decode_all(Arch::Sm75, &k.code).unwrap();
    for inst in insts.iter_mut().filter(|i| i.desc().op == Op::Ffma) {
        let roles: Vec<Role> = inst.desc().operands.iter().map(|o| o.role).collect();
        let find = |r: Role| roles.iter().position(|&x| x == r);
        let (Some(a), Some(b), Some(c)) = (find(Role::A), find(Role::B), find(Role::C)) else {
            continue;
        };
        let Value::Reg(r) = inst.operands[a].value else {
            continue;
        };
        for i in [b, c] {
            if matches!(inst.operands[i].value, Value::Reg(_)) {
                inst.operands[i].value = Value::Reg(r);
            }
        }
        inst.ctrl.reuse = 0;
    }
    k.code = insts.iter().flat_map(|i| encode(i).unwrap().to_le_bytes()).collect();
    ptxc_sass::cubin::write(&m)
}

#[test]
fn stall_reasons_name_what_warps_waited_for() {
    let keep = |c: &[u8]| c.to_vec();
    // One warp, a dependent FFMA chain: it waits out stall counts, nothing else.
    let chain = repeat("fma.rn.f32 %x, %x, %a, %b;", 512);
    let s = scenario("chain", &scenario_ptx(&chain, ""), 32, keep);
    assert!(s.stalls.stall_count >= 3 * 512, "{:?}", s.stalls);
    assert_eq!((s.stalls.pipe_busy, s.stalls.barrier), (0, 0), "{:?}", s.stalls);
    assert!(s.stalls.bank_conflict < 16, "{:?}", s.stalls);
    assert!(s.stalls.scoreboard < s.stalls.stall_count / 2, "{:?}", s.stalls);

    // One warp, dependent MUFU results: it waits on scoreboards.
    let mufu = repeat("rsqrt.approx.ftz.f32 %x, %x;", 64);
    let s = scenario("mufu", &scenario_ptx(&mufu, ""), 32, keep);
    assert!(s.stalls.scoreboard > 10 * 64, "{:?}", s.stalls);
    assert!(s.stalls.scoreboard > 2 * s.stalls.stall_count, "{:?}", s.stalls);

    // Two warps on each sub-partition with independent DFMAs: the FP64 pipe is busy.
    let dfma: String = (0..32)
        .map(|k| {
            format!(
                "fma.rn.f64 %d, %d, %e, 0d{:016X};\n",
                (1.0 + k as f64 / 1024.0).to_bits()
            )
        })
        .collect();
    let s = scenario("fp64_pipe", &scenario_ptx(&dfma, ""), 256, keep);
    assert!(s.stalls.pipe_busy > 32 * 64 * 4, "{:?}", s.stalls);
    assert!(
        s.stalls.pipe_busy > s.stalls.scoreboard + s.stalls.stall_count,
        "{:?}",
        s.stalls
    );

    // Warp 0 runs a long chain before the CTA barrier; warp 1 waits there.
    let s = scenario("barrier", &scenario_ptx("", &chain), 64, keep);
    assert!(s.stalls.barrier >= 4 * 512 - 64, "{:?}", s.stalls);

    // FFMAs reading three operands from one register bank, two warps on each
    // sub-partition: the bubbles hold the other warp back.
    let indep = repeat("fma.rn.f32 %x, %a, %b, %x;", 64);
    let clean = scenario("banks_clean", &scenario_ptx(&indep, ""), 256, keep);
    let s = scenario("banks", &scenario_ptx(&indep, ""), 256, same_bank_ffma);
    assert!(s.bank_conflicts >= 2 * 32 * 8, "bubbles: {}", s.bank_conflicts);
    assert!(
        s.stalls.bank_conflict > clean.stalls.bank_conflict + 32 * 4,
        "{:?}",
        s.stalls
    );
}

/// A kernel `k(u64 in, u64 out)`: each thread loads the 64-bit word `in[tid]` into the
/// register that held its address and stores it to `out[tid]`.
const LOAD_OVER_ADDRESS: &str = ".version 7.0\n.target sm_75\n.address_size 64\n\
    .visible .entry k(.param .u64 in, .param .u64 out)\n{\n\
    .reg .u64 %a, %o, %w;\n.reg .u32 %i;\n\
    ld.param.u64 %a, [in];\nld.param.u64 %o, [out];\nmov.u32 %i, %tid.x;\n\
    mul.wide.u32 %w, %i, 8;\nadd.u64 %a, %a, %w;\nadd.u64 %o, %o, %w;\n\
    ld.global.nc.u64 %a, [%a];\nst.global.u64 [%o], %a;\nret;\n}\n";

/// The load/store pipe's occupancy follows the addresses a load reads, not the values it
/// writes: with the loaded words scattered over memory or all zero, a load that overwrites
/// its own address register costs the same cycles (1024 threads, 8 warps per sub-partition).
#[test]
fn a_load_over_its_address_register_occupies_the_pipe_by_its_addresses() {
    let (cubin, listing) = ptxas(LOAD_OVER_ADDRESS, "load_over_address");
    assert!(
        listing.lines().any(|l| l.contains("LDG.E.64.CONSTANT")
            && l.split(" R").nth(1).is_some_and(|r| {
                let reg = r.split(',').next().unwrap();
                l.contains(&format!("[R{reg}"))
            })),
        "ptxas no longer loads over the address register:\n{listing}"
    );
    let cycles = |value: &dyn Fn(u64) -> u64| {
        let (_, stats) = run(&cubin, 1, 1024, |dev| {
            let input = dev.alloc(8 * 1024);
            let words: Vec<u8> = (0..1024).flat_map(|i| value(i).to_le_bytes()).collect();
            dev.write(input, &words).unwrap();
            let out = dev.alloc(8 * 1024);
            [input.to_le_bytes(), out.to_le_bytes()].concat()
        });
        (stats.cycles, stats.stalls.pipe_busy)
    };
    let zeros = cycles(&|_| 0);
    let scattered = cycles(&|i| i * 4096 + 0x1234_5678_0000);
    assert_eq!(zeros, scattered);
}
