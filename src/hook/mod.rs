//! `tracelint hook`: lint a coding agent's session while it works, from the agent's own hooks
//! (Claude Code and Gemini CLI after each tool call and before the agent stops, Codex after each
//! turn), and tell the agent what it should act on.
//!
//! A hook runs after every call, so it never reads the whole session again. Each call reads only
//! the lines added since the last one and lints a *window*: those new lines, the recent tail of
//! the session (`Limits::tail` bytes), and lines pinned for what later rules need (the header
//! lines, every failed result with its call and the call after it, the user's prompts). The
//! window is parsed by the format's own adapter, with each line's real number, and linted by the
//! same `Linter` `check` builds from the same flags and `tracelint.toml`: the rules are the
//! library's, never re-implemented here. Step indices are mapped back to the whole session's.
//! A finding is considered while its step is new or in the newer half of the tail, and told once
//! (the state remembers it by rule, tier, signal and line:col). What the window cannot see is
//! what lies beyond it: a value seen only before the tail (R3, R5 and R2b's "nothing else
//! carried it") is judged without it; everything a call and its result decide (R1, R2a, R6, R7)
//! is exact. `docs/hooks.md` says so to users.
//!
//! Per call the work is bounded by the window, not the session: the state file (`state`) keeps
//! offsets, not text; the lines are read again from the transcript (`window`); what is told is
//! decided by `policy`. The agents' protocols are in `event`, `claude`, `gemini` and `codex`;
//! writing their settings in `install`. A little over 400 lines, kept whole: one window's read,
//! parse, index mapping, lint and state update are one pass over the same lines.

pub(crate) mod claude;
pub(crate) mod codex;
mod event;
pub(crate) mod gemini;
pub(crate) mod install;
mod json_edit;
pub(crate) mod policy;
pub(crate) mod state;
mod window;

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::adapters::{self, Body, InputFormat, Parsed};
use crate::config::Ignore;
use crate::finding::InputIssue;
use crate::lint::Linter;
use crate::model::{InputRef, Pairing, ResultStatus, Role, Trace};

pub(crate) use event::{Event, EventKind, HookInput, answer};
use policy::{Gate, Telling, Verdict};
use state::{Kept, Lock, State};
use window::{NewLines, WindowLine};

/// How much one hook call reads and keeps.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Bytes of the session's most recent lines linted with the new ones.
    pub tail: u64,
    /// Bytes of pinned lines kept besides the tail (oldest dropped first).
    pub pinned: u64,
    /// Bytes of new lines linted in one window (more are linted in further windows).
    pub segment: u64,
    /// Unread history larger than this is skipped, not read (a huge session seen first).
    pub catch_up: u64,
    /// The largest line read (`check`'s record limit).
    pub max_record: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            tail: 512 << 10,
            pinned: 256 << 10,
            segment: 1 << 20,
            catch_up: 256 << 20,
            max_record: crate::adapters::Limits::default().max_record,
        }
    }
}

/// How long a hook waits for the line of the call it runs after.
const CALL_WAIT: std::time::Duration = std::time::Duration::from_millis(1500);

/// A pinned line larger than this is not pinned (it stays while it is in the tail).
const MAX_PINNED_LINE: u32 = 256 << 10;

/// What one hook call found to tell.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    /// The findings to tell, in the order found.
    pub told: Vec<Telling>,
    /// Problems with the new lines (malformed JSON, a line over the limit).
    pub issues: Vec<InputIssue>,
    /// Bytes of history passed over unread on this call.
    pub skipped: u64,
    /// The transcript was missing.
    pub missing: bool,
}

/// Watches transcripts with one linter.
#[derive(Debug)]
pub(crate) struct Engine<'a> {
    /// The linter `check` would use.
    pub linter: &'a Linter,
    /// What reaches the agent and what blocks.
    pub gate: Gate,
    /// The config's `[[ignore]]` entries.
    pub ignores: &'a [Ignore],
    /// How much one call reads.
    pub limits: Limits,
    /// Where state files are.
    pub state_dir: PathBuf,
}

