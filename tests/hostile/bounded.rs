//! Bounded by construction (issue 47): input errors are listed up to a cap per input and then
//! counted, in every output format, files and streams alike, in bounded memory; no output may
//! replace a file the run reads, whatever path leads to it; every file read whole (config,
//! expectations, baseline, shards) must be a regular file, so a device or a named pipe is refused
//! at once instead of read for ever or waited on.

use std::io::Write;
use std::path::Path;

use super::{Case, Stdin, make, run};

/// Peak resident memory the runs over big bad inputs may reach (the issue's bound).
const BOUNDED_RSS: u64 = 256 << 20;

/// A line of 63 `x` and its newline: not JSON.
fn bad_line() -> Vec<u8> {
    let mut line = vec![b'x'; 63];
    line.push(b'\n');
    line
}

/// One native trace, then `bytes` of lines that are not JSON.
fn trace_then_garbage(out: &mut dyn Write, bytes: usize) -> std::io::Result<()> {
    let trace =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hostile/calls.json"))?;
    out.write_all(&trace)?;
    out.write_all(b"\n")?;
    let chunk = bad_line().repeat(1024);
    for _ in 0..bytes / chunk.len() {
        out.write_all(&chunk)?;
    }
    Ok(())
}

/// `bad-lines.jsonl`: one trace, then 40 MB of `x` lines.
fn bad_lines(dir: &Path) {
    let mut file =
        std::io::BufWriter::new(std::fs::File::create(dir.join("bad-lines.jsonl")).unwrap());
    trace_then_garbage(&mut file, 40 << 20).unwrap();
    file.flush().unwrap();
}

/// 32 MB of a stream: one trace, then `x` lines.
fn feed_bad_lines(out: &mut dyn Write) -> std::io::Result<()> {
    trace_then_garbage(out, 32 << 20)
}

/// `garbage.jsonl`: 20 MB of lines that are not JSON Lines records.
fn garbage(dir: &Path) {
    std::fs::write(
        dir.join("garbage.jsonl"),
        bad_line().repeat((20 << 20) / 64),
    )
    .unwrap();
}

/// 20 MB of one JSON line that is not a tracelint record, repeated.
fn feed_repeated_line(out: &mut dyn Write) -> std::io::Result<()> {
    let line = b"{\"version\": 1, \"tool\": {\"name\": \"tracelint\", \"version\": \"0\"}}\n";
    let chunk = line.repeat(1024);
    for _ in 0..(20 << 20) / chunk.len() {
        out.write_all(&chunk)?;
    }
    Ok(())
}

fn hard_link(dir: &Path) {
    std::fs::hard_link(dir.join("calls.json"), dir.join("link.json")).unwrap();
}

fn hard_link_tools(dir: &Path) {
    std::fs::hard_link(dir.join("tools.json"), dir.join("link.json")).unwrap();
}

fn symlink(dir: &Path) {
    std::os::unix::fs::symlink(dir.join("calls.json"), dir.join("alias.json")).unwrap();
}

/// A `tracelint.toml` found by searching upward from the case's directory.
fn config(dir: &Path) {
    std::fs::write(dir.join("tracelint.toml"), "fail-on = \"hard-defect\"\n").unwrap();
}

/// A found `tracelint.toml` (a pull request can add one) naming standard input as the baseline.
fn config_baseline_stdin(dir: &Path) {
    std::fs::write(dir.join("tracelint.toml"), "baseline = \"/dev/stdin\"\n").unwrap();
}

/// `shard.jsonl`: what `check --output-format json-lines` wrote.
fn shard(dir: &Path) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args([
            "check",
            "calls.json",
            "--tools",
            "tools.json",
            "--output-format",
            "json-lines",
        ])
        .current_dir(dir)
        .output()
        .unwrap();
    std::fs::write(dir.join("shard.jsonl"), out.stdout).unwrap();
}

/// `shard.jsonl`, and `link.jsonl`: a hard link to it.
fn shard_and_link(dir: &Path) {
    shard(dir);
    std::fs::hard_link(dir.join("shard.jsonl"), dir.join("link.jsonl")).unwrap();
}

/// `e.toml`: an expectations file.
fn expectations(dir: &Path) {
    std::fs::write(
        dir.join("e.toml"),
        "[[expect]]\nid = \"searches\"\nwhy = \"it looks things up\"\ncalled = \"search\"\n",
    )
    .unwrap();
}

