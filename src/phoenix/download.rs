//! A project's spans, page by page (`GET /v1/projects/{project}/spans`, cursor-paged, newest
//! first, `start_time`/`end_time` for the window), written one span per line to a private
//! temporary JSON Lines file that `check` lints like any span file. Line N of the file is the
//! N-th span read, so a finding's line names its span (`Download::span_at`).
//!
//! Bounded: spans per page, bytes per page, spans in all, bytes per span; a cursor the server
//! repeats ends the run with an error instead of looping.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::client::Client;
use super::{Options, PhoenixError, Target, percent_encode};
use crate::adapters::common::clock::format_rfc3339;

/// The spans read from one server.
pub struct Download {
    /// The file the spans were written to (removed when this is dropped).
    pub file: TempFile,
    /// The span id on each line (`None`: the span had none, or an unusable one).
    pub span_ids: Vec<Option<String>>,
    /// Pages read.
    pub pages: usize,
}

impl Download {
    /// The span id on 1-based `line`.
    pub fn span_at(&self, line: u32) -> Option<&str> {
        let i = usize::try_from(line).ok()?.checked_sub(1)?;
        self.span_ids.get(i)?.as_deref()
    }
}

/// A file removed when dropped.
pub struct TempFile {
    path: PathBuf,
}

impl TempFile {
    /// A new, empty file only this user may read, in the system's temporary directory.
    pub fn create() -> std::io::Result<(TempFile, std::fs::File)> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        for _ in 0..16 {
            let n = COUNT.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!(
                "tracelint-phoenix-{}-{nanos:08x}-{n}.jsonl",
                std::process::id()
            ));
            let mut opts = std::fs::OpenOptions::new();
            opts.write(true).create_new(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                opts.mode(0o600);
            }
            match opts.open(&path) {
                Ok(f) => return Ok((TempFile { path }, f)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::other("cannot create a temporary file"))
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Longest span id kept for write-back (OTel's are 16 hex digits).
const MAX_SPAN_ID: usize = 128;

/// Read every span of the target's project in the window into a temporary file.
pub fn download(target: &Target, opts: &Options) -> Result<Download, PhoenixError> {
    let fail = |what: String| PhoenixError(format!("{}: {what}", target.shown));
    let client = Client::new(opts);
    let bounds = opts.bounds;
    let (file, out) = TempFile::create()
        .map_err(|e| fail(format!("cannot create a temporary file for the spans: {e}")))?;
    let mut out = std::io::BufWriter::new(out);
    let mut base = format!(
        "{}?limit={}",
        target.endpoint(&format!("projects/{}/spans", target.project_segment())),
        bounds.page_size.clamp(1, 1000)
    );
    for (name, at) in [("start_time", opts.since), ("end_time", opts.until)] {
        if let Some(at) = at {
            base.push_str(&format!("&{name}={}", percent_encode(&format_rfc3339(at))));
        }
    }
    let mut span_ids: Vec<Option<String>> = Vec::new();
    let mut cursors: HashSet<String> = HashSet::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    let mut written: u64 = 0;
    loop {
        let url = match &cursor {
            Some(c) => format!("{base}&cursor={}", percent_encode(c)),
            None => base.clone(),
        };
        let page = client.get(target, &url, bounds.max_page_bytes)?;
        pages += 1;
        let Some(data) = page.get("data").and_then(Value::as_array) else {
            return Err(fail(
                "the spans reply has no `data` list; is this a Phoenix server (version 8 or later)?"
                    .into(),
            ));
        };
        for span in data {
            if span_ids.len() >= bounds.max_spans {
                return Err(fail(format!(
                    "more than {} spans; narrow the window with --since/--until",
                    bounds.max_spans
                )));
            }
            if !span.is_object() {
                return Err(fail(format!(
                    "span {} of the reply is not an object",
                    span_ids.len() + 1
                )));
            }
            let line = serde_json::to_string(span).map_err(|e| fail(e.to_string()))?;
            if line.len() > bounds.max_span_bytes {
                return Err(fail(format!(
                    "span {} is larger than {} (--max-record-size)",
                    span_ids.len() + 1,
                    super::size(bounds.max_span_bytes as u64)
                )));
            }
            written += line.len() as u64 + 1;
            if written > bounds.max_total_bytes {
                return Err(fail(format!(
                    "the spans are larger than {} in all; narrow the window with --since/--until",
                    super::size(bounds.max_total_bytes)
                )));
            }
            let id = span
                .pointer("/context/span_id")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty() && s.len() <= MAX_SPAN_ID)
                .map(str::to_owned);
            span_ids.push(id);
            out.write_all(line.as_bytes())
                .and_then(|()| out.write_all(b"\n"))
                .map_err(|e| fail(format!("cannot write the spans to a temporary file: {e}")))?;
        }
        match page.get("next_cursor") {
            Some(Value::String(next)) if !next.is_empty() => {
                if data.is_empty() {
                    return Err(fail(
                        "the server sent an empty page with a cursor to another; stopped instead of reading forever"
                            .into(),
                    ));
                }
                if next.len() > 1024 || !cursors.insert(next.clone()) {
                    return Err(fail(
                        "the server repeated a page cursor; stopped instead of reading forever"
                            .into(),
                    ));
                }
                cursor = Some(next.clone());
            }
            _ => break,
        }
    }
    out.flush()
        .map_err(|e| fail(format!("cannot write the spans to a temporary file: {e}")))?;
    if span_ids.is_empty() {
        let window = match (opts.since, opts.until) {
            (None, None) => String::new(),
            (s, u) => format!(
                " between {} and {}",
                s.map_or("the first".into(), format_rfc3339),
                u.map_or("now".into(), format_rfc3339)
            ),
        };
        return Err(fail(format!(
            "the project `{}` holds no span{window}",
            target.project
        )));
    }
    Ok(Download {
        file,
        span_ids,
        pages,
    })
}
