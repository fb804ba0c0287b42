//! Shared helpers for the distribution tests: where the repository and the built binary are, the
//! external tools (on PATH or in the venv that `scripts/test` makes), scratch folders, hermetic
//! git, and running a command with a time limit. No test logic lives here.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The repository (the action's `GITHUB_ACTION_PATH`, the hooks' repo).
pub(crate) fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The binary cargo built for these tests.
pub(crate) fn tracelint_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tracelint"))
}

/// Where `scripts/test` keeps its downloads (the same rule as the script).
pub(crate) fn dev_cache() -> PathBuf {
    if let Some(dir) = std::env::var_os("TRACELINT_DEV_CACHE").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("tracelint-dev");
    }
    let home = std::env::var_os("HOME").unwrap_or_else(|| OsString::from("/root"));
    PathBuf::from(home).join(".cache/tracelint-dev")
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// The venv of PyPI tools `scripts/test` made (`TRACELINT_DIST_VENV`; without it, the dev
/// cache's `venv`, where earlier versions of the script put it).
fn dist_venv() -> PathBuf {
    match std::env::var_os("TRACELINT_DIST_VENV").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => dev_cache().join("venv"),
    }
}

/// An external tool: the dev venv's copy first, then PATH.
pub(crate) fn find_tool(name: &str) -> Option<PathBuf> {
    let venv = dist_venv().join("bin").join(name);
    if venv.is_file() {
        return Some(venv);
    }
    on_path(name)
}

/// An external tool the test cannot do without. Missing: the test is skipped with a notice, or
/// fails when `TRACELINT_FULL_TEST` is set (under `scripts/test`, which installs it).
pub(crate) fn require_tool(name: &str) -> Option<PathBuf> {
    require(&format!("`{name}`"), find_tool(name))
}

/// A peer the test cannot do without, `found` or not: missing, the test is skipped with a
/// notice, or fails when `TRACELINT_FULL_TEST` is set (under `scripts/test`, which installs it).
pub(crate) fn require(what: &str, found: Option<PathBuf>) -> Option<PathBuf> {
    if found.is_none() {
        assert!(
            std::env::var_os("TRACELINT_FULL_TEST").is_none(),
            "TRACELINT_FULL_TEST is set but {what} is missing: run ./scripts/test, which installs it"
        );
        #[allow(clippy::print_stderr)]
        {
            eprintln!("skipped: {what} is missing (./scripts/test installs it)");
        }
    }
    found
}

/// A pytest run (`-v`) that passed whole — nothing failed, skipped or in error — and ran each
/// of the named tests.
pub(crate) fn assert_pytest_passed(tests: &Output, names: &[&str]) {
    let last = tests.stdout.lines().last().unwrap_or_default();
    assert!(
        last.contains(" passed")
            && !last.contains("failed")
            && !last.contains("skipped")
            && !last.contains("error"),
        "{}",
        tests.all()
    );
    for name in names {
        assert!(
            tests.stdout.contains(&format!("{name} PASSED")),
            "{name}: {}",
            tests.all()
        );
    }
}

/// What a finished command did.
#[derive(Debug)]
pub(crate) struct Output {
    /// The exit code (`None`: killed by a signal).
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Output {
    /// stdout then stderr, for assertions that do not care which stream.
    pub(crate) fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

/// Run a command with stdin closed and a time limit; a command still running then is killed and
/// the test fails.
pub(crate) fn run(cmd: &mut Command, limit: Duration) -> Output {
    let what = format!("{cmd:?}");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {what}: {e}"));
    let reader = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = pipe.read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = reader(Box::new(child.stdout.take().expect("piped stdout")));
    let err = reader(Box::new(child.stderr.take().expect("piped stderr")));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for a child") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not finish within {} s", limit.as_secs());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        code: status.code(),
        stdout: out.join().expect("stdout reader"),
        stderr: err.join().expect("stderr reader"),
    }
}

