//! What a call does, read from its own arguments when no registry declares it: the mode a
//! multi-command tool is asked for (`str_replace_editor`'s `command: create`), and whether a
//! call that declares no side effect still looks like it changes something (an editor's write
//! mode, a shell command that writes a file). R3 and R5 read it; it can only make them quieter.

use std::sync::LazyLock;

use aho_corasick::AhoCorasick;
use serde_json::{Map, Value};

use crate::model::ToolCall;

/// Keys that name what a multi-command tool does (`str_replace_editor`'s `command`, an
/// `action`, a `mode`).
pub(crate) const MODE_KEYS: &[&str] = &["command", "action", "operation", "op", "mode"];

/// Keys that hold a command line the agent writes (a shell tool's `cmd`, `script`).
pub(crate) const SHELL_KEYS: &[&str] = &["cmd", "script", "shell_command"];

/// Modes that create a file or directory.
pub(crate) const CREATE_MODES: &[&str] = &[
    "create",
    "create_file",
    "createfile",
    "new",
    "new_file",
    "write",
    "write_file",
    "touch",
    "mkdir",
];

/// Modes that change what exists (beyond creating it).
const CHANGE_MODES: &[&str] = &[
    "str_replace",
    "insert",
    "edit",
    "undo_edit",
    "replace",
    "append",
    "delete",
    "remove",
    "rm",
    "patch",
    "apply",
    "apply_patch",
    "update",
    "move",
    "rename",
];

/// Words in a tool's name that say it writes (`Edit`, `Write`, `apply_patch`, `write_file`).
const WRITE_NAMES: &[&str] = &[
    "write", "edit", "create", "delete", "remove", "patch", "move", "rename", "insert", "replace",
];

/// Shell fragments that change files or the environment.
const SHELL_WRITES: &[&str] = &[
    "sed -i",
    "perl -i",
    "perl -pi",
    "tee ",
    "<<",
    "rm ",
    "mv ",
    "cp ",
    "mkdir ",
    "touch ",
    "chmod ",
    "truncate ",
    "patch ",
    "git apply",
    "git checkout",
    "git reset",
    "git stash",
    "git commit",
    "git restore",
    "pip install",
    "npm install",
    "apply_patch",
];

fn mode(args: &Map<String, Value>) -> Option<String> {
    MODE_KEYS.iter().find_map(|k| {
        args.get(*k)
            .and_then(Value::as_str)
            .map(|m| m.trim().to_ascii_lowercase())
    })
}

/// Does the call say it creates (`{"command": "create", "path": …}`, the editor tool of
/// SWE-agent, OpenHands and Anthropic's text editor)?
pub(crate) fn creates(args: &Map<String, Value>) -> bool {
    mode(args).is_some_and(|m| CREATE_MODES.contains(&m.as_str()))
}

/// Words of a tool's name that say a call of it creates what its path names (`Write`,
/// `write_file`, `create_or_update_file`, `write_to_file`, `create_directory`, `save_file`).
const CREATE_NAMES: &[&str] = &[
    "write",
    "create",
    "save",
    "mkdir",
    "new",
    "touch",
    // A screenshot, a download or an export is written to a file the agent names.
    "screenshot",
    "download",
    "export",
];

/// Words of a field's name that say its path is where output goes (`output_dir`, `out_file`,
/// `destination`): a place the call makes.
const OUTPUT_FIELDS: &[&str] = &["output", "out", "dest", "destination", "target", "save"];

/// Does the tool's name say it creates (a word of it is `write`, `create`, …; `TodoWrite`'s
/// list is no path, so only path values are ever read as created)?
pub(crate) fn creates_by_name(tool: &str) -> bool {
    name_words(tool)
        .iter()
        .any(|w| CREATE_NAMES.contains(&w.as_str()))
}

