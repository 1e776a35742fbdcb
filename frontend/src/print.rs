//! Pretty-printer: PTX text from a syntax tree.
