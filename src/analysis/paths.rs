//! Paths derived as paths (R3). A value that looks like a filesystem path is cut into its
//! components once, and every run of whole components (a *piece*: `src/pkg`, `pkg/mod.py`,
//! `/home/u/repo`) becomes a pattern of the planned search (`provenance`). A piece is
//! *observed* when some observed text holds it aligned on path boundaries (not inside a longer
//! name: `mod.py` is in `src/mod.py:12:` and in `./mod.py`, not in `xmod.py` or `mod.pyc`).
//! A path is derivable when a chain of observed pieces covers it from its start: the path
//! itself observed, or an observed directory (the working directory, which is observed text
//! from the start of the trace, included) joined with an observed relative path, or an observed
//! parent joined with an observed file name. A source file of a language whose modules are
//! named by their path (`src/pkg/mod.py` is `pkg.mod` in `from pkg.mod import x`; Java's
//! `com/acme/App.java` is `com.acme.App`; Rust's `src/parser/lexer.rs` is `parser::lexer`; a
//! script's `ui/Modal.tsx` is `'../ui/Modal'`) is also observed through the name its imports
//! give it, which must sit on module boundaries (a submodule's dots count). Each observed text is
//! searched once, with the
//! trace's other values; a value's answer costs its pieces' lookups (at most `MAX_COMPONENTS`²/2).
//! Nothing here knows which steps are sources.

/// File extensions of languages whose module names spell the file's path with dots.
const MODULE_EXTENSIONS: &[&str] = &[".py", ".pyi", ".java", ".kt", ".scala"];

/// Script files an import names without their extension (`import … from './ui/Modal'`).
const SCRIPT_EXTENSIONS: &[&str] = &[
    ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".vue", ".svelte",
];

/// Components of the longest path judged as a path (a longer one is judged as text only).
const MAX_COMPONENTS: usize = 32;
/// Bytes of the longest path judged as a path.
const MAX_PATH: usize = 4096;

/// A path value, normalised: `./` and repeated or trailing separators dropped, `..` resolved,
/// `~` expanded against a recorded home.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathForm {
    /// Starts at the root (a leading separator).
    absolute: bool,
    /// The separator pieces are written with (`/`; a Windows `\` is read as one).
    sep: char,
    comps: Vec<String>,
}

/// The path form of a normalised (trimmed, case-folded) value, or `None` when it does not look
/// like a filesystem path: it must hold a separator (or start with `~`), no whitespace and no
/// URL scheme, and have at least two components.
pub(crate) fn path_form(norm: &str, home: Option<&str>) -> Option<PathForm> {
    if norm.len() > MAX_PATH
        || norm.contains(char::is_whitespace)
        || norm.contains("://")
        || norm.starts_with("//")
    {
        return None;
    }
    if !norm.contains(['/', '\\']) && norm != "~" {
        return None;
    }
    // Windows separators read as `/` (`E:\app\db` is `e:/app/db`): observed text holding a
    // backslash is searched in that form too (`provenance`), so `C:/x/y` and `C:\x` join.
    let sep = '/';
    let slashed;
    let mut text = norm;
    if norm.contains('\\') {
        slashed = norm.replace('\\', "/");
        text = &slashed;
    }
    let expanded;
    if let Some(home) = home.filter(|h| h.starts_with('/'))
        && (text == "~" || text.starts_with("~/"))
    {
        expanded = format!("{}{}", home.trim_end_matches('/'), &text[1..]);
        text = &expanded;
    }
    let absolute = text.starts_with(sep);
    let mut comps: Vec<String> = Vec::new();
    for c in text.split(sep) {
        match c {
            "" | "." => {}
            ".." if comps.last().is_some_and(|l| l != "..") => {
                comps.pop();
            }
            ".." if absolute => {}
            c => comps.push(c.to_owned()),
        }
    }
    if comps.is_empty() || comps.len() > MAX_COMPONENTS || (!absolute && comps.len() < 2) {
        return None;
    }
    Some(PathForm {
        absolute,
        sep,
        comps,
    })
}

impl PathForm {
    /// Components `from..to` as the text they are written as (a piece from the first
    /// component of an absolute path starts with the separator).
    pub(crate) fn piece(&self, from: usize, to: usize) -> String {
        let mut s = String::new();
        if from == 0 && self.absolute {
            s.push(self.sep);
        }
        for (i, c) in self.comps[from..to].iter().enumerate() {
            if i > 0 {
                s.push(self.sep);
            }
            s.push_str(c);
        }
        s
    }

