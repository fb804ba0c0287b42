//! The hook's memory of one transcript between two calls: a small JSON file per transcript
//! under the user's cache directory, written whole to a temporary file and renamed over the
//! old one, under a lock file that two hooks of one session take in turn. What it holds: how
//! far the transcript was read (complete lines only), a fingerprint of what was read so a
//! rewritten or truncated transcript is noticed, where the lines worth re-reading are (the
//! pinned ones and the recent tail: `Kept`), per trace how many steps came before and the facts
//! its header lines gave, and the findings already told. A state file that cannot be read, is
//! of another version or is for another file is replaced by a fresh one: the transcript is read
//! again from its start.

use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::model::{ContextKind, Trace};

/// Bumped when the layout changes (and with every release: a new version may find other
/// findings, so it reads the transcript again).
const STATE_VERSION: &str = concat!("1/", env!("CARGO_PKG_VERSION"));

/// Most findings remembered as told; past it the oldest are forgotten.
const MAX_TOLD: usize = 50_000;

/// Largest state file read back (anything larger is not ours, or corrupt).
const MAX_STATE_FILE: u64 = 16 << 20;

/// How long a hook waits for another hook of the same session to finish.
const LOCK_WAIT: Duration = Duration::from_secs(10);
/// A lock file older than this is left over by a hook that died: it is taken over.
const LOCK_STALE: Duration = Duration::from_secs(30);

/// A line re-read into every window while it is kept.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Kept {
    /// Byte offset of the line's first byte.
    pub offset: u64,
    /// Its length without the line ending.
    pub len: u32,
    /// Its 1-based line number.
    pub line: u32,
    /// Kept for what it is (the header, a failure, a prompt), not only for being recent.
    pub pinned: bool,
    /// Fingerprint of its bytes, checked when it is read again.
    pub hash: u64,
    /// For each trace it gave steps to: the trace's slot in `State::traces` and the true index
    /// of its first step there.
    pub firsts: Vec<(u32, u32)>,
}

/// What is remembered of one trace of the transcript.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct TraceMemo {
    /// The trace's run id.
    pub run_id: String,
    /// Steps read so far (the true index of the next one).
    pub steps: u32,
    /// Attributes the trace had when its header lines were read (agent, version, model):
    /// added back to later windows that no longer hold those lines.
    pub attributes: Vec<(String, String)>,
    /// Context items likewise (working directory, branch).
    pub context: Vec<(String, String)>,
}

/// The state of one watched transcript.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct State {
    /// `STATE_VERSION` when written.
    pub version: String,
    /// The transcript watched.
    pub transcript: String,
    /// Bytes read: the end of the last complete line.
    pub consumed: u64,
    /// Line number of the last complete line read.
    pub lines: u32,
    /// Fingerprint of the first bytes of the transcript (up to 4 KiB, at most `consumed`).
    pub head: u64,
    /// How many bytes `head` covers.
    pub head_len: u32,
    /// Lines re-read into each window, in file order.
    pub kept: Vec<Kept>,
    /// The transcript's traces.
    pub traces: Vec<TraceMemo>,
    /// Findings already told, oldest first.
    pub told: Vec<String>,
    /// History the hook skipped without reading (a transcript far larger than a call may read
    /// when first seen), in bytes.
    pub skipped: u64,
    /// The window's tail size the state was built with.
    pub tail: u64,
}

impl State {
    /// A fresh state for `transcript`.
    pub fn new(transcript: &str, tail: u64) -> Self {
        Self {
            version: STATE_VERSION.to_owned(),
            transcript: transcript.to_owned(),
            tail,
            ..Self::default()
        }
    }

    /// The told keys as a set, for lookups.
    pub fn told_set(&self) -> BTreeSet<&str> {
        self.told.iter().map(String::as_str).collect()
    }

    /// Remember keys as told (the oldest are forgotten past `MAX_TOLD`).
    pub fn remember(&mut self, keys: impl IntoIterator<Item = String>) {
        self.told.extend(keys);
        if self.told.len() > MAX_TOLD {
            let extra = self.told.len() - MAX_TOLD;
            self.told.drain(..extra);
        }
    }

