//! ptxc's PTX front end: a logos lexer and a lalrpop grammar produce the syntax tree
//! ([`ast`]); `sema` resolves names, checks every instruction against its opcode's table and
//! produces the [`checked`] module that the MIR lowering consumes. Errors are
//! [`diag::Diagnostic`] values with spans, rendered with the source line and a caret.

pub mod ast;
pub mod checked;
