//! Shared by the `backend_float*` tests: one-instruction kernels over arrays of inputs, run
//! on the MIR interpreter before and after the back end's legalization, and generators of
//! edge-case and random inputs.
#![allow(dead_code)]

use ptxc_backend::legalize::{LegalizeOptions, legalize};
use ptxc_mir::interp::{LaunchConfig, VecMemory, launch};
use ptxc_mir::ir::Function;

/// Threads per CTA of the test kernels.
const BLOCK: u32 = 128;
/// Where the buffers start in the interpreter's global memory.
const BASE: u64 = 0x1000_0000;

/// A one-instruction kernel: `body` computes `%d` (type `out`) from `%a`, `%b`, `%c` (type
/// `input`), with `%p`, `%q` predicates and `%t0`..`%t3` scratch registers of the input
/// type available.
#[derive(Clone, Debug)]
pub struct OpKernel {
    /// PTX instructions.
    pub body: String,
    /// PTX type of the inputs (`f32`, `u64`, ...).
    pub input: &'static str,
    /// PTX type of the result.
    pub out: &'static str,
}

/// Bytes of a PTX type.
pub fn size_of(ty: &str) -> u64 {
    match &ty[1..] {
        "8" => 1,
        "16" => 2,
        "32" => 4,
        _ => 8,
    }
}

/// The register type of a PTX type (8-bit values live in 16-bit registers).
fn reg_type(ty: &str) -> String {
    if ty.ends_with('8') {
        format!("{}16", &ty[..1])
    } else {
        ty.to_string()
    }
}

impl OpKernel {
    /// A kernel computing `body`.
    pub fn new(body: &str, input: &'static str, out: &'static str) -> OpKernel {
        OpKernel {
            body: body.to_string(),
            input,
            out,
        }
    }

    /// The PTX module.
    pub fn ptx(&self) -> String {
        let (si, so) = (size_of(self.input), size_of(self.out));
        let (ri, ro) = (reg_type(self.input), reg_type(self.out));
        format!(
            ".version 7.8\n.target sm_75\n.address_size 64\n\
             .visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{{\n\
             .reg .{ri} %a, %b, %c, %t<4>;\n.reg .{ro} %d;\n.reg .pred %p, %q;\n\
             .reg .u32 %i, %n, %x;\n.reg .u64 %r<9>;\n.reg .b16 %h<4>;\n.reg .f32 %f<2>;\n\
             mov.u32 %i, %tid.x;\nmov.u32 %n, %ctaid.x;\nmov.u32 %x, %ntid.x;\nmad.lo.u32 %i, %n, %x, %i;\n\
             ld.param.u64 %r1, [pa];\nld.param.u64 %r2, [pb];\nld.param.u64 %r3, [pc];\nld.param.u64 %r4, [pd];\n\
             mul.wide.u32 %r5, %i, {si};\nmul.wide.u32 %r6, %i, {so};\n\
             add.u64 %r1, %r1, %r5;\nadd.u64 %r2, %r2, %r5;\nadd.u64 %r3, %r3, %r5;\nadd.u64 %r4, %r4, %r6;\n\
             ld.global.{it} %a, [%r1];\nld.global.{it} %b, [%r2];\nld.global.{it} %c, [%r3];\n\
             {body}\n\
             st.global.{ot} [%r4], %d;\nret;\n}}\n",
            it = self.input,
            ot = self.out,
            body = self.body,
        )
    }

    /// The kernel in MIR.
    pub fn mir(&self) -> Function {
        let m = ptxc::pipeline::lower_ptx(&self.ptx(), "op.ptx").unwrap_or_else(|e| panic!("{}\n{}", e.0, self.ptx()));
        m.functions.into_iter().next().expect("one kernel")
    }
}

