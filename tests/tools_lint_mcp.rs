//! `tracelint tools lint` against REAL MCP servers (the peers `scripts/mcp-peers.sh` installs,
//! found as `tests/mcp_real.rs` finds them): a live server, over stdio and over Streamable HTTP,
//! lints exactly like its saved `tools/list` result in `fixtures/real/mcp/` (same tools, same
//! findings; only the locations differ, a live reply having no file). Without the peers these
//! tests skip with a reason, except under `TRACELINT_FULL_TEST=1` (`./scripts/test`).

mod mcp_support;

use mcp_support::*;
use serde_json::Value;

/// `(tools, ["rule tool: message", …])` of a `tools lint --format json` run.
fn lint(source: &str) -> (u64, Vec<String>) {
    let out = tracelint(&["tools", "lint", "--no-config", "--format", "json", source]);
    assert!(
        matches!(out.status.code(), Some(0..=2)),
        "{source}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    let mut findings: Vec<String> = ["findings", "ignored"]
        .iter()
        .flat_map(|k| report[k].as_array().cloned().unwrap_or_default())
        .map(|f| format!("{} {}: {}", f["rule"], f["tool"], f["message"]))
        .collect();
    findings.sort();
    (report["summary"]["tools"].as_u64().unwrap_or(0), findings)
}

fn saved(name: &str) -> String {
    data_dir()
        .join(format!("{name}.tools-list.json"))
        .to_string_lossy()
        .into_owned()
}

#[test]
fn a_live_stdio_server_lints_like_its_saved_tools_list() {
    let Some(peers) = peers() else { return };
    for name in ["time", "everything", "py-v2", "memory"] {
        let live = lint(&format!(
            "mcp-stdio:{}",
            command_line(peers.stdio(name), &[])
        ));
        let file = lint(&saved(name));
        assert!(live.0 > 0, "{name}: no tools");
        assert_eq!(live, file, "{name}");
    }
}

#[test]
fn a_live_http_server_lints_like_its_saved_tools_list() {
    let Some(peers) = peers() else { return };
    let peer = peers
        .http
        .iter()
        .find(|p| p.name == "py-v2-http")
        .expect("peers.json has py-v2-http");
    let server = HttpServer::start(peer);
    let live = lint(&format!("mcp-http:{}", server.url));
    assert!(live.0 > 0);
    assert_eq!(live, lint(&saved("py-v2")));
}
