//! botmesh-mcp: a Model Context Protocol server that gives an AI coding agent the deterministic
//! pieces of the botmesh bot framework: validate, analyze, migrate, diff and digest a flow
//! document, and search the project's Markdown guides. Every tool is a pure function of its
//! arguments: no network, no credentials, nothing written to disk.
//!
//! The items at this crate's root are the stable API (semver): none of them mentions a type
//! that is reachable only through [`internal`] (`cargo xtask tidy` checks it). [`internal`]
//! re-exports the framing, the tool catalogue and the libraries behind the tools, with no
//! semver promise.
//!
//! Serve a stream from another Rust program:
//!
//! ```
//! use botmesh_mcp::{ServerOptions, StreamOptions, create_mcp_server, serve_stream};
//!
//! let server = create_mcp_server(ServerOptions::default())?;
//! let input = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"demo","version":"1"}}}
//! {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flow_digest","arguments":{"document":{"version":2}}}}
//! "#;
//! let mut answers = Vec::new();
//! serve_stream(&input[..], StreamOptions::new(server, |line: &str| {
//!     answers.push(line.to_owned());
//!     Ok(())
//! }))?;
//! assert_eq!(answers.len(), 2);
//! assert!(answers[1].contains("sha256:"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod args;
mod catalogue;
mod error;
mod options;
mod protocol;
mod serve;
mod server;
mod stateless;
mod tools;

pub use catalogue::Scope;
pub use error::{OptionsError, ServeError};
pub use options::{ServerOptions, StreamOptions};
pub use protocol::{
    LATEST_INITIALIZE_REVISION, LATEST_PROTOCOL_REVISION, PROTOCOL_REVISIONS, SERVER_NAME,
    SERVER_TITLE, SERVER_VERSION, meta,
};
pub use serve::{run_stdio, serve_stream};
pub use server::{McpServer, Session, create_mcp_server};
pub use stateless::is_stateless_request;

/// A realistic version 2 flow document that validates and lints with no diagnostic (what the
/// `flow_example` tool returns), as JSON text.
pub const EXAMPLE_FLOW_DOCUMENT: &str = botmesh_flow_schema::EXAMPLE_FLOW_DOCUMENT;

/// The default largest message, in characters (16 Mi).
pub const DEFAULT_MAX_MESSAGE_LENGTH: usize = botmesh_jsonrpc::DEFAULT_MAX_MESSAGE_LENGTH;

/// The compact JSON text of a message as the server writes it: one line, with U+0085, U+2028
/// and U+2029 escaped inside strings so a client that splits lines the Unicode way (Python's
/// `str.splitlines()`) never cuts a message. A transport that serializes its own answers (the
/// HTTP one) writes them with this.
///
/// ```
/// let line = botmesh_mcp::json_line(&serde_json::json!({ "text": "a\u{2028}b" }));
/// assert_eq!(line, r#"{"text":"a\u2028b"}"#);
/// ```
pub fn json_line(value: &serde_json::Value) -> String {
    botmesh_jsonrpc::to_json_line(value)
}

/// No semver promise: the framing, the tool catalogue and the libraries behind the tools, for
/// programs that accept breakage. The [`McpServer`] methods whose signatures name these types
/// live here as functions.
pub mod internal {
    use crate::{McpServer, Session};

    pub use crate::catalogue::{
        Catalogue, Handler, LeadingContent, Tool, ToolContext, ToolError, ToolOutput,
    };
    pub use crate::tools::builtin_tool_names;
    pub use botmesh_docs_search as docs_search;
    pub use botmesh_flow_analyzer as flow_analyzer;
    pub use botmesh_flow_render as flow_render;
    pub use botmesh_flow_schema as flow_schema;
    pub use botmesh_jsonrpc as jsonrpc;

    /// A server with a catalogue of the caller's choosing (its own tools, or a subset of the
    /// built-in ones), the docs index the docs tools read, and the largest message accepted.
    pub fn server_with_catalogue(
        catalogue: Catalogue,
        docs: Option<docs_search::DocsIndex>,
        max_message_length: usize,
    ) -> McpServer {
        McpServer::with_catalogue(catalogue, docs, max_message_length)
    }

    /// The server's tool catalogue.
    pub fn catalogue(server: &McpServer) -> &Catalogue {
        server.catalogue()
    }

    /// Handles one classified message; `None` for notifications (what [`McpServer::handle_value`]
    /// does after the framing has classified the JSON).
    pub fn handle_message(
        server: &McpServer,
        session: &mut Session,
        message: jsonrpc::Message,
    ) -> Option<jsonrpc::Response> {
        server.handle_message(session, message)
    }
}

#[cfg(test)]
mod tests;
