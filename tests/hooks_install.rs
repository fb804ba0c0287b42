//! `tracelint hook install` (issue 45, acceptance 3): installing twice leaves the settings file
//! byte-identical, `--uninstall` gives back the original, and whatever else the file holds
//! stays as it was — for Claude Code's and Gemini CLI's JSON settings and Codex's TOML config,
//! from a file with other settings in it and from no file at all.

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_tracelint");

/// Run `tracelint hook install …`; (exit code, stdout with the folder hidden, stderr).
fn install(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .args(["hook", "install"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).replace(dir.to_str().unwrap(), "[DIR]"),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Install, install again, uninstall `agent` into `file` holding `original` (or nothing);
/// returns the installed text and what each run printed.
fn round_trip(agent: &str, file: &str, original: Option<&str>, extra: &[&str]) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    if let Some(o) = original {
        std::fs::write(&path, o).unwrap();
    }
    let args: Vec<&str> = [
        agent,
        "--settings",
        file,
        "--program",
        "/opt/tracelint/bin/tracelint",
    ]
    .into_iter()
    .chain(extra.iter().copied())
    .collect();
    let mut said = String::new();
    let (code, out, err) = install(dir.path(), &args);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    said.push_str(&out);
    let once = std::fs::read(&path).unwrap();
    let (code, out, _) = install(dir.path(), &args);
    assert_eq!(code, 0);
    said.push_str(&out);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        once,
        "a second install changed the file"
    );
    let mut undo = args.clone();
    undo.insert(1, "--uninstall");
    let (code, out, _) = install(dir.path(), &undo);
    assert_eq!(code, 0);
    said.push_str(&out);
    match original {
        Some(o) => assert_eq!(std::fs::read_to_string(&path).unwrap(), o),
        None => assert!(!path.exists(), "uninstall left the file install made"),
    }
    (String::from_utf8(once).unwrap(), said)
}

const CLAUDE_SETTINGS: &str = r#"{
  "model": "opus",
  "permissions": {
    "allow": ["Bash(cargo test:*)"]
  },
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [{"type": "command", "command": "cargo fmt"}]
      }
    ]
  }
}
"#;

#[test]
fn claude_code_settings_keep_everything_else_and_come_back_unchanged() {
    let (installed, said) = round_trip(
        "claude-code",
        ".claude/settings.json",
        Some(CLAUDE_SETTINGS),
        &[],
    );
    insta::assert_snapshot!("claude_installed", installed);
    insta::assert_snapshot!("claude_said", said);
    let (fresh, _) = round_trip(
        "claude-code",
        ".claude/settings.json",
        None,
        &["--", "--fail-on", "hard_event"],
    );
    insta::assert_snapshot!("claude_fresh", fresh);
}

#[test]
fn gemini_cli_settings_with_comments_come_back_unchanged() {
    let original = "{\n  // the user's own\n  \"general\": {\"vimMode\": true}, /* and more */\n  \"ui\": {}\n}\n";
    let (installed, _) = round_trip("gemini-cli", ".gemini/settings.json", Some(original), &[]);
    insta::assert_snapshot!("gemini_installed", installed);
    round_trip("gemini-cli", ".gemini/settings.json", None, &[]);
}

#[test]
fn codex_config_gets_one_notify_and_comes_back_unchanged() {
    let original = "model = \"gpt-5-codex\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n";
    let (installed, said) = round_trip("codex", "codex-home/config.toml", Some(original), &[]);
    insta::assert_snapshot!("codex_installed", installed);
    insta::assert_snapshot!("codex_said", said);
    round_trip("codex", "codex-home/config.toml", None, &[]);
    // Codex runs one notify program: someone else's is kept, and install says why it adds none.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("config.toml"),
        "notify = [\"notify-send\", \"done\"]\n",
    )
    .unwrap();
    let (code, _, err) = install(dir.path(), &["codex", "--settings", "config.toml"]);
    assert_eq!(code, 3);
    assert!(err.contains("`notify` is set already"), "{err}");
    // And Codex has no project file for it.
    let (code, _, err) = install(dir.path(), &["codex", "--project"]);
    assert_eq!(code, 3);
    assert!(err.contains("user's config only"), "{err}");
}

#[test]
fn a_settings_file_that_is_not_json_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.json"), "{\"model\": \"opus\",}").unwrap();
    let (code, _, err) = install(dir.path(), &["claude-code", "--settings", "s.json"]);
    assert_eq!(code, 3);
    assert!(err.contains("s.json: line 1"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("s.json")).unwrap(),
        "{\"model\": \"opus\",}"
    );
}
