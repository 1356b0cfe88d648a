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
//! - Each changed step also lists its `values`: one `{ field, path, before, after }` per value
//!   that changed, at the deepest place it changed (a row title inside `sections` is one entry
//!   with the two titles, not the two `sections` arrays), `field` the step key it is under and
//!   `path` its JSON Pointer in the right document (for a value the right side removed, where
//!   it was, under the same step). `before` is left out for a value the right side added and
//!   `after` for one it removed. Objects are compared key by key; arrays element by element,
//!   after the elements equal at both ends are set aside, so one inserted or removed element is
//!   one entry. A value whose compact JSON is longer than [`MAX_DIFF_VALUE`] characters is
//!   shown as that JSON's first characters followed by `…` (a string), with `cut: true`.
//! - `metadataValues` lists the top-level changes the same way (`field` the top-level key).
//! - `addedSteps` and `removedSteps` carry each added (removed) step whole, with its pointer in
//!   the right (left) document; a step matched by its position, because its id is not a string
//!   or repeats an earlier step's, says so in `note` (also in `changedSteps`).

#[cfg(test)]
mod tests;

use crate::canonical::canonical_eq;
use crate::pointer::push_token;
use crate::{Error, digest, migrate};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// The longest value `flow_diff` shows whole, in characters of its compact JSON.
pub const MAX_DIFF_VALUE: usize = 200;

/// How deep `flow_diff` looks for the place a value changed (a step is level 1); a change
/// deeper than that is shown as the whole value at this depth. Valid documents nest less.
pub const MAX_DIFF_DEPTH: usize = 64;

/// A step whose fields differ.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ChangedStep {
    /// Step id (its pointer, `/steps/3`, when it is matched by position).
    pub id: String,
    /// Keys whose values differ, sorted.
    pub fields: Vec<String>,
    /// Each value that changed, at the deepest place it changed, in the order of `fields`.
    pub values: Vec<FieldChange>,
    /// Why the step is matched by its position, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A step only one side has.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StepEntry {
    /// Step id (its pointer when it is matched by position).
    pub id: String,
    /// Its pointer in the document that has it (`/steps/3`).
    pub path: String,
    /// The step, whole.
    pub step: Value,
    /// Why the step is matched by its position, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One changed value, with its values on both sides.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FieldChange {
    /// The step key (or top-level key) the value is under.
    pub field: String,
    /// JSON Pointer to the value in the right document (for a value the right side removed,
    /// where it was).
    pub path: String,
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
    /// Each top-level value (other than `steps`) that changed, at the deepest place it changed.
    pub metadata_values: Vec<FieldChange>,
    /// Step ids only on the right, in document order.
    pub added: Vec<String>,
    /// Step ids only on the left, in document order.
    pub removed: Vec<String>,
    /// The steps only on the right, whole, in document order.
    pub added_steps: Vec<StepEntry>,
    /// The steps only on the left, whole, in document order.
    pub removed_steps: Vec<StepEntry>,
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
    let mut metadata_values = Vec::new();
    for key in &metadata {
        let mut path = String::new();
        push_token(&mut path, key);
        let (before, after) = (left.get(key), right.get(key));
        changes(key, before, after, 1, &mut path, &mut metadata_values);
    }
    let left_steps = named_steps(left);
    let right_steps = named_steps(right);
    let left_index: BTreeMap<&str, &Named<'_>> = left_steps
        .iter()
        .map(|named| (named.name.as_ref(), named))
        .collect();
    let right_index: BTreeMap<&str, &Named<'_>> = right_steps
        .iter()
        .map(|named| (named.name.as_ref(), named))
        .collect();

    let only = |steps: &[Named<'_>], other: &BTreeMap<&str, &Named<'_>>| -> Vec<StepEntry> {
        steps
            .iter()
            .filter(|named| !other.contains_key(named.name.as_ref()))
            .map(|named| StepEntry {
                id: named.name.clone().into_owned(),
                path: format!("/steps/{}", named.index),
                step: Value::Object(named.step.clone()),
                note: named.note.clone(),
            })
            .collect()
    };
    let added_steps = only(&right_steps, &left_index);
    let removed_steps = only(&left_steps, &right_index);
    let mut changed_steps = Vec::new();
    for after in &right_steps {
        let Some(before) = left_index.get(after.name.as_ref()) else {
            continue;
        };
        let fields = changed_keys(before.step, after.step);
        if fields.is_empty() {
            continue;
        }
        let mut values = Vec::new();
        for field in &fields {
            let mut path = format!("/steps/{}", after.index);
            push_token(&mut path, field);
            let (old, new) = (before.step.get(field), after.step.get(field));
            changes(field, old, new, 2, &mut path, &mut values);
        }
        changed_steps.push(ChangedStep {
            id: after.name.clone().into_owned(),
            fields,
            values,
            note: after.note.clone(),
        });
    }
    let common_left = left_steps
        .iter()
        .filter(|named| right_index.contains_key(named.name.as_ref()))
        .map(|named| &named.name);
    let common_right = right_steps
        .iter()
        .filter(|named| left_index.contains_key(named.name.as_ref()))
        .map(|named| &named.name);
    let reordered = !common_left.eq(common_right);

    let before = digest(left).digest;
    let after = digest(right).digest;
    Ok(Diff {
        changed: before != after,
        metadata,
        metadata_values,
        added: added_steps.iter().map(|entry| entry.id.clone()).collect(),
        removed: removed_steps.iter().map(|entry| entry.id.clone()).collect(),
        added_steps,
        removed_steps,
        changed_steps,
        reordered,
        before,
        after,
    })
}

