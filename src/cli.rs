//! The command line, as clap derive types only: no logic. Doc comments are the help text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

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
}

/// `tools` subcommands.
#[derive(Debug, Subcommand)]
pub enum ToolsCommand {
    /// Lint tool definitions: schemas, names, descriptions, poisoning signals, toolset size (rules T1…T13).
    #[command(after_help = TOOLS_LINT_AFTER_HELP)]
    Lint(ToolsLintArgs),
}

const TOOLS_LINT_AFTER_HELP: &str = "\
SOURCE is any `--tools` form: a tools file (MCP `{\"tools\": [...]}`, a bare array, OpenAI or
Anthropic tools, a saved `tools/list` reply, seed 002's map), `mcp-stdio:<command>`,
`mcp-http:<url>`, `builtin:claude-code[@VERSION]` (also codex, gemini-cli), or a trace file, whose
embedded tool schemas are linted. Sources are linted together, as the toolset an agent would get.
Findings point at the offending key's line:col in the tools file. `tracelint rules` lists T1…T13;
`tracelint explain T12` says what a rule checks.

Exit codes: as `check` (0 clean, 1 gate tripped, 2 a hard_defect, 3 input or usage error).

Examples:
  tracelint tools lint tools.json
  tracelint tools lint 'mcp-stdio:npx -y @modelcontextprotocol/server-filesystem .' --format sarif
  tracelint tools lint a.json b.json --select T7,T8,T12 --include-candidates";

/// `tools lint` arguments.
#[derive(Debug, Args, Clone, Default)]
pub struct ToolsLintArgs {
    /// Tool definitions to lint: tools files, `mcp-stdio:<command>`, `mcp-http:<url>`, `builtin:AGENT[@VERSION]`, or trace files (their embedded schemas).
    #[arg(required = true, value_name = "SOURCE")]
    pub sources: Vec<String>,

    /// An HTTP header for `mcp-http:` sources (`Name: value`), e.g. for auth. Repeatable.
    #[arg(long = "header", value_name = "NAME: VALUE", help_heading = "Schemas")]
    pub headers: Vec<String>,

    /// Budget for starting an MCP server and listing its tools (default 30 s).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds, help_heading = "Schemas")]
    pub mcp_timeout: Option<std::time::Duration>,

    /// The longest description (T11), in estimated tokens (default 500).
    #[arg(long, value_name = "TOKENS", help_heading = "Rules")]
    pub description_budget: Option<usize>,

    /// A lock written by `tracelint mcp pin`: a tool whose description changed since is a T12 candidate.
    #[arg(long, value_name = "LOCK", help_heading = "Rules")]
    pub pin: Option<PathBuf>,

    /// What stdout gets: text (default), json, sarif, html or github.
    #[arg(long, alias = "format", value_name = "FORMAT", help_heading = "Output", value_parser = Listed::output_formats(false), hide_possible_values = true)]
    pub output_format: Option<String>,

    /// Also write the JSON report to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub json: Option<PathBuf>,

    /// Also write a SARIF 2.1.0 log to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub sarif: Option<PathBuf>,

    /// Also write the HTML report to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub html: Option<PathBuf>,

    /// SARIF `artifactLocation.uri`s relative to DIR (default: the repository root).
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    pub sarif_root: Option<PathBuf>,

    /// Show candidates in text output (JSON, SARIF and HTML always carry them).
    #[arg(long, help_heading = "Output")]
    pub include_candidates: bool,

    /// List the suppressions (rule checks that could not decide) with their reasons.
    #[arg(long, help_heading = "Output")]
    pub show_suppressions: bool,

    /// Print findings only: no notes on stderr.
    #[arg(long, short = 'q', help_heading = "Output")]
    pub quiet: bool,

    /// Colour: auto (default; honours NO_COLOR, never colours a pipe), always, never.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto, value_name = "WHEN", help_heading = "Output")]
    pub color: ColorArg,

    /// Run only these tool rules (comma-separated or repeated: `T7,T12`).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "RULES",
        help_heading = "Rules"
    )]
    pub select: Vec<String>,

    /// Skip these tool rules.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "RULES",
        help_heading = "Rules"
    )]
    pub ignore: Vec<String>,

    /// The lowest tier that fails the run: hard_defect (default, exit 2), hard_event or candidate (exit 1), or never.
    #[arg(long, value_enum, value_name = "TIER", help_heading = "Rules")]
    pub fail_on: Option<FailOn>,

    /// Report only: exit 0 whatever is found; an input or usage error still exits 3.
    #[arg(long, alias = "warn-only", help_heading = "Rules")]
    pub exit_zero: bool,

    /// Read the config from FILE (default: the nearest `tracelint.toml` upward).
    #[arg(long, value_name = "FILE", help_heading = "Config")]
    pub config: Option<PathBuf>,

    /// Read no config file.
    #[arg(long, help_heading = "Config", conflicts_with = "config")]
    pub no_config: bool,
}

/// `tracelint mcp …` subcommands.
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Stand between an agent and its MCP server (stdio): forward every message unchanged,
    /// record the session as a trace, inject faults into `tools/call` replies.
    #[command(after_help = MCP_PROXY_AFTER_HELP)]
    Proxy(McpProxyArgs),
    /// Pin a server's tools (names, descriptions, schemas, annotations, a digest each) in a lock
    /// file; `check --tools tools.lock` reads it offline.
    Pin(McpPinArgs),
    /// Say what changed between a lock and a server's tools now: exit 1 when anything did,
    /// silent exit 0 when nothing did.
    Diff(McpDiffArgs),
}

