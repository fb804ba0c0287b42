//! Issue 29, acceptance 2: the install step downloads before it builds. A fake release is served
//! on loopback (`release_server`): the binary these tests built (a copy without its debug info,
//! 28 MB instead of 160: packing it is most of these tests' cost), packaged by the release
//! workflow's own `scripts/package-release`, its `.sha256` file, and a tampered copy (the same
//! binary with bytes appended: a valid archive of a binary that runs, so only the checksum can
//! tell). The good asset is verified and used with no cargo call, for a `version:` input and for
//! a released ref (the release's `source-digest.txt` equals the checkout's); the tampered one
//! fails the step and installs nothing; with no asset for the runner, cargo builds as before.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use crate::job::Job;
use crate::support::{copy_tree, repo, require_tool, run, tracelint_bin};

const TARGET: &str = "x86_64-unknown-linux-gnu";
const ASSET: &str = "tracelint-x86_64-unknown-linux-gnu.tar.gz";
const OURS: &str = env!("CARGO_PKG_VERSION");

fn sha256_of(path: &Path) -> String {
    let out = run(
        std::process::Command::new("sha256sum").arg(path),
        Duration::from_secs(120),
    );
    assert_eq!(out.code, Some(0), "sha256sum: {}", out.all());
    out.stdout
        .split_whitespace()
        .next()
        .expect("a digest")
        .to_owned()
}

/// The two archives, made once per test process (packaging a binary takes seconds).
pub(crate) struct Packaged {
    /// The binary in the good archive.
    binary: PathBuf,
    /// The good archive and its `.sha256` file, in one folder.
    pub(crate) good: PathBuf,
    good_sha: String,
    /// An archive of the same name holding the tampered binary.
    tampered: PathBuf,
    tampered_sha: String,
}

fn package(python: &Path, binary: &Path, out: &Path) -> PathBuf {
    let mut cmd = std::process::Command::new(python);
    cmd.arg(repo().join("scripts/package-release")).args([
        TARGET.as_ref(),
        binary.as_os_str(),
        out.as_os_str(),
    ]);
    let done = run(&mut cmd, Duration::from_secs(600));
    assert_eq!(done.code, Some(0), "package-release: {}", done.all());
    let archive = out.join(ASSET);
    assert_eq!(done.stdout.trim(), archive.display().to_string());
    archive
}

pub(crate) fn packaged() -> Option<&'static Packaged> {
    let python = require_tool("python3")?;
    let strip = require_tool("strip")?;
    static PACKAGED: OnceLock<Packaged> = OnceLock::new();
    Some(PACKAGED.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fake-release");
        let _ = std::fs::remove_dir_all(&dir);
        let binary = dir.join("good-bin/tracelint");
        std::fs::create_dir_all(binary.parent().expect("a folder")).expect("create a folder");
        let out = run(
            std::process::Command::new(strip)
                .arg("--strip-debug")
                .arg("-o")
                .arg(&binary)
                .arg(tracelint_bin()),
            Duration::from_secs(120),
        );
        assert_eq!(out.code, Some(0), "strip: {}", out.all());
        let good = package(&python, &binary, &dir.join("good"));
        let bin = dir.join("tampered-bin/tracelint");
        copy_tree(&binary, &bin);
        let mut bytes = std::fs::read(&bin).expect("read the copy");
        bytes.extend_from_slice(b"\0tampered\0");
        std::fs::write(&bin, bytes).expect("tamper with the copy");
        let tampered = package(&python, &bin, &dir.join("tampered"));
        let sha_file = std::fs::read_to_string(good.with_file_name(format!("{ASSET}.sha256")))
            .expect("the .sha256 file");
        let good_sha = sha256_of(&good);
        assert_eq!(
            sha_file,
            format!("{good_sha}  {ASSET}\n"),
            "sha256sum format"
        );
        Packaged {
            binary,
            good_sha,
            tampered_sha: sha256_of(&tampered),
            good,
            tampered,
        }
    }))
}

