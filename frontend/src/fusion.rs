//! The token stream the LR grammar reads: the lexer's tokens, except that every instruction
//! is parsed here (by [`crate::instruction_syntax`]) and arrives as one [`Tok::Instruction`]
//! token, and `.loc 1 2 3` arrives as one [`Tok::LocLine`]. The LR parser pays per token, so
//! this is most of the parser's speed. A syntax error inside an instruction is reported here
//! and the instruction skipped up to its `;`, so one run reports several errors.

use crate::ast::Instruction;
use crate::instruction_syntax::{self, TokenSource};
use crate::lexer::{Lexer, MAX_ERRORS, Spanned, Tok};
use crate::syntax::SyntaxError;
use std::cell::RefCell;
use std::collections::VecDeque;

/// Instructions parsed ahead of the grammar, handed over by number. The grammar takes them in
/// order (skipping those that error recovery dropped), so only the few between the stream and
/// the parser's lookahead are ever held.
#[derive(Default)]
pub struct InstrTable {
    waiting: RefCell<VecDeque<(usize, Instruction)>>,
    count: std::cell::Cell<usize>,
}

impl InstrTable {
    fn push(&self, inst: Instruction) -> usize {
        let number = self.count.get();
        self.count.set(number + 1);
        self.waiting.borrow_mut().push_back((number, inst));
        number
    }

    /// Takes instruction `number` (once), forgetting any older one never taken.
    pub fn take(&self, number: usize) -> Option<Instruction> {
        let mut waiting = self.waiting.borrow_mut();
        while waiting.front().is_some_and(|(n, _)| *n < number) {
            waiting.pop_front();
        }
        match waiting.front() {
            Some((n, _)) if *n == number => waiting.pop_front().map(|(_, inst)| inst),
            _ => None,
        }
    }
}

/// Where in the structure the stream is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// A statement may start here: an identifier starts an instruction or a label.
    StatementStart,
    /// Inside a directive or declaration.
    Inside,
    /// Inside an initialiser (`= {...}`), until the `;`.
    Initializer,
    /// In the `, function_name F, inlined_at A B C` tail of a `.loc`: how many of `inlined_at`
    /// and its three numbers were seen.
    LocTail(u8),
}

/// The token stream over a [`Lexer`].
pub struct Fused<'a, 't> {
    /// The underlying lexer (its diagnostics, with the instructions' syntax errors, are read
    /// after parsing).
    pub lexer: Lexer<'a>,
    instrs: &'t InstrTable,
    peeked: Option<Spanned<'a>>,
    pending: VecDeque<Spanned<'a>>,
    state: State,
    after_loc: bool,
}

impl<'a> TokenSource<'a> for Fused<'a, '_> {
    #[inline]
    fn pull(&mut self) -> Option<Spanned<'a>> {
        if let Some(tok) = self.peeked.take() {
            return Some(tok);
        }
        if let Some(tok) = self.pending.pop_front() {
            return Some(tok);
        }
        self.lexer.next().and_then(Result::ok)
    }

    #[inline]
    fn unpull(&mut self, tok: Spanned<'a>) {
        if let Some(older) = self.peeked.replace(tok) {
            self.pending.push_front(older);
        }
    }

    fn text(&self) -> &'a str {
        self.lexer.source()
    }
}

impl<'a, 't> Fused<'a, 't> {
    /// The stream over `lexer`, parking parsed instructions in `instrs`.
    pub fn new(lexer: Lexer<'a>, instrs: &'t InstrTable) -> Fused<'a, 't> {
        Fused {
            lexer,
            instrs,
            peeked: None,
            pending: VecDeque::new(),
            state: State::StatementStart,
            after_loc: false,
        }
    }

