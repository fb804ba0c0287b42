//! What one span is to the linter: a model call (its input and output messages, the tools it
//! was offered), a tool execution (name, call id, arguments, result, status), or neither. The
//! dialect is told by its own marks: OpenInference `openinference.span.kind` (or Phoenix's
//! top-level `span_kind`), GenAI `gen_ai.operation.name`, the Vercel AI SDK `ai.operationId`,
//! legacy OpenLLMetry keys. Status in all its shapes and `exception` events are structured
//! errors; free text never is.

use serde_json::Value;

use crate::adapters::common::chat::{self, ChatMessage, Side, ToolDef, str_of};
use crate::adapters::common::record::{Envelopes, RecordedResult, record_args, record_result};
use crate::model::{Args, ResultStatus};

use super::attrs::text;
use super::spans::{Span, StatusCode};
use super::{genai, openinference};

/// A model call.
#[derive(Debug, Clone, Default)]
pub struct LlmRead {
    /// What it was sent.
    pub input: Vec<ChatMessage>,
    /// What it answered.
    pub output: Vec<ChatMessage>,
    /// Tools it was offered.
    pub tools: Vec<ToolDef>,
    /// The model.
    pub model: Option<String>,
}

/// A tool execution.
#[derive(Debug, Clone)]
pub struct ToolRead {
    /// The tool's name.
    pub name: String,
    /// The call id the span records.
    pub call_id: Option<String>,
    /// Arguments.
    pub args: Args,
    /// Their text, when recorded as a string.
    pub raw_args: Option<String>,
    /// The result.
    pub result: RecordedResult,
    /// `Error` from the span's status, an exception event, `error.type` or the result's own
    /// envelope; `Ok` from an explicit OK.
    pub status: ResultStatus,
    /// The structured error message.
    pub error: Option<String>,
    /// The tool's declared parameters, when the span carries them.
    pub schema: Option<Value>,
}

/// What a span is.
#[derive(Debug, Clone)]
pub enum Reading {
    /// A model call.
    Llm(LlmRead),
    /// A tool execution.
    Tool(Box<ToolRead>),
    /// Anything else (agent, chain, retriever…).
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Llm,
    Tool,
    Other,
}

fn kind(span: &Span) -> Kind {
    let a = &span.attrs;
    let oi = text(a, "openinference.span.kind").or(span.span_kind.as_deref());
    if let Some(k) = oi {
        return match k.to_ascii_uppercase().as_str() {
            "LLM" => Kind::Llm,
            "TOOL" => Kind::Tool,
            _ => Kind::Other,
        };
    }
    if let Some(op) = text(a, "gen_ai.operation.name") {
        return match op {
            "chat" | "text_completion" | "generate_content" | "completion" => Kind::Llm,
            "execute_tool" => Kind::Tool,
            _ => Kind::Other,
        };
    }
    if let Some(op) = text(a, "ai.operationId") {
        return if op.ends_with(".doGenerate") || op.ends_with(".doStream") {
            Kind::Llm
        } else if op == "ai.toolCall" {
            Kind::Tool
        } else {
            Kind::Other
        };
    }
    if text(a, "llm.request.type").is_some()
        || a.keys().any(|k| {
            k.starts_with("llm.input_messages.")
                || k.starts_with("llm.output_messages.")
                || k.starts_with("gen_ai.prompt")
                || k.starts_with("gen_ai.completion")
                || k == "gen_ai.input.messages"
        })
    {
        return Kind::Llm;
    }
    if text(a, "gen_ai.tool.name").is_some() || text(a, "tool.name").is_some() {
        return Kind::Tool;
    }
    Kind::Other
}

/// Read one span.
pub fn read(span: &Span) -> Reading {
    match kind(span) {
        Kind::Llm => Reading::Llm(llm(span)),
        Kind::Tool => Reading::Tool(Box::new(tool(span))),
        Kind::Other => Reading::Other,
    }
}

