//! The baseline and its ratchet against the Python peer (`tracelint` 0.14, a black box run by
//! `scripts/reference-tracelint`), where the two agree: the same native traces and seed 002 tools
//! file go through the same adoption steps in both, and each step must end with the same exit
//! code and, where a finding is new, the same new finding (rule, tool). Known differences are
//! left out on purpose: the peer calls a tool never checked before "no longer checked" (we do
//! not), and the peer's R3 and candidate heuristics differ from ours.
//!
//! `scripts/test` installs the reference (and sets `TRACELINT_REFERENCE`); without it this test says
//! so and passes, unless `TRACELINT_FULL_TEST` is set.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

#[allow(clippy::print_stderr)]
fn peer() -> Option<PathBuf> {
    let run = std::env::var_os("TRACELINT_REFERENCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/reference-tracelint")
        });
    let ok = run.is_file()
        && Command::new(&run)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
    if ok {
        // Absolute: the checks run in a temporary folder.
        return Some(std::fs::canonicalize(&run).unwrap_or(run));
    }
    assert!(
        std::env::var_os("TRACELINT_FULL_TEST").is_none(),
        "the reference peer is missing ({}): scripts/test installs it",
        run.display()
    );
    eprintln!(
        "skipped: the reference peer is not installed ({})",
        run.display()
    );
    None
}

/// One trace: a lookup, a call that violates the schema (`reason` off the enum), a tool error.
fn trace(run_id: &str, call: &str, reason: &str) -> Value {
    json!({"run_id": run_id, "steps": [
        {"type": "message", "role": "user", "content": "cancel order 4521"},
        {"type": "tool_call", "call_id": format!("{call}-1"), "name": "get_order", "args": {"order_id": "4521"}},
        {"type": "tool_result", "call_id": format!("{call}-1"), "content": {"status": "processing"}, "status": "ok"},
        {"type": "tool_call", "call_id": format!("{call}-2"), "name": "cancel_order", "args": {"order_id": "4521", "reason": reason}},
        {"type": "tool_result", "call_id": format!("{call}-2"), "content": {"cancelled": true}, "status": "ok"}
    ]})
}

fn tools(with_cancel_schema: bool) -> Value {
    let mut t = json!({"tools": {
        "get_order": {"schema": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]},
                      "metadata": {"side_effecting": false}},
        "cancel_order": {"schema": {"type": "object",
                                     "properties": {"order_id": {"type": "string"}, "reason": {"enum": ["not_shipped", "customer_request"]}},
                                     "required": ["order_id", "reason"]},
                         "metadata": {"side_effecting": true, "failure_when": {"pointer": "/cancelled", "equals": false}}}
    }});
    if !with_cancel_schema {
        t["tools"]["cancel_order"]
            .as_object_mut()
            .unwrap()
            .remove("schema");
    }
    t
}

fn write_jsonl(path: &Path, traces: &[Value]) {
    let text: String = traces.iter().map(|t| format!("{t}\n")).collect();
    std::fs::write(path, text).unwrap();
}

struct Tool {
    name: &'static str,
    cmd: Vec<String>,
}

impl Tool {
    /// Run `check` in `dir`: exit code and the active findings at or above hard_defect as
    /// (rule, tool), sorted.
    fn check(&self, dir: &Path, extra: &[&str]) -> (Option<i32>, Vec<(String, String)>) {
        let json = dir.join(format!("{}.json", self.name));
        let _ = std::fs::remove_file(&json);
        let mut cmd = Command::new(&self.cmd[0]);
        cmd.args(&self.cmd[1..])
            .args(["check", "a.jsonl", "b.jsonl", "--tools", "tools.json"])
            .args(["--baseline", "baseline.json", "--json"])
            .arg(&json)
            .args(extra)
            .current_dir(dir)
            .env("NO_COLOR", "1");
        let out = cmd.output().expect("run");
        let report: Value = std::fs::read_to_string(&json)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null);
        let findings: Vec<&Value> = if self.name == "ours" {
            report["findings"]
                .as_array()
                .into_iter()
                .flatten()
                .collect()
        } else {
            report["reports"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|r| r["findings"].as_array().into_iter().flatten())
                .collect()
        };
        let mut new: Vec<(String, String)> = findings
            .iter()
            .filter(|f| f["tier"] == "hard_defect")
            .map(|f| {
                let tool = f["tool"]
                    .as_str()
                    .or_else(|| f["evidence"]["tool"].as_str())
                    .unwrap_or("")
                    .to_owned();
                (f["rule"].as_str().unwrap_or("").to_owned(), tool)
            })
            .collect();
        new.sort();
        assert!(
            out.status.code() != Some(3),
            "{}: exit 3\n{}{}",
            self.name,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code(), new)
    }
}

