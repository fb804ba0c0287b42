//! A server-sent events reader for MCP over HTTP (MCP.md §6.2, §6.3): LF, CRLF and CR line ends,
//! `:` comments, multi-line `data:` joined with `\n`, events with empty data skipped (the TS
//! priming event), each event bounded in size. It owns parsing only: no sockets, no JSON-RPC.

use std::io::{self, BufRead, BufReader, Read};

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The `event:` field (`message` when absent).
    pub name: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// Reads events from a byte stream.
pub struct SseReader<R> {
    r: BufReader<R>,
    max_event: usize,
    /// The previous line ended with `\r`: a `\n` that follows belongs to it.
    after_cr: bool,
    line: Vec<u8>,
}

impl<R: Read> SseReader<R> {
    /// A reader whose events (and lines) may hold at most `max_event` bytes.
    pub fn new(r: R, max_event: usize) -> SseReader<R> {
        SseReader {
            r: BufReader::with_capacity(16 << 10, r),
            max_event,
            after_cr: false,
            line: Vec::new(),
        }
    }

    /// The next event with non-empty data; `None` at the end of the stream. An event over the
    /// size bound is an `InvalidData` error.
    pub fn next_event(&mut self) -> io::Result<Option<Event>> {
        let mut name = String::new();
        let mut data = String::new();
        let mut has_data = false;
        loop {
            if !self.read_line()? {
                // End of stream: a last event without its blank line is still delivered.
                return Ok(has_data.then(|| finish(name, data)).flatten());
            }
            if self.line.is_empty() {
                if has_data
                    && let Some(ev) = finish(std::mem::take(&mut name), std::mem::take(&mut data))
                {
                    return Ok(Some(ev));
                }
                name.clear();
                data.clear();
                has_data = false;
                continue;
            }
            if self.line[0] == b':' {
                continue;
            }
            let text = String::from_utf8_lossy(&self.line);
            let (field, value) = match text.split_once(':') {
                Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
                None => (text.as_ref(), ""),
            };
            match field {
                "event" => name = value.to_owned(),
                "data" => {
                    if has_data {
                        data.push('\n');
                    }
                    data.push_str(value);
                    has_data = true;
                    if data.len() > self.max_event {
                        return Err(too_big(self.max_event));
                    }
                }
                // `id:` and `retry:` matter for resuming streams, which a listing never does.
                _ => {}
            }
        }
    }

    /// Read one line into `self.line` (without its end); `false` at the end of the stream.
    fn read_line(&mut self) -> io::Result<bool> {
        self.line.clear();
        loop {
            let avail = match self.r.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                return Ok(!self.line.is_empty());
            }
            if self.after_cr {
                self.after_cr = false;
                if avail[0] == b'\n' {
                    self.r.consume(1);
                    continue;
                }
            }
            match memchr::memchr2(b'\n', b'\r', avail) {
                Some(i) => {
                    if self.line.len() + i > self.max_event {
                        return Err(too_big(self.max_event));
                    }
                    self.line.extend_from_slice(&avail[..i]);
                    self.after_cr = avail[i] == b'\r';
                    self.r.consume(i + 1);
                    return Ok(true);
                }
                None => {
                    let n = avail.len();
                    if self.line.len() + n > self.max_event {
                        return Err(too_big(self.max_event));
                    }
                    self.line.extend_from_slice(avail);
                    self.r.consume(n);
                }
            }
        }
    }
}

fn finish(name: String, data: String) -> Option<Event> {
    if data.is_empty() {
        return None;
    }
    let name = if name.is_empty() {
        "message".to_owned()
    } else {
        name
    };
    Some(Event { name, data })
}

fn too_big(max: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("an event is larger than {max} bytes"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(bytes: &[u8]) -> Vec<(String, String)> {
        let mut r = SseReader::new(bytes, 1 << 20);
        let mut out = Vec::new();
        while let Some(e) = r.next_event().unwrap() {
            out.push((e.name, e.data));
        }
        out
    }

    fn ev(name: &str, data: &str) -> (String, String) {
        (name.into(), data.into())
    }

    #[test]
    fn ts_framing_with_priming_event() {
        let s = b"id: a42d\ndata: \n\nevent: message\nid: c639\ndata: {\"result\":{}}\n\n";
        assert_eq!(events(s), [ev("message", "{\"result\":{}}")]);
    }

    #[test]
    fn python_crlf_framing_and_endpoint() {
        let s = b"event: endpoint\r\ndata: /messages/?session_id=ab\r\n\r\n: ping\r\n\r\nevent: message\r\ndata: {\"id\":1}\r\n\r\n";
        assert_eq!(
            events(s),
            [
                ev("endpoint", "/messages/?session_id=ab"),
                ev("message", "{\"id\":1}")
            ]
        );
    }

    #[test]
    fn cr_only_multiline_data_and_missing_space() {
        let s = b"data:a\rdata: b\r\rdata:c";
        assert_eq!(events(s), [ev("message", "a\nb"), ev("message", "c")]);
    }

    #[test]
    fn crlf_split_across_reads() {
        // A reader that yields one byte at a time puts `\r` and `\n` in different reads.
        struct OneByte<'a>(&'a [u8]);
        impl Read for OneByte<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                match self.0.split_first() {
                    Some((b, rest)) if !buf.is_empty() => {
                        buf[0] = *b;
                        self.0 = rest;
                        Ok(1)
                    }
                    _ => Ok(0),
                }
            }
        }
        let mut r = SseReader::new(OneByte(b"data: x\r\n\r\ndata: y\r\n\r\n"), 100);
        assert_eq!(r.next_event().unwrap().unwrap().data, "x");
        assert_eq!(r.next_event().unwrap().unwrap().data, "y");
        assert_eq!(r.next_event().unwrap(), None);
    }

    #[test]
    fn oversized_event_is_an_error() {
        let mut r = SseReader::new(&b"data: 0123456789\ndata: 0123456789\n\n"[..], 15);
        assert_eq!(
            r.next_event().unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        let mut r = SseReader::new(&b"data: 01234\ndata: 56789\ndata: x\n\n"[..], 12);
        assert!(r.next_event().is_err());
    }
}
