//! The exit-code contract (seed 002): one `Ord` enum, so "highest wins" is `max`.

/// How a run ended. The numeric value is the process exit code.
///
/// ```
/// use tracelint::ExitStatus;
/// assert_eq!(ExitStatus::HardDefect.code(), 2);
/// assert!(ExitStatus::InputError > ExitStatus::HardDefect); // the highest wins
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub enum ExitStatus {
    /// 0: no finding at or above the `--fail-on` tier.
    #[default]
    Clean = 0,
    /// 1: only a non-default `--fail-on` gate tripped (candidates or events).
    GateTripped = 1,
    /// 2: a `hard_defect`.
    HardDefect = 2,
    /// 3: an input or usage error.
    InputError = 3,
}

impl ExitStatus {
    /// The process exit code.
    pub fn code(self) -> u8 {
        self as u8
    }
}

impl From<ExitStatus> for std::process::ExitCode {
    fn from(s: ExitStatus) -> Self {
        std::process::ExitCode::from(s.code())
    }
}

/// The exit-code table, for `--help` and the README.
pub const EXIT_CODES_HELP: &str = "\
Exit codes (highest wins):
  0  no finding at or above the --fail-on tier
  1  only a non-default --fail-on gate tripped (candidates or hard events)
  2  a hard_defect
  3  input or usage error (unreadable file, malformed input, bad tools source, unknown rule)";

#[cfg(test)]
mod tests {
    use super::ExitStatus::*;

    #[test]
    fn highest_wins() {
        assert_eq!(
            [Clean, HardDefect, GateTripped].into_iter().max(),
            Some(HardDefect)
        );
        assert_eq!(HardDefect.max(InputError), InputError);
        assert_eq!(InputError.code(), 3);
    }
}
