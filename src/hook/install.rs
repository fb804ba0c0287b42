//! `tracelint hook install`: write the hook into an agent's settings, idempotently. Claude Code
//! and Gemini CLI keep hooks in a JSON settings file (`hooks.<Event>: [{matcher, hooks:
//! [{type: "command", command}]}]`); the file is edited as text (`json_edit`), so everything
//! else in it stays byte for byte, a second install finds its entries and changes nothing, and
//! `--uninstall` takes out exactly what was added (a file install created is removed again).
//! Codex takes one `notify` program, a top-level key of `config.toml`: install adds it (with a
//! comment line saying whose it is) at the top of the file, unless the user has one already.

use std::path::PathBuf;

use anyhow::{Context, bail};
use serde::Serialize;
use serde_json::Value;

use super::HookAgent;
use crate::exit::ExitStatus;

use super::json_edit::{self, Node};

/// What `hook install` was asked to do (the command line's `hook install` arguments).
#[derive(Debug, Clone)]
pub struct Install {
    /// The agent whose settings to edit.
    pub agent: HookAgent,
    /// The project's settings in the working directory.
    pub project: bool,
    /// The user's settings in the home directory.
    pub user: bool,
    /// Remove tracelint's hook instead.
    pub uninstall: bool,
    /// Edit this settings file instead.
    pub settings: Option<PathBuf>,
    /// The program the hook runs.
    pub program: Option<String>,
    /// Flags for the hook itself.
    pub flags: Vec<String>,
}

/// The events the hook is installed for, and whether each takes a tool matcher.
fn events(agent: HookAgent) -> &'static [(&'static str, bool)] {
    match agent {
        HookAgent::ClaudeCode => &[
            ("PostToolUse", true),
            ("PostToolUseFailure", true),
            ("Stop", false),
            ("SubagentStop", false),
        ],
        HookAgent::GeminiCli => &[("AfterTool", true), ("AfterAgent", false)],
        HookAgent::Codex => &[],
    }
}

fn subcommand(agent: HookAgent) -> &'static str {
    match agent {
        HookAgent::ClaudeCode => "claude-code",
        HookAgent::GeminiCli => "gemini-cli",
        HookAgent::Codex => "codex",
    }
}

/// `tracelint hook install`.
#[allow(clippy::print_stdout)]
pub(crate) fn run(args: &Install) -> anyhow::Result<ExitStatus> {
    let path = settings_path(args)?;
    let program = match &args.program {
        Some(p) => p.clone(),
        None => default_program(),
    };
    let before = match std::fs::read(&path) {
        Ok(b) => Some(String::from_utf8(b).with_context(|| format!("{} is not UTF-8", path.display()))?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let (after, said) = if args.agent == HookAgent::Codex {
        let argv = codex_argv(&program, &args.flags);
        codex_edit(before.as_deref(), &argv, args.uninstall).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
    } else {
        let command = hook_command(&program, subcommand(args.agent), &args.flags);
        json_settings(before.as_deref(), args.agent, &command, args.uninstall)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
    };
    let shown = crate::reporters::escape::terminal(&path.to_string_lossy()).into_owned();
    if after.as_deref() == before.as_deref() {
        println!("{shown}: unchanged ({said})");
        return Ok(ExitStatus::Clean);
    }
    match after {
        Some(text) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot make {}", dir.display()))?;
            }
            std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        }
        None => std::fs::remove_file(&path)
            .with_context(|| format!("cannot remove {}", path.display()))?,
    }
    println!("{shown}: {said}");
    Ok(ExitStatus::Clean)
}

