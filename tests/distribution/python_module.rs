//! The Python module in the wheel: the `tracelint-rs` wheel `maturin build` made (shared with
//! `wheel.rs`), installed into a fresh venv with pip, offline, gives `import tracelint_rs` and the
//! `tracelint` command, and so does `pip install .` from this repository (maturin from the tools
//! venv as the build backend, offline, into the same cargo target); then the module's own tests (`python/tests`, real pytest from the venv
//! `scripts/test` makes) and its doctests run against that install: `Report.to_json()` byte for
//! byte against the binary cargo built on every file under `fixtures/real/`, every rendering,
//! every kind of source, the options, OTel and Phoenix spans, streaming, and the pytest plugin on
//! a failing and a passing trace, and the Inspect AI scorer in a real Inspect eval.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::install::{FAST_RELEASE, shared_target, shared_target_lock};
use crate::support::{
    Output, assert_pytest_passed, pip_install, repo, require_tool, run, tracelint_bin,
};
use crate::wheel::{built_wheel, wheel_file};

const OURS: &str = env!("CARGO_PKG_VERSION");

fn ok(cmd: &mut std::process::Command, what: &str, limit: Duration) -> Output {
    let out = run(cmd, limit);
    assert_eq!(out.code, Some(0), "{what}: {}", out.all());
    out
}

/// The venv's `site-packages` (one `lib/python3.X`).
fn site_packages(venv: &Path) -> PathBuf {
    let lib = venv.join("lib");
    let found: Vec<PathBuf> = std::fs::read_dir(&lib)
        .expect("the venv's lib")
        .map(|e| e.expect("an entry").path().join("site-packages"))
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    found[0].clone()
}

/// PATH with `dir` first.
fn with_path(dir: &Path) -> std::ffi::OsString {
    std::env::join_paths(
        std::iter::once(dir.to_path_buf()).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )),
    )
    .expect("a PATH")
}

