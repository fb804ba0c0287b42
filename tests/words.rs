//! What a stranger reads says what things are. No word that only the authors know (the names of
//! their planning documents, "the issue", "the peer") appears in the README, the pages under
//! `docs/`, the `--help` of any subcommand, or the `explain` of any rule; and the documented
//! lists agree with the code: the extensions a directory walk picks up, every `builtin:` schema
//! source under `--tools`, every completion shell.

use std::path::Path;
use std::process::Command;

use regex::Regex;

fn forbidden() -> Regex {
    // "seed 000", "seed 002's", "seed000", "the seeds": the authors' planning documents (a random
    // seed, as in `scorecard --seed 7`, is fine); "the issue", "issue 42"; "the peer", "the
    // Python peer"; "wave" and "stop 3" (the authors' schedule).
    Regex::new(
        r"(?i)\bseed ?0\d\d\b|\bthe seeds\b|\bthe issue\b|\bissue \d+\b|\bthe peer\b|\bpython peer\b|\bpeer's\b|\bwaves?\b|\bstop \d+\b|\bacceptance \d+\b",
    )
    .expect("a regex")
}

fn tracelint(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("tracelint runs");
    assert!(
        out.status.success(),
        "tracelint {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The subcommands a `--help` lists under `Commands:` (`help` left out).
fn subcommands(help: &str) -> Vec<String> {
    help.split("\nCommands:\n")
        .nth(1)
        .map(|rest| {
            rest.lines()
                .take_while(|l| l.starts_with("  "))
                // A wrapped description continues deeper in; a command starts at two spaces.
                .filter(|l| !l.starts_with("   "))
                .filter_map(|l| l.split_whitespace().next())
                .filter(|c| *c != "help")
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// `--help` of the program and of every subcommand, nested ones too: (command line, text).
fn every_help() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut todo: Vec<Vec<String>> = vec![Vec::new()];
    while let Some(path) = todo.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let text = tracelint(&args);
        for sub in subcommands(&text) {
            let mut next = path.clone();
            next.push(sub);
            todo.push(next);
        }
        out.push((format!("tracelint {}", args.join(" ")), text));
    }
    out
}

fn docs() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![
        "README.md".to_owned(),
        "RELEASING.md".to_owned(),
        "CONTRIBUTING.md".to_owned(),
    ];
    for e in std::fs::read_dir(root.join("docs")).expect("docs/") {
        let name = e
            .expect("an entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name.ends_with(".md") {
            pages.push(format!("docs/{name}"));
        }
    }
    pages
        .into_iter()
        .filter_map(|p| Some((p.clone(), std::fs::read_to_string(root.join(&p)).ok()?)))
        .collect()
}

fn hits(what: &str, text: &str) -> Vec<String> {
    let re = forbidden();
    text.lines()
        .enumerate()
        .filter(|(_, l)| re.is_match(l))
        .map(|(n, l)| format!("{what}:{}: {}", n + 1, l.trim()))
        .collect()
}

#[test]
fn no_author_only_words_in_help_explain_readme_or_docs() {
    let mut found = Vec::new();
    let helps = every_help();
    let names: Vec<&str> = helps.iter().map(|(c, _)| c.as_str()).collect();
    for sub in [
        "check",
        "tools lint",
        "mcp proxy",
        "scorecard",
        "demo",
        "explain",
    ] {
        assert!(
            names.contains(&format!("tracelint {sub} --help").as_str()),
            "no help of `{sub}` among {names:?}"
        );
    }
    for (cmd, text) in &helps {
        found.extend(hits(cmd, text));
    }
    let rules: serde_json::Value =
        serde_json::from_str(&tracelint(&["rules", "--json"])).expect("rules --json");
    let mut ids: Vec<String> = rules
        .as_array()
        .expect("a list of rules")
        .iter()
        .map(|r| r["id"].as_str().expect("an id").to_owned())
        .collect();
    assert!(ids.len() >= 15, "{ids:?}");
    ids.extend(["T1", "T13", "builtin:claude-code"].map(str::to_owned));
    for id in &ids {
        let text = tracelint(&["explain", id]);
        assert!(text.len() > 200, "explain {id}: {text}");
        found.extend(hits(&format!("tracelint explain {id}"), &text));
    }
    let pages = docs();
    assert!(pages.len() >= 10, "{pages:?}");
    for (page, text) in &pages {
        found.extend(hits(page, text));
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_word_filter_catches_what_it_should() {
    let re = forbidden();
    for bad in [
        "seed 000's pre-commit flag",
        "Seed 002's map",
        "the issue's goal is 0.5",
        "the Python peer (0.14)",
        "seed000",
    ] {
        assert!(re.is_match(bad), "not caught: {bad}");
    }
    for fine in [
        "--seed 7 reproduces the table",
        "a seeded draw",
        "peer review",
        "stops safely",
    ] {
        assert!(!re.is_match(fine), "caught: {fine}");
    }
}

#[test]
fn documented_lists_agree_with_the_code() {
    let check = tracelint(&["check", "--help"]);
    let walked = ".json, .jsonl, .ndjson, .eval or .traj";
    assert!(check.contains(walked), "{check}");
    let usage =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/usage.md"))
            .expect("docs/usage.md");
    assert!(usage.contains(walked), "docs/usage.md must list {walked}");
    // The message for a directory holding no trace names the same list.
    let empty = tempfile::tempdir().expect("a temp dir");
    let out = Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .arg("check")
        .arg(empty.path())
        .env("NO_COLOR", "1")
        .output()
        .expect("tracelint runs");
    assert_eq!(out.status.code(), Some(3));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(walked)
            || String::from_utf8_lossy(&out.stderr).contains(walked),
        "{out:?}"
    );
    // Every built-in schema source, wherever `--tools` is offered.
    for sub in [&["check"][..], &["doctor"], &["init"], &["tools", "lint"]] {
        let help = tracelint(&[sub, &["--help"]].concat());
        for source in ["builtin:claude-code", "builtin:codex", "builtin:gemini-cli"] {
            assert!(
                help.contains(source),
                "`tracelint {} --help` does not name {source}",
                sub.join(" ")
            );
        }
    }
    // Every shell `completions` accepts is shown in its help and in docs/usage.md.
    let completions = tracelint(&["completions", "--help"]);
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        assert!(
            completions.contains(&format!("tracelint completions {shell}")),
            "{completions}"
        );
        assert!(usage.contains(shell), "docs/usage.md misses {shell}");
        assert!(
            !tracelint(&["completions", shell]).is_empty(),
            "no script for {shell}"
        );
    }
}

/// A command line split as a shell would, for what the docs show: quotes group, nothing expands.
fn shell_words(line: &str) -> Vec<String> {
    let (mut out, mut word, mut quote, mut started) = (Vec::new(), String::new(), None, false);
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => (quote, started) = (Some(c), true),
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if started {
                    out.push(std::mem::take(&mut word));
                }
                started = false;
            }
            (_, c) => (word, started) = (word + &c.to_string(), true),
        }
    }
    if started {
        out.push(word);
    }
    out
}

