//! A CI gate over a directory of traces: chosen rules, failing on hard events, a line per trace
//! as soon as it is linted, and the exit code `tracelint check` would give.
//!
//!     cargo run --example gate_dir -- fixtures/quickstart fixtures/quickstart/tools.json

#![allow(clippy::print_stdout, clippy::print_stderr)]

use tracelint::{Linter, RuleId, Tier};

fn main() -> Result<(), tracelint::Error> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().unwrap_or_else(|| "fixtures/quickstart".into());
    let mut builder = Linter::builder()
        .select([RuleId::R1, RuleId::R2a, RuleId::R2b, RuleId::R6, RuleId::R7])
        .fail_on(Tier::HardEvent);
    if let Some(tools) = args.next() {
        builder = builder.tools(tools);
    }
    let linter = builder.build()?;
    let report = linter.lint_paths([&dir], |trace| {
        println!(
            "{} {}: {} findings",
            trace.path,
            trace.run_id,
            trace.findings.len()
        );
    })?;
    let s = report.summary();
    println!(
        "{} traces: {} hard defects, {} hard events, {} input errors",
        s.traces, s.hard_defect, s.hard_event, s.input_errors
    );
    std::process::exit(report.exit().code().into());
}