    /// The slot of the trace with `run_id`, made when new.
    pub fn slot(&mut self, run_id: &str) -> u32 {
        if let Some(i) = self.traces.iter().position(|t| t.run_id == run_id) {
            return i as u32;
        }
        self.traces.push(TraceMemo {
            run_id: run_id.to_owned(),
            ..TraceMemo::default()
        });
        (self.traces.len() - 1) as u32
    }
}

/// Fingerprint of some bytes (stable across runs of one build: a state file is read only by
/// the version that wrote it).
pub(crate) fn fingerprint(bytes: &[u8]) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = foldhash::fast::FixedState::with_seed(0x7472_6163_656c_696e).build_hasher();
    h.write(bytes);
    h.write_usize(bytes.len());
    h.finish()
}

/// Where the state files live: `--state-dir`, else `TRACELINT_HOOK_DIR`, else `hooks` in the
/// user's cache directory (`$XDG_CACHE_HOME/tracelint`, `~/.cache/tracelint`,
/// `~/Library/Caches/tracelint` on macOS, `%LOCALAPPDATA%\tracelint` on Windows).
pub(crate) fn state_dir(given: Option<&Path>) -> Option<PathBuf> {
    if let Some(d) = given {
        return Some(d.to_path_buf());
    }
    if let Some(d) = std::env::var_os("TRACELINT_HOOK_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let base = if cfg!(windows) {
        env("LOCALAPPDATA")
    } else if cfg!(target_os = "macos") {
        env("HOME").map(|h| h.join("Library").join("Caches"))
    } else {
        env("XDG_CACHE_HOME").or_else(|| env("HOME").map(|h| h.join(".cache")))
    }?;
    Some(base.join("tracelint").join("hooks"))
}

/// The state file of `transcript` in `dir` (named by a fingerprint of the path).
pub(crate) fn state_path(dir: &Path, transcript: &Path) -> PathBuf {
    let key = fingerprint(transcript.to_string_lossy().as_bytes());
    dir.join(format!("{key:016x}.json"))
}

/// Read the state at `path` for `transcript`; a fresh one when there is none, or when it is
/// unreadable, of another version or another transcript, or built with another tail size.
pub(crate) fn load(path: &Path, transcript: &str, tail: u64) -> State {
    let fresh = || State::new(transcript, tail);
    let Ok(file) = File::open(path) else {
        return fresh();
    };
    let mut text = String::new();
    if file
        .take(MAX_STATE_FILE)
        .read_to_string(&mut text)
        .is_err()
    {
        return fresh();
    }
    match serde_json::from_str::<State>(&text) {
        Ok(s) if s.version == STATE_VERSION && s.transcript == transcript && s.tail == tail => s,
        _ => fresh(),
    }
}

/// Write `state` to `path`: to a temporary file beside it, then renamed over it, so a reader
/// never sees half a file.
pub(crate) fn save(path: &Path, state: &State) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(&serde_json::to_vec(state).map_err(std::io::Error::other)?)?;
        f.sync_data()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// A lock on one state file, held while a hook reads and writes it; released on drop.
#[derive(Debug)]
pub(crate) struct Lock {
    path: PathBuf,
}

