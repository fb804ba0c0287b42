//! Deterministic benchmark corpora for `scripts/bench` (issue 10). Not part of the product: it
//! writes generated agent runs, never reads anything, and owns no behaviour of `tracelint`.
//!
//!     cargo run --release --example gen_corpus -- corpus DIR CALLS [SEED]
//!     cargo run --release --example gen_corpus -- long DIR STEPS [SEED]
//!     cargo run --release --example gen_corpus -- traces DIR TRACES FILES [SEED]
//!
//! `corpus` writes the same runs (about CALLS tool calls in all) four times:
//! `DIR/claude/*.jsonl` (one Claude Code session per file), `DIR/native.jsonl` (one native trace
//! per line), `DIR/openai/*.json` (tau-bench-like arrays of `{task_id, traj}`, a few thousand
//! calls per file) and `DIR/otel/*.otlp.json` (OTLP JSON exports with OpenInference spans), plus
//! `DIR/tools.json` (seed 002's tools map) and `DIR/stats.json` (counts and the size of the
//! largest single trace in each format). `long` writes one native trace of STEPS steps as
//! `DIR/long-STEPS.json`. `traces` writes TRACES short runs (one to four tool calls each, with
//! results of one line: the size of one request an agent served) as native traces, one per line, spread evenly over FILES
//! files `DIR/native/traces-NNNN.jsonl`, plus `DIR/tools.json` and `DIR/stats.json`: a corpus of
//! many traces in few files, as a data lake's partitions hold them.
//!
//! The runs look like support and coding agents at work: eight tools with required fields, enums
//! and nested objects; about 3% schema violations, 1% unknown tools, 4% tool errors, loops of the
//! same call, repeats of earlier calls, ids carried from results into later arguments (and some
//! made up); results of a few hundred bytes to a few KB.

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod formats;
mod rng;
mod runs;

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use formats::{Claude, Native, OpenAi, Otel, Writer};
use runs::{Generator, tools_file};

/// Calls per OpenAI / OTLP file (tau-bench and collectors both write many files).
const CALLS_PER_SHARD: usize = 5_000;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("corpus") if args.len() >= 3 => corpus(&args),
        Some("long") if args.len() >= 3 => long(&args),
        Some("traces") if args.len() >= 4 => traces(&args),
        _ => Err(
            "usage: gen_corpus corpus DIR CALLS [SEED] | gen_corpus long DIR STEPS [SEED] \
             | gen_corpus traces DIR TRACES FILES [SEED]"
                .to_owned(),
        ),
    };
    if let Err(e) = result {
        eprintln!("gen_corpus: {e}");
        std::process::exit(2);
    }
}

fn number(s: &str) -> Result<usize, String> {
    s.replace('_', "")
        .parse()
        .map_err(|_| format!("`{s}` is not a number"))
}

/// The seed: the argument at `at`, 10 when there is none.
fn seed_at(args: &[String], at: usize) -> Result<u64, String> {
    match args.get(at) {
        Some(s) => number(s).map(|n| n as u64),
        None => Ok(10),
    }
}

fn seed(args: &[String]) -> Result<u64, String> {
    seed_at(args, 3)
}

fn create(path: &Path) -> Result<BufWriter<File>, String> {
    File::create(path)
        .map(|f| BufWriter::with_capacity(1 << 20, f))
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
}

fn mkdir(path: &Path) -> Result<(), String> {
    fs::create_dir_all(path).map_err(|e| format!("cannot create `{}`: {e}", path.display()))
}

fn io(e: std::io::Error) -> String {
    format!("cannot write: {e}")
}

