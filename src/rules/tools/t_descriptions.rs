//! The description rules: T10 missing_description (the tool's, and each top-level
//! parameter's) and T11 description_over_budget (descriptions are sent with every request, so a
//! long one costs tokens on every turn). Sources that do not keep descriptions (built-in captures,
//! trace-embedded schemas) are suppressed with that reason, never passed as clean.

use serde_json::Value;

use super::{ToolRule, ToolSink, ToolsCx, cut, parameters};
use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::toolset::{SetKind, ToolSet};

/// Why a set's descriptions cannot be judged, when they cannot.
pub(super) fn no_descriptions(set: &ToolSet) -> Option<&'static str> {
    match set.kind {
        SetKind::Builtin => Some(
            "built-in captures keep the input schemas only (descriptions are stripped): its descriptions cannot be judged",
        ),
        SetKind::Trace => Some(
            "tool schemas embedded in a trace are kept without their descriptions: lint the tools file or the server instead",
        ),
        SetKind::Starter => Some(
            "a tools file written by `tracelint init` or `tracelint infer` is for checking traces, not sent to a model, and keeps no descriptions: lint the definitions your agent sends",
        ),
        SetKind::File | SetKind::Server => None,
    }
}

/// T10.
pub(super) struct MissingDescription;

static T10: RuleMeta = RuleMeta {
    id: RuleId::T10,
    kind: FindingType::MissingDescription,
    summary: "a tool or one of its parameters has no description (or an empty one): the model has to guess what it is for",
    tiers: &[Tier::HardEvent],
    unit: "tools",
    explanation: include_str!("../docs/T10.md"),
};

impl ToolRule for MissingDescription {
    fn meta(&self) -> &'static RuleMeta {
        &T10
    }

    fn check(&self, cx: &ToolsCx<'_>, out: &mut ToolSink) {
        for (si, set) in cx.sets.iter().enumerate() {
            if let Some(reason) = no_descriptions(set) {
                for _ in &set.tools {
                    out.count(si, false);
                }
                if !set.tools.is_empty() {
                    out.suppress(si, None, reason);
                }
                continue;
            }
            for tool in &set.tools {
                out.count(si, true);
                let name = Some(tool.name.as_str());
                match &tool.description {
                    None => {
                        out.finding(
                            si,
                            Tier::HardEvent,
                            name,
                            tool.name_pointer(),
                            "the tool has no description: the model has only its name to decide when to call it",
                            "the tool",
                            String::new(),
                        )
                        .help = Some("add a `description`: what the tool does, when to use it, what it returns".into());
                    }
                    Some(Value::String(s)) if s.trim().is_empty() => {
                        out.finding(
                            si,
                            Tier::HardEvent,
                            name,
                            format!("{}/description", tool.body),
                            "the tool's description is empty",
                            "the description",
                            String::new(),
                        );
                    }
                    Some(Value::String(_)) => {}
                    Some(other) => {
                        out.finding(
                            si,
                            Tier::HardEvent,
                            name,
                            format!("{}/description", tool.body),
                            "the tool's description is not a string: providers reject it or drop it",
                            "the description",
                            super::shown(other, 80),
                        );
                    }
                }
                for (param, schema, ptr) in parameters(tool) {
                    let Value::Object(map) = schema else { continue };
                    // A bare reference takes its description from its target.
                    if map.contains_key("$ref") {
                        continue;
                    }
                    let empty = match map.get("description") {
                        None => true,
                        Some(Value::String(s)) => s.trim().is_empty(),
                        Some(_) => false,
                    };
                    if empty {
                        let f = out.finding(
                            si,
                            Tier::HardEvent,
                            name,
                            ptr,
                            format!(
                                "the parameter `{}` has no description: the model has only its name to go on",
                                cut(param, 80)
                            ),
                            "the parameter",
                            String::new(),
                        );
                        f.field = Some(param.to_owned());
                        f.help = Some(
                            "add a `description`: what the value means, its format, an example"
                                .into(),
                        );
                    }
                }
            }
        }
    }
}

/// Estimated tokens of `text`: 4 ASCII characters a token (the usual rule of thumb for English
/// with BPE tokenizers), one token for every other character (CJK, emoji, accents: no finer
/// estimate without the provider's tokenizer).
pub(crate) fn estimate_tokens(text: &str) -> usize {
    let ascii = text.bytes().filter(u8::is_ascii).count();
    let other = text.chars().filter(|c| !c.is_ascii()).count();
    ascii.div_ceil(4) + other
}

/// T11.
pub(super) struct OverBudget;

static T11: RuleMeta = RuleMeta {
    id: RuleId::T11,
    kind: FindingType::DescriptionOverBudget,
    summary: "a description longer than the token budget (estimated tokens; every request pays for it)",
    tiers: &[Tier::HardEvent],
    unit: "tools",
    explanation: include_str!("../docs/T11.md"),
};

impl ToolRule for OverBudget {
    fn meta(&self) -> &'static RuleMeta {
        &T11
    }

    fn check(&self, cx: &ToolsCx<'_>, out: &mut ToolSink) {
        let budget = cx.settings.description_budget;
        for (si, set) in cx.sets.iter().enumerate() {
            if let Some(reason) = no_descriptions(set) {
                for _ in &set.tools {
                    out.count(si, false);
                }
                if !set.tools.is_empty() {
                    out.suppress(si, None, reason);
                }
                continue;
            }
            for tool in &set.tools {
                out.count(si, true);
                let mut texts: Vec<(String, Option<&str>, &str)> = Vec::new();
                if let Some(Value::String(s)) = &tool.description {
                    texts.push((format!("{}/description", tool.body), None, s));
                }
                for (param, schema, ptr) in parameters(tool) {
                    if let Some(Value::String(s)) = schema.get("description") {
                        texts.push((format!("{ptr}/description"), Some(param), s));
                    }
                }
                for (ptr, param, text) in texts {
                    let tokens = estimate_tokens(text);
                    if tokens <= budget {
                        continue;
                    }
                    let whose = match param {
                        Some(p) => format!("the parameter `{}`'s description", cut(p, 80)),
                        None => "the tool's description".to_owned(),
                    };
                    let f = out.finding(
                        si,
                        Tier::HardEvent,
                        Some(&tool.name),
                        ptr,
                        format!(
                            "{whose} is about {tokens} tokens ({} characters, estimated at 4 ASCII characters a token), over the budget of {budget}",
                            text.chars().count()
                        ),
                        "the description",
                        cut(text, 120),
                    );
                    f.field = param.map(str::to_owned);
                    f.help =
                        Some("shorten it, or raise the budget with `--description-budget`".into());
                }
            }
        }
    }
}