#[test]
fn the_wheel_gives_the_module_and_the_command_and_its_tests_pass() {
    let Some(python) = require_tool("python3") else {
        return;
    };
    let Some(pytest) = require_tool("pytest") else {
        return;
    };
    let Some(dir) = built_wheel() else { return };
    let wheel = wheel_file(dir);

    let scratch = tempfile::tempdir().expect("a temp dir");
    let venv = scratch.path().join("venv");
    ok(
        std::process::Command::new(&python)
            .args(["-m", "venv"])
            .arg(&venv),
        "python3 -m venv",
        Duration::from_secs(300),
    );
    ok(
        &mut pip_install(&venv.join("bin/python"), &wheel),
        "pip install the wheel",
        Duration::from_secs(300),
    );

    // The module, from the venv (not from the source tree), with the wheel's version.
    let import = ok(
        std::process::Command::new(venv.join("bin/python"))
            .args([
                "-c",
                "import tracelint_rs, tracelint_rs._native as n; print(tracelint_rs.__version__); print(n.__file__)",
            ])
            .current_dir(scratch.path()),
        "import tracelint_rs",
        Duration::from_secs(60),
    );
    let mut lines = import.stdout.lines();
    assert_eq!(lines.next(), Some(OURS), "{}", import.all());
    let native = lines.next().expect("the module's file");
    assert!(
        native.starts_with(&venv.display().to_string()) && native.ends_with(".abi3.so"),
        "{native}"
    );

    // The command: usage errors are 3, a hard defect 2, as from the binary.
    let command = venv.join("bin/tracelint");
    let in_venv = |args: &[&str]| {
        let mut cmd = std::process::Command::new(&command);
        cmd.args(args)
            .env("PATH", venv.join("bin"))
            .env("NO_COLOR", "1")
            .current_dir(repo());
        run(&mut cmd, Duration::from_secs(120))
    };
    assert_eq!(in_venv(&["--no-such-flag"]).code, Some(3));
    let check = in_venv(&[
        "check",
        "fixtures/quickstart/transcript.json",
        "--tools",
        "fixtures/quickstart/tools.json",
    ]);
    let mut reference = std::process::Command::new(tracelint_bin());
    reference
        .args([
            "check",
            "fixtures/quickstart/transcript.json",
            "--tools",
            "fixtures/quickstart/tools.json",
        ])
        .env("NO_COLOR", "1")
        .current_dir(repo());
    let expected = run(&mut reference, Duration::from_secs(120));
    assert_eq!(check.code, Some(2), "{}", check.all());
    assert_eq!(
        (check.code, &check.stdout),
        (expected.code, &expected.stdout)
    );

    // `pip install .`, as the README says, into another fresh venv: maturin (the build backend)
    // from the tools venv, no index; the target the wheel was built into makes it quick.
    let tools_bin = pytest.parent().expect("the tools venv's bin");
    let tools_venv = tools_bin.parent().expect("the tools venv");
    let from_source = scratch.path().join("from-source");
    ok(
        std::process::Command::new(&python)
            .args(["-m", "venv"])
            .arg(&from_source),
        "python3 -m venv",
        Duration::from_secs(300),
    );
    {
        let _target = shared_target_lock();
        let mut pip = std::process::Command::new(from_source.join("bin/python"));
        pip.args([
            "-m",
            "pip",
            "install",
            "--no-build-isolation",
            "--no-index",
            "--no-deps",
            "--disable-pip-version-check",
            ".",
        ])
        .env("PYTHONPATH", site_packages(tools_venv))
        .env("PATH", with_path(tools_bin))
        .env("CARGO_TARGET_DIR", shared_target())
        .env("NO_COLOR", "1")
        .current_dir(repo());
        for (k, v) in FAST_RELEASE {
            pip.env(k, v);
        }
        ok(&mut pip, "pip install .", Duration::from_secs(30 * 60));
    }
    let version = ok(
        std::process::Command::new(from_source.join("bin/python"))
            .args(["-c", "import tracelint_rs; print(tracelint_rs.__version__)"])
            .current_dir(scratch.path()),
        "import tracelint_rs after pip install .",
        Duration::from_secs(60),
    );
    assert_eq!(version.stdout.trim(), OURS);
    let version = ok(
        std::process::Command::new(from_source.join("bin/tracelint"))
            .arg("--version")
            .env("PATH", from_source.join("bin")),
        "tracelint --version after pip install .",
        Duration::from_secs(60),
    );
    assert_eq!(version.stdout, format!("tracelint {OURS}\n"));

    // The module's tests and doctests: pytest from the tools venv, the module from the fresh
    // venv (PYTHONPATH: its site-packages, so the plugin's entry point is found there too).
    let tools_python = pytest.with_file_name("python");
    let path = std::env::join_paths(std::iter::once(venv.join("bin")).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("a PATH");
    // The peers of the eval tests (deepeval, Ray Data, promptfoo) are in a venv of their own:
    // those tests, and the modules that import them, run in eval_peers.rs.
    let module = site_packages(&venv).join("tracelint_rs");
    let mut ignored = std::ffi::OsString::from("--ignore=");
    ignored.push(module.join("deepeval_metric.py"));
    let mut ignored_too = std::ffi::OsString::from("--ignore=");
    ignored_too.push(module.join("ray_data.py"));
    let tests = ok(
        std::process::Command::new(&tools_python)
            .args([
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "-v",
                "python/tests",
                "--ignore=python/tests/eval",
            ])
            .arg(ignored)
            .arg(ignored_too)
            .args(["--doctest-modules", "--pyargs", "tracelint_rs"])
            .env("PYTHONPATH", site_packages(&venv))
            .env("PATH", path)
            .env("TRACELINT_CLI", tracelint_bin())
            .env("NO_COLOR", "1")
            .current_dir(repo()),
        "pytest python/tests",
        Duration::from_secs(20 * 60),
    );
    // The acceptance tests ran (by name), and the API's doctests from the installed module.
    assert_pytest_passed(
        &tests,
        &[
            "test_api.py::test_to_json_is_the_commands_json_on_every_real_fixture",
            "test_plugin.py::test_collects_one_item_per_trace_named_by_trace",
            "test_plugin.py::test_assert_clean_fails_with_the_text_report",
            "test_inspect.py::test_the_scorer_fails_a_hard_defect_and_passes_a_clean_sample",
            "__init__.py::tracelint_rs.Linter",
            "__init__.py::tracelint_rs.Linter.lint_otel_spans",
            "promptfoo_assert.py::tracelint_rs.promptfoo_assert.get_assert",
        ],
    );
}
