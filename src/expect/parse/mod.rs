//! Parsing expectations TOML (a standalone file of `[[expect]]` tables, or those tables inside
//! `tracelint.toml` / `[tool.tracelint]`): every unknown key, bad value, bad pointer or regex is
//! an error at its file:line:col. Conditions go through `failure_when`'s own parser, so the
//! predicate language (and its regex size limit) is one.

use std::path::Path;

use toml::Spanned;

use super::error::ExpectError;
use super::expectation::expectation;
use super::ExpectFile;
use super::fields::Here;
use super::raw::*;
use crate::model::LineIndex;

/// Most expectations one file may declare.
const MAX_EXPECTATIONS: usize = 10_000;

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

#[cfg(test)]
mod tests;
