//! `Linter`: the Rust [`tracelint::Linter`] built from keyword options that mirror the
//! command line's flags, linting bytes and paths with the GIL released, and `TraceStream`, the
//! iterator over per-trace results of a run over paths.

use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use tracelint::{InputFormat, RuleId, Tier};

use crate::report::{Finding, Report, TraceResult};
use crate::{TracelintError, to_py_err};

/// How many per-trace results a stream holds before the linting thread waits for the reader.
const STREAM_AHEAD: usize = 64;

fn rules(names: &[String], flag: &str) -> PyResult<Vec<RuleId>> {
    names
        .iter()
        .flat_map(|n| n.split(','))
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|n| {
            RuleId::parse(n).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "{flag}: unknown rule `{n}` (`tracelint rules` lists them)"
                ))
            })
        })
        .collect()
}

fn format_named(name: &str) -> PyResult<InputFormat> {
    InputFormat::parse(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "input_format: unknown format `{name}`; one of: {}",
            input_formats().join(", ")
        ))
    })
}

/// The names `input_format` takes, in detection order.
#[pyfunction]
pub fn input_formats() -> Vec<&'static str> {
    InputFormat::ALL.iter().map(|f| f.name()).collect()
}

/// Lints traces; built once (every tool schema compiled), used for any number of inputs,
/// shared freely between threads.
#[pyclass(frozen, module = "tracelint_rs")]
pub struct Linter {
    inner: Arc<tracelint::Linter>,
}

#[pymethods]
impl Linter {
    #[new]
    #[pyo3(signature = (
        *, tools = Vec::new(), select = Vec::new(), ignore = Vec::new(), fail_on = None,
        closed_toolset = None, config = None, config_text = None, expect = Vec::new(),
        baseline = None, input_format = None, jobs = None, max_findings = None,
        max_record_size = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        tools: Vec<String>,
        select: Vec<String>,
        ignore: Vec<String>,
        fail_on: Option<String>,
        closed_toolset: Option<bool>,
        config: Option<String>,
        config_text: Option<String>,
        expect: Vec<String>,
        baseline: Option<String>,
        input_format: Option<String>,
        jobs: Option<usize>,
        max_findings: Option<usize>,
        max_record_size: Option<usize>,
    ) -> PyResult<Self> {
        let mut b = tracelint::Linter::builder();
        for t in tools {
            b = b.tools(t);
        }
        b = b
            .select(rules(&select, "select")?)
            .ignore(rules(&ignore, "ignore")?);
        match fail_on.as_deref().map(str::trim) {
            None => {}
            Some("never") => b = b.report_only(true),
            Some(name) => {
                let tier = Tier::parse(name).ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "fail_on: `{name}` is not a tier: hard_defect, hard_event, candidate or never"
                    ))
                })?;
                b = b.fail_on(tier);
            }
        }
        if let Some(yes) = closed_toolset {
            b = b.closed_toolset(yes);
        }
        match (config, config_text) {
            (Some(_), Some(_)) => {
                return Err(PyValueError::new_err(
                    "give config (a file) or config_text (TOML), not both",
                ));
            }
            (Some(path), None) => b = b.config_file(path),
            (None, Some(text)) => b = b.config_str(text),
            (None, None) => {}
        }
        for e in expect {
            b = b.expect(e);
        }
        if let Some(path) = baseline {
            b = b.baseline(path);
        }
        if let Some(name) = input_format {
            b = b.input_format(format_named(&name)?);
        }
        if let Some(n) = jobs {
            b = b.jobs(n);
        }
        if let Some(n) = max_findings {
            b = b.max_findings(n);
        }
        if let Some(n) = max_record_size {
            b = b.max_record_size(n);
        }
        // Loading tools may start an MCP server or open a URL: without the GIL.
        let inner = py.detach(|| b.build()).map_err(to_py_err)?;
        Ok(Linter {
            inner: Arc::new(inner),
        })
    }

    /// What loading the tools sources had to say.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.inner.notes().to_vec()
    }

    /// Lint everything in `data`, named `name` in the report, read as `input_format` (by
    /// default the linter's, else detected from content).
    #[pyo3(signature = (data, name, input_format = None))]
    fn lint_bytes(
        &self,
        py: Python<'_>,
        data: &[u8],
        name: &str,
        input_format: Option<&str>,
    ) -> PyResult<Report> {
        let format = input_format.map(format_named).transpose()?;
        let inner = &self.inner;
        Ok(Report::new(
            py.detach(|| inner.lint_bytes(data, name, format)),
        ))
    }

    /// Lint files, directories and globs, as `tracelint check PATH…` does.
    fn lint_paths(&self, py: Python<'_>, paths: Vec<String>) -> PyResult<Report> {
        let inner = &self.inner;
        py.detach(|| inner.lint_paths(&paths, |_| {}))
            .map(Report::new)
            .map_err(to_py_err)
    }

    /// Read a running Arize Phoenix server's spans (`phoenix:http://HOST:PORT[/projects/NAME]`),
    /// lint them, and with `write_back` record each finding as an annotation on its span.
    #[pyo3(signature = (
        source, *, since = None, until = None, write_back = false, include_candidates = false
    ))]
    fn lint_phoenix(
        &self,
        py: Python<'_>,
        source: &str,
        since: Option<String>,
        until: Option<String>,
        write_back: bool,
        include_candidates: bool,
    ) -> PyResult<Report> {
        let mut options = tracelint::PhoenixOptions::new()
            .write_back(write_back)
            .include_candidates(include_candidates);
        if let Some(when) = since {
            options = options.since(when);
        }
        if let Some(when) = until {
            options = options.until(when);
        }
        let inner = &self.inner;
        // Network and linting: without the GIL.
        let run = py
            .detach(|| inner.lint_phoenix(source, &options))
            .map_err(to_py_err)?;
        Ok(Report::with_written(run.report, run.written))
    }

    /// Lint files, directories and globs on a thread of their own, yielding each trace's
    /// result as soon as it is settled; the stream's `report` is the whole run's once the
    /// stream is exhausted.
    fn stream(&self, paths: Vec<String>) -> TraceStream {
        let (tx, rx) = sync_channel(STREAM_AHEAD);
        let linter = Arc::clone(&self.inner);
        std::thread::spawn(move || {
            let mut reading = true;
            let done = linter.lint_paths(&paths, |t| {
                if !reading {
                    return;
                }
                let result = TraceResult {
                    path: t.path.to_owned(),
                    run_id: t.run_id.to_owned(),
                    findings: t.findings.iter().map(|f| Finding::new(f, t.path)).collect(),
                };
                // A reader that went away stops the sending, not the run.
                reading = tx.send(Message::Trace(result)).is_ok();
            });
            let _ = tx.send(Message::Done(Box::new(done)));
        });
        TraceStream {
            rx: Mutex::new(Some(rx)),
            report: OnceLock::new(),
        }
    }
}

