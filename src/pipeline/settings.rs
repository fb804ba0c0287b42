//! What a run is set to do, and the linter and tool registry those settings make.

use anyhow::{Context, bail};

use crate::adapters::{InputFormat, Limits};
use crate::config::Config;
use crate::finding::Tier;
use crate::lint::Linter;
use crate::model::ToolRegistry;
use crate::reporters::{OutputFormat, TextOptions};
use crate::rules::{RuleSettings, Selection};
use crate::sources::{self, LoadOptions, SourceSpec};

/// Everything a run needs: resolved from flags and config by the binary (flags win), or from a
/// `crate::Linter` builder by the library.
#[derive(Debug)]
pub(crate) struct Settings {
    /// Inputs as given.
    pub inputs: Vec<String>,
    /// Tools sources.
    pub tools: Vec<SourceSpec>,
    /// `None` = auto.
    pub input_format: Option<InputFormat>,
    /// Stdout format.
    pub output: OutputFormat,
    /// Rules to run.
    pub selection: Selection,
    /// Lowest failing tier.
    pub fail_on: Tier,
    /// Text options.
    pub text: TextOptions,
    /// Unknown tools are hard defects.
    pub closed_toolset: bool,
    /// Parallelism.
    pub jobs: Option<usize>,
    /// Record limits.
    pub limits: Limits,
    /// The config in force.
    pub config: Config,
    /// Notices for stderr (e.g. the legacy `--format` spelling).
    pub notices: Vec<String>,
    /// How live MCP sources are loaded (`--mcp-timeout`, `--header`).
    pub mcp: LoadOptions,
    /// `--exit-zero` / `--fail-on never`: report only; findings never fail the run.
    pub report_only: bool,
    /// The baseline in force (`--baseline`, or the config's `baseline`).
    pub baseline: Option<BaselineSettings>,
    /// `--expect FILE`s (rule E1), read with the config's `[[expect]]` tables by `linter`.
    pub expect: Vec<std::path::PathBuf>,
    /// How directories are walked (`--exclude`, the config's `exclude`, `--no-ignore`).
    pub walk: crate::inputs::Walk,
}

/// The baseline a run uses.
#[derive(Debug, Clone)]
pub(crate) struct BaselineSettings {
    /// The file, relative to the working directory.
    pub path: std::path::PathBuf,
    /// `--update-baseline`.
    pub update: bool,
    /// The coverage ratchet is on (not `--no-ratchet`, not `ratchet = false`).
    pub ratchet: bool,
}


/// Load the tools sources and apply config metadata overrides; the sources' notes go to
/// `notes`. The agents listed are those whose `builtin:AGENT` (unpinned) asks to follow each
/// session. A source that fails is its `sources::SourceError`, unexplained (the binary says how
/// to fix a swapped `--tools`).
fn registry(
    settings: &Settings,
    notes: &mut Vec<String>,
) -> anyhow::Result<(Option<ToolRegistry>, Vec<sources::builtin::Agent>)> {
    let mut follow_builtin = Vec::new();
    let mut specs = Vec::new();
    for spec in &settings.tools {
        match sources::resolve(spec)? {
            sources::Resolved::Source(s) => specs.push(s),
            sources::Resolved::Follow(agent) => follow_builtin.push(agent),
        }
    }
    if specs.is_empty() && !follow_builtin.is_empty() {
        return Ok((Some(ToolRegistry::new()), follow_builtin));
    }
    if specs.is_empty() {
        if !settings.config.metadata.is_empty() {
            bail!(
                "the config declares `[metadata.*]` overrides but no tools source: add `tools = \"tools.json\"` or pass `--tools`"
            );
        }
        return Ok((None, follow_builtin));
    }
    let loaded = sources::load_all_with(&specs, &settings.mcp)?;
    notes.extend(loaded.notes);
    let mut registry = loaded.registry;
    overlay_metadata(&mut registry, settings)?;
    Ok((Some(registry), follow_builtin))
}

/// The config's `[metadata.TOOL]` overrides, over the tools they name.
fn overlay_metadata(registry: &mut ToolRegistry, settings: &Settings) -> anyhow::Result<()> {
    for (tool, meta) in &settings.config.metadata {
        let spec = registry.get_mut(tool).with_context(|| {
            format!("the config overrides metadata of `{tool}`, which no tools source declares")
        })?;
        spec.metadata.overlay(meta);
    }
    Ok(())
}


/// The linter for the run, with the tools sources' notes; `loaded` is a registry the caller
/// loaded already, used instead of the settings' tools sources.
pub(crate) fn linter(
    settings: &Settings,
    loaded: Option<ToolRegistry>,
) -> anyhow::Result<(Linter, Vec<String>)> {
    let mut source_notes = Vec::new();
    let (given, follow_builtin) = match loaded {
        Some(mut registry) => {
            overlay_metadata(&mut registry, settings)?;
            (Some(registry), Vec::new())
        }
        None => registry(settings, &mut source_notes)?,
    };
    let mut linter = Linter::new(given, settings.selection, {
        let expectations = expectations(settings)?;
        let n = expectations.as_ref().map_or(0, |e| e.expectations.len());
        RuleSettings {
            closed_toolset: settings.closed_toolset,
            expectations,
            expectations_used: std::sync::Arc::new(
                (0..n)
                    .map(|_| std::sync::atomic::AtomicBool::new(false))
                    .collect(),
            ),
            flows: std::sync::Arc::new(crate::rules::FlowConfig {
                private: settings.config.flows.private.clone(),
                untrusted: settings.config.flows.untrusted.clone(),
                sinks: settings.config.flows.sinks.clone(),
                private_paths: settings.config.flows.private_paths.clone(),
            }),
        }
    });
    linter.follow = follow_builtin;
    Ok((linter, source_notes))
}

/// The expectations E1 checks: the config's `[[expect]]` tables, then each `--expect FILE`;
/// `None` when there are none. A malformed file is an error (exit 3) at its line.
fn expectations(
    settings: &Settings,
) -> anyhow::Result<Option<std::sync::Arc<crate::expect::ExpectFile>>> {
    let mut all = settings.config.expect.clone();
    for path in &settings.expect {
        let file = crate::expect::ExpectFile::from_path(path)?;
        match &mut all {
            Some(a) => a.extend(file),
            None => all = Some(file),
        }
    }
    Ok(all.map(std::sync::Arc::new))
}

