//! A fresh clone stands alone. No tracked file refers to a folder beside the repository (the data
//! folder that once sat beside it, or the variable that pointed there), and every repository path the
//! tests name in a string literal (`fixtures/…`, `scripts/…`, `docs/…`, …) exists in the
//! repository. `.ci/run` proves the rest: it clones the committed HEAD into an empty temporary
//! folder and runs `./scripts/test` there.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The tracked files (`git ls-files`), or, outside a git checkout (a source archive), every file
/// but the build output and git's own.
fn tracked() -> Vec<PathBuf> {
    let git = std::process::Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(repo())
        .output();
    if let Ok(out) = git
        && out.status.success()
    {
        return out
            .stdout
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| repo().join(String::from_utf8_lossy(p).as_ref()))
            .collect();
    }
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let p = e.expect("an entry").path();
            let name = p.file_name().unwrap_or_default();
            if name == "target" || name == ".git" {
                continue;
            }
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(repo(), &mut out);
    out
}

#[test]
fn no_tracked_file_refers_to_a_folder_beside_the_repository() {
    // Spelled in pieces, so this file does not match itself.
    let needles = [
        format!("..{}shared", '/'),
        format!("TRACELINT_{}", "SHARED"),
        format!("CARGO_MANIFEST_DIR\"){}/..", ')'),
    ];
    let mut found = Vec::new();
    let files = tracked();
    assert!(files.len() > 500, "{} files", files.len());
    for f in &files {
        let Ok(bytes) = std::fs::read(f) else {
            continue; // a tracked file deleted in the work tree
        };
        let text = String::from_utf8_lossy(&bytes);
        for (n, line) in text.lines().enumerate() {
            if needles.iter().any(|needle| line.contains(needle.as_str())) {
                found.push(format!(
                    "{}:{}: {}",
                    f.strip_prefix(repo()).unwrap_or(f).display(),
                    n + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// Top folders of the repository whose paths the tests name.
const ROOTS: &[&str] = &[
    "fixtures/",
    "scripts/",
    "docs/",
    "data/",
    "tests/",
    "action/",
    "examples/",
];

/// Paths the tests name that are missing on purpose, each with the reason.
const MISSING_ON_PURPOSE: &[(&str, &str)] = &[
    (
        "tests/test_report.py",
        "a test file named in the output of a command the Antigravity fixture's agent ran",
    ),
    (
        "fixtures/cli/nope.json",
        "the missing input of the input-error cases",
    ),
    (
        "fixtures/cli/no-such-tools.json",
        "the missing tools file of an input-error case",
    ),
    (
        "docs/readme.txt",
        "a file name inside an Inspect log's sandbox, not a path here",
    ),
    (
        "tests/test_mod.py",
        "a path inside a trace's tool arguments (R3 cases)",
    ),
    (
        "tests/extra.rs",
        "a file the source-digest test adds to a copy of the repository",
    ),
];

/// Every `"fixtures/…"`-like string literal in a test source or CLI case: the path part (up to a
/// space or the end), without a trailing `:LINE:COL`.
fn named_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for piece in text.split('"') {
        for word in piece.split([' ', '\n', '\t', '\'', '`', '(', ')', ',', '=']) {
            let Some(root) = ROOTS.iter().find(|r| word.starts_with(**r)) else {
                continue;
            };
            let path = word.split(':').next().unwrap_or(word);
            if path.len() <= root.len()
                || path.contains(['{', '}', '*', '<', '>', '[', '$', '…', '\\'])
                || path.ends_with('.')
            {
                continue;
            }
            out.push(path.trim_end_matches(['/', ';']).to_owned());
        }
    }
    out
}

#[test]
fn every_path_the_tests_name_exists_in_the_repository() {
    let sources: Vec<PathBuf> = tracked()
        .into_iter()
        .filter(|f| {
            let rel = f
                .strip_prefix(repo())
                .unwrap_or(f)
                .to_string_lossy()
                .into_owned();
            let test_source = rel.starts_with("tests/")
                || rel.ends_with("tests.rs")
                || rel.ends_with("/testing.rs");
            // This file's own scanner test names paths that are not there on purpose.
            test_source
                && rel != "tests/standalone.rs"
                && (rel.ends_with(".rs") || rel.ends_with(".toml"))
                && !rel.contains("/snapshots/")
        })
        .collect();
    assert!(sources.len() > 50, "{} test sources", sources.len());
    let allowed: BTreeSet<&str> = MISSING_ON_PURPOSE.iter().map(|(p, _)| *p).collect();
    let mut checked = 0;
    let mut missing = BTreeSet::new();
    for f in &sources {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for path in named_paths(&text) {
            checked += 1;
            if !repo().join(&path).exists() && !allowed.contains(path.as_str()) {
                missing.insert(format!(
                    "{} (named in {})",
                    path,
                    f.strip_prefix(repo()).unwrap_or(f).display()
                ));
            }
        }
    }
    assert!(
        checked > 200,
        "only {checked} paths found: the scan is broken"
    );
    assert!(
        missing.is_empty(),
        "{}",
        missing.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn the_path_scan_finds_what_it_should() {
    let text = r#"let a = "fixtures/real/x.json"; run(["check", "fixtures/a b.json:3:4"]); "scripts/test"; "fixtures/{name}.json"; "notes/x""#;
    assert_eq!(
        named_paths(text),
        ["fixtures/real/x.json", "fixtures/a", "scripts/test"]
    );
}
