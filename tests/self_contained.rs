//! The repository stands on its own: no tracked file refers to a folder beside it.

use std::process::Command;

#[test]
fn no_tracked_file_refers_to_a_folder_beside_the_repository() {
    let root = env!("CARGO_MANIFEST_DIR");
    let o = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root)
        .output()
        .expect("git is installed");
    assert!(
        o.status.success(),
        "git ls-files failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    // Written in two parts so that this file does not match itself.
    let needle = format!("{}/{}", "..", "shared");
    let offenders: Vec<String> = o
        .stdout
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .filter(|p| {
            std::fs::read(std::path::Path::new(root).join(p))
                .is_ok_and(|bytes| bytes.windows(needle.len()).any(|w| w == needle.as_bytes()))
        })
        .collect();
    assert!(offenders.is_empty(), "files that refer to `{needle}`: {offenders:?}");
}