/// The settings file to edit.
fn settings_path(args: &Install) -> anyhow::Result<PathBuf> {
    if let Some(p) = &args.settings {
        return Ok(p.clone());
    }
    let home = || -> anyhow::Result<PathBuf> {
        std::env::var_os(if cfg!(windows) { "USERPROFILE" } else { "HOME" })
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .context("cannot find the home directory: pass --settings FILE")
    };
    Ok(match args.agent {
        HookAgent::ClaudeCode if args.user => match std::env::var_os("CLAUDE_CONFIG_DIR") {
            Some(d) if !d.is_empty() => PathBuf::from(d).join("settings.json"),
            _ => home()?.join(".claude").join("settings.json"),
        },
        HookAgent::ClaudeCode => PathBuf::from(".claude").join("settings.json"),
        HookAgent::GeminiCli if args.user => home()?.join(".gemini").join("settings.json"),
        HookAgent::GeminiCli => PathBuf::from(".gemini").join("settings.json"),
        HookAgent::Codex if args.project => bail!(
            "Codex reads `notify` from the user's config only: run `tracelint hook install codex` (it edits $CODEX_HOME/config.toml, ~/.codex by default)"
        ),
        HookAgent::Codex => super::codex::default_home()
            .context("cannot find Codex's home: set CODEX_HOME or pass --settings FILE")?
            .join("config.toml"),
    })
}

/// `tracelint` when the `tracelint` on PATH is this executable, else this executable's path.
fn default_program() -> String {
    let me = std::env::current_exe().ok().and_then(|p| p.canonicalize().ok());
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(if cfg!(windows) { "tracelint.exe" } else { "tracelint" }))
            .find(|p| p.is_file())
            .and_then(|p| p.canonicalize().ok())
    });
    match (me, on_path) {
        (Some(me), Some(found)) if me == found => "tracelint".to_owned(),
        (Some(me), _) => me.to_string_lossy().into_owned(),
        (None, _) => "tracelint".to_owned(),
    }
}

/// The shell command a Claude Code or Gemini CLI hook runs.
fn hook_command(program: &str, sub: &str, flags: &[String]) -> String {
    let quote = |s: &str| {
        shlex::try_quote(s).map_or_else(|_| s.to_owned(), std::borrow::Cow::into_owned)
    };
    let mut parts = vec![quote(program), "hook".to_owned(), sub.to_owned()];
    parts.extend(flags.iter().map(|f| quote(f)));
    parts.join(" ")
}

/// Is this hooks-list entry one of ours: a command running `hook <sub>` of tracelint (or of
/// `program`, installed under another name)?
fn is_ours(entry: &Value, sub: &str, program: &str) -> bool {
    entry["hooks"].as_array().is_some_and(|hooks| {
        hooks.iter().any(|h| {
            h["command"].as_str().is_some_and(|c| {
                c.contains(&format!(" hook {sub}"))
                    && (c.contains("tracelint") || c.starts_with(program))
            })
        })
    })
}

