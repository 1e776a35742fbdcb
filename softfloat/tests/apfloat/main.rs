//! ptxc-softfloat against `rustc_apfloat` (LLVM's APFloat), bit for bit, in every format and
//! rounding mode apfloat has: add, sub, mul, div, fma, conversions between formats, to and
//! from integers, round to integral, min/max; sqrt (which apfloat lacks) against exact
//! squares in binary128; NVIDIA's `.ftz` division rule against apfloat in a format of the same
//! precision and a wider exponent. `.ftz` forms are compared on flushed operands and flushed
//! results. Where apfloat's result is a NaN, the result must be the canonical NaN (apfloat
//! propagates payloads; NVIDIA does not).
//!
//! Operands: the edge values of each format crossed with each other, random bit patterns,
//! random values with exponents near the edges and long runs of zeros or ones, and operands
//! built to have exact results at or next to rounding ties. The seed is fixed. Each test
//! prints how many operand tuples it compared (`cargo test -- --nocapture`).

mod ap;
mod cases;
mod operands;
mod ties;

use ptxc_softfloat::Format;

/// Runs the comparisons of one test, collecting mismatches, and reports the count.
pub struct Check {
    name: &'static str,
    compared: u64,
    failures: Vec<String>,
}

impl Check {
    /// A test's tally.
    pub fn new(name: &'static str) -> Check {
        Check {
            name,
            compared: 0,
            failures: Vec::new(),
        }
    }

    /// Compares a result with apfloat's: equal bits, or the canonical NaN for a NaN.
    pub fn same(&mut self, f: Format, ours: u64, theirs: u64, what: impl FnOnce() -> String) {
        self.compared += 1;
        let ok = if f.is_nan(theirs) {
            ours == f.canonical_nan()
        } else {
            ours == theirs
        };
        if !ok {
            self.fail(format!("{}: ours {ours:#x}, apfloat {theirs:#x}", what()));
        }
    }

    /// Counts a comparison that the caller decided.
    pub fn holds(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.compared += 1;
        if !ok {
            self.fail(what());
        }
    }

    fn fail(&mut self, msg: String) {
        if self.failures.len() < 20 {
            self.failures.push(msg);
        }
    }

    /// Prints the count and fails the test on any mismatch.
    pub fn finish(self, started: std::time::Instant) {
        eprintln!(
            "{}: {} results compared in {:.2} s",
            self.name,
            self.compared,
            started.elapsed().as_secs_f64()
        );
        assert!(
            self.failures.is_empty(),
            "{} mismatches:\n{}",
            self.name,
            self.failures.join("\n")
        );
    }
}
