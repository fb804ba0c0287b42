//! `tracelint hook`: the agents' hooks and `hook install`. Glue only: the event is read by the
//! agent's protocol module (`crate::hook::{claude, gemini, codex}`), the settings are
//! `check`'s (`check::resolve`: flags over the nearest `tracelint.toml`, searched from the
//! session's working directory), the linting is `crate::hook::Engine`'s, and the answer goes
//! back in the protocol's shape. A hook must never break the agent: an internal error (or a
//! panic) is one line on stderr, said once per session and error, and exit 0, unless `--strict`.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::adapters::InputFormat;
use crate::cli::{CheckArgs, CodexHookArgs, HookAgent as Agent, HookArgs, HookCommand};
use crate::exit::ExitStatus;
use crate::hook::policy::{self, Gate, Telling};
use crate::hook::{self, Engine, Event, Limits, Outcome, state};

/// Largest hook event read from stdin (a `tool_response` may hold a whole file).
const MAX_EVENT: u64 = 64 << 20;

/// `tracelint hook …`.
pub fn run(cmd: &HookCommand) -> anyhow::Result<ExitStatus> {
    match cmd {
        HookCommand::ClaudeCode(args) => guarded(args, || agent_hook(args, Agent::ClaudeCode)),
        HookCommand::GeminiCli(args) => guarded(args, || agent_hook(args, Agent::GeminiCli)),
        HookCommand::Codex(args) => guarded(&args.hook, || codex_hook(args)),
        HookCommand::Install(args) => hook::install::run(&hook::install::Install {
            agent: args.agent,
            project: args.project,
            user: args.user,
            uninstall: args.uninstall,
            settings: args.settings.clone(),
            program: args.program.clone(),
            flags: args.flags.clone(),
        }),
    }
}

/// Run a hook so that it never breaks the agent: an error or a panic is said once on stderr and
/// the hook exits 0 (`--strict`: the error is the command's).
#[allow(clippy::print_stderr)]
fn guarded(args: &HookArgs, f: impl FnOnce() -> anyhow::Result<()>) -> anyhow::Result<ExitStatus> {
    let result = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => Err(anyhow::anyhow!("the hook stopped on an internal error (a bug: please report it)")),
    };
    match result {
        Ok(()) => Ok(ExitStatus::Clean),
        Err(e) if args.strict => Err(e),
        Err(e) => {
            let line = format!("tracelint hook: {e:#}");
            if first_time(args.state_dir.as_deref(), &line) {
                eprintln!("{}", crate::reporters::escape::terminal(&line));
            }
            Ok(ExitStatus::Clean)
        }
    }
}

/// Has this error line not been said yet (by any hook writing to this state directory)?
fn first_time(dir: Option<&Path>, line: &str) -> bool {
    let Some(dir) = state::state_dir(dir) else {
        return true;
    };
    let said = dir.join(format!("error-{:016x}", state::fingerprint(line.as_bytes())));
    if said.exists() {
        return false;
    }
    let _ = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&said, line));
    true
}

/// Claude Code's or Gemini CLI's hook.
#[allow(clippy::print_stdout)]
fn agent_hook(args: &HookArgs, agent: Agent) -> anyhow::Result<()> {
    let mut stdin = String::new();
    std::io::stdin()
        .take(MAX_EVENT)
        .read_to_string(&mut stdin)
        .context("cannot read the hook event on stdin")?;
    let event = match agent {
        Agent::ClaudeCode => hook::claude::event(&stdin)?,
        _ => hook::gemini::event(&stdin)?,
    };
    let Some(event) = event else {
        return Ok(());
    };
    let format = match agent {
        Agent::ClaudeCode => InputFormat::Claude,
        _ => InputFormat::GeminiCli,
    };
    let (outcome, gate) = lint(args, &event, format)?;
    let file = event.transcript.to_string_lossy().into_owned();
    if outcome.missing && args.strict {
        anyhow::bail!("{file}: no such session file");
    }
    log(args.log.as_deref(), &file, &outcome.told)?;
    let max = args.max_told.unwrap_or(3);
    let to_agent = (!outcome.told.is_empty()).then(|| policy::message(&outcome.told, &file, max));
    let to_user = user_text(to_agent.as_deref(), &outcome);
    let blocking = !gate.never && outcome.told.iter().any(|t| t.blocking);
    if let Some(answer) = hook::answer(&event, to_agent.as_deref(), to_user.as_deref(), blocking) {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{answer}")?;
        out.flush()?;
    }
    Ok(())
}

