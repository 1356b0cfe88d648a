//! The compact form of the flow schema: what an agent needs to write a document (the top-level
//! fields, each step kind with its fields, the shared types, the limits), read from the draft
//! 2020-12 schema itself so the two never disagree, in about a fifth of its size.
//!
//! A field is one string: its type, its bounds, then ` — ` and its description. Types are
//! `string`, `integer`, `number`, `boolean`, `null`, a JSON constant, a shared type's name (see
//! `types`), `[T]` for an array of `T`, `{name: T}` for an object of `T` values, and `A | B`
//! for alternatives. Bounds follow the type: `1..20` (length, items or value), `≤64`, `≥1`,
//! `unique`, and a pattern by its name in `limits` (`stepIdPattern`) or written out
//! (`/^[a-z]+$/`). A `?` after a field name marks an optional field; every other field is
//! required. `rules` holds the constraints between fields, each as one sentence
//! (`"caption" is not allowed when "media" is "audio" or "sticker"`); the forms the schema
//! uses (`if`/`then` that forbids a field, `dependentSchemas` that limits another field) are
//! read, and a test holds every rule of the schema to a sentence (anything else would be
//! written as its compact JSON Schema).
//!
//! Alternatives of objects (a step, a comparison, a variable) are keyed by the field that
//! tells them apart (`by`: `kind`, `op`, `type`), and a field written the same in every
//! alternative is given once beside them (`fields`): every step has the `id` of `step.fields`
//! plus the fields of its kind in `kinds`. An enumeration lists its `values` with their meaning.

use serde_json::{Map, Value, json};

use crate::limits_json;

/// The compact form of a schema produced by [`crate::json_schema`] (or parsed from
/// [`crate::FLOW_SCHEMA_JSON`]): `{ document, step, kinds, types, limits, stepKinds, version }`.
pub fn compact_schema(schema: &Value) -> Value {
    let limits = limits_json();
    let patterns: Vec<(String, String)> = limits
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(name, _)| name.ends_with("Pattern"))
        .filter_map(|(name, value)| Some((value.as_str()?.to_owned(), name.clone())))
        .collect();
    let writer = Writer { patterns };
    let types: Map<String, Value> = schema["$defs"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(name, _)| *name != "Step")
        .map(|(name, definition)| (name.clone(), writer.definition(definition)))
        .collect();
    let mut step = writer.definition(&schema["$defs"]["Step"]);
    let kinds = step
        .as_object_mut()
        .and_then(|step| step.remove("variants"))
        .unwrap_or_default();
    if let Some(step) = step.as_object_mut() {
        step.remove("by");
    }
    json!({
        "document": writer.object(schema),
        "step": step,
        "kinds": kinds,
        "types": types,
        "stepKinds": crate::step_kinds(schema),
        "limits": limits,
        "version": crate::CURRENT_VERSION,
    })
}

/// Writes schema nodes in the compact notation.
struct Writer {
    /// Pattern text → its name in the limits (`stepIdPattern`).
    patterns: Vec<(String, String)>,
}

impl Writer {
    /// A definition: an object's fields, the values of an enumeration, or its variants.
    fn definition(&self, node: &Value) -> Value {
        if node.get("properties").is_some() {
            return self.object(node);
        }
        let variants = node["oneOf"]
            .as_array()
            .or_else(|| node["anyOf"].as_array());
        let Some(variants) = variants else {
            return json!(self.field(node));
        };
        let mut form = Map::new();
        if let Some(description) = node.get("description") {
            form.insert("description".into(), description.clone());
        }
        if variants
            .iter()
            .all(|variant| variant.get("const").is_some())
        {
            let values: Map<String, Value> = variants
                .iter()
                .map(|variant| {
                    let name = match &variant["const"] {
                        Value::String(text) => text.clone(),
                        other => other.to_string(),
                    };
                    (name, variant["description"].clone())
                })
                .collect();
            form.insert("values".into(), Value::Object(values));
        } else {
            self.variants(variants, &mut form);
        }
        Value::Object(form)
    }

