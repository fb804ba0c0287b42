//! Helpers for `tests/mcp_real.rs`: the peers installed by `scripts/mcp-peers.sh` (read from its
//! `peers.json`), the saved `tools/list` results in `fixtures/real/mcp/`, running the binary,
//! HTTP servers on free ports with a kill-on-drop guard, the `/proc` scan for leftovers, and the
//! two checks run per server: lint a trace through the binary, compare registries with the saved
//! results.

#![allow(dead_code, clippy::print_stderr)]

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tracelint::sources::{self, LoadOptions, SourceSpec, file};

/// One server from `peers.json`.
#[derive(Debug, Clone)]
pub(crate) struct Peer {
    pub(crate) name: String,
    pub(crate) argv: Vec<String>,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) url: Option<String>,
    pub(crate) tools: usize,
}

pub(crate) struct Peers {
    pub(crate) dir: PathBuf,
    pub(crate) stdio: Vec<Peer>,
    pub(crate) http: Vec<Peer>,
}

impl Peers {
    pub(crate) fn stdio(&self, name: &str) -> &Peer {
        self.stdio
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("no stdio peer `{name}` in peers.json"))
    }
    pub(crate) fn fixture(&self, file: &str) -> String {
        self.dir.join("fixtures").join(file).display().to_string()
    }
    /// The venv's Python: a real binary, quicker to start than a `python3` shim.
    pub(crate) fn python(&self) -> String {
        self.dir.join("py/bin/python").display().to_string()
    }
}

fn full_test() -> bool {
    std::env::var("TRACELINT_FULL_TEST").is_ok_and(|v| v == "1")
}

/// Skip (printing why) or, under `TRACELINT_FULL_TEST=1`, fail.
fn missing(what: &str) -> Option<Peers> {
    assert!(
        !full_test(),
        "{what}; TRACELINT_FULL_TEST=1 says every peer was installed (run ./scripts/test, which runs scripts/mcp-peers.sh)"
    );
    eprintln!("skipping the real-MCP tests: {what} (run ./scripts/test to install the servers)");
    None
}

/// The installed peers: `$TRACELINT_MCP_PEERS`, else the default cache folder.
pub(crate) fn peers() -> Option<Peers> {
    let path = match std::env::var_os("TRACELINT_MCP_PEERS") {
        Some(p) => PathBuf::from(p),
        None => {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))?;
            cache.join("tracelint/mcp-peers/peers.json")
        }
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        return missing(&format!("no MCP peers at {}", path.display()));
    };
    if !data_dir().is_dir() {
        return missing(&format!(
            "no saved tools/list results at {}",
            data_dir().display()
        ));
    }
    let v: Value = serde_json::from_str(&text).expect("peers.json is JSON");
    let list = |key: &str| -> Vec<Peer> {
        v[key]
            .as_array()
            .expect("peers.json lists peers")
            .iter()
            .map(|p| Peer {
                name: p["name"].as_str().unwrap().to_owned(),
                argv: p["argv"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| a.as_str().unwrap().to_owned())
                    .collect(),
                env: p["env"]
                    .as_object()
                    .map(|m| {
                        m.iter()
                            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
                            .collect()
                    })
                    .unwrap_or_default(),
                url: p["url"].as_str().map(str::to_owned),
                tools: p["tools"].as_u64().unwrap() as usize,
            })
            .collect()
    };
    Some(Peers {
        dir: PathBuf::from(v["dir"].as_str().unwrap()),
        stdio: list("stdio"),
        http: list("http"),
    })
}

/// `fixtures/real/mcp`.
pub(crate) fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/real/mcp")
}

/// The saved results for a server (`everything`, `time`, …): every era's file, pages merged.
pub(crate) fn saved_results(base: &str) -> Vec<(String, Vec<Value>)> {
    let mut out = Vec::new();
    for suffix in ["tools-list.json", "tools-list.2026-07-28.json"] {
        let file = format!("{base}.{suffix}");
        let Ok(text) = std::fs::read_to_string(data_dir().join(&file)) else {
            continue;
        };
        let v: Value = serde_json::from_str(&text).unwrap();
        let pages = match v.get("pages") {
            Some(Value::Array(p)) => p.clone(),
            _ => vec![v],
        };
        out.push((file, pages));
    }
    out
}

/// The saved tools of a server, in order.
pub(crate) fn saved_tools(base: &str) -> Vec<Value> {
    let (_, pages) = saved_results(base)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no saved tools/list for `{base}`"));
    pages
        .iter()
        .flat_map(|p| p["tools"].as_array().unwrap().clone())
        .collect()
}

/// The saved-data name of a peer (`py-v2-http` → `py-v2`).
pub(crate) fn data_name(peer: &str) -> &str {
    peer.strip_suffix("-http")
        .or_else(|| peer.strip_suffix("-sse"))
        .unwrap_or(peer)
}

