//! Whether an unknown-status result looks like a failure by its content: a status in its body,
//! a line that begins with an error report, or an empty result. R2a makes each a candidate;
//! R3 does not count a suspect result as confirming a value. Kept out of `outcome` on purpose:
//! a heuristic never makes a failure another rule builds on.

use std::sync::LazyLock;

use regex::{Regex, RegexBuilder};
use serde_json::Value;

use crate::model::{JsonEvent, ToolCall, ToolResult};

use super::normalize::normalize_text;
use super::outcome::{is_search, top_level_members};

/// Bytes of one text scanned for an error line (the regex is linear; this bounds the work).
const SCAN_BYTES: usize = 1 << 20;
/// Longest matched line quoted in a message.
const QUOTE_CHARS: usize = 60;

/// A line that *begins* with an error report, after an optional log tag like `[rank0]:`.
static ERROR_LINE: LazyLock<Regex> = LazyLock::new(|| {
    let pattern = r"(?mx)
        ^ (?: \[ [^\]\n]{1,40} \] :? [\ \t]* )?
        (?:
            Traceback\ \(most\ recent\ call\ last\)
          | \[ (?i: error | err | fatal ) \]
          | (?i: error | fatal | exception | failed | failure ) \b
          | [A-Za-z_] [A-Za-z0-9_.]* (?: Error | Exception ) (?: : | $ )
          | (?i: < [^<>\n]{0,40} error [^<>\n]{0,40} > )
          | [A-Za-z0-9_./-]+ : \ (?i: error | fatal ) \b
          | make (?: \[\d+\] )? : \ \*\*\*
          | [A-Za-z0-9_./-]+ : \ [^\n]{0,200}? (?i:
                command\ not\ found | no\ such\ file\ or\ directory | permission\ denied
              | cannot\ access | is\ a\ directory | not\ a\ directory )
          | HTTP/\d (?: \.\d )? \ [45]\d\d \b
        )";
    RegexBuilder::new(pattern)
        .size_limit(1 << 22)
        .build()
        .expect("the R2a pattern is valid")
});

/// Whole results that mean "nothing there".
const EMPTY_PHRASES: &[&str] = &[
    "no results",
    "no result",
    "no results found",
    "not found",
    "none found",
    "0 results",
];

/// Would an unknown-status result make an R2a candidate (a status in its body, a line that
/// begins with an error report, or an empty result of a call that is not a search)? Other rules
/// that build on "this call probably succeeded" ask it (R3's confirmation of a value).
pub(crate) fn suspected(result: &ToolResult, call: Option<&ToolCall>) -> bool {
    result_body_status(result).is_some()
        || result_error_line(result).is_some()
        || (result_is_empty(result) && !call.is_some_and(is_search))
}

/// Keys of a result body that carry a status.
const STATUS_KEYS: &[&str] = &["status", "http_status", "status_code", "statusCode"];

/// `body_status` of the result's structured content; a string holding JSON is read as events,
/// and only the members `body_status` looks at are built.
pub(crate) fn result_body_status(result: &ToolResult) -> Option<String> {
    match result.json() {
        Some(json) => body_status(&Value::Object(top_level_members(json, &[STATUS_KEYS])?)),
        None => body_status(result.structured()),
    }
}

/// `error_line` of the result's structured content; a string holding JSON is read as events:
/// every string `each_text` would scan is scanned once, and only when some holds an error line
/// are the paths followed to find the one the tree walk would meet first.
pub(crate) fn result_error_line(result: &ToolResult) -> Option<String> {
    let Some(events) = result.json_events() else {
        return error_line(result.structured());
    };
    let mut depth = 0usize;
    let mut found: Vec<(usize, String)> = Vec::new();
    for (i, e) in events.enumerate() {
        match e {
            JsonEvent::Open { .. } => depth += 1,
            JsonEvent::Close => depth = depth.saturating_sub(1),
            JsonEvent::Str(text) if depth <= TEXT_DEPTH => {
                if let Some(line) = error_line_in(text, true) {
                    found.push((i, line));
                }
            }
            _ => {}
        }
    }
    if found.is_empty() {
        return None;
    }
    let first = first_in_tree_order(result.json_events()?, &found)?;
    found.into_iter().nth(first).map(|(_, line)| line)
}

