//! Tests of unit assembly: joining, provenance seeding, unanswered calls.

use super::*;
use crate::adapters::common::chat::{CarriedResult, EmittedCall};
use crate::model::InputRef;
use serde_json::{Value, json};

fn at(line: u32) -> Location {
    Location::new(line, 1, format!("/{line}"))
}

fn msg(role: Role, text: &str, calls: Vec<EmittedCall>) -> ChatMessage {
    ChatMessage {
        role,
        text: text.into(),
        calls,
        results: Vec::new(),
    }
}

fn call(id: Option<&str>, name: &str, args: Value) -> EmittedCall {
    EmittedCall {
        id: id.map(str::to_owned),
        name: name.into(),
        args: Args::Known(args),
        raw: None,
    }
}

fn llm(line: u32, input: Vec<ChatMessage>, output: Vec<ChatMessage>) -> Unit {
    Unit::Llm(LlmUnit {
        at: at(line),
        meta: StepMeta::default(),
        input,
        output,
    })
}

fn tool(line: u32, name: &str, id: Option<&str>, args: Args) -> Unit {
    Unit::Tool(ToolUnit {
        at: at(line),
        meta: StepMeta::default(),
        name: name.into(),
        call_id: id.map(str::to_owned),
        fallback_id: format!("span{line}"),
        args,
        raw_args: None,
        result: ToolResult::new(None, json!("ok"), ResultStatus::Ok),
    })
}

/// `kind name id @line` per step.
fn render(units: &[Unit], policy: Unanswered) -> Vec<String> {
    let mut t = Trace::new(
        "r",
        InputRef {
            path: "f".into(),
            format: "x".into(),
        },
    );
    assemble(units.to_vec(), &mut t, policy);
    t.steps
        .iter()
        .map(|s| match &s.kind {
            StepKind::Message(m) => format!("msg {:?} {} @{}", m.role, m.content, s.at.line),
            StepKind::ToolCall(c) => format!(
                "call {} {} {:?} @{}",
                c.name,
                c.call_id.as_deref().unwrap_or("-"),
                c.origin,
                s.at.line
            ),
            StepKind::ToolResult(r) => {
                format!(
                    "result {} @{}",
                    r.call_id.as_deref().unwrap_or("-"),
                    s.at.line
                )
            }
        })
        .collect()
}

#[test]
fn a_model_call_and_its_tool_record_are_one_call() {
    let units = vec![
        llm(
            1,
            vec![msg(Role::User, "weather in Paris?", vec![])],
            vec![msg(
                Role::Assistant,
                "",
                vec![call(Some("c1"), "get", json!({"city": "Paris"}))],
            )],
        ),
        tool(2, "get", Some("c1"), Args::Known(json!({"city": "Paris"}))),
    ];
    assert_eq!(
        render(&units, Unanswered::Keep),
        [
            "msg User weather in Paris? @1",
            "call get c1 Model @1",
            "result c1 @2"
        ]
    );
}

#[test]
fn joined_by_name_in_order_when_records_carry_no_id() {
    let units = vec![
        llm(
            1,
            vec![],
            vec![msg(
                Role::Assistant,
                "",
                vec![call(Some("a"), "get", json!({"n": 1}))],
            )],
        ),
        llm(
            2,
            vec![],
            vec![msg(
                Role::Assistant,
                "",
                vec![call(Some("b"), "get", json!({"n": 2}))],
            )],
        ),
        tool(3, "get", None, Args::Known(json!({"input": {"n": 1}}))),
        tool(4, "get", None, Args::Known(json!({"input": {"n": 2}}))),
    ];
    assert_eq!(
        render(&units, Unanswered::Keep),
        [
            "call get a Model @1",
            "call get b Model @2",
            "result a @3",
            "result b @4"
        ]
    );
}

#[test]
fn unknown_model_arguments_fall_back_to_the_record() {
    let mut lossy = call(Some("c"), "get", json!({}));
    lossy.args = Args::Unknown("not recorded".into());
    let units = vec![
        llm(1, vec![], vec![msg(Role::Assistant, "", vec![lossy])]),
        tool(2, "get", Some("c"), Args::Known(json!({"x": 1}))),
    ];
    assert_eq!(
        render(&units, Unanswered::Keep),
        ["call get c ToolRecord @2", "result c @2"]
    );
}

#[test]
fn unanswered_calls_and_results_from_later_messages() {
    let mut answer = msg(Role::Tool, "sunny", vec![]);
    answer.results.push(CarriedResult {
        call_id: Some("c".into()),
        name: None,
        content: json!("sunny"),
        is_error: Some(true),
    });
    let units = vec![
        llm(
            1,
            vec![
                msg(Role::System, "sys", vec![]),
                msg(Role::User, "q", vec![]),
            ],
            vec![msg(
                Role::Assistant,
                "",
                vec![call(Some("c"), "get", json!({}))],
            )],
        ),
        llm(
            5,
            vec![
                msg(Role::System, "sys", vec![]),
                msg(Role::User, "q", vec![]),
                answer,
                msg(Role::User, "and now?", vec![]),
            ],
            vec![msg(Role::Assistant, "done", vec![])],
        ),
    ];
    assert_eq!(
        render(&units, Unanswered::Keep),
        [
            "msg System sys @1",
            "msg User q @1",
            "call get c Model @1",
            "result c @5",
            "msg User and now? @5",
            "msg Assistant done @5"
        ]
    );
    // With tool records elsewhere, Langfuse drops a model call no record answers.
    let mut with_tool = units.clone();
    with_tool.push(tool(9, "other", None, Args::Known(json!({}))));
    let got = render(&with_tool, Unanswered::KeepWithoutToolRecords);
    assert!(!got.iter().any(|s| s.starts_with("call get")), "{got:?}");
    // …but not one whose arguments no tool could have parsed.
    let mut broken = with_tool.clone();
    if let Unit::Llm(l) = &mut broken[0] {
        l.output[0].calls[0].args = Args::Malformed("EOF".into());
    }
    let got = render(&broken, Unanswered::KeepWithoutToolRecords);
    assert!(got.contains(&"call get c Model @1".to_owned()), "{got:?}");
    assert!(
        got.contains(&"call other span9 ToolRecord @9".to_owned()),
        "{got:?}"
    );
}

#[test]
fn a_repeated_call_id_is_not_a_second_call() {
    let units = vec![
        llm(
            1,
            vec![],
            vec![msg(
                Role::Assistant,
                "",
                vec![call(Some("c"), "get", json!({}))],
            )],
        ),
        llm(
            2,
            vec![],
            vec![msg(
                Role::Assistant,
                "",
                vec![call(Some("c"), "get", json!({}))],
            )],
        ),
    ];
    assert_eq!(render(&units, Unanswered::Keep), ["call get c Model @1"]);
}

#[test]
fn a_turn_said_twice_is_two_turns() {
    let yes = || msg(Role::User, "yes", vec![]);
    let units = vec![
        llm(
            1,
            vec![msg(Role::User, "book it?", vec![]), yes()],
            vec![msg(Role::Assistant, "sure?", vec![])],
        ),
        llm(
            2,
            vec![
                msg(Role::User, "book it?", vec![]),
                yes(),
                msg(Role::Assistant, "sure?", vec![]),
                yes(),
            ],
            vec![],
        ),
    ];
    assert_eq!(
        render(&units, Unanswered::Keep),
        [
            "msg User book it? @1",
            "msg User yes @1",
            "msg Assistant sure? @1",
            "msg User yes @2"
        ]
    );
}