/// The `mcp-stdio:` command line for a peer, with `extra` arguments.
pub(crate) fn command_line(p: &Peer, extra: &[&str]) -> String {
    let env = p
        .env
        .iter()
        .map(|(k, v)| format!("{k}={}", shlex::try_quote(v).unwrap()));
    let argv = p
        .argv
        .iter()
        .map(String::as_str)
        .chain(extra.iter().copied())
        .map(|a| shlex::try_quote(a).unwrap().into_owned());
    env.chain(argv).collect::<Vec<_>>().join(" ")
}

/// Run the binary (colour and CI variables scrubbed).
pub(crate) fn tracelint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CI")
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

/// `N` from the stderr note `…: N tools from …`.
pub(crate) fn noted_tool_count(stderr: &str) -> Option<usize> {
    stderr.lines().find_map(|l| {
        let rest = l.strip_prefix("note: mcp-")?;
        let after = rest.split("`: ").nth(1)?;
        after.split(' ').next()?.parse().ok()
    })
}

/// Processes whose command line contains `marker` (other than this test process).
pub(crate) fn processes_with(marker: &str) -> Vec<String> {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .map(|dir| {
            dir.filter_map(|e| {
                let e = e.ok()?;
                let pid = e.file_name().to_string_lossy().into_owned();
                if pid == me || !pid.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                let cmd = std::fs::read(e.path().join("cmdline")).ok()?;
                let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
                cmd.contains(marker).then(|| format!("{pid}: {cmd}"))
            })
            .collect()
        })
        .unwrap_or_default()
}

/// A marker unique to this run, for the `/proc` scan.
pub(crate) fn marker(case: &str) -> String {
    // Closed at both ends, so no marker is a prefix of another.
    format!("tlmark-{}-{case}-end", std::process::id())
}

/// A free loopback port (bound and released; the server takes it a moment later), never one
/// handed out before in this process: peers start in parallel, and two given the same port
/// would have one client talk to the other's server.
pub(crate) fn free_port() -> u16 {
    static GIVEN: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    let mut given = GIVEN.lock().unwrap_or_else(|e| e.into_inner());
    // A port given before stays bound here until a new one is found, so the kernel cannot hand
    // it out again meanwhile.
    let mut held = Vec::new();
    loop {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
        held.push(listener);
    }
}

/// An HTTP peer running on a free port; killed (its whole process group) on drop, even on panic.
pub(crate) struct HttpServer {
    child: Child,
    pub(crate) url: String,
}

