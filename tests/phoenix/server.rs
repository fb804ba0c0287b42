//! A real Arize Phoenix server for the tests: started on loopback with its SQLite database in a
//! temporary folder, fed one agent trace through the real OpenTelemetry SDK's OTLP/HTTP exporter
//! (`emit_trace.py`: a planted schema violation and a tool error), its annotations read back
//! through Phoenix's own Python client (`read_annotations.py`). Shared by `tests/phoenix_live.rs`
//! (the command line) and `tests/distribution/phoenix_python.rs` (the Python module).
//!
//! The peers (pinned in `scripts/phoenix-peers.txt`) live in the venv `scripts/test` makes,
//! found through `TRACELINT_PHOENIX_VENV`.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The venv's bin folder, or `None` (skip).
pub(crate) fn venv_bin() -> Option<PathBuf> {
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

pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap()
}

/// The server; killed when dropped.
pub(crate) struct Phoenix {
    child: Child,
    pub(crate) url: String,
    log: PathBuf,
}

impl Drop for Phoenix {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Phoenix {
    pub(crate) fn start(bin: &Path, dir: &Path) -> Phoenix {
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

    /// Wait until `project` (its name as a URL path segment) holds `n` spans: Phoenix inserts
    /// spans in the background.
    pub(crate) fn wait_for_spans(&mut self, project: &str, n: usize) {
        self.wait_until(Duration::from_secs(60), "the spans stored", |s| {
            let out = Command::new("curl")
                .args(["-sf", &format!("{}/v1/projects/{project}/spans", s.url)])
                .output()
                .unwrap();
            serde_json::from_slice::<Value>(&out.stdout)
                .is_ok_and(|v| v["data"].as_array().is_some_and(|d| d.len() == n))
        });
    }

    pub(crate) fn wait_until(
        &mut self,
        limit: Duration,
        what: &str,
        mut ready: impl FnMut(&Self) -> bool,
    ) {
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

pub(crate) fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/phoenix")
        .join(name)
}

pub(crate) fn emit(bin: &Path, endpoint: &str, project: &str) -> Value {
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

/// One annotation as read back: (span id, identifier, label, rule).
pub(crate) type Note = (String, String, String, String);

/// Phoenix's Python client, started once (it imports all of Phoenix, which takes seconds).
pub(crate) struct Reader {
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
    pub(crate) fn start(bin: &Path) -> Reader {
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
    pub(crate) fn read(&mut self, url: &str, project: &str) -> (Vec<Note>, Vec<String>, usize) {
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

/// The annotations a write-back puts on the trace `emit` sent, sorted as `Reader::read` gives
/// them: (span id, identifier, label, rule) for the planted R1 on `get_weather` and R2a on
/// `fetch_page`.
pub fn planted_annotations(sent: &Value) -> Vec<(String, String, String, String)> {
    let id = |name: &str| sent["spans"][name].as_str().unwrap().to_owned();
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
    expected
}
