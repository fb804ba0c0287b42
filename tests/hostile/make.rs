//! The huge hostile inputs, made in the case's temp dir at test time (never committed): 100k-deep
//! nesting in every place JSON is read, a 64 MiB line, 50k-character ReDoS bait, and a linted
//! directory with a symlink loop, a dangling symlink and a FIFO that has no writer.

use std::path::Path;

/// Nesting depth of the deep cases.
const DEPTH: usize = 100_000;

fn nested(open: &str, leaf: &str, close: &str) -> String {
    let mut s = String::with_capacity(DEPTH * (open.len() + close.len()) + leaf.len());
    for _ in 0..DEPTH {
        s.push_str(open);
    }
    s.push_str(leaf);
    for _ in 0..DEPTH {
        s.push_str(close);
    }
    s
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

pub(crate) fn deep_array(dir: &Path) {
    write(dir, "deep-array.json", &nested("[", "", "]"));
}

pub(crate) fn deep_args(dir: &Path) {
    let args = nested("{\"q\":", "1", "}");
    write(
        dir,
        "deep-args.json",
        &format!(
            r#"{{"run_id": "x", "steps": [{{"type": "tool_call", "call_id": "c1", "name": "search", "args": {args}}}]}}"#
        ),
    );
}

pub(crate) fn deep_lines(dir: &Path) {
    let deep = nested("[", "", "]");
    write(
        dir,
        "deep.jsonl",
        &format!(
            "{{\"run_id\": \"ok\", \"steps\": []}}\n{{\"run_id\": \"deep\", \"steps\": [{deep}]}}\n{{\"run_id\": \"after\", \"steps\": []}}\n"
        ),
    );
}

pub(crate) fn deep_arguments_string(dir: &Path) {
    let arguments = nested("[", "", "]");
    write(
        dir,
        "deep-arguments.json",
        &format!(
            r#"{{"messages": [{{"role": "user", "content": "go"}}, {{"role": "assistant", "content": null, "tool_calls": [{{"id": "c1", "type": "function", "function": {{"name": "search", "arguments": "{arguments}"}}}}]}}]}}"#
        ),
    );
}

pub(crate) fn deep_tools(dir: &Path) {
    let schema = nested("{\"not\":", "{}", "}");
    write(
        dir,
        "deep-tools.json",
        &format!(r#"{{"tools": [{{"name": "search", "inputSchema": {schema}}}]}}"#),
    );
}

pub(crate) fn deep_claude(dir: &Path) {
    let input = nested("{\"a\":", "1", "}");
    write(
        dir,
        "deep-claude.jsonl",
        &format!(
            "{{\"type\": \"user\", \"sessionId\": \"s\", \"uuid\": \"u1\", \"message\": {{\"role\": \"user\", \"content\": \"hi\"}}}}\n{{\"type\": \"assistant\", \"sessionId\": \"s\", \"uuid\": \"u2\", \"message\": {{\"role\": \"assistant\", \"content\": [{{\"type\": \"tool_use\", \"id\": \"t1\", \"name\": \"Bash\", \"input\": {input}}}]}}}}\n"
        ),
    );
}

pub(crate) fn deep_otel(dir: &Path) {
    let value = nested(
        "{\"arrayValue\": {\"values\": [",
        "{\"intValue\": 1}",
        "]}}",
    );
    write(
        dir,
        "deep.otlp.json",
        &format!(
            r#"{{"resourceSpans": [{{"scopeSpans": [{{"spans": [{{"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "b7ad6b7169203331", "name": "tool", "attributes": [{{"key": "tool.name", "value": {value}}}]}}]}}]}}]}}"#
        ),
    );
}

pub(crate) fn deep_langfuse(dir: &Path) {
    let input = nested("[", "", "]");
    write(
        dir,
        "deep-langfuse.json",
        &format!(
            r#"{{"id": "t", "observations": [{{"id": "o1", "traceId": "t", "type": "TOOL", "name": "search", "input": {input}}}]}}"#
        ),
    );
}

/// A trace line of 64 MiB: one message whose content is the bulk, then a call with a finding.
fn big_trace(pretty: bool) -> String {
    let bulk = "a".repeat(64 << 20);
    let sep = if pretty { "\n  " } else { " " };
    format!(
        r#"{{"run_id": "big",{sep}"steps": [{{"type": "message", "role": "user", "content": "{bulk}"}},{sep}{{"type": "tool_call", "call_id": "c1", "name": "search", "args": {{"query": "x"}}}}]}}"#
    )
}

pub(crate) fn big_line(dir: &Path) {
    write(
        dir,
        "big.jsonl",
        &(big_trace(false) + "\n{\"run_id\": \"next\", \"steps\": []}\n"),
    );
}

pub(crate) fn big_document(dir: &Path) {
    write(dir, "big.json", &big_trace(true));
}

pub(crate) fn redos(dir: &Path) {
    let bait = format!("{}!", "a".repeat(50_000));
    write(
        dir,
        "redos.json",
        &format!(
            r#"{{"run_id": "redos", "steps": [
  {{"type": "tool_call", "call_id": "c1", "name": "search", "args": {{"q": "{bait}"}}}},
  {{"type": "tool_result", "call_id": "c1", "content": "ok", "status": "ok"}},
  {{"type": "tool_call", "call_id": "c2", "name": "send", "args": {{"to": "x"}}}},
  {{"type": "tool_result", "call_id": "c2", "content": {{"error": "{bait}"}}}}
]}}"#
        ),
    );
}