/// Publish release `v{version}` with the good archive's `.sha256` file and `archive` beside it.
fn publish(job: &Job, version: &str, archive: &Path, good: &Path) {
    let dir = job.release.dir.join(format!("v{version}"));
    copy_tree(archive, &dir.join(ASSET));
    let sha = good.with_file_name(format!("{ASSET}.sha256"));
    copy_tree(&sha, &dir.join(format!("{ASSET}.sha256")));
}

fn clean_with() -> Vec<(&'static str, &'static str)> {
    vec![
        ("traces", "transcripts/clean.jsonl"),
        ("tools", "tools.json"),
    ]
}

fn tools_present() -> bool {
    require_tool("jq").is_some() && require_tool("curl").is_some()
}

/// `digest` of action/install.sh over this checkout: what the release workflow publishes.
fn checkout_digest() -> String {
    digest_of(repo())
}

fn digest_of(dir: &Path) -> String {
    let mut cmd = std::process::Command::new("bash");
    cmd.arg(repo().join("action/install.sh"))
        .arg("digest")
        .current_dir(std::env::temp_dir())
        .env("GITHUB_ACTION_PATH", dir);
    let out = run(&mut cmd, Duration::from_secs(120));
    assert_eq!(out.code, Some(0), "install.sh digest: {}", out.all());
    let digest = out.stdout.trim().to_owned();
    assert_eq!(digest.len(), 64, "{digest}");
    digest
}

#[test]
fn version_input_uses_the_verified_release_asset_without_cargo() {
    if !tools_present() {
        return;
    }
    let Some(p) = packaged() else { return };
    let mut job = Job::new();
    publish(&job, OURS, &p.good, &p.good);
    let calls = job.fake_cargo("exit 97");
    let mut with = clean_with();
    with.push(("version", OURS));
    let run = job.runner.run(&with);
    let text = job.render(&run);

    assert!(!run.failed, "{text}");
    assert!(!calls.exists(), "cargo ran:\n{text}");
    let log = run.step("install").stdout.clone();
    assert!(
        log.contains(&format!(
            "tracelint: {ASSET} SHA-256 {} verified",
            p.good_sha
        )),
        "{log}"
    );
    assert_eq!(
        job.release.requests(),
        [
            format!("/v{OURS}/{ASSET}.sha256"),
            format!("/v{OURS}/{ASSET}")
        ]
    );
    let bin = PathBuf::from(&run.step("install").outputs["bin"]);
    assert!(bin.starts_with(&job.runner.tool_cache), "{bin:?}");
    assert_eq!(
        std::fs::read(&bin).expect("the installed binary"),
        std::fs::read(&p.binary).expect("the packaged binary"),
        "the asset's binary is what was installed"
    );
    assert_eq!(run.step("lint").code, Some(0), "{text}");
    let key = &run.step("key").outputs["key"];
    assert_eq!(key, &format!("tracelint-Linux-X64-release-{OURS}"));
    assert!(job.saved(key), "saved under {key}");
    insta::assert_snapshot!(text);

    // A later job restores the binary from the cache: no download, no cargo.
    std::fs::remove_dir_all(&job.runner.tool_cache).expect("clear the tool cache");
    let again = job.runner.run(&with);
    assert!(!again.failed, "{}", job.render(&again));
    assert_eq!(again.step("restore").outputs["cache-hit"], "true");
    assert_eq!(job.release.requests().len(), 2, "no new download");
    assert!(!calls.exists());
}