/// `mcp pin` arguments.
#[derive(Debug, Args)]
pub struct McpPinArgs {
    /// Where the tools come from: `mcp-stdio:<command>`, `mcp-http:<url>` or a tools file.
    #[arg(value_name = "SOURCE")]
    pub source: String,
    /// The lock file to write.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: std::path::PathBuf,
    /// How long to wait for the server, in seconds.
    #[arg(long, default_value = "30", value_name = "SECS", value_parser = parse_seconds)]
    pub mcp_timeout: std::time::Duration,
}

/// `mcp diff` arguments.
#[derive(Debug, Args)]
pub struct McpDiffArgs {
    /// The lock written by `tracelint mcp pin`.
    #[arg(value_name = "LOCK")]
    pub lock: String,
    /// The tools now: `mcp-stdio:<command>`, `mcp-http:<url>` or a tools file.
    #[arg(value_name = "SOURCE")]
    pub source: String,
    /// How long to wait for the server, in seconds.
    #[arg(long, default_value = "30", value_name = "SECS", value_parser = parse_seconds)]
    pub mcp_timeout: std::time::Duration,
}

const MCP_PROXY_AFTER_HELP: &str = "\
Put the proxy where the agent's MCP configuration names the server:
  \"command\": \"tracelint\", \"args\": [\"mcp\", \"proxy\", \"--record\", \"runs\", \"--\", \"npx\", \"-y\", \"server\"]
Each session becomes DIR/mcp-<time>-<pid>.jsonl (a native trace, one step per line, written as it
happens); `tracelint check DIR` lints it against the tools the server listed.

Examples:
  tracelint mcp proxy --record runs -- mcp-server-time --local-timezone UTC
  tracelint mcp proxy --record runs --inject error --at 2 --seed 1 -- node server.js stdio
  tracelint mcp proxy --record runs --inject timeout,rate_limit --rate 0.2 --tool search --seed 7 -- ./server";

/// `mcp proxy` arguments.
#[derive(Debug, Args)]
pub struct McpProxyArgs {
    /// Write one trace per MCP session in this folder (created if missing).
    #[arg(long, value_name = "DIR")]
    pub record: Option<std::path::PathBuf>,
    /// Faults to inject into `tools/call` replies, comma-separated: timeout, error, rate_limit,
    /// malformed_json, empty, truncated, wrong_schema, denied.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "FAULT,…",
        help_heading = "Fault injection"
    )]
    pub inject: Vec<String>,
    /// Inject into each eligible call with this probability (default 1 without `--at`).
    #[arg(
        long,
        value_name = "P",
        conflicts_with = "at",
        help_heading = "Fault injection"
    )]
    pub rate: Option<f64>,
    /// Inject into the N-th eligible call only (counted from 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), help_heading = "Fault injection")]
    pub at: Option<u64>,
    /// Only calls of this tool are eligible (repeatable; default: every tool).
    #[arg(long = "tool", value_name = "NAME", help_heading = "Fault injection")]
    pub tools: Vec<String>,
    /// Seed of the draws: the same seed and the same calls give the same injections.
    #[arg(
        long,
        default_value_t = 1,
        value_name = "S",
        help_heading = "Fault injection"
    )]
    pub seed: u64,
    /// How long a `timeout` fault holds a reply the client never cancels, in seconds.
    #[arg(
        long,
        default_value_t = 60.0,
        value_name = "SECS",
        help_heading = "Fault injection"
    )]
    pub hold: f64,
    /// Refuse the server's `tools/list` (a JSON-RPC error to the agent) when its tools differ
    /// from this lock (`tracelint mcp pin`).
    #[arg(long, value_name = "LOCK")]
    pub pin: Option<String>,
    /// With `--pin`: only warn on stderr, and pass the listing through.
    #[arg(long, requires = "pin")]
    pub pin_warn: bool,
    /// Longest message line the proxy reads, in bytes (longer ones pass through unrecorded).
    #[arg(long, default_value_t = 64 << 20, value_name = "BYTES")]
    pub max_line: usize,
    /// Streamable HTTP: listen on this address (loopback unless `--allow-remote`) and forward
    /// to `--upstream`.
    #[arg(
        long,
        value_name = "ADDR:PORT",
        requires = "upstream",
        conflicts_with = "command",
        help_heading = "Streamable HTTP"
    )]
    pub listen: Option<std::net::SocketAddr>,
    /// The MCP endpoint to forward to (`http://127.0.0.1:3001/mcp`).
    #[arg(
        long,
        value_name = "URL",
        requires = "listen",
        help_heading = "Streamable HTTP"
    )]
    pub upstream: Option<String>,
    /// Let `--listen` take a non-loopback address (anyone who can reach it can use the server).
    #[arg(long, help_heading = "Streamable HTTP")]
    pub allow_remote: bool,
    /// The server's command and arguments, after `--` (stdio).
    #[arg(
        last = true,
        required_unless_present = "listen",
        value_name = "SERVER_CMD"
    )]
    pub command: Vec<String>,
}

