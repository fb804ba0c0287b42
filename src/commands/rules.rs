//! `tracelint rules` (the table of rules) and `tracelint explain RULE` (a rule's doc), both
//! generated from the rules' static metadata, as is the rules table of docs/rules.md.

use std::io::Write;

use anyhow::Context;

use crate::cli::{ExplainArgs, RulesArgs};
use crate::exit::ExitStatus;
use crate::finding::RuleId;
use crate::finding::RuleMeta;
use crate::rules::tools::TOOL_RULES;
use crate::rules::{RULES, meta_of};

/// The rules table in Markdown (docs/rules.md embeds exactly this; a test keeps them equal).
#[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
pub fn markdown_table() -> String {
    table_of(RULES.iter().map(|r| r.meta()))
}

/// The tool rules table (`tools lint`) in Markdown (docs/rules.md embeds exactly this too).
#[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
pub fn tools_markdown_table() -> String {
    table_of(TOOL_RULES.iter().map(|r| r.meta()))
}

#[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
fn table_of<'a>(rules: impl Iterator<Item = &'a crate::finding::RuleMeta>) -> String {
    let mut s =
        String::from("| rule | finding type | tiers | what it flags |\n|---|---|---|---|\n");
    for m in rules {
        s.push_str(&format!(
            "| {} | `{}` | {} | {} |\n",
            m.id,
            m.kind.as_str(),
            m.tiers
                .iter()
                .map(|t| format!("`{t}`"))
                .collect::<Vec<_>>()
                .join(" / "),
            m.summary
        ));
    }
    s
}

/// Every rule's metadata: the trace rules, then the tool rules.
fn all_metas() -> impl Iterator<Item = &'static RuleMeta> {
    RULES
        .iter()
        .map(|r| r.meta())
        .chain(TOOL_RULES.iter().map(|r| r.meta()))
}

/// `tracelint rules`.
#[allow(clippy::print_stdout)]
pub fn list(args: &RulesArgs) -> anyhow::Result<ExitStatus> {
    let mut out = std::io::stdout().lock();
    if args.json {
        let rows: Vec<_> = all_metas()
            .map(|m| {
                serde_json::json!({
                    "id": m.id.as_str(),
                    "type": m.kind.as_str(),
                    "tiers": m.tiers.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
                    "unit": m.unit,
                    "summary": m.summary,
                })
            })
            .collect();
        crate::reporters::escape::write_json(&mut out, &rows)?;
    } else {
        // Columns as wide as their longest entry.
        let width = all_metas()
            .map(|m| m.kind.as_str().len())
            .max()
            .unwrap_or(0);
        let tiers = RULES
            .iter()
            .map(|r| r.meta().tiers_text().len())
            .max()
            .unwrap_or(0)
            .max(25);
        writeln!(
            out,
            "{:<5} {:<width$} {:<tiers$} SUMMARY",
            "RULE", "TYPE", "TIERS"
        )?;
        for m in all_metas() {
            writeln!(
                out,
                "{:<5} {:<width$} {:<tiers$} {}",
                m.id.as_str(),
                m.kind.as_str(),
                m.tiers_text(),
                m.summary
            )?;
        }
        writeln!(
            out,
            "\nT1…T13 check tool definitions (`tracelint tools lint SOURCE…`); the others check traces.\nRun `tracelint explain RULE` for what a rule checks, its tiers, an example and how to fix."
        )?;
    }
    Ok(ExitStatus::Clean)
}