/// Of the events at `found` (indices, increasing; each a string), which one (its position in
/// `found`) a walk of the tree the events describe meets first: the live one (not the value of
/// a key repeated later in its object, which the tree drops) whose path sorts first (the tree's
/// objects iterate their keys in byte order, arrays in index order).
fn first_in_tree_order<'a, T>(
    events: impl Iterator<Item = JsonEvent<'a>>,
    found: &[(usize, T)],
) -> Option<usize> {
    #[derive(PartialEq, Eq, PartialOrd, Ord, Clone, Copy)]
    enum Step<'a> {
        Key(&'a str),
        Index(usize),
    }
    struct Frame {
        next_index: Option<usize>,
        /// Where the object's members begin in `members`.
        members_from: usize,
    }
    let mut path: Vec<Step<'a>> = Vec::new();
    let mut frames: Vec<Frame> = Vec::new();
    // The open objects' members, innermost last: key and the index of its key event.
    let mut members: Vec<(&'a str, usize)> = Vec::new();
    let mut paths: Vec<Vec<Step<'a>>> = Vec::with_capacity(found.len());
    let mut dead: Vec<(usize, usize)> = Vec::new();
    // An object's members as (key, first event, end), reused from object to object.
    let mut spans: Vec<(&'a str, usize, usize)> = Vec::new();
    let last = found.last()?.0;
    for (i, e) in events.enumerate() {
        // A value in an array takes the next index.
        if !matches!(e, JsonEvent::Key(_) | JsonEvent::Close)
            && let Some(frame) = frames.last_mut()
            && let Some(n) = &mut frame.next_index
        {
            if let Some(top) = path.last_mut() {
                *top = Step::Index(*n);
            }
            *n += 1;
        }
        match e {
            JsonEvent::Open { object } => {
                frames.push(Frame {
                    next_index: (!object).then_some(0),
                    members_from: members.len(),
                });
                path.push(Step::Index(0));
            }
            JsonEvent::Close => {
                path.pop();
                let Some(frame) = frames.pop() else { break };
                // A member whose key comes again later in its object is dead. Each member's
                // events end where the next one's begin (the last's here); sorted stably by
                // key, every member but the last of a run of equal keys is dead.
                let own = &members[frame.members_from..];
                spans.clear();
                spans.extend(own.iter().enumerate().map(|(m, (key, start))| {
                    (*key, *start, own.get(m + 1).map_or(i, |(_, s)| *s))
                }));
                members.truncate(frame.members_from);
                spans.sort_by(|a, b| a.0.cmp(b.0));
                for pair in spans.windows(2) {
                    if pair[0].0 == pair[1].0 {
                        dead.push((pair[0].1, pair[0].2));
                    }
                }
            }
            JsonEvent::Key(k) => {
                if !frames.is_empty() {
                    members.push((k, i));
                }
                if let Some(top) = path.last_mut() {
                    *top = Step::Key(k);
                }
            }
            _ if found.get(paths.len()).is_some_and(|(at, _)| *at == i) => {
                paths.push(path.clone());
            }
            _ => {}
        }
    }
    // Event i is dead when some dead range covers it: count range starts minus ends up to i.
    let mut cover = vec![0i64; last + 2];
    for (start, end) in dead {
        if let Some(c) = cover.get_mut(start) {
            *c += 1;
        }
        if let Some(c) = cover.get_mut(end) {
            *c -= 1;
        }
    }
    let mut running = 0;
    for c in &mut cover {
        running += *c;
        *c = running;
    }
    paths
        .iter()
        .enumerate()
        .filter(|(k, _)| cover[found[*k].0] == 0)
        .min_by(|a, b| a.1.cmp(b.1))
        .map(|(k, _)| k)
}

/// `is_empty_result` of the result's structured content, from its events when it is a string
/// holding JSON (empty when it is `{}` or `[]`).
pub(crate) fn result_is_empty(result: &ToolResult) -> bool {
    match result.json_events() {
        Some(mut events) => matches!(
            (events.next(), events.next()),
            (Some(JsonEvent::Open { .. }), Some(JsonEvent::Close))
        ),
        None => is_empty_result(result.structured()),
    }
}

/// The first line of the result's text that begins with an error report, quoted. In a
/// structured result only strings that read as output (with whitespace) are scanned: a bare
/// `"error"` value is a field's data (see `body_status`).
fn error_line(content: &Value) -> Option<String> {
    let mut found = None;
    let structured = !content.is_string();
    each_text(content, 0, &mut |text| {
        if found.is_none() {
            found = error_line_in(text, structured);
        }
    });
    found
}

/// The error line of one text, quoted; in a structured result only a text with whitespace.
fn error_line_in(text: &str, structured: bool) -> Option<String> {
    // An ASCII whitespace byte says so at once; only a text without one is read char by char.
    if structured
        && !text.bytes().any(crate::analysis::normalize::is_ascii_space)
        && (text.is_ascii() || !text.contains(char::is_whitespace))
    {
        return None;
    }
    let mut end = text.len().min(SCAN_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let m = ERROR_LINE.find(&text[..end])?;
    let line = text[m.start()..].lines().next().unwrap_or("").trim_end();
    Some(quote(line))
}

fn quote(line: &str) -> String {
    let mut q: String = line.chars().take(QUOTE_CHARS).collect();
    if line.chars().count() > QUOTE_CHARS {
        q.push('…');
    }
    q.replace('`', "'")
}

/// Deepest nesting of a structured result whose strings are scanned for an error line.
const TEXT_DEPTH: usize = 16;

/// Every string of a result: the text itself, or the string leaves of a structure.
fn each_text(v: &Value, depth: usize, f: &mut dyn FnMut(&str)) {
    if depth > TEXT_DEPTH {
        return;
    }
    match v {
        Value::String(s) => f(s),
        Value::Array(items) => items.iter().for_each(|i| each_text(i, depth + 1, f)),
        Value::Object(m) => m.values().for_each(|i| each_text(i, depth + 1, f)),
        _ => {}
    }
}

/// A failure-looking status in the result body: `status` error/failed/failure, or an HTTP
/// status ≥ 400. Data until `failure_when` says otherwise, hence only a candidate.
fn body_status(content: &Value) -> Option<String> {
    let m = content.as_object()?;
    if let Some(s) = m.get("status").and_then(Value::as_str) {
        let n = s.trim().to_ascii_lowercase();
        if matches!(n.as_str(), "error" | "failed" | "failure") {
            return Some(format!("`status: {n}`"));
        }
    }
    for &key in &STATUS_KEYS[1..] {
        let code = match m.get(key) {
            Some(Value::Number(n)) => n.as_u64(),
            Some(Value::String(s)) => s.trim().parse().ok(),
            _ => None,
        };
        if let Some(c) = code.filter(|c| (400..600).contains(c)) {
            return Some(format!("`{key}: {c}`"));
        }
    }
    None
}

fn is_empty_result(content: &Value) -> bool {
    if crate::analysis::normalize::is_empty(content) {
        return true;
    }
    match content {
        Value::String(s) if s.len() < 64 => {
            let n = normalize_text(s);
            let n = n.trim_end_matches('.');
            EMPTY_PHRASES.contains(&n)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests;
