//! The tool rules (T1…): checks of tool definitions themselves, before an agent ever calls them
//! (`tracelint tools lint`). Like the trace rules they produce data only — findings whose
//! evidence points at JSON Pointers in the source (the command turns those into line:col),
//! suppressions when a source lacks what a rule needs, and coverage in tools. `TOOL_RULES` is
//! the explicit ordered registry; the schema walker shared by the schema rules lives here.

mod t_descriptions;
mod t_names;
mod t_poisoning;
mod t_schema;
mod t_schema_fields;
mod t_schema_keywords;

use serde_json::{Map, Value};

use crate::finding::{Coverage, Evidence, Finding, RuleId, RuleMeta, Suppression, Tier};
use crate::model::Location;
use crate::model::toolset::{ToolDef, ToolSet, escape_token};

#[cfg_attr(not(any(test, feature = "__internal")), allow(unused_imports))] // used by tests only
pub use t_poisoning::{Signal, signals};

/// What the tool rules may read.
#[derive(Debug)]
pub struct ToolsCx<'a> {
    /// Every source's tools, in the order given (their union is the toolset an agent gets).
    pub sets: &'a [ToolSet],
    /// Settings.
    pub settings: &'a ToolSettings,
}

/// Settings of the tool rules.
#[derive(Debug, Clone)]
pub struct ToolSettings {
    /// T11: the largest description, in estimated tokens.
    pub description_budget: usize,
    /// T12: each pinned tool's description (`tracelint mcp pin`), by name: a description that
    /// changed since is how a "rug pull" swaps instructions in under a trusted tool.
    pub pinned: Option<std::collections::BTreeMap<String, String>>,
}

/// Default T11 budget, in estimated tokens (about 2,000 characters of English).
pub const DEFAULT_DESCRIPTION_BUDGET: usize = 500;

impl Default for ToolSettings {
    fn default() -> Self {
        Self {
            description_budget: DEFAULT_DESCRIPTION_BUDGET,
            pinned: None,
        }
    }
}

/// A tool rule.
pub trait ToolRule: Sync {
    /// The rule's static description.
    fn meta(&self) -> &'static RuleMeta;
    /// Check every set, pushing findings, suppressions and coverage into `out`.
    fn check(&self, cx: &ToolsCx<'_>, out: &mut ToolSink);
}

/// Every tool rule, in id order.
pub static TOOL_RULES: &[&dyn ToolRule] = &[
    &t_schema::InvalidSchema,
    &t_schema::UnresolvableRef,
    &t_schema_fields::RequiredNotDeclared,
    &t_schema_fields::ValueFailsOwnSchema,
    &t_schema_keywords::Contradictory,
    &t_schema_keywords::Unconstrained,
    &t_names::ProviderRejectsName,
    &t_names::DuplicateName,
    &t_names::ConfusableNames,
    &t_descriptions::MissingDescription,
    &t_descriptions::OverBudget,
    &t_poisoning::Poisoning,
    &t_names::TooManyTools,
];

/// The metadata of a tool rule by id.
pub fn meta_of(id: RuleId) -> Option<&'static RuleMeta> {
    TOOL_RULES.iter().map(|r| r.meta()).find(|m| m.id == id)
}

/// Whether `id` names a tool rule.
pub fn is_tool_rule(id: RuleId) -> bool {
    meta_of(id).is_some()
}

/// What the tool rules found in one set.
#[derive(Debug, Default)]
pub struct SetOutcome {
    /// Findings (evidence locations carry pointers only; line 0).
    pub findings: Vec<Finding>,
    /// Suppressions.
    pub suppressions: Vec<Suppression>,
    /// Per-rule coverage over the set's tools.
    pub coverage: Vec<(RuleId, &'static str, Coverage)>,
}

/// Where one rule's output goes.
#[derive(Debug)]
pub struct ToolSink {
    meta: &'static RuleMeta,
    /// Per set.
    outcomes: Vec<SetOutcome>,
}

impl ToolSink {
    /// A finding about `tool` of set `set`, at `pointer`, with an excerpt (untrusted text:
    /// reporters escape it).
    #[allow(clippy::too_many_arguments)]
    pub fn finding(
        &mut self,
        set: usize,
        tier: Tier,
        tool: Option<&str>,
        pointer: String,
        message: impl Into<String>,
        note: &'static str,
        excerpt: String,
    ) -> &mut Finding {
        let f = Finding::new(
            self.meta,
            tier,
            "tools",
            tool,
            message,
            evidence(pointer, note, excerpt),
        );
        let findings = &mut self.outcomes[set].findings;
        findings.push(f);
        findings.last_mut().expect("just pushed")
    }

