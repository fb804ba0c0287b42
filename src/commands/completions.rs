//! `tracelint completions SHELL`: the completion script clap_complete generates from the CLI
//! definition, on stdout. Owns nothing else.

use std::io::Write;

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};
use crate::exit::ExitStatus;

/// `tracelint completions`.
pub fn run(args: &CompletionsArgs) -> anyhow::Result<ExitStatus> {
    let mut out = std::io::stdout().lock();
    write(args.shell, &mut out)?;
    out.flush()?;
    Ok(ExitStatus::Clean)
}

/// Write the script for `shell`.
pub fn write(shell: clap_complete::Shell, out: &mut dyn Write) -> std::io::Result<()> {
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "tracelint", &mut buf);
    if shell == clap_complete::Shell::Fish {
        fish_positionals(&mut buf);
    }
    out.write_all(&buf)
}

/// clap_complete's fish script completes options only ("the fish generator currently only
/// supports named options"): a subcommand's positional argument with listed values (`completions
/// SHELL`, `explain RULE`) would complete file names. One `complete` line per such subcommand
/// offers its values instead, using the script's own `__fish_tracelint_using_subcommand`.
fn fish_positionals(buf: &mut Vec<u8>) {
    let cmd = Cli::command();
    for sub in cmd.get_subcommands() {
        for arg in sub.get_positionals() {
            let values: Vec<String> = arg
                .get_possible_values()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| v.get_name().to_owned())
                .collect();
            if values.is_empty() {
                continue;
            }
            buf.extend_from_slice(
                format!(
                    "complete -c tracelint -n \"__fish_tracelint_using_subcommand {}\" -f -a \"{}\"\n",
                    sub.get_name(),
                    values.join(" ")
                )
                .as_bytes(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(shell: clap_complete::Shell) -> String {
        let mut out = Vec::new();
        write(shell, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn bash_script_parses_with_bash_n() {
        let text = script(clap_complete::Shell::Bash);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tracelint.bash");
        std::fs::write(&path, &text).unwrap();
        let status = std::process::Command::new("bash")
            .arg("-n")
            .arg(&path)
            .status()
            .expect("bash must be installed to check the completion script");
        assert!(status.success(), "bash -n rejected the script");
        // It completes the subcommands and check's flags.
        for word in ["infer", "completions", "--sarif-root", "--output-format"] {
            assert!(text.contains(word), "{word} missing");
        }
    }

    #[test]
    fn every_shell_has_a_script() {
        use clap_complete::Shell;
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish, Shell::PowerShell] {
            assert!(script(shell).contains("tracelint"), "{shell}");
        }
    }
}
