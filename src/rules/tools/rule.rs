//! What a tool-definition rule is (`ToolRule`), what it looks at (`ToolsCx`: the tool set and
//! its settings) and where it writes (`ToolSink`), with the evidence that points into a tools
//! file.

use crate::finding::{Coverage, Evidence, Finding, RuleId, RuleMeta, Suppression, Tier};
use crate::model::Location;
use crate::model::toolset::ToolSet;

/// What the tool rules may read.
#[derive(Debug)]
pub struct ToolsCx<'a> {
    /// Every source's tools, in the order given (their union is the toolset an agent gets).
    pub sets: &'a [ToolSet],
    /// Settings.
    pub settings: &'a ToolSettings,
}

/// Settings of the tool rules.
#[derive(Debug, Clone)]
pub struct ToolSettings {
    /// T11: the largest description, in estimated tokens.
    pub description_budget: usize,
    /// T12: each pinned tool's description (`tracelint mcp pin`), by name: a description that
    /// changed since is how a "rug pull" swaps instructions in under a trusted tool.
    pub pinned: Option<std::collections::BTreeMap<String, String>>,
}

/// Default T11 budget, in estimated tokens (about 2,000 characters of English).
pub const DEFAULT_DESCRIPTION_BUDGET: usize = 500;

impl Default for ToolSettings {
    fn default() -> Self {
        Self {
            description_budget: DEFAULT_DESCRIPTION_BUDGET,
            pinned: None,
        }
    }
}

/// A tool rule.
pub trait ToolRule: Sync {
    /// The rule's static description.
    fn meta(&self) -> &'static RuleMeta;
    /// Check every set, pushing findings, suppressions and coverage into `out`.
    fn check(&self, cx: &ToolsCx<'_>, out: &mut ToolSink);
}

/// Where one rule's output goes.
#[derive(Debug)]
pub struct ToolSink {
    pub(super) meta: &'static RuleMeta,
    /// Per set.
    pub(super) outcomes: Vec<SetOutcome>,
}

impl ToolSink {
    /// A finding about `tool` of set `set`, at `pointer`, with an excerpt (untrusted text:
    /// reporters escape it).
    #[allow(clippy::too_many_arguments)]
    pub fn finding(
        &mut self,
        set: usize,
        tier: Tier,
        tool: Option<&str>,
        pointer: String,
        message: impl Into<String>,
        note: &'static str,
        excerpt: String,
    ) -> &mut Finding {
        let f = Finding::new(
            self.meta,
            tier,
            "tools",
            tool,
            message,
            evidence(pointer, note, excerpt),
        );
        let findings = &mut self.outcomes[set].findings;
        findings.push(f);
        findings.last_mut().expect("just pushed")
    }

    /// The rule could not judge set `set` (or one tool of it): disclosed, never silent.
    pub fn suppress(&mut self, set: usize, tool: Option<&str>, reason: impl Into<String>) {
        self.outcomes[set].suppressions.push(Suppression {
            rule: self.meta.id,
            input: 0,
            run_id: "tools".to_owned(),
            step: None,
            at: None,
            tool: tool.map(str::to_owned),
            reason: reason.into(),
        });
    }

    /// Count one tool of set `set` looked at; `decided` when the rule could judge it.
    pub fn count(&mut self, set: usize, decided: bool) {
        let c = &mut self.outcomes[set].coverage[0].2;
        c.total += 1;
        c.decided += usize::from(decided);
    }
}

/// Evidence at a pointer (its line and column are filled in by the command).
pub fn evidence(pointer: String, note: &'static str, excerpt: String) -> Evidence {
    Evidence {
        step: 0,
        at: Location::new(0, 0, pointer),
        note: note.into(),
        excerpt,
    }
}

/// What the tool rules found in one set.
#[derive(Debug, Default)]
pub struct SetOutcome {
    /// Findings (evidence locations carry pointers only; line 0).
    pub findings: Vec<Finding>,
    /// Suppressions.
    pub suppressions: Vec<Suppression>,
    /// Per-rule coverage over the set's tools.
    pub coverage: Vec<(RuleId, &'static str, Coverage)>,
}
