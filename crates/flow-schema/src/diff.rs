//! Diff (skeleton).
use crate::Error;
use serde_json::Value;

/// A step whose fields differ.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ChangedStep {
    /// Step id.
    pub id: String,
    /// Keys whose values differ.
    pub fields: Vec<String>,
}

/// The result of [`diff`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diff {
    /// `before != after`.
    pub changed: bool,
    /// Top-level keys other than `steps` that differ.
    pub metadata: Vec<String>,
    /// Step ids only on the right.
    pub added: Vec<String>,
    /// Step ids only on the left.
    pub removed: Vec<String>,
    /// Steps on both sides whose fields differ.
    pub changed_steps: Vec<ChangedStep>,
    /// Digest of the left document.
    pub before: String,
    /// Digest of the right document.
    pub after: String,
}

/// Compares two documents (skeleton).
pub fn diff(_left: &Value, _right: &Value) -> Result<Diff, Error> {
    Err(Error::BadTarget { from: 0, target: 0 })
}
