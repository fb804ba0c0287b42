//! `tracelint.toml` (or `[tool.tracelint]` in `pyproject.toml`): discovery upward from the
//! working directory, parsing with every unknown key or bad value an error at its line, and the
//! reasoned `[[ignore]]` entries. Flags override the file; the merge happens in `commands`.
//!
//! One cohesive schema: the config structs, their discovery and their line-precise errors describe
//! one file format.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::adapters::InputFormat;
use crate::finding::{Finding, RuleId, Tier};
use crate::model::{LineIndex, ToolMetadata};

/// A configuration problem: always names the file and, where it can, the line.
#[derive(Debug, thiserror::Error)]
#[error("{location}: {message}")]
pub struct ConfigError {
    /// `path:line:col` or `path`.
    pub location: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

/// One reasoned ignore: a rule plus optional tool / field / path globs, and a mandatory reason.
#[derive(Debug, Clone)]
pub struct Ignore {
    /// The rules it silences (`R2` names R2a and R2b).
    pub rules: Vec<RuleId>,
    /// Glob on the finding's tool.
    pub tool: Option<glob::Pattern>,
    /// Glob on the finding's argument field.
    pub field: Option<glob::Pattern>,
    /// Glob on the input path.
    pub path: Option<glob::Pattern>,
    /// Why the finding is accepted.
    pub reason: String,
    /// Where it was declared, for "matched nothing" warnings (`tracelint.toml:12`).
    pub declared_at: String,
}

impl Ignore {
    /// Does this ignore cover a finding from the input at `path`?
    pub fn matches(&self, f: &Finding, path: &str) -> bool {
        let opts = glob::MatchOptions {
            case_sensitive: true,
            require_literal_separator: false,
            require_literal_leading_dot: false,
        };
        self.rules.contains(&f.rule)
            && self
                .tool
                .as_ref()
                .is_none_or(|g| f.tool.as_deref().is_some_and(|t| g.matches_with(t, opts)))
            && self
                .field
                .as_ref()
                .is_none_or(|g| f.field.as_deref().is_some_and(|t| g.matches_with(t, opts)))
            && self.path.as_ref().is_none_or(|g| {
                let p = path.strip_prefix("./").unwrap_or(path);
                g.matches_with(p, opts) || g.matches_with(path, opts)
            })
    }
}

/// The `[[ignore]]` globs compiled once into matchers, per rule, so that finding the ignore
/// that covers a finding does not try every ignore: 10,000 ignores over a million findings are
/// a million look-ups in a few glob sets, not ten billion glob matches.
///
/// Each ignore of a rule is indexed by its first glob (tool, else field, else path) when that
/// glob uses only `*`, `?` and literal characters, whose meaning is the same in the glob set as
/// in `Ignore::matches`; others (character classes, braces) are tried one by one. The glob sets
/// only pick candidates: each is confirmed by `Ignore::matches`, the one definition.
#[derive(Debug, Default)]
pub struct IgnoreIndex {
    by_rule: std::collections::HashMap<RuleId, RuleIgnores>,
}

/// The ignores of one rule, each in one bucket (see `IgnoreIndex`).
#[derive(Debug, Default)]
struct RuleIgnores {
    tool: Indexed,
    field: Indexed,
    path: Indexed,
    /// Tried one by one: no glob at all, or none that is indexed.
    others: Vec<usize>,
}

/// A glob set and, for each of its globs, the index of the ignore it is from.
#[derive(Debug, Default)]
struct Indexed {
    set: Option<globset::GlobSet>,
    ids: Vec<usize>,
}

impl Indexed {
    fn build(globs: Vec<(String, usize)>, others: &mut Vec<usize>) -> Indexed {
        let mut builder = globset::GlobSetBuilder::new();
        let mut ids = Vec::new();
        for (text, id) in globs {
            match globset::GlobBuilder::new(&text)
                .literal_separator(false)
                .backslash_escape(false)
                .build()
            {
                Ok(g) => {
                    builder.add(g);
                    ids.push(id);
                }
                Err(_) => others.push(id),
            }
        }
        match builder.build() {
            Ok(set) if !ids.is_empty() => Indexed {
                set: Some(set),
                ids,
            },
            // Too big for a glob set: each is tried in turn.
            _ => {
                others.append(&mut ids);
                Indexed::default()
            }
        }
    }

