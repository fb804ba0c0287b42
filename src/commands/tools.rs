//! `tracelint tools lint SOURCE…`: read every source's tool definitions (any `--tools` form, or a
//! trace's embedded schemas), run the tool rules (T1…) over them as one toolset, place each
//! finding at its key's line:col, then settle and render exactly as `check` does (same config,
//! reasoned ignores, exit codes and reporters). Glue only.

use std::path::Path;

use anyhow::{Context, bail};

use crate::cli::{CheckArgs, ToolsLintArgs};
use crate::exit::ExitStatus;
use crate::finding::{InputIssue, RuleId};
use crate::lint::{ReportBuilder, Settle, TraceLint};
use crate::model::toolset::{SetKind, ToolSet};
use crate::reporters::paths::PathBase;
use crate::reporters::{OutputFormat, RenderOptions};
use crate::rules::tools::{self as tool_rules, TOOL_RULES, ToolSettings};
use crate::rules::{Selection, TraceOutcome, parse_rule_list};
use crate::sources::lintable::{self, Locator};
use crate::sources::{SourceError, SourceSpec};

/// `tracelint tools lint`.
#[allow(clippy::print_stderr)]
pub fn lint(args: &ToolsLintArgs) -> anyhow::Result<ExitStatus> {
    // Flags over config, as `check` resolves them (the sources are the command line's).
    let settings = super::check::resolve(&CheckArgs {
        inputs: args.sources.clone(),
        headers: args.headers.clone(),
        mcp_timeout: args.mcp_timeout,
        output_format: args.output_format.clone(),
        display: args.display.clone(),
        gate: args.gate,
        config: args.config.clone(),
        no_config: args.no_config,
        trust_config: true,
        ..CheckArgs::default()
    })?;
    if settings.output == OutputFormat::JsonLines {
        bail!(
            "`--output-format json-lines` is for `check` shards; `tools lint` writes text, json, sarif, html or github"
        );
    }
    let selection = selection(args, &settings.config)?;
    for n in &settings.notices {
        eprintln!("{n}");
    }
    let mut builder = ReportBuilder::new();
    let mut sets: Vec<ToolSet> = Vec::new();
    let mut texts: Vec<Option<String>> = Vec::new();
    let mut inputs: Vec<usize> = Vec::new();
    for raw in &args.sources {
        let spec = SourceSpec::parse(raw);
        match lintable::read(&spec, &settings.mcp) {
            Ok(mut read) => {
                let input = builder.input(&read.set.label);
                builder.format(input, kind_name(read.set.kind));
                for n in read.set.notes.drain(..) {
                    builder.note(input, n);
                }
                for tool in &mut read.set.tools {
                    if let Some(meta) = settings.config.metadata.get(&tool.name) {
                        tool.metadata.overlay(meta);
                    }
                }
                inputs.push(input);
                sets.push(read.set);
                texts.push(read.text);
            }
            Err(e) => {
                builder.input(raw);
                builder.issue(issue_of(&e, raw));
            }
        }
    }
    let tool_settings = ToolSettings {
        description_budget: args
            .description_budget
            .unwrap_or(tool_rules::DEFAULT_DESCRIPTION_BUDGET),
        pinned: args.pin.as_deref().map(pinned_descriptions).transpose()?,
    };
    let outcomes = tool_rules::run(&sets, &tool_settings, |id| selection.contains(id));
    let tools: usize = sets.iter().map(|s| s.tools.len()).sum();
    for (((mut outcome, text), input), set) in
        outcomes.into_iter().zip(&texts).zip(&inputs).zip(&sets)
    {
        if let Some(text) = text {
            let mut locator = Locator::new(text);
            for f in &mut outcome.findings {
                for e in &mut f.evidence {
                    if let Some((line, column)) = locator.locate(&e.at.pointer) {
                        e.at.line = line;
                        e.at.column = column;
                    }
                }
            }
        }
        builder.trace(
            *input,
            TraceLint {
                outcome: TraceOutcome {
                    findings: outcome.findings,
                    suppressions: outcome.suppressions,
                    coverage: outcome.coverage,
                    tool_coverage: Vec::new(),
                    drift: Vec::new(),
                },
                schemas: vec![format!(
                    "{} ({} tool{})",
                    set.label,
                    set.tools.len(),
                    if set.tools.len() == 1 { "" } else { "s" }
                )],
                run_id: "tools".to_owned(),
                ..TraceLint::default()
            },
        );
    }
    let ignores: Vec<crate::config::Ignore> = settings
        .config
        .ignores
        .iter()
        .filter(|ig| ig.rules.iter().any(|r| tool_rules::is_tool_rule(*r)))
        .cloned()
        .collect();
    let settle = Settle::new(&ignores, settings.fail_on, builder.excerpt_budget())
        .report_only(settings.report_only);
    let mut report = builder.finish_with(settle);
    report.rules = TOOL_RULES.iter().map(|r| r.meta()).collect();
    report.summary.traces = 0;
    report.summary.tool_calls = 0;
    report.summary.tools = tools;
    for i in &mut report.inputs {
        i.traces = 0;
    }
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let opts = RenderOptions {
        text: settings.text,
        base: match &args.sarif_root {
            Some(root) => PathBase::new(&cwd, root),
            None => PathBase::discover(&cwd),
        },
        sarif_max_results: super::output::sarif_cap(None),
    };
    // By device and inode: no spelling, symlink or hard link of a source (or of the config)
    // is written over.
    let mut read = crate::inputs::ReadFiles::new();
    for source in &args.sources {
        read.add(Path::new(source), format!("the source `{source}`"));
    }
    if let Some(p) = &settings.config.path {
        read.add(p, format!("the config file `{}`", p.display()));
    }
    let outputs: Vec<(&str, &Path)> = [
        ("--json", &args.files.json),
        ("--sarif", &args.files.sarif),
        ("--html", &args.files.html),
    ]
    .into_iter()
    .filter_map(|(flag, p)| Some((flag, p.as_deref()?)))
    .collect();
    read.guard(&outputs, "the report").map_err(anyhow::Error::msg)?;
    let side = super::output::Side {
        json: args.files.json.as_deref(),
        sarif: args.files.sarif.as_deref(),
        html: args.files.html.as_deref(),
        text: None,
    };
    super::output::write_reports(&report, &report.findings, &opts, settings.output, &side)?;
    Ok(report.exit)
}

