//! What the graph shows of a step and an edge: node labels, condition summaries, value
//! summaries, from the compiled steps.

use std::borrow::Cow;
use std::fmt::Write as _;

use botmesh_flow_schema::StepKind;
use botmesh_flow_schema::program::{Body, Cond, Edge, EdgeKind, Step};
use serde_json::Value;

/// Appends a compact rendering of a scalar or array value: strings quoted, the rest as JSON.
pub(crate) fn push_value_summary(out: &mut String, value: &Value) {
    match value {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_value_summary(out, item);
            }
            out.push(']');
        }
        // Writing to a `String` cannot fail.
        other => drop(write!(out, "{other}")),
    }
}

/// A one-line human summary of a branch condition, e.g. `age >= 18 and city in ["a", "b"]`.
pub(crate) fn condition_summary(condition: &Cond<'_>) -> String {
    let mut out = String::new();
    push_summary(&mut out, condition, false);
    out
}

/// Appends the summary of `condition`; a nested `all` or `any` of several parts is wrapped
/// in parentheses. The whole summary is written into one `String`.
fn push_summary(out: &mut String, condition: &Cond<'_>, nested: bool) {
    let (items, joiner) = match condition {
        Cond::All(items) => (items, " and "),
        Cond::Any(items) => (items, " or "),
        Cond::Not(inner) => {
            out.push_str("not ");
            push_summary(out, inner, true);
            return;
        }
        Cond::Leaf(leaf) => {
            let op = leaf.op.as_str();
            let symbol = match op {
                "eq" => "==",
                "ne" => "!=",
                "lt" => "<",
                "lte" => "<=",
                "gt" => ">",
                "gte" => ">=",
                other => other,
            };
            out.push_str(leaf.var);
            out.push(' ');
            out.push_str(symbol);
            if let Some(value) = leaf.value
                && op != "exists"
            {
                out.push(' ');
                push_value_summary(out, value);
            }
            return;
        }
    };
    if let [single] = items.as_slice() {
        push_summary(out, single, true);
        return;
    }
    if nested {
        out.push('(');
    }
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(joiner);
        }
        push_summary(out, item, true);
    }
    if nested {
        out.push(')');
    }
}

/// The label of an edge of `step`: a button or row title, a case's condition summary,
/// `default`, `retries exhausted`; none for the other kinds.
pub(crate) fn edge_label<'a>(step: &Step<'a>, edge: &Edge<'a>) -> Option<Cow<'a, str>> {
    match (&step.body, edge.kind) {
        (Body::Menu(menu), EdgeKind::Button | EdgeKind::Row) => menu
            .items
            .get(edge.index)
            .map(|item| Cow::Borrowed(item.title)),
        (Body::Branch { cases, .. }, EdgeKind::Case) => cases
            .get(edge.index)
            .map(|case| Cow::Owned(condition_summary(&case.when))),
        (_, EdgeKind::Default) => Some(Cow::Borrowed("default")),
        (_, EdgeKind::RetryExhausted) => Some(Cow::Borrowed("retries exhausted")),
        _ => None,
    }
}

