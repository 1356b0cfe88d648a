//! Why lint missed a read: each class is decided by a counterfactual, an edit of the set that
//! does not change what the runtime does at that read but spells it the way lint is sure to
//! understand; when lint then reports the read, the edit names the class.
//!
//! 1. **placeholder spelling**: the step's texts rewritten so each placeholder (runtime §5) is
//!    exactly `{{v}}`, with no brace beside it (`{{ total }}`, `{{{x}}}`, `{{ {{x}} }}`).
//! 2. **interpolated field**: a `message` step whose text is `{{v}}`, inserted just before the
//!    step (every edge into the step goes to it): lint reports the probe but not the step, so
//!    it does not read the field (`action.args`, `set.value`, `ask.retryText`, …).
//! 3. Otherwise lint thinks the variable is written on every path to the step (dataflow); on
//!    the set with the probe:
//!    - **ask exhausted without onFail**: every `ask` without `onFail` given `onFail` = its
//!      successor (what the runtime does anyway when retries run out);
//!    - **null set**: the run read a null a `set` wrote (no edit spells that otherwise);
//!    - **declaration**: the variable's declarations removed;
//!    - **entry flow**: the flow the run started in (or the read's flow), an entry, moved to
//!      the front of the set;
//!    - **other**: none of these (the example says more).

use serde_json::{Value, json};

use crate::oracle::{Lint, Missing, Read, Run, interpolated, is_entry, placeholders, start_flow};