fn llm(span: &Span) -> LlmRead {
    let a = &span.attrs;
    let mut tools = openinference::offered_tools(a);
    tools.extend(genai::offered_tools(a));
    let mut from_value = |key: &str, side: Side| -> Option<Vec<ChatMessage>> {
        let v = genai::json_attr(a, key)?;
        let conv = chat::read(&v, side);
        tools.extend(conv.tools);
        Some(conv.messages)
    };
    let non_empty = |m: Vec<ChatMessage>| (!m.is_empty()).then_some(m);
    let input = non_empty(openinference::messages(
        a,
        "llm.input_messages",
        Side::Input,
    ))
    .or_else(|| genai::input_messages(a).map(|c| c.messages))
    .or_else(|| non_empty(openinference::messages(a, "gen_ai.prompt", Side::Input)))
    .or_else(|| genai::deprecated(a, "gen_ai.prompt", Side::Input).map(|c| c.messages))
    .or_else(|| genai::vercel_input(a).map(|c| c.messages))
    .or_else(|| from_value("input.value", Side::Input))
    .or_else(|| from_value("input", Side::Input))
    .unwrap_or_default();
    let output = non_empty(openinference::messages(
        a,
        "llm.output_messages",
        Side::Output,
    ))
    .or_else(|| genai::output_messages(a).map(|c| c.messages))
    .or_else(|| {
        non_empty(openinference::messages(
            a,
            "gen_ai.completion",
            Side::Output,
        ))
    })
    .or_else(|| genai::deprecated(a, "gen_ai.completion", Side::Output).map(|c| c.messages))
    .or_else(|| genai::vercel_output(a).map(|c| c.messages))
    .or_else(|| from_value("output.value", Side::Output))
    .or_else(|| from_value("output", Side::Output))
    .unwrap_or_default();
    let model = [
        "llm.model_name",
        "gen_ai.response.model",
        "gen_ai.request.model",
        "ai.response.model",
        "ai.model.id",
    ]
    .iter()
    .find_map(|k| text(a, k))
    .map(str::to_owned);
    LlmRead {
        input,
        output,
        tools,
        model,
    }
}

/// Where each dialect keeps a tool's arguments and result, in priority order.
const ARG_KEYS: &[&str] = &[
    "input.value",
    "gen_ai.tool.call.arguments",
    "ai.toolCall.args",
    "ai.toolCall.input",
    "tool_arguments",
    "gcp.vertex.agent.tool_call_args",
    "input",
];
const RESULT_KEYS: &[&str] = &[
    "output.value",
    "gen_ai.tool.call.result",
    "ai.toolCall.result",
    "ai.toolCall.output",
    "tool_response",
    "gcp.vertex.agent.tool_response",
    "output",
];

