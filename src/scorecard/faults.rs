//! The eight faults of SPEC §8 and how each one turns a tool's normal result into an injected
//! one. Injected results are tagged (`injected`, `fault_injection_id`) on the step.

use serde_json::{Value, json};

use crate::model::ResultStatus;

/// A fault to inject into one tool result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fault {
    /// The call never answered in time.
    Timeout,
    /// HTTP 500 with an error body (carrying a stale cached value).
    Error,
    /// HTTP 429.
    RateLimit,
    /// The body is not JSON.
    MalformedJson,
    /// Nothing came back.
    Empty,
    /// A JSON body cut off mid-way.
    Truncated,
    /// A 200 whose fields are not the documented ones.
    WrongSchema,
    /// A 200 carrying a domain failure (`{"status": "denied"}`).
    Denied,
}

impl Fault {
    /// Every fault, in SPEC order.
    pub const ALL: &'static [Fault] = &[
        Fault::Timeout,
        Fault::Error,
        Fault::RateLimit,
        Fault::MalformedJson,
        Fault::Empty,
        Fault::Truncated,
        Fault::WrongSchema,
        Fault::Denied,
    ];

    /// The name used by `--faults`.
    pub fn name(self) -> &'static str {
        match self {
            Fault::Timeout => "timeout",
            Fault::Error => "error",
            Fault::RateLimit => "rate_limit",
            Fault::MalformedJson => "malformed_json",
            Fault::Empty => "empty",
            Fault::Truncated => "truncated",
            Fault::WrongSchema => "wrong_schema",
            Fault::Denied => "denied",
        }
    }

    /// What the fault does to the lookup's result, and why tracelint does or does not flag the
    /// runs it is injected into (for the scorecard's readers), in one line.
    pub fn explain(self) -> &'static str {
        match self {
            Fault::Timeout => {
                "the lookup times out, an error result: R2a reports it in every run (a hard event, not a CI failure); retrying is the recovery"
            }
            Fault::Error => {
                "an HTTP 500 whose body carries a stale order reference: R2a reports the error; cancelling with that reference is a hard defect (R2b)"
            }
            Fault::RateLimit => {
                "an HTTP 429: R2a reports the error in every run; retrying is the recovery"
            }
            Fault::MalformedJson => {
                "an HTML error page with no status where the lookup's JSON belongs: R10 reports the broken output schema in every run; an agent that acts anyway cancels a reference the service rejects (R2a)"
            }
            Fault::Empty => {
                "an empty result with no status: R2a reports an empty result in every run"
            }
            Fault::Truncated => {
                "the lookup's JSON cut off mid-way, with no status: R10 reports the broken output schema in every run; an agent that acts anyway finds no reference in it and cancels one the service rejects (R2a)"
            }
            Fault::WrongSchema => {
                "a success whose fields are renamed (`reference` for `order_ref`): R10 reports the broken output schema in every run; the right reference is still in it, so the buggy agent, which takes the first `ord_…` token it sees, cancels the right order and the oracle rightly counts the outcome; the robust agent will not act on it and retries (3 times in 4) or stops safely"
            }
            Fault::Denied => {
                "a success status carrying a domain failure (`status: denied`) and a locked order's reference: the tools declare it a failure, so R2a reports it; cancelling with that reference is a hard defect (R2b)"
            }
        }
    }

    /// Parse a `--faults` entry.
    pub fn parse(s: &str) -> Option<Fault> {
        let s = s.trim().replace('-', "_");
        Fault::ALL.iter().copied().find(|f| f.name() == s)
    }
}

/// A tool result as the environment returns it.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Body.
    pub content: Value,
    /// Structured status.
    pub status: ResultStatus,
    /// Structured error message.
    pub error: Option<String>,
    /// HTTP status.
    pub http_status: Option<u16>,
}

impl Outcome {
    /// A successful result.
    pub fn ok(content: Value) -> Self {
        Self {
            content,
            status: ResultStatus::Ok,
            error: None,
            http_status: Some(200),
        }
    }
}

/// The injected result that replaces a lookup's normal answer. `order_id` is the looked-up id;
/// the normal body is `{"order_id", "status", "order_ref"}`.
pub fn inject(fault: Fault, normal: &Value) -> Outcome {
    let order_id = normal.get("order_id").cloned().unwrap_or(Value::Null);
    let text = normal.to_string();
    match fault {
        Fault::Timeout => Outcome {
            content: Value::Null,
            status: ResultStatus::Error,
            error: Some("timed out after 30 s".into()),
            http_status: Some(504),
        },
        Fault::Error => Outcome {
            // A stale value from the service's cache rides along with the error: the trap a
            // buggy agent falls into.
            content: json!({"error": "internal error while reading the order", "order_ref": "ord_STALE9"}),
            status: ResultStatus::Error,
            error: Some("HTTP 500 internal error".into()),
            http_status: Some(500),
        },
        Fault::RateLimit => Outcome {
            content: json!({"error": "rate limited", "retry_after_s": 2}),
            status: ResultStatus::Error,
            error: Some("HTTP 429 too many requests".into()),
            http_status: Some(429),
        },
        Fault::MalformedJson => Outcome {
            content: Value::String(format!(
                "<html><body>Bad gateway</body></html> {}",
                order_id.as_str().unwrap_or("")
            )),
            status: ResultStatus::Unknown,
            error: None,
            http_status: None,
        },
        Fault::Empty => Outcome {
            content: Value::String(String::new()),
            status: ResultStatus::Unknown,
            error: None,
            http_status: None,
        },
        Fault::Truncated => {
            // Cut mid-body: what a dropped connection leaves.
            let cut = (text.chars().count() * 11 / 20).max(1);
            Outcome {
                content: Value::String(text.chars().take(cut).collect()),
                status: ResultStatus::Unknown,
                error: None,
                http_status: None,
            }
        }
        Fault::WrongSchema => Outcome::ok(json!({
            "id": order_id,
            "state": normal.get("status").cloned().unwrap_or(Value::Null),
            "reference": normal.get("order_ref").cloned().unwrap_or(Value::Null),
        })),
        Fault::Denied => Outcome::ok(json!({
            "status": "denied",
            "reason": "order locked for review",
            "order_ref": "ord_LOCKED1",
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for f in Fault::ALL {
            assert_eq!(Fault::parse(f.name()), Some(*f));
        }
        assert_eq!(Fault::parse("rate-limit"), Some(Fault::RateLimit));
        assert_eq!(Fault::parse("nope"), None);
    }

    #[test]
    fn truncated_is_not_json_and_denied_is_a_200() {
        let normal =
            json!({"order_id": "A-1001", "status": "processing", "order_ref": "ord_7Hk2Qp"});
        let t = inject(Fault::Truncated, &normal);
        let s = t.content.as_str().unwrap();
        assert!(serde_json::from_str::<Value>(s).is_err(), "{s}");
        let d = inject(Fault::Denied, &normal);
        assert_eq!((d.status, d.http_status), (ResultStatus::Ok, Some(200)));
    }
}