/// Runs `func` (a kernel of `k`'s shape) on the interpreter over `inputs` (a, b, c as bits).
pub fn run(func: &Function, k: &OpKernel, inputs: &[[u64; 3]]) -> Vec<u64> {
    let n = inputs.len() as u64;
    let (si, so) = (size_of(k.input), size_of(k.out));
    let padded = n.div_ceil(BLOCK as u64) * BLOCK as u64;
    let mut mem = VecMemory {
        base: BASE,
        bytes: vec![0; (padded * (3 * si + so)) as usize],
    };
    for (i, inp) in inputs.iter().enumerate() {
        for (j, v) in inp.iter().enumerate() {
            let at = (j as u64 * padded * si + i as u64 * si) as usize;
            mem.bytes[at..at + si as usize].copy_from_slice(&v.to_le_bytes()[..si as usize]);
        }
    }
    let mut params = Vec::new();
    for j in 0..4u64 {
        params.extend_from_slice(&(BASE + j * padded * si).to_le_bytes());
    }
    let cfg = LaunchConfig {
        grid: [(padded / BLOCK as u64) as u32, 1, 1],
        block: [BLOCK, 1, 1],
        dynamic_shared: 0,
        reserved_shared: 0,
        params,
        cluster: None,
    };
    launch(func, &cfg, &mut mem).unwrap_or_else(|e| panic!("interpreter: {e}"));
    let out = (3 * padded * si) as usize;
    (0..inputs.len())
        .map(|i| {
            let at = out + i * so as usize;
            let mut b = [0u8; 8];
            b[..so as usize].copy_from_slice(&mem.bytes[at..at + so as usize]);
            u64::from_le_bytes(b)
        })
        .collect()
}

/// The kernel legalized by the back end (verified).
pub fn legalized(func: &Function) -> Function {
    let mut g = func.clone();
    legalize(&mut g, &LegalizeOptions { fmad: false });
    if let Err(e) = ptxc_mir::ir::verify(&g) {
        panic!("legalized MIR does not verify: {e}\n{g}");
    }
    g
}

/// How results are compared.
#[derive(Clone, Copy, Debug)]
pub enum Compare {
    /// Bit for bit, any NaN equal to any NaN of the float type with this many bits.
    Exact(u32),
    /// Integers bit for bit.
    Bits,
    /// Two f16 lanes, each bit for bit or both NaN.
    Half2,
    /// Floats of this many bits within a relative error (ulps of the format), NaN-ness and
    /// infinities exact.
    Ulps(u32, u64),
}

fn is_nan(bits: u64, w: u32) -> bool {
    match w {
        16 => (bits & 0x7c00) == 0x7c00 && bits & 0x3ff != 0,
        32 => f32::from_bits(bits as u32).is_nan(),
        _ => f64::from_bits(bits).is_nan(),
    }
}

/// True if `got` and `want` agree under `how`.
pub fn agree(how: Compare, got: u64, want: u64) -> bool {
    match how {
        Compare::Bits => got == want,
        Compare::Half2 => {
            (0..2).all(|k| agree(Compare::Exact(16), got >> (16 * k) & 0xffff, want >> (16 * k) & 0xffff))
        }
        Compare::Exact(w) => got == want || (is_nan(got, w) && is_nan(want, w)),
        Compare::Ulps(w, ulps) => {
            if got == want || (is_nan(got, w) && is_nan(want, w)) {
                return true;
            }
            if is_nan(got, w) || is_nan(want, w) || (got >> (w - 1)) != (want >> (w - 1)) {
                return false;
            }
            got.abs_diff(want) <= ulps
        }
    }
}

/// Checks that the legalized kernel computes what the original does on `inputs`.
pub fn check_legalized(k: &OpKernel, inputs: &[[u64; 3]], how: Compare) {
    let f = k.mir();
    let g = legalized(&f);
    let want = run(&f, k, inputs);
    let got = run(&g, k, inputs);
    let bad: Vec<String> = inputs
        .iter()
        .zip(want.iter().zip(&got))
        .filter(|(_, (w, g))| !agree(how, **g, **w))
        .take(8)
        .map(|(i, (w, g))| format!("inputs {:#x} {:#x} {:#x}: got {g:#x}, want {w:#x}", i[0], i[1], i[2]))
        .collect();
    assert!(
        bad.is_empty(),
        "`{}` differs after legalization:\n{}",
        k.body,
        bad.join("\n")
    );
}

