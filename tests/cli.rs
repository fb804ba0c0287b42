//! End-to-end CLI cases as data (`tests/cmd/*.toml`): arguments, exit code, stdout, stderr.
//! Bless changes with `TRYCMD=overwrite cargo test --test cli`.

#[test]
fn cli_cases() {
    trycmd::TestCases::new()
        .env("NO_COLOR", "1")
        .env("TRACELINT_TEST", "1")
        .case("tests/cmd/*.toml");
}