/// Words of a tool's name that say a call of it looks something up (`Read`, `read_file`,
/// `list_directory`, `WebFetch`, `get_issue`, `search_code`, `view`).
const LOOKUP_NAMES: &[&str] = &[
    "read", "reader", "get", "list", "ls", "search", "find", "fetch", "view", "show", "glob",
    "grep", "cat", "query", "lookup", "describe", "inspect", "stat", "info", "browse",
    "navigate", "goto", "visit", "scrape", "crawl",
];

/// Words of a tool's name that say a call of it searches (`Grep`, `search_code`,
/// `find_symbol`): what it is given, besides where to look, is a query.
const SEARCH_NAMES: &[&str] = &["search", "find", "grep", "glob", "query"];

/// HTTP methods that only read (`{"method": "GET", "path": …}` of a generic API tool).
const READ_METHODS: &[&str] = &["get", "head"];

/// Does the call only look something up? Its tool's name says it reads (`LOOKUP_NAMES`; an
/// MCP tool by its own name, not its server's), and neither that name, a mode it is asked
/// for (a mode that reads decides: `{"command": "view"}`, and so does an HTTP method: `GET`),
/// nor a command line it runs says it creates or changes anything. A tool a registry declares
/// side-effecting is the caller's to rule out.
pub(crate) fn looks_up(call: &ToolCall) -> bool {
    let Some(Value::Object(args)) = call.args.known() else {
        return false;
    };
    looks_up_with(&call.name, args)
}

/// `looks_up`, of a tool's name and its call's arguments.
pub(crate) fn looks_up_with(tool: &str, args: &Map<String, Value>) -> bool {
    // A mode decides (an editor's `view` reads); a command line the agent wrote may do anything.
    if runs_command(args) {
        return mode(args).is_some_and(|m| {
            !m.contains(char::is_whitespace) && LOOKUP_NAMES.contains(&m.as_str())
        });
    }
    // An HTTP method decides for a generic API tool.
    if let Some(m) = ["method", "http_method"]
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
    {
        return READ_METHODS.contains(&m.trim().to_ascii_lowercase().as_str());
    }
    let own = own_name(tool);
    if creates_by_name(own) || writes(tool, args) {
        return false;
    }
    name_words(own)
        .iter()
        .any(|w| LOOKUP_NAMES.contains(&w.as_str()))
}

/// Is a call of this tool with these arguments a search (`looks_up_with`, and the tool's own
/// name says it searches or finds)?
pub(crate) fn searches(tool: &str, args: &Map<String, Value>) -> bool {
    looks_up_with(tool, args)
        && name_words(own_name(tool))
            .iter()
            .any(|w| SEARCH_NAMES.contains(&w.as_str()))
}

/// An MCP tool's own name, without its server's (`mcp__github__get_issue` → `get_issue`).
fn own_name(tool: &str) -> &str {
    tool.rsplit("__").next().unwrap_or(tool)
}

/// Does the field's name say its path is where the call puts its output?
pub(crate) fn output_field(field: &str) -> bool {
    name_words(field)
        .first()
        .is_some_and(|w| OUTPUT_FIELDS.contains(&w.as_str()))
}

/// Fields holding the text an edit replaces (`old_string`, `old_str`, `oldText`).
const OLD_TEXT_FIELDS: &[&str] = &["old_string", "old_str", "oldtext", "old_text", "oldstring"];

/// Does the field hold the text an edit replaces (`OLD_TEXT_FIELDS`, any case)?
pub(crate) fn old_text_field(field: &str) -> bool {
    OLD_TEXT_FIELDS.contains(&field.to_ascii_lowercase().as_str())
}

/// Does the field name a handle of the agent's own session: a shell, a terminal, a session, a
/// background command (`shell_id`, `bash_id`, `shellId`, `terminal_id`)?
pub(crate) fn handle_field(field: &str) -> bool {
    let words = name_words(field);
    words.len() >= 2
        && words.last().is_some_and(|w| w == "id")
        && words
            .iter()
            .any(|w| SESSION_WORDS.contains(&w.as_str()) || w == "bash")
}

/// Words of a field's name that say it holds a path (`file_path`, `filename`, `dir`).
const PATH_WORDS: &[&str] = &[
    "path", "file", "filename", "filepath", "dir", "directory", "folder",
];

