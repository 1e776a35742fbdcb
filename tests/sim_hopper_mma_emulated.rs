//! The `mma.sync` forms that the tensor cores of later targets lack, which ptxc expands while
//! lowering to MIR (`mir/src/lower/mma_sub_byte.rs`, `mir/src/lower/mma_m8n8k4.rs`), on the
//! simulator:
//!
//! * `tests/hopper/mma_sub_byte.ptx` (4-bit m8n8k32, m16n8k32, m16n8k64 with and without
//!   `.satfinite`; single-bit m8n8k128, m16n8k128, m16n8k256 with `.xor.popc`): ptxc's sm_90
//!   cubin on the timed and the functional engine and its sm_90 MIR on the interpreter, and
//!   ptxc's sm_80 cubin (native IMMA.8832 / .16832 / .16864, BMMA.XOR.POPC), all equal to a
//!   host reference computed exactly from the matrices (a 64-bit sum, wrapped to 32 bits or,
//!   with `.satfinite`, clamped to the s32 range; `popc(a ^ b)`); with ptxas, its sm_90 cubin
//!   too. The sub-byte `wmma` tiles of `tests/tensor/wmma.ptx`, whose `wmma.mma` is the same
//!   m8n8 `mma`, likewise on sm_90 and sm_75.
//! * `tests/hopper/mma_m8n8k4.ptx` (m8n8k4 of f16, every layout, D.C f16.f16, f32.f16,
//!   f32.f32): ptxc's sm_90 and sm_80 cubins and its sm_90 MIR equal, bit for bit, a host
//!   reference that evaluates ptxas's order in f32 (the products are exact; the sums round to
//!   nearest; see `mma_m8n8k4.rs`), and lie within the tensor-core bound of the exact product
//!   (`|d - exact| <= (6 * 2^-23 + u) * (|c| + sum |a_k b_k|)`, `u` 2^-11 for an f16 D,
//!   2^-23 for f32) as does ptxc's sm_75 cubin with the native HMMA.884, whose rounding is
//!   another (`ptxc_softfloat::tensor::hmma_dot`); with ptxas, its sm_90 and sm_80 cubins
//!   give the same bits as ptxc's.
//!
//! The fragments are built on the host from the PTX ISA's fragment tables ("Matrix Fragments
//! for mma.m8n8k4 with .f16", "... for mma.m16n8k32", ...), independently of the simulator,
//! the interpreter and the expansion. Every run has zero hazards and no stray accesses. The
//! ptxas tests need `CUDA_ORACLE_BIN` (or `scripts/cuda-oracle`); the others do not.

mod common;

use common::mma::{c_at, pack, spec};
use common::rng::Rng;
use common::*;
use half::f16;
use ptxc::launch::LaunchSpec;
use ptxc::run::{RunOptions, run, run_mir};
use ptxc_sass::isa::Arch;
use ptxc_sim::Engine;

/// A compiled module and how to run it.
enum Code {
    /// A cubin (ptxc's or ptxas's) on an engine.
    Cubin(Vec<u8>, Engine),
    /// MIR on the interpreter.
    Mir(ptxc_mir::ir::Module),
}

/// One way of running a PTX file's kernels, named for messages.
struct Way {
    name: String,
    code: Code,
}

/// The PTX of `tests/<file>`, an `.target sm_90` set to `arch`.
fn ptx_for(file: &str, arch: Arch) -> String {
    let src = std::fs::read_to_string(root().join("tests").join(file)).unwrap();
    src.replace(".target sm_90", &format!(".target {}", arch.name()))
}

/// The name of `file` without its folders (for scratch files).
fn base_name(file: &str) -> &str {
    file.rsplit('/').next().unwrap_or(file)
}

/// ptxc's cubin of `file` for `arch`, run on `engine`.
fn ptxc_way(file: &str, arch: Arch, engine: Engine) -> Way {
    let opts = ptxc::pipeline::CompileOptions {
        arch,
        ..Default::default()
    };
    let cubin = ptxc::pipeline::compile_ptx(&ptx_for(file, arch), file, &opts)
        .unwrap_or_else(|e| panic!("ptxc {}: {}", arch.name(), e.0));
    Way {
        name: format!("ptxc {} {engine:?}", arch.name()),
        code: Code::Cubin(cubin, engine),
    }
}

