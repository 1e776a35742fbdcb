//! `ptxc sched-report`: compiles one kernel with every combination of scheduling heuristics,
//! runs each cubin of the launch spec on the timed simulator and tabulates cycles, stalls by
//! reason, registers and instruction counts, next to a baseline cubin (ptxas's, compiled by
//! the user) when one is given. Every variant must produce the same buffers.

use crate::launch::LaunchSpec;
use crate::pipeline::{CompileOptions, compile_ptx_module};
use crate::run::{RunOptions, RunOutput, run};
use ptxc_sass::cubin;
use ptxc_sass::isa::{Op, decode};
use std::fmt::Write;

/// One measured variant.
#[derive(Clone, Debug)]
pub struct Row {
    /// `pre-RA / post-RA` heuristic names, or the baseline's label.
    pub label: String,
    /// Registers per thread recorded in the cubin.
    pub registers: u32,
    /// Instructions in the kernel's code (without the padding).
    pub instructions: usize,
    /// The run.
    pub run: RunOutput,
}

/// The variants: every post-allocation heuristic after the default pre-allocation one, and
/// every pre-allocation heuristic before the default post-allocation one.
pub fn variants() -> Vec<(String, Option<String>)> {
    use ptxc_backend::compile::{DEFAULT_PRE_SCHED, DEFAULT_SCHED};
    use ptxc_backend::sched::{heuristics, pre_ra};
    let mut v: Vec<(String, Option<String>)> = heuristics::NAMES
        .iter()
        .map(|h| (DEFAULT_PRE_SCHED.to_string(), Some(h.to_string())))
        .collect();
    v.push((DEFAULT_PRE_SCHED.to_string(), None));
    v.extend(
        pre_ra::NAMES
            .iter()
            .filter(|p| **p != DEFAULT_PRE_SCHED)
            .map(|p| (p.to_string(), Some(DEFAULT_SCHED.to_string()))),
    );
    v
}

/// Registers and instruction count of `kernel` in `bytes`.
pub fn static_counts(bytes: &[u8], kernel: &str) -> Result<(u32, usize), String> {
    let m = cubin::read(bytes).map_err(|e| format!("bad cubin: {e}"))?;
    let k = m
        .kernels
        .iter()
        .find(|k| k.name == kernel)
        .ok_or_else(|| format!("no kernel `{kernel}` in the cubin"))?;
    let arch = m
        .arch()
        .ok_or_else(|| format!("bad cubin: unknown architecture sm_{}", m.sm))?;
    let insts = decode::decode_all(arch, &k.code).map_err(|e| e.to_string())?;
    // Every instruction but the padding (NOPs, and the `BRA` to itself that closes the
    // code, a relative branch of -16 bytes): subroutines after the last EXIT (ptxas's slow paths, called with CALL.REL)
    // count, as ptxc's slow paths, placed inline, do.
    let closing = |i: &ptxc_sass::isa::Inst| {
        i.desc().op == Op::Bra && i.operands.iter().any(|o| o.value == ptxc_sass::isa::Value::Rel(-16))
    };
    let body = insts.iter().filter(|i| i.desc().op != Op::Nop && !closing(i)).count();
    Ok((k.reg_count, body))
}

/// Measures one cubin.
pub fn measure(label: &str, bytes: &[u8], spec: &LaunchSpec, opts: &RunOptions) -> Result<Row, String> {
    let (registers, instructions) = static_counts(bytes, &spec.kernel)?;
    let run = run(bytes, spec, opts).map_err(|e| format!("{label}: {e}"))?;
    Ok(Row {
        label: label.to_string(),
        registers,
        instructions,
        run,
    })
}

/// Compiles `src` with every variant and measures each, then the baseline if given.
pub fn report_rows(
    src: &str,
    file_name: &str,
    spec: &LaunchSpec,
    base: &CompileOptions,
    run_opts: &RunOptions,
    baseline: Option<(&str, &[u8])>,
) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for (pre, post) in variants() {
        let opts = CompileOptions {
            pre_sched: pre.clone(),
            sched: post.clone(),
            ..base.clone()
        };
        let compiled = compile_ptx_module(src, file_name, &opts).map_err(|e| e.0)?;
        let label = format!("{pre} / {}", post.as_deref().unwrap_or("none"));
        rows.push(measure(&label, &compiled.cubin, spec, run_opts)?);
    }
    if let Some((label, bytes)) = baseline {
        rows.push(measure(label, bytes, spec, run_opts)?);
    }
    Ok(rows)
}

/// The table, with the cycles of each row relative to the baseline (or the first row), and
/// a line for every row whose buffers differ from the first row's.
pub fn render(rows: &[Row], has_baseline: bool) -> String {
    let mut s = String::new();
    let reference = if has_baseline { rows.last() } else { rows.first() };
    let ref_cycles = reference.map_or(1, |r| r.run.stats.cycles.max(1)) as f64;
    let _ = writeln!(
        s,
        "{:<28} {:>9} {:>7} {:>5} {:>6} {:>9} {:>8} | {:>10} {:>10} {:>9} {:>8} {:>8} {:>8}",
        "pre-RA / post-RA",
        "cycles",
        "ratio",
        "regs",
        "insts",
        "warp-ins",
        "hazards",
        "scoreboard",
        "stall-cnt",
        "pipe-busy",
        "bank",
        "barrier",
        "yield"
    );
    for r in rows {
        let st = &r.run.stats;
        let _ = writeln!(
            s,
            "{:<28} {:>9} {:>7.3} {:>5} {:>6} {:>9} {:>8} | {:>10} {:>10} {:>9} {:>8} {:>8} {:>8}",
            r.label,
            st.cycles,
            st.cycles as f64 / ref_cycles,
            r.registers,
            r.instructions,
            st.warp_instructions,
            st.hazards,
            st.stalls.scoreboard,
            st.stalls.stall_count,
            st.stalls.pipe_busy,
            st.stalls.bank_conflict,
            st.stalls.barrier,
            st.stalls.yield_,
        );
    }
    let _ = writeln!(
        s,
        "ratio: cycles relative to {}; stalls in warp-cycles",
        if has_baseline { "the baseline" } else { "the first row" }
    );
    if let Some(first) = rows.first() {
        for r in &rows[1..] {
            for (name, a) in &r.run.buffers {
                if first.run.buffers.get(name).map(|b| &b.bytes) != Some(&a.bytes) {
                    let _ = writeln!(
                        s,
                        "warning: buffer `{name}` of `{}` differs from `{}`",
                        r.label, first.label
                    );
                }
            }
        }
    }
    s
}
