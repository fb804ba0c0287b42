//! The record of one MCP session as a native trace in JSON Lines, one record per line, each
//! written with one `write` as soon as it is known (a killed agent loses nothing that was
//! answered): a header (`run_id`, `steps: []`, `mcp` facts), then records that `continues` the
//! trace — the session's facts once `initialize` is answered, the `tools` of each `tools/list`
//! answer (the trace's embedded registry), one `tool_call` step per `tools/call` request and
//! one `tool_result` step per answer. It writes files only; what to write is the proxy's.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};

/// Longest error text kept on a result step, in characters.
const ERROR_TEXT: usize = 500;

/// One session's trace file.
pub struct Recorder {
    file: File,
    path: PathBuf,
    run_id: String,
    failed: bool,
}

impl Recorder {
    /// Create `DIR/<run_id>.jsonl` and write its header. `facts` go under the header's `mcp`.
    pub fn create(dir: &Path, facts: Value) -> std::io::Result<Recorder> {
        std::fs::create_dir_all(dir)?;
        let now = SystemTime::now();
        let stamp = compact(now);
        let pid = std::process::id();
        // A fresh name: two proxies started in the same second differ by pid, and a reused pid
        // gets a suffix.
        let mut n = 0u32;
        let (file, path, run_id) = loop {
            let run_id = if n == 0 {
                format!("mcp-{stamp}-{pid}")
            } else {
                format!("mcp-{stamp}-{pid}-{n}")
            };
            let path = dir.join(format!("{run_id}.jsonl"));
            match File::options().write(true).create_new(true).open(&path) {
                Ok(f) => break (f, path, run_id),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => n += 1,
                Err(e) => return Err(e),
            }
        };
        let mut r = Recorder {
            file,
            path,
            run_id,
            failed: false,
        };
        let mut facts = facts;
        if let Value::Object(m) = &mut facts {
            m.insert("recorder".into(), "tracelint mcp proxy".into());
            m.insert("tracelint_version".into(), env!("CARGO_PKG_VERSION").into());
            m.insert("started".into(), rfc3339(now).into());
        }
        let header = json!({"run_id": r.run_id, "steps": [], "mcp": facts});
        r.line(header);
        Ok(r)
    }

    /// The file written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Facts learnt during the session (the `initialize` answer, the client's info).
    pub fn facts(&mut self, facts: Value) {
        let rec = json!({"run_id": self.run_id, "continues": true, "steps": [], "mcp": facts});
        self.line(rec);
    }

    /// The tools of a `tools/list` answer.
    pub fn tools(&mut self, tools: &Value) {
        let rec = json!({"run_id": self.run_id, "continues": true, "steps": [], "tools": tools});
        self.line(rec);
    }

    /// A `tools/call` request.
    pub fn call(&mut self, id: &Value, name: &str, args: Option<&Value>) {
        let mut step = json!({
            "type": "tool_call",
            "call_id": call_id(id),
            "name": name,
            "meta": {"timestamp": rfc3339(SystemTime::now()), "id": call_id(id)},
            "mcp": {"id": id},
        });
        match args {
            Some(a) => step["args"] = a.clone(),
            // `arguments` may be omitted for a tool with no parameters: that is `{}`, recorded.
            None => step["args"] = json!({}),
        }
        self.step(step);
    }

    /// The answer the client got to a `tools/call` (`response`: the whole JSON-RPC message),
    /// `duration_ms` after the request; `injected`: the fault id and the server's real answer.
    pub fn result(
        &mut self,
        id: &Value,
        response: &Value,
        duration_ms: f64,
        injected: Option<(&str, &Value)>,
    ) {
        let mut step = result_step(id, response);
        step["meta"] = json!({"timestamp": rfc3339(SystemTime::now()), "duration_ms": duration_ms});
        if let Some((fault_id, real)) = injected {
            step["meta"]["injected"] = Value::Bool(true);
            step["meta"]["fault_injection_id"] = fault_id.into();
            step["mcp"]["server_answer"] = real.clone();
        }
        self.step(step);
    }

    /// A held call the client gave up on (`--inject timeout`).
    pub fn timed_out(
        &mut self,
        id: &Value,
        how: &str,
        duration_ms: f64,
        fault_id: &str,
        real: &Value,
    ) {
        let step = json!({
            "type": "tool_result",
            "call_id": call_id(id),
            "status": "error",
            "error": how,
            "http_status": 504,
            "content": Value::Null,
            "meta": {"timestamp": rfc3339(SystemTime::now()), "duration_ms": duration_ms,
                     "injected": true, "fault_injection_id": fault_id},
            "mcp": {"id": id, "server_answer": real},
        });
        self.step(step);
    }

    fn step(&mut self, step: Value) {
        let rec = json!({"run_id": self.run_id, "continues": true, "steps": [step]});
        self.line(rec);
    }

