//! Comparing argument values the way a reader means them: numbers by value (`1` = `1.0`),
//! everything else by JSON equality (a bool is not a number, `"1"` is not `1`), and the
//! argument-level difference between an expected and an actual call under an `ArgsMode`.

use serde_json::Value;

use super::ArgsMode;

/// JSON equality with numbers compared by value, at any depth.
pub(super) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => match (x.as_u64(), y.as_u64()) {
                (Some(i), Some(j)) => i == j,
                _ => x.as_f64() == y.as_f64(),
            },
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// One argument that differs.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ArgDiff {
    /// The argument (`/order_ref`; `(arguments)` when the arguments are not objects).
    pub key: String,
    /// Its expected value (`None`: not expected).
    pub expected: Option<Value>,
    /// Its actual value (`None`: absent).
    pub actual: Option<Value>,
}

impl std::fmt::Display for ArgDiff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |v: &Option<Value>| match v {
            Some(v) => short(v),
            None => "(absent)".into(),
        };
        write!(
            f,
            "`{}` expected {}, got {}",
            self.key,
            show(&self.expected),
            show(&self.actual)
        )
    }
}

/// A value as one short line.
pub(super) fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 80 {
        let cut: String = s.chars().take(79).collect();
        format!("{cut}…")
    } else {
        s
    }
}

fn pointer_key(k: &str) -> String {
    format!("/{}", crate::model::location::pointer_token(k))
}

/// The differences between expected and actual arguments under `mode` (empty: they match).
/// `expected = None` means the reference gives no arguments: never a difference.
pub(super) fn diff(mode: &ArgsMode, expected: Option<&Value>, actual: &Value) -> Vec<ArgDiff> {
    let Some(expected) = expected else {
        return Vec::new();
    };
    let whole = || {
        if same(expected, actual) {
            Vec::new()
        } else {
            vec![ArgDiff {
                key: "(arguments)".into(),
                expected: Some(expected.clone()),
                actual: Some(actual.clone()),
            }]
        }
    };
    let (Value::Object(e), Value::Object(a)) = (expected, actual) else {
        return match mode {
            ArgsMode::Ignore => Vec::new(),
            _ => whole(),
        };
    };
    let mut out = Vec::new();
    let differs = |x: Option<&Value>, y: Option<&Value>| match (x, y) {
        (Some(x), Some(y)) => !same(x, y),
        (None, None) => false,
        _ => true,
    };
    let mut push = |key: &str, x: Option<&Value>, y: Option<&Value>| {
        out.push(ArgDiff {
            key: pointer_key(key),
            expected: x.cloned(),
            actual: y.cloned(),
        });
    };
    match mode {
        ArgsMode::Ignore => {}
        ArgsMode::Exact => {
            let mut keys: Vec<&String> = e.keys().chain(a.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                if differs(e.get(k), a.get(k)) {
                    push(k, e.get(k), a.get(k));
                }
            }
        }
        ArgsMode::Subset => {
            for (k, v) in a {
                if differs(e.get(k), Some(v)) {
                    push(k, e.get(k), Some(v));
                }
            }
        }
        ArgsMode::Superset => {
            for (k, v) in e {
                if differs(Some(v), a.get(k)) {
                    push(k, Some(v), a.get(k));
                }
            }
        }
        ArgsMode::Keys(keys) => {
            for k in keys {
                fn get<'v>(root: &'v Value, k: &str) -> Option<&'v Value> {
                    let mut cur = root;
                    for part in k.split('.') {
                        cur = cur.as_object()?.get(part)?;
                    }
                    // A null is "absent" for this mode, as for agentevals' key lists.
                    (!cur.is_null()).then_some(cur)
                }
                let (x, y) = (get(expected, k), get(actual, k));
                if differs(x, y) {
                    out.push(ArgDiff {
                        key: format!("/{}", k.replace('.', "/")),
                        expected: x.cloned(),
                        actual: y.cloned(),
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_by_value_bools_are_not_numbers() {
        assert!(same(
            &json!({"n": 1, "l": [2]}),
            &json!({"n": 1.0, "l": [2.0]})
        ));
        assert!(!same(&json!(1), &json!(true)));
        assert!(!same(&json!("1"), &json!(1)));
        assert!(!same(&json!(u64::MAX), &json!(i64::MAX)));
    }

    #[test]
    fn modes_compare_the_keys_they_name() {
        let e = json!({"a": 1, "b": 2});
        assert!(
            diff(
                &ArgsMode::Superset,
                Some(&e),
                &json!({"a": 1.0, "b": 2, "c": 3})
            )
            .is_empty()
        );
        assert_eq!(
            diff(&ArgsMode::Subset, Some(&e), &json!({"a": 1, "c": 3}))[0].to_string(),
            "`/c` expected (absent), got 3"
        );
        assert_eq!(
            diff(&ArgsMode::Exact, Some(&e), &json!({"a": 1, "b": "2"}))[0].to_string(),
            "`/b` expected 2, got \"2\""
        );
        assert!(diff(&ArgsMode::Ignore, Some(&e), &json!([])).is_empty());
        assert!(
            diff(
                &ArgsMode::Keys(vec!["q.x".into()]),
                Some(&json!({"q": {"x": 1}, "z": 1})),
                &json!({"q": {"x": 1.0}})
            )
            .is_empty()
        );
    }
}
