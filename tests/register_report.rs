//! `docs/REGISTERS.md`: registers and spills of every kernel of the conformance set, the
//! CUDA C kernel set, the op tests and the examples, compiled by ptxc and by `ptxas -O3`,
//! by default and with a limit of 16 registers. The test regenerates the table and fails
//! when the committed file differs; `PTXC_BLESS=1 cargo test --test register_report`
//! rewrites it.

mod common;

use common::*;
use ptxc::pipeline::{CompileOptions, compile_ptx_module};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Registers and spill bytes of one kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Usage {
    registers: u32,
    spill_stores: u32,
    spill_loads: u32,
}

impl Usage {
    fn spills(&self) -> String {
        if self.spill_stores + self.spill_loads == 0 {
            "-".into()
        } else {
            format!("{}/{}", self.spill_stores, self.spill_loads)
        }
    }
}

/// The kernels of one PTX file under both compilers and both limits.
struct FileReport {
    group: &'static str,
    file: String,
    /// Per kernel: [ptxas, ptxc, ptxas at 16, ptxc at 16].
    kernels: BTreeMap<String, [Option<Usage>; 4]>,
    /// ptxc's registers with pressure-first pre-allocation scheduling (`--pre-sched
    /// pressure`), for the kernels where the default, budget-driven scheduling uses more
    /// registers than ptxas.
    pressure_first: BTreeMap<String, u32>,
}

fn ptx_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    v.sort();
    v
}

/// Kernel usage from `ptxas -v` (`maxreg` adds `-maxrregcount`).
fn ptxas_usage(ptx: &Path, out: &Path, maxreg: Option<u32>) -> BTreeMap<String, Usage> {
    let mut args = vec!["-arch=sm_75".to_string(), "-O3".into(), "-v".into()];
    if let Some(n) = maxreg {
        args.push(format!("-maxrregcount={n}"));
    }
    args.extend([ptx.to_str().unwrap().into(), "-o".into(), out.to_str().unwrap().into()]);
    let o = oracle("ptxas", &args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "ptxas {}: {}", ptx.display(), text(&o.stderr));
    parse_ptxas_v(&text(&o.stderr))
}

/// Entries' usage from ptxas' `-v` lines.
fn parse_ptxas_v(log: &str) -> BTreeMap<String, Usage> {
    let number_before = |line: &str, key: &str| -> Option<u32> {
        let head = &line[..line.find(key)?];
        head.split_whitespace().last()?.parse().ok()
    };
    // Registers belong to the entry being compiled; spills to the function whose
    // properties were named last (entries and non-inlined device functions alike).
    let mut registers = BTreeMap::new();
    let mut spills = BTreeMap::new();
    let (mut entry, mut props) = (None::<String>, None::<String>);
    for line in log.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            entry = rest.split('\'').next().map(str::to_string);
        } else if let Some(rest) = line.split("Function properties for ").nth(1) {
            props = Some(rest.trim().to_string());
        } else if line.contains("spill stores") {
            let s = (
                number_before(line, "bytes spill stores").unwrap_or(0),
                number_before(line, "bytes spill loads").unwrap_or(0),
            );
            spills.insert(props.take().unwrap_or_default(), s);
        } else if line.contains("Used ")
            && line.contains(" registers")
            && let Some(e) = entry.take()
        {
            registers.insert(e, number_before(line, "registers").unwrap_or(0));
        }
    }
    registers
        .into_iter()
        .map(|(k, registers)| {
            let (spill_stores, spill_loads) = spills.get(&k).copied().unwrap_or((0, 0));
            let u = Usage {
                registers,
                spill_stores,
                spill_loads,
            };
            (k, u)
        })
        .collect()
}

