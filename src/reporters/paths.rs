//! Input paths as code-scanning tools want them: relative to a root (`--sarif-root`, else the
//! git top level found by walking up for `.git`, else the working directory), `/`-separated,
//! never empty, and percent-encoded when used as a URI reference. Owns only path arithmetic and
//! the upward walk for `.git`; it never reads an input's content.

use std::path::{Component, Path, PathBuf};

/// The root that report paths are made relative to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathBase {
    /// The working directory the input paths are relative to (absolute).
    cwd: PathBuf,
    /// The root (absolute, lexically normalised).
    root: PathBuf,
    /// `root`, resolved through symlinks when it exists.
    canonical_root: Option<PathBuf>,
}

impl PathBase {
    /// Paths relative to `root` (made absolute against `cwd` when relative), for inputs named
    /// relative to `cwd`.
    pub fn new(cwd: &Path, root: &Path) -> Self {
        let root = normalize(&cwd.join(root));
        Self {
            cwd: cwd.to_path_buf(),
            canonical_root: std::fs::canonicalize(&root).ok(),
            root,
        }
    }

    /// The default root for `cwd`: the nearest ancestor holding `.git` (a directory, or the file
    /// a worktree or submodule has), else `cwd` itself. No git binary is needed.
    pub fn discover(cwd: &Path) -> Self {
        let root = cwd
            .ancestors()
            .take(256)
            .find(|dir| dir.join(".git").exists())
            .unwrap_or(cwd);
        Self::new(cwd, root)
    }

    /// The root in use.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `display` (an input path as the report shows it) relative to the root, `/`-separated.
    /// Never empty: stdin stays `-`; a path that cannot be related to the root keeps its
    /// normalised form.
    pub fn relative(&self, display: &str) -> String {
        match self.place(display) {
            Place::Inside(rel) => rel,
            Place::Outside(abs) => relate(&self.root, Path::new(&abs)).unwrap_or(abs),
        }
    }

    /// Where `display` is relative to the root: inside it (the `/`-separated relative path;
    /// stdin is `-`), or outside it (the absolute path, `/`-separated), where a relative
    /// reference would have to climb out with `..` (or cannot be written at all, on another
    /// drive) and no code-scanning or annotation consumer can place it.
    pub fn place(&self, display: &str) -> Place {
        if display == "-" || display.is_empty() {
            return Place::Inside("-".to_owned());
        }
        let target = normalize(&self.cwd.join(display));
        let related = match (&self.canonical_root, std::fs::canonicalize(&target)) {
            // Both exist: compare them resolved, so a symlinked checkout still relates.
            (Some(root), Ok(target)) => relate(root, &target).filter(|r| !climbs(r)),
            _ => None,
        }
        .or_else(|| relate(&self.root, &target));
        match related {
            Some(rel) if climbs(&rel) => Place::Outside(slash_path(&target)),
            Some(rel) if rel.is_empty() => Place::Inside("-".to_owned()),
            Some(rel) => Place::Inside(rel),
            None => Place::Outside(slash_path(&target)),
        }
    }
}

/// Where an input is relative to the report root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// Under the root: the relative path.
    Inside(String),
    /// Not under the root: the absolute path.
    Outside(String),
}

/// A relative path that starts by leaving its base.
fn climbs(rel: &str) -> bool {
    rel == ".." || rel.starts_with("../")
}

/// An absolute `/`-separated path as a `file:` URI (RFC 8089), percent-encoded like
/// `uri_reference` (a Windows drive's colon kept).
pub fn file_uri(abs: &str) -> String {
    let path = abs.trim_start_matches('/');
    let mut out = String::from("file:///");
    let (drive, rest) = match path.as_bytes() {
        [d, b':', ..] if d.is_ascii_alphabetic() => path.split_at(2),
        _ => ("", path),
    };
    out.push_str(drive);
    out.push_str(&uri_reference(rest));
    out
}