    /// Is it a file named after its directory (`strategy/strategy.go`, `agent/agent.py`): the
    /// file a package of that name keeps its code in, by the convention of several languages.
    pub(crate) fn named_after_its_directory(&self) -> bool {
        let [.., dir, file] = &self.comps[..] else {
            return false;
        };
        file.split_once('.')
            .is_some_and(|(stem, ext)| !ext.is_empty() && stem.len() >= 3 && stem == dir)
    }

    /// The directory the path is in (`None` for a relative path of one component or a file at
    /// the root, whose directory is always known).
    pub(crate) fn parent(&self) -> Option<PathForm> {
        if self.comps.len() < 2 {
            return None;
        }
        Some(PathForm {
            absolute: self.absolute,
            sep: self.sep,
            comps: self.comps[..self.comps.len() - 1].to_vec(),
        })
    }

    /// A relative path that stays below the working directory (not `..`, `~` or a Windows
    /// drive first).
    pub(crate) fn under_working_directory(&self) -> bool {
        !self.absolute
            && self
                .comps
                .first()
                .is_some_and(|c| c != ".." && c != "~" && !is_drive(c))
    }

    /// The relative paths a rooted path (a leading separator or a Windows drive) ends in, of
    /// two components at least and without its first component (`a/b/c` and `b/c` for
    /// `/x/a/b/c`): what it is when its directory is one the record does not show.
    pub(crate) fn tails(&self) -> impl Iterator<Item = String> + '_ {
        let rooted = self.absolute || self.comps.first().is_some_and(|c| is_drive(c));
        let n = self.comps.len();
        (1..n.saturating_sub(1))
            .filter(move |_| rooted)
            .map(move |from| self.piece(from, n))
    }

    /// A Windows drive alone (`c:`): a root, as `/` is.
    pub(crate) fn is_root(&self) -> bool {
        matches!(self.comps.as_slice(), [c] if !self.absolute && is_drive(c))
    }

    /// Every piece, each once per position (the caller dedupes across values), and the pieces
    /// ending in another name an import gives the file (`import_names`).
    pub(crate) fn pieces(&self) -> impl Iterator<Item = String> + '_ {
        let n = self.comps.len();
        let alternates = self.import_names();
        (0..n)
            .flat_map(move |from| (from + 1..=n).map(move |to| self.piece(from, to)))
            .chain((0..n).flat_map(move |from| {
                alternates
                    .clone()
                    .into_iter()
                    .map(move |last| self.piece_ending(from, &last))
            }))
    }

    /// Other names an import gives the path's file: a TypeScript module by the `.js` name it
    /// compiles to (`import … from './create.js'` for `create.ts`). Not the name without an
    /// extension (`./footer`): that is as often a component's or a symbol's name.
    pub(crate) fn import_names(&self) -> Vec<String> {
        let Some((stem, ext)) = self.comps.last().and_then(|last| last.rsplit_once('.')) else {
            return Vec::new();
        };
        match ext {
            "ts" | "tsx" | "mts" | "cts" | "jsx" if !stem.is_empty() => vec![format!("{stem}.js")],
            _ => Vec::new(),
        }
    }

    /// Components `from..` with the last one named `last` instead.
    fn piece_ending(&self, from: usize, last: &str) -> String {
        let n = self.comps.len();
        let mut s = if from + 1 < n {
            let mut dir = self.piece(from, n - 1);
            dir.push(self.sep);
            dir
        } else if from == 0 && self.absolute {
            self.sep.to_string()
        } else {
            String::new()
        };
        s.push_str(last);
        s
    }

    /// The name an import gives components `from..`, when at least two components name it:
    /// the dotted module name of a source file of a language that names modules by path, or of
    /// a package directory (a last component with no extension: `pkg/mod.py` → `pkg.mod`,
    /// `pkg/__init__.py` → `pkg`, the directory `pkg/sub` → `pkg.sub`); a Rust module path
    /// (`src/parser/lexer.rs` → `parser::lexer`, as `use crate::parser::lexer` names it;
    /// `mod.rs` is its directory's module); a script module imported without its extension
    /// (`components/ui/Modal.tsx` → `ui/Modal`, as `import … from '../ui/Modal'` or
    /// `'@/components/ui/Modal'` names it; `index.ts` is its directory's). One component alone
    /// (`./Modal`, `mod lexer;`) is as often a symbol's name: not an import's name here.
    pub(crate) fn module(&self, from: usize) -> Option<String> {
        let last = self.comps.last()?;
        let mut names: Vec<&str> = self.comps[from..self.comps.len() - 1]
            .iter()
            .map(String::as_str)
            .collect();
        let stem_of = |list: &[&str]| {
            list.iter()
                .find(|e| last.ends_with(**e))
                .map(|e| &last[..last.len() - e.len()])
        };
        // The separator the language's imports use, the file's stem, and the stem that names
        // the file's own directory instead (`__init__.py`, `mod.rs`, `index.ts`).
        let (sep, stem, own_directory) = if let Some(stem) = stem_of(MODULE_EXTENSIONS) {
            (".", stem, "__init__")
        } else if let Some(stem) = stem_of(&[".rs"]) {
            ("::", stem, "mod")
        } else if let Some(stem) = stem_of(SCRIPT_EXTENSIONS) {
            ("/", stem, "index")
        } else if !last.contains('.') {
            (".", last.as_str(), "")
        } else {
            return None;
        };
        if stem != own_directory {
            names.push(stem);
        }
        // A script's directories may be kebab-case (`user-card/Avatar`).
        let valid = |n: &&str| {
            !n.is_empty()
                && n.bytes().all(|b| {
                    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80 || (sep == "/" && b == b'-')
                })
        };
        (names.len() >= 2 && names.iter().all(valid)).then(|| names.join(sep))
    }

    /// A path under a scratch directory every system has (`/tmp`, `/var/tmp`, `/private/tmp`,
    /// `/dev/shm`): where an agent puts its own throwaway files.
    pub(crate) fn scratch(&self) -> bool {
        let c: Vec<&str> = self.comps.iter().take(2).map(String::as_str).collect();
        self.absolute
            && matches!(
                c.as_slice(),
                ["tmp", ..] | ["var", "tmp", ..] | ["private", "tmp", ..] | ["dev", "shm", ..]
            )
    }

    /// Every import name a chain may end with (`module(from)` for each `from`).
    pub(crate) fn modules(&self) -> impl Iterator<Item = String> + '_ {
        (0..self.comps.len()).filter_map(|from| self.module(from))
    }

    /// Is the path covered from its start by a chain of observed pieces? `observed` answers for
    /// one piece, `observed_module` for an import name (`module`; it can only end the chain).
    /// `reach[j]`: components `0..j` are derivable.
    pub(crate) fn derivable(
        &self,
        mut observed: impl FnMut(&str) -> bool,
        mut observed_module: impl FnMut(&str) -> bool,
    ) -> bool {
        let n = self.comps.len();
        let alternates = self.import_names();
        let mut reach = vec![false; n + 1];
        for to in 1..=n {
            reach[to] = (0..to).any(|from| {
                (from == 0 || reach[from])
                    && (observed(&self.piece(from, to))
                        || (to == n
                            && (self.module(from).is_some_and(|m| observed_module(&m))
                                || alternates
                                    .iter()
                                    .any(|last| observed(&self.piece_ending(from, last))))))
            });
        }
        reach[n]
    }
}

