//! What an expectations file says, as data: the file (`ExpectFile`), each expectation with its
//! selection (`Select`) and check (`Check`: a reference trajectory or an assertion), call
//! filters, conditions, and how calls and arguments are matched (`MatchMode`, `ArgsMode`).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::finding::Tier;
use super::StepStatus;
use crate::model::FailureWhen;

/// A loaded expectations file (or the `[[expect]]` tables of a config file).
#[derive(Debug, Clone, Default)]
pub struct ExpectFile {
    /// The file it came from, as shown in messages.
    pub path: String,
    /// The expectations, in file order.
    pub expectations: Vec<Expectation>,
}

/// One expectation.
#[derive(Debug, Clone)]
pub struct Expectation {
    /// Its name (`id = "…"`, or `expect#N` by position).
    pub id: String,
    /// Why the run must do this (mandatory).
    pub why: String,
    /// The tier of its finding when not met (default `hard_defect`).
    pub tier: Tier,
    /// Where it is declared (`expect.toml:12:1`).
    pub declared_at: String,
    /// Which traces it applies to.
    pub select: Select,
    /// What it checks.
    pub check: Check,
}

/// Which traces an expectation applies to: every listed criterion must hold (none = all).
#[derive(Debug, Clone, Default)]
pub struct Select {
    /// Globs on the input path (any may match).
    pub paths: Vec<glob::Pattern>,
    /// Globs on the run id (any may match).
    pub run_ids: Vec<glob::Pattern>,
}

/// What an expectation checks.
#[derive(Debug, Clone)]
pub enum Check {
    /// The run's calls against a reference list of calls.
    Trajectory(Trajectory),
    /// At least one call matches.
    Called(CallFilter),
    /// No call matches.
    NotCalled(CallFilter),
    /// The number of matching calls is within bounds.
    Count {
        /// The calls counted.
        filter: CallFilter,
        /// Least allowed (inclusive).
        at_least: Option<u64>,
        /// Most allowed (inclusive).
        at_most: Option<u64>,
    },
    /// A matching call happens, and before every call matching `other`.
    Before {
        /// The call that must come first.
        filter: CallFilter,
        /// The calls it must precede.
        other: CallFilter,
    },
    /// A matching call happens, and only after a call matching `other`.
    After {
        /// The call that must come later.
        filter: CallFilter,
        /// The call that must precede it.
        other: CallFilter,
    },
    /// Conditions on the final answer (all must hold).
    FinalAnswer(Vec<Condition>),
    /// The number of the agent's turns is within bounds.
    Turns(Bounds),
    /// The number of tool calls (of any tool) is within bounds.
    Calls(Bounds),
}

/// Inclusive bounds on a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Least allowed.
    pub at_least: Option<u64>,
    /// Most allowed.
    pub at_most: Option<u64>,
}

impl Bounds {
    /// True when `n` is within the bounds.
    pub fn holds(&self, n: u64) -> bool {
        self.at_least.is_none_or(|l| n >= l) && self.at_most.is_none_or(|m| n <= m)
    }

    /// The bounds in words (`at most 10`).
    pub fn describe(&self) -> String {
        match (self.at_least, self.at_most) {
            (Some(l), Some(m)) if l == m => format!("exactly {l}"),
            (Some(l), Some(m)) => format!("between {l} and {m}"),
            (Some(l), None) => format!("at least {l}"),
            (None, Some(m)) => format!("at most {m}"),
            (None, None) => "any number".into(),
        }
    }
}

/// Which calls an assertion is about: a tool name plus conditions on the call's arguments, its
/// result's content and its result's status.
#[derive(Debug, Clone)]
pub struct CallFilter {
    /// The tool.
    pub tool: String,
    /// Conditions on the arguments (all must hold).
    pub args: Vec<Condition>,
    /// Conditions on the result's content (all must hold).
    pub result: Vec<Condition>,
    /// The call's outcome: succeeded, failed, or failed and then retried successfully.
    pub status: Option<StepStatus>,
}

/// One condition: the `failure_when` predicate (pointer + in / equals / exists / contains /
/// matches), reused as is.
#[derive(Debug, Clone)]
pub struct Condition {
    /// The predicate.
    pub predicate: FailureWhen,
    /// How it was written, for messages (`/order_ref equals "ord_7Hk2Qp"`).
    pub text: String,
}

/// How the run's calls must relate to the reference's (agentevals' trajectory match modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchMode {
    /// The same calls in the same order.
    Strict,
    /// The same calls in any order (one actual call per expected call, none left over).
    Unordered,
    /// Every actual call is one of the reference's (the reference may hold more).
    Subset,
    /// Every reference call was made (the run may make more).
    Superset,
}

impl MatchMode {
    /// The mode as written.
    #[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
    pub fn as_str(self) -> &'static str {
        match self {
            MatchMode::Strict => "strict",
            MatchMode::Unordered => "unordered",
            MatchMode::Subset => "subset",
            MatchMode::Superset => "superset",
        }
    }

    pub(super) fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "strict" => MatchMode::Strict,
            "unordered" => MatchMode::Unordered,
            "subset" => MatchMode::Subset,
            "superset" => MatchMode::Superset,
            _ => return None,
        })
    }
}

/// How a call's arguments must relate to the reference call's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgsMode {
    /// Equal (numbers by value: `1` = `1.0`).
    Exact,
    /// Not compared.
    Ignore,
    /// Every actual argument is in the reference call, with the same value.
    Subset,
    /// Every reference argument is in the actual call, with the same value.
    Superset,
    /// Only these keys (dotted paths into nested objects) are compared.
    Keys(Vec<String>),
}

impl ArgsMode {
    pub(super) fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "exact" => ArgsMode::Exact,
            "ignore" => ArgsMode::Ignore,
            "subset" => ArgsMode::Subset,
            "superset" => ArgsMode::Superset,
            _ => return None,
        })
    }

    /// The mode as written.
    pub fn describe(&self) -> String {
        match self {
            ArgsMode::Exact => "exact".into(),
            ArgsMode::Ignore => "ignore".into(),
            ArgsMode::Subset => "subset".into(),
            ArgsMode::Superset => "superset".into(),
            ArgsMode::Keys(k) => format!("keys {}", k.join(", ")),
        }
    }
}

/// A reference trajectory and how to match it.
#[derive(Debug, Clone)]
pub struct Trajectory {
    /// The reference calls, in order.
    pub calls: Vec<RefCall>,
    /// How the run's calls must relate to them.
    pub mode: MatchMode,
    /// How arguments are compared, unless the tool has an override.
    pub args: ArgsMode,
    /// Per-tool overrides of `args`.
    pub tool_args: BTreeMap<String, ArgsMode>,
    /// The recorded trace the calls came from, when the reference is one.
    pub reference: Option<String>,
    /// A run whose F1 score reaches this passes though it differs (`min_score`, 0 to 1).
    pub min_score: Option<f64>,
}

impl Trajectory {
    /// The arguments mode in force for `tool`.
    pub fn args_mode(&self, tool: &str) -> &ArgsMode {
        self.tool_args.get(tool).unwrap_or(&self.args)
    }
}

/// One reference call.
#[derive(Debug, Clone, PartialEq)]
pub struct RefCall {
    /// The tool.
    pub tool: String,
    /// Its arguments; `None` when the reference does not give them (compared by name only).
    pub args: Option<Value>,
    /// The outcome the matching call must have (`None`: any).
    pub status: Option<StepStatus>,
}
