//! Diff of two documents (spec §6).
//!
//! Both sides are migrated to version 2 first, then compared canonically (so `1.0` equals
//! `1` and key order never matters). Choices the spec leaves open:
//!
//! - `metadata` lists every top-level key other than `steps` that is on one side only or
//!   whose values differ, sorted by code point.
//! - Steps are matched by their `id`. A step whose `id` is not a string, or that repeats an
//!   earlier step's id, is named (and matched) by its position, `/steps/3`.
//! - `changedSteps` follows the right document's order; `fields` are sorted and include
//!   keys present on one side only.
//! - `reordered` is true when the steps found on both sides come in a different order
//!   (the entry step and fall-through depend on order, and it changes the digests).
//! - A `steps` that is not an array counts as no steps (the digests still differ).
//! - Each changed step also lists its `values`: `{ field, before, after }` per changed field,
//!   `before` left out for a field the right side added and `after` for one it removed. A
//!   value whose compact JSON is longer than [`MAX_DIFF_VALUE`] characters is shown as that
//!   JSON's first characters followed by `…` (a string), with `cut: true`.

#[cfg(test)]
mod tests;

use crate::canonical::canonical_eq;
use crate::{Error, digest, migrate};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

/// The longest value `flow_diff` shows whole, in characters of its compact JSON.
pub const MAX_DIFF_VALUE: usize = 200;

/// A step whose fields differ.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ChangedStep {
    /// Step id.
    pub id: String,
    /// Keys whose values differ, sorted.
    pub fields: Vec<String>,
    /// The values of each changed field, in the order of `fields`.
    pub values: Vec<FieldChange>,
}

/// One changed field of a step, with its values on both sides.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FieldChange {
    /// The key.
    pub field: String,
    /// The left value (absent when the right side added the field).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Value>,
    /// The right value (absent when the right side removed the field).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<Value>,
    /// True when a value was cut to [`MAX_DIFF_VALUE`] characters.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
}

/// The result of [`diff`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diff {
    /// `before != after`.
    pub changed: bool,
    /// Top-level keys other than `steps` that differ, sorted.
    pub metadata: Vec<String>,
    /// Step ids only on the right, in document order.
    pub added: Vec<String>,
    /// Step ids only on the left, in document order.
    pub removed: Vec<String>,
    /// Steps on both sides whose fields differ, in the right document's order.
    pub changed_steps: Vec<ChangedStep>,
    /// True when the steps on both sides come in a different order.
    pub reordered: bool,
    /// Digest of the left document (migrated to version 2).
    pub before: String,
    /// Digest of the right document (migrated to version 2).
    pub after: String,
}

/// Compares two documents after migrating both to version 2.
///
/// # Errors
///
/// [`Error::Unmigratable`] naming the side whose migration failed, with the reason.
///
/// ```
/// let left = serde_json::json!({ "version": 2, "id": "a", "steps": [
///     { "id": "hi", "kind": "message", "text": "Hola" } ] });
/// let right = serde_json::json!({ "version": 2, "id": "a", "steps": [
///     { "id": "hi", "kind": "message", "text": "Hola de nuevo" },
///     { "id": "bye", "kind": "end" } ] });
/// let diff = botmesh_flow_schema::diff(&left, &right)?;
/// assert!(diff.changed);
/// assert_eq!(diff.added, ["bye"]);
/// assert_eq!(diff.changed_steps[0].fields, ["text"]);
/// # Ok::<(), botmesh_flow_schema::Error>(())
/// ```
pub fn diff(left: &Value, right: &Value) -> Result<Diff, Error> {
    let left = to_current(left, "left")?;
    let right = to_current(right, "right")?;
    let (left, right) = (left.as_ref(), right.as_ref());

    let metadata = top_level_changes(left, right);
    let left_steps = named_steps(left);
    let right_steps = named_steps(right);
    let left_index: BTreeMap<&str, &Map<String, Value>> = left_steps
        .iter()
        .map(|(name, step)| (name.as_ref(), *step))
        .collect();
    let right_index: BTreeMap<&str, &Map<String, Value>> = right_steps
        .iter()
        .map(|(name, step)| (name.as_ref(), *step))
        .collect();

    let added = right_steps
        .iter()
        .filter(|(name, _)| !left_index.contains_key(name.as_ref()))
        .map(|(name, _)| name.clone().into_owned())
        .collect();
    let removed = left_steps
        .iter()
        .filter(|(name, _)| !right_index.contains_key(name.as_ref()))
        .map(|(name, _)| name.clone().into_owned())
        .collect();
    let mut changed_steps = Vec::new();
    for (name, after) in &right_steps {
        if let Some(before) = left_index.get(name.as_ref()) {
            let fields = changed_keys(before, after);
            if !fields.is_empty() {
                let values = fields
                    .iter()
                    .map(|field| {
                        let (before, cut_before) = shown(before.get(field));
                        let (after, cut_after) = shown(after.get(field));
                        FieldChange {
                            field: field.clone(),
                            before,
                            after,
                            cut: cut_before || cut_after,
                        }
                    })
                    .collect();
                changed_steps.push(ChangedStep {
                    id: name.clone().into_owned(),
                    fields,
                    values,
                });
            }
        }
    }
    let common_left = left_steps
        .iter()
        .filter(|(name, _)| right_index.contains_key(name.as_ref()))
        .map(|(name, _)| name);
    let common_right = right_steps
        .iter()
        .filter(|(name, _)| left_index.contains_key(name.as_ref()))
        .map(|(name, _)| name);
    let reordered = !common_left.eq(common_right);

    let before = digest(left).digest;
    let after = digest(right).digest;
    Ok(Diff {
        changed: before != after,
        metadata,
        added,
        removed,
        changed_steps,
        reordered,
        before,
        after,
    })
}

