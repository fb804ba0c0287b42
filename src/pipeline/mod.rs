//! The run the library and the binary share: inputs → adapters → rules in parallel → findings
//! settled in input order → a `Report`. `settings` says what a run is set to do, `read` reads
//! one input through its adapter and lints each trace as it is emitted, `stream` is the writer
//! that puts the findings in order and bounds what the report lists.

mod read;
mod settings;
mod stream;

pub(crate) use read::{OtelHold, read_spec, shared_trace_ids};
pub(crate) use settings::{BaselineSettings, Settings, linter};
pub(crate) use stream::Run;
