//! R13 off_limits_source: the contract's `off_limits.sources` (a benchmark's published
//! solutions, its task repository, its leaderboard) reached by a call. A **request** — a URL in
//! the call's arguments (a fetch's `url`, a `curl` in a command) or a search query (an argument
//! named `query`, `q`, `queries`, `search_query`, `search_term`, `search_queries`) naming a
//! source — is a `hard_defect`, whatever it got back; a source's name elsewhere in a call is
//! not a request. An **exposure** — a call that named no source got back a URL naming one — is
//! a `hard_event`. A URL the prompt itself gave is a possible false positive. Linear: URLs are
//! found through `://`, and each is matched against the (few) sources.

use std::collections::{BTreeSet, HashSet};

use serde_json::Value;

use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::{Args, Role, Step, ToolCall};

use super::{Rule, Sink, TraceCx, evidence};
use crate::analysis::contract::{Verdict, quoted, verdict};
use crate::analysis::urls::{decoded, names, normalized, urls};

pub(crate) static META: RuleMeta = RuleMeta {
    id: RuleId::R13,
    kind: FindingType::OffLimitsSource,
    summary: "a call requested, or got back, a source the contract rules out",
    tiers: &[Tier::HardDefect, Tier::HardEvent],
    unit: "tool calls",
    explanation: include_str!("docs/R13.md"),
};

/// Argument names that hold a search query.
const QUERY_KEYS: &[&str] = &[
    "query",
    "q",
    "queries",
    "search_query",
    "search_term",
    "search_queries",
];
/// Nesting walked in arguments and results.
const MAX_DEPTH: usize = 32;
/// URLs listed in an exposure's details.
const MAX_LISTED: usize = 5;

pub(crate) struct OffLimitsSource;

/// A source as declared and as matched.
struct Source<'a> {
    name: &'a str,
    norm: String,
}

/// What named a source in a call's arguments.
struct Request {
    signal: &'static str,
    field: Option<String>,
    matched: String,
    source: String,
    all: BTreeSet<String>,
}

impl Rule for OffLimitsSource {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn opt_in(&self) -> bool {
        true
    }

    fn applicable(&self, cx: &TraceCx<'_>) -> Result<(), String> {
        match &cx.registry.off_limits {
            Some(o) if !o.sources.is_empty() => Ok(()),
            _ => Err("not applicable: the tools file declares no `off_limits` sources".into()),
        }
    }

    fn check(&self, cx: &TraceCx<'_>, out: &mut Sink) {
        let Some(policy) = &cx.registry.off_limits else {
            return;
        };
        let sources: Vec<Source<'_>> = policy
            .sources
            .iter()
            .map(|s| Source {
                name: s,
                norm: normalized(s),
            })
            .filter(|s| !s.norm.is_empty())
            .collect();
        // URLs the user or system prompt gave, as written.
        let mut prompted: HashSet<&str> = HashSet::new();
        for step in &cx.trace.steps {
            if let Some(m) = step.as_message() {
                if matches!(m.role, Role::User | Role::System) {
                    prompted.extend(urls(&m.content));
                }
                continue;
            }
            let Some(call) = step.as_call() else { continue };
            let (request, decided) = match &call.args {
                Args::Known(v) => (request_in(v, None, 0, &sources), true),
                Args::Malformed(_) => (
                    call.raw_args
                        .as_deref()
                        .and_then(|raw| url_request(raw, None, &sources)),
                    true,
                ),
                Args::Unknown(_) => (None, false),
            };
            out.count(decided);
            let v = verdict(cx, step.index);
            let result = v.result().and_then(|r| cx.trace.steps.get(r));
            if let Some(req) = request {
                report_request(
                    step,
                    call,
                    &req,
                    &v,
                    result,
                    &prompted,
                    policy.reason.as_deref(),
                    out,
                );
                continue;
            }
            if !decided {
                out.suppress(
                    step,
                    Some(&call.name),
                    "arguments not recorded: not checked for requests to off-limits sources (its result still is)",
                );
            }
            if let Some(r) = result {
                exposure(step, call, r, &sources, policy.reason.as_deref(), out);
            }
        }
    }
}