/// Does the field's name say it holds a path, so a bare name in it (`hello.txt`) is a file?
pub(crate) fn path_field(field: &str) -> bool {
    name_words(field)
        .iter()
        .any(|w| PATH_WORDS.contains(&w.as_str()))
}

/// Words of a field's name that say it names a shell session (`shellId`, `session_id`,
/// `terminal`).
const SESSION_WORDS: &[&str] = &["shell", "session", "terminal", "tty", "pty"];

/// Does the field name the shell session a call that runs a command opens or talks to
/// (Copilot CLI's `bash {"command", "shellId"}`)? The agent names it: a value it creates.
#[cfg(test)]
pub(crate) fn names_a_session(field: &str, args: &Map<String, Value>) -> bool {
    runs_command(args) && session_field(field)
}

/// Do the arguments name a command or mode to run (a string under a `MODE_KEYS` or
/// `SHELL_KEYS` key)? The first half of `names_a_session`, the same for every field of a call.
pub(crate) fn runs_command(args: &Map<String, Value>) -> bool {
    MODE_KEYS
        .iter()
        .chain(SHELL_KEYS)
        .any(|k| args.get(*k).is_some_and(Value::is_string))
}

/// Does the field's name say it names a shell session? The second half of `names_a_session`.
pub(crate) fn session_field(field: &str) -> bool {
    name_words(field)
        .iter()
        .any(|w| SESSION_WORDS.contains(&w.as_str()))
}

/// A name's words, lower case: split at `_`, `-`, `.` and lower→upper case changes.
fn name_words(name: &str) -> std::rc::Rc<[String]> {
    thread_local! {
        static CACHE: super::word_cache::WordCache = super::word_cache::WordCache::default();
    }
    CACHE.with(|c| c.get(name, split_name))
}

