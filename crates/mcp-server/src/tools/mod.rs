//! The built-in tools, one module per family; each tool declares its schemas beside its handler.

mod docs;
mod flow;
mod render;

#[cfg(test)]
pub(crate) use render::base64;

use crate::catalogue::{Catalogue, ToolError};
use serde_json::{Map, Value, json};

/// The built-in catalogue: the flow tools, and the docs tools when a docs directory exists.
pub(crate) fn builtin(with_docs: bool) -> Catalogue {
    let mut catalogue = Catalogue::new();
    for tool in flow::tools() {
        catalogue.register(tool);
    }
    catalogue.register(render::flow_render());
    if with_docs {
        for tool in docs::tools() {
            catalogue.register(tool);
        }
    }
    catalogue
}

/// The names of every built-in tool, docs tools included.
pub fn builtin_tool_names() -> Vec<&'static str> {
    builtin(true).tools().map(|tool| tool.name).collect()
}

/// `{"type": "object", "description": ...}`: a document argument (validated by the tool itself,
/// never by an embedded schema, so every client accepts the declaration).
pub(crate) fn document_property(description: &str) -> Value {
    json!({ "type": "object", "description": description })
}

/// An input schema with the given properties and required names, and no other key allowed.
pub(crate) fn input_schema(properties: Value, required: &[&str]) -> Value {
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), properties);
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    Value::Object(schema)
}

/// An argument the schema checker has already verified to be present with this type.
pub(crate) fn arg<'a>(
    arguments: &'a Map<String, Value>,
    name: &str,
) -> Result<&'a Value, ToolError> {
    arguments
        .get(name)
        .ok_or_else(|| ToolError(format!("missing required argument \"{name}\"")))
}

/// Serializes a payload computed by a library into a JSON value.
pub(crate) fn to_payload(value: impl serde::Serialize) -> Result<Value, ToolError> {
    serde_json::to_value(value).map_err(|error| ToolError(format!("internal error: {error}")))
}
