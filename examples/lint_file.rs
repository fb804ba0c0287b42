//! Lint one trace file against a tools file and print each finding with its place.
//!
//!     cargo run --example lint_file -- fixtures/quickstart/transcript.json fixtures/quickstart/tools.json

#![allow(clippy::print_stdout, clippy::print_stderr)]

use tracelint::Linter;

fn main() -> Result<(), tracelint::Error> {
    let mut args = std::env::args().skip(1);
    let trace = args
        .next()
        .unwrap_or_else(|| "fixtures/quickstart/transcript.json".into());
    let tools = args
        .next()
        .unwrap_or_else(|| "fixtures/quickstart/tools.json".into());
    let linter = Linter::builder().tools(tools).build()?;
    let report = linter.lint_paths([&trace], |_| {})?;
    for f in report.findings() {
        let (line, column) = f.line_column();
        println!(
            "{}:{line}:{column}: {} {} {}",
            report.path_of_finding(f),
            f.tier(),
            f.rule(),
            f.message()
        );
    }
    for issue in report.issues() {
        println!("{issue}");
    }
    std::process::exit(report.exit().code().into());
}
