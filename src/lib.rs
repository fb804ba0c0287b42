//! tracelint: lint what a tool-calling AI agent actually did.
//!
//! The library behind the `tracelint` binary. It reads agent transcripts and traces (Claude
//! Code sessions, OpenAI messages, Langfuse exports, OpenTelemetry spans, Codex and Gemini CLI
//! sessions, eval-harness logs, a native format) into one model, checks every tool call against
//! the tools' JSON Schemas, and finds structural bugs: ignored tool errors, values reused from a
//! failed call, hallucinated arguments, loops, malformed arguments, unknown tools. Each finding
//! carries the exact line and column of its evidence. No model judges anything.
//!
//! Build a [`Linter`] once, then lint paths, bytes or single traces:
//!
//! ```
//! use tracelint::{Linter, RuleId, Tier};
//!
//! let linter = Linter::builder()
//!     .tools("fixtures/quickstart/tools.json")
//!     .fail_on(Tier::HardDefect)
//!     .build()?;
//! let report = linter.lint_paths(["fixtures/quickstart/"], |trace| {
//!     // Told as soon as each trace is linted, in a deterministic order.
//!     println!("{}: {} findings", trace.path, trace.findings.len());
//! })?;
//! // The quick-start trace plants one hard defect of R1 and of R6: exit code 2.
//! assert_eq!(report.exit().code(), 2);
//! assert!(report.findings().iter().any(|f| f.rule() == RuleId::R1));
//! # Ok::<(), tracelint::Error>(())
//! ```
//!
//! A file that is half broken still gives what it holds, with its problems beside it:
//!
//! ```
//! let loaded = tracelint::load_traces("fixtures/quickstart/transcript.json")?;
//! let registry = tracelint::ToolRegistry::from_file("fixtures/quickstart/tools.json")?;
//! let report = tracelint::lint_trace(&loaded.traces[0], &registry);
//! assert_eq!(report.summary().hard_defect, 2);
//! # Ok::<(), tracelint::Error>(())
//! ```
//!
//! Reports render to every format `tracelint check` writes (text, JSON, JSON Lines, SARIF
//! 2.1.0, HTML, GitHub annotations) with [`Report::render`]. Rules, tiers and formats are those
//! of the binary: `tracelint rules` lists them and `tracelint explain RULE` explains one.
#![cfg_attr(not(feature = "__fuzz"), deny(missing_docs))]

/// `pub(crate) mod` each, or `#[doc(hidden)] pub mod` under the `__fuzz` feature (`fuzz/`).
macro_rules! internal_for_fuzzing {
    ($($name:ident),*) => {$(
        #[cfg(not(feature = "__fuzz"))]
        pub(crate) mod $name;
        #[cfg(feature = "__fuzz")]
        #[doc(hidden)]
        pub mod $name;
    )*};
}

mod api;
// The modules the fuzz targets drive are public under the internal `__fuzz` feature alone.
internal_for_fuzzing!(adapters, lint, reporters, rules, sources);
pub(crate) mod baseline;
pub(crate) mod cli;
pub(crate) mod commands;
pub(crate) mod config;
pub(crate) mod demo;
pub(crate) mod doctor;
pub(crate) mod exit;
pub(crate) mod expect;
pub(crate) mod finding;
pub(crate) mod infer;
pub(crate) mod init;
pub(crate) mod inputs;
pub(crate) mod model;
pub(crate) mod pipeline;
pub(crate) mod proxy;
pub(crate) mod record;
pub(crate) mod scorecard;
pub(crate) mod suggest;


pub use api::{Error, Linter, LinterBuilder, Loaded, TraceResult, load_traces};
pub use adapters::InputFormat;
pub use exit::ExitStatus;
pub use finding::{Evidence, Finding, InputIssue, RuleId, Suppression, Tier};
pub use model::{ToolRegistry, Trace};
pub use reporters::{OutputFormat, Report, Summary};

/// Lint one trace against a registry with every rule and default settings; the report's
/// [`exit`](Report::exit) says what `tracelint check` would exit with. For rule selection, a
/// configuration or a failing tier, build a [`Linter`].
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

/// The `tracelint` command line, for the binary (`src/main.rs`): not part of the library.
#[doc(hidden)]
pub fn __main() -> std::process::ExitCode {
    commands::main()
}