/// Codex's `notify` program: the findings go to the terminal and the report.
fn codex_hook(args: &CodexHookArgs) -> anyhow::Result<()> {
    let Some(event) = hook::codex::event(&args.notification, args.codex_home.as_deref())? else {
        return Ok(());
    };
    let (outcome, _) = lint(&args.hook, &event, InputFormat::Codex)?;
    let file = event.transcript.to_string_lossy().into_owned();
    let report = match &args.report {
        Some(r) => r.clone(),
        None => {
            let dir = state::state_dir(args.hook.state_dir.as_deref())
                .context("cannot tell where the user's cache directory is: pass --report FILE")?;
            let stem = event
                .transcript
                .file_stem()
                .map_or_else(|| "session".to_owned(), |s| s.to_string_lossy().into_owned());
            dir.join("reports").join(format!("codex-{stem}.jsonl"))
        }
    };
    log(args.hook.log.as_deref(), &file, &outcome.told)?;
    log(Some(&report), &file, &outcome.told)?;
    let max = args.hook.max_told.unwrap_or(3);
    let text = (!outcome.told.is_empty()).then(|| policy::message(&outcome.told, &file, max));
    if let Some(mut text) = user_text(text.as_deref(), &outcome) {
        if !outcome.told.is_empty() {
            text.push_str(&format!("\n(report: {})", report.display()));
        }
        to_terminal(&text);
    }
    Ok(())
}

/// Lint what the event's session gained, with `check`'s settings.
fn lint(args: &HookArgs, event: &Event, format: InputFormat) -> anyhow::Result<(Outcome, Gate)> {
    // `tracelint.toml` is looked for from the session's working directory.
    if let Some(cwd) = event.cwd.as_deref().filter(|c| c.is_dir()) {
        let _ = std::env::set_current_dir(cwd);
    }
    let check = CheckArgs {
        inputs: vec![event.transcript.to_string_lossy().into_owned()],
        tools: args.tools.clone(),
        closed_toolset: args.closed_toolset,
        rules: args.rules.clone(),
        gate: args.gate,
        config: args.config.clone(),
        no_config: args.no_config,
        trust_config: args.trust_config,
        ..CheckArgs::default()
    };
    let settings = super::check::resolve(&check)?;
    let (linter, _) = crate::pipeline::linter(&settings, None)?;
    let gate = Gate {
        fail_on: settings.fail_on,
        never: settings.report_only,
    };
    let state_dir: PathBuf = state::state_dir(args.state_dir.as_deref())
        .context("cannot tell where the user's cache directory is: pass --state-dir DIR")?;
    let mut limits = Limits::default();
    if let Some(t) = args.tail_bytes {
        limits.tail = t;
        limits.pinned = limits.pinned.max(t);
        limits.segment = limits.segment.max(t);
    }
    limits.max_record = settings.limits.max_record;
    let engine = Engine {
        linter: &linter,
        gate,
        ignores: &settings.config.ignores,
        limits,
        state_dir,
    };
    Ok((
        engine.watch(&event.transcript, format, event.call_id.as_deref())?,
        gate,
    ))
}

/// What the user sees: the told findings, the transcript's input problems, history skipped.
fn user_text(told: Option<&str>, outcome: &Outcome) -> Option<String> {
    let mut lines: Vec<String> = told.map(str::to_owned).into_iter().collect();
    for i in outcome.issues.iter().take(3) {
        lines.push(format!(
            "tracelint: {}:{}:{}: {}",
            crate::reporters::escape::terminal(&i.path),
            i.line,
            i.column,
            crate::reporters::escape::terminal(&i.message)
        ));
    }
    if outcome.skipped > 0 {
        lines.push(format!(
            "tracelint: read the session from its last {} KiB on ({} MiB before it not linted)",
            Limits::default().tail >> 10,
            outcome.skipped >> 20
        ));
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// Append the told findings to `path` as JSON Lines.
fn log(path: Option<&Path>, file: &str, told: &[Telling]) -> anyhow::Result<()> {
    let Some(path) = path else { return Ok(()) };
    if told.is_empty() {
        return Ok(());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot make {}", dir.display()))?;
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    let mut text = String::new();
    for t in told {
        let mut v = serde_json::to_value(t)?;
        v["file"] = serde_json::Value::from(file);
        text.push_str(&v.to_string());
        text.push('\n');
    }
    f.write_all(text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Show text in the user's terminal: the controlling terminal when there is one (Codex does not
/// show a notify program's output), else stderr.
#[allow(clippy::print_stderr)]
fn to_terminal(text: &str) {
    #[cfg(unix)]
    if let Ok(mut tty) = std::fs::OpenOptions::new().write(true).open("/dev/tty")
        && writeln!(tty, "{text}").is_ok()
    {
        return;
    }
    eprintln!("{text}");
}
