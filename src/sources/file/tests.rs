use super::*;
use serde_json::json;

#[test]
fn failure_when_validation() {
    assert!(parse_failure_when(&json!({"pointer": "/status", "in": ["declined"]})).is_ok());
    assert!(matches!(
        parse_failure_when(&json!({"pointer": "/error"}))
            .unwrap()
            .condition,
        Condition::Exists
    ));
    let bad = [
        (
            json!({"pointer": "/s", "in": "x"}),
            "`in` must be a non-empty list",
        ),
        (
            json!({"pointer": "/s", "in": [1], "equals": 1}),
            "has several conditions (`in`, `equals`)",
        ),
        (
            json!({"pointer": "", "matches": "("}),
            "`matches` is not a usable regex",
        ),
        (json!({"pointer": "/s", "eq": 1}), "unknown key `eq`"),
        (json!({}), "needs a `pointer` or a condition"),
        (
            json!({"pointer": "/a~2", "exists": true}),
            "not a valid JSON Pointer",
        ),
        (
            json!({"pointer": 3, "exists": true}),
            "`pointer` must be a string",
        ),
        (
            json!({"pointer": "", "matches": "a{1000}{1000}"}),
            "`matches` compiles to more than the regex size limit of 1048576 bytes",
        ),
    ];
    for (v, want) in bad {
        let got = parse_failure_when(&v).unwrap_err();
        assert!(got.contains(want), "{v}: {got}");
    }
}

#[test]
fn unknown_metadata_key_is_an_error_with_a_hint() {
    let err = parse_tools_str(
        r#"{"tools": [{"name": "t", "metadata": {"side_efecting": true}}]}"#,
        "tools.json",
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tools.json:1:39: tools[0]: tool `t`: unknown key `side_efecting` in `metadata`: did you mean `side_effecting`?"
    );
}

fn error(text: &str) -> String {
    parse_tools_str(text, "tools.json").unwrap_err().to_string()
}

#[test]
fn a_misspelt_key_is_an_error_at_its_line_naming_the_nearest_key() {
    // `inputSchem` used to turn R1 off without a word.
    let text =
        "{\"tools\": [\n  {\"name\": \"read\",\n   \"inputSchem\": {\"type\": \"object\"}}\n]}";
    assert_eq!(
        error(text),
        "tools.json:3:4: tools[0]: unknown key `inputSchem` in tool `read`: did you mean `inputSchema`?"
    );
    assert_eq!(
        error("{\"tools\": {}, \"off_limit\": {\"sources\": [\"a\"]}}"),
        "tools.json:1:15: unknown key `off_limit` in the tools file: did you mean `off_limits`?"
    );
    assert_eq!(
        error("{\"tools\": {\"t\": {\"metadata\": {}, \"output_schem\": {}}}}"),
        "tools.json:1:34: tools.t: unknown key `output_schem` in tool `t`: did you mean `output_schema`?"
    );
    // OpenAI's nested function object is checked too.
    assert!(
        error("[{\"type\": \"function\", \"function\": {\"name\": \"f\", \"paramters\": {}}}]")
            .ends_with("unknown key `paramters` in tool `f`: did you mean `parameters`?")
    );
    // Private and extension keys, and a provider's built-in tool settings, are accepted.
    parse_tools_str(
        r#"{"_comment": "x", "tools": [{"name": "t", "_todo": [], "x-team": "a"},
                {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}]}"#,
        "x",
    )
    .unwrap();
}

#[test]
fn a_malformed_requires_is_an_error_at_its_line() {
    let text = "{\"tools\": {\n \"refund\": {\"metadata\": {\n  \"requires\": [{\"tool\": \"get_order\", \"same\": \"order_id\"}]}}}}";
    assert_eq!(
        error(text),
        "tools.json:3:38: tools.refund: tool `refund`: `same` must be a list of argument names, e.g. [\"order_id\"]"
    );
    // A required tool named like a declared one is a typo.
    let text = r#"{"tools": {"get_order": {}, "refund": {"metadata": {"requires": [{"tool": "get_ordr"}]}}}}"#;
    assert_eq!(
        error(text),
        "tools.json:1:67: tools.refund: tool `refund` requires `get_ordr`, which no tool here declares: did you mean `get_order`?"
    );
    let text = r#"{"tools": {"get_order": {}, "refund": {"schema": {"properties": {"order_id": {}}},
            "metadata": {"requires": [{"tool": "get_order", "same": ["orderid"]}]}}}}"#;
    assert!(
        error(text)
            .ends_with("but its input schema has no argument `orderid`: did you mean `order_id`?"),
        "{}",
        error(text)
    );
    let r = parse_tools_str(
            r#"{"tools": {"get_order": {}, "refund": {"metadata": {"requires": [{"tool": "get_order", "same": ["order_id"]}]}}}}"#,
            "x",
        )
        .unwrap();
    assert_eq!(
        r.get("refund").unwrap().metadata.requires[0].tool,
        "get_order"
    );
}

