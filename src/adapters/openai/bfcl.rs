//! What BFCL benchmark files are, in the words of the input error each kind gets: prompts,
//! tool documentation or expected calls, never an agent run.

/// What BFCL benchmark records are, for the input error.
pub(super) const BFCL: &str = "a BFCL benchmark file (`question` + `function`: prompts and tool definitions, not an agent run, so there are no tool calls to lint)";

pub(super) const BFCL_MULTI_TURN: &str = "a BFCL multi-turn benchmark file (`question` + `involved_classes`: prompts, not an agent run, so there are no tool calls to lint)";

pub(super) const BFCL_ANSWERS: &str =
    "a BFCL ground-truth file (`ground_truth`: expected calls, not an agent run)";

pub(super) const BFCL_DOCS: &str = "BFCL function documentation (tool definitions whose schemas use `\"type\": \"dict\"`, which is not JSON Schema)";
