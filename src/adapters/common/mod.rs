//! The pieces every format reader shares, each found by what it does: positions in the input
//! (`json_pos` for lines, columns and JSON Lines reading, `cursor` for a value inside one
//! record), the text and blocks of a message (`content`), arguments as recorded (`args`, `raw`),
//! one agent turn built step by step (`agent`), chat-shaped messages and tool lists (`chat`),
//! LLM units assembled into steps (`assemble`), records keyed by span or observation
//! (`record`), message histories replayed into steps (`history`) and timestamps (`clock`).
//! Where a reader sends what it reads is `emit`, what it is handed `body`. They know the canonical model and nothing of any one format.

pub mod agent;
pub mod args;
pub mod assemble;
pub mod body;
pub mod chat;
pub mod clock;
pub mod content;
pub mod cursor;
pub mod emit;
pub mod history;
pub mod json_pos;
pub mod limits;
pub mod raw;
pub mod record;