#[test]
fn the_adoption_steps_end_alike_in_both() {
    let Some(reference) = peer() else { return };
    let tools_under_test = [
        Tool {
            name: "ours",
            cmd: vec![env!("CARGO_BIN_EXE_tracelint").to_owned()],
        },
        Tool {
            name: "peer",
            cmd: vec![reference.display().to_string()],
        },
    ];
    for tool in &tools_under_test {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join(".git")).unwrap();
        std::fs::write(d.join("tools.json"), tools(true).to_string()).unwrap();
        write_jsonl(&d.join("a.jsonl"), &[trace("a1", "c", "bogus")]);
        write_jsonl(
            &d.join("b.jsonl"),
            &[
                trace("b1", "c", "customer_request"),
                trace("b2", "d", "wrong"),
            ],
        );
        let step = |name: &str, extra: &[&str], code: i32, new: &[(&str, &str)]| {
            let (got, findings) = tool.check(d, extra);
            let want: Vec<(String, String)> = new
                .iter()
                .map(|(r, t)| ((*r).to_owned(), (*t).to_owned()))
                .collect();
            assert_eq!(got, Some(code), "{}: {name}", tool.name);
            assert_eq!(findings, want, "{}: {name}", tool.name);
        };
        // The corpus has two schema violations; record them, then a run is clean.
        let (code, _) = tool.check(d, &["--update-baseline"]);
        assert_eq!(code, Some(0), "{}: update", tool.name);
        step("clean", &[], 0, &[]);
        // One more violation of the same key in a file: new (counts matter).
        write_jsonl(
            &d.join("a.jsonl"),
            &[trace("a1", "c", "bogus"), trace("a2", "e", "bogus")],
        );
        step("one more", &[], 2, &[("R1", "cancel_order")]);
        // Re-recorded with new run and call ids: the same findings, still clean.
        write_jsonl(&d.join("a.jsonl"), &[trace("a9", "zz", "bogus")]);
        write_jsonl(
            &d.join("b.jsonl"),
            &[
                trace("b7", "yy", "customer_request"),
                trace("b8", "xx", "wrong"),
            ],
        );
        step("re-recorded", &[], 0, &[]);
        // A schema deleted: a rule can no longer check a tool it checked: exit 1.
        std::fs::write(d.join("tools.json"), tools(false).to_string()).unwrap();
        step("schema deleted", &[], 1, &[]);
        step("no ratchet", &["--no-ratchet"], 0, &[]);
    }
}

/// A candidate recorded in the baseline that becomes a hard defect is new in both: R3 on an
/// order id nothing supplied, first undeclared, then declared `provided`.
#[test]
fn a_candidate_that_becomes_a_hard_defect_is_new_in_both() {
    let Some(reference) = peer() else { return };
    // Named by position, not by path: the peer may be `run.sh` or its installed executable.
    for (name, cmd) in [
        ("ours", vec![env!("CARGO_BIN_EXE_tracelint").to_owned()]),
        ("peer", vec![reference.display().to_string()]),
    ] {
        let tool = Tool { name, cmd };
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join(".git")).unwrap();
        let mut t = trace("a1", "c", "not_shipped");
        t["steps"][3]["args"]["order_id"] = "9999".into();
        write_jsonl(&d.join("a.jsonl"), &[t]);
        write_jsonl(&d.join("b.jsonl"), &[trace("b1", "c", "customer_request")]);
        std::fs::write(d.join("tools.json"), tools(true).to_string()).unwrap();
        let (code, _) = tool.check(d, &["--update-baseline", "--fail-on", "candidate"]);
        assert_eq!(code, Some(0), "{}: update", tool.name);
        let (code, new) = tool.check(d, &["--fail-on", "candidate"]);
        assert_eq!((code, new), (Some(0), vec![]), "{}: clean", tool.name);
        let mut provided = tools(true);
        provided["tools"]["cancel_order"]["value_origins"] = json!({"order_id": "provided"});
        std::fs::write(d.join("tools.json"), provided.to_string()).unwrap();
        let (code, new) = tool.check(d, &["--fail-on", "candidate"]);
        assert_eq!(
            (code, new),
            (Some(2), vec![("R3".to_owned(), "cancel_order".to_owned())]),
            "{}: candidate → hard_defect",
            tool.name
        );
    }
}
