//! Reading the fields of an expectations file that every expectation shares: where a span is
//! (`Here`, as `path:line:col`), glob lists, conditions, status names, call filters and the
//! argument-matching mode, each with the error a malformed value gets.

use std::path::Path;

use toml::Spanned;

use super::error::ExpectError;
use super::raw::*;
use super::{ArgsMode, Bounds, CallFilter, Condition, StepStatus};
use crate::model::LineIndex;
/// Most calls one reference may list.
pub(super) const MAX_REF_CALLS: usize = 10_000;

/// Turns byte spans into `path:line:col`.
pub(super) struct Here<'a> {
    pub(super) text: &'a str,
    pub(super) path: &'a str,
    pub(super) index: LineIndex,
    /// The folder `reference` paths resolve against.
    pub(super) base: &'a Path,
}

impl Here<'_> {
    pub(super) fn at(&self, span: std::ops::Range<usize>) -> String {
        let (l, c) = self.index.line_col(self.text, span.start);
        format!("{}:{l}:{c}", self.path)
    }

    pub(super) fn err(
        &self,
        span: std::ops::Range<usize>,
        message: impl Into<String>,
    ) -> ExpectError {
        ExpectError {
            location: self.at(span),
            message: message.into(),
        }
    }

    pub(super) fn toml(&self, e: &toml::de::Error) -> ExpectError {
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

pub(super) fn glob_list(
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

pub(super) fn conditions(
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
pub(super) fn condition(json: serde_json::Value, key: &str) -> Result<Condition, String> {
    let predicate = crate::sources::file::parse_failure_when(&json)
        .map_err(|m| format!("a `{key}` condition {m}"))?;
    Ok(Condition {
        text: condition_text(&json),
        predicate,
    })
}

pub(super) fn status_of(s: &str) -> Result<StepStatus, String> {
    StepStatus::parse(s)
}

/// `turns` / `calls` bounds; errors at the key's span.
pub(super) fn bounds(
    raw: &Spanned<RawBounds>,
    key: &str,
    here: &Here<'_>,
) -> Result<Bounds, ExpectError> {
    let err = |m: String| here.err(raw.span(), format!("`{key}`: {m}"));
    let r = raw.get_ref();
    let n = |v: Option<i64>, k: &str| -> Result<Option<u64>, ExpectError> {
        v.map(|n| u64::try_from(n).map_err(|_| err(format!("`{k}` must be a count (0 or more)"))))
            .transpose()
    };
    let (mut at_least, mut at_most) = (n(r.at_least, "min")?, n(r.at_most, "max")?);
    if let Some(x) = n(r.exactly, "exactly")? {
        if at_least.is_some() || at_most.is_some() {
            return Err(err("`exactly` cannot be combined with `min` or `max`".into()));
        }
        (at_least, at_most) = (Some(x), Some(x));
    }
    match (at_least, at_most) {
        (None, None) => Err(err("give `min`, `max` or `exactly`".into())),
        (Some(l), Some(m)) if l > m => Err(err(format!("`min` ({l}) is more than `max` ({m})"))),
        _ => Ok(Bounds { at_least, at_most }),
    }
}

/// The other call of `before` / `after`; its errors are at the key's span.
pub(super) fn other_call(
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
pub(super) fn condition_text(v: &serde_json::Value) -> String {
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

pub(super) fn args_mode(
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