#[test]
fn an_output_schema_that_is_not_a_schema_is_an_error_at_its_line() {
    let text = "{\"tools\": [{\"name\": \"t\",\n  \"outputSchema\": {\"type\": \"objekt\"}}]}";
    assert!(
            error(text).starts_with("tools.json:2:3: tools[0]: tool `t`: the output schema is not a valid JSON Schema at `/type`"),
            "{}",
            error(text)
        );
    let text = r#"{"tools": {"t": {"output_schema": "object"}}}"#;
    assert!(error(text).contains("the output schema is a string, not a JSON Schema"));
    // Both spellings, and `metadata.output_schema`, declare it.
    let r = parse_tools_str(
        r#"{"tools": {"a": {"output_schema": {"type": "object"}}, "b": {"outputSchema": true},
                          "c": {"metadata": {"output_schema": {"type": "array"}}}}}"#,
        "x",
    )
    .unwrap();
    for t in ["a", "b", "c"] {
        assert!(r.get(t).unwrap().output_schema.is_some(), "{t}");
    }
}

#[test]
fn a_metadata_override_takes_requires_but_not_an_output_schema() {
    let m = parse_metadata(&serde_json::json!({"requires": [{"tool": "get_order"}]})).unwrap();
    assert_eq!(m.requires[0].tool, "get_order");
    let e = parse_metadata(&serde_json::json!({"output_schema": {"type": "object"}}));
    assert!(
        e.unwrap_err()
            .contains("declare it with the tool in its tools file")
    );
}

#[test]
fn off_limits_alone_is_a_contract() {
    let r = parse_tools_str(
        r#"{"tools": {}, "off_limits": {"sources": ["tbench.ai"], "reason": "r"}}"#,
        "x",
    )
    .unwrap();
    assert_eq!(r.off_limits.unwrap().sources, vec!["tbench.ai".to_owned()]);
    let r = parse_tools_str(r#"{"off_limits": {"sources": ["a"]}}"#, "x").unwrap();
    assert!(r.is_empty() && r.off_limits.is_some());
    assert!(
        error(r#"{"tools": {}, "off_limits": {"sources": []}}"#)
            .starts_with("tools.json:1:30: `off_limits.sources` must be a non-empty list")
    );
}

#[test]
fn the_python_tracelints_own_starter_contracts_mean_the_same() {
    // `tracelint init` leaves behaviour undeclared (`null`) with `_todo`s and a `_comment`.
    let r = load("python-tracelint-init.json");
    let charge = r.get("charge_card").unwrap();
    assert!(charge.schema.is_some());
    assert_eq!(charge.metadata, ToolMetadata::default());
    // `init --from-mcp` keeps the server's output schema and idempotency hint.
    let r = load("python-tracelint-init-from-mcp.json");
    let time = r.get("get_current_time").unwrap();
    assert_eq!(
        time.output_schema.as_ref().unwrap()["required"],
        serde_json::json!(["timezone", "datetime", "day_of_week", "is_dst"])
    );
    assert_eq!(time.metadata.idempotent, Some(true));
}

#[test]
fn every_saved_tools_list_reply_still_parses() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/real/mcp");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut n = 0;
    for e in entries {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.contains("tools-list") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        if text.contains("\"pages\"") {
            // Several replies in one file: the MCP tests read them page by page.
            continue;
        }
        parse_tools_str(&text, &name).unwrap_or_else(|e| panic!("{e}"));
        n += 1;
    }
    assert!(n > 10, "{n}");
}

#[test]
fn annotations_map_only_what_is_stated() {
    let m = |v: Value| metadata_from_annotations(v.as_object().unwrap());
    assert_eq!(m(json!({"readOnlyHint": true})).side_effecting, Some(false));
    assert_eq!(m(json!({"readOnlyHint": false})).side_effecting, Some(true));
    assert_eq!(
        m(json!({"destructiveHint": true})).side_effecting,
        Some(true)
    );
    assert_eq!(m(json!({"title": "x"})).side_effecting, None);
    assert_eq!(m(json!({"idempotentHint": true})).idempotent, Some(true));
}

#[test]
fn explicit_metadata_wins_over_annotations() {
    let r = parse_tools_str(
        r#"{"tools": [{"name": "t", "inputSchema": {}, "annotations": {"readOnlyHint": true},
                 "metadata": {"side_effecting": true}}]}"#,
        "x",
    )
    .unwrap();
    assert_eq!(r.get("t").unwrap().metadata.side_effecting, Some(true));
}

