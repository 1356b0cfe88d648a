//! Tests of the compact schema form.

use super::compact_schema;
use serde_json::Value;

fn schema() -> Value {
    serde_json::from_str(crate::FLOW_SCHEMA_JSON).unwrap()
}

/// The names a field string refers to: its first word, and each alternative's.
fn type_names(field: &str) -> Vec<String> {
    let types = field.split(" — ").next().unwrap_or_default();
    types
        .split(" | ")
        .map(|part| {
            part.trim_start_matches(['[', '{'])
                .trim_start_matches("name: ")
                .split([' ', ']', '}'])
                .next()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

#[test]
fn every_kind_and_field_of_the_schema_is_in_the_compact_form_with_its_requiredness() {
    let schema = schema();
    let compact = compact_schema(&schema);
    let variants = schema["$defs"]["Step"]["oneOf"].as_array().unwrap();
    assert_eq!(compact["kinds"].as_object().unwrap().len(), variants.len());
    assert_eq!(
        compact["stepKinds"].as_array().unwrap().len(),
        variants.len()
    );
    for variant in variants {
        let kind = variant["properties"]["kind"]["const"].as_str().unwrap();
        let mut fields = compact["kinds"][kind]["fields"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        // Fields written the same in every kind are given once, in `step`.
        let common = compact["step"]["fields"].as_object().unwrap();
        assert!(common.contains_key("id"));
        fields.extend(common.clone());
        let required: Vec<&str> = variant["required"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let properties = variant["properties"].as_object().unwrap();
        // `kind` is the key of the entry itself.
        assert_eq!(fields.len(), properties.len() - 1, "{kind}");
        for (name, property) in properties.iter().filter(|(name, _)| *name != "kind") {
            let key = if required.contains(&name.as_str()) {
                name.clone()
            } else {
                format!("{name}?")
            };
            let field = fields[&key]
                .as_str()
                .unwrap_or_else(|| panic!("{kind}.{key}"));
            if let Some(description) = property["description"].as_str() {
                assert!(field.ends_with(description), "{kind}.{key}: {field}");
            }
            for bound in ["maxLength", "maxItems", "maximum"] {
                if let Some(limit) = property.get(bound) {
                    assert!(field.contains(&limit.to_string()), "{kind}.{key}: {field}");
                }
            }
        }
    }
    let document = compact["document"]["fields"].as_object().unwrap();
    for name in [
        "version",
        "id",
        "steps",
        "metadata?",
        "trigger?",
        "variables?",
    ] {
        assert!(document.contains_key(name), "{name}");
    }
}

/// Every field string anywhere in the compact form.
fn collect(value: &Value, fields: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("fields", Value::Object(found)) => {
                        fields.extend(found.values().filter_map(Value::as_str).map(str::to_owned))
                    }
                    ("limits" | "stepKinds" | "rules", _) => {}
                    _ => collect(value, fields),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect(item, fields)),
        _ => {}
    }
}

#[test]
fn every_type_a_field_names_is_described() {
    let compact = compact_schema(&schema());
    let types = compact["types"].as_object().unwrap();
    let mut fields = Vec::new();
    collect(&compact, &mut fields);
    assert!(fields.len() > 80, "{}", fields.len());
    for field in &fields {
        for name in type_names(field) {
            let known = [
                "string", "integer", "number", "boolean", "null", "object", "any",
            ];
            let constant = name.starts_with('"') || name.parse::<f64>().is_ok();
            // A step is described by `step` and `kinds`.
            let step = name == "Step" && compact["kinds"].is_object();
            assert!(
                known.contains(&name.as_str()) || constant || step || types.contains_key(&name),
                "{name} in {field}"
            );
        }
    }
}

#[test]
fn the_compact_form_is_a_fraction_of_the_schema() {
    let schema = schema();
    let full = schema.to_string().len();
    let compact = compact_schema(&schema).to_string().len();
    assert!(
        compact * 5 < full * 3,
        "compact {compact} bytes, full {full}"
    );
}

#[test]
fn compact_form_golden() {
    let compact = compact_schema(&schema());
    let mut text = serde_json::to_string_pretty(&compact).unwrap();
    text.push('\n');
    expect_test::expect_file!["../../test_data/compact-schema.json"].assert_eq(&text);
}

/// Every constraint between fields reads as a sentence, none as raw JSON Schema.
#[test]
fn every_rule_is_a_sentence() {
    let compact = compact_schema(&schema());
    let mut rules = Vec::new();
    fn find(value: &Value, rules: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, value) in map {
                    match (key.as_str(), value) {
                        ("rules", Value::Array(items)) => {
                            rules.extend(items.iter().filter_map(Value::as_str).map(str::to_owned))
                        }
                        _ => find(value, rules),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|item| find(item, rules)),
            _ => {}
        }
    }
    find(&compact, &mut rules);
    assert_eq!(
        rules,
        [
            "with \"pattern\", \"input\" must be left out or \"text\"",
            "\"caption\" is not allowed when \"media\" is \"audio\" or \"sticker\"",
            "\"filename\" is not allowed when \"media\" is not \"document\"",
        ]
    );
    // A form the sentences do not know is still written, as its JSON Schema.
    let odd = serde_json::json!({ "anyOf": [{ "required": ["a"] }] });
    assert_eq!(super::rule_sentence(&odd), odd.to_string());
}