/// Make `cmd` ignore the user's and the system's git configuration: a fixed identity, no
/// signing, no hooks path, `main` as the first branch (the config file lives in `home`).
pub(crate) fn hermetic_git(home: &Path, cmd: &mut Command) {
    let config = home.join("gitconfig");
    if !config.exists() {
        std::fs::write(
            &config,
            "[user]\n\tname = tracelint tests\n\temail = tests@tracelint.invalid\n\
             [init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n",
        )
        .expect("write a git config");
    }
    cmd.env("GIT_CONFIG_GLOBAL", &config)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
}

/// A hermetic `git` command in `dir`.
pub(crate) fn git(home: &Path, dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir);
    hermetic_git(home, &mut cmd);
    cmd
}

/// Run git and require success; its stdout.
pub(crate) fn git_ok(home: &Path, dir: &Path, args: &[&str]) -> String {
    let out = run(git(home, dir).args(args), Duration::from_secs(60));
    assert_eq!(
        out.code,
        Some(0),
        "git {args:?} in {}: {}",
        dir.display(),
        out.all()
    );
    out.stdout
}

/// Copy a file or a folder (recursively), creating the destination's parents.
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).expect("create a folder");
        let mut entries: Vec<_> = std::fs::read_dir(from)
            .expect("read a folder")
            .map(|e| e.expect("a folder entry").path())
            .collect();
        entries.sort();
        for entry in entries {
            copy_tree(&entry, &to.join(entry.file_name().expect("a file name")));
        }
    } else {
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).expect("create a folder");
        }
        // Copied by a `cp` process, not by this one: a file this process opens for writing is
        // inherited by whatever another test thread forks before this copy closes it, and an
        // executable still open for writing anywhere cannot be run ("text file busy") — a
        // seeded binary then failed its `--version` check once in a while.
        let status = std::process::Command::new("cp")
            .arg(from)
            .arg(to)
            .status()
            .unwrap_or_else(|e| panic!("run cp: {e}"));
        assert!(
            status.success(),
            "cp {} {}: {status}",
            from.display(),
            to.display()
        );
    }
}

/// Every file under `dir`, relative and sorted.
pub(crate) fn files_under(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() && !path.is_symlink() {
                walk(base, &path, out);
            } else {
                let rel = path.strip_prefix(base).expect("under the base");
                out.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Write an executable shell script.
pub(crate) fn write_script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create a folder");
    }
    // Written beside, then copied into place by `cp` (see `copy_tree`): the script is run, so
    // no forked child of this process may hold it open for writing.
    let draft = path.with_extension("draft");
    std::fs::write(&draft, body).expect("write a script");
    std::fs::set_permissions(&draft, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    copy_tree(&draft, path);
    std::fs::remove_file(&draft).expect("remove the draft");
}

/// PATH with `first` in front of the test process's own PATH.
pub(crate) fn path_with(first: &[&Path]) -> OsString {
    let mut dirs: Vec<PathBuf> = first.iter().map(|p| p.to_path_buf()).collect();
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(dirs).expect("a PATH")
}

/// The test process's PATH without any folder holding a `tracelint`, so that a hook or an
/// install can only use the binary it built; `cargo` stays reachable through a link when its
/// folder had to go.
pub(crate) fn path_without_tracelint(scratch: &Path) -> OsString {
    let cargo = on_path("cargo");
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    dirs.retain(|d| !d.join("tracelint").exists());
    let reachable = dirs.iter().any(|d| d.join("cargo").is_file());
    if let (Some(cargo), false) = (cargo, reachable) {
        let links = scratch.join("cargo-link");
        std::fs::create_dir_all(&links).expect("create a folder");
        for tool in ["cargo", "rustc"] {
            let target = cargo.with_file_name(tool);
            if target.exists() {
                let _ = std::os::unix::fs::symlink(&target, links.join(tool));
            }
        }
        dirs.insert(0, links);
    }
    std::env::join_paths(dirs).expect("a PATH")
}

/// `PYTHON -m pip install WHEEL`, offline and without dependencies (the wheel needs none): add
/// `--target DIR` to install beside an interpreter instead of into it.
pub(crate) fn pip_install(python: &Path, wheel: &Path) -> Command {
    let mut cmd = Command::new(python);
    cmd.args([
        "-m",
        "pip",
        "install",
        "--no-index",
        "--no-deps",
        "--disable-pip-version-check",
    ])
    .arg(wheel);
    cmd
}
