//! The findings a text report lists, kept out of memory (issue 46: memory follows the traces in
//! flight, not the findings). The text report is written once every input is read (hard defects
//! first, then by rule), so a text run keeps each listed finding to the end; held as values they
//! were most of a run's heap. Here each one is encoded into a compact record as it is listed:
//! records gather in a buffer that goes to an unnamed temporary file each time it fills, and
//! memory keeps only what sorting and chaining need ([`Key`]). The text report then decodes
//! one finding at a time. With no temporary file to write (none can be made, or the disk is
//! full), records stay in memory: nothing is lost, the run only takes more memory.
//!
//! A finding with a trajectory score (E1) is kept whole: it is rare, and its score is not
//! encoded.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

use crate::chain::{self, Chain};
use crate::finding::{Evidence, Finding, FindingType, RuleId, Tier};
use crate::model::location::{End, Location};
use crate::reporters::Listed;
use crate::reporters::listed::reading_key;

/// Bytes of records held in memory before they go to the temporary file: a run listing fewer
/// never makes one.
pub(crate) const SPILL_AT: usize = 256 * 1024;

/// What memory keeps of a listed finding: its place in the store and what the text report
/// sorts and chains on.
#[derive(Debug)]
pub(crate) struct Key {
    body: Body,
    input: usize,
    /// Index into the listing's runs (input, run id).
    run: u32,
    line: u32,
    column: u32,
    tier: Tier,
    rule: RuleId,
    ignored: bool,
    /// It can take part in a run's first-failure chain (`chain::first_failures`).
    chains: bool,
}

#[derive(Debug)]
enum Body {
    /// `len` bytes at `offset` in the store.
    Stored { offset: u64, len: u32 },
    /// Kept as it is (a finding with a score).
    Whole(Box<Finding>),
}

impl Key {
    /// The finding's input.
    pub(crate) fn input(&self) -> usize {
        self.input
    }

    /// The listing's index of the finding's run.
    pub(crate) fn run(&self) -> u32 {
        self.run
    }

    /// Sorts as `reading_key` does, up to what the key does not hold (run id and message).
    fn coarse(&self) -> (bool, std::cmp::Reverse<Tier>, RuleId, usize, u32, u32) {
        (
            self.ignored,
            std::cmp::Reverse(self.tier),
            self.rule,
            self.input,
            self.line,
            self.column,
        )
    }
}

/// Records: a buffer in memory, and what went before it in the temporary file.
#[derive(Debug)]
struct Store {
    memory: Vec<u8>,
    file: Option<File>,
    /// Bytes in the file: offsets below this are there, the rest in `memory`.
    on_disk: u64,
    /// Writing to a temporary file failed (or none could be made): keep everything in memory.
    stuck: bool,
    spill_at: usize,
    /// Makes the temporary file.
    open: fn() -> io::Result<File>,
}

impl Store {
    fn push(&mut self, record: &[u8]) -> u64 {
        let offset = self.on_disk + self.memory.len() as u64;
        self.memory.extend_from_slice(record);
        if self.memory.len() >= self.spill_at && !self.stuck {
            self.spill();
        }
        offset
    }

    /// Move the buffer to the file. On failure the buffer stays (and so do the bytes a failed
    /// write may have left in the file, past `on_disk`, never read) and nothing is written again.
    fn spill(&mut self) {
        if self.file.is_none() {
            match (self.open)() {
                Ok(f) => self.file = Some(f),
                Err(_) => {
                    self.stuck = true;
                    return;
                }
            }
        }
        let Some(file) = self.file.as_mut() else {
            return;
        };
        // Reads (of parked findings) may have moved the file's position since the last write.
        if file.seek(SeekFrom::Start(self.on_disk)).is_err() {
            self.stuck = true;
            return;
        }
        match file.write_all(&self.memory) {
            Ok(()) => {
                self.on_disk += self.memory.len() as u64;
                self.memory.clear();
            }
            Err(_) => self.stuck = true,
        }
    }

