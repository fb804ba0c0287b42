//! `tracelint infer` arguments.

use std::path::PathBuf;

use clap::Args;

use super::{InputFormatArg, WalkArgs};

pub(super) const INFER_AFTER_HELP: &str = "\
Examples:
  tracelint infer transcript.jsonl -o tools.json --pretty
  tracelint infer 'transcripts/*.jsonl' -o tools.json --enum-max 5

Each tool's schema unions the argument keys of its calls; a key is required when every call has
it; integer and number merge to number; nested objects and array items are inferred too; a string
with at most --enum-max distinct values becomes an enum. Unless --no-validate, the inputs are then
linted against the result (R1, R7).";

/// `infer` arguments.
#[derive(Debug, Args, Clone)]
pub struct InferArgs {
    /// Traces to learn from: files, directories, globs, or `-` for stdin (any input format).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,

    /// Where to write the inferred tools file (`-`, the default, is stdout, as for `init`).
    #[arg(long, short = 'o', value_name = "FILE", default_value = "-")]
    pub output: PathBuf,

    /// Indent the JSON.
    #[arg(long)]
    pub pretty: bool,

    /// Do not lint the inputs against the inferred schemas.
    #[arg(long)]
    pub no_validate: bool,

    /// A string property with at most N distinct values gets an enum (0 turns enums off).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub enum_max: usize,

    /// Input format; `auto` decides from content.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormatArg>,

    #[command(flatten)]
    pub walk: WalkArgs,
}
