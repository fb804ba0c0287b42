//! The library's error type.

/// What stopped the library from setting up a linter or reading an input at all.
///
/// Problems *inside* an input (a malformed line, a record too large) are not errors: they are
/// [`InputIssue`](crate::InputIssue)s in the [`Report`](crate::Report) (or in
/// [`Loaded::issues`](crate::Loaded::issues)), next to the traces that could be read.
///
/// ```
/// let err = tracelint::Linter::builder()
///     .tools("no/such/tools.json")
///     .build()
///     .unwrap_err();
/// assert!(matches!(err, tracelint::Error::Tools { .. }));
/// assert!(err.to_string().contains("no/such/tools.json"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be opened or read.
    #[error("cannot read `{path}`: {source}")]
    Io {
        /// The path as given.
        path: String,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A tools source (a tools file, `mcp-stdio:`, `mcp-http:`, `builtin:`) could not be
    /// loaded into a registry.
    #[error("{name}: {message}")]
    Tools {
        /// The source, with `:line:col` when the problem has a place.
        name: String,
        /// What is wrong with it.
        message: String,
    },
    /// A configuration (`tracelint.toml`) is malformed or names what does not exist.
    #[error("{location}: {message}")]
    Config {
        /// `path:line:col`, or the path alone.
        location: String,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// An expectations file (rule E1) is malformed.
    #[error("{location}: {message}")]
    Expectations {
        /// `path:line:col`, or the path alone.
        location: String,
        /// What is wrong.
        message: String,
    },
    /// A rule was named that trace linting does not have (a tool-definition rule `T…`, or a
    /// rule the configuration names for tools that no source declares).
    #[error("{0}")]
    Rules(String),
    /// A Phoenix server (a `phoenix:` source) could not be read or written to, or the source
    /// or its time window is malformed.
    #[error("{0}")]
    Phoenix(String),
    /// Anything else that stopped the run (worker threads that could not start, …).
    #[error("{0}")]
    Run(String),
}

impl From<crate::sources::SourceError> for Error {
    fn from(e: crate::sources::SourceError) -> Self {
        use crate::sources::SourceError as S;
        match e {
            S::Unreadable { path, reason } => Error::Tools {
                name: path,
                message: format!("cannot read the tools file: {reason}"),
            },
            S::Invalid {
                source_name,
                message,
            }
            | S::Server {
                source_name,
                message,
            } => Error::Tools {
                name: source_name,
                message,
            },
            S::Unsupported(message) => Error::Tools {
                name: "tools source".into(),
                message,
            },
        }
    }
}

impl From<crate::config::ConfigError> for Error {
    fn from(e: crate::config::ConfigError) -> Self {
        Error::Config {
            location: e.location,
            message: e.message,
        }
    }
}

impl Error {
    /// An internal error from setting up a run, in the variant that says what it is about.
    pub(crate) fn from_setup(e: anyhow::Error) -> Self {
        let e = match e.downcast::<crate::sources::SourceError>() {
            Ok(e) => return e.into(),
            Err(e) => e,
        };
        let e = match e.downcast::<crate::config::ConfigError>() {
            Ok(e) => return e.into(),
            Err(e) => e,
        };
        match e.downcast::<crate::expect::ExpectError>() {
            Ok(e) => Error::Expectations {
                location: e.location,
                message: e.message,
            },
            Err(e) => Error::Run(format!("{e:#}")),
        }
    }
}