    fn line(&mut self, rec: Value) {
        if self.failed {
            return;
        }
        let Ok(mut buf) = serde_json::to_vec(&rec) else {
            return;
        };
        buf.push(b'\n');
        // One write per record: a reader (or a kill) never sees half of one in practice, and the
        // kernel has it as soon as `write` returns.
        if let Err(e) = self.file.write_all(&buf) {
            self.failed = true;
            #[allow(clippy::print_stderr)]
            {
                eprintln!(
                    "tracelint mcp proxy: cannot write the record {}: {e}; recording stops, the session goes on",
                    self.path.display()
                );
            }
        }
    }
}

/// A JSON-RPC id as a trace's call id: a number's digits, a string as is.
pub fn call_id(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The `tool_result` step for a JSON-RPC response to `tools/call`.
fn result_step(id: &Value, response: &Value) -> Value {
    let mut step = Map::new();
    step.insert("type".into(), "tool_result".into());
    step.insert("call_id".into(), call_id(id).into());
    if let Some(err) = response.get("error") {
        let code = err.get("code").and_then(Value::as_i64).unwrap_or(0);
        let msg = err.get("message").and_then(Value::as_str).unwrap_or("");
        step.insert("status".into(), "error".into());
        step.insert(
            "error".into(),
            clip(&format!("JSON-RPC error {code}: {msg}")).into(),
        );
        step.insert("content".into(), err.clone());
    } else {
        let result = response.get("result").cloned().unwrap_or(Value::Null);
        let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
        let text = super::inject::result_text(&result);
        let content = content_of(&result, &text);
        if is_error {
            step.insert("status".into(), "error".into());
            let why = if text.trim().is_empty() {
                "the tool reported an error (`isError`)".to_owned()
            } else {
                clip(text.trim())
            };
            step.insert("error".into(), why.into());
        } else {
            step.insert("status".into(), "ok".into());
        }
        step.insert("content".into(), content);
    }
    step.insert("mcp".into(), json!({"id": id, "answer": response}));
    Value::Object(step)
}

/// What the rules read as the result: `structuredContent` when the server sent it (what an
/// `outputSchema` describes), else the text of the text blocks, else the blocks themselves.
fn content_of(result: &Value, text: &str) -> Value {
    if let Some(sc) = result.get("structuredContent") {
        return sc.clone();
    }
    let blocks = result.get("content").and_then(Value::as_array);
    match blocks {
        Some(b)
            if b.iter()
                .all(|x| x.get("type").and_then(Value::as_str) == Some("text")) =>
        {
            Value::String(text.to_owned())
        }
        Some(b) => Value::Array(b.clone()),
        None => result.clone(),
    }
}

fn clip(s: &str) -> String {
    if s.chars().count() <= ERROR_TEXT {
        return s.to_owned();
    }
    let mut t: String = s.chars().take(ERROR_TEXT).collect();
    t.push('…');
    t
}

/// `2026-12-02T04:40:00.123Z`.
pub fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let (y, mo, day, h, mi, s) = civil(d.as_secs());
    format!(
        "{y:04}-{mo:02}-{day:02}T{h:02}:{mi:02}:{s:02}.{:03}Z",
        d.subsec_millis()
    )
}

/// `20261202T044000Z`, for file names.
fn compact(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let (y, mo, day, h, mi, s) = civil(d.as_secs());
    format!("{y:04}{mo:02}{day:02}T{h:02}{mi:02}{s:02}Z")
}

/// Seconds since the epoch → (year, month, day, hour, minute, second) in UTC (Howard
/// Hinnant's days-to-civil).
fn civil(secs: u64) -> (i64, u32, u32, u32, u32, u32) {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        y,
        m,
        d,
        (rem / 3600) as u32,
        (rem % 3600 / 60) as u32,
        (rem % 60) as u32,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc() {
        assert_eq!(civil(0), (1970, 1, 1, 0, 0, 0));
        // 2026-12-02T04:40:05Z
        assert_eq!(civil(1_796_186_405), (2026, 12, 2, 4, 40, 5));
    }

    #[test]
    fn is_error_is_a_structured_error_and_structured_content_is_kept() {
        let r = json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "boom"}], "isError": true}});
        let s = result_step(&json!(2), &r);
        assert_eq!(
            (s["status"].as_str(), s["error"].as_str()),
            (Some("error"), Some("boom"))
        );
        let ok = json!({"jsonrpc": "2.0", "id": "a", "result": {"content": [], "structuredContent": {"x": 1}}});
        let s = result_step(&json!("a"), &ok);
        assert_eq!(
            (s["status"].as_str(), &s["content"]),
            (Some("ok"), &json!({"x": 1}))
        );
        assert_eq!(s["call_id"], "a");
    }
}