/// Split a name into its words (`name_words`, remembered).
fn split_name(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        if c.is_ascii() {
            cur.push(c.to_ascii_lowercase());
        } else {
            cur.extend(c.to_lowercase());
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Does a call whose side effects no registry declares look like it changes state? By its mode
/// when it names one (an editor's `view` is a read even though its tool is an editor), else
/// by a shell command that writes, else by its tool's name.
pub(crate) fn looks_like_a_write(call: &ToolCall) -> bool {
    let Some(Value::Object(args)) = call.args.known() else {
        return false;
    };
    writes(&call.name, args)
}

/// `looks_like_a_write`, of a tool's name and its call's arguments.
fn writes(tool: &str, args: &Map<String, Value>) -> bool {
    let shell = MODE_KEYS
        .iter()
        .chain(SHELL_KEYS)
        .filter_map(|k| args.get(*k).and_then(Value::as_str))
        .any(shell_writes);
    if shell {
        return true;
    }
    if let Some(m) = mode(args)
        && !m.contains(char::is_whitespace)
    {
        return CREATE_MODES.contains(&m.as_str()) || CHANGE_MODES.contains(&m.as_str());
    }
    static NAMES: LazyLock<AhoCorasick> = LazyLock::new(|| {
        AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(WRITE_NAMES)
            .expect("the write names make a searcher")
    });
    NAMES.is_match(tool)
}

/// A command line that writes: a known writing command, or output redirected to a file
/// (`> out.txt`, `>> log`; not `2>&1`, not `/dev/null`).
fn shell_writes(cmd: &str) -> bool {
    // One pass for every fragment (a command line can be a whole script).
    static FRAGMENTS: LazyLock<AhoCorasick> = LazyLock::new(|| {
        AhoCorasick::new(SHELL_WRITES).expect("the shell fragments make a searcher")
    });
    if FRAGMENTS.is_match(cmd) {
        return true;
    }
    let b = cmd.as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        if c != b'>' || (i > 0 && matches!(b[i - 1], b'-' | b'=' | b'<')) {
            return false;
        }
        let rest = cmd[i + 1..].trim_start_matches('>').trim_start();
        !(rest.is_empty()
            || rest.starts_with('&')
            || rest.starts_with('=')
            || rest.starts_with("/dev/null"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Args;

    fn call(name: &str, args: Value) -> ToolCall {
        ToolCall {
            call_id: None,
            name: name.to_owned(),
            args: Args::Known(args),
            raw_args: None,
            origin: Default::default(),
        }
    }

    #[test]
    fn creating_tools_and_output_fields_are_told_by_name() {
        for t in [
            "Write",
            "write_file",
            "create_or_update_file",
            "writeToFile",
            "create_directory",
        ] {
            assert!(creates_by_name(t), "{t}");
        }
        for t in ["Read", "read_file", "Edit", "get_file_contents", "rewrite_query"] {
            assert!(!creates_by_name(t), "{t}");
        }
        for f in ["output_dir", "outFile", "destination", "target_path"] {
            assert!(output_field(f), "{f}");
        }
        for f in ["path", "file_path", "input_dir", "url"] {
            assert!(!output_field(f), "{f}");
        }
        for f in ["path", "filePath", "file_name", "output_dir", "folder"] {
            assert!(path_field(f), "{f}");
        }
        for f in ["url", "content", "title", "profile"] {
            assert!(!path_field(f), "{f}");
        }
        let shell = serde_json::json!({"command": "go test ./...", "shellId": "unit-tests"});
        let Value::Object(shell) = shell else {
            unreachable!()
        };
        assert!(names_a_session("shellId", &shell));
        assert!(names_a_session("session_id", &shell));
        assert!(!names_a_session("order_id", &shell));
        assert!(!names_a_session("shellId", &Map::new()));
    }

    #[test]
    fn writes_are_told_from_reads() {
        let writes = [
            call(
                "bash",
                serde_json::json!({"command": "sed -i 's/a/b/' x.py"}),
            ),
            call(
                "bash",
                serde_json::json!({"command": "cat <<'EOF' > repro.py\nprint(1)\nEOF"}),
            ),
            call("bash", serde_json::json!({"command": "echo hi >> log.txt"})),
            call("shell", serde_json::json!({"cmd": "git apply fix.diff"})),
            call(
                "str_replace_editor",
                serde_json::json!({"command": "str_replace", "path": "a"}),
            ),
            call(
                "str_replace_editor",
                serde_json::json!({"command": "create", "path": "a"}),
            ),
            call(
                "Edit",
                serde_json::json!({"file_path": "a", "old_string": "x"}),
            ),
            call(
                "apply_patch",
                serde_json::json!({"input": "*** Begin Patch"}),
            ),
            // A fragment anywhere in a long script; a write word in any case inside a name.
            call(
                "bash",
                serde_json::json!({"command": format!("{}\nnpm install left-pad", "echo ok; ".repeat(500))}),
            ),
            call("mcp__fs__WriteFile", serde_json::json!({"target": "a"})),
            call("bulkRENAME", serde_json::json!({"items": "a"})),
        ];
        for c in &writes {
            assert!(looks_like_a_write(c), "{} {:?}", c.name, c.args);
        }
        let reads = [
            call(
                "bash",
                serde_json::json!({"command": "python repro.py 2>&1 | tail -5"}),
            ),
            call(
                "bash",
                serde_json::json!({"command": "grep -n foo a.py > /dev/null && echo y"}),
            ),
            call("bash", serde_json::json!({"command": "ls"})),
            call(
                "str_replace_editor",
                serde_json::json!({"command": "view", "path": "a"}),
            ),
            call("Read", serde_json::json!({"file_path": "a"})),
            call("Grep", serde_json::json!({"pattern": "x->y", "path": "a"})),
            call(
                "bash",
                serde_json::json!({"command": format!("{}git status", "echo ok; ".repeat(500))}),
            ),
            call("mcp__fs__read_text", serde_json::json!({"target": "a"})),
        ];
        for c in &reads {
            assert!(!looks_like_a_write(c), "{} {:?}", c.name, c.args);
        }
    }
}
