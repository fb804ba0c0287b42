//! The four ways a run is written: native JSON Lines, Claude Code session JSONL, tau-bench-like
//! OpenAI arrays and OTLP JSON with OpenInference spans. Each writer remembers the size of the
//! largest single trace it wrote (the memory budget of issue 10 is stated against it).

use std::io::{self, Write};

use serde_json::{Value, json};

use crate::runs::{Event, Run};

/// A writer of one format.
pub(crate) trait Writer {
    /// The largest single trace written so far, in bytes.
    fn largest(&self) -> usize;
}

/// Counts the bytes that pass through.
struct Counted<'a, W: Write> {
    inner: &'a mut W,
    bytes: usize,
}

impl<W: Write> Write for Counted<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

fn counted<W: Write>(inner: &mut W) -> Counted<'_, W> {
    Counted { inner, bytes: 0 }
}

fn content_text(result: &Value) -> String {
    match result {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Native traces, one per line.
pub(crate) struct Native<W: Write> {
    out: W,
    largest: usize,
}

impl<W: Write> Native<W> {
    pub(crate) fn new(out: W) -> Self {
        Self { out, largest: 0 }
    }

    fn steps(run: &Run) -> Vec<Value> {
        let mut steps = Vec::with_capacity(run.steps());
        for e in &run.events {
            match e {
                Event::User(t) => {
                    steps.push(json!({"type": "message", "role": "user", "content": t}));
                }
                Event::Assistant(t) => {
                    steps.push(json!({"type": "message", "role": "assistant", "content": t}));
                }
                Event::Call(c) => {
                    steps.push(json!({"type": "tool_call", "call_id": c.id, "name": c.name, "args": c.args}));
                    steps.push(
                        json!({"type": "tool_result", "call_id": c.id, "content": c.result,
                        "status": if c.error { "error" } else { "ok" }}),
                    );
                }
            }
        }
        steps
    }

    pub(crate) fn write(&mut self, run: &Run) -> io::Result<()> {
        let mut out = counted(&mut self.out);
        let trace = json!({"run_id": run.id, "steps": Self::steps(run), "final": run.final_answer});
        serde_json::to_writer(&mut out, &trace)?;
        out.write_all(b"\n")?;
        self.largest = self.largest.max(out.bytes);
        Ok(())
    }

    pub(crate) fn finish(mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// One trace as a JSON document, one step per line.
    pub(crate) fn write_document(run: &Run, out: &mut impl Write) -> io::Result<()> {
        write!(out, "{{\"run_id\": {}, \"steps\": [", json!(run.id))?;
        for (i, step) in Self::steps(run).iter().enumerate() {
            out.write_all(if i == 0 { b"\n  " } else { b",\n  " })?;
            serde_json::to_writer(&mut *out, step)?;
        }
        writeln!(out, "\n], \"final\": {}}}", json!(run.final_answer))
    }
}

impl<W: Write> Writer for Native<W> {
    fn largest(&self) -> usize {
        self.largest
    }
}

/// Claude Code session files: one session per file.
#[derive(Default)]
pub(crate) struct Claude {
    largest: usize,
}

impl Claude {
    pub(crate) fn write_to(&mut self, run: &Run, out: &mut impl Write) -> io::Result<()> {
        let mut out = counted(out);
        let session = format!("{:08x}-5e55-4a1d-9c0e-{:012x}", run.index, run.index * 7919);
        let mut parent = Value::Null;
        let mut n = 0u64;
        let mut line = |kind: &str,
                        message: Value,
                        parent: &mut Value,
                        out: &mut Counted<'_, _>| {
            n += 1;
            let uuid = format!("{:08x}-0000-4000-8000-{:012x}", run.index, n);
            let record = json!({"parentUuid": parent, "isSidechain": false, "userType": "external",
                "cwd": "/home/dev/shop", "sessionId": session, "version": "2.1.53", "gitBranch": "main",
                "type": kind, "message": message, "uuid": uuid,
                "timestamp": format!("2026-02-24T{:02}:{:02}:{:02}.000Z", (n / 3600) % 24, (n / 60) % 60, n % 60)});
            *parent = Value::String(uuid);
            serde_json::to_writer(&mut *out, &record)?;
            out.write_all(b"\n")
        };
        let assistant = |n: usize, content: Value| {
            json!({"id": format!("msg_{n:06}"), "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-5", "content": content, "stop_reason": "tool_use",
                "usage": {"input_tokens": 1200 + n, "output_tokens": 80}})
        };
        for (i, e) in run.events.iter().enumerate() {
            match e {
                Event::User(t) => {
                    line(
                        "user",
                        json!({"role": "user", "content": t}),
                        &mut parent,
                        &mut out,
                    )?;
                }
                Event::Assistant(t) => {
                    let m = assistant(i, json!([{"type": "text", "text": t}]));
                    line("assistant", m, &mut parent, &mut out)?;
                }
                Event::Call(c) => {
                    let m = assistant(
                        i,
                        json!([{"type": "tool_use", "id": c.id, "name": c.name, "input": c.args}]),
                    );
                    line("assistant", m, &mut parent, &mut out)?;
                    let mut result = json!({"type": "tool_result", "tool_use_id": c.id,
                        "content": content_text(&c.result)});
                    if c.error {
                        result["is_error"] = json!(true);
                    }
                    line(
                        "user",
                        json!({"role": "user", "content": [result]}),
                        &mut parent,
                        &mut out,
                    )?;
                }
            }
        }
        let m = assistant(
            run.events.len(),
            json!([{"type": "text", "text": run.final_answer}]),
        );
        line("assistant", m, &mut parent, &mut out)?;
        self.largest = self.largest.max(out.bytes);
        Ok(())
    }
}

impl Writer for Claude {
    fn largest(&self) -> usize {
        self.largest
    }
}

/// tau-bench-like result files: `[{task_id, reward, info, traj: [messages], trial}, …]`.
#[derive(Default)]
pub(crate) struct OpenAi {
    largest: usize,
    first: bool,
}

impl OpenAi {
    pub(crate) fn begin(&mut self) {
        self.first = true;
    }

    pub(crate) fn write_to(&mut self, run: &Run, out: &mut impl Write) -> io::Result<()> {
        out.write_all(if self.first { b"[\n" } else { b",\n" })?;
        self.first = false;
        let mut traj = vec![
            json!({"role": "system", "content": "You are a customer support agent for an online shop. Use the tools."}),
        ];
        for e in &run.events {
            match e {
                Event::User(t) => traj.push(json!({"role": "user", "content": t})),
                Event::Assistant(t) => traj.push(json!({"role": "assistant", "content": t})),
                Event::Call(c) => {
                    traj.push(json!({"role": "assistant", "content": null, "tool_calls": [
                        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.args.to_string()}}]}));
                    traj.push(json!({"role": "tool", "tool_call_id": c.id, "name": c.name,
                        "content": content_text(&c.result)}));
                }
            }
        }
        traj.push(json!({"role": "assistant", "content": run.final_answer}));
        let task = json!({"task_id": run.index, "reward": 1.0, "info": {"source": "bench"},
            "traj": traj, "trial": 0});
        let mut out = counted(out);
        serde_json::to_writer(&mut out, &task)?;
        self.largest = self.largest.max(out.bytes);
        Ok(())
    }

    pub(crate) fn end(&mut self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(b"\n]\n")
    }
}

