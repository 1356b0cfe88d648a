//! Checking tool arguments against the advertised `inputSchema`, before the tool runs.
//!
//! The schemas use the basic keyword subset every client accepts (`type`, `properties`,
//! `required`, `enum`, `minimum`/`maximum`, `minLength`/`maxLength`, `items`,
//! `additionalProperties`), so this checker understands exactly that subset.

use serde_json::{Map, Value};

/// The deepest nesting accepted in arguments.
pub(crate) const MAX_ARGUMENT_DEPTH: usize = 64;

/// Checks `arguments` against `schema`; the error is one sentence naming the problem.
pub(crate) fn check(schema: &Value, arguments: &Map<String, Value>) -> Result<(), String> {
    for (name, value) in arguments {
        if depth(value, 1) > MAX_ARGUMENT_DEPTH {
            return Err(format!(
                "argument \"{name}\" is nested more than {MAX_ARGUMENT_DEPTH} levels deep"
            ));
        }
    }
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    if schema.get("additionalProperties") == Some(&Value::Bool(false))
        && let Some(unknown) = arguments.keys().find(|key| !properties.contains_key(*key))
    {
        let accepted = if properties.is_empty() {
            "this tool takes no arguments".to_owned()
        } else {
            let names: Vec<String> = properties.keys().map(|key| format!("\"{key}\"")).collect();
            format!("accepted: {}", names.join(", "))
        };
        return Err(format!("unknown argument \"{unknown}\" ({accepted})"));
    }
    if let Some(required) = schema.get("required").and_then(Value::as_array)
        && let Some(missing) = required
            .iter()
            .filter_map(Value::as_str)
            .find(|name| !arguments.contains_key(*name))
    {
        return Err(format!("missing required argument \"{missing}\""));
    }
    for (name, value) in arguments {
        if let Some(property) = properties.get(name) {
            check_value(property, value, &format!("argument \"{name}\""))?;
        }
    }
    Ok(())
}

