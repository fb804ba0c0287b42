//! What a file given to `report` is when it is not the JSON Lines `check --output-format
//! json-lines` writes: a JSON report, a SARIF log, the Python tracelint's report, a trace, a
//! tools file or other JSON. Said in one input error that names what to pass, instead of one
//! error per line. Judged from the first `HEAD` bytes only (a JSON report of a large corpus is
//! never read whole to say what it is), skimmed as they stream: a document cut at the end of the
//! head still shows its first keys. Owns no reading of records (`shards.rs` does).

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::adapters::{Container, Head, are_tool_definitions, detect};

/// Bytes looked at to decide what a file is.
pub(super) const HEAD: usize = 1 << 20;

/// Non-blank lines of the head tried as shard records.
const TRY_LINES: usize = 8;

/// Records skimmed from the head (JSON Lines values, or a document's array elements).
const MAX_RECORDS: usize = 8;

/// Nesting kept by the skim (as format detection skims a document).
const DEPTH: usize = 5;

/// Elements kept per array, keys per object, characters per string.
const ITEMS: usize = 3;
const KEYS: usize = 64;
const CHARS: usize = 2048;

/// The keys of which a JSON Lines record of `check` has one.
const RECORD_KEYS: &[&str] = &[
    "finding",
    "suppression",
    "input_error",
    "input",
    "trace",
    "run",
];

/// What `report` wants, for every message.
const WANT: &str =
    "`report` reads the JSON Lines `tracelint check --output-format json-lines` writes";

/// Why the file whose first bytes are `head` is not a shard, in one line; `None` when it is one
/// (or may be: a shard's damaged lines are then reported one by one). `complete`: `head` is
/// the whole file.
pub(super) fn not_a_shard(head: &[u8], complete: bool) -> Option<String> {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    if head.iter().all(u8::is_ascii_whitespace) || shard_lines(head, complete) {
        return None;
    }
    let probe = skim_head(head);
    if probe.records.is_empty() {
        let what = if probe.array { "a JSON array" } else { "not JSON" };
        return Some(format!("this is {what}, not a shard: {WANT}"));
    }
    describe(&probe)
}

/// Does one of the first complete non-blank lines read as a record `check` wrote (or a record
/// of another tracelint version, of a kind this one may not know)?
fn shard_lines(head: &[u8], complete: bool) -> bool {
    let mut lines: Vec<&[u8]> = head.split(|b| *b == b'\n').collect();
    if !complete {
        // The last piece may be cut.
        lines.pop();
    }
    lines
        .into_iter()
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .take(TRY_LINES)
        .any(|l| serde_json::from_slice::<Value>(l).is_ok_and(|v| ours(&v) && !json_report(&v)))
}

/// tracelint's JSON report (pretty or compacted to one line).
fn json_report(v: &Value) -> bool {
    ours(v)
        && ["summary", "findings", "exit_code"]
            .iter()
            .any(|k| v.get(k).is_some())
}

/// A JSON Lines record of `check`: `tracelint`'s `tool`, a `version` and one record key (a value
/// cut by the end of the head counts: its key is there).
fn is_record(v: &Value) -> bool {
    ours(v) && RECORD_KEYS.iter().any(|k| v.get(k).is_some())
}

/// Written by a tracelint (this one's `tool` object).
fn ours(v: &Value) -> bool {
    v.get("version").is_some()
        && v.get("tool")
            .and_then(|t| t.get("name"))
            .and_then(Value::as_str)
            == Some("tracelint")
}

/// What the head showed.
#[derive(Debug, Default)]
struct Probe {
    /// The first top-level value is an array (its elements are the records).
    array: bool,
    /// The records, skimmed.
    records: Vec<Value>,
}

