//! `tracelint mcp …`: glue between the CLI and the proxy (`crate::proxy`).

use std::time::Duration;

use anyhow::{anyhow, bail};

use crate::cli::{McpCommand, McpProxyArgs};
use crate::exit::ExitStatus;
use crate::proxy::{self, inject};

/// Run an `mcp` subcommand.
pub fn run(cmd: &McpCommand) -> anyhow::Result<ExitStatus> {
    match cmd {
        McpCommand::Proxy(args) => proxy_run(args),
    }
}

fn proxy_run(args: &McpProxyArgs) -> anyhow::Result<ExitStatus> {
    let plan = if args.inject.is_empty() {
        if args.rate.is_some() || args.at.is_some() || !args.tools.is_empty() {
            bail!(
                "`--rate`, `--at` and `--tool` choose where `--inject` faults go: give `--inject FAULT`"
            );
        }
        None
    } else {
        let faults = super::scorecard::parse_faults(&args.inject)?;
        let when = match (args.at, args.rate) {
            (Some(n), _) => inject::When::At(usize::try_from(n).unwrap_or(usize::MAX)),
            (None, Some(p)) if (0.0..=1.0).contains(&p) => inject::When::Rate(p),
            (None, Some(p)) => bail!("`--rate {p}`: a probability is between 0 and 1"),
            (None, None) => inject::When::Rate(1.0),
        };
        Some(inject::Plan::new(
            faults,
            when,
            args.tools.clone(),
            args.seed,
        ))
    };
    if !(args.hold.is_finite() && args.hold >= 0.0) {
        bail!("`--hold {}`: give a number of seconds", args.hold);
    }
    let opts = proxy::Options {
        command: args.command.clone(),
        record: args.record.clone(),
        inject: plan,
        max_line: args.max_line.max(1024),
        max_pending: 4096,
        hold: Duration::from_secs_f64(args.hold),
    };
    let ended = proxy::run(&opts).map_err(|e| anyhow!(e))?;
    Ok(match ended.server_code {
        Some(0) | None => ExitStatus::Clean,
        Some(_) => ExitStatus::GateTripped,
    })
}
