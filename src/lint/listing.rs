//! The findings a report lists, at most `cap` of them (`--max-findings`): a report of a million
//! findings is gigabytes of JSON or HTML nobody reads, and holding them all is gigabytes of
//! memory. Findings arrive settled, in report order; past the cap the least important one is
//! dropped — a candidate before a hard event before a hard defect (ignored and baselined
//! findings before any), and of equals the latest — so memory stays `O(cap)` and what is kept
//! does not depend on how the run was split into threads. Counts and the exit status are
//! settled before a finding gets here: they always cover every finding.

use std::collections::BinaryHeap;

use crate::finding::{Finding, Tier};

use super::spill::{Key, Parked, Spill, SpilledListing};

/// The default `--max-findings`.
pub(crate) const DEFAULT_MAX_FINDINGS: usize = 100_000;

/// The findings kept for the report, bounded by `cap`.
#[derive(Debug, Default)]
pub(crate) struct Listing {
    cap: Option<usize>,
    /// Kept findings by slot (a slot freed by an eviction is taken by the next one kept),
    /// boxed: a slot is a pointer, so the table's spare capacity costs little.
    slots: Vec<Option<(u64, Slot)>>,
    /// Where kept findings are stored instead of in `slots` (`Listing::spilled`).
    spill: Option<Spill>,
    free: Vec<usize>,
    /// The kept findings' (rank, order, slot), worst on top.
    worst: BinaryHeap<(u8, u64, usize)>,
    /// Findings offered so far (their report order).
    offered: u64,
    /// Per input: findings offered, findings left out.
    per_input: Vec<(usize, usize)>,
}

/// A kept finding: whole, or its key in `Listing::spill`.
#[derive(Debug)]
enum Slot {
    Whole(Box<Finding>),
    Stored(Box<Key>),
}

/// What a listing kept, in report order.
#[derive(Debug)]
pub(crate) enum Kept {
    Findings(Vec<Finding>),
    Spilled(Box<SpilledListing>),
}

impl Kept {
    /// The findings as values; a spilled listing decodes them all.
    #[cfg(test)]
    pub(crate) fn findings(self) -> Vec<Finding> {
        match self {
            Kept::Findings(v) => v,
            Kept::Spilled(s) => s.decode_all().unwrap(),
        }
    }
}

/// Lower is more important.
fn rank(f: &Finding) -> u8 {
    if f.ignored.is_some() || f.baselined {
        return 3;
    }
    match f.tier {
        Tier::HardDefect => 0,
        Tier::HardEvent => 1,
        Tier::Candidate => 2,
    }
}

impl Listing {
    /// Keep at most `cap` findings (`None`: all).
    pub(crate) fn new(cap: Option<usize>) -> Self {
        Self {
            cap,
            ..Self::default()
        }
    }

    /// Keep at most `cap` findings, stored out of memory past `spill_at` bytes of them
    /// (`spill::Spill`): for a report that reads them one at a time (text).
    pub(crate) fn spilled(cap: Option<usize>, spill_at: usize) -> Self {
        Self {
            cap,
            spill: Some(Spill::new(spill_at)),
            ..Self::default()
        }
    }

    /// Make a spilled listing's temporary file with `open` (tests: one that fails).
    #[cfg(test)]
    pub(crate) fn open_with(&mut self, open: fn() -> std::io::Result<std::fs::File>) {
        if let Some(s) = self.spill.as_mut() {
            s.open_with(open);
        }
    }

    /// Store the findings of a trace that waits for an earlier input (`Spill::park`); `Err`
    /// gives them back when this listing stores nothing.
    pub(crate) fn park(&mut self, findings: Vec<Finding>) -> Result<Parked, Vec<Finding>> {
        match self.spill.as_mut() {
            Some(s) => Ok(s.park(findings)),
            None => Err(findings),
        }
    }

    /// The findings `park` stored.
    pub(crate) fn unpark(&self, parked: Parked) -> std::io::Result<Vec<Finding>> {
        match self.spill.as_ref() {
            Some(s) => s.unpark(parked),
            None => Err(std::io::Error::other(
                "internal error: findings parked in a listing that stores none",
            )),
        }
    }

    /// Findings are stored out of memory.
    pub(crate) fn spills(&self) -> bool {
        self.spill.is_some()
    }