/// Skim the head: top-level values as records (a top-level array's elements, as a document
/// of records), each kept as far as the head holds it.
fn skim_head(head: &[u8]) -> Probe {
    let mut probe = Probe::default();
    let mut de = serde_json::Deserializer::from_slice(head);
    let mut values: Vec<Value> = Vec::new();
    while values.len() < MAX_RECORDS && de.end().is_err() {
        values.push(Value::Null);
        let Some(slot) = values.last_mut() else {
            break;
        };
        let seed = SkimInto {
            slot,
            depth: DEPTH,
            items: MAX_RECORDS,
        };
        let ok = seed.deserialize(&mut de).is_ok();
        let nothing = values.last().is_some_and(Value::is_null) && !ok;
        if nothing {
            // Not JSON where a value should start (or cut before anything of it was read).
            values.pop();
        }
        if !ok {
            break;
        }
        if values.len() == 1 && values[0].is_array() {
            break;
        }
    }
    match values.first() {
        Some(Value::Array(items)) if values.len() == 1 => {
            probe.array = true;
            probe.records = items.clone();
        }
        _ => probe.records = values,
    }
    probe
}

/// What the head showed and what to pass instead; `None` for a shard whose first record is
/// longer than the head.
fn describe(probe: &Probe) -> Option<String> {
    let first = &probe.records[0];
    if is_record(first) {
        return None;
    }
    Some(describe_other(probe, first))
}

fn describe_other(probe: &Probe, first: &Value) -> String {
    if ours(first) {
        if json_report(first) {
            return format!("this is a JSON report (`--output-format json`), not a shard: {WANT}");
        }
        return format!("this is a JSON file tracelint wrote, not a shard: {WANT}");
    }
    if let Some(by) = sarif(first) {
        return format!("this is a SARIF log{by}, not a shard: {WANT}");
    }
    if python_report(first) {
        return format!(
            "this is the Python tracelint's report (another program), not a shard: lint its traces with `tracelint check`; {WANT}"
        );
    }
    let head = Head {
        container: if probe.array || probe.records.len() == 1 {
            Container::Document
        } else {
            Container::Lines
        },
        records: probe.records.clone(),
        lines: Vec::new(),
    };
    match detect(&head) {
        Ok(format) => format!(
            "this is a trace ({}), not a shard: lint it with `tracelint check`; {WANT}",
            format.name()
        ),
        Err(_) if are_tool_definitions(&probe.records) => {
            format!("this is a tools file, not a shard: give it to `tracelint check --tools`; {WANT}")
        }
        Err(_) if package_json(first) => {
            format!("this is an npm `package.json`, not a shard: {WANT}")
        }
        Err(_) => format!(
            "this is JSON that is neither a report nor a trace ({}), not a shard: {WANT}",
            keys(probe)
        ),
    }
}

/// A SARIF log: `Some(" written by NAME VERSION")` (or `Some("")` when the driver is not seen).
fn sarif(v: &Value) -> Option<String> {
    let runs = v.get("runs").filter(|r| r.is_array());
    let is = runs.is_some()
        && (v.get("version").and_then(Value::as_str) == Some("2.1.0")
            || v.get("$schema")
                .and_then(Value::as_str)
                .is_some_and(|s| s.to_ascii_lowercase().contains("sarif")));
    if !is {
        return None;
    }
    let driver = runs
        .and_then(|r| r.get(0))
        .and_then(|r| r.get("tool"))
        .and_then(|t| t.get("driver"));
    let field = |k: &str| driver.and_then(|d| d.get(k)).and_then(Value::as_str);
    // The Python tracelint names itself `tracelint` too; its home page tells it apart.
    let python = field("name") == Some("tracelint")
        && field("informationUri").is_some_and(|u| u.contains("github.com/AshwinUgale/"));
    if python {
        let version = field("version").map(|v| format!(" {}", short(v)));
        return Some(format!(
            " written by the Python tracelint{} (another program)",
            version.unwrap_or_default()
        ));
    }
    Some(match (field("name"), field("version")) {
        (Some(n), Some(ver)) => format!(" written by {} {}", short(n), short(ver)),
        (Some(n), None) => format!(" written by {}", short(n)),
        _ => String::new(),
    })
}

