//! Editing a JSON settings file as text, so that everything not touched stays byte for byte:
//! key order, spacing, comments (Gemini CLI's settings may hold `//` and `/* */` comments). A
//! small scanner finds each value's span; an insertion goes after the last member or element
//! of a container (`,` + newline + indentation + the new text), and a removal takes out exactly
//! that much again, so inserting and then removing gives back the original text. Over 400 lines
//! with its tests: the scanner and the two edits share the spans and are tested together.

/// A value and where it is in the text (`start..end`).
#[derive(Debug, Clone)]
pub(crate) enum Node {
    /// `{…}` with its members in order.
    Object {
        start: usize,
        end: usize,
        members: Vec<(String, Node)>,
    },
    /// `[…]` with its items in order.
    Array {
        start: usize,
        end: usize,
        items: Vec<Node>,
    },
    /// A string, number, `true`, `false` or `null`.
    Scalar { start: usize, end: usize },
}

impl Node {
    /// Where the value starts.
    pub fn start(&self) -> usize {
        match self {
            Node::Object { start, .. } | Node::Array { start, .. } | Node::Scalar { start, .. } => {
                *start
            }
        }
    }

    /// Where the value ends (exclusive).
    pub fn end(&self) -> usize {
        match self {
            Node::Object { end, .. } | Node::Array { end, .. } | Node::Scalar { end, .. } => *end,
        }
    }

    /// The member `key` of an object.
    pub fn member(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Object { members, .. } => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// Deepest nesting read.
const MAX_DEPTH: usize = 64;

/// Scan `text` as one JSON value (comments allowed as whitespace).
pub(crate) fn parse(text: &str) -> Result<Node, String> {
    let mut s = Scanner {
        b: text.as_bytes(),
        text,
        i: 0,
    };
    let node = s.value(0)?;
    s.space()?;
    if s.i != s.b.len() {
        return Err(s.error("text after the JSON value"));
    }
    Ok(node)
}

struct Scanner<'t> {
    b: &'t [u8],
    text: &'t str,
    i: usize,
}

impl Scanner<'_> {
    fn error(&self, what: &str) -> String {
        let line = self.text[..self.i.min(self.text.len())].matches('\n').count() + 1;
        format!("line {line}: {what}")
    }

    fn space(&mut self) -> Result<(), String> {
        loop {
            match self.b.get(self.i) {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.i += 1,
                Some(b'/') if self.b.get(self.i + 1) == Some(&b'/') => {
                    while self.b.get(self.i).is_some_and(|&c| c != b'\n') {
                        self.i += 1;
                    }
                }
                Some(b'/') if self.b.get(self.i + 1) == Some(&b'*') => {
                    let rest = &self.text[self.i + 2..];
                    let close = rest.find("*/").ok_or_else(|| self.error("unclosed comment"))?;
                    self.i += close + 4;
                }
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, String> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deep"));
        }
        self.space()?;
        let start = self.i;
        match self.b.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut members = Vec::new();
                loop {
                    self.space()?;
                    if self.b.get(self.i) == Some(&b'}') && members.is_empty() {
                        break;
                    }
                    let key = self.string()?;
                    self.space()?;
                    if self.b.get(self.i) != Some(&b':') {
                        return Err(self.error("expected `:`"));
                    }
                    self.i += 1;
                    let v = self.value(depth + 1)?;
                    members.push((key, v));
                    self.space()?;
                    match self.b.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => break,
                        _ => return Err(self.error("expected `,` or `}`")),
                    }
                }
                self.i += 1;
                Ok(Node::Object {
                    start,
                    end: self.i,
                    members,
                })
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.space()?;
                    if self.b.get(self.i) == Some(&b']') && items.is_empty() {
                        break;
                    }
                    items.push(self.value(depth + 1)?);
                    self.space()?;
                    match self.b.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => break,
                        _ => return Err(self.error("expected `,` or `]`")),
                    }
                }
                self.i += 1;
                Ok(Node::Array {
                    start,
                    end: self.i,
                    items,
                })
            }
            Some(b'"') => {
                self.string()?;
                Ok(Node::Scalar {
                    start,
                    end: self.i,
                })
            }
            Some(_) => {
                while self
                    .b
                    .get(self.i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.'))
                {
                    self.i += 1;
                }
                let word = &self.text[start..self.i];
                let ok = matches!(word, "true" | "false" | "null")
                    || serde_json::from_str::<serde_json::Number>(word).is_ok();
                if !ok {
                    return Err(self.error("expected a JSON value"));
                }
                Ok(Node::Scalar {
                    start,
                    end: self.i,
                })
            }
            None => Err(self.error("expected a JSON value")),
        }
    }

    fn string(&mut self) -> Result<String, String> {
        if self.b.get(self.i) != Some(&b'"') {
            return Err(self.error("expected a string"));
        }
        let start = self.i;
        self.i += 1;
        loop {
            match self.b.get(self.i) {
                Some(b'\\') => self.i += 2,
                Some(b'"') => {
                    self.i += 1;
                    break;
                }
                Some(_) => self.i += 1,
                None => return Err(self.error("unclosed string")),
            }
        }
        serde_json::from_str(&self.text[start..self.i]).map_err(|_| self.error("bad string"))
    }
}

