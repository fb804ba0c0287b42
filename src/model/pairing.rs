//! Call ↔ result pairing, built once per trace in one pass (O(n)).
//!
//! `result_for(call)` is the first later result with the call's id; `call_for(result)` is the
//! latest earlier call with the result's id (SPEC §2). An unpaired call is a real state (the run
//! ended, or the result was not captured), never an error.

use std::collections::HashMap;

use foldhash::quality::RandomState;

use super::{Step, Trace};

/// The pairing of one trace's calls and results, indexed by step index.
#[derive(Debug, Clone, Default)]
pub struct Pairing {
    result_of: Vec<Option<usize>>,
    call_of: Vec<Option<usize>>,
}

impl Pairing {
    /// Pair the calls and results of `trace`.
    pub fn new(trace: &Trace) -> Self {
        Self::from_steps(&trace.steps)
    }

    /// Pair the calls and results of `steps`.
    pub fn from_steps(steps: &[Step]) -> Self {
        let n = steps.len();
        let mut result_of = vec![None; n];
        let mut call_of = vec![None; n];
        // Per id: the latest call seen, and the calls still waiting for their first result.
        let mut latest: HashMap<&str, usize, RandomState> = HashMap::default();
        let mut waiting: HashMap<&str, Vec<usize>, RandomState> = HashMap::default();
        for step in steps {
            if let Some(call) = step.as_call() {
                if let Some(id) = call.call_id.as_deref() {
                    latest.insert(id, step.index);
                    waiting.entry(id).or_default().push(step.index);
                }
            } else if let Some(result) = step.as_result()
                && let Some(id) = result.call_id.as_deref()
            {
                call_of[step.index] = latest.get(id).copied();
                if let Some(calls) = waiting.get_mut(id) {
                    for c in calls.drain(..) {
                        result_of[c] = Some(step.index);
                    }
                }
            }
        }
        Self { result_of, call_of }
    }

    /// The step index of the first later result with this call's id.
    pub fn result_for(&self, call_step: usize) -> Option<usize> {
        self.result_of.get(call_step).copied().flatten()
    }

    /// The step index of the latest earlier call with this result's id.
    pub fn call_for(&self, result_step: usize) -> Option<usize> {
        self.call_of.get(result_step).copied().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ToolResult;
    use crate::model::{Args, InputRef, Location, ResultStatus, StepKind, StepMeta, ToolCall};
    use serde_json::json;

    fn call(t: &mut Trace, id: &str) -> usize {
        t.push(
            StepKind::ToolCall(ToolCall {
                call_id: Some(id.into()),
                name: "t".into(),
                args: Args::Known(json!({})),
                raw_args: None,
                origin: Default::default(),
            }),
            Location::default(),
            StepMeta::default(),
        )
    }

    fn result(t: &mut Trace, id: &str) -> usize {
        t.push(
            StepKind::ToolResult(ToolResult::new(
                Some(id.into()),
                json!("ok"),
                ResultStatus::Ok,
            )),
            Location::default(),
            StepMeta::default(),
        )
    }

    #[test]
    fn pairs_out_of_order_and_reused_ids() {
        let mut t = Trace::new(
            "r",
            InputRef {
                path: "x".into(),
                format: "native".into(),
            },
        );
        let a = call(&mut t, "a");
        let b = call(&mut t, "b");
        let rb = result(&mut t, "b");
        let ra = result(&mut t, "a");
        let a2 = call(&mut t, "a");
        let ra2 = result(&mut t, "a");
        let c = call(&mut t, "c");
        let p = Pairing::new(&t);
        assert_eq!(p.result_for(a), Some(ra));
        assert_eq!(p.result_for(b), Some(rb));
        assert_eq!(p.result_for(a2), Some(ra2));
        assert_eq!(p.call_for(ra2), Some(a2));
        assert_eq!(p.call_for(ra), Some(a));
        assert_eq!(p.result_for(c), None);
    }
}