impl Lock {
    /// Take the lock beside `state`, waiting for another hook that holds it (a lock left over
    /// by a hook that died is taken over).
    pub fn take(state: &Path) -> std::io::Result<Self> {
        let path = state.with_extension("lock");
        let start = Instant::now();
        let mut pause = Duration::from_millis(2);
        loop {
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut f) => {
                    let _ = write!(f, "{}", std::process::id());
                    return Ok(Self { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let stale = fs::metadata(&path)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| t.elapsed().ok())
                        .is_some_and(|age| age > LOCK_STALE);
                    if stale {
                        let _ = fs::remove_file(&path);
                        continue;
                    }
                    if start.elapsed() > LOCK_WAIT {
                        return Err(std::io::Error::new(
                            std::io::ErrorKind::TimedOut,
                            format!(
                                "another hook holds {} (remove it if no hook is running)",
                                path.display()
                            ),
                        ));
                    }
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// Facts a trace's header lines gave (its agent, version, model, working directory) stay
/// known after those lines leave the window: the memo keeps the first seen, and a window
/// without them gets them back.
pub(crate) fn remember_facts(memo: &mut TraceMemo, trace: &mut Trace) {
    for (k, v) in &trace.attributes {
        if k != crate::model::ATTR_NOTE && !memo.attributes.iter().any(|(mk, _)| mk == k) {
            memo.attributes.push((k.clone(), v.clone()));
        }
    }
    for (k, v) in &memo.attributes {
        if trace.attribute(k).is_none() {
            trace.attributes.push((k.clone(), v.clone()));
        }
    }
    for c in &trace.context {
        let kind = context_name(c.kind);
        if !memo.context.iter().any(|(k, v)| k == kind && *v == c.value) {
            memo.context.push((kind.to_owned(), c.value.clone()));
        }
    }
    for (k, v) in &memo.context {
        if let Some(kind) = context_kind(k) {
            trace.add_context(kind, v.clone());
        }
    }
}

fn context_name(k: ContextKind) -> &'static str {
    match k {
        ContextKind::WorkingDirectory => "working_directory",
        ContextKind::HomeDirectory => "home_directory",
        ContextKind::GitBranch => "git_branch",
        ContextKind::Instructions => "instructions",
        ContextKind::Other => "other",
    }
}

fn context_kind(name: &str) -> Option<ContextKind> {
    Some(match name {
        "working_directory" => ContextKind::WorkingDirectory,
        "home_directory" => ContextKind::HomeDirectory,
        "git_branch" => ContextKind::GitBranch,
        "instructions" => ContextKind::Instructions,
        "other" => ContextKind::Other,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_survives_a_round_trip_and_a_bad_one_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        let mut s = State::new("/t.jsonl", 100);
        s.consumed = 42;
        s.remember(["R1:hard_defect:3:5".to_owned()]);
        save(&path, &s).unwrap();
        let back = load(&path, "/t.jsonl", 100);
        assert_eq!(back.consumed, 42);
        assert!(back.told_set().contains("R1:hard_defect:3:5"));
        // Another transcript, another tail size, a corrupt file: a fresh state each time.
        assert_eq!(load(&path, "/other.jsonl", 100).consumed, 0);
        assert_eq!(load(&path, "/t.jsonl", 200).consumed, 0);
        fs::write(&path, b"{\"version\": 3").unwrap();
        assert_eq!(load(&path, "/t.jsonl", 100).consumed, 0);
    }

    #[test]
    fn the_told_list_is_bounded() {
        let mut s = State::new("/t", 1);
        s.remember((0..MAX_TOLD + 10).map(|i| i.to_string()));
        assert_eq!(s.told.len(), MAX_TOLD);
        assert_eq!(s.told[0], "10");
    }

    #[test]
    fn a_lock_waits_for_its_holder_and_a_stale_one_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("s.json");
        let first = Lock::take(&state).unwrap();
        let released = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let t = std::thread::spawn({
            let (state, released) = (state.clone(), released.clone());
            move || {
                let _second = Lock::take(&state).unwrap();
                released.load(std::sync::atomic::Ordering::SeqCst)
            }
        });
        std::thread::sleep(Duration::from_millis(50));
        released.store(true, std::sync::atomic::Ordering::SeqCst);
        drop(first);
        assert!(t.join().unwrap(), "the second hook got the lock while the first held it");
        // A lock file nobody removes, made old: taken over at once.
        let lock = state.with_extension("lock");
        fs::write(&lock, b"1").unwrap();
        let old = std::time::SystemTime::now() - Duration::from_secs(120);
        File::options()
            .write(true)
            .open(&lock)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let _taken = Lock::take(&state).unwrap();
    }
}