#[test]
fn invalid_json_names_line_and_column() {
    let err = parse_tools_str("{\n  \"tools\": [,]\n}", "tools.json").unwrap_err();
    assert!(
        err.to_string().starts_with("tools.json:2:13: invalid JSON"),
        "{err}"
    );
}

fn load(name: &str) -> ToolRegistry {
    let path = format!("{}/fixtures/tools/{name}", env!("CARGO_MANIFEST_DIR"));
    parse_tools_str(&std::fs::read_to_string(&path).unwrap(), name).unwrap()
}

fn assert_same_as_mcp_list(name: &str) {
    let want = load("mcp-list.json");
    let got = load(name);
    let names = |r: &ToolRegistry| r.names().map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(names(&got), names(&want), "{name}");
    for spec in want.iter() {
        let other = got.get(&spec.name).unwrap();
        assert!(
            spec.same_contract(other),
            "{name}: `{}` differs:\n{spec:#?}\n{other:#?}",
            spec.name
        );
    }
    let send = got.get("send_email").unwrap();
    assert_eq!(
        send.value_origins.get("to"),
        Some(&ValueOrigin::Provided),
        "{name}"
    );
    assert!(send.metadata.failure_when.is_some(), "{name}");
}

#[test]
fn shape_bare_array() {
    assert_same_as_mcp_list("bare-array.json");
}

#[test]
fn shape_openai_tools() {
    assert_same_as_mcp_list("openai.json");
}

#[test]
fn shape_anthropic_tools() {
    assert_same_as_mcp_list("anthropic.json");
}

#[test]
fn shape_tools_list_reply_with_annotations() {
    assert_same_as_mcp_list("tools-list-reply.json");
}

#[test]
fn shape_seed002_map() {
    assert_same_as_mcp_list("seed002-map.json");
}

#[test]
fn value_origins_map_alone() {
    let r = parse_tools_str(r#"{"tools": {"t": {"schema": {"type": "object"}, "value_origins": {"id": "provided", "key": "generated"}}}}"#, "x").unwrap();
    let t = r.get("t").unwrap();
    assert_eq!(t.value_origins["id"], ValueOrigin::Provided);
    assert_eq!(t.value_origins["key"], ValueOrigin::Generated);
    let e = parse_tools_str(
        r#"{"tools": {"t": {"value_origins": {"id": "maybe"}}}}"#,
        "x",
    )
    .unwrap_err();
    assert!(e.to_string().contains("`value_origins.id` must be"), "{e}");
}

#[test]
fn duplicate_tool_across_groups_must_agree() {
    let e = parse_tools_str(r#"{"a": [{"name": "t", "parameters": {"type": "object"}}], "b": [{"name": "t", "parameters": {"type": "string"}}]}"#, "x").unwrap_err();
    assert!(
        e.to_string().contains("tool `t` is declared differently"),
        "{e}"
    );
}

/// `builtin` defers a tool to coding agents' built-in schemas; anything else is an error at its
/// line naming the agents.
#[test]
fn builtin_names_coding_agents_only() {
    let ok = parse_tools_str(
        r#"{"tools": [{"name": "Read", "builtin": "builtin:claude-code"},
            {"name": "read_file", "builtin": ["builtin:gemini-cli", "builtin:codex", "builtin:codex"]}]}"#,
        "tools.json",
    )
    .unwrap();
    assert_eq!(ok.get("Read").unwrap().builtin_of, ["builtin:claude-code"]);
    assert_eq!(
        ok.get("read_file").unwrap().builtin_of,
        ["builtin:gemini-cli", "builtin:codex"]
    );
    let bad = error("{\"tools\": [\n {\"name\": \"Read\", \"builtin\": \"builtin:claude-code@2.1.0\"}]}");
    assert!(
        bad.starts_with("tools.json:2:19: tools[0]: tool `Read`: `builtin` names the coding agents"),
        "{bad}"
    );
    assert!(error(r#"{"tools": [{"name": "R", "builtin": []}]}"#).contains("one of \"builtin:claude-code\""));
}
