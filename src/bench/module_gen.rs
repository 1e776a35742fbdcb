//! Large modules made from real kernels, for measuring how compile time grows with module size:
//! a PTX module replicated with every module-scope name of each copy renamed (`name_cN`), one
//! header, the `.file` table once. `.extern` functions (provided by the driver, such as
//! `__assertfail`) keep their names, and so do `.const` variables: the copies share the first
//! copy's (constant bank 3 holds 64 KiB, which copies of a large table would exceed).

use logos::Logos;
use ptxc_frontend::ast::{Item, Linkage, Span, StateSpace};
use ptxc_frontend::lexer::Tok;
use std::collections::HashSet;

/// `src` replicated `copies` times as one module (copy 0 keeps its names).
pub fn replicate(src: &str, copies: usize) -> Result<String, String> {
    let (renamed, shared) = module_scope_names(src)?;
    let (header, body) = split_header(src);
    let (_, copy_body) = split_header(&blanked(src, &shared));
    let copy_body = without_file_table(&copy_body);
    let mut out = String::with_capacity(src.len() * copies + 64);
    out.push_str(&header);
    for copy in 0..copies {
        let text = if copy == 0 {
            body.clone()
        } else {
            rename(&copy_body, &renamed, copy)
        };
        out.push_str(&text);
        out.push('\n');
    }
    Ok(out)
}

/// Replicates `src` until the module holds at least `bytes` bytes; returns it and the copies.
pub fn replicate_to_size(src: &str, bytes: usize) -> Result<(String, usize), String> {
    let copies = bytes.div_ceil(src.len().max(1)).max(1);
    Ok((replicate(src, copies)?, copies))
}

/// The names declared at module scope that a copy must rename, and the spans of the
/// declarations the copies share (the `.const` variables).
fn module_scope_names(src: &str) -> Result<(HashSet<String>, Vec<Span>), String> {
    let module = ptxc_frontend::parse(src).map_err(|d| format!("the module does not parse ({} errors)", d.len()))?;
    let mut names = HashSet::new();
    let mut shared = Vec::new();
    for item in &module.items {
        match item {
            Item::Function(f) if !(f.linkage == Linkage::Extern && f.body.is_none()) => {
                names.insert(f.name.name.clone());
            }
            Item::Variable(v) if v.space == StateSpace::Const => shared.push(v.span),
            Item::Variable(v) => names.extend(v.names.iter().map(|n| n.name.name.clone())),
            _ => {}
        }
    }
    Ok((names, shared))
}

/// `src` with the text of `spans` (and a `;` right after one) blanked out, lines kept.
fn blanked(src: &str, spans: &[Span]) -> String {
    let mut bytes = src.as_bytes().to_vec();
    for span in spans {
        let (start, mut end) = (span.start as usize, (span.end as usize).min(bytes.len()));
        while end < bytes.len() && bytes[end].is_ascii_whitespace() && bytes[end] != b'\n' {
            end += 1;
        }
        if bytes.get(end) == Some(&b';') {
            end += 1;
        }
        for b in &mut bytes[start.min(end)..end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    // Only whole ASCII-delimited declarations were blanked, so the text stays UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Is `line` a module header directive (`.version`, `.target`, `.address_size`)?
fn is_header(line: &str) -> bool {
    let t = line.trim_start();
    [".version", ".target", ".address_size"]
        .iter()
        .any(|d| t.starts_with(d))
}

/// The header directives, and the rest of the text with them removed.
fn split_header(src: &str) -> (String, String) {
    let (mut header, mut body) = (String::new(), String::new());
    for line in src.lines() {
        let part = if is_header(line) { &mut header } else { &mut body };
        part.push_str(line);
        part.push('\n');
    }
    (header, body)
}

/// The text without its `.file` directives (the first copy's table serves every copy).
fn without_file_table(body: &str) -> String {
    body.lines()
        .filter(|l| !l.trim_start().starts_with(".file"))
        .flat_map(|l| [l, "\n"])
        .collect()
}

/// `text` with every identifier token in `names` suffixed with `_c{copy}`.
fn rename(text: &str, names: &HashSet<String>, copy: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut last = 0;
    for (tok, span) in Tok::lexer(text).spanned() {
        if let Ok(Tok::Ident(id)) = tok
            && names.contains(id)
        {
            out.push_str(&text[last..span.end]);
            out.push_str(&format!("_c{copy}"));
            last = span.end;
        }
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = ".version 7.0\n.target sm_75\n.address_size 64\n\
        .extern .func __assertfail(.param .b64 p);\n\
        .global .align 4 .b32 g[4];\n\
        .const .align 4 .b32 table[2] = {1, 2};\n\
        .func helper() { ret; }\n\
        .visible .entry k(.param .u64 k_param_0) { .reg .b32 %r<3>; call helper; ld.global.u32 %r1, [g]; ld.const.u32 %r2, [table]; ret; }\n";

    #[test]
    fn copies_rename_module_names_but_not_extern_functions() {
        let m = replicate(SRC, 3).unwrap();
        assert_eq!(m.matches(".version").count(), 1);
        for name in ["k_c1", "k_c2", "helper_c2", "g_c1", "k_param_0"] {
            assert!(m.contains(name), "{name} missing in\n{m}");
        }
        assert_eq!(m.matches("__assertfail_c").count(), 0);
        assert_eq!(
            m.matches(".const .align").count(),
            1,
            "the copies share the constants: {m}"
        );
        assert_eq!(m.matches("[table]").count(), 3);
        assert!(!m.contains("k_param_0_c1"), "parameters are not module scope: {m}");
    }

    #[test]
    fn the_replicated_module_parses_and_checks() {
        let m = replicate(SRC, 4).unwrap();
        let checked = ptxc_frontend::parse_and_check(&m);
        assert!(checked.is_ok(), "{:?}", checked.err());
    }
}
