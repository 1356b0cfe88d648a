//! Migration (skeleton).
use crate::{Error, Issue};
use serde_json::Value;

/// One migration step taken.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AppliedStep {
    /// Version before.
    pub from: u64,
    /// Version after.
    pub to: u64,
    /// Every change, as sentences.
    pub changes: Vec<String>,
}

/// The result of [`migrate`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Migration {
    /// The migrated document.
    pub document: Value,
    /// Version of the input.
    pub from: u64,
    /// Version of the output.
    pub to: u64,
    /// Steps taken.
    pub applied: Vec<AppliedStep>,
    /// Validation issues of the result when `to` is 2.
    pub issues: Vec<Issue>,
}

/// Migrates a document (skeleton).
pub fn migrate(document: &Value, target: u64) -> Result<Migration, Error> {
    Ok(Migration {
        document: document.clone(),
        from: target,
        to: target,
        applied: Vec::new(),
        issues: Vec::new(),
    })
}
