//! Parses and checks PTX files given on the command line and prints diagnostics; with
//! `--repeat N`, parses each N times and prints the throughput; `--lex` measures the lexer
//! alone, `--parse` the parser without the checks; `--print` pretty-prints the parsed file instead.

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut repeat = 1usize;
    if let Some(i) = args.iter().position(|a| a == "--repeat") {
        repeat = args.get(i + 1).and_then(|n| n.parse().ok()).unwrap_or(1);
        args.drain(i..(i + 2).min(args.len()));
    }
    let lex_only = args.iter().any(|a| a == "--lex");
    let print = args.iter().any(|a| a == "--print");
    let parse_only = args.iter().any(|a| a == "--parse");
    args.retain(|a| a != "--lex" && a != "--print" && a != "--parse");
    let mut failed = false;
    for path in &args {
        let src = match std::fs::read_to_string(path) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{path}: {e}");
                failed = true;
                continue;
            }
        };
        if print {
            match ptxc_frontend::parse(&src) {
                Ok(m) => print!("{}", ptxc_frontend::print::module(&m)),
                Err(d) => eprint!("{}", ptxc_frontend::render_diagnostics(path, &src, &d)),
            }
            continue;
        }
        let start = std::time::Instant::now();
        if lex_only {
            let mut tokens = 0;
            for _ in 0..repeat {
                tokens = ptxc_frontend::lexer::Lexer::new(&src).count();
            }
            let secs = start.elapsed().as_secs_f64() / repeat as f64;
            println!("{path}: {tokens} tokens, {:.1} MB/s", src.len() as f64 / secs / 1e6);
            let start = std::time::Instant::now();
            for _ in 0..repeat {
                use logos::Logos;
                tokens = ptxc_frontend::lexer::Tok::lexer(&src).count();
            }
            let secs = start.elapsed().as_secs_f64() / repeat as f64;
            println!("raw logos: {tokens} tokens, {:.1} MB/s", src.len() as f64 / secs / 1e6);
            continue;
        }
        if parse_only {
            let mut best = f64::MAX;
            for _ in 0..repeat {
                let t = std::time::Instant::now();
                let _ = std::hint::black_box(ptxc_frontend::parse(&src));
                best = best.min(t.elapsed().as_secs_f64());
            }
            let secs = start.elapsed().as_secs_f64() / repeat as f64;
            let mbps = |s: f64| src.len() as f64 / s / 1e6;
            println!(
                "{path}: parsed, {:.1} MB/s mean, {:.1} MB/s best",
                mbps(secs),
                mbps(best)
            );
            continue;
        }
        let mut result = ptxc_frontend::parse_and_check(&src);
        for _ in 1..repeat {
            result = ptxc_frontend::parse_and_check(&src);
        }
        let secs = start.elapsed().as_secs_f64() / repeat as f64;
        match result {
            Ok(m) => println!(
                "{path}: ok, {} functions, {:.1} MB/s",
                m.functions.len(),
                src.len() as f64 / secs / 1e6
            ),
            Err(diags) => {
                failed = true;
                ptxc_frontend::eprint_diagnostics(path, &src, &diags);
            }
        }
    }
    std::process::exit(i32::from(failed));
}
