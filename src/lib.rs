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
#![deny(missing_docs)]

/// `pub(crate) mod` each, or `#[doc(hidden)] pub mod` under the internal `__internal` feature,
/// which only this crate's own tests, benchmarks and fuzz targets turn on (a dev-dependency on
/// itself in `Cargo.toml`, and `fuzz/Cargo.toml`): not part of the API.
macro_rules! internal_modules {
    ($($name:ident),*) => {$(
        #[cfg(not(feature = "__internal"))]
        pub(crate) mod $name;
        #[cfg(feature = "__internal")]
        #[doc(hidden)]
        pub mod $name;
    )*};
}

mod api;
// Internal modules: `pub(crate)`, public to this crate's own tests under `__internal` alone.
internal_modules!(
    adapters, analysis, baseline, chain, cli, commands, config, demo, digest, doctor, exit, expect,
    finding, hook, infer, init, inputs, lint, model, phoenix, pipeline, proxy, record, reporters,
    rules, scorecard, sources, suggest
);

/// The fuzz targets' driver (`fuzz/`): not part of the API.
#[cfg(feature = "__internal")]
#[doc(hidden)]
pub mod fuzzing;

pub use adapters::InputFormat;
pub use api::{
    Error, Linter, LinterBuilder, Loaded, PhoenixOptions, PhoenixRun, TraceResult, WrittenBack,
    load_traces,
};
pub use exit::ExitStatus;
pub use finding::{Evidence, Finding, InputIssue, RuleId, Suppression, Tier};
pub use model::{ToolRegistry, Trace};
pub use reporters::{OutputFormat, Report, Summary};

/// Lint one trace against a registry with every rule and default settings; the report's
/// [`exit`](Report::exit) says what `tracelint check` would exit with. For rule selection, a
/// configuration or a failing tier, build a [`Linter`].
///
/// ```
/// let loaded = tracelint::load_traces("fixtures/quickstart/transcript.json")?;
/// let registry = tracelint::ToolRegistry::from_file("fixtures/quickstart/tools.json")?;
/// let report = tracelint::lint_trace(&loaded.traces[0], &registry);
/// assert_eq!(report.exit().code(), 2);
/// # Ok::<(), tracelint::Error>(())
/// ```
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

/// The `tracelint` command line run with `args` (the first is the program's name), returning
/// its exit code, for the Python module's `tracelint` command: not part of the library.
#[doc(hidden)]
pub fn __main_with(args: Vec<std::ffi::OsString>) -> u8 {
    commands::main_with(args).code()
}