/// A directory linted twice with its report written inside it: the first run's report is there.
fn runs_with_own_report(dir: &Path) {
    let runs = dir.join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    std::fs::copy(dir.join("calls.json"), runs.join("calls.json")).unwrap();
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args([
            "check",
            "runs",
            "--tools",
            "tools.json",
            "--json",
            "runs/report.json",
        ])
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
}

/// A found `tracelint.toml` whose value an error echoes: a terminal hyperlink (OSC 8), a bell,
/// a right-to-left override and a line separator, in 100 kB of text.
fn config_escapes(dir: &Path) {
    let value = format!(
        "\\u001b]8;;https://evil.example\\u0007click\\u001b]8;;\\u0007 \\u202etxt.exe \\u2028{}",
        "a".repeat(100_000)
    );
    std::fs::write(
        dir.join("tracelint.toml"),
        format!("fail-on = \"{value}\"\n"),
    )
    .unwrap();
}

/// 10,000 `[[ignore]]` globs over the 100,000 findings of `many-findings.jsonl`: only the last
/// matches (the unknown tool's 50,000).
fn ten_thousand_ignores(dir: &Path) {
    make::many_findings(dir);
    let mut config = String::new();
    for i in 0..9_999 {
        config.push_str(&format!(
            "[[ignore]]\nrule = \"R7\"\ntool = \"legacy_{i}_*\"\nreason = \"kept for replay {i}\"\n"
        ));
    }
    config.push_str("[[ignore]]\nrule = \"R7\"\ntool = \"ser?ch\"\nreason = \"a typo the agent recovers from\"\n");
    std::fs::write(dir.join("tracelint.toml"), config).unwrap();
}

/// The real Claude Code session whose one big tool result is stored outside it, copied into
/// `claude/`, with the path its preview names replaced by `named(dir)`.
fn claude_session(dir: &Path, named: &dyn Fn(&Path) -> String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/real/claude-code-2.1.332");
    let text = std::fs::read_to_string(root.join(format!("{SESSION}.jsonl"))).unwrap();
    let stored = format!(
        "/tmp/tracelint-session-4anj_jzy/home/.claude/projects/-tmp-tracelint-session-4anj-jzy-work/{SESSION}/tool-results/bt8fbqtb1.txt"
    );
    assert!(text.contains(&stored));
    std::fs::create_dir_all(dir.join("claude")).unwrap();
    std::fs::write(
        dir.join(format!("claude/{SESSION}.jsonl")),
        text.replace(&stored, &named(dir)),
    )
    .unwrap();
}

const SESSION: &str = "8c2fe29d-4fb3-446a-90f0-e1d1416fe640";

/// The stored result, where a copied session finds it (its `tool-results/` beside it), is a
/// named pipe nobody writes to.
fn stored_fifo(dir: &Path) {
    claude_session(dir, &|_| {
        "/nowhere/.claude/projects/p/s/tool-results/bt8fbqtb1.txt".to_owned()
    });
    let results = dir.join(format!("claude/{SESSION}/tool-results"));
    std::fs::create_dir_all(&results).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(results.join("bt8fbqtb1.txt"))
        .status()
        .expect("mkfifo (coreutils)");
    assert!(status.success());
}

/// The session names a file outside any `tool-results/` folder as its stored result: a secret.
fn stored_elsewhere(dir: &Path) {
    std::fs::write(dir.join("secret.txt"), "API_KEY=hunter2\n").unwrap();
    claude_session(dir, &|d| {
        d.join("secret.txt").to_string_lossy().into_owned()
    });
}

/// `mixed.jsonl`: the trace of `calls.json` on one line, then a line that is not JSON.
fn partly_unreadable(dir: &Path) {
    let trace: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("calls.json")).unwrap()).unwrap();
    std::fs::write(dir.join("mixed.jsonl"), format!("{trace}\nnot json\n")).unwrap();
}

/// `cr.jsonl`: two records on lines ended by a carriage return alone (classic Mac OS).
fn cr_only(dir: &Path) {
    let trace: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("calls.json")).unwrap()).unwrap();
    let mut second = trace.clone();
    second["run_id"] = "second".into();
    std::fs::write(dir.join("cr.jsonl"), format!("{trace}\r{second}\r")).unwrap();
}

