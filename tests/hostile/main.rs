//! The hostile-input suite (issue 11): every case in `fixtures/hostile/` (plus the huge ones,
//! generated here in a temp dir: 100k-deep nesting, a 64 MiB line, 50k-character ReDoS bait,
//! symlink loops, FIFOs) runs the real binary under `prlimit --as=512MiB`, and its exact
//! outcome — exit code, stdout, stderr — is an insta snapshot (`tests/hostile/snapshots/`). A
//! case still running after `HANG_LIMIT` is killed and fails: that bound detects a hang (an
//! unbounded loop, a read that blocks forever), it is not a speed limit; how fast a hostile input
//! is refused is the benches' business (`scripts/bench`), never a test's, since a busy machine
//! makes any tight bound flaky. Cases run in a copy of `fixtures/hostile/` so paths in outputs
//! are relative.

mod bounded;
mod cases;
mod make;
mod net;
mod pipes;
mod signals;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A case still running after this is hung (every case ends in well under a second on an idle
/// machine; the bound is generous so that a loaded one never trips it).
const HANG_LIMIT: Duration = Duration::from_secs(60);
/// Address space a case may map (`prlimit --as`).
const MEMORY_LIMIT: u64 = 512 << 20;

/// What a case runs.
pub(crate) struct Case {
    /// Snapshot name.
    pub(crate) name: &'static str,
    /// Arguments after `tracelint`; `{URL}` is replaced by the case's loopback server URL.
    pub(crate) args: &'static [&'static str],
    /// Extra files made in the case's directory before the run.
    pub(crate) setup: Option<fn(&Path)>,
    /// Keep only the output lines holding one of these (an HTML page is long; the case is about
    /// how the hostile text appears in it).
    pub(crate) grep: &'static [&'static str],
    /// Files whose content (grepped likewise) is part of the outcome (side outputs).
    pub(crate) outputs: &'static [&'static str],
    /// What the run reads on standard input.
    pub(crate) stdin: Stdin,
    /// Peak resident memory allowed, in bytes (sampled from `/proc` while the case runs).
    pub(crate) max_rss: Option<u64>,
}

/// Standard input of a case.
#[derive(Clone, Copy)]
pub(crate) enum Stdin {
    /// `/dev/null`.
    Null,
    /// A pipe held open and never written to, until the run ends.
    Hold,
    /// A file of the case's directory.
    File(&'static str),
    /// A pipe this writes to (from a thread) and then closes.
    Feed(fn(&mut dyn std::io::Write) -> std::io::Result<()>),
}

impl Case {
    pub(crate) const fn new(name: &'static str, args: &'static [&'static str]) -> Case {
        Case {
            name,
            args,
            setup: None,
            grep: &[],
            outputs: &[],
            stdin: Stdin::Null,
            max_rss: None,
        }
    }
    pub(crate) const fn stdin(mut self, stdin: Stdin) -> Case {
        self.stdin = stdin;
        self
    }
    pub(crate) const fn max_rss(mut self, bytes: u64) -> Case {
        self.max_rss = Some(bytes);
        self
    }
    pub(crate) const fn setup(mut self, f: fn(&Path)) -> Case {
        self.setup = Some(f);
        self
    }
    pub(crate) const fn grep(mut self, words: &'static [&'static str]) -> Case {
        self.grep = words;
        self
    }
    pub(crate) const fn outputs(mut self, files: &'static [&'static str]) -> Case {
        self.outputs = files;
        self
    }
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hostile")
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn prlimit() -> &'static str {
    for p in ["/usr/bin/prlimit", "/bin/prlimit"] {
        if Path::new(p).exists() {
            return p;
        }
    }
    panic!("prlimit (util-linux) is needed to hold hostile cases to {MEMORY_LIMIT} bytes");
}

fn keep(text: &str, grep: &[&str]) -> String {
    if grep.is_empty() {
        return text.to_owned();
    }
    text.lines()
        .filter(|l| grep.iter().any(|w| l.contains(w)))
        .map(|l| format!("{}\n", l.trim()))
        .collect()
}

/// Wait for `child`; one still running after `HANG_LIMIT` is hung: killed, and the test fails.
pub(crate) fn wait_or_hang(
    child: &mut std::process::Child,
    what: &str,
) -> std::process::ExitStatus {
    wait_sampling(child, what, &mut 0)
}

