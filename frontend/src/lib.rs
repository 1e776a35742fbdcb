//! ptxc's PTX front end: a logos lexer and a lalrpop grammar (module structure; instructions
//! are parsed generically ahead of it) produce the syntax tree ([`ast`]); [`sema`] resolves
//! names, checks every instruction against its opcode's table and produces the [`checked`]
//! module that the MIR lowering consumes. [`print`] turns a tree back into PTX. Errors are
//! [`diag::Diagnostic`] values with spans, rendered with the source line and a caret.
#![warn(missing_docs)]

pub mod ast;
pub mod checked;
pub mod diag;
mod fusion;
mod instruction_syntax;
pub mod lexer;
pub mod literal;
mod parser;
pub mod print;
pub mod sema;
mod syntax;
pub mod tensor;

pub use diag::Diagnostic;

/// Parses PTX source text into a syntax tree, or returns every syntax error found.
pub fn parse(src: &str) -> Result<ast::Module, Vec<Diagnostic>> {
    parser::parse(src)
}

/// Resolves names and checks every instruction of a parsed module for sm_75.
pub fn check(m: &ast::Module) -> Result<checked::CheckedModule, Vec<Diagnostic>> {
    sema::check(m)
}

/// [`parse`] then [`check`], freeing each function body of the syntax tree once it is checked.
pub fn parse_and_check(src: &str) -> Result<checked::CheckedModule, Vec<Diagnostic>> {
    sema::check_owned(parse(src)?)
}

/// Renders diagnostics about `src` (called `file_name` in the output) as plain text:
/// `error: message`, `┌─ file:line:column`, the source line and a caret under the span.
pub fn render_diagnostics(file_name: &str, src: &str, diags: &[Diagnostic]) -> String {
    diag::render(file_name, src, diags)
}

/// The text of a PTX file's bytes. Bytes that are not UTF-8 become U+FFFD: ptxas accepts any
/// byte inside comments, and outside them the lexer reports the character with its line and
/// column like every other error.
pub fn source_text(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// Prints diagnostics to standard error, coloured only when it is a terminal.
pub fn eprint_diagnostics(file_name: &str, src: &str, diags: &[Diagnostic]) {
    diag::eprint(file_name, src, diags)
}
