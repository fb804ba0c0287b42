//! `Report` and what it lists (`Finding`, `Evidence`, `Suppression`, `InputIssue`), and the
//! per-trace `TraceResult` a stream yields. Findings are copied out of the Rust report into
//! plain Python objects; the renderings come from the Rust report itself, so they are the
//! command line's bytes.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use tracelint::OutputFormat;

/// One step a finding points at: where it is in the input and what it shows.
#[pyclass(frozen, module = "tracelint_rs")]
#[derive(Clone, Debug)]
pub struct Evidence {
    /// The step's index in its trace.
    #[pyo3(get)]
    step: usize,
    /// The 1-based line where the step begins in the input.
    #[pyo3(get)]
    line: u32,
    /// The 1-based column where the step begins.
    #[pyo3(get)]
    column: u32,
    /// The JSON Pointer to the value inside its record.
    #[pyo3(get)]
    pointer: String,
    /// What this step shows ("the call", "failed result", …).
    #[pyo3(get)]
    note: String,
    /// A short excerpt of the step (untrusted text from the trace).
    #[pyo3(get)]
    excerpt: String,
}

#[pymethods]
impl Evidence {
    fn __repr__(&self) -> String {
        format!(
            "Evidence(step={}, line={}, column={}, note={:?})",
            self.step, self.line, self.column, self.note
        )
    }
}

/// One finding: a rule, its tier, a message and where it is.
#[pyclass(frozen, module = "tracelint_rs")]
#[derive(Clone, Debug)]
pub struct Finding {
    /// The rule's id (`R1`, `R2a`, …).
    #[pyo3(get)]
    rule: String,
    /// `hard_defect`, `hard_event` or `candidate`.
    #[pyo3(get)]
    tier: String,
    /// What is wrong, in one sentence.
    #[pyo3(get)]
    message: String,
    /// The input it came from, as the report names it.
    #[pyo3(get)]
    path: String,
    /// The 1-based line of its primary evidence.
    #[pyo3(get)]
    line: u32,
    /// The 1-based column of its primary evidence.
    #[pyo3(get)]
    column: u32,
    /// The index of the step it is at, in its trace (None when it has no evidence).
    #[pyo3(get)]
    step: Option<usize>,
    /// The run id of its trace.
    #[pyo3(get)]
    run_id: String,
    /// The tool involved, if one.
    #[pyo3(get)]
    tool: Option<String>,
    /// The argument involved, if one.
    #[pyo3(get)]
    field: Option<String>,
    /// How to fix it, when the rule knows.
    #[pyo3(get)]
    help: Option<String>,
    /// Which check failed, for rules with several.
    #[pyo3(get)]
    signal: Option<&'static str>,
    /// Itemised details (R1's schema errors).
    #[pyo3(get)]
    details: Vec<String>,
    /// The steps it points at; the first is where it is.
    #[pyo3(get)]
    evidence: Vec<Evidence>,
    /// The reason of the configured `[[ignore]]` that matched it, if one did.
    #[pyo3(get)]
    ignored: Option<String>,
}

impl Finding {
    pub(crate) fn new(f: &tracelint::Finding, path: &str) -> Self {
        let (line, column) = f.line_column();
        Finding {
            rule: f.rule().to_string(),
            tier: f.tier().as_str().to_owned(),
            message: f.message().to_owned(),
            path: path.to_owned(),
            line,
            column,
            step: f.evidence().first().map(tracelint::Evidence::step),
            run_id: f.run_id().to_owned(),
            tool: f.tool().map(str::to_owned),
            field: f.field().map(str::to_owned),
            help: f.help().map(str::to_owned),
            signal: f.signal(),
            details: f.details().to_vec(),
            evidence: f
                .evidence()
                .iter()
                .map(|e| {
                    let (line, column) = e.line_column();
                    Evidence {
                        step: e.step(),
                        line,
                        column,
                        pointer: e.pointer().to_owned(),
                        note: e.note().to_owned(),
                        excerpt: e.excerpt().to_owned(),
                    }
                })
                .collect(),
            ignored: f.ignored_because().map(str::to_owned),
        }
    }
}

