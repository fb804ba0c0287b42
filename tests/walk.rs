//! Walking directories (`check`, `doctor`, `init`, `infer` share one walk): a JSON file found by
//! walking that is plainly not a trace (`package.json`, `stats.json`) is skipped with one note
//! and fails the run only when nothing else was linted or when named on the command line;
//! `--exclude` (and the config's `exclude`), `.gitignore` inside a git repository, `.ignore`
//! anywhere, and `--no-ignore`.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn tracelint(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        // A global git excludes file of the machine running the tests must not change them.
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("XDG_CONFIG_HOME", cwd.join(".no-xdg"))
        .env("HOME", cwd)
        .output()
        .expect("run tracelint")
}

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

/// A corpus as people keep one: two real traces (one with a hard defect), the project's
/// `package.json`, an evaluation's `stats.json`, a config, and a folder of old runs.
fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("runs/old")).unwrap();
    std::fs::create_dir_all(d.join("node_modules/left-pad")).unwrap();
    std::fs::copy(
        Path::new(ROOT).join("fixtures/seed000/transcript.jsonl"),
        d.join("runs/transcript.jsonl"),
    )
    .unwrap();
    std::fs::copy(
        Path::new(ROOT).join("fixtures/cli/clean.json"),
        d.join("runs/clean.json"),
    )
    .unwrap();
    std::fs::copy(
        Path::new(ROOT).join("fixtures/cli/clean.json"),
        d.join("runs/old/clean-old.json"),
    )
    .unwrap();
    std::fs::write(
        d.join("package.json"),
        r#"{"name": "agent", "version": "1.0.0", "dependencies": {"left-pad": "^1.3.0"}}"#,
    )
    .unwrap();
    std::fs::write(
        d.join("node_modules/left-pad/package.json"),
        r#"{"name": "left-pad", "version": "1.3.0"}"#,
    )
    .unwrap();
    std::fs::write(
        d.join("runs/stats.json"),
        r#"{"total": 20, "passed": 17, "mean_steps": 9.4}"#,
    )
    .unwrap();
    std::fs::write(
        d.join("tsconfig.json"),
        r#"{"compilerOptions": {"strict": true}}"#,
    )
    .unwrap();
    dir
}