/// The changes between two values at `path` (under the key `field`, `depth` levels down), at
/// the deepest place each is: objects key by key, arrays element by element once the elements
/// equal at both ends are set aside; anything else (a value on one side only, or anything at
/// [`MAX_DIFF_DEPTH`]) is one change.
fn changes(
    field: &str,
    before: Option<&Value>,
    after: Option<&Value>,
    depth: usize,
    path: &mut String,
    out: &mut Vec<FieldChange>,
) {
    match (before, after) {
        _ if depth >= MAX_DIFF_DEPTH => leaf(field, before, after, path, out),
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            for key in changed_keys(a, b) {
                let mark = path.len();
                push_token(path, &key);
                changes(field, a.get(&key), b.get(&key), depth + 1, path, out);
                path.truncate(mark);
            }
        }
        (Some(Value::Array(a)), Some(Value::Array(b))) => {
            let same = |x: &Value, y: &Value| canonical_eq(x, y);
            let head = a.iter().zip(b).take_while(|(x, y)| same(x, y)).count();
            let tail = a[head..]
                .iter()
                .rev()
                .zip(b[head..].iter().rev())
                .take_while(|(x, y)| same(x, y))
                .count();
            let (a_end, b_end) = (a.len() - tail, b.len() - tail);
            for index in head..a_end.max(b_end) {
                let mark = path.len();
                let _ = write!(path, "/{index}");
                let pair = (a[..a_end].get(index), b[..b_end].get(index));
                changes(field, pair.0, pair.1, depth + 1, path, out);
                path.truncate(mark);
            }
        }
        (before, after) => leaf(field, before, after, path, out),
    }
}

/// One change: the two values (shortened as [`shown`] says), unless they are equal.
fn leaf(
    field: &str,
    before: Option<&Value>,
    after: Option<&Value>,
    path: &str,
    out: &mut Vec<FieldChange>,
) {
    if before.zip(after).is_some_and(|(a, b)| canonical_eq(a, b)) {
        return;
    }
    let (before, cut_before) = shown(before);
    let (after, cut_after) = shown(after);
    out.push(FieldChange {
        field: field.to_owned(),
        path: path.to_owned(),
        before,
        after,
        cut: cut_before || cut_after,
    });
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

/// A step of a document with the name it is matched by.
struct Named<'a> {
    /// Its id, or its pointer when it is matched by position.
    name: Cow<'a, str>,
    /// Its index in `steps`.
    index: usize,
    step: &'a Map<String, Value>,
    /// Why it is matched by position, when it is.
    note: Option<String>,
}

/// The object steps of a document with the name each is matched by, in document order.
fn named_steps(document: &Value) -> Vec<Named<'_>> {
    let Some(steps) = document.get("steps").and_then(Value::as_array) else {
        return Vec::new();
    };
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut named = Vec::with_capacity(steps.len());
    for (index, step) in steps.iter().enumerate() {
        let Value::Object(step) = step else {
            continue;
        };
        let at = format!("/steps/{index}");
        let (name, note) = match step.get("id") {
            Some(Value::String(id)) => match seen.get(id.as_str()) {
                None => {
                    seen.insert(id.as_str(), index);
                    (Cow::Borrowed(id.as_str()), None)
                }
                Some(first) => (
                    Cow::Owned(at),
                    Some(format!(
                        "a second step with the id {} (the first is /steps/{first}), so it is matched by its position",
                        crate::canonical::json_string(id)
                    )),
                ),
            },
            None => (
                Cow::Owned(at),
                Some("a step without an id, so it is matched by its position".to_owned()),
            ),
            Some(other) => (
                Cow::Owned(at),
                Some(format!(
                    "a step whose id {} is not a string, so it is matched by its position",
                    crate::error::short_json(other)
                )),
            ),
        };
        named.push(Named {
            name,
            index,
            step,
            note,
        });
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