/// What lint got wrong about one read.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Class {
    /// The read is spelled in a way lint does not take for a placeholder; the kind of spelling.
    Spelling(&'static str),
    /// Lint does not read the field(s) holding the read.
    Field(String),
    /// An `ask` without `onFail` ran out of retries and went on with `save` unwritten.
    AskExhausted,
    /// A declaration counted as a write: how (see [`Class::label`]).
    Declared(&'static str),
    /// A null the document wrote (`set` to null) counted as a value.
    NullSet,
    /// A flow that is an entry was not analyzed as one.
    Entry,
    /// None of the above.
    Other,
}

impl Class {
    /// One line for the report.
    pub(crate) fn label(&self) -> String {
        match self {
            Class::Spelling(kind) => format!("placeholder spelling: {kind}"),
            Class::Field(fields) => format!("interpolated field lint does not read: {fields}"),
            Class::AskExhausted => "ask exhausted without onFail (save left unwritten)".to_owned(),
            Class::Declared(kind) => format!("declaration counted as a write: {kind}"),
            Class::NullSet => {
                "a null written by set (it reads as unset) counted as a value".to_owned()
            }
            Class::Entry => "entry flow analyzed as a subflow".to_owned(),
            Class::Other => "other dataflow".to_owned(),
        }
    }
}

/// True when lint on `docs` reports `var` at `step` of `flow`.
fn reports(docs: &[Value], flow: &str, step: &str, var: &str) -> bool {
    let lint = Lint::of(docs);
    lint.valid
        && lint
            .unset_places()
            .contains(&(flow.to_owned(), step.to_owned(), var.to_owned()))
}

/// The index of flow `flow` and of its step `step`.
fn locate(docs: &[Value], flow: &str, step: &str) -> Option<(usize, usize)> {
    let f = docs.iter().position(|d| d["id"] == flow)?;
    let s = docs[f]["steps"]
        .as_array()?
        .iter()
        .position(|x| x["id"] == step)?;
    Some((f, s))
}

/// Classifies a read lint did not report.
pub(crate) fn classify(docs: &[Value], run: &Run, read: &Read) -> Class {
    let Some((f, s)) = locate(docs, &read.flow, &read.step) else {
        return Class::Other;
    };
    // 1. Spelling.
    let mut spelled = docs.to_vec();
    let mut kinds = Vec::new();
    for (pointer, _, text) in interpolated(&docs[f]["steps"][s]) {
        let clean = canonical(&text, &read.var, &mut kinds);
        if clean != text
            && let Some(slot) = spelled[f]["steps"][s].pointer_mut(&pointer)
        {
            *slot = json!(clean);
        }
    }
    if spelled != docs && reports(&spelled, &read.flow, &read.step, &read.var) {
        return Class::Spelling(
            kinds
                .first()
                .copied()
                .unwrap_or("braces in the text around it"),
        );
    }
    // 2. Field.
    let (probed, probe) = with_probe(docs, f, s, &read.var);
    if !reports(&probed, &read.flow, &probe, &read.var) {
        return dataflow(&probed, run, read, &probe);
    }
    let mut fields: Vec<String> = interpolated(&docs[f]["steps"][s])
        .into_iter()
        .filter(|(_, _, text)| placeholders(text).iter().any(|p| p.2 == read.var))
        .map(|(_, name, _)| name)
        .collect();
    fields.dedup();
    Class::Field(fields.join(", "))
}

fn dataflow(probed: &[Value], run: &Run, read: &Read, probe: &str) -> Class {
    let flagged = |docs: &[Value]| reports(docs, &read.flow, probe, &read.var);
    // Ask exhausted: onFail = successor, as the runtime goes anyway; an ask that is the last
    // step gets an `end` appended (an `end` without text is what falling off the end does).
    let mut asks = probed.to_vec();
    for doc in &mut asks {
        let Some(steps) = doc["steps"].as_array_mut() else {
            continue;
        };
        let ids: Vec<Value> = steps.iter().map(|s| s["id"].clone()).collect();
        let end = (1..)
            .map(|n| json!(format!("probe_end{n}")))
            .find(|id| !ids.contains(id))
            .unwrap_or_default();
        let mut ends = false;
        for (i, step) in steps.iter_mut().enumerate() {
            if step["kind"] != "ask" || step.get("onFail").is_some() {
                continue;
            }
            let successor = step
                .get("next")
                .cloned()
                .or_else(|| ids.get(i + 1).cloned());
            step["onFail"] = successor.unwrap_or_else(|| {
                ends = true;
                end.clone()
            });
        }
        if ends {
            steps.push(json!({ "id": end, "kind": "end" }));
        }
    }
    if asks != probed && flagged(&asks) {
        return Class::AskExhausted;
    }
    // Declarations.
    let mut undeclared = probed.to_vec();
    let mut had_default = false;
    for doc in &mut undeclared {
        if let Some(Value::Object(variables)) = doc.get_mut("variables")
            && let Some(declaration) = variables.remove(&read.var)
        {
            had_default |= declaration.get("default").is_some();
            if variables.is_empty() {
                doc.as_object_mut().map(|d| d.remove("variables"));
            }
        }
    }
    if read.missing == Missing::NullSet {
        // No edit spells a null otherwise; lint must take `set` to null for a clear, also
        // through a subflow's return and past a declaration's default (runtime §1, §6).
        return Class::NullSet;
    }
    if undeclared != probed && flagged(&undeclared) {
        return Class::Declared(if had_default {
            "a default, where the declaring flow was not entered yet"
        } else {
            "a declaration without default"
        });
    }
    // Entry flows.
    let result = crate::oracle::simulate_docs(probed, run);
    let started = result.and_then(|r| start_flow(probed, run, &r));
    for flow in started
        .iter()
        .map(String::as_str)
        .chain([read.flow.as_str()])
    {
        let Some(index) = probed.iter().position(|d| d["id"] == flow) else {
            continue;
        };
        if index == 0 || !is_entry(probed, flow) {
            continue;
        }
        let mut moved = probed.to_vec();
        let first = moved.remove(index);
        moved.insert(0, first);
        if flagged(&moved) {
            return Class::Entry;
        }
    }
    Class::Other
}

/// `text` with every placeholder (runtime §5) written `{{name}}` and every other brace made a
/// parenthesis; adds to `kinds` how the reads of `var` were spelled when that was not already
/// so.
fn canonical(text: &str, var: &str, kinds: &mut Vec<&'static str>) -> String {
    let literal = |part: &str| part.replace('{', "(").replace('}', ")");
    let mut out = String::new();
    let mut copied = 0;
    for (start, end, name) in placeholders(text) {
        let before = &text[copied..start];
        out.push_str(&literal(before));
        out.push_str(&format!("{{{{{name}}}}}"));
        if name == var {
            if text[start..end].contains(' ') {
                kinds.push("spaces inside the braces ({{ x }})");
            } else if before.contains("{{") {
                kinds.push(
                    "a `{{` before it that lint closes with its `}}` ({{a{{x}}, {{ {{x}} }})",
                );
            } else if before.ends_with('{') || text[end..].starts_with('}') {
                kinds.push("a brace beside it ({{{x}}}, {{{x}})");
            }
        }
        copied = end;
    }
    out.push_str(&literal(&text[copied..]));
    out
}

/// `docs` with a `message` step whose text is `{{var}}` inserted before step `s` of flow `f`,
/// every reference to that step moved to it; and the probe's id.
pub(crate) fn with_probe(docs: &[Value], f: usize, s: usize, var: &str) -> (Vec<Value>, String) {
    let mut docs = docs.to_vec();
    let steps = docs[f]["steps"].as_array().cloned().unwrap_or_default();
    let old = steps[s]["id"].clone();
    let probe = (1..)
        .map(|n| format!("probe{n}"))
        .find(|id| steps.iter().all(|x| x["id"] != id.as_str()))
        .unwrap_or_default();
    let mut steps = steps;
    for step in &mut steps {
        retarget(step, &old, &json!(probe));
    }
    steps.insert(
        s,
        json!({ "id": probe, "kind": "message", "text": format!("{{{{{var}}}}}"), "next": old }),
    );
    docs[f]["steps"] = Value::Array(steps);
    (docs, probe)
}

/// Moves every reference of `step` to `from` (next, onFail, default, cases, buttons, rows) to
/// `to`.
pub(crate) fn retarget(step: &mut Value, from: &Value, to: &Value) {
    for key in ["next", "onFail", "default"] {
        if step.get(key) == Some(from) {
            step[key] = to.clone();
        }
    }
    let Value::Object(fields) = step else {
        return;
    };
    let mut items: Vec<&mut Value> = Vec::new();
    for (key, value) in fields.iter_mut() {
        let Value::Array(list) = value else {
            continue;
        };
        match key.as_str() {
            "cases" | "buttons" => items.extend(list.iter_mut()),
            "sections" => {
                for section in list {
                    if let Some(Value::Array(rows)) = section.get_mut("rows") {
                        items.extend(rows.iter_mut());
                    }
                }
            }
            _ => {}
        }
    }
    for item in items {
        if item.get("next") == Some(from) {
            item["next"] = to.clone();
        }
    }
}
