//! Acceptance 1, the adoption script: a corpus of real Claude Code sessions with findings, a
//! starter tools file from `tracelint init`, settings in `tracelint.toml` with the Python peer's
//! keys (`baseline`, `fail_on`) → `--update-baseline` → a clean run exits 0 → one new defect exits
//! 2 naming only it → a deleted schema trips the ratchet (exit 1, naming the lost coverage) →
//! `--no-ratchet` exits 0. Re-recording the sessions with new ids and timestamps leaves the
//! baseline byte for byte unchanged.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const SESSIONS: &str = "fixtures/real/claude-code";

struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    /// A repository holding the real sessions in `traces/`.
    fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        let traces = dir.path().join("traces");
        std::fs::create_dir(&traces).unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(SESSIONS);
        let mut n = 0;
        for entry in std::fs::read_dir(&src).expect("the real Claude Code sessions") {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".jsonl") && !name.starts_with("stream-json") {
                std::fs::copy(&path, traces.join(&name)).unwrap();
                n += 1;
            }
        }
        assert!(n >= 5, "{n} sessions in {}", src.display());
        Project { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn run(&self, args: &[&str]) -> (Option<i32>, String) {
        let out: Output = Command::new(env!("CARGO_BIN_EXE_tracelint"))
            .args(args)
            .current_dir(self.dir.path())
            .env("NO_COLOR", "1")
            .output()
            .expect("run tracelint");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code(), text)
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }
}

/// Finding lines of the text report (`FILE:LINE:COL: TIER RULE …`).
fn finding_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| {
            l.starts_with("traces/")
                && [" hard_defect ", " hard_event ", " candidate "]
                    .iter()
                    .any(|t| l.contains(t))
        })
        .collect()
}