fn corpus(args: &[String]) -> Result<(), String> {
    let dir = PathBuf::from(&args[1]);
    let calls = number(&args[2])?;
    let mut gen_ = Generator::new(seed(args)?);
    mkdir(&dir.join("claude"))?;
    mkdir(&dir.join("openai"))?;
    mkdir(&dir.join("otel"))?;
    write_json(&dir.join("tools.json"), &tools_file())?;

    let mut native = Native::new(create(&dir.join("native.jsonl"))?);
    let mut claude = Claude::default();
    let mut openai = OpenAi::default();
    let mut otel = Otel::default();
    let (mut written, mut runs, mut shard, mut in_shard) = (0, 0, 0, 0);
    let mut shard_files: Option<(BufWriter<File>, BufWriter<File>)> = None;
    while written < calls {
        let length = gen_.run_length();
        let run = gen_.run(runs, (calls - written).min(length));
        written += run.calls();
        native.write(&run).map_err(io)?;
        let mut session = create(&dir.join(format!("claude/session-{runs:06}.jsonl")))?;
        claude.write_to(&run, &mut session).map_err(io)?;
        session.flush().map_err(io)?;
        if shard_files.is_none() {
            shard_files = Some((
                create(&dir.join(format!("openai/tau-{shard:04}.json")))?,
                create(&dir.join(format!("otel/spans-{shard:04}.otlp.json")))?,
            ));
            openai.begin();
            otel.begin();
        }
        if let Some((o, t)) = shard_files.as_mut() {
            openai.write_to(&run, o).map_err(io)?;
            otel.write_to(&run, t).map_err(io)?;
        }
        in_shard += run.calls();
        runs += 1;
        if in_shard >= CALLS_PER_SHARD || written >= calls {
            if let Some((mut o, mut t)) = shard_files.take() {
                openai.end(&mut o).map_err(io)?;
                otel.end(&mut t).map_err(io)?;
                o.flush().map_err(io)?;
                t.flush().map_err(io)?;
            }
            shard += 1;
            in_shard = 0;
        }
    }
    let native_largest = native.largest();
    native.finish().map_err(io)?;
    let stats = serde_json::json!({
        "calls": written,
        "runs": runs,
        "largest_trace_bytes": {
            "claude": claude.largest(),
            "native": native_largest,
            "openai": openai.largest(),
            "otel": otel.largest(),
        },
        "largest_trace_calls": gen_.largest_run(),
    });
    write_json(&dir.join("stats.json"), &stats)?;
    println!("{stats}");
    Ok(())
}

fn long(args: &[String]) -> Result<(), String> {
    let dir = PathBuf::from(&args[1]);
    let steps = number(&args[2])?;
    mkdir(&dir)?;
    let mut gen_ = Generator::new(seed(args)?);
    // A user message, then call/result pairs (and an occasional assistant message): about
    // 2.1 steps per call; trimmed to exactly `steps` steps below.
    let run = gen_.run_of_steps(0, steps);
    let mut out = create(&dir.join(format!("long-{steps}.json")))?;
    Native::<std::io::Sink>::write_document(&run, &mut out).map_err(io)?;
    out.flush().map_err(io)?;
    write_json(&dir.join("tools.json"), &tools_file())?;
    println!(
        "{}",
        serde_json::json!({"steps": run.steps(), "calls": run.calls()})
    );
    Ok(())
}

fn traces(args: &[String]) -> Result<(), String> {
    let dir = PathBuf::from(&args[1]);
    let traces = number(&args[2])?;
    let files = number(&args[3])?;
    if files == 0 || files > traces {
        return Err(format!("FILES must be 1 to TRACES ({traces}), not {files}"));
    }
    let mut gen_ = Generator::brief(seed_at(args, 4)?);
    mkdir(&dir.join("native"))?;
    write_json(&dir.join("tools.json"), &tools_file())?;
    let (mut calls, mut largest) = (0, 0);
    let mut index = 0;
    for file in 0..files {
        // Even shares: the first `traces % files` files hold one trace more.
        let here = traces / files + usize::from(file < traces % files);
        let mut out = Native::new(create(&dir.join(format!("native/traces-{file:04}.jsonl")))?);
        for _ in 0..here {
            let length = gen_.short_run_length();
            let run = gen_.run(index, length);
            calls += run.calls();
            out.write(&run).map_err(io)?;
            index += 1;
        }
        largest = largest.max(out.largest());
        out.finish().map_err(io)?;
    }
    let stats = serde_json::json!({
        "traces": index,
        "files": files,
        "calls": calls,
        "largest_trace_bytes": {"native": largest},
        "largest_trace_calls": gen_.largest_run(),
    });
    write_json(&dir.join("stats.json"), &stats)?;
    println!("{stats}");
    Ok(())
}

/// Write `value` as pretty JSON to `path`.
fn write_json(path: &Path, value: &serde_json::Value) -> Result<(), String> {
    let mut out = create(path)?;
    serde_json::to_writer_pretty(&mut out, value).map_err(|e| e.to_string())?;
    out.flush().map_err(io)
}
