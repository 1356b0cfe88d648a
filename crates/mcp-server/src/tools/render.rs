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

/// The most `depth` of a `focus` picture, and its default.
const MAX_DEPTH: u64 = 10;
const DEFAULT_DEPTH: usize = 2;

pub(super) fn flow_render() -> Tool {
    Tool {
        name: "flow_render",
        title: "Draw a flow as a picture",
        description: "Draw a flow document (and the subflows it calls, as labelled clusters) as a picture: a \
         PNG image by default, or SVG markup with format: \"svg\". Steps are boxes shaped by kind \
         (branch hexagon, ask parallelogram, end stadium, handoff red octagon, subflow \
         double-sided, buttons and list rounded), edges \
         carry their button, row or case labels, loops are drawn back. Returns the image (or the \
         SVG markup as a text item), then one text line, and { valid, issues, format, width, height, \
         nodes, edges, crossings, missingGlyphs (characters no embedded font draws, written as their code \
         point) }. Emoji are drawn. A PNG stays within maxSize (default 1568 px) with text never \
         below 10 px: a flow too large for that comes as an overview (boxes without text, the \
         pages framed and numbered) listing each page's steps; call again with page: N for a \
         readable page (it names its steps and the pages next to it), or with focus: a step id \
         (and depth) for the steps around one step. An invalid \
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
                },
                "maxSize": {
                    "type": "integer",
                    "minimum": render::MIN_MAX_SIZE,
                    "maximum": render::MAX_MAX_SIZE,
                    "default": render::DEFAULT_MAX_SIZE,
                    "description": "Longest side of the PNG in pixels. A flow that does not fit with its text readable (10 px at least) comes as an overview plus pages."
                },
                "page": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "For a flow that needs pages: the page to draw (1-based; the overview lists them). Without it, the overview."
                },
                "focus": {
                    "type": "string",
                    "minLength": 1,
                    "description": "A step id: draw only the steps around it, readable (PNG)."
                },
                "depth": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": MAX_DEPTH,
                    "default": DEFAULT_DEPTH,
                    "description": "With focus: how many edges away from it a step may be."
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
                "crossings": { "type": "integer", "description": "Edge crossings in the layout (present when valid)." },
                "missingGlyphs": {
                    "type": "array",
                    "items": { "type": "string" },
                    "description": "Characters of the flow's text that no embedded font draws (\"U+4F60 你\"), each written in the picture as its code point ‹U+4F60›; absent when every character is drawn. Emoji common in WhatsApp chats are drawn."
                },
                "pages": { "type": "integer", "description": "Pages of a PNG too large for maxSize (absent when it fits)." },
                "page": { "type": "integer", "description": "The page drawn (absent for the overview)." },
                "steps": { "type": "array", "items": { "type": "string" }, "description": "Step ids the image shows (a page or a focus)." },
                "neighbours": {
                    "type": "object",
                    "description": "The pages next to this one.",
                    "properties": {
                        "above": { "type": "integer" }, "below": { "type": "integer" },
                        "left": { "type": "integer" }, "right": { "type": "integer" }
                    }
                },
                "pageSteps": {
                    "type": "array",
                    "description": "With the overview: for each page, the step ids it shows.",
                    "items": { "type": "object", "properties": { "page": { "type": "integer" }, "steps": { "type": "array", "items": { "type": "string" } } } }
                }
            },
            "required": ["valid", "issues", "format"]
        }),
        handler: Tool::handler(|context, arguments| {
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
            let max_size = arguments
                .get("maxSize")
                .and_then(Value::as_u64)
                .map_or(render::DEFAULT_MAX_SIZE, |m| m as u32);
            let page = arguments
                .get("page")
                .and_then(Value::as_u64)
                .map(|p| p as usize);
            let focus = arguments.get("focus").and_then(Value::as_str);
            let depth = arguments
                .get("depth")
                .and_then(Value::as_u64)
                .map_or(DEFAULT_DEPTH, |d| d as usize);
            if svg && (page.is_some() || focus.is_some()) {
                return Err(ToolError(
                    "page and focus draw PNG images: leave format out or set it to png".to_owned(),
                ));
            }
            if page.is_some() && focus.is_some() {
                return Err(ToolError(
                    "page and focus are two ways to pick part of the picture: give one".to_owned(),
                ));
            }
            let mut payload = json!({
                "valid": true,
                "issues": issues,
                "format": format,
                "nodes": picture.nodes.len(),
                "edges": picture.edges.len(),
                "crossings": picture.crossings,
            });
            if !picture.missing_glyphs.is_empty() {
                payload["missingGlyphs"] = json!(picture.missing_glyph_names());
            }
            let ids = |nodes: &[usize]| -> Vec<String> {
                nodes.iter().map(|&n| picture.nodes[n].id.clone()).collect()
            };
            let png = |bytes: Vec<u8>| LeadingContent::Image {
                data: render::base64(&bytes),
                mime_type: "image/png",
            };
            let mut meta = None;
            let (width, height, leading, extra) = if svg {
                let markup = picture.to_svg().map_err(draw_error)?;
                if context.ui {
                    let diagnostics = super::to_payload(&rendering.diagnostics)?;
                    meta = Some(json!({
                        crate::apps::PICTURE_META: picture_meta(&picture, arguments, diagnostics)
                    }));
                }
                (
                    picture.width,
                    picture.height,
                    LeadingContent::Text(markup),
                    String::new(),
                )
            } else if let Some(focus) = focus {
                let Some(node) = picture.nodes.iter().position(|n| n.id == focus) else {
                    return Err(ToolError(format!(
                        "focus: there is no step {focus:?} in the document or its subflows"
                    )));
                };
                let framed = picture.focus(node, depth, max_size);
                let bytes = picture.framed_png(&framed).map_err(draw_error)?;
                let steps = ids(&framed.nodes);
                let extra = format!(
                    " Around step {focus:?}, depth {depth}: {}.",
                    steps.join(", ")
                );
                payload["steps"] = json!(steps);
                (
                    i64::from(framed.size.0),
                    i64::from(framed.size.1),
                    png(bytes),
                    extra,
                )
            } else if let (Some(scale), None | Some(1)) = (picture.fit_within(max_size), page) {
                let bytes = picture.to_png(scale).map_err(draw_error)?;
                let (width, height) = picture.png_size(scale);
                (
                    i64::from(width),
                    i64::from(height),
                    png(bytes),
                    String::new(),
                )
            } else if picture.fit_within(max_size).is_some() {
                return Err(ToolError(format!(
                    "page: the picture fits in one image, so page {} does not exist (only 1)",
                    page.unwrap_or(0)
                )));
            } else {
                let paging = picture.paging(max_size);
                payload["pages"] = json!(paging.pages.len());
                match page {
                    None => {
                        let (bytes, size) = picture
                            .overview_png(&paging, max_size)
                            .map_err(draw_error)?;
                        let list: Vec<Value> = paging
                            .pages
                            .iter()
                            .map(|p| json!({ "page": p.number, "steps": ids(&p.nodes) }))
                            .collect();
                        let mut extra = format!(
                            " Too large to read in one image: an overview of {} pages in {} bands (boxes without text, the pages framed and numbered). Call again with page: N.",
                            paging.pages.len(),
                            paging.bands
                        );
                        for p in &paging.pages {
                            extra.push_str(&format!(
                                " Page {}: {}.",
                                p.number,
                                span(&ids(&p.nodes))
                            ));
                        }
                        payload["pageSteps"] = Value::Array(list);
                        (i64::from(size.0), i64::from(size.1), png(bytes), extra)
                    }
                    Some(number) => {
                        let Some(framed) = picture.page(&paging, number) else {
                            return Err(ToolError(format!(
                                "page: there is no page {number}; the picture has {} (1 to {})",
                                paging.pages.len(),
                                paging.pages.len()
                            )));
                        };
                        let info = &paging.pages[number - 1];
                        let bytes = picture.framed_png(&framed).map_err(draw_error)?;
                        let steps = ids(&framed.nodes);
                        let mut neighbours = serde_json::Map::new();
                        let mut around = Vec::new();
                        for (name, value) in [
                            ("above", info.above),
                            ("below", info.below),
                            ("left", info.left),
                            ("right", info.right),
                        ] {
                            if let Some(value) = value {
                                neighbours.insert(name.to_owned(), json!(value));
                                around.push(format!("{name} page {value}"));
                            }
                        }
                        let extra = format!(
                            " Page {number} of {}: {}. Next to it: {}.",
                            paging.pages.len(),
                            if steps.is_empty() {
                                "no step".to_owned()
                            } else {
                                steps.join(", ")
                            },
                            if around.is_empty() {
                                "none".to_owned()
                            } else {
                                around.join(", ")
                            }
                        );
                        payload["page"] = json!(number);
                        payload["steps"] = json!(steps);
                        payload["neighbours"] = Value::Object(neighbours);
                        (
                            i64::from(framed.size.0),
                            i64::from(framed.size.1),
                            png(bytes),
                            extra,
                        )
                    }
                }
            };
            payload["width"] = json!(width);
            payload["height"] = json!(height);
            // The text rule: the line carries every fact of the payload.
            let missing = picture
                .missing_glyphs_note()
                .map_or_else(String::new, |note| format!(" {note}"));
            let line = format!(
                "{} of {} ({width}×{height} px): {}, {}, {}; valid, no issues.{missing}{extra}",
                format.to_uppercase(),
                what(arguments),
                count(picture.nodes.len(), "node"),
                count(picture.edges.len(), "edge"),
                count(picture.crossings, "crossing"),
            );
            Ok(ToolOutput {
                payload,
                text: Some(line),
                leading: Some(leading),
                meta,
            })
        }),
    }
}

