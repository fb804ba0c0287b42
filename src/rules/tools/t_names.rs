//! The naming and toolset rules: T7 provider_rejects_name (each provider's documented name
//! pattern and length), T8 duplicate_tool_name (one name, two different definitions across the
//! merged sources), T9 confusable_tool_names (names equal but for case or separators) and T13
//! too_many_tools (more tools than a provider accepts in one request).

use std::collections::BTreeMap;

use super::{ToolRule, ToolSink, ToolsCx, cut};
use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::toolset::ToolDef;

/// A provider's documented rule for function / tool names.
pub(super) struct NameRule {
    /// Who.
    pub(super) provider: &'static str,
    /// The rule as documented (cited in messages and in the rule doc).
    pub(super) documented: &'static str,
    /// Longest name.
    pub(super) max: usize,
    /// The first character's extra rule (Gemini: a letter or `_`).
    pub(super) first: fn(char) -> bool,
    /// Every character's rule.
    pub(super) chars: fn(char) -> bool,
}

fn word_dash(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

fn any_char(_: char) -> bool {
    true
}

/// The providers' name rules (sources in `docs/T7.md`).
pub(super) static NAME_RULES: &[NameRule] = &[
    NameRule {
        provider: "OpenAI",
        documented: "a-z, A-Z, 0-9, underscores and dashes, at most 64 characters",
        max: 64,
        first: any_char,
        chars: word_dash,
    },
    NameRule {
        provider: "Anthropic",
        documented: "`^[a-zA-Z0-9_-]{1,64}$`",
        max: 64,
        first: any_char,
        chars: word_dash,
    },
    NameRule {
        provider: "Google Gemini",
        documented: "starts with a letter or an underscore; a-z, A-Z, 0-9, underscores, dots, colons and dashes; at most 64 characters",
        max: 64,
        first: |c| c.is_ascii_alphabetic() || c == '_',
        chars: |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'),
    },
];

impl NameRule {
    /// Why this provider rejects `name`, or `None` when it accepts it.
    fn rejects(&self, name: &str) -> Option<String> {
        let n = name.chars().count();
        if n == 0 {
            return Some("it is empty".into());
        }
        if n > self.max {
            return Some(format!("it is {n} characters long (at most {})", self.max));
        }
        if let Some(c) = name.chars().next().filter(|c| !(self.first)(*c)) {
            return Some(format!("it starts with {}", describe(c)));
        }
        name.chars()
            .find(|c| !(self.chars)(*c))
            .map(|c| format!("it contains {}", describe(c)))
    }
}

fn describe(c: char) -> String {
    if c.is_control() || !c.is_ascii() && (c.is_whitespace() || c.is_alphanumeric()) {
        format!("U+{:04X}", c as u32)
    } else if c == ' ' {
        "a space".into()
    } else if c.is_ascii() {
        format!("`{c}`")
    } else {
        format!("U+{:04X}", c as u32)
    }
}

/// T7.
pub(super) struct ProviderRejectsName;

static T7: RuleMeta = RuleMeta {
    id: RuleId::T7,
    kind: FindingType::ProviderRejectsName,
    summary: "a tool name that OpenAI, Anthropic or Google Gemini rejects (each provider's documented pattern and length)",
    tiers: &[Tier::HardDefect, Tier::HardEvent],
    unit: "tools",
    explanation: include_str!("../docs/T7.md"),
};

impl ToolRule for ProviderRejectsName {
    fn meta(&self) -> &'static RuleMeta {
        &T7
    }

    fn check(&self, cx: &ToolsCx<'_>, out: &mut ToolSink) {
        for (si, set) in cx.sets.iter().enumerate() {
            for tool in &set.tools {
                out.count(si, true);
                let rejected: Vec<(&NameRule, String)> = NAME_RULES
                    .iter()
                    .filter_map(|r| r.rejects(&tool.name).map(|why| (r, why)))
                    .collect();
                if rejected.is_empty() {
                    continue;
                }
                let all = rejected.len() == NAME_RULES.len();
                let who: Vec<String> = rejected
                    .iter()
                    .map(|(r, why)| format!("{} ({why}; allowed: {})", r.provider, r.documented))
                    .collect();
                let f = out.finding(
                    si,
                    if all {
                        Tier::HardDefect
                    } else {
                        Tier::HardEvent
                    },
                    Some(&tool.name),
                    tool.name_pointer(),
                    format!(
                        "{} the tool name `{}`: {}",
                        if all {
                            "every provider rejects"
                        } else {
                            "a provider rejects"
                        },
                        cut(&tool.name, 80),
                        who.join("; ")
                    ),
                    "the name",
                    cut(&tool.name, 160),
                );
                f.help = Some(
                    "rename the tool to letters, digits, `_` and `-`, at most 64 characters".into(),
                );
            }
        }
    }
}