/// The Python tracelint's `--json` report: `{"overall_exit": …, "reports": [{"run_id": …,
/// "findings": […]}, …]}`.
fn python_report(v: &Value) -> bool {
    let reports = v.get("reports").and_then(Value::as_array);
    v.get("overall_exit").is_some_and(Value::is_number)
        || reports.is_some_and(|r| {
            r.first()
                .is_some_and(|x| x.get("run_id").is_some() && x.get("findings").is_some())
        })
}

/// An npm manifest.
fn package_json(v: &Value) -> bool {
    v.get("name").is_some_and(Value::is_string)
        && ["dependencies", "devDependencies", "scripts", "main", "bin"]
            .iter()
            .any(|k| v.get(k).is_some())
}

/// The first keys of the first object records, for a stranger to recognise the file by.
fn keys(probe: &Probe) -> String {
    let container = if probe.array {
        "a JSON array"
    } else if probe.records.len() == 1 {
        "a JSON document"
    } else {
        "JSON Lines"
    };
    let keys: Vec<String> = probe
        .records
        .iter()
        .filter_map(Value::as_object)
        .flat_map(|m| m.keys())
        .fold(Vec::new(), |mut acc: Vec<&String>, k| {
            if !acc.contains(&k) {
                acc.push(k);
            }
            acc
        })
        .into_iter()
        .take(6)
        .map(|k| format!("`{}`", short(k)))
        .collect();
    if keys.is_empty() {
        format!("{container} with no object records")
    } else {
        format!("{container} whose records have keys {}", keys.join(", "))
    }
}

/// Untrusted text quoted in a message: one line, bounded (the reporters escape it).
fn short(s: &str) -> String {
    let one: String = s.chars().filter(|c| !c.is_control()).take(60).collect();
    if s.chars().count() > 60 {
        format!("{one}…")
    } else {
        one
    }
}

/// A value skimmed in place as it streams: objects keep their first `KEYS` keys, arrays their
/// first `items` elements, strings their first `CHARS` characters, and nesting stops at the
/// depth (deeper objects and arrays are `null`); what is left out is skipped, not kept. Each key
/// and element is in `slot` before its value is read, so when the text is cut (the end of the
/// head), what came before the cut is kept.
struct SkimInto<'v> {
    slot: &'v mut Value,
    depth: usize,
    items: usize,
}

impl<'v> SkimInto<'v> {
    fn child(slot: &'v mut Value, depth: usize) -> Self {
        Self {
            slot,
            depth,
            items: ITEMS,
        }
    }
}

