//! The keyless validation suite behind `tracelint demo` (SPEC §8): seed 002's cases — one planted
//! instance of every rule, clean controls that must stay silent, legitimate-but-suspicious cases
//! that must stay below a verdict — embedded from `fixtures/demo/` so the binary runs them from
//! any folder. `cases.json` is the data: each case's file, its kind, and the findings (rule and
//! tier, as a multiset) and exit code it must give.
//!
//! One cohesive suite: the embedded cases, their runner and the PASS/FAIL table are one command's
//! data and logic.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::finding::{RuleId, Tier};
use crate::lint::{Linter, ReportBuilder};
use crate::reporters::Report;
use crate::rules::{RuleSettings, Selection};

/// Every file of `fixtures/demo/`, embedded (a test checks this list against the folder).
pub const FILES: &[(&str, &str)] = &[
    ("cases.json", include_str!("../../fixtures/demo/cases.json")),
    (
        "clean-cancel.json",
        include_str!("../../fixtures/demo/clean-cancel.json"),
    ),
    (
        "clean-lookup.json",
        include_str!("../../fixtures/demo/clean-lookup.json"),
    ),
    (
        "contract-r10-clean.json",
        include_str!("../../fixtures/demo/contract-r10-clean.json"),
    ),
    (
        "contract-r10-clean.openai.json",
        include_str!("../../fixtures/demo/contract-r10-clean.openai.json"),
    ),
    (
        "contract-r10-clean.otel.json",
        include_str!("../../fixtures/demo/contract-r10-clean.otel.json"),
    ),
    (
        "contract-r10-legit.json",
        include_str!("../../fixtures/demo/contract-r10-legit.json"),
    ),
    (
        "contract-r10-legit.openai.json",
        include_str!("../../fixtures/demo/contract-r10-legit.openai.json"),
    ),
    (
        "contract-r10-legit.otel.json",
        include_str!("../../fixtures/demo/contract-r10-legit.otel.json"),
    ),
    (
        "contract-r10-planted.json",
        include_str!("../../fixtures/demo/contract-r10-planted.json"),
    ),
    (
        "contract-r10-planted.openai.json",
        include_str!("../../fixtures/demo/contract-r10-planted.openai.json"),
    ),
    (
        "contract-r10-planted.otel.json",
        include_str!("../../fixtures/demo/contract-r10-planted.otel.json"),
    ),
    (
        "contract-r11-clean.json",
        include_str!("../../fixtures/demo/contract-r11-clean.json"),
    ),
    (
        "contract-r11-clean.openai.json",
        include_str!("../../fixtures/demo/contract-r11-clean.openai.json"),
    ),
    (
        "contract-r11-clean.otel.json",
        include_str!("../../fixtures/demo/contract-r11-clean.otel.json"),
    ),
    (
        "contract-r11-legit.json",
        include_str!("../../fixtures/demo/contract-r11-legit.json"),
    ),
    (
        "contract-r11-legit.openai.json",
        include_str!("../../fixtures/demo/contract-r11-legit.openai.json"),
    ),
    (
        "contract-r11-legit.otel.json",
        include_str!("../../fixtures/demo/contract-r11-legit.otel.json"),
    ),
    (
        "contract-r11-planted.json",
        include_str!("../../fixtures/demo/contract-r11-planted.json"),
    ),
    (
        "contract-r11-planted.openai.json",
        include_str!("../../fixtures/demo/contract-r11-planted.openai.json"),
    ),
    (
        "contract-r11-planted.otel.json",
        include_str!("../../fixtures/demo/contract-r11-planted.otel.json"),
    ),
    (
        "contract-r12-clean.json",
        include_str!("../../fixtures/demo/contract-r12-clean.json"),
    ),
    (
        "contract-r12-clean.openai.json",
        include_str!("../../fixtures/demo/contract-r12-clean.openai.json"),
    ),
    (
        "contract-r12-clean.otel.json",
        include_str!("../../fixtures/demo/contract-r12-clean.otel.json"),
    ),
    (
        "contract-r12-legit.json",
        include_str!("../../fixtures/demo/contract-r12-legit.json"),
    ),
    (
        "contract-r12-legit.openai.json",
        include_str!("../../fixtures/demo/contract-r12-legit.openai.json"),
    ),
    (
        "contract-r12-legit.otel.json",
        include_str!("../../fixtures/demo/contract-r12-legit.otel.json"),
    ),
    (
        "contract-r12-planted.json",
        include_str!("../../fixtures/demo/contract-r12-planted.json"),
    ),
    (
        "contract-r12-planted.openai.json",
        include_str!("../../fixtures/demo/contract-r12-planted.openai.json"),
    ),
    (
        "contract-r12-planted.otel.json",
        include_str!("../../fixtures/demo/contract-r12-planted.otel.json"),
    ),
    (
        "contract-r13-clean.json",
        include_str!("../../fixtures/demo/contract-r13-clean.json"),
    ),
    (
        "contract-r13-clean.openai.json",
        include_str!("../../fixtures/demo/contract-r13-clean.openai.json"),
    ),
    (
        "contract-r13-clean.otel.json",
        include_str!("../../fixtures/demo/contract-r13-clean.otel.json"),
    ),
    (
        "contract-r13-legit.json",
        include_str!("../../fixtures/demo/contract-r13-legit.json"),
    ),
    (
        "contract-r13-legit.openai.json",
        include_str!("../../fixtures/demo/contract-r13-legit.openai.json"),
    ),
    (
        "contract-r13-legit.otel.json",
        include_str!("../../fixtures/demo/contract-r13-legit.otel.json"),
    ),
    (
        "contract-r13-planted.json",
        include_str!("../../fixtures/demo/contract-r13-planted.json"),
    ),
    (
        "contract-r13-planted.openai.json",
        include_str!("../../fixtures/demo/contract-r13-planted.openai.json"),
    ),
    (
        "contract-r13-planted.otel.json",
        include_str!("../../fixtures/demo/contract-r13-planted.otel.json"),
    ),
    (
        "contract-r8-clean.json",
        include_str!("../../fixtures/demo/contract-r8-clean.json"),
    ),
    (
        "contract-r8-clean.openai.json",
        include_str!("../../fixtures/demo/contract-r8-clean.openai.json"),
    ),
    (
        "contract-r8-clean.otel.json",
        include_str!("../../fixtures/demo/contract-r8-clean.otel.json"),
    ),
    (
        "contract-r8-legit.json",
        include_str!("../../fixtures/demo/contract-r8-legit.json"),
    ),
    (
        "contract-r8-legit.openai.json",
        include_str!("../../fixtures/demo/contract-r8-legit.openai.json"),
    ),
    (
        "contract-r8-legit.otel.json",
        include_str!("../../fixtures/demo/contract-r8-legit.otel.json"),
    ),
    (
        "contract-r8-planted.json",
        include_str!("../../fixtures/demo/contract-r8-planted.json"),
    ),
    (
        "contract-r8-planted.openai.json",
        include_str!("../../fixtures/demo/contract-r8-planted.openai.json"),
    ),
    (
        "contract-r8-planted.otel.json",
        include_str!("../../fixtures/demo/contract-r8-planted.otel.json"),
    ),
    (
        "contract-r9-clean.json",
        include_str!("../../fixtures/demo/contract-r9-clean.json"),
    ),
    (
        "contract-r9-clean.openai.json",
        include_str!("../../fixtures/demo/contract-r9-clean.openai.json"),
    ),
    (
        "contract-r9-clean.otel.json",
        include_str!("../../fixtures/demo/contract-r9-clean.otel.json"),
    ),
    (
        "contract-r9-legit.json",
        include_str!("../../fixtures/demo/contract-r9-legit.json"),
    ),
    (
        "contract-r9-legit.openai.json",
        include_str!("../../fixtures/demo/contract-r9-legit.openai.json"),
    ),
    (
        "contract-r9-legit.otel.json",
        include_str!("../../fixtures/demo/contract-r9-legit.otel.json"),
    ),
    (
        "contract-r9-planted.json",
        include_str!("../../fixtures/demo/contract-r9-planted.json"),
    ),
    (
        "contract-r9-planted.openai.json",
        include_str!("../../fixtures/demo/contract-r9-planted.openai.json"),
    ),
    (
        "contract-r9-planted.otel.json",
        include_str!("../../fixtures/demo/contract-r9-planted.otel.json"),
    ),
    (
        "contracts.json",
        include_str!("../../fixtures/demo/contracts.json"),
    ),
    (
        "legit-idempotency-key.json",
        include_str!("../../fixtures/demo/legit-idempotency-key.json"),
    ),
    (
        "legit-reformatted-number.json",
        include_str!("../../fixtures/demo/legit-reformatted-number.json"),
    ),
    (
        "legit-retry-after-503.json",
        include_str!("../../fixtures/demo/legit-retry-after-503.json"),
    ),
    (
        "planted-r1-schema-violation.json",
        include_str!("../../fixtures/demo/planted-r1-schema-violation.json"),
    ),
    (
        "planted-r2a-tool-error.json",
        include_str!("../../fixtures/demo/planted-r2a-tool-error.json"),
    ),
    (
        "planted-r2b-error-mishandled.json",
        include_str!("../../fixtures/demo/planted-r2b-error-mishandled.json"),
    ),
    (
        "planted-r3-hallucinated-arg.json",
        include_str!("../../fixtures/demo/planted-r3-hallucinated-arg.json"),
    ),
    (
        "planted-r4-loop.json",
        include_str!("../../fixtures/demo/planted-r4-loop.json"),
    ),
    (
        "planted-r5-redundant-call.json",
        include_str!("../../fixtures/demo/planted-r5-redundant-call.json"),
    ),
    (
        "planted-r6-malformed-arguments.json",
        include_str!("../../fixtures/demo/planted-r6-malformed-arguments.json"),
    ),
    (
        "planted-r7-unknown-tool.json",
        include_str!("../../fixtures/demo/planted-r7-unknown-tool.json"),
    ),
    ("tools.json", include_str!("../../fixtures/demo/tools.json")),
];

