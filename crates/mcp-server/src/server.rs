//! The server: lifecycle, revision negotiation and method dispatch.

use crate::apps::{self, Declared};
use crate::args;
use crate::catalogue::{Catalogue, LeadingContent, Scope, ToolContext, ToolOutput};
use crate::error::OptionsError;
use crate::exchange::{CallOutcome, Exchange, ToolCall, UNKNOWN_TOOL};
use crate::options::ServerOptions;
use crate::protocol::{INSTRUCTIONS, Revision, SERVER_NAME, SERVER_TITLE, SERVER_VERSION};
use botmesh_docs_search::DocsIndex;
use botmesh_jsonrpc::{ErrorObject, Message, Request, Response, codes};
use serde_json::{Map, Value, json};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, OnceLock};

/// The methods served to a legacy (`initialize`) session; a session whose client declared MCP
/// Apps also has `apps::METHODS`.
const LEGACY_METHODS: [&str; 5] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "server/discover",
];

/// The server: the tool catalogue and the docs index, shared by every connection.
///
/// Cheap to clone (an `Arc` inside); `Send + Sync`, so one server can serve many sessions at
/// once (the HTTP transport does).
#[derive(Debug, Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// Built on first use (a `tools/list` or `tools/call`), not at start-up: a client's
    /// `initialize` never pays for the tools' schemas, neither in time nor in memory.
    catalogue: OnceLock<Catalogue>,
    /// Whether the catalogue built on first use has the docs tools.
    with_docs: bool,
    docs: Option<DocsIndex>,
    max_message_length: usize,
    /// Whether a client that declares MCP Apps gets the view (`ServerOptions::ui`).
    ui: bool,
    /// `tools/list` results, rendered once per revision on first use, without and with the
    /// MCP Apps links (`[revision][ui]`).
    tool_lists: [[OnceLock<Value>; 2]; Revision::ALL.len()],
}

/// Per-connection state: the negotiated revision, whether its client declared MCP Apps, and the
/// scopes allowed.
///
/// stdio has one session per process; the HTTP transport keeps one per `Mcp-Session-Id`, and a
/// fresh [`Session::stateless`] per 2026-07-28 request.
#[derive(Debug, Clone, Default)]
pub struct Session {
    revision: Option<Revision>,
    scopes: Option<Vec<Scope>>,
    /// Every request takes the stateless 2026-07-28 path (an HTTP POST whose
    /// `MCP-Protocol-Version` header is not a legacy revision).
    stateless: bool,
    /// The client declared MCP Apps in `initialize` and the server serves the view.
    ui: bool,
}

impl Session {
    /// A session before `initialize`.
    pub fn new() -> Self {
        Session::default()
    }

    /// A session whose every request is served statelessly, under the 2026-07-28 revision
    /// ([`crate::LATEST_PROTOCOL_REVISION`]): `initialize` and `ping` are unknown methods there,
    /// and each request must carry its version in `params._meta`. The HTTP transport uses it
    /// for POSTs routed by their version header.
    pub fn stateless() -> Self {
        Session {
            stateless: true,
            ..Session::default()
        }
    }

    /// A session opened at a known revision, as if an `initialize` had negotiated it: what a
    /// transport that stores only the revision (a sealed session id, a stateless POST with a
    /// version header) serves a request with. `None` for a revision `initialize` does not reach
    /// (2026-07-28 has no handshake: use [`Session::stateless`]).
    ///
    /// ```
    /// let session = botmesh_mcp::Session::at_revision("2025-06-18").expect("a classic revision");
    /// assert_eq!(session.protocol_revision(), Some("2025-06-18"));
    /// assert!(botmesh_mcp::Session::at_revision("2026-07-28").is_none());
    /// ```
    pub fn at_revision(revision: &str) -> Option<Self> {
        Revision::parse(revision).map(|revision| Session {
            revision: Some(revision),
            ..Session::default()
        })
    }