    fn read(&self, offset: u64, len: u32, buf: &mut Vec<u8>) -> io::Result<()> {
        let len = len as usize;
        buf.clear();
        if offset >= self.on_disk {
            let start = usize::try_from(offset - self.on_disk).map_err(|_| corrupt())?;
            let bytes = self
                .memory
                .get(start..start.checked_add(len).ok_or_else(corrupt)?)
                .ok_or_else(corrupt)?;
            buf.extend_from_slice(bytes);
            return Ok(());
        }
        let mut file = self.file.as_ref().ok_or_else(corrupt)?;
        file.seek(SeekFrom::Start(offset))?;
        buf.resize(len, 0);
        file.read_exact(buf)
    }
}

fn corrupt() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "the temporary file of listed findings was changed while the run was writing it",
    )
}

/// Values of a small closed set (rules, tiers, signals), numbered in the order first seen.
#[derive(Debug)]
struct Table<T>(Vec<T>);

impl<T: Copy + PartialEq> Table<T> {
    fn number(&mut self, v: T) -> u64 {
        match self.0.iter().position(|x| *x == v) {
            Some(i) => i as u64,
            None => {
                self.0.push(v);
                self.0.len() as u64 - 1
            }
        }
    }

    fn get(&self, n: u64) -> io::Result<T> {
        usize::try_from(n)
            .ok()
            .and_then(|i| self.0.get(i))
            .copied()
            .ok_or_else(corrupt)
    }
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

#[derive(Debug, Default)]
struct Tables {
    rules: Table<RuleId>,
    kinds: Table<FindingType>,
    tiers: Table<Tier>,
    signals: Table<&'static str>,
}

/// The findings of a trace parked in the store (`Spill::park`).
#[derive(Debug, Default)]
pub(crate) struct Parked(Vec<Slot>);

#[derive(Debug)]
enum Slot {
    At { offset: u64, len: u32 },
    Whole(Box<Finding>),
}

/// The listed findings' records, with what decoding them needs.
#[derive(Debug)]
pub(crate) struct Spill {
    store: Store,
    tables: Tables,
    /// (input, run id) of every run a listed finding belongs to, numbered.
    runs: Vec<(usize, String)>,
    run_numbers: std::collections::HashMap<(usize, String), u32>,
    scratch: Vec<u8>,
}

impl Spill {
    /// Records go to a temporary file past `spill_at` bytes in memory ([`SPILL_AT`]).
    pub(crate) fn new(spill_at: usize) -> Self {
        Self {
            store: Store {
                memory: Vec::new(),
                file: None,
                on_disk: 0,
                stuck: false,
                spill_at,
                open: tempfile::tempfile,
            },
            tables: Tables::default(),
            runs: Vec::new(),
            run_numbers: std::collections::HashMap::new(),
            scratch: Vec::new(),
        }
    }

    /// Make the temporary file with `open` (tests: one that fails).
    #[cfg(test)]
    pub(crate) fn open_with(&mut self, open: fn() -> io::Result<File>) {
        self.store.open = open;
    }

    /// Store a finding; what memory keeps of it.
    pub(crate) fn keep(&mut self, f: Finding) -> Key {
        // A run's findings are listed one after another: most are the last run's.
        let last = self.runs.len().checked_sub(1);
        let same = last.and_then(|n| {
            let (input, id) = &self.runs[n];
            (*input == f.input && *id == f.run_id).then_some(n)
        });
        let known = same
            .and_then(|n| u32::try_from(n).ok())
            .or_else(|| self.run_numbers.get(&(f.input, f.run_id.clone())).copied());
        let run = match known {
            Some(n) => n,
            None => {
                let n = u32::try_from(self.runs.len()).unwrap_or(u32::MAX);
                self.runs.push((f.input, f.run_id.clone()));
                self.run_numbers.insert((f.input, f.run_id.clone()), n);
                n
            }
        };
        let at = f.evidence.first().map(|e| &e.at);
        let mut key = Key {
            body: Body::Stored { offset: 0, len: 0 },
            input: f.input,
            run,
            line: at.map_or(0, |a| a.line),
            column: at.map_or(0, |a| a.column),
            tier: f.tier,
            rule: f.rule,
            ignored: f.ignored.is_some(),
            chains: f.ignored.is_none() && !f.rule.is_tool_rule() && !f.evidence.is_empty(),
        };
        if f.score.is_some() {
            key.body = Body::Whole(Box::new(f));
            return key;
        }
        let mut buf = std::mem::take(&mut self.scratch);
        buf.clear();
        encode(&f, &mut self.tables, &mut buf);
        match u32::try_from(buf.len()) {
            Ok(len) => {
                let offset = self.store.push(&buf);
                key.body = Body::Stored { offset, len };
            }
            Err(_) => key.body = Body::Whole(Box::new(f)),
        }
        self.scratch = buf;
        key
    }

