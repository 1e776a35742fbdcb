//! The hardware check's report: one row per kernel and compiler (outcome, simulated and
//! measured cycles), a tally per set and compiler, and the cycle agreement per compiler;
//! rendered as Markdown or JSON.

use super::cases::Set;
use super::check::{Baseline, Compiler};
use super::compare::BufferDiff;
use super::gpu::GpuInfo;
use super::stats::{Agreement, agreement, ratio};
use ptxc_sass::isa::Arch;
use serde::Serialize;
use std::fmt::Write;

/// What became of one kernel.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "outcome", content = "detail", rename_all = "snake_case")]
pub enum Outcome {
    /// Every buffer is the same on the GPU and the simulator.
    Agree,
    /// These buffers differ.
    Differ(Vec<BufferDiff>),
    /// The kernel ran on the simulator but failed on the GPU.
    GpuError(String),
    /// The simulator refused or faulted (the GPU was not asked).
    SimError(String),
    /// The compiler failed.
    CompileError(String),
    /// Not run (missing inputs, no target).
    Skipped(String),
}

impl Outcome {
    /// A short word for tables.
    pub fn word(&self) -> &'static str {
        match self {
            Outcome::Agree => "agree",
            Outcome::Differ(_) => "DIFFER",
            Outcome::GpuError(_) => "GPU ERROR",
            Outcome::SimError(_) => "simulator error",
            Outcome::CompileError(_) => "compile error",
            Outcome::Skipped(_) => "skipped",
        }
    }

    /// True if the GPU disagreed with the simulator.
    pub fn disagrees(&self) -> bool {
        matches!(self, Outcome::Differ(_) | Outcome::GpuError(_))
    }

    /// The detail, one line.
    pub fn detail(&self) -> String {
        let line = |s: &str| s.lines().next().unwrap_or("").to_string();
        match self {
            Outcome::Agree => String::new(),
            Outcome::Differ(d) => d
                .iter()
                .map(|d| {
                    format!(
                        "`{}`: {} of {} elements differ, first [{}]: GPU {}, simulator {}",
                        d.buffer, d.elements, d.len, d.first, d.gpu, d.sim
                    )
                })
                .collect::<Vec<_>>()
                .join("; "),
            Outcome::GpuError(s) | Outcome::SimError(s) | Outcome::CompileError(s) | Outcome::Skipped(s) => line(s),
        }
    }
}

/// One kernel with one compiler.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Row {
    /// Its set.
    pub set: Set,
    /// The kernel.
    pub kernel: String,
    /// Whose cubin.
    pub compiler: Compiler,
    /// What happened.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// Simulated cycles.
    pub sim_cycles: Option<f64>,
    /// Measured cycles of one launch.
    pub gpu_cycles: Option<f64>,
}

impl Row {
    /// A progress line.
    pub fn line(&self) -> String {
        let detail = self.outcome.detail();
        let sep = if detail.is_empty() { "" } else { ": " };
        format!(
            "{}/{} [{}] {}{sep}{detail}",
            self.set.name(),
            self.kernel,
            self.compiler.name(),
            self.outcome.word()
        )
    }
}

/// Outcomes of a set with a compiler.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Tally {
    /// The set.
    pub set: Set,
    /// The compiler.
    pub compiler: Compiler,
    /// Kernels whose buffers agree.
    pub agree: usize,
    /// Kernels whose buffers differ.
    pub differ: usize,
    /// Kernels that failed on the GPU only.
    pub gpu_errors: usize,
    /// Kernels the simulator or the compiler failed, or that were skipped.
    pub not_run: usize,
}

/// Cycle agreement of a compiler's cubins.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CycleAgreement {
    /// The compiler.
    pub compiler: Compiler,
    /// Whether the cycles are net of the empty kernel's (when its launch was measured).
    pub net_of_empty_kernel: bool,
    /// The statistics.
    #[serde(flatten)]
    pub agreement: Agreement,
}

/// The whole report.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Report {
    /// The GPU.
    pub gpu: GpuInfo,
    /// The architecture the cubins were compiled for.
    pub arch: String,
    /// The simulator's device model.
    pub model: String,
    /// How cycles were measured.
    pub timing: String,
    /// Timed launches per kernel.
    pub repeat: u32,
    /// The empty kernel's launch.
    pub baseline: Vec<Baseline>,
    /// Per set and compiler.
    pub tallies: Vec<Tally>,
    /// Per compiler.
    pub cycles: Vec<CycleAgreement>,
    /// Per kernel and compiler.
    pub rows: Vec<Row>,
}

impl Report {
    /// The report of `rows`, with tallies and cycle statistics.
    pub fn new(gpu: GpuInfo, arch: Arch, model: &str, repeat: u32, baseline: Vec<Baseline>, rows: Vec<Row>) -> Report {
        let mut tallies: Vec<Tally> = Vec::new();
        for r in &rows {
            let i = match tallies.iter().position(|t| t.set == r.set && t.compiler == r.compiler) {
                Some(i) => i,
                None => {
                    tallies.push(Tally {
                        set: r.set,
                        compiler: r.compiler,
                        agree: 0,
                        differ: 0,
                        gpu_errors: 0,
                        not_run: 0,
                    });
                    tallies.len() - 1
                }
            };
            let t = &mut tallies[i];
            match r.outcome {
                Outcome::Agree => t.agree += 1,
                Outcome::Differ(_) => t.differ += 1,
                Outcome::GpuError(_) => t.gpu_errors += 1,
                _ => t.not_run += 1,
            }
        }
        let mut compilers: Vec<Compiler> = rows.iter().map(|r| r.compiler).collect();
        compilers.sort();
        compilers.dedup();
        let cycles = compilers
            .into_iter()
            .map(|c| cycle_agreement(c, &rows, &baseline))
            .filter(|c| c.agreement.kernels > 0)
            .collect();
        Report {
            gpu,
            arch: arch.name().into(),
            model: model.into(),
            timing: "CUDA events around repeated launches, times the SM clock the driver reports".into(),
            repeat,
            baseline,
            tallies,
            cycles,
            rows,
        }
    }

