//! R11 contract_drift: a tool schema the trace itself carries (`Trace::embedded_tools`: an
//! OpenAI request's `tools`, OpenInference `llm.tools`, a Langfuse generation's tools, any
//! adapter's) differs from the committed contract (`--tools`) in what R1 relies on: the
//! top-level `type`, the property names, each property's `type` (as a set: `["null",
//! "string"]` is `["string", "null"]`), and `required`. Descriptions, titles and order are not
//! compared. One `hard_event` per tool, at its first call. Linear in the schemas' sizes.

use std::collections::{BTreeSet, HashSet};

use serde_json::Value;

use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::{SchemaSource, Step, ToolSpec};

use super::{Rule, Sink, TraceCx};

pub(crate) static META: RuleMeta = RuleMeta {
    id: RuleId::R11,
    kind: FindingType::ContractDrift,
    summary: "a tool schema the trace carries differs from the committed tools file",
    tiers: &[Tier::HardEvent],
    unit: "tools with both schemas",
    explanation: include_str!("docs/R11.md"),
};

pub(crate) struct ContractDrift;

/// Where the trace's own schemas come from (a few names: one per adapter source).
fn carried_sources<'a>(cx: &TraceCx<'a>) -> BTreeSet<&'a SchemaSource> {
    cx.trace.embedded_tools.iter().map(|e| &e.source).collect()
}

/// The committed spec of a tool: the registry's, when it did not come from the trace itself.
fn committed<'a>(
    cx: &TraceCx<'a>,
    carried: &BTreeSet<&SchemaSource>,
    name: &str,
) -> Option<&'a ToolSpec> {
    let spec = cx.spec(name).or_else(|| cx.registry.get(name))?;
    (!carried.contains(&spec.source) && spec.schema.is_some()).then_some(spec)
}

impl Rule for ContractDrift {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn opt_in(&self) -> bool {
        true
    }

    fn applicable(&self, cx: &TraceCx<'_>) -> Result<(), String> {
        let sources = carried_sources(cx);
        let carried = cx
            .trace
            .embedded_tools
            .iter()
            .filter(|e| e.schema.is_some());
        let mut any = false;
        for e in carried {
            any = true;
            if committed(cx, &sources, &e.name).is_some() {
                return Ok(());
            }
        }
        Err(if any {
            "not applicable: no committed schema for the tools the trace defines (pass `--tools FILE` to compare them)".into()
        } else {
            "not applicable: the trace carries no tool schemas to compare with the tools file"
                .into()
        })
    }

    fn check(&self, cx: &TraceCx<'_>, out: &mut Sink) {
        let sources = carried_sources(cx);
        let mut done: HashSet<&str> = HashSet::new();
        let mut counted: HashSet<&str> = HashSet::new();
        for e in &cx.trace.embedded_tools {
            let (Some(theirs), Some(spec)) = (e.schema.as_ref(), committed(cx, &sources, &e.name))
            else {
                continue;
            };
            if counted.insert(e.name.as_str()) {
                out.count(true);
            }
            if done.contains(e.name.as_str()) {
                continue;
            }
            let ours = spec.schema.as_ref().expect("committed specs have a schema");
            let Some(drift) = std::iter::once(ours)
                .chain(&spec.alternate_schemas)
                .map(|c| Drift::between(c, theirs))
                .min_by_key(Drift::size)
                .filter(|d| d.size() > 0)
            else {
                continue;
            };
            done.insert(e.name.as_str());
            report(cx, e, spec, &drift, out);
        }
    }
}

