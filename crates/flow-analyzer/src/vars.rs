//! Where each flow reads and writes variables, and its malformed placeholders.
//!
//! Locations are kept as a [`Site`] and turned into a JSON Pointer only when a diagnostic
//! needs one: most uses never get reported, and building every pointer up front dominated the
//! cost of linting.

use serde_json::Value;

use crate::flow::{Flow, Key, Kind};
use crate::text::{Placeholder, find_pair, placeholders};
use rustc_hash::FxHashSet;

/// Where in a step a variable is used.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Site<'a> {
    /// A top-level field of the step (`text`, `caption`, `value`, `save`, `var`).
    Field(&'static str),
    /// `parameters/N` of a template.
    Parameter(usize),
    /// The `var` of a leaf condition inside `cases/N/when`.
    Condition { case: usize, leaf: &'a Value },
}

impl Site<'_> {
    /// The RFC 6901 pointer of this site in step `step` of `flow`.
    pub(crate) fn pointer(self, flow: &Flow<'_>, step: usize) -> String {
        match self {
            Self::Field(key) => format!("/steps/{step}/{key}"),
            Self::Parameter(i) => format!("/steps/{step}/parameters/{i}"),
            Self::Condition { case, leaf } => {
                let mut path = format!("/steps/{step}/cases/{case}/when");
                let root = flow
                    .steps
                    .get(step)
                    .and_then(|s| s.value.get("cases"))
                    .and_then(|c| c.get(case))
                    .and_then(|c| c.get("when"));
                if let Some(root) = root {
                    find_leaf(root, leaf, &mut path);
                }
                path.push_str("/var");
                path
            }
        }
    }
}

/// Appends to `path` the pointer from `node` down to `leaf` (found by identity).
fn find_leaf(node: &Value, leaf: &Value, path: &mut String) -> bool {
    if std::ptr::eq(node, leaf) {
        return true;
    }
    let base = path.len();
    for key in ["all", "any"] {
        if let Some(items) = node.get(key).and_then(Value::as_array) {
            for (i, item) in items.iter().enumerate() {
                path.push_str(&format!("/{key}/{i}"));
                if find_leaf(item, leaf, path) {
                    return true;
                }
                path.truncate(base);
            }
        }
    }
    if let Some(inner) = node.get("not") {
        path.push_str("/not");
        if find_leaf(inner, leaf, path) {
            return true;
        }
        path.truncate(base);
    }
    false
}

/// One read or write of a variable.
#[derive(Debug, Clone)]
pub(crate) struct Use<'a> {
    pub(crate) name: &'a str,
    pub(crate) step: usize,
    pub(crate) site: Site<'a>,
}

/// One malformed placeholder.
#[derive(Debug, Clone)]
pub(crate) struct BadPlaceholder<'a> {
    pub(crate) step: usize,
    pub(crate) site: Site<'a>,
    pub(crate) problem: Placeholder<'a>,
}

/// Every variable use of one flow, in document order. A name read twice in the same text is
/// recorded once.
#[derive(Debug, Default)]
pub(crate) struct Uses<'a> {
    pub(crate) reads: Vec<Use<'a>>,
    pub(crate) writes: Vec<Use<'a>>,
    pub(crate) malformed: Vec<BadPlaceholder<'a>>,
    /// The names of `reads`, sorted, unique.
    pub(crate) read_names: Vec<&'a str>,
    /// The names of `writes`, sorted, unique.
    pub(crate) write_names: Vec<&'a str>,
}

