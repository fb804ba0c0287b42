//! INPUT arguments → the list of inputs to lint: files, directories (walked for `.json`,
//! `.jsonl`, `.ndjson`, Inspect's `.eval` archives and SWE-agent's `.traj` files), globs (expanded here, so they work from the GitHub action and on
//! Windows) and `-` for stdin. Sorted, de-duplicated, symlink loops and unreadable entries
//! reported as input errors instead of crashing or hanging.
//!
//! The one walk `check`, `doctor`, `init` and `infer` share (`expand_with`): hidden entries are
//! skipped, `.gitignore` (inside a git repository), `.git/info/exclude` and `.ignore` files are
//! respected as ripgrep does unless `--no-ignore`, and `--exclude` globs (and the config's
//! `exclude`) leave out what they match among walked and glob-matched files. A file named on
//! the command line is always read.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::finding::InputIssue;

/// One input to lint.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct InputSpec {
    /// The path as shown in reports.
    pub display: String,
    /// The file, or `None` for stdin.
    pub path: Option<PathBuf>,
    /// Found by walking a directory (not named explicitly): a tools file there is skipped.
    pub walked: bool,
    /// The file's resolved path (symlinks, `.` and `..` followed), when it exists: what tells
    /// two spellings of one file apart from two files.
    pub resolved: Option<PathBuf>,
}

/// Extensions a directory walk picks up: the one list that `check --help`, the message for a
/// directory without traces and the documentation show (`walked_extensions`).
/// The note on a file found by walking a directory in which no record fits any format.
pub const NOT_A_TRACE_NOTE: &str =
    "skipped: found by walking, not a trace (no record of any format tracelint reads)";

const TRACE_EXTENSIONS: &[&str] = &["json", "jsonl", "ndjson", "eval", "traj"];

/// The walked extensions for people: `.json, .jsonl, .ndjson, .eval or .traj`.
pub(crate) fn walked_extensions() -> String {
    let dotted: Vec<String> = TRACE_EXTENSIONS.iter().map(|e| format!(".{e}")).collect();
    match dotted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => dotted.concat(),
    }
}
/// Deepest directory nesting walked.
const MAX_WALK_DEPTH: usize = 64;

/// How directories are walked: which ignore files are respected and what is excluded.
#[derive(Debug, Clone)]
pub struct Walk {
    /// Respect `.gitignore`, `.git/info/exclude`, the global git excludes and `.ignore` files.
    pub respect_ignore_files: bool,
    /// What `--exclude` and the config's `exclude` leave out.
    pub exclude: Exclude,
}

impl Default for Walk {
    fn default() -> Self {
        Walk {
            respect_ignore_files: true,
            exclude: Exclude::default(),
        }
    }
}

/// Exclusion globs. A pattern without `/` is matched against the name of every file and
/// directory met (`node_modules`, `*.min.json`, `stats.json`), so a matching directory is not
/// entered; a pattern with `/` is matched against the whole path, relative to the directory it
/// was given in (the working directory for `--exclude`, the config file's folder for the
/// config's `exclude`), `**` crossing directories (`runs/old/**`, `**/eval-configs/*.json`).
#[derive(Debug, Clone, Default)]
pub struct Exclude {
    names: Option<globset::GlobSet>,
    paths: Option<globset::GlobSet>,
}

impl Exclude {
    /// Exclusions from `(pattern, the directory it is relative to)` pairs; an invalid glob is
    /// an error naming it.
    pub fn new(patterns: &[(String, PathBuf)]) -> Result<Exclude, String> {
        let mut names = globset::GlobSetBuilder::new();
        let mut paths = globset::GlobSetBuilder::new();
        let (mut any_name, mut any_path) = (false, false);
        for (pattern, base) in patterns {
            let trimmed = pattern.trim();
            let trimmed = trimmed.strip_prefix("./").unwrap_or(trimmed);
            let trimmed = trimmed.trim_end_matches('/');
            if trimmed.is_empty() {
                return Err(format!("exclude pattern `{pattern}`: an empty pattern excludes nothing"));
            }
            let glob = |text: &str| {
                globset::GlobBuilder::new(text)
                    .literal_separator(true)
                    .backslash_escape(true)
                    .build()
                    .map_err(|e| format!("exclude pattern `{pattern}`: invalid glob: {}", e.kind()))
            };
            if !trimmed.contains('/') {
                names.add(glob(trimmed)?);
                any_name = true;
                continue;
            }
            let anchored = if trimmed.starts_with("**/") || Path::new(trimmed).is_absolute() {
                trimmed.to_owned()
            } else {
                let base = absolute(base);
                let base = globset::escape(&base.to_string_lossy());
                format!("{}/{trimmed}", base.trim_end_matches('/'))
            };
            paths.add(glob(&anchored)?);
            any_path = true;
        }
        let build = |b: globset::GlobSetBuilder, any: bool| -> Result<_, String> {
            any.then(|| b.build().map_err(|e| format!("invalid exclude pattern: {e}")))
                .transpose()
        };
        Ok(Exclude {
            names: build(names, any_name)?,
            paths: build(paths, any_path)?,
        })
    }

