//! Regression cases on disk, as `ptxc run` takes them: `NAME.ptx`, the launch spec
//! `NAME.toml` (kernel `difftest`, params `input` and `output`), the buffers
//! `NAME_input.npy` and `NAME_output.npy` (u64 words), and `NAME.txt` with the report.

use crate::engines::Launch;
use crate::program::Program;
use ptxc::launch::Scalar;
use ptxc::npy::{self, Array};
use std::path::{Path, PathBuf};

/// Writes a case into `dir` under `name`.
pub fn write(dir: &Path, name: &str, ptx: &str, launch: &Launch, report: &str) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let put = |file: String, text: &str| {
        let path = dir.join(file);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    put(format!("{name}.ptx"), ptx)?;
    put(format!("{name}.toml"), &spec(name, launch))?;
    put(format!("{name}.txt"), report)?;
    for (buf, words) in [("input", &launch.input), ("output", &launch.output)] {
        let a = Array::new(Scalar::U64, words.iter().flat_map(|w| w.to_le_bytes()).collect());
        npy::write(&dir.join(format!("{name}_{buf}.npy")), &a)?;
    }
    Ok(())
}

/// The launch spec of a case.
fn spec(name: &str, l: &Launch) -> String {
    format!(
        "# Differential-testing regression case: run with\n\
         # ptxc run {name}.ptx --launch {name}.toml\n\
         kernel = \"{}\"\n\
         grid = [{}, 1, 1]\n\
         block = [{}, 1, 1]\n\
         params = [ {{ ptr = \"input\" }}, {{ ptr = \"output\" }} ]\n\
         [buffers.input]\n\
         file = \"{name}_input.npy\"\n\
         [buffers.output]\n\
         file = \"{name}_output.npy\"\n",
        Program::KERNEL,
        l.grid,
        l.block
    )
}

/// Reads the case whose launch spec is `toml`: the PTX next to it and the launch.
pub fn read(toml: &Path) -> Result<(String, Launch), String> {
    let spec = ptxc::launch::load(toml)?;
    let ptx_path: PathBuf = toml.with_extension("ptx");
    let ptx = std::fs::read_to_string(&ptx_path).map_err(|e| format!("{}: {e}", ptx_path.display()))?;
    let words = |buf: &str| -> Result<Vec<u64>, String> {
        let a = match spec.buffers.get(buf) {
            Some(init) => init.materialize()?,
            None => return Err(format!("{}: no buffer `{buf}`", toml.display())),
        };
        Ok(a.bytes
            .chunks(8)
            .map(|c| {
                let mut b = [0u8; 8];
                b[..c.len()].copy_from_slice(c);
                u64::from_le_bytes(b)
            })
            .collect())
    };
    if spec.grid[1..] != [1, 1] || spec.block[1..] != [1, 1] {
        return Err(format!(
            "{}: only one-dimensional launches are supported",
            toml.display()
        ));
    }
    Ok((
        ptx,
        Launch {
            grid: spec.grid[0],
            block: spec.block[0],
            input: words("input")?,
            output: words("output")?,
        },
    ))
}

/// Every case (`*.toml`) in `dir`, sorted by name.
pub fn list(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let rd = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut out: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    out.sort();
    Ok(out)
}
