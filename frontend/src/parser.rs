//! Runs the lalrpop parser over the token stream ([`Fused`]: the [`Lexer`]'s tokens with
//! instructions parsed ahead) and turns every syntax error into a [`Diagnostic`]. Errors inside
//! function bodies are recovered at the next `;`, so one run reports several.

use crate::ast::{Module, Span};
use crate::diag::Diagnostic;
use crate::fusion::{Fused, InstrTable};
use crate::lexer::{Lexer, MAX_ERRORS, Tok};
use crate::syntax::SyntaxError;
use lalrpop_util::ParseError;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_parens, missing_docs)]
    grammar
);

/// Parses a whole PTX file.
pub fn parse(src: &str) -> Result<Module, Vec<Diagnostic>> {
    if src.len() >= u32::MAX as usize {
        return Err(vec![Diagnostic::error("input larger than 4 GiB", Span::default())]);
    }
    let instructions = InstrTable::default();
    let mut tokens = Fused::new(Lexer::new(src), &instructions);
    let mut recovered = Vec::new();
    let result = grammar::ModuleParser::new().parse(src, &mut recovered, &instructions, &mut tokens);
    let lexer = tokens.lexer;
    let mut diags = lexer.diagnostics;
    for r in recovered {
        diags.extend(convert(src, r.error));
    }
    let module = match result {
        Ok(module) => Some(module),
        Err(e) => {
            let eof = matches!(e, ParseError::UnrecognizedEof { .. });
            if !(lexer.aborted && eof) {
                diags.extend(convert(src, e));
            }
            None
        }
    };
    diags.sort_by_key(|d| d.span.start);
    diags.truncate(MAX_ERRORS);
    match module {
        Some(m) if diags.is_empty() => Ok(m),
        _ if diags.is_empty() => Err(vec![Diagnostic::error("syntax error", Span::default())]),
        _ => Err(diags),
    }
}

type Error<'a> = ParseError<usize, Tok<'a>, SyntaxError>;

/// The diagnostic for one parse error (`None` for errors at tokens the lexer already reported).
fn convert(src: &str, e: Error<'_>) -> Option<Diagnostic> {
    Some(match e {
        ParseError::InvalidToken { location } => Diagnostic::error("invalid token", Span::new(location, location + 1)),
        ParseError::UnrecognizedEof { location, expected } => {
            let message = format!("unexpected end of input{}", expected_suffix(&expected));
            Diagnostic::error(message, Span::new(location, location))
        }
        ParseError::UnrecognizedToken {
            token: (_, Tok::Invalid, _),
            ..
        } => return None,
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => {
            let found = describe(src, l, r, &tok);
            Diagnostic::error(
                format!("unexpected {found}{}", expected_suffix(&expected)),
                Span::new(l, r),
            )
        }
        ParseError::ExtraToken { token: (l, tok, r) } => {
            let found = describe(src, l, r, &tok);
            Diagnostic::error(
                format!("unexpected {found} after the end of the module"),
                Span::new(l, r),
            )
        }
        ParseError::User { error } => Diagnostic::error(error.message, error.span),
    })
}

/// How a token is named in a message: its text in backquotes, shortened.
fn describe(src: &str, l: usize, r: usize, tok: &Tok<'_>) -> String {
    if let Tok::Section(_) = tok {
        return "`.section`".to_string();
    }
    let text = src.get(l..r).unwrap_or("?");
    let short: String = text.chars().take(40).collect();
    format!("`{short}`")
}

/// ", expected X or Y" when the expected set is small or has punctuation that helps.
fn expected_suffix(expected: &[String]) -> String {
    const PUNCT: [&str; 6] = ["\";\"", "\",\"", "\")\"", "\"]\"", "\"}\"", "\":\""];
    let punct: Vec<&String> = expected.iter().filter(|e| PUNCT.contains(&e.as_str())).collect();
    let shown: Vec<&String> = if !punct.is_empty() {
        punct
    } else if expected.len() <= 6 {
        expected.iter().collect()
    } else {
        return String::new();
    };
    let names: Vec<String> = shown.iter().map(|e| terminal_name(e)).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => format!(", expected {last}"),
        Some((last, rest)) => format!(", expected {} or {last}", rest.join(", ")),
    }
}

/// `"\";\""` → `` `;` ``; `"\"identifier\""` → `an identifier`.
fn terminal_name(quoted: &str) -> String {
    let bare = quoted.trim_matches('"');
    match bare {
        "identifier" => "an identifier".to_string(),
        "integer" => "an integer".to_string(),
        "float" => "a floating-point number".to_string(),
        "string" => "a string".to_string(),
        "type" => "a type".to_string(),
        "directive or modifier" => "a directive".to_string(),
        "section" => "`.section`".to_string(),
        other => format!("`{other}`"),
    }
}
