//! `tracelint scorecard --demo`: the fault-injection recovery scorecard on the built-in task.

use std::io::Write;

use anyhow::bail;

use crate::cli::{ScorecardArgs, ScorecardFormat};
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
        runs: args.runs,
        seed: args.seed,
        inject_at: args.inject_at,
        kind: if args.no_oracle {
            RecoveryKind::Behavioural
        } else {
            RecoveryKind::Correctness
        },
    };
    let card = scorecard::run(&opts);
    let mut out = std::io::BufWriter::new(super::PipeSafe::new(std::io::stdout().lock()));
    match args.output_format {
        ScorecardFormat::Text => scorecard::render_text(&card, &mut out)?,
        ScorecardFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &card)?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(ExitStatus::Clean)
}