/// Lexically normalise: drop `.`, fold `..` into its parent (never above the root).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(c);
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// `target` relative to `base` (both absolute and normalised), with `..` steps when `target` is
/// outside `base`. `None` when they share no root (different Windows drives).
fn relate(base: &Path, target: &Path) -> Option<String> {
    let b: Vec<Component<'_>> = base.components().collect();
    let t: Vec<Component<'_>> = target.components().collect();
    if b.first() != t.first() {
        return None;
    }
    let common = b.iter().zip(&t).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); b.len() - common];
    parts.extend(
        t[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    Some(parts.join("/"))
}

/// A path with `/` separators and no root or drive prefix marker doubled.
fn slash_path(path: &Path) -> String {
    let mut out = String::new();
    for c in path.components() {
        match c {
            Component::RootDir => out.push('/'),
            Component::Prefix(p) => out.push_str(&p.as_os_str().to_string_lossy()),
            other => {
                if !out.is_empty() && !out.ends_with('/') {
                    out.push('/');
                }
                out.push_str(&other.as_os_str().to_string_lossy());
            }
        }
    }
    out
}

/// Percent-encode a `/`-separated relative path as a URI reference (RFC 3986): every byte other
/// than an unreserved character or `/` becomes `%XX`, so `:` in a first segment can never read
/// as a scheme and spaces or non-ASCII names stay valid.
pub fn uri_reference(rel: &str) -> String {
    let mut out = String::with_capacity(rel.len());
    for &b in rel.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_to_the_root_with_slashes() {
        let base = PathBase::new(Path::new("/repo/sub"), Path::new("/repo"));
        assert_eq!(base.relative("traces/a.jsonl"), "sub/traces/a.jsonl");
        assert_eq!(base.relative("./x/../b.json"), "sub/b.json");
        assert_eq!(base.relative("/repo/c.json"), "c.json");
        assert_eq!(
            base.relative("../../elsewhere/d.json"),
            "../elsewhere/d.json"
        );
        assert_eq!(base.relative("-"), "-");
    }

    #[test]
    fn a_relative_root_is_taken_from_the_working_directory() {
        let base = PathBase::new(Path::new("/repo/sub"), Path::new(".."));
        assert_eq!(base.root(), Path::new("/repo"));
        assert_eq!(base.relative("t.json"), "sub/t.json");
    }

    #[test]
    fn discovers_the_git_top_level() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        // A worktree's `.git` is a file: it counts too.
        std::fs::write(dir.path().join(".git"), "gitdir: elsewhere").unwrap();
        let base = PathBase::discover(&deep);
        assert_eq!(base.root(), dir.path());
        std::fs::write(deep.join("t.json"), "{}").unwrap();
        assert_eq!(base.relative("t.json"), "a/b/t.json");
    }

    #[test]
    fn paths_outside_the_root_are_told_apart() {
        let base = PathBase::new(Path::new("/repo/sub"), Path::new("/repo"));
        assert_eq!(base.place("t.json"), Place::Inside("sub/t.json".into()));
        assert_eq!(base.place("-"), Place::Inside("-".into()));
        assert_eq!(
            base.place("../../elsewhere/d.json"),
            Place::Outside("/elsewhere/d.json".into())
        );
        // A name that merely starts with two dots is inside.
        assert_eq!(
            base.place("..x/d.json"),
            Place::Inside("sub/..x/d.json".into())
        );
        assert_eq!(
            file_uri("/elsewhere/a b/ü.json"),
            "file:///elsewhere/a%20b/%C3%BC.json"
        );
        assert_eq!(file_uri("C:/t/x.json"), "file:///C:/t/x.json");
    }

    #[test]
    fn uri_references_are_percent_encoded() {
        assert_eq!(uri_reference("a/b c/ü.json"), "a/b%20c/%C3%BC.json");
        assert_eq!(uri_reference("c:x/#?%"), "c%3Ax/%23%3F%25");
        assert_eq!(uri_reference("ok-1_2.~/f.jsonl"), "ok-1_2.~/f.jsonl");
    }
}