    /// The variants of a `oneOf`/`anyOf` of objects. When every variant has a property of
    /// constant value (`kind`, `op`), they are keyed by it (`by` names it); fields written the
    /// same in every variant are given once, in `fields`.
    fn variants(&self, variants: &[Value], form: &mut Map<String, Value>) {
        let forms: Vec<Value> = variants
            .iter()
            .map(|variant| {
                if variant.get("properties").is_some() {
                    self.object(variant)
                } else {
                    json!(self.field(variant))
                }
            })
            .collect();
        let fields_of = |form: &Value| form["fields"].as_object().cloned();
        let all_fields: Option<Vec<Map<String, Value>>> = forms.iter().map(fields_of).collect();
        let (Some(all_fields), Some(first)) = (all_fields, variants.first()) else {
            form.insert("variants".into(), Value::Array(forms));
            return;
        };
        let discriminator = first["properties"].as_object().and_then(|properties| {
            properties.keys().find(|name| {
                variants
                    .iter()
                    .all(|variant| variant["properties"][name.as_str()]["const"].is_string())
            })
        });
        let common: Map<String, Value> = all_fields[0]
            .iter()
            .filter(|(name, value)| {
                Some(*name) != discriminator
                    && all_fields
                        .iter()
                        .all(|fields| fields.get(*name) == Some(value))
            })
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        let mut keyed = Map::new();
        let mut listed = Vec::new();
        for (variant, mut variant_form) in variants.iter().zip(forms) {
            if let Some(Value::Object(fields)) = variant_form.get_mut("fields") {
                fields.retain(|name, _| !common.contains_key(name));
            }
            match discriminator {
                Some(name) => {
                    if let Some(Value::Object(fields)) = variant_form.get_mut("fields") {
                        fields.remove(name);
                    }
                    let key = variant["properties"][name.as_str()]["const"]
                        .as_str()
                        .unwrap_or_default();
                    keyed.insert(key.to_owned(), variant_form);
                }
                None => listed.push(variant_form),
            }
        }
        if let Some(name) = discriminator {
            form.insert("by".into(), json!(name));
        }
        if !common.is_empty() {
            form.insert("fields".into(), Value::Object(common));
        }
        let variants = match discriminator {
            Some(_) => Value::Object(keyed),
            None => Value::Array(listed),
        };
        form.insert("variants".into(), variants);
    }

