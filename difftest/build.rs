//! Records the revision the difftest binary is built from in `DIFFTEST_REVISION` (the git
//! commit, `-dirty` when the work tree differed from it, `unknown` outside git): `--recheck`
//! writes it into the results files it rewrites, so a verdict names the build that gave it.

use std::process::Command;

/// The trimmed output of a successful `git` command, if it printed anything.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

fn main() {
    let revision = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(r) if git(&["status", "--porcelain", "--untracked-files=no"]).is_some() => format!("{r}-dirty"),
        Some(r) => r,
        None => "unknown".to_string(),
    };
    println!("cargo:rustc-env=DIFFTEST_REVISION={revision}");
    // Run again when HEAD moves (a commit or checkout) or a tracked file changes.
    for p in ["HEAD", "index", "packed-refs"] {
        if let Some(path) = git(&["rev-parse", "--git-path", p]) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    if let Some(head) = git(&["symbolic-ref", "-q", "HEAD"])
        && let Some(path) = git(&["rev-parse", "--git-path", &head])
    {
        println!("cargo:rerun-if-changed={path}");
    }
    if let (Some(root), Some(entries)) = (
        git(&["rev-parse", "--show-toplevel"]),
        git(&["ls-tree", "--name-only", "HEAD", ":/"]),
    ) {
        for e in entries.lines() {
            println!("cargo:rerun-if-changed={root}/{e}");
        }
    }
}