    /// Store the findings of a linted trace that waits for an earlier input to be written, in
    /// their order, each with its input and run id; `unpark` gives them back.
    pub(crate) fn park(&mut self, findings: Vec<Finding>) -> Parked {
        let mut parked = Vec::with_capacity(findings.len());
        for f in findings {
            if f.score.is_some() {
                parked.push(Slot::Whole(Box::new(f)));
                continue;
            }
            let mut buf = std::mem::take(&mut self.scratch);
            buf.clear();
            let mut e = Enc(&mut buf);
            e.number(f.input as u64);
            e.text(&f.run_id);
            encode(&f, &mut self.tables, &mut buf);
            match u32::try_from(buf.len()) {
                Ok(len) => parked.push(Slot::At {
                    offset: self.store.push(&buf),
                    len,
                }),
                Err(_) => parked.push(Slot::Whole(Box::new(f))),
            }
            self.scratch = buf;
        }
        Parked(parked)
    }

    /// The findings `park` stored, as they were.
    pub(crate) fn unpark(&self, parked: Parked) -> io::Result<Vec<Finding>> {
        let mut buf = Vec::new();
        let mut out = Vec::with_capacity(parked.0.len());
        for p in parked.0 {
            match p {
                Slot::Whole(f) => out.push(*f),
                Slot::At { offset, len } => {
                    self.store.read(offset, len, &mut buf)?;
                    let mut d = Dec {
                        bytes: &buf,
                        at: 0,
                    };
                    let input = usize::try_from(d.number()?).map_err(|_| corrupt())?;
                    let run_id = d.text()?;
                    let mut f = decode_from(&mut d, &self.tables)?;
                    f.input = input;
                    f.run_id = run_id;
                    out.push(f);
                }
            }
        }
        Ok(out)
    }

    /// The run id of run `n`.
    pub(crate) fn run_id(&self, n: u32) -> &str {
        self.runs.get(n as usize).map_or("", |(_, id)| id.as_str())
    }

    /// The listed findings, in report order, as the text report reads them.
    pub(crate) fn finish(self, keys: Vec<Key>) -> SpilledListing {
        SpilledListing { spill: self, keys }
    }
}

/// The findings a text run lists, most of them in the store.
#[derive(Debug)]
pub(crate) struct SpilledListing {
    spill: Spill,
    keys: Vec<Key>,
}

impl SpilledListing {
    /// The listed findings decoded, in report order (tests; a run decodes one at a time).
    #[cfg(test)]
    pub(crate) fn decode_all(&self) -> io::Result<Vec<Finding>> {
        (0..self.keys.len())
            .map(|i| self.finding(i).map(Cow::into_owned))
            .collect()
    }

    /// The temporary file was written to (tests).
    #[cfg(test)]
    pub(crate) fn spilled(&self) -> bool {
        self.spill.store.on_disk > 0
    }
}

impl Listed for SpilledListing {
    fn len(&self) -> usize {
        self.keys.len()
    }

    fn is_ignored(&self, i: usize) -> io::Result<bool> {
        self.keys.get(i).map(|k| k.ignored).ok_or_else(corrupt)
    }