/// A xorshift generator.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// f32 values at the edges: zeros, infinities, NaN, subnormals, the normal range's ends,
/// and values around the exponents where fast paths change.
pub fn f32_edges() -> Vec<u64> {
    let mut v: Vec<u32> = vec![
        0,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7fff_ffff,
        1,
        0x8000_0001,
        0x007f_ffff,
        0x0040_0000,
        0x0080_0000,
        0x0080_0001,
        0x7f7f_ffff,
        0xff7f_ffff,
        0x3f80_0000,
        0xbf80_0000,
        0x4040_0000,
        0x3eaa_aaab,
    ];
    for e in [
        1u32, 2, 3, 24, 25, 26, 27, 100, 126, 127, 128, 200, 226, 227, 250, 251, 252, 253, 254,
    ] {
        v.push(e << 23);
        v.push(e << 23 | 0x0055_5555);
        v.push(0x8000_0000 | e << 23 | 0x007f_ffff);
    }
    v.into_iter().map(u64::from).collect()
}

/// f64 values at the edges.
pub fn f64_edges() -> Vec<u64> {
    let mut v: Vec<u64> = vec![
        0,
        1 << 63,
        0x7ff0_0000_0000_0000,
        0xfff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x7fff_ffff_ffff_ffff,
        1,
        0x8000_0000_0000_0001,
        0x000f_ffff_ffff_ffff,
        0x0008_0000_0000_0000,
        0x0000_0000_ffff_ffff,
        0x0010_0000_0000_0000,
        0x7fef_ffff_ffff_ffff,
        0xffef_ffff_ffff_ffff,
        1f64.to_bits(),
        (-1f64).to_bits(),
        3f64.to_bits(),
        (1.0f64 / 3.0).to_bits(),
        2f64.to_bits(),
    ];
    for e in [
        1u64, 2, 53, 54, 55, 100, 1000, 1022, 1023, 1024, 1500, 2000, 2044, 2045, 2046,
    ] {
        v.push(e << 52);
        v.push(e << 52 | 0x0005_5555_5555_5555);
        v.push(1 << 63 | e << 52 | 0x000f_ffff_ffff_ffff);
    }
    v
}

/// Every pair of `edges`, then `random` pairs drawn from `draw`.
pub fn pairs(edges: &[u64], random: usize, mut draw: impl FnMut(&mut Rng) -> u64) -> Vec<[u64; 3]> {
    let mut out: Vec<[u64; 3]> = edges
        .iter()
        .flat_map(|&a| edges.iter().map(move |&b| [a, b, 0]))
        .collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..random {
        out.push([draw(&mut rng), draw(&mut rng), draw(&mut rng)]);
    }
    out
}

/// A random f32 with a random exponent (all classes, mostly finite).
pub fn random_f32(r: &mut Rng) -> u64 {
    r.next() & 0xffff_ffff
}

/// A random f64 with a random exponent.
pub fn random_f64(r: &mut Rng) -> u64 {
    r.next()
}

/// A random f32 from a moderate range (exponent within 2^-40..2^40).
pub fn moderate_f32(r: &mut Rng) -> u64 {
    let x = r.next();
    let e = 87 + (x >> 40) % 80;
    (x & 0x807f_ffff) | e << 23
}

/// A random f64 from a moderate range.
pub fn moderate_f64(r: &mut Rng) -> u64 {
    let x = r.next();
    let e = 1023 - 200 + (x >> 11) % 400;
    (x & 0x800f_ffff_ffff_ffff) | e << 52
}