/// The tool rules to run: `--select` / `--ignore` name tool rules only (a trace rule is a usage
/// error); the config's lists apply as far as they name tool rules.
fn selection(args: &ToolsLintArgs, config: &crate::config::Config) -> anyhow::Result<Selection> {
    let flag = |items: &[String], what: &str| -> anyhow::Result<Option<Vec<RuleId>>> {
        if items.is_empty() {
            return Ok(None);
        }
        let ids = parse_rule_list(items)?;
        if items
            .iter()
            .flat_map(|i| i.split(','))
            .any(|i| i.trim().eq_ignore_ascii_case("all"))
        {
            // `ALL` names every rule: here, every tool rule.
            return Ok(Some(
                ids.into_iter()
                    .filter(|r| tool_rules::is_tool_rule(*r))
                    .collect(),
            ));
        }
        if let Some(r) = ids.iter().find(|r| !tool_rules::is_tool_rule(**r)) {
            bail!(
                "`{what} {r}`: {r} is a trace rule (`tracelint check`); `tools lint` runs the tool rules T1…T13 (`tracelint rules`)"
            );
        }
        Ok(Some(ids))
    };
    let only_tools = |ids: &[RuleId]| -> Vec<RuleId> {
        ids.iter()
            .copied()
            .filter(|r| tool_rules::is_tool_rule(*r))
            .collect()
    };
    let select = match flag(&args.rules.select, "--select")? {
        Some(ids) => ids,
        None => only_tools(&config.select),
    };
    let ignore = match flag(&args.rules.ignore, "--ignore")? {
        Some(ids) => ids,
        None => only_tools(&config.ignore_rules),
    };
    Ok(Selection::new(&select, &ignore))
}

fn kind_name(kind: SetKind) -> &'static str {
    match kind {
        SetKind::File => "tools-file",
        SetKind::Server => "mcp-server",
        SetKind::Builtin => "builtin",
        SetKind::Trace => "trace-tools",
        SetKind::Starter => "starter-tools-file",
    }
}

/// A source error as an input issue at its file:line:col where the error names one.
fn issue_of(e: &SourceError, raw: &str) -> InputIssue {
    match e {
        SourceError::Invalid {
            source_name,
            message,
        } => {
            let mut parts = source_name.rsplitn(3, ':');
            let (col, line, path) = (parts.next(), parts.next(), parts.next());
            match (
                col.and_then(|c| c.parse::<u32>().ok()),
                line.and_then(|l| l.parse::<u32>().ok()),
                path,
            ) {
                (Some(c), Some(l), Some(p)) => InputIssue::at(p, l, c, message.clone()),
                _ if source_name == raw => InputIssue::file(raw, message.clone()),
                _ => InputIssue::file(raw, format!("{source_name}: {message}")),
            }
        }
        SourceError::Unreadable { reason, .. } => {
            InputIssue::file(raw, format!("cannot read the tools source: {reason}"))
        }
        other => InputIssue::file(raw, other.to_string()),
    }
}

/// The descriptions a lock (`tracelint mcp pin -o LOCK`) pinned, by tool name.
fn pinned_descriptions(
    path: &std::path::Path,
) -> anyhow::Result<std::collections::BTreeMap<String, String>> {
    use anyhow::Context;
    let shown = path.display();
    let text = crate::inputs::read_text(
        path,
        crate::sources::MAX_TOOLS_FILE,
        crate::inputs::Pipes::Refuse,
    )
    .with_context(|| format!("cannot read the lock `{shown}`"))?;
    let lock: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "{shown}:{}:{}: the lock is not JSON: {e}",
            e.line(),
            e.column()
        )
    })?;
    let Some(tools) = lock.get("tools").and_then(|t| t.as_array()) else {
        anyhow::bail!(
            "{shown}: not a lock: no `tools` list (write one with `tracelint mcp pin SOURCE -o tools.lock`)"
        );
    };
    let mut out = std::collections::BTreeMap::new();
    for t in tools {
        let Some(name) = t.get("name").and_then(|n| n.as_str()) else {
            anyhow::bail!("{shown}: a pinned tool has no `name`");
        };
        let description = t.get("description").and_then(|d| d.as_str()).unwrap_or("");
        out.insert(name.to_owned(), description.to_owned());
    }
    Ok(out)
}
