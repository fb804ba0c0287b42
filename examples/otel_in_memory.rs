//! Lint OpenTelemetry spans an application holds in memory (here read from a file, but any
//! bytes do: an exporter's buffer, a message from a queue) and print the report as JSON.
//!
//!     cargo run --example otel_in_memory -- fixtures/otel/two-traces.otlp.json

#![allow(clippy::print_stdout, clippy::print_stderr)]

use tracelint::{InputFormat, Linter, OutputFormat};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "fixtures/otel/two-traces.otlp.json".into());
    let spans: Vec<u8> = std::fs::read(&path)?;
    let linter = Linter::builder().build()?;
    let report = linter.lint_bytes(&spans, "spans", Some(InputFormat::Otel));
    eprintln!(
        "{} traces, {} tool calls, {} findings",
        report.summary().traces,
        report.summary().tool_calls,
        report.findings().len()
    );
    report.render(OutputFormat::Json, &mut std::io::stdout().lock())?;
    Ok(())
}