/// ptxc's MIR of `file` lowered for `arch`, on the interpreter.
fn mir_way(file: &str, arch: Arch) -> Way {
    let module = ptxc::pipeline::lower_ptx_for(&ptx_for(file, arch), file, arch)
        .unwrap_or_else(|e| panic!("lower {}: {}", arch.name(), e.0));
    Way {
        name: format!("ptxc {} MIR", arch.name()),
        code: Code::Mir(module),
    }
}

/// ptxas's cubin of `file` for `arch`, run on `engine`.
fn ptxas_way(file: &str, arch: Arch, engine: Engine) -> Way {
    let file_name = base_name(file);
    let dir = scratch(&format!(
        "sim_hopper_mma_emulated_{file_name}_{}_{engine:?}",
        arch.name()
    ));
    let (ptx, cubin) = (dir.join(file_name), dir.join("ptxas.cubin"));
    std::fs::write(&ptx, ptx_for(file, arch)).unwrap();
    ptxas_for(arch.name(), &ptx, &cubin);
    Way {
        name: format!("ptxas {} {engine:?}", arch.name()),
        code: Code::Cubin(std::fs::read(cubin).unwrap(), engine),
    }
}

impl Way {
    /// The words of buffer `d` after running `spec` (zero hazards, no stray accesses).
    fn run(&self, spec: &LaunchSpec) -> Vec<u32> {
        let tag = format!("{} ({})", spec.kernel, self.name);
        let out = match &self.code {
            Code::Cubin(cubin, engine) => {
                let mut opts = RunOptions {
                    engine: *engine,
                    ..RunOptions::default()
                };
                opts.config.instruction_limit = 1 << 20;
                run(cubin, spec, &opts)
            }
            Code::Mir(module) => run_mir(module, spec, RunOptions::default().config),
        }
        .unwrap_or_else(|e| panic!("{tag}: {e}"));
        let s = &out.stats;
        assert_eq!(s.hazards, 0, "{tag}: hazards: {:?}", s.hazard_reports.first());
        assert_eq!(s.stray_accesses, 0, "{tag}: {:?}", s.stray_reports.first());
        words(&out.buffers["d"].bytes)
    }
}

// ---------------------------------------------------------------------------------------
// The sub-byte integer forms.

/// An element type of A and B.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Ty {
    S4,
    U4,
    B1,
}

impl Ty {
    fn bits(self) -> usize {
        if self == Ty::B1 { 1 } else { 4 }
    }

    /// The value of raw element bits.
    fn value(self, raw: u32) -> i64 {
        match self {
            Ty::S4 => ((raw as i32) << 28 >> 28) as i64,
            Ty::U4 | Ty::B1 => raw as i64,
        }
    }
}

/// One kernel of `tests/hopper/mma_sub_byte.ptx`: `D (m x 8) = A (m x k) B (k x 8) + C`
/// (single bits: `C + popc(A ^ B)`).
struct IntKernel {
    name: &'static str,
    m: usize,
    k: usize,
    ab: (Ty, Ty),
    sat: bool,
}

const fn int(name: &'static str, m: usize, k: usize, ab: (Ty, Ty), sat: bool) -> IntKernel {
    IntKernel { name, m, k, ab, sat }
}

use Ty::*;