const DEMO_AFTER_HELP: &str = "\
The suite is built in (it works from any folder, offline): one planted defect per rule, which that
rule must catch; clean controls, which must stay silent; and legitimate-but-suspicious cases (a
retry after a 503, 1,234.56 reformatted as 1234.56, a generated idempotency key), which must stay
below a verdict. Then the recovery scorecard of the built-in robust and buggy agents under every
fault. Exit 0 when every case behaves, 1 otherwise.

Examples:
  tracelint demo
  tracelint demo --html demo.html --runs 50";

/// `demo` arguments.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Also write the suite, the scorecards and every finding as one self-contained HTML page.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Scorecard runs per fault (at least 1).
    #[arg(long, default_value_t = 20, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Scorecard seed.
    #[arg(long, default_value_t = 1, value_name = "S")]
    pub seed: u64,
}

const SCORECARD_AFTER_HELP: &str = "\
The built-in task asks an agent to cancel order A-1001 if it has not shipped. The robust agent
checks each lookup and retries or stops safely; the buggy agent acts on whatever came back. A run
with no fault comes first (the baseline): if it fails the task's oracle, recovery is not measured.
Each fault is injected into one tool result (tagged `injected`), --runs times, with draws seeded by
--seed; the table gives recovered/total, the rate and a 95% Wilson interval, and how many runs
tracelint flagged.

Faults: timeout, error, rate_limit, malformed_json, empty, truncated, wrong_schema, denied

Examples:
  tracelint scorecard --demo --runs 50
  tracelint scorecard --demo --buggy --faults timeout,error,denied --runs 20 --seed 7
  tracelint scorecard --demo --output-format json";

/// `scorecard` arguments.
#[derive(Debug, Args)]
pub struct ScorecardArgs {
    /// Score the built-in order-support task (the only task built in).
    #[arg(long)]
    pub demo: bool,
    /// Score the buggy agent instead of the robust one.
    #[arg(long)]
    pub buggy: bool,
    /// Faults to inject, comma-separated (default: all eight).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub faults: Vec<String>,
    /// Runs per fault (and for the baseline), at least 1; or, without `--demo`, a folder of MCP
    /// sessions recorded by `tracelint mcp proxy --record` to score (with `--oracle`).
    #[arg(long, default_value = "20", value_name = "N", value_parser = RunsParser)]
    pub runs: RunsArg,
    /// With `--runs DIR`: the expectations file (TOML `[[expect]]`) that judges each run.
    #[arg(long, value_name = "ORACLE.toml")]
    pub oracle: Option<std::path::PathBuf>,
    /// With `--runs DIR`: also write the card as HTML.
    #[arg(long, value_name = "FILE")]
    pub html: Option<std::path::PathBuf>,
    /// Seed for every draw; the same seed reproduces the same table.
    #[arg(long, default_value_t = 1, value_name = "S")]
    pub seed: u64,
    /// The call (counted from 1) whose result gets the fault.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub inject_at: usize,
    /// Judge without the task's oracle: behavioural recovery ("did not crash"), a weaker claim.
    #[arg(long)]
    pub no_oracle: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ScorecardFormat::Text, value_name = "FORMAT")]
    pub output_format: ScorecardFormat,
}

/// `scorecard --runs`: a number of runs (the built-in task), or a folder of recorded runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunsArg {
    /// Runs per fault.
    Count(u32),
    /// Recorded runs.
    Dir(std::path::PathBuf),
}

/// Digits are a count (held to `1..`), anything else a folder.
#[derive(Debug, Clone, Copy)]
struct RunsParser;

impl clap::builder::TypedValueParser for RunsParser {
    type Value = RunsArg;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<RunsArg, clap::Error> {
        let digits = value
            .to_str()
            .is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
        if digits {
            clap::value_parser!(u32)
                .range(1..)
                .parse_ref(cmd, arg, value)
                .map(RunsArg::Count)
        } else {
            Ok(RunsArg::Dir(std::path::PathBuf::from(value)))
        }
    }
}

/// `scorecard --output-format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScorecardFormat {
    /// A table.
    Text,
    /// JSON.
    Json,
}

const INFER_AFTER_HELP: &str = "\
Examples:
  tracelint infer transcript.jsonl -o tools.json --pretty
  tracelint infer 'transcripts/*.jsonl' -o tools.json --enum-max 5

Each tool's schema unions the argument keys of its calls; a key is required when every call has
it; integer and number merge to number; nested objects and array items are inferred too; a string
with at most --enum-max distinct values becomes an enum. Unless --no-validate, the inputs are then
linted against the result (R1, R7).";

const COMPLETIONS_AFTER_HELP: &str = "\
Examples:
  tracelint completions bash > ~/.local/share/bash-completion/completions/tracelint
  tracelint completions zsh > \"${fpath[1]}/_tracelint\"
  tracelint completions fish > ~/.config/fish/completions/tracelint.fish
  tracelint completions powershell >> $PROFILE";

const CHECK_AFTER_HELP: &str = "\
Examples:
  tracelint check trace.jsonl --tools tools.json
  tracelint check 'traces/**/*.jsonl' --tools tools.json --output-format json
  tracelint check session.jsonl --tools tools.json --json report.json --include-candidates
  tracelint check traces/ --tools tools.json --sarif tracelint.sarif --html report.html
  cat trace.json | tracelint check - --tools tools.json

