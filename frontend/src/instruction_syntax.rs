//! The instruction syntax, `[@[!]p] opcode(.modifier)* [operand (, operand)*] ;`, parsed by
//! recursive descent straight from the token stream. Instructions are most of a PTX file, and
//! reading them here rather than in the LR grammar (which keeps the module structure) is what
//! makes the parser fast; each reaches the grammar as one [`Tok::Instruction`] token.
//!
//! Operands: `name`, `name.x`, `!p`, `-x`, constant expressions (with names: `temp + 1`),
//! `[base + offset]`, `{a, b}`, `(a, b)` argument lists, `_`, and `a|p` pairs.

use crate::ast::{Expr, Guard, Ident, Instruction, Operand, Span};
use crate::lexer::{Spanned, Tok};
use crate::syntax::{self, SyntaxError};

/// Where the instruction parser reads tokens from.
pub trait TokenSource<'a> {
    /// The next token.
    fn pull(&mut self) -> Option<Spanned<'a>>;
    /// Puts a token back to be pulled next.
    fn unpull(&mut self, tok: Spanned<'a>);
    /// The source text.
    fn text(&self) -> &'a str;
}

type Result<T> = std::result::Result<T, SyntaxError>;

/// A syntax error inside an instruction, with how many `{` were open where it was found (the
/// recovery must skip their `}` too).
pub struct Failure {
    /// The error.
    pub error: SyntaxError,
    /// Unclosed `{` at the error.
    pub open_braces: u32,
}

/// Parses one instruction whose first token (`@` or the opcode) is `first`.
pub fn parse<'a>(ts: &mut impl TokenSource<'a>, first: Spanned<'a>) -> std::result::Result<Instruction, Failure> {
    let mut p = Parser {
        ts,
        end: first.2,
        braces: 0,
    };
    instruction(&mut p, first).map_err(|error| Failure {
        error,
        open_braces: p.braces,
    })
}

fn instruction<'a, T: TokenSource<'a>>(p: &mut Parser<'_, T>, first: Spanned<'a>) -> Result<Instruction> {
    let start = first.0;
    let (guard, op_tok) = match first.1 {
        Tok::At => {
            let negated = p.eat(|t| matches!(t, Tok::Bang));
            let pred = p.name("a predicate after `@`")?;
            (Some(Guard { pred, negated }), p.next("an opcode")?)
        }
        _ => (None, first),
    };
    let opcode = match op_tok.1 {
        Tok::Ident(name) => syntax::ident(name, op_tok.0, op_tok.2),
        _ => return Err(p.unexpected(op_tok, "an opcode")),
    };
    let mut modifiers = Vec::new();
    while let Some(m) = p.eat_modifier() {
        modifiers.push(m);
    }
    let mut operands = Vec::new();
    if !p.eat(|t| matches!(t, Tok::Semi)) {
        loop {
            operands.push(p.operand()?);
            let tok = p.next("`,` or `;`")?;
            match tok.1 {
                Tok::Comma => {}
                Tok::Semi => break,
                _ => return Err(p.unexpected(tok, "`,` or `;`")),
            }
        }
    }
    Ok(Instruction {
        guard,
        opcode,
        modifiers,
        operands,
        span: Span::new(start, p.end),
    })
}

/// Skips the rest of a bad instruction (inside `open_braces` unclosed `{`): through the next
/// `;`, or up to an unmatched `}`.
pub fn recover<'a>(ts: &mut impl TokenSource<'a>, open_braces: u32) {
    let mut depth = open_braces;
    while let Some(tok) = ts.pull() {
        match tok.1 {
            Tok::Semi if depth == 0 => return,
            Tok::LBrace => depth += 1,
            Tok::RBrace if depth == 0 => {
                ts.unpull(tok);
                return;
            }
            Tok::RBrace => depth -= 1,
            _ => {}
        }
    }
}

struct Parser<'p, T> {
    ts: &'p mut T,
    end: usize,
    braces: u32,
}