    /// Offer the next finding in report order.
    pub(crate) fn offer(&mut self, f: Finding) {
        let order = self.offered;
        self.offered += 1;
        if self.per_input.len() <= f.input {
            self.per_input.resize(f.input + 1, (0, 0));
        }
        self.per_input[f.input].0 += 1;
        let r = rank(&f);
        if let Some(cap) = self.cap
            && self.worst.len() >= cap
        {
            // Full: the newcomer is the latest, so it is kept only when it outranks the worst.
            match self.worst.peek() {
                Some(&(worst_rank, _, slot)) if r < worst_rank => {
                    self.worst.pop();
                    if let Some((_, out)) = self.slots[slot].take() {
                        let input = match &out {
                            Slot::Whole(f) => f.input,
                            Slot::Stored(k) => k.input(),
                        };
                        self.per_input[input].1 += 1;
                    }
                    self.free.push(slot);
                }
                _ => {
                    self.per_input[f.input].1 += 1;
                    return;
                }
            }
        }
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.slots.push(None);
                self.slots.len() - 1
            }
        };
        let kept = match self.spill.as_mut() {
            Some(spill) => Slot::Stored(Box::new(spill.keep(f))),
            None => Slot::Whole(Box::new(f)),
        };
        self.slots[slot] = Some((order, kept));
        self.worst.push((r, order, slot));
    }

    /// Findings left out so far.
    pub(crate) fn omitted(&self) -> usize {
        self.per_input.iter().map(|(_, out)| out).sum()
    }

    /// The (input, run id) of every trace with a kept finding.
    pub(crate) fn kept_runs(&self) -> std::collections::HashSet<(usize, &str)> {
        self.slots
            .iter()
            .flatten()
            .map(|(_, kept)| match kept {
                Slot::Whole(f) => (f.input, f.run_id.as_str()),
                Slot::Stored(k) => (
                    k.input(),
                    self.spill.as_ref().map_or("", |s| s.run_id(k.run())),
                ),
            })
            .collect()
    }

    /// The kept findings in report order, and per input with findings left out: (input,
    /// offered, left out).
    pub(crate) fn finish(self) -> (Kept, Vec<(usize, usize, usize)>) {
        let mut kept: Vec<(u64, Slot)> = self.slots.into_iter().flatten().collect();
        kept.sort_by_key(|(order, _)| *order);
        let cut = self
            .per_input
            .iter()
            .enumerate()
            .filter(|(_, (_, out))| *out > 0)
            .map(|(i, (offered, out))| (i, *offered, *out))
            .collect();
        let kept = match self.spill {
            Some(spill) => Kept::Spilled(Box::new(
                spill.finish(
                    kept.into_iter()
                        .filter_map(|(_, s)| match s {
                            Slot::Stored(k) => Some(*k),
                            Slot::Whole(_) => None,
                        })
                        .collect(),
                ),
            )),
            None => Kept::Findings(
                kept.into_iter()
                    .filter_map(|(_, s)| match s {
                        Slot::Whole(f) => Some(*f),
                        Slot::Stored(_) => None,
                    })
                    .collect(),
            ),
        };
        (kept, cut)
    }

    /// The cap in force.
    pub(crate) fn cap(&self) -> Option<usize> {
        self.cap
    }
}

/// The note an input gets when some of its findings are not listed.
pub(crate) fn note(cap: usize, offered: usize, out: usize) -> String {
    format!(
        "{out} of this input's {offered} findings are not listed: a report lists at most {cap} (candidates are left out first, then hard events, then hard defects, each latest first); the counts and the exit code cover every finding (raise the limit with --max-findings N, 0 for none)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::{Evidence, FindingType, RuleId};
    use crate::model::location::Location;

    fn finding(input: usize, tier: Tier, n: usize) -> Finding {
        Finding {
            rule: RuleId::R1,
            kind: FindingType::SchemaViolation,
            tier,
            input,
            run_id: format!("run-{n}"),
            tool: None,
            field: None,
            message: format!("finding {n}"),
            evidence: vec![Evidence {
                step: 0,
                at: Location::default(),
                note: "the call".into(),
                excerpt: String::new(),
            }],
            help: None,
            details: Vec::new(),
            possible_false_positive: false,
            signal: None,
            ignored: None,
            fields: Vec::new(),
            baselined: false,
            score: None,
        }
    }

    fn messages(fs: &[Finding]) -> Vec<&str> {
        fs.iter().map(|f| f.message.as_str()).collect()
    }

    #[test]
    fn under_the_cap_everything_is_kept_in_order() {
        let mut l = Listing::new(Some(10));
        for n in 0..5 {
            l.offer(finding(0, Tier::Candidate, n));
        }
        let (kept, cut) = l.finish();
        let kept = kept.findings();
        assert_eq!(messages(&kept).len(), 5);
        assert_eq!(kept[0].message, "finding 0");
        assert!(cut.is_empty());
    }

    #[test]
    fn a_later_hard_defect_evicts_the_latest_candidate_and_order_is_restored() {
        let mut l = Listing::new(Some(3));
        l.offer(finding(0, Tier::Candidate, 0));
        l.offer(finding(0, Tier::HardEvent, 1));
        l.offer(finding(0, Tier::Candidate, 2));
        l.offer(finding(1, Tier::HardDefect, 3));
        l.offer(finding(1, Tier::Candidate, 4));
        assert_eq!(l.omitted(), 2);
        let (kept, cut) = l.finish();
        let kept = kept.findings();
        assert_eq!(
            messages(&kept),
            ["finding 0", "finding 1", "finding 3"],
            "the latest candidate (2) went for the hard defect, and candidate 4 never got in"
        );
        assert_eq!(cut, [(0, 3, 1), (1, 2, 1)]);
    }

    #[test]
    fn ignored_findings_go_before_candidates() {
        let mut l = Listing::new(Some(1));
        let mut ignored = finding(0, Tier::HardDefect, 0);
        ignored.ignored = Some("known".into());
        l.offer(ignored);
        l.offer(finding(0, Tier::Candidate, 1));
        let kept = l.finish().0.findings();
        assert_eq!(messages(&kept), ["finding 1"]);
    }

    #[test]
    fn no_cap_keeps_everything() {
        let mut l = Listing::new(None);
        for n in 0..1000 {
            l.offer(finding(0, Tier::Candidate, n));
        }
        assert_eq!(l.omitted(), 0);
        assert_eq!(l.finish().0.findings().len(), 1000);
    }
}