fn report(cx: &TraceCx<'_>, carried: &ToolSpec, spec: &ToolSpec, drift: &Drift, out: &mut Sink) {
    let name = carried.name.as_str();
    let steps = &cx.trace.steps;
    let first_call = steps
        .iter()
        .find(|s| s.as_call().is_some_and(|c| c.name == name));
    let (step, note): (&Step, &'static str) = match (first_call, steps.first()) {
        (Some(s), _) => (s, "the first call of the tool"),
        (None, Some(s)) => (s, "the trace (the tool is never called)"),
        (None, None) => return,
    };
    let parts = drift.parts();
    let f = out.finding(
        Tier::HardEvent,
        step,
        Some(name),
        format!(
            "`{name}` schema {} differs from {}: {}",
            carried.source,
            spec.source,
            parts.join("; ")
        ),
        note,
    );
    f.field = drift.first_field();
    f.details = parts;
    f.help = Some(format!(
        "reconcile them: refresh {} if `{name}` legitimately changed, or fix whichever side is stale",
        spec.source
    ));
}

/// How two object schemas differ in what R1 relies on.
#[derive(Debug, Default)]
struct Drift {
    /// Top-level `type`: (committed, carried).
    top: Option<(String, String)>,
    added: Vec<String>,
    removed: Vec<String>,
    /// (property, committed type, carried type).
    retyped: Vec<(String, String, String)>,
    now_required: Vec<String>,
    no_longer_required: Vec<String>,
}

impl Drift {
    fn between(committed: &Value, carried: &Value) -> Drift {
        let mut d = Drift::default();
        let (ct, rt) = (types(committed.get("type")), types(carried.get("type")));
        if let (Some(c), Some(r)) = (&ct, &rt)
            && c != r
        {
            d.top = Some((show(c), show(r)));
        }
        let props = |s: &Value| s.get("properties").and_then(Value::as_object).cloned();
        if let (Some(cp), Some(rp)) = (props(committed), props(carried)) {
            d.added = rp
                .keys()
                .filter(|k| !cp.contains_key(*k))
                .cloned()
                .collect();
            d.removed = cp
                .keys()
                .filter(|k| !rp.contains_key(*k))
                .cloned()
                .collect();
            for (k, c) in &cp {
                let Some(r) = rp.get(k) else { continue };
                let (ct, rt) = (types(c.get("type")), types(r.get("type")));
                if ct != rt {
                    let any = || "any".to_owned();
                    d.retyped.push((
                        k.clone(),
                        ct.as_ref().map_or_else(any, show),
                        rt.as_ref().map_or_else(any, show),
                    ));
                }
            }
            let (cr, rr) = (required(committed), required(carried));
            d.now_required = rr.difference(&cr).cloned().collect();
            d.no_longer_required = cr.difference(&rr).cloned().collect();
        }
        d
    }

    fn size(&self) -> usize {
        usize::from(self.top.is_some())
            + self.added.len()
            + self.removed.len()
            + self.retyped.len()
            + self.now_required.len()
            + self.no_longer_required.len()
    }