#[pymethods]
impl Finding {
    fn __repr__(&self) -> String {
        format!(
            "Finding(rule={:?}, tier={:?}, path={:?}, line={}, column={}, message={:?})",
            self.rule, self.tier, self.path, self.line, self.column, self.message
        )
    }

    /// `path:line:col: RULE tier: message`, as the text report's first line of it.
    fn __str__(&self) -> String {
        format!(
            "{}:{}:{}: {} {}: {}",
            self.path, self.line, self.column, self.rule, self.tier, self.message
        )
    }
}

/// Why a rule could not decide a trace or a call: disclosed, never a silent pass.
#[pyclass(frozen, module = "tracelint_rs")]
#[derive(Clone, Debug)]
pub struct Suppression {
    /// The rule that could not decide.
    #[pyo3(get)]
    rule: String,
    /// The run id of the trace.
    #[pyo3(get)]
    run_id: String,
    /// The step it concerns, when it is about one call.
    #[pyo3(get)]
    step: Option<usize>,
    /// The tool involved, if one.
    #[pyo3(get)]
    tool: Option<String>,
    /// Why the rule could not decide.
    #[pyo3(get)]
    reason: String,
}

#[pymethods]
impl Suppression {
    fn __repr__(&self) -> String {
        format!(
            "Suppression(rule={:?}, run_id={:?}, reason={:?})",
            self.rule, self.run_id, self.reason
        )
    }
}

/// A problem with an input itself (a malformed line, a file that holds no trace).
#[pyclass(frozen, module = "tracelint_rs")]
#[derive(Clone, Debug)]
pub struct InputIssue {
    /// The input.
    #[pyo3(get)]
    path: String,
    /// 1-based line, 0 when the problem is the whole input.
    #[pyo3(get)]
    line: u32,
    /// 1-based column, 0 when unknown.
    #[pyo3(get)]
    column: u32,
    /// What is wrong.
    #[pyo3(get)]
    message: String,
}

#[pymethods]
impl InputIssue {
    fn __repr__(&self) -> String {
        format!(
            "InputIssue(path={:?}, line={}, column={}, message={:?})",
            self.path, self.line, self.column, self.message
        )
    }
}

/// The result of a lint: findings, suppressions, input issues, counts, the exit code
/// `tracelint check` would give, and every rendering the command line writes.
#[pyclass(frozen, module = "tracelint_rs")]
pub struct Report {
    inner: tracelint::Report,
    written: Option<tracelint::WrittenBack>,
}

impl Report {
    pub(crate) fn new(inner: tracelint::Report) -> Self {
        Report {
            inner,
            written: None,
        }
    }

    /// A report whose findings were written back to Phoenix, with what was written.
    pub(crate) fn with_written(
        inner: tracelint::Report,
        written: Option<tracelint::WrittenBack>,
    ) -> Self {
        Report { inner, written }
    }

