//! Issue 29, acceptance 1: `maturin build --release` (maturin from PyPI, in the venv that
//! `scripts/test` makes) turns the root `pyproject.toml` into the `tracelint-rs` wheel; installed
//! into a fresh venv with pip, offline, its `tracelint` (the command line run through the Python
//! module) reports our version and runs the demo exactly as the binary cargo built. The wheel is built once per test process and shared with
//! the pre-commit test of the wheel route (`precommit.rs`).
//!
//! Cost: the build goes to the cargo target folder the other real builds share
//! (`install::shared_target`) with their debug-speed profile overrides, so the dependencies
//! compiled for `cargo install` and the `language: rust` hook are reused, not rebuilt.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use crate::install::{FAST_RELEASE, shared_target, shared_target_lock};
use crate::support::{Output, pip_install, repo, require_tool, run, tracelint_bin};

const OURS: &str = env!("CARGO_PKG_VERSION");

/// The folder holding the one wheel `maturin build --release` made (None: maturin is missing and
/// the caller skips, as `require_tool` said).
pub(crate) fn built_wheel() -> Option<&'static Path> {
    let maturin = require_tool("maturin")?;
    static WHEEL: OnceLock<PathBuf> = OnceLock::new();
    Some(WHEEL.get_or_init(|| {
        let _target = shared_target_lock();
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wheel");
        let _ = std::fs::remove_dir_all(&out);
        let mut cmd = std::process::Command::new(maturin);
        cmd.args(["build", "--release", "--locked", "--out"])
            .arg(&out)
            .current_dir(repo())
            .env("CARGO_TARGET_DIR", shared_target())
            .env("NO_COLOR", "1");
        for (k, v) in FAST_RELEASE {
            cmd.env(k, v);
        }
        let done = run(&mut cmd, Duration::from_secs(30 * 60));
        assert_eq!(done.code, Some(0), "maturin build: {}", done.all());
        out
    }))
}

/// The wheel file in `dir` (exactly one).
pub(crate) fn wheel_file(dir: &Path) -> PathBuf {
    let wheels: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read the wheel folder")
        .map(|e| e.expect("an entry").path())
        .collect();
    assert_eq!(wheels.len(), 1, "one wheel: {wheels:?}");
    wheels[0].clone()
}

fn ok(cmd: &mut std::process::Command, what: &str) -> Output {
    let out = run(cmd, Duration::from_secs(300));
    assert_eq!(out.code, Some(0), "{what}: {}", out.all());
    out
}

#[test]
fn maturin_wheel_installs_into_a_fresh_venv_and_runs() {
    let Some(python) = require_tool("python3") else {
        return;
    };
    let Some(dir) = built_wheel() else { return };
    let wheel = wheel_file(dir);
    let name = wheel
        .file_name()
        .expect("a file name")
        .to_string_lossy()
        .into_owned();
    // The module and the command: the stable ABI of Python 3.10 on, this platform.
    let prefix = format!("tracelint_rs-{OURS}-cp310-abi3-");
    assert!(
        name.starts_with(&prefix) && name.ends_with(&format!("_{}.whl", std::env::consts::ARCH)),
        "{name}"
    );

    let scratch = tempfile::tempdir().expect("a temp dir");
    let venv = scratch.path().join("venv");
    ok(
        std::process::Command::new(&python)
            .args(["-m", "venv"])
            .arg(&venv),
        "python3 -m venv",
    );
    ok(
        &mut pip_install(&venv.join("bin/python"), &wheel),
        "pip install the wheel",
    );
    let show = ok(
        std::process::Command::new(venv.join("bin/python"))
            .args(["-m", "pip", "show", "tracelint-rs"])
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1"),
        "pip show",
    );
    assert!(
        show.stdout.contains("Name: tracelint-rs\n"),
        "{}",
        show.all()
    );
    assert!(
        show.stdout.contains(&format!("Version: {OURS}\n")),
        "{}",
        show.all()
    );

    // The venv's own script, with no other tracelint reachable.
    let installed = venv.join("bin/tracelint");
    assert!(installed.is_file(), "the wheel installs bin/tracelint");
    let in_venv = |args: &[&str]| {
        let mut cmd = std::process::Command::new(&installed);
        cmd.args(args)
            .env("PATH", venv.join("bin"))
            .env("NO_COLOR", "1")
            .current_dir(scratch.path());
        run(&mut cmd, Duration::from_secs(120))
    };
    let version = in_venv(&["--version"]);
    assert_eq!(version.code, Some(0), "{}", version.all());
    assert_eq!(version.stdout, format!("tracelint {OURS}\n"));

    let demo = in_venv(&["demo"]);
    assert_eq!(demo.code, Some(0), "{}", demo.all());
    let mut reference = std::process::Command::new(tracelint_bin());
    reference
        .arg("demo")
        .env("NO_COLOR", "1")
        .current_dir(scratch.path());
    let expected = run(&mut reference, Duration::from_secs(120));
    assert_eq!(expected.code, Some(0), "{}", expected.all());
    assert!(
        demo.stdout
            .contains(" cases behave as expected: every rule catches its planted defect"),
        "the demo's verdict: {}",
        demo.stdout
    );
    assert_eq!(
        demo.stdout, expected.stdout,
        "the wheel's demo is the built binary's"
    );
    // The release rehearsal: demo and the README's check, from the venv's own script.
    crate::rehearsal::runs_demo_and_check(&installed, Some(&venv.join("bin")));
}
