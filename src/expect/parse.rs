//! Parsing expectations TOML (a standalone file of `[[expect]]` tables, or those tables inside
//! `tracelint.toml` / `[tool.tracelint]`): every unknown key, bad value, bad pointer or regex is
//! an error at its file:line:col. Conditions go through `failure_when`'s own parser, so the
//! predicate language (and its regex size limit) is one.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use super::{
    ArgsMode, CallFilter, Check, Condition, ExpectFile, Expectation, MatchMode, RefCall, Select,
    Trajectory,
};
use crate::finding::Tier;
use crate::model::{LineIndex, ResultStatus};

/// Most expectations one file may declare.
const MAX_EXPECTATIONS: usize = 10_000;
/// Most calls one reference may list.
const MAX_REF_CALLS: usize = 10_000;

/// A malformed expectations file: where and what.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{location}: {message}")]
pub struct ExpectError {
    /// `path:line:col`, or `path`.
    pub location: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    expect: Vec<Spanned<RawExpect>>,
}

#[derive(Deserialize)]
struct RawConfig {
    #[serde(default)]
    expect: Option<Vec<Spanned<RawExpect>>>,
    #[serde(default)]
    tool: Option<RawTool>,
}

#[derive(Deserialize)]
struct RawTool {
    #[serde(default)]
    tracelint: Option<RawPyConfig>,
}

#[derive(Deserialize)]
struct RawPyConfig {
    #[serde(default)]
    expect: Option<Vec<Spanned<RawExpect>>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExpect {
    id: Option<String>,
    why: Option<Spanned<String>>,
    #[serde(alias = "paths")]
    path: Option<Spanned<OneOrMany>>,
    #[serde(alias = "run-id", alias = "run_ids", alias = "run-ids")]
    run_id: Option<Spanned<OneOrMany>>,
    tier: Option<Spanned<String>>,
    // trajectories
    trajectory: Option<Vec<Spanned<RawCall>>>,
    reference: Option<Spanned<String>>,
    #[serde(rename = "match")]
    match_mode: Option<Spanned<String>>,
    args: Option<Spanned<String>>,
    #[serde(alias = "tool-args")]
    tool_args: Option<BTreeMap<String, Spanned<toml::Value>>>,
    // assertions
    called: Option<Spanned<String>>,
    #[serde(alias = "not-called")]
    not_called: Option<Spanned<String>>,
    count: Option<Spanned<String>>,
    exactly: Option<Spanned<i64>>,
    #[serde(alias = "at-least")]
    at_least: Option<Spanned<i64>>,
    #[serde(alias = "at-most")]
    at_most: Option<Spanned<i64>>,
    before: Option<Spanned<RawOther>>,
    after: Option<Spanned<RawOther>>,
    #[serde(rename = "where")]
    where_args: Option<Vec<Spanned<toml::Value>>>,
    result: Option<Vec<Spanned<toml::Value>>>,
    status: Option<Spanned<String>>,
    #[serde(alias = "final-answer", alias = "final")]
    final_answer: Option<Vec<Spanned<toml::Value>>>,
}

/// The other call of `before` / `after`: a tool name, or a table with conditions.
#[derive(Deserialize)]
#[serde(untagged)]
enum RawOther {
    Tool(String),
    Call(RawOtherCall),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOtherCall {
    tool: String,
    #[serde(rename = "where")]
    where_args: Option<Vec<toml::Value>>,
    result: Option<Vec<toml::Value>>,
    status: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCall {
    #[serde(alias = "name")]
    tool: String,
    args: Option<toml::Table>,
}

/// The keys of an `[[expect]]` table, for "did you mean".
const KEYS: &[&str] = &[
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
];

/// Turns byte spans into `path:line:col`.
struct Here<'a> {
    text: &'a str,
    path: &'a str,
    index: LineIndex,
    /// The folder `reference` paths resolve against.
    base: &'a Path,
}

impl Here<'_> {
    fn at(&self, span: std::ops::Range<usize>) -> String {
        let (l, c) = self.index.line_col(self.text, span.start);
        format!("{}:{l}:{c}", self.path)
    }

    fn err(&self, span: std::ops::Range<usize>, message: impl Into<String>) -> ExpectError {
        ExpectError {
            location: self.at(span),
            message: message.into(),
        }
    }

