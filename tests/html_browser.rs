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
    // The page says the exit code the demo gave, not that of the findings it plants.
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("· exit code 0 ·"),
        "the demo page's exit code"
    );
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

/// The real sessions of the combined run: the quickstart and three Claude Code sessions.
const REAL_RUN: &[&str] = &[
    "fixtures/quickstart/transcript.json",
    "fixtures/real/claude-code/erk-1b2fa935-2b3c-47c3-a234-caee199c619b.jsonl",
    "fixtures/real/claude-code/ccviewer-fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
    "fixtures/real/claude-code/erk-52bc43f3-2f5f-46f5-b693-bedf4ffd23db.jsonl",
];

/// `check` over `inputs` (Claude Code's built-in schemas and the quickstart's tools) writing the
/// HTML and JSON reports into `dir`; the JSON report.
fn check_html(dir: &Path, inputs: &[&str], name: &str) -> (PathBuf, serde_json::Value) {
    let html = dir.join(format!("{name}.html"));
    let json = dir.join(format!("{name}.json"));
    let out = Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .arg("check")
        .args(inputs)
        .args([
            "--tools",
            "builtin:claude-code",
            "--tools",
            "fixtures/quickstart/tools.json",
            "--quiet",
            "--html",
        ])
        .arg(&html)
        .arg("--json")
        .arg(&json)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(matches!(out.status.code(), Some(2 | 3)), "{out:?}");
    let report = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    (html, report)
}