/// `tracelint explain builtin:AGENT`: the captured versions and the tools they sent.
fn explain_builtin(name: &str) -> anyhow::Result<ExitStatus> {
    use crate::sources::builtin::codex::{CODEX, CodexTools};
    use crate::sources::builtin::gemini::{GEMINI_CLI, GeminiTools};
    use crate::sources::builtin::{CLAUDE_CODE, ClaudeCodeTools};
    use crate::sources::origins::Origins;
    let (title, versions, schemas, tools, origins, how): (_, Vec<String>, _, Vec<&str>, _, _) =
        match name {
            CLAUDE_CODE => {
                let t = ClaudeCodeTools::get();
                (
                    "Claude Code",
                    t.versions().collect(),
                    t.schema_count(),
                    t.tool_names(),
                    Origins::claude_code(),
                    "A Claude Code session linted with no `--tools` uses them automatically, matched to the \
                     `version` its lines record (the nearest capture not newer than it)",
                )
            }
            CODEX => {
                let t = CodexTools::get();
                (
                    "Codex CLI",
                    t.versions().collect(),
                    t.schema_count(),
                    t.tool_names(),
                    Origins::codex(),
                    "A Codex CLI rollout linted with no `--tools` uses them automatically, matched to the \
                     `cli_version` and model it records (the nearest capture not newer than it; every model's \
                     tools of the release for a model no capture names)",
                )
            }
            GEMINI_CLI => {
                let t = GeminiTools::get();
                (
                    "Gemini CLI",
                    t.versions().collect(),
                    t.schema_count(),
                    t.tool_names(),
                    Origins::gemini_cli(),
                    "A Gemini CLI session linted with no `--tools` uses them automatically; it records no \
                     version, so it gets the capture whose schemas agree best with what the CLI did with \
                     its calls, among equals the newest published by the day it started",
                )
            }
            _ => anyhow::bail!(
                "unknown built-in source `{name}`: the built-in sources are `{CLAUDE_CODE}`, `{CODEX}` and `{GEMINI_CLI}`"
            ),
        };
    let mut out = std::io::stdout().lock();
    writeln!(out, "# {name} — {title}'s own tool input schemas\n")?;
    writeln!(
        out,
        "{} versions captured ({} … {}), {schemas} distinct schemas. {how}; `--tools {name}@VERSION` pins one. \
         A tool a version did not send falls back to the nearest older capture that has it. MCP tools are not \
         built in: pass the server with `--tools mcp-stdio:…`.\n",
        versions.len(),
        versions.first().map_or("", String::as_str),
        versions.last().map_or("", String::as_str),
    )?;
    writeln!(out, "Tools: {}\n", tools.join(", "))?;
    writeln!(
        out,
        "Field origins (R3; fields not listed are derived and judged):"
    )?;
    for line in origins.describe() {
        writeln!(out, "- {line}")?;
    }
    writeln!(out)?;
    writeln!(out, "Versions: {}", versions.join(", "))?;
    Ok(ExitStatus::Clean)
}

/// `tracelint explain RULE`.
pub fn explain(args: &ExplainArgs) -> anyhow::Result<ExitStatus> {
    if args.rule.starts_with("builtin:") {
        return explain_builtin(&args.rule);
    }
    let id = RuleId::parse(&args.rule).with_context(|| {
        format!(
            "unknown rule `{}`: run `tracelint rules` for the list",
            args.rule
        )
    })?;
    let meta = meta_of(id).with_context(|| format!("rule {id} is not in this build"))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "# {} — {}\n", meta.id, meta.kind.as_str())?;
    writeln!(out, "{}\n", meta.summary)?;
    writeln!(out, "Tiers: {}\n", meta.tiers_text())?;
    write!(out, "{}", meta.explanation)?;
    if id == RuleId::R3 {
        // The origins tables, from the data the binary embeds (never a copy that can go stale).
        writeln!(out, "\n## Field origins of the built-in tools\n")?;
        writeln!(
            out,
            "Fields not listed are derived and judged. The same table applies to every captured version.\n"
        )?;
        for (source, table) in crate::sources::origins::Origins::builtin() {
            writeln!(out, "`{source}`:")?;
            for line in table.describe() {
                writeln!(out, "- {line}")?;
            }
        }
    }
    Ok(ExitStatus::Clean)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_doc_has_the_fixed_headings() {
        for m in all_metas() {
            let mut last = 0;
            for h in [
                "## What it checks",
                "## Why it matters",
                "## Tiers & suppressions",
                "## Example",
                "## How to fix",
            ] {
                let at = m
                    .explanation
                    .find(h)
                    .unwrap_or_else(|| panic!("{} doc lacks `{h}`", m.id));
                assert!(at >= last, "{}: `{h}` out of order", m.id);
                last = at;
            }
        }
    }

    #[test]
    fn docs_rules_table_is_current() {
        let readme = include_str!("../../docs/rules.md");
        let table = markdown_table();
        assert!(
            readme.contains(&table),
            "the rules table of docs/rules.md is stale; replace it with:\n{table}"
        );
    }

    #[test]
    fn docs_tool_rules_table_is_current() {
        let readme = include_str!("../../docs/rules.md");
        let table = tools_markdown_table();
        assert!(
            readme.contains(&table),
            "the tool rules table of docs/rules.md is stale; replace it with:\n{table}"
        );
    }

    #[test]
    fn messages_start_lowercase() {
        for m in all_metas() {
            let s = m.summary;
            assert!(s.starts_with(|c: char| c.is_lowercase()), "{s}");
            assert!(!s.ends_with('.'), "{s}");
        }
    }
}
