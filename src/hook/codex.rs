//! Codex's `notify` program. After each turn Codex runs the program named by `notify` in
//! `config.toml` with one more argument: a JSON object `{"type": "agent-turn-complete",
//! "thread-id", "turn-id", "cwd", "input-messages", "last-assistant-message"}`. Nothing the
//! program prints reaches the model: this is a channel to the user only. The turn's session is
//! Codex's rollout, `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread-id>.jsonl`
//! (`CODEX_HOME` defaults to `~/.codex`), found by the thread id, newest day first.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{Event, EventKind};

/// The fields of a notification this hook reads.
#[derive(Debug, Deserialize)]
struct Notification {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(rename = "thread-id", default)]
    thread_id: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
}

/// Most day folders searched for a rollout (newest first): about a year of sessions.
const MAX_DAYS: usize = 400;

/// Read a Codex notification. `Ok(None)` for a notification this hook has nothing to do with
/// (another type, no rollout found).
pub(crate) fn event(arg: &str, codex_home: Option<&Path>) -> anyhow::Result<Option<Event>> {
    let n: Notification = serde_json::from_str(arg)
        .map_err(|e| anyhow::anyhow!("the notification is not Codex's JSON: {e}"))?;
    if n.kind.as_deref() != Some("agent-turn-complete") {
        return Ok(None);
    }
    let Some(thread) = n.thread_id.filter(|t| {
        !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    }) else {
        anyhow::bail!("the notification names no usable `thread-id`");
    };
    let home = match codex_home {
        Some(h) => h.to_path_buf(),
        None => default_home().ok_or_else(|| anyhow::anyhow!("cannot tell where Codex keeps its sessions: set CODEX_HOME"))?,
    };
    let Some(transcript) = find_rollout(&home.join("sessions"), &thread) else {
        anyhow::bail!(
            "no rollout of thread {thread} under {}",
            home.join("sessions").display()
        );
    };
    Ok(Some(Event {
        kind: EventKind::Stop,
        name: "agent-turn-complete".into(),
        transcript,
        cwd: n.cwd.filter(|c| !c.is_empty()).map(PathBuf::from),
        stop_hook_active: false,
        call_id: None,
    }))
}

/// `CODEX_HOME`, else `~/.codex`.
pub(crate) fn default_home() -> Option<PathBuf> {
    if let Some(h) = std::env::var_os("CODEX_HOME").filter(|h| !h.is_empty()) {
        return Some(PathBuf::from(h));
    }
    let home = std::env::var_os(if cfg!(windows) { "USERPROFILE" } else { "HOME" })?;
    Some(PathBuf::from(home).join(".codex"))
}

/// The rollout of `thread` under `sessions` (`YYYY/MM/DD/rollout-…-<thread>.jsonl`), newest day
/// first.
fn find_rollout(sessions: &Path, thread: &str) -> Option<PathBuf> {
    let suffix = format!("-{thread}.jsonl");
    let desc = |dir: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|r| r.filter_map(|e| Some(e.ok()?.path())).collect())
            .unwrap_or_default();
        v.sort_unstable_by(|a, b| b.cmp(a));
        v
    };
    let mut days = 0;
    for year in desc(sessions).into_iter().filter(|p| p.is_dir()) {
        for month in desc(&year).into_iter().filter(|p| p.is_dir()) {
            for day in desc(&month).into_iter().filter(|p| p.is_dir()) {
                days += 1;
                if days > MAX_DAYS {
                    return None;
                }
                let found = desc(&day).into_iter().find(|f| {
                    f.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("rollout-") && n.ends_with(&suffix))
                });
                if found.is_some() {
                    return found;
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notification_finds_its_rollout() {
        let home = tempfile::tempdir().unwrap();
        let day = home.path().join("sessions/2026/12/04");
        std::fs::create_dir_all(&day).unwrap();
        let thread = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
        let file = day.join(format!("rollout-2026-12-04T10-00-00-{thread}.jsonl"));
        std::fs::write(&file, "{}\n").unwrap();
        std::fs::write(day.join("rollout-2026-12-04T09-00-00-other.jsonl"), "{}\n").unwrap();
        let n = format!(
            r#"{{"type":"agent-turn-complete","thread-id":"{thread}","turn-id":"1","cwd":"/w","input-messages":["hi"],"last-assistant-message":"done"}}"#
        );
        let e = event(&n, Some(home.path())).unwrap().unwrap();
        assert_eq!(e.transcript, file);
        assert_eq!(e.kind, EventKind::Stop);
        // Another type of notification: nothing to do; a thread id that is a path: refused.
        assert!(event(r#"{"type":"approval-requested"}"#, Some(home.path())).unwrap().is_none());
        assert!(event(r#"{"type":"agent-turn-complete","thread-id":"../x"}"#, Some(home.path())).is_err());
        assert!(event(r#"{"type":"agent-turn-complete","thread-id":"nothere"}"#, Some(home.path())).is_err());
    }
}
