//! T12 poisoning_signal: text in a tool definition that an attacker would plant for the model to
//! read — invisible or bidi characters, text addressed to the model as instructions (to ignore
//! earlier instructions, to read or send secrets, to call other tools, to hide something from the
//! user) and hidden markup. Always a candidate with the matched text as evidence: ordinary
//! documentation is imperative too ("Use this tool to…", "Always pass an absolute path"), so the
//! patterns need an object only an attack has (previous instructions, credentials, the user as
//! the one kept in the dark), never an imperative alone.

use std::sync::LazyLock;

use regex::{Regex, RegexBuilder};
use serde_json::Value;

use super::{ToolRule, ToolSink, ToolsCx, cut, walk};
use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::toolset::{ToolDef, escape_token};

/// One signal found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signal {
    /// Stable tag (`invisible_character`, `override_instructions`, `secrets`, `call_tools`,
    /// `conceal_from_user`, `hidden_markup`).
    pub kind: &'static str,
    /// What it is, for the message.
    pub what: String,
    /// Byte range of the match in the text.
    pub start: usize,
    /// End of the match.
    pub end: usize,
}

/// Is `c` invisible or a direction override (a zero-width, bidi, tag or variation-selector
/// character, a soft hyphen, a control character other than tab and line breaks)?
pub(super) fn invisible(c: char) -> bool {
    matches!(c as u32,
        0x00..=0x08 | 0x0B | 0x0C | 0x0E..=0x1F | 0x7F..=0x9F
        | 0xAD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180E
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x206F
        | 0x3164 | 0xFE00..=0xFE0E | 0xFEFF | 0xFFA0 | 0xFFF9..=0xFFFB
        | 0xE0000..=0xE007F | 0xE0100..=0xE01EF)
}

fn re(pattern: &str) -> Regex {
    RegexBuilder::new(pattern)
        .case_insensitive(true)
        .size_limit(1 << 20)
        .build()
        .expect("the built-in patterns compile")
}

/// `(kind, what, pattern)`: each pattern needs the object that makes it an attack.
static PATTERNS: LazyLock<Vec<(&'static str, &'static str, Regex)>> = LazyLock::new(|| {
    vec![
        (
            "override_instructions",
            "text telling the model to set aside its instructions",
            re(
                r"\b(ignore|disregard|forget|override|bypass|overrule)\b[^.\n]{0,40}\b(previous|prior|above|earlier|preceding|all|any|other|system|your|original|existing)\b[^.\n]{0,30}\b(instructions?|prompts?|rules|directions|directives|guidelines|guardrails|polic(y|ies)|constraints|messages)\b",
            ),
        ),
        (
            "override_instructions",
            "text addressed to the model that replaces its instructions",
            re(
                r"\b(you are now\b|from now on,? (you|the assistant)\b|new (system )?instructions?\s*:|(you|the assistant) (were|was|have been) (told|advised|instructed)\b[^.\n]{0,80}\b(now|no longer)\b)",
            ),
        ),
        (
            "secrets",
            "text about reading or sending secrets",
            re(
                r"\b(send|sends|sending|upload|post|forward|exfiltrate|leak|transmit|share|include|append|attach|embed|copy|collect|extract|reveal|dump|read)\b[^.\n]{0,60}\b(api[ _-]?keys?|secret keys?|secrets|credentials?|passwords?|passphrases?|private keys?|ssh keys?|access tokens?|auth(entication)? tokens?|session tokens?|bearer tokens?|cookies|environment variables|env vars?|conversation history|chat history|system prompt)\b",
            ),
        ),
        (
            "secrets",
            "a path to credentials or keys",
            re(
                r"(~/\.ssh\b|\.ssh/|\bid_(rsa|dsa|ecdsa|ed25519)\b|/etc/(passwd|shadow)\b|\.aws/credentials|~/\.aws\b|\.git-credentials|\.netrc\b|\.npmrc\b|\.kube/config|~/\.cursor/|\bmcp\.json\b|~/\.config/gcloud)",
            ),
        ),
        (
            "call_tools",
            "text directing the model's use of other tools",
            re(
                r"\b(before|after|instead of|prior to)\b[^.\n]{0,20}\b(using|calling|invoking|running)\b[^.\n]{0,20}\b(any|every|each|all|other|another)\b[^.\n]{0,10}\btools?\b|\b(when|whenever|if)\b[^.\n]{0,12}\b(this|the)\b[^.\n]{0,12}\btool is (available|present|loaded|installed|enabled)\b|\b(do not|don't|never)\b[^.\n]{0,15}\b(use|call|invoke)\b[^.\n]{0,15}\bother tools?\b",
            ),
        ),
        (
            "conceal_from_user",
            "text telling the model to keep something from the user",
            re(
                r"\b(do not|don't|never|without)\b[^.\n]{0,20}\b(tell|telling|inform|informing|mention|mentioning|reveal|revealing|notify|notifying|alert|alerting|warn|warning)\b[^.\n]{0,20}\b(the )?user\b|\b(hide|conceal)\b[^.\n]{0,30}\bfrom\b[^.\n]{0,10}\b(the )?user\b|\b(secretly|covertly)\b|\b(silently|quietly)\b[^.\n]{0,20}\b(send|upload|forward|include|add|read|call)\b",
            ),
        ),
        (
            "hidden_markup",
            "hidden markup",
            re(
                r"<!--|<\|?(important|system|instructions?|secret|hidden|admin|assistant|prompt|im_start|sys)\b[^>]{0,40}\|?>|\[/?INST\]|<\|im_start\|>",
            ),
        ),
    ]
});

