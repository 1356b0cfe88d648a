//! Shrinking a failing case: delete subflows, steps, fields, array items, replies, mocks and
//! initial variables, unwrap `not`/`all`/`any`, and cut texts down to their placeholders, one
//! edit at a time, keeping each edit after which the set is still valid and the failure still
//! happens (greedy, to a fixed point or a budget of tries).

use serde_json::Value;

use crate::oracle::{Run, compile, placeholders};

/// A set and one run of it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Case {
    /// The document, then its subflows.
    pub(crate) docs: Vec<Value>,
    /// The run.
    pub(crate) run: Run,
}

/// The most edits tried while shrinking one case.
const TRIES: usize = 2_500;

/// The smallest case reached from `case` by edits that keep `fails` true.
pub(crate) fn shrink(mut case: Case, fails: &dyn Fn(&Case) -> bool) -> Case {
    let mut tries = 0;
    'again: loop {
        for candidate in candidates(&case) {
            if tries == TRIES {
                break 'again;
            }
            tries += 1;
            if compile(&candidate.docs).is_some() && fails(&candidate) {
                case = candidate;
                continue 'again;
            }
        }
        break;
    }
    case
}

/// Every case one edit smaller than `case`, the largest edits first.
fn candidates(case: &Case) -> Vec<Case> {
    let mut out = Vec::new();
    let with_docs = |docs: Vec<Value>| Case {
        docs,
        run: case.run.clone(),
    };
    let with_run = |run: Run| Case {
        docs: case.docs.clone(),
        run,
    };
    for index in 1..case.docs.len() {
        let mut docs = case.docs.clone();
        docs.remove(index);
        out.push(with_docs(docs));
    }
    for (f, doc) in case.docs.iter().enumerate() {
        let count = doc["steps"].as_array().map_or(0, Vec::len);
        for s in (0..count).filter(|_| count > 1) {
            let mut docs = case.docs.clone();
            remove_step(&mut docs[f], s);
            out.push(with_docs(docs));
        }
    }
    let run = &case.run;
    if run.start.is_some() {
        out.push(with_run(Run {
            start: None,
            ..run.clone()
        }));
    }
    if run.replies.len() > 1 {
        let mut shorter = run.clone();
        shorter.replies.truncate(run.replies.len() / 2);
        out.push(with_run(shorter));
    }
    for i in 0..run.replies.len() {
        let mut shorter = run.clone();
        shorter.replies.remove(i);
        out.push(with_run(shorter));
    }
    for key in run.variables.keys() {
        let mut fewer = run.clone();
        fewer.variables.remove(key);
        out.push(with_run(fewer));
    }
    for key in run.handlers.keys() {
        let mut fewer = run.clone();
        fewer.handlers.remove(key);
        out.push(with_run(fewer));
    }
    let mut edits = Vec::new();
    for (f, doc) in case.docs.iter().enumerate() {
        for key in ["metadata", "trigger", "variables"] {
            if let Some(value) = doc.get(key) {
                edits.push((f, format!("/{key}"), None));
                nodes(value, &format!("/{key}"), &mut edits, f);
            }
        }
        for (s, step) in doc["steps"].as_array().into_iter().flatten().enumerate() {
            let Value::Object(fields) = step else {
                continue;
            };
            for (key, value) in fields {
                if key == "id" || key == "kind" {
                    continue;
                }
                let pointer = format!("/steps/{s}/{key}");
                edits.push((f, pointer.clone(), None));
                nodes(value, &pointer, &mut edits, f);
            }
        }
    }
    for (f, pointer, replacement) in edits {
        let mut docs = case.docs.clone();
        let done = match replacement {
            None => remove(&mut docs[f], &pointer),
            Some(value) => docs[f]
                .pointer_mut(&pointer)
                .map(|slot| *slot = value)
                .is_some(),
        };
        if done {
            out.push(with_docs(docs));
        }
    }
    out
}

type Edit = (usize, String, Option<Value>);

/// The edits inside `value` at `pointer` of document `f`: remove each member and item, unwrap
/// conditions, cut texts.
fn nodes(value: &Value, pointer: &str, edits: &mut Vec<Edit>, f: usize) {
    match value {
        Value::Object(map) => {
            for (key, child) in ["not", "all", "any"]
                .iter()
                .filter_map(|k| map.get(*k).map(|c| (*k, c)))
            {
                match (key, child) {
                    ("not", _) => edits.push((f, pointer.to_owned(), Some(child.clone()))),
                    (_, Value::Array(children)) => {
                        for c in children {
                            edits.push((f, pointer.to_owned(), Some(c.clone())));
                        }
                    }
                    _ => {}
                }
            }
            for (key, child) in map {
                let inner = format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
                edits.push((f, inner.clone(), None));
                nodes(child, &inner, edits, f);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                let inner = format!("{pointer}/{i}");
                edits.push((f, inner.clone(), None));
                nodes(child, &inner, edits, f);
            }
        }
        Value::String(text) if text.chars().count() > 1 => {
            let only: Vec<&str> = placeholders(text)
                .iter()
                .map(|(start, end, _)| &text[*start..*end])
                .collect();
            let only = only.join(" ");
            if !only.is_empty() && only != *text {
                edits.push((f, pointer.to_owned(), Some(Value::String(only))));
            }
            let chars: Vec<char> = text.chars().collect();
            let half = chars.len() / 2;
            for kept in [&chars[half..], &chars[..half]] {
                edits.push((
                    f,
                    pointer.to_owned(),
                    Some(Value::String(kept.iter().collect())),
                ));
            }
        }
        _ => {}
    }
}

/// Removes the member or item at `pointer`; false when there is none.
fn remove(doc: &mut Value, pointer: &str) -> bool {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return false;
    };
    let last = last.replace("~1", "/").replace("~0", "~");
    match doc.pointer_mut(parent) {
        Some(Value::Object(map)) => map.remove(&last).is_some(),
        Some(Value::Array(items)) => match last.parse::<usize>() {
            Ok(i) if i < items.len() => {
                items.remove(i);
                true
            }
            _ => false,
        },
        _ => false,
    }
}

/// Removes step `s`; what named it names its successor instead (or nothing, when it had none).
fn remove_step(doc: &mut Value, s: usize) {
    let Some(steps) = doc["steps"].as_array_mut() else {
        return;
    };
    let removed = steps.remove(s);
    let successor = removed
        .get("next")
        .cloned()
        .or_else(|| steps.get(s).map(|x| x["id"].clone()));
    let old = &removed["id"];
    for step in steps.iter_mut() {
        match &successor {
            Some(successor) if successor != old => {
                crate::classify::retarget(step, old, successor);
            }
            _ => {
                for key in ["next", "onFail", "default"] {
                    if step.get(key) == Some(old) {
                        step.as_object_mut().map(|m| m.remove(key));
                    }
                }
            }
        }
    }
}
