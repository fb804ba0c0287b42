//! Finding URLs in text and source names in text, for R13, and a web URL's host and path, for
//! R3 (`host_path`): a URL is `scheme://…` (a scheme of at
//! most 32 characters, so a long run of letters costs nothing), found through the `://` it must
//! contain and read to the next delimiter, so a scan is linear in the text. A source matches as
//! a whole token, in any case, with `-`, `_` and a space alike; a URL is percent-decoded (and
//! `+` read as a space) before matching, so a search engine's URL counts as its query.

use memchr::memmem;

/// Longest scheme read before `://`.
const MAX_SCHEME: usize = 32;

/// Every URL in `text`, in order (byte ranges).
pub(crate) fn urls(text: &str) -> impl Iterator<Item = &str> + '_ {
    let bytes = text.as_bytes();
    let finder = memmem::find_iter(bytes, b"://");
    let mut resume = 0;
    finder.filter_map(move |at| {
        if at < resume {
            // Inside the URL already read (`…?next=https://…`).
            return None;
        }
        let start = scheme_start(bytes, at)?;
        let mut end = at + 3;
        while end < bytes.len() && !is_delimiter(bytes[end]) {
            end += 1;
        }
        while end > at + 3
            && matches!(
                bytes[end - 1],
                b'.' | b',' | b';' | b':' | b'!' | b'?' | b')' | b']' | b'}'
            )
        {
            end -= 1;
        }
        if end == at + 3 {
            return None;
        }
        resume = end;
        text.get(start..end)
    })
}

/// Where the scheme ending at `at` begins: letters, digits, `+`, `-`, `.`, starting with a
/// letter, at most `MAX_SCHEME` long.
fn scheme_start(bytes: &[u8], at: usize) -> Option<usize> {
    let mut start = at;
    while start > 0
        && at - start < MAX_SCHEME
        && (bytes[start - 1].is_ascii_alphanumeric()
            || matches!(bytes[start - 1], b'+' | b'-' | b'.'))
    {
        start -= 1;
    }
    // Past the limit, the run is not a scheme of its own; read the last MAX_SCHEME characters.
    while start < at && !bytes[start].is_ascii_alphabetic() {
        start += 1;
    }
    (start < at).then_some(start)
}

fn is_delimiter(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'<' | b'>' | b'`' | b'\\' | b'|')
}

/// Longest URL read by `host_path` (bytes).
const MAX_URL: usize = 2048;

/// A web URL (`http`/`https`, any case) as the host and path it names, `host/seg/seg`: no
/// scheme, credentials, query, fragment or trailing slash, so the forms of one address meet
/// (`https://x.org/a/` and `http://x.org/a?q=1#top` are both `x.org/a`). R3 derives it as a
/// path: the whole observed, or the host and then the segments each observed on path
/// boundaries. `None` for anything else (another scheme, no host, whitespace).
pub(crate) fn host_path(url: &str) -> Option<String> {
    let url = url.trim();
    if url.len() > MAX_URL || url.contains(char::is_whitespace) {
        return None;
    }
    let (scheme, rest) = url.split_once("://")?;
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return None;
    }
    let end = rest.find(['?', '#']).unwrap_or(rest.len());
    let rest = &rest[..end];
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let host = authority.rsplit('@').next().unwrap_or(authority);
    if host.is_empty() || host.contains('\\') {
        return None;
    }
    let mut out = host.to_owned();
    for seg in path.split('/').filter(|s| !s.is_empty()) {
        out.push('/');
        out.push_str(seg);
    }
    Some(out)
}

/// A text as sources are matched in it: lowercase, with `-`, `_` and whitespace all `-`.
pub(crate) fn normalized(text: &str) -> String {
    text.chars()
        .flat_map(char::to_lowercase)
        .map(|c| {
            if c == '_' || c.is_whitespace() {
                '-'
            } else {
                c
            }
        })
        .collect()
}

/// A URL decoded for matching: `%xx` escapes read, `+` as a space.
pub(crate) fn decoded(url: &str) -> String {
    let bytes = url.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

/// Whether `needle` (normalized, non-empty) occurs in `hay` (normalized) as a whole token: no
/// letter or digit right before or after it.
pub(crate) fn names(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    let finder = memmem::Finder::new(needle.as_bytes());
    finder.find_iter(hay.as_bytes()).any(|at| {
        let before = hay[..at].chars().next_back();
        let after = hay[at + needle.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_found_to_their_delimiter() {
        let t = "see https://www.tbench.ai/tasks/x, and (ftp://h/p) or git+ssh://g/r \
                 https://a.com/?next=https://b.com/y 'http://q.io/z' :// x://";
        let got: Vec<&str> = urls(t).collect();
        assert_eq!(
            got,
            [
                "https://www.tbench.ai/tasks/x",
                "ftp://h/p",
                "git+ssh://g/r",
                "https://a.com/?next=https://b.com/y",
                "http://q.io/z"
            ]
        );
        // A scheme glued to a long run of letters keeps its last 32 characters.
        let long = format!("{}https://x.io/a", "a".repeat(100));
        assert_eq!(urls(&long).next().unwrap().len(), 32 + "://x.io/a".len());
    }

    #[test]
    fn a_web_urls_forms_meet_in_its_host_and_path() {
        for u in [
            "https://docs.x.org/api/v2",
            "http://docs.x.org/api/v2/",
            "HTTPS://docs.x.org/api/v2?lang=en#top",
            "https://user@docs.x.org//api/v2",
        ] {
            assert_eq!(host_path(u).as_deref(), Some("docs.x.org/api/v2"), "{u}");
        }
        assert_eq!(host_path("http://localhost:3000/").as_deref(), Some("localhost:3000"));
        for u in ["ftp://x.org/a", "https://", "https:///a", "x.org/a", "https://a b/c"] {
            assert_eq!(host_path(u), None, "{u}");
        }
    }

    #[test]
    fn sources_match_whole_tokens_with_separators_alike() {
        let n = |s: &str| normalized(s);
        assert!(names(&n("terminal_bench solution"), &n("terminal-bench")));
        assert!(names(&n("Terminal Bench"), &n("terminal-bench")));
        assert!(names(&n("terminal-bench-2.0"), &n("terminal-bench")));
        assert!(names(&n("https://docs.tbench.ai/x"), &n("tbench.ai")));
        assert!(!names(&n("terminal-benchmarks"), &n("terminal-bench")));
        assert!(!names(&n("https://nottbench.ai/x"), &n("tbench.ai")));
        assert!(names(
            &n(&decoded("q=terminal%2Dbench+solution")),
            &n("terminal-bench")
        ));
        assert_eq!(decoded("a%2"), "a%2");
        assert_eq!(decoded("%zz%41"), "%zzA");
    }
}