    /// No exclusion at all.
    pub fn is_empty(&self) -> bool {
        self.names.is_none() && self.paths.is_none()
    }

    /// Whether `path` (a file or directory met while walking) is excluded.
    pub fn excludes(&self, path: &Path) -> bool {
        if let Some(names) = &self.names
            && path.file_name().is_some_and(|n| names.is_match(n))
        {
            return true;
        }
        self.paths
            .as_ref()
            .is_some_and(|paths| paths.is_match(absolute(path)))
    }
}

/// `path` made absolute against the working directory, `.` and `..` resolved by name (never
/// through the file system: an exclusion speaks of paths as written).
fn absolute(path: &Path) -> PathBuf {
    use std::path::Component;
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Expand INPUT arguments with the default walk (ignore files respected, nothing excluded).
pub fn expand(args: &[String]) -> (Vec<InputSpec>, Vec<InputIssue>) {
    expand_with(args, &Walk::default())
}

/// Expand INPUT arguments. Problems (a missing path, a glob matching nothing, an unreadable
/// directory, a symlink loop) are input errors; everything else is still returned.
pub fn expand_with(args: &[String], how: &Walk) -> (Vec<InputSpec>, Vec<InputIssue>) {
    let mut out: Vec<InputSpec> = Vec::new();
    let mut issues = Vec::new();
    let mut seen = BTreeSet::new();
    // One file under two spellings (`a.json`, `./a.json`, `/abs/a.json`, a symlink) is one
    // input: keyed by its resolved path, shown as first named.
    let mut push = |mut spec: InputSpec, out: &mut Vec<InputSpec>| {
        spec.resolved = spec
            .path
            .as_deref()
            .and_then(|p| std::fs::canonicalize(p).ok());
        let key = spec.resolved.as_deref().map_or_else(
            || spec.display.clone(),
            |p| p.to_string_lossy().into_owned(),
        );
        if seen.insert(key) {
            out.push(spec);
        }
    };
    for arg in args {
        if arg == "-" {
            push(
                InputSpec {
                    display: "-".into(),
                    path: None,
                    walked: false,
                    resolved: None,
                },
                &mut out,
            );
            continue;
        }
        let path = Path::new(arg);
        if path.is_dir() {
            let mut found = Vec::new();
            walk(path, how, &mut found, &mut issues);
            found.sort();
            if found.is_empty() {
                issues.push(InputIssue::file(
                    arg,
                    format!(
                        "the directory holds no {} file{}",
                        walked_extensions(),
                        if how.exclude.is_empty() && !how.respect_ignore_files {
                            ""
                        } else {
                            " that is not ignored or excluded (`--no-ignore` reads ignored files)"
                        }
                    ),
                ));
            }
            for p in found {
                push(
                    InputSpec {
                        display: display(&p),
                        path: Some(p),
                        walked: true,
                        resolved: None,
                    },
                    &mut out,
                );
            }
        } else if path.exists() || path.symlink_metadata().is_ok() {
            push(
                InputSpec {
                    display: display(path),
                    path: Some(path.to_path_buf()),
                    walked: false,
                    resolved: None,
                },
                &mut out,
            );
        } else if arg.contains(['*', '?', '[']) {
            match glob::glob(arg) {
                Ok(paths) => {
                    let mut matched: Vec<PathBuf> = Vec::new();
                    for entry in paths {
                        match entry {
                            Ok(p) if p.is_file() && how.exclude.excludes(&p) => {}
                            Ok(p) if p.is_file() => matched.push(p),
                            Ok(_) => {}
                            Err(e) => issues.push(InputIssue::file(
                                display(e.path()),
                                format!("cannot read: {}", e.error()),
                            )),
                        }
                    }
                    matched.sort();
                    if matched.is_empty() {
                        issues.push(InputIssue::file(arg, "no file matches this pattern"));
                    }
                    for p in matched {
                        push(
                            InputSpec {
                                display: display(&p),
                                path: Some(p),
                                walked: true,
                                resolved: None,
                            },
                            &mut out,
                        );
                    }
                }
                Err(e) => issues.push(InputIssue::file(arg, format!("invalid glob pattern: {e}"))),
            }
        } else if arg.starts_with("phoenix:") {
            issues.push(InputIssue::file(
                arg,
                "a Phoenix server is read by `tracelint check` only: save its spans to a file for this command",
            ));
        } else {
            issues.push(InputIssue::file(arg, "no such file or directory"));
        }
    }
    (out, issues)
}

/// The one note for the files a walk found that are plainly not traces (`init` and `infer`
/// print it; `check` and `doctor` aggregate their per-input notes the same way): `None` when
/// there are none.
pub fn skipped_not_traces(files: &[&str]) -> Option<String> {
    const SHOWN: usize = 3;
    let (first, n) = (files.first()?, files.len());
    let shown: Vec<&str> = files.iter().take(SHOWN).copied().collect();
    let more = match n.saturating_sub(SHOWN) {
        0 => String::new(),
        m => format!(" and {m} more"),
    };
    let listed = if n == 1 {
        (*first).to_owned()
    } else {
        format!("{n} inputs: {}{more}", shown.join(", "))
    };
    Some(format!(
        "note: {} ({listed})",
        NOT_A_TRACE_NOTE
    ))
}

fn display(p: &Path) -> String {
    let s = p.to_string_lossy();
    s.strip_prefix("./").unwrap_or(&s).to_owned()
}

/// Walk `root` (named on the command line: never excluded itself) for trace files.
fn walk(root: &Path, how: &Walk, found: &mut Vec<PathBuf>, issues: &mut Vec<InputIssue>) {
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .follow_links(true)
        // Directories at the deepest level are listed, not entered (said below).
        .max_depth(Some(MAX_WALK_DEPTH + 1))
        .standard_filters(how.respect_ignore_files)
        .hidden(true)
        .sort_by_file_name(Ord::cmp);
    if !how.exclude.is_empty() {
        let exclude = std::sync::Arc::new(how.exclude.clone());
        builder.filter_entry(move |e| e.depth() == 0 || !exclude.excludes(e.path()));
    }
    for entry in builder.build() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                issues.push(walk_issue(root, &e));
                continue;
            }
        };
        let path = entry.path();
        let depth = entry.depth();
        let kind = entry.file_type();
        let (is_dir, is_file) = (kind.is_some_and(|t| t.is_dir()), kind.is_some_and(|t| t.is_file()));
        match () {
            () if is_dir && depth > MAX_WALK_DEPTH => issues.push(InputIssue::file(
                display(path),
                format!("directory nesting deeper than {MAX_WALK_DEPTH}; not walked further"),
            )),
            () if is_file && has_trace_extension(path) => found.push(entry.into_path()),
            () if is_dir || is_file => {}
            // A FIFO, socket or device named like a trace: opening a FIFO with no writer would
            // block forever, so it is never opened, and never skipped in silence either.
            _ if has_trace_extension(path) => issues.push(InputIssue::file(
                display(path),
                "not a regular file (a FIFO, socket or device): not read",
            )),
            _ => {}
        }
    }
}