/// An all-capitals tag (`<IMPORTANT>`, `<CRITICAL_NOTE>`): markup addressed to the model.
static CAPS_TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"</?[A-Z][A-Z_]{3,}>").expect("the built-in pattern compiles"));

/// A negation in the same clause just before byte `at` (`Do not include …`, `never send …`).
static NEGATION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\b(do not|don't|dont|never|must not|mustn't|should not|shouldn't|avoid|without|no need to|not to)\b[^.;:!?\n]*$",
    )
});

fn negated(text: &str, at: usize) -> bool {
    let from = text[..at]
        .char_indices()
        .rev()
        .nth(40)
        .map_or(0, |(i, _)| i);
    NEGATION.is_match(&text[from..at])
}

/// A zero-width joiner between two pictographs (👨‍👩‍👧) is how emoji sequences are written.
fn emoji_joiner(chars: &[(usize, char)], k: usize) -> bool {
    let pictograph = |c: char| (c as u32) >= 0x2190 && !invisible(c) && !c.is_alphanumeric();
    chars[k].1 == '\u{200D}'
        && k > 0
        && chars.get(k + 1).is_some_and(|(_, c)| pictograph(*c))
        && pictograph(chars[k - 1].1)
}

/// Every signal in `text`, in order of position.
pub fn signals(text: &str) -> Vec<Signal> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let hidden: Vec<(usize, char)> = chars
        .iter()
        .enumerate()
        .filter(|(k, (_, c))| invisible(*c) && !emoji_joiner(&chars, *k))
        .map(|(_, ic)| *ic)
        .collect();
    if let Some((start, _)) = hidden.first() {
        let shown: Vec<String> = hidden
            .iter()
            .take(8)
            .map(|(_, c)| format!("U+{:04X}", *c as u32))
            .collect();
        let last = hidden.last().map_or(*start, |(i, c)| i + c.len_utf8());
        out.push(Signal {
            kind: "invisible_character",
            what: format!(
                "{} invisible or direction-changing character{} ({}{})",
                hidden.len(),
                if hidden.len() == 1 { "" } else { "s" },
                shown.join(", "),
                if hidden.len() > 8 { ", …" } else { "" }
            ),
            start: *start,
            end: last,
        });
    }
    for (kind, what, pattern) in PATTERNS.iter() {
        for m in pattern.find_iter(text).take(4) {
            // "Do not include API keys" warns the model off: the opposite of an attack.
            if matches!(*kind, "override_instructions" | "secrets") && negated(text, m.start()) {
                continue;
            }
            out.push(Signal {
                kind,
                what: (*what).to_owned(),
                start: m.start(),
                end: m.end(),
            });
        }
    }
    for m in CAPS_TAG.find_iter(text).take(4) {
        out.push(Signal {
            kind: "hidden_markup",
            what: "an all-capitals tag addressed to the model".to_owned(),
            start: m.start(),
            end: m.end(),
        });
    }
    // One signal of each kind per text (its first match): more is the same finding again.
    out.sort_by_key(|s| (s.start, s.kind));
    let mut seen: Vec<&'static str> = Vec::new();
    out.retain(|s| {
        let first = !seen.contains(&s.kind);
        seen.push(s.kind);
        first
    });
    out
}

