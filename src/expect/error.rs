//! A malformed expectations file (`ExpectError`): where, as `path:line:col`, and what.

/// A malformed expectations file: where and what.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{location}: {message}")]
pub struct ExpectError {
    /// `path:line:col`, or `path`.
    pub location: String,
    /// What is wrong and how to fix it.
    pub message: String,
}