Adopting tracelint on traces that already have findings (record once, commit the file; then CI
fails only on new findings):
  tracelint check traces/ --baseline tracelint-baseline.json --update-baseline
  tracelint check traces/ --baseline tracelint-baseline.json
A baseline matches findings per trace file by rule, tier, tools, fields and signal (never by step,
line or run id), so re-recorded traces still match. It also records what each rule could check: a
run that checks less (a schema deleted, arguments no longer recorded) exits 1 unless --no-ratchet.

Exit codes (highest wins):
  0  no finding at or above the --fail-on tier (always, with --exit-zero or --fail-on never,
     unless an input error)
  1  only a non-default --fail-on gate tripped (candidates or hard events), or coverage was
     lost against the baseline
  2  a hard_defect
  3  input or usage error (unreadable file, malformed input, bad tools source, unknown rule)";

/// `check` arguments.
#[derive(Debug, Args, Clone, Default)]
pub struct CheckArgs {
    /// Traces to lint: files, directories (walked for .json/.jsonl/.ndjson), globs, or `-` for stdin.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,

    /// Where tool schemas come from: a tools file, `mcp-stdio:<command>`, `mcp-http:<url>` or `builtin:claude-code[@VERSION]`. Repeatable. Claude Code sessions linted without it use the built-in schemas.
    #[arg(
        long = "tools",
        short = 't',
        value_name = "SOURCE",
        help_heading = "Schemas"
    )]
    pub tools: Vec<String>,

    /// A call to a tool absent from the registry is a hard_defect (R7).
    #[arg(long, help_heading = "Schemas")]
    pub closed_toolset: bool,

    /// An HTTP header sent to `mcp-http:` servers, e.g. `--header 'Authorization: Bearer …'`. Repeatable.
    #[arg(long = "header", value_name = "NAME: VALUE", help_heading = "Schemas")]
    pub headers: Vec<String>,

    /// Seconds an MCP server may take to start, answer the handshake and list its tools (`2.5`, `30s`, `500ms`) [default: 30].
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds, help_heading = "Schemas")]
    pub mcp_timeout: Option<std::time::Duration>,

    /// Input format; `auto` decides from content, never from the file name.
    #[arg(long, value_enum, value_name = "FORMAT", help_heading = "Input")]
    pub input_format: Option<InputFormatArg>,

    /// Largest single record (JSON Lines line or JSON document) in bytes (at least 1).
    #[arg(long, value_name = "BYTES", value_parser = parse_record_size, help_heading = "Input")]
    pub max_record_size: Option<usize>,

    /// What goes to stdout: text, json, json-lines, sarif, html or github. `--format native|openai|openinference|otel|langfuse` (seed 002's spelling) sets the input format instead.
    #[arg(long, alias = "format", value_name = "FORMAT", help_heading = "Output", value_parser = Listed::output_formats(true), hide_possible_values = true)]
    pub output_format: Option<String>,

    /// Also write the JSON report to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub json: Option<PathBuf>,

    /// Also write a SARIF 2.1.0 log to FILE (GitHub code scanning).
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub sarif: Option<PathBuf>,

    /// Also write a self-contained HTML report to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub html: Option<PathBuf>,

    /// Also write the text report (no colour) to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub text: Option<PathBuf>,

    /// The directory SARIF URIs and GitHub annotation paths are relative to (default: the git top level, else the working directory).
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    pub sarif_root: Option<PathBuf>,

    /// Most results in a SARIF log [default: 5000, what GitHub code scanning keeps per run]; past it candidates are left out first, then hard events, never a hard defect (said in the log and on stderr). 0: no cap.
    #[arg(long, value_name = "N", help_heading = "Output")]
    pub sarif_max_results: Option<usize>,

    /// Most findings a report lists [default: 100000; JSON Lines, which `report` merges: no cap]; past it candidates are left out first, then hard events, then hard defects, each latest first (said in the report). The counts and the exit code always cover every finding. 0: no cap.
    #[arg(long, value_name = "N", help_heading = "Output")]
    pub max_findings: Option<usize>,

    /// Show candidates in text output (JSON always carries them).
    #[arg(long, help_heading = "Output")]
    pub include_candidates: bool,

    /// List every suppression with its reason.
    #[arg(long, help_heading = "Output")]
    pub show_suppressions: bool,

    /// Print findings and input errors only, no footer.
    #[arg(long, short = 'q', help_heading = "Output")]
    pub quiet: bool,

    /// When to use colour (honours NO_COLOR; never colours a pipe in `auto`).
    #[arg(long, value_enum, default_value_t = ColorArg::Auto, value_name = "WHEN", help_heading = "Output")]
    pub color: ColorArg,

    /// Run only these rules (comma-separated or repeated; `R2` = R2a and R2b).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "RULES",
        help_heading = "Rules"
    )]
    pub select: Vec<String>,

    /// Skip these rules.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "RULES",
        help_heading = "Rules"
    )]
    pub ignore: Vec<String>,

    /// The lowest tier that fails the run: hard_defect (default, exit 2), hard_event or candidate (exit 1), or never (report only: exit 0 unless an input error).
    #[arg(long, value_enum, value_name = "TIER", help_heading = "Rules")]
    pub fail_on: Option<FailOn>,

    /// Report only: exit 0 whatever is found; an input or usage error still exits 3. Same as `--fail-on never`.
    #[arg(long, alias = "warn-only", help_heading = "Rules")]
    pub exit_zero: bool,

    /// Check the run against the expectations in FILE (reference trajectories and assertions, rule E1; `tracelint explain E1`); may repeat, and adds to the config's `[[expect]]` tables.
    #[arg(long = "expect", value_name = "FILE", help_heading = "Rules")]
    pub expect: Vec<PathBuf>,

    /// Accept the findings recorded in FILE and fail only on new ones; also fail (exit 1) when a rule checks less than it did (default: the config's `baseline`).
    #[arg(long, value_name = "FILE", help_heading = "Baseline")]
    pub baseline: Option<PathBuf>,

    /// Record what the traces show now into the baseline file (entries of trace files not linted are kept), then report against it.
    #[arg(long, help_heading = "Baseline")]
    pub update_baseline: bool,

    /// With a baseline, do not fail when a rule checks less than the baseline recorded (config: `ratchet = false`).
    #[arg(long, help_heading = "Baseline")]
    pub no_ratchet: bool,

    /// Read settings from this file instead of the nearest tracelint.toml.
    #[arg(long, value_name = "FILE", help_heading = "Config")]
    pub config: Option<PathBuf>,

    /// Ignore any tracelint.toml / pyproject.toml.
    #[arg(long, help_heading = "Config", conflicts_with = "config")]
    pub no_config: bool,

    /// Let a config found by searching upward start `mcp-stdio:` servers and open `mcp-http:`
    /// URLs (also `TRACELINT_TRUST_CONFIG=1`). Without it those sources are skipped with a note:
    /// a repository's config is data, and in CI it may come from an untrusted pull request.
    #[arg(long, help_heading = "Config", conflicts_with = "no_config")]
    pub trust_config: bool,

    /// Threads to use (default: all cores; at most 4 per core).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,

    /// Only read and parse every record; lint nothing (benchmarks).
    #[arg(long, hide = true)]
    pub parse_only: bool,
}

