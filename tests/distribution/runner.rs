//! A small GitHub Actions runner for this repository's composite action, so that the tests run
//! `action.yml` itself rather than a copy of its steps. It does what the runner does for the
//! features the action uses and refuses everything else (the action must stay within what is
//! tested): input defaults, `${{ inputs.* }}` / `${{ steps.*.outputs.* }}` / `github.*` /
//! `runner.*` expressions in `env:`, `with:`, `if:` and `outputs:`, `shell: bash` steps run as
//! `bash --noprofile --norc -eo pipefail FILE` with fresh `GITHUB_OUTPUT`, `GITHUB_PATH`,
//! `GITHUB_ENV` and `GITHUB_STEP_SUMMARY` files per step, `success()` skipping after a failed
//! step, and `actions/cache/restore` / `actions/cache/save` (pinned by commit) over a local store.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use crate::support::{copy_tree, repo, run};

/// The parsed action.yml.
pub(crate) fn action() -> Value {
    let text = std::fs::read_to_string(repo().join("action.yml")).expect("read action.yml");
    serde_yaml_ng::from_str(&text).expect("action.yml is YAML")
}

/// Parse a YAML file into JSON values.
pub(crate) fn yaml(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{} is YAML: {e}", path.display()))
}

/// What happened to one step.
#[derive(Debug)]
pub(crate) struct StepRun {
    pub(crate) id: String,
    /// `None`: skipped (a prior step failed, or its `if:` was false).
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) outputs: BTreeMap<String, String>,
    /// Folders the step appended to `$GITHUB_PATH`.
    pub(crate) path_added: Vec<PathBuf>,
}

/// What happened to the whole action.
#[derive(Debug)]
pub(crate) struct ActionRun {
    pub(crate) steps: Vec<StepRun>,
    /// The action's `outputs:` as a calling workflow sees them.
    pub(crate) outputs: BTreeMap<String, String>,
    /// The job summary: every step's `GITHUB_STEP_SUMMARY`, in order.
    pub(crate) summary: String,
    /// Did any step fail (the action's step in the workflow fails)?
    pub(crate) failed: bool,
}

impl ActionRun {
    pub(crate) fn step(&self, id: &str) -> &StepRun {
        self.steps
            .iter()
            .find(|s| s.id == id)
            .unwrap_or_else(|| panic!("no step `{id}` in {:?}", self.steps))
    }

    pub(crate) fn output(&self, name: &str) -> &str {
        self.outputs
            .get(name)
            .unwrap_or_else(|| panic!("no output `{name}`"))
    }

    /// Every step's stdout and stderr, as the job log shows them.
    pub(crate) fn log(&self) -> String {
        self.steps
            .iter()
            .map(|s| format!("{}{}", s.stdout, s.stderr))
            .collect()
    }
}

/// One emulated runner: a job's folders and the cache storage it shares across runs.
pub(crate) struct Runner {
    pub(crate) workspace: PathBuf,
    pub(crate) temp: PathBuf,
    pub(crate) tool_cache: PathBuf,
    pub(crate) cache_store: PathBuf,
    /// Folders put in front of PATH (a fake `cargo`, say).
    pub(crate) path_first: Vec<PathBuf>,
    /// The PATH the runner starts from (default: the test process's).
    pub(crate) base_path: Option<OsString>,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) step_limit: Duration,
}

impl Runner {
    /// A runner whose folders live under `root`.
    pub(crate) fn new(root: &Path) -> Runner {
        let dirs = ["workspace", "runner-temp", "tool-cache", "cache-store"].map(|d| {
            let p = root.join(d);
            std::fs::create_dir_all(&p).expect("create a runner folder");
            p
        });
        let [workspace, temp, tool_cache, cache_store] = dirs;
        Runner {
            workspace,
            temp,
            tool_cache,
            cache_store,
            path_first: Vec::new(),
            base_path: None,
            env: Vec::new(),
            step_limit: Duration::from_secs(120),
        }
    }

    /// Run every step of action.yml with these inputs (`with:` of the calling workflow).
    pub(crate) fn run(&self, with: &[(&str, &str)]) -> ActionRun {
        self.run_until(with, None)
    }

