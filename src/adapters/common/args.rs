//! One argument normaliser for every adapter: a recorded argument value or emitted argument
//! string becomes `Args::Known`, `Args::Malformed` (with the parser's reason) or `Args::Unknown`
//! (with why it was not recorded) — never a silent `{}`. Python-literal dicts (`str(dict)`
//! output, common in instrumentation) are parsed as the arguments they spell.

use serde_json::{Map, Number, Value};

use crate::model::Args;

/// Read arguments emitted as text (OpenAI `arguments`, native `raw_text`).
pub fn from_text(text: &str) -> Args {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        // OpenAI writes `""` for a call with no arguments.
        return Args::Known(Value::Object(Map::new()));
    }
    match serde_json::from_str::<Value>(trimmed) {
        Ok(v @ Value::Object(_)) => Args::Known(v),
        Ok(other) => Args::Malformed(format!(
            "the arguments are a JSON {}, not an object",
            kind(&other)
        )),
        Err(json_err) => match python_literal_dict(trimmed) {
            Some(v) => Args::Known(v),
            None => Args::Malformed(malformed_reason(&json_err)),
        },
    }
}

/// Read arguments recorded as a JSON value (native `args`, Claude `input`, a span's input).
pub fn from_value(value: Option<&Value>) -> Args {
    match value {
        None | Some(Value::Null) => Args::Unknown("not recorded".into()),
        Some(v @ Value::Object(_)) => Args::Known(v.clone()),
        Some(Value::String(s)) => from_text(s),
        Some(Value::Array(_)) => {
            Args::Unknown("recorded positionally, without parameter names".into())
        }
        Some(_) => Args::Unknown("recorded as a bare value, without parameter names".into()),
    }
}

/// `from_value` of a value the caller owns: an object is moved in, not copied.
pub fn from_owned(value: Option<Value>) -> Args {
    match value {
        Some(v @ Value::Object(_)) => Args::Known(v),
        other => from_value(other.as_ref()),
    }
}