impl Engine<'_> {
    /// Read what `transcript` gained since the last call and decide what to tell. `call_id`:
    /// a call whose line the transcript should hold, waited for a moment when it does not yet.
    pub fn watch(
        &self,
        transcript: &Path,
        format: InputFormat,
        call_id: Option<&str>,
    ) -> anyhow::Result<Outcome> {
        let display = transcript.to_string_lossy().into_owned();
        // Opened like every file tracelint reads: a named pipe or a device is refused at once
        // (a pipe nobody writes to would block the agent); each call reads at most a window.
        let mut file = match crate::inputs::open(transcript, crate::inputs::Pipes::Refuse) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Outcome {
                    missing: true,
                    ..Outcome::default()
                });
            }
            Err(e) => return Err(e).with_context(|| format!("cannot read {display}")),
        };
        if let Some(id) = call_id {
            window::wait_for(&mut file, id, CALL_WAIT);
        }
        std::fs::create_dir_all(&self.state_dir)
            .with_context(|| format!("cannot make {}", self.state_dir.display()))?;
        let path = state::state_path(&self.state_dir, transcript);
        let _lock = Lock::take(&path)?;
        let mut st = state::load(&path, &display, self.limits.tail);
        let size = file.metadata()?.len();
        if !still_valid(&mut file, &st, size) {
            st = State::new(&display, self.limits.tail);
        }
        let mut out = Outcome::default();
        // A state made now for a transcript that already holds more than one window of lines
        // (a hook installed mid-session, a state rebuilt): what lies before the last window is
        // history, linted for what later windows need but not told.
        let history_until = if st.consumed == 0 && size > self.limits.segment {
            size - self.limits.segment
        } else {
            0
        };
        if size - st.consumed > self.limits.catch_up {
            let to = size.saturating_sub(self.limits.tail);
            let (resume, lines) = window::skip_to(&mut file, st.consumed, to)?;
            out.skipped = resume - st.consumed;
            st.skipped += out.skipped;
            st.consumed = resume;
            st.lines = st.lines.saturating_add(lines);
            st.kept.retain(|k| k.pinned);
        }
        loop {
            let new = window::read_new(
                &mut file,
                &display,
                st.consumed,
                st.lines,
                self.limits.segment,
                self.limits.max_record,
            )?;
            if new.end == st.consumed {
                break;
            }
            let Ok(kept) = window::read_kept(&mut file, &st.kept) else {
                // A kept line changed under us: the transcript was rewritten. Start over.
                st = State::new(&display, self.limits.tail);
                continue;
            };
            let history = new.end <= history_until;
            let told_before = out.told.len();
            self.lint_window(&mut st, &display, format, kept, new, &mut out);
            if history {
                out.told.truncate(told_before);
            }
            if st.head_len < 4096 {
                let len = st.consumed.min(4096) as usize;
                st.head = state::fingerprint(&window::read_at(&mut file, 0, len)?);
                st.head_len = len as u32;
            }
        }
        state::save(&path, &st).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(out)
    }

    /// Lint one window (the kept lines, then `new`) and update the state.
    fn lint_window(
        &self,
        st: &mut State,
        display: &str,
        format: InputFormat,
        kept: Vec<WindowLine>,
        new: NewLines,
        out: &mut Outcome,
    ) {
        let first_new = new.lines.first().map(|l| l.line);
        let new_start = new.lines.first().map_or(new.end, |l| l.offset);
        out.issues.extend(new.issues);
        let mut lines = kept;
        lines.extend(new.lines);
        let offsets: BTreeMap<u32, u64> = lines.iter().map(|l| (l.line, l.offset)).collect();
        let kept_at: HashMap<u32, usize> = lines
            .iter()
            .filter_map(|l| Some((l.line, l.kept?)))
            .collect();
        let is_new = |line: u32| first_new.is_some_and(|f| line >= f);
        // A finding is considered while its step is new or in the newer half of the tail.
        let horizon = new_start.saturating_sub(self.limits.tail / 2);
        let eligible = |line: u32| is_new(line) || offsets.get(&line).is_some_and(|&o| o >= horizon);

        let mut parsed = Parsed::default();
        {
            let mut iter = lines.iter_mut().map(|l| {
                Ok(crate::adapters::common::json_pos::Line {
                    number: l.line,
                    text: std::mem::take(&mut l.text),
                })
            });
            let input = InputRef {
                path: display.to_owned(),
                format: format.name().to_owned(),
            };
            adapters::parse_body(format, Body::Lines(&mut iter), &input, &mut parsed);
        }
        out.issues
            .extend(parsed.issues.into_iter().filter(|i| is_new(i.line)));

        let told = st.told_set().into_iter().map(str::to_owned).collect::<std::collections::HashSet<_>>();
        let mut pins: Vec<u32> = Vec::new();
        let mut firsts: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
        let mut fresh = Vec::new();
        for mut trace in parsed.traces {
            let slot = st.slot(&trace.run_id);
            state::remember_facts(&mut st.traces[slot as usize], &mut trace);
            let base = st.traces[slot as usize].steps;
            // The whole session's index of each window step.
            let mut table = Vec::with_capacity(trace.steps.len());
            let mut ordinal: HashMap<u32, u32> = HashMap::new();
            let mut added = 0u32;
            for s in &trace.steps {
                let line = s.at.line;
                let true_index = match kept_at.get(&line) {
                    Some(&k) if !is_new(line) => {
                        let first = st.kept[k]
                            .firsts
                            .iter()
                            .find(|(t, _)| *t == slot)
                            .map_or(base, |(_, f)| *f);
                        let n = ordinal.entry(line).or_default();
                        *n += 1;
                        first + *n - 1
                    }
                    _ => {
                        let f = firsts.entry(line).or_default();
                        if !f.iter().any(|(t, _)| *t == slot) {
                            f.push((slot, base + added));
                        }
                        added += 1;
                        base + added - 1
                    }
                };
                table.push(true_index as usize);
            }
            st.traces[slot as usize].steps = base + added;

            let lint = self.linter.lint(&trace);
            let pairing = Pairing::new(&trace);
            for mut f in lint.outcome.findings {
                let line = f.evidence[0].at.line;
                if f.rule == crate::finding::RuleId::R2a && f.tier == crate::finding::Tier::HardEvent
                {
                    pin_failure(&trace, &pairing, f.evidence[0].step, &mut pins);
                }
                if !eligible(line) {
                    continue;
                }
                if let Some(ig) = self.ignores.iter().find(|ig| ig.matches(&f, display)) {
                    f.ignored = Some(ig.reason.clone());
                }
                let key = policy::key(&f);
                if told.contains(&key) {
                    continue;
                }
                if let Verdict::Tell { blocking, next } =
                    policy::verdict(&f, &trace, &pairing, self.gate)
                {
                    let at = &f.evidence[0].at;
                    fresh.push(Telling {
                        key,
                        rule: f.rule,
                        tier: f.tier,
                        tool: f.tool.clone(),
                        message: f.message.clone(),
                        help: f.help.clone(),
                        step: table.get(f.evidence[0].step).copied().unwrap_or_default(),
                        line: at.line,
                        column: at.column,
                        blocking,
                        next: next.map(|(t, i)| (t, table.get(i).copied().unwrap_or_default())),
                    });
                }
            }
            for s in &trace.steps {
                match &s.kind {
                    crate::model::StepKind::ToolResult(r) if r.status == ResultStatus::Error => {
                        pin_failure(&trace, &pairing, s.index, &mut pins);
                    }
                    crate::model::StepKind::Message(m) if m.role == Role::User => {
                        pins.push(s.at.line);
                    }
                    _ => {}
                }
            }
        }
        // A failure and the call after it; the header line.
        if st.consumed == 0
            && let Some(l) = lines.first()
        {
            pins.push(l.line);
        }
        st.remember(fresh.iter().map(|t| t.key.clone()));
        // Each finding once, even when two traces of one line found it.
        let mut seen = std::collections::HashSet::new();
        out.told.extend(fresh.into_iter().filter(|t| seen.insert(t.key.clone())));
        st.kept = next_kept(st, &lines, &pins, &firsts, new.end, self.limits);
        st.consumed = new.end;
        st.lines = new.last_line;
    }
}