    /// The revision negotiated by `initialize`, if one succeeded.
    pub fn protocol_revision(&self) -> Option<&'static str> {
        self.revision.map(Revision::as_str)
    }

    /// Everything an `initialize` left in this session, as a short string of visible ASCII
    /// without dots: the negotiated revision, then `+ui` when the client declared MCP Apps
    /// (the view is served). What a transport that keeps a session only in its id stores
    /// (the HTTP transport's sealed ids); `None` before `initialize`.
    ///
    /// ```
    /// let session = botmesh_mcp::Session::at_revision("2025-06-18").expect("a classic revision");
    /// assert_eq!(session.resume_key().as_deref(), Some("2025-06-18"));
    /// ```
    pub fn resume_key(&self) -> Option<String> {
        self.revision.map(|revision| {
            let ui = if self.ui { UI_KEY } else { "" };
            format!("{}{ui}", revision.as_str())
        })
    }

    /// The session a [`Session::resume_key`] describes; `None` for a string it never writes (a
    /// bare revision is one: old keys stay valid).
    ///
    /// ```
    /// use botmesh_mcp::Session;
    /// let session = Session::from_resume_key("2025-11-25+ui").expect("a key");
    /// assert_eq!(session.protocol_revision(), Some("2025-11-25"));
    /// assert_eq!(session.resume_key().as_deref(), Some("2025-11-25+ui"));
    /// assert!(Session::from_resume_key("2025-11-25+x").is_none());
    /// ```
    pub fn from_resume_key(key: &str) -> Option<Self> {
        let (revision, ui) = match key.strip_suffix(UI_KEY) {
            Some(revision) => (revision, true),
            None => (key, false),
        };
        Session::at_revision(revision).map(|session| Session { ui, ..session })
    }

    /// Restricts the callable tools to these scopes; `None` (the default) allows every tool.
    pub fn set_scopes(&mut self, scopes: Option<Vec<Scope>>) {
        self.scopes = scopes;
    }

    /// True when this session may call a tool of `scope`: the one scope check, used by
    /// `tools/call` and by the HTTP transport's audit lines.
    pub fn allows(&self, scope: Scope) -> bool {
        self.scopes
            .as_ref()
            .is_none_or(|scopes| scopes.contains(&scope))
    }

    /// The revision this session's messages are served under, for the batch rule: 2026-07-28
    /// for a stateless session, else the negotiated one (the newest before `initialize`).
    fn batch_revision(&self) -> &'static str {
        if self.stateless {
            crate::LATEST_PROTOCOL_REVISION
        } else {
            self.result_revision().as_str()
        }
    }

    /// `-32600` for a batch this session's revision does not accept ([`crate::accepts_batches`]).
    fn refuse_batch(&self) -> Option<Response> {
        let revision = self.batch_revision();
        (!crate::accepts_batches(revision)).then(|| {
            Response::error(
                None,
                ErrorObject::new(
                    codes::INVALID_REQUEST,
                    format!("invalid request: batches are not accepted under revision {revision}"),
                ),
            )
        })
    }

    /// The revision a legacy result is shaped for: the negotiated one, else the newest
    /// `initialize` revision (a request before `initialize` is served, leniently, as under it).
    fn result_revision(&self) -> Revision {
        self.revision.unwrap_or(Revision::LATEST)
    }
}

/// What [`Session::resume_key`] appends for a session whose client declared MCP Apps.
const UI_KEY: &str = "+ui";

/// Creates a server from options: the built-in tools, and the docs tools when the docs
/// directory exists.
///
/// A docs directory that cannot be used is logged (a warning) and leaves the docs tools out, as
/// does naming a docs tool in [`ServerOptions::with_tools`] without one.
///
/// # Errors
///
/// [`OptionsError::UnknownTool`] when the tool list names a tool that does not exist: a typo
/// would otherwise serve fewer tools without a word.
pub fn create_mcp_server(options: ServerOptions) -> Result<McpServer, OptionsError> {
    if let Some(names) = &options.tools {
        let known = crate::tools::builtin_tool_names();
        if let Some(unknown) = names.iter().find(|name| !known.contains(&name.as_str())) {
            return Err(OptionsError::UnknownTool {
                name: unknown.clone(),
                known: known.join(", "),
            });
        }
    }
    let docs = options.docs_dir.as_ref().and_then(|dir| match DocsIndex::new(dir.clone()) {
        Ok(index) => Some(index),
        Err(error) => {
            tracing::warn!(
                "docs directory {} cannot be used ({error}); docs_search and docs_page are not served",
                dir.display()
            );
            None
        }
    });
    // The view draws with flow_render: a server without it offers no view.
    let ui = options.ui
        && options
            .tools
            .as_ref()
            .is_none_or(|names| names.iter().any(|name| name == crate::apps::DRAWING_TOOL));
    let server = McpServer::new(OnceLock::new(), docs, options.max_message_length, ui);
    if let Some(names) = &options.tools {
        // A tool list is known at start-up: build now, to warn about what cannot be served.
        let mut catalogue = crate::tools::builtin(server.inner.with_docs);
        for name in names {
            if catalogue.get(name).is_none() {
                tracing::warn!(
                    "the tool list names {name}, which needs a docs directory; it is not served"
                );
            }
        }
        catalogue.retain_named(names);
        // The lock is new and this server not shared yet, so it cannot be set already.
        let _unset = server.inner.catalogue.set(catalogue);
    }
    Ok(server)
}

