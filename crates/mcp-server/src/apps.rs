//! The MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865, stable since 2026-01-26):
//! one view, [`VIEW_URI`], linked from `flow_render` and `flow_simulate`: the flow's picture
//! beside a phone that plays the conversation and lets a person keep talking.
//!
//! Negotiated per client, as the extension says. Only a client that declares the extension
//! with the [`MIME_TYPE`] (`capabilities.extensions["io.modelcontextprotocol/ui"].mimeTypes`,
//! or the same under `capabilities.experimental`, where clients built on SDKs without the
//! `extensions` field put it) gets:
//! - `resources` and the extension in the server's capabilities (under the field, or fields,
//!   the client used);
//! - `_meta.ui.resourceUri` on the two linked tools in `tools/list`;
//! - `resources/list`, `resources/read` (the view, which needs the `flow` scope) and
//!   `resources/templates/list` (none);
//! - the picture's geometry and diagnostics in `_meta` of a `flow_render` SVG result
//!   ([`PICTURE_META`]), which the view reads to make steps clickable and light up a path.
//!
//! Every other client sees the server as it was, byte for byte: `resources/*` are unknown
//! methods (`-32601`). A server made with `ServerOptions::with_ui(false)` (`--no-ui`,
//! `BOTMESH_UI=0`), or with a tool list without `flow_render`, never negotiates the extension. A legacy session keeps what its `initialize`
//! declared; a 2026-07-28 request is decided by the `clientCapabilities` in its own `_meta`.
//!
//! The view is one self-contained HTML document (scripts and styles inline, nothing fetched),
//! built from `tools/ui/` by `cargo xtask ui` and embedded here compressed (`build.rs`).

use crate::catalogue::Scope;
use crate::protocol::Revision;
use crate::server::Session;
use botmesh_jsonrpc::{ErrorObject, codes};
use serde_json::{Map, Value, json};
use std::sync::OnceLock;

/// The extension's identifier.
const EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type a client must list for the extension to count (compared exactly, as the
/// extension's SDK does).
const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The view's resource URI.
const VIEW_URI: &str = "ui://botmesh/flow";

/// The `_meta` key of a `flow_render` SVG result that carries the picture's geometry (only for
/// a client that declared the extension).
pub(crate) const PICTURE_META: &str = "io.github.botmesh/picture";

/// The methods a client that declared the extension may call besides the core ones.
pub(crate) const METHODS: [&str; 3] = [
    "resources/list",
    "resources/read",
    "resources/templates/list",
];

/// The tools whose results the view shows.
const LINKED_TOOLS: [&str; 2] = [DRAWING_TOOL, "flow_simulate"];

/// The tool the view draws with: a server that does not serve it (`ServerOptions::with_tools`)
/// offers no view.
pub(crate) const DRAWING_TOOL: &str = "flow_render";

/// MCP's error code for a resource that does not exist, in the revisions reached through
/// `initialize` (2026-07-28 forbids it: there the answer is `-32602`).
const RESOURCE_NOT_FOUND: i64 = -32002;

/// The view, zlib-compressed by `build.rs` from `ui/flow-view.html` (one HTML document, built by
/// `cargo xtask ui` from `tools/ui/`).
const VIEW_ZLIB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/flow-view.html.zlib"));

/// The view's HTML, inflated on first use (`None` only if the embedded bytes were corrupt, which
/// a test rules out).
fn view_html() -> Option<&'static str> {
    static VIEW: OnceLock<Option<String>> = OnceLock::new();
    VIEW.get_or_init(|| {
        let bytes = fdeflate::decompress_to_vec(VIEW_ZLIB).ok()?;
        String::from_utf8(bytes).ok()
    })
    .as_deref()
}

/// Where a client declared the extension (with [`MIME_TYPE`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Declared {
    /// In `capabilities.extensions` (SEP-2133).
    pub(crate) extensions: bool,
    /// In `capabilities.experimental`.
    pub(crate) experimental: bool,
}

impl Declared {
    /// Where `capabilities` declare the extension with [`MIME_TYPE`]; `None` when nowhere.
    pub(crate) fn read(capabilities: Option<&Value>) -> Option<Declared> {
        let capabilities = capabilities?;
        let declares = |field: &str| {
            capabilities
                .get(field)
                .and_then(|field| field.get(EXTENSION))
                .and_then(|settings| settings.get("mimeTypes"))
                .and_then(Value::as_array)
                .is_some_and(|types| types.iter().any(|t| t.as_str() == Some(MIME_TYPE)))
        };
        let declared = Declared {
            extensions: declares("extensions"),
            experimental: declares("experimental"),
        };
        (declared.extensions || declared.experimental).then_some(declared)
    }