/// The embedded content of a demo file.
pub fn file(name: &str) -> Option<&'static str> {
    FILES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// What a case is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// One planted instance of a rule's defect: the rule must catch it.
    Planted,
    /// A correct run: nothing may fire.
    Clean,
    /// A correct run that looks suspicious: it must stay below a verdict.
    Legitimate,
}

impl Kind {
    /// The name shown.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Planted => "planted",
            Kind::Clean => "clean",
            Kind::Legitimate => "legitimate",
        }
    }
}

#[derive(Debug, Deserialize)]
struct RawSuite {
    tools: String,
    cases: Vec<RawCase>,
}

#[derive(Debug, Deserialize)]
struct RawCase {
    name: String,
    kind: Kind,
    file: String,
    /// The case's own tools file (the suite's when absent).
    #[serde(default)]
    tools: Option<String>,
    description: String,
    expect: RawExpect,
    exit: u8,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawExpect {
    Silent(String),
    Findings(Vec<RawFinding>),
}

#[derive(Debug, Deserialize)]
struct RawFinding {
    rule: String,
    tier: String,
}

/// Findings as a multiset of (rule, tier).
pub type Tally = BTreeMap<(RuleId, Tier), usize>;

/// One validation case.
#[derive(Debug, Clone)]
pub struct Case {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub kind: Kind,
    /// The trace file.
    pub file: String,
    /// The tools file it is linted against.
    pub tools: String,
    /// What happens in it.
    pub description: String,
    /// The findings it must give (empty = silent).
    pub expect: Tally,
    /// The exit code it must give.
    pub exit: u8,
}

/// The suite: the tools file and the cases, in order.
#[derive(Debug, Clone)]
pub struct Suite {
    /// The tools file name.
    #[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
    pub tools: String,
    /// The cases.
    pub cases: Vec<Case>,
}

/// Parse the embedded `cases.json`.
pub fn suite() -> Result<Suite, String> {
    let text = file("cases.json").ok_or("cases.json is not embedded")?;
    let raw: RawSuite = serde_json::from_str(text).map_err(|e| format!("cases.json: {e}"))?;
    let mut cases = Vec::new();
    for c in raw.cases {
        let mut expect = Tally::new();
        match c.expect {
            RawExpect::Silent(s) if s == "silent" => {}
            RawExpect::Silent(s) => {
                return Err(format!(
                    "{}: `expect` must be \"silent\" or a list, not {s:?}",
                    c.name
                ));
            }
            RawExpect::Findings(list) => {
                for f in list {
                    let rule = RuleId::parse(&f.rule)
                        .ok_or_else(|| format!("{}: unknown rule {}", c.name, f.rule))?;
                    let tier = Tier::parse(&f.tier)
                        .ok_or_else(|| format!("{}: unknown tier {}", c.name, f.tier))?;
                    *expect.entry((rule, tier)).or_default() += 1;
                }
            }
        }
        cases.push(Case {
            name: c.name,
            kind: c.kind,
            file: c.file,
            tools: c.tools.unwrap_or_else(|| raw.tools.clone()),
            description: c.description,
            expect,
            exit: c.exit,
        });
    }
    Ok(Suite {
        tools: raw.tools,
        cases,
    })
}

/// What one case gave.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The case.
    pub case: Case,
    /// The findings it gave.
    pub got: Tally,
    /// The exit code it gave.
    pub exit: u8,
}

