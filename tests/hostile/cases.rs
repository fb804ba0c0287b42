//! The cases: one `#[test]` each, named after its snapshot. Committed inputs are in
//! `fixtures/hostile/`; `make::*` makes the huge ones.

use super::{Case, make, run};

macro_rules! cases {
    ($($name:ident => $case:expr;)*) => {
        $(
            #[test]
            fn $name() {
                let case: Case = $case;
                assert_eq!(case.name, stringify!($name).replace('_', "-"));
                run(&case);
            }
        )*
    };
}

const HTML_MARKS: &[&str] = &["sea", "script", "img", "svg", "alert", "javascript"];

cases! {
    // Empty, blank and oddly encoded files.
    empty_json => Case::new("empty-json", &["check", "empty.json"]);
    empty_jsonl => Case::new("empty-jsonl", &["check", "empty.jsonl", "--tools", "tools.json"]);
    whitespace_only => Case::new("whitespace-only", &["check", "whitespace.json"]);
    bom_lines => Case::new("bom-lines", &["check", "bom.jsonl", "--tools", "tools.json"]);
    bom_document => Case::new("bom-document", &["check", "bom.json", "--tools", "tools.json"]);
    crlf_lines => Case::new("crlf-lines", &["check", "crlf.jsonl", "--tools", "tools.json"]);
    crlf_document => Case::new("crlf-document", &["check", "crlf.json", "--tools", "tools.json"]);
    invalid_utf8_lines => Case::new("invalid-utf8-lines", &["check", "invalid-utf8.jsonl", "--tools", "tools.json"]);
    invalid_utf8_document => Case::new("invalid-utf8-document", &["check", "invalid-utf8.json"]);
    invalid_utf8_tools => Case::new("invalid-utf8-tools", &["check", "calls.json", "--tools", "tools-invalid-utf8.json"]);
    nul_raw => Case::new("nul-raw", &["check", "nul-raw.jsonl", "--tools", "tools.json"]);
    nul_escaped => Case::new("nul-escaped", &["check", "nul-escaped.json", "--tools", "tools.json", "--include-candidates"]);
    // JSON edge cases.
    duplicate_keys => Case::new("duplicate-keys", &["check", "dup-keys.json"]);
    duplicate_arg_keys => Case::new("duplicate-arg-keys", &["check", "dup-arg-keys.json", "--tools", "tools.json"]);
    huge_exponent => Case::new("huge-exponent", &["check", "huge-exponent.json", "--tools", "tools.json"]);
    digits_400 => Case::new("digits-400", &["check", "digits-400.json", "--tools", "tools.json"]);
    digits_400_string => Case::new("digits-400-string", &["check", "digits-400-string.json", "--tools", "tools.json"]);
    // Nesting 100k deep everywhere JSON is read.
    deep_array => Case::new("deep-array", &["check", "deep-array.json"]).setup(make::deep_array);
    deep_args => Case::new("deep-args", &["check", "deep-args.json", "--tools", "tools.json"]).setup(make::deep_args);
    deep_lines => Case::new("deep-lines", &["check", "deep.jsonl", "--tools", "tools.json"]).setup(make::deep_lines);
    deep_arguments_string => Case::new("deep-arguments-string", &["check", "deep-arguments.json", "--tools", "tools.json"]).setup(make::deep_arguments_string);
    deep_tools => Case::new("deep-tools", &["check", "calls.json", "--tools", "deep-tools.json"]).setup(make::deep_tools);
    deep_claude => Case::new("deep-claude", &["check", "deep-claude.jsonl"]).setup(make::deep_claude);
    deep_otel => Case::new("deep-otel", &["check", "deep.otlp.json"]).setup(make::deep_otel);
    deep_langfuse => Case::new("deep-langfuse", &["check", "deep-langfuse.json", "--input-format", "langfuse"]).setup(make::deep_langfuse);
    deep_infer => Case::new("deep-infer", &["infer", "deep-args.json", "-o", "inferred.json"]).setup(make::deep_args).outputs(&["inferred.json"]);
    // Size limits.
    big_line => Case::new("big-line", &["check", "big.jsonl", "--tools", "tools.json"]).setup(make::big_line);
    big_line_over_limit => Case::new("big-line-over-limit", &["check", "big.jsonl", "--tools", "tools.json", "--max-record-size", "1048576"]).setup(make::big_line);
    big_document_over_limit => Case::new("big-document-over-limit", &["check", "big.json", "--max-record-size", "1048576"]).setup(make::big_document);
    // Control, bidi and markup in names and arguments, in every medium.
    controls_text => Case::new("controls-text", &["check", "controls.json", "--tools", "tools.json", "--include-candidates"]);
    controls_sarif => Case::new("controls-sarif", &["check", "controls.json", "--tools", "tools.json", "--output-format", "sarif"]).grep(&["\"text\""]);
    controls_html => Case::new("controls-html", &["check", "controls.json", "--tools", "tools.json", "--output-format", "html"]).grep(HTML_MARKS);
    controls_github => Case::new("controls-github", &["check", "controls.json", "--tools", "tools.json", "--output-format", "github"]).grep(&["::"]);
    xss_html => Case::new("xss-html", &["check", "xss.json", "--tools", "tools.json", "--html", "report.html", "--quiet"]).grep(HTML_MARKS).outputs(&["report.html"]);
    xss_text => Case::new("xss-text", &["check", "xss.json", "--tools", "tools.json"]);
    // Regexes: ReDoS bait against a linear-time engine, broken and oversized patterns.
    redos_schema_pattern => Case::new("redos-schema-pattern", &["check", "redos.json", "--tools", "tools-redos.json", "--include-candidates"]).setup(make::redos);
    self_similar_values => Case::new("self-similar-values", &["check", "self-similar.json", "--include-candidates"]).setup(make::self_similar);
    redos_failure_when => Case::new("redos-failure-when", &["check", "redos.json", "--tools", "tools-fw-redos.json", "--include-candidates"]).setup(make::redos);
    pattern_paren => Case::new("pattern-paren", &["check", "calls.json", "--tools", "tools-pattern-paren.json", "--show-suppressions"]);
    pattern_too_big => Case::new("pattern-too-big", &["check", "calls.json", "--tools", "tools-pattern-too-big.json"]);
    failure_when_too_big => Case::new("failure-when-too-big", &["check", "calls.json", "--tools", "tools-fw-too-big.json"]);
    cyclic_ref => Case::new("cyclic-ref", &["check", "calls.json", "--tools", "tools-cyclic-ref.json", "--show-suppressions"]);
    remote_ref => Case::new("remote-ref", &["check", "calls.json", "--tools", "tools-remote-ref.json", "--show-suppressions"]);
    // The file system.
    hostile_directory => Case::new("hostile-directory", &["check", "corpus", "--tools", "tools.json"]).setup(make::hostile_dir);
    // Named pipes with no writer, given explicitly: read as streams (so `<(…)` works), never
    // waited on; one nobody writes to is empty. The other input is still linted.
    fifo_input => Case::new("fifo-input", &["check", "pipe.jsonl", "calls.json", "--tools", "tools.json"]).setup(make::fifos);
    fifo_tools => Case::new("fifo-tools", &["check", "calls.json", "--tools", "pipe.json"]).setup(make::fifos);
    device_input => Case::new("device-input", &["check", "/dev/zero", "calls.json", "--tools", "tools.json"]);
    // An output that is an input is refused before anything is read or written (the input is
    // shown unchanged); reports an earlier run saved in a walked directory are skipped.
    output_over_input => Case::new("output-over-input", &["check", "calls.json", "--tools", "tools.json", "--json", "./calls.json"]).grep(&["error", "run_id"]).outputs(&["calls.json"]);
    infer_truncated => Case::new("infer-truncated", &["infer", "truncated.json", "-o", "inferred.json"]);
    infer_over_input => Case::new("infer-over-input", &["infer", "calls.json", "-o", "calls.json"]).grep(&["error", "run_id"]).outputs(&["calls.json"]);
    reports_in_walked_directory => Case::new("reports-in-walked-directory", &["check", "runs", "--tools", "tools.json"]).setup(make::runs_with_reports);
    symlink_pair => Case::new("symlink-pair", &["check", "a.json"]).setup(make::symlink_pair);
    // Every adapter on records of the wrong shape.
    claude_wrong_types => Case::new("claude-wrong-types", &["check", "claude-wrong-types.jsonl", "--show-suppressions"]);
    openai_wrong_types => Case::new("openai-wrong-types", &["check", "openai-wrong-types.json", "--tools", "tools.json", "--include-candidates"]);
    langfuse_wrong_types => Case::new("langfuse-wrong-types", &["check", "langfuse-wrong-types.json", "--tools", "tools.json", "--include-candidates"]);
    otel_wrong_types => Case::new("otel-wrong-types", &["check", "otel-wrong-types.json", "--tools", "tools.json"]);
    // MCP servers that misbehave.
    mcp_huge_reply => Case::new("mcp-huge-reply", &["check", "calls.json", "--tools", "mcp-stdio:python3 mcp/server.py huge-reply", "--mcp-timeout", "5"]);
    mcp_cursor_loop => Case::new("mcp-cursor-loop", &["check", "calls.json", "--tools", "mcp-stdio:python3 mcp/server.py cursor-loop", "--mcp-timeout", "5"]);
    mcp_endless_pages => Case::new("mcp-endless-pages", &["check", "calls.json", "--tools", "mcp-stdio:python3 mcp/server.py endless-pages", "--mcp-timeout", "5"]);
    mcp_deep_reply => Case::new("mcp-deep-reply", &["check", "calls.json", "--tools", "mcp-stdio:python3 mcp/server.py deep-reply", "--mcp-timeout", "5"]);
    mcp_escapes => Case::new("mcp-escapes", &["check", "calls.json", "--tools", "mcp-stdio:python3 mcp/server.py escapes", "--mcp-timeout", "5", "--include-candidates"]);
    mcp_bad_pattern => Case::new("mcp-bad-pattern", &["check", "calls.json", "--tools", "mcp-stdio:python3 mcp/server.py bad-pattern", "--mcp-timeout", "5"]);
    // Floods notifications and pings after `initialize`: the listing ends (a bounded queue, an
    // absolute deadline, a message budget) well inside the hang detector, in bounded memory.
    // A 14,000-link `$ref` chain overflowed the validator's stack (exit 134): refused before
    // compiling, from a tools file and from a server reply alike.
    ref_chain_input_schema => Case::new("ref-chain-input-schema", &["check", "calls.json", "--tools", "tools-ref-chain.json", "--show-suppressions"]).setup(make::ref_chain);
    ref_chain_output_schema => Case::new("ref-chain-output-schema", &["check", "calls.json", "--tools", "tools-ref-chain-output.json"]).setup(make::ref_chain);
    mcp_ref_chain => Case::new("mcp-ref-chain", &["check", "calls.json", "--tools", "mcp-stdio:python3 mcp/server.py ref-chain", "--mcp-timeout", "10", "--show-suppressions"]);
    mcp_big_pages => Case::new("mcp-big-pages", &["check", "calls.json", "--tools", "mcp-stdio:python3 mcp/server.py big-pages", "--mcp-timeout", "20"]);
    mcp_chatty => Case::new("mcp-chatty", &["check", "calls.json", "--tools", "mcp-stdio:python3 mcp/server.py chatty", "--mcp-timeout", "5"]);
    mcp_http_redirect_loop => Case::new("mcp-http-redirect-loop", &["check", "calls.json", "--tools", "mcp-http:{URL}", "--mcp-timeout", "5"]);
    // 100,000 findings: the report lists at most `--max-findings` (hard defects first), says
    // so, and its counts and exit code cover them all; memory follows the cap, not the count.
    many_findings => Case::new("many-findings", &["check", "many-findings.jsonl", "--tools", "tools.json", "--output-format", "json", "--max-findings", "1000", "--html", "many.html"]).setup(make::many_findings).grep(&["not listed", "\"hard_defect\": ", "\"candidate\": ", "\"rule\": \"R7\""]).outputs(&["many.html"]);
    mcp_http_redirect_off_host => Case::new("mcp-http-redirect-off-host", &["check", "calls.json", "--tools", "mcp-http:{URL}", "--mcp-timeout", "5"]);
}
