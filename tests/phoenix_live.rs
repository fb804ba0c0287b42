//! `tracelint check phoenix:…` against a real Arize Phoenix server, started here on loopback
//! with its SQLite database in a temporary folder, fed by the real OpenTelemetry SDK through its
//! OTLP/HTTP exporter with OpenInference attributes (`tests/phoenix/emit_trace.py`: one agent
//! trace with a planted schema violation and a tool error), and read back through Phoenix's own
//! Python client (`tests/phoenix/read_annotations.py`).
//!
//! The peers (arize-phoenix, the OpenTelemetry SDK and exporter, OpenInference's conventions,
//! pinned in `scripts/phoenix-peers.txt`) live in the venv `scripts/test` makes, found through
//! `TRACELINT_PHOENIX_VENV`. Missing, the test is skipped with a notice, or fails under
//! `scripts/test` (`TRACELINT_FULL_TEST`).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The venv's bin folder, or `None` (skip).
fn venv_bin() -> Option<PathBuf> {
    let bin = std::env::var_os("TRACELINT_PHOENIX_VENV")
        .filter(|v| !v.is_empty())
        .map(|v| PathBuf::from(v).join("bin"));
    let found = bin.filter(|b| b.join("phoenix").is_file() && b.join("python").is_file());
    if found.is_none() {
        assert!(
            std::env::var_os("TRACELINT_FULL_TEST").is_none(),
            "TRACELINT_FULL_TEST is set but the Phoenix venv is missing: run ./scripts/test, which installs scripts/phoenix-peers.txt into TRACELINT_PHOENIX_VENV"
        );
        #[allow(clippy::print_stderr)]
        {
            eprintln!("skipped: arize-phoenix is missing (./scripts/test installs it)");
        }
    }
    found
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap()
}

/// The server; killed when dropped.
struct Phoenix {
    child: Child,
    url: String,
    log: PathBuf,
}

impl Drop for Phoenix {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Phoenix {
    fn start(bin: &Path, dir: &Path) -> Phoenix {
        let (port, grpc) = (free_port(), free_port());
        let log = dir.join("phoenix.log");
        let child = Command::new(bin.join("phoenix"))
            .arg("serve")
            .env("PHOENIX_WORKING_DIR", dir.join("phoenix"))
            .env("PHOENIX_HOST", "127.0.0.1")
            .env("PHOENIX_PORT", port.to_string())
            .env("PHOENIX_GRPC_PORT", grpc.to_string())
            .env("PHOENIX_TELEMETRY_ENABLED", "false")
            .env_remove("PHOENIX_SQL_DATABASE_URL")
            .env_remove("PHOENIX_COLLECTOR_ENDPOINT")
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&log).unwrap())
            .stderr(std::fs::File::create(dir.join("phoenix.err")).unwrap())
            .spawn()
            .expect("start phoenix serve");
        let mut server = Phoenix {
            child,
            url: format!("http://127.0.0.1:{port}"),
            log,
        };
        server.wait_until(
            Duration::from_secs(180),
            "the server to answer /healthz",
            |s| {
                Command::new("curl")
                    .args(["-sf", "-o", "/dev/null", &format!("{}/healthz", s.url)])
                    .status()
                    .is_ok_and(|st| st.success())
            },
        );
        server
    }

    fn wait_until(&mut self, limit: Duration, what: &str, mut ready: impl FnMut(&Self) -> bool) {
        let start = Instant::now();
        while !ready(self) {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("phoenix exited ({status}) before {what}:\n{}", self.logs());
            }
            assert!(
                start.elapsed() < limit,
                "no {what} within {limit:?}:\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    fn logs(&self) -> String {
        let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
        let all = read(&self.log) + &read(&self.log.with_file_name("phoenix.err"));
        let tail: Vec<&str> = all.lines().rev().take(40).collect();
        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
    }
}

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/phoenix")
        .join(name)
}