const INT_KERNELS: [IntKernel; 17] = [
    int("mma_m8n8k32_s4_s4", 8, 32, (S4, S4), false),
    int("mma_m8n8k32_u4_s4_sat", 8, 32, (U4, S4), true),
    int("mma_m8n8k32_s4_u4", 8, 32, (S4, U4), false),
    int("mma_m8n8k32_u4_u4_sat", 8, 32, (U4, U4), true),
    int("mma_m8n8k32_s4_s4_sat", 8, 32, (S4, S4), true),
    int("mma_m16n8k32_s4_s4", 16, 32, (S4, S4), false),
    int("mma_m16n8k32_u4_s4_sat", 16, 32, (U4, S4), true),
    int("mma_m16n8k32_u4_u4_sat", 16, 32, (U4, U4), true),
    int("mma_m16n8k32_s4_s4_sat", 16, 32, (S4, S4), true),
    int("mma_m16n8k64_s4_s4", 16, 64, (S4, S4), false),
    int("mma_m16n8k64_u4_s4_sat", 16, 64, (U4, S4), true),
    int("mma_m16n8k64_s4_u4", 16, 64, (S4, U4), false),
    int("mma_m16n8k64_u4_u4_sat", 16, 64, (U4, U4), true),
    int("mma_m16n8k64_s4_s4_sat", 16, 64, (S4, S4), true),
    int("mma_m8n8k128_xor", 8, 128, (B1, B1), false),
    int("mma_m16n8k128_xor", 16, 128, (B1, B1), false),
    int("mma_m16n8k256_xor", 16, 256, (B1, B1), false),
];

/// A's element `i` of lane `l` (m x k, `bits` per element): (row, column). The PTX ISA's
/// tables: m8n8 lanes hold one register of row `g` (columns `8t..` for 4-bit, `32t..` for
/// b1); m16n8 registers alternate rows `g` and `g + 8`, the third and fourth (k64, k256)
/// 32 (4-bit) or 128 (b1) columns further.
fn a_at(m: usize, bits: usize, l: usize, i: usize) -> (usize, usize) {
    let (g, t) = (l / 4, l % 4);
    let per = 32 / bits;
    let reg = i / per;
    if m == 8 {
        return (g, per * t + i % per);
    }
    (g + 8 * (reg % 2), per * t + i % per + 4 * per * (reg / 2))
}

/// B's element `i` of lane `l` (k x 8): (row, column `g`); the second register (k64, k256)
/// holds rows 32 (4-bit) or 128 (b1) further.
fn b_at(bits: usize, l: usize, i: usize) -> (usize, usize) {
    let (g, t) = (l / 4, l % 4);
    let per = 32 / bits;
    (per * t + i % per + 4 * per * (i / per), g)
}

/// A random 32-bit accumulator: within 256 of an s32 limit one time in four.
fn random_acc(r: &mut Rng) -> u32 {
    match r.below(8) {
        0 => (i32::MAX - r.below(256) as i32) as u32,
        1 => (i32::MIN + r.below(256) as i32) as u32,
        _ => (r.below(200_001) as i32 - 100_000) as u32,
    }
}

/// D of `k` (row-major, m x 8) computed from the matrices; also how many sums `.satfinite`
/// clamped.
fn int_reference(k: &IntKernel, a: &[Vec<u32>], b: &[Vec<u32>], c: &[Vec<u32>]) -> (Vec<Vec<i32>>, usize) {
    let mut clamped = 0;
    let d = (0..k.m)
        .map(|i| {
            (0..8)
                .map(|j| {
                    let terms = (0..k.k).map(|x| match k.ab.0 {
                        B1 => (a[i][x] ^ b[x][j]) as i64,
                        ta => ta.value(a[i][x]) * k.ab.1.value(b[x][j]),
                    });
                    let sum = c[i][j] as i32 as i64 + terms.sum::<i64>();
                    let clamp = sum.clamp(i32::MIN as i64, i32::MAX as i64);
                    if k.sat {
                        clamped += (clamp != sum) as usize;
                        clamp as i32
                    } else {
                        sum as i32
                    }
                })
                .collect()
        })
        .collect();
    (d, clamped)
}