/// The indentation of the line `pos` is on.
pub(crate) fn indent_at(text: &str, pos: usize) -> &str {
    let line_start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// One indentation step of the file: that of the first member of the top object (two spaces
/// when it has none on its own line).
pub(crate) fn indent_unit(text: &str, root: &Node) -> String {
    if let Node::Object { members, .. } = root
        && let Some((_, v)) = members.first()
    {
        // The key starts before the value: the indentation of the value's line.
        let ind = indent_at(text, v.start());
        if !ind.is_empty() && text[..v.start()].contains('\n') {
            return ind.to_owned();
        }
    }
    "  ".to_owned()
}

/// `value` as pretty JSON whose lines after the first are indented by `base` (and `unit` per
/// level).
pub(crate) fn pretty(value: &impl serde::Serialize, base: &str, unit: &str) -> String {
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    // A `Value` always serialises.
    let _ = value.serialize(&mut ser);
    let text = String::from_utf8(buf).unwrap_or_default();
    text.replace('\n', &format!("\n{base}"))
}

/// Insert `value` (as the member `key` of an object, or an element of an array) after the last
/// member or element of the container `node`, formatted like its neighbours; returns the new
/// text.
pub(crate) fn append(
    text: &str,
    node: &Node,
    key: Option<&str>,
    value: &impl serde::Serialize,
    unit: &str,
) -> String {
    let (last_end, close) = match node {
        Node::Object { members, end, .. } => (members.last().map(|(_, v)| v.end()), end - 1),
        Node::Array { items, end, .. } => (items.last().map(Node::end), end - 1),
        Node::Scalar { .. } => return text.to_owned(),
    };
    let item = |base: &str, one_line: bool| {
        let v = if one_line {
            serde_json::to_string(value).unwrap_or_default()
        } else {
            pretty(value, base, unit)
        };
        match key {
            Some(k) => format!("{}: {v}", serde_json::Value::from(k)),
            None => v,
        }
    };
    let outer = indent_at(text, node.start());
    match last_end {
        // A container on one line gets the new item on that line.
        Some(after) if !text[node.start()..after].contains('\n') => {
            format!("{}, {}{}", &text[..after], item("", true), &text[after..])
        }
        Some(after) => {
            let inner = indent_at(text, after);
            format!(
                "{},\n{inner}{}{}",
                &text[..after],
                item(inner, false),
                &text[after..]
            )
        }
        None => {
            let inner = format!("{outer}{unit}");
            format!(
                "{}\n{inner}{}\n{outer}{}",
                &text[..node.start() + 1],
                item(&inner, false),
                &text[close..]
            )
        }
    }
}

/// Remove member or element `index` of the container `node` (the text `append` added, when it
/// was the last one); returns the new text.
pub(crate) fn remove(text: &str, node: &Node, index: usize) -> String {
    let spans: Vec<(usize, usize)> = match node {
        Node::Object { members, .. } => members
            .iter()
            .map(|(_, v)| (key_start(text, v.start()), v.end()))
            .collect(),
        Node::Array { items, .. } => items.iter().map(|v| (v.start(), v.end())).collect(),
        Node::Scalar { .. } => return text.to_owned(),
    };
    let Some(&(start, end)) = spans.get(index) else {
        return text.to_owned();
    };
    if spans.len() == 1 {
        // The only one: the container becomes empty.
        let close = node.end() - 1;
        return format!("{}{}", &text[..node.start() + 1], &text[close..]);
    }
    if index > 0 {
        // From the end of the one before (its comma and the whitespace) to the end of this one.
        let prev_end = spans[index - 1].1;
        return format!("{}{}", &text[..prev_end], &text[end..]);
    }
    // The first of several: up to the start of the next one.
    let next = spans[1].0;
    format!("{}{}", &text[..start], &text[next..])
}

/// Where the key of the member whose value starts at `value_start` starts.
fn key_start(text: &str, value_start: usize) -> usize {
    let before = &text[..value_start];
    let colon = before.rfind(':').unwrap_or(0);
    let key_end = text[..colon].rfind('"').unwrap_or(0);
    let mut i = key_end;
    while i > 0 {
        i -= 1;
        if text.as_bytes()[i] == b'"' && (i == 0 || text.as_bytes()[i - 1] != b'\\') {
            return i;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(original: &str, path: &[&str], key: Option<&str>, item: &str) -> String {
        let root = parse(original).unwrap();
        let mut node = &root;
        for k in path {
            node = node.member(k).unwrap();
        }
        let unit = indent_unit(original, &root);
        let value: serde_json::Value = serde_json::from_str(item).unwrap();
        let added = append(original, node, key, &value, &unit);
        let root2 = parse(&added).unwrap();
        let mut node2 = &root2;
        for k in path {
            node2 = node2.member(k).unwrap();
        }
        let n = match node2 {
            Node::Object { members, .. } => members.len(),
            Node::Array { items, .. } => items.len(),
            Node::Scalar { .. } => 0,
        };
        let back = remove(&added, node2, n - 1);
        assert_eq!(back, original, "after {added}");
        added
    }

    #[test]
    fn append_then_remove_gives_back_the_original() {
        insta::assert_snapshot!(roundtrip("{\n  \"model\": \"opus\"\n}\n", &[], Some("hooks"), "{\"Stop\": []}"), @r#"
        {
          "model": "opus",
          "hooks": {
            "Stop": []
          }
        }
        "#);
        insta::assert_snapshot!(roundtrip("{\n    // mine\n    \"a\": [1, 2]\n}", &["a"], None, "3"), @r#"
        {
            // mine
            "a": [1, 2, 3]
        }
        "#);
        insta::assert_snapshot!(roundtrip("{\"a\":{\"b\":[\n  {\"x\":1}\n]}}", &["a", "b"], None, "{\"y\":2}"), @r#"
        {"a":{"b":[
          {"x":1},
          {
            "y": 2
          }
        ]}}
        "#);
        roundtrip("{}", &[], Some("k"), "1");
    }

    #[test]
    fn a_member_in_the_middle_is_removed_with_its_comma() {
        let text = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}";
        let root = parse(text).unwrap();
        insta::assert_snapshot!(remove(text, &root, 1), @r#"
        {
          "a": 1,
          "c": 3
        }
        "#);
        insta::assert_snapshot!(remove(text, &root, 0), @r#"
        {
          "b": 2,
          "c": 3
        }
        "#);
    }

    #[test]
    fn broken_json_is_refused_with_its_line() {
        assert_eq!(parse("{\n\"a\": tru\n}").unwrap_err(), "line 2: expected a JSON value");
        assert!(parse("{\"a\": 1} x").is_err());
        assert!(parse("[").is_err());
        assert!(parse(&"[".repeat(100)).unwrap_err().contains("too deep"));
    }
}