fn emit(bin: &Path, endpoint: &str, project: &str) -> Value {
    let out = Command::new(bin.join("python"))
        .arg(script("emit_trace.py"))
        .args([endpoint, project])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "emit_trace.py failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn tracelint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(args)
        .env_remove("PHOENIX_API_KEY")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CI")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

/// One annotation as read back: (span id, identifier, label, rule).
type Note = (String, String, String, String);

/// Phoenix's Python client, started once (it imports all of Phoenix, which takes seconds).
struct Reader {
    child: Child,
    out: BufReader<ChildStdout>,
}

impl Drop for Reader {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Reader {
    fn start(bin: &Path) -> Reader {
        let mut child = Command::new(bin.join("python"))
            .arg(script("read_annotations.py"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        Reader { child, out }
    }

    /// Every annotation on the project's spans, their own ids, and how many spans it holds.
    fn read(&mut self, url: &str, project: &str) -> (Vec<Note>, Vec<String>, usize) {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{url} {project}").unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        self.out.read_line(&mut line).unwrap();
        let read: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("read_annotations.py: {e} in {line:?}"));
        let spans = read["spans"].as_array().unwrap().len();
        let list = read["annotations"].as_array().unwrap();
        let s = |a: &Value, k: &str| a[k].as_str().unwrap_or_default().to_owned();
        (
            list.iter()
                .map(|a| {
                    (
                        s(a, "span_id"),
                        s(a, "identifier"),
                        s(a, "label"),
                        s(a, "rule"),
                    )
                })
                .collect(),
            list.iter().map(|a| s(a, "id")).collect(),
            spans,
        )
    }
}

#[test]
fn check_reads_phoenix_and_writes_findings_back_once() {
    let Some(bin) = venv_bin() else { return };
    let dir = tempfile::tempdir().unwrap();
    // The client imports while the server starts.
    let mut reader = Reader::start(&bin);
    let mut server = Phoenix::start(&bin, dir.path());
    let project = "tracelint test";
    let sent = emit(&bin, &format!("{}/v1/traces", server.url), project);
    let id = |name: &str| sent["spans"][name].as_str().unwrap().to_owned();
    // Phoenix inserts spans in the background: wait until all five are in.
    server.wait_until(Duration::from_secs(60), "the five spans stored", |s| {
        let out = Command::new("curl")
            .args([
                "-sf",
                &format!("{}/v1/projects/tracelint%20test/spans", s.url),
            ])
            .output()
            .unwrap();
        serde_json::from_slice::<Value>(&out.stdout)
            .is_ok_and(|v| v["data"].as_array().is_some_and(|d| d.len() == 5))
    });
    let input = format!("phoenix:{}/projects/{}", server.url, "tracelint%20test");

    // Read and lint: the planted R1 on `get_weather`, the R2a on `fetch_page`, nothing written.
    let out = tracelint(&["check", &input, "--output-format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let hard: Vec<(String, String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["tier"] != "candidate")
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap_or_default().to_owned();
            (s("rule"), s("tool"), s("file"))
        })
        .collect();
    assert_eq!(
        hard,
        [
            ("R2a".into(), "fetch_page".into(), input.clone()),
            ("R1".into(), "get_weather".into(), input.clone()),
        ]
    );
    let (none, _, spans) = reader.read(&server.url, project);
    assert_eq!((none.len(), spans), (0, 5));

    // Write back: one annotation on each of exactly those two spans.
    let out = tracelint(&["check", &input, "--write-back"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("wrote 2 `tracelint` annotations on 2 spans"),
        "{stderr}"
    );
    let (first, first_ids, _) = reader.read(&server.url, project);
    let mut expected = vec![
        (
            id("get_weather"),
            "tracelint:R1:1".to_owned(),
            "hard_defect".to_owned(),
            "R1".to_owned(),
        ),
        (
            id("fetch_page"),
            "tracelint:R2a:1".to_owned(),
            "hard_event".to_owned(),
            "R2a".to_owned(),
        ),
    ];
    expected.sort();
    assert_eq!(first, expected);

    // A second run adds none: the same annotations, updated in place.
    let out = tracelint(&["check", &input, "--write-back", "--quiet"]);
    assert_eq!(out.status.code(), Some(2));
    let (second, second_ids, _) = reader.read(&server.url, project);
    assert_eq!((second, second_ids), (first, first_ids));

    // The window: spans that started in the future are none, and that is said (exit 3).
    let out = tracelint(&["check", &input, "--since", "2999-01-01"]);
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("holds no span between 2999-01-01"),
        "{stderr}"
    );
    let out = tracelint(&[
        "check",
        &input,
        "--until",
        "2999-01-01",
        "--output-format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(2));

    // A project Phoenix does not have: the server's answer, exit 3.
    let missing = format!("phoenix:{}/projects/no-such-project", server.url);
    let out = tracelint(&["check", &missing]);
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("404 Not Found from GET"), "{stderr}");
}