/// A Windows drive (`c:`).
fn is_drive(c: &str) -> bool {
    let b = c.as_bytes();
    b.len() == 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
}

/// Shortest file-name stem read as an identifier (`identifier_stem`).
const STEM_MIN: usize = 4;

/// The stem of a path's file name (`raw`, as written: case matters here) when it reads as an
/// identifier a program uses for what the file holds — `foo_bar` of `src/foo_bar.py` (`import
/// foo_bar`), `FooBar` of `FooBar.tsx` (`<FooBar />`) — lower-cased: letters, digits and `_`, at
/// least `STEM_MIN` bytes, before an extension, and with a `_`, a digit or an inner capital (a
/// plain word such as `main` or `utils` is prose as often as a name). `None` otherwise.
pub(crate) fn identifier_stem(raw: &str) -> Option<String> {
    let name = raw.trim_end_matches(['/', '\\']).rsplit(['/', '\\']).next()?;
    let (stem, ext) = name.split_once('.')?;
    let ident = stem.len() >= STEM_MIN
        && !ext.is_empty()
        && stem.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && stem.as_bytes()[0].is_ascii_alphabetic()
        && (stem.contains('_')
            || stem.bytes().any(|b| b.is_ascii_digit())
            || stem.bytes().skip(1).any(|b| b.is_ascii_uppercase()));
    ident.then(|| stem.to_ascii_lowercase())
}

/// A byte that can be inside a path component's name (not a separator, not punctuation that
/// ends a path in prose or tool output: quotes, brackets, `:`, `,`, `=`, whitespace).
fn in_name(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'~' | b'+' | b'%') || b >= 0x80
}

