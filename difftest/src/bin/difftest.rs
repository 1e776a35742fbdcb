//! `difftest`: differential testing campaigns of ptxc against its MIR interpreter and ptxas.
//!
//! `difftest --count N --seed S [--out DIR] [--jobs J]` checks N random programs and prints
//! progress and a summary (exit status 1 on any unexplained mismatch); with `--out`, the first
//! failures of each kind are shrunk and written there as regression cases. `--shard K/N
//! --results FILE` runs one shard and appends each verdict to FILE (resuming from it);
//! `--merge FILE...` merges the shards; `--recheck FILE...` checks their unexplained programs
//! again with this build and rewrites their verdicts. `difftest --print SEED` prints the PTX of one
//! program; `difftest --replay PATH...` checks regression cases (launch specs, or folders of
//! them); `--report-ptxas DIR` writes the report of ptxas's open issues.

use clap::Parser;
use ptxc_difftest::compare::Mismatch;
use ptxc_difftest::regress::{self, Verdict};
use ptxc_difftest::results::{self, Shard};
use ptxc_difftest::shrink::{Limits, Target};
use ptxc_difftest::{campaign, case, engines::Engines, generator, program::print, report};
use std::path::{Path, PathBuf};

#[derive(Parser, Debug)]
#[command(about = "Differential testing of ptxc: random PTX kernels on the MIR interpreter, ptxc and ptxas")]
struct Args {
    /// Programs to check.
    #[arg(long, default_value_t = 100)]
    count: u64,
    /// Seed of the first program (program i has seed SEED + i).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run shard K of N (0 <= K < N): a contiguous range of the campaign's seeds.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Append each program's verdict to this file; the seeds already in it are skipped
    /// (resume after an interruption).
    #[arg(long, value_name = "FILE")]
    results: Option<PathBuf>,
    /// Merge the results files of a campaign's shards, print the table and exit (status 1
    /// if seeds are missing or a mismatch is unexplained).
    #[arg(long, num_args = 1.., value_name = "FILE")]
    merge: Vec<PathBuf>,
    /// Check the unexplained programs of these results files again with this build (the
    /// campaign's generator options, each program alone), replace their verdict lines and
    /// note the revision that rechecked them; exit status 1 if one is still unexplained.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    recheck: Vec<PathBuf>,
    /// Shrink failures and write them here as regression cases.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Worker threads.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Programs each worker checks together: ptxas compiles those of one PTX version as one
    /// module (kernels named for their seeds); 1 starts ptxas once per program.
    #[arg(long, default_value_t = 64)]
    batch: usize,
    /// Failures shrunk per mismatch signature.
    #[arg(long, default_value_t = 2)]
    shrink_per_signature: usize,
    /// Most checks per shrink.
    #[arg(long, default_value_t = 3000)]
    max_checks: usize,
    /// Leave out the instructions of open issues (`known::ISSUES`) from the programs.
    #[arg(long)]
    avoid_open_issues: bool,
    /// The generator revision whose programs to write (older ones reproduce the seeds of
    /// older campaigns)
    #[arg(long, default_value_t = generator::REVISION)]
    generator_revision: u32,
    /// Also report the programs whose mismatches are all open issues.
    #[arg(long)]
    verbose: bool,
    /// Print the PTX of the program with this seed and exit.
    #[arg(long)]
    print: Option<u64>,
    /// Shrink the program with this seed into `--out` (default `.`) and exit.
    #[arg(long)]
    shrink: Option<u64>,
    /// With --shrink: shrink the first unexplained mismatch whose signature contains this
    /// text, or else the part the open issue with this id explains.
    #[arg(long)]
    target: Option<String>,
    /// Check regression cases (launch specs or folders of them) and exit.
    #[arg(long, num_args = 1..)]
    replay: Vec<PathBuf>,
    /// With --replay: write the expectation file (`NAME.expect`) of every open issue's case
    /// from what it shows now, instead of checking it.
    #[arg(long)]
    record_expect: bool,
    /// Write the report of ptxas's open issues (one folder per issue) into DIR and exit;
    /// the reproducers come from --cases.
    #[arg(long, value_name = "DIR")]
    report_ptxas: Option<PathBuf>,
    /// The regression cases (for --report-ptxas).
    #[arg(long, value_name = "DIR", default_value = "tests/difftest")]
    cases: PathBuf,
    /// Compare the MIR interpreter with ptxc only, without ptxas (which otherwise comes from
    /// `CUDA_ORACLE_BIN`, or is installed by `scripts/cuda-oracle`).
    #[arg(long)]
    no_ptxas: bool,
}

