//! The release rehearsal: what a user installs from a release, built here, installs and runs.
//! The wheel (`wheel.rs` builds it with maturin and installs it into a fresh virtual
//! environment) and the release archive (`scripts/package-release`, as the release workflow
//! packs it, unpacked after its `.sha256` file checks out) each run `demo` and a `check` of the
//! README's example, with exactly the output and exit code of the binary cargo built.

use std::path::Path;
use std::time::Duration;

use crate::support::{Output, repo, require_tool, run, tracelint_bin};

fn tracelint_in(bin: &Path, args: &[&str], path: Option<&Path>) -> Output {
    let mut cmd = std::process::Command::new(bin);
    cmd.args(args)
        .env("NO_COLOR", "1")
        .env_remove("TRACELINT_TEST")
        .current_dir(repo());
    if let Some(dir) = path {
        cmd.env("PATH", dir);
    }
    run(&mut cmd, Duration::from_secs(300))
}

/// `demo` and the README's `check` from `bin` (with PATH limited to `path` when given) give the
/// cargo-built binary's output and exit code.
pub(crate) fn runs_demo_and_check(bin: &Path, path: Option<&Path>) {
    let check = [
        "check",
        "fixtures/quickstart/transcript.json",
        "--tools",
        "fixtures/quickstart/tools.json",
    ];
    for args in [&["demo", "--runs", "3"][..], &check] {
        let got = tracelint_in(bin, args, path);
        let want = tracelint_in(&tracelint_bin(), args, None);
        assert_eq!(
            (got.code, &got.stdout, &got.stderr),
            (want.code, &want.stdout, &want.stderr),
            "{} {args:?} differs from the cargo-built binary",
            bin.display()
        );
        match args[0] {
            "demo" => {
                assert_eq!(got.code, Some(0), "{}", got.all());
                assert!(
                    got.stdout.contains(
                        " cases behave as expected: every rule catches its planted defect"
                    ),
                    "{}",
                    got.stdout
                );
            }
            _ => {
                // The README's example: two hard defects (R1, R6) and a tool error (R2a).
                assert_eq!(got.code, Some(2), "{}", got.all());
                for rule in [
                    "hard_defect R1 cancel_order",
                    "hard_defect R6 send_email",
                    "hard_event R2a send_email",
                ] {
                    assert!(got.stdout.contains(rule), "{rule}: {}", got.stdout);
                }
            }
        }
    }
}

#[test]
fn the_release_archive_checks_out_unpacks_and_runs() {
    let (Some(tar), Some(sha256sum)) = (require_tool("tar"), require_tool("sha256sum")) else {
        return;
    };
    let Some(packaged) = crate::download::packaged() else {
        return;
    };
    let archive = &packaged.good;
    let name = archive
        .file_name()
        .expect("a file name")
        .to_string_lossy()
        .into_owned();
    let folder = archive.parent().expect("a folder");
    // As the README says: `sha256sum --check tracelint-TARGET.tar.gz.sha256`.
    let checked = run(
        std::process::Command::new(&sha256sum)
            .args(["--check", &format!("{name}.sha256")])
            .current_dir(folder),
        Duration::from_secs(120),
    );
    assert_eq!(checked.code, Some(0), "{}", checked.all());
    assert_eq!(checked.stdout, format!("{name}: OK\n"));
    // A changed byte is caught.
    let scratch = tempfile::tempdir().expect("a temp dir");
    let copy = scratch.path().join(&name);
    let mut bytes = std::fs::read(archive).expect("read the archive");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&copy, bytes).expect("write the copy");
    std::fs::copy(
        folder.join(format!("{name}.sha256")),
        scratch.path().join(format!("{name}.sha256")),
    )
    .expect("copy the checksum");
    let tampered = run(
        std::process::Command::new(&sha256sum)
            .args(["--check", &format!("{name}.sha256")])
            .current_dir(scratch.path()),
        Duration::from_secs(120),
    );
    assert_ne!(tampered.code, Some(0), "{}", tampered.all());

    let unpacked = tempfile::tempdir().expect("a temp dir");
    let out = run(
        std::process::Command::new(&tar)
            .arg("xzf")
            .arg(archive)
            .current_dir(unpacked.path()),
        Duration::from_secs(120),
    );
    assert_eq!(out.code, Some(0), "{}", out.all());
    let top = name.trim_end_matches(".tar.gz");
    let dir = unpacked.path().join(top);
    for doc in ["LICENSE", "NOTICE", "README.md"] {
        assert!(dir.join(doc).is_file(), "{doc} is in the archive");
    }
    runs_demo_and_check(&dir.join("tracelint"), Some(&dir));
}