/// Pin the failed result at window step `failed`, its call, and the call after it.
fn pin_failure(trace: &Trace, pairing: &Pairing, failed: usize, pins: &mut Vec<u32>) {
    let steps = &trace.steps;
    if let Some(s) = steps.get(failed) {
        pins.push(s.at.line);
    }
    if let Some(c) = pairing.call_for(failed).and_then(|i| steps.get(i)) {
        pins.push(c.at.line);
    }
    if let Some(n) = steps.iter().skip(failed + 1).find(|s| s.as_call().is_some()) {
        pins.push(n.at.line);
    }
}

/// The lines to keep for the next window: the pinned ones (the oldest dropped past
/// `Limits::pinned`, never the first line) and the tail.
fn next_kept(
    st: &State,
    lines: &[WindowLine],
    pins: &[u32],
    firsts: &HashMap<u32, Vec<(u32, u32)>>,
    end: u64,
    limits: Limits,
) -> Vec<Kept> {
    let tail_start = end.saturating_sub(limits.tail);
    let mut kept: Vec<Kept> = lines
        .iter()
        .filter_map(|l| {
            let old = l.kept.map(|k| &st.kept[k]);
            let pinned = l.len <= MAX_PINNED_LINE
                && (old.is_some_and(|k| k.pinned) || pins.contains(&l.line));
            (pinned || l.offset >= tail_start).then(|| Kept {
                offset: l.offset,
                len: l.len,
                line: l.line,
                pinned,
                hash: l.hash,
                firsts: old.map_or_else(
                    || firsts.get(&l.line).cloned().unwrap_or_default(),
                    |k| k.firsts.clone(),
                ),
            })
        })
        .collect();
    // Past the budget, the oldest pinned lines outside the tail go first (the first line stays).
    let mut pinned_bytes: u64 = kept
        .iter()
        .filter(|k| k.pinned && k.offset < tail_start)
        .map(|k| u64::from(k.len))
        .sum();
    if pinned_bytes > limits.pinned {
        kept.retain(|k| {
            if pinned_bytes <= limits.pinned || !k.pinned || k.offset >= tail_start || k.line == 1
            {
                return true;
            }
            pinned_bytes -= u64::from(k.len);
            false
        });
    }
    kept
}

/// Is the state still about this transcript: nothing it read has changed size or start?
fn still_valid(file: &mut File, st: &State, size: u64) -> bool {
    if size < st.consumed {
        return false;
    }
    if st.consumed == 0 {
        return true;
    }
    let head = window::read_at(file, 0, st.head_len as usize).unwrap_or_default();
    if head.len() != st.head_len as usize || state::fingerprint(&head) != st.head {
        return false;
    }
    window::read_at(file, st.consumed - 1, 1).is_ok_and(|b| b == b"\n")
}

/// The agents a hook is installed for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HookAgent {
    /// Claude Code.
    #[value(name = "claude-code")]
    ClaudeCode,
    /// Gemini CLI.
    #[value(name = "gemini-cli")]
    GeminiCli,
    /// Codex CLI.
    Codex,
}
