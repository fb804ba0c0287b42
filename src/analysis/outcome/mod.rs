//! How a tool result reads structurally, shared by R2a (which reports it) and R2b (which follows
//! failed results' values): a structured error, a declared `failure_when` match, an explicit
//! success, a shell exit convention, or "cannot tell". Text heuristics are not here: they only
//! ever make an R2a candidate, never a failure another rule builds on.

use serde_json::Value;

use crate::model::{
    Args, FailureOutcome, JsonEvent, JsonEvents, Pairing, ResultStatus, Step, ToolCall, ToolResult,
    ToolSpec, Trace,
};


/// What a result says about its call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A structured error signal (SPEC §2); the text is its message or HTTP status, when the
    /// trace records one.
    Error(String),
    /// The tool's declared `failure_when` matched; the text says what matched.
    DeclaredFailure(String),
    /// Explicitly fine: status ok, `failure_when` no match, exit 0, or a shell convention
    /// (the text names it).
    Fine(&'static str),
    /// The result gives no structured answer. `declared_absent` when the tool declares
    /// `failure_when` but the field is missing.
    Unknown {
        /// The `failure_when` pointer that could not be evaluated.
        declared_absent: Option<String>,
    },
    /// No status and no content recorded.
    NotRecorded,
}

impl Outcome {
    /// A failure another rule may build on.
    pub(crate) fn failed(&self) -> bool {
        matches!(self, Outcome::Error(_) | Outcome::DeclaredFailure(_))
    }
}

/// Classify a result, given its call (if paired), the tool's spec and the call before it.
pub(crate) fn classify(
    result: &ToolResult,
    call: Option<&ToolCall>,
    spec: Option<&ToolSpec>,
    previous_call: Option<&ToolCall>,
) -> Outcome {
    // Read at most once: both the shell conventions and the exit-0 test below want it.
    let exit = std::cell::OnceCell::new();
    let exit = || *exit.get_or_init(|| result_exit_code(result));
    if result.content_recorded
        && let Some(call) = call
        && let Some(name) = shell_convention(exit(), call, previous_call)
    {
        return Outcome::Fine(name);
    }
    if result.status == ResultStatus::Error {
        let detail = match (&result.error, result.http_status) {
            (Some(e), _) => e.clone(),
            (None, Some(code)) => format!("HTTP {code}"),
            (None, None) => String::new(),
        };
        return Outcome::Error(detail);
    }
    let mut declared_absent = None;
    if let Some(fw) = spec.and_then(|s| s.metadata.failure_when.as_ref())
        && result.content_recorded
    {
        match fw.evaluate(&result.content) {
            FailureOutcome::Match => {
                let shown = if fw.pointer.is_empty() {
                    "the result".to_owned()
                } else {
                    format!("`{}`", fw.pointer)
                };
                return Outcome::DeclaredFailure(format!("{shown} matches `failure_when`"));
            }
            FailureOutcome::NoMatch => return Outcome::Fine("`failure_when` does not match"),
            FailureOutcome::Unknown => declared_absent = Some(fw.pointer.clone()),
        }
    }
    if result.status == ResultStatus::Ok {
        return Outcome::Fine("status ok");
    }
    if !result.content_recorded {
        return Outcome::NotRecorded;
    }
    if exit().is_some_and(|(code, _)| code == 0) {
        return Outcome::Fine("exit code 0");
    }
    Outcome::Unknown { declared_absent }
}

/// A non-zero exit that is a convention, not a failure (SPEC §5 R2a): a search that found
/// nothing (exit 1, no output), `xargs grep` (123), and a Ctrl-C the agent sent (130). `exit` is
/// the result's exit code and quietness (`exit_code`).
fn shell_convention(
    exit: Option<(i64, bool)>,
    call: &ToolCall,
    previous: Option<&ToolCall>,
) -> Option<&'static str> {
    let (code, no_output) = exit?;
    match code {
        1 if no_output && is_search(call) => Some("a search that found nothing exits 1"),
        1 if is_comparison(call) => Some("a comparison that found differences exits 1"),
        123 if is_xargs_search(call) => Some("`xargs grep` exits 123 when a search found nothing"),
        130 if sent_ctrl_c(call) || previous.is_some_and(sent_ctrl_c) => {
            Some("exit 130 after the agent's own Ctrl-C")
        }
        _ => None,
    }
}

