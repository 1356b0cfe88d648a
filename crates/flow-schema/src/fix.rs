//! Machine-applicable fixes: an RFC 6902 JSON Patch that starts with a `test` of the value it
//! changes (a patch made against a stale document fails instead of corrupting it), whether it
//! keeps the document's meaning (`safe`) or is a plausible repair that changes behaviour
//! (`unsafe`), and one sentence saying what it does.
//!
//! [`apply_patch`] applies the operations a fix uses: `test`, `replace`, `add`, `remove` and
//! `move` (RFC 6902 §4; `copy` is never produced and is refused).

use serde_json::{Value, json};

use crate::pointer::unescape_token;

/// Whether applying a fix keeps what the document means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// The meaning is kept (a misspelt key or kind whose intent is certain, a title cut to its
    /// limit, a duplicate id renamed).
    Safe,
    /// A plausible repair that changes behaviour (the nearest step for an unknown `next`, an
    /// `end` added where a path falls off).
    Unsafe,
}

/// A fix for one issue or diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Fix {
    /// `safe` or `unsafe`.
    pub applicability: Applicability,
    /// One sentence: what the patch changes.
    pub description: String,
    /// RFC 6902 operations; the first is a `test` of the value it changes.
    pub patch: Vec<Value>,
}

impl Fix {
    /// A safe fix.
    pub fn safe(description: String, patch: Vec<Value>) -> Self {
        Fix {
            applicability: Applicability::Safe,
            description,
            patch,
        }
    }

    /// An unsafe fix.
    pub fn risky(description: String, patch: Vec<Value>) -> Self {
        Fix {
            applicability: Applicability::Unsafe,
            description,
            patch,
        }
    }
}

/// The patch that replaces the value at `path` (`old`) with `new`.
pub fn replace_patch(path: &str, old: &Value, new: Value) -> Vec<Value> {
    vec![
        json!({ "op": "test", "path": path, "value": old }),
        json!({ "op": "replace", "path": path, "value": new }),
    ]
}

/// The patch that removes the member at `path` (holding `value`).
pub fn remove_patch(path: &str, value: &Value) -> Vec<Value> {
    vec![
        json!({ "op": "test", "path": path, "value": value }),
        json!({ "op": "remove", "path": path }),
    ]
}

/// The patch that renames the member at `from` (holding `value`) to `to` (same object).
pub fn rename_patch(from: &str, to: &str, value: &Value) -> Vec<Value> {
    vec![
        json!({ "op": "test", "path": from, "value": value }),
        json!({ "op": "move", "from": from, "path": to }),
    ]
}

/// Why a patch could not be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("patch operation {index} ({op}) failed: {reason}")]
pub struct PatchError {
    /// Which operation (from 0).
    pub index: usize,
    /// Its `op`.
    pub op: String,
    /// Why.
    pub reason: String,
}

/// Applies an RFC 6902 patch to `document`; on an error the document is left as it was.
///
/// # Errors
///
/// [`PatchError`] when an operation is malformed, its path does not exist, or a `test` fails.
///
/// ```
/// use serde_json::json;
/// let mut doc = json!({ "steps": [{ "type": "end" }] });
/// let patch = botmesh_flow_schema::rename_patch("/steps/0/type", "/steps/0/kind", &json!("end"));
/// botmesh_flow_schema::apply_patch(&mut doc, &patch)?;
/// assert_eq!(doc, json!({ "steps": [{ "kind": "end" }] }));
/// # Ok::<(), botmesh_flow_schema::PatchError>(())
/// ```
pub fn apply_patch(document: &mut Value, patch: &[Value]) -> Result<(), PatchError> {
    let mut work = document.clone();
    for (index, op) in patch.iter().enumerate() {
        let name = op
            .get("op")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let fail = |reason: &str| PatchError {
            index,
            op: name.clone(),
            reason: reason.to_owned(),
        };
        let path = op
            .get("path")
            .and_then(Value::as_str)
            .ok_or_else(|| fail("no path"))?;
        match name.as_str() {
            "test" => {
                let expected = op.get("value").ok_or_else(|| fail("no value"))?;
                if work.pointer(path) != Some(expected) {
                    return Err(fail("the document does not hold the tested value"));
                }
            }
            "replace" => {
                let value = op.get("value").ok_or_else(|| fail("no value"))?.clone();
                let slot = work.pointer_mut(path).ok_or_else(|| fail("no such path"))?;
                *slot = value;
            }
            "add" => {
                let value = op.get("value").ok_or_else(|| fail("no value"))?.clone();
                insert(&mut work, path, value).ok_or_else(|| fail("no such parent"))?;
            }
            "remove" => {
                take(&mut work, path).ok_or_else(|| fail("no such path"))?;
            }
            "move" => {
                let from = op
                    .get("from")
                    .and_then(Value::as_str)
                    .ok_or_else(|| fail("no from"))?;
                let value = take(&mut work, from).ok_or_else(|| fail("no such from path"))?;
                insert(&mut work, path, value).ok_or_else(|| fail("no such parent"))?;
            }
            _ => return Err(fail("unsupported operation")),
        }
    }
    *document = work;
    Ok(())
}

/// Splits a pointer into its parent and its last token (unescaped).
fn split(path: &str) -> Option<(&str, String)> {
    let at = path.rfind('/')?;
    Some((&path[..at], unescape_token(&path[at + 1..]).into_owned()))
}

fn insert(document: &mut Value, path: &str, value: Value) -> Option<()> {
    let (parent, token) = split(path)?;
    match document.pointer_mut(parent)? {
        Value::Object(map) => {
            map.insert(token, value);
        }
        Value::Array(items) => {
            if token == "-" {
                items.push(value);
            } else {
                let index: usize = token.parse().ok()?;
                if index > items.len() {
                    return None;
                }
                items.insert(index, value);
            }
        }
        _ => return None,
    }
    Some(())
}

fn take(document: &mut Value, path: &str) -> Option<Value> {
    let (parent, token) = split(path)?;
    match document.pointer_mut(parent)? {
        Value::Object(map) => map.remove(&token),
        Value::Array(items) => {
            let index: usize = token.parse().ok()?;
            (index < items.len()).then(|| items.remove(index))
        }
        _ => None,
    }
}

/// The first of `base_2`, `base_3`, … that `taken` refuses.
pub(crate) fn free_name(base: &str, taken: impl Fn(&str) -> bool) -> String {
    let mut n = 2;
    loop {
        let candidate = format!("{base}_{n}");
        if !taken(&candidate) {
            return candidate;
        }
        n += 1;
    }
}
