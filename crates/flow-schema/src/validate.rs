//! Validation (skeleton until the flow-schema issue fills it in).
use std::collections::BTreeMap;

/// One problem in a document.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Issue {
    /// RFC 6901 JSON Pointer to the offending node.
    pub path: String,
    /// One short sentence naming the rule.
    pub message: String,
}

/// What a valid document holds.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Document version (always 2 when valid).
    pub version: u64,
    /// Flow id.
    pub id: String,
    /// Number of steps.
    pub steps: usize,
    /// Number of steps per kind.
    pub kinds: BTreeMap<String, usize>,
}

/// The result of [`validate`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Validation {
    /// True when there is no issue.
    pub valid: bool,
    /// Every problem, in document order.
    pub issues: Vec<Issue>,
    /// Present only when valid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
}

/// Validates a document (skeleton: accepts everything).
pub fn validate(_document: &serde_json::Value) -> Validation {
    Validation {
        valid: true,
        issues: Vec::new(),
        summary: None,
    }
}