#[test]
fn a_released_ref_downloads_its_asset_and_any_other_ref_is_built() {
    if !tools_present() {
        return;
    }
    let Some(p) = packaged() else { return };
    let mut job = Job::new();
    publish(&job, OURS, &p.good, &p.good);
    let digest_file = job.release.dir.join(format!("v{OURS}/source-digest.txt"));
    std::fs::write(&digest_file, format!("{}\n", checkout_digest())).expect("write");
    let calls = crate::install::installing_cargo(&mut job);

    let run = job.runner.run(&clean_with());
    let text = job.render(&run);
    assert!(!run.failed, "{text}");
    assert!(!calls.exists(), "cargo ran for a released ref:\n{text}");
    assert!(
        run.log().contains(&format!(
            "tracelint: this checkout has the sources of release v{OURS}\n"
        )),
        "{text}"
    );
    assert_eq!(
        job.release.requests(),
        [
            format!("/v{OURS}/source-digest.txt"),
            format!("/v{OURS}/{ASSET}.sha256"),
            format!("/v{OURS}/{ASSET}")
        ]
    );
    assert_eq!(run.step("lint").code, Some(0), "{text}");

    // The same version's release, built from other sources: this checkout is not it.
    std::fs::write(&digest_file, format!("{}\n", "0".repeat(64))).expect("write");
    std::fs::remove_dir_all(&job.runner.tool_cache).expect("clear the tool cache");
    std::fs::remove_dir_all(&job.runner.cache_store).expect("clear the cache");
    let before = job.release.requests().len();
    let run = job.runner.run(&clean_with());
    let text = job.render(&run);
    assert!(!run.failed, "{text}");
    assert!(
        run.log().contains(&format!(
            "tracelint: this checkout's sources differ from release v{OURS}'s: building it\n"
        )),
        "{text}"
    );
    let root = &run.step("key").outputs["root"];
    assert_eq!(
        std::fs::read_to_string(&calls).expect("cargo ran"),
        crate::install::path_install(root)
    );
    assert_eq!(
        crate::install::cargo_folders(&calls),
        format!("{}\n", repo().display())
    );
    assert_eq!(
        job.release.requests()[before..],
        [format!("/v{OURS}/source-digest.txt")],
        "no asset is downloaded for another ref"
    );
}

#[test]
fn a_tampered_asset_fails_the_step_and_installs_nothing() {
    if !tools_present() {
        return;
    }
    let Some(p) = packaged() else { return };
    assert_ne!(p.good_sha, p.tampered_sha);
    let mut job = Job::new();
    publish(&job, OURS, &p.tampered, &p.good);
    let calls = job.fake_cargo("exit 97");
    let mut with = clean_with();
    with.push(("version", OURS));
    let run = job.runner.run(&with);
    let text = job.render(&run);

    assert!(run.failed, "{text}");
    assert_eq!(run.step("install").code, Some(1), "{text}");
    let base = job.release.base();
    let error = format!(
        "::error title=tracelint install::SHA-256 mismatch for {base}/v{OURS}/{ASSET}: the file's is {}, its .sha256 file says {}. The download is corrupt or was tampered with; nothing was installed\n",
        p.tampered_sha, p.good_sha
    );
    assert!(run.log().contains(&error), "{text}");
    assert!(
        !calls.exists(),
        "a failed check must not fall back to cargo"
    );
    assert_eq!(
        run.step("lint").code,
        None,
        "no lint after a failed install"
    );
    assert_eq!(run.step("save").code, None, "nothing is cached");
    let root = PathBuf::from(&run.step("key").outputs["root"]);
    assert!(
        !root.join("bin/tracelint").exists(),
        "nothing was installed"
    );
    assert!(
        crate::support::files_under(&job.runner.cache_store).is_empty(),
        "nothing is cached"
    );
    assert_eq!(run.output("exit-code"), "");
    insta::assert_snapshot!(text);
}

