//! What a hook tells the agent, and in which words. By default: every hard defect; an R2a hard
//! event (a tool call that failed) once the agent's next call shows it did not handle it; an
//! R2b use of a value only a failed result supplied, at any tier. `--fail-on` adds every
//! finding at or above its tier. Only findings at or above the `--fail-on` tier (default
//! hard_defect) may block the agent (a Stop hook that makes it go on); the others are told
//! without blocking. A candidate never blocks unless `--fail-on candidate` says so.
//!
//! "Handled by the next call": the next call repeats the failed call, or works on something the
//! failed call named (a word of four or more characters of its arguments: the same path, id or
//! command), or the agent's words before it speak of the failure. A failure with no call after
//! it yet is left undecided.

use serde_json::Value;

use crate::finding::{Finding, RuleId, Tier};
use crate::model::{Args, Pairing, Role, Trace};
use crate::reporters::escape::terminal;
use crate::rules::speaks_of_failure;

/// Which findings reach the agent, and which of them block.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Gate {
    /// The lowest tier that blocks (`--fail-on`, config `fail-on`; default hard_defect).
    pub fail_on: Tier,
    /// `--fail-on never` / `--exit-zero`: nothing blocks.
    pub never: bool,
}

/// The verdict on one finding.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Tell it; `blocking` when it is at or above the gate.
    Tell {
        /// At or above the `--fail-on` tier.
        blocking: bool,
        /// For an unhandled failure: the next call's tool and window step.
        next: Option<(String, usize)>,
    },
    /// Not yet decidable (a failure with no call after it yet).
    Wait,
    /// Not for the agent.
    Skip,
}

/// Decide on a finding of `trace` (window indices).
pub(crate) fn verdict(f: &Finding, trace: &Trace, pairing: &Pairing, gate: Gate) -> Verdict {
    let blocking = !gate.never && f.tier >= gate.fail_on;
    if f.ignored.is_some() {
        return Verdict::Skip;
    }
    if f.tier >= gate.fail_on && !gate.never || f.tier == Tier::HardDefect {
        return Verdict::Tell {
            blocking,
            next: None,
        };
    }
    if f.rule == RuleId::R2b && f.signal == Some("used_after_failure") {
        return Verdict::Tell {
            blocking,
            next: None,
        };
    }
    if f.rule == RuleId::R2a && f.tier == Tier::HardEvent {
        let failed = f.evidence[0].step;
        return match unhandled(trace, pairing, failed) {
            None => Verdict::Wait,
            Some(None) => Verdict::Skip,
            Some(Some(next)) => Verdict::Tell {
                blocking,
                next: Some(next),
            },
        };
    }
    Verdict::Skip
}

/// For the failed result at window step `failed`: `None` when no call came after it yet,
/// `Some(None)` when the next call handled it, `Some(Some((tool, step)))` when it did not.
fn unhandled(trace: &Trace, pairing: &Pairing, failed: usize) -> Option<Option<(String, usize)>> {
    let steps = &trace.steps;
    let call = pairing
        .call_for(failed)
        .and_then(|i| steps.get(i))
        .and_then(|s| s.as_call());
    let mut spoke = false;
    for s in steps.iter().skip(failed + 1) {
        if let Some(m) = s.as_message() {
            spoke |= m.role == Role::Assistant && speaks_of_failure(&m.content);
            continue;
        }
        let Some(next) = s.as_call() else { continue };
        let handled = spoke
            || call.is_some_and(|c| {
                c.name == next.name && c.args == next.args || shares_a_word(&c.args, &next.args)
            });
        return Some((!handled).then(|| (next.name.clone(), s.index)));
    }
    None
}

/// Do two calls' arguments share a word (4 or more characters of a string, cut at spaces,
/// quotes and punctuation that separates shell words or fields) or a number of 100 or more?
fn shares_a_word(a: &Args, b: &Args) -> bool {
    let (Args::Known(a), Args::Known(b)) = (a, b) else {
        return false;
    };
    let mut mine = Vec::new();
    words(a, 0, &mut mine);
    if mine.is_empty() {
        return false;
    }
    let mut theirs = Vec::new();
    words(b, 0, &mut theirs);
    theirs.iter().any(|t| mine.contains(t))
}

/// Most words taken from one call's arguments.
const MAX_WORDS: usize = 512;

fn words(v: &Value, depth: usize, out: &mut Vec<String>) {
    if depth > 32 || out.len() >= MAX_WORDS {
        return;
    }
    match v {
        Value::String(s) => {
            for w in s.split(|c: char| {
                c.is_whitespace() || "\"'`=,;:()[]{}<>|&".contains(c)
            }) {
                if w.chars().nth(3).is_some() && out.len() < MAX_WORDS {
                    out.push(w.to_owned());
                }
            }
        }
        Value::Number(n) if n.as_f64().is_some_and(|x| x.abs() >= 100.0) => {
            out.push(n.to_string());
        }
        Value::Array(items) => items.iter().for_each(|x| words(x, depth + 1, out)),
        Value::Object(m) => m.values().for_each(|x| words(x, depth + 1, out)),
        _ => {}
    }
}

