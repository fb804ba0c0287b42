//! `InputFormat`: the formats tracelint reads, their names and flags, and each one's content sniff.

use serde_json::Value;

use crate::adapters::{antigravity, atif, claude, cline, codex, copilot, dataset, gemini, inspect, langfuse, langsmith, managed, miniswe, native, openai, opencode, openhands, otel, pi, sweagent};

/// The input formats tracelint reads.
///
/// ```
/// use tracelint::InputFormat;
/// assert_eq!(InputFormat::parse("otel"), Some(InputFormat::Otel));
/// assert_eq!(InputFormat::Claude.name(), "claude");
/// assert!(InputFormat::ALL.contains(&InputFormat::Codex));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum InputFormat {
    /// Seed 002's native trace JSON.
    Native,
    /// Claude Code session JSONL, Claude CLI `stream-json`, flat tool-use event lines.
    Claude,
    /// OpenAI chat messages / Responses items, ShareGPT, Anthropic Messages.
    OpenAi,
    /// Langfuse trace exports.
    Langfuse,
    /// OpenTelemetry spans: OpenInference, OTLP JSON, GenAI semantic conventions.
    Otel,
    /// Codex CLI rollouts, and the events `codex exec --json` prints.
    Codex,
    /// Gemini CLI sessions (JSON or JSON Lines).
    GeminiCli,
    /// Cline task histories and SDK sessions.
    Cline,
    /// GitHub Copilot CLI `events.jsonl`.
    CopilotCli,
    /// pi coding-agent sessions (`~/.pi/agent/sessions/…/*.jsonl`).
    Pi,
    /// OpenCode sessions (`opencode export`, `opencode run --format json`).
    OpenCode,
    /// Google Antigravity conversation transcripts (`transcript*.jsonl`) and step logs (a
    /// trajectory's `CORTEX_STEP_TYPE_…` steps).
    Antigravity,
    /// Claude Managed Agents session events (`agent.tool_use`, `agent.tool_result`, …).
    ManagedAgents,
    /// Inspect AI eval logs (`.json`, and `.eval` zip archives).
    Inspect,
    /// Harbor ATIF trajectories (`agent/trajectory.json`).
    Atif,
    /// SWE-agent `.traj` trajectories.
    SweAgent,
    /// mini-swe-agent trajectories (current, and legacy bash blocks in text).
    MiniSwe,
    /// OpenHands trajectories (an array of events).
    OpenHands,
    /// LangSmith run trees (`child_runs` nested).
    LangSmith,
    /// Datasets of agent runs, one trajectory per row (SWE-Gym, SWE-smith, Toucan, …).
    Dataset,
}

impl InputFormat {
    /// Every format, in detection order.
    pub const ALL: &'static [InputFormat] = &[
        InputFormat::Native,
        InputFormat::Claude,
        InputFormat::OpenAi,
        InputFormat::Langfuse,
        InputFormat::Otel,
        InputFormat::Codex,
        InputFormat::GeminiCli,
        InputFormat::Cline,
        InputFormat::CopilotCli,
        InputFormat::Pi,
        InputFormat::OpenCode,
        InputFormat::Antigravity,
        InputFormat::ManagedAgents,
        InputFormat::Inspect,
        InputFormat::Atif,
        InputFormat::SweAgent,
        InputFormat::MiniSwe,
        InputFormat::OpenHands,
        InputFormat::LangSmith,
        InputFormat::Dataset,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Native => "native",
            InputFormat::Claude => "claude",
            InputFormat::OpenAi => "openai",
            InputFormat::Langfuse => "langfuse",
            InputFormat::Otel => "otel",
            InputFormat::Codex => "codex",
            InputFormat::GeminiCli => "gemini-cli",
            InputFormat::Cline => "cline",
            InputFormat::CopilotCli => "copilot-cli",
            InputFormat::Pi => "pi",
            InputFormat::OpenCode => "opencode",
            InputFormat::Antigravity => "antigravity",
            InputFormat::ManagedAgents => "managed-agents",
            InputFormat::Inspect => "inspect",
            InputFormat::Atif => "atif",
            InputFormat::SweAgent => "swe-agent",
            InputFormat::MiniSwe => "mini-swe-agent",
            InputFormat::OpenHands => "openhands",
            InputFormat::LangSmith => "langsmith",
            InputFormat::Dataset => "dataset",
        }
    }

    /// Parse a format name (`openinference` is an alias of `otel`).
    pub fn parse(s: &str) -> Option<InputFormat> {
        match s.trim().to_ascii_lowercase().as_str() {
            "native" => Some(InputFormat::Native),
            "claude" | "claude-code" => Some(InputFormat::Claude),
            "openai" => Some(InputFormat::OpenAi),
            "langfuse" => Some(InputFormat::Langfuse),
            "otel" | "openinference" | "opentelemetry" => Some(InputFormat::Otel),
            "codex" | "codex-cli" | "codex-exec" => Some(InputFormat::Codex),
            "gemini-cli" | "gemini" => Some(InputFormat::GeminiCli),
            "cline" => Some(InputFormat::Cline),
            "copilot-cli" | "copilot" => Some(InputFormat::CopilotCli),
            "pi" | "pi-coding-agent" => Some(InputFormat::Pi),
            "opencode" => Some(InputFormat::OpenCode),
            "antigravity" | "google-antigravity" => Some(InputFormat::Antigravity),
            "managed-agents" | "claude-managed-agents" => Some(InputFormat::ManagedAgents),
            "inspect" | "inspect-ai" | "inspect_ai" => Some(InputFormat::Inspect),
            "atif" | "harbor" => Some(InputFormat::Atif),
            "swe-agent" | "swe_agent" | "sweagent" => Some(InputFormat::SweAgent),
            "mini-swe-agent" | "mini_swe_agent" | "mini" => Some(InputFormat::MiniSwe),
            "openhands" => Some(InputFormat::OpenHands),
            "langsmith" => Some(InputFormat::LangSmith),
            "dataset" => Some(InputFormat::Dataset),
            _ => None,
        }
    }

    pub(super) fn sniff(self, record: &Value) -> u8 {
        match self {
            InputFormat::Native => native::sniff(record),
            InputFormat::Claude => claude::sniff(record),
            InputFormat::OpenAi => openai::sniff(record),
            InputFormat::Langfuse => langfuse::sniff(record),
            InputFormat::Otel => otel::sniff(record),
            InputFormat::Codex => codex::sniff(record),
            InputFormat::GeminiCli => gemini::sniff(record),
            InputFormat::Cline => cline::sniff(record),
            InputFormat::CopilotCli => copilot::sniff(record),
            InputFormat::Pi => pi::sniff(record),
            InputFormat::OpenCode => opencode::sniff(record),
            InputFormat::Antigravity => antigravity::sniff(record),
            InputFormat::ManagedAgents => managed::sniff(record),
            InputFormat::Inspect => inspect::sniff(record),
            InputFormat::Atif => atif::sniff(record),
            InputFormat::SweAgent => sweagent::sniff(record),
            InputFormat::MiniSwe => miniswe::sniff(record),
            InputFormat::OpenHands => openhands::sniff(record),
            InputFormat::LangSmith => langsmith::sniff(record),
            InputFormat::Dataset => dataset::sniff(record),
        }
    }
}

impl std::fmt::Display for InputFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
