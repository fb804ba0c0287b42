//! The CI page (`docs/ci.md`) and the hooks' declared contract: every YAML block the page marks
//! with `<!-- snippet: PATH -->` is byte-for-byte the file the tests run, every snippet file is
//! shown, the page's input and output tables list exactly action.yml's, and the hooks file
//! declares the two hooks with the trace extensions and one process for all files.

use std::collections::BTreeSet;

use crate::runner::{action, yaml};
use crate::support::repo;

const MARKER: &str = "<!-- snippet: ";

fn readme() -> String {
    std::fs::read_to_string(repo().join("docs/ci.md")).expect("read docs/ci.md")
}

/// (path, block) for every marked snippet.
fn marked(readme: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = readme;
    while let Some(at) = rest.find(MARKER) {
        let after = &rest[at + MARKER.len()..];
        let end = after.find(" -->").expect("a closed marker");
        let path = after[..end].to_owned();
        let body = after[end + 4..]
            .strip_prefix("\n```yaml\n")
            .unwrap_or_else(|| panic!("{path}: the marker must be followed by a ```yaml block"));
        let close = body.find("\n```\n").expect("a closed block");
        out.push((path, body[..=close].to_owned()));
        rest = &body[close..];
    }
    out
}

#[test]
fn ci_page_snippets_are_the_files_the_tests_run() {
    let readme = readme();
    let snippets = marked(&readme);
    assert!(!snippets.is_empty(), "no marked snippet in docs/ci.md");
    let mut shown = BTreeSet::new();
    for (path, block) in &snippets {
        let file = std::fs::read_to_string(repo().join(path))
            .unwrap_or_else(|e| panic!("docs/ci.md shows {path}, which cannot be read: {e}"));
        assert_eq!(
            block, &file,
            "the copy of {path} in docs/ci.md differs from the file"
        );
        shown.insert(path.clone());
    }
    let dir = repo().join("tests/distribution/snippets");
    for entry in std::fs::read_dir(&dir).expect("read the snippets") {
        let name = entry.expect("an entry").file_name();
        let path = format!("tests/distribution/snippets/{}", name.to_string_lossy());
        assert!(
            shown.contains(&path),
            "{path} is tested but not shown in docs/ci.md"
        );
    }
}

/// The backticked first cells of the table that follows `header` in `section`.
fn table_names(section: &str, header: &str) -> BTreeSet<String> {
    let start = section
        .find(header)
        .unwrap_or_else(|| panic!("no table `{header}`"));
    section[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cell = l.split('|').nth(1).expect("a cell").trim();
            cell.trim_matches('`').to_owned()
        })
        .collect()
}

#[test]
fn ci_page_tables_list_exactly_the_action_inputs_and_outputs() {
    let readme = readme();
    let start = readme
        .find("## GitHub Action")
        .expect("a GitHub Action section");
    let end = readme[start..]
        .find("\n## pre-commit")
        .expect("then a pre-commit section");
    let section = &readme[start..start + end];
    let action = action();
    let names = |key: &str| -> BTreeSet<String> {
        action[key]
            .as_object()
            .expect("a map")
            .keys()
            .cloned()
            .collect()
    };
    assert_eq!(table_names(section, "| input |"), names("inputs"));
    assert_eq!(table_names(section, "| output |"), names("outputs"));
}

#[test]
fn hooks_file_declares_both_hooks_for_trace_files() {
    let hooks = yaml(&repo().join(".pre-commit-hooks.yaml"));
    let hooks = hooks.as_array().expect("a list of hooks");
    let ids: Vec<&str> = hooks
        .iter()
        .map(|h| h["id"].as_str().expect("id"))
        .collect();
    assert_eq!(ids, ["tracelint", "tracelint-system"]);
    for (hook, language) in hooks.iter().zip(["rust", "system"]) {
        assert_eq!(hook["language"], language);
        assert_eq!(hook["entry"], "tracelint check");
        assert_eq!(hook["require_serial"], true, "one process for all files");
        assert!(hook.get("pass_filenames").is_none_or(|p| p == true));
        let files = regex::Regex::new(hook["files"].as_str().expect("files")).expect("a regex");
        for name in ["a.json", "dir/b.jsonl", "c.ndjson"] {
            assert!(files.is_match(name), "{name}");
        }
        for name in ["a.yaml", "a.json.bak", "jsonl", "a.txt"] {
            assert!(!files.is_match(name), "{name}");
        }
    }
}
