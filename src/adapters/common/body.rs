//! The body a format reader is handed (`Body`): a whole JSON document, or JSON Lines streamed
//! one line at a time with their numbers.

use crate::finding::InputIssue;

use super::json_pos::Line;

/// The body an adapter reads.
pub enum Body<'a> {
    /// A whole JSON document.
    Document(&'a str),
    /// JSON Lines, streamed.
    Lines(&'a mut dyn Iterator<Item = Result<Line, InputIssue>>),
}
