//! `check`'s `phoenix:` inputs: the flags (`--since`, `--until`, `--write-back`) checked, each
//! server's spans downloaded before linting starts (a server that fails ends the run with exit
//! 3 before anything is linted), the downloads handed to the run as inputs shown by their
//! `phoenix:` spelling, and after the report the write-back. The talking is `crate::phoenix`'s.

use anyhow::bail;

use crate::cli::CheckArgs;
use crate::inputs::InputSpec;
use crate::phoenix::annotate;
use crate::phoenix::download::{self, Download};
use crate::phoenix::{self as px, Options, Target};
use crate::reporters::Report;

/// The `phoenix:` inputs of a run, read.
pub(crate) struct PhoenixInputs {
    read: Vec<(Target, Download)>,
    opts: Options,
    write_back: bool,
}

/// Split the INPUTs into the plain ones and the `phoenix:` ones, and download the latter.
#[allow(clippy::print_stderr)]
pub(crate) fn prepare(
    args: &CheckArgs,
    inputs: &[String],
    settings: &super::check::Settings,
) -> anyhow::Result<(Vec<String>, PhoenixInputs)> {
    let (phoenix, plain): (Vec<&String>, Vec<&String>) =
        inputs.iter().partition(|i| Target::is_phoenix(i));
    let plain: Vec<String> = plain.into_iter().cloned().collect();
    let flags = [
        ("--since", args.since.is_some()),
        ("--until", args.until.is_some()),
        ("--write-back", args.write_back),
    ];
    if phoenix.is_empty() {
        if let Some((flag, _)) = flags.iter().find(|(_, on)| *on) {
            bail!(
                "`{flag}` applies to `phoenix:` inputs only (`tracelint check phoenix:http://HOST:PORT {flag} …`)"
            );
        }
        return Ok((
            plain,
            PhoenixInputs {
                read: Vec::new(),
                opts: Options::default(),
                write_back: false,
            },
        ));
    }
    if let Some(f) = settings.input_format
        && f != crate::adapters::InputFormat::Otel
    {
        bail!(
            "`--input-format {}` with a `phoenix:` input: Phoenix serves OpenTelemetry spans (`--input-format otel`)",
            f.name()
        );
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128);
    let when = |flag: &str, v: &Option<String>| -> anyhow::Result<Option<i128>> {
        v.as_deref()
            .map(|t| px::parse_instant(t, now).map_err(|e| anyhow::anyhow!("{flag} {e}")))
            .transpose()
    };
    let mut opts = Options {
        since: when("--since", &args.since)?,
        until: when("--until", &args.until)?,
        api_key: std::env::var(px::API_KEY_ENV).ok().filter(|k| !k.trim().is_empty()),
        ..Options::default()
    };
    if let (Some(s), Some(u)) = (opts.since, opts.until)
        && s >= u
    {
        bail!("--since must be before --until");
    }
    opts.bounds.max_span_bytes = settings.limits.max_record;
    let mut read = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for arg in phoenix {
        let target = Target::parse(arg).map_err(anyhow::Error::msg)?;
        if !seen.insert((target.base.clone(), target.project.clone())) {
            continue;
        }
        let d = download::download(&target, &opts)?;
        if !settings.text.hide_notes {
            eprintln!(
                "note: {}: read {} span{} of project `{}` ({} page{})",
                crate::reporters::escape::terminal(&target.shown),
                d.span_ids.len(),
                if d.span_ids.len() == 1 { "" } else { "s" },
                crate::reporters::escape::terminal(&target.project),
                d.pages,
                if d.pages == 1 { "" } else { "s" },
            );
        }
        read.push((target, d));
    }
    Ok((
        plain,
        PhoenixInputs {
            read,
            opts,
            write_back: args.write_back,
        },
    ))
}

impl PhoenixInputs {
    /// The downloads as inputs, shown as the user wrote them.
    pub(crate) fn specs(&self) -> impl Iterator<Item = InputSpec> + '_ {
        self.read.iter().map(|(t, d)| InputSpec {
            display: t.shown.clone(),
            path: Some(d.file.path().to_path_buf()),
            walked: false,
            resolved: std::fs::canonicalize(d.file.path()).ok(),
        })
    }

    /// The report's findings are to be written back to a server (so the run must keep them
    /// in the report).
    pub(crate) fn writes_back(&self) -> bool {
        self.write_back && !self.read.is_empty()
    }

    /// Write the report's findings back to each server, when asked; a note per server on
    /// stderr (unless `quiet`).
    #[allow(clippy::print_stderr)]
    pub(crate) fn write_back(
        &self,
        report: &Report,
        include_candidates: bool,
        quiet: bool,
    ) -> anyhow::Result<()> {
        if !self.write_back {
            return Ok(());
        }
        for (target, d) in &self.read {
            let Some(input) = report.inputs.iter().position(|i| i.path == target.shown) else {
                continue;
            };
            let w = annotate::write_back(target, &self.opts, report, input, d, include_candidates)?;
            if !quiet {
                let shown = crate::reporters::escape::terminal(&target.shown);
                eprintln!(
                    "note: {shown}: wrote {} `{}` annotation{} on {} span{} (created or updated){}",
                    w.annotations,
                    px::ANNOTATION_NAME,
                    if w.annotations == 1 { "" } else { "s" },
                    w.spans,
                    if w.spans == 1 { "" } else { "s" },
                    match w.unplaced {
                        0 => String::new(),
                        n => format!("; {n} finding{} cite no span with an id", if n == 1 { "" } else { "s" }),
                    }
                );
            }
        }
        Ok(())
    }
}