/// A walk error as an input error at the path it is about.
fn walk_issue(root: &Path, e: &ignore::Error) -> InputIssue {
    fn find(e: &ignore::Error) -> (Option<&Path>, Option<&ignore::Error>) {
        match e {
            ignore::Error::WithPath { path, err } => (Some(path), find(err).1.or(Some(err))),
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                find(err)
            }
            ignore::Error::Loop { child, .. } => (Some(child), Some(e)),
            _ => (None, Some(e)),
        }
    }
    let (path, inner) = find(e);
    let shown = display(path.unwrap_or(root));
    match inner {
        Some(ignore::Error::Loop { .. }) => {
            InputIssue::file(shown, "symlink loop: this directory was already walked")
        }
        Some(ignore::Error::Io(io)) => InputIssue::file(shown, format!("cannot read: {}", innermost(io))),
        Some(other) => InputIssue::file(shown, format!("cannot read: {other}")),
        None => InputIssue::file(shown, format!("cannot read: {e}")),
    }
}

/// The operating system's own words for an I/O error: the walker wraps them in its own error,
/// whose text repeats the path the input error already names.
fn innermost(io: &std::io::Error) -> String {
    let Some(mut cur) = io.get_ref().map(|e| e as &(dyn std::error::Error + 'static)) else {
        return io.to_string();
    };
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

fn has_trace_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| TRACE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Whether `open` reads a named pipe (traces and tools files, so that `<(…)` works) or refuses
/// it (configuration, expectations, baselines, shards: a file that must be read whole).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pipes {
    /// Read a named pipe as a stream (one nobody writes to reads as empty).
    Read,
    /// Refuse anything but a regular file.
    Refuse,
}

/// Open a file to read it, never waiting: the one way every file tracelint reads (traces,
/// tools files, configuration, expectations, baselines, shards) is opened. A named pipe is
/// opened without waiting for a writer and, when `pipes` says so, read (else refused); a
/// directory, a socket or a device (`/dev/zero`, `/dev/stdin` on a terminal) is refused with
/// what it is.
pub fn open(path: &Path, pipes: Pipes) -> std::io::Result<std::fs::File> {
    #[cfg(unix)]
    {
        use rustix::fs::OFlags;
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        // O_NONBLOCK: opening a FIFO with no writer would otherwise block for ever; for a
        // regular file it changes nothing. Cleared again before reading.
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(OFlags::NONBLOCK.bits() as i32)
            .open(path)?;
        let kind = file.metadata()?.file_type();
        let refused = if kind.is_dir() {
            Some("it is a directory")
        } else if kind.is_socket() {
            Some("it is a socket, not a file")
        } else if kind.is_block_device() || kind.is_char_device() {
            Some(match pipes {
                Pipes::Read => "it is a device, not a file (read standard input with `-`)",
                Pipes::Refuse => "it is a device, not a file",
            })
        } else if kind.is_fifo() && pipes == Pipes::Refuse {
            Some("it is a named pipe (or standard input), not a file: give a regular file")
        } else {
            None
        };
        if let Some(why) = refused {
            return Err(std::io::Error::other(why));
        }
        let flags = rustix::fs::fcntl_getfl(&file)?;
        rustix::fs::fcntl_setfl(&file, flags - OFlags::NONBLOCK)?;
        Ok(file)
    }
    #[cfg(not(unix))]
    {
        let _ = pipes;
        let file = std::fs::File::open(path)?;
        if !file.metadata()?.is_file() {
            return Err(std::io::Error::other("it is not a regular file"));
        }
        Ok(file)
    }
}

/// Open a trace (or tools) file: `open` reading named pipes.
pub fn open_file(path: &Path) -> std::io::Result<std::fs::File> {
    open(path, Pipes::Read)
}

/// Read a whole file (`open`) of at most `limit` bytes; a larger one is an error saying so,
/// read no further than the limit.
pub fn read_limited(path: &Path, limit: u64, pipes: Pipes) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = open(path, pipes)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::other(format!(
            "it is larger than the limit of {limit} bytes"
        )));
    }
    Ok(bytes)
}

