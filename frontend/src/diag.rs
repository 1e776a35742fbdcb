//! Diagnostics: user errors as values with spans, rendered by codespan-reporting as
//! `file:line:column`, the source line and a caret.

use crate::ast::Span;
use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The input is rejected.
    Error,
    /// Accepted, but suspicious.
    Warning,
}

/// One message about the input, pointing at the place it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The main message.
    pub message: String,
    /// Where the problem is.
    pub span: Span,
    /// Secondary places with a short message each (e.g. "first declared here").
    pub labels: Vec<(Span, String)>,
    /// Extra lines of explanation.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span,
            labels: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Adds a secondary label.
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push((span, message.into()));
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// The 1-based line and column (in characters) of the start of the primary span in `src`.
    pub fn line_col(&self, src: &str) -> (u32, u32) {
        line_col(src, self.span.start as usize)
    }
}

/// The 1-based line and column (in characters) of byte offset `offset` in `src`.
pub fn line_col(src: &str, offset: usize) -> (u32, u32) {
    let offset = floor_char_boundary(src, offset.min(src.len()));
    let before = &src[..offset];
    let line = before.bytes().filter(|&b| b == b'\n').count() as u32 + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = src[line_start..offset].chars().count() as u32 + 1;
    (line, column)
}

fn floor_char_boundary(src: &str, mut offset: usize) -> usize {
    while !src.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// Renders `diags` about `src` (named `file_name`) as plain text: one block per diagnostic with
/// `file:line:column`, the source line and a caret under the span.
pub fn render(file_name: &str, src: &str, diags: &[Diagnostic]) -> String {
    let file = SimpleFile::new(file_name, src);
    let config = term::Config::default();
    let mut out = String::new();
    for diag in diags {
        let rendered = term::emit_into_string(&config, &file, &to_codespan(diag, src));
        match rendered {
            Ok(text) => out.push_str(&text),
            Err(_) => {
                let (line, col) = diag.line_col(src);
                out.push_str(&format!("error: {}\n  --> {file_name}:{line}:{col}\n", diag.message));
            }
        }
    }
    out
}

/// Writes `diags` to standard error, in colour only when standard error is a terminal.
pub fn eprint(file_name: &str, src: &str, diags: &[Diagnostic]) {
    use codespan_reporting::term::termcolor::{ColorChoice, StandardStream};
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        eprint!("{}", render(file_name, src, diags));
        return;
    }
    let file = SimpleFile::new(file_name, src);
    let config = term::Config::default();
    let stream = StandardStream::stderr(ColorChoice::Auto);
    let mut out = stream.lock();
    for diag in diags {
        let _ = term::emit_to_write_style(&mut out, &config, &file, &to_codespan(diag, src));
    }
}

fn clamp(span: Span, src: &str) -> std::ops::Range<usize> {
    let start = floor_char_boundary(src, (span.start as usize).min(src.len()));
    let end = floor_char_boundary(src, (span.end as usize).min(src.len())).max(start);
    start..end
}

fn to_codespan(diag: &Diagnostic, src: &str) -> cs::Diagnostic<()> {
    let head = match diag.severity {
        Severity::Error => cs::Diagnostic::error(),
        Severity::Warning => cs::Diagnostic::warning(),
    };
    let mut labels = vec![cs::Label::primary((), clamp(diag.span, src))];
    for (span, message) in &diag.labels {
        labels.push(cs::Label::secondary((), clamp(*span, src)).with_message(message));
    }
    head.with_message(&diag.message)
        .with_labels(labels)
        .with_notes(diag.notes.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based() {
        let src = "ab\ncd\n";
        assert_eq!(line_col(src, 0), (1, 1));
        assert_eq!(line_col(src, 4), (2, 2));
        assert_eq!(line_col(src, 100), (3, 1));
    }

    #[test]
    fn rendering_shows_location_and_caret() {
        let src = ".version 7.0\nbad\n";
        let d = Diagnostic::error("unexpected `bad`", Span::new(13, 16));
        let text = render("k.ptx", src, &[d]);
        assert!(text.contains("k.ptx:2:1"), "{text}");
        assert!(text.contains("^^^"), "{text}");
    }
}