    /// The rule could not judge set `set` (or one tool of it): disclosed, never silent.
    pub fn suppress(&mut self, set: usize, tool: Option<&str>, reason: impl Into<String>) {
        self.outcomes[set].suppressions.push(Suppression {
            rule: self.meta.id,
            input: 0,
            run_id: "tools".to_owned(),
            step: None,
            at: None,
            tool: tool.map(str::to_owned),
            reason: reason.into(),
        });
    }

    /// Count one tool of set `set` looked at; `decided` when the rule could judge it.
    pub fn count(&mut self, set: usize, decided: bool) {
        let c = &mut self.outcomes[set].coverage[0].2;
        c.total += 1;
        c.decided += usize::from(decided);
    }
}

/// Evidence at a pointer (its line and column are filled in by the command).
pub fn evidence(pointer: String, note: &'static str, excerpt: String) -> Evidence {
    Evidence {
        step: 0,
        at: Location::new(0, 0, pointer),
        note: note.into(),
        excerpt,
    }
}

/// Run the selected tool rules over every set.
pub fn run(
    sets: &[ToolSet],
    settings: &ToolSettings,
    enabled: impl Fn(RuleId) -> bool,
) -> Vec<SetOutcome> {
    let cx = ToolsCx { sets, settings };
    let mut all: Vec<SetOutcome> = sets.iter().map(|_| SetOutcome::default()).collect();
    for rule in TOOL_RULES {
        let meta = rule.meta();
        if !enabled(meta.id) {
            continue;
        }
        let mut sink = ToolSink {
            meta,
            outcomes: sets
                .iter()
                .map(|_| SetOutcome {
                    coverage: vec![(meta.id, meta.unit, Coverage::default())],
                    ..SetOutcome::default()
                })
                .collect(),
        };
        rule.check(&cx, &mut sink);
        for (mine, theirs) in all.iter_mut().zip(sink.outcomes) {
            mine.findings.extend(theirs.findings);
            mine.suppressions.extend(theirs.suppressions);
            mine.coverage.extend(theirs.coverage);
        }
    }
    all
}

/// Deepest subschema the walkers descend to (a hostile schema nests deeper than any real one).
pub const MAX_SCHEMA_DEPTH: usize = 64;
/// Most subschemas of one tool the walkers visit.
pub const MAX_SUBSCHEMAS: usize = 20_000;

/// Keywords whose value is one subschema.
const ONE: &[&str] = &[
    "additionalProperties",
    "additionalItems",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "items",
];
/// Keywords whose value is a map of subschemas.
const MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
/// Keywords whose value is a list of subschemas.
const LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];

/// Visit every object subschema of `schema` (itself first) with its pointer (`base` + path),
/// depth-first in key order, bounded by `MAX_SCHEMA_DEPTH` and `MAX_SUBSCHEMAS`.
pub fn walk(schema: &Value, base: &str, visit: &mut dyn FnMut(&Map<String, Value>, &str)) {
    let mut budget = MAX_SUBSCHEMAS;
    walk_at(schema, base.to_owned(), 0, &mut budget, visit);
}

fn walk_at(
    schema: &Value,
    at: String,
    depth: usize,
    budget: &mut usize,
    visit: &mut dyn FnMut(&Map<String, Value>, &str),
) {
    let Value::Object(map) = schema else { return };
    if depth > MAX_SCHEMA_DEPTH || *budget == 0 {
        return;
    }
    *budget -= 1;
    visit(map, &at);
    for (k, v) in map {
        let here = || format!("{at}/{}", escape_token(k));
        if ONE.contains(&k.as_str()) && v.is_object() {
            walk_at(v, here(), depth + 1, budget, visit);
        }
        if MAP.contains(&k.as_str())
            && let Value::Object(members) = v
        {
            let prefix = here();
            for (name, sub) in members {
                walk_at(
                    sub,
                    format!("{prefix}/{}", escape_token(name)),
                    depth + 1,
                    budget,
                    visit,
                );
            }
        }
        if LIST.contains(&k.as_str())
            && let Value::Array(items) = v
        {
            let prefix = here();
            for (i, sub) in items.iter().enumerate() {
                walk_at(sub, format!("{prefix}/{i}"), depth + 1, budget, visit);
            }
        }
    }
}

/// A value's JSON text cut to `max` characters (for messages and excerpts).
pub fn shown(v: &Value, max: usize) -> String {
    let s = v.to_string();
    cut(&s, max)
}

/// `s` cut to `max` characters, ending in `…` when cut.
pub fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let mut out: String = s.chars().take(max).collect();
        out.push('…');
        out
    }
}

/// The tool's top-level parameters: `(name, schema, pointer)`.
pub fn parameters(tool: &ToolDef) -> Vec<(&str, &Value, String)> {
    let Some(props) = tool
        .schema
        .as_ref()
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    let base = format!("{}/properties", tool.schema_pointer());
    props
        .iter()
        .map(|(k, v)| (k.as_str(), v, format!("{base}/{}", escape_token(k))))
        .collect()
}

#[cfg(test)]
mod tests;
