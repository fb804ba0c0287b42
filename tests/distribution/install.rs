//! Acceptance 1, the install steps: the cache key, `cargo install --locked --path
//! $GITHUB_ACTION_PATH` on a miss (argument list checked with a recording `cargo`, then once for
//! real), the save and the later hit, the `version` input, and a runner without cargo. Every job's
//! release server has nothing published here, so each install falls back to cargo; the download
//! path is `download.rs`.

use std::path::Path;
use std::time::Duration;

use crate::job::Job;
use crate::support::{repo, require_tool, tracelint_bin};

/// A recording `cargo` that "installs" the test binary into its `--root`.
pub(crate) fn installing_cargo(job: &mut Job) -> std::path::PathBuf {
    let bin = tracelint_bin();
    job.fake_cargo(&format!(
        "mkdir -p \"$root/bin\" && cp '{}' \"$root/bin/tracelint\"",
        bin.display()
    ))
}

fn clean_with() -> Vec<(&'static str, &'static str)> {
    vec![
        ("traces", "transcripts/clean.jsonl"),
        ("tools", "tools.json"),
    ]
}

/// The recorded `cargo` call that builds the action's checkout into `root`: run in the checkout
/// (where cargo reads its build settings, `.cargo/config.toml`), given as `.`.
pub(crate) fn path_install(root: &str) -> String {
    format!("install --locked --root {root} --path .\n")
}

/// The folders the recorded `cargo` calls ran in (`calls` is `Job::fake_cargo`'s log).
pub(crate) fn cargo_folders(calls: &std::path::Path) -> String {
    let mut log = calls.as_os_str().to_owned();
    log.push(".cwd");
    std::fs::read_to_string(log).expect("cargo ran")
}

#[test]
fn cache_miss_runs_cargo_install_locked_then_the_saved_binary_is_restored() {
    if require_tool("jq").is_none() {
        return;
    }
    let mut job = Job::new();
    let calls = installing_cargo(&mut job);
    let first = job.runner.run(&clean_with());
    assert!(!first.failed, "{}", job.render(&first));
    assert_eq!(first.step("restore").outputs["cache-hit"], "false");
    let root = first.step("key").outputs["root"].clone();
    let key = first.step("key").outputs["key"].clone();
    assert!(key.starts_with("tracelint-Linux-X64-src-"), "{key}");
    assert!(
        root.starts_with(&job.runner.tool_cache.display().to_string()),
        "{root}"
    );
    assert_eq!(
        std::fs::read_to_string(&calls).expect("cargo ran"),
        path_install(&root)
    );
    assert_eq!(cargo_folders(&calls), format!("{}\n", repo().display()));
    assert_eq!(
        first.step("install").outputs["bin"],
        format!("{root}/bin/tracelint")
    );
    assert!(job.saved(&key), "saved");

    // A later job: a fresh tool cache, the same store; cargo must not run.
    std::fs::remove_dir_all(&job.runner.tool_cache).expect("clear the tool cache");
    std::fs::remove_file(&calls).expect("clear the log");
    let second = job.runner.run(&clean_with());
    assert!(!second.failed, "{}", job.render(&second));
    assert_eq!(second.step("restore").outputs["cache-hit"], "true");
    assert!(!calls.exists(), "a cache hit ran cargo");
    assert_eq!(
        second.step("save").code,
        None,
        "the save step is skipped on a hit"
    );
    assert_eq!(second.output("exit-code"), "0");
}

#[test]
fn version_installs_that_release_and_checks_what_it_got() {
    if require_tool("jq").is_none() {
        return;
    }
    let ours = env!("CARGO_PKG_VERSION");
    let mut job = Job::new();
    let calls = installing_cargo(&mut job);
    let mut with = clean_with();
    with.push(("version", ours));
    let run = job.runner.run(&with);
    assert!(!run.failed, "{}", job.render(&run));
    let key = &run.step("key").outputs["key"];
    assert_eq!(key, &format!("tracelint-Linux-X64-release-{ours}"));
    let root = &run.step("key").outputs["root"];
    assert_eq!(
        std::fs::read_to_string(&calls).expect("cargo ran"),
        format!("install --locked --root {root} tracelint --version ={ours}\n")
    );

    // crates.io handing back another version is a failure, not a silent mismatch.
    let with = [("traces", "transcripts/clean.jsonl"), ("version", "9.9.9")];
    let run = job.runner.run(&with);
    assert!(run.failed);
    let log = run.log();
    assert!(
        log.contains(&format!(
            "reports `tracelint {ours}`, not `tracelint 9.9.9`"
        )),
        "{log}"
    );
    assert_eq!(
        run.step("lint").code,
        None,
        "no lint after a failed install"
    );

    let run = job.runner.run(&[("traces", "x"), ("version", "latest")]);
    assert!(run.failed);
    assert!(
        run.log()
            .contains("must be empty (this action's own ref) or an exact version")
    );
}

