//! An MCP server's replies on arbitrary bytes: framed as server-sent events (the HTTP transports'
//! reader, with a small event bound) or as newline-delimited JSON, fed to the client conversation
//! (handshake in both eras, paging, server requests), and the listed tools through the same
//! parser as a saved `tools/list` reply.
#![no_main]

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tracelint::sources::file::parse_tools_value;
use tracelint::sources::mcp::{ClientOptions, Failure, Transport, list_tools};
use tracelint::sources::sse::SseReader;

/// Replies in order; a reply that is not JSON is a protocol failure, the end is `Closed`.
struct Scripted(VecDeque<String>);

impl Transport for Scripted {
    fn send(&mut self, _msg: &Value, _deadline: Instant) -> Result<(), Failure> {
        Ok(())
    }
    fn recv(&mut self, _deadline: Instant) -> Result<Value, Failure> {
        let next = self.0.pop_front().ok_or(Failure::Closed)?;
        serde_json::from_str(&next).map_err(|e| Failure::Protocol(e.to_string()))
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let replies: VecDeque<String> = if mode & 1 == 1 {
        let mut sse = SseReader::new(rest, 4096);
        let mut events = VecDeque::new();
        while let Ok(Some(ev)) = sse.next_event() {
            events.push_back(ev.data);
        }
        events
    } else {
        String::from_utf8_lossy(rest)
            .lines()
            .map(str::to_owned)
            .collect()
    };
    let options = ClientOptions {
        skip_discover: mode & 2 == 2,
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    if let Ok(listing) = list_tools(&mut Scripted(replies), deadline, options) {
        let _ = parse_tools_value(&serde_json::json!({ "tools": listing.tools }), "mcp");
    }
});
