//! The lines one hook call reads: the lines kept from earlier calls (read again by their byte
//! offsets, each checked against its fingerprint) and the complete lines added since, read
//! from where the last call stopped. A line still being written (no line ending yet) is left
//! for the next call. Lines are cut the way `check` reads JSON Lines (`LineReader`): blank
//! lines skipped but counted, a UTF-8 BOM and `\r` stripped, a line over the record limit or
//! not UTF-8 reported as an input problem at its line.

use std::fs::File;
use std::io::{BufRead, Read, Seek, SeekFrom};

use crate::finding::InputIssue;

use super::state::{Kept, fingerprint};

/// One line of a window.
#[derive(Debug)]
pub(crate) struct WindowLine {
    /// Byte offset of its first byte in the transcript.
    pub offset: u64,
    /// Its length in bytes (without the line ending).
    pub len: u32,
    /// Its 1-based line number.
    pub line: u32,
    /// Its text (BOM and `\r` stripped).
    pub text: String,
    /// Its index in `State::kept` when it was kept, `None` when it is new.
    pub kept: Option<usize>,
    /// Fingerprint of its bytes as read (what `Kept::hash` holds).
    pub hash: u64,
}

/// The new lines of one read.
#[derive(Debug, Default)]
pub(crate) struct NewLines {
    /// The lines, in order.
    pub lines: Vec<WindowLine>,
    /// Input problems (a line too long, not UTF-8).
    pub issues: Vec<InputIssue>,
    /// Where the read stopped: the end of its last complete line.
    pub end: u64,
    /// The line number of its last complete line.
    pub last_line: u32,
}

/// A kept line no longer has the bytes it had: the transcript was rewritten.
#[derive(Debug)]
pub(crate) struct Rewritten;

/// Read the kept lines again, in file order. `Err(Rewritten)` when one no longer matches its
/// fingerprint (or cannot be read).
pub(crate) fn read_kept(file: &mut File, kept: &[Kept]) -> Result<Vec<WindowLine>, Rewritten> {
    let mut out = Vec::with_capacity(kept.len());
    for (i, k) in kept.iter().enumerate() {
        let bytes = read_at(file, k.offset, k.len as usize).map_err(|_| Rewritten)?;
        if bytes.len() != k.len as usize || fingerprint(&bytes) != k.hash {
            return Err(Rewritten);
        }
        let text = clean(bytes, k.line).map_err(|_| Rewritten)?;
        out.push(WindowLine {
            offset: k.offset,
            len: k.len,
            line: k.line,
            text,
            kept: Some(i),
            hash: k.hash,
        });
    }
    Ok(out)
}

/// Read the complete lines from `from` (line number `line` was the last one before it), about
/// `budget` bytes of them (more when one line is longer: a line is never split), each at most
/// `max_record` bytes. A line longer than that is an input problem and is passed over.
pub(crate) fn read_new(
    file: &mut File,
    path: &str,
    from: u64,
    line: u32,
    budget: u64,
    max_record: usize,
) -> std::io::Result<NewLines> {
    let mut out = NewLines {
        end: from,
        last_line: line,
        ..NewLines::default()
    };
    file.seek(SeekFrom::Start(from))?;
    let mut reader = std::io::BufReader::with_capacity(64 * 1024, file);
    let mut pos = from;
    let mut number = line;
    let mut buf = Vec::new();
    loop {
        if pos - from >= budget && !out.lines.is_empty() {
            break;
        }
        buf.clear();
        let raw = read_line(&mut reader, &mut buf, max_record)?;
        if !raw.complete {
            // The end, or a last line still being written: left for the next call.
            break;
        }
        let start = pos;
        pos += raw.consumed as u64;
        number += 1;
        out.end = pos;
        out.last_line = number;
        if raw.too_long {
            out.issues.push(InputIssue::at(
                path,
                number,
                1,
                format!(
                    "record is longer than the limit of {max_record} bytes; raise it with `--max-record-size`"
                ),
            ));
            continue;
        }
        let len = buf.len() as u32;
        let hash = fingerprint(&buf);
        match clean(std::mem::take(&mut buf), number) {
            Ok(text) if text.trim().is_empty() => {}
            Ok(text) => out.lines.push(WindowLine {
                offset: start,
                len,
                line: number,
                text,
                kept: None,
                hash,
            }),
            Err(message) => out.issues.push(InputIssue::at(path, number, 1, message)),
        }
    }
    Ok(out)
}