impl Writer for OpenAi {
    fn largest(&self) -> usize {
        self.largest
    }
}

/// OTLP JSON exports: one `resourceSpans` entry per run, OpenInference LLM and TOOL spans.
#[derive(Default)]
pub(crate) struct Otel {
    largest: usize,
    first: bool,
}

fn attrs(pairs: &[(&str, Value)]) -> Value {
    Value::Array(
        pairs
            .iter()
            .map(|(k, v)| {
                let value = match v {
                    Value::String(s) => json!({"stringValue": s}),
                    other => json!({"intValue": other.to_string()}),
                };
                json!({"key": k, "value": value})
            })
            .collect(),
    )
}

impl Otel {
    pub(crate) fn begin(&mut self) {
        self.first = true;
    }

    pub(crate) fn write_to(&mut self, run: &Run, out: &mut impl Write) -> io::Result<()> {
        out.write_all(if self.first {
            b"{\"resourceSpans\": [\n"
        } else {
            b",\n"
        })?;
        self.first = false;
        let trace_id = format!("{:032x}", run.index as u128 * 0x1_0000_0001 + 7);
        let base = 1_767_225_600_000_000_000u64 + run.index as u64 * 1_000_000_000_000;
        let mut spans = Vec::new();
        let mut span_no = 0u64;
        let mut pending_user: Option<&str> = None;
        let mut t = base;
        let mut span = |name: &str, a: Value, status: u8, t: &mut u64| {
            span_no += 1;
            *t += 1_000_000;
            json!({"traceId": trace_id, "spanId": format!("{:08x}{span_no:08x}", run.index),
                "parentSpanId": "", "name": name, "kind": 1,
                "startTimeUnixNano": t.to_string(), "endTimeUnixNano": (*t + 500_000).to_string(),
                "status": {"code": status}, "attributes": a})
        };
        for e in &run.events {
            match e {
                Event::User(u) => pending_user = Some(u),
                Event::Assistant(text) => {
                    let a = attrs(&[
                        ("openinference.span.kind", json!("LLM")),
                        ("llm.output_messages.0.message.role", json!("assistant")),
                        ("llm.output_messages.0.message.content", json!(text)),
                    ]);
                    spans.push(span("ChatCompletion", a, 1, &mut t));
                }
                Event::Call(c) => {
                    let mut pairs = vec![
                        ("openinference.span.kind", json!("LLM")),
                        ("llm.model_name", json!("gpt-4o")),
                    ];
                    if let Some(u) = pending_user.take() {
                        pairs.push(("llm.input_messages.0.message.role", json!("user")));
                        pairs.push(("llm.input_messages.0.message.content", json!(u)));
                    }
                    pairs.extend([
                        ("llm.output_messages.0.message.role", json!("assistant")),
                        (
                            "llm.output_messages.0.message.tool_calls.0.tool_call.id",
                            json!(c.id),
                        ),
                        (
                            "llm.output_messages.0.message.tool_calls.0.tool_call.function.name",
                            json!(c.name),
                        ),
                        (
                            "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments",
                            json!(c.args.to_string()),
                        ),
                    ]);
                    spans.push(span("ChatCompletion", attrs(&pairs), 1, &mut t));
                    let a = attrs(&[
                        ("openinference.span.kind", json!("TOOL")),
                        ("tool.name", json!(c.name)),
                        ("tool.id", json!(c.id)),
                        ("input.value", json!(c.args.to_string())),
                        ("output.value", json!(content_text(&c.result))),
                    ]);
                    spans.push(span(&c.name, a, if c.error { 2 } else { 1 }, &mut t));
                }
            }
        }
        let a = attrs(&[
            ("openinference.span.kind", json!("LLM")),
            ("llm.output_messages.0.message.role", json!("assistant")),
            (
                "llm.output_messages.0.message.content",
                json!(run.final_answer),
            ),
        ]);
        spans.push(span("ChatCompletion", a, 1, &mut t));
        let group = json!({"resource": {"attributes": attrs(&[("service.name", json!("bench-agent"))])},
            "scopeSpans": [{"scope": {"name": "openinference.instrumentation.openai"}, "spans": spans}]});
        let mut out = counted(out);
        serde_json::to_writer(&mut out, &group)?;
        self.largest = self.largest.max(out.bytes);
        Ok(())
    }

    pub(crate) fn end(&mut self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(b"\n]}\n")
    }
}

impl Writer for Otel {
    fn largest(&self) -> usize {
        self.largest
    }
}