/// Kernel usage from ptxc, or the error.
fn ptxc_usage(ptx: &Path, maxreg: Option<u32>, pre_sched: &str) -> Result<BTreeMap<String, Usage>, String> {
    let src = std::fs::read_to_string(ptx).unwrap();
    let opts = CompileOptions {
        max_registers: maxreg,
        pre_sched: pre_sched.into(),
        ..CompileOptions::default()
    };
    let name = ptx.file_name().unwrap().to_string_lossy();
    let compiled = compile_ptx_module(&src, &name, &opts).map_err(|e| e.0)?;
    Ok(compiled
        .resources
        .iter()
        .map(|r| {
            let u = Usage {
                registers: r.registers,
                spill_stores: r.spill_stores,
                spill_loads: r.spill_loads,
            };
            (r.name.clone(), u)
        })
        .collect())
}

fn report(group: &'static str, ptx: &Path, scratch: &Path) -> FileReport {
    let file = ptx.file_stem().unwrap().to_string_lossy().into_owned();
    let out = scratch.join(format!("{group}_{file}.cubin"));
    let mut kernels: BTreeMap<String, [Option<Usage>; 4]> = BTreeMap::new();
    let default_sched = CompileOptions::default().pre_sched;
    let columns = [
        ptxas_usage(ptx, &out, None),
        ptxc_usage(ptx, None, &default_sched).unwrap_or_else(|e| panic!("ptxc {}: {e}", ptx.display())),
        ptxas_usage(ptx, &out, Some(16)),
        ptxc_usage(ptx, Some(16), &default_sched)
            .unwrap_or_else(|e| panic!("ptxc --max-registers 16 {}: {e}", ptx.display())),
    ];
    for (i, col) in columns.iter().enumerate() {
        for (k, u) in col {
            kernels.entry(k.clone()).or_default()[i] = Some(*u);
        }
    }
    let above = |u: &[Option<Usage>; 4]| u[1].map_or(0, |c| c.registers) > u[0].map_or(0, |a| a.registers);
    let pressure_first = if kernels.values().any(above) {
        let usage = ptxc_usage(ptx, None, "pressure").unwrap_or_else(|e| panic!("ptxc {}: {e}", ptx.display()));
        usage.into_iter().map(|(k, u)| (k, u.registers)).collect()
    } else {
        BTreeMap::new()
    };
    FileReport {
        group,
        file,
        kernels,
        pressure_first,
    }
}

/// A list of kernel names, or "none".
fn names(list: &[String]) -> String {
    if list.is_empty() {
        "none".to_string()
    } else {
        list.join(", ")
    }
}

fn cell(u: Option<Usage>, f: impl Fn(&Usage) -> String) -> String {
    u.as_ref().map_or("?".into(), f)
}

