//! The module in the eval frameworks and on Ray Data, each the real package (issue 43, items 5
//! and 6): `python/tests/eval`, run by pytest from the venv `scripts/test` makes of
//! `scripts/eval-peers.txt` (`TRACELINT_EVAL_VENV`: deepeval and Ray Data, whose pins cannot
//! share the tools venv), against the wheel maturin built (shared with `wheel.rs`), with the
//! promptfoo CLI `scripts/test` installs from npm (`TRACELINT_PROMPTFOO`) and the corpus
//! generator (`examples/gen_corpus`, built beside the binary; the Ray Data test lints 100,000 of its
//! traces). Without them the test says so and
//! passes, unless `TRACELINT_FULL_TEST` is set, where a missing one is a failure.

use std::path::PathBuf;
use std::time::Duration;

use crate::support::{
    assert_pytest_passed, dev_cache, pip_install, repo, require, run, tracelint_bin,
};
use crate::wheel::{built_wheel, wheel_file};

fn from_env(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

#[test]
fn deepeval_promptfoo_and_ray_data_run_the_module() {
    let eval_venv = from_env("TRACELINT_EVAL_VENV").unwrap_or_else(|| dev_cache().join("eval"));
    let Some(python) = require(
        "the eval peers' venv (TRACELINT_EVAL_VENV)",
        Some(eval_venv.join("bin/python")).filter(|p| p.is_file()),
    ) else {
        return;
    };
    let Some(promptfoo) = require(
        "the promptfoo CLI (TRACELINT_PROMPTFOO)",
        from_env("TRACELINT_PROMPTFOO").filter(|p| p.is_file()),
    ) else {
        return;
    };
    let generator = tracelint_bin()
        .parent()
        .expect("the binary's folder")
        .join("examples/gen_corpus");
    let Some(generator) = require(
        "the corpus generator (cargo build --example gen_corpus)",
        Some(generator).filter(|p| p.is_file()),
    ) else {
        return;
    };
    let Some(dir) = built_wheel() else { return };

    // The wheel's files, importable through PYTHONPATH.
    let scratch = tempfile::tempdir().expect("a temp dir");
    let site = scratch.path().join("site");
    let installed = run(
        pip_install(&python, &wheel_file(dir))
            .arg("--target")
            .arg(&site),
        Duration::from_secs(300),
    );
    assert_eq!(installed.code, Some(0), "pip install: {}", installed.all());

    let tests = run(
        std::process::Command::new(&python)
            .args([
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "-v",
                // The output of passed tests too: the Ray Data test's figures.
                "-rP",
                "python/tests/eval",
            ])
            .env("PYTHONPATH", &site)
            .env("TRACELINT_CLI", tracelint_bin())
            .env("TRACELINT_PROMPTFOO", &promptfoo)
            .env("TRACELINT_GEN_CORPUS", &generator)
            // deepeval's pytest plugin makes its folder in the working directory unless told.
            .env("DEEPEVAL_CACHE_FOLDER", scratch.path().join("deepeval"))
            .env("DEEPEVAL_TELEMETRY_OPT_OUT", "1")
            .env("RAY_USAGE_STATS_ENABLED", "0")
            .env("NO_COLOR", "1")
            .current_dir(repo()),
        Duration::from_secs(20 * 60),
    );
    assert_pytest_passed(
        &tests,
        &[
            "test_deepeval.py::test_assert_test_raises_on_a_hard_defect_and_passes_a_clean_case",
            "test_promptfoo.py::test_promptfoo_eval_fails_a_hard_defect_and_passes_a_clean_trace",
            "test_ray_data.py::test_ray_data_counts_equal_check_and_the_shards_merge_into_checks_sarif",
        ],
    );
    // Traces per second per core, on Ray and with `check`: told, not asserted (the machine is
    // shared, and these are the test profile's unoptimised builds).
    let figures: Vec<&str> = tests
        .stdout
        .lines()
        .filter(|l| l.starts_with("ray data: "))
        .collect();
    assert_eq!(figures.len(), 1, "{}", tests.all());
    #[allow(clippy::print_stderr)]
    {
        eprintln!("{}", figures[0]);
    }
}