    /// Run the steps up to and including `last` (all of them when `None`).
    pub(crate) fn run_until(&self, with: &[(&str, &str)], last: Option<&str>) -> ActionRun {
        let action = action();
        assert_eq!(action["runs"]["using"], "composite", "a composite action");
        let inputs = resolve_inputs(&action, with);
        let mut cx = Context {
            inputs,
            steps: BTreeMap::new(),
        };
        let mut path_added: Vec<PathBuf> = Vec::new();
        let mut runs = Vec::new();
        let mut summary = String::new();
        let mut failed = false;
        let steps = action["runs"]["steps"].as_array().expect("runs.steps");
        for (n, step) in steps.iter().enumerate() {
            let id = step["id"]
                .as_str()
                .map_or_else(|| format!("#{n}"), str::to_owned);
            let wanted = match step.get("if") {
                Some(cond) => {
                    let cond = cond.as_str().expect("`if:` is a string");
                    (!failed || cond.contains("always()")) && eval_condition(cond, &cx)
                }
                None => !failed,
            };
            let result = if !wanted {
                StepRun {
                    id: id.clone(),
                    code: None,
                    stdout: String::new(),
                    stderr: String::new(),
                    outputs: BTreeMap::new(),
                    path_added: Vec::new(),
                }
            } else if let Some(script) = step.get("run") {
                self.run_step(&id, step, script, &cx, &path_added, &mut summary)
            } else if let Some(uses) = step.get("uses") {
                self.uses_step(&id, step, uses.as_str().expect("uses"), &cx)
            } else {
                panic!("step {id} has neither `run` nor `uses`");
            };
            if result.code.is_some_and(|c| c != 0) {
                failed = true;
            }
            path_added.extend(result.path_added.iter().cloned());
            cx.steps.insert(id.clone(), result.outputs.clone());
            runs.push(result);
            if last == Some(id.as_str()) {
                break;
            }
        }
        let mut outputs = BTreeMap::new();
        if let Some(map) = action["outputs"].as_object() {
            for (name, def) in map {
                let value = def["value"].as_str().expect("an output's `value`");
                outputs.insert(name.clone(), eval_template(value, &cx));
            }
        }
        ActionRun {
            steps: runs,
            outputs,
            summary,
            failed,
        }
    }

    fn run_step(
        &self,
        id: &str,
        step: &Value,
        script: &Value,
        cx: &Context,
        path_added: &[PathBuf],
        summary: &mut String,
    ) -> StepRun {
        let script = script.as_str().expect("`run:` is a string");
        assert!(
            !script.contains("${{"),
            "step {id}: an expression in `run:` text is a script-injection hole; pass it through `env:`"
        );
        assert_eq!(step["shell"], "bash", "step {id}: `shell: bash`");
        let files = self.temp.join(format!("_runner_files/{id}"));
        std::fs::create_dir_all(&files).expect("create the step's files");
        let file = |name: &str| {
            let p = files.join(name);
            std::fs::write(&p, "").expect("create a runner file");
            p
        };
        let (output, github_path, github_env, step_summary) =
            (file("output"), file("path"), file("env"), file("summary"));
        let script_file = files.join("script.sh");
        std::fs::write(&script_file, script).expect("write the step script");

        let mut dirs: Vec<PathBuf> = path_added.iter().rev().cloned().collect();
        dirs.extend(self.path_first.iter().cloned());
        let base = self
            .base_path
            .clone()
            .or_else(|| std::env::var_os("PATH"))
            .unwrap_or_default();
        dirs.extend(std::env::split_paths(&base));
        let path = std::env::join_paths(dirs).expect("a PATH");

        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&script_file)
            .current_dir(&self.workspace)
            .env_clear()
            .env("PATH", path)
            .env("HOME", std::env::var_os("HOME").unwrap_or_default())
            .env("CI", "true")
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_WORKSPACE", &self.workspace)
            .env("GITHUB_ACTION_PATH", repo())
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_PATH", &github_path)
            .env("GITHUB_ENV", &github_env)
            .env("GITHUB_STEP_SUMMARY", &step_summary)
            .env("RUNNER_TEMP", &self.temp)
            .env("RUNNER_TOOL_CACHE", &self.tool_cache)
            .env("RUNNER_OS", "Linux")
            .env("RUNNER_ARCH", "X64");
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        if let Some(env) = step.get("env") {
            for (k, v) in env.as_object().expect("`env:` is a map") {
                let v = v.as_str().expect("an env value is a string");
                cmd.env(k, eval_template(v, cx));
            }
        }
        let out = run(&mut cmd, self.step_limit);
        let outputs = parse_output_file(&std::fs::read_to_string(&output).expect("read"));
        let added = std::fs::read_to_string(&github_path).expect("read GITHUB_PATH");
        let path_added = added
            .lines()
            .filter(|l| !l.is_empty())
            .map(PathBuf::from)
            .collect();
        let env_file = std::fs::read_to_string(&github_env).expect("read GITHUB_ENV");
        assert!(
            env_file.is_empty(),
            "step {id} wrote GITHUB_ENV, which this runner does not emulate"
        );
        summary.push_str(&std::fs::read_to_string(&step_summary).expect("read the summary"));
        StepRun {
            id: id.to_owned(),
            code: Some(out.code.unwrap_or(-1)),
            stdout: out.stdout,
            stderr: out.stderr,
            outputs,
            path_added,
        }
    }

    /// `actions/cache/restore` and `actions/cache/save`, pinned by commit, over `cache_store`.
    fn uses_step(&self, id: &str, step: &Value, uses: &str, cx: &Context) -> StepRun {
        let (name, pin) = uses.split_once('@').expect("`uses: NAME@REF`");
        assert!(
            pin.len() == 40 && pin.bytes().all(|b| b.is_ascii_hexdigit()),
            "step {id}: `{uses}` must be pinned to a full commit"
        );
        let with = |key: &str| eval_template(step["with"][key].as_str().unwrap_or_default(), cx);
        let (path, key) = (PathBuf::from(with("path")), with("key"));
        assert!(
            path.is_absolute(),
            "step {id}: the cache path must be absolute: {path:?}"
        );
        assert!(!key.is_empty(), "step {id}: an empty cache key");
        let stored = self.cache_store.join(&key);
        let mut outputs = BTreeMap::new();
        let note = match name {
            "actions/cache/restore" => {
                let hit = stored.is_dir();
                if hit {
                    copy_tree(&stored, &path);
                }
                outputs.insert("cache-hit".into(), hit.to_string());
                outputs.insert("cache-primary-key".into(), key.clone());
                format!("restore {key}: hit={hit}")
            }
            "actions/cache/save" => {
                if !stored.exists() && path.exists() {
                    copy_tree(&path, &stored);
                }
                format!("save {key}")
            }
            other => panic!("step {id}: this runner does not emulate `{other}`"),
        };
        StepRun {
            id: id.to_owned(),
            code: Some(0),
            stdout: format!("{note}\n"),
            stderr: String::new(),
            outputs,
            path_added: Vec::new(),
        }
    }
}

