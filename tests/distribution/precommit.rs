//! Acceptance 3: real `pre-commit` (from PyPI, in the venv `scripts/test` makes) against a clone
//! of this repository, in a fresh git repository: a commit adding a trace with an R1 violation
//! is refused with the finding shown, a clean one goes in. `tracelint-system` runs through
//! `pre-commit try-repo` and through docs/ci.md's config with the built binary on PATH;
//! `tracelint` (language: rust) through docs/ci.md's config, building with cargo, once per run.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::install::{FAST_RELEASE, shared_target, shared_target_lock};
use crate::support::{
    Output, copy_tree, files_under, git, git_ok, hermetic_git, path_with, path_without_tracelint,
    repo, require_tool, run, tracelint_bin,
};

const FINDING: &str = r#"transcripts/r1-violation.jsonl:2:133: hard_defect R1 read_file: /limit: "10" is not of type "integer""#;

/// A scratch area: the hooks' repository (a clone of this one at HEAD, with the working tree's
/// hooks file committed on top when it differs) and a project repository.
struct Scratch {
    dir: tempfile::TempDir,
    hooks: PathBuf,
    rev: String,
    project: PathBuf,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = tempfile::tempdir().expect("a temp dir");
        let home = dir.path();
        let hooks = home.join("hooks-repo");
        let out = run(
            git(home, home)
                .args(["clone", "--quiet", "--no-hardlinks"])
                .arg(repo())
                .arg(&hooks),
            Duration::from_secs(300),
        );
        assert_eq!(out.code, Some(0), "git clone: {}", out.all());
        copy_tree(
            &repo().join(".pre-commit-hooks.yaml"),
            &hooks.join(".pre-commit-hooks.yaml"),
        );
        if !git_ok(home, &hooks, &["status", "--porcelain"]).is_empty() {
            git_ok(home, &hooks, &["add", ".pre-commit-hooks.yaml"]);
            git_ok(
                home,
                &hooks,
                &["commit", "--quiet", "-m", "working tree's hooks file"],
            );
        }
        let rev = git_ok(home, &hooks, &["rev-parse", "HEAD"])
            .trim()
            .to_owned();
        let project = home.join("project");
        std::fs::create_dir_all(&project).expect("create the project");
        git_ok(home, &project, &["init", "--quiet"]);
        copy_tree(
            &repo().join("fixtures/dist/tools.json"),
            &project.join("tools.json"),
        );
        Scratch {
            dir,
            hooks,
            rev,
            project,
        }
    }

    fn home(&self) -> &Path {
        self.dir.path()
    }

    fn git_ok(&self, args: &[&str]) -> String {
        git_ok(self.home(), &self.project, args)
    }

    /// Put a fixture trace at `transcripts/NAME` and stage it.
    fn stage_trace(&self, fixture: &str, name: &str) {
        copy_tree(
            &repo().join("fixtures/dist").join(fixture),
            &self.project.join("transcripts").join(name),
        );
        self.git_ok(&["add", "--", &format!("transcripts/{name}")]);
    }

    /// Unstage and delete everything not committed.
    fn discard(&self) {
        self.git_ok(&["reset", "--quiet"]);
        self.git_ok(&["clean", "-fdq"]);
    }

    /// A command in the project with pre-commit's cache in the scratch area, no colour.
    fn command(&self, program: &Path, path: &OsString) -> Command {
        let mut cmd = Command::new(program);
        hermetic_git(self.home(), &mut cmd);
        cmd.current_dir(&self.project)
            .env("PATH", path)
            .env("PRE_COMMIT_HOME", self.home().join("pre-commit-home"))
            .env("PRE_COMMIT_COLOR", "never")
            .env("NO_COLOR", "1")
            .env_remove("CLICOLOR_FORCE")
            .env_remove("CI");
        cmd
    }

    /// docs/ci.md's config with the repository and revision pointed at the local clone (a
    /// `repo: local` config is used as it is).
    fn install_config(&self, snippet: &str, pre_commit: &Path, path: &OsString) {
        let text =
            std::fs::read_to_string(repo().join("tests/distribution/snippets").join(snippet))
                .expect("read the snippet");
        let config = if text.contains("- repo: local\n") {
            text
        } else {
            self.pointed_at_clone(snippet, &text)
        };
        std::fs::write(self.project.join(".pre-commit-config.yaml"), config).expect("write");
        self.git_ok(&["add", "."]);
        self.git_ok(&["commit", "--quiet", "-m", "tools and pre-commit config"]);
        let out = run(
            self.command(pre_commit, path).arg("install"),
            Duration::from_secs(60),
        );
        assert_eq!(out.code, Some(0), "pre-commit install: {}", out.all());
    }

    /// `text` with this repository's URL and release replaced by the clone and its commit.
    fn pointed_at_clone(&self, snippet: &str, text: &str) -> String {
        let url = "https://github.com/tracelint/tracelint";
        assert_eq!(
            text.matches(url).count(),
            1,
            "{snippet} names the repository once"
        );
        assert_eq!(
            text.matches("rev: v").count(),
            1,
            "{snippet} names a release once"
        );
        let rev_line = text
            .lines()
            .find(|l| l.trim_start().starts_with("rev: v"))
            .expect("a rev line");
        text.replace(url, &self.hooks.display().to_string())
            .replace(
                rev_line,
                &rev_line.replace(rev_line.trim(), &format!("rev: {}", self.rev)),
            )
    }

    fn commit(&self, message: &str, path: &OsString, env: &[(&str, String)]) -> Output {
        let mut cmd = self.command(Path::new("git"), path);
        cmd.args(["commit", "-m", message]);
        for (k, v) in env {
            cmd.env(k, v);
        }
        run(&mut cmd, Duration::from_secs(30 * 60))
    }

    fn head(&self) -> String {
        self.git_ok(&["rev-parse", "HEAD"]).trim().to_owned()
    }
}

