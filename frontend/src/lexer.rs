//! The PTX lexer: a logos DFA ([`Tok`]) wrapped in [`Lexer`], the token stream the lalrpop
//! grammar reads. The wrapper folds DWARF `.section` blocks into one opaque token, reports
//! invalid characters as diagnostics and bounds nesting and expression length so that no input
//! can make the parser (or anything that later walks the tree recursively) run out of stack.

use crate::ast::Span;
use crate::diag::Diagnostic;
use crate::syntax::SyntaxError;
use logos::{FilterResult, Logos};

/// Deepest allowed nesting of `{`, `(` and `[` taken together.
pub const MAX_NESTING: u32 = 64;
/// Most operators allowed in one expression (between two separators `,` `;` `{` `}`).
pub const MAX_EXPR_OPERATORS: u32 = 256;
/// Parsing stops after this many errors.
pub const MAX_ERRORS: usize = 50;

/// One PTX token. Keywords that the grammar needs to tell apart get their own variant; every
/// other `.name` is a [`Tok::DotName`] (instruction modifiers, unknown directives).
/// Keyword and punctuation variants are named after their spelling and not documented one by
/// one.
#[allow(missing_docs)]
#[derive(Logos, Clone, Copy, Debug, PartialEq)]
#[logos(skip r"[ \t\r\n\f\v]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
pub enum Tok<'a> {
    /// `/* ... */`; never emitted (skipped), or an error when unterminated.
    #[token("/*", block_comment)]
    BlockComment,
    /// An identifier: `%r1`, `$L__BB0_2`, `_Z3foo`, `ld`, `WARP_SZ`, `_`.
    #[regex(r"[A-Za-z][A-Za-z0-9_$]*|[_$%][A-Za-z0-9_$]+|_", |lex| lex.slice())]
    Ident(&'a str),
    /// `.name` that is not a keyword below (a modifier or an unknown directive), including
    /// `::` qualified forms such as `.L2::128B`.
    #[regex(r"\.[A-Za-z0-9_$][A-Za-z0-9_$]*(::[A-Za-z0-9_$]+)*", |lex| lex.slice())]
    DotName(&'a str),
    /// `.pred`, `.u32`, `.f16x2`, ... (a fundamental type), as written. Every payload of this
    /// enum is 8-byte aligned: a 1-byte payload made copying tokens stall the CPU.
    #[regex(
        r"\.(pred|b8|b16|b32|b64|b128|u8|u16|u32|u64|s8|s16|s32|s64|f16|f16x2|f32|f64|bf16|bf16x2|tf32)",
        |lex| lex.slice(),
        priority = 20
    )]
    Type(&'a str),
    /// An integer literal as written (decimal, `0x`, octal `0NNN`, `0b`, optional `U`).
    #[regex(r"0[xX][0-9A-Fa-f]+U?|0[bB][01]+U?|[0-9]+U?", |lex| lex.slice())]
    Int(&'a str),
    /// A float literal as written (`0f3F800000`, `0d...`, `1.5`, `1e-3`).
    #[regex(r"0[fF][0-9A-Fa-f]{8}|0[dD][0-9A-Fa-f]{16}", |lex| lex.slice(), priority = 20)]
    #[regex(r"[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+", |lex| lex.slice())]
    Float(&'a str),
    /// `"..."`.
    #[regex(r#""([^"\\\n]|\\[^\n])*""#, |lex| lex.slice())]
    Str(&'a str),
    /// A whole `.section name { ... }` block (made by [`Lexer`], never by logos).
    Section(&'a str),
    /// A whole instruction, parsed ahead and parked under this index (made by
    /// [`crate::fusion::Fused`], never by logos).
    Instruction(usize),
    /// `.loc FILE LINE COL`, its whole text (made by [`crate::fusion::Fused`], never by logos).
    LocLine(&'a str),
    /// A character that starts no token (made by [`Lexer`] after reporting it).
    Invalid,

    #[token(".version")]
    Version,
    #[token(".target")]
    Target,
    #[token(".address_size")]
    AddressSize,
    #[token(".entry")]
    Entry,
    #[token(".func")]
    Func,
    #[token(".visible")]
    Visible,
    #[token(".extern")]
    Extern,
    #[token(".weak")]
    Weak,
    #[token(".common")]
    Common,
    #[token(".reg")]
    Reg,
    #[token(".sreg")]
    Sreg,
    #[token(".local")]
    Local,
    #[token(".shared")]
    Shared,
    #[token(".global")]
    Global,
    #[token(".const")]
    Const,
    #[token(".param")]
    Param,
    #[token(".align")]
    Align,
    #[token(".ptr")]
    Ptr,
    #[token(".v2")]
    V2,
    #[token(".v4")]
    V4,
    #[token(".v8")]
    V8,
    #[token(".file")]
    File,
    #[token(".loc")]
    Loc,
    #[token(".section")]
    SectionKw,
    #[token(".pragma")]
    Pragma,
    #[token(".maxntid")]
    MaxNtid,
    #[token(".reqntid")]
    ReqNtid,
    #[token(".minnctapersm")]
    MinNctaPerSm,
    #[token(".maxnctapersm")]
    MaxNctaPerSm,
    #[token(".maxnreg")]
    MaxNreg,
    #[token(".reqnctapercluster")]
    ReqNctaPerCluster,
    #[token(".maxclusterrank")]
    MaxClusterRank,
    #[token(".explicitcluster")]
    ExplicitCluster,
    #[token(".noreturn")]
    NoReturn,
    #[token(".callprototype")]
    CallPrototype,

    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token(":")]
    Colon,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("@")]
    At,
    #[token("!")]
    Bang,
    #[token("=")]
    Eq,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("&")]
    Amp,
    #[token("|")]
    Pipe,
    #[token("^")]
    Caret,
    #[token("~")]
    Tilde,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
}

/// Skips a block comment, or reports it unterminated.
fn block_comment<'a>(lex: &mut logos::Lexer<'a, Tok<'a>>) -> FilterResult<(), ()> {
    match lex.remainder().find("*/") {
        Some(end) => {
            lex.bump(end + 2);
            FilterResult::Skip
        }
        None => {
            lex.bump(lex.remainder().len());
            FilterResult::Error(())
        }
    }
}

/// A token with its byte range, as lalrpop expects.
pub type Spanned<'a> = (usize, Tok<'a>, usize);