    /// Adds to the server's capabilities what a declaring client is answered: `resources`
    /// (no subscriptions, no change notifications) and the extension, under the field or
    /// fields the client used.
    pub(crate) fn answer(self, capabilities: &mut Map<String, Value>) {
        capabilities.insert(
            "resources".into(),
            json!({ "listChanged": false, "subscribe": false }),
        );
        for (used, field) in [
            (self.extensions, "extensions"),
            (self.experimental, "experimental"),
        ] {
            if used {
                capabilities.insert(field.into(), json!({ EXTENSION: {} }));
            }
        }
    }
}

/// Adds `_meta.ui` to a tool's declaration when the view shows that tool's results.
pub(crate) fn link(declaration: &mut Value, name: &str) {
    if LINKED_TOOLS.contains(&name)
        && let Value::Object(tool) = declaration
    {
        tool.insert("_meta".into(), json!({ "ui": { "resourceUri": VIEW_URI } }));
    }
}

/// The `_meta.ui` of the view, on its listing and on its contents: a border asked for
/// explicitly (hosts' defaults vary), no `csp` (the default policy, no network, is all the
/// view needs).
fn view_meta() -> Value {
    json!({ "ui": { "prefersBorder": true } })
}

/// `resources/list`: the view. `title` exists from 2025-06-18 on.
pub(crate) fn list(revision: Revision, params: &Map<String, Value>) -> Result<Value, ErrorObject> {
    if params.get("cursor").is_some_and(|cursor| !cursor.is_null()) {
        return Err(ErrorObject::new(
            codes::INVALID_PARAMS,
            "invalid cursor: this server lists every resource on one page",
        ));
    }
    let mut resource = Map::new();
    resource.insert("uri".into(), json!(VIEW_URI));
    resource.insert("name".into(), json!("flow-view"));
    if revision.has_structured_output() {
        resource.insert("title".into(), json!("Flow view: picture and phone"));
    }
    resource.insert(
        "description".into(),
        json!("The flow's picture (zoom, pan, pages, a step's JSON and diagnostics) beside a phone that plays a flow_simulate conversation and lets the person keep talking; the path is lit up on the picture."),
    );
    resource.insert("mimeType".into(), json!(MIME_TYPE));
    resource.insert("_meta".into(), view_meta());
    Ok(json!({ "resources": [resource] }))
}

/// `resources/templates/list`: none (the server declares `resources`, of which this method is
/// part).
pub(crate) fn templates() -> Value {
    json!({ "resourceTemplates": [] })
}

/// `resources/read`: the view, for a session allowed the `flow` scope (the view calls the flow
/// tools). `stateless` selects the not-found code: `-32002` before 2026-07-28, `-32602` in it.
pub(crate) fn read(
    session: &Session,
    params: &Map<String, Value>,
    stateless: bool,
) -> Result<Value, ErrorObject> {
    let Some(uri) = params.get("uri").and_then(Value::as_str) else {
        return Err(ErrorObject::new(
            codes::INVALID_PARAMS,
            "resources/read needs a string \"uri\"",
        ));
    };
    if uri != VIEW_URI {
        let code = if stateless {
            codes::INVALID_PARAMS
        } else {
            RESOURCE_NOT_FOUND
        };
        return Err(ErrorObject::new(
            code,
            format!("resource not found: {uri} (this server has one resource, {VIEW_URI})"),
        )
        .with_data(json!({ "uri": uri })));
    }
    if !session.allows(Scope::Flow) {
        return Err(ErrorObject::new(
            codes::INVALID_PARAMS,
            format!(
                "resource {VIEW_URI} needs the \"{}\" scope, which this token does not have",
                Scope::Flow
            ),
        ));
    }
    let Some(html) = view_html() else {
        return Err(ErrorObject::new(
            codes::INTERNAL_ERROR,
            format!("internal error: the embedded {VIEW_URI} does not inflate"),
        ));
    };
    Ok(json!({
        "contents": [{
            "uri": VIEW_URI,
            "mimeType": MIME_TYPE,
            "text": html,
            "_meta": view_meta(),
        }]
    }))
}