/// The node label of a step: its main text, or a short description for steps without one.
pub(crate) fn step_label<'a>(step: &Step<'a>) -> Cow<'a, str> {
    let label = match &step.body {
        Body::Message { text } => Some(Cow::Borrowed(text.text)),
        // What the answer must be and where it goes, first (so a shortened label keeps them):
        // `date → birthday: When were you born?`, `text /^[0-9]{5}$/ → zip: Your ZIP code?`.
        Body::Ask(ask) => {
            let mut label = String::from(ask.input.as_str());
            if let Some(pattern) = ask.pattern {
                label.push_str(" /");
                label.push_str(pattern.text);
                label.push('/');
            }
            label.push_str(" → ");
            label.push_str(ask.save);
            label.push_str(": ");
            label.push_str(ask.text.text);
            Some(Cow::Owned(label))
        }
        // A menu that saves the pick shows where, as an action shows its result: `Size? → size`.
        Body::Menu(menu) => Some(match menu.save {
            Some(save) => Cow::Owned(format!("{} → {save}", menu.text.text)),
            None => Cow::Borrowed(menu.text.text),
        }),
        Body::Media {
            caption,
            filename,
            media,
            ..
        } => Some(Cow::Borrowed(
            caption
                .as_ref()
                .map(|c| c.text)
                .or(*filename)
                .unwrap_or(media),
        )),
        // The name, its language, then its parameters: `order_update (pt_BR): {{name}}, 3`.
        Body::Template {
            name,
            language,
            parameters,
        } => {
            let mut label = String::from(*name);
            label.push_str(" (");
            label.push_str(language);
            label.push(')');
            for (i, parameter) in parameters.iter().enumerate() {
                label.push_str(if i == 0 { ": " } else { ", " });
                label.push_str(parameter.text);
            }
            Some(Cow::Owned(label))
        }
        Body::Location {
            latitude,
            longitude,
            name,
            address,
        } => Some(match name.or(*address) {
            Some(text) => Cow::Borrowed(text),
            None => Cow::Owned(format!("{latitude}, {longitude}")),
        }),
        Body::Branch { .. } => None,
        Body::Set { var, raw, .. } => {
            let mut label = String::with_capacity(var.len() + 16);
            label.push_str(var);
            label.push_str(" = ");
            push_value_summary(&mut label, raw);
            Some(Cow::Owned(label))
        }
        Body::Delay { typing, raw, .. } => Some(Cow::Owned(if *typing {
            format!("{raw} s, typing")
        } else {
            format!("{raw} s")
        })),
        Body::Action { handler, save, .. } => Some(match save {
            Some(save) => Cow::Owned(format!("{handler} → {save}")),
            None => Cow::Borrowed(*handler),
        }),
        Body::Subflow { flow, .. } => Some(Cow::Borrowed(*flow)),
        Body::Closing { text, queue } => {
            let text = text.as_ref().map(|t| t.text);
            if step.kind == StepKind::Handoff {
                text.or(*queue).map(Cow::Borrowed)
            } else {
                text.map(Cow::Borrowed)
            }
        }
    };
    label.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use botmesh_flow_schema::program::{Body, Program};
    use serde_json::json;

    use super::*;

    #[test]
    fn labels_say_what_a_step_does() {
        let document = json!({"id": "f", "steps": [
            {"id": "l", "kind": "location", "latitude": 1, "longitude": 2},
            {"id": "a", "kind": "ask", "text": "Born?", "save": "fecha", "input": "date"},
            {"id": "b", "kind": "ask", "text": "ZIP?", "save": "zip", "pattern": "^[0-9]{5}$"},
            {"id": "c", "kind": "ask", "text": "Name?", "save": "name"},
            {"id": "d", "kind": "template", "name": "promo", "language": "es",
             "parameters": ["{{name}}", "10%"]},
            {"id": "e", "kind": "template", "name": "hello", "language": "en"},
            {"id": "g", "kind": "action", "handler": "crm.find", "save": "customer"},
            {"id": "h", "kind": "delay", "seconds": 2.0, "typing": true},
            {"id": "i", "kind": "set", "var": "x", "value": "a\"b"},
            {"id": "j", "kind": "handoff", "queue": "sales"},
            {"id": "k", "kind": "end"}
        ]});
        let program = Program::compile(&[&document]);
        let labels: Vec<_> = program.flows[0].steps.iter().map(step_label).collect();
        assert_eq!(
            labels,
            [
                "1, 2",
                "date → fecha: Born?",
                "text /^[0-9]{5}$/ → zip: ZIP?",
                "text → name: Name?",
                "promo (es): {{name}}, 10%",
                "hello (en)",
                "crm.find → customer",
                "2.0 s, typing",
                "x = \"a\\\"b\"",
                "sales",
                "",
            ]
        );
    }

    #[test]
    fn condition_summaries_nest_with_parentheses() {
        let document = json!({"id": "f", "steps": [{"id": "b", "kind": "branch", "cases": [
            {"when": {"any": [
                {"var": "age", "op": "gte", "value": 18},
                {"all": [{"var": "x", "op": "exists"}, {"not": {"var": "c", "op": "in", "value": ["a", 1]}}]}
            ]}, "next": "b"},
            {"when": {"all": [{"any": []}, {"all": [{"op": "exists", "var": "y"}]}, {"var": "z", "op": "in", "value": [[], "q\"", null]}]}, "next": "b"},
            {"when": {"all": []}, "next": "b"}
        ]}]});
        let program = Program::compile(&[&document]);
        let Body::Branch { cases, .. } = &program.flows[0].steps[0].body else {
            panic!("a branch")
        };
        let summaries: Vec<String> = cases.iter().map(|c| condition_summary(&c.when)).collect();
        assert_eq!(
            summaries,
            [
                r#"age >= 18 or (x exists and not c in ["a", 1])"#,
                r#"() and y exists and z in [[], "q\"", null]"#,
                "",
            ]
        );
    }
}