    /// `.loc` at `l..r` followed by three integers that fit in 32 bits.
    fn loc(&mut self, l: usize, r: usize) -> Spanned<'a> {
        let mut taken = Vec::with_capacity(3);
        let mut fitting = 0;
        while taken.len() < 3 {
            let Some(tok) = self.pull() else { break };
            let fits = match tok.1 {
                Tok::Int(text) => crate::literal::parse_int(text).is_ok_and(|(v, _)| v <= u32::MAX as u64),
                _ => false,
            };
            taken.push(tok);
            if !fits {
                break;
            }
            fitting += 1;
        }
        if fitting == 3 {
            let end = taken[2].2;
            return (l, Tok::LocLine(&self.lexer.source()[l..end]), end);
        }
        for tok in taken.into_iter().rev() {
            self.unpull(tok);
        }
        (l, Tok::Loc, r)
    }

    /// True if the identifier just pulled is a label (`name:`).
    fn is_label(&mut self) -> bool {
        match self.pull() {
            Some(next) => {
                let colon = next.1 == Tok::Colon;
                self.unpull(next);
                colon
            }
            None => false,
        }
    }

    /// Parses an instruction starting at `first`; `None` when it was malformed (reported).
    fn instruction(&mut self, first: Spanned<'a>) -> Option<Spanned<'a>> {
        match instruction_syntax::parse(self, first) {
            Ok(inst) => {
                let (l, r) = (inst.span.start as usize, inst.span.end as usize);
                Some((l, Tok::Instruction(self.instrs.push(inst)), r))
            }
            Err(failure) => {
                let SyntaxError { span, message } = failure.error;
                self.lexer.report(span, message);
                instruction_syntax::recover(self, failure.open_braces);
                None
            }
        }
    }

    fn advance_state(&mut self, tok: &Tok<'a>) {
        self.state = match (self.state, tok) {
            (_, Tok::Semi) => State::StatementStart,
            (State::LocTail(0), Tok::Ident("inlined_at")) => State::LocTail(1),
            (State::LocTail(3), Tok::Int(_)) => State::StatementStart,
            (State::LocTail(n), Tok::Int(_)) if n > 0 => State::LocTail(n + 1),
            (State::LocTail(n), _) => State::LocTail(n),
            (State::Initializer, _) => State::Initializer,
            (_, Tok::Eq) => State::Initializer,
            (_, Tok::LBrace | Tok::RBrace | Tok::Colon | Tok::LocLine(_) | Tok::Section(_)) => State::StatementStart,
            (_, Tok::Instruction(_)) => State::StatementStart,
            (State::StatementStart, Tok::Comma) if self.after_loc => State::LocTail(0),
            (State::StatementStart, Tok::Int(_)) => State::StatementStart,
            _ => State::Inside,
        };
    }
}

impl<'a> Iterator for Fused<'a, '_> {
    type Item = Result<Spanned<'a>, SyntaxError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.lexer.diagnostics.len() >= MAX_ERRORS {
                self.lexer.aborted = true;
                return None;
            }
            let (l, tok, r) = self.pull()?;
            let out = match tok {
                Tok::At if self.state == State::StatementStart => self.instruction((l, tok, r)),
                Tok::Ident(_) if self.state == State::StatementStart && !self.is_label() => {
                    self.instruction((l, tok, r))
                }
                Tok::Loc if self.state == State::StatementStart => Some(self.loc(l, r)),
                _ => Some((l, tok, r)),
            };
            if let Some(out) = out {
                self.advance_state(&out.1);
                self.after_loc = matches!(out.1, Tok::LocLine(_));
                return Some(Ok(out));
            }
            self.state = State::StatementStart;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<String> {
        let table = InstrTable::default();
        Fused::new(Lexer::new(src), &table)
            .map(|t| format!("{:?}", t.expect("token").1))
            .collect()
    }

    #[test]
    fn instructions_and_locs_become_single_tokens() {
        let toks = kinds(
            ".global .u32 a[2] = {x, y};\n{ .loc 1 2 3\n@!%p ld.global.u32 %r1, [%rd1]; L: mov.u32 %r1, {%tid.x}; { ret; } }",
        );
        let expected = [
            "Global",
            "Type(\".u32\")",
            "Ident(\"a\")",
            "LBracket",
            "Int(\"2\")",
            "RBracket",
            "Eq",
            "LBrace",
            "Ident(\"x\")",
            "Comma",
            "Ident(\"y\")",
            "RBrace",
            "Semi",
            "LBrace",
            "LocLine(\".loc 1 2 3\")",
            "Instruction(0)",
            "Ident(\"L\")",
            "Colon",
            "Instruction(1)",
            "LBrace",
            "Instruction(2)",
            "RBrace",
            "RBrace",
        ];
        assert_eq!(toks, expected);
    }
}
