//! Links the `ptxc` executable at a fixed address on Linux (`-no-pie`): a position-independent
//! executable has the dynamic loader apply ~11,000 relocations at every start and copies the
//! pages they touch, about 0.1 ms and 40 page faults of each compilation of a small kernel.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bin=ptxc=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
