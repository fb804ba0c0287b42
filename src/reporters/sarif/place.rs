//! Where a result is: `artifactLocation` URIs relative to the base, physical locations with their
//! regions, and the line hashes of `partialFingerprints`.

use crate::finding::Finding;
use crate::model::Location as SpanAt;

use super::super::paths::{PathBase, Place, file_uri, uri_reference};
use super::wire::{Artifact, Physical, Region};

/// An input's artifact URI: relative to `%SRCROOT%` when it is under the root, else an absolute
/// `file:` URI (no base), never a `../` reference that no consumer could place.
#[derive(Debug, Clone)]
pub(super) struct Uri {
    pub(super) uri: String,
    pub(super) relative: bool,
}

pub(super) fn uri_for(base: &PathBase, path: &str) -> Uri {
    match base.place(path) {
        Place::Inside(rel) => Uri {
            uri: uri_reference(&rel),
            relative: true,
        },
        Place::Outside(abs) => Uri {
            uri: file_uri(&abs),
            relative: false,
        },
    }
}

/// Where a result or notification points; only a result's region marks the step's extent.
pub(super) fn physical(uri: &Uri, at: Option<&SpanAt>) -> Physical {
    physical_at(uri, at, false)
}

pub(super) fn physical_at(uri: &Uri, at: Option<&SpanAt>, extent: bool) -> Physical {
    Physical {
        artifact_location: Artifact {
            uri: uri.uri.clone(),
            uri_base_id: uri.relative.then_some(SRCROOT),
        },
        // Line 0 means "the whole file": no region then, never a region at line 0.
        region: at.filter(|a| a.line > 0).map(|a| {
            let start_column = a.column.max(1);
            // The step's extent, when the adapter knew it (and it is a real, forward one).
            let end = a
                .end
                .filter(|_| extent)
                .filter(|e| e.line > a.line || (e.line == a.line && e.column > start_column));
            Region {
                start_line: a.line,
                start_column,
                end_line: end.map(|e| e.line),
                end_column: end.map(|e| e.column),
            }
        }),
    }
}

/// A stable 64-bit FNV-1a hash (std's hasher may change between Rust releases).
pub(super) fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            h ^= 0xff;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        for b in part.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// What a finding's fingerprint hashes: rule, tool and the content at the primary location with
/// all whitespace removed (GitHub's own line hash ignores whitespace too). The content is the
/// primary step's excerpt: it moves with the step when lines are inserted above it, and the
/// report needs no second read of the input (stdin cannot be re-read).
pub(super) fn line_hash(f: &Finding) -> u64 {
    let content: String = f
        .evidence
        .first()
        .map(|e| e.excerpt.chars().filter(|c| !c.is_whitespace()).collect())
        .unwrap_or_default();
    fnv1a(&[f.rule.as_str(), f.tool.as_deref().unwrap_or(""), &content])
}

/// The base the relative URIs are relative to, resolved by the consumer (the checkout root).
pub(super) const SRCROOT: &str = "%SRCROOT%";
