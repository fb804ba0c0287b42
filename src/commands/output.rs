//! Where reports go, for every command that writes one (`check`, `report`, `tools lint`): the
//! side outputs (`--json`, `--sarif`, `--html`, `--text`), the GitHub job summary, stdout, and
//! the flags that shape them (`--color`, `--sarif-max-results`).

use std::io::Write;
use std::path::Path;

use anyhow::Context;

use crate::cli::ColorArg;
use crate::reporters::{self, OutputFormat, RenderOptions, TextOptions};

/// The side outputs asked for (`--json`, `--sarif`, `--html`, `--text`).
pub(crate) struct Side<'a> {
    pub(crate) json: Option<&'a Path>,
    pub(crate) sarif: Option<&'a Path>,
    pub(crate) html: Option<&'a Path>,
    pub(crate) text: Option<&'a Path>,
}

impl Side<'_> {
    /// Every report written (this `output` on stdout and these side outputs) reads the findings
    /// one at a time (`reporters::reads_listed`), so a run may keep them out of memory.
    pub(crate) fn reads_listed(&self, output: OutputFormat) -> bool {
        reporters::reads_listed(output) && self.sarif.is_none() && self.html.is_none()
    }
}

/// Warn about what the SARIF log or annotations leave out, write the side outputs (first, so a
/// CI upload step finds them whatever the exit code), the job summary for GitHub output, then
/// `output` to stdout.
#[allow(clippy::print_stderr)]
pub(crate) fn write_reports(
    report: &reporters::Report,
    listed: &dyn reporters::Listed,
    opts: &RenderOptions,
    output: OutputFormat,
    side: &Side<'_>,
) -> anyhow::Result<()> {
    let mut formats = vec![output];
    if side.sarif.is_some() {
        formats.push(OutputFormat::Sarif);
    }
    for n in opts.notices(report, &formats) {
        eprintln!("warning: {n}");
    }
    let files = [
        (side.json, OutputFormat::Json),
        (side.sarif, OutputFormat::Sarif),
        (side.html, OutputFormat::Html),
    ];
    for (path, format) in files {
        if let Some(path) = path {
            write_file(path, |out| {
                reporters::render_listed(format, report, listed, opts, out)
            })?;
        }
    }
    if let Some(path) = side.text {
        let plain = RenderOptions {
            text: TextOptions {
                color: false,
                ..opts.text
            },
            base: opts.base.clone(),
            sarif_max_results: opts.sarif_max_results,
        };
        write_file(path, |out| {
            reporters::render_listed(OutputFormat::Text, report, listed, &plain, out)
        })?;
    }
    if output == OutputFormat::Github {
        append_step_summary(report, opts)?;
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(super::PipeSafe::new(stdout.lock()));
    reporters::render_listed(output, report, listed, opts, &mut out)?;
    out.flush()?;
    Ok(())
}

/// `--color`: whether stdout gets ANSI colours.
pub(crate) fn color_on(arg: ColorArg) -> bool {
    match arg {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never
        }
    }
}

/// The SARIF cap from `--sarif-max-results` (0: none; default: what code scanning keeps).
pub(crate) fn sarif_cap(flag: Option<usize>) -> Option<usize> {
    match flag {
        None => Some(reporters::sarif::GITHUB_RESULTS_KEPT),
        Some(0) => None,
        Some(n) => Some(n),
    }
}

/// Append the job summary to `$GITHUB_STEP_SUMMARY`, when it is set.
pub(crate) fn append_step_summary(
    report: &reporters::Report,
    opts: &RenderOptions,
) -> anyhow::Result<()> {
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    let path = Path::new(&path);
    let context = || {
        format!(
            "cannot append to `{}` (GITHUB_STEP_SUMMARY)",
            path.display()
        )
    };
    let file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .with_context(context)?;
    let mut out = std::io::BufWriter::new(file);
    reporters::github::step_summary(report, &opts.base, &mut out)
        .and_then(|()| out.flush())
        .with_context(context)
}

/// Write one side output, whole, to `path`.
pub(crate) fn write_file(
    path: &Path,
    render: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    let file = std::fs::File::create(path)
        .with_context(|| format!("cannot write `{}`", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    render(&mut out)
        .and_then(|()| out.flush())
        .with_context(|| format!("cannot write `{}`", path.display()))
}