fn bin_dir() -> PathBuf {
    tracelint_bin()
        .parent()
        .expect("the binary's folder")
        .to_path_buf()
}

/// `pre-commit try-repo` with the built binary on PATH, on what is staged.
#[test]
fn system_hook_through_try_repo_refuses_r1_and_accepts_clean() {
    let Some(pre_commit) = require_tool("pre-commit") else {
        return;
    };
    let s = Scratch::new();
    std::fs::write(s.project.join("tracelint.toml"), "tools = \"tools.json\"\n").expect("write");
    s.git_ok(&["add", "."]);
    s.git_ok(&["commit", "--quiet", "-m", "tools"]);
    let path = path_with(&[&bin_dir()]);
    let try_repo = || {
        let mut cmd = s.command(&pre_commit, &path);
        cmd.arg("try-repo").arg(&s.hooks).arg("tracelint-system");
        run(&mut cmd, Duration::from_secs(300))
    };

    s.stage_trace("transcripts/r1-violation.jsonl", "r1-violation.jsonl");
    let out = try_repo();
    let text = out.all();
    assert_eq!(out.code, Some(1), "{text}");
    assert!(text.contains("tracelint (on PATH)"), "{text}");
    assert!(text.contains("Failed"), "{text}");
    assert!(text.contains("- exit code: 2"), "{text}");
    assert!(text.contains(FINDING), "{text}");

    s.discard();
    s.stage_trace("transcripts/clean.jsonl", "clean.jsonl");
    let out = try_repo();
    let text = out.all();
    assert_eq!(out.code, Some(0), "{text}");
    assert!(text.contains("Passed"), "{text}");
}

