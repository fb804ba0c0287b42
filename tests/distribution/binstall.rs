//! Issue 29: the release's pieces agree with each other. The build matrix of
//! `.github/workflows/release.yml` is the five platforms the issue names; for each, what
//! `scripts/package-release` makes (run here on a stand-in binary) is an archive named as
//! Cargo.toml's `[package.metadata.binstall]` `pkg-url` says, holding the binary where its
//! `bin-dir` says, with a `.sha256` file that `sha256sum --check` accepts. cargo-binstall's
//! templates are filled in here the way its documentation describes (`{ name }`, `{ version }`,
//! `{ repo }`, `{ target }`, `{ bin }`, `{ binary-ext }`).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crate::support::{repo, require_tool, run};

fn manifest() -> toml::Table {
    let text = std::fs::read_to_string(repo().join("Cargo.toml")).expect("read Cargo.toml");
    text.parse().expect("Cargo.toml is TOML")
}

/// The build matrix's targets.
fn release_targets() -> Vec<String> {
    let wf = crate::runner::yaml(&repo().join(".github/workflows/release.yml"));
    wf["jobs"]["build"]["strategy"]["matrix"]["include"]
        .as_array()
        .expect("a matrix include list")
        .iter()
        .map(|e| e["target"].as_str().expect("a target").to_owned())
        .collect()
}

fn fill(template: &str, vars: &BTreeMap<&str, String>) -> String {
    let re = regex::Regex::new(r"\{\s*([a-z-]+)\s*\}").expect("a regex");
    re.replace_all(template, |c: &regex::Captures<'_>| {
        vars.get(&c[1])
            .unwrap_or_else(|| panic!("`{}`: not a variable this test knows", &c[0]))
            .clone()
    })
    .into_owned()
}

/// The archive's member names (tar.gz or zip), listed by Python's own readers.
fn members(python: &Path, archive: &Path) -> Vec<String> {
    let code = "import sys, tarfile, zipfile\n\
                p = sys.argv[1]\n\
                names = zipfile.ZipFile(p).namelist() if p.endswith('.zip') else tarfile.open(p).getnames()\n\
                print('\\n'.join(names))";
    let out = run(
        std::process::Command::new(python)
            .args(["-c", code])
            .arg(archive),
        Duration::from_secs(60),
    );
    assert_eq!(out.code, Some(0), "{}", out.all());
    out.stdout.lines().map(str::to_owned).collect()
}

#[test]
fn release_matrix_assets_and_binstall_metadata_agree() {
    let Some(python) = require_tool("python3") else {
        return;
    };
    let targets = release_targets();
    assert_eq!(
        targets,
        [
            "x86_64-unknown-linux-gnu",
            "aarch64-unknown-linux-gnu",
            "x86_64-apple-darwin",
            "aarch64-apple-darwin",
            "x86_64-pc-windows-msvc",
        ]
    );
    let cargo = manifest();
    let package = cargo["package"].as_table().expect("[package]");
    let repository = package["repository"].as_str().expect("repository");
    let meta = package["metadata"]["binstall"]
        .as_table()
        .expect("[package.metadata.binstall]");
    let version = env!("CARGO_PKG_VERSION");

    let scratch = tempfile::tempdir().expect("a temp dir");
    let stand_in = scratch.path().join("tracelint");
    std::fs::write(&stand_in, b"#!/bin/sh\necho stand-in\n").expect("write");
    for target in &targets {
        let windows = target.contains("windows");
        let mut table = meta.clone();
        if let Some(o) = meta
            .get("overrides")
            .and_then(|o| o.get(target.as_str()))
            .and_then(toml::Value::as_table)
        {
            table.extend(o.clone());
        }
        let vars = BTreeMap::from([
            ("name", "tracelint".to_owned()),
            ("version", version.to_owned()),
            ("repo", repository.to_owned()),
            ("target", target.clone()),
            ("bin", "tracelint".to_owned()),
            ("binary-ext", if windows { ".exe" } else { "" }.to_owned()),
        ]);
        let url = fill(table["pkg-url"].as_str().expect("pkg-url"), &vars);
        let bin_dir = fill(table["bin-dir"].as_str().expect("bin-dir"), &vars);
        let fmt = table["pkg-fmt"].as_str().expect("pkg-fmt");
        assert_eq!(fmt, if windows { "zip" } else { "tgz" }, "{target}");

        let out = scratch.path().join(target);
        let mut cmd = std::process::Command::new(&python);
        cmd.arg(repo().join("scripts/package-release"))
            .arg(target)
            .arg(&stand_in)
            .arg(&out);
        let done = run(&mut cmd, Duration::from_secs(60));
        assert_eq!(done.code, Some(0), "{}", done.all());
        let archive = std::path::PathBuf::from(done.stdout.trim());
        let name = archive
            .file_name()
            .expect("a file name")
            .to_string_lossy()
            .into_owned();
        assert_eq!(
            url,
            format!("{repository}/releases/download/v{version}/{name}"),
            "binstall's URL for {target} is the asset the release uploads"
        );
        let inside = members(&python, &archive);
        assert!(
            inside.contains(&bin_dir),
            "{target}: {bin_dir} in {inside:?}"
        );
        for doc in ["LICENSE", "NOTICE", "README.md"] {
            assert!(
                inside.contains(&format!("tracelint-{target}/{doc}")),
                "{target}: {doc} in {inside:?}"
            );
        }
        if require_tool("sha256sum").is_some() {
            let mut check = std::process::Command::new("sha256sum");
            check
                .args(["--check", "--strict"])
                .arg(format!("{name}.sha256"))
                .current_dir(&out);
            let checked = run(&mut check, Duration::from_secs(60));
            assert_eq!(checked.code, Some(0), "{}", checked.all());
        }
    }
}

#[test]
fn package_release_is_reproducible() {
    let Some(python) = require_tool("python3") else {
        return;
    };
    let scratch = tempfile::tempdir().expect("a temp dir");
    let stand_in = scratch.path().join("tracelint");
    std::fs::write(&stand_in, b"#!/bin/sh\necho stand-in\n").expect("write");
    let make = |dir: &str| {
        let out = scratch.path().join(dir);
        let mut cmd = std::process::Command::new(&python);
        cmd.arg(repo().join("scripts/package-release"))
            .args(["aarch64-apple-darwin".as_ref(), stand_in.as_os_str()])
            .arg(&out);
        let done = run(&mut cmd, Duration::from_secs(60));
        assert_eq!(done.code, Some(0), "{}", done.all());
        std::fs::read(out.join("tracelint-aarch64-apple-darwin.tar.gz.sha256")).expect("read")
    };
    let first = make("a");
    // Another mtime on the input must not change the archive.
    std::fs::File::options()
        .write(true)
        .open(&stand_in)
        .expect("open the stand-in")
        .set_modified(std::time::SystemTime::now() + Duration::from_secs(3600))
        .expect("set its mtime");
    assert_eq!(first, make("b"), "the same inputs, the same archive");
}
