//! Reading traces without linting them.

use std::path::Path;

use super::Error;
use crate::adapters;
use crate::finding::InputIssue;
use crate::model::Trace;

/// What [`load_traces`] read from a file: every trace that could be read, and every problem
/// met on the way (a malformed line loses that line, not the file).
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Loaded {
    /// The traces, in the order the file holds them.
    pub traces: Vec<Trace>,
    /// Problems with the input, each at `path:line:col` (line 0: the file as a whole).
    pub issues: Vec<InputIssue>,
}

/// Read every trace in a file, in any supported format (detected from content, never from the
/// name), with the problems met on the way.
///
/// ```
/// let loaded = tracelint::load_traces("fixtures/quickstart/transcript.json").unwrap();
/// assert_eq!(loaded.traces.len(), 1);
/// assert!(loaded.issues.is_empty());
/// assert!(loaded.traces[0].path().ends_with("transcript.json"));
/// ```
///
/// # Errors
/// [`Error::Io`] when the file cannot be opened (a directory, a missing path). A file that
/// opens but holds nothing readable is `Ok`, with its issues.
pub fn load_traces(path: impl AsRef<Path>) -> Result<Loaded, Error> {
    let path = path.as_ref();
    let display = path.display().to_string();
    let parsed = adapters::read_path(path).map_err(|source| Error::Io {
        path: display.clone(),
        source,
    })?;
    Ok(Loaded {
        traces: parsed.traces,
        issues: parsed.issues,
    })
}
