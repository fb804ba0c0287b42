//! The library's public surface: [`Linter`] and its builder, [`load_traces`], the error type,
//! and the accessors over reports, findings and traces. Everything else in the crate is
//! `pub(crate)`: the binary is built from the same pipeline, and may change it freely.

mod access;
mod error;
mod linter;
mod load;
mod phoenix;

pub use error::Error;
pub use linter::{Linter, LinterBuilder, TraceResult};
pub use load::{Loaded, load_traces};
pub use phoenix::{PhoenixOptions, PhoenixRun, WrittenBack};