impl McpServer {
    /// A server with a catalogue of the caller's choosing (tests register their own tools).
    #[cfg(test)]
    pub(crate) fn with_catalogue(
        catalogue: Catalogue,
        docs: Option<DocsIndex>,
        max_message_length: usize,
    ) -> McpServer {
        McpServer::new(OnceLock::from(catalogue), docs, max_message_length, true)
    }

    fn new(
        catalogue: OnceLock<Catalogue>,
        docs: Option<DocsIndex>,
        max_message_length: usize,
        ui: bool,
    ) -> McpServer {
        McpServer {
            inner: Arc::new(Inner {
                catalogue,
                with_docs: docs.is_some(),
                docs,
                max_message_length,
                ui,
                tool_lists: Default::default(),
            }),
        }
    }

    /// Where a client's capabilities declare MCP Apps, when this server serves the view.
    pub(crate) fn apps_declared(&self, capabilities: Option<&Value>) -> Option<Declared> {
        if self.inner.ui {
            Declared::read(capabilities)
        } else {
            None
        }
    }

    /// The largest message accepted, in characters.
    pub fn max_message_length(&self) -> usize {
        self.inner.max_message_length
    }

    /// The tool catalogue.
    pub(crate) fn catalogue(&self) -> &Catalogue {
        self.inner
            .catalogue
            .get_or_init(|| crate::tools::builtin(self.inner.with_docs))
    }

    /// The scope a tool needs, with the catalogue's own spelling of its name (safe to log: it
    /// is never the caller's string); `None` when this server has no such tool.
    pub fn tool_scope(&self, name: &str) -> Option<(&'static str, Scope)> {
        self.catalogue()
            .get(name)
            .map(|tool| (tool.name, tool.scope))
    }

    /// Handles one parsed message (object) or batch (array); `None` when nothing is owed.
    ///
    /// A batch the session's revision does not accept ([`crate::accepts_batches`]) answers
    /// `-32600` as a whole.
    pub fn handle_value(&self, session: &mut Session, message: Value) -> Option<Value> {
        self.handle_value_in(session, message, &mut Exchange::default())
    }

    /// [`McpServer::handle_value`] recording into `exchange` (what [`McpServer::serve`] reports).
    pub(crate) fn handle_value_in(
        &self,
        session: &mut Session,
        message: Value,
        exchange: &mut Exchange<'_>,
    ) -> Option<Value> {
        if message.is_array()
            && let Some(refused) = session.refuse_batch()
        {
            return Some(refused.to_value());
        }
        botmesh_jsonrpc::process_value(message, &mut |message| {
            self.handle_message_in(session, message, exchange)
        })
    }

    /// Handles one message given as text; returns the compact answer (no newline), or `None`.
    /// The batch rule is [`McpServer::handle_value`]'s.
    pub fn handle_text(&self, session: &mut Session, text: &str) -> Option<String> {
        // JSON whitespace is all serde_json skips before a value: a `[` after it is an array.
        if text
            .trim_start_matches([' ', '\t', '\n', '\r'])
            .starts_with('[')
            && let Some(refused) = session.refuse_batch()
        {
            return Some(refused.to_line());
        }
        botmesh_jsonrpc::process_text(text, &mut |message| self.handle_message(session, message))
    }

    /// Handles one classified message; `None` for notifications (what `serve_stream` calls on
    /// the messages the framing classified).
    pub(crate) fn handle_message(
        &self,
        session: &mut Session,
        message: Message,
    ) -> Option<Response> {
        self.handle_message_in(session, message, &mut Exchange::default())
    }

