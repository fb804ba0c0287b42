//! Content-based format detection (never the file name): what the first records look like, which
//! format scores best, and what a file that is no trace (a tools file, a session's companion file,
//! a report tracelint wrote) is instead.

use serde_json::Value;

use crate::adapters::{InputFormat, claude, cline, openai};

/// How the input is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// One JSON document (object or array).
    Document,
    /// JSON Lines: one record per line.
    Lines,
}

/// What detection sees: the container and the first records, skimmed.
#[derive(Debug)]
pub struct Head {
    /// The layout.
    pub container: Container,
    /// The first records: a document's top-level object, the elements of a top-level array, or
    /// the first lines.
    pub records: Vec<Value>,
    /// The line each record is on (JSON Lines); empty for a document.
    pub lines: Vec<u32>,
}

/// Why the format could not be decided, and the line that shows it, when one does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undetected {
    /// What the input looked like and the flag to pass.
    pub message: String,
    /// The line of the record that shows it (JSON Lines).
    pub line: Option<u32>,
    /// No record fits any format: the file is plainly not a trace (a `package.json`, a
    /// config, a statistics file), rather than a trace detection could not decide on.
    pub no_format: bool,
}

impl From<String> for Undetected {
    fn from(message: String) -> Self {
        Self {
            message,
            line: None,
            no_format: false,
        }
    }
}

impl Undetected {
    fn no_format(message: String) -> Self {
        Self {
            no_format: true,
            ..message.into()
        }
    }
}

/// How strongly a record must fit another format, while the best one ignores it, for the
/// input to be a partial fit rather than that format.
const PARTIAL_FIT: u8 = 8;

/// Number of JSON Lines records detection looks at.
pub(super) const DETECT_LINES: usize = 8;

/// Decide the format from content. `Err` names what it looked like and the flag to pass.
pub fn detect(head: &Head) -> Result<InputFormat, Undetected> {
    let mut scores: Vec<(InputFormat, u32)> = InputFormat::ALL
        .iter()
        .map(|f| (*f, head.records.iter().map(|r| u32::from(f.sniff(r))).sum()))
        .collect();
    scores.sort_by_key(|s| std::cmp::Reverse(s.1));
    let (best, score) = scores[0];
    if score == 0
        && let Some(what) = openai::not_a_trace(&head.records)
    {
        return Err(Undetected::no_format(format!(
            "this is {what}; lint the agent's transcript instead, or pass `--input-format` if this file is a trace"
        )));
    }
    if score == 0 && looks_like_tools(head) {
        return Err("this is a tools file, not a trace: pass it with `--tools`"
            .to_owned()
            .into());
    }
    if score == 0
        && let Some(what) = companion(&head.records)
    {
        return Err(format!("this is {what}").into());
    }
    if score == 0 {
        let names: Vec<&str> = InputFormat::ALL.iter().map(|f| f.name()).collect();
        return Err(Undetected::no_format(format!(
            "cannot tell the input format: {}; pass `--input-format {}`",
            describe(head),
            names.join("|")
        )));
    }
    let tied: Vec<&str> = scores
        .iter()
        .filter(|(_, s)| *s == score)
        .map(|(f, _)| f.name())
        .collect();
    if tied.len() > 1 {
        return Err(format!(
            "the input fits several formats ({}); pass `--input-format {}` to choose",
            tied.join(", "),
            tied.join("|")
        )
        .into());
    }
    partial_fit(head, best)?;
    Ok(best)
}

/// A partial fit is no fit: a record the chosen format reads nothing of, while another format
/// knows it well, means the file is that other format, or a mix; reading it as the first would
/// drop what only the second reads. Names the record (its line) and both formats.
fn partial_fit(head: &Head, best: InputFormat) -> Result<(), Undetected> {
    for (i, record) in head.records.iter().enumerate() {
        if best.sniff(record) > 0 {
            continue;
        }
        let other = InputFormat::ALL
            .iter()
            .filter(|f| **f != best)
            .map(|f| (*f, f.sniff(record)))
            .max_by_key(|(_, s)| *s);
        let Some((other, _)) = other.filter(|(_, s)| *s >= PARTIAL_FIT) else {
            continue;
        };
        let line = head.lines.get(i).copied();
        let which = match line {
            Some(l) => format!("line {l}"),
            None => format!("element {i}"),
        };
        return Err(Undetected {
            message: format!(
                "cannot tell the input format: most records fit `{best}`, but {which} is a `{other}` record that `{best}` does not read; pass `--input-format {best}|{other}`"
            ),
            line,
            no_format: false,
        });
    }
    Ok(())
}

