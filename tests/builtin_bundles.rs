//! Every release captured: each built-in bundle (`data/<agent>-tools/bundle.json`) records in
//! `_meta.npm` the releases npm listed on the day it was last swept (`scripts/capture-tools
//! AGENT --minors` or `--npm-list`): the newest patch of every minor for Codex CLI and Gemini
//! CLI (scope `minors`), every release for Claude Code (scope `releases`). A listed release the
//! bundle holds no capture of is a gap unless `_meta.not_capturable` says why it could not be
//! captured (broken on npm, needs the network at start): the test tells "not capturable" from
//! "forgotten". The embedded sources must know every captured release, so a version string the
//! loader cannot read is not silently dropped.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;
use tracelint::sources::builtin::ClaudeCodeTools;
use tracelint::sources::builtin::codex::CodexTools;
use tracelint::sources::builtin::gemini::GeminiTools;

/// A bundle as the repository holds it.
fn bundle(agent: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(format!("{agent}-tools"))
        .join("bundle.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

/// A release's numbers, for ordering (`0.1.2505291658` → [0, 1, 2505291658]).
fn numbers(v: &str) -> Vec<u64> {
    v.split('.')
        .map(|p| {
            p.parse()
                .unwrap_or_else(|_| panic!("not a release number: {v:?}"))
        })
        .collect()
}

/// What is wrong with a bundle's record of npm: each listed release neither captured nor
/// explained (`gap 0.8.0`), each explanation of a release captured or never listed (`stale
/// 0.8.0`), and a malformed record (`npm: …`).
fn problems(bundle: &Value) -> Vec<String> {
    let meta = &bundle["_meta"];
    let Some(npm) = meta.get("npm") else {
        return vec!["npm: no _meta.npm".into()];
    };
    let mut out = Vec::new();
    let date = npm["date"].as_str().unwrap_or("");
    if date.len() != 10 || date.as_bytes()[4] != b'-' || date.as_bytes()[7] != b'-' {
        out.push(format!("npm: date {date:?} is not YYYY-MM-DD"));
    }
    let scope = npm["scope"].as_str().unwrap_or("");
    if !matches!(scope, "minors" | "releases") {
        out.push(format!("npm: scope {scope:?}"));
    }
    let listed: Vec<&str> = npm["releases"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if listed.is_empty() {
        out.push("npm: no releases".into());
    }
    for pair in listed.windows(2) {
        let (a, b) = (numbers(pair[0]), numbers(pair[1]));
        if a >= b {
            out.push(format!("npm: {} listed before {}", pair[0], pair[1]));
        } else if scope == "minors" && a[..2] == b[..2] {
            out.push(format!("npm: {} and {} are one minor", pair[0], pair[1]));
        }
    }
    let captured: BTreeSet<&str> = bundle["versions"]
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let explained: BTreeMap<&str, &str> = meta
        .get("not_capturable")
        .and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.as_str(), v.as_str().unwrap_or("").trim()))
                .collect()
        })
        .unwrap_or_default();
    for v in &listed {
        if !captured.contains(v) && explained.get(v).is_none_or(|why| why.is_empty()) {
            out.push(format!("gap {v}"));
        }
    }
    for v in explained.keys() {
        if captured.contains(v) || !listed.contains(v) {
            out.push(format!("stale {v}"));
        }
    }
    out
}

#[test]
fn codex_holds_every_minor_npm_listed() {
    assert_eq!(problems(&bundle("codex")), Vec::<String>::new());
}

#[test]
fn gemini_cli_holds_every_minor_npm_listed() {
    assert_eq!(problems(&bundle("gemini-cli")), Vec::<String>::new());
}

#[test]
fn claude_code_holds_every_release_npm_listed() {
    assert_eq!(problems(&bundle("claude-code")), Vec::<String>::new());
}

#[test]
fn codex_and_gemini_record_minors_claude_code_every_release() {
    for (agent, scope) in [
        ("codex", "minors"),
        ("gemini-cli", "minors"),
        ("claude-code", "releases"),
    ] {
        assert_eq!(bundle(agent)["_meta"]["npm"]["scope"], scope, "{agent}");
    }
}

#[test]
fn a_release_neither_captured_nor_explained_is_a_gap() {
    let mut b = bundle("codex");
    let listed: Vec<String> = b["_meta"]["npm"]["releases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    let middle = listed[listed.len() / 2].clone();
    b["versions"].as_object_mut().unwrap().remove(&middle);
    assert_eq!(problems(&b), vec![format!("gap {middle}")]);

    b["_meta"]["not_capturable"] = serde_json::json!({ middle.clone(): "  " });
    assert_eq!(
        problems(&b),
        vec![format!("gap {middle}")],
        "a blank reason"
    );

    b["_meta"]["not_capturable"] = serde_json::json!({ middle.clone(): "needs the network" });
    assert_eq!(problems(&b), Vec::<String>::new());

    let first = listed[0].clone();
    b["_meta"]["not_capturable"][first.as_str()] = "captured all the same".into();
    assert_eq!(problems(&b), vec![format!("stale {first}")]);
}

#[test]
fn a_malformed_record_is_reported() {
    let mut b = bundle("gemini-cli");
    let releases = b["_meta"]["npm"]["releases"].as_array_mut().unwrap();
    releases.swap(0, 1);
    let (a, c) = (releases[0].clone(), releases[1].clone());
    let problems_found = problems(&b);
    assert!(
        problems_found.contains(&format!(
            "npm: {} listed before {}",
            a.as_str().unwrap(),
            c.as_str().unwrap()
        )),
        "{problems_found:?}"
    );
    b["_meta"].as_object_mut().unwrap().remove("npm");
    assert_eq!(problems(&b), vec!["npm: no _meta.npm".to_owned()]);
}

#[test]
fn the_embedded_sources_know_every_captured_release() {
    let known: [(&str, BTreeSet<String>); 3] = [
        ("codex", CodexTools::get().versions().collect()),
        ("gemini-cli", GeminiTools::get().versions().collect()),
        ("claude-code", ClaudeCodeTools::get().versions().collect()),
    ];
    for (agent, known) in known {
        let captured: BTreeSet<String> = bundle(agent)["versions"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(known, captured, "{agent}");
    }
}

/// The values of a bundle's object `key` that equal an earlier one (by JSON value).
fn repeated<'a>(bundle: &'a Value, key: &str) -> Vec<&'a str> {
    let mut seen: Vec<&Value> = Vec::new();
    let mut out = Vec::new();
    for (hash, value) in bundle[key].as_object().into_iter().flatten() {
        if seen.contains(&value) {
            out.push(hash.as_str());
        }
        seen.push(value);
    }
    out
}

#[test]
fn identical_schemas_and_tool_sets_are_stored_once() {
    for agent in ["codex", "gemini-cli", "claude-code"] {
        let b = bundle(agent);
        assert_eq!(repeated(&b, "schemas"), Vec::<&str>::new(), "{agent}");
    }
    assert_eq!(
        repeated(&bundle("codex"), "toolsets"),
        Vec::<&str>::new(),
        "codex"
    );
}
