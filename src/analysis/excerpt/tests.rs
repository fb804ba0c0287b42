//! Tests of `excerpt`, the one-line text of a step that evidence carries.
use super::*;
use crate::model::{Message, ResultStatus, Role, StepKind, StepMeta, ToolResult};
use serde_json::json;

/// What an excerpt is, written the plain way: the whole text, whitespace runs folded, cut.
fn folded(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(EXCERPT_CHARS) {
        None => flat,
        Some((i, _)) => format!("{}…", &flat[..i]),
    }
}

fn step(kind: StepKind) -> Step {
    Step {
        index: 0,
        at: Default::default(),
        meta: StepMeta::default(),
        kind,
    }
}

#[test]
fn excerpts_fold_whitespace_and_cut_as_the_whole_text_would() {
    let mut next = crate::rules::testing::xorshift(0xA5A5_1234_5678_9ABC);
    // Pieces: words, ASCII and Unicode whitespace, multi-byte chars.
    let pieces = [
        "a", "bc", "é", "漢字", " ", "  ", "\n", "\t", "\u{3000}", "\u{a0}", "x",
    ];
    for _ in 0..3_000 {
        let n = (next() % 400) as usize;
        let text: String = (0..n)
            .map(|_| pieces[(next() % pieces.len() as u64) as usize])
            .collect();
        let msg = step(StepKind::Message(Message {
            role: Role::User,
            content: text.clone(),
        }));
        assert_eq!(excerpt(&msg), folded(&format!("user: {text}")), "{text:?}");
        let result = step(StepKind::ToolResult(ToolResult::new(
            None,
            serde_json::Value::String(text.clone()),
            ResultStatus::Error,
        )));
        assert_eq!(excerpt(&result), folded(&format!("[error] {text}")));
        let structured = json!({ "k": text, "n": [1, 2] });
        let result = step(StepKind::ToolResult(ToolResult::new(
            None,
            structured.clone(),
            ResultStatus::Ok,
        )));
        assert_eq!(excerpt(&result), folded(&format!("[ok] {structured}")));
        // A tool's name is untrusted too: empty, or whitespace only.
        let name: String = (0..next() % 3)
            .map(|_| pieces[(next() % pieces.len() as u64) as usize])
            .collect();
        let call = step(StepKind::ToolCall(crate::model::ToolCall {
            call_id: None,
            name: name.clone(),
            args: crate::model::Args::Known(structured.clone()),
            raw_args: None,
            origin: crate::model::CallOrigin::Model,
        }));
        assert_eq!(excerpt(&call), folded(&format!("{name} {structured}")));
    }
}