/// Every tool of every set with its set index, in order.
fn all_tools<'a>(cx: &'a ToolsCx<'_>) -> Vec<(usize, &'a ToolDef)> {
    cx.sets
        .iter()
        .enumerate()
        .flat_map(|(si, s)| s.tools.iter().map(move |t| (si, t)))
        .collect()
}

fn same_definition(a: &ToolDef, b: &ToolDef) -> bool {
    a.schema == b.schema && a.description == b.description && a.metadata == b.metadata
}

/// T8.
pub(super) struct DuplicateName;

static T8: RuleMeta = RuleMeta {
    id: RuleId::T8,
    kind: FindingType::DuplicateToolName,
    summary: "two different tool definitions share one name across the merged sources",
    tiers: &[Tier::HardDefect],
    unit: "tools",
    explanation: include_str!("../docs/T8.md"),
};

impl ToolRule for DuplicateName {
    fn meta(&self) -> &'static RuleMeta {
        &T8
    }

    fn check(&self, cx: &ToolsCx<'_>, out: &mut ToolSink) {
        let mut first: BTreeMap<&str, (usize, &ToolDef)> = BTreeMap::new();
        for (si, tool) in all_tools(cx) {
            out.count(si, true);
            let Some((fs, ft)) = first.get(tool.name.as_str()).copied() else {
                first.insert(&tool.name, (si, tool));
                continue;
            };
            if same_definition(ft, tool) {
                continue;
            }
            let what = differs(ft, tool);
            let f = out.finding(
                si,
                Tier::HardDefect,
                Some(&tool.name),
                tool.name_pointer(),
                format!(
                    "the tool `{}` is declared again with a different {what} (first in {})",
                    cut(&tool.name, 80),
                    cx.sets[fs].label
                ),
                "the second definition",
                String::new(),
            );
            if fs == si {
                f.evidence.push(super::evidence(
                    ft.name_pointer(),
                    "the first definition",
                    String::new(),
                ));
            }
            f.help = Some("rename one of them, or keep one definition".into());
        }
    }
}

fn differs(a: &ToolDef, b: &ToolDef) -> &'static str {
    if a.schema != b.schema {
        "input schema"
    } else if a.description != b.description {
        "description"
    } else {
        "metadata"
    }
}