    fn finding(&self, i: usize) -> io::Result<Cow<'_, Finding>> {
        let key = self.keys.get(i).ok_or_else(corrupt)?;
        match &key.body {
            Body::Whole(f) => Ok(Cow::Borrowed(f)),
            Body::Stored { offset, len } => {
                let mut buf = Vec::new();
                self.spill.store.read(*offset, *len, &mut buf)?;
                let mut f = decode(&buf, &self.spill.tables)?;
                f.input = key.input;
                f.run_id = self.spill.run_id(key.run).to_owned();
                Ok(Cow::Owned(f))
            }
        }
    }

    /// `chain::first_failures` over the listed findings, one run's findings decoded at a time:
    /// the same runs, in the same order, each chained from the same findings.
    fn first_failures(&self) -> io::Result<Vec<Chain>> {
        let mut runs: BTreeMap<(usize, &str), Vec<usize>> = BTreeMap::new();
        for (i, k) in self.keys.iter().enumerate() {
            if !k.chains {
                continue;
            }
            let run = runs
                .entry((k.input, self.spill.run_id(k.run)))
                .or_default();
            if run.len() < chain::MAX_LOOKED_AT {
                run.push(i);
            }
        }
        let mut chains = Vec::new();
        for indices in runs.into_values() {
            let findings = indices
                .iter()
                .map(|i| self.finding(*i).map(Cow::into_owned))
                .collect::<io::Result<Vec<_>>>()?;
            let global = |local: usize| indices[local];
            for mut c in chain::first_failures(&findings) {
                let (input, line, column, rule, run_id, message) = findings[c.head].sort_key();
                let key = (
                    input,
                    line,
                    column,
                    rule,
                    run_id.to_owned(),
                    message.to_owned(),
                );
                c.head = global(c.head);
                for f in &mut c.follows {
                    *f = global(*f);
                }
                for s in &mut c.steps {
                    s.finding = global(s.finding);
                }
                chains.push((key, c));
            }
        }
        chains.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(chains.into_iter().map(|(_, c)| c).collect())
    }

    /// Sorted on what memory keeps; findings alike in all of it (the same rule at the same
    /// place) are decoded and ordered by the reading order's own key (`reading_key`).
    fn reading_order(&self) -> io::Result<Vec<usize>> {
        let mut order: Vec<usize> = (0..self.keys.len()).collect();
        order.sort_by_key(|i| self.keys[*i].coarse());
        let mut start = 0;
        while start < order.len() {
            let coarse = self.keys[order[start]].coarse();
            let mut end = start + 1;
            while end < order.len() && self.keys[order[end]].coarse() == coarse {
                end += 1;
            }
            if end - start > 1 {
                let mut tied = order[start..end]
                    .iter()
                    .map(|i| Ok((self.finding(*i)?, *i)))
                    .collect::<io::Result<Vec<_>>>()?;
                tied.sort_by(|(a, _), (b, _)| reading_key(a).cmp(&reading_key(b)));
                for (slot, (_, i)) in order[start..end].iter_mut().zip(tied) {
                    *slot = i;
                }
            }
            start = end;
        }
        Ok(order)
    }
}

/// Encode a finding (but its input and run id, which its key holds). Every field is named, so
/// a field added to a finding, an evidence or a location fails to compile here until it is
/// encoded.
fn encode(f: &Finding, tables: &mut Tables, out: &mut Vec<u8>) {
    let Finding {
        rule,
        kind,
        tier,
        input: _,
        run_id: _,
        tool,
        field,
        message,
        evidence,
        help,
        details,
        possible_false_positive,
        signal,
        ignored,
        fields,
        baselined,
        score: _,
    } = f;
    let mut e = Enc(out);
    e.number(tables.rules.number(*rule));
    e.number(tables.kinds.number(*kind));
    e.number(tables.tiers.number(*tier));
    e.maybe(tool.as_deref());
    e.maybe(field.as_deref());
    e.text(message);
    e.number(evidence.len() as u64);
    for ev in evidence {
        let Evidence {
            step,
            at,
            note,
            excerpt,
        } = ev;
        let Location {
            line,
            column,
            pointer,
            end,
        } = at;
        e.number(*step as u64);
        e.number(u64::from(*line));
        e.number(u64::from(*column));
        e.text(pointer);
        match end {
            Some(End { line, column }) => {
                e.number(1);
                e.number(u64::from(*line));
                e.number(u64::from(*column));
            }
            None => e.number(0),
        }
        e.text(note);
        e.text(excerpt);
    }
    e.maybe(help.as_deref());
    e.number(details.len() as u64);
    for d in details {
        e.text(d);
    }
    e.number(u64::from(*possible_false_positive));
    match signal {
        Some(s) => e.number(tables.signals.number(s) + 1),
        None => e.number(0),
    }
    e.maybe(ignored.as_deref());
    e.number(fields.len() as u64);
    for d in fields {
        e.text(d);
    }
    e.number(u64::from(*baselined));
}

