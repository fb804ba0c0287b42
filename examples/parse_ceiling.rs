//! The parse ceiling of `scripts/bench` (issue 46): how fast can this machine merely parse the
//! same files into `serde_json::Value`? `tracelint check` is reported as a ratio to it.
//!
//!     cargo run --release --example parse_ceiling -- PATH...
//!
//! Each PATH is a file or a folder (walked, files in name order). A `.jsonl` / `.ndjson` file is
//! read line by line and each non-blank line parsed into a `Value` and dropped; any other file is
//! read whole and parsed as a sequence of JSON documents (one for a `.json` file), each dropped.
//! Nothing else: no model, no rules, no report. It prints what it read (files, documents, bytes,
//! documents that were not JSON) and exits 0 unless a path cannot be read.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

#[derive(Default)]
struct Count {
    files: u64,
    documents: u64,
    invalid: u64,
    bytes: u64,
}

fn main() {
    let paths: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if paths.is_empty() {
        eprintln!("usage: parse_ceiling PATH...");
        std::process::exit(2);
    }
    let mut count = Count::default();
    for path in &paths {
        if let Err(e) = visit(path, &mut count) {
            eprintln!("parse_ceiling: {}: {e}", path.display());
            std::process::exit(2);
        }
    }
    println!(
        "{} files, {} documents ({} not JSON), {} bytes",
        count.files, count.documents, count.invalid, count.bytes
    );
}

fn visit(path: &Path, count: &mut Count) -> io::Result<()> {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = fs::read_dir(path)?
            .map(|e| e.map(|e| e.path()))
            .collect::<io::Result<_>>()?;
        entries.sort();
        for entry in &entries {
            visit(entry, count)?;
        }
        return Ok(());
    }
    count.files += 1;
    let lines = matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("jsonl" | "ndjson")
    );
    if lines {
        let mut reader = BufReader::with_capacity(1 << 16, File::open(path)?);
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = reader.read_until(b'\n', &mut line)?;
            if n == 0 {
                break;
            }
            count.bytes += n as u64;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            parsed(
                serde_json::from_slice::<serde_json::Value>(&line).is_ok(),
                count,
            );
        }
    } else {
        let bytes = fs::read(path)?;
        count.bytes += bytes.len() as u64;
        for document in
            serde_json::Deserializer::from_slice(&bytes).into_iter::<serde_json::Value>()
        {
            let ok = document.is_ok();
            parsed(ok, count);
            if !ok {
                break;
            }
        }
    }
    Ok(())
}

fn parsed(ok: bool, count: &mut Count) {
    count.documents += 1;
    if !ok {
        count.invalid += 1;
    }
}