/// The new text of a Claude Code or Gemini CLI settings file (`None`: remove the file), and
/// what was done.
fn json_settings(
    before: Option<&str>,
    agent: HookAgent,
    command: &str,
    uninstall: bool,
) -> Result<(Option<String>, String), String> {
    let sub = subcommand(agent);
    let entry = |matcher: bool| Entry {
        matcher: matcher.then_some("*"),
        hooks: [Hook {
            kind: "command",
            command,
            name: (agent == HookAgent::GeminiCli).then_some("tracelint"),
        }],
    };
    let names: Vec<&str> = events(agent).iter().map(|(e, _)| *e).collect();
    if before.is_none() && uninstall {
        return Ok((None, "no tracelint hook to remove".into()));
    }
    // A new file is an empty object the hooks are added to like any other.
    let mut text = before.map_or_else(|| "{}\n".to_owned(), str::to_owned);
    if text.trim().is_empty() {
        text = "{}".into();
    }
    let mut changed = Vec::new();
    for (event, matcher) in events(agent) {
        // Each edit is made on the text as the last one left it.
        let root = json_edit::parse(&text)?;
        if !matches!(root, Node::Object { .. }) {
            return Err("the settings are not a JSON object".into());
        }
        let unit = json_edit::indent_unit(&text, &root);
        let hooks = root.member("hooks");
        if hooks.is_some_and(|h| !matches!(h, Node::Object { .. })) {
            return Err("`hooks` is not an object".into());
        }
        let list = hooks.and_then(|h| h.member(event));
        let items: Vec<(usize, Value)> = match list {
            Some(Node::Array { items, .. }) => items
                .iter()
                .enumerate()
                .map(|(i, n)| (i, serde_json::from_str(&text[n.start()..n.end()]).unwrap_or(Value::Null)))
                .collect(),
            Some(_) => return Err(format!("`hooks.{event}` is not a list")),
            None => Vec::new(),
        };
        let program = command.split(" hook ").next().unwrap_or(command);
        let ours: Vec<usize> = items
            .iter()
            .filter(|(_, v)| is_ours(v, sub, program))
            .map(|(i, _)| *i)
            .collect();
        let want = entry(*matcher);
        let want_value = serde_json::to_value(&want).unwrap_or(Value::Null);
        if !uninstall && ours.len() == 1 && items[ours[0]].1 == want_value {
            continue;
        }
        // Take ours out (last first, so the indices hold), then add the one wanted.
        for &i in ours.iter().rev() {
            let root = json_edit::parse(&text)?;
            let (Some(h), Some(list)) = (root.member("hooks"), root.member("hooks").and_then(|h| h.member(event))) else {
                break;
            };
            let only = matches!(list, Node::Array { items, .. } if items.len() == 1);
            text = if only {
                // The list was ours alone: the event goes, and `hooks` too when it empties.
                let idx = member_index(h, event);
                let hooks_only = matches!(h, Node::Object { members, .. } if members.len() == 1);
                if hooks_only {
                    json_edit::remove(&text, &root, member_index(&root, "hooks"))
                } else {
                    json_edit::remove(&text, h, idx)
                }
            } else {
                json_edit::remove(&text, list, i)
            };
        }
        if !uninstall {
            let root = json_edit::parse(&text)?;
            text = match root.member("hooks") {
                None => json_edit::append(&text, &root, Some("hooks"), &Hooks(event, [&want]), &unit),
                Some(h) => match h.member(event) {
                    None => json_edit::append(&text, h, Some(event), &[&want], &unit),
                    Some(list) => json_edit::append(&text, list, None, &want, &unit),
                },
            };
        }
        changed.push(*event);
    }
    let said = match (uninstall, changed.is_empty()) {
        (true, true) => "no tracelint hook to remove".to_owned(),
        (true, false) => format!("removed tracelint's hook from {}", changed.join(", ")),
        (false, true) => format!("`{command}` is installed for {}", names.join(", ")),
        (false, false) => format!("added `{command}` for {}", changed.join(", ")),
    };
    // What install wrote into a new file, taken out again, leaves `{}`: the file goes.
    if uninstall && text == "{}\n" {
        return Ok((None, said));
    }
    Ok((Some(text), said))
}

/// One entry of an event's hook list, in the order the agents' documentation writes it.
#[derive(Debug, Serialize)]
struct Entry<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    matcher: Option<&'a str>,
    hooks: [Hook<'a>; 1],
}

/// One hook of an entry.
#[derive(Debug, Serialize)]
struct Hook<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    command: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
}

/// `{EVENT: [entries]}`: a `hooks` object with one event.
struct Hooks<'a>(&'a str, [&'a Entry<'a>; 1]);

impl Serialize for Hooks<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry(self.0, &self.1)?;
        m.end()
    }
}

fn member_index(node: &Node, key: &str) -> usize {
    match node {
        Node::Object { members, .. } => members.iter().position(|(k, _)| k == key).unwrap_or(0),
        _ => 0,
    }
}

/// The comment line install puts above Codex's `notify`.
const CODEX_MARK: &str = "# tracelint hook (`tracelint hook install codex --uninstall` removes these two lines)";

/// Codex's `notify` argv.
fn codex_argv(program: &str, flags: &[String]) -> Vec<String> {
    let mut v = vec![program.to_owned(), "hook".to_owned(), "codex".to_owned()];
    v.extend(flags.iter().cloned());
    v
}

