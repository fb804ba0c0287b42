//! What a user's program does with the library, using only documented items: lint a directory
//! with a rule selection and a fail-on, lint OTel spans held in memory, read a half-broken file
//! getting both its traces and its issues, and render a report. It checks what it gets and
//! exits non-zero (a panic) on anything unexpected; it prints one line per check.

use tracelint::{InputFormat, Linter, OutputFormat, RuleId, Tier};

fn main() {
    let root = std::env::args()
        .nth(1)
        .expect("usage: tracelint-outside REPO_ROOT");
    let root = std::path::Path::new(&root);
    let at = |p: &str| root.join(p).display().to_string();

    // 1. A directory, two rules, failing on hard events; each trace told as it is linted.
    let linter = Linter::builder()
        .tools(at("fixtures/quickstart/tools.json"))
        .select([RuleId::R1, RuleId::R2a])
        .fail_on(Tier::HardEvent)
        .jobs(2)
        .build()
        .expect("the linter builds");
    let mut told = Vec::new();
    let report = linter
        .lint_paths([at("fixtures/quickstart")], |t| {
            told.push((t.path.to_owned(), t.run_id.to_owned(), t.findings.len()));
        })
        .expect("the directory is linted");
    assert_eq!(told.len(), 1, "one trace in the quick start: {told:?}");
    assert!(!report.findings().is_empty());
    assert!(
        report
            .findings()
            .iter()
            .all(|f| matches!(f.rule(), RuleId::R1 | RuleId::R2a)),
        "only the selected rules report"
    );
    assert_eq!(
        told[0].2,
        report.findings().len(),
        "the callback saw every finding"
    );
    assert_eq!(report.exit().code(), 2, "an R1 hard defect: exit 2");
    println!(
        "directory: {} findings, exit {}",
        report.findings().len(),
        report.exit().code()
    );

    // 2. OTel spans held in memory.
    let spans = std::fs::read(at("fixtures/otel/two-traces.otlp.json")).expect("fixture");
    let report = Linter::builder()
        .build()
        .expect("a linter with no tools")
        .lint_bytes(&spans, "spans.json", Some(InputFormat::Otel));
    assert_eq!(report.summary().traces, 2);
    assert!(report.summary().tool_calls > 0);
    assert!(report.issues().is_empty());
    println!(
        "otel in memory: {} traces, {} calls, {} findings",
        report.summary().traces,
        report.summary().tool_calls,
        report.findings().len()
    );

    // 3. A half-broken file: its traces and its issues, together.
    let good =
        std::fs::read_to_string(at("fixtures/claude/session/sess-1.jsonl")).expect("fixture");
    let mut lines: Vec<&str> = good.lines().collect();
    lines.insert(3, r#"{"type": "user", broken"#);
    let dir = std::env::temp_dir().join(format!("tracelint-outside-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let half = dir.join("half.jsonl");
    std::fs::write(&half, lines.join("\n") + "\n").expect("write");
    let loaded = tracelint::load_traces(&half).expect("the file opens");
    assert_eq!(loaded.issues.len(), 1, "{:?}", loaded.issues);
    assert_eq!(loaded.issues[0].line, 4, "the broken line is line 4");
    assert!(!loaded.traces.is_empty(), "the rest of the file is read");
    assert!(loaded.traces.iter().all(|t| t.is_partial()));
    let registry =
        tracelint::ToolRegistry::from_file(at("fixtures/quickstart/tools.json")).expect("tools");
    let report = tracelint::lint_trace(&loaded.traces[0], &registry);
    println!(
        "half-broken: {} traces, {} issue at line {}, {} findings in the first trace",
        loaded.traces.len(),
        loaded.issues.len(),
        loaded.issues[0].line,
        report.findings().len()
    );
    std::fs::remove_dir_all(&dir).ok();

    // 4. Errors speak library, not flags.
    let err = Linter::builder()
        .tools(at("no/such.json"))
        .build()
        .unwrap_err();
    assert!(matches!(err, tracelint::Error::Tools { .. }), "{err}");
    assert!(!err.to_string().contains("--tools"), "{err}");
    println!(
        "error: {}",
        err.to_string().replace(&root.display().to_string(), "ROOT")
    );

    // 5. One call renders any format.
    let mut sarif = Vec::new();
    let report = linter
        .lint_paths([at("fixtures/quickstart/transcript.json")], |_| {})
        .expect("lint");
    report
        .render(OutputFormat::Sarif, &mut sarif)
        .expect("render");
    assert!(
        String::from_utf8(sarif)
            .expect("utf-8")
            .contains("\"version\": \"2.1.0\"")
    );
    println!("sarif: rendered");
}
