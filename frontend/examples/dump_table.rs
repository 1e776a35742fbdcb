//! Prints the instruction table, one opcode a line: `name|mods|types;...|min_types|required|operands`.

fn main() {
    for s in ptxc_frontend::sema::table::TABLE {
        println!(
            "{}|{}|{}|{}|{}|{}",
            s.name,
            s.mods,
            s.types.join(";"),
            s.min_types,
            s.required,
            s.operands
        );
    }
}
