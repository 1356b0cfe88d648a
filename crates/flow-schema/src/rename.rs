//! Where a document names its variables, and the patch that lower-cases the names written with
//! capitals (the 2023 dashboard's `Invoice`) everywhere they are named: migration applies it
//! (spec §4), validation offers it as the fix of a variable name with capitals.
//!
//! A variable is named by a write (an `ask`'s `save`, or version 1's `variable`; a menu's or an
//! `action`'s `save`; a `set`'s `var`), by the `var` of a branch condition's leaf (under `cases`,
//! or version 1's `conditions`), by a placeholder of an interpolated field (the compiled form's
//! [`crate::program::Step::for_each_text`], scanned by the one placeholder scanner: a `{{invoice}}`, and a
//! `{{Invoice}}` that is only no placeholder because of its capitals,
//! [`crate::program::capital_holes`]), and by a declaration under `variables`.
//!
//! A name with capitals is lower-cased only when that gives a variable name nothing else in the
//! document is called: not a built-in, not a name any place uses, not what another name with
//! capitals lower-cases to. Otherwise it clashes, and is left for the author.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::limits::{BUILT_IN_VARIABLES, MAX_CONDITION_DEPTH};
use crate::pointer::push_token;
use crate::program::{Program, capital_holes, holes, lower_cased};

/// How a place names a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Use {
    /// A step writes it.
    Write,
    /// A branch condition reads it.
    Condition,
    /// A placeholder of an interpolated field reads it.
    Placeholder,
    /// `variables` declares it.
    Declaration,
}

/// One place that names a variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    /// The pointer of the value that holds the name (for a placeholder, its whole text; for a
    /// declaration, the declaration under `/variables`).
    pub pointer: String,
    /// The step it is in (none for a declaration).
    pub step: Option<usize>,
    /// The name as written.
    pub name: String,
    /// How it names it.
    pub kind: Use,
}

/// Every place of `document` (version 1 or 2) that names a variable, in document order: step by
/// step (writes and conditions, then placeholders), then the declarations.
pub(crate) fn places(document: &Value) -> Vec<Place> {
    let mut places = Vec::new();
    let steps = document.get("steps").and_then(Value::as_array);
    for (index, step) in steps.into_iter().flatten().enumerate() {
        let Value::Object(step) = step else {
            continue;
        };
        let kind = step.get("kind").and_then(Value::as_str).unwrap_or_default();
        let keys: &[&str] = match kind {
            "ask" => &["variable", "save"],
            "buttons" | "list" | "action" => &["save"],
            "set" => &["var"],
            "branch" => &["conditions", "cases"],
            _ => &[],
        };
        let base = format!("/steps/{index}");
        for (key, value) in step {
            if !keys.contains(&key.as_str()) {
                continue;
            }
            let mut pointer = base.clone();
            push_token(&mut pointer, key);
            if key == "conditions" || key == "cases" {
                for (c, case) in value.as_array().into_iter().flatten().enumerate() {
                    if let Some(when) = case.get("when") {
                        let pointer = format!("{pointer}/{c}/when");
                        conditions(when, 1, pointer, index, &mut places);
                    }
                }
            } else if let Some(name) = value.as_str() {
                places.push(Place {
                    pointer,
                    step: Some(index),
                    name: name.to_owned(),
                    kind: Use::Write,
                });
            }
        }
    }
    // Then each step's placeholders after its writes and conditions (a stable sort).
    placeholders(document, &mut places);
    places.sort_by_key(|place| place.step);
    if let Some(Value::Object(variables)) = document.get("variables") {
        for name in variables.keys() {
            let mut pointer = "/variables".to_owned();
            push_token(&mut pointer, name);
            places.push(Place {
                pointer,
                step: None,
                name: name.clone(),
                kind: Use::Declaration,
            });
        }
    }
    places
}

/// The `var` of every leaf of a condition, down to the deepest level a valid condition has.
fn conditions(
    condition: &Value,
    depth: usize,
    pointer: String,
    step: usize,
    places: &mut Vec<Place>,
) {
    let Value::Object(condition) = condition else {
        return;
    };
    if depth > MAX_CONDITION_DEPTH {
        return;
    }
    for (key, value) in condition {
        match key.as_str() {
            "var" => {
                if let Some(name) = value.as_str() {
                    places.push(Place {
                        pointer: format!("{pointer}/var"),
                        step: Some(step),
                        name: name.to_owned(),
                        kind: Use::Condition,
                    });
                }
            }
            "all" | "any" => {
                for (i, child) in value.as_array().into_iter().flatten().enumerate() {
                    conditions(
                        child,
                        depth + 1,
                        format!("{pointer}/{key}/{i}"),
                        step,
                        places,
                    );
                }
            }
            "not" => conditions(value, depth + 1, format!("{pointer}/not"), step, places),
            _ => {}
        }
    }
}

