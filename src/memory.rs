//! How the process gives memory back to the system (glibc on Linux; elsewhere nothing is
//! done). Peak resident memory is one of the compile costs `bench-report` measures.
//!
//! Measured on the 1 MB corpus file (7 alternating runs, medians): 44.1 MiB peak resident
//! with glibc's defaults; 38.4 MiB with the mmap threshold kept (below); 35.0 MiB when the
//! front end's freed memory also goes back before the kernels compile (with the kernels
//! compiled largest first, whose two largest then compile at once: 39.9 MiB without it).

/// Allocations of at least this many bytes get their own mapping, returned to the system
/// when freed (glibc's initial threshold).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 128 * 1024;

/// Keeps glibc's mmap threshold where it starts. By default glibc raises it to the size of
/// each large block freed, so after the parser's growing vectors are freed, later large
/// blocks (every kernel's intermediate forms, on each compiling thread's own arena) come from
/// the heap and stay there. Call it first thing in `main`, before other threads start.
pub fn keep_mmap_threshold() {
    // SAFETY: sets one allocator parameter; glibc's mallopt is safe to call at any time.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
    }
}

/// Gives the pages of freed memory back to the system: between the front end (whose syntax
/// tree is freed as the kernels are lowered, on the thread that parsed) and the kernels'
/// compilation (on rayon's threads, which allocate from arenas of their own and could not
/// reuse those pages).
pub fn return_free_pages() {
    // SAFETY: malloc_trim only releases pages of free chunks; glibc's allocator locks its
    // arenas while it walks them.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::malloc_trim(0);
    }
}