/// The parser's reason, positioned inside the emitted text ("at column 16 of the emitted
/// arguments").
fn malformed_reason(e: &serde_json::Error) -> String {
    let msg = crate::adapters::common::json_pos::error_message(e);
    if e.line() <= 1 {
        format!("{msg} at column {} of the emitted arguments", e.column())
    } else {
        format!(
            "{msg} at line {} column {} of the emitted arguments",
            e.line(),
            e.column()
        )
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Parse a Python literal dict with string keys (`{'a': 1, 'b': True, 'c': None}`), or `None`
/// when the text is not one. Nesting is bounded.
pub fn python_literal_dict(text: &str) -> Option<Value> {
    let mut p = Py {
        s: text.as_bytes(),
        i: 0,
        src: text,
    };
    p.ws();
    if p.peek() != Some(b'{') {
        return None;
    }
    let v = p.value(0)?;
    p.ws();
    (p.i == p.s.len() && v.is_object()).then_some(v)
}

/// Deepest nesting a Python literal may have.
const MAX_DEPTH: usize = 64;

struct Py<'a> {
    s: &'a [u8],
    i: usize,
    src: &'a str,
}

impl Py<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.ws();
        match self.peek()? {
            b'{' => {
                self.i += 1;
                let mut map = Map::new();
                if self.eat(b'}') {
                    return Some(Value::Object(map));
                }
                loop {
                    self.ws();
                    let key = match self.value(depth + 1)? {
                        Value::String(k) => k,
                        _ => return None,
                    };
                    if !self.eat(b':') {
                        return None;
                    }
                    let v = self.value(depth + 1)?;
                    map.insert(key, v);
                    if self.eat(b',') {
                        if self.eat(b'}') {
                            return Some(Value::Object(map));
                        }
                        continue;
                    }
                    return self.eat(b'}').then_some(Value::Object(map));
                }
            }
            open @ (b'[' | b'(') => {
                let close = if open == b'[' { b']' } else { b')' };
                self.i += 1;
                let mut items = Vec::new();
                if self.eat(close) {
                    return Some(Value::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    if self.eat(b',') {
                        if self.eat(close) {
                            return Some(Value::Array(items));
                        }
                        continue;
                    }
                    return self.eat(close).then_some(Value::Array(items));
                }
            }
            q @ (b'\'' | b'"') => self.string(q),
            _ => self.atom(),
        }
    }

    fn string(&mut self, quote: u8) -> Option<Value> {
        self.i += 1;
        let mut out = String::new();
        let start = self.i;
        let mut run_start = start;
        while let Some(c) = self.peek() {
            if c == quote {
                out.push_str(self.src.get(run_start..self.i)?);
                self.i += 1;
                return Some(Value::String(out));
            }
            if c == b'\\' {
                out.push_str(self.src.get(run_start..self.i)?);
                self.i += 1;
                let e = self.peek()?;
                self.i += 1;
                match e {
                    b'n' => out.push('\n'),
                    b't' => out.push('\t'),
                    b'r' => out.push('\r'),
                    b'0' => out.push('\0'),
                    b'\\' | b'\'' | b'"' => out.push(e as char),
                    b'x' | b'u' => {
                        let n = if e == b'x' { 2 } else { 4 };
                        let hex = self.src.get(self.i..self.i + n)?;
                        let code = u32::from_str_radix(hex, 16).ok()?;
                        out.push(char::from_u32(code)?);
                        self.i += n;
                    }
                    _ => {
                        out.push('\\');
                        out.push(e as char);
                    }
                }
                run_start = self.i;
                continue;
            }
            if c == b'\n' {
                return None;
            }
            self.i += 1;
        }
        None
    }

    fn atom(&mut self) -> Option<Value> {
        let start = self.i;
        while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'+' | b'_'))
        {
            self.i += 1;
        }
        let word = self.src.get(start..self.i)?;
        match word {
            "True" => Some(Value::Bool(true)),
            "False" => Some(Value::Bool(false)),
            "None" => Some(Value::Null),
            _ => {
                let clean = word.replace('_', "");
                if let Ok(i) = clean.parse::<i64>() {
                    Some(Value::Number(i.into()))
                } else {
                    let f = clean.parse::<f64>().ok()?;
                    Number::from_f64(f).map(Value::Number)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_object_text() {
        assert_eq!(from_text(r#"{"a": 1}"#), Args::Known(json!({"a": 1})));
        assert_eq!(from_text("  "), Args::Known(json!({})));
    }

    #[test]
    fn malformed_text_keeps_the_parser_reason() {
        assert_eq!(
            from_text(r#"{"order_id": "45"#),
            Args::Malformed(
                "EOF while parsing a string at column 16 of the emitted arguments".into()
            )
        );
        assert_eq!(
            from_text("[1, 2]"),
            Args::Malformed("the arguments are a JSON array, not an object".into())
        );
    }

    #[test]
    fn python_literals() {
        assert_eq!(
            from_text(
                "{'a': 1, 'b': True, 'c': None, 'd': [1.5, 'x'], 'e': (1, 2), \"f\": {'g': -3}}"
            ),
            Args::Known(
                json!({"a": 1, "b": true, "c": null, "d": [1.5, "x"], "e": [1, 2], "f": {"g": -3}})
            )
        );
        assert_eq!(
            from_text(r"{'path': 'C:\\dir', 'q': 'it\'s'}"),
            Args::Known(json!({"path": "C:\\dir", "q": "it's"}))
        );
        // Tuple keys are not arguments.
        assert!(matches!(from_text("{(0, 0): 1}"), Args::Malformed(_)));
        assert!(matches!(from_text("{'a': 1"), Args::Malformed(_)));
    }

    #[test]
    fn values() {
        assert_eq!(from_value(None), Args::Unknown("not recorded".into()));
        assert!(matches!(
            from_value(Some(&json!(["A100"]))),
            Args::Unknown(_)
        ));
        assert!(matches!(
            from_value(Some(&json!("A100"))),
            Args::Malformed(_)
        ));
        assert_eq!(
            from_value(Some(&json!({"x": 1}))),
            Args::Known(json!({"x": 1}))
        );
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let deep = format!("{{'a': {}1{}}}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(python_literal_dict(&deep).is_none());
    }
}
