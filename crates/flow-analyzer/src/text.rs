//! Text helpers: `{{placeholder}}` scanning, condition summaries, shortening and JSON Pointers.

use serde_json::Value;

/// Names every flow may read without writing them (spec §1).
pub(crate) const BUILT_IN_VARIABLES: [&str; 4] =
    ["contact_name", "contact_phone", "last_message", "flow_id"];

/// One `{{…}}` occurrence in an interpolated text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Placeholder<'a> {
    /// A well-formed `{{name}}`.
    Name(&'a str),
    /// `{{` with no `}}` after it; the index is the char offset of the `{{`.
    Unclosed(usize),
    /// `{{}}`.
    Empty,
    /// `{{…}}` whose inside is not a variable name.
    Invalid(&'a str),
}

/// True when `name` matches `^[a-z_][a-z0-9_]{0,63}$`.
pub(crate) fn is_variable_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 64
        && (bytes[0].is_ascii_lowercase() || bytes[0] == b'_')
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_')
}

/// The byte offset of the first `pair` (two ASCII bytes, so always a char boundary) at or after
/// `from`. A plain byte scan: `str::find` builds a substring searcher per call, which costs more
/// than the scan on the short texts of a flow.
pub(crate) fn find_pair(text: &str, from: usize, pair: [u8; 2]) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = from;
    while let Some(found) = bytes.get(at..)?.iter().position(|&b| b == pair[0]) {
        let start = at + found;
        if bytes.get(start + 1) == Some(&pair[1]) {
            return Some(start);
        }
        at = start + 1;
    }
    None
}

/// Every placeholder of `text`, left to right.
///
/// A placeholder opens at `{{` and closes at the first `}}` after it; the inside must be a
/// variable name exactly (no spaces). An unclosed `{{` ends the scan.
pub(crate) fn placeholders(text: &str) -> Vec<Placeholder<'_>> {
    let mut found = Vec::new();
    let mut rest = 0;
    while let Some(start) = find_pair(text, rest, *b"{{") {
        let inner_start = start + 2;
        match find_pair(text, inner_start, *b"}}") {
            None => {
                found.push(Placeholder::Unclosed(text[..start].chars().count()));
                break;
            }
            Some(end) => {
                let close = end - inner_start;
                let inner = &text[inner_start..inner_start + close];
                found.push(if inner.is_empty() {
                    Placeholder::Empty
                } else if is_variable_name(inner) {
                    Placeholder::Name(inner)
                } else {
                    Placeholder::Invalid(inner)
                });
                rest = inner_start + close + 2;
            }
        }
    }
    found
}

/// Escapes one JSON Pointer reference token (RFC 6901).
pub(crate) fn pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// A compact rendering of a scalar or array value: strings quoted, the rest as JSON.
pub(crate) fn value_summary(value: &Value) -> String {
    match value {
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(value_summary).collect();
            format!("[{}]", parts.join(", "))
        }
        other => other.to_string(),
    }
}

/// A one-line human summary of a branch condition, e.g. `age >= 18 and city in ["a", "b"]`.
pub(crate) fn condition_summary(condition: &Value) -> String {
    summary_at(condition, false)
}

fn summary_at(condition: &Value, nested: bool) -> String {
    let wrap = |text: String| if nested { format!("({text})") } else { text };
    if let Some(items) = condition.get("all").and_then(Value::as_array) {
        let parts: Vec<String> = items.iter().map(|c| summary_at(c, true)).collect();
        return if parts.len() == 1 {
            parts.join("")
        } else {
            wrap(parts.join(" and "))
        };
    }
    if let Some(items) = condition.get("any").and_then(Value::as_array) {
        let parts: Vec<String> = items.iter().map(|c| summary_at(c, true)).collect();
        return if parts.len() == 1 {
            parts.join("")
        } else {
            wrap(parts.join(" or "))
        };
    }
    if let Some(inner) = condition.get("not") {
        return format!("not {}", summary_at(inner, true));
    }
    let var = condition.get("var").and_then(Value::as_str).unwrap_or("?");
    let op = condition.get("op").and_then(Value::as_str).unwrap_or("?");
    let symbol = match op {
        "eq" => "==",
        "ne" => "!=",
        "lt" => "<",
        "lte" => "<=",
        "gt" => ">",
        "gte" => ">=",
        other => other,
    };
    match condition.get("value") {
        Some(value) if op != "exists" => format!("{var} {symbol} {}", value_summary(value)),
        _ => format!("{var} {symbol}"),
    }
}

/// Structural equality of two JSON values where numbers compare by value (`1` equals `1.0`).
pub(crate) fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => x == y,
            _ => x == y,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_value(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, x)| y.get(key).is_some_and(|y| same_value(x, y)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn placeholders_cover_every_malformation() {
        assert_eq!(
            placeholders("Hi {{name}}, {{}} {{Bad Name}} {{x"),
            vec![
                Placeholder::Name("name"),
                Placeholder::Empty,
                Placeholder::Invalid("Bad Name"),
                Placeholder::Unclosed(31),
            ]
        );
        assert_eq!(placeholders("no braces } { here"), vec![]);
        assert_eq!(
            placeholders("{{a}}{{b_2}}"),
            vec![Placeholder::Name("a"), Placeholder::Name("b_2")]
        );
    }

    #[test]
    fn condition_summaries_nest_with_parentheses() {
        let condition = json!({"any": [
            {"var": "age", "op": "gte", "value": 18},
            {"all": [{"var": "x", "op": "exists"}, {"not": {"var": "c", "op": "in", "value": ["a", 1]}}]}
        ]});
        assert_eq!(
            condition_summary(&condition),
            r#"age >= 18 or (x exists and not c in ["a", 1])"#
        );
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(same_value(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})));
        assert!(!same_value(&json!({"a": 1}), &json!({"a": "1"})));
    }
}