    fn candidates(&self, text: Option<&str>, into: &mut Vec<usize>) {
        if let (Some(set), Some(text)) = (&self.set, text) {
            into.extend(set.matches(text).into_iter().map(|i| self.ids[i]));
        }
    }
}

/// A glob whose meaning is the same for `glob::Pattern` and `globset` (and which may go in a
/// glob set): only `*`, `?` and literal characters.
fn plain_glob(p: &glob::Pattern) -> bool {
    !p.as_str().contains(['[', ']', '{', '}', '\\'])
}

impl IgnoreIndex {
    /// Compile `ignores`.
    pub fn new(ignores: &[Ignore]) -> IgnoreIndex {
        #[derive(Default)]
        struct Pending {
            tool: Vec<(String, usize)>,
            field: Vec<(String, usize)>,
            path: Vec<(String, usize)>,
            others: Vec<usize>,
        }
        let mut pending: std::collections::HashMap<RuleId, Pending> =
            std::collections::HashMap::new();
        for (i, ig) in ignores.iter().enumerate() {
            for rule in &ig.rules {
                let p = pending.entry(*rule).or_default();
                fn indexed(g: &Option<glob::Pattern>) -> Option<&glob::Pattern> {
                    g.as_ref().filter(|g| plain_glob(g))
                }
                if let Some(g) = indexed(&ig.tool) {
                    p.tool.push((g.as_str().to_owned(), i));
                } else if ig.tool.is_none()
                    && let Some(g) = indexed(&ig.field)
                {
                    p.field.push((g.as_str().to_owned(), i));
                } else if ig.tool.is_none()
                    && ig.field.is_none()
                    && let Some(g) = indexed(&ig.path)
                {
                    p.path.push((g.as_str().to_owned(), i));
                } else {
                    p.others.push(i);
                }
            }
        }
        let by_rule = pending
            .into_iter()
            .map(|(rule, p)| {
                let mut others = p.others;
                let tool = Indexed::build(p.tool, &mut others);
                let field = Indexed::build(p.field, &mut others);
                let path = Indexed::build(p.path, &mut others);
                others.sort_unstable();
                (
                    rule,
                    RuleIgnores {
                        tool,
                        field,
                        path,
                        others,
                    },
                )
            })
            .collect();
        IgnoreIndex { by_rule }
    }

    /// The first of `ignores` (those this was compiled from) that covers `f`, a finding from
    /// the input at `path`.
    pub fn first_match(&self, ignores: &[Ignore], f: &Finding, path: &str) -> Option<usize> {
        let r = self.by_rule.get(&f.rule)?;
        let mut cands = Vec::new();
        r.tool.candidates(f.tool.as_deref(), &mut cands);
        r.field.candidates(f.field.as_deref(), &mut cands);
        r.path.candidates(Some(path), &mut cands);
        if let Some(short) = path.strip_prefix("./") {
            r.path.candidates(Some(short), &mut cands);
        }
        cands.extend_from_slice(&r.others);
        cands.sort_unstable();
        cands.dedup();
        cands
            .into_iter()
            .find(|&i| ignores.get(i).is_some_and(|ig| ig.matches(f, path)))
    }
}

/// A loaded configuration file.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// The file it came from.
    pub path: Option<PathBuf>,
    /// `tools`: sources, with file paths made relative to the config file's folder.
    pub tools: Vec<String>,
    /// `input-format`.
    pub input_format: Option<InputFormat>,
    /// `select`.
    pub select: Vec<RuleId>,
    /// `ignore` entries that are bare rule ids.
    pub ignore_rules: Vec<RuleId>,
    /// `fail-on`.
    pub fail_on: Option<Tier>,
    /// `closed-toolset`.
    pub closed_toolset: Option<bool>,
    /// `include-candidates`.
    pub include_candidates: Option<bool>,
    /// `[[ignore]]` entries with reasons.
    pub ignores: Vec<Ignore>,
    /// `[metadata.<tool>]` overrides.
    pub metadata: BTreeMap<String, ToolMetadata>,
    /// `fail-on = "never"`: report only.
    pub fail_never: bool,
    /// `baseline`: the baseline file, relative to the config file's folder.
    pub baseline: Option<PathBuf>,
    /// `ratchet`: fail when a rule checks less than the baseline recorded (default true).
    pub ratchet: Option<bool>,
    /// `[[expect]]` tables: expectations rule E1 checks (issue 30).
    pub expect: Option<crate::expect::ExpectFile>,
    /// `exclude`: globs a directory walk leaves out, each with the folder it is relative to
    /// (the config file's).
    pub exclude: Vec<(String, PathBuf)>,
    /// `[flows]`: private sources, untrusted sources, outbound sinks and private paths (R14).
    pub flows: Flows,
}

