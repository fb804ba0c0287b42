//! The byte level of the scan: buffered peeking and consuming with line, column and offset
//! kept, record bytes captured, whitespace, strings (fast, via `memchr`) and literals.

use std::io::BufRead;

use super::{MAX_KEY, Scan, Stop};

impl<R: BufRead> Scan<'_, R> {
    pub(super) fn peek(&mut self) -> Result<Option<u8>, Stop> {
        loop {
            match self.inner.fill_buf() {
                Ok(b) => return Ok(b.first().copied()),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Stop::Io(e)),
            }
        }
    }

    /// Consume `n` bytes of the current buffer (the caller has seen them).
    pub(super) fn advance(&mut self, n: usize) {
        let Ok(buf) = self.inner.fill_buf() else {
            return;
        };
        let chunk = &buf[..n.min(buf.len())];
        match memchr::memrchr(b'\n', chunk) {
            Some(last) => {
                self.line = self.line.saturating_add(
                    u32::try_from(memchr::memchr_iter(b'\n', chunk).count()).unwrap_or(u32::MAX),
                );
                self.col = chars(&chunk[last + 1..]);
            }
            None => self.col = self.col.saturating_add(chars(chunk)),
        }
        if let Some(open) = &mut self.open {
            if open.bytes.len() + chunk.len() > self.max_record {
                open.too_long = true;
                open.bytes = Vec::new();
            } else if !open.too_long {
                open.bytes.extend_from_slice(chunk);
            }
        }
        let used = chunk.len();
        self.offset += used as u64;
        self.inner.consume(used);
    }

    pub(super) fn error(&self, msg: impl Into<String>) -> Stop {
        Stop::Syntax(self.line, self.col + 1, msg.into())
    }

    pub(super) fn skip_ws(&mut self) -> Result<Option<u8>, Stop> {
        loop {
            match self.peek()? {
                Some(b'\n') => {
                    self.advance(1);
                    self.dirty = false;
                }
                Some(b' ' | b'\t' | b'\r') => self.advance(1),
                other => return Ok(other),
            }
        }
    }

    pub(super) fn skip_line(&mut self) -> Result<(), Stop> {
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) => return Err(Stop::Io(e)),
            };
            if buf.is_empty() {
                return Ok(());
            }
            match memchr::memchr(b'\n', buf) {
                Some(i) => {
                    self.advance(i + 1);
                    return Ok(());
                }
                None => {
                    let n = buf.len();
                    self.advance(n);
                }
            }
        }
    }

    /// Read a string whose opening quote is next; keep its text when `keep` (keys). What is
    /// kept is the string's raw text with each escape written as a lone `\\` (at most about
    /// `MAX_KEY` bytes of it per run between escapes). The escapes inside the buffer at hand
    /// are stepped over where they are, and what the string took of the buffer is consumed at
    /// once: one pass of the line and column count per buffer, not one per escape.
    pub(super) fn string(&mut self, keep: bool) -> Result<String, Stop> {
        self.advance(1);
        let mut kept = Vec::new();
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) => return Err(Stop::Io(e)),
            };
            if buf.is_empty() {
                return Err(self.error("end of file inside a string"));
            }
            // Where this buffer's walk stopped: the closing quote, a backslash as its last
            // byte (the escaped byte is in the next buffer), or the end of the buffer.
            let mut from = 0;
            let (used, end) = loop {
                match memchr::memchr2(b'"', b'\\', &buf[from..]) {
                    Some(j) => {
                        let i = from + j;
                        if keep && kept.len() < MAX_KEY {
                            kept.extend_from_slice(&buf[from..i.min(from + MAX_KEY)]);
                        }
                        if buf[i] == b'"' {
                            break (i + 1, Walk::Closed);
                        }
                        kept.push(b'\\');
                        if i + 1 == buf.len() {
                            break (i + 1, Walk::Escape);
                        }
                        // The escaped byte, whatever it is, cannot end the string.
                        from = i + 2;
                    }
                    None => {
                        if keep && kept.len() < MAX_KEY {
                            kept.extend_from_slice(&buf[from..buf.len().min(from + MAX_KEY)]);
                        }
                        break (buf.len(), Walk::Open);
                    }
                }
            };
            self.advance(used);
            match end {
                Walk::Closed => return Ok(String::from_utf8_lossy(&kept).into_owned()),
                Walk::Escape => {
                    if self.peek()?.is_none() {
                        return Err(self.error("end of file inside a string"));
                    }
                    self.advance(1);
                }
                Walk::Open => {}
            }
        }
    }

    pub(super) fn literal(&mut self) -> Result<(), Stop> {
        let (line, col) = (self.line, self.col + 1);
        let mut word = Vec::new();
        while let Some(b) = self.peek()? {
            if !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.')) {
                break;
            }
            if word.len() < 32 {
                word.push(b);
            }
            self.advance(1);
        }
        let ok = match word.first() {
            Some(b't') => word == b"true",
            Some(b'f') => word == b"false",
            Some(b'n') => word == b"null",
            Some(b'-' | b'0'..=b'9') => word
                .iter()
                .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E')),
            _ => false,
        };
        if ok {
            Ok(())
        } else {
            Err(Stop::Syntax(line, col, "expected a value".into()))
        }
    }
}

/// Where a walk of one buffer inside a string stopped (`Scan::string`).
enum Walk {
    /// At the closing quote, consumed.
    Closed,
    /// At a backslash that is the buffer's last byte, consumed: its escaped byte comes next.
    Escape,
    /// At the end of the buffer, still inside the string.
    Open,
}

/// Characters (not bytes) in a UTF-8 slice: every byte that is not a continuation byte.
fn chars(bytes: &[u8]) -> u32 {
    // Most text is ASCII, which a word-at-a-time test says quickly: a byte per character.
    let n = if bytes.is_ascii() {
        bytes.len()
    } else {
        bytes.iter().filter(|b| (**b & 0xC0) != 0x80).count()
    };
    u32::try_from(n).unwrap_or(u32::MAX)
}