/// What an MCP Apps view needs to make an SVG picture interactive (`_meta` of the result, for
/// a client that declared the extension): the picture's size, the flow ids of the set (the
/// document's, then each subflow's), every node (its flow's index there, step id, kind and
/// box), every edge (node indices, kind, points) and the set's lint diagnostics.
fn picture_meta(
    picture: &render::Picture,
    arguments: &serde_json::Map<String, Value>,
    diagnostics: Value,
) -> Value {
    let id = |document: &Value| document.get("id").cloned().unwrap_or(Value::Null);
    let mut flows: Vec<Value> = arguments.get("document").map(id).into_iter().collect();
    if let Some(subflows) = arguments.get("subflows").and_then(Value::as_array) {
        flows.extend(subflows.iter().map(id));
    }
    let nodes: Vec<Value> = picture
        .nodes
        .iter()
        .map(|node| {
            let r = node.rect;
            json!({
                "flow": node.flow, "step": node.id, "kind": node.kind,
                "x": r.x, "y": r.y, "width": r.width, "height": r.height,
            })
        })
        .collect();
    let edges: Vec<Value> = picture
        .edges
        .iter()
        .map(|edge| {
            json!({
                "from": edge.from, "to": edge.to, "kind": edge.kind.as_str(),
                "points": edge.points.iter().map(|&(x, y)| json!([x, y])).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "width": picture.width,
        "height": picture.height,
        "flows": flows,
        "nodes": nodes,
        "edges": edges,
        "diagnostics": diagnostics,
    })
}

/// `a … z (N steps)` for a page's list in the overview line, or `no step`.
fn span(steps: &[String]) -> String {
    match steps {
        [] => "no step".to_owned(),
        [one] => one.clone(),
        [first, .., last] => format!("{first} … {last} ({} steps)", steps.len()),
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