/// `[flows]` of a config: globs on tool names and file paths (R14).
#[derive(Debug, Clone, Default)]
pub struct Flows {
    /// Tools whose results hold private data.
    pub private: Vec<glob::Pattern>,
    /// Tools whose results carry content from outside.
    pub untrusted: Vec<glob::Pattern>,
    /// Tools that send data out.
    pub sinks: Vec<glob::Pattern>,
    /// Files whose reading is a private source.
    pub private_paths: Vec<glob::Pattern>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawConfig {
    #[serde(default)]
    tools: Option<Spanned<toml::Value>>,
    #[serde(default, alias = "format", alias = "input_format")]
    input_format: Option<Spanned<String>>,
    #[serde(default, alias = "rules")]
    select: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    ignore: Option<Vec<Spanned<toml::Value>>>,
    #[serde(default, alias = "fail_on")]
    fail_on: Option<Spanned<String>>,
    #[serde(default, alias = "closed_toolset")]
    closed_toolset: Option<bool>,
    #[serde(default, alias = "include_candidates")]
    include_candidates: Option<bool>,
    #[serde(default)]
    metadata: Option<BTreeMap<String, Spanned<toml::Value>>>,
    #[serde(default)]
    baseline: Option<Spanned<String>>,
    #[serde(default)]
    ratchet: Option<bool>,
    /// Read again, with its positions, by `expect::ExpectFile::from_config_text`.
    #[serde(default)]
    expect: Option<toml::Value>,
    #[serde(default)]
    exclude: Option<Spanned<toml::Value>>,
    #[serde(default)]
    flows: Option<Spanned<RawFlows>>,
}

/// `[flows]`: which tools and files take part in a toxic flow (R14), as globs.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFlows {
    #[serde(default)]
    private: Option<Spanned<toml::Value>>,
    #[serde(default)]
    untrusted: Option<Spanned<toml::Value>>,
    #[serde(default, alias = "sink")]
    sinks: Option<Spanned<toml::Value>>,
    #[serde(default, alias = "private-paths")]
    private_paths: Option<Spanned<toml::Value>>,
}

#[derive(Deserialize)]
struct Pyproject {
    #[serde(default)]
    tool: Option<PyTool>,
}

#[derive(Deserialize)]
struct PyTool {
    #[serde(default)]
    tracelint: Option<RawConfig>,
}

/// Find the nearest config upward from `start`: `tracelint.toml`, then a `pyproject.toml` with
/// a `[tool.tracelint]` table. Stops at the repository root (a folder holding `.git`).
pub fn discover(start: &Path) -> Result<Option<Config>, ConfigError> {
    let mut dir = Some(start);
    // The found file is named relative to `start` (`../../tracelint.toml`), so messages and the
    // tools paths it declares read the way the user would write them from where they stand.
    let mut up = PathBuf::new();
    while let Some(d) = dir {
        let candidate = d.join("tracelint.toml");
        if candidate.is_file() {
            let text = read(&candidate)?;
            return parse(&text, &up.join("tracelint.toml")).map(Some);
        }
        let py = d.join("pyproject.toml");
        if py.is_file() {
            let text = read(&py)?;
            if text.contains("[tool.tracelint") {
                return parse(&text, &up.join("pyproject.toml")).map(Some);
            }
        }
        if d.join(".git").exists() {
            break;
        }
        dir = d.parent();
        up.push("..");
    }
    Ok(None)
}

/// Largest config file read, in bytes.
pub const MAX_CONFIG_FILE: u64 = 4 << 20;