const DOCTOR_AFTER_HELP: &str = "\
Examples:
  tracelint doctor traces/
  tracelint doctor 'runs/**/*.jsonl' --tools tools.json --group-by tool
  tracelint doctor traces/ --json > record.json
  tracelint doctor traces/ --fail-under 80 --fail-under R1=95

doctor lints the inputs exactly as `check` does (same tools, config and built-in schemas), so its
per-rule coverage is the one `check` prints in its footer. It then says what could not be checked
and why, per format and per rule (no schema, arguments not recorded, results missing, unknown
status), which tools lack which contract section, and what to add to light a rule up. It judges the
record, never the agent: findings are not shown (run `check` for them).

Exit codes: 0 (advisory), 1 when a --fail-under gate is not met, 3 when nothing could be read (or,
with --fail-under, when any input could not be read).";

/// `doctor` arguments.
#[derive(Debug, Args, Clone)]
pub struct DoctorArgs {
    /// Traces to examine: files, directories, globs, or `-` for stdin (any input format).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,

    /// Where tool schemas come from, as for `check`. Repeatable.
    #[arg(
        long = "tools",
        short = 't',
        value_name = "SOURCE",
        help_heading = "Schemas"
    )]
    pub tools: Vec<String>,

    /// An HTTP header sent to `mcp-http:` servers. Repeatable.
    #[arg(long = "header", value_name = "NAME: VALUE", help_heading = "Schemas")]
    pub headers: Vec<String>,

    /// Seconds an MCP server may take to list its tools [default: 30].
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds, help_heading = "Schemas")]
    pub mcp_timeout: Option<std::time::Duration>,

    /// Input format; `auto` decides from content.
    #[arg(long, value_enum, value_name = "FORMAT", help_heading = "Input")]
    pub input_format: Option<InputFormatArg>,

    /// Largest single record (JSON Lines line or JSON document) in bytes (at least 1).
    #[arg(long, value_name = "BYTES", value_parser = parse_record_size, help_heading = "Input")]
    pub max_record_size: Option<usize>,

    /// The main breakdown: by rule (default), by tool or by input file.
    #[arg(long, value_enum, default_value_t = GroupBy::Rule, value_name = "BY", help_heading = "Output")]
    pub group_by: GroupBy,

    /// Print the diagnosis as JSON instead of text.
    #[arg(long, help_heading = "Output")]
    pub json: bool,

    /// Exit 1 when coverage is below PCT: `80` for all rules together, `R1=95` for one rule. Repeatable.
    #[arg(long, value_name = "[RULE=]PCT", help_heading = "Gate")]
    pub fail_under: Vec<String>,

    /// Examine only these rules (comma-separated or repeated).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "RULES",
        help_heading = "Rules"
    )]
    pub select: Vec<String>,

    /// Leave these rules out.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "RULES",
        help_heading = "Rules"
    )]
    pub ignore: Vec<String>,

    /// Read settings from this file instead of the nearest tracelint.toml.
    #[arg(long, value_name = "FILE", help_heading = "Config")]
    pub config: Option<PathBuf>,

    /// Ignore any tracelint.toml / pyproject.toml.
    #[arg(long, help_heading = "Config", conflicts_with = "config")]
    pub no_config: bool,

    /// Threads to use (default: all cores; at most 4 per core).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
}