/// Keys a structured shell result uses for its exit status.
const EXIT_KEYS: &[&str] = &[
    "exit_code",
    "exitCode",
    "returncode",
    "return_code",
    "exit_status",
];
/// Keys a structured shell result uses for its output.
const OUTPUT_KEYS: &[&str] = &["stdout", "stderr", "output"];
/// Where a structured shell result may keep its exit status instead (Codex CLI's older shell
/// tools: `{"output": …, "metadata": {"exit_code": N}}`).
const METADATA_KEYS: &[&str] = &["metadata"];

/// `exit_code` of a result's structured content. A string holding JSON is read as events,
/// and only the top-level members `exit_code` looks at are built.
fn result_exit_code(result: &ToolResult) -> Option<(i64, bool)> {
    match result.json() {
        Some(json) => {
            let members = top_level_members(json, &[EXIT_KEYS, OUTPUT_KEYS, METADATA_KEYS])?;
            if members.contains_key("metadata")
                && !EXIT_KEYS.iter().any(|k| members.contains_key(*k))
            {
                // The status is one level down: read the tree (parsed once, then kept).
                return exit_code(result.structured());
            }
            exit_code(&Value::Object(members))
        }
        None => exit_code(result.structured()),
    }
}

/// The members of a JSON object (as events) named in `keys`, each with its last value (as a
/// parsed object keeps it); a container value stands as an empty array, since only scalars are
/// read from these. `None` when the root is not an object.
pub(crate) fn top_level_members(
    (events, text): (&JsonEvents, &str),
    keys: &[&[&str]],
) -> Option<serde_json::Map<String, Value>> {
    let mut members = serde_json::Map::new();
    for (key, value) in events.members(text)? {
        if !keys.iter().any(|ks| ks.contains(&key)) {
            continue;
        }
        let value = match value {
            JsonEvent::Str(s) => Value::String(s.to_owned()),
            JsonEvent::Number(n) => Value::Number(n.clone()),
            JsonEvent::Bool(b) => Value::Bool(b),
            JsonEvent::Null => Value::Null,
            JsonEvent::Open { .. } | JsonEvent::Deep(_) | JsonEvent::Key(_) | JsonEvent::Close => {
                Value::Array(Vec::new())
            }
        };
        members.insert(key.to_owned(), value);
    }
    Some(members)
}

/// The exit code a result reports, and whether it carries no other output: Claude Code's
/// `Exit code N` first line, the header Codex CLI puts above a command's output (`Process
/// exited with code N` / `Exit code: N`, then `Output:`), or a structured `exit_code` /
/// `returncode` field (at the top, or in a `metadata` object). `content` is the result's
/// structured content (`ToolResult::structured`).
pub(crate) fn exit_code(content: &Value) -> Option<(i64, bool)> {
    match content {
        Value::String(s) => {
            let (first, rest) = s.split_once('\n').unwrap_or((s.as_str(), ""));
            if let Some(code) = first.trim().strip_prefix("Exit code ") {
                return Some((code.trim().parse().ok()?, rest.trim().is_empty()));
            }
            exec_header(s).or_else(|| exit_trailer(s))
        }
        Value::Object(m) => {
            let code = EXIT_KEYS
                .iter()
                .find_map(|k| m.get(*k)?.as_i64())
                .or_else(|| {
                    let meta = m.get("metadata")?.as_object()?;
                    EXIT_KEYS.iter().find_map(|k| meta.get(*k)?.as_i64())
                })?;
            let quiet = OUTPUT_KEYS.iter().all(|k| {
                m.get(*k)
                    .is_none_or(|v| v.as_str().is_some_and(|s| s.trim().is_empty()))
            });
            Some((code, quiet))
        }
        _ => None,
    }
}

