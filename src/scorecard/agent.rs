//! The built-in order-support task and its two agents. The task: "cancel order A-1001 if it
//! has not shipped". Tools: `lookup_order` (read-only) and `cancel_order` (side-effecting, needs
//! the `order_ref` a successful lookup returns). The robust agent checks each lookup and, after
//! a bad one, retries (a seeded draw) or stops safely; the buggy agent acts on whatever came
//! back. Agents emit `model::Trace` directly.

use serde_json::{Value, json};

use crate::model::{
    Args, InputRef, Location, Message, ResultStatus, Role, StepKind, StepMeta, ToolCall,
    ToolResult, Trace,
};

use super::faults::{Fault, Outcome, inject};
use super::stats::Rng;

/// The order the task is about.
pub const ORDER_ID: &str = "A-1001";
/// The reference a successful lookup returns and a correct cancel uses.
pub const ORDER_REF: &str = "ord_7Hk2Qp";

/// The tools file of the task (input and output schemas, metadata), for linting the runs. The
/// output schemas are the lookup's and the cancellation's documented results: a result that
/// breaks them (an HTML page, a cut-off body, renamed fields) is R10's to report.
pub const TOOLS: &str = r#"{"tools": [
  {"name": "lookup_order",
   "inputSchema": {"type": "object", "properties": {"order_id": {"type": "string", "x-value-origin": "provided"}},
                   "required": ["order_id"], "additionalProperties": false},
   "outputSchema": {"type": "object", "required": ["order_id", "status"],
                    "properties": {"order_id": {"type": "string"}, "status": {"type": "string"},
                                   "order_ref": {"type": "string"}}},
   "metadata": {"side_effecting": false, "idempotent": true,
                "failure_when": {"pointer": "/status", "in": ["denied", "error"]}}},
  {"name": "cancel_order",
   "inputSchema": {"type": "object", "properties": {"order_ref": {"type": "string", "x-value-origin": "provided"},
                   "reason": {"enum": ["customer_request", "fraud"]}},
                   "required": ["order_ref", "reason"], "additionalProperties": false},
   "outputSchema": {"type": "object", "required": ["cancelled"],
                    "properties": {"cancelled": {"type": "boolean"}, "order_ref": {"type": "string"}}},
   "metadata": {"side_effecting": true, "failure_when": {"pointer": "/cancelled", "equals": false}}}
]}"#;

/// Which policy drives the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Checks every lookup; retries a bad one (usually) or stops safely.
    Robust,
    /// Acts on whatever the lookup returned.
    Buggy,
}

impl Policy {
    /// The name shown in reports.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Robust => "robust",
            Policy::Buggy => "buggy",
        }
    }
}

/// What one run did, for the oracle.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunOutcome {
    /// The order refs successfully cancelled.
    pub cancelled: Vec<String>,
    /// The agent gave a final answer within its step budget.
    pub finished: bool,
}

impl RunOutcome {
    /// The task's oracle: exactly the right order was cancelled.
    #[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
    pub fn correct(&self) -> bool {
        self.cancelled == [ORDER_REF]
    }
}

/// The environment: answers tool calls, injecting one fault at the n-th call.
struct World {
    calls: usize,
    inject_at: Option<(usize, Fault)>,
    cancelled: Vec<String>,
    fault_id: String,
}

impl World {
    fn lookup(&self, order_id: &str) -> Value {
        if order_id == ORDER_ID {
            json!({"order_id": ORDER_ID, "status": "processing", "order_ref": ORDER_REF})
        } else {
            json!({"order_id": order_id, "status": "not_found"})
        }
    }

    /// Answer a call; returns the outcome and whether it was injected.
    fn answer(&mut self, tool: &str, args: &Value) -> (Outcome, bool) {
        self.calls += 1;
        if tool == "lookup_order" {
            let id = args
                .get("order_id")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let normal = self.lookup(id);
            if let Some((n, fault)) = self.inject_at
                && n == self.calls
            {
                return (inject(fault, &normal), true);
            }
            return (Outcome::ok(normal), false);
        }
        let r = args
            .get("order_ref")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if r == ORDER_REF {
            self.cancelled.push(r.to_owned());
            (
                Outcome::ok(json!({"cancelled": true, "order_ref": r})),
                false,
            )
        } else {
            (
                Outcome {
                    content: json!({"cancelled": false, "error": format!("unknown order_ref {r}")}),
                    status: ResultStatus::Error,
                    error: Some("HTTP 404 unknown order_ref".into()),
                    http_status: Some(404),
                },
                false,
            )
        }
    }
}

/// Builds the trace as the agent acts.
struct Recorder {
    trace: Trace,
}

impl Recorder {
    fn push(&mut self, kind: StepKind, meta: StepMeta) {
        let i = self.trace.steps.len();
        let at = Location::new(
            u32::try_from(i + 1).unwrap_or(u32::MAX),
            1,
            format!("/steps/{i}"),
        );
        self.trace.push(kind, at, meta);
    }

    fn message(&mut self, role: Role, text: &str) {
        self.push(
            StepKind::Message(Message {
                role,
                content: text.to_owned(),
            }),
            StepMeta::default(),
        );
    }
}

