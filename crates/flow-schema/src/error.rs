//! Errors that are the caller's fault (an unmigratable version, a bad target).

/// A request this crate cannot honour; an invalid *document* is never an error.
///
/// Every message is one lowercase sentence meant to be shown to an agent as it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The document's `version` is not an integer 0–2.
    #[error("version must be an integer from 0 to 2, found {found}")]
    BadVersion {
        /// The offending value, rendered as JSON (long values are shortened).
        found: String,
    },
    /// The migration target is above the current version or below the document's version.
    #[error("{}", bad_target(.from, .target))]
    BadTarget {
        /// The document's version.
        from: u64,
        /// The target asked for.
        target: u64,
    },
    /// The document is not a JSON object, so it has no version to migrate from.
    #[error("the document must be a JSON object, found {found}")]
    NotAnObject {
        /// What was found instead: `an array`, `a string`, `a number`, `a boolean`, `null`.
        found: String,
    },
    /// One side of a diff cannot be migrated to the current version.
    #[error("the {side} document cannot be migrated: {error}")]
    Unmigratable {
        /// `left` or `right`.
        side: &'static str,
        /// Why migration failed.
        error: Box<Error>,
    },
}

fn bad_target(from: &u64, target: &u64) -> String {
    if *target > crate::CURRENT_VERSION {
        format!(
            "target {target} is above the current version {}",
            crate::CURRENT_VERSION
        )
    } else {
        format!("target {target} is below the document's version {from}")
    }
}

/// How a JSON value's type reads in a sentence.
pub(crate) fn json_type(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// A JSON value as text for a message, cut to about 40 characters.
pub(crate) fn short_json(value: &serde_json::Value) -> String {
    const MAX: usize = 40;
    let text = value.to_string();
    match text.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_read_as_one_sentence() {
        let cases = [
            (
                Error::BadVersion {
                    found: short_json(&json!("2")),
                },
                r#"version must be an integer from 0 to 2, found "2""#,
            ),
            (
                Error::BadTarget { from: 2, target: 1 },
                "target 1 is below the document's version 2",
            ),
            (
                Error::BadTarget { from: 0, target: 3 },
                "target 3 is above the current version 2",
            ),
            (
                Error::NotAnObject {
                    found: json_type(&json!([])).into(),
                },
                "the document must be a JSON object, found an array",
            ),
            (
                Error::Unmigratable {
                    side: "right",
                    error: Box::new(Error::BadVersion { found: "3".into() }),
                },
                "the right document cannot be migrated: version must be an integer from 0 to 2, found 3",
            ),
        ];
        for (error, message) in cases {
            assert_eq!(error.to_string(), message);
        }
    }

    #[test]
    fn long_values_are_shortened() {
        let long = json!("x".repeat(100));
        let text = short_json(&long);
        assert_eq!(text.chars().count(), 41);
        assert!(text.ends_with('…'));
        assert_eq!(short_json(&json!([1, 2])), "[1,2]");
    }
}