/// Codex CLI's header above a command's output: a few `Name: value` lines, one of them the
/// exit status, then `Output:` and the output itself.
fn exec_header(s: &str) -> Option<(i64, bool)> {
    let mut code = None;
    let mut lines = s.split_inclusive('\n');
    for line in lines.by_ref().take(6) {
        let line = line.trim();
        if line == "Output:" {
            let rest: usize = lines.map(|l| l.trim().len()).sum();
            return code.map(|c| (c, rest == 0));
        }
        if let Some(n) = line
            .strip_prefix("Process exited with code ")
            .or_else(|| line.strip_prefix("Exit code: "))
        {
            code = Some(n.trim().parse().ok()?);
        }
    }
    None
}

/// pi's shell result: the output, then a last line `Command exited with code N`; an empty
/// output is written `(no output)`.
fn exit_trailer(s: &str) -> Option<(i64, bool)> {
    let body = s.trim_end();
    let (before, last) = body.rsplit_once('\n').unwrap_or(("", body));
    let code = last.trim().strip_prefix("Command exited with code ")?;
    let before = before.trim();
    Some((code.trim().parse().ok()?, before.is_empty() || before == "(no output)"))
}

/// Search programs whose exit 1 means "no match".
const SEARCH_PROGRAMS: &[&str] = &["grep", "egrep", "fgrep", "rg", "ag", "ack"];

/// The call is a search: a tool named like one (Claude Code's `Grep`), or a shell command whose
/// last pipeline stage is `grep`, `rg`, `git grep` or `xargs grep`.
pub(crate) fn is_search(call: &ToolCall) -> bool {
    let name = call.name.to_ascii_lowercase();
    if SEARCH_PROGRAMS.contains(&name.as_str()) {
        return true;
    }
    commands(call).any(|cmd| {
        last_stage(cmd).is_some_and(|words| {
            matches!(words.as_slice(), [w, ..] if SEARCH_PROGRAMS.contains(w))
                || matches!(words.as_slice(), ["git", "grep", ..])
                || is_xargs_words(&words)
        })
    })
}

/// The call compares files: `diff`, `cmp`, or `git diff` with `--no-index`, `--exit-code` or
/// `--quiet`, whose exit 1 means "they differ".
pub(crate) fn is_comparison(call: &ToolCall) -> bool {
    commands(call).any(|cmd| {
        last_stage(cmd).is_some_and(|words| match words.as_slice() {
            ["diff" | "cmp", ..] => true,
            ["git", "diff", rest @ ..] => rest
                .iter()
                .any(|w| matches!(*w, "--no-index" | "--exit-code" | "--quiet")),
            _ => false,
        })
    })
}

fn is_xargs_search(call: &ToolCall) -> bool {
    commands(call).any(|cmd| last_stage(cmd).is_some_and(|w| is_xargs_words(&w)))
}

fn is_xargs_words(words: &[&str]) -> bool {
    words.first() == Some(&"xargs") && words.iter().any(|w| SEARCH_PROGRAMS.contains(w))
}

/// The words of the last stage of a shell command line (after `|`, `;`, `&&`, `||`), without
/// leading `VAR=value` assignments, `sudo`, `env`, `time`.
fn last_stage(cmd: &str) -> Option<Vec<&str>> {
    // Separators inside quotes (`rg 'a|b' src`) do not end a stage.
    let (mut quote, mut start, mut last) = (None, 0, None);
    for (i, c) in cmd.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '|' | ';' | '&' | '\n') => {
                if !cmd[start..i].trim().is_empty() {
                    last = Some(&cmd[start..i]);
                }
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    let stage = if cmd[start..].trim().is_empty() {
        last?
    } else {
        &cmd[start..]
    };
    let words: Vec<&str> = stage
        .split_whitespace()
        .skip_while(|w| w.contains('=') || matches!(*w, "sudo" | "env" | "time" | "command"))
        .map(|w| w.rsplit('/').next().unwrap_or(w))
        .collect();
    (!words.is_empty()).then_some(words)
}

