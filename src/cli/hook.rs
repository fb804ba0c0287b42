//! `tracelint hook` arguments: one subcommand per agent, and `install`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::{FailGate, RuleSelection};

/// `hook` subcommands.
#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Claude Code's hook (PostToolUse, PostToolUseFailure, Stop, SubagentStop): lints the session so far and tells the agent what to act on.
    #[command(name = "claude-code", after_help = CLAUDE_AFTER_HELP)]
    ClaudeCode(HookArgs),
    /// Gemini CLI's hook (AfterTool, AfterAgent; Gemini CLI 0.24 or later): lints the session so far and tells the agent what to act on.
    #[command(name = "gemini-cli", after_help = GEMINI_AFTER_HELP)]
    GeminiCli(HookArgs),
    /// Codex's `notify` program (after each turn): lints the session so far and tells the user; Codex gives it no way to tell the agent.
    #[command(after_help = CODEX_AFTER_HELP)]
    Codex(CodexHookArgs),
    /// Write tracelint's hook into an agent's settings (again: no change; `--uninstall` removes only ours).
    #[command(after_help = INSTALL_AFTER_HELP)]
    Install(InstallArgs),
}

const CLAUDE_AFTER_HELP: &str = "\
Reads the hook event (JSON) on stdin and lints the session file it names, as `tracelint check`
would (built-in schemas, `--tools`, `--select`, `--ignore`, `--fail-on`, tracelint.toml found
from the session's working directory), but only the lines added since its last call, with the
recent part of the session around them: each call costs about the same however long the
session grows. Each finding is told once.

What reaches the agent (the model reads it with the call's result): a hard defect, a tool call
that failed when the agent's next call did not deal with it (R2a), a value only a failed result
supplied used by a later call (R2b); with --fail-on, every finding at or above that tier. On
Stop and SubagentStop, findings at or above the --fail-on tier (default hard_defect) make the
agent go on to fix them, once (never again while `stop_hook_active`); nothing blocks on a
candidate unless --fail-on candidate. The user sees the same lines in the terminal.

It cannot see the result of the call it runs after (Claude Code writes it after the hook): that
result is linted on the next call or at Stop. A value seen only long before the recent part of
the session is judged without it (R3, R5 and whether R2b's value came from elsewhere).

An internal error is reported once on stderr and the hook exits 0, so a broken hook never stops
the agent; --strict makes it an error. Install with `tracelint hook install claude-code`.";

const GEMINI_AFTER_HELP: &str = "\
Reads the hook event (JSON) on stdin and lints the chat recording it names (`transcript_path`)
the way `tracelint hook claude-code` lints a Claude Code session. After a tool call
(AfterTool) the findings are appended to the call's result the model reads; after the agent's
turn (AfterAgent) findings at or above the --fail-on tier send the agent back to work, once.

Hooks are on by default from Gemini CLI 0.24.0; 0.15 to 0.22 have them behind
`tools.enableHooks: true` in settings.json; older releases have none. Project hooks run only in
a trusted folder. Install with `tracelint hook install gemini-cli`.";

const CODEX_AFTER_HELP: &str = "\
Codex runs its `notify` program after each turn with a JSON notification as the last argument;
this finds the turn's rollout by its thread id and lints what it gained since the last turn.
Codex gives the program no way back to the agent: the findings go to the user's terminal and
to a report (JSON Lines, one finding a line; --report, by default in the state directory's
`reports/` folder), never to the model. It runs once a turn, so nothing is told before the turn
ends. Install with `tracelint hook install codex` (it sets `notify` in ~/.codex/config.toml).";

const INSTALL_AFTER_HELP: &str = "\
Claude Code: adds `tracelint hook claude-code` for PostToolUse, PostToolUseFailure, Stop and
SubagentStop to .claude/settings.json (--project, the default) or ~/.claude/settings.json
(--user). Gemini CLI: AfterTool and AfterAgent in .gemini/settings.json or
~/.gemini/settings.json. Codex: `notify = [\"tracelint\", \"hook\", \"codex\"]` in
$CODEX_HOME/config.toml (~/.codex; Codex reads no project file for it), unless `notify` is set
already. Everything else in the file is kept as it is; a second run changes nothing; --uninstall
removes only what install added. Prints what it wrote.

Examples:
  tracelint hook install claude-code
  tracelint hook install gemini-cli --user -- --fail-on hard_event
  tracelint hook install codex --uninstall";

/// Options of the agent hooks.
#[derive(Debug, Args, Clone, Default)]
pub struct HookArgs {
    /// Where tool schemas come from (as `check --tools`); default: the agent's built-in schemas.
    #[arg(long = "tools", short = 't', value_name = "SOURCE")]
    pub tools: Vec<String>,

    /// A call to a tool absent from the registry is a hard_defect (R7).
    #[arg(long)]
    pub closed_toolset: bool,

    #[command(flatten)]
    pub rules: RuleSelection,

    #[command(flatten)]
    pub gate: FailGate,

    /// Read settings from this file instead of the nearest tracelint.toml above the session's working directory.
    #[arg(long, value_name = "FILE", help_heading = "Config")]
    pub config: Option<PathBuf>,

    /// Ignore any tracelint.toml / pyproject.toml.
    #[arg(long, help_heading = "Config", conflicts_with = "config")]
    pub no_config: bool,

    /// Let a tracelint.toml found by searching upward start `mcp-stdio:` servers and open `mcp-http:` URLs (as `check --trust-config`).
    #[arg(long, help_heading = "Config", conflicts_with = "no_config")]
    pub trust_config: bool,

    /// Where the hook keeps what it read and told, one small file per session (default: `tracelint/hooks` in the user's cache directory; also TRACELINT_HOOK_DIR).
    #[arg(long, value_name = "DIR", help_heading = "Hook")]
    pub state_dir: Option<PathBuf>,

    /// Also append every finding told, one JSON object a line, to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Hook")]
    pub log: Option<PathBuf>,

    /// Most findings told in full at once; the rest are counted [default: 3].
    #[arg(long, value_name = "N", help_heading = "Hook")]
    pub max_told: Option<usize>,

    /// An internal error (an unreadable state directory, a bad event) fails the hook (exit 3) instead of one line on stderr and exit 0.
    #[arg(long, help_heading = "Hook")]
    pub strict: bool,

    /// Bytes of the session's recent lines linted with the new ones [default: 524288].
    #[arg(long, value_name = "BYTES", hide = true)]
    pub tail_bytes: Option<u64>,
}

/// `hook codex` arguments.
#[derive(Debug, Args, Clone, Default)]
pub struct CodexHookArgs {
    #[command(flatten)]
    pub hook: HookArgs,

    /// Append the findings told (JSON Lines) to FILE instead of `reports/codex-<thread>.jsonl` in the state directory.
    #[arg(long, value_name = "FILE", help_heading = "Hook")]
    pub report: Option<PathBuf>,

    /// Codex's home, where its `sessions/` are [default: $CODEX_HOME, else ~/.codex].
    #[arg(long, value_name = "DIR", help_heading = "Hook")]
    pub codex_home: Option<PathBuf>,

    /// The notification Codex passes (JSON).
    #[arg(value_name = "NOTIFICATION")]
    pub notification: String,
}

pub use crate::hook::HookAgent;

/// `hook install` arguments.
#[derive(Debug, Args, Clone)]
pub struct InstallArgs {
    /// The agent whose settings to edit.
    #[arg(value_enum, value_name = "AGENT")]
    pub agent: HookAgent,

    /// The project's settings in the working directory (the default for Claude Code and Gemini CLI).
    #[arg(long, conflicts_with = "user")]
    pub project: bool,

    /// The user's settings in the home directory (the only place Codex reads `notify` from).
    #[arg(long)]
    pub user: bool,

    /// Remove tracelint's hook; everything else in the file stays as it is.
    #[arg(long)]
    pub uninstall: bool,

    /// Edit this settings file instead.
    #[arg(long, value_name = "FILE")]
    pub settings: Option<PathBuf>,

    /// The program the hook runs [default: `tracelint` when it is this one on PATH, else this executable's path].
    #[arg(long, value_name = "PROGRAM")]
    pub program: Option<String>,

    /// Flags for the hook itself, after `--` (e.g. `-- --fail-on hard_event`).
    #[arg(last = true, value_name = "HOOK FLAGS")]
    pub flags: Vec<String>,
}
