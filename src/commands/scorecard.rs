//! `tracelint scorecard --demo`: the fault-injection recovery scorecard on the built-in task.

use std::io::Write;

use anyhow::bail;

use crate::cli::{RunsArg, ScorecardArgs, ScorecardFormat};
use crate::exit::ExitStatus;
use crate::scorecard::agent::Policy;
use crate::scorecard::faults::Fault;
use crate::scorecard::{self, Options, RecoveryKind};

/// Parse `--faults a,b,c` (empty = all eight).
pub fn parse_faults(list: &[String]) -> anyhow::Result<Vec<Fault>> {
    if list.is_empty() {
        return Ok(Fault::ALL.to_vec());
    }
    let mut out = Vec::new();
    for name in list
        .iter()
        .flat_map(|s| s.split(','))
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        match Fault::parse(name) {
            Some(f) if !out.contains(&f) => out.push(f),
            Some(_) => {}
            None => bail!(
                "unknown fault `{name}`: the faults are {}",
                Fault::ALL
                    .iter()
                    .map(|f| f.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
    Ok(out)
}

/// `tracelint scorecard`.
pub fn run(args: &ScorecardArgs) -> anyhow::Result<ExitStatus> {
    if let Some(dir) = &args.recorded {
        if let RunsArg::Dir(other) = &args.runs {
            bail!(
                "`--runs {}` and `--recorded {}`: give the folder once, with --recorded",
                other.display(),
                dir.display()
            );
        }
        return recorded(args, dir);
    }
    let runs = match &args.runs {
        RunsArg::Dir(dir) if !args.demo => {
            // The older spelling: still read, with a note (stderr; stdout stays the card).
            let _ = writeln!(
                std::io::stderr(),
                "note: `--runs {}` is read as `--recorded {}`: --runs is now only a number of runs",
                dir.display(),
                dir.display()
            );
            return recorded(args, dir);
        }
        RunsArg::Dir(dir) => bail!(
            "`--runs {}` is a folder of recorded runs: score it with `--recorded {}`, without `--demo`",
            dir.display(),
            dir.display()
        ),
        RunsArg::Count(n) => *n,
    };
    if args.oracle.is_some() {
        bail!(
            "`--oracle` goes with `--recorded DIR` (runs recorded by `tracelint mcp proxy --record DIR`)"
        );
    }
    if !args.demo {
        bail!(
            "only the built-in task can be scored: pass `--demo` (and `--buggy` for the buggy agent)"
        );
    }
    if args.inject_at == 0 {
        bail!("`--inject-at` counts calls from 1");
    }
    let opts = Options {
        policy: if args.buggy {
            Policy::Buggy
        } else {
            Policy::Robust
        },
        faults: parse_faults(&args.faults)?,
        runs,
        seed: args.seed,
        inject_at: args.inject_at,
        kind: if args.no_oracle {
            RecoveryKind::Behavioural
        } else {
            RecoveryKind::Correctness
        },
    };
    let card = scorecard::run(&opts);
    if let Some(path) = &args.html {
        super::demo::write_scorecard_page(&card, path)?;
    }
    let mut out = std::io::BufWriter::new(super::PipeSafe::new(std::io::stdout().lock()));
    match args.output_format {
        ScorecardFormat::Text => scorecard::render_text(&card, &mut out)?,
        ScorecardFormat::Json => {
            crate::reporters::escape::write_json(&mut out, &card)?;
        }
    }
    out.flush()?;
    Ok(ExitStatus::Clean)
}

/// `scorecard --runs DIR [--oracle ORACLE.toml]`: the card of recorded MCP sessions.
fn recorded(args: &ScorecardArgs, dir: &std::path::Path) -> anyhow::Result<ExitStatus> {
    use crate::scorecard::recorded;
    if !dir.is_dir() {
        bail!(
            "`{}`: not a folder (give --recorded the folder `tracelint mcp proxy --record` wrote)",
            dir.display()
        );
    }
    let oracle = match &args.oracle {
        Some(p) => {
            Some(crate::expect::ExpectFile::from_path(p).map_err(|e| anyhow::anyhow!("{e}"))?)
        }
        None => None,
    };
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut traces = Vec::new();
    let mut problems = Vec::new();
    for f in &files {
        match crate::adapters::load_whole(f) {
            Ok(t) => traces.extend(t),
            Err(e) => problems.push(e),
        }
    }
    if !problems.is_empty() {
        bail!("cannot read every recorded run:\n{}", problems.join("\n"));
    }
    let shown = args.oracle.as_ref().map(|p| p.display().to_string());
    let card = recorded::score(&traces, oracle.as_ref().zip(shown.as_deref()));
    if let Some(html) = &args.html {
        std::fs::write(html, recorded::render_html(&card))
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", html.display()))?;
    }
    let mut out = std::io::BufWriter::new(super::PipeSafe::new(std::io::stdout().lock()));
    match args.output_format {
        ScorecardFormat::Text => recorded::render_text(&card, &mut out)?,
        ScorecardFormat::Json => {
            crate::reporters::escape::write_json(&mut out, &card)?;
        }
    }
    out.flush()?;
    Ok(ExitStatus::Clean)
}
