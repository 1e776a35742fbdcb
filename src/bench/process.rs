//! Whole-process measurement: a command's wall time, CPU time (user + system) and peak
//! resident memory, as the kernel accounts them for that one child (`wait4`'s resource usage).
//! Linux keeps a process's peak resident set across `exec`, and a spawned child starts as
//! (or shares the memory of) its parent: measure from a small process, or the parent's size
//! becomes every child's floor.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one run of a process cost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProcessCost {
    /// Wall-clock time from spawn to exit.
    pub wall: Duration,
    /// User plus system CPU time of the process (all its threads).
    pub cpu: Duration,
    /// Peak resident set size in bytes.
    pub peak_rss: u64,
}

impl ProcessCost {
    /// The per-field medians of `runs` (wall, CPU and memory each sorted on their own).
    pub fn median(runs: &[ProcessCost]) -> ProcessCost {
        fn mid<T: Copy + Ord>(mut v: Vec<T>) -> T {
            v.sort();
            v[v.len() / 2]
        }
        assert!(!runs.is_empty(), "median of no runs");
        ProcessCost {
            wall: mid(runs.iter().map(|r| r.wall).collect()),
            cpu: mid(runs.iter().map(|r| r.cpu).collect()),
            peak_rss: mid(runs.iter().map(|r| r.peak_rss).collect()),
        }
    }

    /// Peak resident memory in MiB.
    pub fn peak_mib(&self) -> f64 {
        self.peak_rss as f64 / (1024.0 * 1024.0)
    }
}

/// Runs `program` with `args` to completion (output discarded, standard error kept for the
/// failure message) and returns its cost; a non-zero exit is an error naming the command.
pub fn measure(program: &Path, args: &[&std::ffi::OsStr]) -> Result<ProcessCost, String> {
    let describe = || {
        format!(
            "{} {}",
            program.display(),
            args.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>().join(" ")
        )
    };
    let start = Instant::now();
    let child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: {e}", describe()))?;
    let pid = child.id() as libc::pid_t;
    let mut stderr = child.stderr.ok_or("no standard error pipe")?;
    let mut message = String::new();
    // Drain standard error before waiting so a chatty child cannot block on a full pipe.
    std::io::Read::read_to_string(&mut stderr, &mut message).map_err(|e| e.to_string())?;
    let (status, usage) = wait_with_usage(pid)?;
    let wall = start.elapsed();
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        return Err(format!("{} failed ({status:#x}): {message}", describe()));
    }
    Ok(ProcessCost {
        wall,
        cpu: timeval(usage.ru_utime) + timeval(usage.ru_stime),
        // Linux reports ru_maxrss in KiB.
        peak_rss: usage.ru_maxrss.max(0) as u64 * 1024,
    })
}

/// Waits for child `pid` and returns its exit status and its own resource usage.
fn wait_with_usage(pid: libc::pid_t) -> Result<(libc::c_int, libc::rusage), String> {
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain old data; wait4 fills it and `status` for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: pointers to live locals; pid is a child spawned by this process and not yet
        // reaped (the `Child` handle is dropped without waiting).
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            return Ok((status, usage));
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(format!("wait4: {err}"));
        }
    }
}

fn timeval(t: libc::timeval) -> Duration {
    Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_takes_each_field_on_its_own() {
        let run = |w, c, m| ProcessCost {
            wall: Duration::from_millis(w),
            cpu: Duration::from_millis(c),
            peak_rss: m,
        };
        let m = ProcessCost::median(&[run(5, 1, 30), run(1, 9, 10), run(3, 4, 20)]);
        assert_eq!(m, run(3, 4, 20));
    }

    #[test]
    fn a_failing_command_is_an_error_with_its_message() {
        let sh = Path::new("/bin/sh");
        let args = ["-c", "echo broken >&2; exit 3"].map(std::ffi::OsStr::new);
        let e = measure(sh, &args).unwrap_err();
        assert!(e.contains("broken"), "{e}");
    }

    #[test]
    fn a_process_that_allocates_shows_its_memory_and_cpu() {
        // `sh` touching 64 MiB through dd: peak RSS must exceed what an idle shell uses.
        let sh = Path::new("/bin/sh");
        let idle = measure(sh, &["-c", "true"].map(std::ffi::OsStr::new)).unwrap();
        let busy = measure(
            sh,
            &["-c", "dd if=/dev/zero bs=64M count=1 of=/dev/null 2>/dev/null"].map(std::ffi::OsStr::new),
        )
        .unwrap();
        assert!(busy.peak_rss > idle.peak_rss + 32 * 1024 * 1024, "{idle:?} {busy:?}");
    }
}