fn read(path: &Path) -> Result<String, ConfigError> {
    use crate::inputs::{Pipes, read_text};
    read_text(path, MAX_CONFIG_FILE, Pipes::Refuse).map_err(|e| ConfigError {
        location: path.display().to_string(),
        message: format!("cannot read the config file: {e}"),
    })
}

/// Load a named config file (`--config FILE`).
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let text = read(path)?;
    parse(&text, path)
}

/// Parse config text; `path` decides the shape (`pyproject.toml` → `[tool.tracelint]`).
pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
    let index = LineIndex::new(text);
    let display = path.display().to_string();
    let at = |span: Option<std::ops::Range<usize>>| match span {
        Some(s) => {
            let (l, c) = index.line_col(text, s.start);
            format!("{display}:{l}:{c}")
        }
        None => display.clone(),
    };
    let is_pyproject = path.file_name().is_some_and(|n| n == "pyproject.toml");
    let raw = if is_pyproject {
        let py: Pyproject = toml::from_str(text).map_err(|e| ConfigError {
            location: at(e.span()),
            message: toml_message(&e),
        })?;
        py.tool
            .and_then(|t| t.tracelint)
            .ok_or_else(|| ConfigError {
                location: display.clone(),
                message: "no `[tool.tracelint]` table".into(),
            })?
    } else {
        toml::from_str::<RawConfig>(text).map_err(|e| ConfigError {
            location: at(e.span()),
            message: toml_message(&e),
        })?
    };
    let base = path.parent().unwrap_or(Path::new(""));
    let err = |span: std::ops::Range<usize>, message: String| ConfigError {
        location: at(Some(span)),
        message,
    };
    let expect = match raw.expect {
        None => None,
        Some(_) => crate::expect::ExpectFile::from_config_text(text, &display).map_err(|e| {
            ConfigError {
                location: e.location,
                message: e.message,
            }
        })?,
    };
    let mut cfg = Config {
        path: Some(path.to_path_buf()),
        expect,
        closed_toolset: raw.closed_toolset,
        include_candidates: raw.include_candidates,
        ratchet: raw.ratchet,
        ..Config::default()
    };
    if let Some(b) = raw.baseline {
        let span = b.span();
        let b = b.into_inner();
        if b.trim().is_empty() {
            return Err(err(
                span,
                "`baseline` must name a file, e.g. `baseline = \"tracelint-baseline.json\"`".into(),
            ));
        }
        cfg.baseline = Some(if Path::new(&b).is_absolute() {
            PathBuf::from(b)
        } else {
            base.join(b)
        });
    }
    if let Some(tools) = raw.tools {
        let span = tools.span();
        let list = match tools.into_inner() {
            toml::Value::String(s) => vec![s],
            toml::Value::Array(items) => items
                .into_iter()
                .map(|v| match v {
                    toml::Value::String(s) => Ok(s),
                    _ => Err(err(
                        span.clone(),
                        "`tools` must be a string or a list of strings".into(),
                    )),
                })
                .collect::<Result<_, _>>()?,
            _ => {
                return Err(err(
                    span,
                    "`tools` must be a string or a list of strings".into(),
                ));
            }
        };
        cfg.tools = list
            .into_iter()
            .map(|s| {
                if s.starts_with("mcp-") || s.starts_with("builtin:") || Path::new(&s).is_absolute()
                {
                    s
                } else {
                    base.join(&s).to_string_lossy().into_owned()
                }
            })
            .collect();
    }
    if let Some(f) = raw.input_format {
        let span = f.span();
        cfg.input_format = Some(match f.into_inner().as_str() {
            "auto" => None,
            name => Some(InputFormat::parse(name).ok_or_else(|| {
                let names: Vec<&str> = InputFormat::ALL.iter().map(|f| f.name()).collect();
                err(span, format!("unknown input format `{name}` (expected auto, {})", names.join(", ")))
            })?),
        })
        .flatten();
    }
    if let Some(t) = raw.fail_on {
        let span = t.span();
        let name = t.into_inner();
        if name.trim() == "never" {
            cfg.fail_never = true;
        } else {
            cfg.fail_on = Some(Tier::parse(&name).ok_or_else(|| {
                err(span, format!("unknown tier `{name}` for `fail-on` (expected hard_defect, hard_event, candidate or never)"))
            })?);
        }
    }
    for s in raw.select.unwrap_or_default() {
        let span = s.span();
        cfg.select
            .extend(rules_of(s.get_ref()).map_err(|m| err(span, m))?);
    }
    for entry in raw.ignore.unwrap_or_default() {
        let span = entry.span();
        match entry.into_inner() {
            toml::Value::String(id) => cfg
                .ignore_rules
                .extend(rules_of(&id).map_err(|m| err(span, m))?),
            toml::Value::Table(t) => cfg
                .ignores
                .push(parse_ignore(t, at(Some(span.clone()))).map_err(|m| err(span, m))?),
            _ => {
                return Err(err(
                    span,
                    "an `ignore` entry must be a rule id or a table with `rule` and `reason`"
                        .into(),
                ));
            }
        }
    }
    if let Some(exclude) = raw.exclude {
        let span = exclude.span();
        let bad = || {
            err(
                span.clone(),
                "`exclude` must be a glob or a list of globs, e.g. `exclude = [\"package.json\", \"runs/old/**\"]`".into(),
            )
        };
        let globs = match exclude.into_inner() {
            toml::Value::String(s) => vec![s],
            toml::Value::Array(items) => items
                .into_iter()
                .map(|v| v.as_str().map(str::to_owned).ok_or_else(bad))
                .collect::<Result<_, _>>()?,
            _ => return Err(bad()),
        };
        cfg.exclude = globs.into_iter().map(|g| (g, base.to_path_buf())).collect();
        crate::inputs::Exclude::new(&cfg.exclude).map_err(|m| err(span, m))?;
    }
    if let Some(flows) = raw.flows {
        let flows = flows.into_inner();
        let globs = |v: Option<Spanned<toml::Value>>,
                     key: &str|
         -> Result<Vec<glob::Pattern>, ConfigError> {
            let Some(v) = v else {
                return Ok(Vec::new());
            };
            let span = v.span();
            let bad = |m: String| err(span.clone(), format!("`flows.{key}`: {m}"));
            let list = match v.into_inner() {
                toml::Value::String(s) => vec![s],
                toml::Value::Array(items) => items
                    .into_iter()
                    .map(|i| match i {
                        toml::Value::String(s) => Ok(s),
                        _ => Err(bad("must be a glob or a list of globs".into())),
                    })
                    .collect::<Result<_, _>>()?,
                _ => return Err(bad("must be a glob or a list of globs".into())),
            };
            list.iter()
                .map(|g| {
                    glob::Pattern::new(g).map_err(|e| bad(format!("{g:?} is not a valid glob: {e}")))
                })
                .collect()
        };
        cfg.flows = Flows {
            private: globs(flows.private, "private")?,
            untrusted: globs(flows.untrusted, "untrusted")?,
            sinks: globs(flows.sinks, "sinks")?,
            private_paths: globs(flows.private_paths, "private_paths")?,
        };
    }
    for (tool, value) in raw.metadata.unwrap_or_default() {
        let span = value.span();
        let json = serde_json::to_value(value.into_inner())
            .map_err(|e| err(span.clone(), format!("`metadata.{tool}`: {e}")))?;
        let meta = crate::sources::file::parse_metadata(&json)
            .map_err(|m| err(span, format!("`metadata.{tool}`: {m}")))?;
        cfg.metadata.insert(tool, meta);
    }
    Ok(cfg)
}