/// `read_limited` for a text file: anything but UTF-8 is an error.
pub fn read_text(path: &Path, limit: u64, pipes: Pipes) -> std::io::Result<String> {
    String::from_utf8(read_limited(path, limit, pipes)?)
        .map_err(|_| std::io::Error::other("it is not UTF-8 text"))
}

/// Is `file` a pipe (a named pipe, `<(…)`): read as a stream, it cannot seek.
pub fn is_pipe(file: &std::fs::File) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        file.metadata().is_ok_and(|m| m.file_type().is_fifo())
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        false
    }
}

/// What identifies a file whatever its name: its device and inode (a hard link, a symlink,
/// `./a.json`, `/dev/stdin` all lead to the same pair).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    /// The file `path` leads to (symlinks followed), when it exists.
    pub fn of(path: &Path) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(path).ok()?;
            Some(FileId {
                dev: m.dev(),
                ino: m.ino(),
            })
        }
        #[cfg(not(unix))]
        {
            // No inode: the resolved path, hashed, stands for it.
            use std::hash::{Hash, Hasher};
            let resolved = std::fs::canonicalize(path).ok()?;
            let mut h = std::collections::hash_map::DefaultHasher::new();
            resolved.hash(&mut h);
            Some(FileId {
                dev: 0,
                ino: h.finish(),
            })
        }
    }

    /// Standard input, when it is a file (`< trace.json`): it may be reached by name too.
    pub fn of_stdin() -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::fd::AsFd;
            use std::os::unix::fs::MetadataExt;
            let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
            let m = std::fs::File::from(fd).metadata().ok()?;
            m.is_file().then(|| FileId {
                dev: m.dev(),
                ino: m.ino(),
            })
        }
        #[cfg(not(unix))]
        {
            None
        }
    }
}

/// The files a run reads, each with what to call it in a message (`the input `a.json``, `the
/// tools file `tools.json``): what no output may replace.
#[derive(Debug, Default)]
pub struct ReadFiles(Vec<(FileId, String)>);