/// Nesting depth: a scalar is 1, a container is one more than its deepest element.
fn depth(value: &Value, at: usize) -> usize {
    if at > MAX_ARGUMENT_DEPTH {
        return at;
    }
    match value {
        Value::Array(items) => items
            .iter()
            .map(|item| depth(item, at + 1))
            .max()
            .unwrap_or(at),
        Value::Object(map) => map
            .values()
            .map(|item| depth(item, at + 1))
            .max()
            .unwrap_or(at),
        _ => at,
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn is_integer(value: &Value) -> bool {
    match value {
        Value::Number(n) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

fn matches_type(expected: &str, value: &Value) -> bool {
    match expected {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "number" => value.is_number(),
        "integer" => is_integer(value),
        "null" => value.is_null(),
        _ => true,
    }
}

fn article(expected: &str) -> String {
    match expected {
        "object" | "array" | "integer" => format!("an {expected}"),
        "null" => "null".to_owned(),
        other => format!("a {other}"),
    }
}

fn check_value(schema: &Value, value: &Value, what: &str) -> Result<(), String> {
    if let Some(expected) = schema.get("type").and_then(Value::as_str)
        && !matches_type(expected, value)
    {
        return Err(format!(
            "{what} must be {}, not {}",
            article(expected),
            type_name(value)
        ));
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array)
        && !options.contains(value)
    {
        let names: Vec<String> = options.iter().map(Value::to_string).collect();
        return Err(format!(
            "{what} must be one of {}, not {value}",
            names.join(", ")
        ));
    }
    if let Some(number) = value.as_f64() {
        if let Some(minimum) = schema.get("minimum").and_then(Value::as_f64)
            && number < minimum
        {
            return Err(format!(
                "{what} must be at least {}, not {value}",
                schema["minimum"]
            ));
        }
        if let Some(maximum) = schema.get("maximum").and_then(Value::as_f64)
            && number > maximum
        {
            return Err(format!(
                "{what} must be at most {}, not {value}",
                schema["maximum"]
            ));
        }
    }
    if let Some(text) = value.as_str() {
        let length = text.chars().count() as u64;
        let min = schema.get("minLength").and_then(Value::as_u64);
        let max = schema.get("maxLength").and_then(Value::as_u64);
        if min.is_some_and(|min| length < min) || max.is_some_and(|max| length > max) {
            let range = match (min, max) {
                (Some(min), Some(max)) => format!("{min}-{max} characters"),
                (Some(min), None) => format!("at least {min} characters"),
                (None, Some(max)) => format!("at most {max} characters"),
                (None, None) => unreachable!("one of the bounds failed"),
            };
            return Err(format!("{what} must be a string of {range}, not {length}"));
        }
    }
    if let (Some(items), Some(elements)) = (schema.get("items"), value.as_array()) {
        for (index, element) in elements.iter().enumerate() {
            check_value(items, element, &format!("{what}[{index}]"))?;
        }
    }
    if let (Some(properties), Some(object)) = (
        schema.get("properties").and_then(Value::as_object),
        value.as_object(),
    ) {
        for (name, property) in properties {
            if let Some(inner) = object.get(name) {
                check_value(property, inner, &format!("{what}.{name}"))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "document": { "type": "object" },
                "format": { "type": "string", "enum": ["mermaid", "json"] },
                "target": { "type": "integer", "minimum": 0, "maximum": 2 },
                "query": { "type": "string", "minLength": 1, "maxLength": 5 },
                "subflows": { "type": "array", "items": { "type": "object" } }
            },
            "required": ["document"],
            "additionalProperties": false
        })
    }

    fn run(arguments: Value) -> Result<(), String> {
        check(&schema(), arguments.as_object().expect("object"))
    }

    #[test]
    fn each_rule_names_the_problem() {
        let cases = [
            (
                json!({"doc": {}}),
                "unknown argument \"doc\" (accepted: \"document\", \"format\", \"query\", \"subflows\", \"target\")",
            ),
            (json!({}), "missing required argument \"document\""),
            (
                json!({"document": []}),
                "argument \"document\" must be an object, not an array",
            ),
            (
                json!({"document": {}, "format": "svg"}),
                "argument \"format\" must be one of \"mermaid\", \"json\", not \"svg\"",
            ),
            (
                json!({"document": {}, "target": 3}),
                "argument \"target\" must be at most 2, not 3",
            ),
            (
                json!({"document": {}, "target": -1}),
                "argument \"target\" must be at least 0, not -1",
            ),
            (
                json!({"document": {}, "target": 1.5}),
                "argument \"target\" must be an integer, not a number",
            ),
            (
                json!({"document": {}, "query": ""}),
                "argument \"query\" must be a string of 1-5 characters, not 0",
            ),
            (json!({"document": {}, "query": "ééééé"}), ""),
            (
                json!({"document": {}, "query": "éééééé"}),
                "argument \"query\" must be a string of 1-5 characters, not 6",
            ),
            (
                json!({"document": {}, "subflows": [{}, 3]}),
                "argument \"subflows\"[1] must be an object, not an integer",
            ),
        ];
        for (arguments, expected) in cases {
            let got = run(arguments.clone()).err().unwrap_or_default();
            assert_eq!(got, expected, "{arguments}");
        }
    }

    #[test]
    fn integral_floats_are_integers() {
        assert_eq!(run(json!({"document": {}, "target": 2.0})), Ok(()));
    }

    #[test]
    fn nesting_beyond_64_levels_is_refused() {
        let mut deep = json!(1);
        for _ in 0..63 {
            deep = json!([deep]);
        }
        assert_eq!(
            run(json!({ "document": { "a": deep.clone() } }))
                .err()
                .as_deref(),
            Some("argument \"document\" is nested more than 64 levels deep")
        );
        assert_eq!(run(json!({ "document": { "a": deep[0].clone() } })), Ok(()));
    }
}
