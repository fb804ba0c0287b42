//! The command line, as clap derive types only: no logic. Doc comments are the help text.

mod check;
mod demo;
mod doctor;
mod hook;
mod infer;
mod init;
mod mcp;
mod output;
mod reference;
mod report;
mod rules;
mod scorecard;
mod tools;
mod values;
mod walk;

#[cfg(test)]
mod tests;

use clap::{Parser, Subcommand};

pub use check::CheckArgs;
pub use demo::DemoArgs;
pub use doctor::{DoctorArgs, DoctorFormat, GroupBy};
pub use hook::{CodexHookArgs, HookAgent, HookArgs, HookCommand};
pub use infer::InferArgs;
pub use init::InitArgs;
pub use mcp::{McpCommand, McpDiffArgs, McpPinArgs, McpProxyArgs};
pub use output::{DisplayArgs, OutputFiles};
pub use reference::{CompletionsArgs, ExplainArgs, RulesArgs};
pub use report::ReportArgs;
pub use rules::{FailGate, RuleSelection};
pub use scorecard::{RunsArg, ScorecardArgs, ScorecardFormat};
pub use tools::{ToolsCommand, ToolsLintArgs};
pub use walk::WalkArgs;
#[cfg_attr(not(any(test, feature = "__internal")), allow(unused_imports))] // used by tests only
pub use values::{
    ColorArg, FailOn, InputFormatArg, Listed, MAX_RECORD_SIZE_LIMIT, OUTPUT_FORMATS, worker_threads,
};

use check::CHECK_AFTER_HELP;
use demo::DEMO_AFTER_HELP;
use doctor::DOCTOR_AFTER_HELP;
use infer::INFER_AFTER_HELP;
use init::INIT_AFTER_HELP;
use output::reword;
use reference::COMPLETIONS_AFTER_HELP;
use report::REPORT_AFTER_HELP;
use scorecard::SCORECARD_AFTER_HELP;
use values::{parse_line_size, parse_record_size, parse_seconds};

/// Lint what a tool-calling AI agent actually did.
///
/// tracelint reads an agent's transcript or trace (Claude Code sessions, OpenAI messages,
/// Langfuse exports, OpenTelemetry / OpenInference spans, native traces), checks every tool call
/// against the tools' JSON Schemas, and finds structural bugs — ignored tool errors, hallucinated
/// arguments, loops, redundant calls, malformed arguments, unknown tools — each with the exact
/// file:line evidence. No model judges anything.
///
/// `tracelint FILE… [--tools SOURCE]` is short for `tracelint check FILE… [--tools SOURCE]`;
/// `--tools` is optional (Claude Code sessions use the built-in schemas, other traces the schemas
/// they carry).
///
/// Adopting it on traces that already have findings: `tracelint doctor` says what can be checked,
/// `tracelint init` writes a starter tools file, and `check --update-baseline` accepts today's
/// findings so CI fails only on new ones.
#[derive(Debug, Parser)]
#[command(
    name = "tracelint",
    version,
    propagate_version = true,
    override_usage = "tracelint <COMMAND>\n       tracelint <INPUT>... [--tools <SOURCE>]... [OPTIONS]  (same as `tracelint check`)",
    after_help = crate::exit::EXIT_CODES_HELP
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
// NOTE: parsed once per process; boxing `CheckArgs` would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lint traces; the exit code gates CI.
    #[command(after_help = CHECK_AFTER_HELP)]
    Check(CheckArgs),
    /// Say how much of a corpus the rules can check, what they cannot and what to add.
    #[command(after_help = DOCTOR_AFTER_HELP)]
    Doctor(DoctorArgs),
    /// Write a starter tools file from traces: real schemas first, behaviour left as `_todo`.
    #[command(after_help = INIT_AFTER_HELP)]
    Init(InitArgs),
    /// List the rules.
    Rules(RulesArgs),
    /// Explain a rule: what it checks, its tiers, an example, how to fix.
    Explain(ExplainArgs),
    /// Infer tool schemas from the calls in traces (an MCP-style tools.json).
    #[command(after_help = INFER_AFTER_HELP)]
    Infer(InferArgs),
    /// Print a shell completion script.
    #[command(after_help = COMPLETIONS_AFTER_HELP)]
    Completions(CompletionsArgs),
    /// Run the keyless validation suite and the recovery scorecard (start here).
    #[command(after_help = DEMO_AFTER_HELP)]
    Demo(DemoArgs),
    /// Render one report from JSON Lines shards (`check --output-format json-lines` on several machines).
    #[command(after_help = REPORT_AFTER_HELP)]
    Report(ReportArgs),
    /// Recovery scorecard: inject faults into a built-in task and measure recovery.
    #[command(after_help = SCORECARD_AFTER_HELP)]
    Scorecard(ScorecardArgs),
    /// Check tool definitions themselves (`tools lint`), before an agent ever calls them.
    #[command(subcommand)]
    Tools(ToolsCommand),
    /// MCP tools: record an agent's MCP traffic through a proxy, inject faults into it.
    #[command(subcommand)]
    Mcp(McpCommand),
    /// Lint a coding agent's session while it works, from its hooks (Claude Code, Gemini CLI, Codex), and tell the agent.
    #[command(subcommand)]
    Hook(HookCommand),
}

/// Subcommand names, for the implicit `check` (`tracelint FILE --tools T`).
pub const SUBCOMMANDS: &[&str] = &[
    "check",
    "doctor",
    "init",
    "rules",
    "explain",
    "infer",
    "completions",
    "demo",
    "scorecard",
    "mcp",
    "report",
    "tools",
    "hook",
    "help",
];

/// Insert `check` when the first argument is not a subcommand or a global flag, so
/// `tracelint FILE --tools T` works (the short form). A first argument that is no file, reads
/// like a word rather than a path and is close to a subcommand's name (`chek`) is left for clap,
/// which says "a similar subcommand exists: 'check'" instead of linting a file named `chek`.
pub fn with_implicit_check(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    if let Some(first) = args.get(1).and_then(|a| a.to_str()) {
        let global = matches!(first, "-h" | "--help" | "-V" | "--version");
        if !global && !SUBCOMMANDS.contains(&first) && !is_subcommand_typo(first) {
            args.insert(1, "check".into());
        }
    }
    args
}

/// A mistyped subcommand: not an existing path, no path or glob characters, and close to a name.
fn is_subcommand_typo(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with('-')
        && !word.contains(['/', '\\', '.', '*', '?', '[', ':'])
        && !std::path::Path::new(word).exists()
        && crate::suggest::closest_name(word, SUBCOMMANDS.iter().copied()).is_some()
}