impl Outcome {
    /// The case behaved as expected.
    pub fn pass(&self) -> bool {
        self.got == self.case.expect && self.exit == self.case.exit
    }
}

/// Show a tally as `R2a hard_event, R2b hard_defect` (or `silent`).
pub fn show(t: &Tally) -> String {
    if t.is_empty() {
        return "silent".into();
    }
    t.iter()
        .map(|((r, tier), n)| {
            if *n == 1 {
                format!("{r} {tier}")
            } else {
                format!("{n}× {r} {tier}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Run every case. Also returns one report over all case files (for the HTML page).
pub fn run() -> Result<(Vec<Outcome>, Report), String> {
    let suite = suite()?;
    // One linter per tools file the cases name.
    let mut linters: BTreeMap<String, Linter> = BTreeMap::new();
    for name in suite.cases.iter().map(|c| &c.tools) {
        if linters.contains_key(name) {
            continue;
        }
        let text = file(name).ok_or_else(|| format!("{name} is not embedded"))?;
        let registry =
            crate::sources::file::parse_tools_str(text, name).map_err(|e| e.to_string())?;
        let linter = Linter::new(
            Some(registry),
            Selection::default(),
            RuleSettings::default(),
        );
        linters.insert(name.clone(), linter);
    }
    let mut all = ReportBuilder::new();
    let mut outcomes = Vec::new();
    for case in suite.cases {
        let text = file(&case.file)
            .ok_or_else(|| format!("{}: {} is not embedded", case.name, case.file))?;
        let path = format!("fixtures/demo/{}", case.file);
        let (format, parsed) = crate::adapters::parse_bytes(text.as_bytes(), &path, None);
        if let Some(issue) = parsed.issues.first() {
            return Err(format!("{}: {issue}", case.name));
        }
        let format = format.map_or("native", |f| f.name());
        let linter = &linters[&case.tools];
        let mut one = ReportBuilder::new();
        let input = one.input(&path);
        one.format(input, format);
        let input_all = all.input(&path);
        all.format(input_all, format);
        for t in &parsed.traces {
            one.trace(input, linter.lint(t));
            all.trace(input_all, linter.lint(t));
        }
        let report = one.finish(Tier::HardDefect, &[]);
        let mut got = Tally::new();
        for f in &report.findings {
            *got.entry((f.rule, f.tier)).or_default() += 1;
        }
        outcomes.push(Outcome {
            case,
            got,
            exit: report.exit.code(),
        });
    }
    Ok((outcomes, all.finish(Tier::HardDefect, &[])))
}

#[cfg(test)]
mod tests;