/// The inputs a JSON report lists, in order.
fn linted(cwd: &Path, args: &[&str]) -> (Option<i32>, Vec<String>) {
    let mut all = vec!["check", "--no-config", "--output-format", "json"];
    all.extend_from_slice(args);
    let run = tracelint(cwd, &all);
    let json: Value = serde_json::from_slice(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", text(&run.stdout), text(&run.stderr)));
    let paths = json["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["path"].as_str().unwrap().to_owned())
        .collect();
    (run.status.code(), paths)
}

#[test]
fn files_that_are_plainly_not_traces_are_skipped_with_one_note() {
    let dir = corpus();
    let run = tracelint(dir.path(), &["check", ".", "--no-config"]);
    // Exit by the findings (none at the hard_defect tier in these two traces), not 3.
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    insta::assert_snapshot!(text(&run.stdout), @r"
    note: skipped: found by walking, not a trace (no record of any format tracelint reads) (4 inputs: node_modules/left-pad/package.json, package.json, runs/stats.json and 1 more)
    0 hard_defects, 0 hard_events, 0 candidates
    linted 3 traces (6 tool calls) from 7 inputs
    9 suppressions: rule checks that could not decide (pass --show-suppressions to list them)
    coverage: R1 0/6, R2a 2/2, R2b 2/6, R3 2/6, R4 2/6, R5 2/6, R6 6/6, R7 0/6
    nothing to check: R8, R9, R10, R11, R12, R13 (`tracelint explain <rule>` says what each needs)
    ");
    assert_eq!(text(&run.stderr), "");
}

#[test]
fn a_file_named_on_the_command_line_is_still_an_input_error() {
    let dir = corpus();
    let run = tracelint(
        dir.path(),
        &["check", "runs/clean.json", "package.json", "--no-config"],
    );
    assert_eq!(run.status.code(), Some(3));
    assert!(
        text(&run.stdout).contains("package.json: input_error: cannot tell the input format"),
        "{}",
        text(&run.stdout)
    );
}

#[test]
fn when_nothing_else_was_linted_the_skipped_files_are_input_errors() {
    let dir = corpus();
    let run = tracelint(dir.path(), &["check", "node_modules", "--no-config"]);
    assert_eq!(run.status.code(), Some(3), "{}", text(&run.stdout));
    insta::assert_snapshot!(text(&run.stdout), @r"
    node_modules/left-pad/package.json: input_error: not a trace: no record of any format tracelint reads, and nothing else was linted; pass `--input-format FORMAT` if it is one

    0 hard_defects, 0 hard_events, 0 candidates
    linted 0 traces (0 tool calls) from 1 input
    1 input error (exit 3)
    ");
}

#[test]
fn exclude_leaves_out_names_and_paths_and_adds_to_the_config() {
    let dir = corpus();
    let d = dir.path();
    let (code, paths) = linted(
        d,
        &[
            ".",
            "--exclude",
            "node_modules",
            "--exclude",
            "runs/old/**",
            "--exclude",
            "*.json",
        ],
    );
    assert_eq!(code, Some(0));
    assert_eq!(paths, ["runs/transcript.jsonl"]);
    // A glob is filtered too; a file named on the command line never is.
    let (_, paths) = linted(d, &["runs/*", "runs/clean.json", "--exclude", "*.json"]);
    assert_eq!(paths, ["runs/transcript.jsonl", "runs/clean.json"]);
    // The config's `exclude`, relative to the config's folder, with the flag's added.
    std::fs::write(
        d.join("tracelint.toml"),
        "exclude = [\"runs/old/**\", \"node_modules\"]\n",
    )
    .unwrap();
    std::fs::create_dir(d.join("sub")).unwrap();
    let run = tracelint(
        &d.join("sub"),
        &[
            "check",
            "..",
            "--output-format",
            "json",
            "--exclude",
            "stats.json",
        ],
    );
    let json: Value = serde_json::from_slice(&run.stdout).unwrap();
    let paths: Vec<&str> = json["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "../package.json",
            "../runs/clean.json",
            "../runs/transcript.jsonl",
            "../tsconfig.json"
        ]
    );
    // An invalid glob is a usage error that names it.
    let run = tracelint(d, &["check", ".", "--no-config", "--exclude", "a[b"]);
    assert_eq!(run.status.code(), Some(3));
    assert!(
        text(&run.stderr).contains("exclude pattern `a[b`: invalid glob"),
        "{}",
        text(&run.stderr)
    );
}

#[test]
fn gitignore_is_respected_in_a_git_repository_and_no_ignore_turns_it_off() {
    let dir = corpus();
    let d = dir.path();
    std::fs::write(d.join(".gitignore"), "node_modules/\nruns/old/\n").unwrap();
    // Outside a git repository `.gitignore` is not read (as ripgrep does).
    let (_, paths) = linted(d, &["."]);
    assert!(
        paths.contains(&"runs/old/clean-old.json".to_owned()),
        "{paths:?}"
    );
    // Inside one it is.
    std::fs::create_dir(d.join(".git")).unwrap();
    let (code, paths) = linted(d, &["."]);
    assert_eq!(code, Some(0));
    assert_eq!(
        paths,
        [
            "package.json",
            "runs/clean.json",
            "runs/stats.json",
            "runs/transcript.jsonl",
            "tsconfig.json"
        ]
    );
    let (_, all) = linted(d, &[".", "--no-ignore"]);
    assert_eq!(all.len(), 7, "{all:?}");
    // A subfolder walked on its own still obeys the repository's `.gitignore`.
    let (_, paths) = linted(d, &["runs"]);
    assert_eq!(
        paths,
        [
            "runs/clean.json",
            "runs/stats.json",
            "runs/transcript.jsonl"
        ]
    );
}

#[test]
fn an_ignore_file_works_without_git() {
    let dir = corpus();
    let d = dir.path();
    std::fs::write(d.join(".ignore"), "stats.json\nold\n").unwrap();
    let (_, paths) = linted(d, &["."]);
    assert_eq!(
        paths,
        [
            "node_modules/left-pad/package.json",
            "package.json",
            "runs/clean.json",
            "runs/transcript.jsonl",
            "tsconfig.json"
        ]
    );
    let (_, all) = linted(d, &[".", "--no-ignore"]);
    assert_eq!(all.len(), 7, "{all:?}");
    // Everything ignored: the directory holds nothing to lint, and says why.
    std::fs::write(d.join("runs/.ignore"), "*\n").unwrap();
    let run = tracelint(d, &["check", "runs", "--no-config"]);
    assert_eq!(run.status.code(), Some(3));
    assert!(
        text(&run.stdout).contains("runs: input_error: the directory holds no .json, .jsonl, .ndjson, .eval or .traj file that is not ignored or excluded"),
        "{}",
        text(&run.stdout)
    );
}

#[test]
fn doctor_init_and_infer_walk_the_same_way() {
    let dir = corpus();
    let d = dir.path();
    let run = tracelint(
        d,
        &["doctor", ".", "--no-config", "--json", "--exclude", "old"],
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let json: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(json["traces"], 2, "{json}");
    for cmd in [
        &["init", ".", "--no-config", "--exclude", "node_modules"][..],
        &["infer", ".", "--no-validate", "--exclude", "node_modules"][..],
    ] {
        let run = tracelint(d, cmd);
        assert_eq!(run.status.code(), Some(0), "{cmd:?}: {}", text(&run.stderr));
        assert!(
            text(&run.stderr).contains(
                "note: skipped: found by walking, not a trace (no record of any format tracelint reads) (3 inputs: package.json, runs/stats.json, tsconfig.json)"
            ),
            "{cmd:?}: {}",
            text(&run.stderr)
        );
    }
}