    fn handle_message_in(
        &self,
        session: &mut Session,
        message: Message,
        exchange: &mut Exchange<'_>,
    ) -> Option<Response> {
        match message {
            Message::Request(request) => Some(self.handle_request(session, request, exchange)),
            Message::Notification(notification) => {
                tracing::debug!(method = %notification.method, "notification");
                None
            }
        }
    }

    fn handle_request(
        &self,
        session: &mut Session,
        request: Request,
        exchange: &mut Exchange<'_>,
    ) -> Response {
        let Request { id, method, params } = request;
        let stateless = session.stateless
            || (method != "initialize" && crate::stateless::is_stateless_request(params.as_ref()));
        // A tool call is reported with the catalogue's name and the scope decision, made by
        // the same check `tools_call` makes.
        let call = (method == "tools/call").then(|| {
            let name = params
                .as_ref()
                .and_then(|params| params.get("name"))
                .and_then(Value::as_str)
                .and_then(|name| self.tool_scope(name));
            (
                name.map_or(UNKNOWN_TOOL, |(name, _)| name),
                name.is_some_and(|(_, scope)| !session.allows(scope)),
            )
        });
        let routing = exchange.routing;
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            if stateless {
                crate::stateless::dispatch(self, session, &method, params, routing)
            } else {
                self.dispatch(session, &method, params)
            }
        }))
        .unwrap_or_else(|_| {
            tracing::error!(%method, "a handler panicked; answered -32603");
            Err(ErrorObject::new(
                codes::INTERNAL_ERROR,
                format!("internal error while handling {method}"),
            ))
        });
        if let Some((tool, denied)) = call {
            let outcome = match &outcome {
                Err(_) => CallOutcome::ProtocolError,
                Ok(result) if result.get("isError") == Some(&Value::Bool(true)) => {
                    if denied {
                        CallOutcome::ScopeDenied
                    } else {
                        CallOutcome::ToolError
                    }
                }
                Ok(_) => CallOutcome::Ok,
            };
            exchange.tool_calls.push(ToolCall { tool, outcome });
        }
        if method == "initialize" && !stateless && outcome.is_ok() {
            exchange.opened = session.revision;
        }
        match outcome {
            // Stateless results end with constant fields (resultType, _meta, caching hints),
            // written by reference rather than copied into every result.
            Ok(result) if stateless => crate::stateless::complete(id, &method, result),
            Ok(result) => Response::result(id, result),
            Err(error) => Response::error(Some(id), error),
        }
    }

    fn dispatch(
        &self,
        session: &mut Session,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, ErrorObject> {
        // The method is checked before its parameters: an unknown method is `-32601` whatever
        // its `params` look like (an array included).
        let known =
            LEGACY_METHODS.contains(&method) || (session.ui && apps::METHODS.contains(&method));
        if !known {
            return Err(method_not_found(method));
        }
        let params = match params {
            None => Map::new(),
            Some(Value::Object(map)) => map,
            Some(_) => return Err(invalid_params("params must be an object")),
        };
        match method {
            "initialize" => Ok(self.initialize(session, &params)),
            "ping" => Ok(json!({})),
            "tools/list" => self.tools_list(session.result_revision(), session.ui, &params),
            "tools/call" => {
                self.tools_call(session, session.result_revision(), session.ui, &params)
            }
            "server/discover" => Err(crate::stateless::missing_meta()),
            "resources/list" => apps::list(session.result_revision(), &params),
            "resources/read" => apps::read(session, &params, false),
            "resources/templates/list" => Ok(apps::templates()),
            _ => Err(method_not_found(method)),
        }
    }

    fn initialize(&self, session: &mut Session, params: &Map<String, Value>) -> Value {
        let asked = params.get("protocolVersion").and_then(Value::as_str);
        let revision = asked.and_then(Revision::parse).unwrap_or(Revision::LATEST);
        session.revision = Some(revision);
        let declared = self.apps_declared(params.get("capabilities"));
        session.ui = declared.is_some();
        tracing::debug!(
            asked,
            negotiated = revision.as_str(),
            ui = session.ui,
            "initialize"
        );
        let mut server_info = Map::new();
        server_info.insert("name".into(), json!(SERVER_NAME));
        if revision.has_structured_output() {
            server_info.insert("title".into(), json!(SERVER_TITLE));
        }
        server_info.insert("version".into(), json!(SERVER_VERSION));
        let mut capabilities = Map::new();
        capabilities.insert("tools".into(), json!({ "listChanged": false }));
        if let Some(declared) = declared {
            declared.answer(&mut capabilities);
        }
        json!({
            "protocolVersion": revision.as_str(),
            "capabilities": capabilities,
            "serverInfo": server_info,
            "instructions": INSTRUCTIONS,
        })
    }

    /// The tool list shaped for `revision`; `ui`: with the MCP Apps links (`apps::link`).
    pub(crate) fn tools_list(
        &self,
        revision: Revision,
        ui: bool,
        params: &Map<String, Value>,
    ) -> Result<Value, ErrorObject> {
        if params.get("cursor").is_some_and(|cursor| !cursor.is_null()) {
            return Err(invalid_params(
                "invalid cursor: this server lists every tool on one page",
            ));
        }
        let list = self.inner.tool_lists[revision.index()][usize::from(ui)].get_or_init(|| {
            let tools: Vec<Value> = self
                .catalogue()
                .tools()
                .map(|tool| {
                    let mut declaration = tool
                        .declaration(revision.has_structured_output(), revision.has_annotations());
                    if ui {
                        apps::link(&mut declaration, tool.name);
                    }
                    declaration
                })
                .collect();
            json!({ "tools": tools })
        });
        Ok(list.clone())
    }

    /// Calls a tool; the result is shaped for `revision` (the session's, or the stateless one's),
    /// for a client that declared MCP Apps when `ui`.
    pub(crate) fn tools_call(
        &self,
        session: &Session,
        revision: Revision,
        ui: bool,
        params: &Map<String, Value>,
    ) -> Result<Value, ErrorObject> {
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Err(invalid_params("tools/call needs a string \"name\""));
        };
        let Some(tool) = self.catalogue().get(name) else {
            return Err(invalid_params(&format!("unknown tool: {name}")));
        };
        let empty = Map::new();
        let arguments = match params.get("arguments") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(arguments)) => arguments,
            Some(_) => return Err(invalid_params("tools/call \"arguments\" must be an object")),
        };
        let needed = tool.scope;
        if !session.allows(needed) {
            return Ok(error_result(format!(
                "tool {name} needs the \"{needed}\" scope, which this token does not have"
            )));
        }
        if let Err(problem) = args::check(&tool.input_schema, arguments) {
            return Ok(error_result(format!(
                "invalid arguments for {name}: {problem}"
            )));
        }
        let context = ToolContext {
            docs: self.inner.docs.as_ref(),
            ui,
        };
        Ok(match (tool.handler)(&context, arguments) {
            Ok(output) => success_result(output, revision),
            Err(error) => error_result(error.0),
        })
    }
}