/// `huge-coverage.jsonl` and `huge-coverage-2.jsonl`: shards of two inputs whose run records
/// claim coverage counts near the largest integer (as if summed past it).
fn huge_coverage(dir: &Path) {
    std::fs::copy(dir.join("calls.json"), dir.join("calls-2.json")).unwrap();
    for (input, shard, decided, total) in [
        ("calls.json", "huge-coverage.jsonl", u64::MAX / 2, u64::MAX),
        ("calls-2.json", "huge-coverage-2.jsonl", 1, 1),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tracelint"))
            .args([
                "check",
                input,
                "--tools",
                "tools.json",
                "--output-format",
                "json-lines",
            ])
            .current_dir(dir)
            .output()
            .unwrap();
        let mut text = String::new();
        for line in String::from_utf8(out.stdout).unwrap().lines() {
            let mut record: serde_json::Value = serde_json::from_str(line).unwrap();
            if let Some(coverage) = record.pointer_mut("/run/coverage") {
                for c in coverage.as_array_mut().unwrap() {
                    c["decided"] = decided.into();
                    c["total"] = total.into();
                }
            }
            text.push_str(&record.to_string());
            text.push('\n');
        }
        std::fs::write(dir.join(shard), text).unwrap();
    }
}

/// `separators.json`: a trace whose tool name and arguments hold U+2028, U+2029 and U+0085.
fn separators(dir: &Path) {
    let trace = serde_json::json!({
        "run_id": "sep\u{2028}arated",
        "steps": [
            {"type": "tool_call", "call_id": "a", "name": "zq\u{2029}tool", "args": {"q": "zq\u{85}two\u{2028}three"}},
            {"type": "tool_result", "call_id": "a", "content": "ok"}
        ]
    });
    std::fs::write(dir.join("separators.json"), trace.to_string()).unwrap();
}

/// `runs/r.jsonl`: a recorded run, and `o\u{2028}.toml`: expectations that judge it, named with
/// a line separator.
fn recorded_with_oracle(dir: &Path) {
    partly_unreadable(dir);
    std::fs::create_dir_all(dir.join("runs")).unwrap();
    let text = std::fs::read_to_string(dir.join("mixed.jsonl")).unwrap();
    std::fs::write(dir.join("runs/r.jsonl"), text.lines().next().unwrap()).unwrap();
    expectations(dir);
    std::fs::rename(dir.join("e.toml"), dir.join("o\u{2028}.toml")).unwrap();
}

/// `many-traces.otlp.json`: one OTLP JSON export of 50,000 traces of one tool span each
/// (15 MB): traces held until their file is read keep only what is still to be written.
fn many_otel_traces(dir: &Path) {
    let mut text = String::from(
        r#"{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"scope":{"name":"s"},"spans":["#,
    );
    for i in 1..=50_000u64 {
        if i > 1 {
            text.push(',');
        }
        text.push_str(&format!(
            r#"{{"traceId":"{i:032x}","spanId":"{i:016x}","name":"search","startTimeUnixNano":"{}","endTimeUnixNano":"{}","attributes":[{{"key":"openinference.span.kind","value":{{"stringValue":"TOOL"}}}},{{"key":"tool.name","value":{{"stringValue":"search"}}}}]}}"#,
            1_700_000_000_000_000_000u64 + i,
            1_700_000_000_000_000_001u64 + i
        ));
    }
    text.push_str("]}]}]}\n");
    std::fs::write(dir.join("many-traces.otlp.json"), text).unwrap();
}

/// `many-findings.jsonl`: 30,000 native traces, each one call to a tool nobody declared whose
/// result is an error (two findings a trace).
fn many_findings(dir: &Path) {
    let mut text = String::new();
    for i in 0..30_000u32 {
        text.push_str(&format!(
            r#"{{"run_id": "r{i}", "steps": [{{"type": "tool_call", "call_id": "c", "name": "nope", "args": {{"q": "x"}}}}, {{"type": "tool_result", "call_id": "c", "content": "boom", "status": "error"}}]}}"#
        ));
        text.push('\n');
    }
    std::fs::write(dir.join("many-findings.jsonl"), text).unwrap();
}

/// `event.json`: a Claude Code hook event whose transcript is `transcript`.
fn hook_event(dir: &Path, transcript: &str) {
    let event = serde_json::json!({
        "session_id": "s1",
        "transcript_path": transcript,
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
    });
    std::fs::write(dir.join("event.json"), event.to_string()).unwrap();
}