#[test]
fn an_unpublished_version_fails_the_install_step_with_the_reason() {
    if require_tool("jq").is_none() || require_tool("cargo").is_none() {
        return;
    }
    let mut job = Job::new();
    job.runner
        .env
        .push(("CARGO_NET_OFFLINE".into(), "true".into()));
    job.runner.step_limit = Duration::from_secs(300);
    let run = job.runner.run(&[
        ("traces", "transcripts/"),
        ("version", "0.0.0-unpublished.1"),
    ]);
    assert!(run.failed);
    assert_eq!(run.step("install").code, Some(1));
    assert_eq!(run.step("lint").code, None);
    assert_eq!(run.output("exit-code"), "");
    let log = run.log();
    assert!(
        log.contains("::error title=tracelint install::cannot install tracelint 0.0.0-unpublished.1 from crates.io"),
        "{log}"
    );
}

#[test]
fn a_runner_without_cargo_is_told_to_add_a_toolchain_step() {
    if require_tool("jq").is_none() {
        return;
    }
    let mut job = Job::new();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<_> = std::env::split_paths(&path)
        .filter(|d| !d.join("cargo").exists())
        .collect();
    if !kept.iter().any(|d| d.join("bash").is_file()) {
        #[allow(clippy::print_stderr)]
        {
            eprintln!("skipped: cargo shares a folder with bash on this machine");
        }
        return;
    }
    job.runner.base_path = Some(std::env::join_paths(kept).expect("a PATH"));
    let run = job.runner.run(&clean_with());
    assert!(run.failed);
    let log = run.log();
    assert!(
        log.contains("cargo is not on PATH: add a Rust toolchain step before this action (for example `uses: dtolnay/rust-toolchain@stable`)"),
        "{log}"
    );
}

/// Profile overrides that turn the release build into a debug-speed compile: what is tested is
/// the install path and the binary it yields, not the optimiser, and CI has 2 cores.
pub(crate) const FAST_RELEASE: &[(&str, &str)] = &[
    ("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0"),
    ("CARGO_PROFILE_RELEASE_LTO", "false"),
    ("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16"),
    ("CARGO_NET_OFFLINE", "true"),
];

/// The cargo target folder the real builds share (kept between runs, inside `target/`).
pub(crate) fn shared_target() -> std::path::PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("dist-install")
}

/// Held by every build into `shared_target()` for its whole run: two `cargo install`s (or one
/// and maturin) writing the same `release/tracelint` at once race on the file (one copies it
/// while the other replaces it: "failed to copy … No such file or directory").
pub(crate) fn shared_target_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[test]
fn real_cargo_install_builds_the_action_checkout() {
    if require_tool("jq").is_none() || require_tool("cargo").is_none() {
        return;
    }
    let _target = shared_target_lock();
    let mut job = Job::new();
    job.runner.base_path = Some(crate::support::path_without_tracelint(job.root.path()));
    job.runner.step_limit = Duration::from_secs(30 * 60);
    job.runner.env.push((
        "CARGO_TARGET_DIR".into(),
        shared_target().display().to_string(),
    ));
    for (k, v) in FAST_RELEASE {
        job.runner.env.push(((*k).into(), (*v).into()));
    }
    let run = job
        .runner
        .run(&[("traces", "transcripts/"), ("tools", "tools.json")]);
    let text = job.render(&run);
    assert_eq!(run.step("install").code, Some(0), "{text}");
    let bin = &run.step("install").outputs["bin"];
    assert!(
        bin.starts_with(&job.runner.tool_cache.display().to_string()),
        "{bin}"
    );
    assert!(text.contains("tracelint: cargo install --locked --path [ACTION_PATH] --root"));
    assert_eq!(run.step("lint").code, Some(2), "{text}");
    assert_eq!(run.output("hard-defects"), "1");
    let key = &run.step("key").outputs["key"];
    assert!(job.saved(key), "saved under {key}");
}