/// Is a lookup result one the robust agent trusts?
fn usable(o: &Outcome) -> Option<String> {
    if o.status == ResultStatus::Error {
        return None;
    }
    let obj = o.content.as_object()?;
    if matches!(
        obj.get("status").and_then(Value::as_str),
        Some("denied" | "error" | "failed" | "not_found")
    ) {
        return None;
    }
    obj.get("order_ref")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The first `ord_…` token in a text: the buggy agent's way of finding a reference.
fn scrape_ref(text: &str) -> Option<String> {
    let at = text.find("ord_")?;
    let tail: String = text[at..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (tail.len() > 4).then_some(tail)
}

/// Run the task once.
pub fn run(
    policy: Policy,
    fault: Option<Fault>,
    inject_at: usize,
    rng: &mut Rng,
    run_id: String,
) -> (Trace, RunOutcome) {
    let source = InputRef {
        path: format!(
            "scorecard/{}/{}",
            policy.name(),
            fault.map_or("baseline", Fault::name)
        ),
        format: "native".into(),
    };
    let mut rec = Recorder {
        trace: Trace::new(run_id.clone(), source),
    };
    let mut world = World {
        calls: 0,
        inject_at: fault.map(|f| (inject_at, f)),
        cancelled: Vec::new(),
        fault_id: format!("fi-{run_id}"),
    };
    rec.message(
        Role::User,
        &format!("Please cancel order {ORDER_ID} if it hasn't shipped yet."),
    );
    let mut call_no = 0usize;
    let mut call = |rec: &mut Recorder, world: &mut World, tool: &str, args: Value| -> Outcome {
        call_no += 1;
        let id = format!("call_{call_no}");
        rec.push(
            StepKind::ToolCall(ToolCall {
                call_id: Some(id.clone()),
                name: tool.to_owned(),
                args: Args::Known(args.clone()),
                raw_args: None,
                origin: Default::default(),
            }),
            StepMeta::default(),
        );
        let (o, injected) = world.answer(tool, &args);
        let meta = StepMeta {
            injected,
            fault_injection_id: injected.then(|| world.fault_id.clone()),
            ..StepMeta::default()
        };
        rec.push(
            StepKind::ToolResult(ToolResult {
                call_id: Some(id),
                content: o.content.clone(),
                status: o.status,
                error: o.error.clone(),
                http_status: o.http_status,
                content_recorded: true,
                structured_cache: Default::default(),
            }),
            meta,
        );
        o
    };
    let lookup = json!({"order_id": ORDER_ID});
    let first = call(&mut rec, &mut world, "lookup_order", lookup.clone());
    let final_text = match policy {
        Policy::Robust => {
            let mut reference = usable(&first);
            if reference.is_none() {
                // A bad lookup: usually retry once; otherwise stop without acting.
                let p = if first.status == ResultStatus::Error {
                    0.85
                } else {
                    0.75
                };
                if rng.chance(p) {
                    let second = call(&mut rec, &mut world, "lookup_order", lookup);
                    reference = usable(&second);
                }
            }
            match reference {
                Some(r) => {
                    let done = call(
                        &mut rec,
                        &mut world,
                        "cancel_order",
                        json!({"order_ref": r, "reason": "customer_request"}),
                    );
                    if done.status == ResultStatus::Ok {
                        format!("Order {ORDER_ID} was still processing, so I cancelled it.")
                    } else {
                        format!("I could not cancel order {ORDER_ID}; the cancellation failed.")
                    }
                }
                None => format!(
                    "I could not verify the status of order {ORDER_ID}, so I did not cancel it."
                ),
            }
        }
        Policy::Buggy => {
            let mut got = first;
            if got.status == ResultStatus::Error && rng.chance(0.1) {
                got = call(&mut rec, &mut world, "lookup_order", lookup);
            }
            let text = match &got.content {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let reference = got
                .content
                .get("order_ref")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| scrape_ref(&text))
                .unwrap_or_else(|| ORDER_ID.to_owned());
            call(
                &mut rec,
                &mut world,
                "cancel_order",
                json!({"order_ref": reference, "reason": "customer_request"}),
            );
            format!("Order {ORDER_ID} has been cancelled.")
        }
    };
    rec.message(Role::Assistant, &final_text);
    rec.trace.final_answer = Some(final_text);
    let outcome = RunOutcome {
        cancelled: world.cancelled,
        finished: true,
    };
    (rec.trace, outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseline_is_correct_for_both() {
        for p in [Policy::Robust, Policy::Buggy] {
            let (t, o) = run(p, None, 1, &mut Rng::new(1), "b".into());
            assert!(o.correct(), "{p:?}: {o:?}");
            assert_eq!(t.call_count(), 2);
        }
    }

    #[test]
    fn buggy_uses_the_stale_value_from_a_failed_result() {
        // Seed chosen so the 10 % retry does not happen.
        let mut rng = Rng::new(3);
        let (t, o) = run(Policy::Buggy, Some(Fault::Error), 1, &mut rng, "x".into());
        assert!(!o.correct());
        let cancel = t
            .steps
            .iter()
            .filter_map(|s| s.as_call())
            .find(|c| c.name == "cancel_order")
            .unwrap();
        assert_eq!(cancel.args.known().unwrap()["order_ref"], "ord_STALE9");
        let injected: Vec<_> = t.steps.iter().filter(|s| s.meta.injected).collect();
        assert_eq!(injected.len(), 1);
        assert_eq!(injected[0].meta.fault_injection_id.as_deref(), Some("fi-x"));
    }

    #[test]
    fn robust_never_cancels_the_wrong_order() {
        let rng = Rng::new(9);
        for f in Fault::ALL {
            for i in 0..20 {
                let (_, o) = run(Policy::Robust, Some(*f), 1, &mut rng.fork(i), "r".into());
                assert!(o.cancelled.iter().all(|c| c == ORDER_REF), "{f:?}: {o:?}");
            }
        }
    }
}
