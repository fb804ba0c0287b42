//! The source names users write for the built-in tool catalogues (`builtin:claude-code`,
//! `builtin:codex`, `builtin:gemini-cli`): what each catalogue and its origins table are keyed by.

/// The source name users write for Claude Code.
pub const CLAUDE_CODE: &str = crate::model::runtime::BUILTIN_CLAUDE_CODE;

/// The source name users write for the Codex CLI.
pub const CODEX: &str = crate::model::runtime::BUILTIN_CODEX;

/// The source name users write for the Gemini CLI.
pub const GEMINI_CLI: &str = crate::model::runtime::BUILTIN_GEMINI_CLI;