    /// True if any kernel's output differed or failed on the GPU only.
    pub fn disagrees(&self) -> bool {
        self.rows.iter().any(|r| r.outcome.disagrees())
    }

    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}")) + "\n"
    }

    /// A few lines for the console.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "GPU: {} (compute capability {}.{}, {} SMs, {} MHz) via {}; cubins for {}; simulator model {}\n",
            self.gpu.name,
            self.gpu.sm / 10,
            self.gpu.sm % 10,
            self.gpu.sms,
            self.gpu.clock_khz / 1000,
            self.gpu.via,
            self.arch,
            self.model
        );
        for t in &self.tallies {
            let _ = writeln!(
                s,
                "{} [{}]: {} agree, {} differ, {} GPU errors, {} not run",
                t.set.name(),
                t.compiler.name(),
                t.agree,
                t.differ,
                t.gpu_errors,
                t.not_run
            );
        }
        for c in &self.cycles {
            let a = &c.agreement;
            let _ = writeln!(
                s,
                "cycles [{}]: {} kernels, measured/simulated {} (geomean), mean absolute error {} cycles, Spearman {}",
                c.compiler.name(),
                a.kernels,
                num(a.ratio_geomean, 3),
                num(a.mean_abs_error, 0),
                num(a.spearman, 3)
            );
        }
        s
    }

    /// The report as Markdown.
    pub fn to_markdown(&self) -> String {
        let mut s = String::from("# ptxc hardware check\n\n");
        let _ = writeln!(
            s,
            "GPU **{}** (compute capability {}.{}, {} SMs, SM clock {} MHz as the driver reports it), reached through `{}`. \
             Cubins for {}; simulator device model `{}`. Cycles: {}, {} timed launches per kernel.\n",
            self.gpu.name,
            self.gpu.sm / 10,
            self.gpu.sm % 10,
            self.gpu.sms,
            self.gpu.clock_khz / 1000,
            self.gpu.via,
            self.arch,
            self.model,
            self.timing,
            self.repeat
        );
        s +=
            "## Outputs\n\n| set | compiler | agree | differ | GPU errors | not run |\n|---|---|---:|---:|---:|---:|\n";
        for t in &self.tallies {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} |",
                t.set.name(),
                t.compiler.name(),
                t.agree,
                t.differ,
                t.gpu_errors,
                t.not_run
            );
        }
        s += "\n## Cycles\n\n";
        for b in &self.baseline {
            let _ = writeln!(
                s,
                "Empty kernel [{}]: {:.0} cycles measured, {:.0} simulated; the statistics use cycles net of it.\n",
                b.compiler.name(),
                b.gpu_cycles,
                b.sim_cycles
            );
        }
        s += "| compiler | kernels | measured/simulated (geomean) | mean absolute error (cycles) | Spearman |\n|---|---:|---:|---:|---:|\n";
        for c in &self.cycles {
            let a = &c.agreement;
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} |",
                c.compiler.name(),
                a.kernels,
                num(a.ratio_geomean, 3),
                num(a.mean_abs_error, 0),
                num(a.spearman, 3)
            );
        }
        s += "\n## Kernels\n\n| set | kernel | compiler | outcome | simulated cycles | measured cycles | ratio | detail |\n|---|---|---|---|---:|---:|---:|---|\n";
        for r in &self.rows {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                r.set.name(),
                r.kernel,
                r.compiler.name(),
                r.outcome.word(),
                num(r.sim_cycles, 0),
                num(r.gpu_cycles, 0),
                num(r.sim_cycles.zip(r.gpu_cycles).and_then(|(s, g)| ratio(g, s)), 3),
                r.outcome.detail().replace('|', "\\|")
            );
        }
        s
    }
}

/// The cycle statistics of `compiler`'s kernels that ran on both sides, net of the empty
/// kernel when it was measured.
fn cycle_agreement(compiler: Compiler, rows: &[Row], baseline: &[Baseline]) -> CycleAgreement {
    let base = baseline.iter().find(|b| b.compiler == compiler);
    let (bg, bs) = base.map_or((0.0, 0.0), |b| (b.gpu_cycles, b.sim_cycles));
    let pairs: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.compiler == compiler && matches!(r.outcome, Outcome::Agree | Outcome::Differ(_)))
        .filter_map(|r| Some((r.gpu_cycles? - bg, r.sim_cycles? - bs)))
        .collect();
    CycleAgreement {
        compiler,
        net_of_empty_kernel: base.is_some(),
        agreement: agreement(&pairs),
    }
}

/// A number with `digits` decimals, or a dash.
fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or("–".into(), |v| format!("{v:.digits$}"))
}
