//! `tracelint rules`, `explain` and `completions` arguments: the commands that print reference.

use clap::Args;

use super::Listed;

pub(super) const COMPLETIONS_AFTER_HELP: &str = "\
Examples:
  tracelint completions bash > ~/.local/share/bash-completion/completions/tracelint
  tracelint completions zsh > \"${fpath[1]}/_tracelint\"
  tracelint completions fish > ~/.config/fish/completions/tracelint.fish
  tracelint completions powershell >> $PROFILE
  tracelint completions elvish > ~/.config/elvish/lib/tracelint.elv   (then `use tracelint` in rc.elv)";

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

/// `completions` arguments.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}