/// Does the match `text[start..end]` of a piece sit on path boundaries? Before it: the start
/// of the text or a byte that is not part of a name (a relative piece may follow a separator:
/// `src/mod.py` in `./src/mod.py`; an absolute one begins a path). After it: the end, a
/// separator, or a byte that is not part of a name, past any run of dots (`mod.py.` ends a
/// sentence).
pub(crate) fn aligned(text: &[u8], start: usize, end: usize, absolute: bool) -> bool {
    let before = start == 0 || {
        let b = text[start - 1];
        !(in_name(b) || (absolute && matches!(b, b'/' | b'\\')))
    };
    if !before {
        return false;
    }
    let mut e = end;
    while e < text.len() && text[e] == b'.' {
        e += 1;
    }
    e == text.len() || !in_name(text[e])
}

/// Does the match `text[start..end]` of an import name (`PathForm::module`) sit on module
/// boundaries: not inside a longer identifier, a submodule's dots or `::` allowed on either
/// side (`cli.ensure` is in `from erk.cli.ensure import x` and in `erk.cli.ensure.helper`)? A
/// script module's name (`ui/Modal`) must end where a file name ends.
pub(crate) fn aligned_module(text: &[u8], start: usize, end: usize) -> bool {
    fn ident(b: u8) -> bool {
        b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
    }
    // A script module's name (`ui/Modal`) is bounded as a file name is: `ui/Modal.test` is
    // another file, and `my-ui/Modal` another directory.
    let inside: fn(u8) -> bool = if text[start..end].contains(&b'/') {
        in_name
    } else {
        ident
    };
    (start == 0 || !inside(text[start - 1])) && (end == text.len() || !inside(text[end]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn form(s: &str) -> PathForm {
        path_form(s, Some("/home/u")).unwrap_or_else(|| panic!("{s:?} is a path"))
    }

    #[test]
    fn normalises_dots_separators_and_home() {
        assert_eq!(form("/a/./b//c/").piece(0, 3), "/a/b/c");
        assert_eq!(form("/a/b/../c").piece(0, 2), "/a/c");
        assert_eq!(form("~/x/y").piece(0, 4), "/home/u/x/y");
        assert_eq!(form("./src/mod.py").piece(0, 2), "src/mod.py");
        assert_eq!(form("../lib/x.py").piece(0, 3), "../lib/x.py");
        assert_eq!(form("c:\\users\\x").piece(0, 3), "c:/users/x");
        assert_eq!(form("e:\\app/db\\m.ts").piece(0, 4), "e:/app/db/m.ts");
        // Not paths: no separator, a URL, whitespace, one relative component.
        for s in [
            "mod.py",
            "https://x.org/a/b",
            "a b/c",
            "./x",
            "//host/share",
        ] {
            assert_eq!(path_form(s, None), None, "{s}");
        }
        // `~` without a recorded home stays a component.
        assert_eq!(
            path_form("~/x", None).map(|f| f.piece(0, 2)),
            Some("~/x".into())
        );
    }

    #[test]
    fn pieces_are_every_run_of_whole_components() {
        let p: Vec<String> = form("/r/s/m.py").pieces().collect();
        assert_eq!(
            p,
            ["/r", "/r/s", "/r/s/m.py", "s", "s/m.py", "m.py"].map(String::from)
        );
    }

    #[test]
    fn a_path_is_derivable_by_a_chain_of_observed_pieces() {
        let obs = |set: &[&str]| {
            let set: HashSet<String> = set.iter().map(|s| (*s).to_owned()).collect();
            move |p: &str| set.contains(p)
        };
        let p = form("/repo/src/pkg/mod.py");
        let none = |_: &str| false;
        // The path itself.
        assert!(p.derivable(obs(&["/repo/src/pkg/mod.py"]), none));
        // The working directory and a relative path a search listed.
        assert!(p.derivable(obs(&["/repo", "src/pkg/mod.py"]), none));
        // A listed directory and a file name seen in it.
        assert!(p.derivable(obs(&["/repo", "src/pkg", "mod.py"]), none));
        // A parent observed, the name not: a guessed file.
        assert!(!p.derivable(obs(&["/repo", "src/pkg", "other.py"]), none));
        // Pieces that do not chain from the start do not make a path.
        assert!(!p.derivable(obs(&["src/pkg/mod.py"]), none));
        assert!(!p.derivable(obs(&["/repo", "pkg/mod.py"]), none));
        // An import's name for a TypeScript file ends a chain (`./workspace/create.js`).
        let ts = form("/repo/src/workspace/create.ts");
        assert!(ts.derivable(obs(&["/repo/src", "workspace/create.js"]), none));
        assert!(!ts.derivable(obs(&["/repo/src/workspace", "create"]), none));
        assert!(!ts.derivable(obs(&["/repo/src/workspace", "created.js"]), none));
        assert!(!p.derivable(obs(&["/repo/src/pkg", "mod"]), none));
        // A module name ends a chain: `/repo/src` and then `pkg.mod`.
        assert!(p.derivable(obs(&["/repo", "src"]), obs(&["pkg.mod"])));
        assert!(!p.derivable(obs(&["/repo"]), obs(&["pkg.mod"])));
    }

    #[test]
    fn module_names_of_source_files() {
        let p = form("/r/src/pkg/mod.py");
        let m: Vec<String> = p.modules().collect();
        assert_eq!(
            m,
            ["r.src.pkg.mod", "src.pkg.mod", "pkg.mod"].map(String::from)
        );
        assert_eq!(form("/r/pkg/__init__.py").module(1), None);
        assert_eq!(form("/r/a/pkg/__init__.py").module(1), Some("a.pkg".into()));
        assert_eq!(
            form("/r/com/acme/App.java").module(1),
            Some("com.acme.App".into())
        );
        assert_eq!(form("/r/src/my-pkg/mod.py").module(2), None);
        assert_eq!(form("/r/src/notes.md").module(1), None);
        assert_eq!(form("/r/src/pkg/sub").module(2), Some("pkg.sub".into()));
        let at = |text: &str, m: &str| {
            let start = text.find(m).expect("present");
            aligned_module(text.as_bytes(), start, start + m.len())
        };
        assert!(at("from erk.cli.ensure import x", "cli.ensure"));
        assert!(at("erk.cli.ensure.helper", "erk.cli.ensure"));
        assert!(!at("erk.cli.ensured", "cli.ensure"));
        assert!(!at("xcli.ensure", "cli.ensure"));
    }

    #[test]
    fn import_names_of_rust_and_script_files() {
        // Rust: `use crate::parser::lexer`; `mod.rs` is its directory's module.
        assert_eq!(
            form("/r/src/parser/lexer.rs").module(2),
            Some("parser::lexer".into())
        );
        assert_eq!(form("/r/src/parser/mod.rs").module(1), Some("src::parser".into()));
        assert_eq!(form("/r/src/parser/mod.rs").module(2), None);
        assert_eq!(form("/r/src/lexer.rs").module(2), None);
        // Scripts: `'../ui/Modal'`, `'@/lib/user-card/index'` → `lib/user-card`.
        assert_eq!(
            form("/r/src/components/ui/Modal.tsx").module(3),
            Some("ui/Modal".into())
        );
        assert_eq!(
            form("/r/src/lib/user-card/index.ts").module(2),
            Some("lib/user-card".into())
        );
        assert_eq!(form("/r/src/ui/Modal.tsx").module(3), None);
        assert_eq!(form("/r/src/ui/modal.css").module(2), None);
        let at = |text: &str, m: &str| {
            let start = text.find(m).expect("present");
            aligned_module(text.as_bytes(), start, start + m.len())
        };
        assert!(at("import Modal from '../ui/Modal';", "ui/Modal"));
        assert!(at("import { db } from \"@/lib/db\"", "lib/db"));
        assert!(at("use crate::parser::lexer::{Token};", "parser::lexer"));
        assert!(!at("import './ui/Modal.css'", "ui/Modal"));
        assert!(!at("from '../my-ui/Modal'", "ui/Modal"));
        assert!(!at("from '../ui/Modals'", "ui/Modal"));
    }

    #[test]
    fn alignment_respects_name_boundaries() {
        let at = |text: &str, piece: &str, absolute: bool| {
            let start = text.find(piece).expect("present");
            aligned(text.as_bytes(), start, start + piece.len(), absolute)
        };
        assert!(at("src/pkg/mod.py:12: x", "mod.py", false));
        assert!(at("src/pkg/mod.py:12: x", "src/pkg", false));
        assert!(at("see ./mod.py.", "mod.py", false));
        assert!(at("'/repo/src' is", "/repo/src", true));
        assert!(!at("xmod.py", "mod.py", false));
        assert!(!at("mod.pyc", "mod.py", false));
        assert!(!at("/other/repo/x", "/repo/x", true));
        assert!(!at("a//repo/x", "/repo/x", true));
    }
}