/// A real `git commit` through docs/ci.md's config: refused with the finding, then accepted;
/// a JSON file outside `transcripts/` is not the hook's business.
fn commit_gate(
    snippet: &str,
    hook_name: &str,
    path: &OsString,
    env: &[(&str, String)],
) -> Option<Scratch> {
    let pre_commit = require_tool("pre-commit")?;
    let s = Scratch::new();
    s.install_config(snippet, &pre_commit, path);
    let before = s.head();

    s.stage_trace("transcripts/r1-violation.jsonl", "r1-violation.jsonl");
    let out = s.commit("add a trace with an R1 violation", path, env);
    let text = out.all();
    assert_eq!(out.code, Some(1), "{text}");
    assert!(
        text.contains(hook_name) && text.contains("Failed"),
        "{text}"
    );
    assert!(text.contains(FINDING), "{text}");
    assert_eq!(s.head(), before, "the commit was refused");

    s.discard();
    s.stage_trace("transcripts/clean.jsonl", "clean.jsonl");
    std::fs::write(s.project.join("package.json"), "{\"name\": \"demo\"}\n").expect("write");
    s.git_ok(&["add", "package.json"]);
    let out = s.commit("add a clean trace", path, env);
    let text = out.all();
    assert_eq!(out.code, Some(0), "{text}");
    assert!(
        text.contains(hook_name) && text.contains("Passed"),
        "{text}"
    );
    assert_ne!(s.head(), before, "the commit went in");
    let files = s.git_ok(&["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(files, "package.json\ntranscripts/clean.jsonl\n");
    Some(s)
}

#[test]
fn system_hook_gates_real_commits_with_the_readme_config() {
    let path = path_with(&[&bin_dir()]);
    let _ = commit_gate(
        "pre-commit-config-system.yaml",
        "tracelint (on PATH)",
        &path,
        &[],
    );
}

#[test]
fn rust_hook_builds_with_cargo_and_gates_real_commits_with_the_readme_config() {
    if require_tool("cargo").is_none() {
        return;
    }
    let scratch = tempfile::tempdir().expect("a temp dir");
    // No `tracelint` anywhere on PATH: the hook can only use what pre-commit built.
    let path = path_without_tracelint(scratch.path());
    let mut env: Vec<(&str, String)> = FAST_RELEASE
        .iter()
        .map(|(k, v)| (*k, (*v).to_owned()))
        .collect();
    env.push(("CARGO_TARGET_DIR", shared_target().display().to_string()));
    let _target = shared_target_lock();
    let Some(s) = commit_gate("pre-commit-config.yaml", "tracelint.", &path, &env) else {
        return;
    };
    let built: Vec<String> = files_under(&s.home().join("pre-commit-home"))
        .into_iter()
        .filter(|f| f.contains("/rustenv-") && f.ends_with("/bin/tracelint"))
        .collect();
    assert_eq!(built.len(), 1, "pre-commit built tracelint once: {built:?}");
}

/// The wheels virtualenv seeds new environments from (pip, setuptools), beside pre-commit: with
/// them and the built wheel as pip's only source, pre-commit's install needs no network.
fn virtualenv_wheels(pre_commit: &Path) -> PathBuf {
    let python = pre_commit.with_file_name("python");
    let out = run(
        Command::new(&python).args([
            "-c",
            "import os, virtualenv.seed.wheels.embed as e; print(os.path.dirname(e.__file__))",
        ]),
        Duration::from_secs(60),
    );
    assert_eq!(out.code, Some(0), "{}", out.all());
    PathBuf::from(out.stdout.trim())
}

/// docs/ci.md's wheel route: `repo: local`, `language: python`, the `tracelint-rs` wheel as an
/// additional dependency, installed by pip from the wheel `maturin build` made (no index).
#[test]
fn wheel_hook_installs_the_wheel_and_gates_real_commits_with_the_readme_config() {
    let Some(pre_commit) = require_tool("pre-commit") else {
        return;
    };
    let Some(wheels) = crate::wheel::built_wheel() else {
        return;
    };
    let scratch = tempfile::tempdir().expect("a temp dir");
    // No `tracelint` and no cargo-built one anywhere on PATH: only the wheel can answer.
    let path = path_without_tracelint(scratch.path());
    let links = format!(
        "{} {}",
        wheels.display(),
        virtualenv_wheels(&pre_commit).display()
    );
    let env: Vec<(&str, String)> = vec![
        ("PIP_NO_INDEX", "1".into()),
        ("PIP_FIND_LINKS", links),
        ("PIP_DISABLE_PIP_VERSION_CHECK", "1".into()),
        ("VIRTUALENV_NO_PERIODIC_UPDATE", "1".into()),
    ];
    let Some(s) = commit_gate("pre-commit-config-wheel.yaml", "tracelint.", &path, &env) else {
        return;
    };
    let installed: Vec<String> = files_under(&s.home().join("pre-commit-home"))
        .into_iter()
        .filter(|f| f.contains("/py_env-") && f.ends_with("/bin/tracelint"))
        .collect();
    assert_eq!(installed.len(), 1, "the wheel's binary: {installed:?}");
    let wheel = crate::wheel::wheel_file(wheels);
    let in_wheel = crate::support::files_under(&s.home().join("pre-commit-home"))
        .iter()
        .any(|f| f.contains("tracelint_rs-") && f.ends_with(".dist-info/RECORD"));
    assert!(in_wheel, "installed from {}", wheel.display());
}
