//! Bounded by construction (issue 47): input errors are listed up to a cap per input and then
//! counted, in every output format, files and streams alike, in bounded memory; no output may
//! replace a file the run reads, whatever path leads to it; every file read whole (config,
//! expectations, baseline, shards) must be a regular file, so a device or a named pipe is refused
//! at once instead of read for ever or waited on.

use std::io::Write;
use std::path::Path;

use super::{Case, Stdin, make, run};

/// Peak resident memory the runs over big bad inputs may reach (the bound).
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
    // Linting a directory again with the report written inside it: the old report is not an
    // input, and the run succeeds.
    // What an error echoes back is escaped and cut: a config value, an argument.
    config_value_escaped => Case::new("config-value-escaped", &["check", "calls.json", "--tools", "tools.json"]).setup(config_escapes);
    explain_argument_escaped => Case::new("explain-argument-escaped", &["explain", "R\u{1b}]8;;https://evil.example\u{7}1\u{1b}]8;;\u{7}\u{202e}\u{2029}"]);
    proxy_max_line_zero => Case::new("proxy-max-line-zero", &["mcp", "proxy", "--max-line", "0", "--", "true"]);
    // 10,000 ignores over 100,000 findings: matched per rule, tool and field, not per finding.
    many_ignores => Case::new("many-ignores", &["check", "many-findings.jsonl", "--tools", "tools.json", "--max-findings", "3"]).setup(ten_thousand_ignores).grep(&["hard_defect", "ignored"]);
    own_report_in_walked_directory => Case::new("own-report-in-walked-directory", &["check", "runs", "--tools", "tools.json", "--json", "runs/report.json"]).setup(runs_with_own_report);
}