impl<'a, T: TokenSource<'a>> Parser<'_, T> {
    fn next(&mut self, expected: &str) -> Result<Spanned<'a>> {
        match self.ts.pull() {
            Some(tok) => {
                self.end = tok.2;
                Ok(tok)
            }
            None => Err(SyntaxError {
                span: Span::new(self.end, self.end),
                message: format!("unexpected end of input, expected {expected}"),
            }),
        }
    }

    fn peek(&mut self) -> Option<Tok<'a>> {
        let tok = self.ts.pull()?;
        let kind = tok.1;
        self.ts.unpull(tok);
        Some(kind)
    }

    fn eat(&mut self, want: impl Fn(&Tok<'a>) -> bool) -> bool {
        match self.ts.pull() {
            Some(tok) if want(&tok.1) => {
                self.end = tok.2;
                true
            }
            Some(tok) => {
                self.ts.unpull(tok);
                false
            }
            None => false,
        }
    }

    fn unexpected(&self, tok: Spanned<'a>, expected: &str) -> SyntaxError {
        let text: String = self
            .ts
            .text()
            .get(tok.0..tok.2)
            .unwrap_or("?")
            .chars()
            .take(40)
            .collect();
        let message = match tok.1 {
            Tok::Section(_) => format!("unexpected `.section`, expected {expected}"),
            _ => format!("unexpected `{text}`, expected {expected}"),
        };
        SyntaxError {
            span: Span::new(tok.0, tok.2),
            message,
        }
    }

    fn name(&mut self, expected: &str) -> Result<Ident> {
        let tok = self.next(expected)?;
        match tok.1 {
            Tok::Ident(n) => Ok(syntax::ident(n, tok.0, tok.2)),
            _ => Err(self.unexpected(tok, expected)),
        }
    }

    /// A `.modifier` written right after the opcode or the previous modifier. Keywords count
    /// too (`.weak` is a memory order, `.global` a state space).
    fn eat_modifier(&mut self) -> Option<Ident> {
        let tok = self.ts.pull()?;
        let attached = tok.0 == self.end;
        let is_modifier = attached && self.ts.text().as_bytes().get(tok.0) == Some(&b'.');
        if !is_modifier {
            self.ts.unpull(tok);
            return None;
        }
        self.end = tok.2;
        let text = &self.ts.text()[tok.0 + 1..tok.2];
        Some(syntax::ident(text, tok.0 + 1, tok.2))
    }

    fn operand(&mut self) -> Result<Operand> {
        let tok = self.next("an operand")?;
        match tok.1 {
            Tok::LBracket => {
                let e = self.expr()?;
                if self.eat(|t| *t == Tok::Comma) {
                    // `[map, {c0, c1}]`: TMA's tensor map and coordinates.
                    let open = self.next("`{`")?;
                    if open.1 != Tok::LBrace {
                        return Err(self.unexpected(open, "`{`"));
                    }
                    self.braces += 1;
                    let coords = self.operand_list(Tok::RBrace, "`,` or `}`", false)?;
                    self.braces -= 1;
                    self.close(Tok::RBracket, "`]`")?;
                    let span = Span::new(tok.0, self.end);
                    let map = syntax::address(e, span).map_err(user)?;
                    return Ok(Operand::TensorAddress(map, coords, span));
                }
                self.close(Tok::RBracket, "`]`")?;
                Ok(Operand::Address(
                    syntax::address(e, Span::new(tok.0, self.end)).map_err(user)?,
                ))
            }
            Tok::LBrace => {
                self.braces += 1;
                let items = self.operand_list(Tok::RBrace, "`,` or `}`", false)?;
                self.braces -= 1;
                Ok(Operand::Vector(items, Span::new(tok.0, self.end)))
            }
            Tok::LParen => {
                let items = self.operand_list(Tok::RParen, "`,` or `)`", true)?;
                Ok(Operand::List(items, Span::new(tok.0, self.end)))
            }
            Tok::Ident(n) => {
                let base = syntax::ident(n, tok.0, tok.2);
                match self.ts.pull() {
                    Some((l, Tok::DotName(c), r)) => {
                        self.end = r;
                        let component = syntax::ident(&c[1..], l + 1, r);
                        Ok(Operand::Component { base, component })
                    }
                    Some(next) if ends_operand(&next.1) => {
                        self.ts.unpull(next);
                        Ok(syntax::operand_from_expr(Expr::Symbol(base)))
                    }
                    next => {
                        if let Some(next) = next {
                            self.ts.unpull(next);
                        }
                        let first = self.after_name(base)?;
                        Ok(syntax::operand_from_expr(self.binary_tail(first)?))
                    }
                }
            }
            _ => {
                self.ts.unpull(tok);
                self.end = tok.0;
                let first = self.unary()?;
                Ok(syntax::operand_from_expr(self.binary_tail(first)?))
            }
        }
    }

    fn operand_list(&mut self, close: Tok<'a>, expected: &str, may_be_empty: bool) -> Result<Vec<Operand>> {
        let mut items = Vec::new();
        if may_be_empty && self.eat(|t| *t == close) {
            return Ok(items);
        }
        loop {
            items.push(self.operand()?);
            let tok = self.next(expected)?;
            match tok.1 {
                Tok::Comma => {}
                t if t == close => return Ok(items),
                _ => return Err(self.unexpected(tok, expected)),
            }
        }
    }

    fn close(&mut self, want: Tok<'a>, expected: &str) -> Result<()> {
        let tok = self.next(expected)?;
        if tok.1 == want {
            Ok(())
        } else {
            Err(self.unexpected(tok, expected))
        }
    }

    /// A constant expression (names allowed), `unary (op unary)*`.
    fn expr(&mut self) -> Result<Expr> {
        let first = self.unary()?;
        self.binary_tail(first)
    }

    fn binary_tail(&mut self, first: Expr) -> Result<Expr> {
        let mut rest = Vec::new();
        while let Some(op) = self.peek().and_then(binary_op) {
            self.next("an operator")?;
            rest.push((op, self.unary()?));
        }
        Ok(if rest.is_empty() {
            first
        } else {
            syntax::climb(first, rest)
        })
    }

    fn unary(&mut self) -> Result<Expr> {
        let tok = self.next("an operand")?;
        let op = match tok.1 {
            Tok::Minus => '-',
            Tok::Tilde => '~',
            Tok::Bang => '!',
            _ => return self.atom(tok),
        };
        let arg = self.unary()?;
        let span = Span::new(tok.0, self.end);
        Ok(Expr::Unary {
            op,
            arg: Box::new(arg),
            span,
        })
    }

    fn atom(&mut self, tok: Spanned<'a>) -> Result<Expr> {
        match tok.1 {
            Tok::Int(text) => syntax::int(text, tok.0, tok.2).map_err(user),
            Tok::Float(text) => syntax::float(text, tok.0, tok.2).map_err(user),
            Tok::Ident(n) => self.after_name(syntax::ident(n, tok.0, tok.2)),
            Tok::LParen => {
                let e = self.expr()?;
                self.close(Tok::RParen, "`)`")?;
                Ok(e)
            }
            _ => Err(self.unexpected(tok, "an operand")),
        }
    }

    /// A name, or `generic(name)`.
    fn after_name(&mut self, name: Ident) -> Result<Expr> {
        if self.peek() != Some(Tok::LParen) {
            return Ok(Expr::Symbol(name));
        }
        self.next("`(`")?;
        let inner = self.name("a variable name")?;
        self.close(Tok::RParen, "`)`")?;
        syntax::generic(name, inner).map_err(user)
    }
}

/// Tokens that end an operand (the common case after a bare name).
fn ends_operand(tok: &Tok<'_>) -> bool {
    matches!(tok, Tok::Comma | Tok::Semi | Tok::RBracket | Tok::RBrace | Tok::RParen)
}

fn binary_op(tok: Tok<'_>) -> Option<&'static str> {
    Some(match tok {
        Tok::Pipe => "|",
        Tok::Caret => "^",
        Tok::Amp => "&",
        Tok::Shl => "<<",
        Tok::Shr => ">>",
        Tok::Plus => "+",
        Tok::Minus => "-",
        Tok::Star => "*",
        Tok::Slash => "/",
        Tok::Percent => "%",
        _ => return None,
    })
}

/// The [`SyntaxError`] inside a grammar-action error.
fn user<L, T>(e: lalrpop_util::ParseError<L, T, SyntaxError>) -> SyntaxError {
    match e {
        lalrpop_util::ParseError::User { error } => error,
        _ => SyntaxError {
            span: Span::default(),
            message: "syntax error".to_string(),
        },
    }
}