/// One physical line as read.
struct RawLine {
    /// Bytes consumed, the line ending included.
    consumed: usize,
    /// It ended with `\n` (else it is still being written).
    complete: bool,
    /// It is longer than the record limit (its text was cut).
    too_long: bool,
}

/// Read one line into `buf` (without its `\n`), keeping at most `max_record + 1` bytes.
fn read_line(
    reader: &mut impl std::io::BufRead,
    buf: &mut Vec<u8>,
    max_record: usize,
) -> std::io::Result<RawLine> {
    let mut consumed = 0;
    let mut too_long = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(RawLine {
                consumed,
                complete: false,
                too_long,
            });
        }
        let (chunk, used, end) = match memchr::memchr(b'\n', available) {
            Some(i) => (&available[..i], i + 1, true),
            None => (available, available.len(), false),
        };
        let room = (max_record + 1).saturating_sub(buf.len());
        too_long |= chunk.len() > room;
        buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
        reader.consume(used);
        consumed += used;
        if end {
            return Ok(RawLine {
                consumed,
                complete: true,
                too_long: too_long || buf.len() > max_record,
            });
        }
    }
}

/// A line's bytes as text: the BOM (line 1) and a trailing `\r` stripped; not UTF-8 is a
/// problem.
fn clean(mut bytes: Vec<u8>, number: u32) -> Result<String, String> {
    if bytes.last() == Some(&b'\r') {
        bytes.pop();
    }
    if number == 1 && bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        bytes.drain(..3);
    }
    String::from_utf8(bytes).map_err(|e| format!("line is not UTF-8: {e}"))
}

/// `len` bytes at `offset` (fewer at the end of the file).
pub(crate) fn read_at(file: &mut File, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(offset))?;
    let mut bytes = Vec::with_capacity(len);
    file.take(len as u64).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Wait (at most `patience`) until the last complete lines of the file name the call `id`