#[test]
fn with_no_asset_for_the_runner_cargo_builds_as_before() {
    if !tools_present() {
        return;
    }
    let Some(p) = packaged() else { return };
    let mut job = Job::new();
    publish(&job, OURS, &p.good, &p.good);
    let calls = crate::install::installing_cargo(&mut job);
    let mut with = clean_with();
    with.push(("version", OURS));

    // The release has no Linux ARM64 asset: asked for, not found, built.
    job.runner.env.push(("RUNNER_ARCH".into(), "ARM64".into()));
    let run = job.runner.run(&with);
    let text = job.render(&run);
    assert!(!run.failed, "{text}");
    assert!(
        run.log().contains(&format!(
            "tracelint: release v{OURS} has no tracelint-aarch64-unknown-linux-gnu.tar.gz\n"
        )),
        "{text}"
    );
    let root = run.step("key").outputs["root"].clone();
    assert_eq!(
        std::fs::read_to_string(&calls).expect("cargo ran"),
        format!("install --locked --root {root} tracelint --version ={OURS}\n")
    );
    assert_eq!(
        job.release.requests(),
        [format!(
            "/v{OURS}/tracelint-aarch64-unknown-linux-gnu.tar.gz.sha256"
        )]
    );

    // No release target at all for this runner: nothing is asked for.
    std::fs::remove_file(&calls).expect("clear the log");
    std::fs::remove_dir_all(&job.runner.tool_cache).expect("another machine: a fresh tool cache");
    job.runner.env.pop();
    job.runner.env.push(("RUNNER_OS".into(), "Windows".into()));
    let run = job.runner.run(&with);
    let text = job.render(&run);
    assert!(!run.failed, "{text}");
    assert!(
        run.log()
            .contains("tracelint: no release asset for Windows X64\n"),
        "{text}"
    );
    assert!(calls.exists(), "cargo built it");
    assert_eq!(job.release.requests().len(), 1, "no request for Windows");
}

/// The digest decides whether a checkout gets a release's binary, so it must change with anything
/// the crate compiles or embeds and with nothing else, wherever the checkout lies.
#[test]
fn the_source_digest_follows_what_the_crate_compiles() {
    let scratch = tempfile::tempdir().expect("a temp dir");
    let copy = scratch.path().join("checkout");
    std::fs::create_dir_all(copy.join("fixtures")).expect("create a folder");
    std::fs::create_dir_all(copy.join(".cargo")).expect("create a folder");
    for p in [
        ".cargo/config.toml",
        "Cargo.lock",
        "Cargo.toml",
        "askama.toml",
        "README.md",
        "src",
        "data",
        "fixtures/demo",
        "tests",
    ] {
        let to = copy.join(p);
        let out = run(
            std::process::Command::new("cp")
                .arg("-R")
                .arg(repo().join(p))
                .arg(&to),
            Duration::from_secs(120),
        );
        assert_eq!(out.code, Some(0), "cp {p}: {}", out.all());
    }
    let base = digest_of(&copy);
    assert_eq!(base, checkout_digest(), "the same sources elsewhere");

    // Not compiled: a test file, a new file beside the sources' folders.
    std::fs::write(copy.join("tests/extra.rs"), "// not in the binary\n").expect("write");
    std::fs::write(copy.join("NOTES.md"), "notes\n").expect("write");
    assert_eq!(digest_of(&copy), base);

    for (file, what) in [
        ("src/main.rs", "a source file"),
        ("fixtures/demo/tools.json", "a file the demo embeds"),
        ("Cargo.lock", "the lock file"),
        (
            ".cargo/config.toml",
            "the build's settings (the allocator's)",
        ),
    ] {
        let path = copy.join(file);
        let before = std::fs::read(&path).expect("read");
        let mut changed = before.clone();
        changed.push(b'\n');
        std::fs::write(&path, &changed).expect("write");
        assert_ne!(digest_of(&copy), base, "{what} ({file}) changed");
        std::fs::write(&path, &before).expect("restore");
    }
    std::fs::write(copy.join("src/new_module.rs"), "//! new\n").expect("write");
    assert_ne!(digest_of(&copy), base, "a new source file");
}