/// The matched text with some context, on one line.
fn snippet(text: &str, s: &Signal) -> String {
    let from = text[..s.start]
        .char_indices()
        .rev()
        .nth(30)
        .map_or(0, |(i, _)| i);
    let to = text[s.end..]
        .char_indices()
        .nth(30)
        .map_or(text.len(), |(i, _)| s.end + i);
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    // Hidden characters shown as code points: the evidence must be readable in every report.
    let visible: String = text[from..to]
        .chars()
        .map(|c| {
            if invisible(c) {
                format!("<U+{:04X}>", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect();
    out.push_str(&visible.split_whitespace().collect::<Vec<_>>().join(" "));
    if to < text.len() {
        out.push('…');
    }
    cut(&out, 200)
}

/// Every text of a tool a model reads, with where it is and what it is.
fn texts(tool: &ToolDef) -> Vec<(String, String, String, bool)> {
    let mut out: Vec<(String, String, String, bool)> = vec![(
        tool.name_pointer(),
        "the tool name".to_owned(),
        tool.name.clone(),
        true,
    )];
    if let Some(Value::String(d)) = &tool.description {
        out.push((
            format!("{}/description", tool.body),
            "the tool's description".to_owned(),
            d.clone(),
            false,
        ));
    }
    if let Some(schema) = &tool.schema {
        walk(schema, &tool.schema_pointer(), &mut |map, here| {
            for k in ["description", "title"] {
                if let Some(Value::String(s)) = map.get(k) {
                    out.push((
                        format!("{here}/{k}"),
                        format!("a schema `{k}`"),
                        s.clone(),
                        false,
                    ));
                }
            }
            if let Some(Value::Object(props)) = map.get("properties") {
                for name in props.keys() {
                    out.push((
                        format!("{here}/properties/{}", escape_token(name)),
                        "a parameter name".to_owned(),
                        name.clone(),
                        true,
                    ));
                }
            }
            if let Some(Value::Array(values)) = map.get("enum") {
                for (i, v) in values.iter().enumerate() {
                    if let Value::String(s) = v {
                        out.push((
                            format!("{here}/enum/{i}"),
                            "an enum value".to_owned(),
                            s.clone(),
                            false,
                        ));
                    }
                }
            }
        });
    }
    out
}

/// T12.
pub(super) struct Poisoning;

static T12: RuleMeta = RuleMeta {
    id: RuleId::T12,
    kind: FindingType::PoisoningSignal,
    summary: "possible tool poisoning: invisible or bidi characters, text addressed to the model (ignore instructions, read or send secrets, call other tools, hide from the user), hidden markup",
    tiers: &[Tier::Candidate],
    unit: "tools",
    explanation: include_str!("../docs/T12.md"),
};

impl ToolRule for Poisoning {
    fn meta(&self) -> &'static RuleMeta {
        &T12
    }

    fn check(&self, cx: &ToolsCx<'_>, out: &mut ToolSink) {
        for (si, set) in cx.sets.iter().enumerate() {
            if let Some(reason) = super::t_descriptions::no_descriptions(set)
                && !set.tools.is_empty()
            {
                out.suppress(
                    si,
                    None,
                    format!("{reason}; names, schema text and enum values were still scanned"),
                );
            }
            for tool in &set.tools {
                out.count(si, true);
                if let Some(pinned) = cx.settings.pinned.as_ref()
                    && let Some(was) = pinned.get(&tool.name)
                {
                    let now = match &tool.description {
                        Some(Value::String(d)) => d.as_str(),
                        _ => "",
                    };
                    if now != was {
                        let f = out.finding(
                            si,
                            Tier::Candidate,
                            Some(&tool.name),
                            format!("{}/description", tool.body),
                            format!(
                                "the description of `{}` changed since it was pinned ({} → {} characters)",
                                tool.name,
                                was.chars().count(),
                                now.chars().count()
                            ),
                            "the description now",
                            cut(now, 200),
                        );
                        f.signal = Some("changed_since_pin");
                        f.possible_false_positive = true;
                        f.details = vec![format!("pinned: {}", cut(was, 200))];
                        f.help = Some(
                            "read what changed (`tracelint mcp diff LOCK SOURCE`); if the server's new description is legitimate, pin again".into(),
                        );
                    }
                }
                for (ptr, whose, text, name_like) in texts(tool) {
                    for s in signals(&text) {
                        // A name is only ever checked for characters (its words are not prose).
                        if name_like && s.kind != "invisible_character" {
                            continue;
                        }
                        let f = out.finding(
                            si,
                            Tier::Candidate,
                            Some(&tool.name),
                            ptr.clone(),
                            format!("possible tool poisoning in {whose}: {}", s.what),
                            "the text",
                            snippet(&text, &s),
                        );
                        f.signal = Some(s.kind);
                        f.possible_false_positive = true;
                        f.help = Some(
                            "read the text as the model would: remove instructions addressed to it, hidden characters and markup; if it is legitimate, ignore this finding with a reason".into(),
                        );
                    }
                }
            }
        }
    }
}
