//! `tracelint report SHARD…`: one report from JSON Lines shards — what `check --output-format
//! json-lines` wrote on several machines or CI jobs — rendered in any output format, with the
//! exit code `check` would have decided over the union of their inputs. Glue only: shards are read
//! by `shards`, the report is assembled by `lint::ReportBuilder` (the same settling as `check`)
//! and rendered by the reporters.

mod recognise;
mod shards;

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context, bail};

use crate::adapters::common::json_pos::LineReader;
use crate::cli::{FailOn, ReportArgs};
use crate::exit::ExitStatus;
use crate::finding::{Finding, InputIssue, RuleMeta, Suppression, Tier};
use crate::lint::{EXCERPT_BUDGET, ReportBuilder};
use crate::reporters::paths::PathBase;
use crate::reporters::{self, Outline, OutputFormat, RenderOptions, Report, TextOptions};

use shards::{ByPath, Shards};

/// Longest line read from a shard (one record; a finding with its excerpts is a few KB).
const MAX_LINE: usize = 64 << 20;

/// `tracelint report`.
#[allow(clippy::print_stderr)]
pub fn run(args: &ReportArgs) -> anyhow::Result<ExitStatus> {
    let output = OutputFormat::parse(&args.output_format).with_context(|| {
        format!(
            "unknown output format `{}`: text, json, json-lines, sarif, html or github",
            args.output_format
        )
    })?;
    guard_outputs(args)?;
    let rules: Vec<&'static RuleMeta> = crate::rules::RULES.iter().map(|r| r.meta()).collect();
    let mut shards = Shards::default();
    for path in &args.shards {
        read_shard(&mut shards, path, &rules);
    }
    for v in &shards.versions {
        eprintln!(
            "warning: some records were written by tracelint {v}, this is {}: rule texts and checks may differ",
            env!("CARGO_PKG_VERSION")
        );
    }
    let report = assemble(shards, args.fail_on)?;
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let opts = RenderOptions {
        text: TextOptions {
            include_candidates: args.display.include_candidates,
            show_suppressions: args.display.show_suppressions,
            quiet: false,
            first_failures: true,
            hide_notes: args.display.quiet >= 1,
            hide_findings: args.display.quiet >= 2,
            color: super::output::color_on(args.display.color),
        },
        base: match &args.sarif_root {
            Some(root) => PathBase::new(&cwd, root),
            None => PathBase::discover(&cwd),
        },
        sarif_max_results: super::output::sarif_cap(args.sarif_max_results),
    };
    let side = super::output::Side {
        json: args.files.json.as_deref(),
        sarif: args.files.sarif.as_deref(),
        html: args.files.html.as_deref(),
        text: None,
    };
    super::output::write_reports(&report, &report.findings, &opts, output, &side)?;
    Ok(report.exit)
}

/// Refuse, before a shard is read, an output that is one of the shards (by device and inode:
/// any spelling, symlink or hard link; standard input too, when it is a file).
fn guard_outputs(args: &ReportArgs) -> anyhow::Result<()> {
    let mut read = crate::inputs::ReadFiles::new();
    for path in &args.shards {
        if path == "-" {
            read.add_inputs(&[crate::inputs::InputSpec {
                display: "-".into(),
                path: None,
                walked: false,
                resolved: None,
            }]);
        } else {
            read.add(std::path::Path::new(path), format!("the shard `{path}`"));
        }
    }
    let outputs: Vec<(&str, &std::path::Path)> = [
        ("--json", &args.files.json),
        ("--sarif", &args.files.sarif),
        ("--html", &args.files.html),
    ]
    .into_iter()
    .filter_map(|(flag, p)| Some((flag, p.as_deref()?)))
    .collect();
    read.guard(&outputs, "the report").map_err(anyhow::Error::msg)
}

/// The tier `--fail-on` names (`never` names none: the shards' tier stays, findings do not fail).
fn tier_of(f: FailOn) -> Option<Tier> {
    match f {
        FailOn::HardDefect => Some(Tier::HardDefect),
        FailOn::HardEvent => Some(Tier::HardEvent),
        FailOn::Candidate => Some(Tier::Candidate),
        FailOn::Never => None,
    }
}