/// Measure the page at `html` in Chromium with a `width`×`height` viewport: a copy of it whose
/// policy also allows one inline script, the probe (`body` of a function returning a JSON-able
/// value), run at the end of the page; what it returned, read back from the dumped DOM. The page
/// itself has no script; the probe only reads layout (and opens or focuses what it says). The copy
/// is shown in an iframe of exactly that size (`--dump-dom` keeps a window at least 500 px wide,
/// and its viewport smaller than the window), whose `srcdoc` shares the wrapper's origin, so the
/// probe can hand its answer to the wrapper's DOM.
fn probe(bin: &Path, html: &Path, (width, height): (u32, u32), body: &str) -> serde_json::Value {
    let page = std::fs::read_to_string(html).unwrap();
    let csp = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";
    assert!(
        page.contains(csp),
        "the page's policy changed: update the probe"
    );
    let script = format!(
        "<script>(function(){{var out=(function(){{{body}}})();var d=parent.document;var p=d.createElement('pre');p.id='probe-out';p.textContent=JSON.stringify(out);d.body.appendChild(p);}})();</script></body>"
    );
    let probed = page
        .replace(csp, &format!("{csp}; script-src 'unsafe-inline'"))
        .replace("</body>", &script);
    let dir = html.parent().unwrap();
    let copy = dir.join(format!(
        "probe-{}-{width}.html",
        html.file_stem().unwrap().to_string_lossy()
    ));
    let srcdoc = probed
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    std::fs::write(
        &copy,
        format!(
            "<!DOCTYPE html><html><body style=\"margin:0\"><iframe width=\"{width}\" height=\"{height}\" style=\"border:0;display:block\" srcdoc=\"{srcdoc}\"></iframe></body></html>"
        ),
    )
    .unwrap();
    let profile = dir.join(format!("profile-probe-{width}-{}", body.len()));
    let dom = run_chromium(
        bin,
        &profile,
        &[
            format!("--window-size={},{}", width + 200, height + 200),
            "--virtual-time-budget=5000".into(),
            "--dump-dom".into(),
            format!("file://{}", copy.display()),
        ],
    );
    let dom = String::from_utf8(dom).unwrap();
    let start = dom.find("<pre id=\"probe-out\">").expect("the probe ran") + 20;
    let end = dom[start..].find("</pre>").unwrap() + start;
    let text = dom[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// A screenshot of `html` at `width`×`height`, kept in `$TRACELINT_KEEP_SCREENSHOTS/NAME.png`
/// when that is set (to look at it); asserts it is a real picture.
fn screenshot(bin: &Path, html: &Path, (width, height): (u32, u32), name: &str) {
    let dir = html.parent().unwrap();
    let shot = dir.join(format!("{name}.png"));
    run_chromium(
        bin,
        &dir.join(format!("profile-{name}")),
        &[
            format!("--screenshot={}", shot.display()),
            format!("--window-size={width},{height}"),
            format!("file://{}", html.display()),
        ],
    );
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000);
    if let Some(keep) = std::env::var_os("TRACELINT_KEEP_SCREENSHOTS") {
        std::fs::create_dir_all(&keep).unwrap();
        std::fs::copy(&shot, Path::new(&keep).join(format!("{name}.png"))).unwrap();
    }
}

fn chromium_or_skip() -> Option<PathBuf> {
    let bin = chromium();
    if bin.is_none() {
        assert!(
            std::env::var_os("TRACELINT_FULL_TEST").is_none(),
            "TRACELINT_FULL_TEST is set but /usr/bin/chromium is missing: run ./scripts/test, which installs it"
        );
    }
    bin
}

/// Rules with active findings of `tier` in a JSON report, with their counts.
fn by_rule(report: &serde_json::Value, tier: &str) -> std::collections::BTreeMap<String, usize> {
    let mut out = std::collections::BTreeMap::new();
    for f in report["findings"].as_array().unwrap() {
        if f["tier"] == tier {
            *out.entry(f["rule"].as_str().unwrap().to_owned())
                .or_insert(0) += 1;
        }
    }
    out
}

#[test]
fn the_worst_first_table_leads_the_page_and_findings_are_collapsed_groups() {
    let Some(bin) = chromium_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (html, report) = check_html(dir.path(), REAL_RUN, "real");
    let candidates = by_rule(&report, "candidate");
    let hard = by_rule(&report, "hard_defect");
    // Not vacuous: the run has hard defects, and candidates of several rules.
    assert!(!hard.is_empty() && candidates.len() >= 2, "{candidates:?}");
    screenshot(&bin, &html, (1280, 900), "real-1280");
    let m = probe(
        &bin,
        &html,
        (1280, 900),
        r#"
        var worst = document.querySelector('table.worst');
        var wr = worst.getBoundingClientRect();
        var first = worst.querySelector('tbody tr').getBoundingClientRect();
        var h2 = [].map.call(document.querySelectorAll('main h2'), function (h) { return h.id; });
        var lh = parseFloat(getComputedStyle(document.body).lineHeight);
        var groups = [].map.call(document.querySelectorAll('details.group.candidate, details.group.hard_defect'), function (d) {
            return { open: d.open, height: d.getBoundingClientRect().height,
                     cls: d.classList.contains('hard_defect') ? 'hard_defect' : 'candidate',
                     count: parseInt(d.querySelector('.count').textContent.replace(/,/g, ''), 10),
                     rule: d.querySelector('.rule').textContent };
        });
        var shown = [].filter.call(document.querySelectorAll('.finding'),
            function (f) { return f.checkVisibility(); }).length;
        return { viewport: innerHeight, worst_top: wr.top, first_row_bottom: first.bottom,
                 headings: h2, line: lh, groups: groups, shown: shown,
                 rows: worst.querySelectorAll('tbody tr').length };
        "#,
    );
    assert_eq!(m["viewport"], 900);
    // The worst-first table is the first section of the page, its first row on the first screen.
    assert_eq!(m["headings"][0], "worst", "{m}");
    assert!(m["first_row_bottom"].as_f64().unwrap() <= 900.0, "{m}");
    assert!(m["rows"].as_u64().unwrap() >= 1);
    // Hard defects and candidates: closed groups, one line each, counting every finding.
    let groups = m["groups"].as_array().unwrap();
    let line = m["line"].as_f64().unwrap();
    for (tier, want) in [("hard_defect", &hard), ("candidate", &candidates)] {
        let mut got: std::collections::BTreeMap<String, usize> = Default::default();
        for g in groups.iter().filter(|g| g["cls"] == tier) {
            *got.entry(g["rule"].as_str().unwrap().to_owned())
                .or_default() += g["count"].as_u64().unwrap() as usize;
        }
        assert_eq!(&got, want, "{tier}");
    }
    for g in groups {
        assert_eq!(g["open"], false, "{g}");
        let h = g["height"].as_f64().unwrap();
        assert!(
            h < 2.0 * line + 16.0,
            "a collapsed group is {h} px high: {g}"
        );
    }
    assert_eq!(m["shown"], 0, "findings drawn before they are opened");
}

/// The generated corpus of 928 Claude Code sessions (`gen_corpus corpus DIR 100000 10`, the
/// 100k corpus `scripts/bench` measures): the page stays within 10 MB, says what it leaves to
/// the JSON report, opens with the worst-first table at the top of the first screen, and groups
/// every hard defect.
#[test]
fn a_corpus_of_928_sessions_makes_a_page_within_10_mb_led_by_the_worst_run() {
    let Some(bin) = chromium_or_skip() else {
        return;
    };
    let generator = std::path::Path::new(env!("CARGO_BIN_EXE_tracelint"))
        .parent()
        .unwrap()
        .join("examples/gen_corpus");
    if !generator.exists() {
        assert!(
            std::env::var_os("TRACELINT_FULL_TEST").is_none(),
            "build the corpus generator first: cargo build --example gen_corpus"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    let status = Command::new(&generator)
        .arg("corpus")
        .arg(&corpus)
        .args(["100000", "10"])
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let html = dir.path().join("corpus.html");
    let out = Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .arg("check")
        .arg(corpus.join("claude"))
        .arg("--tools")
        .arg(corpus.join("tools.json"))
        .arg("--html")
        .arg(&html)
        .args(["--output-format", "json"])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let sessions = std::fs::read_dir(corpus.join("claude")).unwrap().count();
    assert_eq!(sessions, 928);
    let hard = report["summary"]["hard_defect"].as_u64().unwrap();
    assert!(hard > 3000, "{hard}");
    let size = std::fs::metadata(&html).unwrap().len();
    assert!(size <= 10 << 20, "the page is {size} bytes");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("The JSON report (<code>--output-format json</code>) has every finding"));
    let m = probe(
        &bin,
        &html,
        (1280, 900),
        r#"
        var rows = [].map.call(document.querySelectorAll('table.worst tbody tr'), function (r) {
            return parseInt(r.querySelectorAll('td')[1].textContent.replace(/,/g, ''), 10);
        });
        var hd = document.querySelectorAll('details.group.hard_defect');
        var grouped = 0;
        hd.forEach(function (d) {
            grouped += parseInt(d.querySelector('.count').textContent.replace(/,/g, ''), 10);
        });
        var table = document.querySelector('table.worst');
        return { first: document.querySelector('main h2').id, rows: rows, hd_groups: hd.length,
                 grouped: grouped, open: document.querySelectorAll('details.group.hard_defect[open]').length,
                 top: table.getBoundingClientRect().top,
                 first_row_bottom: table.querySelector('tbody tr').getBoundingClientRect().bottom };
        "#,
    );
    assert_eq!(m["first"], "worst", "{m}");
    // The table starts in the top third of the first screen, its first row on it.
    assert!(m["top"].as_f64().unwrap() < 300.0, "{m}");
    assert!(m["first_row_bottom"].as_f64().unwrap() <= 900.0, "{m}");
    let rows: Vec<u64> = m["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert!(
        rows.windows(2).all(|w| w[0] >= w[1]),
        "worst first: {rows:?}"
    );
    // Thousands of hard defects, every one in a group, a few dozen groups, all closed.
    let groups = m["hd_groups"].as_u64().unwrap();
    assert!((1..=100).contains(&groups), "{m}");
    assert_eq!(m["grouped"].as_u64().unwrap(), hard, "{m}");
    assert_eq!(m["open"], 0, "{m}");
    screenshot(&bin, &html, (1280, 900), "corpus-1280");
}

#[test]
fn at_390_px_nothing_overflows_and_every_control_shows_a_focus_ring() {
    let Some(bin) = chromium_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // The real run plus inputs with suppressions, input errors and hostile text (long tokens).
    let mut inputs = REAL_RUN.to_vec();
    inputs.extend([
        "fixtures/cli/broken-middle.jsonl",
        "fixtures/cli/escape.json",
        "fixtures/reports/xss.json",
        "fixtures/cli/nope.json",
    ]);
    let (html, report) = check_html(dir.path(), &inputs, "narrow");
    assert!(report["summary"]["suppressions"].as_u64().unwrap() > 0);
    assert!(report["summary"]["input_errors"].as_u64().unwrap() > 0);
    screenshot(&bin, &html, (390, 2400), "narrow-390");
    let m = probe(
        &bin,
        &html,
        (390, 900),
        r#"
        // Everything open, so what a reader can expand is measured too.
        document.querySelectorAll('details').forEach(function (d) { d.open = true; });
        var w = document.documentElement.clientWidth;
        var wide = [];
        document.querySelectorAll('body *').forEach(function (e) {
            var r = e.getBoundingClientRect();
            if (r.width > 0 && r.right > w + 0.5 && wide.length < 10) {
                wide.push(e.tagName + '.' + e.className + ' ' + Math.round(r.right));
            }
        });
        var controls = document.querySelectorAll('a[href], summary, input, button, select, textarea, [tabindex]');
        var missing = [];
        controls.forEach(function (c) {
            c.focus();
            if (document.activeElement !== c) { missing.push('not focusable: ' + c.outerHTML.slice(0, 80)); return; }
            if (!c.matches(':focus-visible')) { missing.push('not focus-visible: ' + c.outerHTML.slice(0, 80)); return; }
            var shown = c.matches('input.filter') ? document.querySelector('label[for="' + c.id + '"]') : c;
            var s = getComputedStyle(shown);
            var ring = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2
                && s.outlineColor !== 'rgba(0, 0, 0, 0)' && shown.getClientRects().length > 0;
            if (!ring) { missing.push('no ring: ' + shown.outerHTML.slice(0, 80)); }
        });
        return { client: w, scroll: document.documentElement.scrollWidth, wide: wide,
                 controls: controls.length, missing: missing,
                 kinds: { links: document.querySelectorAll('a[href]').length,
                          summaries: document.querySelectorAll('summary').length,
                          filters: document.querySelectorAll('input.filter').length } };
        "#,
    );
    assert_eq!(m["client"], 390, "{m}");
    assert!(
        m["scroll"].as_u64().unwrap() <= 390 && m["wide"].as_array().unwrap().is_empty(),
        "horizontal overflow at 390 px: {m}"
    );
    // Not vacuous: links, summaries and the four filter chips were all tried.
    let kinds = &m["kinds"];
    assert!(kinds["links"].as_u64().unwrap() > 10 && kinds["summaries"].as_u64().unwrap() > 5);
    assert_eq!(kinds["filters"], 4);
    assert_eq!(m["missing"], serde_json::json!([]), "{m}");
}