fn tool(span: &Span) -> ToolRead {
    let a = &span.attrs;
    let name = ["tool.name", "gen_ai.tool.name", "ai.toolCall.name"]
        .iter()
        .find_map(|k| text(a, k))
        .map(str::to_owned)
        .unwrap_or_else(|| {
            let n = span.name.as_str();
            n.strip_prefix("execute_tool ").unwrap_or(n).to_owned()
        });
    let genai = a.keys().any(|k| k.starts_with("gen_ai."));
    let missing = if genai && !a.contains_key("input.value") {
        "not recorded: the span has no `gen_ai.tool.call.arguments` (content capture is off; set `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`)"
    } else {
        "not recorded: the span has no `input.value` (hidden by `OPENINFERENCE_HIDE_INPUTS`, or not captured)"
    };
    let env = Envelopes {
        langsmith_input: a.keys().any(|k| k.starts_with("langsmith.")),
    };
    let (args, raw_args) = record_args(ARG_KEYS.iter().find_map(|k| a.get(*k)), env, missing);
    let result = record_result(RESULT_KEYS.iter().find_map(|k| a.get(*k)));
    let exception = span.events.iter().find(|e| e.name == "exception");
    let error_type = text(a, "error.type");
    let failed = span.status == StatusCode::Error
        || exception.is_some()
        || error_type.is_some()
        || result.status == ResultStatus::Error;
    let status = if failed {
        ResultStatus::Error
    } else if span.status == StatusCode::Ok || result.status == ResultStatus::Ok {
        ResultStatus::Ok
    } else {
        ResultStatus::Unknown
    };
    let error = failed.then(|| {
        span.status_message
            .clone()
            .or_else(|| {
                let e = exception?;
                let kind = text(&e.attrs, "exception.type");
                let msg = text(&e.attrs, "exception.message");
                match (kind, msg) {
                    (Some(k), Some(m)) => Some(format!("{k}: {m}")),
                    (k, m) => k.or(m).map(str::to_owned),
                }
            })
            .or_else(|| error_type.map(str::to_owned))
            .unwrap_or_else(|| "the tool's record says it failed".to_owned())
    });
    ToolRead {
        call_id: [
            "tool.id",
            "tool_call.id",
            "gen_ai.tool.call.id",
            "ai.toolCall.id",
        ]
        .iter()
        .find_map(|k| str_of(a.get(*k)))
        .or_else(|| result.call_id.clone()),
        schema: openinference::declared_parameters(a),
        name,
        args,
        raw_args,
        result,
        status,
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::otel::spans::read_record;
    use crate::model::Location;
    use serde_json::json;

    fn span(v: Value) -> Span {
        read_record(v.to_string().as_bytes(), &Location::default())
            .unwrap()
            .remove(0)
    }

    #[test]
    fn status_in_every_shape_is_a_structured_error() {
        for status in [
            json!({"status_code": "ERROR"}),
            json!({"status": {"code": "STATUS_CODE_ERROR"}}),
            json!({"status": {"code": 2}}),
            json!({"status": {"status_code": "ERROR"}}),
            json!({"events": [{"name": "exception", "attributes": {"exception.type": "ValueError", "exception.message": "bad"}}]}),
        ] {
            let mut v = json!({"name": "t", "context": {"trace_id": "a", "span_id": "b"},
                "attributes": {"openinference.span.kind": "TOOL", "tool.name": "t", "input.value": "{}"}});
            for (k, x) in status.as_object().unwrap() {
                v[k] = x.clone();
            }
            let Reading::Tool(t) = read(&span(v)) else {
                panic!("not a tool")
            };
            assert_eq!(t.status, ResultStatus::Error, "{status}");
        }
        let ok = span(json!({"name": "t", "status": {"code": 1},
            "attributes": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "w"}}));
        let Reading::Tool(t) = read(&ok) else {
            panic!("not a tool")
        };
        assert_eq!(t.status, ResultStatus::Ok);
        assert!(
            matches!(&t.args, Args::Unknown(r) if r.contains("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"))
        );
        assert!(!t.result.recorded);
    }

    #[test]
    fn python_literal_arguments_are_parsed() {
        let s = span(json!({"name": "lookup", "span_kind": "TOOL",
            "attributes": {"tool.name": "lookup", "input.value": "{'order_id': 'A1', 'urgent': True}"}}));
        let Reading::Tool(t) = read(&s) else {
            panic!("not a tool")
        };
        assert_eq!(
            t.args,
            Args::Known(json!({"order_id": "A1", "urgent": true}))
        );
    }

    #[test]
    fn kinds() {
        let llm =
            span(json!({"ai.operationId": "ai.generateText.doGenerate", "ai.response.text": "hi"}));
        assert!(matches!(read(&llm), Reading::Llm(l) if l.output[0].text == "hi"));
        let wrapper = span(json!({"ai.operationId": "ai.generateText", "ai.response.text": "hi"}));
        assert!(matches!(read(&wrapper), Reading::Other));
        let agent =
            span(json!({"name": "a", "span_kind": "AGENT", "attributes": {"input.value": "x"}}));
        assert!(matches!(read(&agent), Reading::Other));
    }
}