/// `doctor --group-by` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GroupBy {
    /// Per rule: coverage and why units were not checked.
    Rule,
    /// Per tool: calls, coverage by rule, contract gaps.
    Tool,
    /// Per input file: format, record quality, coverage by rule.
    File,
}

const INIT_AFTER_HELP: &str = "\
Examples:
  tracelint init traces/ -o tools.json
  tracelint init session.jsonl --tools mcp-stdio:'npx -y @modelcontextprotocol/server-filesystem .' -o tools.json
  tracelint init spans.json --input-format otel > tools.json

Each tool called in the inputs gets the best schema there is, in this order: a --tools source (a
tools file, an MCP server), a schema embedded in the traces (an OpenAI request's `tools`,
OpenInference `llm.tools`), Claude Code's built-in schemas for a Claude Code session, and only then
one inferred from the calls (marked for review; never an enum learned from a call that failed
validation or whose result was an error). What a trace cannot prove — `side_effecting`,
`idempotent`, `failure_when`, `requires` — is written as a `_todo` list in each tool's `metadata`
for a human to answer, never as a guessed fact. The file loads with `--tools` as it is.

An existing output file is never overwritten without --force.";

/// `init` arguments.
#[derive(Debug, Args, Clone)]
pub struct InitArgs {
    /// Traces to learn the tools from: files, directories, globs, or `-` for stdin.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,

    /// A real schema source to take schemas from (a tools file, `mcp-stdio:`, `mcp-http:`, `builtin:claude-code[@VERSION]`). Repeatable.
    #[arg(long = "tools", short = 't', value_name = "SOURCE")]
    pub tools: Vec<String>,

    /// An HTTP header sent to `mcp-http:` servers. Repeatable.
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,

    /// Seconds an MCP server may take to list its tools [default: 30].
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub mcp_timeout: Option<std::time::Duration>,

    /// Where to write the tools file (`-`, the default, is stdout).
    #[arg(long, short = 'o', value_name = "FILE", default_value = "-")]
    pub output: PathBuf,

    /// Overwrite the output file if it exists.
    #[arg(long)]
    pub force: bool,

    /// An inferred string property with at most N distinct values gets an enum (0 turns enums off).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub enum_max: usize,

    /// Input format; `auto` decides from content.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormatArg>,

    /// Read settings (`tools`, `input-format`) from this file instead of the nearest tracelint.toml.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Ignore any tracelint.toml / pyproject.toml.
    #[arg(long, conflicts_with = "config")]
    pub no_config: bool,
}

/// `--input-format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormatArg {
    /// Decide from the content.
    Auto,
    /// tracelint's native trace JSON.
    Native,
    /// Claude Code session JSONL, Claude CLI stream-json.
    Claude,
    /// OpenAI chat / Responses messages, ShareGPT, Anthropic Messages.
    Openai,
    /// Langfuse trace export.
    Langfuse,
    /// OpenTelemetry spans (OpenInference, OTLP JSON, GenAI semconv).
    #[value(alias = "openinference")]
    Otel,
    /// Codex CLI rollouts (`~/.codex/sessions/…/rollout-*.jsonl`).
    Codex,
    /// Gemini CLI sessions (`~/.gemini/tmp/<project>/chats/session-*.json[l]`).
    #[value(name = "gemini-cli", alias = "gemini")]
    GeminiCli,
    /// Cline task histories (`api_conversation_history.json`) and SDK sessions.
    Cline,
    /// GitHub Copilot CLI sessions (`~/.copilot/session-state/<id>/events.jsonl`).
    #[value(name = "copilot-cli", alias = "copilot")]
    CopilotCli,
    /// Inspect AI eval logs (`.json`, `.eval`).
    #[value(alias = "inspect-ai")]
    Inspect,
    /// Harbor ATIF trajectories.
    Atif,
    /// LangSmith run trees.
    Langsmith,
    /// SWE-agent `.traj` trajectories.
    SweAgent,
    /// mini-swe-agent trajectories.
    #[value(name = "mini-swe-agent")]
    MiniSweAgent,
    /// OpenHands trajectories.
    Openhands,
    /// Datasets of runs, one trajectory per row.
    Dataset,
}

impl InputFormatArg {
    /// The input format chosen (`None`: detect it).
    pub fn format(self) -> Option<crate::adapters::InputFormat> {
        use crate::adapters::InputFormat as F;
        match self {
            InputFormatArg::Auto => None,
            InputFormatArg::Native => Some(F::Native),
            InputFormatArg::Claude => Some(F::Claude),
            InputFormatArg::Openai => Some(F::OpenAi),
            InputFormatArg::Langfuse => Some(F::Langfuse),
            InputFormatArg::Otel => Some(F::Otel),
            InputFormatArg::Inspect => Some(F::Inspect),
            InputFormatArg::Atif => Some(F::Atif),
            InputFormatArg::Langsmith => Some(F::LangSmith),
            InputFormatArg::SweAgent => Some(F::SweAgent),
            InputFormatArg::MiniSweAgent => Some(F::MiniSwe),
            InputFormatArg::Openhands => Some(F::OpenHands),
            InputFormatArg::Dataset => Some(F::Dataset),
            InputFormatArg::Codex => Some(F::Codex),
            InputFormatArg::GeminiCli => Some(F::GeminiCli),
            InputFormatArg::Cline => Some(F::Cline),
            InputFormatArg::CopilotCli => Some(F::CopilotCli),
        }
    }
}