/// The string arguments of a call (where a shell command would be), and the strings of an
/// argv-style list (Codex CLI's `shell` takes `["bash", "-lc", "<script>"]`).
fn commands(call: &ToolCall) -> impl Iterator<Item = &str> {
    let args = match &call.args {
        Args::Known(Value::Object(m)) => Some(m),
        _ => None,
    };
    args.into_iter()
        .flat_map(|m| m.values())
        .flat_map(|v| match v {
            Value::Array(items) => items.iter().collect::<Vec<_>>(),
            other => vec![other],
        })
        .filter_map(Value::as_str)
}

/// The call sends Ctrl-C to a terminal (tmux `C-c`, `^C`, the raw byte, or the words).
pub(crate) fn sent_ctrl_c(call: &ToolCall) -> bool {
    let mut found = false;
    visit_strings(call.args.known(), 0, &mut |s| {
        let t = s.trim();
        found |= t.contains("C-c")
            || t.contains("^C")
            || t.contains('\u{3}')
            || ["ctrl+c", "ctrl-c", "control-c"]
                .iter()
                .any(|k| t.eq_ignore_ascii_case(k));
    });
    found
}

/// Every string leaf of `v`, to a bounded depth.
pub(crate) fn visit_strings(v: Option<&Value>, depth: usize, f: &mut dyn FnMut(&str)) {
    if depth > 16 {
        return;
    }
    match v {
        Some(Value::String(s)) => f(s),
        Some(Value::Array(items)) => items
            .iter()
            .for_each(|i| visit_strings(Some(i), depth + 1, f)),
        Some(Value::Object(m)) => m
            .values()
            .for_each(|i| visit_strings(Some(i), depth + 1, f)),
        _ => {}
    }
}

/// For each step index, the nearest earlier tool call's step index (the call before a call).
/// R2a and R2b need tool results: calls without any cannot show whether a call failed.
pub(crate) fn results_recorded(trace: &Trace) -> Result<(), String> {
    let steps = &trace.steps;
    if steps.iter().any(|s| s.as_call().is_some()) && !steps.iter().any(|s| s.as_result().is_some())
    {
        return Err("no tool results recorded: the trace cannot show whether a call failed".into());
    }
    Ok(())
}

/// The outcome of every result of a trace, by step index (`None` for other steps): each result
/// classified with its paired call, the tool's spec and the call before that one.
pub(crate) fn classify_all<'a>(
    trace: &'a Trace,
    pairing: &Pairing,
    spec: impl Fn(&str) -> Option<&'a ToolSpec>,
) -> Vec<Option<Outcome>> {
    let steps = &trace.steps;
    let previous = previous_calls(steps);
    steps
        .iter()
        .map(|s| {
            let result = s.as_result()?;
            let call_step = pairing.call_for(s.index);
            let call = call_step.and_then(|i| steps.get(i)).and_then(Step::as_call);
            let prev = call_step
                .and_then(|i| previous.get(i).copied().flatten())
                .and_then(|i| steps.get(i))
                .and_then(Step::as_call);
            Some(classify(
                result,
                call,
                call.and_then(|c| spec(&c.name)),
                prev,
            ))
        })
        .collect()
}

fn previous_calls(steps: &[Step]) -> Vec<Option<usize>> {
    let mut out = Vec::with_capacity(steps.len());
    let mut last = None;
    for s in steps {
        out.push(last);
        if s.as_call().is_some() {
            last = Some(s.index);
        }
    }
    out
}

mod refusal;
pub(crate) use refusal::refused;

#[cfg(test)]
mod tests;
