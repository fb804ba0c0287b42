//! Which `tools/call` replies the proxy replaces, and with what: the scorecard's eight faults
//! (`scorecard::faults`) written as MCP `CallToolResult`s. The plan draws from a seeded
//! generator once per eligible call, so a seed and the order of the calls decide every
//! injection. It owns no I/O: the proxy asks, the plan answers.

use serde_json::{Map, Value, json};

use crate::scorecard::faults::Fault;
use crate::scorecard::stats::Rng;

/// When a fault is injected.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum When {
    /// The N-th eligible call (1 = the first).
    At(usize),
    /// Each eligible call with this probability.
    Rate(f64),
}

/// What to inject, where, with which seed.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The faults drawn from (one per injected call).
    pub faults: Vec<Fault>,
    /// Which calls.
    pub when: When,
    /// Only calls of these tools are eligible (empty: every tool).
    pub tools: Vec<String>,
    /// The seed.
    pub seed: u64,
    rng: Rng,
    eligible: usize,
}

/// One injection decided for one call.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The fault.
    pub fault: Fault,
    /// Its id in the record: `<fault>:call-<n>:seed-<s>` (n counts eligible calls).
    pub id: String,
}

impl Plan {
    /// A plan; `faults` must not be empty.
    pub fn new(faults: Vec<Fault>, when: When, tools: Vec<String>, seed: u64) -> Plan {
        Plan {
            faults,
            when,
            tools,
            seed,
            rng: Rng::new(seed),
            eligible: 0,
        }
    }

    /// Decide for the next `tools/call` (of `tool`), in the order the client sent them.
    pub fn decide(&mut self, tool: &str) -> Option<Decision> {
        if !self.tools.is_empty() && !self.tools.iter().any(|t| t == tool) {
            return None;
        }
        self.eligible += 1;
        let hit = match self.when {
            When::At(n) => self.eligible == n,
            When::Rate(p) => self.rng.chance(p),
        };
        if !hit || self.faults.is_empty() {
            return None;
        }
        let fault = if self.faults.len() == 1 {
            self.faults[0]
        } else {
            let i = (self.rng.next_u64() % self.faults.len() as u64) as usize;
            self.faults[i]
        };
        Some(Decision {
            fault,
            id: format!("{}:call-{}:seed-{}", fault.name(), self.eligible, self.seed),
        })
    }

    /// The plan as the record shows it.
    pub fn describe(&self) -> Value {
        let when = match self.when {
            When::At(n) => json!({"at": n}),
            When::Rate(p) => json!({"rate": p}),
        };
        let mut m = Map::new();
        m.insert(
            "faults".into(),
            self.faults
                .iter()
                .map(|f| f.name())
                .collect::<Vec<_>>()
                .into(),
        );
        if let Value::Object(w) = when {
            m.extend(w);
        }
        if !self.tools.is_empty() {
            m.insert("tools".into(), self.tools.clone().into());
        }
        m.insert("seed".into(), self.seed.into());
        Value::Object(m)
    }
}

/// The text of a `CallToolResult`'s text blocks, joined with newlines.
pub fn result_text(result: &Value) -> String {
    result
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

fn text_result(text: &str, is_error: bool) -> Value {
    let mut r = json!({"content": [{"type": "text", "text": text}]});
    if is_error {
        r["isError"] = Value::Bool(true);
    }
    r
}

/// The `result` the client gets instead of the server's answer (`real`: the server's whole
/// JSON-RPC response). `None` for a timeout: that reply is held, not replaced.
pub fn injected_result(fault: Fault, real: &Value) -> Option<Value> {
    let result = real.get("result").cloned().unwrap_or(Value::Null);
    let text = result_text(&result);
    Some(match fault {
        Fault::Timeout => return None,
        Fault::Error => text_result("internal server error (HTTP 500)", true),
        Fault::RateLimit => text_result("too many requests (HTTP 429): retry after 2 s", true),
        Fault::MalformedJson => text_result("<html><body>502 Bad Gateway</body></html>", false),
        Fault::Empty => json!({"content": []}),
        Fault::Truncated => {
            // What a dropped connection leaves: the first 55 % of the body.
            let n = text.chars().count();
            let cut: String = text.chars().take((n * 11 / 20).max(1).min(n)).collect();
            text_result(&cut, false)
        }
        Fault::WrongSchema => {
            let body = match serde_json::from_str::<Value>(&text) {
                Ok(v @ Value::Object(_)) => renamed(&v),
                _ => json!({"payload": {"value": text}}),
            };
            let mut r = text_result(&body.to_string(), false);
            if let Some(sc) = result.get("structuredContent") {
                r["structuredContent"] = renamed(sc);
            }
            r
        }
        Fault::Denied => text_result(
            r#"{"status": "denied", "reason": "locked for review"}"#,
            false,
        ),
    })
}

/// Every top-level key of an object renamed (`k` → `k_v2`): the same data, not the documented
/// fields.
fn renamed(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (format!("{k}_v2"), v.clone()))
                .collect(),
        ),
        other => json!({"payload": other}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_counts_eligible_calls_only() {
        let mut p = Plan::new(vec![Fault::Error], When::At(2), vec!["echo".into()], 1);
        assert_eq!(p.decide("other"), None);
        assert_eq!(p.decide("echo"), None);
        let d = p.decide("echo").unwrap();
        assert_eq!(
            (d.fault, d.id.as_str()),
            (Fault::Error, "error:call-2:seed-1")
        );
        assert_eq!(p.decide("echo"), None);
    }

    #[test]
    fn a_seed_reproduces_the_draws() {
        let run = |seed| {
            let mut p = Plan::new(Fault::ALL.to_vec(), When::Rate(0.5), vec![], seed);
            (0..40).map(|_| p.decide("t")).collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        assert!(run(7).iter().any(Option::is_some) && run(7).iter().any(Option::is_none));
    }

    #[test]
    fn faults_become_tool_results() {
        let real = json!({"jsonrpc": "2.0", "id": 3, "result": {
            "content": [{"type": "text", "text": "{\"a\": 1, \"b\": \"two\"}"}],
            "structuredContent": {"a": 1, "b": "two"}}});
        assert_eq!(injected_result(Fault::Timeout, &real), None);
        let e = injected_result(Fault::Error, &real).unwrap();
        assert_eq!(e["isError"], true);
        let w = injected_result(Fault::WrongSchema, &real).unwrap();
        assert_eq!(w["structuredContent"], json!({"a_v2": 1, "b_v2": "two"}));
        let t = injected_result(Fault::Truncated, &real).unwrap();
        let cut = result_text(&t);
        assert!(serde_json::from_str::<Value>(&cut).is_err(), "{cut}");
        assert_eq!(
            injected_result(Fault::Empty, &real).unwrap()["content"],
            json!([])
        );
    }
}