/// What a file that goes with a session (an agent's UI log or metadata) is, when it is one.
pub(super) fn companion(records: &[Value]) -> Option<&'static str> {
    cline::companion(records)
        .or_else(|| claude::companion(records))
        .or_else(|| own_report(records))
}

/// A report tracelint wrote (`--json`, a SARIF log or a JSON Lines stream saved under a walked
/// directory): output of an earlier run, never a trace.
fn own_report(records: &[Value]) -> Option<&'static str> {
    let first = records.first()?.as_object()?;
    let ours = |tool: Option<&Value>| {
        tool.and_then(|t| t.get("name"))
            .and_then(Value::as_str)
            .is_some_and(|n| n == "tracelint")
    };
    // The JSON report and every JSON Lines record carry `version` and `tool`.
    let json = ours(first.get("tool")) && first.contains_key("version");
    if json {
        return Some("a tracelint report, output of an earlier run, not a trace");
    }
    // Any SARIF log (ours or another tool's) is a report (detection reads only a few levels
    // deep, so the driver's name may not be there to check).
    let sarif = first.get("runs").is_some_and(Value::is_array)
        && (first.get("version").and_then(Value::as_str) == Some("2.1.0")
            || first
                .get("$schema")
                .and_then(Value::as_str)
                .is_some_and(|s| s.contains("sarif")));
    sarif.then_some("a SARIF log (a report), not a trace")
}

/// A short description of what the records look like, for detection errors.
fn describe(head: &Head) -> String {
    let container = match head.container {
        Container::Document => "a JSON document",
        Container::Lines => "JSON Lines",
    };
    let keys: Vec<String> = head
        .records
        .iter()
        .filter_map(Value::as_object)
        .flat_map(|m| m.keys().take(6).cloned())
        .take(6)
        .collect();
    if keys.is_empty() {
        format!("it is {container} with no object records")
    } else {
        format!(
            "it is {container} whose records have keys {}",
            keys.iter()
                .map(|k| format!("`{}`", crate::model::location::pointer_token(k)))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// Does the head look like a tools file (`{"tools": …}`, a `tools/list` reply, an array of tool
/// definitions)?
pub(super) fn looks_like_tools(head: &Head) -> bool {
    are_tool_definitions(&head.records)
}

/// Are these records (a document's top-level object, an array's elements, the first lines) a
/// tools file's: `{"tools": …}`, a `tools/list` reply, tool definitions, named lists of them?
pub fn are_tool_definitions(records: &[Value]) -> bool {
    let tool_def = |v: &Value| {
        v.get("name").is_some_and(Value::is_string)
            && ["inputSchema", "input_schema", "parameters"]
                .iter()
                .any(|k| v.get(*k).is_some())
            || v.get("type").and_then(Value::as_str) == Some("function")
                && v.get("function").is_some()
                && v.get("role").is_none()
    };
    // `{"airline": [tools…], "retail": [tools…]}`: named lists of tool definitions.
    let named_lists = |v: &Value| {
        v.as_object().is_some_and(|m| {
            !m.is_empty()
                && m.values().all(|l| {
                    l.as_array()
                        .is_some_and(|a| !a.is_empty() && a.iter().all(tool_def))
                })
        })
    };
    !records.is_empty()
        && records.iter().all(|r| {
            tool_def(r)
                || named_lists(r)
                || r.get("tools")
                    .is_some_and(|t| t.is_array() || t.is_object())
                    && r.get("steps").is_none()
                    && r.get("messages").is_none()
                || r.get("result").and_then(|x| x.get("tools")).is_some()
        })
}
