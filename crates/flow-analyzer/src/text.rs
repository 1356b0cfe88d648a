//! Text helpers: `{{placeholder}}` scanning, condition summaries, shortening and JSON Pointers.

use std::fmt::Write as _;

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
pub(crate) fn placeholders(text: &str) -> Placeholders<'_> {
    Placeholders {
        text,
        rest: 0,
        done: false,
    }
}

/// The iterator of [`placeholders`] (no vector per text).
pub(crate) struct Placeholders<'t> {
    text: &'t str,
    /// Where the scan resumes.
    rest: usize,
    /// Set after an unclosed `{{`.
    done: bool,
}

impl<'t> Iterator for Placeholders<'t> {
    type Item = Placeholder<'t>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let text = self.text;
        let start = find_pair(text, self.rest, *b"{{")?;
        let inner_start = start + 2;
        let Some(end) = find_pair(text, inner_start, *b"}}") else {
            self.done = true;
            return Some(Placeholder::Unclosed(text[..start].chars().count()));
        };
        self.rest = end + 2;
        let inner = &text[inner_start..end];
        Some(if inner.is_empty() {
            Placeholder::Empty
        } else if is_variable_name(inner) {
            Placeholder::Name(inner)
        } else {
            Placeholder::Invalid(inner)
        })
    }
}

/// Escapes one JSON Pointer reference token (RFC 6901).
pub(crate) fn pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Appends a compact rendering of a scalar or array value: strings quoted, the rest as JSON.
pub(crate) fn push_value_summary(out: &mut String, value: &Value) {
    match value {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_value_summary(out, item);
            }
            out.push(']');
        }
        // Writing to a `String` cannot fail.
        other => drop(write!(out, "{other}")),
    }
}

/// A one-line human summary of a branch condition, e.g. `age >= 18 and city in ["a", "b"]`.
pub(crate) fn condition_summary(condition: &Value) -> String {
    let mut out = String::new();
    push_summary(&mut out, condition, false);
    out
}

/// The keys of one condition object that summaries and variable reads look at, gathered in one
/// pass over its keys instead of a map search per key.
#[derive(Default)]
pub(crate) struct ConditionKeys<'a> {
    pub(crate) all: Option<&'a Value>,
    pub(crate) any: Option<&'a Value>,
    pub(crate) not: Option<&'a Value>,
    pub(crate) var: Option<&'a Value>,
    pub(crate) op: Option<&'a Value>,
    pub(crate) value: Option<&'a Value>,
}

impl<'a> ConditionKeys<'a> {
    /// The keys of `condition` (none when it is not an object).
    pub(crate) fn of(condition: &'a Value) -> Self {
        let mut keys = Self::default();
        for (key, field) in condition.as_object().into_iter().flatten() {
            let slot = match key.as_str() {
                "all" => &mut keys.all,
                "any" => &mut keys.any,
                "not" => &mut keys.not,
                "var" => &mut keys.var,
                "op" => &mut keys.op,
                "value" => &mut keys.value,
                _ => continue,
            };
            *slot = Some(field);
        }
        keys
    }
}

/// Appends the summary of `condition`; a nested `all` or `any` of several parts is wrapped
/// in parentheses. The whole summary is written into one `String`.
fn push_summary(out: &mut String, condition: &Value, nested: bool) {
    let ConditionKeys {
        all,
        any,
        not,
        var,
        op,
        value,
    } = ConditionKeys::of(condition);
    for (items, joiner) in [(all, " and "), (any, " or ")] {
        let Some(items) = items.and_then(Value::as_array) else {
            continue;
        };
        if let [single] = items.as_slice() {
            push_summary(out, single, true);
            return;
        }
        if nested {
            out.push('(');
        }
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(joiner);
            }
            push_summary(out, item, true);
        }
        if nested {
            out.push(')');
        }
        return;
    }
    if let Some(inner) = not {
        out.push_str("not ");
        push_summary(out, inner, true);
        return;
    }
    let var = var.and_then(Value::as_str).unwrap_or("?");
    let op = op.and_then(Value::as_str).unwrap_or("?");
    let symbol = match op {
        "eq" => "==",
        "ne" => "!=",
        "lt" => "<",
        "lte" => "<=",
        "gt" => ">",
        "gte" => ">=",
        other => other,
    };
    out.push_str(var);
    out.push(' ');
    out.push_str(symbol);
    if let Some(value) = value
        && op != "exists"
    {
        out.push(' ');
        push_value_summary(out, value);
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
            placeholders("Hi {{name}}, {{}} {{Bad Name}} {{x").collect::<Vec<_>>(),
            vec![
                Placeholder::Name("name"),
                Placeholder::Empty,
                Placeholder::Invalid("Bad Name"),
                Placeholder::Unclosed(31),
            ]
        );
        assert_eq!(placeholders("no braces } { here").next(), None);
        // An unclosed `{{` is reported once and ends the scan.
        assert_eq!(
            placeholders("a {{b {{c").collect::<Vec<_>>(),
            vec![Placeholder::Unclosed(2)]
        );
        assert_eq!(
            placeholders("{{a}}{{b_2}}").collect::<Vec<_>>(),
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
        let edge_cases = json!({"all": [{"any": []}, {"all": [{"op": "exists", "var": "y", "value": 1}]}, {"var": "z", "op": "in", "value": [[], "q\"", null]}]});
        assert_eq!(
            condition_summary(&edge_cases),
            r#"() and y exists and z in [[], "q\"", null]"#
        );
        assert_eq!(condition_summary(&json!({"all": []})), "");
        assert_eq!(condition_summary(&json!("odd")), "? ?");
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(same_value(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})));
        assert!(!same_value(&json!({"a": 1}), &json!({"a": "1"})));
    }
}