/// (`"id":"<id>"`, as a `tool_use` block writes it): the agent may still be writing that line.
pub(crate) fn wait_for(file: &mut File, id: &str, patience: std::time::Duration) {
    let needle = format!("\"{id}\"");
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let start = std::time::Instant::now();
    let mut pause = std::time::Duration::from_millis(5);
    loop {
        let size = file.metadata().map_or(0, |m| m.len());
        let from = size.saturating_sub(256 << 10);
        if let Ok(tail) = read_at(file, from, (size - from) as usize) {
            let complete = tail.iter().rposition(|&b| b == b'\n').map_or(&tail[..0], |i| &tail[..i]);
            if finder.find(complete).is_some() {
                return;
            }
        }
        if start.elapsed() >= patience {
            return;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(std::time::Duration::from_millis(50));
    }
}

/// Count the lines ending in `[from, to)` and find the start of the first line at or after
/// `to` (a line that began before `to` is skipped whole): for passing over history without
/// reading it into records. Returns (the offset where reading resumes, lines passed).
pub(crate) fn skip_to(file: &mut File, from: u64, to: u64) -> std::io::Result<(u64, u32)> {
    file.seek(SeekFrom::Start(from))?;
    let mut reader = std::io::BufReader::with_capacity(256 * 1024, file);
    let mut pos = from;
    let mut lines = 0u32;
    let mut resume = from;
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return Ok((resume, lines));
        }
        let n = available.len();
        for i in memchr::memchr_iter(b'\n', available) {
            lines = lines.saturating_add(1);
            resume = pos + i as u64 + 1;
            if resume >= to {
                return Ok((resume, lines));
            }
        }
        reader.consume(n);
        pos += n as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file(bytes: &[u8]) -> (tempfile::NamedTempFile, File) {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(bytes).unwrap();
        let handle = File::open(f.path()).unwrap();
        (f, handle)
    }

    #[test]
    fn only_complete_lines_are_read_and_numbers_count_blank_lines() {
        let (_t, mut f) = file(b"\xEF\xBB\xBF{\"a\":1}\r\n\n{\"b\":2}\n{\"c\":");
        let got = read_new(&mut f, "t", 0, 0, 1 << 20, 1 << 20).unwrap();
        let lines: Vec<(u32, &str)> = got.lines.iter().map(|l| (l.line, l.text.as_str())).collect();
        assert_eq!(lines, [(1, "{\"a\":1}"), (3, "{\"b\":2}")]);
        assert_eq!(got.last_line, 3);
        assert_eq!(got.end, 21, "the half-written last line is left for later");
        // Read on from there once the line is finished.
        let (_t, mut f) = file(b"\xEF\xBB\xBF{\"a\":1}\r\n\n{\"b\":2}\n{\"c\":3}\n");
        let more = read_new(&mut f, "t", got.end, got.last_line, 1 << 20, 1 << 20).unwrap();
        assert_eq!(more.lines[0].line, 4);
        assert_eq!(more.lines[0].text, "{\"c\":3}");
    }

    #[test]
    fn a_line_over_the_limit_is_a_problem_and_reading_goes_on() {
        let (_t, mut f) = file(b"{\"a\":\"0123456789\"}\n{\"b\":1}\n");
        let got = read_new(&mut f, "t", 0, 0, 1 << 20, 8).unwrap();
        assert_eq!(got.issues.len(), 1);
        assert_eq!(got.issues[0].line, 1);
        assert_eq!(got.lines.len(), 1);
        assert_eq!(got.lines[0].line, 2);
        assert_eq!(got.end, 27);
    }

    #[test]
    fn kept_lines_are_checked_against_their_fingerprints() {
        let (_t, mut f) = file(b"{\"a\":1}\n{\"b\":2}\n");
        let kept = Kept {
            offset: 8,
            len: 7,
            line: 2,
            pinned: false,
            hash: fingerprint(b"{\"b\":2}"),
            firsts: Vec::new(),
        };
        let back = read_kept(&mut f, std::slice::from_ref(&kept)).unwrap();
        assert_eq!(back[0].text, "{\"b\":2}");
        let (_t, mut f) = file(b"{\"a\":1}\n{\"b\":3}\n");
        assert!(read_kept(&mut f, &[kept]).is_err());
    }

    #[test]
    fn a_hook_waits_for_the_line_of_its_call() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, b"{\"id\":\"toolu_1\"}\n").unwrap();
        let writer = std::thread::spawn({
            let path = path.clone();
            move || {
                std::thread::sleep(std::time::Duration::from_millis(60));
                let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
                // Written in two pieces: the id is there before the line ends.
                f.write_all(b"{\"id\":\"toolu_2\"").unwrap();
                f.flush().unwrap();
                std::thread::sleep(std::time::Duration::from_millis(60));
                f.write_all(b"}\n").unwrap();
            }
        });
        let mut f = File::open(&path).unwrap();
        wait_for(&mut f, "toolu_2", std::time::Duration::from_secs(20));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.ends_with("\"toolu_2\"}\n"), "returned before the line was complete: {text:?}");
        writer.join().unwrap();
    }

    #[test]
    fn skipping_counts_lines_and_stops_at_a_line_start() {
        let (_t, mut f) = file(b"aa\nbbbb\ncc\ndd\n");
        assert_eq!(skip_to(&mut f, 0, 4).unwrap(), (8, 2));
        assert_eq!(skip_to(&mut f, 0, 3).unwrap(), (3, 1));
    }
}