impl ReadFiles {
    /// An empty list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add the file at `path`, called `what`, when it exists.
    pub fn add(&mut self, path: &Path, what: String) {
        if let Some(id) = FileId::of(path) {
            self.0.push((id, what));
        }
    }

    /// Add the inputs (`-` is standard input, when that is a file).
    pub fn add_inputs(&mut self, specs: &[InputSpec]) {
        for spec in specs {
            match &spec.path {
                Some(p) => self.add(p, format!("the input `{}`", spec.display)),
                None => {
                    if let Some(id) = FileId::of_stdin() {
                        self.0
                            .push((id, "the input `-` (standard input)".to_owned()));
                    }
                }
            }
        }
    }

    /// What the first output in `outputs` (flag, path) that is one of these files would
    /// replace, as an error: `--json ./a.json` would overwrite the input `a.json`.
    pub fn guard(&self, outputs: &[(&str, &Path)], instead: &str) -> Result<(), String> {
        for (flag, out) in outputs {
            let Some(id) = FileId::of(out) else { continue };
            if let Some((_, what)) = self.0.iter().find(|(i, _)| *i == id) {
                return Err(format!(
                    "`{flag} {}` would overwrite {what}: write {instead} somewhere else",
                    out.display()
                ));
            }
        }
        Ok(())
    }
}

/// The inputs without those found by walking a directory that are one of `outputs` (a report
/// an earlier run wrote into the directory it lints, about to be replaced), each with a note
/// saying it is not linted: re-running the same command does not trip over its own report.
/// An output named as an input is left for `ReadFiles::guard` to refuse.
pub fn without_own_outputs(
    specs: Vec<InputSpec>,
    outputs: &[(&str, &Path)],
) -> (Vec<InputSpec>, Vec<String>) {
    let outs: Vec<(FileId, &str)> = outputs
        .iter()
        .filter_map(|(flag, p)| Some((FileId::of(p)?, *flag)))
        .collect();
    if outs.is_empty() {
        return (specs, Vec::new());
    }
    let mut notes = Vec::new();
    let kept = specs
        .into_iter()
        .filter(|spec| {
            let own = spec
                .path
                .as_deref()
                .filter(|_| spec.walked)
                .and_then(FileId::of)
                .and_then(|id| outs.iter().find(|(o, _)| *o == id));
            if let Some((_, flag)) = own {
                notes.push(format!(
                    "{}: not linted: this run writes its `{flag}` report there",
                    spec.display
                ));
            }
            own.is_none()
        })
        .collect();
    (kept, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_path_and_empty_glob_are_issues() {
        let (specs, issues) = expand(&["/definitely/not/here.json".into(), "/nope/*.jsonl".into()]);
        assert!(specs.is_empty());
        assert_eq!(
            issues[0].to_string(),
            "/definitely/not/here.json: no such file or directory"
        );
        assert_eq!(
            issues[1].to_string(),
            "/nope/*.jsonl: no file matches this pattern"
        );
    }

    #[test]
    fn walks_directories_sorted_and_skips_other_files() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("sub")).unwrap();
        std::fs::write(d.join("b.jsonl"), "{}").unwrap();
        std::fs::write(d.join("a.json"), "{}").unwrap();
        std::fs::write(d.join("notes.txt"), "x").unwrap();
        std::fs::write(d.join("sub/c.ndjson"), "{}").unwrap();
        std::fs::write(d.join("sub/d.eval"), "PK").unwrap();
        std::fs::write(d.join("sub/e.traj"), "{}").unwrap();
        std::fs::write(d.join(".hidden.json"), "{}").unwrap();
        let (specs, issues) = expand(&[d.to_string_lossy().into_owned()]);
        assert!(issues.is_empty(), "{issues:?}");
        let names: Vec<_> = specs
            .iter()
            .map(|s| {
                s.path
                    .as_ref()
                    .unwrap()
                    .strip_prefix(d)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(
            names,
            [
                "a.json",
                "b.jsonl",
                "sub/c.ndjson",
                "sub/d.eval",
                "sub/e.traj"
            ]
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlink_loops_do_not_hang() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("sub")).unwrap();
        std::fs::write(d.join("sub/t.json"), "{}").unwrap();
        std::os::unix::fs::symlink(d, d.join("sub/loop")).unwrap();
        let (specs, issues) = expand(&[d.to_string_lossy().into_owned()]);
        assert_eq!(specs.len(), 1);
        assert!(
            issues.iter().any(|i| i.message.contains("symlink loop")),
            "{issues:?}"
        );
    }
}
