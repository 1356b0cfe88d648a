//! Applying fixes until none applies: what the `flow_fix` tool and `botmesh-mcp check --fix`
//! run.
//!
//! Each round validates (and, once valid, lints) the document with its subflows and applies the
//! first fix of the document's own issues, then of its diagnostics, that the caller allows
//! (`safe` ones, and `unsafe` ones only when asked). Fixes are applied one at a time, because
//! one repair can change what the next one should be; a fix whose patch no longer applies (its
//! `test` fails) is skipped. The loop ends when no allowed fix is left, when a document comes
//! back that was already seen (two fixes undoing each other), or after [`FIX_ROUNDS_LIMIT`]
//! rounds. Fixing a fixed document applies nothing (the property tests hold it to that).
//! [`fix_text`] does the same on a document's text and writes the fixes back as minimal edits.

use rustc_hash::FxHashSet;
use serde::Serialize;
use serde_json::Value;

use botmesh_flow_schema::{
    Applicability, Fix, SyntaxError, apply_patch, edit_text, parse_with_positions,
};

use crate::analyze::{SourcedIssue, analyze_set};

#[cfg(test)]
mod tests;
use crate::lint::Diagnostic;

/// The most fixes one call applies (each is a validation and lint of the set).
pub const FIX_ROUNDS_LIMIT: usize = 200;

/// One fix applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AppliedFix {
    /// `safe` or `unsafe`.
    pub applicability: Applicability,
    /// What it changed, one sentence.
    pub description: String,
    /// The patch applied (RFC 6902).
    pub patch: Vec<Value>,
}

/// The result of [`fix_document`].
#[derive(Debug, Clone, PartialEq)]
pub struct FixOutcome {
    /// The document with every fix applied.
    pub document: Value,
    /// The fixes applied, in order.
    pub applied: Vec<AppliedFix>,
    /// True when the fixed document (with its subflows) is valid.
    pub valid: bool,
    /// The validation issues left (of the document and of its subflows).
    pub issues: Vec<SourcedIssue>,
    /// The lint diagnostics left.
    pub diagnostics: Vec<Diagnostic>,
}

/// Applies the allowed fixes of `document` (with its `subflows`) until none applies.
pub fn fix_document(document: &Value, subflows: &[Value], include_unsafe: bool) -> FixOutcome {
    let allowed = |fix: &Fix| include_unsafe || fix.applicability == Applicability::Safe;
    let mut current = document.clone();
    let mut applied = Vec::new();
    let mut failed: FxHashSet<String> = FxHashSet::default();
    let mut seen: FxHashSet<String> = FxHashSet::default();
    seen.insert(current.to_string());
    for _ in 0..FIX_ROUNDS_LIMIT {
        let next = {
            let analysis = analyze_set(&current, subflows);
            let from_issues = analysis
                .issues
                .iter()
                .filter(|i| i.source == "document")
                .filter_map(|i| i.fix.as_ref());
            let from_lint = analysis
                .diagnostics
                .iter()
                .filter(|d| d.source == "document")
                .filter_map(|d| d.fix.as_ref());
            from_issues
                .chain(from_lint)
                .filter(|fix| allowed(fix))
                .find(|fix| !failed.contains(&key(fix)))
                .cloned()
        };
        let Some(fix) = next else {
            break;
        };
        let mut candidate = current.clone();
        if apply_patch(&mut candidate, &fix.patch).is_err() || !seen.insert(candidate.to_string()) {
            failed.insert(key(&fix));
            continue;
        }
        current = candidate;
        applied.push(AppliedFix {
            applicability: fix.applicability,
            description: fix.description,
            patch: fix.patch,
        });
    }
    let analysis = analyze_set(&current, subflows);
    let (valid, issues, diagnostics) = (analysis.valid, analysis.issues, analysis.diagnostics);
    FixOutcome {
        document: current,
        applied,
        valid,
        issues,
        diagnostics,
    }
}

/// The result of [`fix_text`]: the fixes of a document given as text, and the fixed text.
#[derive(Debug, Clone, PartialEq)]
pub struct TextFixOutcome {
    /// What [`fix_document`] did with the parsed document.
    pub outcome: FixOutcome,
    /// The text with every applied fix written as a minimal edit (`edit_text`: everything but
    /// the fixed spots stays byte for byte), or `None` when some fix cannot be written so.
    /// The text itself when no fix applied.
    pub text: Option<String>,
}

/// [`fix_document`] on a document's text, as `botmesh-mcp check --fix` and `flow_fix` with
/// `documentText` run it: parses the text, applies the allowed fixes, and writes each one
/// into the text as a minimal edit, so the caller's indentation, key order and spacing stay.
///
/// # Errors
///
/// [`SyntaxError`] when the text is not JSON.
pub fn fix_text(
    text: &str,
    subflows: &[Value],
    include_unsafe: bool,
) -> Result<TextFixOutcome, SyntaxError> {
    let (document, _) = parse_with_positions(text)?;
    let outcome = fix_document(&document, subflows, include_unsafe);
    let text = outcome
        .applied
        .iter()
        .try_fold(text.to_owned(), |text, fix| edit_text(&text, &fix.patch));
    Ok(TextFixOutcome { outcome, text })
}

fn key(fix: &Fix) -> String {
    format!("{}{:?}", fix.description, fix.patch)
}
