//! The fuzz targets' shared driver (`fuzz/`, under the internal `__internal` feature): read bytes
//! as a trace input (forced format or detected) through both readers; for the `lint_render`
//! target, also lint every trace read and render the report in every output format, so one input
//! exercises an adapter, the rules and the reporters. It owns no parsing of its own.

use std::io::Cursor;

use crate::adapters::{self, InputFormat, Limits, Parsed, ReadOptions};
use crate::finding::Tier;
use crate::lint::{Linter, ReportBuilder};
use crate::reporters::paths::PathBase;
use crate::reporters::{self, OutputFormat, RenderOptions, TextOptions};
use crate::rules::{RuleSettings, Selection};

/// Limits small enough that the fuzzer reaches them.
const LIMITS: Limits = Limits {
    max_record: 1 << 16,
};

/// Parse `data` through both entry points (`parse_reader` and the seekable `parse_file`) and
/// nothing else: the parser targets, whose executions are counted in millions. `format` `None`
/// runs detection.
pub fn parse(data: &[u8], format: Option<InputFormat>) -> (Parsed, Parsed) {
    let opts = ReadOptions {
        format,
        limits: LIMITS,
        skip_tools_files: false,
    };
    let mut parsed = Parsed::default();
    adapters::parse_reader(data, "fuzz.jsonl", &opts, &mut parsed);
    let mut seek = Parsed::default();
    adapters::parse_file(Cursor::new(data), "fuzz.jsonl", &opts, &mut seek);
    (parsed, seek)
}

/// Parse `data` as [`parse`] does, lint what was read and render it (the `lint_render` target:
/// what a parser reads, through every rule and reporter).
pub fn parse_lint_render(data: &[u8], format: Option<InputFormat>) {
    let (parsed, seek) = parse(data, format);
    lint_and_render(parsed, true);
    // The seekable reader's traces are linted too; rendering them again would only repeat the
    // reporters' work (a third of an execution) on what the reader path rendered already.
    lint_and_render(seek, false);
}

fn lint_and_render(parsed: Parsed, render: bool) {
    // One linter for the process, as in a real run: built-in registries (Claude Code's schemas,
    // for a Claude session) are compiled once, not on every execution.
    static LINTER: std::sync::OnceLock<Linter> = std::sync::OnceLock::new();
    let linter =
        LINTER.get_or_init(|| Linter::new(None, Selection::default(), RuleSettings::default()));
    let mut builder = ReportBuilder::new();
    let input = builder.input("fuzz.jsonl");
    for issue in parsed.issues {
        builder.issue(issue);
    }
    for trace in &parsed.traces {
        builder.format(input, &trace.source.format);
        builder.trace(input, linter.lint(trace));
    }
    let mut report = builder.finish(Tier::HardDefect, &[]);
    if !render {
        return;
    }
    // Only the rules this input made findings or suppressions of: every rule's help text is
    // constant (not from the input) and, escaped and serialised into SARIF under coverage
    // instrumentation, it was 94% of each execution (300 execs/s instead of thousands).
    let used = |id| {
        report.findings.iter().any(|f| f.rule == id)
            || report.suppressions.iter().any(|s| s.rule == id)
    };
    let kept: Vec<_> = report
        .rules
        .iter()
        .filter(|m| used(m.id))
        .cloned()
        .collect();
    report.rules = kept;
    let opts = RenderOptions {
        text: TextOptions {
            include_candidates: true,
            show_suppressions: true,
            quiet: false,
            first_failures: true,
            hide_notes: false,
            hide_findings: false,
            color: false,
        },
        base: PathBase::new(std::path::Path::new("/w"), std::path::Path::new("/w")),
        sarif_max_results: Some(50),
    };
    for (_, format) in OutputFormat::NAMES {
        let mut out = Vec::new();
        reporters::render(*format, &report, &opts, &mut out).expect("rendering to memory");
        if *format == OutputFormat::Text {
            // Untrusted text never reaches a terminal raw.
            let text = String::from_utf8(out).expect("text output is UTF-8");
            assert!(
                !text.chars().any(|c| c.is_control() && c != '\n'),
                "a control character reached the text output: {text:?}"
            );
        }
    }
}