/// The name with case and separators folded away (`Get-User`, `get_user`, `getUser` → `getuser`).
fn folded(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | '.' | ' ' | ':' | '/'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// T9.
pub(super) struct ConfusableNames;

static T9: RuleMeta = RuleMeta {
    id: RuleId::T9,
    kind: FindingType::ConfusableToolNames,
    summary: "tool names that differ only by case or separators (`get_user`, `getUser`, `get-user`)",
    tiers: &[Tier::Candidate],
    unit: "tools",
    explanation: include_str!("../docs/T9.md"),
};

impl ToolRule for ConfusableNames {
    fn meta(&self) -> &'static RuleMeta {
        &T9
    }

    fn check(&self, cx: &ToolsCx<'_>, out: &mut ToolSink) {
        let mut seen: BTreeMap<String, (usize, &ToolDef)> = BTreeMap::new();
        for (si, tool) in all_tools(cx) {
            out.count(si, true);
            let key = folded(&tool.name);
            if key.is_empty() {
                continue;
            }
            match seen.get(&key).copied() {
                None => {
                    seen.insert(key, (si, tool));
                }
                Some((fs, ft)) if ft.name != tool.name => {
                    let f = out.finding(
                        si,
                        Tier::Candidate,
                        Some(&tool.name),
                        tool.name_pointer(),
                        format!(
                            "the tool name `{}` differs from `{}` (in {}) only by case or separators: a model can call one for the other",
                            cut(&tool.name, 80),
                            cut(&ft.name, 80),
                            cx.sets[fs].label
                        ),
                        "this name",
                        String::new(),
                    );
                    if fs == si {
                        f.evidence.push(super::evidence(
                            ft.name_pointer(),
                            "the similar name",
                            String::new(),
                        ));
                    }
                }
                Some(_) => {}
            }
        }
    }
}

/// A provider's documented limit on tools in one request.
pub(super) struct CountLimit {
    pub(super) provider: &'static str,
    pub(super) max: usize,
}

/// The documented limits (sources in `docs/T13.md`). Anthropic documents none.
pub(super) static COUNT_LIMITS: &[CountLimit] = &[
    CountLimit {
        provider: "Google Gemini (Vertex AI)",
        max: 64,
    },
    CountLimit {
        provider: "OpenAI",
        max: 128,
    },
];

/// T13.
pub(super) struct TooManyTools;

static T13: RuleMeta = RuleMeta {
    id: RuleId::T13,
    kind: FindingType::TooManyTools,
    summary: "the merged toolset has more tools than a provider accepts in one request (Gemini on Vertex AI: 64, OpenAI: 128)",
    tiers: &[Tier::HardDefect, Tier::HardEvent],
    unit: "toolsets",
    explanation: include_str!("../docs/T13.md"),
};

impl ToolRule for TooManyTools {
    fn meta(&self) -> &'static RuleMeta {
        &T13
    }

    fn check(&self, cx: &ToolsCx<'_>, out: &mut ToolSink) {
        if cx.sets.is_empty() {
            return;
        }
        if cx
            .sets
            .iter()
            .all(|s| s.kind == crate::model::toolset::SetKind::Starter)
        {
            out.count(0, false);
            out.suppress(
                0,
                None,
                "a tools file written by `tracelint init` or `tracelint infer` is for checking traces, not sent to a model in one request",
            );
            return;
        }
        out.count(0, true);
        let mut names: Vec<&str> = all_tools(cx).iter().map(|(_, t)| t.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        let n = names.len();
        let over: Vec<&CountLimit> = COUNT_LIMITS.iter().filter(|l| n > l.max).collect();
        if over.is_empty() {
            return;
        }
        let all = over.len() == COUNT_LIMITS.len();
        let limits: Vec<String> = over
            .iter()
            .map(|l| format!("{} accepts at most {}", l.provider, l.max))
            .collect();
        let set = &cx.sets[0];
        let at = set
            .tools
            .first()
            .map(|t| t.pointer.clone())
            .unwrap_or_default();
        let at = at
            .rsplit_once('/')
            .map(|(parent, _)| parent.to_owned())
            .unwrap_or_default();
        out.finding(
            0,
            if all {
                Tier::HardDefect
            } else {
                Tier::HardEvent
            },
            None,
            at,
            format!(
                "the toolset has {n} tools across {} source{}: {}",
                cx.sets.len(),
                if cx.sets.len() == 1 { "" } else { "s" },
                limits.join(", ")
            ),
            "the tools",
            String::new(),
        )
        .help =
            Some("send fewer tools per request (load them on demand, or split the agent)".into());
    }
}
