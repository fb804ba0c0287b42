//! A one-line excerpt of a step, as evidence carries it and reports show it: bounded in
//! characters and written only as far as it shows, so a huge result costs what its first line
//! does.

use crate::model::Step;

/// Longest step excerpt kept in evidence, in characters.
const EXCERPT_CHARS: usize = 160;

/// A one-line excerpt of a step: `name {args}`, `[status] content`, or `role: text`, its
/// whitespace runs folded to one space, cut at `EXCERPT_CHARS` (then ending in `…`). Only as
/// much of the step as the excerpt shows is written out (a result of megabytes costs what its
/// first line does).
pub fn excerpt(step: &Step) -> String {
    use crate::model::{Args, StepKind};
    use std::fmt::Write;
    let mut out = Excerpt::default();
    // `Err` only means the excerpt is full.
    let _ = match &step.kind {
        StepKind::ToolCall(c) => match (&c.args, &c.raw_args) {
            (Args::Known(v), _) => write!(out, "{} {}", c.name, v),
            (_, Some(raw)) => write!(out, "{} {}", c.name, raw),
            (Args::Unknown(why), None) => write!(out, "{} (arguments {why})", c.name),
            (Args::Malformed(_), None) => out.write_str(&c.name),
        },
        StepKind::ToolResult(r) => {
            let status = match r.status {
                crate::model::ResultStatus::Ok => "ok",
                crate::model::ResultStatus::Error => "error",
                crate::model::ResultStatus::Unknown => "result",
            };
            match &r.content {
                serde_json::Value::String(s) => write!(out, "[{status}] {s}"),
                other => write!(out, "[{status}] {other}"),
            }
        }
        StepKind::Message(m) => {
            let role = match m.role {
                crate::model::Role::User => "user",
                crate::model::Role::Assistant => "assistant",
                crate::model::Role::System => "system",
                crate::model::Role::Tool => "tool",
            };
            write!(out, "{role}: {}", m.content)
        }
    };
    out.finish()
}

/// An excerpt being written: whitespace folded, leading and trailing whitespace dropped, and
/// writing refused once it holds one char more than `EXCERPT_CHARS` (so it is known to be cut).
#[derive(Default)]
struct Excerpt {
    text: String,
    chars: usize,
    /// Whitespace seen since the last char kept (written only if another char follows).
    space: bool,
}

impl Excerpt {
    fn push(&mut self, c: char) -> std::fmt::Result {
        if self.chars > EXCERPT_CHARS {
            return Err(std::fmt::Error);
        }
        self.text.push(c);
        self.chars += 1;
        Ok(())
    }

    /// Whitespace seen before what comes next is one space (none at the start).
    fn separate(&mut self) -> std::fmt::Result {
        if std::mem::take(&mut self.space) && self.chars > 0 {
            self.push(' ')?;
        }
        Ok(())
    }

    fn finish(mut self) -> String {
        if self.chars > EXCERPT_CHARS {
            // One char past the limit: drop it and say the text goes on.
            self.text.pop();
            self.text.push('…');
        }
        self.text
    }
}

impl std::fmt::Write for Excerpt {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let mut rest = s;
        loop {
            // Printable ASCII (most of any text) is copied a run at a time, as `push` would
            // copy it char by char up to the limit.
            let run = rest.bytes().take_while(u8::is_ascii_graphic).count();
            if run > 0 {
                self.separate()?;
                let n = run.min((EXCERPT_CHARS + 1).saturating_sub(self.chars));
                self.text.push_str(&rest[..n]);
                self.chars += n;
                if n < run {
                    return Err(std::fmt::Error);
                }
                rest = &rest[run..];
            }
            let Some(c) = rest.chars().next() else {
                return Ok(());
            };
            rest = &rest[c.len_utf8()..];
            if c.is_whitespace() {
                self.space = true;
                continue;
            }
            self.separate()?;
            self.push(c)?;
        }
    }
}

#[cfg(test)]
mod tests;
