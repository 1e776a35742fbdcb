//! `difftest --report-ptxas DIR`: a report of every open issue of ptxas, ready to send to
//! NVIDIA. One folder per issue with the minimal reproducer (the regression case: PTX, launch
//! spec and buffers), ptxas's cubin and its SASS (nvdisasm), what the case gives on each
//! engine, and a README with the expected value and its PTX reasoning, the evidence class
//! and what the claim rests on; `DIR/README.md` lists every issue with its evidence class.

use crate::compare::Mismatch;
use crate::engines::Engines;
use crate::known::{Component, ISSUES, Issue};
use crate::regress;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the report's inputs are: the regression cases and NVIDIA's tools.
pub struct Sources<'a> {
    /// The folder of regression cases (`tests/difftest`).
    pub cases: &'a Path,
    /// The engines (with ptxas).
    pub engines: &'a Engines,
    /// `nvdisasm`.
    pub nvdisasm: PathBuf,
}

/// Writes the report into `dir`; returns the folders written.
pub fn write(dir: &Path, src: &Sources) -> Result<Vec<PathBuf>, String> {
    let ptxas = src
        .engines
        .ptxas
        .as_ref()
        .ok_or("--report-ptxas needs ptxas (it compiles each reproducer)")?;
    let mut index = String::from(
        "# Open issues of ptxas found by ptxc's differential testing\n\n\
         Each folder holds a minimal reproducer (`CASE.ptx`, launch spec `CASE.toml` with its buffers),\n\
         ptxas's cubin and SASS, and a README with the expected value and its PTX reasoning.\n\n\
         Evidence classes: *SASS alone* (ptxas's SASS computes another value than the PTX states, with\n\
         instructions whose behaviour is not in doubt), *modelled behaviour* (the wrong value shows\n\
         through the simulator's model of an undocumented hardware behaviour), *reading of the\n\
         specification* (the expected value rests on a reading the PTX specification does not state).\n\n\
         | issue | evidence | rests on | summary |\n|---|---|---|---|\n",
    );
    let mut written = Vec::new();
    for i in ISSUES.iter().filter(|i| i.component == Component::Ptxas) {
        let folder = dir.join(i.id);
        write_issue(&folder, i, src, ptxas)?;
        let _ = writeln!(
            index,
            "| [{}]({}/README.md) | {} | {} | {} |",
            i.id,
            i.id,
            i.evidence.class(),
            if i.evidence.detail().is_empty() {
                "ptxas's SASS"
            } else {
                i.evidence.detail()
            },
            i.summary.lines().next().unwrap_or("")
        );
        written.push(folder);
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join("README.md");
    std::fs::write(&path, index).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(written)
}

fn put(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes the folder of one issue.
fn write_issue(folder: &Path, i: &Issue, src: &Sources, ptxas: &Path) -> Result<(), String> {
    std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let case = i.case;
    for suffix in [".ptx", ".toml", "_input.npy", "_output.npy", ".txt", ".expect"] {
        let from = src.cases.join(format!("{case}{suffix}"));
        if from.exists() {
            let to = folder.join(format!("{case}{suffix}"));
            std::fs::copy(&from, &to).map_err(|e| format!("{} -> {}: {e}", from.display(), to.display()))?;
        }
    }
    let ptx_path = src.cases.join(format!("{case}.ptx"));
    let ptx = std::fs::read_to_string(&ptx_path).map_err(|e| format!("{}: {e}", ptx_path.display()))?;
    let sass = match src.engines.ptxas_cubin(ptxas, &ptx) {
        Ok(cubin) => {
            let cubin_path = folder.join("ptxas.cubin");
            put(&cubin_path, &cubin)?;
            let sass = disassemble(&src.nvdisasm, &cubin_path)?;
            put(&folder.join("ptxas.sass"), sass.as_bytes())?;
            sass
        }
        Err(e) => format!("(ptxas gives no cubin: {})", e.lines().next().unwrap_or("")),
    };
    let observed = regress::run_case_file(src.engines, &src.cases.join(format!("{case}.toml")))?;
    let notes = std::fs::read_to_string(src.cases.join(format!("{case}.txt"))).unwrap_or_default();
    put(
        &folder.join("README.md"),
        readme(i, &observed, &sass, &notes).as_bytes(),
    )
}

/// Runs `nvdisasm -c` on a cubin.
fn disassemble(nvdisasm: &Path, cubin: &Path) -> Result<String, String> {
    let o = Command::new(nvdisasm)
        .arg("-c")
        .arg(cubin)
        .output()
        .map_err(|e| format!("{}: {e}", nvdisasm.display()))?;
    if !o.status.success() {
        return Err(format!(
            "nvdisasm {}: {}",
            cubin.display(),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&o.stdout).into_owned())
}

/// The README of one issue.
fn readme(i: &Issue, observed: &[Mismatch], sass: &str, notes: &str) -> String {
    let mut s = String::new();
    let mut lines = i.summary.lines();
    let _ = writeln!(s, "# {}: {}\n", i.id, lines.next().unwrap_or(""));
    let _ = writeln!(s, "{}\n", lines.map(str::trim).collect::<Vec<_>>().join(" "));
    let _ = writeln!(s, "## Evidence: {}\n", i.evidence.class());
    if i.evidence.detail().is_empty() {
        let _ = writeln!(
            s,
            "ptxas's SASS below computes the wrong value by itself: the instructions involved behave as \
             documented whatever the simulator does.\n"
        );
    } else {
        let _ = writeln!(s, "{}\n", i.evidence.detail());
    }
    let _ = writeln!(s, "## Expected value (PTX)\n\n{}\n", i.expected);
    let _ = writeln!(
        s,
        "## Observed on the simulator\n\nThe MIR interpreter (a reference implementation of the PTX semantics) \
         and ptxc's cubin give the expected value; ptxas's cubin gives the other one:\n\n```"
    );
    for m in observed {
        let _ = writeln!(s, "{}", m.report(None));
    }
    let _ = writeln!(s, "```\n");
    let _ = writeln!(
        s,
        "## Reproduce\n\n```sh\nptxas -arch=sm_75 -O3 {case}.ptx -o {case}.cubin\nnvdisasm -c {case}.cubin\n\
         ptxc run {case}.ptx --launch {case}.toml      # the expected value (ptxc's own compiler)\n```\n",
        case = i.case
    );
    if !notes.trim().is_empty() {
        let _ = writeln!(
            s,
            "## Notes from the regression case\n\n```\n{}\n```\n",
            notes.trim_end()
        );
    }
    let _ = writeln!(
        s,
        "## ptxas's SASS (ptxas 13.5, -arch=sm_75 -O3; nvdisasm -c)\n\n```\n{}\n```",
        sass.trim_end()
    );
    s
}