    fn toml(&self, e: &toml::de::Error) -> ExpectError {
        let mut message = e.message().trim().to_owned();
        let unknown = message
            .strip_prefix("unknown field `")
            .and_then(|rest| rest.split('`').next())
            .and_then(|k| crate::suggest::closest_name(k, KEYS.iter().copied()));
        if let Some(k) = unknown {
            message = format!("{message} (did you mean `{k}`?)");
        }
        ExpectError {
            location: e
                .span()
                .map_or_else(|| self.path.to_owned(), |s| self.at(s)),
            message,
        }
    }
}

pub(super) fn parse_file(text: &str, path: &str, base: &Path) -> Result<ExpectFile, ExpectError> {
    let here = Here {
        text,
        path,
        index: LineIndex::new(text),
        base,
    };
    let raw: RawFile = toml::from_str(text).map_err(|e| here.toml(&e))?;
    if raw.expect.is_empty() {
        return Err(ExpectError {
            location: path.to_owned(),
            message: "no `[[expect]]` table: an expectations file declares at least one (`[[expect]]`, `why = \"…\"`, then what to check)".into(),
        });
    }
    build(raw.expect, &here)
}

pub(super) fn parse_config(
    text: &str,
    path: &str,
    base: &Path,
) -> Result<Option<ExpectFile>, ExpectError> {
    let here = Here {
        text,
        path,
        index: LineIndex::new(text),
        base,
    };
    let raw: RawConfig = toml::from_str(text).map_err(|e| here.toml(&e))?;
    let list = raw
        .expect
        .or_else(|| raw.tool.and_then(|t| t.tracelint).and_then(|t| t.expect));
    match list {
        None => Ok(None),
        Some(l) if l.is_empty() => Ok(None),
        Some(l) => build(l, &here).map(Some),
    }
}

fn build(list: Vec<Spanned<RawExpect>>, here: &Here<'_>) -> Result<ExpectFile, ExpectError> {
    if list.len() > MAX_EXPECTATIONS {
        return Err(ExpectError {
            location: here.path.to_owned(),
            message: format!("more than {MAX_EXPECTATIONS} expectations"),
        });
    }
    let mut out = ExpectFile {
        path: here.path.to_owned(),
        expectations: Vec::with_capacity(list.len()),
    };
    for (n, raw) in list.into_iter().enumerate() {
        let span = raw.span();
        let e = expectation(raw.into_inner(), n, span.clone(), here)?;
        if out.expectations.iter().any(|o| o.id == e.id) {
            return Err(here.err(
                span,
                format!("a second expectation named `{}`: ids must be unique", e.id),
            ));
        }
        out.expectations.push(e);
    }
    Ok(out)
}

fn glob_list(
    v: Option<Spanned<OneOrMany>>,
    key: &str,
    here: &Here<'_>,
) -> Result<Vec<glob::Pattern>, ExpectError> {
    let Some(v) = v else {
        return Ok(Vec::new());
    };
    let span = v.span();
    v.into_inner()
        .into_vec()
        .into_iter()
        .map(|g| {
            glob::Pattern::new(&g).map_err(|e| {
                here.err(
                    span.clone(),
                    format!("`{key}` {g:?} is not a valid glob: {e}"),
                )
            })
        })
        .collect()
}

fn conditions(
    list: Option<Vec<Spanned<toml::Value>>>,
    key: &str,
    here: &Here<'_>,
) -> Result<Vec<Condition>, ExpectError> {
    list.unwrap_or_default()
        .into_iter()
        .map(|c| {
            let span = c.span();
            let json = serde_json::to_value(c.into_inner())
                .map_err(|e| here.err(span.clone(), format!("`{key}`: {e}")))?;
            let predicate = crate::sources::file::parse_failure_when(&json)
                .map_err(|m| here.err(span.clone(), format!("a `{key}` condition {m}")))?;
            Ok(Condition {
                text: condition_text(&json),
                predicate,
            })
        })
        .collect()
}

/// One condition, already parsed into a JSON value.
fn condition(json: serde_json::Value, key: &str) -> Result<Condition, String> {
    let predicate = crate::sources::file::parse_failure_when(&json)
        .map_err(|m| format!("a `{key}` condition {m}"))?;
    Ok(Condition {
        text: condition_text(&json),
        predicate,
    })
}

fn status_of(s: &str) -> Result<ResultStatus, String> {
    match s {
        "ok" => Ok(ResultStatus::Ok),
        "error" => Ok(ResultStatus::Error),
        other => Err(format!(
            "unknown `status` {other:?} (expected \"ok\" or \"error\")"
        )),
    }
}

/// The other call of `before` / `after`; its errors are at the key's span.
fn other_call(
    raw: &Spanned<RawOther>,
    key: &str,
    here: &Here<'_>,
) -> Result<CallFilter, ExpectError> {
    let err = |m: String| here.err(raw.span(), format!("`{key}`: {m}"));
    let conds =
        |list: &Option<Vec<toml::Value>>, what: &str| -> Result<Vec<Condition>, ExpectError> {
            list.iter()
                .flatten()
                .map(|v| {
                    let json = serde_json::to_value(v).map_err(|e| err(e.to_string()))?;
                    condition(json, what).map_err(err)
                })
                .collect()
        };
    match raw.get_ref() {
        RawOther::Tool(t) if !t.trim().is_empty() => Ok(CallFilter {
            tool: t.clone(),
            args: Vec::new(),
            result: Vec::new(),
            status: None,
        }),
        RawOther::Call(c) if !c.tool.trim().is_empty() => Ok(CallFilter {
            tool: c.tool.clone(),
            args: conds(&c.where_args, "where")?,
            result: conds(&c.result, "result")?,
            status: c.status.as_deref().map(status_of).transpose().map_err(err)?,
        }),
        _ => Err(err("must name a tool: `\"tool\"` or `{ tool = \"…\", where = […], result = […], status = \"ok\" }`".into())),
    }
}

/// `/order_ref equals "ord_7Hk2Qp"`: how a condition reads in a message.
fn condition_text(v: &serde_json::Value) -> String {
    let Some(m) = v.as_object() else {
        return v.to_string();
    };
    let pointer = m
        .get("pointer")
        .and_then(|p| p.as_str())
        .filter(|p| !p.is_empty())
        .unwrap_or("(whole)");
    let cond = m
        .iter()
        .filter(|(k, _)| *k != "pointer" && *k != "optional")
        .map(|(k, v)| format!("{k} {v}"))
        .next()
        .unwrap_or_else(|| "exists".into());
    format!("{pointer} {cond}")
}

fn args_mode(
    v: &Spanned<toml::Value>,
    key: &str,
    here: &Here<'_>,
) -> Result<ArgsMode, ExpectError> {
    let bad = || {
        here.err(
            v.span(),
            format!("`{key}` must be one of \"exact\", \"ignore\", \"subset\", \"superset\", or a list of argument keys to compare"),
        )
    };
    match v.get_ref() {
        toml::Value::String(s) => ArgsMode::parse(s).ok_or_else(bad),
        toml::Value::Array(items) if !items.is_empty() => items
            .iter()
            .map(|i| i.as_str().map(str::to_owned).ok_or_else(bad))
            .collect::<Result<Vec<_>, _>>()
            .map(ArgsMode::Keys),
        _ => Err(bad()),
    }
}

fn expectation(
    mut raw: RawExpect,
    n: usize,
    span: std::ops::Range<usize>,
    here: &Here<'_>,
) -> Result<Expectation, ExpectError> {
    let id = raw
        .id
        .clone()
        .unwrap_or_else(|| format!("expect#{}", n + 1));
    let why = match &raw.why {
        Some(w) if !w.get_ref().trim().is_empty() => w.get_ref().trim().to_owned(),
        Some(w) => {
            return Err(here.err(w.span(), format!("expectation `{id}` has an empty `why`: say why the run must do this (reasons are mandatory)")));
        }
        None => {
            return Err(here.err(span, format!("expectation `{id}` has no `why`: say why the run must do this (reasons are mandatory)")));
        }
    };
    let tier = match &raw.tier {
        None => Tier::HardDefect,
        Some(t) => Tier::parse(t.get_ref()).ok_or_else(|| {
            here.err(
                t.span(),
                format!(
                    "unknown tier `{}` (expected hard_defect, hard_event or candidate)",
                    t.get_ref()
                ),
            )
        })?,
    };
    let select = Select {
        paths: glob_list(raw.path.take(), "path", here)?,
        run_ids: glob_list(raw.run_id.take(), "run_id", here)?,
    };
    let kinds: Vec<&str> = [
        ("trajectory", raw.trajectory.is_some()),
        ("reference", raw.reference.is_some()),
        ("called", raw.called.is_some()),
        ("not_called", raw.not_called.is_some()),
        ("count", raw.count.is_some()),
        ("final_answer", raw.final_answer.is_some()),
    ]
    .into_iter()
    .filter_map(|(k, on)| on.then_some(k))
    .collect();
    let kind = match kinds.as_slice() {
        [k] => *k,
        [] => {
            return Err(here.err(span, format!("expectation `{id}` checks nothing: give one of `trajectory`, `reference`, `called`, `not_called`, `count`, `final_answer`")));
        }
        several => {
            return Err(here.err(
                span,
                format!(
                    "expectation `{id}` has several kinds ({}): give exactly one per `[[expect]]`",
                    several
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
    };
    // Keys that belong to another kind are errors, never silently ignored.
    let misplaced =
        |key: &str, present: Option<std::ops::Range<usize>>, allowed: &[&str]| match present {
            Some(s) if !allowed.contains(&kind) => Err(here.err(
                s,
                format!(
                    "`{key}` does not apply to a `{kind}` expectation (only to {})",
                    allowed
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
            _ => Ok(()),
        };
    let traj = &["trajectory", "reference"];
    let calls = &["called", "not_called", "count"];
    misplaced("match", raw.match_mode.as_ref().map(Spanned::span), traj)?;
    misplaced("args", raw.args.as_ref().map(Spanned::span), traj)?;
    misplaced(
        "tool_args",
        raw.tool_args
            .as_ref()
            .and_then(|m| m.values().next().map(Spanned::span)),
        traj,
    )?;
    for (key, v) in [
        ("exactly", &raw.exactly),
        ("at_least", &raw.at_least),
        ("at_most", &raw.at_most),
    ] {
        misplaced(key, v.as_ref().map(Spanned::span), &["count"])?;
    }
    misplaced(
        "before",
        raw.before.as_ref().map(Spanned::span),
        &["called"],
    )?;
    misplaced("after", raw.after.as_ref().map(Spanned::span), &["called"])?;
    misplaced(
        "where",
        raw.where_args
            .as_ref()
            .and_then(|w| w.first().map(Spanned::span)),
        calls,
    )?;
    misplaced(
        "result",
        raw.result
            .as_ref()
            .and_then(|w| w.first().map(Spanned::span)),
        calls,
    )?;
    misplaced("status", raw.status.as_ref().map(Spanned::span), calls)?;
    let check = match kind {
        "trajectory" | "reference" => Check::Trajectory(trajectory(&raw, here)?),
        "final_answer" => Check::FinalAnswer(conditions(raw.final_answer, "final_answer", here)?),
        _ => {
            let tool = raw
                .called
                .as_ref()
                .or(raw.not_called.as_ref())
                .or(raw.count.as_ref())
                .expect("one of the three is set");
            if tool.get_ref().trim().is_empty() {
                return Err(here.err(tool.span(), format!("`{kind}` must name a tool")));
            }
            let status = match &raw.status {
                None => None,
                Some(s) => Some(match s.get_ref().as_str() {
                    "ok" => ResultStatus::Ok,
                    "error" => ResultStatus::Error,
                    other => {
                        return Err(here.err(
                            s.span(),
                            format!("unknown `status` {other:?} (expected \"ok\" or \"error\")"),
                        ));
                    }
                }),
            };
            let filter = CallFilter {
                tool: tool.get_ref().clone(),
                args: conditions(raw.where_args, "where", here)?,
                result: conditions(raw.result, "result", here)?,
                status,
            };
            match kind {
                "not_called" => Check::NotCalled(filter),
                "count" => {
                    let bound = |v: &Option<Spanned<i64>>,
                                 key: &str|
                     -> Result<Option<u64>, ExpectError> {
                        match v {
                            None => Ok(None),
                            Some(n) => u64::try_from(*n.get_ref()).map(Some).map_err(|_| {
                                here.err(n.span(), format!("`{key}` must be a count (0 or more)"))
                            }),
                        }
                    };
                    let exactly = bound(&raw.exactly, "exactly")?;
                    let mut at_least = bound(&raw.at_least, "at_least")?;
                    let mut at_most = bound(&raw.at_most, "at_most")?;
                    if let Some(x) = exactly {
                        if at_least.is_some() || at_most.is_some() {
                            return Err(here.err(
                                span,
                                "`exactly` cannot be combined with `at_least` or `at_most`",
                            ));
                        }
                        at_least = Some(x);
                        at_most = Some(x);
                    }
                    if at_least.is_none() && at_most.is_none() {
                        return Err(here.err(
                            tool.span(),
                            "a `count` needs `exactly`, `at_least` or `at_most`",
                        ));
                    }
                    if let (Some(l), Some(m)) = (at_least, at_most)
                        && l > m
                    {
                        return Err(here.err(
                            span,
                            format!("`at_least` ({l}) is more than `at_most` ({m})"),
                        ));
                    }
                    Check::Count {
                        filter,
                        at_least,
                        at_most,
                    }
                }
                _ => match (&raw.before, &raw.after) {
                    (Some(_), Some(a)) => {
                        return Err(here.err(
                            a.span(),
                            "give `before` or `after`, not both (write two expectations)",
                        ));
                    }
                    (Some(b), None) => Check::Before {
                        filter,
                        other: other_call(b, "before", here)?,
                    },
                    (None, Some(a)) => Check::After {
                        filter,
                        other: other_call(a, "after", here)?,
                    },
                    (None, None) => Check::Called(filter),
                },
            }
        }
    };
    Ok(Expectation {
        id,
        why,
        tier,
        declared_at: here.at(span),
        select,
        check,
    })
}

fn trajectory(raw: &RawExpect, here: &Here<'_>) -> Result<Trajectory, ExpectError> {
    let mode = match &raw.match_mode {
        None => MatchMode::Strict,
        Some(m) => MatchMode::parse(m.get_ref()).ok_or_else(|| {
            here.err(m.span(), format!("unknown `match` {:?} (expected \"strict\", \"unordered\", \"subset\" or \"superset\")", m.get_ref()))
        })?,
    };
    let args = match &raw.args {
        None => ArgsMode::Exact,
        Some(a) => args_mode(
            &Spanned::new(a.span(), toml::Value::String(a.get_ref().clone())),
            "args",
            here,
        )?,
    };
    let mut tool_args = BTreeMap::new();
    for (tool, v) in raw.tool_args.iter().flatten() {
        tool_args.insert(
            tool.clone(),
            args_mode(v, &format!("tool_args.{tool}"), here)?,
        );
    }
    let (calls, reference) = match (&raw.trajectory, &raw.reference) {
        (Some(list), None) => {
            if list.len() > MAX_REF_CALLS {
                return Err(ExpectError {
                    location: here.path.to_owned(),
                    message: format!("a `trajectory` of more than {MAX_REF_CALLS} calls"),
                });
            }
            let calls = list
                .iter()
                .map(|c| {
                    let c = c.get_ref();
                    let args = match &c.args {
                        None => None,
                        Some(t) => Some(serde_json::to_value(t).map_err(|e| ExpectError {
                            location: here.path.to_owned(),
                            message: format!("`trajectory` arguments of `{}`: {e}", c.tool),
                        })?),
                    };
                    Ok(RefCall {
                        tool: c.tool.clone(),
                        args,
                    })
                })
                .collect::<Result<Vec<_>, ExpectError>>()?;
            (calls, None)
        }
        (None, Some(r)) => {
            let file = here.base.join(r.get_ref());
            let traces = crate::load_traces(&file).map_err(|e| {
                here.err(
                    r.span(),
                    format!("cannot read the reference trace {}: {e}", file.display()),
                )
            })?;
            let [trace] = traces.as_slice() else {
                return Err(here.err(
                    r.span(),
                    format!(
                        "the reference {} holds {} traces: a reference is one recorded run",
                        file.display(),
                        traces.len()
                    ),
                ));
            };
            if trace.call_count() > MAX_REF_CALLS {
                return Err(here.err(
                    r.span(),
                    format!(
                        "the reference {} has {} calls: more than the {MAX_REF_CALLS} a reference may hold",
                        file.display(),
                        trace.call_count()
                    ),
                ));
            }
            let calls: Vec<RefCall> = trace
                .steps
                .iter()
                .filter_map(|s| s.as_call())
                .map(|c| RefCall {
                    tool: c.name.clone(),
                    args: c.args.known().cloned(),
                })
                .collect();
            (calls, Some(file.display().to_string()))
        }
        _ => unreachable!("exactly one kind"),
    };
    Ok(Trajectory {
        calls,
        mode,
        args,
        tool_args,
        reference,
    })
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
