//! The library as a user's program sees it (issue 33): `tests/outside` depends on the crate by
//! path, with no features, so only the public API is within its reach; it lints a directory
//! with a rule selection and a fail-on, OTel spans held in memory and a half-broken file, and
//! asserts what it gets. Built in its own target folder (the outer `cargo test` holds `target/`).

use std::process::Command;

#[test]
fn a_program_outside_the_crate_uses_the_public_api() {
    let root = env!("CARGO_MANIFEST_DIR");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["run", "--quiet", "--offline", "-p", "tracelint-outside", "--target-dir"])
        .arg(format!("{root}/target/outside"))
        .arg("--")
        .arg(root)
        .current_dir(root)
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    insta::assert_snapshot!(stdout);
}
