//! `tracelint demo`: the keyless validation suite (every rule catches its planted defect, clean
//! controls stay silent, legitimate-but-suspicious cases stay below a verdict), then the
//! recovery scorecard of the built-in robust and buggy agents. PASS/FAIL per case, exit 0 when
//! every case behaves; `--html FILE` writes the same as one self-contained page.

use std::io::Write;

use anstyle::{AnsiColor, Style};
use anyhow::Context;

use crate::cli::DemoArgs;
use crate::demo::{self, Outcome};
use crate::exit::ExitStatus;
use crate::reporters::html::{Cell, Page, ReportView, Table, render_page};
use crate::scorecard::agent::Policy;
use crate::scorecard::faults::Fault;
use crate::scorecard::{self, Options, RecoveryKind, Scorecard};

fn paint(on: bool, style: Style, s: &str) -> String {
    if on {
        format!("{}{s}{}", style.render(), style.render_reset())
    } else {
        s.to_owned()
    }
}

fn cases_table(outcomes: &[Outcome]) -> Table {
    Table {
        caption: "Validation suite: one planted defect per rule, clean controls, legitimate-but-suspicious cases".into(),
        headers: ["result", "kind", "case", "expected", "got", "what happens"].map(String::from).to_vec(),
        rows: outcomes
            .iter()
            .map(|o| {
                vec![
                    if o.pass() { Cell::styled("PASS", "pass") } else { Cell::styled("FAIL", "fail") },
                    Cell::text(o.case.kind.name()),
                    Cell::text(&o.case.name),
                    Cell::text(&format!("{} (exit {})", demo::show(&o.case.expect), o.case.exit)),
                    Cell::text(&format!("{} (exit {})", demo::show(&o.got), o.exit)),
                    Cell::text(&o.case.description),
                ]
            })
            .collect(),
    }
}

fn scorecard_table(card: &Scorecard) -> Table {
    Table {
        caption: format!(
            "Recovery scorecard, {} agent: {} runs per fault, seed {}, baseline {}/{}",
            card.agent, card.runs, card.seed, card.baseline.passed, card.baseline.runs
        ),
        headers: [
            "fault",
            "recovered",
            "rate",
            "95% CI (Wilson)",
            "flagged by tracelint",
            "hard_defect runs",
            "what the fault does, and what tracelint sees",
        ]
        .map(String::from)
        .to_vec(),
        rows: card
            .faults
            .iter()
            .map(|r| {
                vec![
                    Cell::text(r.fault),
                    Cell::text(&format!("{}/{}", r.recovered, r.total)),
                    Cell::text(&format!("{:.2}", r.rate)),
                    Cell::text(&format!("[{:.2}, {:.2}]", r.ci_low, r.ci_high)),
                    Cell::text(&format!("{}/{}", r.flagged, r.total)),
                    Cell::text(&format!("{}/{}", r.hard_defect, r.total)),
                    Cell::text(Fault::parse(r.fault).map_or("", Fault::explain)),
                ]
            })
            .collect(),
    }
}

/// `scorecard --demo --html FILE`: one scorecard as a self-contained page (the same table as in
/// the demo's page; no findings report).
pub(crate) fn write_scorecard_page(card: &Scorecard, path: &std::path::Path) -> anyhow::Result<()> {
    let page = Page {
        title: "tracelint recovery scorecard".into(),
        lead: Some(format!(
            "The {} agent on the built-in task (cancel order A-1001 if it has not shipped), each fault injected into one tool result. \
             Every run was linted; the findings of single runs are not listed here.",
            card.agent
        )),
        tables: vec![scorecard_table(card)],
        report: ReportView::new(&crate::reporters::Report::default()),
    };
    let mut file = std::io::BufWriter::new(
        std::fs::File::create(path).with_context(|| format!("cannot write `{}`", path.display()))?,
    );
    render_page(&page, &mut file)
        .and_then(|()| file.flush())
        .with_context(|| format!("cannot write `{}`", path.display()))
}

/// `tracelint demo`.
pub fn run(args: &DemoArgs) -> anyhow::Result<ExitStatus> {
    let (outcomes, report) = demo::run()
        .map_err(anyhow::Error::msg)
        .context("the embedded validation suite")?;
    let card = |policy| {
        scorecard::run(&Options {
            policy,
            faults: Fault::ALL.to_vec(),
            runs: args.runs,
            seed: args.seed,
            inject_at: 1,
            kind: RecoveryKind::Correctness,
        })
    };
    let robust = card(Policy::Robust);
    let buggy = card(Policy::Buggy);
    let passed = outcomes.iter().filter(|o| o.pass()).count();
    let all_pass = passed == outcomes.len();

    if let Some(path) = &args.html {
        let page = Page {
            title: "tracelint demo".into(),
            lead: Some(format!(
                "{passed}/{} validation cases behave as expected. Below them, the recovery scorecard of a robust and a buggy \
                 agent under eight injected faults, and every finding of the suite with its evidence.",
                outcomes.len()
            )),
            tables: vec![
                cases_table(&outcomes),
                scorecard_table(&robust),
                scorecard_table(&buggy),
            ],
            report: ReportView {
                // The demo's own exit code, not the suite's findings' (planted on purpose).
                exit_code: if all_pass {
                    ExitStatus::Clean
                } else {
                    ExitStatus::GateTripped
                }
                .code(),
                ..ReportView::new(&report)
            },
        };
        let mut file = std::io::BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot write `{}`", path.display()))?,
        );
        render_page(&page, &mut file)
            .and_then(|()| file.flush())
            .with_context(|| format!("cannot write `{}`", path.display()))?;
    }

    let color = anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never;
    let mut out = std::io::BufWriter::new(super::PipeSafe::new(std::io::stdout().lock()));
    writeln!(
        out,
        "tracelint demo — the validation suite (no model, no key, no network)\n"
    )?;
    // The widest verdict sets the column (`R2a hard_event, R2b candidate, R9 hard_defect`).
    let shown: Vec<String> = outcomes.iter().map(|o| demo::show(&o.got)).collect();
    let width = shown.iter().map(|s| s.chars().count()).max().unwrap_or(0);
    for (o, got) in outcomes.iter().zip(&shown) {
        let verdict = if o.pass() {
            paint(color, AnsiColor::Green.on_default().bold(), "PASS")
        } else {
            paint(color, AnsiColor::Red.on_default().bold(), "FAIL")
        };
        writeln!(
            out,
            "{verdict}  {:<10} {:<25} {got:<width$}  {}",
            o.case.kind.name(),
            o.case.name,
            o.case.description
        )?;
        if !o.pass() {
            writeln!(
                out,
                "      expected {} (exit {}), got exit {}",
                demo::show(&o.case.expect),
                o.case.exit,
                o.exit
            )?;
        }
    }
    writeln!(
        out,
        "\n{passed}/{} cases behave as expected: every rule catches its planted defect, clean controls stay silent, \
         legitimate-but-suspicious cases stay below a verdict\n",
        outcomes.len()
    )?;
    scorecard::render_text(&robust, &mut out)?;
    writeln!(out)?;
    scorecard::render_text(&buggy, &mut out)?;
    if let Some(path) = &args.html {
        writeln!(out, "\nwrote {}", path.display())?;
    }
    out.flush()?;
    Ok(if all_pass {
        ExitStatus::Clean
    } else {
        ExitStatus::GateTripped
    })
}
