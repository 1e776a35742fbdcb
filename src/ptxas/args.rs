//! ptxas's command-line syntax: `--long[=value]`, `-short[=value]`, the value in the next
//! argument when not attached, `-O3`/`-m64` with the number attached, `-` for standard input
//! and anything else an input file. Errors carry ptxas's own message text.

use super::options::{ATTACHED, OptSpec, ValueKind, lookup};

/// One argument understood: an option with its value, or an input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    /// An option and its value (`None` for switches, and for a bare `-O`).
    Opt(&'static OptSpec, Option<String>),
    /// An input file name (`-` is standard input).
    Input(String),
}

/// A fatal command-line error: the text after `ptxas fatal   : `.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fatal(pub String);

/// Splits `args` into options and inputs, checking each value as ptxas does.
pub fn split(args: &[String]) -> Result<Vec<Arg>, Fatal> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        let Some((spec, written, value)) = option_of(a)? else {
            out.push(Arg::Input(a.clone()));
            continue;
        };
        let value = match (spec.value, value) {
            (ValueKind::Flag, Some(_)) => {
                return Err(Fatal(format!("no argument expected after '{written}'")));
            }
            (ValueKind::Flag, None) => None,
            (_, Some(v)) => Some(v),
            // `-O` alone keeps the default level; it never takes the next argument.
            (_, None) if written == "-O" => None,
            (_, None) => match args.get(i) {
                Some(v) => {
                    i += 1;
                    Some(v.clone())
                }
                None => return Err(Fatal(format!("argument expected after '{a}'"))),
            },
        };
        if let Some(v) = &value {
            check_value(spec, v)?;
        }
        out.push(Arg::Opt(spec, value));
    }
    Ok(out)
}

/// An option found in an argument: its spec, how it was written (without the value), and the
/// value attached to it.
type Found = (&'static OptSpec, String, Option<String>);

/// The option `a` names; `None` for an input.
fn option_of(a: &str) -> Result<Option<Found>, Fatal> {
    if a == "-" || !a.starts_with('-') {
        return Ok(None);
    }
    let (long, body) = match a.strip_prefix("--") {
        Some(b) => (true, b),
        None => (false, &a[1..]),
    };
    let (name, value) = match body.split_once('=') {
        Some((n, v)) => (n, Some(v.to_string())),
        None => (body, None),
    };
    let dashes = if long { "--" } else { "-" };
    if let Some(spec) = lookup(name, long) {
        return Ok(Some((spec, format!("{dashes}{name}"), value)));
    }
    if !long {
        for short in ATTACHED {
            if let Some(rest) = body.strip_prefix(short) {
                let spec = lookup(short, false).expect("attached options are in the table");
                return Ok(Some((spec, format!("-{short}"), Some(rest.to_string()))));
            }
        }
    }
    let shown = a[1..].split('=').next().unwrap_or_default();
    Err(Fatal(format!("Unknown option '{shown}'")))
}

/// Checks the syntax of a value as ptxas does before it looks at its meaning.
fn check_value(spec: &OptSpec, v: &str) -> Result<(), Fatal> {
    match spec.value {
        ValueKind::Bool if v != "true" && v != "false" => Err(Fatal(format!("'{v}': expected true or false"))),
        ValueKind::Number if parse_number(v).is_none() => Err(Fatal(format!("'{v}': expected a number"))),
        ValueKind::Choice(allowed) if !allowed.contains(&v) => {
            Err(Fatal(format!("Value '{v}' is not defined for option '{}'", spec.long)))
        }
        ValueKind::RegCount if v != "archmax" && v != "archmin" && parse_count(v).is_none() => {
            Err(Fatal(format!("Invalid value '{v}' for option '{}'", spec.long)))
        }
        ValueKind::FastCompile if !["0", "min", "mid", "max"].contains(&v) => Err(Fatal(format!(
            "Invalid value for --Ofast-compile/-Ofc ({v}), is not 'max', 'mid', 'min', or '0'"
        ))),
        _ => Ok(()),
    }
}

/// A decimal integer, possibly negative.
pub fn parse_number(v: &str) -> Option<i64> {
    v.parse().ok()
}

/// A register count: a number, or nothing (which ptxas reads as 0).
pub fn parse_count(v: &str) -> Option<i64> {
    if v.is_empty() { Some(0) } else { parse_number(v) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn names(s: &str) -> Vec<(String, Option<String>)> {
        split(&args(s))
            .unwrap()
            .into_iter()
            .map(|a| match a {
                Arg::Opt(o, v) => (o.long.to_string(), v),
                Arg::Input(f) => (format!("<{f}>"), None),
            })
            .collect()
    }

    fn error(s: &str) -> String {
        split(&args(s)).unwrap_err().0
    }

    #[test]
    fn spellings() {
        let got = names("-arch=sm_75 -arch sm_75 --gpu-name=sm_75 --gpu-name sm_75 -O3 -O --opt-level 2 -m64 k.ptx -");
        let want = [
            ("gpu-name", Some("sm_75")),
            ("gpu-name", Some("sm_75")),
            ("gpu-name", Some("sm_75")),
            ("gpu-name", Some("sm_75")),
            ("opt-level", Some("3")),
            ("opt-level", None),
            ("opt-level", Some("2")),
            ("machine", Some("64")),
            ("<k.ptx>", None),
            ("<->", None),
        ];
        let want: Vec<_> = want.iter().map(|(n, v)| (n.to_string(), v.map(String::from))).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn ptxas_messages() {
        assert_eq!(error("--foo"), "Unknown option '-foo'");
        assert_eq!(error("--foo=1"), "Unknown option '-foo'");
        assert_eq!(error("-foo"), "Unknown option 'foo'");
        assert_eq!(error("-oout.o"), "Unknown option 'oout.o'");
        assert_eq!(error("--arch=sm_75"), "Unknown option '-arch'");
        assert_eq!(error("-v=1"), "no argument expected after '-v'");
        assert_eq!(error("-o"), "argument expected after '-o'");
        assert_eq!(error("-Ox"), "'x': expected a number");
        assert_eq!(error("-O3=4"), "'3=4': expected a number");
        assert_eq!(error("--fmad=FALSE"), "'FALSE': expected true or false");
        assert_eq!(
            error("-arch=sm_70"),
            "Value 'sm_70' is not defined for option 'gpu-name'"
        );
        assert_eq!(
            error("-maxrregcount=abc"),
            "Invalid value 'abc' for option 'maxrregcount'"
        );
    }
}
