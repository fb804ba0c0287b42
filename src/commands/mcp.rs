//! `tracelint mcp …`: glue between the CLI and the proxy (`crate::proxy`).

use std::time::Duration;

use anyhow::{anyhow, bail};

use std::io::Write;

use crate::cli::{McpCommand, McpDiffArgs, McpPinArgs, McpProxyArgs};
use crate::exit::ExitStatus;
use crate::proxy::{self, inject, pin};
use crate::sources::{LoadOptions, SourceSpec};

/// Run an `mcp` subcommand.
pub fn run(cmd: &McpCommand) -> anyhow::Result<ExitStatus> {
    match cmd {
        McpCommand::Proxy(args) => proxy_run(args),
        McpCommand::Pin(args) => pin_run(args),
        McpCommand::Diff(args) => diff_run(args),
    }
}

fn load_opts(timeout: Duration) -> LoadOptions {
    LoadOptions {
        timeout,
        ..LoadOptions::default()
    }
}

/// `mcp pin SOURCE -o tools.lock`.
fn pin_run(args: &McpPinArgs) -> anyhow::Result<ExitStatus> {
    let spec = SourceSpec::parse(&args.source);
    // A lock pinned from a file never replaces that file (any spelling, symlink, hard link).
    if let SourceSpec::File(p) = &spec {
        let mut read = crate::inputs::ReadFiles::new();
        read.add(std::path::Path::new(p), format!("the source `{p}`"));
        read.guard(&[("-o", args.output.as_path())], "the lock")
            .map_err(anyhow::Error::msg)?;
    }
    let (tools, server) =
        pin::list_source(&spec, &load_opts(args.mcp_timeout)).map_err(|e| anyhow!(e))?;
    let shown = match &spec {
        SourceSpec::McpStdio(c) => {
            format!("mcp-stdio:{}", crate::sources::stdio::display_command(c))
        }
        SourceSpec::McpHttp(u) => format!("mcp-http:{}", crate::sources::http::display_url(u)),
        _ => args.source.clone(),
    };
    let lock = pin::lock(&tools, server.as_deref(), &shown);
    let mut text = crate::reporters::escape::json_text(serde_json::to_string_pretty(&lock)?);
    text.push('\n');
    std::fs::write(&args.output, text)
        .map_err(|e| anyhow!("cannot write {}: {e}", args.output.display()))?;
    let mut err = std::io::stderr();
    let _ = writeln!(
        err,
        "pinned {} tool{}{} in {}",
        tools.len(),
        if tools.len() == 1 { "" } else { "s" },
        server.map(|s| format!(" of {s}")).unwrap_or_default(),
        args.output.display()
    );
    Ok(ExitStatus::Clean)
}

/// The tools of a lock file.
fn lock_tools(path: &str) -> anyhow::Result<Vec<serde_json::Value>> {
    let (tools, _) = pin::list_source(&SourceSpec::File(path.to_owned()), &LoadOptions::default())
        .map_err(|e| anyhow!(e))?;
    Ok(tools)
}

/// `mcp diff tools.lock SOURCE`: one line per change on stdout, exit 1; silent exit 0.
fn diff_run(args: &McpDiffArgs) -> anyhow::Result<ExitStatus> {
    let old = lock_tools(&args.lock)?;
    let spec = SourceSpec::parse(&args.source);
    let (new, _) = pin::list_source(&spec, &load_opts(args.mcp_timeout)).map_err(|e| anyhow!(e))?;
    let changes = pin::diff(&old, &new);
    if changes.is_empty() {
        return Ok(ExitStatus::Clean);
    }
    let mut out = super::PipeSafe::new(std::io::stdout().lock());
    writeln!(
        out,
        "{} → {}: {} change{}",
        args.lock,
        args.source,
        changes.len(),
        if changes.len() == 1 { "" } else { "s" }
    )?;
    for c in &changes {
        writeln!(out, "  {c}")?;
    }
    Ok(ExitStatus::GateTripped)
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
        max_line: args.max_line,
        max_pending: 4096,
        hold: Duration::from_secs_f64(args.hold),
        pin: match &args.pin {
            Some(path) => Some(proxy::Pin {
                path: path.clone(),
                tools: lock_tools(path)?,
                warn_only: args.pin_warn,
            }),
            None => None,
        },
    };
    if let (Some(listen), Some(upstream)) = (args.listen, &args.upstream) {
        if !listen.ip().is_loopback() && !args.allow_remote {
            bail!(
                "`--listen {listen}` is not a loopback address: pass `--allow-remote` to serve other hosts"
            );
        }
        proxy::http::run(&opts, listen, upstream).map_err(|e| anyhow!(e))?;
        return Ok(ExitStatus::Clean);
    }
    let ended = proxy::run(&opts).map_err(|e| anyhow!(e))?;
    Ok(match ended.server_code {
        Some(0) | None => ExitStatus::Clean,
        Some(_) => ExitStatus::GateTripped,
    })
}
