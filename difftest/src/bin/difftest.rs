//! `difftest`: differential testing campaigns of ptxc against its MIR interpreter and ptxas.
//!
//! `difftest --count N --seed S [--out DIR] [--jobs J]` checks N random programs and prints
//! progress and a summary (exit status 1 on any mismatch); with `--out`, the first failures
//! of each kind are shrunk and written there as regression cases. `difftest --print SEED`
//! prints the PTX of one program; `difftest --replay PATH...` checks regression cases
//! (launch specs, or folders of them).

use clap::Parser;
use ptxc_difftest::compare::Mismatch;
use ptxc_difftest::regress::{self, Verdict};
use ptxc_difftest::{campaign, case, engines::Engines, generator, program::print, shrink::Limits};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(about = "Differential testing of ptxc: random PTX kernels on the MIR interpreter, ptxc and ptxas")]
struct Args {
    /// Programs to check.
    #[arg(long, default_value_t = 100)]
    count: u64,
    /// Seed of the first program (program i has seed SEED + i).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Shrink failures and write them here as regression cases.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Worker threads.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Failures shrunk per mismatch signature.
    #[arg(long, default_value_t = 2)]
    shrink_per_signature: usize,
    /// Most checks per shrink.
    #[arg(long, default_value_t = 3000)]
    max_checks: usize,
    /// Leave out the instructions of open issues (`known::ISSUES`) from the programs.
    #[arg(long)]
    avoid_open_issues: bool,
    /// Also report the programs whose mismatches are all open issues.
    #[arg(long)]
    verbose: bool,
    /// Print the PTX of the program with this seed and exit.
    #[arg(long)]
    print: Option<u64>,
    /// Shrink the program with this seed into `--out` (default `.`) and exit.
    #[arg(long)]
    shrink: Option<u64>,
    /// With --shrink: shrink the first mismatch (unexplained first, then open issues) whose
    /// signature contains this text.
    #[arg(long)]
    target: Option<String>,
    /// Check regression cases (launch specs or folders of them) and exit.
    #[arg(long, num_args = 1..)]
    replay: Vec<PathBuf>,
    /// Compare the MIR interpreter with ptxc only, without ptxas (which otherwise comes from
    /// `CUDA_ORACLE_BIN`, or is installed by `scripts/cuda-oracle`).
    #[arg(long)]
    no_ptxas: bool,
}

fn main() {
    let args = Args::parse();
    // Panics inside the stages are caught and reported as mismatches; keep them quiet.
    std::panic::set_hook(Box::new(|_| {}));
    let options = generator::Options {
        avoid_open_issues: args.avoid_open_issues,
    };
    if let Some(seed) = args.print {
        print!("{}", print::to_ptx(&generator::generate_with(seed, options).program));
        return;
    }
    let ptxas = if args.no_ptxas {
        None
    } else {
        match ptxc_testkit::try_oracle_bin() {
            Ok(bin) => Some(bin.join("ptxas")),
            Err(why) => {
                eprintln!(
                    "difftest: ptxas is not available: {why}\n(--no-ptxas compares the interpreter with ptxc only)"
                );
                std::process::exit(2);
            }
        }
    };
    let scratch = std::env::temp_dir().join(format!("ptxc-difftest-{}", std::process::id()));
    let code = if !args.replay.is_empty() {
        replay(&args.replay, &Engines::new(ptxas, &scratch))
    } else if let Some(seed) = args.shrink {
        shrink_one(seed, &args, options, &Engines::new(ptxas, &scratch))
    } else {
        let opts = campaign::Options {
            count: args.count,
            seed: args.seed,
            jobs: args.jobs,
            out: args.out.clone(),
            shrink_per_signature: args.shrink_per_signature,
            limits: Limits {
                max_checks: args.max_checks,
            },
            ptxas,
            scratch: scratch.clone(),
            generator: options,
            verbose: args.verbose,
        };
        let summary = campaign::run(&opts, &mut |line| eprintln!("{line}"));
        print!("{}", summary.text());
        i32::from(!summary.failures.is_empty())
    };
    let _ = std::fs::remove_dir_all(&scratch);
    std::process::exit(code);
}

/// Shrinks one program into `--out`; returns the exit status.
fn shrink_one(seed: u64, args: &Args, options: generator::Options, engines: &Engines) -> i32 {
    let Some(f) = campaign::check_seed(engines, seed, options) else {
        println!("seed {seed}: no mismatch");
        return 0;
    };
    println!("seed {seed}: {}", f.report);
    let wanted = args.target.as_deref().unwrap_or("");
    let mut all = f.unexplained.iter().chain(&f.known);
    let Some(m) = all.find(|m| m.signature().contains(wanted)) else {
        println!("seed {seed}: no mismatch matches `{wanted}`");
        return 0;
    };
    let dir = args.out.clone().unwrap_or_else(|| PathBuf::from("."));
    let limits = Limits {
        max_checks: args.max_checks,
    };
    match campaign::shrink_and_write(engines, seed, options, m, limits, &dir) {
        Ok(p) => {
            println!("wrote {}", p.display());
            1
        }
        Err(e) => {
            eprintln!("difftest: {e}");
            2
        }
    }
}

/// Checks regression cases; returns the exit status.
fn replay(paths: &[PathBuf], engines: &Engines) -> i32 {
    let mut specs = Vec::new();
    for p in paths {
        if p.is_dir() {
            match case::list(p) {
                Ok(l) => specs.extend(l),
                Err(e) => {
                    eprintln!("difftest: {e}");
                    return 2;
                }
            }
        } else {
            specs.push(p.clone());
        }
    }
    let mut failed = 0;
    for spec in &specs {
        let v = regress::check_case_file(engines, spec);
        failed += usize::from(v.failed());
        let indent = |m: &Mismatch| m.report(None).replace('\n', "\n      ");
        match v {
            Verdict::Pass => println!("ok    {}", spec.display()),
            Verdict::StillOpen(i) => println!("open  {} (issue {})", spec.display(), i.id),
            Verdict::Skipped(why) => println!("skip  {}: {why}", spec.display()),
            Verdict::Error(e) => println!("ERROR {e}"),
            Verdict::NoLongerShows(i, ms) => {
                println!("FIXED? {}: issue {} no longer shows", spec.display(), i.id);
                ms.iter().for_each(|m| println!("      {}", indent(m)));
            }
            Verdict::Fail(ms) => {
                println!("FAIL  {}", spec.display());
                ms.iter().for_each(|m| println!("      {}", indent(m)));
            }
        }
    }
    println!("{} case(s), {failed} failing", specs.len());
    i32::from(failed > 0)
}