/// The token stream given to the parser. Errors it finds are kept in [`Lexer::diagnostics`];
/// when it must stop (too deep, too many errors) it ends the stream and sets
/// [`Lexer::aborted`].
pub struct Lexer<'a> {
    src: &'a str,
    inner: logos::Lexer<'a, Tok<'a>>,
    depth: u32,
    operators: u32,
    /// Lexical errors found so far.
    pub diagnostics: Vec<Diagnostic>,
    /// True when the stream was cut short; the parser's "unexpected end" is then not reported.
    pub aborted: bool,
}

impl<'a> Lexer<'a> {
    /// A lexer over `src`.
    pub fn new(src: &'a str) -> Lexer<'a> {
        Lexer {
            src,
            inner: Tok::lexer(src),
            depth: 0,
            operators: 0,
            diagnostics: Vec::new(),
            aborted: false,
        }
    }

    /// The source text.
    pub fn source(&self) -> &'a str {
        self.src
    }

    /// Records an error found by a later stage of the token stream.
    pub fn report(&mut self, span: Span, message: String) {
        self.error(span, message);
    }

    fn error(&mut self, span: Span, message: String) {
        self.diagnostics.push(Diagnostic::error(message, span));
    }

    fn abort(&mut self, span: Span, message: String) -> Option<Spanned<'a>> {
        self.error(span, message);
        self.aborted = true;
        None
    }

    /// Reads `.section name { ... }` after the `.section` keyword at `start`.
    #[cold]
    #[inline(never)]
    fn section(&mut self, start: usize) -> Option<Spanned<'a>> {
        let mut end = self.inner.span().end;
        let mut saw_name = false;
        let mut open = false;
        while let Some(tok) = self.inner.next() {
            end = self.inner.span().end;
            match tok {
                Ok(Tok::LBrace) if saw_name && !open => open = true,
                Ok(Tok::RBrace) if open => {
                    return Some((start, Tok::Section(&self.src[start..end]), end));
                }
                Ok(Tok::LBrace | Tok::RBrace) => {
                    let span = Span::new(self.inner.span().start, end);
                    return self.abort(span, "unexpected brace in `.section`".to_string());
                }
                Ok(_) if !saw_name => saw_name = true,
                Ok(Tok::Semi) if !open => {
                    return Some((start, Tok::Section(&self.src[start..end]), end));
                }
                Ok(_) => {}
                Err(()) => {
                    let span = Span::new(self.inner.span().start, end);
                    let message = self.invalid_message(span);
                    self.error(span, message);
                }
            }
        }
        self.abort(Span::new(start, end), "unterminated `.section`".to_string())
    }

    /// Reports the text at `span`, which starts no token; `None` once there are too many errors.
    #[cold]
    #[inline(never)]
    fn invalid(&mut self, span: Span) -> Option<Tok<'a>> {
        let message = self.invalid_message(span);
        self.error(span, message);
        if self.diagnostics.len() >= MAX_ERRORS {
            self.aborted = true;
            return None;
        }
        Some(Tok::Invalid)
    }

    fn invalid_message(&self, span: Span) -> String {
        let text = &self.src[span.start as usize..span.end as usize];
        if text.starts_with("/*") {
            "unterminated block comment".to_string()
        } else if text.starts_with('"') {
            "unterminated string".to_string()
        } else {
            match text.chars().next() {
                Some(char::REPLACEMENT_CHARACTER) => {
                    "unexpected non-ASCII byte (the file is not UTF-8 here)".to_string()
                }
                Some(c) if !c.is_ascii() => format!("unexpected non-ASCII character U+{:04X}", c as u32),
                Some(c) if c.is_control() => format!("unexpected character U+{:04X}", c as u32),
                Some(c) => format!("unexpected character `{c}`"),
                None => "unexpected end of input".to_string(),
            }
        }
    }

    #[cold]
    fn too_deep(&mut self, span: Span) -> bool {
        self.abort(span, format!("nesting deeper than {MAX_NESTING} levels"));
        false
    }

    #[cold]
    fn too_long(&mut self, span: Span) -> bool {
        self.abort(
            span,
            format!("expression with more than {MAX_EXPR_OPERATORS} operators"),
        );
        false
    }

    /// Applies the nesting and expression-size limits to `tok`.
    #[inline]
    fn check_limits(&mut self, tok: &Tok<'a>, span: Span) -> bool {
        match tok {
            Tok::LBrace | Tok::LParen | Tok::LBracket => {
                self.depth += 1;
                if matches!(tok, Tok::LBrace) {
                    self.operators = 0;
                }
                if self.depth > MAX_NESTING {
                    return self.too_deep(span);
                }
            }
            Tok::RBrace | Tok::RParen | Tok::RBracket => {
                self.depth = self.depth.saturating_sub(1);
                if matches!(tok, Tok::RBrace) {
                    self.operators = 0;
                }
            }
            Tok::Comma | Tok::Semi => self.operators = 0,
            Tok::Plus
            | Tok::Minus
            | Tok::Star
            | Tok::Slash
            | Tok::Percent
            | Tok::Amp
            | Tok::Pipe
            | Tok::Caret
            | Tok::Tilde
            | Tok::Bang
            | Tok::Shl
            | Tok::Shr => {
                self.operators += 1;
                if self.operators > MAX_EXPR_OPERATORS {
                    return self.too_long(span);
                }
            }
            _ => {}
        }
        true
    }
}

impl<'a> Iterator for Lexer<'a> {
    type Item = Result<Spanned<'a>, SyntaxError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.aborted {
            return None;
        }
        let tok = self.inner.next()?;
        let range = self.inner.span();
        let span = Span::new(range.start, range.end);
        let tok = match tok {
            Ok(Tok::SectionKw) => return self.section(range.start).map(Ok),
            Ok(tok) => tok,
            Err(()) => self.invalid(span)?,
        };
        if !self.check_limits(&tok, span) {
            return None;
        }
        Some(Ok((range.start, tok, range.end)))
    }
}
