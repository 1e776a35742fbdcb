//! Parser throughput on the largest corpus file.

fn main() {}
