//! One launch run five ways: ptxas's and ptxc's cubins on the timed and the functional
//! engine, and ptxc's MIR on the interpreter. Every run must have zero hazards and no stray
//! accesses; the caller compares the buffers.

use ptxc::launch::LaunchSpec;
use ptxc::run::{RunOptions, run, run_mir};
use ptxc_sass::isa::Arch;
use ptxc_sim::Engine;
use std::path::Path;

/// Warp instructions a run may take (the test kernels take far fewer).
const INSTRUCTION_LIMIT: u64 = 1 << 24;

/// What runs a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// ptxas's cubin on an engine.
    Ptxas(Engine),
    /// ptxc's cubin on an engine.
    Ptxc(Engine),
    /// ptxc's MIR on the interpreter.
    Mir,
}

/// The five ways, ptxas's timed run first.
pub const WAYS: [Via; 5] = [
    Via::Ptxas(Engine::Timed),
    Via::Ptxas(Engine::Functional),
    Via::Ptxc(Engine::Timed),
    Via::Ptxc(Engine::Functional),
    Via::Mir,
];

/// The two cubins of one PTX file for `arch`: ptxas's and ptxc's.
pub struct Cubins {
    ptx: String,
    name: String,
    ptxas: Vec<u8>,
    /// ptxc's cubin (none where ptxc refuses the kernel).
    ptxc: Option<Vec<u8>>,
}

impl Cubins {
    /// Compiles `ptx` (named `name` in messages) with both compilers for `arch`.
    pub fn new(arch: Arch, ptx: &Path, name: &str) -> Cubins {
        let mut c = Cubins::ptxas_only(arch, ptx, name);
        let opts = ptxc::pipeline::CompileOptions {
            arch,
            ..Default::default()
        };
        let ptxc = ptxc::pipeline::compile_ptx(&c.ptx, name, &opts).unwrap_or_else(|e| panic!("ptxc {arch}: {}", e.0));
        c.ptxc = Some(ptxc);
        c
    }

    /// Compiles `ptx` with ptxas alone (for a target where ptxc refuses it).
    pub fn ptxas_only(arch: Arch, ptx: &Path, name: &str) -> Cubins {
        // A directory of its own: tests of one binary may compile the same file at once.
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let out = super::scratch(&format!("{name}_{}_{call}", arch.name())).join("ptxas.cubin");
        super::ptxas_for(arch.name(), ptx, &out);
        Cubins {
            ptx: std::fs::read_to_string(ptx).unwrap(),
            name: name.to_string(),
            ptxas: std::fs::read(out).unwrap(),
            ptxc: None,
        }
    }

    /// The bytes of buffer `buffer` after running `spec` `via` (zero hazards, no stray
    /// accesses).
    pub fn run(&self, spec: &LaunchSpec, via: Via, buffer: &str) -> Vec<u8> {
        let tag = format!("{} ({via:?})", spec.kernel);
        let out = match via {
            Via::Ptxas(engine) | Via::Ptxc(engine) => {
                let mut opts = RunOptions {
                    engine,
                    ..RunOptions::default()
                };
                // A kernel that no longer terminates fails in seconds, not hours.
                opts.config.instruction_limit = INSTRUCTION_LIMIT;
                let cubin = match via {
                    Via::Ptxas(_) => &self.ptxas,
                    _ => self.ptxc.as_ref().unwrap_or_else(|| panic!("{tag}: no ptxc cubin")),
                };
                run(cubin, spec, &opts)
            }
            Via::Mir => {
                let module = ptxc::pipeline::lower_ptx(&self.ptx, &self.name).unwrap_or_else(|e| panic!("{}", e.0));
                run_mir(&module, spec, RunOptions::default().config)
            }
        }
        .unwrap_or_else(|e| panic!("{tag}: {e}"));
        let s = &out.stats;
        assert_eq!(s.hazards, 0, "{tag}: hazards: {:?}", s.hazard_reports.first());
        assert_eq!(s.stray_accesses, 0, "{tag}: {:?}", s.stray_reports.first());
        out.buffers[buffer].bytes.clone()
    }

    /// Runs `spec` five ways and returns buffer `buffer`, which all five runs must agree on.
    pub fn agree(&self, spec: &LaunchSpec, buffer: &str) -> Vec<u8> {
        let first = self.run(spec, WAYS[0], buffer);
        for via in &WAYS[1..] {
            assert!(
                self.run(spec, *via, buffer) == first,
                "{}: {via:?} differs from ptxas's timed run",
                spec.kernel
            );
        }
        first
    }
}
