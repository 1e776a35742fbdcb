//! Token fusion, for speed: the LR parser pays per token, so the two most frequent multi-token
//! forms reach it as one token each. An opcode written together with its modifiers at the
//! start of a statement (`ld.global.u32`) becomes [`Tok::Opcode`]; `.loc 1 2 3` becomes
//! [`Tok::LocLine`]. Anything else (or these forms written with spaces) passes through
//! unchanged, and the grammar accepts both shapes.

use crate::lexer::{Lexer, Spanned, Tok};
use crate::syntax::SyntaxError;
use std::collections::VecDeque;

/// Where in a statement the stream is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// A new statement may start here.
    StatementStart,
    /// After `@` or `@!`: the guard predicate comes next.
    Guard,
    /// Inside a statement.
    Inside,
}

/// The fused token stream over a [`Lexer`].
pub struct Fused<'a> {
    /// The underlying lexer (its diagnostics are read after parsing).
    pub lexer: Lexer<'a>,
    pending: VecDeque<Spanned<'a>>,
    state: State,
}

impl<'a> Fused<'a> {
    /// Fuses `lexer`'s tokens.
    pub fn new(lexer: Lexer<'a>) -> Fused<'a> {
        Fused { lexer, pending: VecDeque::new(), state: State::StatementStart }
    }

    fn pull(&mut self) -> Option<Spanned<'a>> {
        if let Some(tok) = self.pending.pop_front() {
            return Some(tok);
        }
        self.lexer.next().and_then(Result::ok)
    }

    /// `ident.mod.mod...` written without spaces, starting with the identifier at `l..r`.
    fn opcode(&mut self, l: usize, r: usize, ident: Tok<'a>) -> Spanned<'a> {
        let mut end = r;
        while let Some(next) = self.pull() {
            if next.0 == end && is_modifier(&next.1) {
                end = next.2;
            } else {
                self.pending.push_back(next);
                break;
            }
        }
        if end == r {
            return (l, ident, r);
        }
        (l, Tok::Opcode(&self.lexer.source()[l..end]), end)
    }

    /// `.loc` at `l..r` followed by three integers.
    fn loc(&mut self, l: usize, r: usize) -> Spanned<'a> {
        let mut numbers = [0u32; 3];
        let mut taken = Vec::with_capacity(3);
        let mut end = r;
        for slot in &mut numbers {
            let Some(tok) = self.pull() else { break };
            let value = match tok.1 {
                Tok::Int(text) => crate::literal::parse_int(text).ok().and_then(|(v, _)| u32::try_from(v).ok()),
                _ => None,
            };
            end = tok.2;
            taken.push(tok);
            match value {
                Some(v) => *slot = v,
                None => break,
            }
        }
        if taken.len() == 3 && taken.iter().all(|t| matches!(t.1, Tok::Int(_))) {
            return (l, Tok::LocLine((numbers[0], numbers[1], numbers[2])), end);
        }
        for tok in taken.into_iter().rev() {
            self.pending.push_front(tok);
        }
        (l, Tok::Loc, r)
    }

    fn advance_state(&mut self, tok: &Tok<'a>) {
        self.state = match (self.state, tok) {
            (_, Tok::Semi | Tok::Colon) => State::StatementStart,
            (State::StatementStart, Tok::LBrace | Tok::RBrace | Tok::LocLine(_) | Tok::Section(_)) => {
                State::StatementStart
            }
            (State::StatementStart, Tok::At) => State::Guard,
            (State::Guard, Tok::Bang) => State::Guard,
            (State::Guard, Tok::Ident(_)) => State::StatementStart,
            (State::StatementStart, Tok::Int(_)) => State::StatementStart,
            _ => State::Inside,
        };
    }
}

fn is_modifier(tok: &Tok<'_>) -> bool {
    matches!(
        tok,
        Tok::DotName(_)
            | Tok::Type(_)
            | Tok::Global
            | Tok::Shared
            | Tok::Local
            | Tok::Const
            | Tok::Param
            | Tok::Reg
            | Tok::V2
            | Tok::V4
            | Tok::V8
    )
}

impl<'a> Iterator for Fused<'a> {
    type Item = Result<Spanned<'a>, SyntaxError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (l, tok, r) = self.pull()?;
        let out = match tok {
            Tok::Ident(_) if self.state == State::StatementStart => self.opcode(l, r, tok),
            Tok::Loc if self.state == State::StatementStart => self.loc(l, r),
            _ => (l, tok, r),
        };
        self.advance_state(&out.1);
        Some(Ok(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<String> {
        Fused::new(Lexer::new(src)).map(|t| format!("{:?}", t.expect("token").1)).collect()
    }

    #[test]
    fn opcodes_and_locs_are_fused_at_statement_start_only() {
        let toks = kinds("{ .loc 1 2 3\n@!%p ld.global.u32 %r1, [%rd1]; mov.u32 %r1, %tid.x; L: ret; }");
        let expected = [
            "LBrace", "LocLine((1, 2, 3))", "At", "Bang", "Ident(\"%p\")", "Opcode(\"ld.global.u32\")",
            "Ident(\"%r1\")", "Comma", "LBracket", "Ident(\"%rd1\")", "RBracket", "Semi",
            "Opcode(\"mov.u32\")", "Ident(\"%r1\")", "Comma", "Ident(\"%tid\")", "DotName(\".x\")",
            "Semi", "Ident(\"L\")", "Colon", "Ident(\"ret\")", "Semi", "RBrace",
        ];
        assert_eq!(toks, expected);
    }

    #[test]
    fn the_big_file_shrinks() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/corpus/ptx90parser__matrix_free_device_matrix_vector.ptx");
        let src = std::fs::read_to_string(path).expect("corpus file");
        let raw = Lexer::new(&src).count();
        let fused = Fused::new(Lexer::new(&src)).count();
        eprintln!("{raw} -> {fused}");
        assert!(fused * 10 < raw * 8, "{raw} -> {fused}");
    }
}