/// Keys a `tracelint.toml` accepts, for "did you mean" on a misspelled one.
const KEYS: &[&str] = &[
    "tools",
    "flows",
    "input-format",
    "select",
    "ignore",
    "fail-on",
    "closed-toolset",
    "include-candidates",
    "metadata",
    "rules",
    "baseline",
    "ratchet",
    "expect",
    "exclude",
];

/// The parser's message, with the closest known key when a key is unknown.
fn toml_message(e: &toml::de::Error) -> String {
    let message = e.message().trim().to_owned();
    let unknown = message
        .strip_prefix("unknown field `")
        .and_then(|rest| rest.split('`').next());
    match unknown.and_then(|k| crate::suggest::closest_name(k, KEYS.iter().copied())) {
        Some(k) => format!("{message} (did you mean `{k}`?)"),
        None => message,
    }
}

fn rules_of(id: &str) -> Result<Vec<RuleId>, String> {
    crate::rules::parse_rule_list(&[id.to_owned()]).map_err(|e| e.to_string())
}

fn parse_ignore(t: toml::Table, declared_at: String) -> Result<Ignore, String> {
    const KEYS: &[&str] = &["rule", "tool", "field", "path", "reason"];
    for key in t.keys() {
        if !KEYS.contains(&key.as_str()) {
            let hint = crate::suggest::closest_name(key, KEYS.iter().copied())
                .map(|k| format!(" (did you mean `{k}`?)"))
                .unwrap_or_default();
            return Err(format!(
                "unknown key `{key}` in an `[[ignore]]` entry{hint}"
            ));
        }
    }
    let string = |k: &str| -> Result<Option<String>, String> {
        match t.get(k) {
            None => Ok(None),
            Some(toml::Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("`{k}` must be a string")),
        }
    };
    let rule = string("rule")?.ok_or("an `[[ignore]]` entry needs a `rule`")?;
    let rules = rules_of(&rule)?;
    let reason = string("reason")?.unwrap_or_default();
    if reason.trim().is_empty() {
        return Err(format!(
            "the `[[ignore]]` entry for {rule} has no `reason`: say why the finding is accepted (reasons are mandatory)"
        ));
    }
    let pattern = |k: &str| -> Result<Option<glob::Pattern>, String> {
        string(k)?
            .map(|s| glob::Pattern::new(&s).map_err(|e| format!("`{k}` is not a valid glob: {e}")))
            .transpose()
    };
    Ok(Ignore {
        rules,
        tool: pattern("tool")?,
        field: pattern("field")?,
        path: pattern("path")?,
        reason,
        declared_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Result<Config, String> {
        parse(text, Path::new("tracelint.toml")).map_err(|e| e.to_string())
    }

    #[test]
    fn parses_everything() {
        let c = p(r#"
tools = ["tools.json", "mcp-stdio:server --x"]
input-format = "openai"
select = ["R1", "R2"]
ignore = ["R5", { rule = "R3", tool = "add_*", reason = "free-text note" }]
fail-on = "candidate"

[metadata.charge_card]
side_effecting = true
failure_when = { pointer = "/status", in = ["declined"] }
"#)
        .unwrap();
        assert_eq!(c.tools, ["tools.json", "mcp-stdio:server --x"]);
        assert_eq!(c.input_format, Some(InputFormat::OpenAi));
        assert_eq!(c.select, [RuleId::R1, RuleId::R2a, RuleId::R2b]);
        assert_eq!(c.ignore_rules, [RuleId::R5]);
        assert_eq!(c.fail_on, Some(Tier::Candidate));
        assert_eq!(c.ignores.len(), 1);
        assert_eq!(c.ignores[0].declared_at, "tracelint.toml:5:17");
        assert!(c.metadata["charge_card"].failure_when.is_some());
    }

    #[test]
    fn errors_name_the_line() {
        assert_eq!(
            p("tools = \"t.json\"\nfail-onn = \"candidate\"\n")
                .unwrap_err()
                .lines()
                .next()
                .unwrap(),
            "tracelint.toml:2:1: unknown field `fail-onn`, expected one of `tools`, `format`, `input-format`, `input_format`, `rules`, `select`, `ignore`, `fail-on`, `fail_on`, `closed-toolset`, `closed_toolset`, `include-candidates`, `include_candidates`, `metadata`, `baseline`, `ratchet`, `expect`, `exclude`, `flows` (did you mean `fail-on`?)"
        );
        assert_eq!(
            p("fail-on = \"hard_defekt\"\n").unwrap_err(),
            "tracelint.toml:1:11: unknown tier `hard_defekt` for `fail-on` (expected hard_defect, hard_event, candidate or never)"
        );
        assert_eq!(
            p("[[ignore]]\nrule = \"R3\"\n").unwrap_err(),
            "tracelint.toml:1:1: the `[[ignore]]` entry for R3 has no `reason`: say why the finding is accepted (reasons are mandatory)"
        );
        assert!(
            p("select = [\"R99\"]\n")
                .unwrap_err()
                .starts_with("tracelint.toml:1:11: unknown rule `R99`")
        );
        assert!(
            p("[metadata.t]\nside_efecting = true\n")
                .unwrap_err()
                .contains("did you mean `side_effecting`?")
        );
    }

    #[test]
    fn discovery_walks_up_and_names_paths_from_where_it_started() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join(".git")).unwrap();
        let deep = root.path().join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        assert!(discover(&deep).unwrap().is_none());
        std::fs::write(
            root.path().join("tracelint.toml"),
            "tools = \"tools.json\"\n",
        )
        .unwrap();
        let c = discover(&deep).unwrap().unwrap();
        assert_eq!(c.path.unwrap(), Path::new("../../tracelint.toml"));
        assert_eq!(c.tools, [Path::new("../../tools.json").to_string_lossy()]);
        // The search stops at the repository root.
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("tracelint.toml"), "bogus = 1\n").unwrap();
        let repo = outside.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        assert!(discover(&repo).unwrap().is_none());
    }

    #[test]
    fn the_python_peers_keys_mean_the_same() {
        // `rules` is `select`; `baseline` is relative to the config file; `ratchet` and
        // `fail_on` as the peer spells them.
        let c = parse(
            "[tool.tracelint]\nrules = [\"R1\", \"R2\"]\nbaseline = \"ci/tracelint-baseline.json\"\nratchet = false\nfail_on = \"never\"\n",
            Path::new("sub/pyproject.toml"),
        )
        .unwrap();
        assert_eq!(c.select, [RuleId::R1, RuleId::R2a, RuleId::R2b]);
        assert_eq!(
            c.baseline.as_deref(),
            Some(Path::new("sub/ci/tracelint-baseline.json"))
        );
        assert_eq!(c.ratchet, Some(false));
        assert!(c.fail_never && c.fail_on.is_none());
        assert!(
            p("rules = [\"R1\"]\nselect = [\"R7\"]\n")
                .unwrap_err()
                .contains("duplicate field"),
        );
        assert!(
            p("baseline = \"\"\n")
                .unwrap_err()
                .starts_with("tracelint.toml:1:12: `baseline` must name a file")
        );
        assert!(
            p("ratchet = \"no\"\n")
                .unwrap_err()
                .starts_with("tracelint.toml:1:11:")
        );
    }

    #[test]
    fn expect_tables_are_read_with_their_lines() {
        let c = p("fail-on = \"hard_defect\"\n\n[[expect]]\nwhy = \"never refund\"\nnot_called = \"refund\"\n")
            .unwrap();
        let e = c.expect.unwrap();
        assert_eq!(e.expectations[0].declared_at, "tracelint.toml:3:1");
        assert_eq!(
            p("[[expect]]\nwhy = \"x\"\ncalled = \"a\"\nstatus = \"fine\"\n").unwrap_err(),
            "tracelint.toml:4:10: unknown `status` \"fine\" (expected \"ok\", \"error\" or \"retried\")"
        );
        let py = parse(
            "[tool.tracelint]\n[[tool.tracelint.expect]]\nwhy = \"x\"\ncalled = \"a\"\n",
            Path::new("pyproject.toml"),
        )
        .unwrap();
        assert_eq!(
            py.expect.unwrap().expectations[0].declared_at,
            "pyproject.toml:2:1"
        );
    }

    #[test]
    fn exclude_is_a_glob_or_a_list_relative_to_the_config() {
        let c = parse("exclude = [\"runs/old/**\", \"package.json\"]\n", Path::new("cfg/tracelint.toml")).unwrap();
        assert_eq!(
            c.exclude,
            [
                ("runs/old/**".to_owned(), PathBuf::from("cfg")),
                ("package.json".to_owned(), PathBuf::from("cfg"))
            ]
        );
        assert_eq!(p("exclude = \"stats.json\"\n").unwrap().exclude.len(), 1);
        let bad = p("exclude = [1]\n").unwrap_err();
        assert!(bad.starts_with("tracelint.toml:1:11: `exclude` must be a glob"), "{bad}");
        let bad = p("exclude = \"a[b\"\n").unwrap_err();
        assert!(bad.contains("invalid glob"), "{bad}");
    }

    #[test]
    fn flows_classify_tools_and_paths_by_glob() {
        let c = p("[flows]\nprivate = \"mcp__crm__*\"\nuntrusted = [\"read_inbox\"]\nsinks = [\"send_*\"]\nprivate_paths = [\"**/customers/*.csv\"]\n").unwrap();
        assert!(c.flows.private[0].matches("mcp__crm__get_customer"));
        assert!(c.flows.sinks[0].matches("send_email"));
        assert_eq!(c.flows.untrusted.len(), 1);
        assert_eq!(c.flows.private_paths.len(), 1);
        assert_eq!(
            p("[flows]\nsinks = [1]\n").unwrap_err(),
            "tracelint.toml:2:9: `flows.sinks`: must be a glob or a list of globs"
        );
        assert!(p("[flows]\nsink_tools = []\n").unwrap_err().contains("unknown field `sink_tools`"));
    }

    #[test]
    fn pyproject_table() {
        let c = parse(
            "[project]\nname = \"x\"\n[tool.tracelint]\nfail_on = \"hard_event\"\n",
            Path::new("pyproject.toml"),
        )
        .unwrap();
        assert_eq!(c.fail_on, Some(Tier::HardEvent));
        let e = parse("[tool.tracelint]\nbogus = 1\n", Path::new("pyproject.toml")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("pyproject.toml:2:1: unknown field `bogus`"),
            "{e}"
        );
    }

    /// The compiled ignores pick, for every finding, the ignore a scan of them in order picks:
    /// globs the glob sets index (`*`, `?`), those they leave to a scan (classes, braces, a
    /// backslash), ignores naming several rules, a path glob, none at all.
    #[test]
    fn the_ignore_index_agrees_with_a_scan_in_order() {
        use crate::finding::{Evidence, Finding};
        let c = p(r#"
[[ignore]]
rule = "R1"
tool = "legacy_*"
field = "q"
reason = "a"

[[ignore]]
rule = "R2"
tool = "sea?ch"
reason = "b"

[[ignore]]
rule = "R1"
tool = "[ab]*"
reason = "c"

[[ignore]]
rule = "R1"
field = "x{1,2}"
reason = "d"

[[ignore]]
rule = "R1"
path = "runs/*.jsonl"
reason = "e"

[[ignore]]
rule = "R1"
tool = "a\\b"
reason = "f"

[[ignore]]
rule = "R7"
reason = "g"

[[ignore]]
rule = "R1"
tool = "*"
field = "*/deep"
reason = "h"
"#)
        .unwrap();
        let index = IgnoreIndex::new(&c.ignores);
        let mut compared = 0;
        for rule in [RuleId::R1, RuleId::R2a, RuleId::R2b, RuleId::R7, RuleId::R3] {
            let meta = crate::rules::meta_of(rule).unwrap();
            for tool in [None, Some("legacy_a"), Some("search"), Some("seaXch"), Some("abc"), Some("bz"), Some("a\\b"), Some("zz")] {
                for field in [None, Some("q"), Some("x{1,2}"), Some("x1"), Some("a/deep"), Some("r")] {
                    for path in ["runs/a.jsonl", "./runs/a.jsonl", "other/a.jsonl", "runs/sub/a.jsonl"] {
                        let at = crate::model::Location::new(1, 1, "");
                        let mut f = Finding::new(
                            meta,
                            Tier::Candidate,
                            "r",
                            tool,
                            "m",
                            Evidence {
                                step: 0,
                                at,
                                note: "".into(),
                                excerpt: String::new(),
                            },
                        );
                        f.field = field.map(str::to_owned);
                        let scan = c.ignores.iter().position(|ig| ig.matches(&f, path));
                        assert_eq!(
                            index.first_match(&c.ignores, &f, path),
                            scan,
                            "{rule:?} {tool:?} {field:?} {path}"
                        );
                        compared += usize::from(scan.is_some());
                    }
                }
            }
        }
        // Every kind of ignore above covered something.
        assert!(compared > 100, "{compared}");
    }
}