/// A long result, then 300 calls whose values are runs of `a` of every length from 3: each
/// of the result's bytes ends a match of every value (overlapping matches, 150 million of
/// them), which the index must not follow one by one.
pub(crate) fn self_similar(dir: &Path) {
    let text = format!("b{}", "a".repeat(500_000));
    let mut steps = vec![format!(
        r#"{{"type": "tool_result", "call_id": "c0", "content": "{text}", "status": "ok"}}"#
    )];
    for k in 3..303 {
        steps.push(format!(
            r#"{{"type": "tool_call", "call_id": "c{k}", "name": "search", "args": {{"q": "{}"}}}}"#,
            "a".repeat(k)
        ));
    }
    write(
        dir,
        "self-similar.json",
        &format!(
            r#"{{"run_id": "self-similar", "steps": [{}]}}"#,
            steps.join(",\n")
        ),
    );
}

/// `corpus/`: one good trace, a symlink back to the directory itself, a dangling symlink, and a
/// FIFO with no writer (opening it would block forever).
pub(crate) fn hostile_dir(dir: &Path) {
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(corpus.join("sub")).unwrap();
    std::fs::copy(dir.join("calls.json"), corpus.join("sub/calls.json")).unwrap();
    std::os::unix::fs::symlink(&corpus, corpus.join("sub/loop")).unwrap();
    std::os::unix::fs::symlink(dir.join("vanished.jsonl"), corpus.join("gone.jsonl")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(corpus.join("pipe.jsonl"))
        .status()
        .expect("mkfifo (coreutils)");
    assert!(status.success());
}

/// A loop of two symlinks named like a trace, given explicitly.
pub(crate) fn symlink_pair(dir: &Path) {
    std::os::unix::fs::symlink(dir.join("b.json"), dir.join("a.json")).unwrap();
    std::os::unix::fs::symlink(dir.join("a.json"), dir.join("b.json")).unwrap();
}

/// `pipe.jsonl` and `pipe.json`: named pipes nobody writes to, given explicitly (as an input and
/// as `--tools`): opening one for reading must not wait for a writer.
pub(crate) fn fifos(dir: &Path) {
    for name in ["pipe.jsonl", "pipe.json"] {
        let status = std::process::Command::new("mkfifo")
            .arg(dir.join(name))
            .status()
            .expect("mkfifo (coreutils)");
        assert!(status.success());
    }
}

/// `runs/`: a trace, and the JSON report, SARIF log and JSON Lines an earlier run saved beside
/// it (as `check runs --json runs/report.json` does).
pub(crate) fn runs_with_reports(dir: &Path) {
    let runs = dir.join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    std::fs::copy(dir.join("calls.json"), runs.join("calls.json")).unwrap();
    let tool = r#""tool": {"name": "tracelint", "version": "0.1.0"}"#;
    write(
        &runs,
        "report.json",
        &format!(r#"{{"version": 1, {tool}, "findings": []}}"#),
    );
    write(
        &runs,
        "report.sarif.json",
        r#"{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "tracelint"}}, "results": []}]}"#,
    );
    write(
        &runs,
        "report.jsonl",
        &format!("{{\"version\": 1, {tool}, \"run\": {{}}}}\n"),
    );
}

/// A local `$ref` chain of 14,000 links (about 0.5 MB): `tools-ref-chain.json` as an input
/// schema, `tools-ref-chain-output.json` as an output schema.
pub(crate) fn ref_chain(dir: &Path) {
    let n = 14_000;
    let defs: Vec<String> = (0..n)
        .map(|i| format!(r##""a{i}": {{"$ref": "#/$defs/a{}"}}"##, i + 1))
        .chain(std::iter::once(format!(r#""a{n}": {{"type": "string"}}"#)))
        .collect();
    let schema = format!(
        r##"{{"type": "object", "properties": {{"q": {{"$ref": "#/$defs/a0"}}}}, "$defs": {{{}}}}}"##,
        defs.join(", ")
    );
    write(
        dir,
        "tools-ref-chain.json",
        &format!(r#"{{"tools": [{{"name": "search", "inputSchema": {schema}}}]}}"#),
    );
    write(
        dir,
        "tools-ref-chain-output.json",
        &format!(
            r#"{{"tools": [{{"name": "search", "inputSchema": {{"type": "object"}}, "outputSchema": {schema}}}]}}"#
        ),
    );
}

/// `many-findings.jsonl`: 50,000 traces, each with a call that breaks its schema (a hard defect
/// apiece) and an unknown tool: more findings than the report may list.
pub(crate) fn many_findings(dir: &Path) {
    let mut text = String::new();
    for i in 0..50_000 {
        text.push_str(&format!(
            r#"{{"run_id": "r{i}", "steps": [{{"type": "tool_call", "call_id": "c1", "name": "search", "args": {{"q": {i}}}}}, {{"type": "tool_result", "call_id": "c1", "content": "hit", "status": "ok"}}, {{"type": "tool_call", "call_id": "c2", "name": "serach", "args": {{"q": "x"}}}}]}}"#
        ));
        text.push('\n');
    }
    write(dir, "many-findings.jsonl", &text);
}
