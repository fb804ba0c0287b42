//! `Listed`: the findings a report lists, read one at a time by index, whether they are the
//! report's own or were kept out of memory while the run went on (`lint::spill`); and the order a
//! person reads them in.

use std::borrow::Cow;
use std::io;

use crate::finding::Finding;

/// The findings a report lists, as the text, JSON and JSON Lines reports read them: one at a
/// time by index (a report's own, or those a run stored out of memory, `lint::spill`).
pub(crate) trait Listed {
    /// How many.
    fn len(&self) -> usize;
    /// Finding `i`, in report order.
    fn finding(&self, i: usize) -> io::Result<Cow<'_, Finding>>;
    /// Finding `i` is ignored (`[[ignore]]`).
    fn is_ignored(&self, i: usize) -> io::Result<bool> {
        Ok(self.finding(i)?.ignored.is_some())
    }
    /// `chain::first_failures` of the findings.
    fn first_failures(&self) -> io::Result<Vec<crate::chain::Chain>>;
    /// The indices of the findings in reading order (`Report::reading_order`).
    fn reading_order(&self) -> io::Result<Vec<usize>>;
}

impl Listed for Vec<Finding> {
    fn len(&self) -> usize {
        Vec::len(self)
    }

    fn finding(&self, i: usize) -> io::Result<Cow<'_, Finding>> {
        self.get(i).map(Cow::Borrowed).ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "no such finding")
        })
    }

    fn first_failures(&self) -> io::Result<Vec<crate::chain::Chain>> {
        Ok(crate::chain::first_failures(self))
    }

    fn reading_order(&self) -> io::Result<Vec<usize>> {
        let mut order: Vec<usize> = (0..self.len()).collect();
        order.sort_by(|a, b| reading_key(&self[*a]).cmp(&reading_key(&self[*b])));
        Ok(order)
    }
}

/// The sort key of `Report::reading_order`.
pub(crate) fn reading_key(f: &Finding) -> impl Ord + '_ {
    let at = f.at();
    (
        f.ignored.is_some(),
        std::cmp::Reverse(f.tier),
        f.rule,
        f.input,
        at.line,
        at.column,
        f.run_id.as_str(),
        f.message.as_str(),
    )
}

