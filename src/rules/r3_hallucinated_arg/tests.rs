//! Tests of `r3_hallucinated_arg` (kept apart to keep the module short).
use crate::rules::testing::lint;

fn r3(out: &str) -> Vec<&str> {
    out.lines()
        .filter(|l| {
            !l.starts_with("coverage") && (l.contains(" R3 ") || l.starts_with("suppressed R3"))
        })
        .collect()
}

#[test]
fn sources_are_user_system_and_tool_output_before_the_call() {
    let trace = r#"{"run_id": "r", "steps": [
          {"type": "message", "role": "system", "content": "Tenant acme-eu-2."},
          {"type": "message", "role": "assistant", "content": "I will use order ZX-9911."},
          {"type": "tool_call", "call_id": "1", "name": "t", "args": {"id": "ZX-9911", "tenant": "ACME-EU-2"}},
          {"type": "tool_result", "call_id": "1", "content": "ok ZX-9911", "status": "ok"},
          {"type": "tool_call", "call_id": "2", "name": "t", "args": {"id": "ZX-9911"}},
          {"type": "message", "role": "tool", "content": "ticket TK-4410 opened"},
          {"type": "tool_call", "call_id": "3", "name": "t", "args": {"id": "TK-4410", "q": "two words"}}
        ]}"#;
    let out = lint(trace, None, Default::default());
    // Assistant text is never a source; the call's own result comes after it. The second
    // call can use what the first one's result showed, the third a tool message.
    assert_eq!(
        r3(&out),
        [
            "4:11: candidate R3 t: `id` = `\"ZX-9911\"` is not derivable from anything the agent observed before the call"
        ],
        "{out}"
    );
}

#[test]
fn earlier_arguments_are_observed_so_a_value_is_judged_at_its_first_use() {
    let trace = r#"{"run_id": "r", "steps": [
          {"type": "message", "role": "user", "content": "look it up"},
          {"type": "tool_call", "call_id": "1", "name": "t", "args": {"id": "QQ-123"}},
          {"type": "tool_call", "call_id": "2", "name": "t", "args": {"id": "QQ-123"}}
        ]}"#;
    let out = lint(trace, None, Default::default());
    assert_eq!(
        r3(&out),
        ["3:11: candidate R3 t: `id` = `\"QQ-123\"` is not derivable from anything the agent observed before the call"],
        "{out}"
    );
}

#[test]
fn a_value_only_past_the_index_limit_is_suppressed_not_reported() {
    let filler = "lorem ipsum ".repeat(100_000);
    let trace = format!(
        r#"{{"run_id": "r", "steps": [
          {{"type": "tool_result", "call_id": "0", "content": "{filler} token tk_far_away_77"}},
          {{"type": "tool_call", "call_id": "1", "name": "t", "args": {{"a_id": "tk_far_away_77", "b_id": "lorem", "c_id": "zz_made_up_value"}}}}
        ]}}"#
    );
    let out = lint(&trace, None, Default::default());
    assert_eq!(
        r3(&out),
        [
            // `zz_made_up_value` cannot be in the cut text (its 4-grams are not there).
            "3:11: candidate R3 t: `c_id` = `\"zz_made_up_value\"` is not derivable from anything the agent observed before the call",
            "suppressed R3 3:11: `a_id` is not derivable from the observed text that was indexed, and could be in text past the index's limits (1 MiB per source; 1048576 words per trace for values of several words)"
        ],
        "{out}"
    );
}

use crate::model::ContextKind;
use crate::rules::testing::{lint_in, outcomes};

/// The values of a trace's R3 findings (each quoted as JSON), linted with `tools` in working
/// directory `cwd`.
fn flagged_values(trace: &str, tools: Option<&str>, cwd: &str) -> Vec<String> {
    values_of(&lint_in(
        trace,
        tools,
        Default::default(),
        &[(ContextKind::WorkingDirectory, cwd)],
    ))
}

/// The values of the R3 findings (not suppressions) in a report's text, each quoted as JSON.
fn values_of(out: &str) -> Vec<String> {
    r3(out)
        .iter()
        .filter(|l| !l.starts_with("suppressed"))
        .map(|l| l.split('`').nth(3).unwrap_or_default().to_owned())
        .collect()
}

/// A result with `status: error`.
fn error(id: u32, content: &str) -> String {
    format!(
        r#"{{"type": "tool_result", "call_id": "{id}", "content": {}, "status": "error"}}"#,
        serde_json::Value::String(content.into())
    )
}

