//! The server and its per-connection session (skeleton).
use serde_json::Value;
use std::sync::Arc;

/// Options for [`create_mcp_server`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ServerOptions {
    /// Serve only these tools.
    pub tools: Option<Vec<String>>,
}

impl ServerOptions {
    /// Serve only the named tools.
    pub fn with_tools(mut self, tools: Option<Vec<String>>) -> Self {
        self.tools = tools;
        self
    }
}

/// The server: cheap to clone, shared by every connection.
#[derive(Debug, Clone)]
pub struct McpServer {
    inner: Arc<ServerOptions>,
}

/// Creates a server.
pub fn create_mcp_server(options: ServerOptions) -> McpServer {
    McpServer {
        inner: Arc::new(options),
    }
}

/// Per-connection state.
#[derive(Debug, Clone, Default)]
pub struct Session {
    revision: Option<&'static str>,
    scopes: Option<Vec<String>>,
}

impl Session {
    /// A fresh session.
    pub fn new() -> Self {
        Self::default()
    }
    /// The negotiated revision.
    pub fn protocol_revision(&self) -> Option<&'static str> {
        self.revision
    }
    /// Restricts the tools to these scopes.
    pub fn set_scopes(&mut self, scopes: Option<Vec<String>>) {
        self.scopes = scopes;
    }
}

impl McpServer {
    /// Handles one parsed message.
    pub fn handle_value(&self, _session: &mut Session, _message: Value) -> Option<Value> {
        let _ = &self.inner;
        None
    }
    /// Handles one message as text.
    pub fn handle_text(&self, _session: &mut Session, _text: &str) -> Option<String> {
        None
    }
    /// The largest message accepted, in characters.
    pub fn max_message_length(&self) -> usize {
        crate::DEFAULT_MAX_MESSAGE_LENGTH
    }
}