/// The markdown document.
fn render(reports: &[FileReport]) -> String {
    let mut rows = String::new();
    let (mut kernels, mut above, mut below, mut equal) = (0, 0, 0, 0);
    let (mut sum_ptxas, mut sum_ptxc) = (0u64, 0u64);
    let (mut above_names, mut budget_names) = (Vec::new(), Vec::new());
    for r in reports {
        for (k, [ptxas, ptxc, ptxas16, ptxc16]) in &r.kernels {
            kernels += 1;
            let (a, c) = (ptxas.map_or(0, |u| u.registers), ptxc.map_or(0, |u| u.registers));
            sum_ptxas += u64::from(a);
            sum_ptxc += u64::from(c);
            match c.cmp(&a) {
                std::cmp::Ordering::Greater => {
                    above += 1;
                    match r.pressure_first.get(k) {
                        Some(&p) if p <= a => budget_names.push(format!("`{k}` ({c} vs {a}; {p})")),
                        _ => above_names.push(format!("`{k}` ({c} vs {a})")),
                    }
                }
                std::cmp::Ordering::Less => below += 1,
                std::cmp::Ordering::Equal => equal += 1,
            }
            let name = if *k == r.file {
                format!("`{k}`")
            } else {
                format!("`{}` / `{k}`", r.file)
            };
            let _ = writeln!(
                rows,
                "| {} | {name} | {} | {} | {:+} | {} | {} | {} | {} | {} | {} |",
                r.group,
                a,
                c,
                i64::from(c) - i64::from(a),
                cell(*ptxas, Usage::spills),
                cell(*ptxc, Usage::spills),
                cell(*ptxas16, |u| u.registers.to_string()),
                cell(*ptxc16, |u| u.registers.to_string()),
                cell(*ptxas16, Usage::spills),
                cell(*ptxc16, Usage::spills),
            );
        }
    }
    let mut s = String::new();
    let _ = write!(
        s,
        "# Registers: ptxc against ptxas\n\n\
         Generated by `tests/register_report.rs` (`PTXC_BLESS=1 cargo test --release --test \
         register_report` rewrites it; the test fails when this file is out of date). \
         Registers are the per-thread counts recorded in the cubins (ptxas' convention: highest \
         register + 1 + 2); spills are bytes stored/loaded by spill code as `-v` reports them \
         (`-` for none). \"16\" columns: ptxas `-maxrregcount=16` and ptxc `--max-registers 16`. \
         ptxas is `ptxas -arch=sm_75 -O3` from the CUDA oracle.\n\n\
         ## Summary\n\n\
         - kernels: {kernels}\n\
         - ptxc below ptxas: {below}, equal: {equal}, above: {above}\n\
         - registers summed over all kernels: ptxas {sum_ptxas}, ptxc {sum_ptxc}\n\
         - above ptxas by the budget's choice: {}\n\
         - above ptxas otherwise: {}\n\n\
         The budget's choices: the pre-allocation scheduler (`--pre-sched budget`, the \
         default) spends registers up to the count the kernel's occupancy allows to start \
         loads early and interleave independent chains; with pressure-first scheduling \
         (`--pre-sched pressure`, the count after the semicolon) the kernel needs no more \
         registers than ptxas's.\n\n\
         ## Per kernel\n\n\
         | set | kernel | ptxas | ptxc | Δ | ptxas spills | ptxc spills | ptxas 16 | ptxc 16 | ptxas 16 spills | ptxc 16 spills |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        names(&budget_names),
        names(&above_names)
    );
    s.push_str(&rows);
    s
}

#[test]
fn registers_md_is_up_to_date() {
    use rayon::prelude::*;
    let scratch = scratch("register_report");
    let mut jobs: Vec<(&'static str, PathBuf)> = Vec::new();
    for (group, dir) in [
        ("zluda", zluda::dir()),
        ("kernels", root().join("tests/kernels")),
        ("ops", root().join("tests/ops")),
        ("examples", root().join("examples")),
    ] {
        jobs.extend(ptx_files(&dir).into_iter().map(|p| (group, p)));
    }
    let reports: Vec<FileReport> = jobs.par_iter().map(|(g, p)| report(g, p, &scratch)).collect();
    let doc = render(&reports);
    let path = root().join("docs/REGISTERS.md");
    if std::env::var_os("PTXC_BLESS").is_some() {
        std::fs::write(&path, &doc).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == doc,
        "docs/REGISTERS.md is out of date: run `PTXC_BLESS=1 cargo test --release --test register_report` \
         and commit it"
    );
}

#[test]
fn ptxas_verbose_lines_are_parsed() {
    let log = "ptxas info    : 0 bytes gmem\n\
               ptxas info    : Compiling entry function 'k' for 'sm_75'\n\
               ptxas info    : Function properties for k\n\
               \x20   8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n\
               ptxas info    : Used 16 registers, used 0 barriers, 8 bytes cumulative stack size, 360 bytes cmem[0]\n\
               ptxas info    : Function properties for helper\n\
               \x20   0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n";
    let m = parse_ptxas_v(log);
    assert_eq!(
        m.get("k"),
        Some(&Usage {
            registers: 16,
            spill_stores: 4,
            spill_loads: 12
        })
    );
    assert_eq!(m.len(), 1);
}
