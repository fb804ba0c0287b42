//! What a rule may look at: the per-run context (compiled schemas, shared across traces and
//! threads) and the per-trace context (the trace, its pairing, the registry in force).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::model::{Pairing, ToolRegistry, ToolSpec, Trace};

/// Upper bound on a compiled schema `pattern` regex (bytes), so a hostile schema cannot make
/// compilation or matching explode. The engine is linear-time.
const PATTERN_SIZE_LIMIT: usize = crate::model::registry::REGEX_SIZE_LIMIT;

/// A tool schema compiled once per run, or the reason it cannot be used.
pub type Compiled = Result<jsonschema::Validator, String>;

/// Schemas compiled once per run, keyed by their canonical JSON text (so the same schema
/// embedded in a thousand traces is compiled once).
#[derive(Default)]
pub struct SchemaCache {
    compiled: Mutex<HashMap<String, Arc<Compiled>>>,
}

impl std::fmt::Debug for SchemaCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SchemaCache").finish_non_exhaustive()
    }
}

impl SchemaCache {
    /// The compiled form of `schema`, compiling it on first use.
    pub fn get(&self, schema: &Value) -> Arc<Compiled> {
        let key = schema.to_string();
        if let Some(c) = self.lock().get(&key) {
            return Arc::clone(c);
        }
        // Compile outside the lock: another thread may race us, and both results are equal.
        let compiled = Arc::new(compile(schema));
        self.lock().entry(key).or_insert(compiled).clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Compiled>>> {
        // A poisoned lock only means another thread panicked mid-insert; the map is still valid.
        self.compiled
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Compile one schema with the network and the file system out of reach and a linear-time,
/// size-limited regex engine for `pattern`.
pub fn compile(schema: &Value) -> Compiled {
    if let Some(uri) = remote_ref(schema, 0) {
        return Err(format!(
            "the schema has a remote `$ref` ({uri}); tracelint never fetches schemas from the network"
        ));
    }
    if !(schema.is_object() || schema.is_boolean()) {
        return Err("the schema is not a JSON object".to_owned());
    }
    let options = jsonschema::options()
        .with_pattern_options(
            jsonschema::PatternOptions::regex()
                .size_limit(PATTERN_SIZE_LIMIT)
                .dfa_size_limit(PATTERN_SIZE_LIMIT),
        )
        .should_validate_formats(false);
    // NOTE: jsonschema can panic on exotic inputs in rare versions; a panic here must not take
    // the whole run down, so it is turned into a per-call suppression.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| options.build(schema))) {
        Ok(Ok(v)) => Ok(v),
        // jsonschema reports a bad `pattern` as "… is not a \"regex\"": name the regex, where
        // it is and why (broken, or past the size limit).
        Ok(Err(e)) => Err(match crate::model::patterns::first_problem(schema) {
            Some(p) if e.to_string().contains("\"regex\"") => format!("the schema is invalid: {p}"),
            _ => format!("the schema is invalid: {}", one_line(&e.to_string())),
        }),
        Err(_) => Err("the schema could not be compiled".to_owned()),
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first `$ref` in `schema` that points outside the document (`http://`, `https://`,
/// `file:`…), searched to a bounded depth.
fn remote_ref(schema: &Value, depth: usize) -> Option<String> {
    if depth > 64 {
        return None;
    }
    match schema {
        Value::Object(map) => {
            for key in ["$ref", "$dynamicRef", "$schema_ref"] {
                if let Some(Value::String(r)) = map.get(key)
                    && !r.starts_with('#')
                    && r.contains(':')
                {
                    return Some(r.clone());
                }
            }
            map.values().find_map(|v| remote_ref(v, depth + 1))
        }
        Value::Array(items) => items.iter().find_map(|v| remote_ref(v, depth + 1)),
        _ => None,
    }
}

/// Settings rules read (resolved from flags and config before linting starts).
#[derive(Debug, Clone, Default)]
pub struct RuleSettings {
    /// `--closed-toolset`: an unknown tool is a hard defect.
    pub closed_toolset: bool,
}

/// Per-run context, shared across traces and threads.
#[derive(Debug, Default)]
pub struct RunCx {
    /// Compiled schemas.
    pub schemas: SchemaCache,
    /// Rule settings.
    pub settings: RuleSettings,
    /// Count coverage per tool too (a baseline's ratchet and `doctor` need it).
    pub tool_coverage: bool,
}

/// Per-trace context: everything a rule may read.
pub struct TraceCx<'a> {
    /// The trace.
    pub trace: &'a Trace,
    /// Its call ↔ result pairing.
    pub pairing: Pairing,
    /// The registry in force for this trace (given, or embedded in the trace).
    pub registry: &'a ToolRegistry,
    /// The run.
    pub run: &'a RunCx,
    /// What each result says about its call, classified once for R2a and R2b.
    outcomes: std::sync::OnceLock<Vec<Option<super::outcome::Outcome>>>,
    /// Every call with its key and result, built once for R4 and R5.
    calls: std::sync::OnceLock<Vec<super::calls::CallRecord<'a>>>,
    /// The spec of every tool the trace calls, by name: rules ask it for each call, and a hash
    /// probe is cheaper than the registry's ordered search.
    specs: std::sync::OnceLock<HashMap<&'a str, Option<&'a ToolSpec>, foldhash::fast::RandomState>>,
}

impl<'a> TraceCx<'a> {
    /// Build the context for one trace.
    pub fn new(trace: &'a Trace, registry: &'a ToolRegistry, run: &'a RunCx) -> Self {
        Self {
            trace,
            pairing: Pairing::new(trace),
            registry,
            run,
            outcomes: std::sync::OnceLock::new(),
            calls: std::sync::OnceLock::new(),
            specs: std::sync::OnceLock::new(),
        }
    }

    /// The registry's spec for a tool.
    pub fn spec(&self, name: &str) -> Option<&'a ToolSpec> {
        let by_name = self.specs.get_or_init(|| {
            let mut by_name = HashMap::default();
            for call in self
                .trace
                .steps
                .iter()
                .filter_map(crate::model::Step::as_call)
            {
                by_name
                    .entry(call.name.as_str())
                    .or_insert_with(|| self.registry.get(&call.name));
            }
            by_name
        });
        match by_name.get(name) {
            Some(spec) => *spec,
            None => self.registry.get(name),
        }
    }

    /// True when an undeclared tool is a hard defect.
    /// The outcome of the result at step `index` (`None` when it is not a result).
    pub(crate) fn outcome(&self, index: usize) -> Option<&super::outcome::Outcome> {
        self.outcomes
            .get_or_init(|| super::outcome::classify_all(self))
            .get(index)?
            .as_ref()
    }

    /// Every tool call of the trace, in order, with its key and recorded result.
    pub(crate) fn calls(&self) -> &[super::calls::CallRecord<'a>] {
        self.calls.get_or_init(|| super::calls::records(self))
    }

    pub fn closed(&self) -> bool {
        self.registry.closed || self.run.settings.closed_toolset
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn remote_refs_are_refused_without_network() {
        let err = compile(&json!({"properties": {"a": {"$ref": "https://example.com/s.json"}}}))
            .unwrap_err();
        assert!(
            err.contains("remote `$ref` (https://example.com/s.json)"),
            "{err}"
        );
        assert!(compile(&json!({"$defs": {"x": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/x"}}})).is_ok());
    }

    #[test]
    fn invalid_schema_is_a_reason() {
        let err = compile(&json!({"type": 12})).unwrap_err();
        assert!(err.starts_with("the schema is invalid"), "{err}");
        let err = compile(&json!({"type": "string", "pattern": "("})).unwrap_err();
        assert!(err.starts_with("the schema is invalid"), "{err}");
    }

    #[test]
    fn cache_compiles_once() {
        let cache = SchemaCache::default();
        let a = cache.get(&json!({"type": "object"}));
        let b = cache.get(&json!({"type": "object"}));
        assert!(Arc::ptr_eq(&a, &b));
    }
}
