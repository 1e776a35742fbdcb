//! Malformed input: every truncation of real cubins and random byte changes give an error or
//! a module (which the writer then handles without panicking), never a panic; and errors say
//! what is wrong and where.

mod cubin_support;

use std::panic::{AssertUnwindSafe, catch_unwind};

use cubin_support::data_dir;
use ptxc_sass::cubin::{self, CubinError};

const SAMPLES: [&str; 3] = ["vector_add.cubin", "attrs.cubin", "cudatest.7.sm_75.cubin"];
const MUTATIONS_PER_SAMPLE: usize = 4000;

fn sample(name: &str) -> Vec<u8> {
    let path = data_dir().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("missing test data {}: {e}", path.display()))
}

/// Reads `bytes` and, if that works, writes the module; `Err` if either panicked.
fn survives(bytes: &[u8]) -> Result<(), String> {
    catch_unwind(AssertUnwindSafe(|| {
        if let Ok(m) = cubin::read(bytes) {
            let _ = cubin::try_write(&m);
        }
    }))
    .map_err(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}

/// A small deterministic generator (xorshift64*), so failures are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn quiet_panics<T>(f: impl FnOnce() -> T) -> T {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let out = f();
    std::panic::set_hook(hook);
    out
}

#[test]
fn every_truncation_is_an_error_or_a_module() {
    let failures: Vec<String> = quiet_panics(|| {
        SAMPLES
            .iter()
            .flat_map(|name| {
                let bytes = sample(name);
                (0..bytes.len())
                    .filter_map(|len| survives(&bytes[..len]).err().map(|e| format!("{name}[..{len}]: {e}")))
                    .collect::<Vec<_>>()
            })
            .collect()
    });
    assert!(failures.is_empty(), "panics:\n{}", failures.join("\n"));
}

#[test]
fn every_truncation_of_a_real_cubin_is_rejected() {
    for name in SAMPLES {
        let bytes = sample(name);
        let accepted: Vec<usize> = (0..bytes.len())
            .filter(|&len| cubin::read(&bytes[..len]).is_ok())
            .collect();
        assert!(
            accepted.is_empty(),
            "{name}: truncations to {accepted:?} bytes read without error"
        );
    }
}

#[test]
fn random_byte_changes_never_panic() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut failures = Vec::new();
    let mut read_ok = 0;
    quiet_panics(|| {
        for name in SAMPLES {
            let original = sample(name);
            for mutation in 0..MUTATIONS_PER_SAMPLE {
                let mut bytes = original.clone();
                for _ in 0..1 + rng.below(4) {
                    let at = rng.below(bytes.len());
                    bytes[at] = match rng.below(3) {
                        0 => bytes[at] ^ (1 << rng.below(8)),
                        1 => rng.next() as u8,
                        _ => 0xff,
                    };
                }
                read_ok += usize::from(cubin::read(&bytes).is_ok());
                if let Err(e) = survives(&bytes) {
                    failures.push(format!("{name} mutation {mutation}: {e}"));
                }
            }
        }
    });
    assert!(failures.is_empty(), "panics:\n{}", failures.join("\n"));
    eprintln!(
        "{read_ok} of {} mutated files still read",
        SAMPLES.len() * MUTATIONS_PER_SAMPLE
    );
}

#[test]
fn errors_name_the_problem_and_the_place() {
    let bytes = sample("vector_add.cubin");
    let err = cubin::read(&bytes[..40]).unwrap_err();
    assert!(matches!(err, CubinError::Elf(_)), "{err}");

    let mut wrong_abi = bytes.clone();
    wrong_abi[7] = 0x03;
    let err = cubin::read(&wrong_abi).unwrap_err().to_string();
    assert!(err.contains("OSABI 0x3"), "{err}");

    let mut wrong_machine = bytes.clone();
    wrong_machine[18] = 62;
    let err = cubin::read(&wrong_machine).unwrap_err().to_string();
    assert!(err.contains("e_machine 62"), "{err}");

    // The first record of .nv.info.vector_add (section offset 0x4b8) claims a huge payload.
    let mut bad_record = bytes.clone();
    bad_record[0x4b8 + 2] = 0xff;
    let err = cubin::read(&bad_record).unwrap_err();
    assert_eq!(
        err,
        CubinError::Section {
            section: ".nv.info.vector_add".into(),
            offset: 0,
            problem: "EIATTR_LANGUAGE payload of 255 bytes cut short".into(),
        }
    );

    // The kernel's .text sh_info names a symbol that does not exist.
    let m = cubin::read(&bytes).unwrap();
    assert_eq!(m.kernels.len(), 1);
}