fn decode(bytes: &[u8], tables: &Tables) -> io::Result<Finding> {
    decode_from(&mut Dec { bytes, at: 0 }, tables)
}

/// Decode the rest of `d` as one finding (but its input and run id).
fn decode_from(d: &mut Dec<'_>, tables: &Tables) -> io::Result<Finding> {
    let rule = tables.rules.get(d.number()?)?;
    let kind = tables.kinds.get(d.number()?)?;
    let tier = tables.tiers.get(d.number()?)?;
    let tool = d.maybe()?;
    let field = d.maybe()?;
    let message = d.text()?;
    let n = d.count()?;
    let mut evidence = Vec::with_capacity(n);
    for _ in 0..n {
        let step = usize::try_from(d.number()?).map_err(|_| corrupt())?;
        let line = d.small()?;
        let column = d.small()?;
        let pointer = d.text()?;
        let end = match d.number()? {
            0 => None,
            _ => Some(End {
                line: d.small()?,
                column: d.small()?,
            }),
        };
        let note = Cow::Owned(d.text()?);
        let excerpt = d.text()?;
        evidence.push(Evidence {
            step,
            at: Location {
                line,
                column,
                pointer,
                end,
            },
            note,
            excerpt,
        });
    }
    let help = d.maybe()?;
    let n = d.count()?;
    let details = (0..n).map(|_| d.text()).collect::<io::Result<Vec<_>>>()?;
    let possible_false_positive = d.number()? != 0;
    let signal = match d.number()? {
        0 => None,
        n => Some(tables.signals.get(n - 1)?),
    };
    let ignored = d.maybe()?;
    let n = d.count()?;
    let fields = (0..n).map(|_| d.text()).collect::<io::Result<Vec<_>>>()?;
    let baselined = d.number()? != 0;
    if d.at != d.bytes.len() {
        return Err(corrupt());
    }
    Ok(Finding {
        rule,
        kind,
        tier,
        input: 0,
        run_id: String::new(),
        tool,
        field,
        message,
        evidence,
        help,
        details,
        possible_false_positive,
        signal,
        ignored,
        fields,
        baselined,
        score: None,
    })
}

struct Enc<'a>(&'a mut Vec<u8>);

impl Enc<'_> {
    /// LEB128.
    fn number(&mut self, mut n: u64) {
        loop {
            let low = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                self.0.push(low);
                return;
            }
            self.0.push(low | 0x80);
        }
    }

    fn text(&mut self, s: &str) {
        self.number(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }

    fn maybe(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.number(s.len() as u64 + 1);
                self.0.extend_from_slice(s.as_bytes());
            }
            None => self.number(0),
        }
    }
}