/// A value as the diff shows it: itself, or its compact JSON cut to [`MAX_DIFF_VALUE`]
/// characters with `…` (and `true`) when longer.
fn shown(value: Option<&Value>) -> (Option<Value>, bool) {
    let Some(value) = value else {
        return (None, false);
    };
    let text = value.to_string();
    match text.char_indices().nth(MAX_DIFF_VALUE) {
        None => (Some(value.clone()), false),
        Some((at, _)) => (Some(Value::String(format!("{}…", &text[..at]))), true),
    }
}

/// The document at version 2, borrowed when it already is.
fn to_current<'a>(document: &'a Value, side: &'static str) -> Result<Cow<'a, Value>, Error> {
    let wrap = |error| Error::Unmigratable {
        side,
        error: Box::new(error),
    };
    let Value::Object(map) = document else {
        return Err(wrap(Error::NotAnObject {
            found: crate::error::json_type(document).into(),
        }));
    };
    if crate::migrate::version_of(map).map_err(wrap)? == crate::CURRENT_VERSION {
        return Ok(Cow::Borrowed(document));
    }
    Ok(Cow::Owned(
        migrate(document, crate::CURRENT_VERSION)
            .map_err(wrap)?
            .document,
    ))
}

/// Top-level keys other than `steps` that differ, sorted.
fn top_level_changes(left: &Value, right: &Value) -> Vec<String> {
    let empty = Map::new();
    let left = left.as_object().unwrap_or(&empty);
    let right = right.as_object().unwrap_or(&empty);
    let keys: BTreeSet<&String> = left.keys().chain(right.keys()).collect();
    keys.into_iter()
        .filter(|key| *key != "steps")
        .filter(|key| match (left.get(*key), right.get(*key)) {
            (Some(a), Some(b)) => !canonical_eq(a, b),
            _ => true,
        })
        .cloned()
        .collect()
}

/// The object steps of a document with the name each is matched by, in document order.
fn named_steps(document: &Value) -> Vec<(Cow<'_, str>, &Map<String, Value>)> {
    let Some(steps) = document.get("steps").and_then(Value::as_array) else {
        return Vec::new();
    };
    let mut seen = BTreeSet::new();
    let mut named = Vec::with_capacity(steps.len());
    for (index, step) in steps.iter().enumerate() {
        let Value::Object(step) = step else {
            continue;
        };
        let name = match step.get("id") {
            Some(Value::String(id)) if seen.insert(id.as_str()) => Cow::Borrowed(id.as_str()),
            _ => Cow::Owned(format!("/steps/{index}")),
        };
        named.push((name, step));
    }
    named
}

/// Keys of two objects whose values differ (or that only one has), sorted.
fn changed_keys(left: &Map<String, Value>, right: &Map<String, Value>) -> Vec<String> {
    let keys: BTreeSet<&String> = left.keys().chain(right.keys()).collect();
    keys.into_iter()
        .filter(|key| match (left.get(*key), right.get(*key)) {
            (Some(a), Some(b)) => !canonical_eq(a, b),
            _ => true,
        })
        .cloned()
        .collect()
}
