//! From a file or bytes to a format's records: the `InputFormat` enum and each format's content
//! sniff (`format`), detection from the content, never the file name (`detect`), the reader that
//! tells a JSON document from JSON Lines and streams the lines (`read`), files and archives
//! opened whole (`file`), a JSON array read an element at a time (`array`) and what an empty input reads as (`empty`).

mod array;
pub mod detect;
pub mod empty;
pub mod file;
pub mod format;
pub mod read;
