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

    /// What `shell` offers after `line` (ending with a space: the next word), run in a
    /// directory holding a file, so offering file names would show it.
    fn offered(shell: clap_complete::Shell, line: &str) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("decoy.txt"), "").unwrap();
        let path = dir.path().join("script");
        std::fs::write(&path, script(shell)).unwrap();
        let words: Vec<&str> = line.split_whitespace().collect();
        let (program, args): (&str, Vec<String>) = match shell {
            clap_complete::Shell::Bash => (
                "bash",
                vec![
                    "-c".into(),
                    format!(
                        "source {}; COMP_WORDS=({} ''); COMP_CWORD={}; COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}; _tracelint tracelint '' {}; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
                        path.display(),
                        words.join(" "),
                        words.len(),
                        words[words.len() - 1]
                    ),
                ],
            ),
            clap_complete::Shell::Fish => (
                "fish",
                vec![
                    "--no-config".into(),
                    "-c".into(),
                    format!("source {}; complete -C '{line}'", path.display()),
                ],
            ),
            other => panic!("no driver for {other}"),
        };
        let out = std::process::Command::new(program)
            .args(&args)
            .current_dir(dir.path())
            .output()
            .unwrap_or_else(|e| {
                panic!("{program} must be installed to check its completions: {e}")
            });
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            // fish prints `value<TAB>description`.
            .map(|l| l.split('\t').next().unwrap_or("").to_owned())
            .filter(|l| !l.is_empty())
            .collect()
    }

    #[test]
    fn bash_and_fish_complete_values_not_file_names() {
        use clap_complete::Shell;
        let formats = ["text", "json", "json-lines", "sarif", "html", "github"];
        for shell in [Shell::Bash, Shell::Fish] {
            for (line, want) in [
                ("tracelint check --output-format ", &formats[..]),
                ("tracelint report --output-format ", &formats[..]),
                (
                    "tracelint explain ",
                    &["R1", "R2a", "R7", "builtin:claude-code"][..],
                ),
                ("tracelint completions ", &["bash", "zsh", "fish"][..]),
            ] {
                let got = offered(shell, line);
                for w in want {
                    assert!(
                        got.iter().any(|g| g == w),
                        "{shell} `{line}`: {w} not in {got:?}"
                    );
                }
                assert!(
                    !got.iter().any(|g| g.contains("decoy")),
                    "{shell} `{line}` offers file names: {got:?}"
                );
                // The hidden legacy spellings are accepted but not offered.
                assert!(
                    !got.iter().any(|g| g == "jsonl" || g == "openai"),
                    "{got:?}"
                );
            }
        }
    }

    #[test]
    fn zsh_lists_the_values() {
        // zsh completes only in an interactive shell; its script says which values it offers.
        let text = script(clap_complete::Shell::Zsh);
        assert_eq!(
            text.matches(":FORMAT:(text json json-lines sarif html github)")
                .count(),
            3,
            "check, report and tools lint --output-format"
        );
        let rules: Vec<&str> = crate::finding::RuleId::ALL
            .iter()
            .map(|r| r.as_str())
            .collect();
        let listed = format!(":({} builtin\\:claude-code)", rules.join(" "));
        assert!(text.contains(&listed), "{listed}");
    }

    #[test]
    fn every_shell_has_a_script() {
        use clap_complete::Shell;
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish, Shell::PowerShell] {
            assert!(script(shell).contains("tracelint"), "{shell}");
        }
    }
}
