//! R7 unknown_tool: a call to a tool absent from a non-empty registry. A candidate by default
//! (the tool may simply be undeclared), a hard defect when the toolset is declared closed.
//! Suggests the closest declared name. A coding agent's built-in schemas never hold the MCP
//! tools a user configured: an MCP-named call they lack is not checked (a suppression naming
//! the server) unless the toolset is closed.

use crate::finding::{FindingType, RuleId, RuleMeta, Tier};

use super::{Rule, Sink, TraceCx};
use crate::model::ATTR_AGENT;
use crate::model::runtime::{self, Runtime, Verdict};

pub(crate) static META: RuleMeta = RuleMeta {
    id: RuleId::R7,
    kind: FindingType::UnknownTool,
    summary: "a call to a tool absent from the declared toolset",
    tiers: &[Tier::Candidate, Tier::HardDefect],
    unit: "tool calls",
    explanation: include_str!("docs/R7.md"),
};

pub(crate) struct UnknownTool;

impl Rule for UnknownTool {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn applicable(&self, cx: &TraceCx<'_>) -> Result<(), String> {
        if cx.registry.is_empty() {
            Err("no tool registry: pass `--tools` to check tool names".into())
        } else {
            Ok(())
        }
    }

    fn check(&self, cx: &TraceCx<'_>, out: &mut Sink) {
        let closed = cx.closed();
        // An agent's built-in registry cannot know the user's MCP servers: their tools are not
        // checked against it (one suppression says how to), unless the toolset is closed.
        let mut mcp_unchecked: Vec<&str> = Vec::new();
        // The agent whose built-in toolset is in force: a tool its runtime ran exists, whatever
        // the capture says (schema drift, said once per trace).
        let runtime = Runtime::of(cx.trace.attribute(ATTR_AGENT)).and_then(|a| {
            cx.registry
                .sources
                .iter()
                .find(|s| a.is_builtin(s))
                .filter(|_| cx.registry.builtin)
                .map(|s| (a, s.as_str()))
        });
        for step in &cx.trace.steps {
            let Some(call) = step.as_call() else { continue };
            if cx.spec(&call.name).is_some() {
                out.count_tool(Some(&call.name), true);
                continue;
            }
            if cx.registry.builtin && !closed && mcp_server(&call.name).is_some() {
                out.count_tool(Some(&call.name), false);
                if !mcp_unchecked.contains(&call.name.as_str()) {
                    mcp_unchecked.push(&call.name);
                }
                continue;
            }
            if let Some((agent, source)) = runtime.filter(|_| !closed) {
                let result = cx
                    .pairing
                    .result_for(step.index)
                    .and_then(|i| cx.trace.steps.get(i))
                    .and_then(|s| s.as_result());
                if runtime::verdict(agent, result) == Verdict::Ran {
                    out.count_tool(Some(&call.name), true);
                    out.drift(&call.name, source, Vec::new());
                    continue;
                }
            }
            out.count_tool(Some(&call.name), true);
            let mcp_server = mcp_server(&call.name);
            let tier = if closed {
                Tier::HardDefect
            } else {
                Tier::Candidate
            };
            let f = out.finding(
                tier,
                step,
                Some(&call.name),
                format!("tool `{}` is not declared in the registry", call.name),
                "the call",
            );
            f.possible_false_positive = !closed;
            f.help = Some(match crate::suggest::closest_name(&call.name, cx.registry.names()) {
                _ if mcp_server.is_some() => format!(
                    "`{}` is a tool of the MCP server `{}`: pass its schemas with `--tools mcp-stdio:<command>` or `--tools mcp-http:<url>`",
                    call.name,
                    mcp_server.unwrap_or_default()
                ),
                Some(name) => format!("did you mean `{name}`?"),
                None if closed => "the toolset is closed: the agent called a tool that does not exist".into(),
                None => "declare the tool in the tools file if it is real, or treat the call as a hallucinated tool".into(),
            });
        }
        if !mcp_unchecked.is_empty() {
            let mut servers: Vec<&str> = mcp_unchecked
                .iter()
                .copied()
                .filter_map(mcp_server)
                .collect();
            servers.sort_unstable();
            servers.dedup();
            out.suppress_trace(format!(
                "{} MCP tool(s) of server(s) {} not checked: the built-in schemas cannot know your MCP servers; pass their schemas with `--tools mcp-stdio:<command>`, `--tools mcp-http:<url>` or a saved `tools/list` reply",
                mcp_unchecked.len(),
                servers
                    .iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
}

/// The MCP server of a tool named the way coding agents name MCP tools: `mcp__server__tool`
/// (Claude Code, newer Codex CLI), `server__tool` (Codex CLI), `mcp_server_tool` (Gemini CLI).
fn mcp_server(name: &str) -> Option<&str> {
    if let Some(rest) = name.strip_prefix("mcp__") {
        return rest.split_once("__").map(|(server, _)| server);
    }
    if let Some((server, tool)) = name.split_once("__") {
        return (!server.is_empty() && !tool.is_empty()).then_some(server);
    }
    let rest = name.strip_prefix("mcp_")?;
    rest.split_once('_')
        .filter(|(s, t)| !s.is_empty() && !t.is_empty())
        .map(|(server, _)| server)
}

#[cfg(test)]
mod tests {
    use crate::rules::RuleSettings;
    use crate::rules::testing::lint;

    const TOOLS: &str = r#"[{"name": "read_file", "inputSchema": {"type": "object"}},
                            {"name": "write_file", "inputSchema": {"type": "object"}}]"#;
    const TRACE: &str = r#"{"run_id": "r", "steps": [
      {"type": "tool_call", "call_id": "1", "name": "redi_file", "args": {}},
      {"type": "tool_call", "call_id": "2", "name": "frobnicate", "args": {}}
    ]}"#;

    #[test]
    fn candidate_with_suggestion() {
        insta::assert_snapshot!(lint(TRACE, Some(TOOLS), RuleSettings::default()));
    }

    #[test]
    fn closed_toolset_is_a_hard_defect() {
        let out = lint(
            TRACE,
            Some(TOOLS),
            RuleSettings {
                closed_toolset: true,
                ..RuleSettings::default()
            },
        );
        assert!(out.contains("2:7: hard_defect R7 redi_file"), "{out}");
        assert!(out.contains("3:7: hard_defect R7 frobnicate"), "{out}");
    }

    #[test]
    fn mcp_tools_name_their_server() {
        let trace = r#"{"run_id": "r", "steps": [
          {"type": "tool_call", "call_id": "1", "name": "mcp__github__create_issue", "args": {}}]}"#;
        let out = lint(trace, Some(TOOLS), RuleSettings::default());
        assert!(
            out.contains("candidate R7 mcp__github__create_issue"),
            "{out}"
        );
        assert!(out.contains("tool of the MCP server `github`: pass its schemas with `--tools mcp-stdio:<command>`"), "{out}");
    }

    #[test]
    fn mcp_names() {
        use super::mcp_server;
        assert_eq!(mcp_server("mcp__github__create_issue"), Some("github"));
        assert_eq!(mcp_server("everything__get-sum"), Some("everything"));
        assert_eq!(mcp_server("mcp_everything_echo"), Some("everything"));
        assert_eq!(mcp_server("read_file"), None);
        assert_eq!(mcp_server("__x"), None);
        assert_eq!(mcp_server("mcp_"), None);
    }

    #[test]
    fn closed_in_tools_file() {
        let tools = r#"{"closed": true, "tools": [{"name": "read_file", "inputSchema": {}}]}"#;
        let out = lint(TRACE, Some(tools), RuleSettings::default());
        assert!(out.contains("hard_defect R7 redi_file"), "{out}");
    }
}
