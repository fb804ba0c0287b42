//! Acceptance 2: real checkers on the distribution files. `check-jsonschema` validates action.yml
//! and the README's workflow against the GitHub schemas it vendors (SchemaStore's), `zizmor`
//! audits both offline for template injection, unpinned actions and the rest (and is shown to
//! catch seed 000's `${{ inputs.* }}`-in-`run:` hole), `shellcheck` reads the step scripts, and
//! `pre-commit` validates the hooks manifest and the README's configs. All come from PyPI through
//! `scripts/test`.

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

#[test]
fn zizmor_finds_nothing_in_the_action_and_the_workflow() {
    let Some(tool) = require_tool("zizmor") else {
        return;
    };
    let action = repo().join("action.yml");
    let out = checked(
        &tool,
        &[
            "--offline".as_ref(),
            "--pedantic".as_ref(),
            action.as_os_str(),
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.all());
    assert!(out.stdout.contains("No findings"), "{}", out.all());

    // A release's commit cannot be known before it is tagged, so the README's own `uses:` is
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
    ];
    let mut args = vec!["validate-config".as_ref()];
    args.extend(configs.iter().map(|c| c.as_os_str()));
    let out = checked(&tool, &args);
    assert_eq!(out.code, Some(0), "{}", out.all());
    assert!(!out.all().contains("warning"), "{}", out.all());
}