/// The placeholders of every interpolated field, as the compiled form finds them (a document
/// that does not validate compiles too), each with its field's pointer.
fn placeholders(document: &Value, places: &mut Vec<Place>) {
    let program = Program::compile(&[document]);
    let Some(flow) = program.flows.first() else {
        return;
    };
    for (index, step) in flow.steps.iter().enumerate() {
        step.for_each_text(|field, text| {
            let names = holes(text.text)
                .map(|hole| hole.name)
                .chain(capital_holes(text.text).map(|hole| hole.name));
            let mut pointer = None;
            for name in names {
                let pointer = pointer.get_or_insert_with(|| field.pointer(index, step));
                places.push(Place {
                    pointer: pointer.clone(),
                    step: Some(index),
                    name: name.to_owned(),
                    kind: Use::Placeholder,
                });
            }
        });
    }
}

/// What lower-casing a name with capitals gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lowering {
    /// The lower-cased name, free to take.
    Rename(String),
    /// The lower-cased name, and why it cannot be taken.
    Clash(String, Clash),
}

/// Why a lower-cased name cannot be taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Clash {
    /// It is a built-in variable.
    BuiltIn,
    /// The document already names a variable so, first at this place.
    Used(Place),
    /// Another name with capitals lower-cases to it too.
    Also(String),
}

/// The names of a document's places, to decide what lower-casing each gives.
pub(crate) struct Names {
    /// Each name, with its first place.
    used: BTreeMap<String, Place>,
    /// Each lower-cased name, with the names with capitals that give it, in document order.
    capitals: BTreeMap<String, Vec<String>>,
}

impl Names {
    /// The names of `places`.
    pub(crate) fn of(places: &[Place]) -> Self {
        let mut used = BTreeMap::new();
        let mut capitals: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for place in places {
            used.entry(place.name.clone())
                .or_insert_with(|| place.clone());
            if let Some(lower) = lower_cased(&place.name) {
                let names = capitals.entry(lower).or_default();
                if !names.contains(&place.name) {
                    names.push(place.name.clone());
                }
            }
        }
        Names { used, capitals }
    }

    /// What lower-casing `name` gives, or `None` when it has no capitals or lower-cased is no
    /// variable name either.
    pub(crate) fn lowering(&self, name: &str) -> Option<Lowering> {
        let lower = lower_cased(name)?;
        let clash = if BUILT_IN_VARIABLES.contains(&lower.as_str()) {
            Some(Clash::BuiltIn)
        } else if let Some(place) = self.used.get(&lower) {
            Some(Clash::Used(place.clone()))
        } else {
            self.capitals
                .get(&lower)
                .and_then(|names| names.iter().find(|other| *other != name))
                .map(|other| Clash::Also(other.clone()))
        };
        Some(match clash {
            Some(clash) => Lowering::Clash(lower, clash),
            None => Lowering::Rename(lower),
        })
    }
}