enum Message {
    Trace(TraceResult),
    Done(Box<Result<tracelint::Report, tracelint::Error>>),
}

/// An iterator over the traces of a run, each a `TraceResult` as soon as it is linted.
#[pyclass(frozen, module = "tracelint_rs")]
pub struct TraceStream {
    rx: Mutex<Option<Receiver<Message>>>,
    report: OnceLock<Py<Report>>,
}

#[pymethods]
impl TraceStream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<TraceResult>> {
        let taken = self
            .rx
            .lock()
            .map_err(|_| TracelintError::new_err("the stream failed earlier"))?
            .take();
        let Some(rx) = taken else { return Ok(None) };
        let (rx, message) = py.detach(move || {
            let m = rx.recv();
            (rx, m)
        });
        match message {
            Ok(Message::Trace(t)) => {
                if let Ok(mut slot) = self.rx.lock() {
                    *slot = Some(rx);
                }
                Ok(Some(t))
            }
            Ok(Message::Done(done)) => match *done {
                Ok(report) => {
                    let _ = self.report.set(Py::new(py, Report::new(report))?);
                    Ok(None)
                }
                Err(e) => Err(to_py_err(e)),
            },
            Err(_) => Err(TracelintError::new_err(
                "the linting thread stopped before the run ended",
            )),
        }
    }

    /// The whole run's report, once the stream is exhausted (None before).
    #[getter]
    fn report(&self, py: Python<'_>) -> Option<Py<Report>> {
        self.report.get().map(|r| r.clone_ref(py))
    }
}
