//! INPUT arguments → the list of inputs to lint: files, directories (walked for `.json`,
//! `.jsonl`, `.ndjson`, Inspect's `.eval` archives and SWE-agent's `.traj` files), globs (expanded here, so they work from the GitHub action and on
//! Windows) and `-` for stdin. Sorted, de-duplicated, symlink loops and unreadable entries
//! reported as input errors instead of crashing or hanging.

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

/// Expand INPUT arguments. Problems (a missing path, a glob matching nothing, an unreadable
/// directory, a symlink loop) are input errors; everything else is still returned.
pub fn expand(args: &[String]) -> (Vec<InputSpec>, Vec<InputIssue>) {
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
            let mut visited = BTreeSet::new();
            walk(path, 0, &mut visited, &mut found, &mut issues);
            found.sort();
            if found.is_empty() {
                issues.push(InputIssue::file(
                    arg,
                    format!("the directory holds no {} file", walked_extensions()),
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
        } else {
            issues.push(InputIssue::file(arg, "no such file or directory"));
        }
    }
    (out, issues)
}

fn display(p: &Path) -> String {
    let s = p.to_string_lossy();
    s.strip_prefix("./").unwrap_or(&s).to_owned()
}

fn walk(
    dir: &Path,
    depth: usize,
    visited: &mut BTreeSet<PathBuf>,
    found: &mut Vec<PathBuf>,
    issues: &mut Vec<InputIssue>,
) {
    if depth > MAX_WALK_DEPTH {
        issues.push(InputIssue::file(
            display(dir),
            format!("directory nesting deeper than {MAX_WALK_DEPTH}; not walked further"),
        ));
        return;
    }
    // A directory reached twice through symlinks is a loop (or a duplicate): walk it once.
    match dir.canonicalize() {
        Ok(real) => {
            if !visited.insert(real) {
                issues.push(InputIssue::file(
                    display(dir),
                    "symlink loop: this directory was already walked",
                ));
                return;
            }
        }
        Err(e) => {
            issues.push(InputIssue::file(display(dir), format!("cannot read: {e}")));
            return;
        }
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            issues.push(InputIssue::file(
                display(dir),
                format!("cannot read directory: {e}"),
            ));
            return;
        }
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => walk(&path, depth + 1, visited, found, issues),
            Ok(m) if m.is_file() => {
                if has_trace_extension(&path) {
                    found.push(path);
                }
            }
            // A FIFO, socket or device named like a trace: opening a FIFO with no writer would
            // block forever, so it is never opened, and never skipped in silence either.
            Ok(_) if has_trace_extension(&path) => issues.push(InputIssue::file(
                display(&path),
                "not a regular file (a FIFO, socket or device): not read",
            )),
            Ok(_) => {}
            Err(e) => issues.push(InputIssue::file(
                display(&path),
                format!("cannot read: {e}"),
            )),
        }
    }
}

fn has_trace_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| TRACE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Open a file to read it, never waiting: a named pipe is opened without waiting for a writer
/// (one that nobody writes to reads as empty), and a directory, a socket or a device is refused
/// with what it is. Every file tracelint reads (traces, tools files) opens through here.
pub fn open_file(path: &Path) -> std::io::Result<std::fs::File> {
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
            Some("it is a device, not a file (read standard input with `-`)")
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
        let file = std::fs::File::open(path)?;
        if file.metadata()?.is_dir() {
            return Err(std::io::Error::other("it is a directory"));
        }
        Ok(file)
    }
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

/// The first output that is one of the inputs (the same file, through any spelling or
/// symlink), as (flag, output, input): writing it would replace what is being read.
pub fn output_over_input<'a>(
    outputs: &[(&'a str, &'a Path)],
    inputs: &'a [InputSpec],
) -> Option<(&'a str, &'a Path, &'a str)> {
    let resolve = |p: &Path| -> Option<PathBuf> {
        if let Ok(c) = std::fs::canonicalize(p) {
            return Some(c);
        }
        // Not there yet: its folder, resolved, and its name.
        let parent = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        Some(std::fs::canonicalize(parent).ok()?.join(p.file_name()?))
    };
    let ins: Vec<(&Path, &str)> = inputs
        .iter()
        .filter_map(|i| Some((i.resolved.as_deref()?, i.display.as_str())))
        .collect();
    outputs.iter().find_map(|(flag, out)| {
        let o = resolve(out)?;
        ins.iter()
            .find(|(i, _)| *i == o)
            .map(|(_, shown)| (*flag, *out, *shown))
    })
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
