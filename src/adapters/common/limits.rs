//! Limits on what one input may hold (`Limits`, the largest record) and the message an empty
//! input gets: shared by the reader and the formats that read whole archives or documents.

/// The input error of an empty input (`check` turns it into a note when other inputs are linted).
pub const EMPTY_FILE: &str = "the file is empty: nothing to lint";

/// The input error of such a file when nothing else was linted.
pub const NOT_A_TRACE: &str = "not a trace: no record of any format tracelint reads, and nothing else was linted; pass `--input-format FORMAT` if it is one";

/// Limits on what one input may hold.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest single record (a JSON Lines line, or a whole JSON document), in bytes.
    pub max_record: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_record: 256 << 20,
        }
    }
}
