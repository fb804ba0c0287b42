//! The fuzz targets' shared driver lives in the library (`tracelint::fuzzing`, behind the
//! internal `__internal` feature), where it can reach what a report holds.

pub use tracelint::fuzzing::{parse, parse_lint_render};
