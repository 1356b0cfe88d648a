//! Where each flow reads and writes variables, and its malformed placeholders.

use serde_json::Value;

use crate::flow::{Flow, Kind};
use crate::text::{Placeholder, placeholders, pointer_token};

/// One read or write of a variable.
#[derive(Debug, Clone)]
pub(crate) struct Use<'a> {
    pub(crate) name: &'a str,
    pub(crate) step: usize,
    pub(crate) path: String,
}

/// One malformed placeholder.
#[derive(Debug, Clone)]
pub(crate) struct BadPlaceholder<'a> {
    pub(crate) step: usize,
    pub(crate) path: String,
    pub(crate) problem: Placeholder<'a>,
}

/// Every variable use of one flow, in document order.
#[derive(Debug, Default)]
pub(crate) struct Uses<'a> {
    pub(crate) reads: Vec<Use<'a>>,
    pub(crate) writes: Vec<Use<'a>>,
    pub(crate) malformed: Vec<BadPlaceholder<'a>>,
}

/// Collects the reads (conditions, placeholders of interpolated texts) and writes (`save`,
/// `set.var`) of a flow.
pub(crate) fn collect<'a>(flow: &Flow<'a>) -> Uses<'a> {
    let mut uses = Uses::default();
    for (index, step) in flow.steps.iter().enumerate() {
        let base = || format!("/steps/{index}");
        // Paths are built only when a text holds a placeholder.
        let mut scan = |text: &'a Value, path: &dyn Fn() -> String| {
            let Some(text) = text.as_str() else { return };
            if !text.contains("{{") {
                return;
            }
            let path = path();
            for found in placeholders(text) {
                match found {
                    Placeholder::Name(name) => uses.reads.push(Use {
                        name,
                        step: index,
                        path: path.clone(),
                    }),
                    problem => uses.malformed.push(BadPlaceholder {
                        step: index,
                        path: path.clone(),
                        problem,
                    }),
                }
            }
        };
        let field = |key: &'static str| {
            step.value
                .get(key)
                .map(|v| (v, move || format!("/steps/{index}/{key}")))
        };
        match step.kind {
            Kind::Message | Kind::Buttons | Kind::List | Kind::Ask | Kind::Handoff | Kind::End => {
                if let Some((value, path)) = field("text") {
                    scan(value, &path);
                }
            }
            Kind::Media => {
                if let Some((value, path)) = field("caption") {
                    scan(value, &path);
                }
            }
            Kind::Template => {
                if let Some(parameters) = step.value.get("parameters").and_then(Value::as_array) {
                    for (i, parameter) in parameters.iter().enumerate() {
                        scan(parameter, &|| format!("/steps/{index}/parameters/{i}"));
                    }
                }
            }
            Kind::Set => {
                if let Some((value, path)) = field("value") {
                    scan(value, &path);
                }
            }
            _ => {}
        }
        if step.kind == Kind::Branch
            && let Some(cases) = step.value.get("cases").and_then(Value::as_array)
        {
            for (i, case) in cases.iter().enumerate() {
                if let Some(when) = case.get("when") {
                    condition_reads(
                        when,
                        &format!("{}/cases/{i}/when", base()),
                        index,
                        &mut uses,
                    );
                }
            }
        }
        let written = match step.kind {
            Kind::Ask | Kind::Action => Some("save"),
            Kind::Set => Some("var"),
            _ => None,
        };
        if let Some(key) = written
            && let Some(name) = step.str_field(key)
        {
            uses.writes.push(Use {
                name,
                step: index,
                path: format!("{}/{key}", base()),
            });
        }
    }
    uses
}

fn condition_reads<'a>(condition: &'a Value, path: &str, step: usize, uses: &mut Uses<'a>) {
    for key in ["all", "any"] {
        if let Some(items) = condition.get(key).and_then(Value::as_array) {
            for (i, item) in items.iter().enumerate() {
                condition_reads(item, &format!("{path}/{key}/{i}"), step, uses);
            }
        }
    }
    if let Some(inner) = condition.get("not") {
        condition_reads(inner, &format!("{path}/not"), step, uses);
    }
    if let Some(name) = condition.get("var").and_then(Value::as_str) {
        uses.reads.push(Use {
            name,
            step,
            path: format!("{path}/{}", pointer_token("var")),
        });
    }
}
