//! The expectations TOML as serde reads it: the raw tables, before any value is checked, and the
//! keys an `[[expect]]` table may have.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFile {
    #[serde(default)]
    pub(super) expect: Vec<Spanned<RawExpect>>,
}

#[derive(Deserialize)]
pub(super) struct RawConfig {
    #[serde(default)]
    pub(super) expect: Option<Vec<Spanned<RawExpect>>>,
    #[serde(default)]
    pub(super) tool: Option<RawTool>,
}

#[derive(Deserialize)]
pub(super) struct RawTool {
    #[serde(default)]
    pub(super) tracelint: Option<RawPyConfig>,
}

#[derive(Deserialize)]
pub(super) struct RawPyConfig {
    #[serde(default)]
    pub(super) expect: Option<Vec<Spanned<RawExpect>>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    pub(super) fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawExpect {
    pub(super) id: Option<String>,
    pub(super) why: Option<Spanned<String>>,
    #[serde(alias = "paths")]
    pub(super) path: Option<Spanned<OneOrMany>>,
    #[serde(alias = "run-id", alias = "run_ids", alias = "run-ids")]
    pub(super) run_id: Option<Spanned<OneOrMany>>,
    pub(super) tier: Option<Spanned<String>>,
    // trajectories
    pub(super) trajectory: Option<Vec<Spanned<RawCall>>>,
    pub(super) reference: Option<Spanned<String>>,
    #[serde(rename = "match")]
    pub(super) match_mode: Option<Spanned<String>>,
    pub(super) args: Option<Spanned<String>>,
    #[serde(alias = "tool-args")]
    pub(super) tool_args: Option<BTreeMap<String, Spanned<toml::Value>>>,
    #[serde(alias = "min-score")]
    pub(super) min_score: Option<Spanned<toml::Value>>,
    // assertions
    pub(super) called: Option<Spanned<String>>,
    #[serde(alias = "not-called")]
    pub(super) not_called: Option<Spanned<String>>,
    pub(super) count: Option<Spanned<String>>,
    pub(super) exactly: Option<Spanned<i64>>,
    #[serde(alias = "at-least")]
    pub(super) at_least: Option<Spanned<i64>>,
    #[serde(alias = "at-most")]
    pub(super) at_most: Option<Spanned<i64>>,
    pub(super) before: Option<Spanned<RawOther>>,
    pub(super) after: Option<Spanned<RawOther>>,
    #[serde(rename = "where")]
    pub(super) where_args: Option<Vec<Spanned<toml::Value>>>,
    pub(super) result: Option<Vec<Spanned<toml::Value>>>,
    pub(super) status: Option<Spanned<String>>,
    #[serde(alias = "final-answer", alias = "final")]
    pub(super) final_answer: Option<Vec<Spanned<toml::Value>>>,
    // sizes
    pub(super) turns: Option<Spanned<RawBounds>>,
    pub(super) calls: Option<Spanned<RawBounds>>,
}

/// `turns = { max = 10 }`, `calls = { min = 1, max = 40 }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBounds {
    #[serde(alias = "min", alias = "at-least")]
    pub(super) at_least: Option<i64>,
    #[serde(alias = "max", alias = "at-most")]
    pub(super) at_most: Option<i64>,
    pub(super) exactly: Option<i64>,
}

/// The other call of `before` / `after`: a tool name, or a table with conditions.
#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum RawOther {
    Tool(String),
    Call(RawOtherCall),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawOtherCall {
    pub(super) tool: String,
    #[serde(rename = "where")]
    pub(super) where_args: Option<Vec<toml::Value>>,
    pub(super) result: Option<Vec<toml::Value>>,
    pub(super) status: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCall {
    #[serde(alias = "name")]
    pub(super) tool: String,
    pub(super) args: Option<toml::Table>,
    pub(super) status: Option<String>,
}

/// The keys of an `[[expect]]` table, for "did you mean".
pub(super) const KEYS: &[&str] = &[
    "id",
    "why",
    "path",
    "run_id",
    "tier",
    "trajectory",
    "reference",
    "match",
    "args",
    "tool_args",
    "min_score",
    "called",
    "not_called",
    "count",
    "exactly",
    "at_least",
    "at_most",
    "before",
    "after",
    "where",
    "result",
    "status",
    "final_answer",
    "turns",
    "calls",
];