/// The `tracelint …` command lines shown in `sh` and `console` blocks of a Markdown page.
fn shown_commands(page: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    for line in page.lines() {
        if let Some(info) = line.strip_prefix("```") {
            in_block = !in_block && matches!(info.trim(), "sh" | "console" | "");
            continue;
        }
        let line = line.trim_start().trim_start_matches("$ ");
        if in_block && line.starts_with("tracelint ") {
            // A trailing comment starts at two spaces and a `#`.
            let command = line.split("  #").next().unwrap_or(line).trim();
            out.push(command.to_owned());
        }
    }
    out
}

#[test]
fn every_flag_the_docs_show_exists() {
    let top = tracelint(&["--help"]);
    let commands = subcommands(&top);
    let mut helps = std::collections::BTreeMap::new();
    let mut problems = Vec::new();
    let mut shown = 0;
    for (page, text) in docs() {
        for line in shown_commands(&text) {
            shown += 1;
            let words = shell_words(&line);
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            // `tracelint TRACE… --tools T` is the short form of `check`.
            let mut sub: Vec<&str> = match words.get(1) {
                Some(w) if commands.iter().any(|c| c == w) => vec![*w],
                _ => vec!["check"],
            };
            // Nested subcommands (`tools lint`, `hook install`): descend while the next word is
            // one of the current command's own subcommands.
            let mut help = helps
                .entry(sub.join(" "))
                .or_insert_with(|| tracelint(&[&sub[..], &["--help"]].concat()))
                .clone();
            while let Some(w) = words.get(sub.len() + 1)
                && sub[0] != "check"
                && subcommands(&help).iter().any(|c| c == w)
            {
                sub.push(w);
                help = helps
                    .entry(sub.join(" "))
                    .or_insert_with(|| tracelint(&[&sub[..], &["--help"]].concat()))
                    .clone();
            }
            // Words after a bare `--` belong to another program (the hook `install` writes).
            let own = words.iter().position(|w| *w == "--").unwrap_or(words.len());
            for w in &words[..own] {
                let flag = w.split('=').next().unwrap_or(w);
                let is_flag = (flag.starts_with("--") && flag.len() > 2)
                    || (flag.len() == 2 && flag.starts_with('-') && flag != "--");
                if !is_flag {
                    continue;
                }
                let named = [" ", ",", "=", "\n", " <", "["]
                    .iter()
                    .any(|after| help.contains(&format!("{flag}{after}")));
                if !named {
                    problems.push(format!(
                        "{page}: `{line}`: `tracelint {}` has no {flag}",
                        sub.join(" ")
                    ));
                }
            }
        }
    }
    assert!(shown >= 30, "only {shown} commands found in the docs");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn shell_words_group_quotes() {
    assert_eq!(
        shell_words(r#"tracelint check t --tools 'mcp-stdio:npx -y x' --header "A: b""#),
        [
            "tracelint",
            "check",
            "t",
            "--tools",
            "mcp-stdio:npx -y x",
            "--header",
            "A: b"
        ]
    );
}