impl HttpServer {
    pub(crate) fn start(p: &Peer) -> HttpServer {
        let port = free_port().to_string();
        let fill = |s: &str| s.replace("{PORT}", &port);
        let mut cmd = Command::new(fill(&p.argv[0]));
        cmd.args(p.argv[1..].iter().map(|a| fill(a)))
            .envs(p.env.iter().map(|(k, v)| (k.clone(), fill(v))))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", p.name));
        let server = HttpServer {
            child,
            url: fill(p.url.as_deref().expect("an HTTP peer has a url")),
        };
        let until = Instant::now() + Duration::from_secs(40);
        let addr = format!("127.0.0.1:{port}");
        while TcpStream::connect(&addr).is_err() {
            assert!(
                Instant::now() < until,
                "{} did not open port {port}",
                p.name
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        #[cfg(unix)]
        {
            use rustix::process::{Pid, Signal, kill_process_group};
            let _ = kill_process_group(Pid::from_child(&self.child), Signal::KILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Run `f` over `items` on `WORKERS` threads, collecting every failure before panicking once.
pub(crate) fn all_of<T: Sync>(
    items: &[T],
    name: impl Fn(&T) -> String + Sync,
    f: impl Fn(&T) -> Result<(), String> + Sync,
) {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    const WORKERS: usize = 4;
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..WORKERS.min(items.len()) {
            s.spawn(|| {
                while let Some(it) = items.get(next.fetch_add(1, Ordering::SeqCst)) {
                    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(it)));
                    let failure = match outcome {
                        Ok(Ok(())) => continue,
                        Ok(Err(e)) => e,
                        Err(p) => format!(
                            "panicked: {}",
                            p.downcast_ref::<String>()
                                .cloned()
                                .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                                .unwrap_or_default()
                        ),
                    };
                    failures
                        .lock()
                        .unwrap()
                        .push(format!("{}: {failure}", name(it)));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// A native trace with one call per case: a required string argument given as a number.
/// Returns the trace path and the R1 message expected, when the server has such a tool.
fn trace_for(dir: &std::path::Path, base: &str, file: &str) -> (String, Option<(String, String)>) {
    let bad = saved_tools(base).into_iter().find_map(|t| {
        let schema = &t["inputSchema"];
        let prop = schema["required"]
            .as_array()?
            .iter()
            .filter_map(Value::as_str)
            .find(|p| schema["properties"][*p]["type"] == json!("string"))?;
        Some((t["name"].as_str()?.to_owned(), prop.to_owned()))
    });
    let steps = match &bad {
        Some((tool, prop)) => {
            vec![json!({"type": "tool_call", "id": "c1", "name": tool, "args": {prop: 12345}})]
        }
        None => vec![],
    };
    let path = dir.join(format!("{file}.json"));
    let trace = json!({"run_id": base, "steps": steps, "final": "done"});
    std::fs::write(&path, trace.to_string()).unwrap();
    let expect =
        bad.map(|(tool, prop)| (tool, format!("/{prop}: 12345 is not of type \"string\"")));
    (path.display().to_string(), expect)
}

/// Lint a trace against `--tools SOURCE` and check the tool count and the R1 finding.
pub(crate) fn lint_against(source: &str, peer: &Peer, dir: &std::path::Path) -> Result<(), String> {
    let (base, expected_tools) = (data_name(&peer.name), peer.tools);
    let (trace, expect) = trace_for(dir, base, &peer.name);
    let out = tracelint(&[
        "check",
        &trace,
        "--tools",
        source,
        "--output-format",
        "json",
        "--mcp-timeout",
        "90",
        // The schema rules only: what the server's schemas decide (R3 would judge provenance
        // of the synthetic arguments, which is not what this test is about).
        "--select",
        "R1,R6,R7",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let saved = saved_tools(base).len();
    if saved != expected_tools {
        return Err(format!(
            "peers.json says {expected_tools} tools, the saved result {saved}"
        ));
    }
    match noted_tool_count(&stderr) {
        Some(n) if n == saved => {}
        other => {
            return Err(format!(
                "listed {other:?} tools, expected {saved}; stderr: {stderr}"
            ));
        }
    }
    // The paginating fixture serves 2 tools a page: every page must have been read.
    if base == "paginated" && !stderr.contains(", 3 pages)") {
        return Err(format!("expected 3 pages: {stderr}"));
    }
    let report: Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("{e}; stderr: {stderr}"))?;
    let findings = report["findings"].as_array().cloned().unwrap_or_default();
    match expect {
        Some((tool, message)) => {
            // Other required arguments may be missing too: the message lists every error, and
            // every finding is R1 on that tool.
            let hit = findings
                .iter()
                .any(|f| f["message"].as_str().is_some_and(|m| m.contains(&message)));
            let all_r1 = findings
                .iter()
                .all(|f| f["rule"] == json!("R1") && f["tool"] == json!(tool));
            if !hit || !all_r1 || out.status.code() != Some(2) {
                return Err(format!(
                    "expected one R1 `{message}` on `{tool}` and exit 2, got {:?}: {findings:#?}",
                    out.status.code()
                ));
            }
        }
        None if out.status.code() != Some(0) => {
            return Err(format!("exit {:?}: {stderr}", out.status.code()));
        }
        None => {}
    }
    // Environment values (often tokens) are not shown.
    let shown = match source.strip_prefix("mcp-stdio:") {
        Some(_) if !peer.env.is_empty() => {
            let env: Vec<String> = peer.env.iter().map(|(k, _)| format!("{k}=…")).collect();
            let bare = Peer {
                env: vec![],
                ..peer.clone()
            };
            format!("mcp-stdio:{} {}", env.join(" "), command_line(&bare, &[]))
        }
        _ => source.to_owned(),
    };
    let schemas = &report["inputs"][0]["schemas"];
    if schemas != &json!([shown]) {
        return Err(format!(
            "the report names the schema source {schemas}, expected [{shown:?}]"
        ));
    }
    Ok(())
}

/// The registry a live source gives equals the one every saved result (either era) gives.
pub(crate) fn same_registry_as_saved(spec: &SourceSpec, base: &str) -> Result<(), String> {
    let opts = LoadOptions {
        timeout: Duration::from_secs(90),
        ..LoadOptions::default()
    };
    let live = sources::load_with(spec, &opts)
        .map_err(|e| e.to_string())?
        .registry;
    let results = saved_results(base);
    if results.is_empty() {
        return Err(format!("no saved result for `{base}`"));
    }
    for (file_name, pages) in results {
        let saved = if pages.len() == 1 {
            // The saved reply as a `--tools` file source.
            let path = data_dir().join(&file_name).display().to_string();
            sources::load_with(&SourceSpec::File(path), &opts)
                .map_err(|e| e.to_string())?
                .registry
        } else {
            // `{"pages": [...]}` is our capture format, not a reply: each page is one.
            let mut merged = tracelint::ToolRegistry::new();
            for page in &pages {
                let r = file::parse_tools_value(page, &file_name).map_err(|e| e.to_string())?;
                merged.merge(r).map_err(|e| e.to_string())?;
            }
            merged
        };
        let names = |r: &tracelint::ToolRegistry| r.names().map(str::to_owned).collect::<Vec<_>>();
        if names(&live) != names(&saved) {
            return Err(format!(
                "{file_name}: tools differ: live {:?}, saved {:?}",
                names(&live),
                names(&saved)
            ));
        }
        for spec in saved.iter() {
            let other = live.get(&spec.name).unwrap();
            if !spec.same_contract(other) || spec.output_schema != other.output_schema {
                return Err(format!(
                    "{file_name}: `{}` differs:\nsaved {spec:?}\nlive {other:?}",
                    spec.name
                ));
            }
        }
    }
    Ok(())
}