    fn parts(&self) -> Vec<String> {
        let list = |v: &[String]| {
            v.iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut out = Vec::new();
        if let Some((c, r)) = &self.top {
            out.push(format!("type {c} → {r}"));
        }
        if !self.added.is_empty() {
            out.push(format!("added {}", list(&self.added)));
        }
        if !self.removed.is_empty() {
            out.push(format!("removed {}", list(&self.removed)));
        }
        for (k, c, r) in &self.retyped {
            out.push(format!("`{k}` retyped {c} → {r}"));
        }
        if !self.now_required.is_empty() {
            out.push(format!("now required {}", list(&self.now_required)));
        }
        if !self.no_longer_required.is_empty() {
            out.push(format!(
                "no longer required {}",
                list(&self.no_longer_required)
            ));
        }
        out
    }

    fn first_field(&self) -> Option<String> {
        self.added
            .first()
            .or(self.removed.first())
            .or(self.retyped.first().map(|(k, _, _)| k))
            .or(self.now_required.first())
            .or(self.no_longer_required.first())
            .cloned()
    }
}

/// A schema's `type` as a set (`None` when absent or not a type).
fn types(v: Option<&Value>) -> Option<BTreeSet<String>> {
    match v? {
        Value::String(s) => Some(BTreeSet::from([s.clone()])),
        Value::Array(items) => Some(
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        ),
        _ => None,
    }
}

fn show(t: &BTreeSet<String>) -> String {
    t.iter().cloned().collect::<Vec<_>>().join("|")
}

fn required(s: &Value) -> BTreeSet<String> {
    s.get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every real file whose adapter reads tool schemas, linted against a tools file written from
    /// those very schemas: no drift; then with one tool's copy changed: exactly that drift.
    #[test]
    fn real_embedded_schemas_compare_equal_to_their_own_copy() {
        use crate::lint::Linter;
        use crate::rules::{RuleSettings, Selection};
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        for dir in [
            "fixtures/real/langfuse",
            "fixtures/real/otel-openinference",
            "fixtures/real/openai-chat",
        ] {
            let entries = std::fs::read_dir(root.join(dir)).unwrap_or_else(|e| panic!("{dir}: {e}"));
            files.extend(entries.map(|e| e.unwrap().path()));
        }
        files.sort();
        let mut compared = 0;
        for path in files {
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let (_, parsed) = crate::adapters::parse_bytes(&bytes, &name, None);
            for trace in &parsed.traces {
                let tools: Vec<Value> = trace
                    .embedded_tools
                    .iter()
                    .filter_map(|t| Some(json!({"name": t.name, "inputSchema": t.schema.clone()?})))
                    .collect();
                let Some(first) = tools.first() else { continue };
                let drift_of = |tools: &[Value]| {
                    let text = json!({ "tools": tools }).to_string();
                    let registry = crate::sources::file::parse_tools_str(&text, "tools.json")
                        .unwrap_or_else(|e| panic!("{name}: {e}"));
                    let linter = Linter::new(
                        Some(registry),
                        Selection::new(&[RuleId::R11], &[]),
                        RuleSettings::default(),
                    );
                    linter.lint(trace).outcome.findings
                };
                let same = drift_of(&tools);
                assert!(same.is_empty(), "{name}: {same:#?}");
                let mut changed = tools.clone();
                changed[0]["inputSchema"]["required"] = json!(["surely_not_an_argument"]);
                changed[0]["inputSchema"]["properties"]["surely_not_an_argument"] = json!({});
                let found = drift_of(&changed);
                assert_eq!(found.len(), 1, "{name}: {found:#?}");
                assert_eq!(found[0].tool.as_deref(), first["name"].as_str(), "{name}");
                assert!(
                    found[0].message.contains("`surely_not_an_argument`"),
                    "{name}"
                );
                compared += 1;
            }
        }
        // Langfuse, OpenInference (the two Phoenix exports) and OpenAI traces with schemas of
        // their own.
        assert!(compared >= 7, "{compared}");
    }

    #[test]
    fn drift_is_what_r1_relies_on() {
        let committed = json!({"type": "object", "required": ["id", "amount"],
            "properties": {"id": {"type": "integer", "description": "x"}, "amount": {"type": "number"},
                           "note": {"type": ["string", "null"]}}});
        let carried = json!({"type": "object", "required": ["id", "reason"],
            "properties": {"id": {"type": "string"}, "reason": {"type": "string"},
                           "note": {"type": ["null", "string"], "description": "y"}}});
        let d = Drift::between(&committed, &carried);
        assert_eq!(
            d.parts(),
            [
                "added `reason`",
                "removed `amount`",
                "`id` retyped integer → string",
                "now required `reason`",
                "no longer required `amount`"
            ]
        );
        // Order, descriptions and a one-element type list are not drift.
        let same = json!({"properties": {"note": {"type": ["string"]}, "id": {"type": "integer"}}});
        let also = json!({"properties": {"id": {"type": "integer", "title": "Id"}, "note": {"type": "string"}}});
        assert_eq!(Drift::between(&same, &also).size(), 0);
        // Properties are compared only when both declare them; the top-level type always.
        let d = Drift::between(
            &json!({"type": "object"}),
            &json!({"type": "array", "properties": {"a": {}}}),
        );
        assert_eq!(d.parts(), ["type object → array"]);
    }
}
