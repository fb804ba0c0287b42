//! Where a format reader sends what it reads (`Emit`: traces one at a time, input issues,
//! notes), and the collected form (`Parsed`).

use crate::finding::{InputIssue, MAX_ISSUES_PER_INPUT};
use crate::model::Trace;

/// Where an adapter sends what it reads: traces (one at a time, so JSON Lines can stream) and
/// input issues.
pub trait Emit {
    /// A finished trace.
    fn trace(&mut self, trace: Trace);
    /// A problem with the input; the adapter keeps reading.
    fn issue(&mut self, issue: InputIssue);
    /// A fact about the input worth a line in the report (not a problem).
    fn note(&mut self, _note: String) {}
}

/// Everything read from one input, collected.
#[derive(Debug, Default)]
pub struct Parsed {
    /// The traces, in input order.
    pub traces: Vec<Trace>,
    /// Problems with the input: the first `MAX_ISSUES_PER_INPUT` of them.
    pub issues: Vec<InputIssue>,
    /// Problems past those kept in `issues`: only counted (a file of endless bad lines is held
    /// in bounded memory).
    pub omitted_issues: u64,
    /// Notes about the input.
    pub notes: Vec<String>,
}

impl Emit for Parsed {
    fn trace(&mut self, trace: Trace) {
        self.traces.push(trace);
    }
    fn issue(&mut self, issue: InputIssue) {
        if self.issues.len() < MAX_ISSUES_PER_INPUT {
            self.issues.push(issue);
        } else {
            self.omitted_issues = self.omitted_issues.saturating_add(1);
        }
    }
    fn note(&mut self, note: String) {
        self.notes.push(note);
    }
}
