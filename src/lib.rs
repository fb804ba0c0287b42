//! tracelint: lint what a tool-calling AI agent actually did.
//!
//! The library behind the `tracelint` binary. Read traces from any supported format into the
//! canonical model, load a tool registry, and lint:
//!
//! ```
//! use tracelint::{ToolRegistry, lint_trace, load_traces};
//!
//! let traces = load_traces("fixtures/quickstart/transcript.json").unwrap();
//! let registry = ToolRegistry::from_file("fixtures/quickstart/tools.json").unwrap();
//! let report = lint_trace(&traces[0], &registry);
//! // The quick-start trace plants one hard defect of R1 and of R6: exit code 2.
//! assert_eq!(report.exit.code(), 2);
//! assert!(report.findings.iter().any(|f| f.rule.as_str() == "R1"));
//! ```
//!
//! Everything outside the re-exports below is public for the binary and the tests, with no
//! stability promise.

pub mod adapters;
pub(crate) mod analysis;
pub mod baseline;
pub mod cli;
pub mod commands;
pub mod config;
pub mod demo;
pub mod doctor;
pub mod exit;
pub mod expect;
pub mod finding;
pub mod infer;
pub mod init;
pub mod inputs;
pub mod lint;
pub mod model;
pub mod proxy;
pub mod record;
pub mod reporters;
pub mod rules;
pub mod scorecard;
pub mod sources;
pub mod suggest;

use std::path::Path;

pub use finding::{Finding, InputIssue, RuleId, Tier};
pub use model::{ToolRegistry, Trace};
pub use reporters::Report;

/// The input could not be read completely.
#[derive(Debug, thiserror::Error)]
#[error("{}", .issues.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
pub struct LoadError {
    /// Every problem found, with file:line:col.
    pub issues: Vec<InputIssue>,
}

/// Read every trace in a file (any supported format, detected from content).
pub fn load_traces(path: impl AsRef<Path>) -> Result<Vec<Trace>, LoadError> {
    let path = path.as_ref();
    let display = path.display().to_string();
    let file = inputs::open_file(path).map_err(|e| LoadError {
        issues: vec![InputIssue::file(&display, format!("cannot read: {e}"))],
    })?;
    let mut parsed = adapters::Parsed::default();
    adapters::parse_reader(
        std::io::BufReader::new(file),
        &display,
        &adapters::ReadOptions::default(),
        &mut parsed,
    );
    if parsed.issues.is_empty() {
        Ok(parsed.traces)
    } else {
        Err(LoadError {
            issues: parsed.issues,
        })
    }
}

/// Lint one trace against a registry with every rule and default settings; the report's `exit`
/// says what `tracelint check` would exit with.
pub fn lint_trace(trace: &Trace, registry: &ToolRegistry) -> Report {
    let linter = lint::Linter::new(
        Some(registry.clone()),
        rules::Selection::default(),
        rules::RuleSettings::default(),
    );
    let mut builder = lint::ReportBuilder::new();
    let input = builder.input(&trace.source.path);
    builder.format(input, &trace.source.format);
    builder.trace(input, linter.lint(trace));
    builder.finish(Tier::HardDefect, &[])
}

impl ToolRegistry {
    /// Load a tools file of any shape SPEC §3 lists.
    pub fn from_file(path: impl AsRef<Path>) -> Result<ToolRegistry, sources::SourceError> {
        let path = path.as_ref();
        sources::load_file(path, &path.display().to_string())
    }
}
