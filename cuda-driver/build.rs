//! Names the cdylib as the CUDA driver: soname `libcuda.so.1`, and a `libcuda.so.1` symlink
//! beside `libcuda.so` in the profile's output folder (`target/debug`, `target/release`), so
//! that `LD_LIBRARY_PATH=target/release` is all a program needs to load it.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcuda.so.1");
    if let Some(dir) = profile_dir() {
        link(&dir.join("libcuda.so.1"));
        link(&dir.join("deps").join("libcuda.so.1"));
    }
}

/// `target/<profile>` (or `target/<triple>/<profile>`): three levels above OUT_DIR
/// (`<profile>/build/<package>-<hash>/out`).
fn profile_dir() -> Option<PathBuf> {
    let out = PathBuf::from(std::env::var_os("OUT_DIR")?);
    Some(out.ancestors().nth(3)?.to_path_buf())
}

/// Points `at` to `libcuda.so` in its own folder (a relative link, left dangling until the
/// library is built; an existing link is kept).
fn link(at: &Path) {
    if at.symlink_metadata().is_ok() {
        return;
    }
    if let Some(dir) = at.parent()
        && dir.is_dir()
    {
        let _ = std::os::unix::fs::symlink("libcuda.so", at);
    }
}