/// The `with:` values, with action.yml's defaults for the rest; an unknown input fails.
fn resolve_inputs(action: &Value, with: &[(&str, &str)]) -> BTreeMap<String, String> {
    let declared = action["inputs"].as_object().expect("inputs");
    let mut inputs: BTreeMap<String, String> = declared
        .iter()
        .map(|(k, v)| {
            let default = v.get("default").and_then(Value::as_str).unwrap_or_default();
            (k.clone(), default.to_owned())
        })
        .collect();
    for (k, v) in with {
        assert!(declared.contains_key(*k), "action.yml has no input `{k}`");
        inputs.insert((*k).to_owned(), (*v).to_owned());
    }
    inputs
}

/// What expressions can see.
pub(crate) struct Context {
    pub(crate) inputs: BTreeMap<String, String>,
    pub(crate) steps: BTreeMap<String, BTreeMap<String, String>>,
}

impl Context {
    /// A context with only step outputs (a workflow's view of earlier steps).
    pub(crate) fn with_steps(steps: BTreeMap<String, BTreeMap<String, String>>) -> Context {
        Context {
            inputs: BTreeMap::new(),
            steps,
        }
    }
}

/// Replace every `${{ expr }}` in `s`.
pub(crate) fn eval_template(s: &str, cx: &Context) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 3..];
        let end = after.find("}}").expect("an unterminated `${{`");
        out.push_str(&eval_value(after[..end].trim(), cx));
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// A context value (`inputs.x`, `steps.id.outputs.x`, `github.action_path`, `runner.*`).
fn eval_value(expr: &str, cx: &Context) -> String {
    let parts: Vec<&str> = expr.split('.').collect();
    match parts.as_slice() {
        ["inputs", name] => cx
            .inputs
            .get(*name)
            .unwrap_or_else(|| panic!("`{expr}`: no such input"))
            .clone(),
        ["steps", id, "outputs", name] => cx
            .steps
            .get(*id)
            .and_then(|o| o.get(*name))
            .cloned()
            .unwrap_or_default(),
        ["github", "action_path"] => repo().display().to_string(),
        _ => panic!("this runner does not evaluate `{expr}`"),
    }
}

/// `always()`, `A == 'lit'`, `A != 'lit'` and a bare value, joined by `&&`.
pub(crate) fn eval_condition(cond: &str, cx: &Context) -> bool {
    let cond = cond.trim();
    let cond = cond
        .strip_prefix("${{")
        .and_then(|c| c.strip_suffix("}}"))
        .unwrap_or(cond);
    cond.split("&&").all(|term| {
        let term = term.trim();
        if term == "always()" {
            return true;
        }
        for (op, equal) in [("!=", false), ("==", true)] {
            if let Some((lhs, rhs)) = term.split_once(op) {
                let rhs = rhs.trim();
                let lit = rhs
                    .strip_prefix('\'')
                    .and_then(|r| r.strip_suffix('\''))
                    .unwrap_or_else(|| panic!("`{term}`: compare with a quoted literal"));
                return (eval_value(lhs.trim(), cx) == lit) == equal;
            }
        }
        !eval_value(term, cx).is_empty()
    })
}

/// `$GITHUB_OUTPUT`'s two forms: `name=value` and `name<<DELIM` … `DELIM`. Anything else fails
/// the test, as it would garble the runner's outputs.
pub(crate) fn parse_output_file(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.is_empty() {
            continue;
        }
        if let Some((name, delim)) = line.split_once("<<") {
            let mut value = Vec::new();
            loop {
                let next = lines
                    .next()
                    .unwrap_or_else(|| panic!("output `{name}`: no closing `{delim}`"));
                if next == delim {
                    break;
                }
                value.push(next);
            }
            out.insert(name.to_owned(), value.join("\n"));
        } else if let Some((name, value)) = line.split_once('=') {
            out.insert(name.to_owned(), value.to_owned());
        } else {
            panic!("a malformed GITHUB_OUTPUT line: {line:?}");
        }
    }
    out
}
