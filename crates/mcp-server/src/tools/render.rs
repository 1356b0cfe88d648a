//! `flow_render`: a picture of a flow (PNG or SVG), drawn by `botmesh-flow-render`.

use super::{arg, document_property, input_schema};
use crate::catalogue::{LeadingContent, Scope, Tool, ToolError, ToolOutput};
use botmesh_flow_analyzer as analyzer;
use botmesh_flow_render as render;
use serde_json::{Value, json};

const DOCUMENT: &str = "A botmesh flow document (JSON object, version 2).";

/// The directions the tool takes: `flow_analyze`'s, plus `TB` (Mermaid's other spelling of
/// top to bottom).
const DIRECTIONS: [&str; 5] = ["TD", "TB", "LR", "BT", "RL"];

pub(super) fn flow_render() -> Tool {
    Tool {
        name: "flow_render",
        title: "Draw a flow as a picture",
        description: "Draw a flow document (and the subflows it calls, as labelled clusters) as a picture: a \
         PNG image by default, or SVG markup with format: \"svg\". Steps are boxes shaped by kind \
         (branch hexagon, ask parallelogram, end/handoff stadium, subflow double-sided), edges \
         carry their button, row or case labels, loops are drawn back. Returns the image (or the \
         SVG markup as a text item), then one text line, and { valid, issues, format, width, height, \
         nodes, edges, crossings }. An invalid \
         document or subflow gives valid: false with its issues (each with source \"document\" \
         or \"subflows/N\") and no picture.",
        scope: Scope::Flow,
        input_schema: input_schema(
            json!({
                "document": document_property(DOCUMENT),
                "subflows": super::subflows_property(),
                "format": {
                    "type": "string",
                    "enum": ["png", "svg"],
                    "default": "png",
                    "description": "png: an image content item; svg: the SVG markup as text."
                },
                "direction": {
                    "type": "string",
                    "enum": DIRECTIONS,
                    "default": "TD",
                    "description": "Which way the flow runs: top-down (TD or TB), left-right, bottom-up, right-left."
                },
                "theme": {
                    "type": "string",
                    "enum": ["light", "dark"],
                    "default": "light",
                    "description": "Colours: dark lines on white, or light lines on a dark background."
                }
            }),
            &["document"],
        ),
        output_schema: json!({
            "type": "object",
            "properties": {
                "valid": { "type": "boolean" },
                "issues": super::sourced_issues_schema(),
                "format": { "type": "string", "enum": ["png", "svg"] },
                "width": { "type": "integer", "description": "Picture width in pixels (present when valid)." },
                "height": { "type": "integer", "description": "Picture height in pixels (present when valid)." },
                "nodes": { "type": "integer", "description": "Nodes drawn (present when valid)." },
                "edges": { "type": "integer", "description": "Edges drawn (present when valid)." },
                "crossings": { "type": "integer", "description": "Edge crossings in the layout (present when valid)." }
            },
            "required": ["valid", "issues", "format"]
        }),
        handler: Tool::handler(|_, arguments| {
            let svg = match arguments.get("format").and_then(Value::as_str) {
                None | Some("png") => false,
                Some("svg") => true,
                Some(other) => {
                    return Err(ToolError(format!(
                        "unknown format {other:?} (expected png or svg)"
                    )));
                }
            };
            let direction = match arguments.get("direction").and_then(Value::as_str) {
                None | Some("TB") => analyzer::Direction::TD,
                Some(direction) => direction
                    .parse()
                    .map_err(|error: analyzer::Error| ToolError(error.to_string()))?,
            };
            let theme = match arguments.get("theme").and_then(Value::as_str) {
                None => render::Theme::Light,
                Some(theme) => render::Theme::parse(theme).ok_or_else(|| {
                    ToolError(format!("unknown theme {theme:?} (expected light or dark)"))
                })?,
            };
            let subflows = arguments
                .get("subflows")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            let options = render::Options { direction, theme };
            // A valid set too large to draw is the request's fault: `isError`, one sentence
            // naming the size, the limit and what to do.
            let draw_error = |error: render::Error| ToolError(error.to_string());
            let rendering = render::render_set(arg(arguments, "document")?, subflows, &options)
                .map_err(draw_error)?;
            let format = if svg { "svg" } else { "png" };
            let issues = serde_json::to_value(&rendering.issues)
                .map_err(|error| ToolError(format!("internal error: {error}")))?;
            let Some(picture) = rendering.picture else {
                return Ok(
                    json!({ "valid": rendering.valid, "issues": issues, "format": format }).into(),
                );
            };
            let (width, height, leading) = if svg {
                let markup = picture.to_svg().map_err(draw_error)?;
                (picture.width, picture.height, LeadingContent::Text(markup))
            } else {
                let scale = picture.default_png_scale();
                let png = picture.to_png(scale).map_err(draw_error)?;
                let (width, height) = picture.png_size(scale);
                let image = LeadingContent::Image {
                    data: base64(&png),
                    mime_type: "image/png",
                };
                (i64::from(width), i64::from(height), image)
            };
            // The text rule: the line carries every fact of the payload.
            let line = format!(
                "{} of {} ({width}×{height} px): {}, {}, {}; valid, no issues.",
                format.to_uppercase(),
                what(arguments),
                count(picture.nodes.len(), "node"),
                count(picture.edges.len(), "edge"),
                count(picture.crossings, "crossing"),
            );
            Ok(ToolOutput {
                payload: json!({
                    "valid": true,
                    "issues": issues,
                    "format": format,
                    "width": width,
                    "height": height,
                    "nodes": picture.nodes.len(),
                    "edges": picture.edges.len(),
                    "crossings": picture.crossings,
                }),
                text: Some(line),
                leading: Some(leading),
            })
        }),
    }
}

/// `flow "id"` and the number of subflows, for the text line.
fn what(arguments: &serde_json::Map<String, Value>) -> String {
    let id = arguments
        .get("document")
        .and_then(|d| d.get("id"))
        .and_then(Value::as_str)
        .unwrap_or("?");
    let subflows = arguments
        .get("subflows")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    match subflows {
        0 => format!("flow {id:?}"),
        1 => format!("flow {id:?} and 1 subflow"),
        n => format!("flow {id:?} and {n} subflows"),
    }
}

/// `1 node`, `2 nodes`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Standard base64 with padding (RFC 4648 §4).
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}
