//! Rust source read as tokens for the layers check: identifiers, string literals (kept apart,
//! so paths inside them are never taken for imports), `::` and punctuation, with comments
//! dropped; and `use` trees expanded into one binding per imported name.

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    Ident(String),
    Str(String),
    Sep,
    Punct(char),
}

pub(crate) fn peek(c: &[char], i: usize) -> char {
    c.get(i).copied().unwrap_or('\0')
}

pub(crate) fn tokenize(text: &str) -> Vec<Tok> {
    let c: Vec<char> = text.chars().collect();
    let (mut i, mut out) = (0, Vec::new());
    let ident_start = |ch: char| ch.is_alphabetic() || ch == '_';
    let ident_char = |ch: char| ch.is_alphanumeric() || ch == '_';
    while i < c.len() {
        match c[i] {
            ch if ch.is_whitespace() => i += 1,
            '/' if peek(&c, i + 1) == '/' => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '/' if peek(&c, i + 1) == '*' => {
                let mut depth = 0;
                while i < c.len() {
                    if c[i] == '/' && peek(&c, i + 1) == '*' {
                        depth += 1;
                        i += 2;
                    } else if c[i] == '*' && peek(&c, i + 1) == '/' {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            '"' => {
                let start = i + 1;
                i += 1;
                while i < c.len() && c[i] != '"' {
                    i += if c[i] == '\\' { 2 } else { 1 };
                }
                out.push(Tok::Str(c[start..i.min(c.len())].iter().collect()));
                i += 1;
            }
            'r' | 'b'
                if matches!(
                    (c[i], peek(&c, i + 1), peek(&c, i + 2)),
                    ('r', '#' | '"', _) | ('b', 'r', '#' | '"')
                ) && !(c[i] == 'r'
                    && peek(&c, i + 1) == '#'
                    && ident_start(peek(&c, i + 2))) =>
            {
                i += if c[i] == 'b' { 2 } else { 1 };
                let mut hashes = 0;
                while peek(&c, i) == '#' {
                    hashes += 1;
                    i += 1;
                }
                i += 1; // the opening quote
                let start = i;
                let close: String = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                let close: Vec<char> = close.chars().collect();
                while i < c.len() && c[i..].iter().take(close.len()).ne(close.iter()) {
                    i += 1;
                }
                out.push(Tok::Str(c[start..i.min(c.len())].iter().collect()));
                i += close.len();
            }
            'b' if peek(&c, i + 1) == '"' || peek(&c, i + 1) == '\'' => i += 1,
            '\'' => {
                if peek(&c, i + 1) == '\\' {
                    i += 2;
                    while i < c.len() && c[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                } else if peek(&c, i + 2) == '\'' {
                    i += 3;
                } else {
                    i += 1; // a lifetime: its name reads as an identifier, harmless
                }
            }
            ch if ident_start(ch) || (ch == 'r' && peek(&c, i + 1) == '#') => {
                if ch == 'r' && peek(&c, i + 1) == '#' {
                    i += 2;
                }
                let start = i;
                while i < c.len() && ident_char(c[i]) {
                    i += 1;
                }
                out.push(Tok::Ident(c[start..i].iter().collect()));
            }
            ch if ch.is_ascii_digit() => {
                while i < c.len()
                    && (ident_char(c[i]) || (c[i] == '.' && peek(&c, i + 1).is_ascii_digit()))
                {
                    i += 1;
                }
            }
            ':' if peek(&c, i + 1) == ':' => {
                out.push(Tok::Sep);
                i += 2;
            }
            ch => {
                out.push(Tok::Punct(ch));
                i += 1;
            }
        }
    }
    out
}

/// A `use` binding: the path as written, the name it binds (none for a glob), and whether it is
/// a re-export (any visibility).
#[derive(Debug)]
pub(crate) struct Use {
    pub(crate) path: Vec<String>,
    pub(crate) name: Option<String>,
    pub(crate) public: bool,
}

pub(crate) fn ident(t: Option<&Tok>) -> Option<&str> {
    match t {
        Some(Tok::Ident(s)) => Some(s),
        _ => None,
    }
}

/// Skip a balanced group starting at `i` (an opening bracket); returns the index after it.
pub(crate) fn skip_group(toks: &[Tok], mut i: usize) -> usize {
    let mut depth = 0i32;
    while i < toks.len() {
        match toks[i] {
            Tok::Punct('{' | '(' | '[') => depth += 1,
            Tok::Punct('}' | ')' | ']') => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// Skip one item: to a `;` at its own depth or past its first balanced `{…}` block.
pub(crate) fn skip_item(toks: &[Tok], mut i: usize) -> usize {
    while i < toks.len() {
        match toks[i] {
            Tok::Punct(';') => return i + 1,
            Tok::Punct('{') => return skip_group(toks, i),
            Tok::Punct('(' | '[') => i = skip_group(toks, i),
            _ => i += 1,
        }
    }
    i
}

/// Expand a `use` tree (tokens between `use` and `;`) into bindings.
pub(crate) fn use_tree(toks: &[Tok], prefix: &[String], public: bool, out: &mut Vec<Use>) {
    let mut path = prefix.to_vec();
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Ident(s) if s == "as" => {
                if let (Some(alias), Some(last)) = (ident(toks.get(i + 1)), out.last_mut()) {
                    last.name = (alias != "_").then(|| alias.to_string());
                }
                i += 2;
                continue;
            }
            Tok::Ident(s) => {
                path.push(s.clone());
                if !matches!(toks.get(i + 1), Some(Tok::Sep)) {
                    let name = if s == "self" {
                        path.pop();
                        path.last().cloned()
                    } else {
                        Some(s.clone())
                    };
                    out.push(Use {
                        path: path.clone(),
                        name,
                        public,
                    });
                    path.truncate(prefix.len());
                }
            }
            Tok::Punct('*') => {
                out.push(Use {
                    path: path.clone(),
                    name: None,
                    public,
                });
                path.truncate(prefix.len());
            }
            Tok::Punct('{') => {
                let end = skip_group(toks, i);
                let inner = &toks[i + 1..end - 1];
                // split the group's top level on commas
                let (mut start, mut k) = (0, 0);
                while k <= inner.len() {
                    if k == inner.len() || inner[k] == Tok::Punct(',') {
                        if start < k {
                            use_tree(&inner[start..k], &path, public, out);
                        }
                        start = k + 1;
                        k += 1;
                    } else if inner[k] == Tok::Punct('{') {
                        k = skip_group(inner, k);
                    } else {
                        k += 1;
                    }
                }
                path.truncate(prefix.len());
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
}
