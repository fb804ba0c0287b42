//! Read-only and offline guarantees (SPEC §9, issue 11) on the real binary.
//!
//! - Read-only: every command that reads inputs — `check` in every output format with every side
//!   output, `infer` to stdout and with `-o` elsewhere — leaves each input's bytes and mtime as
//!   they were.
//! - Offline: with `HTTP_PROXY`/`HTTPS_PROXY`/`ALL_PROXY` (both cases) pointing at a loopback
//!   listener that records every connection, the same commands plus schemas with `http://`
//!   `$ref`s and an `mcp-stdio:` server make no connection at all. A control run with an
//!   explicit `mcp-http:` URL does reach the listener, which proves the detector sees traffic.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

/// Inputs of every format, plus tools files (one with remote `$ref`s).
const INPUTS: &[&str] = &[
    "fixtures/quickstart/transcript.json",
    "fixtures/quickstart/tools.json",
    "fixtures/seed000/transcript.jsonl",
    "fixtures/seed000/tools.json",
    "fixtures/otel/two-traces.otlp.json",
    "fixtures/langfuse/refund-error.json",
    "fixtures/openai/request-with-tools.json",
    "fixtures/hostile/calls.json",
    "fixtures/hostile/tools-remote-ref.json",
    "fixtures/hostile/mcp/server.py",
];

const FORMATS: &[&str] = &["text", "json", "json-lines", "sarif", "html", "github"];

/// Copy the inputs into `dir`, keeping their relative paths.
fn lay_out(dir: &Path) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    INPUTS
        .iter()
        .map(|rel| {
            let to = dir.join(rel);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(root.join(rel), &to).unwrap();
            to
        })
        .collect()
}

/// Every command under test, as argument lists run from the inputs' directory; outputs go to
/// `out` (another directory).
fn commands(out: &Path) -> Vec<Vec<String>> {
    let o = |name: &str| out.join(name).to_string_lossy().into_owned();
    let mut all = Vec::new();
    let traces = [
        "fixtures/quickstart/transcript.json",
        "fixtures/seed000/transcript.jsonl",
        "fixtures/otel/two-traces.otlp.json",
        "fixtures/langfuse/refund-error.json",
        "fixtures/openai/request-with-tools.json",
        "fixtures/hostile/calls.json",
    ];
    for (i, format) in FORMATS.iter().enumerate() {
        let mut args: Vec<String> = vec!["check".into()];
        args.extend(traces.iter().map(|t| (*t).to_owned()));
        args.extend(
            [
                "--tools",
                "fixtures/quickstart/tools.json",
                "--tools",
                "fixtures/hostile/tools-remote-ref.json",
                "--output-format",
                format,
                "--json",
                &o(&format!("r{i}.json")),
                "--sarif",
                &o(&format!("r{i}.sarif")),
                "--html",
                &o(&format!("r{i}.html")),
            ]
            .map(str::to_owned),
        );
        all.push(args);
    }
    all.push(
        [
            "check",
            "fixtures",
            "--tools",
            "mcp-stdio:python3 fixtures/hostile/mcp/server.py escapes",
            "--json",
            &o("mcp.json"),
        ]
        .map(str::to_owned)
        .to_vec(),
    );
    all.push(
        [
            "infer",
            "fixtures/seed000/transcript.jsonl",
            "fixtures/quickstart/transcript.json",
        ]
        .map(str::to_owned)
        .to_vec(),
    );
    all.push(
        [
            "infer",
            "fixtures/seed000/transcript.jsonl",
            "-o",
            &o("inferred.json"),
        ]
        .map(str::to_owned)
        .to_vec(),
    );
    all
}

fn run(dir: &Path, args: &[String], env: &[(&str, String)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tracelint"));
    cmd.args(args)
        .current_dir(dir)
        .env_remove("CLICOLOR_FORCE")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .env("NO_COLOR", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run tracelint")
}

/// Content and mtime of a file.
fn state(p: &Path) -> (Vec<u8>, SystemTime) {
    let bytes = std::fs::read(p).unwrap();
    let mtime = std::fs::metadata(p).unwrap().modified().unwrap();
    (bytes, mtime)
}

#[test]
fn inputs_are_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let inputs = lay_out(dir.path());
    // Old mtimes, so a rewrite within the same clock tick would still show.
    let before: Vec<_> = inputs.iter().map(|p| state(p)).collect();
    std::thread::sleep(Duration::from_millis(20));
    for args in commands(out.path()) {
        let o = run(dir.path(), &args, &[]);
        assert!(
            o.status.code().is_some_and(|c| c <= 3),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    for (p, b) in inputs.iter().zip(&before) {
        assert!(state(p) == *b, "{} changed", p.display());
    }
    // The side outputs were written, where they were asked for.
    for f in [
        "r0.json",
        "r3.sarif",
        "r4.html",
        "mcp.json",
        "inferred.json",
    ] {
        assert!(out.path().join(f).is_file(), "{f} missing");
    }
    // Nothing else appeared next to the inputs.
    let mut names = Vec::new();
    walk(dir.path(), &mut names);
    names.sort();
    let mut want: Vec<PathBuf> = INPUTS.iter().map(|r| dir.path().join(r)).collect();
    want.sort();
    assert_eq!(names, want);
}

fn walk(d: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(d).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// A loopback listener that counts connections (answering each with a 502) until dropped.
struct Recorder {
    port: u16,
    hits: Arc<AtomicUsize>,
}

impl Recorder {
    fn start() -> Recorder {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let hits = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&hits);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                seen.fetch_add(1, Ordering::SeqCst);
                let mut s = &stream;
                let _ = std::io::Write::write_all(
                    &mut s,
                    b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
            }
        });
        Recorder { port, hits }
    }

    fn env(&self) -> Vec<(&'static str, String)> {
        let url = format!("http://127.0.0.1:{}", self.port);
        [
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "ALL_PROXY",
            "http_proxy",
            "https_proxy",
            "all_proxy",
        ]
        .into_iter()
        .map(|k| (k, url.clone()))
        .collect()
    }
}

#[test]
fn no_network_without_an_explicit_mcp_http_url() {
    let dir = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    lay_out(dir.path());
    let recorder = Recorder::start();
    for args in commands(out.path()) {
        let o = run(dir.path(), &args, &recorder.env());
        assert!(
            o.status.code().is_some_and(|c| c <= 3),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(
            recorder.hits.load(Ordering::SeqCst),
            0,
            "{args:?} made a network connection"
        );
    }
    // The remote `$ref` was seen and refused, not fetched.
    let report = std::fs::read_to_string(out.path().join("r0.json")).unwrap();
    assert!(
        report.contains("tracelint never fetches schemas from the network"),
        "{report}"
    );
    // Control: an explicit `mcp-http:` URL is the one thing that may reach the network, and the
    // proxy variables route it to the recorder.
    let o = run(
        dir.path(),
        &[
            "check".into(),
            "fixtures/hostile/calls.json".into(),
            "--tools".into(),
            "mcp-http:http://mcp.invalid/mcp".into(),
            "--mcp-timeout".into(),
            "5".into(),
        ],
        &recorder.env(),
    );
    assert_eq!(o.status.code(), Some(3));
    assert!(
        recorder.hits.load(Ordering::SeqCst) > 0,
        "the control run did not reach the recorder: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}