/// The RFC 6902 patch that renames, at every place of `places` (found in `document`), each
/// name `renames` maps: a `test` of each value changed, then its `replace` (a declaration is
/// moved to its new name). Empty when nothing is renamed.
pub(crate) fn patch(
    document: &Value,
    places: &[Place],
    renames: &BTreeMap<String, String>,
) -> Vec<Value> {
    let rename = |name: &str| renames.get(name).map(String::as_str);
    let mut patch = Vec::new();
    let mut texts_done: BTreeSet<&str> = BTreeSet::new();
    for place in places {
        match place.kind {
            Use::Write | Use::Condition => {
                if let Some(new) = rename(&place.name) {
                    patch.push(json!({ "op": "test", "path": place.pointer, "value": place.name }));
                    patch.push(json!({ "op": "replace", "path": place.pointer, "value": new }));
                }
            }
            Use::Placeholder => {
                if !texts_done.insert(&place.pointer) {
                    continue;
                }
                let Some(text) = document.pointer(&place.pointer).and_then(Value::as_str) else {
                    continue;
                };
                if let Some(new) = crate::program::rename_capital_holes(text, rename) {
                    patch.push(json!({ "op": "test", "path": place.pointer, "value": text }));
                    patch.push(json!({ "op": "replace", "path": place.pointer, "value": new }));
                }
            }
            Use::Declaration => {
                let Some(new) = rename(&place.name) else {
                    continue;
                };
                let Some(declaration) = document.pointer(&place.pointer) else {
                    continue;
                };
                let mut to = "/variables".to_owned();
                push_token(&mut to, new);
                patch.push(json!({ "op": "test", "path": place.pointer, "value": declaration }));
                patch.push(json!({ "op": "move", "from": place.pointer, "path": to }));
            }
        }
    }
    patch
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_name_every_write_read_and_declaration() {
        let document = json!({ "version": 2, "id": "f", "variables": { "Plan": { "type": "string" } },
            "steps": [
                { "id": "a", "kind": "ask", "text": "Invoice for {{contact_name}}?", "save": "Invoice" },
                { "id": "b", "kind": "branch", "cases": [{ "when": { "all": [{ "var": "Invoice", "op": "exists" }, { "not": { "var": "Plan", "op": "eq", "value": "x" } }] }, "next": "c" }] },
                { "id": "c", "kind": "message", "text": "{{Invoice}} and {{ Invoice }} for {{Plan}}" },
                { "id": "d", "kind": "action", "handler": "h", "args": { "x": ["{{Invoice}}"] }, "save": "Out" }
            ] });
        let found: Vec<(String, String, Use)> = places(&document)
            .into_iter()
            .map(|p| (p.pointer, p.name, p.kind))
            .collect();
        let expected = [
            ("/steps/0/save", "Invoice", Use::Write),
            ("/steps/0/text", "contact_name", Use::Placeholder),
            ("/steps/1/cases/0/when/all/0/var", "Invoice", Use::Condition),
            (
                "/steps/1/cases/0/when/all/1/not/var",
                "Plan",
                Use::Condition,
            ),
            ("/steps/2/text", "Invoice", Use::Placeholder),
            ("/steps/2/text", "Invoice", Use::Placeholder),
            ("/steps/2/text", "Plan", Use::Placeholder),
            ("/steps/3/save", "Out", Use::Write),
            ("/steps/3/args/x/0", "Invoice", Use::Placeholder),
            ("/variables/Plan", "Plan", Use::Declaration),
        ];
        let expected: Vec<(String, String, Use)> = expected
            .iter()
            .map(|(p, n, k)| ((*p).to_owned(), (*n).to_owned(), *k))
            .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn the_patch_renames_every_place_and_moves_the_declaration() {
        let mut document = json!({ "version": 2, "id": "f", "variables": { "Plan": { "type": "string" } },
            "steps": [
                { "id": "a", "kind": "ask", "text": "Plan?", "save": "Plan" },
                { "id": "c", "kind": "message", "text": "{{Plan}}, {{ Plan }}, {{PLAN}}" }
            ] });
        let places = places(&document);
        let renames = BTreeMap::from([("Plan".to_owned(), "plan".to_owned())]);
        let patch = patch(&document, &places, &renames);
        crate::apply_patch(&mut document, &patch).unwrap();
        assert_eq!(document["steps"][0]["save"], "plan");
        assert_eq!(
            document["steps"][1]["text"],
            "{{plan}}, {{ plan }}, {{PLAN}}"
        );
        assert_eq!(
            document["variables"],
            json!({ "plan": { "type": "string" } })
        );
    }

    #[test]
    fn lowering_reports_clashes() {
        let document = json!({ "version": 2, "id": "f", "steps": [
            { "id": "a", "kind": "ask", "text": "{{total}}", "save": "Total" },
            { "id": "b", "kind": "ask", "text": "?", "save": "Code" },
            { "id": "c", "kind": "ask", "text": "?", "save": "CODE" },
            { "id": "d", "kind": "message", "text": "{{Contact_Name}} {{Name}} {{Año}}" }
        ] });
        let names = Names::of(&places(&document));
        let lowering = |name| names.lowering(name);
        assert_eq!(
            lowering("Total"),
            Some(Lowering::Clash(
                "total".into(),
                Clash::Used(Place {
                    pointer: "/steps/0/text".into(),
                    step: Some(0),
                    name: "total".into(),
                    kind: Use::Placeholder
                })
            ))
        );
        assert_eq!(
            lowering("Code"),
            Some(Lowering::Clash("code".into(), Clash::Also("CODE".into())))
        );
        assert_eq!(
            lowering("Contact_Name"),
            Some(Lowering::Clash("contact_name".into(), Clash::BuiltIn))
        );
        assert_eq!(lowering("Name"), Some(Lowering::Rename("name".into())));
        assert_eq!(lowering("name"), None);
        assert_eq!(lowering("Año"), None);
    }
}