    fn render(&self, py: Python<'_>, format: OutputFormat) -> PyResult<String> {
        let inner = &self.inner;
        let bytes = py.detach(|| {
            let mut out = Vec::new();
            inner.render(format, &mut out).map(|()| out)
        })?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

#[pymethods]
impl Report {
    /// What `tracelint check` would exit with: 0 clean, 1 only a non-default `fail_on` gate
    /// tripped, 2 a hard defect, 3 an input error (the highest wins).
    #[getter]
    fn exit_code(&self) -> u8 {
        self.inner.exit().code()
    }

    /// What `lint_phoenix(..., write_back=True)` wrote: `annotations` (created or updated),
    /// the `spans` they are on, and findings `unplaced` (citing no span with an id); None for
    /// any other report.
    #[getter]
    fn written_back<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(w) = self.written else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("annotations", w.annotations)?;
        d.set_item("spans", w.spans)?;
        d.set_item("unplaced", w.unplaced)?;
        Ok(Some(d))
    }

    /// Every finding listed, sorted by input, place, then rule.
    #[getter]
    fn findings(&self) -> Vec<Finding> {
        self.inner
            .findings()
            .iter()
            .map(|f| Finding::new(f, self.inner.path_of_finding(f)))
            .collect()
    }

    /// Why rules could not decide some traces or calls.
    #[getter]
    fn suppressions(&self) -> Vec<Suppression> {
        self.inner
            .suppressions()
            .iter()
            .map(|s| Suppression {
                rule: s.rule().to_string(),
                run_id: s.run_id().to_owned(),
                step: s.step(),
                tool: s.tool().map(str::to_owned),
                reason: s.reason().to_owned(),
            })
            .collect()
    }

    /// Problems with the inputs themselves.
    #[getter]
    fn issues(&self) -> Vec<InputIssue> {
        self.inner
            .issues()
            .iter()
            .map(|i| InputIssue {
                path: i.path.clone(),
                line: i.line,
                column: i.column,
                message: i.message.clone(),
            })
            .collect()
    }

    /// The counts, as the JSON report's `summary` holds them.
    #[getter]
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.inner.summary();
        let d = PyDict::new(py);
        for (k, v) in [
            ("inputs", s.inputs),
            ("traces", s.traces),
            ("tool_calls", s.tool_calls),
            ("hard_defect", s.hard_defect),
            ("hard_event", s.hard_event),
            ("candidate", s.candidate),
            ("ignored", s.ignored),
            ("baselined", s.baselined),
            ("suppressions", s.suppressions),
            ("input_errors", s.input_errors),
        ] {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// The JSON report, as `tracelint check --output-format json` prints it.
    fn to_json(&self, py: Python<'_>) -> PyResult<String> {
        self.render(py, OutputFormat::Json)
    }

    /// SARIF 2.1.0, as `--output-format sarif` prints it.
    fn to_sarif(&self, py: Python<'_>) -> PyResult<String> {
        self.render(py, OutputFormat::Sarif)
    }

    /// The self-contained HTML page, as `--output-format html` prints it.
    fn to_html(&self, py: Python<'_>) -> PyResult<String> {
        self.render(py, OutputFormat::Html)
    }

    /// The text report, as `--output-format text` prints it without colour.
    fn to_text(&self, py: Python<'_>) -> PyResult<String> {
        self.render(py, OutputFormat::Text)
    }

    /// JSON Lines, one finding, suppression or input error a line (`--output-format json-lines`).
    fn to_jsonl(&self, py: Python<'_>) -> PyResult<String> {
        self.render(py, OutputFormat::JsonLines)
    }

    /// GitHub Actions workflow commands (`--output-format github`).
    fn to_github(&self, py: Python<'_>) -> PyResult<String> {
        self.render(py, OutputFormat::Github)
    }

    fn __repr__(&self) -> String {
        let s = self.inner.summary();
        format!(
            "Report(exit_code={}, traces={}, hard_defect={}, hard_event={}, candidate={}, input_errors={})",
            self.inner.exit().code(),
            s.traces,
            s.hard_defect,
            s.hard_event,
            s.candidate,
            s.input_errors
        )
    }
}

/// One trace a stream finished: the input it came from, its run id, and its findings.
#[pyclass(frozen, module = "tracelint_rs")]
#[derive(Clone, Debug)]
pub struct TraceResult {
    /// The input it was read from.
    #[pyo3(get)]
    pub(crate) path: String,
    /// The trace's run id.
    #[pyo3(get)]
    pub(crate) run_id: String,
    /// Its findings, in reading order.
    #[pyo3(get)]
    pub(crate) findings: Vec<Finding>,
}

#[pymethods]
impl TraceResult {
    fn __repr__(&self) -> String {
        format!(
            "TraceResult(path={:?}, run_id={:?}, findings={})",
            self.path,
            self.run_id,
            self.findings.len()
        )
    }
}
