//! The value types and parsers the arguments share: input format, `--fail-on`, `--color`, the
//! listed-but-open output formats and rule ids, record sizes, durations, worker threads.

use clap::ValueEnum;

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
    /// Codex CLI rollouts (`~/.codex/sessions/…/rollout-*.jsonl`), `codex exec --json` output.
    #[value(alias = "codex-cli", alias = "codex-exec")]
    Codex,
    /// Gemini CLI sessions (`~/.gemini/tmp/<project>/chats/session-*.json[l]`).
    #[value(name = "gemini-cli", alias = "gemini")]
    GeminiCli,
    /// Cline task histories (`api_conversation_history.json`) and SDK sessions.
    Cline,
    /// GitHub Copilot CLI sessions (`~/.copilot/session-state/<id>/events.jsonl`).
    #[value(name = "copilot-cli", alias = "copilot")]
    CopilotCli,
    /// pi coding-agent sessions (`~/.pi/agent/sessions/…/*.jsonl`).
    #[value(alias = "pi-coding-agent")]
    Pi,
    /// OpenCode sessions (`opencode export`, `opencode run --format json`).
    Opencode,
    /// Google Antigravity conversation transcripts (`brain/<id>/.system_generated/logs/transcript*.jsonl`)
    /// and step logs (`CORTEX_STEP_TYPE_…` steps).
    #[value(alias = "google-antigravity")]
    Antigravity,
    /// Claude Managed Agents session events (`agent.tool_use`, `agent.tool_result`, …).
    #[value(alias = "claude-managed-agents")]
    ManagedAgents,
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
            InputFormatArg::Pi => Some(F::Pi),
            InputFormatArg::Opencode => Some(F::OpenCode),
            InputFormatArg::Antigravity => Some(F::Antigravity),
            InputFormatArg::ManagedAgents => Some(F::ManagedAgents),
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

/// A value parser that accepts any string (the command checks it and says what is allowed) but
/// lists the usual values, so shell completions offer them instead of file names.
#[derive(Debug, Clone)]
pub struct Listed(Vec<clap::builder::PossibleValue>);

/// Output format names (`reporters::OutputFormat::NAMES`; a test holds the two together).
pub const OUTPUT_FORMATS: &[&str] = &["text", "json", "json-lines", "sarif", "html", "github"];

impl Listed {
    /// The output formats; with `legacy`, also (hidden from completion) the input format names
    /// `check --format` still accepts (the Python tracelint's spelling), read as `--input-format`.
    pub(super) fn output_formats(legacy: bool) -> Self {
        use clap::builder::PossibleValue;
        let mut values: Vec<PossibleValue> = OUTPUT_FORMATS
            .iter()
            .map(|n| PossibleValue::new(*n))
            .collect();
        values.push(PossibleValue::new("jsonl").hide(true));
        if legacy {
            // The Python tracelint's input names for `--format` (a fixed list: newer input
            // formats have no legacy spelling).
            for name in ["native", "openai", "openinference", "otel", "langfuse"] {
                values.push(PossibleValue::new(name).hide(true));
            }
        }
        Listed(values)
    }

    /// The rule ids (and `builtin:claude-code`), for `explain`.
    pub(super) fn rules() -> Self {
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
pub(super) fn parse_record_size(s: &str) -> Result<usize, String> {
    match s.trim().parse::<u64>() {
        Ok(0) => Err("must be at least 1 byte".to_owned()),
        Ok(n) if n > MAX_RECORD_SIZE_LIMIT => Err(format!(
            "must be at most {MAX_RECORD_SIZE_LIMIT} bytes (64 GiB)"
        )),
        Ok(n) => usize::try_from(n).map_err(|_| "too large for this machine".to_owned()),
        Err(_) => Err(format!("`{s}` is not a number of bytes")),
    }
}

/// The smallest `mcp proxy --max-line`: a line budget below it would leave no room for a
/// `tools/list` reply.
pub const MIN_LINE_SIZE: usize = 1024;

/// `mcp proxy --max-line`: a whole number of bytes from `MIN_LINE_SIZE` to
/// `MAX_RECORD_SIZE_LIMIT` (0, or a few bytes, would record no message at all).
pub(super) fn parse_line_size(s: &str) -> Result<usize, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if n < MIN_LINE_SIZE as u64 => Err(format!("must be at least {MIN_LINE_SIZE} bytes")),
        _ => parse_record_size(s),
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
pub(super) fn parse_seconds(s: &str) -> Result<std::time::Duration, String> {
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