struct Dec<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Dec<'_> {
    fn number(&mut self) -> io::Result<u64> {
        let mut n: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = *self.bytes.get(self.at).ok_or_else(corrupt)?;
            self.at += 1;
            n |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(corrupt())
    }

    fn small(&mut self) -> io::Result<u32> {
        u32::try_from(self.number()?).map_err(|_| corrupt())
    }

    /// A length or count, no larger than what is left to read.
    fn count(&mut self) -> io::Result<usize> {
        let n = usize::try_from(self.number()?).map_err(|_| corrupt())?;
        if n > self.bytes.len() - self.at {
            return Err(corrupt());
        }
        Ok(n)
    }

    fn bytes(&mut self, len: usize) -> io::Result<String> {
        let end = self.at.checked_add(len).ok_or_else(corrupt)?;
        let raw = self.bytes.get(self.at..end).ok_or_else(corrupt)?;
        self.at = end;
        String::from_utf8(raw.to_vec()).map_err(|_| corrupt())
    }

    fn text(&mut self) -> io::Result<String> {
        let len = self.count()?;
        self.bytes(len)
    }

    fn maybe(&mut self) -> io::Result<Option<String>> {
        match self.number()? {
            0 => Ok(None),
            n => {
                let len = usize::try_from(n - 1).map_err(|_| corrupt())?;
                self.bytes(len).map(Some)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::listing::{Kept, Listing};
    use std::path::Path;

    use crate::reporters::{OutputFormat, RenderOptions, Report, TextOptions, text};

    /// The report of every real run file in the repository, with each finding also listed
    /// twice more at the same place under another run id and message (findings alike in all a
    /// key holds, which reading order tells apart by decoding them).
    fn real_report() -> Report {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/real");
        let linter = crate::Linter::builder().build().unwrap();
        let mut report = linter.lint_paths([dir], |_| {}).unwrap();
        let mut all = Vec::new();
        for f in std::mem::take(&mut report.findings) {
            let mut other_run = f.clone();
            other_run.run_id.insert(0, '0');
            let mut other_message = f.clone();
            other_message.message.insert(0, 'a');
            all.extend([f, other_run, other_message]);
        }
        all.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        // Some ignored by an `[[ignore]]` (listed apart in JSON, last in reading order, never
        // in a chain).
        for f in all.iter_mut().step_by(7) {
            f.ignored = Some("known".into());
        }
        report.findings = all;
        report
    }

    fn stored(findings: &[Finding], spill_at: usize, open: fn() -> io::Result<File>) -> SpilledListing {
        let mut listing = Listing::spilled(None, spill_at);
        listing.open_with(open);
        for f in findings {
            listing.offer(f.clone());
        }
        match listing.finish().0 {
            Kept::Spilled(s) => *s,
            Kept::Findings(_) => panic!("a spilled listing kept its findings whole"),
        }
    }

    fn text_of(report: &Report, listed: &dyn Listed, opts: TextOptions) -> String {
        let mut out = Vec::new();
        text::render_listed(report, listed, opts, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// Stored in a file, in memory, or both, the findings decode to what was stored and the
    /// text report reads the same, byte for byte, as from the findings themselves.
    #[test]
    fn findings_stored_out_of_memory_read_as_the_findings_themselves() {
        let report = real_report();
        assert!(report.findings.len() > 300, "{} findings", report.findings.len());
        assert!(report.findings.iter().any(|f| f.signal.is_some() && f.help.is_some()));
        assert!(
            report.first_failures().iter().any(|c| !c.follows.is_empty()),
            "no chain to compare"
        );
        // Listed in report order, and in reverse (no order is assumed: the text report sorts).
        let mut reversed = report.clone();
        reversed.findings.reverse();
        let mut bare = report.clone();
        bare.findings.clear();
        for (report, spill_at, on_disk) in [
            (&report, 1, true),
            (&reversed, 1, true),
            (&report, 20_000, true),
            (&report, usize::MAX, false),
        ] {
            let findings = &report.findings;
            let listed = stored(findings, spill_at, tempfile::tempfile);
            assert_eq!(listed.spilled(), on_disk, "spill_at {spill_at}");
            assert_eq!(&listed.decode_all().unwrap(), findings, "spill_at {spill_at}");
            assert_eq!(listed.first_failures().unwrap(), report.first_failures());
            assert_eq!(listed.reading_order().unwrap(), findings.reading_order().unwrap());
            for (include_candidates, color, first_failures) in
                [(true, false, true), (false, true, true), (true, true, false)]
            {
                let opts = TextOptions {
                    include_candidates,
                    color,
                    first_failures,
                    show_suppressions: true,
                    ..TextOptions::default()
                };
                let mut whole = Vec::new();
                text::render(report, opts, &mut whole).unwrap();
                let whole = String::from_utf8(whole).unwrap();
                assert!(whole.contains("first failure in") == first_failures);
                assert_eq!(text_of(&bare, &listed, opts), whole, "spill_at {spill_at}");
            }
            // The JSON report (chains by index, findings then ignored ones) and JSON Lines.
            let opts = RenderOptions {
                text: TextOptions::default(),
                base: crate::reporters::paths::PathBase::new(Path::new("/"), Path::new("/")),
                sarif_max_results: None,
            };
            for format in [OutputFormat::Json, OutputFormat::JsonLines] {
                let render = |report: &Report, listed: &dyn Listed| {
                    let mut out = Vec::new();
                    crate::reporters::render_listed(format, report, listed, &opts, &mut out)
                        .unwrap();
                    String::from_utf8(out).unwrap()
                };
                let whole = render(report, &report.findings);
                assert!(whole.contains("\"known\""), "{format:?}: no ignored finding");
                assert_eq!(render(&bare, &listed), whole, "{format:?}, spill_at {spill_at}");
            }
            // A report that reads the findings whole refuses a listing kept apart.
            let mut out = Vec::new();
            assert!(
                crate::reporters::render_listed(OutputFormat::Sarif, &bare, &listed, &opts, &mut out)
                    .is_err()
            );
        }
    }

    /// No temporary file to be had, or one that takes no write: the findings stay in memory,
    /// none lost.
    #[test]
    fn without_a_file_to_write_the_findings_stay_in_memory() {
        let report = real_report();
        let no_file = || Err(io::Error::other("no temporary folder"));
        let read_only = || File::open(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"));
        for open in [no_file as fn() -> io::Result<File>, read_only] {
            let listed = stored(&report.findings, 1, open);
            assert!(!listed.spilled());
            assert_eq!(listed.decode_all().unwrap(), report.findings);
        }
    }

    /// Findings parked while others are stored and read back come back as they were: reads
    /// between writes do not move where the next records go.
    #[test]
    fn parked_findings_come_back_as_they_were() {
        let report = real_report();
        let findings = &report.findings;
        let mut listing = Listing::spilled(None, 1);
        let (a, rest) = findings.split_at(findings.len() / 3);
        let (b, c) = rest.split_at(rest.len() / 2);
        let mut first = a.to_vec();
        for (i, f) in first.iter_mut().enumerate() {
            f.input = i % 5;
        }
        let parked_a = listing.park(first.clone()).unwrap();
        for f in b {
            listing.offer(f.clone());
        }
        // Read back (the file's position moves), then store more.
        assert_eq!(listing.unpark(parked_a).unwrap(), first);
        let parked_c = listing.park(c.to_vec()).unwrap();
        for f in &first {
            listing.offer(f.clone());
        }
        assert_eq!(listing.unpark(parked_c).unwrap(), c);
        let Kept::Spilled(s) = listing.finish().0 else {
            panic!("a spilled listing kept its findings whole")
        };
        let expected: Vec<Finding> = b.iter().chain(&first).cloned().collect();
        assert_eq!(s.decode_all().unwrap(), expected);
        // A listing that stores nothing gives the findings back.
        let mut whole = Listing::new(None);
        assert_eq!(whole.park(c.to_vec()).unwrap_err(), c);
    }

    /// A record cut short or changed reads as an error, never a panic or another finding.
    #[test]
    fn a_damaged_record_is_an_error() {
        let report = real_report();
        let mut tables = Tables::default();
        for f in report.findings.iter().take(200) {
            let mut bytes = Vec::new();
            encode(f, &mut tables, &mut bytes);
            let mut back = decode(&bytes, &tables).unwrap();
            back.input = f.input;
            back.run_id.clone_from(&f.run_id);
            assert_eq!(&back, f);
            for cut in 0..bytes.len() {
                assert!(decode(&bytes[..cut], &tables).is_err(), "cut at {cut}");
            }
            let mut longer = bytes.clone();
            longer.push(0);
            assert!(decode(&longer, &tables).is_err());
            for at in [0, bytes.len() / 2] {
                let mut changed = bytes.clone();
                changed[at] = 0xff;
                let _ = decode(&changed, &tables);
            }
        }
    }
}