/// One finding as told: what happened, at which step, and what to do.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Telling {
    /// Its key in the state's told list.
    pub key: String,
    /// The rule.
    pub rule: RuleId,
    /// The tier.
    pub tier: Tier,
    /// The tool involved.
    pub tool: Option<String>,
    /// The rule's message.
    pub message: String,
    /// What to do.
    pub help: Option<String>,
    /// The step (its index in the whole transcript's trace).
    pub step: usize,
    /// Where the step is.
    pub line: u32,
    /// Its column.
    pub column: u32,
    /// At or above the `--fail-on` tier.
    pub blocking: bool,
    /// For an unhandled failure: the next call (tool, step).
    pub next: Option<(String, usize)>,
}

/// A finding's key: rule, tier, signal and where its primary evidence is (stable while the
/// transcript grows: a line's number never changes).
pub(crate) fn key(f: &Finding) -> String {
    let at = &f.evidence[0].at;
    format!(
        "{}:{}:{}:{}:{}",
        f.rule,
        f.tier,
        f.signal.unwrap_or("-"),
        at.line,
        at.column
    )
}

/// Most characters of untrusted text (a message, a tool name) in one told line.
const MAX_TEXT: usize = 400;

fn clip(s: &str) -> String {
    let s = terminal(s);
    if s.chars().count() <= MAX_TEXT {
        return s.into_owned();
    }
    let mut t: String = s.chars().take(MAX_TEXT).collect();
    t.push('…');
    t
}

impl Telling {
    /// One or two lines for the agent (and the user): what happened at which step, and what
    /// to do.
    pub fn text(&self, file: &str) -> String {
        let tool = self
            .tool
            .as_deref()
            .map(|t| format!(" `{}`", clip(t)))
            .unwrap_or_default();
        let what = match &self.next {
            Some((next, at)) => format!(
                "{} (step {}), and the next call `{}` (step {at}) went on without retrying or checking it",
                clip(&self.message),
                self.step,
                clip(next)
            ),
            None => clip(&self.message),
        };
        let todo = match (&self.next, &self.help) {
            (Some(_), _) => "read the error and deal with it before relying on that call".to_owned(),
            (None, Some(h)) => clip(h),
            (None, None) => "fix the call and try again".to_owned(),
        };
        format!(
            "tracelint {} {}{tool} at step {} ({}:{}:{}): {what}\n  what to do: {todo}",
            self.tier,
            self.rule,
            self.step,
            clip(file),
            self.line,
            self.column
        )
    }
}

/// The told findings as one message: the first `max` in full, then how many more and how to
/// see them all.
pub(crate) fn message(told: &[Telling], file: &str, max: usize) -> String {
    let mut lines: Vec<String> = told.iter().take(max).map(|t| t.text(file)).collect();
    if told.len() > max {
        lines.push(format!(
            "and {} more: `tracelint check {}` lists them",
            told.len() - max,
            clip(file)
        ));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_told_finding_says_what_happened_where_and_what_to_do() {
        let t = |next: Option<(&str, usize)>, help: Option<&str>| Telling {
            key: String::new(),
            rule: RuleId::R2a,
            tier: Tier::HardEvent,
            tool: Some("Bash\u{1b}[31m".into()),
            message: "`Bash` returned an error: exit code 1".into(),
            help: help.map(str::to_owned),
            step: 12,
            line: 25,
            column: 366,
            blocking: false,
            next: next.map(|(n, i)| (n.to_owned(), i)),
        };
        let told = [
            t(Some(("Write", 14)), None),
            t(None, Some("retry it")),
            t(None, None),
            t(None, None),
        ];
        insta::assert_snapshot!(message(&told, "/s/session.jsonl", 3), @r"
        tracelint hard_event R2a `Bash\x1b[31m` at step 12 (/s/session.jsonl:25:366): `Bash` returned an error: exit code 1 (step 12), and the next call `Write` (step 14) went on without retrying or checking it
          what to do: read the error and deal with it before relying on that call
        tracelint hard_event R2a `Bash\x1b[31m` at step 12 (/s/session.jsonl:25:366): `Bash` returned an error: exit code 1
          what to do: retry it
        tracelint hard_event R2a `Bash\x1b[31m` at step 12 (/s/session.jsonl:25:366): `Bash` returned an error: exit code 1
          what to do: fix the call and try again
        and 1 more: `tracelint check /s/session.jsonl` lists them
        ");
    }

    #[test]
    fn calls_share_a_word_of_their_arguments() {
        let known = |v: serde_json::Value| Args::Known(v);
        let read = known(serde_json::json!({"file_path": "/src/main.rs"}));
        let edit = known(serde_json::json!({"file_path": "/src/main.rs", "old": "x"}));
        let grep = known(serde_json::json!({"pattern": "main"}));
        let cat = known(serde_json::json!({"cmd": "cat missing-file.txt"}));
        let touch = known(serde_json::json!({"cmd": "touch missing-file.txt"}));
        let ls = known(serde_json::json!({"cmd": "ls -la"}));
        assert!(shares_a_word(&read, &edit));
        assert!(!shares_a_word(&read, &grep));
        assert!(shares_a_word(&cat, &touch));
        assert!(!shares_a_word(&cat, &ls));
        assert!(shares_a_word(
            &known(serde_json::json!({"id": 4501, "small": 7})),
            &known(serde_json::json!({"ids": [4501]}))
        ));
        assert!(!shares_a_word(&Args::Unknown("x".into()), &edit));
    }
}