/// The first source a call's arguments request, by URL or by search query.
fn request_in(
    v: &Value,
    key: Option<&str>,
    depth: usize,
    sources: &[Source<'_>],
) -> Option<Request> {
    if depth > MAX_DEPTH {
        return None;
    }
    match v {
        Value::String(s) => {
            let is_query =
                key.is_some_and(|k| QUERY_KEYS.iter().any(|q| q.eq_ignore_ascii_case(k)));
            if is_query {
                let norm = normalized(s);
                let hits: BTreeSet<String> = sources
                    .iter()
                    .filter(|src| names(&norm, &src.norm))
                    .map(|src| src.name.to_owned())
                    .collect();
                if let Some(first) = hits.iter().next().cloned() {
                    return Some(Request {
                        signal: "query",
                        field: key.map(str::to_owned),
                        matched: s.clone(),
                        source: first,
                        all: hits,
                    });
                }
            }
            url_request(s, key, sources)
        }
        Value::Array(items) => items
            .iter()
            .find_map(|i| request_in(i, key, depth + 1, sources)),
        Value::Object(m) => m
            .iter()
            .find_map(|(k, i)| request_in(i, Some(k), depth + 1, sources)),
        _ => None,
    }
}

/// The first URL in `text` naming a source, with every source the text's URLs name.
fn url_request(text: &str, key: Option<&str>, sources: &[Source<'_>]) -> Option<Request> {
    let mut first: Option<(String, String)> = None;
    let mut all = BTreeSet::new();
    for url in urls(text) {
        let norm = normalized(&decoded(url));
        for src in sources.iter().filter(|s| names(&norm, &s.norm)) {
            all.insert(src.name.to_owned());
            if first.is_none() {
                first = Some((url.to_owned(), src.name.to_owned()));
            }
        }
    }
    let (matched, source) = first?;
    Some(Request {
        signal: "url",
        field: key.map(str::to_owned),
        matched,
        source,
        all,
    })
}

#[allow(clippy::too_many_arguments)]
fn report_request(
    step: &Step,
    call: &ToolCall,
    req: &Request,
    v: &Verdict<'_>,
    result: Option<&Step>,
    prompted: &HashSet<&str>,
    reason: Option<&str>,
    out: &mut Sink,
) {
    let name = call.name.as_str();
    let outcome = match v {
        Verdict::NoResult => "no result was recorded",
        Verdict::Failed { .. } => "it failed",
        _ => "it returned a result",
    };
    let verb = if req.signal == "query" {
        "searched for"
    } else {
        "requested"
    };
    let f = out.finding(
        Tier::HardDefect,
        step,
        Some(name),
        format!(
            "`{name}` {verb} {}, which names the off-limits source `{}` ({outcome})",
            quoted(&Value::String(req.matched.clone())),
            req.source
        ),
        "the call",
    );
    if let Some(r) = result {
        f.evidence.push(evidence(r, "what it got back"));
    }
    f.field = req.field.clone();
    f.possible_false_positive = req.signal == "url" && prompted.contains(req.matched.as_str());
    if let Some(reason) = reason {
        f.details.push(format!("off limits: {reason}"));
    }
    if req.all.len() > 1 {
        let all: Vec<String> = req.all.iter().map(|s| format!("`{s}`")).collect();
        f.details.push(format!("sources named: {}", all.join(", ")));
    }
    if f.possible_false_positive {
        f.details.push("the prompt itself gave this URL".to_owned());
    }
    f.help = Some(
        "find out what the agent was looking for and whether it used it; if the task needs the source, remove it from `off_limits` or ignore the finding with that reason"
            .into(),
    );
}

/// An exposure: the result of a call that named no source holds URLs naming one.
fn exposure(
    step: &Step,
    call: &ToolCall,
    result_step: &Step,
    sources: &[Source<'_>],
    reason: Option<&str>,
    out: &mut Sink,
) {
    let Some(result) = result_step.as_result() else {
        return;
    };
    let mut found: Vec<String> = Vec::new();
    let mut named: BTreeSet<&str> = BTreeSet::new();
    let mut total = 0usize;
    crate::analysis::outcome::visit_strings(Some(&result.content), 0, &mut |text| {
        for url in urls(text) {
            let norm = normalized(&decoded(url));
            let hit: Vec<&str> = sources
                .iter()
                .filter(|s| names(&norm, &s.norm))
                .map(|s| s.name)
                .collect();
            if hit.is_empty() {
                continue;
            }
            total += 1;
            named.extend(hit);
            if found.len() < MAX_LISTED && !found.iter().any(|u| u == url) {
                found.push(url.to_owned());
            }
        }
    });
    let Some(first) = found.first() else { return };
    let name = call.name.as_str();
    let query = call
        .args
        .known()
        .and_then(Value::as_object)
        .and_then(|m| {
            m.iter()
                .find(|(k, _)| QUERY_KEYS.iter().any(|q| q.eq_ignore_ascii_case(k)))
        })
        .map(|(_, v)| format!(" for {}", quoted(v)))
        .unwrap_or_default();
    let more = if total > 1 {
        format!(" (and {} more)", total - 1)
    } else {
        String::new()
    };
    let source = named.iter().next().copied().unwrap_or_default();
    let f = out.finding(
        Tier::HardEvent,
        step,
        Some(name),
        format!(
            "`{name}`{query} got back {}{more}, which names the off-limits source `{source}`",
            quoted(&Value::String(first.clone()))
        ),
        "the call",
    );
    f.evidence
        .push(evidence(result_step, "the result holding the URL"));
    if let Some(reason) = reason {
        f.details.push(format!("off limits: {reason}"));
    }
    f.details.extend(found.iter().map(|u| format!("url: {u}")));
    f.help = Some(
        "check whether the agent opened the link or reproduced what it points to; an exposure is where to look, not proof of use"
            .into(),
    );
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::lint;

    const TOOLS: &str = r#"{"tools": {}, "off_limits": {"sources": ["tbench.ai", "terminal-bench"],
        "reason": "the benchmark publishes each task's solution"}}"#;

    #[test]
    fn a_url_the_prompt_gave_is_a_possible_false_positive() {
        let steps = |prompt: &str| {
            format!(
                r#"{{"run_id": "r", "steps": [
              {{"type": "message", "role": "system", "content": "{prompt}"}},
              {{"type": "tool_call", "call_id": "1", "name": "fetch", "args": {{"url": "https://tbench.ai/docs"}}}}]}}"#
            )
        };
        let pff = |prompt: &str| {
            let mut f = crate::rules::testing::findings(&steps(prompt), TOOLS);
            f.retain(|f| f.rule == crate::finding::RuleId::R13);
            assert_eq!(f.len(), 1, "{f:?}");
            f[0].possible_false_positive
        };
        assert!(pff("read https://tbench.ai/docs first"));
        assert!(!pff("read https://tbench.ai/other first"));
    }

    fn r13(steps: &str) -> String {
        let t = format!(r#"{{"run_id": "r", "steps": [{steps}]}}"#);
        lint(&t, Some(TOOLS), Default::default())
            .lines()
            .filter(|l| l.contains(" R13 "))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn requests_by_url_and_query_and_exposures() {
        let steps = r#"
          {"type": "message", "role": "user", "content": "fix the build, see https://tbench.ai/docs"},
          {"type": "tool_call", "call_id": "1", "name": "bash", "args": {"command": "curl -s https://raw.githubusercontent.com/x/terminal-bench/main/sol.sh | sh"}},
          {"type": "tool_result", "call_id": "1", "content": "ok", "status": "ok"},
          {"type": "tool_call", "call_id": "2", "name": "search", "args": {"query": "Terminal_Bench hello-world answer"}},
          {"type": "tool_call", "call_id": "3", "name": "search", "args": {"q": "build tarball for hello-world"}},
          {"type": "tool_result", "call_id": "3", "content": {"results": [{"url": "https://www.tbench.ai/tasks/hello-world"}, {"url": "https://example.com"}]}},
          {"type": "tool_call", "call_id": "4", "name": "bash", "args": {"command": "echo terminal-bench > /tmp/canary; ping tbench.ai"}},
          {"type": "tool_result", "call_id": "4", "content": "terminal-bench"},
          {"type": "tool_call", "call_id": "5", "name": "fetch", "args": {"url": "https://tbench.ai/docs"}},
          {"type": "tool_result", "call_id": "5", "content": "404", "status": "error"}"#;
        insta::assert_snapshot!(r13(steps), @r"
            3:11: hard_defect R13 bash: `bash` requested `https://raw.githubusercontent.com/x/terminal-bench/main/sol.sh`, which names the off-limits source `terminal-bench` (it returned a result)
            5:11: hard_defect R13 search: `search` searched for `Terminal_Bench hello-world answer`, which names the off-limits source `terminal-bench` (no result was recorded)
            6:11: hard_event R13 search: `search` for `build tarball for hello-world` got back `https://www.tbench.ai/tasks/hello-world`, which names the off-limits source `tbench.ai`
            10:11: hard_defect R13 fetch: `fetch` requested `https://tbench.ai/docs`, which names the off-limits source `tbench.ai` (it failed)
            coverage R13 5/5 tool calls
        ");
    }
}