fn main() {
    let args = Args::parse();
    // Panics inside the stages are caught and reported as mismatches; keep them quiet.
    std::panic::set_hook(Box::new(|_| {}));
    if !generator::REVISIONS.contains(&args.generator_revision) {
        eprintln!(
            "difftest: --generator-revision {} is not one this build writes ({:?})",
            args.generator_revision,
            generator::REVISIONS
        );
        std::process::exit(2);
    }
    let options = generator::Options {
        avoid_open_issues: args.avoid_open_issues,
        revision: args.generator_revision,
    };
    if let Some(seed) = args.print {
        print!("{}", print::to_ptx(&generator::generate_with(seed, options).program));
        return;
    }
    if !args.merge.is_empty() {
        std::process::exit(merge(&args.merge));
    }
    if !args.recheck.is_empty() && args.no_ptxas {
        eprintln!("difftest: --recheck checks programs as the campaign did, with ptxas; it does not take --no-ptxas");
        std::process::exit(2);
    }
    let shard = match args.shard.as_deref().map(Shard::parse).transpose() {
        Ok(s) => s.unwrap_or(Shard::ALL),
        Err(e) => {
            eprintln!("difftest: {e}");
            std::process::exit(2);
        }
    };
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
    let code = if !args.recheck.is_empty() {
        recheck(&args.recheck, ptxas, &scratch, args.jobs)
    } else if let Some(dir) = &args.report_ptxas {
        report_ptxas(dir, &args.cases, &Engines::new(ptxas, &scratch))
    } else if !args.replay.is_empty() {
        replay(&args.replay, &Engines::new(ptxas, &scratch), args.record_expect)
    } else if let Some(seed) = args.shrink {
        shrink_one(seed, &args, options, &Engines::new(ptxas, &scratch))
    } else {
        let opts = campaign::Options {
            count: args.count,
            seed: args.seed,
            shard,
            results: args.results.clone(),
            jobs: args.jobs,
            batch: args.batch,
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
        match campaign::run(&opts, &mut |line| eprintln!("{line}")) {
            Ok(summary) => {
                print!("{}", summary.text());
                i32::from(summary.tally.unexplained > 0)
            }
            Err(e) => {
                eprintln!("difftest: {e}");
                2
            }
        }
    };
    let _ = std::fs::remove_dir_all(&scratch);
    std::process::exit(code);
}

/// Merges shard results; returns the exit status.
fn merge(files: &[PathBuf]) -> i32 {
    match results::merge(files) {
        Ok(m) => {
            print!("{}", m.table());
            i32::from(!m.passed())
        }
        Err(e) => {
            eprintln!("difftest: {e}");
            2
        }
    }
}

/// Rechecks the unexplained seeds of results files; returns the exit status.
fn recheck(files: &[PathBuf], ptxas: Option<PathBuf>, scratch: &Path, jobs: usize) -> i32 {
    let mut code = 0;
    for f in files {
        match ptxc_difftest::recheck::recheck(f, ptxas.clone(), scratch, jobs, &mut |l| eprintln!("{l}")) {
            Ok(o) => {
                println!(
                    "{}: {} unexplained seed(s) rechecked by revision {}, {} still unexplained",
                    f.display(),
                    o.seeds.len(),
                    ptxc_difftest::recheck::REVISION,
                    o.unexplained()
                );
                code = code.max(i32::from(o.unexplained() > 0));
            }
            Err(e) => {
                eprintln!("difftest: {e}");
                code = 2;
            }
        }
    }
    code
}

/// Writes the report of ptxas's open issues; returns the exit status.
fn report_ptxas(dir: &Path, cases: &Path, engines: &Engines) -> i32 {
    let nvdisasm = match ptxc_testkit::try_oracle_bin() {
        Ok(bin) => bin.join("nvdisasm"),
        Err(why) => {
            eprintln!("difftest: nvdisasm is not available: {why}");
            return 2;
        }
    };
    let src = report::Sources {
        cases,
        engines,
        nvdisasm,
    };
    match report::write(dir, &src) {
        Ok(folders) => {
            for f in &folders {
                println!("wrote {}", f.display());
            }
            println!("{} issue(s); index {}", folders.len(), dir.join("README.md").display());
            0
        }
        Err(e) => {
            eprintln!("difftest: {e}");
            2
        }
    }
}

/// Shrinks one program into `--out`; returns the exit status.
fn shrink_one(seed: u64, args: &Args, options: generator::Options, engines: &Engines) -> i32 {
    let Some(f) = campaign::check_seed(engines, seed, options) else {
        println!("seed {seed}: no mismatch");
        return 0;
    };
    println!("seed {seed}: {}", f.report);
    let wanted = args.target.as_deref().unwrap_or("");
    let unexplained = f.verdict.unexplained.iter().find(|m| m.signature().contains(wanted));
    let target = match unexplained {
        Some(m) => Target::Unexplained(m.signature()),
        None => match f
            .verdict
            .issues()
            .into_iter()
            .find(|id| wanted.is_empty() || *id == wanted)
        {
            Some(id) => Target::Issue(id),
            None => {
                println!("seed {seed}: no mismatch matches `{wanted}`");
                return 0;
            }
        },
    };
    let dir = args.out.clone().unwrap_or_else(|| PathBuf::from("."));
    let limits = Limits {
        max_checks: args.max_checks,
    };
    match campaign::shrink_and_write(engines, seed, options, &target, limits, &dir) {
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
fn replay(paths: &[PathBuf], engines: &Engines, record: bool) -> i32 {
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
    if record {
        return record_expect(&specs, engines);
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
            Verdict::Changed(i, missing, extra) => {
                println!("CHANGED {} (issue {})", spec.display(), i.id);
                missing.iter().for_each(|o| println!("      no longer: {o}"));
                extra.iter().for_each(|o| println!("      new:       {o}"));
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

/// Writes the expectation file of every open issue's case among `specs`; returns the exit
/// status.
fn record_expect(specs: &[PathBuf], engines: &Engines) -> i32 {
    let mut failed = 0;
    for spec in specs {
        let Some(i) = regress::issue_of(spec) else { continue };
        let result = regress::run_case_file(engines, spec).and_then(|all| {
            if all.is_empty() {
                return Err(format!("shows nothing for issue {}", i.id));
            }
            regress::write_expect(spec, i, &all)
        });
        match result {
            Ok(()) => println!("wrote {}", regress::expect_path(spec).display()),
            Err(e) => {
                failed += 1;
                println!("ERROR {}: {e}", spec.display());
            }
        }
    }
    i32::from(failed > 0)
}
