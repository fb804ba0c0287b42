//! `tracelint_rs._native`: the compiled half of the `tracelint_rs` Python module. The Python
//! package (`python/tracelint_rs/`) wraps it: it turns Python objects, paths and file-like
//! objects into bytes or paths for the [`Linter`](linter::Linter) here, and adds the pytest
//! plugin. Every lint runs with the GIL released.

use pyo3::exceptions::PyException;
use pyo3::prelude::*;

mod linter;
mod report;

pyo3::create_exception!(
    tracelint_rs,
    TracelintError,
    PyException,
    "A linter could not be set up or an input could not be read at all."
);
pyo3::create_exception!(
    tracelint_rs,
    ToolsError,
    TracelintError,
    "A tools source (a tools file, mcp-stdio:, mcp-http:, builtin:) could not be loaded."
);
pyo3::create_exception!(
    tracelint_rs,
    ConfigError,
    TracelintError,
    "A configuration (tracelint.toml) is malformed or names what does not exist."
);
pyo3::create_exception!(
    tracelint_rs,
    ExpectationsError,
    TracelintError,
    "An expectations file is malformed."
);

pyo3::create_exception!(
    tracelint_rs,
    PhoenixError,
    TracelintError,
    "A Phoenix server (a phoenix: source) could not be read or written to, or the source is malformed."
);

/// The Python exception for a library error, with the library's message.
pub(crate) fn to_py_err(e: tracelint::Error) -> PyErr {
    let message = e.to_string();
    match e {
        tracelint::Error::Tools { .. } => ToolsError::new_err(message),
        tracelint::Error::Config { .. } => ConfigError::new_err(message),
        tracelint::Error::Expectations { .. } => ExpectationsError::new_err(message),
        tracelint::Error::Phoenix(_) => PhoenixError::new_err(message),
        _ => TracelintError::new_err(message),
    }
}

/// Run the `tracelint` command line with `argv` (the first item is the program's name) and
/// return its exit code. The GIL is released while it runs.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<String>) -> u8 {
    let args = argv.into_iter().map(std::ffi::OsString::from).collect();
    py.detach(|| tracelint::__main_with(args))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("TracelintError", py.get_type::<TracelintError>())?;
    m.add("ToolsError", py.get_type::<ToolsError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("ExpectationsError", py.get_type::<ExpectationsError>())?;
    m.add("PhoenixError", py.get_type::<PhoenixError>())?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(linter::input_formats, m)?)?;
    m.add_class::<linter::Linter>()?;
    m.add_class::<linter::TraceStream>()?;
    m.add_class::<report::Report>()?;
    m.add_class::<report::Finding>()?;
    m.add_class::<report::Evidence>()?;
    m.add_class::<report::Suppression>()?;
    m.add_class::<report::InputIssue>()?;
    m.add_class::<report::TraceResult>()?;
    Ok(())
}