/// Collects the reads (conditions, placeholders of interpolated texts) and writes (`save`,
/// `set.var`) of a flow.
pub(crate) fn collect<'a>(flow: &Flow<'a>) -> Uses<'a> {
    let mut uses = Uses::default();
    for (index, step) in flow.steps.iter().enumerate() {
        let mut scan = |text: Option<&'a Value>, site: Site<'a>| {
            let Some(text) = text.and_then(Value::as_str) else {
                return;
            };
            if find_pair(text, 0, *b"{{").is_none() {
                return;
            }
            // A name read twice in the same text is recorded once. Texts hold few
            // placeholders: look back over this text's reads, and only past a handful build a
            // set (no allocation per text, no quadratic corner).
            let first = uses.reads.len();
            let mut seen: Option<FxHashSet<&str>> = None;
            for found in placeholders(text) {
                match found {
                    Placeholder::Name(name) => {
                        let fresh = match &mut seen {
                            Some(set) => set.insert(name),
                            None => {
                                let earlier = &uses.reads[first..];
                                if earlier.len() < 8 {
                                    !earlier.iter().any(|u| u.name == name)
                                } else {
                                    let set = seen.insert(earlier.iter().map(|u| u.name).collect());
                                    set.insert(name)
                                }
                            }
                        };
                        if fresh {
                            uses.reads.push(Use {
                                name,
                                step: index,
                                site,
                            });
                        }
                    }
                    problem => uses.malformed.push(BadPlaceholder {
                        step: index,
                        site,
                        problem,
                    }),
                }
            }
        };
        match step.kind {
            Kind::Message | Kind::Buttons | Kind::List | Kind::Ask | Kind::Handoff | Kind::End => {
                scan(step.field(Key::Text), Site::Field("text"));
            }
            Kind::Media => scan(step.field(Key::Caption), Site::Field("caption")),
            Kind::Set => scan(step.field(Key::Value), Site::Field("value")),
            Kind::Template => {
                if let Some(parameters) = step.field(Key::Parameters).and_then(Value::as_array) {
                    for (i, parameter) in parameters.iter().enumerate() {
                        scan(Some(parameter), Site::Parameter(i));
                    }
                }
            }
            _ => {}
        }
        if step.kind == Kind::Branch
            && let Some(cases) = step.field(Key::Cases).and_then(Value::as_array)
        {
            for (case, value) in cases.iter().enumerate() {
                if let Some(when) = value.get("when") {
                    condition_reads(when, case, index, &mut uses);
                }
            }
        }
        let written = match step.kind {
            Kind::Ask | Kind::Action | Kind::Buttons | Kind::List => Some(Key::Save),
            Kind::Set => Some(Key::Var),
            _ => None,
        };
        if let Some(key) = written
            && let Some(name) = step.str_field(key)
        {
            uses.writes.push(Use {
                name,
                step: index,
                site: Site::Field(key.as_str()),
            });
        }
    }
    // Sorted now, while the names are in cache: the graph lists them, and lint compares
    // these few names across the set instead of every use.
    uses.read_names = sorted_names(&uses.reads);
    uses.write_names = sorted_names(&uses.writes);
    uses
}

/// The names of `uses`, sorted, unique. A flow uses a few names many times: drop the repeats
/// first (a hash each), then sort the few left (a sort of every use was most of the cost).
fn sorted_names<'a>(uses: &[Use<'a>]) -> Vec<&'a str> {
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    let mut names: Vec<&'a str> = uses
        .iter()
        .map(|u| u.name)
        .filter(|n| seen.insert(n))
        .collect();
    names.sort_unstable();
    names
}

fn condition_reads<'a>(condition: &'a Value, case: usize, step: usize, uses: &mut Uses<'a>) {
    // The reads keep the order `all`, `any`, `not`, then the leaf's `var`.
    let crate::text::ConditionKeys {
        all, any, not, var, ..
    } = crate::text::ConditionKeys::of(condition);
    for items in [all, any].into_iter().flatten().filter_map(Value::as_array) {
        for item in items {
            condition_reads(item, case, step, uses);
        }
    }
    if let Some(inner) = not {
        condition_reads(inner, case, step, uses);
    }
    if let Some(name) = var.and_then(Value::as_str) {
        let site = Site::Condition {
            case,
            leaf: condition,
        };
        uses.reads.push(Use { name, step, site });
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::collect;
    use crate::flow::compile_flow;

    fn reads_of(text: &str) -> Vec<String> {
        let document = json!({"id": "f", "steps": [
            {"id": "a", "kind": "message", "text": text},
            {"id": "b", "kind": "message", "text": "{{x}} again"}
        ]});
        let flow = compile_flow(&document);
        collect(&flow)
            .reads
            .iter()
            .map(|u| format!("{}@{}", u.name, u.step))
            .collect()
    }

    #[test]
    fn a_name_is_read_once_per_text_however_many_placeholders_it_has() {
        assert_eq!(reads_of("{{x}} {{y}} {{x}}"), ["x@0", "y@0", "x@1"]);
        // Past a handful of names the look-back becomes a set: same result.
        let names: Vec<String> = (0..12).map(|i| format!("v{i}")).collect();
        let text: String = names
            .iter()
            .chain(&names)
            .map(|n| format!("{{{{{n}}}}} "))
            .collect();
        let mut expected: Vec<String> = names.iter().map(|n| format!("{n}@0")).collect();
        expected.push("x@1".to_owned());
        assert_eq!(reads_of(&text), expected);
    }
}
