//! The values a variable holds (runtime §1): JSON scalars, numbers as IEEE doubles.

use botmesh_flow_schema::program::Literal;
use serde_json::{Number, Value};

/// A variable's value: a JSON scalar. Numbers are IEEE doubles, as in JavaScript, so an
/// integer past 2^53 is rounded when it is read from a document.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    /// A string.
    String(String),
    /// A number (always finite).
    Number(f64),
    /// `true` or `false`.
    Bool(bool),
    /// `null`: set, but to nothing.
    Null,
}

/// The largest integer JSON output writes as plain digits.
const MAX_SAFE: f64 = 9_007_199_254_740_992.0;

impl Scalar {
    /// The scalar of a JSON value; `None` for an array or an object.
    pub fn from_json(value: &Value) -> Option<Self> {
        Some(match value {
            Value::String(s) => Self::String(s.clone()),
            Value::Number(n) => Self::Number(n.as_f64().unwrap_or(0.0)),
            Value::Bool(b) => Self::Bool(*b),
            Value::Null => Self::Null,
            Value::Array(_) | Value::Object(_) => return None,
        })
    }

    /// The JSON form: a number with no fractional part within ±2^53 is written as an integer
    /// (`5`, never `5.0`; `-0` as `0`).
    pub fn to_json(&self) -> Value {
        match self {
            Self::String(s) => Value::String(s.clone()),
            Self::Number(n) => number_json(*n),
            Self::Bool(b) => Value::Bool(*b),
            Self::Null => Value::Null,
        }
    }

    /// The text `{{placeholder}}` gives: a string as is, a number as JavaScript's
    /// `String(number)`, `true`/`false`, and `""` for null.
    pub fn display(&self) -> String {
        match self {
            Self::String(s) => s.clone(),
            Self::Number(n) => js_number(*n),
            Self::Bool(b) => b.to_string(),
            Self::Null => String::new(),
        }
    }

    /// The value of a document's scalar (a default, a `set` value).
    pub fn of_literal(literal: Literal<'_>) -> Self {
        match literal {
            Literal::Null => Self::Null,
            Literal::Bool(b) => Self::Bool(b),
            Literal::Number(n) => Self::Number(n),
            Literal::String(s) => Self::String(s.to_owned()),
        }
    }

    /// [`Scalar::json_eq`] with a document's scalar (a condition's value), without a copy.
    pub fn eq_literal(&self, literal: Literal<'_>) -> bool {
        match (self, literal) {
            (Self::String(a), Literal::String(b)) => a == b,
            (Self::Number(a), Literal::Number(b)) => *a == b,
            (Self::Bool(a), Literal::Bool(b)) => *a == b,
            (Self::Null, Literal::Null) => true,
            _ => false,
        }
    }

    /// JSON equality with numbers compared by value; no coercion between types.
    pub fn json_eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Number(a), Self::Number(b)) => a == b,
            (a, b) => a == b,
        }
    }
}

/// A finite double as JSON (see [`Scalar::to_json`]).
pub(crate) fn number_json(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() <= MAX_SAFE {
        // In range and integral: the cast is exact.
        #[allow(clippy::cast_possible_truncation, reason = "integral and within ±2^53")]
        let integer = n as i64;
        Value::Number(Number::from(integer))
    } else {
        Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

/// `String(n)` in JavaScript: the shortest text that reads back as `n` (`5`, `2.5`, `1e+21`,
/// `1e-7`, `-0` as `0`).
pub fn js_number(n: f64) -> String {
    if n == 0.0 {
        return "0".to_owned();
    }
    let mut buffer = ryu_js::Buffer::new();
    buffer.format(n).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_javascript_does() {
        let cases = [
            (5.0, "5"),
            (2.5, "2.5"),
            (-0.0, "0"),
            (1e21, "1e+21"),
            (1e-7, "1e-7"),
            (123456789012345680000.0, "123456789012345680000"),
            (0.1 + 0.2, "0.30000000000000004"),
        ];
        for (n, text) in cases {
            assert_eq!(js_number(n), text);
        }
    }

    #[test]
    fn json_form_keeps_integers_integral() {
        assert_eq!(Scalar::Number(5.0).to_json(), serde_json::json!(5));
        assert_eq!(Scalar::Number(-0.0).to_json(), serde_json::json!(0));
        assert_eq!(Scalar::Number(2.5).to_json(), serde_json::json!(2.5));
        assert_eq!(Scalar::Number(1e300).to_json(), serde_json::json!(1e300));
        let big: Value = serde_json::from_str("9007199254740993").unwrap();
        assert_eq!(
            Scalar::from_json(&big),
            Some(Scalar::Number(9007199254740992.0))
        );
    }

    #[test]
    fn equality_compares_numbers_by_value_and_never_coerces() {
        let one: Value = serde_json::from_str("1.0").unwrap();
        assert!(
            Scalar::from_json(&one)
                .unwrap()
                .json_eq(&Scalar::Number(1.0))
        );
        assert!(!Scalar::String("1".into()).json_eq(&Scalar::Number(1.0)));
        assert!(!Scalar::String("true".into()).json_eq(&Scalar::Bool(true)));
        assert!(Scalar::Null.json_eq(&Scalar::Null));
    }
}
