//! The `ptxc` command-line tool.
fn main() {}