/// Read one shard (a file or `-`); what cannot be read is an input error of the report. A file
/// that is plainly something else (a JSON report, a SARIF log, a trace…) is one input error
/// saying what it is and what to pass, not one per line.
fn read_shard(shards: &mut Shards, path: &str, rules: &[&'static RuleMeta]) {
    if path == "-" {
        let stdin = std::io::stdin();
        read_recognised(shards, stdin.lock(), "-", rules);
        return;
    }
    // Never waited on, never a device: a shard is a file (or `-`).
    match crate::inputs::open(std::path::Path::new(path), crate::inputs::Pipes::Refuse) {
        Ok(file) => read_recognised(shards, std::io::BufReader::new(file), path, rules),
        Err(e) => shards.issue(InputIssue::file(path, format!("cannot read: {e}"))),
    }
}

/// Read a shard's first bytes, say what the file is when it is not a shard, else read it all.
fn read_recognised(
    shards: &mut Shards,
    mut reader: impl std::io::BufRead,
    path: &str,
    rules: &[&'static RuleMeta],
) {
    let mut head = Vec::new();
    if let Err(e) = std::io::Read::read_to_end(
        &mut std::io::Read::take(&mut reader, recognise::HEAD as u64),
        &mut head,
    ) {
        shards.issue(InputIssue::file(path, format!("cannot read: {e}")));
        return;
    }
    let complete = head.len() < recognise::HEAD;
    if let Some(what) = recognise::not_a_shard(&head, complete) {
        shards.read += 1;
        shards.issue(InputIssue::file(path, what));
        return;
    }
    let all = std::io::Read::chain(std::io::Cursor::new(head), reader);
    shards.read(LineReader::new(all, path, MAX_LINE), path, rules);
}

/// The report of the union: inputs in the order read, every record attached to its input by
/// path, the tier that fails from the shards (or `fail_on`), then settled as `check` settles.
fn assemble(mut shards: Shards, gate: Option<FailOn>) -> anyhow::Result<Report> {
    let report_only = match gate {
        Some(FailOn::Never) => true,
        Some(_) => false,
        None => match (
            shards.report_only.iter().all(|r| *r),
            shards.report_only.iter().any(|r| *r),
        ) {
            (true, _) => !shards.report_only.is_empty(),
            (false, false) => false,
            (false, true) => bail!(
                "some shards were checked report-only (--exit-zero or --fail-on never) and others not: pass --fail-on"
            ),
        },
    };
    let fail_on = match gate.and_then(tier_of) {
        Some(t) => t,
        None => {
            let mut tiers: Vec<Tier> = shards.runs.iter().map(|(t, _)| *t).collect();
            tiers.sort();
            tiers.dedup();
            match tiers.as_slice() {
                [] => Tier::HardDefect,
                [t] => *t,
                _ => bail!(
                    "the shards were checked with different --fail-on tiers ({}): pass --fail-on",
                    tiers
                        .iter()
                        .map(|t| t.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }
        }
    };
    let mut builder = ReportBuilder::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    // (shard, input) of an input a shard read before: that shard's records of it are dropped.
    let mut twice: BTreeSet<(usize, String)> = BTreeSet::new();
    for (input, (shard, line), k) in std::mem::take(&mut shards.inputs) {
        if index.contains_key(&input.path) {
            twice.insert((k, input.path.clone()));
            shards.issue(InputIssue::at(
                &shard,
                line,
                1,
                format!(
                    "input `{}` is in another shard too: each input must be linted in one shard only (its findings are reported once)",
                    input.path
                ),
            ));
            continue;
        }
        let path = input.path.clone();
        let i = builder.restored_input(input);
        index.insert(path, i);
    }
    // Records of a file no `input` record names: the shard is incomplete; the input is reported
    // anyway (with what is known of it) so nothing found is dropped.
    let mut unnamed: BTreeMap<String, (String, u32)> = BTreeMap::new();
    let mut resolve = |file: &str, at: &(String, u32), builder: &mut ReportBuilder| {
        if let Some(i) = index.get(file) {
            return *i;
        }
        unnamed.entry(file.to_owned()).or_insert_with(|| at.clone());
        let i = builder.restored_input(reporters::InputSummary {
            path: file.to_owned(),
            ..Default::default()
        });
        index.insert(file.to_owned(), i);
        i
    };
    let (b, r) = (&mut builder, &mut resolve);
    let findings = attach(shards.findings, &twice, b, r, |f: &mut Finding, i| {
        f.input = i
    });
    let suppressions = attach(
        shards.suppressions,
        &twice,
        b,
        r,
        |s: &mut Suppression, i| {
            s.input = i;
        },
    );
    let outlines = attach(shards.outlines, &twice, b, r, |o: &mut Outline, i| {
        o.input = i
    });
    let mut issues = Shards {
        issues: std::mem::take(&mut shards.issues),
        issue_cap: std::mem::take(&mut shards.issue_cap),
        ..Shards::default()
    };
    for (file, (shard, line)) in unnamed {
        issues.issue(InputIssue::at(
            &shard,
            line,
            1,
            format!(
                "no `input` record names `{file}`: the shard was written by an older tracelint or is incomplete"
            ),
        ));
    }
    builder.restored(findings, suppressions, outlines, shards.coverage);
    for issue in issues.issues {
        builder.issue(issue);
    }
    for (path, n) in issues.issue_cap.omitted_by_path() {
        builder.issues_omitted(path, n);
    }
    let mut report = builder.finish_restored(
        fail_on,
        report_only,
        shards.budget.unwrap_or(EXCERPT_BUDGET),
    );
    report.unmatched_ignores = unmatched(&shards.runs);
    Ok(report)
}

/// Give each item its input index; drop those of an input their shard holds a second time.
fn attach<T>(
    items: Vec<ByPath<T>>,
    twice: &BTreeSet<(usize, String)>,
    builder: &mut ReportBuilder,
    resolve: &mut impl FnMut(&str, &(String, u32), &mut ReportBuilder) -> usize,
    set: fn(&mut T, usize),
) -> Vec<T> {
    items
        .into_iter()
        .filter(|b| !twice.contains(&(b.shard, b.file.clone())))
        .map(|mut b| {
            let i = resolve(&b.file, &b.at, builder);
            set(&mut b.item, i);
            b.item
        })
        .collect()
}

/// Ignores that matched nothing in the union: those every shard's run reports unmatched (an
/// ignore one shard matched did match), in the first shard's order.
fn unmatched(runs: &[(Tier, Vec<String>)]) -> Vec<String> {
    let Some((_, first)) = runs.first() else {
        return Vec::new();
    };
    first
        .iter()
        .filter(|u| runs.iter().all(|(_, r)| r.contains(u)))
        .cloned()
        .collect()
}
