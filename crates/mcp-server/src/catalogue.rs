//! The tool catalogue: what each tool declares and how it is called.

use botmesh_docs_search::DocsIndex;
use serde_json::{Map, Value, json};
use std::fmt;

/// The permission a tool needs: an HTTP token carries scopes, stdio has them all.
///
/// This enum is the one list of scope names: the server's check, the HTTP transport's tokens
/// file and its audit lines all read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Scope {
    /// The `docs_*` tools.
    Docs,
    /// The `flow_*` tools.
    Flow,
}

impl Scope {
    /// Every scope, in name order.
    pub const ALL: &'static [Scope] = &[Scope::Docs, Scope::Flow];

    /// The scope's name, as written in a tokens file (`docs`, `flow`).
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Docs => "docs",
            Scope::Flow => "flow",
        }
    }

    /// The scope of this name, if there is one (names are lowercase, compared exactly).
    pub fn from_name(name: &str) -> Option<Scope> {
        Scope::ALL
            .iter()
            .copied()
            .find(|scope| scope.as_str() == name)
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a tool handler sees besides its arguments.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ToolContext<'a> {
    /// The docs index, when the server has a docs directory.
    pub(crate) docs: Option<&'a DocsIndex>,
    /// The client declared MCP Apps (`apps.rs`): a result may carry what the view needs in
    /// its `_meta`.
    pub(crate) ui: bool,
}

/// A failure that is the request's fault: becomes a result with `isError: true`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolError(pub(crate) String);

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a handler returns: a JSON object payload, and the text to show when the payload's text
/// form is not its compact JSON (`docs_page` returns the Markdown itself; `flow_analyze` and
/// `flow_migrate` leave their bulk out of a text that would pass 100,000 characters).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolOutput {
    /// The structured payload (a JSON object).
    pub(crate) payload: Value,
    /// The text item; `None` means the payload as compact JSON (the text rule of
    /// `docs/reference/tools.md`: every fact of the payload is in the text).
    pub(crate) text: Option<String>,
    /// A content item listed before the text item (`flow_render`'s picture); the text item
    /// then carries the facts of the payload.
    pub(crate) leading: Option<LeadingContent>,
    /// The result's `_meta` (what an MCP Apps view reads, never the model), if any.
    pub(crate) meta: Option<Value>,
}

/// A content item before the text item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LeadingContent {
    /// An MCP `image` item.
    Image {
        /// The image bytes, base64-encoded (RFC 4648, with padding).
        data: String,
        /// The media type, such as `image/png`.
        mime_type: &'static str,
    },
    /// A `text` item (a document, such as SVG markup).
    Text(String),
}

impl From<Value> for ToolOutput {
    fn from(payload: Value) -> Self {
        ToolOutput {
            payload,
            text: None,
            leading: None,
            meta: None,
        }
    }
}

/// A tool's handler.
pub(crate) type Handler = Box<
    dyn Fn(&ToolContext<'_>, &Map<String, Value>) -> Result<ToolOutput, ToolError> + Send + Sync,
>;

/// One tool: its declaration and its handler, written as a struct literal (the handler through
/// [`Tool::handler`]).
pub(crate) struct Tool {
    /// Unique name (`[A-Za-z0-9_-]{1,64}`).
    pub(crate) name: &'static str,
    /// Display title.
    pub(crate) title: &'static str,
    /// What the tool does, written for an agent.
    pub(crate) description: &'static str,
    /// The scope a token needs to call it.
    pub(crate) scope: Scope,
    /// JSON Schema of the arguments (root `type: object`, basic keywords only, no `$ref`).
    pub(crate) input_schema: Value,
    /// JSON Schema of the payload (root `type: object`).
    pub(crate) output_schema: Value,
    /// The handler.
    pub(crate) handler: Handler,
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Tool {
    /// Boxes a handler closure, so a tool is written as a struct literal with named fields
    /// (`handler: Tool::handler(|context, arguments| …)`; see `tools/flow.rs`).
    pub(crate) fn handler(
        handler: impl Fn(&ToolContext<'_>, &Map<String, Value>) -> Result<ToolOutput, ToolError>
        + Send
        + Sync
        + 'static,
    ) -> Handler {
        Box::new(handler)
    }

    /// The tool as listed by `tools/list`, shaped for a revision.
    pub(crate) fn declaration(&self, structured: bool, annotations: bool) -> Value {
        let mut tool = Map::new();
        tool.insert("name".into(), json!(self.name));
        if structured {
            tool.insert("title".into(), json!(self.title));
        }
        tool.insert("description".into(), json!(self.description));
        tool.insert("inputSchema".into(), self.input_schema.clone());
        if structured {
            tool.insert("outputSchema".into(), self.output_schema.clone());
        }
        if annotations {
            tool.insert(
                "annotations".into(),
                json!({
                    "title": self.title,
                    "readOnlyHint": true,
                    "destructiveHint": false,
                    "idempotentHint": true,
                    "openWorldHint": false,
                }),
            );
        }
        Value::Object(tool)
    }
}

/// The tools a server offers, in a fixed order.
#[derive(Debug, Default)]
pub(crate) struct Catalogue {
    tools: Vec<Tool>,
}

impl Catalogue {
    /// An empty catalogue.
    pub(crate) fn new() -> Self {
        Catalogue::default()
    }

    /// Adds a tool (a tool of the same name is replaced).
    pub(crate) fn register(&mut self, tool: Tool) {
        self.tools.retain(|existing| existing.name != tool.name);
        self.tools.push(tool);
    }

    /// Keeps only the named tools.
    pub(crate) fn retain_named(&mut self, names: &[String]) {
        self.tools
            .retain(|tool| names.iter().any(|name| name == tool.name));
    }

    /// Looks a tool up by name.
    pub(crate) fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|tool| tool.name == name)
    }

    /// Every tool, in order.
    pub(crate) fn tools(&self) -> impl Iterator<Item = &Tool> {
        self.tools.iter()
    }
}
