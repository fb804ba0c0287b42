//! End-to-end CLI cases as data (`tests/cmd/*.toml`): arguments, exit code, stdout, stderr; and
//! the ```console blocks of `README.md` and `docs/*.md`, run from the repository root.
//! Bless changes with `TRYCMD=overwrite cargo test --test cli`.

#[test]
fn cli_cases() {
    let cases = trycmd::TestCases::new();
    cases
        .env("NO_COLOR", "1")
        .env("TRACELINT_TEST", "1")
        // Cases run by a helper (a loopback server, the action's step script) call tracelint
        // through this.
        .env("TRACELINT_BIN", env!("CARGO_BIN_EXE_tracelint"))
        .env(
            "TRACELINT_ACTION_RUN",
            concat!(env!("CARGO_MANIFEST_DIR"), "/action/run.sh"),
        );
    for helper in ["python3", "bash"] {
        if let Some(path) = on_path(helper) {
            cases.register_bin(helper, path);
        }
    }
    cases.case("tests/cmd/*.toml");
    // The console blocks of the README and the documentation pages are runs too.
    cases.case("README.md");
    cases.case("docs/*.md");
}

/// A program on `PATH`.
fn on_path(name: &str) -> Option<std::path::PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}