/// `--fail-on` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Fail (exit 2) only on structurally provable defects.
    #[value(name = "hard_defect", alias = "hard-defect")]
    HardDefect,
    /// Also fail (exit 1) on certain events such as a tool returning an error.
    #[value(name = "hard_event", alias = "hard-event")]
    HardEvent,
    /// Also fail (exit 1) on heuristic candidates.
    Candidate,
    /// Never fail on a finding (report only); an input error still exits 3.
    Never,
}

/// `--color` values.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    /// Colour a terminal, not a pipe; honour NO_COLOR.
    #[default]
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// `rules` arguments.
#[derive(Debug, Args)]
pub struct RulesArgs {
    /// Print the table as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `explain` arguments.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The rule id (R1, R2a, …), or `builtin:claude-code` for the built-in schemas.
    #[arg(value_parser = Listed::rules(), hide_possible_values = true)]
    pub rule: String,
}

/// `infer` arguments.
#[derive(Debug, Args, Clone)]
pub struct InferArgs {
    /// Traces to learn from: files, directories, globs, or `-` for stdin (any input format).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,

    /// Where to write the inferred tools file (`-` for stdout).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: PathBuf,

    /// Indent the JSON.
    #[arg(long)]
    pub pretty: bool,

    /// Do not lint the inputs against the inferred schemas.
    #[arg(long)]
    pub no_validate: bool,

    /// A string property with at most N distinct values gets an enum (0 turns enums off).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub enum_max: usize,

    /// Input format; `auto` decides from content.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormatArg>,
}

/// `completions` arguments.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

const REPORT_AFTER_HELP: &str = "\
Examples:
  tracelint check shard-a/ --output-format json-lines > a.jsonl   # on one machine
  tracelint check shard-b/ --output-format json-lines > b.jsonl   # on another
  tracelint report a.jsonl b.jsonl --sarif tracelint.sarif --html report.html

The report is the one a single `check` over every shard's inputs would have written, in the order
the shards are given, and so is the exit code. Each shard must be a whole run (it ends with a `run`
record; one cut short is an input error), made with the same config, and hold whole sessions: a
sub-agent's file with its parent session, every file of a split OpenTelemetry trace together.

Exit codes (highest wins): as `check`: 0, 1 (a --fail-on gate), 2 (a hard_defect), 3 (an input
error in a shard's run, or a shard that cannot be read)";

/// `report` arguments.
#[derive(Debug, Args, Clone)]
pub struct ReportArgs {
    /// JSON Lines shards written by `check --output-format json-lines`, or `-` for stdin; their inputs are reported in this order.
    #[arg(required = true, value_name = "SHARD")]
    pub shards: Vec<String>,

    /// What goes to stdout: text, json, json-lines, sarif, html or github.
    #[arg(long, alias = "format", value_name = "FORMAT", default_value = "text", help_heading = "Output", value_parser = Listed::output_formats(false), hide_possible_values = true)]
    pub output_format: String,

    /// Also write the JSON report to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub json: Option<PathBuf>,

    /// Also write a SARIF 2.1.0 log to FILE (GitHub code scanning).
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub sarif: Option<PathBuf>,

    /// Also write a self-contained HTML report to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub html: Option<PathBuf>,

    /// The directory SARIF URIs and GitHub annotation paths are relative to (default: the git top level, else the working directory).
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    pub sarif_root: Option<PathBuf>,

    /// Most results in a SARIF log [default: 5000]; 0: no cap.
    #[arg(long, value_name = "N", help_heading = "Output")]
    pub sarif_max_results: Option<usize>,

    /// Show candidates in text output.
    #[arg(long, help_heading = "Output")]
    pub include_candidates: bool,

    /// List every suppression with its reason.
    #[arg(long, help_heading = "Output")]
    pub show_suppressions: bool,

    /// Print findings and input errors only, no footer.
    #[arg(long, short = 'q', help_heading = "Output")]
    pub quiet: bool,

    /// When to use colour (honours NO_COLOR; never colours a pipe in `auto`).
    #[arg(long, value_enum, default_value_t = ColorArg::Auto, value_name = "WHEN", help_heading = "Output")]
    pub color: ColorArg,

    /// The lowest tier that fails the run (default: the one the shards were checked with).
    #[arg(long, value_enum, value_name = "TIER")]
    pub fail_on: Option<FailOn>,
}

/// A value parser that accepts any string (the command checks it and says what is allowed) but
/// lists the usual values, so shell completions offer them instead of file names.
#[derive(Debug, Clone)]
pub struct Listed(Vec<clap::builder::PossibleValue>);

/// Output format names (`reporters::OutputFormat::NAMES`; a test holds the two together).
pub const OUTPUT_FORMATS: &[&str] = &["text", "json", "json-lines", "sarif", "html", "github"];

impl Listed {
    /// The output formats; with `legacy`, also (hidden from completion) the input format names
    /// `--format` accepts in seed 002's spelling.
    fn output_formats(legacy: bool) -> Self {
        use clap::builder::PossibleValue;
        let mut values: Vec<PossibleValue> = OUTPUT_FORMATS
            .iter()
            .map(|n| PossibleValue::new(*n))
            .collect();
        values.push(PossibleValue::new("jsonl").hide(true));
        if legacy {
            // Seed 002's input names for `--format` (a fixed list: newer input formats have no
            // legacy spelling).
            for name in ["native", "openai", "openinference", "otel", "langfuse"] {
                values.push(PossibleValue::new(name).hide(true));
            }
        }
        Listed(values)
    }

    /// The rule ids (and `builtin:claude-code`), for `explain`.
    fn rules() -> Self {
        use clap::builder::PossibleValue;
        let mut values: Vec<PossibleValue> = crate::finding::RuleId::ALL
            .iter()
            .map(|r| PossibleValue::new(r.as_str()))
            .collect();
        values.push(PossibleValue::new("builtin:claude-code"));
        Listed(values)
    }
}

impl clap::builder::TypedValueParser for Listed {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(self.0.iter().cloned()))
    }
}