/// A hook event naming a named pipe nobody writes to as the session's transcript.
fn hook_event_fifo(dir: &Path) {
    make::fifos(dir);
    hook_event(dir, "pipe.jsonl");
}

/// A hook event naming a device that never ends as the session's transcript.
fn hook_event_device(dir: &Path) {
    hook_event(dir, "/dev/zero");
}

/// The lines that say how many input errors are not listed, and the totals.
const COUNTS: &[&str] = &["not listed", "input error"];

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

cases! {
    // A trace, then 40 MB of lines that are not JSON: the first 100 input errors, then a count,
    // in every output format, in bounded memory.
    bad_lines_text => Case::new("bad-lines-text", &["check", "bad-lines.jsonl", "--tools", "tools.json"]).setup(bad_lines).max_rss(BOUNDED_RSS).grep(COUNTS);
    bad_lines_json => Case::new("bad-lines-json", &["check", "bad-lines.jsonl", "--tools", "tools.json", "--output-format", "json"]).setup(bad_lines).max_rss(BOUNDED_RSS).grep(&["not listed", "\"input_errors\": ", "\"line\": 101,", "\"line\": 102,"]);
    bad_lines_sarif => Case::new("bad-lines-sarif", &["check", "bad-lines.jsonl", "--tools", "tools.json", "--output-format", "sarif"]).setup(bad_lines).max_rss(BOUNDED_RSS).grep(&["not listed"]);
    bad_lines_github => Case::new("bad-lines-github", &["check", "bad-lines.jsonl", "--tools", "tools.json", "--output-format", "github"]).setup(bad_lines).max_rss(BOUNDED_RSS).grep(&["not listed", "line=102,", "line=103,"]);
    bad_lines_html => Case::new("bad-lines-html", &["check", "bad-lines.jsonl", "--tools", "tools.json", "--html", "report.html", "--quiet"]).setup(bad_lines).max_rss(BOUNDED_RSS).grep(&["not listed"]).outputs(&["report.html"]);
    // Given to `--tools` by mistake: read as a trace to say so, its input errors capped there too.
    tools_bad_lines => Case::new("tools-bad-lines", &["check", "calls.json", "--tools", "bad-lines.jsonl"]).setup(bad_lines).max_rss(BOUNDED_RSS);
    // The same as a stream on standard input: read as it comes, never held whole.
    bad_lines_stream => Case::new("bad-lines-stream", &["check", "-", "--tools", "tools.json"]).stdin(Stdin::Feed(feed_bad_lines)).max_rss(BOUNDED_RSS).grep(COUNTS);
    // `report` over 20 MB of garbage, and over a stream of one line that is not a record.
    report_garbage => Case::new("report-garbage", &["report", "garbage.jsonl"]).setup(garbage).max_rss(BOUNDED_RSS).grep(COUNTS);
    report_stream => Case::new("report-stream", &["report", "-", "--output-format", "json"]).stdin(Stdin::Feed(feed_repeated_line)).max_rss(BOUNDED_RSS).grep(&["not listed", "\"input_errors\": "]);
    // Devices and named pipes where a file is read whole: refused at once.
    report_dev_zero => Case::new("report-dev-zero", &["report", "/dev/zero"]);
    report_dev_urandom => Case::new("report-dev-urandom", &["report", "/dev/urandom"]);
    report_fifo => Case::new("report-fifo", &["report", "pipe.jsonl"]).setup(make::fifos);
    config_dev_zero => Case::new("config-dev-zero", &["check", "calls.json", "--tools", "tools.json", "--config", "/dev/zero"]);
    expect_dev_zero => Case::new("expect-dev-zero", &["check", "calls.json", "--tools", "tools.json", "--expect", "/dev/zero"]);
    config_fifo => Case::new("config-fifo", &["check", "calls.json", "--tools", "tools.json", "--config", "pipe.json"]).setup(make::fifos);
    expect_fifo => Case::new("expect-fifo", &["check", "calls.json", "--tools", "tools.json", "--expect", "pipe.json"]).setup(make::fifos);
    baseline_fifo => Case::new("baseline-fifo", &["check", "calls.json", "--tools", "tools.json", "--baseline", "pipe.json"]).setup(make::fifos);
    found_config_baseline_stdin => Case::new("found-config-baseline-stdin", &["check", "calls.json", "--tools", "tools.json"]).setup(config_baseline_stdin).stdin(Stdin::Hold);
    // No output replaces a file the run reads, by any path: a hard link, a symlink, standard
    // input, the tools file, the found config, an expectations file, a shard.
    output_over_hard_link => Case::new("output-over-hard-link", &["check", "calls.json", "--tools", "tools.json", "--json", "link.json"]).setup(hard_link).grep(&["error", "run_id"]).outputs(&["calls.json"]);
    output_over_symlink => Case::new("output-over-symlink", &["check", "calls.json", "--tools", "tools.json", "--html", "alias.json"]).setup(symlink).grep(&["error", "run_id"]).outputs(&["calls.json"]);
    output_over_stdin => Case::new("output-over-stdin", &["check", "-", "--tools", "tools.json", "--json", "/dev/stdin"]).stdin(Stdin::File("calls.json")).grep(&["error", "run_id"]).outputs(&["calls.json"]);
    output_over_tools => Case::new("output-over-tools", &["check", "calls.json", "--tools", "tools.json", "--sarif", "./tools.json"]).grep(&["error", "\"search\""]).outputs(&["tools.json"]);
    output_over_found_config => Case::new("output-over-found-config", &["check", "calls.json", "--tools", "tools.json", "--text", "tracelint.toml"]).setup(config).outputs(&["tracelint.toml"]);
    output_over_expectations => Case::new("output-over-expectations", &["check", "calls.json", "--tools", "tools.json", "--expect", "e.toml", "--json", "e.toml"]).setup(expectations).outputs(&["e.toml"]);
    output_over_shard => Case::new("output-over-shard", &["report", "shard.jsonl", "--json", "shard.jsonl"]).setup(shard).grep(&["error", "\"run\""]).outputs(&["shard.jsonl"]);
    output_over_shard_sarif => Case::new("output-over-shard-sarif", &["report", "shard.jsonl", "--sarif", "./shard.jsonl"]).setup(shard).grep(&["error", "\"run\""]).outputs(&["shard.jsonl"]);
    output_over_shard_html => Case::new("output-over-shard-html", &["report", "shard.jsonl", "--html", "link.jsonl"]).setup(shard_and_link).grep(&["error", "\"run\""]).outputs(&["shard.jsonl"]);
    // Linting a directory again with the report written inside it: the old report is not an
    // input, and the run succeeds.
    // What an error echoes back is escaped and cut: a config value, an argument.
    config_value_escaped => Case::new("config-value-escaped", &["check", "calls.json", "--tools", "tools.json"]).setup(config_escapes);
    explain_argument_escaped => Case::new("explain-argument-escaped", &["explain", "R\u{1b}]8;;https://evil.example\u{7}1\u{1b}]8;;\u{7}\u{202e}\u{2029}"]);
    proxy_max_line_zero => Case::new("proxy-max-line-zero", &["mcp", "proxy", "--max-line", "0", "--", "true"]);
    // 10,000 ignores over 100,000 findings: matched per rule, tool and field, not per finding.
    many_ignores => Case::new("many-ignores", &["check", "many-findings.jsonl", "--tools", "tools.json", "--max-findings", "3"]).setup(ten_thousand_ignores).grep(&["hard_defect", "ignored"]);
    // `init` and `infer` list input errors the same way, in bounded memory.
    init_bad_lines => Case::new("init-bad-lines", &["init", "bad-lines.jsonl", "-o", "starter.json"]).setup(bad_lines).max_rss(BOUNDED_RSS).grep(COUNTS);
    infer_bad_lines => Case::new("infer-bad-lines", &["infer", "bad-lines.jsonl", "-o", "inferred.json"]).setup(bad_lines).max_rss(BOUNDED_RSS).grep(&["not listed", "OK", "bug"]);
    // Partly unreadable input: the schema still validates what was read; no "bug in infer".
    infer_partly_unreadable => Case::new("infer-partly-unreadable", &["infer", "mixed.jsonl", "-o", "inferred.json"]).setup(partly_unreadable);
    // `init --force` and `mcp pin` never replace what they read either.
    init_over_input => Case::new("init-over-input", &["init", "calls.json", "-o", "./calls.json", "--force"]).grep(&["error", "run_id"]).outputs(&["calls.json"]);
    init_over_tools => Case::new("init-over-tools", &["init", "calls.json", "--tools", "tools.json", "-o", "link.json", "--force"]).setup(hard_link_tools).grep(&["error", "\"search\""]).outputs(&["tools.json"]);
    pin_over_source => Case::new("pin-over-source", &["mcp", "pin", "tools.json", "-o", "./tools.json"]).grep(&["error", "\"search\""]).outputs(&["tools.json"]);
    // A stored Claude Code tool result is read only from a regular file in a `tool-results/`
    // folder: a named pipe there is not waited on, a secret the session names is not read.
    stored_result_fifo => Case::new("stored-result-fifo", &["check", "claude/8c2fe29d-4fb3-446a-90f0-e1d1416fe640.jsonl"]).setup(stored_fifo).grep(&["stored", "exit"]);
    stored_result_elsewhere => Case::new("stored-result-elsewhere", &["check", "claude/8c2fe29d-4fb3-446a-90f0-e1d1416fe640.jsonl", "--include-candidates"]).setup(stored_elsewhere).grep(&["stored", "hunter2"]);
    // Lines ended by a carriage return alone: a hint to convert them.
    cr_only_lines => Case::new("cr-only-lines", &["check", "cr.jsonl", "--tools", "tools.json"]).setup(cr_only);
    // Coverage counts at the largest integer, from two shards: summed without wrapping, and the
    // page's percentages computed without overflow.
    report_huge_coverage => Case::new("report-huge-coverage", &["report", "huge-coverage.jsonl", "huge-coverage-2.jsonl", "--html", "report.html"]).setup(huge_coverage).grep(&["coverage: R1", ">R1<"]).outputs(&["report.html"]);
    // U+2028, U+2029 and U+0085 leave every JSON output escaped (a JSON Lines record is never
    // cut by a reader splitting lines the Unicode way).
    separators_json_lines => Case::new("separators-json-lines", &["check", "separators.json", "--tools", "tools.json", "--output-format", "json-lines", "--include-candidates"]).setup(separators).grep(&["zq"]);
    separators_sarif => Case::new("separators-sarif", &["check", "separators.json", "--tools", "tools.json", "--output-format", "sarif", "--include-candidates"]).setup(separators).grep(&["zq"]);
    separators_doctor_json => Case::new("separators-doctor-json", &["doctor", "separators.json", "--tools", "tools.json", "--output-format", "json"]).setup(separators).grep(&["zq"]);
    separators_scorecard_json => Case::new("separators-scorecard-json", &["scorecard", "--recorded", "runs", "--oracle", "o\u{2028}.toml", "--output-format", "json"]).setup(recorded_with_oracle).grep(&["oracle"]);
    separators_text => Case::new("separators-text", &["check", "separators.json", "--tools", "tools.json", "--include-candidates"]).setup(separators).grep(&["zq"]);
    // A hook's transcript is opened like every other file: a named pipe or a device is refused
    // at once (said once on stderr, the agent not held up; `--strict`: the command's error).
    hook_transcript_fifo => Case::new("hook-transcript-fifo", &["hook", "claude-code", "--state-dir", "state"]).setup(hook_event_fifo).stdin(Stdin::File("event.json"));
    hook_transcript_device => Case::new("hook-transcript-device", &["hook", "claude-code", "--strict", "--state-dir", "state"]).setup(hook_event_device).stdin(Stdin::File("event.json")).max_rss(BOUNDED_RSS);
    // Memory follows what is still to be written, not the number of traces in a file.
    many_otel_traces_in_one_file => Case::new("many-otel-traces-in-one-file", &["check", "many-traces.otlp.json", "--tools", "tools.json"]).setup(many_otel_traces).max_rss(96 << 20);
    // `doctor` keeps what findings count for, not the findings: 30,000 of them stay in bounded
    // memory (keeping them took about 160 MiB).
    doctor_many_findings => Case::new("doctor-many-findings", &["doctor", "many-findings.jsonl", "--tools", "tools.json", "--json"]).setup(many_findings).max_rss(96 << 20).grep(&["\"traces\"", "\"tool_calls\""]);
    own_report_in_walked_directory => Case::new("own-report-in-walked-directory", &["check", "runs", "--tools", "tools.json", "--json", "runs/report.json"]).setup(runs_with_own_report);
}