/// Runs every sub-byte kernel every way; D must equal the host reference (and in every
/// `.satfinite` kernel some sum must have been clamped, so that the clamping is tested).
fn int_kernels_agree(ways: &[Way]) {
    let dir = scratch(&format!("sim_hopper_mma_sub_byte_{}", ways.len()));
    let mut failures = Vec::new();
    for (n, k) in INT_KERNELS.iter().enumerate() {
        let mut r = Rng(0x4b17_0000 + n as u64);
        let (ta, tb) = k.ab;
        let matrix = |rows: usize, cols: usize, bits: usize, r: &mut Rng| -> Vec<Vec<u32>> {
            (0..rows)
                .map(|_| (0..cols).map(|_| r.below(1 << bits) as u32).collect())
                .collect()
        };
        let a = matrix(k.m, k.k, ta.bits(), &mut r);
        let b = matrix(k.k, 8, tb.bits(), &mut r);
        let c: Vec<Vec<u32>> = (0..k.m).map(|_| (0..8).map(|_| random_acc(&mut r)).collect()).collect();
        let aw = pack(&a, ta.bits(), k.m * k.k / 32, |l, i| a_at(k.m, ta.bits(), l, i));
        let bw = pack(&b, tb.bits(), k.k / 4, |l, i| b_at(tb.bits(), l, i));
        let cw = pack(&c, 32, k.m / 4, c_at);
        let spec = spec(&dir, k.name, [&aw, &bw, &cw], cw.len());
        let (want, clamped) = int_reference(k, &a, &b, &c);
        if k.sat && clamped == 0 {
            failures.push(format!(
                "{}: no sum was clamped: the inputs do not test .satfinite",
                k.name
            ));
        }
        for way in ways {
            let d = way.run(&spec);
            let bad = (0..32 * k.m / 4).find(|&w| {
                let (i, j) = c_at(w / (k.m / 4), w % (k.m / 4));
                d[w] as i32 != want[i][j]
            });
            if let Some(w) = bad {
                let (i, j) = c_at(w / (k.m / 4), w % (k.m / 4));
                failures.push(format!(
                    "{} ({}): D[{i}][{j}] = {}, want {}",
                    k.name, way.name, d[w] as i32, want[i][j]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn sub_byte_mma_on_sm90_matches_the_host_reference_and_sm80s_native_forms() {
    let f = "hopper/mma_sub_byte.ptx";
    int_kernels_agree(&[
        ptxc_way(f, Arch::Sm90, Engine::Timed),
        ptxc_way(f, Arch::Sm90, Engine::Functional),
        mir_way(f, Arch::Sm90),
        ptxc_way(f, Arch::Sm80, Engine::Timed),
        mir_way(f, Arch::Sm80),
    ]);
}

#[test]
fn sub_byte_mma_ptxas_sm90_agrees_with_ptxc_and_the_host_reference() {
    let f = "hopper/mma_sub_byte.ptx";
    int_kernels_agree(&[
        ptxas_way(f, Arch::Sm90, Engine::Timed),
        ptxas_way(f, Arch::Sm90, Engine::Functional),
        ptxc_way(f, Arch::Sm90, Engine::Functional),
    ]);
}

/// The 4-bit and `.xor.popc` forms compile for sm_90 without 4-bit IMMA or XOR BMMA.
#[test]
fn sub_byte_mma_on_sm90_uses_only_hoppers_tensor_core_forms() {
    let sass = sass_of("hopper/mma_sub_byte.ptx", Arch::Sm90);
    for bad in ["IMMA.8832", "IMMA.16864", ".U4", ".S4", "XOR.POPC"] {
        assert!(!sass.contains(bad), "`{bad}` in ptxc's sm_90 code:\n{sass}");
    }
    assert!(
        sass.contains("IMMA.16832") && sass.contains("BMMA.168256.AND.POPC"),
        "{sass}"
    );
}

/// A sub-byte `wmma` tile of `tests/tensor/wmma.ptx` (`(a, b, c, d, lda, ldb, ldc)`, A
/// row-major, B column-major, C row-major, D row- or column-major), whose `wmma.mma` is the
/// m8n8 `mma` of its type: `(kernel, element type, k, .satfinite, D column-major)`.
const WMMA_TILES: [(&str, Ty, usize, bool, bool); 3] = [
    ("wmma_s4_m8n8k32", S4, 32, true, false),
    ("wmma_u4_m8n8k32", U4, 32, false, true),
    ("wmma_b1_m8n8k128", B1, 128, false, false),
];

/// Packs the elements of `m` (`bits` each) in the order `at` (index -> row, column) gives,
/// low bits first.
fn pack_linear(m: &[Vec<u32>], bits: usize, count: usize, at: impl Fn(usize) -> (usize, usize)) -> Vec<u32> {
    let mut words = vec![0u32; (count * bits).div_ceil(32)];
    for x in 0..count {
        let (r, c) = at(x);
        words[x * bits / 32] |= m[r][c] << (x * bits % 32);
    }
    words
}

/// The launch of one `wmma` tile.
fn wmma_spec(dir: &std::path::Path, kernel: &str, inputs: [&[u32]; 3], ld: [u32; 3]) -> LaunchSpec {
    let mut spec = spec(dir, kernel, inputs, 64);
    for v in ld {
        spec.params.push(ptxc::launch::ParamSpec::Scalar {
            kind: ptxc::launch::Scalar::U32,
            bytes: v.to_le_bytes().to_vec(),
        });
    }
    spec
}

/// The sub-byte `wmma` tiles (expanded on sm_90 like `mma`) match the host reference on
/// sm_90, as sm_75's native IMMA.8832 and BMMA do.
#[test]
fn sub_byte_wmma_tiles_on_sm90_match_the_host_reference() {
    let f = "tensor/wmma.ptx";
    let ways = [
        ptxc_way(f, Arch::Sm90, Engine::Timed),
        mir_way(f, Arch::Sm90),
        ptxc_way(f, Arch::Sm75, Engine::Functional),
    ];
    let dir = scratch("sim_hopper_mma_emulated_wmma");
    let mut failures = Vec::new();
    for (n, &(name, ty, k, sat, d_col)) in WMMA_TILES.iter().enumerate() {
        let mut r = Rng(0x3a3a_0000 + n as u64);
        let matrix = |rows: usize, cols: usize, r: &mut Rng| -> Vec<Vec<u32>> {
            (0..rows)
                .map(|_| (0..cols).map(|_| r.below(1 << ty.bits()) as u32).collect())
                .collect()
        };
        let (a, b) = (matrix(8, k, &mut r), matrix(k, 8, &mut r));
        let c: Vec<Vec<u32>> = (0..8).map(|_| (0..8).map(|_| random_acc(&mut r)).collect()).collect();
        let aw = pack_linear(&a, ty.bits(), 8 * k, |x| (x / k, x % k));
        let bw = pack_linear(&b, ty.bits(), 8 * k, |x| (x % k, x / k));
        let cw = pack_linear(&c, 32, 64, |x| (x / 8, x % 8));
        let spec = wmma_spec(&dir, name, [&aw, &bw, &cw], [k as u32, k as u32, 8]);
        let (want, _) = int_reference(&int(name, 8, k, (ty, ty), sat), &a, &b, &c);
        for way in &ways {
            let d = way.run(&spec);
            let at = |i: usize, j: usize| if d_col { d[8 * j + i] } else { d[8 * i + j] } as i32;
            if let Some((i, j)) = (0..64).map(|x| (x / 8, x % 8)).find(|&(i, j)| at(i, j) != want[i][j]) {
                failures.push(format!(
                    "{name} ({}): D[{i}][{j}] = {}, want {}",
                    way.name,
                    at(i, j),
                    want[i][j]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------
// m8n8k4 of f16.

/// One kernel of `tests/hopper/mma_m8n8k4.ptx`.
struct F16Kernel {
    a_col: bool,
    b_col: bool,
    d32: bool,
    c32: bool,
}

impl F16Kernel {
    fn name(&self) -> String {
        let layout = |col: bool| if col { "col" } else { "row" };
        let ty = |f32: bool| if f32 { "f32" } else { "f16" };
        format!(
            "mma_m8n8k4_{}_{}_{}_{}",
            layout(self.a_col),
            layout(self.b_col),
            ty(self.d32),
            ty(self.c32)
        )
    }
}

/// Every kernel of the file: both layouts of A and B, D.C f16.f16, f32.f16, f32.f32.
fn f16_kernels() -> Vec<F16Kernel> {
    let mut v = Vec::new();
    for a_col in [false, true] {
        for b_col in [false, true] {
            for (d32, c32) in [(false, false), (true, false), (true, true)] {
                v.push(F16Kernel { a_col, b_col, d32, c32 });
            }
        }
    }
    v
}

/// An f16 with a random sign: one in 16 a signed zero, one in 16 subnormal, else normal
/// with magnitude in [2^-8, 16).
fn random_f16(r: &mut Rng) -> u32 {
    let sign = (r.below(2) as u32) << 15;
    let bits = match r.below(16) {
        0 => 0,
        1 => 1 + r.below(1023) as u32,
        _ => (7 + r.below(12) as u32) << 10 | r.below(1024) as u32,
    };
    sign | bits
}

// The PTX ISA's m8n8k4 fragments: lane `l` of quad-pair `q = l / 4 % 4`, `t = l % 4`,
// `h = l / 16`; the quad-pair's matrices are rows `8q..` of A, C and D (8 x 4, 8 x 8) and
// rows `4q..` of B (4 x 8), stacked.

/// A's element `i` of lane `l`: row-major row `t + 4h`, column `i`; column-major row
/// `i + 4h`, column `t`.
fn a884(col: bool, l: usize, i: usize) -> (usize, usize) {
    let (q, t, h) = (l / 4 % 4, l % 4, l / 16);
    let (r, c) = if col { (i + 4 * h, t) } else { (t + 4 * h, i) };
    (8 * q + r, c)
}

/// B's element `i` of lane `l`: row-major row `t`, column `i + 4h`; column-major row `i`,
/// column `t + 4h`.
fn b884(col: bool, l: usize, i: usize) -> (usize, usize) {
    let (q, t, h) = (l / 4 % 4, l % 4, l / 16);
    let (r, c) = if col { (i, t + 4 * h) } else { (t, i + 4 * h) };
    (4 * q + r, c)
}

/// C's and D's element `i` of lane `l`: f16 row `t + 4h`, column `i`; f32 row
/// `(l & 1) + (i & 2) + 4h`, column `(i & 4) + (l & 2) + (i & 1)`.
fn cd884(f32: bool, l: usize, i: usize) -> (usize, usize) {
    let (q, t, h) = (l / 4 % 4, l % 4, l / 16);
    let (r, c) = if f32 {
        ((l & 1) + (i & 2) + 4 * h, (i & 4) + (l & 2) + (i & 1))
    } else {
        (t + 4 * h, i)
    };
    (8 * q + r, c)
}

/// The f32 value of raw f16 bits.
fn h(raw: u32) -> f32 {
    f16::from_bits(raw as u16).to_f32()
}

/// D's element (row `i`, column `j`, raw bits) of the stacked product in ptxas's order.
fn f16_reference(k: &F16Kernel, a: &[Vec<u32>], b: &[Vec<u32>], c: &[Vec<u32>], i: usize, j: usize) -> u32 {
    let q = i / 8;
    let (av, bv): (Vec<f32>, Vec<f32>) = (0..4).map(|x| (h(a[i][x]), h(b[4 * q + x][j]))).unzip();
    let cv = if k.c32 { f32::from_bits(c[i][j]) } else { h(c[i][j]) };
    if k.d32 {
        let mut s = 0.0f32;
        for x in 0..4 {
            s = av[x].mul_add(bv[x], s);
        }
        return (cv + s).to_bits();
    }
    let p01 = av[1].mul_add(bv[1], av[0] * bv[0]);
    let p23 = av[3].mul_add(bv[3], av[2] * bv[2]);
    f16::from_f32((cv + p01) + p23).to_bits() as u32
}

/// Sets one C element in four to minus its row-column dot product of A and B (rounded to
/// C's type), so that D is small and shows the rounding of the large partial sums: the order
/// of the additions decides its bits.
fn cancel_some(c: &mut [Vec<u32>], a: &[Vec<u32>], b: &[Vec<u32>], c32: bool, r: &mut Rng) {
    for (i, row) in c.iter_mut().enumerate() {
        for (j, cv) in row.iter_mut().enumerate() {
            if r.below(4) != 0 {
                continue;
            }
            let dot: f64 = (0..4)
                .map(|x| h(a[i][x]) as f64 * h(b[4 * (i / 8) + x][j]) as f64)
                .sum();
            *cv = if c32 {
                (-dot as f32).to_bits()
            } else {
                f16::from_f64(-dot).to_bits() as u32
            };
        }
    }
}

/// Whether raw D bits are within the tensor-core bound of the exact product at (i, j).
fn within_bound(
    k: &F16Kernel,
    a: &[Vec<u32>],
    b: &[Vec<u32>],
    c: &[Vec<u32>],
    (i, j): (usize, usize),
    got: u32,
) -> bool {
    let q = i / 8;
    let cv = if k.c32 {
        f32::from_bits(c[i][j]) as f64
    } else {
        h(c[i][j]) as f64
    };
    let (mut exact, mut mag) = (cv, cv.abs());
    for x in 0..4 {
        let t = h(a[i][x]) as f64 * h(b[4 * q + x][j]) as f64;
        exact += t;
        mag += t.abs();
    }
    let unit = if k.d32 { 2f64.powi(-23) } else { 2f64.powi(-11) };
    let got = if k.d32 {
        f32::from_bits(got) as f64
    } else {
        h(got) as f64
    };
    (got - exact).abs() <= (6.0 * 2f64.powi(-23) + unit) * mag
}

/// How D is checked: equal to ptxas's order bit for bit, or within the bound.
#[derive(Clone, Copy, PartialEq)]
enum Check {
    Exact,
    Bound,
}

/// Runs every m8n8k4 kernel every way and checks D.
fn f16_kernels_agree(ways: &[(Way, Check)]) {
    let dir = scratch(&format!("sim_hopper_mma_m8n8k4_{}", ways.len()));
    let mut failures = Vec::new();
    for (n, k) in f16_kernels().iter().enumerate() {
        let mut r = Rng(0x884_0000 + n as u64);
        let matrix = |rows: usize, cols: usize, f32: bool, r: &mut Rng| -> Vec<Vec<u32>> {
            let elem = |r: &mut Rng| {
                let x = random_f16(r);
                if f32 { (h(x) * 64.0).to_bits() } else { x }
            };
            (0..rows).map(|_| (0..cols).map(|_| elem(r)).collect()).collect()
        };
        let a = matrix(32, 4, false, &mut r);
        let b = matrix(16, 8, false, &mut r);
        let mut c = matrix(32, 8, k.c32, &mut r);
        cancel_some(&mut c, &a, &b, k.c32, &mut r);
        let aw = pack(&a, 16, 4, |l, i| a884(k.a_col, l, i));
        let bw = pack(&b, 16, 4, |l, i| b884(k.b_col, l, i));
        let cw = pack(&c, if k.c32 { 32 } else { 16 }, 8, |l, i| cd884(k.c32, l, i));
        let d_words = if k.d32 { 8 } else { 4 };
        let name = k.name();
        let spec = spec(&dir, &name, [&aw, &bw, &cw], 32 * d_words);
        for (way, check) in ways {
            let d = way.run(&spec);
            let bad = (0..32 * 8).find(|&e| {
                let (l, i) = (e / 8, e % 8);
                let (row, col) = cd884(k.d32, l, i);
                let got = if k.d32 {
                    d[8 * l + i]
                } else {
                    d[4 * l + i / 2] >> (16 * (i % 2)) & 0xffff
                };
                match check {
                    Check::Exact => got != f16_reference(k, &a, &b, &c, row, col),
                    Check::Bound => !within_bound(k, &a, &b, &c, (row, col), got),
                }
            });
            if let Some(e) = bad {
                let (row, col) = cd884(k.d32, e / 8, e % 8);
                failures.push(format!(
                    "{name} ({}): D[{row}][{col}] (lane {}, element {}) wrong, ptxas's order gives {:#x}",
                    way.name,
                    e / 8,
                    e % 8,
                    f16_reference(k, &a, &b, &c, row, col)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn m8n8k4_f16_on_sm90_and_sm80_gives_ptxas_order_and_sm75s_native_hmma_agrees_within_the_bound() {
    let f = "hopper/mma_m8n8k4.ptx";
    f16_kernels_agree(&[
        (ptxc_way(f, Arch::Sm90, Engine::Timed), Check::Exact),
        (ptxc_way(f, Arch::Sm90, Engine::Functional), Check::Exact),
        (mir_way(f, Arch::Sm90), Check::Exact),
        (ptxc_way(f, Arch::Sm80, Engine::Timed), Check::Exact),
        (ptxc_way(f, Arch::Sm86, Engine::Functional), Check::Exact),
        (ptxc_way(f, Arch::Sm90, Engine::Functional), Check::Bound),
        (ptxc_way(f, Arch::Sm75, Engine::Timed), Check::Bound),
        (mir_way(f, Arch::Sm75), Check::Bound),
    ]);
}

#[test]
fn m8n8k4_f16_ptxas_sm90_and_sm80_give_the_same_bits_as_ptxc() {
    let f = "hopper/mma_m8n8k4.ptx";
    f16_kernels_agree(&[
        (ptxas_way(f, Arch::Sm90, Engine::Timed), Check::Exact),
        (ptxas_way(f, Arch::Sm90, Engine::Functional), Check::Exact),
        (ptxas_way(f, Arch::Sm80, Engine::Functional), Check::Exact),
    ]);
}

/// m8n8k4 of f16 compiles for sm_80 and sm_90 without HMMA.884.
#[test]
fn m8n8k4_f16_on_sm80_and_sm90_uses_no_hmma884() {
    for arch in [Arch::Sm80, Arch::Sm90] {
        let sass = sass_of("hopper/mma_m8n8k4.ptx", arch);
        assert!(!sass.contains("HMMA"), "HMMA in ptxc's {} code:\n{sass}", arch.name());
        assert!(sass.contains("SHFL.IDX") && sass.contains("FFMA"), "{sass}");
    }
}

/// ptxc's SASS listing of `tests/<file>` for `arch`.
fn sass_of(file: &str, arch: Arch) -> String {
    let file_name = base_name(file);
    let dir = scratch(&format!("sim_hopper_mma_emulated_sass_{file_name}_{}", arch.name()));
    let (ptx, cubin) = (dir.join(file_name), dir.join("ptxc.cubin"));
    std::fs::write(&ptx, ptx_for(file, arch)).unwrap();
    let o = ptxc_compile(arch.name(), &ptx, &cubin);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = ptxc(&["disasm", cubin.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    text(&o.stdout)
}

/// MIR lowered for no particular target keeps the forms sm_90's tensor cores lack; the back
/// end refuses them for sm_90 (and m8n8k4 of f16 for sm_80) naming the form and the target,
/// without a panic.
#[test]
fn mir_not_lowered_for_the_target_is_refused_with_the_form() {
    use ptxc_backend::compile::{Options, compile_module};
    let cases = [
        ("hopper/mma_sub_byte.ptx", Arch::Sm90, "4-bit integers on sm_90"),
        ("hopper/mma_m8n8k4.ptx", Arch::Sm90, "`mma.m8n8k4` of f16) on sm_90"),
        ("hopper/mma_m8n8k4.ptx", Arch::Sm80, "`mma.m8n8k4` of f16) on sm_80"),
    ];
    for (file, arch, gist) in cases {
        let module = ptxc::pipeline::lower_ptx(&ptx_for(file, arch), file).unwrap_or_else(|e| panic!("{}", e.0));
        let opts = Options {
            arch,
            ..Options::default()
        };
        let err = compile_module(module, &opts, &|_| false, &mut |_, _, _| {})
            .err()
            .unwrap_or_else(|| panic!("{file} compiles for {} unexpanded", arch.name()))
            .to_string();
        assert!(err.contains(gist), "{file} on {}: {err}", arch.name());
    }
}