/// The largest `--max-record-size`: 64 GiB, far past any memory a record could be held in
/// (and small enough that no size arithmetic on it can overflow).
pub const MAX_RECORD_SIZE_LIMIT: u64 = 64 << 30;

/// A record size limit: a whole number of bytes, from 1 (0 would make every file "too large" and
/// read as a format problem) to `MAX_RECORD_SIZE_LIMIT`.
fn parse_record_size(s: &str) -> Result<usize, String> {
    match s.trim().parse::<u64>() {
        Ok(0) => Err("must be at least 1 byte".to_owned()),
        Ok(n) if n > MAX_RECORD_SIZE_LIMIT => Err(format!(
            "must be at most {MAX_RECORD_SIZE_LIMIT} bytes (64 GiB)"
        )),
        Ok(n) => usize::try_from(n).map_err(|_| "too large for this machine".to_owned()),
        Err(_) => Err(format!("`{s}` is not a number of bytes")),
    }
}

/// The worker threads for `--jobs N`: all cores by default, and never more than 4 per core (a
/// thread per input beyond that only costs memory and start-up), with a note when capped.
pub fn worker_threads(requested: Option<usize>) -> (usize, Option<String>) {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let cap = cores.saturating_mul(4);
    match requested {
        None | Some(0) => (cores, None),
        Some(n) if n > cap => (
            cap,
            Some(format!(
                "--jobs {n} is more than 4 threads per core: using {cap} ({cores} cores)"
            )),
        ),
        Some(n) => (n, None),
    }
}

/// A positive duration: seconds (`30`, `2.5`, `30s`) or milliseconds (`500ms`), at most a day.
fn parse_seconds(s: &str) -> Result<std::time::Duration, String> {
    let t = s.trim();
    let (number, scale) = if let Some(ms) = t.strip_suffix("ms") {
        (ms, 0.001)
    } else {
        (t.strip_suffix('s').unwrap_or(t), 1.0)
    };
    let secs = number
        .trim()
        .parse::<f64>()
        .ok()
        .map(|n| n * scale)
        .filter(|n| n.is_finite() && *n > 0.0 && *n <= 86_400.0)
        .ok_or_else(|| {
            format!("`{s}` is not a duration: give seconds such as `30` or `2.5`, or `500ms`")
        })?;
    Ok(std::time::Duration::from_secs_f64(secs))
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
    "help",
];

/// Insert `check` when the first argument is not a subcommand or a global flag, so
/// `tracelint FILE --tools T` works (seed 000's form). A first argument that is no file, reads
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn timeouts() {
        use std::time::Duration;
        assert_eq!(parse_seconds("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_seconds("2.5"), Ok(Duration::from_millis(2500)));
        assert_eq!(parse_seconds("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_seconds("500ms"), Ok(Duration::from_millis(500)));
        for bad in ["0", "-1", "abc", "1e9", "NaN", ""] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn implicit_check() {
        let a = |v: &[&str]| with_implicit_check(v.iter().map(Into::into).collect());
        assert_eq!(a(&["tracelint", "t.json", "--tools", "x"])[1], "check");
        assert_eq!(a(&["tracelint", "--tools", "x", "t.json"])[1], "check");
        assert_eq!(a(&["tracelint", "rules"])[1], "rules");
        assert_eq!(a(&["tracelint", "infer", "t.json", "-o", "x"])[1], "infer");
        assert_eq!(a(&["tracelint", "completions", "bash"])[1], "completions");
        assert_eq!(a(&["tracelint", "--version"])[1], "--version");
        // A mistyped subcommand is left for clap's "did you mean"; a path never is.
        assert_eq!(a(&["tracelint", "chek", "t.json"])[1], "chek");
        assert_eq!(a(&["tracelint", "doctr", "t.json"])[1], "doctr");
        assert_eq!(a(&["tracelint", "chek.jsonl"])[1], "check");
        assert_eq!(a(&["tracelint", "traces/chek"])[1], "check");
        assert_eq!(a(&["tracelint", "session"])[1], "check");
    }
}