/// Runs ptxc's cubin of `k` (no contraction) on the simulator over `inputs`; `dir` holds the
/// input files. Hazards are errors.
pub fn run_simulator(k: &OpKernel, inputs: &[[u64; 3]], dir: &std::path::Path) -> Result<Vec<u64>, String> {
    let opts = ptxc::pipeline::CompileOptions {
        fmad: false,
        ..Default::default()
    };
    let cubin = ptxc::pipeline::compile_ptx(&k.ptx(), "op.ptx", &opts).map_err(|e| e.0)?;
    run_cubin(&cubin, k, inputs, dir)
}

/// Runs `cubin` (a compilation of `k`, by ptxc or ptxas) on the simulator's timed engine over
/// `inputs`; `dir` holds the input files. Hazards are errors.
pub fn run_cubin(cubin: &[u8], k: &OpKernel, inputs: &[[u64; 3]], dir: &std::path::Path) -> Result<Vec<u64>, String> {
    use ptxc::launch::{BufferInit, LaunchSpec, ParamSpec, Scalar};
    use std::collections::BTreeMap;
    let scalar = |ty: &str| match size_of(ty) {
        1 => Scalar::U8,
        2 => Scalar::U16,
        4 => Scalar::U32,
        _ => Scalar::U64,
    };
    let (si, so) = (size_of(k.input) as usize, size_of(k.out) as usize);
    let padded = inputs.len().div_ceil(BLOCK as usize) * BLOCK as usize;
    let mut buffers = BTreeMap::new();
    let mut params = Vec::new();
    for (j, name) in ["a", "b", "c"].iter().enumerate() {
        let mut bytes = vec![0u8; padded * si];
        for (i, inp) in inputs.iter().enumerate() {
            bytes[i * si..(i + 1) * si].copy_from_slice(&inp[j].to_le_bytes()[..si]);
        }
        let path = dir.join(format!("{name}.npy"));
        let array = ptxc::npy::Array::new(scalar(k.input), bytes);
        ptxc::npy::write(&path, &array)?;
        buffers.insert(name.to_string(), BufferInit::File(path));
    }
    buffers.insert(
        "d".to_string(),
        BufferInit::Zero {
            dtype: scalar(k.out),
            len: padded,
        },
    );
    for name in ["a", "b", "c", "d"] {
        params.push(ParamSpec::Ptr {
            buffer: name.to_string(),
            offset: 0,
        });
    }
    let spec = LaunchSpec {
        kernel: "k".to_string(),
        grid: [(padded / BLOCK as usize) as u32, 1, 1],
        block: [BLOCK, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: None,
        params,
        buffers,
        symbols: Default::default(),
        limits: Default::default(),
    };
    let out = ptxc::run::run(cubin, &spec, &Default::default())?;
    if out.stats.hazards > 0 {
        return Err(format!(
            "{} hazards: {:?}",
            out.stats.hazards,
            out.stats.hazard_reports.first()
        ));
    }
    let d = &out.buffers["d"].bytes;
    Ok((0..inputs.len())
        .map(|i| {
            let mut b = [0u8; 8];
            b[..so].copy_from_slice(&d[i * so..(i + 1) * so]);
            u64::from_le_bytes(b)
        })
        .collect())
}

/// Checks that ptxc's cubin of `k` computes on the simulator what the MIR says.
pub fn check_simulated(k: &OpKernel, inputs: &[[u64; 3]], how: Compare, dir: &std::path::Path) {
    let want = run(&k.mir(), k, inputs);
    let got = run_simulator(k, inputs, dir).unwrap_or_else(|e| panic!("`{}`: {e}", k.body));
    let bad: Vec<String> = inputs
        .iter()
        .zip(want.iter().zip(&got))
        .filter(|(_, (w, g))| !agree(how, **g, **w))
        .take(8)
        .map(|(i, (w, g))| format!("inputs {:#x} {:#x} {:#x}: got {g:#x}, want {w:#x}", i[0], i[1], i[2]))
        .collect();
    assert!(bad.is_empty(), "`{}` on the simulator:\n{}", k.body, bad.join("\n"));
}