/// The session with the new defect: a `Read` call without its required `file_path`, appended as
/// Claude Code writes an assistant line.
fn add_defect(project: &Project) -> (String, usize) {
    let name = "traces/erk-b2c8258b-cfa7-4411-82bd-b2817ab24b4d.jsonl";
    let text = project.read(name);
    let template = text
        .lines()
        .find(|l| l.contains(r#""name":"Read""#))
        .expect("a Read call");
    let mut line: Value = serde_json::from_str(template).unwrap();
    line["uuid"] = "0d7c3a52-5e8f-4c57-9a0b-6f1e2d3c4b5a".into();
    line["message"]["id"] = "msg_01NewDefectXXXXXXXXXXXXX".into();
    line["message"]["content"][0]["id"] = "toolu_01NewDefectXXXXXXXXXXX".into();
    line["message"]["content"][0]["input"] = serde_json::json!({"limit": 20});
    let mut out = text.clone();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&line.to_string());
    out.push('\n');
    std::fs::write(project.path(name), out).unwrap();
    (name.to_owned(), text.lines().count() + 1)
}

/// Rewrite every session as a re-recording would: new ids (uuids, message, request and tool-use
/// ids, mapped consistently) and later timestamps.
fn rerecord(project: &Project) {
    let mut map: HashMap<String, String> = HashMap::new();
    for entry in std::fs::read_dir(project.path("traces")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut out = String::new();
        for line in text.lines() {
            let mut v: Value = serde_json::from_str(line).unwrap();
            renew(&mut v, &mut map);
            out.push_str(&v.to_string());
            out.push('\n');
        }
        assert_ne!(out, text);
        std::fs::write(&path, out).unwrap();
    }
    assert!(map.len() > 100, "{} ids renewed", map.len());
}

fn renew(v: &mut Value, map: &mut HashMap<String, String>) {
    match v {
        Value::String(s) => {
            let is_uuid = s.len() == 36 && s.chars().filter(|c| *c == '-').count() == 4;
            let is_id = ["toolu_", "msg_", "req_", "call_"]
                .iter()
                .any(|p| s.starts_with(p) && s.len() > p.len() + 8 && !s.contains(' '));
            let is_time = s.len() == 24 && s.ends_with('Z') && s.as_bytes().get(10) == Some(&b'T');
            if is_uuid || is_id {
                let n = map.len();
                let new = map
                    .entry(s.clone())
                    .or_insert_with(|| format!("{}{n:08}", &s[..s.len() - 8]));
                *s = new.clone();
            } else if is_time {
                // A year later, the same time of day.
                let year: u32 = s[..4].parse().unwrap_or(2025);
                *s = format!("{}{}", year + 1, &s[4..]);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| renew(i, map)),
        Value::Object(m) => m.values_mut().for_each(|i| renew(i, map)),
        _ => {}
    }
}

#[test]
fn adoption_baseline_ratchet_and_rerecording() {
    let p = Project::new();
    // A starter tools file from the sessions (Claude Code's built-in schemas).
    let (code, out) = p.run(&["init", "traces/", "-o", "tools.json", "--no-config"]);
    assert_eq!(code, Some(0), "{out}");

    // 1. The corpus has findings at the gate.
    let (code, out) = p.run(&[
        "check",
        "traces/",
        "--tools",
        "tools.json",
        "--fail-on",
        "hard_event",
        "--no-config",
    ]);
    assert_eq!(code, Some(2), "{out}");
    let at_gate = finding_lines(&out)
        .iter()
        .filter(|l| !l.contains(" candidate "))
        .count();
    assert!(at_gate >= 10, "{at_gate} findings at the gate\n{out}");
    // From now on the settings are the project's, in the peer's spelling; a baseline the config
    // names must exist, except when recording it.
    std::fs::write(
        p.path("tracelint.toml"),
        "tools = \"tools.json\"\nbaseline = \"ci/tracelint-baseline.json\"\nfail_on = \"hard_event\"\n",
    )
    .unwrap();
    let (code, missing) = p.run(&["check", "traces/"]);
    assert_eq!(code, Some(3), "{missing}");
    assert!(missing.contains("--update-baseline"), "{missing}");

    // 2. Accept them.
    let (code, out) = p.run(&["check", "traces/", "--update-baseline"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains(&format!("baseline: recorded {at_gate} findings from")),
        "{out}"
    );
    let recorded = p.read("ci/tracelint-baseline.json");
    let json: Value = serde_json::from_str(&recorded).unwrap();
    assert!(
        json["files"]
            .as_object()
            .unwrap()
            .keys()
            .all(|k| k.starts_with("../traces/")),
        "paths relative to the baseline"
    );

    // 3. A clean run.
    let (code, out) = p.run(&["check", "traces/"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        finding_lines(&out)
            .iter()
            .all(|l| l.contains(" candidate ")),
        "{out}"
    );
    assert!(out.contains(&format!("{at_gate} in the baseline")), "{out}");

    // 4. One new defect: exit 2, and it is the only finding shown.
    let original = p.read("traces/erk-b2c8258b-cfa7-4411-82bd-b2817ab24b4d.jsonl");
    let (file, line) = add_defect(&p);
    let (code, out) = p.run(&["check", "traces/"]);
    assert_eq!(code, Some(2), "{out}");
    let shown = finding_lines(&out);
    assert_eq!(shown.len(), 1, "{out}");
    assert!(
        shown[0].starts_with(&format!("{file}:{line}:"))
            && shown[0].contains("hard_defect R1 Read: \"file_path\" is a required property"),
        "{out}"
    );
    std::fs::write(p.path(&file), original).unwrap();

    // 5. A schema taken from the tools file: the ratchet fails the run and says what was lost.
    let tools = p.read("tools.json");
    let mut doc: Value = serde_json::from_str(&tools).unwrap();
    let read = doc["tools"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|t| t["name"] == "Read")
        .expect("Read in the starter file");
    // Init defers `Read` to Claude Code's built-in schema: dropping that leaves it none.
    assert!(
        read.as_object_mut().unwrap().remove("builtin").is_some(),
        "{read}"
    );
    std::fs::write(p.path("tools.json"), doc.to_string()).unwrap();
    let (code, out) = p.run(&["check", "traces/"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("coverage lost against ci/tracelint-baseline.json (exit 1"),
        "{out}"
    );
    let lost: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("coverage lost"))
        .skip(1)
        .take_while(|l| l.starts_with("    "))
        .collect();
    assert!(!lost.is_empty(), "{out}");
    assert!(
        lost.iter()
            .all(|l| l.contains("R1 can no longer check `Read`")),
        "only R1 on Read was lost: {lost:?}"
    );

    // The JSON report says the same, valid against its schema; SARIF marks accepted findings
    // as suppressed.
    let (code, _) = p.run(&["check", "traces/", "--json", "r.json", "--sarif", "r.sarif"]);
    assert_eq!(code, Some(1));
    let report: Value = serde_json::from_str(&p.read("r.json")).unwrap();
    let schema: Value =
        serde_json::from_str(include_str!("../src/reporters/report.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&report)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(report["exit_code"], 1);
    assert_eq!(report["baseline"]["lost"][0]["rule"], "R1");
    assert_eq!(report["baseline"]["lost"][0]["tool"], "Read");
    assert!(report["summary"]["baselined"].as_u64().unwrap() > 0);
    let sarif: Value = serde_json::from_str(&p.read("r.sarif")).unwrap();
    let suppressed = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r.get("suppressions").is_some())
        .count();
    assert_eq!(
        suppressed as u64,
        report["summary"]["baselined"].as_u64().unwrap()
    );

    // 6. --no-ratchet accepts the loss.
    let (code, out) = p.run(&["check", "traces/", "--no-ratchet"]);
    assert_eq!(code, Some(0), "{out}");
    std::fs::write(p.path("tools.json"), tools).unwrap();

    // 7. Re-recorded with new ids and timestamps: still clean, and the baseline is unchanged.
    rerecord(&p);
    let (code, out) = p.run(&["check", "traces/"]);
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = p.run(&["check", "traces/", "--update-baseline"]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(p.read("ci/tracelint-baseline.json"), recorded);
}