fn method_not_found(method: &str) -> ErrorObject {
    ErrorObject::new(
        codes::METHOD_NOT_FOUND,
        format!("method not found: {method}"),
    )
}

fn invalid_params(message: &str) -> ErrorObject {
    ErrorObject::new(codes::INVALID_PARAMS, message)
}

/// A tool result with `isError: true` and one text item.
fn error_result(message: String) -> Value {
    json!({ "content": [{ "type": "text", "text": message }], "isError": true })
}

fn success_result(output: ToolOutput, revision: Revision) -> Value {
    let text = match output.text {
        Some(text) => text,
        None => output.payload.to_string(),
    };
    let mut result = Map::new();
    let text_item = json!({ "type": "text", "text": text });
    let content = match output.leading {
        Some(LeadingContent::Text(leading)) => json!([
            { "type": "text", "text": leading },
            text_item
        ]),
        Some(LeadingContent::Image { data, mime_type }) => json!([
            { "type": "image", "data": data, "mimeType": mime_type },
            text_item
        ]),
        None => json!([text_item]),
    };
    result.insert("content".into(), content);
    if revision.has_structured_output() {
        result.insert("structuredContent".into(), output.payload);
    }
    if let Some(meta) = output.meta {
        result.insert("_meta".into(), meta);
    }
    Value::Object(result)
}