/// The peak resident memory of a running process so far (`VmHWM`), in bytes.
fn peak_rss(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// `wait_or_hang`, keeping in `peak` the highest peak resident memory seen while it runs.
pub(crate) fn wait_sampling(
    child: &mut std::process::Child,
    what: &str,
    peak: &mut u64,
) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(p) = peak_rss(child.id()) {
            *peak = (*peak).max(p);
        }
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if start.elapsed() > HANG_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {HANG_LIMIT:?}: hung, killed");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Processes other than tracelint whose command line holds `marker` (a zombie is dead already).
pub(crate) fn alive(marker: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| {
            let dir = e.ok()?.path();
            let cmdline = std::fs::read(dir.join("cmdline")).ok()?;
            let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
            let zombie = stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
            let argv0 = cmdline.split(|b| *b == 0).next().unwrap_or_default();
            let ours = String::from_utf8_lossy(argv0).contains("tracelint");
            (!zombie && !ours && String::from_utf8_lossy(&cmdline).contains(marker)).then_some(())
        })
        .count()
}

/// Run one case and snapshot its outcome.
pub(crate) fn run(case: &Case) {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixtures(), dir.path());
    if let Some(setup) = case.setup {
        setup(dir.path());
    }
    let server = case
        .args
        .iter()
        .any(|a| a.contains("{URL}"))
        .then(|| net::Server::start(case.name));
    let args: Vec<String> = case
        .args
        .iter()
        .map(|a| match &server {
            Some(s) => a.replace("{URL}", &s.url()),
            None => (*a).to_owned(),
        })
        .collect();
    let mut child = Command::new(prlimit())
        .arg(format!("--as={MEMORY_LIMIT}"))
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_tracelint"))
        .args(&args)
        .current_dir(dir.path())
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CI")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env("NO_COLOR", "1")
        .stdin(match case.stdin {
            Stdin::Null => Stdio::null(),
            Stdin::Hold | Stdin::Feed(_) => Stdio::piped(),
            Stdin::File(name) => std::fs::File::open(dir.path().join(name)).unwrap().into(),
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tracelint under prlimit");
    // Held open (never written) until the run ends, or written from a thread and closed.
    let mut held = child.stdin.take();
    let feeder = match case.stdin {
        Stdin::Feed(feed) => {
            let mut pipe = held.take().unwrap();
            // A run that stops reading early closes the pipe: the feeder's error is no failure.
            Some(std::thread::spawn(move || drop(feed(&mut pipe))))
        }
        _ => None,
    };
    // Drain the pipes on threads so a chatty case cannot block on a full pipe.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut out, &mut b).map(|_| b)
    });
    let err = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut err, &mut b).map(|_| b)
    });
    let mut peak = 0;
    let status = wait_sampling(&mut child, case.name, &mut peak);
    drop(held);
    if let Some(feeder) = feeder {
        feeder.join().unwrap();
    }
    let stdout = String::from_utf8_lossy(&out.join().unwrap().unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&err.join().unwrap().unwrap()).into_owned();
    let mut shown = format!(
        "$ tracelint {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
        case.args.join(" "),
        status
            .code()
            .map_or_else(|| format!("killed ({status})"), |c| c.to_string()),
        keep(&stdout, case.grep),
        keep(&stderr, case.grep),
    );
    for file in case.outputs {
        let text =
            std::fs::read_to_string(dir.path().join(file)).unwrap_or_else(|e| format!("({e})"));
        shown.push_str(&format!("--- {file}\n{}", keep(&text, case.grep)));
    }
    if let Some(s) = &server {
        shown = shown
            .replace(&s.url(), "{URL}")
            .replace(&s.port_text(), "{PORT}");
    }
    if let Some(max) = case.max_rss {
        assert!(
            peak <= max,
            "{}: peak resident memory {} MiB, over {} MiB",
            case.name,
            peak >> 20,
            max >> 20
        );
    }
    let tmp = dir.path().to_string_lossy().into_owned();
    let shown = shown.replace(&tmp, "[TMP]");
    insta::with_settings!({prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::assert_snapshot!(case.name, shown);
    });
}
