//! What a baseline holds: each accepted finding's matching key (`Key`: never a step, line, value
//! or run id), the entries of a file (`FileEntry`) and the baseline read from it (`Baseline`).

use std::collections::{BTreeMap, BTreeSet};

use crate::finding::{Finding, RuleId, Tier};
/// What a finding is, for matching across runs: never a step, line, value or run id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    /// The rule.
    pub rule: RuleId,
    /// The finding type (`schema_violation`).
    pub kind: String,
    /// The tools involved.
    pub tools: Vec<String>,
    /// The arguments involved.
    pub fields: Vec<String>,
    /// What kind of evidence it rests on.
    pub signal: Option<String>,
}

impl Key {
    /// The key of a finding.
    pub fn of(f: &Finding) -> Key {
        let mut fields = if f.fields.is_empty() {
            f.field.iter().cloned().collect()
        } else {
            f.fields.clone()
        };
        fields.sort();
        fields.dedup();
        Key {
            rule: f.rule,
            kind: f.kind.as_str().to_owned(),
            tools: f.tool.iter().cloned().collect(),
            fields,
            signal: f.signal.map(str::to_owned),
        }
    }

    /// `R1 schema_violation `cancel_order` (reason)`, for notes.
    pub(super) fn describe(&self, tier: Tier) -> String {
        let mut s = format!("{} {} {tier}", self.rule, self.kind);
        for t in &self.tools {
            s.push_str(&format!(" `{t}`"));
        }
        if !self.fields.is_empty() {
            s.push_str(&format!(" ({})", self.fields.join(", ")));
        }
        if let Some(sig) = &self.signal {
            s.push_str(&format!(" [{sig}]"));
        }
        s
    }
}

/// What one trace file holds in the baseline.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileEntry {
    /// Accepted findings: how many of each key at each tier.
    pub findings: BTreeMap<(Key, Tier), u64>,
    /// Per rule that checked something: the tools it checked at least once.
    pub checked: BTreeMap<RuleId, BTreeSet<String>>,
    /// Per rule: the tools a per-call "could not check" named.
    pub unchecked: BTreeMap<RuleId, BTreeSet<String>>,
}

impl FileEntry {
    pub(super) fn is_empty(&self) -> bool {
        self.findings.is_empty() && self.checked.is_empty() && self.unchecked.is_empty()
    }
}

/// A baseline file's content.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    /// A `$schema` the file names (kept as it is).
    pub schema: Option<String>,
    /// The gate the findings were recorded at.
    pub gate: Option<Tier>,
    /// Per trace file, named relative to the baseline's folder with `/`.
    pub files: BTreeMap<String, FileEntry>,
}
