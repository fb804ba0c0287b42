//! The deprecated HTTP+SSE transport (MCP 2024-11-05): GET the event stream, read its
//! `endpoint` event (resolved against the stream's URL, refused on another host), POST each
//! message there, and read the replies from the stream, which stays open for the whole exchange.
//! It owns this transport only; requests, limits and errors are the parent module's.

use std::collections::VecDeque;
use std::time::Instant;

use serde_json::Value;
use ureq::BodyReader;
use ureq::http::Uri;

use super::client::{
    ACCEPT, Client, content_type, display_url, failure_of, io_failure, origin, resolve,
};
use crate::sources::mcp::{self, Failure, Transport};
use crate::sources::sse::SseReader;

/// The deprecated HTTP+SSE transport (2024-11-05): replies arrive on a GET stream.
pub(super) struct LegacySse<'c> {
    client: &'c Client,
    pub(super) endpoint: Uri,
    stream: SseReader<BodyReader<'static>>,
    queue: VecDeque<Value>,
}

impl<'c> LegacySse<'c> {
    pub(super) fn connect(
        client: &'c Client,
        url: &Uri,
        deadline: Instant,
    ) -> Result<LegacySse<'c>, Failure> {
        let h = [("Accept", "text/event-stream".to_owned())];
        let (url, resp) = client.call("GET", url, &h, None, deadline)?;
        if !resp.status().is_success() {
            return Err(client.status_failure(resp));
        }
        if !content_type(&resp).starts_with("text/event-stream") {
            return Err(Failure::Protocol(format!(
                "GET answered `{}`, not an event stream",
                mcp::one_line(&content_type(&resp), 60)
            )));
        }
        // The stream stays open for the whole exchange; the GET's global timeout is our deadline.
        let body = resp.into_body().into_with_config().limit(u64::MAX).reader();
        let mut stream = SseReader::new(body, client.max_reply);
        loop {
            let ev = stream
                .next_event()
                .map_err(io_failure)?
                .ok_or(Failure::Closed)?;
            if ev.name != "endpoint" {
                continue;
            }
            let endpoint = resolve(&url, &ev.data).ok_or_else(|| {
                Failure::Protocol(format!(
                    "the `endpoint` event `{}` is not a URL",
                    mcp::one_line(&ev.data, 100)
                ))
            })?;
            if origin(&endpoint) != origin(&url) {
                return Err(Failure::Protocol(format!(
                    "the `endpoint` event points to another host (`{}`); tracelint sends nothing there",
                    display_url(&endpoint.to_string())
                )));
            }
            return Ok(LegacySse {
                client,
                endpoint,
                stream,
                queue: VecDeque::new(),
            });
        }
    }
}

impl Transport for LegacySse<'_> {
    fn send(&mut self, msg: &Value, deadline: Instant) -> Result<(), Failure> {
        let body = serde_json::to_vec(msg).map_err(|e| Failure::Io(e.to_string()))?;
        let h = [
            ("Content-Type", "application/json".to_owned()),
            ("Accept", ACCEPT.to_owned()),
        ];
        let (_, resp) = self
            .client
            .call("POST", &self.endpoint, &h, Some(&body), deadline)?;
        if !resp.status().is_success() {
            return Err(self.client.status_failure(resp));
        }
        // Normally 202 "Accepted"; a server that answers in the body is heard too.
        if content_type(&resp).starts_with("application/json") {
            let bytes = resp
                .into_body()
                .into_with_config()
                .limit(self.client.max_reply as u64)
                .read_to_vec()
                .map_err(failure_of)?;
            if let Ok(v) = serde_json::from_slice::<Value>(&bytes) {
                self.queue.push_back(v);
            }
        }
        Ok(())
    }

    fn recv(&mut self, _deadline: Instant) -> Result<Value, Failure> {
        if let Some(v) = self.queue.pop_front() {
            return Ok(v);
        }
        loop {
            let ev = self
                .stream
                .next_event()
                .map_err(io_failure)?
                .ok_or(Failure::Closed)?;
            if ev.name == "message"
                && let Ok(v) = serde_json::from_str::<Value>(&ev.data)
            {
                return Ok(v);
            }
        }
    }
}
