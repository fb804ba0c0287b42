//! A job set up for the action tests: a workspace holding the `fixtures/dist` files where the
//! docs/ci.md's workflow expects them, the emulated runner around it, a cache seeded with the built
//! binary or a fake `cargo`, and the rendering of a run for snapshots (temporary paths and
//! digests replaced by placeholders). No assertion about the action lives here.

use std::path::{Path, PathBuf};

use regex::Regex;
use tempfile::TempDir;

use crate::release_server::ReleaseServer;
use crate::runner::{ActionRun, Runner};
use crate::support::{copy_tree, repo, tracelint_bin, write_script};

pub(crate) struct Job {
    /// Where the action downloads releases from (`TRACELINT_DOWNLOAD_BASE`): empty unless a test
    /// publishes into it. Declared before `root` so that it stops before its folder goes.
    pub(crate) release: ReleaseServer,
    /// Keeps the folders alive.
    pub(crate) root: TempDir,
    pub(crate) runner: Runner,
}

/// The `with:` of docs/ci.md's workflow for the tracelint step.
pub(crate) fn readme_with() -> Vec<(String, String)> {
    let wf = crate::runner::yaml(&repo().join("tests/distribution/snippets/workflow.yml"));
    let steps = wf["jobs"]["traces"]["steps"].as_array().expect("steps");
    let step = steps
        .iter()
        .find(|s| s["id"] == "tracelint")
        .expect("the docs/ci.md workflow has a step `tracelint`");
    let uses = step["uses"].as_str().expect("uses");
    assert!(uses.starts_with("tracelint/tracelint@"), "{uses}");
    step["with"]
        .as_object()
        .expect("with")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().expect("a string input").to_owned()))
        .collect()
}

impl Job {
    /// A workspace with `tools.json` and the traces under `transcripts/` (`team-a/r1-violation.jsonl`
    /// holds one R1 hard defect; `clean.jsonl` none); `other/candidate.jsonl` calls `grep_files`,
    /// which only `more-tools.json` declares; `ci/tracelint.toml` sets the tools and
    /// `fail-on = "candidate"`. Releases come from a loopback server with nothing published yet.
    pub(crate) fn new() -> Job {
        let root = tempfile::tempdir().expect("a temp dir");
        let mut runner = Runner::new(root.path());
        let release = ReleaseServer::start(&root.path().join("releases"));
        runner
            .env
            .push(("TRACELINT_DOWNLOAD_BASE".into(), release.base()));
        let dist = repo().join("fixtures/dist");
        let ws = &runner.workspace;
        copy_tree(&dist.join("tools.json"), &ws.join("tools.json"));
        copy_tree(
            &dist.join("transcripts/clean.jsonl"),
            &ws.join("transcripts/clean.jsonl"),
        );
        copy_tree(
            &dist.join("transcripts/r1-violation.jsonl"),
            &ws.join("transcripts/team-a/r1-violation.jsonl"),
        );
        copy_tree(
            &dist.join("candidate.jsonl"),
            &ws.join("other/candidate.jsonl"),
        );
        copy_tree(&dist.join("more-tools.json"), &ws.join("more-tools.json"));
        std::fs::create_dir_all(ws.join("ci")).expect("create ci/");
        std::fs::write(
            ws.join("ci/tracelint.toml"),
            "tools = \"../tools.json\"\nfail-on = \"candidate\"\n",
        )
        .expect("write ci/tracelint.toml");
        Job {
            release,
            root,
            runner,
        }
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.root.path().join(name)
    }

    /// Store the built binary under the cache key the action computes for `with`, as an earlier
    /// job's save step would have.
    pub(crate) fn seed_cache(&self, with: &[(&str, &str)]) {
        let run = self.runner.run_until(with, Some("key"));
        let key = run.step("key").outputs.get("key").expect("a key output");
        let bin = self.runner.cache_store.join(key).join("bin/tracelint");
        copy_tree(&tracelint_bin(), &bin);
    }

    /// Did a save step store a binary under `key`?
    pub(crate) fn saved(&self, key: &str) -> bool {
        self.runner
            .cache_store
            .join(key)
            .join("bin/tracelint")
            .is_file()
    }

    /// Put a `cargo` in front of PATH that records its arguments in the returned file, and then
    /// runs `body` (a shell snippet; `$root` is its `--root` argument).
    pub(crate) fn fake_cargo(&mut self, body: &str) -> PathBuf {
        let dir = self.path("fake-cargo");
        let log = self.path("cargo-calls.log");
        let script = format!(
            "#!/usr/bin/env bash\nprintf '%s\\n' \"$*\" >>'{log}'\nprintf '%s\\n' \"$PWD\" >>'{log}.cwd'\nroot=''\nprev=''\n\
             for a in \"$@\"; do if [ \"$prev\" = --root ]; then root=$a; fi; prev=$a; done\n{body}\n",
            log = log.display()
        );
        write_script(&dir.join("cargo"), &script);
        self.runner.path_first.insert(0, dir);
        log
    }

    /// The run as text, with every temporary path and digest replaced by a placeholder.
    pub(crate) fn render(&self, run: &ActionRun) -> String {
        let mut text = String::new();
        for step in &run.steps {
            match step.code {
                Some(code) => text.push_str(&format!("--- step {} (exit {code})\n", step.id)),
                None => text.push_str(&format!("--- step {} (skipped)\n", step.id)),
            }
            text.push_str(&step.stdout);
            for line in step.stderr.lines() {
                text.push_str(&format!("stderr: {line}\n"));
            }
            for (k, v) in &step.outputs {
                text.push_str(&format!("output {k} = {v}\n"));
            }
        }
        text.push_str("--- action outputs\n");
        for (k, v) in &run.outputs {
            text.push_str(&format!("{k} = {v}\n"));
        }
        text.push_str(&format!("--- job summary\n{}", run.summary));
        text.push_str(&format!("--- action failed: {}\n", run.failed));
        self.normalize(&text)
    }

    pub(crate) fn normalize(&self, text: &str) -> String {
        let r = &self.runner;
        let mut text = text.to_owned();
        for (path, name) in [
            (&r.workspace, "[WORKSPACE]"),
            (&r.temp, "[RUNNER_TEMP]"),
            (&r.tool_cache, "[TOOL_CACHE]"),
            (&self.root.path().to_path_buf(), "[JOB]"),
            (&repo().to_path_buf(), "[ACTION_PATH]"),
        ] {
            text = text.replace(&path.display().to_string(), name);
        }
        text = text.replace(&self.release.base(), "[RELEASES]");
        for (pattern, with) in [
            (r"src-[0-9a-f]{64}", "src-[DIGEST]"),
            (r"tracelint\.[A-Za-z0-9]{6}/", "tracelint.[RANDOM]/"),
            (r"tracelint \d+\.\d+\.\d+", "tracelint [VERSION]"),
            (r"\b[0-9a-f]{64}\b", "[SHA256]"),
            (r"\bv\d+\.\d+\.\d+\b", "v[VERSION]"),
            (r"release-\d+\.\d+\.\d+\b", "release-[VERSION]"),
        ] {
            text = Regex::new(pattern)
                .expect("a regex")
                .replace_all(&text, with)
                .into_owned();
        }
        text
    }
}

/// Every file of `dir` named `name`, anywhere below it.
pub(crate) fn find_named(dir: &Path, name: &str) -> Vec<String> {
    crate::support::files_under(dir)
        .into_iter()
        .filter(|f| Path::new(f).file_name().is_some_and(|n| n == name))
        .collect()
}