/// The R3 findings of a trace with a working directory: (tool, field, signal).
fn r3_signals(trace: &str, tools: Option<&str>, cwd: &str) -> Vec<(String, String, String)> {
    let ctx = [(ContextKind::WorkingDirectory, cwd)];
    outcomes(trace, tools, Default::default(), &ctx)
        .iter()
        .flat_map(|o| o.findings.iter())
        .filter(|f| f.rule == crate::finding::RuleId::R3)
        .map(|f| {
            (
                f.tool.clone().unwrap_or_default(),
                f.field.clone().unwrap_or_default(),
                f.signal.unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn call(id: u32, name: &str, args: &str) -> String {
    format!(r#"{{"type": "tool_call", "call_id": "{id}", "name": "{name}", "args": {args}}}"#)
}

fn result(id: u32, content: &str) -> String {
    format!(
        r#"{{"type": "tool_result", "call_id": "{id}", "content": {}, "status": "ok"}}"#,
        serde_json::Value::String(content.into())
    )
}

fn trace(steps: &[String]) -> String {
    format!(
        r#"{{"run_id": "r", "steps": [{{"type": "message", "role": "user", "content": "fix the failing test"}}, {}]}}"#,
        steps.join(", ")
    )
}

#[test]
fn paths_are_derived_from_the_working_directory_and_listings() {
    let t = trace(&[
        call(1, "Grep", r#"{"pattern": "def load"}"#),
        result(
            1,
            "src/pkg/mod.py:12:def load(path):\ntests/test_conf.py:3:from pkg.mod import load",
        ),
        // The working directory + a relative path the search listed.
        call(2, "Read", r#"{"file_path": "/repo/src/pkg/mod.py"}"#),
        // A listed directory + a name: `src/pkg` was listed, `util.py` was not.
        call(3, "Read", r#"{"file_path": "/repo/src/pkg/util.py"}"#),
        call(4, "Bash", r#"{"command": "ls src/pkg"}"#),
        result(4, "__init__.py  mod.py  util.py"),
        call(5, "Read", r#"{"file_path": "/repo/src/pkg/util.py"}"#),
        // Normalised before it is judged: `./`, `..` and a trailing separator.
        call(6, "Grep", r#"{"path": "/repo/./src/../src/pkg/"}"#),
        // An observed directory and an observed name make a path (`tests` and `mod.py`
        // were both listed), but a name inside a longer one does not count: `conf.py` is
        // only part of `test_conf.py`.
        call(7, "Read", r#"{"file_path": "/repo/tests/mod.py"}"#),
        call(8, "Read", r#"{"file_path": "/repo/tests/conf.py"}"#),
    ]);
    assert_eq!(
        r3_signals(&t, None, "/repo"),
        [
            (
                "Read".into(),
                "file_path".into(),
                "not_derivable_as_path".into()
            ),
            (
                "Read".into(),
                "file_path".into(),
                "not_derivable_as_path".into()
            ),
        ]
    );
    let out = lint_in(
        &t,
        None,
        Default::default(),
        &[(ContextKind::WorkingDirectory, "/repo")],
    );
    let lines: Vec<&str> = r3(&out);
    assert!(lines[0].contains("/repo/src/pkg/util.py"), "{out}");
    assert!(lines[1].contains("/repo/tests/conf.py"), "{out}");
    // Without the working directory, the first absolute path has nothing to start from; the
    // later ones build on the paths the agent's own earlier calls used (each judged once).
    let paths: Vec<(String, String, String)> = r3_signals(&t, None, "/elsewhere");
    assert_eq!(paths.len(), 3, "{paths:?}");
}

#[test]
fn a_module_name_derives_its_source_file() {
    let t = trace(&[
        call(1, "Bash", r#"{"command": "ls -a"}"#),
        result(1, "README.md  src  tests"),
        call(2, "Read", r#"{"file_path": "/repo/tests/test_mod.py"}"#),
        result(2, "from pkg.mod import load\nimport pkg.helpers as h"),
        call(3, "Read", r#"{"file_path": "/repo/src/pkg/mod.py"}"#),
        call(
            4,
            "Read",
            r#"{"file_path": "/repo/src/pkg/helpers/__init__.py"}"#,
        ),
        // `pkg.other` was never imported.
        call(5, "Read", r#"{"file_path": "/repo/src/pkg/other.py"}"#),
    ]);
    let out = lint_in(
        &t,
        None,
        Default::default(),
        &[(ContextKind::WorkingDirectory, "/repo")],
    );
    // `tests/test_mod.py`: `tests` was listed, `test_mod.py` was not (a guess, but one the
    // tool answered: not reported); `pkg.other` is not a module the agent saw.
    let findings: Vec<&str> = r3(&out)
        .into_iter()
        .filter(|l| !l.starts_with("suppressed"))
        .collect();
    assert_eq!(findings.len(), 1, "{out}");
    assert!(findings[0].contains("/repo/src/pkg/other.py"), "{out}");
}

/// A screenshot (or a download, an export) is written to a file the agent names: that name is
/// made, not recalled.
#[test]
fn a_screenshot_file_name_is_made_by_the_agent() {
    let t = trace(&[
        call(1, "browser_snapshot", r#"{}"#),
        result(1, "page loaded"),
        call(2, "mcp__playwright__browser_take_screenshot", r#"{"filename": "card-layout.png"}"#),
        call(3, "browser_open", r#"{"filename": "card-layout-old.png"}"#),
    ]);
    let out = lint(&t, None, Default::default());
    let values: Vec<&str> = r3(&out)
        .iter()
        .map(|l| l.split('`').nth(3).unwrap_or_default())
        .collect();
    assert_eq!(values, ["\"card-layout-old.png\""], "{out}");
}

/// A file named after its directory (`strategy/strategy.go`) is the package's own file, once
/// the directory was observed; another name there is still a guess.
#[test]
fn a_file_named_after_its_observed_directory_is_derived() {
    let t = trace(&[
        call(1, "Bash", r#"{"command": "git diff --stat"}"#),
        result(1, " cli/strategy/common.go | 11 ++++++++++-"),
        call(2, "Read", r#"{"file_path": "/repo/cli/strategy/strategy.go"}"#),
        call(3, "Read", r#"{"file_path": "/repo/cli/strategy/session.go"}"#),
        // The directory was never shown.
        call(4, "Read", r#"{"file_path": "/repo/cli/agent/agent.go"}"#),
    ]);
    let out = lint_in(
        &t,
        None,
        Default::default(),
        &[(ContextKind::WorkingDirectory, "/repo")],
    );
    let values: Vec<&str> = r3(&out)
        .iter()
        .map(|l| l.split('`').nth(3).unwrap_or_default())
        .collect();
    assert_eq!(
        values,
        ["\"/repo/cli/strategy/session.go\"", "\"/repo/cli/agent/agent.go\""],
        "{out}"
    );
}

#[test]
fn origins_numbers_and_created_paths() {
    let tools = r#"[{"name": "Write", "inputSchema": {"type": "object", "properties": {
                          "file_path": {"type": "string", "x-value-origin": "created"}}}},
                        {"name": "Task", "inputSchema": {"type": "object", "properties": {
                          "subagent_type": {"type": "string", "x-value-origin": "choice"}}}},
                        {"name": "cancel_order", "inputSchema": {"type": "object", "properties": {
                          "order_id": {"type": "integer"}, "timeout": {"type": "integer"},
                          "amount": {"type": "integer"}, "retries": {"type": "integer", "maximum": 5}}}}]"#;
    let t = trace(&[
        call(1, "Bash", r#"{"command": "ls -a"}"#),
        result(1, "src"),
        // A new file in an observed directory; a new file under a directory nobody saw.
        call(2, "Write", r#"{"file_path": "/repo/src/new_module.py"}"#),
        call(
            3,
            "Write",
            r#"{"file_path": "/opt/nowhere/new_module.py"}"#,
        ),
        // A choice the definition offers is never judged against observed text.
        call(4, "Task", r#"{"subagent_type": "Explore"}"#),
        // A timeout is a parameter; an order id and an amount are judged.
        call(
            5,
            "cancel_order",
            r#"{"order_id": 4512, "timeout": 30000, "amount": 250, "retries": 40}"#,
        ),
    ]);
    assert_eq!(
        r3_signals(&t, Some(tools), "/repo"),
        [
            (
                "Write".into(),
                "file_path".into(),
                "not_derivable_as_path".into()
            ),
            (
                "cancel_order".into(),
                "amount".into(),
                "not_derivable_as_number".into()
            ),
            (
                "cancel_order".into(),
                "order_id".into(),
                "not_derivable_as_number".into()
            ),
        ]
    );
}

#[test]
fn what_a_call_does_is_not_judged_what_it_acts_on_is() {
    // SWE-agent's editor mode and a one-word shell command are the agent's to choose; the
    // path the mode acts on is judged; `provided` still makes a command judged.
    let tools = r#"[{"name": "run", "inputSchema": {"type": "object", "properties": {
                          "command": {"type": "string", "x-value-origin": "provided"}}}}]"#;
    let t = trace(&[
        call(
            1,
            "str_replace_editor",
            r#"{"command": "view", "path": "/repo/a.py"}"#,
        ),
        call(2, "bash", r#"{"command": "ls"}"#),
        call(3, "shell", r#"{"cmd": "pwd", "mode": "strict"}"#),
        call(4, "run", r#"{"command": "deploy"}"#),
    ]);
    assert_eq!(
        r3_signals(&t, Some(tools), "/elsewhere"),
        [
            (
                "str_replace_editor".into(),
                "path".into(),
                "not_derivable_as_path".into()
            ),
            (
                "run".into(),
                "command".into(),
                "not_derivable_as_text".into()
            ),
        ]
    );
}

#[test]
fn a_call_that_says_it_creates_makes_its_path_new() {
    let t = trace(&[
        call(
            1,
            "str_replace_editor",
            r#"{"command": "view", "path": "/repo"}"#,
        ),
        result(1, "src/\nsetup.py"),
        // `create`: the file is new, its directory was listed.
        call(
            2,
            "str_replace_editor",
            r#"{"command": "create", "path": "/repo/src/reproduce.py", "file_text": "x"}"#,
        ),
        // `view` of a file nobody listed: judged whole.
        call(
            3,
            "str_replace_editor",
            r#"{"command": "view", "path": "/repo/src/guessed.py"}"#,
        ),
        // Created in a new directory of the working directory: the call makes it.
        call(
            4,
            "str_replace_editor",
            r#"{"command": "create", "path": "/repo/new_dir/deeper/x.py", "file_text": "x"}"#,
        ),
        // Created under a directory nobody saw.
        call(
            5,
            "str_replace_editor",
            r#"{"command": "create", "path": "/srv/nowhere/x.py", "file_text": "x"}"#,
        ),
    ]);
    let tools = r#"[{"name": "str_replace_editor", "inputSchema": {"type": "object", "properties": {
                          "command": {"enum": ["view", "create", "str_replace"]}, "path": {"type": "string"}}}}]"#;
    let paths: Vec<String> = flagged_values(&t, Some(tools), "/repo");
    assert_eq!(
        paths,
        ["\"/repo/src/guessed.py\"", "\"/srv/nowhere/x.py\""]
    );
}

#[test]
fn a_successful_call_confirms_the_values_it_used() {
    let unknown = |id: u32, content: &str| {
        format!(
            r#"{{"type": "tool_result", "call_id": "{id}", "content": {}}}"#,
            serde_json::Value::String(content.into())
        )
    };
    let error = |id: u32| {
        format!(
            r#"{{"type": "tool_result", "call_id": "{id}", "content": "no such file", "status": "error"}}"#
        )
    };
    let t = trace(&[
        // Guessed, then used successfully: judged once (a tool that does not only look up).
        call(1, "Load", r#"{"doc_id": "DOC-guessed-a"}"#),
        result(1, "print(1)"),
        call(2, "Annotate", r#"{"doc_id": "DOC-guessed-a"}"#),
        // A result that does not say (no status) but reads as output confirms too.
        call(3, "Load", r#"{"doc_id": "DOC-guessed-b"}"#),
        unknown(3, "     1\tprint(2)"),
        call(4, "Annotate", r#"{"doc_id": "DOC-guessed-b"}"#),
        // One that reads as an error does not; a failure never does. The Annotate of an id
        // the agent already used is not judged again: its first use (the Load) was.
        call(5, "Load", r#"{"doc_id": "DOC-guessed-c"}"#),
        unknown(5, "Error: file not found"),
        call(6, "Annotate", r#"{"doc_id": "DOC-guessed-c"}"#),
        call(7, "Load", r#"{"doc_id": "DOC-guessed-d"}"#),
        error(7),
        call(8, "Annotate", r#"{"doc_id": "DOC-guessed-d"}"#),
    ]);
    let got: Vec<String> = r3_signals(&t, None, "/")
        .into_iter()
        .map(|(tool, _, _)| tool)
        .collect();
    assert_eq!(got, ["Load", "Load", "Load", "Load"]);
}

#[test]
fn a_lookup_the_tool_answered_names_something_that_exists() {
    let t = trace(&[
        // A file read, a folder listed, a file viewed: answered without fault, not reported.
        call(1, "Read", r#"{"file_path": "/srv/app/guessed/settings.py"}"#),
        result(1, "DEBUG = False"),
        call(2, "mcp__fs__list_directory", r#"{"path": "/srv/app/listed"}"#),
        result(2, "settings.py"),
        call(3, "str_replace_editor", r#"{"command": "view", "path": "/srv/app/other/views.py"}"#),
        result(3, "def index(): ..."),
        // A lookup that failed, or said the thing is not there, is reported.
        call(4, "Read", r#"{"file_path": "/srv/app/guessed/secrets.env"}"#),
        error(4, "File does not exist."),
        call(5, "WebFetch", r#"{"url": "https://docs.guessed-site.io/setup"}"#),
        result(5, "Not Found"),
        // An id that resolves is not proof: a made-up order number may be someone else's.
        call(10, "get_shipping_status", r#"{"order_id": "ORD-77812"}"#),
        result(10, "{\"status\": \"in_transit\"}"),
        // A call that acts is reported whatever it answered: `cancel_order` worked, on an id
        // nothing showed; so does an editor asked to create, a lookup named by its server
        // only, and a tool the tools file declares side-effecting.
        call(6, "cancel_order", r#"{"order_id": "A-4512"}"#),
        result(6, "{\"cancelled\": \"A-4512\"}"),
        call(7, "mcp__search__cancel_booking", r#"{"booking_id": "BK-5521"}"#),
        result(7, "cancelled"),
        call(8, "get_and_charge", r#"{"card_id": "CARD-9001"}"#),
        result(8, "charged"),
        // What a search is given is a query the agent writes: not judged; nor is a glob.
        call(9, "search_direct_flight", r#"{"origin": "JFK", "date": "2024-05-20"}"#),
        result(9, "[{\"flight_number\": \"HAT001\"}]"),
        call(11, "mcp__serena__find_file", r#"{"file_mask": "*route*.py", "relative_path": "made/up"}"#),
        error(11, "Error: relative path made/up does not exist"),
        // A generic API tool's path it reached, with GET or POST, exists (not reported); one
        // the tool said is not there is reported.
        call(12, "call_api_endpoint", r#"{"method": "GET", "path": "/stores/10810/sales"}"#),
        result(12, "{\"sales\": []}"),
        call(13, "call_api_endpoint", r#"{"method": "POST", "path": "/orders/9931/refunds"}"#),
        result(13, "{}"),
        call(14, "call_api_endpoint", r#"{"method": "GET", "path": "/invoices/5520/lines"}"#),
        result(14, "HTTP 404 Not Found"),
    ]);
    let tools = r#"{"tools": {
        "get_and_charge": {"metadata": {"side_effecting": true}},
        "search_direct_flight": {"schema": {"type": "object", "properties": {
            "origin": {"type": "string"}, "date": {"type": "string"}}}}
    }}"#;
    let out = lint_in(
        &t,
        Some(tools),
        Default::default(),
        &[(ContextKind::WorkingDirectory, "/home/dev")],
    );
    let values = values_of(&out);
    assert_eq!(
        values,
        [
            "\"/srv/app/guessed/secrets.env\"",
            "\"https://docs.guessed-site.io/setup\"",
            "\"ORD-77812\"",
            "\"A-4512\"",
            "\"BK-5521\"",
            "\"CARD-9001\"",
            "\"made/up\"",
            "\"/invoices/5520/lines\""
        ],
        "{out}"
    );
    let looked_up = r3(&out)
        .iter()
        .filter(|l| l.contains("only looked it up"))
        .count();
    assert_eq!(looked_up, 4, "{out}");
    let reached = r3(&out)
        .iter()
        .filter(|l| l.contains("the place it names exists"))
        .count();
    assert_eq!(reached, 1, "{out}");
}

#[test]
fn calls_before_anything_observed_are_not_judged() {
    let t = r#"{"run_id": "r", "steps": [
          {"type": "tool_call", "call_id": "1", "name": "t", "args": {"id": "QQ-123"}},
          {"type": "tool_result", "call_id": "1", "content": "ok", "status": "ok"},
          {"type": "tool_call", "call_id": "2", "name": "t", "args": {"id": "ZZ-999"}}
        ]}"#;
    let out = lint(t, None, Default::default());
    assert_eq!(
        r3(&out),
        [
            "4:11: candidate R3 t: `id` = `\"ZZ-999\"` is not derivable from anything the agent observed before the call",
            "suppressed R3 -: 1 call(s) made before anything the agent observed was recorded (no user, system or tool text before them): their arguments are not judged"
        ],
        "{out}"
    );
}

#[test]
fn arguments_that_are_not_an_object_are_disclosed() {
    let trace = r#"{"run_id": "r", "steps": [
          {"type": "tool_call", "call_id": "1", "name": "t", "args": ["a", 1]}
        ]}"#;
    let out = lint(trace, None, Default::default());
    assert!(
        out.contains("suppressed R3 2:11: arguments not recorded (recorded positionally"),
        "{out}"
    );
    assert!(out.contains("coverage R3 0/1"), "{out}");
}

/// Issue 41: what the agent wrote itself is observed — a file's content before an edit of it,
/// a directory it made — and a path it creates is judged by its directory.
#[test]
fn the_agents_own_writes_are_observed() {
    let tools = r#"[
      {"name": "Write", "inputSchema": {"type": "object", "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}}}},
      {"name": "Edit", "inputSchema": {"type": "object", "properties": {"file_path": {"type": "string"}, "old_string": {"type": "string"}, "new_string": {"type": "string"}}}},
      {"name": "Bash", "inputSchema": {"type": "object", "properties": {"command": {"type": "string"}}}}
    ]"#;
    let t = trace(&[
        call(
            1,
            "Write",
            r#"{"file_path": "/repo/calc.py", "content": "def compute_totalz(x):\n    return x"}"#,
        ),
        result(1, "File created successfully"),
        // `compute_totalz` is only in the agent's own earlier Write: observed.
        call(
            2,
            "Edit",
            r#"{"file_path": "/repo/calc.py", "old_string": "compute_totalz", "new_string": "compute_total"}"#,
        ),
        result(2, "ok"),
        // A directory it made two calls before.
        call(3, "Bash", r#"{"command": "mkdir -p /repo/gen/reports"}"#),
        result(3, ""),
        call(4, "Write", r#"{"file_path": "/repo/gen/reports/q3.md", "content": "x"}"#),
        // Below a directory nobody made or showed.
        call(5, "Write", r#"{"file_path": "/srv/made_up/q4.md", "content": "x"}"#),
        // Text no call wrote.
        call(
            6,
            "Edit",
            r#"{"file_path": "/repo/calc.py", "old_string": "compute_grand_totalz", "new_string": "y"}"#,
        ),
    ]);
    let got = r3(&lint_in(
        &t,
        Some(tools),
        Default::default(),
        &[(ContextKind::WorkingDirectory, "/repo")],
    ))
    .iter()
    .map(|l| l.split('`').nth(3).unwrap_or_default().to_owned())
    .collect::<Vec<_>>();
    assert_eq!(
        got,
        ["\"/srv/made_up/q4.md\"", "\"compute_grand_totalz\""]
    );
}

/// Issue 41: a relative path the user gave, joined with a Windows working directory written
/// with either separator.
#[test]
fn windows_paths_join_the_working_directory_in_either_form() {
    let t = format!(
        r#"{{"run_id": "r", "steps": [
          {{"type": "message", "role": "user", "content": "fix modules/files/upload.ts and migrations/016_encrypt_username.ts"}},
          {}, {}, {}
        ]}}"#,
        call(
            1,
            "Read",
            r#"{"file_path": "C:/Users/dev/app/modules/files/upload.ts"}"#
        ),
        call(
            2,
            "Read",
            r#"{"file_path": "C:\\Users\\dev\\app\\migrations\\016_encrypt_username.ts"}"#
        ),
        call(
            3,
            "Read",
            r#"{"file_path": "C:/Users/dev/other/modules/files/upload.ts"}"#
        ),
    );
    let got = r3_signals(&t, None, "C:\\Users\\dev\\app");
    assert_eq!(
        got,
        [(
            "Read".to_owned(),
            "file_path".to_owned(),
            "not_derivable_as_path".to_owned()
        )],
        "only the path outside the working directory"
    );
}

/// Issue 41: observed values joined with `,` `;` or spaces are observed; one made-up part is not.
#[test]
fn a_composite_of_observed_values_is_observed() {
    let t = trace(&[
        call(1, "load_nodes", r#"{"file_key": "fk1"}"#),
        result(1, r#"{"nodes": [{"id": "0:11258"}, {"id": "0:11040"}]}"#),
        call(2, "get_images", r#"{"node_ids": "0:11258,0:11040"}"#),
        call(3, "get_images", r#"{"node_ids": "0:11258; 0:11040"}"#),
        call(4, "get_images", r#"{"node_ids": "0:11258,0:99931"}"#),
    ]);
    let got: Vec<String> = r3(&lint(&t, None, Default::default()))
        .iter()
        .map(|l| l.split('`').nth(3).unwrap_or_default().to_owned())
        .collect();
    assert_eq!(got, ["\"fk1\"", "\"0:11258,0:99931\""]);
}

/// A list some tools take as JSON text in a string (`urls: "[\"https://…\"]"`) is observed when
/// every value in it is; a value someone redacted before publishing is not judged.
#[test]
fn json_text_lists_and_redacted_values() {
    let t = trace(&[
        call(1, "search", r#"{"query": "vitest browser mode"}"#),
        result(1, "Results: https://vitest.dev/guide/browser and https://vitest.dev/api/browser/context"),
        call(2, "fetch", r#"{"urls": "[\"https://vitest.dev/guide/browser\"]"}"#),
        call(3, "fetch", r#"{"urls": "[\"https://vitest.dev/guide/browser\", \"https://vitest.dev/api/browser/context\"]"}"#),
        call(4, "fetch", r#"{"urls": "[\"https://made-up.example.net/guide\"]"}"#),
        call(5, "Read", r#"{"file_path": "/Users/[USER]/.zshrc"}"#),
        call(6, "Read", r#"{"file_path": "/repo/REDACTED.md"}"#),
        call(7, "Read", r#"{"file_path": "/nowhere/notes.md"}"#),
    ]);
    let got: Vec<String> = r3(&lint(&t, None, Default::default()))
        .iter()
        .map(|l| l.split('`').nth(3).unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        got,
        [
            r#""[\"https://made-up.example.net/guide\"]""#,
            r#""/nowhere/notes.md""#
        ]
    );
}

/// A record part of which could not be read does not say all the agent observed: R3 judges
/// none of its calls, and says so.
#[test]
fn a_partly_unreadable_record_is_not_judged() {
    let text = trace(&[call(1, "Read", r#"{"file_path": "/nowhere/notes.md"}"#)]);
    let mut parsed = crate::adapters::native::parse_str(&text, "trace.json");
    let registry = crate::model::ToolRegistry::new();
    let run = crate::rules::RunCx::default();
    let r3_of = |t: &crate::model::Trace| {
        let o = crate::rules::run(
            &crate::rules::TraceCx::new(t, &registry, &run),
            &crate::rules::Selection::default(),
        );
        let found = o.findings.iter().filter(|f| f.rule == crate::finding::RuleId::R3).count();
        let why: Vec<String> = o
            .suppressions
            .iter()
            .filter(|s| s.rule == crate::finding::RuleId::R3)
            .map(|s| s.reason.clone())
            .collect();
        (found, why)
    };
    assert_eq!(r3_of(&parsed.traces[0]).0, 1);
    parsed.traces[0].partial = true;
    let (found, why) = r3_of(&parsed.traces[0]);
    assert_eq!(found, 0);
    assert!(why.iter().any(|w| w.contains("could not be read")), "{why:?}");
}

/// Issue 41: with no schema and no known origins, only values that identify something are
/// judged (ids, keys, paths, URLs); free text, patterns, modes and new content are not, and a
/// path the call creates (by its tool's name) is judged by its directory only.
#[test]
fn without_a_schema_only_identifiers_are_judged() {
    let t = trace(&[
        call(
            1,
            "update_task",
            r#"{"status": "in_progress", "output_mode": "files_with_matches", "pattern": "fn\\s+load", "new_string": "renamed_thing", "task_id": "T-88213"}"#,
        ),
        call(
            2,
            "fetch",
            r#"{"target": "https://made-up-docs.example.net/api", "to": "someone@example.org"}"#,
        ),
        call(
            3,
            "write_file",
            r#"{"path": "/repo/new_module.py", "content": "x"}"#,
        ),
        call(
            4,
            "create_or_update_file",
            r#"{"path": "/nowhere/else/new.py", "content": "x"}"#,
        ),
        // The shell session a command runs in is the agent's to name.
        call(
            5,
            "bash",
            r#"{"command": "go test ./...", "shellId": "unit-tests"}"#,
        ),
        // A file a writing tool creates in the working directory, named alone.
        call(6, "write", r#"{"filePath": "hello.txt", "content": "x"}"#),
        // What the agent says the step does, in a language written without spaces.
        call(7, "view_file", r#"{"toolAction": "backend/main.pyを確認"}"#),
    ]);
    let got = r3_signals(&t, None, "/repo");
    let fields: Vec<&str> = got.iter().map(|(_, f, _)| f.as_str()).collect();
    // The id, the made-up URL and e-mail address, and the file created under a directory
    // nobody showed.
    assert_eq!(fields, ["task_id", "target", "to", "path"], "{got:?}");
    assert_eq!(got[3].0, "create_or_update_file");
}

/// A schema `init` or `infer` guessed from calls (marked `x-tracelint-inferred`) says nothing of
/// where values come from: its tools are judged as if they had none (identifiers only).
#[test]
fn an_inferred_schema_is_judged_like_none() {
    let t = trace(&[call(
        1,
        "update_task",
        r#"{"pattern": "fn\\s+load", "new_string": "renamed_thing", "task_id": "T-88213"}"#,
    )]);
    let schema = |marked: bool| {
        let mark = if marked {
            r#", "x-tracelint-inferred": true"#
        } else {
            ""
        };
        format!(
            r#"[{{"name": "update_task", "inputSchema": {{"type": "object"{mark}, "properties": {{
            "pattern": {{"type": "string"}}, "new_string": {{"type": "string"}}, "task_id": {{"type": "string"}}}}}}}}]"#
        )
    };
    let fields = |tools: &str| -> Vec<String> {
        r3_signals(&t, Some(tools), "/repo")
            .into_iter()
            .map(|(_, f, _)| f)
            .collect()
    };
    assert_eq!(fields(&schema(true)), ["task_id"]);
    // A schema someone stated: every field is judged.
    assert_eq!(fields(&schema(false)), ["new_string", "pattern", "task_id"]);
}

/// Issue 41: a constant the tool offers through `anyOf` branches (Claude Code's
/// `TaskUpdate.status`) is not judged; a conventional file in an observed directory is looked
/// at, not made up.
#[test]
fn offered_constants_and_conventional_files_are_not_judged() {
    let tools = r#"[{"name": "TaskUpdate", "inputSchema": {"type": "object", "properties": {
        "taskId": {"type": "string"},
        "status": {"anyOf": [{"type": "string", "enum": ["pending", "in_progress"]}, {"const": "deleted"}]}}}},
      {"name": "Read", "inputSchema": {"type": "object", "properties": {"file_path": {"type": "string"}}}}]"#;
    let t = trace(&[
        call(1, "TaskUpdate", r#"{"taskId": "1", "status": "in_progress"}"#),
        call(2, "Read", r#"{"file_path": "/repo/README.md"}"#),
        call(3, "Read", r#"{"file_path": "/repo/pages/7.js"}"#),
        call(4, "Read", r#"{"file_path": "/other/package.json"}"#),
        // Named alone: in the working directory.
        call(5, "Read", r#"{"file_path": "package.json"}"#),
    ]);
    let got: Vec<String> = flagged_values(&t, Some(tools), "/repo");
    assert_eq!(got, ["\"/repo/pages/7.js\"", "\"/other/package.json\""]);
}

/// A value made of observed parts is observed — a URL whose host and path were seen in another
/// form, a file named by an identifier seen in code, a scratch file, a file in a package seen by
/// its module name — unless the tool answered that it is not there.
#[test]
fn composites_of_observed_parts_are_observed_unless_not_found() {
    let t = trace(&[
        call(1, "Bash", r#"{"command": "ls -a"}"#),
        result(1, "src/app.py  components  node_modules  README.md"),
        call(2, "Read", r#"{"file_path": "/repo/src/app.py"}"#),
        result(
            2,
            "import foo_bar\nfrom app.services import billing\n# docs: http://docs.acme-cloud.io/api/v2?lang=en\nrender(<FooBar />)",
        ),
        // Another form of the observed URL; its host and observed segments; an unseen segment.
        call(3, "WebFetch", r#"{"url": "https://docs.acme-cloud.io/api/v2/"}"#),
        result(3, "ok"),
        call(4, "WebFetch", r#"{"url": "https://docs.acme-cloud.io/v2/api"}"#),
        result(4, "ok"),
        // (Not looked up yet: a lookup the tool answered names something that exists.)
        call(5, "WebFetch", r#"{"url": "https://docs.acme-cloud.io/api/reference"}"#),
        // Files named by identifiers seen in code, in listed directories.
        call(6, "Read", r#"{"file_path": "/repo/src/foo_bar.py"}"#),
        result(6, "x = 1"),
        call(7, "Read", r#"{"file_path": "/repo/components/FooBar.tsx"}"#),
        result(7, "export"),
        // The same kind of composite, answered "not found": still made up.
        call(8, "Read", r#"{"file_path": "/repo/node_modules/FooBar.js"}"#),
        error(8, "<tool_use_error>File does not exist.</tool_use_error>"),
        call(9, "WebFetch", r#"{"url": "https://acme-cloud.io/v2"}"#),
        error(9, "Request failed with status code 404"),
        // A scratch file; a file in a package seen by its module name.
        call(10, "Read", r#"{"file_path": "/tmp/build-output.log"}"#),
        result(10, "done"),
        call(11, "Read", r#"{"file_path": "/repo/src/app/services/invoices.py"}"#),
        result(11, "x"),
        // A plain word is not an identifier: `helpers` in prose does not name a file.
        call(12, "Read", r#"{"file_path": "/repo/src/helpers.py"}"#),
    ]);
    let got: Vec<String> = flagged_values(&t, None, "/repo");
    assert_eq!(
        got,
        [
            "\"https://docs.acme-cloud.io/api/reference\"",
            "\"/repo/node_modules/FooBar.js\"",
            "\"https://acme-cloud.io/v2\"",
            "\"/repo/src/helpers.py\"",
        ]
    );
}

/// Claude Code's plan file is named by the session's `slug` (context the adapter records): a
/// read of it is not made up; another plan name is.
#[test]
fn the_sessions_plan_file_is_context() {
    let t = trace(&[
        call(
            1,
            "Read",
            r#"{"file_path": "/Users/dev/.claude/plans/happy-sparking-sloth.md"}"#,
        ),
        call(
            2,
            "Read",
            r#"{"file_path": "/Users/dev/.claude/plans/sad-sleeping-bear.md"}"#,
        ),
    ]);
    let out = lint_in(
        &t,
        None,
        Default::default(),
        &[
            (ContextKind::WorkingDirectory, "/Users/dev/code/app"),
            (
                ContextKind::Instructions,
                "~/.claude/plans/happy-sparking-sloth.md",
            ),
        ],
    );
    let got: Vec<&str> = r3(&out);
    assert_eq!(got.len(), 1, "{out}");
    assert!(got[0].contains("sad-sleeping-bear"), "{out}");
}

/// Issue 41: what the agent saw that its log does not record, and names it built from observed
/// ones: Claude Code's memory directory of the project, a new version of an observed id, a
/// TypeScript file named by its module's import (`./create.js`).
#[test]
fn unrecorded_context_and_names_built_from_observed_ones() {
    let t = trace(&[
        call(
            1,
            "Load",
            r#"{"file_path": "/home/u/.claude/projects/-home-u-my-app/memory/design-notes.md"}"#,
        ),
        result(1, "notes"),
        // Named by the system prompt, whether or not the file exists yet.
        call(
            10,
            "Load",
            r#"{"file_path": "/home/u/.claude/projects/-home-u-my-app/memory/MEMORY.md"}"#,
        ),
        result(10, "File does not exist."),
        // Another project's memory is not this one's.
        call(
            2,
            "Load",
            r#"{"file_path": "/home/u/.claude/projects/-home-u-x/memory/a.md"}"#,
        ),
        call(3, "Load", r#"{"file_path": "/home/u/my-app/src/cli.ts"}"#),
        result(
            3,
            "import { create } from './commands/workspace/create.js';\nimport Footer from './footer.js';",
        ),
        call(4, "Load", r#"{"file_path": "/home/u/my-app/src/commands/workspace/create.ts"}"#),
        call(5, "Load", r#"{"file_path": "/home/u/my-app/src/footer.tsx"}"#),
        call(6, "Load", r#"{"file_path": "/home/u/my-app/src/header.tsx"}"#),
        call(7, "load_task", r#"{"task_id": "T-88213-import"}"#),
        result(7, "{\"id\": \"rpt-20240112\"}"),
        call(8, "load_task", r#"{"task_id": "rpt-20240112-v2"}"#),
        call(9, "load_task", r#"{"task_id": "rpt-20249999-v2"}"#),
    ]);
    let got: Vec<String> = r3_signals(&t, None, "/home/u/my-app")
        .into_iter()
        .map(|(tool, field, _)| format!("{tool}.{field}"))
        .collect();
    let values: Vec<String> = flagged_values(&t, None, "/home/u/my-app");
    assert_eq!(
        values,
        [
            "\"/home/u/.claude/projects/-home-u-x/memory/a.md\"",
            "\"/home/u/my-app/src/header.tsx\"",
            "\"T-88213-import\"",
            "\"rpt-20249999-v2\"",
        ],
        "{got:?}"
    );
}

/// A file an import names (a Rust module path, a script module imported without its
/// extension) is one the agent was shown, in a directory it saw; a file next to it that no
/// import names is not.
#[test]
fn files_named_by_imports_the_agent_read_are_observed() {
    let t = trace(&[
        call(0, "Bash", r#"{"command": "git ls-files | head -2"}"#),
        result(0, "src/lib.rs\nweb/components/forms/Form.tsx"),
        call(1, "Load", r#"{"file_path": "/repo/src/lib.rs"}"#),
        result(1, "use crate::parser::lexer::{Token, Lexer};\nmod parser;"),
        call(2, "Load", r#"{"file_path": "/repo/src/parser/lexer.rs"}"#),
        result(2, "pub struct Token;"),
        call(3, "Load", r#"{"file_path": "/repo/web/components/forms/Form.tsx"}"#),
        result(
            3,
            "import Modal from '../ui/Modal';\nimport { db } from '@/lib/db';\nimport './ui/Form.css';",
        ),
        call(4, "Load", r#"{"file_path": "/repo/web/components/ui/Modal.tsx"}"#),
        result(4, "export default function Modal() {}"),
        call(5, "Load", r#"{"file_path": "/repo/web/lib/db.ts"}"#),
        result(5, "export const db = 1"),
        // Named by no import: a test beside the module, a sibling of another name.
        call(6, "Load", r#"{"file_path": "/repo/web/components/ui/Modal.test.tsx"}"#),
        call(7, "Load", r#"{"file_path": "/repo/src/parser/grammar.rs"}"#),
    ]);
    let got: Vec<String> = flagged_values(&t, None, "/repo");
    assert_eq!(
        got,
        [
            "\"/repo/web/components/ui/Modal.test.tsx\"",
            "\"/repo/src/parser/grammar.rs\"",
        ]
    );
}

/// A page named another way is the page observed: a site without its `www.` (the domain of an
/// observed e-mail address), a GitHub file's raw URL for its page's URL. Another repository's
/// file, or a domain nothing showed, is judged.
#[test]
fn the_same_page_under_another_url_is_observed() {
    let t = trace(&[
        call(1, "search", r#"{"query": "interior designers"}"#),
        result(
            1,
            "Contact: info@jlwinteriors.com.au. Source: https://github.com/ChenYuHo/handwriting.js/blob/master/handwriting.js",
        ),
        call(2, "fetch", r#"{"url": "https://www.jlwinteriors.com.au/"}"#),
        call(
            3,
            "fetch",
            r#"{"url": "https://raw.githubusercontent.com/ChenYuHo/handwriting.js/master/handwriting.js"}"#,
        ),
        call(
            4,
            "fetch",
            r#"{"url": "https://raw.githubusercontent.com/ChenYuHo/other-repo/master/handwriting.js"}"#,
        ),
        call(5, "fetch", r#"{"url": "https://www.zqx-parked-domain.com/"}"#),
        // A repository the user gave and a path a result showed, at a ref nothing showed.
        call(6, "search", r#"{"query": "starter kit"}"#),
        result(6, "Start from https://github.com/ynab/ynab-api-starter-kit and edit src/App.vue"),
        call(
            7,
            "fetch",
            r#"{"url": "https://raw.githubusercontent.com/ynab/ynab-api-starter-kit/master/src/App.vue"}"#,
        ),
        call(
            8,
            "fetch",
            r#"{"url": "https://github.com/ynab/ynab-api-starter-kit/blob/c480cf74/src/App.vue"}"#,
        ),
        call(
            9,
            "fetch",
            r#"{"url": "https://github.com/ynab/ynab-api-starter-kit/blob/main/src/Made.vue"}"#,
        ),
    ]);
    assert_eq!(
        flagged_values(&t, None, "/repo"),
        [
            "\"https://raw.githubusercontent.com/ChenYuHo/other-repo/maste…",
            "\"https://www.zqx-parked-domain.com/\"",
            "\"https://github.com/ynab/ynab-api-starter-kit/blob/main/src/…"
        ]
    );
}

/// A result whose output the record does not hold (a log that keeps only `success: true`):
/// what the tool showed is unknown, so the calls after it are not judged; the calls before it
/// still are.
#[test]
fn calls_after_an_unrecorded_output_are_not_judged() {
    let t = trace(&[
        call(1, "load_file", r#"{"doc_id": "DOC-made-up-before"}"#),
        r#"{"type": "tool_result", "call_id": "1", "status": "ok"}"#.to_owned(),
        call(2, "load_file", r#"{"doc_id": "DOC-named-in-that-output"}"#),
        result(2, "ok"),
        call(3, "load_file", r#"{"doc_id": "DOC-also-after"}"#),
    ]);
    let out = lint(&t, None, Default::default());
    assert_eq!(
        r3(&out),
        [
            "1:99: candidate R3 load_file: `doc_id` = `\"DOC-made-up-before\"` is not derivable from anything the agent observed before the call",
            "suppressed R3 -: 2 call(s) made after a tool result whose output the record does not hold (what that tool showed the agent is unknown): their arguments are not judged"
        ],
        "{out}"
    );
}

/// Where the record holds no working directory, an absolute path that ends in a relative path
/// the agent was given (two components at least) is that path joined with the directory the
/// record does not show; one that ends in another directory's file is judged.
#[test]
fn without_a_working_directory_a_given_relative_path_joins_any_directory() {
    let t = format!(
        r#"{{"run_id": "r", "steps": [
          {{"type": "message", "role": "user", "content": "pin the versions in api/requirements.txt"}},
          {}, {}
        ]}}"#,
        call(1, "read_file", r#"{"path": "d:\\Codes\\shop\\api\\requirements.txt"}"#),
        call(2, "read_file", r#"{"path": "/home/dev/shop/web/requirements.txt"}"#),
    );
    let got: Vec<String> = r3(&lint(&t, None, Default::default()))
        .iter()
        .map(|l| l.split('`').nth(3).unwrap_or_default().to_owned())
        .collect();
    assert_eq!(got, ["\"/home/dev/shop/web/requirements.txt\""]);
    // With a working directory recorded, the path joins that one only.
    assert_eq!(
        flagged_values(&t, None, "/srv/other"),
        [
            "\"d:\\\\Codes\\\\shop\\\\api\\\\requirements.txt\"",
            "\"/home/dev/shop/web/requirements.txt\""
        ]
    );
}

#[test]
fn an_observed_target_behind_a_scheme_word_is_observed() {
    let t = trace(&[
        result(
            0,
            "ERROR (asciidoctor): target of xref not found: modules/guide/pages/setup.adoc",
        ),
        call(1, "t", r#"{"link": "xref:modules/guide/pages/setup.adoc"}"#),
        call(2, "t", r#"{"link": "xref:modules/guide/pages/invented.adoc"}"#),
        // A time and a drive are not a scheme and its target.
        call(3, "t", r#"{"link": "c:modules/guide/pages/setup.adoc"}"#),
    ]);
    let tools = r#"[{"name": "t", "inputSchema": {"type": "object", "properties": {"link": {"type": "string"}}}}]"#;
    assert_eq!(
        flagged_values(&t, Some(tools), "/home/dev"),
        [
            "\"xref:modules/guide/pages/invented.adoc\"",
            "\"c:modules/guide/pages/setup.adoc\""
        ]
    );
}

/// What the tool accepted was there: a path an edit reached, the text it found to replace, a
/// background shell the runtime answered for, a bare file name read. Each still judged when
/// the call failed.
#[test]
fn what_the_tool_accepted_was_there() {
    let t = trace(&[
        call(1, "Edit", r#"{"file_path": "/srv/app/kept.py", "old_string": "marker_kept_1"}"#),
        result(1, "The file /srv/app/kept.py has been updated."),
        call(2, "Edit", r#"{"file_path": "/srv/app/gone.py", "old_string": "marker_gone_2"}"#),
        error(2, "String to replace was not in the file."),
        call(3, "BashOutput", r#"{"bash_id": "b0eb8d"}"#),
        result(3, "<status>completed</status>"),
        call(4, "KillShell", r#"{"shell_id": "zz9911"}"#),
        error(4, "No shell with that id"),
        call(5, "read", r#"{"path": "CONSTITUTION.md"}"#),
        result(5, "# Constitution"),
        call(6, "read", r#"{"path": "GAME.md"}"#),
        error(6, "ENOENT: no such file or directory"),
    ]);
    let tools = r#"[{"name": "Edit", "inputSchema": {"type": "object", "properties": {
                      "file_path": {"type": "string"}, "old_string": {"type": "string"}}}}]"#;
    let out = lint_in(
        &t,
        Some(tools),
        Default::default(),
        &[(ContextKind::WorkingDirectory, "/home/dev")],
    );
    let values = values_of(&out);
    assert_eq!(
        values,
        [
            "\"/srv/app/gone.py\"",
            "\"marker_gone_2\"",
            "\"zz9911\"",
            "\"GAME.md\""
        ],
        "{out}"
    );
    for why in [
        "the place it names exists",
        "the text was there",
        "a handle of this session",
        "the value names something that exists",
    ] {
        assert!(out.contains(why), "{why}: {out}");
    }
}

/// A page named after an observed name in a folder of a site the agent observed, a registry's
/// page of an observed package, a shell's start-up file in a home directory and a label in a
/// script written without spaces: derived or chosen, not made up, found or not. A page whose
/// name nothing showed, in an observed folder or not, stays reported; so does a start-up file
/// outside a home.
#[test]
fn pages_named_after_observed_names_and_home_start_up_files() {
    let t = trace(&[
        call(1, "web_search", r#"{"query": "overwatch teams"}"#),
        result(
            1,
            "https://liquipedia.net/overwatch/Dallas_Fuel and https://liquipedia.net/overwatch/Al_Qadsiah. Teams: LuneX Gaming, Crazy Raccoon. Install with npm i @webspatial/react-sdk",
        ),
        // Found or not, these were built from what the result showed.
        call(2, "WebFetch", r#"{"url": "https://liquipedia.net/overwatch/LuneX_Gaming"}"#),
        error(2, "Request failed with status code 404"),
        call(3, "WebFetch", r#"{"url": "https://liquipedia.net/overwatch/crazy-raccoon/"}"#),
        error(3, "Request failed with status code 404"),
        call(4, "WebFetch", r#"{"url": "https://www.npmjs.com/package/@webspatial/react-sdk"}"#),
        error(4, "403"),
        // A name nothing showed, in the observed folder; an observed name in a folder nothing
        // showed; a registry page of an unseen package.
        call(5, "WebFetch", r#"{"url": "https://liquipedia.net/overwatch/Team_Falcons"}"#),
        error(5, "Request failed with status code 404"),
        call(6, "WebFetch", r#"{"url": "https://liquipedia.net/valorant/LuneX_Gaming"}"#),
        error(6, "Request failed with status code 404"),
        call(7, "WebFetch", r#"{"url": "https://pypi.org/project/made-up-pkg/"}"#),
        error(7, "Request failed with status code 404"),
        // Shell start-up files in a home directory, read or not there.
        call(8, "Read", r#"{"file_path": "/Users/liza/.zshrc"}"#),
        error(8, "File does not exist."),
        call(9, "Read", r#"{"file_path": "~/.bash_profile"}"#),
        error(9, "File does not exist."),
        call(10, "Read", r#"{"file_path": "/srv/other/.zshrc"}"#),
        error(10, "File does not exist."),
        // A label in Chinese is text the agent writes.
        call(11, "TaskList", r#"{"description": "查看生成的文档"}"#),
        result(11, "No tasks"),
    ]);
    assert_eq!(
        flagged_values(&t, None, "/repo"),
        [
            "\"https://liquipedia.net/overwatch/Team_Falcons\"",
            "\"https://liquipedia.net/valorant/LuneX_Gaming\"",
            "\"https://pypi.org/project/made-up-pkg/\"",
            "\"/srv/other/.zshrc\"",
        ]
    );
}

#[test]
fn text_in_a_script_written_without_spaces_is_free_text() {
    assert!(super::free_text("查看生成的文档"));
    assert!(super::free_text("two words"));
    assert!(!super::free_text("ORD-4521"));
    // Three characters may be a name (`东京都`), not yet a phrase.
    assert!(!super::free_text("东京都"));
}

/// A `file://` URL of an observed path and an empty JSON list: not reported; a `file://` URL
/// of a path nothing showed is. (The agent's own folder, system files and Claude Code's task
/// ids: `tests/claude_builtin.rs`, where a session is Claude Code's.)
#[test]
fn file_urls_and_empty_json_lists() {
    let other = trace(&[
        call(1, "write_file", r#"{"path": "/repo/site/index.html", "content": "<h1>hi</h1>"}"#),
        result(1, "written"),
        call(2, "navigate", r#"{"url": "file:///repo/site/index.html"}"#),
        result(2, "navigated"),
        call(3, "navigate", r#"{"url": "file:///opt/guessed/page.html"}"#),
        error(3, "ERR_FILE_NOT_FOUND"),
        call(4, "lint_fix", r#"{"TargetLintErrorIds": "[]", "path": "/repo/site/index.html"}"#),
        result(4, "ok"),
    ]);
    assert_eq!(
        flagged_values(&other, None, "/repo"),
        ["\"file:///opt/guessed/page.html\""]
    );
}

/// Only an empty list or object, whitespace anywhere, is empty JSON text.
#[test]
fn empty_json_text_is_an_empty_list_or_object_only() {
    for empty in ["[]", "{}", " [ ] ", "{\n}", "\t[]\n"] {
        assert!(super::empty_json_text(&serde_json::json!(empty)), "{empty:?}");
    }
    for other in ["[1]", "[]]", "{}{", "[", "", "  ", "[}", "{ a }", "[] x"] {
        assert!(!super::empty_json_text(&serde_json::json!(other)), "{other:?}");
    }
    assert!(!super::empty_json_text(&serde_json::json!(["[]"])));
}