impl<'de> DeserializeSeed<'de> for SkimInto<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for SkimInto<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        if self.depth == 0 {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            return Ok(());
        }
        *self.slot = Value::Object(Map::new());
        let Value::Object(out) = self.slot else {
            return Ok(());
        };
        while let Some(key) = map.next_key::<String>()? {
            if out.len() >= KEYS || out.contains_key(&key) {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            let child = out.entry(key).or_insert(Value::Null);
            map.next_value_seed(SkimInto::child(child, self.depth - 1))?;
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if self.depth == 0 {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(());
        }
        *self.slot = Value::Array(Vec::new());
        let Value::Array(out) = self.slot else {
            return Ok(());
        };
        loop {
            if out.len() >= self.items {
                if seq.next_element::<IgnoredAny>()?.is_none() {
                    return Ok(());
                }
                continue;
            }
            out.push(Value::Null);
            let depth = self.depth - 1;
            let Some(child) = out.last_mut() else {
                return Ok(());
            };
            if seq
                .next_element_seed(SkimInto::child(child, depth))?
                .is_none()
            {
                out.pop();
                return Ok(());
            }
        }
    }

    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        *self.slot = Value::Bool(v);
        Ok(())
    }

    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        *self.slot = Value::from(v);
        Ok(())
    }

    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        *self.slot = Value::from(v);
        Ok(())
    }

    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        *self.slot = Value::from(v);
        Ok(())
    }

    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        *self.slot = Value::String(v.chars().take(CHARS).collect());
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        *self.slot = Value::Null;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn say(text: &str) -> Option<String> {
        not_a_shard(text.as_bytes(), true)
    }

    const RECORD: &str = r#"{"version":1,"tool":{"name":"tracelint","version":"0.1.0"},"input":{"path":"a.json"}}"#;

    #[test]
    fn shards_are_read_even_with_a_damaged_or_blank_start() {
        assert_eq!(say(""), None);
        assert_eq!(say("\n\n  \n"), None);
        assert_eq!(say(&format!("{RECORD}\n{RECORD}\n")), None);
        // A damaged first line: the line reader reports it, the rest is read.
        assert_eq!(say(&format!("{{not json\n\n{RECORD}\n")), None);
        // A record of a kind this version does not know is reported where it is.
        let unknown = r#"{"version":1,"tool":{"name":"tracelint","version":"9"},"new":{}}"#;
        assert_eq!(say(&format!("{unknown}\n")), None);
        // A JSON report compacted to one line is not a shard.
        let compact = r#"{"version":1,"tool":{"name":"tracelint"},"ok":true,"summary":{}}"#;
        assert!(say(compact).unwrap().starts_with("this is a JSON report"));
        // A first record longer than the head: its keys show it is one.
        let long = format!(
            r#"{{"version":1,"tool":{{"name":"tracelint"}},"finding":{{"message":"{}"#,
            "x".repeat(4000)
        );
        assert_eq!(not_a_shard(long.as_bytes(), false), None);
    }

    #[test]
    fn a_json_report_is_named_from_its_first_keys_even_when_cut() {
        let report = r#"{
  "version": 1,
  "tool": {
    "name": "tracelint",
    "version": "0.1.0"
  },
  "ok": false,
  "exit_code": 2,
  "fail_on": "hard_defect",
  "summary": {"hard_defect": 2},
  "findings": [{"rule": "R1", "message": "a long message that the head cuts"#;
        let said = not_a_shard(report.as_bytes(), false).unwrap();
        assert!(said.starts_with("this is a JSON report"), "{said}");
        assert!(said.contains("--output-format json-lines"), "{said}");
    }

    #[test]
    fn sarif_logs_name_their_driver() {
        let sarif = r#"{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{"tool":{"driver":{"name":"tracelint","version":"0.14.0"}},"results":[]}]}"#;
        assert_eq!(
            say(sarif).unwrap(),
            format!("this is a SARIF log written by tracelint 0.14.0, not a shard: {WANT}")
        );
        // Cut inside its results, a large log still shows its driver.
        let cut = &sarif[..sarif.find("\"results\"").unwrap() + 12];
        assert_eq!(
            not_a_shard(cut.as_bytes(), false).unwrap(),
            format!("this is a SARIF log written by tracelint 0.14.0, not a shard: {WANT}")
        );
        let other = r#"{"version":"2.1.0","runs":[]}"#;
        assert_eq!(
            say(other).unwrap(),
            format!("this is a SARIF log, not a shard: {WANT}")
        );
    }

    #[test]
    fn traces_tools_files_and_other_json_are_told_apart() {
        let chat = r#"[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}]"#;
        let said = say(chat).unwrap();
        assert!(said.starts_with("this is a trace (openai)"), "{said}");
        let tools = r#"{"tools":[{"name":"f","inputSchema":{"type":"object"}}]}"#;
        assert!(say(tools).unwrap().starts_with("this is a tools file"));
        let stats = "{\"calls\": 100000, \"sessions\": 928}\n";
        assert_eq!(
            say(stats).unwrap(),
            format!(
                "this is JSON that is neither a report nor a trace (a JSON document whose records have keys `calls`, `sessions`), not a shard: {WANT}"
            )
        );
        assert_eq!(
            say("hard_defect R1 x: y\n").unwrap(),
            format!("this is not JSON, not a shard: {WANT}")
        );
    }

    #[test]
    fn quoted_names_are_one_bounded_line() {
        let sarif = format!(
            r#"{{"version":"2.1.0","runs":[{{"tool":{{"driver":{{"name":"a\nb{}"}}}}}}]}}"#,
            "x".repeat(500)
        );
        let said = say(&sarif).unwrap();
        assert!(!said.contains('\n') && said.len() < 300, "{said}");
    }
}