    /// An object: `{ description?, fields, rules? }`.
    fn object(&self, node: &Value) -> Value {
        let required: Vec<&str> = node["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let mut fields = Map::new();
        for (name, property) in node["properties"].as_object().into_iter().flatten() {
            let key = if required.contains(&name.as_str()) {
                name.clone()
            } else {
                format!("{name}?")
            };
            fields.insert(key, json!(self.field(property)));
        }
        let mut form = Map::new();
        if let Some(description) = node.get("description") {
            form.insert("description".into(), description.clone());
        }
        form.insert("fields".into(), Value::Object(fields));
        let mut rules = Vec::new();
        for key in ["allOf", "dependentSchemas", "if", "then", "not"] {
            match (key, node.get(key)) {
                ("allOf", Some(Value::Array(items))) => {
                    rules.extend(items.iter().map(|rule| json!(rule_sentence(rule))));
                }
                ("then", Some(_)) if node.get("if").is_some() => {}
                ("if", Some(rule)) => {
                    let rule = json!({ "if": rule, "then": node.get("then") });
                    rules.push(json!(rule_sentence(&rule)));
                }
                (_, Some(rule)) => rules.push(json!(rule_sentence(&json!({ key: rule })))),
                (_, None) => {}
            }
        }
        if !rules.is_empty() {
            form.insert("rules".into(), Value::Array(rules));
        }
        Value::Object(form)
    }

    /// One field: its type and bounds, then ` — ` and its description.
    fn field(&self, node: &Value) -> String {
        let mut text = self.type_of(node);
        if let Some(description) = node["description"].as_str() {
            text.push_str(" — ");
            text.push_str(description);
        }
        text
    }

    /// The type and bounds of a node, without its description.
    fn type_of(&self, node: &Value) -> String {
        if let Some(reference) = node["$ref"].as_str() {
            return reference.rsplit('/').next().unwrap_or(reference).to_owned();
        }
        if let Some(constant) = node.get("const") {
            return constant.to_string();
        }
        if let Some(values) = node["enum"].as_array() {
            let values: Vec<String> = values.iter().map(Value::to_string).collect();
            return values.join(" | ");
        }
        if let Some(variants) = node["oneOf"]
            .as_array()
            .or_else(|| node["anyOf"].as_array())
        {
            let variants: Vec<String> = variants.iter().map(|v| self.type_of(v)).collect();
            return variants.join(" | ");
        }
        let kind = node["type"].as_str().unwrap_or("any");
        let mut text = match kind {
            "array" => format!("[{}]", self.type_of(&node["items"])),
            "object" => match node.get("additionalProperties") {
                Some(values @ Value::Object(_)) => {
                    format!("{{name: {}}}", self.type_of(values))
                }
                _ => "object".to_owned(),
            },
            other => other.to_owned(),
        };
        let bound = |low: &str, high: &str| range(node.get(low), node.get(high));
        let mut bounds: Vec<String> = [
            bound("minLength", "maxLength"),
            bound("minItems", "maxItems"),
            bound("minProperties", "maxProperties"),
            bound("minimum", "maximum"),
        ]
        .into_iter()
        .flatten()
        .collect();
        if node["uniqueItems"] == json!(true) {
            bounds.push("unique".to_owned());
        }
        if let Some(pattern) = node["pattern"].as_str() {
            bounds.push(self.pattern(pattern));
        }
        if let Some(pattern) = node["propertyNames"]["pattern"].as_str() {
            bounds.push(format!("names {}", self.pattern(pattern)));
        }
        for bound in bounds {
            text.push(' ');
            text.push_str(&bound);
        }
        text
    }

    /// A pattern by its name in the limits, or written out between slashes.
    fn pattern(&self, pattern: &str) -> String {
        self.patterns
            .iter()
            .find(|(text, _)| text == pattern)
            .map_or_else(|| format!("/{pattern}/"), |(_, name)| name.clone())
    }
}

/// A constraint between fields as one sentence: `{ if: { properties: { F: C } }, then: { not:
/// { required: [G] } } }` is `"G" is not allowed when "F" …`, and `{ dependentSchemas: { G: {
/// properties: { F: C } } } }` is `with "G", "F" must be …`. Any other form is its compact
/// JSON Schema (the schema has none; a test holds it to that).
pub(crate) fn rule_sentence(rule: &Value) -> String {
    let one_field = |node: &Value| -> Option<(String, String)> {
        let properties = node.get("properties")?.as_object()?;
        let [(field, condition)] = properties.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        Some((field.clone(), condition_words(condition)?))
    };
    let sentence = || -> Option<String> {
        if let (Some(condition), Some(then)) = (rule.get("if"), rule.get("then")) {
            let (field, words) = one_field(condition)?;
            let forbidden = then.get("not")?.get("required")?.as_array()?;
            let [Value::String(forbidden)] = &forbidden[..] else {
                return None;
            };
            return Some(format!(
                "\"{forbidden}\" is not allowed when \"{field}\" {words}"
            ));
        }
        let dependent = rule.get("dependentSchemas")?.as_object()?;
        let [(given, schema)] = dependent.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        let (field, words) = one_field(schema)?;
        Some(format!(
            "with \"{given}\", \"{field}\" must be left out or {}",
            words.trim_start_matches("is ")
        ))
    };
    sentence().unwrap_or_else(|| rule.to_string())
}

/// What a condition on one value says: `is "text"`, `is "audio" or "sticker"`, `is not
/// "document"`.
fn condition_words(condition: &Value) -> Option<String> {
    if let Some(value) = condition.get("const") {
        return Some(format!("is {value}"));
    }
    if let Some(values) = condition.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values.iter().map(Value::to_string).collect();
        return Some(format!("is {}", values.join(" or ")));
    }
    let inner = condition_words(condition.get("not")?)?;
    Some(format!("is not {}", inner.strip_prefix("is ")?))
}

/// `1..20`, `≤64`, `≥1`, or nothing.
fn range(low: Option<&Value>, high: Option<&Value>) -> Option<String> {
    match (low, high) {
        (Some(low), Some(high)) => Some(format!("{low}..{high}")),
        (None, Some(high)) => Some(format!("≤{high}")),
        (Some(low), None) => Some(format!("≥{low}")),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests;