/// The new text of Codex's `config.toml` (`None`: remove the file), and what was done.
fn codex_edit(
    before: Option<&str>,
    argv: &[String],
    uninstall: bool,
) -> Result<(Option<String>, String), String> {
    let text = before.unwrap_or("");
    let list: Vec<String> = argv.iter().map(|a| Value::from(a.as_str()).to_string()).collect();
    let line = format!("notify = [{}]", list.join(", "));
    // Ours: the mark line and the `notify` line after it.
    let ours = text.find(CODEX_MARK).and_then(|at| {
        let rest = &text[at + CODEX_MARK.len()..];
        let rest = rest.strip_prefix('\n')?;
        let end = rest.find('\n').map_or(rest.len(), |i| i + 1);
        rest.starts_with("notify").then(|| (at, at + CODEX_MARK.len() + 1 + end, rest[..end].trim_end().to_owned()))
    });
    let without = match &ours {
        Some((start, end, _)) => format!("{}{}", &text[..*start], &text[*end..]),
        None => text.to_owned(),
    };
    if uninstall {
        return Ok(match ours {
            None => (before.map(str::to_owned), "no tracelint hook to remove".into()),
            Some(_) if without.is_empty() => (None, "removed tracelint's `notify`".into()),
            Some(_) => (Some(without), "removed tracelint's `notify`".into()),
        });
    }
    if ours.as_ref().is_some_and(|(_, _, l)| *l == line) {
        return Ok((before.map(str::to_owned), format!("`{line}` is installed")));
    }
    let table: toml::Table = without
        .parse()
        .map_err(|e: toml::de::Error| format!("not valid TOML: {}", e.message()))?;
    if let Some(existing) = table.get("notify") {
        return Err(format!(
            "`notify` is set already (`{existing:?}`); Codex runs one notify program: add `tracelint hook codex` to yours, or remove it and install again"
        ));
    }
    Ok((
        Some(format!("{CODEX_MARK}\n{line}\n{without}")),
        format!("added `{line}`"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claude(before: Option<&str>, uninstall: bool) -> Option<String> {
        json_settings(before, HookAgent::ClaudeCode, "tracelint hook claude-code", uninstall)
            .unwrap()
            .0
    }

    #[test]
    fn install_twice_changes_nothing_and_uninstall_restores_the_original() {
        let originals = [
            None,
            Some("{}"),
            Some("{\n  \"model\": \"opus\",\n  \"permissions\": {\"allow\": [\"Bash(ls)\"]}\n}\n"),
            Some("{\n    \"hooks\": {\n        \"Stop\": [\n            {\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}\n        ]\n    }\n}"),
        ];
        for original in originals {
            let once = claude(original, false).unwrap();
            let twice = claude(Some(&once), false).unwrap();
            assert_eq!(once, twice, "from {original:?}");
            assert_eq!(claude(Some(&once), true).as_deref(), original, "from {original:?}");
        }
        let once = claude(Some("{\n  \"model\": \"opus\"\n}\n"), false).unwrap();
        insta::assert_snapshot!(once);
    }

    #[test]
    fn codex_gets_one_notify_and_keeps_the_rest() {
        let argv = codex_argv("tracelint", &[]);
        let original = "model = \"gpt-5\"\n\n[mcp_servers.x]\ncommand = \"x\"\n";
        let (once, _) = codex_edit(Some(original), &argv, false).unwrap();
        let once = once.unwrap();
        assert!(once.parse::<toml::Table>().unwrap()["notify"].is_array());
        let (twice, _) = codex_edit(Some(&once), &argv, false).unwrap();
        assert_eq!(twice.as_deref(), Some(once.as_str()));
        let (back, _) = codex_edit(Some(&once), &argv, true).unwrap();
        assert_eq!(back.as_deref(), Some(original));
        // No file: one made, and removed again.
        let (made, _) = codex_edit(None, &argv, false).unwrap();
        assert_eq!(codex_edit(made.as_deref(), &argv, true).unwrap().0, None);
        // Someone else's notify stays, and install says why it cannot add one.
        let theirs = "notify = [\"notify-send\"]\n";
        assert!(codex_edit(Some(theirs), &argv, false).unwrap_err().contains("set already"));
    }
}
