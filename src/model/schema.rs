//! A tool schema compiled once per run (`SchemaCache`, keyed by its canonical text), with the
//! network and the file system out of reach, a size-limited linear-time regex engine for
//! `pattern`, and a bound on chains of local `$ref`s (`ref_chain_too_long`). Used by the rules
//! that validate arguments and results, the tool-definition rules and the contract reader.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;


/// Upper bound on a compiled schema `pattern` regex (bytes), so a hostile schema cannot make
/// compilation or matching explode. The engine is linear-time.
const PATTERN_SIZE_LIMIT: usize = super::registry::REGEX_SIZE_LIMIT;

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
    if ref_chain_too_long(schema) {
        return Err(format!(
            "the schema's `$ref` chain is longer than {MAX_REF_CHAIN} links: too deep to compile safely"
        ));
    }
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
        Ok(Err(e)) => Err(match super::patterns::first_problem(schema) {
            Some(p) if e.to_string().contains("\"regex\"") => format!("the schema is invalid: {p}"),
            _ => format!("the schema is invalid: {}", one_line(&e.to_string())),
        }),
        Err(_) => Err("the schema could not be compiled".to_owned()),
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The longest chain of local `$ref`s a schema may hold (a reference whose target holds a
/// reference, …). Compiling follows such a chain by recursion, so a 14,000-link chain (0.5 MB)
/// overflowed the stack; real schemas nest a handful.
pub const MAX_REF_CHAIN: usize = 256;

/// Does a chain of local `$ref`s in `schema` run longer than `MAX_REF_CHAIN`? A cycle (a
/// recursive schema) is fine: the validator resolves it lazily. Each target is scanned once,
/// and the search itself recurses at most `MAX_REF_CHAIN` deep.
pub fn ref_chain_too_long(schema: &Value) -> bool {
    fn refs_in<'v>(v: &'v Value, out: &mut Vec<&'v str>, depth: usize) {
        if depth > 256 {
            return;
        }
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    match (k.as_str(), x) {
                        ("$ref" | "$dynamicRef", Value::String(r)) if r.starts_with('#') => {
                            out.push(r);
                        }
                        _ => refs_in(x, out, depth + 1),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|x| refs_in(x, out, depth + 1)),
            _ => {}
        }
    }
    fn target<'v>(root: &'v Value, r: &str) -> Option<&'v Value> {
        let ptr = r.trim_start_matches('#');
        if ptr.is_empty() {
            Some(root)
        } else {
            root.pointer(ptr)
        }
    }
    // Links from `r` on, capped at MAX_REF_CHAIN + 1 (too long).
    fn chain<'v>(
        root: &'v Value,
        r: &'v str,
        level: usize,
        memo: &mut HashMap<&'v str, usize>,
        on_path: &mut std::collections::HashSet<&'v str>,
    ) -> usize {
        if level > MAX_REF_CHAIN {
            return MAX_REF_CHAIN + 1;
        }
        if let Some(&n) = memo.get(r) {
            return n;
        }
        if !on_path.insert(r) {
            return 0;
        }
        let mut next = Vec::new();
        if let Some(t) = target(root, r) {
            refs_in(t, &mut next, 0);
        }
        let mut longest = 0;
        for n in next {
            longest = longest.max(chain(root, n, level + 1, memo, on_path));
            if longest > MAX_REF_CHAIN {
                break;
            }
        }
        on_path.remove(r);
        let n = (longest + 1).min(MAX_REF_CHAIN + 1);
        memo.insert(r, n);
        n
    }
    let mut starts = Vec::new();
    refs_in(schema, &mut starts, 0);
    let mut memo = HashMap::new();
    let mut on_path = std::collections::HashSet::new();
    starts
        .into_iter()
        .any(|r| chain(schema, r, 0, &mut memo, &mut on_path) > MAX_REF_CHAIN)
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

    #[test]
    fn ref_chains_are_bounded_and_cycles_are_not_chains() {
        let chain = |n: usize| {
            let mut defs = serde_json::Map::new();
            for i in 0..n {
                defs.insert(
                    format!("a{i}"),
                    json!({"$ref": format!("#/$defs/a{}", i + 1)}),
                );
            }
            defs.insert(format!("a{n}"), json!({"type": "string"}));
            json!({"properties": {"q": {"$ref": "#/$defs/a0"}}, "$defs": defs})
        };
        assert!(!ref_chain_too_long(&chain(MAX_REF_CHAIN - 2)));
        assert!(ref_chain_too_long(&chain(MAX_REF_CHAIN + 1)));
        assert!(
            compile(&chain(MAX_REF_CHAIN + 1))
                .unwrap_err()
                .contains("`$ref` chain")
        );
        // A recursive schema (a tree) refers to itself: a cycle, compiled lazily, not a chain.
        let tree = json!({"$defs": {"node": {"type": "object", "properties": {
            "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
            "$ref": "#/$defs/node"});
        assert!(!ref_chain_too_long(&tree));
        assert!(compile(&tree).is_ok());
    }
}
