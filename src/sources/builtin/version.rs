//! An agent version as the built-in catalogues write it (`Version`, parsed and shown) and what
//! a lookup matched (`Matched`: the version whose tools were used, and why).

/// A version number `major.minor.patch`.
pub type Version = (u32, u32, u32);

/// Parse `2.1.53` (a `-suffix` or missing parts are tolerated: `2.1` → 2.1.0).
pub fn parse_version(s: &str) -> Option<Version> {
    let core = s.trim().split(['-', '+', ' ']).next()?;
    let mut parts = core.split('.').map(|p| p.parse::<u32>());
    let major = parts.next()?.ok()?;
    let minor = parts.next().unwrap_or(Ok(0)).ok()?;
    let patch = parts.next().unwrap_or(Ok(0)).ok()?;
    Some((major, minor, patch))
}

/// A version as written.
pub fn show(v: Version) -> String {
    format!("{}.{}.{}", v.0, v.1, v.2)
}

/// How a session's version was matched to a capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matched {
    /// The capture used.
    pub version: String,
    /// A sentence for the report when the match is not exact.
    pub note: Option<String>,
    /// The session records its version and the capture is of that very version: a call with
    /// no result is judged against it as surely as the CLI would have.
    pub exact: bool,
    /// The session records a version newer than every capture this build ships.
    pub newer: bool,
}
