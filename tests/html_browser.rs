//! The HTML report in a real browser: headless Chromium (Debian `chromium`, installed by
//! `scripts/test`) opens a report built from a trace whose tool name, arguments and messages are
//! markup and scripts, takes a screenshot, and dumps the DOM after load. The trace's markup must
//! come out as text: the title unchanged, no script node and no img element.
//! Without Chromium the test says so and passes, unless `TRACELINT_FULL_TEST=1`, where a missing
//! browser is a failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Chromium flags that work offline on the test machines (no background networking, fresh
/// profile, no sandbox as root).
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--hide-scrollbars",
];

fn chromium() -> Option<PathBuf> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// Run Chromium with a fresh profile and a time limit; its stdout.
fn run_chromium(bin: &Path, profile: &Path, extra: &[String]) -> Vec<u8> {
    let mut child = Command::new(bin)
        .args(FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut buf).map(|_| buf)
    });
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "chromium failed: {status}");
            break;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    reader.join().unwrap().unwrap()
}

fn title_of(dom: &str) -> &str {
    let start = dom.find("<title>").expect("a <title>") + "<title>".len();
    let end = dom[start..].find("</title>").expect("a </title>") + start;
    &dom[start..end]
}

#[test]
fn hostile_trace_content_renders_as_text_in_chromium() {
    let Some(bin) = chromium() else {
        assert!(
            std::env::var_os("TRACELINT_FULL_TEST").is_none(),
            "TRACELINT_FULL_TEST is set but /usr/bin/chromium is missing: run ./scripts/test, which installs it"
        );
        #[allow(clippy::print_stderr)]
        {
            eprintln!("skipped: no /usr/bin/chromium (./scripts/test installs it)");
        }
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("report.html");
    let out = Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args([
            "check",
            "fixtures/reports/xss.json",
            "--tools",
            "fixtures/rules/r1/tools.json",
            "--html",
        ])
        .arg(&html)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let source = std::fs::read_to_string(&html).unwrap();
    // The payload is in the file, escaped (so the DOM checks below are not vacuous).
    assert!(
        source.contains(r"&#60;img src=x onerror=\&#34;document.title="),
        "payload missing"
    );
    let url = format!("file://{}", html.display());

    let shot = dir.path().join("report.png");
    run_chromium(
        &bin,
        &dir.path().join("profile-shot"),
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1280,2200".into(),
            url.clone(),
        ],
    );
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000,
        "not a real screenshot"
    );
    if let Some(keep) = std::env::var_os("TRACELINT_KEEP_SCREENSHOT") {
        std::fs::copy(&shot, keep).unwrap();
    }

    let dom = run_chromium(
        &bin,
        &dir.path().join("profile-dom"),
        &[
            "--virtual-time-budget=2000".into(),
            "--dump-dom".into(),
            url,
        ],
    );
    let dom = String::from_utf8(dom).unwrap();
    assert!(dom.contains("</html>"), "no DOM dumped: {dom}");
    assert_eq!(title_of(&dom), "tracelint report", "the title changed");
    assert!(!dom.contains("<script"), "a script node in the DOM");
    assert!(!dom.contains("<img"), "an img element from the trace");
    assert!(!dom.contains("<b>run</b>"), "markup from the run id");
    // The payload is there, as text, where the evidence is rendered.
    assert!(
        dom.contains(r#"&lt;img src=x onerror=\"document.title='pwned'\"&gt;&lt;script&gt;"#),
        "the payload is not shown as text"
    );
    assert!(dom.contains("xss &lt;b&gt;run&lt;/b&gt;"));
}

#[test]
fn demo_page_opens_in_chromium_with_every_case_and_scorecard() {
    let Some(bin) = chromium() else {
        assert!(
            std::env::var_os("TRACELINT_FULL_TEST").is_none(),
            "TRACELINT_FULL_TEST is set but /usr/bin/chromium is missing: run ./scripts/test, which installs it"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("demo.html");
    let out = Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(["demo", "--runs", "10", "--html"])
        .arg(&html)
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let url = format!("file://{}", html.display());
    let shot = dir.path().join("demo.png");
    run_chromium(
        &bin,
        &dir.path().join("profile-shot"),
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1280,2400".into(),
            url.clone(),
        ],
    );
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000,
        "not a real screenshot"
    );
    let dom = run_chromium(
        &bin,
        &dir.path().join("profile-dom"),
        &[
            "--virtual-time-budget=2000".into(),
            "--dump-dom".into(),
            url,
        ],
    );
    let dom = String::from_utf8(dom).unwrap();
    assert_eq!(title_of(&dom), "tracelint demo");
    // Every case of the embedded suite, with its verdict, and both scorecards with every fault.
    let suite = tracelint::demo::suite().unwrap();
    for case in &suite.cases {
        assert!(
            dom.contains(&format!(r#"<td data-label="case">{}</td>"#, case.name)),
            "case {} missing from the page",
            case.name
        );
    }
    assert_eq!(
        dom.matches(r#"<td data-label="result" class="pass">PASS</td>"#)
            .count(),
        suite.cases.len()
    );
    for agent in ["robust", "buggy"] {
        assert!(
            dom.contains(&format!("Recovery scorecard, {agent} agent")),
            "{agent} scorecard missing"
        );
    }
    for fault in [
        "timeout",
        "error",
        "rate_limit",
        "malformed_json",
        "empty",
        "truncated",
        "wrong_schema",
        "denied",
    ] {
        assert_eq!(
            dom.matches(&format!(r#"<td data-label="fault">{fault}</td>"#))
                .count(),
            2,
            "fault {fault} not in both scorecards"
        );
    }
}
