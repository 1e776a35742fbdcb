//! Loading and running the ZLUDA conformance kernels (shared by the conformance tests).

use ptxc_mir::interp::{LaunchConfig, VecMemory, launch};
use ptxc_mir::ir::{Function, verify};
use serde_json::Value as Json;

/// Tests of `.approx` functions, compared within the PTX ISA's error bounds.
const APPROX: &[&str] = &["sin", "cos", "ex2", "lg2", "rcp", "rsqrt", "tanh"];

/// One kernel with its recorded input and output.
pub struct Case {
    /// Test (and kernel) name.
    pub name: String,
    /// Threads per block.
    pub block: u32,
    /// Input bytes, if the kernel takes an input.
    pub input: Option<Vec<u8>>,
    /// Expected output bytes.
    pub output: Vec<u8>,
    /// Output element type.
    pub output_type: String,
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

/// Every case of the manifest.
pub fn load_cases() -> Vec<Case> {
    let text = std::fs::read_to_string(ptxc_testkit::conformance_dir().join("manifest.json"))
        .expect("the zluda conformance data is missing");
    let m: Json = serde_json::from_str(&text).expect("manifest is JSON");
    m["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| Case {
            name: t["name"].as_str().expect("name").to_string(),
            block: t["block"].as_u64().unwrap_or(1) as u32,
            input: t["input_hex"].as_str().filter(|s| !s.is_empty()).map(hex),
            output: hex(t["output_hex"].as_str().expect("output")),
            output_type: t["output_type"].as_str().unwrap_or("u8").to_string(),
        })
        .collect()
}

/// Lowers the case's kernel (verified).
pub fn lower_case(case: &Case) -> Result<Function, String> {
    let src = std::fs::read_to_string(ptxc_testkit::conformance_dir().join(format!("{}.ptx", case.name)))
        .map_err(|e| e.to_string())?;
    let checked = ptxc_frontend::parse_and_check(&src)
        .map_err(|d| format!("front end: {}", ptxc_frontend::render_diagnostics(&case.name, &src, &d)))?;
    let module = ptxc_mir::lower::lower_module(&checked).map_err(|errs| {
        let msgs: Vec<String> = errs.iter().map(|e| e.message.clone()).collect();
        format!("lowering: {}", msgs.join("; "))
    })?;
    let func = module
        .functions
        .into_iter()
        .find(|f| f.name == case.name)
        .ok_or("no kernel named after the test")?;
    verify(&func).map_err(|e| e.to_string())?;
    Ok(func)
}

const INPUT_BASE: u64 = 0x1000_0000;
const OUTPUT_OFFSET: u64 = 0x10_0000;

/// Runs the case after `transform` and compares the output.
pub fn run_case(case: &Case, transform: &dyn Fn(&mut Function)) -> Result<(), String> {
    let mut func = lower_case(case)?;
    transform(&mut func);
    verify(&func).map_err(|e| format!("after the pass: {e}\n{func}"))?;
    let mut mem = VecMemory {
        base: INPUT_BASE,
        bytes: vec![0; 2 * OUTPUT_OFFSET as usize],
    };
    if let Some(input) = &case.input {
        mem.bytes[..input.len()].copy_from_slice(input);
    }
    let out_addr = INPUT_BASE + OUTPUT_OFFSET;
    let ptrs: Vec<u64> = if func.params.len() == 2 {
        vec![INPUT_BASE, out_addr]
    } else {
        vec![out_addr]
    };
    let size = func.params.iter().map(|p| p.offset + p.size).max().unwrap_or(0) as usize;
    let mut params = vec![0u8; size];
    for (p, v) in func.params.iter().zip(&ptrs) {
        params[p.offset as usize..p.offset as usize + 8].copy_from_slice(&v.to_le_bytes());
    }
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [case.block, 1, 1],
        dynamic_shared: 1024,
        reserved_shared: 0,
        params,
        cluster: None,
    };
    launch(&func, &cfg, &mut mem).map_err(|e| e.to_string())?;
    let got = &mem.bytes[OUTPUT_OFFSET as usize..OUTPUT_OFFSET as usize + case.output.len()];
    if got == case.output.as_slice() || (APPROX.contains(&case.name.as_str()) && close_enough(case, got)) {
        Ok(())
    } else {
        Err(format!("output {} expected {}", to_hex(got), to_hex(&case.output)))
    }
}

fn to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Within 2 ulp or 2^-20 absolute (the bounds of rcp/rsqrt/ex2 and of lg2/sin/cos).
fn close_enough(case: &Case, got: &[u8]) -> bool {
    let size = if case.output_type == "f64" { 8 } else { 4 };
    got.chunks(size).zip(case.output.chunks(size)).all(|(g, w)| {
        let (g, w) = if size == 8 {
            let f = |b: &[u8]| f64::from_le_bytes(b.try_into().expect("8 bytes"));
            (f(g), f(w))
        } else {
            let f = |b: &[u8]| f32::from_le_bytes(b.try_into().expect("4 bytes")) as f64;
            (f(g), f(w))
        };
        let ulp = if size == 8 { f64::EPSILON } else { f32::EPSILON as f64 } * w.abs().max(f64::MIN_POSITIVE);
        g == w || (g - w).abs() <= (2.0 * ulp).max(2f64.powf(-20.0))
    })
}
